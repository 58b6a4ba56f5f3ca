#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smc_run (tools/smc_run): an unmodified TCP program, tools/smc_run/tcp_xfer.py
# under /usr/bin/python3, runs over AF_SMC.  VM 0 serves, VM 1 is the client
# (started through a shell, so the preload must survive fork+exec); a
# checksummed payload (SMCRUN_BYTES, default 4 MiB) crosses both ways.
# While the connection is open each side proves its TCP sockets are AF_SMC:
#   - SMC_DEBUG conversion lines in the program's log;
#   - the program's own view: SO_DOMAIN 43 for its TCP sockets (SO_PROTOCOL 1
#     for the IPv6 one), 2 for a UDP socket and 1 for a UNIX socket, which
#     must stay untouched;
#   - the kernel's view: the socket inodes in /proc/PID/fd are listed by
#     `smcctl connections --json` (AF_SMC sock_diag) and /proc/net/protocols
#     counts them under SMC;
#   - SMC-R, not a fallback: the program's connection is ACTIVE in mode
#     SMCR without a fallback reason, `smcctl stats` counts exactly one new
#     SMC-R v2 handshake (client on VM 1, server on VM 0) and no fallback,
#     and rxe0's packet counters grew by at least one packet per KiB of the
#     payload in each direction (the data crossed RDMA).
# First, smc_run -r/-t raise this VM's net.core.rmem_max/wmem_max.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -ge 2 ] || fail "needs two VMs"
PY=/usr/bin/python3
bytes=${SMCRUN_BYTES:-4194304}
port=5200
dir=$REPO/tools/smc_run
SMC_RUN=$dir/smc_run
XFER=$dir/tcp_xfer.py
release=$SHARED/smc-run.release

# The preload library: the host build if it is current, else built here.
lib=$(smc_preload_path) || fail "cannot build libsmc-preload.so"
export SMC_PRELOAD_LIB=$lib

# smcctl likewise (SMCCTL), and the run's UEID
smcr_setup

$PY -c "import socket; socket.socket(43, socket.SOCK_STREAM, 0).close()" ||
	fail "AF_SMC sockets cannot be created (SMC_IMPL=$SMC_IMPL)"

# -r/-t raise net.core.rmem_max/wmem_max when lower, as smc-tools' does
# (this VM's: the host test uses copies)
echo 212992 >/proc/sys/net/core/rmem_max
echo 212992 >/proc/sys/net/core/wmem_max
"$SMC_RUN" -r 8m -t 4m true || fail "smc_run -r 8m -t 4m true: exit $?"
[ "$(cat /proc/sys/net/core/rmem_max)" = 8388608 ] ||
	fail "smc_run -r 8m: net.core.rmem_max is $(cat /proc/sys/net/core/rmem_max), want 8388608"
[ "$(cat /proc/sys/net/core/wmem_max)" = 4194304 ] ||
	fail "smc_run -t 4m: net.core.wmem_max is $(cat /proc/sys/net/core/wmem_max), want 4194304"
log "smc_run -r 8m -t 4m raised net.core.rmem_max and wmem_max"

# smc_sockets PROCLOG: the SMC + SMC6 socket count of /proc/net/protocols.
smc_sockets() {
	awk '$1 == "SMC" || $1 == "SMC6" { n += $3 } END { print n + 0 }' /proc/net/protocols
}

# check_open PID LOG DOMAINS-REGEX MIN PYEXPR: the checks on a live
# connection (see the header).  PYEXPR is evaluated with `mine`, the
# smcctl entries whose inode is one of PID's sockets.
check_open() {
	local pid=$1 plog=$2 domains=$3 min=$4 expr=$5 f l inodes="" fd ino n

	grep -q 'tcp_xfer.py' "/proc/$pid/cmdline" || fail "pid $pid is not tcp_xfer.py"
	grep -Eq "^$domains\$" "$plog" || fail "socket domains: want /$domains/, got: $(grep domains "$plog")"
	log "program's view: $(grep '^domains' "$plog")"
	grep -q 'cannot create AF_SMC\|using TCP' "$plog" && fail "smc_run fell back to TCP: $(grep smc_run "$plog")"

	for f in /proc/"$pid"/fd/*; do
		l=$(readlink "$f" 2>/dev/null) || continue
		case $l in socket:\[*\]) inodes+="${l//[!0-9]/} " ;; esac
	done
	log "sockets of pid $pid: inodes $inodes"
	# the first converted socket (listener / connected socket) by its fd
	fd=$(sed -n 's/.*-> AF_SMC fd \([0-9]*\)$/\1/p' "$plog" | head -n 1)
	[ -n "$fd" ] || fail "no SMC_DEBUG conversion line in $plog"
	ino=$(readlink "/proc/$pid/fd/$fd") || fail "fd $fd of pid $pid is gone"
	ino=${ino//[!0-9]/}
	log "SMC_DEBUG: $(grep -m1 -- '-> AF_SMC fd' "$plog") (inode $ino)"

	n=$(smc_sockets)
	[ "$n" -ge "$min" ] || fail "/proc/net/protocols counts $n SMC sockets, want >= $min"
	log "/proc/net/protocols: $n SMC socket(s)"

	J=$("$SMCCTL" connections --json) || fail "smcctl connections --json exited $?"
	export J INODES="$inodes" FIRST="$ino"
	$PY -c "
import json, os, sys
j = json.loads(os.environ['J'])
inodes = {int(i) for i in os.environ['INODES'].split()}
mine = [c for c in j['connections'] if c['inode'] in inodes]
for c in mine:
    print('  AF_SMC inode %d %s %s %s -> %s fallback %s' % (c['inode'], c['state'],
          c['mode'], c['local'], c['peer'], c['fallback_reason_name']))
ok = len(mine) >= $min and int(os.environ['FIRST']) in {c['inode'] for c in mine} and ($expr)
sys.exit(0 if ok else 1)" || fail "smcctl does not list the expected AF_SMC sockets of pid $pid: $J"
	log "smcctl lists the program's sockets as AF_SMC"
	# and its connection is SMC-R, not a fallback to TCP
	out=$($PY -c "
import json, os
j = json.loads(os.environ['J'])
inodes = {int(i) for i in os.environ['INODES'].split()}
conns = [c for c in j['connections'] if c['inode'] in inodes and c['state'] != 'LISTEN']
print('%d connection(s): %s' % (len(conns), ', '.join('%s %s fallback %s' % (c['mode'], c['state'], c['fallback_reason_name'] if c['fallback_reason'] else '-') for c in conns)))
if not conns:
    print('PROBLEM pid $pid has no AF_SMC connection')
for c in conns:
    if c['mode'] != 'SMCR' or c['state'] != 'ACTIVE' or c['fallback_reason']:
        print('PROBLEM pid $pid: connection %s -> %s is %s %s, fallback reason %s, want SMCR ACTIVE without fallback' % (
            c['local'], c['peer'], c['mode'], c['state'], c['fallback_reason_name']))
") || fail "cannot read smcctl connections"
	log "pid $pid: $(head -n 1 <<<"$out")"
	while read -r line; do
		[[ $line != PROBLEM* ]] || smcr_problem "${line#PROBLEM }"
	done <<<"$out"
}

smcr_snapshot before

case "$VM_INDEX" in
0)
	rm -f "$release"
	run_bg server "$SMC_RUN" -d "$PY" "$XFER" server "$port" --hold "$release"
	server=$BG_PID
	wait_file_line "$RESULTS/server.log" "listening on $port" 60
	barrier listening
	wait_file_line "$RESULTS/server.log" '^holding' 240
	check_open "$server" "$RESULTS/server.log" \
		'domains accepted=43/0 listener=43/0 tcp6=43/1 udp=2/17 unix=1/0' 2 \
		"any(c['state'] == 'LISTEN' and c['local_port'] == $port for c in mine) and
		 any(c['peer_addr'] == '$VM_IP_1' and c['local_port'] == $port for c in mine)"
	barrier inspected 240
	: >"$release"
	wait_bg "$server" 120 || fail "server failed: $(tail -n 5 "$RESULTS/server.log")"
	grep -q 'server ok' "$RESULTS/server.log" || fail "server not ok"
	smcr_snapshot after
	smcr_expect_stats before after 0 1
	smcr_expect_rdma before after $((bytes / 1024)) $((bytes / 1024))
	cp "$RESULTS/server.log" "$SHARED/smc-run.server.log"
	barrier xfer-done 240
	# the digests both sides printed agree
	c_sent=$(sed -n 's/^sent .* sha256 //p' "$SHARED/smc-run.client.log")
	s_rcvd=$(sed -n 's/^received .* sha256 //p' "$RESULTS/server.log")
	[ -n "$c_sent" ] && [ "$c_sent" = "$s_rcvd" ] || fail "client sent $c_sent, server received $s_rcvd"
	log "client -> server: $bytes bytes sha256 $s_rcvd"
	;;
1)
	barrier listening
	# through a shell that forks: the preload must reach the child
	run_bg client "$SMC_RUN" -d /bin/sh -c \
		"\"$PY\" \"$XFER\" client $VM_IP_0 $port $bytes --hold \"$release\"; echo \"client exit \$?\""
	client=$BG_PID
	wait_file_line "$RESULTS/client.log" '^holding|^client exit' 240
	grep -q '^holding' "$RESULTS/client.log" || fail "client failed: $(tail -n 5 "$RESULTS/client.log")"
	pid=$(pgrep -n -P "$client" -f tcp_xfer.py) || fail "no tcp_xfer.py child of pid $client"
	grep -q LD_PRELOAD= "/proc/$pid/environ" || fail "child lost LD_PRELOAD"
	check_open "$pid" "$RESULTS/client.log" \
		'domains connected=43/0 tcp6=43/1 udp=2/17 unix=1/0' 1 \
		"any(c['peer_addr'] == '$VM_IP_0' and c['peer_port'] == $port for c in mine)"
	barrier inspected 240
	wait_bg "$client" 120 || fail "client shell failed"
	grep -q '^client exit 0$' "$RESULTS/client.log" || fail "client failed: $(tail -n 5 "$RESULTS/client.log")"
	grep -q 'client ok' "$RESULTS/client.log" || fail "client not ok"
	smcr_snapshot after
	smcr_expect_stats before after 1 0
	smcr_expect_rdma before after $((bytes / 1024)) $((bytes / 1024))
	cp "$RESULTS/client.log" "$SHARED/smc-run.client.log"
	log "server -> client: $(grep '^received' "$RESULTS/client.log")"
	barrier xfer-done 240
	;;
*)
	barrier listening
	barrier inspected 240
	barrier xfer-done 240
	;;
esac
smcr_verdict smc-run
