/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fuzz shim: min/max/clamp.  Each argument is evaluated once; the typed
 * forms convert both sides first, as the kernel's do.
 */
#ifndef SHIM_LINUX_MINMAX_H
#define SHIM_LINUX_MINMAX_H

#define shim_min2(a, b) ({ __auto_type _a = (a); __auto_type _b = (b); \
			   _a < _b ? _a : _b; })
#define shim_max2(a, b) ({ __auto_type _a = (a); __auto_type _b = (b); \
			   _a > _b ? _a : _b; })
#define min(a, b)		shim_min2(a, b)
#define max(a, b)		shim_max2(a, b)
#define min3(a, b, c)		min(min(a, b), c)
#define max3(a, b, c)		max(max(a, b), c)
#define min_t(t, a, b)		shim_min2((t)(a), (t)(b))
#define max_t(t, a, b)		shim_max2((t)(a), (t)(b))
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)
#define clamp(v, lo, hi)	min(max(v, lo), hi)

#endif
