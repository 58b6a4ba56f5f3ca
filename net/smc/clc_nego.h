/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CLC handshake negotiation for SMC-R v1 and v2, as pure functions.
 *
 * Everything the handshake decides from the content of CLC messages lives
 * here: what a client proposes, which version, EID, release and link group
 * limits a server picks from a proposal and which reason code it declines
 * with, and what client and server check in the accept and the confirm.
 * No sockets, no verbs, no locks, no allocation: the caller collects the
 * local facts (devices, GIDs, prefixes, EIDs, sysctls) into a struct
 * smc_nego_local and does the I/O; this file only decides, so KUnit and
 * fuzzers reach every outcome.
 *
 * The outcomes (the chosen version and every decline reason code) are
 * those of the Linux 6.12 smc.ko on a host without SMC-D devices, so that
 * either side of a handshake can be the distribution's module.  Where
 * 6.12 does not check something a peer sends, this file checks it anyway
 * if no 6.12 peer can ever fail the check; those places are marked
 * "stricter than 6.12" below.
 *
 * Left to the caller, in the order the server runs them: IPsec (IPSEC), the
 * VLAN lookup of the clcsock's device (GETVLANERR), link group and buffer
 * creation (MEM and friends) and, for v2, the route to the peer's RoCE
 * GID (NOROUTE/NOINDIRECT on the client).
 */
#ifndef SMC_CLC_NEGO_H
#define SMC_CLC_NEGO_H

#include <linux/types.h>
#include "clc_wire.h"

/* the highest SMC release this code implements (v2.1) */
#define SMC_NEGO_RELEASE		SMC_CLC_RELEASE_1

/* limits of the v2.x link group negotiation (release >= 1) */
#define SMC_NEGO_CONNS_MIN		16
#define SMC_NEGO_CONNS_MAX		255	/* also the pre-v2.1 value */
#define SMC_NEGO_LINKS_MIN		1
#define SMC_NEGO_LINKS_MAX		2	/* also the pre-v2.1 value */

/*
 * Supplemental feature bits offered in the v2 extension and the first
 * contact extension.  Bit 0 (emulated ISM devices) only matters for SMC-D,
 * which this module does not implement; it is offered anyway so that our
 * proposals are byte for byte those of Linux 6.12.
 */
#define SMC_NEGO_FEATURE_MASK		0x0001

/*
 * Vendor extensions: what two hosts running this module agree on beyond
 * the protocol, where Linux 6.12 neither writes nor reads.  A client offers
 * them in the proposal's vendor fields (SMC-D area: our OUI, then the
 * offer word big endian in the first four option bytes); a server answers
 * in the first contact extension's vendor_exp_options, and the client's
 * confirm echoes what it takes.  The word carries SMC_NEGO_VX_TAG in its
 * upper half, so a value some other implementation puts there is not
 * taken for ours, and the extension bits in its lower half.  They apply
 * to the link group a first contact creates (release 1 and up: the FCE's
 * v2.x form), and to every connection on it.
 */
#define SMC_NEGO_VX_TAG			0x534d0000	/* "SM" */
#define SMC_NEGO_VX_WIMM		0x0001	/* data by WRITE WITH IMMEDIATE */
/*
 * Links on iWARP devices, connected through rdma_cm (iw.c).  Not an
 * option but what the client's device is: a client offers it exactly when
 * its device is iWARP, a server agrees exactly when its device is too, and
 * any other answer means no SMC-R between the two.
 */
#define SMC_NEGO_VX_IWARP		0x0002
/*
 * RMB growth: connections start with the smallest RMB and move to a
 * larger one when the peer streams into it (cdc_wire.h, grow.c); CDC
 * cursors then carry stream counts, not ring positions.
 */
#define SMC_NEGO_VX_GROW		0x0004
#define SMC_NEGO_VX_ALL			(SMC_NEGO_VX_WIMM | SMC_NEGO_VX_IWARP | \
					 SMC_NEGO_VX_GROW)

extern const u8 smc_nego_vendor_oui[SMC_CLC_VENDOR_OUI_LEN];

/* The extension bits of a received vendor word; 0 without our tag. */
static inline u16 smc_nego_vx_of(u32 word)
{
	return (word & 0xffff0000) == SMC_NEGO_VX_TAG ?
	       (word & SMC_NEGO_VX_ALL) : 0;
}

/*
 * What this host can offer on the connection at hand, filled by the caller.
 *
 * @r_v1:	SMC-R v1 usable: an RDMA device behind the clcsock's netdev
 *		with a RoCE v1 GID (@gid, @mac).
 * @r_v2:	SMC-R v2 usable: an RDMA device with a RoCE v2 GID
 *		(@roce_v2_gid) for the clcsock's IPv4 source address.  Linux
 *		offers v2 only for AF_INET clcsocks; the caller leaves this
 *		false for IPv6.  v2 is offered only with @ueid_cnt >= 1.
 * @ueid_cnt, @ueids: the user-defined EIDs (at most SMC_CLC_MAX_UEID,
 *		each SMC_CLC_EID_LEN bytes, blank padded as on the wire).
 *		There is no system EID outside s390.
 * @release:	our SMC release; capped at SMC_NEGO_RELEASE.
 * @max_conns, @max_links: the sysctls smcr_max_conns_per_lgr (16..255)
 *		and smcr_max_links_per_lgr (1..2).
 * @ipv4_subnet, @ipv4_prefix_len: the IPv4 address (or subnet) and prefix
 *		length of the clcsock's interface; 0/0 when it has none.
 * @ipv6_cnt, @ipv6: its IPv6 prefixes, link-local ones left out.  A
 *		proposal carries the IPv6 prefixes when @ipv6_cnt > 0 (fill
 *		these for an IPv6 clcsock), else the IPv4 prefix.  The server
 *		compares the prefixes of the proposal against all of them.
 * @gid, @mac:	the v1 RoCE GID and MAC of the device, for the proposal.
 * @roce_v2_gid: the RoCE v2 GID, for the proposal's v2 extension.
 * @systemid:	our system id (id_for_peer).
 * @vx:		the vendor extensions (SMC_NEGO_VX_*) we offer (client) or
 *		accept (server); offered only with SMC-R v2.
 */
struct smc_nego_local {
	bool r_v1;
	bool r_v2;
	u8 ueid_cnt;
	u8 ueids[SMC_CLC_MAX_UEID][SMC_CLC_EID_LEN];
	u8 release;
	u8 max_conns;
	u8 max_links;
	__be32 ipv4_subnet;
	u8 ipv4_prefix_len;
	u8 ipv6_cnt;
	struct smc_clc_ipv6_prefix ipv6[SMC_CLC_MAX_V6_PREFIX];
	u8 gid[SMC_CLC_GID_LEN];
	u8 roce_v2_gid[SMC_CLC_GID_LEN];
	u8 mac[SMC_CLC_MAC_LEN];
	u8 systemid[SMC_CLC_SYSTEMID_LEN];
	u16 vx;
};

/*
 * The outcome of a negotiation.
 *
 * @version:	SMC_V1 or SMC_V2; the version of accept and confirm.  With
 *		v2 the peer's RoCE GID is the proposal's roce_gid (server) or
 *		the accept's gid (client), with v1 the v1 gid.
 * @release:	the negotiated release: v2 only, SMC_CLC_RELEASE_0 for v1.
 *		On the client it is known only from a first contact accept;
 *		without first contact the link group's release applies and
 *		this field is SMC_CLC_RELEASE_0.
 * @eid:	v2: the EID both sides share, all zero for v1.
 * @max_conns, @max_links: negotiated with v2 release >= 1 (first contact
 *		on the client), else SMC_NEGO_CONNS_MAX / SMC_NEGO_LINKS_MAX,
 *		which is what Linux uses for such link groups.
 * @feature_mask: v2 release >= 1: the server's offer (server), the bits
 *		both sides support (client); else 0.
 * @vx:		v2 release >= 1: the vendor extensions the server accepts
 *		(server, before the confirm: see smc_nego_confirm_vx()), the
 *		ones the client takes from a first contact accept (client);
 *		else 0.
 */
struct smc_nego_result {
	u8 version;
	u8 release;
	u8 eid[SMC_CLC_EID_LEN];
	u8 max_conns;
	u8 max_links;
	u16 feature_mask;
	u16 vx;
};

/*
 * Client: fill @p with a proposal offering what @l allows, as Linux 6.12
 * builds it: header version SMC_V2 always, typev1 SMC_TYPE_R when v1 is
 * offered (else SMC_TYPE_N), typev2 SMC_TYPE_R when v2 is offered (else
 * SMC_TYPE_N), "SMCR" eyecatcher.
 *  - v1 offered: systemid, v1 GID and MAC in the header area and the IP
 *    area with the prefixes.
 *  - v2 only: systemid, GID and MAC all zero and no IP area (iparea offset
 *    0), exactly as Linux sends it.
 *  - v2 offered: the v2 extension with our release, all user EIDs, the
 *    RoCE v2 GID, max_conns/max_links from the sysctls and
 *    SMC_NEGO_FEATURE_MASK; no system EID, no SMC-D extension.
 * v1 needs a prefix: without one v1 is dropped when v2 is offered.
 *
 * Returns 0 (*@reason = 0), -ENODEV when nothing can be offered: *@reason
 * is SMC_CLC_DECL_NOSMCDEV without any usable device (with @r_v2 but no
 * UEID too) or SMC_CLC_DECL_CNFERR for v1 only without a prefix; the
 * caller falls back with that reason.  -EINVAL (*@reason
 * SMC_CLC_DECL_INTERR) when @l has counts above the protocol limits.
 */
int smc_nego_proposal(const struct smc_nego_local *l,
		      struct smc_clc_proposal *p, u32 *reason);

/* Whether a proposal's client has an iWARP device (SMC_NEGO_VX_IWARP). */
bool smc_nego_prop_iwarp(const struct smc_clc_proposal *p);

/*
 * Server: decide on a decoded proposal @p with what @l offers.  Returns 0
 * and fills @r, or the SMC_CLC_DECL_* reason to decline with.  In order:
 *  1. v2 offered (header version >= 2, typev2 R/D/B) without a v2
 *     extension: v2 is dropped (NOV2EXT); SMC-D v2: dropped (NOISM2SUPP);
 *     SMC-R v2 without UEIDs: dropped (NOUEID).  When that leaves nothing,
 *     or nothing was offered at all (PEERNOSMC), decline with that code.
 *     The release is min(proposal's, ours).
 *  2. SMC-R v2 still offered and release >= 1: max_conns =
 *     min(proposal's, ours) must be >= 16 (MAXCONNERR), max_links =
 *     min(proposal's, ours) >= 1 (MAXLINKERR) -- even if v1 is chosen.
 *  3. typev1 != N: the proposal's prefix must match one of ours, else
 *     DIFFPREFIX (v1 impossible, v2 still possible).
 *  4. Neither typev1 nor typev2 (raw header bits) indicate SMC-R: SMC-D
 *     only; decline DIFFPREFIX (prefix mismatch) or NOSMCDDEV.
 *  5. SMC-R v2: the first of the proposal's EIDs that is one of ours is
 *     taken; if there is one, v2 is chosen with @l->r_v2 when the client's
 *     device and ours are of one kind (SMC_NEGO_VX_IWARP on both or on
 *     neither), else NOSMCRDEV is remembered.  No shared EID is no error
 *     by itself.
 *  6. SMC-R v1 with a matching prefix: chosen with @l->r_v1.
 *  7. Else decline with the first code remembered in 3.-6., else
 *     NOSMCDEV (v1 not offered or no v1 device), or DIFFPREFIX.
 * The caller then creates the connection with the device of @r->version
 * and sends its accept (smc_nego_fill_accept).
 */
u32 smc_nego_server(const struct smc_clc_proposal *p,
		    const struct smc_nego_local *l, struct smc_nego_result *r);

/*
 * Server: fill what the negotiation decides in accept @acc: hdr.type
 * SMC_CLC_ACCEPT, hdr.version, hdr.typev1 SMC_TYPE_R, hdr.typev2 0,
 * hdr.first_contact, the "SMCR" eyecatcher; for v2 the EID and, with
 * @first_contact, the first contact extension in its 52-byte v2.x form
 * (Linux always sends that form for SMC-R): OS type Linux, the release
 * and, for release >= 1, max_conns, max_links and the feature mask (zero
 * below release 1).  The FCE's hostname and v2_direct flag are the
 * caller's and left untouched, as are all link and buffer fields.
 */
void smc_nego_fill_accept(const struct smc_nego_result *r, bool first_contact,
			  struct smc_clc_accept_confirm *acc);

/*
 * Client: check a decoded accept @acc against the proposal @sent built
 * from @l.  Returns 0 and fills @r, or a decline reason:
 *  - MODEUNSUPP: typev1 is not SMC_TYPE_R, or the accept's version was not
 *    offered for SMC-R (v2 accept to a proposal without SMC-R in typev2,
 *    v1 accept to one without SMC-R in typev1);
 *  - v2: NOUEID when the accept's EID is none we offered (stricter than
 *    6.12);
 *  - v2 first contact: RELEASEERR when the release is above ours and what
 *    we proposed (stricter than 6.12); from release 1: MAXCONNERR for
 *    max_conns < 16 or above our proposal (the latter stricter than 6.12)
 *    or a base-form FCE, MAXLINKERR for max_links outside 1..2 or above
 *    our proposal (the latter stricter than 6.12).
 * The client does not look at the FCE's OS type or hostname; its
 * v2_direct flag is for the caller's route decision.
 */
u32 smc_nego_client(const struct smc_clc_proposal *sent,
		    const struct smc_clc_accept_confirm *acc,
		    const struct smc_nego_local *l, struct smc_nego_result *r);

/*
 * Client: fill what the negotiation decides in confirm @conf, mirroring the
 * accept: as smc_nego_fill_accept() with hdr.type SMC_CLC_CONFIRM, the
 * negotiated release/max_conns/max_links and the common feature bits.
 * For a v2 first contact it also sets has_gid_list; the GID list itself
 * (gid_cnt, gids) is the caller's and must hold, as Linux sends it, first
 * the RoCE v2 GID of the link this confirm describes (the same as
 * conf->gid), then the RoCE v2 GID of an alternate device usable for a
 * second link, if any.  Hostname and v2_direct are the caller's.
 */
void smc_nego_fill_confirm(const struct smc_nego_result *r, bool first_contact,
			   struct smc_clc_accept_confirm *conf);

/*
 * Server: check the decoded confirm @conf against @r, what it accepted.
 * Returns 0 or a decline reason: MODEUNSUPP for a typev1 other than
 * SMC_TYPE_R and VERSMISMAT for a version other than the accepted one
 * (both stricter than 6.12), NOUEID for a v2 EID other than the accepted
 * one (stricter than 6.12); with a v2 first contact: RELEASEERR for a
 * different release, then from release 1 MAXCONNERR / MAXLINKERR for
 * values other than the accepted ones (or a base-form FCE).  Whether the
 * first contact bits of accept and confirm agree is the link group
 * layer's business, as in Linux.  The peer's feature bits are
 * conf->fce.feature_mask (meaningful only for SMC-D).
 */
u32 smc_nego_confirm(const struct smc_nego_result *r,
		     const struct smc_clc_accept_confirm *conf);

/*
 * Server: the vendor extensions of a new link group, once its confirm
 * @conf passed smc_nego_confirm(): those the server accepted (@r->vx) and
 * the client echoed.  0 unless the confirm is a v2.x first contact.
 */
u16 smc_nego_confirm_vx(const struct smc_nego_result *r,
			const struct smc_clc_accept_confirm *conf);

#endif /* SMC_CLC_NEGO_H */
