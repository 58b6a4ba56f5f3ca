#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 14 L5: a failed link's slot is taken by a new link before the work
# that handles failed links runs; that work must leave the new link alone.
# Both VMs run the test-hooks flavour and have a second device (rxe1 on
# eth1, as smcr-sym.sh), so link groups get a second link (link 2).
#
# VM 1 (the client) delays its next failed-link work by 10 s (fault knob
# down_delay_ms); both VMs then break link 2 (debugfs smc/fail_link).  The
# server drops it, tells the client (which drops it too, freeing the
# slot) and adds a new link, link 3, which the client puts in the freed
# slot.  When the client's delayed work finally runs, it may only act on
# the link that failed: the kernel log of VM 1 must not say that link 3
# was lost, and both VMs must end with two ACTIVE links.
#
# Run: tests/vm/vmtest --vms 2 --impl hooks,hooks --timeout 300 \
#	scenarios/links-stale.sh
# vmtest-nics: 2
set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "links-stale needs exactly two VMs"
need_hooks smc_faultinj/down_delay_ms smc/fail_link

sysctl -qw net.smc.smcr_max_links_per_lgr=2
smcr_second_lan
smcr_setup
barrier setup
busybox ping -c 1 -w 5 -I eth1 "$peer1" >/dev/null || fail "no ping to $peer1 on eth1"
barrier eth1-up

# links: "ID STATE" of every link, one line
links() {
	local out

	out=$("$SMCCTL" --json links | smcj links) || return 1
	# LGR LINK_ID STATE ...
	awk '{ printf "%s%s:%s", sep, $2, $3; sep = " " } END { print "" }' <<<"$out"
}

# active_links: how many links are ACTIVE
active_links() {
	links | tr ' ' '\n' | grep -c ':ACTIVE$' || true
}

wait_active() {
	local end=$((SECONDS + $2 * ${VM_SLOW:-1}))

	while [ "$SECONDS" -lt "$end" ]; do
		[ "$(active_links)" -ge "$1" ] && return 0
		nap 0.5
	done
	return 1
}

if [ "$VM_INDEX" -eq 0 ]; then
	run_bg srv smc_echo -s -f smc -p 7501 -n 1 -t 200
	wait_file_line "$RESULTS/srv.log" listening
	barrier ready
else
	barrier ready
	smc_echo -c "$VM_IP_0" -f smc -p 7501 -B 64K >"$RESULTS/cli.log" 2>&1 ||
		fail "echo failed: $(tail -n 2 "$RESULTS/cli.log")"
fi
wait_active 2 40 || smcr_problem "no second link: $(links)"
log "links before: $(links)"
barrier two-links 60

[ "$VM_INDEX" -eq 1 ] && echo 10000 >"$FI/down_delay_ms"
barrier fail-go
echo 2 >/sys/kernel/debug/smc/fail_link
log "link 2 broken"
nap 16				# the delay, the server's flows
wait_active 2 30 || smcr_problem "not two ACTIVE links again: $(links)"
lost=$(dmesg | sed -n 's/.*: link \([0-9]*\) lost, its connections move.*/\1/p' | sort -u | paste -sd' ')
log "RESULT L5 down_mask: links now: $(links); links this VM handled as lost: [${lost}]"
if [ "$VM_INDEX" -eq 1 ]; then
	for id in $lost; do
		[ "$id" = 2 ] ||
			smcr_problem "the delayed failed-link work took down link $id, which never failed"
	done
fi
barrier done 60
smcr_verdict links-stale
