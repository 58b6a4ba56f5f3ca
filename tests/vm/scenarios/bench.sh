#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark (tests/bench/run): the same workloads, in the same two VMs
# and the same run, over these columns (VM 0 the server, VM 1 the client):
#   tcp        TCP
#   dist       the distribution's smc.ko on both VMs
#   ours       our smc.ko on both VMs, defaults
#   ours-std   our smc.ko on both VMs with net.smc.smcr_write_imm=0 (the
#              data-path extension off); skipped, with a "skip" line in
#              bench.jsonl, when our module has no such sysctl
#   ours-dist  ours on VM 0 (server), the distribution's on VM 1 (client)
#   dist-ours  the distribution's on VM 0, ours on VM 1
#   raw        raw RDMA verbs (perftest): the testbed's limit
# With vmtest --rdma siw (siw0, Soft-iWARP, on each VM's eth0 and no
# rxe0) the columns are tcp, ours and raw alone (the default there): our
# module's links go over iWARP (rdma_cm, MPA over TCP), the
# distribution's module cannot use iWARP (it falls back) and ours-std
# changes nothing on it (iWARP has no WRITE WITH IMMEDIATE); raw is
# perftest over siw0 in its rdma_cm mode.
# Started with impl none: this script loads and unloads the SMC modules
# itself, so every column meets the same booted kernels.  VM 0 serves,
# VM 1 drives the workloads (tests/vm/tools/smc_bench; sockperf, iperf3
# and redis-benchmark through tools/smc_run for the SMC columns).
#
# SMCR_BENCH=small (default, what CI runs to prove the command works) or
# full; SMCR_BENCH_REPS repetitions (default 1 small, 5 full).  The
# repetition is the outer loop and the column the inner one, so that
# host drift over the run hits every column alike.  Results, for
# tests/bench/report:
#   vm1/bench.jsonl    one JSON object per workload run and repetition,
#                      with the busy and total jiffies of both VMs and
#                      VM 1's RoCE packets around it ("rxe"; on siw0 the
#                      KiB its links' MPA streams carried instead)
#   vm1/meta.json      the guest kernel, size, repetitions, columns and
#                      RDMA device (rdma: rxe or siw)
#   vmN/mem.jsonl      free memory (MemFree and the per-cpu free lists)
#                      and slab before/with the idle connections, per
#                      column and repetition, as measured: a negative
#                      difference is kept, marked "negative" and logged
#                      (noise larger than the connections' memory),
#                      never made 0
# The SMC-R columns must be SMC-R: every workload must move RoCE packets
# on VM 1's rxe0, at least one per message or KiB of payload each way
# (on siw0: at least the KiB of payload and CDC messages it sent over
# MPA, least_moved), make new SMC-R connections, and no fallback or
# handshake error may be counted on either VM; otherwise the bench
# fails, rather than report a run that fell back to TCP as SMC-R.
# redis-benchmark GET and SET against redis-server, sockperf (ping-pong
# and throughput) and iperf3 run too when installed (tests/setup.sh
# installs them); a missing one is skipped with a note in the log.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "bench needs two VMs"
[ "$SMC_IMPL" = none ] || fail "bench loads the modules itself: start it with impl none"
size=${SMCR_BENCH:-small}
case "$size" in
small) reps=${SMCR_BENCH_REPS:-1} ;;
full) reps=${SMCR_BENCH_REPS:-5} ;;
*) fail "SMCR_BENCH must be small or full" ;;
esac
port=5600
bench=smc_bench
SMCCTL=$(smcctl_path) || fail "cannot find or build smcctl"
out=$RESULTS/bench.jsonl
: >"$out"
# the RDMA device between the VMs (vmtest --rdma): rxe0, or siw0 alone
# (iwarp=1), where rdma_counter counts the KiB the links' MPA streams
# carried instead of RoCE packets
iwarp=0 rdev=rxe0 unit="RoCE packets"
if siw_only; then
	iwarp=1 rdev=siw0 unit="KiB over MPA"
fi
[ -d "/sys/class/infiniband/$rdev" ] || fail "no rxe0 and no siw0"
: >"$RESULTS/mem.jsonl"

# meminfo KEY -> kB
meminfo() {
	awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo
}

# mod_of COLUMN: the module this VM runs for COLUMN (none, dist, ours)
mod_of() {
	case "$1" in
	tcp | raw) echo none ;;
	dist | ours) echo "$1" ;;
	ours-std) echo ours ;;
	ours-dist) if [ "$VM_INDEX" -eq 0 ]; then echo ours; else echo dist; fi ;;
	dist-ours) if [ "$VM_INDEX" -eq 0 ]; then echo dist; else echo ours; fi ;;
	*) fail "unknown column $1" ;;
	esac
}

# load_impl MODULE [SYSCTL...]: load none, dist or ours; for ours, set
# the iWARP port on siw0, SMCR_BENCH_OURS_SYSCTL's and then the given
# "key=value" sysctls
load_impl() {
	local dep m=$1

	shift
	case "$m" in
	none) ;;
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
		# on siw0, the iWARP links' listener on the port rdma_counter
		# counts (SMC_IWARP_PORT), as vmtest's impl ours puts it
		[ "$iwarp" = 0 ] ||
			sysctl -qw "net.smc.smcr_iwarp_port=$SMC_IWARP_PORT" || return 1
		for dep in ${SMCR_BENCH_OURS_SYSCTL:-} "$@"; do
			sysctl -qw "$dep" || return 1
		done
		;;
	esac
}

unload_impl() {
	local i err

	[ "$1" != none ] || return 0
	# sockets of the finished runs may still be closing
	for i in $(seq 100); do
		rmmod smc_diag 2>/dev/null || true
		err=$(smc_rmmod 2>&1) && return 0
		sleep 0.3
	done
	# what still holds it: processes with SMC sockets, the sockets
	log "rmmod: $err; smc refcnt $(cat /sys/module/smc/refcnt 2>/dev/null)"
	pgrep -a -f 'smc_bench|sockperf|iperf3|redis|wrk' | sed 's/^/  ps| /'
	if [ "$1" = ours ] || [ "$1" = ours-std ]; then
		"$SMCCTL" connections 2>&1 | head -n 40 | sed 's/^/  conns| /'
	fi
	fail "cannot unload the $1 module"
}

# rxe_pkts: RoCE packets VM 1's rxe0 sent and received so far ("S R");
# on siw0, the KiB its SMC-R links' MPA streams sent and received
# (rdma_counter)
rxe_pkts() {
	echo "$(rdma_counter sent_pkts) $(rdma_counter rcvd_pkts)"
}

# smc_counts: this VM's SMC-R connections, fallbacks and handshake errors
# so far, client and server together ("C F E", smcctl --json stats)
smc_counts() {
	local s smcr_client smcr_server smcr_v1 smcr_v2 fb_client fb_server
	local hserr_client hserr_server rx_bytes tx_bytes

	s=$("$SMCCTL" --json stats | smcj stats) || fail "smcctl --json stats failed"
	eval "$s"
	echo "$((smcr_client + smcr_server)) $((fb_client + fb_server)) $((hserr_client + hserr_server))"
}

# counts_now: smc_counts, or the reading the last smcr_work took (nothing
# on this VM makes or refuses a connection between two workloads, and
# under emulation each reading costs more than a second of the run)
last_counts=
counts_now() {
	if [ -n "$last_counts" ]; then echo "$last_counts"; else smc_counts; fi
}

# smcr_counts WHAT C0 C1: between two smc_counts, new SMC-R connections
# and no new fallback or handshake error; else fail, saying why
smcr_counts() {
	local c0 f0 e0 c1 f1 e1

	read -r c0 f0 e0 <<<"$2"
	read -r c1 f1 e1 <<<"$3"
	[ "$f1" -eq "$f0" ] && [ "$e1" -eq "$e0" ] && [ "$c1" -gt "$c0" ] ||
		fail "$1: not all SMC-R: +$((c1 - c0)) SMC-R connections, +$((f1 - f0)) fallbacks, +$((e1 - e0)) handshake errors ($("$SMCCTL" fallback 2>&1 | paste -sd' '))"
}

# smcr_work WHAT C0 P0 SENT_MIN RCVD_MIN: since smc_counts C0 and
# rxe_pkts P0, the workload ran over SMC-R: rxe0 sent and received at
# least that many packets (an SMC-R workload one or more per message and
# per KiB of payload, rxe's MTU being 1024; one that fell back to TCP
# none), or siw0 that many KiB (least_moved), and smcr_counts; else fail
smcr_work() {
	local c1 p1 s r

	c1=$(smc_counts)
	last_counts=$c1
	p1=$(rxe_pkts)
	s=$((${p1% *} - ${3% *}))
	r=$((${p1#* } - ${3#* }))
	log "$1: $rdev sent $s, received $r $unit (want >= $4, >= $5)"
	smcr_counts "$1" "$2" "$c1"
	[ "$s" -ge "$4" ] && [ "$r" -ge "$5" ] ||
		fail "$1: $rdev sent $s and received $r $unit, want >= $4 and >= $5: the workload did not run over SMC-R"
}

# least_moved WORKLOAD ARGS: "SENT RCVD", the least rxe_pkts must move
# each way on VM 1 for WORKLOAD to have run over SMC-R:
#   rr SIZE ROUNDS      a message of SIZE bytes each way per round
#   stream BYTES        BYTES one way
#   crr CONNS           a 64 B request and its reply per connection
#   idle CONNS          a 64 B hello and its echo per connection
#   redis REQUESTS      a request and its reply each (SET and GET)
#   sockperf-pp         64 B messages both ways for seconds
#   sockperf-tp         1472 B messages one way for a second or more
#   iperf3 BYTES READ   BYTES one way, of which iperf3's server read
#                       READ: it stops at the end of the test, which
#                       comes over its other connection, and closes;
#                       the rest need not cross the wire
# On rxe0, RoCE packets: one or more per message and per KiB of payload
# (rxe's MTU being 1024), and back on a stream rxe's acknowledgements
# (asked for every 128 packets at least).  On siw0, KiB of the MPA
# streams: each message is an RDMA WRITE of its payload and a CDC
# message of cdc_len bytes (iWARP has no WRITE WITH IMMEDIATE), and the
# framing (MPA, DDP, RDMAP headers, CRC) only adds; rdma_counter rounds
# each reading down, so no more than the floor of those bytes over 1024
# can be asked; of iperf3's payload, only what its server read.  The
# way back of a stream has no acknowledgements there (TCP's carry no
# MPA bytes), only the receiver's CDC cursor updates and the final
# count: 64 B per MiB at least, as smcr_load_test asks (guest.sh),
# which is nothing in the small form.
cdc_len=44
least_moved() {
	local n

	if [ "$iwarp" = 0 ]; then
		case "$1" in
		rr) n=$(($3 * (($2 + 1023) / 1024))); echo "$n $n" ;;
		stream | iperf3) echo "$(($2 / 1024)) $(($2 / 131072))" ;;
		crr | idle) echo "$2 $2" ;;
		redis) echo "$2 $2" ;;
		sockperf-*) echo "10 10" ;;
		*) fail "least_moved: unknown workload $1" ;;
		esac
		return 0
	fi
	case "$1" in
	rr)
		n=$(($3 * ($2 + cdc_len) / 1024))
		[ "$n" -ge 1 ] || n=1
		echo "$n $n"
		;;
	stream) echo "$(($2 / 1024)) $(($2 / 16777216))" ;;
	iperf3) echo "$(($3 / 1024)) $(($3 / 16777216))" ;;
	crr | idle) n=$(($2 * (64 + cdc_len) / 1024)); echo "$n $n" ;;
	# a reply can be as short as redis's "+OK": its CDC message at least
	redis) n=$(($2 * cdc_len / 1024)); echo "$n $n" ;;
	# ten 64 B round trips; ten 1472 B messages one way
	sockperf-pp) n=$((10 * (64 + cdc_len) / 1024)); echo "$n $n" ;;
	sockperf-tp) echo "$((10 * (1472 + cdc_len) / 1024)) 0" ;;
	*) fail "least_moved: unknown workload $1" ;;
	esac
}

# one measured workload: VM 1 runs ARGS; smc_bench reads both VMs' CPU
# time around it (cpu_local, cpu_peer in its result), and VM 1's RoCE
# packets around it go in "rxe": [sent, received] (every packet between
# the two VMs: the RDMA WRITEs, SENDs and rxe's acknowledgements; on siw0
# the KiB over MPA).  Over SMC, at least SENT_MIN and RCVD_MIN of them
# (least_moved) and SMC-R connections only (smcr_work).
measure() {
	local impl=$1 name=$2 rep=$3 smin=$4 rmin=$5 res p0 p1 c0
	shift 5

	barrier "w-start"
	if [ "$VM_INDEX" -eq 1 ]; then
		[ "$fam" = tcp ] || c0=$(counts_now)
		p0=$(rxe_pkts)
		res=$("$bench" -c "$VM_IP_0" -p "$port" -f "$fam" "$@") ||
			fail "$impl $name: smc_bench $* failed"
		p1=$(rxe_pkts)
		[ "$fam" = tcp ] || smcr_work "$impl $name" "$c0" "$p0" "$smin" "$rmin"
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
	local p0 c0 least

	[ "$fam" = tcp ] || pre=(env "LD_PRELOAD=$preload")
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
		[ "$fam" = tcp ] || c0=$(counts_now)
		p0=$(rxe_pkts)
		"$bench" -c "$VM_IP_0" -p "$port" -f "$fam" -w cpu -W "$go" \
			>/tmp/redis-cpu.json &
		cpid=$!
		csv=$(timeout 300 "${pre[@]}" redis-benchmark -h "$VM_IP_0" \
			-p "$redis_port" -t set,get -n "$n" -c 4 -d 64 --csv) ||
			fail "$impl: redis-benchmark failed"
		: >"$go"
		wait "$cpid" || fail "$impl: smc_bench -w cpu failed"
		# a SET or GET request and its reply: a message each way
		least=$(least_moved redis $((2 * n)))
		# shellcheck disable=SC2086 # least: SENT RCVD
		[ "$fam" = tcp ] || smcr_work "$impl redis" "$c0" "$p0" $least
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

# mem_now: "FREE SLAB" in KiB, with the page cache dropped and the slab
# caches shrunk first: the same at both ends of a measurement, so that
# neither what was cached nor what sat on a CPU's slab counts.  FREE is
# MemFree and the free pages on the per-cpu lists, which MemFree leaves
# out (megabytes of them after a burst of frees).
mem_now() {
	local c

	sync
	echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true
	for c in /sys/kernel/slab/*/shrink; do
		echo 1 >"$c" 2>/dev/null || true
	done
	echo "$(($(meminfo MemFree) + 4 * $(awk '$1 == "count:" { n += $2 }
		END { print n + 0 }' /proc/zoneinfo))) $(meminfo Slab)"
}

# mem_settled: mem_now once free memory stopped moving (two looks a
# second apart within 64 KiB, ten at most): by then what the last
# workload's processes and connections held is freed
mem_settled() {
	local a b i

	b=$(mem_now)
	for i in $(seq 10); do
		a=$b
		sleep 1
		b=$(mem_now)
		[ $((${a% *} - ${b% *})) -le 64 ] && [ $((${b% *} - ${a% *})) -le 64 ] &&
			break
	done
	echo "$b"
}

# memory per idle connection: what N more connections take, to a peer
# that already has one (the link group exists), both VMs reading free
# memory before and with them.  It runs first after each load of a
# module, so that no closed connection of an earlier workload left
# buffers in a link group's pool (both modules keep them) for these to
# reuse unseen.  The first connection, the anchor, opens the link group;
# what it took, the link group's own memory and its buffers, is written
# apart (lgr_kb): per peer host, not per connection.  Both VMs read
# before any connection moves (mem_settled may take ten seconds on one
# VM and one on the other).  Written as measured; a negative difference
# (more free, or less slab, with the connections open) is noise larger
# than what the connections take (TIME_WAIT sockets of the workloads
# before that expired, ...): marked "negative" and logged, never made 0.
idle_memory() {
	local impl=$1 n=$2 rep=$3 go=$SHARED/idle-release.$1 free0 slab0 free1 slab1
	local pid apid p0 c0 tw0 tw1 least neg= freea

	barrier "idle-before"
	read -r freea _ <<<"$(mem_settled)"
	barrier "idle-base0"
	if [ "$VM_INDEX" -eq 1 ]; then
		rm -f "$go"
		"$bench" -c "$VM_IP_0" -p "$port" -f "$fam" -w idle -n 1 -W "$go" \
			>"$RESULTS/idle-anchor.$impl.log" 2>&1 &
		apid=$!
		wait_file_line "$RESULTS/idle-anchor.$impl.log" "connections open" 120 ||
			fail "$impl: the anchor connection did not open"
	fi
	barrier "idle-anchored" 180
	read -r free0 slab0 <<<"$(mem_settled)"
	tw0=$(ss -Htan state time-wait | wc -l)
	barrier "idle-base"
	if [ "$VM_INDEX" -eq 1 ]; then
		[ "$fam" = tcp ] || c0=$(counts_now)
		p0=$(rxe_pkts)
		"$bench" -c "$VM_IP_0" -p "$port" -f "$fam" -w idle -n "$n" -W "$go" \
			>"$RESULTS/idle.$impl.log" 2>&1 &
		pid=$!
		wait_file_line "$RESULTS/idle.$impl.log" "connections open" 120 ||
			fail "$impl: idle connections did not open"
		# a hello and its echo on each
		least=$(least_moved idle "$n")
		# shellcheck disable=SC2086 # least: SENT RCVD
		[ "$fam" = tcp ] || smcr_work "$impl idle" "$c0" "$p0" $least
	fi
	barrier "idle-open" 180
	read -r free1 slab1 <<<"$(mem_settled)"
	tw1=$(ss -Htan state time-wait | wc -l)
	if [ $((free0 - free1)) -lt 0 ] || [ $((slab1 - slab0)) -lt 0 ]; then
		neg=',"negative":true'
		log "idle memory, $impl: free memory dropped by $((free0 - free1)) KiB, slab grew by $((slab1 - slab0)) KiB with $n connections open (TIME_WAIT sockets $tw0 -> $tw1): negative, noise larger than the connections' memory; kept as measured"
	fi
	printf '{"impl":"%s","rep":%d,"conns":%d,"memfree_kb":%d,"slab_kb":%d,"lgr_kb":%d%s}\n' \
		"$impl" "$rep" "$n" $((free0 - free1)) $((slab1 - slab0)) \
		$((freea - free0)) "$neg" >>"$RESULTS/mem.jsonl"
	barrier "idle-measured"
	if [ "$VM_INDEX" -eq 1 ]; then
		: >"$go"
		wait "$pid" || fail "$impl: idle client failed"
		wait "$apid" || fail "$impl: the anchor client failed"
	fi
	barrier "idle-done"
}

# sockperf IMPL REP: sockperf's server on VM 0; from VM 1 a ping-pong of
# 64 B messages for sp_pp_secs (round-trip percentiles: --full-rtt) and
# a throughput run of 1472 B messages for sp_tp_secs (messages/s); through
# smc_run for the SMC columns, plain TCP for tcp.  A new port each time:
# sockperf's server does not set SO_REUSEADDR, and the last one's port
# may still be in TIME_WAIT.
sp_seq=0
sockperf_wl() {
	local impl=$1 rep=$2 pre=() spid c0 p0 p1 lg mode res p50 p99 avg obs rate
	local least
	local sp_port=$((11111 + sp_seq))

	sp_seq=$((sp_seq + 1))
	[ "$fam" = tcp ] || pre=("$SMC_RUN")
	if [ "$VM_INDEX" -eq 0 ]; then
		run_bg "sockperf-sr-$impl-$rep" "${pre[@]}" sockperf sr --tcp \
			-i "$VM_IP_0" -p "$sp_port"
		spid=$BG_PID
		wait_listen "$sp_port" 30
	fi
	barrier "sockperf-up-$impl"
	if [ "$VM_INDEX" -eq 1 ]; then
		for mode in pp tp; do
			lg=$RESULTS/sockperf-$mode-$impl-$rep.log
			[ "$fam" = tcp ] || c0=$(counts_now)
			p0=$(rxe_pkts)
			if [ "$mode" = pp ]; then
				timeout 120 "${pre[@]}" sockperf pp --tcp -i "$VM_IP_0" \
					-p "$sp_port" -t "$sp_pp_secs" -m 64 --full-rtt \
					>"$lg" 2>&1 || fail "$impl: sockperf pp failed: $(tail -n 3 "$lg" | paste -sd' ')"
			else
				timeout 120 "${pre[@]}" sockperf tp --tcp -i "$VM_IP_0" \
					-p "$sp_port" -t "$sp_tp_secs" -m 1472 \
					>"$lg" 2>&1 || fail "$impl: sockperf tp failed: $(tail -n 3 "$lg" | paste -sd' ')"
			fi
			p1=$(rxe_pkts)
			least=$(least_moved "sockperf-$mode")
			# shellcheck disable=SC2086 # least: SENT RCVD
			[ "$fam" = tcp ] || smcr_work "$impl sockperf-$mode" "$c0" "$p0" $least
			if [ "$mode" = pp ]; then
				p50=$(sed -n 's/.*percentile 50\.000 = *\([0-9.]*\).*/\1/p' "$lg")
				p99=$(sed -n 's/.*percentile 99\.000 = *\([0-9.]*\).*/\1/p' "$lg")
				avg=$(sed -n 's/.*Summary: Round trip is \([0-9.]*\) usec.*/\1/p' "$lg")
				obs=$(sed -n 's/.*Total \([0-9]*\) observations.*/\1/p' "$lg")
				[ -n "$p50" ] && [ -n "$p99" ] && [ -n "$avg" ] && [ -n "$obs" ] ||
					fail "$impl: no round-trip percentiles in sockperf's output ($lg)"
				res=$(printf '{"workload":"sockperf-pp","msg":64,"observations":%d,"median_us":%s,"p99_us":%s,"mean_us":%s}' \
					"$obs" "$p50" "$p99" "$avg")
			else
				rate=$(sed -n 's/.*Summary: Message Rate is \([0-9]*\) .*/\1/p' "$lg")
				[ -n "$rate" ] || fail "$impl: no message rate in sockperf's output ($lg)"
				res=$(printf '{"workload":"sockperf-tp","msg":1472,"msgps":%d,"mbps":%.2f}' \
					"$rate" "$(awk -v r="$rate" 'BEGIN { print r * 1472 / 1e6 }')")
			fi
			printf '{"impl":"%s","name":"sockperf-%s","rep":%d,"rxe":[%d,%d],"result":%s}\n' \
				"$impl" "$mode" "$rep" $((${p1% *} - ${p0% *})) \
				$((${p1#* } - ${p0#* })) "$res" >>"$out"
			log "$impl sockperf-$mode #$rep: $res"
		done
	fi
	barrier "sockperf-end-$impl" 300
	if [ "$VM_INDEX" -eq 0 ]; then
		kill "$spid" 2>/dev/null || true
		wait "$spid" 2>/dev/null || true
	fi
	barrier "sockperf-down-$impl"
}

# iperf3 IMPL REP: iperf3 -s -1 on VM 0, iperf3 -c -n iperf_bytes from
# VM 1 (client to server); the receiver's MB/s from the client's --json
# report; through smc_run for the SMC columns, plain TCP for tcp
iperf_port=5201
iperf3_wl() {
	local impl=$1 rep=$2 pre=() ipid c0 p0 p1 js b s least

	[ "$fam" = tcp ] || pre=("$SMC_RUN")
	if [ "$VM_INDEX" -eq 0 ]; then
		run_bg "iperf3-s-$impl-$rep" "${pre[@]}" iperf3 -s -1 \
			-B "$VM_IP_0" -p "$iperf_port"
		ipid=$BG_PID
		wait_listen "$iperf_port" 30
	fi
	barrier "iperf3-up-$impl"
	if [ "$VM_INDEX" -eq 1 ]; then
		js=$RESULTS/iperf3-$impl-$rep.json
		[ "$fam" = tcp ] || c0=$(counts_now)
		p0=$(rxe_pkts)
		timeout 120 "${pre[@]}" iperf3 -c "$VM_IP_0" -p "$iperf_port" \
			-n "$iperf_bytes" --json >"$js" 2>&1 ||
			fail "$impl: iperf3 client failed: $(grep -m1 error "$js")"
		p1=$(rxe_pkts)
		read -r b s <<<"$(/usr/bin/python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["end"]["sum_received"]
print(e["bytes"], e["seconds"])' "$js" 2>/dev/null)" || true
		[[ ${b:-} =~ ^[0-9]+$ ]] && [ -n "${s:-}" ] ||
			fail "$impl: no received bytes in iperf3's report ($js)"
		least=$(least_moved iperf3 "$iperf_bytes" "$b")
		# shellcheck disable=SC2086 # least: SENT RCVD
		[ "$fam" = tcp ] || smcr_work "$impl iperf3" "$c0" "$p0" $least
		printf '{"impl":"%s","name":"iperf3","rep":%d,"rxe":[%d,%d],"result":{"workload":"iperf3","bytes":%d,"secs":%s,"mbps":%s}}\n' \
			"$impl" "$rep" $((${p1% *} - ${p0% *})) $((${p1#* } - ${p0#* })) \
			"$b" "$s" "$(awk -v b="$b" -v s="$s" 'BEGIN { printf "%.2f", b / s / 1e6 }')" >>"$out"
		log "$impl iperf3 #$rep: $b bytes in $s s"
	fi
	barrier "iperf3-end-$impl" 300
	if [ "$VM_INDEX" -eq 0 ]; then
		wait_bg "$ipid" 60 || fail "$impl: iperf3 server exited $?"
	fi
	barrier "iperf3-down-$impl"
}

# raw_verbs REP: perftest between the same VMs over rxe0, no SMC module
# loaded: the testbed's limit.  On siw0 in perftest's rdma_cm mode (-R:
# iWARP queue pairs are connected by the iWARP connection manager, MPA
# over TCP), with no GID index; the client connects once siw's listening
# socket is there.
raw_verbs() {
	local r=$1 t args pid

	for t in ib_write_lat ib_send_lat ib_write_bw; do
		if [ "$iwarp" = 1 ]; then
			args=(-d siw0 -R -p "$vport" -n "$raw_iters")
		else
			args=(-d rxe0 -x "$gidx" -p "$vport" -n "$raw_iters")
		fi
		[ "$t" = ib_write_bw ] && args+=(-s 65536)
		[ "$t" != ib_write_bw ] && args+=(-s 64)
		if [ "$VM_INDEX" -eq 0 ]; then
			run_bg "$t" "$t" "${args[@]}"
			pid=$BG_PID
			[ "$iwarp" = 0 ] || wait_listen "$vport" 60
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
	sp_pp_secs=2
	sp_tp_secs=1
	iperf_bytes=$((2 << 20))
	raw_iters=30
else
	rr_sizes="1 64 1024 16384"
	rr_rounds=500
	stream_bytes=$((32 << 20))
	streams="1 8"
	crr_par="1 8"
	crr_conns=100
	idle_conns=50
	redis_n=2000
	sp_pp_secs=3
	sp_tp_secs=2
	iperf_bytes=$((16 << 20))
	raw_iters=500
fi
with_redis=1 with_sockperf=1 with_iperf3=1
preload=$(smc_preload_path) || { with_redis=0 with_sockperf=0 with_iperf3=0; }
export SMC_PRELOAD_LIB=$preload
SMC_RUN=$REPO/tools/smc_run/smc_run
command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null ||
	with_redis=0
command -v sockperf >/dev/null || with_sockperf=0
command -v iperf3 >/dev/null || with_iperf3=0
[ "$with_redis" = 1 ] || log "redis-benchmark: skipped (redis or the smc_run library missing)"
[ "$with_sockperf" = 1 ] || log "sockperf: skipped (sockperf or the smc_run library missing)"
[ "$with_iperf3" = 1 ] || log "iperf3: skipped (iperf3 or the smc_run library missing)"

# For quick comparisons by hand: SMCR_BENCH_ONLY, the workloads to run
# (default "rr stream crr redis sockperf iperf3 idle"), and
# SMCR_BENCH_IMPLS, the columns (default "tcp dist ours ours-std
# ours-dist dist-ours raw", on siw0 "tcp ours raw", the only ones there);
# SMCR_BENCH_OURS_SYSCTL, "key=value ..." set after loading ours (e.g.
# net.smc.rmem=131072).
only=${SMCR_BENCH_ONLY:-rr stream crr redis sockperf iperf3 idle}
if [ "$iwarp" = 1 ]; then
	impls=${SMCR_BENCH_IMPLS:-tcp ours raw}
	for c in $impls; do
		case "$c" in
		tcp | ours | raw) ;;
		*) fail "column $c on iWARP (siw0): only tcp, ours and raw (the distribution's smc.ko falls back there, ours-std is ours without WRITE WITH IMMEDIATE, which iWARP has not)" ;;
		esac
	done
else
	impls=${SMCR_BENCH_IMPLS:-tcp dist ours ours-std ours-dist dist-ours raw}
fi
impls_asked=$impls
want() { [[ " $only $impls " == *" $1 "* ]]; }

# plan_of COLUMN: the workloads run over COLUMN.  The full form runs
# every workload over every column.  The small form, which only proves
# that the command works, runs rr alone over ours-std, ours-dist and
# dist-ours (each pairing makes SMC-R connections), and sockperf and
# iperf3 over ours alone (smc_run's way in; plain TCP is the same
# commands without it): about the time the bench took before those.
plan_of() {
	local w out=

	for w in $only; do
		if [ "$size" = small ]; then
			case "$1:$w" in
			ours:*) ;;
			*:sockperf | *:iperf3) continue ;;
			tcp:* | dist:* | *:rr) ;;
			*) continue ;;
			esac
		fi
		out+="$w "
	done
	echo "$out"
}

# jlist WORD...: the words as the items of a JSON list
jlist() {
	[ "$#" -gt 0 ] || return 0
	printf '"%s",' "$@" | sed 's/,$//'
}

# ours-std needs our module's net.smc.smcr_write_imm: look on both VMs
# once; without it the column is skipped, and the report says so
if want ours-std; then
	load_impl ours || fail "cannot load ours"
	has=no
	[ -e /proc/sys/net/smc/smcr_write_imm ] && has=yes
	echo "$has" >"$SHARED/write-imm.vm$VM_INDEX"
	unload_impl ours
	barrier "write-imm-probed"
	if grep -qx no "$SHARED"/write-imm.vm*; then
		impls=$(tr ' ' '\n' <<<"$impls" | grep -vx ours-std | paste -sd' ')
		log "ours-std: skipped, our module has no net.smc.smcr_write_imm"
		[ "$VM_INDEX" -ne 1 ] ||
			printf '{"skip":"ours-std","why":"our smc.ko has no sysctl net.smc.smcr_write_imm"}\n' >>"$out"
	fi
fi
if want raw; then
	[ "$iwarp" = 1 ] || gidx=$(rxe_gid_index) || fail "no RoCE v2 IPv4 GID on rxe0"
	vport=18600
fi
if [ "$VM_INDEX" -eq 1 ]; then
	plan=
	for c in $impls_asked; do
		# shellcheck disable=SC2046 # the workloads are words
		[ "$c" = raw ] || plan+="\"$c\":[$(jlist $(plan_of "$c"))],"
	done
	rdma=rxe
	[ "$iwarp" = 0 ] || rdma=siw
	printf '{"guest_kernel":"%s","size":"%s","repetitions":%d,"impls":[%s],"workloads":[%s],"plan":{%s},"rdma":"%s"}\n' \
		"$(uname -r)" "$size" "$reps" "$(jlist $impls_asked)" \
		"$(jlist $only)" "${plan%,}" "$rdma" >"$RESULTS/meta.json"
fi

# Repetitions outside, columns inside: the testbed drifts over a run,
# and this way every column sees each stretch of it.
for ((r = 1; r <= reps; r++)); do
	for impl in $impls; do
		if [ "$impl" = raw ]; then
			raw_verbs "$r"
			log "raw round $r done"
			continue
		fi
		mod=$(mod_of "$impl")
		plan=" $(plan_of "$impl") "
		fam=smc
		[ "$impl" = tcp ] && fam=tcp
		extra=()
		[ "$impl" != ours-std ] || extra=(net.smc.smcr_write_imm=0)
		load_impl "$mod" "${extra[@]}" || fail "cannot load $mod for $impl"
		barrier "loaded-$impl"
		if [ "$VM_INDEX" -eq 0 ]; then
			run_bg "server-$impl-$r" "$bench" -s -f "$fam" -p "$port"
			srv=$BG_PID
			wait_file_line "$RESULTS/server-$impl-$r.log" listening 30 ||
				fail "$impl: server did not start"
		fi
		last_counts=
		if [ "$fam" != tcp ]; then
			counts=$(smc_counts)
			last_counts=$counts
		fi
		barrier "serving-$impl"
		# first, while the module holds no link group and no pooled
		# buffers (idle_memory)
		[[ $plan != *" idle "* ]] || idle_memory "$impl" "$idle_conns" "$r"
		# the least RoCE packets (KiB on siw0) each way over SMC-R
		# (least_moved): rr, a message of s bytes each way per round;
		# stream, the payload one way; crr, a request and its reply per
		# connection.  least: "SENT RCVD", two arguments of measure.
		# shellcheck disable=SC2086
		[[ $plan == *" rr "* ]] && for s in $rr_sizes; do
			least=$(least_moved rr "$s" "$rr_rounds")
			measure "$impl" "rr-$s" "$r" $least \
				-w rr -m "$s" -n "$rr_rounds"
		done
		# shellcheck disable=SC2086
		[[ $plan == *" stream "* ]] && for p in $streams; do
			least=$(least_moved stream "$stream_bytes")
			measure "$impl" "stream-$p" "$r" $least \
				-w stream -P "$p" -B $((stream_bytes / p)) -m 65536
		done
		# shellcheck disable=SC2086
		[[ $plan == *" crr "* ]] && for p in $crr_par; do
			least=$(least_moved crr $((p * crr_conns)))
			measure "$impl" "crr-$p" "$r" $least \
				-w crr -P "$p" -n "$crr_conns"
		done
		[ "$with_redis" = 0 ] || [[ $plan != *" redis "* ]] ||
			redis "$impl" "$r" "$redis_n"
		[ "$with_sockperf" = 0 ] || [[ $plan != *" sockperf "* ]] ||
			sockperf_wl "$impl" "$r"
		[ "$with_iperf3" = 0 ] || [[ $plan != *" iperf3 "* ]] ||
			iperf3_wl "$impl" "$r"
		# on siw0 the link groups (lingering idle) are iWARP ones
		if [ "$iwarp" = 1 ] && [ "$fam" != tcp ] && [ "$VM_INDEX" -eq 1 ]; then
			lg=$RESULTS/linkgroups-$impl-$r.txt
			"$SMCCTL" linkgroups >"$lg" 2>&1 || fail "smcctl linkgroups failed"
			grep -q '\[iwarp\]' "$lg" ||
				fail "$impl: no iWARP link group: $(paste -sd' ' "$lg")"
			log "$impl: $(grep -c '\[iwarp\]' "$lg") iWARP link group(s)"
		fi
		if [ "$VM_INDEX" -eq 0 ]; then
			kill "$srv" 2>/dev/null || true
			wait "$srv" 2>/dev/null || true
		fi
		# the server's side too: its CPU and redis connections, its
		# view of every handshake
		[ "$fam" = tcp ] || smcr_counts "$impl, VM $VM_INDEX" "$counts" "$(smc_counts)"
		barrier "done-$impl"
		unload_impl "$mod"
		barrier "unloaded-$impl"
		log "$impl round $r done"
	done
done
log "bench ($size, $reps repetition(s)) done"
