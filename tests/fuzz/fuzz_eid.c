// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for the EID code (net/smc/eid.c): the syntax check of EIDs
 * from user space (netlink, the "ueid" module parameter) and the UEID
 * table.  eid.c is included rather than linked so that the target can set
 * the module parameter, which is a static variable there.
 *
 * The input is a program of table operations (add, remove, lookup, copy,
 * module load with a parameter string) with strings from the input.  A
 * model of the table predicts every return code and the table contents.
 * Properties besides the sanitizers: smc_eid_normalise() accepts only
 * 1..32 valid characters, leaves its output alone on error, is idempotent
 * and blank pads; the table never holds more than SMC_EID_MAX_UEID
 * entries, keeps their order and never holds a duplicate or an invalid
 * EID; smc_eid_ueids() writes at most @max entries; locks balance.
 */
#include "../../net/smc/eid.c"
#include "fuzz.h"

static u8 model[SMC_EID_MAX_UEID][SMC_CLC_EID_LEN];
static int model_cnt;

static bool valid_eid_char(u8 c, bool first)
{
	if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return !first && (c == '.' || c == '-');
}

/* The normalised form of @s (@len bytes) as the spec says, or false. */
static bool spec_normalise(const char *s, size_t len,
			   u8 out[SMC_CLC_EID_LEN])
{
	size_t i;

	while (len && s[len - 1] == ' ')
		len--;
	if (!len || len > SMC_CLC_EID_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (!valid_eid_char(s[i], i == 0))
			return false;
	memset(out, ' ', SMC_CLC_EID_LEN);
	memcpy(out, s, len);
	return true;
}

static int model_find(const u8 *eid)
{
	int i;

	for (i = 0; i < model_cnt; i++)
		if (!memcmp(model[i], eid, SMC_CLC_EID_LEN))
			return i;
	return -1;
}

static int model_add(const char *s, size_t len)
{
	u8 eid[SMC_CLC_EID_LEN];

	if (!spec_normalise(s, len, eid))
		return -EINVAL;
	if (model_cnt >= SMC_EID_MAX_UEID)
		return -ERANGE;
	if (model_find(eid) >= 0)
		return -EEXIST;
	memcpy(model[model_cnt++], eid, SMC_CLC_EID_LEN);
	return 0;
}

static int model_remove(const char *s)
{
	u8 eid[SMC_CLC_EID_LEN];
	int i;

	if (!spec_normalise(s, strlen(s), eid))
		return -ENOENT;
	i = model_find(eid);
	if (i < 0)
		return -ENOENT;
	memmove(model[i], model[i + 1], (model_cnt - i - 1) * SMC_CLC_EID_LEN);
	model_cnt--;
	return 0;
}

static void check_table(void)
{
	u8 (*copy)[SMC_CLC_EID_LEN];
	int n, i, max;

	for (max = 0; max <= SMC_EID_MAX_UEID + 1; max++) {
		size_t sz = (max ? max : 1) * SMC_CLC_EID_LEN;

		copy = fuzz_guard_alloc(sz, 0);
		n = smc_eid_ueids(copy, max);
		FUZZ_CHECK(n == min(model_cnt, max));
		FUZZ_CHECK(!memcmp(copy, model, n * SMC_CLC_EID_LEN));
		fuzz_guard_free(copy, sz);
	}
	for (i = 0; i < model_cnt; i++)
		FUZZ_CHECK(smc_eid_has_ueid(model[i]));
	FUZZ_CHECK(!smc_eid_lock.held);
}

/* A NUL-terminated string of up to 47 bytes from the input. */
static char *read_str(struct fuzz_in *in, size_t *len)
{
	size_t n = fuzz_u8(in) % 48;
	char *s = malloc(n + 1);

	if (!s)
		abort();
	fuzz_bytes(in, s, n);
	s[n] = 0;
	*len = n;
	return s;
}

static void op_normalise(struct fuzz_in *in)
{
	u8 *out, expect[SMC_CLC_EID_LEN], again[SMC_CLC_EID_LEN];
	size_t len;
	char *s = read_str(in, &len);
	bool ok;
	int rc;

	/* the whole buffer, NULs included: the length is what counts */
	out = fuzz_guard_alloc(SMC_CLC_EID_LEN, 0x5a);
	rc = smc_eid_normalise(s, len, out);
	ok = spec_normalise(s, len, expect);
	FUZZ_CHECK(ok == !rc);
	if (rc) {
		FUZZ_CHECK(rc == -EINVAL);
		FUZZ_CHECK(fuzz_all(out, SMC_CLC_EID_LEN, 0x5a));
	} else {
		FUZZ_CHECK(!memcmp(out, expect, SMC_CLC_EID_LEN));
		FUZZ_CHECK(!smc_eid_normalise((const char *)out,
					      SMC_CLC_EID_LEN, again));
		FUZZ_CHECK(!memcmp(out, again, SMC_CLC_EID_LEN));
	}
	fuzz_guard_free(out, SMC_CLC_EID_LEN);
	free(s);
}

static void op_init(struct fuzz_in *in)
{
	size_t n = fuzz_u8(in), i, start = 0;
	char *s = malloc(n + 1);

	if (!s)
		abort();
	fuzz_bytes(in, s, n);
	s[n] = 0;
	n = strlen(s);
	for (i = 0; i <= n; i++) {
		if (s[i] != ',' && s[i])
			continue;
		if (i > start)
			model_add(s + start, i - start);
		start = i + 1;
	}
	smc_eid_param = s;
	FUZZ_CHECK(smc_eid_init() == 0);
	smc_eid_param = NULL;
	free(s);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fuzz_in in = { .p = data, .left = size };
	u8 eid[SMC_CLC_EID_LEN];
	int ops = 0, rc;
	size_t len;
	char *s;

	smc_eid_exit();
	model_cnt = 0;
	memset(model, 0, sizeof(model));

	while (in.left && ops++ < 32) {
		switch (fuzz_u8(&in) % 6) {
		case 0:
			op_normalise(&in);
			break;
		case 1:
			s = read_str(&in, &len);
			rc = smc_eid_add(s);
			FUZZ_CHECK(rc == model_add(s, strlen(s)));
			free(s);
			break;
		case 2:
			s = read_str(&in, &len);
			rc = smc_eid_remove(s);
			FUZZ_CHECK(rc == model_remove(s));
			free(s);
			break;
		case 3:
			fuzz_bytes(&in, eid, sizeof(eid));
			FUZZ_CHECK(smc_eid_has_ueid(eid) ==
				   (model_find(eid) >= 0));
			break;
		case 4:
			op_init(&in);
			break;
		case 5:
			smc_eid_flush();
			model_cnt = 0;
			memset(model, 0, sizeof(model));
			break;
		}
		check_table();
	}
	return 0;
}
