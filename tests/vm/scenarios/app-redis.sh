#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# redis-server on VM 0, redis-benchmark and redis-cli on VM 1, unmodified,
# first through smc_run, then in the eBPF policy's cgroup (lib/app.sh).
# Each way:
#   - redis-benchmark -t set,get -n SMCR_APP_REDIS_N (default 2000) -c
#     SMCR_APP_REDIS_CONNS (default 4) -P SMCR_APP_REDIS_PIPELINE (default
#     4: fewer round trips, which are slow under emulation) with 1 KiB
#     values exits 0 without an error line;
#   - the server's INFO commandstats (read with redis-cli) counts exactly
#     N SETs and N GETs, none failed or rejected, and INFO errorstats is
#     empty;
#   - redis-cli SET then GET of a fresh value returns it;
#   - smcctl stats: every new handshake on both VMs is SMC-R (the server
#     accepted as many as the client made), no fallback; rxe0 moved at
#     least a packet per KiB of values each way.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"
. "$REPO/tests/vm/lib/app.sh"

app_need redis-server redis-benchmark redis-cli
app_setup app-redis
n=${SMCR_APP_REDIS_N:-2000}
conns=${SMCR_APP_REDIS_CONNS:-4}
pipe=${SMCR_APP_REDIS_PIPELINE:-4}
size=1024
port=6379

# cli WAY LOGNAME ARGS...: redis-cli to VM 0's server, output in LOGNAME.log
cli() {
	local way=$1 name=$2

	shift 2
	app_run "$way" "$name" 60 redis-cli -h "$VM_IP_0" -p "$port" "$@" ||
		smcr_problem "app-redis $way: redis-cli $* failed: $(paste -sd';' "$RESULTS/$name.log")"
}

for way in $APP_WAYS; do
	app_begin "$way"
	if [ "$VM_INDEX" -eq 0 ]; then
		dir=/tmp/redis-$way
		mkdir -p "$dir"
		app_bg "$way" "redis-server-$way" redis-server --port "$port" \
			--bind "$VM_IP_0" --protected-mode no --save '' \
			--appendonly no --dir "$dir" --daemonize no
		pid=$BG_PID
		wait_listen "$port"
		barrier "$way-listening"
		barrier "$way-client-done" 180
		kill -TERM "$pid"
		wait_bg "$pid" 30 ||
			smcr_problem "app-redis $way: redis-server exited $?: $(tail -n 3 "$RESULTS/redis-server-$way.log" | paste -sd';')"
		summary="redis-server: $(grep -c 'Ready to accept' "$RESULTS/redis-server-$way.log") start, $(grep -c 'ready to exit' "$RESULTS/redis-server-$way.log") clean exit"
		app_end "$way" $((n * size)) $((n * size)) "$summary"
		continue
	fi

	barrier "$way-listening"
	app_run "$way" "bench-$way" 150 redis-benchmark -h "$VM_IP_0" -p "$port" \
		-n "$n" -c "$conns" -P "$pipe" -d "$size" -t set,get --csv ||
		smcr_problem "app-redis $way: redis-benchmark exited $?: $(tail -n 3 "$RESULTS/bench-$way.log" | paste -sd';')"
	grep -i 'error' "$RESULTS/bench-$way.log" &&
		smcr_problem "app-redis $way: redis-benchmark reported errors"
	log "redis-benchmark: $(paste -sd' ' "$RESULTS/bench-$way.log")"

	cli "$way" "stats-$way" INFO commandstats
	cli "$way" "errors-$way" INFO errorstats
	tr -d '\r' <"$RESULTS/stats-$way.log" >"$RESULTS/stats-$way.txt"
	calls=0
	for cmd in set get; do
		line=$(grep "^cmdstat_$cmd:" "$RESULTS/stats-$way.txt") || line=
		log "server: ${line:-no cmdstat_$cmd}"
		c=$(sed -n 's/^[^:]*:calls=\([0-9]*\),.*/\1/p' <<<"$line")
		calls=$((calls + ${c:-0}))
		[[ $line == *"calls=$n,"* && $line == *"rejected_calls=0,failed_calls=0"* ]] ||
			smcr_problem "app-redis $way: server counted '$line', want calls=$n, none failed"
	done
	grep -q '^errorstat_' "$RESULTS/errors-$way.log" &&
		smcr_problem "app-redis $way: server errors: $(grep '^errorstat_' "$RESULTS/errors-$way.log" | paste -sd' ')"

	value="smc-r $way $(date +%s%N) $RANDOM"
	cli "$way" "set-$way" SET app:key "$value"
	cli "$way" "get-$way" GET app:key
	got=$(tr -d '\r' <"$RESULTS/get-$way.log")
	[ "$(tr -d '\r' <"$RESULTS/set-$way.log")" = OK ] && [ "$got" = "$value" ] ||
		smcr_problem "app-redis $way: GET returned '$got', want '$value'"
	log "redis-cli: SET/GET app:key = '$got'"
	barrier "$way-client-done" 180
	errs=$(grep -ci 'error' "$RESULTS/bench-$way.log") || true
	app_end "$way" $((n * size)) $((n * size)) \
		"redis-benchmark -c $conns -P $pipe: $calls SET+GET requests served of $((2 * n)), $errs errors, redis-cli SET/GET $([ "$got" = "$value" ] && echo ok || echo FAILED)"
done
app_verdict
