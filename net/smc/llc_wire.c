// SPDX-License-Identifier: GPL-2.0
/*
 * LLC wire codec for SMC-R v1 and v2.
 *
 * As in clc_wire.c, messages are plain byte arrays: every field is read
 * and written at an explicit offset with the unaligned big-endian helpers
 * and every offset is checked against the length before it is touched.
 *
 * Two fields of SMC-Rv2 are not big-endian on the wire: Linux 6.12 keeps
 * the 16-bit header length and the rkey count of the ADD_LINK extension as
 * plain u16 members and never byte-swaps them, so they travel in the
 * sender's CPU byte order.  To interoperate with Linux on the same
 * architecture this codec does the same (see llc_get16_cpu()); a
 * little-endian host therefore talks little-endian in these two fields.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include "llc_wire.h"

/* header */
#define HDR_TYPE		0	/* version << 4 | type */
#define HDR_LEN			1	/* v1: u8; v2: u16 in CPU order */
#define HDR_REJ_RSN		2	/* v1 ADD_LINK: low nibble */
#define HDR_FLAGS		3
#define HDR_VERSION_SHIFT	4
#define HDR_TYPE_MASK		0x0f
#define REJ_RSN_MASK		0x0f

/* CONFIRM_LINK */
#define CL_MAC			4
#define CL_GID			10
#define CL_QPN			26
#define CL_LINK_NUM		29
#define CL_LINK_UID		30
#define CL_MAX_LINKS		34
#define CL_MAX_CONNS		35

/* ADD_LINK */
#define AL_MAC			4
#define AL_GID			12
#define AL_QPN			28
#define AL_LINK_NUM		31
#define AL_MTU			32	/* low nibble */
#define AL_PSN			33
#define AL_MTU_MASK		0x0f
/* ADD_LINK v2 extension, absolute offsets */
#define ALX_FLAGS		44
#define ALX_V2_DIRECT		0x80
#define ALX_TARGET_GID		46
#define ALX_NUM_RKEYS		70	/* u16 in CPU order */
#define ALX_RKEYS		72
/* one rkey pair (ADD_LINK v2 extension and ADD_LINK_CONT) */
#define RT_RKEY			0
#define RT_RKEY_NEW		4
#define RT_VADDR_NEW		8

/* ADD_LINK_CONT */
#define ALC_LINK_NUM		4
#define ALC_NUM_RKEYS		5
#define ALC_RT			8

/* DELETE_LINK */
#define DL_LINK_NUM		4
#define DL_REASON		5

/*
 * CONFIRM_RKEY: three 13-byte tokens from byte 4, the first token's link
 * id byte holding the count instead.  CONFIRM_RKEY_CONT: the count, then
 * three complete tokens from byte 5 (RFC 7609; unused by Linux).
 */
#define CR_NUM_RKEYS		4
#define CR_TOK			4
#define CRC_TOK			5
#define CR_TOK_LEN		13
#define TOK_LINK_ID		0
#define TOK_RKEY		1
#define TOK_VADDR		5

/* DELETE_RKEY */
#define DR_NUM_RKEYS		4
#define DR_ERR_MASK		5
#define DR_RKEYS		8

/* TEST_LINK */
#define TL_USER_DATA		4

/* REQ_ADD_LINK */
#define RAL_GID_CNT		24
#define RAL_GIDS		28

static u16 llc_get16_cpu(const u8 *p)
{
	return get_unaligned((const u16 *)p);
}

static void llc_put16_cpu(u16 v, u8 *p)
{
	put_unaligned(v, (u16 *)p);
}

static u32 llc_get24(const u8 *p)
{
	return (u32)p[0] << 16 | (u32)p[1] << 8 | p[2];
}

static void llc_put24(u32 v, u8 *p)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static bool llc_type_known(u8 type)
{
	return type >= SMC_LLC_CONFIRM_LINK && type <= SMC_LLC_DELETE_RKEY;
}

/* Is @type defined for @version?  Both must already be known. */
static bool llc_type_in_version(u8 type, u8 version)
{
	switch (type) {
	case SMC_LLC_REQ_ADD_LINK:
		return version == SMC_LLC_VERSION_V2;
	case SMC_LLC_ADD_LINK_CONT:
	case SMC_LLC_CONFIRM_RKEY_CONT:
		return version == SMC_LLC_VERSION_V1;
	default:
		return true;
	}
}

bool smc_llc_is_llc(u8 first_byte)
{
	u8 version = first_byte >> HDR_VERSION_SHIFT;
	u8 type = first_byte & HDR_TYPE_MASK;

	if (version != SMC_LLC_VERSION_V1 && version != SMC_LLC_VERSION_V2)
		return false;
	return llc_type_known(type) && llc_type_in_version(type, version);
}

/* ---------------------------------------------------------------------- */
/* decoding                                                                */

static void llc_get_rkey_pair(const u8 *p, struct smc_llc_rkey_pair *rt)
{
	rt->rkey = get_unaligned_be32(p + RT_RKEY);
	rt->rkey_new = get_unaligned_be32(p + RT_RKEY_NEW);
	rt->vaddr_new = get_unaligned_be64(p + RT_VADDR_NEW);
}

static void llc_get_rtoken(const u8 *p, struct smc_llc_rtoken *tok)
{
	tok->link_id = p[TOK_LINK_ID];
	tok->rkey = get_unaligned_be32(p + TOK_RKEY);
	tok->vaddr = get_unaligned_be64(p + TOK_VADDR);
}

static void llc_dec_confirm_link(const u8 *buf, struct smc_llc_confirm_link *c)
{
	memcpy(c->mac, buf + CL_MAC, SMC_LLC_MAC_LEN);
	memcpy(c->gid, buf + CL_GID, SMC_LLC_GID_LEN);
	c->qpn = llc_get24(buf + CL_QPN);
	c->link_num = buf[CL_LINK_NUM];
	memcpy(c->link_uid, buf + CL_LINK_UID, SMC_LLC_LINK_UID_LEN);
	c->max_links = buf[CL_MAX_LINKS];
	c->max_conns = buf[CL_MAX_CONNS];
}

/* The fixed 44-byte part; the v2 extension is checked by the caller. */
static void llc_dec_add_link(const u8 *buf, u8 version,
			     struct smc_llc_add_link *a)
{
	memcpy(a->mac, buf + AL_MAC, SMC_LLC_MAC_LEN);
	memcpy(a->gid, buf + AL_GID, SMC_LLC_GID_LEN);
	a->qpn = llc_get24(buf + AL_QPN);
	a->link_num = buf[AL_LINK_NUM];
	a->qp_mtu = buf[AL_MTU] & AL_MTU_MASK;
	a->psn = llc_get24(buf + AL_PSN);
	/* in v2 this byte belongs to the length field */
	a->rej_rsn = version == SMC_LLC_VERSION_V1 ?
		     buf[HDR_REJ_RSN] & REJ_RSN_MASK : 0;
}

static int llc_dec_add_link_ext(const u8 *buf, u16 length,
				struct smc_llc_add_link *a)
{
	u16 n;

	if (length == SMC_LLC_MSG_LEN)
		return 0;	/* no extension (e.g. a reject) */
	if (length < ALX_RKEYS)
		return -EPROTO;
	n = llc_get16_cpu(buf + ALX_NUM_RKEYS);
	if (n > SMC_LLC_ADD_LINK_V2_MAX_RKEYS ||
	    length != ALX_RKEYS + n * SMC_LLC_ADD_LINK_RT_LEN)
		return -EPROTO;
	a->has_ext = true;
	a->v2_direct = buf[ALX_FLAGS] & ALX_V2_DIRECT;
	memcpy(a->target_gid, buf + ALX_TARGET_GID, SMC_LLC_GID_LEN);
	a->num_rkeys = n;
	return 0;
}

static int llc_dec_add_link_cont(const u8 *buf,
				 struct smc_llc_add_link_cont *c)
{
	unsigned int i;

	c->link_num = buf[ALC_LINK_NUM];
	c->num_rkeys = buf[ALC_NUM_RKEYS];
	c->num_present = min_t(u8, c->num_rkeys, SMC_LLC_ADD_LINK_CONT_MAX);
	for (i = 0; i < c->num_present; i++)
		llc_get_rkey_pair(buf + ALC_RT + i * SMC_LLC_ADD_LINK_RT_LEN,
				  &c->rt[i]);
	return 0;
}

static int llc_dec_confirm_rkey(const u8 *buf, u8 type,
				struct smc_llc_confirm_rkey *c)
{
	unsigned int i, present, base = CR_TOK;

	c->num_rkeys = buf[CR_NUM_RKEYS];
	if (type == SMC_LLC_CONFIRM_RKEY) {
		if (c->num_rkeys > SMC_LLC_CONFIRM_RKEY_MAX)
			return -EPROTO;
		present = c->num_rkeys + 1;
	} else {
		present = min_t(u8, c->num_rkeys, SMC_LLC_RKEY_CONT_MAX);
		base = CRC_TOK;
	}
	for (i = 0; i < present; i++)
		llc_get_rtoken(buf + base + i * CR_TOK_LEN, &c->tok[i]);
	/* the first byte of the first token is the count, not a link id */
	if (type == SMC_LLC_CONFIRM_RKEY)
		c->tok[0].link_id = 0;
	return 0;
}

static int llc_dec_delete_rkey(const u8 *buf, u8 version, u16 length,
			       u8 flags, struct smc_llc_delete_rkey *d)
{
	unsigned int room = (length - DR_RKEYS) / sizeof(u32);

	d->num_rkeys = buf[DR_NUM_RKEYS];
	d->err_mask = buf[DR_ERR_MASK];
	if (version == SMC_LLC_VERSION_V1) {
		if (d->num_rkeys > SMC_LLC_DEL_RKEY_MAX)
			return -EPROTO;
		d->num_present = d->num_rkeys;
		return 0;
	}
	/* v2: exactly the rkeys, but at least 44 bytes */
	if (length != max_t(unsigned int, SMC_LLC_MSG_LEN,
			    DR_RKEYS + d->num_rkeys * sizeof(u32))) {
		/* a response may carry the counts without the list */
		if (!(flags & SMC_LLC_FLAG_RESP) || length != SMC_LLC_MSG_LEN)
			return -EPROTO;
	}
	d->num_present = min_t(unsigned int, d->num_rkeys, room);
	return 0;
}

static int llc_dec_req_add_link(const u8 *buf, u16 length, u8 flags,
				struct smc_llc_req_add_link *r)
{
	unsigned int room = (length - RAL_GIDS) / SMC_LLC_GID_LEN;

	r->gid_cnt = buf[RAL_GID_CNT];
	if (r->gid_cnt > SMC_LLC_REQ_ADD_LINK_MAX_GIDS)
		return -EPROTO;
	if (length != max_t(unsigned int, SMC_LLC_MSG_LEN,
			    RAL_GIDS + r->gid_cnt * SMC_LLC_GID_LEN)) {
		if (!(flags & SMC_LLC_FLAG_RESP) || length != SMC_LLC_MSG_LEN)
			return -EPROTO;
	}
	r->num_present = min_t(unsigned int, r->gid_cnt, room);
	return 0;
}

int smc_llc_decode(const u8 *buf, size_t len, struct smc_llc_msg *m)
{
	u8 version, type;
	u16 length;

	memset(m, 0, sizeof(*m));
	if (len < SMC_LLC_MSG_LEN)
		return -EINVAL;
	version = buf[HDR_TYPE] >> HDR_VERSION_SHIFT;
	type = buf[HDR_TYPE] & HDR_TYPE_MASK;
	if (version != SMC_LLC_VERSION_V1 && version != SMC_LLC_VERSION_V2)
		return -EPROTO;
	if (!llc_type_known(type))
		return -EOPNOTSUPP;
	if (!llc_type_in_version(type, version))
		return -EPROTO;

	if (version == SMC_LLC_VERSION_V1) {
		length = buf[HDR_LEN];
		if (length != SMC_LLC_MSG_LEN)
			return -EPROTO;
	} else {
		length = llc_get16_cpu(buf + HDR_LEN);
		if (length < SMC_LLC_MSG_LEN || length > SMC_LLC_V2_MAX_LEN)
			return -EPROTO;
		if (length > len)
			return -EINVAL;
		/* only these types may be longer than 44 bytes */
		if (length != SMC_LLC_MSG_LEN &&
		    type != SMC_LLC_ADD_LINK && type != SMC_LLC_DELETE_RKEY &&
		    type != SMC_LLC_REQ_ADD_LINK)
			return -EPROTO;
	}

	m->type = type;
	m->version = version;
	m->length = length;
	m->flags = buf[HDR_FLAGS];
	m->wire = buf;

	switch (type) {
	case SMC_LLC_CONFIRM_LINK:
		llc_dec_confirm_link(buf, &m->confirm_link);
		return 0;
	case SMC_LLC_ADD_LINK:
		llc_dec_add_link(buf, version, &m->add_link);
		if (version == SMC_LLC_VERSION_V1)
			return 0;
		return llc_dec_add_link_ext(buf, length, &m->add_link);
	case SMC_LLC_ADD_LINK_CONT:
		return llc_dec_add_link_cont(buf, &m->add_link_cont);
	case SMC_LLC_DELETE_LINK:
		m->delete_link.link_num = buf[DL_LINK_NUM];
		m->delete_link.reason = get_unaligned_be32(buf + DL_REASON);
		return 0;
	case SMC_LLC_CONFIRM_RKEY:
	case SMC_LLC_CONFIRM_RKEY_CONT:
		return llc_dec_confirm_rkey(buf, type, &m->confirm_rkey);
	case SMC_LLC_DELETE_RKEY:
		return llc_dec_delete_rkey(buf, version, length, m->flags,
					   &m->delete_rkey);
	case SMC_LLC_TEST_LINK:
		memcpy(m->test_link.user_data, buf + TL_USER_DATA,
		       SMC_LLC_TEST_DATA_LEN);
		return 0;
	case SMC_LLC_REQ_ADD_LINK:
		return llc_dec_req_add_link(buf, length, m->flags,
					    &m->req_add_link);
	}
	return -EOPNOTSUPP;	/* not reached */
}

int smc_llc_validate(const u8 *buf, size_t len)
{
	struct smc_llc_msg m;

	return smc_llc_decode(buf, len, &m);
}

void smc_llc_add_link_rkey_at(const struct smc_llc_msg *m, unsigned int i,
			      struct smc_llc_rkey_pair *rt)
{
	llc_get_rkey_pair(m->wire + ALX_RKEYS + i * SMC_LLC_ADD_LINK_RT_LEN,
			  rt);
}

u32 smc_llc_del_rkey_at(const struct smc_llc_msg *m, unsigned int i)
{
	return get_unaligned_be32(m->wire + DR_RKEYS + i * sizeof(u32));
}

const u8 *smc_llc_req_gid_at(const struct smc_llc_msg *m, unsigned int i)
{
	return m->wire + RAL_GIDS + i * SMC_LLC_GID_LEN;
}

/* ---------------------------------------------------------------------- */
/* encoding                                                                */

static void llc_put_rkey_pair(const struct smc_llc_rkey_pair *rt, u8 *p)
{
	put_unaligned_be32(rt->rkey, p + RT_RKEY);
	put_unaligned_be32(rt->rkey_new, p + RT_RKEY_NEW);
	put_unaligned_be64(rt->vaddr_new, p + RT_VADDR_NEW);
}

static void llc_put_rtoken(const struct smc_llc_rtoken *tok, u8 *p)
{
	p[TOK_LINK_ID] = tok->link_id;
	put_unaligned_be32(tok->rkey, p + TOK_RKEY);
	put_unaligned_be64(tok->vaddr, p + TOK_VADDR);
}

/* The length @m will have on the wire, or -EINVAL. */
static int llc_enc_length(const struct smc_llc_msg *m)
{
	bool v2 = m->version == SMC_LLC_VERSION_V2;
	unsigned int n;

	switch (m->type) {
	case SMC_LLC_ADD_LINK:
		if (!m->add_link.has_ext)
			return SMC_LLC_MSG_LEN;
		n = m->add_link.num_rkeys;
		if (!v2 || n > SMC_LLC_ADD_LINK_V2_MAX_RKEYS ||
		    (n && !m->add_link.rkeys))
			return -EINVAL;
		return ALX_RKEYS + n * SMC_LLC_ADD_LINK_RT_LEN;
	case SMC_LLC_DELETE_RKEY:
		n = m->delete_rkey.num_rkeys;
		if (n > (v2 ? SMC_LLC_DEL_RKEY_V2_MAX : SMC_LLC_DEL_RKEY_MAX) ||
		    (n && !m->delete_rkey.rkeys))
			return -EINVAL;
		return max_t(unsigned int, SMC_LLC_MSG_LEN,
			     DR_RKEYS + n * sizeof(u32));
	case SMC_LLC_REQ_ADD_LINK:
		n = m->req_add_link.gid_cnt;
		if (n > SMC_LLC_REQ_ADD_LINK_MAX_GIDS ||
		    (n && !m->req_add_link.gids))
			return -EINVAL;
		return max_t(unsigned int, SMC_LLC_MSG_LEN,
			     RAL_GIDS + n * SMC_LLC_GID_LEN);
	case SMC_LLC_CONFIRM_RKEY:
		if (m->confirm_rkey.num_rkeys > SMC_LLC_CONFIRM_RKEY_MAX)
			return -EINVAL;
		return SMC_LLC_MSG_LEN;
	default:
		return SMC_LLC_MSG_LEN;
	}
}

static void llc_enc_confirm_link(const struct smc_llc_confirm_link *c,
				 u8 *buf)
{
	memcpy(buf + CL_MAC, c->mac, SMC_LLC_MAC_LEN);
	memcpy(buf + CL_GID, c->gid, SMC_LLC_GID_LEN);
	llc_put24(c->qpn, buf + CL_QPN);
	buf[CL_LINK_NUM] = c->link_num;
	memcpy(buf + CL_LINK_UID, c->link_uid, SMC_LLC_LINK_UID_LEN);
	buf[CL_MAX_LINKS] = c->max_links;
	buf[CL_MAX_CONNS] = c->max_conns;
}

static void llc_enc_add_link(const struct smc_llc_add_link *a, u8 *buf)
{
	unsigned int i;

	memcpy(buf + AL_MAC, a->mac, SMC_LLC_MAC_LEN);
	memcpy(buf + AL_GID, a->gid, SMC_LLC_GID_LEN);
	llc_put24(a->qpn, buf + AL_QPN);
	buf[AL_LINK_NUM] = a->link_num;
	buf[AL_MTU] = a->qp_mtu;
	llc_put24(a->psn, buf + AL_PSN);
	if (!a->has_ext)
		return;
	buf[ALX_FLAGS] = a->v2_direct ? ALX_V2_DIRECT : 0;
	memcpy(buf + ALX_TARGET_GID, a->target_gid, SMC_LLC_GID_LEN);
	llc_put16_cpu(a->num_rkeys, buf + ALX_NUM_RKEYS);
	for (i = 0; i < a->num_rkeys; i++)
		llc_put_rkey_pair(&a->rkeys[i],
				  buf + ALX_RKEYS + i * SMC_LLC_ADD_LINK_RT_LEN);
}

static void llc_enc_add_link_cont(const struct smc_llc_add_link_cont *c,
				  u8 *buf)
{
	unsigned int i, n;

	buf[ALC_LINK_NUM] = c->link_num;
	buf[ALC_NUM_RKEYS] = c->num_rkeys;
	n = min_t(u8, c->num_rkeys, SMC_LLC_ADD_LINK_CONT_MAX);
	for (i = 0; i < n; i++)
		llc_put_rkey_pair(&c->rt[i],
				  buf + ALC_RT + i * SMC_LLC_ADD_LINK_RT_LEN);
}

static void llc_enc_confirm_rkey(const struct smc_llc_confirm_rkey *c,
				 u8 type, u8 *buf)
{
	unsigned int i, n, base = CR_TOK;

	if (type == SMC_LLC_CONFIRM_RKEY) {
		n = c->num_rkeys + 1;
	} else {
		n = min_t(u8, c->num_rkeys, SMC_LLC_RKEY_CONT_MAX);
		base = CRC_TOK;
	}
	for (i = 0; i < n; i++)
		llc_put_rtoken(&c->tok[i], buf + base + i * CR_TOK_LEN);
	/* the count shares its byte with the first token's link id */
	buf[CR_NUM_RKEYS] = c->num_rkeys;
}

int smc_llc_encode(const struct smc_llc_msg *m, u8 *buf, size_t cap)
{
	bool v2 = m->version == SMC_LLC_VERSION_V2;
	unsigned int i;
	int length;

	if (m->version != SMC_LLC_VERSION_V1 && !v2)
		return -EINVAL;
	if (!llc_type_known(m->type) ||
	    !llc_type_in_version(m->type, m->version))
		return -EINVAL;
	if (m->type == SMC_LLC_ADD_LINK &&
	    (m->add_link.rej_rsn > REJ_RSN_MASK ||
	     (v2 && m->add_link.rej_rsn) ||
	     m->add_link.qp_mtu > AL_MTU_MASK))
		return -EINVAL;
	length = llc_enc_length(m);
	if (length < 0)
		return length;
	if (cap < (size_t)length)
		return -ENOSPC;

	memset(buf, 0, length);
	buf[HDR_TYPE] = m->version << HDR_VERSION_SHIFT | m->type;
	if (v2) {
		llc_put16_cpu(length, buf + HDR_LEN);
	} else {
		buf[HDR_LEN] = length;
		if (m->type == SMC_LLC_ADD_LINK)
			buf[HDR_REJ_RSN] = m->add_link.rej_rsn;
	}
	buf[HDR_FLAGS] = m->flags;

	switch (m->type) {
	case SMC_LLC_CONFIRM_LINK:
		llc_enc_confirm_link(&m->confirm_link, buf);
		break;
	case SMC_LLC_ADD_LINK:
		llc_enc_add_link(&m->add_link, buf);
		break;
	case SMC_LLC_ADD_LINK_CONT:
		llc_enc_add_link_cont(&m->add_link_cont, buf);
		break;
	case SMC_LLC_DELETE_LINK:
		buf[DL_LINK_NUM] = m->delete_link.link_num;
		put_unaligned_be32(m->delete_link.reason, buf + DL_REASON);
		break;
	case SMC_LLC_CONFIRM_RKEY:
	case SMC_LLC_CONFIRM_RKEY_CONT:
		llc_enc_confirm_rkey(&m->confirm_rkey, m->type, buf);
		break;
	case SMC_LLC_DELETE_RKEY:
		buf[DR_NUM_RKEYS] = m->delete_rkey.num_rkeys;
		buf[DR_ERR_MASK] = m->delete_rkey.err_mask;
		for (i = 0; i < m->delete_rkey.num_rkeys; i++)
			put_unaligned_be32(m->delete_rkey.rkeys[i],
					   buf + DR_RKEYS + i * sizeof(u32));
		break;
	case SMC_LLC_TEST_LINK:
		memcpy(buf + TL_USER_DATA, m->test_link.user_data,
		       SMC_LLC_TEST_DATA_LEN);
		break;
	case SMC_LLC_REQ_ADD_LINK:
		buf[RAL_GID_CNT] = m->req_add_link.gid_cnt;
		for (i = 0; i < m->req_add_link.gid_cnt; i++)
			memcpy(buf + RAL_GIDS + i * SMC_LLC_GID_LEN,
			       m->req_add_link.gids[i], SMC_LLC_GID_LEN);
		break;
	}
	return length;
}

const char *smc_llc_type_str(u8 type)
{
	switch (type) {
	case SMC_LLC_CONFIRM_LINK:
		return "CONFIRM_LINK";
	case SMC_LLC_ADD_LINK:
		return "ADD_LINK";
	case SMC_LLC_ADD_LINK_CONT:
		return "ADD_LINK_CONT";
	case SMC_LLC_DELETE_LINK:
		return "DELETE_LINK";
	case SMC_LLC_REQ_ADD_LINK:
		return "REQ_ADD_LINK";
	case SMC_LLC_CONFIRM_RKEY:
		return "CONFIRM_RKEY";
	case SMC_LLC_TEST_LINK:
		return "TEST_LINK";
	case SMC_LLC_CONFIRM_RKEY_CONT:
		return "CONFIRM_RKEY_CONT";
	case SMC_LLC_DELETE_RKEY:
		return "DELETE_RKEY";
	default:
		return "unknown";
	}
}
