// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the CLC wire codec.
 *
 * Three kinds of tests: golden byte vectors written down by hand from the
 * protocol layout, encode/decode round trips for every message shape, and
 * a table of malformed messages that must all be refused.  Decoders always
 * get a heap buffer of exactly the length they are told about, so KASAN
 * reports any read past the end.
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include "clc_wire.h"

/* eyecatchers in the vectors: e2 d4 c3 d9 is "SMCR", e2 d4 c3 c4 "SMCD" */

static void fill(u8 *p, size_t n, u8 seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = seed + 7 * i;
}

/* Copy @len bytes of @src into a heap buffer of exactly @len bytes. */
static u8 *exact_copy(struct kunit *test, const u8 *src, size_t len)
{
	u8 *buf = kunit_kzalloc(test, len ? len : 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	memcpy(buf, src, len);
	return buf;
}

/* ---------------------------------------------------------------------- */
/* golden vectors                                                          */

static const u8 golden_decline_v1[SMC_CLC_DECLINE_LEN_V1] = {
	0xe2, 0xd4, 0xc3, 0xd9, SMC_CLC_DECLINE, 0x00, 28, 0x10,
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,	/* id_for_peer */
	0x03, 0x03, 0x00, 0x02,				/* NOSMCRDEV */
	0x00, 0x00, 0x00, 0x00,				/* os type, rsvd */
	0xe2, 0xd4, 0xc3, 0xd9,
};

static const u8 golden_decline_v2[SMC_CLC_DECLINE_LEN_V2] = {
	0xe2, 0xd4, 0xc3, 0xd9, SMC_CLC_DECLINE, 0x00, 44,
	0x28,					/* v2, first contact bit */
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x04, 0x00, 0x00, 0x00,			/* SYNCERR */
	0x20, 0x00, 0x00, 0x00,			/* os type Linux */
	0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x02,
	0x00, 0x00, 0x00, 0x03,
	0xde, 0xad, 0xbe, 0xef,
	0xe2, 0xd4, 0xc3, 0xd9,
};

/*
 * A v2 proposal offering SMC-R for v1 and v2: base, SMC-D area, IPv4
 * prefix, one IPv6 prefix, v2 extension with one EID, trailer.
 * 40 + 40 + 8 + 17 + 40 + 32 + 4 = 181 bytes.
 */
static const u8 golden_proposal_v2[181] = {
	/* 0: header */
	0xe2, 0xd4, 0xc3, 0xd9, SMC_CLC_PROPOSAL, 0x00, 181, 0x20,
	/* 8: id for peer, 16: gid, 32: mac */
	0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33,
	0x44, 0x55,
	0x02, 0x11, 0x22, 0x33, 0x44, 0x55,
	/* 38: iparea offset */
	0x00, 0x28,
	/* 40: SMC-D area: gid, chid, v2 ext offset (181-... = 53) */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x35,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 80: 192.168.1.0/24, one IPv6 prefix */
	0xc0, 0xa8, 0x01, 0x00, 24, 0, 0, 1,
	/* 88: fd00:1::/64 */
	0xfd, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 64,
	/* 105: v2 extension: 1 EID, no ISM GIDs, release 1, no SMC-D ext */
	0x01, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00,
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33,
	0x44, 0x66,
	0xff, 0x02, 0x00, 0x01,		/* max conns, links, features */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 145: EID */
	'S', 'M', 'C', '-', 'E', 'I', 'D', '-', 'T', 'E', 'S', 'T',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	/* 177: trailer */
	0xe2, 0xd4, 0xc3, 0xd9,
};

/* SMC-R v2 first contact accept with the 52-byte FCE: 108 + 52 = 160. */
static const u8 golden_accept_v2_fce[160] = {
	0xe2, 0xd4, 0xc3, 0xd9, SMC_CLC_ACCEPT, 0x00, 160, 0x28,
	0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33,
	0x44, 0x55,
	0x02, 0x11, 0x22, 0x33, 0x44, 0x55,
	0x00, 0x01, 0x17,			/* 38: qpn 0x117 */
	0x00, 0x00, 0x12, 0x34,			/* 41: rkey */
	0x01,					/* 45: rmbe idx */
	0x00, 0x00, 0x00, 0x05,			/* 46: alert token */
	0x53,					/* 50: rmbe size 5, mtu 3 */
	0x00,
	0x00, 0x00, 0x7f, 0x12, 0x34, 0x56, 0x78, 0x00,	/* 52: dma addr */
	0x00,
	0xab, 0xcd, 0xef,			/* 61: psn */
	/* 64: EID */
	'S', 'M', 'C', '-', 'E', 'I', 'D', '-', 'T', 'E', 'S', 'T',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	0, 0, 0, 0, 0, 0, 0, 0,
	/* 104: FCE: direct, Linux release 1, hostname */
	0x80, 0x21, 0x00, 0x00,
	'h', 'o', 's', 't', '1', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0xff, 0x02, 0x00, 0x01,			/* 140: conns, links, mask */
	0x00, 0x00, 0x00, 0x00,
	0, 0, 0, 0, 0, 0, 0, 0,
	/* 156: trailer */
	0xe2, 0xd4, 0xc3, 0xd9,
};

static const u8 eid_test[SMC_CLC_EID_LEN] = "SMC-EID-TEST                    ";
static const u8 lcl_gid[SMC_CLC_GID_LEN] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33,
	0x44, 0x55,
};

static const u8 lcl_mac[SMC_CLC_MAC_LEN] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const u8 lcl_id[SMC_CLC_SYSTEMID_LEN] = {
	0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
};

static void golden_decline_v1_test(struct kunit *test)
{
	const u8 *buf = exact_copy(test, golden_decline_v1,
				   sizeof(golden_decline_v1));
	struct smc_clc_decline d = { };
	u8 out[64];

	KUNIT_ASSERT_EQ(test, smc_clc_decline_decode(buf, 28, &d), 0);
	KUNIT_EXPECT_EQ(test, d.hdr.type, SMC_CLC_DECLINE);
	KUNIT_EXPECT_EQ(test, d.hdr.version, SMC_V1);
	KUNIT_EXPECT_EQ(test, d.hdr.length, 28);
	KUNIT_EXPECT_FALSE(test, d.hdr.first_contact);
	KUNIT_EXPECT_FALSE(test, d.hdr.smcd);
	KUNIT_EXPECT_EQ(test, d.peer_diagnosis, SMC_CLC_DECL_NOSMCRDEV);
	KUNIT_EXPECT_EQ(test, d.os_type, 0);
	KUNIT_EXPECT_EQ(test, d.id_for_peer[7], 0x08);
	KUNIT_EXPECT_EQ(test, d.peer_diagnosis_v2[0], 0);

	KUNIT_ASSERT_EQ(test, smc_clc_decline_encode(&d, out, sizeof(out)), 28);
	KUNIT_EXPECT_MEMEQ(test, out, golden_decline_v1, 28);
}

static void golden_decline_v2_test(struct kunit *test)
{
	const u8 *buf = exact_copy(test, golden_decline_v2,
				   sizeof(golden_decline_v2));
	struct smc_clc_decline d = { };
	u8 out[64];

	KUNIT_ASSERT_EQ(test, smc_clc_decline_decode(buf, 44, &d), 0);
	KUNIT_EXPECT_EQ(test, d.hdr.version, SMC_V2);
	KUNIT_EXPECT_EQ(test, d.hdr.length, 44);
	KUNIT_EXPECT_TRUE(test, d.hdr.first_contact);
	KUNIT_EXPECT_EQ(test, d.peer_diagnosis, SMC_CLC_DECL_SYNCERR);
	KUNIT_EXPECT_EQ(test, d.os_type, SMC_CLC_OS_LINUX);
	KUNIT_EXPECT_EQ(test, d.peer_diagnosis_v2[0], 1);
	KUNIT_EXPECT_EQ(test, d.peer_diagnosis_v2[2], 3);
	KUNIT_EXPECT_EQ(test, d.peer_diagnosis_v2[3], 0xdeadbeef);

	/* and back, from a structure built from scratch */
	memset(&d, 0, sizeof(d));
	d.hdr.type = SMC_CLC_DECLINE;
	d.hdr.version = SMC_V2;
	d.hdr.first_contact = true;
	memcpy(d.id_for_peer, golden_decline_v2 + 8, 8);
	d.peer_diagnosis = SMC_CLC_DECL_SYNCERR;
	d.os_type = SMC_CLC_OS_LINUX;
	d.peer_diagnosis_v2[0] = 1;
	d.peer_diagnosis_v2[1] = 2;
	d.peer_diagnosis_v2[2] = 3;
	d.peer_diagnosis_v2[3] = 0xdeadbeef;
	KUNIT_ASSERT_EQ(test, smc_clc_decline_encode(&d, out, sizeof(out)), 44);
	KUNIT_EXPECT_MEMEQ(test, out, golden_decline_v2, 44);
}

static void golden_proposal_v2_test(struct kunit *test)
{
	const u8 *buf = exact_copy(test, golden_proposal_v2,
				   sizeof(golden_proposal_v2));
	struct smc_clc_proposal *p, *q;
	u8 *out;

	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	out = kunit_kzalloc(test, SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);

	KUNIT_ASSERT_EQ(test, smc_clc_proposal_decode(buf, 181, p), 0);
	KUNIT_EXPECT_EQ(test, p->hdr.version, SMC_V2);
	KUNIT_EXPECT_EQ(test, p->hdr.typev1, SMC_TYPE_R);
	KUNIT_EXPECT_EQ(test, p->hdr.typev2, SMC_TYPE_R);
	KUNIT_EXPECT_MEMEQ(test, p->id_for_peer, lcl_id, 8);
	KUNIT_EXPECT_MEMEQ(test, p->gid, lcl_gid, 16);
	KUNIT_EXPECT_MEMEQ(test, p->mac, lcl_mac, 6);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->ipv4_subnet), 0xc0a80100);
	KUNIT_EXPECT_EQ(test, p->ipv4_prefix_len, 24);
	KUNIT_EXPECT_EQ(test, p->ipv6_prefix_cnt, 1);
	KUNIT_EXPECT_EQ(test, p->ipv6_prefix[0].prefix[0], 0xfd);
	KUNIT_EXPECT_EQ(test, p->ipv6_prefix[0].prefix[3], 0x01);
	KUNIT_EXPECT_EQ(test, p->ipv6_prefix[0].prefix_len, 64);
	KUNIT_EXPECT_TRUE(test, p->has_v2_ext);
	KUNIT_EXPECT_FALSE(test, p->has_smcd_v2_ext);
	KUNIT_EXPECT_EQ(test, p->eid_cnt, 1);
	KUNIT_EXPECT_EQ(test, p->ism_gid_cnt, 0);
	KUNIT_EXPECT_EQ(test, p->release, SMC_CLC_RELEASE_1);
	KUNIT_EXPECT_FALSE(test, p->seid);
	KUNIT_EXPECT_EQ(test, p->roce_gid[15], 0x66);
	KUNIT_EXPECT_EQ(test, p->max_conns, 255);
	KUNIT_EXPECT_EQ(test, p->max_links, 2);
	KUNIT_EXPECT_EQ(test, p->feature_mask, 1);
	KUNIT_EXPECT_MEMEQ(test, p->eids[0], eid_test, SMC_CLC_EID_LEN);

	/* build the same proposal field by field */
	q->hdr.type = SMC_CLC_PROPOSAL;
	q->hdr.version = SMC_V2;
	q->hdr.typev1 = SMC_TYPE_R;
	q->hdr.typev2 = SMC_TYPE_R;
	memcpy(q->id_for_peer, lcl_id, 8);
	memcpy(q->gid, lcl_gid, 16);
	memcpy(q->mac, lcl_mac, 6);
	q->ipv4_subnet = cpu_to_be32(0xc0a80100);
	q->ipv4_prefix_len = 24;
	q->ipv6_prefix_cnt = 1;
	q->ipv6_prefix[0].prefix[0] = 0xfd;
	q->ipv6_prefix[0].prefix[3] = 0x01;
	q->ipv6_prefix[0].prefix_len = 64;
	q->eid_cnt = 1;
	q->release = SMC_CLC_RELEASE_1;
	memcpy(q->roce_gid, lcl_gid, 16);
	q->roce_gid[15] = 0x66;
	q->max_conns = 255;
	q->max_links = 2;
	q->feature_mask = 1;
	memcpy(q->eids[0], eid_test, SMC_CLC_EID_LEN);
	KUNIT_ASSERT_EQ(test, smc_clc_proposal_encode(q, out,
						      SMC_CLC_MAX_MSG_LEN),
			181);
	KUNIT_EXPECT_MEMEQ(test, out, golden_proposal_v2, 181);
}

static void golden_accept_v2_test(struct kunit *test)
{
	const u8 *buf = exact_copy(test, golden_accept_v2_fce,
				   sizeof(golden_accept_v2_fce));
	struct smc_clc_accept_confirm *ac;
	u8 *out;

	ac = kunit_kzalloc(test, sizeof(*ac), GFP_KERNEL);
	out = kunit_kzalloc(test, 256, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ac);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	KUNIT_ASSERT_EQ(test, smc_clc_accept_confirm_decode(buf, 160, ac), 0);
	KUNIT_EXPECT_EQ(test, ac->hdr.type, SMC_CLC_ACCEPT);
	KUNIT_EXPECT_EQ(test, ac->hdr.version, SMC_V2);
	KUNIT_EXPECT_TRUE(test, ac->hdr.first_contact);
	KUNIT_EXPECT_EQ(test, ac->qpn, 0x117);
	KUNIT_EXPECT_EQ(test, ac->rmb_rkey, 0x1234);
	KUNIT_EXPECT_EQ(test, ac->rmbe_idx, 1);
	KUNIT_EXPECT_EQ(test, ac->rmbe_alert_token, 5);
	KUNIT_EXPECT_EQ(test, ac->rmbe_size, 5);
	KUNIT_EXPECT_EQ(test, ac->qp_mtu, 3);
	KUNIT_EXPECT_EQ(test, ac->rmb_dma_addr, 0x7f1234567800ULL);
	KUNIT_EXPECT_EQ(test, ac->psn, 0xabcdef);
	KUNIT_EXPECT_MEMEQ(test, ac->eid, eid_test, SMC_CLC_EID_LEN);
	KUNIT_EXPECT_TRUE(test, ac->fce.v2_direct);
	KUNIT_EXPECT_EQ(test, ac->fce.os_type, SMC_CLC_OS_LINUX);
	KUNIT_EXPECT_EQ(test, ac->fce.release, SMC_CLC_RELEASE_1);
	KUNIT_EXPECT_STREQ(test, (char *)ac->fce.hostname, "host1");
	KUNIT_EXPECT_TRUE(test, ac->fce.v2x);
	KUNIT_EXPECT_EQ(test, ac->fce.max_conns, 255);
	KUNIT_EXPECT_EQ(test, ac->fce.max_links, 2);
	KUNIT_EXPECT_EQ(test, ac->fce.feature_mask, 1);
	KUNIT_EXPECT_FALSE(test, ac->has_gid_list);

	KUNIT_ASSERT_EQ(test, smc_clc_accept_confirm_encode(ac, out, 256), 160);
	KUNIT_EXPECT_MEMEQ(test, out, golden_accept_v2_fce, 160);
}

/* ---------------------------------------------------------------------- */
/* header                                                                  */

static void hdr_decode_test(struct kunit *test)
{
	u8 smcd_hdr[8] = { 0xe2, 0xd4, 0xc3, 0xc4, SMC_CLC_CONFIRM, 0x00, 48, 0x19 };
	struct smc_clc_hdr hdr;

	KUNIT_ASSERT_EQ(test, smc_clc_hdr_decode(golden_proposal_v2, 8, &hdr),
			0);
	KUNIT_EXPECT_EQ(test, hdr.type, SMC_CLC_PROPOSAL);
	KUNIT_EXPECT_EQ(test, hdr.length, 181);
	KUNIT_EXPECT_FALSE(test, hdr.first_contact);

	/* SMC-D v1 confirm with first contact: header only is fine */
	KUNIT_ASSERT_EQ(test, smc_clc_hdr_decode(smcd_hdr, 8, &hdr), 0);
	KUNIT_EXPECT_TRUE(test, hdr.smcd);
	KUNIT_EXPECT_TRUE(test, hdr.first_contact);
	KUNIT_EXPECT_EQ(test, hdr.typev1, SMC_TYPE_D);
	KUNIT_EXPECT_EQ(test, hdr.version, SMC_V1);

	KUNIT_EXPECT_EQ(test, smc_clc_hdr_decode(smcd_hdr, 7, &hdr), -EINVAL);
	KUNIT_EXPECT_EQ(test, smc_clc_hdr_decode(NULL, 8, &hdr), -EINVAL);
}

/* Framing survives what the decoder rejects: version 0, a huge length. */
static void hdr_framed_test(struct kunit *test)
{
	u8 bad[8] = { 0xe2, 0xd4, 0xc3, 0xd9, 0x09, 0x04, 0x4c, 0x00 };
	struct smc_clc_hdr hdr;
	u16 length = 0;

	KUNIT_EXPECT_NE(test, smc_clc_hdr_decode(bad, 8, &hdr), 0);
	KUNIT_ASSERT_TRUE(test, smc_clc_hdr_framed(bad, 8, &length));
	KUNIT_EXPECT_EQ(test, length, 1100);
	KUNIT_ASSERT_TRUE(test, smc_clc_hdr_framed(golden_proposal_v2, 8,
						   &length));
	KUNIT_EXPECT_EQ(test, length, 181);

	bad[3] ^= 0x01;		/* no eyecatcher: not CLC at all */
	KUNIT_EXPECT_FALSE(test, smc_clc_hdr_framed(bad, 8, &length));
	KUNIT_EXPECT_FALSE(test, smc_clc_hdr_framed(golden_proposal_v2, 7,
						    &length));
	KUNIT_EXPECT_FALSE(test, smc_clc_hdr_framed(NULL, 8, &length));
}

static void hdr_encode_test(struct kunit *test)
{
	struct smc_clc_hdr hdr = {
		.type = SMC_CLC_PROPOSAL, .length = 0x1234, .version = SMC_V2,
		.typev1 = SMC_TYPE_B, .typev2 = SMC_TYPE_D,
	};
	static const u8 want[8] = { 0xe2, 0xd4, 0xc3, 0xd9, 0x01, 0x12, 0x34, 0x27 };
	u8 buf[8];

	KUNIT_ASSERT_EQ(test, smc_clc_hdr_encode(&hdr, buf), 8);
	KUNIT_EXPECT_MEMEQ(test, buf, want, 8);

	hdr.typev1 = 4;
	KUNIT_EXPECT_EQ(test, smc_clc_hdr_encode(&hdr, buf), -EINVAL);
	hdr.typev1 = SMC_TYPE_R;
	hdr.version = 3;
	KUNIT_EXPECT_EQ(test, smc_clc_hdr_encode(&hdr, buf), -EINVAL);
	hdr.version = SMC_V1;
	hdr.type = 5;
	KUNIT_EXPECT_EQ(test, smc_clc_hdr_encode(&hdr, buf), -EINVAL);
}

/* Every version and type byte value through the header decoder. */
static void hdr_versions_types_test(struct kunit *test)
{
	u8 buf[8] = { 0xe2, 0xd4, 0xc3, 0xd9, SMC_CLC_DECLINE, 0x00, 28, 0x10 };
	struct smc_clc_hdr hdr;
	int v, t, rc;

	for (v = 0; v < 16; v++) {
		buf[7] = v << 4;
		buf[6] = v == SMC_V2 ? 44 : 28;
		rc = smc_clc_hdr_decode(buf, 8, &hdr);
		if (v == SMC_V1 || v == SMC_V2)
			KUNIT_EXPECT_EQ_MSG(test, rc, 0, "version %d", v);
		else
			KUNIT_EXPECT_EQ_MSG(test, rc, v ? -EOPNOTSUPP : -EPROTO,
					    "version %d", v);
	}
	buf[7] = 0x10;
	buf[6] = 28;
	for (t = 0; t < 256; t++) {
		buf[4] = t;
		rc = smc_clc_hdr_decode(buf, 8, &hdr);
		if (t == SMC_CLC_DECLINE)
			KUNIT_EXPECT_EQ(test, rc, 0);
		else if (t >= SMC_CLC_PROPOSAL && t <= SMC_CLC_CONFIRM)
			/* 28 bytes is implausible for all the others */
			KUNIT_EXPECT_EQ_MSG(test, rc, -EPROTO, "type %d", t);
		else
			KUNIT_EXPECT_EQ_MSG(test, rc, -EOPNOTSUPP, "type %d", t);
	}
}

/* ---------------------------------------------------------------------- */
/* round trips                                                             */

struct prop_shape {
	const char *name;
	u8 version, typev1, typev2, v6, eids, gids;
	bool smcd;
	int len;
};

static const struct prop_shape prop_shapes[] = {
	{ "v1 R", 1, SMC_TYPE_R, 0, 0, 0, 0, false, 52 },
	{ "v1 R 1 v6", 1, SMC_TYPE_R, 0, 1, 0, 0, false, 69 },
	{ "v1 R 8 v6", 1, SMC_TYPE_R, 0, 8, 0, 0, false, 188 },
	{ "v1 D", 1, SMC_TYPE_D, 0, 0, 0, 0, true, 92 },
	{ "v1 B 3 v6", 1, SMC_TYPE_B, 0, 3, 0, 0, false, 143 },
	{ "v1 B 8 v6", 1, SMC_TYPE_B, 0, 8, 0, 0, false, 228 },
	{ "v2 R/N", 2, SMC_TYPE_R, SMC_TYPE_N, 0, 0, 0, false, 92 },
	{ "v2 R/N 8 v6", 2, SMC_TYPE_R, SMC_TYPE_N, 8, 0, 0, false, 228 },
	{ "v2 R/R", 2, SMC_TYPE_R, SMC_TYPE_R, 0, 0, 0, false, 132 },
	{ "v2 N/R", 2, SMC_TYPE_N, SMC_TYPE_R, 0, 0, 0, false, 124 },
	{ "v2 N/R 8 eids", 2, SMC_TYPE_N, SMC_TYPE_R, 0, 8, 0, false, 380 },
	{ "v2 R/R 2 v6 1 eid", 2, SMC_TYPE_R, SMC_TYPE_R, 2, 1, 0, false,
	  198 },
	{ "v2 N/D", 2, SMC_TYPE_N, SMC_TYPE_D, 0, 0, 0, true, 172 },
	{ "v2 N/D 8 gids", 2, SMC_TYPE_N, SMC_TYPE_D, 0, 0, 8, true, 252 },
	{ "v2 B/B 2 v6 2 eids 2 gids", 2, SMC_TYPE_B, SMC_TYPE_B, 2, 2, 2,
	  false, 298 },
	{ "v2 B/B max", 2, SMC_TYPE_B, SMC_TYPE_B, 8, 8, 8, false,
	  SMC_CLC_PROP_MAX_LEN_V2 },
	{ "v2 D/B 1 eid 1 gid", 2, SMC_TYPE_D, SMC_TYPE_B, 0, 1, 1, true,
	  222 },
};

static void prop_shape_desc(const struct prop_shape *s, char *desc)
{
	strscpy(desc, s->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(prop_shape, prop_shapes, prop_shape_desc);

static void make_proposal(struct smc_clc_proposal *p,
			  const struct prop_shape *s)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->hdr.type = SMC_CLC_PROPOSAL;
	p->hdr.version = s->version;
	p->hdr.typev1 = s->typev1;
	p->hdr.typev2 = s->typev2;
	p->hdr.smcd = s->smcd;
	fill(p->id_for_peer, sizeof(p->id_for_peer), 1);
	fill(p->gid, sizeof(p->gid), 2);
	fill(p->mac, sizeof(p->mac), 3);
	p->ipv4_subnet = cpu_to_be32(0x0a000000);
	p->ipv4_prefix_len = 8;
	p->ipv6_prefix_cnt = s->v6;
	for (i = 0; i < s->v6; i++) {
		fill(p->ipv6_prefix[i].prefix, 16, 10 + i);
		p->ipv6_prefix[i].prefix_len = 48 + i;
	}
	if (s->typev1 == SMC_TYPE_D || s->typev1 == SMC_TYPE_B ||
	    s->version == SMC_V2) {
		p->ism_gid = 0x0123456789abcdefULL;
		p->ism_chid = 0xbeef;
	}
	p->eid_cnt = s->eids;
	p->ism_gid_cnt = s->gids;
	p->release = SMC_CLC_RELEASE_1;
	p->seid = s->gids & 1;
	fill(p->roce_gid, sizeof(p->roce_gid), 4);
	p->max_conns = 200;
	p->max_links = 3;
	p->feature_mask = 0x8001;
	for (i = 0; i < s->eids; i++)
		fill(p->eids[i], SMC_CLC_EID_LEN, 40 + i);
	fill(p->system_eid, sizeof(p->system_eid), 5);
	for (i = 0; i < s->gids; i++) {
		p->ism_gidchid[i].gid = 0x1000 + i;
		p->ism_gidchid[i].chid = 0x20 + i;
	}
}

static void proposal_roundtrip_test(struct kunit *test)
{
	const struct prop_shape *s = test->param_value;
	struct smc_clc_proposal *p, *q;
	u8 *out, *again, *buf;
	int len, i;

	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	out = kunit_kzalloc(test, SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	again = kunit_kzalloc(test, SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, again);

	make_proposal(p, s);
	len = smc_clc_proposal_encode(p, out, SMC_CLC_MAX_MSG_LEN);
	KUNIT_ASSERT_EQ(test, len, s->len);

	buf = exact_copy(test, out, len);
	KUNIT_ASSERT_EQ(test, smc_clc_proposal_decode(buf, len, q), 0);
	KUNIT_EXPECT_EQ(test, q->hdr.length, len);
	KUNIT_EXPECT_EQ(test, q->hdr.version, s->version);
	KUNIT_EXPECT_EQ(test, q->hdr.typev1, s->typev1);
	KUNIT_EXPECT_EQ(test, q->hdr.smcd, s->smcd);
	KUNIT_EXPECT_MEMEQ(test, q->id_for_peer, p->id_for_peer, 8);
	KUNIT_EXPECT_MEMEQ(test, q->gid, p->gid, 16);
	KUNIT_EXPECT_MEMEQ(test, q->mac, p->mac, 6);
	if (s->version == SMC_V1 || s->typev1 != SMC_TYPE_N) {
		KUNIT_EXPECT_EQ(test, be32_to_cpu(q->ipv4_subnet), 0x0a000000);
		KUNIT_EXPECT_EQ(test, q->ipv4_prefix_len, 8);
		KUNIT_EXPECT_EQ(test, q->ipv6_prefix_cnt, s->v6);
		for (i = 0; i < s->v6; i++) {
			KUNIT_EXPECT_MEMEQ(test, q->ipv6_prefix[i].prefix,
					   p->ipv6_prefix[i].prefix, 16);
			KUNIT_EXPECT_EQ(test, q->ipv6_prefix[i].prefix_len,
					48 + i);
		}
	}
	KUNIT_EXPECT_EQ(test, q->ism_gid, p->ism_gid);
	KUNIT_EXPECT_EQ(test, q->ism_chid, p->ism_chid);
	KUNIT_EXPECT_EQ(test, q->has_v2_ext,
			s->version == SMC_V2 && s->typev2 != SMC_TYPE_N);
	KUNIT_EXPECT_EQ(test, q->has_smcd_v2_ext,
			s->version == SMC_V2 && (s->typev2 == SMC_TYPE_D ||
						 s->typev2 == SMC_TYPE_B));
	if (q->has_v2_ext) {
		KUNIT_EXPECT_EQ(test, q->hdr.typev2, s->typev2);
		KUNIT_EXPECT_EQ(test, q->eid_cnt, s->eids);
		KUNIT_EXPECT_EQ(test, q->release, SMC_CLC_RELEASE_1);
		KUNIT_EXPECT_MEMEQ(test, q->roce_gid, p->roce_gid, 16);
		KUNIT_EXPECT_EQ(test, q->max_conns, 200);
		KUNIT_EXPECT_EQ(test, q->max_links, 3);
		KUNIT_EXPECT_EQ(test, q->feature_mask, 0x8001);
		for (i = 0; i < s->eids; i++)
			KUNIT_EXPECT_MEMEQ(test, q->eids[i], p->eids[i],
					   SMC_CLC_EID_LEN);
	}
	if (q->has_smcd_v2_ext) {
		KUNIT_EXPECT_EQ(test, q->seid, p->seid);
		KUNIT_EXPECT_EQ(test, q->ism_gid_cnt, s->gids);
		KUNIT_EXPECT_MEMEQ(test, q->system_eid, p->system_eid,
				   SMC_CLC_EID_LEN);
		for (i = 0; i < s->gids; i++) {
			KUNIT_EXPECT_EQ(test, q->ism_gidchid[i].gid, 0x1000 + i);
			KUNIT_EXPECT_EQ(test, q->ism_gidchid[i].chid, 0x20 + i);
		}
	} else {
		KUNIT_EXPECT_EQ(test, q->ism_gid_cnt, 0);
	}

	/* decoding and re-encoding is the identity on the bytes */
	KUNIT_ASSERT_EQ(test, smc_clc_proposal_encode(q, again,
						      SMC_CLC_MAX_MSG_LEN),
			len);
	KUNIT_EXPECT_MEMEQ(test, again, out, len);
}

struct ac_shape {
	const char *name;
	u8 type, version;
	bool fc, v2x, gle;
	u8 gids;
	int len;
};

static const struct ac_shape ac_shapes[] = {
	{ "accept v1", SMC_CLC_ACCEPT, 1, false, false, false, 0, 68 },
	{ "accept v1 first contact", SMC_CLC_ACCEPT, 1, true, false, false,
	  0, 68 },
	{ "confirm v1", SMC_CLC_CONFIRM, 1, false, false, false, 0, 68 },
	{ "accept v2", SMC_CLC_ACCEPT, 2, false, false, false, 0, 108 },
	{ "confirm v2", SMC_CLC_CONFIRM, 2, false, false, false, 0, 108 },
	{ "accept v2 fce", SMC_CLC_ACCEPT, 2, true, false, false, 0, 144 },
	{ "accept v2 fce v2x", SMC_CLC_ACCEPT, 2, true, true, false, 0, 160 },
	{ "confirm v2 fce", SMC_CLC_CONFIRM, 2, true, false, false, 0, 144 },
	{ "confirm v2 fce v2x", SMC_CLC_CONFIRM, 2, true, true, false, 0,
	  160 },
	{ "confirm v2 fce v2x gle 0", SMC_CLC_CONFIRM, 2, true, true, true, 0,
	  164 },
	{ "confirm v2 fce v2x gle 2", SMC_CLC_CONFIRM, 2, true, true, true, 2,
	  196 },
	{ "confirm v2 fce gle 1", SMC_CLC_CONFIRM, 2, true, false, true, 1,
	  164 },
	{ "confirm v2 fce v2x gle 8", SMC_CLC_CONFIRM, 2, true, true, true, 8,
	  292 },
};

static void ac_shape_desc(const struct ac_shape *s, char *desc)
{
	strscpy(desc, s->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ac_shape, ac_shapes, ac_shape_desc);

static void make_accept(struct smc_clc_accept_confirm *ac,
			const struct ac_shape *s)
{
	int i;

	memset(ac, 0, sizeof(*ac));
	ac->hdr.type = s->type;
	ac->hdr.version = s->version;
	ac->hdr.typev1 = SMC_TYPE_R;
	ac->hdr.first_contact = s->fc;
	fill(ac->id_for_peer, sizeof(ac->id_for_peer), 11);
	fill(ac->gid, sizeof(ac->gid), 12);
	fill(ac->mac, sizeof(ac->mac), 13);
	ac->qpn = 0xfedcba;
	ac->rmb_rkey = 0xdeadbeef;
	ac->rmbe_idx = 1;
	ac->rmbe_alert_token = 0x01020304;
	ac->rmbe_size = 0xa;
	ac->qp_mtu = 0x5;
	ac->rmb_dma_addr = 0x8877665544332211ULL;
	ac->psn = 0x123456;
	if (s->version == SMC_V2)
		memcpy(ac->eid, eid_test, SMC_CLC_EID_LEN);
	if (s->version == SMC_V2 && s->fc) {
		ac->fce.v2_direct = true;
		ac->fce.os_type = SMC_CLC_OS_LINUX;
		ac->fce.release = s->v2x;
		fill(ac->fce.hostname, SMC_CLC_HOSTNAME_LEN, 14);
		ac->fce.v2x = s->v2x;
		if (s->v2x) {
			ac->fce.max_conns = 255;
			ac->fce.max_links = 2;
			ac->fce.feature_mask = 1;
			ac->fce.vendor_exp_options = 0xcafe;
		}
	}
	ac->has_gid_list = s->gle;
	ac->gid_cnt = s->gids;
	for (i = 0; i < s->gids; i++)
		fill(ac->gids[i], SMC_CLC_GID_LEN, 60 + i);
}

static void accept_confirm_roundtrip_test(struct kunit *test)
{
	const struct ac_shape *s = test->param_value;
	struct smc_clc_accept_confirm *ac, *q;
	u8 *buf, *out, *again;
	int len;

	ac = kunit_kzalloc(test, sizeof(*ac), GFP_KERNEL);
	q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	out = kunit_kzalloc(test, 512, GFP_KERNEL);
	again = kunit_kzalloc(test, 512, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ac);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, again);

	make_accept(ac, s);
	len = smc_clc_accept_confirm_encode(ac, out, 512);
	KUNIT_ASSERT_EQ(test, len, s->len);
	buf = exact_copy(test, out, len);
	KUNIT_ASSERT_EQ(test, smc_clc_accept_confirm_decode(buf, len, q), 0);
	KUNIT_EXPECT_EQ(test, q->hdr.type, s->type);
	KUNIT_EXPECT_EQ(test, q->hdr.version, s->version);
	KUNIT_EXPECT_EQ(test, q->hdr.first_contact, s->fc);
	KUNIT_EXPECT_EQ(test, q->hdr.length, len);
	KUNIT_EXPECT_MEMEQ(test, q->id_for_peer, ac->id_for_peer, 8);
	KUNIT_EXPECT_MEMEQ(test, q->gid, ac->gid, 16);
	KUNIT_EXPECT_MEMEQ(test, q->mac, ac->mac, 6);
	KUNIT_EXPECT_EQ(test, q->qpn, 0xfedcba);
	KUNIT_EXPECT_EQ(test, q->rmb_rkey, 0xdeadbeef);
	KUNIT_EXPECT_EQ(test, q->rmbe_idx, 1);
	KUNIT_EXPECT_EQ(test, q->rmbe_alert_token, 0x01020304);
	KUNIT_EXPECT_EQ(test, q->rmbe_size, 0xa);
	KUNIT_EXPECT_EQ(test, q->qp_mtu, 0x5);
	KUNIT_EXPECT_EQ(test, q->rmb_dma_addr, 0x8877665544332211ULL);
	KUNIT_EXPECT_EQ(test, q->psn, 0x123456);
	if (s->version == SMC_V2)
		KUNIT_EXPECT_MEMEQ(test, q->eid, eid_test, SMC_CLC_EID_LEN);
	if (s->version == SMC_V2 && s->fc) {
		KUNIT_EXPECT_TRUE(test, q->fce.v2_direct);
		KUNIT_EXPECT_EQ(test, q->fce.os_type, SMC_CLC_OS_LINUX);
		KUNIT_EXPECT_EQ(test, q->fce.release, s->v2x);
		KUNIT_EXPECT_MEMEQ(test, q->fce.hostname, ac->fce.hostname,
				   SMC_CLC_HOSTNAME_LEN);
		KUNIT_EXPECT_EQ(test, q->fce.v2x, s->v2x);
		KUNIT_EXPECT_EQ(test, q->fce.max_conns, ac->fce.max_conns);
		KUNIT_EXPECT_EQ(test, q->fce.max_links, ac->fce.max_links);
		KUNIT_EXPECT_EQ(test, q->fce.feature_mask,
				ac->fce.feature_mask);
		KUNIT_EXPECT_EQ(test, q->fce.vendor_exp_options,
				ac->fce.vendor_exp_options);
		KUNIT_EXPECT_EQ(test, q->has_gid_list, s->gle);
		KUNIT_EXPECT_EQ(test, q->gid_cnt, s->gids);
		if (s->gids)
			KUNIT_EXPECT_MEMEQ(test, q->gids, ac->gids,
					   s->gids * SMC_CLC_GID_LEN);
	} else {
		KUNIT_EXPECT_FALSE(test, q->fce.v2x);
		KUNIT_EXPECT_FALSE(test, q->has_gid_list);
	}

	KUNIT_ASSERT_EQ(test, smc_clc_accept_confirm_encode(q, again, 512),
			len);
	KUNIT_EXPECT_MEMEQ(test, again, out, len);
}

/* All bits of the FCE nibbles and flags survive a round trip. */
static void fce_fields_test(struct kunit *test)
{
	struct smc_clc_accept_confirm *ac, *q;
	u8 *out;
	int len;

	ac = kunit_kzalloc(test, sizeof(*ac), GFP_KERNEL);
	q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	out = kunit_kzalloc(test, 512, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ac);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	make_accept(ac, &ac_shapes[6]);
	ac->fce.os_type = 0xf;
	ac->fce.release = 0xe;
	ac->rmbe_size = 0xf;
	ac->qp_mtu = 0x1;
	len = smc_clc_accept_confirm_encode(ac, out, 512);
	KUNIT_ASSERT_EQ(test, len, 160);
	KUNIT_EXPECT_EQ(test, out[104], 0x80);
	KUNIT_EXPECT_EQ(test, out[105], 0xfe);
	KUNIT_EXPECT_EQ(test, out[50], 0xf1);
	KUNIT_ASSERT_EQ(test, smc_clc_accept_confirm_decode(out, len, q), 0);
	KUNIT_EXPECT_EQ(test, q->fce.os_type, 0xf);
	KUNIT_EXPECT_EQ(test, q->fce.release, 0xe);
	KUNIT_EXPECT_EQ(test, q->rmbe_size, 0xf);
	KUNIT_EXPECT_EQ(test, q->qp_mtu, 0x1);

	ac->fce.v2_direct = false;
	ac->fce.os_type = 0;
	ac->fce.release = 0;
	KUNIT_ASSERT_EQ(test, smc_clc_accept_confirm_encode(ac, out, 512), len);
	KUNIT_EXPECT_EQ(test, out[104], 0);
	KUNIT_EXPECT_EQ(test, out[105], 0);
	KUNIT_ASSERT_EQ(test, smc_clc_accept_confirm_decode(out, len, q), 0);
	KUNIT_EXPECT_FALSE(test, q->fce.v2_direct);
}

static void decline_roundtrip_test(struct kunit *test)
{
	struct smc_clc_decline d, q;
	u8 out[64], again[64];
	int v, fc, smcd, len;
	u8 *buf;

	for (v = SMC_V1; v <= SMC_V2; v++)
		for (fc = 0; fc < 2; fc++)
			for (smcd = 0; smcd < 2; smcd++) {
				memset(&d, 0, sizeof(d));
				d.hdr.type = SMC_CLC_DECLINE;
				d.hdr.version = v;
				d.hdr.first_contact = fc;
				d.hdr.smcd = smcd;
				fill(d.id_for_peer, 8, v + fc);
				d.peer_diagnosis = SMC_CLC_DECL_PEERDECL + v;
				d.os_type = SMC_CLC_OS_AIX;
				d.peer_diagnosis_v2[1] = 0x11223344;
				len = smc_clc_decline_encode(&d, out,
							     sizeof(out));
				KUNIT_ASSERT_EQ(test, len, v == SMC_V1 ?
						SMC_CLC_DECLINE_LEN_V1 :
						SMC_CLC_DECLINE_LEN_V2);
				buf = exact_copy(test, out, len);
				KUNIT_ASSERT_EQ(test,
						smc_clc_decline_decode(buf, len,
								       &q),
						0);
				KUNIT_EXPECT_EQ(test, q.hdr.first_contact,
						(bool)fc);
				KUNIT_EXPECT_EQ(test, q.hdr.smcd, (bool)smcd);
				KUNIT_EXPECT_EQ(test, q.peer_diagnosis,
						d.peer_diagnosis);
				KUNIT_EXPECT_EQ(test, q.os_type,
						SMC_CLC_OS_AIX);
				KUNIT_EXPECT_EQ(test, q.peer_diagnosis_v2[1],
						v == SMC_V2 ? 0x11223344 : 0);
				KUNIT_EXPECT_MEMEQ(test, q.id_for_peer,
						   d.id_for_peer, 8);
				KUNIT_ASSERT_EQ(test,
						smc_clc_decline_encode(&q, again,
								       len),
						len);
				KUNIT_EXPECT_MEMEQ(test, again, out, len);
			}
}

/* ---------------------------------------------------------------------- */
/* encoder limits                                                          */

/* Every capacity below the message length is refused without writing. */
static void encode_nospace_test(struct kunit *test)
{
	const struct prop_shape *ps = &prop_shapes[ARRAY_SIZE(prop_shapes) - 1];
	const struct ac_shape *as = &ac_shapes[ARRAY_SIZE(ac_shapes) - 2];
	struct smc_clc_accept_confirm *ac;
	struct smc_clc_proposal *p;
	struct smc_clc_decline d;
	int cap;
	u8 *buf;

	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	ac = kunit_kzalloc(test, sizeof(*ac), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ac);
	make_proposal(p, ps);
	make_accept(ac, as);
	memset(&d, 0, sizeof(d));
	d.hdr.type = SMC_CLC_DECLINE;
	d.hdr.version = SMC_V2;

	for (cap = 0; cap < ps->len; cap++) {
		buf = kunit_kzalloc(test, cap + 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
		KUNIT_EXPECT_EQ(test, smc_clc_proposal_encode(p, buf, cap),
				-ENOSPC);
		if (cap < as->len)
			KUNIT_EXPECT_EQ(test,
					smc_clc_accept_confirm_encode(ac, buf,
								      cap),
					-ENOSPC);
		if (cap < SMC_CLC_DECLINE_LEN_V2)
			KUNIT_EXPECT_EQ(test,
					smc_clc_decline_encode(&d, buf, cap),
					-ENOSPC);
		KUNIT_EXPECT_TRUE(test, !memchr_inv(buf, 0, cap + 1));
		kunit_kfree(test, buf);
	}
}

/* a refused header leaves the caller's buffer as it was */
static bool untouched(const u8 *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != 0xa5)
			return false;
	return true;
}

static void encode_untouched_test(struct kunit *test)
{
	const struct prop_shape *ps = &prop_shapes[ARRAY_SIZE(prop_shapes) - 2];
	const struct ac_shape *as = &ac_shapes[ARRAY_SIZE(ac_shapes) - 1];
	static const u8 bad_versions[] = { 0, 3, 15 };
	struct smc_clc_accept_confirm *ac;
	struct smc_clc_proposal *p;
	struct smc_clc_decline d;
	unsigned int i;
	u8 *buf;

	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	ac = kunit_kzalloc(test, sizeof(*ac), GFP_KERNEL);
	buf = kunit_kzalloc(test, 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, ac);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(bad_versions); i++) {
		make_proposal(p, ps);
		p->hdr.version = bad_versions[i];
		memset(buf, 0xa5, 1024);
		KUNIT_EXPECT_EQ(test, smc_clc_proposal_encode(p, buf, 1024),
				-EINVAL);
		KUNIT_EXPECT_TRUE(test, untouched(buf, 1024));

		make_accept(ac, as);
		ac->hdr.version = bad_versions[i];
		memset(buf, 0xa5, 1024);
		KUNIT_EXPECT_EQ(test,
				smc_clc_accept_confirm_encode(ac, buf, 1024),
				-EINVAL);
		KUNIT_EXPECT_TRUE(test, untouched(buf, 1024));

		memset(&d, 0, sizeof(d));
		d.hdr.type = SMC_CLC_DECLINE;
		d.hdr.version = bad_versions[i];
		memset(buf, 0xa5, 1024);
		KUNIT_EXPECT_EQ(test, smc_clc_decline_encode(&d, buf, 1024),
				-EINVAL);
		KUNIT_EXPECT_TRUE(test, untouched(buf, 1024));
	}
	/* a type field out of range, v2 */
	make_accept(ac, as);
	ac->hdr.typev2 = 4;
	memset(buf, 0xa5, 1024);
	KUNIT_EXPECT_EQ(test, smc_clc_accept_confirm_encode(ac, buf, 1024),
			-EINVAL);
	KUNIT_EXPECT_TRUE(test, untouched(buf, 1024));
}

static void encode_invalid_test(struct kunit *test)
{
	const struct prop_shape *ps = &prop_shapes[ARRAY_SIZE(prop_shapes) - 2];
	const struct ac_shape *as = &ac_shapes[ARRAY_SIZE(ac_shapes) - 1];
	struct smc_clc_accept_confirm *ac;
	struct smc_clc_proposal *p;
	struct smc_clc_decline d;
	u8 *buf;

	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	ac = kunit_kzalloc(test, sizeof(*ac), GFP_KERNEL);
	buf = kunit_kzalloc(test, SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ac);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);

	make_proposal(p, ps);
	p->ipv6_prefix_cnt = SMC_CLC_MAX_V6_PREFIX + 1;
	KUNIT_EXPECT_EQ(test, smc_clc_proposal_encode(p, buf, 1024), -EINVAL);
	make_proposal(p, ps);
	p->eid_cnt = SMC_CLC_MAX_UEID + 1;
	KUNIT_EXPECT_EQ(test, smc_clc_proposal_encode(p, buf, 1024), -EINVAL);
	make_proposal(p, ps);
	p->ism_gid_cnt = SMC_CLC_MAX_ISM_GIDS + 1;
	KUNIT_EXPECT_EQ(test, smc_clc_proposal_encode(p, buf, 1024), -EINVAL);
	make_proposal(p, ps);
	p->release = 16;
	KUNIT_EXPECT_EQ(test, smc_clc_proposal_encode(p, buf, 1024), -EINVAL);
	make_proposal(p, ps);
	p->hdr.type = SMC_CLC_ACCEPT;
	KUNIT_EXPECT_EQ(test, smc_clc_proposal_encode(p, buf, 1024), -EINVAL);
	make_proposal(p, ps);
	p->hdr.version = 0;
	KUNIT_EXPECT_EQ(test, smc_clc_proposal_encode(p, buf, 1024), -EINVAL);
	make_proposal(p, ps);
	p->hdr.version = 3;
	KUNIT_EXPECT_EQ(test, smc_clc_proposal_encode(p, buf, 1024), -EINVAL);
	make_proposal(p, ps);
	p->hdr.typev1 = 4;
	KUNIT_EXPECT_EQ(test, smc_clc_proposal_encode(p, buf, 1024), -EINVAL);
	make_proposal(p, ps);
	p->hdr.typev2 = 4;
	KUNIT_EXPECT_EQ(test, smc_clc_proposal_encode(p, buf, 1024), -EINVAL);
	/* a v1 proposal must offer something, a v2 one too */
	make_proposal(p, ps);
	p->hdr.version = SMC_V1;
	p->hdr.typev1 = SMC_TYPE_N;
	KUNIT_EXPECT_EQ(test, smc_clc_proposal_encode(p, buf, 1024), -EINVAL);
	p->hdr.version = SMC_V2;
	p->hdr.typev2 = SMC_TYPE_N;
	KUNIT_EXPECT_EQ(test, smc_clc_proposal_encode(p, buf, 1024), -EINVAL);

	make_accept(ac, as);
	ac->qpn = 0x1000000;
	KUNIT_EXPECT_EQ(test, smc_clc_accept_confirm_encode(ac, buf, 1024),
			-EINVAL);
	make_accept(ac, as);
	ac->psn = 0x1000000;
	KUNIT_EXPECT_EQ(test, smc_clc_accept_confirm_encode(ac, buf, 1024),
			-EINVAL);
	make_accept(ac, as);
	ac->rmbe_size = 16;
	KUNIT_EXPECT_EQ(test, smc_clc_accept_confirm_encode(ac, buf, 1024),
			-EINVAL);
	make_accept(ac, as);
	ac->qp_mtu = 16;
	KUNIT_EXPECT_EQ(test, smc_clc_accept_confirm_encode(ac, buf, 1024),
			-EINVAL);
	make_accept(ac, as);
	ac->fce.os_type = 16;
	KUNIT_EXPECT_EQ(test, smc_clc_accept_confirm_encode(ac, buf, 1024),
			-EINVAL);
	make_accept(ac, as);
	ac->fce.release = 16;
	KUNIT_EXPECT_EQ(test, smc_clc_accept_confirm_encode(ac, buf, 1024),
			-EINVAL);
	make_accept(ac, as);
	ac->gid_cnt = SMC_CLC_MAX_GLE_GIDS + 1;
	KUNIT_EXPECT_EQ(test, smc_clc_accept_confirm_encode(ac, buf, 1024),
			-EINVAL);
	make_accept(ac, as);
	ac->hdr.type = SMC_CLC_DECLINE;
	KUNIT_EXPECT_EQ(test, smc_clc_accept_confirm_encode(ac, buf, 1024),
			-EINVAL);
	make_accept(ac, as);
	ac->hdr.version = 3;
	KUNIT_EXPECT_EQ(test, smc_clc_accept_confirm_encode(ac, buf, 1024),
			-EINVAL);
	make_accept(ac, as);
	ac->hdr.typev1 = SMC_TYPE_D;
	KUNIT_EXPECT_EQ(test, smc_clc_accept_confirm_encode(ac, buf, 1024),
			-EOPNOTSUPP);

	memset(&d, 0, sizeof(d));
	d.hdr.type = SMC_CLC_DECLINE;
	d.hdr.version = 3;
	KUNIT_EXPECT_EQ(test, smc_clc_decline_encode(&d, buf, 64), -EINVAL);
	d.hdr.version = SMC_V1;
	d.os_type = 16;
	KUNIT_EXPECT_EQ(test, smc_clc_decline_encode(&d, buf, 64), -EINVAL);
	d.os_type = 0;
	d.hdr.type = SMC_CLC_PROPOSAL;
	KUNIT_EXPECT_EQ(test, smc_clc_decline_encode(&d, buf, 64), -EINVAL);
}

/* ---------------------------------------------------------------------- */
/* malformed input                                                         */

/* valid messages the malformations start from */
enum base_msg {
	B_DECL1,	/* decline v1, 28 */
	B_DECL2,	/* decline v2, 44 */
	B_PROP1R,	/* v1 R, 2 v6: 86; v6 count at 47 */
	B_PROP1B,	/* v1 B, 2 v6: 126; iparea 40, v6 count at 87 */
	B_PROP2,	/* v2 B/B 2 v6 2 eids 2 gids: 298, see below */
	B_PROP2R,	/* v2 N/R 1 eid: 156; v2 ext at 80 */
	B_ACC1,		/* accept v1: 68 */
	B_ACC2,		/* accept v2 first contact v2x: 160 */
	B_CONF2,	/* confirm v2 first contact v2x, 2 gids: 196 */
	B_PROP2V6,	/* v2 R/N 8 v6: 228; v6 count at 87 */
	B_PROP2E8,	/* v2 N/R 8 eids: 380; eid count at 80 */
	B_PROP2G8,	/* v2 N/D 8 gids: 252; gid count at 81 */
	B_CONF2G8,	/* confirm v2 fce v2x, 8 gids: 292; count at 156 */
	B_NR
};

/*
 * B_PROP2: base 0..40, SMC-D area 40..80 (v2 ext offset at 50 = 70),
 * prefix 80..88 (v6 count at 87), v6 88..122, v2 ext 122..162 (eid count
 * at 122, gid count 123, SMC-D v2 ext offset at 128 = 96), EIDs 162..226,
 * SMC-D v2 ext 226..274, GIDs 274..294, trailer 294..298.
 */

enum decoder { DEC_AUTO, DEC_PROP, DEC_AC, DEC_DECL };

struct patch {
	int off;	/* negative: from the end */
	int width;	/* 0 (none), 1 or 2 bytes, big endian */
	u16 val;
};

struct bad_case {
	const char *name;
	enum base_msg base;
	enum decoder dec;
	struct patch p[2];
	int dlen;	/* added to the buffer length */
	int err;
	bool retrail;	/* put a valid trailer at the new end */
};

#define P8(o, v)	{ .off = (o), .width = 1, .val = (v) }
#define P16(o, v)	{ .off = (o), .width = 2, .val = (v) }

static const struct bad_case bad_cases[] = {
	/* eyecatchers */
	{ "decl1 eyecatcher 0", B_DECL1, 0, { P8(0, 0xe3) }, 0, -EPROTO },
	{ "decl2 eyecatcher 3", B_DECL2, 0, { P8(3, 0xc5) }, 0, -EPROTO },
	{ "prop2 eyecatcher 1", B_PROP2, 0, { P8(1, 0) }, 0, -EPROTO },
	{ "prop2 eyecatcher ascii", B_PROP2, 0,
	  { P16(0, 0x534d), P16(2, 0x4352) }, 0, -EPROTO },
	{ "acc2 eyecatcher 2", B_ACC2, 0, { P8(2, 0xd9) }, 0, -EPROTO },
	{ "decl1 trailer 0", B_DECL1, 0, { P8(-4, 0) }, 0, -EPROTO },
	{ "decl2 trailer 3", B_DECL2, 0, { P8(-1, 0xd8) }, 0, -EPROTO },
	{ "prop1r trailer 2", B_PROP1R, 0, { P8(-2, 0) }, 0, -EPROTO },
	{ "prop2 trailer 1", B_PROP2, 0, { P8(-3, 0xff) }, 0, -EPROTO },
	{ "acc1 trailer", B_ACC1, 0, { P16(-2, 0) }, 0, -EPROTO },
	{ "conf2 trailer", B_CONF2, 0, { P16(-4, 0xe2d5) }, 0, -EPROTO },
	/* types */
	{ "type 0", B_DECL1, 0, { P8(4, 0) }, 0, -EOPNOTSUPP },
	{ "type 5", B_DECL2, 0, { P8(4, 5) }, 0, -EOPNOTSUPP },
	{ "type 0xff", B_PROP2, 0, { P8(4, 0xff) }, 0, -EOPNOTSUPP },
	{ "decline as proposal", B_DECL1, DEC_PROP, { }, 0, -EPROTO },
	{ "proposal as decline", B_PROP2, DEC_DECL, { }, 0, -EPROTO },
	{ "proposal as accept", B_PROP2, DEC_AC, { }, 0, -EPROTO },
	{ "accept as proposal", B_ACC1, DEC_PROP, { }, 0, -EPROTO },
	{ "decline typed accept", B_DECL1, 0, { P8(4, SMC_CLC_ACCEPT) }, 0,
	  -EPROTO },
	/* versions */
	{ "decl1 version 0", B_DECL1, 0, { P8(7, 0x00) }, 0, -EPROTO },
	{ "decl1 version 3", B_DECL1, 0, { P8(7, 0x30) }, 0, -EOPNOTSUPP },
	{ "decl2 version 15", B_DECL2, 0, { P8(7, 0xf0) }, 0, -EOPNOTSUPP },
	{ "prop2 version 0", B_PROP2, 0, { P8(7, 0x0f) }, 0, -EPROTO },
	{ "prop2 version 4", B_PROP2, 0, { P8(7, 0x4f) }, 0, -EOPNOTSUPP },
	{ "acc2 version 8", B_ACC2, 0, { P8(7, 0x88) }, 0, -EOPNOTSUPP },
	{ "decl1 claims v2", B_DECL1, 0, { P8(7, 0x20) }, 0, -EPROTO },
	{ "decl2 claims v1", B_DECL2, 0, { P8(7, 0x10) }, 0, -EPROTO },
	{ "acc1 claims v2", B_ACC1, 0, { P8(7, 0x20) }, 0, -EPROTO },
	{ "acc2 claims v1", B_ACC2, 0, { P8(7, 0x18) }, 0, -EPROTO },
	/* length field vs. buffer */
	{ "decl1 length 0", B_DECL1, 0, { P16(5, 0) }, 0, -EPROTO },
	{ "decl1 length 29", B_DECL1, 0, { P16(5, 29) }, 0, -EPROTO },
	{ "decl1 length 29 buffer 29", B_DECL1, 0, { P16(5, 29) }, 1,
	  -EPROTO },
	{ "decl2 length 0xffff", B_DECL2, 0, { P16(5, 0xffff) }, 0, -EPROTO },
	{ "prop2 length 1025", B_PROP2, 0, { P16(5, 1025) }, 0, -EPROTO },
	{ "prop2 length -1", B_PROP2, 0, { P16(5, 297) }, 0, -EPROTO },
	{ "prop2 length +1", B_PROP2, 0, { P16(5, 299) }, 0, -EPROTO },
	{ "prop1r length 51", B_PROP1R, 0, { P16(5, 51) }, 0, -EPROTO },
	{ "prop1b length 229", B_PROP1B, 0, { P16(5, 229) }, 0, -EPROTO },
	{ "acc1 length 67", B_ACC1, 0, { P16(5, 67) }, 0, -EPROTO },
	{ "acc2 length 107", B_ACC2, 0, { P16(5, 107) }, 0, -EPROTO },
	{ "decl1 buffer +1", B_DECL1, 0, { }, 1, -EPROTO },
	{ "decl2 buffer -1", B_DECL2, 0, { }, -1, -EPROTO },
	{ "prop2 buffer +4", B_PROP2, 0, { }, 4, -EPROTO },
	{ "acc2 buffer +16", B_ACC2, 0, { }, 16, -EPROTO },
	{ "conf2 buffer -16", B_CONF2, 0, { }, -16, -EPROTO },
	/* proposal v1 */
	{ "prop1r offers nothing", B_PROP1R, 0, { P8(7, 0x12) }, 0, -EPROTO },
	{ "prop1r 9 v6 prefixes", B_PROP1R, 0, { P8(47, 9) }, 0, -EPROTO },
	{ "prop1r 255 v6 prefixes", B_PROP1R, 0, { P8(47, 255) }, 0,
	  -EPROTO },
	{ "prop1r 3 v6 prefixes", B_PROP1R, 0, { P8(47, 3) }, 0, -EPROTO },
	{ "prop1r 1 v6 prefix", B_PROP1R, 0, { P8(47, 1) }, 0, -EPROTO },
	{ "prop1r iparea 40", B_PROP1R, 0, { P16(38, 40) }, 0, -EPROTO },
	{ "prop1r iparea 0xffff", B_PROP1R, 0, { P16(38, 0xffff) }, 0,
	  -EPROTO },
	{ "prop1b iparea 0", B_PROP1B, 0, { P16(38, 0) }, 0, -EPROTO },
	{ "prop1b iparea 41", B_PROP1B, 0, { P16(38, 41) }, 0, -EPROTO },
	{ "prop1b iparea 39", B_PROP1B, 0, { P16(38, 39) }, 0, -EPROTO },
	{ "prop1b 8 v6 prefixes", B_PROP1B, 0, { P8(87, 8) }, 0, -EPROTO },
	/* proposal v2 */
	{ "prop2 offers nothing", B_PROP2, 0, { P8(7, 0x2a) }, 0, -EPROTO },
	{ "prop2 iparea 0", B_PROP2, 0, { P16(38, 0) }, 0, -EPROTO },
	{ "prop2 iparea 48", B_PROP2, 0, { P16(38, 48) }, 0, -EPROTO },
	{ "prop2 9 v6 prefixes", B_PROP2, 0, { P8(87, 9) }, 0, -EPROTO },
	{ "prop2 3 v6 prefixes", B_PROP2, 0, { P8(87, 3) }, 0, -EPROTO },
	{ "prop2 v2 ext offset 0", B_PROP2, 0, { P16(50, 0) }, 0, -EPROTO },
	{ "prop2 v2 ext offset 69", B_PROP2, 0, { P16(50, 69) }, 0, -EPROTO },
	{ "prop2 v2 ext offset 71", B_PROP2, 0, { P16(50, 71) }, 0, -EPROTO },
	{ "prop2 v2 ext offset 173", B_PROP2, 0, { P16(50, 173) }, 0,
	  -EPROTO },
	{ "prop2 v2 ext offset 0xffff", B_PROP2, 0, { P16(50, 0xffff) }, 0,
	  -EPROTO },
	{ "prop2 9 eids", B_PROP2, 0, { P8(122, 9) }, 0, -EPROTO },
	{ "prop2 3 eids", B_PROP2, 0, { P8(122, 3) }, 0, -EPROTO },
	{ "prop2 1 eid", B_PROP2, 0, { P8(122, 1) }, 0, -EPROTO },
	{ "prop2 9 ism gids", B_PROP2, 0, { P8(123, 9) }, 0, -EPROTO },
	{ "prop2 3 ism gids", B_PROP2, 0, { P8(123, 3) }, 0, -EPROTO },
	{ "prop2 smcd v2 ext offset 0", B_PROP2, 0, { P16(128, 0) }, 0,
	  -EPROTO },
	{ "prop2 smcd v2 ext offset 95", B_PROP2, 0, { P16(128, 95) }, 0,
	  -EPROTO },
	{ "prop2 smcd v2 ext offset 97", B_PROP2, 0, { P16(128, 97) }, 0,
	  -EPROTO },
	{ "prop2 smcd v2 ext offset 289", B_PROP2, 0, { P16(128, 289) }, 0,
	  -EPROTO },
	{ "prop2 smcd v2 ext offset 0xffff", B_PROP2, 0, { P16(128, 0xffff) },
	  0, -EPROTO },
	{ "prop2 drops SMC-D v2", B_PROP2, 0, { P8(7, 0x23) }, 0, -EPROTO },
	{ "prop2r v2 ext offset 0", B_PROP2R, 0, { P16(50, 0) }, 0, -EPROTO },
	{ "prop2r v2 ext offset 27", B_PROP2R, 0, { P16(50, 27) }, 0,
	  -EPROTO },
	{ "prop2r adds SMC-D v2", B_PROP2R, 0, { P8(7, 0x2e) }, 0, -EPROTO },
	{ "prop2r adds v1", B_PROP2R, 0, { P8(7, 0x20) }, 0, -EPROTO },
	{ "prop2r 2 eids", B_PROP2R, 0, { P8(80, 2) }, 0, -EPROTO },
	{ "prop2r v2 ext overlaps SMC-D area", B_PROP2R, 0,
	  { P16(50, 27), P8(79, 1) }, 0, -EPROTO },
	/* counts one above the limit in messages long enough for them */
	{ "prop2 9 v6 prefixes, room for 9", B_PROP2V6, 0,
	  { P8(87, 9), P16(5, 245) }, 17, -EPROTO, true },
	{ "prop2 9 eids, room for 9", B_PROP2E8, 0,
	  { P8(80, 9), P16(5, 412) }, 32, -EPROTO, true },
	{ "prop2 9 ism gids, room for 9", B_PROP2G8, 0,
	  { P8(81, 9), P16(5, 262) }, 10, -EPROTO, true },
	{ "conf2 9 gids, room for 9", B_CONF2G8, 0,
	  { P8(156, 9), P16(5, 308) }, 16, -EPROTO, true },
	/* accept / confirm */
	{ "acc1 typev1 N", B_ACC1, 0, { P8(7, 0x12) }, 0, -EPROTO },
	{ "acc1 typev1 B", B_ACC1, 0, { P8(7, 0x13) }, 0, -EPROTO },
	{ "acc1 typev1 D", B_ACC1, 0, { P8(7, 0x11) }, 0, -EPROTO },
	{ "acc2 typev1 D", B_ACC2, 0, { P8(7, 0x29) }, 0, -EOPNOTSUPP },
	{ "acc2 without first contact", B_ACC2, 0, { P8(7, 0x20) }, 0,
	  -EPROTO },
	{ "acc2 fce truncated", B_ACC2, 0, { P16(5, 143) }, -17, -EPROTO,
	  true },
	{ "acc2 v2 min with fc", B_ACC2, 0, { P16(5, 108) }, -52, -EPROTO,
	  true },
	{ "acc2 fce + 4", B_ACC2, 0, { P16(5, 164) }, 4, -EPROTO, true },
	{ "conf2 gid count 3", B_CONF2, 0, { P8(156, 3) }, 0, -EPROTO },
	{ "conf2 gid count 1", B_CONF2, 0, { P8(156, 1) }, 0, -EPROTO },
	{ "conf2 gid count 9", B_CONF2, 0, { P8(156, 9) }, 0, -EPROTO },
	{ "conf2 gid count 255", B_CONF2, 0, { P8(156, 255) }, 0, -EPROTO },
	{ "conf2 as accept (gid list)", B_CONF2, 0,
	  { P8(4, SMC_CLC_ACCEPT) }, 0, -EPROTO },
	{ "conf2 gid list truncated", B_CONF2, 0, { P16(5, 162) }, -34,
	  -EPROTO, true },
};

static void bad_case_desc(const struct bad_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bad_case, bad_cases, bad_case_desc);

/* Build base message @b into @buf, return its length and decoder. */
static int build_base(struct kunit *test, enum base_msg b, u8 *buf,
		      enum decoder *dec)
{
	static const struct prop_shape p1r = {
		"", 1, SMC_TYPE_R, 0, 2, 0, 0, false, 86 };
	static const struct prop_shape p1b = {
		"", 1, SMC_TYPE_B, 0, 2, 0, 0, false, 126 };
	static const struct prop_shape p2r = {
		"", 2, SMC_TYPE_N, SMC_TYPE_R, 0, 1, 0, false, 156 };
	const struct prop_shape *ps = NULL;
	const struct ac_shape *as = NULL;
	struct smc_clc_accept_confirm *ac;
	struct smc_clc_proposal *p;
	struct smc_clc_decline d;
	int len;

	switch (b) {
	case B_DECL1:
	case B_DECL2:
		memset(&d, 0, sizeof(d));
		d.hdr.type = SMC_CLC_DECLINE;
		d.hdr.version = b == B_DECL1 ? SMC_V1 : SMC_V2;
		d.peer_diagnosis = SMC_CLC_DECL_MODEUNSUPP;
		*dec = DEC_DECL;
		return smc_clc_decline_encode(&d, buf, SMC_CLC_MAX_MSG_LEN);
	case B_PROP1R:
		ps = &p1r;
		break;
	case B_PROP1B:
		ps = &p1b;
		break;
	case B_PROP2:
		ps = &prop_shapes[14];
		break;
	case B_PROP2R:
		ps = &p2r;
		break;
	case B_ACC1:
		as = &ac_shapes[0];
		break;
	case B_ACC2:
		as = &ac_shapes[6];
		break;
	case B_CONF2:
		as = &ac_shapes[10];
		break;
	case B_PROP2V6:
		ps = &prop_shapes[7];
		break;
	case B_PROP2E8:
		ps = &prop_shapes[10];
		break;
	case B_PROP2G8:
		ps = &prop_shapes[13];
		break;
	case B_CONF2G8:
		as = &ac_shapes[12];
		break;
	default:
		return -EINVAL;
	}
	if (ps) {
		p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
		make_proposal(p, ps);
		*dec = DEC_PROP;
		len = smc_clc_proposal_encode(p, buf, SMC_CLC_MAX_MSG_LEN);
		KUNIT_ASSERT_EQ(test, len, ps->len);
		return len;
	}
	ac = kunit_kzalloc(test, sizeof(*ac), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ac);
	make_accept(ac, as);
	*dec = DEC_AC;
	len = smc_clc_accept_confirm_encode(ac, buf, SMC_CLC_MAX_MSG_LEN);
	KUNIT_ASSERT_EQ(test, len, as->len);
	return len;
}

/* decoder output, allocated once per test case */
struct scratch {
	struct smc_clc_proposal p;
	struct smc_clc_accept_confirm ac;
	struct smc_clc_decline d;
};

static struct scratch *scratch_alloc(struct kunit *test)
{
	struct scratch *sc = kunit_kzalloc(test, sizeof(*sc), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sc);
	return sc;
}

static int run_decoder(struct scratch *sc, enum decoder dec, const u8 *buf,
		       size_t len)
{
	switch (dec) {
	case DEC_PROP:
		return smc_clc_proposal_decode(buf, len, &sc->p);
	case DEC_AC:
		return smc_clc_accept_confirm_decode(buf, len, &sc->ac);
	case DEC_DECL:
		return smc_clc_decline_decode(buf, len, &sc->d);
	default:
		return -EINVAL;
	}
}

static void malformed_test(struct kunit *test)
{
	const struct bad_case *c = test->param_value;
	struct scratch *sc = scratch_alloc(test);
	enum decoder dec;
	u8 *msg, *buf;
	int len, n, i;

	msg = kunit_kzalloc(test, SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, msg);
	len = build_base(test, c->base, msg, &dec);
	KUNIT_ASSERT_GT(test, len, 0);
	/* the unmodified base message must be fine */
	KUNIT_ASSERT_EQ(test, run_decoder(sc, dec, exact_copy(test, msg, len),
					  len), 0);

	for (i = 0; i < ARRAY_SIZE(c->p); i++) {
		const struct patch *pt = &c->p[i];
		int off = pt->off < 0 ? len + pt->off : pt->off;

		if (pt->width == 1)
			msg[off] = pt->val;
		else if (pt->width == 2)
			put_unaligned_be16(pt->val, msg + off);
	}
	n = len + c->dlen;
	KUNIT_ASSERT_GE(test, n, SMC_CLC_TRL_LEN);
	if (c->retrail)
		memcpy(msg + n - SMC_CLC_TRL_LEN, msg, SMC_CLC_TRL_LEN);
	buf = exact_copy(test, msg, n);
	if (c->dec != DEC_AUTO)
		dec = c->dec;
	KUNIT_EXPECT_EQ(test, run_decoder(sc, dec, buf, n), c->err);
}

/*
 * Every base message cut short at every length, or padded, must be
 * refused; for proposals and declines also when the length field and the
 * trailer are moved along with the cut (nothing but the full message
 * satisfies the counts in it).
 */
static const enum base_msg all_bases[] = {
	B_DECL1, B_DECL2, B_PROP1R, B_PROP1B, B_PROP2, B_PROP2R, B_ACC1,
	B_ACC2, B_CONF2, B_PROP2V6, B_PROP2E8, B_PROP2G8, B_CONF2G8,
};

static const char * const base_names[] = {
	"decline v1", "decline v2", "proposal v1 R", "proposal v1 B",
	"proposal v2 B/B", "proposal v2 N/R", "accept v1",
	"accept v2 fce", "confirm v2 fce gle", "proposal v2 R/N 8 v6",
	"proposal v2 N/R 8 eids", "proposal v2 N/D 8 gids",
	"confirm v2 fce gle 8",
};

static void base_desc(const enum base_msg *b, char *desc)
{
	strscpy(desc, base_names[*b], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(base, all_bases, base_desc);

static void truncated_test(struct kunit *test)
{
	const enum base_msg *b = test->param_value;
	bool relen = *b <= B_PROP2R || *b == B_PROP2V6 || *b == B_PROP2E8 ||
		     *b == B_PROP2G8;
	struct scratch *sc = scratch_alloc(test);
	enum decoder dec;
	u8 *msg, *buf;
	int len, n, rc;

	msg = kunit_kzalloc(test, SMC_CLC_MAX_MSG_LEN + 16, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, msg);
	len = build_base(test, *b, msg, &dec);
	KUNIT_ASSERT_GT(test, len, 0);

	for (n = 0; n <= len + 16; n++) {
		if (n == len)
			continue;
		buf = exact_copy(test, msg, n);
		rc = run_decoder(sc, dec, buf, n);
		KUNIT_EXPECT_LT_MSG(test, rc, 0, "length %d of %d", n, len);
		if (relen && n >= SMC_CLC_HDR_LEN + SMC_CLC_TRL_LEN) {
			put_unaligned_be16(n, buf + 5);
			memcpy(buf + n - SMC_CLC_TRL_LEN, msg, SMC_CLC_TRL_LEN);
			rc = run_decoder(sc, dec, buf, n);
			KUNIT_EXPECT_LT_MSG(test, rc, 0,
					    "consistent length %d of %d",
					    n, len);
		}
		kunit_kfree(test, buf);
	}
}

/* Random bit flips must never crash a decoder (KASAN watches reads). */
static void bitflip_test(struct kunit *test)
{
	const enum base_msg *b = test->param_value;
	struct scratch *sc = scratch_alloc(test);
	enum decoder dec;
	u8 *msg, *buf;
	int len, bit;

	msg = kunit_kzalloc(test, SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, msg);
	len = build_base(test, *b, msg, &dec);
	KUNIT_ASSERT_GT(test, len, 0);
	buf = exact_copy(test, msg, len);
	for (bit = 0; bit < len * 8; bit++) {
		buf[bit / 8] ^= BIT(bit % 8);
		/* any result is fine as long as it is a defined one */
		KUNIT_EXPECT_LE(test, run_decoder(sc, dec, buf, len), 0);
		buf[bit / 8] ^= BIT(bit % 8);
	}
	KUNIT_EXPECT_EQ(test, run_decoder(sc, dec, buf, len), 0);
}

/* ---------------------------------------------------------------------- */
/* helpers                                                                 */

static void strings_test(struct kunit *test)
{
	const char *str;

	str = smc_clc_decline_reason_str(SMC_CLC_DECL_PEERNOSMC);
	KUNIT_EXPECT_STREQ(test, str, "peer did not indicate SMC");
	str = smc_clc_decline_reason_str(SMC_CLC_DECL_SYNCERR);
	KUNIT_EXPECT_STREQ(test, str, "synchronization error");
	str = smc_clc_decline_reason_str(0);
	KUNIT_EXPECT_STREQ(test, str, "unknown reason code");
	str = smc_clc_decline_reason_str(0x03030fff);
	KUNIT_EXPECT_STREQ(test, str, "unknown reason code");
	KUNIT_EXPECT_STREQ(test, smc_clc_type_str(SMC_CLC_PROPOSAL),
			   "proposal");
	KUNIT_EXPECT_STREQ(test, smc_clc_type_str(SMC_CLC_DECLINE),
			   "decline");
	KUNIT_EXPECT_STREQ(test, smc_clc_type_str(9), "unknown");
}

static struct kunit_case clc_wire_cases[] = {
	KUNIT_CASE(golden_decline_v1_test),
	KUNIT_CASE(golden_decline_v2_test),
	KUNIT_CASE(golden_proposal_v2_test),
	KUNIT_CASE(golden_accept_v2_test),
	KUNIT_CASE(hdr_decode_test),
	KUNIT_CASE(hdr_framed_test),
	KUNIT_CASE(hdr_encode_test),
	KUNIT_CASE(hdr_versions_types_test),
	KUNIT_CASE_PARAM(proposal_roundtrip_test, prop_shape_gen_params),
	KUNIT_CASE_PARAM(accept_confirm_roundtrip_test, ac_shape_gen_params),
	KUNIT_CASE(fce_fields_test),
	KUNIT_CASE(decline_roundtrip_test),
	KUNIT_CASE(encode_nospace_test),
	KUNIT_CASE(encode_invalid_test),
	KUNIT_CASE_PARAM(malformed_test, bad_case_gen_params),
	KUNIT_CASE_PARAM(truncated_test, base_gen_params),
	KUNIT_CASE_PARAM(bitflip_test, base_gen_params),
	KUNIT_CASE(strings_test),
	KUNIT_CASE(encode_untouched_test),
	{}
};

static struct kunit_suite clc_wire_suite = {
	.name = "smc_clc_wire",
	.test_cases = clc_wire_cases,
};

kunit_test_suite(clc_wire_suite);
