// SPDX-License-Identifier: GPL-2.0
/*
 * Closing an SMC-R connection.
 *
 * The peer learns about our shutdown(SHUT_WR) from the "done writing"
 * flag and about close() from the "connection closed" flag; both travel in
 * the CDC message that announces the last data, so they never overtake
 * it.  close() with unread data, or with SO_LINGER and a zero timeout,
 * aborts instead, as TCP sends a reset.
 *
 * close() returns at once (after SO_LINGER's wait if set); the connection
 * then lives on, orphaned, until its data is written and the peer has
 * closed too, or at most SMC_CLOSE_ORPHAN_TIME (like tcp_fin_timeout),
 * after which it is aborted.  Only then are its buffers returned to the
 * link group, so a peer still writing never lands in a buffer that
 * another connection owns.
 *
 * Such lingering orphans pin their buffers, and a peer that never closes
 * keeps them for the whole orphan time: a namespace holds at most
 * net.smc.smcr_max_orphans of them; past that close() aborts, as TCP
 * resets past tcp_max_orphans.  They also count in TCP's orphan count
 * (/proc/net/sockstat, and TCP's own tcp_max_orphans check), since each
 * stands for a TCP connection that the application closed.
 */
#include <linux/net.h>
#include <linux/percpu.h>
#include <net/netns/generic.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "smc.h"
#include "conn.h"
#include "sysctl.h"

#define SMC_CLOSE_ORPHAN_TIME	(60 * HZ)
#define SMC_CLOSE_ABORT_WAIT	(2 * HZ)

struct smc_close_net {
	atomic_t orphans;		/* conns with orphan_counted set */
};

static unsigned int smc_close_net_id __read_mostly;

static atomic_t *smc_close_orphans(const struct net *net)
{
	struct smc_close_net *cn = net_generic(net, smc_close_net_id);

	return &cn->orphans;
}

/* Count a lingering orphan, unless its namespace has too many already. */
static bool smc_close_orphan_get(struct smc_sock *smc)
{
	const struct net *net = sock_net(&smc->sk);
	int max = READ_ONCE(smc_net_cfg(net)->smcr_max_orphans);
	atomic_t *orphans = smc_close_orphans(net);

	lockdep_assert_held(&smc->conn.lock);
	if (atomic_inc_return(orphans) > max) {
		atomic_dec(orphans);
		return false;
	}
	smc->conn.orphan_counted = true;
	smc_tcp_orphan_count_add(1);
	return true;
}

static void smc_close_orphan_put(struct smc_sock *smc)
{
	if (!smc->conn.orphan_counted)
		return;
	smc->conn.orphan_counted = false;
	smc_tcp_orphan_count_add(-1);
	atomic_dec(smc_close_orphans(sock_net(&smc->sk)));
}

/* May the connection's resources go? */
static bool smc_close_done(struct smc_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	if (conn->dead)
		return true;
	if (conn->tx_done != conn->tx_written)
		return false;		/* a write still reads the send buffer */
	/*
	 * A push left to tx_work (no send slot was free) may carry the close
	 * or abort flags: freeing now would cancel it, and the peer would
	 * wait for our close until its own orphan time ran out.
	 */
	if (conn->tx_blocked)
		return false;
	if (conn->local_abort || conn->peer_abort)
		return true;
	return conn->local_closed && conn->tx_written == conn->tx_queued &&
	       conn->peer_closed;
}

/*
 * Something the orphaned connection waits for happened (any context, but
 * not under conn->lock): let smc_close_work() look again.
 */
void smc_close_kick(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	if (conn->orphaned && !conn->freeing)
		mod_delayed_work(smc_wq, &conn->close_work, 0);
	spin_unlock_irqrestore(&conn->lock, flags);
}

/* Detach from the link group and give the buffers back. */
void smc_conn_free(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	struct smc_lgr *lgr = conn->lc.lgr;

	if (!conn->attached)
		return;
	kref_get(&lgr->ref);	/* the connection's goes with conn_del */
	smc_lgr_conn_del(&conn->lc);
	spin_lock_bh(&conn->lock);
	conn->attached = false;
	spin_unlock_bh(&conn->lock);
	cancel_work_sync(&conn->tx_work);
	cancel_work_sync(&conn->grow_work);
	timer_delete_sync(&conn->cork_timer);
	smc_conn_bufs_put(conn, lgr);
	smc_lgr_put(lgr);
}

/* Give the connection's send buffer and RMB (those it has) back to @lgr. */
void smc_conn_bufs_put(struct smc_conn *conn, struct smc_lgr *lgr)
{
	if (conn->sndbuf)
		smc_buf_put(lgr, conn->sndbuf);
	if (conn->rmb)
		smc_buf_put(lgr, conn->rmb);
	smc_grow_bufs_put(conn, lgr);
	conn->sndbuf = NULL;
	conn->rmb = NULL;
}

/*
 * Both ends closed while data of ours was still unwritten: the peer will
 * never read it, and our close flags, which ride on the message with the
 * last byte, would never go.  TCP answers such data with a reset; so do
 * we, at once rather than at the orphan time.  Once the abort is ours,
 * its own short wait (SMC_CLOSE_ABORT_WAIT) applies.  conn->lock held.
 */
static bool smc_close_hopeless(struct smc_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	return conn->peer_closed && conn->local_closed && !conn->local_abort &&
	       conn->tx_written != conn->tx_queued;
}

/* An orphaned connection ends here; holds the last socket reference. */
static void smc_close_work(struct work_struct *work)
{
	struct smc_conn *conn = container_of(to_delayed_work(work),
					     struct smc_conn, close_work);
	struct smc_sock *smc = smc_conn_sock(conn);
	bool done, expired;

	spin_lock_bh(&conn->lock);
	expired = time_after_eq(jiffies, conn->close_deadline);
	done = smc_close_done(conn);
	if (!done && smc_close_hopeless(conn))
		expired = true;
	if (!done && expired && !conn->local_abort) {
		/* give up on the peer: tell it, wait a moment for our sends */
		conn->local_abort = true;
		smc_cdc_push_locked(conn, true);
		conn->close_deadline = jiffies + SMC_CLOSE_ABORT_WAIT;
		expired = false;
	}
	spin_unlock_bh(&conn->lock);
	if (!done && !expired) {
		mod_delayed_work(smc_wq, &conn->close_work,
				 max_t(long, conn->close_deadline - jiffies, 1));
		return;
	}
	if (!done)
		net_warn_ratelimited("smc: token %u: sends did not complete, freeing anyway\n",
				     conn->lc.token);
	spin_lock_bh(&conn->lock);
	conn->freeing = true;
	spin_unlock_bh(&conn->lock);
	/* a kick may have queued us again meanwhile */
	cancel_delayed_work(&conn->close_work);
	smc_close_orphan_put(smc);
	smc_conn_free(smc);
	smc_sock_destroy(smc);
}

void smc_conn_init_close(struct smc_conn *conn)
{
	INIT_DELAYED_WORK(&conn->close_work, smc_close_work);
}

int smc_close_shutdown(struct smc_sock *smc, int how)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;

	lock_sock(sk);
	if (how != SHUT_WR)
		sk->sk_shutdown |= RCV_SHUTDOWN;
	if (how != SHUT_RD) {
		sk->sk_shutdown |= SEND_SHUTDOWN;
		spin_lock_bh(&conn->lock);
		if (!conn->local_done_writing) {
			conn->local_done_writing = true;
			smc_cdc_push_locked(conn, true);
		}
		spin_unlock_bh(&conn->lock);
	}
	release_sock(sk);
	smc_sk_wake(sk, EPOLLIN | EPOLLOUT | EPOLLRDHUP);
	/* The companion TCP connection follows, as upstream does. */
	return kernel_sock_shutdown(smc->clcsock, how);
}

/*
 * close() of an SMC-R socket, before it is orphaned: SO_LINGER's wait,
 * then the close (or abort) is announced to the peer.
 */
void smc_close_active(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	bool abort;

	lock_sock(sk);
	spin_lock_bh(&conn->lock);
	abort = conn->rx_prod != conn->rx_cons ||
		(sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime);
	spin_unlock_bh(&conn->lock);
	if (!abort && sock_flag(sk, SOCK_LINGER)) {
		long timeo = sk->sk_lingertime;

		smc_tx_wait_done(smc, &timeo);
	}

	spin_lock_bh(&conn->lock);
	if (abort) {
		conn->local_abort = true;
		smc_cdc_push_locked(conn, true);
	} else if (!conn->local_closed) {
		conn->local_closed = true;
		conn->local_done_writing = true;
		smc_cdc_push_locked(conn, true);
	}
	conn->close_deadline = jiffies + (abort ? SMC_CLOSE_ABORT_WAIT :
					  SMC_CLOSE_ORPHAN_TIME);
	spin_unlock_bh(&conn->lock);
	sk->sk_shutdown = SHUTDOWN_MASK;
	release_sock(sk);
}

/*
 * After close() orphaned the socket: consumes the caller's reference, the
 * socket is destroyed by smc_close_work(), at once when nothing is left
 * to wait for.
 */
void smc_close_orphan(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	bool too_many = false;
	long delay = 0;

	spin_lock_bh(&conn->lock);
	if (!smc_close_done(conn) && !smc_close_orphan_get(smc) &&
	    !conn->local_abort) {
		too_many = true;
		conn->local_abort = true;
		smc_cdc_push_locked(conn, true);
		conn->close_deadline = jiffies + SMC_CLOSE_ABORT_WAIT;
	}
	if (!smc_close_done(conn) && !smc_close_hopeless(conn))
		delay = max_t(long, conn->close_deadline - jiffies, 1);
	conn->orphaned = true;
	mod_delayed_work(smc_wq, &conn->close_work, delay);
	spin_unlock_bh(&conn->lock);
	if (too_many)
		net_info_ratelimited("smc: too many orphaned connections (net.smc.smcr_max_orphans), aborting\n");
}

static struct pernet_operations smc_close_net_ops = {
	.id = &smc_close_net_id,
	.size = sizeof(struct smc_close_net),
};

int smc_close_init(void)
{
	return register_pernet_subsys(&smc_close_net_ops);
}

/* After the last socket: no orphan is left to count. */
void smc_close_exit(void)
{
	unregister_pernet_subsys(&smc_close_net_ops);
}
