/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzz shim: bit helpers. */
#ifndef SHIM_LINUX_BITS_H
#define SHIM_LINUX_BITS_H

#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define GENMASK(h, l)		((~0UL >> (63 - (h))) & (~0UL << (l)))

#endif
