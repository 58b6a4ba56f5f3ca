// SPDX-License-Identifier: GPL-2.0
/*
 * CDC messages of an SMC-R connection: pushing data into the peer's RMB
 * and taking the peer's cursors and flags.
 *
 * One function sends: smc_cdc_push_locked().  It writes whatever the send
 * buffer holds and the peer's RMB has room for (as up to three RDMA WRITEs:
 * either ring may wrap), then announces the new producer cursor, our
 * consumer cursor and the close flags in a CDC message posted in the same
 * chain.  It runs from sendmsg, from recvmsg (consumer updates), and from
 * the CDC receive path when the peer made room, so data moves without any
 * work-item hop.  Only when no send slot is free does it leave the rest to
 * conn->tx_work.
 *
 * Between two hosts running this module (a link group with the WIMM
 * extension, clc_nego.h) plain data goes without a CDC message: each write
 * is an RDMA WRITE WITH IMMEDIATE that names the peer's connection, and
 * smc_conn_wimm_rx() takes it.  A CDC message still carries everything
 * else: a consumer update on its own, the close flags, urgent data, a
 * writer short of room (write_blocked), the replay after a link switch.
 *
 * One function receives: smc_conn_cdc_rx().  It checks the peer's cursors
 * against what the peer can legitimately know (a producer cursor may not
 * run more than one RMB ahead of the consumer cursor we announced, a
 * consumer cursor may not pass what we wrote) and aborts the connection on
 * a violation rather than trusting it.
 */
#include <linux/net.h>
#include <linux/sizes.h>
#include <net/sock.h>
#include "smc.h"
#include "clc_nego.h"
#include "conn.h"
#include "testhooks.h"
#include "wr.h"

/* A 64-bit stream count as a wire cursor in a ring of @size bytes. */
static void smc_count_to_curs(u64 count, u32 size, struct smc_curs *c)
{
	c->wrap = (u16)div_u64_rem(count, size, &c->count);
}

/* RMB growth agreed: cursors are stream counts (grow.c). */
static bool smc_cdc_abs(struct smc_conn *conn)
{
	return READ_ONCE(conn->lc.lgr->vx) & SMC_NEGO_VX_GROW;
}

void smc_cdc_curs_out(struct smc_conn *conn, u64 count, u32 size,
		      struct smc_curs *c)
{
	if (smc_cdc_abs(conn))
		smc_curs_abs(count, c);
	else
		smc_count_to_curs(count, size, c);
}

void smc_conn_init(struct smc_conn *conn)
{
	spin_lock_init(&conn->lock);
	INIT_WORK(&conn->tx_work, smc_conn_tx_work);
	smc_tx_init(conn);
	smc_grow_init(conn);
	conn->lc.peer_rtoken = -1;
}

/* Wake the socket's waiters for @mask; any context. */
void smc_sk_wake(struct sock *sk, __poll_t mask)
{
	struct socket_wq *wq;

	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_poll(&wq->wait, mask);
	if (mask & EPOLLIN)
		sk_wake_async_rcu(sk, SOCK_WAKE_WAITD, POLL_IN);
	if (mask & EPOLLOUT)
		sk_wake_async_rcu(sk, SOCK_WAKE_SPACE, POLL_OUT);
	rcu_read_unlock();
}

/*
 * A WRITE WITH IMMEDIATE is at most this long: the length a window of half
 * the default RMB gives, whatever window the reader opens.  Soft-RoCE
 * asks for an acknowledgment every 64 packets of a longer request anyway
 * (64 KiB at its 1 KiB MTU), so longer ones would save none, and the fewer
 * packets are outstanding, the less a lossy link retransmits before its
 * retry count runs out.
 */
#define SMC_CDC_WIMM_MAX	SZ_64K

/*
 * The RDMA WRITEs for up to @n bytes of the send ring from stream position
 * @from (smc_ring_split()).  Returns the bytes they cover, 0 without a
 * remote key for the connection's link; *@nw is the number of writes.
 */
static u32 smc_cdc_build_writes(struct smc_conn *conn, u64 from, u32 n,
				u32 max_len, struct smc_wr_write *w,
				unsigned int *nw)
{
	struct smc_ring_piece p[SMC_WR_MAX_WRITES];
	struct smc_link *link = conn->lc.link;
	struct smc_rtoken tok;
	unsigned int i;
	u32 done;

	*nw = 0;
	if (!smc_rtoken_get(conn->lc.lgr, conn->lc.peer_rtoken, link->idx,
			    &tok))
		return 0;
	done = smc_ring_split(from, n, conn->sndbuf->size, conn->peer_rmb_size,
			      max_len, p, SMC_WR_MAX_WRITES, nw);
	for (i = 0; i < *nw; i++) {
		w[i].local_addr = conn->sndbuf->map[link->idx].dma_addr +
				  p[i].src;
		w[i].len = p[i].len;
		w[i].remote_addr = tok.vaddr + p[i].dst;
		w[i].rkey = tok.rkey;
	}
	return done;
}

/*
 * Does the peer need our consumer cursor now, by the window rule
 * (smc_cdc_cons_update_needed())?  conn->lock held.
 */
bool smc_cdc_cons_due(struct smc_conn *conn)
{
	struct smc_cdc_wnd w = {
		.size = conn->rmb->size,
		.update_limit = conn->rx_upd_limit,
		.peer_prod = conn->peer_prod_curs,
		.peer_write_blocked = conn->peer_write_blocked,
		.peer_upd_req = conn->peer_upd_req,
		.lazy = READ_ONCE(conn->lc.lgr->vx) & SMC_NEGO_VX_WIMM,
	};

	lockdep_assert_held(&conn->lock);
	if (conn->rx_cons == conn->rx_cons_sent)
		return false;
	smc_count_to_curs(conn->rx_cons_sent, w.size, &w.confirmed);
	smc_count_to_curs(conn->rx_cons, w.size, &w.cons);
	/* the wire's cursor is a stream count then */
	if (smc_cdc_abs(conn))
		smc_count_to_curs(conn->rx_prod, w.size, &w.peer_prod);
	return smc_cdc_cons_update_needed(&w);
}

/*
 * Leave the push to tx_work, in process context: no send slot was free,
 * or the link switched.
 */
void smc_cdc_defer(struct smc_conn *conn)
{
	conn->tx_blocked = true;
	queue_work(smc_wq, &conn->tx_work);
}

/*
 * May the next @n bytes go as WRITE WITH IMMEDIATE alone?  Only plain
 * data: nothing the peer must learn from a CDC message rides along.  A
 * writer short of room (more pending than fits) needs no write_blocked
 * flag with our own module as the reader: its window rule
 * (smc_cdc_cons_update_needed(), lazy) answers once three quarters of the
 * room it last announced are used, which a writer short of room has
 * passed.
 * conn->lock held.
 */
static bool smc_cdc_wimm_ok(struct smc_conn *conn, bool force_msg,
			    bool urg, u32 n)
{
	lockdep_assert_held(&conn->lock);
	if (!n || force_msg || urg || conn->tx_upd_req ||
	    conn->tx_cdc_next || conn->local_abort)
		return false;
	/* the end of writing is a flag on the message with the last byte */
	if (conn->tx_written + n == conn->tx_queued &&
	    (conn->local_done_writing || conn->local_closed))
		return false;
	if (READ_ONCE(conn->lc.lgr->vx) & SMC_NEGO_VX_WIMM)
		return !smc_hostile_wimm_off();
	return smc_hostile_wimm_force(conn);
}

/* Write @n bytes as @nw WRITE WITH IMMEDIATEs.  conn->lock held. */
static int smc_cdc_push_wimm(struct smc_conn *conn,
			     const struct smc_wr_write *w, unsigned int nw,
			     u32 n)
{
	int rc;

	rc = smc_wr_write_imm(conn->lc.link, w, nw, conn->peer_token,
			      conn->lc.token, conn->tx_written + n);
	if (rc == -EAGAIN)
		smc_cdc_defer(conn);
	if (rc)
		return rc;
	conn->tx_blocked = false;
	conn->tx_written += n;
	return 0;
}

/*
 * Push pending data and/or a CDC message.  conn->lock held, any context.
 * @force_msg sends a message even when no data moves (consumer update,
 * close flags).  Returns 0, -EAGAIN when it had to leave work to tx_work,
 * or another negative errno (link down).
 */
static int smc_cdc_push_once(struct smc_conn *conn, bool force_msg,
			     bool *more)
{
	struct smc_wr_write w[SMC_WR_MAX_WRITES];
	u8 buf[SMC_CDC_MSG_LEN];
	struct smc_cdc_msg m = {};
	unsigned int nw = 0;
	u64 pending, space;
	bool urg;
	u32 n;
	int rc;

	*more = false;
	if (conn->dead || !conn->attached)
		return -ENOLINK;
	/*
	 * A server learns the peer's RMB from the confirm, but the client
	 * may already send after its confirm: nothing to say until then.
	 */
	if (!conn->peer_rmb_size)
		return 0;
	force_msg |= conn->tx_msg_owed;
	if (conn->local_abort && !force_msg)
		return 0;
	/* an RMB move waits for the writes into the old RMB (grow.c) */
	pending = smc_grow_tx_hold(conn) ? 0 :
		  conn->tx_queued - conn->tx_written;
	space = conn->peer_rmb_size - (conn->tx_written - conn->peer_cons);
	n = min(pending, space);
	/* the urgent byte ends a message, as TCP's urgent pointer marks it */
	urg = conn->tx_urg_end > conn->tx_written;
	if (urg && conn->tx_written + n > conn->tx_urg_end) {
		n = conn->tx_urg_end - conn->tx_written;
		*more = true;
	}
	if (conn->local_abort || conn->peer_abort)
		n = 0;
	/*
	 * Nothing to write and no flag to say: a message only for a consumer
	 * cursor the window rule does not ask for yet would be a message on
	 * the wire for nothing (the next one carries the cursor anyway).
	 */
	if (!n && !force_msg && !smc_cdc_cons_due(conn))
		return 0;
	if (smc_cdc_wimm_ok(conn, force_msg, urg, n)) {
		u32 part = smc_cdc_build_writes(conn, conn->tx_written, n,
						SMC_CDC_WIMM_MAX, w, &nw);

		if (!part)
			return -EPROTO;
		if (part < n)
			*more = true;
		return smc_cdc_push_wimm(conn, w, nw, part);
	}
	if (n && smc_cdc_build_writes(conn, conn->tx_written, n, U32_MAX, w,
				      &nw) != n)
		return -EPROTO;

	m.seqno = conn->tx_seq + 1;
	m.token = conn->peer_token;
	smc_cdc_curs_out(conn, conn->tx_written + n, conn->peer_rmb_size,
			 &m.prod);
	smc_cdc_curs_out(conn, conn->rx_cons, conn->rmb->size, &m.cons);
	m.write_blocked = pending > n;
	m.cons_curs_upd_req = m.write_blocked || conn->tx_upd_req;
	m.urg_data_pending = urg;
	m.urg_data_present = urg && conn->tx_written + n == conn->tx_urg_end;
	if (conn->tx_written + n == conn->tx_queued) {
		m.peer_done_writing = conn->local_done_writing;
		m.peer_conn_closed = conn->local_closed;
	}
	m.peer_conn_abort = conn->local_abort;
	smc_cdc_encode(&m, buf, sizeof(buf));
	smc_hostile_cdc(conn, buf, w, nw);

	rc = smc_wr_write_send(conn->lc.link, w, nw, buf, sizeof(buf),
			       conn->lc.token, conn->tx_written + n, 0);
	if (rc == -EAGAIN) {
		conn->tx_msg_owed |= force_msg;
		smc_cdc_defer(conn);
		*more = false;
		return rc;
	}
	if (rc) {
		*more = false;
		return rc;
	}
	conn->tx_blocked = false;
	conn->tx_msg_owed = false;
	conn->tx_upd_req = false;
	conn->tx_cdc_next = false;
	conn->tx_seq = m.seqno;
	conn->tx_written += n;
	conn->rx_cons_sent = conn->rx_cons;
	if (m.urg_data_present)
		conn->tx_urg_end = 0;
	smc_hostile_cdc_sent(conn, buf);
	return 0;
}

/*
 * After a link switch (smc_conn_link_switch()): write the bytes from
 * tx_replay_from to tx_written again, on the new link, to the same places
 * in the peer's RMB (the peer may or may not have them: writing the same
 * bytes again changes nothing), and announce tx_written once more.  The
 * producer cursor never goes back, so a peer that counts bytes by cursor
 * deltas counts none twice.  conn->lock held, any context.
 */
static int smc_cdc_replay_locked(struct smc_conn *conn)
{
	struct smc_wr_write w[SMC_WR_MAX_WRITES];
	struct smc_link *link = conn->lc.link;
	u8 buf[SMC_CDC_MSG_LEN];
	struct smc_cdc_msg m = {};
	unsigned int nw;
	int rc;
	u32 n;

	if (conn->dead || !conn->attached)
		return -ENOLINK;
	if (!conn->peer_rmb_size ||
	    conn->tx_replay_from >= conn->tx_written) {
		conn->tx_replay = false;
		return 0;
	}
	/* at most one wrap per ring: fewer pieces than SMC_WR_MAX_WRITES */
	n = conn->tx_written - conn->tx_replay_from;
	if (smc_cdc_build_writes(conn, conn->tx_replay_from, n, U32_MAX, w,
				 &nw) != n)
		return -EPROTO;

	m.seqno = conn->tx_seq + 1;
	m.token = conn->peer_token;
	smc_cdc_curs_out(conn, conn->tx_written, conn->peer_rmb_size, &m.prod);
	smc_cdc_curs_out(conn, conn->rx_cons, conn->rmb->size, &m.cons);
	if (conn->tx_written == conn->tx_queued) {
		m.peer_done_writing = conn->local_done_writing;
		m.peer_conn_closed = conn->local_closed;
	}
	m.peer_conn_abort = conn->local_abort;
	smc_cdc_encode(&m, buf, sizeof(buf));
	rc = smc_wr_write_send(link, w, nw, buf, sizeof(buf), conn->lc.token,
			       conn->tx_written, 0);
	if (rc == -EAGAIN)
		smc_cdc_defer(conn);
	if (rc)
		return rc;
	conn->tx_seq = m.seqno;
	conn->rx_cons_sent = conn->rx_cons;
	conn->tx_replay = false;
	conn->tx_cdc_next = false;
	conn->tx_msg_owed = false;
	return 0;
}

/*
 * Push pending data and/or a CDC message.  conn->lock held, any context.
 * @force_msg sends a message even when no data moves (consumer update,
 * close flags).  Returns 0, -EAGAIN when it had to leave work to tx_work,
 * or another negative errno (link down).
 */
int smc_cdc_push_locked(struct smc_conn *conn, bool force_msg)
{
	bool more;
	int rc;

	/* an RMB move's messages go before anything else (grow.c) */
	if (conn->rx_offer_owed || conn->tx_move_pending ||
	    conn->tx_moved_owed) {
		rc = smc_grow_push_locked(conn);
		if (rc)
			return rc;
	}
	if (conn->tx_replay) {
		rc = smc_cdc_replay_locked(conn);
		if (rc)
			return rc;
	}
	do {
		rc = smc_cdc_push_once(conn, force_msg, &more);
		force_msg = false;
	} while (!rc && more);
	return rc;
}

void smc_cdc_push(struct smc_conn *conn, bool force_msg)
{
	spin_lock_bh(&conn->lock);
	smc_cdc_push_locked(conn, force_msg);
	spin_unlock_bh(&conn->lock);
}

/*
 * Only reached when every send slot of the link was busy (or after a link
 * switch).  Sleeps until a completion frees a slot and tries again, for a
 * bounded time; a link that stays congested that long is failing anyway.
 * Waiting for the completion rather than polling matters under load: the
 * CPU a poll burns is the one the RDMA device (rxe) needs to make progress.
 */
void smc_conn_tx_work(struct work_struct *work)
{
	struct smc_conn *conn = container_of(work, struct smc_conn, tx_work);
	unsigned long end = jiffies + 10 * HZ;
	struct smc_link *link;
	struct smc_wr *held;
	int rc;

	do {
		spin_lock_bh(&conn->lock);
		/* what was owed is folded in (tx_msg_owed) */
		rc = conn->tx_blocked ? smc_cdc_push_locked(conn, false) : 0;
		link = conn->lc.link;
		held = rc == -EAGAIN && link ? smc_wr_hold(link) : NULL;
		spin_unlock_bh(&conn->lock);
		if (rc != -EAGAIN) {
			/* an orphan may have waited for this push */
			smc_close_kick(smc_conn_sock(conn));
			return;		/* nothing held then */
		}
		if (held)
			smc_wr_slot_wait(held, clamp_t(long, end - jiffies, 1,
						       HZ));
		else
			usleep_range(50, 200);
	} while (time_before(jiffies, end));
	smc_sk_wake(&smc_conn_sock(conn)->sk, EPOLLOUT | EPOLLERR);
}

/* Abort on a protocol violation by the peer.  conn->lock held. */
void smc_cdc_violation(struct smc_conn *conn, const char *what)
{
	struct smc_sock *smc = smc_conn_sock(conn);

	net_warn_ratelimited("smc: token %u: %s, connection aborted\n",
			     conn->lc.token, what);
	conn->peer_abort = true;
	if (!conn->local_abort) {
		conn->local_abort = true;
		smc_cdc_push_locked(conn, true);
	}
	WRITE_ONCE(smc->sk.sk_err, ECONNABORTED);
}

/*
 * Data for a socket we closed: TCP answers with a reset.  conn->lock held;
 * returns the wake-up mask.
 */
static __poll_t smc_cdc_rx_after_close(struct smc_conn *conn)
{
	if (!conn->local_closed || conn->local_abort)
		return 0;
	conn->local_abort = true;
	smc_cdc_push_locked(conn, true);
	return EPOLLHUP;
}

/*
 * The peer moved the connection to another link and says which of its
 * messages it knows to have arrived (upstream's "failover validation"):
 * a sequence number we never saw means data is lost, and the connection
 * is aborted.  Otherwise the peer may now write again what we have, with
 * producer cursors behind the one we know (smc_cdc_rx_replayed()).
 * conn->lock held; returns the wake-up mask.
 */
static __poll_t smc_cdc_rx_validation(struct smc_conn *conn,
				      const struct smc_cdc_msg *msg)
{
	if ((conn->rx_seq_valid &&
	     smc_cdc_seq_before(conn->rx_seq, msg->seqno)) ||
	    (!conn->rx_seq_valid && msg->seqno)) {
		smc_cdc_violation(conn, "messages lost in a link failover");
		return EPOLLIN | EPOLLOUT | EPOLLERR;
	}
	conn->rx_failover = true;
	return 0;
}

/*
 * After a failover validation, a producer cursor behind the known one
 * (within one RMB) is the replay of bytes we have: take it as the known
 * one.  conn->lock held.
 */
static const struct smc_cdc_msg *
smc_cdc_rx_replayed(struct smc_conn *conn, const struct smc_cdc_msg *msg,
		    struct smc_cdc_msg *tmp)
{
	s64 d;

	if (!conn->rx_failover || msg->prod.count >= conn->rmb->size)
		return msg;
	d = smc_curs_delta(conn->rmb->size, &conn->peer_prod_curs, &msg->prod);
	if (d >= 0) {
		conn->rx_failover = false;	/* caught up */
		return msg;
	}
	if (d < -(s64)conn->rmb->size)
		return msg;
	*tmp = *msg;
	tmp->prod = conn->peer_prod_curs;
	return tmp;
}

/*
 * RMB growth: the cursors are stream counts (smc_curs_abs()), read near
 * the ones we know.  Neither may go back, except a producer cursor that
 * replays what we have after a failover validation.  The deltas go to
 * *@dprod and *@dcons; false on a violation.  conn->lock held.
 */
static bool smc_cdc_rx_abs(struct smc_conn *conn,
			   const struct smc_cdc_msg *msg, s64 *dprod,
			   s64 *dcons)
{
	u64 prod = smc_curs_abs_near(conn->rx_prod, &msg->prod);
	u64 cons = smc_curs_abs_near(conn->peer_cons, &msg->cons);

	if (prod < conn->rx_prod) {
		if (!conn->rx_failover ||
		    conn->rx_prod - prod > conn->rmb->size)
			return false;
		prod = conn->rx_prod;
	} else {
		conn->rx_failover = false;
	}
	if (cons < conn->peer_cons)
		return false;
	*dprod = prod - conn->rx_prod;
	*dcons = cons - conn->peer_cons;
	return true;
}

/* Softirq, read_lock(&lgr->conns_lock) held (see core.h). */
void smc_conn_cdc_rx(struct smc_lgr_conn *c, struct smc_link *link,
		     const struct smc_cdc_msg *msg)
{
	struct smc_conn *conn = smc_lc_conn(c);
	struct smc_sock *smc = smc_conn_sock(conn);
	struct smc_cdc_msg replayed;
	struct sock *sk = &smc->sk;
	__poll_t wake = 0;
	s64 dprod, dcons;
	bool was_closed;
	bool bad;

	spin_lock(&conn->lock);
	/* a connection still being set up has no RMB yet: nothing to say */
	if (!conn->attached || conn->peer_abort)
		goto out;
	if (msg->failover_validation) {
		conn->rx_link = link;
		wake = smc_cdc_rx_validation(conn, msg);
		goto out;
	}
	if (conn->rx_seq_valid && !smc_cdc_seq_before(conn->rx_seq,
						      msg->seqno))
		goto out;	/* a duplicate or old message */
	if (smc_cdc_abs(conn)) {
		bad = !smc_cdc_rx_abs(conn, msg, &dprod, &dcons) ||
		      (!conn->peer_rmb_size && dcons);
		if (bad) {
			smc_cdc_violation(conn, "cursor out of range");
			wake = EPOLLIN | EPOLLOUT | EPOLLERR;
			goto out;
		}
		goto window;
	}
	msg = smc_cdc_rx_replayed(conn, msg, &replayed);
	/*
	 * A server takes the peer's RMB from the confirm, which the client
	 * may follow with data before we have read it: until then nothing
	 * of ours can have been consumed.
	 */
	if (!conn->peer_rmb_size) {
		bad = msg->cons.wrap || msg->cons.count;
		dcons = 0;
	} else {
		bad = smc_curs_check(conn->peer_rmb_size,
				     &conn->peer_cons_curs, &msg->cons, NULL);
		dcons = bad ? 0 : smc_curs_delta(conn->peer_rmb_size,
						 &conn->peer_cons_curs,
						 &msg->cons);
	}
	if (bad || smc_curs_check(conn->rmb->size, &conn->peer_prod_curs,
				  &msg->prod, NULL)) {
		smc_cdc_violation(conn, "cursor out of range");
		wake = EPOLLIN | EPOLLOUT | EPOLLERR;
		goto out;
	}
	dprod = smc_curs_delta(conn->rmb->size, &conn->peer_prod_curs,
			       &msg->prod);
window:
	if (conn->rx_prod + dprod > conn->rx_cons_sent + conn->rmb->size ||
	    conn->peer_cons + dcons > conn->tx_written) {
		smc_cdc_violation(conn, "cursor beyond the window");
		wake = EPOLLIN | EPOLLOUT | EPOLLERR;
		goto out;
	}
	conn->rx_seq = msg->seqno;
	conn->rx_seq_valid = true;
	conn->rx_link = link;
	conn->peer_prod_curs = msg->prod;
	conn->peer_cons_curs = msg->cons;
	link->rx_bytes += dprod;
	conn->rx_prod += dprod;
	conn->peer_cons += dcons;
	conn->peer_write_blocked = msg->write_blocked;
	conn->peer_upd_req = msg->cons_curs_upd_req;
	was_closed = conn->peer_closed || conn->peer_done_writing;
	if (msg->peer_done_writing)
		conn->peer_done_writing = true;
	if (msg->peer_conn_closed)
		conn->peer_closed = true;
	/* the peer's end of writing is TCP's FIN */
	if (conn->peer_closed || conn->peer_done_writing)
		WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | RCV_SHUTDOWN);
	if (msg->peer_conn_abort) {
		conn->peer_abort = true;
		/* as TCP takes a reset: EPIPE after the peer's FIN */
		if (!conn->local_closed)
			WRITE_ONCE(sk->sk_err, was_closed &&
				   !conn->local_done_writing ? EPIPE :
				   ECONNRESET);
		WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);
		wake |= EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP;
	} else if (dprod) {
		wake |= smc_cdc_rx_after_close(conn);
	}
	if (msg->urg_data_present && dprod) {
		/* the last byte this message produced is the urgent one */
		struct smc_buf *ring;
		u32 pos, contig;

		conn->rx_urg_pos = conn->rx_prod - 1;
		ring = smc_grow_ring(conn, conn->rx_urg_pos, &pos, &contig);
		/* the peer's RDMA write put it there: the CPU's turn */
		smc_wr_buf_sync(link->lgr, ring, pos, 1, true);
		conn->rx_urg_byte = ((u8 *)ring->cpu_addr)[pos];
		smc_wr_buf_sync(link->lgr, ring, pos, 1, false);
		conn->rx_urg_state = SMC_URG_VALID;
		wake |= EPOLLPRI;
	}
	if (dprod || (!was_closed && (conn->peer_closed ||
				      conn->peer_done_writing)))
		wake |= EPOLLIN | EPOLLRDNORM;
	if (conn->peer_closed)
		wake |= EPOLLOUT;	/* writers must see EPIPE */
	if (dprod)
		smc_grow_rx_check(conn);

	/* The peer made room: move what waits in the send buffer. */
	if (dcons || conn->tx_blocked)
		smc_cdc_push_locked(conn, false);
	/* The peer waits for room we have made but not announced. */
	if (smc_cdc_cons_due(conn))
		smc_cdc_push_locked(conn, true);
out:
	spin_unlock(&conn->lock);
	if (wake & EPOLLPRI)
		sk_send_sigurg(sk);
	if (wake)
		smc_sk_wake(sk, wake);
	/* an orphaned connection waits for exactly such news */
	if (sock_flag(sk, SOCK_DEAD))
		smc_close_kick(smc);
}

/* Softirq, read_lock(&lgr->conns_lock) held (see core.h). */
void smc_conn_wimm_rx(struct smc_lgr_conn *c, struct smc_link *link,
		      u32 len)
{
	struct smc_conn *conn = smc_lc_conn(c);
	struct smc_sock *smc = smc_conn_sock(conn);
	struct sock *sk = &smc->sk;
	__poll_t wake = 0;

	spin_lock(&conn->lock);
	if (!conn->attached || conn->peer_abort)
		goto out;
	if (!(READ_ONCE(c->lgr->vx) & SMC_NEGO_VX_WIMM)) {
		smc_cdc_violation(conn, "write with immediate not agreed");
		wake = EPOLLIN | EPOLLOUT | EPOLLERR;
		goto out;
	}
	/* overtaken by a link switch: the CDC on the new link counted it */
	if (conn->rx_link && conn->rx_link != link)
		goto out;
	if (smc_wimm_check(conn->rx_prod, conn->rx_cons_sent,
			   conn->rmb->size, len)) {
		smc_cdc_violation(conn, "write with immediate beyond the window");
		wake = EPOLLIN | EPOLLOUT | EPOLLERR;
		goto out;
	}
	conn->rx_link = link;
	conn->rx_prod += len;
	smc_cdc_curs_out(conn, conn->rx_prod, conn->rmb->size,
			 &conn->peer_prod_curs);
	smc_grow_rx_check(conn);
	link->rx_bytes += len;
	/* plain data: the writer was neither short of room nor asking */
	conn->peer_write_blocked = false;
	conn->peer_upd_req = false;
	wake = EPOLLIN | EPOLLRDNORM | smc_cdc_rx_after_close(conn);
out:
	spin_unlock(&conn->lock);
	if (wake)
		smc_sk_wake(sk, wake);
	if (sock_flag(sk, SOCK_DEAD))
		smc_close_kick(smc);
}

/* Softirq, read_lock(&lgr->conns_lock) held. */
void smc_conn_tx_done(struct smc_lgr_conn *c, u64 cookie, int status)
{
	struct smc_conn *conn = smc_lc_conn(c);
	struct smc_sock *smc = smc_conn_sock(conn);
	bool done = false, wake = false;

	spin_lock(&conn->lock);
	if (cookie & SMC_GROW_COOKIE) {
		smc_grow_tx_done(conn, cookie, status);
	} else if (!status && cookie > conn->tx_done) {
		conn->tx_done = cookie;
		done = true;
		wake = conn->tx_want_wake;
		conn->tx_want_wake = false;
		/*
		 * what autocorking held back while this was in flight, or
		 * an RMB move that waited for this write
		 */
		if ((conn->tx_queued != conn->tx_written && !conn->tx_corked &&
		     !smc_tx_autocork(conn)) || smc_grow_tx_hold(conn))
			smc_cdc_push_locked(conn, false);
	}
	spin_unlock(&conn->lock);
	/* an edge-triggered EPOLLOUT sees a new edge only after no room */
	if (wake)
		smc_sk_wake(&smc->sk, EPOLLOUT | EPOLLWRNORM);
	if (done && sock_flag(&smc->sk, SOCK_DEAD))
		smc_close_kick(smc);
}

/* The link group is gone under an SMC-R socket: no more data either way. */
static void smc_conn_mark_gone(struct smc_conn *conn)
{
	struct smc_sock *smc = smc_conn_sock(conn);

	lockdep_assert_held(&conn->lock);
	if (!conn->peer_closed && !conn->peer_abort && !conn->local_abort &&
	    !conn->local_closed)
		WRITE_ONCE(smc->sk.sk_err, ECONNABORTED);
	WRITE_ONCE(smc->sk.sk_shutdown, SHUTDOWN_MASK);
}

/*
 * The handshake ended in SMC-R.  A link group that ended while it ran
 * left the connection dead but the socket unmarked (the handshake might
 * still have fallen back to an intact TCP stream): mark it now.
 */
void smc_conn_hs_done(struct smc_conn *conn)
{
	struct smc_sock *smc = smc_conn_sock(conn);
	bool dead;

	spin_lock_bh(&conn->lock);
	conn->hs_done = true;
	dead = conn->dead;
	if (dead)
		smc_conn_mark_gone(conn);
	spin_unlock_bh(&conn->lock);
	if (dead)
		smc_sk_wake(&smc->sk, EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP);
}

/* Under write_lock_bh(&lgr->conns_lock). */
void smc_conn_lgr_gone(struct smc_lgr_conn *c)
{
	struct smc_conn *conn = smc_lc_conn(c);
	struct smc_sock *smc = smc_conn_sock(conn);

	spin_lock(&conn->lock);
	conn->dead = true;
	/*
	 * A handshake still running learns it from its own link waits and
	 * declines; its socket is not the application's SMC-R socket yet:
	 * no error may show on it (a non-blocking connect polls for one).
	 */
	if (conn->hs_done)
		smc_conn_mark_gone(conn);
	spin_unlock(&conn->lock);
	smc_sk_wake(&smc->sk, EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP);
	if (sock_flag(&smc->sk, SOCK_DEAD))
		smc_close_kick(smc);
}

/* Under write_lock_bh(&lgr->conns_lock) (core.h); lgr.c moved the count. */
void smc_conn_link_switch(struct smc_lgr_conn *c, struct smc_link *to)
{
	struct smc_conn *conn = smc_lc_conn(c);
	u64 from;

	spin_lock(&conn->lock);
	WRITE_ONCE(c->link, to);
	/* a CDC message on the new link, at once: tx_work owes it */
	conn->tx_cdc_next = true;
	conn->tx_msg_owed = true;
	/* and before it, what an unfinished RMB move may have lost */
	smc_grow_link_switch(conn);
	/* what the peer consumed surely arrived; completed writes did too */
	from = max(conn->tx_done, conn->peer_cons);
	if (from < conn->tx_written) {
		conn->tx_replay = true;
		conn->tx_replay_from = from;
	}
	/* push whatever waits, on the new link, from process context */
	if (conn->attached && !conn->dead)
		smc_cdc_defer(conn);
	spin_unlock(&conn->lock);
}
