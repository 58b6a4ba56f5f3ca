#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Testbed smoke test (any VM count, any impl): every VM pings every peer,
# rxe0 exists and is ACTIVE, and raw RDMA traffic (perftest ib_send_bw,
# RoCE v2) from VM 1 to VM 0 shows up in rxe0's packet counters: 100 SENDs
# of 64 KiB are at least 6400 packets of 1 KiB each way.
#
# perftest ends with a handshake over its TCP control connection, which
# now and then fails after every SEND went through (the client says
# "Couldn't read remote address", the server exits without a word after
# its table header): that alone, with the packets counted, does not fail
# the test.

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
pkts=6400
bye_only=0
# perftest failed in its closing handshake only: the SENDs done (the
# client's result row; the server's table header, the packet count below
# being the proof), then the TCP control connection's last exchange
perftest_bye() {
	if [ "$VM_INDEX" -eq 0 ]; then
		grep -qE '^ *#bytes +#iterations' "$RESULTS/ib_send_bw.log"
	else
		grep -qE '^ *65536 +100 ' "$RESULTS/ib_send_bw.log" &&
			grep -qE "Couldn't read remote address|Failed to close connection" \
				"$RESULTS/ib_send_bw.log"
	fi
}
case "$VM_INDEX" in
0)
	run_bg ib_send_bw ib_send_bw -d rxe0 -x "$gidx" -n 100 -p "$port"
	server=$BG_PID
	barrier perftest-listening
	if ! wait_bg "$server" 120; then
		perftest_bye || { cat "$RESULTS/ib_send_bw.log"; fail "ib_send_bw server failed"; }
		bye_only=1
	fi
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
		# the 100 SENDs done, the goodbye failed: no second run
		if perftest_bye; then
			ok=1 bye_only=1
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
	# VM 0 receives the SENDs, VM 1 sends them (and the ACKs go back)
	if [ "$VM_INDEX" -eq 0 ]; then
		[ $((rx1 - rx0)) -ge "$pkts" ] || fail "rcvd_pkts grew by $((rx1 - rx0)), want >= $pkts"
	else
		[ $((tx1 - tx0)) -ge "$pkts" ] || fail "sent_pkts grew by $((tx1 - tx0)), want >= $pkts"
	fi
	[ "$rx1" -gt "$rx0" ] || fail "rcvd_pkts did not grow"
	[ "$tx1" -gt "$tx0" ] || fail "sent_pkts did not grow"
	[ "$bye_only" -eq 0 ] ||
		log "perftest's closing handshake failed after the data; packets counted"
fi
log "smoke ok"
