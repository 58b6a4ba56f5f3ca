// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: socket family (work in progress).
 */
#include <linux/module.h>
#include "smc.h"

struct smc_sock_list smc_sock_list = {
	.lock = __RW_LOCK_UNLOCKED(smc_sock_list.lock),
};

static int __init smc_init(void)
{
	int rc;

	rc = smc_stats_init();
	if (rc)
		return rc;
	rc = smc_nl_init();
	if (rc)
		goto out_stats;
	rc = smc_diag_init();
	if (rc)
		goto out_nl;
	return 0;

out_nl:
	smc_nl_exit();
out_stats:
	smc_stats_exit();
	return rc;
}

static void __exit smc_exit(void)
{
	smc_diag_exit();
	smc_nl_exit();
	smc_stats_exit();
}

module_init(smc_init);
module_exit(smc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Shared Memory Communications over RDMA (SMC-R)");
MODULE_ALIAS_NETPROTO(PF_SMC);
