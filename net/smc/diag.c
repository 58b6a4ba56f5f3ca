// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: sock_diag for AF_SMC.
 *
 * Answers SOCK_DIAG_BY_FAMILY dumps for family AF_SMC with the messages of
 * include/uapi/linux/smc_diag.h, as smcss expects them: one struct
 * smc_diag_msg per socket of the requester's network namespace, followed by
 * SMC_DIAG_SHUTDOWN and SMC_DIAG_FALLBACK.
 *
 * SMC_DIAG_CONNINFO (token, buffer sizes, cursors) and SMC_DIAG_LGRINFO
 * (link group role, RDMA device, GIDs) describe an SMC-R connection, i.e. a
 * socket whose handshake ended in SMC-R mode with a link group.  They are
 * sent only for such sockets and only when the request asks for them in
 * diag_ext, like upstream.  This module does not set up SMC-R connections
 * yet, so no socket qualifies and the attributes are absent, just as they
 * are upstream for a socket that fell back to TCP.  SMC_DIAG_DMBINFO is
 * SMC-D only and never sent.
 */
#include <linux/in6.h>
#include <linux/inet_diag.h>
#include <linux/module.h>
#include <linux/sock_diag.h>
#include <linux/smc_diag.h>
#include <linux/user_namespace.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "smc.h"

/* sockets referenced per pass over smc_sock_list */
#define SMC_DIAG_BATCH	16

struct smc_diag_ent {
	struct sock *sk;	/* the SMC socket, referenced */
	struct sock *clcsk;	/* its TCP socket then, referenced, or NULL */
};

/* position of a dump between calls, kept in netlink_callback::ctx */
struct smc_diag_dump_ctx {
	unsigned int pos;	/* sockets of the namespace already sent */
};

static_assert(sizeof(struct smc_diag_dump_ctx) <=
	      sizeof_field(struct netlink_callback, ctx));

/* identity of the connection: addresses, ports, interface of the clcsock */
static void smc_diag_fill_id(struct inet_diag_sockid *id, struct sock *clcsk)
{
	const struct inet_sock *inet = inet_sk(clcsk);

	id->idiag_sport = READ_ONCE(inet->inet_sport);
	id->idiag_dport = READ_ONCE(inet->inet_dport);
	id->idiag_if = READ_ONCE(clcsk->sk_bound_dev_if);
	switch (clcsk->sk_family) {
	case AF_INET:
		id->idiag_src[0] = READ_ONCE(inet->inet_rcv_saddr);
		id->idiag_dst[0] = READ_ONCE(inet->inet_daddr);
		break;
#if IS_ENABLED(CONFIG_IPV6)
	case AF_INET6:
		memcpy(id->idiag_src, &clcsk->sk_v6_rcv_saddr,
		       sizeof(id->idiag_src));
		memcpy(id->idiag_dst, &clcsk->sk_v6_daddr,
		       sizeof(id->idiag_dst));
		break;
#endif
	}
}

static int smc_diag_fill(struct sk_buff *skb, struct netlink_callback *cb,
			 const struct smc_diag_ent *ent)
{
	struct user_namespace *user_ns = sk_user_ns(NETLINK_CB(cb->skb).sk);
	struct smc_sock *smc = smc_sk(ent->sk);
	struct smc_diag_fallback fallback;
	struct sock *sk = ent->sk;
	struct smc_diag_msg *r;
	struct nlmsghdr *nlh;
	u8 shutdown;

	nlh = nlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			cb->nlh->nlmsg_type, sizeof(*r), NLM_F_MULTI);
	if (!nlh)
		return -EMSGSIZE;
	r = nlmsg_data(nlh);
	memset(r, 0, sizeof(*r));
	shutdown = READ_ONCE(sk->sk_shutdown);

	r->diag_family = sk->sk_family;
	r->diag_state = READ_ONCE(sk->sk_state);
	r->diag_mode = READ_ONCE(smc->use_fallback) ?
		       SMC_DIAG_MODE_FALLBACK_TCP : SMC_DIAG_MODE_SMCR;
	r->diag_shutdown = shutdown;
	sock_diag_save_cookie(sk, r->id.idiag_cookie);
	if (ent->clcsk)
		smc_diag_fill_id(&r->id, ent->clcsk);
	r->diag_uid = from_kuid_munged(user_ns, sock_i_uid(sk));
	r->diag_inode = sock_i_ino(sk);

	fallback.reason = READ_ONCE(smc->fallback_reason);
	fallback.peer_diagnosis = READ_ONCE(smc->peer_diagnosis);
	if (nla_put_u8(skb, SMC_DIAG_SHUTDOWN, shutdown) ||
	    nla_put(skb, SMC_DIAG_FALLBACK, sizeof(fallback), &fallback)) {
		nlmsg_cancel(skb, nlh);
		return -EMSGSIZE;
	}
	nlmsg_end(skb, nlh);
	return 0;
}

/*
 * Take references on up to SMC_DIAG_BATCH sockets of @net, skipping the
 * first @skip, so that they can be described without holding the list
 * lock.  The clcsock pointer is read under the list lock: the socket keeps
 * its clcsock until it has left smc_sock_list.
 */
static unsigned int smc_diag_grab(struct net *net, unsigned int skip,
				  struct smc_diag_ent *ent)
{
	unsigned int n = 0, num = 0;
	struct socket *clcsock;
	struct sock *sk;

	read_lock_bh(&smc_sock_list.lock);
	sk_for_each(sk, &smc_sock_list.head) {
		if (!net_eq(sock_net(sk), net))
			continue;
		if (num++ < skip)
			continue;
		sock_hold(sk);
		ent[n].sk = sk;
		ent[n].clcsk = NULL;
		clcsock = READ_ONCE(smc_sk(sk)->clcsock);
		if (clcsock && clcsock->sk) {
			ent[n].clcsk = clcsock->sk;
			sock_hold(ent[n].clcsk);
		}
		if (++n == SMC_DIAG_BATCH)
			break;
	}
	read_unlock_bh(&smc_sock_list.lock);
	return n;
}

static void smc_diag_put(struct smc_diag_ent *ent, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (ent[i].clcsk)
			sock_put(ent[i].clcsk);
		sock_put(ent[i].sk);
	}
}

static int smc_diag_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct smc_diag_dump_ctx *ctx = (struct smc_diag_dump_ctx *)cb->ctx;
	struct smc_diag_ent ent[SMC_DIAG_BATCH];
	struct net *net = sock_net(skb->sk);
	unsigned int i, n;
	int rc = 0;

	do {
		n = smc_diag_grab(net, ctx->pos, ent);
		for (i = 0; i < n && !rc; i++) {
			rc = smc_diag_fill(skb, cb, &ent[i]);
			if (!rc)
				ctx->pos++;
		}
		smc_diag_put(ent, n);
	} while (!rc && n == SMC_DIAG_BATCH);

	/* a full skb is sent and the dump goes on from ctx->pos */
	if (rc && !skb->len)
		return rc;
	return skb->len;
}

static int smc_diag_handler_dump(struct sk_buff *skb, struct nlmsghdr *h)
{
	struct netlink_dump_control c = {
		.dump = smc_diag_dump,
		.min_dump_alloc = SKB_WITH_OVERHEAD(32768),
	};

	if (nlmsg_len(h) < (int)sizeof(struct smc_diag_req))
		return -EINVAL;
	if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
	    !(h->nlmsg_flags & NLM_F_DUMP))
		return -EOPNOTSUPP;
	return netlink_dump_start(sock_net(skb->sk)->diag_nlsk, skb, h, &c);
}

static const struct sock_diag_handler smc_diag_handler = {
	.owner = THIS_MODULE,
	.family = AF_SMC,
	.dump = smc_diag_handler_dump,
};

int smc_diag_init(void)
{
	return sock_diag_register(&smc_diag_handler);
}

void smc_diag_exit(void)
{
	sock_diag_unregister(&smc_diag_handler);
}
