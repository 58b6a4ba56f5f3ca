// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: bringing up a link.
 *
 * The link's QP goes to RTR once the peer's end is known (CLC accept or
 * confirm, or ADD_LINK) and to RTS when the link is to be confirmed.  The
 * verbs work is in wr.c; this file is the place for link-level helpers.
 */
#include <linux/atomic.h>

#include "testhooks.h"
#include "wr.h"

int smc_link_rtr(struct smc_link *link, const struct smc_link_peer *peer)
{
	int rc;

	link->peer = *peer;
	rc = smc_wr_qp_rtr(link);
	if (rc)
		return rc;
	if (smc_faultinj_fail(SMC_FI_RTR_DOWN)) {
		/* the test flavour: a completion error right now */
		smc_wr_link_down(link);
		smc_lgr_link_failed(link);
	}
	/*
	 * Only from INIT: a completion error may have taken the link DOWN in
	 * softirq meanwhile, and that must stick.
	 */
	if (cmpxchg(&link->state, SMC_LINK_INIT, SMC_LINK_ACTIVATING) !=
	    SMC_LINK_INIT && READ_ONCE(link->state) != SMC_LINK_ACTIVATING)
		return -ENOLINK;
	return 0;
}

int smc_link_rts(struct smc_link *link)
{
	return smc_wr_qp_rts(link);
}
