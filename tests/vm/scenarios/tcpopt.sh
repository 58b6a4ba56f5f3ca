#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TCP's SMC option by eBPF (tools/smc_tcpopt, net/smc/tcp_opt.c) between
# two VMs running our module.  On Debian's 7.3 (vmtest --kernel 7.3),
# whose TCP has no SMC option, that is the only way to SMC-R; on a kernel
# whose TCP has it (CONFIG_SMC, the host's 6.12) the module is loaded
# again with tcp_option_bpf=1, so that the same path is tested there.
# Each VM captures its SYNs and SYN-ACKs on eth0 (lib/tcpopt_sniff.py).
#
#   before attach  smc_tcpopt status says it is needed (exit 1);
#   smcr           after attach: 4 verified SMC-R connections (port 5100,
#                  smcr_load_test: all SMC-R v2, no fallback, RDMA
#                  counters), SYN and SYN-ACK with the option;
#   plain TCP      AF_INET both ends (5301): no option either way, and
#                  the program's counters do not move;
#   SMC to TCP     AF_SMC client, AF_INET server (5302): the SYN has the
#                  option, the SYN-ACK not; the client falls back with
#                  PEERNOSMC;
#   TCP to SMC     AF_INET client, AF_SMC server (5303): no option either
#                  way; the server falls back with PEERNOSMC;
#   counters       the program's counters agree with the wire;
#   unload         smc_tcpopt detach, the program gone, rmmod smc.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "tcpopt needs exactly two VMs"
[ "$SMC_IMPL" = ours ] || fail "tcpopt needs our module on both VMs"
TCPOPT=$(smc_tcpopt_path) ||
	fail "cannot find or build smc_tcpopt: $(tail -n 5 "$RESULTS/smc_tcpopt-build.log" 2>/dev/null)"
PARAM=/sys/module/smc/parameters/tcp_option_bpf

if tcp_has_smc_option; then
	rmmod smc || fail "rmmod smc before loading it with tcp_option_bpf=1"
	insmod "$SMC_KO" ueid="$SMC_UEID" tcp_option_bpf=1 ||
		fail "insmod $SMC_KO tcp_option_bpf=1"
	log "TCP has the SMC option (CONFIG_SMC): smc loaded again with tcp_option_bpf=1"
else
	log "TCP has no SMC option of its own: the eBPF path is the only one"
	# the harness attached it (guest-main.sh); this scenario attaches it
	"$TCPOPT" detach || fail "smc_tcpopt detach of the harness's attach failed"
fi
[ "$(cat "$PARAM")" = Y ] || fail "$PARAM is $(cat "$PARAM"), want Y"

"$TCPOPT" status >"$RESULTS/status-before.log" 2>&1 && rc=0 || rc=$?
cat "$RESULTS/status-before.log"
[ "$rc" -eq 1 ] || fail "smc_tcpopt status before attach: exit $rc, want 1 (needed, not attached)"
"$TCPOPT" attach || fail "smc_tcpopt attach failed"
out=$("$TCPOPT" attach) || fail "a second smc_tcpopt attach failed"
[[ $out == *"already attached"* ]] || fail "a second attach is not a no-op: $out"
run_bg sniff "$SMCR_PY" "$REPO/tests/vm/lib/tcpopt_sniff.py" eth0
sniff=$BG_PID
wait_file_line "$RESULTS/sniff.log" sniffing 30
barrier attached

# --- SMC-R through the eBPF option ----------------------------------------
smcr_load_test tcpopt-smcr echo 4 1048576 120
"$TCPOPT" status >"$RESULTS/status-smcr.log" || fail "smc_tcpopt status: exit $?"
cat "$RESULTS/status-smcr.log"

# tcpopt_stat NAME FILE: a counter of a smc_tcpopt status output
tcpopt_stat() {
	awk -v n="$1" 'index($0, "  " n " ") == 1 { print $NF; f = 1 }
		END { if (!f) print "missing" }' "$2"
}

# echo_pair PORT SERVER_FAMILY CLIENT_FAMILY: two verified 64 KiB echoes
echo_pair() {
	local port=$1 pid

	if [ "$VM_INDEX" -eq 0 ]; then
		run_bg "echo-$port" smc_echo -s -f "$2" -p "$port" -n 2 -t 120
		pid=$BG_PID
		wait_file_line "$RESULTS/echo-$port.log" listening 30
		barrier "listening-$port"
		wait_bg "$pid" 150 ||
			fail "echo server on $port ($2) failed: $(tail -n 3 "$RESULTS/echo-$port.log")"
	else
		barrier "listening-$port"
		smc_echo -c "$VM_IP_0" -f "$3" -p "$port" -B 65536 -N 2 -t 120 ||
			fail "echo client to $port ($3 to $2) failed"
	fi
	barrier "done-$port"
}

# --- plain TCP: nothing changes ---------------------------------------------
echo_pair 5301 inet inet
"$TCPOPT" status >"$RESULTS/status-tcp.log"
for s in "SYNs sent with the option" "SYN-ACKs sent with the option" \
	 "SYNs with the option offered SMC" "SYN-ACKs received with the option"; do
	[ "$(tcpopt_stat "$s" "$RESULTS/status-smcr.log")" = "$(tcpopt_stat "$s" "$RESULTS/status-tcp.log")" ] ||
		smcr_problem "plain TCP moved the counter '$s'"
done

# --- one end without SMC: fallback, as without the program ----------------
smcr_snapshot fb-before
echo_pair 5302 inet smc
echo_pair 5303 smc inet
smcr_snapshot fb-after
smcr_delta fb-before fb-after
log "fallbacks: +client $D_fb_client ($D_why_client), +server $D_fb_server ($D_why_server)"
if [ "$VM_INDEX" -eq 1 ]; then
	if [ "$D_fb_client" -ne 2 ] || [ "$D_why_client" != PEERNOSMC:2 ]; then
		smcr_problem "SMC client to a TCP server: fallbacks $D_fb_client ($D_why_client), want 2 (PEERNOSMC:2)"
	fi
elif [ "$D_fb_server" -ne 2 ] || [ "$D_why_server" != PEERNOSMC:2 ]; then
	smcr_problem "TCP client to an SMC server: fallbacks $D_fb_server ($D_why_server), want 2 (PEERNOSMC:2)"
fi
if [ "$D_smcr_client" -ne 0 ] || [ "$D_smcr_server" -ne 0 ]; then
	smcr_problem "SMC-R connections with a plain TCP end"
fi

# --- the wire -----------------------------------------------------------------
"$TCPOPT" status >"$RESULTS/status-end.log"
cat "$RESULTS/status-end.log"
nap 1
kill "$sniff" 2>/dev/null || true
wait "$sniff" 2>/dev/null || true
log "SYNs and SYN-ACKs seen: $(grep -c ' smc=' "$RESULTS/sniff.log" || true)"

# segs PORT KIND SMC [DIR]: segments of KIND (SYN: to PORT; SYN-ACK: from
# PORT) with smc=SMC, going DIR (out, in; both when not given)
segs() {
	awk -v port="$1" -v kind="$2" -v smc="smc=$3" -v dir="${4:-}" '
		$5 == kind && $6 == smc && (dir == "" || $1 == dir) {
			split(kind == "SYN" ? $4 : $2, a, ":")
			if (a[2] == port)
				n++
		}
		END { print n + 0 }' "$RESULTS/sniff.log"
}

# expect PORT KIND SMC MIN: at least MIN such segments, none the other way
expect() {
	local yes no other=$((1 - $3))

	yes=$(segs "$1" "$2" "$3")
	no=$(segs "$1" "$2" "$other")
	log "port $1: $yes ${2}s with smc=$3, $no with smc=$other"
	[ "$yes" -ge "$4" ] || smcr_problem "port $1: $yes ${2}s with smc=$3, want >= $4"
	[ "$no" -eq 0 ] || smcr_problem "port $1: $no ${2}s with smc=$other, want none"
}

expect 5100 SYN 1 4
expect 5100 SYN-ACK 1 4
expect 5301 SYN 0 2
expect 5301 SYN-ACK 0 2
expect 5302 SYN 1 2
expect 5302 SYN-ACK 0 2
expect 5303 SYN 0 2
expect 5303 SYN-ACK 0 2

# The program counts what it wrote: as many as this VM sent.
if [ "$VM_INDEX" -eq 1 ]; then
	want=$(($(segs 5100 SYN 1 out) + $(segs 5302 SYN 1 out)))
	got=$(tcpopt_stat "SYNs sent with the option" "$RESULTS/status-end.log")
	[ "$got" = "$want" ] || smcr_problem "SYNs sent with the option: counter $got, wire $want"
	got=$(tcpopt_stat "SYN-ACKs received with the option" "$RESULTS/status-end.log")
	[ "$got" = 4 ] || smcr_problem "SYN-ACKs received with the option: $got, want 4"
else
	want=$(segs 5100 SYN-ACK 1 out)
	got=$(tcpopt_stat "SYN-ACKs sent with the option" "$RESULTS/status-end.log")
	[ "$got" = "$want" ] || smcr_problem "SYN-ACKs sent with the option: counter $got, wire $want"
	got=$(tcpopt_stat "SYNs with the option offered SMC" "$RESULTS/status-end.log")
	[ "$got" = 4 ] || smcr_problem "SYNs with the option offered SMC: $got, want 4"
fi
smcr_verdict "tcpopt wire"
barrier checked

# --- unload: detach first, then smc goes ------------------------------------
"$TCPOPT" detach || fail "smc_tcpopt detach failed"
bpf_prog_gone smc_tcpopt
"$TCPOPT" status >"$RESULTS/status-detached.log" 2>&1 && rc=0 || rc=$?
[ "$rc" -eq 1 ] || fail "smc_tcpopt status after detach: exit $rc, want 1"
for _ in $(seq 120); do
	rmmod smc 2>"$RESULTS/rmmod.err" && break
	nap 0.5
done
! grep -q '^smc ' /proc/modules || fail "rmmod smc: $(cat "$RESULTS/rmmod.err")"
barrier unloaded
log "tcpopt ok"
