/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzz shim: libc's string functions have the kernel's semantics here. */
#ifndef SHIM_LINUX_STRING_H
#define SHIM_LINUX_STRING_H

#include <string.h>

#endif
