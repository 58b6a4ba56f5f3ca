// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: LLC flows.
 *
 * Messages arrive in softirq context (smc_llc_rx()).  They are validated
 * and then either
 *  - delivered to the local flow waiting for them (responses to our
 *    requests, and the server's CONFIRM_LINK request a client expects on
 *    its first link) through a one-message mailbox, or
 *  - TEST_LINK responses: complete the link's keepalive, or
 *  - peer requests: copied to a bounded per-lgr queue that a work item
 *    answers in process context.
 *
 * Local flows (first link confirmation, CONFIRM_RKEY) run in the caller's
 * context under lgr->llc_mutex, one at a time per lgr; each arms the
 * mailbox for the message it expects before sending its request.  The
 * keepalive (TEST_LINK) is a delayed work per link with its own
 * completion, independent of the mailbox.
 *
 * Further links (max_links > 1 negotiated): the server adds one after the
 * first link is confirmed and again after a link was lost (ADD_LINK with
 * the new QP, the rkeys of every RMB on the new link in the v2 message or
 * in ADD_LINK_CONT for v1, CONFIRM_LINK on the new link); the client
 * answers.  Each side puts its end of the new link on another RDMA device
 * when it has one that can reach the peer like the first link does
 * (upstream's "symmetric" link group), else on a second QP pair on the
 * first link's device and port ("asymmetric").  A link that fails or that the peer
 * deletes while another one is active gives its connections to that one
 * and goes; only the last link takes the lgr with it.  Both run in work
 * items of their own, under llc_mutex like every local flow.
 *
 * Locking: llc->lock (BH) protects the mailbox, the queue, ->stopped and
 * the keepalive's waiting flag; it is innermost.  Every wait is bounded
 * and ends early when the lgr terminates or the link goes down.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/completion.h>
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "core.h"
#include "wr.h"
#include "llc.h"
#include "sysctl.h"
#include "testhooks.h"
#include "trace.h"

#define SMC_LLC_QUEUE_MAX	32		/* peer requests per lgr */
#define SMC_LLC_TESTLINK_TIME	(30 * HZ)	/* when the sysctl is 0 */
#define SMC_LLC_LINKS_ADVERTISED 2		/* CONFIRM_LINK max_links, v1 */
/* DELETE_RKEY: the rkey count, echoed in a v2 response without list */
#define SMC_LLC_DEL_RKEY_NUM_OFF 4
/* ADD_LINK_CONT rounds before a v1 rkey exchange is given up */
#define SMC_LLC_CONT_ROUNDS	(SMC_RMBS_MAX / SMC_LLC_ADD_LINK_CONT_MAX + 2)

struct smc_llc_qentry {
	struct list_head list;
	struct smc_link *link;
	u16 len;
	u8 data[];
};

struct smc_llc_lnk {
	struct smc_link *link;
	struct delayed_work testlink;
	struct completion tl_resp;
	bool tl_waiting;		/* under llc->lock */
	unsigned long last_rx;		/* jiffies of the last LLC message */
	u64 seen_rx_msgs;
};

struct smc_llc {
	struct smc_lgr *lgr;
	spinlock_t lock;		/* everything below but the works */
	bool stopped;

	/* peer requests */
	struct list_head queue;
	unsigned int qlen;
	struct work_struct work;

	/* the local flow's mailbox */
	wait_queue_head_t wait;
	u8 exp_type;			/* 0: nothing expected */
	bool exp_req;			/* a request, not a response */
	struct smc_link *exp_link;	/* NULL: any link */
	bool have;
	struct smc_llc_msg msg;		/* ->wire is NULL */
	u8 *raw;			/* the message as received */

	/* link flows (work items, each holding an lgr reference) */
	struct work_struct add_work;	/* server: add a link */
	struct smc_llc_qentry *add_req;	/* client: the ADD_LINK to answer */
	struct work_struct down_work;
	unsigned long down_mask;	/* links that failed, by index */
	u8 down_id[SMC_LINKS_MAX];	/* link_id of each when it failed */
	u8 next_link_id;		/* server */

	struct smc_llc_lnk lnk[SMC_LINKS_MAX];
};

static inline struct smc_llc *smc_llc_of(struct smc_lgr *lgr)
{
	return lgr->llc;
}

/* ------------------------------------------------------------------ */
/* sending                                                             */

/* Encode @m in the lgr's LLC version and send it on @link. */
static int smc_llc_send(struct smc_link *link, struct smc_llc_msg *m,
			long timeo)
{
	u8 buf[SMC_LLC_MSG_LEN];
	int len;

	m->version = link->lgr->version == SMC_V2 ? SMC_LLC_VERSION_V2 :
						    SMC_LLC_VERSION_V1;
	len = smc_llc_encode(m, buf, sizeof(buf));
	if (len < 0)
		return len;
	if (smc_hostile_llc(link, buf, &len))
		return 0;
	return smc_wr_send(link, buf, len, 0, 0, timeo);
}

/* smc_llc_send() for a message that may be longer than 44 bytes (v2). */
static int smc_llc_send_long(struct smc_link *link, struct smc_llc_msg *m,
			     long timeo)
{
	u8 *buf;
	int len;

	if (link->lgr->version != SMC_V2)
		return smc_llc_send(link, m, timeo);
	buf = kmalloc(SMC_LLC_V2_MAX_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	m->version = SMC_LLC_VERSION_V2;
	len = smc_llc_encode(m, buf, SMC_LLC_V2_MAX_LEN);
	if (len >= 0 && smc_hostile_llc(link, buf, &len))
		len = 0;
	else if (len >= 0)
		len = smc_wr_send(link, buf, len, 0, 0, timeo);
	kfree(buf);
	return len < 0 ? len : 0;
}

static void smc_llc_send_delete_link(struct smc_link *link, u8 link_num,
				     bool orderly, u32 reason)
{
	struct smc_llc_msg m = {};

	m.type = SMC_LLC_DELETE_LINK;
	if (orderly)
		m.flags = SMC_LLC_FLAG_DEL_LINK_ORDERLY;
	m.delete_link.link_num = link_num;
	m.delete_link.reason = reason;
	smc_llc_send(link, &m, SMC_LLC_WAIT_TIME);
}

/* See llc.h. */
void smc_llc_send_delete_all(struct smc_lgr *lgr, u32 reason, bool orderly)
{
	struct smc_llc_msg m = {};
	struct smc_link *link;
	int i;

	m.type = SMC_LLC_DELETE_LINK;
	m.flags = SMC_LLC_FLAG_DEL_LINK_ALL;
	if (orderly)
		m.flags |= SMC_LLC_FLAG_DEL_LINK_ORDERLY;
	m.delete_link.reason = reason;
	for (i = 0; i < SMC_LINKS_MAX; i++) {
		link = &lgr->links[i];
		if (READ_ONCE(link->state) != SMC_LINK_ACTIVE)
			continue;
		if (!smc_llc_send(link, &m, 0))
			break;
	}
}

/* ------------------------------------------------------------------ */
/* the local flow's mailbox                                            */

static void smc_llc_expect(struct smc_llc *llc, u8 type, bool req,
			   struct smc_link *link)
{
	spin_lock_bh(&llc->lock);
	llc->exp_type = type;
	llc->exp_req = req;
	llc->exp_link = link;
	llc->have = false;
	spin_unlock_bh(&llc->lock);
}

static void smc_llc_expect_none(struct smc_llc *llc)
{
	smc_llc_expect(llc, 0, false, NULL);
}

static bool smc_llc_link_gone(struct smc_link *link)
{
	enum smc_link_state st = READ_ONCE(link->state);

	return st == SMC_LINK_DOWN || st == SMC_LINK_UNUSED;
}

static bool smc_llc_mail_ready(struct smc_llc *llc, struct smc_link *link)
{
	return READ_ONCE(llc->have) || READ_ONCE(llc->lgr->terminating) ||
	       smc_llc_link_gone(link);
}

/*
 * Wait up to @timeo for the expected message; it is copied to @out.  The
 * mailbox is disarmed afterwards.  Returns 0, -ENOLINK or -ETIMEDOUT.
 */
static int smc_llc_await(struct smc_llc *llc, struct smc_link *link,
			 long timeo, struct smc_llc_msg *out)
{
	int rc;

	wait_event_timeout(llc->wait, smc_llc_mail_ready(llc, link),
			   max(timeo, 1L));
	spin_lock_bh(&llc->lock);
	if (llc->have) {
		*out = llc->msg;
		out->wire = llc->raw;	/* valid until the next expectation */
		rc = 0;
	} else if (READ_ONCE(llc->lgr->terminating) ||
		   smc_llc_link_gone(link)) {
		rc = -ENOLINK;
	} else {
		rc = -ETIMEDOUT;
	}
	llc->exp_type = 0;
	llc->have = false;
	spin_unlock_bh(&llc->lock);
	return rc;
}

/* softirq, llc->lock held: hand @m to the waiting flow if it wants it */
static bool smc_llc_deliver(struct smc_llc *llc, struct smc_link *link,
			    const struct smc_llc_msg *m, bool req)
{
	lockdep_assert_held(&llc->lock);
	if (llc->have || llc->exp_type != m->type || llc->exp_req != req ||
	    (llc->exp_link && llc->exp_link != link))
		return false;
	llc->msg = *m;
	llc->msg.wire = NULL;
	memcpy(llc->raw, m->wire, min_t(u16, m->length, SMC_LLC_V2_MAX_LEN));
	WRITE_ONCE(llc->have, true);
	wake_up(&llc->wait);
	return true;
}

/* See llc.h. */
void smc_llc_wake(struct smc_lgr *lgr)
{
	struct smc_llc *llc = smc_llc_of(lgr);
	int i;

	wake_up_all(&llc->wait);
	for (i = 0; i < SMC_LINKS_MAX; i++)
		complete_all(&llc->lnk[i].tl_resp);
}

/* ------------------------------------------------------------------ */
/* receiving (softirq)                                                 */

static void smc_llc_drop(struct smc_link *link, const struct smc_llc_msg *m,
			 const char *why)
{
	net_dbg_ratelimited("smc: lgr %*phN link %u: dropped LLC %s%s: %s\n",
			    (int)sizeof(link->lgr->id), link->lgr->id,
			    link->link_id, smc_llc_type_str(m->type),
			    smc_llc_is_resp(m) ? " response" : "", why);
}

static void smc_llc_rx_resp(struct smc_llc *llc, struct smc_link *link,
			    const struct smc_llc_msg *m)
{
	struct smc_llc_lnk *l = &llc->lnk[link->idx];
	bool taken = false;

	spin_lock(&llc->lock);
	if (m->type == SMC_LLC_TEST_LINK) {
		if (l->tl_waiting) {
			l->tl_waiting = false;
			complete(&l->tl_resp);
			taken = true;
		}
	} else {
		taken = smc_llc_deliver(llc, link, m, false);
	}
	spin_unlock(&llc->lock);
	if (!taken)
		smc_llc_drop(link, m, "not expected");
}

static void smc_llc_enqueue(struct smc_llc *llc, struct smc_link *link,
			    const u8 *buf, u16 len)
{
	struct smc_lgr *lgr = llc->lgr;
	struct smc_llc_qentry *e;

	e = kmalloc(struct_size(e, data, len), GFP_ATOMIC);
	if (!e)
		return;
	e->link = link;
	e->len = len;
	memcpy(e->data, buf, len);

	spin_lock(&llc->lock);
	if (llc->stopped || llc->qlen >= SMC_LLC_QUEUE_MAX) {
		spin_unlock(&llc->lock);
		kfree(e);
		net_warn_ratelimited("smc: lgr %*phN: LLC request dropped\n",
				     (int)sizeof(lgr->id), lgr->id);
		return;
	}
	list_add_tail(&e->list, &llc->queue);
	llc->qlen++;
	kref_get(&lgr->ref);		/* the work's */
	if (!queue_work(smc_lgr_wq, &llc->work))
		smc_lgr_put(lgr);	/* never the last: the list holds one */
	spin_unlock(&llc->lock);
}

/**
 * smc_llc_rx() - an LLC message arrived
 * @link: the link it arrived on
 * @buf: the message, valid during the call only
 * @len: its length as received
 *
 * Softirq context.
 */
void smc_llc_rx(struct smc_link *link, const u8 *buf, u32 len)
{
	struct smc_llc *llc = smc_llc_of(link->lgr);
	struct smc_llc_msg m;
	bool taken;
	int rc;

	rc = smc_llc_decode(buf, len, &m);
	if (rc) {
		net_warn_ratelimited("smc: lgr %*phN link %u: malformed LLC message type 0x%02x len %u (%d)\n",
				     (int)sizeof(link->lgr->id), link->lgr->id,
				     link->link_id, len ? buf[0] : 0, len, rc);
		return;
	}
	WRITE_ONCE(llc->lnk[link->idx].last_rx, jiffies);
	/*
	 * The peer ends the link group, or its side of ours: an end of ours
	 * waits for that even after the LLC layer stopped, and a link group
	 * that ends anyway has nothing more to do with it.
	 */
	if (m.type == SMC_LLC_DELETE_LINK &&
	    (m.flags & SMC_LLC_FLAG_DEL_LINK_ALL)) {
		if (!(m.flags & SMC_LLC_FLAG_DEL_LINK_ORDERLY))
			smc_lgr_peer_ended(link->lgr);
		if (READ_ONCE(link->lgr->terminating))
			return;
	}

	if (smc_llc_is_resp(&m)) {
		if (m.type == SMC_LLC_REQ_ADD_LINK)
			return;		/* we never ask for links */
		smc_llc_rx_resp(llc, link, &m);
		return;
	}
	if (m.type == SMC_LLC_CONFIRM_LINK ||
	    m.type == SMC_LLC_ADD_LINK_CONT) {
		/* parts of a link flow of ours, which awaits them */
		spin_lock(&llc->lock);
		taken = smc_llc_deliver(llc, link, &m, true);
		spin_unlock(&llc->lock);
		if (!taken)
			smc_llc_drop(link, &m, "not expected");
		return;
	}
	smc_llc_enqueue(llc, link, buf, m.length);
}

/* ------------------------------------------------------------------ */
/* peer requests (work)                                                */

static void smc_llc_do_confirm_rkey(struct smc_lgr *lgr,
				    struct smc_link *link,
				    struct smc_llc_msg *m)
{
	if (smc_rtoken_confirm(lgr, link, &m->confirm_rkey))
		m->flags |= SMC_LLC_FLAG_RKEY_NEG | SMC_LLC_FLAG_RKEY_RETRY;
	m->flags |= SMC_LLC_FLAG_RESP;
	smc_llc_send(link, m, SMC_LLC_WAIT_TIME);
}

static void smc_llc_do_delete_rkey(struct smc_lgr *lgr,
				   struct smc_link *link,
				   struct smc_llc_msg *m)
{
	u32 rkeys[SMC_LLC_DEL_RKEY_MAX];
	struct smc_llc_msg r = {};
	unsigned int i, failed = 0;
	u8 buf[SMC_LLC_MSG_LEN];
	u8 err_mask = 0;
	u32 rkey;
	int len;

	r.type = SMC_LLC_DELETE_RKEY;
	r.flags = m->flags | SMC_LLC_FLAG_RESP;
	for (i = 0; i < m->delete_rkey.num_present; i++) {
		rkey = smc_llc_del_rkey_at(m, i);
		if (i < SMC_LLC_DEL_RKEY_MAX)
			rkeys[i] = rkey;
		if (!smc_rtoken_delete(lgr, link, rkey))
			continue;
		failed++;
		if (i < SMC_LLC_DEL_RKEY_MAX)
			err_mask |= 0x80 >> i;
	}
	if (lgr->version != SMC_V2) {
		/* v1: the request echoed, a bit per rkey that was unknown */
		r.delete_rkey.num_rkeys = min_t(u16, m->delete_rkey.num_present,
						SMC_LLC_DEL_RKEY_MAX);
		r.delete_rkey.rkeys = rkeys;
		r.delete_rkey.err_mask = err_mask;
		if (err_mask)
			r.flags |= SMC_LLC_FLAG_RKEY_NEG;
		smc_llc_send(link, &r, SMC_LLC_WAIT_TIME);
		return;
	}
	/* v2: 44 bytes, the count echoed, the list left out, failures counted */
	r.delete_rkey.err_mask = min_t(unsigned int, failed, U8_MAX);
	if (failed)
		r.flags |= SMC_LLC_FLAG_RKEY_NEG;
	r.version = SMC_LLC_VERSION_V2;
	len = smc_llc_encode(&r, buf, sizeof(buf));
	if (len < 0)
		return;
	buf[SMC_LLC_DEL_RKEY_NUM_OFF] = m->delete_rkey.num_rkeys;
	smc_wr_send(link, buf, len, 0, 0, SMC_LLC_WAIT_TIME);
}

static struct smc_link *smc_llc_link_by_id(struct smc_lgr *lgr, u8 link_id)
{
	int i;

	for (i = 0; i < SMC_LINKS_MAX; i++)
		if (READ_ONCE(lgr->links[i].state) != SMC_LINK_UNUSED &&
		    lgr->links[i].link_id == link_id)
			return &lgr->links[i];
	return NULL;
}

static void smc_llc_drop_link(struct smc_lgr *lgr, struct smc_link *del);
static bool smc_llc_queue_add(struct smc_lgr *lgr);

static void smc_llc_do_delete_link(struct smc_lgr *lgr,
				   struct smc_link *link,
				   struct smc_llc_msg *m)
{
	struct smc_llc *llc = smc_llc_of(lgr);
	struct smc_link *del, *via;

	if (m->flags & SMC_LLC_FLAG_DEL_LINK_ALL) {
		/*
		 * In either role, answer with our own DELETE_LINK for all
		 * links, not orderly, as Linux's module ends its side: the
		 * peer keeps its QPs up until then (smc_lgr_await_bye()).
		 */
		smc_lgr_terminate(lgr, m->delete_link.reason ?:
				  SMC_LLC_DEL_PROG_INIT_TERM);
		return;
	}
	mutex_lock(&lgr->llc_mutex);
	del = smc_llc_link_by_id(lgr, m->delete_link.link_num);
	if (!lgr->server) {
		m->flags |= SMC_LLC_FLAG_RESP;
		m->delete_link.reason = del ? 0 : SMC_LLC_DEL_NOLNK;
		if (smc_llc_send(link, m, SMC_LLC_WAIT_TIME) && del == link) {
			via = smc_lgr_other_active(lgr, del);
			if (via)
				smc_llc_send(via, m, SMC_LLC_WAIT_TIME);
		}
		if (del)
			smc_llc_drop_link(lgr, del);
		goto out;
	}
	if (!del)
		goto out;		/* already gone */
	smc_llc_drop_link(lgr, del);
	via = link != del && READ_ONCE(link->state) == SMC_LINK_ACTIVE ?
	      link : smc_lgr_other_active(lgr, del);
	if (via && !READ_ONCE(lgr->terminating)) {
		/* the request goes back to the client, which answers it */
		smc_llc_expect(llc, SMC_LLC_DELETE_LINK, false, via);
		if (smc_llc_send(via, m, SMC_LLC_WAIT_TIME))
			smc_llc_expect_none(llc);
		else
			smc_llc_await(llc, via, SMC_LLC_WAIT_TIME, m);
	}
	smc_llc_queue_add(lgr);
out:
	mutex_unlock(&lgr->llc_mutex);
}

/* reject an ADD_LINK request: the request echoed (44 bytes), as upstream */
static void smc_llc_reject_add_link(struct smc_lgr *lgr,
				    struct smc_link *link,
				    struct smc_llc_msg *m)
{
	m->flags |= SMC_LLC_FLAG_RESP | SMC_LLC_FLAG_ADD_LNK_REJ;
	m->add_link.has_ext = false;
	m->add_link.num_rkeys = 0;
	m->add_link.rkeys = NULL;
	/* in v2 that byte is part of the length: the reason is not sent */
	m->add_link.rej_rsn = lgr->version == SMC_V2 ? 0 :
			      SMC_LLC_REJ_RSN_NO_ALT_PATH;
	smc_llc_send(link, m, SMC_LLC_WAIT_TIME);
}

/* room for one more link */
static bool smc_llc_link_room(struct smc_lgr *lgr)
{
	int i, used = 0;

	for (i = 0; i < SMC_LINKS_MAX; i++)
		if (READ_ONCE(lgr->links[i].state) != SMC_LINK_UNUSED)
			used++;
	return used < min_t(int, lgr->max_links, SMC_LINKS_MAX);
}

/*
 * The peer's ADD_LINK request @e.  A client hands it to its add work,
 * which then owns @e; true only then, else the caller frees @e.
 */
static bool smc_llc_do_add_link(struct smc_lgr *lgr, struct smc_link *link,
				struct smc_llc_qentry *e, struct smc_llc_msg *m)
{
	struct smc_llc *llc = smc_llc_of(lgr);
	bool queued = false;

	if (lgr->server) {
		/* a client's suggestion (v1): our own flow decides */
		smc_llc_queue_add(lgr);
		return false;
	}
	if (lgr->max_links > 1 && smc_llc_link_room(lgr)) {
		spin_lock_bh(&llc->lock);
		if (!llc->add_req && !llc->stopped) {
			/* the work answers it; it takes @e */
			llc->add_req = e;
			kref_get(&lgr->ref);
			if (!queue_work(smc_lgr_wq, &llc->add_work))
				smc_lgr_put(lgr);
			queued = true;
		}
		spin_unlock_bh(&llc->lock);
	}
	if (!queued)
		smc_llc_reject_add_link(lgr, link, m);
	return queued;
}

/* Answer one request; true when @e was kept (by the ADD_LINK work). */
static bool smc_llc_handle(struct smc_lgr *lgr, struct smc_llc_qentry *e)
{
	struct smc_link *link = e->link;
	enum smc_link_state st;
	struct smc_llc_msg m;

	if (READ_ONCE(lgr->terminating))
		return false;
	st = READ_ONCE(link->state);
	if (st != SMC_LINK_ACTIVATING && st != SMC_LINK_ACTIVE)
		return false;
	if (smc_llc_decode(e->data, e->len, &m))
		return false;

	switch (m.type) {
	case SMC_LLC_TEST_LINK:
		m.flags |= SMC_LLC_FLAG_RESP;
		smc_llc_send(link, &m, SMC_LLC_WAIT_TIME);
		break;
	case SMC_LLC_CONFIRM_RKEY:
		smc_llc_do_confirm_rkey(lgr, link, &m);
		break;
	case SMC_LLC_DELETE_RKEY:
		smc_llc_do_delete_rkey(lgr, link, &m);
		break;
	case SMC_LLC_DELETE_LINK:
		smc_llc_do_delete_link(lgr, link, &m);
		break;
	case SMC_LLC_ADD_LINK:
		return smc_llc_do_add_link(lgr, link, e, &m);
	case SMC_LLC_REQ_ADD_LINK:
		if (!lgr->server)
			break;
		/*
		 * Answered at once (the response carries no GIDs), so that the
		 * client's flow ends; an ADD_LINK of ours may follow.
		 */
		m.flags |= SMC_LLC_FLAG_RESP;
		m.req_add_link.gid_cnt = 0;
		m.req_add_link.gids = NULL;
		smc_llc_send(link, &m, SMC_LLC_WAIT_TIME);
		smc_llc_queue_add(lgr);
		break;
	default:
		/* CONFIRM_RKEY_CONT: not with up to three links */
		smc_llc_drop(link, &m, "not supported");
		break;
	}
	return false;
}

static void smc_llc_work(struct work_struct *work)
{
	struct smc_llc *llc = container_of(work, struct smc_llc, work);
	struct smc_lgr *lgr = llc->lgr;
	struct smc_llc_qentry *e;

	for (;;) {
		spin_lock_bh(&llc->lock);
		e = list_first_entry_or_null(&llc->queue,
					     struct smc_llc_qentry, list);
		if (e) {
			list_del(&e->list);
			llc->qlen--;
		}
		spin_unlock_bh(&llc->lock);
		if (!e)
			break;
		if (!smc_llc_handle(lgr, e))
			kfree(e);
	}
	smc_lgr_put(lgr);		/* the work's */
}

/* ------------------------------------------------------------------ */
/* keepalive                                                           */

/* net.smc.smcr_testlink_time (jiffies); 0: no TEST_LINK probes */
static unsigned long smc_llc_testlink_time(struct smc_lgr *lgr)
{
	return READ_ONCE(smc_net_cfg(lgr->net)->smcr_testlink_time);
}

static void smc_llc_testlink_work(struct work_struct *work)
{
	struct smc_llc_lnk *l = container_of(to_delayed_work(work),
					     struct smc_llc_lnk, testlink);
	struct smc_link *link = l->link;
	struct smc_lgr *lgr = link->lgr;
	struct smc_llc *llc = smc_llc_of(lgr);
	struct smc_llc_msg m = {};
	u64 rx = READ_ONCE(link->rx_msgs);
	long left;

	if (READ_ONCE(lgr->terminating) ||
	    READ_ONCE(link->state) != SMC_LINK_ACTIVE)
		return;
	if (!smc_llc_testlink_time(lgr) || rx != l->seen_rx_msgs ||
	    time_before(jiffies,
			READ_ONCE(l->last_rx) + smc_llc_testlink_time(lgr))) {
		l->seen_rx_msgs = rx;
		goto again;
	}

	spin_lock_bh(&llc->lock);
	reinit_completion(&l->tl_resp);
	l->tl_waiting = true;
	spin_unlock_bh(&llc->lock);
	m.type = SMC_LLC_TEST_LINK;
	if (smc_llc_send(link, &m, SMC_LLC_WAIT_TIME))
		left = 0;
	else
		left = wait_for_completion_timeout(&l->tl_resp,
						   SMC_LLC_WAIT_TIME);
	spin_lock_bh(&llc->lock);
	l->tl_waiting = false;
	spin_unlock_bh(&llc->lock);
	if (READ_ONCE(lgr->terminating) ||
	    READ_ONCE(link->state) != SMC_LINK_ACTIVE)
		return;
	/*
	 * No answer, but the peer's messages kept arriving meanwhile: it is
	 * alive and only slow to answer (loss and retransmission, a busy
	 * host).  The probe asked exactly that; the link stays.
	 */
	if (!left && READ_ONCE(link->rx_msgs) != rx) {
		pr_info_ratelimited("lgr %*phN link %u: TEST_LINK unanswered, but the peer's messages arrive: link kept\n",
				    (int)sizeof(lgr->id), lgr->id,
				    link->link_id);
		left = 1;
	}
	if (!left) {
		pr_warn_ratelimited("lgr %*phN link %u: no TEST_LINK response, link down\n",
				    (int)sizeof(lgr->id), lgr->id,
				    link->link_id);
		smc_wr_link_down(link);
		smc_lgr_link_failed(link);
		return;
	}
	l->seen_rx_msgs = READ_ONCE(link->rx_msgs);
again:
	spin_lock_bh(&llc->lock);
	if (!llc->stopped)
		queue_delayed_work(smc_lgr_wq, &l->testlink,
				   smc_llc_testlink_time(lgr) ?:
				   SMC_LLC_TESTLINK_TIME);
	spin_unlock_bh(&llc->lock);
}

/* Move @link from @from to @to unless it went down meanwhile. */
static bool smc_llc_link_move(struct smc_link *link,
			      enum smc_link_state from, enum smc_link_state to)
{
	return cmpxchg(&link->state, from, to) == from;
}

/* INIT -> ACTIVATING (link.c may have done it); false if it went down */
static bool smc_llc_link_activating(struct smc_link *link)
{
	return smc_llc_link_move(link, SMC_LINK_INIT, SMC_LINK_ACTIVATING) ||
	       READ_ONCE(link->state) == SMC_LINK_ACTIVATING;
}

/*
 * The link is confirmed: mark it active and start its keepalive, unless
 * the lgr is being torn down (then false).
 */
static bool smc_llc_link_activate(struct smc_link *link)
{
	struct smc_llc *llc = smc_llc_of(link->lgr);
	struct smc_llc_lnk *l = &llc->lnk[link->idx];
	bool ok = false;

	l->seen_rx_msgs = READ_ONCE(link->rx_msgs);
	WRITE_ONCE(l->last_rx, jiffies);
	spin_lock_bh(&llc->lock);
	if (!llc->stopped && !READ_ONCE(link->lgr->terminating) &&
	    smc_llc_link_move(link, SMC_LINK_ACTIVATING, SMC_LINK_ACTIVE)) {
		queue_delayed_work(smc_lgr_wq, &l->testlink,
				   smc_llc_testlink_time(link->lgr) ?:
				   SMC_LLC_TESTLINK_TIME);
		trace_smcr_link_up(link);
		ok = true;
	}
	spin_unlock_bh(&llc->lock);
	return ok;
}

/* ------------------------------------------------------------------ */
/* local flows                                                         */

static void smc_llc_fill_confirm_link(struct smc_link *link,
				      struct smc_llc_msg *m, bool resp)
{
	struct smc_llc_confirm_link *cl = &m->confirm_link;
	struct smc_lgr *lgr = link->lgr;

	memset(m, 0, sizeof(*m));
	m->type = SMC_LLC_CONFIRM_LINK;
	m->flags = SMC_LLC_FLAG_NO_RMBE_EYEC;
	if (resp)
		m->flags |= SMC_LLC_FLAG_RESP;
	memcpy(cl->mac, link->mac, SMC_LLC_MAC_LEN);
	memcpy(cl->gid, link->gid, SMC_LLC_GID_LEN);
	cl->qpn = link->qpn;
	cl->link_num = link->link_id;
	memcpy(cl->link_uid, link->link_uid, SMC_LLC_LINK_UID_LEN);
	cl->max_links = SMC_LLC_LINKS_ADVERTISED;
	if (lgr->version == SMC_V2 && lgr->release >= SMC_CLC_RELEASE_1) {
		cl->max_links = lgr->max_links;
		cl->max_conns = lgr->max_conns;
	}
}

/* Common checks of the peer's CONFIRM_LINK; 0 or an SMC_CLC_DECL_*. */
static int smc_llc_check_confirm_link(struct smc_link *link,
				      const struct smc_llc_msg *m)
{
	const struct smc_llc_confirm_link *cl = &m->confirm_link;

	if (!(m->flags & SMC_LLC_FLAG_NO_RMBE_EYEC) ||
	    cl->qpn != link->peer.qpn || !cl->link_num) {
		pr_warn_ratelimited("lgr %*phN: bad CONFIRM_LINK (flags 0x%02x qpn %u link %u)\n",
				    (int)sizeof(link->lgr->id), link->lgr->id,
				    m->flags, cl->qpn, cl->link_num);
		return SMC_CLC_DECL_RMBE_EC;
	}
	memcpy(link->peer_link_uid, cl->link_uid, SMC_LLC_LINK_UID_LEN);
	return 0;
}

/**
 * smc_llc_first_link_client() - confirm the first link, client side
 * @link: the lgr's first link, QP in RTR
 * @timeo: how long to wait for the server's CONFIRM_LINK
 *
 * Return: 0 (link active) or an SMC_CLC_DECL_* reason.
 */
int smc_llc_first_link_client(struct smc_link *link, long timeo)
{
	struct smc_lgr *lgr = link->lgr;
	struct smc_llc *llc = smc_llc_of(lgr);
	struct smc_llc_msg m;
	int rc;

	mutex_lock(&lgr->llc_mutex);
	/* armed since the lgr was created: the request may be here already */
	if (smc_llc_await(llc, link, timeo, &m)) {
		rc = SMC_CLC_DECL_TIMEOUT_CL;
		goto out;
	}
	rc = smc_llc_check_confirm_link(link, &m);
	if (rc)
		goto out;
	/* the server numbers the link */
	link->link_id = m.confirm_link.link_num;
	smc_lgr_link_set_uid(link);
	if (!smc_llc_link_activating(link)) {
		rc = SMC_CLC_DECL_TIMEOUT_CL;
		goto out;
	}
	if (smc_link_rts(link)) {
		rc = SMC_CLC_DECL_ERR_RDYLNK;
		goto out;
	}
	smc_llc_fill_confirm_link(link, &m, true);
	if (smc_llc_send(link, &m, SMC_LLC_WAIT_TIME)) {
		rc = SMC_CLC_DECL_TIMEOUT_CL;
		goto out;
	}
	if (!smc_llc_link_activate(link))
		rc = SMC_CLC_DECL_TIMEOUT_CL;
out:
	mutex_unlock(&lgr->llc_mutex);
	return rc;
}

/**
 * smc_llc_first_link_server() - confirm the first link, server side
 * @link: the lgr's first link, QP in RTS
 * @timeo: how long to wait for the client's answer
 *
 * Return: 0 (link active) or an SMC_CLC_DECL_* reason.
 */
int smc_llc_first_link_server(struct smc_link *link, long timeo)
{
	struct smc_lgr *lgr = link->lgr;
	struct smc_llc *llc = smc_llc_of(lgr);
	struct smc_llc_msg m;
	int rc;

	mutex_lock(&lgr->llc_mutex);
	if (!smc_llc_link_activating(link)) {
		rc = SMC_CLC_DECL_TIMEOUT_CL;
		goto out;
	}
	smc_llc_expect(llc, SMC_LLC_CONFIRM_LINK, false, link);
	smc_llc_fill_confirm_link(link, &m, false);
	if (smc_llc_send(link, &m, SMC_LLC_WAIT_TIME)) {
		smc_llc_expect_none(llc);
		rc = SMC_CLC_DECL_TIMEOUT_CL;
		goto out;
	}
	if (smc_llc_await(llc, link, timeo, &m)) {
		rc = SMC_CLC_DECL_TIMEOUT_CL;
		goto out;
	}
	rc = smc_llc_check_confirm_link(link, &m);
	if (rc)
		goto out;
	if (!smc_llc_link_activate(link))
		rc = SMC_CLC_DECL_TIMEOUT_CL;
	else
		smc_llc_queue_add(lgr);	/* a second link, when agreed */
out:
	mutex_unlock(&lgr->llc_mutex);
	return rc;
}

/* See llc.h. */
int smc_llc_confirm_rkey(struct smc_lgr *lgr, struct smc_buf *rmb)
{
	struct smc_llc *llc = smc_llc_of(lgr);
	struct smc_link *send = NULL, *link;
	struct smc_llc_rtoken *tok;
	struct smc_llc_msg m = {};
	int i, n = 0, rc;

	mutex_lock(&lgr->llc_mutex);
	if (rmb->rkey_confirmed) {
		rc = 0;
		goto out;
	}
	m.type = SMC_LLC_CONFIRM_RKEY;
	for (i = 0; i < SMC_LINKS_MAX; i++) {
		link = &lgr->links[i];
		if (READ_ONCE(link->state) != SMC_LINK_ACTIVE ||
		    !rmb->map[i].mapped)
			continue;
		if (!send) {
			send = link;
			tok = &m.confirm_rkey.tok[0];
		} else {
			tok = &m.confirm_rkey.tok[++n];
		}
		tok->link_id = link->link_id;
		tok->rkey = rmb->map[i].rkey;
		tok->vaddr = rmb->map[i].dma_addr;
		if (n == SMC_LLC_CONFIRM_RKEY_MAX)
			break;
	}
	if (!send) {
		rc = -ENOLINK;
		goto out;
	}
	m.confirm_rkey.num_rkeys = n;
	m.confirm_rkey.tok[0].link_id = 0;	/* holds the count on the wire */

	smc_llc_expect(llc, SMC_LLC_CONFIRM_RKEY, false, send);
	rc = smc_llc_send(send, &m, SMC_LLC_WAIT_TIME);
	if (rc) {
		smc_llc_expect_none(llc);
		goto out;
	}
	rc = smc_llc_await(llc, send, SMC_LLC_WAIT_TIME, &m);
	if (rc)
		goto out;
	if (m.flags & SMC_LLC_FLAG_RKEY_NEG) {
		rc = -EREMOTEIO;
		goto out;
	}
	rmb->rkey_confirmed = true;
out:
	mutex_unlock(&lgr->llc_mutex);
	return rc;
}

/* ------------------------------------------------------------------ */
/* further links                                                       */

/* The peer's end of a new link from its ADD_LINK, which came on @link. */
static void smc_llc_add_link_peer(struct smc_link *link,
				  const struct smc_llc_add_link *al,
				  struct smc_link_peer *peer)
{
	memset(peer, 0, sizeof(*peer));
	memcpy(peer->gid, al->gid, SMC_IB_GID_LEN);
	/* v2 is routed: the first link's next hop serves the same peer GID */
	if (link->lgr->version == SMC_V2 &&
	    !memcmp(al->gid, link->peer.gid, SMC_IB_GID_LEN))
		memcpy(peer->mac, link->peer.mac, ETH_ALEN);
	else
		memcpy(peer->mac, al->mac, ETH_ALEN);
	peer->qpn = al->qpn;
	peer->psn = al->psn;
	peer->mtu = al->qp_mtu;
}

/* An ADD_LINK request or response for @new, to be sent on @link. */
static void smc_llc_fill_add_link(struct smc_link *new, bool resp,
				  struct smc_llc_msg *m,
				  const struct smc_llc_rkey_pair *pairs,
				  unsigned int n)
{
	struct smc_llc_add_link *al = &m->add_link;

	memset(m, 0, sizeof(*m));
	m->type = SMC_LLC_ADD_LINK;
	if (resp)
		m->flags = SMC_LLC_FLAG_RESP;
	memcpy(al->mac, new->mac, SMC_LLC_MAC_LEN);
	memcpy(al->gid, new->gid, SMC_LLC_GID_LEN);
	al->qpn = new->qpn;
	al->link_num = new->link_id;
	al->qp_mtu = new->path_mtu;
	al->psn = new->psn;
	if (new->lgr->version == SMC_V2) {
		al->has_ext = true;
		al->v2_direct = true;
		memcpy(al->target_gid, new->gid, SMC_LLC_GID_LEN);
		al->num_rkeys = n;
		al->rkeys = pairs;
	}
}

/* The peer's rkeys on @new from its v2 ADD_LINK (@m, arrived on @link). */
static void smc_llc_take_add_link_rkeys(struct smc_link *link,
					struct smc_link *new,
					const struct smc_llc_msg *m)
{
	struct smc_llc_rkey_pair p;
	unsigned int i;

	if (!m->add_link.has_ext || !m->wire)
		return;
	for (i = 0; i < m->add_link.num_rkeys; i++) {
		smc_llc_add_link_rkey_at(m, i, &p);
		smc_rtoken_set_link(link->lgr, link, new, &p);
	}
}

static int smc_llc_send_add_link_cont(struct smc_link *link,
				      struct smc_link *new,
				      const struct smc_llc_rkey_pair *pairs,
				      unsigned int n, unsigned int *sent)
{
	struct smc_llc_add_link_cont *c;
	struct smc_llc_msg m = {};
	unsigned int i;

	m.type = SMC_LLC_ADD_LINK_CONT;
	if (!link->lgr->server)
		m.flags = SMC_LLC_FLAG_RESP;
	c = &m.add_link_cont;
	c->link_num = new->link_id;
	c->num_rkeys = n - *sent;
	for (i = 0; i < SMC_LLC_ADD_LINK_CONT_MAX && *sent < n; i++)
		c->rt[i] = pairs[(*sent)++];
	return smc_llc_send(link, &m, SMC_LLC_WAIT_TIME);
}

/*
 * v1: the rkeys of both sides' RMBs on @new in ADD_LINK_CONT messages on
 * @link, the server sending first, two pairs per message, until both
 * sides have sent theirs.  A client has armed the mailbox for the
 * server's first message already; on success it is armed for the
 * server's CONFIRM_LINK on @new.
 */
static int smc_llc_rkey_exchange(struct smc_link *link, struct smc_link *new,
				 const struct smc_llc_rkey_pair *pairs,
				 unsigned int n)
{
	struct smc_lgr *lgr = link->lgr;
	struct smc_llc *llc = smc_llc_of(lgr);
	unsigned int sent = 0, left_in, i, round;
	const struct smc_llc_add_link_cont *c;
	struct smc_llc_msg r;
	int rc;

	for (round = 0; round < SMC_LLC_CONT_ROUNDS; round++) {
		if (lgr->server) {
			smc_llc_expect(llc, SMC_LLC_ADD_LINK_CONT, false, link);
			rc = smc_llc_send_add_link_cont(link, new, pairs, n,
							&sent);
			if (rc) {
				smc_llc_expect_none(llc);
				return rc;
			}
		}
		rc = smc_llc_await(llc, link, SMC_LLC_WAIT_TIME, &r);
		if (rc)
			return rc;
		c = &r.add_link_cont;
		if (c->link_num != new->link_id)
			return -EPROTO;
		for (i = 0; i < c->num_present; i++)
			smc_rtoken_set_link(lgr, link, new, &c->rt[i]);
		left_in = c->num_rkeys - c->num_present;
		if (!lgr->server) {
			/* what comes next: more rkeys, or the confirmation */
			if (left_in ||
			    n - sent > SMC_LLC_ADD_LINK_CONT_MAX)
				smc_llc_expect(llc, SMC_LLC_ADD_LINK_CONT,
					       true, link);
			else
				smc_llc_expect(llc, SMC_LLC_CONFIRM_LINK,
					       true, new);
			rc = smc_llc_send_add_link_cont(link, new, pairs, n,
							&sent);
			if (rc)
				return rc;
		}
		if (sent == n && !left_in)
			return 0;
	}
	return -EPROTO;
}

/* A link number for a new link (server), not 0 and not in use. */
static u8 smc_llc_new_link_id(struct smc_lgr *lgr)
{
	struct smc_llc *llc = smc_llc_of(lgr);
	int i;

	for (i = 0; i < 256; i++) {
		if (++llc->next_link_id == 0)
			continue;
		if (!smc_llc_link_by_id(lgr, llc->next_link_id))
			return llc->next_link_id;
	}
	return 0;
}

/* The link's work is over: no keepalive, nothing queued for it. */
static void smc_llc_link_quiet(struct smc_lgr *lgr, struct smc_link *link)
{
	cancel_delayed_work_sync(&smc_llc_of(lgr)->lnk[link->idx].testlink);
}

/*
 * Server: add a link (llc_mutex held).  ADD_LINK on an active link with
 * the new QP (and for v2 the rkeys of our RMBs on it), the client's
 * answer, the v1 rkey exchange, CONFIRM_LINK on the new link.
 */
static void smc_llc_srv_add_link(struct smc_lgr *lgr)
{
	struct smc_llc *llc = smc_llc_of(lgr);
	struct smc_llc_rkey_pair *pairs;
	struct smc_link *link, *new;
	struct smc_link_peer peer;
	struct smc_ib_path path;
	struct smc_llc_msg m;
	bool told = false;
	unsigned int n;
	int rc;

	lockdep_assert_held(&lgr->llc_mutex);
	if (READ_ONCE(lgr->terminating) || lgr->max_links < 2 ||
	    !smc_llc_link_room(lgr))
		return;
	link = smc_lgr_other_active(lgr, NULL);
	if (!link)
		return;
	pairs = kcalloc(SMC_LLC_ADD_LINK_V2_MAX_RKEYS, sizeof(*pairs),
			GFP_KERNEL);
	if (!pairs)
		return;
	smc_lgr_link_path(lgr, link, &path);
	new = smc_lgr_link_add(lgr, &path);
	smc_ib_put(path.dev);
	if (!new)
		goto out;
	new->link_id = smc_llc_new_link_id(lgr);
	if (!new->link_id)
		goto fail;
	smc_lgr_link_set_uid(new);
	n = smc_lgr_rmb_rkeys(lgr, link, new, pairs,
			      SMC_LLC_ADD_LINK_V2_MAX_RKEYS);

	smc_llc_fill_add_link(new, false, &m, pairs, n);
	smc_llc_expect(llc, SMC_LLC_ADD_LINK, false, link);
	if (smc_llc_send_long(link, &m, SMC_LLC_WAIT_TIME)) {
		smc_llc_expect_none(llc);
		goto fail;
	}
	if (smc_llc_await(llc, link, SMC_LLC_WAIT_TIME, &m))
		goto fail;
	if (m.flags & SMC_LLC_FLAG_ADD_LNK_REJ)
		goto fail;		/* the client does not want one */
	told = true;
	if (!m.add_link.qpn || !m.add_link.qp_mtu)
		goto fail;
	smc_llc_add_link_peer(link, &m.add_link, &peer);
	if (smc_link_rtr(new, &peer) || smc_link_rts(new))
		goto fail;
	if (lgr->version == SMC_V2)
		smc_llc_take_add_link_rkeys(link, new, &m);
	else if (smc_llc_rkey_exchange(link, new, pairs, n))
		goto fail;

	smc_llc_expect(llc, SMC_LLC_CONFIRM_LINK, false, new);
	smc_llc_fill_confirm_link(new, &m, false);
	if (smc_llc_send(new, &m, SMC_LLC_WAIT_TIME)) {
		smc_llc_expect_none(llc);
		goto fail;
	}
	rc = smc_llc_await(llc, new, SMC_LLC_WAIT_TIME, &m);
	if (rc || smc_llc_check_confirm_link(new, &m) ||
	    !smc_llc_link_activate(new))
		goto fail;
	goto out;

fail:
	if (told && READ_ONCE(link->state) == SMC_LINK_ACTIVE)
		smc_llc_send_delete_link(link, new->link_id, false,
					 SMC_LLC_DEL_LOST_PATH);
	smc_llc_link_quiet(lgr, new);
	smc_lgr_link_free(new);
out:
	kfree(pairs);
}

/*
 * A further link that would join the same two ports as @link (no other
 * device here, and the server offers the GID, for v1 also the MAC, it
 * already uses) adds no redundancy.  The client refuses it, as Linux 6.12
 * does, so two single-device hosts keep one link whichever module serves.
 */
static bool smc_llc_no_new_path(const struct smc_link *link,
				const struct smc_ib_path *path,
				const struct smc_llc_add_link *offer)
{
	if (path->dev != link->dev || path->port != link->port)
		return false;
	if (memcmp(offer->gid, link->peer.gid, SMC_IB_GID_LEN))
		return false;
	return link->lgr->version == SMC_V2 ||
	       ether_addr_equal(offer->mac, link->peer.mac);
}

/*
 * Client: answer the server's ADD_LINK @e (llc_mutex held): a new QP on
 * our side, our ADD_LINK response (with the rkeys of our RMBs for v2),
 * the v1 rkey exchange, then the server's CONFIRM_LINK on the new link.
 */
static void smc_llc_cli_add_link(struct smc_lgr *lgr,
				 struct smc_llc_qentry *e)
{
	struct smc_llc *llc = smc_llc_of(lgr);
	struct smc_link *link = e->link, *new = NULL;
	struct smc_llc_rkey_pair *pairs = NULL;
	struct smc_link_peer peer;
	struct smc_ib_path path;
	struct smc_llc_msg req, m;
	bool told = false;
	unsigned int n;

	lockdep_assert_held(&lgr->llc_mutex);
	if (smc_llc_decode(e->data, e->len, &req))
		return;
	if (READ_ONCE(lgr->terminating) ||
	    READ_ONCE(link->state) != SMC_LINK_ACTIVE)
		return;
	if (lgr->max_links < 2 || !smc_llc_link_room(lgr) ||
	    !req.add_link.qpn || !req.add_link.qp_mtu ||
	    !req.add_link.link_num ||
	    smc_llc_link_by_id(lgr, req.add_link.link_num))
		goto reject;
	pairs = kcalloc(SMC_LLC_ADD_LINK_V2_MAX_RKEYS, sizeof(*pairs),
			GFP_KERNEL);
	if (!pairs)
		goto reject;
	smc_lgr_link_path(lgr, link, &path);
	if (smc_llc_no_new_path(link, &path, &req.add_link)) {
		smc_ib_put(path.dev);
		goto reject;
	}
	new = smc_lgr_link_add(lgr, &path);
	smc_ib_put(path.dev);
	if (!new)
		goto reject;
	new->link_id = req.add_link.link_num;	/* the server numbers links */
	smc_lgr_link_set_uid(new);
	smc_llc_add_link_peer(link, &req.add_link, &peer);
	if (smc_link_rtr(new, &peer))
		goto reject;
	n = smc_lgr_rmb_rkeys(lgr, link, new, pairs,
			      SMC_LLC_ADD_LINK_V2_MAX_RKEYS);
	if (lgr->version == SMC_V2) {
		smc_llc_take_add_link_rkeys(link, new, &req);
		smc_llc_expect(llc, SMC_LLC_CONFIRM_LINK, true, new);
	} else {
		smc_llc_expect(llc, SMC_LLC_ADD_LINK_CONT, true, link);
	}
	smc_llc_fill_add_link(new, true, &m, pairs, n);
	if (smc_llc_send_long(link, &m, SMC_LLC_WAIT_TIME)) {
		smc_llc_expect_none(llc);
		goto fail;
	}
	told = true;
	if (lgr->version != SMC_V2 &&
	    smc_llc_rkey_exchange(link, new, pairs, n))
		goto fail;
	if (smc_llc_await(llc, new, 2 * SMC_LLC_WAIT_TIME, &m) ||
	    smc_llc_check_confirm_link(new, &m) || smc_link_rts(new))
		goto fail;
	smc_llc_fill_confirm_link(new, &m, true);
	if (smc_llc_send(new, &m, SMC_LLC_WAIT_TIME) ||
	    !smc_llc_link_activate(new))
		goto fail;
	kfree(pairs);
	return;

reject:
	smc_llc_reject_add_link(lgr, link, &req);
fail:
	if (told && READ_ONCE(link->state) == SMC_LINK_ACTIVE)
		smc_llc_send_delete_link(link, new->link_id, false,
					 SMC_LLC_DEL_LOST_PATH);
	if (new) {
		smc_llc_link_quiet(lgr, new);
		smc_lgr_link_free(new);
	}
	kfree(pairs);
}

static void smc_llc_add_work(struct work_struct *work)
{
	struct smc_llc *llc = container_of(work, struct smc_llc, add_work);
	struct smc_lgr *lgr = llc->lgr;
	struct smc_llc_qentry *e;

	mutex_lock(&lgr->llc_mutex);
	if (lgr->server) {
		smc_llc_srv_add_link(lgr);
	} else {
		spin_lock_bh(&llc->lock);
		e = llc->add_req;
		llc->add_req = NULL;
		spin_unlock_bh(&llc->lock);
		if (e) {
			smc_llc_cli_add_link(lgr, e);
			kfree(e);
		}
	}
	mutex_unlock(&lgr->llc_mutex);
	smc_lgr_put(lgr);		/* the work's */
}

/* Server: start an ADD_LINK flow if the lgr has room for a link. */
static bool smc_llc_queue_add(struct smc_lgr *lgr)
{
	struct smc_llc *llc = smc_llc_of(lgr);
	bool queued = false;

	if (!lgr->server || lgr->max_links < 2)
		return false;
	spin_lock_bh(&llc->lock);
	if (!llc->stopped) {
		kref_get(&lgr->ref);
		if (!queue_work(smc_lgr_wq, &llc->add_work))
			smc_lgr_put(lgr);
		queued = true;
	}
	spin_unlock_bh(&llc->lock);
	return queued;
}

/*
 * Take @del out of service (llc_mutex held): its connections move to
 * another active link, then it is destroyed.  Without another link the
 * lgr ends.
 */
static void smc_llc_drop_link(struct smc_lgr *lgr, struct smc_link *del)
{
	lockdep_assert_held(&lgr->llc_mutex);
	if (READ_ONCE(del->state) == SMC_LINK_UNUSED)
		return;
	WRITE_ONCE(del->state, SMC_LINK_DOWN);
	smc_wr_link_down(del);
	smc_llc_wake(lgr);
	if (READ_ONCE(lgr->terminating) || smc_lgr_switch_conns(lgr, del)) {
		smc_lgr_terminate(lgr, 0);
		return;
	}
	smc_llc_link_quiet(lgr, del);
	smc_lgr_link_free(del);
}

/* Links that failed on our side while another one was active. */
static void smc_llc_down_work(struct work_struct *work)
{
	struct smc_llc *llc = container_of(work, struct smc_llc, down_work);
	struct smc_lgr *lgr = llc->lgr;
	u8 ids[SMC_LINKS_MAX];
	struct smc_link *link, *via;
	unsigned long mask;
	u8 link_id;
	int i;

	smc_faultinj_down_delay();
	spin_lock_bh(&llc->lock);
	mask = llc->down_mask;
	llc->down_mask = 0;
	memcpy(ids, llc->down_id, sizeof(ids));
	spin_unlock_bh(&llc->lock);

	mutex_lock(&lgr->llc_mutex);
	for_each_set_bit(i, &mask, SMC_LINKS_MAX) {
		link = &lgr->links[i];
		/*
		 * The slot may have been freed and taken by a new link since
		 * (slots change under llc_mutex only): act only on the link
		 * that failed, which stays DOWN until it is freed.
		 */
		if (READ_ONCE(lgr->terminating) ||
		    READ_ONCE(link->state) != SMC_LINK_DOWN ||
		    link->link_id != ids[i])
			continue;
		link_id = link->link_id;
		pr_info_ratelimited("lgr %*phN: link %u lost, its connections move\n",
				    (int)sizeof(lgr->id), lgr->id, link_id);
		smc_llc_drop_link(lgr, link);
		via = smc_lgr_other_active(lgr, link);
		if (!via || READ_ONCE(lgr->terminating))
			continue;
		/* tell the peer; a server waits for the client's answer */
		if (lgr->server) {
			struct smc_llc_msg m = {};

			m.type = SMC_LLC_DELETE_LINK;
			m.flags = SMC_LLC_FLAG_DEL_LINK_ORDERLY;
			m.delete_link.link_num = link_id;
			m.delete_link.reason = SMC_LLC_DEL_LOST_PATH;
			smc_llc_expect(llc, SMC_LLC_DELETE_LINK, false, via);
			if (smc_llc_send(via, &m, SMC_LLC_WAIT_TIME))
				smc_llc_expect_none(llc);
			else
				smc_llc_await(llc, via, SMC_LLC_WAIT_TIME, &m);
			smc_llc_queue_add(lgr);
		} else {
			smc_llc_send_delete_link(via, link_id, true,
						 SMC_LLC_DEL_LOST_PATH);
		}
	}
	mutex_unlock(&lgr->llc_mutex);
	smc_lgr_put(lgr);		/* the work's */
}

/* See llc.h. */
bool smc_llc_link_down(struct smc_lgr *lgr, struct smc_link *link)
{
	struct smc_llc *llc = smc_llc_of(lgr);
	unsigned long flags;
	bool queued = false;

	spin_lock_irqsave(&llc->lock, flags);
	if (!llc->stopped) {
		__set_bit(link->idx, &llc->down_mask);
		llc->down_id[link->idx] = link->link_id;
		kref_get(&lgr->ref);
		if (!queue_work(smc_lgr_wq, &llc->down_work))
			smc_lgr_put(lgr);
		queued = true;
	}
	spin_unlock_irqrestore(&llc->lock, flags);
	return queued;
}

/* ------------------------------------------------------------------ */
/* life cycle                                                          */

/* See llc.h. */
int smc_llc_lgr_init(struct smc_lgr *lgr)
{
	struct smc_llc *llc;
	int i;

	llc = kzalloc(sizeof(*llc), GFP_KERNEL);
	if (!llc)
		return -ENOMEM;
	llc->raw = kzalloc(SMC_LLC_V2_MAX_LEN, GFP_KERNEL);
	if (!llc->raw) {
		kfree(llc);
		return -ENOMEM;
	}
	llc->lgr = lgr;
	llc->next_link_id = 1;		/* the first link's */
	INIT_WORK(&llc->add_work, smc_llc_add_work);
	INIT_WORK(&llc->down_work, smc_llc_down_work);
	spin_lock_init(&llc->lock);
	INIT_LIST_HEAD(&llc->queue);
	INIT_WORK(&llc->work, smc_llc_work);
	init_waitqueue_head(&llc->wait);
	for (i = 0; i < SMC_LINKS_MAX; i++) {
		llc->lnk[i].link = &lgr->links[i];
		INIT_DELAYED_WORK(&llc->lnk[i].testlink,
				  smc_llc_testlink_work);
		init_completion(&llc->lnk[i].tl_resp);
	}
	/* a client's first link is confirmed by the server's request */
	if (!lgr->server) {
		llc->exp_type = SMC_LLC_CONFIRM_LINK;
		llc->exp_req = true;
		llc->exp_link = &lgr->links[0];
	}
	lgr->llc = llc;
	return 0;
}

/* See llc.h. */
void smc_llc_lgr_stop(struct smc_lgr *lgr)
{
	struct smc_llc *llc = smc_llc_of(lgr);
	struct smc_llc_qentry *e, *tmp;
	LIST_HEAD(drop);
	int i;

	spin_lock_bh(&llc->lock);
	llc->stopped = true;
	list_splice_init(&llc->queue, &drop);
	llc->qlen = 0;
	spin_unlock_bh(&llc->lock);
	list_for_each_entry_safe(e, tmp, &drop, list)
		kfree(e);
	if (cancel_work_sync(&llc->work))
		smc_lgr_put(lgr);	/* the cancelled work's */
	if (cancel_work_sync(&llc->add_work))
		smc_lgr_put(lgr);
	if (cancel_work_sync(&llc->down_work))
		smc_lgr_put(lgr);
	spin_lock_bh(&llc->lock);
	e = llc->add_req;
	llc->add_req = NULL;
	spin_unlock_bh(&llc->lock);
	kfree(e);
	for (i = 0; i < SMC_LINKS_MAX; i++)
		cancel_delayed_work_sync(&llc->lnk[i].testlink);
	smc_llc_wake(lgr);
}

/* See llc.h. */
void smc_llc_lgr_free(struct smc_lgr *lgr)
{
	struct smc_llc *llc = smc_llc_of(lgr);

	if (llc)
		kfree(llc->raw);
	kfree(lgr->llc);
	lgr->llc = NULL;
}
