#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of smc_run over loopback, run by `make -C tools/smc_run check`.
# Without AF_SMC (no smc module) it checks the fallback: one warning per
# process, the transfer works over TCP, non-TCP sockets untouched.  With
# AF_SMC it checks that the TCP sockets became AF_SMC (domain 43).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'kill "${spid:-}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; for f in "$tmp"/*.log; do echo "== $f"; cat "$f"; done >&2; exit 1; }

if $PY -c 'import socket; socket.socket(43, socket.SOCK_STREAM, 0)' 2>/dev/null; then
	smc=1; tcpdom=43
else
	smc=0; tcpdom=2
fi
echo "AF_SMC available: $smc"

port=$((20000 + $$ % 20000))
# children inherit the preload: the server runs below a shell
"$here/smc_run" -d sh -c "exec $PY '$here/tcp_xfer.py' server $port" >"$tmp/server.log" 2>&1 &
spid=$!
for _ in $(seq 100); do grep -q listening "$tmp/server.log" && break; sleep 0.1; done
grep -q listening "$tmp/server.log" || fail "server did not start"
# without -d, and with a preload already set: it is kept
LD_PRELOAD=libm.so.6 "$here/smc_run" "$PY" "$here/tcp_xfer.py" client 127.0.0.1 $port 3000000 \
	>"$tmp/client.log" 2>&1 || fail "client failed"
wait "$spid" || fail "server failed"
spid=

grep -q "client ok" "$tmp/client.log" || fail "client not ok"
grep -q "server ok" "$tmp/server.log" || fail "server not ok"
grep -Eq "domains accepted=$tcpdom/[06] listener=$tcpdom/[06] tcp6=(43/1|10/6) udp=2/17 unix=1/0" "$tmp/server.log" ||
	fail "server socket domains"
grep -Eq "domains connected=$tcpdom/[06] tcp6=(43/1|10/6) udp=2/17 unix=1/0" "$tmp/client.log" ||
	fail "client socket domains"
if [ "$smc" = 0 ]; then
	# one warning per process; with -d one more line per later fallback
	[ "$(grep -c 'cannot create AF_SMC sockets' "$tmp/client.log")" = 1 ] || fail "client warnings"
	[ "$(grep -c 'smc_run\[' "$tmp/client.log")" = 1 ] || fail "client: more than the one warning without -d"
	[ "$(grep -c 'cannot create AF_SMC sockets' "$tmp/server.log")" = 1 ] || fail "server warnings"
	[ "$(grep -c 'AF_SMC failed (.*), using TCP' "$tmp/server.log")" -ge 1 ] || fail "server debug lines"
else
	grep -q 'socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, 0) -> AF_SMC fd' "$tmp/server.log" ||
		fail "no conversion log line"
	! grep -q 'smc_run\[' "$tmp/client.log" || fail "client logged without -d"
fi
# LD_PRELOAD was prepended, not replaced
out=$(LD_PRELOAD=libm.so.6 "$here/smc_run" sh -c 'echo "$LD_PRELOAD"')
[ "$out" = "$here/libsmc-preload.so:libm.so.6" ] || fail "LD_PRELOAD=$out"
echo "smc_run host test ok"
