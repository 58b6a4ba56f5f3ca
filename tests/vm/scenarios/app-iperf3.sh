#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iperf3 server on VM 0, iperf3 client on VM 1, unmodified, first through
# smc_run, then in the eBPF policy's cgroup (lib/app.sh).  Each way runs
# two one-off tests (iperf3 -s -1) of SMCR_APP_IPERF_BYTES (default 8 MiB):
# client -> server, then server -> client (-R).  Each test:
#   - both iperf3 exit 0; the sender's --json report has sent at least
#     that many bytes (it checks its count after each burst of writes);
#     the receiver's has received no more than that and at most 1 MiB
#     less (iperf3 stops counting at the end-of-test message, so data
#     still in the socket buffers then is not counted);
#   - smcctl stats: every new handshake on both VMs is SMC-R (the server
#     accepted as many as the client made: control and data connections),
#     no fallback; rxe0 moved at least a packet per KiB each way.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"
. "$REPO/tests/vm/lib/app.sh"

app_need iperf3
app_setup app-iperf3
bytes=${SMCR_APP_IPERF_BYTES:-8388608}
port=5201

# json_bytes FILE: "SENT RECEIVED" of an iperf3 --json report (end.sum_*)
json_bytes() {
	F=$1 $APP_PY -c '
import json, os
e = json.load(open(os.environ["F"]))["end"]
print(e["sum_sent"]["bytes"], e["sum_received"]["bytes"])' 2>/dev/null || echo "? ?"
}

for way in $APP_WAYS; do
	app_begin "$way"
	for dir in up down; do
		if [ "$VM_INDEX" -eq 0 ]; then
			app_bg "$way" "server-$way-$dir" iperf3 -s -1 -B "$VM_IP_0" \
				-p "$port" --json
			pid=$BG_PID
			wait_listen "$port"
			barrier "$way-$dir-listening"
			wait_bg "$pid" 120 ||
				smcr_problem "app-iperf3 $way $dir: server exited $?: $(tail -n 3 "$RESULTS/server-$way-$dir.log" | paste -sd';')"
			log_file=$RESULTS/server-$way-$dir.log
		else
			barrier "$way-$dir-listening"
			rev=
			[ "$dir" = down ] && rev=-R
			app_run "$way" "client-$way-$dir" 120 iperf3 -c "$VM_IP_0" \
				-p "$port" -n "$bytes" $rev --json ||
				smcr_problem "app-iperf3 $way $dir: client exited $?: $(grep -m1 error "$RESULTS/client-$way-$dir.log")"
			log_file=$RESULTS/client-$way-$dir.log
		fi
		cp "$log_file" "$SHARED/app-iperf3.$way.$dir.vm$VM_INDEX.json"
		barrier "$way-$dir-done" 180
		# the sender's own count and the receiver's own count
		snd=$SHARED/app-iperf3.$way.$dir.vm1.json rcv=$SHARED/app-iperf3.$way.$dir.vm0.json
		[ "$dir" = up ] || { snd=$rcv; rcv=$SHARED/app-iperf3.$way.$dir.vm1.json; }
		read -r sent _ <<<"$(json_bytes "$snd")"
		read -r _ rcvd <<<"$(json_bytes "$rcv")"
		n=$rcvd
		[[ $n =~ ^[0-9]+$ ]] || n=0
		[ "$dir" = up ] && up_bytes=$n || down_bytes=$n
		log "iperf3 $dir ($way): the sender sent $sent bytes, the receiver received $rcvd"
		[[ $sent =~ ^[0-9]+$ && $rcvd =~ ^[0-9]+$ ]] && [ "$sent" -ge "$bytes" ] &&
			[ "$rcvd" -le "$sent" ] && [ "$rcvd" -ge $((bytes - 1048576)) ] ||
			smcr_problem "app-iperf3 $way $dir: sent $sent, received $rcvd bytes, want $bytes"
	done
	app_end "$way" "$up_bytes" "$down_bytes" \
		"iperf3 -n $bytes: $up_bytes bytes received up, $down_bytes bytes received down (-R)"
done
app_verdict
