#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Orphan accounting (issue 14, M3): a connection closed while its peer
# still holds its end lingers, orphaned, with its buffers pinned, until the
# peer closes too (at most the 60 s orphan time).  A namespace keeps at
# most net.smc.smcr_max_orphans of them; past that close() aborts, as TCP
# resets past tcp_max_orphans.  The lingering ones count in TCP's orphan
# count (/proc/net/sockstat).
#
# VM 0 serves and holds every connection unread; VM 1 opens N SMC-R
# connections, sends on each and closes them all.
#   1. smcr_max_orphans=M on VM 1: sockstat shows exactly M orphans; VM 0
#      reads M connections to a clean end with all their bytes and N - M
#      aborted (EPIPE: the close came, then the abort); once VM 0 closed, the orphans are gone.
#   2. the default limit: N orphans, N clean ends.
#
# Run: tests/vm/vmtest --vms 2 --impl ours scenarios/orphans.sh

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

HC=$REPO/tests/vm/tools/hold_conns.py
N=8
M=3
BYTES=4096

[ "$VM_COUNT" -eq 2 ] || fail "orphans needs exactly two VMs"
smcr_setup

# orphans: TCP's orphan count of this VM (/proc/net/sockstat)
orphans() {
	sed -n 's/^TCP: .* orphan \([0-9]*\) .*/\1/p' /proc/net/sockstat
}

# wait_orphans WANT SECS: until sockstat shows WANT orphans; prints the last
wait_orphans() {
	local i n

	for ((i = 0; i < $2 * 5; i++)); do
		n=$(orphans)
		[ "$n" = "$1" ] && break
		nap 0.2
	done
	echo "$n"
}

# round NAME PORT LIMIT WANT_CLEAN
round() {
	local name=$1 port=$2 limit=$3 clean=$4 n ends

	if [ "$VM_INDEX" -eq 0 ]; then
		rm -f "$SHARED/go.$name"
		run_bg "srv-$name" "$SMCR_PY" "$HC" serve "$port" "$N" "$SHARED/go.$name"
		wait_file_line "$RESULTS/srv-$name.log" '"listening"' 30
		SRV=$BG_PID
	fi
	barrier "listen-$name" 60
	if [ "$VM_INDEX" -eq 1 ]; then
		sysctl -qw net.smc.smcr_max_orphans="$limit" ||
			smcr_problem "cannot set smcr_max_orphans"
		[ "$(orphans)" = 0 ] || smcr_problem "$name: $(orphans) orphans before the round"
		smcr_snapshot "b-$name"
		timeout 120 "$SMCR_PY" "$HC" client "$VM_IP_0" "$port" "$N" "$BYTES" - \
			>"$RESULTS/cli-$name.log" 2>&1 ||
			smcr_problem "$name: client failed: $(tail -n 3 "$RESULTS/cli-$name.log")"
		smcr_snapshot "a-$name"
		smcr_expect_stats "b-$name" "a-$name" "$N" 0
		# closed before VM 0 reads: those within the limit linger
		n=$(wait_orphans "$((clean))" 10)
		log "$name: limit $limit, $N closed, sockstat orphans $n"
		[ "$n" = "$clean" ] ||
			smcr_problem "$name: $n orphans in /proc/net/sockstat, want $clean"
	fi
	barrier "closed-$name" 120
	if [ "$VM_INDEX" -eq 0 ]; then
		: >"$SHARED/go.$name"
		wait_bg "$SRV" 180 || smcr_problem "$name: server failed ($?)"
		ends=$(grep -o '"bytes": [0-9]*, "end": "[A-Z a-z]*"' "$RESULTS/srv-$name.log" |
			sort | uniq -c | paste -sd, -)
		log "$name: the server read: $ends"
		n=$(grep -c "\"bytes\": $BYTES, \"end\": \"eof\"" "$RESULTS/srv-$name.log" || true)
		[ "$n" -eq "$clean" ] ||
			smcr_problem "$name: $n connections ended cleanly with all $BYTES bytes, want $clean ($ends)"
		# close() announced the close, then aborted: the reader gets
		# EPIPE, as from TCP's FIN followed by a reset
		n=$(grep -c '"end": "EPIPE"' "$RESULTS/srv-$name.log" || true)
		[ "$n" -eq $((N - clean)) ] ||
			smcr_problem "$name: $n connections aborted, want $((N - clean)) ($ends)"
	fi
	barrier "read-$name" 240
	if [ "$VM_INDEX" -eq 1 ]; then
		# the peer closed: every orphan ends at once
		n=$(wait_orphans 0 20)
		[ "$n" = 0 ] || smcr_problem "$name: $n orphans left after the peer closed"
	fi
	barrier "end-$name" 60
}

round limited 7501 "$M" "$M"
round default 7502 4096 "$N"
smcr_verdict orphans
