/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace events of the SMC-R stack (TRACE_SYSTEM smc).
 *
 * smc_switch_to_fallback, smc_tx_sendmsg, smc_rx_recvmsg and smcr_link_down
 * carry the names and the leading fields of Linux's own events, so scripts
 * written for those keep working; smcr_lgr_create, smcr_lgr_terminate and
 * smcr_link_up are ours.  Every event copies plain values at the call site:
 * nothing here follows a pointer at print time, and when an event is off
 * its call costs one static branch.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM smc

#if !defined(_SMC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SMC_TRACE_H

#include <linux/tracepoint.h>
#include <linux/string.h>
#include <net/sock.h>
#include "smc.h"
#include "core.h"
#include "ib.h"

#ifndef _SMC_TRACE_HELPERS
#define _SMC_TRACE_HELPERS
/* The link group id as the number smcctl and netlink show. */
static inline u32 smc_trace_lgr_id(const struct smc_lgr *lgr)
{
	u32 id = 0;

	if (lgr)
		memcpy(&id, lgr->id, sizeof(id));
	return id;
}

/*
 * A link's RDMA device name.  Callers hold link->dev: the link is up, or
 * (smcr_link_down) the caller runs in a context that smc_lgr_link_free()
 * quiesces (CQ, QP events, LLC work) before it drops the device.
 */
static inline const char *smc_trace_ibname(const struct smc_link *link)
{
	const struct smc_ib_dev *dev = READ_ONCE(link->dev);

	return dev ? dev_name(&dev->ibdev->dev) : "";
}
#endif

TRACE_EVENT(smc_switch_to_fallback,
	    TP_PROTO(const struct smc_sock *smc, int reason),
	    TP_ARGS(smc, reason),
	    TP_STRUCT__entry(__field(const void *, sk)
			     __field(const void *, clcsk)
			     __field(u64, net_cookie)
			     __field(int, fallback_rsn)
	    ),
	    TP_fast_assign(const struct socket *clc = READ_ONCE(smc->clcsock);

			   __entry->sk = &smc->sk;
			   __entry->clcsk = clc ? clc->sk : NULL;
			   __entry->net_cookie = sock_net(&smc->sk)->net_cookie;
			   __entry->fallback_rsn = reason;
	    ),
	    TP_printk("sk=%p clcsk=%p net=%llu fallback_rsn=%d",
		      __entry->sk, __entry->clcsk, __entry->net_cookie,
		      __entry->fallback_rsn)
);

/* Bytes moved by one sendmsg or recvmsg of an SMC-R connection. */
DECLARE_EVENT_CLASS(smc_xfer_class,
		    TP_PROTO(const struct smc_sock *smc, size_t len),
		    TP_ARGS(smc, len),
		    TP_STRUCT__entry(__field(const void *, smc)
				     __field(u64, net_cookie)
				     __field(size_t, len)
				     __field(u32, lgr_id)
				     __field(u32, token)
				     __field(u8, link_id)
		    ),
		    TP_fast_assign(const struct smc_link *link = READ_ONCE(smc->conn.lc.link);

				   __entry->smc = smc;
				   __entry->net_cookie = sock_net(&smc->sk)->net_cookie;
				   __entry->len = len;
				   __entry->lgr_id = smc_trace_lgr_id(READ_ONCE(smc->conn.lc.lgr));
				   __entry->token = smc->conn.lc.token;
				   __entry->link_id = link ? link->link_id : 0;
		    ),
		    TP_printk("smc=%p net=%llu len=%zu lgr=%08x link=%u token=%u",
			      __entry->smc, __entry->net_cookie, __entry->len,
			      __entry->lgr_id, __entry->link_id, __entry->token)
);

DEFINE_EVENT(smc_xfer_class, smc_tx_sendmsg,
	     TP_PROTO(const struct smc_sock *smc, size_t len),
	     TP_ARGS(smc, len)
);

DEFINE_EVENT(smc_xfer_class, smc_rx_recvmsg,
	     TP_PROTO(const struct smc_sock *smc, size_t len),
	     TP_ARGS(smc, len)
);

TRACE_EVENT(smcr_lgr_create,
	    TP_PROTO(const struct smc_lgr *lgr),
	    TP_ARGS(lgr),
	    TP_STRUCT__entry(__field(const void *, lgr)
			     __field(u64, net_cookie)
			     __field(u32, lgr_id)
			     __field(bool, server)
			     __field(u8, version)
			     __array(char, name, IB_DEVICE_NAME_MAX)
	    ),
	    TP_fast_assign(__entry->lgr = lgr;
			   __entry->net_cookie = lgr->net->net_cookie;
			   __entry->lgr_id = smc_trace_lgr_id(lgr);
			   __entry->server = lgr->server;
			   __entry->version = lgr->version;
			   strscpy(__entry->name,
				   smc_trace_ibname(&lgr->links[0]),
				   IB_DEVICE_NAME_MAX);
	    ),
	    TP_printk("lgr=%p net=%llu id=%08x role=%s v%u dev=%s",
		      __entry->lgr, __entry->net_cookie, __entry->lgr_id,
		      __entry->server ? "server" : "client", __entry->version,
		      __entry->name)
);

TRACE_EVENT(smcr_lgr_terminate,
	    TP_PROTO(const struct smc_lgr *lgr, u32 bye, bool idle),
	    TP_ARGS(lgr, bye, idle),
	    TP_STRUCT__entry(__field(const void *, lgr)
			     __field(u64, net_cookie)
			     __field(u32, lgr_id)
			     __field(u32, bye)
			     __field(bool, idle)
	    ),
	    TP_fast_assign(__entry->lgr = lgr;
			   __entry->net_cookie = lgr->net->net_cookie;
			   __entry->lgr_id = smc_trace_lgr_id(lgr);
			   __entry->bye = bye;
			   __entry->idle = idle;
	    ),
	    TP_printk("lgr=%p net=%llu id=%08x bye=%#x idle=%d",
		      __entry->lgr, __entry->net_cookie, __entry->lgr_id,
		      __entry->bye, __entry->idle)
);

TRACE_EVENT(smcr_link_up,
	    TP_PROTO(const struct smc_link *lnk),
	    TP_ARGS(lnk),
	    TP_STRUCT__entry(__field(const void *, lnk)
			     __field(const void *, lgr)
			     __field(u64, net_cookie)
			     __field(u32, lgr_id)
			     __field(u8, link_id)
			     __field(u8, port)
			     __array(char, name, IB_DEVICE_NAME_MAX)
	    ),
	    TP_fast_assign(__entry->lnk = lnk;
			   __entry->lgr = lnk->lgr;
			   __entry->net_cookie = lnk->lgr->net->net_cookie;
			   __entry->lgr_id = smc_trace_lgr_id(lnk->lgr);
			   __entry->link_id = lnk->link_id;
			   __entry->port = lnk->port;
			   strscpy(__entry->name, smc_trace_ibname(lnk),
				   IB_DEVICE_NAME_MAX);
	    ),
	    TP_printk("lnk=%p lgr=%p net=%llu id=%08x link=%u dev=%s port=%u",
		      __entry->lnk, __entry->lgr, __entry->net_cookie,
		      __entry->lgr_id, __entry->link_id, __entry->name,
		      __entry->port)
);

/* @state: the link's state before it went down; @location: who saw it. */
TRACE_EVENT(smcr_link_down,
	    TP_PROTO(const struct smc_link *lnk, int state, void *location),
	    TP_ARGS(lnk, state, location),
	    TP_STRUCT__entry(__field(const void *, lnk)
			     __field(const void *, lgr)
			     __field(u64, net_cookie)
			     __field(int, state)
			     __array(char, name, IB_DEVICE_NAME_MAX)
			     __field(void *, location)
			     __field(u32, lgr_id)
			     __field(u8, link_id)
	    ),
	    TP_fast_assign(__entry->lnk = lnk;
			   __entry->lgr = lnk->lgr;
			   __entry->net_cookie = lnk->lgr->net->net_cookie;
			   __entry->state = state;
			   strscpy(__entry->name, smc_trace_ibname(lnk),
				   IB_DEVICE_NAME_MAX);
			   __entry->location = location;
			   __entry->lgr_id = smc_trace_lgr_id(lnk->lgr);
			   __entry->link_id = lnk->link_id;
	    ),
	    TP_printk("lnk=%p lgr=%p net=%llu state=%d dev=%s location=%pS id=%08x link=%u",
		      __entry->lnk, __entry->lgr, __entry->net_cookie,
		      __entry->state, __entry->name, __entry->location,
		      __entry->lgr_id, __entry->link_id)
);

#endif /* _SMC_TRACE_H */

/* define_trace.h finds this file through CFLAGS_trace.o's -I$(src). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
