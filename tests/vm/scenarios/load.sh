#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load without leaks (two VMs, our module on both).  VM 0 runs an smc_load
# echo server; VM 1
#   0. warms up: the load of step 1 once, closed at once, and a few short
#      cycles, then the link groups' idle teardown; not measured (below);
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
# otherwise).  After it, on both VMs, against a snapshot taken after the
# warm-up (slab caches shrunk, page cache dropped for both), with N the
# connections of steps 1 and 2 (each VM has N sockets; CI 500) and T the
# tasks more than at the start:
#   - no link group; rxe's PD/CQ/QP/MR counts (`rdma resource`) as at the
#     start (every buffer's registration gone);
#   - no slab cache holds N/4 + 2 T more objects than at the start (4 T
#     for the caches a task has several of): a leak of one object per
#     connection, of any size (a kmalloc-64 object, a struct sock), adds
#     N to one cache;
#   - unreclaimable slab within N/8 x 16 KiB + 16 KiB T of the start: a
#     kmalloc() above 8 KiB takes 16 KiB or more of pages outside the
#     kmalloc-* caches, so one leaked for every eighth connection is more;
#   - pages that no counter of /proc/meminfo explains (not free, per-cpu
#     free, on an LRU list, slab, kernel stack, page table or per-cpu
#     area: what alloc_pages() and vmalloc() users hold) within N x 10 KiB
#     of the start: a send buffer or RMB (16 KiB or more) leaked for every
#     connection, or 64 KiB for every fourth, is more (a CI run without a
#     leak had up to 5 KiB per connection);
#   - the memory cgroup the load's processes ran in (smc_load, steps 0-2)
#     keeps N/4 x 4 KiB of unreclaimable kernel memory at most once they
#     exited (send buffers and RMBs are charged to it, as are sockets);
#   - the module unloads.
# The warm-up is there because closing many connections at once wakes
# many unbound kworkers, which then stay idle for 5 minutes, each with a
# task_struct, pid, stack and a few small allocations: measured from
# after the warm-up the load finds most of them (T 0 to 65 in CI runs,
# 50 to 130 without).  TIME_WAIT is off (net.ipv4.tcp_max_tw_buckets 0):
# its sockets and port bind buckets would come and go with the timing.
# The dentry/inode caches are not ours, and vmap_area is purged lazily.
# The kmalloc caches record where each object was allocated (slab_debug=U,
# below), and their growth is counted per allocation site from those
# records (not from /proc/slabinfo, see slab_check).  Not counted in a
# kmalloc cache's growth: the objects a task's
# creation made (copy_process(): its stack's vm_struct, its LSM blobs, its
# creds), since a task that exited may hold them a while after it left
# /proc, and the vectors a slab page of an accounted cache gets for its
# objects' memory cgroups (alloc_slab_obj_exts()), which stay with the
# page as long as any object on it does: runs without leaks counted 40 to
# 90 of those in kmalloc-96 and a CI run 196 more kmalloc-96 and 64 more
# kmalloc-64 objects at the same task count.  Objects allocated with a
# frame of our module are counted apart (fewer than N/8 may be left),
# the sites that grew most are logged on every run, and on a failure
# the cache's whole list is kept in RESULTS/CACHE.alloc_traces.
# vmtest-append: slab_debug=U,kmalloc-*

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
# the warm-up's short cycles; the server accepts WARM + TOTAL in all
WSHORT=$((PAR * 4))
WARM=$((CONNS + WSHORT))
CG=/sys/fs/cgroup
CGL=$CG/smc_load
t0=$SECONDS

smcr_setup
debugfs_up
echo "$IDLE" >/sys/kernel/debug/smc/idle_secs ||
	fail "cannot set /sys/kernel/debug/smc/idle_secs"
sysctl -qw net.smc.smcr_max_conns_per_lgr="$PERLGR" ||
	fail "cannot set net.smc.smcr_max_conns_per_lgr=$PERLGR"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
# No TIME_WAIT: the internal TCP sockets close at once.  Each would keep a
# tw sock for 60 s, and on the client its port's bind buckets (which SLUB
# merges into the 128 B accounted cache that /proc/slabinfo calls pid):
# hundreds of objects that come and go with the timing.
tw_buckets=$(sysctl -n net.ipv4.tcp_max_tw_buckets)
sysctl -qw net.ipv4.tcp_max_tw_buckets=0
mountpoint -q $CG || mount -t cgroup2 none $CG || fail "cannot mount cgroup2"
echo +memory >$CG/cgroup.subtree_control || fail "no memory controller"
mkdir -p "$CGL"

# "${IN_CG[@]}" CMD...: CMD in the load's memory cgroup, in the same
# process (run_bg's BG_PID is CMD's)
IN_CG=(sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CGL")

# slab_sites: for each cache that records allocation sites, one line per
# site, "CACHE CLASS COUNT SITE": CLASS is "task" for a task's objects
# (allocated under copy_process()), a slab page's own
# (alloc_slab_obj_exts()) or an open sysfs file's (kernfs_fop_open()),
# "ours" for those with a frame of our module, else "other" (no lines
# without slab_debug=U)
slab_sites() {
	$SMCR_PY - /sys/kernel/debug/slab/*/alloc_traces <<'PY'
import re, sys
head = re.compile(r"^\s*(\d+) (\S+)")
for path in sys.argv[1:]:
    try:
        text = open(path).read()
    except OSError:
        continue
    cache = path.split("/")[-2]
    for entry in text.split("\n\n"):
        m = head.match(entry)
        if not m:
            continue
        # kernfs_fop_open: the kernfs_open_node of a sysfs file this
        # script opened (the shrink loop below: one per cache), which
        # kfree_rcu() frees up to 5 s after the close
        if ("copy_process" in entry or "alloc_slab_obj_exts" in entry or
                "kernfs_fop_open" in entry):
            cls = "task"
        elif "[smc]" in entry:
            cls = "ours"
        else:
            cls = "other"
        print(cache, cls, m.group(1), m.group(2))
PY
}

# mem_snapshot NAME: slab objects per cache, meminfo, per-cpu free pages,
# the load's memory cgroup, rdma resources and link groups, with caches
# shrunk and page cache dropped first
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
	# first: opening a debugfs file the first time allocates (kmalloc-96)
	slab_sites >"$RESULTS/$1.sites"
	awk 'NR > 2 { print $1, $2, $4 }' /proc/slabinfo >"$RESULTS/$1.slab"
	cp /proc/meminfo "$RESULTS/$1.meminfo"
	awk '$1 == "count:" { n += $2 } END { print n + 0 }' /proc/zoneinfo \
		>"$RESULTS/$1.pcp"
	cp "$CGL/memory.stat" "$RESULTS/$1.memcg"
	rdma resource show rxe0 >"$RESULTS/$1.rdma-res"
	"$SMCCTL" --json linkgroups >"$RESULTS/$1.lgr.json"
	log "$1: $(grep -E '^(MemFree|Slab|SUnreclaim):' "$RESULTS/$1.meminfo" | paste -sd' ' | tr -s ' '), $(cat "$RESULTS/$1.rdma-res"), $(cat "$RESULTS/$1.tasks") tasks ($(cat "$RESULTS/$1.comms"))"
}

# lgr_summary NAME: link groups, connections and buffer bytes on them
lgr_summary() {
	local out g c s r

	"$SMCCTL" --json linkgroups >"$RESULTS/$1.lgr.json"
	out=$(smcj lgrs -f "$RESULTS/$1.lgr.json") || return 1
	read -r g _ c s r <<<"$out"
	echo "$g link groups, $c connections, sndbufs $((s / 1024)) KiB, RMBs $((r / 1024)) KiB"
}

# lgrs_gone WHAT: wait for the link groups' idle teardown after WHAT
lgrs_gone() {
	local deadline=$((SECONDS + IDLE + 60)) n

	while :; do
		n=$("$SMCCTL" --json linkgroups | smcj lgrs)
		n=${n%% *}
		[ "$n" -eq 0 ] && break
		[ "$SECONDS" -lt "$deadline" ] || break
		sleep 1
	done
	[ "$n" -eq 0 ] || smcr_problem "$n link group(s) left $((IDLE + 60)) s after the $1"
	log "link groups gone after the $1 at $((SECONDS - t0)) s"
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

# ---- warm-up: the load once, not measured ----
if [ "$VM_INDEX" -eq 0 ]; then
	run_bg server "${IN_CG[@]}" smc_load -s -p "$PORT" -q \
		-t $((2 * CSECS + SSECS + 4 * IDLE + 300))
	server=$BG_PID
	wait_file_line "$RESULTS/server.log" listening 30
	barrier load-warm-listening
else
	barrier load-warm-listening
	rc=0
	"${IN_CG[@]}" smc_load -c "$VM_IP_0" -p "$PORT" -N "$CONNS" -P "$PAR" \
		-B "$BYTES" -M smcr -q -t "$CSECS" >"$RESULTS/warm.log" 2>&1 || rc=$?
	"${IN_CG[@]}" smc_load -c "$VM_IP_0" -p "$PORT" -R "$WSHORT" -P "$PAR" \
		-B "$BYTES" -q -t "$SSECS" >>"$RESULTS/warm.log" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || smcr_problem "warm-up: $(grep -E 'error|FAILED|timed|^conns=' "$RESULTS/warm.log" | paste -sd' ')"
	log "warm-up: $(grep '^conns=' "$RESULTS/warm.log" | paste -sd' ')"
fi
barrier load-warm $((CSECS + SSECS + 30))
lgrs_gone warm-up
barrier load-warm-idle $((IDLE + 90))

mem_snapshot base
smcr_snapshot before
barrier load-base

# ---- phase 1: concurrent connections ----
if [ "$VM_INDEX" -eq 0 ]; then
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
	run_bg concurrent "${IN_CG[@]}" smc_load -c "$VM_IP_0" -p "$PORT" \
		-N "$CONNS" -P "$PAR" -B "$BYTES" -M smcr -q -W /tmp/load-release \
		-t "$CSECS"
	client=$BG_PID
	wait_file_line "$RESULTS/concurrent.log" '^smc_load: holding|^conns=|timed out' \
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
	grep -q "^smc_load: modes smcr=$CONNS fallback=0 " "$RESULTS/concurrent.log" ||
		smcr_problem "concurrent: not all $CONNS sockets SMCR in sock_diag"
	grep -qx "conns=$CONNS bytes=$((CONNS * BYTES)) ok" \
		"$RESULTS/concurrent.log" ||
		smcr_problem "concurrent: summary is not conns=$CONNS bytes=$((CONNS * BYTES)) ok"
fi
barrier load-closed 150
log "after close: $(lgr_summary closed)"

# ---- phase 2: short connections ----
if [ "$VM_INDEX" -eq 1 ]; then
	rc=0
	"${IN_CG[@]}" smc_load -c "$VM_IP_0" -p "$PORT" -R "$SHORT" -P "$PAR" \
		-B "$BYTES" -q -t "$SSECS" >"$RESULTS/short.log" 2>&1 || rc=$?
	cat "$RESULTS/short.log"
	[ "$rc" -eq 0 ] || smcr_problem "short client exited $rc"
	grep -qx "conns=$SHORT bytes=$((SHORT * BYTES)) ok" \
		"$RESULTS/short.log" ||
		smcr_problem "short: summary is not conns=$SHORT bytes=$((SHORT * BYTES)) ok"
fi
barrier load-short $((SSECS + 30))
if [ "$VM_INDEX" -eq 0 ]; then
	kill -TERM "$server"
	wait_bg "$server" 30 || smcr_problem "server failed"
	cat "$RESULTS/server.log"
	grep -q "^server accepted=$((WARM + TOTAL)) closed=$((WARM + TOTAL)) bytes=$(((WARM + TOTAL) * BYTES)) errors=0" \
		"$RESULTS/server.log" ||
		smcr_problem "server: want accepted=closed=$((WARM + TOTAL)), bytes=$(((WARM + TOTAL) * BYTES)), errors=0"
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
lgrs_gone "last close"
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
# slab_check: compare the end snapshot with the base one; the figures on
# the first line, then PROBLEM lines
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
def kv(p):
    return {l.split()[0].rstrip(":"): int(l.split()[1]) for l in open(p)}
def other(m, pcp):
    # KiB in use that no counter explains: alloc_pages(), vmalloc()
    return (m["MemTotal"] - m["MemFree"] - 4 * pcp - m["Active"] -
            m["Inactive"] - m["Unevictable"] - m["Slab"] - m["KernelStack"] -
            m["PageTables"] - m.get("SecPageTables", 0) - m["Percpu"])
B, E = os.environ["B"], os.environ["E"]
b, e = slab(B + ".slab"), slab(E + ".slab")
# per site: {(cache, class, site): objects}
def sites(p):
    d = {}
    try:
        for l in open(p):
            k, cls, cnt, where = l.split()
            d[(k, cls, where)] = d.get((k, cls, where), 0) + int(cnt)
    except (OSError, ValueError):
        pass
    return d
sb, se = sites(B + ".sites"), sites(E + ".sites")
tracked = {k for k, _, _ in se} & {k for k, _, _ in sb}
site_grew = {}
for key in set(sb) | set(se):
    if key[0] in tracked:
        site_grew[key] = se.get(key, 0) - sb.get(key, 0)
def ours_d(k):
    return sum(d for (c, cl, _), d in site_grew.items()
               if c == k and cl == "ours")
mb, me = kv(B + ".meminfo"), kv(E + ".meminfo")
ob = other(mb, int(open(B + ".pcp").read()))
oe = other(me, int(open(E + ".pcp").read()))
cg = kv(E + ".memcg")
cgk = cg.get("kernel", 0) - cg.get("slab_reclaimable", 0)
n, tasks = int(os.environ["N"]), max(0, int(os.environ["T"]))
# not counted: the file system caches that looking at /proc for the new
# tasks filled, and vmap_area: vfree() keeps the vmap_area of an area
# until 32 MiB of areas wait to be purged (a leaked vmalloc() shows in
# the pages below)
not_ours = ("dentry", "proc_inode_cache", "lsm_inode_cache", "inode_cache",
            "kernfs_node_cache", "vmap_area")
# a task: task_struct, pid, stack, cred, signal, sighand, LSM blobs;
# caches that hold several objects per task (pid is shared by SLUB with
# other 128 B accounted caches; seen at three per new kworker)
per_task = ("pid", "signal_cache", "sighand_cache")
# Growth: a cache that records allocation sites is counted from its
# sites alone, less the objects of tasks and of slab pages.  Its line in
# /proc/slabinfo is read a moment after the sites, and objects that
# kfree_rcu() frees in between (the kernfs_open_node of each sysfs file
# the shrink loop opened) would count as grown or shrunk at random: a CI
# run once saw kmalloc-96 +297 that way, with 311 such objects listed.
def grown(k):
    if k in tracked:
        return sum(d for (c, cl, _), d in site_grew.items()
                   if c == k and cl != "task")
    return e[k][0] - b.get(k, (0, 0))[0]
grew = sorted(((grown(k), k, e[k][1]) for k in e
               if not k.startswith(not_ours)), reverse=True)
print("tasks %+d; SUnreclaim %+d KiB, MemFree %+d KiB, other pages %+d KiB, cgroup kernel %d KiB; most grown caches (less task and slab objects): %s; allocated by our module: %s" % (
    tasks, me["SUnreclaim"] - mb["SUnreclaim"], me["MemFree"] - mb["MemFree"],
    oe - ob, cgk // 1024,
    ", ".join("%s %+d x %d B" % (k, d, s) for d, k, s in grew[:6]),
    ", ".join("%s %+d" % (k, ours_d(k)) for k in sorted(tracked)
              if ours_d(k)) or ("none" if tracked else "not recorded")))
# the sites that grew most, tasks and slab pages left out
top = sorted(((d, c, w) for (c, cl, w), d in site_grew.items()
              if cl != "task" and d > 0), reverse=True)[:6]
print("SITES " + ("; ".join("%s %+d %s" % (c, d, w) for d, c, w in top) or "none"))
# One object leaked per connection adds n to its cache: a quarter of n
# is the room for what else comes and goes, and a leak in either phase
# alone (CI: 200 or 300 connections) is more.
for d, k, s in grew:
    t = n // 4 + (4 if k in per_task else 2) * tasks
    if d >= t:
        print("PROBLEM slab cache %s holds %d more objects (%d B) than at the start (limit %d for %d connections, %d more tasks)" % (k, d, s, t, n, tasks))
# objects allocated with a frame of our module (recorded for the kmalloc
# caches): none should be left once the link groups are gone; an eighth
# of n is room for a few late frees and below a leak in either phase
for k in sorted(tracked):
    if ours_d(k) >= n // 8:
        print("PROBLEM slab cache %s holds %d more objects allocated by our module than at the start (limit %d for %d connections)" % (k, ours_d(k), n // 8, n))
# a kmalloc() above 8 KiB is 16 KiB of pages at least, counted in
# SUnreclaim only: one for every eighth connection; a task about 12 KiB
slimit = n // 8 * 16 + 16 * tasks
if me["SUnreclaim"] - mb["SUnreclaim"] > slimit:
    print("PROBLEM unreclaimable slab grew by %d KiB (limit %d for %d connections, %d more tasks)" % (me["SUnreclaim"] - mb["SUnreclaim"], slimit, n, tasks))
# 10 KiB per connection: a send buffer or RMB (16 KiB at least) leaked
# for each, or 64 KiB for every fourth, is more.  Less is noise here: a
# CI run with no leak had 2.4 MiB (500 connections) of such pages, the
# page-fragment and per-CPU caches of the 125 rxe kworkers among them
plimit = 10 * n
if oe - ob > plimit:
    print("PROBLEM %d KiB more pages outside slab, LRU lists, stacks and page tables than at the start (limit %d for %d connections)" % (oe - ob, plimit, n))
# a page for every fourth connection
climit = n // 4 * 4
if cgk > climit * 1024:
    print("PROBLEM the load'"'"'s memory cgroup still has %d KiB of unreclaimable kernel memory (limit %d for %d connections): %s" % (
        cgk // 1024, climit, n, ", ".join("%s %d KiB" % (k, cg.get(k, 0) // 1024) for k in
        ("kernel", "slab_reclaimable", "slab_unreclaimable", "sock", "kernel_stack", "percpu"))))
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
log "sites that grew most (less task and slab objects): $(sed -n 's/^SITES //p' <<<"$out")"
[[ $out == tasks* ]] || smcr_problem "the slab check gave no figures"
# the grown caches' allocation sites (slab_debug=U, the header's line)
for cache in $(head -n 1 <<<"$out" | sed 's/.*most grown caches[^:]*: //; s/;.*//' |
	       tr ',' '\n' | awk '{ print $1 }'); do
	tr=/sys/kernel/debug/slab/$cache/alloc_traces
	if [ -r "$tr" ]; then cp "$tr" "$RESULTS/$cache.alloc_traces" || :; fi
done
while read -r line; do
	[[ $line == PROBLEM* ]] || continue
	smcr_problem "${line#PROBLEM }"
	cache=$(sed -n 's/^PROBLEM slab cache \([^ ]*\) .*/\1/p' <<<"$line")
	tr=/sys/kernel/debug/slab/$cache/alloc_traces
	if [ -n "$cache" ] && [ -r "$tr" ]; then
		cp "$tr" "$RESULTS/$cache.alloc_traces" || :
		tr=$RESULTS/$cache.alloc_traces
		log "$cache allocation sites: $(grep -E '^ *[0-9]+ ' "$tr" |
			sort -rn | head -n 4 | sed 's/^ *//' | paste -sd';')"
	fi
done <<<"$out"
barrier load-end 90
echo 0 >/sys/kernel/debug/smc/idle_secs
sysctl -qw net.ipv4.tcp_max_tw_buckets="$tw_buckets"
rmdir "$CGL" 2>/dev/null || true
for _ in $(seq 20); do
	smc_rmmod 2>/dev/null && break
	sleep 0.5
done
! grep -q '^smc ' /proc/modules || smcr_problem "module does not unload: $(grep '^smc ' /proc/modules)"
log "load: $((SECONDS - t0)) s in all"
smcr_verdict load
