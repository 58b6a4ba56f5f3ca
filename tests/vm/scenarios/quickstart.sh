#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The quick start of README.md, exactly as written there, on two clean VMs
# (impl none: the harness loads no SMC module; the quick start installs
# and loads everything).  VM 0 is host A, VM 1 is host B.
#
# The lines are read from README.md at run time, between the lines
# "<!-- quickstart: begin -->" and "<!-- quickstart: end -->" (the code
# fences, blank lines and comment lines between them skipped; at most 12
# lines).  A line ending in the comment "# host A" (or "# host B") runs on
# that host only, every other line on both.  The only change made to a
# line is HOST_A, replaced by VM 0's address.  A host A line directly
# followed by a host B line may be a server and its client: A starts its
# line in the background, and once a new TCP socket listens on A (or A's
# line has ended), B runs its line; then A's line must end by itself.
# Every line runs with bash in a copy of the repository's tracked files
# (/tmp/qs/smc-r: the repository is read-only here), as root, with root's
# usual PATH, and must exit 0.
#
# What the VMs are made to look like a host first (none of it is a line
# of the quick start):
#   - writable overlays (tmpfs) over /usr, /etc, /var/lib, /var/cache and
#     /var/log, the root being the host's, read-only (as deb.sh);
#   - no sudo here (the host has none, and the scenario runs as root):
#     each line runs with a shell function sudo that runs its arguments;
#   - apt offline: the VMs have no network, so apt gets no package lists
#     (an empty /var/lib/apt/lists) and resolves everything against the
#     installed packages, which are those of the host (tests/setup.sh
#     installed what the quick start needs); with the host's lists apt
#     would want to download (upgrade linux-source-6.12 together with the
#     headers, packages of one source);
#   - no rxe0: the harness's Soft-RoCE device is deleted and rdma_rxe
#     unloaded, so that the quick start's rdma line makes the device.
#
# Then the checks, on each VM (all recorded, the verdict at the end):
#   - the smc module loaded is ours from DKMS: modinfo resolves smc to
#     updates/dkms, the loaded one has that file's srcversion and
#     dkms.conf's version, dpkg has both packages installed, DKMS says
#     installed, and the tools the lines ran are the packaged ones;
#   - the UEID: the one of "options smc ueid=..." in /etc/modprobe.d is
#     in the module's table right after the line that loaded the module
#     and at the end, and it is the same on both VMs;
#   - SMC-R: smcctl stats (the module and its counters are new, made by
#     the quick start) counts at least two SMC-R v2 handshakes (iperf3's
#     control and data connections), as server on A and as client on B,
#     as many on each side, and no fallback (the reasons named when there
#     are some) and no handshake error;
#   - RDMA: the data crossed rxe0 (a new device, its counters start at
#     0): on B, at least 1 MiB sent over SMC-R and rxe0 sent_pkts at
#     least one per KiB of it; on A the same for rcvd_pkts and the bytes
#     received;
#   - iperf3's own report on B: its sender and receiver summary lines.
# About 16 minutes under emulation (2 cores, no KVM): make deb 3.5, the
# apt-get install of the packages 12 (DKMS builds the module, then
# depmod), everything else well under a minute.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$SMC_IMPL" = none ] || fail "quickstart.sh installs the module itself: start it with impl none"
[ "$VM_COUNT" -eq 2 ] || fail "quickstart.sh needs exactly two VMs"
README=$REPO/README.md
WORK=/tmp/qs/smc-r
LINE_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
K=$(uname -r)
me=A
[ "$VM_INDEX" -eq 0 ] || me=B
: >"$RESULTS/smcr-problems"

# qs_parse FILE: the quick start's command lines, one "HOST<tab>LINE" each
# (HOST A, B or both).  Exit 2 when the markers are missing, repeated or
# out of order.
qs_parse() {
	awk '
	$0 == "<!-- quickstart: begin -->" {
		if (begins++ || ends) exit 2
		on = 1
		next
	}
	$0 == "<!-- quickstart: end -->" {
		if (!on || ends++) exit 2
		on = 0
		next
	}
	!on || /^```/ || /^[[:space:]]*(#|$)/ { next }
	{
		h = "both"
		if (match($0, /#[[:space:]]*host[[:space:]]+[AB][[:space:]]*$/)) {
			t = substr($0, RSTART, RLENGTH)
			sub(/[[:space:]]*$/, "", t)
			h = substr(t, length(t))
		}
		print h "\t" $0
	}
	END { if (begins != 1 || ends != 1) exit 2 }' "$1"
}

QS_HOST=() QS_LINE=()
parsed=$(qs_parse "$README") || fail "README.md has no single quick start between the markers <!-- quickstart: begin --> and <!-- quickstart: end -->"
while IFS=$'\t' read -r h l; do
	QS_HOST+=("$h")
	QS_LINE+=("$l")
done <<<"$parsed"
n=${#QS_LINE[@]}
[ "$n" -ge 1 ] || fail "the quick start of README.md has no command line"
[ "$n" -le 12 ] || fail "the quick start of README.md has $n command lines, at most 12 allowed"
log "README.md's quick start: $n lines; this VM is host $me ($VM_IP), host A is $VM_IP_0"
for ((i = 0; i < n; i++)); do
	log "  $((i + 1)) [${QS_HOST[i]}] ${QS_LINE[i]}"
done

# ---- a clean host ------------------------------------------------------
name=$(make -s --no-print-directory -C "$REPO" dkms-name)
ver=$(make -s --no-print-directory -C "$REPO" dkms-version)
if [ -z "$name" ] || [ -z "$ver" ]; then
	fail "no name or version from make dkms-name / dkms-version"
fi
! grep -q '^smc ' /proc/modules || fail "an smc module is loaded before the quick start"
for p in "$name-dkms" "$name-tools"; do
	# shellcheck disable=SC2016 # dpkg-query's format
	st=$(dpkg-query -W -f '${db:Status-Abbrev}' "$p" 2>/dev/null) || st=
	[[ $st == "" || $st == [up]n* ]] || fail "$p is installed on the host: not a clean system"
done
[ ! -e "/var/lib/dkms/$name" ] || fail "DKMS knows $name on the host: not a clean system"
! grep -qs '^[[:space:]]*options[[:space:]]\+smc[[:space:]]' /etc/modprobe.d/*.conf ||
	fail "/etc/modprobe.d has options for smc on the host: not a clean system"
inkernel=$(modinfo -n smc) || fail "modinfo finds no smc on $K"
case $inkernel in
*/kernel/net/smc/smc.ko*) ;;
*) fail "before the quick start, modprobe smc would load $inkernel, not the kernel's own" ;;
esac
command -v iperf3 >/dev/null || fail "no iperf3 here (tests/setup.sh installs it on the host)"

# What udev makes on a host and the VM's devtmpfs lacks (dkms uses
# <(...), the tools' make install /dev/stdin).
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
[ -e /dev/stdin ] || ln -s /proc/self/fd/0 /dev/stdin
[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout
[ -e /dev/stderr ] || ln -s /proc/self/fd/2 /dev/stderr
# Writable system directories, as on a host.
modprobe overlay 2>/dev/null || true
for d in /usr /etc /var/lib /var/cache /var/log; do
	o=/tmp/ovl${d//\//-}
	mkdir -p "$o/upper" "$o/work"
	mount -t overlay overlay -o "lowerdir=$d,upperdir=$o/upper,workdir=$o/work" "$d" ||
		fail "cannot put an overlay over $d"
done
# apt offline: no package lists (see the top)
mount -t tmpfs tmpfs /var/lib/apt/lists || fail "cannot empty /var/lib/apt/lists"
mkdir -p /var/lib/apt/lists/partial
rm -f /var/cache/apt/*.bin
# the quick start's rdma line makes rxe0 (see the top)
rdma link delete rxe0 || fail "cannot delete the harness's rxe0"
for _ in $(seq 20); do
	modprobe -r rdma_rxe 2>/dev/null && break
	nap 0.5
done
! grep -q '^rdma_rxe ' /proc/modules || fail "cannot unload rdma_rxe"
# The checkout: the repository's tracked files, writable.
mkdir -p "$WORK"
git -C "$REPO" ls-files -z | while IFS= read -r -d '' f; do
	[ ! -e "$REPO/$f" ] || printf '%s\0' "$f"
done | tar -C "$REPO" --null -T - -cf - | tar -C "$WORK" -xf - ||
	fail "cannot copy the repository's files to $WORK"
log "a clean host: no smc loaded, modprobe smc -> $inkernel; overlays, apt offline, no rxe0, $(find "$WORK" -type f | wc -l) files in $WORK"

# sudo: the host has none (or it is unusable here); as root, a function
# that runs its arguments does what sudo would.
PRELUDE=
if ! command -v sudo >/dev/null || ! sudo -n true 2>/dev/null; then
	PRELUDE='sudo() { "$@"; }'
	log "no usable sudo here: the lines run with the function $PRELUDE"
fi
SMCCTL=

# qs_cmd I: line I as it runs here: HOST_A replaced by VM 0's address
qs_cmd() {
	printf '%s' "${QS_LINE[$1]//HOST_A/$VM_IP_0}"
}

# qs_exec I: run line I (bash, in $WORK, root's PATH, the sudo prelude)
# with its output in $RESULTS/qs-I.log
qs_exec() {
	local cmd

	cmd=$(qs_cmd "$1")
	cd "$WORK"
	exec </dev/null >"$RESULTS/qs-$(($1 + 1)).log" 2>&1
	[ -z "$PRELUDE" ] || cmd=$PRELUDE$'\n'$cmd
	exec env -i PATH="$LINE_PATH" HOME=/tmp LANG=C LC_ALL=C TERM=dumb \
		timeout -k 10 1800 bash -o pipefail -c "$cmd"
}

# qs_show I RC SECS: log how line I went and show its output (the last 25
# lines of a long one)
qs_show() {
	local f=$RESULTS/qs-$(($1 + 1)).log cmd

	cmd=$(qs_cmd "$1")
	log "line $(($1 + 1)) [${QS_HOST[$1]}] exit $2 after $3 s: $cmd"
	if [ "$(wc -l <"$f")" -gt 25 ]; then
		log "  (last 25 of $(wc -l <"$f") lines of qs-$(($1 + 1)).log)"
		tail -n 25 "$f"
	else
		cat "$f"
	fi
}

# qs_after I: after line I, note when the smc module came: its file and
# srcversion, and the UEIDs right after the load
qs_after() {
	local path

	[ -z "$SMCCTL" ] && [ -d /sys/module/smc ] || return 0
	SMCCTL=/usr/sbin/smcctl
	[ -x "$SMCCTL" ] || SMCCTL=$(smcctl_path) || fail "cannot find or build smcctl"
	path=$(modinfo -n smc 2>/dev/null) || path=none
	"$SMCCTL" ueid show >"$RESULTS/ueid-at-load" 2>&1 || true
	log "smc loaded by line $(($1 + 1)): srcversion $(cat /sys/module/smc/srcversion 2>/dev/null || echo none), modprobe's file $path; UEIDs: $(paste -sd' ' "$RESULTS/ueid-at-load")"
}

# qs_run I: run line I here, in the foreground; it must exit 0
qs_run() {
	local t0=$SECONDS rc=0

	(qs_exec "$1") || rc=$?
	qs_show "$1" "$rc" $((SECONDS - t0))
	[ "$rc" -eq 0 ] || fail "line $(($1 + 1)) of the quick start failed (exit $rc): ${QS_LINE[$1]}"
	qs_after "$1"
}

# qs_listeners: the local addresses of the listening TCP sockets, sorted
qs_listeners() {
	ss -Htln | awk '{ print $4 }' | sort
}

# qs_pair I: line I (host A) serves, line I+1 (host B) is its client
qs_pair() {
	local s=$1 c=$(($1 + 1)) t0=$SECONDS pid rc=0 deadline new

	barrier "qs-pair-$s" 1800
	if [ "$me" = "${QS_HOST[s]}" ]; then
		qs_listeners >/tmp/qs/listeners-before
		(qs_exec "$s") &
		pid=$!
		deadline=$((SECONDS + 180))
		while :; do
			new=$(qs_listeners | comm -13 /tmp/qs/listeners-before -)
			if [ -n "$new" ]; then
				log "line $((s + 1)) listens on $(paste -sd' ' <<<"$new")"
				break
			fi
			if ! kill -0 "$pid" 2>/dev/null; then
				# no server: a line that just ran first
				wait "$pid" || rc=$?
				pid=
				qs_show "$s" "$rc" $((SECONDS - t0))
				[ "$rc" -eq 0 ] || fail "line $((s + 1)) of the quick start failed (exit $rc): ${QS_LINE[s]}"
				qs_after "$s"
				break
			fi
			[ "$SECONDS" -lt "$deadline" ] || fail "line $((s + 1)): nothing listens after 180 s"
			nap 0.5
		done
		barrier "qs-listening-$s"
		barrier "qs-client-done-$s" 700
		if [ -n "$pid" ]; then
			wait_bg "$pid" 120 || rc=$?
			qs_show "$s" "$rc" $((SECONDS - t0))
			[ "$rc" -eq 0 ] || fail "line $((s + 1)) of the quick start failed (exit $rc): ${QS_LINE[s]}"
			qs_after "$s"
		fi
	else
		log "line $((s + 1)) runs on host ${QS_HOST[s]}; waiting for it to listen or end"
		barrier "qs-listening-$s" 300
		qs_run "$c"
		barrier "qs-client-done-$s"
	fi
	barrier "qs-pair-done-$s" 180
}

# ---- the quick start ---------------------------------------------------
t_all=$SECONDS
for ((i = 0; i < n; i++)); do
	h=${QS_HOST[i]}
	if [ "$h" = A ] && [ $((i + 1)) -lt "$n" ] && [ "${QS_HOST[i + 1]}" = B ]; then
		qs_pair "$i"
		i=$((i + 1))
	elif [ "$h" = both ] || [ "$h" = "$me" ]; then
		qs_run "$i"
	else
		log "line $((i + 1)) is for host $h only: $(qs_cmd "$i")"
	fi
done
log "the quick start ran on host $me in $((SECONDS - t_all)) s"

# ---- the checks ----------------------------------------------------------
[ -n "$SMCCTL" ] || fail "the quick start did not load an smc module"
PATH=$LINE_PATH:$PATH

# The module: ours, from DKMS.
path=$(modinfo -n smc) || fail "modinfo finds no smc after the quick start"
case $path in
/lib/modules/"$K"/updates/dkms/smc.ko* | /usr/lib/modules/"$K"/updates/dkms/smc.ko*) ;;
*) smcr_problem "modprobe smc resolves to $path, not DKMS's /lib/modules/$K/updates/dkms/smc.ko*" ;;
esac
have=$(cat /sys/module/smc/srcversion 2>/dev/null || echo none)
want=$(modinfo -F srcversion "$path" 2>/dev/null || echo none)
[ "$have" = "$want" ] || smcr_problem "the loaded smc has srcversion '$have', not that of $path ('$want')"
got=$(cat /sys/module/smc/version 2>/dev/null || echo none)
[ "$got" = "$ver" ] || smcr_problem "the loaded smc has version '$got', want dkms.conf's '$ver'"
for p in "$name-dkms" "$name-tools"; do
	# shellcheck disable=SC2016 # dpkg-query's format
	st=$(dpkg-query -W -f '${db:Status-Abbrev} ${Version}' "$p" 2>/dev/null) || st=none
	[ "$st" = "ii  $ver" ] || smcr_problem "$p: dpkg says '$st', want 'ii  $ver'"
done
dkms status -m "$name" -v "$ver" -k "$K" >"$RESULTS/dkms-status.log" 2>&1 || true
dk=$(grep "^$name/$ver, $K, [^:]*: installed" "$RESULTS/dkms-status.log") ||
	smcr_problem "dkms status does not say $name/$ver installed for $K: $(paste -sd' ' "$RESULTS/dkms-status.log")"
for t in smc_run:/usr/bin/smc_run smcctl:/usr/sbin/smcctl; do
	w=$(command -v "${t%%:*}") || w=none
	[ "$w" = "${t#*:}" ] || smcr_problem "${t%%:*} is $w, not the package's ${t#*:}"
done
log "module: $path, srcversion $have, version $got, taint $(cat /sys/module/smc/taint); dkms: ${dk:-not installed}"

# The UEID: from the modprobe.d file, right after the load and now.
eid=$(sed -n 's/^[[:space:]]*options[[:space:]]\+smc[[:space:]].*ueid=\([^[:space:]]*\).*/\1/p' \
	/etc/modprobe.d/*.conf 2>/dev/null | tail -n 1)
"$SMCCTL" ueid show >"$RESULTS/ueid-end" 2>&1 || smcr_problem "smcctl ueid show failed: $(cat "$RESULTS/ueid-end")"
if [ -z "$eid" ]; then
	smcr_problem "no 'options smc ueid=...' in /etc/modprobe.d"
else
	grep -qx -- "$eid" "$RESULTS/ueid-at-load" ||
		smcr_problem "the UEID $eid of /etc/modprobe.d was not set when the module loaded (UEIDs: $(paste -sd' ' "$RESULTS/ueid-at-load"))"
	grep -qx -- "$eid" "$RESULTS/ueid-end" ||
		smcr_problem "the UEID $eid of /etc/modprobe.d is not set now (UEIDs: $(paste -sd' ' "$RESULTS/ueid-end"))"
fi
log "UEID of /etc/modprobe.d: ${eid:-none}; set at load: $(paste -sd' ' "$RESULTS/ueid-at-load"); now: $(paste -sd' ' "$RESULTS/ueid-end")"

# SMC-R: the counters since the module was loaded.
"$SMCCTL" --json stats >"$RESULTS/stats.json" || fail "smcctl --json stats failed"
"$SMCCTL" fallback >"$RESULTS/fallback.txt" 2>&1 || true
st=$(smcj stats -f "$RESULTS/stats.json") || fail "cannot read smcctl --json stats"
eval "S_${st//$'\n'/$'\n'S_}"
# shellcheck disable=SC2154 # S_*: smcj stats
{
	log "stats: SMC-R v2 handshakes client $S_smcr_client server $S_smcr_server (v1 $S_smcr_v1, v2 $S_smcr_v2), fallbacks client $S_fb_client server $S_fb_server, handshake errors client $S_hserr_client server $S_hserr_server, rx $S_rx_bytes B, tx $S_tx_bytes B"
	role=server mine=$S_smcr_server moved=$S_rx_bytes ctr=rcvd_pkts
	[ "$me" = A ] || { role=client; mine=$S_smcr_client; moved=$S_tx_bytes; ctr=sent_pkts; }
	[ "$mine" -ge 2 ] ||
		smcr_problem "$mine SMC-R handshakes as $role on host $me, want iperf3's control and data connections (2 or more)"
	if [ $((S_fb_client + S_fb_server)) -ne 0 ]; then
		smcr_problem "fallbacks: client $S_fb_client, server $S_fb_server ($(grep -o 'SMC_CLC_DECL_[A-Z0-9_]*' "$RESULTS/fallback.txt" | sort -u | paste -sd' '))"
	fi
	[ $((S_hserr_client + S_hserr_server)) -eq 0 ] ||
		smcr_problem "handshake errors: client $S_hserr_client, server $S_hserr_server"
	[ "$S_smcr_v1" -eq 0 ] || smcr_problem "$S_smcr_v1 SMC-R v1 handshakes, want only v2"
	[ "$S_smcr_v2" -eq $((S_smcr_client + S_smcr_server)) ] ||
		smcr_problem "$S_smcr_v2 SMC-R v2 handshakes of $((S_smcr_client + S_smcr_server))"
}

# RDMA: the data crossed the quick start's rxe0.
if [ -e /sys/class/infiniband/rxe0 ]; then
	pkts=$(rdma_counter "$ctr")
	log "rxe0 (made by the quick start): sent_pkts $(rdma_counter sent_pkts), rcvd_pkts $(rdma_counter rcvd_pkts); $moved bytes over SMC-R this way"
	[ "$moved" -ge 1048576 ] ||
		smcr_problem "only $moved bytes went over SMC-R as $role, want at least 1 MiB"
	[ "$pkts" -ge $((moved / 1024)) ] ||
		smcr_problem "rxe0 $ctr is $pkts, fewer than one per KiB of the $moved bytes: the data did not cross RDMA"
else
	smcr_problem "no rxe0: the data cannot have crossed RDMA"
fi

# iperf3's own report (host B's line).
if [ "$me" = B ]; then
	for ((i = 0; i < n; i++)); do
		[[ ${QS_HOST[i]} == B && ${QS_LINE[i]} == *iperf3* ]] || continue
		f=$RESULTS/qs-$((i + 1)).log
		grep -E '(sender|receiver)[[:space:]]*$' "$f" || true
		for w in sender receiver; do
			grep -qE "${w}[[:space:]]*\$" "$f" ||
				smcr_problem "iperf3 (line $((i + 1))) reported no $w summary"
		done
	done
fi

# Both hosts alike: one UEID, as many handshakes as server on A as as
# client on B.
echo "${eid:-none} $S_smcr_client $S_smcr_server" >"$SHARED/qs-end.vm$VM_INDEX"
barrier qs-checked 300
read -r eid0 _ srv0 <"$SHARED/qs-end.vm0"
read -r eid1 cli1 _ <"$SHARED/qs-end.vm1"
[ "$eid0" = "$eid1" ] ||
	smcr_problem "the UEIDs differ: $eid0 on host A, $eid1 on host B (SMC-R v2 needs one they share)"
[ "$srv0" -eq "$cli1" ] ||
	smcr_problem "$srv0 SMC-R handshakes as server on host A, $cli1 as client on host B"
smcr_verdict "quickstart (host $me)"
barrier qs-finished 300
log "quickstart ok: README.md's $n lines ran as written; ours from updates/dkms, UEID $eid from modprobe.d, iperf3 over SMC-R v2 with no fallback, the data over rxe0"
