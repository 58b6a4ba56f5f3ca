/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzz shim: compiler attributes the codecs and the shim use. */
#ifndef SHIM_LINUX_COMPILER_H
#define SHIM_LINUX_COMPILER_H

#define __maybe_unused		__attribute__((__unused__))
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)

#endif
