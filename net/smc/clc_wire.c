// SPDX-License-Identifier: GPL-2.0
/*
 * CLC wire codec for SMC-R v1 and v2.
 *
 * Every message is handled as a plain byte array: fields are read and
 * written at explicit offsets with the unaligned big-endian helpers, so no
 * structure ever overlays wire data and neither padding nor bitfield
 * ordering can leak into the protocol.  Decoders check every offset
 * against the length they were given before touching the bytes behind it.
 */
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include "clc_wire.h"

/* "SMCR" and "SMCD" in EBCDIC */
static const u8 smc_clc_eyecatcher_r[SMC_CLC_EYECATCHER_LEN] = {
	0xe2, 0xd4, 0xc3, 0xd9
};

static const u8 smc_clc_eyecatcher_d[SMC_CLC_EYECATCHER_LEN] = {
	0xe2, 0xd4, 0xc3, 0xc4
};

/* header: offsets and the bits of the version/type byte */
#define HDR_EYECATCHER		0
#define HDR_TYPE		4
#define HDR_LENGTH		5
#define HDR_VERSION_TYPES	7
#define HDR_VERSION_SHIFT	4
#define HDR_TYPEV2_SHIFT	2
#define HDR_TYPE_MASK		0x3
#define HDR_FIRST_CONTACT	0x2	/* within typev2 */

/* local identification, shared by proposal and accept/confirm */
#define LCL_ID			8
#define LCL_GID			16
#define LCL_MAC			32

/* proposal: base part */
#define PROP_IPAREA_OFFSET	38
/* proposal: SMC-D area, relative to its start */
#define SMCD_GID		0
#define SMCD_CHID		8
#define SMCD_V2_EXT_OFFSET	10
#define SMCD_V2_EXT_BASE	12	/* the v2 ext offset counts from here */
#define SMCD_VENDOR_OUI		12
#define SMCD_VENDOR_EXP		15
/* proposal: IP prefix area, relative to its start */
#define PFX_SUBNET		0
#define PFX_LEN			4
#define PFX_V6_CNT		7
/* proposal: v2 extension, relative to its start */
#define V2X_EID_CNT		0
#define V2X_ISM_GID_CNT		1
#define V2X_FLAG		3
#define V2X_FLAG_SEID		0x1
#define V2X_FLAG_RELEASE_SHIFT	4
#define V2X_SMCD_V2_EXT_OFFSET	6
#define V2X_SMCD_V2_EXT_BASE	8	/* the SMC-D v2 ext offset counts here */
#define V2X_ROCE_GID		8
#define V2X_MAX_CONNS		24
#define V2X_MAX_LINKS		25
#define V2X_FEATURE_MASK	26
/* proposal: SMC-D v2 extension, relative to its start */
#define SMCD2X_SYSTEM_EID	0
/* largest offsets a receiver accepts (end of the largest area before) */
#define SMCD_V2_EXT_OFFSET_MAX	(SMC_CLC_PROP_SMCD_LEN - SMCD_V2_EXT_BASE + \
				 SMC_CLC_PROP_PREFIX_LEN + \
				 SMC_CLC_MAX_V6_PREFIX * \
				 SMC_CLC_IPV6_PREFIX_LEN)
#define V2X_SMCD_OFFSET_MAX	(SMC_CLC_V2_EXT_LEN - V2X_SMCD_V2_EXT_BASE + \
				 SMC_CLC_MAX_UEID * SMC_CLC_EID_LEN)

/* accept/confirm SMC-R, absolute offsets */
#define AC_QPN			38
#define AC_RKEY			41
#define AC_RMBE_IDX		45
#define AC_ALERT_TOKEN		46
#define AC_SIZE_MTU		50	/* rmbe_size << 4 | qp_mtu */
#define AC_DMA_ADDR		52
#define AC_PSN			61
#define AC_EID			64	/* v2 */
#define AC_FCE			104	/* v2, first contact */
/* first contact extension, relative to its start */
#define FCE_FLAGS		0
#define FCE_V2_DIRECT		0x80
#define FCE_OS_RELEASE		1	/* os_type << 4 | release */
#define FCE_HOSTNAME		4
#define FCE_MAX_CONNS		36
#define FCE_MAX_LINKS		37
#define FCE_FEATURE_MASK	38
#define FCE_VENDOR_OPTS		40
#define GLE_GID_CNT		0

/* decline, absolute offsets */
#define DECL_ID			8
#define DECL_DIAG		16
#define DECL_OS_TYPE		20	/* os_type << 4 */
#define DECL_DIAG_V2		24

#define NIBBLE_MAX		0xf
#define U24_MAX			0xffffff

static bool smc_clc_is_eyecatcher(const u8 *p, bool *smcd)
{
	if (!memcmp(p, smc_clc_eyecatcher_r, SMC_CLC_EYECATCHER_LEN)) {
		if (smcd)
			*smcd = false;
		return true;
	}
	if (!memcmp(p, smc_clc_eyecatcher_d, SMC_CLC_EYECATCHER_LEN)) {
		if (smcd)
			*smcd = true;
		return true;
	}
	return false;
}

static void smc_clc_put_eyecatcher(u8 *p, bool smcd)
{
	memcpy(p, smcd ? smc_clc_eyecatcher_d : smc_clc_eyecatcher_r,
	       SMC_CLC_EYECATCHER_LEN);
}

static bool smc_clc_offers_smcd(u8 type)
{
	return type == SMC_TYPE_D || type == SMC_TYPE_B;
}

/* Is @length plausible for a message of this type and version? */
static bool smc_clc_hdr_len_ok(const struct smc_clc_hdr *hdr)
{
	u16 len = hdr->length;

	switch (hdr->type) {
	case SMC_CLC_PROPOSAL:
		if (hdr->version == SMC_V1)
			return len >= SMC_CLC_PROP_MIN_LEN_V1 &&
			       len <= SMC_CLC_PROP_MAX_LEN_V1;
		return len >= SMC_CLC_PROP_MIN_LEN_V2 &&
		       len <= SMC_CLC_PROP_MAX_LEN_V2;
	case SMC_CLC_ACCEPT:
	case SMC_CLC_CONFIRM:
		if (hdr->typev1 == SMC_TYPE_R)
			return hdr->version == SMC_V1 ?
			       len == SMCR_CLC_ACCEPT_CONFIRM_LEN :
			       len >= SMCR_CLC_ACCEPT_CONFIRM_LEN_V2;
		if (hdr->typev1 == SMC_TYPE_D)
			return hdr->version == SMC_V1 ?
			       len == SMCD_CLC_ACCEPT_CONFIRM_LEN :
			       len >= SMCD_CLC_ACCEPT_CONFIRM_LEN_V2;
		return false;
	case SMC_CLC_DECLINE:
		return len == (hdr->version == SMC_V1 ?
			       SMC_CLC_DECLINE_LEN_V1 : SMC_CLC_DECLINE_LEN_V2);
	}
	return false;
}

int smc_clc_hdr_decode(const u8 *buf, size_t len, struct smc_clc_hdr *hdr)
{
	u8 vt;

	memset(hdr, 0, sizeof(*hdr));
	if (!buf || len < SMC_CLC_HDR_LEN)
		return -EINVAL;
	if (!smc_clc_is_eyecatcher(buf + HDR_EYECATCHER, &hdr->smcd))
		return -EPROTO;

	vt = buf[HDR_VERSION_TYPES];
	hdr->type = buf[HDR_TYPE];
	hdr->length = get_unaligned_be16(buf + HDR_LENGTH);
	hdr->version = vt >> HDR_VERSION_SHIFT;
	hdr->typev1 = vt & HDR_TYPE_MASK;
	hdr->typev2 = (vt >> HDR_TYPEV2_SHIFT) & HDR_TYPE_MASK;

	if (hdr->type < SMC_CLC_PROPOSAL || hdr->type > SMC_CLC_DECLINE)
		return -EOPNOTSUPP;
	if (hdr->type != SMC_CLC_PROPOSAL)
		hdr->first_contact = hdr->typev2 & HDR_FIRST_CONTACT;
	if (hdr->version < SMC_V1)
		return -EPROTO;
	if (hdr->version > SMC_V2)
		return -EOPNOTSUPP;
	if (hdr->length > SMC_CLC_MAX_MSG_LEN || !smc_clc_hdr_len_ok(hdr))
		return -EPROTO;
	return 0;
}

bool smc_clc_hdr_framed(const u8 *buf, size_t len, u16 *length)
{
	if (!buf || len < SMC_CLC_HDR_LEN ||
	    !smc_clc_is_eyecatcher(buf + HDR_EYECATCHER, NULL))
		return false;
	*length = get_unaligned_be16(buf + HDR_LENGTH);
	return true;
}

/* What every encoder checks before it writes a byte of the caller's buffer. */
static int smc_clc_hdr_check(const struct smc_clc_hdr *hdr)
{
	if (hdr->type < SMC_CLC_PROPOSAL || hdr->type > SMC_CLC_DECLINE ||
	    hdr->version < SMC_V1 || hdr->version > SMC_V2 ||
	    hdr->typev1 > HDR_TYPE_MASK || hdr->typev2 > HDR_TYPE_MASK)
		return -EINVAL;
	return 0;
}

int smc_clc_hdr_encode(const struct smc_clc_hdr *hdr, u8 *buf)
{
	u8 typev2;

	if (smc_clc_hdr_check(hdr))
		return -EINVAL;

	if (hdr->type == SMC_CLC_PROPOSAL)
		typev2 = hdr->typev2;
	else
		typev2 = hdr->first_contact ? HDR_FIRST_CONTACT : 0;

	smc_clc_put_eyecatcher(buf + HDR_EYECATCHER, hdr->smcd);
	buf[HDR_TYPE] = hdr->type;
	put_unaligned_be16(hdr->length, buf + HDR_LENGTH);
	buf[HDR_VERSION_TYPES] = hdr->version << HDR_VERSION_SHIFT |
				 typev2 << HDR_TYPEV2_SHIFT | hdr->typev1;
	return SMC_CLC_HDR_LEN;
}

/*
 * Common first step of every message decoder: a valid header of the
 * expected type whose length field matches the buffer exactly and a
 * valid trailing eyecatcher.
 */
static int smc_clc_msg_check(const u8 *buf, size_t len, u8 type,
			     struct smc_clc_hdr *hdr)
{
	int rc;

	rc = smc_clc_hdr_decode(buf, len, hdr);
	if (rc)
		return rc;
	if (hdr->type != type)
		return -EPROTO;
	if (len != hdr->length)
		return -EPROTO;
	if (!smc_clc_is_eyecatcher(buf + len - SMC_CLC_TRL_LEN, NULL))
		return -EPROTO;
	return 0;
}

/* Size of a proposal as laid out by smc_clc_proposal_encode(). */
struct smc_clc_prop_layout {
	size_t smcd;		/* SMC-D area, 0 when absent */
	size_t ip;		/* IP area, 0 when absent */
	size_t v2_ext;		/* v2 extension, 0 when absent */
	size_t smcd_v2_ext;	/* SMC-D v2 extension, 0 when absent */
	size_t total;
};

static int smc_clc_prop_layout(const struct smc_clc_proposal *p,
			       struct smc_clc_prop_layout *l)
{
	const struct smc_clc_hdr *hdr = &p->hdr;
	bool ip, v2, smcd2;

	memset(l, 0, sizeof(*l));
	if (p->ipv6_prefix_cnt > SMC_CLC_MAX_V6_PREFIX ||
	    p->eid_cnt > SMC_CLC_MAX_UEID ||
	    p->ism_gid_cnt > SMC_CLC_MAX_ISM_GIDS ||
	    p->release > NIBBLE_MAX)
		return -EINVAL;

	if (hdr->version == SMC_V1) {
		if (hdr->typev1 == SMC_TYPE_N)
			return -EINVAL;
		ip = true;
		v2 = false;
		smcd2 = false;
		if (smc_clc_offers_smcd(hdr->typev1))
			l->smcd = SMC_CLC_PROP_SMCD_LEN;
	} else {
		ip = hdr->typev1 != SMC_TYPE_N;
		v2 = hdr->typev2 != SMC_TYPE_N;
		smcd2 = smc_clc_offers_smcd(hdr->typev2);
		if (!ip && !v2)
			return -EINVAL;
		l->smcd = SMC_CLC_PROP_SMCD_LEN;
	}
	if (ip)
		l->ip = SMC_CLC_PROP_PREFIX_LEN +
			p->ipv6_prefix_cnt * SMC_CLC_IPV6_PREFIX_LEN;
	if (v2)
		l->v2_ext = SMC_CLC_V2_EXT_LEN + p->eid_cnt * SMC_CLC_EID_LEN;
	if (smcd2)
		l->smcd_v2_ext = SMC_CLC_SMCD_V2_EXT_LEN +
				 p->ism_gid_cnt * SMC_CLC_GIDCHID_LEN;
	l->total = SMC_CLC_PROP_BASE_LEN + l->smcd + l->ip + l->v2_ext +
		   l->smcd_v2_ext + SMC_CLC_TRL_LEN;
	return 0;
}

int smc_clc_proposal_encode(const struct smc_clc_proposal *p, u8 *buf,
			    size_t cap)
{
	struct smc_clc_prop_layout l;
	struct smc_clc_hdr hdr;
	u8 *smcd, *pos;
	int rc, i;

	if (p->hdr.type != SMC_CLC_PROPOSAL || smc_clc_hdr_check(&p->hdr))
		return -EINVAL;
	rc = smc_clc_prop_layout(p, &l);
	if (rc)
		return rc;
	if (l.total > cap)
		return -ENOSPC;

	memset(buf, 0, l.total);
	hdr = p->hdr;
	hdr.length = l.total;
	rc = smc_clc_hdr_encode(&hdr, buf);
	if (rc < 0)
		return rc;
	memcpy(buf + LCL_ID, p->id_for_peer, SMC_CLC_SYSTEMID_LEN);
	memcpy(buf + LCL_GID, p->gid, SMC_CLC_GID_LEN);
	memcpy(buf + LCL_MAC, p->mac, SMC_CLC_MAC_LEN);
	/* the IP area follows the SMC-D area directly, if there is one */
	if (l.ip)
		put_unaligned_be16(l.smcd, buf + PROP_IPAREA_OFFSET);

	smcd = buf + SMC_CLC_PROP_BASE_LEN;
	pos = smcd;
	if (l.smcd) {
		put_unaligned_be64(p->ism_gid, smcd + SMCD_GID);
		put_unaligned_be16(p->ism_chid, smcd + SMCD_CHID);
		memcpy(smcd + SMCD_VENDOR_OUI, p->vendor_oui,
		       SMC_CLC_VENDOR_OUI_LEN);
		memcpy(smcd + SMCD_VENDOR_EXP, p->vendor_exp,
		       SMC_CLC_VENDOR_EXP_LEN);
		pos += l.smcd;
	}

	if (l.ip) {
		put_unaligned(p->ipv4_subnet, (__be32 *)(pos + PFX_SUBNET));
		pos[PFX_LEN] = p->ipv4_prefix_len;
		pos[PFX_V6_CNT] = p->ipv6_prefix_cnt;
		pos += SMC_CLC_PROP_PREFIX_LEN;
		for (i = 0; i < p->ipv6_prefix_cnt; i++) {
			memcpy(pos, p->ipv6_prefix[i].prefix, 16);
			pos[16] = p->ipv6_prefix[i].prefix_len;
			pos += SMC_CLC_IPV6_PREFIX_LEN;
		}
	}

	if (l.v2_ext) {
		u8 *v2x = pos;

		put_unaligned_be16(v2x - (smcd + SMCD_V2_EXT_BASE),
				   smcd + SMCD_V2_EXT_OFFSET);
		v2x[V2X_EID_CNT] = p->eid_cnt;
		v2x[V2X_ISM_GID_CNT] = l.smcd_v2_ext ? p->ism_gid_cnt : 0;
		v2x[V2X_FLAG] = p->release << V2X_FLAG_RELEASE_SHIFT |
				(p->seid ? V2X_FLAG_SEID : 0);
		memcpy(v2x + V2X_ROCE_GID, p->roce_gid, SMC_CLC_GID_LEN);
		v2x[V2X_MAX_CONNS] = p->max_conns;
		v2x[V2X_MAX_LINKS] = p->max_links;
		put_unaligned_be16(p->feature_mask, v2x + V2X_FEATURE_MASK);
		pos += SMC_CLC_V2_EXT_LEN;
		for (i = 0; i < p->eid_cnt; i++) {
			memcpy(pos, p->eids[i], SMC_CLC_EID_LEN);
			pos += SMC_CLC_EID_LEN;
		}

		if (l.smcd_v2_ext) {
			put_unaligned_be16(pos - (v2x + V2X_SMCD_V2_EXT_BASE),
					   v2x + V2X_SMCD_V2_EXT_OFFSET);
			memcpy(pos + SMCD2X_SYSTEM_EID, p->system_eid,
			       SMC_CLC_EID_LEN);
			pos += SMC_CLC_SMCD_V2_EXT_LEN;
			for (i = 0; i < p->ism_gid_cnt; i++) {
				put_unaligned_be64(p->ism_gidchid[i].gid, pos);
				put_unaligned_be16(p->ism_gidchid[i].chid,
						   pos + 8);
				pos += SMC_CLC_GIDCHID_LEN;
			}
		}
	}

	smc_clc_put_eyecatcher(pos, p->hdr.smcd);
	return l.total;
}

/* IP prefix area at @ip, which must end before @end. */
/* The SMC-D area, SMC_CLC_PROP_SMCD_LEN bytes the caller checked. */
static void smc_clc_prop_decode_smcd(const u8 *smcd,
				     struct smc_clc_proposal *p)
{
	p->ism_gid = get_unaligned_be64(smcd + SMCD_GID);
	p->ism_chid = get_unaligned_be16(smcd + SMCD_CHID);
	memcpy(p->vendor_oui, smcd + SMCD_VENDOR_OUI, SMC_CLC_VENDOR_OUI_LEN);
	memcpy(p->vendor_exp, smcd + SMCD_VENDOR_EXP, SMC_CLC_VENDOR_EXP_LEN);
}

static int smc_clc_prop_decode_ip(const u8 *ip, const u8 *end,
				  struct smc_clc_proposal *p, const u8 **next)
{
	int i;

	if (end - ip < SMC_CLC_PROP_PREFIX_LEN)
		return -EPROTO;
	p->ipv4_subnet = get_unaligned((const __be32 *)(ip + PFX_SUBNET));
	p->ipv4_prefix_len = ip[PFX_LEN];
	p->ipv6_prefix_cnt = ip[PFX_V6_CNT];
	if (p->ipv6_prefix_cnt > SMC_CLC_MAX_V6_PREFIX)
		return -EPROTO;
	ip += SMC_CLC_PROP_PREFIX_LEN;
	if (end - ip < p->ipv6_prefix_cnt * SMC_CLC_IPV6_PREFIX_LEN)
		return -EPROTO;
	for (i = 0; i < p->ipv6_prefix_cnt; i++) {
		memcpy(p->ipv6_prefix[i].prefix, ip, 16);
		p->ipv6_prefix[i].prefix_len = ip[16];
		ip += SMC_CLC_IPV6_PREFIX_LEN;
	}
	*next = ip;
	return 0;
}

/* v2 extension at @v2x, ending before @end. */
static int smc_clc_prop_decode_v2(const u8 *v2x, const u8 *end,
				  struct smc_clc_proposal *p, const u8 **next)
{
	const u8 *pos;
	int i;

	if (end - v2x < SMC_CLC_V2_EXT_LEN)
		return -EPROTO;
	p->has_v2_ext = true;
	p->eid_cnt = v2x[V2X_EID_CNT];
	p->ism_gid_cnt = v2x[V2X_ISM_GID_CNT];
	p->release = v2x[V2X_FLAG] >> V2X_FLAG_RELEASE_SHIFT;
	p->seid = v2x[V2X_FLAG] & V2X_FLAG_SEID;
	memcpy(p->roce_gid, v2x + V2X_ROCE_GID, SMC_CLC_GID_LEN);
	p->max_conns = v2x[V2X_MAX_CONNS];
	p->max_links = v2x[V2X_MAX_LINKS];
	p->feature_mask = get_unaligned_be16(v2x + V2X_FEATURE_MASK);
	if (p->eid_cnt > SMC_CLC_MAX_UEID)
		return -EPROTO;
	pos = v2x + SMC_CLC_V2_EXT_LEN;
	if (end - pos < p->eid_cnt * SMC_CLC_EID_LEN)
		return -EPROTO;
	for (i = 0; i < p->eid_cnt; i++) {
		memcpy(p->eids[i], pos, SMC_CLC_EID_LEN);
		pos += SMC_CLC_EID_LEN;
	}
	*next = pos;
	return 0;
}

/*
 * SMC-D v2 extension of the v2 extension at @v2x: not before @min (the end
 * of the EIDs) and ending before @end.
 */
static int smc_clc_prop_decode_smcd2(const u8 *v2x, const u8 *min,
				     const u8 *end, struct smc_clc_proposal *p,
				     const u8 **next)
{
	u16 off = get_unaligned_be16(v2x + V2X_SMCD_V2_EXT_OFFSET);
	const u8 *pos = v2x + V2X_SMCD_V2_EXT_BASE + off;
	int i;

	if (!off || off > V2X_SMCD_OFFSET_MAX || pos < min)
		return -EPROTO;
	if (p->ism_gid_cnt > SMC_CLC_MAX_ISM_GIDS)
		return -EPROTO;
	if (end - pos < SMC_CLC_SMCD_V2_EXT_LEN +
			p->ism_gid_cnt * SMC_CLC_GIDCHID_LEN)
		return -EPROTO;
	p->has_smcd_v2_ext = true;
	memcpy(p->system_eid, pos + SMCD2X_SYSTEM_EID, SMC_CLC_EID_LEN);
	pos += SMC_CLC_SMCD_V2_EXT_LEN;
	for (i = 0; i < p->ism_gid_cnt; i++) {
		p->ism_gidchid[i].gid = get_unaligned_be64(pos);
		p->ism_gidchid[i].chid = get_unaligned_be16(pos + 8);
		pos += SMC_CLC_GIDCHID_LEN;
	}
	*next = pos;
	return 0;
}

int smc_clc_proposal_decode(const u8 *buf, size_t len,
			    struct smc_clc_proposal *p)
{
	const u8 *smcd, *end, *pos;
	struct smc_clc_prop_layout l;
	struct smc_clc_hdr hdr;
	u16 iparea;
	int rc;

	memset(p, 0, sizeof(*p));
	rc = smc_clc_msg_check(buf, len, SMC_CLC_PROPOSAL, &hdr);
	if (rc)
		return rc;
	p->hdr = hdr;
	memcpy(p->id_for_peer, buf + LCL_ID, SMC_CLC_SYSTEMID_LEN);
	memcpy(p->gid, buf + LCL_GID, SMC_CLC_GID_LEN);
	memcpy(p->mac, buf + LCL_MAC, SMC_CLC_MAC_LEN);

	/* everything between base part and trailer, never beyond it */
	smcd = buf + SMC_CLC_PROP_BASE_LEN;
	end = buf + len - SMC_CLC_TRL_LEN;
	iparea = get_unaligned_be16(buf + PROP_IPAREA_OFFSET);

	if (hdr.version == SMC_V1) {
		/* no SMC-D area, or exactly one right before the IP area */
		if (hdr.typev1 == SMC_TYPE_N ||
		    (iparea != 0 && iparea != SMC_CLC_PROP_SMCD_LEN) ||
		    (smc_clc_offers_smcd(hdr.typev1) && !iparea))
			return -EPROTO;
		if (iparea > end - smcd)
			return -EPROTO;
		if (iparea)
			smc_clc_prop_decode_smcd(smcd, p);
		rc = smc_clc_prop_decode_ip(smcd + iparea, end, p, &pos);
		if (rc)
			return rc;
	} else {
		if (hdr.typev1 == SMC_TYPE_N && hdr.typev2 == SMC_TYPE_N)
			return -EPROTO;
		if (end - smcd < SMC_CLC_PROP_SMCD_LEN)
			return -EPROTO;
		smc_clc_prop_decode_smcd(smcd, p);
		pos = smcd + SMC_CLC_PROP_SMCD_LEN;
		if (hdr.typev1 != SMC_TYPE_N) {
			if (iparea != SMC_CLC_PROP_SMCD_LEN)
				return -EPROTO;
			rc = smc_clc_prop_decode_ip(pos, end, p, &pos);
			if (rc)
				return rc;
		}
		if (hdr.typev2 != SMC_TYPE_N) {
			u16 off = get_unaligned_be16(smcd + SMCD_V2_EXT_OFFSET);
			const u8 *v2x = smcd + SMCD_V2_EXT_BASE + off;

			/* must not overlap what precedes it */
			if (!off || off > SMCD_V2_EXT_OFFSET_MAX || v2x < pos)
				return -EPROTO;
			rc = smc_clc_prop_decode_v2(v2x, end, p, &pos);
			if (rc)
				return rc;
			if (smc_clc_offers_smcd(hdr.typev2)) {
				rc = smc_clc_prop_decode_smcd2(v2x, pos, end,
							       p, &pos);
				if (rc)
					return rc;
			} else {
				p->ism_gid_cnt = 0;
			}
		}
	}

	/* the length field must account for exactly these areas */
	rc = smc_clc_prop_layout(p, &l);
	if (rc)
		return -EPROTO;
	if (hdr.version == SMC_V1)
		l.total += iparea - l.smcd;
	if (l.total != len)
		return -EPROTO;
	return 0;
}

static int smc_clc_fce_len(const struct smc_clc_accept_confirm *ac)
{
	int len;

	if (ac->hdr.version == SMC_V1 || !ac->hdr.first_contact)
		return 0;
	len = ac->fce.v2x ? SMC_CLC_FCE_V2X_LEN : SMC_CLC_FCE_LEN;
	if (ac->hdr.type == SMC_CLC_CONFIRM && ac->has_gid_list)
		len += SMC_CLC_GLE_HDR_LEN + ac->gid_cnt * SMC_CLC_GID_LEN;
	return len;
}

int smc_clc_accept_confirm_encode(const struct smc_clc_accept_confirm *ac,
				  u8 *buf, size_t cap)
{
	const struct smc_clc_fce *fce = &ac->fce;
	struct smc_clc_hdr hdr;
	size_t total;
	int rc, i;
	u8 *pos;

	if ((ac->hdr.type != SMC_CLC_ACCEPT &&
	     ac->hdr.type != SMC_CLC_CONFIRM) || smc_clc_hdr_check(&ac->hdr))
		return -EINVAL;
	if (ac->hdr.typev1 != SMC_TYPE_R)
		return -EOPNOTSUPP;
	if (ac->qpn > U24_MAX || ac->psn > U24_MAX ||
	    ac->rmbe_size > NIBBLE_MAX || ac->qp_mtu > NIBBLE_MAX ||
	    fce->os_type > NIBBLE_MAX || fce->release > NIBBLE_MAX ||
	    ac->gid_cnt > SMC_CLC_MAX_GLE_GIDS)
		return -EINVAL;

	if (ac->hdr.version == SMC_V1)
		total = SMCR_CLC_ACCEPT_CONFIRM_LEN;
	else
		total = SMCR_CLC_ACCEPT_CONFIRM_LEN_V2 + smc_clc_fce_len(ac);
	if (total > cap)
		return -ENOSPC;

	memset(buf, 0, total);
	hdr = ac->hdr;
	hdr.length = total;
	rc = smc_clc_hdr_encode(&hdr, buf);
	if (rc < 0)
		return rc;
	memcpy(buf + LCL_ID, ac->id_for_peer, SMC_CLC_SYSTEMID_LEN);
	memcpy(buf + LCL_GID, ac->gid, SMC_CLC_GID_LEN);
	memcpy(buf + LCL_MAC, ac->mac, SMC_CLC_MAC_LEN);
	put_unaligned_be24(ac->qpn, buf + AC_QPN);
	put_unaligned_be32(ac->rmb_rkey, buf + AC_RKEY);
	buf[AC_RMBE_IDX] = ac->rmbe_idx;
	put_unaligned_be32(ac->rmbe_alert_token, buf + AC_ALERT_TOKEN);
	buf[AC_SIZE_MTU] = ac->rmbe_size << 4 | ac->qp_mtu;
	put_unaligned_be64(ac->rmb_dma_addr, buf + AC_DMA_ADDR);
	put_unaligned_be24(ac->psn, buf + AC_PSN);

	if (ac->hdr.version != SMC_V1) {
		memcpy(buf + AC_EID, ac->eid, SMC_CLC_EID_LEN);
		pos = buf + AC_FCE;
		if (ac->hdr.first_contact) {
			pos[FCE_FLAGS] = fce->v2_direct ? FCE_V2_DIRECT : 0;
			pos[FCE_OS_RELEASE] = fce->os_type << 4 | fce->release;
			memcpy(pos + FCE_HOSTNAME, fce->hostname,
			       SMC_CLC_HOSTNAME_LEN);
			if (fce->v2x) {
				pos[FCE_MAX_CONNS] = fce->max_conns;
				pos[FCE_MAX_LINKS] = fce->max_links;
				put_unaligned_be16(fce->feature_mask,
						   pos + FCE_FEATURE_MASK);
				put_unaligned_be32(fce->vendor_exp_options,
						   pos + FCE_VENDOR_OPTS);
				pos += SMC_CLC_FCE_V2X_LEN;
			} else {
				pos += SMC_CLC_FCE_LEN;
			}
			if (ac->hdr.type == SMC_CLC_CONFIRM &&
			    ac->has_gid_list) {
				pos[GLE_GID_CNT] = ac->gid_cnt;
				pos += SMC_CLC_GLE_HDR_LEN;
				for (i = 0; i < ac->gid_cnt; i++) {
					memcpy(pos, ac->gids[i],
					       SMC_CLC_GID_LEN);
					pos += SMC_CLC_GID_LEN;
				}
			}
		}
	}
	smc_clc_put_eyecatcher(buf + total - SMC_CLC_TRL_LEN, ac->hdr.smcd);
	return total;
}

/* GID list extension of @rest bytes (0: none) at @pos. */
static int smc_clc_gle_decode(const u8 *pos, size_t rest,
			      struct smc_clc_accept_confirm *ac)
{
	u8 cnt;

	ac->has_gid_list = false;
	ac->gid_cnt = 0;
	if (!rest)
		return 0;
	if (ac->hdr.type != SMC_CLC_CONFIRM || rest < SMC_CLC_GLE_HDR_LEN)
		return -EPROTO;
	cnt = pos[GLE_GID_CNT];
	if (cnt > SMC_CLC_MAX_GLE_GIDS ||
	    rest != SMC_CLC_GLE_HDR_LEN + cnt * SMC_CLC_GID_LEN)
		return -EPROTO;
	ac->has_gid_list = true;
	ac->gid_cnt = cnt;
	memcpy(ac->gids, pos + SMC_CLC_GLE_HDR_LEN, cnt * SMC_CLC_GID_LEN);
	return 0;
}

/*
 * First contact extension and, for a confirm, GID list extension: the
 * @rest bytes at @pos.  The FCE has no length field of its own; its v2.x
 * form is taken whenever what follows it then parses, else its base form.
 */
static int smc_clc_fce_decode(const u8 *pos, size_t rest,
			      struct smc_clc_accept_confirm *ac)
{
	struct smc_clc_fce *fce = &ac->fce;

	if (rest < SMC_CLC_FCE_LEN)
		return -EPROTO;
	fce->v2_direct = pos[FCE_FLAGS] & FCE_V2_DIRECT;
	fce->os_type = pos[FCE_OS_RELEASE] >> 4;
	fce->release = pos[FCE_OS_RELEASE] & NIBBLE_MAX;
	memcpy(fce->hostname, pos + FCE_HOSTNAME, SMC_CLC_HOSTNAME_LEN);

	if (rest >= SMC_CLC_FCE_V2X_LEN &&
	    !smc_clc_gle_decode(pos + SMC_CLC_FCE_V2X_LEN,
				rest - SMC_CLC_FCE_V2X_LEN, ac)) {
		fce->v2x = true;
		fce->max_conns = pos[FCE_MAX_CONNS];
		fce->max_links = pos[FCE_MAX_LINKS];
		fce->feature_mask = get_unaligned_be16(pos + FCE_FEATURE_MASK);
		fce->vendor_exp_options =
			get_unaligned_be32(pos + FCE_VENDOR_OPTS);
		return 0;
	}
	return smc_clc_gle_decode(pos + SMC_CLC_FCE_LEN,
				  rest - SMC_CLC_FCE_LEN, ac);
}

int smc_clc_accept_confirm_decode(const u8 *buf, size_t len,
				  struct smc_clc_accept_confirm *ac)
{
	struct smc_clc_hdr hdr;
	size_t rest;
	u8 size_mtu;
	int rc;

	memset(ac, 0, sizeof(*ac));
	rc = smc_clc_hdr_decode(buf, len, &hdr);
	if (rc)
		return rc;
	if (hdr.type != SMC_CLC_ACCEPT && hdr.type != SMC_CLC_CONFIRM)
		return -EPROTO;
	rc = smc_clc_msg_check(buf, len, hdr.type, &hdr);
	if (rc)
		return rc;
	if (hdr.typev1 != SMC_TYPE_R)
		return -EOPNOTSUPP;
	ac->hdr = hdr;
	memcpy(ac->id_for_peer, buf + LCL_ID, SMC_CLC_SYSTEMID_LEN);
	memcpy(ac->gid, buf + LCL_GID, SMC_CLC_GID_LEN);
	memcpy(ac->mac, buf + LCL_MAC, SMC_CLC_MAC_LEN);
	ac->qpn = get_unaligned_be24(buf + AC_QPN);
	ac->rmb_rkey = get_unaligned_be32(buf + AC_RKEY);
	ac->rmbe_idx = buf[AC_RMBE_IDX];
	ac->rmbe_alert_token = get_unaligned_be32(buf + AC_ALERT_TOKEN);
	size_mtu = buf[AC_SIZE_MTU];
	ac->rmbe_size = size_mtu >> 4;
	ac->qp_mtu = size_mtu & NIBBLE_MAX;
	ac->rmb_dma_addr = get_unaligned_be64(buf + AC_DMA_ADDR);
	ac->psn = get_unaligned_be24(buf + AC_PSN);
	if (hdr.version == SMC_V1)
		return 0;	/* length already checked to be exactly v1 */

	memcpy(ac->eid, buf + AC_EID, SMC_CLC_EID_LEN);
	rest = len - SMCR_CLC_ACCEPT_CONFIRM_LEN_V2;
	if (!hdr.first_contact)
		return rest ? -EPROTO : 0;
	return smc_clc_fce_decode(buf + AC_FCE, rest, ac);
}

int smc_clc_decline_decode(const u8 *buf, size_t len,
			   struct smc_clc_decline *d)
{
	int rc, i;

	memset(d, 0, sizeof(*d));
	rc = smc_clc_msg_check(buf, len, SMC_CLC_DECLINE, &d->hdr);
	if (rc)
		return rc;
	memcpy(d->id_for_peer, buf + DECL_ID, SMC_CLC_SYSTEMID_LEN);
	d->peer_diagnosis = get_unaligned_be32(buf + DECL_DIAG);
	d->os_type = buf[DECL_OS_TYPE] >> 4;
	if (d->hdr.version == SMC_V1)
		return 0;
	for (i = 0; i < ARRAY_SIZE(d->peer_diagnosis_v2); i++)
		d->peer_diagnosis_v2[i] =
			get_unaligned_be32(buf + DECL_DIAG_V2 + 4 * i);
	return 0;
}

int smc_clc_decline_encode(const struct smc_clc_decline *d, u8 *buf,
			   size_t cap)
{
	struct smc_clc_hdr hdr = d->hdr;
	size_t total;
	int rc, i;

	if (hdr.type != SMC_CLC_DECLINE || d->os_type > NIBBLE_MAX ||
	    smc_clc_hdr_check(&hdr))
		return -EINVAL;
	if (hdr.version == SMC_V1)
		total = SMC_CLC_DECLINE_LEN_V1;
	else if (hdr.version == SMC_V2)
		total = SMC_CLC_DECLINE_LEN_V2;
	else
		return -EINVAL;
	if (total > cap)
		return -ENOSPC;

	memset(buf, 0, total);
	hdr.length = total;
	rc = smc_clc_hdr_encode(&hdr, buf);
	if (rc < 0)
		return rc;
	memcpy(buf + DECL_ID, d->id_for_peer, SMC_CLC_SYSTEMID_LEN);
	put_unaligned_be32(d->peer_diagnosis, buf + DECL_DIAG);
	buf[DECL_OS_TYPE] = d->os_type << 4;
	if (hdr.version == SMC_V2)
		for (i = 0; i < ARRAY_SIZE(d->peer_diagnosis_v2); i++)
			put_unaligned_be32(d->peer_diagnosis_v2[i],
					   buf + DECL_DIAG_V2 + 4 * i);
	smc_clc_put_eyecatcher(buf + total - SMC_CLC_TRL_LEN, hdr.smcd);
	return total;
}

static const struct {
	u32 code;
	const char *text;
} smc_clc_reasons[] = {
	{ SMC_CLC_DECL_MEM,		"insufficient memory resources" },
	{ SMC_CLC_DECL_TIMEOUT_CL,	"timeout waiting for confirm link" },
	{ SMC_CLC_DECL_TIMEOUT_AL,	"timeout waiting for add link" },
	{ SMC_CLC_DECL_CNFERR,		"configuration error" },
	{ SMC_CLC_DECL_PEERNOSMC,	"peer did not indicate SMC" },
	{ SMC_CLC_DECL_IPSEC,		"IPsec in use" },
	{ SMC_CLC_DECL_NOSMCDEV,	"no SMC device found" },
	{ SMC_CLC_DECL_NOSMCDDEV,	"no SMC-D device found" },
	{ SMC_CLC_DECL_NOSMCRDEV,	"no SMC-R device found" },
	{ SMC_CLC_DECL_NOISM2SUPP,	"no ISMv2 support" },
	{ SMC_CLC_DECL_NOV2EXT,		"peer sent no v2 extension" },
	{ SMC_CLC_DECL_NOV2DEXT,	"peer sent no SMC-Dv2 extension" },
	{ SMC_CLC_DECL_NOSEID,		"peer sent no system EID" },
	{ SMC_CLC_DECL_NOSMCD2DEV,	"no SMC-Dv2 device found" },
	{ SMC_CLC_DECL_NOUEID,		"no matching user EID" },
	{ SMC_CLC_DECL_RELEASEERR,	"release negotiation failed" },
	{ SMC_CLC_DECL_MAXCONNERR,	"max connections negotiation failed" },
	{ SMC_CLC_DECL_MAXLINKERR,	"max links negotiation failed" },
	{ SMC_CLC_DECL_MODEUNSUPP,	"SMC modes do not match" },
	{ SMC_CLC_DECL_RMBE_EC,		"peer has eyecatcher in RMBE" },
	{ SMC_CLC_DECL_OPTUNSUPP,	"socket option not supported" },
	{ SMC_CLC_DECL_DIFFPREFIX,	"IP prefix mismatch" },
	{ SMC_CLC_DECL_GETVLANERR,	"cannot get VLAN id" },
	{ SMC_CLC_DECL_ISMVLANERR,	"cannot register VLAN id on ISM" },
	{ SMC_CLC_DECL_NOACTLINK,	"no active link in link group" },
	{ SMC_CLC_DECL_NOSRVLINK,	"server link not found" },
	{ SMC_CLC_DECL_VERSMISMAT,	"SMC version mismatch" },
	{ SMC_CLC_DECL_MAX_DMB,		"SMC-D DMB limit exceeded" },
	{ SMC_CLC_DECL_NOROUTE,		"no route to peer" },
	{ SMC_CLC_DECL_NOINDIRECT,	"indirect connection mismatch" },
	{ SMC_CLC_DECL_SYNCERR,		"synchronization error" },
	{ SMC_CLC_DECL_PEERDECL,	"peer declined" },
	{ SMC_CLC_DECL_INTERR,		"internal error" },
	{ SMC_CLC_DECL_ERR_RTOK,	"rtoken handling failed" },
	{ SMC_CLC_DECL_ERR_RDYLNK,	"link ready failed" },
	{ SMC_CLC_DECL_ERR_REGBUF,	"buffer registration failed" },
};

const char *smc_clc_decline_reason_str(u32 code)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(smc_clc_reasons); i++)
		if (smc_clc_reasons[i].code == code)
			return smc_clc_reasons[i].text;
	return "unknown reason code";
}

const char *smc_clc_type_str(u8 type)
{
	switch (type) {
	case SMC_CLC_PROPOSAL:
		return "proposal";
	case SMC_CLC_ACCEPT:
		return "accept";
	case SMC_CLC_CONFIRM:
		return "confirm";
	case SMC_CLC_DECLINE:
		return "decline";
	}
	return "unknown";
}
