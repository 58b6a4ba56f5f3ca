#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TCP_ULP "smc": plain TCP sockets turned into SMC sockets with
# setsockopt(SOL_TCP, TCP_ULP, "smc") (tests/vm/tools/tcp_ulp.c).
#   1. ours only, every VM: `tcp_ulp probe`, the refusals with their exact
#      errno (connected or listening socket ENOTCONN, UDP ENOPROTOOPT, a
#      second TCP_ULP EOPNOTSUPP, an unknown name ENOENT, AF_SMC and
#      IPPROTO_SMC sockets EOPNOTSUPP), each refused socket still working
#      as TCP, and what a switched socket says: it stays the fd's TCP
#      socket, SO_DOMAIN AF_INET or AF_INET6, SO_PROTOCOL IPPROTO_TCP,
#      TCP_ULP "smc"; an epoll set and O_ASYNC set up before the switch
#      report the switched socket's connect and data.  Then `tcp_ulp
#      stress`: TCP_ULP_ROUNDS (default 2000) fresh sockets, each used at
#      once by setsockopt(TCP_ULP), connect() to a loopback AF_SMC
#      listener, listen() and poll()/epoll while it is closed; only known
#      errnos, no hang, and the SMC socket count of /proc/net/protocols
#      back to where it was (the module's unload in 4. checks the rest);
#   2. VM 1 opens TCP_ULP_CONNS (default 2) AF_INET connections to VM 0's
#      AF_INET TCP_ULP listener and echoes TCP_ULP_BYTES (default 2 MiB)
#      on each, every byte checked by the client and the FNV-1a sums of
#      what was sent and what the server received compared; while they
#      are open `smcctl --json connections` lists them ACTIVE in mode SMCR
#      on both sides; smcctl stats count exactly that many new SMC-R v2
#      handshakes and no fallback; rxe0 moved the payload;
#   3. AF_INET6 on both ends, client to the server's IPv4-mapped address:
#      the data crosses (checked), over TCP: SMC-R v2 is negotiated for
#      IPv4 clcsocks only and rxe has no RoCE v1 GID, so our client finds
#      no SMC-R device and declines (SMC_CLC_DECL_NOSMCDEV); the server
#      falls back on the peer's decline.  Upstream Linux 6.12 does the same
#      with IPPROTO_SMC AF_INET6 sockets (see inet-smc);
#   4. ours: the module unloads once the sockets are gone.
# VM 0 serves.  Pairings: ours,ours and dist,ours.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "tcp-ulp needs exactly two VMs"
[ "$SMC_IMPL" != none ] || fail "tcp-ulp needs an SMC module on every VM"
conns=${TCP_ULP_CONNS:-2}
rounds=${TCP_ULP_ROUNDS:-2000}
bytes=${TCP_ULP_BYTES:-2097152}
port=5400
port6=5401
release=$SHARED/tcp-ulp.release

# SMC sockets in use in this namespace (/proc/net/protocols)
smc_sockets() {
	awk '$1 == "SMC" { print $3 }' /proc/net/protocols
}

smcr_setup

# 1. refusals and what a switched socket says (our module's rules)
if [ "$SMC_IMPL" = ours ]; then
	tcp_ulp probe >"$RESULTS/probe.log" 2>&1 ||
		fail "tcp_ulp probe: $(grep -E 'UNEXPECTED|tcp_ulp:' "$RESULTS/probe.log" | paste -sd';')"
	log "probe: $(grep -c ' ok$' "$RESULTS/probe.log") cases ok"
	grep -q '^case connected: errno ENOTCONN' "$RESULTS/probe.log" ||
		fail "probe did not run the connected case"
	base=$(smc_sockets)
	t0=$SECONDS
	tcp_ulp stress -n "$rounds" -t 60 >"$RESULTS/stress.log" 2>&1 ||
		fail "tcp_ulp stress: $(grep -E 'UNEXPECTED|tcp_ulp:' "$RESULTS/stress.log" | head -n 3 | paste -sd';')"
	grep -qx "stress rounds=$rounds ok" "$RESULTS/stress.log" ||
		fail "stress summary is not 'stress rounds=$rounds ok'"
	deadline=$((SECONDS + 20))
	until [ "$(smc_sockets)" -eq "$base" ]; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "SMC sockets after stress: $(smc_sockets), before: $base"
		sleep 0.5
	done
	log "stress: $rounds rounds in $((SECONDS - t0)) s, SMC sockets back to $base; $(grep -v '^stress' "$RESULTS/stress.log" | paste -sd';')"
fi

# The server's listener: TCP_ULP if its module has the ULP.  Debian's
# 6.12 smc.ko (dist) no longer registers it (no tcp-ulp-smc alias,
# setsockopt says ENOENT): there the listener is an AF_SMC socket, and the
# pairing still checks our ULP-made client against Linux 6.12's SMC-R.
listener_opt=()
if [ "$VM_INDEX" -eq 0 ] && ! out=$(tcp_ulp has-ulp 2>&1); then
	[ "$SMC_IMPL" = dist ] || fail "our module refuses TCP_ULP: $out"
	log "dist: $out; the server listens on an AF_SMC socket"
	listener_opt=(-a)
fi
# a TCP_ULP socket stays the TCP socket it was; an AF_SMC one says AF_SMC
if [ ${#listener_opt[@]} -eq 0 ]; then
	want_listener=2 want_lproto=6 want_listener6=10 want_lproto6=6
else
	want_listener=43 want_lproto=0 want_listener6=43 want_lproto6=1
fi

smcr_snapshot before
barrier snapshot

# 2. AF_INET, must be SMC-R
if [ "$VM_INDEX" -eq 0 ]; then
	run_bg server tcp_ulp server "${listener_opt[@]}" -p "$port" -n "$conns" -t 120
	server=$BG_PID
	wait_file_line "$RESULTS/server.log" '^listening' 30
	grep -q "^listener: SO_DOMAIN=$want_listener SO_PROTOCOL=$want_lproto\$" "$RESULTS/server.log" ||
		smcr_problem "listener: $(head -n 1 "$RESULTS/server.log")"
	barrier listening
	barrier holding 150
	smcr_expect_conns server "$port" "$conns"
	barrier checked
	wait_bg "$server" 60 || smcr_problem "server failed: $(tail -n 3 "$RESULTS/server.log" | paste -sd';')"
	cat "$RESULTS/server.log"
	grep -q "^conns=$conns ok$" "$RESULTS/server.log" ||
		smcr_problem "server summary is not 'conns=$conns ok'"
	# children are AF_SMC sockets; the ULP record stays with the listener
	[ "$(grep -c '^accepted [0-9]*: SO_DOMAIN=43 TCP_ULP=""$' "$RESULTS/server.log")" -eq "$conns" ] ||
		smcr_problem "accepted sockets: $(grep '^accepted' "$RESULTS/server.log" | paste -sd';')"
	grep -E '^conn [0-9]+: echoed' "$RESULTS/server.log" |
		sed -E 's/^conn ([0-9]+): echoed ([0-9]+) bytes sum=/\1 \2 /' |
		sort >"$SHARED/server.sums" || true
else
	rm -f "$release"
	barrier listening
	run_bg client tcp_ulp client "$VM_IP_0" -p "$port" -n "$conns" \
		-B "$bytes" -W "$release" -t 120
	client=$BG_PID
	(wait_file_line "$RESULTS/client.log" '^holding|^conns=' 150) || true
	grep -q '^holding' "$RESULTS/client.log" ||
		smcr_problem "client did not get to holding: $(tail -n 3 "$RESULTS/client.log" | paste -sd';')"
	barrier holding 150
	smcr_expect_conns client "$port" "$conns"
	barrier checked
	: >"$release"
	wait_bg "$client" 60 || smcr_problem "client failed: $(tail -n 3 "$RESULTS/client.log" | paste -sd';')"
	cat "$RESULTS/client.log"
	grep -qx "conns=$conns bytes=$((conns * bytes)) ok" "$RESULTS/client.log" ||
		smcr_problem "client summary is not 'conns=$conns bytes=$((conns * bytes)) ok'"
	[ "$(grep -c '^socket [0-9]*: SO_DOMAIN=2 SO_PROTOCOL=6$' "$RESULTS/client.log")" -eq "$conns" ] ||
		smcr_problem "client sockets do not all say SO_DOMAIN=2 SO_PROTOCOL=6"
	grep -E '^conn [0-9]+: sent' "$RESULTS/client.log" |
		sed -E 's/^conn ([0-9]+): sent ([0-9]+) bytes sum=/\1 \2 /' |
		sort >"$SHARED/client.sums" || true
fi
barrier done 90
if [ "$VM_INDEX" -eq 1 ]; then
	[ "$(wc -l <"$SHARED/client.sums")" -eq "$conns" ] &&
		cmp -s "$SHARED/client.sums" "$SHARED/server.sums" ||
		smcr_problem "sums differ: client $(paste -sd, "$SHARED/client.sums"), server $(paste -sd, "$SHARED/server.sums")"
	log "sums: $(paste -sd, "$SHARED/client.sums")"
fi
smcr_snapshot after
if [ "$VM_INDEX" -eq 0 ]; then
	smcr_expect_stats before after 0 "$conns"
else
	smcr_expect_stats before after "$conns" 0
fi
smcr_expect_rdma before after $((conns * bytes / 1024)) $((conns * bytes / 1024))

# 3. AF_INET6, IPv4-mapped: data crosses, over TCP (see the header)
# expect_v6 ROLE local_port|peer_port WANT_REASON: the connection's mode
# and reason
expect_v6() {
	local out n mode reason name family

	"$SMCCTL" --json connections >"$RESULTS/connections6-$1.json" ||
		{ smcr_problem "smcctl --json connections failed"; return 0; }
	out=$(smcj conns -f "$RESULTS/connections6-$1.json" --port "${2%_port}" "$port6") ||
		{ smcr_problem "cannot read smcctl connections"; return 0; }
	# INODE STATE MODE LOCAL_PORT PEER_PORT REASON REASON_NAME FAMILY
	log "IPv6 connection ($1): $(awk 'NF { printf "%s%s/%s/%s", sep, $3, $8, $7; sep = " " }
		END { if (!sep) print "none" }' <<<"$out")"
	n=$(awk 'NF { n++ } END { print n + 0 }' <<<"$out")
	[ "$n" -eq 1 ] || smcr_problem "$n IPv6 connections listed, want 1"
	while read -r _ _ mode _ _ reason name family; do
		[ -n "$mode" ] || continue
		if [ "$mode" != TCP ] || [ "$family" != inet6 ] || [ "$reason" -eq 0 ]; then
			smcr_problem "IPv6 connection is $mode/$family, want a fallback to TCP"
		elif [ -n "$3" ] && [ "$name" != "$3" ]; then
			smcr_problem "IPv6 fallback reason $name, want $3"
		fi
	done <<<"$out"
}

if [ "$VM_INDEX" -eq 0 ]; then
	run_bg server6 tcp_ulp server "${listener_opt[@]}" -6 -p "$port6" -n 1 -t 90
	server=$BG_PID
	wait_file_line "$RESULTS/server6.log" '^listening' 30
	grep -q "^listener: SO_DOMAIN=$want_listener6 SO_PROTOCOL=$want_lproto6\$" "$RESULTS/server6.log" ||
		smcr_problem "IPv6 listener: $(head -n 1 "$RESULTS/server6.log")"
	barrier listening6
	barrier holding6 120
	# ours declines on the client's decline; dist: logged
	if [ "$SMC_IMPL" = ours ]; then
		expect_v6 server local_port SMC_CLC_DECL_PEERDECL
	else
		expect_v6 server local_port ""
	fi
	barrier checked6
	wait_bg "$server" 60 || smcr_problem "IPv6 server failed: $(tail -n 3 "$RESULTS/server6.log" | paste -sd';')"
	grep -q '^conns=1 ok$' "$RESULTS/server6.log" ||
		smcr_problem "IPv6 server summary is not 'conns=1 ok'"
	grep -E '^conn 0: echoed' "$RESULTS/server6.log" | sed 's/.*sum=//' >"$SHARED/server6.sum" || true
else
	rm -f "$release.6"
	barrier listening6
	run_bg client6 tcp_ulp client "::ffff:$VM_IP_0" -6 -p "$port6" -n 1 \
		-B 262144 -W "$release.6" -t 90
	client=$BG_PID
	(wait_file_line "$RESULTS/client6.log" '^holding|^conns=' 120) || true
	barrier holding6 120
	expect_v6 client peer_port SMC_CLC_DECL_NOSMCDEV
	barrier checked6
	: >"$release.6"
	wait_bg "$client" 60 || smcr_problem "IPv6 client failed: $(tail -n 3 "$RESULTS/client6.log" | paste -sd';')"
	cat "$RESULTS/client6.log"
	grep -qx "conns=1 bytes=262144 ok" "$RESULTS/client6.log" ||
		smcr_problem "IPv6 client summary is not 'conns=1 bytes=262144 ok'"
	grep -q '^socket 0: SO_DOMAIN=10 SO_PROTOCOL=6$' "$RESULTS/client6.log" ||
		smcr_problem "IPv6 client socket does not say SO_DOMAIN=10 SO_PROTOCOL=6"
	grep -E '^conn 0: sent' "$RESULTS/client6.log" | sed 's/.*sum=//' >"$SHARED/client6.sum" || true
fi
barrier done6 90
if [ "$VM_INDEX" -eq 1 ]; then
	[ -s "$SHARED/client6.sum" ] && cmp -s "$SHARED/client6.sum" "$SHARED/server6.sum" ||
		smcr_problem "IPv6 sums differ: client $(cat "$SHARED/client6.sum"), server $(cat "$SHARED/server6.sum")"
fi

# 4. ours: every reference the switch took is given back (the TCP socks
# may linger a moment in their closing states, each holding one)
if [ "$SMC_IMPL" = ours ]; then
	deadline=$((SECONDS + 60))
	until smc_rmmod 2>"$RESULTS/rmmod.err"; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			smcr_problem "smc_rmmod still refused after 60 s: $(cat "$RESULTS/rmmod.err")"
			break
		fi
		sleep 1
	done
	grep -qw '^smc' /proc/modules || log "module unloaded"
fi
barrier unloaded 90
smcr_verdict tcp-ulp
