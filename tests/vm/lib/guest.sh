# SPDX-License-Identifier: GPL-2.0
#
# Helpers for VM scenarios: source "$REPO/tests/vm/lib/guest.sh".
# The scenario runs in every VM with VM_INDEX, VM_COUNT, VM_IP, VM_IP_<i>,
# PEER_IPS, SMC_IMPL, SHARED, REPO, RESULTS and VM_TOOLS set (see README.md).

: "${BARRIER_TIMEOUT:=120}"
export PATH="$VM_TOOLS:$PATH"

# log MSG...: a time-stamped line on stdout (kept in the VM's results).
log() {
	printf '[%s vm%s] %s\n' "$(date +%T.%3N)" "$VM_INDEX" "$*"
}

# fail MSG...: report and end the scenario with exit code 1.
fail() {
	printf '[%s vm%s] FAIL: %s\n' "$(date +%T.%3N)" "$VM_INDEX" "$*" >&2
	: >"$SHARED/.abort.vm$VM_INDEX"
	exit 1
}

# nap SECS: sleep without forking sleep(1), a read that times out on a pipe
# nobody writes: the waits below poll, and under emulation each fork costs
# CPU time that the benchmark would count.
nap() {
	local fifo=/tmp/.nap.$BASHPID

	if [ -z "${NAP_FD:-}" ]; then
		rm -f "$fifo"
		if mkfifo "$fifo" 2>/dev/null && exec {NAP_FD}<>"$fifo"; then
			rm -f "$fifo"
		else
			NAP_FD=none
		fi
	fi
	if [ "$NAP_FD" = none ]; then
		sleep "$1"
	else
		read -rt "$1" -u "$NAP_FD" || true
	fi
}

# barrier NAME [TIMEOUT]: wait until all VMs have reached barrier NAME.
# A name may be reused; each use is a new round.  Fails after TIMEOUT
# seconds (default $BARRIER_TIMEOUT) or as soon as another VM has failed.
# Given timeouts here, in wait_bg and in wait_file_line are stretched by
# VM_SLOW, the factor vmtest got for a slow (debug) kernel.
barrier() {
	local name=$1 timeout=$BARRIER_TIMEOUT
	local roundf="/tmp/.barrier-round.$name" round=0 deadline n f

	[ -z "${2:-}" ] || timeout=$(($2 * ${VM_SLOW:-1}))

	[ -r "$roundf" ] && round=$(<"$roundf")
	round=$((round + 1))
	echo "$round" >"$roundf"
	: >"$SHARED/.barrier.$name.$round.vm$VM_INDEX"
	deadline=$((SECONDS + timeout))
	while :; do
		n=0
		for f in "$SHARED/.barrier.$name.$round.vm"*; do
			[ -e "$f" ] && n=$((n + 1))
		done
		[ "$n" -ge "$VM_COUNT" ] && return 0
		for f in "$SHARED/.abort.vm"*; do
			[ -e "$f" ] && fail "barrier $name: ${f##*.} failed"
		done
		[ "$SECONDS" -ge "$deadline" ] &&
			fail "barrier $name: only $n of $VM_COUNT VMs after ${timeout}s"
		nap 0.2
	done
}

# wait_tcp_port IP PORT [TIMEOUT]: wait until a TCP connect to IP:PORT works.
# Note: the probe is a real (empty) connection that the server accepts.
wait_tcp_port() {
	local ip=$1 port=$2 timeout=${3:-60} deadline

	deadline=$((SECONDS + timeout))
	until timeout 3 bash -c "exec 3<>/dev/tcp/$ip/$port" 2>/dev/null; do
		[ "$SECONDS" -ge "$deadline" ] &&
			fail "nothing listens on $ip:$port after ${timeout}s"
		sleep 0.3
	done
}

# wait_listen PORT [SECS]: wait until something listens on TCP PORT here
# (an SMC listener too: its clcsock is one), without connecting to it.
# Fails after SECS (default 60), stretched by VM_SLOW.
wait_listen() {
	local port=$1 secs=$((${2:-60} * ${VM_SLOW:-1})) deadline

	deadline=$((SECONDS + secs))
	until [ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ]; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "nothing listens on port $port after ${secs}s"
		nap 0.2
	done
}

# smcctl_path: print the path of a current smcctl: the host's build
# (tests/run makes it) unless it is missing or older than one of its
# sources, else one built here into $RESULTS.  Returns 1 when neither is
# possible.
smcctl_path() {
	local dir=$REPO/tools/smcctl bin=$REPO/tools/smcctl/smcctl src stale=

	[ -x "$bin" ] || stale=1
	for src in "$dir"/*.c "$dir"/*.h; do
		if [ -z "$stale" ] && [ "$bin" -ot "$src" ]; then
			stale=1
		fi
	done
	if [ -z "$stale" ]; then
		echo "$bin"
		return 0
	fi
	[ -f "$dir/smcctl.c" ] || return 1
	(cd "$dir" && cc -O2 -Wall -Wextra -D_GNU_SOURCE -I"$REPO/include/uapi" \
		-o "$RESULTS/smcctl" smcctl.c nl.c stats.c check.c bundle.c json.c reasons.c) \
		2>"$RESULTS/smcctl-build.log" || return 1
	echo "$RESULTS/smcctl"
}

# smc_preload_path: print the path of a current libsmc-preload.so: the
# host's build unless it is missing or older than its source, else one
# built here into $RESULTS.  Returns 1 when neither is possible.
smc_preload_path() {
	local dir=$REPO/tools/smc_run lib=$REPO/tools/smc_run/libsmc-preload.so

	if [ -f "$lib" ] && ! [ "$lib" -ot "$dir/smc-preload.c" ]; then
		echo "$lib"
		return 0
	fi
	cc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$RESULTS/libsmc-preload.so" \
		"$dir/smc-preload.c" -ldl 2>"$RESULTS/preload-build.log" || return 1
	echo "$RESULTS/libsmc-preload.so"
}

# smc_bpf_path: print the path of a current smc_bpf (tools/smc_bpf): the
# host's build unless it is missing or older than its sources, else one
# built here into $RESULTS.  Returns 1 when neither is possible.
smc_bpf_path() {
	local dir=$REPO/tools/smc_bpf src stale=

	[ -x "$dir/smc_bpf" ] || stale=1
	for src in "$dir"/*.[ch] "$REPO"/tools/smcctl/json.[ch]; do
		[ "$dir/smc_bpf" -ot "$src" ] && stale=1
	done
	if [ -z "$stale" ]; then
		echo "$dir/smc_bpf"
		return 0
	fi
	make -s -C "$dir" O="$RESULTS/smc_bpf" >"$RESULTS/smc_bpf-build.log" 2>&1 ||
		return 1
	echo "$RESULTS/smc_bpf/smc_bpf"
}

# smc_tcpopt_path: print the path of a current smc_tcpopt
# (tools/smc_tcpopt): the host's build unless it is missing or older than
# its sources, else one built here into $RESULTS.  Returns 1 when neither
# is possible.
smc_tcpopt_path() {
	local dir=$REPO/tools/smc_tcpopt src stale=

	[ -x "$dir/smc_tcpopt" ] || stale=1
	for src in "$dir"/smc_tcpopt.c "$dir"/smc_tcpopt.bpf.c "$dir"/smc_tcpopt.h; do
		[ "$dir/smc_tcpopt" -ot "$src" ] && stale=1
	done
	if [ -z "$stale" ]; then
		echo "$dir/smc_tcpopt"
		return 0
	fi
	make -s -C "$dir" O="$RESULTS/smc_tcpopt" >"$RESULTS/smc_tcpopt-build.log" 2>&1 ||
		return 1
	echo "$RESULTS/smc_tcpopt/smc_tcpopt"
}

# tcp_has_smc_option: the kernel's TCP writes and parses the SMC option
# itself (CONFIG_SMC).  Debian's 7.3 has no SMC in TCP: there smc_tcpopt
# carries the option, and guest-main.sh attaches it after loading ours.
tcp_has_smc_option() {
	grep -q ' tcp_have_smc$' /proc/kallsyms
}

# smc_rmmod: rmmod smc (its stderr as rmmod's), detaching smc_tcpopt first
# when it is attached: its program holds a reference on the module.  A
# scenario that retries rmmod until the last socket is gone calls this
# each time; detach is a no-op once done.
smc_rmmod() {
	tcpopt_detach >/dev/null || return 1
	rmmod smc
}

# smc_vm_knobs: the sysctls of our module that this VM's run sets once it
# is loaded: the iWARP listener's port the scenarios know
# (SMC_IWARP_PORT) when there is siw, and SMCR_VM_SYSCTL ("k=v ...",
# knobs for a whole run, by hand or from a manifest line).
smc_vm_knobs() {
	local kv

	case ",${SMC_RDMA:-rxe}," in
	*,siw,*) sysctl -qw net.smc.smcr_iwarp_port=5399 || return 1 ;;
	esac
	for kv in ${SMCR_VM_SYSCTL:-}; do
		sysctl -qw "$kv" || return 1
	done
}

# smc_unload SECS: unload this VM's smc (the distribution's smc_diag
# first), retried for up to SECS seconds while sockets finish closing.
smc_unload() {
	[ "$SMC_IMPL" != dist ] || rmmod smc_diag 2>/dev/null || true
	for _ in $(seq $(($1 * 4))); do
		smc_rmmod 2>/dev/null && return 0
		sleep 0.25
	done
	smc_rmmod
}

# smc_reload: load this VM's smc again as the VM's set-up did: ours (or
# its hooks flavour) with the UEID and smc_vm_knobs, the distribution's
# with the UEID added by netlink.
smc_reload() {
	if [ "$SMC_IMPL" = dist ]; then
		modprobe smc || return 1
		modprobe smc_diag 2>/dev/null || true
		"$VM_TOOLS/ueid" add "$SMC_UEID"
	else
		insmod "$SMC_KO" ueid="$SMC_UEID" && smc_vm_knobs
	fi
}

# tcpopt_detach: detach smc_tcpopt if it is attached, printing its path
# then (nothing when it was not attached); returns 1 on failure.
tcpopt_detach() {
	local tcpopt

	[ -e /sys/fs/bpf/smc_tcpopt ] || return 0
	tcpopt=$(smc_tcpopt_path) || return 1
	"$tcpopt" detach >/dev/null || return 1
	echo "$tcpopt"
}

# smc_rmmod_refused: try to unload smc while its sockets live, expecting a
# refusal for them alone: smc_tcpopt (whose kfunc holds the module too) is
# detached first and attached again after.  Prints rmmod's message;
# returns 0 when rmmod was refused, 1 when the module went away.
smc_rmmod_refused() {
	local tcpopt rc=0 err

	tcpopt=$(tcpopt_detach) || return 2
	err=$(rmmod smc 2>&1) || rc=$?
	echo "$err"
	[ -z "$tcpopt" ] || ! lsmod | grep -q '^smc ' ||
		"$tcpopt" attach >/dev/null || return 2
	[ "$rc" -ne 0 ]
}

# "${INCG[@]}" DIR CMD...: run CMD as a member of cgroup DIR (same process)
INCG=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"')

# sock_kinds [DIR]: "SO_DOMAIN/SO_PROTOCOL" of a new AF_INET and AF_INET6
# TCP socket of python3 (in cgroup DIR if given): "2/6 10/6" for TCP,
# "2/256 10/256" where the eBPF policy makes them IPPROTO_SMC.
sock_kinds() {
	local in_cg=()

	[ -z "${1:-}" ] || in_cg=("${INCG[@]}" "$1")
	"${in_cg[@]}" python3 -c '
import socket
out = []
for fam in (socket.AF_INET, socket.AF_INET6):
    s = socket.socket(fam, socket.SOCK_STREAM)
    out.append("%d/%d" % (s.getsockopt(socket.SOL_SOCKET, socket.SO_DOMAIN),
                          s.getsockopt(socket.SOL_SOCKET, socket.SO_PROTOCOL)))
    s.close()
print(" ".join(out))'
}

# unit_start_pre FILE DIR: the ExecStartPre command of systemd drop-in
# FILE, run in cgroup DIR as systemd runs it at the unit's start (its
# "-+" prefixes are systemd's; the words are quoted as a shell reads
# them).  Returns the command's exit code, 2 when FILE has no such line.
unit_start_pre() {
	local file=$1 dir=$2 line

	line=$(grep '^ExecStartPre=' "$file") || {
		log "no ExecStartPre line in $file"
		return 2
	}
	eval "set -- ${line#ExecStartPre=-+}"
	log "ExecStartPre of $file in $dir: $*"
	"${INCG[@]}" "$dir" "$@"
}

# sock_view PID [name]: one line per connection in $RESULTS/connections.json
# (smcctl --json connections) whose inode is a socket of PID:
# "inode state mode local_port peer_port reason", the reason as a number
# (0: none) or with "name" as its name ("-": none).
sock_view() {
	local f l out inodes=""

	for f in /proc/"$1"/fd/*; do
		l=$(readlink "$f" 2>/dev/null) || continue
		case $l in socket:\[*\]) inodes+="${l//[!0-9]/} " ;; esac
	done
	out=$(smcj conns -f "$RESULTS/connections.json") || return 1
	# INODE STATE MODE LOCAL_PORT PEER_PORT REASON REASON_NAME FAMILY
	awk -v inodes="$inodes" -v byname="${2:-}" '
		BEGIN { n = split(inodes, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
		NF && ($1 in want) { print $1, $2, $3, $4, $5, byname == "name" ? $7 : $6 }' <<<"$out"
}

# bpf_prog_gone NAME: wait (bounded) until no BPF program NAME is loaded.
# A tracing program is freed after an RCU tasks-trace grace period, off
# the detach path.  Fails with bpftool's line for it if it stays.
bpf_prog_gone() {
	local out

	for _ in $(seq 50); do
		out=$(bpftool prog show name "$1" 2>/dev/null) || true
		[ -n "$out" ] || return 0
		sleep 0.2
	done
	head -n 1 <<<"$out"
	return 1
}

# rxe_gid_index: the GID index of rxe0's RoCE v2 GID for our IPv4 address.
rxe_gid_index() {
	local f i

	for f in /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/*; do
		i=${f##*/}
		[ "$(cat "$f" 2>/dev/null)" = "RoCE v2" ] || continue
		case "$(cat /sys/class/infiniband/rxe0/ports/1/gids/"$i")" in
		0000:0000:0000:0000:0000:ffff:*) echo "$i"; return 0 ;;
		esac
	done
	return 1
}

# siw_only: this VM's RDMA device is Soft-iWARP's siw0, without rxe0
# (vmtest --rdma siw): its SMC-R links are iWARP ones
siw_only() {
	[ ! -d /sys/class/infiniband/rxe0 ] && [ -d /sys/class/infiniband/siw0 ]
}

# The test-hooks flavour's knobs (net/smc/testhooks.h, faultinj.c,
# hostile.c), under debugfs
# shellcheck disable=SC2034 # for the scenarios
FI=/sys/kernel/debug/smc_faultinj
# shellcheck disable=SC2034 # for the scenarios
RULES=/sys/kernel/debug/smc_hostile/rules

# debugfs_up: /sys/kernel/debug mounted
debugfs_up() {
	mountpoint -q /sys/kernel/debug ||
		mount -t debugfs none /sys/kernel/debug ||
		fail "cannot mount debugfs"
}

# kmsg_count REGEX: lines of this VM's kernel log matching the extended
# regex REGEX (0 when none)
kmsg_count() {
	dmesg | grep -Ec -- "$1" || true
}

# need_hooks [FILE...]: this VM must run the test-hooks module (vmtest
# --impl hooks in its place) and have each FILE (a knob's path under
# /sys/kernel/debug); mounts debugfs.  Fails the scenario otherwise.
need_hooks() {
	local f

	[ "${SMC_HOOKS:-0}" = 1 ] ||
		fail "VM $VM_INDEX must load the test-hooks module (vmtest --impl hooks in its place)"
	debugfs_up
	for f in "$@"; do
		[ -e "/sys/kernel/debug/$f" ] ||
			fail "no /sys/kernel/debug/$f: not the test-hooks module?"
	done
}

# rdma_counter NAME [DEV]: a hw counter of port 1 of rxe0 (sent_pkts, ...).
# On a VM with siw0 instead (vmtest --rdma siw), which has no counters,
# sent_pkts and rcvd_pkts are the KiB sent and received over the iWARP
# links' MPA connections (iw_tcp_bytes): about what rxe counts in packets
# of 1 KiB for the same payload, so the scenarios' thresholds hold.
rdma_counter() {
	local dev=${2:-rxe0} iw=0

	if [ "$dev" = rxe0 ] && [ -d /sys/class/infiniband/siw0 ]; then
		case "$1" in
		sent_pkts) iw=$(iw_tcp_bytes | awk '{ print int($1 / 1024) }') ;;
		rcvd_pkts) iw=$(iw_tcp_bytes | awk '{ print int($2 / 1024) }') ;;
		esac
		# siw0 alone, or beside rxe0 (a server with both): the sum
		if siw_only; then
			echo "$iw"
			return 0
		fi
	fi
	echo $((iw + $(cat "/sys/class/infiniband/$dev/ports/1/hw_counters/$1")))
}

# rdma_what: how rdma_counter's numbers read on this VM
rdma_what() {
	if [ ! -d /sys/class/infiniband/siw0 ]; then
		echo rxe0
	elif siw_only; then
		echo "siw0 (KiB over MPA, TCP port $SMC_IWARP_PORT)"
	else
		echo "rxe0 packets + siw0 KiB over MPA (TCP port $SMC_IWARP_PORT)"
	fi
}

# The iWARP listener port of our module in the VMs (guest-main.sh sets
# net.smc.smcr_iwarp_port): siw has no counters, its MPA connections'
# TCP byte counts stand in for them.
SMC_IWARP_PORT=5399

# iw_tcp_bytes: "SENT RECEIVED" bytes of this VM's established TCP
# connections to or from SMC_IWARP_PORT (the iWARP links' MPA streams)
iw_tcp_bytes() {
	ss -tniH state established \
		"( sport = :$SMC_IWARP_PORT or dport = :$SMC_IWARP_PORT )" |
		awk '{ for (i = 1; i <= NF; i++) {
			if ($i ~ /^bytes_acked:/) { split($i, a, ":"); s += a[2] }
			if ($i ~ /^bytes_received:/) { split($i, a, ":"); r += a[2] } } }
		END { printf "%d %d\n", s, r }'
}

# run_bg LOGNAME CMD...: start CMD in the background with its output in
# $RESULTS/LOGNAME.log; the PID is in $BG_PID.
run_bg() {
	local name=$1

	shift
	"$@" >"$RESULTS/$name.log" 2>&1 &
	BG_PID=$!
	export BG_PID
}

# wait_bg PID [TIMEOUT]: wait for a background job, killing it on timeout.
# Returns its exit code (124 on timeout).
wait_bg() {
	local pid=$1 timeout=$((${2:-60} * ${VM_SLOW:-1})) deadline

	deadline=$((SECONDS + timeout))
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			kill -9 "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			return 124
		fi
		sleep 0.2
	done
	wait "$pid"
}

# wait_file_line FILE PATTERN [TIMEOUT]: wait until FILE has a line matching
# the extended regex PATTERN (e.g. a server's "listening" line).
wait_file_line() {
	local file=$1 pattern=$2 timeout=$((${3:-60} * ${VM_SLOW:-1})) deadline

	deadline=$((SECONDS + timeout))
	until grep -Eq -- "$pattern" "$file" 2>/dev/null; do
		[ "$SECONDS" -ge "$deadline" ] &&
			fail "no line /$pattern/ in $file after ${timeout}s"
		sleep 0.2
	done
}

# ---- SMC-R data path checks (smcr-*.sh) ----------------------------------
# These record assertion failures in $RESULTS/smcr-problems and keep going,
# so that one run shows every way the data path fell short; smcr_verdict
# fails the scenario at the end if anything was recorded.

SMCR_PY=/usr/bin/python3

# smcj SUBCMD ARGS...: read `smcctl --json` output (stdin, or -f FILE) with
# tests/vm/lib/smcjson.py; its header documents the subcommands.  Fails,
# saying why on stderr, when smcctl failed or its output is not as expected.
smcj() {
	"$SMCR_PY" "$REPO/tests/vm/lib/smcjson.py" "$@"
}

# smcr_problem MSG...: record a failed assertion (and log it).
smcr_problem() {
	log "PROBLEM: $*"
	printf '%s\n' "$*" >>"$RESULTS/smcr-problems"
}

# smcr_verdict NAME: fail when smcr_problem was called, else log NAME ok.
smcr_verdict() {
	local f=$RESULTS/smcr-problems

	if [ -s "$f" ]; then
		fail "$1: $(wc -l <"$f") problem(s): $(paste -sd';' "$f")${SMCR_NOTE:+ [note: $SMCR_NOTE]}"
	fi
	log "$1 ok"
}

# smcr_second_lan: the second LAN of vmtest --nics 2: eth1 up with
# 192.168.77.(11 + VM_INDEX), a host route to the peer's address there and
# Soft-RoCE rxe1 on it, or Soft-iWARP siw1 where eth0 has siw0 instead of
# rxe0 (vmtest --rdma siw).  Sets ip1 (ours), peer1 (the peer's) and DEV1
# (the device).
smcr_second_lan() {
	local type=rxe

	[ -e /sys/class/net/eth1 ] || fail "needs eth1 (vmtest --nics 2)"
	siw_only && type=siw
	DEV1=${type}1
	ip1=192.168.77.$((11 + VM_INDEX))
	peer1=192.168.77.$((12 - VM_INDEX))
	ip link set eth1 up
	ip addr add "$ip1/24" dev eth1 noprefixroute
	ip route add "$peer1/32" dev eth1 src "$ip1"
	rdma link add "$DEV1" type "$type" netdev eth1 ||
		fail "cannot add $DEV1 on eth1"
}

# smcr_setup: find smcctl (SMCCTL) and check it answers; add the run's UEID
# ($SMC_UEID) to this VM's SMC module (SMC-R v2 needs one on both peers).
# An existing entry is fine; a refused one is recorded as a note on the
# verdict rather than failing here, so the run still shows what the
# handshakes did without it.
smcr_setup() {
	local eid=${SMC_UEID:-SMC-R-VMTEST} out

	SMCCTL=$(smcctl_path) || fail "cannot find or build smcctl"
	export SMCCTL
	: >"$RESULTS/smcr-problems"
	"$SMCCTL" --json stats >/dev/null 2>"$RESULTS/smcctl.err" ||
		fail "smcctl stats ($SMC_IMPL): $(cat "$RESULTS/smcctl.err")"
	if out=$(ueid add "$eid" 2>&1); then
		log "ueid $eid added ($SMC_IMPL)"
	elif [[ $out == *"File exists"* ]]; then
		log "ueid $eid already set ($SMC_IMPL)"
	else
		log "ueid add $eid refused ($SMC_IMPL): $out"
		SMCR_NOTE="UEID not set on vm$VM_INDEX ($out)"
	fi
	"$SMCCTL" info || true
}

# smcr_snapshot NAME: save this VM's SMC counters and rxe0 packet counters
# as $RESULTS/NAME.stats.json, NAME.fallback.json and NAME.rdma.
smcr_snapshot() {
	"$SMCCTL" --json stats >"$RESULTS/$1.stats.json" ||
		fail "smcctl --json stats failed"
	"$SMCCTL" --json fallback >"$RESULTS/$1.fallback.json" ||
		fail "smcctl --json fallback failed"
	echo "$(rdma_counter sent_pkts) $(rdma_counter rcvd_pkts)" \
		>"$RESULTS/$1.rdma"
}

# smcr_delta BEFORE AFTER: what changed between two smcr_snapshot's, as
# `smcj stats-delta` says it (lib/smcjson.py), each NAME as D_NAME:
# D_smcr_client, D_smcr_server, D_smcr_v1, D_smcr_v2, D_fb_client,
# D_fb_server, D_hserr_client, D_hserr_server, D_rx_bytes, D_tx_bytes, and
# D_why_client, D_why_server (the reasons that grew, "NAME:COUNT,...", "-"
# when none).  Set in the caller's scope when it declared them local, else
# globally.
smcr_delta() {
	local d

	d=$(smcj stats-delta "$RESULTS/$1" "$RESULTS/$2") ||
		fail "cannot compare smcctl snapshots $1/$2"
	eval "$(sed 's/^/D_/' <<<"$d")"
}

# smcr_expect_stats BEFORE AFTER CLIENTS SERVERS: between two snapshots,
# exactly CLIENTS new SMC-R v2 handshakes as client and SERVERS as server,
# no v1 ones, no fallback and no handshake error.  New fallbacks are
# reported with their reason names.
# shellcheck disable=SC2154 # D_*: smcr_delta
smcr_expect_stats() {
	local s want n w why

	smcr_delta "$1" "$2"
	log "stats: smcr_connections +client $D_smcr_client +server $D_smcr_server +v1 $D_smcr_v1 +v2 $D_smcr_v2, fallbacks +client $D_fb_client +server $D_fb_server, handshake_errors +client $D_hserr_client +server $D_hserr_server, rx +$D_rx_bytes B, tx +$D_tx_bytes B"
	for s in client server; do
		want=$3
		[ "$s" = client ] || want=$4
		n=D_smcr_$s
		[ "${!n}" -eq "$want" ] ||
			smcr_problem "${!n} new SMC-R handshakes as $s, want $want"
		n=D_fb_$s w=D_why_$s
		why=${!w}
		[ "$why" != - ] || why="no reason code"
		[ "${!n}" -eq 0 ] ||
			smcr_problem "${!n} new fallbacks as $s ($why)"
		n=D_hserr_$s
		[ "${!n}" -eq 0 ] ||
			smcr_problem "${!n} new handshake errors as $s"
	done
	[ "$D_smcr_v1" -eq 0 ] ||
		smcr_problem "$D_smcr_v1 new SMC-R v1 handshakes, want only v2"
	[ "$D_smcr_v2" -eq $(($3 + $4)) ] ||
		smcr_problem "$D_smcr_v2 new SMC-R v2 handshakes, want $(($3 + $4))"
	return 0
}

# smcr_expect_rdma BEFORE AFTER SENT_MIN RCVD_MIN: rxe0's sent_pkts and
# rcvd_pkts grew by at least these many packets between two snapshots
# (about one packet per KiB of payload with rxe's MTU of 1024; on siw0,
# KiB over MPA: rdma_counter).
smcr_expect_rdma() {
	local tx0 rx0 tx1 rx1 what

	what=$(rdma_what)
	read -r tx0 rx0 <"$RESULTS/$1.rdma"
	read -r tx1 rx1 <"$RESULTS/$2.rdma"
	log "$what sent_pkts +$((tx1 - tx0)) (want >= $3), rcvd_pkts +$((rx1 - rx0)) (want >= $4)"
	[ $((tx1 - tx0)) -ge "$3" ] ||
		smcr_problem "$what sent_pkts grew by $((tx1 - tx0)) < $3: the data did not cross RDMA"
	[ $((rx1 - rx0)) -ge "$4" ] ||
		smcr_problem "$what rcvd_pkts grew by $((rx1 - rx0)) < $4: the data did not cross RDMA"
	return 0
}

# smcr_expect_conns server|client PORT COUNT [REASON]: `smcctl --json
# connections` lists exactly COUNT established sockets of this test
# (server: local port PORT; client: peer port PORT), all in state ACTIVE:
# in mode SMCR without a fallback reason, or with REASON (a reason name
# without SMC_CLC_DECL_) in mode TCP with that fallback reason.  Listening
# sockets are not counted.
smcr_expect_conns() {
	local out which=peer n ok bad want="SMC-R" cond

	cond='$2 == "ACTIVE" && $3 == "SMCR" && $6 == 0'
	if [ -n "${4:-}" ]; then
		cond='$2 == "ACTIVE" && $3 == "TCP" && $7 == "SMC_CLC_DECL_'"$4"'"'
		want="TCP with $4"
	fi
	"$SMCCTL" --json connections >"$RESULTS/connections-$1.json" ||
		{ smcr_problem "smcctl --json connections failed"; return 0; }
	[ "$1" != server ] || which=local
	out=$(smcj conns -f "$RESULTS/connections-$1.json" --port "$which" "$2") ||
		{ smcr_problem "cannot read smcctl connections"; return 0; }
	# INODE STATE MODE LOCAL_PORT PEER_PORT REASON REASON_NAME FAMILY
	read -r n ok <<<"$(awk "NF { n++ } NF && $cond { s++ }
		END { print n + 0, s + 0 }" <<<"$out")"
	log "connections ($1): $n sockets on port $2, $ok ACTIVE $want"
	[ "$n" -eq "$3" ] ||
		smcr_problem "smcctl connections lists $n sockets on port $2, want $3"
	bad=$(awk "NF && !($cond) { print \$3 \"/\" \$2 \"/\" \$7 }" <<<"$out" |
		sort | uniq -c | awk '{ printf "%s%s x%d", sep, $2, $1; sep = ", " }')
	[ -z "$bad" ] || smcr_problem "sockets on port $2 not ACTIVE $want: $bad"
	return 0
}

# smcr_expect_linkgroups COUNT CONNS: `smcctl --json linkgroups` shows
# COUNT link groups that carry connections, and CONNS connections on them
# in all (where the entries have a "conns" field).  smcctl failing, or
# printing no list of link groups, is a problem too.  Idle link groups
# (kept a while after their last connection) are not counted.
smcr_expect_linkgroups() {
	local out lgrs busy conns

	if ! "$SMCCTL" --json linkgroups >"$RESULTS/linkgroups.json" 2>"$RESULTS/linkgroups.err"; then
		smcr_problem "smcctl --json linkgroups failed: $(paste -sd' ' "$RESULTS/linkgroups.err")"
		return 0
	fi
	log "linkgroups: $(cat "$RESULTS/linkgroups.json")"
	out=$(smcj lgrs -f "$RESULTS/linkgroups.json") ||
		{ smcr_problem "cannot read smcctl --json linkgroups: '$(head -c 200 "$RESULTS/linkgroups.json")'"; return 0; }
	read -r lgrs busy conns _ <<<"$out"
	log "linkgroups: $lgrs link groups, $busy with connections, $conns connections on them"
	[ "$busy" -eq "$1" ] ||
		smcr_problem "$busy link groups with connections, want $1"
	[ "$conns" -eq "$2" ] ||
		smcr_problem "$conns connections on the link groups, want $2"
	return 0
}

# smcr_load_errors server|client: the first lines of smc_load's log that
# tell what went wrong, on one line.
smcr_load_errors() {
	grep -E 'FAILED|timed out|timeout:' "$RESULTS/smc_load-$1.log" |
		head -n 4 | paste -sd' ' || true
}

# smcr_client_at connected|holding SECS: wait until the smc_load client
# says it reached that point (or ended).  smc_load gives up by itself after
# SECS + 30 and says where each connection stood; this wait is a backstop.
smcr_client_at() {
	local log=$RESULTS/smc_load-client.log

	if ! (wait_file_line "$log" "^smc_load: $1 |^conns=|timed out" $(($2 + 40))); then
		cat "$log"
		fail "smc_load client neither got to '$1' nor ended"
	fi
	grep -qE "^smc_load: $1 " "$log" ||
		smcr_problem "smc_load client did not get to '$1': $(smcr_load_errors client)"
	return 0
}

# smcr_expect_fallback_stats BEFORE AFTER ROLE N REASON: between two
# snapshots, N new fallbacks as ROLE, all with REASON, and no SMC-R
# handshake and no handshake error in either role.
# shellcheck disable=SC2154 # D_*: smcr_delta
smcr_expect_fallback_stats() {
	local fb=D_fb_$3 why=D_why_$3

	smcr_delta "$1" "$2"
	log "stats: fallbacks +client $D_fb_client ($D_why_client) +server $D_fb_server ($D_why_server), smcr_connections +client $D_smcr_client +server $D_smcr_server, handshake_errors +client $D_hserr_client +server $D_hserr_server"
	[ "${!fb}" -eq "$4" ] && [ "${!why}" = "$5:$4" ] ||
		smcr_problem "${!fb} new fallbacks as $3 (${!why}), want $4 with $5"
	[ $((D_smcr_client + D_smcr_server + D_hserr_client + D_hserr_server)) -eq 0 ] ||
		smcr_problem "SMC-R handshakes or handshake errors where every connection falls back"
	return 0
}

# smcr_load_test NAME MODE CONNS BYTES SECS: VM 0 runs an smc_load server;
# every other VM opens CONNS concurrent AF_SMC connections to it at the
# same time, each moving BYTES (MODE echo: both ways; stream: one way).
# While all connections are open (after their data moved, before close),
# every VM checks `smcctl connections` (all SMCR) and link groups; after
# they closed: all data verified, exactly the expected new SMC-R v2
# handshakes per side and no fallback (smcctl stats/fallback), and rxe0's
# packet counters grew by >= payload/1024 in the direction of the data
# (the other direction of a stream: >= payload/65536, rxe's ACKs).  SECS
# bounds the transfer (smc_load gives up after SECS + 30); a hung run ends
# within about SECS + 120 s.
# With SMCR_FALLBACK=CLIENT_REASON:SERVER_REASON (reason names without
# SMC_CLC_DECL_) the pairing is one whose outcome is a fallback, as with
# Linux 6.1's module on rxe: the data is checked the same way, and every
# connection must be ACTIVE over TCP with that reason on each side,
# without any SMC-R handshake.
# smcr_grows BYTES [MODE]: whether an RMB that BYTES were written into
# grows (grown) or not (small); with MODE (echo or stream), the client's
# RMB, which a stream leaves empty.  Growth starts at half a 16 KiB ring
# unread or 64 KiB written (smc_rmb_grow_due()): BYTES between those may
# go either way and are not for growth tests.
smcr_grows() {
	if [ "${2:-echo}" != echo ] || [ "$1" -lt 8192 ]; then
		echo small
	elif [ "$1" -ge 65536 ]; then
		echo grown
	else
		echo either
	fi
}

smcr_load_test() {
	local name=$1 mode=$2 conns=$3 bytes=$4 secs=$5 port=5100
	local clients=$((VM_COUNT - 1)) pid go=/tmp/smcr-go release=/tmp/smcr-release
	local payload fwd back t0=$SECONDS

	[ "$clients" -ge 1 ] || fail "$name needs at least two VMs"
	[ "$SMC_IMPL" != none ] || fail "$name needs an SMC module on every VM"
	smcr_setup
	smcr_snapshot before
	barrier smcr-snapshot
	if [ "$VM_INDEX" -eq 0 ]; then
		run_bg smc_load-server smc_load -s -p "$port" \
			-n $((conns * clients)) -t $(((secs + 30) * ${VM_SLOW:-1}))
		pid=$BG_PID
		wait_file_line "$RESULTS/smc_load-server.log" listening 30
		barrier smcr-listening
		barrier smcr-connected $((secs + 45))
		barrier smcr-holding $((secs + 45))
		if [ -n "${SMCR_FALLBACK:-}" ]; then
			smcr_expect_conns server "$port" $((conns * clients)) "${SMCR_FALLBACK#*:}"
		else
			smcr_expect_conns server "$port" $((conns * clients))
			smcr_expect_linkgroups "$clients" $((conns * clients))
			smcr_expect_links "${SMCR_LINKS:-1}"
			smcr_expect_path "$mode"
			smcr_expect_rmbs "$port" local "$(smcr_grows "$bytes")" \
				"$(smcr_grows "$bytes" "$mode")"
		fi
		barrier smcr-checked
		wait_bg "$pid" 60 ||
			smcr_problem "smc_load server failed: $(smcr_load_errors server)"
		cat "$RESULTS/smc_load-server.log"
		payload=$((conns * clients * bytes))
	else
		barrier smcr-listening
		rm -f "$go" "$release"
		run_bg smc_load-client smc_load -c "$VM_IP_0" -p "$port" \
			-N "$conns" -B "$bytes" -m "$mode" -S $((0x5eed00 + VM_INDEX)) \
			-G "$go" -W "$release" -t $(((secs + 30) * ${VM_SLOW:-1}))
		pid=$BG_PID
		# All handshakes (of all client VMs) first, then all data at
		# the same time: link groups are not set up under load.
		smcr_client_at connected "$secs"
		barrier smcr-connected $((secs + 45))
		touch "$go"
		smcr_client_at holding "$secs"
		barrier smcr-holding 30
		if [ -n "${SMCR_FALLBACK:-}" ]; then
			smcr_expect_conns client "$port" "$conns" "${SMCR_FALLBACK%%:*}"
		else
			smcr_expect_conns client "$port" "$conns"
			smcr_expect_linkgroups 1 "$conns"
			smcr_expect_links "${SMCR_LINKS:-1}"
			smcr_expect_path "$mode"
			smcr_expect_rmbs "$port" peer \
				"$(smcr_grows "$bytes" "$mode")" \
				"$(smcr_grows "$bytes")"
		fi
		barrier smcr-checked
		touch "$release"
		wait_bg "$pid" 60 ||
			smcr_problem "smc_load client failed: $(smcr_load_errors client)"
		cat "$RESULTS/smc_load-client.log"
		grep -qx "conns=$conns bytes=$((conns * bytes)) ok" "$RESULTS/smc_load-client.log" ||
			smcr_problem "client summary is not 'conns=$conns bytes=$((conns * bytes)) ok'"
		payload=$((conns * bytes))
	fi
	barrier smcr-done $((secs + 90))
	smcr_snapshot after
	if [ -n "${SMCR_FALLBACK:-}" ]; then
		if [ "$VM_INDEX" -eq 0 ]; then
			smcr_expect_fallback_stats before after server $((conns * clients)) "${SMCR_FALLBACK#*:}"
		else
			smcr_expect_fallback_stats before after client "$conns" "${SMCR_FALLBACK%%:*}"
		fi
		log "$name: $mode over TCP, fallbacks expected ${SMCR_FALLBACK}, $conns connection(s) x $bytes bytes per client VM, $((SECONDS - t0)) s"
		smcr_verdict "$name"
		return
	fi
	if [ "$VM_INDEX" -eq 0 ]; then
		smcr_expect_stats before after 0 $((conns * clients))
	else
		smcr_expect_stats before after "$conns" 0
	fi
	fwd=$((payload / 1024))
	back=$fwd
	if [ "$mode" != echo ]; then
		# rxe acknowledges every 64 packets at least
		back=$((payload / 65536))
		# iWARP: TCP's acknowledgements carry no MPA bytes; the way
		# back has the receiver's CDC cursor updates, 64 B per MiB at
		# least
		! siw_only || back=$((payload / 16777216))
	fi
	if [ "$VM_INDEX" -eq 0 ]; then
		smcr_expect_rdma before after "$back" "$fwd"
	else
		smcr_expect_rdma before after "$fwd" "$back"
	fi
	log "$name: $mode, $conns connection(s) x $bytes bytes per client VM, $clients client VM(s), $((SECONDS - t0)) s"
	smcr_verdict "$name"
}

# smcr_grow_on: whether this run has RMB growth on between our modules:
# SMCR_GROW (1 or 0) when given, else this VM's net.smc.smcr_rmb_grow
# (every VM of a run gets the same knobs).
smcr_grow_on() {
	local on=${SMCR_GROW:-}

	[ -n "$on" ] || on=$(cat /proc/sys/net/smc/smcr_rmb_grow 2>/dev/null) || on=0
	[ "$on" != 0 ]
}

# smcr_expect_rmbs PORT WHICH IN OUT: with RMB growth (smcr_grow_on), the
# sizes of the RMBs of this VM's SMC-R connections on PORT (WHICH: local
# or peer, as smcj rmbs takes it).  IN says whether the peer wrote enough
# into each to make it grow (grown) or not (small), OUT the same for the
# peer's RMB: grown RMBs are larger than 16 KiB, small ones 16 KiB.
smcr_expect_rmbs() {
	local port=$1 which=$2 in=$3 out=$4 ino rmb peer n=0 bad=0

	# growth needs our module on both ends
	smcr_grow_on && [[ " $VM_IMPLS " != *" dist "* ]] || return 0
	"$SMCCTL" --json connections >"$RESULTS/rmbs.json" 2>/dev/null ||
		{ smcr_problem "smcctl --json connections failed"; return 0; }
	smcj rmbs -f "$RESULTS/rmbs.json" --port "$which" "$port" \
		>"$RESULTS/rmbs" 2>"$RESULTS/rmbs.err" ||
		{ smcr_problem "cannot read RMB sizes: $(cat "$RESULTS/rmbs.err")"; return 0; }
	while read -r ino rmb peer; do
		[ -n "$ino" ] || continue
		n=$((n + 1))
		if ! smcr_rmb_is "$in" "$rmb" || ! smcr_rmb_is "$out" "$peer"; then
			bad=$((bad + 1))
			[ "$bad" -gt 3 ] ||
				smcr_problem "RMB growth: socket $ino has an RMB of $rmb bytes and the peer's of $peer, want $in and $out"
		fi
	done <"$RESULTS/rmbs"
	log "RMB growth: $n SMC-R connections on port $port, RMBs $in, the peer's $out: $((n - bad)) as expected"
	[ "$n" -gt 0 ] || smcr_problem "RMB growth: no SMC-R connection on port $port"
	[ "$bad" -eq 0 ] || smcr_problem "RMB growth: $bad of $n connections with other sizes"
	return 0
}

# smcr_rmb_is grown|small BYTES
smcr_rmb_is() {
	case $1 in
	grown) [ "$2" -gt 16384 ] ;;
	small) [ "$2" -eq 16384 ] ;;
	either) [ "$2" -ge 16384 ] ;;
	*) return 1 ;;
	esac
}

# smcr_expect_links N: every link group that carries connections has N
# ACTIVE links (`smcctl --json links`).  With one RDMA device per host, a
# server's ADD_LINK finds no new path and the client refuses it, whichever
# module runs on either side: N is 1 then.
smcr_expect_links() {
	local out lgr active

	"$SMCCTL" --json links >"$RESULTS/links.json" 2>/dev/null ||
		{ smcr_problem "smcctl --json links failed"; return 0; }
	out=$(smcj lgr-links -f "$RESULTS/links.json") ||
		{ smcr_problem "cannot read smcctl links"; return 0; }
	# LGR CONNS ACTIVE IDLE DEVS, those with connections
	out=$(awk 'NF && $2 > 0' <<<"$out")
	log "links: $(awk 'NF { n++; a = a sep $3; sep = " " }
		END { print n + 0 " link groups with connections, ACTIVE links: " a }' <<<"$out")"
	while read -r lgr _ active _; do
		[ -z "$lgr" ] || [ "$active" -eq "$1" ] ||
			smcr_problem "link group $lgr has $active ACTIVE links, want $1"
	done <<<"$out"
	return 0
}

# smcr_expect_path [echo|stream]: which data path each link group with connections took
# (smcctl's linkgroups.json and links.json, as smcr_expect_linkgroups and
# smcr_expect_links leave them).  Between two VMs running ours (hooks is
# ours too) the link group must have agreed on the WIMM extension
# (WRITE WITH IMMEDIATE) and used it (with echo: in both directions,
# with stream only the direction of the data is sure to); with the
# distribution's module on the other end, none, and not one WIMM.
# SMCR_WIMM=0: the scenario turned net.smc.smcr_write_imm off, no link
# group may have it.  On a VM running the distribution's module there is
# nothing of ours to check.
smcr_expect_path() {
	local lgr ip conns ext tx rx peer want mode=${1:-stream}
	local -a impls

	[ "$SMC_IMPL" = ours ] || return 0
	read -ra impls <<<"$VM_IMPLS"
	smcj lgr-ext -f "$RESULTS/linkgroups.json" "$RESULTS/links.json" \
		>"$RESULTS/lgr-ext" 2>"$RESULTS/lgr-ext.err" ||
		{ smcr_problem "cannot read the link groups' extensions: $(cat "$RESULTS/lgr-ext.err")"; return 0; }
	while read -r lgr ip conns ext tx rx; do
		[ -n "$lgr" ] || continue
		peer=${ip##*.}
		peer=${impls[peer - 1]:-unknown}
		want=-
		if [ "$peer" = ours ] || [ "$peer" = hooks ]; then
			# iWARP links (this VM has only siw0, or the peer
			# is one of SMCR_IW_VMS): no WIMM (iWARP has none)
			if siw_only ||
			   [[ " ${SMCR_IW_VMS:-} " == *" $((${ip##*.} - 1)) "* ]]; then
				want=iwarp
			elif [ "${SMCR_WIMM:-1}" != 0 ]; then
				want=wimm
			fi
			# RMB growth, when this run has it on
			if smcr_grow_on; then
				[ "$want" = - ] && want=grow || want=$want,grow
			fi
		fi
		log "path: link group $lgr with $ip ($peer), $conns connections, extensions $ext, WIMMs sent $tx received $rx"
		if [ "$ext" != "$want" ]; then
			smcr_problem "link group $lgr with $ip ($peer): extensions $ext, want $want"
		elif [[ $want == wimm* ]]; then
			if [ "$tx" = - ] || [ $((tx + rx)) -eq 0 ] ||
			   { [ "$mode" = echo ] &&
			     { [ "$tx" -eq 0 ] || [ "$rx" -eq 0 ]; }; }; then
				smcr_problem "link group $lgr with $ip: WIMM agreed but sent $tx, received $rx ($mode)"
			fi
		elif [ "$tx" != 0 ] || [ "$rx" != 0 ]; then
			smcr_problem "link group $lgr with $ip: no WIMM agreed but sent $tx, received $rx"
		fi
	done <"$RESULTS/lgr-ext"
	return 0
}

# vm_reset_now: end this VM the hard way, as a power cut would (sysrq b:
# no shutdown, no socket closed, nothing sent), after saving what the
# harness wants (exit code 0, dmesg, the done mark), so that vmtest counts
# it as a VM that finished.  For fault tests whose peer must see a dead
# host; call smcr_verdict (or check everything else) first.
vm_reset_now() {
	echo 0 >"$RESULTS/exit_code"
	dmesg >"$RESULTS/dmesg" 2>&1
	: >"$RESULTS/done"
	sync
	echo b >/proc/sysrq-trigger
	sleep 60
	exit 1
}

# A disk that lasts across a reboot, for scenarios run by tests/vm/reboot
# (SMCR_BOOT is 1, then 2; the second boot finds what the first saved in
# its run folder, as disk-vmN.tar beside $RESULTS).
# disk_mount DIR...: each DIR becomes writable (an overlay on tmpfs); on
# the second boot it holds what the first left there.
disk_mount() {
	local d up=/tmp/disk/up work=/tmp/disk/work

	mkdir -p "$up" "$work" || return 1
	if [ "${SMCR_BOOT:-1}" -gt 1 ]; then
		tar -xpf "${RESULTS%/*}/disk-vm$VM_INDEX.tar" -C "$up" ||
			{ log "no disk of the first boot"; return 1; }
	fi
	modprobe overlay 2>/dev/null || true
	for d in "$@"; do
		mkdir -p "$up$d" "$work$d" || return 1
		mount -t overlay overlay \
			-o "lowerdir=$d,upperdir=$up$d,workdir=$work$d" "$d" ||
			return 1
	done
}

# disk_save: what this boot changed under disk_mount's folders, for the
# next boot (into $RESULTS/disk.tar).
disk_save() {
	sync
	tar -cpf "$RESULTS/disk.tar" -C /tmp/disk/up .
}
