/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzz shim: static_assert() with an optional message, as in the kernel. */
#ifndef SHIM_LINUX_BUILD_BUG_H
#define SHIM_LINUX_BUILD_BUG_H

#undef static_assert
#define static_assert(expr, ...) shim_static_assert(expr, ##__VA_ARGS__, #expr)
#define shim_static_assert(expr, msg, ...) _Static_assert(expr, msg)
#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)

#endif
