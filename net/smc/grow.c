// SPDX-License-Identifier: GPL-2.0
/*
 * RMB growth between two hosts running this module (clc_nego.h
 * SMC_NEGO_VX_GROW; the messages in cdc_wire.h).
 *
 * An RMB is pinned memory that the peer may fill, and most connections
 * carry little.  On a link group with growth a connection starts with a
 * 16 KiB RMB and gets the size it would otherwise have had (rmb_goal)
 * once the peer streams into it (smc_rmb_grow_due()).  One direction of
 * one connection moves like this:
 *
 *  1. The receiver gets the larger RMB in a work item (allocated and
 *     registered on every link, its rkeys made known to the peer by LLC
 *     CONFIRM_RKEY) and sends OFFER.
 *  2. The writer stops writing and waits until every write into the old
 *     RMB has completed (tx_done == tx_written: all of it landed).  Then
 *     it sends MOVED with that stream position P and from then on writes
 *     byte n at n % new size of the new RMB.  Nothing before P is ever
 *     written again, not even after a link switch: the replay starts at
 *     tx_done.  Its room is counted against the new size, with the
 *     unread bytes of the old RMB as if they were in the new one: it may
 *     write less than it could, never more.
 *  3. The receiver reads the bytes before P from the old RMB and the rest
 *     from the new one, and gives the old RMB back to the pool once it
 *     has read up to P.
 * After a link switch, a message the peer may have lost goes again,
 * first on the new link: an OFFER not yet answered by MOVED, a MOVED
 * whose send did not complete.  A message of a generation already taken
 * is such a duplicate and ignored; anything else out of order aborts the
 * connection, as a cursor out of range does.
 *
 * With growth, the cursors of CDC messages are 48-bit stream counts
 * (smc_curs_abs()): they mean the same before and after a move, however
 * the two sides' views of the RMB's size cross.
 *
 * Everything here runs under conn->lock except the work item, which
 * allocates and registers (it sleeps) before taking it.
 */
#include <net/sock.h>
#include "smc.h"
#include "clc_nego.h"
#include "conn.h"
#include "wr.h"

/* Is the connection still one worth moving, either way?  conn->lock held. */
static bool smc_grow_alive(struct smc_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	return conn->attached && !conn->dead && !conn->local_abort &&
	       !conn->peer_abort && !conn->local_closed && !conn->peer_closed;
}

/* conn->lock held. */
struct smc_buf *smc_grow_take_old(struct smc_conn *conn)
{
	struct smc_buf *old = conn->rmb_old;

	lockdep_assert_held(&conn->lock);
	if (!old || conn->rx_cons < conn->rx_move_pos)
		return NULL;
	conn->rmb_old = NULL;
	return old;
}

/*
 * Receiver: a larger RMB, offered to the peer; and the old RMB back to
 * the pool once read when nobody else gave it back.  Process context.
 */
static void smc_grow_work(struct work_struct *work)
{
	struct smc_conn *conn = container_of(work, struct smc_conn, grow_work);
	struct smc_lgr *lgr = conn->lc.lgr;
	struct mem_cgroup *memcg;
	struct smc_buf *buf;
	u8 have;
	bool want;

	spin_lock_bh(&conn->lock);
	buf = smc_grow_take_old(conn);
	want = smc_grow_alive(conn) && conn->rx_grow_tried &&
	       !conn->rx_move_gen && !conn->peer_done_writing;
	have = conn->rmb->comp;
	spin_unlock_bh(&conn->lock);
	if (buf)
		smc_buf_put(lgr, buf);
	if (!want)
		return;

	memcg = smc_memcg_enter(&smc_conn_sock(conn)->sk);
	buf = smc_buf_get(lgr, true, conn->rmb_goal);
	smc_memcg_leave(memcg);
	if (!buf)
		return;
	/* short of memory, smc_buf_get() hands out less: no use */
	if (buf->comp <= have || smc_buf_confirm_rkey(lgr, buf)) {
		smc_buf_put(lgr, buf);
		return;
	}
	spin_lock_bh(&conn->lock);
	if (!smc_grow_alive(conn)) {
		spin_unlock_bh(&conn->lock);
		smc_buf_put(lgr, buf);
		return;
	}
	conn->rmb_next = buf;
	conn->rx_move_gen = 1;
	conn->rx_offer_owed = true;
	smc_cdc_push_locked(conn, false);
	spin_unlock_bh(&conn->lock);
}

void smc_grow_init(struct smc_conn *conn)
{
	INIT_WORK(&conn->grow_work, smc_grow_work);
	conn->tx_move_rtoken = -1;
}

/* The peer wrote: time to grow?  conn->lock held, any context. */
void smc_grow_rx_check(struct smc_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	if (conn->rx_grow_tried || conn->rmb->comp >= conn->rmb_goal ||
	    !smc_rmb_grow_due(conn->rmb->size,
			      SMC_BUF_MIN_SIZE << conn->rmb_goal,
			      conn->rx_prod, conn->rx_prod - conn->rx_cons) ||
	    !(READ_ONCE(conn->lc.lgr->vx) & SMC_NEGO_VX_GROW) ||
	    !smc_grow_alive(conn))
		return;
	conn->rx_grow_tried = true;
	queue_work(smc_wq, &conn->grow_work);
}

/* Post @m on the connection's link; -EAGAIN leaves it to tx_work. */
static int smc_grow_send(struct smc_conn *conn, const struct smc_move_msg *m,
			 u32 token, u64 cookie)
{
	u8 buf[SMC_MOVE_MSG_LEN];
	int rc;

	smc_move_encode(m, buf, sizeof(buf));
	rc = smc_wr_send(conn->lc.link, buf, sizeof(buf), token, cookie, 0);
	if (rc == -EAGAIN)
		smc_cdc_defer(conn);
	return rc;
}

/* Receiver: the OFFER, with the new RMB's key on the link it goes on. */
static int smc_grow_send_offer(struct smc_conn *conn)
{
	struct smc_buf *buf = conn->rmb_next;
	u8 idx = conn->lc.link->idx;
	struct smc_move_msg m = {
		.op = SMC_MOVE_OFFER,
		.gen = conn->rx_move_gen,
		.token = conn->peer_token,
		.comp = buf->comp,
		.rkey = buf->map[idx].rkey,
		.vaddr = buf->map[idx].dma_addr,
	};

	/* a link that came after the buffer maps it before it carries data */
	if (!buf->map[idx].mapped)
		return 0;
	return smc_grow_send(conn, &m, 0, 0);
}

int smc_grow_push_locked(struct smc_conn *conn)
{
	struct smc_move_msg m = { .op = SMC_MOVE_MOVED };
	int rc;

	lockdep_assert_held(&conn->lock);
	if (conn->dead || !conn->attached || conn->local_abort ||
	    conn->peer_abort)
		return 0;
	if (conn->rx_offer_owed && conn->rmb_next) {
		rc = smc_grow_send_offer(conn);
		if (rc)
			return rc;
		conn->rx_offer_owed = false;
	}
	/* every write into the old RMB landed: switch */
	if (conn->tx_move_pending && conn->tx_done >= conn->tx_written) {
		WRITE_ONCE(conn->lc.peer_rtoken, conn->tx_move_rtoken);
		conn->peer_rmb_size = conn->tx_move_size;
		conn->tx_move_pos = conn->tx_written;
		conn->tx_move_pending = false;
		conn->tx_moved_owed = true;
	}
	if (conn->tx_moved_owed) {
		m.gen = conn->tx_move_gen;
		m.token = conn->peer_token;
		m.pos = conn->tx_move_pos;
		rc = smc_grow_send(conn, &m, conn->lc.token,
				   SMC_GROW_COOKIE | m.gen);
		if (rc)
			return rc;
		conn->tx_moved_owed = false;
		conn->tx_moved_unacked = true;
	}
	return 0;
}

/* Writer: data waits while an offered move waits for its writes. */
bool smc_grow_tx_hold(struct smc_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	return conn->tx_move_pending;
}

void smc_grow_tx_done(struct smc_conn *conn, u64 cookie, int status)
{
	lockdep_assert_held(&conn->lock);
	if (!status && (u8)cookie == conn->tx_move_gen)
		conn->tx_moved_unacked = false;
}

void smc_grow_link_switch(struct smc_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	if (conn->tx_moved_unacked)
		conn->tx_moved_owed = true;
	if (conn->rmb_next)
		conn->rx_offer_owed = true;
}

struct smc_buf *smc_grow_ring(struct smc_conn *conn, u64 pos, u32 *off,
			      u32 *contig)
{
	struct smc_buf *buf = conn->rmb;
	u64 end = U64_MAX;

	lockdep_assert_held(&conn->lock);
	if (conn->rmb_old && pos < conn->rx_move_pos) {
		buf = conn->rmb_old;
		end = conn->rx_move_pos;
	}
	div_u64_rem(pos, buf->size, off);
	*contig = min_t(u64, buf->size - *off, end - pos);
	return buf;
}

void smc_grow_bufs_put(struct smc_conn *conn, struct smc_lgr *lgr)
{
	smc_buf_put(lgr, conn->rmb_old);
	smc_buf_put(lgr, conn->rmb_next);
	conn->rmb_old = NULL;
	conn->rmb_next = NULL;
}

/* Writer: the peer offers a larger RMB.  NULL or what is wrong with it. */
static const char *smc_grow_offer_rx(struct smc_conn *conn,
				     struct smc_link *link,
				     const struct smc_move_msg *msg)
{
	u32 size = SMC_BUF_MIN_SIZE << msg->comp;
	int idx;

	switch (smc_move_offer_check(msg->gen, msg->comp, conn->tx_move_gen,
				     conn->tx_move_pending,
				     conn->peer_rmb_size)) {
	case 0:
		break;
	case 1:
		return NULL;		/* again, after a link switch */
	case -EPROTO:
		return "RMB offer out of order";
	default:
		return "RMB offer not larger";
	}
	idx = smc_rtoken_add(conn->lc.lgr, link, msg->vaddr, msg->rkey);
	conn->tx_move_gen = msg->gen;
	if (idx < 0) {
		/* no room for its key: the old RMB stays, and no MOVED */
		net_warn_ratelimited("smc: token %u: no room for a peer RMB key, RMB not moved\n",
				     conn->lc.token);
		return NULL;
	}
	conn->tx_move_rtoken = idx;
	conn->tx_move_size = size;
	conn->tx_move_pending = true;
	smc_cdc_push_locked(conn, false);
	return NULL;
}

/* Receiver: the peer writes into the new RMB from msg->pos on. */
static const char *smc_grow_moved_rx(struct smc_conn *conn,
				     const struct smc_move_msg *msg)
{
	struct smc_buf *old = conn->rmb;

	switch (smc_move_moved_check(msg->gen, msg->pos, conn->rx_move_gen,
				     !!conn->rmb_next, conn->rx_move_pos,
				     conn->rx_prod, conn->rx_cons_sent,
				     old->size)) {
	case 0:
		break;
	case 1:
		return NULL;		/* again, after a link switch */
	case -EPROTO:
		return conn->rmb_next ? "RMB moved out of order" :
					"RMB moved unasked";
	default:
		return "RMB moved at a position out of range";
	}
	conn->rmb_old = old;
	conn->rmb = conn->rmb_next;
	conn->rmb_next = NULL;
	conn->rx_offer_owed = false;
	conn->rx_move_pos = msg->pos;
	conn->rx_upd_limit = smc_cdc_wnd_update_limit(conn->rmb->size);
	/* all of it read already: the work item gives it back */
	if (conn->rx_cons >= msg->pos)
		queue_work(smc_wq, &conn->grow_work);
	return NULL;
}

/* Softirq, read_lock(&lgr->conns_lock) held (see core.h). */
void smc_conn_move_rx(struct smc_lgr_conn *c, struct smc_link *link,
		      const struct smc_move_msg *msg)
{
	struct smc_conn *conn = smc_lc_conn(c);
	struct smc_sock *smc = smc_conn_sock(conn);
	const char *why;

	spin_lock(&conn->lock);
	if (!conn->attached || conn->peer_abort) {
		spin_unlock(&conn->lock);
		return;
	}
	if (!(READ_ONCE(c->lgr->vx) & SMC_NEGO_VX_GROW))
		why = "RMB move not agreed";
	else if (msg->op == SMC_MOVE_OFFER)
		why = smc_grow_offer_rx(conn, link, msg);
	else
		why = smc_grow_moved_rx(conn, msg);
	if (why)
		smc_cdc_violation(conn, why);
	spin_unlock(&conn->lock);
	if (why)
		smc_sk_wake(&smc->sk, EPOLLIN | EPOLLOUT | EPOLLERR);
	if (sock_flag(&smc->sk, SOCK_DEAD))
		smc_close_kick(smc);
}
