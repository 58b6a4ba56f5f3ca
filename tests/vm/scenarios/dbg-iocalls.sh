#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debug only (not in the manifest): sockdiff iocalls/msgflags alone, with
# the connection state of both VMs dumped while the client waits
# (smcctl --json connections, conns-a.json).  SMCR_ONLY=a,b picks other
# sockdiff scenarios, SMCR_DUMP_AT=S when to dump (default 25 s).
#   tests/vm/vmtest --vms 2 --impl dist,ours scenarios/dbg-iocalls.sh
set -uo pipefail
. "$REPO/tests/vm/lib/guest.sh"

sd=$REPO/tests/sock/sockdiff
SMCCTL=$(smcctl_path) || fail "no smcctl"
only=${SMCR_ONLY:-iocalls}
dump() {
	log "dump $1"
	"$SMCCTL" --json connections >"$RESULTS/conns-$1.json" 2>&1
	cat /sys/kernel/debug/smc/* >"$RESULTS/debug-$1.txt" 2>/dev/null
}
case "$VM_INDEX" in
0)
	run_bg srv "$sd" server --port 7001 --family smc --timeout 200
	wait_file_line "$RESULTS/srv.log" 'listening|sockdiff:' 30
	barrier listening
	barrier started
	sleep "${SMCR_DUMP_AT:-25}"; dump a
	barrier dumped
	barrier finished 200
	;;
1)
	barrier listening
	run_bg cli "$sd" client --host "$VM_IP_0" --port 7001 --family smc \
		--only "$only" --out "$RESULTS/pair.txt"
	c=$BG_PID
	barrier started
	sleep "${SMCR_DUMP_AT:-25}"; dump a
	barrier dumped
	wait_bg "$c" 170; rc=$?
	log "client exit $rc"
	cat "$RESULTS/pair.txt"
	"$sd" quit --host "$VM_IP_0" --port 7001
	barrier finished 200
	[ "$rc" -eq 0 ] || fail "client failed"
	;;
esac
