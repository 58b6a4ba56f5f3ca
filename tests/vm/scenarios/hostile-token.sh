#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A peer aims CDC messages at a connection the victim is still setting up
# (issue 14, H1).  VM 0 is the hostile peer, VM 1 the victim; both run the
# test-hooks flavour (vmtest --impl hooks,hooks): VM 0 for its "cdc spray"
# rule, VM 1 for smc_faultinj/attach_delay_ms, which holds each new
# connection for a second right after it entered its link group's tree,
# where a connection whose buffers came later had none yet.
#
# Per round, VM 0 opens connection A to the victim (the rule fires on A's
# first CDC: some 10000 well-formed CDC messages aimed at the four tokens
# after A's, over about three seconds), then connection B while the spray
# runs.  Round "random": the victim's tokens as shipped; the guesses miss
# and both connections echo their bytes.  Round "guessable": the victim's
# tokens come from a counter (smc_faultinj/seq_tokens), as they did
# before, so the guesses can reach B while it is incomplete (they must be
# dropped) and once it is complete (a peer that knows a token may disturb
# that connection: B may be aborted, see wrong bytes, or stall because the
# guesses' sequence numbers make its peer's real messages look old; the
# victim then ends it as an orphan within SMC_CLOSE_ORPHAN_TIME, 60 s).
# B's peer is the spraying VM itself, so only its own connection suffers.  In both rounds the victim must stay up: no oops, no warning (the
# harness checks its kernel log), A verified, and the victim's module
# unloads at the end.
#
# Run: tests/vm/vmtest --vms 2 --impl hooks,hooks scenarios/hostile-token.sh

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

HE=$REPO/tests/vm/tools/hostile_echo.py
BYTES=65536

[ "$VM_COUNT" -eq 2 ] || fail "hostile-token needs exactly two VMs"
need_hooks smc_hostile/rules
smcr_setup

# jget FILE PORT FIELD: FIELD of the JSON line of FILE about PORT.
jget() {
	local line v

	line=$(grep -F "\"port\": $2," "$1" 2>/dev/null | tail -n 1)
	v=$(sed -n 's/.*"'"$3"'": "\{0,1\}\([^",}]*\).*/\1/p' <<<"$line")
	echo "${v:--}"
}

if [ "$VM_INDEX" -eq 1 ]; then
	need_hooks smc_faultinj/attach_delay_ms
	echo 1000 >"$FI/attach_delay_ms"
	run_bg server "$SMCR_PY" "$HE" serve 7301 7302 7303 7304
	SERVER=$BG_PID
	sleep 1
	kill -0 "$SERVER" || fail "echo server: $(cat "$RESULTS/server.log")"
else
	[ -w "$RULES" ] || fail "no $RULES"
	echo clear >"$RULES"
fi
barrier servers 60

# round NAME PORT-A PORT-B SEQ
round() {
	local name=$1 a=$2 b=$3 seq=$4 cf=$SHARED/$1.client ra rb

	if [ "$VM_INDEX" -eq 1 ]; then
		echo "$seq" >"$FI/seq_tokens"
	else
		echo "cdc any spray 10000 port $a count 1" >"$RULES" ||
			fail "spray rule refused"
	fi
	barrier "$name-go" 60
	if [ "$VM_INDEX" -eq 0 ]; then
		timeout 90 "$SMCR_PY" "$HE" client "$VM_IP_1" "$BYTES" 30 "$a" \
			>"$cf.a" 2>&1 &
		sleep 0.3
		timeout 90 "$SMCR_PY" "$HE" client "$VM_IP_1" "$BYTES" 30 "$b" \
			>"$cf.b" 2>&1 || true
		wait || true
		# the spray must have fired, or the round proved nothing
		grep -q "spray.*hits 1)" "$RULES" ||
			smcr_problem "$name: spray rule did not fire: $(paste -sd';' "$RULES")"
		echo clear >"$RULES"
		log "$name: A $(cat "$cf.a"); B $(cat "$cf.b")"
	fi
	barrier "$name-done" 120
	if [ "$VM_INDEX" -eq 1 ]; then
		ra=$(jget "$cf.a" "$a" result)
		rb=$(jget "$cf.b" "$b" result)
		[ "$ra" = ok ] || smcr_problem "$name: connection A: $ra"
		if [ "$seq" = 0 ]; then
			[ "$rb" = ok ] || smcr_problem "$name: connection B: $rb"
		else
			case $rb in
			ok | mismatch | ECONNABORTED | ECONNRESET | eof | timeout) ;;
			*) smcr_problem "$name: connection B: $rb" ;;
			esac
		fi
		log "$name: victim survived; A $ra, B $rb"
	fi
}

round random 7301 7302 0
round guessable 7303 7304 1

if [ "$VM_INDEX" -eq 1 ]; then
	echo 0 >"$FI/seq_tokens"
	echo 0 >"$FI/attach_delay_ms"
	kill "$SERVER" 2>/dev/null || true
	wait "$SERVER" 2>/dev/null || true
	cat "$RESULTS/server.log"
	# closed connections linger as orphans, a disturbed one up to its
	# 60 s orphan time and 2 s of abort: bounded retries
	for i in $(seq 75); do
		out=$(smc_rmmod 2>&1) && break
		sleep 1
	done
	! grep -q '^smc ' /proc/modules ||
		smcr_problem "smc.ko does not unload: $out ($(grep '^smc ' /proc/modules))"
fi
barrier end 120
smcr_verdict hostile-token
