#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Who may change what, and what one network namespace sees of another
# (one VM, our module).
#
# 0. debugfs: what the module adds there (the entries that go with rmmod
#    and come back with insmod) must be something (its read-only
#    smc_ib_lookup: else the scan looks in the wrong place), none of the
#    test-hooks flavour's knobs (smc/, smc_hostile/, smc_faultinj/), no
#    writable file, nothing nobody may read.
# 1. As nobody: every state-changing command of SMC_GEN_NETLINK (UEID
#    add/del/flush, SEID enable/disable, handshake limitation
#    enable/disable) and SMC_PNETID (add/del/flush) fails with EPERM and
#    changes nothing; every dump (sys info, devices, link groups, links,
#    stats, fallbacks, UEIDs, SEID, PNET table, sock_diag) still works;
#    no file under /proc/sys/net/smc is writable and a write changes
#    nothing.
# 2. Root of a user namespace owning a new netns (unshare -Urn, started
#    as nobody): the global UEID table and SEID are refused (EPERM, as
#    upstream); the handshake limitation passes the capability check
#    (CAP_NET_ADMIN over the netns; upstream: initial namespace only,
#    EPERM) and is answered EOPNOTSUPP; the PNET table and the sysctls
#    are that netns's own (upstream refuses PNET changes there): an entry
#    and a sysctl value made inside are not seen outside, an RDMA port
#    entry (shared by all namespaces) is refused.
# 3. Two namespaces joined by a veth pair, AF_SMC connections between
#    them (falling back to TCP: no RDMA device there): each namespace
#    lists only its own sockets, its own PNET entries and its own
#    counters, no link group.  (Link groups per namespace, one MR and
#    rkey per RMB and one PD per link: load.sh, with SMC-R.)
# 4. The module's sources (net/smc/*.[ch], comments left out) name no
#    access flag but local and remote write, no memory window, DMA MR or
#    global rkey, no PD flag; the MR registration (.access) and the QP
#    (qp_access_flags) are set to exactly local + remote write.
#
# smcctl runs as nobody, from a copy in the VM's /tmp: the checkout may be
# below a folder nobody may enter (a home folder of mode 0700).

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$SMC_IMPL" = ours ] || fail "needs our module"
PY=/usr/bin/python3
SMCCTL=$(smcctl_path) || fail "cannot build smcctl"
install -d -m 0755 /tmp/sec-bin
install -m 0755 "$SMCCTL" /tmp/sec-bin/smcctl || fail "cannot copy $SMCCTL to /tmp/sec-bin"
SMCCTL=/tmp/sec-bin/smcctl
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
: >"$RESULTS/smcr-problems"
problem() { smcr_problem "$@"; }

# genl: generic netlink requests, one a line on stdin: "FAMILY CMD dump"
# (a dump) or "FAMILY CMD - -" or "FAMILY CMD ATTR STRING" (a request,
# with one string attribute); prints the errno of each (0: ok), one a line
GENL_PY='
import os, socket, struct, sys
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
seq = 0
def req(ftype, c, payload, flags):
    global seq
    seq += 1
    body = struct.pack("BBH", c, 1, 0) + payload
    s.send(struct.pack("IHHII", 16 + len(body), ftype, flags, seq, 0) + body)
    out = []
    while True:
        d = s.recv(65536)
        off = 0
        while off < len(d):
            ln, ty, fl, sq, pid = struct.unpack_from("IHHII", d, off)
            if sq == seq and ty == 2:
                return struct.unpack_from("i", d, off + 16)[0], out
            if sq == seq and ty == 3:
                return 0, out
            if sq == seq:
                out.append(d[off + 16:off + ln])
            off += (ln + 3) & ~3
fids = {}
def family(fam):
    if fam not in fids:
        name = fam.encode() + b"\0"
        a = struct.pack("HH", 4 + len(name), 2) + name + b"\0" * (-len(name) % 4)
        rc, msgs = req(0x10, 3, a, 1 | 4)
        if rc or not msgs:
            sys.exit("no family " + fam)
        m, off = msgs[0], 4
        while off < len(m):
            ln, ty = struct.unpack_from("HH", m, off)
            if ty == 1:
                fids[fam] = struct.unpack_from("H", m, off + 4)[0]
            off += (ln + 3) & ~3
    return fids[fam]
for line in sys.stdin:
    w = line.split()
    if not w:
        continue
    fam, cmd = w[0], int(w[1])
    if w[2] == "dump":
        rc, _ = req(family(fam), cmd, b"", 1 | 4 | 0x300)
    else:
        attrs = b""
        if w[2] != "-":
            v = w[3].encode() + b"\0"
            attrs = struct.pack("HH", 4 + len(v), int(w[2])) + v
            attrs += b"\0" * (-len(v) % 4)
        rc, _ = req(family(fam), cmd, attrs, 1 | 4)
    print(-rc, flush=True)
'
genl() { $PY -c "$GENL_PY"; }

state() {
	{
		"$SMCCTL" --json ueid show
		"$SMCCTL" --json pnet show
		echo "SMC_GEN_NETLINK 13 dump" | genl
		for f in /proc/sys/net/smc/*; do echo "$f=$(cat "$f")"; done
	} 2>&1
}

# statediff: how $after differs from $before (no /dev/fd in the VMs)
statediff() {
	echo "$before" >"$RESULTS/state.before"
	echo "$after" >"$RESULTS/state.after"
	diff "$RESULTS/state.before" "$RESULTS/state.after" | paste -sd' '
}

# ---- 0. debugfs ----------------------------------------------------------
# dbg_list: every entry of debugfs (not of the file systems mounted in it,
# nor of tracing/, where tracefs is mounted when first entered)
dbg_list() {
	find /sys/kernel/debug -xdev -mindepth 1 -path /sys/kernel/debug/tracing -prune -o -print 2>/dev/null |
		sort
}
debugfs_up
dbg_list >"$RESULTS/debugfs.loaded"
for _ in $(seq 20); do
	smc_rmmod 2>/dev/null && break
	sleep 0.5
done
! grep -q '^smc ' /proc/modules || fail "cannot unload smc: $(grep '^smc ' /proc/modules)"
dbg_list >"$RESULTS/debugfs.unloaded"
insmod "$SMC_KO" ueid="$SMC_UEID" || fail "cannot load $SMC_KO again"
dbg_list >"$RESULTS/debugfs.reloaded"
comm -23 "$RESULTS/debugfs.loaded" "$RESULTS/debugfs.unloaded" >"$RESULTS/debugfs.module"
log "debugfs entries of the module: $(paste -sd' ' "$RESULTS/debugfs.module")"
[ -s "$RESULTS/debugfs.module" ] ||
	problem "the module adds nothing to debugfs (not even smc_ib_lookup): is debugfs scanned at all?"
missing=$(comm -23 "$RESULTS/debugfs.module" "$RESULTS/debugfs.reloaded")
[ -z "$missing" ] || problem "debugfs entries of the module not back after insmod: $(paste -sd' ' <<<"$missing")"
while read -r f; do
	case "${f#/sys/kernel/debug/}" in
	smc|smc/*|smc_hostile|smc_hostile/*|smc_faultinj|smc_faultinj/*)
		problem "the production module has the test-hooks knob $f" ;;
	esac
	if [ -f "$f" ] && [ -n "$(find "$f" -perm /222)" ]; then
		problem "debugfs $f is writable (mode $(stat -c %a "$f")): a knob"
	fi
	if "${NOBODY[@]}" test -r "$f"; then
		problem "nobody may read debugfs $f"
	fi
done <"$RESULTS/debugfs.module"

# ---- 1. unprivileged ------------------------------------------------------
"$SMCCTL" ueid add SEC-TEST.1 || fail "root: ueid add failed"
"$SMCCTL" pnet add SECTEST --eth lo || fail "root: pnet add failed"
before=$(state)
# family, command, attribute type and string (or - -), name
ADMIN='SMC_GEN_NETLINK 10 1 NOBODY.UEID ueid-add
SMC_GEN_NETLINK 11 1 SEC-TEST.1 ueid-del
SMC_GEN_NETLINK 12 - - ueid-flush
SMC_GEN_NETLINK 14 - - seid-enable
SMC_GEN_NETLINK 15 - - seid-disable
SMC_GEN_NETLINK 17 - - hs-limitation-enable
SMC_GEN_NETLINK 18 - - hs-limitation-disable
SMC_PNETID 2 1 NOBODYPNET pnet-add
SMC_PNETID 3 1 SECTEST pnet-del
SMC_PNETID 4 - - pnet-flush'
# every dump: sys info, lgr, link, dev, stats, fallbacks, UEIDs, SEID; PNET
DUMPS='SMC_GEN_NETLINK 1 dump
SMC_GEN_NETLINK 2 dump
SMC_GEN_NETLINK 3 dump
SMC_GEN_NETLINK 6 dump
SMC_GEN_NETLINK 7 dump
SMC_GEN_NETLINK 8 dump
SMC_GEN_NETLINK 9 dump
SMC_GEN_NETLINK 13 dump
SMC_PNETID 1 dump'
got=$(cut -d' ' -f1-4 <<<"$ADMIN" | "${NOBODY[@]}" $PY -c "$GENL_PY" | paste -sd' ') ||
	problem "nobody: netlink requests failed: $got"
want=$(sed 's/.*/1/' <<<"$ADMIN" | paste -sd' ')
log "nobody: errnos $got for $(cut -d' ' -f5 <<<"$ADMIN" | paste -sd' ')"
[ "$got" = "$want" ] || problem "nobody: admin commands gave errnos '$got', want EPERM (1) for all"
got=$("${NOBODY[@]}" $PY -c "$GENL_PY" <<<"$DUMPS" | paste -sd' ') ||
	problem "nobody: netlink dumps failed: $got"
want=$(sed 's/.*/0/' <<<"$DUMPS" | paste -sd' ')
[ "$got" = "$want" ] || problem "nobody: dumps gave errnos '$got', want 0 for all"
rc=0; "${NOBODY[@]}" "$SMCCTL" pnet add NOBODY2 --eth lo 2>"$RESULTS/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "errno 1)" "$RESULTS/err" ||
	problem "nobody: smcctl pnet add: exit $rc, $(cat "$RESULTS/err")"
rc=0; "${NOBODY[@]}" "$SMCCTL" ueid flush 2>"$RESULTS/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "errno 1)" "$RESULTS/err" ||
	problem "nobody: smcctl ueid flush: exit $rc, $(cat "$RESULTS/err")"
for c in info stats fallback devices linkgroups links connections; do
	"${NOBODY[@]}" "$SMCCTL" --json "$c" >/dev/null 2>"$RESULTS/err" ||
		problem "nobody: smcctl $c failed: $(cat "$RESULTS/err")"
done
"${NOBODY[@]}" "$SMCCTL" --json ueid show | grep -q SEC-TEST.1 ||
	problem "nobody: smcctl ueid show does not list SEC-TEST.1"
"${NOBODY[@]}" "$SMCCTL" --json pnet show | grep -q SECTEST ||
	problem "nobody: smcctl pnet show does not list SECTEST"
# sysctls: modes and writes
for f in /proc/sys/net/smc/*; do
	m=$(stat -c %a "$f")
	[ "$m" = 644 ] || problem "$f: mode $m, want 644"
	v=$(cat "$f")
	if "${NOBODY[@]}" sh -c "echo 1 >$f" 2>/dev/null; then
		problem "nobody could write $f"
	fi
	[ "$(cat "$f")" = "$v" ] || problem "$f changed by nobody"
done
after=$(state)
[ "$before" = "$after" ] || problem "state changed by nobody: $(statediff)"
log "unprivileged: refusals and read-only dumps checked"

# ---- 2. root of a user namespace with its own netns ----------------------
if "${NOBODY[@]}" unshare -Urn true 2>/dev/null; then
	"${NOBODY[@]}" unshare -Urn bash -c '
set -u
GENL_PY=$1 SMCCTL=$2
shift 2
set -- $(printf "%s\n" "SMC_GEN_NETLINK 10 1 USERNS.UEID" "SMC_GEN_NETLINK 12 - -" \
	"SMC_GEN_NETLINK 14 - -" "SMC_GEN_NETLINK 17 - -" "SMC_PNETID 4 - -" |
	python3 -c "$GENL_PY")
printf "%s\n" "ueid-add ${1-}" "ueid-flush ${2-}" "seid-enable ${3-}" \
	"hs-limitation-enable ${4-}" "pnet-flush ${5-}"
echo "pnet-add-eth $($SMCCTL pnet add USERNS --eth lo >/dev/null 2>&1; echo $?)"
echo "pnet-add-ib $($SMCCTL pnet add USERNSIB --ib rxe0 >/dev/null 2>&1; echo $?)"
echo "pnet-show $($SMCCTL --json pnet show)"
echo "wmem-write $(echo 32768 >/proc/sys/net/smc/wmem 2>/dev/null; echo $?)"
echo "wmem $(cat /proc/sys/net/smc/wmem)"
' _ "$GENL_PY" "$SMCCTL" >"$RESULTS/userns.out" 2>&1 ||
		problem "user namespace script failed: $(paste -sd' ' "$RESULTS/userns.out")"
	log "user namespace: $(paste -sd';' "$RESULTS/userns.out")"
	want='ueid-add 1
ueid-flush 1
seid-enable 1
hs-limitation-enable 95
pnet-flush 0
pnet-add-eth 0
pnet-add-ib 1
pnet-show {"pnet":[{"pnetid":"USERNS","netdev":"lo","ibdev":null,"ibport":null}]}
wmem-write 0
wmem 32768'
	got=$(cat "$RESULTS/userns.out")
	[ "$got" = "$want" ] || problem "user namespace: got '$(paste -sd';' <<<"$got")', want '$(paste -sd';' <<<"$want")'"
	after=$(state)
	[ "$before" = "$after" ] ||
		problem "state of the initial netns changed from a user namespace: $(statediff)"
	log "user namespace: its own PNET table and sysctls, global state refused"
else
	problem "unshare -Urn as nobody is not possible here"
fi
"$SMCCTL" ueid del SEC-TEST.1 || problem "ueid del SEC-TEST.1 failed"
"$SMCCTL" pnet del SECTEST || problem "pnet del SECTEST failed"

# ---- 3. two namespaces, AF_SMC between them ------------------------------
# (no RDMA device on the veth pair: the connections fall back to TCP, the
# sockets and counters are still the module's)
ip netns add sec1
ip link add sveth0 type veth peer name sveth1
ip link set sveth1 netns sec1
ip addr add 10.77.0.1/24 dev sveth0
ip link set sveth0 up
ip -n sec1 addr add 10.77.0.2/24 dev sveth1
ip -n sec1 link set sveth1 up
ip -n sec1 link set lo up
# (an entry for a device that does not exist: sveth1 must keep its port)
ip netns exec sec1 "$SMCCTL" pnet add NSONLY --eth nsonly0 ||
	problem "pnet add in netns sec1 failed"

# The server in the initial netns, the client in sec1.  Each connection
# sends a pattern, the server answers with what it got, prefixed by the
# count.
SRV_PY='import ctypes, socket, struct, sys, time
libc = ctypes.CDLL(None, use_errno=True)
a = struct.pack("=H", socket.AF_INET) + struct.pack("!H", 5300) + socket.inet_aton("10.77.0.1") + bytes(8)
s = socket.socket(43, socket.SOCK_STREAM, 0)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
assert libc.bind(s.fileno(), a, len(a)) == 0
s.listen(4)
print("listening", flush=True)
for i in range(2):
    fd = libc.accept(s.fileno(), None, None)
    assert fd >= 0, ctypes.get_errno()
    c = socket.socket(fileno=fd)
    c.settimeout(30)
    d = b""
    while True:
        x = c.recv(65536)
        if not x:
            break
        d += x
    c.sendall(struct.pack("!I", len(d)) + d)
    c.close()
    print("conn", i, len(d), flush=True)
'
CLI_PY='import ctypes, socket, struct, sys, time
libc = ctypes.CDLL(None, use_errno=True)
a = struct.pack("=H", socket.AF_INET) + struct.pack("!H", 5300) + socket.inet_aton("10.77.0.1") + bytes(8)
def one(data, hold):
    c = socket.socket(43, socket.SOCK_STREAM, 0)
    assert libc.connect(c.fileno(), a, len(a)) == 0, ctypes.get_errno()
    c.settimeout(30)
    if hold:
        print("connected", flush=True)
        while not __import__("os").path.exists("/tmp/sec-release"):
            time.sleep(0.1)
    c.sendall(data)
    c.shutdown(socket.SHUT_WR)
    r = b""
    while True:
        x = c.recv(65536)
        if not x:
            break
        r += x
    c.close()
    n = struct.unpack("!I", r[:4])[0]
    return n, r[4:]
n, r = one(b"\xaa" * 65536, True)
assert n == 65536 and r == b"\xaa" * 65536, "first connection: %d bytes" % n
time.sleep(2)	# the first connection gives its buffers back to the pool
msg = b"fresh data " * 9
n, r = one(msg, False)
assert n == len(msg) and r == msg, "second connection got %d bytes: %r" % (n, r[:120])
print("ok", flush=True)
'
rm -f /tmp/sec-release
stats0=$("$SMCCTL" --json stats)
run_bg sec-server $PY -c "$SRV_PY"
srv=$BG_PID
wait_file_line "$RESULTS/sec-server.log" listening 30
run_bg sec-client ip netns exec sec1 $PY -c "$CLI_PY"
cli=$BG_PID
wait_file_line "$RESULTS/sec-client.log" 'connected|Error' 60
# while the first connection is open: each side sees only its own
"$SMCCTL" --json connections >"$RESULTS/ns0.conns.json"
ip netns exec sec1 "$SMCCTL" --json connections >"$RESULTS/ns1.conns.json"
"$SMCCTL" --json linkgroups >"$RESULTS/ns0.lgr.json"
ip netns exec sec1 "$SMCCTL" --json linkgroups >"$RESULTS/ns1.lgr.json"
ip netns exec sec1 "$SMCCTL" --json pnet show >"$RESULTS/ns1.pnet.json"
"$SMCCTL" --json pnet show >"$RESULTS/ns0.pnet.json"
out=$(D="$RESULTS" $PY -c '
import json, os
d = os.environ["D"]
ld = lambda n: json.load(open(os.path.join(d, n)))
c0 = [c for c in ld("ns0.conns.json")["connections"] if c["state"] != "LISTEN"]
c1 = [c for c in ld("ns1.conns.json")["connections"] if c["state"] != "LISTEN"]
l0, l1 = ld("ns0.lgr.json")["linkgroups"], ld("ns1.lgr.json")["linkgroups"]
print("init netns: %d connections %s; sec1: %d connections %s" % (
    len(c0), [(c["local"], c["peer"], c["mode"]) for c in c0],
    len(c1), [(c["local"], c["peer"], c["mode"]) for c in c1]))
if [c["local_port"] for c in c0] != [5300] or c0[0]["local_addr"] != "10.77.0.1":
    print("PROBLEM init netns should list exactly the server socket (10.77.0.1:5300)")
if [c["peer_port"] for c in c1] != [5300] or c1[0]["local_addr"] != "10.77.0.2":
    print("PROBLEM netns sec1 should list exactly the client socket (10.77.0.2 to port 5300)")
if l0 or l1:
    print("PROBLEM link groups: init %d, sec1 %d, want none" % (len(l0), len(l1)))
p0 = [e["pnetid"] for e in ld("ns0.pnet.json")["pnet"]]
p1 = [e["pnetid"] for e in ld("ns1.pnet.json")["pnet"]]
if "NSONLY" in p0 or p1 != ["NSONLY"]:
    print("PROBLEM PNET tables: init %s, sec1 %s" % (p0, p1))
') || problem "cannot compare the namespaces views"
log "$(head -n 1 <<<"$out")"
while read -r line; do
	if [[ $line == PROBLEM* ]]; then problem "${line#PROBLEM }"; fi
done <<<"$out"
touch /tmp/sec-release
wait_bg "$cli" 60 || problem "client: $(cat "$RESULTS/sec-client.log")"
wait_bg "$srv" 60 || problem "server: $(cat "$RESULTS/sec-server.log")"
grep -qx ok "$RESULTS/sec-client.log" || problem "client: $(paste -sd' ' "$RESULTS/sec-client.log")"
# counters are per netns: sec1 counted its two client fallbacks, the
# initial netns no client handshake of any kind
stats1=$("$SMCCTL" --json stats)
out=$(A="$stats0" B="$stats1" $PY -c '
import json, os
a, b = json.loads(os.environ["A"]), json.loads(os.environ["B"])
print(b["smcr_connections"]["client"] - a["smcr_connections"]["client"],
      b["fallbacks"]["client"] - a["fallbacks"]["client"])')
[ "$out" = "0 0" ] || problem "init netns counted client handshakes/fallbacks $out, want 0 0"
out=$(ip netns exec sec1 "$SMCCTL" --json stats)
log "sec1 stats: $out"
grep -q '"fallbacks":{"client":2,"server":0}' <<<"$out" ||
	problem "netns sec1 stats: $out, want 2 client fallbacks"

# ---- 4. registration flags, by the sources --------------------------------
src=$REPO/net/smc
out=$(SRC="$src" $PY -c '
import glob, os, re
files = sorted(f for f in glob.glob(os.environ["SRC"] + "/*.[ch]") if not f.endswith(".mod.c"))
want = "IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE"
allowed = {"IB_ACCESS_LOCAL_WRITE", "IB_ACCESS_REMOTE_WRITE", "IB_MR_TYPE_MEM_REG"}
sites = {"access": 0, "qp_access_flags": 0}
bad = []
for f in files:
    t = open(f).read()
    # comments blanked out, their newlines kept for the line numbers
    t = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), t, flags=re.S)
    t = re.sub(r"//[^\n]*", "", t)
    at = lambda m: "%s:%d" % (os.path.basename(f), t.count("\n", 0, m.start()) + 1)
    for m in re.finditer(r"\b(IB_ACCESS_\w+|IB_MR_TYPE_\w+|IB_PD_\w+|ib_get_dma_mr|ib_alloc_mw)\b", t):
        if m.group(1) not in allowed:
            bad.append("%s: %s" % (at(m), m.group(1)))
    for m in re.finditer(r"[.>](access|qp_access_flags)\s*=(?!=)\s*([^,;}]+)", t):
        sites[m.group(1)] += 1
        v = " ".join(m.group(2).split())
        if v != want:
            bad.append("%s: %s = %s, want %s" % (at(m), m.group(1), v, want))
    for m in re.finditer(r"\bib_alloc_pd\s*\([^;]*?,\s*([^,;]*?)\)\s*;", t):
        if m.group(1).strip() != "0":
            bad.append("%s: ib_alloc_pd flags %s, want 0" % (at(m), m.group(1).strip()))
print("%d source files in %s, %d .access and %d qp_access_flags settings" % (
    len(files), os.environ["SRC"], sites["access"], sites["qp_access_flags"]))
if not files:
    bad.append("no sources")
for k, what in (("access", "the MR registration"), ("qp_access_flags", "the QP")):
    if not sites[k]:
        bad.append("no %s = ... (%s) found" % (k, what))
for b in bad:
    print("PROBLEM registration flags: " + b)
') || problem "cannot scan $src for registration flags"
log "$(head -n 1 <<<"$out")"
while read -r line; do
	if [[ $line == PROBLEM* ]]; then problem "${line#PROBLEM }"; fi
done <<<"$out"

ip netns del sec1 || true
smcr_verdict security
