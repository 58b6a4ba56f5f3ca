#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host self-check of sockdiff with AF_INET only (the host cannot load smc.ko):
# the oracle must be deterministic (two runs compare equal) in local mode,
# IPv4 and IPv6, and as server + client over 127.0.0.1, and race mode passes.
# Then compare and judge.sh must catch planted breaks in a transcript.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sd=$here/sockdiff
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for v in "" --v6; do
	"$sd" local --family inet $v --out "$tmp/l1" 2>/dev/null
	"$sd" local --family inet $v --out "$tmp/l2" 2>/dev/null
	"$sd" compare "$tmp/l1" "$tmp/l2"
done
# port 0: the kernel picks a free one (a fixed guess may be taken on a
# shared host); the server names it in its "listening on port N" line
"$sd" server --port 0 --timeout 120 2>"$tmp/srv.err" &
srv=$!
for _ in $(seq 100); do
	grep -q listening "$tmp/srv.err" && break
	sleep 0.1
done
grep -q listening "$tmp/srv.err" || { cat "$tmp/srv.err" >&2; exit 1; }
port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$tmp/srv.err")
[ -n "$port" ] && [ "$port" -gt 0 ] || { cat "$tmp/srv.err" >&2; exit 1; }
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

# judge.sh: every line of a judged side counts, failure marks count on any
# side, and only a named deviation with its exact value is forgiven.
# jcase EXIT NAME JUDGE-ARGS...: judge.sh must exit with EXIT
jcase() {
	local want=$1 name=$2 rc=0

	shift 2
	"$here/judge.sh" "$@" >"$tmp/judge.out" 2>&1 || rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "judge.sh, $name: exit $rc, expected $want" >&2
		cat "$tmp/judge.out" >&2
		exit 1
	fi
}
# after FILE REGEX LINE: FILE with LINE after the first line matching REGEX
after() {
	awk -v re="$2" -v l="$3" '{ print } !done && $0 ~ re { print l; done = 1 }' "$1"
}
# hang FILE REGEX: the scenario of the first line matching REGEX hangs
# after that line (as sockdiff client writes it): its later lines and its
# server lines are gone, a NN.HANG line follows
hang() {
	awk -v re="$2" '!cut && $0 ~ re { print; split($0, f, " "); s = f[1]; cut = 1
		print s " C 99.HANG killed after 60s"; next }
	cut && $1 == s { next } { print }' "$1"
}
: >"$tmp/empty"
head -n 100 "$tmp/c1" >"$tmp/short"
after "$tmp/c1" '^iocalls C ' 'iocalls C 02.report_fetch FAILED' >"$tmp/fetch"
hang "$tmp/c1" '^iocalls C [0-9]+\.send_more_' >"$tmp/hang_more"
hang "$tmp/c1" '^iocalls C [0-9]+\.recv_waitall_' >"$tmp/hang_wait"
hang "$tmp/c1" '^echo_1m C [0-9]+\.sent ' >"$tmp/hang_echo"
sed 's/^\(rst S [0-9]*\.recv_after_rst\) .*/\1 0/' "$tmp/c1" >"$tmp/rst_eof"
sed 's/^\(rst S [0-9]*\.recv_after_rst\) .*/\1 ERR:EPIPE/' "$tmp/c1" >"$tmp/rst_pipe"
after "$tmp/r1" '^race C [0-9]+\.peer_fin ' \
	'race C 04.peer_fin_r7 recv=ECONNRESET got=0 early=none poll=woke epoll=woke' >"$tmp/race_r7"
printf '%s\n' '# a comment' 'eof_not_rst rst S recv_after_rst 0' \
	'cork iocalls C HANG after send_more_*' >"$tmp/devs"
jcase 0 same "$tmp/c1" "$tmp/c2"
jcase 0 "same race" "$tmp/r1" "$tmp/r2"
jcase 1 "short transcript" "$tmp/c1" "$tmp/short"
jcase 1 "empty transcript" "$tmp/c1" "$tmp/empty"
jcase 1 "empty oracle" "$tmp/empty" "$tmp/c1"
jcase 1 "changed value" "$tmp/c1" "$tmp/m1"
jcase 1 "deleted lines" "$tmp/c1" "$tmp/m2"
jcase 1 "extra line" "$tmp/c1" "$tmp/m3"
jcase 1 "diverging race round" "$tmp/r1" "$tmp/race_r7"
jcase 1 "report_fetch FAILED" "$tmp/c1" "$tmp/fetch"
jcase 1 "report_fetch FAILED, other side" -s S "$tmp/c1" "$tmp/fetch"
jcase 0 "changed value, other side" -s S "$tmp/c1" "$tmp/m1"
jcase 1 "deleted lines, own side" -s S "$tmp/c1" "$tmp/m2"
jcase 0 "deleted lines, other side" -s C "$tmp/c1" "$tmp/m2"
jcase 1 "hang" "$tmp/c1" "$tmp/hang_more"
jcase 1 "hang, other side" -s S "$tmp/c1" "$tmp/hang_more"
jcase 0 "named hang" -d "$tmp/devs" "$tmp/c1" "$tmp/hang_more"
jcase 1 "named hang at another step" -d "$tmp/devs" "$tmp/c1" "$tmp/hang_wait"
jcase 1 "named hang in another scenario" -d "$tmp/devs" "$tmp/c1" "$tmp/hang_echo"
jcase 1 "deviation" "$tmp/c1" "$tmp/rst_eof"
jcase 0 "named deviation" -d "$tmp/devs" "$tmp/c1" "$tmp/rst_eof"
jcase 1 "named deviation, other value" -d "$tmp/devs" "$tmp/c1" "$tmp/rst_pipe"
jcase 2 "missing transcript" "$tmp/c1" "$tmp/nonexistent"
echo "sockdiff selfcheck ok"
