#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SMC-R data path, echo: VM 0 serves, VM 1 opens SMCR_CONNS (default 8)
# AF_SMC connections at the same time, each echoing SMCR_BYTES (default
# 4 MiB) of seeded pseudo-random data, checked byte by byte and by checksum.
# Passes only if the data crossed RDMA: every connection is listed ACTIVE in
# mode SMCR while open, each side counted exactly that many new SMC-R v2
# handshakes and no fallback, and rxe0 moved >= payload/1024 packets each
# way (see smcr_load_test in lib/guest.sh).  Works with any pairing of
# ours and dist; a module that falls back to TCP fails it.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "smcr-echo needs exactly two VMs"
smcr_load_test smcr-echo echo "${SMCR_CONNS:-8}" "${SMCR_BYTES:-4194304}" \
	"${SMCR_SECS:-120}"
