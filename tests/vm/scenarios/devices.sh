#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The RDMA device layer of our smc.ko (net/smc/ib.c) as `smcctl devices`
# shows it: rxe0 is listed with port 1 active on eth0; its port follows
# eth0 going down and up; a new network namespace sees the device but not
# the netdev; `rdma link delete rxe0` takes it away and adding it again
# brings it back; the module unloads cleanly while rxe0 exists, and a new
# load finds the existing device.  The harness fails the run on any
# kernel warning in dmesg; this script also checks dmesg after each step.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$SMC_IMPL" = ours ] || fail "needs SMC_IMPL=ours, not $SMC_IMPL"
PY=/usr/bin/python3

SMCCTL=$(smcctl_path) || fail "cannot build smcctl"

# jeval PYTHON-EXPR: evaluate the expression over `smcctl devices --json`
# parsed as j; 0 if true.  The document is left in $OUT.
jeval() {
	OUT=$("$SMCCTL" devices --json) || fail "smcctl devices --json exited $?"
	J="$OUT" $PY -c "import json, os, sys
j = json.loads(os.environ['J'])
d = {x['name']: x for x in j['devices']}
sys.exit(0 if ($1) else 1)"
}

# wait_for WHAT PYTHON-EXPR: poll jeval for up to 20 s.
wait_for() {
	local what=$1 expr=$2 i

	for i in $(seq 100); do
		jeval "$expr" && { log "$what: $OUT"; return 0; }
		[ "$i" -eq 100 ] || sleep 0.2
	done
	fail "$what: not seen within 20 s: $OUT"
}

# no kernel problem so far, by the harness's own list (it checks again at
# the end)
. "$REPO/tests/lib/kernel-problems.sh"
dmesg_clean() {
	if dmesg | grep -E "$KERNEL_PROBLEM_RE" >&2; then
		fail "kernel warnings after $1"
	fi
}

port_up='"rxe0" in d and len(d["rxe0"]["ports"]) == 1 and
	d["rxe0"]["ports"][0]["port"] == 1 and d["rxe0"]["ports"][0]["active"] and
	d["rxe0"]["ports"][0]["netdev"] == "eth0" and
	d["rxe0"]["ports"][0]["ifindex"] > 0 and d["rxe0"]["pci"] is None and
	d["rxe0"]["critical"] is False and d["rxe0"]["ports"][0]["links"] == 0'
port_down='"rxe0" in d and not d["rxe0"]["ports"][0]["active"] and
	d["rxe0"]["ports"][0]["netdev"] == "eth0"'

wait_for "rxe0 listed, port 1 active on eth0" "$port_up"
"$SMCCTL" devices || fail "smcctl devices (text) failed"
"$SMCCTL" devices | grep -Eq '^rxe0 +- +1 +ACTIVE +eth0 ' ||
	fail "smcctl devices (text): $("$SMCCTL" devices)"

# The lookups of the data path, through debugfs: eth0 maps to rxe0 port 1
# with a RoCE v2 GID that is eth0's IPv4 address; rxe has no RoCE v1 GID.
# The port state comes from rxe's port events (IB_EVENT_PORT_ERR/_ACTIVE).
debugfs_up
LOOKUP=/sys/kernel/debug/smc_ib_lookup
lookup_re="^eth0 rxe0 1 v1 - - v2 ::ffff:${VM_IP//./\\.} [0-9]+\$"
wait_lookup() {
	local what=$1 want=$2 i

	for i in $(seq 100); do
		if [ "$want" = present ]; then
			grep -Eq "$lookup_re" "$LOOKUP" && break
		else
			grep -q '^eth0 ' "$LOOKUP" || break
		fi
		[ "$i" -lt 100 ] || fail "$what: $(cat "$LOOKUP")"
		sleep 0.2
	done
	log "$what: $(cat "$LOOKUP")"
}
wait_lookup "lookup: eth0 maps to rxe0" present

# the port follows its netdev
ip link set eth0 down
wait_for "eth0 down: port inactive" "$port_down"
wait_lookup "lookup: eth0 down, no usable port" absent
ip link set eth0 up
wait_for "eth0 up: port active again" "$port_up"
wait_lookup "lookup: eth0 up, rxe0 port 1 again" present

# another network namespace sees the (shared) device, not the netdev
out=$(unshare -n "$SMCCTL" devices --json) || fail "smcctl in a new netns failed"
J="$out" $PY -c "import json, os, sys
p = {x['name']: x for x in json.loads(os.environ['J'])['devices']}['rxe0']['ports'][0]
sys.exit(0 if p['ifindex'] == 0 and p['netdev'] is None else 1)" ||
	fail "new netns: unexpected: $out"
log "a new netns sees rxe0 without its netdev: $out"
dmesg_clean "the port checks"

# device removal while we are registered
rdma link delete rxe0 || fail "rdma link delete rxe0 failed"
wait_for "rxe0 deleted: gone" '"rxe0" not in d'
dmesg_clean "rdma link delete"
rdma link add rxe0 type rxe netdev eth0 || fail "rdma link add rxe0 failed"
wait_for "rxe0 added again: back" "$port_up"
wait_lookup "lookup: the new rxe0" present
dmesg_clean "rdma link add"

# unload while rxe0 exists; a new load finds it
echo /bin/true >/proc/sys/kernel/modprobe	# no autoload of Debian's smc
for _ in $(seq 60); do
	smc_rmmod 2>/dev/null && break
	sleep 0.5
done
! grep -q '^smc ' /proc/modules || fail "smc_rmmod failed: $(grep '^smc ' /proc/modules)"
rc=0
"$SMCCTL" devices --json >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 3 ] || fail "smcctl devices without module: exit $rc, not 3"
log "module unloaded with rxe0 present"
dmesg_clean "rmmod smc"
insmod "$SMC_KO" || fail "insmod $SMC_KO failed"
wait_for "reloaded: rxe0 found at registration" "$port_up"
smc_rmmod || fail "second rmmod smc failed"
dmesg_clean "the second rmmod"
log "devices ok"
