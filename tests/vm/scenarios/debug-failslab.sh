#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures inside our module, on the debug kernel only
# (tests/debug/check, failslab): both VMs fail a share of the slab
# allocations made from smc.ko's code (failslab's stack-trace filter set to
# the module's text) while VM 1 opens AF_SMC echo connections to VM 0.
# Those may fail or fall back to TCP; nothing may crash, warn, leak (the
# harness's kmemleak scan) or hang.  With the faults off again, an SMC-R
# echo must work, and every VM must unload the module.  A vmalloc whose
# inner slab allocation failslab failed reports the failure with a stack
# dump (warn_alloc, e.g. rxe's queue buffers); those are what this test
# asks for, so vmtest lets them pass:
# vmtest-allow: alloc-failure
#   SMCR_FAILSLAB_PCT (default 5), SMCR_FAILSLAB_ROUNDS (default 12)

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

pct=${SMCR_FAILSLAB_PCT:-5}
rounds=${SMCR_FAILSLAB_ROUNDS:-12}
fs=/sys/kernel/debug/failslab
[ "$SMC_IMPL" = ours ] || fail "needs our module"
[ "$VM_COUNT" -eq 2 ] || fail "needs two VMs"
debugfs_up
[ -d $fs ] || fail "no $fs: run on the debug kernel (make check-debug)"
[ -e $fs/require-start ] || fail "no failslab stack-trace filter in this kernel"

# The module's text: lowest and highest address of its code symbols.
# (no process substitution: the guests have no /dev/fd)
text=$(awk '$NF == "[smc]" && $2 ~ /^[tT]$/ { print $1 }' /proc/kallsyms |
	sort | sed -n '1p;$p' | tr '\n' ' ')
read -r lo hi <<<"$text"
[ -n "${lo:-}" ] && [ -n "${hi:-}" ] && [ "$lo" != 0000000000000000 ] ||
	fail "no [smc] code addresses in /proc/kallsyms"
log "smc.ko text 0x$lo..0x$hi"

faults() { # PCT: fail PCT % of the module's slab allocations (0: none)
	# the filter first: until it is set, any allocation may fail
	if [ "$1" -eq 0 ]; then
		echo 0 >$fs/probability
		return 0
	fi
	echo 1 >$fs/interval
	echo -1 >$fs/times
	echo 0 >$fs/space
	echo 1 >$fs/verbose
	echo N >$fs/ignore-gfp-wait
	echo N >$fs/task-filter
	echo 32 >$fs/stacktrace-depth
	echo "0x$lo" >$fs/require-start
	printf '0x%x\n' $((0x$hi + 0x1000)) >$fs/require-end
	echo "$1" >$fs/probability
}
injected() { kmsg_count 'FAULT_INJECTION: forcing a failure'; }

rx0=$(rdma_counter rcvd_pkts)
faults "$pct"
barrier faults-on
case "$VM_INDEX" in
0)
	# The server may itself see accept() fail: restart it until VM 1
	# is done (each run bounded).
	: >"$SHARED/.server-run"
	(
		while [ -e "$SHARED/.server-run" ]; do
			timeout 120 smc_echo -s -f smc -p 5300 -n 1000 -t 110 || sleep 0.5
		done
	) >"$RESULTS/server-faults.log" 2>&1 &
	srv=$!
	barrier faults-done $((rounds * 40 + 60))
	rm -f "$SHARED/.server-run"
	kill "$srv" 2>/dev/null || true
	pkill -x smc_echo 2>/dev/null || true
	wait "$srv" 2>/dev/null || true
	;;
1)
	ok=0
	bad=0
	sleep 2
	for ((r = 0; r < rounds; r++)); do
		if timeout 40 smc_echo -c "$VM_IP_0" -f smc -p 5300 -B 262144 -N 2 -t 35 \
			>>"$RESULTS/client-faults.log" 2>&1; then
			ok=$((ok + 1))
		else
			bad=$((bad + 1))
		fi
	done
	log "with faults: $ok rounds ok, $bad failed"
	barrier faults-done 60
	;;
esac
faults 0
n=$(injected)
log "failslab: $n forced failures logged (rate-limited)"
barrier faults-off
echo "$n" >"$SHARED/injected.vm$VM_INDEX"
barrier counted

# Faults off: SMC-R must work again, over RDMA.
case "$VM_INDEX" in
0)
	run_bg smc_echo-after smc_echo -s -f smc -p 5301 -n 1 -t 120
	wait_file_line "$RESULTS/smc_echo-after.log" listening 30
	barrier after-listening
	wait_bg "$BG_PID" 130 || fail "server after the faults failed"
	;;
1)
	barrier after-listening
	rx1=$(rdma_counter rcvd_pkts)
	smc_echo -c "$VM_IP_0" -f smc -p 5301 -B 4194304 -t 120 ||
		fail "SMC-R echo after the faults failed"
	rx2=$(rdma_counter rcvd_pkts)
	[ $((rx2 - rx1)) -ge 4096 ] ||
		fail "rcvd_pkts grew by $((rx2 - rx1)) < 4096 after the faults: no RDMA (fallback?)"
	;;
esac
barrier after-done
total=$(($(cat "$SHARED/injected.vm0") + $(cat "$SHARED/injected.vm1")))
[ "$total" -gt 0 ] || fail "failslab never fired: the filter matched nothing"

# Every connection is gone: the module must unload (no reference leaked).
for _ in $(seq 1 120); do
	smc_rmmod 2>"$RESULTS/rmmod.err" && break
	sleep 1
done
lsmod | grep -q '^smc ' && fail "smc_rmmod still refused after 120 s: $(cat "$RESULTS/rmmod.err")"
log "debug-failslab ok (rxe0 rcvd_pkts $rx0 -> $(rdma_counter rcvd_pkts))"
