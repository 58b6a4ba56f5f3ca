#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A hostile peer: VM 0 runs the test-hooks flavour of our module (vmtest
# --impl hooks,ours) and mangles what it sends, by rules written to
# /sys/kernel/debug/smc_hostile/rules, each scoped to one TCP port; VM 1
# runs the normal module and is the victim.  Every case is one connection
# (two for the CDC cases: the attacked one and a healthy one on the same
# link group) in one role: "hsrv" = the hostile peer serves and the victim
# connects, "hcli" = the hostile peer connects to the victim's server.
# Each case asserts the victim's outcome: the fallback reason it counted
# (smcctl fallback), how its connection ended (errno), that the data it
# echoed was correct where the protocol allows it, and how long it took.
# W1 sends data by WRITE WITH IMMEDIATE on a link group that did not agree
# on that extension; M1 and M2 send RMB growth messages out of place.  The burst case counts the victim's kernel log lines
# about bad input (rate-limited: bounded however many messages arrive).  Every rule must
# have fired (its hit count in the rules file), or the case proved
# nothing.  The table of outcomes is in $RESULTS/hostile-table.txt on
# VM 1.  SMCR_HOSTILE_ALL=1 adds the longer and more destructive cases.
#
# Run: tests/vm/vmtest --vms 2 --impl hooks,ours scenarios/hostile.sh

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

HE=$REPO/tests/vm/tools/hostile_echo.py
TABLE=$RESULTS/hostile-table.txt
BYTES=65536
ALL=${SMCR_HOSTILE_ALL:-0}

[ "$VM_COUNT" -eq 2 ] || fail "hostile needs exactly two VMs"
[ "$VM_INDEX" -ne 0 ] || need_hooks smc_hostile/rules

SYNCERR=0x04000000
TIMEOUT_CL=0x02010000
TIMEOUT_AL=0x02020000
PEERDECL=0x05000000

# The cases: ID ROLE RULE-PORT [HEALTHY-PORT] | rule (without port).
CASES=(
	"L1 hsrv 7001 |llc confirm_link len 20 count 1"
	"S1 hsrv 7002 |clc accept trunc 40"
	"S3 hsrv 7004 |clc accept stall"
	"S5 hsrv 7006 |clc accept oversize 1100"
	"C3 hcli 7103 |clc proposal stall"
	"C4 hcli 7104 |clc confirm stall"
	"C5 hcli 7105 |clc proposal version 0"
	"D1 hcli 7106 7107 |cdc any prodbeyond skip 2 count 1"
	"D2 hsrv 7007 7008 |cdc any wrapjump skip 2 count 1"
	"D3 hcli 7108 7109 |cdc any replay skip 3 count 1"
	"B1 hcli 7110 7111 |cdc any burst 300 count 1"
	"W1 hcli 7120 7121 |wimm any force skip 2 count 1"
	"M1 hcli 7122 7123 |cdc any moved skip 2 count 1"
	"M2 hsrv 7015 7016 |cdc any offer skip 2 count 1"
)
if [ "$ALL" = 1 ]; then
	CASES+=(
		"C1 hcli 7101 |clc proposal trunc 40"
		"S2 hsrv 7003 |clc accept version 0"
		"S4 hsrv 7005 |clc accept type 3"
		"C2 hcli 7102 |clc proposal oversize 1100"
		"D4 hsrv 7009 |cdc any dup skip 1 count 5"
		"S6 hsrv 7010 |clc accept dup"
		"S7 hsrv 7011 |clc accept short 30"
		"S8 hsrv 7012 |clc accept len 2000"
		"C6 hcli 7112 |clc confirm short 30"
		"C7 hcli 7113 |clc proposal corrupt 0"
		"D5 hsrv 7013 7014 |cdc any consbeyond skip 2 count 1"
		"D6 hcli 7114 7115 |cdc any oldseq skip 2 count 1"
		"D7 hcli 7116 7117 |cdc any rkey skip 2 count 1"
	)
fi

# jget FILE PORT FIELD: FIELD of the last JSON line of FILE about PORT
# ("-" when none).  hostile_echo.py writes flat objects with ", " between
# members; plain shell, since a Python start costs a second under TCG.
jget() {
	local line v

	line=$(grep -F "\"port\": $2," "$1" 2>/dev/null | tail -n 1)
	v=$(sed -n 's/.*"'"$3"'": "\{0,1\}\([^",}]*\).*/\1/p' <<<"$line")
	echo "${v:--}"
}

# fb_counts FILE ROLE: "HEX COUNT" per reason of ROLE in an `smcctl
# --json fallback` file (client's object comes first, then server's).
fb_counts() {
	local part

	part=$(tr -d '\n' <"$1" | sed 's/"server":/\n&/')
	if [ "$2" = client ]; then
		part=$(head -n 1 <<<"$part")
	else
		part=$(tail -n 1 <<<"$part")
	fi
	grep -o '"hex":"0x[0-9a-f]*","name":"[A-Za-z0-9_]*","count":[0-9]*' <<<"$part" |
		sed 's/"hex":"\(0x[0-9a-f]*\)".*"count":\([0-9]*\)/\1 \2/' || true
}

# fb_new BEFORE AFTER ROLE: the new fallbacks of ROLE between two
# `smcctl --json fallback` files, as "0xREASONxCOUNT ..." ("none").
fb_new() {
	local out

	# files, not <(...): the VMs have no /dev/fd
	fb_counts "$1" "$3" >/tmp/fb.old
	fb_counts "$2" "$3" >/tmp/fb.new
	out=$(awk 'FILENAME == ARGV[1] { old[$1] = $2; next }
		   $2 > old[$1] { printf "%s%sx%d", sep, $1, $2 - old[$1]; sep = " " }' \
		/tmp/fb.old /tmp/fb.new)
	echo "${out:-none}"
}

# hs_err_new BEFORE AFTER: the victim's new handshake errors between two
# `smcctl --json stats` files, as "CLIENT SERVER".
hs_err_new() {
	local b a

	b=$(grep -o '"handshake_errors":{"client":[0-9]*,"server":[0-9]*' "$1" |
		tr -c '0-9\n' ' ')
	a=$(grep -o '"handshake_errors":{"client":[0-9]*,"server":[0-9]*' "$2" |
		tr -c '0-9\n' ' ')
	read -r bc bs <<<"$b"
	read -r ac as <<<"$a"
	echo "$((ac - bc)) $((as - bs))"
}

# expect_hs_err CLIENT SERVER: the victim counted exactly these new
# handshake errors (connections the handshake ended, neither SMC-R nor
# fallback).
expect_hs_err() {
	[ "$HSERR" = "$1 $2" ] ||
		problem "victim handshake errors (client server) '$HSERR', want '$1 $2'"
}

# junk_lines: the victim's kernel log lines about malformed messages.
junk_lines() {
	kmsg_count 'malformed (LLC|CDC)|unknown message type|callbacks suppressed'
}

problem() {
	smcr_problem "$CASE: $*"
}

# row TEXT: one line of the outcome table.
row() {
	printf '%-3s %-4s %-40s %s\n' "$CASE" "$ROLE" "$RULE" "$*" | tee -a "$TABLE"
}

# ---- victim-side assertions, one function per case ----------------------
# Available: $CASE $ROLE $P (attacked port) $H (healthy port or empty),
# $CF (client JSON lines), $SL (the victim's server log), $FB (new
# fallbacks of the victim's role), $CSECS (client connect seconds),
# $RES (client result of $P), $SECS (client total seconds).

expect_fb() {
	local want
	for want in "$@"; do
		[[ " $FB " == *" ${want}x1 "* ]] && return 0
	done
	problem "victim fallbacks '$FB', want one of $*"
}

expect_res() {
	[ "$RES" = "$1" ] || problem "port $P: client result '$RES', want '$1'"
}

# secs_in LO HI SECS: LO <= SECS <= HI, SECS a number of seconds ("-": none)
secs_in() {
	awk -v lo="$1" -v hi="$2" -v s="$3" \
		'BEGIN { exit !(s ~ /^[0-9]+(\.[0-9]*)?$/ && lo <= s + 0 && s + 0 <= hi) }'
}

expect_secs_between() {
	secs_in "$1" "$2" "$CSECS" ||
		problem "connect took ${CSECS}s, want $1..$2 s"
}

# the victim's server saw the connection on $P end with $1 (eof, errno)
expect_srv_end() {
	local end i

	for i in 1 2 3 4 5 6; do
		end=$(jget "$SL" "$P" end)
		[ "$end" = - ] || break
		sleep 0.5
	done
	[ "$end" = "$1" ] || problem "victim server port $P ended '$end', want '$1'"
	SRV_END=$end
}

expect_healthy() {
	local r

	[ -n "$H" ] || return 0
	r=$(jget "$CF" "$H" result)
	[ "$r" = ok ] || problem "healthy port $H on the same link group: '$r', want ok"
	HEALTHY="healthy conn ok ($(jget "$CF" "$H" verified) B verified)"
}

check_L1() {
	expect_fb "$TIMEOUT_CL" "$PEERDECL"
	expect_res ok
	expect_secs_between 0 12
	row "fallback $FB, data ok over TCP, ${CSECS}s"
}
check_S1() {
	expect_fb "$SYNCERR"; expect_res ok; expect_secs_between 0 5
	expect_hs_err 0 0
	row "decline+fallback $FB, data ok over TCP, ${CSECS}s"
}
check_S2() { check_S1; }
check_S4() { check_S1; }
check_S5() { check_S1; }
check_S6() {
	expect_res ok
	row "fallbacks '$FB', result $RES, ${CSECS}s"
}
check_S3() {
	# The victim declines after its 6 s wait for the accept, then waits
	# 6 s more for the hostile server's late accept or decline (either
	# would have to be taken out of the stream).  Neither comes, so it
	# cannot tell where the stream's data would start: it ends the TCP
	# connection (ETIMEDOUT, "timeout" here) instead of risking CLC
	# bytes in the application's data (hs.c, smc_hs_late()).
	expect_fb "$TIMEOUT_AL"; expect_secs_between 11 15
	[ "$RES" = timeout ] ||
		problem "port $P: client result '$RES', want timeout (ETIMEDOUT)"
	expect_hs_err 1 0
	row "timeout, decline $FB after 6 s, no answer in 6 s more: TCP ended ($RES) after ${CSECS}s"
}
check_S7() {
	# 6 s, or 12 s when the late-message wait after the decline (S3)
	# finds nothing either
	expect_fb "$TIMEOUT_AL"; expect_secs_between 5 15
	row "timeout $FB, result $RES, ${CSECS}s"
}
check_S8() {
	# the length says 2000: the victim waits for the rest (6 s); the
	# hostile server's own wait ends first and its echo may return our
	# decline, so the data is not asserted; 12 s as in S7
	expect_fb "$TIMEOUT_AL"; expect_secs_between 5 15
	row "fallbacks '$FB', result $RES, ${CSECS}s"
}
check_C1() {
	expect_fb "$SYNCERR"; expect_res ok; expect_srv_end eof
	expect_hs_err 0 0
	row "decline+fallback $FB, data ok over TCP, ${CSECS}s"
}
check_C2() { check_C1; }
check_C5() { check_C1; }
check_C7() {
	# no eyecatcher: by design the victim cannot tell this from a peer
	# that talks plain TCP, and hands the bytes to the application
	expect_fb "$SYNCERR"
	row "not CLC: fallback $FB, bytes to the app (hostile sees $RES)"
}
check_C3() {
	# No proposal: the victim drops the connection unaccepted after its
	# 6 s wait.  If the hostile client gives up first (its own 6 s for
	# the accept), its data comes where the proposal belongs: no
	# eyecatcher, so the victim falls back (SYNCERR) with the data intact.
	secs_in 0 15 "$SECS" ||
		problem "the hostile client hung ${SECS}s"
	if [ "$FB" = none ]; then
		[ "$(jget "$SL" "$P" end)" = - ] ||
			problem "victim accepted a connection without a proposal or fallback"
		[ "$RES" != ok ] || problem "connection without a proposal carried data"
		expect_hs_err 0 1
		row "victim drops it unaccepted; hostile client $RES after ${SECS}s"
	else
		expect_fb "$SYNCERR"; expect_res ok
		row "hostile gave up first (${CSECS}s), its data instead: fallback $FB, data ok"
	fi
}

check_C4() {
	# TIMEOUT_CL when the victim gives up first; SYNCERR when the hostile
	# client (4 s CONFIRM_LINK wait + 1 s) fell back first and its data
	# came where the confirm should have been (it stays for the app)
	expect_fb "$TIMEOUT_CL" "$SYNCERR"
	row "timeout, decline+fallback $FB; hostile client $RES after ${SECS}s"
}
check_C6() {
	expect_fb "$TIMEOUT_CL"
	row "timeout $FB; hostile client $RES after ${SECS}s"
}
check_D1() {
	expect_srv_end ECONNABORTED
	# The victim's abort is the outcome asserted.  Whether the hostile
	# client saw its whole echo first depends on which CDC message the
	# rule mangled: one that came after the last data (a cursor update)
	# lets the echo complete before the abort.  What it got back must
	# never be wrong data, though.
	[ "$RES" != mismatch ] || problem "the victim echoed corrupted data"
	expect_healthy
	row "attacked conn aborted (victim $SRV_END, hostile $RES), $HEALTHY"
}
check_D3() { check_D1; }
check_D6() {
	expect_healthy
	row "attacked conn: victim $(jget "$SL" "$P" end), hostile $RES, $HEALTHY"
}
check_D7() {
	row "attacked conn: victim $(jget "$SL" "$P" end), hostile $RES; healthy $(jget "$CF" "$H" result)"
}
check_D2() {
	expect_res ECONNABORTED
	expect_healthy
	row "attacked conn aborted (victim $RES), $HEALTHY"
}
check_D5() { check_D2; }
check_D4() {
	expect_res ok
	row "duplicates ignored, data ok ($(jget "$CF" "$P" verified) B)"
}
check_B1() {
	local n=$((JUNK1 - JUNK0))

	expect_res ok
	expect_healthy
	[ "$n" -ge 1 ] || problem "no kernel log line about 300 malformed messages"
	[ "$n" -le 45 ] || problem "$n kernel log lines for 300 malformed messages: not rate-limited"
	row "300 junk msgs dropped, $n log lines, conn ok, $HEALTHY"
}

# RMB growth messages out of place (smc.rst "RMB growth"): a MOVED no
# OFFER asked for, an OFFER no larger than the RMB the victim writes
# into.  Agreed or not, the victim aborts that connection alone.
check_M1() { check_D1; }
check_M2() { check_D2; }

check_W1() {
	# data by WRITE WITH IMMEDIATE on a link group that did not agree
	# on it (the victim turned the extension off): the victim aborts
	# that connection, the healthy one on the same link group goes on
	check_D1
}

# ---- setup ---------------------------------------------------------------
smcr_setup
# The victim offers and accepts no WIMM extension, so that W1's forced
# WRITE WITH IMMEDIATE is one it never agreed to.  (While CDC rules are
# armed the hostile side sends data by CDC messages anyway.)
if [ "$VM_INDEX" -eq 1 ]; then
	sysctl -qw net.smc.smcr_write_imm=0 || fail "cannot turn smcr_write_imm off"
fi
: >"$TABLE"
hsrv_ports=() hcli_ports=()
for c in "${CASES[@]}"; do
	read -r id role ports <<<"${c%%|*}"
	if [ "$role" = hsrv ]; then
		hsrv_ports+=($ports)
	else
		hcli_ports+=($ports)
	fi
done

if [ "$VM_INDEX" -eq 0 ]; then
	echo clear >"$RULES"
	for c in "${CASES[@]}"; do
		read -r id role p _ <<<"${c%%|*}"
		rule=${c#*|}
		[[ $rule == llc* ]] || rule="$rule port $p"
		echo "$rule" >"$RULES" || fail "rule '$rule' refused"
	done
	log "rules: $(paste -sd';' "$RULES")"
	run_bg server "$SMCR_PY" "$HE" serve "${hsrv_ports[@]}"
else
	run_bg server "$SMCR_PY" "$HE" serve "${hcli_ports[@]}"
fi
SERVER=$BG_PID
SL=$RESULTS/server.log
sleep 1
kill -0 "$SERVER" || fail "echo server: $(cat "$SL")"
barrier servers 60

# ---- the cases -------------------------------------------------------------
t_all=$SECONDS
for c in "${CASES[@]}"; do
	read -r CASE ROLE P H <<<"${c%%|*}"
	RULE=${c#*|}
	CF=$SHARED/$CASE.client
	if [ "$VM_INDEX" -eq 1 ]; then
		"$SMCCTL" --json fallback >"$RESULTS/$CASE.fb0.json"
		"$SMCCTL" --json stats >"$RESULTS/$CASE.st0.json"
		JUNK0=$(junk_lines)
	fi
	barrier "$CASE-go" 60
	if { [ "$ROLE" = hsrv ] && [ "$VM_INDEX" -eq 1 ]; } ||
	   { [ "$ROLE" = hcli ] && [ "$VM_INDEX" -eq 0 ]; }; then
		peer=$VM_IP_1
		[ "$ROLE" = hsrv ] && peer=$VM_IP_0
		timeout 60 "$SMCR_PY" "$HE" client "$peer" "$BYTES" 30 $P $H \
			>"$CF" 2>"$RESULTS/$CASE.client.err" ||
			log "$CASE: client exit $?: $(cat "$RESULTS/$CASE.client.err")"
		log "$CASE client: $(paste -sd' ' "$CF")"
	fi
	barrier "$CASE-done" 90
	if [ "$VM_INDEX" -eq 1 ]; then
		"$SMCCTL" --json fallback >"$RESULTS/$CASE.fb1.json"
		"$SMCCTL" --json stats >"$RESULTS/$CASE.st1.json"
		HSERR=$(hs_err_new "$RESULTS/$CASE.st0.json" "$RESULTS/$CASE.st1.json")
		JUNK1=$(junk_lines)
		fbrole=client
		[ "$ROLE" = hcli ] && fbrole=server
		FB=$(fb_new "$RESULTS/$CASE.fb0.json" "$RESULTS/$CASE.fb1.json" $fbrole)
		RES=$(jget "$CF" "$P" result)
		CSECS=$(jget "$CF" "$P" connect_secs)
		SECS=$(jget "$CF" "$P" secs)
		HEALTHY="" SRV_END=""
		"check_$CASE"
	fi
done
log "all cases in $((SECONDS - t_all)) s"
barrier cases-done 60

if [ "$VM_INDEX" -eq 0 ]; then
	cat "$RULES" | tee "$RESULTS/rules.final"
	while read -r line; do
		[[ $line == *"hits 0)" ]] && smcr_problem "rule never fired: $line"
	done <"$RULES"
	echo clear >"$RULES"
fi
kill "$SERVER" 2>/dev/null || true
wait "$SERVER" 2>/dev/null || true
if [ "$VM_INDEX" -eq 1 ]; then
	log "outcome table:"
	cat "$TABLE"
	cat "$SL"
fi
barrier end 60
smcr_verdict hostile
