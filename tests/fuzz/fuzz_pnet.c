// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for the PNET ID code (net/smc/pnet_id.c): the syntax check
 * of PNET IDs from user space (generic netlink) and their comparison.
 *
 * The input up to its first NUL is the text given to smc_pnet_normalise();
 * the first 32 bytes also serve as two raw IDs for smc_pnet_match().
 * Properties besides the sanitizers: the stored form is 1..16 ASCII upper
 * case letters and digits, NUL padded, it is "set", it normalises to
 * itself and it matches the text's letters without case; the output is
 * left alone on error; matching is reflexive and symmetric, and an ID is
 * set exactly when it does not match the empty one.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/types.h>
#include "fuzz.h"
#include "../../net/smc/pnet.h"

static bool stored_form(const u8 *id)
{
	unsigned int i = 0;

	while (i < SMC_PNET_LEN && id[i] &&
	       ((id[i] >= 'A' && id[i] <= 'Z') ||
		(id[i] >= '0' && id[i] <= '9')))
		i++;
	if (!i)
		return false;
	return fuzz_all(id + i, SMC_PNET_LEN - i, 0);
}

static void fuzz_normalise(const u8 *data, size_t size)
{
	u8 *out, again[SMC_PNET_LEN];
	char *text, copy[SMC_PNET_LEN + 1];
	int rc;

	text = malloc(size + 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = 0;
	out = fuzz_guard_alloc(SMC_PNET_LEN, 0x5a);
	rc = smc_pnet_normalise(text, out);
	if (rc) {
		FUZZ_CHECK(rc == -EINVAL);
		FUZZ_CHECK(fuzz_all(out, SMC_PNET_LEN, 0x5a));
		goto out;
	}
	FUZZ_CHECK(stored_form(out));
	FUZZ_CHECK(smc_pnet_is_set(out));
	FUZZ_CHECK(smc_pnet_match(out, out));
	memcpy(copy, out, SMC_PNET_LEN);
	copy[SMC_PNET_LEN] = 0;
	FUZZ_CHECK(smc_pnet_normalise(copy, again) == 0);
	FUZZ_CHECK(!memcmp(again, out, SMC_PNET_LEN));
	/* the letters of the text itself, lower case ones included */
	FUZZ_CHECK(strchr(text, (char)out[0]) ||
		   strchr(text, (char)tolower(out[0])));
out:
	fuzz_guard_free(out, SMC_PNET_LEN);
	free(text);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u8 a[SMC_PNET_LEN], b[SMC_PNET_LEN];
	static const u8 none[SMC_PNET_LEN];

	fuzz_normalise(data, size);
	if (size < 2 * SMC_PNET_LEN)
		return 0;
	memcpy(a, data, SMC_PNET_LEN);
	memcpy(b, data + SMC_PNET_LEN, SMC_PNET_LEN);
	FUZZ_CHECK(smc_pnet_match(a, a));
	FUZZ_CHECK(smc_pnet_match(a, b) == smc_pnet_match(b, a));
	FUZZ_CHECK(smc_pnet_is_set(a) == !smc_pnet_match(a, none));
	FUZZ_CHECK(smc_pnet_is_set(b) == !smc_pnet_match(b, none));
	return 0;
}
