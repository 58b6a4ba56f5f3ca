/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzz shim: 64-bit division helpers (a zero divisor aborts: a caller bug). */
#ifndef SHIM_LINUX_MATH64_H
#define SHIM_LINUX_MATH64_H

#include <stdlib.h>
#include <linux/types.h>

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	if (!divisor)
		abort();
	*remainder = dividend % divisor;
	return dividend / divisor;
}

#endif
