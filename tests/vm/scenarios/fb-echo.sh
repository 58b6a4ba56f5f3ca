#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Echo between VM 0 (server) and VM 1 (client) with our module loaded where
# the harness put it, in the mode the pairing allows.  FB_SERVER_FAMILY and
# FB_CLIENT_FAMILY (smc|inet) pick each side's socket family; the payload is
# verified end to end by smc_echo.  ECHO_BYTES, ECHO_CONNS as in smc-echo.sh.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

bytes=${ECHO_BYTES:-1048576}
conns=${ECHO_CONNS:-4}
sfam=${FB_SERVER_FAMILY:-smc}
cfam=${FB_CLIENT_FAMILY:-smc}
port=5001
[ "$VM_COUNT" -ge 2 ] || fail "needs two VMs"

case "$VM_INDEX" in
0)
	run_bg echo-server smc_echo -s -f "$sfam" -p "$port" -n "$conns" -t 200
	server=$BG_PID
	wait_file_line "$RESULTS/echo-server.log" listening 30
	barrier listening
	wait_bg "$server" 220 || { cat "$RESULTS/echo-server.log"; fail "server failed"; }
	cat "$RESULTS/echo-server.log"
	;;
1)
	barrier listening
	smc_echo -c "$VM_IP_0" -f "$cfam" -p "$port" -B "$bytes" -N "$conns" -t 200 ||
		fail "smc_echo client failed"
	;;
esac
barrier echo-done
log "fb-echo ok ($cfam client -> $sfam server)"
