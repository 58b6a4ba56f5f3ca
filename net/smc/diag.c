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
 * (link group role, RDMA device, GIDs) describe an SMC-R connection.  As
 * upstream, they are sent only when the request asks for them in diag_ext:
 * CONNINFO while the connection holds a token in a link group (from its
 * attachment in the handshake until it is freed), LGRINFO while, in
 * addition, that link group is not terminating.  A socket that fell back
 * to TCP never has either.  SMC_DIAG_DMBINFO is SMC-D only and never sent.
 *
 * The cursors are those of the 6.12 structure: rx_prod and rx_cons as the
 * peer's last CDC message had them, tx_prod and tx_cons as our last CDC
 * message announced them, tx_prep/tx_sent/tx_fin in the send buffer.  This
 * module keeps 64-bit byte counts (conn.h); a cursor is the count modulo
 * the ring size with the number of completed rings as wrap count.
 */
#include <linux/in6.h>
#include <linux/math64.h>
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

/* CDC flag bits as the 6.12 structure shows them (first bit is 0x80) */
#define SMC_DIAG_PROD_WRITE_BLOCKED	0x80
#define SMC_DIAG_PROD_CONS_UPD_REQ	0x10
#define SMC_DIAG_CONN_DONE_WRITING	0x80
#define SMC_DIAG_CONN_CLOSED		0x40
#define SMC_DIAG_CONN_ABORT		0x20

/* a GID as 8 big-endian groups of 4 hex digits, colon separated */
static void smc_diag_gid(__u8 *buf, size_t len, const u8 *gid)
{
	size_t n = 0;
	int i;

	for (i = 0; i < SMC_IB_GID_LEN; i += 2)
		n += scnprintf(buf + n, len - n, i ? ":%02x%02x" : "%02x%02x",
			       gid[i], gid[i + 1]);
}

static void smc_diag_curs(struct smc_diag_cursor *c, u64 bytes, u32 size)
{
	u32 rem;

	if (!size)
		return;
	c->wrap = (u16)div_u64_rem(bytes, size, &rem);
	c->count = rem;
}

static void smc_diag_wire_curs(struct smc_diag_cursor *c,
			       const struct smc_curs *w)
{
	c->wrap = w->wrap;
	c->count = w->count;
}

static u8 smc_diag_state_flags(bool done_writing, bool closed, bool abort)
{
	return (done_writing ? SMC_DIAG_CONN_DONE_WRITING : 0) |
	       (closed ? SMC_DIAG_CONN_CLOSED : 0) |
	       (abort ? SMC_DIAG_CONN_ABORT : 0);
}

/*
 * Copy the connection's state under its lock (no sleeping).  Returns the
 * link group with a reference for the caller (and the link in @link), or
 * NULL when the connection is not attached (then @ci is untouched).
 */
/*
 * States as sock_diag reports them, numbered as upstream's (and smcss
 * reads them).  The first four equal TCP_ESTABLISHED, TCP_SYN_SENT,
 * TCP_CLOSE and TCP_LISTEN, which is what sk_state holds; the close
 * states come from the connection's close flags (close.c).
 */
enum {
	SMC_DIAG_ACTIVE = TCP_ESTABLISHED,
	SMC_DIAG_CLOSED = TCP_CLOSE,
	SMC_DIAG_PEERCLOSEWAIT1 = 20,	/* we ended, the peer has not */
	SMC_DIAG_PEERCLOSEWAIT2 = 21,	/* we closed, the peer ended writing */
	SMC_DIAG_APPCLOSEWAIT1 = 22,	/* the peer ended, we have not */
	SMC_DIAG_APPFINCLOSEWAIT = 24,	/* we ended writing, the peer closed */
	SMC_DIAG_PEERABORTWAIT = 26,	/* we aborted */
	SMC_DIAG_PROCESSABORT = 27,	/* the peer aborted or the lgr went */
};

static u8 smc_diag_state(struct smc_sock *smc)
{
	u8 state = READ_ONCE(smc->sk.sk_state);
	struct smc_conn *conn = &smc->conn;
	bool local_end, peer_end;

	if (state != SMC_DIAG_ACTIVE || READ_ONCE(smc->use_fallback))
		return state;
	spin_lock_bh(&conn->lock);
	local_end = conn->local_closed || conn->local_done_writing;
	peer_end = conn->peer_closed || conn->peer_done_writing;
	if (conn->peer_abort || conn->dead)
		state = SMC_DIAG_PROCESSABORT;
	else if (conn->local_abort)
		state = SMC_DIAG_PEERABORTWAIT;
	else if (local_end && !peer_end)
		state = SMC_DIAG_PEERCLOSEWAIT1;
	else if (!local_end && peer_end)
		state = SMC_DIAG_APPCLOSEWAIT1;
	else if (local_end && conn->local_closed)
		state = conn->peer_closed ? SMC_DIAG_CLOSED :
					    SMC_DIAG_PEERCLOSEWAIT2;
	else if (local_end)
		state = SMC_DIAG_APPFINCLOSEWAIT;
	spin_unlock_bh(&conn->lock);
	return state;
}

static struct smc_lgr *smc_diag_conn(struct smc_conn *conn,
				     struct smc_diag_conninfo *ci,
				     struct smc_link **link, bool *server)
{
	struct smc_lgr *lgr = NULL;
	u32 sndbuf, rmb, peer;
	bool blocked;

	spin_lock_bh(&conn->lock);
	if (!conn->attached)
		goto out;
	/*
	 * smc_conn_free() clears lc.lgr before it clears attached, and it
	 * holds a reference of its own until after that.
	 */
	lgr = READ_ONCE(conn->lc.lgr);
	if (!lgr)
		goto out;
	/* the connection's reference may go once we unlock */
	kref_get(&lgr->ref);
	*link = READ_ONCE(conn->lc.link);
	*server = lgr->server;

	sndbuf = conn->sndbuf ? conn->sndbuf->size : 0;
	rmb = conn->rmb ? conn->rmb->size : 0;
	peer = conn->peer_rmb_size;
	memset(ci, 0, sizeof(*ci));
	ci->token = conn->lc.token;
	ci->sndbuf_size = sndbuf;
	ci->rmbe_size = rmb;
	ci->peer_rmbe_size = peer;
	smc_diag_wire_curs(&ci->rx_prod, &conn->peer_prod_curs);
	smc_diag_wire_curs(&ci->rx_cons, &conn->peer_cons_curs);
	smc_diag_curs(&ci->tx_prod, conn->tx_written, peer);
	smc_diag_curs(&ci->tx_cons, conn->rx_cons_sent, rmb);
	ci->rx_prod_flags =
		(conn->peer_write_blocked ? SMC_DIAG_PROD_WRITE_BLOCKED : 0) |
		(conn->peer_upd_req ? SMC_DIAG_PROD_CONS_UPD_REQ : 0);
	ci->rx_conn_state_flags =
		smc_diag_state_flags(conn->peer_done_writing,
				     conn->peer_closed, conn->peer_abort);
	/* as smc_cdc_push_locked() sets them: data waits for peer space */
	blocked = conn->tx_queued > conn->tx_written &&
		  conn->tx_written - conn->peer_cons >= peer;
	ci->tx_prod_flags = blocked ? SMC_DIAG_PROD_WRITE_BLOCKED |
				      SMC_DIAG_PROD_CONS_UPD_REQ : 0;
	ci->tx_conn_state_flags =
		smc_diag_state_flags(conn->local_done_writing,
				     conn->local_closed, conn->local_abort);
	smc_diag_curs(&ci->tx_prep, conn->tx_queued, sndbuf);
	smc_diag_curs(&ci->tx_sent, conn->tx_written, sndbuf);
	smc_diag_curs(&ci->tx_fin, conn->tx_done, sndbuf);
out:
	spin_unlock_bh(&conn->lock);
	return lgr;
}

/* SMC_DIAG_CONNINFO and SMC_DIAG_LGRINFO, as far as asked and existing */
static int smc_diag_fill_smcr(struct sk_buff *skb, struct smc_sock *smc,
			      u8 ext)
{
	const bool want_lgr = ext & (1 << (SMC_DIAG_LGRINFO - 1));
	struct smc_diag_conninfo ci;
	struct smc_diag_lgrinfo li;
	struct smc_link_info link;
	struct smc_link *lnk = NULL;
	struct smc_lgr *lgr;
	bool server = false;
	int rc = 0;

	if (!(ext & (1 << (SMC_DIAG_CONNINFO - 1))) && !want_lgr)
		return 0;
	lgr = smc_diag_conn(&smc->conn, &ci, &lnk, &server);
	if (!lgr)
		return 0;
	if ((ext & (1 << (SMC_DIAG_CONNINFO - 1))) &&
	    nla_put(skb, SMC_DIAG_CONNINFO, sizeof(ci), &ci)) {
		rc = -EMSGSIZE;
		goto out;
	}
	if (!want_lgr || !lnk || !smc_lgr_link_info(lgr, lnk, &link))
		goto out;
	memset(&li, 0, sizeof(li));
	li.role = server;
	li.lnk[0].link_id = link.link_id;
	li.lnk[0].ibport = link.port;
	strscpy(li.lnk[0].ibname, link.ibname, sizeof(li.lnk[0].ibname));
	smc_diag_gid(li.lnk[0].gid, sizeof(li.lnk[0].gid), link.gid);
	smc_diag_gid(li.lnk[0].peer_gid, sizeof(li.lnk[0].peer_gid),
		     link.peer_gid);
	if (nla_put(skb, SMC_DIAG_LGRINFO, sizeof(li), &li))
		rc = -EMSGSIZE;
out:
	smc_lgr_put(lgr);
	return rc;
}

static int smc_diag_fill(struct sk_buff *skb, struct netlink_callback *cb,
			 const struct smc_diag_ent *ent)
{
	struct user_namespace *user_ns = sk_user_ns(NETLINK_CB(cb->skb).sk);
	const struct smc_diag_req *req = nlmsg_data(cb->nlh);
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
	r->diag_state = smc_diag_state(smc);
	r->diag_mode = READ_ONCE(smc->use_fallback) ?
		       SMC_DIAG_MODE_FALLBACK_TCP : SMC_DIAG_MODE_SMCR;
	r->diag_shutdown = shutdown;
	sock_diag_save_cookie(sk, r->id.idiag_cookie);
	if (ent->clcsk)
		smc_diag_fill_id(&r->id, ent->clcsk);
	r->diag_uid = from_kuid_munged(user_ns, sk_uid(sk));
	r->diag_inode = sock_i_ino(sk);

	fallback.reason = READ_ONCE(smc->fallback_reason);
	fallback.peer_diagnosis = READ_ONCE(smc->peer_diagnosis);
	if (nla_put_u8(skb, SMC_DIAG_SHUTDOWN, shutdown) ||
	    nla_put(skb, SMC_DIAG_FALLBACK, sizeof(fallback), &fallback) ||
	    smc_diag_fill_smcr(skb, smc, req->diag_ext)) {
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
