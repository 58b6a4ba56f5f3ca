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
 * smc_llc_send_delete_all(): DELETE_LINK for all links with @reason
 *                       (SMC_LLC_DEL_*), flagged @orderly, on the first
 *                       active link that takes it; never sleeps.
 * smc_llc_confirm_rkey(): the CONFIRM_RKEY flow for @rmb; sleeps.
 * smc_llc_link_down():  @link (was active) failed while another link is
 *                       active: move its connections, tell the peer,
 *                       delete it, in a work item; false when that cannot
 *                       be scheduled (the lgr is stopping).  Any context.
 */
int smc_llc_lgr_init(struct smc_lgr *lgr);
void smc_llc_lgr_stop(struct smc_lgr *lgr);
void smc_llc_lgr_free(struct smc_lgr *lgr);
void smc_llc_wake(struct smc_lgr *lgr);
void smc_llc_send_delete_all(struct smc_lgr *lgr, u32 reason, bool orderly);
int smc_llc_confirm_rkey(struct smc_lgr *lgr, struct smc_buf *rmb);
bool smc_llc_link_down(struct smc_lgr *lgr, struct smc_link *link);

/*
 * lgr.c, called by llc.c.
 * smc_lgr_link_set_uid(): link->link_uid from the lgr id and link_id.
 * smc_rtoken_confirm():   record the peer's RMB of a CONFIRM_RKEY request
 *                         that arrived on @link; 0 or a negative errno.
 * smc_rtoken_delete():    forget the peer's RMB whose rkey on @link is
 *                         @rkey; 0 or -ENOENT.
 */
void smc_lgr_link_set_uid(struct smc_link *link);
/*
 * smc_lgr_peer_ended(): the peer's DELETE_LINK for all links that ends
 * its side came (not flagged orderly); any context.
 */
void smc_lgr_peer_ended(struct smc_lgr *lgr);
struct smc_link *smc_lgr_other_active(struct smc_lgr *lgr,
				      struct smc_link *link);
int smc_rtoken_confirm(struct smc_lgr *lgr, struct smc_link *link,
		       const struct smc_llc_confirm_rkey *cr);
int smc_rtoken_delete(struct smc_lgr *lgr, struct smc_link *link, u32 rkey);

/*
 * lgr.c, for llc.c's link flows; process context, lgr->llc_mutex held.
 * smc_lgr_link_add():    a new link in SMC_LINK_INIT in a free slot, on
 *                        @path (its own device reference), every buffer
 *                        of the lgr mapped on it; NULL if none is free or
 *                        on failure.
 * smc_lgr_link_path():   where a further link goes: another RDMA device
 *                        if the host has a suitable one (symmetric), else
 *                        @like's device, port and GID again (a second QP
 *                        pair: asymmetric); release with smc_ib_put().
 * smc_lgr_link_free():   QP to error and drained, then the buffers
 *                        unmapped, the link destroyed, the peer's rkeys
 *                        on it forgotten; the slot is SMC_LINK_UNUSED.
 *                        No connection may use it any more.
 * smc_lgr_switch_conns(): move every connection on @from to another
 *                        active link (their unacknowledged data is
 *                        written again there); -ENOLINK if there is none.
 * smc_lgr_rmb_rkeys():   our RMBs mapped on both links as rkey pairs for
 *                        ADD_LINK: rkey on @old, rkey and address on
 *                        @link; the ones in use first; at most @max.
 * smc_rtoken_set_link(): the peer's RMB known by its rkey on @old is at
 *                        @p's rkey_new/vaddr_new on @link.
 */
struct smc_link *smc_lgr_link_add(struct smc_lgr *lgr,
				  const struct smc_ib_path *path);
void smc_lgr_link_path(struct smc_lgr *lgr, const struct smc_link *like,
		       struct smc_ib_path *path);
void smc_lgr_link_free(struct smc_link *link);
int smc_lgr_switch_conns(struct smc_lgr *lgr, struct smc_link *from);
unsigned int smc_lgr_rmb_rkeys(struct smc_lgr *lgr, const struct smc_link *old,
			       const struct smc_link *link,
			       struct smc_llc_rkey_pair *pairs,
			       unsigned int max);
void smc_rtoken_set_link(struct smc_lgr *lgr, const struct smc_link *old,
			 const struct smc_link *link,
			 const struct smc_llc_rkey_pair *p);

#endif /* SMC_LLC_H */
