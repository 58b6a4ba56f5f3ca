/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CLC (connection layer control) wire codec for SMC-R v1 and v2.
 *
 * Pure functions only: no sockets, no verbs, no allocation.  Every decoder
 * takes a byte buffer and its length, validates everything it reads and
 * fills a host-order structure; every encoder writes into a caller buffer
 * and returns the number of bytes written.  This keeps the codec reachable
 * from KUnit and from user-space fuzzers.
 */
#ifndef SMC_CLC_WIRE_H
#define SMC_CLC_WIRE_H

#include <linux/types.h>

/* message types */
#define SMC_CLC_PROPOSAL		0x01
#define SMC_CLC_ACCEPT			0x02
#define SMC_CLC_CONFIRM			0x03
#define SMC_CLC_DECLINE			0x04

/* protocol versions */
#define SMC_V1				1
#define SMC_V2				2

/* SMC types in the header's typev1/typev2 fields */
#define SMC_TYPE_R			0
#define SMC_TYPE_D			1
#define SMC_TYPE_N			2
#define SMC_TYPE_B			3

/* operating system types (decline, first contact extension) */
#define SMC_CLC_OS_ZOS			1
#define SMC_CLC_OS_LINUX		2
#define SMC_CLC_OS_AIX			3

#define SMC_CLC_HDR_LEN			8
#define SMC_CLC_TRL_LEN			4
#define SMC_CLC_SYSTEMID_LEN		8
#define SMC_CLC_GID_LEN			16
#define SMC_CLC_MAC_LEN			6
#define SMC_CLC_EID_LEN			32
#define SMC_CLC_HOSTNAME_LEN		32
#define SMC_CLC_MAX_V6_PREFIX		8
#define SMC_CLC_MAX_UEID		8
#define SMC_CLC_MAX_ISM_GIDS		8

/* lengths of the fixed-size messages */
#define SMC_CLC_DECLINE_LEN_V1		28
#define SMC_CLC_DECLINE_LEN_V2		44
/* upper bound for any message we accept from the wire */
#define SMC_CLC_MAX_MSG_LEN		1024

#define SMC_CLC_EYECATCHER_LEN		4

/* sizes of the building blocks of a proposal */
#define SMC_CLC_PROP_BASE_LEN		40	/* header, local id, iparea offset */
#define SMC_CLC_PROP_SMCD_LEN		40	/* SMC-D area (v1 SMC-D, every v2) */
#define SMC_CLC_VENDOR_OUI_LEN		3	/* in the SMC-D area */
#define SMC_CLC_VENDOR_EXP_LEN		5
#define SMC_CLC_PROP_PREFIX_LEN		8	/* IPv4 prefix and IPv6 count */
#define SMC_CLC_IPV6_PREFIX_LEN		17	/* one IPv6 prefix entry */
#define SMC_CLC_V2_EXT_LEN		40	/* v2 extension without EIDs */
#define SMC_CLC_SMCD_V2_EXT_LEN		48	/* SMC-D v2 extension w/o GIDs */
#define SMC_CLC_GIDCHID_LEN		10	/* one ISM GID + CHID entry */
#define SMC_CLC_PROP_MIN_LEN_V1		(SMC_CLC_PROP_BASE_LEN + \
					 SMC_CLC_PROP_PREFIX_LEN + \
					 SMC_CLC_TRL_LEN)
#define SMC_CLC_PROP_MAX_LEN_V1		(SMC_CLC_PROP_BASE_LEN + \
					 SMC_CLC_PROP_SMCD_LEN + \
					 SMC_CLC_PROP_PREFIX_LEN + \
					 SMC_CLC_MAX_V6_PREFIX * \
					 SMC_CLC_IPV6_PREFIX_LEN + \
					 SMC_CLC_TRL_LEN)
/* v2 with only SMC-R v1 offered: no v2 extension, but the SMC-D area */
#define SMC_CLC_PROP_MIN_LEN_V2		(SMC_CLC_PROP_BASE_LEN + \
					 SMC_CLC_PROP_SMCD_LEN + \
					 SMC_CLC_PROP_PREFIX_LEN + \
					 SMC_CLC_TRL_LEN)
#define SMC_CLC_PROP_MAX_LEN_V2		(SMC_CLC_PROP_MAX_LEN_V1 + \
					 SMC_CLC_V2_EXT_LEN + \
					 SMC_CLC_MAX_UEID * SMC_CLC_EID_LEN + \
					 SMC_CLC_SMCD_V2_EXT_LEN + \
					 SMC_CLC_MAX_ISM_GIDS * \
					 SMC_CLC_GIDCHID_LEN)

/* accept/confirm lengths without optional extensions */
#define SMCR_CLC_ACCEPT_CONFIRM_LEN	68
#define SMCR_CLC_ACCEPT_CONFIRM_LEN_V2	108
#define SMCD_CLC_ACCEPT_CONFIRM_LEN	48
#define SMCD_CLC_ACCEPT_CONFIRM_LEN_V2	78
/* first contact extension: base form and the v2.x (release >= 1) form */
#define SMC_CLC_FCE_LEN			36
#define SMC_CLC_FCE_V2X_LEN		52
/* GID list extension of an SMC-Rv2 first contact confirm */
#define SMC_CLC_GLE_HDR_LEN		4
#define SMC_CLC_MAX_GLE_GIDS		8

/* SMC release numbers carried in the v2 extension and the FCE */
#define SMC_CLC_RELEASE_0		0
#define SMC_CLC_RELEASE_1		1

/* decline reason codes ("peer diagnosis"), values fixed by the protocol */
#define SMC_CLC_DECL_MEM		0x01010000
#define SMC_CLC_DECL_TIMEOUT_CL		0x02010000
#define SMC_CLC_DECL_TIMEOUT_AL		0x02020000
#define SMC_CLC_DECL_CNFERR		0x03000000
#define SMC_CLC_DECL_PEERNOSMC		0x03010000
#define SMC_CLC_DECL_IPSEC		0x03020000
#define SMC_CLC_DECL_NOSMCDEV		0x03030000
#define SMC_CLC_DECL_NOSMCDDEV		0x03030001
#define SMC_CLC_DECL_NOSMCRDEV		0x03030002
#define SMC_CLC_DECL_NOISM2SUPP		0x03030003
#define SMC_CLC_DECL_NOV2EXT		0x03030004
#define SMC_CLC_DECL_NOV2DEXT		0x03030005
#define SMC_CLC_DECL_NOSEID		0x03030006
#define SMC_CLC_DECL_NOSMCD2DEV		0x03030007
#define SMC_CLC_DECL_NOUEID		0x03030008
#define SMC_CLC_DECL_RELEASEERR		0x03030009
#define SMC_CLC_DECL_MAXCONNERR		0x0303000a
#define SMC_CLC_DECL_MAXLINKERR		0x0303000b
#define SMC_CLC_DECL_MODEUNSUPP		0x03040000
#define SMC_CLC_DECL_RMBE_EC		0x03050000
#define SMC_CLC_DECL_OPTUNSUPP		0x03060000
#define SMC_CLC_DECL_DIFFPREFIX		0x03070000
#define SMC_CLC_DECL_GETVLANERR		0x03080000
#define SMC_CLC_DECL_ISMVLANERR		0x03090000
#define SMC_CLC_DECL_NOACTLINK		0x030a0000
#define SMC_CLC_DECL_NOSRVLINK		0x030b0000
#define SMC_CLC_DECL_VERSMISMAT		0x030c0000
#define SMC_CLC_DECL_MAX_DMB		0x030d0000
#define SMC_CLC_DECL_NOROUTE		0x030e0000
#define SMC_CLC_DECL_NOINDIRECT		0x030f0000
#define SMC_CLC_DECL_SYNCERR		0x04000000
#define SMC_CLC_DECL_PEERDECL		0x05000000
#define SMC_CLC_DECL_INTERR		0x09990000
#define SMC_CLC_DECL_ERR_RTOK		0x09990001
#define SMC_CLC_DECL_ERR_RDYLNK		0x09990002
#define SMC_CLC_DECL_ERR_REGBUF		0x09990003

/* The common 8-byte header, decoded. */
struct smc_clc_hdr {
	u8 type;		/* SMC_CLC_PROPOSAL .. SMC_CLC_DECLINE */
	u16 length;		/* whole message incl. header and trailer */
	u8 version;		/* 4-bit version field */
	u8 typev1;		/* proposal: SMC_TYPE_* offered for v1 */
	u8 typev2;		/* proposal: SMC_TYPE_* offered for v2 */
	bool first_contact;	/* accept/confirm: first contact bit */
	bool smcd;		/* eyecatcher is "SMCD" rather than "SMCR" */
};

/*
 * Decode and check the header at @buf (at least SMC_CLC_HDR_LEN bytes).
 * Checks the eyecatcher, the type, the version and that the announced
 * length is plausible for type and version and at most
 * SMC_CLC_MAX_MSG_LEN.  Returns 0, -EINVAL when @len is too short,
 * -EPROTO for a bad eyecatcher or length, -EOPNOTSUPP for an unknown type.
 * A version of 0 is -EPROTO, a version above SMC_V2 is -EOPNOTSUPP.
 * typev1 and typev2 are always filled with the raw bits; first_contact is
 * derived from typev2 for every type but the proposal.
 */
int smc_clc_hdr_decode(const u8 *buf, size_t len, struct smc_clc_hdr *hdr);

/*
 * Does @buf (at least SMC_CLC_HDR_LEN bytes) start like a CLC message, with
 * either eyecatcher?  If so, *@length is the raw length field, whatever
 * the rest of the header says.
 */
bool smc_clc_hdr_framed(const u8 *buf, size_t len, u16 *length);

/*
 * Write the 8-byte header for @hdr into @buf (at least SMC_CLC_HDR_LEN
 * bytes).  For a proposal typev1/typev2 are written as given, for the
 * other types typev1 is written as given and typev2 carries only the first
 * contact bit.  Returns SMC_CLC_HDR_LEN or -EINVAL for out-of-range fields.
 * The message encoders below call this themselves.
 */
int smc_clc_hdr_encode(const struct smc_clc_hdr *hdr, u8 *buf);

struct smc_clc_ipv6_prefix {
	u8 prefix[16];
	u8 prefix_len;
};

/* A proposal, decoded (host byte order). */
struct smc_clc_proposal {
	struct smc_clc_hdr hdr;
	u8 id_for_peer[SMC_CLC_SYSTEMID_LEN];
	u8 gid[SMC_CLC_GID_LEN];
	u8 mac[SMC_CLC_MAC_LEN];
	/* IP area */
	__be32 ipv4_subnet;
	u8 ipv4_prefix_len;
	u8 ipv6_prefix_cnt;
	struct smc_clc_ipv6_prefix ipv6_prefix[SMC_CLC_MAX_V6_PREFIX];
	/* SMC-D v1 area (present but ignored for SMC-R) */
	u64 ism_gid;
	u16 ism_chid;
	/*
	 * Its vendor fields, in every v2 proposal: an OUI naming who defines
	 * the experimental option bytes that follow (all zero from Linux)
	 */
	u8 vendor_oui[SMC_CLC_VENDOR_OUI_LEN];
	u8 vendor_exp[SMC_CLC_VENDOR_EXP_LEN];
	/* v2 extension, valid when has_v2_ext */
	bool has_v2_ext;
	u8 eid_cnt;
	u8 ism_gid_cnt;
	u8 release;
	bool seid;
	u8 roce_gid[SMC_CLC_GID_LEN];
	u8 max_conns;
	u8 max_links;
	u16 feature_mask;
	u8 eids[SMC_CLC_MAX_UEID][SMC_CLC_EID_LEN];
	/* SMC-D v2 extension, valid when has_smcd_v2_ext */
	bool has_smcd_v2_ext;
	u8 system_eid[SMC_CLC_EID_LEN];
	struct {
		u64 gid;
		u16 chid;
	} ism_gidchid[SMC_CLC_MAX_ISM_GIDS];	/* ism_gid_cnt entries */
};

/*
 * Decode a complete proposal of @len bytes (header through trailer).
 * Returns 0 or a negative errno; -EPROTO for any malformation (offsets
 * outside the message, counts above the protocol limits, bad trailer).
 *
 * Which areas exist follows from the header, as on the wire:
 * v1: the SMC-D area when iparea_offset says so, then the IP area.
 * v2: always the SMC-D area; the IP area when typev1 != SMC_TYPE_N; the
 * v2 extension when typev2 != SMC_TYPE_N; the SMC-D v2 extension when
 * typev2 offers SMC-D.  has_v2_ext/has_smcd_v2_ext report the latter two.
 *
 * The encoder derives the layout from p->hdr the same way (the has_*
 * flags and p->hdr.length are ignored), writes p->hdr.smcd ? "SMCD" :
 * "SMCR" as eyecatcher and returns the length written, -ENOSPC when @cap
 * is too small or -EINVAL for counts above the limits or a v1 proposal
 * offering nothing.
 */
int smc_clc_proposal_decode(const u8 *buf, size_t len,
			    struct smc_clc_proposal *p);
int smc_clc_proposal_encode(const struct smc_clc_proposal *p, u8 *buf,
			    size_t cap);

/* A decline, decoded. */
struct smc_clc_decline {
	struct smc_clc_hdr hdr;
	u8 id_for_peer[SMC_CLC_SYSTEMID_LEN];
	u32 peer_diagnosis;
	u8 os_type;
	u32 peer_diagnosis_v2[4];	/* v2 only */
};

/*
 * Decode a complete decline of @len bytes: exactly 28 bytes for v1, 44 for
 * v2, valid eyecatchers in header and trailer (Linux 6.12 itself does not
 * look at a decline's trailer; this codec is stricter).  hdr.first_contact
 * is the peer's "synchronization error" indication.  peer_diagnosis_v2 is
 * zero for v1.  Returns 0 or a negative errno as smc_clc_hdr_decode(),
 * -EPROTO for anything else.
 */
int smc_clc_decline_decode(const u8 *buf, size_t len,
			   struct smc_clc_decline *d);
/*
 * Encode a decline of version @d->hdr.version (v1: 28 bytes, v2: 44 bytes)
 * into @buf.  Returns the length written or -ENOSPC.
 */
int smc_clc_decline_encode(const struct smc_clc_decline *d, u8 *buf,
			   size_t cap);

/* The first contact extension of a v2 accept/confirm, decoded. */
struct smc_clc_fce {
	bool v2_direct;		/* peers are on the same IP subnet */
	u8 os_type;		/* SMC_CLC_OS_* */
	u8 release;		/* SMC_CLC_RELEASE_* */
	u8 hostname[SMC_CLC_HOSTNAME_LEN];	/* not NUL-terminated */
	bool v2x;		/* the v2.x fields below are present */
	u8 max_conns;		/* SMC-R only */
	u8 max_links;		/* SMC-R only */
	u16 feature_mask;
	u32 vendor_exp_options;
};

/* An SMC-R accept or confirm, decoded (host byte order). */
struct smc_clc_accept_confirm {
	struct smc_clc_hdr hdr;	/* type ACCEPT or CONFIRM, typev1 SMC_TYPE_R */
	u8 id_for_peer[SMC_CLC_SYSTEMID_LEN];
	u8 gid[SMC_CLC_GID_LEN];
	u8 mac[SMC_CLC_MAC_LEN];
	u32 qpn;		/* 24 bits */
	u32 rmb_rkey;
	u8 rmbe_idx;
	u32 rmbe_alert_token;
	u8 rmbe_size;		/* 4 bits, compressed buffer size */
	u8 qp_mtu;		/* 4 bits, IB MTU enum */
	u64 rmb_dma_addr;
	u32 psn;		/* 24 bits */
	/* v2 only */
	u8 eid[SMC_CLC_EID_LEN];
	/* v2 with hdr.first_contact only */
	struct smc_clc_fce fce;
	/* v2 first contact confirm only: GID list extension */
	bool has_gid_list;
	u8 gid_cnt;
	u8 gids[SMC_CLC_MAX_GLE_GIDS][SMC_CLC_GID_LEN];
};

/*
 * Decode a complete SMC-R accept or confirm of @len bytes.  Layout:
 * v1 is 68 bytes; v2 is 108 bytes plus, with the first contact bit, the
 * first contact extension (36 bytes, or 52 in its v2.x form, which is
 * preferred whenever the rest of the message then parses) and for a
 * confirm optionally the GID list extension (up to SMC_CLC_MAX_GLE_GIDS).
 * Bytes after these are refused.  Returns 0, -EPROTO for any malformation, -EOPNOTSUPP for
 * an SMC-D accept/confirm (typev1 SMC_TYPE_D; not handled by this codec).
 */
int smc_clc_accept_confirm_decode(const u8 *buf, size_t len,
				  struct smc_clc_accept_confirm *ac);
/*
 * Encode an SMC-R accept/confirm of type @ac->hdr.type and version
 * @ac->hdr.version.  The FCE is written for v2 with hdr.first_contact (in
 * its v2.x form when fce.v2x), the GID list only for such a confirm with
 * has_gid_list.  Returns the length written, -ENOSPC or -EINVAL.
 */
int smc_clc_accept_confirm_encode(const struct smc_clc_accept_confirm *ac,
				  u8 *buf, size_t cap);

/*
 * Human-readable text for an SMC_CLC_DECL_* reason code; never NULL
 * ("unknown reason code" for values the protocol does not define).
 */
const char *smc_clc_decline_reason_str(u32 code);

/* "proposal", "accept", "confirm", "decline" or "unknown". */
const char *smc_clc_type_str(u8 type);

#endif /* SMC_CLC_WIRE_H */
