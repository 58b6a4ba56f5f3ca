// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: bringing up a link.
 *
 * The link's QP goes to RTR once the peer's end is known (CLC accept or
 * confirm, or ADD_LINK) and to RTS when the link is to be confirmed.  The
 * verbs work is in wr.c; this file is the place for link-level helpers.
 */
#include "wr.h"

int smc_link_rtr(struct smc_link *link, const struct smc_link_peer *peer)
{
	int rc;

	link->peer = *peer;
	rc = smc_wr_qp_rtr(link);
	if (rc)
		return rc;
	link->state = SMC_LINK_ACTIVATING;
	return 0;
}

int smc_link_rts(struct smc_link *link)
{
	return smc_wr_qp_rts(link);
}
