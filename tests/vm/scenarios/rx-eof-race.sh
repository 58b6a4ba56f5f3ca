#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A reader that finds nothing to read and then decides between waiting and
# the end of the stream must decide on what it saw: the peer's last data
# and its end can both arrive in between.  The old recvmsg looked at the
# bytes, dropped conn->lock, then saw the end and returned 0 with the
# last bytes unread (found by sockdiff's "many" on Linux 6.1 guests).
#
# VM 0 (test hooks) holds its reader in that gap for 3 s, once per round
# (smc_faultinj/rx_eof_delay_ms), and says so once the hold has begun;
# only then does VM 1's client send 4 KiB and shutdown(SHUT_WR).  The server must read all 4 KiB before its
# EOF and echo them; the client compares the echo.  Every connection must
# be SMC-R and the hold must have been taken each round.
#
# Run: tests/vm/vmtest --vms 2 --impl hooks,ours scenarios/rx-eof-race.sh
set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "rx-eof-race needs exactly two VMs"
ROUNDS=${SMCR_EOF_ROUNDS:-4}
PORT=7612
smcr_setup
smcr_snapshot before

if [ "$VM_INDEX" -eq 0 ]; then
	need_hooks smc_faultinj/rx_eof_delay_ms
	held0=$(kmsg_count "reader with nothing to read held")
	# each round: accept, then one blocking read loop to the end
	run_bg srv "$SMCR_PY" -c '
import socket, sys
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256)  # IPPROTO_SMC
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("0.0.0.0", int(sys.argv[1])))
ls.listen(8)
print("listening", flush=True)
for _ in range(int(sys.argv[2])):
    s, _ = ls.accept()
    print("accepted", flush=True)
    data = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
    s.sendall(data)
    s.close()
    print("echoed", len(data), flush=True)
' "$PORT" "$ROUNDS"
	wait_file_line "$RESULTS/srv.log" listening
	for r in $(seq "$ROUNDS"); do
		echo 3000 >"$FI/rx_eof_delay_ms"
		barrier "armed-$r"
		# the reader of this round's connection is in the hold
		n=0
		until [ "$(kmsg_count "reader with nothing to read held")" -ge $((held0 + r)) ]; do
			n=$((n + 1))
			[ "$n" -le 200 ] || fail "round $r: the reader was never held"
			nap 0.1
		done
		: >"$SHARED/held.$r"
		barrier "done-$r" 30
	done
	wait_bg "$BG_PID" 30 || smcr_problem "server: $(paste -sd' ' "$RESULTS/srv.log")"
	held=$(($(kmsg_count "reader with nothing to read held") - held0))
	echoed=$(grep -c '^echoed 4096$' "$RESULTS/srv.log" || :)
	log "server: $echoed of $ROUNDS read to the end and echoed, reader held $held times ($(grep '^echoed' "$RESULTS/srv.log" | paste -sd' '))"
	[ "$echoed" -eq "$ROUNDS" ] ||
		smcr_problem "the server read all 4096 bytes before its EOF on $echoed of $ROUNDS connections"
	[ "$held" -eq "$ROUNDS" ] ||
		smcr_problem "the reader was held $held times, want $ROUNDS"
	smcr_snapshot after
	smcr_expect_stats before after 0 "$ROUNDS"
else
	for r in $(seq "$ROUNDS"); do
		barrier "armed-$r"
		# connected; once the server's reader is held, the data and
		# the end arrive together
		"$SMCR_PY" -c '
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256)
s.settimeout(20)
s.connect((sys.argv[1], int(sys.argv[2])))
for _ in range(400):
    if os.path.exists(sys.argv[3]):
        break
    time.sleep(0.05)
else:
    sys.exit("the server never said its reader was held")
out = os.urandom(4096)
s.sendall(out)
s.shutdown(socket.SHUT_WR)
back = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    back += b
s.close()
sys.exit(0 if back == out else "echo differs: %d bytes back" % len(back))
' "$VM_IP_0" "$PORT" "$SHARED/held.$r" >>"$RESULTS/client.log" 2>&1 ||
			smcr_problem "round $r: $(tail -n 1 "$RESULTS/client.log")"
		barrier "done-$r" 30
	done
	smcr_snapshot after
	smcr_expect_stats before after "$ROUNDS" 0
fi
barrier end 30
smcr_verdict rx-eof-race
