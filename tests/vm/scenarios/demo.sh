#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Demo (tests/run demo): two VMs with our smc.ko talk AF_SMC.  VM 0 runs an
# echo server, VM 1 echoes DEMO_BYTES (default 4M) over DEMO_CONNS (default
# 2) connections.  While they run, both show the connections in SMC-R mode,
# the link group and its link; afterwards the payload bytes moved by RDMA
# (the module's counters, rxe0's packets) against the bytes the companion
# TCP connections carried (the handshake only).

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

bytes=${DEMO_BYTES:-4194304}
conns=${DEMO_CONNS:-2}
port=5000
[ "$VM_COUNT" -ge 2 ] || fail "needs two VMs"

ctl=$(smcctl_path) || ctl=

# The SMC-R view: connections, link groups, links (VM 1, data flowing).
show_smcr() {
	[ -x "$ctl" ] || return 0
	log "connections (smcctl connections):"
	"$ctl" connections || true
	log "link groups (smcctl linkgroups):"
	"$ctl" linkgroups || true
	log "links (smcctl links):"
	"$ctl" links || true
}

# TCP segments this VM sent and received so far (/proc/net/snmp): the
# companion TCP connections carry only the handshake.
tcp_segs() {
	awk '$1 == "Tcp:" && $2 ~ /^[0-9]/ { print $12, $11 }' /proc/net/snmp
}

mod=$(lsmod | awk '$1 == "smc" {print $1}')
log "vm$VM_INDEX $VM_IP impl=$SMC_IMPL module=${mod:-none}"
rx0=$(rdma_counter rcvd_pkts)
tx0=$(rdma_counter sent_pkts)
read -r tcp_out0 tcp_in0 <<<"$(tcp_segs)"
case "$VM_INDEX" in
0)
	run_bg smc_echo-server smc_echo -s -f smc -p "$port" -n "$conns" -t 240
	server=$BG_PID
	wait_file_line "$RESULTS/smc_echo-server.log" 'listening|smc_echo:' 30
	grep -q listening "$RESULTS/smc_echo-server.log" ||
		{ cat "$RESULTS/smc_echo-server.log"; : >"$SHARED/.abort.vm0"; fail "server did not start"; }
	cat "$RESULTS/smc_echo-server.log"
	barrier listening
	rc=0
	wait_bg "$server" 250 || rc=$?
	sed 1d "$RESULTS/smc_echo-server.log"
	[ "$rc" -eq 0 ] || fail "server failed ($rc)"
	;;
1)
	barrier listening
	log "connecting AF_SMC to $VM_IP_0:$port, $conns x $bytes bytes"
	run_bg smc_echo-client smc_echo -c "$VM_IP_0" -f smc -p "$port" -B "$bytes" \
		-N "$conns" -t 240
	client=$BG_PID
	# While the first connection moves data: how the kernel sees it.
	sleep 1
	show_smcr
	rc=0
	wait_bg "$client" 250 || rc=$?
	cat "$RESULTS/smc_echo-client.log"
	[ "$rc" -eq 0 ] || fail "smc_echo client failed ($rc)"
	;;
*)
	barrier listening
	;;
esac
barrier echo-done
rx1=$(rdma_counter rcvd_pkts)
tx1=$(rdma_counter sent_pkts)
log "rxe0 sent_pkts +$((tx1 - tx0)) rcvd_pkts +$((rx1 - rx0))"
if [ "$VM_INDEX" -le 1 ]; then
	min=$((bytes * conns / 1024))
	if [ $((rx1 - rx0)) -ge "$min" ] && [ $((tx1 - tx0)) -ge "$min" ]; then
		log "data path: RDMA (>= $min packets each way)"
	else
		log "data path: TCP (fewer than $min RDMA packets: fallback?)"
	fi
	if [ -x "$ctl" ]; then
		log "SMC-R counters on vm$VM_INDEX (smcctl stats):"
		"$ctl" stats || true
		log "fallbacks on vm$VM_INDEX (smcctl fallback):"
		"$ctl" fallback || true
	fi
	read -r tcp_out1 tcp_in1 <<<"$(tcp_segs)"
	log "TCP segments +$((tcp_out1 - tcp_out0)) out, +$((tcp_in1 - tcp_in0)) in (the CLC handshakes); RoCE packets +$((tx1 - tx0)) out, +$((rx1 - rx0)) in (the $((bytes * conns)) payload bytes)"
fi
