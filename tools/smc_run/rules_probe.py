#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Plain TCP programs (they know nothing of SMC) to try smc_run's rules.

  rules_probe.py serve [--hold FILE] ADDR:PORT...
  rules_probe.py connect HOST PORT BYTES [--opts] [--bind LPORT] [--hold FILE]
  rules_probe.py spawn
  rules_probe.py domain

serve: one listener per ADDR:PORT (SO_REUSEADDR, bind, listen); prints
"listener PORT domain D inode I swapped yes|no" for each (swapped: the
socket was replaced during listen()), then serves every connection in
a thread as tcp_xfer.py does (the client's BYTES in, their SHA-256 and as
many bytes of its own back) and prints "accepted LPORT from ADDR domain D
inode I".  With --hold FILE it ends when FILE exists, else after 150 s.

connect: a socket(), then connect() to HOST:PORT; prints "connected PORT
domain D proto P inode I swapped yes|no", where swapped says whether the
fd's socket was replaced during connect() (its inode changed).  With
--opts, before connect(): O_NONBLOCK, SO_KEEPALIVE, TCP_NODELAY and
SO_SNDBUF 65536; after it, they must still be in effect together with
FD_CLOEXEC ("opts ok ...", else exit 1).  --bind LPORT binds the local port
first, which must stay (checked with --opts).  Then BYTES each way with
SHA-256 checks ("transfer ok ..."), "holding" until FILE exists, close.

spawn: prints "parent domain D" for a new TCP socket, then runs
"rules_probe.py domain" as a child program (fork + exec), which prints
"child domain D preload yes|no" (whether LD_PRELOAD names the library).
"""
import fcntl
import hashlib
import os
import select
import socket
import struct
import subprocess
import sys
import threading
import time


def say(msg):
    print(msg, flush=True)


def recv_exact(s, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            raise EOFError(f"peer closed after {len(buf)} of {n} bytes")
        buf += chunk
    return bytes(buf)


def payload(n, seed):
    out = bytearray()
    block = hashlib.sha256(seed).digest()
    while len(out) < n:
        block = hashlib.sha256(block).digest()
        out += block * 64
    return bytes(out[:n])


def domain(s):
    return s.getsockopt(socket.SOL_SOCKET, socket.SO_DOMAIN)


def inode(s):
    return os.fstat(s.fileno()).st_ino


def hold(path, limit=150):
    deadline = time.monotonic() + limit
    while not (path and os.path.exists(path)):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def serve_conn(conn, lport, peer):
    try:
        conn.settimeout(150)
        say(f"accepted {lport} from {peer[0]} domain {domain(conn)} "
            f"inode {inode(conn)}")
        n, = struct.unpack("!Q", recv_exact(conn, 8))
        got = hashlib.sha256(recv_exact(conn, n)).digest()
        mine = payload(n, b"server")
        conn.sendall(got + struct.pack("!Q", n) + mine +
                     hashlib.sha256(mine).digest())
        conn.recv(1)  # until the client closes
    except (OSError, EOFError) as e:
        say(f"connection on {lport} from {peer[0]} failed: {e}")
    conn.close()


def serve(hold_file, addrs):
    listeners = {}
    for a in addrs:
        host, port = a.rsplit(":", 1)
        fam = socket.AF_INET6 if ":" in host else socket.AF_INET
        ls = socket.socket(fam, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((host.strip("[]"), int(port)))
        before = inode(ls)
        ls.listen(8)
        listeners[ls.fileno()] = (ls, int(port))
        swapped = "yes" if inode(ls) != before else "no"
        say(f"listener {port} domain {domain(ls)} inode {inode(ls)} "
            f"swapped {swapped}")
    say("listening")
    deadline = time.monotonic() + 150
    while not (hold_file and os.path.exists(hold_file)):
        if time.monotonic() > deadline:
            sys.exit("no release after 150 s")
        ready, _, _ = select.select(list(listeners), [], [], 0.2)
        for fd in ready:
            ls, port = listeners[fd]
            conn, peer = ls.accept()
            threading.Thread(target=serve_conn, args=(conn, port, peer),
                             daemon=True).start()
    say("server done")


def check_opts(s, want_sndbuf, lport):
    got = {
        "nonblock": bool(fcntl.fcntl(s.fileno(), fcntl.F_GETFL) & os.O_NONBLOCK),
        "cloexec": bool(fcntl.fcntl(s.fileno(), fcntl.F_GETFD) & fcntl.FD_CLOEXEC),
        "keepalive": s.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE),
        "nodelay": s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY),
        "sndbuf": s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF),
        "lport": s.getsockname()[1],
    }
    want = {"nonblock": True, "cloexec": True, "keepalive": 1, "nodelay": 1,
            "sndbuf": want_sndbuf, "lport": lport or got["lport"]}
    text = " ".join(f"{k}={v}" for k, v in got.items())
    if got != want:
        sys.exit(f"opts lost: {text}, want "
                 + " ".join(f"{k}={v}" for k, v in want.items()))
    say(f"opts ok {text}")


def connect(host, port, nbytes, opts, lport, hold_file):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    before = inode(s)
    want_sndbuf = None
    if opts:
        s.setblocking(False)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
        want_sndbuf = s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
    if lport:
        s.bind(("::" if fam == socket.AF_INET6 else "0.0.0.0", lport))
    if opts:
        err = s.connect_ex((host, port))
        if err not in (0, 115):  # EINPROGRESS
            sys.exit(f"connect: {os.strerror(err)}")
        if not select.select([], [s], [], 60)[1]:
            sys.exit("connect did not complete in 60 s")
        err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if err:
            sys.exit(f"connect: {os.strerror(err)}")
    else:
        s.settimeout(60)
        s.connect((host, port))
    swapped = "yes" if inode(s) != before else "no"
    say(f"connected {port} domain {domain(s)} "
        f"proto {s.getsockopt(socket.SOL_SOCKET, socket.SO_PROTOCOL)} "
        f"inode {inode(s)} swapped {swapped}")
    if opts:
        check_opts(s, want_sndbuf, lport)
    s.settimeout(120)
    mine = payload(nbytes, b"client")
    s.sendall(struct.pack("!Q", nbytes) + mine)
    echo = recv_exact(s, 32)
    n, = struct.unpack("!Q", recv_exact(s, 8))
    data = recv_exact(s, n)
    want = recv_exact(s, 32)
    if echo != hashlib.sha256(mine).digest():
        sys.exit("the server received other bytes than were sent")
    if hashlib.sha256(data).digest() != want:
        sys.exit("received other bytes than the server sent")
    say(f"transfer ok {nbytes} bytes each way, sent sha256 "
        f"{echo.hex()[:16]}, received sha256 {want.hex()[:16]}")
    if hold_file:
        say("holding")
        if not hold(hold_file):
            sys.exit(f"{hold_file} did not appear in 150 s")
    s.close()
    say("client ok")


def spawn():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    say(f"parent domain {domain(s)}")
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "domain"],
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    sys.stdout.write(out)
    s.close()


def child_domain():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    pre = "yes" if "libsmc-preload" in os.environ.get("LD_PRELOAD", "") else "no"
    say(f"child domain {domain(s)} preload {pre}")


def main(argv):
    def take(flag, has_arg=True):
        if flag not in argv:
            return None
        i = argv.index(flag)
        val = argv[i + 1] if has_arg else True
        del argv[i:i + (2 if has_arg else 1)]
        return val

    hold_file = take("--hold")
    opts = take("--opts", False)
    lport = int(take("--bind") or 0)
    if len(argv) >= 3 and argv[1] == "serve":
        serve(hold_file, argv[2:])
    elif len(argv) == 5 and argv[1] == "connect":
        connect(argv[2], int(argv[3]), int(argv[4]), opts, lport, hold_file)
    elif argv[1:] == ["spawn"]:
        spawn()
    elif argv[1:] == ["domain"]:
        child_domain()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
