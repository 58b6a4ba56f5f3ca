#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smc_bpf attach --unit (tools/smc_bpf): a policy on a systemd service
# follows the unit's cgroup across restarts; port ranges and address
# rules; status marks what does not apply.  The VMs run no systemd: the
# unit smc-web.service is its cgroup where systemd puts it,
# /sys/fs/cgroup/system.slice/smc-web.service; a start is the mkdir of
# that cgroup (a new cgroup id), a stop its rmdir, and the drop-in's
# ExecStartPre command is read from the drop-in and run in the new cgroup,
# as systemd runs it.  /etc/systemd/system is a tmpfs here (/ is the
# host's, read-only).  On both VMs:
#   - attach --unit while the unit is stopped: the drop-in holds exactly
#     "ExecStartPre=-+SMC_BPF refresh --ports .. --addr .. smc-web.service"
#     (lists normalized); status: INACTIVE, exit 0;
#   - start without a refresh: STALE, exit 3; the drop-in's command in the
#     cgroup: live with the cgroup's id (its inode), python3's TCP sockets
#     in it are IPPROTO_SMC;
#   - restart: STALE, exit 3 (JSON: "stale", the new id), and python3 in
#     the new cgroup really gets TCP; the drop-in's command: live, SMC
#     again; a refresh from outside the unit finds it at systemd's place;
#     stop: INACTIVE, exit 0;
#   - a --cgroup rule: STALE when its cgroup is removed, and when another
#     is made at its path; attach again heals it;
#   - attach --unit --runtime moves the drop-in to /run;
#   - "reboot" (the pins removed): status exit 1, the drop-in listed
#     STALE while the unit runs; its command attaches the policy again,
#     with the drop-in's lists;
#   - VM 1: smc-cli.service lives in other.slice (Slice=): attach finds it
#     stopped at system.slice, its drop-in's command, run in its cgroup,
#     finds it by /proc/self/cgroup.
# Then, with rules_probe.py in the units (unmodified python3, sockets
# IPPROTO_SMC):
#   - VM 0 smc-web (--ports 5400-5404,5410 --addr 10.0.0.0/8) listens on
#     5400, 5405 and 5410: 5405 is vetoed at listen() (accepted sockets
#     OPTUNSUPP); its --addr does not apply to listeners (5400 SMC-R);
#   - VM 1 smc-web (--ports 5400-5409 --addr VM0/32,fd00::/8) connects to
#     5400 (SMC-R), 5405 (PEERNOSMC), 5410 (outside the range: OPTUNSUPP,
#     VM 0 sees PEERNOSMC), ::ffff:VM0 5400 (IPv4-mapped meets the IPv4
#     prefix: not vetoed); smc-cli (--addr 10.0.0.0/8) to VM0 5400 and
#     ::ffff:VM0 5400: both vetoed by address (OPTUNSUPP);
#   - status counts per rule the connect/listens kept TCP (VM 0 1; VM 1
#     smc-web 1, smc-cli 2);
#   - detach --unit removes the unit's drop-in, detach everything else: no
#     pin, no drop-in, no program left.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "bpf-unit needs exactly two VMs"
[ "$SMC_IMPL" = ours ] || fail "bpf-unit needs our module (its smc_bpf_decide hook)"
PY=/usr/bin/python3
PROBE=$REPO/tools/smc_run/rules_probe.py
unit=smc-web.service
ucg=/sys/fs/cgroup/system.slice/$unit
etc_dropin=/etc/systemd/system/$unit.d/smc-r.conf
run_dropin_path=/run/systemd/system/$unit.d/smc-r.conf
pcg=/sys/fs/cgroup/smc-unit-plain
cli=smc-cli.service
ccg=/sys/fs/cgroup/other.slice/$cli
cli_dropin=/etc/systemd/system/$cli.d/smc-r.conf
release=$SHARED/bpf-unit.release
bytes=65536
optunsupp=$((0x03060000))
peernosmc=$((0x03010000))
if [ "$VM_INDEX" -eq 0 ]; then
	ports=5400-5404,5410
	addrs=10.0.0.0/8
else
	ports=5400-5409
	addrs="$VM_IP_0,fd00::/8"
fi
# as the drop-in and status write them
addrs_norm=$addrs
[ "$VM_INDEX" -eq 0 ] || addrs_norm="$VM_IP_0/32,fd00::/8"

# in_unit DIR WANT WHAT: python3's sockets in cgroup DIR are WANT
in_unit() {
	local got

	got=$(sock_kinds "$1") || got="python3 failed"
	log "python3 in $1 ($3): $got"
	[ "$got" = "$2" ] || smcr_problem "$3: python3's TCP sockets in $1 are $got, want $2"
}

# cg_stop DIR: the unit's stop, once its processes have left
cg_stop() {
	local _

	for _ in $(seq 50); do
		rmdir "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "cannot remove $1: processes $(paste -sd' ' "$1/cgroup.procs")"
}

# run_dropin FILE DIR: FILE's ExecStartPre command, run in cgroup DIR as
# systemd runs it (guest.sh); it must succeed
run_dropin() {
	local rc=0

	unit_start_pre "$1" "$2" || rc=$?
	[ "$rc" -eq 0 ] || smcr_problem "the ExecStartPre of $1 failed (exit $rc)"
}

# status_is TAG RC PATTERN...: smc_bpf status exits RC and has a line
# matching each extended regex PATTERN; kept as status-TAG.log
status_is() {
	local tag=$1 want=$2 rc=0 f=$RESULTS/status-$1.log pat

	shift 2
	"$SMC_BPF" status >"$f" 2>&1 || rc=$?
	log "status ($tag): exit $rc: $(paste -sd'|' "$f")"
	[ "$rc" -eq "$want" ] || smcr_problem "status ($tag): exit $rc, want $want"
	for pat in "$@"; do
		grep -Eq -- "$pat" "$f" || smcr_problem "status ($tag): no line /$pat/"
	done
}

# count VIEW AWK-CONDITION: how many lines of VIEW match
count() {
	awk "$2" <<<"$1" | wc -l
}

smcr_setup
SMC_BPF=$(smc_bpf_path) || fail "cannot find or build smc_bpf: $(tail -n 5 "$RESULTS/smc_bpf-build.log" 2>/dev/null)"
exe=$(realpath "$SMC_BPF")
log "smc_bpf: $exe"
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 cgroup2 /sys/fs/cgroup
[ -d /etc/systemd/system ] || fail "no /etc/systemd/system to mount a tmpfs on"
mount -t tmpfs -o mode=0755 tmpfs /etc/systemd/system
mkdir -p /sys/fs/cgroup/system.slice /sys/fs/cgroup/other.slice
[ -e /sys/kernel/btf/smc ] || fail "no /sys/kernel/btf/smc: the lists need the module's BTF"

"$SMC_BPF" status >"$RESULTS/status-before.log" 2>&1 &&
	fail "policy attached before the test: $(cat "$RESULTS/status-before.log")"

# ---- a unit across starts and stops ----
# a backwards range is refused before anything happens
rc=0
"$SMC_BPF" attach --unit "$unit" --ports 5409-5400 >"$RESULTS/attach-bad.log" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || smcr_problem "attach --ports 5409-5400: exit $rc, want 2"
[ ! -e "$etc_dropin" ] || smcr_problem "a refused attach wrote $etc_dropin"

"$SMC_BPF" attach --unit smc-web --ports "$ports" --addr "$addrs" | tee "$RESULTS/attach-web.log" ||
	fail "smc_bpf attach --unit failed"
grep -q "^smc_bpf: $unit is not running" "$RESULTS/attach-web.log" ||
	smcr_problem "attach did not say that $unit is not running"
grep -q 'attached with port rules' "$RESULTS/attach-web.log" ||
	smcr_problem "attach did not attach the rules' program"
cp "$etc_dropin" "$RESULTS/dropin-etc.conf" 2>/dev/null ||
	fail "attach --unit wrote no $etc_dropin"
want="ExecStartPre=-+$exe refresh --ports \"$ports\" --addr \"$addrs_norm\" \"$unit\""
got=$(grep '^ExecStart' "$etc_dropin" || true)
[ "$got" = "$want" ] || smcr_problem "drop-in: '$got', want '$want'"
head -n 1 "$etc_dropin" | grep -q '^# smc_bpf drop-in' ||
	smcr_problem "the drop-in's first line is not smc_bpf's marker"
grep -qx '\[Service\]' "$etc_dropin" || smcr_problem "the drop-in has no [Service] section"
status_is inactive 0 \
	"^unit $unit: cgroup $ucg id=none converted=0 INACTIVE: not running; its next start applies the rule$" \
	"^  follows restarts: drop-in $etc_dropin \(systemd not running\), refreshed 0 times$" \
	"^  ports $ports addr $addrs_norm: 0 connect/listen kept TCP$"

# start, no refresh yet: the rule is on no cgroup
mkdir "$ucg"
id1=$(stat -c %i "$ucg")
status_is started 3 \
	"^unit $unit: cgroup $ucg id=none converted=0 STALE: started without a refresh \(its cgroup is id $id1\)" \
	'^1 rule STALE: applying to no task$'
run_dropin "$etc_dropin" "$ucg"
status_is start1 0 "^unit $unit: cgroup $ucg id=$id1 converted=[0-9]+$" \
	"refreshed 1 times$"
in_unit "$ucg" "2/256 10/256" "started and refreshed"

# restart: a new cgroup at the same path
cg_stop "$ucg"
mkdir "$ucg"
id2=$(stat -c %i "$ucg")
[ "$id2" != "$id1" ] || fail "the cgroup made again has the same id $id1"
status_is restarted 3 \
	"^unit $unit: cgroup $ucg id=$id1 converted=[0-9]+ STALE: restarted without a refresh \(its cgroup is now id $id2\)"
"$SMC_BPF" status --json >"$RESULTS/status-restarted.json" || true
out=$(U=$unit "$PY" -c '
import json, os, sys
d = json.load(open(sys.argv[1]))
r = [x for x in d["rules"] if x["unit"] == os.environ["U"]][0]
print(r["state"], r["cgroup_id"], r["live_cgroup_id"], d["stale"])' "$RESULTS/status-restarted.json" 2>&1) ||
	out="bad JSON: $out"
[ "$out" = "stale $id1 $id2 1" ] ||
	smcr_problem "status --json after the restart: '$out', want 'stale $id1 $id2 1'"
in_unit "$ucg" "2/6 10/6" "restarted, not refreshed (the STALE rule applies to nothing)"
run_dropin "$etc_dropin" "$ucg"
status_is start2 0 "^unit $unit: cgroup $ucg id=$id2 converted=[0-9]+$" "refreshed 2 times$"
in_unit "$ucg" "2/256 10/256" "restarted and refreshed"

# a refresh from outside the unit finds it at systemd's place
cg_stop "$ucg"
mkdir "$ucg"
id3=$(stat -c %i "$ucg")
"$SMC_BPF" refresh "$unit" >"$RESULTS/refresh-outside.log" 2>&1 ||
	smcr_problem "refresh from outside: $(paste -sd';' "$RESULTS/refresh-outside.log")"
status_is start3 0 "^unit $unit: cgroup $ucg id=$id3 converted=[0-9]+$" "refreshed 3 times$"

# stop: nothing runs, the next start applies the rule
cg_stop "$ucg"
status_is stopped 0 "^unit $unit: cgroup $ucg id=$id3 converted=[0-9]+ INACTIVE: not running; its next start applies the rule$"

# ---- a --cgroup rule whose cgroup goes ----
mkdir -p "$pcg"
pid1=$(stat -c %i "$pcg")
"$SMC_BPF" attach --cgroup "$pcg" >"$RESULTS/attach-plain.log" 2>&1 ||
	fail "attach --cgroup $pcg: $(paste -sd';' "$RESULTS/attach-plain.log")"
status_is plain 0 "^cgroup $pcg id=$pid1 converted=0$"
cg_stop "$pcg"
status_is plain-removed 3 "^cgroup $pcg id=$pid1 converted=0 STALE: its cgroup was removed$"
mkdir "$pcg"
pid2=$(stat -c %i "$pcg")
status_is plain-replaced 3 \
	"^cgroup $pcg id=$pid1 converted=0 STALE: the cgroup there now is another one \(id $pid2\)"
"$SMC_BPF" attach --cgroup "$pcg" >>"$RESULTS/attach-plain.log" 2>&1 ||
	smcr_problem "attach --cgroup again failed"
status_is plain-healed 0 "^cgroup $pcg id=$pid2 converted=0$"
"$SMC_BPF" detach --cgroup "$pcg" >>"$RESULTS/attach-plain.log" 2>&1 ||
	smcr_problem "detach --cgroup $pcg failed"
cg_stop "$pcg"

# ---- --runtime: the drop-in moves to /run ----
mkdir "$ucg"
id4=$(stat -c %i "$ucg")
"$SMC_BPF" attach --unit "$unit" --runtime >"$RESULTS/attach-runtime.log" 2>&1 ||
	smcr_problem "attach --unit --runtime: $(paste -sd';' "$RESULTS/attach-runtime.log")"
[ -e "$etc_dropin" ] && smcr_problem "$etc_dropin still there after attach --runtime"
[ -e "${etc_dropin%/*}" ] && smcr_problem "${etc_dropin%/*} still there after attach --runtime"
got=$(grep '^ExecStart' "$run_dropin_path" 2>/dev/null || true)
[ "$got" = "$want" ] || smcr_problem "/run drop-in: '$got', want '$want' (the lists kept)"
status_is runtime 0 "^unit $unit: cgroup $ucg id=$id4 converted=[0-9]+$" \
	"^  follows restarts: drop-in $run_dropin_path \(systemd not running\), refreshed 4 times$"

# ---- "reboot": the pins go, the drop-in stays ----
for f in link link-ports cgroups slots; do rm -f "/sys/fs/bpf/smc_bpf/$f"; done
rmdir /sys/fs/bpf/smc_bpf
status_is rebooted 1 '^smc_bpf: not attached$' \
	"^unit $unit: drop-in $run_dropin_path, not in the policy STALE: running \(cgroup id $id4\) but not in the policy"
run_dropin "$run_dropin_path" "$ucg"
status_is reattached 0 '^attached: link [0-9]+, program [0-9]+, fmod_ret update_socket_protocol' \
	'^port rules: link [0-9]+, program [0-9]+, fmod_ret smc_bpf_decide$' \
	"^unit $unit: cgroup $ucg id=$id4 converted=0$" \
	"^  ports $ports addr $addrs_norm: 0 connect/listen kept TCP$"
in_unit "$ucg" "2/256 10/256" "attached again by the drop-in's command"

# ---- VM 1: a unit in another slice, found by /proc/self/cgroup ----
if [ "$VM_INDEX" -eq 1 ]; then
	"$SMC_BPF" attach --unit "$cli" --ports 5400-5410 --addr 10.0.0.0/8 \
		>"$RESULTS/attach-cli.log" 2>&1 ||
		fail "attach --unit $cli: $(paste -sd';' "$RESULTS/attach-cli.log")"
	mkdir "$ccg"
	cid=$(stat -c %i "$ccg")
	# without systemd, status looks at systemd's default place only
	status_is cli-started 0 "^unit $cli: cgroup /sys/fs/cgroup/system.slice/$cli id=none converted=0 INACTIVE: not running"
	run_dropin "$cli_dropin" "$ccg"
	status_is cli 0 "^unit $cli: cgroup $ccg id=$cid converted=0$"
fi

# ---- port ranges and address rules ----
smcr_snapshot before
barrier units
if [ "$VM_INDEX" -eq 0 ]; then
	rm -f "$release"
	run_bg server "${INCG[@]}" "$ucg" "$PY" "$PROBE" serve --hold "$release" \
		0.0.0.0:5400 0.0.0.0:5405 0.0.0.0:5410
	server=$BG_PID
	wait_file_line "$RESULTS/server.log" '^listening' 60
	grep -c '^listener [0-9]* domain 2 ' "$RESULTS/server.log" | grep -qx 3 ||
		smcr_problem "the listeners are not AF_INET sockets: $(grep ^listener "$RESULTS/server.log" | paste -sd';')"
	barrier listening
	barrier holding 120
	"$SMCCTL" --json connections >"$RESULTS/connections.json" ||
		fail "smcctl --json connections failed"
	view=$(sock_view "$server")
	log "server smcctl: $(paste -sd';' <<<"$view")"
	[ "$(count "$view" '$2 == "LISTEN"')" -eq 3 ] ||
		smcr_problem "want the three listeners listed by smcctl (IPPROTO_SMC)"
	[ "$(count "$view" '$2 != "LISTEN" && $4 == 5400 && $6 == '$optunsupp)" -eq 0 ] ||
		smcr_problem "a connection on 5400 vetoed here: --addr must not apply to listeners"
	[ "$(count "$view" '$2 == "ACTIVE" && $3 == "SMCR" && $4 == 5400 && $6 == 0')" -ge 1 ] ||
		smcr_problem "no ACTIVE SMCR connection on 5400"
	[ "$(count "$view" '$2 != "LISTEN" && $4 == 5400 && $6 == '$peernosmc)" -eq 2 ] ||
		smcr_problem "want the two connections on 5400 vetoed by VM 1's --addr (PEERNOSMC)"
	[ "$(count "$view" '$2 != "LISTEN" && $3 == "TCP" && $4 == 5405 && $6 == '$optunsupp)" -eq 1 ] ||
		smcr_problem "want the connection on 5405 in fallback OPTUNSUPP (listen outside 5400-5404,5410)"
	[ "$(count "$view" '$2 != "LISTEN" && $3 == "TCP" && $4 == 5410 && $6 == '$peernosmc)" -eq 1 ] ||
		smcr_problem "want the connection on 5410 in fallback PEERNOSMC (5410 is in the list, VM 1 vetoed)"
	[ "$(count "$view" '$2 != "LISTEN"')" -eq 6 ] ||
		smcr_problem "want exactly six accepted connections"
	barrier checked
	wait_bg "$server" 60 || smcr_problem "server failed: $(tail -n 3 "$RESULTS/server.log" | paste -sd';')"
	grep -q 'failed' "$RESULTS/server.log" &&
		smcr_problem "a server connection failed: $(grep failed "$RESULTS/server.log" | paste -sd';')"
	status_is traffic 0 "^  ports $ports addr $addrs_norm: 1 connect/listen kept TCP$"
else
	barrier listening
	names=(smc lveto pveto mapped aveto aveto6)
	declare -A pid
	for n in "${names[@]}"; do
		case $n in
		smc) cg=$ucg host=$VM_IP_0 p=5400 ;;
		lveto) cg=$ucg host=$VM_IP_0 p=5405 ;;
		pveto) cg=$ucg host=$VM_IP_0 p=5410 ;;
		mapped) cg=$ucg host=::ffff:$VM_IP_0 p=5400 ;;
		aveto) cg=$ccg host=$VM_IP_0 p=5400 ;;
		aveto6) cg=$ccg host=::ffff:$VM_IP_0 p=5400 ;;
		esac
		run_bg "$n" "${INCG[@]}" "$cg" "$PY" "$PROBE" connect "$host" "$p" "$bytes" \
			--hold "$release"
		pid[$n]=$BG_PID
	done
	for n in "${names[@]}"; do
		(wait_file_line "$RESULTS/$n.log" '^holding|Error|error' 90) || true
		grep -q '^holding' "$RESULTS/$n.log" ||
			smcr_problem "client $n did not get to holding: $(tail -n 3 "$RESULTS/$n.log" | paste -sd';')"
		grep -q "^connected [0-9]* domain [0-9]* proto 256 " "$RESULTS/$n.log" ||
			smcr_problem "client $n: not an IPPROTO_SMC socket: $(grep ^connected "$RESULTS/$n.log")"
	done
	barrier holding 120
	"$SMCCTL" --json connections >"$RESULTS/connections.json" ||
		fail "smcctl --json connections failed"
	for n in "${names[@]}"; do
		view=$(sock_view "${pid[$n]}")
		log "client $n: $view"
		case $n in
		smc) cond='$2 == "ACTIVE" && $3 == "SMCR" && $5 == 5400 && $6 == 0'
		     what="ACTIVE SMCR without fallback" ;;
		lveto) cond='$3 == "TCP" && $5 == 5405 && $6 == '$peernosmc
		       what="in fallback PEERNOSMC (VM 0 vetoed its listen)" ;;
		pveto) cond='$3 == "TCP" && $5 == 5410 && $6 == '$optunsupp
		       what="in fallback OPTUNSUPP (5410 is outside 5400-5409)" ;;
		mapped) cond='$5 == 5400 && $6 != '$optunsupp
			what="free of the address veto (::ffff:$VM_IP_0 meets $VM_IP_0/32)" ;;
		aveto | aveto6) cond='$3 == "TCP" && $5 == 5400 && $6 == '$optunsupp
				what="in fallback OPTUNSUPP (the destination is outside 10.0.0.0/8)" ;;
		esac
		[ "$(count "$view" "$cond")" -eq 1 ] || smcr_problem "client $n is not $what: $view"
	done
	barrier checked
	: >"$release"
	for n in "${names[@]}"; do
		wait_bg "${pid[$n]}" 60 || smcr_problem "client $n failed: $(tail -n 3 "$RESULTS/$n.log" | paste -sd';')"
		grep -q "^transfer ok $bytes bytes each way" "$RESULTS/$n.log" ||
			smcr_problem "client $n: no 'transfer ok $bytes bytes each way'"
	done
	status_is traffic 0 "^  ports $ports addr $addrs_norm: 1 connect/listen kept TCP$" \
		"^  ports 5400-5410 addr 10.0.0.0/8: 2 connect/listen kept TCP$"
fi
barrier finished 120

# ---- detach ----
"$SMC_BPF" detach --unit "$unit" >"$RESULTS/detach-unit.log" 2>&1 ||
	smcr_problem "detach --unit: $(paste -sd';' "$RESULTS/detach-unit.log")"
[ -e "$run_dropin_path" ] && smcr_problem "$run_dropin_path still there after detach --unit"
[ -e "${run_dropin_path%/*}" ] && smcr_problem "${run_dropin_path%/*} still there after detach --unit"
if [ "$VM_INDEX" -eq 1 ]; then
	status_is after-unit 0 "^unit $cli: cgroup $ccg id=$cid converted=[0-9]+$"
	grep -q "$unit" "$RESULTS/status-after-unit.log" &&
		smcr_problem "status still lists $unit after detach --unit"
	"$SMC_BPF" detach >"$RESULTS/detach.log" 2>&1 || smcr_problem "detach: $(paste -sd';' "$RESULTS/detach.log")"
else
	grep -q '^smc_bpf: no rule left: detached$' "$RESULTS/detach-unit.log" ||
		smcr_problem "detach of the last rule did not detach: $(paste -sd';' "$RESULTS/detach-unit.log")"
fi
left=$(ls /etc/systemd/system/*.service.d/smc-r.conf /run/systemd/system/*.service.d/smc-r.conf 2>/dev/null || true)
[ -z "$left" ] || smcr_problem "drop-ins left after detach: $left"
[ -e /sys/fs/bpf/smc_bpf ] && smcr_problem "/sys/fs/bpf/smc_bpf still there after detach"
status_is detached 1 '^smc_bpf: not attached$'
for prog in smc_policy smc_ports; do
	out=$(bpf_prog_gone "$prog") || smcr_problem "$prog still loaded after detach: $out"
done
in_unit "$ucg" "2/6 10/6" "after detach"
barrier detached
smcr_verdict bpf-unit
