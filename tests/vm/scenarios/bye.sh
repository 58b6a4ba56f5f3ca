#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A host that stops using its link groups tells its peer, which must not
# keep a link group whose other end is gone.  One VM (the actor, VM
# SMCR_BYE_BY, default 1: the client) does the event SMCR_BYE; the other
# (the peer) measures how long its link group outlives the event.
#
#   poweroff  power-off by reboot(2) (the reboot notifiers run) under a
#             live connection
#   reboot    the same with a restart
#   unload    all connections closed, then rmmod smc
#   idle      all connections closed, the link group idles out (the
#             actor runs the test-hooks module: debugfs smc/idle_secs=3)
#   rxedel    rdma link delete rxe0 under a live connection
#   reset     power cut (sysrq b: nothing is sent) under a live connection
#
# VM 0 serves an echo (hostile_echo.py), VM 1 checks a 256 KiB echo byte
# by byte, then (live events) keeps one connection trickling 100 bytes
# every 0.3 s, each echo compared (hold_conns.py trickle).  At the event
# that connection was alive (no mismatch, no error).  Afterwards the peer's
# connection has ended (an error on the client; the server's echo loop
# sees an error or, with Linux's module, EOF) and its link group is gone
# (smcctl --json linkgroups lists none) within 2 s of the event (times
# VM_SLOW), or, when the actor says nothing (reset, SMCR_BYE_SILENT=1),
# within the peer's keepalive (net.smc.smcr_testlink_time set to 3 s on
# the peer) plus 6 s; its
# connection ended with an error, not a hang.  Both VMs power off within
# 10 s (vmtest judges that).  The peer's times go to its log and to
# $RESULTS/bye.row.
#
# Run: tests/vm/vmtest --vms 2 --impl ours,ours scenarios/bye.sh
#      (SMCR_BYE=unload SMCR_BYE_BY=0 ... in the environment)

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

HE=$REPO/tests/vm/tools/hostile_echo.py
HC=$REPO/tests/vm/tools/hold_conns.py
PORT=7720
EVENT=${SMCR_BYE:-poweroff}
BY=${SMCR_BYE_BY:-1}
GO=$SHARED/.bye.go

[ "$VM_COUNT" -eq 2 ] || fail "bye needs exactly two VMs"
case "$EVENT" in
poweroff | reboot | rxedel | reset) live=1 ;;
unload | idle) live=0 ;;
*) fail "SMCR_BYE: poweroff, reboot, unload, idle, rxedel or reset" ;;
esac
smcr_setup

# lgr_count: link groups this VM's module lists, with or without
# connections (it counts "id" fields: no Python start per poll)
lgr_count() {
	local out

	out=$("$SMCCTL" --json linkgroups) || return 1
	[[ $out == *'"linkgroups"'* ]] || return 1
	awk -F'"id":' '{ n += NF - 1 } END { print n + 0 }' <<<"$out"
}

# The module's trace events (ours and Linux's have events/smc), kept in
# $RESULTS/trace: what happened when, should a bound be missed.
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs nodev $T 2>/dev/null || true
if [ -d $T/events/smc ]; then
	echo 1 >$T/events/smc/enable
	echo 1 >$T/tracing_on
fi
save_trace() {
	[ ! -r $T/trace ] || cat $T/trace >"$RESULTS/trace" 2>/dev/null || true
}

# ms_since T0: milliseconds since T0 (date +%s%N)
ms_since() {
	echo $((($(date +%s%N) - $1) / 1000000))
}

if [ "$VM_INDEX" -eq "$BY" ] && [ "$EVENT" = idle ]; then
	need_hooks smc/idle_secs
	echo 3 >/sys/kernel/debug/smc/idle_secs || fail "cannot set smc/idle_secs"
fi
# SMCR_BYE_SILENT=1: the actor tells the peer nothing (Linux 6.12 deleting
# its RDMA device), so the peer's keepalive must find out, as after a
# power cut
silent=${SMCR_BYE_SILENT:-0}
[ "$EVENT" != reset ] || silent=1
if [ "$VM_INDEX" -ne "$BY" ] && [ "$silent" -eq 1 ]; then
	sysctl -qw net.smc.smcr_testlink_time=3 ||
		fail "cannot set net.smc.smcr_testlink_time"
fi

if [ "$VM_INDEX" -eq 0 ]; then
	run_bg serve "$SMCR_PY" "$HE" serve "$PORT"
	SERVE_PID=$BG_PID
	wait_tcp_port 127.0.0.1 "$PORT" 30
fi
barrier listening

if [ "$VM_INDEX" -eq 1 ]; then
	out=$("$SMCR_PY" "$HE" client "$VM_IP_0" 262144 60 "$PORT")
	log "echo: $out"
	[[ $out == *'"result": "ok"'* ]] || fail "the 256 KiB echo failed: $out"
	if [ "$live" -eq 1 ]; then
		run_bg trickle "$SMCR_PY" "$HC" trickle "$VM_IP_0" "$PORT" 0.3 600
		TRICKLE_PID=$BG_PID
		# Python and its connect can take seconds on a loaded host:
		# the link group is checked only once the trickle is in it
		wait_file_line "$RESULTS/trickle.log" '"connected"|"trickle"' 60
		kill -0 "$TRICKLE_PID" 2>/dev/null ||
			fail "the trickle ended early: $(cat "$RESULTS/trickle.log")"
	fi
fi
barrier connected 60

# both: the link group is there, with the live connection if any
n=$(lgr_count) || fail "smcctl linkgroups failed"
[ "$n" -ge 1 ] || fail "no link group before the event"
if [ "$live" -eq 1 ]; then
	smcr_expect_linkgroups 1 1
else
	smcr_expect_linkgroups 0 0
fi
smcr_verdict "before $EVENT"
barrier checked

if [ "$VM_INDEX" -eq "$BY" ]; then
	[ "$live" -eq 0 ] || [ "$VM_INDEX" -eq 0 ] || kill -0 "$TRICKLE_PID" ||
		fail "the trickle ended before the event: $(cat "$RESULTS/trickle.log")"
	log "event: $EVENT"
	save_trace
	case "$EVENT" in
	poweroff | reboot)
		echo 0 >"$RESULTS/exit_code"
		dmesg >"$RESULTS/dmesg" 2>&1
		: >"$RESULTS/done"
		sync
		# reboot(2), the notifiers run as for a power-off by systemd;
		# the go mark right before it, from the same process
		how=0x4321fedc
		[ "$EVENT" = poweroff ] || how=0x01234567
		"$SMCR_PY" -c "import ctypes; open('$GO', 'w').close(); open('/dev/kmsg', 'w').write('smcvm: reboot(2) $EVENT\\n'); ctypes.CDLL(None).reboot($how)"
		sleep 60
		exit 1 ;;
	reset)
		: >"$GO"
		vm_reset_now ;;
	unload)
		[ "$VM_INDEX" -ne 0 ] || { kill "$SERVE_PID"; wait "$SERVE_PID" || true; }
		nap 1
		: >"$GO"
		t0=$(date +%s%N)
		# (not modprobe -r: it would take smc along)
		rmmod smc_diag 2>/dev/null || true
		smc_rmmod || fail "rmmod smc: $(lsmod | grep '^smc')"
		log "rmmod took $(ms_since "$t0") ms" ;;
	idle)
		# the idle timer ends it 3 s after the last connection
		t0=$(date +%s%N)
		while n=$(lgr_count) && [ "$n" -gt 0 ]; do
			[ "$(ms_since "$t0")" -lt $((20000 * ${VM_SLOW:-1})) ] ||
				fail "the idle link group is still there after 20 s"
			nap 0.1
		done
		: >"$GO"
		log "idle end after $(ms_since "$t0") ms" ;;
	rxedel)
		: >"$GO"
		rdma link delete rxe0 || fail "rdma link delete rxe0" ;;
	esac
	barrier ended 120
	save_trace
	smcr_verdict "bye $EVENT (actor)"
	exit 0
fi

# ---- the peer ----
deadline=$((SECONDS + 60 * ${VM_SLOW:-1}))
until [ -e "$GO" ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "the actor never started the event"
	nap 0.05
done
t0=$(date +%s%N)
if [ "$silent" -eq 1 ]; then
	limit=$((9000 * ${VM_SLOW:-1}))
else
	limit=$((2000 * ${VM_SLOW:-1}))
fi
fails=0
while :; do
	# a netlink dump racing a link group's end may fail: only a run of
	# failures is one
	if ! n=$(lgr_count 2>>"$RESULTS/smcctl-poll.err"); then
		fails=$((fails + 1))
		[ "$fails" -lt 20 ] || {
			smcr_problem "smcctl linkgroups failed 20 times: $(tail -n 1 "$RESULTS/smcctl-poll.err")"
			break
		}
		nap 0.05
		continue
	fi
	fails=0
	[ "$n" -gt 0 ] || break
	if [ "$(ms_since "$t0")" -gt $((60000 * ${VM_SLOW:-1})) ]; then
		smcr_problem "the link group is still there 60 s after the event"
		break
	fi
	nap 0.05
done
gone=$(ms_since "$t0")
save_trace
log "link group gone $gone ms after the event ($EVENT by vm$BY, limit $limit ms)"
[ "$gone" -le "$limit" ] ||
	smcr_problem "the link group outlived the event by $gone ms (limit $limit)"

if [ "$live" -eq 1 ]; then
	# the live connection ended with an error, all its echoes right
	if [ "$VM_INDEX" -eq 1 ]; then
		wait_bg "$TRICKLE_PID" 30 || true
		res=$(cat "$RESULTS/trickle.log")
		log "trickle: $res"
		[[ $res == *'"trickle": "E'* ]] ||
			smcr_problem "the live connection did not end with an error: $res"
	else
		# the 256 KiB echo's record, then the trickle's (Linux's
		# module reads a killed connection as EOF, ours as an error)
		deadline=$((SECONDS + 30 * ${VM_SLOW:-1}))
		while [ "$(grep -c "\"peer\": \"$VM_IP_1:" "$RESULTS/serve.log")" -lt 2 ]; do
			[ "$SECONDS" -lt "$deadline" ] || break
			nap 0.2
		done
		res=$(grep "\"peer\": \"$VM_IP_1:" "$RESULTS/serve.log" | sed -n 2p)
		log "served: $res"
		[[ $res =~ \"bytes\":\ [1-9][0-9]*00, ]] ||
			smcr_problem "the live connection did not end within 30 s, or without echoing: '$res'"
	fi
fi
echo "$EVENT vm$BY $SMC_IMPL gone_ms=$gone" >"$RESULTS/bye.row"
case "$EVENT" in
unload | idle | rxedel) barrier ended 120 ;;
esac
smcr_verdict "bye $EVENT (peer)"
