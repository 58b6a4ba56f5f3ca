// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: PNET ID syntax and comparison.
 *
 * Pure functions, no locks and no devices, so KUnit reaches all of them.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "pnet.h"

/**
 * smc_pnet_normalise() - check a PNET ID given by the administrator
 * @in: NUL-terminated text
 * @out: the ID in stored form (upper case, NUL padded); left alone on error
 *
 * Blanks around the ID are dropped.  What is left must be 1 to
 * SMC_PNET_LEN ASCII letters or digits (the kernel's isalnum() would also
 * take Latin-1 letters); lower case letters become upper case.
 *
 * Return: 0, or -EINVAL.
 */
int smc_pnet_normalise(const char *in, u8 out[SMC_PNET_LEN])
{
	u8 id[SMC_PNET_LEN] = {};
	size_t first = 0, end, i;

	end = strlen(in);
	while (first < end && isspace(in[first]))
		first++;
	while (end > first && isspace(in[end - 1]))
		end--;
	if (end == first || end - first > SMC_PNET_LEN)
		return -EINVAL;
	for (i = first; i < end; i++) {
		if (!isascii(in[i]) || !isalnum(in[i]))
			return -EINVAL;
		id[i - first] = toupper(in[i]);
	}
	memcpy(out, id, SMC_PNET_LEN);
	return 0;
}

/* blank and NUL are both padding; letters compare without case */
static u8 smc_pnet_fold(u8 c)
{
	return c == ' ' ? 0 : toupper(c);
}

/**
 * smc_pnet_match() - whether two PNET IDs name the same network
 * @a: SMC_PNET_LEN bytes
 * @b: SMC_PNET_LEN bytes
 *
 * Return: true if they are equal but for case and for blank or NUL
 * padding.  Two empty IDs are equal.
 */
bool smc_pnet_match(const u8 *a, const u8 *b)
{
	size_t i;

	for (i = 0; i < SMC_PNET_LEN; i++)
		if (smc_pnet_fold(a[i]) != smc_pnet_fold(b[i]))
			return false;
	return true;
}

/**
 * smc_pnet_is_set() - whether a PNET ID is not empty
 * @id: SMC_PNET_LEN bytes
 *
 * Return: true unless @id is only padding.
 */
bool smc_pnet_is_set(const u8 *id)
{
	static const u8 none[SMC_PNET_LEN];

	return !smc_pnet_match(id, none);
}
