#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The smc trace events (net/smc/trace.h), read back from the trace buffer
# of each VM with every event of events/smc enabled:
#   1. one SMC-R echo connection, VM 1 to VM 0 (smc_load, BYTES of data
#      after its 32-byte header): each side shows one smcr_lgr_create in
#      its role, smcr_link_up on rxe0, and smc_tx_sendmsg/smc_rx_recvmsg
#      lines of that link group whose lengths add up to exactly what the
#      side sent and received; nothing falls back;
#   2. an AF_SMC client to a plain TCP server: the client shows one
#      smc_switch_to_fallback with reason PEERNOSMC (0x03010000) and no
#      data event (fallback data bypasses SMC);
#   3. VM 1 breaks its link (debugfs fail_link): smcr_link_down for that
#      link on rxe0, from state ACTIVE, then smcr_lgr_terminate.
# Our module only (fail_link and the lgr/link events are ours).

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "trace needs exactly two VMs"
[ "$SMC_IMPL" = ours ] || fail "trace needs our module on both VMs"
PY=/usr/bin/python3
T=/sys/kernel/tracing
BYTES=${TRACE_BYTES:-200000}
HDR=32			# smc_load's per-connection header, client to server
PORT=5400
FBPORT=5401

[ -e "$T/trace" ] || mount -t tracefs nodev "$T" || fail "cannot mount tracefs"
[ -d "$T/events/smc" ] || fail "no $T/events/smc: the module has no trace events"
for ev in smc_switch_to_fallback smc_tx_sendmsg smc_rx_recvmsg smcr_link_down \
	  smcr_link_up smcr_lgr_create smcr_lgr_terminate; do
	[ -d "$T/events/smc/$ev" ] || fail "event smc/$ev missing"
done
echo 0 >"$T/tracing_on"
echo 2048 >"$T/buffer_size_kb"
echo >"$T/trace"
echo 1 >"$T/events/smc/enable"
echo 1 >"$T/tracing_on"

# snap NAME: save the trace buffer as $RESULTS/trace-NAME.txt and clear it.
snap() {
	cat "$T/trace" >"$RESULTS/trace-$1.txt"
	echo >"$T/trace"
	log "trace $1: $(grep -c ': smc' "$RESULTS/trace-$1.txt") smc events"
}

# check NAME PYTHON: run checks on the events of trace-NAME.txt: ev(name)
# is the list of that event's fields (dicts); bad(msg) records a failure.
check() {
	local out

	out=$(F="$RESULTS/trace-$1.txt" I="$VM_INDEX" B="$BYTES" H="$HDR" \
		$PY -c "import os, re
env = os.environ
me, nbytes, hdr = int(env['I']), int(env['B']), int(env['H'])
events = []
lost = False
for line in open(env['F']):
    if 'LOST' in line:
        lost = True
    m = re.search(r' (smcr?_[a-z_]+): (.*)$', line)
    if m:
        f = dict(kv.split('=', 1) for kv in m.group(2).split() if '=' in kv)
        f['_line'] = line.strip()
        events.append((m.group(1), f))
ev = lambda n: [f for e, f in events if e == n]
problems = []
bad = problems.append
if lost:
    bad('events were lost')
$2
for p in problems:
    print(p)
") || fail "check script for $1 failed"
	[ -z "$out" ] || fail "$1: $(paste -sd';' <<<"$out")"
}

# --- 1. SMC-R echo ---
case "$VM_INDEX" in
0)
	run_bg load-server smc_load -s -p "$PORT" -n 1 -t 60
	server=$BG_PID
	wait_file_line "$RESULTS/load-server.log" listening 30
	barrier listening
	wait_bg "$server" 70 || fail "smc_load server: $(tail -n 3 "$RESULTS/load-server.log")"
	;;
1)
	barrier listening
	smc_load -c "$VM_IP_0" -p "$PORT" -N 1 -B "$BYTES" -m echo -t 60 \
		>"$RESULTS/load-client.log" 2>&1 ||
		fail "smc_load client: $(tail -n 3 "$RESULTS/load-client.log")"
	;;
esac
barrier echoed
snap smcr
check smcr '
role = "server" if me == 0 else "client"
sent = nbytes + (hdr if me == 1 else 0)
rcvd = nbytes + (hdr if me == 0 else 0)
lg = ev("smcr_lgr_create")
if len(lg) != 1 or lg[0]["role"] != role or lg[0]["dev"] != "rxe0":
    bad("smcr_lgr_create: %r, want one %s on rxe0" % ([f["_line"] for f in lg], role))
ups = ev("smcr_link_up")
if not ups or any(u["dev"] != "rxe0" for u in ups):
    bad("smcr_link_up: %r, want a link up on rxe0" % [f["_line"] for f in ups])
lgr = lg[0]["id"] if lg else None
for name, want in (("smc_tx_sendmsg", sent), ("smc_rx_recvmsg", rcvd)):
    es = ev(name)
    total = sum(int(f["len"]) for f in es)
    if total != want:
        bad("%s: %d lines, %d bytes, want %d" % (name, len(es), total, want))
    others = [f["lgr"] for f in es if f["lgr"] != lgr]
    if others:
        bad("%s: link groups %r, want only %s" % (name, sorted(set(others)), lgr))
    if any(f["link"] == "0" or f["token"] == "0" for f in es):
        bad("%s: a line without link or token" % name)
if ev("smc_switch_to_fallback"):
    bad("fell back: %s" % ev("smc_switch_to_fallback")[0]["_line"])
'
log "SMC-R echo traced: $(grep -c smc_tx_sendmsg "$RESULTS/trace-smcr.txt") sends, $(grep -c smc_rx_recvmsg "$RESULTS/trace-smcr.txt") receives"
barrier checked-smcr

# --- 2. fallback: AF_SMC client, plain TCP server ---
case "$VM_INDEX" in
0)
	run_bg fb-server smc_load -s -f inet -p "$FBPORT" -n 1 -t 60
	server=$BG_PID
	wait_file_line "$RESULTS/fb-server.log" listening 30
	barrier fb-listening
	wait_bg "$server" 70 || fail "TCP server: $(tail -n 3 "$RESULTS/fb-server.log")"
	;;
1)
	barrier fb-listening
	smc_load -c "$VM_IP_0" -f smc -p "$FBPORT" -N 1 -B 1000 -m echo -t 60 \
		>"$RESULTS/fb-client.log" 2>&1 ||
		fail "fallback client: $(tail -n 3 "$RESULTS/fb-client.log")"
	;;
esac
barrier fb-done
snap fallback
if [ "$VM_INDEX" -eq 1 ]; then
	check fallback '
fb = ev("smc_switch_to_fallback")
if len(fb) != 1 or int(fb[0]["fallback_rsn"]) != 0x03010000:
    bad("smc_switch_to_fallback: %r, want one with 0x03010000 (PEERNOSMC)" % [f["_line"] for f in fb])
elif fb[0]["clcsk"] in ("(null)", "0000000000000000"):
    bad("fallback without a clcsock: %s" % fb[0]["_line"])
for name in ("smc_tx_sendmsg", "smc_rx_recvmsg", "smcr_lgr_create"):
    if ev(name):
        bad("%s on a fallback connection: %s" % (name, ev(name)[0]["_line"]))
'
	log "fallback traced: $(grep smc_switch_to_fallback "$RESULTS/trace-fallback.txt" | sed 's/.*: smc_switch/smc_switch/')"
fi
barrier checked-fallback

# --- 3. the client breaks its link ---
if [ "$VM_INDEX" -eq 1 ]; then
	D=/sys/kernel/debug
	debugfs_up
	[ -w "$D/smc/fail_link" ] || fail "no $D/smc/fail_link"
	id=$(sed -n 's/.* smcr_link_up: .* link=\([0-9]*\) .*/\1/p' "$RESULTS/trace-smcr.txt" | head -n 1)
	[ -n "$id" ] || fail "no link id in the smcr_link_up lines"
	log "breaking link $id"
	echo "$id" >"$D/smc/fail_link" || fail "cannot write $D/smc/fail_link"
	deadline=$((SECONDS + 15))
	until grep -q ' smcr_lgr_terminate: ' "$T/trace"; do
		[ "$SECONDS" -lt "$deadline" ] || break
		sleep 0.2
	done
	snap linkdown
	ID=$id check linkdown '
down = ev("smcr_link_down")
if len(down) != 1:
    bad("smcr_link_down: %r, want one" % [f["_line"] for f in down])
else:
    d = down[0]
    if d["link"] != os.environ["ID"] or d["dev"] != "rxe0" or d["state"] != "3":
        bad("smcr_link_down: %s, want link %s on rxe0 from state 3 (ACTIVE)" % (d["_line"], os.environ["ID"]))
    if "location=0x" in d["_line"]:
        bad("smcr_link_down location not symbolized: %s" % d["_line"])
if len(ev("smcr_lgr_terminate")) != 1:
    bad("smcr_lgr_terminate: %r, want one" % [f["_line"] for f in ev("smcr_lgr_terminate")])
'
	log "link down traced: $(grep -h 'smcr_link_down\|smcr_lgr_terminate' "$RESULTS/trace-linkdown.txt" | sed 's/.*: smcr_/smcr_/' | paste -sd';')"
fi
barrier finished 60
echo 0 >"$T/events/smc/enable"
log "trace ok"
