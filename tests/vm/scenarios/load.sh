#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load without leaks (two VMs, our module on both).  VM 0 runs an smcload
# echo server; VM 1
#   1. opens SMCR_LOAD_CONNS (CI 200, SMCR_LOAD_FULL=1: 1000) concurrent
#      AF_SMC connections over several link groups (SMCR_LOAD_PERLGR
#      connections each, net.smc.smcr_max_conns_per_lgr: CI 64, full 255),
#      checks an echoed payload on each, holds them while both VMs look at
#      them (all SMCR in sock_diag and smcctl, the expected link groups),
#      closes them;
#   2. runs SMCR_LOAD_SHORT (CI 300, full 10000) connect / request /
#      response / close cycles, SMCR_LOAD_PAR (8) at a time;
# both VMs then count exactly that many new SMC-R v2 handshakes and no
# fallback.  The link groups' idle timeout is shortened to SMCR_LOAD_IDLE
# (10) seconds through debugfs smc/idle_secs (upstream's 600/610 s
# otherwise).  After it, on both VMs (caches shrunk, page cache dropped):
#   - no link group; rxe's PD/CQ/QP/MR counts (`rdma resource`) as at the
#     start (every buffer's registration gone);
#   - no slab cache holds more objects than at the start beyond half the
#     number of connections made (a leak of one object per connection
#     shows as at least one per connection), plus two per extra task:
#     closing many connections at once wakes many unbound kworkers, which
#     stay idle for 5 minutes (each a task_struct, pid, stack vmap_area);
#     TIME_WAIT sockets (60 s) and the dentry/inode caches are not ours;
#   - unreclaimable slab within 4 MiB + 16 KiB per extra task, free memory
#     within 16 MiB + 32 KiB per extra task of the start (a leaked 64 KiB
#     buffer for every fourth connection would be more);
#   - the module unloads.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "load needs two VMs"
[ "$SMC_IMPL" = ours ] || fail "load needs our module on both VMs"

if [ "${SMCR_LOAD_FULL:-0}" = 1 ]; then
	: "${SMCR_LOAD_CONNS:=1000}" "${SMCR_LOAD_SHORT:=10000}"
	: "${SMCR_LOAD_PERLGR:=255}"
fi
CONNS=${SMCR_LOAD_CONNS:-200}
# connections per link group (net.smc.smcr_max_conns_per_lgr, 16..255):
# CI takes 64, so that its 200 connections need four link groups
PERLGR=${SMCR_LOAD_PERLGR:-64}
LGRS=$(((CONNS + PERLGR - 1) / PERLGR))
SHORT=${SMCR_LOAD_SHORT:-300}
PAR=${SMCR_LOAD_PAR:-8}
IDLE=${SMCR_LOAD_IDLE:-10}
BYTES=${SMCR_LOAD_BYTES:-1024}
# bounds: about 5 connections a second at worst under emulation
CSECS=$((60 + CONNS / 4))
SSECS=$((60 + SHORT / 4))
PORT=5200
TOTAL=$((CONNS + SHORT))
t0=$SECONDS

smcr_setup
[ -w /sys/kernel/debug/smc/idle_secs ] ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
echo "$IDLE" >/sys/kernel/debug/smc/idle_secs ||
	fail "cannot set /sys/kernel/debug/smc/idle_secs"
sysctl -qw net.smc.smcr_max_conns_per_lgr="$PERLGR" ||
	fail "cannot set net.smc.smcr_max_conns_per_lgr=$PERLGR"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

# mem_snapshot NAME: slab objects per cache, meminfo, rdma resources and
# link groups, with caches shrunk and page cache dropped first
mem_snapshot() {
	local c

	# tasks first: looking at /proc fills the dentry and inode caches
	ls -d /proc/[0-9]* | wc -l >"$RESULTS/$1.tasks"
	ps -eo comm= | sed -E 's/[0-9]+//g' | sort | uniq -c | sort -rn |
		awk 'NR <= 3 { printf "%s %s ", $1, $2 }' >"$RESULTS/$1.comms"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	for c in /sys/kernel/slab/*/shrink; do
		echo 1 >"$c" 2>/dev/null || true
	done
	awk 'NR > 2 { print $1, $2, $4 }' /proc/slabinfo >"$RESULTS/$1.slab"
	grep -E '^(MemFree|Slab|SUnreclaim):' /proc/meminfo >"$RESULTS/$1.meminfo"
	rdma resource show rxe0 >"$RESULTS/$1.rdma-res"
	"$SMCCTL" --json linkgroups >"$RESULTS/$1.lgr.json"
	log "$1: $(paste -sd' ' "$RESULTS/$1.meminfo" | tr -s ' '), $(cat "$RESULTS/$1.rdma-res"), $(cat "$RESULTS/$1.tasks") tasks ($(cat "$RESULTS/$1.comms"))"
}

# lgr_summary NAME: link groups, connections and buffer bytes on them
lgr_summary() {
	"$SMCCTL" --json linkgroups >"$RESULTS/$1.lgr.json"
	F="$RESULTS/$1.lgr.json" $SMCR_PY -c '
import json, os
g = json.load(open(os.environ["F"]))["linkgroups"]
print("%d link groups, %d connections, sndbufs %d KiB, RMBs %d KiB" % (len(g),
      sum(x["conns"] for x in g), sum(x["sndbuf_bytes"] for x in g) // 1024,
      sum(x["rmb_bytes"] for x in g) // 1024))'
}

# rdma_res FILE KEY: a count from `rdma resource show rxe0`
rdma_res() {
	sed -n "s/.* $2 \([0-9]*\).*/\1/p" "$RESULTS/$1.rdma-res"
}

# mr_check: while the connections are held, one MR per RMB (so CONNS on
# each side) and no rkey twice, across all link groups
mr_check() {
	local keys

	rdma resource show mr >"$RESULTS/held.mr" 2>&1 || true
	keys=$(sed -n 's/.* rkey \(0x[0-9a-f]*\).*/\1/p' "$RESULTS/held.mr")
	log "held: $(grep -c . <<<"$keys") MRs, $(sort -u <<<"$keys" | grep -c .) distinct rkeys"
	[ "$(grep -c . <<<"$keys")" -eq "$CONNS" ] ||
		smcr_problem "$(grep -c . <<<"$keys") MRs while $CONNS connections are open, want one RMB each"
	[ -z "$(sort <<<"$keys" | uniq -d)" ] ||
		smcr_problem "rkeys registered twice: $(sort <<<"$keys" | uniq -d | head -n 5 | paste -sd' ')"
	# and every link its own protection domain (one link per link group)
	rdma resource show rxe0 >"$RESULTS/held.rdma-res"
	log "held: $(cat "$RESULTS/held.rdma-res")"
	[ "$(rdma_res held pd)" -eq $(($(rdma_res base pd) + LGRS)) ] ||
		smcr_problem "$(rdma_res held pd) PDs with $LGRS link groups, want $(($(rdma_res base pd) + LGRS))"
}

mem_snapshot base
smcr_snapshot before
barrier load-base

# ---- phase 1: concurrent connections ----
if [ "$VM_INDEX" -eq 0 ]; then
	run_bg server smcload -s -p "$PORT" -t $((CSECS + SSECS + 120))
	server=$BG_PID
	wait_file_line "$RESULTS/server.log" listening 30
	barrier load-listening
	barrier load-holding $((CSECS + 30))
	log "held: $(lgr_summary held-server)"
	mr_check
	smcr_expect_conns server "$PORT" "$CONNS"
	smcr_expect_linkgroups "$LGRS" "$CONNS"
	barrier load-checked
else
	barrier load-listening
	rm -f /tmp/load-release
	run_bg concurrent smcload -c "$VM_IP_0" -p "$PORT" -n "$CONNS" \
		-P "$PAR" -B "$BYTES" -W /tmp/load-release -t "$CSECS"
	client=$BG_PID
	wait_file_line "$RESULTS/concurrent.log" '^smcload: holding|^conns=|timed out' \
		$((CSECS + 10))
	cat "$RESULTS/concurrent.log"
	barrier load-holding 30
	log "held: $(lgr_summary held-client)"
	mr_check
	smcr_expect_conns client "$PORT" "$CONNS"
	smcr_expect_linkgroups "$LGRS" "$CONNS"
	barrier load-checked
	touch /tmp/load-release
	wait_bg "$client" 120 || smcr_problem "concurrent client failed: $(grep -E 'error|FAILED|timed' "$RESULTS/concurrent.log" | paste -sd' ')"
	cat "$RESULTS/concurrent.log"
	grep -q "^smcload: modes smcr=$CONNS fallback=0 " "$RESULTS/concurrent.log" ||
		smcr_problem "concurrent: not all $CONNS sockets SMCR in sock_diag"
	grep -qx "conns=$CONNS ok=$CONNS failed=0 bytes=$((CONNS * BYTES)) ok" \
		"$RESULTS/concurrent.log" ||
		smcr_problem "concurrent: summary is not conns=$CONNS ok=$CONNS"
fi
barrier load-closed 150
log "after close: $(lgr_summary closed)"

# ---- phase 2: short connections ----
if [ "$VM_INDEX" -eq 1 ]; then
	rc=0
	smcload -c "$VM_IP_0" -p "$PORT" -m "$SHORT" -P "$PAR" -B "$BYTES" \
		-t "$SSECS" >"$RESULTS/short.log" 2>&1 || rc=$?
	cat "$RESULTS/short.log"
	[ "$rc" -eq 0 ] || smcr_problem "short client exited $rc"
	grep -qx "conns=$SHORT ok=$SHORT failed=0 bytes=$((SHORT * BYTES)) ok" \
		"$RESULTS/short.log" ||
		smcr_problem "short: summary is not conns=$SHORT ok=$SHORT"
fi
barrier load-short $((SSECS + 30))
if [ "$VM_INDEX" -eq 0 ]; then
	kill -TERM "$server"
	wait_bg "$server" 30 || smcr_problem "server failed"
	cat "$RESULTS/server.log"
	grep -q "^server accepted=$TOTAL closed=$TOTAL bytes=$((TOTAL * BYTES)) errors=0" \
		"$RESULTS/server.log" ||
		smcr_problem "server: want accepted=closed=$TOTAL, bytes=$((TOTAL * BYTES)), errors=0"
fi
smcr_snapshot after
if [ "$VM_INDEX" -eq 0 ]; then
	smcr_expect_stats before after 0 "$TOTAL"
else
	smcr_expect_stats before after "$TOTAL" 0
fi
log "load: $CONNS concurrent + $SHORT short connections done at $((SECONDS - t0)) s"
barrier load-stats

# ---- idle teardown, then everything back to where it was ----
deadline=$((SECONDS + IDLE + 60))
while :; do
	n=$("$SMCCTL" --json linkgroups |
		$SMCR_PY -c 'import json, sys; print(len(json.load(sys.stdin)["linkgroups"]))')
	[ "$n" -eq 0 ] && break
	[ "$SECONDS" -lt "$deadline" ] || break
	sleep 1
done
[ "$n" -eq 0 ] || smcr_problem "$n link group(s) left $((IDLE + 60)) s after the last close"
log "link groups gone at $((SECONDS - t0)) s"
# rxe frees its objects in RCU callbacks and work items: give them a moment
for _ in $(seq 20); do
	mem_snapshot end
	same=1
	for k in pd cq qp mr; do
		[ "$(rdma_res end "$k")" = "$(rdma_res base "$k")" ] || same=0
	done
	[ "$same" -eq 1 ] && break
	sleep 1
done
for k in pd cq qp mr; do
	[ "$(rdma_res end "$k")" = "$(rdma_res base "$k")" ] ||
		smcr_problem "rdma $k: $(rdma_res end "$k") now, $(rdma_res base "$k") at the start"
done
# slab_check: compare the end snapshot with the base one; PROBLEM lines
slab_check() {
	B="$RESULTS/base" E="$RESULTS/end" N="$TOTAL" \
	T=$(($(cat "$RESULTS/end.tasks") - $(cat "$RESULTS/base.tasks"))) $SMCR_PY -c '
import os
def slab(p):
    d = {}
    for line in open(p):
        name, active, size = line.split()
        d[name] = (int(active), int(size))
    return d
def mem(p):
    return {l.split(":")[0]: int(l.split()[1]) for l in open(p)}
b, e = slab(os.environ["B"] + ".slab"), slab(os.environ["E"] + ".slab")
mb, me = mem(os.environ["B"] + ".meminfo"), mem(os.environ["E"] + ".meminfo")
n, tasks = int(os.environ["N"]), max(0, int(os.environ["T"]))
limit = max(100, n // 2)
# idle kworkers (started while many work items slept) stay 5 minutes,
# each with a task_struct, a pid, a vmap_area for its stack and a few
# small allocations: two objects per cache and extra task allowed
grew = sorted(((e[k][0] - b.get(k, (0, 0))[0], k, e[k][1]) for k in e), reverse=True)
print("tasks %+d; slab: SUnreclaim %+d KiB, Slab %+d KiB, MemFree %+d KiB; most grown caches: %s" % (
    tasks, me["SUnreclaim"] - mb["SUnreclaim"], me["Slab"] - mb["Slab"],
    me["MemFree"] - mb["MemFree"],
    ", ".join("%s %+d x %d B" % (k, d, s) for d, k, s in grew[:5])))
# not ours: TIME_WAIT of the internal TCP sockets (60 s) and the file
# system caches that looking at /proc for the new tasks filled
other = ("tw_sock_", "dentry", "proc_inode_cache", "lsm_inode_cache",
         "inode_cache", "kernfs_node_cache")
# caches that hold several objects per task (pid is shared by SLUB with
# other 128 B accounted caches; seen at three per new kworker)
per_task = ("pid", "vmap_area", "signal_cache", "sighand_cache")
for d, k, s in grew:
    t = limit + (4 if k in per_task else 2) * tasks
    if d >= t and not k.startswith(other):
        print("PROBLEM slab cache %s holds %d more objects (%d B) than at the start (limit %d for %d connections, %d more tasks)" % (k, d, s, t, n, tasks))
# a kernel thread: task_struct, stack bookkeeping, pid, ... about 12 KiB
slimit = 4096 + 16 * tasks
if me["SUnreclaim"] - mb["SUnreclaim"] > slimit:
    print("PROBLEM unreclaimable slab grew by %d KiB (limit %d)" % (me["SUnreclaim"] - mb["SUnreclaim"], slimit))
# and its 16 KiB stack
mlimit = 16384 + 32 * tasks
if mb["MemFree"] - me["MemFree"] > mlimit:
    print("PROBLEM free memory %d KiB lower than at the start (limit %d)" % (mb["MemFree"] - me["MemFree"], mlimit))
'
}
# Objects freed by RCU callbacks (the pids of the processes that just ran)
# or still on a CPU's slab count as in use for a while: a leak is what is
# still there after three looks 5 s apart.
for try in 1 2 3; do
	out=$(slab_check)
	grep -q '^PROBLEM' <<<"$out" || break
	[ "$try" -eq 3 ] && break
	log "settling: $(grep '^PROBLEM' <<<"$out" | paste -sd';')"
	sleep 5
	mem_snapshot end
done
log "$(head -n 1 <<<"$out")"
while read -r line; do
	[[ $line == PROBLEM* ]] && smcr_problem "${line#PROBLEM }"
done <<<"$out"
barrier load-end 90
echo 0 >/sys/kernel/debug/smc/idle_secs
for _ in $(seq 20); do
	rmmod smc 2>/dev/null && break
	sleep 0.5
done
! grep -q '^smc ' /proc/modules || smcr_problem "module does not unload: $(grep '^smc ' /proc/modules)"
log "load: $((SECONDS - t0)) s in all"
smcr_verdict load
