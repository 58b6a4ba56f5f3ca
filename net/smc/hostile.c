// SPDX-License-Identifier: GPL-2.0
/* Placeholder of the test-hooks flavour; see testhooks.h. */

#include "testhooks.h"

void smc_hostile_init(void)
{
}

void smc_hostile_exit(void)
{
}
