#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Close while the handshake runs: AF_SMC sockets are closed right after a
# non-blocking connect (to a listener on this host, to a closed port, and to
# an address that never answers), and listeners are closed while clients
# are still in the handshake.  Hundreds of rounds; the kernel must stay
# quiet (no oops, warning or leak of the module: it must unload at the end).

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$SMC_IMPL" = ours ] || fail "needs our module"
# 192.0.2.1 (TEST-NET-1) is routed out of eth0 and never answers inside the
# emulated LAN: a connect to it stays in SYN_SENT.
ip route add 192.0.2.0/24 dev eth0 2>/dev/null || true

python3 - <<'PY' || fail "close race"
import ctypes, os, signal, socket, struct, sys
signal.alarm(240)
ROUNDS = 1500
libc = ctypes.CDLL(None, use_errno=True)

def addr(ip, port):
    return struct.pack("=H", socket.AF_INET) + struct.pack("!H", port) + \
        socket.inet_aton(ip) + bytes(8)

def check(rc, what):
    if rc < 0:
        raise OSError(ctypes.get_errno(), what)
    return rc

def smc_socket(flags=0):
    return check(libc.socket(43, socket.SOCK_STREAM | flags, 0), "socket")

def listener(port):
    fd = smc_socket(socket.SOCK_NONBLOCK)
    one = ctypes.c_int(1)
    # closed connections of the previous listener sit in TIME_WAIT
    check(libc.setsockopt(fd, socket.SOL_SOCKET, socket.SO_REUSEADDR,
                          ctypes.byref(one), 4), "SO_REUSEADDR")
    a = addr("127.0.0.1", port)
    check(libc.bind(fd, a, len(a)), "bind")
    check(libc.listen(fd, 64), "listen")
    return fd

lst = listener(5010)
targets = [addr("127.0.0.1", 5010), addr("127.0.0.1", 5011),
           addr("192.0.2.1", 5010)]
for i in range(ROUNDS):
    fd = smc_socket(socket.SOCK_NONBLOCK)
    t = targets[i % 3]
    libc.connect(fd, t, len(t))
    if i % 100 == 0:
        print("round", i, file=sys.stderr, flush=True)
    if i % 7 == 0:
        os.sched_yield()
    libc.close(fd)
    if i % 50 == 49:
        # drain what the listener took, then close it with clients in flight
        while True:
            a = libc.accept4(lst, None, None, socket.SOCK_NONBLOCK)
            if a < 0:
                break
            libc.close(a)
        pending = []
        for _ in range(8):
            c = smc_socket(socket.SOCK_NONBLOCK)
            libc.connect(c, targets[0], len(targets[0]))
            pending.append(c)
        libc.close(lst)
        for c in pending:
            libc.close(c)
        lst = listener(5010)
libc.close(lst)
print(ROUNDS, "rounds done", file=sys.stderr)
PY
# Everything is closed: the module must be free to go within a bounded time.
for _ in $(seq 1 40); do
	smc_rmmod 2>/dev/null && break
	sleep 0.5
done
lsmod | grep -q '^smc ' && fail "module still in use after all sockets closed"
log "fb-close-race ok"
