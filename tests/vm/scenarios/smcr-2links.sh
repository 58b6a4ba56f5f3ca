#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SMC-R link groups with two links (LLC ADD_LINK), and failover.  VM 0
# serves, VM 1 is the client; any pairing of ours and dist.
#
# 1. One connection creates the link group.  With one rxe device per VM the
#    server's ADD_LINK offers no new path: the client refuses it (Linux
#    6.12 and ours alike), the link group keeps one link, and that is what
#    is checked; steps 2 and 3 then run on that one link (no failover).
#    With SMCR_SYM=1 (below) both VMs must show two ACTIVE links in it.
# 2. SMCR_CONNS (default 8) more connections echo SMCR_BYTES each, verified;
#    while they are held open, every link group with connections has two
#    ACTIVE links on both VMs, and a server running our module has spread
#    the connections over both links.
# 3. Failover (two links, a VM runs our module): FO_CONNS connections stream
#    FO_BYTES each; while the data moves, that VM breaks the link with the
#    highest number (its QP to the error state through
#    /sys/kernel/debug/smc/fail_link); that link must leave the ACTIVE
#    state within 30 s (a later link takes a new id and UID).  Every byte
#    must still arrive (smc_load verifies data and checksum) and the link
#    group must keep an ACTIVE link.
#
# SMCR_SYM=1 (smcr-sym.sh, two NICs): each VM also has eth1 with rxe1 (siw1
# with SMCR_RDMA=siw, where the links are iWARP ones) on a
# second LAN, addressed in eth0's subnet (without a prefix route, plus a
# host route to the peer's eth1) so that a Linux 6.12 peer accepts it as
# an alternate path.  The second link must then join rxe1 to rxe1 on both
# VMs (a symmetric link group), whichever module runs where; and when both
# run ours, the failover removes the client's rxe1 device (`rdma link
# delete`) instead of breaking a QP: its links must go, the connections
# move to rxe0 and every byte still arrives.
set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "smcr-2links needs exactly two VMs"
[ "$SMC_IMPL" != none ] || fail "smcr-2links needs an SMC module on both VMs"

PORT=5100
CONNS=${SMCR_CONNS:-8}
BYTES=${SMCR_BYTES:-4194304}
FO_CONNS=${FO_CONNS:-4}
FO_BYTES=${FO_BYTES:-33554432}
SECS=${SMCR_SECS:-150}

echo "$SMC_IMPL" >"$SHARED/impl-$VM_INDEX"
# Two links per link group (the default; set in case it was changed).
if [ "$SMC_IMPL" = ours ]; then
	sysctl -qw net.smc.smcr_max_links_per_lgr=2 ||
		fail "cannot allow two links per link group"
fi
SYM=${SMCR_SYM:-0}
[ "$SYM" != 1 ] || smcr_second_lan
smcr_setup
barrier setup
if [ "$SYM" = 1 ]; then
	# a Linux 6.12 peer takes the next hop's MAC from the neighbour
	# table as it is: resolve it before any link needs it
	busybox ping -c 1 -w 5 -I eth1 "$peer1" >/dev/null || fail "no ping to $peer1 on eth1"
	rdma link show | sed 's/^/  /'
fi
barrier eth1-up
# the VM that breaks a link: the server if it runs our module, else the client
if [ "$(cat "$SHARED/impl-0")" = ours ]; then
	FAILVM=0
elif [ "$(cat "$SHARED/impl-1")" = ours ]; then
	FAILVM=1
else
	FAILVM=-1
fi
WANT=2
if [ "$SYM" != 1 ]; then
	WANT=1
	FAILVM=-1
fi
FAIL_HOW=qp
[ "$SYM" = 1 ] && [ "$(cat "$SHARED/impl-0")$(cat "$SHARED/impl-1")" = oursours ] &&
	FAILVM=1 FAIL_HOW=rdma
log "want $WANT ACTIVE link(s) per link group; failover on vm$FAILVM"

# links_json FILE: smcctl --json links into FILE
links_json() {
	"$SMCCTL" --json links >"$1" 2>/dev/null || echo '{"links":[]}' >"$1"
}

# links_check FILE WANT SPREAD [SYM]: every link group with connections has
# WANT ACTIVE links; SPREAD=1: each of them carries connections; SYM=1:
# they are on different RDMA devices.  Prints PROBLEM lines.
links_check() {
	local all per lgr conns active idle devs

	if ! all=$(smcj links -f "$1") || ! per=$(smcj lgr-links -f "$1"); then
		echo "PROBLEM cannot read $1"
		return 0
	fi
	# all: LGR LINK_ID STATE IBDEV CONNS UID; per: LGR CONNS ACTIVE IDLE DEVS
	awk 'NF { n++ } NF && $2 > 0 { b++ } END { printf "%d link groups, %d with connections: ", n, b }' <<<"$per"
	awk 'NF { printf "%s%s link %s %s %s conns %s", sep, $1, $2, $4, $3, $5; sep = "; " }
		END { print "" }' <<<"$all"
	awk 'NF && $2 > 0 { b = 1 } END { exit b }' <<<"$per" &&
		echo "PROBLEM no link group with connections"
	while read -r lgr conns active idle devs; do
		[ -n "$lgr" ] && [ "$conns" -gt 0 ] || continue
		[ "$active" -eq "$2" ] ||
			echo "PROBLEM link group $lgr has $active ACTIVE links, want $2"
		[ "$3" != 1 ] || [ "$idle" -eq 0 ] ||
			echo "PROBLEM link group $lgr: connections not spread over its links"
		[ "${4:-0}" != 1 ] || [ "$devs" -eq "$active" ] ||
			echo "PROBLEM link group $lgr: links share an RDMA device ($(awk -v g="$lgr" '$1 == g && $3 == "ACTIVE" { printf "%s%s", sep, $4; sep = ", " }' <<<"$all")), want one per device"
	done <<<"$per"
	return 0
}

# wait_two_links SECS: until some link group shows two ACTIVE links
wait_two_links() {
	local end=$((SECONDS + $1)) per

	while [ $SECONDS -lt $end ]; do
		links_json "$RESULTS/links-wait.json"
		# LGR CONNS ACTIVE ...: some link group has two ACTIVE links
		if per=$(smcj lgr-links -f "$RESULTS/links-wait.json") &&
		   awk '$3 >= 2 { ok = 1 } END { exit !ok }' <<<"$per"; then
			return 0
		fi
		sleep 0.5
	done
	return 1
}

# links_gone BEFORE NOW ID: of the links that BEFORE lists ACTIVE with
# link id ID (keyed by link group, link id and link UID), none is ACTIVE
# in NOW (both `smcctl --json links` files); prints their states now.
links_gone() {
	local b a

	b=$(smcj links -f "$1") && a=$(smcj links -f "$2") || return 1
	# LGR LINK_ID STATE IBDEV CONNS UID, BEFORE's lines, "=", NOW's
	# (the guests have no /dev/fd for <(...))
	printf '%s\n=\n%s\n' "$b" "$a" | awk -v id="$3" '
		$0 == "=" { now_part = 1; next }
		!now_part { if ($3 == "ACTIVE" && $2 == id) key[++n] = $1 " " $2 " " $6; next }
		NF { now[$1 " " $2 " " $6] = $3 }
		END {
			ok = n > 0
			for (i = 1; i <= n; i++) {
				split(key[i], f, " ")
				st = key[i] in now ? now[key[i]] : "gone"
				if (st == "ACTIVE")
					ok = 0
				printf "%slgr %s link %s uid %s: %s", sep, f[1], f[2], f[3], st
				sep = ", "
			}
			print n ? "" : "no such link"
			exit !ok
		}'
}

# link_left BEFORE ID SECS: wait until none of the links that BEFORE (a
# `smcctl --json links` file) lists ACTIVE with link id ID is ACTIVE any
# more (the same link group, link id and link UID); smcctl failing counts
# as not yet.  Prints the state of those links.
link_left() {
	local end=$((SECONDS + $3)) out

	while :; do
		if "$SMCCTL" --json links >"$RESULTS/links-left.json" 2>/dev/null &&
		   out=$(links_gone "$1" "$RESULTS/links-left.json" "$2"); then
			echo "$out"
			return 0
		fi
		if [ $SECONDS -ge "$end" ]; then
			echo "${out:-smcctl --json links failed}"
			return 1
		fi
		sleep 0.5
	done
}

record() {
	local line

	log "$1: $(head -n 1 <<<"$2")"
	while read -r line; do
		[[ $line == PROBLEM* ]] && smcr_problem "$1: ${line#PROBLEM }"
	done <<<"$2"
	return 0
}

if [ "$VM_INDEX" -eq 0 ]; then
	run_bg smc_load-server smc_load -s -p "$PORT" \
		-n $((1 + CONNS + FO_CONNS)) -t $((3 * SECS))
	SRV=$BG_PID
	wait_file_line "$RESULTS/smc_load-server.log" listening 30
fi
barrier listening

# 1. first contact, then the second link
if [ "$VM_INDEX" -eq 1 ]; then
	rm -f /tmp/first-go /tmp/first-release
	run_bg smc_load-first smc_load -c "$VM_IP_0" -p "$PORT" -N 1 \
		-B 65536 -m echo -S 1 -W /tmp/first-release -t $((3 * SECS))
	FIRST=$BG_PID
	wait_file_line "$RESULTS/smc_load-first.log" "^smc_load: holding |^conns=" 60 ||
		fail "first connection did not get through"
fi
barrier first-held
if [ "$WANT" -eq 2 ]; then
	wait_two_links 20 || smcr_problem "no link group reached two ACTIVE links"
else
	sleep 5		# time for an ADD_LINK and its rejection
fi
links_json "$RESULTS/links-first.json"
record "links after first contact" "$(links_check "$RESULTS/links-first.json" "$WANT" 0 "$SYM")"
barrier two-links 60

# 2. more connections spread over both links, verified echo
smcr_snapshot before-main
if [ "$VM_INDEX" -eq 1 ]; then
	rm -f /tmp/main-go /tmp/main-release
	run_bg smc_load-client smc_load -c "$VM_IP_0" -p "$PORT" -N "$CONNS" \
		-B "$BYTES" -m echo -S $((0x5eed01)) -W /tmp/main-release \
		-t "$SECS"
	MAIN=$BG_PID
	smcr_client_at holding "$SECS"
fi
barrier main-held $((SECS + 45))
smcr_snapshot main-held
if [ "$VM_INDEX" -eq 1 ]; then
	smcr_expect_stats before-main main-held "$CONNS" 0
else
	smcr_expect_stats before-main main-held 0 "$CONNS"
fi
links_json "$RESULTS/links-main.json"
spread=0
[ "$VM_INDEX" -eq 0 ] && [ "$SMC_IMPL" = ours ] && [ "$WANT" -eq 2 ] && spread=1
record "links under load" "$(links_check "$RESULTS/links-main.json" "$WANT" "$spread" "$SYM")"
barrier main-checked
if [ "$VM_INDEX" -eq 1 ]; then
	touch /tmp/main-release
	wait_bg "$MAIN" 60 || smcr_problem "echo client failed: $(smcr_load_errors client)"
	cat "$RESULTS/smc_load-client.log"
	grep -qx "conns=$CONNS bytes=$((CONNS * BYTES)) ok" "$RESULTS/smc_load-client.log" ||
		smcr_problem "echo summary is not 'conns=$CONNS bytes=$((CONNS * BYTES)) ok'"
fi
barrier main-done 90

# 3. failover while data moves
if [ "$FAILVM" -ge 0 ]; then
	if [ "$VM_INDEX" -eq 1 ]; then
		run_bg smc_load-fo smc_load -c "$VM_IP_0" -p "$PORT" -N "$FO_CONNS" \
			-B "$FO_BYTES" -m stream -S $((0x5eed02)) -W /tmp/fo-release \
			-t "$SECS"
		FO=$BG_PID
	fi
	if [ "$VM_INDEX" -eq "$FAILVM" ] && [ "$FAIL_HOW" = rdma ]; then
		sleep 3
		log "removing $DEV1 while data moves"
		rdma link delete "$DEV1" || smcr_problem "rdma link delete $DEV1 failed"
		links_json "$RESULTS/links-after-delete.json"
		record "links right after $DEV1 went" "$(links_check "$RESULTS/links-after-delete.json" 1 0 |
			sed 's/^PROBLEM \(.*\) has \([2-9]\) ACTIVE links, want 1$/(\1 has \2 ACTIVE links again)/')"
		grep -q "\"ibdev\":\"$DEV1\"" "$RESULTS/links-after-delete.json" &&
			smcr_problem "a link is still on $DEV1 after its removal"
	elif [ "$VM_INDEX" -eq "$FAILVM" ]; then
		debugfs_up
		sleep 3
		links_json "$RESULTS/links-before-fail.json"
		# LGR LINK_ID STATE IBDEV CONNS UID: the highest ACTIVE link id
		# with connections
		id=$(smcj links -f "$RESULTS/links-before-fail.json" |
			awk '$3 == "ACTIVE" && $5 > 0 && (!f || $2 > m) { m = $2; f = 1 } END { if (f) print m }')
		if [ -n "$id" ]; then
			log "breaking link $id"
			echo "$id" >/sys/kernel/debug/smc/fail_link ||
				smcr_problem "cannot write /sys/kernel/debug/smc/fail_link"
			if out=$(link_left "$RESULTS/links-before-fail.json" "$id" 30); then
				log "link $id left ACTIVE: $out"
			else
				smcr_problem "link $id still ACTIVE 30 s after fail_link: $out"
			fi
		else
			smcr_problem "no active link with connections to break"
		fi
	fi
	if [ "$VM_INDEX" -eq 1 ]; then
		wait_file_line "$RESULTS/smc_load-fo.log" "^smc_load: holding |^conns=|timed out" $((SECS + 40)) ||
			smcr_problem "failover client neither held nor ended"
	fi
	barrier fo-held $((SECS + 45))
	links_json "$RESULTS/links-after-fail.json"
	record "links after failover" "$(links_check "$RESULTS/links-after-fail.json" 1 0 |
		sed 's/^PROBLEM \(.*\) has \([2-9]\) ACTIVE links, want 1$/(\1 has \2 ACTIVE links again)/')"
	barrier fo-checked
	if [ "$VM_INDEX" -eq 1 ]; then
		touch /tmp/fo-release
		wait_bg "$FO" 60 || smcr_problem "failover client failed: $(smcr_load_errors fo)"
		cat "$RESULTS/smc_load-fo.log"
		grep -qx "conns=$FO_CONNS bytes=$((FO_CONNS * FO_BYTES)) ok" "$RESULTS/smc_load-fo.log" ||
			smcr_problem "failover summary is not 'conns=$FO_CONNS bytes=$((FO_CONNS * FO_BYTES)) ok'"
	fi
	barrier fo-done 90
else
	log "failover: skipped (one link, or no VM runs our module)"
fi

if [ "$VM_INDEX" -eq 1 ]; then
	touch /tmp/first-release
	wait_bg "$FIRST" 60 || smcr_problem "first connection failed"
fi
barrier first-closed 90
if [ "$VM_INDEX" -eq 0 ]; then
	if [ "$FAILVM" -lt 0 ]; then
		# the failover connections never come: stop waiting for them
		sleep 2
		kill "$SRV" 2>/dev/null || true
		wait "$SRV" 2>/dev/null || true
	else
		wait_bg "$SRV" 90 || smcr_problem "smc_load server failed: $(smcr_load_errors server)"
	fi
	cat "$RESULTS/smc_load-server.log"
fi
smcr_verdict smcr-2links
