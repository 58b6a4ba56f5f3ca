// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for the CLC codec (net/smc/clc_wire.c): the input is one
 * CLC message as read from the clcsock and goes to every decoder.
 *
 * Properties checked besides the sanitizers:
 *  - decoders never write outside their output structure, successful or
 *    not (guard bands), and report counts within the protocol limits;
 *  - whatever decodes also encodes, to a message of the input's length,
 *    and decodes again to the same structure (decode->encode->decode);
 *    encoding that structure again gives the same bytes;
 *  - encoders fail with -ENOSPC, writing nothing, one byte short, and
 *    never write past the length they return;
 *  - the header decoder agrees with the message decoders;
 *  - the same input, read as the fields of a proposal and of an accept or
 *    confirm, goes to the encoders: whatever they encode decodes, and
 *    re-encoding the decoded structure gives the same bytes.
 */
#include <linux/errno.h>
#include <linux/types.h>
#include <linux/unaligned.h>
#include "fuzz.h"
#include "../../net/smc/clc_wire.h"

#define OUT_CAP		(SMC_CLC_MAX_MSG_LEN + 64)

/* Encode with exactly @need and one byte less; returns the bytes. */
static u8 *encode_both_ways(int (*enc)(const void *, u8 *, size_t),
			    const void *obj, int *len)
{
	u8 *out = fuzz_guard_alloc(OUT_CAP, FUZZ_GUARD_BYTE);
	u8 *exact;
	int rc;

	rc = enc(obj, out, OUT_CAP);
	fuzz_check_encoded(out, OUT_CAP, rc);
	FUZZ_CHECK(rc > 0 && rc <= SMC_CLC_MAX_MSG_LEN);

	exact = fuzz_guard_alloc(rc, FUZZ_GUARD_BYTE);
	FUZZ_CHECK(enc(obj, exact, rc) == rc);
	FUZZ_CHECK(!memcmp(exact, out, rc));
	fuzz_guard_free(exact, rc);

	exact = fuzz_guard_alloc(rc - 1, FUZZ_GUARD_BYTE);
	FUZZ_CHECK(enc(obj, exact, rc - 1) == -ENOSPC);
	FUZZ_CHECK(fuzz_all(exact, rc - 1, FUZZ_GUARD_BYTE));
	fuzz_guard_free(exact, rc - 1);

	*len = rc;
	return out;
}

static int enc_prop(const void *p, u8 *buf, size_t cap)
{
	return smc_clc_proposal_encode(p, buf, cap);
}

static int enc_ac(const void *ac, u8 *buf, size_t cap)
{
	return smc_clc_accept_confirm_encode(ac, buf, cap);
}

static int enc_decl(const void *d, u8 *buf, size_t cap)
{
	return smc_clc_decline_encode(d, buf, cap);
}

/*
 * Outside a proposal only the first contact bit of typev2 has a meaning
 * and only that bit is encoded; the decoder reports the raw bits.
 */
static void raw_typev2(const struct smc_clc_hdr *orig, struct smc_clc_hdr *h)
{
	FUZZ_CHECK(h->typev2 == (orig->typev2 & 0x2));
	h->typev2 = orig->typev2;
}

static void fuzz_hdr(const u8 *data, size_t size, struct smc_clc_hdr *h)
{
	struct smc_clc_hdr *h2;
	u8 out[SMC_CLC_HDR_LEN + 8];
	int rc;

	memset(out, FUZZ_GUARD_BYTE, sizeof(out));
	FUZZ_CHECK(smc_clc_hdr_encode(h, out) == SMC_CLC_HDR_LEN);
	FUZZ_CHECK(fuzz_all(out + SMC_CLC_HDR_LEN, 8, FUZZ_GUARD_BYTE));
	h2 = fuzz_guard_alloc(sizeof(*h2), 0x5a);
	rc = smc_clc_hdr_decode(out, SMC_CLC_HDR_LEN, h2);
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(h2->type == h->type && h2->length == h->length &&
		   h2->version == h->version && h2->typev1 == h->typev1 &&
		   h2->smcd == h->smcd &&
		   h2->first_contact == h->first_contact);
	if (h->type == SMC_CLC_PROPOSAL)
		FUZZ_CHECK(h2->typev2 == h->typev2);
	fuzz_guard_free(h2, sizeof(*h2));
	(void)smc_clc_type_str(h->type);
}

static void fuzz_proposal(const u8 *data, size_t size)
{
	struct smc_clc_proposal *p, *p2;
	u8 *out, *again;
	int rc, len;

	p = fuzz_guard_alloc(sizeof(*p), 0x5a);
	rc = smc_clc_proposal_decode(data, size, p);
	if (rc) {
		FUZZ_CHECK(rc == -EINVAL || rc == -EPROTO ||
			   rc == -EOPNOTSUPP);
		goto out;
	}
	FUZZ_CHECK(p->hdr.type == SMC_CLC_PROPOSAL && p->hdr.length == size);
	FUZZ_CHECK(p->ipv6_prefix_cnt <= SMC_CLC_MAX_V6_PREFIX);
	FUZZ_CHECK(p->eid_cnt <= SMC_CLC_MAX_UEID);
	FUZZ_CHECK(p->ism_gid_cnt <= SMC_CLC_MAX_ISM_GIDS);

	out = encode_both_ways(enc_prop, p, &len);
	/*
	 * The only layout the encoder does not reproduce: a v1 proposal
	 * offering SMC-R alone may still carry an (ignored) SMC-D area.
	 */
	if (p->hdr.version == SMC_V1 && p->hdr.typev1 == SMC_TYPE_R &&
	    get_unaligned_be16(data + 38)) {
		FUZZ_CHECK((size_t)len == size - SMC_CLC_PROP_SMCD_LEN);
		p->ism_gid = 0;
		p->ism_chid = 0;
		memset(p->vendor_oui, 0, sizeof(p->vendor_oui));
		memset(p->vendor_exp, 0, sizeof(p->vendor_exp));
	} else {
		FUZZ_CHECK((size_t)len == size);
	}
	p2 = fuzz_guard_alloc(sizeof(*p2), 0x3c);
	FUZZ_CHECK(smc_clc_proposal_decode(out, len, p2) == 0);
	p->hdr.length = len;
	FUZZ_CHECK(!memcmp(p, p2, sizeof(*p)));
	again = encode_both_ways(enc_prop, p2, &rc);
	FUZZ_CHECK(rc == len && !memcmp(again, out, len));
	fuzz_guard_free(again, OUT_CAP);
	fuzz_guard_free(p2, sizeof(*p2));
	fuzz_guard_free(out, OUT_CAP);
out:
	fuzz_guard_free(p, sizeof(*p));
}

static void fuzz_accept_confirm(const u8 *data, size_t size)
{
	struct smc_clc_accept_confirm *ac, *ac2;
	u8 *out, *again;
	int rc, len;

	ac = fuzz_guard_alloc(sizeof(*ac), 0x5a);
	rc = smc_clc_accept_confirm_decode(data, size, ac);
	if (rc) {
		FUZZ_CHECK(rc == -EINVAL || rc == -EPROTO ||
			   rc == -EOPNOTSUPP);
		goto out;
	}
	FUZZ_CHECK(ac->hdr.type == SMC_CLC_ACCEPT ||
		   ac->hdr.type == SMC_CLC_CONFIRM);
	FUZZ_CHECK(ac->hdr.typev1 == SMC_TYPE_R && ac->hdr.length == size);
	FUZZ_CHECK(ac->gid_cnt <= SMC_CLC_MAX_GLE_GIDS);
	FUZZ_CHECK(ac->has_gid_list || !ac->gid_cnt);

	out = encode_both_ways(enc_ac, ac, &len);
	FUZZ_CHECK((size_t)len == size);
	ac2 = fuzz_guard_alloc(sizeof(*ac2), 0x3c);
	FUZZ_CHECK(smc_clc_accept_confirm_decode(out, len, ac2) == 0);
	raw_typev2(&ac->hdr, &ac2->hdr);
	/*
	 * The first contact extension has no length of its own.  Its base
	 * form followed by a GID list can also parse as the v2.x form
	 * followed by a shorter list; the decoder then takes the v2.x form
	 * (see smc_clc_fce_decode()).  Linux always sends the v2.x form.
	 */
	if (ac->fce.v2x || !ac->has_gid_list)
		FUZZ_CHECK(!memcmp(ac, ac2, sizeof(*ac)));
	again = encode_both_ways(enc_ac, ac2, &rc);
	FUZZ_CHECK(rc == len);
	if (ac->fce.v2x || !ac->has_gid_list)
		FUZZ_CHECK(!memcmp(again, out, len));
	fuzz_guard_free(again, OUT_CAP);
	fuzz_guard_free(ac2, sizeof(*ac2));
	fuzz_guard_free(out, OUT_CAP);
out:
	fuzz_guard_free(ac, sizeof(*ac));
}

static void fuzz_decline(const u8 *data, size_t size)
{
	struct smc_clc_decline *d, *d2;
	u8 *out;
	int rc, len;

	d = fuzz_guard_alloc(sizeof(*d), 0x5a);
	rc = smc_clc_decline_decode(data, size, d);
	if (rc) {
		FUZZ_CHECK(rc == -EINVAL || rc == -EPROTO ||
			   rc == -EOPNOTSUPP);
		goto out;
	}
	FUZZ_CHECK(size == (d->hdr.version == SMC_V1 ?
			    SMC_CLC_DECLINE_LEN_V1 : SMC_CLC_DECLINE_LEN_V2));
	FUZZ_CHECK(smc_clc_decline_reason_str(d->peer_diagnosis));
	out = encode_both_ways(enc_decl, d, &len);
	FUZZ_CHECK((size_t)len == size);
	d2 = fuzz_guard_alloc(sizeof(*d2), 0x3c);
	FUZZ_CHECK(smc_clc_decline_decode(out, len, d2) == 0);
	raw_typev2(&d->hdr, &d2->hdr);
	FUZZ_CHECK(!memcmp(d, d2, sizeof(*d)));
	fuzz_guard_free(d2, sizeof(*d2));
	fuzz_guard_free(out, OUT_CAP);
out:
	fuzz_guard_free(d, sizeof(*d));
}

/*
 * Encoders on structures from the input.  A failing encoder may have
 * cleared part of the buffer, but never anything beyond @cap (ASan), and
 * for -ENOSPC nothing at all.
 */
static void encode_decode(int (*enc)(const void *, u8 *, size_t),
			  int (*dec)(const u8 *, size_t, void *),
			  const void *obj, size_t obj_size, bool exact)
{
	u8 *out = fuzz_guard_alloc(OUT_CAP, FUZZ_GUARD_BYTE), *again;
	void *back;
	int len, rc;

	len = enc(obj, out, OUT_CAP);
	if (len < 0) {
		FUZZ_CHECK(len == -EINVAL || len == -EOPNOTSUPP);
		goto out;
	}
	fuzz_check_encoded(out, OUT_CAP, len);
	back = fuzz_guard_alloc(obj_size, 0x3c);
	rc = dec(out, len, back);
	FUZZ_CHECK(rc == 0);
	again = fuzz_guard_alloc(OUT_CAP, FUZZ_GUARD_BYTE);
	FUZZ_CHECK(enc(back, again, OUT_CAP) == len);
	if (exact)
		FUZZ_CHECK(!memcmp(again, out, len));
	fuzz_guard_free(again, OUT_CAP);
	fuzz_guard_free(back, obj_size);
out:
	fuzz_guard_free(out, OUT_CAP);
}

static int dec_prop(const u8 *buf, size_t len, void *p)
{
	return smc_clc_proposal_decode(buf, len, p);
}

static int dec_ac(const u8 *buf, size_t len, void *ac)
{
	return smc_clc_accept_confirm_decode(buf, len, ac);
}

static void read_hdr(struct fuzz_in *in, struct smc_clc_hdr *h)
{
	u8 b = fuzz_u8(in);

	h->version = b & 0x3;
	h->typev1 = (b >> 2) & 0x3;
	h->typev2 = (b >> 4) & 0x3;
	h->first_contact = b & 0x40;
	h->smcd = b & 0x80;
	h->length = fuzz_u16(in);
}

/* small counts mostly, sometimes beyond the limits */
static u8 read_cnt(struct fuzz_in *in, u8 max)
{
	u8 b = fuzz_u8(in);

	return b & 0x80 ? b : b % (max + 1);
}

static void fuzz_encoders(const u8 *data, size_t size)
{
	struct fuzz_in in = { .p = data, .left = size };
	struct smc_clc_accept_confirm *ac;
	struct smc_clc_proposal *p;
	unsigned int i;

	p = fuzz_guard_alloc(sizeof(*p), 0);
	read_hdr(&in, &p->hdr);
	p->hdr.type = SMC_CLC_PROPOSAL;
	fuzz_bytes(&in, p->id_for_peer, sizeof(p->id_for_peer));
	fuzz_bytes(&in, p->gid, sizeof(p->gid));
	fuzz_bytes(&in, p->mac, sizeof(p->mac));
	p->ipv4_subnet = fuzz_u32(&in);
	p->ipv4_prefix_len = fuzz_u8(&in);
	p->ipv6_prefix_cnt = read_cnt(&in, SMC_CLC_MAX_V6_PREFIX);
	for (i = 0; i < SMC_CLC_MAX_V6_PREFIX && i < p->ipv6_prefix_cnt; i++)
		fuzz_bytes(&in, &p->ipv6_prefix[i], sizeof(p->ipv6_prefix[i]));
	p->ism_gid = (u64)fuzz_u32(&in) << 32 | fuzz_u32(&in);
	p->ism_chid = fuzz_u16(&in);
	p->eid_cnt = read_cnt(&in, SMC_CLC_MAX_UEID);
	p->ism_gid_cnt = read_cnt(&in, SMC_CLC_MAX_ISM_GIDS);
	p->release = fuzz_u8(&in) & 0x1f;
	p->seid = fuzz_u8(&in) & 1;
	fuzz_bytes(&in, p->roce_gid, sizeof(p->roce_gid));
	p->max_conns = fuzz_u8(&in);
	p->max_links = fuzz_u8(&in);
	p->feature_mask = fuzz_u16(&in);
	for (i = 0; i < SMC_CLC_MAX_UEID && i < p->eid_cnt; i++)
		fuzz_bytes(&in, p->eids[i], SMC_CLC_EID_LEN);
	fuzz_bytes(&in, p->system_eid, sizeof(p->system_eid));
	for (i = 0; i < SMC_CLC_MAX_ISM_GIDS && i < p->ism_gid_cnt; i++) {
		p->ism_gidchid[i].gid = (u64)fuzz_u32(&in) << 32 |
					fuzz_u32(&in);
		p->ism_gidchid[i].chid = fuzz_u16(&in);
	}
	encode_decode(enc_prop, dec_prop, p, sizeof(*p), true);
	fuzz_guard_free(p, sizeof(*p));

	ac = fuzz_guard_alloc(sizeof(*ac), 0);
	read_hdr(&in, &ac->hdr);
	ac->hdr.type = fuzz_u8(&in) & 1 ? SMC_CLC_CONFIRM : SMC_CLC_ACCEPT;
	fuzz_bytes(&in, ac->id_for_peer, sizeof(ac->id_for_peer));
	fuzz_bytes(&in, ac->gid, sizeof(ac->gid));
	fuzz_bytes(&in, ac->mac, sizeof(ac->mac));
	ac->qpn = fuzz_u32(&in) >> (fuzz_u8(&in) & 0xf);
	ac->rmb_rkey = fuzz_u32(&in);
	ac->rmbe_idx = fuzz_u8(&in);
	ac->rmbe_alert_token = fuzz_u32(&in);
	ac->rmbe_size = fuzz_u8(&in) & 0x1f;
	ac->qp_mtu = fuzz_u8(&in) & 0x1f;
	ac->rmb_dma_addr = (u64)fuzz_u32(&in) << 32 | fuzz_u32(&in);
	ac->psn = fuzz_u32(&in) >> (fuzz_u8(&in) & 0xf);
	fuzz_bytes(&in, ac->eid, sizeof(ac->eid));
	ac->fce.v2_direct = fuzz_u8(&in) & 1;
	ac->fce.os_type = fuzz_u8(&in) & 0x1f;
	ac->fce.release = fuzz_u8(&in) & 0x1f;
	fuzz_bytes(&in, ac->fce.hostname, sizeof(ac->fce.hostname));
	ac->fce.v2x = fuzz_u8(&in) & 1;
	ac->fce.max_conns = fuzz_u8(&in);
	ac->fce.max_links = fuzz_u8(&in);
	ac->fce.feature_mask = fuzz_u16(&in);
	ac->fce.vendor_exp_options = fuzz_u32(&in);
	ac->has_gid_list = fuzz_u8(&in) & 1;
	ac->gid_cnt = read_cnt(&in, SMC_CLC_MAX_GLE_GIDS);
	for (i = 0; i < SMC_CLC_MAX_GLE_GIDS && i < ac->gid_cnt; i++)
		fuzz_bytes(&in, ac->gids[i], SMC_CLC_GID_LEN);
	/* see fuzz_accept_confirm() for the one ambiguous layout */
	encode_decode(enc_ac, dec_ac, ac, sizeof(*ac),
		      ac->fce.v2x || !ac->has_gid_list ||
		      ac->hdr.type != SMC_CLC_CONFIRM);
	fuzz_guard_free(ac, sizeof(*ac));
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct smc_clc_hdr *h;
	int rc;

	h = fuzz_guard_alloc(sizeof(*h), 0x5a);
	rc = smc_clc_hdr_decode(data, size, h);
	if (!rc)
		fuzz_hdr(data, size, h);
	else
		FUZZ_CHECK(rc == -EINVAL || rc == -EPROTO ||
			   rc == -EOPNOTSUPP);

	fuzz_proposal(data, size);
	fuzz_accept_confirm(data, size);
	fuzz_decline(data, size);
	fuzz_encoders(data, size);
	if (size >= 4)
		FUZZ_CHECK(smc_clc_decline_reason_str(get_unaligned_be32(data)));
	fuzz_guard_free(h, sizeof(*h));
	return 0;
}
