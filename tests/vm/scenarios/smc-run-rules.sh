#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smc_run's rules (-p PORTS, -a ADDRS) and -n, with our module on two VMs.
# Unmodified TCP programs: tools/smc_run/rules_probe.py under python3.  With
# a rule a TCP socket stays TCP until connect()/listen(), where the library
# swaps in an AF_SMC socket when the destination / bound address matches.
# VM 0 serves:
#   srv1 under -p 5301: listeners on 0.0.0.0:5301 (becomes AF_SMC) and
#        0.0.0.0:5302 (stays TCP);
#   srv2 under -a VM_IP_0: listeners on VM_IP_0:5303 (AF_SMC) and
#        0.0.0.0:5304 (TCP: the wildcard is not VM_IP_0).
# VM 1 runs one client per case, each moving 1 MiB each way (SHA-256 checked)
# and holding its connection open while both VMs check it:
#   port-match  -p 5301 to 5301: SMC-R       port-other  -p 5301 to 5302: TCP
#   addr-match  -a VM_IP_0/32 to 5301: SMC-R addr-other  -a 10.254.0.0/16: TCP
#   opts        -p 5301 to 5301 after O_NONBLOCK, SO_KEEPALIVE, TCP_NODELAY,
#               SO_SNDBUF and bind(40001): all still in effect, SMC-R
#   both        -a VM_IP_0 -p 5303 to 5303: SMC-R
# "SMC-R": the program sees SO_DOMAIN 43 and `smcctl connections --json`
# lists the socket inode of the program, ACTIVE in mode SMCR, no fallback;
# "TCP": SO_DOMAIN 2 and none of the program's sockets is listed.  VM 0
# checks its listeners and accepted sockets the same way.  Then -n: a
# program converted by smc_run -n runs a child (fork + exec) that is not
# converted and has no LD_PRELOAD; without -n the child is converted.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "smc-run-rules needs two VMs"
[ "$SMC_IMPL" != none ] || fail "smc-run-rules needs an SMC module on every VM"
PY=/usr/bin/python3
bytes=1048576
dir=$REPO/tools/smc_run
SMC_RUN=$dir/smc_run
PROBE=$dir/rules_probe.py
release=$SHARED/smc-run-rules.release
lport=40001

# The preload library: the host build if it is current, else built here.
lib=$(smc_preload_path) || fail "cannot build libsmc-preload.so"
export SMC_PRELOAD_LIB=$lib
SMCCTL=$(smcctl_path) || fail "cannot find or build smcctl"
: >"$RESULTS/smcr-problems"

# sock_view PID name (guest.sh): the reason by name, "-" for none

# expect_smcr NAME PID PORT-FIELD PORT [MORE-AWK]: PID owns an ACTIVE SMCR
# socket without fallback whose local (2) or peer (3) port is PORT
expect_smcr() {
	local name=$1 pid=$2 field=$3 port=$4 more=${5:-1} view

	view=$(sock_view "$pid" name)
	log "$name: smcctl: $(paste -sd';' <<<"$view")"
	awk -v f="$field" -v p="$port" '$2 == "ACTIVE" && $3 == "SMCR" && $6 == "-" &&
		$(f + 2) == p && ('"$more"') { ok = 1 } END { exit !ok }' <<<"$view" ||
		smcr_problem "$name: smcctl lists no ACTIVE SMCR socket of pid $pid with port $port"
}

# expect_tcp NAME PID: smcctl lists no socket of PID
expect_tcp() {
	local view

	view=$(sock_view "$2" name)
	[ -z "$view" ] || smcr_problem "$1: smcctl lists sockets of the TCP program: $(paste -sd';' <<<"$view")"
}

# expect_line NAME LOG REGEX: LOG has a line matching REGEX
expect_line() {
	grep -Eq -- "$3" "$2" || smcr_problem "$1: no line /$3/ in $(basename "$2"): $(paste -sd';' "$2" | cut -c1-400)"
}

case "$VM_INDEX" in
0)
	rm -f "$release"
	run_bg srv1 "$SMC_RUN" -d -p 5301 "$PY" "$PROBE" serve --hold "$release" \
		0.0.0.0:5301 0.0.0.0:5302
	srv1=$BG_PID
	run_bg srv2 "$SMC_RUN" -d -a "$VM_IP_0" "$PY" "$PROBE" serve --hold "$release" \
		"$VM_IP_0:5303" 0.0.0.0:5304
	srv2=$BG_PID
	wait_file_line "$RESULTS/srv1.log" '^listening' 60
	wait_file_line "$RESULTS/srv2.log" '^listening' 60
	expect_line srv1 "$RESULTS/srv1.log" '^listener 5301 domain 43 .* swapped yes$'
	expect_line srv1 "$RESULTS/srv1.log" '^listener 5302 domain 2 .* swapped no$'
	expect_line srv1 "$RESULTS/srv1.log" 'listen on 0\.0\.0\.0:5301 matches the rules: AF_INET -> AF_SMC fd'
	expect_line srv2 "$RESULTS/srv2.log" '^listener 5303 domain 43 .* swapped yes$'
	expect_line srv2 "$RESULTS/srv2.log" '^listener 5304 domain 2 .* swapped no$'
	barrier listening
	barrier holding 180
	"$SMCCTL" --json connections >"$RESULTS/connections.json" ||
		fail "smcctl --json connections failed"
	# listeners: 5301 and 5303 are AF_SMC, 5302 and 5304 are not
	v1=$(sock_view "$srv1" name)
	v2=$(sock_view "$srv2" name)
	log "srv1 smcctl: $(paste -sd';' <<<"$v1")"
	log "srv2 smcctl: $(paste -sd';' <<<"$v2")"
	awk '$2 == "LISTEN" && $4 == 5301 { n++ } END { exit n != 1 }' <<<"$v1" ||
		smcr_problem "srv1: the listener on 5301 is not listed by smcctl"
	awk '$2 == "LISTEN" && $4 == 5303 { n++ } END { exit n != 1 }' <<<"$v2" ||
		smcr_problem "srv2: the listener on 5303 is not listed by smcctl"
	awk '$4 == 5302 || $4 == 5304 { n++ } END { exit n != 0 }' <<<"$v1
$v2" || smcr_problem "smcctl lists sockets on the TCP ports 5302/5304"
	# accepted on 5301: port-match, addr-match, opts by SMC-R; addr-other
	# (a TCP client) falls back; on 5303: both; on 5302: port-other, TCP
	n=$(awk '$2 == "ACTIVE" && $3 == "SMCR" && $6 == "-" && $4 == 5301' <<<"$v1" | wc -l)
	[ "$n" -eq 3 ] || smcr_problem "srv1: $n SMCR connections on 5301, want 3"
	n=$(awk '$2 != "LISTEN" && $6 != "-" && $4 == 5301' <<<"$v1" | wc -l)
	[ "$n" -eq 1 ] || smcr_problem "srv1: $n fallback connections on 5301, want 1 (addr-other)"
	n=$(awk '$2 == "ACTIVE" && $3 == "SMCR" && $6 == "-" && $4 == 5303' <<<"$v2" | wc -l)
	[ "$n" -eq 1 ] || smcr_problem "srv2: $n SMCR connections on 5303, want 1"
	[ "$(grep -c '^accepted 5301 .* domain 43 ' "$RESULTS/srv1.log")" -eq 4 ] ||
		smcr_problem "srv1: not 4 AF_SMC sockets accepted on 5301"
	[ "$(grep -c '^accepted 5302 .* domain 2 ' "$RESULTS/srv1.log")" -eq 1 ] ||
		smcr_problem "srv1: not 1 TCP socket accepted on 5302"
	[ "$(grep -c '^accepted 5303 .* domain 43 ' "$RESULTS/srv2.log")" -eq 1 ] ||
		smcr_problem "srv2: not 1 AF_SMC socket accepted on 5303"
	barrier checked
	: >"$release"
	wait_bg "$srv1" 60 || smcr_problem "srv1 failed: $(tail -n 3 "$RESULTS/srv1.log" | paste -sd';')"
	wait_bg "$srv2" 60 || smcr_problem "srv2 failed: $(tail -n 3 "$RESULTS/srv2.log" | paste -sd';')"
	grep -q 'failed' "$RESULTS/srv1.log" "$RESULTS/srv2.log" &&
		smcr_problem "a server connection failed: $(grep -h failed "$RESULTS/srv1.log" "$RESULTS/srv2.log" | paste -sd';')"
	barrier finished 120
	;;
1)
	barrier listening
	t0=$SECONDS
	# NAME WANT-DOMAIN PORT SMC_RUN-OPTIONS... -- PROBE-OPTIONS...
	declare -A pid_of want_of port_of
	client() {
		local name=$1 want=$2 port=$3 opts=()

		shift 3
		while [ "$1" != -- ]; do opts+=("$1"); shift; done
		shift
		run_bg "$name" "$SMC_RUN" -d "${opts[@]}" "$PY" "$PROBE" connect \
			"$VM_IP_0" "$port" "$bytes" --hold "$release" "$@"
		pid_of[$name]=$BG_PID
		want_of[$name]=$want
		port_of[$name]=$port
	}
	client port-match 43 5301 -p 5301 --
	client port-other 2 5302 -p 5301 --
	client addr-match 43 5301 -a "$VM_IP_0/32" --
	client addr-other 2 5301 -a 10.254.0.0/16 --
	client opts 43 5301 -p 5301 -- --opts --bind "$lport"
	client both 43 5303 -a "$VM_IP_0" -p 5303 --
	# each client holds its connection, or has ended (checked below)
	for name in "${!pid_of[@]}"; do
		deadline=$((SECONDS + 120))
		while ! grep -q '^holding' "$RESULTS/$name.log" &&
		      kill -0 "${pid_of[$name]}" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do
			sleep 0.2
		done
	done
	log "all clients connected and moved their data in $((SECONDS - t0)) s"
	barrier holding 180
	"$SMCCTL" --json connections >"$RESULTS/connections.json" ||
		fail "smcctl --json connections failed"
	for name in port-match port-other addr-match addr-other opts both; do
		want=${want_of[$name]}
		f=$RESULTS/$name.log
		log "$name: $(grep -E '^connected|^opts|^transfer' "$f" | paste -sd';')"
		expect_line "$name" "$f" '^holding$'
		expect_line "$name" "$f" "^transfer ok $bytes bytes each way"
		if [ "$want" = 43 ]; then
			expect_line "$name" "$f" "^connected ${port_of[$name]} domain 43 proto 0 .* swapped yes$"
			expect_line "$name" "$f" "connect to $VM_IP_0:${port_of[$name]} matches the rules: AF_INET -> AF_SMC fd [0-9]+$"
			expect_smcr "$name" "${pid_of[$name]}" 3 "${port_of[$name]}"
		else
			expect_line "$name" "$f" "^connected ${port_of[$name]} domain 2 proto 6 .* swapped no$"
			expect_line "$name" "$f" "connect to $VM_IP_0:${port_of[$name]} does not match the rules: stays TCP"
			expect_tcp "$name" "${pid_of[$name]}"
		fi
		grep -q 'cannot create AF_SMC\|swap failed' "$f" &&
			smcr_problem "$name: the library fell back: $(grep smc_run "$f" | paste -sd';')"
	done
	expect_line opts "$RESULTS/opts.log" "^opts ok nonblock=True cloexec=True keepalive=1 nodelay=1 sndbuf=[0-9]+ lport=$lport$"
	expect_smcr opts "${pid_of[opts]}" 2 "$lport"
	barrier checked
	: >"$release"
	for name in "${!pid_of[@]}"; do
		wait_bg "${pid_of[$name]}" 60 ||
			smcr_problem "$name failed: $(tail -n 3 "$RESULTS/$name.log" | paste -sd';')"
		expect_line "$name" "$RESULTS/$name.log" '^client ok$'
	done

	# -n: this program only; without it the child is converted too
	"$SMC_RUN" -d -n "$PY" "$PROBE" spawn >"$RESULTS/spawn-n.log" 2>&1 ||
		smcr_problem "spawn under -n failed: $(paste -sd';' "$RESULTS/spawn-n.log")"
	log "-n: $(grep -v '^smc_run' "$RESULTS/spawn-n.log" | paste -sd';')"
	expect_line "-n" "$RESULTS/spawn-n.log" '^parent domain 43$'
	expect_line "-n" "$RESULTS/spawn-n.log" '^child domain 2 preload no$'
	expect_line "-n" "$RESULTS/spawn-n.log" 'SMC_NO_INHERIT: no LD_PRELOAD for the programs this one runs'
	"$SMC_RUN" "$PY" "$PROBE" spawn >"$RESULTS/spawn.log" 2>&1 ||
		smcr_problem "spawn failed: $(paste -sd';' "$RESULTS/spawn.log")"
	log "without -n: $(paste -sd';' "$RESULTS/spawn.log")"
	expect_line "without -n" "$RESULTS/spawn.log" '^parent domain 43$'
	expect_line "without -n" "$RESULTS/spawn.log" '^child domain 43 preload yes$'
	barrier finished 120
	;;
esac
smcr_verdict smc-run-rules
