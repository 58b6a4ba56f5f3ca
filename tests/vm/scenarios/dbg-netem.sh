#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debug only (not in the manifest): concurrent first contacts under netem
# loss, with rxe's dynamic debug messages and our tracepoints on both VMs,
# until a round's echo fails (the long form of faults.sh saw connections
# stall there).  Every round runs, failed or not.  SMCR_NETEM_ROUNDS rounds (3) of SMCR_NETEM_CONNS (4)
# connections of 1 MiB each, SMCR_NETEM_LOSS percent loss (5), of which
# SMCR_NETEM_REORDER percent (25; 0: none) sent at once, ahead of the
# others (netem's reorder, 50% correlated).  Results:
# each VM's dmesg.txt, trace.txt and rxe0's counters (rdma-stats.txt).
# SMCR_NETEM_DYNDBG=0: without rxe's messages (all of them overrun dmesg
# unless the kernel has log_buf_len=128M: SMC_VM_APPEND); =errors: only
# those of rxe's responder and memory regions, which it prints for errors,
# and a stack trace in trace.txt whenever rxe puts a QP in error.
# SMCR_NETEM_FRESH=1: the module reloaded on both VMs before every round,
# so that every round makes its first contact under the loss.
#   tests/vm/vmtest --vms 2 --impl ours scenarios/dbg-netem.sh
set -uo pipefail
. "$REPO/tests/vm/lib/guest.sh"

T=/sys/kernel/tracing
rounds=${SMCR_NETEM_ROUNDS:-3}
conns=${SMCR_NETEM_CONNS:-4}
loss=${SMCR_NETEM_LOSS:-5}
reorder=${SMCR_NETEM_REORDER:-25}
mount -t tracefs nodev $T 2>/dev/null || true
debugfs_up
echo 8192 >$T/buffer_size_kb
echo 1 >$T/events/smc/enable 2>/dev/null || log "no smc trace events"
case ${SMCR_NETEM_DYNDBG:-1} in
1)
	echo 'module rdma_rxe +p' >/sys/kernel/debug/dynamic_debug/control ||
		log "no dynamic debug for rdma_rxe"
	;;
errors)
	for q in 'file rxe_mr.c +p' 'file rxe_resp.c line 1-1500 +p'; do
		echo "$q" >/sys/kernel/debug/dynamic_debug/control ||
			log "no dynamic debug: $q"
	done
	echo 'p:rxe_qp_err rxe_qp_error' >>$T/kprobe_events &&
		echo stacktrace >$T/events/kprobes/rxe_qp_err/trigger &&
		echo 1 >$T/events/kprobes/rxe_qp_err/enable ||
		log "no kprobe on rxe_qp_error"
	;;
esac
modprobe sch_netem || fail "no sch_netem"
reo=()
[ "$reorder" = 0 ] || reo=(reorder "$reorder%" 50%)
tc qdisc add dev eth0 root netem delay 1ms "${reo[@]}" loss "$loss%" ||
	fail "tc netem failed"
echo 1 >$T/tracing_on
failed=0
for ((r = 1; r <= rounds; r++)); do
	port=$((5700 + r))
	if [ "${SMCR_NETEM_FRESH:-0}" = 1 ] && [ "$r" -gt 1 ]; then
		smc_unload 20 || fail "smc does not unload"
		smc_reload || fail "reloading smc failed"
		echo 1 >$T/events/smc/enable 2>/dev/null || true
		barrier "reloaded$r" 60
	fi
	if [ "$VM_INDEX" -eq 0 ]; then
		run_bg "srv$r" smc_load -s -f smc -p "$port" -n "$conns" -t 90
		wait_file_line "$RESULTS/srv$r.log" 'listening|smc_load:' 30
		barrier "listening$r"
		wait_bg "$BG_PID" 100 || true
	else
		barrier "listening$r"
		run_bg "cli$r" smc_load -c "$VM_IP_0" -p "$port" -N "$conns" \
			-B 1M -m echo -t 80
		wait_bg "$BG_PID" 90 || true
	fi
	barrier "done$r" 120
	# the round's SMC-R connections and fallbacks (gone with a reload)
	"$(smcctl_path)" stats >"$RESULTS/stats$r.txt" 2>&1 || true
	if grep -q FAILED "$RESULTS"/*"$r".log; then
		log "round $r failed"
		failed=1
	fi
	sleep 5
done
echo 0 >$T/tracing_on
tc qdisc del dev eth0 root || true
"$(smcctl_path)" linkgroups >"$RESULTS/linkgroups.txt" 2>&1 || true
dmesg >"$RESULTS/dmesg.txt"
rdma statistic show link rxe0/1 >"$RESULTS/rdma-stats.txt" 2>&1
cat $T/trace >"$RESULTS/trace.txt"
log "rounds: $r, failed: $failed; trace lines: $(wc -l <"$RESULTS/trace.txt")"
