#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DKMS install and uninstall, as `make dkms-install` / `make dkms-uninstall`
# do them, on a VM (impl none: nothing loaded yet).  The module is the one
# tests/dkms/build built on the host through DKMS for the running kernel
# (build/dkms/ for the host's 6.12, build/dkms-6.1/ after `tests/dkms/build
# 6.1` for vmtest --kernel 6.1); here dkms installs it, over a writable overlay of
# /lib/modules (the root file system is the host's, read-only).  Then:
#   - modprobe smc loads ours (updates/dkms, version as in dkms.conf) and
#     AF_SMC sockets (and IPPROTO_SMC ones, 6.11+) come from it;
#   - dkms remove takes it out again and modprobe smc loads the
#     distribution's smc.ko.
set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$SMC_IMPL" = none ] || fail "dkms.sh installs the module itself: start it with impl none"
command -v dkms >/dev/null || fail "dkms is not installed (tests/setup.sh)"
K=$(uname -r)
# The build for this kernel: each tests/dkms/build output names its kernel.
B=""
for f in "$REPO"/build/dkms/kver "$REPO"/build/dkms-*/kver; do
	[ -f "$f" ] && [ "$(cat "$f")" = "$K" ] || continue
	B=${f%/kver}
	break
done
[ -n "$B" ] || fail "no DKMS build for $K in $REPO/build/dkms*/: run tests/dkms/build [LINE] on the host first"
log "the DKMS build for $K: $B"
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
python3 -c 'import socket; socket.socket(43, socket.SOCK_STREAM, 0).close()' ||
	fail "no AF_SMC socket from the DKMS module"
# IPPROTO_SMC sockets exist from 6.11 on (not on 6.1)
if [ "$(printf '%s\n' 6.11 "$K" | sort -V | head -n 1)" = 6.11 ]; then
	python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256).close()' ||
		fail "no IPPROTO_SMC socket from the DKMS module"
fi
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
