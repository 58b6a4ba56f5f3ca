#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DKMS install and uninstall, as `make dkms-install` / `make dkms-uninstall`
# do them, on a VM (impl none: nothing loaded yet).  The module is the one
# tests/dkms/build built on the host through DKMS (build/dkms/); here dkms
# installs it for the running kernel, over a writable overlay of
# /lib/modules (the root file system is the host's, read-only).  Then:
#   - modprobe smc loads ours (updates/dkms, version as in dkms.conf) and
#     AF_SMC sockets come from it;
#   - dkms remove takes it out again and modprobe smc loads the
#     distribution's smc.ko.
set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$SMC_IMPL" = none ] || fail "dkms.sh installs the module itself: start it with impl none"
command -v dkms >/dev/null || fail "dkms is not installed (tests/setup.sh)"
B=$REPO/build/dkms
[ -f "$B/kver" ] || fail "no DKMS build in $B: run tests/dkms/build on the host first"
K=$(uname -r)
[ "$(cat "$B/kver")" = "$K" ] || fail "the DKMS build is for $(cat "$B/kver"), this is $K"
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"$/\1/p' "$REPO/dkms.conf")
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$REPO/dkms.conf")

# dkms uses <(...), which needs /dev/fd (the VM's devtmpfs lacks it)
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# writable /lib/modules and a DKMS tree of our own
modprobe overlay 2>/dev/null || true
mkdir -p /tmp/lm-up /tmp/lm-work
mount -t overlay overlay -o lowerdir=/lib/modules,upperdir=/tmp/lm-up,workdir=/tmp/lm-work /lib/modules ||
	fail "cannot overlay /lib/modules"
cp -a "$B/tree" /tmp/dkms-tree
d=(--sourcetree "$B/src" --dkmstree /tmp/dkms-tree -m "$name" -v "$ver")

dkms status --dkmstree /tmp/dkms-tree | tee "$RESULTS/status-before.log"
grep -q "$name/$ver, $K, .*: built" "$RESULTS/status-before.log" ||
	fail "the host's DKMS build is not 'built' here: $(cat "$RESULTS/status-before.log")"
dkms install "${d[@]}" -k "$K" >"$RESULTS/install.log" 2>&1 ||
	fail "dkms install failed: $(grep -v readelf "$RESULTS/install.log" | tail -n 5)"
path=$(modinfo -n smc)
log "after dkms install: modprobe smc finds $path"
case $path in */updates/*) ;; *) fail "modprobe smc would load $path, not DKMS's" ;; esac

modprobe smc || fail "modprobe smc failed after dkms install"
got=$(cat /sys/module/smc/version 2>/dev/null || echo none)
[ "$got" = "$ver" ] || fail "loaded smc has version '$got', want '$ver' (ours)"
python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256).close()' ||
	fail "no IPPROTO_SMC socket from the DKMS module"
log "ours loaded through modprobe: version $got, taint $(cat /proc/sys/kernel/tainted)"
rmmod smc || fail "cannot unload the DKMS module"

dkms remove "${d[@]}" --all >"$RESULTS/remove.log" 2>&1 ||
	fail "dkms remove failed: $(grep -v readelf "$RESULTS/remove.log" | tail -n 5)"
path=$(modinfo -n smc)
log "after dkms remove: modprobe smc finds $path"
case $path in */kernel/net/smc/*) ;; *) fail "modprobe smc would load $path, not the in-tree module" ;; esac
modprobe smc || fail "modprobe smc (in-tree) failed after dkms remove"
[ ! -e /sys/module/smc/version ] ||
	fail "after dkms remove the loaded smc has version $(cat /sys/module/smc/version)"
rmmod smc_diag 2>/dev/null || true
rmmod smc || fail "cannot unload the in-tree module"
log "dkms ok"
