#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A link group ends under a handshake that then falls back: the socket must
# be the intact TCP connection, without the abort mark the link group's end
# left on it.  Two VMs, --impl ours,hooks: VM 0 serves an AF_SMC echo, VM 1
# (the test-hooks flavour) is the client.
#
# VM 1 opens connection X (SMC-R, verified), then holds every new
# connection for 3 s right after it entered its link group
# (smc_faultinj/attach_delay_ms) and opens Y, which joins X's link group.
# One second into Y's hold, VM 1 breaks the link (smc/fail_link): the link
# group ends, X is aborted (ECONNABORTED) and Y's handshake, unable to
# confirm its buffer on the dead link, declines and falls back to TCP.
# Y must then read as a fresh TCP connection: SO_ERROR 0, no EPOLLERR or
# EPOLLHUP, 64 KiB echoed and verified, and sock_diag shows it as TCP
# with a fallback reason.  Before the fix, Y's SO_ERROR said ECONNABORTED
# and poll said EPOLLERR|EPOLLHUP on a working TCP stream.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

PORT=7401

[ "$VM_COUNT" -eq 2 ] || fail "hs-lgr-gone needs exactly two VMs"
smcr_setup

if [ "$VM_INDEX" -eq 0 ]; then
	run_bg server "$SMCR_PY" "$REPO/tests/vm/tools/hostile_echo.py" serve "$PORT"
	wait_file_line "$RESULTS/server.log" listening 30
	barrier listening
	barrier done 120
	kill "$BG_PID" 2>/dev/null || true
	log "hs-lgr-gone: server done"
	exit 0
fi

need_hooks smc_faultinj/attach_delay_ms
barrier listening

cat >/tmp/lgr-gone-cli.py <<'PY'
import errno, os, select, socket, sys, threading, time
ip, port, fi, ready, go = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
def conn():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256)  # IPPROTO_SMC
    s.settimeout(60)
    s.connect((ip, port))
    return s
def echo(s, n):
    data = bytes((i * 7 + 3) & 0xff for i in range(n))
    s.sendall(data)
    got = b""
    while len(got) < n:
        b = s.recv(n - len(got))
        if not b:
            break
        got += b
    return got == data
x = conn()
print("X echo", "ok" if echo(x, 1024) else "FAILED", flush=True)
open(fi + "/attach_delay_ms", "w").write("3000")
def breaker():
    time.sleep(1.0)
    open("/sys/kernel/debug/smc/fail_link", "w").write("1")
    print("link 1 failed by debugfs", flush=True)
t = threading.Thread(target=breaker)
t.start()
t0 = time.time()
y = conn()
t.join()
open(fi + "/attach_delay_ms", "w").write("0")
err = y.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
p = select.poll()
p.register(y, select.POLLIN | select.POLLOUT | select.POLLERR | select.POLLHUP)
ev = p.poll(0)
rev = ev[0][1] if ev else 0
print("Y connected after %.1f s: SO_ERROR %d (%s), poll 0x%x" % (
    time.time() - t0, err, errno.errorcode.get(err, "0"), rev), flush=True)
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.1)
ok = echo(y, 65536)
print("Y echo", "ok" if ok else "FAILED", flush=True)
try:
    xok = echo(x, 1024)
    print("X after the link's end: echo", "ok" if xok else "FAILED", flush=True)
except OSError as e:
    print("X after the link's end:", errno.errorcode.get(e.errno, e.errno), flush=True)
bad = err != 0 or (rev & (select.POLLERR | select.POLLHUP)) or not ok
sys.exit(1 if bad else 0)
PY
rm -f /tmp/lgr-ready /tmp/lgr-go
run_bg client "$SMCR_PY" /tmp/lgr-gone-cli.py "$VM_IP_0" "$PORT" "$FI" /tmp/lgr-ready /tmp/lgr-go
cli=$BG_PID
for _ in $(seq 300); do
	[ -e /tmp/lgr-ready ] && break
	kill -0 "$cli" 2>/dev/null || break
	sleep 0.2
done
[ -e /tmp/lgr-ready ] || fail "client: $(cat "$RESULTS/client.log")"
"$SMCCTL" --json connections >"$RESULTS/connections.json" ||
	fail "smcctl --json connections failed"
view=$(sock_view "$cli" name)
log "client's sockets: $(paste -sd';' <<<"$view")"
touch /tmp/lgr-go
rc=0
wait_bg "$cli" 60 || rc=$?
cat "$RESULTS/client.log"
barrier done 60
grep -q '^link 1 failed by debugfs' "$RESULTS/client.log" ||
	smcr_problem "the link was not broken"
grep -q '^X after the link.s end: ECONNABORTED' "$RESULTS/client.log" ||
	smcr_problem "X was not aborted: the link group did not end under Y's handshake"
# Y: the one connection that is TCP, with a reason
grep -Eq ' TCP [0-9]+ '"$PORT"' SMC_CLC_DECL_' <<<"$view" ||
	smcr_problem "Y is not a fallback with a reason: $(paste -sd';' <<<"$view")"
[ "$rc" -eq 0 ] || smcr_problem "Y after the fallback: $(grep -E '^Y ' "$RESULTS/client.log" | paste -sd';')"
smcr_verdict hs-lgr-gone
