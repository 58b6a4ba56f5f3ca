// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the EID check and padding (smc_eid_normalise()).
 *
 * Each case hands over exactly the bytes of its input, in a heap buffer of
 * that size, so a read past the end shows up under KASAN.  A refused input
 * must leave the output alone.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "eid.h"

#define EID32	"ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"

struct eid_case {
	const char *desc;
	const char *in;
	size_t len;		/* bytes of @in; strlen() when 0 */
	const char *out;	/* the padded EID, NULL when refused */
};

static const struct eid_case eid_cases[] = {
	{ "short", "SMC-TESTBED-EID", 0,
	  "SMC-TESTBED-EID                 " },
	{ "one character", "A", 0,
	  "A                               " },
	{ "digit first", "1.2-X", 0,
	  "1.2-X                           " },
	{ "exactly 32", EID32, 0, EID32 },
	{ "already padded", "SMC-EID                         ", 0,
	  "SMC-EID                         " },
	{ "32 and more blanks", EID32 "    ", 0, EID32 },
	{ "length stops early", "SMC-EIDxyz", 7,
	  "SMC-EID                         " },
	{ "too long", EID32 "6", 0, NULL },
	{ "too long, blank inside", EID32 " 6", 0, NULL },
	{ "empty", "", 0, NULL },
	{ "only blanks", "    ", 0, NULL },
	{ "lower case", "SMC-eid", 0, NULL },
	{ "lower case first", "smc", 0, NULL },
	{ "leading blank", " SMC", 0, NULL },
	{ "leading dot", ".SMC", 0, NULL },
	{ "leading dash", "-SMC", 0, NULL },
	{ "blank inside", "SMC EID", 0, NULL },
	{ "underscore", "SMC_EID", 0, NULL },
	{ "slash", "SMC/EID", 0, NULL },
	{ "tab padding", "SMC\t", 0, NULL },
	{ "newline", "SMC\n", 0, NULL },
	{ "latin-1 letter", "SMC\xc4", 0, NULL },
	{ "embedded NUL", "SMC\0EID", 7, NULL },
};

static void eid_case_desc(const struct eid_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(eid, eid_cases, eid_case_desc);

static void eid_normalise_test(struct kunit *test)
{
	const struct eid_case *c = test->param_value;
	size_t len = c->len ? c->len : strlen(c->in);
	u8 out[SMC_CLC_EID_LEN];
	char *in;
	int rc;

	in = kunit_kmalloc(test, len ? len : 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, in);
	memcpy(in, c->in, len);
	memset(out, 0x5a, sizeof(out));

	rc = smc_eid_normalise(in, len, out);
	if (c->out) {
		KUNIT_ASSERT_EQ(test, rc, 0);
		KUNIT_EXPECT_MEMEQ(test, out, c->out, SMC_CLC_EID_LEN);
	} else {
		KUNIT_EXPECT_EQ(test, rc, -EINVAL);
		KUNIT_EXPECT_MEMEQ(test, out,
				   "ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ",
				   SMC_CLC_EID_LEN);
	}
}

/* a normalised EID is its own normal form */
static void eid_idempotent_test(struct kunit *test)
{
	u8 once[SMC_CLC_EID_LEN], twice[SMC_CLC_EID_LEN];

	KUNIT_ASSERT_EQ(test, smc_eid_normalise("X.Y-1", 5, once), 0);
	KUNIT_ASSERT_EQ(test, smc_eid_normalise((const char *)once,
						SMC_CLC_EID_LEN, twice), 0);
	KUNIT_EXPECT_MEMEQ(test, once, twice, SMC_CLC_EID_LEN);
}

static struct kunit_case eid_test_cases[] = {
	KUNIT_CASE_PARAM(eid_normalise_test, eid_gen_params),
	KUNIT_CASE(eid_idempotent_test),
	{}
};

static struct kunit_suite eid_test_suite = {
	.name = "smc_eid",
	.test_cases = eid_test_cases,
};

kunit_test_suite(eid_test_suite);
