/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzz shim: the codecs only use errno values that the UAPI defines. */
#ifndef SHIM_LINUX_ERRNO_H
#define SHIM_LINUX_ERRNO_H

#include_next <linux/errno.h>

#endif
