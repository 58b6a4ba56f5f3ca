#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Configuration set once survives a reboot (run by tests/vm/reboot, with
# --impl none: the scenario loads the module itself, as a booting host
# does).  Both VMs:
#   boot 1: ours in place of the distribution's smc.ko file (a package
#           puts it in updates/dkms; here without minutes of depmod: a
#           modprobe.d softdep names ours' dependencies instead), the
#           tools installed (make install: smcctl and its udev rule), then
#           the administrator's two files: "options smc ueid=..." in
#           modprobe.d and /etc/smc-r/smc-r.conf with PNET entries;
#           nothing is applied by hand.  VM 1 also puts the eBPF policy
#           on a systemd service (smc_bpf attach --unit: its drop-in in
#           /etc/systemd/system).  The disk is saved.
#   boot 2: the same disk; udevd runs and the module is loaded by name
#           (modprobe smc, as systemd or the first AF_SMC socket would).
#           The UEID must come from modprobe.d and the PNET table from
#           the udev rule, and with them a connection between the two
#           VMs is SMC-R (v2 needs the UEID on both sides): smcctl check
#           says so.  On VM 1 the policy's pins are gone with the reboot;
#           the service's start (its cgroup made, the drop-in's
#           ExecStartPre run in it, as systemd does) brings the policy
#           back, and a plain TCP client of the service gets SMC-R.
#   SMCR_PERSIST_BREAK=norule: boot 1 leaves the udev rule out, =nodropin
#   the service's drop-in (planted breaks: boot 2 must fail).

set -uo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "needs two VMs"
[ -n "${SMCR_BOOT:-}" ] || fail "run by tests/vm/reboot (no SMCR_BOOT)"
[ "$SMC_IMPL" = none ] || fail "run with --impl none: the scenario loads smc"
[ -r "$SMC_KO" ] || fail "no module of ours at '$SMC_KO'"

kdir=/lib/modules/$(uname -r)/kernel/net/smc
conf=/etc/smc-r/smc-r.conf
smcctl=/usr/local/sbin/smcctl
smc_bpf=/usr/local/sbin/smc_bpf
unit=smc-demo.service
dropin=/etc/systemd/system/$unit.d/smc-r.conf
ucg=/sys/fs/cgroup/system.slice/$unit
disk_mount /etc /usr/local "$kdir" || fail "cannot set up the disk"
# cgroup v2, as systemd mounts it at boot
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 cgroup2 /sys/fs/cgroup ||
	fail "cannot mount cgroup2"

if [ "$SMCR_BOOT" -eq 1 ]; then
	f=$(find "$kdir" -maxdepth 1 -name 'smc.ko*' | head -n 1)
	[ -n "$f" ] || fail "no smc.ko of the distribution in $kdir"
	case "$f" in
	*.xz) xz --check=crc32 -c "$SMC_KO" >"$f" ;;
	*.zst) zstd -q -c "$SMC_KO" >"$f" ;;
	*) cp "$SMC_KO" "$f" ;;
	esac || fail "cannot put ours at $f"
	# what depmod would record (ours needs rdma_cm, the distribution's
	# smc.ko does not): a softdep stands in for the skipped depmod
	echo "softdep smc pre: $(modinfo -F depends "$SMC_KO" | tr ',' ' ')" \
		>/etc/modprobe.d/smc-r-deps.conf
	log "ours at $f ($(cat /etc/modprobe.d/smc-r-deps.conf))"
	# the guest's /dev lacks what udev makes on a host (make install
	# pipes through /dev/stdin)
	[ -e /dev/stdin ] || ln -s /proc/self/fd/0 /dev/stdin
	make -s -C "$REPO/tools/smcctl" install PREFIX=/usr/local ||
		fail "make install of smcctl failed"
	[ "${SMCR_PERSIST_BREAK:-}" != norule ] ||
		rm -f /etc/udev/rules.d/90-smc-r.rules
	if [ "$VM_INDEX" -eq 1 ]; then
		make -s -C "$REPO/tools/smc_bpf" install PREFIX=/usr/local ||
			fail "make install of smc_bpf failed"
		mkdir -p /sys/fs/cgroup/system.slice
		"$smc_bpf" attach --unit "$unit" || fail "smc_bpf attach --unit failed"
		[ "${SMCR_PERSIST_BREAK:-}" != nodropin ] || rm -f "$dropin"
	fi
	echo "options smc ueid=$SMC_UEID" >/etc/modprobe.d/smc-r.conf
	mkdir -p /etc/smc-r
	cat >"$conf" <<-EOT
		# the PNET table of vm$VM_INDEX (smcctl(8), apply)
		pnet NET1 --eth eth0
		pnet NET1 --ib rxe0 --port 1
	EOT
	"$smcctl" apply -n "$conf" || fail "smcctl apply -n refuses $conf"
	disk_save || fail "cannot save the disk"
	log "boot 1: installed and configured; disk saved"
	exit 0
fi

# ---- boot 2 ----
[ -x "$smcctl" ] || fail "the installed smcctl did not survive the reboot"
[ ! -d /sys/module/smc ] || fail "smc is loaded before the boot loads it"
/lib/systemd/systemd-udevd --daemon || fail "cannot start udevd"
modprobe smc || fail "modprobe smc failed"
udevadm settle -t 60 || log "udevadm settle timed out"
want=$(modinfo -F srcversion "$SMC_KO")
have=$(cat /sys/module/smc/srcversion 2>/dev/null)
[ "$have" = "$want" ] || fail "modprobe smc loaded srcversion '$have', not ours ($want)"
log "modprobe smc loaded ours (srcversion $have)"

ueids=$("$smcctl" ueid show) || fail "smcctl ueid show failed"
log "UEIDs: $(paste -sd' ' <<<"$ueids")"
grep -qx "$SMC_UEID" <<<"$ueids" || fail "the UEID of modprobe.d is not set"
pnet=$("$smcctl" --json pnet show) || fail "smcctl pnet show failed"
log "PNET table: $pnet"
python3 - "$pnet" <<'PY' || fail "the PNET table of $conf did not come back"
import json, sys
rows = json.loads(sys.argv[1])["pnet"]
got = sorted((r["pnetid"], r["netdev"] or "", r["ibdev"] or "") for r in rows)
want = [("NET1", "", "rxe0"), ("NET1", "eth0", "")]
sys.exit(0 if got == want else 1)
PY

# check_server PORT TAG: one connection accepted over AF_SMC must be SMC-R
check_server() {
	local rc

	run_bg "check-$2" "$smcctl" check --server -t 120 "$1"
	wait_file_line "$RESULTS/check-$2.log" 'listening on port' 30 ||
		fail "smcctl check --server does not listen"
	barrier "listening-$2"
	wait_bg "$BG_PID" 150
	rc=$?
	cat "$RESULTS/check-$2.log"
	[ "$rc" -eq 0 ] || fail "$2: the connection the server took is not SMC-R (exit $rc)"
}

if [ "$VM_INDEX" -eq 0 ]; then
	check_server 5440 smcctl
	check_server 5441 unit
else
	barrier listening-smcctl
	"$smcctl" check -t 60 "$VM_IP_0:5440" >"$RESULTS/check-client.log" 2>&1
	rc=$?
	cat "$RESULTS/check-client.log"
	[ "$rc" -eq 0 ] || fail "the connection is not SMC-R (exit $rc)"

	# the service's start after the reboot, as systemd makes it
	[ -f "$dropin" ] || fail "the drop-in $dropin did not survive the reboot"
	rc=0
	"$smc_bpf" status >"$RESULTS/bpf-status-before.log" 2>&1 || rc=$?
	[ "$rc" -eq 1 ] || fail "smc_bpf status before the service started: exit $rc, want 1 (not attached)"
	mkdir -p "$ucg" || fail "cannot make the service's cgroup"
	unit_start_pre "$dropin" "$ucg" || fail "the drop-in's ExecStartPre failed"
	"$smc_bpf" status >"$RESULTS/bpf-status-after.log" 2>&1 ||
		fail "smc_bpf status after the service started: exit $? ($(cat "$RESULTS/bpf-status-after.log"))"
	cat "$RESULTS/bpf-status-after.log"
	# the service: a plain TCP client, made SMC by the policy
	barrier listening-unit
	"${INCG[@]}" "$ucg" python3 -c '
import socket, sys
s = socket.create_connection((sys.argv[1], 5441), timeout=30)
print("SO_PROTOCOL", s.getsockopt(socket.SOL_SOCKET, socket.SO_PROTOCOL))
s.close()' "$VM_IP_0" >"$RESULTS/unit-client.log" 2>&1 ||
		fail "the service's TCP client failed: $(cat "$RESULTS/unit-client.log")"
	cat "$RESULTS/unit-client.log"
	grep -qx 'SO_PROTOCOL 256' "$RESULTS/unit-client.log" ||
		fail "the service's TCP socket is not IPPROTO_SMC (256)"
fi
barrier checked
log "boot 2: UEID, PNET table, tools and the service's policy back; SMC-R between the VMs"
