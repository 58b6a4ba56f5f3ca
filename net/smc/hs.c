// SPDX-License-Identifier: GPL-2.0
/*
 * The SMC-R part of the CLC handshake: from a proposal to a connection on
 * a link group.
 *
 * connect.c and listen.c run the TCP side and call smc_hs_client() and
 * smc_hs_server() once the peer announced SMC.  Both return 0 when the
 * socket talks SMC-R from now on, or the reason to fall back with; any
 * decline the peer has to see is sent here.  The decisions themselves
 * (versions, EIDs, releases, limits) are taken by clc_nego.c; this file
 * gathers the local facts, does the I/O and sets up the link group, the
 * link and the buffers.
 *
 * First contact and reuse are decided under a claim on the peer (the link
 * group layer's smc_lgr_pending_lock(), per namespace, role, TCP peer
 * address and peer system id), so two handshakes to the same peer never
 * both create a link group, and a link group being confirmed is not
 * reused before it works.  A first contact keeps the claim until its link
 * is up or given up; a reuse gives it back once its connection is
 * attached.  Handshakes with other peers never wait for each other.
 */
#include <linux/inetdevice.h>
#include <linux/slab.h>
#include <linux/utsname.h>
#include <net/addrconf.h>
#include <net/arp.h>
#include <net/route.h>
#include <net/tcp.h>
#include "smc.h"
#include "clc.h"
#include "clc_nego.h"
#include "conn.h"
#include "core.h"
#include "eid.h"
#include "pnet.h"
#include "sysctl.h"
#include "testhooks.h"

/* Everything one handshake needs, too large for the stack. */
struct smc_hs {
	struct smc_nego_local local;
	struct smc_nego_result res;
	struct smc_clc_proposal prop;
	struct smc_clc_accept_confirm ac;	/* the accept */
	struct smc_clc_accept_confirm cf;	/* the confirm */
	struct smc_ib_dev *dev;
	u8 port;
	u8 sgid_v1;
	u8 sgid_v2;
	unsigned short vlan;
	__be32 saddr;
	__be32 daddr;
	bool confirm_timeout;		/* server: no CLC confirm in time */
	bool iwarp;			/* dev's port is iWARP (iw.c) */
	u8 buf[SMC_CLC_MAX_MSG_LEN];
};

static void smc_hs_free(struct smc_hs *hs)
{
	if (hs->dev)
		smc_ib_put(hs->dev);
	kfree(hs);
}

static bool smc_gid_is_v4(const u8 *gid, __be32 addr)
{
	static const u8 prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid, prefix, sizeof(prefix)) &&
	       !memcmp(gid + 12, &addr, 4);
}

/* The IPv4 prefix of the interface address @saddr, for a v1 proposal. */
static void smc_hs_ipv4_prefix(struct net_device *ndev, __be32 saddr,
			       struct smc_nego_local *l)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			if (!inet_ifa_match(saddr, ifa))
				continue;
			l->ipv4_subnet = ifa->ifa_address & ifa->ifa_mask;
			l->ipv4_prefix_len = ifa->ifa_prefixlen;
			break;
		}
	}
	rcu_read_unlock();
}

#if IS_ENABLED(CONFIG_IPV6)
static void smc_hs_ipv6_prefixes(struct net_device *ndev,
				 struct smc_nego_local *l)
{
	struct inet6_dev *idev = in6_dev_get(ndev);
	struct inet6_ifaddr *ifp;

	if (!idev)
		return;
	read_lock_bh(&idev->lock);
	list_for_each_entry(ifp, &idev->addr_list, if_list) {
		if (l->ipv6_cnt >= SMC_CLC_MAX_V6_PREFIX)
			break;
		if (ipv6_addr_type(&ifp->addr) & IPV6_ADDR_LINKLOCAL)
			continue;
		ipv6_addr_prefix((struct in6_addr *)l->ipv6[l->ipv6_cnt].prefix,
				 &ifp->addr, ifp->prefix_len);
		l->ipv6[l->ipv6_cnt].prefix_len = ifp->prefix_len;
		l->ipv6_cnt++;
	}
	read_unlock_bh(&idev->lock);
	in6_dev_put(idev);
}
#else
static void smc_hs_ipv6_prefixes(struct net_device *ndev,
				 struct smc_nego_local *l)
{
}
#endif

/* which devices smc_hs_local() may pick */
enum smc_hs_kind {
	SMC_HS_ROCE,		/* server: a RoCE client's proposal */
	SMC_HS_IWARP,		/* server: an iWARP client's proposal */
	SMC_HS_ANY,		/* client: RoCE, else iWARP */
};

/*
 * An iWARP port: SMC-R v2 only, IPv4 only, no VLAN, the "GID" the IPv4
 * address v4-mapped (what rdma_cm connects to), and no WRITE WITH
 * IMMEDIATE (iWARP has none).
 */
static void smc_hs_local_iwarp(struct smc_hs *hs, struct sock *clcsk)
{
	struct smc_nego_local *l = &hs->local;

	hs->iwarp = true;
	l->vx = (l->vx & ~SMC_NEGO_VX_WIMM) | SMC_NEGO_VX_IWARP;
	if (clcsk->sk_family != AF_INET || hs->vlan ||
	    !net_eq(sock_net(clcsk), &init_net))
		return;
	ipv6_addr_set_v4mapped(hs->saddr, (struct in6_addr *)l->roce_v2_gid);
	hs->sgid_v2 = 0;
	l->r_v2 = true;
}

/*
 * What this host can offer on @clcsk's route: the RDMA device behind the
 * outgoing netdev (of the kind @kind allows), its GIDs, the interface
 * prefixes, EIDs and limits.  Without a device both versions stay off and
 * negotiation declines.
 */
static void smc_hs_local(struct smc_hs *hs, struct sock *clcsk,
			 enum smc_hs_kind kind)
{
	struct smc_nego_local *l = &hs->local;
	const struct smc_net_cfg *cfg = smc_net_cfg(sock_net(clcsk));
	struct net_device *ndev;
	struct dst_entry *dst;

	l->release = SMC_NEGO_RELEASE;
	l->max_conns = READ_ONCE(cfg->smcr_max_conns_per_lgr);
	l->max_links = READ_ONCE(cfg->smcr_max_links_per_lgr);
	memcpy(l->systemid, smc_local_systemid, sizeof(l->systemid));
	l->ueid_cnt = smc_eid_ueids(l->ueids, SMC_CLC_MAX_UEID);
	/* every device this module drives (RoCE) can write with immediate */
	if (READ_ONCE(cfg->smcr_write_imm))
		l->vx |= SMC_NEGO_VX_WIMM;
	if (READ_ONCE(cfg->smcr_rmb_grow))
		l->vx |= SMC_NEGO_VX_GROW;

	dst = sk_dst_get(clcsk);
	if (!dst)
		return;
	ndev = dst->dev;
	if (is_vlan_dev(ndev))
		hs->vlan = vlan_dev_vlan_id(ndev);
	if (clcsk->sk_family == AF_INET) {
		hs->saddr = inet_sk(clcsk)->inet_saddr;
		hs->daddr = inet_sk(clcsk)->inet_daddr;
		smc_hs_ipv4_prefix(ndev, hs->saddr, l);
	} else {
		smc_hs_ipv6_prefixes(ndev, l);
	}
	memcpy(l->mac, ndev->dev_addr, ETH_ALEN);

	if (kind != SMC_HS_IWARP)
		hs->dev = smc_pnet_find_dev(sock_net(clcsk), ndev, &hs->port);
	if (!hs->dev && kind != SMC_HS_ROCE) {
		hs->dev = smc_ib_find_iwarp(ndev, &hs->port);
		if (hs->dev)
			smc_hs_local_iwarp(hs, clcsk);
	} else if (hs->dev) {
		l->r_v1 = !smc_ib_find_gid(hs->dev, hs->port, ndev, hs->vlan,
					   false, l->gid, &hs->sgid_v1);
		if (clcsk->sk_family == AF_INET &&
		    !smc_ib_find_gid(hs->dev, hs->port, ndev, hs->vlan, true,
				     l->roce_v2_gid, &hs->sgid_v2) &&
		    smc_gid_is_v4(l->roce_v2_gid, hs->saddr))
			l->r_v2 = true;
	}
	dst_release(dst);
}

/*
 * SMC-R v2 addresses the peer's RoCE GID by IP: find the next hop's MAC
 * for it, and whether a gateway is involved.
 */
static u32 smc_hs_nexthop(struct net *net, __be32 saddr, __be32 daddr,
			  u8 *mac, bool *direct)
{
	struct flowi4 fl4 = {
		.daddr = daddr,
		.saddr = saddr,
		.flowi4_scope = RT_SCOPE_UNIVERSE,
	};
	struct neighbour *neigh;
	struct rtable *rt;
	u32 reason = SMC_CLC_DECL_NOROUTE;

	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return reason;
	*direct = !rt->rt_uses_gateway;
	neigh = dst_neigh_lookup(&rt->dst, &daddr);
	if (neigh) {
		if (neigh->nud_state & NUD_VALID) {
			neigh_ha_snapshot(mac, neigh, rt->dst.dev);
			reason = 0;
		}
		neigh_release(neigh);
	}
	ip_rt_put(rt);
	return reason;
}

static void smc_hs_hostname(struct smc_clc_fce *fce)
{
	const char *name = utsname()->nodename;
	size_t n = strnlen(name, SMC_CLC_HOSTNAME_LEN);

	memset(fce->hostname, ' ', SMC_CLC_HOSTNAME_LEN);
	memcpy(fce->hostname, name, n);
}

/* A new link group (first contact) with our end as the handshake found it. */
static struct smc_lgr *smc_hs_lgr_create(struct smc_hs *hs,
					 const struct smc_lgr_key *key,
					 bool direct)
{
	bool v2 = hs->res.version == SMC_V2;
	struct smc_lgr_local lloc = {
		.dev = hs->dev,
		.port = hs->port,
		.sgid_index = v2 ? hs->sgid_v2 : hs->sgid_v1,
		.max_conns = hs->res.max_conns,
		.max_links = hs->res.max_links,
		.release = hs->res.release,
		.direct = direct,
		/* a server knows them only from the confirm */
		.vx = key->server ? 0 : hs->res.vx,
	};

	memcpy(lloc.gid, v2 ? hs->local.roce_v2_gid : hs->local.gid,
	       SMC_CLC_GID_LEN);
	memcpy(lloc.mac, hs->local.mac, ETH_ALEN);
	if (v2)
		memcpy(lloc.eid, hs->res.eid, SMC_CLC_EID_LEN);
	return smc_lgr_create(key, &lloc);
}

/* What a v2 first contact told about the peer, for smcctl/netlink. */
static void smc_hs_lgr_peer(struct smc_lgr *lgr,
			    const struct smc_clc_accept_confirm *ac)
{
	size_t n = SMC_CLC_HOSTNAME_LEN;

	if (ac->hdr.version < SMC_V2 || !ac->hdr.first_contact)
		return;
	while (n && (ac->fce.hostname[n - 1] == ' ' ||
		     !ac->fce.hostname[n - 1]))
		n--;
	lgr->peer_os = ac->fce.os_type;
	memcpy(lgr->peer_hostname, ac->fce.hostname, n);
	lgr->peer_hostname[n] = '\0';
}

/*
 * Give the socket's connection its buffers, then attach it to @lgr on
 * @link.  Attaching publishes the connection: from then on a CDC message
 * carrying its token reaches it in softirq context, so everything such a
 * message touches (the RMB above all) must exist before.  @vx: the
 * extensions of the link group, which a server learns only from the
 * confirm of a first contact: what it accepted then (a client of ours
 * takes all of it).
 */
static u32 smc_hs_conn_attach(struct smc_sock *smc, struct smc_lgr *lgr,
			      struct smc_link *link, u16 vx)
{
	const struct smc_net_cfg *cfg = smc_net_cfg(sock_net(&smc->sk));
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	struct mem_cgroup *memcg;
	bool grow;
	int rc;

	memcg = smc_memcg_enter(sk);
	/* the smallest, grown at the first large write (tx.c) */
	conn->sndbuf_comp = smc_bufsize_pick(false, sk->sk_sndbuf,
					     sk->sk_userlocks & SOCK_SNDBUF_LOCK,
					     READ_ONCE(cfg->wmem), 0, 0);
	conn->sndbuf = smc_buf_get(lgr, false, 0);
	/*
	 * RMBs are pinned and the peer may fill them: a crowded link group
	 * (many connections, most of them idle in practice) gives new ones
	 * half of net.smc.rmem.  A size the application set stays.  This
	 * connection counts among them.  With RMB growth the RMB starts at
	 * the smallest size and moves to that one when the peer streams
	 * (grow.c).
	 */
	conn->rmb_goal = smc_bufsize_pick(true, sk->sk_rcvbuf,
					  sk->sk_userlocks & SOCK_RCVBUF_LOCK,
					  READ_ONCE(cfg->rmem),
					  READ_ONCE(lgr->conns_num) + 1,
					  SMC_LGR_ROOMY_CONNS);
	grow = (vx & SMC_NEGO_VX_GROW) &&
	       !(sk->sk_userlocks & SOCK_RCVBUF_LOCK);
	conn->rmb = smc_buf_get(lgr, true, grow ? 0 : conn->rmb_goal);
	smc_memcg_leave(memcg);
	if (!conn->sndbuf || !conn->rmb) {
		rc = -ENOMEM;
		goto put_bufs;
	}
	conn->rx_upd_limit = smc_cdc_wnd_update_limit(conn->rmb->size);
	rc = smc_lgr_conn_add(lgr, &conn->lc, link);
	if (rc)
		goto put_bufs;
	smc_faultinj_attach_delay();
	/* CDC messages for the token are taken from here on (cdc.c) */
	spin_lock_bh(&conn->lock);
	conn->attached = true;
	spin_unlock_bh(&conn->lock);
	return 0;

put_bufs:
	smc_conn_bufs_put(conn, lgr);
	if (rc == -ENOMEM)
		return SMC_CLC_DECL_MEM;
	return rc == -ENOSPC ? SMC_CLC_DECL_MAXCONNERR :
			       SMC_CLC_DECL_NOACTLINK;
}

/* The peer's RMB and token, from its accept or confirm. */
static u32 smc_hs_conn_peer(struct smc_conn *conn,
			    const struct smc_clc_accept_confirm *ac)
{
	int size = smc_bufsize_uncompress(ac->rmbe_size);
	int idx;

	if (size < 0 || ac->rmbe_idx < 1)
		return SMC_CLC_DECL_ERR_RTOK;
	idx = smc_rtoken_add(conn->lc.lgr, conn->lc.link,
			     ac->rmb_dma_addr + (u64)size * (ac->rmbe_idx - 1),
			     ac->rmb_rkey);
	if (idx < 0)
		return SMC_CLC_DECL_ERR_RTOK;
	/* CDC messages may already arrive (see smc_cdc_push_once()) */
	spin_lock_bh(&conn->lock);
	conn->lc.peer_rtoken = idx;
	conn->peer_token = ac->rmbe_alert_token;
	conn->peer_rmb_size = size;
	spin_unlock_bh(&conn->lock);
	return 0;
}

/* Our link and buffer fields of an accept or confirm. */
static void smc_hs_fill_local(struct smc_sock *smc,
			      struct smc_clc_accept_confirm *ac)
{
	struct smc_conn *conn = &smc->conn;
	struct smc_link *link = conn->lc.link;

	memcpy(ac->id_for_peer, smc_local_systemid, SMC_CLC_SYSTEMID_LEN);
	memcpy(ac->gid, link->gid, SMC_CLC_GID_LEN);
	memcpy(ac->mac, link->mac, SMC_CLC_MAC_LEN);
	ac->qpn = link->qpn;
	ac->rmb_rkey = conn->rmb->map[link->idx].rkey;
	ac->rmbe_idx = 1;
	ac->rmbe_alert_token = conn->lc.token;
	ac->rmbe_size = conn->rmb->comp;
	ac->qp_mtu = link->path_mtu;
	ac->rmb_dma_addr = conn->rmb->map[link->idx].dma_addr;
	ac->psn = link->psn;
	smc_hs_hostname(&ac->fce);
}

static int smc_hs_send_ac(struct smc_sock *smc, struct smc_hs *hs,
			  struct smc_clc_accept_confirm *ac)
{
	int len = smc_clc_accept_confirm_encode(ac, hs->buf, sizeof(hs->buf));

	if (len < 0)
		return len;
	return smc_clc_send(smc->clcsock, hs->buf, len);
}

/*
 * Give up a connection that did not make it.  A first contact still holds
 * its claim on the peer, so nobody has joined the link group meanwhile.
 */
static void smc_hs_undo(struct smc_sock *smc, struct smc_lgr *lgr,
			bool first_contact)
{
	if (smc->conn.attached)
		smc_conn_free(smc);
	if (lgr) {
		if (first_contact)
			smc_lgr_terminate(lgr, 0);
		smc_lgr_put(lgr);
	}
}

/*
 * Receive the next CLC message of type @want (or a decline) into hs->buf.
 * Returns its length or a negative reason: -SMC_CLC_DECL_PEERDECL for a
 * decline (peer_diagnosis saved), or the reason to decline with.
 */
static long smc_hs_recv(struct smc_sock *smc, struct smc_hs *hs, u8 want,
			u32 timeout_reason)
{
	struct smc_clc_decline decl;
	struct smc_clc_hdr hdr;
	int len;

	len = smc_clc_recv_msg(smc->clcsock, hs->buf, sizeof(hs->buf),
			       SMC_CLC_WAIT_TIME, &hdr);
	if (len == -EAGAIN)
		return -(long)timeout_reason;
	if (len < 0)
		return -(long)SMC_CLC_DECL_SYNCERR;
	if (hdr.type == SMC_CLC_DECLINE) {
		if (!smc_clc_decline_decode(hs->buf, len, &decl))
			smc->peer_diagnosis = decl.peer_diagnosis;
		return -(long)SMC_CLC_DECL_PEERDECL;
	}
	if (hdr.type != want)
		return -(long)SMC_CLC_DECL_SYNCERR;
	return len;
}

/*
 * The first link failed on our side.  The peer may have given up first and
 * sent a decline: take it out of the stream (it must not reach the
 * application after the fallback) and answer none of our own.
 */
static u32 smc_hs_link_failed(struct smc_sock *smc, struct smc_hs *hs,
			      u32 reason)
{
	struct smc_clc_decline decl;
	struct smc_clc_hdr hdr;
	int len;

	len = smc_clc_recv_msg(smc->clcsock, hs->buf, sizeof(hs->buf), HZ,
			       &hdr);
	if (len > 0 && hdr.type == SMC_CLC_DECLINE) {
		if (!smc_clc_decline_decode(hs->buf, len, &decl))
			smc->peer_diagnosis = decl.peer_diagnosis;
		return SMC_CLC_DECL_PEERDECL;
	}
	return reason;
}

static void smc_hs_decline(struct smc_sock *smc, u32 reason, u8 version)
{
	if (reason != SMC_CLC_DECL_PEERDECL)
		smc_clc_send_decline(smc->clcsock, reason, version);
}

/*
 * We gave up waiting for the peer's @owed message (accept or confirm) and
 * declined.  The peer may still send it: a host busy with many handshakes
 * answers late, then reads our decline and falls back.  Its message must
 * not reach the application as data.  Wait, bounded, and drop the peer's
 * decline, or its late @owed message when @owed_ok (a late accept: the
 * server falls back on our decline).  Otherwise nothing tells where the
 * stream's data starts, or the peer went on with SMC-R (a late confirm):
 * abort the TCP connection, so the application sees an error, never CLC
 * bytes.
 */
static void smc_hs_late(struct smc_sock *smc, struct smc_hs *hs, u8 owed,
			bool owed_ok)
{
	struct smc_clc_hdr hdr;
	int len;

	len = smc_clc_recv_msg(smc->clcsock, hs->buf, sizeof(hs->buf),
			       SMC_CLC_WAIT_TIME, &hdr);
	if (len > 0 && (hdr.type == SMC_CLC_DECLINE ||
			(owed_ok && hdr.type == owed)))
		return;
	/* neither SMC-R nor a stream TCP could carry on with */
	smc_stats_hs_error(sock_net(&smc->sk), smc->server);
	tcp_abort(smc->clcsock->sk, ETIMEDOUT);
}

/*
 * How long a handshake waits for another one with the same peer: the peer
 * gives up on us after one CLC wait anyway.
 */
#define SMC_HS_PENDING_WAIT	SMC_CLC_WAIT_TIME

/* The TCP peer's address, IPv4 as v4-mapped, for the link group key. */
static void smc_hs_peer_addr(const struct sock *clcsk, struct in6_addr *a)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (clcsk->sk_family == AF_INET6) {
		*a = clcsk->sk_v6_daddr;
		return;
	}
#endif
	ipv6_addr_set_v4mapped(inet_sk(clcsk)->inet_daddr, a);
}

/* Client, after the accept: link group, buffers, confirm, first link. */
static u32 smc_hs_client_rdma(struct smc_sock *smc, struct smc_hs *hs)
{
	struct smc_clc_accept_confirm *acc = &hs->ac, *cf = &hs->cf;
	struct smc_lgr_pending pending = {};
	struct smc_lgr_key key = {};
	struct smc_link_peer peer = {};
	struct smc_lgr *lgr = NULL;
	struct smc_link *link;
	bool first = acc->hdr.first_contact;
	bool v2 = hs->res.version == SMC_V2;
	bool direct = true;
	u32 reason;

	key.net = sock_net(&smc->sk);
	key.server = false;
	key.version = hs->res.version;
	memcpy(key.peer_systemid, acc->id_for_peer, SMC_CLC_SYSTEMID_LEN);
	memcpy(key.peer_gid, acc->gid, SMC_CLC_GID_LEN);
	memcpy(key.peer_mac, acc->mac, ETH_ALEN);
	smc_hs_peer_addr(smc->clcsock->sk, &key.peer_addr);
	key.vlan = hs->vlan;
	key.iwarp = hs->iwarp;

	peer.qpn = acc->qpn;
	peer.psn = acc->psn;
	peer.mtu = acc->qp_mtu;
	memcpy(peer.gid, acc->gid, SMC_CLC_GID_LEN);
	memcpy(peer.mac, acc->mac, ETH_ALEN);
	if (v2) {
		reason = smc_hs_nexthop(key.net, hs->saddr,
					smc_gid_v4(acc->gid), peer.mac,
					&direct);
		if (reason)
			return reason;
	}

	if (smc_lgr_pending_lock(&pending, &key, SMC_HS_PENDING_WAIT))
		return SMC_CLC_DECL_INTERR;
	if (first) {
		lgr = smc_hs_lgr_create(hs, &key, direct);
		if (!lgr) {
			reason = SMC_CLC_DECL_MEM;
			goto out;
		}
		link = &lgr->links[0];
	} else {
		lgr = smc_lgr_find(&key);
		if (!lgr) {
			/* the server reuses a link group we do not have */
			reason = SMC_CLC_DECL_SYNCERR;
			goto out;
		}
		link = smc_lgr_find_link(lgr, acc->qpn, acc->gid);
		if (!link) {
			reason = SMC_CLC_DECL_NOSRVLINK;
			goto out;
		}
	}
	reason = smc_hs_conn_attach(smc, lgr, link,
				    first ? hs->res.vx : READ_ONCE(lgr->vx));
	if (reason)
		goto out;
	reason = smc_hs_conn_peer(&smc->conn, acc);
	if (reason)
		goto out;
	if (first) {
		if (smc_link_rtr(link, &peer)) {
			reason = SMC_CLC_DECL_ERR_RDYLNK;
			goto out;
		}
	} else {
		if (smc_buf_confirm_rkey(lgr, smc->conn.rmb)) {
			reason = SMC_CLC_DECL_ERR_REGBUF;
			goto out;
		}
		/* joined a working link group: others may join it too */
		smc_lgr_pending_unlock(&pending);
	}

	memset(cf, 0, sizeof(*cf));
	smc_nego_fill_confirm(&hs->res, first, cf);
	smc_hs_fill_local(smc, cf);
	cf->fce.v2_direct = direct;
	if (v2 && first) {
		cf->gid_cnt = 1;
		memcpy(cf->gids[0], link->gid, SMC_CLC_GID_LEN);
	}
	if (smc_hs_send_ac(smc, hs, cf)) {
		reason = SMC_CLC_DECL_INTERR;
		goto out;
	}
	if (first) {
		smc_hs_lgr_peer(lgr, acc);
		reason = smc_llc_first_link_client(link, 2 * SMC_LLC_WAIT_TIME);
		if (reason) {
			reason = smc_hs_link_failed(smc, hs, reason);
			goto out;
		}
		smc->conn.rmb->rkey_confirmed = true;
	}
	smc_lgr_pending_unlock(&pending);
	smc_lgr_put(lgr);	/* the connection holds its own */
	return 0;
out:
	smc_hs_undo(smc, lgr, first);
	smc_lgr_pending_unlock(&pending);
	return reason;
}

/*
 * The client's SMC-R handshake on a connected clcsock whose peer announced
 * SMC.  Returns 0 (SMC-R) or the fallback reason.
 */
u32 smc_hs_client(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;
	struct smc_hs *hs;
	u8 version = SMC_V1;
	u32 reason;
	long len;

	hs = kzalloc(sizeof(*hs), GFP_KERNEL);
	if (!hs) {
		reason = SMC_CLC_DECL_MEM;
		goto decline;
	}
	smc_hs_local(hs, clcsk, SMC_HS_ANY);
	if (smc_nego_proposal(&hs->local, &hs->prop, &reason))
		goto decline;
	version = SMC_V2;
	len = smc_clc_proposal_encode(&hs->prop, hs->buf, sizeof(hs->buf));
	if (len < 0 || smc_clc_send(smc->clcsock, hs->buf, len)) {
		reason = SMC_CLC_DECL_INTERR;
		smc_stats_hs_error(sock_net(&smc->sk), false);
		goto out;	/* the peer sees a broken stream or nothing */
	}
	len = smc_hs_recv(smc, hs, SMC_CLC_ACCEPT, SMC_CLC_DECL_TIMEOUT_AL);
	if (len < 0) {
		reason = -len;
		if (reason != SMC_CLC_DECL_TIMEOUT_AL)
			goto decline;
		smc_hs_decline(smc, reason, version);
		smc_hs_late(smc, hs, SMC_CLC_ACCEPT, true);
		goto out;
	}
	if (smc_clc_accept_confirm_decode(hs->buf, len, &hs->ac)) {
		reason = SMC_CLC_DECL_SYNCERR;
		goto decline;
	}
	version = hs->ac.hdr.version;
	reason = smc_nego_client(&hs->prop, &hs->ac, &hs->local, &hs->res);
	if (reason)
		goto decline;
	if (!hs->dev) {
		reason = SMC_CLC_DECL_NOSMCRDEV;
		goto decline;
	}
	reason = smc_hs_client_rdma(smc, hs);
	if (reason)
		goto decline;
	smc_conn_hs_done(&smc->conn);
	smc_stats_hs_success(sock_net(&smc->sk), false, hs->res.version);
	goto out;
decline:
	smc_hs_decline(smc, reason, version);
out:
	if (hs)
		smc_hs_free(hs);
	return reason;
}

/* Server, after deciding: link group, buffers, accept, confirm, link. */
static u32 smc_hs_server_rdma(struct smc_sock *smc, struct smc_hs *hs)
{
	struct smc_clc_proposal *p = &hs->prop;
	struct smc_clc_accept_confirm *acc = &hs->ac, *cf = &hs->cf;
	struct smc_lgr_pending pending = {};
	struct smc_lgr_key key = {};
	struct smc_link_peer peer = {};
	struct smc_lgr *lgr;
	struct smc_link *link;
	bool v2 = hs->res.version == SMC_V2;
	bool direct = true;
	bool first = false;
	u8 peer_mac[ETH_ALEN];
	u32 reason;
	long len;

	key.net = sock_net(&smc->sk);
	key.server = true;
	key.version = hs->res.version;
	memcpy(key.peer_systemid, p->id_for_peer, SMC_CLC_SYSTEMID_LEN);
	memcpy(key.peer_gid, v2 ? p->roce_gid : p->gid, SMC_CLC_GID_LEN);
	memcpy(key.peer_mac, p->mac, ETH_ALEN);
	smc_hs_peer_addr(smc->clcsock->sk, &key.peer_addr);
	key.vlan = hs->vlan;
	key.iwarp = hs->iwarp;
	memcpy(peer_mac, p->mac, ETH_ALEN);
	if (v2) {
		reason = smc_hs_nexthop(key.net, hs->saddr,
					smc_gid_v4(p->roce_gid), peer_mac,
					&direct);
		if (reason)
			return reason;
	}

	if (smc_lgr_pending_lock(&pending, &key, SMC_HS_PENDING_WAIT))
		return SMC_CLC_DECL_INTERR;
	lgr = smc_lgr_find(&key);
	if (!lgr) {
		first = true;
		lgr = smc_hs_lgr_create(hs, &key, direct);
		if (!lgr) {
			reason = SMC_CLC_DECL_MEM;
			goto out;
		}
		link = &lgr->links[0];
	} else {
		link = smc_lgr_pick_link(lgr);
		if (!link) {
			reason = SMC_CLC_DECL_NOACTLINK;
			goto out;
		}
	}
	reason = smc_hs_conn_attach(smc, lgr, link,
				    first ? hs->res.vx : READ_ONCE(lgr->vx));
	if (reason)
		goto out;
	if (!first) {
		if (smc_buf_confirm_rkey(lgr, smc->conn.rmb)) {
			reason = SMC_CLC_DECL_ERR_REGBUF;
			goto out;
		}
		/* a working link group: the wait for the confirm is ours */
		smc_lgr_pending_unlock(&pending);
	}

	memset(acc, 0, sizeof(*acc));
	smc_nego_fill_accept(&hs->res, first, acc);
	smc_hs_fill_local(smc, acc);
	acc->fce.v2_direct = direct;
	if (smc_hs_send_ac(smc, hs, acc)) {
		reason = SMC_CLC_DECL_INTERR;
		goto out;
	}
	len = smc_hs_recv(smc, hs, SMC_CLC_CONFIRM, SMC_CLC_DECL_TIMEOUT_CL);
	if (len < 0) {
		reason = -len;
		hs->confirm_timeout = reason == SMC_CLC_DECL_TIMEOUT_CL;
		goto out;
	}
	if (smc_clc_accept_confirm_decode(hs->buf, len, cf)) {
		reason = SMC_CLC_DECL_SYNCERR;
		goto out;
	}
	reason = smc_nego_confirm(&hs->res, cf);
	if (reason)
		goto out;
	/* before the link is ready: the first WIMM finds it set */
	if (first)
		WRITE_ONCE(lgr->vx, smc_nego_confirm_vx(&hs->res, cf));
	reason = smc_hs_conn_peer(&smc->conn, cf);
	if (reason)
		goto out;
	if (first) {
		peer.qpn = cf->qpn;
		peer.psn = cf->psn;
		peer.mtu = cf->qp_mtu;
		memcpy(peer.gid, cf->gid, SMC_CLC_GID_LEN);
		memcpy(peer.mac, v2 ? peer_mac : cf->mac, ETH_ALEN);
		if (smc_link_rtr(link, &peer) || smc_link_rts(link)) {
			reason = SMC_CLC_DECL_ERR_RDYLNK;
			goto out;
		}
		smc_hs_lgr_peer(lgr, cf);
		reason = smc_llc_first_link_server(link, SMC_LLC_WAIT_TIME);
		if (reason) {
			reason = smc_hs_link_failed(smc, hs, reason);
			goto out;
		}
		smc->conn.rmb->rkey_confirmed = true;
	}
	smc_lgr_pending_unlock(&pending);
	smc_lgr_put(lgr);
	return 0;
out:
	smc_hs_undo(smc, lgr, first);
	smc_lgr_pending_unlock(&pending);
	return reason;
}

/*
 * The server's SMC-R handshake for a child whose peer sent the proposal
 * in @buf (@len bytes).  Returns 0 (SMC-R) or the fallback reason.
 */
u32 smc_hs_server(struct smc_sock *child, const u8 *buf, int len,
		  u8 version)
{
	struct smc_hs *hs;
	u32 reason;

	hs = kzalloc(sizeof(*hs), GFP_KERNEL);
	if (!hs) {
		reason = SMC_CLC_DECL_MEM;
		goto decline;
	}
	if (smc_clc_proposal_decode(buf, len, &hs->prop)) {
		reason = SMC_CLC_DECL_SYNCERR;
		goto decline;
	}
	smc_hs_local(hs, child->clcsock->sk,
		     smc_nego_prop_iwarp(&hs->prop) ? SMC_HS_IWARP :
						      SMC_HS_ROCE);
	reason = smc_nego_server(&hs->prop, &hs->local, &hs->res);
	if (reason)
		goto decline;
	version = hs->res.version;
	reason = smc_hs_server_rdma(child, hs);
	if (reason)
		goto decline;
	smc_conn_hs_done(&child->conn);
	smc_stats_hs_success(sock_net(&child->sk), true, hs->res.version);
	smc_hs_free(hs);
	return 0;
decline:
	smc_hs_decline(child, reason, version);
	/*
	 * Only a CLC confirm that never came can still come.  The first
	 * link's LLC timeout has the same reason code, but the confirm is
	 * in by then, and a peer that takes our decline falls back without
	 * one of its own (smc_hs_link_failed() took a crossing one).
	 */
	if (hs && hs->confirm_timeout)
		smc_hs_late(child, hs, SMC_CLC_CONFIRM, false);
	if (hs)
		smc_hs_free(hs);
	return reason;
}
