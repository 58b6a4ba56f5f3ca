// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the CLC negotiation decisions.
 *
 * One case per decision and per decline code of clc_nego.h, a golden
 * vector for the v2-only proposal (as Linux 6.12 sends it) and full
 * handshakes through the wire codec: proposal, accept and confirm are
 * each encoded and decoded again between the client's and the server's
 * decisions.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include "clc_nego.h"

static const u8 test_gid_v1[SMC_CLC_GID_LEN] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33,
	0x44, 0x55,
};

/* ::ffff:192.168.1.1 */
static const u8 test_gid_v2[SMC_CLC_GID_LEN] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 1,
};

static const u8 test_mac[SMC_CLC_MAC_LEN] = {
	0x02, 0x11, 0x22, 0x33, 0x44, 0x55,
};

static const u8 test_sysid[SMC_CLC_SYSTEMID_LEN] = {
	0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
};

/* fd00:1::/64 */
static const u8 test_v6[16] = { 0xfd, 0x00, 0x00, 0x01 };

static void eid_set(u8 *eid, const char *s)
{
	memset(eid, ' ', SMC_CLC_EID_LEN);
	memcpy(eid, s, min_t(size_t, strlen(s), SMC_CLC_EID_LEN));
}

/* A host with both devices, one UEID, release 1 and 192.168.1.0/24. */
static struct smc_nego_local *local_new(struct kunit *test, bool v1, bool v2)
{
	struct smc_nego_local *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, l);
	l->r_v1 = v1;
	l->r_v2 = v2;
	l->ueid_cnt = 1;
	eid_set(l->ueids[0], "SMC-EID-ONE");
	l->release = SMC_CLC_RELEASE_1;
	l->max_conns = 255;
	l->max_links = 2;
	l->ipv4_subnet = cpu_to_be32(0xc0a80100);
	l->ipv4_prefix_len = 24;
	memcpy(l->gid, test_gid_v1, SMC_CLC_GID_LEN);
	memcpy(l->roce_v2_gid, test_gid_v2, SMC_CLC_GID_LEN);
	memcpy(l->mac, test_mac, SMC_CLC_MAC_LEN);
	memcpy(l->systemid, test_sysid, SMC_CLC_SYSTEMID_LEN);
	return l;
}

static struct smc_clc_proposal *prop_new(struct kunit *test)
{
	struct smc_clc_proposal *p = kunit_kzalloc(test, sizeof(*p),
						   GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	return p;
}

static struct smc_clc_accept_confirm *ac_new(struct kunit *test)
{
	struct smc_clc_accept_confirm *ac = kunit_kzalloc(test, sizeof(*ac),
							  GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ac);
	return ac;
}

/* The proposal @l's client sends. */
static struct smc_clc_proposal *prop_of(struct kunit *test,
					const struct smc_nego_local *l)
{
	struct smc_clc_proposal *p = prop_new(test);
	u32 reason = 1;

	KUNIT_ASSERT_EQ(test, smc_nego_proposal(l, p, &reason), 0);
	KUNIT_ASSERT_EQ(test, reason, 0);
	return p;
}

/* ---------------------------------------------------------------------- */
/* proposal                                                                */

static void nego_proposal_both_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, true, true);
	struct smc_clc_proposal *p = prop_of(test, l);

	KUNIT_EXPECT_EQ(test, p->hdr.type, SMC_CLC_PROPOSAL);
	KUNIT_EXPECT_EQ(test, p->hdr.version, SMC_V2);
	KUNIT_EXPECT_EQ(test, p->hdr.typev1, SMC_TYPE_R);
	KUNIT_EXPECT_EQ(test, p->hdr.typev2, SMC_TYPE_R);
	KUNIT_EXPECT_FALSE(test, p->hdr.smcd);
	KUNIT_EXPECT_MEMEQ(test, p->id_for_peer, test_sysid,
			   SMC_CLC_SYSTEMID_LEN);
	KUNIT_EXPECT_MEMEQ(test, p->gid, test_gid_v1, SMC_CLC_GID_LEN);
	KUNIT_EXPECT_MEMEQ(test, p->mac, test_mac, SMC_CLC_MAC_LEN);
	KUNIT_EXPECT_EQ(test, p->ipv4_subnet, cpu_to_be32(0xc0a80100));
	KUNIT_EXPECT_EQ(test, p->ipv4_prefix_len, 24);
	KUNIT_EXPECT_EQ(test, p->ipv6_prefix_cnt, 0);
	KUNIT_EXPECT_EQ(test, p->release, SMC_CLC_RELEASE_1);
	KUNIT_EXPECT_EQ(test, p->eid_cnt, 1);
	KUNIT_EXPECT_MEMEQ(test, p->eids[0], l->ueids[0], SMC_CLC_EID_LEN);
	KUNIT_EXPECT_FALSE(test, p->seid);
	KUNIT_EXPECT_EQ(test, p->ism_gid_cnt, 0);
	KUNIT_EXPECT_MEMEQ(test, p->roce_gid, test_gid_v2, SMC_CLC_GID_LEN);
	KUNIT_EXPECT_EQ(test, p->max_conns, 255);
	KUNIT_EXPECT_EQ(test, p->max_links, 2);
	KUNIT_EXPECT_EQ(test, p->feature_mask, SMC_NEGO_FEATURE_MASK);
}

/*
 * What Linux 6.12 sends for SMC-R v2 only (typev1 N, one UEID): no IP
 * area, iparea offset 0, zero local id/GID/MAC, the SMC-D area with the v2
 * extension offset 28, the v2 extension and the EID.  40 + 40 + 40 + 32 +
 * 4 = 156 bytes.
 */
static const u8 golden_prop_v2_only[156] = {
	0xe2, 0xd4, 0xc3, 0xd9, SMC_CLC_PROPOSAL, 0x00, 156, 0x22,
	/* 8: id, gid, mac, iparea offset: all zero */
	0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	/* 40: SMC-D area: gid, chid, v2 extension offset 28, reserved */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x1c,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 80: v2 extension: 1 EID, no ISM GIDs, release 1 */
	0x01, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 1,
	0xff, 0x02, 0x00, 0x01,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 120: EID */
	'S', 'M', 'C', '-', 'E', 'I', 'D', '-', 'O', 'N', 'E', ' ',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	/* 152: trailer */
	0xe2, 0xd4, 0xc3, 0xd9,
};

static void nego_proposal_v2_only_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, false, true);
	struct smc_clc_proposal *p = prop_of(test, l);
	u8 *buf = kunit_kzalloc(test, SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	int len;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, p->hdr.version, SMC_V2);
	KUNIT_EXPECT_EQ(test, p->hdr.typev1, SMC_TYPE_N);
	KUNIT_EXPECT_EQ(test, p->hdr.typev2, SMC_TYPE_R);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(p->id_for_peer, 0,
					    SMC_CLC_SYSTEMID_LEN));
	KUNIT_EXPECT_TRUE(test, !memchr_inv(p->gid, 0, SMC_CLC_GID_LEN));
	KUNIT_EXPECT_TRUE(test, !memchr_inv(p->mac, 0, SMC_CLC_MAC_LEN));

	len = smc_clc_proposal_encode(p, buf, SMC_CLC_MAX_MSG_LEN);
	KUNIT_ASSERT_EQ(test, len, (int)sizeof(golden_prop_v2_only));
	KUNIT_EXPECT_MEMEQ(test, buf, golden_prop_v2_only, len);

	/* v1 dropped for want of a prefix gives the same wire bytes */
	l->r_v1 = true;
	l->ipv4_subnet = 0;
	l->ipv4_prefix_len = 0;
	p = prop_of(test, l);
	len = smc_clc_proposal_encode(p, buf, SMC_CLC_MAX_MSG_LEN);
	KUNIT_ASSERT_EQ(test, len, (int)sizeof(golden_prop_v2_only));
	KUNIT_EXPECT_MEMEQ(test, buf, golden_prop_v2_only, len);
}

static void nego_proposal_v1_only_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, true, false);
	struct smc_clc_proposal *p = prop_of(test, l);

	KUNIT_EXPECT_EQ(test, p->hdr.version, SMC_V2);
	KUNIT_EXPECT_EQ(test, p->hdr.typev1, SMC_TYPE_R);
	KUNIT_EXPECT_EQ(test, p->hdr.typev2, SMC_TYPE_N);
	KUNIT_EXPECT_FALSE(test, p->has_v2_ext);
	KUNIT_EXPECT_EQ(test, p->eid_cnt, 0);

	/* a v2 device without any UEID offers v1 only */
	l->r_v2 = true;
	l->ueid_cnt = 0;
	p = prop_of(test, l);
	KUNIT_EXPECT_EQ(test, p->hdr.typev1, SMC_TYPE_R);
	KUNIT_EXPECT_EQ(test, p->hdr.typev2, SMC_TYPE_N);
}

static void nego_proposal_none_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, false, false);
	struct smc_clc_proposal *p = prop_new(test);
	u32 reason = 0;

	KUNIT_EXPECT_EQ(test, smc_nego_proposal(l, p, &reason), -ENODEV);
	KUNIT_EXPECT_EQ(test, reason, SMC_CLC_DECL_NOSMCDEV);

	l->r_v2 = true;
	l->ueid_cnt = 0;
	reason = 0;
	KUNIT_EXPECT_EQ(test, smc_nego_proposal(l, p, &reason), -ENODEV);
	KUNIT_EXPECT_EQ(test, reason, SMC_CLC_DECL_NOSMCDEV);
}

static void nego_proposal_no_prefix_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, true, false);
	struct smc_clc_proposal *p = prop_new(test);
	u32 reason = 0;

	l->ipv4_subnet = 0;
	l->ipv4_prefix_len = 0;
	KUNIT_EXPECT_EQ(test, smc_nego_proposal(l, p, &reason), -ENODEV);
	KUNIT_EXPECT_EQ(test, reason, SMC_CLC_DECL_CNFERR);

	l->r_v2 = true;
	p = prop_of(test, l);
	KUNIT_EXPECT_EQ(test, p->hdr.typev1, SMC_TYPE_N);
	KUNIT_EXPECT_EQ(test, p->hdr.typev2, SMC_TYPE_R);
}

static void nego_proposal_ipv6_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, true, true);
	struct smc_clc_proposal *p;

	l->ipv6_cnt = 2;
	memcpy(l->ipv6[0].prefix, test_v6, 16);
	l->ipv6[0].prefix_len = 64;
	memcpy(l->ipv6[1].prefix, test_v6, 16);
	l->ipv6[1].prefix[3] = 2;
	l->ipv6[1].prefix_len = 48;
	p = prop_of(test, l);
	KUNIT_EXPECT_EQ(test, p->ipv6_prefix_cnt, 2);
	KUNIT_EXPECT_MEMEQ(test, p->ipv6_prefix, l->ipv6,
			   2 * sizeof(l->ipv6[0]));
	/* the IPv4 prefix is not sent along */
	KUNIT_EXPECT_EQ(test, p->ipv4_subnet, 0);
	KUNIT_EXPECT_EQ(test, p->ipv4_prefix_len, 0);
}

static void nego_proposal_release_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, false, true);
	struct smc_clc_proposal *p;

	l->release = 7;
	p = prop_of(test, l);
	KUNIT_EXPECT_EQ(test, p->release, SMC_NEGO_RELEASE);
	l->release = SMC_CLC_RELEASE_0;
	p = prop_of(test, l);
	KUNIT_EXPECT_EQ(test, p->release, SMC_CLC_RELEASE_0);
}

static void nego_proposal_invalid_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, true, true);
	struct smc_clc_proposal *p = prop_new(test);
	u32 reason = 0;

	l->ueid_cnt = SMC_CLC_MAX_UEID + 1;
	KUNIT_EXPECT_EQ(test, smc_nego_proposal(l, p, &reason), -EINVAL);
	KUNIT_EXPECT_EQ(test, reason, SMC_CLC_DECL_INTERR);
	l->ueid_cnt = 1;
	l->ipv6_cnt = SMC_CLC_MAX_V6_PREFIX + 1;
	reason = 0;
	KUNIT_EXPECT_EQ(test, smc_nego_proposal(l, p, &reason), -EINVAL);
	KUNIT_EXPECT_EQ(test, reason, SMC_CLC_DECL_INTERR);
}

/* ---------------------------------------------------------------------- */
/* server                                                                  */

static void nego_server_v2_preferred_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, true, true);
	struct smc_clc_proposal *p = prop_of(test, l);
	struct smc_nego_result r;

	l->max_conns = 100;
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, l, &r), 0);
	KUNIT_EXPECT_EQ(test, r.version, SMC_V2);
	KUNIT_EXPECT_EQ(test, r.release, SMC_CLC_RELEASE_1);
	KUNIT_EXPECT_MEMEQ(test, r.eid, l->ueids[0], SMC_CLC_EID_LEN);
	KUNIT_EXPECT_EQ(test, r.max_conns, 100);
	KUNIT_EXPECT_EQ(test, r.max_links, 2);
	KUNIT_EXPECT_EQ(test, r.feature_mask, SMC_NEGO_FEATURE_MASK);
}

static void nego_server_eid_intersection_test(struct kunit *test)
{
	struct smc_nego_local *cl = local_new(test, false, true);
	struct smc_nego_local *sl = local_new(test, false, true);
	struct smc_clc_proposal *p;
	struct smc_nego_result r;

	cl->ueid_cnt = 3;
	eid_set(cl->ueids[0], "CLIENT-ONLY");
	eid_set(cl->ueids[1], "SHARED-B");
	eid_set(cl->ueids[2], "SHARED-A");
	sl->ueid_cnt = 3;
	eid_set(sl->ueids[0], "SHARED-A");
	eid_set(sl->ueids[1], "SERVER-ONLY");
	eid_set(sl->ueids[2], "SHARED-B");
	p = prop_of(test, cl);
	KUNIT_EXPECT_EQ(test, p->eid_cnt, 3);
	/* the proposal's order decides */
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.version, SMC_V2);
	KUNIT_EXPECT_MEMEQ(test, r.eid, cl->ueids[1], SMC_CLC_EID_LEN);
	/* an EID differing in the padding only is another EID */
	sl->ueid_cnt = 1;
	memcpy(sl->ueids[0], cl->ueids[0], SMC_CLC_EID_LEN);
	sl->ueids[0][SMC_CLC_EID_LEN - 1] = 0;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOSMCDEV);
}

static void nego_server_eid_mismatch_test(struct kunit *test)
{
	struct smc_nego_local *cl = local_new(test, true, true);
	struct smc_nego_local *sl = local_new(test, true, true);
	struct smc_clc_proposal *p = prop_of(test, cl);
	struct smc_nego_result r;

	eid_set(sl->ueids[0], "OTHER-EID");
	/* both offered: v1 with the matching prefix */
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.version, SMC_V1);
	KUNIT_EXPECT_EQ(test, r.release, SMC_CLC_RELEASE_0);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(r.eid, 0, SMC_CLC_EID_LEN));
	KUNIT_EXPECT_EQ(test, r.max_conns, SMC_NEGO_CONNS_MAX);
	KUNIT_EXPECT_EQ(test, r.max_links, SMC_NEGO_LINKS_MAX);
	KUNIT_EXPECT_EQ(test, r.feature_mask, 0);
	/* v2 only: upstream declines with NOSMCDEV */
	cl->r_v1 = false;
	p = prop_of(test, cl);
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOSMCDEV);
	/* a server without any UEID alike */
	sl->ueid_cnt = 0;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOSMCDEV);
}

static void nego_server_diffprefix_test(struct kunit *test)
{
	struct smc_nego_local *cl = local_new(test, true, false);
	struct smc_nego_local *sl = local_new(test, true, true);
	struct smc_clc_proposal *p;
	struct smc_nego_result r;

	sl->ipv4_subnet = cpu_to_be32(0xc0a80200);
	p = prop_of(test, cl);
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_DIFFPREFIX);
	/* v2 does not care about prefixes */
	cl->r_v2 = true;
	p = prop_of(test, cl);
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.version, SMC_V2);
	/* ... unless it fails as well */
	eid_set(sl->ueids[0], "OTHER-EID");
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_DIFFPREFIX);
	sl->r_v2 = false;
	eid_set(sl->ueids[0], "SMC-EID-ONE");
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_DIFFPREFIX);
}

struct prefix_case {
	const char *name;
	bool p_v6;		/* proposal carries IPv6 prefixes */
	u8 p_plen;
	u8 p_byte;		/* last byte of the proposal's prefix */
	bool l_v4, l_v6;	/* local prefixes of either family */
	u8 l_plen;
	bool match;
};

static const struct prefix_case prefix_cases[] = {
	{ "v4 same", false, 24, 0x00, true, false, 24, true },
	{ "v4 host bits differ", false, 24, 0x07, true, false, 24, true },
	{ "v4 other length", false, 16, 0x00, true, false, 24, false },
	{ "v4 /25 other half", false, 25, 0x80, true, false, 25, false },
	{ "v4 bad length", false, 40, 0x00, true, false, 40, false },
	{ "v4 none local", false, 24, 0x00, false, true, 64, false },
	{ "v6 same", true, 64, 0x00, false, true, 64, true },
	{ "v6 host bits differ", true, 64, 0x99, false, true, 64, true },
	{ "v6 other length", true, 48, 0x00, false, true, 64, false },
	{ "v6 none local", true, 64, 0x00, true, false, 24, false },
	{ "v6 bad length", true, 200, 0x00, false, true, 200, false },
};

KUNIT_ARRAY_PARAM_DESC(prefix_case, prefix_cases, name);

static void nego_server_prefix_test(struct kunit *test)
{
	const struct prefix_case *c = test->param_value;
	struct smc_nego_local *sl = local_new(test, true, false);
	struct smc_clc_proposal *p = prop_new(test);
	struct smc_nego_result r;

	p->hdr.type = SMC_CLC_PROPOSAL;
	p->hdr.version = SMC_V2;
	p->hdr.typev1 = SMC_TYPE_R;
	p->hdr.typev2 = SMC_TYPE_N;
	if (c->p_v6) {
		p->ipv6_prefix_cnt = 2;
		p->ipv6_prefix[0].prefix[0] = 0x20;	/* unrelated first */
		p->ipv6_prefix[0].prefix_len = 64;
		memcpy(p->ipv6_prefix[1].prefix, test_v6, 16);
		p->ipv6_prefix[1].prefix[15] = c->p_byte;
		p->ipv6_prefix[1].prefix_len = c->p_plen;
	} else {
		p->ipv4_subnet = cpu_to_be32(0xc0a80100 | c->p_byte);
		p->ipv4_prefix_len = c->p_plen;
	}
	if (!c->l_v4) {
		sl->ipv4_subnet = 0;
		sl->ipv4_prefix_len = 0;
	} else {
		sl->ipv4_prefix_len = c->l_plen;
	}
	if (c->l_v6) {
		sl->ipv6_cnt = 1;
		memcpy(sl->ipv6[0].prefix, test_v6, 16);
		sl->ipv6[0].prefix[15] = 0x01;	/* an address, not a prefix */
		sl->ipv6[0].prefix_len = c->l_plen;
	}
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			c->match ? 0 : SMC_CLC_DECL_DIFFPREFIX);
}

static void nego_server_no_device_test(struct kunit *test)
{
	struct smc_nego_local *cl = local_new(test, true, true);
	struct smc_nego_local *sl = local_new(test, true, false);
	struct smc_clc_proposal *p = prop_of(test, cl);
	struct smc_nego_result r;

	/* no v2 device: v1 */
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.version, SMC_V1);
	/* no device at all: the v2 failure is reported */
	sl->r_v1 = false;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOSMCRDEV);
	/* v2 only */
	cl->r_v1 = false;
	p = prop_of(test, cl);
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOSMCRDEV);
	/* v1 only */
	cl->r_v1 = true;
	cl->r_v2 = false;
	p = prop_of(test, cl);
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOSMCDEV);
	/* v2 only to a v1-only server */
	cl->r_v1 = false;
	cl->r_v2 = true;
	sl->r_v1 = true;
	p = prop_of(test, cl);
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOSMCRDEV);
}

/* A hand-made v2 proposal offering @t1/@t2 with one EID of @l. */
static struct smc_clc_proposal *prop_types(struct kunit *test,
					   const struct smc_nego_local *l,
					   u8 t1, u8 t2)
{
	struct smc_clc_proposal *p = prop_new(test);

	p->hdr.type = SMC_CLC_PROPOSAL;
	p->hdr.version = SMC_V2;
	p->hdr.typev1 = t1;
	p->hdr.typev2 = t2;
	if (t1 != SMC_TYPE_N) {
		p->ipv4_subnet = l->ipv4_subnet;
		p->ipv4_prefix_len = l->ipv4_prefix_len;
	}
	if (t2 != SMC_TYPE_N) {
		p->has_v2_ext = true;
		p->has_smcd_v2_ext = t2 != SMC_TYPE_R;
		p->release = SMC_CLC_RELEASE_1;
		p->eid_cnt = 1;
		memcpy(p->eids[0], l->ueids[0], SMC_CLC_EID_LEN);
		p->max_conns = 255;
		p->max_links = 2;
	}
	return p;
}

static void nego_server_smcd_only_test(struct kunit *test)
{
	struct smc_nego_local *sl = local_new(test, true, true);
	struct smc_clc_proposal *p;
	struct smc_nego_result r;

	/* SMC-D v1 only */
	p = prop_types(test, sl, SMC_TYPE_D, SMC_TYPE_N);
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOSMCDDEV);
	p->ipv4_prefix_len = 16;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_DIFFPREFIX);
	/* SMC-D v2 only: no ISM v2 here */
	p = prop_types(test, sl, SMC_TYPE_N, SMC_TYPE_D);
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOISM2SUPP);
	/* SMC-D v1 and v2 */
	p = prop_types(test, sl, SMC_TYPE_D, SMC_TYPE_D);
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOSMCDDEV);
	/* SMC-D with an SMC-R fallback offer: SMC-R is taken */
	p = prop_types(test, sl, SMC_TYPE_B, SMC_TYPE_B);
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.version, SMC_V2);
	p = prop_types(test, sl, SMC_TYPE_B, SMC_TYPE_D);
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.version, SMC_V1);
	/* SMC-D v1 and SMC-R v2, no shared EID: the SMC-D failure */
	p = prop_types(test, sl, SMC_TYPE_D, SMC_TYPE_R);
	eid_set(p->eids[0], "OTHER-EID");
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOSMCDDEV);
}

static void nego_server_nov2ext_test(struct kunit *test)
{
	struct smc_nego_local *sl = local_new(test, true, true);
	struct smc_clc_proposal *p;
	struct smc_nego_result r;

	p = prop_types(test, sl, SMC_TYPE_N, SMC_TYPE_R);
	p->has_v2_ext = false;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOV2EXT);
	p = prop_types(test, sl, SMC_TYPE_R, SMC_TYPE_R);
	p->has_v2_ext = false;
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.version, SMC_V1);
}

static void nego_server_noueid_test(struct kunit *test)
{
	struct smc_nego_local *sl = local_new(test, true, true);
	struct smc_clc_proposal *p;
	struct smc_nego_result r;

	p = prop_types(test, sl, SMC_TYPE_N, SMC_TYPE_R);
	p->eid_cnt = 0;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOUEID);
	/* NOUEID wins over NOISM2SUPP, as upstream checks R after D */
	p->hdr.typev2 = SMC_TYPE_B;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOUEID);
	p = prop_types(test, sl, SMC_TYPE_R, SMC_TYPE_R);
	p->eid_cnt = 0;
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.version, SMC_V1);
}

static void nego_server_peernosmc_test(struct kunit *test)
{
	struct smc_nego_local *sl = local_new(test, true, true);
	struct smc_clc_proposal *p;
	struct smc_nego_result r;

	p = prop_types(test, sl, SMC_TYPE_N, SMC_TYPE_N);
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_PEERNOSMC);
	/* a v1 header never offers v2, whatever typev2 says */
	p = prop_types(test, sl, SMC_TYPE_N, SMC_TYPE_R);
	p->hdr.version = SMC_V1;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_PEERNOSMC);
}

static void nego_server_v1_header_test(struct kunit *test)
{
	struct smc_nego_local *sl = local_new(test, true, true);
	struct smc_clc_proposal *p;
	struct smc_nego_result r;

	/* an SMC v1 peer: typev2 bits are zero, i.e. "R", and ignored */
	p = prop_types(test, sl, SMC_TYPE_R, SMC_TYPE_N);
	p->hdr.version = SMC_V1;
	p->hdr.typev2 = 0;
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.version, SMC_V1);
	p->hdr.typev1 = SMC_TYPE_D;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOSMCDDEV);
}

static void nego_server_release_test(struct kunit *test)
{
	struct smc_nego_local *sl = local_new(test, false, true);
	struct smc_clc_proposal *p;
	struct smc_nego_result r;

	/* release 0 peer: no v2.x limits, not even checked */
	p = prop_types(test, sl, SMC_TYPE_N, SMC_TYPE_R);
	p->release = SMC_CLC_RELEASE_0;
	p->max_conns = 0;
	p->max_links = 0;
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.release, SMC_CLC_RELEASE_0);
	KUNIT_EXPECT_EQ(test, r.max_conns, SMC_NEGO_CONNS_MAX);
	KUNIT_EXPECT_EQ(test, r.max_links, SMC_NEGO_LINKS_MAX);
	KUNIT_EXPECT_EQ(test, r.feature_mask, 0);
	/* a newer peer: capped at ours */
	p = prop_types(test, sl, SMC_TYPE_N, SMC_TYPE_R);
	p->release = 5;
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.release, SMC_CLC_RELEASE_1);
	/* we at release 0 */
	sl->release = SMC_CLC_RELEASE_0;
	p->max_conns = 1;
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.release, SMC_CLC_RELEASE_0);
	KUNIT_EXPECT_EQ(test, r.max_conns, SMC_NEGO_CONNS_MAX);
}

static void nego_server_maxconn_test(struct kunit *test)
{
	struct smc_nego_local *sl = local_new(test, true, true);
	struct smc_clc_proposal *p;
	struct smc_nego_result r;

	p = prop_types(test, sl, SMC_TYPE_N, SMC_TYPE_R);
	p->max_conns = 15;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_MAXCONNERR);
	p->max_conns = 16;
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.max_conns, 16);
	/* ours below the minimum */
	p->max_conns = 200;
	sl->max_conns = 10;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_MAXCONNERR);
	/* checked before the devices, so even v1 is not tried */
	sl->max_conns = 255;
	p = prop_types(test, sl, SMC_TYPE_R, SMC_TYPE_R);
	p->max_conns = 0;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_MAXCONNERR);
}

static void nego_server_maxlink_test(struct kunit *test)
{
	struct smc_nego_local *sl = local_new(test, false, true);
	struct smc_clc_proposal *p;
	struct smc_nego_result r;

	p = prop_types(test, sl, SMC_TYPE_N, SMC_TYPE_R);
	p->max_links = 0;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_MAXLINKERR);
	p->max_links = 1;
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.max_links, 1);
	p->max_links = 3;
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.max_links, 2);
	/* max_conns is checked first */
	p->max_links = 0;
	p->max_conns = 0;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_MAXCONNERR);
}

/* ---------------------------------------------------------------------- */
/* accept, client, confirm                                                 */

static void result_v2(struct smc_nego_result *r)
{
	memset(r, 0, sizeof(*r));
	r->version = SMC_V2;
	r->release = SMC_CLC_RELEASE_1;
	eid_set(r->eid, "SMC-EID-ONE");
	r->max_conns = 100;
	r->max_links = 1;
	r->feature_mask = SMC_NEGO_FEATURE_MASK;
}

static void nego_fill_accept_test(struct kunit *test)
{
	struct smc_clc_accept_confirm *acc = ac_new(test);
	struct smc_nego_result r;

	result_v2(&r);
	memset(acc->fce.hostname, 'h', SMC_CLC_HOSTNAME_LEN);
	acc->fce.v2_direct = true;
	smc_nego_fill_accept(&r, true, acc);
	KUNIT_EXPECT_EQ(test, acc->hdr.type, SMC_CLC_ACCEPT);
	KUNIT_EXPECT_EQ(test, acc->hdr.version, SMC_V2);
	KUNIT_EXPECT_EQ(test, acc->hdr.typev1, SMC_TYPE_R);
	KUNIT_EXPECT_TRUE(test, acc->hdr.first_contact);
	KUNIT_EXPECT_FALSE(test, acc->hdr.smcd);
	KUNIT_EXPECT_MEMEQ(test, acc->eid, r.eid, SMC_CLC_EID_LEN);
	KUNIT_EXPECT_TRUE(test, acc->fce.v2x);
	KUNIT_EXPECT_EQ(test, acc->fce.os_type, SMC_CLC_OS_LINUX);
	KUNIT_EXPECT_EQ(test, acc->fce.release, SMC_CLC_RELEASE_1);
	KUNIT_EXPECT_EQ(test, acc->fce.max_conns, 100);
	KUNIT_EXPECT_EQ(test, acc->fce.max_links, 1);
	KUNIT_EXPECT_EQ(test, acc->fce.feature_mask, SMC_NEGO_FEATURE_MASK);
	KUNIT_EXPECT_FALSE(test, acc->has_gid_list);
	/* the caller's fields survive */
	KUNIT_EXPECT_TRUE(test, acc->fce.v2_direct);
	KUNIT_EXPECT_EQ(test, acc->fce.hostname[0], 'h');

	/* release 0: the v2.x fields are zero, the form is still v2.x */
	r.release = SMC_CLC_RELEASE_0;
	smc_nego_fill_accept(&r, true, acc);
	KUNIT_EXPECT_TRUE(test, acc->fce.v2x);
	KUNIT_EXPECT_EQ(test, acc->fce.release, SMC_CLC_RELEASE_0);
	KUNIT_EXPECT_EQ(test, acc->fce.max_conns, 0);
	KUNIT_EXPECT_EQ(test, acc->fce.max_links, 0);
	KUNIT_EXPECT_EQ(test, acc->fce.feature_mask, 0);

	smc_nego_fill_accept(&r, false, acc);
	KUNIT_EXPECT_FALSE(test, acc->hdr.first_contact);

	r.version = SMC_V1;
	smc_nego_fill_accept(&r, true, acc);
	KUNIT_EXPECT_EQ(test, acc->hdr.version, SMC_V1);
	KUNIT_EXPECT_TRUE(test, acc->hdr.first_contact);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(acc->eid, 0, SMC_CLC_EID_LEN));
}

static void nego_fill_confirm_test(struct kunit *test)
{
	struct smc_clc_accept_confirm *conf = ac_new(test);
	struct smc_nego_result r;

	result_v2(&r);
	smc_nego_fill_confirm(&r, true, conf);
	KUNIT_EXPECT_EQ(test, conf->hdr.type, SMC_CLC_CONFIRM);
	KUNIT_EXPECT_EQ(test, conf->hdr.version, SMC_V2);
	KUNIT_EXPECT_EQ(test, conf->hdr.typev1, SMC_TYPE_R);
	KUNIT_EXPECT_TRUE(test, conf->hdr.first_contact);
	KUNIT_EXPECT_TRUE(test, conf->has_gid_list);
	KUNIT_EXPECT_EQ(test, conf->fce.os_type, SMC_CLC_OS_LINUX);
	KUNIT_EXPECT_EQ(test, conf->fce.max_conns, 100);
	KUNIT_EXPECT_EQ(test, smc_nego_confirm(&r, conf), 0);

	smc_nego_fill_confirm(&r, false, conf);
	KUNIT_EXPECT_FALSE(test, conf->has_gid_list);
	r.version = SMC_V1;
	smc_nego_fill_confirm(&r, true, conf);
	KUNIT_EXPECT_FALSE(test, conf->has_gid_list);
	KUNIT_EXPECT_EQ(test, conf->hdr.version, SMC_V1);
}

/* An accept as a Linux server sends it for @r. */
static struct smc_clc_accept_confirm *accept_of(struct kunit *test,
						const struct smc_nego_result *r,
						bool first_contact)
{
	struct smc_clc_accept_confirm *acc = ac_new(test);

	smc_nego_fill_accept(r, first_contact, acc);
	return acc;
}

static void nego_client_v2_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, true, true);
	struct smc_clc_proposal *p = prop_of(test, l);
	struct smc_clc_accept_confirm *acc;
	struct smc_nego_result sr, cr;

	result_v2(&sr);
	acc = accept_of(test, &sr, true);
	acc->fce.feature_mask = 0xffff;
	KUNIT_ASSERT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
	KUNIT_EXPECT_EQ(test, cr.version, SMC_V2);
	KUNIT_EXPECT_EQ(test, cr.release, SMC_CLC_RELEASE_1);
	KUNIT_EXPECT_MEMEQ(test, cr.eid, sr.eid, SMC_CLC_EID_LEN);
	KUNIT_EXPECT_EQ(test, cr.max_conns, 100);
	KUNIT_EXPECT_EQ(test, cr.max_links, 1);
	/* only the bits we know */
	KUNIT_EXPECT_EQ(test, cr.feature_mask, SMC_NEGO_FEATURE_MASK);

	/* release 0: defaults, v2.x fields ignored */
	sr.release = SMC_CLC_RELEASE_0;
	acc = accept_of(test, &sr, true);
	acc->fce.max_conns = 1;
	acc->fce.max_links = 9;
	KUNIT_ASSERT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
	KUNIT_EXPECT_EQ(test, cr.release, SMC_CLC_RELEASE_0);
	KUNIT_EXPECT_EQ(test, cr.max_conns, SMC_NEGO_CONNS_MAX);
	KUNIT_EXPECT_EQ(test, cr.max_links, SMC_NEGO_LINKS_MAX);
	KUNIT_EXPECT_EQ(test, cr.feature_mask, 0);
}

static void nego_client_v1_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, true, true);
	struct smc_clc_proposal *p = prop_of(test, l);
	struct smc_clc_accept_confirm *acc;
	struct smc_nego_result sr, cr;

	result_v2(&sr);
	sr.version = SMC_V1;
	acc = accept_of(test, &sr, true);
	KUNIT_ASSERT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
	KUNIT_EXPECT_EQ(test, cr.version, SMC_V1);
	KUNIT_EXPECT_EQ(test, cr.release, SMC_CLC_RELEASE_0);
	KUNIT_EXPECT_EQ(test, cr.max_conns, SMC_NEGO_CONNS_MAX);
	KUNIT_EXPECT_EQ(test, cr.max_links, SMC_NEGO_LINKS_MAX);
}

static void nego_client_modeunsupp_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, true, false);
	struct smc_clc_proposal *p = prop_of(test, l);
	struct smc_clc_accept_confirm *acc;
	struct smc_nego_result sr, cr;

	/* v2 accept to a v1-only proposal */
	result_v2(&sr);
	acc = accept_of(test, &sr, true);
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MODEUNSUPP);
	/* v1 accept to a v2-only proposal */
	l->r_v1 = false;
	l->r_v2 = true;
	p = prop_of(test, l);
	sr.version = SMC_V1;
	acc = accept_of(test, &sr, true);
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MODEUNSUPP);
	/* SMC-D or nonsense types */
	sr.version = SMC_V2;
	acc = accept_of(test, &sr, true);
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
	acc->hdr.typev1 = SMC_TYPE_D;
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MODEUNSUPP);
	acc->hdr.typev1 = SMC_TYPE_N;
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MODEUNSUPP);
	acc->hdr.typev1 = SMC_TYPE_B;
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MODEUNSUPP);
}

static void nego_client_eid_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, false, true);
	struct smc_clc_proposal *p;
	struct smc_clc_accept_confirm *acc;
	struct smc_nego_result sr, cr;

	l->ueid_cnt = 2;
	eid_set(l->ueids[1], "SMC-EID-TWO");
	p = prop_of(test, l);
	result_v2(&sr);
	memcpy(sr.eid, l->ueids[1], SMC_CLC_EID_LEN);
	acc = accept_of(test, &sr, false);
	KUNIT_ASSERT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
	KUNIT_EXPECT_MEMEQ(test, cr.eid, l->ueids[1], SMC_CLC_EID_LEN);
	eid_set(acc->eid, "NOT-OFFERED");
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_NOUEID);
	memset(acc->eid, 0, SMC_CLC_EID_LEN);
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_NOUEID);
}

static void nego_client_release_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, false, true);
	struct smc_clc_proposal *p = prop_of(test, l);
	struct smc_clc_accept_confirm *acc;
	struct smc_nego_result sr, cr;

	result_v2(&sr);
	acc = accept_of(test, &sr, true);
	acc->fce.release = 2;
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_RELEASEERR);
	/* we proposed release 0 */
	l->release = SMC_CLC_RELEASE_0;
	p = prop_of(test, l);
	acc->fce.release = SMC_CLC_RELEASE_1;
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_RELEASEERR);
	acc->fce.release = SMC_CLC_RELEASE_0;
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
}

static void nego_client_maxconn_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, false, true);
	struct smc_clc_proposal *p;
	struct smc_clc_accept_confirm *acc;
	struct smc_nego_result sr, cr;

	l->max_conns = 50;
	p = prop_of(test, l);
	result_v2(&sr);
	sr.max_conns = 50;
	acc = accept_of(test, &sr, true);
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
	acc->fce.max_conns = 15;
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MAXCONNERR);
	acc->fce.max_conns = 51;
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MAXCONNERR);
	/* base form FCE at release 1 */
	acc->fce.max_conns = 50;
	acc->fce.v2x = false;
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MAXCONNERR);
}

static void nego_client_maxlink_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, false, true);
	struct smc_clc_proposal *p = prop_of(test, l);
	struct smc_clc_accept_confirm *acc;
	struct smc_nego_result sr, cr;

	result_v2(&sr);
	acc = accept_of(test, &sr, true);
	acc->fce.max_links = 0;
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MAXLINKERR);
	acc->fce.max_links = 3;
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MAXLINKERR);
	acc->fce.max_links = 2;
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
	/* more than we proposed */
	l->max_links = 1;
	p = prop_of(test, l);
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MAXLINKERR);
}

static void nego_client_not_first_contact_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, false, true);
	struct smc_clc_proposal *p = prop_of(test, l);
	struct smc_clc_accept_confirm *acc;
	struct smc_nego_result sr, cr;

	result_v2(&sr);
	acc = accept_of(test, &sr, false);
	/* FCE content is not looked at without first contact */
	acc->fce.release = 9;
	acc->fce.max_conns = 0;
	KUNIT_ASSERT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
	KUNIT_EXPECT_EQ(test, cr.version, SMC_V2);
	KUNIT_EXPECT_EQ(test, cr.release, SMC_CLC_RELEASE_0);
	KUNIT_EXPECT_EQ(test, cr.max_conns, SMC_NEGO_CONNS_MAX);
	KUNIT_EXPECT_EQ(test, cr.max_links, SMC_NEGO_LINKS_MAX);
}

static void nego_confirm_test(struct kunit *test)
{
	struct smc_clc_accept_confirm *conf = ac_new(test);
	struct smc_nego_result r, v1;

	result_v2(&r);
	smc_nego_fill_confirm(&r, true, conf);
	KUNIT_EXPECT_EQ(test, smc_nego_confirm(&r, conf), 0);

	conf->fce.release = SMC_CLC_RELEASE_0;
	KUNIT_EXPECT_EQ(test, smc_nego_confirm(&r, conf),
			SMC_CLC_DECL_RELEASEERR);
	conf->fce.release = SMC_CLC_RELEASE_1;
	conf->fce.max_conns = 101;
	KUNIT_EXPECT_EQ(test, smc_nego_confirm(&r, conf),
			SMC_CLC_DECL_MAXCONNERR);
	conf->fce.max_conns = 100;
	conf->fce.v2x = false;
	KUNIT_EXPECT_EQ(test, smc_nego_confirm(&r, conf),
			SMC_CLC_DECL_MAXCONNERR);
	conf->fce.v2x = true;
	conf->fce.max_links = 2;
	KUNIT_EXPECT_EQ(test, smc_nego_confirm(&r, conf),
			SMC_CLC_DECL_MAXLINKERR);
	conf->fce.max_links = 1;
	KUNIT_EXPECT_EQ(test, smc_nego_confirm(&r, conf), 0);

	/* the peer's features are not negotiated any more */
	conf->fce.feature_mask = 0;
	KUNIT_EXPECT_EQ(test, smc_nego_confirm(&r, conf), 0);

	eid_set(conf->eid, "SMC-EID-TWO");
	KUNIT_EXPECT_EQ(test, smc_nego_confirm(&r, conf),
			SMC_CLC_DECL_NOUEID);
	memcpy(conf->eid, r.eid, SMC_CLC_EID_LEN);

	conf->hdr.version = SMC_V1;
	KUNIT_EXPECT_EQ(test, smc_nego_confirm(&r, conf),
			SMC_CLC_DECL_VERSMISMAT);
	conf->hdr.version = SMC_V2;
	conf->hdr.typev1 = SMC_TYPE_D;
	KUNIT_EXPECT_EQ(test, smc_nego_confirm(&r, conf),
			SMC_CLC_DECL_MODEUNSUPP);
	conf->hdr.typev1 = SMC_TYPE_R;

	/* without first contact the FCE is not looked at */
	conf->hdr.first_contact = false;
	conf->fce.release = 5;
	KUNIT_EXPECT_EQ(test, smc_nego_confirm(&r, conf), 0);

	/* release 0: the limits are not compared */
	r.release = SMC_CLC_RELEASE_0;
	smc_nego_fill_confirm(&r, true, conf);
	conf->fce.max_conns = 7;
	KUNIT_EXPECT_EQ(test, smc_nego_confirm(&r, conf), 0);

	/* v1 */
	result_v2(&v1);
	v1.version = SMC_V1;
	smc_nego_fill_confirm(&v1, true, conf);
	KUNIT_EXPECT_EQ(test, smc_nego_confirm(&v1, conf), 0);
	KUNIT_EXPECT_EQ(test, smc_nego_confirm(&r, conf),
			SMC_CLC_DECL_VERSMISMAT);
}

/* ---------------------------------------------------------------------- */
/* whole handshakes through the codec                                      */

struct hs_shape {
	const char *name;
	bool c_v1, c_v2;	/* client devices */
	bool s_v1, s_v2;	/* server devices */
	u8 c_release;
	bool first_contact;
	u8 version;		/* expected outcome */
	u8 release;
	u8 max_conns;
};

static const struct hs_shape hs_shapes[] = {
	{ "v1 only", true, false, true, true, 1, true, SMC_V1, 0, 255 },
	{ "v2 only", false, true, true, true, 1, true, SMC_V2, 1, 64 },
	{ "both", true, true, true, true, 1, true, SMC_V2, 1, 64 },
	{ "both, server v1", true, true, true, false, 1, true, SMC_V1, 0,
	  255 },
	{ "both, release 0", true, true, true, true, 0, true, SMC_V2, 0, 255 },
	{ "both, no first contact", true, true, true, true, 1, false, SMC_V2,
	  0, 255 },
	{ "v1 only, no first contact", true, false, true, true, 1, false,
	  SMC_V1, 0, 255 },
};

KUNIT_ARRAY_PARAM_DESC(hs_shape, hs_shapes, name);

/* Encode @len-limited into a scratch buffer, decode from an exact copy. */
static u8 *exact(struct kunit *test, const u8 *src, int len)
{
	u8 *buf;

	KUNIT_ASSERT_GT(test, len, 0);
	buf = kunit_kmalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	memcpy(buf, src, len);
	return buf;
}

/* the link and buffer fields a caller adds to an accept or confirm */
static void ac_link_fields(struct smc_clc_accept_confirm *ac, u8 seed)
{
	memcpy(ac->id_for_peer, test_sysid, SMC_CLC_SYSTEMID_LEN);
	memcpy(ac->gid, ac->hdr.version == SMC_V2 ? test_gid_v2 : test_gid_v1,
	       SMC_CLC_GID_LEN);
	memcpy(ac->mac, test_mac, SMC_CLC_MAC_LEN);
	ac->qpn = 0x100 + seed;
	ac->rmb_rkey = 0x1234;
	ac->rmbe_idx = 1;
	ac->rmbe_alert_token = seed;
	ac->rmbe_size = 5;
	ac->qp_mtu = 3;
	ac->rmb_dma_addr = 0x7f0000000000ULL;
	ac->psn = 0xabcdef;
	memset(ac->fce.hostname, 'a' + seed, SMC_CLC_HOSTNAME_LEN);
	ac->fce.v2_direct = true;
}

/*
 * @ac with the link fields of ac_link_fields(@seed) (and, for a confirm
 * with a GID list, its own GID as the list), encoded into @buf and
 * decoded into @out.
 */
static void ac_over_wire(struct kunit *test, struct smc_clc_accept_confirm *ac,
			 u8 seed, u8 *buf, struct smc_clc_accept_confirm *out)
{
	int len;

	ac_link_fields(ac, seed);
	if (ac->has_gid_list) {
		ac->gid_cnt = 1;
		memcpy(ac->gids[0], ac->gid, SMC_CLC_GID_LEN);
	}
	len = smc_clc_accept_confirm_encode(ac, buf, SMC_CLC_MAX_MSG_LEN);
	KUNIT_ASSERT_GT(test, len, 0);
	KUNIT_ASSERT_EQ(test,
			smc_clc_accept_confirm_decode(exact(test, buf, len),
						      len, out), 0);
}

/* The proposal @l's client sends (@sent), encoded and decoded (@rcvd). */
static void prop_over_wire(struct kunit *test, const struct smc_nego_local *l,
			   struct smc_clc_proposal *sent, u8 *buf,
			   struct smc_clc_proposal *rcvd)
{
	u32 reason;
	int len;

	KUNIT_ASSERT_EQ(test, smc_nego_proposal(l, sent, &reason), 0);
	len = smc_clc_proposal_encode(sent, buf, SMC_CLC_MAX_MSG_LEN);
	KUNIT_ASSERT_GT(test, len, 0);
	KUNIT_ASSERT_EQ(test, smc_clc_proposal_decode(exact(test, buf, len),
						      len, rcvd), 0);
}

static void nego_handshake_test(struct kunit *test)
{
	const struct hs_shape *s = test->param_value;
	struct smc_nego_local *cl = local_new(test, s->c_v1, s->c_v2);
	struct smc_nego_local *sl = local_new(test, s->s_v1, s->s_v2);
	struct smc_clc_proposal *sent = prop_new(test), *rcvd = prop_new(test);
	struct smc_clc_accept_confirm *acc = ac_new(test);
	struct smc_clc_accept_confirm *acc_rcvd = ac_new(test);
	struct smc_clc_accept_confirm *conf = ac_new(test);
	struct smc_clc_accept_confirm *conf_rcvd = ac_new(test);
	u8 *buf = kunit_kzalloc(test, SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	struct smc_nego_result sr, cr;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	cl->release = s->c_release;
	cl->max_conns = 64;
	cl->ueid_cnt = 2;
	eid_set(cl->ueids[0], "CLIENT-ONLY");
	eid_set(cl->ueids[1], "SMC-EID-ONE");

	/* client proposes */
	prop_over_wire(test, cl, sent, buf, rcvd);
	KUNIT_EXPECT_EQ(test, rcvd->hdr.typev1, sent->hdr.typev1);
	KUNIT_EXPECT_EQ(test, rcvd->hdr.typev2, sent->hdr.typev2);

	/* server decides and accepts */
	KUNIT_ASSERT_EQ(test, smc_nego_server(rcvd, sl, &sr), 0);
	KUNIT_EXPECT_EQ(test, sr.version, s->version);
	smc_nego_fill_accept(&sr, s->first_contact, acc);
	ac_over_wire(test, acc, 1, buf, acc_rcvd);

	/* client checks the accept and confirms */
	KUNIT_ASSERT_EQ(test, smc_nego_client(sent, acc_rcvd, cl, &cr), 0);
	KUNIT_EXPECT_EQ(test, cr.version, s->version);
	KUNIT_EXPECT_EQ(test, cr.release, s->release);
	KUNIT_EXPECT_EQ(test, cr.max_conns, s->max_conns);
	KUNIT_EXPECT_MEMEQ(test, cr.eid, sr.eid, SMC_CLC_EID_LEN);
	if (s->first_contact) {
		KUNIT_EXPECT_EQ(test, cr.release, sr.release);
		KUNIT_EXPECT_EQ(test, cr.max_conns, sr.max_conns);
		KUNIT_EXPECT_EQ(test, cr.max_links, sr.max_links);
	}
	smc_nego_fill_confirm(&cr, s->first_contact, conf);
	ac_over_wire(test, conf, 2, buf, conf_rcvd);
	KUNIT_EXPECT_EQ(test, conf_rcvd->has_gid_list,
			s->version == SMC_V2 && s->first_contact);

	/* server checks the confirm */
	KUNIT_EXPECT_EQ(test, smc_nego_confirm(&sr, conf_rcvd), 0);
}

/* ---------------------------------------------------------------------- */
/* vendor extensions                                                       */

/* The offer sits in the SMC-D area's vendor fields, nowhere else. */
static void nego_vx_proposal_bytes_test(struct kunit *test)
{
	static const u8 want[8] = { 0x0a, 0x53, 0x4d, 0x53, 0x4d, 0x00, 0x01,
				    0x00 };
	struct smc_nego_local *l = local_new(test, false, true);
	struct smc_clc_proposal *plain = prop_of(test, l), *p;
	u8 *a = kunit_kzalloc(test, SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	u8 *b = kunit_kzalloc(test, SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	int la, lb, i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	l->vx = SMC_NEGO_VX_WIMM;
	p = prop_of(test, l);
	la = smc_clc_proposal_encode(plain, a, SMC_CLC_MAX_MSG_LEN);
	lb = smc_clc_proposal_encode(p, b, SMC_CLC_MAX_MSG_LEN);
	KUNIT_ASSERT_EQ(test, la, 156);
	KUNIT_ASSERT_EQ(test, lb, la);
	/* base part 40 bytes, then the SMC-D area: OUI at 12, options at 15 */
	KUNIT_EXPECT_MEMEQ(test, b + 40 + 12, want, sizeof(want));
	for (i = 0; i < la; i++) {
		if (i >= 40 + 12 && i < 40 + 20)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, a[i], b[i], "byte %d", i);
	}
	/* and nothing without a v2 offer */
	l = local_new(test, true, false);
	l->vx = SMC_NEGO_VX_WIMM;
	p = prop_of(test, l);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(p->vendor_oui, 0,
					    SMC_CLC_VENDOR_OUI_LEN));
}

struct vx_case {
	const char *desc;
	u16 c_vx;		/* client offers */
	u16 s_vx;		/* server accepts */
	u8 c_release;
	bool first_contact;
	u32 acc_word;		/* when nonzero: the accept's word instead */
	bool no_echo;		/* the confirm carries no word */
	u16 want_client;
	u16 want_server;
};

static const struct vx_case vx_cases[] = {
	{ "both", SMC_NEGO_VX_WIMM, SMC_NEGO_VX_WIMM, 1, true, 0, false,
	  SMC_NEGO_VX_WIMM, SMC_NEGO_VX_WIMM },
	{ "client only (a Linux server)", SMC_NEGO_VX_WIMM, 0, 1, true, 0,
	  false, 0, 0 },
	{ "server only (a Linux client)", 0, SMC_NEGO_VX_WIMM, 1, true, 0,
	  false, 0, 0 },
	{ "release 0", SMC_NEGO_VX_WIMM, SMC_NEGO_VX_WIMM, 0, true, 0, false,
	  0, 0 },
	{ "no first contact", SMC_NEGO_VX_WIMM, SMC_NEGO_VX_WIMM, 1, false, 0,
	  false, 0, 0 },
	{ "foreign word", SMC_NEGO_VX_WIMM, SMC_NEGO_VX_WIMM, 1, true,
	  0x00000001, false, 0, 0 },
	{ "unknown bits", SMC_NEGO_VX_WIMM, SMC_NEGO_VX_WIMM, 1, true,
	  SMC_NEGO_VX_TAG | 0xfffe, false, 0, 0 },
	{ "no echo", SMC_NEGO_VX_WIMM, SMC_NEGO_VX_WIMM, 1, true, 0, true,
	  SMC_NEGO_VX_WIMM, 0 },
	{ "growth too", SMC_NEGO_VX_WIMM | SMC_NEGO_VX_GROW,
	  SMC_NEGO_VX_WIMM | SMC_NEGO_VX_GROW, 1, true, 0, false,
	  SMC_NEGO_VX_WIMM | SMC_NEGO_VX_GROW,
	  SMC_NEGO_VX_WIMM | SMC_NEGO_VX_GROW },
	{ "growth, server without", SMC_NEGO_VX_WIMM | SMC_NEGO_VX_GROW,
	  SMC_NEGO_VX_WIMM, 1, true, 0, false, SMC_NEGO_VX_WIMM,
	  SMC_NEGO_VX_WIMM },
	{ "growth imposed", SMC_NEGO_VX_WIMM, SMC_NEGO_VX_WIMM, 1, true,
	  SMC_NEGO_VX_TAG | SMC_NEGO_VX_WIMM | SMC_NEGO_VX_GROW, false,
	  SMC_NEGO_VX_WIMM, SMC_NEGO_VX_WIMM },
	{ "both iWARP", SMC_NEGO_VX_IWARP, SMC_NEGO_VX_IWARP, 1, true, 0,
	  false, SMC_NEGO_VX_IWARP, SMC_NEGO_VX_IWARP },
	{ "iWARP, server WIMM too", SMC_NEGO_VX_IWARP, SMC_NEGO_VX_ALL, 1,
	  true, 0, false, SMC_NEGO_VX_IWARP, SMC_NEGO_VX_IWARP },
	{ "iWARP, no first contact", SMC_NEGO_VX_IWARP, SMC_NEGO_VX_IWARP, 1,
	  false, 0, false, 0, 0 },
	{ "iWARP imposed", SMC_NEGO_VX_WIMM, SMC_NEGO_VX_WIMM, 1, true,
	  SMC_NEGO_VX_TAG | SMC_NEGO_VX_ALL, false, SMC_NEGO_VX_WIMM,
	  SMC_NEGO_VX_WIMM },
};

KUNIT_ARRAY_PARAM_DESC(vx_case, vx_cases, desc);

/* Proposal, accept and confirm through the wire codec. */
static void nego_vx_handshake_test(struct kunit *test)
{
	const struct vx_case *c = test->param_value;
	struct smc_nego_local *cl = local_new(test, false, true);
	struct smc_nego_local *sl = local_new(test, false, true);
	struct smc_clc_proposal *sent = prop_new(test), *rcvd = prop_new(test);
	struct smc_clc_accept_confirm *acc = ac_new(test);
	struct smc_clc_accept_confirm *acc_rcvd = ac_new(test);
	struct smc_clc_accept_confirm *conf = ac_new(test);
	struct smc_clc_accept_confirm *conf_rcvd = ac_new(test);
	u8 *buf = kunit_kzalloc(test, SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	struct smc_nego_result sr, cr;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	cl->vx = c->c_vx;
	cl->release = c->c_release;
	sl->vx = c->s_vx;
	prop_over_wire(test, cl, sent, buf, rcvd);
	KUNIT_ASSERT_EQ(test, smc_nego_server(rcvd, sl, &sr), 0);
	smc_nego_fill_accept(&sr, c->first_contact, acc);
	if (c->acc_word)
		acc->fce.vendor_exp_options = c->acc_word;
	if (!c->s_vx || !c->c_vx || !c->first_contact)
		KUNIT_EXPECT_EQ(test, acc->fce.vendor_exp_options, 0);
	ac_over_wire(test, acc, 1, buf, acc_rcvd);
	KUNIT_ASSERT_EQ(test, smc_nego_client(sent, acc_rcvd, cl, &cr), 0);
	KUNIT_EXPECT_EQ(test, cr.vx, c->want_client);

	smc_nego_fill_confirm(&cr, c->first_contact, conf);
	if (c->no_echo)
		conf->fce.vendor_exp_options = 0;
	ac_over_wire(test, conf, 2, buf, conf_rcvd);
	KUNIT_ASSERT_EQ(test, smc_nego_confirm(&sr, conf_rcvd), 0);
	KUNIT_EXPECT_EQ(test, smc_nego_confirm_vx(&sr, conf_rcvd),
			c->want_server);
}

/* ---------------------------------------------------------------------- */
/* iWARP: not an option, the kind of device on either end                  */

/* A client or server whose device is iWARP: SMC-R v2 only (as hs.c). */
static struct smc_nego_local *local_iwarp(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, false, true);

	l->vx = SMC_NEGO_VX_IWARP;
	l->max_links = 1;
	return l;
}

/*
 * What a server without a v2 device says to @p: the reason (and version)
 * a device of the other kind must give as well.
 */
static u32 server_nodev(struct kunit *test, const struct smc_clc_proposal *p,
			const struct smc_nego_local *sl,
			struct smc_nego_result *r)
{
	struct smc_nego_local *nodev = kunit_kmalloc(test, sizeof(*nodev),
						     GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, nodev);
	memcpy(nodev, sl, sizeof(*nodev));
	nodev->r_v2 = false;
	nodev->vx = 0;
	return smc_nego_server(p, nodev, r);
}

static void nego_iwarp_server_both_test(struct kunit *test)
{
	struct smc_nego_local *cl = local_iwarp(test);
	struct smc_nego_local *sl = local_iwarp(test);
	struct smc_clc_proposal *p = prop_of(test, cl);
	struct smc_nego_result r;

	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.version, SMC_V2);
	KUNIT_EXPECT_EQ(test, r.release, SMC_CLC_RELEASE_1);
	KUNIT_EXPECT_MEMEQ(test, r.eid, sl->ueids[0], SMC_CLC_EID_LEN);
	KUNIT_EXPECT_EQ(test, r.max_links, 1);
	KUNIT_EXPECT_EQ(test, r.vx, SMC_NEGO_VX_IWARP);
	/* a server that could write with immediate does not get it */
	sl->vx = SMC_NEGO_VX_ALL;
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.version, SMC_V2);
	KUNIT_EXPECT_EQ(test, r.vx, SMC_NEGO_VX_IWARP);
	/* nor a client that offers it when the server does not */
	sl->vx = SMC_NEGO_VX_IWARP;
	cl->vx = SMC_NEGO_VX_ALL;
	p = prop_of(test, cl);
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.version, SMC_V2);
	KUNIT_EXPECT_EQ(test, r.vx, SMC_NEGO_VX_IWARP);
	/* both offer both */
	sl->vx = SMC_NEGO_VX_ALL;
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.vx, SMC_NEGO_VX_ALL);
	/* a newer iWARP client: capped at our release, still agreed */
	sl->vx = SMC_NEGO_VX_IWARP;
	p->release = 5;
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.release, SMC_CLC_RELEASE_1);
	KUNIT_EXPECT_EQ(test, r.vx, SMC_NEGO_VX_IWARP);
}

static void nego_iwarp_server_client_iwarp_test(struct kunit *test)
{
	struct smc_nego_local *cl = local_iwarp(test);
	struct smc_nego_local *sl = local_new(test, false, true);
	struct smc_clc_proposal *p = prop_of(test, cl);
	struct smc_nego_result r, nr;
	u32 want;

	/* a RoCE server, v2 only */
	want = server_nodev(test, p, sl, &nr);
	KUNIT_EXPECT_EQ(test, want, SMC_CLC_DECL_NOSMCRDEV);
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r), want);
	/* also when it could write with immediate */
	sl->vx = SMC_NEGO_VX_WIMM;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r), want);
	/* a RoCE server with v1 too: the same (v1 is not offered) */
	sl->r_v1 = true;
	want = server_nodev(test, p, sl, &nr);
	KUNIT_EXPECT_EQ(test, want, SMC_CLC_DECL_NOSMCRDEV);
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r), want);
	/* an iWARP client offering WIMM as well changes nothing */
	cl->vx = SMC_NEGO_VX_ALL;
	p = prop_of(test, cl);
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			server_nodev(test, p, sl, &nr));
	/* were v1 offered along, the server falls back to it alike */
	cl->r_v1 = true;
	p = prop_of(test, cl);
	KUNIT_ASSERT_EQ(test, server_nodev(test, p, sl, &nr), 0);
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, nr.version, SMC_V1);
	KUNIT_EXPECT_EQ(test, r.version, SMC_V1);
	KUNIT_EXPECT_EQ(test, r.vx, 0);
}

static void nego_iwarp_server_server_iwarp_test(struct kunit *test)
{
	struct smc_nego_local *cl = local_new(test, false, true);
	struct smc_nego_local *sl = local_iwarp(test);
	struct smc_clc_proposal *p = prop_of(test, cl);
	struct smc_nego_result r, nr;
	u32 want;

	/* a plain RoCE client (Linux 6.12 alike): no vendor word at all */
	KUNIT_EXPECT_TRUE(test, !memchr_inv(p->vendor_oui, 0,
					    SMC_CLC_VENDOR_OUI_LEN));
	want = server_nodev(test, p, sl, &nr);
	KUNIT_EXPECT_EQ(test, want, SMC_CLC_DECL_NOSMCRDEV);
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r), want);
	/* a RoCE client of ours, offering WIMM */
	cl->vx = SMC_NEGO_VX_WIMM;
	p = prop_of(test, cl);
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r), want);
	sl->vx = SMC_NEGO_VX_ALL;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r), want);
	/* a RoCE client offering v1 as well: v1 is the server's business */
	cl->r_v1 = true;
	p = prop_of(test, cl);
	sl->r_v1 = true;
	KUNIT_ASSERT_EQ(test, server_nodev(test, p, sl, &nr), 0);
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.version, nr.version);
	KUNIT_EXPECT_EQ(test, r.version, SMC_V1);
	sl->r_v1 = false;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			server_nodev(test, p, sl, &nr));
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOSMCRDEV);
}

static void nego_iwarp_server_release0_test(struct kunit *test)
{
	struct smc_nego_local *cl = local_iwarp(test);
	struct smc_nego_local *sl = local_iwarp(test);
	struct smc_clc_proposal *p;
	struct smc_nego_result r;

	/* an iWARP client at release 0 still says what its device is */
	cl->release = SMC_CLC_RELEASE_0;
	p = prop_of(test, cl);
	KUNIT_EXPECT_EQ(test, p->release, SMC_CLC_RELEASE_0);
	KUNIT_EXPECT_TRUE(test, smc_nego_prop_iwarp(p));
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOSMCRDEV);
	/* the server at release 0 */
	cl->release = SMC_CLC_RELEASE_1;
	p = prop_of(test, cl);
	sl->release = SMC_CLC_RELEASE_0;
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOSMCRDEV);
	/* both at release 0 */
	cl->release = SMC_CLC_RELEASE_0;
	p = prop_of(test, cl);
	KUNIT_EXPECT_EQ(test, smc_nego_server(p, sl, &r),
			SMC_CLC_DECL_NOSMCRDEV);
	/* RoCE on both ends at release 0 is fine */
	cl->vx = 0;
	sl->vx = 0;
	p = prop_of(test, cl);
	KUNIT_ASSERT_EQ(test, smc_nego_server(p, sl, &r), 0);
	KUNIT_EXPECT_EQ(test, r.version, SMC_V2);
	KUNIT_EXPECT_EQ(test, r.release, SMC_CLC_RELEASE_0);
	KUNIT_EXPECT_EQ(test, r.vx, 0);
}

static void nego_iwarp_client_refused_test(struct kunit *test)
{
	struct smc_nego_local *l = local_iwarp(test);
	struct smc_clc_proposal *p = prop_of(test, l);
	struct smc_clc_accept_confirm *acc;
	struct smc_nego_result sr, cr;

	result_v2(&sr);
	/* a server that accepts no extension (Linux 6.12 alike) */
	acc = accept_of(test, &sr, true);
	KUNIT_EXPECT_EQ(test, acc->fce.vendor_exp_options, 0);
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MODEUNSUPP);
	/* only WIMM, which we offered too */
	l->vx = SMC_NEGO_VX_ALL;
	p = prop_of(test, l);
	sr.vx = SMC_NEGO_VX_WIMM;
	acc = accept_of(test, &sr, true);
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MODEUNSUPP);
	/* the IWARP bit without our tag is not ours */
	acc->fce.vendor_exp_options = SMC_NEGO_VX_IWARP;
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MODEUNSUPP);
	acc->fce.vendor_exp_options = 0x12340000 | SMC_NEGO_VX_IWARP;
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MODEUNSUPP);
	/* the word checked last: limits are still reported first */
	acc->fce.max_conns = 15;
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MAXCONNERR);
}

static void nego_iwarp_client_accepted_test(struct kunit *test)
{
	struct smc_nego_local *l = local_iwarp(test);
	struct smc_clc_proposal *p = prop_of(test, l);
	struct smc_clc_accept_confirm *acc;
	struct smc_nego_result sr, cr;

	result_v2(&sr);
	sr.vx = SMC_NEGO_VX_IWARP;
	acc = accept_of(test, &sr, true);
	KUNIT_EXPECT_EQ(test, acc->fce.vendor_exp_options,
			SMC_NEGO_VX_TAG | SMC_NEGO_VX_IWARP);
	KUNIT_ASSERT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
	KUNIT_EXPECT_EQ(test, cr.version, SMC_V2);
	KUNIT_EXPECT_EQ(test, cr.release, SMC_CLC_RELEASE_1);
	KUNIT_EXPECT_EQ(test, cr.vx, SMC_NEGO_VX_IWARP);
	/* WIMM answered to an iWARP-only offer is dropped, not fatal */
	acc->fce.vendor_exp_options = SMC_NEGO_VX_TAG | SMC_NEGO_VX_ALL;
	KUNIT_ASSERT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
	KUNIT_EXPECT_EQ(test, cr.vx, SMC_NEGO_VX_IWARP);
	/* both offered, both accepted */
	l->vx = SMC_NEGO_VX_ALL;
	p = prop_of(test, l);
	KUNIT_ASSERT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
	KUNIT_EXPECT_EQ(test, cr.vx, SMC_NEGO_VX_ALL);
	/* both offered, iWARP accepted */
	acc->fce.vendor_exp_options = SMC_NEGO_VX_TAG | SMC_NEGO_VX_IWARP;
	KUNIT_ASSERT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
	KUNIT_EXPECT_EQ(test, cr.vx, SMC_NEGO_VX_IWARP);
	/* no first contact: the link group's kind was settled before */
	acc = accept_of(test, &sr, false);
	KUNIT_ASSERT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
	KUNIT_EXPECT_EQ(test, cr.version, SMC_V2);
	KUNIT_EXPECT_EQ(test, cr.vx, 0);
}

static void nego_iwarp_client_release0_test(struct kunit *test)
{
	struct smc_nego_local *l = local_iwarp(test);
	struct smc_clc_proposal *p = prop_of(test, l);
	struct smc_clc_accept_confirm *acc;
	struct smc_nego_result sr, cr;

	/* we proposed release 1, the server answers release 0 */
	result_v2(&sr);
	sr.release = SMC_CLC_RELEASE_0;
	acc = accept_of(test, &sr, true);
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MODEUNSUPP);
	/* a word in a release 0 FCE does not count */
	acc->fce.vendor_exp_options = SMC_NEGO_VX_TAG | SMC_NEGO_VX_IWARP;
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MODEUNSUPP);
	/* we proposed release 0 */
	l->release = SMC_CLC_RELEASE_0;
	p = prop_of(test, l);
	KUNIT_EXPECT_EQ(test, smc_nego_client(p, acc, l, &cr),
			SMC_CLC_DECL_MODEUNSUPP);
	/* a RoCE client takes the same accept */
	l->vx = SMC_NEGO_VX_WIMM;
	p = prop_of(test, l);
	KUNIT_ASSERT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
	KUNIT_EXPECT_EQ(test, cr.release, SMC_CLC_RELEASE_0);
	KUNIT_EXPECT_EQ(test, cr.vx, 0);
}

static void nego_iwarp_prop_test(struct kunit *test)
{
	static const u8 other_oui[SMC_CLC_VENDOR_OUI_LEN] = { 0, 0x1b, 0x21 };
	struct smc_nego_local *l = local_iwarp(test);
	struct smc_clc_proposal *p = prop_of(test, l), *rcvd = prop_new(test);
	u8 *buf = kunit_kzalloc(test, SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	KUNIT_EXPECT_TRUE(test, smc_nego_prop_iwarp(p));
	/* and so after the wire */
	prop_over_wire(test, l, p, buf, rcvd);
	KUNIT_EXPECT_TRUE(test, smc_nego_prop_iwarp(rcvd));
	l->vx = SMC_NEGO_VX_ALL;
	KUNIT_EXPECT_TRUE(test, smc_nego_prop_iwarp(prop_of(test, l)));

	/* RoCE clients */
	l->vx = SMC_NEGO_VX_WIMM;
	KUNIT_EXPECT_FALSE(test, smc_nego_prop_iwarp(prop_of(test, l)));
	l->vx = 0;
	KUNIT_EXPECT_FALSE(test, smc_nego_prop_iwarp(prop_of(test, l)));
	/* v1 only: no v2 extension, no vendor word */
	l = local_new(test, true, false);
	l->vx = SMC_NEGO_VX_IWARP;
	KUNIT_EXPECT_FALSE(test, smc_nego_prop_iwarp(prop_of(test, l)));

	/* the word without a v2 extension */
	p = prop_of(test, local_iwarp(test));
	p->has_v2_ext = false;
	KUNIT_EXPECT_FALSE(test, smc_nego_prop_iwarp(p));
	/* bit 2 under another OUI, even with our tag */
	p = prop_of(test, local_iwarp(test));
	memcpy(p->vendor_oui, other_oui, SMC_CLC_VENDOR_OUI_LEN);
	KUNIT_EXPECT_FALSE(test, smc_nego_prop_iwarp(p));
	/* bit 2 under our OUI without our tag, or with another one */
	p = prop_of(test, local_iwarp(test));
	put_unaligned_be32(SMC_NEGO_VX_IWARP, p->vendor_exp);
	KUNIT_EXPECT_FALSE(test, smc_nego_prop_iwarp(p));
	put_unaligned_be32(0x12340000 | SMC_NEGO_VX_IWARP, p->vendor_exp);
	KUNIT_EXPECT_FALSE(test, smc_nego_prop_iwarp(p));
	/* our tag and OUI, bit 2 not set but others */
	put_unaligned_be32(SMC_NEGO_VX_TAG | 0xfffd, p->vendor_exp);
	KUNIT_EXPECT_FALSE(test, smc_nego_prop_iwarp(p));
	put_unaligned_be32(SMC_NEGO_VX_TAG | SMC_NEGO_VX_IWARP, p->vendor_exp);
	KUNIT_EXPECT_TRUE(test, smc_nego_prop_iwarp(p));
}

/* A server cannot make a RoCE client iWARP: the client masks the word. */
static void nego_iwarp_not_imposed_test(struct kunit *test)
{
	struct smc_nego_local *l = local_new(test, false, true);
	struct smc_clc_proposal *p = prop_of(test, l);
	struct smc_clc_accept_confirm *acc;
	struct smc_nego_result sr, cr;

	result_v2(&sr);
	sr.vx = SMC_NEGO_VX_IWARP;
	acc = accept_of(test, &sr, true);
	KUNIT_EXPECT_EQ(test, acc->fce.vendor_exp_options,
			SMC_NEGO_VX_TAG | SMC_NEGO_VX_IWARP);
	/* a client offering nothing */
	KUNIT_ASSERT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
	KUNIT_EXPECT_EQ(test, cr.vx, 0);
	/* a client offering WIMM */
	l->vx = SMC_NEGO_VX_WIMM;
	p = prop_of(test, l);
	KUNIT_ASSERT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
	KUNIT_EXPECT_EQ(test, cr.vx, 0);
	acc->fce.vendor_exp_options = SMC_NEGO_VX_TAG | SMC_NEGO_VX_ALL;
	KUNIT_ASSERT_EQ(test, smc_nego_client(p, acc, l, &cr), 0);
	KUNIT_EXPECT_EQ(test, cr.vx, SMC_NEGO_VX_WIMM);
	/* and the confirm does not carry it back */
	smc_nego_fill_confirm(&cr, true, acc);
	KUNIT_EXPECT_EQ(test, acc->fce.vendor_exp_options,
			SMC_NEGO_VX_TAG | SMC_NEGO_VX_WIMM);
}

static struct kunit_case clc_nego_cases[] = {
	KUNIT_CASE(nego_proposal_both_test),
	KUNIT_CASE(nego_proposal_v2_only_test),
	KUNIT_CASE(nego_proposal_v1_only_test),
	KUNIT_CASE(nego_proposal_none_test),
	KUNIT_CASE(nego_proposal_no_prefix_test),
	KUNIT_CASE(nego_proposal_ipv6_test),
	KUNIT_CASE(nego_proposal_release_test),
	KUNIT_CASE(nego_proposal_invalid_test),
	KUNIT_CASE(nego_server_v2_preferred_test),
	KUNIT_CASE(nego_server_eid_intersection_test),
	KUNIT_CASE(nego_server_eid_mismatch_test),
	KUNIT_CASE(nego_server_diffprefix_test),
	KUNIT_CASE_PARAM(nego_server_prefix_test, prefix_case_gen_params),
	KUNIT_CASE(nego_server_no_device_test),
	KUNIT_CASE(nego_server_smcd_only_test),
	KUNIT_CASE(nego_server_nov2ext_test),
	KUNIT_CASE(nego_server_noueid_test),
	KUNIT_CASE(nego_server_peernosmc_test),
	KUNIT_CASE(nego_server_v1_header_test),
	KUNIT_CASE(nego_server_release_test),
	KUNIT_CASE(nego_server_maxconn_test),
	KUNIT_CASE(nego_server_maxlink_test),
	KUNIT_CASE(nego_fill_accept_test),
	KUNIT_CASE(nego_fill_confirm_test),
	KUNIT_CASE(nego_client_v2_test),
	KUNIT_CASE(nego_client_v1_test),
	KUNIT_CASE(nego_client_modeunsupp_test),
	KUNIT_CASE(nego_client_eid_test),
	KUNIT_CASE(nego_client_release_test),
	KUNIT_CASE(nego_client_maxconn_test),
	KUNIT_CASE(nego_client_maxlink_test),
	KUNIT_CASE(nego_client_not_first_contact_test),
	KUNIT_CASE(nego_confirm_test),
	KUNIT_CASE_PARAM(nego_handshake_test, hs_shape_gen_params),
	KUNIT_CASE(nego_vx_proposal_bytes_test),
	KUNIT_CASE_PARAM(nego_vx_handshake_test, vx_case_gen_params),
	KUNIT_CASE(nego_iwarp_server_both_test),
	KUNIT_CASE(nego_iwarp_server_client_iwarp_test),
	KUNIT_CASE(nego_iwarp_server_server_iwarp_test),
	KUNIT_CASE(nego_iwarp_server_release0_test),
	KUNIT_CASE(nego_iwarp_client_refused_test),
	KUNIT_CASE(nego_iwarp_client_accepted_test),
	KUNIT_CASE(nego_iwarp_client_release0_test),
	KUNIT_CASE(nego_iwarp_prop_test),
	KUNIT_CASE(nego_iwarp_not_imposed_test),
	{}
};

static struct kunit_suite clc_nego_suite = {
	.name = "smc_clc_nego",
	.test_cases = clc_nego_cases,
};

kunit_test_suite(clc_nego_suite);
