// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: connecting the QP of a link on
 * an iWARP device through rdma_cm.  See iw.h.
 *
 * Only the initial network namespace: an rdma_cm id pins its namespace,
 * so a listener elsewhere would keep that namespace from ever going away.
 */
#include <linux/completion.h>
#include <linux/errno.h>
#include <linux/in.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "iw.h"
#include "sysctl.h"

/* the private data of a connect request: which server QP is wanted */
#define SMC_IW_MAGIC		0x534d4369	/* "SMCi" */
#define SMC_IW_VERSION		1
#define SMC_IW_BACKLOG		64
#define SMC_IW_RESOLVE_MS	5000

struct smc_iw_pdata {
	__be32 magic;
	u8 version;
	u8 reserved[3];
	__be32 server_qpn;
	__be32 client_qpn;
} __packed;

/* what an rdma_cm id's context is */
enum smc_iw_kind {
	SMC_IW_LISTENER,
	SMC_IW_CONN,
};

enum smc_iw_state {
	SMC_IW_WAITING,		/* expected, or connecting */
	SMC_IW_UP,		/* established */
	SMC_IW_DOWN,		/* failed or gone; err says why */
};

struct smc_iw {
	enum smc_iw_kind kind;
	struct list_head list;	/* expected: on smc_iw_expected until released */
	struct ib_device *ibdev;
	u32 qpn;		/* our QP */
	__be32 peer;		/* the peer's address (a server's: once accepted) */
	u32 peer_qpn;		/* a server's: the QP the client named */
	struct rdma_cm_id *id;	/* the connection's, once there */
	enum smc_iw_state state;
	int err;
	bool released;		/* no more down() calls */
	struct completion done;	/* state left WAITING */
	smc_iw_down_t down;
	void *ctx;
	struct rdma_conn_param param;	/* client: kept for the connect */
	struct smc_iw_pdata pdata;
};

struct smc_iw_listener {
	enum smc_iw_kind kind;
	struct rdma_cm_id *id;
	u16 port;
};

/* the expected connections, the listener; handlers run in process context */
static DEFINE_MUTEX(smc_iw_lock);
static LIST_HEAD(smc_iw_expected);
static struct smc_iw_listener *smc_iw_listener;

static int smc_iw_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);

/* A state change of @iw from an event; smc_iw_lock held.  Returns whether
 * the owner is to be told that an established connection went away.
 */
static bool smc_iw_set(struct smc_iw *iw, enum smc_iw_state state, int err)
{
	enum smc_iw_state was = iw->state;

	lockdep_assert_held(&smc_iw_lock);
	if (was == SMC_IW_DOWN || was == state)
		return false;
	iw->state = state;
	iw->err = err;
	if (was == SMC_IW_WAITING)
		complete_all(&iw->done);
	return was == SMC_IW_UP && state == SMC_IW_DOWN && !iw->released;
}

/* an event of one of our connections (either end) */
static int smc_iw_conn_event(struct smc_iw *iw, struct rdma_cm_id *id,
			     struct rdma_cm_event *ev)
{
	bool tell = false;
	int rc = 0;

	/* the client's steps, not under smc_iw_lock: connecting may block */
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		/* another device serves the address: not our QP's */
		rc = id->device == iw->ibdev ?
		     rdma_resolve_route(id, SMC_IW_RESOLVE_MS) : -ENODEV;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		rc = rdma_connect_locked(id, &iw->param);
		break;
	default:
		break;
	}

	mutex_lock(&smc_iw_lock);
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (rc)
			smc_iw_set(iw, SMC_IW_DOWN, rc);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		smc_iw_set(iw, SMC_IW_UP, 0);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		tell = smc_iw_set(iw, SMC_IW_DOWN, -EHOSTUNREACH);
		break;
	case RDMA_CM_EVENT_REJECTED:
		tell = smc_iw_set(iw, SMC_IW_DOWN, -ECONNREFUSED);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		tell = smc_iw_set(iw, SMC_IW_DOWN, -ECONNRESET);
		break;
	default:
		break;
	}
	mutex_unlock(&smc_iw_lock);
	/*
	 * smc_iw_release() waits for this handler before it returns: the
	 * owner is still there
	 */
	if (tell)
		iw->down(iw->ctx);
	/* never nonzero: only smc_iw_release() destroys a connection's id */
	return 0;
}

/* a connect request on the listener: a link we expect, or refused */
static int smc_iw_request(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	const struct smc_iw_pdata *pd = ev->param.conn.private_data;
	const struct sockaddr_in *src;
	struct rdma_conn_param param = {};
	struct smc_iw *iw, *found = NULL;
	u32 qpn;

	src = (const struct sockaddr_in *)&id->route.addr.dst_addr;
	if (ev->param.conn.private_data_len < sizeof(*pd) || !pd ||
	    be32_to_cpu(pd->magic) != SMC_IW_MAGIC ||
	    pd->version != SMC_IW_VERSION || src->sin_family != AF_INET)
		goto refuse;
	qpn = be32_to_cpu(pd->server_qpn);

	mutex_lock(&smc_iw_lock);
	list_for_each_entry(iw, &smc_iw_expected, list) {
		if (iw->ibdev == id->device && iw->qpn == qpn && !iw->id &&
		    iw->state == SMC_IW_WAITING && !iw->released) {
			found = iw;
			break;
		}
	}
	if (!found) {
		mutex_unlock(&smc_iw_lock);
		goto refuse;
	}
	/* who it is: smc_iw_wait_from() checks it against the link's peer */
	found->peer = src->sin_addr.s_addr;
	found->peer_qpn = be32_to_cpu(pd->client_qpn) & 0xffffff;
	/*
	 * under smc_iw_lock: smc_iw_release() must see either no id (ours
	 * to refuse) or an accepted one (its to destroy)
	 */
	param.qp_num = found->qpn;
	id->context = found;
	found->id = id;
	if (rdma_accept(id, &param)) {
		found->id = NULL;
		id->context = smc_iw_listener;
		mutex_unlock(&smc_iw_lock);
		return 1;	/* rdma_cm destroys the id */
	}
	mutex_unlock(&smc_iw_lock);
	return 0;

refuse:
	rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	return 1;
}

static int smc_iw_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	enum smc_iw_kind *kind = id->context;

	if (*kind == SMC_IW_CONN)
		return smc_iw_conn_event(id->context, id, ev);
	/* the listener's: only connect requests are for us */
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return smc_iw_request(id, ev);
	return 0;
}

/**
 * smc_iw_listen_port() - the port of the namespace's rdma_cm listener
 * @net: the namespace (only the initial one)
 * @port: the port, host order, is stored here
 *
 * Creates the listener on first use: any IPv4 address, a port rdma_cm
 * picks.  Process context.
 *
 * Return: 0, -EOPNOTSUPP outside the initial namespace, or the error of
 * rdma_cm.
 */
int smc_iw_listen_port(struct net *net, u16 *port)
{
	const struct smc_net_cfg *cfg = smc_net_cfg(net);
	struct sockaddr_in any = { .sin_family = AF_INET };
	struct smc_iw_listener *l;
	struct rdma_cm_id *id;
	int rc = 0;

	if (!net_eq(net, &init_net))
		return -EOPNOTSUPP;
	mutex_lock(&smc_iw_lock);
	if (smc_iw_listener)
		goto out;
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l) {
		rc = -ENOMEM;
		goto out;
	}
	l->kind = SMC_IW_LISTENER;
	id = rdma_create_id(net, smc_iw_handler, l, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		rc = PTR_ERR(id);
		kfree(l);
		goto out;
	}
	/* net.smc.smcr_iwarp_port, as it is now; 0: rdma_cm picks one */
	any.sin_port = htons(READ_ONCE(cfg->smcr_iwarp_port));
	rc = rdma_bind_addr(id, (struct sockaddr *)&any);
	if (!rc)
		rc = rdma_listen(id, SMC_IW_BACKLOG);
	if (rc) {
		rdma_destroy_id(id);
		kfree(l);
		goto out;
	}
	l->id = id;
	/* the port rdma_cm picked, in the id's source address */
	l->port = be16_to_cpu(((struct sockaddr_in *)
			       &id->route.addr.src_addr)->sin_port);
	smc_iw_listener = l;
out:
	if (!rc)
		*port = smc_iw_listener->port;
	mutex_unlock(&smc_iw_lock);
	return rc;
}

static struct smc_iw *smc_iw_alloc(struct ib_device *ibdev, u32 qpn,
				   __be32 peer, smc_iw_down_t down, void *ctx)
{
	struct smc_iw *iw = kzalloc(sizeof(*iw), GFP_KERNEL);

	if (!iw)
		return NULL;
	iw->kind = SMC_IW_CONN;
	INIT_LIST_HEAD(&iw->list);
	iw->ibdev = ibdev;
	iw->qpn = qpn;
	iw->peer = peer;
	iw->state = SMC_IW_WAITING;
	init_completion(&iw->done);
	iw->down = down;
	iw->ctx = ctx;
	return iw;
}

/**
 * smc_iw_expect() - the server end of a link: accept its connection
 * @net: the namespace (only the initial one)
 * @ibdev: the device of the link's QP
 * @qpn: the QP, which the client names
 * @down: called when the connection goes away once established
 * @ctx: its argument
 * @port: the port of the listener it comes to is stored here (host order)
 * @iw: the expectation is stored here, for smc_iw_wait_from() and
 *	smc_iw_release()
 *
 * The first connection that names @qpn on @ibdev is accepted, from any
 * address: a server advertises a further link before it learns the
 * client's end of it (ADD_LINK), and the client connects meanwhile.
 * smc_iw_wait_from() then checks who it was.
 *
 * Return: 0 or a negative errno.
 */
int smc_iw_expect(struct net *net, struct ib_device *ibdev, u32 qpn,
		  smc_iw_down_t down, void *ctx, u16 *port, struct smc_iw **iw)
{
	int rc;

	rc = smc_iw_listen_port(net, port);
	if (rc)
		return rc;
	*iw = smc_iw_alloc(ibdev, qpn, 0, down, ctx);
	if (!*iw)
		return -ENOMEM;
	mutex_lock(&smc_iw_lock);
	list_add_tail(&(*iw)->list, &smc_iw_expected);
	mutex_unlock(&smc_iw_lock);
	return 0;
}

/**
 * smc_iw_wait() - wait until the connection is established
 * @iw: an expectation or a connection
 * @timeo: at most this long (jiffies)
 *
 * Return: 0 once established, -ETIMEDOUT, or why it failed.
 */
int smc_iw_wait(struct smc_iw *iw, long timeo)
{
	int rc;

	if (!wait_for_completion_timeout(&iw->done, timeo))
		return -ETIMEDOUT;
	mutex_lock(&smc_iw_lock);
	rc = iw->state == SMC_IW_UP ? 0 : (iw->err ?: -ECONNRESET);
	mutex_unlock(&smc_iw_lock);
	return rc;
}

/**
 * smc_iw_wait_from() - wait for an expected connection from the link's peer
 * @iw: an expectation (smc_iw_expect())
 * @peer: the address the link's peer has (its GID's)
 * @peer_qpn: the peer's QP for the link
 * @timeo: at most this long (jiffies)
 *
 * Return: 0 once established by @peer's @peer_qpn, -EPROTO when someone
 * else's connection was accepted, else as smc_iw_wait().
 */
int smc_iw_wait_from(struct smc_iw *iw, __be32 peer, u32 peer_qpn, long timeo)
{
	int rc = smc_iw_wait(iw, timeo);

	if (rc)
		return rc;
	mutex_lock(&smc_iw_lock);
	if (iw->peer != peer || iw->peer_qpn != peer_qpn)
		rc = -EPROTO;
	mutex_unlock(&smc_iw_lock);
	return rc;
}

/**
 * smc_iw_connect() - the client end of a link: connect its QP
 * @net: the namespace (only the initial one)
 * @ibdev: the device of the link's QP
 * @qpn: the QP
 * @saddr: our address, which must be on @ibdev
 * @daddr: the server's
 * @port: the server's listener port (host order)
 * @peer_qpn: the server's QP, named in the private data
 * @timeo: the whole connect may take this long (jiffies)
 * @down: called when the connection goes away once established
 * @ctx: its argument
 * @iw: the connection is stored here, also on failure (release it)
 *
 * Return: 0 once established, or a negative errno.
 */
int smc_iw_connect(struct net *net, struct ib_device *ibdev, u32 qpn,
		   __be32 saddr, __be32 daddr, u16 port, u32 peer_qpn,
		   long timeo, smc_iw_down_t down, void *ctx,
		   struct smc_iw **iw)
{
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct rdma_cm_id *id;
	struct smc_iw *c;
	int rc;

	*iw = NULL;
	if (!net_eq(net, &init_net))
		return -EOPNOTSUPP;
	c = smc_iw_alloc(ibdev, qpn, daddr, down, ctx);
	if (!c)
		return -ENOMEM;
	c->pdata.magic = cpu_to_be32(SMC_IW_MAGIC);
	c->pdata.version = SMC_IW_VERSION;
	c->pdata.server_qpn = cpu_to_be32(peer_qpn);
	c->pdata.client_qpn = cpu_to_be32(qpn);
	c->param.private_data = &c->pdata;
	c->param.private_data_len = sizeof(c->pdata);
	c->param.qp_num = qpn;
	*iw = c;

	id = rdma_create_id(net, smc_iw_handler, c, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	mutex_lock(&smc_iw_lock);
	c->id = id;
	mutex_unlock(&smc_iw_lock);
	src.sin_addr.s_addr = saddr;
	dst.sin_addr.s_addr = daddr;
	dst.sin_port = htons(port);
	rc = rdma_resolve_addr(id, (struct sockaddr *)&src,
			       (struct sockaddr *)&dst, SMC_IW_RESOLVE_MS);
	if (rc)
		return rc;
	return smc_iw_wait(c, timeo);
}

/**
 * smc_iw_release() - end and free a connection or expectation
 * @iw: what smc_iw_expect() or smc_iw_connect() stored; NULL is ignored
 *
 * Waits for a running event handler; afterwards down() is not called
 * any more and the QP is free of the connection.  Process context.
 */
void smc_iw_release(struct smc_iw *iw)
{
	struct rdma_cm_id *id;

	if (!iw)
		return;
	mutex_lock(&smc_iw_lock);
	iw->released = true;
	list_del_init(&iw->list);
	id = iw->id;
	iw->id = NULL;
	mutex_unlock(&smc_iw_lock);
	if (id)
		rdma_destroy_id(id);
	kfree(iw);
}

/* module exit: every link is gone, the listener goes */
void smc_iw_exit(void)
{
	struct smc_iw_listener *l;

	mutex_lock(&smc_iw_lock);
	l = smc_iw_listener;
	smc_iw_listener = NULL;
	mutex_unlock(&smc_iw_lock);
	if (!l)
		return;
	rdma_destroy_id(l->id);
	kfree(l);
}
