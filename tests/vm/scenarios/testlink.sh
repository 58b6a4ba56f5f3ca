#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The keepalive (TEST_LINK) must tell a slow peer from a dead one.  Under
# packet loss and a busy host, a TEST_LINK answer can take longer than the
# 2 s wait while the peer's data still arrives; taking the link down then
# aborted every connection on it (seen as the faults scenario's netem
# case failing under load).  An unanswered probe now takes the link down
# only when nothing at all came from the peer during the wait.
#
# VM 0 runs the test-hooks module and drops every TEST_LINK it sends (so
# it never answers VM 1's probes); VM 1 (ours) probes after 1 s of quiet
# (net.smc.smcr_testlink_time=1) and serves an echo.
#   1. VM 0 sends 100 bytes every 1.6 s: VM 1's probes go unanswered
#      while the messages arrive; after 16 s VM 1 counts, with the
#      messages still coming: the link stayed, VM 1 logged "link kept" at
#      least once; then VM 0 stops, every echo right.  (VM 1 counted
#      after VM 0 had stopped once: on the KASAN kernel the barrier
#      between took over 3 s, long enough for phase 2's link down.)
#   2. Then nothing more: VM 1 must take the link down for the missing
#      answer within 10 s (a dead peer is still found).
#
# Run: tests/vm/vmtest --vms 2 --impl hooks,ours scenarios/testlink.sh

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

HC=$REPO/tests/vm/tools/hold_conns.py
HE=$REPO/tests/vm/tools/hostile_echo.py
PORT=7701

[ "$VM_COUNT" -eq 2 ] || fail "testlink needs exactly two VMs"
smcr_setup

if [ "$VM_INDEX" -eq 0 ]; then
	need_hooks smc_hostile/rules
	echo "llc test_link drop" >$RULES || fail "cannot write the rule"
else
	sysctl -qw net.smc.smcr_testlink_time=1 || fail "cannot set smcr_testlink_time"
	run_bg server "$SMCR_PY" "$HE" serve $PORT
	wait_file_line "$RESULTS/server.log" '"listening"' 30
fi
barrier ready 60

# 1. a slow but live peer
STOP=$SHARED/trickle-stop
if [ "$VM_INDEX" -eq 0 ]; then
	rm -f "$STOP"
	run_bg trickle "$SMCR_PY" "$HC" trickle "$VM_IP_1" $PORT 1.6 120 "$STOP"
	tpid=$BG_PID
	# VM 1's 16 s start with the messages (the debug kernel took over
	# 16 s to connect once)
	wait_file_line "$RESULTS/trickle.log" '"connected"' 60
fi
barrier trickling 60
if [ "$VM_INDEX" -eq 1 ]; then
	nap 16
	kept=$(kmsg_count 'TEST_LINK unanswered, but .* link kept')
	down=$(kmsg_count 'no TEST_LINK response, link down')
	touch "$STOP"
	log "while the peer was slow: $kept probes unanswered with the link kept, $down link downs"
	[ "$kept" -ge 1 ] || smcr_problem "no probe went unanswered while data arrived: the case proved nothing"
	[ "$down" -eq 0 ] || smcr_problem "the link was taken down while the peer's messages arrived"
else
	rc=0
	wait_bg "$tpid" 150 || rc=$?
	[ "$rc" -eq 0 ] ||
		smcr_problem "trickle client failed ($rc): $(tail -n 2 "$RESULTS/trickle.log")"
	log "trickle: $(tail -n 1 "$RESULTS/trickle.log"); rules: $(paste -sd' ' $RULES)"
	grep -q '"trickle": "ok"' "$RESULTS/trickle.log" ||
		smcr_problem "the slow connection broke: $(cat "$RESULTS/trickle.log")"
	hits=$(sed -n 's/.*hits \([0-9]*\).*/\1/p' $RULES | head -n 1)
	[ "${hits:-0}" -ge 1 ] || smcr_problem "no TEST_LINK answer was dropped: the case proved nothing"
fi
barrier slow 180

# 2. a silent peer
if [ "$VM_INDEX" -eq 1 ]; then
	for ((i = 0; i < 50; i++)); do
		[ "$(kmsg_count 'no TEST_LINK response, link down')" -ge 1 ] && break
		nap 0.2
	done
	[ "$(kmsg_count 'no TEST_LINK response, link down')" -ge 1 ] ||
		smcr_problem "a peer that answers nothing and sends nothing kept its link for 10 s"
	log "silent peer: link down after $((i / 5)) s"
fi
barrier silent 60
[ "$VM_INDEX" -eq 1 ] || echo clear >$RULES
smcr_verdict testlink
