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
# shellcheck disable=SC2016 # the child shell expands it
out=$(LD_PRELOAD=libm.so.6 "$here/smc_run" sh -c 'echo "$LD_PRELOAD"')
[ "$out" = "$here/libsmc-preload.so:libm.so.6" ] || fail "LD_PRELOAD=$out"

# -n: the library leaves LD_PRELOAD (others stay), exec'd children lose it
# shellcheck disable=SC2016
out=$(LD_PRELOAD=libm.so.6 "$here/smc_run" -n sh -c 'echo "$LD_PRELOAD"')
[ "$out" = "libm.so.6" ] || fail "-n: LD_PRELOAD=$out, want libm.so.6"
out=$("$here/smc_run" -n "$PY" "$here/rules_probe.py" spawn 2>/dev/null)
grep -q "^parent domain $tcpdom$" <<<"$out" || fail "-n: the program itself: $out"
grep -q '^child domain 2 preload no$' <<<"$out" || fail "-n: the child: $out"
out=$("$here/smc_run" "$PY" "$here/rules_probe.py" spawn 2>/dev/null)
grep -q "^child domain $tcpdom preload yes$" <<<"$out" || fail "without -n: $out"
echo "-n ok"

# Rules.  libfake-smc.so (after the library in LD_PRELOAD) makes every
# AF_SMC socket a TCP one, so the swap at connect()/listen() is seen by
# the socket's inode changing while the fd number stays.
p1=$((port + 1)) p2=$((port + 2)) lp=$((port + 3))
probe() {
	LD_PRELOAD=$here/libfake-smc.so "$here/smc_run" "$@"
}
rm -f "$tmp/release"
probe -d -p "$p1" "$PY" "$here/rules_probe.py" serve --hold "$tmp/release" \
	"0.0.0.0:$p1" "127.0.0.1:$p2" >"$tmp/rules-server.log" 2>&1 &
spid=$!
for _ in $(seq 100); do grep -q '^listening' "$tmp/rules-server.log" && break; sleep 0.1; done
grep -q "^listener $p1 .* swapped yes$" "$tmp/rules-server.log" || fail "listener on $p1 not swapped"
grep -q "^listener $p2 .* swapped no$" "$tmp/rules-server.log" || fail "listener on $p2 swapped"
grep -q "fd [0-9]*: listen on 0.0.0.0:$p1 matches the rules: AF_INET -> AF_SMC fd" \
	"$tmp/rules-server.log" || fail "no debug line of the listener swap"
# NAME WANT(yes|no) SMC_RUN-OPTIONS -- CONNECT-ARGS
rule_case() {
	local name=$1 want=$2 opts=()

	shift 2
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	probe -d "${opts[@]}" "$PY" "$here/rules_probe.py" connect "$@" >"$tmp/rules-$name.log" 2>&1 ||
		fail "rules $name: client failed"
	grep -q "^connected .* swapped $want$" "$tmp/rules-$name.log" || fail "rules $name: want swapped $want"
	grep -q '^transfer ok' "$tmp/rules-$name.log" || fail "rules $name: no transfer"
	echo "rules $name: swapped $want"
}
rule_case port-match yes -p "$p1" -- 127.0.0.1 "$p1" 200000 --opts --bind "$lp"
grep -q "^opts ok .* lport=$lp$" "$tmp/rules-port-match.log" || fail "options not carried over"
rule_case port-other no -p "$p1" -- 127.0.0.1 "$p2" 1000 --opts
rule_case range-match yes -p "1-2,$((p1 - 1))-$p1" -- 127.0.0.1 "$p1" 1000
rule_case addr-match yes -a "10.0.0.0/8, 127.0.0.0/8" -- 127.0.0.1 "$p2" 1000
rule_case addr-other no -a "10.0.0.0/8,::1" -- 127.0.0.1 "$p1" 1000
rule_case mapped-v4 yes -a 127.0.0.1 -- "::ffff:127.0.0.1" "$p1" 1000
rule_case mapped-v6 no -a ::1 -- "::ffff:127.0.0.1" "$p1" 1000
rule_case both yes -a 127.0.0.1/32 -p "$p2" -- 127.0.0.1 "$p2" 1000
rule_case both-port no -a 127.0.0.1/32 -p "$p2" -- 127.0.0.1 "$p1" 1000
SMC_PORTS="$p1-" rule_case bad-rule no -- 127.0.0.1 "$p1" 1000
grep -q "SMC_PORTS=$p1-: not a list of ports" "$tmp/rules-bad-rule.log" || fail "no message for a bad rule"
: >"$tmp/release"
wait "$spid" || fail "rules server failed"
spid=
[ "$(grep -c '^accepted' "$tmp/rules-server.log")" = 10 ] || fail "rules server: not 10 connections"
if [ "$smc" = 0 ]; then
	# without the fake the swap meets no AF_SMC: one warning, TCP
	LD_PRELOAD="" "$here/smc_run" -p "$p1" "$PY" "$here/rules_probe.py" connect 127.0.0.1 "$p1" 1 \
		>"$tmp/rules-nomod.log" 2>&1 && fail "rules without a server: connect worked"
	[ "$(grep -c 'cannot create AF_SMC sockets' "$tmp/rules-nomod.log")" = 1 ] ||
		fail "rules without AF_SMC: no warning"
	grep -q 'Connection refused' "$tmp/rules-nomod.log" || fail "rules without AF_SMC: not TCP's refusal"
fi
# -v: the version dkms.conf names
want=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$here/../../dkms.conf")
out=$("$here/smc_run" -v) || fail "-v: exit $?"
[ "$out" = "smc_run $want" ] || fail "-v: '$out', want 'smc_run $want'"

# -r/-t: checked once here, passed on in bytes; a bad size is a usage
# error (64) and the program never runs.  SMC_RUN_SYSCTL_DIR: copies of
# net.core's rmem_max and wmem_max, which smc_run raises (below); the
# host's stay as they are.
mkdir "$tmp/core"
export SMC_RUN_SYSCTL_DIR=$tmp/core
for c in 262144=262144 256k=262144 256K=262144 1m=1048576 1M=1048576 \
	 0008=8 2147483647=2147483647; do
	# shellcheck disable=SC2016 # the child shell expands it
	out=$("$here/smc_run" -r "${c%=*}" -t "${c%=*}" sh -c 'echo "$SMC_RCVBUF $SMC_SNDBUF"' 2>/dev/null) ||
		fail "-r/-t ${c%=*}: exit $?"
	[ "$out" = "${c#*=} ${c#*=}" ] || fail "-r/-t ${c%=*}: '$out', want '${c#*=} ${c#*=}'"
done
for b in 0 '' 12x 3g k 1kk 1m2 -1 2147483648 2048m 99999999999; do
	for o in -r -t; do
		rc=0
		"$here/smc_run" "$o" "$b" touch "$tmp/ran" 2>"$tmp/size.err" || rc=$?
		[ "$rc" = 64 ] || fail "$o '$b': exit $rc, want 64"
		[ ! -e "$tmp/ran" ] || fail "$o '$b': the program ran"
		grep -q "want a size" "$tmp/size.err" || fail "$o '$b': no message"
	done
done
echo "sizes ok"

# net.core.rmem_max/wmem_max raised to -r/-t when lower, never lowered;
# where they cannot be written, a warning and the program still runs
# (on copies: the host's sysctls stay as they are)
echo 212992 >"$tmp/core/rmem_max"
echo 4194304 >"$tmp/core/wmem_max"
"$here/smc_run" -r 1m -t 1m true || fail "raise: exit $?"
[ "$(cat "$tmp/core/rmem_max")" = 1048576 ] || fail "rmem_max $(cat "$tmp/core/rmem_max"), want 1048576"
[ "$(cat "$tmp/core/wmem_max")" = 4194304 ] || fail "wmem_max $(cat "$tmp/core/wmem_max"), want 4194304 (not lowered)"
# a user who may not write it (root may write anything: run as nobody)
chmod 0755 "$tmp" "$tmp/core"
chmod 0444 "$tmp/core/rmem_max"
asuser=()
[ "$(id -u)" != 0 ] || asuser=(setpriv --reuid=65534 --regid=65534 --clear-groups)
out=$(${asuser[@]+"${asuser[@]}"} "$here/smc_run" -r 2m echo ran 2>&1) ||
	fail "no raise: exit $?: $out"
grep -q "rmem_max is 1048576, below 2097152" <<<"$out" || fail "no raise: no warning: $out"
grep -qx ran <<<"$out" || fail "no raise: the program did not run: $out"
[ "$(cat "$tmp/core/rmem_max")" = 1048576 ] || fail "no raise: rmem_max changed"
# from the environment: a size is taken as -r/-t's (suffix and all), one
# that is not is left to the library (its one warning), without a word
# from the wrapper
echo 212992 >"$tmp/core/wmem_max"
out=$(SMC_SNDBUF=512k "$here/smc_run" true 2>&1) || fail "SMC_SNDBUF=512k: exit $?: $out"
[ -z "$out" ] || fail "SMC_SNDBUF=512k: the wrapper said: $out"
[ "$(cat "$tmp/core/wmem_max")" = 524288 ] || fail "SMC_SNDBUF=512k: wmem_max $(cat "$tmp/core/wmem_max"), want 524288"
out=$(SMC_SNDBUF=junk "$here/smc_run" true 2>&1) || fail "SMC_SNDBUF=junk: exit $?: $out"
[ "$(wc -l <<<"$out")" = 1 ] && grep -q 'ignoring SMC_SNDBUF=junk: not a size' <<<"$out" ||
	fail "SMC_SNDBUF=junk: want the library's one line, got: $out"
echo "buffer maxima ok"
echo "smc_run host test ok"
