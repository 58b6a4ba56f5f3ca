/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications over RDMA: connecting the QP of a link on
 * an iWARP device.
 *
 * RoCE links are connected by hand: each end learns the other's QP number
 * from CLC or LLC and moves its QP to RTR and RTS.  An iWARP QP can only
 * be connected by the iWARP connection manager (MPA over TCP), which the
 * kernel's rdma_cm drives.  Between two hosts running this module that
 * agreed on iWARP (SMC_NEGO_VX_IWARP), the client's end connects, the
 * server's end accepts:
 *
 *  - each network namespace with a server link on an iWARP device has one
 *    rdma_cm listener on a port of its own; the server advertises that
 *    port in the PSN field of its CLC accept (iWARP has no PSN);
 *  - the server expects the connection of a link before it advertises
 *    the link (smc_iw_expect()), by the link's QP: for a further link it
 *    does not know the client's address yet (ADD_LINK);
 *  - the client connects (smc_iw_connect()) from its QP to the server's
 *    address and port, its private data naming the server's QP and its
 *    own: the two QPs name the link and, through it, its link group (each
 *    QP number is unique on its device, while link group ids are each
 *    host's own and the peer's link UID comes only with CONFIRM_LINK,
 *    over the connected link); the server accepts one connection that
 *    names an expected QP of the device it arrived on, and once it knows
 *    the link's peer (CLC confirm, ADD_LINK response) checks that the
 *    connection came from that peer's address and QP
 *    (smc_iw_wait_from());
 *  - either end's connection going away later calls the owner's down().
 *
 * The QPs themselves stay the link's (wr.c): created and moved to INIT as
 * for RoCE, connected through rdma_cm by QP number, moved to RTS by the
 * device when the connection is established.  smc_iw_release() must come
 * before the QP is destroyed: the connection holds a reference on it.
 */
#ifndef SMC_IW_H
#define SMC_IW_H

#include <linux/types.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>

struct smc_iw;

/* what the owner of a connection is told when it goes away; any context */
typedef void (*smc_iw_down_t)(void *ctx);

int smc_iw_listen_port(struct net *net, u16 *port);
int smc_iw_expect(struct net *net, struct ib_device *ibdev, u32 qpn,
		  smc_iw_down_t down, void *ctx, u16 *port, struct smc_iw **iw);
int smc_iw_wait(struct smc_iw *iw, long timeo);
int smc_iw_wait_from(struct smc_iw *iw, __be32 peer, u32 peer_qpn, long timeo);
int smc_iw_connect(struct net *net, struct ib_device *ibdev, u32 qpn,
		   __be32 saddr, __be32 daddr, u16 port, u32 peer_qpn,
		   long timeo, smc_iw_down_t down, void *ctx,
		   struct smc_iw **iw);
void smc_iw_release(struct smc_iw *iw);

void smc_iw_exit(void);

#endif /* SMC_IW_H */
