#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The eBPF policy (tools/smc_bpf): TCP sockets of tasks in a chosen cgroup
# become SMC sockets, others stay TCP.  Unmodified programs: python3 and
# smc_load -f inet (socket(AF_INET, SOCK_STREAM, 0)).  On every VM the
# policy is attached to /sys/fs/cgroup/smc-policy.
#   - python3 inside the cgroup gets SO_PROTOCOL IPPROTO_SMC (AF_INET and
#     AF_INET6), outside IPPROTO_TCP; a second cgroup can be added and
#     removed without disturbing the first;
#   - VM 0 serves (smc_load -s -f inet) inside the cgroup; VM 1 runs one
#     client inside the cgroup and one outside, each echoing 1 MiB checked;
#     while both are open: VM 1's smcctl lists exactly the inside client's
#     socket, ACTIVE in mode SMCR, and the outside one is a plain TCP socket
#     of its process (ss); VM 0's smcctl lists the listener and two
#     accepted sockets: one SMCR, one fallback (the peer offered no SMC);
#   - smcctl stats: VM 1 +1 SMC-R client handshake, no fallback; VM 0 +1
#     SMC-R server handshake and +1 server fallback; smc_bpf status counts
#     exactly the sockets the cgroup created;
#   - detach: status says not attached, the pins are gone, the program is
#     unloaded, and python3 in the cgroup gets TCP again.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "bpf-policy needs exactly two VMs"
[ "$SMC_IMPL" != none ] || fail "bpf-policy needs an SMC module on every VM"
port=5400
bytes=1048576
cg=/sys/fs/cgroup/smc-policy
cg2=/sys/fs/cgroup/smc-policy-2
rel_in=/tmp/bpf-policy.release-in
rel_out=/tmp/bpf-policy.release-out
PY=/usr/bin/python3
# "${INCG[@]}" DIR CMD... (guest.sh) runs CMD in cgroup DIR in the same
# process, so that run_bg's BG_PID is CMD's

# socket_inodes PID: the socket inodes of a process
socket_inodes() {
	local f l out=""

	for f in /proc/"$1"/fd/*; do
		l=$(readlink "$f" 2>/dev/null) || continue
		case $l in socket:\[*\]) out+="${l//[!0-9]/} " ;; esac
	done
	echo "$out"
}

smcr_setup
SMC_BPF=$(smc_bpf_path) || fail "cannot find or build smc_bpf: $(tail -n 5 "$RESULTS/smc_bpf-build.log" 2>/dev/null)"
log "smc_bpf: $SMC_BPF"
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 cgroup2 /sys/fs/cgroup
mkdir -p "$cg" "$cg2"

"$SMC_BPF" status >"$RESULTS/status0.log" 2>&1 && fail "policy attached before the test: $(cat "$RESULTS/status0.log")"
"$SMC_BPF" attach --cgroup "$cg" || fail "smc_bpf attach failed"
"$SMC_BPF" attach --cgroup "$cg2" || fail "smc_bpf attach of a second cgroup failed"
"$SMC_BPF" detach --cgroup "$cg2" || fail "smc_bpf detach --cgroup of the second cgroup failed"
"$SMC_BPF" status | tee "$RESULTS/status1.log"
grep -q "^cgroup $cg id=[0-9]* converted=0$" "$RESULTS/status1.log" ||
	fail "status does not show $cg with no socket converted"
grep -q "smc-policy-2" "$RESULTS/status1.log" && fail "the second cgroup was not removed"
bpftool prog show name smc_policy >>"$RESULTS/bpftool.log" 2>&1 || true

inside=$(sock_kinds "$cg")
outside=$(sock_kinds)
log "python3 TCP sockets (SO_DOMAIN/SO_PROTOCOL): inside $inside, outside $outside"
[ "$inside" = "2/256 10/256" ] || fail "in the cgroup: $inside, want 2/256 10/256"
[ "$outside" = "2/6 10/6" ] || fail "outside the cgroup: $outside, want 2/6 10/6"

smcr_snapshot before
barrier attached

if [ "$VM_INDEX" -eq 0 ]; then
	run_bg server "${INCG[@]}" "$cg" smc_load -s -f inet -p "$port" -n 2 -t 150
	server=$BG_PID
	wait_file_line "$RESULTS/server.log" listening 30
	barrier listening
	barrier holding 150
	"$SMCCTL" --json connections >"$RESULTS/connections.json" ||
		smcr_problem "smcctl --json connections failed"
	out=$(F="$RESULTS/connections.json" P="$port" $PY -c '
import json, os
conns = json.load(open(os.environ["F"]))["connections"]
port = int(os.environ["P"])
mine = [c for c in conns if c["local_port"] == port]
lis = [c for c in mine if c["state"] == "LISTEN"]
acc = [c for c in mine if c["state"] != "LISTEN"]
smcr = [c for c in acc if c["mode"] == "SMCR" and c["state"] == "ACTIVE" and not c["fallback_reason"]]
fb = [c for c in acc if c["fallback_reason"]]
print("%d listener(s), %d accepted: %d SMCR, %d fallback (%s)" % (len(lis), len(acc), len(smcr), len(fb),
      ", ".join("%s %s" % (c["peer"], c["fallback_reason_name"]) for c in fb)))
if len(lis) != 1:
    print("PROBLEM the listener on port %d is not an SMC socket (%d listed)" % (port, len(lis)))
if len(acc) != 2 or len(smcr) != 1 or len(fb) != 1:
    print("PROBLEM want 2 accepted sockets on port %d, one SMCR and one fallback" % port)
') || smcr_problem "cannot read smcctl connections"
	log "server connections: $(head -n 1 <<<"$out")"
	while read -r line; do
		[[ $line == PROBLEM* ]] && smcr_problem "${line#PROBLEM }"
	done <<<"$out"
	barrier checked
	wait_bg "$server" 60 || smcr_problem "smc_load server failed: $(tail -n 3 "$RESULTS/server.log" | paste -sd';')"
	cat "$RESULTS/server.log"
else
	rm -f "$rel_in" "$rel_out"
	barrier listening
	run_bg client-in "${INCG[@]}" "$cg" smc_load -c "$VM_IP_0" -f inet -p "$port" \
		-N 1 -B "$bytes" -m echo -W "$rel_in" -t 150
	pid_in=$BG_PID
	(wait_file_line "$RESULTS/client-in.log" '^smc_load: holding|^conns=|timed out' 180) || true
	run_bg client-out smc_load -c "$VM_IP_0" -f inet -p "$port" \
		-N 1 -B "$bytes" -m echo -W "$rel_out" -t 150
	pid_out=$BG_PID
	(wait_file_line "$RESULTS/client-out.log" '^smc_load: holding|^conns=|timed out' 180) || true
	for side in in out; do
		grep -q '^smc_load: holding' "$RESULTS/client-$side.log" ||
			smcr_problem "client $side did not get to holding: $(tail -n 3 "$RESULTS/client-$side.log" | paste -sd';')"
	done
	barrier holding 150
	"$SMCCTL" --json connections >"$RESULTS/connections.json" ||
		smcr_problem "smcctl --json connections failed"
	ss -Htnp "dport = :$port" >"$RESULTS/ss.log" 2>&1 || true
	out=$(F="$RESULTS/connections.json" P="$port" IN="$(socket_inodes "$pid_in")" \
		OUT="$(socket_inodes "$pid_out")" $PY -c '
import json, os
conns = json.load(open(os.environ["F"]))["connections"]
port = int(os.environ["P"])
ino_in = {int(i) for i in os.environ["IN"].split()}
ino_out = {int(i) for i in os.environ["OUT"].split()}
mine = [c for c in conns if c["peer_port"] == port]
smcr = [c for c in mine if c["mode"] == "SMCR" and c["state"] == "ACTIVE" and not c["fallback_reason"]]
print("%d SMC sockets to port %d, %d ACTIVE SMCR; inside client inodes %s, outside %s" % (
      len(mine), port, len(smcr), sorted(ino_in), sorted(ino_out)))
if len(mine) != 1 or len(smcr) != 1:
    print("PROBLEM want exactly one ACTIVE SMCR socket to port %d" % port)
if not any(c["inode"] in ino_in for c in smcr):
    print("PROBLEM the inside client owns no SMCR socket")
if any(c["inode"] in ino_out for c in conns):
    print("PROBLEM the outside client owns an SMC socket")
') || smcr_problem "cannot read smcctl connections"
	log "client connections: $(head -n 1 <<<"$out")"
	while read -r line; do
		[[ $line == PROBLEM* ]] && smcr_problem "${line#PROBLEM }"
	done <<<"$out"
	log "ss: $(paste -sd';' "$RESULTS/ss.log")"
	grep -q "pid=$pid_out," "$RESULTS/ss.log" ||
		smcr_problem "the outside client has no TCP socket to port $port in ss"
	grep -q "pid=$pid_in," "$RESULTS/ss.log" &&
		smcr_problem "the inside client has a TCP socket of its own to port $port"
	barrier checked
	: >"$rel_in"
	: >"$rel_out"
	for side in in out; do
		pid=$pid_in
		[ "$side" = out ] && pid=$pid_out
		wait_bg "$pid" 60 || smcr_problem "client $side failed: $(tail -n 3 "$RESULTS/client-$side.log" | paste -sd';')"
		grep -qx "conns=1 bytes=$bytes ok" "$RESULTS/client-$side.log" ||
			smcr_problem "client $side summary is not 'conns=1 bytes=$bytes ok'"
	done
fi
barrier done 120
smcr_snapshot after

# exactly the expected handshakes and fallbacks
want_client=0 want_server=1 want_fb_server=1 want_converted=3
[ "$VM_INDEX" -eq 0 ] || { want_client=1; want_server=0; want_fb_server=0; }
out=$(B="$RESULTS/before" A="$RESULTS/after" C=$want_client S=$want_server FS=$want_fb_server $PY -c '
import json, os
rd = lambda n: json.load(open(n))
b, a = rd(os.environ["B"] + ".stats.json"), rd(os.environ["A"] + ".stats.json")
d = lambda k, s: a[k][s] - b[k][s]
got = (d("smcr_connections", "client"), d("smcr_connections", "server"), d("fallbacks", "client"), d("fallbacks", "server"))
want = (int(os.environ["C"]), int(os.environ["S"]), 0, int(os.environ["FS"]))
print("smcr_connections +client %d +server %d, fallbacks +client %d +server %d" % got)
if got != want:
    print("PROBLEM want smcr_connections +client %d +server %d, fallbacks +client %d +server %d" % want)
') || smcr_problem "cannot compare smcctl snapshots"
log "stats: $(head -n 1 <<<"$out")"
while read -r line; do
	[[ $line == PROBLEM* ]] && smcr_problem "${line#PROBLEM }"
done <<<"$out"

# python3's two sockets + the server's listener or the inside client's socket
"$SMC_BPF" status | tee "$RESULTS/status2.log"
grep -q "^cgroup $cg id=[0-9]* converted=$want_converted$" "$RESULTS/status2.log" ||
	smcr_problem "smc_bpf status: $(grep '^cgroup' "$RESULTS/status2.log"), want converted=$want_converted"

# detach: everything gone, TCP again
"$SMC_BPF" detach || smcr_problem "smc_bpf detach failed"
"$SMC_BPF" status >"$RESULTS/status3.log" 2>&1 &&
	smcr_problem "status after detach: $(cat "$RESULTS/status3.log")"
[ -e /sys/fs/bpf/smc_bpf ] && smcr_problem "/sys/fs/bpf/smc_bpf still there after detach"
left=$(bpf_prog_gone smc_policy) ||
	smcr_problem "program still loaded after detach: $left"
inside=$(sock_kinds "$cg")
log "after detach, python3 in the cgroup: $inside"
[ "$inside" = "2/6 10/6" ] || smcr_problem "after detach, in the cgroup: $inside, want 2/6 10/6"
barrier detached
smcr_verdict bpf-policy
