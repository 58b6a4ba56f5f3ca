// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the LLC wire codec.
 *
 * Golden byte vectors written down by hand from the message layouts,
 * encode/decode round trips for every type in every version it exists in,
 * and malformed messages that must be refused.  Decoders always get a heap
 * buffer of exactly the length they are told about, so KASAN catches any
 * read past the end.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "llc_wire.h"

/*
 * The golden vectors are written for a little-endian host: the v2 header
 * length and the ADD_LINK v2 rkey count are in the sender's CPU byte
 * order (as Linux 6.12 sends them), see host_vec().
 */
#ifdef __LITTLE_ENDIAN
#define LEN_LO	1
#define LEN_HI	2
#define NRK_LO	70
#define NRK_HI	71
#else
#define LEN_LO	2
#define LEN_HI	1
#define NRK_LO	71
#define NRK_HI	70
#endif

static const u8 gid_a[SMC_LLC_GID_LEN] = {
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55,
};

static const u8 gid_b[SMC_LLC_GID_LEN] = {
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
};

static u8 *exact_copy(struct kunit *test, const u8 *src, size_t len)
{
	u8 *buf = kunit_kzalloc(test, len ? len : 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	memcpy(buf, src, len);
	return buf;
}

/* Decode @len bytes of @src from an exactly sized heap copy. */
static int decode_exact(struct kunit *test, const u8 *src, size_t len,
			struct smc_llc_msg *m)
{
	return smc_llc_decode(exact_copy(test, src, len), len, m);
}

/* Encode @m and expect exactly @want. */
static void expect_encodes_to(struct kunit *test, const struct smc_llc_msg *m,
			      const u8 *want, size_t len)
{
	u8 *buf = kunit_kzalloc(test, SMC_LLC_V2_MAX_LEN, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	memset(buf, 0xa5, SMC_LLC_V2_MAX_LEN);
	KUNIT_ASSERT_EQ(test, smc_llc_encode(m, buf, len), (int)len);
	KUNIT_EXPECT_MEMEQ(test, buf, want, len);
	/* nothing written behind the message */
	KUNIT_EXPECT_EQ(test, buf[len], 0xa5);
}

/* ---------------------------------------------------------------------- */
/* golden vectors                                                          */

static const u8 golden_confirm_link[SMC_LLC_MSG_LEN] = {
	0x01, 44, 0x00, 0x83,			/* RESP | NO_RMBE_EYEC */
	0x02, 0x00, 0x00, 0xaa, 0xbb, 0xcc,	/* mac */
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55,
	0x00, 0x01, 0x23,			/* qpn */
	0x01,					/* link num */
	0x11, 0x22, 0x33, 0x44,			/* link uid */
	0x03, 0xff,				/* max links, max conns */
	0, 0, 0, 0, 0, 0, 0, 0,
};

static void golden_confirm_link_test(struct kunit *test)
{
	static const u8 mac[] = { 0x02, 0x00, 0x00, 0xaa, 0xbb, 0xcc };
	static const u8 uid[] = { 0x11, 0x22, 0x33, 0x44 };
	struct smc_llc_msg m;

	KUNIT_ASSERT_EQ(test, decode_exact(test, golden_confirm_link,
					   sizeof(golden_confirm_link), &m), 0);
	KUNIT_EXPECT_EQ(test, m.type, SMC_LLC_CONFIRM_LINK);
	KUNIT_EXPECT_EQ(test, m.version, SMC_LLC_VERSION_V1);
	KUNIT_EXPECT_EQ(test, m.length, 44);
	KUNIT_EXPECT_EQ(test, m.flags, 0x83);
	KUNIT_EXPECT_TRUE(test, smc_llc_is_resp(&m));
	KUNIT_EXPECT_MEMEQ(test, m.confirm_link.mac, mac, 6);
	KUNIT_EXPECT_MEMEQ(test, m.confirm_link.gid, gid_a, 16);
	KUNIT_EXPECT_EQ(test, m.confirm_link.qpn, 0x123);
	KUNIT_EXPECT_EQ(test, m.confirm_link.link_num, 1);
	KUNIT_EXPECT_MEMEQ(test, m.confirm_link.link_uid, uid, 4);
	KUNIT_EXPECT_EQ(test, m.confirm_link.max_links, 3);
	KUNIT_EXPECT_EQ(test, m.confirm_link.max_conns, 255);
	expect_encodes_to(test, &m, golden_confirm_link,
			  sizeof(golden_confirm_link));
}

/* v2 CONFIRM_LINK: same body, 16-bit length */
static u8 golden_confirm_link_v2[SMC_LLC_MSG_LEN] = {
	0x21, 44, 0, 0x03,
	0x02, 0x00, 0x00, 0xaa, 0xbb, 0xcc,
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55,
	0x00, 0x01, 0x23, 0x01, 0x11, 0x22, 0x33, 0x44, 0x03, 0xff,
	0, 0, 0, 0, 0, 0, 0, 0,
};

static void golden_confirm_link_v2_test(struct kunit *test)
{
	struct smc_llc_msg m;

	KUNIT_ASSERT_EQ(test, decode_exact(test, golden_confirm_link_v2,
					   SMC_LLC_MSG_LEN, &m), 0);
	KUNIT_EXPECT_EQ(test, m.type, SMC_LLC_CONFIRM_LINK);
	KUNIT_EXPECT_EQ(test, m.version, SMC_LLC_VERSION_V2);
	KUNIT_EXPECT_EQ(test, m.length, 44);
	KUNIT_EXPECT_FALSE(test, smc_llc_is_resp(&m));
	KUNIT_EXPECT_EQ(test, m.confirm_link.qpn, 0x123);
	expect_encodes_to(test, &m, golden_confirm_link_v2, SMC_LLC_MSG_LEN);
}

/* v1 ADD_LINK response rejecting the link */
static const u8 golden_add_link_rej[SMC_LLC_MSG_LEN] = {
	0x02, 44, 0x01, 0xc0,			/* NO_ALT_PATH, RESP | REJ */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02,	/* mac */
	0x00, 0x00,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x00, 0x07, 0x11,			/* qpn */
	0x02,					/* link num */
	0x03,					/* mtu 1024 */
	0xab, 0xcd, 0xef,			/* psn */
	0, 0, 0, 0, 0, 0, 0, 0,
};

static void golden_add_link_test(struct kunit *test)
{
	struct smc_llc_msg m;

	KUNIT_ASSERT_EQ(test, decode_exact(test, golden_add_link_rej,
					   SMC_LLC_MSG_LEN, &m), 0);
	KUNIT_EXPECT_EQ(test, m.type, SMC_LLC_ADD_LINK);
	KUNIT_EXPECT_EQ(test, m.flags,
			SMC_LLC_FLAG_RESP | SMC_LLC_FLAG_ADD_LNK_REJ);
	KUNIT_EXPECT_EQ(test, m.add_link.rej_rsn, SMC_LLC_REJ_RSN_NO_ALT_PATH);
	KUNIT_EXPECT_EQ(test, m.add_link.mac[5], 0x02);
	KUNIT_EXPECT_MEMEQ(test, m.add_link.gid, gid_b, 16);
	KUNIT_EXPECT_EQ(test, m.add_link.qpn, 0x711);
	KUNIT_EXPECT_EQ(test, m.add_link.link_num, 2);
	KUNIT_EXPECT_EQ(test, m.add_link.qp_mtu, 3);
	KUNIT_EXPECT_EQ(test, m.add_link.psn, 0xabcdef);
	KUNIT_EXPECT_FALSE(test, m.add_link.has_ext);
	expect_encodes_to(test, &m, golden_add_link_rej, SMC_LLC_MSG_LEN);
}

/* v2 ADD_LINK request with the extension and two rkey pairs */
static u8 golden_add_link_v2[104] = {
	0x22, 104, 0, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55,
	0x00, 0x00, 0x42, 0x03, 0x05, 0x00, 0x00, 0x01,	/* mtu 4096 */
	0, 0, 0, 0, 0, 0, 0, 0,
	0x80, 0x00,				/* v2 direct */
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0, 0, 0, 0, 0, 0, 0, 0,
	2, 0,					/* rkey count */
	0x00, 0x00, 0x10, 0x01, 0x00, 0x00, 0x20, 0x01,
	0x00, 0x00, 0x7f, 0x00, 0x00, 0x10, 0x00, 0x00,
	0x00, 0x00, 0x10, 0x02, 0x00, 0x00, 0x20, 0x02,
	0xff, 0xff, 0x88, 0x80, 0x12, 0x34, 0x50, 0x00,
};

static void golden_add_link_v2_test(struct kunit *test)
{
	struct smc_llc_rkey_pair rt;
	struct smc_llc_rkey_pair pairs[2];
	struct smc_llc_msg m;

	KUNIT_ASSERT_EQ(test, decode_exact(test, golden_add_link_v2,
					   sizeof(golden_add_link_v2), &m), 0);
	KUNIT_EXPECT_EQ(test, m.version, SMC_LLC_VERSION_V2);
	KUNIT_EXPECT_EQ(test, m.length, 104);
	KUNIT_EXPECT_EQ(test, m.add_link.qpn, 0x42);
	KUNIT_EXPECT_EQ(test, m.add_link.link_num, 3);
	KUNIT_EXPECT_EQ(test, m.add_link.qp_mtu, 5);
	KUNIT_EXPECT_EQ(test, m.add_link.psn, 1);
	KUNIT_EXPECT_EQ(test, m.add_link.rej_rsn, 0);
	KUNIT_EXPECT_TRUE(test, m.add_link.has_ext);
	KUNIT_EXPECT_TRUE(test, m.add_link.v2_direct);
	KUNIT_EXPECT_MEMEQ(test, m.add_link.target_gid, gid_b, 16);
	KUNIT_ASSERT_EQ(test, m.add_link.num_rkeys, 2);
	smc_llc_add_link_rkey_at(&m, 0, &pairs[0]);
	smc_llc_add_link_rkey_at(&m, 1, &pairs[1]);
	rt = pairs[0];
	KUNIT_EXPECT_EQ(test, rt.rkey, 0x1001);
	KUNIT_EXPECT_EQ(test, rt.rkey_new, 0x2001);
	KUNIT_EXPECT_EQ(test, rt.vaddr_new, 0x7f0000100000ULL);
	rt = pairs[1];
	KUNIT_EXPECT_EQ(test, rt.rkey, 0x1002);
	KUNIT_EXPECT_EQ(test, rt.vaddr_new, 0xffff888012345000ULL);
	m.add_link.rkeys = pairs;
	expect_encodes_to(test, &m, golden_add_link_v2,
			  sizeof(golden_add_link_v2));
}

static const u8 golden_delete_link[SMC_LLC_MSG_LEN] = {
	0x04, 44, 0x00, 0x60,			/* ALL | ORDERLY */
	0x00,					/* link num (all) */
	0x00, 0x01, 0x00, 0x00,			/* LOST_PATH */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static u8 golden_delete_link_v2_resp[SMC_LLC_MSG_LEN] = {
	0x24, 44, 0, 0x80,
	0x02,
	0x00, 0x10, 0x00, 0x00,			/* NOLNK */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static void golden_delete_link_test(struct kunit *test)
{
	struct smc_llc_msg m;

	KUNIT_ASSERT_EQ(test, decode_exact(test, golden_delete_link,
					   SMC_LLC_MSG_LEN, &m), 0);
	KUNIT_EXPECT_EQ(test, m.type, SMC_LLC_DELETE_LINK);
	KUNIT_EXPECT_EQ(test, m.flags, SMC_LLC_FLAG_DEL_LINK_ALL |
				       SMC_LLC_FLAG_DEL_LINK_ORDERLY);
	KUNIT_EXPECT_EQ(test, m.delete_link.link_num, 0);
	KUNIT_EXPECT_EQ(test, m.delete_link.reason, SMC_LLC_DEL_LOST_PATH);
	expect_encodes_to(test, &m, golden_delete_link, SMC_LLC_MSG_LEN);

	KUNIT_ASSERT_EQ(test, decode_exact(test, golden_delete_link_v2_resp,
					   SMC_LLC_MSG_LEN, &m), 0);
	KUNIT_EXPECT_EQ(test, m.version, SMC_LLC_VERSION_V2);
	KUNIT_EXPECT_TRUE(test, smc_llc_is_resp(&m));
	KUNIT_EXPECT_EQ(test, m.delete_link.link_num, 2);
	KUNIT_EXPECT_EQ(test, m.delete_link.reason, SMC_LLC_DEL_NOLNK);
	expect_encodes_to(test, &m, golden_delete_link_v2_resp,
			  SMC_LLC_MSG_LEN);
}

static const u8 golden_test_link[SMC_LLC_MSG_LEN] = {
	0x07, 44, 0x00, 0x80,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static void golden_test_link_test(struct kunit *test)
{
	struct smc_llc_msg m;
	int i;

	KUNIT_ASSERT_EQ(test, decode_exact(test, golden_test_link,
					   SMC_LLC_MSG_LEN, &m), 0);
	KUNIT_EXPECT_EQ(test, m.type, SMC_LLC_TEST_LINK);
	KUNIT_EXPECT_TRUE(test, smc_llc_is_resp(&m));
	for (i = 0; i < SMC_LLC_TEST_DATA_LEN; i++)
		KUNIT_EXPECT_EQ(test, m.test_link.user_data[i], i);
	expect_encodes_to(test, &m, golden_test_link, SMC_LLC_MSG_LEN);
}

static const u8 golden_confirm_rkey[SMC_LLC_MSG_LEN] = {
	0x06, 44, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x01, 0x11,		/* 2 more; rkey 0x111 */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x02, 0x22,		/* link 2, rkey 0x222 */
	0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x03, 0x33,		/* link 3, rkey 0x333 */
	0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00,
	0x00,
};

static void golden_confirm_rkey_test(struct kunit *test)
{
	struct smc_llc_msg m;
	int i;

	KUNIT_ASSERT_EQ(test, decode_exact(test, golden_confirm_rkey,
					   SMC_LLC_MSG_LEN, &m), 0);
	KUNIT_EXPECT_EQ(test, m.type, SMC_LLC_CONFIRM_RKEY);
	KUNIT_EXPECT_EQ(test, m.confirm_rkey.num_rkeys, 2);
	KUNIT_EXPECT_EQ(test, m.confirm_rkey.tok[0].link_id, 0);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, m.confirm_rkey.tok[i].rkey,
				0x111 * (i + 1));
		KUNIT_EXPECT_EQ(test, m.confirm_rkey.tok[i].vaddr,
				(u64)(i + 1) << 32);
	}
	KUNIT_EXPECT_EQ(test, m.confirm_rkey.tok[1].link_id, 2);
	KUNIT_EXPECT_EQ(test, m.confirm_rkey.tok[2].link_id, 3);
	expect_encodes_to(test, &m, golden_confirm_rkey, SMC_LLC_MSG_LEN);
}

/* CONFIRM_RKEY_CONT: the count, then three complete tokens */
static const u8 golden_rkey_cont[SMC_LLC_MSG_LEN] = {
	0x08, 44, 0x00, 0x00,
	0x05,					/* five still to come */
	0x01, 0x00, 0x00, 0x0a, 0xaa,		/* link 1 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x02, 0x00, 0x00, 0x0b, 0xbb,		/* link 2 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x03, 0x00, 0x00, 0x0c, 0xcc,		/* link 3 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
};

static void golden_rkey_cont_test(struct kunit *test)
{
	struct smc_llc_msg m;
	int i;

	KUNIT_ASSERT_EQ(test, decode_exact(test, golden_rkey_cont,
					   SMC_LLC_MSG_LEN, &m), 0);
	KUNIT_EXPECT_EQ(test, m.type, SMC_LLC_CONFIRM_RKEY_CONT);
	KUNIT_EXPECT_EQ(test, m.confirm_rkey.num_rkeys, 5);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, m.confirm_rkey.tok[i].link_id, i + 1);
		KUNIT_EXPECT_EQ(test, m.confirm_rkey.tok[i].rkey,
				0xaaa + 0x111 * i);
		KUNIT_EXPECT_EQ(test, m.confirm_rkey.tok[i].vaddr, i + 1);
	}
	expect_encodes_to(test, &m, golden_rkey_cont, SMC_LLC_MSG_LEN);
}

/* v2 DELETE_RKEY request with ten rkeys: longer than 44 bytes */
static u8 golden_delete_rkey_v2[48] = {
	0x29, 48, 0, 0x00,
	10, 0, 0, 0,
	0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5,
	0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0, 8, 0, 0, 0, 9, 0, 0, 0, 10,
};

static void golden_delete_rkey_v2_test(struct kunit *test)
{
	u32 rkeys[10];
	struct smc_llc_msg m;
	int i;

	KUNIT_ASSERT_EQ(test, decode_exact(test, golden_delete_rkey_v2,
					   sizeof(golden_delete_rkey_v2), &m),
			0);
	KUNIT_EXPECT_EQ(test, m.type, SMC_LLC_DELETE_RKEY);
	KUNIT_EXPECT_EQ(test, m.delete_rkey.num_rkeys, 10);
	KUNIT_ASSERT_EQ(test, m.delete_rkey.num_present, 10);
	for (i = 0; i < 10; i++) {
		rkeys[i] = smc_llc_del_rkey_at(&m, i);
		KUNIT_EXPECT_EQ(test, rkeys[i], i + 1);
	}
	m.delete_rkey.rkeys = rkeys;
	expect_encodes_to(test, &m, golden_delete_rkey_v2,
			  sizeof(golden_delete_rkey_v2));
}

/* v2 REQ_ADD_LINK offering two GIDs */
static u8 golden_req_add_link[60] = {
	0x25, 60, 0, 0x00,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	2, 0, 0, 0,
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
};

static void golden_req_add_link_test(struct kunit *test)
{
	const u8 (*gids)[SMC_LLC_GID_LEN];
	struct smc_llc_msg m;
	u8 *copy;

	copy = exact_copy(test, golden_req_add_link, 60);
	KUNIT_ASSERT_EQ(test, smc_llc_decode(copy, 60, &m), 0);
	KUNIT_EXPECT_EQ(test, m.type, SMC_LLC_REQ_ADD_LINK);
	KUNIT_EXPECT_EQ(test, m.req_add_link.gid_cnt, 2);
	KUNIT_ASSERT_EQ(test, m.req_add_link.num_present, 2);
	KUNIT_EXPECT_MEMEQ(test, smc_llc_req_gid_at(&m, 0), gid_a, 16);
	KUNIT_EXPECT_MEMEQ(test, smc_llc_req_gid_at(&m, 1), gid_b, 16);
	gids = (const u8 (*)[SMC_LLC_GID_LEN])smc_llc_req_gid_at(&m, 0);
	m.req_add_link.gids = gids;
	expect_encodes_to(test, &m, golden_req_add_link, 60);
}

/* ---------------------------------------------------------------------- */
/* round trips                                                             */

struct llc_shape {
	const char *name;
	u8 type;
	u8 version;
	unsigned int n;		/* list length or count */
	u8 flags;
	bool ext;		/* ADD_LINK v2 extension */
	unsigned int len;	/* expected wire length */
};

static const struct llc_shape llc_shapes[] = {
	{ "confirm_link_v1", SMC_LLC_CONFIRM_LINK, 0, 0, 0x03, 0, 44 },
	{ "confirm_link_v2", SMC_LLC_CONFIRM_LINK, 2, 0, 0x83, 0, 44 },
	{ "add_link_v1", SMC_LLC_ADD_LINK, 0, 0, 0x00, 0, 44 },
	{ "add_link_v2_noext", SMC_LLC_ADD_LINK, 2, 0, 0xc0, 0, 44 },
	{ "add_link_v2_0", SMC_LLC_ADD_LINK, 2, 0, 0x00, 1, 72 },
	{ "add_link_v2_1", SMC_LLC_ADD_LINK, 2, 1, 0x80, 1, 88 },
	{ "add_link_v2_255", SMC_LLC_ADD_LINK, 2, 255, 0, 1, 72 + 255 * 16 },
	{ "add_link_cont_0", SMC_LLC_ADD_LINK_CONT, 0, 0, 0x80, 0, 44 },
	{ "add_link_cont_1", SMC_LLC_ADD_LINK_CONT, 0, 1, 0x00, 0, 44 },
	{ "add_link_cont_2", SMC_LLC_ADD_LINK_CONT, 0, 2, 0x00, 0, 44 },
	{ "add_link_cont_200", SMC_LLC_ADD_LINK_CONT, 0, 200, 0, 0, 44 },
	{ "delete_link_v1", SMC_LLC_DELETE_LINK, 0, 0, 0x40, 0, 44 },
	{ "delete_link_v2", SMC_LLC_DELETE_LINK, 2, 0, 0xa0, 0, 44 },
	{ "req_add_link_0", SMC_LLC_REQ_ADD_LINK, 2, 0, 0x80, 0, 44 },
	{ "req_add_link_1", SMC_LLC_REQ_ADD_LINK, 2, 1, 0x00, 0, 44 },
	{ "req_add_link_8", SMC_LLC_REQ_ADD_LINK, 2, 8, 0x00, 0, 156 },
	{ "confirm_rkey_v1_0", SMC_LLC_CONFIRM_RKEY, 0, 0, 0x00, 0, 44 },
	{ "confirm_rkey_v1_2", SMC_LLC_CONFIRM_RKEY, 0, 2, 0xb0, 0, 44 },
	{ "confirm_rkey_v2_1", SMC_LLC_CONFIRM_RKEY, 2, 1, 0x80, 0, 44 },
	{ "rkey_cont_1", SMC_LLC_CONFIRM_RKEY_CONT, 0, 1, 0x00, 0, 44 },
	{ "rkey_cont_3", SMC_LLC_CONFIRM_RKEY_CONT, 0, 3, 0x00, 0, 44 },
	{ "rkey_cont_9", SMC_LLC_CONFIRM_RKEY_CONT, 0, 9, 0x80, 0, 44 },
	{ "test_link_v1", SMC_LLC_TEST_LINK, 0, 0, 0x00, 0, 44 },
	{ "test_link_v2", SMC_LLC_TEST_LINK, 2, 0, 0x80, 0, 44 },
	{ "delete_rkey_v1_1", SMC_LLC_DELETE_RKEY, 0, 1, 0x00, 0, 44 },
	{ "delete_rkey_v1_8", SMC_LLC_DELETE_RKEY, 0, 8, 0xa0, 0, 44 },
	{ "delete_rkey_v2_9", SMC_LLC_DELETE_RKEY, 2, 9, 0x00, 0, 44 },
	{ "delete_rkey_v2_10", SMC_LLC_DELETE_RKEY, 2, 10, 0x00, 0, 48 },
	{ "delete_rkey_v2_255", SMC_LLC_DELETE_RKEY, 2, 255, 0, 0, 1028 },
};

static void llc_shape_desc(const struct llc_shape *s, char *desc)
{
	strscpy(desc, s->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(llc_shape, llc_shapes, llc_shape_desc);

/* list storage for building messages */
struct llc_lists {
	struct smc_llc_rkey_pair pairs[SMC_LLC_ADD_LINK_V2_MAX_RKEYS];
	u32 rkeys[SMC_LLC_DEL_RKEY_V2_MAX];
	u8 gids[SMC_LLC_REQ_ADD_LINK_MAX_GIDS][SMC_LLC_GID_LEN];
};

static void fill(u8 *p, size_t n, u8 seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = seed + 13 * i;
}

static void build_msg(const struct llc_shape *s, struct smc_llc_msg *m,
		      struct llc_lists *l)
{
	unsigned int i;

	memset(m, 0, sizeof(*m));
	m->type = s->type;
	m->version = s->version;
	m->flags = s->flags;
	for (i = 0; i < SMC_LLC_ADD_LINK_V2_MAX_RKEYS; i++) {
		l->pairs[i].rkey = 0x10000 + i;
		l->pairs[i].rkey_new = 0xf0000000 + i;
		l->pairs[i].vaddr_new = 0xffff888000000000ULL + i * 0x1000;
		l->rkeys[i] = 0xabc00000 + i;
	}
	for (i = 0; i < SMC_LLC_REQ_ADD_LINK_MAX_GIDS; i++)
		fill(l->gids[i], SMC_LLC_GID_LEN, 0x30 + i);

	switch (s->type) {
	case SMC_LLC_CONFIRM_LINK:
		fill(m->confirm_link.mac, SMC_LLC_MAC_LEN, 1);
		fill(m->confirm_link.gid, SMC_LLC_GID_LEN, 2);
		m->confirm_link.qpn = 0xfedcba;
		m->confirm_link.link_num = 7;
		fill(m->confirm_link.link_uid, SMC_LLC_LINK_UID_LEN, 3);
		m->confirm_link.max_links = 2;
		m->confirm_link.max_conns = 200;
		break;
	case SMC_LLC_ADD_LINK:
		fill(m->add_link.mac, SMC_LLC_MAC_LEN, 4);
		fill(m->add_link.gid, SMC_LLC_GID_LEN, 5);
		m->add_link.qpn = 0xffffff;
		m->add_link.link_num = 255;
		m->add_link.qp_mtu = 0xf;
		m->add_link.psn = 0x800001;
		m->add_link.rej_rsn = s->version ? 0 : 0xf;
		m->add_link.has_ext = s->ext;
		m->add_link.v2_direct = s->n & 1;
		fill(m->add_link.target_gid, SMC_LLC_GID_LEN, 6);
		m->add_link.num_rkeys = s->n;
		m->add_link.rkeys = l->pairs;
		break;
	case SMC_LLC_ADD_LINK_CONT:
		m->add_link_cont.link_num = 9;
		m->add_link_cont.num_rkeys = s->n;
		m->add_link_cont.rt[0] = l->pairs[0];
		m->add_link_cont.rt[1] = l->pairs[1];
		break;
	case SMC_LLC_DELETE_LINK:
		m->delete_link.link_num = 1;
		m->delete_link.reason = SMC_LLC_DEL_PROT_VIOL;
		break;
	case SMC_LLC_CONFIRM_RKEY:
	case SMC_LLC_CONFIRM_RKEY_CONT:
		m->confirm_rkey.num_rkeys = s->n;
		for (i = 0; i < SMC_LLC_RKEY_CONT_MAX; i++) {
			/* CONFIRM_RKEY has no link id in token 0 */
			m->confirm_rkey.tok[i].link_id =
				(i || s->type == SMC_LLC_CONFIRM_RKEY_CONT) ?
				i + 1 : 0;
			m->confirm_rkey.tok[i].rkey = 0x5000 + i;
			m->confirm_rkey.tok[i].vaddr = 0x123456789abcdef0ULL + i;
		}
		break;
	case SMC_LLC_DELETE_RKEY:
		m->delete_rkey.num_rkeys = s->n;
		m->delete_rkey.err_mask = 0x41;
		m->delete_rkey.rkeys = l->rkeys;
		break;
	case SMC_LLC_TEST_LINK:
		fill(m->test_link.user_data, SMC_LLC_TEST_DATA_LEN, 7);
		break;
	case SMC_LLC_REQ_ADD_LINK:
		m->req_add_link.gid_cnt = s->n;
		m->req_add_link.gids = (const u8 (*)[SMC_LLC_GID_LEN])l->gids;
		break;
	}
}

/* Tokens/pairs a type carries for count @n. */
static unsigned int present_tokens(u8 type, unsigned int n)
{
	if (type == SMC_LLC_CONFIRM_RKEY)
		return n + 1;
	return min_t(unsigned int, n, SMC_LLC_RKEY_CONT_MAX);
}

static void expect_same(struct kunit *test, const struct smc_llc_msg *a,
			const struct smc_llc_msg *d)
{
	unsigned int i, n;

	KUNIT_EXPECT_EQ(test, a->type, d->type);
	KUNIT_EXPECT_EQ(test, a->version, d->version);
	KUNIT_EXPECT_EQ(test, a->flags, d->flags);
	switch (a->type) {
	case SMC_LLC_CONFIRM_LINK:
		KUNIT_EXPECT_MEMEQ(test, &a->confirm_link, &d->confirm_link,
				   sizeof(a->confirm_link));
		break;
	case SMC_LLC_ADD_LINK:
		KUNIT_EXPECT_MEMEQ(test, a->add_link.mac, d->add_link.mac, 6);
		KUNIT_EXPECT_MEMEQ(test, a->add_link.gid, d->add_link.gid, 16);
		KUNIT_EXPECT_EQ(test, a->add_link.qpn, d->add_link.qpn);
		KUNIT_EXPECT_EQ(test, a->add_link.link_num,
				d->add_link.link_num);
		KUNIT_EXPECT_EQ(test, a->add_link.qp_mtu, d->add_link.qp_mtu);
		KUNIT_EXPECT_EQ(test, a->add_link.psn, d->add_link.psn);
		KUNIT_EXPECT_EQ(test, a->add_link.rej_rsn, d->add_link.rej_rsn);
		KUNIT_EXPECT_EQ(test, a->add_link.has_ext, d->add_link.has_ext);
		if (!a->add_link.has_ext)
			break;
		KUNIT_EXPECT_EQ(test, a->add_link.v2_direct,
				d->add_link.v2_direct);
		KUNIT_EXPECT_MEMEQ(test, a->add_link.target_gid,
				   d->add_link.target_gid, 16);
		KUNIT_ASSERT_EQ(test, a->add_link.num_rkeys,
				d->add_link.num_rkeys);
		for (i = 0; i < a->add_link.num_rkeys; i++) {
			struct smc_llc_rkey_pair rt;

			smc_llc_add_link_rkey_at(d, i, &rt);
			KUNIT_EXPECT_EQ(test, rt.rkey, a->add_link.rkeys[i].rkey);
			KUNIT_EXPECT_EQ(test, rt.rkey_new,
					a->add_link.rkeys[i].rkey_new);
			KUNIT_EXPECT_EQ(test, rt.vaddr_new,
					a->add_link.rkeys[i].vaddr_new);
		}
		break;
	case SMC_LLC_ADD_LINK_CONT:
		KUNIT_EXPECT_EQ(test, a->add_link_cont.link_num,
				d->add_link_cont.link_num);
		KUNIT_EXPECT_EQ(test, a->add_link_cont.num_rkeys,
				d->add_link_cont.num_rkeys);
		n = min_t(unsigned int, a->add_link_cont.num_rkeys, 2);
		KUNIT_EXPECT_EQ(test, d->add_link_cont.num_present, n);
		for (i = 0; i < n; i++)
			KUNIT_EXPECT_MEMEQ(test, &a->add_link_cont.rt[i],
					   &d->add_link_cont.rt[i],
					   sizeof(a->add_link_cont.rt[i]));
		break;
	case SMC_LLC_DELETE_LINK:
		KUNIT_EXPECT_EQ(test, a->delete_link.link_num,
				d->delete_link.link_num);
		KUNIT_EXPECT_EQ(test, a->delete_link.reason,
				d->delete_link.reason);
		break;
	case SMC_LLC_CONFIRM_RKEY:
	case SMC_LLC_CONFIRM_RKEY_CONT:
		KUNIT_EXPECT_EQ(test, a->confirm_rkey.num_rkeys,
				d->confirm_rkey.num_rkeys);
		n = present_tokens(a->type, a->confirm_rkey.num_rkeys);
		for (i = 0; i < n; i++) {
			KUNIT_EXPECT_EQ(test, a->confirm_rkey.tok[i].link_id,
					d->confirm_rkey.tok[i].link_id);
			KUNIT_EXPECT_EQ(test, a->confirm_rkey.tok[i].rkey,
					d->confirm_rkey.tok[i].rkey);
			KUNIT_EXPECT_EQ(test, a->confirm_rkey.tok[i].vaddr,
					d->confirm_rkey.tok[i].vaddr);
		}
		break;
	case SMC_LLC_DELETE_RKEY:
		KUNIT_EXPECT_EQ(test, a->delete_rkey.num_rkeys,
				d->delete_rkey.num_rkeys);
		KUNIT_EXPECT_EQ(test, a->delete_rkey.err_mask,
				d->delete_rkey.err_mask);
		KUNIT_ASSERT_EQ(test, d->delete_rkey.num_present,
				a->delete_rkey.num_rkeys);
		for (i = 0; i < a->delete_rkey.num_rkeys; i++)
			KUNIT_EXPECT_EQ(test, smc_llc_del_rkey_at(d, i),
					a->delete_rkey.rkeys[i]);
		break;
	case SMC_LLC_TEST_LINK:
		KUNIT_EXPECT_MEMEQ(test, a->test_link.user_data,
				   d->test_link.user_data, 16);
		break;
	case SMC_LLC_REQ_ADD_LINK:
		KUNIT_EXPECT_EQ(test, a->req_add_link.gid_cnt,
				d->req_add_link.gid_cnt);
		KUNIT_ASSERT_EQ(test, d->req_add_link.num_present,
				a->req_add_link.gid_cnt);
		for (i = 0; i < a->req_add_link.gid_cnt; i++)
			KUNIT_EXPECT_MEMEQ(test, smc_llc_req_gid_at(d, i),
					   a->req_add_link.gids[i], 16);
		break;
	}
}

/* Encode @s into an exactly sized heap buffer. */
static u8 *encode_shape(struct kunit *test, const struct llc_shape *s,
			struct smc_llc_msg *m, struct llc_lists *l)
{
	u8 *buf = kunit_kzalloc(test, s->len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	build_msg(s, m, l);
	KUNIT_ASSERT_EQ(test, smc_llc_encode(m, buf, s->len), (int)s->len);
	return buf;
}

static void roundtrip_test(struct kunit *test)
{
	const struct llc_shape *s = test->param_value;
	struct llc_lists *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	struct smc_llc_msg m, d;
	u8 *buf;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, l);
	buf = encode_shape(test, s, &m, l);
	KUNIT_EXPECT_EQ(test, buf[0], s->version << 4 | s->type);
	KUNIT_EXPECT_EQ(test, buf[3], s->flags);
	KUNIT_ASSERT_EQ(test, smc_llc_decode(buf, s->len, &d), 0);
	KUNIT_EXPECT_EQ(test, d.length, s->len);
	KUNIT_EXPECT_PTR_EQ(test, d.wire, (const u8 *)buf);
	expect_same(test, &m, &d);
	KUNIT_EXPECT_EQ(test, smc_llc_validate(buf, s->len), 0);
	KUNIT_EXPECT_TRUE(test, smc_llc_is_llc(buf[0]));
	/* a receive buffer larger than the message is fine */
	if (s->len == SMC_LLC_MSG_LEN) {
		u8 *big = kunit_kzalloc(test, 64, GFP_KERNEL);

		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, big);
		memcpy(big, buf, s->len);
		KUNIT_EXPECT_EQ(test, smc_llc_validate(big, 64), 0);
	}
}

/* Every cut short of the full message is -EINVAL, never a crash. */
static void truncated_test(struct kunit *test)
{
	const struct llc_shape *s = test->param_value;
	struct llc_lists *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	struct smc_llc_msg m, d;
	unsigned int cut;
	u8 *buf;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, l);
	buf = encode_shape(test, s, &m, l);
	for (cut = 0; cut < s->len; cut++)
		KUNIT_EXPECT_EQ_MSG(test, decode_exact(test, buf, cut, &d),
				    -EINVAL, "cut at %u", cut);
}

/* The encoder refuses every capacity below the message length. */
static void nospace_test(struct kunit *test)
{
	const struct llc_shape *s = test->param_value;
	struct llc_lists *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	struct smc_llc_msg m;
	unsigned int cap;
	u8 *buf;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, l);
	buf = encode_shape(test, s, &m, l);
	for (cap = 0; cap < s->len; cap++)
		KUNIT_EXPECT_EQ(test, smc_llc_encode(&m, buf, cap), -ENOSPC);
}

/*
 * Change every byte of the message to a few values: the decoder may
 * accept or refuse, but must stay inside the buffer (KASAN) and, when it
 * accepts, report a length that fits.
 */
static void mutate_test(struct kunit *test)
{
	static const u8 values[] = { 0x00, 0x01, 0x2c, 0x7f, 0x80, 0xff };
	const struct llc_shape *s = test->param_value;
	struct llc_lists *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	struct smc_llc_msg m, d;
	unsigned int pos, v;
	u8 *buf, saved;
	int rc;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, l);
	buf = encode_shape(test, s, &m, l);
	for (pos = 0; pos < min_t(unsigned int, s->len, 80); pos++) {
		saved = buf[pos];
		for (v = 0; v < ARRAY_SIZE(values); v++) {
			buf[pos] = values[v];
			rc = smc_llc_decode(buf, s->len, &d);
			KUNIT_EXPECT_LE(test, rc, 0);
			if (!rc)
				KUNIT_EXPECT_LE(test, d.length, s->len);
		}
		buf[pos] = saved;
	}
}

/* ---------------------------------------------------------------------- */
/* malformed messages                                                      */

struct llc_bad {
	const char *name;
	const u8 *base;		/* a valid message to start from */
	unsigned int base_len;
	unsigned int len;	/* bytes handed to the decoder */
	int pos;		/* byte to patch, -1 for none */
	u8 val;
	int pos2;		/* second byte to patch, -1 for none */
	u8 val2;
	int err;
};

static const struct llc_bad llc_bads[] = {
	/* types and versions */
	{ "type_0", golden_confirm_link, 44, 44, 0, 0x00, -1, 0, -EOPNOTSUPP },
	{ "type_a", golden_confirm_link, 44, 44, 0, 0x0a, -1, 0, -EOPNOTSUPP },
	{ "type_f", golden_confirm_link, 44, 44, 0, 0x0f, -1, 0, -EOPNOTSUPP },
	{ "type_v2_0", golden_confirm_link_v2, 44, 44, 0, 0x20, -1, 0, -EOPNOTSUPP },
	{ "type_v2_e", golden_confirm_link_v2, 44, 44, 0, 0x2e, -1, 0, -EOPNOTSUPP },
	{ "version_1", golden_confirm_link, 44, 44, 0, 0x11, -1, 0, -EPROTO },
	{ "version_3", golden_confirm_link_v2, 44, 44, 0, 0x31, -1, 0, -EPROTO },
	{ "cdc_type", golden_confirm_link, 44, 44, 0, 0xfe, -1, 0, -EPROTO },
	{ "req_add_link_v1", golden_confirm_link, 44, 44, 0, 0x05, -1, 0, -EPROTO },
	{ "add_link_cont_v2", golden_confirm_link_v2, 44, 44, 0, 0x23, -1, 0, -EPROTO },
	{ "rkey_cont_v2", golden_confirm_link_v2, 44, 44, 0, 0x28, -1, 0, -EPROTO },
	/* v1 length byte */
	{ "v1_len_0", golden_confirm_link, 44, 44, 1, 0, -1, 0, -EPROTO },
	{ "v1_len_43", golden_confirm_link, 44, 44, 1, 43, -1, 0, -EPROTO },
	{ "v1_len_45", golden_confirm_link, 44, 44, 1, 45, -1, 0, -EPROTO },
	{ "v1_len_255", golden_test_link, 44, 44, 1, 255, -1, 0, -EPROTO },
	/* v2 length field */
	{ "v2_len_0", golden_confirm_link_v2, 44, 44, LEN_LO, 0, -1, 0, -EPROTO },
	{ "v2_len_43", golden_confirm_link_v2, 44, 44, LEN_LO, 43, -1, 0, -EPROTO },
	{ "v2_len_45_buf", golden_confirm_link_v2, 44, 44, LEN_LO, 45, -1, 0, -EINVAL },
	{ "v2_len_8193", golden_confirm_link_v2, 44, 44, LEN_LO, 0x01, LEN_HI, 0x20, -EPROTO },
	{ "v2_len_ffff", golden_confirm_link_v2, 44, 44, LEN_LO, 0xff, LEN_HI, 0xff, -EPROTO },
	{ "v2_len_big_endian", golden_confirm_link_v2, 44, 44, LEN_LO, 0, LEN_HI, 44, -EPROTO },
	{ "v2_confirm_link_48", golden_confirm_link_v2, 44, 48, LEN_LO, 48, -1, 0, -EPROTO },
	{ "v2_add_link_71", golden_add_link_v2, 104, 104, LEN_LO, 71, -1, 0, -EPROTO },
	{ "v2_add_link_45", golden_add_link_v2, 104, 104, LEN_LO, 45, -1, 0, -EPROTO },
	{ "v2_add_link_88", golden_add_link_v2, 104, 104, LEN_LO, 88, -1, 0, -EPROTO },
	{ "v2_add_link_105", golden_add_link_v2, 104, 105, LEN_LO, 105, -1, 0, -EPROTO },
	{ "v2_add_link_len_short", golden_add_link_v2, 104, 103, -1, 0, -1, 0, -EINVAL },
	/* counts */
	{ "add_link_rkeys_3", golden_add_link_v2, 104, 104, NRK_LO, 3, -1, 0, -EPROTO },
	{ "add_link_rkeys_1", golden_add_link_v2, 104, 104, NRK_LO, 1, -1, 0, -EPROTO },
	{ "add_link_rkeys_256", golden_add_link_v2, 104, 104, NRK_LO, 0, NRK_HI, 1, -EPROTO },
	{ "confirm_rkey_3", golden_confirm_rkey, 44, 44, 4, 3, -1, 0, -EPROTO },
	{ "confirm_rkey_255", golden_confirm_rkey, 44, 44, 4, 255, -1, 0, -EPROTO },
	{ "delete_rkey_v1_9", golden_test_link, 44, 44, 0, 0x09, 4, 9, -EPROTO },
	{ "delete_rkey_v1_255", golden_test_link, 44, 44, 0, 0x09, 4, 255, -EPROTO },
	{ "delete_rkey_v2_11", golden_delete_rkey_v2, 48, 48, 4, 11, -1, 0, -EPROTO },
	{ "delete_rkey_v2_9", golden_delete_rkey_v2, 48, 48, 4, 9, -1, 0, -EPROTO },
	{ "delete_rkey_v2_req_cut", golden_delete_rkey_v2, 48, 48, LEN_LO, 44, -1, 0, -EPROTO },
	{ "req_add_link_9", golden_req_add_link, 60, 60, 24, 9, -1, 0, -EPROTO },
	{ "req_add_link_3", golden_req_add_link, 60, 60, 24, 3, -1, 0, -EPROTO },
	{ "req_add_link_1", golden_req_add_link, 60, 60, 24, 1, -1, 0, -EPROTO },
	{ "req_add_link_cut", golden_req_add_link, 60, 60, LEN_LO, 44, -1, 0, -EPROTO },
};

static void llc_bad_desc(const struct llc_bad *b, char *desc)
{
	strscpy(desc, b->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(llc_bad, llc_bads, llc_bad_desc);

static void malformed_test(struct kunit *test)
{
	const struct llc_bad *b = test->param_value;
	struct smc_llc_msg m;
	u8 *buf = kunit_kzalloc(test, b->len ? b->len : 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	memcpy(buf, b->base, min(b->len, b->base_len));
	/* untouched, the base message must be fine */
	if (b->len >= b->base_len)
		KUNIT_ASSERT_EQ(test, smc_llc_decode(buf, b->len, &m), 0);
	if (b->pos >= 0)
		buf[b->pos] = b->val;
	if (b->pos2 >= 0)
		buf[b->pos2] = b->val2;
	KUNIT_EXPECT_EQ(test, smc_llc_decode(buf, b->len, &m), b->err);
	KUNIT_EXPECT_EQ(test, smc_llc_validate(buf, b->len), b->err);
}

/* v2 responses may echo the counts but cut the list off. */
static void v2_response_lists_test(struct kunit *test)
{
	struct smc_llc_msg m;
	u8 *buf;

	buf = exact_copy(test, golden_delete_rkey_v2, 48);
	buf[LEN_LO] = 44;
	buf[3] = SMC_LLC_FLAG_RESP | SMC_LLC_FLAG_RKEY_NEG;
	buf[5] = 2;			/* two rkeys were unknown */
	KUNIT_ASSERT_EQ(test, smc_llc_decode(buf, 44, &m), 0);
	KUNIT_EXPECT_EQ(test, m.delete_rkey.num_rkeys, 10);
	KUNIT_EXPECT_EQ(test, m.delete_rkey.err_mask, 2);
	KUNIT_EXPECT_EQ(test, m.delete_rkey.num_present, 9);
	KUNIT_EXPECT_EQ(test, smc_llc_del_rkey_at(&m, 8), 9);

	buf = exact_copy(test, golden_req_add_link, 60);
	buf[LEN_LO] = 44;
	buf[3] = SMC_LLC_FLAG_RESP;
	KUNIT_ASSERT_EQ(test, smc_llc_decode(buf, 44, &m), 0);
	KUNIT_EXPECT_EQ(test, m.req_add_link.gid_cnt, 2);
	KUNIT_EXPECT_EQ(test, m.req_add_link.num_present, 1);

	/* a response announcing a longer list must still carry all of it */
	buf = exact_copy(test, golden_req_add_link, 60);
	buf[3] = SMC_LLC_FLAG_RESP;
	buf[24] = 3;
	KUNIT_EXPECT_EQ(test, smc_llc_decode(buf, 60, &m), -EPROTO);
}

/* v1 ADD_LINK: the reject reason nibble; v2 has no room for it. */
static void add_link_rej_rsn_test(struct kunit *test)
{
	struct smc_llc_msg m;
	u8 *buf;

	buf = exact_copy(test, golden_add_link_rej, 44);
	buf[2] = 0xf5;			/* reserved high nibble set */
	buf[32] = 0xa4;			/* reserved high nibble of mtu */
	KUNIT_ASSERT_EQ(test, smc_llc_decode(buf, 44, &m), 0);
	KUNIT_EXPECT_EQ(test, m.add_link.rej_rsn, 5);
	KUNIT_EXPECT_EQ(test, m.add_link.qp_mtu, 4);

	/* byte 2 of other v1 types is reserved */
	buf = exact_copy(test, golden_test_link, 44);
	buf[2] = 0xff;
	KUNIT_EXPECT_EQ(test, smc_llc_decode(buf, 44, &m), 0);

	/* v2 ADD_LINK without extension (e.g. a reject) is 44 bytes */
	buf = exact_copy(test, golden_add_link_v2, 104);
	buf[LEN_LO] = 44;
	buf[LEN_HI] = 0;
	buf[3] = SMC_LLC_FLAG_RESP | SMC_LLC_FLAG_ADD_LNK_REJ;
	KUNIT_ASSERT_EQ(test, smc_llc_decode(buf, 104, &m), 0);
	KUNIT_EXPECT_EQ(test, m.length, 44);
	KUNIT_EXPECT_FALSE(test, m.add_link.has_ext);
	KUNIT_EXPECT_EQ(test, m.add_link.rej_rsn, 0);
}

static void encode_invalid_test(struct kunit *test)
{
	struct smc_llc_rkey_pair pair = {};
	u8 *buf = kunit_kzalloc(test, SMC_LLC_V2_MAX_LEN, GFP_KERNEL);
	u32 rkeys[9] = {};
	struct smc_llc_msg m;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
#define ENC(...) ({ memset(&m, 0, sizeof(m)); __VA_ARGS__; \
		    smc_llc_encode(&m, buf, SMC_LLC_V2_MAX_LEN); })
	KUNIT_EXPECT_EQ(test, ENC(m.type = 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ENC(m.type = 10), -EINVAL);
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_TEST_LINK; m.version = 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_REQ_ADD_LINK), -EINVAL);
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_ADD_LINK_CONT;
				  m.version = 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_CONFIRM_RKEY_CONT;
				  m.version = 2), -EINVAL);
	/* ADD_LINK */
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_ADD_LINK;
				  m.add_link.has_ext = true), -EINVAL);
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_ADD_LINK; m.version = 2;
				  m.add_link.rej_rsn = 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_ADD_LINK;
				  m.add_link.rej_rsn = 16), -EINVAL);
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_ADD_LINK;
				  m.add_link.qp_mtu = 16), -EINVAL);
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_ADD_LINK; m.version = 2;
				  m.add_link.has_ext = true;
				  m.add_link.num_rkeys = 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_ADD_LINK; m.version = 2;
				  m.add_link.has_ext = true;
				  m.add_link.rkeys = &pair;
				  m.add_link.num_rkeys = 256), -EINVAL);
	/* counts */
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_CONFIRM_RKEY;
				  m.confirm_rkey.num_rkeys = 3), -EINVAL);
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_DELETE_RKEY;
				  m.delete_rkey.rkeys = rkeys;
				  m.delete_rkey.num_rkeys = 9), -EINVAL);
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_DELETE_RKEY;
				  m.delete_rkey.num_rkeys = 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_REQ_ADD_LINK; m.version = 2;
				  m.req_add_link.gid_cnt = 9;
				  m.req_add_link.gids = (const void *)buf),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_REQ_ADD_LINK; m.version = 2;
				  m.req_add_link.gid_cnt = 1), -EINVAL);
	/* and the boundaries that are fine */
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_DELETE_RKEY;
				  m.delete_rkey.rkeys = rkeys;
				  m.delete_rkey.num_rkeys = 8), 44);
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_DELETE_RKEY; m.version = 2;
				  m.delete_rkey.rkeys = rkeys;
				  m.delete_rkey.num_rkeys = 9), 44);
	KUNIT_EXPECT_EQ(test, ENC(m.type = SMC_LLC_ADD_LINK;
				  m.add_link.rej_rsn = 15;
				  m.add_link.qp_mtu = 15), 44);
#undef ENC
}

static void misc_test(struct kunit *test)
{
	unsigned int b, n = 0;

	for (b = 0; b < 256; b++)
		n += smc_llc_is_llc(b);
	/* 9 v1 types without REQ_ADD_LINK, 9 v2 types without the CONTs */
	KUNIT_EXPECT_EQ(test, n, 8 + 7);
	KUNIT_EXPECT_FALSE(test, smc_llc_is_llc(0xfe));
	KUNIT_EXPECT_TRUE(test, smc_llc_is_llc(SMC_LLC_DELETE_RKEY_V2));
	KUNIT_EXPECT_FALSE(test, smc_llc_is_llc(SMC_LLC_REQ_ADD_LINK));
	KUNIT_EXPECT_EQ(test, SMC_LLC_REQ_ADD_LINK_V2, 0x25);
	KUNIT_EXPECT_EQ(test, SMC_LLC_TEST_LINK_V2, 0x27);
	KUNIT_EXPECT_STREQ(test, smc_llc_type_str(SMC_LLC_CONFIRM_RKEY_CONT),
			   "CONFIRM_RKEY_CONT");
	KUNIT_EXPECT_STREQ(test, smc_llc_type_str(SMC_LLC_TEST_LINK),
			   "TEST_LINK");
	KUNIT_EXPECT_STREQ(test, smc_llc_type_str(0x21), "unknown");
}

static struct kunit_case llc_wire_cases[] = {
	KUNIT_CASE(golden_confirm_link_test),
	KUNIT_CASE(golden_confirm_link_v2_test),
	KUNIT_CASE(golden_add_link_test),
	KUNIT_CASE(golden_add_link_v2_test),
	KUNIT_CASE(golden_delete_link_test),
	KUNIT_CASE(golden_test_link_test),
	KUNIT_CASE(golden_confirm_rkey_test),
	KUNIT_CASE(golden_rkey_cont_test),
	KUNIT_CASE(golden_delete_rkey_v2_test),
	KUNIT_CASE(golden_req_add_link_test),
	KUNIT_CASE_PARAM(roundtrip_test, llc_shape_gen_params),
	KUNIT_CASE_PARAM(truncated_test, llc_shape_gen_params),
	KUNIT_CASE_PARAM(nospace_test, llc_shape_gen_params),
	KUNIT_CASE_PARAM(mutate_test, llc_shape_gen_params),
	KUNIT_CASE_PARAM(malformed_test, llc_bad_gen_params),
	KUNIT_CASE(v2_response_lists_test),
	KUNIT_CASE(add_link_rej_rsn_test),
	KUNIT_CASE(encode_invalid_test),
	KUNIT_CASE(misc_test),
	{}
};

/*
 * The v2 vectors above are spelled for a little-endian host; on a
 * big-endian one swap their CPU-order fields once before the tests run.
 */
static int llc_wire_suite_init(struct kunit_suite *suite)
{
	static u8 * const v2[] = {
		golden_confirm_link_v2, golden_add_link_v2,
		golden_delete_link_v2_resp, golden_delete_rkey_v2,
		golden_req_add_link,
	};
	unsigned int i;

	if (!IS_ENABLED(CONFIG_CPU_BIG_ENDIAN))
		return 0;
	for (i = 0; i < ARRAY_SIZE(v2); i++)
		swap(v2[i][1], v2[i][2]);
	swap(golden_add_link_v2[70], golden_add_link_v2[71]);
	return 0;
}

static struct kunit_suite llc_wire_suite = {
	.name = "smc_llc_wire",
	.suite_init = llc_wire_suite_init,
	.test_cases = llc_wire_cases,
};

kunit_test_suite(llc_wire_suite);
