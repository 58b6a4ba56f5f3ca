#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stalled handshakes must not stall an SMC listener (issue 14, H4).
# Three VMs, run with --impl ours,hooks,ours:
#
#   VM 0  an SMC listener (IPPROTO_SMC, backlog 128) that accepts and
#         echoes everything;
#   VM 1  the test-hooks flavour, a hostile client: it keeps
#         SMCR_STALL_CONNS (200) handshakes with VM 0 in flight, the first
#         SMCR_STALL_SILENT (100) silent after the TCP handshake (their
#         proposal is never sent), the others never confirming the
#         server's accept; a handshake that ends is replaced;
#   VM 2  a normal client: SMCR_LEGIT_CONNS (5) connects, one after the
#         other, each echoing 64 KiB (checked byte by byte); each must be
#         connected within SMCR_LEGIT_MAX_S (1.0 times VM_SLOW) s, every one
#         must be an SMC-R v2 connection (smcctl stats: +N client
#         handshakes, no fallback).
#
# Each legit connect time is printed ("legit conn=I connect=S").
#
# SMCR_LEGIT_EXPECT=tcp checks the listener's bound instead: with more
# stalled handshakes than SMC_LISTEN_HS_MAX (256; e.g. SMCR_STALL_CONNS=300
# SMCR_STALL_SILENT=300), VM 2's connects must still be quick, as plain
# TCP: each a client fallback with reason PEERNOSMC (0x03010000).

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 3 ] || fail "hs-stall needs exactly three VMs"
PORT=5300
STALL=${SMCR_STALL_CONNS:-200}
SILENT=${SMCR_STALL_SILENT:-100}
LEGIT=${SMCR_LEGIT_CONNS:-5}
EXPECT=${SMCR_LEGIT_EXPECT:-smcr}
# the bound stretches with a slow (debug) kernel: SMC_VM_SLOW, as VM_SLOW
MAXS=${SMCR_LEGIT_MAX_S:-$(awk -v s="${VM_SLOW:-1}" 'BEGIN { print 1.0 * s }')}
IPPROTO_SMC=256

smcr_setup

case "$VM_INDEX" in
0)
	cat >/tmp/hs-server.py <<'PY'
import os, selectors, socket, sys, time
port, stop = int(sys.argv[1]), sys.argv[2]
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("0.0.0.0", port))
ls.listen(128)
ls.setblocking(False)
sel = selectors.DefaultSelector()
sel.register(ls, selectors.EVENT_READ)
print("server listening", flush=True)
accepted = echoed = 0
end = time.time() + 280
while not os.path.exists(stop) and time.time() < end:
    for key, _ in sel.select(0.5):
        s = key.fileobj
        if s is ls:
            try:
                c, _ = ls.accept()
            except OSError:
                continue
            accepted += 1
            c.setblocking(False)
            sel.register(c, selectors.EVENT_READ)
            continue
        try:
            d = s.recv(65536)
        except OSError:
            d = b""
        if not d:
            sel.unregister(s)
            s.close()
            continue
        s.setblocking(True)
        s.settimeout(10)
        try:
            s.sendall(d)
            echoed += len(d)
        except OSError:
            sel.unregister(s)
            s.close()
            continue
        s.setblocking(False)
print("server accepted=%d echoed=%d" % (accepted, echoed), flush=True)
PY
	run_bg server python3 /tmp/hs-server.py "$PORT" "$SHARED/stop"
	wait_file_line "$RESULTS/server.log" "server listening" 60
	barrier ready
	barrier flood 240
	barrier done 240
	touch "$SHARED/stop"
	wait_bg "$BG_PID" 30 || fail "echo server failed"
	cat "$RESULTS/server.log"
	;;
1)
	need_hooks smc_hostile/rules
	echo "clc proposal stall port $PORT count $SILENT" >"$RULES"
	echo "clc confirm stall port $PORT" >"$RULES"
	barrier ready
	cat >/tmp/hs-holder.py <<'PY'
import errno, os, select, socket, sys, time
ip, port, n, stop = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def start():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256)
    s.setblocking(False)
    rc = s.connect_ex((ip, port))
    if rc not in (0, errno.EINPROGRESS):
        s.close()
        return None
    return s
socks = [s for s in (start() for _ in range(n)) if s]
print("holder started %d" % len(socks), flush=True)
done = 0
end = time.time() + 250
p = select.poll()
for s in socks:
    p.register(s, select.POLLOUT)
by_fd = {s.fileno(): s for s in socks}
last = 0
while not os.path.exists(stop) and time.time() < end:
    for fd, ev in p.poll(500):
        s = by_fd.pop(fd)
        p.unregister(fd)
        s.close()
        done += 1
        t = start()
        if t:
            by_fd[t.fileno()] = t
            p.register(t, select.POLLOUT)
    if time.time() - last > 5:
        last = time.time()
        print("holder in_flight=%d ended=%d" % (len(by_fd), done), flush=True)
print("holder end in_flight=%d ended=%d" % (len(by_fd), done), flush=True)
PY
	run_bg holder python3 /tmp/hs-holder.py "$VM_IP_0" "$PORT" "$STALL" \
		"$SHARED/stop"
	wait_file_line "$RESULTS/holder.log" "holder started" 120
	sleep 3
	barrier flood 240
	barrier done 240
	touch "$SHARED/stop"
	wait_bg "$BG_PID" 30 || true
	cat "$RESULTS/holder.log"
	cat "$RULES"
	;;
2)
	barrier ready
	barrier flood 240
	smcr_snapshot before
	rc=0
	python3 - "$VM_IP_0" "$PORT" "$LEGIT" "$MAXS" <<'PY' || rc=$?
import os, socket, sys, time
ip, port, n, maxs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
bad = 0
for i in range(1, n + 1):
    data = os.urandom(65536)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256)
    s.settimeout(20)
    t0 = time.monotonic()
    try:
        s.connect((ip, port))
    except OSError as e:
        print("legit conn=%d connect=%.3fs FAILED %s" % (i, time.monotonic() - t0, e), flush=True)
        bad += 1
        s.close()
        continue
    dt = time.monotonic() - t0
    got = b""
    try:
        s.sendall(data)
        while len(got) < len(data):
            d = s.recv(65536)
            if not d:
                break
            got += d
    except OSError as e:
        print("legit conn=%d data: %s" % (i, e), flush=True)
    ok = got == data
    print("legit conn=%d connect=%.3fs bytes=%d %s" % (i, dt, len(got), "ok" if ok and dt < maxs else "FAILED"), flush=True)
    bad += not ok or dt >= maxs
    s.close()
sys.exit(1 if bad else 0)
PY
	smcr_snapshot after
	if [ "$EXPECT" = tcp ]; then
		smcr_delta before after
		# D_why_client=NAME:COUNT,...: PEERNOSMC is 0x03010000
		n=$(tr , '\n' <<<"$D_why_client" |
			awk -F: '$1 == "PEERNOSMC" { n += $2 } END { print n + 0 }')
		log "PEERNOSMC fallbacks as client: +$n"
		[ "$n" = "$LEGIT" ] ||
			smcr_problem "$n PEERNOSMC fallbacks as client, want $LEGIT"
	else
		smcr_expect_stats before after "$LEGIT" 0
	fi
	barrier done 240
	[ "$rc" = 0 ] || smcr_problem "legit connects slow, failed or data wrong"
	smcr_verdict hs-stall
	;;
esac
log "hs-stall vm$VM_INDEX done"
