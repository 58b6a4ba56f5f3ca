#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The eBPF policy's port rules (tools/smc_bpf attach --ports), with our
# module on two VMs.  The module's BTF is there (/sys/kernel/btf/smc names
# smc_bpf_decide) and the policy is attached with the port program for the
# cgroup /sys/fs/cgroup/smc-ports: on VM 0 (server) ports 5400,5401, on
# VM 1 (client) ports 5400,5403.  Unmodified python3 programs
# (tools/smc_run/rules_probe.py) in that cgroup, all IPPROTO_SMC sockets:
#   - VM 0 listens on 5400, 5401 and 5403; VM 1 connects to each;
#   - 5400, allowed on both: SMC-R (ACTIVE, mode SMCR, no fallback on both
#     sides; rxe0 packet counters grew by the data);
#   - 5401, vetoed at VM 1's connect(): its SYN carries no SMC option, so
#     the client falls back with SMC_CLC_DECL_OPTUNSUPP and VM 0's SMC
#     listener sees a peer without SMC (PEERNOSMC);
#   - 5403, vetoed at VM 0's listen(): the client offered SMC, the SYN-ACK
#     carries none (client PEERNOSMC), the accepted socket OPTUNSUPP;
#   - each connection moves 1 MiB each way, SHA-256 checked;
#   - smcctl stats: per VM one SMC-R handshake and the two fallbacks above;
#     smc_bpf status: one connect (VM 1) / listen (VM 0) kept TCP;
#   - detach leaves no pin and no program.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "bpf-ports needs exactly two VMs"
[ "$SMC_IMPL" = ours ] || fail "bpf-ports needs our module (its smc_bpf_decide hook)"
smc_port=5400
veto_c=5401
veto_s=5403
bytes=1048576
optunsupp=$((0x03060000))
peernosmc=$((0x03010000))
rules=5400,5401
[ "$VM_INDEX" -eq 0 ] || rules=5400,5403
cg=/sys/fs/cgroup/smc-ports
release=$SHARED/bpf-ports.release
PY=/usr/bin/python3
PROBE=$REPO/tools/smc_run/rules_probe.py

# INCG (run in a cgroup) and sock_view come from guest.sh

# count VIEW AWK-CONDITION: how many lines of VIEW match
count() {
	awk "$2" <<<"$1" | wc -l
}

smcr_setup
SMC_BPF=$(smc_bpf_path) || fail "cannot find or build smc_bpf: $(tail -n 5 "$RESULTS/smc_bpf-build.log" 2>/dev/null)"
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 cgroup2 /sys/fs/cgroup
mkdir -p "$cg"

# the module's BTF, made by the build, names the hook
[ -e /sys/kernel/btf/smc ] || fail "no /sys/kernel/btf/smc: smc.ko was built without BTF (pahole?)"
bpftool btf dump file /sys/kernel/btf/smc >"$RESULTS/btf-smc.txt" 2>&1 ||
	fail "bpftool btf dump file /sys/kernel/btf/smc: $(tail -n 2 "$RESULTS/btf-smc.txt")"
log "module BTF: $(grep -c "FUNC '" "$RESULTS/btf-smc.txt") functions, $(grep "FUNC 'smc_bpf_decide'" "$RESULTS/btf-smc.txt")"
grep -q "FUNC 'smc_bpf_decide'" "$RESULTS/btf-smc.txt" ||
	fail "smc_bpf_decide is not in the module's BTF"

"$SMC_BPF" status >"$RESULTS/status0.log" 2>&1 && fail "policy attached before the test: $(cat "$RESULTS/status0.log")"
"$SMC_BPF" attach --cgroup "$cg" --ports "$rules,${rules%%,*}" | tee "$RESULTS/attach.log" ||
	fail "smc_bpf attach --ports failed"
grep -q 'attached with port rules' "$RESULTS/attach.log" ||
	fail "attach did not attach the port program: $(paste -sd';' "$RESULTS/attach.log")"
"$SMC_BPF" status | tee "$RESULTS/status1.log"
grep -q '^port rules: link [0-9]*, program [0-9]*, fmod_ret smc_bpf_decide$' "$RESULTS/status1.log" ||
	fail "status shows no port program"
grep -q "^  ports $rules: 0 connect/listen kept TCP$" "$RESULTS/status1.log" ||
	fail "status does not show the rule $rules unused"

smcr_snapshot before
barrier attached

if [ "$VM_INDEX" -eq 0 ]; then
	rm -f "$release"
	run_bg server "${INCG[@]}" "$cg" "$PY" "$PROBE" serve --hold "$release" \
		"0.0.0.0:$smc_port" "0.0.0.0:$veto_c" "0.0.0.0:$veto_s"
	server=$BG_PID
	wait_file_line "$RESULTS/server.log" '^listening' 30
	barrier listening
	barrier holding 60
	"$SMCCTL" --json connections >"$RESULTS/connections.json" ||
		fail "smcctl --json connections failed"
	view=$(sock_view "$server")
	log "server smcctl: $(paste -sd';' <<<"$view")"
	[ "$(count "$view" '$2 == "LISTEN"')" -eq 3 ] ||
		smcr_problem "want the three listeners listed by smcctl (IPPROTO_SMC)"
	[ "$(count "$view" '$2 == "ACTIVE" && $3 == "SMCR" && $6 == 0 && $4 == '$smc_port)" -eq 1 ] ||
		smcr_problem "want one ACTIVE SMCR connection without fallback on $smc_port"
	[ "$(count "$view" '$2 != "LISTEN" && $3 == "TCP" && $4 == '$veto_c' && $6 == '$peernosmc)" -eq 1 ] ||
		smcr_problem "want the connection on $veto_c in fallback with PEERNOSMC (no SMC option in the SYN)"
	[ "$(count "$view" '$2 != "LISTEN" && $3 == "TCP" && $4 == '$veto_s' && $6 == '$optunsupp)" -eq 1 ] ||
		smcr_problem "want the connection on $veto_s in fallback with OPTUNSUPP (listen vetoed)"
	[ "$(count "$view" '$2 != "LISTEN"')" -eq 3 ] ||
		smcr_problem "want exactly three accepted connections"
	barrier checked
	wait_bg "$server" 60 || smcr_problem "server failed: $(tail -n 3 "$RESULTS/server.log" | paste -sd';')"
	grep -q 'failed' "$RESULTS/server.log" &&
		smcr_problem "a server connection failed: $(grep failed "$RESULTS/server.log" | paste -sd';')"
	want_c=0 want_s=1
else
	barrier listening
	run_bg smc "${INCG[@]}" "$cg" "$PY" "$PROBE" connect "$VM_IP_0" "$smc_port" \
		"$bytes" --hold "$release"
	pid_smc=$BG_PID
	run_bg veto_c "${INCG[@]}" "$cg" "$PY" "$PROBE" connect "$VM_IP_0" "$veto_c" \
		"$bytes" --hold "$release"
	pid_veto_c=$BG_PID
	run_bg veto_s "${INCG[@]}" "$cg" "$PY" "$PROBE" connect "$VM_IP_0" "$veto_s" \
		"$bytes" --hold "$release"
	pid_veto_s=$BG_PID
	for name in smc veto_c veto_s; do
		(wait_file_line "$RESULTS/$name.log" '^holding|Error|error' 60) || true
		grep -q '^holding' "$RESULTS/$name.log" ||
			smcr_problem "client $name did not get to holding: $(tail -n 3 "$RESULTS/$name.log" | paste -sd';')"
		log "client $name: $(grep -E '^connected|^transfer' "$RESULTS/$name.log" | paste -sd';')"
		grep -q "^connected [0-9]* domain 2 proto 256 " "$RESULTS/$name.log" ||
			smcr_problem "client $name: not an IPPROTO_SMC socket"
		grep -q "^transfer ok $bytes bytes each way" "$RESULTS/$name.log" ||
			smcr_problem "client $name: no 'transfer ok $bytes bytes each way'"
	done
	barrier holding 60
	"$SMCCTL" --json connections >"$RESULTS/connections.json" ||
		fail "smcctl --json connections failed"
	view=$(sock_view "$pid_smc")
	log "client to $smc_port, smcctl: $view"
	[ "$(count "$view" '$2 == "ACTIVE" && $3 == "SMCR" && $6 == 0 && $5 == '$smc_port)" -eq 1 ] ||
		smcr_problem "the client to $smc_port has no ACTIVE SMCR socket without fallback"
	view=$(sock_view "$pid_veto_c")
	log "client to $veto_c, smcctl: $view"
	[ "$(count "$view" '$3 == "TCP" && $5 == '$veto_c' && $6 == '$optunsupp)" -eq 1 ] ||
		smcr_problem "the client to $veto_c is not in fallback with OPTUNSUPP"
	view=$(sock_view "$pid_veto_s")
	log "client to $veto_s, smcctl: $view"
	[ "$(count "$view" '$3 == "TCP" && $5 == '$veto_s' && $6 == '$peernosmc)" -eq 1 ] ||
		smcr_problem "the client to $veto_s is not in fallback with PEERNOSMC (SMC-less SYN-ACK)"
	barrier checked
	: >"$release"
	for name in smc veto_c veto_s; do
		pid_var=pid_$name
		pid=${!pid_var}
		wait_bg "$pid" 60 || smcr_problem "client $name failed: $(tail -n 3 "$RESULTS/$name.log" | paste -sd';')"
		grep -q '^client ok' "$RESULTS/$name.log" || smcr_problem "client $name did not end ok"
	done
	want_c=1 want_s=0
fi
barrier finished 60
smcr_snapshot after

# one SMC-R handshake, one fallback OPTUNSUPP and one PEERNOSMC, no other
out=$(B="$RESULTS/before" A="$RESULTS/after" C=$want_c S=$want_s R1=$optunsupp R2=$peernosmc $PY -c '
import json, os
rd = lambda n: json.load(open(n))
b, a = rd(os.environ["B"] + ".stats.json"), rd(os.environ["A"] + ".stats.json")
fb, fa = rd(os.environ["B"] + ".fallback.json"), rd(os.environ["A"] + ".fallback.json")
side = "client" if int(os.environ["C"]) else "server"
d = lambda k, s: a[k][s] - b[k][s]
old = {r["reason"]: r["count"] for r in fb[side]["reasons"]}
new = {r["reason"]: r["count"] - old.get(r["reason"], 0) for r in fa[side]["reasons"]}
new = {k: v for k, v in new.items() if v}
print("smcr_connections +client %d +server %d, fallbacks +client %d +server %d, new %s fallback reasons %s" % (
      d("smcr_connections", "client"), d("smcr_connections", "server"),
      d("fallbacks", "client"), d("fallbacks", "server"), side,
      {hex(k): v for k, v in new.items()}))
want = (int(os.environ["C"]), int(os.environ["S"]), 2 * int(os.environ["C"]), 2 * int(os.environ["S"]))
got = (d("smcr_connections", "client"), d("smcr_connections", "server"), d("fallbacks", "client"), d("fallbacks", "server"))
if got != want:
    print("PROBLEM want smcr_connections +client %d +server %d, fallbacks +client %d +server %d" % want)
if new != {int(os.environ["R1"]): 1, int(os.environ["R2"]): 1}:
    print("PROBLEM want exactly one new %s fallback OPTUNSUPP and one PEERNOSMC" % side)
') || fail "cannot compare smcctl snapshots"
log "stats: $(head -n 1 <<<"$out")"
while read -r line; do
	[[ $line == PROBLEM* ]] && smcr_problem "${line#PROBLEM }"
done <<<"$out"
# 1 MiB each way over SMC-R: about 1024 RoCE packets each way
smcr_expect_rdma before after 1000 1000

"$SMC_BPF" status | tee "$RESULTS/status2.log"
grep -q "^  ports $rules: 1 connect/listen kept TCP$" "$RESULTS/status2.log" ||
	smcr_problem "smc_bpf status: $(grep '^  ports' "$RESULTS/status2.log"), want 1 kept TCP"

"$SMC_BPF" detach || smcr_problem "smc_bpf detach failed"
[ -e /sys/fs/bpf/smc_bpf ] && smcr_problem "/sys/fs/bpf/smc_bpf still there after detach"
left=$(bpf_prog_gone smc_ports) ||
	smcr_problem "port program still loaded after detach: $left"
barrier detached
smcr_verdict bpf-ports
