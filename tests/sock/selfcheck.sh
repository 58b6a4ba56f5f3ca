#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host self-check of sockdiff with AF_INET only (the host cannot load smc.ko):
# the oracle must be deterministic (two runs compare equal) in local mode,
# IPv4 and IPv6, and as server + client over 127.0.0.1, and race mode passes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sd=$here/sockdiff
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
port=$((30000 + $$ % 20000))

for v in "" --v6; do
	"$sd" local --family inet $v --out "$tmp/l1" 2>/dev/null
	"$sd" local --family inet $v --out "$tmp/l2" 2>/dev/null
	"$sd" compare "$tmp/l1" "$tmp/l2"
done
"$sd" server --port "$port" --timeout 120 2>/dev/null &
srv=$!
sleep 0.3
"$sd" client --host 127.0.0.1 --port "$port" --out "$tmp/c1" 2>/dev/null
"$sd" client --host 127.0.0.1 --port "$port" --out "$tmp/c2" 2>/dev/null
"$sd" compare "$tmp/c1" "$tmp/c2"
"$sd" race --host 127.0.0.1 --port "$port" --rounds 20 --out "$tmp/r1"
"$sd" race --host 127.0.0.1 --port "$port" --rounds 20 --out "$tmp/r2"
"$sd" compare "$tmp/r1" "$tmp/r2"
# compare must notice a changed value, a missing and an extra line
sed 's/^shutwr C 02.send_after_shutwr ERR:EPIPE$/shutwr C 02.send_after_shutwr 10/' "$tmp/c1" >"$tmp/m1"
sed '/^poll S 01\./d' "$tmp/c1" >"$tmp/m2"
{ cat "$tmp/c1"; echo "poll C 99.extra 0"; } >"$tmp/m3"
for m in m1 m2 m3; do
	if "$sd" compare "$tmp/c1" "$tmp/$m" >/dev/null; then
		echo "compare missed the change in $m" >&2
		exit 1
	fi
done
"$sd" quit --host 127.0.0.1 --port "$port"
wait "$srv"
echo "sockdiff selfcheck ok"
