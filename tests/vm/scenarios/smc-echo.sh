#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# AF_SMC echo between VM 0 (server) and VM 1 (client), for whatever SMC
# implementation the VMs run (manifest: dist,dist proves the testbed with
# the distribution's smc.ko).  Checks the echoed data and that rxe0's packet
# counters grew by at least payload/1024 packets in each direction, i.e.
# that the data crossed RDMA rather than falling back to TCP.
#   ECHO_BYTES (default 4M), ECHO_CONNS (default 2)

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

bytes=${ECHO_BYTES:-4194304}
conns=${ECHO_CONNS:-2}
port=5000
[ "$VM_COUNT" -ge 2 ] || fail "needs two VMs"

rx0=$(rdma_counter rcvd_pkts)
tx0=$(rdma_counter sent_pkts)
case "$VM_INDEX" in
0)
	run_bg smc_echo-server smc_echo -s -f smc -p "$port" -n "$conns" -t 240
	server=$BG_PID
	wait_file_line "$RESULTS/smc_echo-server.log" listening 30
	barrier listening
	wait_bg "$server" 250 || { cat "$RESULTS/smc_echo-server.log"; fail "server failed"; }
	cat "$RESULTS/smc_echo-server.log"
	;;
1)
	barrier listening
	smc_echo -c "$VM_IP_0" -f smc -p "$port" -B "$bytes" -N "$conns" -t 240 ||
		fail "smc_echo client failed"
	;;
*)
	barrier listening
	;;
esac
barrier echo-done
rx1=$(rdma_counter rcvd_pkts)
tx1=$(rdma_counter sent_pkts)
log "rxe0 rcvd_pkts $rx0 -> $rx1 (+$((rx1 - rx0))), sent_pkts $tx0 -> $tx1 (+$((tx1 - tx0)))"
if [ "$VM_INDEX" -le 1 ]; then
	min=$((bytes * conns / 1024))
	[ $((rx1 - rx0)) -ge "$min" ] || fail "rcvd_pkts grew by $((rx1 - rx0)) < $min: no RDMA data path (fallback to TCP?)"
	[ $((tx1 - tx0)) -ge "$min" ] || fail "sent_pkts grew by $((tx1 - tx0)) < $min: no RDMA data path (fallback to TCP?)"
fi
log "smc-echo ok"
