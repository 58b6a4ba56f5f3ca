#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark (tests/bench/run): the same workloads, in the same two VMs
# and the same run, over TCP, the distribution's smc.ko on both ends, our
# smc.ko on both ends, and raw RDMA verbs (perftest) as the testbed's
# limit.  Started with impl none: this script loads and unloads the SMC
# modules itself, so every implementation meets the same booted kernels.
# VM 0 serves, VM 1 drives the workloads (tests/vm/tools/smc_bench).
#
# SMCR_BENCH=small (default, what CI runs to prove the command works) or
# full; SMCR_BENCH_REPS repetitions of each workload (default 1 small, 3
# full).  Results, for tests/bench/report:
#   vm1/bench.jsonl    one JSON object per workload run, with the busy
#                      and total jiffies of both VMs around it
#   vmN/mem.jsonl      MemFree and slab before/with the idle connections
# redis-benchmark GET and SET against redis-server run too when both are
# installed (tests/setup.sh installs them), through smc_run's preload for
# dist and ours.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "bench needs two VMs"
[ "$SMC_IMPL" = none ] || fail "bench loads the modules itself: start it with impl none"
size=${SMCR_BENCH:-small}
case "$size" in
small) reps=${SMCR_BENCH_REPS:-1} ;;
full) reps=${SMCR_BENCH_REPS:-3} ;;
*) fail "SMCR_BENCH must be small or full" ;;
esac
port=5600
bench=smc_bench
out=$RESULTS/bench.jsonl
: >"$out"
: >"$RESULTS/mem.jsonl"

# meminfo KEY -> kB
meminfo() {
	awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo
}

load_impl() {
	local dep

	case "$1" in
	tcp) ;;
	dist)
		modprobe smc
		modprobe smc_diag 2>/dev/null || true
		"$VM_TOOLS/ueid" add "$SMC_UEID" >/dev/null
		;;
	ours)
		for dep in $(modinfo -F depends "$SMC_KO" | tr ',' ' '); do
			modprobe "$dep"
		done
		insmod "$SMC_KO" ueid="$SMC_UEID"
		for dep in ${SMCR_BENCH_OURS_SYSCTL:-}; do
			sysctl -qw "$dep" || return 1
		done
		;;
	esac
}

unload_impl() {
	local i

	[ "$1" != tcp ] || return 0
	# sockets of the finished runs may still be closing
	for i in $(seq 100); do
		rmmod smc_diag 2>/dev/null || true
		rmmod smc 2>/dev/null && return 0
		sleep 0.3
	done
	fail "cannot unload the $1 module"
}

# rxe_pkts: RoCE packets VM 1's rxe0 sent and received so far ("S R")
rxe_pkts() {
	echo "$(rdma_counter sent_pkts) $(rdma_counter rcvd_pkts)"
}

# one measured workload: VM 1 runs ARGS; smc_bench reads both VMs' CPU
# time around it (cpu_local, cpu_peer in its result), and VM 1's RoCE
# packets around it go in "rxe": [sent, received] (every packet between
# the two VMs: the RDMA WRITEs, SENDs and rxe's acknowledgements)
measure() {
	local impl=$1 name=$2 rep=$3 res p0 p1
	shift 3

	barrier "w-start"
	if [ "$VM_INDEX" -eq 1 ]; then
		p0=$(rxe_pkts)
		res=$("$bench" -c "$VM_IP_0" -p "$port" -f "$fam" "$@") ||
			fail "$impl $name: smc_bench $* failed"
		p1=$(rxe_pkts)
		printf '{"impl":"%s","name":"%s","rep":%d,"rxe":[%d,%d],"result":%s}\n' \
			"$impl" "$name" "$rep" $((${p1% *} - ${p0% *})) \
			$((${p1#* } - ${p0#* })) "$res" >>"$out"
		log "$impl $name #$rep: $res"
	fi
	barrier "w-end" 600
}

# redis IMPL REP N: redis-benchmark -t set,get (N requests each, 4
# clients, 64 B values) from VM 1 against redis-server on VM 0, both
# through smc_run's preload library for dist and ours; smc_bench -w cpu
# reads both VMs' CPU time around it.
redis_port=6390
redis() {
	local impl=$1 rep=$2 n=$3 pre=() csv op rps cpu go=/tmp/redis-cpu-go cpid

	[ "$impl" = tcp ] || pre=(env "LD_PRELOAD=$preload")
	if [ "$VM_INDEX" -eq 0 ]; then
		rm -rf "/tmp/redis-$impl"
		mkdir -p "/tmp/redis-$impl"
		run_bg "redis-server-$impl" "${pre[@]}" redis-server \
			--port "$redis_port" --bind 0.0.0.0 --protected-mode no \
			--save '' --appendonly no --dir "/tmp/redis-$impl"
		rsrv=$BG_PID
		wait_file_line "$RESULTS/redis-server-$impl.log" "Ready to accept" 60 ||
			fail "$impl: redis-server did not start"
	fi
	barrier "redis-up-$impl"
	if [ "$VM_INDEX" -eq 1 ]; then
		rm -f "$go"
		"$bench" -c "$VM_IP_0" -p "$port" -f "$fam" -w cpu -W "$go" \
			>/tmp/redis-cpu.json &
		cpid=$!
		csv=$(timeout 300 "${pre[@]}" redis-benchmark -h "$VM_IP_0" \
			-p "$redis_port" -t set,get -n "$n" -c 4 -d 64 --csv) ||
			fail "$impl: redis-benchmark failed"
		: >"$go"
		wait "$cpid" || fail "$impl: smc_bench -w cpu failed"
		cpu=$(sed -n 's/^{"workload":"cpu",//p' /tmp/redis-cpu.json)
		cpu=${cpu%\}}
		[ -n "$cpu" ] || fail "$impl: no CPU figures around redis-benchmark"
		for op in SET GET; do
			rps=$(awk -F'","' -v op="\"$op" '$1 == op { print $2 }' <<<"$csv")
			[ -n "$rps" ] || fail "$impl: no $op line in redis-benchmark's output: $csv"
			printf '{"impl":"%s","name":"redis-%s","rep":%d,"result":{"workload":"redis","requests":%d,"rps":%s,%s}}\n' \
				"$impl" "${op,,}" "$rep" "$n" "$rps" "$cpu" >>"$out"
			log "$impl redis-${op,,} #$rep: $rps requests/s"
		done
	fi
	barrier "redis-end-$impl" 600
	if [ "$VM_INDEX" -eq 0 ]; then
		kill "$rsrv" 2>/dev/null || true
		wait "$rsrv" 2>/dev/null || true
	fi
	barrier "redis-down-$impl"
}

# memory per idle connection: N connections open, then both VMs look
idle_memory() {
	local impl=$1 n=$2 go=$SHARED/idle-release.$1 free0 slab0 pid

	barrier "idle-before"
	sync
	echo 1 >/proc/sys/vm/drop_caches 2>/dev/null || true
	free0=$(meminfo MemFree)
	slab0=$(($(meminfo Slab)))
	if [ "$VM_INDEX" -eq 1 ]; then
		rm -f "$go"
		"$bench" -c "$VM_IP_0" -p "$port" -f "$fam" -w idle -n "$n" -W "$go" \
			>"$RESULTS/idle.$impl.log" 2>&1 &
		pid=$!
		wait_file_line "$RESULTS/idle.$impl.log" "connections open" 120 ||
			fail "$impl: idle connections did not open"
	fi
	barrier "idle-open" 180
	sleep 1
	printf '{"impl":"%s","conns":%d,"memfree_kb":%d,"slab_kb":%d}\n' \
		"$impl" "$n" $((free0 - $(meminfo MemFree))) \
		$(($(meminfo Slab) - slab0)) >>"$RESULTS/mem.jsonl"
	barrier "idle-measured"
	if [ "$VM_INDEX" -eq 1 ]; then
		: >"$go"
		wait "$pid" || fail "$impl: idle client failed"
	fi
	barrier "idle-done"
}

if [ "$size" = small ]; then
	rr_sizes="64"
	rr_rounds=60
	stream_bytes=$((2 << 20))
	streams="1"
	crr_par="1"
	crr_conns=20
	idle_conns=5
	redis_n=200
else
	rr_sizes="1 64 1024 16384"
	rr_rounds=500
	stream_bytes=$((32 << 20))
	streams="1 8"
	crr_par="1 8"
	crr_conns=100
	idle_conns=50
	redis_n=2000
fi
with_redis=1
preload=$(smc_preload_path) || with_redis=0
command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null ||
	with_redis=0
[ "$with_redis" = 1 ] || log "redis-benchmark: skipped (redis or the smc_run library missing)"

# For quick comparisons by hand: SMCR_BENCH_ONLY, the workloads to run
# (default "rr stream crr redis idle"), and SMCR_BENCH_IMPLS, what to
# run them over (default "tcp dist ours raw"); SMCR_BENCH_OURS_SYSCTL,
# "key=value ..." set after loading ours (e.g. net.smc.rmem=131072).
only=${SMCR_BENCH_ONLY:-rr stream crr redis idle}
impls=${SMCR_BENCH_IMPLS:-tcp dist ours raw}
want() { [[ " $only $impls " == *" $1 "* ]]; }

# Repetitions outside, implementations inside: the testbed drifts over a
# run, and this way every implementation sees each stretch of it.
for ((r = 1; r <= reps; r++)); do
	for impl in $impls; do
		[ "$impl" != raw ] || continue
		fam=smc
		[ "$impl" = tcp ] && fam=tcp
		load_impl "$impl" || fail "cannot load $impl"
		barrier "loaded-$impl"
		if [ "$VM_INDEX" -eq 0 ]; then
			run_bg "server-$impl-$r" "$bench" -s -f "$fam" -p "$port"
			srv=$BG_PID
			wait_file_line "$RESULTS/server-$impl-$r.log" listening 30 ||
				fail "$impl: server did not start"
		fi
		barrier "serving-$impl"
		want rr && for s in $rr_sizes; do
			measure "$impl" "rr-$s" "$r" -w rr -m "$s" -n "$rr_rounds"
		done
		want stream && for p in $streams; do
			measure "$impl" "stream-$p" "$r" -w stream -P "$p" \
				-B $((stream_bytes / p)) -m 65536
		done
		want crr && for p in $crr_par; do
			measure "$impl" "crr-$p" "$r" -w crr -P "$p" -n "$crr_conns"
		done
		[ "$with_redis" = 0 ] || ! want redis || redis "$impl" "$r" "$redis_n"
		# once, in the last round
		[ "$r" -lt "$reps" ] || ! want idle || idle_memory "$impl" "$idle_conns"
		if [ "$VM_INDEX" -eq 0 ]; then
			kill "$srv" 2>/dev/null || true
			wait "$srv" 2>/dev/null || true
		fi
		barrier "done-$impl"
		unload_impl "$impl"
		barrier "unloaded-$impl"
		log "$impl round $r done"
	done
done

# raw verbs between the same VMs: the testbed's limit
if ! want raw; then
	log "bench ($size, $reps repetition(s)) done"
	exit 0
fi
gidx=$(rxe_gid_index) || fail "no RoCE v2 IPv4 GID on rxe0"
raw_iters=30
[ "$size" = full ] && raw_iters=500
vport=18600
# each repetition too, since the testbed drifts over a run
for ((r = 1; r <= reps; r++)); do
	for t in ib_write_lat ib_send_lat ib_write_bw; do
		args=(-d rxe0 -x "$gidx" -p "$vport" -n "$raw_iters")
		[ "$t" = ib_write_bw ] && args+=(-s 65536)
		[ "$t" != ib_write_bw ] && args+=(-s 64)
		if [ "$VM_INDEX" -eq 0 ]; then
			run_bg "$t" "$t" "${args[@]}"
			pid=$BG_PID
			barrier "raw-$t-$r" 60
			wait_bg "$pid" 300 || fail "$t server failed"
		else
			barrier "raw-$t-$r" 60
			sleep 1
			timeout 300 "$t" "${args[@]}" "$VM_IP_0" >"$RESULTS/$t.log" 2>&1 ||
				fail "$t client failed: $(tail -n 3 "$RESULTS/$t.log")"
			# the last numeric row of perftest's table
			awk -v t="$t" -v r="$r" '/^ *[0-9]+ +[0-9]+/ { row = $0 }
				END { n = split(row, f, " "); if (!n) exit 1;
				if (t == "ib_write_bw")
					printf "{\"impl\":\"raw\",\"name\":\"%s\",\"rep\":%d,\"result\":{\"workload\":\"raw\",\"bytes\":%s,\"iters\":%s,\"mbps\":%s}}\n", t, r, f[1], f[2], f[4] * 1.048576;
				else
					printf "{\"impl\":\"raw\",\"name\":\"%s\",\"rep\":%d,\"result\":{\"workload\":\"raw\",\"bytes\":%s,\"iters\":%s,\"median_us\":%s,\"p99_us\":%s}}\n", t, r, f[1], f[2], f[5], f[8] }' \
				"$RESULTS/$t.log" >>"$out" || fail "$t: no result row"
			log "$t: $(tail -n 1 "$out")"
		fi
		barrier "raw-$t-$r-done" 300
	done
done
log "bench ($size, $reps repetition(s)) done"
