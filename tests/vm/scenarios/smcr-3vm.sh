#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SMC-R data path with two peers: VM 0 serves, VM 1 and VM 2 each open
# SMCR_CONNS (default 4) AF_SMC connections at the same time, echoing
# SMCR_BYTES (default 2 MiB) each.  Assertions as in smcr-echo.sh on every
# VM; in addition, where `smcctl linkgroups` exists, VM 0 must have two
# link groups (one per peer) and each client one.  With ours on VM 0 and
# VM 1 and the distribution's module on VM 2 (smcr-3vm-mixed), the server's
# link group with VM 1 must carry data by WRITE WITH IMMEDIATE and the one
# with VM 2 the standard way (smcr_expect_path, lib/guest.sh).
#
# SMCR_IW_VMS (with SMCR_RDMA=rxe,siw: every VM has rxe0 and siw0 on eth0):
# the clients listed (VM indexes) keep only siw0, the other client only
# rxe0, and VM 0 keeps both: one listener serves a RoCE and an iWARP client
# at once (smcr-3vm-iw), the iWARP link groups with the iwarp extension.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 3 ] || fail "smcr-3vm needs exactly three VMs"
if [ -n "${SMCR_IW_VMS:-}" ] && [ "$VM_INDEX" -ne 0 ]; then
	if [[ " $SMCR_IW_VMS " == *" $VM_INDEX "* ]]; then
		rdma link delete rxe0 || fail "cannot delete rxe0"
	else
		rdma link delete siw0 || fail "cannot delete siw0"
	fi
	log "RDMA devices: $(rdma link show | awk '{ print $2 }' | paste -sd' ')"
fi
smcr_load_test smcr-3vm echo "${SMCR_CONNS:-4}" "${SMCR_BYTES:-2097152}" \
	"${SMCR_SECS:-150}"
