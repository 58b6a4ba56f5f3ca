/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CLC message exchange over the companion TCP socket.
 */
#ifndef SMC_CLC_H
#define SMC_CLC_H

#include <linux/net.h>
#include "clc_wire.h"

/* How long one handshake step may wait for the peer. */
#define SMC_CLC_WAIT_TIME	(6 * HZ)

extern u8 smc_local_systemid[SMC_CLC_SYSTEMID_LEN];

int smc_clc_init(void);
/* Sends wait at most SMC_CLC_WAIT_TIME (or @timeo) for room. */
int smc_clc_send(struct socket *clcsock, const void *buf, size_t len);
int smc_clc_send_timeo(struct socket *clcsock, const void *buf, size_t len,
		       long timeo);
int smc_clc_send_decline(struct socket *clcsock, u32 reason, u8 version);
int smc_clc_recv_msg(struct socket *clcsock, u8 *buf, size_t cap, long timeo,
		     struct smc_clc_hdr *hdr);

#endif /* SMC_CLC_H */
