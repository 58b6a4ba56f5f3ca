/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzz shim: a member type of struct smc_ib_dev (net/smc/ib.h). */
#ifndef SHIM_LINUX_LIST_H
#define SHIM_LINUX_LIST_H

struct list_head {
	struct list_head *next, *prev;
};

#endif
