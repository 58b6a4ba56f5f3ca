#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debug only (not in the manifest): what each workload puts on the wire,
# per operation.  For each smc_bench workload in SMCR_WIRE_RUNS (";"
# separated argument lists, default: crr, rr-64, a 32 MiB stream), after
# a warm-up that creates the link group, the client VM logs per
# operation (connection, round trip or MB): RoCE packets sent and
# received by both VMs, RDMA SENDs (CDC and LLC messages) and RDMA WRITE
# WITH IMMEDIATEs of both.  SMCR_WIRE_SYSCTL="k=v ..." is set on both VMs
# first (e.g. net.smc.smcr_write_imm=0 for the standard path).
# SMCR_WIRE_PROFILE=1 also counts the calls of the module's functions
# during each run, by caller (the function tracer): profile-VM-RUN.txt in
# the shared results, the most frequent first.
#   tests/vm/vmtest --vms 2 --impl ours scenarios/dbg-wire.sh
set -uo pipefail
. "$REPO/tests/vm/lib/guest.sh"

for kv in ${SMCR_WIRE_SYSCTL:-}; do sysctl -qw "$kv" || fail "sysctl $kv"; done
SMCCTL=$(smcctl_path) || fail "cannot find or build smcctl"
dev=rxe0
siw_only && dev=siw0

# counts FILE: "sent rcvd sends wimms" of this VM into FILE
counts() {
	local st wimm

	st=$(rdma statistic show link "$dev/1")
	wimm=$("$SMCCTL" --json links | smcj wimm | cut -d' ' -f1)
	echo "$(grep -o 'sent_pkts [0-9]*' <<<"$st" | cut -d' ' -f2)" \
	     "$(grep -o 'rcvd_pkts [0-9]*' <<<"$st" | cut -d' ' -f2)" \
	     "$(grep -o 'rdma_sends [0-9]*' <<<"$st" | cut -d' ' -f2)" \
	     "${wimm:-0}" >"$1"
}

T=/sys/kernel/tracing
# profile on|off|save RUN: count the module's function calls around a
# run (the function tracer; Debian's kernel has no function profiler)
profile() {
	[ -n "${SMCR_WIRE_PROFILE:-}" ] || return 0
	case $1 in
	on)
		mount -t tracefs nodev $T 2>/dev/null || true
		echo 0 >$T/tracing_on
		echo 16384 >$T/buffer_size_kb
		echo ':mod:smc' >$T/set_ftrace_filter || fail "no ftrace filter"
		echo function >$T/current_tracer
		echo >$T/trace
		echo 1 >$T/tracing_on ;;
	off) echo 0 >$T/tracing_on ;;
	save)
		grep -v '^#' $T/trace | awk '{ n[$(NF - 1) " " $NF]++ }
			END { for (f in n) printf "%8d %s\n", n[f], f }' |
			sort -rn >"$SHARED/profile-$VM_INDEX-$2.txt"
		echo nop >$T/current_tracer ;;
	esac
}

IFS=';' read -r -a runs <<<"${SMCR_WIRE_RUNS:--w crr -n 100 -m 64 ops=100;-w rr -m 64 -n 1000 ops=1000;-w stream -B 33554432 -m 65536 ops=32}"
case "$VM_INDEX" in
0)
	run_bg srv smc_bench -s -f smc -p 5600
	wait_file_line "$RESULTS/srv.log" listening 30
	barrier listening
	for i in "${!runs[@]}"; do
		barrier "before-$i" 120
		counts "$SHARED/b0.$i"
		profile on
		barrier "counted-$i" 120
		barrier "after-$i" 600
		profile off
		counts "$SHARED/a0.$i"
		profile save "$i"
		barrier "counted2-$i" 120
	done
	;;
1)
	barrier listening
	smc_bench -c "$VM_IP_0" -p 5600 -f smc -w crr -n 2 >/dev/null || fail "warm-up"
	for i in "${!runs[@]}"; do
		r=${runs[$i]}
		ops=${r##*ops=}
		r=${r% ops=*}
		barrier "before-$i" 120
		counts "$RESULTS/b1"
		profile on
		barrier "counted-$i" 120
		# shellcheck disable=SC2086
		smc_bench -c "$VM_IP_0" -p 5600 -f smc $r >"$RESULTS/run-$i.json" ||
			fail "smc_bench $r"
		# rr: its warm-up rounds were on the wire too
		w=$(grep -o '"warmup":[0-9]*' "$RESULTS/run-$i.json" | cut -d: -f2)
		[ -z "$w" ] ||
			ops=$(($(grep -o '"rounds":[0-9]*' "$RESULTS/run-$i.json" |
				cut -d: -f2) + w))
		profile off
		counts "$RESULTS/a1"
		profile save "$i"
		barrier "after-$i" 600
		barrier "counted2-$i" 120
		read -r bs0 br0 bd0 bw0 <"$SHARED/b0.$i"
		read -r as0 ar0 ad0 aw0 <"$SHARED/a0.$i"
		read -r bs1 br1 bd1 bw1 <"$RESULTS/b1"
		read -r as1 ar1 ad1 aw1 <"$RESULTS/a1"
		log "$(awk -v o="$ops" -v r="$r" \
			-v p0=$((as0 - bs0)) -v p1=$((as1 - bs1)) \
			-v d0=$((ad0 - bd0)) -v d1=$((ad1 - bd1)) \
			-v w0=$((aw0 - bw0)) -v w1=$((aw1 - bw1)) 'BEGIN {
			printf "%s: per op (%d ops): packets sent srv %.2f cli %.2f (sum %.2f), SENDs srv %.2f cli %.2f, WIMMs srv %.2f cli %.2f",
			       r, o, p0 / o, p1 / o, (p0 + p1) / o, d0 / o, d1 / o, w0 / o, w1 / o }')"
		: "$br0 $ar0 $br1 $ar1"
	done
	;;
esac
log "dbg-wire done"
