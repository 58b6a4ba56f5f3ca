/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernels before 6.12 keep the unaligned access helpers in
 * <asm/unaligned.h>; the Makefile puts this folder on the include path
 * only for them (see compat.h).
 */
#ifndef SMC_COMPAT_LINUX_UNALIGNED_H
#define SMC_COMPAT_LINUX_UNALIGNED_H
#include <asm/unaligned.h>
#endif
