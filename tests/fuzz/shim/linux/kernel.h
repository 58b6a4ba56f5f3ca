/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzz shim: the little of linux/kernel.h the codecs use. */
#ifndef SHIM_LINUX_KERNEL_H
#define SHIM_LINUX_KERNEL_H

#include <linux/compiler.h>
#include <linux/minmax.h>
#include <linux/types.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#endif
