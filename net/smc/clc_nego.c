// SPDX-License-Identifier: GPL-2.0
/*
 * CLC handshake negotiation: pure decisions over decoded CLC messages.
 * See clc_nego.h for what is decided where and which outcomes mirror
 * Linux 6.12.
 */
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include "clc_nego.h"

static bool smc_nego_offers_r(u8 type)
{
	return type == SMC_TYPE_R || type == SMC_TYPE_B;
}

static bool smc_nego_offers_d(u8 type)
{
	return type == SMC_TYPE_D || type == SMC_TYPE_B;
}

static u8 smc_nego_our_release(const struct smc_nego_local *l)
{
	return min_t(u8, l->release, SMC_NEGO_RELEASE);
}

static bool smc_nego_has_prefix(const struct smc_nego_local *l)
{
	return l->ipv6_cnt || l->ipv4_prefix_len || l->ipv4_subnet;
}

/* Do the first @bits bits of @a and @b agree? */
static bool smc_nego_bits_equal(const u8 *a, const u8 *b, unsigned int bits)
{
	unsigned int bytes = bits / 8, rest = bits % 8;
	u8 mask;

	if (memcmp(a, b, bytes))
		return false;
	if (!rest)
		return true;
	mask = 0xff << (8 - rest);
	return !((a[bytes] ^ b[bytes]) & mask);
}

/*
 * Is the proposal's prefix one of ours?  With IPv6 prefixes in the
 * proposal only those count, else its IPv4 prefix: same prefix length and
 * the same network bits.
 */
static bool smc_nego_prefix_match(const struct smc_clc_proposal *p,
				  const struct smc_nego_local *l)
{
	unsigned int i, j;

	if (!p->ipv6_prefix_cnt) {
		if (!l->ipv4_prefix_len && !l->ipv4_subnet)
			return false;
		if (p->ipv4_prefix_len != l->ipv4_prefix_len ||
		    p->ipv4_prefix_len > 32)
			return false;
		return smc_nego_bits_equal((const u8 *)&p->ipv4_subnet,
					   (const u8 *)&l->ipv4_subnet,
					   p->ipv4_prefix_len);
	}

	for (i = 0; i < min_t(u8, l->ipv6_cnt, SMC_CLC_MAX_V6_PREFIX); i++) {
		const struct smc_clc_ipv6_prefix *ours = &l->ipv6[i];

		if (ours->prefix_len > 128)
			continue;
		for (j = 0; j < min_t(u8, p->ipv6_prefix_cnt,
				      SMC_CLC_MAX_V6_PREFIX); j++) {
			const struct smc_clc_ipv6_prefix *theirs =
				&p->ipv6_prefix[j];

			if (theirs->prefix_len == ours->prefix_len &&
			    smc_nego_bits_equal(theirs->prefix, ours->prefix,
						ours->prefix_len))
				return true;
		}
	}
	return false;
}

static bool smc_nego_eid_in(const u8 (*eids)[SMC_CLC_EID_LEN], u8 cnt,
			    const u8 *eid)
{
	unsigned int i;

	for (i = 0; i < min_t(u8, cnt, SMC_CLC_MAX_UEID); i++)
		if (!memcmp(eids[i], eid, SMC_CLC_EID_LEN))
			return true;
	return false;
}

/* The first of the proposal's EIDs that is one of ours, or NULL. */
static const u8 *smc_nego_shared_eid(const struct smc_clc_proposal *p,
				     const struct smc_nego_local *l)
{
	unsigned int i;

	for (i = 0; i < min_t(u8, p->eid_cnt, SMC_CLC_MAX_UEID); i++)
		if (smc_nego_eid_in(l->ueids, l->ueid_cnt, p->eids[i]))
			return p->eids[i];
	return NULL;
}

/* a locally administered CID: the IEEE assigns no such value to anyone */
const u8 smc_nego_vendor_oui[SMC_CLC_VENDOR_OUI_LEN] = { 0x0a, 0x53, 0x4d };

/* The vendor extensions a proposal offers: our OUI and tag, else none. */
static u16 smc_nego_prop_vx(const struct smc_clc_proposal *p)
{
	if (memcmp(p->vendor_oui, smc_nego_vendor_oui, SMC_CLC_VENDOR_OUI_LEN))
		return 0;
	return smc_nego_vx_of(get_unaligned_be32(p->vendor_exp));
}

/*
 * Whether the client's device and ours are of one kind: iWARP needs the
 * extension on both ends, which needs release 1 (the first contact
 * extension's vendor word).
 */
static bool smc_nego_same_kind(const struct smc_clc_proposal *p,
			       const struct smc_nego_local *l, u8 release)
{
	bool theirs = smc_nego_prop_vx(p) & SMC_NEGO_VX_IWARP;
	bool ours = l->vx & SMC_NEGO_VX_IWARP;

	return theirs == ours && (!ours || release >= SMC_CLC_RELEASE_1);
}

bool smc_nego_prop_iwarp(const struct smc_clc_proposal *p)
{
	return p->has_v2_ext && (smc_nego_prop_vx(p) & SMC_NEGO_VX_IWARP);
}

static void smc_nego_result_init(struct smc_nego_result *r, u8 version)
{
	memset(r, 0, sizeof(*r));
	r->version = version;
	r->release = SMC_CLC_RELEASE_0;
	r->max_conns = SMC_NEGO_CONNS_MAX;
	r->max_links = SMC_NEGO_LINKS_MAX;
}

int smc_nego_proposal(const struct smc_nego_local *l,
		      struct smc_clc_proposal *p, u32 *reason)
{
	bool v1 = l->r_v1, v2 = l->r_v2 && l->ueid_cnt;

	memset(p, 0, sizeof(*p));
	*reason = 0;
	if (l->ueid_cnt > SMC_CLC_MAX_UEID ||
	    l->ipv6_cnt > SMC_CLC_MAX_V6_PREFIX) {
		*reason = SMC_CLC_DECL_INTERR;
		return -EINVAL;
	}
	if (!v1 && !v2) {
		*reason = SMC_CLC_DECL_NOSMCDEV;
		return -ENODEV;
	}
	if (v1 && !smc_nego_has_prefix(l)) {
		if (!v2) {
			*reason = SMC_CLC_DECL_CNFERR;
			return -ENODEV;
		}
		v1 = false;
	}

	p->hdr.type = SMC_CLC_PROPOSAL;
	p->hdr.version = SMC_V2;
	p->hdr.typev1 = v1 ? SMC_TYPE_R : SMC_TYPE_N;
	p->hdr.typev2 = v2 ? SMC_TYPE_R : SMC_TYPE_N;

	if (v1) {
		memcpy(p->id_for_peer, l->systemid, SMC_CLC_SYSTEMID_LEN);
		memcpy(p->gid, l->gid, SMC_CLC_GID_LEN);
		memcpy(p->mac, l->mac, SMC_CLC_MAC_LEN);
		if (l->ipv6_cnt) {
			p->ipv6_prefix_cnt = l->ipv6_cnt;
			memcpy(p->ipv6_prefix, l->ipv6,
			       l->ipv6_cnt * sizeof(l->ipv6[0]));
		} else {
			p->ipv4_subnet = l->ipv4_subnet;
			p->ipv4_prefix_len = l->ipv4_prefix_len;
		}
	}

	if (v2) {
		p->has_v2_ext = true;
		p->release = smc_nego_our_release(l);
		p->eid_cnt = l->ueid_cnt;
		memcpy(p->eids, l->ueids, l->ueid_cnt * SMC_CLC_EID_LEN);
		memcpy(p->roce_gid, l->roce_v2_gid, SMC_CLC_GID_LEN);
		p->max_conns = l->max_conns;
		p->max_links = l->max_links;
		p->feature_mask = SMC_NEGO_FEATURE_MASK;
		if (l->vx & SMC_NEGO_VX_ALL) {
			memcpy(p->vendor_oui, smc_nego_vendor_oui,
			       SMC_CLC_VENDOR_OUI_LEN);
			put_unaligned_be32(SMC_NEGO_VX_TAG |
					   (l->vx & SMC_NEGO_VX_ALL),
					   p->vendor_exp);
		}
	}
	return 0;
}

u32 smc_nego_server(const struct smc_clc_proposal *p,
		    const struct smc_nego_local *l, struct smc_nego_result *r)
{
	u8 release = SMC_CLC_RELEASE_0, max_conns = SMC_NEGO_CONNS_MAX;
	u8 max_links = SMC_NEGO_LINKS_MAX;
	bool v1r, v1d, v2r = false, v2d = false;
	u32 rc = SMC_CLC_DECL_PEERNOSMC, prfx = 0, first = 0;
	const u8 *eid;

	smc_nego_result_init(r, SMC_V1);
	v1r = smc_nego_offers_r(p->hdr.typev1);
	v1d = smc_nego_offers_d(p->hdr.typev1);
	if (p->hdr.version >= SMC_V2) {
		v2r = smc_nego_offers_r(p->hdr.typev2);
		v2d = smc_nego_offers_d(p->hdr.typev2);
	}

	/* 1. which v2 offers are usable at all */
	if ((v2r || v2d) && !p->has_v2_ext) {
		v2r = false;
		v2d = false;
		rc = SMC_CLC_DECL_NOV2EXT;
	} else if (v2r || v2d) {
		if (v2d) {		/* no SMC-D v2 here */
			v2d = false;
			rc = SMC_CLC_DECL_NOISM2SUPP;
		}
		if (v2r && !p->eid_cnt) {
			v2r = false;
			rc = SMC_CLC_DECL_NOUEID;
		}
		release = min(p->release, smc_nego_our_release(l));
	}
	if (!v1r && !v1d && !v2r && !v2d)
		return rc;

	/* 2. v2.x limits, checked whenever SMC-R v2 is still in the game */
	if (v2r && release >= SMC_CLC_RELEASE_1) {
		max_conns = min(p->max_conns, l->max_conns);
		if (max_conns < SMC_NEGO_CONNS_MIN)
			return SMC_CLC_DECL_MAXCONNERR;
		max_links = min3(p->max_links, l->max_links,
				 (u8)SMC_NEGO_LINKS_MAX);
		if (max_links < SMC_NEGO_LINKS_MIN)
			return SMC_CLC_DECL_MAXLINKERR;
	}

	/* 3. the v1 prefix check */
	if (p->hdr.typev1 != SMC_TYPE_N && !smc_nego_prefix_match(p, l))
		prfx = SMC_CLC_DECL_DIFFPREFIX;
	first = prfx;
	if (!prfx && v1d)	/* no SMC-D v1 device here */
		first = SMC_CLC_DECL_NOSMCDDEV;

	/* 4. SMC-D only */
	if (!smc_nego_offers_r(p->hdr.typev1) &&
	    !smc_nego_offers_r(p->hdr.typev2))
		return first ?: SMC_CLC_DECL_NOSMCDDEV;

	/* 5. SMC-R v2, on devices of one kind (RoCE or iWARP) */
	if (v2r) {
		eid = smc_nego_shared_eid(p, l);
		if (eid && l->r_v2 && smc_nego_same_kind(p, l, release)) {
			smc_nego_result_init(r, SMC_V2);
			r->release = release;
			memcpy(r->eid, eid, SMC_CLC_EID_LEN);
			if (release >= SMC_CLC_RELEASE_1) {
				r->max_conns = max_conns;
				r->max_links = max_links;
				r->feature_mask = SMC_NEGO_FEATURE_MASK;
				r->vx = smc_nego_prop_vx(p) & l->vx;
			}
			return 0;
		}
		if (eid && !first)
			first = SMC_CLC_DECL_NOSMCRDEV;
	}

	/* 6. SMC-R v1 */
	if (!prfx && v1r && l->r_v1)
		return 0;

	/* 7. nothing fits */
	return first ?: SMC_CLC_DECL_NOSMCDEV;
}

static void smc_nego_fill_ac(const struct smc_nego_result *r,
			     bool first_contact, u8 type,
			     struct smc_clc_accept_confirm *ac)
{
	struct smc_clc_fce *fce = &ac->fce;
	bool v2x = r->release >= SMC_CLC_RELEASE_1;

	ac->hdr.type = type;
	ac->hdr.version = r->version;
	ac->hdr.typev1 = SMC_TYPE_R;
	ac->hdr.typev2 = 0;
	ac->hdr.first_contact = first_contact;
	ac->hdr.smcd = false;
	ac->has_gid_list = false;

	if (r->version == SMC_V1) {
		memset(ac->eid, 0, SMC_CLC_EID_LEN);
		return;
	}
	memcpy(ac->eid, r->eid, SMC_CLC_EID_LEN);
	if (!first_contact)
		return;
	fce->v2x = true;
	fce->os_type = SMC_CLC_OS_LINUX;
	fce->release = r->release;
	fce->max_conns = v2x ? r->max_conns : 0;
	fce->max_links = v2x ? r->max_links : 0;
	fce->feature_mask = v2x ? r->feature_mask : 0;
	fce->vendor_exp_options = v2x && r->vx ? SMC_NEGO_VX_TAG | r->vx : 0;
	ac->has_gid_list = type == SMC_CLC_CONFIRM;
}

void smc_nego_fill_accept(const struct smc_nego_result *r, bool first_contact,
			  struct smc_clc_accept_confirm *acc)
{
	smc_nego_fill_ac(r, first_contact, SMC_CLC_ACCEPT, acc);
}

u32 smc_nego_client(const struct smc_clc_proposal *sent,
		    const struct smc_clc_accept_confirm *acc,
		    const struct smc_nego_local *l, struct smc_nego_result *r)
{
	const struct smc_clc_fce *fce = &acc->fce;
	u8 release;

	smc_nego_result_init(r, SMC_V1);
	if (acc->hdr.typev1 != SMC_TYPE_R)
		return SMC_CLC_DECL_MODEUNSUPP;
	if (acc->hdr.version == SMC_V1) {
		if (!smc_nego_offers_r(sent->hdr.typev1))
			return SMC_CLC_DECL_MODEUNSUPP;
		return 0;
	}
	if (sent->hdr.version < SMC_V2 ||
	    !smc_nego_offers_r(sent->hdr.typev2))
		return SMC_CLC_DECL_MODEUNSUPP;

	/* the server must have picked one of our EIDs */
	if (!smc_nego_eid_in(sent->eids, sent->eid_cnt, acc->eid))
		return SMC_CLC_DECL_NOUEID;

	r->version = SMC_V2;
	memcpy(r->eid, acc->eid, SMC_CLC_EID_LEN);
	if (!acc->hdr.first_contact)
		return 0;

	release = fce->release;
	if (release > min(sent->release, smc_nego_our_release(l)))
		return SMC_CLC_DECL_RELEASEERR;
	r->release = release;
	if (release < SMC_CLC_RELEASE_1)
		/* no vendor word: no iWARP */
		return smc_nego_prop_vx(sent) & SMC_NEGO_VX_IWARP ?
		       SMC_CLC_DECL_MODEUNSUPP : 0;

	if (!fce->v2x || fce->max_conns < SMC_NEGO_CONNS_MIN ||
	    fce->max_conns > sent->max_conns)
		return SMC_CLC_DECL_MAXCONNERR;
	if (fce->max_links < SMC_NEGO_LINKS_MIN ||
	    fce->max_links > SMC_NEGO_LINKS_MAX ||
	    fce->max_links > sent->max_links)
		return SMC_CLC_DECL_MAXLINKERR;
	r->max_conns = fce->max_conns;
	r->max_links = fce->max_links;
	r->feature_mask = fce->feature_mask & SMC_NEGO_FEATURE_MASK;
	/* only what we offered: a server cannot impose an extension */
	r->vx = smc_nego_vx_of(fce->vendor_exp_options) &
		smc_nego_prop_vx(sent);
	/* our iWARP device cannot link to a server that did not agree */
	if ((smc_nego_prop_vx(sent) ^ r->vx) & SMC_NEGO_VX_IWARP)
		return SMC_CLC_DECL_MODEUNSUPP;
	return 0;
}

void smc_nego_fill_confirm(const struct smc_nego_result *r, bool first_contact,
			   struct smc_clc_accept_confirm *conf)
{
	smc_nego_fill_ac(r, first_contact, SMC_CLC_CONFIRM, conf);
}

u32 smc_nego_confirm(const struct smc_nego_result *r,
		     const struct smc_clc_accept_confirm *conf)
{
	const struct smc_clc_fce *fce = &conf->fce;

	if (conf->hdr.typev1 != SMC_TYPE_R)
		return SMC_CLC_DECL_MODEUNSUPP;
	if (conf->hdr.version != r->version)
		return SMC_CLC_DECL_VERSMISMAT;
	if (r->version == SMC_V1)
		return 0;
	if (memcmp(conf->eid, r->eid, SMC_CLC_EID_LEN))
		return SMC_CLC_DECL_NOUEID;
	if (!conf->hdr.first_contact)
		return 0;

	if (fce->release != r->release)
		return SMC_CLC_DECL_RELEASEERR;
	if (fce->release < SMC_CLC_RELEASE_1)
		return 0;
	if (!fce->v2x || fce->max_conns != r->max_conns)
		return SMC_CLC_DECL_MAXCONNERR;
	if (fce->max_links != r->max_links)
		return SMC_CLC_DECL_MAXLINKERR;
	return 0;
}

u16 smc_nego_confirm_vx(const struct smc_nego_result *r,
			const struct smc_clc_accept_confirm *conf)
{
	if (r->version != SMC_V2 || r->release < SMC_CLC_RELEASE_1 ||
	    !conf->hdr.first_contact || !conf->fce.v2x)
		return 0;
	return r->vx & smc_nego_vx_of(conf->fce.vendor_exp_options);
}
