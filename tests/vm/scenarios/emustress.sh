#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Emulator stress (two VMs, no SMC module needed): for SMCR_EMUSTRESS_SECS
# (default 180) VM 1 streams RDMA WRITEs to VM 0 over rxe0 (perftest
# ib_write_bw) and TCP over eth0 (iperf3, 4 streams) at once, while both
# VMs create and close sockets in a loop.  That is the mix under which
# QEMU's TCG has been seen to die (double fault, impossible EFLAGS in
# SLUB's allocation fast path, tests/vm/README.md): the run ends early
# with vmtest's exit 75 when it does.  tests/vm/emurate runs this
# scenario repeatedly to compare fault rates between QEMU versions and
# CPU models.  It passes when the traffic ran its time.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "emustress needs two VMs"
SECS=${SMCR_EMUSTRESS_SECS:-180}
gidx=$(rxe_gid_index) || fail "no RoCE v2 IPv4 GID on rxe0"

# socket churn: a few slab objects allocated and freed per socket
churn() {
	$SMCR_PY -c '
import socket, sys, time
end = time.time() + float(sys.argv[1])
n = 0
while time.time() < end:
    for _ in range(200):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.close()
        n += 1
print("sockets", n)' "$1"
}

if [ "$VM_INDEX" -eq 0 ]; then
	run_bg iperf3-srv iperf3 -s -1 -p 5201
	iperf=$BG_PID
	run_bg ibw-srv ib_write_bw -d rxe0 -x "$gidx" -p 18515 -s 65536 -D "$SECS"
	ibw=$BG_PID
	barrier stress-listening
else
	barrier stress-listening
	sleep 1
	run_bg ibw-cli ib_write_bw -d rxe0 -x "$gidx" -p 18515 -s 65536 -D "$SECS" "$VM_IP_0"
	ibw=$BG_PID
	run_bg iperf3-cli iperf3 -c "$VM_IP_0" -p 5201 -P 4 -t "$SECS"
	iperf=$BG_PID
fi
run_bg churn churn "$SECS"
churn_pid=$BG_PID
wait_bg "$ibw" $((SECS + 60)) || fail "ib_write_bw failed: $(tail -n 3 "$RESULTS/ibw-"*.log)"
wait_bg "$iperf" $((SECS + 60)) || fail "iperf3 failed: $(tail -n 3 "$RESULTS/iperf3-"*.log)"
wait_bg "$churn_pid" $((SECS + 60)) || fail "socket churn failed"
log "emustress: $(cat "$RESULTS/churn.log"), rxe0 sent $(rdma_counter sent_pkts) received $(rdma_counter rcvd_pkts) packets"
barrier stress-done $((SECS + 120))
log "emustress ok"
