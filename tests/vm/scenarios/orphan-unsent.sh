#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An orphan with data it can never write: iperf3 through smc_run, VM 1's
# client against VM 0's one-off server.  At the end of the test the server
# stops reading and closes; the client's last bytes still wait for room in
# the server's RMB when the client closes too.  TCP resets such a
# connection at once.  Ours must as well: within a few seconds of the
# client's exit no SMC socket may be left on VM 1 and its module must
# unload, where before the orphan held both for its 60 s orphan time
# (seen with the distribution's module as the server, whose reader leaves
# room unannounced when it closes; either module may serve).
set -uo pipefail
. "$REPO/tests/vm/lib/guest.sh"
. "$REPO/tests/vm/lib/app.sh"

[ "$VM_COUNT" -eq 2 ] || fail "needs two VMs"
SMC_RUN=$REPO/tools/smc_run/smc_run
port=5201
case "$VM_INDEX" in
0)
	smcr_setup
	run_bg srv "$SMC_RUN" iperf3 -s -1 -B "$VM_IP_0" -p $port
	wait_listen $port 30
	barrier up
	barrier finished 300
	;;
1)
	smcr_setup
	barrier up
	timeout 120 "$SMC_RUN" iperf3 -c "$VM_IP_0" -p $port -n 16000000 \
		--json >"$RESULTS/iperf3.json" 2>&1 || fail "iperf3 client failed"
	left=
	for _ in $(seq 20); do
		left=$("$SMCCTL" --json connections | smcj conns | grep -c . || true)
		[ "$left" -eq 0 ] && break
		sleep 0.25
	done
	if [ "$left" -ne 0 ]; then
		"$SMCCTL" connections 2>&1 | sed 's/^/  conns| /'
		fail "$left SMC connection(s) left 5 s after the client exited"
	fi
	smc_rmmod || fail "the module cannot be unloaded after the client exited"
	log "no connection left, module unloaded"
	barrier finished
	;;
esac
log "orphan-unsent ok"
