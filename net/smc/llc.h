/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private interface between lgr.c (link group registry) and llc.c (LLC
 * flows).  Nothing outside these two files includes it.
 */
#ifndef SMC_LLC_H
#define SMC_LLC_H

#include <linux/workqueue.h>
#include "core.h"
#include "llc_wire.h"

/* lgr.c: the work queue of every lgr work item (terminate, idle, LLC) */
extern struct workqueue_struct *smc_lgr_wq;

/*
 * llc.c, called by lgr.c.
 * smc_llc_lgr_init():   allocate lgr->llc; process context.
 * smc_llc_lgr_stop():   no LLC work runs or gets queued any more, test
 *                       link timers stopped, waiters woken; sleeps.
 * smc_llc_lgr_free():   free lgr->llc (after stop); any context.
 * smc_llc_wake():       a waiting local flow re-checks the lgr and link
 *                       states; any context.
 * smc_llc_send_delete_all(): DELETE_LINK for all links, orderly, on the
 *                       first active link that takes it; never sleeps.
 * smc_llc_confirm_rkey(): the CONFIRM_RKEY flow for @rmb; sleeps.
 */
int smc_llc_lgr_init(struct smc_lgr *lgr);
void smc_llc_lgr_stop(struct smc_lgr *lgr);
void smc_llc_lgr_free(struct smc_lgr *lgr);
void smc_llc_wake(struct smc_lgr *lgr);
void smc_llc_send_delete_all(struct smc_lgr *lgr, u32 reason);
int smc_llc_confirm_rkey(struct smc_lgr *lgr, struct smc_buf *rmb);

/*
 * lgr.c, called by llc.c.
 * smc_lgr_link_set_uid(): link->link_uid from the lgr id and link_id.
 * smc_rtoken_confirm():   record the peer's RMB of a CONFIRM_RKEY request
 *                         that arrived on @link; 0 or a negative errno.
 * smc_rtoken_delete():    forget the peer's RMB whose rkey on @link is
 *                         @rkey; 0 or -ENOENT.
 */
void smc_lgr_link_set_uid(struct smc_link *link);
int smc_rtoken_confirm(struct smc_lgr *lgr, struct smc_link *link,
		       const struct smc_llc_confirm_rkey *cr);
int smc_rtoken_delete(struct smc_lgr *lgr, struct smc_link *link, u32 rkey);

#endif /* SMC_LLC_H */
