#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SMC-R data path, bulk: VM 1 streams SMCR_CONNS (default 8) x SMCR_BYTES
# (default 128 MiB) = 1 GiB one way to VM 0 over concurrent AF_SMC
# connections; VM 0 checks every byte against the seeded pattern and each
# stream's checksum.  Same assertions as smcr-echo.sh (all SMCR while open,
# exact SMC-R v2 handshake counts, no fallback, rxe0 >= payload/1024
# packets in the data's direction).  One-way, to halve the work under
# emulation.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "smcr-bulk needs exactly two VMs"
smcr_load_test smcr-bulk stream "${SMCR_CONNS:-8}" "${SMCR_BYTES:-134217728}" \
	"${SMCR_SECS:-400}"
