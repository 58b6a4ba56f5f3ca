/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzz shim: a member type of struct smc_ib_dev (net/smc/ib.h). */
#ifndef SHIM_LINUX_COMPLETION_H
#define SHIM_LINUX_COMPLETION_H

struct completion {
	unsigned int done;
};

#endif
