// SPDX-License-Identifier: GPL-2.0
/*
 * smcctl's table of SMC_CLC_DECL_* reason codes (see reasons.h).  The
 * man page smcctl(8) carries the same table; tools/smcctl/test checks
 * that both list every code of net/smc/clc_wire.h.
 */
#include "reasons.h"

#define R(nm, cd, d, l, m, r) \
	{ .code = cd, .name = "SMC_CLC_DECL_" #nm, .smcd = d, .local = l, \
	  .meaning = m, .remedy = r }

const struct smc_reason smc_reasons[] = {
	R(MEM, 0x01010000, false, true,
	  "out of memory for the connection's buffers or link",
	  "Free memory, or lower net.smc.wmem/rmem; dmesg may say which "
	  "allocation failed."),
	R(TIMEOUT_CL, 0x02010000, false, true,
	  "the peer did not confirm the new RDMA link in time",
	  "The RDMA path does not carry traffic: check `rdma link` on both "
	  "hosts, that the GIDs reach each other (RoCE v2 uses UDP port "
	  "4791: no firewall in between) and the MTU."),
	R(TIMEOUT_AL, 0x02020000, false, true,
	  "the peer's next handshake message (CLC ACCEPT, upstream: ADD "
	  "LINK) did not come in time",
	  "The peer is overloaded or stuck: look at its dmesg and its "
	  "net.smc.limit_smc_hs."),
	R(CNFERR, 0x03000000, false, true,
	  "configuration error: the network device has no IP prefix to "
	  "offer SMC-R v1",
	  "Give the interface an address (SMC-R v1 needs both hosts in one "
	  "subnet), or use SMC-R v2."),
	R(PEERNOSMC, 0x03010000, false, true,
	  "the peer did not announce SMC in the TCP handshake",
	  "Run the peer's program over SMC (AF_SMC, smc_run, smc_bpf) with "
	  "the smc module loaded; a middlebox may also strip the TCP "
	  "option."),
	R(IPSEC, 0x03020000, false, false,
	  "the connection is protected by IPsec, which SMC would bypass",
	  "Expected with an IPsec policy on the route: exempt the port from "
	  "IPsec or accept TCP."),
	R(NOSMCDEV, 0x03030000, false, true,
	  "no SMC device (RDMA or ISM) can serve this connection",
	  "Add an RDMA device for the interface (`rdma link add rxe0 type "
	  "rxe netdev eth0` for Soft-RoCE) and check `smcctl devices`: the "
	  "port must be ACTIVE, behind the interface, with the interface's "
	  "PNET ID."),
	R(NOSMCDDEV, 0x03030001, true, true,
	  "no ISM device for SMC-D (s390 only)",
	  "Nothing to do outside s390: SMC-R is tried instead."),
	R(NOSMCRDEV, 0x03030002, false, true,
	  "no usable RDMA port behind the network device of this connection",
	  "Check `smcctl devices`: an ACTIVE port whose Net-Dev is the "
	  "interface used (or the same PNET ID as that interface), and a "
	  "RoCE GID for its IP address; `rdma link add` creates a Soft-RoCE "
	  "device."),
	R(NOISM2SUPP, 0x03030003, true, true,
	  "no ISM device that supports SMC-D v2",
	  "Nothing to do outside s390: SMC-R is tried instead."),
	R(NOV2EXT, 0x03030004, false, true,
	  "the peer offered SMC v2 without the v2 extension",
	  "The peer's SMC implementation is faulty or too old: update it."),
	R(NOV2DEXT, 0x03030005, true, false,
	  "the peer offered SMC-D v2 without its extension",
	  "SMC-D only: update the peer's SMC implementation."),
	R(NOSEID, 0x03030006, true, false,
	  "the peer sent no system EID (SMC-D v2)",
	  "SMC-D only: nothing to do for SMC-R."),
	R(NOSMCD2DEV, 0x03030007, true, false,
	  "no SMC-D v2 device",
	  "SMC-D only: nothing to do for SMC-R."),
	R(NOUEID, 0x03030008, false, true,
	  "no user EID both hosts share (SMC-R v2 needs one)",
	  "Add the same EID on both hosts: `smcctl ueid add EID`; compare "
	  "`smcctl ueid show` on each."),
	R(RELEASEERR, 0x03030009, false, true,
	  "the SMC v2 release could not be agreed",
	  "The peer chose a release that was not offered: update the peer's "
	  "SMC implementation."),
	R(MAXCONNERR, 0x0303000a, false, true,
	  "connections per link group: no agreement, or the link group is full",
	  "Raise net.smc.smcr_max_conns_per_lgr (16..255) on both hosts; "
	  "the smaller value counts."),
	R(MAXLINKERR, 0x0303000b, false, true,
	  "links per link group could not be agreed",
	  "Set net.smc.smcr_max_links_per_lgr (1..2) on both hosts."),
	R(MODEUNSUPP, 0x03040000, false, true,
	  "the peer chose an SMC mode that was not offered (such as SMC-D)",
	  "Check which SMC types the peer offers; update its SMC "
	  "implementation."),
	R(RMBE_EC, 0x03050000, false, true,
	  "the peer's link confirmation (RMB eyecatcher) is not valid",
	  "An interoperability problem: collect `smcctl debug-bundle` on "
	  "both hosts."),
	R(OPTUNSUPP, 0x03060000, false, true,
	  "a socket option SMC cannot honour was set (TCP_FASTOPEN), or a "
	  "policy kept the socket on TCP (smc_bpf port rules)",
	  "Do not set the option on SMC sockets, or expect TCP for that port."),
	R(DIFFPREFIX, 0x03070000, false, true,
	  "SMC-R v1: the two hosts are not in the same IP subnet",
	  "Put both in one subnet, or use SMC-R v2 (the same user EID on "
	  "both hosts), which crosses subnets."),
	R(GETVLANERR, 0x03080000, false, false,
	  "the VLAN id of the network device could not be read",
	  "Check the VLAN device's configuration (ip -d link)."),
	R(ISMVLANERR, 0x03090000, true, false,
	  "the VLAN id could not be registered on the ISM device (SMC-D)",
	  "SMC-D only: nothing to do for SMC-R."),
	R(NOACTLINK, 0x030a0000, false, true,
	  "the link group has no active link for the new connection",
	  "A link went down or is coming up: check `smcctl links` and `rdma "
	  "link`; new connections retry."),
	R(NOSRVLINK, 0x030b0000, false, true,
	  "the client does not know the link the server named",
	  "The two hosts disagree about a link group, usually while one "
	  "ends: retry; if it persists, collect `smcctl debug-bundle` on "
	  "both."),
	R(VERSMISMAT, 0x030c0000, false, true,
	  "the peer confirmed another SMC version than was agreed",
	  "The peer's SMC implementation is faulty: update it."),
	R(MAX_DMB, 0x030d0000, true, false,
	  "the SMC-D device has no room for another buffer (DMB)",
	  "SMC-D only: nothing to do for SMC-R."),
	R(NOROUTE, 0x030e0000, false, true,
	  "SMC-R v2: no route or no resolved neighbour for the peer's address",
	  "Check `ip route get PEER` and `ip neigh`: the peer must be "
	  "reachable over a network device with an RDMA port."),
	R(NOINDIRECT, 0x030f0000, false, false,
	  "the peer cannot use a connection routed through a gateway (or "
	  "needs one)",
	  "Connect within one subnet, or update the peer's SMC "
	  "implementation."),
	R(SYNCERR, 0x04000000, false, true,
	  "the handshake got out of step: an unexpected or malformed "
	  "message, or the TCP connection broke",
	  "Check the network between the hosts and the peer's dmesg; retry."),
	R(PEERDECL, 0x05000000, false, true,
	  "the peer declined SMC; its own reason is the peer diagnosis",
	  "Look up the peer diagnosis code in this table (smcctl shows it "
	  "next to the reason)."),
	R(INTERR, 0x09990000, false, true,
	  "an internal error of the SMC module",
	  "Look at dmesg and report it with `smcctl debug-bundle`."),
	R(ERR_RTOK, 0x09990001, false, true,
	  "the peer's buffer key (rtoken) could not be used",
	  "Look at dmesg on both hosts; report it with `smcctl debug-bundle`."),
	R(ERR_RDYLNK, 0x09990002, false, true,
	  "the RDMA link (queue pair) could not be made ready",
	  "Check the RDMA device, its GIDs and MTU (`rdma link`, `rdma "
	  "dev`) and dmesg."),
	R(ERR_REGBUF, 0x09990003, false, true,
	  "a buffer could not be registered with the RDMA device",
	  "The device's memory registration failed: look at dmesg and the "
	  "device's limits."),
};

const size_t smc_reasons_n = sizeof(smc_reasons) / sizeof(smc_reasons[0]);

const struct smc_reason *smc_reason_find(uint32_t code)
{
	size_t i;

	for (i = 0; i < smc_reasons_n; i++)
		if (smc_reasons[i].code == code)
			return &smc_reasons[i];
	return NULL;
}

const char *smc_reason_name(uint32_t code)
{
	const struct smc_reason *r;

	if (!code)
		return "NONE";
	r = smc_reason_find(code);
	return r ? r->name : "UNKNOWN";
}

const char *smc_reason_text(uint32_t code)
{
	const struct smc_reason *r;

	if (!code)
		return "no fallback";
	r = smc_reason_find(code);
	return r ? r->meaning : "unknown reason code";
}
