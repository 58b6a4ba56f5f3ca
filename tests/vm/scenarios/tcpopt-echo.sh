#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smcr-echo.sh with tools/smc_tcpopt attached on every VM that needs it:
# for VMs booting a kernel whose TCP has no SMC option (vmtest --kernel
# 7.3) next to any other, e.g. the distribution's module on 6.12
# (--kernel 7.3,6.12 --impl ours,dist): the option written by eBPF on one
# end, by TCP on the other.  Where TCP has the option, smc_tcpopt attach
# is a no-op.  SMCR_CONNS, SMCR_BYTES, SMCR_SECS as for smcr-echo.sh.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "tcpopt-echo needs exactly two VMs"
TCPOPT=$(smc_tcpopt_path) ||
	fail "cannot find or build smc_tcpopt: $(tail -n 5 "$RESULTS/smc_tcpopt-build.log" 2>/dev/null)"
"$TCPOPT" attach || fail "smc_tcpopt attach failed"
"$TCPOPT" status || true
barrier attached
smcr_load_test tcpopt-echo echo "${SMCR_CONNS:-8}" "${SMCR_BYTES:-4194304}" \
	"${SMCR_SECS:-120}"
"$TCPOPT" status || true
"$TCPOPT" detach || fail "smc_tcpopt detach failed"
