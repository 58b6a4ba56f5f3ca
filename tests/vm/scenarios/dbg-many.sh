#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debug only (not in the manifest): sockdiff's "many" case (64 concurrent
# connections, each echoing 64 KiB after a shutdown(SHUT_WR)) over AF_SMC,
# SMCR_MANY_RUNS times (default 30), to catch a connection whose echo
# comes back short or wrong.  Each failing run's stderr (which names the
# connection, what it sent and received) and the verdict go to the log;
# the scenario fails if any run did.
#   tests/vm/vmtest --vms 2 --impl ours scenarios/dbg-many.sh
set -uo pipefail
. "$REPO/tests/vm/lib/guest.sh"

sd=$REPO/tests/sock/sockdiff
SMCCTL=$(smcctl_path) || fail "cannot find or build smcctl"
port=7001
runs=${SMCR_MANY_RUNS:-30}

case "$VM_INDEX" in
0)
	run_bg srv "$sd" server --port $port --family smc --timeout 1800
	wait_file_line "$RESULTS/srv.log" 'listening|sockdiff:' 30
	smcr_snapshot before
	barrier listening
	barrier done 3000
	smcr_snapshot after
	log "server: $(smcj stats-delta "$RESULTS/before" "$RESULTS/after" | tr '\n' ' ')"
	grep -v listening "$RESULTS/srv.log" | head -n 20
	"$SMCCTL" connections | head -n 80
	;;
1)
	barrier listening
	smcr_snapshot before
	bad=0
	for i in $(seq "$runs"); do
		"$sd" client --host "$VM_IP_0" --port $port --family smc \
			--only many --out "$RESULTS/many-$i.txt" 2>"$RESULTS/many-$i.err"
		rc=$?
		if [ "$rc" -ne 0 ] || ! grep -q 'echo_ok 64$' "$RESULTS/many-$i.txt"; then
			bad=$((bad + 1))
			log "run $i: exit $rc, $(grep echo_ok "$RESULTS/many-$i.txt")"
			grep 'many:' "$RESULTS/many-$i.err" | head -n 8
			"$SMCCTL" connections | head -n 80
		fi
	done
	log "many: $bad of $runs runs failed"
	smcr_snapshot after
	log "client: $(smcj stats-delta "$RESULTS/before" "$RESULTS/after" | tr '\n' ' ')"
	barrier done
	[ "$bad" -eq 0 ] || fail "many: $bad of $runs runs failed"
	;;
esac
log "dbg-many done"
