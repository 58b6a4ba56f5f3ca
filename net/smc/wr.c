// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: the verbs resources of one link.
 *
 * Each link owns a PD, one CQ polled in softirq context by the RDMA core
 * (IB_POLL_SOFTIRQ; every work request carries a struct ib_cqe, so the
 * completion finds its owner by container_of) and an RC QP.
 *
 * Sending.  SMC_WR_SLOTS send slots, each good for one signaled SEND of
 * at most SMC_WR_TX_SIZE bytes preceded by up to SMC_WR_MAX_WRITES
 * unsignaled RDMA WRITEs, plus one extra slot for a v2 LLC message longer
 * than that, which uses an 8 KiB buffer of its own.  A slot is taken from
 * a bitmap and given back when its SEND completes.  Short messages go
 * inline when the QP allows it, otherwise through a DMA-mapped copy.
 * SENDs are solicited: the peer arms its receive CQ for solicited events
 * only.  On the WIMM data path a slot carries RDMA WRITE WITH IMMEDIATEs
 * instead (no SEND, the last write signaled and solicited); each takes
 * one of the peer's receive WRs, the buffer untouched.
 *
 * Receiving.  4 * SMC_WR_SLOTS receive WRs (a WIMM slot may take up to
 * SMC_WR_MAX_WRITES of the peer's, a CDC one), each with its own 44-byte
 * buffer.  On a v2 link group every receive WR has a second SGE covering
 * bytes 44 .. 8191 of one 8 KiB spill buffer shared by all of them, so a
 * long v2 LLC message costs 8 KiB per link rather than per receive.  When
 * one arrives, its first 44 bytes are copied in front of the spilled rest
 * and the whole is handed on.  Long LLC messages are rare and each is
 * part of a request/response flow, so two of them do not overlap in the
 * spill buffer in practice; the peer's Linux does the same.
 *
 * Memory registration.  RMBs get a fast-registration MR; the REG_MR work
 * request can only be posted once the QP is in RTS, so an RMB mapped
 * before that (the first connection's) gets its MR and rkey at once and
 * is registered by smc_wr_qp_rts().  A REG_MR goes only on an idle send
 * queue: the gate (SMC_WR_REG_GATE) holds new senders back until every
 * slot is back, then until the REG_MR has completed.  Soft-RoCE needs
 * it: its go-back-N retransmission restarts at the oldest unacknowledged
 * work request and executes a REG_MR it finds on the way a second time,
 * which fails ("not free") and puts the QP, and so the link, in error,
 * with nothing but flushes to show for it.  Under 5% loss that failed 3
 * of 8 rounds of four connections opened at once (a first contact each).
 * Registrations are rare (a new RMB), and an idle queue costs them one
 * round trip at most.
 *
 * Teardown.  Every signaled WR and every receive is counted in @posted.
 * smc_wr_link_quiesce() marks the link down, moves the QP to the error
 * state (which also flushes a registration someone waits for), waits
 * (bounded) until the senders inside have left and the flushed
 * completions brought @posted to zero; only then may the buffers be
 * unmapped.  smc_wr_link_destroy() then frees everything.
 *
 * Senders and link destruction.  @busy is one for the link itself plus
 * one for every sender (and registration) inside.  A sender takes link->wr
 * and its count in one RCU read-side section, and destruction clears
 * link->wr and lets a grace period pass before it drops the link's count,
 * so nobody can take a count on a freed smc_wr.  Whoever drops the last
 * count frees: normally destruction itself; when a sender is still inside
 * after the bounded wait, that sender, through a work item (a sender may
 * run in softirq context).  Freeing the CQ waits for a running poll, so
 * nothing touches struct smc_wr afterwards.
 */
#include <linux/bitops.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>
#include "cdc_wire.h"
#include "ib.h"
#include "iw.h"
#include "llc_wire.h"
#include "llc.h"
#include "testhooks.h"
#include "wr.h"

#define SMC_WR_SLOTS		16	/* send slots, as upstream */
#define SMC_WR_BIG_SLOT		SMC_WR_SLOTS	/* bit of the v2 slot */
#define SMC_WR_RX_CNT		(4 * SMC_WR_SLOTS)
#define SMC_WR_BUF_STRIDE	64	/* per-slot buffer, one cache line */
#define SMC_WR_V2_LEN		SMC_LLC_V2_MAX_LEN
/* every slot's chain, the v2 slot's SEND and one REG_MR */
#define SMC_WR_SQ_SIZE		(SMC_WR_SLOTS * (1 + SMC_WR_MAX_WRITES) + 2)
#define SMC_WR_CQ_SIZE		(SMC_WR_SQ_SIZE + SMC_WR_RX_CNT)
#define SMC_WR_REG_TIMEO	(5 * HZ)
#define SMC_WR_DRAIN_TIMEO	(5 * HZ)
/* an iWARP link's connection through rdma_cm (MPA over TCP), each end */
#define SMC_WR_IW_TIMEO		(10 * HZ)

/* QP attributes, the values the peer's Linux uses */
#define SMC_WR_QP_TIMEOUT	15	/* local ACK timeout 4.096us << 15 */
#define SMC_WR_QP_RETRY_CNT	7
#define SMC_WR_QP_RNR_RETRY	7	/* infinite */
#define SMC_WR_QP_MIN_RNR_TIMER	5
#define SMC_WR_QP_RD_ATOMIC	1

enum {
	SMC_WR_DOWN,		/* sends fail, completions quiet */
	SMC_WR_QUIESCED,	/* QP in error and drained (bounded) */
	SMC_WR_DETACHED,	/* the link has let go: never touch wr->link */
	SMC_WR_REG_GATE,	/* a REG_MR waits for an idle send queue */
};

struct smc_wr;

struct smc_wr_tx {
	struct ib_cqe cqe;
	struct smc_wr *wr;
	u32 token;
	u64 cookie;
	u32 bytes;		/* RDMA-written payload */
	u8 wimm;		/* WRITE WITH IMMEDIATEs, no SEND */
	struct ib_rdma_wr writes[SMC_WR_MAX_WRITES];
	struct ib_sge write_sge[SMC_WR_MAX_WRITES];
	struct ib_send_wr send;
	struct ib_sge send_sge;
};

struct smc_wr_rx {
	struct ib_cqe cqe;
	struct smc_wr *wr;
	u8 *buf;
	u64 dma;
	struct ib_recv_wr rwr;
	struct ib_sge sge[2];
};

/* an MR that needs attention beyond the struct smc_buf it belongs to */
struct smc_wr_mr {
	struct list_head list;
	struct ib_mr *mr;
	bool stale;		/* REG_MR may still be queued: free at destroy */
};

struct smc_wr {
	struct smc_link *link;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	unsigned long flags;
	bool inline_ok;
	bool v2;
	bool iwarp;		/* connected through rdma_cm, not by hand */
	struct smc_iw *iw;	/* that connection (iw.c) */

	atomic_t posted;	/* signaled WRs and receives not completed */
	atomic_t busy;		/* 1 (the link's) + senders inside */
	wait_queue_head_t wait;	/* slots, drain, busy */
	u8 link_id;		/* for messages once detached */
	struct smc_ib_dev *dev;	/* held while a sender frees (detached) */
	struct work_struct free_work;

	DECLARE_BITMAP(tx_used, SMC_WR_SLOTS + 1);
	u8 *tx_bufs;		/* SMC_WR_SLOTS * SMC_WR_BUF_STRIDE */
	u64 tx_dma;
	u8 *tx_v2;		/* SMC_WR_V2_LEN, v2 only */
	u64 tx_v2_dma;
	struct ib_cqe write_cqe;	/* only errors complete WRITEs */

	u8 *rx_bufs;		/* SMC_WR_RX_CNT * SMC_WR_BUF_STRIDE */
	u64 rx_dma;
	u8 *rx_v2;		/* SMC_WR_V2_LEN spill, v2 only */
	u64 rx_v2_dma;
	u64 rx_dropped;

	struct mutex reg_mutex;	/* one REG_MR at a time, mrs, rts, key */
	struct ib_cqe reg_cqe;
	struct completion reg_done;
	int reg_status;
	bool rts;
	u8 key;
	struct list_head mrs;	/* struct smc_wr_mr */

	struct smc_wr_tx tx[SMC_WR_SLOTS + 1];	/* last: the v2 slot */
	struct smc_wr_rx rx[SMC_WR_RX_CNT];
};

static bool smc_wr_is_down(const struct smc_wr *wr)
{
	return test_bit(SMC_WR_DOWN, &wr->flags);
}

/* the link number for messages; wr->link may be gone once detached */
static u8 smc_wr_id(const struct smc_wr *wr)
{
	if (test_bit(SMC_WR_DETACHED, &wr->flags))
		return wr->link_id;
	return READ_ONCE(wr->link->link_id);
}

/* The first failure of a link: tell the link group (any context). */
static void smc_wr_fail(struct smc_wr *wr)
{
	if (test_and_set_bit(SMC_WR_DOWN, &wr->flags))
		return;
	wake_up_all(&wr->wait);
	smc_lgr_link_failed(wr->link);
}

void smc_wr_link_down(struct smc_link *link)
{
	struct smc_wr *wr;

	rcu_read_lock();	/* smc_wr_link_destroy() waits for us */
	wr = READ_ONCE(link->wr);
	if (wr) {
		set_bit(SMC_WR_DOWN, &wr->flags);
		wake_up_all(&wr->wait);
	}
	rcu_read_unlock();
}

/* A completion in error: a flush on a link going down is expected. */
static void smc_wr_wc_error(struct smc_wr *wr, const struct ib_wc *wc,
			    const char *what)
{
	if (wc->status == IB_WC_WR_FLUSH_ERR && smc_wr_is_down(wr))
		return;
	ibdev_warn_ratelimited(wr->ibdev,
			       "smc: link %u: %s completion failed: %s (vendor 0x%x)\n",
			       smc_wr_id(wr), what,
			       ib_wc_status_msg(wc->status), wc->vendor_err);
	smc_wr_fail(wr);
}

static void smc_wr_qp_error(struct smc_wr *wr)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	ib_modify_qp(wr->qp, &attr, IB_QP_STATE);
}

/* ---- sending ---- */

static bool smc_wr_gated(const struct smc_wr *wr)
{
	return test_bit(SMC_WR_REG_GATE, &wr->flags);
}

static void smc_wr_slot_put(struct smc_wr *wr, unsigned int idx)
{
	clear_bit_unlock(idx, wr->tx_used);
	wake_up(&wr->wait);
}

static int smc_wr_slot_try(struct smc_wr *wr, bool big)
{
	unsigned int i;

	if (big) {
		if (test_and_set_bit_lock(SMC_WR_BIG_SLOT, wr->tx_used))
			return -EAGAIN;
		i = SMC_WR_BIG_SLOT;
	} else {
		for (;;) {
			i = find_first_zero_bit(wr->tx_used, SMC_WR_SLOTS);
			if (i >= SMC_WR_SLOTS)
				return -EAGAIN;
			if (!test_and_set_bit_lock(i, wr->tx_used))
				break;
		}
	}
	/*
	 * Slot taken, then the gate read; smc_wr_reg_locked() sets the gate,
	 * then reads the slots: one of the two sees the other.
	 */
	smp_mb__after_atomic();
	if (unlikely(smc_wr_gated(wr))) {
		smc_wr_slot_put(wr, i);
		return -EAGAIN;
	}
	return i;
}

/*
 * No send slot taken: every posted send has completed, and with it (RC)
 * everything before it on the queue was acknowledged.
 */
static bool smc_wr_tx_idle(const struct smc_wr *wr)
{
	return find_first_bit(wr->tx_used, SMC_WR_SLOTS + 1) > SMC_WR_SLOTS;
}

/* wait condition: a slot (>= 0) or -ENOLINK in *@res */
static bool smc_wr_slot_ready(struct smc_wr *wr, bool big, int *res)
{
	if (smc_wr_is_down(wr)) {
		*res = -ENOLINK;
		return true;
	}
	*res = smc_wr_slot_try(wr, big);
	return *res >= 0;
}

static int smc_wr_slot_get(struct smc_wr *wr, bool big, long timeo)
{
	int res;

	if (smc_wr_slot_ready(wr, big, &res))
		return res;
	if (!timeo)
		return -EAGAIN;
	if (!wait_event_timeout(wr->wait, smc_wr_slot_ready(wr, big, &res),
				timeo))
		return -ETIMEDOUT;
	return res;
}

/*
 * Keeps smc_wr_link_quiesce() waiting, and @wr allocated, until the
 * matching busy_put.  The caller either holds a count already or got @wr
 * from link->wr in the same RCU read-side section (smc_wr_get()).
 */
static void smc_wr_busy_get(struct smc_wr *wr)
{
	atomic_inc(&wr->busy);
	smp_mb__after_atomic();	/* pairs with smc_wr_link_quiesce() */
}

/* link->wr with a busy count on it, or NULL; any context */
static struct smc_wr *smc_wr_get(struct smc_link *link)
{
	struct smc_wr *wr;

	rcu_read_lock();
	wr = READ_ONCE(link->wr);
	if (wr)
		smc_wr_busy_get(wr);
	rcu_read_unlock();
	return wr;
}

static void smc_wr_busy_put(struct smc_wr *wr)
{
	int left;

	/* the grace period before any free covers the wake-up below */
	rcu_read_lock();
	left = atomic_dec_return(&wr->busy);
	if (!left)		/* the link let go: the last one out frees */
		queue_work(smc_lgr_wq, &wr->free_work);
	else if (left == 1 && smc_wr_is_down(wr))
		wake_up_all(&wr->wait);
	rcu_read_unlock();
}

/* smc_wr_get(), but only while the link is up: NULL (nothing held) if not */
static struct smc_wr *smc_wr_get_up(struct smc_link *link)
{
	struct smc_wr *wr = smc_wr_get(link);

	if (!wr || !smc_wr_is_down(wr))
		return wr;
	smc_wr_busy_put(wr);
	return NULL;
}

struct smc_wr *smc_wr_hold(struct smc_link *link)
{
	return smc_wr_get_up(link);
}

void smc_wr_slot_wait(struct smc_wr *wr, long timeo)
{
	/*
	 * Our count keeps @wr alive, whatever happens to its link meanwhile:
	 * smc_wr_link_destroy() leaves it to the last sender when it gives
	 * up waiting.
	 */
	wait_event_timeout(wr->wait, smc_wr_is_down(wr) ||
			   (!smc_wr_gated(wr) &&
			    find_first_zero_bit(wr->tx_used, SMC_WR_SLOTS) <
			    SMC_WR_SLOTS), timeo);
	smc_wr_busy_put(wr);
}

static void smc_wr_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct smc_wr_tx *tx = container_of(wc->wr_cqe, struct smc_wr_tx, cqe);
	struct smc_wr *wr = tx->wr;
	struct smc_link *link;
	struct smc_lgr *lgr;
	u32 token = tx->token;
	u64 cookie = tx->cookie;
	int status = 0;

	if (test_bit(SMC_WR_DETACHED, &wr->flags)) {
		/* a straggler's flush after the link let go */
		smc_wr_slot_put(wr, tx - wr->tx);
		goto out;
	}
	link = wr->link;
	lgr = link->lgr;
	if (wc->status == IB_WC_SUCCESS) {
		if (tx->wimm)
			link->tx_wimm += tx->wimm;
		else
			link->tx_msgs++;
		link->tx_bytes += tx->bytes;
	} else {
		status = -EIO;
		smc_wr_wc_error(wr, wc, "send");
	}
	smc_wr_slot_put(wr, tx - wr->tx);

	if (token) {
		struct smc_lgr_conn *c;

		read_lock(&lgr->conns_lock);
		c = smc_lgr_conn_lookup(lgr, token);
		if (c)
			smc_conn_tx_done(c, cookie, status);
		read_unlock(&lgr->conns_lock);
	}
out:
	atomic_dec(&wr->posted);
	wake_up(&wr->wait);
}

/* Unsignaled WRITEs complete only in error (flushed or failed). */
static void smc_wr_write_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct smc_wr *wr = container_of(wc->wr_cqe, struct smc_wr, write_cqe);

	if (wc->status != IB_WC_SUCCESS)
		smc_wr_wc_error(wr, wc, "RDMA write");
}

/*
 * Post @writes and then the SEND of @msg as one chain in one slot; with
 * @imm instead, every write is a WRITE WITH IMMEDIATE of *@imm and there
 * is no SEND (@msg NULL).
 */
static int smc_wr_post(struct smc_link *link, const struct smc_wr_write *writes,
		       unsigned int nwrites, const void *msg, u32 len,
		       u32 token, u64 cookie, long timeo, const u32 *imm)
{
	bool big = len > SMC_WR_TX_SIZE;
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr *first;
	struct smc_wr_tx *tx;
	struct smc_wr *wr;
	unsigned int i, n;
	int idx, rc;

	if (imm ? msg || len || !nwrites : !msg || !len)
		return -EINVAL;
	if (nwrites > SMC_WR_MAX_WRITES)
		return -EINVAL;
	wr = smc_wr_get(link);	/* @wr stays ours until the busy_put */
	if (!wr)
		return -ENOLINK;
	if (timeo)		/* a sender that may sleep */
		smc_faultinj_wr_delay();
	if (big && (!wr->v2 || nwrites || len > SMC_WR_V2_LEN)) {
		rc = -EINVAL;
		goto out;
	}
	idx = smc_wr_slot_get(wr, big, timeo);
	if (idx < 0) {
		rc = idx;
		goto out;
	}
	tx = &wr->tx[idx];
	tx->token = token;
	tx->cookie = cookie;
	tx->bytes = 0;
	tx->wimm = 0;

	first = &tx->send;
	for (i = 0, n = 0; i < nwrites; i++) {
		struct ib_rdma_wr *w = &tx->writes[n];

		if (!writes[i].len)
			continue;
		ib_dma_sync_single_for_device(wr->ibdev, writes[i].local_addr,
					      writes[i].len, DMA_TO_DEVICE);
		tx->write_sge[n].addr = writes[i].local_addr;
		tx->write_sge[n].length = writes[i].len;
		tx->write_sge[n].lkey = wr->pd->local_dma_lkey;
		memset(w, 0, sizeof(*w));
		w->wr.wr_cqe = &wr->write_cqe;
		w->wr.opcode = IB_WR_RDMA_WRITE;
		if (imm) {
			w->wr.opcode = IB_WR_RDMA_WRITE_WITH_IMM;
			w->wr.ex.imm_data = cpu_to_be32(*imm);
			w->wr.send_flags = IB_SEND_SOLICITED;
		}
		/*
		 * iWARP: Soft-iWARP hands an unsignaled write's pages to TCP
		 * without copying them (zero-copy) and still completes the
		 * SEND after it, so the send buffer would be reused under
		 * TCP's feet; a signaled write is copied.  The completion
		 * itself is of no use (smc_wr_write_done()).
		 */
		if (wr->iwarp)
			w->wr.send_flags |= IB_SEND_SIGNALED;
		w->wr.sg_list = &tx->write_sge[n];
		w->wr.num_sge = 1;
		w->remote_addr = writes[i].remote_addr;
		w->rkey = writes[i].rkey;
		if (n)
			tx->writes[n - 1].wr.next = &w->wr;
		else
			first = &w->wr;
		tx->bytes += writes[i].len;
		n++;
	}
	if (imm) {
		if (!n) {		/* zero-length writes only */
			smc_wr_slot_put(wr, idx);
			rc = -EINVAL;
			goto out;
		}
		tx->wimm = n;
		/* the last write completes the slot */
		tx->writes[n - 1].wr.wr_cqe = &tx->cqe;
		tx->writes[n - 1].wr.send_flags |= IB_SEND_SIGNALED;
		goto post;
	}
	if (n)
		tx->writes[n - 1].wr.next = &tx->send;

	memset(&tx->send, 0, sizeof(tx->send));
	tx->send.wr_cqe = &tx->cqe;
	tx->send.opcode = IB_WR_SEND;
	tx->send.send_flags = IB_SEND_SIGNALED | IB_SEND_SOLICITED;
	tx->send.sg_list = &tx->send_sge;
	tx->send.num_sge = 1;
	tx->send_sge.length = len;
	if (big) {
		memcpy(wr->tx_v2, msg, len);
		ib_dma_sync_single_for_device(wr->ibdev, wr->tx_v2_dma, len,
					      DMA_TO_DEVICE);
		tx->send_sge.addr = wr->tx_v2_dma;
		tx->send_sge.lkey = wr->pd->local_dma_lkey;
	} else if (wr->inline_ok) {
		/* copied by ib_post_send() */
		tx->send.send_flags |= IB_SEND_INLINE;
		tx->send_sge.addr = (uintptr_t)msg;
	} else {
		u64 dma = wr->tx_dma + idx * SMC_WR_BUF_STRIDE;

		memcpy(wr->tx_bufs + idx * SMC_WR_BUF_STRIDE, msg, len);
		ib_dma_sync_single_for_device(wr->ibdev, dma, len,
					      DMA_TO_DEVICE);
		tx->send_sge.addr = dma;
		tx->send_sge.lkey = wr->pd->local_dma_lkey;
	}

post:
	atomic_inc(&wr->posted);
	rc = ib_post_send(wr->qp, first, &bad);
	if (rc) {
		atomic_dec(&wr->posted);
		smc_wr_slot_put(wr, idx);
		/* WRITEs went without their SEND or their signaled last */
		if (bad != first)
			smc_wr_fail(wr);
	}
out:
	smc_wr_busy_put(wr);
	return rc;
}

int smc_wr_send(struct smc_link *link, const void *msg, u32 len, u32 token,
		u64 cookie, long timeo)
{
	return smc_wr_post(link, NULL, 0, msg, len, token, cookie, timeo,
			   NULL);
}

int smc_wr_write_send(struct smc_link *link, const struct smc_wr_write *writes,
		      unsigned int nwrites, const void *msg, u32 len,
		      u32 token, u64 cookie, long timeo)
{
	if (len > SMC_WR_TX_SIZE || (nwrites && !writes))
		return -EINVAL;
	return smc_wr_post(link, writes, nwrites, msg, len, token, cookie,
			   timeo, NULL);
}

int smc_wr_write_imm(struct smc_link *link, const struct smc_wr_write *writes,
		     unsigned int nwrites, u32 imm, u32 token, u64 cookie)
{
	if (!writes)
		return -EINVAL;
	return smc_wr_post(link, writes, nwrites, NULL, 0, token, cookie, 0,
			   &imm);
}

/* ---- receiving ---- */

static int smc_wr_rx_post(struct smc_wr_rx *rx)
{
	struct smc_wr *wr = rx->wr;
	int rc;

	atomic_inc(&wr->posted);
	rc = ib_post_recv(wr->qp, &rx->rwr, NULL);
	if (rc)
		atomic_dec(&wr->posted);
	return rc;
}

static void smc_wr_rx_cdc(struct smc_wr *wr, const u8 *buf, u32 len)
{
	struct smc_link *link = wr->link;
	struct smc_lgr *lgr = link->lgr;
	struct smc_lgr_conn *c;
	struct smc_cdc_msg msg;

	if (smc_cdc_decode(buf, len, &msg)) {
		wr->rx_dropped++;
		ibdev_warn_ratelimited(wr->ibdev,
				       "smc: link %u: malformed CDC message dropped\n",
				       link->link_id);
		return;
	}
	read_lock(&lgr->conns_lock);
	c = smc_lgr_conn_lookup(lgr, msg.token);
	if (c)
		smc_conn_cdc_rx(c, link, &msg);
	read_unlock(&lgr->conns_lock);
}

/* An RMB growth message (cdc_wire.h); cdc.c checks it was agreed. */
static void smc_wr_rx_move(struct smc_wr *wr, const u8 *buf, u32 len)
{
	struct smc_link *link = wr->link;
	struct smc_lgr *lgr = link->lgr;
	struct smc_move_msg msg;
	struct smc_lgr_conn *c;

	if (smc_move_decode(buf, len, &msg)) {
		wr->rx_dropped++;
		ibdev_warn_ratelimited(wr->ibdev,
				       "smc: link %u: malformed RMB move message dropped\n",
				       link->link_id);
		return;
	}
	read_lock(&lgr->conns_lock);
	c = smc_lgr_conn_lookup(lgr, msg.token);
	if (c)
		smc_conn_move_rx(c, link, &msg);
	read_unlock(&lgr->conns_lock);
}

/*
 * The peer's WRITE WITH IMMEDIATE: its immediate is our connection's
 * token, its length what it put into that connection's RMB.  cdc.c checks
 * that the link group agreed on it and the length against the window.
 */
static void smc_wr_rx_wimm(struct smc_wr *wr, const struct ib_wc *wc)
{
	struct smc_link *link = wr->link;
	struct smc_lgr *lgr = link->lgr;
	struct smc_lgr_conn *c;

	link->rx_wimm++;
	if (!(wc->wc_flags & IB_WC_WITH_IMM)) {
		wr->rx_dropped++;
		return;
	}
	read_lock(&lgr->conns_lock);
	c = smc_lgr_conn_lookup(lgr, be32_to_cpu(wc->ex.imm_data));
	if (c)
		smc_conn_wimm_rx(c, link, wc->byte_len);
	else
		wr->rx_dropped++;
	read_unlock(&lgr->conns_lock);
}

static void smc_wr_rx_dispatch(struct smc_wr *wr, const u8 *buf, u32 len)
{
	struct smc_link *link = wr->link;

	link->rx_msgs++;
	if (len && buf[0] == SMC_CDC_MSG_TYPE) {
		smc_wr_rx_cdc(wr, buf, len);
	} else if (len && buf[0] == SMC_MOVE_MSG_TYPE) {
		smc_wr_rx_move(wr, buf, len);
	} else if (len && smc_llc_is_llc(buf[0])) {
		smc_llc_rx(link, buf, len);
	} else {
		wr->rx_dropped++;
		ibdev_warn_ratelimited(wr->ibdev,
				       "smc: link %u: unknown message type 0x%02x, %u bytes, dropped\n",
				       link->link_id, len ? buf[0] : 0, len);
	}
}

static void smc_wr_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct smc_wr_rx *rx = container_of(wc->wr_cqe, struct smc_wr_rx, cqe);
	struct smc_wr *wr = rx->wr;
	u32 len = wc->byte_len;

	if (test_bit(SMC_WR_DETACHED, &wr->flags))
		goto out;
	if (wc->status != IB_WC_SUCCESS) {
		smc_wr_wc_error(wr, wc, "receive");
		goto out;
	}
	if (wc->opcode == IB_WC_RECV_RDMA_WITH_IMM) {
		smc_wr_rx_wimm(wr, wc);	/* the buffer is untouched */
		goto repost;
	}

	ib_dma_sync_single_for_cpu(wr->ibdev, rx->dma, SMC_WR_TX_SIZE,
				   DMA_FROM_DEVICE);
	if (len > SMC_WR_TX_SIZE && wr->v2) {
		/* the rest went to the spill buffer, behind room for the head */
		len = min_t(u32, len, SMC_WR_V2_LEN);
		ib_dma_sync_single_for_cpu(wr->ibdev, wr->rx_v2_dma,
					   SMC_WR_V2_LEN, DMA_FROM_DEVICE);
		memcpy(wr->rx_v2, rx->buf, SMC_WR_TX_SIZE);
		smc_wr_rx_dispatch(wr, wr->rx_v2, len);
		ib_dma_sync_single_for_device(wr->ibdev, wr->rx_v2_dma,
					      SMC_WR_V2_LEN, DMA_FROM_DEVICE);
	} else {
		smc_wr_rx_dispatch(wr, rx->buf, min_t(u32, len, SMC_WR_TX_SIZE));
	}
	ib_dma_sync_single_for_device(wr->ibdev, rx->dma, SMC_WR_TX_SIZE,
				      DMA_FROM_DEVICE);

repost:
	/* a link going down still takes the peer's last messages */
	if (!test_bit(SMC_WR_QUIESCED, &wr->flags) && smc_wr_rx_post(rx)) {
		ibdev_warn_ratelimited(wr->ibdev,
				       "smc: link %u: receive repost failed\n",
				       smc_wr_id(wr));
		smc_wr_fail(wr);
	}
out:
	atomic_dec(&wr->posted);
	wake_up(&wr->wait);
}

/* ---- memory registration ---- */

static void smc_wr_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct smc_wr *wr = container_of(wc->wr_cqe, struct smc_wr, reg_cqe);

	wr->reg_status = wc->status == IB_WC_SUCCESS ? 0 : -EIO;
	if (wc->status != IB_WC_SUCCESS)
		smc_wr_wc_error(wr, wc, "memory registration");
	complete(&wr->reg_done);
	atomic_dec(&wr->posted);
	wake_up(&wr->wait);
}

/*
 * Post REG_MR for @mr and wait for it, reg_mutex held.  -ETIMEDOUT: the
 * link failed, its QP is in error and @mr must stay allocated until the
 * QP is gone (the caller marks it stale).
 */
static int smc_wr_reg_locked(struct smc_wr *wr, struct ib_mr *mr)
{
	struct ib_reg_wr reg = {
		.wr = {
			.wr_cqe = &wr->reg_cqe,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = mr,
		.key = mr->rkey,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	};
	int rc;

	lockdep_assert_held(&wr->reg_mutex);
	if (smc_wr_is_down(wr))
		return -ENOLINK;
	/* an idle send queue first (see the top of the file) */
	set_bit(SMC_WR_REG_GATE, &wr->flags);
	smp_mb__after_atomic();	/* pairs with smc_wr_slot_try() */
	if (!wait_event_timeout(wr->wait,
				smc_wr_is_down(wr) || smc_wr_tx_idle(wr),
				SMC_WR_REG_TIMEO)) {
		rc = -EBUSY;	/* a link this slow: not now */
		goto open;
	}
	if (smc_wr_is_down(wr)) {
		rc = -ENOLINK;
		goto open;
	}
	reinit_completion(&wr->reg_done);
	wr->reg_status = -EIO;
	atomic_inc(&wr->posted);
	rc = ib_post_send(wr->qp, &reg.wr, NULL);
	if (rc) {
		atomic_dec(&wr->posted);
		goto open;
	}
	if (!wait_for_completion_timeout(&wr->reg_done, SMC_WR_REG_TIMEO)) {
		ibdev_warn(wr->ibdev,
			   "smc: link %u: memory registration timed out\n",
			   smc_wr_id(wr));
		smc_wr_fail(wr);
		smc_wr_qp_error(wr);
		rc = -ETIMEDOUT;
		goto open;
	}
	rc = wr->reg_status;
open:
	clear_bit(SMC_WR_REG_GATE, &wr->flags);
	smp_mb__after_atomic();	/* gate open before the waiters look */
	wake_up_all(&wr->wait);
	return rc;
}

static struct smc_wr_mr *smc_wr_mr_find(struct smc_wr *wr, struct ib_mr *mr)
{
	struct smc_wr_mr *e;

	list_for_each_entry(e, &wr->mrs, list)
		if (e->mr == mr)
			return e;
	return NULL;
}

static int smc_wr_rmb_map(struct smc_wr *wr, struct smc_buf *buf, u64 dma,
			  struct ib_mr **mrp)
{
	u32 pages = DIV_ROUND_UP(offset_in_page(buf->cpu_addr) + buf->size,
				 PAGE_SIZE);
	struct scatterlist sg;
	struct smc_wr_mr *e;
	struct ib_mr *mr;
	int rc;

	mr = ib_alloc_mr(wr->pd, IB_MR_TYPE_MEM_REG, pages);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	sg_init_one(&sg, buf->cpu_addr, buf->size);
	sg_dma_address(&sg) = dma;
	sg_dma_len(&sg) = buf->size;

	mutex_lock(&wr->reg_mutex);
	ib_update_fast_reg_key(mr, wr->key++);
	rc = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
	if (rc != 1) {
		rc = rc < 0 ? rc : -EINVAL;
		goto err;
	}
	if (wr->rts) {
		rc = smc_wr_reg_locked(wr, mr);
		if (rc == -ETIMEDOUT) {
			e = kzalloc(sizeof(*e), GFP_KERNEL);
			if (e) {
				e->mr = mr;
				e->stale = true;
				list_add(&e->list, &wr->mrs);
			}
			/* else leaked rather than freed under the device */
			mutex_unlock(&wr->reg_mutex);
			return rc;
		}
		if (rc)
			goto err;
	} else {
		/* registered by smc_wr_qp_rts() */
		e = kzalloc(sizeof(*e), GFP_KERNEL);
		if (!e) {
			rc = -ENOMEM;
			goto err;
		}
		e->mr = mr;
		list_add_tail(&e->list, &wr->mrs);
	}
	mutex_unlock(&wr->reg_mutex);
	*mrp = mr;
	return 0;

err:
	mutex_unlock(&wr->reg_mutex);
	ib_dereg_mr(mr);
	return rc;
}

int smc_wr_buf_map(struct smc_link *link, struct smc_buf *buf)
{
	struct ib_mr *mr = NULL;
	struct smc_wr *wr;
	u64 dma;
	int rc;

	if (buf->map[link->idx].mapped)
		return 0;
	wr = smc_wr_get_up(link);
	if (!wr)
		return -ENOLINK;
	dma = ib_dma_map_single(wr->ibdev, buf->cpu_addr, buf->size,
				buf->rmb ? DMA_BIDIRECTIONAL : DMA_TO_DEVICE);
	if (ib_dma_mapping_error(wr->ibdev, dma)) {
		rc = -ENOMEM;
		goto out;
	}
	if (buf->rmb) {
		rc = smc_wr_rmb_map(wr, buf, dma, &mr);
		if (rc) {
			ib_dma_unmap_single(wr->ibdev, dma, buf->size,
					    DMA_BIDIRECTIONAL);
			goto out;
		}
		buf->map[link->idx].dma_addr = mr->iova;
		buf->map[link->idx].lkey = mr->lkey;
		buf->map[link->idx].rkey = mr->rkey;
	} else {
		buf->map[link->idx].dma_addr = dma;
		buf->map[link->idx].lkey = wr->pd->local_dma_lkey;
		buf->map[link->idx].rkey = 0;
	}
	buf->map[link->idx].mr = mr;
	buf->map[link->idx].mapped = true;
	rc = 0;
out:
	smc_wr_busy_put(wr);
	return rc;
}

void smc_wr_buf_unmap(struct smc_link *link, struct smc_buf *buf)
{
	struct smc_wr *wr = link->wr;
	struct ib_mr *mr = buf->map[link->idx].mr;

	lockdep_assert_held(&link->lgr->bufs_mutex);
	if (!wr || !buf->map[link->idx].mapped)
		return;
	/* the test flavour checks the teardown order: drained, then unmapped */
	WARN_ONCE(IS_ENABLED(CONFIG_SMC_TESTHOOKS) &&
		  (link->lgr->freeing ||
		   READ_ONCE(link->state) == SMC_LINK_DOWN) &&
		  !test_bit(SMC_WR_QUIESCED, &wr->flags),
		  "smc: link %u: buffer unmapped before its QP was drained\n",
		  link->link_id);
	if (mr) {
		struct smc_wr_mr *e;
		bool stale = false;

		mutex_lock(&wr->reg_mutex);
		e = smc_wr_mr_find(wr, mr);
		if (e && e->stale) {
			stale = true;
		} else if (e) {
			list_del(&e->list);
			kfree(e);
		}
		mutex_unlock(&wr->reg_mutex);
		if (!stale)
			ib_dereg_mr(mr);
	}
	ib_dma_unmap_single(wr->ibdev, buf->map[link->idx].dma_addr,
			    buf->size,
			    buf->rmb ? DMA_BIDIRECTIONAL : DMA_TO_DEVICE);
	memset(&buf->map[link->idx], 0, sizeof(buf->map[link->idx]));
}

void smc_wr_buf_sync(struct smc_lgr *lgr, struct smc_buf *buf, u32 off,
		     u32 len, bool for_cpu)
{
	enum dma_data_direction dir = buf->rmb ? DMA_BIDIRECTIONAL :
						 DMA_TO_DEVICE;
	struct smc_wr *wr;
	u64 dma;
	int i;

	if (!len || off >= buf->size)
		return;
	len = min(len, buf->size - off);
	smc_faultinj_buf_sync(for_cpu);
	for (i = 0; i < SMC_LINKS_MAX; i++) {
		/* the RCU section keeps @wr, so its device, while we sync */
		rcu_read_lock();
		wr = READ_ONCE(lgr->links[i].wr);
		dma = READ_ONCE(buf->map[i].dma_addr);
		if (wr && dma && READ_ONCE(buf->map[i].mapped)) {
			if (for_cpu)
				ib_dma_sync_single_for_cpu(wr->ibdev, dma + off,
							   len, dir);
			else
				ib_dma_sync_single_for_device(wr->ibdev,
							      dma + off, len,
							      dir);
		}
		rcu_read_unlock();
	}
}

/* ---- QP states ---- */

static void smc_wr_qp_event(struct ib_event *ev, void *ctx)
{
	struct smc_wr *wr = ctx;

	switch (ev->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
	case IB_EVENT_PATH_MIG_ERR:
		if (smc_wr_is_down(wr))
			break;
		ibdev_warn_ratelimited(wr->ibdev, "smc: link %u: %s\n",
				       smc_wr_id(wr), ib_event_msg(ev->event));
		smc_wr_fail(wr);
		break;
	default:
		break;
	}
}

/* an iWARP link's connection went away: the link fails as on an error */
static void smc_wr_iw_down(void *ctx)
{
	smc_wr_fail(ctx);
}

/*
 * iWARP instead of RTR: the client connects its QP to the server's
 * listener (the port in the peer's PSN field), the server waits for that
 * connection from the peer's address and QP; either way the device moves
 * the QP to RTS.
 */
static int smc_wr_iw_rtr(struct smc_link *link, struct smc_wr *wr)
{
	if (link->lgr->server)
		return smc_iw_wait_from(wr->iw, smc_gid_v4(link->peer.gid),
					link->peer.qpn & 0xffffff,
					SMC_WR_IW_TIMEO);
	if (wr->iw)
		return -EALREADY;
	return smc_iw_connect(link->lgr->net, wr->ibdev, wr->qp->qp_num,
			      smc_gid_v4(link->gid),
			      smc_gid_v4(link->peer.gid),
			      link->peer.psn & 0xffff, link->peer.qpn & 0xffffff,
			      SMC_WR_IW_TIMEO, smc_wr_iw_down, wr, &wr->iw);
}

int smc_wr_qp_rtr(struct smc_link *link)
{
	struct smc_wr *wr = link->wr;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTR };
	u8 hop_limit = 1;
	int rc;

	if (!wr)
		return -ENOLINK;
	if (wr->iwarp)
		return smc_wr_iw_rtr(link, wr);
	if (link->peer.mtu < IB_MTU_256 || link->peer.mtu > IB_MTU_4096)
		return -EINVAL;
	/* RoCE v2 may be routed; peer.mac is then the next hop's */
	if (wr->v2)
		hop_limit = IPV6_DEFAULT_HOPLIMIT;

	attr.path_mtu = min_t(enum ib_mtu, link->path_mtu, link->peer.mtu);
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr.ah_attr, link->port);
	rdma_ah_set_grh(&attr.ah_attr, NULL, 0, link->sgid_index, hop_limit,
			0);
	rdma_ah_set_dgid_raw(&attr.ah_attr, link->peer.gid);
	memcpy(attr.ah_attr.roce.dmac, link->peer.mac, ETH_ALEN);
	attr.dest_qp_num = link->peer.qpn & 0xffffff;
	attr.rq_psn = link->peer.psn & 0xffffff;
	attr.max_dest_rd_atomic = SMC_WR_QP_RD_ATOMIC;
	attr.min_rnr_timer = SMC_WR_QP_MIN_RNR_TIMER;
	rc = ib_modify_qp(wr->qp, &attr,
			  IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			  IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			  IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (!rc)
		link->path_mtu = attr.path_mtu;
	return rc;
}

int smc_wr_qp_rts(struct smc_link *link)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_RTS,
		.timeout = SMC_WR_QP_TIMEOUT,
		.retry_cnt = SMC_WR_QP_RETRY_CNT,
		.rnr_retry = SMC_WR_QP_RNR_RETRY,
		.sq_psn = link->psn & 0xffffff,
		.max_rd_atomic = SMC_WR_QP_RD_ATOMIC,
	};
	struct smc_wr_mr *e, *tmp;
	struct smc_wr *wr;
	int rc;

	wr = smc_wr_get(link);
	if (!wr)
		return -ENOLINK;
	mutex_lock(&wr->reg_mutex);
	/* iWARP: the device moved the QP to RTS when it got connected */
	rc = wr->iwarp ? 0 :
	     ib_modify_qp(wr->qp, &attr,
			  IB_QP_STATE | IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			  IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			  IB_QP_MAX_QP_RD_ATOMIC);
	if (rc)
		goto out;
	wr->rts = true;
	/* RMBs mapped before RTS */
	list_for_each_entry_safe(e, tmp, &wr->mrs, list) {
		if (e->stale)
			continue;
		rc = smc_wr_reg_locked(wr, e->mr);
		if (rc == -ETIMEDOUT) {
			e->stale = true;
			break;
		}
		if (rc)
			break;
		list_del(&e->list);
		kfree(e);
	}
out:
	mutex_unlock(&wr->reg_mutex);
	smc_wr_busy_put(wr);
	return rc;
}

/* ---- creation and teardown ---- */

static int smc_wr_create_qp(struct smc_wr *wr)
{
	struct ib_qp_init_attr init = {
		.event_handler = smc_wr_qp_event,
		.qp_context = wr,
		.send_cq = wr->cq,
		.recv_cq = wr->cq,
		.cap = {
			.max_send_wr = SMC_WR_SQ_SIZE,
			.max_recv_wr = SMC_WR_RX_CNT,
			.max_send_sge = 1,
			.max_recv_sge = wr->v2 ? 2 : 1,
			.max_inline_data = SMC_WR_TX_SIZE,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_qp *qp;

	qp = ib_create_qp(wr->pd, &init);
	if (IS_ERR(qp)) {
		/* the device may not do inline data: copy instead */
		init.cap.max_inline_data = 0;
		qp = ib_create_qp(wr->pd, &init);
		if (IS_ERR(qp))
			return PTR_ERR(qp);
	}
	wr->inline_ok = init.cap.max_inline_data >= SMC_WR_TX_SIZE;
	wr->qp = qp;
	return 0;
}

static int smc_wr_map(struct smc_wr *wr, void *cpu, size_t len,
		      enum dma_data_direction dir, u64 *dma)
{
	*dma = ib_dma_map_single(wr->ibdev, cpu, len, dir);
	if (ib_dma_mapping_error(wr->ibdev, *dma)) {
		*dma = 0;
		return -ENOMEM;
	}
	return 0;
}

static int smc_wr_alloc_bufs(struct smc_wr *wr)
{
	int rc;

	wr->tx_bufs = kcalloc(SMC_WR_SLOTS, SMC_WR_BUF_STRIDE, GFP_KERNEL);
	wr->rx_bufs = kcalloc(SMC_WR_RX_CNT, SMC_WR_BUF_STRIDE, GFP_KERNEL);
	if (!wr->tx_bufs || !wr->rx_bufs)
		return -ENOMEM;
	rc = smc_wr_map(wr, wr->tx_bufs, SMC_WR_SLOTS * SMC_WR_BUF_STRIDE,
			DMA_TO_DEVICE, &wr->tx_dma);
	if (rc)
		return rc;
	rc = smc_wr_map(wr, wr->rx_bufs, SMC_WR_RX_CNT * SMC_WR_BUF_STRIDE,
			DMA_FROM_DEVICE, &wr->rx_dma);
	if (rc || !wr->v2)
		return rc;

	wr->tx_v2 = kzalloc(SMC_WR_V2_LEN, GFP_KERNEL);
	wr->rx_v2 = kzalloc(SMC_WR_V2_LEN, GFP_KERNEL);
	if (!wr->tx_v2 || !wr->rx_v2)
		return -ENOMEM;
	rc = smc_wr_map(wr, wr->tx_v2, SMC_WR_V2_LEN, DMA_TO_DEVICE,
			&wr->tx_v2_dma);
	if (rc)
		return rc;
	return smc_wr_map(wr, wr->rx_v2, SMC_WR_V2_LEN, DMA_FROM_DEVICE,
			  &wr->rx_v2_dma);
}

static void smc_wr_free_bufs(struct smc_wr *wr)
{
	if (wr->rx_v2_dma)
		ib_dma_unmap_single(wr->ibdev, wr->rx_v2_dma, SMC_WR_V2_LEN,
				    DMA_FROM_DEVICE);
	if (wr->tx_v2_dma)
		ib_dma_unmap_single(wr->ibdev, wr->tx_v2_dma, SMC_WR_V2_LEN,
				    DMA_TO_DEVICE);
	if (wr->rx_dma)
		ib_dma_unmap_single(wr->ibdev, wr->rx_dma,
				    SMC_WR_RX_CNT * SMC_WR_BUF_STRIDE,
				    DMA_FROM_DEVICE);
	if (wr->tx_dma)
		ib_dma_unmap_single(wr->ibdev, wr->tx_dma,
				    SMC_WR_SLOTS * SMC_WR_BUF_STRIDE,
				    DMA_TO_DEVICE);
	kfree(wr->rx_v2);
	kfree(wr->tx_v2);
	kfree(wr->rx_bufs);
	kfree(wr->tx_bufs);
}

static void smc_wr_init_slots(struct smc_wr *wr)
{
	unsigned int i;

	for (i = 0; i <= SMC_WR_SLOTS; i++) {
		wr->tx[i].wr = wr;
		wr->tx[i].cqe.done = smc_wr_tx_done;
	}
	wr->write_cqe.done = smc_wr_write_done;
	wr->reg_cqe.done = smc_wr_reg_done;

	for (i = 0; i < SMC_WR_RX_CNT; i++) {
		struct smc_wr_rx *rx = &wr->rx[i];

		rx->wr = wr;
		rx->cqe.done = smc_wr_rx_done;
		rx->buf = wr->rx_bufs + i * SMC_WR_BUF_STRIDE;
		rx->dma = wr->rx_dma + i * SMC_WR_BUF_STRIDE;
		rx->sge[0].addr = rx->dma;
		rx->sge[0].length = SMC_WR_TX_SIZE;
		rx->sge[0].lkey = wr->pd->local_dma_lkey;
		if (wr->v2) {
			/* the head's room stays ours, see smc_wr_rx_done() */
			rx->sge[1].addr = wr->rx_v2_dma + SMC_WR_TX_SIZE;
			rx->sge[1].length = SMC_WR_V2_LEN - SMC_WR_TX_SIZE;
			rx->sge[1].lkey = wr->pd->local_dma_lkey;
		}
		rx->rwr.wr_cqe = &rx->cqe;
		rx->rwr.sg_list = rx->sge;
		rx->rwr.num_sge = wr->v2 ? 2 : 1;
	}
}

static int smc_wr_qp_init(struct smc_wr *wr)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.pkey_index = 0,
		.port_num = wr->link->port,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE |
				   IB_ACCESS_REMOTE_WRITE,
	};

	return ib_modify_qp(wr->qp, &attr,
			    IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			    IB_QP_ACCESS_FLAGS);
}

/* Release what exists; the QP must be gone or never posted to. */
static void smc_wr_free(struct smc_wr *wr)
{
	struct smc_wr_mr *e, *tmp;

	/* the connection holds the QP: it goes first */
	smc_iw_release(wr->iw);
	wr->iw = NULL;
	if (wr->qp && ib_destroy_qp(wr->qp)) {
		/* still attached to the CQ and the PD: leak, do not free */
		ibdev_err(wr->ibdev, "smc: link %u: QP not destroyed\n",
			  smc_wr_id(wr));
		return;
	}
	if (wr->cq)
		ib_free_cq(wr->cq);	/* waits for a running poll */
	list_for_each_entry_safe(e, tmp, &wr->mrs, list) {
		ib_dereg_mr(e->mr);
		list_del(&e->list);
		kfree(e);
	}
	smc_wr_free_bufs(wr);
	if (wr->pd)
		ib_dealloc_pd(wr->pd);
	if (wr->dev)
		smc_ib_put(wr->dev);
	kvfree(wr);
}

/* The last sender out after smc_wr_link_destroy() gave up waiting. */
static void smc_wr_free_work(struct work_struct *work)
{
	struct smc_wr *wr = container_of(work, struct smc_wr, free_work);

	synchronize_rcu();	/* every busy_put is past its wake-up */
	ibdev_info(wr->ibdev, "smc: link %u: freed after its last sender left\n",
		   wr->link_id);
	smc_wr_free(wr);
}

/*
 * An iWARP link: a server expects the client's connection and advertises
 * its listener's port where RoCE has the PSN; a client connects later
 * (smc_wr_iw_rtr()).
 */
static int smc_wr_iw_init(struct smc_link *link, struct smc_wr *wr)
{
	struct smc_lgr *lgr = link->lgr;
	u16 port;
	int rc;

	link->psn = 0;
	if (!lgr->server)
		return 0;
	rc = smc_iw_expect(lgr->net, wr->ibdev, wr->qp->qp_num,
			   smc_wr_iw_down, wr, &port, &wr->iw);
	if (!rc)
		link->psn = port;
	return rc;
}

int smc_wr_link_init(struct smc_link *link)
{
	struct ib_device *ibdev = link->dev->ibdev;
	struct ib_port_attr pattr;
	struct smc_wr *wr;
	unsigned int i;
	int rc;

	rc = ib_query_port(ibdev, link->port, &pattr);
	if (rc)
		return rc;

	/* a failure here only means this link group falls back to TCP */
	wr = kvzalloc(sizeof(*wr), GFP_KERNEL | __GFP_NOWARN);
	if (!wr)
		return -ENOMEM;
	wr->link = link;
	wr->ibdev = ibdev;
	wr->v2 = link->lgr->version == SMC_V2;
	wr->iwarp = smc_ib_port_iwarp(link->dev, link->port);
	atomic_set(&wr->busy, 1);	/* the link's own */
	INIT_WORK(&wr->free_work, smc_wr_free_work);
	init_waitqueue_head(&wr->wait);
	mutex_init(&wr->reg_mutex);
	init_completion(&wr->reg_done);
	INIT_LIST_HEAD(&wr->mrs);
	get_random_bytes(&wr->key, sizeof(wr->key));

	wr->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(wr->pd)) {
		rc = PTR_ERR(wr->pd);
		wr->pd = NULL;
		goto err;
	}
	wr->cq = ib_alloc_cq(ibdev, wr, SMC_WR_CQ_SIZE, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(wr->cq)) {
		rc = PTR_ERR(wr->cq);
		wr->cq = NULL;
		goto err;
	}
	rc = smc_wr_create_qp(wr);
	if (rc)
		goto err;
	rc = smc_wr_alloc_bufs(wr);
	if (rc)
		goto err;
	smc_wr_init_slots(wr);
	rc = smc_wr_qp_init(wr);
	if (rc)
		goto err;
	/* all receives posted before the peer can send (RTR) */
	for (i = 0; i < SMC_WR_RX_CNT; i++) {
		rc = smc_wr_rx_post(&wr->rx[i]);
		if (rc)
			goto err_posted;
	}

	link->psn = get_random_u32() & 0xffffff;
	if (wr->iwarp) {
		rc = smc_wr_iw_init(link, wr);
		if (rc)
			goto err_posted;
	}
	link->pd = wr->pd;
	link->qp = wr->qp;
	link->qpn = wr->qp->qp_num;
	link->path_mtu = pattr.active_mtu;
	link->wr = wr;
	return 0;

err_posted:
	/* flush the receives posted so far, quietly */
	set_bit(SMC_WR_DOWN, &wr->flags);
	smc_wr_qp_error(wr);
	wait_event_timeout(wr->wait, !atomic_read(&wr->posted),
			   SMC_WR_DRAIN_TIMEO);
err:
	smc_wr_free(wr);
	return rc;
}

/*
 * See wr.h.  Sleeps; the callers serialise it against smc_wr_link_init(),
 * buffer mapping and smc_wr_link_destroy() of the same link.
 */
void smc_wr_link_quiesce(struct smc_link *link)
{
	struct smc_wr *wr = link->wr;

	if (!wr || test_and_set_bit(SMC_WR_QUIESCED, &wr->flags))
		return;
	smc_wr_link_down(link);
	smp_mb();	/* down before reading busy; pairs with smc_wr_busy_get() */
	/* flushes what is posted, a registration someone waits for too */
	smc_wr_qp_error(wr);
	if (!wait_event_timeout(wr->wait, atomic_read(&wr->busy) == 1,
				SMC_WR_DRAIN_TIMEO))
		ibdev_warn(wr->ibdev, "smc: link %u: senders still busy\n",
			   link->link_id);
	if (!wait_event_timeout(wr->wait, !atomic_read(&wr->posted),
				SMC_WR_DRAIN_TIMEO))
		ibdev_warn(wr->ibdev,
			   "smc: link %u: %d work requests not completed\n",
			   link->link_id, atomic_read(&wr->posted));
}

/* See wr.h. */
void smc_wr_link_drain_sends(struct smc_link *link, long timeo)
{
	struct smc_wr *wr = smc_wr_get(link);

	if (!wr)
		return;
	wait_event_timeout(wr->wait, smc_wr_tx_idle(wr), timeo);
	smc_wr_busy_put(wr);
}

void smc_wr_link_destroy(struct smc_link *link)
{
	struct smc_wr *wr = link->wr;

	if (!wr)
		return;
	smc_wr_link_quiesce(link);
	/*
	 * From here on nothing of @wr may refer to @link, which may get a new
	 * smc_wr (or its lgr be freed) as soon as we return.
	 */
	wr->link_id = link->link_id;
	set_bit(SMC_WR_DETACHED, &wr->flags);
	WRITE_ONCE(link->wr, NULL);
	link->qp = NULL;
	link->pd = NULL;
	synchronize_rcu();	/* nobody takes a new count from now on */
	if (atomic_read(&wr->busy) > 1 && link->dev) {
		/* the last sender may free: the device must stay until then */
		smc_ib_hold(link->dev);
		wr->dev = link->dev;
	}
	if (!atomic_dec_and_test(&wr->busy)) {
		ibdev_warn(wr->ibdev,
			   "smc: link %u: a sender is still inside, it frees the link when it leaves\n",
			   wr->link_id);
		return;
	}
	synchronize_rcu();	/* the last busy_put is past its wake-up */
	smc_wr_free(wr);
}
