// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: the link group registry.
 *
 * Every link group is on smc_lgrs from its creation until its links are
 * destroyed.  Its reference count has one reference for that list entry,
 * one for every attached connection, one for every user that found or
 * created it and one for every queued work item (terminate, idle timeout,
 * LLC queue).  Termination happens in two steps: smc_lgr_terminate()
 * marks the lgr terminating, tells the connections and takes the links
 * down without sleeping; the terminate work then stops the LLC layer,
 * unmaps the buffers, destroys the links, leaves the list and drops the
 * list's reference.  The memory (and the buffers) go with the last
 * reference.
 *
 * Locking:
 *   smc_lgr_pending entry  a handshake's claim on one peer (see
 *                          smc_lgr_pending_lock()): find+create with the
 *                          same peer are serialised; outermost.
 *   smc_lgr_hs_lock        the list of such claims; innermost, never
 *                          sleeps.
 *   lgr->llc_mutex         one local LLC flow at a time; taken by the
 *                          terminate work around link destruction, so no
 *                          flow uses a link while it is destroyed.
 *   lgr->bufs_mutex        sndbufs, rmbs and their mappings; may be taken
 *                          under llc_mutex.
 *   smc_lgrs_lock (BH)     the list, lgr ids, the limits; conns_lock
 *                          nests inside it (smc_lgr_find()).
 *   lgr->conns_lock (BH)   conns, conns_num, terminating; taken in
 *                          softirq by wr.c for CDC dispatch, which then
 *                          takes conn->lock: never the other way round.
 *   lgr->rtokens_lock (BH) the peer's RMB tokens; innermost, so the send
 *                          path may look a token up under conn->lock.
 * The module's whole lock order: Documentation/networking/smc.rst.
 * Link states are written with WRITE_ONCE (smc_lgr_link_failed() runs in
 * softirq) and read with READ_ONCE.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/reboot.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include "compat.h"

#include "core.h"
#include "wr.h"
#include "llc.h"
#include "pnet.h"
#include "sysctl.h"
#include "testhooks.h"
#include "trace.h"

#define SMC_LGR_ID_STEP		256		/* as upstream numbers them */
#define SMC_LGR_IDLE_SERVER	(600 * HZ)	/* upstream's idle timeouts */
#define SMC_LGR_IDLE_CLIENT	(610 * HZ)
#define SMC_LGR_TEARDOWN_WAIT	(30 * HZ)	/* terminate_dev, exit */
/* our end: how long the peer has to end its side (smc_lgr_await_bye()) */
#define SMC_LGR_BYE_WAIT	(2 * HZ)
/* and our answer to the peer's end, which may have left already */
#define SMC_LGR_ANSWER_WAIT	(HZ / 5)
/* power-off or reboot: every link group's orderly end, all in parallel */
#define SMC_LGR_SHUTDOWN_WAIT	(3 * HZ)
#define SMC_BUF_MIN		SZ_16K
#define SMC_TOKEN_TRIES		16

struct workqueue_struct *smc_lgr_wq;

static LIST_HEAD(smc_lgrs);
static DEFINE_SPINLOCK(smc_lgrs_lock);
static u32 smc_lgr_num;			/* under smc_lgrs_lock */
static bool smc_lgrs_closed;		/* under smc_lgrs_lock: shutting down */
static atomic_t smc_lgr_count = ATOMIC_INIT(0);	/* allocated lgrs */
static DECLARE_WAIT_QUEUE_HEAD(smc_lgr_waitq);	/* list/count changes */
/* handshakes that may create or join a link group, one per peer */
static LIST_HEAD(smc_lgr_hs_list);
static DEFINE_SPINLOCK(smc_lgr_hs_lock);
static DECLARE_WAIT_QUEUE_HEAD(smc_lgr_hs_waitq);
#if IS_ENABLED(CONFIG_SMC_TESTHOOKS)
/* debugfs smc/idle_secs: a shorter idle timeout for tests; 0: upstream's */
static u32 smc_lgr_idle_secs;
static atomic_t smc_lgr_seq_token = ATOMIC_INIT(0);
#endif

static void smc_lgr_terminate_work(struct work_struct *work);
static void smc_lgr_idle_work(struct work_struct *work);

/* ------------------------------------------------------------------ */
/* references                                                          */

static void smc_buf_free(struct smc_buf *buf)
{
	__free_pages(virt_to_page(buf->cpu_addr), get_order(buf->size));
	kfree(buf);
}

static void smc_lgr_free_bufs(struct list_head *head)
{
	struct smc_buf *buf, *tmp;

	list_for_each_entry_safe(buf, tmp, head, list) {
		list_del(&buf->list);
		smc_buf_free(buf);
	}
}

/* Last reference: links are destroyed and buffers unmapped by now. */
static void smc_lgr_release(struct kref *ref)
{
	struct smc_lgr *lgr = container_of(ref, struct smc_lgr, ref);

	smc_lgr_free_bufs(&lgr->sndbufs);
	smc_lgr_free_bufs(&lgr->rmbs);
	smc_llc_lgr_free(lgr);
	kfree(lgr);
	if (atomic_dec_and_test(&smc_lgr_count))
		wake_up_all(&smc_lgr_waitq);
}

/**
 * smc_lgr_put() - drop a reference to a link group
 * @lgr: the link group
 *
 * Any context; the last reference frees the link group.
 */
void smc_lgr_put(struct smc_lgr *lgr)
{
	kref_put(&lgr->ref, smc_lgr_release);
}

/* Queue the terminate work with a reference of its own. */
static void smc_lgr_sched_terminate(struct smc_lgr *lgr)
{
	kref_get(&lgr->ref);
	if (!queue_work(smc_lgr_wq, &lgr->terminate_work))
		smc_lgr_put(lgr);
}

/* ------------------------------------------------------------------ */
/* registry                                                            */

static bool smc_lgr_pending_same(const struct smc_lgr_pending *a,
				 const struct smc_lgr_pending *b)
{
	lockdep_assert_held(&smc_lgr_hs_lock);
	return net_eq(a->net, b->net) && a->server == b->server &&
	       ipv6_addr_equal(&a->peer_addr, &b->peer_addr) &&
	       !memcmp(a->peer_systemid, b->peer_systemid,
		       SMC_CLC_SYSTEMID_LEN);
}

/* Take @p's claim unless another handshake holds the same one. */
static bool smc_lgr_pending_try(struct smc_lgr_pending *p)
{
	struct smc_lgr_pending *q;
	bool taken = true;

	spin_lock_bh(&smc_lgr_hs_lock);
	list_for_each_entry(q, &smc_lgr_hs_list, list) {
		if (smc_lgr_pending_same(p, q)) {
			taken = false;
			break;
		}
	}
	if (taken)
		list_add_tail(&p->list, &smc_lgr_hs_list);
	spin_unlock_bh(&smc_lgr_hs_lock);
	return taken;
}

/**
 * smc_lgr_pending_lock() - serialise find and create with one peer
 * @p: the caller's claim, filled in here
 * @key: role and peer identity (namespace, TCP peer address, system id)
 * @timeout: the longest wait, in jiffies
 *
 * Only handshakes that could create or join the same link group wait for
 * each other: same namespace, role, TCP peer address and peer system id.
 * A slow or silent peer so never delays handshakes with another one.
 * Process context; may sleep up to @timeout.
 *
 * Return: 0 when the claim is held, -ETIMEDOUT when another handshake
 * held it for the whole of @timeout.
 */
int smc_lgr_pending_lock(struct smc_lgr_pending *p,
			 const struct smc_lgr_key *key, long timeout)
{
	INIT_LIST_HEAD(&p->list);
	p->net = key->net;
	p->server = key->server;
	p->peer_addr = key->peer_addr;
	memcpy(p->peer_systemid, key->peer_systemid, SMC_CLC_SYSTEMID_LEN);
	if (!wait_event_timeout(smc_lgr_hs_waitq, smc_lgr_pending_try(p),
				timeout))
		return -ETIMEDOUT;
	p->held = true;
	return 0;
}

/**
 * smc_lgr_pending_unlock() - give up a claim, see smc_lgr_pending_lock()
 * @p: the claim; nothing happens unless it is held
 */
void smc_lgr_pending_unlock(struct smc_lgr_pending *p)
{
	if (!p->held)
		return;
	spin_lock_bh(&smc_lgr_hs_lock);
	list_del_init(&p->list);
	spin_unlock_bh(&smc_lgr_hs_lock);
	p->held = false;
	wake_up_all(&smc_lgr_hs_waitq);
}

static bool smc_link_usable(const struct smc_link *link)
{
	enum smc_link_state st = READ_ONCE(link->state);

	return st == SMC_LINK_INIT || st == SMC_LINK_ACTIVATING ||
	       st == SMC_LINK_ACTIVE;
}

static bool smc_lgr_has_active_link(struct smc_lgr *lgr)
{
	int i;

	for (i = 0; i < SMC_LINKS_MAX; i++)
		if (READ_ONCE(lgr->links[i].state) == SMC_LINK_ACTIVE)
			return true;
	return false;
}

/* @gid (and for v1 @mac) is the peer's end of the first or an active link */
static bool smc_lgr_peer_at(struct smc_lgr *lgr, const u8 *gid, const u8 *mac)
{
	bool v1 = lgr->version == SMC_V1;
	struct smc_link *link;
	int i;

	if (!memcmp(lgr->peer_gid, gid, SMC_IB_GID_LEN) &&
	    (!v1 || !memcmp(lgr->peer_mac, mac, ETH_ALEN)))
		return true;
	for (i = 0; i < SMC_LINKS_MAX; i++) {
		link = &lgr->links[i];
		if (READ_ONCE(link->state) == SMC_LINK_ACTIVE &&
		    !memcmp(link->peer.gid, gid, SMC_IB_GID_LEN) &&
		    (!v1 || !memcmp(link->peer.mac, mac, ETH_ALEN)))
			return true;
	}
	return false;
}

/**
 * smc_lgr_matches() - may a connection with @key's peer join @lgr?
 * @lgr: a link group
 * @key: role and peer identity of a handshake
 *
 * The identifiers of a CLC proposal are cleartext and anybody can copy
 * them: the TCP peer address of the handshake must also be the one the
 * link group was set up with (a deviation from Linux 6.12, which matches
 * on the identifiers alone).
 *
 * Return: true if it may.
 */
bool smc_lgr_matches(struct smc_lgr *lgr, const struct smc_lgr_key *key)
{
	if (!net_eq(lgr->net, key->net) || lgr->server != key->server ||
	    lgr->version != key->version || lgr->vlan != key->vlan ||
	    lgr->iwarp != key->iwarp)
		return false;
	if (!ipv6_addr_equal(&lgr->peer_addr, &key->peer_addr))
		return false;
	if (memcmp(lgr->peer_systemid, key->peer_systemid,
		   SMC_CLC_SYSTEMID_LEN))
		return false;
	/* a peer with two devices may answer from its second one */
	return smc_lgr_peer_at(lgr, key->peer_gid, key->peer_mac);
}

/**
 * smc_lgr_find() - a link group to add a connection to
 * @key: role and peer identity
 *
 * Return: the lgr with a reference for the caller, or NULL.
 */
struct smc_lgr *smc_lgr_find(const struct smc_lgr_key *key)
{
	struct smc_lgr *lgr, *found = NULL;
	bool room;

	spin_lock_bh(&smc_lgrs_lock);
	list_for_each_entry(lgr, &smc_lgrs, list) {
		if (!smc_lgr_matches(lgr, key))
			continue;
		read_lock_bh(&lgr->conns_lock);
		room = !lgr->terminating && lgr->conns_num < lgr->max_conns;
		read_unlock_bh(&lgr->conns_lock);
		if (!room || !smc_lgr_has_active_link(lgr))
			continue;
		kref_get(&lgr->ref);
		found = lgr;
		break;
	}
	spin_unlock_bh(&smc_lgrs_lock);
	return found;
}

/**
 * smc_lgr_link_set_uid() - our link uid, as upstream derives it
 * @link: a link whose link_id is set
 *
 * The lgr id's four bytes read as a host-order number, plus the link
 * number, in network order.
 */
void smc_lgr_link_set_uid(struct smc_link *link)
{
	u32 base;

	memcpy(&base, link->lgr->id, sizeof(base));
	put_unaligned_be32(base + link->link_id, link->link_uid);
}

/*
 * A new lgr for @key's peer, not listed, without links; @local may be NULL
 * (KUnit).  One reference, the list's.
 */
static struct smc_lgr *smc_lgr_alloc(const struct smc_lgr_key *key,
				     const struct smc_lgr_local *local)
{
	struct smc_lgr *lgr;

	lgr = kzalloc(sizeof(*lgr), GFP_KERNEL);
	if (!lgr)
		return NULL;
	kref_init(&lgr->ref);		/* the list's */
	INIT_LIST_HEAD(&lgr->list);
	lgr->net = key->net;
	lgr->server = key->server;
	lgr->version = key->version;
	memcpy(lgr->peer_systemid, key->peer_systemid, SMC_CLC_SYSTEMID_LEN);
	memcpy(lgr->peer_gid, key->peer_gid, SMC_IB_GID_LEN);
	memcpy(lgr->peer_mac, key->peer_mac, ETH_ALEN);
	lgr->vlan = key->vlan;
	lgr->iwarp = key->iwarp;
	lgr->peer_addr = key->peer_addr;
	lgr->max_conns = SMC_CONNS_MAX;
	if (local) {
		lgr->release = local->release;
		memcpy(lgr->neg_eid, local->eid, SMC_CLC_EID_LEN);
		lgr->direct = local->direct;
		lgr->vx = local->vx;
		smc_pnet_of_ibport(lgr->net, local->dev, local->port,
				   lgr->pnetid);
		lgr->max_conns = local->max_conns ? : SMC_CONNS_MAX;
		lgr->max_links = local->max_links;
	}
	mutex_init(&lgr->llc_mutex);
	rwlock_init(&lgr->conns_lock);
	spin_lock_init(&lgr->rtokens_lock);
	lgr->conns = RB_ROOT;
	mutex_init(&lgr->bufs_mutex);
	INIT_LIST_HEAD(&lgr->sndbufs);
	INIT_LIST_HEAD(&lgr->rmbs);
	INIT_DELAYED_WORK(&lgr->free_work, smc_lgr_idle_work);
	INIT_WORK(&lgr->terminate_work, smc_lgr_terminate_work);

	spin_lock_bh(&smc_lgrs_lock);
	smc_lgr_num += SMC_LGR_ID_STEP;
	memcpy(lgr->id, &smc_lgr_num, sizeof(lgr->id));
	spin_unlock_bh(&smc_lgrs_lock);

	if (smc_llc_lgr_init(lgr)) {
		kfree(lgr);
		return NULL;
	}
	return lgr;
}

#if IS_ENABLED(CONFIG_SMC_KUNIT_TEST)
/*
 * KUnit: a listed link group of @key's peer that never had a link, with
 * one reference for the caller.
 */
struct smc_lgr *smc_lgr_create_linkless(const struct smc_lgr_key *key)
{
	struct smc_lgr *lgr = smc_lgr_alloc(key, NULL);

	if (!lgr)
		return NULL;
	kref_get(&lgr->ref);		/* the caller's */
	atomic_inc(&smc_lgr_count);
	spin_lock_bh(&smc_lgrs_lock);
	list_add_tail(&lgr->list, &smc_lgrs);
	spin_unlock_bh(&smc_lgrs_lock);
	return lgr;
}
#endif

/*
 * Room for one more link group of @key's namespace and TCP peer address
 * (net.smc.smcr_max_lgrs, smcr_max_lgrs_per_peer): a link group pins a
 * QP and registered buffers, so neither one peer nor all of them may make
 * as many as they like.  Terminating ones count until they are gone.
 * smc_lgrs_lock held.
 */
static bool smc_lgr_room(const struct smc_lgr_key *key)
{
	const struct smc_net_cfg *cfg = smc_net_cfg(key->net);
	unsigned int all = 0, peer = 0;
	struct smc_lgr *lgr;

	lockdep_assert_held(&smc_lgrs_lock);
	list_for_each_entry(lgr, &smc_lgrs, list) {
		if (!net_eq(lgr->net, key->net))
			continue;
		all++;
		if (ipv6_addr_equal(&lgr->peer_addr, &key->peer_addr))
			peer++;
	}
	return all < READ_ONCE(cfg->smcr_max_lgrs) &&
	       peer < READ_ONCE(cfg->smcr_max_lgrs_per_peer);
}

static bool smc_lgr_room_now(const struct smc_lgr_key *key)
{
	bool room;

	spin_lock_bh(&smc_lgrs_lock);
	room = smc_lgr_room(key);
	spin_unlock_bh(&smc_lgrs_lock);
	if (!room)
		net_info_ratelimited("link group limit reached, %pI6c falls back to TCP\n",
				     &key->peer_addr);
	return room;
}

/**
 * smc_lgr_create() - a new link group with its first link
 * @key: role and peer identity
 * @local: our end of the first link; a device reference is taken
 *
 * The link is in SMC_LINK_INIT with its QP created.  Process context.
 *
 * Return: the lgr with one reference for the caller, or NULL.
 */
struct smc_lgr *smc_lgr_create(const struct smc_lgr_key *key,
			       const struct smc_lgr_local *local)
{
	struct smc_link *link;
	struct smc_lgr *lgr;
	bool dead;

	if (!smc_lgr_room_now(key))
		return NULL;
	lgr = smc_lgr_alloc(key, local);
	if (!lgr)
		return NULL;

	link = &lgr->links[0];
	link->lgr = lgr;
	link->idx = 0;
	link->link_id = 1;		/* the server's number; a client adopts it */
	smc_lgr_link_set_uid(link);
	/* our own reference; the caller's stays the caller's */
	refcount_inc(&local->dev->refs);
	link->dev = local->dev;
	link->port = local->port;
	link->sgid_index = local->sgid_index;
	memcpy(link->gid, local->gid, SMC_IB_GID_LEN);
	memcpy(link->mac, local->mac, ETH_ALEN);
	atomic_set(&link->conn_cnt, 0);
	if (smc_faultinj_fail(SMC_FI_QP) || smc_wr_link_init(link))
		goto put_dev;
	WRITE_ONCE(link->state, SMC_LINK_INIT);

	kref_get(&lgr->ref);		/* the caller's */
	atomic_inc(&smc_lgr_count);
	/*
	 * smc_lgr_terminate_dev() marks a device fatal before its scan; the
	 * limits are checked again where they are exact
	 */
	spin_lock_bh(&smc_lgrs_lock);
	dead = READ_ONCE(local->dev->fatal) || smc_lgrs_closed ||
	       !smc_lgr_room(key);
	if (!dead)
		list_add_tail(&lgr->list, &smc_lgrs);
	spin_unlock_bh(&smc_lgrs_lock);
	if (dead) {
		atomic_dec(&smc_lgr_count);
		WRITE_ONCE(link->state, SMC_LINK_UNUSED);
		smc_wr_link_destroy(link);
		goto put_dev;
	}
	trace_smcr_lgr_create(lgr);
	return lgr;

put_dev:
	smc_ib_put(local->dev);
	smc_llc_lgr_free(lgr);
	kfree(lgr);
	return NULL;
}

/**
 * smc_lgr_find_link() - the active link to the peer's QP @qpn at @gid
 * @lgr: the link group
 * @qpn: the peer's QP number
 * @gid: the peer's GID
 *
 * Return: the link or NULL.
 */
struct smc_link *smc_lgr_find_link(struct smc_lgr *lgr, u32 qpn,
				   const u8 *gid)
{
	struct smc_link *link;
	int i;

	for (i = 0; i < SMC_LINKS_MAX; i++) {
		link = &lgr->links[i];
		if (READ_ONCE(link->state) == SMC_LINK_ACTIVE &&
		    link->peer.qpn == qpn &&
		    !memcmp(link->peer.gid, gid, SMC_IB_GID_LEN))
			return link;
	}
	return NULL;
}

/**
 * smc_lgr_pick_link() - the active link with the fewest connections
 * @lgr: the link group
 *
 * Return: the link or NULL.
 */
struct smc_link *smc_lgr_pick_link(struct smc_lgr *lgr)
{
	struct smc_link *link, *best = NULL;
	int i;

	for (i = 0; i < SMC_LINKS_MAX; i++) {
		link = &lgr->links[i];
		if (READ_ONCE(link->state) != SMC_LINK_ACTIVE)
			continue;
		if (!best ||
		    atomic_read(&link->conn_cnt) < atomic_read(&best->conn_cnt))
			best = link;
	}
	return best;
}

/* ------------------------------------------------------------------ */
/* termination                                                         */

/*
 * Mark @lgr terminating and tell its connections; with @idle only when
 * no connection is attached.  Returns true for the caller that did it.
 */
static bool smc_lgr_mark_terminating(struct smc_lgr *lgr, bool idle)
{
	struct smc_lgr_conn *c;
	struct rb_node *node;
	bool first = false;

	write_lock_bh(&lgr->conns_lock);
	if (lgr->terminating || (idle && lgr->conns_num))
		goto out;
	WRITE_ONCE(lgr->terminating, true);
	first = true;
	for (node = rb_first(&lgr->conns); node; node = rb_next(node)) {
		c = rb_entry(node, struct smc_lgr_conn, node);
		c->gone = true;
		smc_conn_lgr_gone(c);
	}
out:
	write_unlock_bh(&lgr->conns_lock);
	return first;
}

static void smc_lgr_links_down(struct smc_lgr *lgr)
{
	struct smc_link *link;
	int i;

	/* smc_lgr_link_free() marks a link unused under the same lock */
	read_lock_bh(&lgr->conns_lock);
	for (i = 0; i < SMC_LINKS_MAX; i++) {
		link = &lgr->links[i];
		if (READ_ONCE(link->state) == SMC_LINK_UNUSED)
			continue;
		WRITE_ONCE(link->state, SMC_LINK_DOWN);
		smc_wr_link_down(link);
	}
	read_unlock_bh(&lgr->conns_lock);
	smc_llc_wake(lgr);
}

/*
 * The first step; true for the caller that took it (then: schedule).
 * @bye: 0, or the reason of the DELETE_LINK for all links that tells the
 * peer, as Linux's module gives it: SMC_LLC_DEL_PROG_INIT_TERM when the
 * link group idled out (@idle: flagged orderly) or its device goes,
 * SMC_LLC_DEL_OP_INIT_TERM when the host stops using SMC-R (unload,
 * power-off, namespace exit), the peer's own reason when we answer its
 * DELETE_LINK (@answer).  The teardown then lets it out before the QPs go
 * into error and, unless we answer, waits for the peer's end (see
 * smc_lgr_await_bye()).
 */
static bool __smc_lgr_terminate(struct smc_lgr *lgr, u32 bye, bool idle,
				bool answer)
{
	if (!smc_lgr_mark_terminating(lgr, idle))
		return false;
	trace_smcr_lgr_terminate(lgr, bye, idle);
	if (bye) {
		/* the teardown work, queued after this, reads them */
		lgr->bye = true;
		lgr->await_peer = !answer;
		smc_llc_send_delete_all(lgr, bye, idle);
	}
	smc_lgr_links_down(lgr);
	return true;
}

/**
 * smc_lgr_terminate() - end a link group
 * @lgr: the link group, the caller holds a reference
 * @answer: 0, or the reason of the peer's DELETE_LINK for all links that
 *	    ends it: we answer with our own before the links go down
 *
 * Idempotent.  Never sleeps (any context but hard interrupts); the links
 * are destroyed by a work item.
 */
void smc_lgr_terminate(struct smc_lgr *lgr, u32 answer)
{
	if (__smc_lgr_terminate(lgr, answer, false, true))
		smc_lgr_sched_terminate(lgr);
}

/* Unmap every buffer from @link. */
static void smc_lgr_unmap_bufs(struct smc_lgr *lgr, struct smc_link *link)
{
	struct list_head *heads[] = { &lgr->sndbufs, &lgr->rmbs };
	struct smc_buf *buf;
	int h;

	for (h = 0; h < ARRAY_SIZE(heads); h++) {
		list_for_each_entry(buf, heads[h], list) {
			if (!buf->map[link->idx].mapped)
				continue;
			smc_wr_buf_unmap(link, buf);
			buf->map[link->idx].mapped = false;
		}
	}
}

/*
 * We sent DELETE_LINK: keep the QPs up, bounded, until the peer has ended
 * its side.  First our DELETE_LINK must have left (a QP in error would
 * flush it unsent).  Then, when we started the end, the peer ends its
 * side: Linux's module aborts each connection (CDC), waiting for each to
 * complete, and then sends its own DELETE_LINK for all links, not flagged
 * orderly (as a server it answers with an orderly one at once, before);
 * ours answers with one such DELETE_LINK.  A message to a QP that is gone
 * is never acknowledged, and Soft-RoCE, with the retry count of 7 both
 * modules use, retries it forever: Linux's module waits for its aborts
 * without bound, and its host could not power off.  Receive buffers are
 * reposted until the QPs go into error.  Our answer to the peer's end
 * gets a short wait: Linux's module does not wait for it.
 */
static void smc_lgr_await_bye(struct smc_lgr *lgr)
{
	unsigned long end = jiffies + (lgr->await_peer ? SMC_LGR_BYE_WAIT :
				       SMC_LGR_ANSWER_WAIT);
	struct smc_link *link;
	int i;

	for (i = 0; i < SMC_LINKS_MAX; i++) {
		link = &lgr->links[i];
		if (READ_ONCE(link->state) != SMC_LINK_UNUSED)
			smc_wr_link_drain_sends(link, max_t(long, end - jiffies,
							    1));
	}
	if (lgr->await_peer &&
	    !wait_event_timeout(smc_lgr_waitq, READ_ONCE(lgr->peer_ended),
				max_t(long, end - jiffies, 1)))
		pr_info_ratelimited("lgr %*phN: the peer did not end its side\n",
				    (int)sizeof(lgr->id), lgr->id);
}

/* See llc.h. */
void smc_lgr_peer_ended(struct smc_lgr *lgr)
{
	WRITE_ONCE(lgr->peer_ended, true);
	wake_up_all(&smc_lgr_waitq);
}

/* The second step of termination; process context, runs once. */
static void smc_lgr_teardown(struct smc_lgr *lgr)
{
	struct smc_link *link;
	int i;

	smc_llc_lgr_stop(lgr);
	if (cancel_delayed_work_sync(&lgr->free_work))
		smc_lgr_put(lgr);

	mutex_lock(&lgr->llc_mutex);	/* no local flow uses a link */
	if (lgr->bye)
		smc_lgr_await_bye(lgr);
	/*
	 * Every QP in error and drained before any buffer is unmapped: the
	 * device may still read a send buffer or write an RMB until then.
	 */
	for (i = 0; i < SMC_LINKS_MAX; i++) {
		link = &lgr->links[i];
		if (READ_ONCE(link->state) != SMC_LINK_UNUSED)
			smc_wr_link_quiesce(link);
	}
	mutex_lock(&lgr->bufs_mutex);
	lgr->freeing = true;		/* no new mappings */
	for (i = 0; i < SMC_LINKS_MAX; i++) {
		link = &lgr->links[i];
		if (READ_ONCE(link->state) != SMC_LINK_UNUSED)
			smc_lgr_unmap_bufs(lgr, link);
	}
	mutex_unlock(&lgr->bufs_mutex);
	for (i = 0; i < SMC_LINKS_MAX; i++) {
		link = &lgr->links[i];
		if (READ_ONCE(link->state) == SMC_LINK_UNUSED)
			continue;
		smc_wr_link_destroy(link);
		WRITE_ONCE(link->state, SMC_LINK_UNUSED);
		smc_ib_put(link->dev);
		link->dev = NULL;
	}
	mutex_unlock(&lgr->llc_mutex);

	spin_lock_bh(&smc_lgrs_lock);
	list_del_init(&lgr->list);
	spin_unlock_bh(&smc_lgrs_lock);
	wake_up_all(&smc_lgr_waitq);
	smc_lgr_put(lgr);		/* the list's */
}

static void smc_lgr_terminate_work(struct work_struct *work)
{
	struct smc_lgr *lgr = container_of(work, struct smc_lgr,
					   terminate_work);

	/* link failure: the first step has not happened yet */
	__smc_lgr_terminate(lgr, 0, false, false);
	if (!lgr->freeing)
		smc_lgr_teardown(lgr);
	smc_lgr_put(lgr);		/* the work's */
}

/* Idle timeout: no connection for a while, say goodbye to the peer. */
static void smc_lgr_idle_work(struct work_struct *work)
{
	struct smc_lgr *lgr = container_of(to_delayed_work(work),
					   struct smc_lgr, free_work);

	if (__smc_lgr_terminate(lgr, SMC_LLC_DEL_PROG_INIT_TERM, true, false))
		smc_lgr_sched_terminate(lgr);
	smc_lgr_put(lgr);		/* the timer's */
}

/* See llc.h: an active link of @lgr other than @link, or NULL. */
struct smc_link *smc_lgr_other_active(struct smc_lgr *lgr,
				      struct smc_link *link)
{
	int i;

	for (i = 0; i < SMC_LINKS_MAX; i++)
		if (&lgr->links[i] != link &&
		    READ_ONCE(lgr->links[i].state) == SMC_LINK_ACTIVE)
			return &lgr->links[i];
	return NULL;
}

/**
 * smc_lgr_link_failed() - a link failed
 * @link: the link
 *
 * Any context.  While another link of the lgr is active, the lgr stays:
 * a link being added is cleaned up by its ADD_LINK flow, an active one is
 * handed to llc.c, which moves its connections and deletes it.  The last
 * link takes the lgr with it.
 */
void smc_lgr_link_failed(struct smc_link *link)
{
	struct smc_lgr *lgr = link->lgr;
	enum smc_link_state st;

	do {
		st = READ_ONCE(link->state);
		if (st == SMC_LINK_UNUSED || st == SMC_LINK_DOWN)
			return;
	} while (cmpxchg(&link->state, st, SMC_LINK_DOWN) != st);
	trace_smcr_link_down(link, st, (void *)_RET_IP_);
	smc_llc_wake(lgr);
	if (READ_ONCE(lgr->terminating))
		return;
	if (smc_lgr_other_active(lgr, link) &&
	    (st != SMC_LINK_ACTIVE || smc_llc_link_down(lgr, link)))
		return;
	smc_lgr_sched_terminate(lgr);
}

/*
 * Whether a link of @lgr is on @dev (@port, or any port if 0); @live: only
 * links not yet down count.
 */
static bool smc_lgr_uses(struct smc_lgr *lgr, struct smc_ib_dev *dev,
			 u8 port, bool live)
{
	enum smc_link_state st;
	int i;

	for (i = 0; i < SMC_LINKS_MAX; i++) {
		st = READ_ONCE(lgr->links[i].state);
		if (st != SMC_LINK_UNUSED &&
		    (!live || st != SMC_LINK_DOWN) &&
		    lgr->links[i].dev == dev &&
		    (!port || lgr->links[i].port == port))
			return true;
	}
	return false;
}

/* Every link of @lgr in use is on @dev. */
static bool smc_lgr_only_on(struct smc_lgr *lgr, struct smc_ib_dev *dev)
{
	int i;

	for (i = 0; i < SMC_LINKS_MAX; i++)
		if (READ_ONCE(lgr->links[i].state) != SMC_LINK_UNUSED &&
		    lgr->links[i].dev != dev)
			return false;
	return true;
}

/* which link groups on a device smc_lgr_get_on() picks */
#define SMC_LGR_ON_LIVE		1	/* a link not yet down on it */
#define SMC_LGR_ON_ONLY		2	/* and none elsewhere */

/*
 * The first lgr not terminating, of @net (any if NULL), with a link on
 * @dev (@port, or any port if 0; any lgr when @dev is NULL) as @how
 * (SMC_LGR_ON_*) says; referenced.
 */
static struct smc_lgr *smc_lgr_get_on(struct net *net, struct smc_ib_dev *dev,
				      u8 port, unsigned int how)
{
	struct smc_lgr *lgr, *found = NULL;

	spin_lock_bh(&smc_lgrs_lock);
	list_for_each_entry(lgr, &smc_lgrs, list) {
		if (READ_ONCE(lgr->terminating) ||
		    (net && !net_eq(lgr->net, net)) ||
		    (dev && (!smc_lgr_uses(lgr, dev, port,
					   how & SMC_LGR_ON_LIVE) ||
			     ((how & SMC_LGR_ON_ONLY) &&
			      !smc_lgr_only_on(lgr, dev)))))
			continue;
		kref_get(&lgr->ref);
		found = lgr;
		break;
	}
	spin_unlock_bh(&smc_lgrs_lock);
	return found;
}

/*
 * Terminate every lgr smc_lgr_get_on(@net, @dev, @port, @how) finds; @bye:
 * see __smc_lgr_terminate().
 */
static void smc_lgr_terminate_on(struct net *net, struct smc_ib_dev *dev,
				 u8 port, unsigned int how, u32 bye)
{
	struct smc_lgr *lgr;

	while ((lgr = smc_lgr_get_on(net, dev, port, how))) {
		if (__smc_lgr_terminate(lgr, bye, false, false))
			smc_lgr_sched_terminate(lgr);
		smc_lgr_put(lgr);
	}
}

/* No lgr of @net (any if NULL) is listed that has a link on @dev (any). */
static bool smc_lgr_none_on(struct net *net, struct smc_ib_dev *dev)
{
	struct smc_lgr *lgr;
	bool none = true;

	spin_lock_bh(&smc_lgrs_lock);
	list_for_each_entry(lgr, &smc_lgrs, list) {
		if ((!net || net_eq(lgr->net, net)) &&
		    (!dev || smc_lgr_uses(lgr, dev, 0, false))) {
			none = false;
			break;
		}
	}
	spin_unlock_bh(&smc_lgrs_lock);
	return none;
}

/*
 * Fail every link on @dev (@port, or any port if 0): link groups with a
 * link elsewhere keep going there, the others terminate.
 */
static void smc_lgr_fail_on(struct smc_ib_dev *dev, u8 port)
{
	struct smc_lgr *found;
	struct smc_link *link;
	int i;

	while ((found = smc_lgr_get_on(NULL, dev, port, SMC_LGR_ON_LIVE))) {
		for (i = 0; i < SMC_LINKS_MAX; i++) {
			link = &found->links[i];
			if (link->dev == dev && (!port || link->port == port))
				smc_lgr_link_failed(link);
		}
		/* it neither terminates nor gives the links up: do it */
		if (!READ_ONCE(found->terminating) &&
		    smc_lgr_uses(found, dev, port, true))
			smc_lgr_terminate(found, 0);
		smc_lgr_put(found);
	}
}

/**
 * smc_lgr_terminate_dev() - give up every link on a device
 * @dev: the device, being removed or dead
 *
 * Link groups with an active link on another device move their
 * connections there; the others terminate, telling the peer while the
 * device can still send (it is being removed, not dead).  Waits (bounded)
 * until the links on @dev are destroyed and their device references
 * dropped.  Process context.
 */
void smc_lgr_terminate_dev(struct smc_ib_dev *dev)
{
	/* no new lgr or link on it from now on: see smc_lgr_create() */
	spin_lock_bh(&smc_lgrs_lock);
	WRITE_ONCE(dev->fatal, true);
	spin_unlock_bh(&smc_lgrs_lock);

	smc_lgr_terminate_on(NULL, dev, 0, SMC_LGR_ON_LIVE | SMC_LGR_ON_ONLY,
			     SMC_LLC_DEL_PROG_INIT_TERM);

	smc_lgr_fail_on(dev, 0);
	if (wait_event_timeout(smc_lgr_waitq, smc_lgr_none_on(NULL, dev),
			       SMC_LGR_TEARDOWN_WAIT))
		return;
	/* a link that would not go alone takes its link group along */
	smc_lgr_terminate_on(NULL, dev, 0, 0, 0);
	if (!wait_event_timeout(smc_lgr_waitq, smc_lgr_none_on(NULL, dev),
				SMC_LGR_TEARDOWN_WAIT))
		pr_warn("link groups on %s did not go away\n",
			dev_name(&dev->ibdev->dev));
}

/**
 * smc_lgr_terminate_port() - give up every link on a port that went down
 * @dev: the device
 * @port: the port (1-based)
 *
 * As smc_lgr_terminate_dev() for one port, without waiting.  Process
 * context.
 */
void smc_lgr_terminate_port(struct smc_ib_dev *dev, u8 port)
{
	smc_lgr_fail_on(dev, port);
}

/* ------------------------------------------------------------------ */
/* further links (llc.c's ADD_LINK and DELETE_LINK flows)              */

/* Map every buffer of @lgr on @link. */
static int smc_lgr_map_bufs(struct smc_lgr *lgr, struct smc_link *link)
{
	struct list_head *heads[] = { &lgr->sndbufs, &lgr->rmbs };
	struct smc_buf *buf;
	int h, rc;

	lockdep_assert_held(&lgr->bufs_mutex);
	for (h = 0; h < ARRAY_SIZE(heads); h++) {
		list_for_each_entry(buf, heads[h], list) {
			rc = smc_wr_buf_map(link, buf);
			if (rc)
				return rc;
			buf->map[link->idx].mapped = true;
		}
	}
	return 0;
}

/* See llc.h. */
void smc_lgr_link_path(struct smc_lgr *lgr, const struct smc_link *like,
		       struct smc_ib_path *path)
{
	if (!smc_ib_find_alt(lgr->net, like->dev, lgr->vlan,
			     lgr->version == SMC_V2, lgr->iwarp, like->gid,
			     smc_pnet_port_on, lgr->pnetid, path))
		return;
	refcount_inc(&like->dev->refs);
	path->dev = like->dev;
	path->port = like->port;
	path->sgid_index = like->sgid_index;
	memcpy(path->gid, like->gid, SMC_IB_GID_LEN);
	memcpy(path->mac, like->mac, ETH_ALEN);
}

/* See llc.h. */
struct smc_link *smc_lgr_link_add(struct smc_lgr *lgr,
				  const struct smc_ib_path *path)
{
	struct smc_link *link = NULL;
	int i, rc;

	for (i = 0; i < SMC_LINKS_MAX; i++) {
		if (READ_ONCE(lgr->links[i].state) == SMC_LINK_UNUSED) {
			link = &lgr->links[i];
			break;
		}
	}
	if (!link || READ_ONCE(lgr->terminating))
		return NULL;
	link->lgr = lgr;
	link->idx = i;
	link->link_id = 0;
	link->port = path->port;
	link->sgid_index = path->sgid_index;
	memcpy(link->gid, path->gid, SMC_IB_GID_LEN);
	memcpy(link->mac, path->mac, ETH_ALEN);
	memset(&link->peer, 0, sizeof(link->peer));
	memset(link->peer_link_uid, 0, sizeof(link->peer_link_uid));
	atomic_set(&link->conn_cnt, 0);
	link->tx_bytes = 0;
	link->rx_bytes = 0;
	link->tx_msgs = 0;
	link->rx_msgs = 0;
	refcount_inc(&path->dev->refs);
	write_lock_bh(&lgr->conns_lock);
	link->dev = path->dev;
	write_unlock_bh(&lgr->conns_lock);
	if (smc_faultinj_fail(SMC_FI_QP) || smc_wr_link_init(link))
		goto put_dev;

	/* from here on smc_buf_get() maps new buffers on the link too */
	mutex_lock(&lgr->bufs_mutex);
	if (lgr->freeing || READ_ONCE(lgr->terminating)) {
		rc = -ENOLINK;
	} else {
		WRITE_ONCE(link->state, SMC_LINK_INIT);
		rc = smc_lgr_map_bufs(lgr, link);
	}
	mutex_unlock(&lgr->bufs_mutex);
	if (rc) {
		if (READ_ONCE(link->state) != SMC_LINK_UNUSED) {
			smc_lgr_link_free(link);
			return NULL;
		}
		smc_wr_link_destroy(link);
		goto put_dev;
	}
	return link;

put_dev:
	write_lock_bh(&lgr->conns_lock);
	link->dev = NULL;
	write_unlock_bh(&lgr->conns_lock);
	smc_ib_put(path->dev);
	return NULL;
}

/* See llc.h. */
void smc_lgr_link_free(struct smc_link *link)
{
	struct smc_lgr *lgr = link->lgr;
	struct smc_ib_dev *dev;
	int i;

	if (READ_ONCE(link->state) == SMC_LINK_UNUSED)
		return;
	WRITE_ONCE(link->state, SMC_LINK_DOWN);
	/* QP in error and drained: the device is done with the buffers */
	smc_wr_link_quiesce(link);
	mutex_lock(&lgr->bufs_mutex);
	smc_lgr_unmap_bufs(lgr, link);
	mutex_unlock(&lgr->bufs_mutex);

	spin_lock_bh(&lgr->rtokens_lock);
	for_each_set_bit(i, lgr->rtokens_used, SMC_RMBS_MAX)
		memset(&lgr->rtokens[i][link->idx], 0,
		       sizeof(lgr->rtokens[i][link->idx]));
	spin_unlock_bh(&lgr->rtokens_lock);
	write_lock_bh(&lgr->conns_lock);
	/* termination leaves it alone from now on */
	WRITE_ONCE(link->state, SMC_LINK_UNUSED);
	write_unlock_bh(&lgr->conns_lock);

	smc_wr_link_destroy(link);
	write_lock_bh(&lgr->conns_lock);
	dev = link->dev;
	link->dev = NULL;
	write_unlock_bh(&lgr->conns_lock);
	if (dev)
		smc_ib_put(dev);
	wake_up_all(&smc_lgr_waitq);	/* smc_lgr_terminate_dev() */
}

/* See llc.h. */
int smc_lgr_switch_conns(struct smc_lgr *lgr, struct smc_link *from)
{
	struct smc_link *to = smc_lgr_other_active(lgr, from);
	struct smc_lgr_conn *c;
	struct smc_rtoken tok;
	struct rb_node *node;
	int r;

	if (!to)
		return -ENOLINK;
	write_lock_bh(&lgr->conns_lock);
	for (node = rb_first(&lgr->conns); node; node = rb_next(node)) {
		c = rb_entry(node, struct smc_lgr_conn, node);
		if (c->link != from)
			continue;
		atomic_dec(&from->conn_cnt);
		atomic_inc(&to->conn_cnt);
		r = c->peer_rtoken;
		if (r >= 0 && !smc_rtoken_get(lgr, r, to->idx, &tok)) {
			/* the peer never told its RMB's rkey on @to */
			WRITE_ONCE(c->link, to);
			if (!c->gone) {
				c->gone = true;
				smc_conn_lgr_gone(c);
			}
			continue;
		}
		smc_conn_link_switch(c, to);
	}
	write_unlock_bh(&lgr->conns_lock);
	return 0;
}

/* See llc.h. */
unsigned int smc_lgr_rmb_rkeys(struct smc_lgr *lgr, const struct smc_link *old,
			       const struct smc_link *link,
			       struct smc_llc_rkey_pair *pairs,
			       unsigned int max)
{
	struct smc_buf *buf;
	unsigned int n = 0;
	int pass;

	mutex_lock(&lgr->bufs_mutex);
	/* the RMBs in use first; idle ones may be reused with their rkey */
	for (pass = 0; pass < 2; pass++) {
		list_for_each_entry(buf, &lgr->rmbs, list) {
			if (buf->used != !pass || n >= max ||
			    !buf->map[old->idx].mapped ||
			    !buf->map[link->idx].mapped)
				continue;
			pairs[n].rkey = buf->map[old->idx].rkey;
			pairs[n].rkey_new = buf->map[link->idx].rkey;
			pairs[n].vaddr_new = buf->map[link->idx].dma_addr;
			n++;
		}
	}
	mutex_unlock(&lgr->bufs_mutex);
	return n;
}

/* See llc.h. */
void smc_rtoken_set_link(struct smc_lgr *lgr, const struct smc_link *old,
			 const struct smc_link *link,
			 const struct smc_llc_rkey_pair *p)
{
	int i;

	if (!p->rkey || !p->rkey_new)
		return;
	spin_lock_bh(&lgr->rtokens_lock);
	for_each_set_bit(i, lgr->rtokens_used, SMC_RMBS_MAX) {
		if (lgr->rtokens[i][old->idx].rkey != p->rkey)
			continue;
		lgr->rtokens[i][link->idx].rkey = p->rkey_new;
		lgr->rtokens[i][link->idx].vaddr = p->vaddr_new;
		break;
	}
	spin_unlock_bh(&lgr->rtokens_lock);
}

/* ------------------------------------------------------------------ */
/* connections                                                         */

static struct smc_lgr_conn *smc_lgr_conn_search(struct smc_lgr *lgr,
						u32 token)
{
	struct rb_node *node = lgr->conns.rb_node;
	struct smc_lgr_conn *c;

	while (node) {
		c = rb_entry(node, struct smc_lgr_conn, node);
		if (token < c->token)
			node = node->rb_left;
		else if (token > c->token)
			node = node->rb_right;
		else
			return c;
	}
	return NULL;
}

/**
 * smc_lgr_conn_lookup() - the connection holding a token
 * @lgr: the link group (its conns_lock held)
 * @token: our alert token
 *
 * Return: the connection or NULL.
 */
struct smc_lgr_conn *smc_lgr_conn_lookup(struct smc_lgr *lgr, u32 token)
{
	lockdep_assert_held(&lgr->conns_lock);
	return smc_lgr_conn_search(lgr, token);
}

static void smc_lgr_conn_insert(struct smc_lgr *lgr, struct smc_lgr_conn *c)
{
	struct rb_node **link = &lgr->conns.rb_node, *parent = NULL;
	struct smc_lgr_conn *cur;

	while (*link) {
		parent = *link;
		cur = rb_entry(parent, struct smc_lgr_conn, node);
		if (c->token < cur->token)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&c->node, parent, link);
	rb_insert_color(&c->node, &lgr->conns);
}

/*
 * Tokens are the only thing that names a connection in a CDC message, and
 * every peer sharing the link group sees them: random, so that nobody can
 * aim a message at a connection it was not told about.
 */
static u32 smc_lgr_token_candidate(void)
{
#if IS_ENABLED(CONFIG_SMC_TESTHOOKS)
	if (smc_faultinj_seq_tokens())
		return (u32)atomic_inc_return(&smc_lgr_seq_token);
#endif
	return get_random_u32();
}

/* a token not zero and not used in @lgr, or 0 */
static u32 smc_lgr_new_token(struct smc_lgr *lgr)
{
	u32 token;
	int i;

	lockdep_assert_held_write(&lgr->conns_lock);
	for (i = 0; i < SMC_TOKEN_TRIES; i++) {
		token = smc_lgr_token_candidate();
		if (token && !smc_lgr_conn_search(lgr, token))
			return token;
	}
	return 0;
}

/**
 * smc_lgr_conn_add() - attach a connection to a link group
 * @lgr: the link group, the caller holds a reference
 * @c: the connection's part
 * @link: the link to use (first contact: may not be active yet), or NULL
 *
 * Return: 0, -ENOSPC (lgr full), -ENOLINK (no usable link or
 * terminating) or -EAGAIN (no free token).
 */
int smc_lgr_conn_add(struct smc_lgr *lgr, struct smc_lgr_conn *c,
		     struct smc_link *link)
{
	u32 token;
	int rc = 0;

	write_lock_bh(&lgr->conns_lock);
	if (lgr->terminating) {
		rc = -ENOLINK;
		goto out;
	}
	if (lgr->conns_num >= lgr->max_conns) {
		rc = -ENOSPC;
		goto out;
	}
	if (link) {
		if (link->lgr != lgr || !smc_link_usable(link)) {
			rc = -ENOLINK;
			goto out;
		}
	} else {
		link = smc_lgr_pick_link(lgr);
		if (!link) {
			rc = -ENOLINK;
			goto out;
		}
	}
	token = smc_lgr_new_token(lgr);
	if (!token) {
		rc = -EAGAIN;
		goto out;
	}
	kref_get(&lgr->ref);
	c->token = token;
	c->lgr = lgr;
	c->link = link;
	c->peer_rtoken = -1;
	c->gone = false;
	atomic_inc(&link->conn_cnt);
	smc_lgr_conn_insert(lgr, c);
	lgr->conns_num++;
out:
	write_unlock_bh(&lgr->conns_lock);
	/* a pending idle timeout held a reference */
	if (!rc && cancel_delayed_work(&lgr->free_work))
		smc_lgr_put(lgr);
	return rc;
}

/* How long an lgr without connections stays; the client waits longer. */
static unsigned long smc_lgr_idle_delay(const struct smc_lgr *lgr)
{
#if IS_ENABLED(CONFIG_SMC_TESTHOOKS)
	unsigned long secs = min_t(u32, READ_ONCE(smc_lgr_idle_secs), 3600);

	if (secs)
		return (secs + (lgr->server ? 0 : 1)) * HZ;
#endif
	return lgr->server ? SMC_LGR_IDLE_SERVER : SMC_LGR_IDLE_CLIENT;
}

/**
 * smc_lgr_conn_del() - detach a connection from its link group
 * @c: the connection's part (nothing happens if it is not attached)
 *
 * Drops the connection's reference; the idle timer starts when the lgr
 * has no connection left.
 */
void smc_lgr_conn_del(struct smc_lgr_conn *c)
{
	struct smc_lgr *lgr = c->lgr;
	bool extra = false;

	if (!lgr)
		return;
	write_lock_bh(&lgr->conns_lock);
	rb_erase(&c->node, &lgr->conns);
	RB_CLEAR_NODE(&c->node);
	lgr->conns_num--;
	if (c->link)
		atomic_dec(&c->link->conn_cnt);
	if (!lgr->conns_num && !lgr->terminating) {
		kref_get(&lgr->ref);	/* the timer's */
		extra = mod_delayed_work(smc_lgr_wq, &lgr->free_work,
					 smc_lgr_idle_delay(lgr));
	}
	write_unlock_bh(&lgr->conns_lock);
	c->lgr = NULL;
	c->link = NULL;
	if (extra)			/* was pending: has its reference */
		smc_lgr_put(lgr);
	smc_lgr_put(lgr);		/* the connection's */
}

/* ------------------------------------------------------------------ */
/* buffers                                                             */

static void smc_buf_unmap_all(struct smc_lgr *lgr, struct smc_buf *buf)
{
	int i;

	for (i = 0; i < SMC_LINKS_MAX; i++) {
		if (!buf->map[i].mapped)
			continue;
		smc_wr_buf_unmap(&lgr->links[i], buf);
		buf->map[i].mapped = false;
	}
}

/*
 * A new buffer of exactly 16 KiB << @comp, mapped on every link.  Charged
 * to the active memory cgroup (smc_memcg_enter()); a buffer the pool gives
 * to a later connection stays charged to the first, as a page cache page
 * stays with the cgroup that read it in.
 */
static struct smc_buf *smc_buf_alloc(struct smc_lgr *lgr, bool rmb, u8 comp)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_NORETRY |
			  __GFP_COMP | __GFP_ZERO;
	u32 size = SMC_BUF_MIN << comp;
	struct smc_link *link;
	struct smc_buf *buf;
	struct page *pages;
	int i;

	if (get_order(size) > MAX_PAGE_ORDER)
		return NULL;
	if (smc_faultinj_fail(rmb ? SMC_FI_RMB : SMC_FI_SNDBUF))
		return NULL;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL_ACCOUNT);
	if (!buf)
		return NULL;
	pages = alloc_pages(gfp, get_order(size));
	if (!pages) {
		kfree(buf);
		return NULL;
	}
	buf->cpu_addr = page_address(pages);
	buf->size = size;
	buf->comp = comp;
	buf->rmb = rmb;
	for (i = 0; i < SMC_LINKS_MAX; i++) {
		link = &lgr->links[i];
		if (!smc_link_usable(link))
			continue;
		if (smc_wr_buf_map(link, buf)) {
			smc_buf_unmap_all(lgr, buf);
			smc_buf_free(buf);
			return NULL;
		}
		buf->map[i].mapped = true;
	}
	return buf;
}

/**
 * smc_buf_get() - a send buffer or RMB for a new connection
 * @lgr: the link group
 * @rmb: an RMB rather than a send buffer
 * @comp: the wanted size, 16 KiB << @comp
 *
 * Reuses an unused buffer of exactly the size, else allocates one,
 * falling back to smaller sizes down to 16 KiB.  Sleeps.
 *
 * Return: the buffer (used) or NULL.
 */
struct smc_buf *smc_buf_get(struct smc_lgr *lgr, bool rmb, u8 comp)
{
	struct list_head *head = rmb ? &lgr->rmbs : &lgr->sndbufs;
	struct smc_buf *buf;
	int c;

	if (comp > 31 - ilog2(SMC_BUF_MIN))
		return NULL;
	mutex_lock(&lgr->bufs_mutex);
	if (READ_ONCE(lgr->terminating) || lgr->freeing) {
		mutex_unlock(&lgr->bufs_mutex);
		return NULL;
	}
	for (c = comp; c >= 0; c--) {
		list_for_each_entry(buf, head, list) {
			if (buf->used || buf->comp != c)
				continue;
			buf->used = true;
			/*
			 * The peer must never read an earlier connection's
			 * data: the CPU takes the RMB from the devices, zeroes
			 * it and hands it back.
			 */
			if (rmb) {
				smc_wr_buf_sync(lgr, buf, 0, buf->size, true);
				memset(buf->cpu_addr, 0, buf->size);
				smc_wr_buf_sync(lgr, buf, 0, buf->size, false);
			}
			goto out;
		}
		buf = smc_buf_alloc(lgr, rmb, c);
		if (buf) {
			buf->used = true;
			list_add_tail(&buf->list, head);
			goto out;
		}
	}
	buf = NULL;
out:
	mutex_unlock(&lgr->bufs_mutex);
	return buf;
}

/**
 * smc_buf_put() - return a buffer to the link group's pool
 * @lgr: the link group
 * @buf: a buffer from smc_buf_get()
 */
void smc_buf_put(struct smc_lgr *lgr, struct smc_buf *buf)
{
	if (!buf)
		return;
	mutex_lock(&lgr->bufs_mutex);
	buf->used = false;
	mutex_unlock(&lgr->bufs_mutex);
}

/**
 * smc_buf_confirm_rkey() - make the RMB's rkeys known to the peer
 * @lgr: the link group
 * @rmb: the RMB
 *
 * Sleeps up to SMC_LLC_WAIT_TIME plus the wait for a running LLC flow.
 *
 * Return: 0, or a negative errno (the peer refused, timeout, no link).
 */
int smc_buf_confirm_rkey(struct smc_lgr *lgr, struct smc_buf *rmb)
{
	if (!rmb->rmb)
		return -EINVAL;
	return smc_llc_confirm_rkey(lgr, rmb);
}

/* ------------------------------------------------------------------ */
/* peer RMB tokens                                                     */

static int __smc_rtoken_add(struct smc_lgr *lgr, u8 link_idx, u64 vaddr,
			    u32 rkey)
{
	int i;

	lockdep_assert_held(&lgr->rtokens_lock);
	for_each_set_bit(i, lgr->rtokens_used, SMC_RMBS_MAX) {
		if (lgr->rtokens[i][link_idx].rkey == rkey &&
		    lgr->rtokens[i][link_idx].vaddr == vaddr)
			return i;
	}
	i = find_first_zero_bit(lgr->rtokens_used, SMC_RMBS_MAX);
	if (i >= SMC_RMBS_MAX)
		return -ENOSPC;
	__set_bit(i, lgr->rtokens_used);
	memset(lgr->rtokens[i], 0, sizeof(lgr->rtokens[i]));
	lgr->rtokens[i][link_idx].vaddr = vaddr;
	lgr->rtokens[i][link_idx].rkey = rkey;
	return i;
}

/**
 * smc_rtoken_add() - record the peer's RMB
 * @lgr: the link group
 * @link: the link @rkey is valid on
 * @vaddr: the RMB's address for RDMA WRITEs
 * @rkey: its rkey on @link
 *
 * Return: the token index, or -ENOSPC when the table is full.
 */
int smc_rtoken_add(struct smc_lgr *lgr, struct smc_link *link, u64 vaddr,
		   u32 rkey)
{
	int rc;

	spin_lock_bh(&lgr->rtokens_lock);
	rc = __smc_rtoken_add(lgr, link->idx, vaddr, rkey);
	spin_unlock_bh(&lgr->rtokens_lock);
	return rc;
}

/**
 * smc_rtoken_get() - the peer's RMB on one link
 * @lgr: the link group
 * @idx: the token index
 * @link_idx: the link's index in lgr->links[]
 * @tok: filled in
 *
 * Return: true if the token exists and has an rkey for that link.
 */
bool smc_rtoken_get(struct smc_lgr *lgr, int idx, u8 link_idx,
		    struct smc_rtoken *tok)
{
	bool ok = false;

	if (idx < 0 || idx >= SMC_RMBS_MAX || link_idx >= SMC_LINKS_MAX)
		return false;
	spin_lock_bh(&lgr->rtokens_lock);
	if (test_bit(idx, lgr->rtokens_used) &&
	    lgr->rtokens[idx][link_idx].rkey) {
		*tok = lgr->rtokens[idx][link_idx];
		ok = true;
	}
	spin_unlock_bh(&lgr->rtokens_lock);
	return ok;
}

/* See llc.h.  Entries for link numbers we do not know are ignored. */
int smc_rtoken_confirm(struct smc_lgr *lgr, struct smc_link *link,
		       const struct smc_llc_confirm_rkey *cr)
{
	const struct smc_llc_rtoken *t;
	int idx, i, j, n;

	spin_lock_bh(&lgr->rtokens_lock);
	idx = __smc_rtoken_add(lgr, link->idx, cr->tok[0].vaddr,
			       cr->tok[0].rkey);
	n = idx < 0 ? 0 : min_t(int, cr->num_rkeys, SMC_LLC_RKEY_CONT_MAX - 1);
	for (i = 1; i <= n; i++) {
		t = &cr->tok[i];
		for (j = 0; j < SMC_LINKS_MAX; j++) {
			if (READ_ONCE(lgr->links[j].state) == SMC_LINK_UNUSED ||
			    lgr->links[j].link_id != t->link_id)
				continue;
			lgr->rtokens[idx][j].vaddr = t->vaddr;
			lgr->rtokens[idx][j].rkey = t->rkey;
			break;
		}
	}
	spin_unlock_bh(&lgr->rtokens_lock);
	return idx < 0 ? idx : 0;
}

/* See llc.h. */
int smc_rtoken_delete(struct smc_lgr *lgr, struct smc_link *link, u32 rkey)
{
	int i, rc = -ENOENT;

	spin_lock_bh(&lgr->rtokens_lock);
	for_each_set_bit(i, lgr->rtokens_used, SMC_RMBS_MAX) {
		if (lgr->rtokens[i][link->idx].rkey != rkey)
			continue;
		memset(lgr->rtokens[i], 0, sizeof(lgr->rtokens[i]));
		__clear_bit(i, lgr->rtokens_used);
		rc = 0;
		break;
	}
	spin_unlock_bh(&lgr->rtokens_lock);
	return rc;
}

/* ------------------------------------------------------------------ */
/* test knobs (CONFIG_SMC_TESTHOOKS only)                              */

#if IS_ENABLED(CONFIG_SMC_TESTHOOKS)
/*
 * /sys/kernel/debug/smc/fail_link: writing a link number moves the QP of
 * every active link with that number to the error state, as a broken path
 * would; the link then fails like any other (for failover tests).
 */
static struct dentry *smc_lgr_debugfs;

static void smc_lgr_fail_link(struct smc_lgr *lgr, u8 link_id)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct smc_link *link;
	int i;

	mutex_lock(&lgr->llc_mutex);	/* no link is destroyed meanwhile */
	for (i = 0; i < SMC_LINKS_MAX; i++) {
		link = &lgr->links[i];
		if (READ_ONCE(lgr->terminating) || !link->qp ||
		    READ_ONCE(link->state) != SMC_LINK_ACTIVE ||
		    link->link_id != link_id)
			continue;
		pr_info("lgr %*phN link %u: QP set to error (debugfs)\n",
			(int)sizeof(lgr->id), lgr->id, link_id);
		ib_modify_qp(link->qp, &attr, IB_QP_STATE);
	}
	mutex_unlock(&lgr->llc_mutex);
}

static ssize_t smc_lgr_fail_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	struct smc_lgr *lgr, *found;
	unsigned int pos, i;
	u8 link_id;
	int rc;

	rc = kstrtou8_from_user(ubuf, len, 0, &link_id);
	if (rc)
		return rc;
	for (pos = 0;; pos++) {
		found = NULL;
		i = 0;
		spin_lock_bh(&smc_lgrs_lock);
		list_for_each_entry(lgr, &smc_lgrs, list) {
			if (i++ < pos)
				continue;
			kref_get(&lgr->ref);
			found = lgr;
			break;
		}
		spin_unlock_bh(&smc_lgrs_lock);
		if (!found)
			break;
		smc_lgr_fail_link(found, link_id);
		smc_lgr_put(found);
	}
	return len;
}

static const struct file_operations smc_lgr_fail_fops = {
	.owner = THIS_MODULE,
	.write = smc_lgr_fail_write,
	.llseek = noop_llseek,
};

static void smc_lgr_debugfs_init(void)
{
	smc_lgr_debugfs = debugfs_create_dir("smc", NULL);
	debugfs_create_file("fail_link", 0200, smc_lgr_debugfs, NULL,
			    &smc_lgr_fail_fops);
	debugfs_create_u32("idle_secs", 0600, smc_lgr_debugfs,
			   &smc_lgr_idle_secs);
}

static void smc_lgr_debugfs_exit(void)
{
	debugfs_remove(smc_lgr_debugfs);	/* waits for writers */
	smc_lgr_debugfs = NULL;
}
#else
static void smc_lgr_debugfs_init(void) { }
static void smc_lgr_debugfs_exit(void) { }
#endif

/* ------------------------------------------------------------------ */
/* module init/exit                                                    */

/*
 * End every lgr of @net (any if NULL), telling each peer that the host
 * stops using it; false when some are still listed after @timeo.
 */
static bool smc_lgr_end_all(struct net *net, long timeo)
{
	smc_lgr_terminate_on(net, NULL, 0, 0, SMC_LLC_DEL_OP_INIT_TERM);
	return wait_event_timeout(smc_lgr_waitq, smc_lgr_none_on(net, NULL),
				  timeo);
}

/*
 * A link group belongs to the network namespace of the sockets that made
 * it and reads that namespace's settings (TEST_LINK interval, trace
 * events) for as long as it lives.  It holds no reference on the
 * namespace, which would keep a dead namespace around until the idle
 * timeout: instead, when the namespace goes, so do its link groups (every
 * socket of the namespace is gone by then, so they only idle), telling
 * their peers, and the namespace's exit waits for their teardown.
 * (Upstream ties a link group to its RDMA device's namespace instead.)
 */
static void __net_exit smc_lgr_net_exit(struct net *net)
{
	if (!smc_lgr_end_all(net, SMC_LGR_TEARDOWN_WAIT))
		pr_err("link groups of a dying namespace did not go away\n");
}

static struct pernet_operations smc_lgr_net_ops = {
	.exit = smc_lgr_net_exit,
};

/*
 * Power-off, halt or reboot: end every link group in order, as Linux's
 * module does, so that no peer keeps one whose other end is gone until
 * its keepalive gives up.  New link groups are refused from here on (new
 * connections fall back to TCP).  Bounded: a silent peer delays the
 * shutdown by SMC_LGR_SHUTDOWN_WAIT at most.
 */
static int smc_lgr_reboot(struct notifier_block *nb, unsigned long action,
			  void *data)
{
	spin_lock_bh(&smc_lgrs_lock);
	smc_lgrs_closed = true;
	spin_unlock_bh(&smc_lgrs_lock);
	if (!smc_lgr_end_all(NULL, SMC_LGR_SHUTDOWN_WAIT))
		pr_warn("link groups still ending at shutdown\n");
	return NOTIFY_DONE;
}

static struct notifier_block smc_lgr_reboot_nb = {
	.notifier_call = smc_lgr_reboot,
};

/**
 * smc_lgr_init() - set up the registry
 *
 * Return: 0 or a negative errno.
 */
int smc_lgr_init(void)
{
	int rc;

	smc_lgr_wq = alloc_workqueue("smc_lgr", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!smc_lgr_wq)
		return -ENOMEM;
	/* after the sysctls' pernet ops: ours exit first */
	rc = register_pernet_subsys(&smc_lgr_net_ops);
	if (rc)
		goto out_wq;
	rc = register_reboot_notifier(&smc_lgr_reboot_nb);
	if (rc)
		goto out_pernet;
	smc_lgr_debugfs_init();
	return 0;

out_pernet:
	unregister_pernet_subsys(&smc_lgr_net_ops);
out_wq:
	destroy_workqueue(smc_lgr_wq);
	smc_lgr_wq = NULL;
	return rc;
}

/**
 * smc_lgr_exit() - terminate every link group and wait for them to go
 *
 * Module unload: no socket is left, so nothing but our own work items
 * holds references for long.
 */
void smc_lgr_exit(void)
{
	smc_lgr_debugfs_exit();
	unregister_reboot_notifier(&smc_lgr_reboot_nb);
	unregister_pernet_subsys(&smc_lgr_net_ops);
	smc_lgr_terminate_on(NULL, NULL, 0, 0, SMC_LLC_DEL_OP_INIT_TERM);

	if (!wait_event_timeout(smc_lgr_waitq, !atomic_read(&smc_lgr_count),
				SMC_LGR_TEARDOWN_WAIT))
		pr_warn("%d link groups still referenced at unload\n",
			atomic_read(&smc_lgr_count));
	flush_workqueue(smc_lgr_wq);
	destroy_workqueue(smc_lgr_wq);
	smc_lgr_wq = NULL;
}

/* ------------------------------------------------------------------ */
/* snapshots for netlink and sock_diag                                 */

/*
 * Copy @link of @lgr.  The caller holds conns_lock and has seen the lgr
 * not terminating: its teardown, which drops the links' device
 * references, cannot have started and cannot start meanwhile.
 */
static bool smc_lgr_copy_link(struct smc_link *link,
			      struct smc_link_info *info)
{
	enum smc_link_state st = READ_ONCE(link->state);

	if (st == SMC_LINK_UNUSED || !link->dev)
		return false;
	memset(info, 0, sizeof(*info));
	info->link_id = link->link_id;
	info->state = st;
	info->port = link->port;
	if (link->port >= 1 && link->port <= SMC_IB_MAX_PORTS)
		info->ifindex = READ_ONCE(link->dev->port[link->port - 1].ifindex);
	info->conns = atomic_read(&link->conn_cnt);
	strscpy(info->ibname, dev_name(&link->dev->ibdev->dev), sizeof(info->ibname));
	memcpy(info->link_uid, link->link_uid, sizeof(info->link_uid));
	memcpy(info->peer_link_uid, link->peer_link_uid,
	       sizeof(info->peer_link_uid));
	memcpy(info->gid, link->gid, SMC_IB_GID_LEN);
	memcpy(info->peer_gid, link->peer.gid, SMC_IB_GID_LEN);
	info->tx_wimm = READ_ONCE(link->tx_wimm);
	info->rx_wimm = READ_ONCE(link->rx_wimm);
	return true;
}

/* The lgr's own fields and links. */
static bool smc_lgr_copy(struct smc_lgr *lgr, struct smc_lgr_info *info)
{
	bool ok = false;
	int i;

	lockdep_assert_held(&smc_lgrs_lock);
	read_lock_bh(&lgr->conns_lock);
	if (lgr->terminating)
		goto out;
	memcpy(info->id, lgr->id, sizeof(info->id));
	info->server = lgr->server;
	info->version = lgr->version;
	info->release = lgr->release;
	memcpy(info->neg_eid, lgr->neg_eid, SMC_CLC_EID_LEN);
	info->neg_eid[SMC_CLC_EID_LEN] = '\0';
	info->direct = lgr->direct;
	info->peer_os = lgr->peer_os;
	memcpy(info->peer_hostname, lgr->peer_hostname, SMC_CLC_HOSTNAME_LEN);
	info->peer_hostname[SMC_CLC_HOSTNAME_LEN] = '\0';
	info->vlan = lgr->vlan;
	memcpy(info->pnetid, lgr->pnetid, SMC_IB_PNETID_LEN);
	info->pnetid[SMC_IB_PNETID_LEN] = '\0';
	info->net_cookie = lgr->net->net_cookie;
	info->conns_num = lgr->conns_num;
	info->max_conns = lgr->max_conns;
	info->max_links = lgr->max_links;
	info->vx = READ_ONCE(lgr->vx);
	info->nlinks = 0;
	for (i = 0; i < SMC_LINKS_MAX; i++)
		if (smc_lgr_copy_link(&lgr->links[i],
				      &info->links[info->nlinks]))
			info->nlinks++;
	ok = true;
out:
	read_unlock_bh(&lgr->conns_lock);
	return ok;
}

/**
 * smc_lgr_info() - copy the next link group for a netlink dump
 * @net: the requester's namespace: only its link groups are shown
 * @pos: list position to start at; advanced past the lgr returned
 * @info: filled in
 *
 * Terminating link groups are left out.  Process context.
 *
 * Return: 0, or -ENOENT when there is no further link group.
 */
int smc_lgr_info(struct net *net, unsigned int *pos,
		 struct smc_lgr_info *info)
{
	struct smc_lgr *lgr, *found = NULL;
	struct smc_buf *buf;
	unsigned int i = 0;

	memset(info, 0, sizeof(*info));
	spin_lock_bh(&smc_lgrs_lock);
	list_for_each_entry(lgr, &smc_lgrs, list) {
		if (i++ < *pos || !net_eq(lgr->net, net))
			continue;
		if (!smc_lgr_copy(lgr, info))
			continue;
		*pos = i;
		kref_get(&lgr->ref);
		found = lgr;
		break;
	}
	spin_unlock_bh(&smc_lgrs_lock);
	if (!found)
		return -ENOENT;

	mutex_lock(&found->bufs_mutex);
	list_for_each_entry(buf, &found->sndbufs, list)
		info->sndbuf_bytes += buf->size;
	list_for_each_entry(buf, &found->rmbs, list)
		info->rmb_bytes += buf->size;
	mutex_unlock(&found->bufs_mutex);
	smc_lgr_put(found);
	return 0;
}

/**
 * smc_lgr_link_info() - copy one link of a link group
 * @lgr: the link group, the caller holds a reference
 * @link: one of its links
 * @info: filled in
 *
 * Never sleeps.
 *
 * Return: true, or false when @lgr is terminating or @link unused.
 */
bool smc_lgr_link_info(struct smc_lgr *lgr, struct smc_link *link,
		       struct smc_link_info *info)
{
	bool ok = false;

	read_lock_bh(&lgr->conns_lock);
	if (!lgr->terminating && link->lgr == lgr)
		ok = smc_lgr_copy_link(link, info);
	read_unlock_bh(&lgr->conns_lock);
	return ok;
}
