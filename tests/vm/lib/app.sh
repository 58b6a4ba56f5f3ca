# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the app-*.sh scenarios: real, unmodified programs (redis,
# nginx + wrk, iperf3) between VM 0 (server) and VM 1 (client), run once
# through smc_run (LD_PRELOAD) and once through the eBPF cgroup policy
# (tools/smc_bpf).  Source after guest.sh.  A scenario calls app_setup,
# then for each way in (APP_WAYS): app_begin WAY, starts its programs with
# app_bg / app_run, and ends with app_end WAY PAYLOAD_UP PAYLOAD_DOWN
# "SUMMARY"; app_verdict at the end.  Problems are recorded with
# smcr_problem and reported together by app_verdict.

APP_WAYS="smc_run bpf"
APP_CG=/sys/fs/cgroup/smc-app
APP_PY=/usr/bin/python3


# app_need PROGRAM...: fail unless every program is installed on the host
# (tests/setup.sh installs them).
app_need() {
	local p

	for p in "$@"; do
		command -v "$p" >/dev/null ||
			fail "$p is not installed (run tests/setup.sh on the host)"
	done
}

# app_setup NAME: smcctl and the UEID (smcr_setup), the smc_run wrapper and
# its library, smc_bpf and the cgroup for the policy.
app_setup() {
	APP_NAME=$1
	[ "$VM_COUNT" -eq 2 ] || fail "$APP_NAME needs exactly two VMs"
	[ "$SMC_IMPL" != none ] || fail "$APP_NAME needs an SMC module on every VM"
	smcr_setup
	SMC_RUN=$REPO/tools/smc_run/smc_run
	SMC_PRELOAD_LIB=$(smc_preload_path) || fail "cannot build libsmc-preload.so"
	export SMC_PRELOAD_LIB
	SMC_BPF=$(smc_bpf_path) ||
		fail "cannot find or build smc_bpf: $(tail -n 3 "$RESULTS/smc_bpf-build.log" 2>/dev/null)"
	mountpoint -q /sys/fs/cgroup || mount -t cgroup2 cgroup2 /sys/fs/cgroup
	mkdir -p "$APP_CG"
	if "$SMC_BPF" status >/dev/null 2>&1; then
		fail "an smc_bpf policy is attached before the test"
	fi
	APP_T0=$SECONDS
}

# app_exec WAY CMD...: run CMD (in this process: exec) so that its TCP
# sockets are SMC: through smc_run, or as a member of the policy's cgroup.
app_exec() {
	local way=$1

	shift
	case $way in
	smc_run) exec "$SMC_RUN" "$@" ;;
	bpf) echo "$BASHPID" >"$APP_CG/cgroup.procs" && exec "$@" ;;
	*) fail "unknown way in: $way" ;;
	esac
}

# app_bg WAY LOGNAME CMD...: app_exec in the background, output in
# $RESULTS/LOGNAME.log, PID in BG_PID.
app_bg() {
	local way=$1 name=$2

	shift 2
	(app_exec "$way" "$@") >"$RESULTS/$name.log" 2>&1 &
	BG_PID=$!
}

# app_run WAY LOGNAME SECS CMD...: app_exec in the foreground, bounded by
# SECS, output in $RESULTS/LOGNAME.log; returns CMD's exit code.
app_run() {
	local way=$1 name=$2 secs=$3

	shift 3
	app_bg "$way" "$name" "$@"
	wait_bg "$BG_PID" "$secs"
}

# app_begin WAY: attach the policy (bpf), snapshot the counters, and meet
# the other VM.
app_begin() {
	APP_WAY=$1
	APP_WAY_T0=$SECONDS
	if [ "$APP_WAY" = bpf ]; then
		"$SMC_BPF" attach --cgroup "$APP_CG" ||
			fail "smc_bpf attach --cgroup $APP_CG failed"
	fi
	log "---- $APP_NAME under $APP_WAY ----"
	smcr_snapshot "$APP_WAY-before"
	barrier "$APP_WAY-begin"
}

# app_end WAY UP DOWN SUMMARY: after both sides are done: counters again;
# this VM's new handshakes are SMC-R (client VM: as client, server VM: as
# server; > 0 and none of the other role), no fallback, no handshake
# error; the server accepted as many SMC-R connections as the client
# made; rxe0 moved UP bytes (client -> server) and DOWN bytes (server ->
# client): >= bytes/1024 packets in the data's direction, and at least one
# packet per SMC-R connection the other way.  Logs one summary line.
app_end() {
	local way=$1 up=$2 down=$3 summary=$4 role=client other=server
	local out n tx0 rx0 tx1 rx1 tx_min rx_min cli fb

	barrier "$way-end" 180
	smcr_snapshot "$way-after"
	[ "$VM_INDEX" -eq 0 ] && { role=server; other=client; }
	out=$(B="$RESULTS/$way-before" A="$RESULTS/$way-after" R=$role O=$other \
		$APP_PY -c '
import json, os
rd = lambda n: json.load(open(n))
b, a = rd(os.environ["B"] + ".stats.json"), rd(os.environ["A"] + ".stats.json")
fb, fa = rd(os.environ["B"] + ".fallback.json"), rd(os.environ["A"] + ".fallback.json")
r, o = os.environ["R"], os.environ["O"]
d = lambda k, s: a[k][s] - b[k][s]
n, nfb = d("smcr_connections", r), d("fallbacks", "client") + d("fallbacks", "server")
print("%d %d" % (n, nfb))
print("smcr_connections +%s %d +%s %d (v2 +%d), fallbacks +%d, handshake_errors +%d, rx +%d B, tx +%d B" % (
    r, n, o, d("smcr_connections", o), d("smcr_connections", "v2"), nfb,
    d("handshake_errors", "client") + d("handshake_errors", "server"),
    a["rx"]["bytes"] - b["rx"]["bytes"], a["tx"]["bytes"] - b["tx"]["bytes"]))
if n <= 0:
    print("PROBLEM no new SMC-R handshake as %s" % r)
if d("smcr_connections", o):
    print("PROBLEM %d new SMC-R handshakes as %s, want none" % (d("smcr_connections", o), o))
for s in ("client", "server"):
    if d("fallbacks", s):
        old = {x["reason"]: x["count"] for x in fb[s]["reasons"]}
        why = ["%s x%d" % (x["name"], x["count"] - old.get(x["reason"], 0))
               for x in fa[s]["reasons"] if x["count"] > old.get(x["reason"], 0)]
        print("PROBLEM %d new fallbacks as %s (%s)" % (d("fallbacks", s), s, ", ".join(why) or "no reason code"))
    if d("handshake_errors", s):
        print("PROBLEM %d new handshake errors as %s" % (d("handshake_errors", s), s))
') || fail "cannot compare smcctl snapshots of $way"
	read -r n fb <<<"$(head -n 1 <<<"$out")"
	log "$way stats: $(sed -n 2p <<<"$out")"
	while read -r line; do
		[[ $line == PROBLEM* ]] && smcr_problem "$APP_NAME $way: ${line#PROBLEM }"
	done <<<"$out"
	echo "$n" >"$SHARED/$APP_NAME.$way.$role"
	barrier "$way-counted" 60
	cli=$(cat "$SHARED/$APP_NAME.$way.client" 2>/dev/null) || cli=
	if [ "$role" = server ] && [ "$cli" != "$n" ]; then
		smcr_problem "$APP_NAME $way: server accepted $n SMC-R connections, the client made ${cli:-?}"
	fi

	read -r tx0 rx0 <"$RESULTS/$way-before.rdma"
	read -r tx1 rx1 <"$RESULTS/$way-after.rdma"
	if [ "$role" = client ]; then
		tx_min=$((up / 1024)) rx_min=$((down / 1024))
	else
		tx_min=$((down / 1024)) rx_min=$((up / 1024))
	fi
	[ "$tx_min" -ge "$n" ] || tx_min=$n
	[ "$rx_min" -ge "$n" ] || rx_min=$n
	log "$way rxe0: sent_pkts +$((tx1 - tx0)) (want >= $tx_min), rcvd_pkts +$((rx1 - rx0)) (want >= $rx_min)"
	[ $((tx1 - tx0)) -ge "$tx_min" ] ||
		smcr_problem "$APP_NAME $way: rxe0 sent_pkts +$((tx1 - tx0)) < $tx_min: the data did not cross RDMA"
	[ $((rx1 - rx0)) -ge "$rx_min" ] ||
		smcr_problem "$APP_NAME $way: rxe0 rcvd_pkts +$((rx1 - rx0)) < $rx_min: the data did not cross RDMA"

	if [ "$way" = bpf ]; then
		"$SMC_BPF" status >"$RESULTS/bpf-status.log" 2>&1 || true
		log "smc_bpf status: $(paste -sd';' "$RESULTS/bpf-status.log")"
		"$SMC_BPF" detach || smcr_problem "$APP_NAME: smc_bpf detach failed"
		"$SMC_BPF" status >/dev/null 2>&1 &&
			smcr_problem "$APP_NAME: the policy is still attached after detach"
	fi
	log "$APP_NAME $way: $summary, $n SMC-R connections ($role), $fb fallbacks, rxe0 +$((tx1 - tx0))/+$((rx1 - rx0)) pkts sent/rcvd, $((SECONDS - APP_WAY_T0)) s"
	barrier "$way-done" 60
}

# app_verdict: fail with every recorded problem, else say how long it took.
app_verdict() {
	log "$APP_NAME: both ways in $((SECONDS - APP_T0)) s"
	smcr_verdict "$APP_NAME"
}
