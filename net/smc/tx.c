// SPDX-License-Identifier: GPL-2.0
/*
 * sendmsg() on an SMC-R connection: copy into the send buffer, then push.
 *
 * The application thread (serialised by the socket lock) is the only one
 * writing into the free part of the send buffer, so the copy runs without
 * conn->lock; the lock is taken only to publish the new bytes and push.
 */
#include <linux/tcp.h>
#include <linux/uio.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "smc.h"
#include "conn.h"
#include "sysctl.h"
#include "trace.h"

/* How long data may stay corked, TCP's ceiling for TCP_CORK. */
#define SMC_TX_CORK_TIME	(HZ / 5)

static void smc_tx_cork_expired(struct timer_list *t)
{
	struct smc_conn *conn = timer_container_of(conn, t, cork_timer);

	spin_lock_bh(&conn->lock);
	conn->tx_corked = false;
	smc_cdc_push_locked(conn, false);
	spin_unlock_bh(&conn->lock);
}

void smc_tx_init(struct smc_conn *conn)
{
	timer_setup(&conn->cork_timer, smc_tx_cork_expired, 0);
}

/* TCP_CORK is set on the companion socket, where setsockopt puts it. */
static bool smc_tx_user_corked(struct smc_sock *smc)
{
	return tcp_sk(smc->clcsock->sk)->nonagle & TCP_NAGLE_CORK;
}

/* TCP_NODELAY is set on the companion socket too. */
static bool smc_tx_user_nodelay(struct smc_sock *smc)
{
	return tcp_sk(smc->clcsock->sk)->nonagle & TCP_NAGLE_OFF;
}

/*
 * Autocorking: while a message with data is still in
 * flight, small writes wait for its completion (which pushes them, see
 * smc_conn_tx_done()) and go out together.  An RDMA write completes only
 * when the peer has acknowledged it, a round trip, so this is Nagle's
 * rule more than TCP's autocorking (which waits for the local device
 * only), and TCP_NODELAY turns it off as it turns off Nagle.
 */
bool smc_tx_autocork(struct smc_conn *conn)
{
	struct smc_sock *smc = smc_conn_sock(conn);
	u32 limit = READ_ONCE(smc_net_cfg(sock_net(&smc->sk))->autocorking_size);

	lockdep_assert_held(&conn->lock);
	return limit && !READ_ONCE(conn->tx_nodelay) &&
	       conn->tx_written != conn->tx_done &&
	       conn->tx_queued - conn->tx_written < min(limit,
							conn->sndbuf->size / 2);
}

/* setsockopt(TCP_CORK 0 or TCP_NODELAY): corked data goes now. */
void smc_tx_uncork(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;

	if (smc_tx_user_corked(smc))
		return;
	spin_lock_bh(&conn->lock);
	if (conn->tx_corked) {
		conn->tx_corked = false;
		smc_cdc_push_locked(conn, false);
	}
	spin_unlock_bh(&conn->lock);
}

static u32 smc_tx_space(struct smc_conn *conn)
{
	return conn->sndbuf->size - (u32)(conn->tx_queued - conn->tx_done);
}

/* Nothing more may be sent (smc_tx_error() says why). */
static bool smc_tx_stopped(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;

	lockdep_assert_held(&conn->lock);
	return READ_ONCE(sk->sk_err) || (sk->sk_shutdown & SEND_SHUTDOWN) ||
	       conn->local_done_writing || conn->local_abort ||
	       conn->tx_reset || conn->peer_abort || conn->dead;
}

/*
 * TCP's rule: a pending error is reported (once), otherwise a socket that
 * cannot send any more gives EPIPE.
 */
static int smc_tx_error(struct smc_sock *smc)
{
	lockdep_assert_held(&smc->conn.lock);
	if (smc_tx_stopped(smc))
		return sock_error(&smc->sk) ?: -EPIPE;
	return 0;
}

/* No RDMA write reads the send buffer, none will again. */
static bool smc_tx_idle(struct smc_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	return conn->tx_done == conn->tx_queued && !conn->tx_replay;
}

/* Everything queued is written and done, or the connection broke. */
static bool smc_tx_drained(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;

	return READ_ONCE(conn->tx_done) == READ_ONCE(conn->tx_queued) ||
	       READ_ONCE(conn->dead) || READ_ONCE(conn->peer_abort) ||
	       READ_ONCE(smc->sk.sk_err);
}

/*
 * Wait, at most *@timeo (reduced by the time spent), until
 * smc_tx_drained().  A completion wakes the writer once per
 * tx_want_wake, and one that leaves more in flight is not the end of the
 * wait: ask again after each wake, and be on the wait queue before
 * asking, so that no completion goes unheard.  Sock lock held; sleeps.
 */
void smc_tx_wait_done(struct smc_sock *smc, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	bool over;

	sock_owned_by_me(sk);
	add_wait_queue(sk_sleep(sk), &wait);
	while (*timeo && !signal_pending(current)) {
		spin_lock_bh(&conn->lock);
		over = smc_tx_drained(smc);
		if (!over)
			conn->tx_want_wake = true;
		spin_unlock_bh(&conn->lock);
		if (over)
			break;
		sk_wait_event(sk, timeo, smc_tx_drained(smc), &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
}

/*
 * A connection starts with the smallest send buffer and gets the size its
 * socket asks for (net.smc.wmem, SO_SNDBUF) at the first write that does
 * not fit.  The buffer can change only while nothing is in flight: no RDMA
 * write reads it then, and a link switch has nothing to write again (it
 * replays from tx_done at the earliest).  So a blocking write first waits
 * for what it already sent, one completion, once in the connection's
 * life.  Idle and request/response connections keep 16 KiB.  Sock lock
 * held; sleeps.
 */
static void smc_tx_grow(struct smc_sock *smc, size_t want, long *timeo)
{
	struct smc_conn *conn = &smc->conn;
	struct smc_buf *buf, *old = NULL;
	struct sock *sk = &smc->sk;
	struct mem_cgroup *memcg;
	bool idle, busy;

	if (conn->sndbuf->comp >= conn->sndbuf_comp || !conn->lc.lgr)
		return;
	spin_lock_bh(&conn->lock);
	idle = smc_tx_idle(conn);
	/* in flight and not held back: a completion will come */
	busy = !idle && conn->tx_written == conn->tx_queued;
	/* errors are smc_tx_wait()'s to report */
	if (smc_tx_space(conn) >= want || smc_tx_stopped(smc))
		idle = false, busy = false;
	spin_unlock_bh(&conn->lock);
	if (busy) {
		smc_tx_wait_done(smc, timeo);
		spin_lock_bh(&conn->lock);
		idle = smc_tx_idle(conn) && !conn->dead;
		spin_unlock_bh(&conn->lock);
	}
	if (!idle)
		return;
	/* one attempt: a smaller buffer than asked for stays */
	memcg = smc_memcg_enter(sk);
	buf = smc_buf_get(conn->lc.lgr, false, conn->sndbuf_comp);
	smc_memcg_leave(memcg);
	conn->sndbuf_comp = conn->sndbuf->comp;
	if (!buf)
		return;
	if (buf->comp <= conn->sndbuf->comp) {
		smc_buf_put(conn->lc.lgr, buf);
		return;
	}
	spin_lock_bh(&conn->lock);
	/* tx_queued is ours; tx_done cannot pass it */
	if (smc_tx_idle(conn)) {
		old = conn->sndbuf;
		conn->sndbuf = buf;
		buf = NULL;
	}
	spin_unlock_bh(&conn->lock);
	smc_buf_put(conn->lc.lgr, old ?: buf);
}

/*
 * The peer has closed: TCP would answer data sent now
 * with a reset, which discards what is unsent and gives EPIPE.  Play that
 * reset here rather than wait for one: a peer running another
 * implementation never aborts (and Linux 6.12's smc.ko misbehaves when it
 * gets an abort while closing).  The peer still gets our close later.
 */
static void smc_tx_peer_gone(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;

	lockdep_assert_held(&conn->lock);
	if (!conn->peer_closed || conn->peer_abort || conn->tx_reset)
		return;
	conn->tx_reset = true;
	conn->tx_queued = conn->tx_written;
	conn->tx_urg_end = 0;
	WRITE_ONCE(sk->sk_err, EPIPE);
	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);
	smc_sk_wake(sk, EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP);
}

/* Wait until the send buffer has room or the connection broke. */
static int smc_tx_wait(struct smc_sock *smc, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	int rc = 0;

	add_wait_queue(sk_sleep(sk), &wait);
	for (;;) {
		spin_lock_bh(&conn->lock);
		rc = smc_tx_error(smc);
		if (!rc && smc_tx_space(conn))
			rc = 1;
		else if (!rc)
			smc_tx_peer_gone(smc);	/* room would never come */
		if (!rc)
			conn->tx_want_wake = true;
		spin_unlock_bh(&conn->lock);
		if (!rc && READ_ONCE(conn->tx_reset))
			continue;	/* report the reset */
		if (rc)
			break;
		if (!*timeo) {
			rc = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			rc = sock_intr_errno(*timeo);
			break;
		}
		sk_wait_event(sk, timeo,
			      READ_ONCE(conn->tx_done) != conn->tx_queued -
			      conn->sndbuf->size || READ_ONCE(conn->dead) ||
			      READ_ONCE(sk->sk_err) ||
			      READ_ONCE(conn->peer_closed) ||
			      READ_ONCE(conn->peer_abort), &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	return rc > 0 ? 0 : rc;
}

int smc_tx_sendmsg(struct smc_sock *smc, struct msghdr *msg, size_t len)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	size_t copied = 0;
	u32 size, pos, n, first;
	long timeo;
	int rc = 0;

	lock_sock(sk);
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	/* read here, where the companion socket is surely attached */
	WRITE_ONCE(conn->tx_nodelay, smc_tx_user_nodelay(smc));
	while (copied < len) {
		smc_tx_grow(smc, len - copied, &timeo);
		rc = smc_tx_wait(smc, &timeo);
		if (rc)
			break;
		size = conn->sndbuf->size;
		spin_lock_bh(&conn->lock);
		n = min_t(size_t, smc_tx_space(conn), len - copied);
		div_u64_rem(conn->tx_queued, size, &pos);
		spin_unlock_bh(&conn->lock);

		first = min(n, size - pos);
		if (copy_from_iter(conn->sndbuf->cpu_addr + pos, first,
				   &msg->msg_iter) != first ||
		    (n > first &&
		     copy_from_iter(conn->sndbuf->cpu_addr, n - first,
				    &msg->msg_iter) != n - first)) {
			rc = -EFAULT;
			break;
		}
		spin_lock_bh(&conn->lock);
		conn->tx_queued += n;
		rc = 0;
		/* the bytes count as sent, as TCP's do before the reset */
		smc_tx_peer_gone(smc);
		if ((msg->msg_flags & MSG_OOB) && copied + n == len)
			conn->tx_urg_end = conn->tx_queued;
		if (copied + n == len && conn->tx_queued - conn->tx_done < size &&
		    !(msg->msg_flags & MSG_OOB) &&
		    ((msg->msg_flags & MSG_MORE) || smc_tx_user_corked(smc))) {
			/* held back until more comes, at most 200 ms */
			if (!conn->tx_corked) {
				conn->tx_corked = true;
				mod_timer(&conn->cork_timer,
					  jiffies + SMC_TX_CORK_TIME);
			}
		} else if (copied + n == len && !(msg->msg_flags & MSG_OOB) &&
			   smc_tx_autocork(conn)) {
			conn->tx_corked = false;
		} else {
			conn->tx_corked = false;
			rc = smc_cdc_push_locked(conn, false);
		}
		spin_unlock_bh(&conn->lock);
		copied += n;
		if (rc && rc != -EAGAIN)
			break;
		rc = 0;
	}
	trace_smc_tx_sendmsg(smc, copied);
	release_sock(sk);
	smc_stats_xfer(sock_net(sk), true, len, copied ?: rc);
	if (copied)
		return copied;
	if (rc == -EPIPE && !(msg->msg_flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	return rc;
}
