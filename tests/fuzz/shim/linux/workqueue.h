/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzz shim: a member type of struct smc_ib_dev (net/smc/ib.h). */
#ifndef SHIM_LINUX_WORKQUEUE_H
#define SHIM_LINUX_WORKQUEUE_H

struct work_struct {
	unsigned long data;
};

#endif
