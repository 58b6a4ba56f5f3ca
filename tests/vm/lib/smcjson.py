#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# smcjson: the one reader of `smcctl --json` output for the VM scenarios
# (guest.sh: `smcj SUBCMD ARGS...`), instead of a Python snippet in every
# script.  The JSON shapes are those of tools/smcctl/README.md.
#
# Input: the JSON document on stdin, or in FILE with -f FILE.  Output: plain
# lines for the shell (read, awk, eval).  A missing or empty input, JSON
# that does not parse, or a document without the expected fields makes it
# print "smcjson SUBCMD: why" on stderr and exit 1, never a made-up default
# (so that `smcctl ... | smcj ...` fails when smcctl did); usage errors
# exit 2.
#
#   lgrs [-f FILE]        (smcctl --json linkgroups)
#       one line "LGRS BUSY CONNS SNDBUF_BYTES RMB_BYTES": link groups,
#       those with connections, connections on them, bytes of send buffers
#       and of RMBs allocated.
#
#   links [-f FILE]       (smcctl --json links)
#       one line per link: "LGR LINK_ID STATE IBDEV CONNS UID", LGR (the
#       link group id) and UID (link_uid) as 8 hex digits, IBDEV "-" when
#       unknown.
#
#   lgr-links [-f FILE]   (smcctl --json links)
#       one line per link group that has links, in the order listed:
#       "LGR CONNS ACTIVE IDLE DEVS": LGR as 8 hex digits, connections on
#       all its links, its ACTIVE links, ACTIVE links without connections,
#       distinct RDMA devices of its ACTIVE links.
#
#   wimm [-f FILE]        (smcctl --json links)
#       one line "TX_WIMM RX_WIMM": the WRITE WITH IMMEDIATEs all links
#       sent and received (0 for a link that does not report them).
#
#   lgr-ext -f LINKGROUPS LINKS
#       (smcctl --json linkgroups, smcctl --json links) one line per link
#       group with connections: "LGR PEER_IP CONNS EXT TX_WIMM RX_WIMM":
#       PEER_IP the IPv4 address in its first link's peer GID ("-" when
#       none), EXT the vendor extensions agreed, comma separated ("-" for
#       none, "null" from a module that does not report them, Linux's),
#       TX_WIMM/RX_WIMM the WRITE WITH IMMEDIATEs its links sent and
#       received ("-" when not reported).
#
#   rmbs [-f FILE] --port local|peer|any PORT  (smcctl --json connections)
#       one line per SMC-R socket on PORT (not listening): "INODE RMBE
#       PEER_RMBE", the sizes in bytes of its RMB and of the peer's.
#
#   conns [-f FILE] [--port local|peer|any PORT]  (smcctl --json connections)
#       one line per socket: "INODE STATE MODE LOCAL_PORT PEER_PORT REASON
#       REASON_NAME FAMILY", REASON the fallback reason as a decimal number
#       (0: none), REASON_NAME its name ("-" when none).  With --port, only
#       the sockets whose local port, peer port or either is PORT, and no
#       listening socket.
#
#   stats [-f FILE]       (smcctl --json stats)
#       NAME=VALUE lines (for eval): smcr_client, smcr_server, smcr_v1,
#       smcr_v2 (SMC-R handshakes), fb_client, fb_server (fallbacks),
#       hserr_client, hserr_server (handshake errors), rx_bytes, tx_bytes.
#
#   stats-delta BEFORE AFTER
#       BEFORE, AFTER: snapshot prefixes as smcr_snapshot (guest.sh) writes
#       them (PREFIX.stats.json, PREFIX.fallback.json).  The NAME=VALUE
#       lines of `stats` as differences AFTER - BEFORE, then why_client
#       and why_server: the fallback reasons that grew, "NAME:COUNT,..."
#       in the order smcctl lists them, NAME without SMC_CLC_DECL_ ("-"
#       when none grew).

import argparse
import json
import sys

STATS = (("smcr_client", "smcr_connections", "client"),
         ("smcr_server", "smcr_connections", "server"),
         ("smcr_v1", "smcr_connections", "v1"),
         ("smcr_v2", "smcr_connections", "v2"),
         ("fb_client", "fallbacks", "client"),
         ("fb_server", "fallbacks", "server"),
         ("hserr_client", "handshake_errors", "client"),
         ("hserr_server", "handshake_errors", "server"),
         ("rx_bytes", "rx", "bytes"),
         ("tx_bytes", "tx", "bytes"))


class Bad(Exception):
    pass


def load(path):
    try:
        if path in (None, "-"):
            text, where = sys.stdin.read(), "stdin"
        else:
            with open(path) as f:
                text, where = f.read(), path
    except OSError as e:
        raise Bad("cannot read %s: %s" % (path, e.strerror))
    if not text.strip():
        raise Bad("no JSON on %s (did smcctl fail?)" % where)
    try:
        return json.loads(text)
    except ValueError as e:
        raise Bad("%s: not JSON: %s: %.80r" % (where, e, text))


def get(obj, *keys, kind=int):
    """obj[keys[0]][keys[1]]..., which must be of type kind."""
    for k in keys:
        if not isinstance(obj, dict) or k not in obj:
            raise Bad("no field %s" % ".".join(keys))
        obj = obj[k]
    # bool is an int in Python: not a count
    if not isinstance(obj, kind) or (kind is int and isinstance(obj, bool)):
        raise Bad("field %s is %r, want %s" % (".".join(keys), obj,
                                               kind.__name__))
    return obj


def items(doc, key):
    """The list doc[key], every entry an object."""
    lst = get(doc, key, kind=list)
    if not all(isinstance(x, dict) for x in lst):
        raise Bad("%s: an entry is not an object" % key)
    return lst


def cmd_lgrs(a):
    g = items(load(a.file), "linkgroups")
    conns = [get(x, "conns") for x in g]
    print(len(g), sum(1 for c in conns if c > 0), sum(conns),
          sum(get(x, "sndbuf_bytes") for x in g),
          sum(get(x, "rmb_bytes") for x in g))


def cmd_links(a):
    for k in items(load(a.file), "links"):
        dev = k.get("ibdev")
        print("%08x %d %s %s %d %08x" % (
            get(k, "lgr_id"), get(k, "link_id"), get(k, "state", kind=str),
            dev if isinstance(dev, str) and dev else "-", get(k, "conns"),
            get(k, "link_uid")))


def cmd_lgr_links(a):
    groups = {}
    for k in items(load(a.file), "links"):
        groups.setdefault(get(k, "lgr_id"), []).append(k)
    for g, ls in groups.items():
        act = [k for k in ls if get(k, "state", kind=str) == "ACTIVE"]
        print("%08x %d %d %d %d" % (
            g, sum(get(k, "conns") for k in ls), len(act),
            sum(1 for k in act if not get(k, "conns")),
            len(set(str(k.get("ibdev")) for k in act))))


def gid_ipv4(gid):
    """a.b.c.d of a v4-mapped GID as smcctl prints it, else "-"."""
    h = gid.replace(":", "") if isinstance(gid, str) else ""
    if len(h) != 32 or h[:24] != "0" * 20 + "ffff":
        return "-"
    return ".".join(str(int(h[i:i + 2], 16)) for i in range(24, 32, 2))


def wimm_sums(links):
    """(TX, RX, EVERY): the WRITE WITH IMMEDIATEs that the links reporting
    them (tx_wimm and rx_wimm) sent and received, and whether every link
    reports them (Linux's module reports none)."""
    rep = [k for k in links if "tx_wimm" in k and "rx_wimm" in k]
    return (sum(get(k, "tx_wimm") for k in rep),
            sum(get(k, "rx_wimm") for k in rep), len(rep) == len(links))


def cmd_lgr_ext(a):
    links = {}
    for k in items(load(a.links), "links"):
        links.setdefault(get(k, "lgr_id"), []).append(k)
    for g in items(load(a.file), "linkgroups"):
        if get(g, "conns") <= 0:
            continue
        if "extensions" not in g:
            raise Bad("linkgroups: no extensions field")
        ext = g["extensions"]
        ext = "null" if ext is None else (",".join(ext) or "-")
        ls = links.get(get(g, "id"), [])
        tx, rx, every = wimm_sums(ls)
        if not ls or not every:
            tx = rx = "-"
        print("%08x %s %d %s %s %s" % (get(g, "id"),
                                       gid_ipv4(g.get("peer_gid")),
                                       get(g, "conns"), ext, tx, rx))


def cmd_wimm(a):
    tx, rx, _ = wimm_sums(items(load(a.file), "links"))
    print("%d %d" % (tx, rx))


def port_filter(port):
    """(KEYS, PORT) for --port WHICH PORT, None without it."""
    if not port:
        return None
    which, port = port
    keys = {"local": ("local_port",), "peer": ("peer_port",),
            "any": ("local_port", "peer_port")}.get(which)
    if keys is None or not port.isdigit():
        raise Bad("--port local|peer|any PORT, not %s %s" % (which, port))
    return (keys, int(port))


def port_conns(a):
    """The connections of --port (all of them without), no listeners."""
    want = port_filter(a.port)
    for c in items(load(a.file), "connections"):
        state = get(c, "state", kind=str)
        lport, pport = get(c, "local_port"), get(c, "peer_port")
        if want:
            ports = {"local_port": lport, "peer_port": pport}
            if state == "LISTEN" or \
               all(ports[k] != want[1] for k in want[0]):
                continue
        yield c


def cmd_conns(a):
    for c in port_conns(a):
        state = get(c, "state", kind=str)
        lport, pport = get(c, "local_port"), get(c, "peer_port")
        why = get(c, "fallback_reason")
        print(get(c, "inode"), state, get(c, "mode", kind=str), lport, pport,
              why, get(c, "fallback_reason_name", kind=str) if why else "-",
              get(c, "family", kind=str))


def cmd_rmbs(a):
    for c in port_conns(a):
        if get(c, "mode", kind=str) != "SMCR":
            continue
        print(get(c, "inode"), get(c, "smcr", "rmbe_size"),
              get(c, "smcr", "peer_rmbe_size"))


def counters(doc):
    return [(n, get(doc, k, s)) for n, k, s in STATS]


def cmd_stats(a):
    for n, v in counters(load(a.file)):
        print("%s=%d" % (n, v))


def reasons(doc, side):
    out = []
    for r in items(get(doc, side, kind=dict), "reasons"):
        out.append((get(r, "reason"), get(r, "name", kind=str),
                    get(r, "count")))
    return out


def cmd_stats_delta(a):
    b, e = load(a.before + ".stats.json"), load(a.after + ".stats.json")
    fb, fe = (load(a.before + ".fallback.json"),
              load(a.after + ".fallback.json"))
    for (n, v0), (_, v1) in zip(counters(b), counters(e)):
        print("%s=%d" % (n, v1 - v0))
    for side in ("client", "server"):
        old = {code: n for code, _, n in reasons(fb, side)}
        why = ["%s:%d" % (name.replace("SMC_CLC_DECL_", ""),
                          n - old.get(code, 0))
               for code, name, n in reasons(fe, side)
               if n > old.get(code, 0)]
        print("why_%s=%s" % (side, ",".join(why) or "-"))


def main():
    p = argparse.ArgumentParser(prog="smcjson",
                                description="read smcctl --json output")
    sub = p.add_subparsers(dest="cmd", required=True)
    for name, fn in (("lgrs", cmd_lgrs), ("links", cmd_links),
                     ("lgr-links", cmd_lgr_links), ("conns", cmd_conns),
                     ("stats", cmd_stats), ("wimm", cmd_wimm),
                     ("rmbs", cmd_rmbs)):
        s = sub.add_parser(name)
        s.add_argument("-f", dest="file", metavar="FILE",
                       help="read FILE, not stdin")
        s.set_defaults(fn=fn)
        if name == "conns":
            s.add_argument("--port", nargs=2, metavar=("WHICH", "PORT"))
        if name == "rmbs":
            s.add_argument("--port", nargs=2, metavar=("WHICH", "PORT"),
                           required=True)
    s = sub.add_parser("lgr-ext")
    s.add_argument("-f", dest="file", metavar="LINKGROUPS", required=True)
    s.add_argument("links", metavar="LINKS")
    s.set_defaults(fn=cmd_lgr_ext)
    s = sub.add_parser("stats-delta")
    s.add_argument("before")
    s.add_argument("after")
    s.set_defaults(fn=cmd_stats_delta)
    a = p.parse_args()
    try:
        a.fn(a)
    except Bad as e:
        print("smcjson %s: %s" % (a.cmd, e), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
