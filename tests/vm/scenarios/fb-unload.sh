#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module lifetime: while AF_SMC sockets (a listener and established
# connections over loopback) are open the module must refuse to unload;
# once they are closed it must unload cleanly and load again.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$SMC_IMPL" = ours ] || fail "needs our module"
# Hold a listener, 50 established pairs and 50 connections still in the
# accept queue while trying to unload.
python3 - "$RESULTS/rmmod.err" <<'PY' || fail "rmmod with live sockets"
import ctypes, signal, socket, struct, subprocess, sys
signal.alarm(60)
libc = ctypes.CDLL(None, use_errno=True)
ADDR = struct.pack("=H", socket.AF_INET) + struct.pack("!H", 5002) + \
    socket.inet_aton("127.0.0.1") + bytes(8)

def smc_socket():
    fd = libc.socket(43, socket.SOCK_STREAM, 0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "socket(AF_SMC)")
    return fd

def check(rc, what):
    if rc < 0:
        raise OSError(ctypes.get_errno(), what)
    return rc

lst = smc_socket()
check(libc.bind(lst, ADDR, len(ADDR)), "bind")
check(libc.listen(lst, 128), "listen")
pairs = []
for i in range(100):
    c = smc_socket()
    check(libc.connect(c, ADDR, len(ADDR)), "connect")
    cs = socket.socket(fileno=c)
    pairs.append(cs)
    if i < 50:
        a = socket.socket(fileno=check(libc.accept(lst, None, None), "accept"))
        pairs.append(a)
        cs.sendall(b"x" * 1000)
        assert a.recv(1000, socket.MSG_WAITALL) == b"x" * 1000
r = subprocess.run(["rmmod", "smc"], capture_output=True, text=True)
open(sys.argv[1], "w").write(r.stderr)
if r.returncode == 0:
    print("rmmod succeeded with live AF_SMC sockets", file=sys.stderr)
    sys.exit(1)
for s in pairs:
    s.close()
libc.close(lst)
PY
log "rmmod refused while sockets live: $(cat "$RESULTS/rmmod.err")"
# Closed sockets may still finish TCP close in the background; give them
# a bounded moment, then the module must go.
for _ in $(seq 1 20); do
	rmmod smc 2>/dev/null && break
	sleep 0.5
done
lsmod | grep -q '^smc ' && fail "module still loaded after all sockets closed"
log "module unloaded"
insmod "$SMC_KO" || fail "reload failed"
python3 - <<'PY' || fail "socket(AF_SMC) after reload failed"
import socket
s = socket.socket(43, socket.SOCK_STREAM, 0)
s.close()
PY
rmmod smc || fail "second unload failed"
log "fb-unload ok"
