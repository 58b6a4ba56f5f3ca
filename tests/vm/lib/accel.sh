# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # accel, accel_why: for vmtest; qemu_*: vmtest's
#
# What tests/vm/vmtest runs its VMs on: KVM when this host can run them
# there, else QEMU's software emulation (TCG).  Source this file; it uses
# qemu_bin (the qemu-system-x86_64 to run) and qemu_opts (the options
# every QEMU of the run gets, -L ...), as vmtest sets them.
# tests/lib/accel-test checks the choice with a fake QEMU and fake devices.

# vm_accel DEV KERNEL CPU CACHE: set accel to "kvm" or "tcg" and accel_why
# to the reason.  SMC_VM_ACCEL=kvm or =tcg decides alone.  Otherwise KVM
# when DEV (/dev/kvm) is a character device this user can read and write
# and KERNEL, booted by QEMU under KVM with -cpu CPU (empty: QEMU's
# default model), gets as far as its panic for want of a root file
# system (a second or two; -no-reboot then ends QEMU).  The device alone
# proves little: on a nested host without virtualisation extensions
# /dev/kvm opens, QEMU starts, and KVM stops the guest at its first
# instruction it cannot emulate ("KVM internal error", seen on the
# project's own machines).  The probe's verdict is kept in CACHE, per
# boot of the host, QEMU binary, CPU model and KERNEL; its console in
# CACHE/accel-KEY.log.
vm_accel() {
	local dev=$1 kernel=$2 cpu=$3 cache=$4 key f

	accel=tcg
	case "${SMC_VM_ACCEL:-auto}" in
	kvm|tcg)
		accel=$SMC_VM_ACCEL
		accel_why="SMC_VM_ACCEL=$SMC_VM_ACCEL"
		return 0 ;;
	auto) ;;
	*)
		accel_why="SMC_VM_ACCEL=$SMC_VM_ACCEL is not kvm, tcg or auto"
		return 1 ;;
	esac
	if [ ! -c "$dev" ]; then
		accel_why="no $dev"
		return 0
	fi
	if [ ! -r "$dev" ] || [ ! -w "$dev" ]; then
		accel_why="$dev is not readable and writable for $(id -un)"
		return 0
	fi
	key=$({ cat /proc/sys/kernel/random/boot_id 2>/dev/null
		f=$(command -v "$qemu_bin") && stat -L -c '%n %s %Y' "$f"
		echo "${qemu_opts[*]:-} cpu=$cpu"
		stat -L -c '%n %s %Y' "$kernel"; } 2>/dev/null | sha256sum | cut -c1-12)
	f=$cache/accel-$key
	if [ ! -s "$f" ]; then
		mkdir -p "$cache"
		# (2>/dev/null: bash's note of a QEMU that aborted)
		if kvm_boots "$kernel" "$cpu" "$f.log" 2>/dev/null; then
			echo kvm >"$f.tmp.$$"
		else
			echo tcg >"$f.tmp.$$"
		fi
		mv -f "$f.tmp.$$" "$f"
	fi
	if [ "$(cat "$f")" = kvm ]; then
		accel=kvm
		accel_why="$dev boots $kernel"
	else
		accel_why="$dev is there, but $kernel does not boot under it ($(kvm_failure "$f.log"))"
	fi
	return 0
}

# kvm_boots KERNEL CPU LOG: KERNEL, booted under KVM without a root file
# system, reaches its "Kernel panic" within SMC_KVM_PROBE_SECS (30); its
# console (and QEMU's messages) in LOG.  A guest KVM gave up on is over at
# once (QEMU keeps it, stopped, and says so).
kvm_boots() {
	local kernel=$1 cpu=$2 log=$3 pid end=$((SECONDS + ${SMC_KVM_PROBE_SECS:-30}))

	"$qemu_bin" ${qemu_opts[@]+"${qemu_opts[@]}"} -accel kvm ${cpu:+-cpu "$cpu"} \
		-m 256 -nographic -no-reboot -kernel "$kernel" \
		-append "console=ttyS0 quiet panic=-1" </dev/null >"$log" 2>&1 &
	pid=$!
	while [ "$SECONDS" -lt "$end" ]; do
		kill -0 "$pid" 2>/dev/null || break
		! grep -q 'KVM internal error\|Kernel panic - not syncing' "$log" || break
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	grep -q 'Kernel panic - not syncing' "$log"
}

# kvm_failure LOG: why the probe of LOG failed, in a few words
kvm_failure() {
	local l

	l=$(grep -m1 -o 'KVM internal error.*' "$1" 2>/dev/null) ||
		l=$(grep -m1 -i 'error' "$1" 2>/dev/null) ||
		l=$(grep -m1 'qemu-system' "$1" 2>/dev/null) ||
		l="no kernel panic within ${SMC_KVM_PROBE_SECS:-30} s"
	printf '%.120s' "$(tr -cd '[:print:]' <<<"$l")"
}
