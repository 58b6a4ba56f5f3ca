#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IPPROTO_SMC: socket(AF_INET or AF_INET6, SOCK_STREAM, IPPROTO_SMC) gives
# an SMC socket that runs SMC-R (tests/vm/tools/inet_smc.c).
#   1. every VM: both families can be created, say SO_DOMAIN AF_INET /
#      AF_INET6 and SO_PROTOCOL IPPROTO_SMC, and can listen;
#   2. VM 1 opens INET_SMC_CONNS (default 4) AF_INET IPPROTO_SMC
#      connections to VM 0's AF_INET IPPROTO_SMC listener and echoes
#      INET_SMC_BYTES (default 1 MiB) on each, every byte checked; while
#      they are open `smcctl --json connections` lists them ACTIVE in mode
#      SMCR on both sides; smcctl stats count exactly that many new SMC-R
#      v2 handshakes and no fallback; rxe0 moved the payload;
#   3. an AF_INET6 IPPROTO_SMC client (to the IPv4-mapped address) and an
#      AF_INET6 listener exchange checked data (SMC-R or fallback: logged);
#   4. ours only: the module unloads once the sockets are gone, and
#      IPPROTO_SMC sockets are then refused.
# Any pairing of ours and dist (Linux 6.12's smc.ko has IPPROTO_SMC).

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "inet-smc needs exactly two VMs"
[ "$SMC_IMPL" != none ] || fail "inet-smc needs an SMC module on every VM"
conns=${INET_SMC_CONNS:-4}
bytes=${INET_SMC_BYTES:-1048576}
port=5300
port6=5301
release=$SHARED/inet-smc.release

smcr_setup

# 1. creation, both families
inet_smc probe >"$RESULTS/probe.log" 2>&1 ||
	fail "IPPROTO_SMC probe failed: $(paste -sd';' "$RESULTS/probe.log")"
log "probe: $(grep -c UNEXPECTED "$RESULTS/probe.log" || true) unexpected, $(paste -sd';' "$RESULTS/probe.log")"
grep -q '^probe AF_INET6 socket: SO_DOMAIN=10 SO_TYPE=1 SO_PROTOCOL=256$' "$RESULTS/probe.log" ||
	fail "AF_INET6 IPPROTO_SMC socket is not what it should be"
log "/proc/net/protocols: $(grep -E '^(INET_SMC|INET6_SMC|SMC|SMC6) ' /proc/net/protocols | awk '{print $1 "=" $3}' | paste -sd' ')"

smcr_snapshot before
barrier snapshot

# 2. AF_INET IPPROTO_SMC on both ends, must be SMC-R
if [ "$VM_INDEX" -eq 0 ]; then
	run_bg server inet_smc server -p "$port" -n "$conns" -t 180
	server=$BG_PID
	wait_file_line "$RESULTS/server.log" '^listening' 30
	barrier listening
	barrier holding 180
	smcr_expect_conns server "$port" "$conns"
	barrier checked
	wait_bg "$server" 120 || smcr_problem "server failed: $(tail -n 3 "$RESULTS/server.log" | paste -sd';')"
	cat "$RESULTS/server.log"
	grep -q "^conns=$conns ok$" "$RESULTS/server.log" ||
		smcr_problem "server summary is not 'conns=$conns ok'"
	grep -q UNEXPECTED "$RESULTS/server.log" &&
		smcr_problem "server: $(grep UNEXPECTED "$RESULTS/server.log" | paste -sd';')"
	log "accepted sockets: $(grep -m1 '^accepted' "$RESULTS/server.log")"
else
	rm -f "$release"
	barrier listening
	run_bg client inet_smc client "$VM_IP_0" -p "$port" -n "$conns" \
		-B "$bytes" -W "$release" -t 180
	client=$BG_PID
	(wait_file_line "$RESULTS/client.log" '^holding|^conns=' 200) || true
	grep -q '^holding' "$RESULTS/client.log" ||
		smcr_problem "client did not get to holding: $(tail -n 3 "$RESULTS/client.log" | paste -sd';')"
	barrier holding 180
	smcr_expect_conns client "$port" "$conns"
	barrier checked
	: >"$release"
	wait_bg "$client" 60 || smcr_problem "client failed: $(tail -n 3 "$RESULTS/client.log" | paste -sd';')"
	cat "$RESULTS/client.log"
	grep -qx "conns=$conns bytes=$((conns * bytes)) ok" "$RESULTS/client.log" ||
		smcr_problem "client summary is not 'conns=$conns bytes=$((conns * bytes)) ok'"
	grep -q UNEXPECTED "$RESULTS/client.log" &&
		smcr_problem "client: $(grep UNEXPECTED "$RESULTS/client.log" | paste -sd';')"
fi
barrier done 120
smcr_snapshot after
if [ "$VM_INDEX" -eq 0 ]; then
	smcr_expect_stats before after 0 "$conns"
else
	smcr_expect_stats before after "$conns" 0
fi
smcr_expect_rdma before after $((conns * bytes / 1024)) $((conns * bytes / 1024))

# 3. AF_INET6 IPPROTO_SMC: listener on [::], client to ::ffff:IPv4
if [ "$VM_INDEX" -eq 0 ]; then
	run_bg server6 inet_smc server -6 -p "$port6" -n 1 -t 120
	server=$BG_PID
	wait_file_line "$RESULTS/server6.log" '^listening' 30
	barrier listening6
	barrier holding6 150
	"$SMCCTL" --json connections >"$RESULTS/connections6.json" || true
	log "IPv6 connection (server): $(grep -o "\"mode\":\"[A-Z_]*\",[^}]*\"local_port\":$port6[^}]*" "$RESULTS/connections6.json" | head -n 2 | paste -sd' ')"
	barrier checked6
	wait_bg "$server" 60 || smcr_problem "IPv6 server failed: $(tail -n 3 "$RESULTS/server6.log" | paste -sd';')"
	grep -q '^conns=1 ok$' "$RESULTS/server6.log" ||
		smcr_problem "IPv6 server summary is not 'conns=1 ok'"
	grep -q UNEXPECTED "$RESULTS/server6.log" &&
		smcr_problem "IPv6 server: $(grep UNEXPECTED "$RESULTS/server6.log" | paste -sd';')"
else
	rm -f "$release.6"
	barrier listening6
	run_bg client6 inet_smc client "::ffff:$VM_IP_0" -6 -p "$port6" -n 1 \
		-B 262144 -W "$release.6" -t 120
	client=$BG_PID
	(wait_file_line "$RESULTS/client6.log" '^holding|^conns=' 140) || true
	barrier holding6 150
	"$SMCCTL" --json connections >"$RESULTS/connections6.json" || true
	log "IPv6 connection (client): $(grep -o "\"mode\":\"[A-Z_]*\",[^}]*\"peer_port\":$port6[^}]*" "$RESULTS/connections6.json" | head -n 1)"
	barrier checked6
	: >"$release.6"
	wait_bg "$client" 60 || smcr_problem "IPv6 client failed: $(tail -n 3 "$RESULTS/client6.log" | paste -sd';')"
	cat "$RESULTS/client6.log"
	grep -qx "conns=1 bytes=262144 ok" "$RESULTS/client6.log" ||
		smcr_problem "IPv6 client summary is not 'conns=1 bytes=262144 ok'"
	grep -q UNEXPECTED "$RESULTS/client6.log" &&
		smcr_problem "IPv6 client: $(grep UNEXPECTED "$RESULTS/client6.log" | paste -sd';')"
fi
barrier done6 120

# 4. unload (ours): refused while sockets live on, then clean
if [ "$SMC_IMPL" = ours ]; then
	deadline=$((SECONDS + 100))
	until smc_rmmod 2>"$RESULTS/rmmod.err"; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			smcr_problem "smc_rmmod still refused after 100 s: $(cat "$RESULTS/rmmod.err")"
			break
		fi
		sleep 2
	done
	if ! grep -qw '^smc' /proc/modules; then
		log "module unloaded"
		# no module autoload (it would find Debian's smc.ko)
		modprobe_path=$(cat /proc/sys/kernel/modprobe)
		echo /bin/false >/proc/sys/kernel/modprobe
		if out=$($SMCR_PY -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256)' 2>&1); then
			smcr_problem "IPPROTO_SMC socket still created after unload"
		else
			log "after unload: ${out##*$'\n'}"
		fi
		echo "$modprobe_path" >/proc/sys/kernel/modprobe
		grep -qE '^INET6?_SMC ' /proc/net/protocols &&
			smcr_problem "INET_SMC still in /proc/net/protocols after unload"
	fi
fi
barrier unloaded 150
smcr_verdict inet-smc
