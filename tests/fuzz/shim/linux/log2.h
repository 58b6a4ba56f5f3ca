/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzz shim: ilog2() of a nonzero value (0 aborts: a caller bug). */
#ifndef SHIM_LINUX_LOG2_H
#define SHIM_LINUX_LOG2_H

#include <stdlib.h>
#include <linux/types.h>

static inline int shim_ilog2(u64 n)
{
	if (!n)
		abort();
	return 63 - __builtin_clzll(n);
}

#define ilog2(n)		shim_ilog2(n)

#endif
