#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A plain TCP program (it knows nothing of SMC) to try smc_run with.

  tcp_xfer.py server PORT [--hold FILE]
  tcp_xfer.py client HOST PORT BYTES [--hold FILE]

The client sends an 8-byte length and BYTES of pseudo-random data; the
server reads it, answers with the SHA-256 of what it got, an 8-byte length
and as many bytes of its own data, followed by their SHA-256.  Both sides
check the digests (so the payload crossed both ways intact) and print them.

With --hold FILE a side, once the transfer is done and with the connection
still open, prints "holding" and waits (at most 120 s) until FILE exists,
so that a test can look at the open sockets.

Before that it reports what each of its sockets is, as the kernel sees it
(SO_DOMAIN, SO_PROTOCOL), on a line "domains name=domain/protocol ...": the
TCP sockets (listening, accepted or connected, and an unconnected IPv6 one)
and, for comparison, a UDP socket and a UNIX stream socket.  Under smc_run
the TCP ones show domain 43 (AF_SMC), the others 2 (AF_INET) and 1 (AF_UNIX).
"""
import hashlib
import os
import socket
import struct
import sys
import time


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


def ident(s):
    return "%d/%d" % (s.getsockopt(socket.SOL_SOCKET, socket.SO_DOMAIN),
                      s.getsockopt(socket.SOL_SOCKET, socket.SO_PROTOCOL))


def report(conn_name, conn, extra):
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    tcp6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    items = [(conn_name, conn)] + extra + [("tcp6", tcp6), ("udp", udp),
                                           ("unix", unix)]
    print("domains " + " ".join(f"{n}={ident(s)}" for n, s in items),
          flush=True)
    for s in (udp, unix, tcp6):
        s.close()


def hold(path):
    if not path:
        return
    print("holding", flush=True)
    deadline = time.monotonic() + 120
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            sys.exit(f"{path} did not appear in 120 s")
        time.sleep(0.1)


def server(port, hold_file):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(1)
    ls.settimeout(150)
    print(f"listening on {port}", flush=True)
    conn, peer = ls.accept()
    conn.settimeout(120)
    n, = struct.unpack("!Q", recv_exact(conn, 8))
    data = recv_exact(conn, n)
    got = hashlib.sha256(data).hexdigest()
    print(f"received {n} bytes from {peer[0]} sha256 {got}", flush=True)
    mine = payload(n, b"server")
    conn.sendall(bytes.fromhex(got) + struct.pack("!Q", len(mine)) + mine +
                 hashlib.sha256(mine).digest())
    print(f"sent {len(mine)} bytes sha256 {hashlib.sha256(mine).hexdigest()}",
          flush=True)
    report("accepted", conn, [("listener", ls)])
    hold(hold_file)
    # wait for the client to close first, then close
    if conn.recv(1):
        sys.exit("unexpected data after the transfer")
    conn.close()
    ls.close()
    print("server ok", flush=True)


def client(host, port, nbytes, hold_file):
    s = socket.create_connection((host, port), timeout=60)
    s.settimeout(120)
    mine = payload(nbytes, b"client")
    sent = hashlib.sha256(mine).hexdigest()
    s.sendall(struct.pack("!Q", len(mine)) + mine)
    print(f"sent {len(mine)} bytes sha256 {sent}", flush=True)
    echo = recv_exact(s, 32).hex()
    if echo != sent:
        sys.exit(f"server saw sha256 {echo}, sent {sent}")
    n, = struct.unpack("!Q", recv_exact(s, 8))
    data = recv_exact(s, n)
    want = recv_exact(s, 32).hex()
    got = hashlib.sha256(data).hexdigest()
    if got != want:
        sys.exit(f"received {n} bytes sha256 {got}, server sent {want}")
    print(f"received {n} bytes sha256 {got}", flush=True)
    report("connected", s, [])
    hold(hold_file)
    s.close()
    print("client ok", flush=True)


def main(argv):
    hold_file = None
    if "--hold" in argv:
        i = argv.index("--hold")
        hold_file = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) == 3 and argv[1] == "server":
        server(int(argv[2]), hold_file)
    elif len(argv) == 5 and argv[1] == "client":
        client(argv[2], int(argv[3]), int(argv[4]), hold_file)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
