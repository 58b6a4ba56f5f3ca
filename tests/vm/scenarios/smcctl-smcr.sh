#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smcctl on live SMC-R connections: VM 1 opens SMCCTL_CONNS (default 4)
# AF_SMC connections to VM 0 (smc_load, echo) and holds them open.  While
# they are open, on each VM:
#   linkgroups  exactly one link group, role SERVER on VM 0 and CLIENT on
#               VM 1, type SINGLE, SMC v2, as many connections as are open,
#               one link;
#   links       exactly one link, ACTIVE, on rxe0 port 1 over eth0, with
#               that many connections; its GID is the peer's peer GID and
#               both sides agree on the link id;
#   connections the test's sockets in mode SMCR with SMC-R details that
#               name that link group and link, a token, buffer sizes and
#               send cursors that account for the data echoed;
# the text forms work, and a new network namespace sees no link group.
# Then a half-closed connection shows upstream's close states.
# After the connections are closed the link group stays (idle timeout)
# and, at the latest when orphaned connections time out, has none left.
# Works with our module and with the distribution's (same ABI), so with
# ours on one VM and the distribution's on the other, each VM compares its
# link group and link replies with the other's field by field: the same
# attributes, equal values where both ends must agree (type, version,
# release, negotiated EID, limits, link id and state, ...), crossed values
# where each names the other (GIDs, link UIDs, peer host name).  Buffer
# totals may differ (each module sizes its own) and are only logged.
# Every VM saves what smcctl printed in $RESULTS/*.json.  While the
# connections are held, the filters (--lgr, --netdev, --ibdev) select
# exactly them, the listings have their VLAN and PNET ID columns, stats -d
# counts them and debug-bundle packs valid JSON views; at the end
# `smcctl check` on VM 1 against `smcctl check --server` on VM 0 reports
# SMC-R v2 on both ends.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$VM_COUNT" -eq 2 ] || fail "smcctl-smcr needs exactly two VMs"
[ "$SMC_IMPL" != none ] || fail "smcctl-smcr needs an SMC module on both VMs"
PY=/usr/bin/python3
CONNS=${SMCCTL_CONNS:-4}
BYTES=65536
PORT=5300
HDR=32			# smc_load's per-connection header, client to server
RELEASE=/tmp/smcctl-smcr-release

SMCCTL=$(smcctl_path) || fail "cannot find or build smcctl"
export SMCCTL
echo "$SMC_IMPL" >"$SHARED/impl-$VM_INDEX"

# snap NAME CMD: save `smcctl --json CMD` as $RESULTS/NAME.json and a copy
# for the other VM in $SHARED/vmI-NAME.json; text form into NAME.txt.
snap() {
	"$SMCCTL" --json "$2" >"$RESULTS/$1.json" ||
		fail "smcctl --json $2 exited $?"
	cp "$RESULTS/$1.json" "$SHARED/vm$VM_INDEX-$1.json"
	"$SMCCTL" "$2" >"$RESULTS/$1.txt" || fail "smcctl $2 (text) exited $?"
	log "smcctl $2: $(cat "$RESULTS/$1.json")"
}

# check PYTHON: run the checks with d(name) loading this VM's snapshots,
# o(name) the other VM's; the code calls bad(msg) for each failed check.
check() {
	local out

	out=$(R="$RESULTS" S="$SHARED" I="$VM_INDEX" N="$CONNS" B="$BYTES" \
		P="$PORT" H="$HDR" $PY -c "import json, os
env = os.environ
me, other = int(env['I']), 1 - int(env['I'])
conns, nbytes, port, hdr = int(env['N']), int(env['B']), int(env['P']), int(env['H'])
d = lambda n: json.load(open('%s/%s.json' % (env['R'], n)))
o = lambda n: json.load(open('%s/vm%d-%s.json' % (env['S'], other, n)))
problems = []
bad = problems.append
$1
for p in problems:
    print(p)
") || fail "check script failed"
	[ -z "$out" ] || fail "$(paste -sd';' <<<"$out")"
}

case "$VM_INDEX" in
0)
	run_bg smc_load-server smc_load -s -p "$PORT" -n "$CONNS" -t $((150 * ${VM_SLOW:-1}))
	server=$BG_PID
	wait_file_line "$RESULTS/smc_load-server.log" listening 30
	barrier listening
	;;
1)
	barrier listening
	rm -f "$RELEASE"
	run_bg smc_load-client smc_load -c "$VM_IP_0" -p "$PORT" -N "$CONNS" \
		-B "$BYTES" -m echo -W "$RELEASE" -t $((150 * ${VM_SLOW:-1}))
	client=$BG_PID
	wait_file_line "$RESULTS/smc_load-client.log" '^smc_load: holding|^conns=|timed out' 120
	grep -q '^smc_load: holding' "$RESULTS/smc_load-client.log" ||
		fail "smc_load did not hold its connections: $(cat "$RESULTS/smc_load-client.log")"
	;;
esac
barrier holding 150

snap linkgroups linkgroups
snap links links
snap connections connections
barrier snapped

# --- one link group, one active link, on both VMs ---
check '
lg = d("linkgroups")["linkgroups"]
role = "SERVER" if me == 0 else "CLIENT"
if len(lg) != 1:
    bad("%d link groups, want 1" % len(lg))
else:
    g = lg[0]
    want = {"role": role, "type": "SINGLE", "version": 2, "conns": conns, "links": 1}
    for k, v in want.items():
        if g[k] != v:
            bad("link group %s is %r, want %r" % (k, g[k], v))
    if g["sndbuf_bytes"] < conns * 16384 or g["rmb_bytes"] < conns * 16384:
        bad("link group buffers: %d bytes of send buffers, %d of RMBs" % (g["sndbuf_bytes"], g["rmb_bytes"]))
lk = d("links")["links"]
if len(lk) != 1:
    bad("%d links, want 1" % len(lk))
else:
    k = lk[0]
    want = {"state": "ACTIVE", "conns": conns, "ibdev": "rxe0", "ibport": 1, "netdev": "eth0", "role": role}
    for key, v in want.items():
        if k[key] != v:
            bad("link %s is %r, want %r" % (key, k[key], v))
    if lg and k["lgr_id"] != lg[0]["id"]:
        bad("link in lgr %d, the link group is %d" % (k["lgr_id"], lg[0]["id"]))
    p = o("links")["links"]
    if len(p) == 1:
        if k["gid"] != p[0]["peer_gid"] or k["peer_gid"] != p[0]["gid"]:
            bad("GIDs %s -> %s, peer sees %s -> %s" % (k["gid"], k["peer_gid"], p[0]["gid"], p[0]["peer_gid"]))
        if k["link_id"] != p[0]["link_id"]:
            bad("link id %d, peer says %d" % (k["link_id"], p[0]["link_id"]))
        if lg and lg[0]["peer_gid"] != k["peer_gid"]:
            bad("link group peer %s, link peer %s" % (lg[0]["peer_gid"], k["peer_gid"]))
'
log "one link group, one ACTIVE link with $CONNS connections"

# --- field by field against the other VM's reply (the other module when
# the pairing mixes ours and the distribution's): the same attributes, the
# same values where both ends of a link group must agree, crossed values
# where each names the other ---
check '
def same(name, key, equal, cross, info=()):
    a, b = d(name)[key], o(name)[key]
    if len(a) != 1 or len(b) != 1:
        return
    a, b = a[0], b[0]
    if set(a) != set(b):
        bad("%s: attributes only here %s, only on the peer %s" % (name, sorted(set(a) - set(b)), sorted(set(b) - set(a))))
    for f in equal:
        if a.get(f) != b.get(f):
            bad("%s %s: %r here, %r on the peer" % (name, f, a.get(f), b.get(f)))
    for f, g in cross:
        if a.get(f) != b.get(g):
            bad("%s %s %r is not the peer'"'"'s %s %r" % (name, f, a.get(f), g, b.get(g)))
    for f in info:
        if a.get(f) != b.get(f):
            open(env["R"] + "/attr-info.txt", "a").write("%s %s: %r here, %r on the peer\n" % (name, f, a.get(f), b.get(f)))
same("linkgroups", "linkgroups",
     ("type", "type_num", "version", "release", "conns", "links", "neg_eid",
      "vlan", "pnetid", "buf_type", "max_conns", "max_links", "direct",
      "peer_os"), (), ("sndbuf_bytes", "rmb_bytes", "net_cookie"))
same("links", "links",
     ("link_id", "state", "state_num", "ibdev", "ibport", "ifindex",
      "netdev", "conns"),
     (("gid", "peer_gid"), ("peer_gid", "gid"), ("link_uid", "peer_link_uid"),
      ("peer_link_uid", "link_uid")))
g = d("linkgroups")["linkgroups"]
if len(g) == 1:
    if g[0]["peer_host"] != "vm%d" % other:
        bad("linkgroups peer_host %r, the peer is vm%d" % (g[0]["peer_host"], other))
    if g[0]["version"] == 2 and not g[0]["neg_eid"].startswith("SMC-R-VMTEST"):
        bad("linkgroups neg_eid %r, want the UEID SMC-R-VMTEST" % g[0]["neg_eid"])
'
[ ! -s "$RESULTS/attr-info.txt" ] || log "differences allowed: $(paste -sd';' "$RESULTS/attr-info.txt")"
log "link group and link attributes agree with vm$((1 - VM_INDEX))'s ($(cat "$SHARED/impl-$((1 - VM_INDEX))" 2>/dev/null || echo ?))"

# --- the test's sockets: SMC-R with details naming that lgr and link ---
check '
key = "local_port" if me == 0 else "peer_port"
mine = [c for c in d("connections")["connections"] if c[key] == port and c["state"] != "LISTEN"]
lg = d("linkgroups")["linkgroups"]
lk = d("links")["links"]
if len(mine) != conns:
    bad("%d sockets on port %d, want %d" % (len(mine), port, conns))
tokens = set()
for c in mine:
    s = c.get("smcr")
    if c["mode"] != "SMCR" or c["state"] != "ACTIVE" or not s:
        bad("socket %s: mode %s state %s smcr %r" % (c["local"], c["mode"], c["state"], s))
        continue
    if lg and s["lgr_id"] != lg[0]["id"]:
        bad("socket %s in lgr %r, want %d" % (c["local"], s["lgr_id"], lg[0]["id"]))
    if lk and (s["link_id"] != lk[0]["link_id"] or s["gid"] != lk[0]["gid"] or s["peer_gid"] != lk[0]["peer_gid"] or s["ibdev"] != "rxe0"):
        bad("socket %s on link %r, want %r" % (c["local"], s, lk[0]))
    if s["role"] != ("SERVER" if me == 0 else "CLIENT"):
        bad("socket %s role %s" % (c["local"], s["role"]))
    tokens.add(s["token"])
    if not s["token"] or not s["sndbuf_size"] or not s["rmbe_size"] or not s["peer_rmbe_size"]:
        bad("socket %s: token %d sndbuf %d rmbe %d peer_rmbe %d" % (c["local"], s["token"], s["sndbuf_size"], s["rmbe_size"], s["peer_rmbe_size"]))
        continue
    # all data was echoed and acknowledged: everything queued was sent
    # and completed, and it is where the byte count puts it in the rings
    sent = nbytes + (hdr if me == 1 else 0)
    pos = lambda n, size: {"wrap": (n // size) & 0xffff, "count": n % size}
    for cur in ("tx_prep", "tx_sent", "tx_fin"):
        if s[cur] != pos(sent, s["sndbuf_size"]):
            bad("socket %s: %s %r after %d bytes in a %d byte send buffer" % (c["local"], cur, s[cur], sent, s["sndbuf_size"]))
    if s["tx_prod"] != pos(sent, s["peer_rmbe_size"]):
        bad("socket %s: tx_prod %r after %d bytes into a %d byte peer RMB" % (c["local"], s["tx_prod"], sent, s["peer_rmbe_size"]))
if len(tokens) != len(mine):
    bad("tokens not unique: %r" % sorted(tokens))
'
log "$CONNS sockets in mode SMCR on that link group and link"

# --- text forms and network namespaces ---
grep -q "^$(printf %08x "$($PY -c "import json; print(json.load(open('$RESULTS/linkgroups.json'))['linkgroups'][0]['id'])")") " \
	"$RESULTS/linkgroups.txt" || fail "smcctl linkgroups (text) lacks the link group: $(cat "$RESULTS/linkgroups.txt")"
grep -q " ACTIVE .* rxe0 " "$RESULTS/links.txt" ||
	fail "smcctl links (text) lacks the ACTIVE link: $(cat "$RESULTS/links.txt")"
[ "$(grep -c '^  smcr lgr [0-9a-f]\{8\} link ' "$RESULTS/connections.txt")" -ge "$CONNS" ] ||
	fail "smcctl connections (text): too few SMC-R lines: $(cat "$RESULTS/connections.txt")"
for cmd in linkgroups links; do
	out=$(unshare -n "$SMCCTL" --json "$cmd") || fail "smcctl $cmd in a new netns failed"
	[ "$out" = "{\"$cmd\":[]}" ] || [ "$SMC_IMPL" = dist ] ||
		fail "a new netns sees $cmd: $out"
	log "a new netns: $cmd $out"
done

# --- filters, VLAN and PNET ID columns, stats -d, debug-bundle ---
lgid=$($PY -c "import json; print('%08x' % json.load(open('$RESULTS/linkgroups.json'))['linkgroups'][0]['id'])")
other=$(printf %08x $(((0x$lgid + 1) & 0xffffffff)))
# count N CMD...: smcctl --json CMD... lists N entries (links, linkgroups,
# connections without listeners, device ports)
count() {
	local want=$1 out n

	shift
	out=$("$SMCCTL" --json "$@") || fail "smcctl --json $* exited $?"
	n=$(J="$out" $PY -c 'import json, os
j = json.loads(os.environ["J"])
k = next(iter(j))
v = j[k]
if k == "devices":
    print(sum(len(d["ports"]) for d in v))
elif k == "connections":
    print(len([c for c in v if c["state"] != "LISTEN" and c["smcr"]]))
else:
    print(len(v))')
	[ "$n" = "$want" ] || fail "smcctl $*: $n entries, want $want: $out"
}
count 1 links --lgr "$lgid"
count 0 links --lgr "$other"
count 1 links --netdev eth0
count 0 links --netdev lo
count 1 links --ibdev rxe0
count 1 links --ibdev rxe0/1
count 0 links --ibdev rxe0/2
count 1 linkgroups --lgr "0x$lgid" --netdev eth0 --ibdev rxe0
count 0 linkgroups --ibdev no-such-dev
count 0 linkgroups --netdev lo
count "$CONNS" connections --lgr "$lgid"
count "$CONNS" connections --netdev eth0 --ibdev rxe0
count 0 connections --netdev lo
count 0 connections --lgr "$other"
count 1 devices --netdev eth0
count 0 devices --netdev lo
head -n 1 "$RESULTS/linkgroups.txt" | grep -q ' VLAN PNET ID ' ||
	fail "linkgroups (text) lacks the VLAN and PNET ID columns: $(head -n 1 "$RESULTS/linkgroups.txt")"
head -n 1 "$RESULTS/links.txt" | grep -q ' VLAN PNET ID ' ||
	fail "links (text) lacks the VLAN and PNET ID columns: $(head -n 1 "$RESULTS/links.txt")"
grep -q '^  smcr lgr .* vlan [0-9]* pnetid ' "$RESULTS/connections.txt" ||
	fail "connections (text) lacks vlan and pnetid: $(cat "$RESULTS/connections.txt")"
check '
for c in d("connections")["connections"]:
    s = c.get("smcr")
    if s and s["lgr_id"] is not None and (not isinstance(s["vlan"], int) or not isinstance(s["pnetid"], str)):
        bad("socket %s: vlan %r pnetid %r" % (c["local"], s["vlan"], s["pnetid"]))
for k in d("links")["links"]:
    if not isinstance(k["vlan"], int) or not isinstance(k["pnetid"], str):
        bad("link %r: vlan or pnetid missing" % k)
'
"$SMCCTL" --json stats -d >"$RESULTS/stats-d.json" || fail "smcctl --json stats -d exited $?"
"$SMCCTL" stats -d >"$RESULTS/stats-d.txt" || fail "smcctl stats -d exited $?"
check '
st = d("stats-d")
if st["smcr_connections"]["v2"] < conns:
    bad("stats: %d SMC-R v2 connections, want at least %d" % (st["smcr_connections"]["v2"], conns))
for dr in ("rx", "tx"):
    if st[dr]["bytes"] < nbytes or sum(st[dr]["req_sizes"].values()) > st[dr]["calls"]:
        bad("stats %s: %r" % (dr, st[dr]))
'
"$SMCCTL" debug-bundle "$RESULTS/bundle.tar.gz" >/dev/null || fail "smcctl debug-bundle failed"
mkdir -p "$RESULTS/bundle"
tar -xzf "$RESULTS/bundle.tar.gz" -C "$RESULTS/bundle" || fail "cannot unpack the debug bundle"
for f in "$RESULTS"/bundle/*/smcctl-*.json; do
	$PY -c "import json, sys; json.load(open(sys.argv[1]))" "$f" ||
		fail "debug bundle: $(basename "$f") is not JSON: $(head -c 300 "$f")"
done
[ "$(ls "$RESULTS"/bundle/*/smcctl-*.json | wc -l)" -ge 10 ] ||
	fail "debug bundle: too few smcctl views: $(ls "$RESULTS"/bundle/*/)"
grep -q . "$RESULTS"/bundle/*/sysctl-net-smc.txt || fail "debug bundle: no net.smc sysctls"
log "filters, VLAN/PNET ID columns, stats -d and debug-bundle ok"
barrier checked

# --- after close: the link group stays, without connections ---
if [ "$VM_INDEX" -eq 1 ]; then
	touch "$RELEASE"
	wait_bg "$client" 60 || fail "smc_load client failed: $(tail -n 5 "$RESULTS/smc_load-client.log")"
	grep -qx "conns=$CONNS bytes=$((CONNS * BYTES)) ok" "$RESULTS/smc_load-client.log" ||
		fail "smc_load client: $(tail -n 3 "$RESULTS/smc_load-client.log")"
else
	wait_bg "$server" 60 || fail "smc_load server failed: $(tail -n 5 "$RESULTS/smc_load-server.log")"
fi
# A closed connection may linger, orphaned, until the peer's close arrived
# or at most SMC_CLOSE_ORPHAN_TIME (60 s, net/smc/close.c).
t0=$SECONDS
deadline=$((SECONDS + 75))
until "$SMCCTL" --json linkgroups >"$RESULTS/linkgroups-closed.json" &&
	$PY -c "import json, sys
lg = json.load(open('$RESULTS/linkgroups-closed.json'))['linkgroups']
sys.exit(0 if len(lg) == 1 and lg[0]['conns'] == 0 else 1)"; do
	[ "$SECONDS" -lt "$deadline" ] ||
		fail "75 s after close: $(cat "$RESULTS/linkgroups-closed.json"), want one link group without connections"
	[ -e "$RESULTS/connections-closing.json" ] || [ $((SECONDS - t0)) -lt 5 ] ||
		"$SMCCTL" --json connections >"$RESULTS/connections-closing.json" || true
	sleep 0.5
done
log "after close: no connection left after $((SECONDS - t0)) s: $(cat "$RESULTS/linkgroups-closed.json")"
[ ! -e "$RESULTS/connections-closing.json" ] ||
	log "sockets 5 s after close: $(cat "$RESULTS/connections-closing.json")"
barrier done

# --- close states in sock_diag (upstream's numbering, as smcss shows) ---
# VM 1 connects with IPPROTO_SMC, sends 10 bytes and shuts down writing;
# VM 0 reads them and the EOF and keeps its end open.  Then VM 1's socket
# must show PEERCLOSEWAIT1 and VM 0's APPCLOSEWAIT1, both still SMCR.
HPORT=5310
# state_of PORT: "state mode" of this VM's connection on PORT (either end)
state_of() {
	"$SMCCTL" --json connections >"$RESULTS/connections-half.json"
	P=$1 F=$RESULTS/connections-half.json $PY -c '
import json, os
p = int(os.environ["P"])
cs = [c for c in json.load(open(os.environ["F"]))["connections"]
      if c["state"] != "LISTEN" and p in (c["local_port"], c["peer_port"])]
print(" ".join("%s %s" % (c["state"], c["mode"]) for c in cs) or "none")'
}
if [ "$VM_INDEX" -eq 0 ]; then
	run_bg half-server $PY -c '
import socket, sys, time, os
l = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256)
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("0.0.0.0", '$HPORT')); l.listen(1)
print("listening", flush=True)
c, _ = l.accept()
got = b""
while True:
    b = c.recv(100)
    if not b:
        break
    got += b
print("read", len(got), "then EOF", flush=True)
while not os.path.exists("/tmp/half-release"):
    time.sleep(0.1)
c.close()'
	half=$BG_PID
	wait_file_line "$RESULTS/half-server.log" listening 20 || fail "half-close server did not listen"
fi
barrier half-listening
if [ "$VM_INDEX" -eq 1 ]; then
	run_bg half-client $PY -c '
import socket, time, os
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256)
s.connect(("'$VM_IP_0'", '$HPORT'))
s.sendall(b"0123456789")
s.shutdown(socket.SHUT_WR)
print("shut down writing", flush=True)
while not os.path.exists("/tmp/half-release"):
    time.sleep(0.1)
s.close()'
	half=$BG_PID
	wait_file_line "$RESULTS/half-client.log" "shut down writing" 20 ||
		fail "half-close client did not get through"
else
	wait_file_line "$RESULTS/half-server.log" "then EOF" 20 ||
		fail "half-close server did not see the data and the EOF"
fi
barrier half-closed
want="APPCLOSEWAIT1 SMCR"
[ "$VM_INDEX" -eq 1 ] && want="PEERCLOSEWAIT1 SMCR"
for _ in $(seq 20); do
	got=$(state_of "$HPORT")
	[ "$got" = "$want" ] && break
	sleep 0.25
done
log "half-closed connection: $got"
[ "$got" = "$want" ] || fail "half-closed connection shows '$got', want '$want'"
barrier half-checked
touch /tmp/half-release
wait_bg "$half" 30 || fail "half-close peer failed: $(tail -n 3 "$RESULTS"/half-*.log)"
barrier half-done

# --- smcctl check between the two VMs: SMC-R v2 on both ends ---
CPORT=5320
if [ "$VM_INDEX" -eq 0 ]; then
	run_bg check-server bash -c "exec '$SMCCTL' --json check --server -t $((60 * ${VM_SLOW:-1})) $CPORT 2>'$RESULTS/check-server.err'"
	cserver=$BG_PID
	wait_file_line "$RESULTS/check-server.err" "listening on port $CPORT" 20
fi
barrier check-listening
if [ "$VM_INDEX" -eq 1 ]; then
	rc=0
	"$SMCCTL" check -t $((20 * ${VM_SLOW:-1})) "$VM_IP_0:$CPORT" >"$RESULTS/check.txt" 2>&1 || rc=$?
	log "smcctl check: exit $rc: $(cat "$RESULTS/check.txt")"
	[ "$rc" -eq 0 ] && grep -q ": SMC-R v2 (release [0-9], link group [0-9a-f]\{8\}, rxe0 port 1, eth0)" "$RESULTS/check.txt" ||
		fail "smcctl check: exit $rc, $(cat "$RESULTS/check.txt")"
else
	rc=0
	wait_bg "$cserver" 60 || rc=$?
	log "smcctl check --server: exit $rc: $(cat "$RESULTS/check-server.log")"
	[ "$rc" -eq 0 ] || fail "smcctl check --server: exit $rc, $(cat "$RESULTS/check-server.log" "$RESULTS/check-server.err")"
	J="$(cat "$RESULTS/check-server.log")" $PY -c 'import json, os, sys
j = json.loads(os.environ["J"])
sys.exit(0 if j["role"] == "server" and j["mode"] == "SMCR" and j["smc_version"] == 2 and j["lgr_id"] is not None and j["ibdev"] == "rxe0" and j["fallback_reason"] == 0 and j["hint"] is None else 1)' ||
		fail "smcctl --json check --server: $(cat "$RESULTS/check-server.log")"
fi
barrier check-done
log "smcctl check: SMC-R v2 between the VMs"
log "smcctl-smcr ok ($SMC_IMPL)"
