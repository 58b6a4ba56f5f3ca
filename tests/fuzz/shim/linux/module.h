/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzz shim: module metadata compiles to nothing. */
#ifndef SHIM_LINUX_MODULE_H
#define SHIM_LINUX_MODULE_H

#include <linux/moduleparam.h>

#define MODULE_LICENSE(s)
#define MODULE_DESCRIPTION(s)
#define MODULE_AUTHOR(s)

#endif
