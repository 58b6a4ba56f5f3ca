#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Link group limits (issue 14, M3): net.smc.smcr_max_lgrs_per_peer and
# net.smc.smcr_max_lgrs.  A link group pins a QP and registered memory, so
# a peer that makes the host set up one link group per connection (new
# proposal identifiers every time) must hit a limit and fall back to TCP
# cleanly.  The per-peer limit counts by TCP peer address, which a
# proposal cannot change.
#
# VM 1 connects to VM 0 (a server link group on VM 0); then VM 0, limited
# to one link group per peer, connects to VM 1: that needs a second link
# group (the client role), so it must fall back with 0x01010000 (MEM),
# its data echoed correctly over TCP, while the first connection's link
# group stays.  The same with the namespace-wide limit at 1.  With the
# defaults back, VM 0's connection runs SMC-R.
#
# Run: tests/vm/vmtest --vms 2 --impl ours scenarios/lgr-caps.sh

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

HE=$REPO/tests/vm/tools/hostile_echo.py
MEM=0x01010000

[ "$VM_COUNT" -eq 2 ] || fail "lgr-caps needs exactly two VMs"
smcr_setup
run_bg server "$SMCR_PY" "$HE" serve 7401 7402 7403 7404
sleep 1
barrier servers 60

# result FILE PORT: the client's result for PORT
result() {
	sed -n 's/.*"port": '"$2"',.*"result": "\([^"]*\)".*/\1/p' "$1" | tail -n 1
}

# count_mem: this VM's client fallbacks with reason MEM
count_mem() {
	"$SMCCTL" --json fallback | tr -d '\n' | sed 's/"server":.*//' |
		grep -o "\"hex\":\"$MEM\",\"name\":\"[A-Za-z0-9_]*\",\"count\":[0-9]*" |
		sed 's/.*"count"://' || true
}

# count_lgrs: this VM's link groups (smcctl must answer)
count_lgrs() {
	local out

	out=$("$SMCCTL" --json linkgroups) || fail "smcctl linkgroups failed"
	{ grep -o '{"id":' <<<"$out" || true; } | wc -l
}

# connect_from VM PORT WANT: VM connects to the other VM's PORT; WANT is
# "smcr" or "mem" (fallback with reason MEM), data verified either way.
connect_from() {
	local vm=$1 port=$2 want=$3 cf=$SHARED/c$2 m0 m1 lg0 lg1

	if [ "$VM_INDEX" -eq "$vm" ]; then
		m0=$(count_mem)
		lg0=$(count_lgrs)
		timeout 60 "$SMCR_PY" "$HE" client "$(peer_ip)" 65536 30 "$port" \
			>"$cf" 2>&1 || true
		m1=$(count_mem)
		lg1=$(count_lgrs)
		[ "$(result "$cf" "$port")" = ok ] ||
			smcr_problem "port $port: $(cat "$cf")"
		case $want in
		mem)
			[ "$((${m1:-0} - ${m0:-0}))" -eq 1 ] ||
				smcr_problem "port $port: MEM fallbacks ${m0:-0} -> ${m1:-0}, want one more"
			[ "$lg1" -eq "$lg0" ] ||
				smcr_problem "port $port: link groups $lg0 -> $lg1 over the limit"
			;;
		smcr)
			[ "${m1:-0}" = "${m0:-0}" ] ||
				smcr_problem "port $port: fell back (MEM) without a limit"
			[ "$lg1" -gt "$lg0" ] ||
				smcr_problem "port $port: no new link group ($lg0 -> $lg1)"
			;;
		esac
		log "port $port ($want): $(cat "$cf"); link groups $lg0 -> $lg1"
	fi
	barrier "c$port" 90
}

peer_ip() {
	if [ "$VM_INDEX" -eq 0 ]; then echo "$VM_IP_1"; else echo "$VM_IP_0"; fi
}

# 1. VM 1 -> VM 0: the server link group on VM 0 (and client on VM 1)
connect_from 1 7401 smcr
# 2. one link group per peer on VM 0: its client connection falls back
if [ "$VM_INDEX" -eq 0 ]; then
	sysctl -qw net.smc.smcr_max_lgrs_per_peer=1 ||
		smcr_problem "cannot set smcr_max_lgrs_per_peer"
fi
connect_from 0 7402 mem
# 3. one link group in the namespace: the same
if [ "$VM_INDEX" -eq 0 ]; then
	sysctl -qw net.smc.smcr_max_lgrs_per_peer=16
	sysctl -qw net.smc.smcr_max_lgrs=1 ||
		smcr_problem "cannot set smcr_max_lgrs"
fi
connect_from 0 7403 mem
# 4. the defaults: SMC-R
if [ "$VM_INDEX" -eq 0 ]; then
	sysctl -qw net.smc.smcr_max_lgrs=1024
fi
connect_from 0 7404 smcr
barrier end 60
smcr_verdict lgr-caps
