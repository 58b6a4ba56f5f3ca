#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A listener child that waits for its client's proposal is set up by the
# accept work (smc_hs_arm(): wait-queue entry, then timer); the proposal
# can arrive in the middle and start the handshake work at once.  The work
# must not start before the set-up is over: the old code let it disarm
# first, so the set-up then armed the timer of a child that the work went
# on to hand out, and the application closed and freed it with the timer
# still pending.  Two seconds later the timer wheel ran on freed memory:
# the Oops in __run_timers that Debian's 7.3 (preemptible) hit in tcp-ulp.
#
# VM 0 (test hooks) holds each child's set-up for 300 ms after its wait
# entry is in place (smc_faultinj/arm_delay_ms); VM 1's client sends its
# proposal meanwhile.  Every connection must be SMC-R v2 with its bytes
# echoed, the delay must have been taken each time, and nothing may go
# wrong once the freed children's timers would have fired: the SMC sock
# cache is poisoned and checked (slab_debug=FZP), so a timer armed in a
# freed sock is a "Poison overwritten" report, or an Oops when it runs.
#
# Run: tests/vm/vmtest --vms 2 --impl hooks,ours scenarios/hs-arm-race.sh
# vmtest-append: slab_debug=FZP,SMC
set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "hs-arm-race needs exactly two VMs"
ROUNDS=${SMCR_ARM_ROUNDS:-5}
PORT=7611
smcr_setup
smcr_snapshot before

if [ "$VM_INDEX" -eq 0 ]; then
	need_hooks smc_faultinj/arm_delay_ms
	held0=$(kmsg_count "handshake set-up held")
	run_bg srv "$SMCR_PY" -c '
import socket, sys
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256)  # IPPROTO_SMC
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("0.0.0.0", int(sys.argv[1])))
ls.listen(8)
print("listening", flush=True)
for _ in range(int(sys.argv[2])):
    s, _ = ls.accept()
    data = b""
    while len(data) < 4096:
        b = s.recv(4096 - len(data))
        if not b:
            break
        data += b
    s.sendall(data)
    s.close()   # the child is freed now, long before its timer is due
    print("echoed", len(data), flush=True)
' "$PORT" "$ROUNDS"
	wait_file_line "$RESULTS/srv.log" listening
	for r in $(seq "$ROUNDS"); do
		echo 300 >"$FI/arm_delay_ms"
		barrier "armed-$r"
		barrier "done-$r" 30
	done
	wait_bg "$BG_PID" 30 || smcr_problem "server: $(paste -sd' ' "$RESULTS/srv.log")"
	# past SMC_CLC_WAIT_TIME (2 s) after the last child's set-up
	sleep 4
	held=$(($(kmsg_count "handshake set-up held") - held0))
	log "server: $(grep -c '^echoed 4096' "$RESULTS/srv.log") of $ROUNDS echoed, set-up held $held times"
	[ "$(grep -c '^echoed 4096' "$RESULTS/srv.log")" -eq "$ROUNDS" ] ||
		smcr_problem "server echoed $(grep -c '^echoed 4096' "$RESULTS/srv.log") of $ROUNDS connections"
	[ "$held" -eq "$ROUNDS" ] ||
		smcr_problem "the child set-up was held $held times, want $ROUNDS"
	smcr_snapshot after
	smcr_expect_stats before after 0 "$ROUNDS"
else
	for r in $(seq "$ROUNDS"); do
		barrier "armed-$r"
		"$SMCR_PY" -c '
import os, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256)
s.settimeout(20)
s.connect((sys.argv[1], int(sys.argv[2])))
out = os.urandom(4096)
s.sendall(out)
back = b""
while len(back) < len(out):
    b = s.recv(65536)
    if not b:
        break
    back += b
s.close()
sys.exit(0 if back == out else "echo differs: %d bytes back" % len(back))
' "$VM_IP_0" "$PORT" >>"$RESULTS/client.log" 2>&1 ||
			smcr_problem "round $r: $(tail -n 1 "$RESULTS/client.log")"
		barrier "done-$r" 30
	done
	smcr_snapshot after
	smcr_expect_stats before after "$ROUNDS" 0
fi
barrier end 30
smcr_verdict hs-arm-race
