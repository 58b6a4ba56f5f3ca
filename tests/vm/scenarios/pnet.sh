#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The PNET table (generic netlink family SMC_PNETID) through smcctl pnet.
#
# Every VM, any module (ours or dist: the same ABI):
#   table   add/show/del/flush round trip; RDMA port entries show in
#           smcctl devices as PNET ID set by the user; refusals and their
#           errnos: 17-character and non-alphanumeric IDs (EINVAL), ports
#           0 and 3 (EINVAL), a second entry for a network device or port
#           (EEXIST), deleting what is not there (ENOENT), changes by a
#           user without CAP_NET_ADMIN (EPERM); entries for devices that do
#           not exist (yet) are taken, as by Linux 6.12; a new network
#           namespace has a table of its own.
# Our module also: IDs match without case, invalid network device names
# are refused, and an admin of a user namespace owns its netns's table.
#
# With two VMs (VM 0 serves, VM 1 connects, smc_echo verifies the data):
#   match   eth0 and rxe0 port 1 in NET1 on both VMs: SMC-R (handshake
#           counters, rxe0 packets), the link group's PNET ID is NET1;
#   differ  VM 1's eth0 in NETA, rxe0 in NETB: VM 1 finds no RDMA device
#           and falls back (reason 0x03030000), the data still arrives;
#   flush   VM 1's table flushed: SMC-R again.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$SMC_IMPL" != none ] || fail "pnet needs an SMC module"
smcr_setup
# setpriv's user must be able to run it: a copy in /tmp
cp "$SMCCTL" /tmp/smcctl
chmod 0755 /tmp/smcctl
SMCCTL=/tmp/smcctl
PY=/usr/bin/python3
BYTES=262144

# try WANT CMD...: CMD (smcctl) must succeed (WANT 0) or fail with errno
# WANT, which smcctl prints as "(errno N)".
try() {
	local want=$1 out rc=0

	shift
	out=$("$@" 2>&1) || rc=$?
	if [ "$want" -eq 0 ]; then
		[ "$rc" -eq 0 ] || fail "'$*' failed ($rc): $out"
	else
		[ "$rc" -eq 1 ] && [[ $out == *"(errno $want)"* ]] ||
			fail "'$*' gave exit $rc, want errno $want: $out"
	fi
	log "ok: $* -> ${out:-exit 0}"
}

# table PYTHON-EXPR: the JSON of `smcctl pnet show` as t (a list of
# entries) must make the expression true.
table() {
	local json

	json=$("$SMCCTL" --json pnet show) || fail "smcctl pnet show failed"
	T="$json" $PY -c "import json, os, sys
t = json.loads(os.environ['T'])['pnet']
null = None
sys.exit(0 if ($1) else 1)" || fail "pnet table $json is not: $1"
}

# port_pnetid: rxe0 port 1's PNET ID and whether the user set it
port_pnetid() {
	"$SMCCTL" --json devices | $PY -c "import json, sys
for d in json.load(sys.stdin)['devices']:
    if d['name'] == 'rxe0':
        p = [p for p in d['ports'] if p['port'] == 1][0]
        print(p['pnetid'], str(p['pnetid_by_user']).lower())"
}

pnet() {
	"$SMCCTL" pnet "$@"
}

# ---- table ----

try 0 pnet flush
table 't == []'
try 0 pnet add NET1 --eth eth0
try 0 pnet add NET1 --ib rxe0 --port 1
table 't == [{"pnetid": "NET1", "netdev": "eth0", "ibdev": null, "ibport": null},
             {"pnetid": "NET1", "netdev": null, "ibdev": "rxe0", "ibport": 1}]'
[ "$(port_pnetid)" = "NET1 true" ] ||
	fail "rxe0 port 1 shows PNET ID '$(port_pnetid)', want 'NET1 true'"
"$SMCCTL" pnet show NET1 | grep -q '^NET1 .*rxe0 *1$' ||
	fail "smcctl pnet show NET1: $("$SMCCTL" pnet show NET1)"
try 17 pnet add NET2 --eth eth0
try 17 pnet add NET1 --ib rxe0 --port 1
try 22 pnet add ABCDEFGHIJKLMNOPQ --eth eth1
try 22 pnet add NET-1 --eth eth1
try 22 pnet add 'NET 1' --eth eth1
try 22 pnet add NET3 --ib rxe0 --port 0
try 22 pnet add NET3 --ib rxe0 --port 3
try 1 setpriv --reuid=65534 --regid=65534 --clear-groups $SMCCTL pnet add NET4 --eth eth1
try 1 setpriv --reuid=65534 --regid=65534 --clear-groups $SMCCTL pnet flush
try 0 setpriv --reuid=65534 --regid=65534 --clear-groups $SMCCTL pnet show
# devices that do not exist are taken by name, for when they appear
try 0 pnet add ABCDEFGHIJKLMNOP --eth nosuch0
try 0 pnet add ABCDEFGHIJKLMNOP --ib nosuchib --port 2
table 'len(t) == 4 and t[2] == {"pnetid": "ABCDEFGHIJKLMNOP", "netdev": "nosuch0", "ibdev": null, "ibport": null}'
try 0 pnet del ABCDEFGHIJKLMNOP
try 2 pnet del ABCDEFGHIJKLMNOP
table 'len(t) == 2'
# another network namespace: a table of its own, empty
out=$(unshare -n "$SMCCTL" --json pnet show) || fail "pnet show in a new netns failed"
[ "$out" = '{"pnet":[]}' ] || fail "a new netns sees $out"
try 0 unshare -n sh -c "$SMCCTL pnet add NS1 --eth lo && $SMCCTL pnet show | grep -q '^NS1 *lo '"
table 'len(t) == 2'
if [ "$SMC_IMPL" = ours ]; then
	try 0 pnet del net1
	table 't == []'
	try 22 pnet add NET5 --eth 'a/b'
	# CAP_NET_ADMIN in a user namespace is enough for its netns's table
	try 0 unshare -Urn sh -c "$SMCCTL pnet add US1 --eth lo && $SMCCTL pnet show | grep -q '^US1 *lo '"
else
	try 0 pnet del NET1
	table 't == []'
fi
[ "$(port_pnetid)" = " false" ] ||
	fail "rxe0 port 1 shows PNET ID '$(port_pnetid)' after del"
try 0 pnet add NET1 --eth eth0 --ib rxe0
try 0 pnet flush
try 0 pnet flush
table 't == []'
log "pnet table ok ($SMC_IMPL)"
[ "$VM_COUNT" -ge 2 ] || exit 0

# ---- connections ----

# echo PHASE: one verified AF_SMC echo connection VM 1 -> VM 0 with
# snapshots PHASE-before and PHASE-after on both VMs.
echo_phase() {
	local port=$2

	smcr_snapshot "$1-before"
	if [ "$VM_INDEX" -eq 0 ]; then
		run_bg "$1-server" smc_echo -s -f smc -p "$port" -n 1 -t 60
		wait_file_line "$RESULTS/$1-server.log" listening 30
		barrier "$1-listening"
		wait_bg "$BG_PID" 70 || fail "$1: echo server failed: $(cat "$RESULTS/$1-server.log")"
	else
		barrier "$1-listening"
		smc_echo -c "$VM_IP_0" -f smc -p "$port" -B "$BYTES" -N 1 -t 60 ||
			fail "$1: echo client failed"
	fi
	barrier "$1-done"
	smcr_snapshot "$1-after"
}

# fallbacks PHASE: new client fallbacks with reason 0x03030000 on this VM
fallbacks() {
	B="$RESULTS/$1-before.fallback.json" A="$RESULTS/$1-after.fallback.json" \
		$PY -c "import json, os
c = lambda f: {r['reason']: r['count'] for r in json.load(open(os.environ[f]))['client']['reasons']}
print(c('A').get(0x03030000, 0) - c('B').get(0x03030000, 0))"
}

try 0 pnet add NET1 --eth eth0
try 0 pnet add NET1 --ib rxe0 --port 1
barrier match-set
echo_phase match 5401
if [ "$VM_INDEX" -eq 0 ]; then
	smcr_expect_stats match-before match-after 0 1
	smcr_expect_rdma match-before match-after $((BYTES / 1024)) $((BYTES / 1024))
else
	smcr_expect_stats match-before match-after 1 0
	smcr_expect_rdma match-before match-after $((BYTES / 1024)) $((BYTES / 1024))
fi
"$SMCCTL" --json linkgroups | $PY -c "import json, sys
g = json.load(sys.stdin)['linkgroups']
sys.exit(0 if g and all(x['pnetid'] == 'NET1' for x in g) else 1)" ||
	smcr_problem "link groups not in NET1: $("$SMCCTL" --json linkgroups)"
smcr_verdict "pnet match"

if [ "$VM_INDEX" -eq 1 ]; then
	try 0 pnet flush
	try 0 pnet add NETA --eth eth0
	try 0 pnet add NETB --ib rxe0 --port 1
fi
barrier differ-set
echo_phase differ 5402
if [ "$VM_INDEX" -eq 1 ]; then
	n=$(fallbacks differ)
	[ "$n" -eq 1 ] ||
		fail "differ: $n new client fallbacks with reason 0x03030000, want 1: $(cat "$RESULTS/differ-after.fallback.json")"
fi
log "stats differ: $(cat "$RESULTS/differ-after.stats.json")"
log "pnet differ ok: fell back, data verified"

if [ "$VM_INDEX" -eq 1 ]; then
	try 0 pnet flush
fi
barrier flush-set
echo_phase flush 5403
if [ "$VM_INDEX" -eq 0 ]; then
	smcr_expect_stats flush-before flush-after 0 1
else
	smcr_expect_stats flush-before flush-after 1 0
fi
smcr_expect_rdma flush-before flush-after $((BYTES / 1024)) $((BYTES / 1024))
smcr_verdict "pnet flush"
try 0 pnet flush
log "pnet ok"
