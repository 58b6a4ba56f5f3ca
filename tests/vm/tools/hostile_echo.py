#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# Echo server and clients for scenarios/hostile.sh, over
# socket(AF_INET, SOCK_STREAM, IPPROTO_SMC).  Every outcome is one JSON
# line, so that the scenario can assert it.
#
#   hostile_echo.py serve PORT...
#       echo on each port until killed; per connection:
#       {"port", "peer", "bytes", "end": "eof" | errno name, "secs"}
#   hostile_echo.py client IP BYTES TIMEOUT PORT [PORT...]
#       one connection per port, all at once; each sends BYTES seeded
#       pseudo-random bytes in 16 KiB pieces and reads every piece back;
#       per connection: {"port", "result": "ok" | "mismatch" | "timeout" |
#       errno name, "stage": "connect" | "data", "connect_secs", "secs",
#       "verified"}
import errno
import json
import random
import socket
import sys
import threading
import time

IPPROTO_SMC = 256
CHUNK = 16384
out_lock = threading.Lock()


def emit(rec):
    with out_lock:
        print(json.dumps(rec), flush=True)


def err_name(e):
    if isinstance(e, socket.timeout):
        return "timeout"
    if isinstance(e, OSError) and e.errno:
        return errno.errorcode.get(e.errno, str(e.errno))
    return type(e).__name__


def echo_conn(conn, peer, port):
    t0 = time.monotonic()
    n, end = 0, "eof"
    try:
        while True:
            data = conn.recv(65536)
            if not data:
                break
            conn.sendall(data)
            n += len(data)
    except OSError as e:
        end = err_name(e)
    conn.close()
    emit({"port": port, "peer": "%s:%d" % peer, "bytes": n, "end": end,
          "secs": round(time.monotonic() - t0, 3)})


def serve_port(port):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_SMC)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(16)
    emit({"listening": port})
    while True:
        conn, peer = ls.accept()
        threading.Thread(target=echo_conn, args=(conn, peer, port),
                         daemon=True).start()


def client_conn(ip, port, nbytes, timeout):
    rng = random.Random(port)
    rec = {"port": port, "stage": "connect", "verified": 0}
    t0 = time.monotonic()
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_SMC)
    s.settimeout(timeout)
    try:
        s.connect((ip, port))
        rec["connect_secs"] = round(time.monotonic() - t0, 3)
        rec["stage"] = "data"
        left = nbytes
        while left:
            piece = rng.randbytes(min(CHUNK, left))
            s.sendall(piece)
            got = bytearray()
            while len(got) < len(piece):
                data = s.recv(len(piece) - len(got))
                if not data:
                    raise ConnectionResetError(errno.ECONNRESET, "EOF")
                got += data
            if got != piece:
                rec["result"] = "mismatch"
                break
            rec["verified"] += len(piece)
            left -= len(piece)
        else:
            rec["result"] = "ok"
    except OSError as e:
        rec["result"] = err_name(e)
        if isinstance(e, ConnectionResetError) and e.strerror == "EOF":
            rec["result"] = "eof"
    s.close()
    rec["secs"] = round(time.monotonic() - t0, 3)
    emit(rec)


def main():
    if sys.argv[1] == "serve":
        for p in sys.argv[2:]:
            threading.Thread(target=serve_port, args=(int(p),),
                             daemon=True).start()
        while True:
            time.sleep(3600)
    ip, nbytes, timeout = sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    threads = [threading.Thread(target=client_conn,
                                args=(ip, int(p), nbytes, timeout))
               for p in sys.argv[5:]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


if __name__ == "__main__":
    main()
