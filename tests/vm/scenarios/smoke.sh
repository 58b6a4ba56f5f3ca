#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Testbed smoke test (any VM count, any impl): every VM pings every peer,
# rxe0 exists and is ACTIVE, and raw RDMA traffic (perftest ib_send_bw,
# RoCE v2) from VM 1 to VM 0 shows up in rxe0's packet counters.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ -d /sys/class/infiniband/rxe0 ] || fail "no rxe0"
state=$(cat /sys/class/infiniband/rxe0/ports/1/state)
log "rxe0 port state: $state"
[[ "$state" == *ACTIVE* ]] || fail "rxe0 is not ACTIVE"

for ip in $PEER_IPS; do
	busybox ping -c 3 -i 0.2 -w 10 "$ip" >/dev/null || fail "cannot ping $ip"
	log "ping $ip ok"
done
barrier pinged

gidx=$(rxe_gid_index) || fail "no RoCE v2 IPv4 GID on rxe0"
log "RoCE v2 GID index $gidx"

rx0=$(rdma_counter rcvd_pkts)
tx0=$(rdma_counter sent_pkts)
port=18515
case "$VM_INDEX" in
0)
	run_bg ib_send_bw ib_send_bw -d rxe0 -x "$gidx" -n 100 -p "$port"
	server=$BG_PID
	barrier perftest-listening
	wait_bg "$server" 120 || { cat "$RESULTS/ib_send_bw.log"; fail "ib_send_bw server failed"; }
	;;
1)
	barrier perftest-listening
	sleep 1
	ok=0
	for _ in 1 2 3 4 5; do
		if timeout 120 ib_send_bw -d rxe0 -x "$gidx" -n 100 -p "$port" "$VM_IP_0" \
			>"$RESULTS/ib_send_bw.log" 2>&1; then
			ok=1
			break
		fi
		sleep 1
	done
	[ "$ok" -eq 1 ] || { cat "$RESULTS/ib_send_bw.log"; fail "ib_send_bw client failed"; }
	;;
*)
	barrier perftest-listening
	;;
esac
barrier perftest-done
rx1=$(rdma_counter rcvd_pkts)
tx1=$(rdma_counter sent_pkts)
log "rxe0 rcvd_pkts $rx0 -> $rx1, sent_pkts $tx0 -> $tx1"
if [ "$VM_INDEX" -le 1 ] && [ "$VM_COUNT" -ge 2 ]; then
	[ "$rx1" -gt "$rx0" ] || fail "rcvd_pkts did not grow"
	[ "$tx1" -gt "$tx0" ] || fail "sent_pkts did not grow"
fi
log "smoke ok"
