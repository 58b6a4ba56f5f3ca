#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# tcpopt_sniff IFACE: print one line per IPv4 TCP segment with SYN set that
# IFACE sends or receives, until SIGTERM or SIGINT:
#
#   out|in SRC:SPORT > DST:DPORT SYN|SYN-ACK smc=0|1 opts=HEX
#
# smc=1 when the options carry the SMC option (kind 254, length 6, magic
# E2D4C3D9, RFC 7609); opts are the option bytes in hex.  A classic BPF
# filter on the packet socket keeps everything else (RoCE among it) out of
# Python.  For the tcpopt scenario: there is no tcpdump on the testbed.

import ctypes
import signal
import socket
import struct
import sys

ETH_P_ALL = 0x0003
SO_ATTACH_FILTER = 26
PACKET_OUTGOING = 4
SMC_OPT = bytes([254, 6, 0xE2, 0xD4, 0xC3, 0xD9])

# IPv4, protocol TCP, SYN flag set (offsets from the Ethernet header)
FILTER = [
    (0x28, 0, 0, 12),       # ldh [12]            ethertype
    (0x15, 0, 6, 0x0800),   # jeq #IPv4, else drop
    (0x30, 0, 0, 23),       # ldb [23]            IP protocol
    (0x15, 0, 4, 6),        # jeq #TCP, else drop
    (0xB1, 0, 0, 14),       # ldxb 4*([14]&0xf)   IP header length
    (0x50, 0, 0, 27),       # ldb [x+27]          TCP flags
    (0x45, 0, 1, 0x02),     # jset #SYN, else drop
    (0x06, 0, 0, 0xFFFF),   # ret all
    (0x06, 0, 0, 0),        # ret 0
]


def has_smc(opts):
    """The walk of tcp_parse_options() over the option bytes."""
    i = 0
    while i < len(opts):
        kind = opts[i]
        if kind == 0:
            return False
        if kind == 1:
            i += 1
            continue
        if i + 1 >= len(opts):
            return False
        size = opts[i + 1]
        if size < 2 or i + size > len(opts):
            return False
        if (kind == 254 and size >= 6 and size % 2 == 0 and
                opts[i + 2:i + 6] == SMC_OPT[2:]):
            return True
        i += size
    return False


def main():
    if len(sys.argv) != 2:
        print("usage: tcpopt_sniff.py IFACE", file=sys.stderr)
        return 2
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    prog = ctypes.create_string_buffer(
        b"".join(struct.pack("HBBI", *insn) for insn in FILTER))
    # struct sock_fprog: the count, then a pointer to the instructions
    s.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER,
                 struct.pack("HL", len(FILTER), ctypes.addressof(prog)))
    s.bind((sys.argv[1], ETH_P_ALL))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print("sniffing", flush=True)
    while True:
        pkt, info = s.recvfrom(65535)
        ip = pkt[14:]
        ihl = (ip[0] & 0xF) * 4
        src = socket.inet_ntoa(ip[12:16])
        dst = socket.inet_ntoa(ip[16:20])
        tcp = ip[ihl:]
        sport, dport = struct.unpack("!HH", tcp[:4])
        doff = (tcp[12] >> 4) * 4
        flags = tcp[13]
        opts = tcp[20:doff]
        kind = "SYN-ACK" if flags & 0x10 else "SYN"
        way = "out" if info[2] == PACKET_OUTGOING else "in"
        print(f"{way} {src}:{sport} > {dst}:{dport} {kind} "
              f"smc={int(has_smc(opts))} opts={opts.hex()}", flush=True)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(0)
