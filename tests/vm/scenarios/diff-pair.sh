#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Differential socket test between two VMs (tests/sock/sockdiff, see
# tests/sock/README.md).  VM 0 serves, VM 1 runs the clients.  Each VM uses
# AF_SMC if its SMC implementation (manifest IMPLS) is ours or dist and plain
# AF_INET if it is none, so the manifest line picks the pairing:
#   none,ours   ours (AF_SMC client)  <-> plain TCP server
#   ours,none   plain TCP client      <-> ours (AF_SMC server)
#   ours,ours   ours <-> ours
#   ours,dist / dist,ours   ours <-> the distribution's smc.ko
#   none,none   oracle against oracle (determinism of the test itself)
# In the same boot, VM 1 first runs the oracle (AF_INET client against an
# AF_INET server on VM 0), then the pairing (its family against a server of
# VM 0's family), IPv4 (all peer scenarios), IPv6 (basics) and the race mode,
# and compares the transcripts.  Then, in the ours,ours pairing, both VMs
# run `sockdiff local` with AF_INET and with AF_SMC (ours<->ours on one
# host) and compare.
# tests/sock/judge.sh judges each transcript against the oracle's: every
# line of a side run by ours or by TCP must be there with the oracle's
# value (a missing, extra or other line fails, so does a short or empty
# transcript, a hang, a crash or a lost server report on any side).  The
# distribution's module is not ours to judge: its own side's lines are only
# shown, and of what it causes on our side only the deviations named in
# known_deviations below are forgiven.  The verdicts and diffs are printed
# and kept in the VM's results folder (judge-*.txt, diff-*.txt, transcripts
# *.txt, deviations.txt).
#   DIFF_V6_SCENS: the IPv6 subset (comma list, default below)

set -uo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -ge 2 ] || fail "needs two VMs"
v6_scens=${DIFF_V6_SCENS:-connect,echo_100,echo_64k,echo_1m,iocalls,shutwr,close,rst,poll,epoll,nbconnect,refused,sockopt,ioctl,sendfile}

# sockdiff: prebuilt by `make -C tests/sock` on the host, else built here
sd=$REPO/tests/sock/sockdiff
if [ ! -x "$sd" ] || [ "$REPO/tests/sock/sockdiff.c" -nt "$sd" ]; then
	log "building sockdiff in the guest"
	cc -O2 -g -Wall -Wextra -pthread -o /tmp/sockdiff "$REPO/tests/sock/sockdiff.c" ||
		fail "cannot build sockdiff"
	sd=/tmp/sockdiff
fi

judge=$REPO/tests/sock/judge.sh

fam_of() { [ "$1" = none ] && echo inet || echo smc; }
myfam=$(fam_of "$SMC_IMPL")
SMCCTL=$(smcctl_path) || fail "cannot find or build smcctl"

export SMCCTL

# smcr_judge NAME MIN_PKTS: every connection the client side made since
# `smcr_snapshot NAME-before` was SMC-R (none fell back, the reasons of any
# that did are named) and RDMA moved the payload.
# shellcheck disable=SC2154 # D_*: smcr_delta
smcr_judge() {
	local name=$1 b_p a_p

	smcr_snapshot "$name-after"
	smcr_delta "$name-before" "$name-after"
	read -r b_p _ <"$RESULTS/$name-before.rdma"
	read -r a_p _ <"$RESULTS/$name-after.rdma"
	log "$name: SMC-R client handshakes +$D_smcr_client, fallbacks +$D_fb_client ($D_why_client), handshake errors +$D_hserr_client, rxe0 sent_pkts +$((a_p - b_p))"
	if [ "$D_smcr_client" -le 0 ] || [ "$D_fb_client" -ne 0 ] ||
	   [ $((a_p - b_p)) -lt "$2" ]; then
		log "$name: NOT all connections in SMC-R mode over RDMA"
		flag "$name (not all SMC-R: fallbacks $D_why_client)"
	fi
}
ip -6 addr add "fd77::$((VM_INDEX + 1))/64" dev eth0 nodad || fail "no IPv6 address"
v6_0=fd77::1
P_INET=7000 P_FAM=7001 P6_INET=7002 P6_FAM=7003
bad=0
# what failed, named in the final verdict: the last lines of stdout are
# all a CI log keeps of a failed run
whys=()
flag() {
	bad=1
	whys+=("$1")
}

# Known deviations of the distribution's smc.ko (Linux 6.12) from TCP that
# show on a side judged here (run by ours or by TCP), by the role the
# distribution's module has: ROLE NAME SCENARIO SIDE STEP VALUE (judge.sh,
# -d).  Each forgives exactly that line with exactly that value; anything
# else on our side, and every hang, crash or lost report, still fails.
#   no_abort_linger0: its close with SO_LINGER {1,0} is an orderly close,
#     no abort (RST): the peer's poll shows no ERR|HUP, recv() returns 0
#     (EOF, not ECONNRESET), a send() afterwards succeeds (not EPIPE), and
#     the race mode's peer_rst rounds see EOF.
#   msg_more_cork: send(MSG_MORE) data stays corked until the next send or
#     a transmit completion, unlike TCP; iocalls, which waits for the echo
#     of such a send, may then hang until it is killed (either role, not
#     in every run).  The hang must come right after a send_more step; the
#     lines iocalls then lacks are forgiven with it.
# Not run against the distribution's module at all (the oracle skips them
# too, so nothing is forgiven): the race mode's sendfile rounds
# (--sf-rounds 0).  As a server it WARNs (cdc_pend_tx_wr < 0 in its
# smc_cdc_tx_handler) when a client keeps sending while it closes, which
# fails the VM; as a client its sendfile() on a socket still connecting
# fails with ENOTCONN and the data is lost (race: "failed rounds").
known_deviations() {
	cat <<-'EOF'
	dist-client no_abort_linger0 rst S poll_after_rst IN|OUT|RDNORM|WRNORM|RDHUP
	dist-client no_abort_linger0 rst S recv_after_rst 0
	dist-client no_abort_linger0 rst S send_after_rst 100
	dist-server no_abort_linger0 race C peer_rst recv=eof got=0 early=none poll=woke epoll=woke
	dist-client msg_more_cork iocalls C HANG after send_more_*
	dist-server msg_more_cork iocalls C HANG after send_more_*
	EOF
}

# use_deviations ROLE...: the deviations of these roles of the
# distribution's module (none: nothing is forgiven) into $devs
devs=$RESULTS/deviations.txt
use_deviations() {
	known_deviations | awk -v r=" $* " 'index(r, " " $1 " ") {
		sub(/^[^ ]+ +/, "")
		print
	}' >"$devs"
}
use_deviations

# Which transcript sides (C client, S server) are ours (or TCP's) to judge.
judged="C S"

# compare NAME A B: judge transcript B against the oracle's A (judge.sh,
# sides $judged, deviations $devs); print and keep the verdict
# (judge-NAME.txt) and sockdiff's own diff (diff-NAME.txt)
compare() {
	local name=$1 a=$2 b=$3 rc=0 n

	"$sd" compare "$a" "$b" >"$RESULTS/diff-$name.txt" 2>&1
	"$judge" -s "$judged" -d "$devs" "$a" "$b" >"$RESULTS/judge-$name.txt" 2>&1 ||
		rc=$?
	n=$(grep -cv '^judge:' "$RESULTS/judge-$name.txt")
	if [ "$rc" -eq 0 ] && [ "$n" -eq 0 ]; then
		log "$name: identical ($(tail -n 1 "$RESULTS/judge-$name.txt"))"
		return 0
	fi
	# the verdicts that fail last, next to the summary: informational
	# lines (the distribution's side) must not push them out of view
	{
		grep '^INFO' "$RESULTS/judge-$name.txt"
		grep -v '^INFO\|^judge:' "$RESULTS/judge-$name.txt"
	} | tail -n 60 | sed "s/^/  $name| /"
	[ "$n" -le 60 ] || echo "  $name| ... $((n - 60)) more in judge-$name.txt"
	grep '^judge:' "$RESULTS/judge-$name.txt" | sed "s/^/  $name| /"
	if [ "$rc" -ne 0 ]; then
		log "$name: FAILED (judge exit $rc)"
		flag "$name (judge: $(grep -cv '^INFO\|^judge:' "$RESULTS/judge-$name.txt") lines)"
	else
		log "$name: differences only named deviations or on the distribution's side"
	fi
}

# run [-m OUT] NAME CMD...: run sockdiff, note failure (nonzero exit =
# internal error, hung or crashed scenario, or race failure); logs how many
# RoCE packets moved meanwhile (few: the AF_SMC connections fell back to
# TCP).  -m OUT, for the pairing's client runs: exit 1 means scenarios hung
# or crashed, each marked in the transcript OUT (NN.HANG, NN.CHILD_FAILED);
# compare judges those marks (they fail unless a named deviation covers
# them), so an exit 1 with marks is left to it.  All else fails here.
run() {
	local out='' name t0=$SECONDS rc=0 tx0 tx1

	if [ "$1" = -m ]; then
		out=$2
		shift 2
	fi
	name=$1
	shift
	tx0=$(rdma_counter sent_pkts 2>/dev/null || echo 0)
	"$sd" "$@" 2>"$RESULTS/$name.err" || rc=$?
	tx1=$(rdma_counter sent_pkts 2>/dev/null || echo 0)
	log "$name: exit $rc in $((SECONDS - t0))s, rxe0 sent_pkts +$((tx1 - tx0))"
	[ "$rc" -eq 0 ] && return 0
	tail -n 5 "$RESULTS/$name.err" | sed "s/^/  $name| /"
	if [ -n "$out" ] && [ "$rc" -eq 1 ] &&
	   grep -Eq '^[^ ]+ C [0-9]+\.(HANG|CHILD_FAILED) ' "$out"; then
		log "$name: scenarios hung or crashed, judged with the transcript"
	else
		flag "$name (sockdiff exit $rc)"
	fi
	return 0
}

case "$VM_INDEX" in
0)
	log "server side: $myfam (impl $SMC_IMPL)"
	run_bg srv-inet "$sd" server --port $P_INET --family inet --timeout 900
	s1=$BG_PID
	run_bg srv-fam "$sd" server --port $P_FAM --family "$myfam" --timeout 900
	s2=$BG_PID
	run_bg srv6-inet "$sd" server --v6 --port $P6_INET --family inet --timeout 900
	s3=$BG_PID
	run_bg srv6-fam "$sd" server --v6 --port $P6_FAM --family "$myfam" --timeout 900
	s4=$BG_PID
	for f in srv-inet srv-fam srv6-inet srv6-fam; do
		wait_file_line "$RESULTS/$f.log" 'listening|sockdiff:' 30
		grep -q listening "$RESULTS/$f.log" || { cat "$RESULTS/$f.log"; fail "server $f did not start"; }
	done
	echo "$SMC_IMPL" >"$SHARED/impl.0"
	barrier listening
	barrier clients-done 1500
	for p in $s1 $s2 $s3 $s4; do
		wait_bg "$p" 30 || { log "server $p exit $?"; flag "server $p"; }
	done
	;;
1)
	barrier listening
	srv_impl=$(cat "$SHARED/impl.0")
	echo "$SMC_IMPL" >"$SHARED/impl.1"
	roles=
	if [ "$SMC_IMPL" = dist ]; then
		judged=${judged/C/}
		roles+=" dist-client"
	fi
	if [ "$srv_impl" = dist ]; then
		judged=${judged/S/}
		roles+=" dist-server"
	fi
	# shellcheck disable=SC2086
	use_deviations $roles
	log "client side: $myfam (impl $SMC_IMPL) -> server $VM_IP_0 (impl $srv_impl), judged sides: $judged, deviations forgiven: $(cut -d' ' -f1-4 "$devs" | tr '\n' ',')"
	run oracle client --host "$VM_IP_0" --port $P_INET --family inet --out "$RESULTS/oracle.txt"
	smcr_on=no
	[ "$SMC_IMPL" != none ] && [ "$srv_impl" != none ] && smcr_on=yes
	[ $smcr_on = yes ] && smcr_snapshot pair-before
	run -m "$RESULTS/pair.txt" pair client --host "$VM_IP_0" --port $P_FAM \
		--family "$myfam" --out "$RESULTS/pair.txt"
	# echo_8m alone moves 8 MiB each way: at least 8192 RoCE packets
	[ $smcr_on = yes ] && smcr_judge pair 8192
	compare pair "$RESULTS/oracle.txt" "$RESULTS/pair.txt"
	run oracle6 client --v6 --host $v6_0 --port $P6_INET --family inet --only "$v6_scens" \
		--out "$RESULTS/oracle6.txt"
	run -m "$RESULTS/pair6.txt" pair6 client --v6 --host $v6_0 --port $P6_FAM \
		--family "$myfam" --only "$v6_scens" --out "$RESULTS/pair6.txt"
	compare pair6 "$RESULTS/oracle6.txt" "$RESULTS/pair6.txt"
	# No sendfile rounds with the distribution's module on either side
	# (see known_deviations), and then none for the oracle either.
	sf=
	[ -n "$roles" ] && sf="--sf-rounds 0"
	# shellcheck disable=SC2086
	run race-oracle race --host "$VM_IP_0" --port $P_INET --family inet --rounds 30 \
		$sf --out "$RESULTS/race-oracle.txt"
	[ $smcr_on = yes ] && smcr_snapshot race-pair-before
	# shellcheck disable=SC2086
	run race-pair race --host "$VM_IP_0" --port $P_FAM --family "$myfam" --rounds 30 \
		$sf --out "$RESULTS/race-pair.txt"
	[ $smcr_on = yes ] && smcr_judge race-pair 1
	compare race "$RESULTS/race-oracle.txt" "$RESULTS/race-pair.txt"
	"$sd" quit --host "$VM_IP_0" --port $P_INET || flag "quit $P_INET"
	"$sd" quit --host "$VM_IP_0" --port $P_FAM || flag "quit $P_FAM"
	"$sd" quit --v6 --host $v6_0 --port $P6_INET || flag "quit $P6_INET"
	"$sd" quit --v6 --host $v6_0 --port $P6_FAM || flag "quit $P6_FAM"
	barrier clients-done 1500
	;;
*)
	barrier listening
	barrier clients-done 1500
	;;
esac

# ours<->ours on one host, over the VM's own address.  The result depends
# on the VM's own module only, so of the suite's pairings only ours,ours
# runs it (on both VMs); the distribution's module against itself was
# informational anyway.
other=$(cat "$SHARED/impl.$((1 - VM_INDEX))" 2>/dev/null || echo none)
if [ "$VM_INDEX" -le 1 ] && [ "$SMC_IMPL" = ours ] && [ "$other" = ours ]; then
	run local-oracle local --family inet --host "$VM_IP" --out "$RESULTS/local-oracle.txt"
	run local-smc local --family smc --host "$VM_IP" --out "$RESULTS/local-smc.txt"
	compare local "$RESULTS/local-oracle.txt" "$RESULTS/local-smc.txt"
fi
barrier local-done 900

[ "$bad" -eq 0 ] ||
	fail "sockdiff found differences or errors in: ${whys[*]} (see above, judge-*.txt, diff-*.txt)"
log "diff-pair ok"
