// SPDX-License-Identifier: GPL-2.0
/* CLC wire codec (stub, to be filled in). */
#include <linux/errno.h>
#include "clc_wire.h"

int smc_clc_hdr_decode(const u8 *buf, size_t len, struct smc_clc_hdr *hdr)
{
	return -EOPNOTSUPP;
}

int smc_clc_proposal_decode(const u8 *buf, size_t len,
			    struct smc_clc_proposal *p)
{
	return -EOPNOTSUPP;
}

int smc_clc_proposal_encode(const struct smc_clc_proposal *p, u8 *buf,
			    size_t cap)
{
	return -EOPNOTSUPP;
}

int smc_clc_decline_decode(const u8 *buf, size_t len,
			   struct smc_clc_decline *d)
{
	return -EOPNOTSUPP;
}

int smc_clc_decline_encode(const struct smc_clc_decline *d, u8 *buf,
			   size_t cap)
{
	return -EOPNOTSUPP;
}
