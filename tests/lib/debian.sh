# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Which Debian release this host runs and which archive it uses, for
# tests/setup.sh and tests/kernels/fetch.  Source this file.
# SMC_OS_RELEASE names another os-release file than /etc/os-release: a
# way to try the choices made for another release on this one
# (tests/setup.sh --dry-run).

# debian_codename: the host's VERSION_CODENAME (bookworm, trixie, ...);
# nothing when os-release is missing or is not Debian's
debian_codename() {
	local f=${SMC_OS_RELEASE:-/etc/os-release} k v id="" codename=""

	[ -r "$f" ] || return 0
	while IFS='=' read -r k v; do
		v=${v#\"} v=${v%\"}
		case "$k" in
		ID) id=$v ;;
		VERSION_CODENAME) codename=$v ;;
		esac
	done <"$f"
	[ "$id" != debian ] || echo "$codename"
}

# debian_archive_uri main|security: the archive URI this host's apt
# sources already use (main: the one of the release's own suites,
# security: debian-security's), so that what the tests add or fetch comes
# from the same mirror; deb.debian.org when none is found.
debian_archive_uri() {
	local want=main uri=""

	[ "${1:-main}" != security ] || want=security
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		# deb822: the URIs of the first stanza whose Suites name (or
		# do not name) a -security suite
		uri=$(awk -v want="$want" '
			function flush() {
				if (u != "" && s != "" && ((s ~ /-security/) == (want == "security")) && r == "")
					r = u
				u = ""; s = ""
			}
			/^[[:space:]]*$/ { flush(); next }
			/^URIs:/ { u = $2 }
			/^Suites:/ { s = $0 }
			END { flush(); print r }' /etc/apt/sources.list.d/debian.sources)
	fi
	if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
		uri=$(awk -v want="$want" '/^deb / {
			sub(/\[[^]]*\][[:space:]]*/, "")	# [signed-by=...]
			if (($3 ~ /-security/) == (want == "security")) { print $2; exit }
		}' /etc/apt/sources.list)
	fi
	if [ -z "$uri" ]; then
		uri=http://deb.debian.org/debian
		[ "$want" != security ] || uri+=-security
	fi
	echo "$uri"
}
