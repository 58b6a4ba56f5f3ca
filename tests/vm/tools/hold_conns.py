#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# Many SMC connections held open at once, for scenarios/orphans.sh and
# scenarios/memcg.sh, over socket(AF_INET, SOCK_STREAM, IPPROTO_SMC).
# Every outcome is one JSON line.
#
#   hold_conns.py serve PORT N GOFILE
#       accept N connections and hold them, unread; once GOFILE exists,
#       read each to its end (10 s each at most) and close it:
#       {"idx", "bytes", "end": "eof" | errno name | "timeout"} per
#       connection, then {"served": N}
#   hold_conns.py client IP PORT N BYTES HOLDFILE
#       open N connections one after the other, send BYTES on each, then
#       ({"connected": N}) wait for HOLDFILE to exist ("-": no wait) and
#       close them in the order they were opened: {"closed": N}
#   hold_conns.py trickle IP PORT PERIOD SECS [STOPFILE]
#       one connection to an echo server: 100 bytes every PERIOD seconds for
#       SECS seconds or until STOPFILE exists, each echo read back and
#       compared; once connected it says {"connected": true}, then
#       {"trickle": "ok" | "mismatch" | errno name, "sent": messages}
#
# With HOLD_START=FILE in the environment, each first says {"ready": true}
# and waits for FILE before its first connection (so that what the process
# itself takes can be measured apart from its connections).
import errno
import os
import socket
import sys
import time

# one JSON line per outcome, errno names: as hostile_echo.py reports them
from hostile_echo import IPPROTO_SMC, emit, err_name


def wait_file(path, limit=600):
    deadline = time.monotonic() + limit
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise TimeoutError(path)
        time.sleep(0.1)


def ready():
    start = os.environ.get("HOLD_START")
    if start:
        emit({"ready": True})
        wait_file(start)


def serve(port, n, gofile):
    ready()
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_SMC)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(n)
    emit({"listening": port})
    conns = []
    for _ in range(n):
        c, _peer = ls.accept()
        conns.append(c)
    emit({"accepted": n})
    wait_file(gofile)
    for i, c in enumerate(conns):
        c.settimeout(10)
        got = 0
        end = "eof"
        try:
            while True:
                b = c.recv(65536)
                if not b:
                    break
                got += len(b)
        except OSError as e:
            end = err_name(e)
        emit({"idx": i, "bytes": got, "end": end})
        c.close()
    emit({"served": n})


def client(ip, port, n, nbytes, holdfile):
    ready()
    conns = []
    for _ in range(n):
        c = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_SMC)
        c.settimeout(30)
        c.connect((ip, port))
        if nbytes:
            c.sendall(os.urandom(nbytes))
        conns.append(c)
    emit({"connected": n})
    if holdfile != "-":
        wait_file(holdfile)
    for c in conns:
        c.close()
    emit({"closed": n})


def trickle(ip, port, period, secs, stop=None):
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_SMC)
    c.settimeout(30)
    sent = 0
    result = "ok"
    try:
        c.connect((ip, port))
        emit({"connected": True})
        end = time.monotonic() + secs
        while time.monotonic() < end:
            if stop and os.path.exists(stop):
                break
            msg = os.urandom(100)
            c.sendall(msg)
            got = b""
            while len(got) < len(msg):
                b = c.recv(len(msg) - len(got))
                if not b:
                    raise ConnectionResetError(errno.ECONNRESET, "eof")
                got += b
            sent += 1
            if got != msg:
                result = "mismatch"
                break
            time.sleep(period)
    except OSError as e:
        result = err_name(e)
    c.close()
    emit({"trickle": result, "sent": sent})


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "serve":
        serve(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) in (6, 7) and sys.argv[1] == "trickle":
        trickle(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]),
                float(sys.argv[5]), sys.argv[6] if len(sys.argv) == 7 else None)
    elif len(sys.argv) == 7 and sys.argv[1] == "client":
        client(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
               int(sys.argv[5]), sys.argv[6])
    else:
        sys.exit(__doc__ or "usage: see the header")


if __name__ == "__main__":
    main()
