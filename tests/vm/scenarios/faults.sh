#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fault matrix (Documentation/networking/smc-faults.rst) in one boot of
# two VMs: VM 0 (server) runs the test-hooks flavour, VM 1 (client) the
# module as shipped:
#
#   tests/vm/vmtest --vms 2 --impl hooks,ours scenarios/faults.sh
#
# Cases, in this order (each a few seconds; every payload verified by
# smc_load, every outcome asserted):
#   inject   queue pair creation and RMB allocation fail on VM 0 (debugfs
#            smc_faultinj): new connections fall back with
#            SMC_CLC_DECL_MEM while live ones go on; failing one RMB size
#            gives a smaller RMB and still SMC-R
#   many     VM 1 holds SMCR_FAULTS_CONNS (64) SMC-R connections (32
#            per link group, so they need several) and 100 AF_SMC
#            listeners: rmmod refused; after close, a clean unload, and
#            VM 0's link groups leave with it
#   peerunld VM 0's module unloaded: refused while a connection lives,
#            then VM 1's link group goes, new connections fall back with
#            SMC_CLC_DECL_PEERNOSMC
#   netem    5 % loss with reordering on both VMs' eth0 during first
#            contact and transfers: SMC-R, verified
#   ethdown  VM 1's eth0 down and up under transfers
#   kill     VM 0 resets itself (sysrq b) under transfers: VM 1's transfers
#            end with an errno in bounded time, its link group goes, its
#            module unloads
# SMCR_FAULTS_ALL=1 (give it --timeout 1200) adds: 256 connections, a
# burst of that many handshakes at once, netem 30 %, VM 0's eth0 down and
# up, VM 0's rxe0 (siw0) deleted and added again under transfers, and the sndbuf
# knob.  Each row
# goes to $RESULTS/matrix (case, side, outcome, bytes, seconds).

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "needs two VMs"
[ "$SMC_IMPL" = ours ] || fail "needs our module on both VMs"
# VM 0 injects the faults
[ "$VM_INDEX" -ne 0 ] || need_hooks smc_faultinj
ALL=${SMCR_FAULTS_ALL:-0}
MANY=${SMCR_FAULTS_CONNS:-64}
[ "$ALL" != 1 ] || MANY=${SMCR_FAULTS_CONNS:-256}
# eth0's RDMA device: rxe0, or siw0 (SMCR_RDMA=siw: the links are iWARP)
DEV0=rxe0
! siw_only || DEV0=siw0
SMCCTL=$(smcctl_path) || fail "cannot find or build smcctl"
export SMCCTL
: >"$RESULTS/smcr-problems"
: >"$RESULTS/matrix"

# ---- helpers ---------------------------------------------------------------

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# row CASE SIDE OUTCOME BYTES SECS: one line of the fault matrix.
row() {
	printf '%s|%s|%s|%s|%s\n' "$@" >>"$RESULTS/matrix"
	log "ROW $1 ($2): $3; bytes $4; $5 s"
}

# A link group takes at most 32 connections, so that the "many" case
# needs several (negotiated at first contact: set on both VMs from the
# start).
knobs() {
	sysctl -qw net.smc.smcr_max_conns_per_lgr=32 ||
		fail "cannot set net.smc.smcr_max_conns_per_lgr"
}

D_smcr_client=0 D_smcr_server=0 D_fb_client=0 D_fb_server=0
D_why_client=- D_why_server=-
# delta A B: smcr_delta (lib/guest.sh) between two smcr_snapshot's, logged
delta() {
	smcr_delta "$1" "$2"
	log "delta $1..$2: smcr +$D_smcr_client/+$D_smcr_server fallbacks +$D_fb_client ($D_why_client)/+$D_fb_server ($D_why_server) (client/server)"
}

# expect WHAT GOT WANT: record a problem unless GOT = WANT.
expect() {
	[ "$2" = "$3" ] || smcr_problem "$1: $2, want $3"
}

# lgr_count: link groups listed by smcctl; lgr_conns: connections on them.
lgr_count() {
	local n

	n=$("$SMCCTL" --json linkgroups | smcj lgrs) || return 1
	echo "${n%% *}"
}
lgr_conns() {
	local n

	n=$("$SMCCTL" --json linkgroups | smcj lgrs) || return 1
	read -r _ _ n _ <<<"$n"
	echo "$n"
}

# lgr_gone SECS: wait until no link group is listed; prints the seconds.
lgr_gone() {
	local t0 n

	t0=$(now)
	for _ in $(seq $(($1 * 5))); do
		n=$(lgr_count) || n=x
		[ "$n" = 0 ] && { since "$t0"; return 0; }
		sleep 0.2
	done
	"$SMCCTL" linkgroups >&2 || true
	return 1
}

# unload SECS: rmmod smc, retried while sockets finish closing; prints
# the seconds it took.
unload() {
	local t0

	t0=$(now)
	smc_unload "$1" 2>/dev/null && { since "$t0"; return 0; }
	smc_rmmod >&2 || true
	# what still holds the module, for the log
	"$SMCCTL" connections >&2 || true
	"$SMCCTL" linkgroups >&2 || true
	return 1
}

reload() {
	smc_reload || fail "reloading $SMC_KO failed"
	knobs
}

# client NAME PORT CONNS BYTES SECS [smc_load options]: a verified echo
# client in the background ($BG_PID), log $RESULTS/NAME.log.
client() {
	local name=$1 port=$2 conns=$3 bytes=$4 secs=$5

	shift 5
	run_bg "$name" smc_load -c "$VM_IP_0" -p "$port" -N "$conns" -B "$bytes" \
		-m echo -t "$secs" "$@"
}

# server NAME PORT CONNS SECS [family]: an smc_load server, $BG_PID.
server() {
	run_bg "$1" smc_load -s -f "${5:-smc}" -p "$2" -n "$3" -t "$4"
	wait_file_line "$RESULTS/$1.log" 'listening|smc_load:' 30
}

# result NAME: "ok BYTES" or "FAILED BYTES" from an smc_load log.
result() {
	sed -n 's/^conns=[0-9]* bytes=\([0-9]*\) \(ok\|FAILED\)$/\2 \1/p' \
		"$RESULTS/$1.log" | tail -n 1
}

# errnos NAME: the distinct errors smc_load's connections ended with.
errnos() {
	sed -n 's/.* FAILED: //p' "$RESULTS/$1.log" | sed 's/ at offset [0-9]*//' |
		sort | uniq -c |
		awk '{ c = $1; sub(/^ *[0-9]+ /, ""); printf "%s%s x%d", n++ ? "; " : "", $0, c }'
}

# no_hang_no_corruption NAME: smc_load neither hit its timeout nor saw a
# wrong byte.
no_hang_no_corruption() {
	if grep -q 'timed out' "$RESULTS/$1.log"; then
		smcr_problem "$1: a transfer hung (smc_load timed out)"
	fi
	if grep -qE 'mismatch|checksum [0-9a-f]+/' "$RESULTS/$1.log"; then
		smcr_problem "$1: corrupted data: $(grep -m1 -E 'mismatch|checksum' "$RESULTS/$1.log")"
	fi
	return 0
}

# must_pass NAME: smc_load ended with every connection verified.
must_pass() {
	local r

	r=$(result "$1")
	[ "${r%% *}" = ok ] ||
		smcr_problem "$1: not all verified: ${r:-no summary}: $(errnos "$1")"
	no_hang_no_corruption "$1"
}

# smcr_conns PORT WANT: connections to/from PORT that are ACTIVE SMC-R.
smcr_on_port() {
	local out

	out=$("$SMCCTL" --json connections | smcj conns --port any "$1") || return 1
	# INODE STATE MODE ...
	awk '$2 == "ACTIVE" && $3 == "SMCR" { n++ } END { print n + 0 }' <<<"$out"
}

# left_on_port PORT SECS: wait until no SMC connection of PORT is left
# (closed on both sides, any state); else log what is left and record a
# problem
left_on_port() {
	local out n end=$((SECONDS + $2))

	while :; do
		out=$("$SMCCTL" --json connections | smcj conns --port any "$1") || out=
		n=$(grep -c . <<<"$out" || true)
		[ "$n" -eq 0 ] && return 0
		[ "$SECONDS" -lt "$end" ] || break
		sleep 1
	done
	smcr_problem "port $1: $n connection(s) still there $2 s after both ends closed: $(awk '{ print $2 }' <<<"$out" | sort | uniq -c | paste -sd' ')"
	"$SMCCTL" connections >"$RESULTS/left-$1.txt" 2>&1 || true
}

fi_set() { echo "$2" >"$FI/fail_$1"; }
fi_count() { cat "$FI/injected_$1"; }

knobs
log "faults: ALL=$ALL MANY=$MANY impl=$SMC_IMPL hooks=${SMC_HOOKS:-0}"

# ---- inject: QP creation and RMB allocation fail on VM 0 --------------------
# First thing after boot: no link group exists yet, so the first attempt
# really creates one.
smcr_snapshot fi0
if [ "$VM_INDEX" -eq 0 ]; then
	fi_set qp_create -1
	server fi-qp 5301 2 60
	barrier fi-qp
	wait_bg "$BG_PID" 70 || smcr_problem "fi-qp server failed"
	must_pass fi-qp
	fi_set qp_create 0
	expect "QP creations failed by injection" "$(fi_count qp_create)" 2
	smcr_snapshot fi1
	delta fi0 fi1
	expect "server fallbacks with QP creation failing" "$D_why_server" MEM:2
	expect "server SMC-R connections with QP creation failing" "$D_smcr_server" 0
	row "QP creation fails (every attempt)" "server (VM 0)" \
		"falls back: server $D_why_server, client PEERDECL" "$(result fi-qp | cut -d' ' -f2)" -
	server fi-hold 5302 4 90
	srv_hold=$BG_PID
	server fi-rmb 5303 4 90
	srv_rmb=$BG_PID
	server fi-one 5304 1 90
	srv_one=$BG_PID
	barrier fi-listening
	barrier fi-held
	smcr_snapshot fi2
	rmb0=$(fi_count rmb_alloc)
	fi_set rmb_alloc -1
	barrier fi-rmb-set
	barrier fi-rmb-done
	fi_set rmb_alloc 0
	rmb1=$(fi_count rmb_alloc)
	smcr_snapshot fi3
	delta fi2 fi3
	expect "server fallbacks with every RMB allocation failing" "$D_why_server" MEM:4
	expect "server SMC-R connections with RMB allocation failing" "$D_smcr_server" 0
	[ $((rmb1 - rmb0)) -ge 4 ] ||
		smcr_problem "only $((rmb1 - rmb0)) RMB allocations failed by injection"
	fi_set rmb_alloc 1
	barrier fi-one-set
	barrier fi-one-done
	expect "RMB allocations left to fail" "$(cat "$FI/fail_rmb_alloc")" 0
	expect "RMB allocations failed by the single injection" \
		$(($(fi_count rmb_alloc) - rmb1)) 1
	smcr_snapshot fi4
	delta fi3 fi4
	expect "server SMC-R connections after one failed RMB size" "$D_smcr_server" 1
	expect "server fallbacks after one failed RMB size" "$D_fb_server" 0
	if [ "$ALL" = 1 ]; then
		snd0=$(fi_count sndbuf_alloc)
		fi_set sndbuf_alloc -1
		server fi-snd 5305 2 60
		barrier fi-snd-set
		wait_bg "$BG_PID" 70 || smcr_problem "fi-snd server failed"
		must_pass fi-snd
		fi_set sndbuf_alloc 0
		smcr_snapshot fi5
		delta fi4 fi5
		# Send buffers left free in the pool (by the fallbacks above, and
		# by the 16 KiB ones that large writes grew out of) are reused
		# without an allocation: how many connections find one depends
		# on that history.  Each must fall back (MEM) or go on with a
		# pooled buffer, its growth failing (the injection fires).
		[[ $D_why_server =~ ^(-|MEM:[12])$ ]] ||
			smcr_problem "server fallbacks with every send buffer failing: $D_why_server, want MEM or none"
		expect "server connections with every send buffer failing" \
			$((D_smcr_server + D_fb_server)) 2
		[ "$(fi_count sndbuf_alloc)" -gt "$snd0" ] ||
			smcr_problem "no send buffer allocation was failed by injection"
		row "send buffer allocation fails (every attempt)" "server (VM 0)" \
			"$D_smcr_server SMC-R on pooled buffers (growth failed $(($(fi_count sndbuf_alloc) - snd0)) times), falls back: $D_why_server" \
			"$(result fi-snd | cut -d' ' -f2)" -
	fi
	barrier fi-done
	for p in "$srv_hold" "$srv_rmb" "$srv_one"; do wait_bg "$p" 30 || true; done
	for s in fi-hold fi-rmb fi-one; do must_pass "$s"; done
else
	barrier fi-qp
	client fi-qp 5301 2 256K 60
	wait_bg "$BG_PID" 70 || true
	must_pass fi-qp
	smcr_snapshot fi1
	delta fi0 fi1
	expect "client fallbacks when the server cannot create a QP" "$D_why_client" PEERDECL:2
	barrier fi-listening
	t0=$(now)
	client fi-hold 5302 4 256K 80 -W /tmp/fi-release
	hold=$BG_PID
	wait_file_line "$RESULTS/fi-hold.log" '^smc_load: holding|^conns=' 60
	expect "SMC-R connections held" "$(smcr_on_port 5302)" 4
	barrier fi-held
	smcr_snapshot fi2
	barrier fi-rmb-set
	client fi-rmb 5303 4 256K 60
	wait_bg "$BG_PID" 70 || true
	must_pass fi-rmb
	smcr_snapshot fi3
	delta fi2 fi3
	expect "client fallbacks when the server has no RMB" "$D_why_client" PEERDECL:4
	expect "SMC-R connections still held" "$(smcr_on_port 5302)" 4
	barrier fi-rmb-done
	row "RMB allocation fails (every attempt), 4 live connections" "server (VM 0)" \
		"new connections fall back (server MEM, client PEERDECL); live ones go on" \
		"$(result fi-rmb | cut -d' ' -f2)" -
	barrier fi-one-set
	client fi-one 5304 1 256K 60
	wait_bg "$BG_PID" 70 || true
	must_pass fi-one
	smcr_snapshot fi4
	delta fi3 fi4
	expect "client SMC-R connections after one failed RMB size" "$D_smcr_client" 1
	barrier fi-one-done
	row "RMB allocation fails once" "server (VM 0)" \
		"SMC-R with the next smaller RMB" "$(result fi-one | cut -d' ' -f2)" -
	if [ "$ALL" = 1 ]; then
		barrier fi-snd-set
		client fi-snd 5305 2 256K 60
		wait_bg "$BG_PID" 70 || true
		must_pass fi-snd
	fi
	touch /tmp/fi-release
	wait_bg "$hold" 60 || true
	must_pass fi-hold
	row "live connections during the injections" "both" "continue on SMC-R" \
		"$(result fi-hold | cut -d' ' -f2)" "$(since "$t0")"
	barrier fi-done
fi

# ---- many: hundreds of live connections and listeners on VM 1 ----------------
# The per-link-group limit of 32 (knobs) makes them fill several link
# groups: a real exhaustion, where a full link group gets a sibling and
# nobody falls back.
if [ "$VM_INDEX" -eq 0 ]; then
	smcr_snapshot m0
	server many 5310 "$MANY" 240
	srv_many=$BG_PID
	barrier many-listening
	barrier many-unloaded 300
	t0=$(now)
	if s=$(lgr_gone 30); then
		row "peer unloads its module (DELETE_LINK)" "server (VM 0)" \
			"its link groups go" - "$s"
	else
		smcr_problem "VM 0 still lists link groups 30 s after VM 1's module left"
	fi
	wait_bg "$srv_many" 5 || true
	must_pass many
	smcr_snapshot m1
	delta m0 m1
	expect "server SMC-R connections (many)" "$D_smcr_server" "$MANY"
	barrier many-reloaded
else
	barrier many-listening
	smcr_snapshot m0
	# the listeners, and proof that they are live AF_SMC sockets
	rm -f /tmp/lst-release
	cat >/tmp/listeners.py <<'PY'
import ctypes, os, socket, struct, sys, time
libc = ctypes.CDLL(None, use_errno=True)
fds = []
for port in range(6000, 6100):
    fd = libc.socket(43, socket.SOCK_STREAM, 0)
    addr = struct.pack("=H", socket.AF_INET) + struct.pack("!H", port) + bytes(12)
    if fd < 0 or libc.bind(fd, addr, 16) or libc.listen(fd, 16):
        print("listener %d: errno %d" % (port, ctypes.get_errno()), flush=True)
        sys.exit(1)
    fds.append(fd)
print("listening %d" % len(fds), flush=True)
for _ in range(2400):
    if os.path.exists(sys.argv[1]):
        break
    time.sleep(0.1)
for fd in fds:
    libc.close(fd)
PY
	run_bg listeners python3 /tmp/listeners.py /tmp/lst-release
	lst=$BG_PID
	wait_file_line "$RESULTS/listeners.log" '^listening|errno' 30
	grep -q '^listening 100$' "$RESULTS/listeners.log" ||
		fail "AF_SMC listeners: $(cat "$RESULTS/listeners.log")"
	t0=$(now)
	# in batches of 32: every handshake gets its answer in time (see
	# the burst case for all at once)
	pids=()
	for ((i = 0; i * 32 < MANY; i++)); do
		n=$((MANY - i * 32 < 32 ? MANY - i * 32 : 32))
		client "many$i" 5310 "$n" 64K 200 -W /tmp/many-release
		pids+=("$BG_PID")
		wait_file_line "$RESULTS/many$i.log" '^smc_load: holding|^conns=' 120
	done
	t_up=$(since "$t0")
	n=$(smcr_on_port 5310)
	g=$(lgr_count)
	c=$(lgr_conns)
	log "$MANY connections up in $t_up s: $n SMC-R, $g link groups with $c connections"
	expect "SMC-R connections held (many)" "$n" "$MANY"
	expect "connections on the link groups" "$c" "$MANY"
	[ "$g" -ge $(((MANY + 31) / 32)) ] ||
		smcr_problem "$g link groups for $MANY connections at 32 per link group"
	rc=0
	err=$(smc_rmmod_refused) || rc=$?
	log "rmmod with $MANY connections and 100 listeners: $err"
	[ "$rc" -ne 2 ] || fail "smc_tcpopt could not be detached or reattached"
	[ "$rc" -eq 0 ] || fail "rmmod succeeded under $MANY live connections"
	lsmod | grep -q '^smc ' || fail "the module went away although rmmod failed"
	row "rmmod with $MANY live connections and 100 listeners" "client (VM 1)" \
		"refused: ${err##*: }" - -
	touch /tmp/many-release /tmp/lst-release
	bytes=0
	for ((i = 0; i < ${#pids[@]}; i++)); do
		wait_bg "${pids[i]}" 60 || true
		must_pass "many$i"
		r=$(result "many$i")
		bytes=$((bytes + ${r#* }))
	done
	wait_bg "$lst" 30 || smcr_problem "the listeners did not close"
	smcr_snapshot m1
	delta m0 m1
	expect "client SMC-R connections (many)" "$D_smcr_client" "$MANY"
	expect "client fallbacks (many)" "$D_fb_client" 0
	if s=$(unload 30); then
		row "rmmod after they closed" "client (VM 1)" "clean unload" \
			"$bytes" "$s"
	else
		fail "the module does not unload 30 s after its sockets closed"
	fi
	barrier many-unloaded
	reload
	barrier many-reloaded
fi

# ---- burst: hundreds of handshakes at once (SMCR_FAULTS_ALL) ------------------
# The handshakes queue up on both sides; one that waits longer than the
# CLC wait time gives up: the client declines, drops the server's late
# accept and falls back (SMC_CLC_DECL_TIMEOUT_AL), or, when none comes in
# time, aborts with ETIMEDOUT.  Never a CLC byte as data.
if [ "$ALL" = 1 ]; then
	if [ "$VM_INDEX" -eq 0 ]; then
		run_bg burst smc_load -s -p 5312 -n 0 -t 200
		srv=$BG_PID
		wait_file_line "$RESULTS/burst.log" 'listening|smc_load:' 30
		barrier burst-listening
		barrier burst-ended 300
		kill "$srv" 2>/dev/null || true
		wait_bg "$srv" 10 || true
		if grep -qE 'mismatch|checksum [0-9a-f]+/' "$RESULTS/burst.log"; then
			smcr_problem "burst: corrupted data on the server"
		fi
		left_on_port 5312 30
		barrier burst-gone 60
	else
		barrier burst-listening
		smcr_snapshot b0
		t0=$(now)
		client burst 5312 "$MANY" 64K 180
		wait_bg "$BG_PID" 200 || true
		s=$(since "$t0")
		no_hang_no_corruption burst
		smcr_snapshot b1
		delta b0 b1
		okc=$(grep -c '^smc_load: client conn=.* ok$' "$RESULTS/burst.log" || true)
		row "$MANY connections at once (handshake capacity)" "client (VM 1)" \
			"$okc verified ($D_smcr_client SMC-R, $D_fb_client fell back: $D_why_client); others end: $(errnos burst)" \
			"$(result burst | cut -d' ' -f2)" "$s"
		barrier burst-ended
		left_on_port 5312 30
		barrier burst-gone 60
	fi
fi

# ---- peerunld: VM 0's module goes --------------------------------------------
if [ "$VM_INDEX" -eq 0 ]; then
	server pu 5320 2 60
	barrier pu-listening
	barrier pu-held
	rc=0
	err=$(smc_rmmod_refused) || rc=$?
	[ "$rc" -ne 2 ] || fail "smc_tcpopt could not be detached or reattached"
	[ "$rc" -eq 0 ] || fail "rmmod succeeded under live connections"
	log "rmmod with live connections refused: $err"
	barrier pu-refused
	wait_bg "$BG_PID" 60 || true
	must_pass pu
	s=$(unload 30) || fail "module does not unload after its sockets closed"
	log "VM 0 module unloaded after $s s"
	barrier pu-unloaded
	server pu-tcp 5321 2 60 inet
	barrier pu-tcp-listening
	wait_bg "$BG_PID" 70 || smcr_problem "TCP server after the unload failed"
	must_pass pu-tcp
	reload
	barrier pu-reloaded
else
	barrier pu-listening
	client pu 5320 2 256K 60 -W /tmp/pu-release
	pu=$BG_PID
	wait_file_line "$RESULTS/pu.log" '^smc_load: holding|^conns=' 60
	expect "SMC-R connections before the peer's unload" "$(smcr_on_port 5320)" 2
	barrier pu-held
	barrier pu-refused
	touch /tmp/pu-release
	wait_bg "$pu" 60 || true
	must_pass pu
	barrier pu-unloaded
	if s=$(lgr_gone 30); then
		row "peer's module unloaded (refused while connections live)" "server (VM 0)" \
			"our link group goes (DELETE_LINK)" "$(result pu | cut -d' ' -f2)" "$s"
	else
		smcr_problem "link group still listed 30 s after the peer's module left"
	fi
	smcr_snapshot pu0
	barrier pu-tcp-listening
	client pu-tcp 5321 2 256K 60
	wait_bg "$BG_PID" 70 || true
	must_pass pu-tcp
	smcr_snapshot pu1
	delta pu0 pu1
	expect "client fallbacks to a peer without SMC" "$D_why_client" PEERNOSMC:2
	row "new connections to the peer without SMC" "client (VM 1)" \
		"fall back: $D_why_client" "$(result pu-tcp | cut -d' ' -f2)" -
	barrier pu-reloaded
fi

# ---- netem: loss and reordering ------------------------------------------------
netem_case() { # LOSS CONNS BYTES SECS [smc_load options]
	local loss=$1 name=netem$1 t0 r conns=$2 bytes=$3 secs=$4

	shift 4

	modprobe sch_netem || fail "no sch_netem"
	tc qdisc add dev eth0 root netem delay 1ms reorder 25% 50% loss "$loss%" ||
		fail "tc netem failed"
	smcr_snapshot "$name-0"
	if [ "$VM_INDEX" -eq 0 ]; then
		server "$name" $((5330 + loss)) "$conns" $((secs + 20))
		barrier "$name-listening"
		wait_bg "$BG_PID" $((secs + 30)) || true
		barrier "$name-done" $((secs + 60))
	else
		barrier "$name-listening"
		t0=$(now)
		client "$name" $((5330 + loss)) "$conns" "$bytes" "$secs" "$@"
		wait_bg "$BG_PID" $((secs + 10)) || true
		s=$(since "$t0")
		barrier "$name-done" $((secs + 60))
	fi
	tc qdisc del dev eth0 root || true
	smcr_snapshot "$name-1"
	delta "$name-0" "$name-1"
	no_hang_no_corruption "$name"
	r=$(result "$name")
	if [ "$VM_INDEX" -eq 1 ]; then
		if [ "${r%% *}" = ok ]; then
			row "netem loss $loss% + reorder 25% (both VMs)" "both" \
				"SMC-R ($D_smcr_client of $conns connections, fallbacks: $D_why_client), $(awk -v b="${r#* }" -v s="$s" 'BEGIN { printf "%.2f MB/s", b / s / 1e6 }')" \
				"${r#* }" "$s"
		else
			row "netem loss $loss% + reorder 25% (both VMs)" "both" \
				"ends with errors: $(errnos "$name")" "${r#* }" "$s"
		fi
	fi
}
# under TCG a lossy link moves well below 0.1 MB/s: keep the CI form small
nc=2
if [ "$ALL" = 1 ]; then
	nc=4
	netem_case 5 4 1M 150
else
	# Two handshakes at once, the first contact among them, under the
	# loss: the case that lost its link to Soft-RoCE's REG_MR replay
	# (Documentation/networking/smc-faults.rst, Findings)
	netem_case 5 2 256K 90
fi
must_pass netem5
[ "$VM_INDEX" -eq 0 ] || expect "SMC-R connections under 5% loss (fallbacks client $D_why_client, server $D_why_server)" "$D_smcr_client" "$nc"
# a rare CI failure (one connection aborted, one handshake not SMC-R) left
# nothing to read but this summary: name the module's own words too
[ "$(result netem5 | cut -d' ' -f1)" = ok ] ||
	log "netem5 failed; kernel's smc lines: $(dmesg | grep -i smc | tail -n 5 | paste -sd'|'); $DEV0's counters: $(rdma statistic show link "$DEV0/1" 2>&1 | tr -s ' ' | paste -sd' ')"
[ "$ALL" != 1 ] || netem_case 30 2 64K 300

# ---- ethdown: eth0 down and up under transfers ----------------------------------
# From here on a silent link is noticed after 5 s (TEST_LINK), not 30 s.
# Not earlier: under emulation, with hundreds of handshakes and transfers
# on other link groups ("many"), an idle link group's TEST_LINK once went
# unanswered for the 2 s it waits, on both VMs, and the link group was
# taken down (its connections ended with ECONNABORTED).
sysctl -qw net.smc.smcr_testlink_time=5 || fail "cannot set net.smc.smcr_testlink_time"
ethdown_case() { # DOWN_VM NAME PORT
	local who=$1 name=$2 port=$3 t0 s r ok

	if [ "$VM_INDEX" -eq 0 ]; then
		server "$name" "$port" 4 90
		barrier "$name-listening"
	else
		barrier "$name-listening"
		client "$name" "$port" 4 64M 80 -G "/tmp/$name-go"
		cl=$BG_PID
		wait_file_line "$RESULTS/$name.log" '^smc_load: connected|^conns=' 60
		touch "/tmp/$name-go"
		sleep 2
	fi
	barrier "$name-cut"
	t0=$(now)
	if [ "$VM_INDEX" -eq "$who" ]; then
		ip link set eth0 down
		sleep 3
		ip link set eth0 up
		log "eth0 down for 3 s"
	fi
	if [ "$VM_INDEX" -eq 0 ]; then
		wait_bg "$BG_PID" 100 || true
	else
		wait_bg "$cl" 100 || true
	fi
	s=$(since "$t0")
	no_hang_no_corruption "$name"
	r=$(result "$name")
	ok=${r%% *}
	if [ "$ok" = ok ]; then
		log "$name: transfers survived"
	else
		log "$name: transfers ended: $(errnos "$name")"
	fi
	barrier "$name-ended" 120
	# after the link came back: new connections get SMC-R again
	for _ in $(seq 50); do
		[ "$(cat "/sys/class/infiniband/$DEV0/ports/1/state" 2>/dev/null)" = "4: ACTIVE" ] && break
		sleep 0.2
	done
	if [ "$VM_INDEX" -eq 0 ]; then
		server "$name-after" $((port + 1)) 1 60
		barrier "$name-after"
		wait_bg "$BG_PID" 70 || true
		must_pass "$name-after"
	else
		smcr_snapshot "$name-0"
		barrier "$name-after"
		client "$name-after" $((port + 1)) 1 256K 60
		wait_bg "$BG_PID" 70 || true
		must_pass "$name-after"
		smcr_snapshot "$name-1"
		delta "$name-0" "$name-1"
		expect "SMC-R after eth0 came back" "$D_smcr_client" 1
		row "eth0 down 3 s and up, mid-transfer" "$([ "$who" -eq 0 ] && echo "server (VM 0)" || echo "client (VM 1)")" \
			"$([ "$ok" = ok ] && echo "transfers continue" || echo "transfers end: $(errnos "$name")"); new connections SMC-R" \
			"${r#* }" "$s"
	fi
	barrier "$name-done"
}
ethdown_case 1 eth1down 5340
[ "$ALL" != 1 ] || ethdown_case 0 eth0down 5342

# ---- rxe0 deleted on the server (VM 1's side: smcr-linkdown.sh) -----------------
if [ "$ALL" = 1 ]; then
	if [ "$VM_INDEX" -eq 0 ]; then
		server rxedel 5344 4 90
		barrier rxedel-listening
		barrier rxedel-cut
		t0=$(now)
		rdma link delete "$DEV0" || fail "rdma link delete failed"
		wait_bg "$BG_PID" 100 || true
		s=$(since "$t0")
		no_hang_no_corruption rxedel
		g=$(lgr_count)
		expect "link groups after deleting $DEV0" "$g" 0
		rdma link add "$DEV0" type "${DEV0%0}" netdev eth0 ||
			fail "rdma link add failed"
		log "rxedel (server): $(errnos rxedel) after $s s"
		barrier rxedel-ended 120
		sleep 2
		server rxedel-after 5345 1 60
		barrier rxedel-after
		wait_bg "$BG_PID" 70 || true
		must_pass rxedel-after
	else
		barrier rxedel-listening
		client rxedel 5344 4 64M 80 -G /tmp/rxedel-go
		cl=$BG_PID
		wait_file_line "$RESULTS/rxedel.log" '^smc_load: connected|^conns=' 60
		touch /tmp/rxedel-go
		sleep 2
		barrier rxedel-cut
		t0=$(now)
		wait_bg "$cl" 100 || true
		s=$(since "$t0")
		no_hang_no_corruption rxedel
		r=$(result rxedel)
		[ "${r%% *}" != ok ] || smcr_problem "transfers over a deleted device all succeeded"
		barrier rxedel-ended 120
		smcr_snapshot rxedel-0
		barrier rxedel-after
		client rxedel-after 5345 1 256K 60
		wait_bg "$BG_PID" 70 || true
		must_pass rxedel-after
		smcr_snapshot rxedel-1
		delta rxedel-0 rxedel-1
		expect "SMC-R after the server's $DEV0 came back" "$D_smcr_client" 1
		row "rdma link delete $DEV0 mid-transfer, added again" "server (VM 0)" \
			"transfers end: $(errnos rxedel); new connections SMC-R" "${r#* }" "$s"
	fi
fi

# ---- kill: VM 0 resets under transfers -------------------------------------------
if [ "$VM_INDEX" -eq 0 ]; then
	server kill 5350 4 200
	barrier kill-listening
	barrier kill-now
	log "resetting this VM under live transfers"
	smcr_verdict faults
	vm_reset_now
fi
barrier kill-listening
client kill 5350 4 512M 90 -G /tmp/kill-go
cl=$BG_PID
wait_file_line "$RESULTS/kill.log" '^smc_load: connected|^conns=' 60
touch /tmp/kill-go
sleep 2
"$SMCCTL" linkgroups || true
barrier kill-now
t0=$(now)
wait_bg "$cl" 100 || true
s=$(since "$t0")
no_hang_no_corruption kill
r=$(result kill)
[ "${r%% *}" != ok ] || smcr_problem "transfers to a dead peer all succeeded"
log "kill: transfers ended after $s s: $(errnos kill)"
if g=$(lgr_gone 60); then
	log "kill: link group gone $g s after the transfers ended"
else
	smcr_problem "link group still listed 60 s after the peer died"
fi
if u=$(unload 60); then
	row "peer VM reset (sysrq b) mid-transfer" "client (VM 1)" \
		"transfers end: $(errnos kill); link group gone $g s later; module unloads (${u} s)" \
		"${r#* }" "$s"
else
	smcr_problem "module does not unload after the peer died"
fi
cat "$RESULTS/matrix"
smcr_verdict faults
