/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work requests on one SMC-R link: the verbs resources of a link and the
 * functions lgr.c and llc.c use on them.  The sending side for the
 * connection layer is declared in core.h (smc_wr_send,
 * smc_wr_write_send).
 */
#ifndef SMC_WR_H
#define SMC_WR_H

#include "core.h"

/*
 * Create the verbs resources of @link: PD, CQ(s), an RC QP moved to INIT
 * on link->port, send slots, and receive buffers posted.  link->dev,
 * ->port, ->sgid_index, ->gid, ->mac must be set; fills link->pd, ->qp,
 * ->qpn, ->psn (random 24 bits), ->path_mtu (the port's active MTU).  On a
 * v2 link group (link->lgr->version == SMC_V2) a receive can take a v2 LLC
 * message of up to SMC_LLC_V2_MAX_LEN bytes.  Returns 0 or a negative
 * errno; on failure nothing is left allocated.
 */
int smc_wr_link_init(struct smc_link *link);

/*
 * smc_wr_link_quiesce(): mark the link down, move the QP to the error
 * state, wait (bounded) until the senders inside have left and every
 * posted work request has completed.  Afterwards the device no longer
 * touches the link's buffers: only then may they be unmapped.  Sleeps;
 * once per link (later calls return at once).
 *
 * smc_wr_link_destroy(): quiesce if not yet done, then free everything
 * smc_wr_link_init() created; buffers mapped on the link must have been
 * unmapped before.  A sender still inside after the bounded wait frees
 * it when it leaves; nothing is ever freed under a sender.  Sleeps.
 */
void smc_wr_link_quiesce(struct smc_link *link);
void smc_wr_link_destroy(struct smc_link *link);

/*
 * Wait up to @timeo until no send of @link is in flight: what was posted
 * last (a DELETE_LINK on an orderly end) has reached the peer, or failed.
 * For a link already marked down, before smc_wr_link_quiesce(), which
 * would flush it.  Sleeps.
 */
void smc_wr_link_drain_sends(struct smc_link *link, long timeo);

/* QP state changes from link.c: RTR with link->peer, then RTS. */
int smc_wr_qp_rtr(struct smc_link *link);
int smc_wr_qp_rts(struct smc_link *link);

/*
 * Mark the link down: further sends fail with -ENOLINK, waiters wake up.
 * Called by lgr.c on termination and by wr.c itself on a completion
 * error or fatal QP event (it then also calls smc_lgr_link_failed()).
 * Any context.
 */
void smc_wr_link_down(struct smc_link *link);

/*
 * Map @buf for DMA on @link's device (send buffer: local reads; RMB:
 * register an MR with local and remote write access, fill its rkey; the
 * iova of the MR is the buffer's DMA address).  Sleeps (waits for the
 * registration's completion, bounded).  smc_wr_buf_unmap() undoes it and
 * invalidates the rkey.
 */
int smc_wr_buf_map(struct smc_link *link, struct smc_buf *buf);
void smc_wr_buf_unmap(struct smc_link *link, struct smc_buf *buf);

/*
 * Hooks out of wr.c, softirq context:
 * smc_llc_rx():          an LLC message (first byte per
 *                        smc_llc_is_llc()) arrived on @link; @buf is only
 *                        valid during the call (copy it).
 * smc_lgr_link_failed(): the link failed (completion error, fatal QP
 *                        event); lgr.c schedules the consequences.
 * Any CDC message (first byte SMC_CDC_MSG_TYPE) is decoded by wr.c and
 * handed to smc_conn_cdc_rx() for the connection of its token, under
 * read_lock(&lgr->conns_lock), found with smc_lgr_conn_lookup().
 */
void smc_llc_rx(struct smc_link *link, const u8 *buf, u32 len);
void smc_lgr_link_failed(struct smc_link *link);

/* Under read_lock(&lgr->conns_lock): the connection with @token. */
struct smc_lgr_conn *smc_lgr_conn_lookup(struct smc_lgr *lgr, u32 token);

#endif /* SMC_WR_H */
