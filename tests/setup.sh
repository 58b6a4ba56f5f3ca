#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything the build, the VM harness and the tests need on a
# Debian 12 machine: the bookworm-backports suite, the newest Linux 6.12
# image, headers and source, QEMU and the user-space tools used inside the
# guests.  Idempotent: with everything present it returns in seconds.
# Then Debian's kernels of the other lines the module is built and booted
# for, unpacked into /var/tmp/smc-kernels, never installed
# (tests/kernels/fetch: 6.1, 7.3); SMC_SETUP_KERNELS="" leaves them out.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

SETUP_STAMP=/var/lib/smc-r-project/setup.stamp
PKGS=(
	build-essential bc bison flex libelf-dev libssl-dev dwarves kmod
	python3 python3-matplotlib xz-utils zstd
	qemu-system-x86 busybox-static cpio iproute2
	rdma-core ibverbs-utils ibverbs-providers perftest
	sparse
	clang libclang-rt-14-dev libbpf-dev bpftool dkms
	redis-server redis-tools nginx-light wrk iperf3 sockperf
)
# Daemons among PKGS (their systemd units): the app-* scenarios start their
# own instances inside the VMs.  One that this setup brings is disabled and
# stopped; one the machine had before (its unit file existed) is the
# user's and left as it is.
DAEMONS=(redis-server nginx iperf3)
NEW_DAEMONS=()

need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: must run as root (try: sudo $0)" >&2
		exit 1
	fi
}

backports_uri() {
	# Reuse the archive URI this machine already uses for bookworm.
	local uri=""
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
	fi
	if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
		uri=$(awk '/^deb / && $3 ~ /^bookworm/ {print $2; exit}' /etc/apt/sources.list)
	fi
	echo "${uri:-http://deb.debian.org/debian}"
}

add_backports() {
	local f=/etc/apt/sources.list.d/smc-bookworm-backports.sources
	if grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		return 0
	fi
	cat >"$f" <<EOT
Types: deb
URIs: $(backports_uri)
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
	rm -f "$SETUP_STAMP"
}

newest_612() {
	apt-cache search --names-only '^linux-image-6\.12\.[0-9.+a-z~-]*-amd64$' 2>/dev/null |
		awk '{print $1}' | grep -Ev -- '-(rt|cloud)-amd64$|-dbg$|unsigned' |
		sed 's/^linux-image-//' | sort -V | tail -n 1
}

installed_612() {
	ls -d /lib/modules/6.12.*-amd64 2>/dev/null | sed 's#.*/##' |
		grep -Ev -- '-(rt|cloud)-amd64$' | sort -V | tail -n 1
}

all_present() {
	local ver
	[ -f "$SETUP_STAMP" ] || return 1
	ver=$(installed_612)
	[ -n "$ver" ] || return 1
	[ -e "/boot/vmlinuz-$ver" ] && [ -d "/usr/src/linux-headers-$ver" ] || return 1
	ls /usr/src/linux-source-6.12.tar.* >/dev/null 2>&1 || return 1
	# a package dpkg does not know prints nothing: count the good lines
	[ "$(dpkg-query -W -f='${Status}\n' "${PKGS[@]}" 2>/dev/null |
		grep -c 'install ok installed')" -eq "${#PKGS[@]}" ] || return 1
	return 0
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
		echo "setup: $d came with the packages: disabled (the VMs run their own)"
		systemctl disable --now "$d" >/dev/null 2>&1 || true
	done
}

# fetch_kernels: the other kernel lines (nothing to do once cached)
fetch_kernels() {
	local line

	for line in ${SMC_SETUP_KERNELS-6.1 7.3}; do
		"$HERE/kernels/fetch" "$line"
	done
}

main() {
	need_root
	if all_present; then
		echo "setup: everything present (kernel $(installed_612))"
		fetch_kernels
		return 0
	fi
	export DEBIAN_FRONTEND=noninteractive
	add_backports
	apt-get update -qq
	local ver
	ver=$(newest_612)
	if [ -z "$ver" ]; then
		echo "setup: no linux-image-6.12 package found in bookworm-backports" >&2
		exit 1
	fi
	echo "setup: installing Linux $ver and tools"
	new_daemons
	no_daemon_start
	apt-get install -y -qq --no-install-recommends \
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
		"${PKGS[@]}" >/dev/null
	no_daemon_cleanup
	apt-get install -y -qq --no-install-recommends -t bookworm-backports \
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
		"linux-image-$ver" "linux-headers-$ver" linux-source-6.12 >/dev/null
	mkdir -p "$(dirname "$SETUP_STAMP")"
	echo "$ver" >"$SETUP_STAMP"
	echo "setup: done (kernel $ver)"
	fetch_kernels
}

main "$@"
