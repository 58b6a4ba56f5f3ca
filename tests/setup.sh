#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the build, the VM harness and the tests need on Debian 12
# (bookworm) or Debian 13 (trixie), leaving the machine's own kernel and
# boot alone:
#   - packages, with apt-get: build tools, QEMU, busybox, rdma-core, the
#     programs the scenarios run, and linux-source-6.12 (a source tarball
#     in /usr/src, for the KUnit and debug kernels); on Debian 12 the
#     bookworm-backports suite is added first (Linux 6.12 is Debian 13's
#     own kernel; Debian 12 has it in bookworm-security and -backports);
#   - Debian's kernels, unpacked into /var/tmp/smc-kernels by
#     tests/kernels/fetch, never installed: 6.12 (image, headers, kbuild:
#     `make` builds against those headers, tests/vm/vmtest boots that
#     image), then the other lines the module is built and booted for, 6.1
#     and 7.3 (SMC_SETUP_KERNELS="" leaves those two out);
#   - Soft-iWARP, which Debian does not build: siw.ko compiled from a
#     line's linux-source (6.12: the tarball above; 6.1, 7.3: only the siw
#     folder of bookworm's and trixie-backports' package, downloaded)
#     against its headers, into the same cache (tests/kernels/build-siw),
#     for the iWARP scenarios; here for 6.12 (SMC_SETUP_SIW="6.12 6.1 7.3"
#     for all three), the others when vmtest first needs them.
# No linux-image or linux-headers package is installed: /boot, the boot
# loader and /lib/modules stay as they are (a 6.12 image that an earlier
# version of this script installed stays too, unused).  Daemons that come
# with the packages are disabled again (DAEMONS).  Nothing is written into
# the checkout.  Idempotent: with everything present it returns in a
# fraction of a second.
#
#   tests/setup.sh [--dry-run]
#
# --dry-run says what would be done (the release, the suites, the missing
# packages and apt-get's simulation of their installation, the kernels to
# fetch) and changes nothing; it needs no root.  SMC_OS_RELEASE=FILE reads
# another os-release than /etc/os-release (tests/lib/debian.sh).
# On a terminal apt-get shows its progress; in a log (tests/run) each step
# is one line, "setup: [N/M] ...", and apt-get is quiet.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lib/debian.sh
. "$HERE/lib/debian.sh"
FETCH=$HERE/kernels/fetch
SIW=$HERE/kernels/build-siw
KERNELS_CACHE=${SMC_KERNELS_CACHE:-/var/tmp/smc-kernels}

# Raise when the apt part below changes: a machine set up by another
# recipe goes through it again (apt-get update, what is missing).
RECIPE=2
SETUP_STAMP=/var/lib/smc-r-project/setup.stamp
PKGS=(
	build-essential bc bison flex libelf-dev libssl-dev dwarves kmod
	python3 python3-matplotlib xz-utils zstd
	qemu-system-x86 busybox-static cpio iproute2
	rdma-core ibverbs-utils ibverbs-providers perftest
	sparse
	clang libclang-rt-dev libbpf-dev bpftool dkms
	redis-server redis-tools nginx-light wrk iperf3 sockperf
	linux-source-6.12 mmdebstrap
)
# Daemons among PKGS (their systemd units): the app-* scenarios start their
# own instances inside the VMs.  One that this setup brings is disabled and
# stopped; one the machine had before (its unit file existed) is the
# user's and left as it is.
DAEMONS=(redis-server nginx iperf3)
NEW_DAEMONS=()
APT_DPKG=(-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)

dry=0
codename=""
suite=""	# the suite this setup adds to apt's sources (Debian 12)

msg() { echo "setup: $*"; }
die() { echo "setup: error: $*" >&2; exit 1; }

# release: the suites and packages of this Debian release
release() {
	codename=$(debian_codename)
	case "$codename" in
	bookworm)
		suite=bookworm-backports ;;
	trixie)
		# Debian 12's compiler, which 6.1's headers name
		PKGS+=(gcc-12) ;;
	*)
		die "Debian 12 (bookworm) or 13 (trixie) only; ${SMC_OS_RELEASE:-/etc/os-release} names ${codename:-no Debian release}" ;;
	esac
}

# suite_file: the deb822 file that adds $suite, empty when apt knows it
suite_file() {
	[ -n "$suite" ] || return 0
	grep -qs -- "$suite" /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources && return 0
	echo "/etc/apt/sources.list.d/smc-$suite.sources"
}

# suite_sources: the deb822 stanza that adds $suite
suite_sources() {
	cat <<EOT
Types: deb
URIs: $(debian_archive_uri main)
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
}

add_suite() {
	local f

	f=$(suite_file)
	[ -n "$f" ] || return 0
	suite_sources >"$f"
	msg "added $suite to apt's sources ($f)"
}

# missing: the PKGS dpkg does not have installed
missing() {
	local -A have=()
	local p

	while read -r p; do
		have[$p]=1
	done < <(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "${PKGS[@]}" 2>/dev/null |
		awk '$1 == "ii" { print $2 }')
	for p in "${PKGS[@]}"; do
		[ -n "${have[$p]:-}" ] || echo "$p"
	done
}

# apt_done: the apt part of this recipe ran on this release
apt_done() {
	[ "$(cat "$SETUP_STAMP" 2>/dev/null)" = "recipe $RECIPE $codename" ] &&
		compgen -G '/usr/src/linux-source-6.12.tar.*' >/dev/null
}

# no_daemon_start: keep package scripts from starting services during the
# install (invoke-rc.d asks policy-rc.d; 101 = not allowed), unless the
# machine already has such a policy.
POLICY_RC=/usr/sbin/policy-rc.d
OWN_POLICY_RC=0
no_daemon_start() {
	[ -e "$POLICY_RC" ] && return 0
	printf '#!/bin/sh\nexit 101\n' >"$POLICY_RC"
	chmod 755 "$POLICY_RC"
	OWN_POLICY_RC=1
	trap 'rm -f "$POLICY_RC"' EXIT
}

# new_daemons: before the install, note the DAEMONS this machine has no
# unit of (without systemd: none, nothing to disable then)
new_daemons() {
	local d

	command -v systemctl >/dev/null || return 0
	for d in "${DAEMONS[@]}"; do
		systemctl list-unit-files --no-legend "$d.service" 2>/dev/null |
			grep -q . || NEW_DAEMONS+=("$d")
	done
}

# no_daemon_cleanup: drop our policy-rc.d; disable and stop the daemons
# this setup brought, and only those.
no_daemon_cleanup() {
	local d

	[ "$OWN_POLICY_RC" -eq 0 ] || rm -f "$POLICY_RC"
	for d in ${NEW_DAEMONS[@]+"${NEW_DAEMONS[@]}"}; do
		msg "$d came with the packages: disabled (the VMs run their own)"
		systemctl disable --now "$d" >/dev/null 2>&1 || true
	done
}

# apt-get with its progress on a terminal, quiet in a log
apt_get() {
	if [ -t 1 ]; then
		apt-get -o Dpkg::Progress-Fancy=1 "$@"
	else
		apt-get -qq "$@" >/dev/null
	fi
}

# download_mb PKG...: how many MB apt-get would download to install them
download_mb() {
	apt-get install --print-uris -qq --no-install-recommends "$@" 2>/dev/null |
		awk '{ n += $3 } END { printf "%d", n / 1e6 }'
}

# kernel_what LINE: what fetching LINE is, for the step's line
kernel_what() {
	case "$1" in
	6.12) echo "Debian's Linux 6.12 (image, headers: what make builds for and the VMs boot)" ;;
	6.1) echo "Debian's Linux 6.1 (Debian 12's own kernel)" ;;
	7.3) echo "Debian's Linux 7.3 (trixie-backports, headers in a trixie chroot: several minutes)" ;;
	*) echo "Linux $1" ;;
	esac
}

# siw_what LINE: what building LINE's siw.ko is, for the step's line
siw_what() {
	case "$1" in
	6.12) echo "6.12, from linux-source-6.12" ;;
	6.1) echo "6.1, from bookworm's linux-source-6.1 (a 140 MB download, of which the siw folder is kept)" ;;
	7.3) echo "7.3, from trixie-backports' linux-source-7.3 (a 170 MB download, of which the siw folder is kept), in the chroot" ;;
	*) echo "$1" ;;
	esac
}

# krel_612: the release of the cached 6.12
krel_612() {
	local k v

	while IFS='=' read -r k v; do
		[ "$k" != KREL ] || echo "$v"
	done <"$KERNELS_CACHE/6.12/env" 2>/dev/null || true
}

step=0
steps=0
step() {
	step=$((step + 1))
	msg "[$step/$steps] $*"
}

dry_run() {
	local f line
	local -a miss=()

	msg "Debian ${codename} (${SMC_OS_RELEASE:-/etc/os-release}), dry run: nothing is changed"
	f=$(suite_file)
	if [ -n "$f" ]; then
		msg "would add $suite to apt's sources, as $f:"
		suite_sources | sed 's/^/    /'
	elif [ -n "$suite" ]; then
		msg "$suite is among apt's sources already"
	fi
	if apt_done; then
		msg "the apt part of recipe $RECIPE ran on this machine ($SETUP_STAMP)"
	else
		msg "would run apt-get update"
	fi
	mapfile -t miss < <(missing)
	if [ "${#miss[@]}" -eq 0 ]; then
		msg "every package is installed (${#PKGS[@]})"
	else
		msg "would install ${#miss[@]} packages: ${miss[*]}"
		# apt's own simulation (with the index as it is now)
		apt-get -s install --no-install-recommends "${miss[@]}" 2>&1 |
			awk '/^Inst / { n++ } /^E: / { print "setup:   apt-get: " $0 }
				END { printf "setup:   apt-get -s: %d packages in all\n", n }'
	fi
	for line in 6.12 ${SMC_SETUP_KERNELS-6.1 7.3}; do
		"$FETCH" --dry-run "$line" 2>&1 | sed 's/^/setup:   /' || true
	done
	for line in ${SMC_SETUP_SIW-6.12}; do
		if "$SIW" --check "$line" 2>/dev/null; then
			msg "siw.ko for $line is built"
		else
			msg "would build siw.ko for $(siw_what "$line"): tests/kernels/build-siw $line"
		fi
	done
}

main() {
	local t0=$SECONDS line krel need_apt=0
	local -a miss=() lines=() siw_lines=()

	while [ $# -gt 0 ]; do
		case "$1" in
		--dry-run) dry=1 ;;
		-h|--help) sed -n '4,31s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 2 ;;
		*) die "unknown argument $1 (usage: $0 [--dry-run])" ;;
		esac
		shift
	done
	# nothing here is written relative to the caller's directory (the
	# checkout, often: sudo would leave root's files there)
	cd /
	release
	if [ "$dry" -eq 1 ]; then
		dry_run
		return 0
	fi
	[ "$(id -u)" -eq 0 ] || die "must run as root (try: sudo $0)"

	mapfile -t miss < <(missing)
	apt_done && [ "${#miss[@]}" -eq 0 ] || need_apt=1
	for line in 6.12 ${SMC_SETUP_KERNELS-6.1 7.3}; do
		"$FETCH" --check "$line" || lines+=("$line")
	done
	for line in ${SMC_SETUP_SIW-6.12}; do
		"$SIW" --check "$line" 2>/dev/null || siw_lines+=("$line")
	done
	if [ "$need_apt" -eq 0 ] && [ "${#lines[@]}" -eq 0 ] && [ "${#siw_lines[@]}" -eq 0 ]; then
		msg "everything present (Debian $codename, Linux $(krel_612) in $KERNELS_CACHE/6.12)"
		return 0
	fi
	steps=$((need_apt + ${#lines[@]} + ${#siw_lines[@]}))
	[ "${#miss[@]}" -eq 0 ] || steps=$((steps + 1))

	if [ "$need_apt" -eq 1 ]; then
		export DEBIAN_FRONTEND=noninteractive
		step "apt's sources${suite:+ (with $suite)} and package index: apt-get update"
		add_suite
		apt_get update
		if [ "${#miss[@]}" -gt 0 ]; then
			step "installing ${#miss[@]} packages ($(download_mb "${miss[@]}") MB to download): ${miss[*]}"
			new_daemons
			no_daemon_start
			apt_get install -y --no-install-recommends "${APT_DPKG[@]}" "${miss[@]}"
			no_daemon_cleanup
		fi
		mkdir -p "$(dirname "$SETUP_STAMP")"
		echo "recipe $RECIPE $codename" >"$SETUP_STAMP"
	fi
	for line in ${lines[@]+"${lines[@]}"}; do
		step "$(kernel_what "$line") into $KERNELS_CACHE/$line"
		"$FETCH" "$line"
	done
	for line in ${siw_lines[@]+"${siw_lines[@]}"}; do
		step "Soft-iWARP (siw.ko, which Debian does not build) for $(siw_what "$line")"
		"$SIW" "$line"
	done
	krel=$(krel_612)
	msg "done in $((SECONDS - t0)) s (Debian $codename, Linux $krel in $KERNELS_CACHE/6.12)"
}

main "$@"
