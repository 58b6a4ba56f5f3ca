// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the PNET ID codec: smc_pnet_normalise(),
 * smc_pnet_match() and smc_pnet_is_set().
 *
 * Inputs live in heap buffers of exactly their size (with the NUL), so a
 * read past the end shows up under KASAN.  A refused input must leave the
 * output alone.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "pnet.h"

struct pnet_norm_case {
	const char *desc;
	const char *in;
	const char *out;	/* the stored ID without padding, NULL if refused */
};

static const struct pnet_norm_case pnet_norm_cases[] = {
	{ "upper case", "NET1", "NET1" },
	{ "lower case folded", "net1", "NET1" },
	{ "mixed case", "NeT1a", "NET1A" },
	{ "one character", "x", "X" },
	{ "digits only", "0123", "0123" },
	{ "exactly 16", "ABCDEFGHIJKLMNOP", "ABCDEFGHIJKLMNOP" },
	{ "16 with blanks around", "  abcdefghijklmnop \t", "ABCDEFGHIJKLMNOP" },
	{ "leading blanks", "   NET", "NET" },
	{ "trailing newline", "NET\n", "NET" },
	{ "17 characters", "ABCDEFGHIJKLMNOPQ", NULL },
	{ "empty", "", NULL },
	{ "only blanks", " \t ", NULL },
	{ "blank inside", "NET 1", NULL },
	{ "dash", "NET-1", NULL },
	{ "underscore", "NET_1", NULL },
	{ "dot", "NET.1", NULL },
	{ "slash", "NET/1", NULL },
	{ "latin-1 letter", "NET\xc4", NULL },
	{ "control character", "NET\x01", NULL },
};

static void pnet_norm_desc(const struct pnet_norm_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pnet_norm, pnet_norm_cases, pnet_norm_desc);

static void pnet_normalise_test(struct kunit *test)
{
	const struct pnet_norm_case *c = test->param_value;
	size_t len = strlen(c->in) + 1;
	u8 out[SMC_PNET_LEN], want[SMC_PNET_LEN] = {};
	char *in;
	int rc;

	in = kunit_kmalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, in);
	memcpy(in, c->in, len);
	memset(out, 0x5a, sizeof(out));

	rc = smc_pnet_normalise(in, out);
	if (c->out) {
		KUNIT_ASSERT_EQ(test, rc, 0);
		memcpy(want, c->out, strlen(c->out));
		KUNIT_EXPECT_MEMEQ(test, out, want, SMC_PNET_LEN);
		KUNIT_EXPECT_TRUE(test, smc_pnet_is_set(out));
	} else {
		KUNIT_EXPECT_EQ(test, rc, -EINVAL);
		memset(want, 0x5a, sizeof(want));
		KUNIT_EXPECT_MEMEQ(test, out, want, SMC_PNET_LEN);
	}
}

/* a stored ID is its own normal form */
static void pnet_idempotent_test(struct kunit *test)
{
	u8 once[SMC_PNET_LEN], twice[SMC_PNET_LEN];
	char text[SMC_PNET_LEN + 1] = {};

	KUNIT_ASSERT_EQ(test, smc_pnet_normalise(" abc9 ", once), 0);
	memcpy(text, once, SMC_PNET_LEN);
	KUNIT_ASSERT_EQ(test, smc_pnet_normalise(text, twice), 0);
	KUNIT_EXPECT_MEMEQ(test, once, twice, SMC_PNET_LEN);
}

struct pnet_match_case {
	const char *desc;
	u8 a[SMC_PNET_LEN];
	u8 b[SMC_PNET_LEN];
	bool match;
};

#define PNET_BLANKS	"                "	/* 16 blanks */

static const struct pnet_match_case pnet_match_cases[] = {
	{ "equal", "NET1", "NET1", true },
	{ "case differs", "NET1", "net1", true },
	{ "NUL against blank padding", "NET1", "NET1            ", true },
	{ "both blank padded", "NET1            ", "NET1            ", true },
	{ "both empty", "", "", true },
	{ "empty against blanks", "", PNET_BLANKS, true },
	{ "full length", "ABCDEFGHIJKLMNOP", "abcdefghijklmnop", true },
	{ "different", "NET1", "NET2", false },
	{ "prefix", "NET", "NET1", false },
	{ "prefix, blank padded", "NET             ", "NET1", false },
	{ "empty against set", "", "NET1", false },
	{ "blanks against set", PNET_BLANKS, "NET1", false },
	{ "last byte differs", "ABCDEFGHIJKLMNOP", "ABCDEFGHIJKLMNOQ", false },
	{ "text after a blank", "NET 1", "NET", false },
};

static void pnet_match_desc(const struct pnet_match_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pnet_match, pnet_match_cases, pnet_match_desc);

static void pnet_match_test(struct kunit *test)
{
	const struct pnet_match_case *c = test->param_value;
	u8 *a, *b;

	/* exactly SMC_PNET_LEN bytes each: the match reads no further */
	a = kunit_kmalloc(test, SMC_PNET_LEN, GFP_KERNEL);
	b = kunit_kmalloc(test, SMC_PNET_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	memcpy(a, c->a, SMC_PNET_LEN);
	memcpy(b, c->b, SMC_PNET_LEN);

	KUNIT_EXPECT_EQ(test, smc_pnet_match(a, b), c->match);
	KUNIT_EXPECT_EQ(test, smc_pnet_match(b, a), c->match);
}

static void pnet_is_set_test(struct kunit *test)
{
	static const u8 empty[SMC_PNET_LEN], blanks[SMC_PNET_LEN] = PNET_BLANKS;
	static const u8 late[SMC_PNET_LEN] = "               X";

	KUNIT_EXPECT_FALSE(test, smc_pnet_is_set(empty));
	KUNIT_EXPECT_FALSE(test, smc_pnet_is_set(blanks));
	KUNIT_EXPECT_TRUE(test, smc_pnet_is_set(late));
}

static struct kunit_case pnet_test_cases[] = {
	KUNIT_CASE_PARAM(pnet_normalise_test, pnet_norm_gen_params),
	KUNIT_CASE(pnet_idempotent_test),
	KUNIT_CASE_PARAM(pnet_match_test, pnet_match_gen_params),
	KUNIT_CASE(pnet_is_set_test),
	{}
};

static struct kunit_suite pnet_test_suite = {
	.name = "smc_pnet",
	.test_cases = pnet_test_cases,
};

kunit_test_suite(pnet_test_suite);
