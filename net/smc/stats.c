// SPDX-License-Identifier: GPL-2.0
/* Fallback and handshake statistics (stub, to be filled in). */
#include "smc.h"

int smc_stats_init(void)
{
	return 0;
}

void smc_stats_exit(void)
{
}

void smc_stats_fallback(struct net *net, bool server, u32 reason)
{
}
