#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module DKMS rebuilt during a kernel upgrade, at work on the new
# kernel: the second half of tests/dkms/upgrade, which boots two VMs (impl
# none) on Debian's 7.3 with that module in /lib/modules/KREL/updates/dkms,
# where DKMS put it on the upgraded system.  On each VM:
#   - modprobe smc, with tools/smc_tcpopt's modprobe.d file as `make -C
#     tools/smc_tcpopt install` writes it (7.3's TCP has no SMC option:
#     that file attaches smc_tcpopt after the module), loads the DKMS
#     module: modprobe resolves smc to updates/dkms, the loaded module has
#     that file's srcversion and dkms.conf's version; smc_tcpopt attached;
#   - an SMC-R echo between the VMs, asserting SMC-R (smcr_load_test);
#   - modprobe -r smc through the same file: detached, unloaded.
set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$SMC_IMPL" = none ] || fail "dkms-upgrade.sh loads the module itself: start it with impl none"
[ "$VM_COUNT" -eq 2 ] || fail "dkms-upgrade.sh needs exactly two VMs"
K=$(uname -r)
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$REPO/dkms.conf")
[ -n "$ver" ] || fail "no PACKAGE_VERSION in $REPO/dkms.conf"

path=$(modinfo -n smc) || fail "modinfo finds no smc on $K"
log "modprobe smc finds $path"
case $path in
/lib/modules/"$K"/updates/dkms/smc.ko*) ;;
*) fail "modprobe smc would load $path, not the DKMS module (/lib/modules/$K/updates/dkms)" ;;
esac
want_src=$(modinfo -F srcversion "$path")
! tcp_has_smc_option || fail "$K's TCP has an SMC option of its own: not Debian's 7.3?"

# The modprobe.d file of smc_tcpopt as its make install writes it
# (/etc is read-only here: modprobe -C reads it from /tmp instead).
TCPOPT=$(smc_tcpopt_path) || fail "cannot find or build smc_tcpopt"
conf=/tmp/modprobe.d
mkdir -p "$conf"
sed "s|@SMC_TCPOPT@|$TCPOPT|g" "$REPO/tools/smc_tcpopt/smc_tcpopt.conf.in" >"$conf/smc_tcpopt.conf"
# SMC-R v2 needs a UEID on both hosts; ours takes it at load.
modprobe -C "$conf" smc ueid="$SMC_UEID" >"$RESULTS/modprobe.log" 2>&1 ||
	fail "modprobe smc failed: $(cat "$RESULTS/modprobe.log")"
got=$(cat /sys/module/smc/version 2>/dev/null || echo none)
[ "$got" = "$ver" ] || fail "the loaded smc has version '$got', want dkms.conf's '$ver'"
have_src=$(cat /sys/module/smc/srcversion 2>/dev/null || echo none)
[ "$have_src" = "$want_src" ] ||
	fail "the loaded smc has srcversion '$have_src', not that of $path ('$want_src')"
[ -e /sys/fs/bpf/smc_tcpopt/link ] || fail "modprobe smc did not attach smc_tcpopt: $(cat "$RESULTS/modprobe.log")"
"$TCPOPT" status >"$RESULTS/tcpopt-status.log" 2>&1 ||
	fail "smc_tcpopt status: $(cat "$RESULTS/tcpopt-status.log")"
log "DKMS module loaded on $K: $path, version $got, srcversion $have_src, taint $(cat /sys/module/smc/taint); smc_tcpopt attached"

# The harness's SMC-R checks, for ours on both VMs.
SMC_IMPL=ours
# shellcheck disable=SC2034 # read by smcr_expect_path (guest.sh)
VM_IMPLS="ours ours"
smcr_load_test dkms-upgrade echo 4 1048576 120

# Unload as modprobe.d says: detach, then smc goes (retried while the
# link group still holds the module; the file attaches again meanwhile).
for _ in $(seq 120); do
	modprobe -C "$conf" -r smc >"$RESULTS/modprobe-r.log" 2>&1 && break
	nap 0.5
done
! grep -q '^smc ' /proc/modules || fail "modprobe -r smc: $(cat "$RESULTS/modprobe-r.log")"
[ ! -e /sys/fs/bpf/smc_tcpopt/link ] || fail "smc_tcpopt still attached after modprobe -r smc"
barrier unloaded
log "dkms-upgrade ok"
