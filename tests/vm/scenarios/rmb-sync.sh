#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 14 L3: the CPU reads an RMB that the peer's RDMA writes filled
# (recvmsg, the urgent byte) and zeroes a pooled RMB for its next
# connection; each time the range must be synced for the CPU and back for
# the devices.  Soft-RoCE's DMA is virtual (the syncs do nothing), so the
# test-hooks flavour on VM 0, the receiver, counts them (debugfs
# smc_faultinj/buf_syncs_cpu, _dev).  VM 1 (normal module) sends 64 KiB,
# one urgent byte and 1000 bytes more, twice (the second connection takes
# the pooled RMB); VM 0 must have synced for the CPU and back at least
# once per connection for the data, for the urgent byte and for the reuse.
#
# Run: tests/vm/vmtest --vms 2 --impl hooks,ours scenarios/rmb-sync.sh
set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "rmb-sync needs exactly two VMs"
smcr_setup

if [ "$VM_INDEX" -eq 0 ]; then
	need_hooks smc_faultinj/buf_syncs_cpu smc_faultinj/buf_syncs_dev
	c0=$(cat "$FI/buf_syncs_cpu") d0=$(cat "$FI/buf_syncs_dev")
	run_bg srv "$SMCR_PY" -c '
import socket
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256)  # IPPROTO_SMC
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("0.0.0.0", 7601))
ls.listen(2)
print("listening", flush=True)
for _ in range(2):
    s, _ = ls.accept()
    n = 0
    while True:
        b = s.recv(65536)
        if not b:
            break
        n += len(b)
    print("received", n, flush=True)
    s.close()
'
	wait_file_line "$RESULTS/srv.log" listening
	barrier ready
	wait_bg "$BG_PID" 60 || smcr_problem "receiver: $(cat "$RESULTS/srv.log")"
	c1=$(cat "$FI/buf_syncs_cpu") d1=$(cat "$FI/buf_syncs_dev")
	log "RESULT L3: $(paste -sd' ' "$RESULTS/srv.log"); RMB syncs for the CPU $c0 -> $c1 ($((c1 - c0))), back to the devices $d0 -> $d1 ($((d1 - d0)))"
	[ $((c1 - c0)) -ge 5 ] && [ $((d1 - d0)) -ge 5 ] ||
		smcr_problem "L3: RMB reads and zeroing without syncs ($((c1 - c0)) for the CPU, $((d1 - d0)) for the devices)"
else
	barrier ready
	"$SMCR_PY" -c '
import socket, sys, time
for _ in range(2):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256)
    s.connect((sys.argv[1], 7601))
    s.sendall(b"x" * 65536)
    time.sleep(0.2)
    s.send(b"U", socket.MSG_OOB)
    time.sleep(0.2)
    s.sendall(b"y" * 1000)
    s.close()
    time.sleep(0.5)
' "$VM_IP_0" || smcr_problem "sender failed"
fi
barrier done 90
smcr_verdict rmb-sync
