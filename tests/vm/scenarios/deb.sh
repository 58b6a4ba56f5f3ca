#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages of `make deb` (build/deb/: run tests/deb/check or
# make deb on the host first) on two clean VMs (impl none: the harness
# loads no SMC module).  In each VM:
#   1. writable overlays (tmpfs) over /usr, /etc, /var/lib, /var/cache and
#      /var/log, since the root is the host's, read-only; then the list of
#      everything under /usr, /etc and /lib (files-before.gz; /lib is a
#      symlink into /usr on a merged-/usr system and then not walked twice);
#   2. apt-get install of smc-r-dkms and smc-r-tools from their .deb files
#      (offline: their dependencies are the host's installed packages; no
#      Recommends): smc-r-dkms's postinst has DKMS build and install the
#      module for the running kernel, in the VM, as on a user's machine;
#      dkms status says installed, and modprobe resolves smc to
#      /lib/modules/KREL/updates/dkms (install.log; files-added: what
#      the overlays gained under /usr and /etc, the tools and sources
#      among them, and nothing taken away);
#   3. modprobe smc, through smc-r-tools' modprobe.d file (which runs
#      smc_tcpopt attach: nothing to do on 6.12), loads that module:
#      dkms.conf's version, that file's srcversion;
#   4. SMC-R between the two VMs with it (smcr_load_test: 4 connections x
#      1 MiB echo, SMC-R v2, no fallback, RDMA counters), read with the
#      packaged smcctl;
#   5. modprobe -r smc (smc_tcpopt detach, then the module goes), apt-get
#      purge of both packages: modprobe resolves smc to the kernel's own
#      smc.ko again, DKMS knows no smc-r;
#   6. the list again (files-after.gz): it must equal files-before
#      (files-diff: what differs; no file of ours may remain, nothing of
#      the system may be gone; a path that differs but is not in the
#      overlays changed in the host's root meanwhile, and is only
#      logged).  What dpkg and apt change legitimately
#      (their databases, caches and logs) is under /var, outside the
#      lists; /var/lib/dkms keeps DKMS's own signing key (mok.key,
#      mok.pub), made on its first build and shared by every DKMS module
#      (dkms-after lists what is left there).  overlay-upper-after lists
#      what the overlays hold at the end (files rewritten in place, such
#      as depmod's indexes, and whiteouts), for the record.
# Each step's time is logged.  12 to 15 minutes under emulation (2 cores,
# no KVM): the first list 1.5 to 2, the install 8.5 to 10 (DKMS builds
# the module, then depmod), the purge 1 to 1.5 (depmod again), the last
# list 0.7.
set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$SMC_IMPL" = none ] || fail "deb.sh installs the module itself: start it with impl none"
[ "$VM_COUNT" -eq 2 ] || fail "deb.sh needs exactly two VMs"
K=$(uname -r)
name=$(make -s --no-print-directory -C "$REPO" dkms-name)
ver=$(make -s --no-print-directory -C "$REPO" dkms-version)
arch=$(dpkg --print-architecture)
if [ -z "$name" ] || [ -z "$ver" ]; then
	fail "no name or version from make dkms-name / dkms-version"
fi
debs=("$REPO/build/deb/$name-dkms_${ver}_all.deb" "$REPO/build/deb/$name-tools_${ver}_$arch.deb")
for d in "${debs[@]}"; do
	[ -f "$d" ] || fail "no $d: run make deb (or tests/deb/check) on the host first"
done
pkgs=("$name-dkms" "$name-tools")

# step NAME: log the time since the last step
t_step=$SECONDS
step() {
	log "$1 ($((SECONDS - t_step)) s)"
	t_step=$SECONDS
}

# installed PKG: dpkg has PKG installed (or half so)
installed() {
	local st

	# shellcheck disable=SC2016 # dpkg-query's format
	st=$(dpkg-query -W -f '${db:Status-Abbrev}' "$1" 2>/dev/null) || return 1
	[[ $st != [up]n* ]]
}

# list_files OUT: every path under /usr, /etc and /lib with its type, sorted
list_files() {
	local d roots=()

	for d in /usr /etc /lib; do
		[ -L "$d" ] || roots+=("$d")
	done
	find "${roots[@]}" -printf '%y %p\n' | sort >"$1"
}

# upper_list OUT: what the overlays of step 1 hold (written, created or,
# as whiteouts of type c, deleted since), as paths of the system, sorted
upper_list() {
	local d

	for d in "${OVERLAID[@]}"; do
		(cd "/tmp/ovl${d//\//-}/upper" && find . -mindepth 1 -printf "%y $d/%P\n")
	done | sort >"$1"
}
OVERLAID=(/usr /etc /var/lib /var/cache /var/log)

# A clean system: nothing of ours installed or loaded.
! grep -q '^smc ' /proc/modules || fail "an smc module is loaded before the packages are installed"
for p in "${pkgs[@]}"; do
	! installed "$p" || fail "$p is installed on the host: not a clean system"
done
[ ! -e "/usr/src/$name-$ver" ] || fail "/usr/src/$name-$ver exists on the host: not a clean system"
[ ! -e "/var/lib/dkms/$name" ] || fail "DKMS knows $name on the host: not a clean system"
inkernel=$(modinfo -n smc) || fail "modinfo finds no smc on $K"
case $inkernel in
*/kernel/net/smc/smc.ko*) ;;
*) fail "before the packages, modprobe smc would load $inkernel, not the kernel's own" ;;
esac

# 1. A writable system, and what is on it.
# dkms uses <(...), which needs /dev/fd (the VM's devtmpfs lacks it)
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
modprobe overlay 2>/dev/null || true
for d in "${OVERLAID[@]}"; do
	o=/tmp/ovl${d//\//-}
	mkdir -p "$o/upper" "$o/work"
	mount -t overlay overlay -o "lowerdir=$d,upperdir=$o/upper,workdir=$o/work" "$d" ||
		fail "cannot put an overlay over $d"
done
list_files /tmp/files-before
gzip -c /tmp/files-before >"$RESULTS/files-before.gz"
step "overlays over /usr /etc /var/{lib,cache,log}; $(wc -l </tmp/files-before) paths under /usr /etc /lib"

# 2. Install, as a user would from the files.
mkdir -p /tmp/debs
cp "${debs[@]}" /tmp/debs/
chmod 644 /tmp/debs/*.deb
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends -o Dpkg::Use-Pty=0 /tmp/debs/*.deb \
	>"$RESULTS/install.log" 2>&1; then
	grep -v '^$' "$RESULTS/install.log" | tail -n 15 >&2
	f=/var/lib/dkms/$name/$ver/build/make.log
	if [ -f "$f" ]; then
		cp "$f" "$RESULTS/dkms-make.log"
		tail -n 20 "$f" >&2
	fi
	fail "apt-get install of ${pkgs[*]} failed (install.log)"
fi
step "apt-get install ${pkgs[*]}: $(grep -E 'Building|Skipped|Done|Installing' "$RESULTS/install.log" | tr '\n' ' ')"
for p in "${pkgs[@]}"; do
	# shellcheck disable=SC2016 # dpkg-query's format
	st=$(dpkg-query -W -f '${db:Status-Abbrev} ${Version}' "$p")
	[ "$st" = "ii  $ver" ] || fail "$p after apt-get install: '$st', want 'ii  $ver'"
done
dkms status -m "$name" -v "$ver" -k "$K" >"$RESULTS/dkms-status.log" 2>&1 || true
grep -q "^$name/$ver, $K, [^:]*: installed" "$RESULTS/dkms-status.log" ||
	fail "dkms status does not say $name/$ver installed for $K: $(cat "$RESULTS/dkms-status.log")"
path=$(modinfo -n smc) || fail "modinfo finds no smc after the install"
case $path in
/lib/modules/"$K"/updates/dkms/smc.ko* | /usr/lib/modules/"$K"/updates/dkms/smc.ko*) ;;
*) fail "after the install, modprobe smc would load $path, not DKMS's /lib/modules/$K/updates/dkms/smc.ko*" ;;
esac
mv_=$(modinfo -F version "$path")
[ "$mv_" = "$ver" ] || fail "$path has version '$mv_', not dkms.conf's '$ver'"
# What the install added and took away under /usr and /etc, from the
# overlays (cheaper than another walk: the lower layers do not change):
# paths in them that the first list lacks, and whiteouts.
upper_list /tmp/upper-installed
grep -E '^[^c] /(usr|etc)/' /tmp/upper-installed | comm -13 /tmp/files-before - >"$RESULTS/files-added"
grep -E '^c /(usr|etc)/' /tmp/upper-installed >"$RESULTS/files-removed-by-install" || true
[ ! -s "$RESULTS/files-removed-by-install" ] ||
	fail "installing removed paths: $(head -n 5 "$RESULTS/files-removed-by-install" | tr '\n' ' ')"
for f in /usr/sbin/smcctl /usr/lib/udev/rules.d/90-smc-r.rules /usr/bin/smc_run \
	 /usr/lib/smc-r/libsmc-preload.so /usr/sbin/smc_bpf \
	 /usr/sbin/smc_tcpopt /etc/modprobe.d/smc_tcpopt.conf "/usr/src/$name-$ver/dkms.conf" \
	 "/usr/lib/modules/$K/updates/dkms"; do
	grep -q "^. $f\$" "$RESULTS/files-added" || fail "the install did not add $f"
done
step "installed: $path, $(wc -l <"$RESULTS/files-added") paths added"

# 3. modprobe, as the system loads it.
modprobe smc >"$RESULTS/modprobe.log" 2>&1 || fail "modprobe smc failed: $(cat "$RESULTS/modprobe.log")"
got=$(cat /sys/module/smc/version 2>/dev/null || echo none)
[ "$got" = "$ver" ] || fail "the loaded smc has version '$got', want dkms.conf's '$ver'"
have_src=$(cat /sys/module/smc/srcversion 2>/dev/null || echo none)
want_src=$(modinfo -F srcversion "$path")
[ "$have_src" = "$want_src" ] ||
	fail "the loaded smc has srcversion '$have_src', not that of $path ('$want_src')"
/usr/bin/smc_run -v >"$RESULTS/smc_run-v.log" 2>&1 || fail "smc_run -v: $(cat "$RESULTS/smc_run-v.log")"
step "modprobe smc: $path, version $got, taint $(cat /sys/module/smc/taint); modprobe.d: $(tr '\n' ' ' <"$RESULTS/modprobe.log")"

# 4. SMC-R between the VMs, with the packaged smcctl.
barrier installed 900
smcctl_path() { echo /usr/sbin/smcctl; }
SMC_IMPL=ours
# shellcheck disable=SC2034 # read by smcr_expect_path (guest.sh)
VM_IMPLS="ours ours"
smcr_load_test deb echo 4 1048576 120
step "SMC-R with the packaged module"

# 5. Unload (retried while the link group still holds the module) and
# purge.
for _ in $(seq 120); do
	modprobe -r smc >"$RESULTS/modprobe-r.log" 2>&1 && break
	nap 0.5
done
! grep -q '^smc ' /proc/modules || fail "modprobe -r smc: $(cat "$RESULTS/modprobe-r.log")"
barrier unloaded
step "modprobe -r smc"
if ! apt-get purge -y -o Dpkg::Use-Pty=0 "${pkgs[@]}" >"$RESULTS/purge.log" 2>&1; then
	grep -v '^$' "$RESULTS/purge.log" | tail -n 15 >&2
	fail "apt-get purge ${pkgs[*]} failed (purge.log)"
fi
step "apt-get purge ${pkgs[*]}"
for p in "${pkgs[@]}"; do
	! installed "$p" || fail "$p still known to dpkg after the purge"
done
path=$(modinfo -n smc) || fail "modinfo finds no smc after the purge"
[ "$path" = "$inkernel" ] || fail "after the purge, modprobe smc would load $path, not $inkernel"
find /var/lib/dkms -printf '%y %p\n' 2>/dev/null | sort >"$RESULTS/dkms-after" || true
! grep -q "^. /var/lib/dkms/$name\\(/\\|\$\\)" "$RESULTS/dkms-after" ||
	fail "DKMS still has $name after the purge: $(grep -c "/var/lib/dkms/$name" "$RESULTS/dkms-after") paths"

# 6. The system as before.
list_files /tmp/files-after
gzip -c /tmp/files-after >"$RESULTS/files-after.gz"
diff /tmp/files-before /tmp/files-after >"$RESULTS/files-diff" || true
upper_list "$RESULTS/overlay-upper-after"
step "lists compared: $(wc -l </tmp/files-before) paths before, $(wc -l </tmp/files-after) after"
# A path that differs and is not in the overlays changed in the host's
# root (the lower layer) during the run: not the packages' doing.
bad=() host=()
while read -r side _ p; do
	if awk -v p="$p" '$2 == p { f = 1; exit } END { exit !f }' "$RESULTS/overlay-upper-after"; then
		bad+=("$side $p")
	else
		host+=("$side $p")
	fi
done < <(grep '^[<>]' "$RESULTS/files-diff" || true)
[ "${#host[@]}" -eq 0 ] ||
	log "changed in the host's root meanwhile (not in the overlays, not counted): ${host[*]:0:10}"
[ "${#bad[@]}" -eq 0 ] ||
	fail "purging did not restore /usr /etc /lib: ${#bad[@]} paths differ (< gone, > left): ${bad[*]:0:10}"
barrier finished
log "deb ok: installed, loaded by modprobe from updates/dkms, SMC-R, purged without a trace in /usr /etc /lib"
