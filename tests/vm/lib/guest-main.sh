#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of a harness VM after switch_root into the host's (read-only) root.
# Sets up eth0 and rxe0, loads the SMC implementation picked for this VM,
# runs the scenario with a hard timeout, stores exit code, output and dmesg
# in the VM's results folder on the share, and powers the VM off.

set -uo pipefail

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C LC_ALL=C TERM=dumb

# The power-off tears down the 9p share this script and the binaries come
# from: start the waits first and then only use builtins, so PID 1 needs
# nothing from the share once the shutdown has begun.  A power-off still
# under way after 6 s (times VM_SLOW) is stalled: the console then gets the
# blocked tasks (sysrq w, at a loglevel that prints them) and vmtest, which
# fails a VM that has not powered off 10 s after its done mark, keeps them.
poweroff_now() {
	local pid dump

	sleep 60 &
	pid=$!
	sleep $((6 * ${VM_SLOW:-1})) &
	dump=$!
	sync
	echo o >/proc/sysrq-trigger
	wait "$dump"
	echo "smcvm: power-off stalled, blocked tasks follow" >/dev/console
	echo 8 >/proc/sys/kernel/printk
	echo w >/proc/sysrq-trigger
	wait "$pid"
	while :; do wait; done
}

idx=""
kmods=""
kroot=""
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	smcvm_index=*) idx="${arg#smcvm_index=}" ;;
	smcvm_kmods=*) kmods="${arg#smcvm_kmods=}" ;;
	smcvm_kroot=*) kroot="${arg#smcvm_kroot=}" ;;
	esac
done

# kmount TAG DIR: vmtest's 9p export TAG at DIR (made where the root is a
# tmpfs: /tmp, /run, /var/tmp)
kmount() {
	mkdir -p "$2" && mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000 "$1" "$2"
}

# The kernel's own folder (vmtest: every kernel but one installed on the
# host, KVER=) at its own path, and the headers unpacked next to it (a
# line of the kernel cache), where its lib/modules/KREL/build points.  Its
# lib/modules (with modules.builtin, which modprobe needs for what is
# built in) replaces the host's: where /lib/modules lies in /usr (merged
# /usr) and nothing is mounted below /usr, as a layer over /usr, so that
# an overlay a scenario puts over /usr has it too (deb.sh: DKMS installs
# into it, as on a user's system); else mounted on /lib/modules.
if [ -n "$kmods" ]; then
	if ! kmount kmods "$kmods" || { [ -n "$kroot" ] && ! kmount kroot "$kroot"; }; then
		echo "smcvm: mounting the kernel's folder failed" >/dev/console
		poweroff_now
	fi
	if [ "$(readlink -f /lib/modules)" = /usr/lib/modules ] &&
	   ! awk '$2 ~ "^/usr/" { f = 1 } END { exit !f }' /proc/mounts &&
	   modprobe -d "$kmods" overlay 2>/dev/null &&
	   mount -t overlay overlay -o "lowerdir=$kmods:/usr" /usr; then
		:
	elif ! mount --bind "$kmods/lib/modules" /lib/modules; then
		echo "smcvm: mounting the kernel's modules failed" >/dev/console
		poweroff_now
	fi
fi
conf="/run/smcvm/vm$idx.env"
if [ -z "$idx" ] || [ ! -r "$conf" ]; then
	echo "smcvm: no VM index or no $conf" >/dev/console
	poweroff_now
fi
# shellcheck source=/dev/null
. "$conf"
export VM_INDEX VM_COUNT VM_IP PEER_IPS VM_IMPLS SMC_IMPL SMC_HOOKS SMC_KO SHARED REPO RESULTS \
	SCENARIO SCENARIO_TIMEOUT VM_TOOLS SMC_UEID BARRIER_TIMEOUT VM_SLOW
for ((i = 0; i < VM_COUNT; i++)); do
	export "VM_IP_$i"
done
for v in $(compgen -v | grep -E '^SMCR_' || true); do
	export "$v"
done

mkdir -p "$RESULTS"
exec 3>/dev/console
setup_log="$RESULTS/setup.log"

log_setup() {
	echo "vm$VM_INDEX: $*" >&3
	echo "$*" >>"$setup_log"
}

# A kernel with kmemleak (the debug kernel): two scans (an object is
# reported only when unreferenced in two scans and older than 5 s), the
# suspected leaks into $RESULTS/kmemleak; vmtest judges them.
kmemleak_scan() {
	local f=/sys/kernel/debug/kmemleak

	grep -q ' /sys/kernel/debug ' /proc/mounts ||
		mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	[ -w $f ] || return 0
	log_setup "kmemleak: scanning"
	echo scan >$f 2>/dev/null || return 0
	sleep 6
	echo scan >$f 2>/dev/null || return 0
	cat $f >"$RESULTS/kmemleak" 2>&1
	log_setup "kmemleak: $(grep -c '^unreferenced object' "$RESULTS/kmemleak") suspected leaks"
}

finish() {
	local rc=$1

	kmemleak_scan
	[ -z "${SMCR_VM_TRACE:-}" ] ||
		cat /sys/kernel/tracing/trace >"$RESULTS/trace.txt" 2>&1
	echo "$rc" >"$RESULTS/exit_code"
	if [ "$rc" -ne 0 ]; then
		: >"$SHARED/.abort.vm$VM_INDEX"
	fi
	dmesg >"$RESULTS/dmesg" 2>&1
	: >"$RESULTS/done"
	log_setup "scenario exit code $rc, powering off"
	poweroff_now
}

# smc_identity: the smc module now loaded is the one SMC_IMPL asks for.
# Where the VMs see a /lib/modules that `make dkms-install` went into (the
# host's, KVER=; dkms.sh's overlay), modprobe finds our smc.ko in
# updates/dkms before the kernel's own, a "dist" VM would run ours, and
# every interop test would compare ours with ours.  ours (and hooks): the loaded module has the srcversion of
# $SMC_KO.  dist: it has the srcversion of the package's
# kernel/net/smc/smc.ko* (none: in-tree modules have no version, ours has
# one), is not out of tree (taint O), and modprobe resolves smc to that
# file.  none: no smc module.
smc_identity() {
	local have want path taint

	have=$(cat /sys/module/smc/srcversion 2>/dev/null)
	case "$SMC_IMPL" in
	ours)
		want=$(modinfo -F srcversion "$SMC_KO")
		if [ -z "$want" ] || [ "$have" != "$want" ]; then
			log_setup "the loaded smc is not $SMC_KO: srcversion '${have:-none}', want '${want:-none}'"
			return 1
		fi
		log_setup "smc is $SMC_KO (srcversion $have)"
		;;
	dist)
		path=$(modinfo -n smc 2>/dev/null)
		want=$(modinfo -F srcversion "$path" 2>/dev/null)
		taint=$(cat /sys/module/smc/taint 2>/dev/null)
		if [ ! -d /sys/module/smc ] || [ "$have" != "$want" ] || [[ $taint == *O* ]]; then
			log_setup "the loaded smc is not the distribution's: srcversion '${have:-none}', taint '$taint' (an out-of-tree module: ours?); modprobe smc finds ${path:-nothing} (srcversion '${want:-none}')"
			return 1
		fi
		case "$path" in
		/lib/modules/"$(uname -r)"/kernel/net/smc/smc.ko*) ;;
		*)
			log_setup "modprobe smc finds ${path:-nothing}, not the distribution's kernel/net/smc/smc.ko (ours installed through DKMS?)"
			return 1
			;;
		esac
		log_setup "smc is the distribution's $path (srcversion '${have:-none}', taint '$taint')"
		;;
	none)
		if [ -d /sys/module/smc ]; then
			log_setup "impl none, but an smc module is loaded (srcversion '${have:-none}')"
			return 1
		fi
		;;
	esac
	return 0
}

setup() {
	local mod dep

	hostname "vm$VM_INDEX"
	ip link set lo up || return 1
	modprobe -a virtio_net ib_core ib_uverbs rdma_rxe || return 1
	for _ in $(seq 50); do
		[ -e /sys/class/net/eth0 ] && break
		sleep 0.1
	done
	ip addr add "$VM_IP/24" dev eth0 || return 1
	ip link set eth0 up || return 1
	# the RDMA devices on eth0 (vmtest --rdma): Soft-RoCE, Soft-iWARP
	case ",${SMC_RDMA:-rxe}," in
	*,rxe,*) rdma link add rxe0 type rxe netdev eth0 || return 1 ;;
	esac
	case ",${SMC_RDMA:-rxe}," in
	*,siw,*)
		[ -r "$SIW_KO" ] || { log_setup "no siw.ko at '$SIW_KO'"; return 1; }
		# siw's own dependencies, and the iWARP connection manager
		# that rdma_cm reaches it through
		for dep in $(modinfo -F depends "$SIW_KO" | tr ',' ' ') iw_cm rdma_cm; do
			modprobe "$dep" || return 1
		done
		insmod "$SIW_KO" || return 1
		rdma link add siw0 type siw netdev eth0 || return 1
		;;
	esac

	case "$SMC_IMPL" in
	ours)
		[ -r "$SMC_KO" ] || { log_setup "no module at $SMC_KO"; return 1; }
		# Load what our module depends on from the distribution tree.
		for dep in $(modinfo -F depends "$SMC_KO" | tr ',' ' '); do
			modprobe "$dep" || return 1
		done
		# The same UEID as the distribution's module gets below: SMC-R v2
		# needs one, and the module parameter is how ours takes it at load.
		insmod "$SMC_KO" ueid="$SMC_UEID" || return 1
		smc_vm_knobs || return 1
		;;
	dist)
		modprobe smc || return 1
		modprobe smc_diag 2>/dev/null || true
		"$VM_TOOLS/ueid" add "$SMC_UEID" || return 1
		;;
	none) ;;
	*)
		log_setup "unknown SMC_IMPL '$SMC_IMPL'"
		return 1
		;;
	esac
	smc_identity || return 1
	# by hand: trace events for the whole run, SMCR_VM_TRACE="smc/x ...",
	# read into $RESULTS/trace.txt at the end
	if [ -n "${SMCR_VM_TRACE:-}" ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
		echo 16384 >/sys/kernel/tracing/buffer_size_kb
		for ev in $SMCR_VM_TRACE; do
			echo 1 >"/sys/kernel/tracing/events/$ev/enable" || return 1
		done
	fi
	for mod in $(lsmod | awk 'NR > 1 && $1 ~ /smc|rxe|siw/ {print $1}'); do
		log_setup "loaded: $mod"
	done
	return 0
}

# the scenarios' library, which setup uses too (smc_vm_knobs)
# shellcheck source=guest.sh
. "$REPO/tests/vm/lib/guest.sh"

log_setup "booted $(uname -r), impl=$SMC_IMPL ip=$VM_IP"
if ! setup >>"$setup_log" 2>&1; then
	log_setup "setup failed (see setup.log)"
	finish 125
fi

# All VMs are set up before any scenario starts.
# Ours on a kernel whose TCP has no SMC option (Debian's 7.3): smc_tcpopt
# attached, as tools/smc_tcpopt's modprobe.d file does on an installed
# system, so that every scenario can reach SMC-R there.  Scenarios unload
# smc with smc_rmmod, which detaches it first.
tcpopt_setup() {
	local tcpopt

	[ "$SMC_IMPL" = ours ] && ! tcp_has_smc_option || return 0
	tcpopt=$(smc_tcpopt_path) || {
		log_setup "cannot find or build smc_tcpopt"
		return 1
	}
	"$tcpopt" attach || return 1
	log_setup "TCP has no SMC option: smc_tcpopt attached"
}
if ! tcpopt_setup >>"$setup_log" 2>&1; then
	log_setup "smc_tcpopt attach failed (see setup.log)"
	finish 125
fi
if ! (barrier harness-setup) >>"$setup_log" 2>&1; then
	log_setup "setup barrier failed"
	finish 124
fi

log_setup "running $SCENARIO (timeout ${SCENARIO_TIMEOUT}s)"
cd /tmp || finish 125
timeout -k 5 "$SCENARIO_TIMEOUT" bash "$SCENARIO" \
	>"$RESULTS/stdout" 2>"$RESULTS/stderr" </dev/null
rc=$?
[ "$rc" -eq 124 ] && echo "scenario timed out after ${SCENARIO_TIMEOUT}s" >>"$RESULTS/stderr"
finish "$rc"
