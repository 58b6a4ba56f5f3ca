#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory cgroup accounting of pinned buffers (issue 14, M3).  A
# connection's send buffer and RMB are pinned pages; they are charged to
# the memory cgroup of the socket that made the host allocate them: the
# connecting application's, and on the server the listening one's (the
# handshake runs in a work item, outside the application).
#
# net.smc.rmem is 1 MiB on both VMs.  VM 0 serves from cgroup smc-srv,
# VM 1 connects N times from cgroup smc-cli; each cgroup's memory.current
# must grow by at least N RMBs of 512 KiB (half of rmem is the least a
# connection gets).  Then VM 1's cgroup gets a memory.max a few MiB above
# what it uses and asks for 4 MiB RMBs: the charge is refused (memory.events
# counts it), and each of N more connections either runs SMC-R in a
# smaller buffer or falls back with reason MEM (0x01010000); none fails
# and nothing is OOM-killed.
#
# Run: tests/vm/vmtest --vms 2 --impl ours scenarios/memcg.sh

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

HC=$REPO/tests/vm/tools/hold_conns.py
CG=/sys/fs/cgroup
N=8
RMEM=$((1024 * 1024))
MIN_RMB=$((512 * 1024))

[ "$VM_COUNT" -eq 2 ] || fail "memcg needs exactly two VMs"
smcr_setup

mountpoint -q $CG || mount -t cgroup2 none $CG || fail "cannot mount cgroup2"
[ -e $CG/cgroup.subtree_control ] || fail "$CG is not cgroup v2"
echo +memory >$CG/cgroup.subtree_control || fail "no memory controller"
sysctl -qw net.smc.rmem=$RMEM || fail "cannot set net.smc.rmem"

# in_cgroup NAME CMD...: run CMD in cgroup NAME (created when missing)
in_cgroup() {
	local cg=$CG/$1

	shift
	mkdir -p "$cg"
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" "$@"
}

current() { cat "$CG/$1/memory.current"; }

# phase NAME PORT [ROOM]: VM 0 serves N connections from smc-srv, VM 1
# opens them from smc-cli and holds them until both measured.  Each
# measures its cgroup's growth from when its process was ready (MEASURED).
# With ROOM, smc-cli's memory.max is then ROOM bytes above its usage.
phase() {
	local name=$1 port=$2 room=${3:-} start=$SHARED/start.$1.vm$VM_INDEX
	local cg m0 m1 role pid

	rm -f "$start"
	if [ "$VM_INDEX" -eq 0 ]; then
		cg=smc-srv role=srv
		rm -f "$SHARED/go.$name"
		run_bg "$role-$name" in_cgroup $cg env HOLD_START="$start" \
			"$SMCR_PY" "$HC" serve "$port" "$N" "$SHARED/go.$name"
	else
		cg=smc-cli role=cli
		rm -f "$SHARED/hold.$name"
		run_bg "$role-$name" in_cgroup $cg env HOLD_START="$start" \
			"$SMCR_PY" "$HC" client "$VM_IP_0" "$port" "$N" 0 "$SHARED/hold.$name"
	fi
	pid=$BG_PID
	wait_file_line "$RESULTS/$role-$name.log" '"ready"' 60
	barrier "ready-$name" 60
	m0=$(current $cg)
	if [ -n "$room" ] && [ "$VM_INDEX" -eq 1 ]; then
		echo $((m0 + room)) >$CG/$cg/memory.max ||
			smcr_problem "cannot set memory.max"
	fi
	barrier "base-$name" 60
	if [ "$VM_INDEX" -eq 0 ]; then
		: >"$start"
		wait_file_line "$RESULTS/srv-$name.log" '"listening"' 30
	fi
	barrier "listen-$name" 60
	if [ "$VM_INDEX" -eq 1 ]; then
		smcr_snapshot "b-$name"
		: >"$start"
		wait_file_line "$RESULTS/cli-$name.log" '"connected"|Error' 120
		grep -q '"connected"' "$RESULTS/cli-$name.log" ||
			smcr_problem "$name: client failed: $(tail -n 2 "$RESULTS/cli-$name.log")"
		smcr_snapshot "a-$name"
	else
		wait_file_line "$RESULTS/srv-$name.log" '"accepted"' 120
	fi
	barrier "held-$name" 120
	m1=$(current $cg)
	MEASURED=$((m1 - m0))
	log "$name: $cg memory.current $m0 -> $m1 (+$MEASURED B) with $N connections"
	barrier "measured-$name" 60
	if [ "$VM_INDEX" -eq 1 ]; then
		: >"$SHARED/hold.$name"
	else
		: >"$SHARED/go.$name"
	fi
	wait_bg "$pid" 120 || smcr_problem "$name: $role failed ($?)"
	barrier "end-$name" 120
}

# 1. charged: both cgroups grow by at least N RMBs
phase charged 7601
[ "$MEASURED" -ge $((N * MIN_RMB)) ] ||
	smcr_problem "charged: cgroup grew by $MEASURED B for $N connections, want >= $((N * MIN_RMB)) (the pinned buffers are not charged)"
[ "$VM_INDEX" -eq 0 ] || smcr_expect_stats b-charged a-charged "$N" 0

# 2. limited: VM 1's cgroup may grow by 1.5 MiB only, and asks for 4 MiB
# RMBs: their charge fails (a "max" event), the connections take the
# 1 MiB buffers of phase 1, back in the link group's pool (still charged)
[ "$VM_INDEX" -eq 0 ] || sysctl -qw net.smc.rmem=$((4 * RMEM))
phase limited 7602 $((1536 * 1024))
if [ "$VM_INDEX" -eq 1 ]; then
	max=$(cat $CG/smc-cli/memory.max)
	peak=$(cat $CG/smc-cli/memory.peak 2>/dev/null || current smc-cli)
	log "limited: memory.max $max, memory.peak $peak, memory.events: $(paste -sd' ' $CG/smc-cli/memory.events)"
	# the 4 MiB RMBs asked for were charged against the limit and refused
	[ "$(sed -n 's/^max //p' $CG/smc-cli/memory.events)" -gt 0 ] ||
		smcr_problem "limited: no allocation ever hit memory.max"
	grep -q '"closed"' "$RESULTS/cli-limited.log" ||
		smcr_problem "limited: the client did not get all its connections"
	# every connection accounted for: SMC-R or fallback MEM, nothing else
	smcr_delta b-limited a-limited
	smcr=$D_smcr_client
	why=$D_why_client
	# MEM fallbacks, and how many fallback reasons grew (MEM's included)
	read -r mem reasons <<<"$(tr , '\n' <<<"${why#-}" |
		awk -F: 'NF { r++ } $1 ~ /MEM$/ { m += $2 } END { print m + 0, r + 0 }')"
	log "limited: smcr $smcr, fallbacks $why"
	if [ $((smcr + mem)) -ne "$N" ] || [ "$reasons" -gt $((mem ? 1 : 0)) ]; then
		smcr_problem "limited: $smcr SMC-R + $mem MEM fallbacks of $N connections, fallbacks: $why"
	fi
fi
barrier verdict 60
smcr_verdict memcg
