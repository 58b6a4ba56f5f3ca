#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The iWARP testbed (2 VMs, any impl): siw0, Soft-iWARP built by
# tests/kernels/build-siw, on each VM's eth0; the device is an iWARP one
# and ACTIVE; raw RDMA WRITE from VM 1 to VM 0 with perftest's
# ib_write_bw in its rdma_cm mode (-R: iWARP queue pairs are connected by
# the iWARP connection manager, MPA over TCP, never by hand), the bytes
# seen on the wire: VM 1's eth0 sends at least the payload, VM 0's eth0
# receives it, and the MPA connection is a TCP connection to the port
# perftest listens on.
# vmtest-rdma: siw

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

port=18520
size=65536
iters=${SMCR_SIW_ITERS:-400}
payload=$((size * iters))

[ -d /sys/class/infiniband/siw0 ] || fail "no siw0"
[ ! -d /sys/class/infiniband/rxe0 ] || fail "rxe0 is there too (--rdma siw)"
[ "$(cat /sys/class/infiniband/siw0/node_type)" = "4: RNIC" ] ||
	fail "siw0's node type is '$(cat /sys/class/infiniband/siw0/node_type)', not an iWARP RNIC"
ibv_devinfo -d siw0 >"$RESULTS/devinfo.txt" 2>&1 || fail "ibv_devinfo -d siw0 failed (no siw provider?)"
grep -Eq 'transport:[[:space:]]+iWARP' "$RESULTS/devinfo.txt" ||
	fail "ibv_devinfo: siw0's transport is not iWARP: $(grep transport "$RESULTS/devinfo.txt")"
state=$(cat /sys/class/infiniband/siw0/ports/1/state)
log "siw0: $(cat /sys/class/infiniband/siw0/node_type), port state $state"
[[ "$state" == *ACTIVE* ]] || fail "siw0 is not ACTIVE"

for ip in $PEER_IPS; do
	busybox ping -c 3 -i 0.2 -w 10 "$ip" >/dev/null || fail "cannot ping $ip"
done
barrier pinged

eth_bytes() { cat "/sys/class/net/eth0/statistics/$1_bytes"; }
rx0=$(eth_bytes rx)
tx0=$(eth_bytes tx)
case "$VM_INDEX" in
0)
	run_bg ib_write_bw ib_write_bw -d siw0 -R -s "$size" -n "$iters" -p "$port"
	server=$BG_PID
	# siw's listening kernel socket (no probe connection: that would
	# be an MPA peer that never speaks)
	for _ in $(seq 300); do
		[ -z "$(ss -Htln "sport = :$port")" ] || break
		kill -0 "$server" 2>/dev/null || break
		sleep 0.2
	done
	[ -n "$(ss -Htln "sport = :$port")" ] ||
		{ cat "$RESULTS/ib_write_bw.log"; fail "nothing listens on port $port for ib_write_bw -R"; }
	barrier perftest-listening
	wait_bg "$server" 180 || { cat "$RESULTS/ib_write_bw.log"; fail "ib_write_bw server failed"; }
	;;
1)
	barrier perftest-listening
	run_bg ib_write_bw ib_write_bw -d siw0 -R -s "$size" -n "$iters" -p "$port" "$VM_IP_0"
	client=$BG_PID
	# the MPA connection: siw's kernel TCP socket to perftest's port
	mpa=""
	for _ in $(seq 100); do
		mpa=$(ss -Htn state established "dport = :$port" | head -n 1)
		[ -z "$mpa" ] || break
		kill -0 "$client" 2>/dev/null || break
		sleep 0.1
	done
	wait_bg "$client" 180 || { cat "$RESULTS/ib_write_bw.log"; fail "ib_write_bw client failed"; }
	[ -n "$mpa" ] || fail "no TCP connection to $VM_IP_0:$port while ib_write_bw ran (MPA)"
	log "MPA over TCP: $mpa"
	;;
*)
	barrier perftest-listening
	;;
esac
barrier perftest-done
rx1=$(eth_bytes rx)
tx1=$(eth_bytes tx)
log "eth0 rx $((rx1 - rx0)) B, tx $((tx1 - tx0)) B; payload $payload B"
[ "$VM_INDEX" -gt 1 ] || sed -n '/#bytes/,$p' "$RESULTS/ib_write_bw.log" | sed 's/^/  /'
case "$VM_INDEX" in
0) [ $((rx1 - rx0)) -ge "$payload" ] || fail "eth0 received less than the payload" ;;
1) [ $((tx1 - tx0)) -ge "$payload" ] || fail "eth0 sent less than the payload" ;;
esac
log "siw smoke ok"
