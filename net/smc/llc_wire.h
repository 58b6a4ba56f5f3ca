/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LLC (link layer control) wire codec for SMC-R v1 and v2.
 *
 * LLC messages travel as RDMA SENDs on a link's queue pair.  A v1 message
 * is always SMC_LLC_MSG_LEN bytes.  A v2 message starts with the same 44
 * bytes but carries a 16-bit length instead of the 8-bit one and may be
 * longer (up to SMC_LLC_V2_MAX_LEN) when it has a list attached: the
 * rkeys of ADD_LINK, the GIDs of REQ_ADD_LINK, the rkeys of DELETE_RKEY.
 *
 * Pure functions only, like clc_wire: no verbs, no allocation, no locks.
 * Decoders validate everything they read and fill a host-order structure;
 * variable-length lists are not copied but read on demand from the
 * decoded buffer through the smc_llc_*_at() accessors, so the structure
 * stays small enough for the stack.  Encoders take the lists as host-order
 * arrays instead.
 */
#ifndef SMC_LLC_WIRE_H
#define SMC_LLC_WIRE_H

#include <linux/types.h>

/* message types (low nibble of the first byte) */
#define SMC_LLC_CONFIRM_LINK		0x01
#define SMC_LLC_ADD_LINK		0x02
#define SMC_LLC_ADD_LINK_CONT		0x03
#define SMC_LLC_DELETE_LINK		0x04
#define SMC_LLC_REQ_ADD_LINK		0x05	/* v2 only */
#define SMC_LLC_CONFIRM_RKEY		0x06
#define SMC_LLC_TEST_LINK		0x07
#define SMC_LLC_CONFIRM_RKEY_CONT	0x08
#define SMC_LLC_DELETE_RKEY		0x09

/* versions (high nibble of the first byte); there is no LLC version 1 */
#define SMC_LLC_VERSION_V1		0
#define SMC_LLC_VERSION_V2		2

/* the complete first byte of a v2 message */
#define SMC_LLC_V2_TYPE(t)		((SMC_LLC_VERSION_V2 << 4) | (t))
#define SMC_LLC_CONFIRM_LINK_V2		SMC_LLC_V2_TYPE(SMC_LLC_CONFIRM_LINK)
#define SMC_LLC_ADD_LINK_V2		SMC_LLC_V2_TYPE(SMC_LLC_ADD_LINK)
#define SMC_LLC_DELETE_LINK_V2		SMC_LLC_V2_TYPE(SMC_LLC_DELETE_LINK)
#define SMC_LLC_REQ_ADD_LINK_V2		SMC_LLC_V2_TYPE(SMC_LLC_REQ_ADD_LINK)
#define SMC_LLC_CONFIRM_RKEY_V2		SMC_LLC_V2_TYPE(SMC_LLC_CONFIRM_RKEY)
#define SMC_LLC_TEST_LINK_V2		SMC_LLC_V2_TYPE(SMC_LLC_TEST_LINK)
#define SMC_LLC_DELETE_RKEY_V2		SMC_LLC_V2_TYPE(SMC_LLC_DELETE_RKEY)

/* sizes */
#define SMC_LLC_MSG_LEN			44	/* every v1 message */
#define SMC_LLC_HDR_LEN			4
#define SMC_LLC_V2_MAX_LEN		8192	/* the v2 receive buffer */
#define SMC_LLC_GID_LEN			16
#define SMC_LLC_MAC_LEN			6
#define SMC_LLC_LINK_UID_LEN		4
#define SMC_LLC_TEST_DATA_LEN		16
/* ADD_LINK v2 extension (without rkeys) and one of its rkey entries */
#define SMC_LLC_ADD_LINK_EXT_LEN	28
#define SMC_LLC_ADD_LINK_RT_LEN		16
/* REQ_ADD_LINK: fixed part and one GID */
#define SMC_LLC_REQ_ADD_LINK_LEN	28
/* DELETE_RKEY v2: fixed part before the rkeys */
#define SMC_LLC_DEL_RKEY_V2_HDR_LEN	8

/* list limits */
#define SMC_LLC_CONFIRM_RKEY_MAX	2	/* tokens beyond the first */
#define SMC_LLC_RKEY_CONT_MAX		3	/* tokens in CONFIRM_RKEY_CONT */
#define SMC_LLC_ADD_LINK_CONT_MAX	2	/* rkey pairs per ADD_LINK_CONT */
#define SMC_LLC_ADD_LINK_V2_MAX_RKEYS	255
#define SMC_LLC_DEL_RKEY_MAX		8	/* v1 */
#define SMC_LLC_DEL_RKEY_V2_MAX		255
#define SMC_LLC_REQ_ADD_LINK_MAX_GIDS	8

/* header flags (fourth byte); the meaning of 0x40 and 0x20 is per type */
#define SMC_LLC_FLAG_RESP		0x80	/* response, all types */
#define SMC_LLC_FLAG_ADD_LNK_REJ	0x40	/* ADD_LINK response */
#define SMC_LLC_FLAG_DEL_LINK_ALL	0x40	/* DELETE_LINK */
#define SMC_LLC_FLAG_DEL_LINK_ORDERLY	0x20	/* DELETE_LINK */
#define SMC_LLC_FLAG_RKEY_NEG		0x20	/* CONFIRM/DELETE_RKEY resp. */
#define SMC_LLC_FLAG_RKEY_RETRY		0x10	/* CONFIRM_RKEY response */
#define SMC_LLC_FLAG_NO_RMBE_EYEC	0x03	/* CONFIRM_LINK */

/* ADD_LINK reject reason (v1 only, see smc_llc_add_link.rej_rsn) */
#define SMC_LLC_REJ_RSN_NO_ALT_PATH	1

/* DELETE_LINK reason codes */
#define SMC_LLC_DEL_LOST_PATH		0x00010000
#define SMC_LLC_DEL_OP_INIT_TERM	0x00020000
#define SMC_LLC_DEL_PROG_INIT_TERM	0x00030000
#define SMC_LLC_DEL_PROT_VIOL		0x00040000
#define SMC_LLC_DEL_NO_ASYM_NEEDED	0x00050000
#define SMC_LLC_DEL_NOLNK		0x00100000	/* response */
#define SMC_LLC_DEL_NOLGR		0x00200000	/* response */

/* Link identification shared by CONFIRM_LINK and ADD_LINK. */
struct smc_llc_confirm_link {
	u8 mac[SMC_LLC_MAC_LEN];
	u8 gid[SMC_LLC_GID_LEN];
	u32 qpn;			/* 24 bits */
	u8 link_num;
	u8 link_uid[SMC_LLC_LINK_UID_LEN];
	u8 max_links;
	u8 max_conns;
};

/* One rkey of an RMB on the old link and on the new link. */
struct smc_llc_rkey_pair {
	u32 rkey;			/* on the link the message arrives on */
	u32 rkey_new;			/* on the link being added */
	u64 vaddr_new;
};

struct smc_llc_add_link {
	u8 mac[SMC_LLC_MAC_LEN];
	u8 gid[SMC_LLC_GID_LEN];
	u32 qpn;			/* 24 bits */
	u8 link_num;
	u8 qp_mtu;			/* 4 bits, IB MTU enum */
	u32 psn;			/* 24 bits, initial PSN */
	u8 rej_rsn;			/* 4 bits, v1 only */
	/* v2 extension, present when has_ext (v2 only) */
	bool has_ext;
	bool v2_direct;
	u8 target_gid[SMC_LLC_GID_LEN];
	u16 num_rkeys;
	/* encode: host array of num_rkeys pairs; decode: NULL */
	const struct smc_llc_rkey_pair *rkeys;
};

struct smc_llc_add_link_cont {
	u8 link_num;
	u8 num_rkeys;			/* pairs still to come, incl. these */
	u8 num_present;			/* min(num_rkeys, 2), decode only */
	struct smc_llc_rkey_pair rt[SMC_LLC_ADD_LINK_CONT_MAX];
};

struct smc_llc_delete_link {
	u8 link_num;
	u32 reason;			/* SMC_LLC_DEL_* */
};

/* One RMB token; link_id is unused in CONFIRM_RKEY's first entry. */
struct smc_llc_rtoken {
	u8 link_id;
	u32 rkey;
	u64 vaddr;
};

/*
 * CONFIRM_RKEY: tok[0] is the RMB on the link the message travels on,
 * tok[1..num_rkeys] the same RMB on other links (num_rkeys <= 2).
 * CONFIRM_RKEY_CONT: num_rkeys counts the tokens still to come including
 * this message's, of which min(num_rkeys, 3) are in tok[0..2].
 */
struct smc_llc_confirm_rkey {
	u8 num_rkeys;
	struct smc_llc_rtoken tok[SMC_LLC_RKEY_CONT_MAX];
};

struct smc_llc_delete_rkey {
	u8 num_rkeys;
	/* v1: bitmask of failed rkeys, 0x80 is rkey 0; v2: failed count */
	u8 err_mask;
	/*
	 * Decode: how many rkeys the message really carries (v2 responses
	 * may announce num_rkeys but omit the list); read them with
	 * smc_llc_del_rkey_at().  Encode: ignored.
	 */
	u16 num_present;
	/* encode: host array of num_rkeys rkeys; decode: NULL */
	const u32 *rkeys;
};

struct smc_llc_test_link {
	u8 user_data[SMC_LLC_TEST_DATA_LEN];
};

struct smc_llc_req_add_link {
	u8 gid_cnt;
	/* decode: GIDs actually present (0 in a 44-byte response) */
	u8 num_present;
	/* encode: gid_cnt GIDs; decode: NULL, use smc_llc_req_gid_at() */
	const u8 (*gids)[SMC_LLC_GID_LEN];
};

/* A decoded LLC message (host byte order). */
struct smc_llc_msg {
	u8 type;			/* SMC_LLC_CONFIRM_LINK .. _DELETE_RKEY */
	u8 version;			/* SMC_LLC_VERSION_V1 or _V2 */
	u16 length;			/* decode: from the wire; encode: ignored */
	u8 flags;			/* SMC_LLC_FLAG_* */
	/* decode: the decoded buffer, for the list accessors */
	const u8 *wire;
	union {
		struct smc_llc_confirm_link confirm_link;
		struct smc_llc_add_link add_link;
		struct smc_llc_add_link_cont add_link_cont;
		struct smc_llc_delete_link delete_link;
		struct smc_llc_confirm_rkey confirm_rkey;	/* and _CONT */
		struct smc_llc_delete_rkey delete_rkey;
		struct smc_llc_test_link test_link;
		struct smc_llc_req_add_link req_add_link;
	};
};

/*
 * Decode the LLC message in @buf, @len bytes as received.  Checks:
 *  - version 0 or 2, a known type, REQ_ADD_LINK only as v2 and
 *    ADD_LINK_CONT and CONFIRM_RKEY_CONT only as v1;
 *  - v1: @len >= 44 and the length byte exactly 44;
 *  - v2: 44 <= length field <= SMC_LLC_V2_MAX_LEN and <= @len, and exactly
 *    what the type and its counts need (ADD_LINK: 44 or 72 + 16 * rkeys,
 *    REQ_ADD_LINK: 44 or 28 + 16 * gids, DELETE_RKEY: 44 or 8 + 4 * rkeys,
 *    whichever is larger; all other types: 44);
 *  - counts within the SMC_LLC_*_MAX limits.
 * A v2 DELETE_RKEY or REQ_ADD_LINK response may be 44 bytes with its list
 * cut off (Linux echoes the counts but not the list); num_present says
 * how much is there.  Reserved bytes are ignored.
 * Returns 0, -EINVAL when @len is too short for the message, -EPROTO for
 * a bad version, length or count and -EOPNOTSUPP for an unknown type.
 * @m->wire is set to @buf: the list accessors read from it.
 */
int smc_llc_decode(const u8 *buf, size_t len, struct smc_llc_msg *m);

/* smc_llc_decode() without keeping the result. */
int smc_llc_validate(const u8 *buf, size_t len);

/*
 * Encode @m into @buf (capacity @cap).  The whole message is written, the
 * reserved bytes as zero; the length follows from type, version and
 * counts (@m->length is ignored).  v1 messages are always 44 bytes, so
 * @cap must be at least 44 even for them.  Returns the length written,
 * -ENOSPC when @cap is too small and -EINVAL for a message that cannot be
 * encoded (unknown type, type not defined for the version, counts above
 * the limits, a missing list array, an ADD_LINK extension or nonzero
 * rej_rsn in the wrong version).
 */
int smc_llc_encode(const struct smc_llc_msg *m, u8 *buf, size_t cap);

/* List accessors for a decoded message; @i below the present count. */
void smc_llc_add_link_rkey_at(const struct smc_llc_msg *m, unsigned int i,
			      struct smc_llc_rkey_pair *rt);
u32 smc_llc_del_rkey_at(const struct smc_llc_msg *m, unsigned int i);
const u8 *smc_llc_req_gid_at(const struct smc_llc_msg *m, unsigned int i);

static inline bool smc_llc_is_resp(const struct smc_llc_msg *m)
{
	return m->flags & SMC_LLC_FLAG_RESP;
}

/*
 * Peek at the first byte of a work request buffer: true when it is an
 * LLC message of a known type (any version), false for CDC (0xfe) and
 * anything else.
 */
bool smc_llc_is_llc(u8 first_byte);

/* "CONFIRM_LINK", ..., "DELETE_RKEY" or "unknown" for a type code. */
const char *smc_llc_type_str(u8 type);

#endif /* SMC_LLC_WIRE_H */
