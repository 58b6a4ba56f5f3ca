#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debug only (not in the manifest): where a short connection's time goes.
# smc_bench crr over the loaded module with ftrace's function tracer on
# the smc module's functions (plus a few TCP and sched events) on both
# VMs; trace.txt in each VM's results.  SMCR_CRR_N connections (10);
# SMCR_CRR_ARGS other smc_bench arguments (e.g. "-w stream -B 4000000"),
# SMCR_CRR_FAM=tcp for TCP, SMCR_CRR_NOTRACE=1 without the tracer,
# SMCR_CRR_SYSCTL="net.smc.rmem=131072 ..." set on both VMs first.
#   tests/vm/vmtest --vms 2 --impl ours scenarios/dbg-crr.sh
set -uo pipefail
. "$REPO/tests/vm/lib/guest.sh"

T=/sys/kernel/tracing
n=${SMCR_CRR_N:-10}
fam=${SMCR_CRR_FAM:-smc}
for kv in ${SMCR_CRR_SYSCTL:-}; do sysctl -qw "$kv" || fail "sysctl $kv"; done
mount -t tracefs nodev $T 2>/dev/null || true
echo 0 >$T/tracing_on
echo 8192 >$T/buffer_size_kb
if [ -z "${SMCR_CRR_NOTRACE:-}" ]; then
	echo ':mod:smc' >$T/set_ftrace_filter 2>/dev/null || log "no smc filter"
	echo tcp_v4_connect >>$T/set_ftrace_filter
	echo inet_csk_accept >>$T/set_ftrace_filter
	echo function >$T/current_tracer
fi
case "$VM_INDEX" in
0)
	run_bg srv smc_bench -s -f "$fam" -p 5600
	wait_file_line "$RESULTS/srv.log" listening 30
	barrier listening
	# a warm-up connection creates the link group
	barrier warm
	echo 1 >$T/tracing_on
	barrier tracing
	barrier traced 120
	echo 0 >$T/tracing_on
	;;
1)
	barrier listening
	smc_bench -c "$VM_IP_0" -p 5600 -f "$fam" -w crr -n 2 || fail "warm"
	barrier warm
	echo 1 >$T/tracing_on
	# the server traces too before the first connection
	barrier tracing
	# shellcheck disable=SC2086 # the arguments are a list
	smc_bench -c "$VM_IP_0" -p 5600 -f "$fam" ${SMCR_CRR_ARGS:--w crr -n $n} | tee "$RESULTS/crr.json"
	echo 0 >$T/tracing_on
	barrier traced 120
	;;
esac
rdma statistic show link rxe0/1 >"$RESULTS/rdma-stats.txt" 2>&1
cat $T/trace >"$RESULTS/trace.txt"
log "trace lines: $(wc -l <"$RESULTS/trace.txt")"
