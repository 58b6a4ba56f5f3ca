#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A link that dies under live SMC-R connections: VM 1 deletes its rxe0 in
# the middle of 4 echo transfers.  Every transfer must end within a bounded
# time with an error on both sides (no hang, no corrupted byte accepted),
# both kernels
# stay quiet (the harness fails on any warning), the client's link group is
# gone, and new connections then fall back to TCP and still carry data.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "needs two VMs"
ctl=$(smcctl_path) || fail "cannot find or build smcctl"
port=5200

# lgr_count: how many link groups `smcctl --json linkgroups` lists; fails
# when smcctl fails or prints no list of them.
lgr_count() {
	local n

	"$ctl" --json linkgroups >"$RESULTS/linkgroups.json" 2>"$RESULTS/linkgroups.err" ||
		fail "smcctl --json linkgroups failed: $(paste -sd' ' "$RESULTS/linkgroups.err")"
	n=$(smcj lgrs -f "$RESULTS/linkgroups.json") ||
		fail "smcctl --json linkgroups: no list of link groups: '$(head -c 200 "$RESULTS/linkgroups.json")'"
	echo "${n%% *}"
}
# The server learns of the dead link from failed RDMA writes or, when it
# has nothing to write, from TEST_LINK after this much silence (default
# 30 s): shorter, so that the bounded wait below is short too.
sysctl -qw net.smc.smcr_testlink_time=5 || fail "cannot set net.smc.smcr_testlink_time"
case "$VM_INDEX" in
0)
	run_bg load-server smc_load -s -f smc -p "$port" -n 4 -t 150
	server=$BG_PID
	wait_file_line "$RESULTS/load-server.log" 'listening|smc_load:' 30
	barrier listening
	barrier cut-done 200
	# This side learns it from failed RDMA writes or TEST_LINK: bounded.
	t0=$SECONDS
	rc=0
	wait_bg "$server" 100 || rc=$?
	tail -n 3 "$RESULTS/load-server.log"
	log "server ended with $rc after $((SECONDS - t0)) s"
	# 124: still running after 100 s, killed by wait_bg: a hang, no error
	[ "$rc" -ne 124 ] || fail "the server hung on the dead link (killed after 100 s)"
	[ "$rc" -ne 0 ] || fail "server saw no error on a dead link"
	grep -q 'timed out' "$RESULTS/load-server.log" &&
		fail "the server side hung instead of failing"
	run_bg echo-server smc_echo -s -f smc -p $((port + 1)) -n 1 -t 100
	wait_file_line "$RESULTS/echo-server.log" listening 30
	barrier fallback-listening
	wait_bg "$BG_PID" 110 || fail "echo server after the cut failed"
	barrier done 200
	;;
1)
	barrier listening
	t0=$SECONDS
	run_bg load-client smc_load -c "$VM_IP_0" -f smc -p "$port" -N 4 \
		-B $((64 * 1024 * 1024)) -m echo -t 120
	client=$BG_PID
	# let the data flow, then pull the device
	sleep 4
	"$ctl" linkgroups || true
	log "deleting rxe0 under the transfers"
	rdma link delete rxe0 || fail "rdma link delete failed"
	rc=0
	wait_bg "$client" 130 || rc=$?
	tail -n 5 "$RESULTS/load-client.log"
	log "client ended with $rc after $((SECONDS - t0)) s"
	[ "$rc" -ne 124 ] || fail "the client hung on the dead link (killed after 130 s)"
	[ "$rc" -ne 0 ] || fail "transfers over a deleted device all succeeded?"
	grep -q 'timed out' "$RESULTS/load-client.log" &&
		fail "a transfer hung instead of failing"
	lgs=$(lgr_count) || exit 1
	log "link groups after the cut: $lgs"
	[ "$lgs" -eq 0 ] || fail "$lgs link group(s) still listed after the device went away"
	barrier cut-done
	barrier fallback-listening
	smc_echo -c "$VM_IP_0" -f smc -p $((port + 1)) -B 1048576 -N 1 -t 100 ||
		fail "new connection after the cut failed"
	"$ctl" fallback || true
	barrier done
	;;
esac
log "smcr-linkdown ok"
