#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smcctl against our smc.ko: the SMC_GEN_NETLINK family and the AF_SMC
# sock_diag handler answer, and every smcctl command prints well-formed
# JSON of the documented shape (tools/smcctl/README.md).  AF_SMC sockets
# must be created (no socket: the scenario fails); a listening AF_SMC
# socket shows up in `smcctl connections`, and (2 VMs) an AF_SMC client
# talking to a plain TCP server on VM 0 falls back with a reason that
# `smcctl fallback` and `smcctl connections` report.  Also: stats -d has
# every counter; stats reset makes stats and fallback count from then on
# (per network namespace, -a from the load); connections -l lists
# listeners only; device names with quotes, backslashes and control bytes
# come out as valid JSON; `smcctl check` against plain TCP exits 4 naming
# PEERNOSMC and what to do, against a closed port 1; without the module
# every command (check included) exits 3 and debug-bundle loads nothing.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$SMC_IMPL" = ours ] || fail "needs SMC_IMPL=ours, not $SMC_IMPL"
PY=/usr/bin/python3

SMCCTL=$(smcctl_path) || fail "cannot build smcctl"

# jcheck NAME PYTHON-EXPR: run smcctl NAME --json, check the expression
# over the parsed document j.
jcheck() {
	local cmd=$1 expr=$2 out

	out=$("$SMCCTL" "$cmd" --json) || fail "smcctl $cmd --json exited $?"
	log "smcctl $cmd --json: $out"
	J="$out" $PY -c "import json, os, sys
j = json.loads(os.environ['J'])
sys.exit(0 if ($expr) else 1)" || fail "smcctl $cmd --json: unexpected: $out"
}

side='all(isinstance(j[s]["total"], int) and isinstance(j[s]["reasons"], list) for s in ("client", "server"))'
jcheck info 'j["version"] >= 1 and isinstance(j["hostname"], str) and j["ism_v2"] is False'
jcheck fallback "$side"
jcheck stats 'all(isinstance(j[k][s], int) for k in ("smcr_connections", "fallbacks", "handshake_errors") for s in ("client", "server"))'
jcheck connections 'isinstance(j["connections"], list)'
"$SMCCTL" fallback >/dev/null || fail "smcctl fallback (text) failed"
"$SMCCTL" stats >/dev/null || fail "smcctl stats (text) failed"
"$SMCCTL" connections || fail "smcctl connections (text) failed"

# stats -d: every counter the module exports over netlink, in the shape of
# tools/smcctl/README.md (the text form too); since_reset null: no reset
export XDG_CACHE_HOME=$RESULTS/cache
jcheck stats 'all(len(j[d]["req_sizes"]) == 9 and len(j[d]["buf_sizes"]) == 9 and sorted(j[d]["buf"]) == sorted(["small_peer", "small", "full_peer", "full", "reuse", "alloc", "downgrade"]) and isinstance(j[d]["buf_in_use"], int) for d in ("rx", "tx")) and sorted(j["special_calls"]) == ["cork", "nodelay", "sendpage", "splice", "urgent"] and set(j["fallback_reasons"]) == {"client", "server"} and j["since_reset"] is None and j["smcr_connections"]["client"] == j["smcr_connections"]["client_v1"] + j["smcr_connections"]["client_v2"]'
"$SMCCTL" stats -d >"$RESULTS/stats-d.txt" || fail "smcctl stats -d failed"
grep -q "^special calls: cork " "$RESULTS/stats-d.txt" || fail "smcctl stats -d: $(cat "$RESULTS/stats-d.txt")"
jcheck reasons 'len(j["reasons"]) == 36'
"$SMCCTL" connections -l --json >"$RESULTS/listening.json" || fail "smcctl connections -l failed"
J="$(cat "$RESULTS/listening.json")" $PY -c 'import json, os, sys
sys.exit(0 if all(c["state"] == "LISTEN" for c in json.loads(os.environ["J"])["connections"]) else 1)' ||
	fail "connections -l lists more than listeners: $(cat "$RESULTS/listening.json")"

# names with quotes, backslashes and control bytes stay valid JSON: a
# dummy device so named, in the PNET table and as a filter
awkward=0
for name in 'q"b\x' $'c\001x' 'plain'; do
	ip link add "$name" type dummy 2>/dev/null || { log "ip refuses the name ${name@Q}"; continue; }
	"$SMCCTL" pnet add SMCCTLQ --eth "$name" || fail "pnet add with netdev ${name@Q} failed"
	out=$("$SMCCTL" --json pnet show SMCCTLQ) || fail "pnet show SMCCTLQ failed"
	N="$name" J="$out" $PY -c 'import json, os, sys
e = json.loads(os.environ["J"])["pnet"]
sys.exit(0 if [x["netdev"] for x in e] == [os.environ["N"]] else 1)' ||
		fail "pnet show with netdev ${name@Q}: $out"
	out=$("$SMCCTL" --json connections --netdev "$name") &&
		[ "$out" = '{"connections":[]}' ] || fail "connections --netdev ${name@Q}: $out"
	"$SMCCTL" pnet show SMCCTLQ >/dev/null || fail "pnet show (text) with netdev ${name@Q}"
	"$SMCCTL" pnet del SMCCTLQ || fail "pnet del SMCCTLQ failed"
	ip link del "$name"
	awkward=$((awkward + 1))
done
[ "$awkward" -ge 2 ] || fail "only $awkward of the awkward device names could be tried"
log "smcctl: stats -d, reasons, connections -l and $awkward awkward names ok"

# smcctl ueid: add (lower case raised, blank padded), show, del, flush;
# the kernel's refusals come back as errno with exit 1, bad input as 2.
# ueid_has EID: whether `smcctl --json ueid show` lists EID
ueid_has() {
	E="$1" J="$("$SMCCTL" --json ueid show)" $PY -c 'import json, os, sys
sys.exit(0 if os.environ["E"] in json.loads(os.environ["J"])["ueid"] else 1)'
}
before=$("$SMCCTL" --json ueid show) || fail "smcctl ueid show failed"
log "smcctl --json ueid show: $before"
"$SMCCTL" ueid add smcctl-test.1 || fail "smcctl ueid add failed"
ueid_has SMCCTL-TEST.1 || fail "smcctl ueid add: SMCCTL-TEST.1 not shown: $("$SMCCTL" --json ueid show)"
"$SMCCTL" ueid show | grep -qx SMCCTL-TEST.1 || fail "smcctl ueid show (text) lacks SMCCTL-TEST.1"
rc=0; "$SMCCTL" ueid add SMCCTL-TEST.1 2>"$RESULTS/ueid.err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "errno 17" "$RESULTS/ueid.err" ||
	fail "second ueid add: exit $rc, $(cat "$RESULTS/ueid.err"), want errno 17 (EEXIST)"
rc=0; "$SMCCTL" ueid add 'BAD_EID' 2>"$RESULTS/ueid.err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "errno 22" "$RESULTS/ueid.err" ||
	fail "ueid add BAD_EID: exit $rc, $(cat "$RESULTS/ueid.err"), want errno 22 (EINVAL)"
rc=0; "$SMCCTL" ueid add "$(printf 'A%.0s' $(seq 33))" 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "ueid add of 33 characters: exit $rc, want 2"
if command -v setpriv >/dev/null; then
	rc=0; setpriv --reuid=65534 --regid=65534 --clear-groups "$SMCCTL" ueid add NOBODY \
		2>"$RESULTS/ueid.err" || rc=$?
	[ "$rc" -eq 1 ] && grep -q "errno 1)" "$RESULTS/ueid.err" ||
		fail "ueid add as nobody: exit $rc, $(cat "$RESULTS/ueid.err"), want errno 1 (EPERM)"
fi
"$SMCCTL" ueid del smcctl-test.1 || fail "smcctl ueid del failed"
! ueid_has SMCCTL-TEST.1 || fail "smcctl ueid del: SMCCTL-TEST.1 still shown"
"$SMCCTL" ueid add SMCCTL-TEST.2 && "$SMCCTL" ueid flush || fail "smcctl ueid flush failed"
[ "$("$SMCCTL" --json ueid show)" = '{"ueid":[]}' ] ||
	fail "after ueid flush: $("$SMCCTL" --json ueid show)"
# put back what was there (the harness's UEID)
for e in $(J="$before" $PY -c 'import json, os; print(" ".join(json.loads(os.environ["J"])["ueid"]))'); do
	"$SMCCTL" ueid add "$e" || fail "cannot restore UEID $e"
done
[ "$("$SMCCTL" --json ueid show)" = "$before" ] ||
	fail "UEIDs not restored: $("$SMCCTL" --json ueid show), want $before"
log "smcctl ueid: add, show, del, flush, refusals ok"

# Unloading must take the family and the diag handler away cleanly: smcctl
# then reports the missing module with exit code 3.
unload_check() {
	local rc

	# A missing family or diag handler makes the kernel modprobe for it,
	# which would load the distribution's smc.ko: no autoloading here.
	echo /bin/true >/proc/sys/kernel/modprobe
	# closed sockets may take a moment to let go of the module
	for _ in $(seq 60); do
		smc_rmmod 2>/dev/null && break
		sleep 0.5
	done
	! grep -q '^smc ' /proc/modules || fail "smc_rmmod failed: $(grep '^smc ' /proc/modules)"
	for cmd in fallback stats connections info "check 127.0.0.1:1"; do
		rc=0
		# shellcheck disable=SC2086 # "check ADDR" is two words
		"$SMCCTL" $cmd --json >/dev/null 2>"$RESULTS/nosmc.err" || rc=$?
		[ "$rc" -eq 3 ] || fail "smcctl $cmd without module: exit $rc, not 3"
		grep -q "is the smc module loaded" "$RESULTS/nosmc.err" ||
			fail "smcctl $cmd without module: $(cat "$RESULTS/nosmc.err")"
	done
	# debug-bundle does not load the module, and says why it has no views
	"$SMCCTL" debug-bundle "$RESULTS/bundle-nosmc" >/dev/null ||
		fail "smcctl debug-bundle without module failed"
	grep -q "smc module is not loaded" "$RESULTS/bundle-nosmc/INDEX.txt" ||
		fail "debug-bundle without module: $(cat "$RESULTS/bundle-nosmc/INDEX.txt")"
	! grep -q '^smc ' /proc/modules || fail "debug-bundle loaded the smc module"
	log "module unloaded, smcctl reports it"
}

$PY -c "import socket; socket.socket(43, socket.SOCK_STREAM, 0).close()" 2>"$RESULTS/af_smc.err" ||
	fail "AF_SMC sockets cannot be created: $(tail -n 1 "$RESULTS/af_smc.err")"

# Python knows no AF_SMC addresses: bind/connect through libc.
SMCPY='import ctypes, socket, struct, time
libc = ctypes.CDLL(None, use_errno=True)
def sin(ip, port):
    return struct.pack("=H", socket.AF_INET) + struct.pack("!H", port) + socket.inet_aton(ip) + bytes(8)
def call(fn, s, ip, port):
    a = sin(ip, port)
    if fn(s.fileno(), a, len(a)) != 0:
        raise OSError(ctypes.get_errno(), "bind/connect failed")
def smc_socket():
    return socket.socket(43, socket.SOCK_STREAM, 0)
'
port=5100
case "$VM_INDEX" in
0)
	# plain TCP server: the AF_SMC client on VM 1 must fall back
	run_bg tcp-server $PY -c "
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('0.0.0.0', $port)); s.listen(4)
print('listening', flush=True)
s.settimeout(120)
c, _ = s.accept()
c.settimeout(60)
while True:
    d = c.recv(4096)
    if not d:
        break
    c.sendall(d)
"
	wait_file_line "$RESULTS/tcp-server.log" listening 30
	# an AF_SMC listener must be listed
	run_bg smc-listener $PY -c "$SMCPY
s = smc_socket()
call(libc.bind, s, '0.0.0.0', $((port + 1))); s.listen(1)
print('listening', flush=True)
time.sleep(20)
"
	listener=$BG_PID
	wait_file_line "$RESULTS/smc-listener.log" listening 30
	# plain TCP, any number of connections: smcctl check falls back
	run_bg tcp-check $PY -c "
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('0.0.0.0', $((port + 2)))); s.listen(8)
print('listening', flush=True)
s.settimeout(90)
end = time.time() + 90
while time.time() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        break
    c.close()
"
	tcpcheck=$BG_PID
	wait_file_line "$RESULTS/tcp-check.log" listening 30
	jcheck connections "any(c['state'] == 'LISTEN' and c['local_port'] == $((port + 1)) for c in j['connections'])"
	barrier listening
	barrier fallback-checked
	wait_bg "$listener" 60 || fail "AF_SMC listener failed"
	kill "$tcpcheck" 2>/dev/null || true
	wait "$tcpcheck" 2>/dev/null || true
	;;
1)
	barrier listening
	# from here on count anew: stats reset keeps a baseline per netns
	"$SMCCTL" stats reset >/dev/null || fail "smcctl stats reset failed"
	ls "$XDG_CACHE_HOME"/smcctl/stats-net* >/dev/null 2>&1 ||
		fail "stats reset left no baseline in $XDG_CACHE_HOME/smcctl"
	jcheck fallback 'j["client"]["total"] == 0 and j["server"]["total"] == 0 and j["since_reset"] > 0'
	before=$("$SMCCTL" fallback --json -a)
	run_bg smc-client $PY -c "$SMCPY
s = smc_socket()
call(libc.connect, s, '$VM_IP_0', $port)
s.settimeout(60)
s.sendall(b'hello'); assert s.recv(5) == b'hello'
print('connected', flush=True)
time.sleep(15)
"
	wait_file_line "$RESULTS/smc-client.log" connected 90
	jcheck connections "any(c['peer_port'] == $port and c['mode'] == 'TCP' and c['fallback_reason'] != 0 and c['fallback_reason_name'] != 'UNKNOWN' for c in j['connections'])"
	export B=$before
	jcheck fallback "j['client']['total'] == 1 and [r['name'] for r in j['client']['reasons']] == ['SMC_CLC_DECL_PEERNOSMC']"
	out=$("$SMCCTL" fallback --json -a)
	J="$out" $PY -c "import json, os, sys
j = json.loads(os.environ['J'])
sys.exit(0 if j['client']['total'] == json.loads(os.environ['B'])['client']['total'] + 1 and j['since_reset'] is None else 1)" ||
		fail "fallback -a: $out, before $before"

	# smcctl check against plain TCP: exit 4, the reason and what to do
	rc=0
	"$SMCCTL" check "$VM_IP_0:$((port + 2))" >"$RESULTS/check.txt" 2>&1 || rc=$?
	log "smcctl check (TCP server): exit $rc: $(cat "$RESULTS/check.txt")"
	[ "$rc" -eq 4 ] && grep -q "TCP fallback: .*SMC_CLC_DECL_PEERNOSMC" "$RESULTS/check.txt" &&
		grep -q "what to do: " "$RESULTS/check.txt" || fail "smcctl check: exit $rc"
	rc=0
	out=$("$SMCCTL" --json check "$VM_IP_0:$((port + 2))") || rc=$?
	J="$out" P="$VM_IP_0:$((port + 2))" $PY -c "import json, os, sys
j = json.loads(os.environ['J'])
sys.exit(0 if j['mode'] == 'TCP' and j['peer'] == os.environ['P'] and j['fallback_reason_name'] == 'SMC_CLC_DECL_PEERNOSMC' and j['hint'] and j['role'] == 'client' else 1)" &&
		[ "$rc" -eq 4 ] || fail "smcctl --json check: exit $rc, $out"
	jcheck stats "j['fallbacks']['client'] == 3 and j['since_reset'] is not None"
	rc=0
	"$SMCCTL" check -t 5 "$VM_IP_0:$((port + 9))" 2>"$RESULTS/check-refused.txt" || rc=$?
	[ "$rc" -eq 1 ] || fail "smcctl check of a closed port: exit $rc, $(cat "$RESULTS/check-refused.txt")"
	log "smcctl check: TCP fallback with PEERNOSMC, a closed port is an error"
	# counters and sockets are per network namespace
	out=$(unshare -n "$SMCCTL" fallback --json) || fail "smcctl in a new netns failed"
	[ "$out" = '{"client":{"total":0,"reasons":[]},"server":{"total":0,"reasons":[]},"since_reset":null}' ] ||
		fail "new netns sees fallbacks: $out"
	out=$(unshare -n "$SMCCTL" connections --json) || fail "smcctl in a new netns failed"
	out2=$(unshare -n "$SMCCTL" stats --json) || fail "smcctl stats in a new netns failed"
	J="$out2" $PY -c 'import json, os, sys
sys.exit(0 if json.loads(os.environ["J"])["since_reset"] is None else 1)' ||
		fail "a new netns uses this one's stats baseline: $out2"
	[ "$out" = '{"connections":[]}' ] || fail "new netns sees sockets: $out"
	log "a new network namespace sees no fallbacks and no sockets"
	barrier fallback-checked
	wait_bg "$BG_PID" 60 || fail "AF_SMC client failed"
	;;
*)
	barrier listening
	barrier fallback-checked
	;;
esac
barrier sockets-closed
unload_check
barrier smcctl-done
log "smcctl ok"
