// SPDX-License-Identifier: GPL-2.0
/*
 * recvmsg() and poll() on an SMC-R connection.
 *
 * Data is read straight out of the RMB, where the peer's RDMA WRITEs put
 * it; the CDC message announcing it arrived after the data (RC ordering),
 * and rx_prod is only advanced under conn->lock when that message is
 * taken.  Consuming advances rx_cons; the peer learns about the room made
 * by a consumer update, sent when the window rule says it matters.
 */
#include <linux/uio.h>
#include <linux/poll.h>
#include <asm/ioctls.h>
#include <net/sock.h>
#include "smc.h"
#include "conn.h"
#include "testhooks.h"
#include "trace.h"

/* conn->lock held: nothing more will arrive. */
static bool smc_rx_eof(struct smc_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	return conn->peer_done_writing || conn->peer_closed ||
	       conn->peer_abort || conn->dead;
}

static u32 smc_rx_avail(struct smc_conn *conn)
{
	return (u32)(conn->rx_prod - conn->rx_cons);
}

/*
 * conn->lock held.  Is an urgent byte ahead of (or at) stream position
 * @pos?  Reads stop at it, as TCP's stop at the urgent mark.
 */
static bool smc_rx_urg_ahead(struct smc_conn *conn, u64 pos)
{
	lockdep_assert_held(&conn->lock);
	return conn->rx_urg_state != SMC_URG_NONE && conn->rx_urg_pos >= pos &&
	       conn->rx_urg_pos < conn->rx_prod;
}

/* Readable bytes for poll and SIOCINQ, as TCP counts them. */
static u32 smc_rx_readable(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;

	if (!sock_flag(&smc->sk, SOCK_URGINLINE) &&
	    smc_rx_urg_ahead(conn, conn->rx_cons))
		return conn->rx_urg_pos - conn->rx_cons;
	return smc_rx_avail(conn);
}

/*
 * conn->lock held.  How much a normal read may take from the stream
 * position rx_cons + *@peek_off, by TCP's urgent mark rules: a read stops
 * before the urgent byte (*@stop when it copied something already); one
 * that starts at the mark steps over the byte unless SO_OOBINLINE.
 */
static u32 smc_rx_span(struct smc_sock *smc, u64 *peek_off, bool peek,
		       size_t copied, bool *stop)
{
	struct smc_conn *conn = &smc->conn;
	u64 pos = conn->rx_cons + *peek_off;
	u32 avail = conn->rx_prod - pos;

	lockdep_assert_held(&conn->lock);
	*stop = false;
	if (!smc_rx_urg_ahead(conn, pos))
		return avail;
	if (conn->rx_urg_pos != pos)
		return conn->rx_urg_pos - pos;
	if (copied) {
		*stop = true;
		return 0;
	}
	if (sock_flag(&smc->sk, SOCK_URGINLINE))
		return avail;
	if (peek) {
		(*peek_off)++;
	} else {
		conn->rx_cons++;
		if (conn->rx_urg_state == SMC_URG_VALID)
			conn->rx_urg_state = SMC_URG_NONE;
	}
	return avail - 1;
}

/* recv(MSG_OOB): the urgent byte, once. */
static int smc_rx_recv_urg(struct smc_sock *smc, struct msghdr *msg,
			   size_t len, int flags)
{
	struct smc_conn *conn = &smc->conn;
	int rc = -EINVAL;
	u8 byte;

	spin_lock_bh(&conn->lock);
	if (!sock_flag(&smc->sk, SOCK_URGINLINE) &&
	    conn->rx_urg_state == SMC_URG_VALID) {
		byte = conn->rx_urg_byte;
		if (!(flags & MSG_PEEK))
			conn->rx_urg_state = SMC_URG_READ;
		rc = 1;
	} else if (conn->rx_urg_state == SMC_URG_NONE && !smc_rx_eof(conn) &&
		   !(smc->sk.sk_shutdown & RCV_SHUTDOWN)) {
		rc = -EINVAL;
	}
	spin_unlock_bh(&conn->lock);
	if (rc < 0)
		return rc;
	if (len && copy_to_iter(&byte, 1, &msg->msg_iter) != 1)
		return -EFAULT;
	if (!len)
		msg->msg_flags |= MSG_TRUNC;
	msg->msg_flags |= MSG_OOB;
	return len ? 1 : 0;
}

/*
 * Probing a silent peer.  Linux 6.12's smc.ko keeps data sent with
 * MSG_MORE (or under TCP_CORK) in its send buffer until the application
 * sends again, where TCP sends it after 200 ms at the latest: a reader
 * waiting for such a reply (a request answered with MSG_MORE) waits for
 * ever.  That peer does push what it holds when a CDC message with the
 * consumer-cursor-update-request flag arrives, so a reader that waited
 * this long without news sends one, again after twice the time, up to a
 * ceiling (an idle connection costs one small message per ceiling).  Our
 * own module answers such a request only when it owes a consumer update.
 */
#define SMC_RX_PROBE_FIRST	(HZ / 5)
#define SMC_RX_PROBE_MAX	(64 * SMC_RX_PROBE_FIRST)

struct smc_rx_probe {
	unsigned long at;		/* jiffies of the next probe, 0: none */
	long gap;			/* wait after that one */
};

static void smc_rx_probe_reset(struct smc_rx_probe *p)
{
	p->at = 0;
	p->gap = SMC_RX_PROBE_FIRST;
}

/* Ask the peer for a CDC message; it pushes what it holds back. */
static void smc_rx_probe_send(struct smc_conn *conn)
{
	spin_lock_bh(&conn->lock);
	if (!smc_rx_eof(conn) && !conn->local_abort) {
		conn->tx_upd_req = true;
		smc_cdc_push_locked(conn, true);
	}
	spin_unlock_bh(&conn->lock);
}

/* What a waiting reader wakes up for. */
static bool smc_rx_news(struct smc_sock *smc, u64 peek_off)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;

	return READ_ONCE(conn->rx_prod) != READ_ONCE(conn->rx_cons) + peek_off ||
	       READ_ONCE(conn->peer_done_writing) ||
	       READ_ONCE(conn->peer_closed) || READ_ONCE(conn->peer_abort) ||
	       READ_ONCE(conn->dead) || READ_ONCE(sk->sk_err) ||
	       (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN);
}

/*
 * Wait for news for at most *@timeo (which is reduced by the time spent),
 * probing the peer when its time has come (see SMC_RX_PROBE_FIRST).
 * Socket lock held; sk_wait_event() drops it while sleeping.
 */
static void smc_rx_wait(struct smc_sock *smc, long *timeo, u64 peek_off,
			struct smc_rx_probe *p, struct wait_queue_entry *wait)
{
	struct sock *sk = &smc->sk;
	long slice, left;

	sock_owned_by_me(sk);
	if (!p->at) {
		p->at = jiffies + p->gap;
	} else if (time_after_eq(jiffies, p->at)) {
		smc_rx_probe_send(&smc->conn);
		p->at = jiffies + p->gap;
		p->gap = min_t(long, 2 * p->gap, SMC_RX_PROBE_MAX);
	}
	slice = min_t(long, *timeo, p->at - jiffies);
	left = slice;
	sk_wait_event(sk, &left, smc_rx_news(smc, peek_off), wait);
	if (*timeo != MAX_SCHEDULE_TIMEOUT)
		*timeo -= slice - left;
}

/*
 * The CPU reads @n bytes of @ring from @pos on, which the peer wrote by
 * RDMA: take them from the devices (@for_cpu) before, give them back
 * after.
 */
static void smc_rx_sync(struct smc_conn *conn, struct smc_buf *ring, u32 pos,
			u32 n, bool for_cpu)
{
	struct smc_lgr *lgr = READ_ONCE(conn->lc.lgr);

	if (lgr)
		smc_wr_buf_sync(lgr, ring, pos, n, for_cpu);
}

int smc_rx_recvmsg(struct smc_sock *smc, struct msghdr *msg, size_t len,
		   int flags)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	struct smc_buf *ring = NULL, *old;
	struct smc_rx_probe probe;
	size_t copied = 0;
	u64 peek_off = 0;
	u32 avail, pos, n, contig;
	int target, rc = 0;
	bool stop, eof;
	long timeo;

	if (flags & MSG_OOB)
		return smc_rx_recv_urg(smc, msg, len, flags);
	if (flags & MSG_ERRQUEUE)
		return sock_recv_errqueue(sk, msg, len, SOL_IP, IP_RECVERR);
	lock_sock(sk);
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	target = sock_rcvlowat(sk, flags & MSG_WAITALL, len);
	smc_rx_probe_reset(&probe);
	add_wait_queue(sk_sleep(sk), &wait);
	/* len 0 still waits for data, as TCP's target of one byte does */
	while (copied < len || (!len && !rc)) {
		spin_lock_bh(&conn->lock);
		avail = smc_rx_span(smc, &peek_off, flags & MSG_PEEK, copied,
				    &stop);
		if (stop) {
			spin_unlock_bh(&conn->lock);
			break;
		}
		/*
		 * One piece at a time, contiguous in one RMB: it wraps at
		 * the RMB's end, and after an RMB move (grow.c) the bytes
		 * before the move are in the old one.
		 */
		if (avail) {
			ring = smc_grow_ring(conn, conn->rx_cons + peek_off,
					     &pos, &contig);
			avail = min(avail, contig);
		}
		/*
		 * The end of the stream counts only together with the bytes
		 * seen here: the peer's last data and its end may both come
		 * in (under conn->lock) between this look and a later one,
		 * and then the data is read first.
		 */
		eof = !avail && (smc_rx_eof(conn) ||
				 (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN));
		spin_unlock_bh(&conn->lock);
		if (!avail)
			smc_faultinj_rx_eof_delay();
		if (avail && !len)
			break;
		if (avail) {
			n = min_t(size_t, avail, len - copied);
			smc_rx_sync(conn, ring, pos, n, true);
			if (copy_to_iter(ring->cpu_addr + pos, n,
					 &msg->msg_iter) != n) {
				smc_rx_sync(conn, ring, pos, n, false);
				rc = -EFAULT;
				break;
			}
			smc_rx_sync(conn, ring, pos, n, false);
			copied += n;
			smc_rx_probe_reset(&probe);	/* the peer is not silent */
			if (flags & MSG_PEEK) {
				peek_off += n;
				continue;
			}
			spin_lock_bh(&conn->lock);
			conn->rx_cons += n;
			/* tell the peer when the window rule asks for it */
			if (smc_cdc_cons_due(conn))
				smc_cdc_push_locked(conn, true);
			old = smc_grow_take_old(conn);
			spin_unlock_bh(&conn->lock);
			if (old)
				smc_buf_put(conn->lc.lgr, old);
			continue;
		}
		if (copied >= target)
			break;
		if (sk->sk_err) {
			rc = sock_error(sk);
			break;
		}
		if (eof)
			break;
		if (!timeo) {
			rc = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			rc = sock_intr_errno(timeo);
			break;
		}
		smc_rx_wait(smc, &timeo, peek_off, &probe, &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	trace_smc_rx_recvmsg(smc, copied);
	release_sock(sk);
	smc_stats_xfer(sock_net(sk), false, len, copied ?: rc);
	return copied ?: rc;
}

/* TCP's poll rules, on sk_shutdown kept as TCP keeps it (see cdc.c). */
__poll_t smc_rx_poll(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	u8 shutdown = READ_ONCE(sk->sk_shutdown);
	__poll_t mask = 0;

	if (shutdown == SHUTDOWN_MASK)
		mask |= EPOLLHUP;
	if (shutdown & RCV_SHUTDOWN)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	spin_lock_bh(&conn->lock);
	if (smc_rx_readable(smc) >= max(READ_ONCE(sk->sk_rcvlowat), 1))
		mask |= EPOLLIN | EPOLLRDNORM;
	if ((shutdown & SEND_SHUTDOWN) ||
	    conn->tx_queued - conn->tx_done < conn->sndbuf->size)
		mask |= EPOLLOUT | EPOLLWRNORM;
	else
		conn->tx_want_wake = true;
	if (conn->rx_urg_state == SMC_URG_VALID)
		mask |= EPOLLPRI;
	spin_unlock_bh(&conn->lock);
	return mask;
}

/* SIOCINQ / SIOCOUTQ / SIOCOUTQNSD */
int smc_rx_ioctl(struct smc_sock *smc, unsigned int cmd, int *val)
{
	struct smc_conn *conn = &smc->conn;

	spin_lock_bh(&conn->lock);
	switch (cmd) {
	case SIOCINQ:
		*val = smc_rx_readable(smc);
		break;
	case SIOCATMARK:
		*val = conn->rx_urg_state != SMC_URG_NONE &&
		       conn->rx_urg_pos == conn->rx_cons;
		break;
	case SIOCOUTQ:
		*val = conn->tx_queued - conn->tx_done;
		break;
	case SIOCOUTQNSD:
		*val = conn->tx_queued - conn->tx_written;
		break;
	default:
		spin_unlock_bh(&conn->lock);
		return -ENOIOCTLCMD;
	}
	spin_unlock_bh(&conn->lock);
	return 0;
}
