// SPDX-License-Identifier: GPL-2.0
/*
 * Passive open: listen, the server side of the CLC handshake, accept.
 *
 * The companion socket listens for TCP.  Its data-ready callback (called
 * when TCP queues a new connection) schedules smc_accept_work(), which
 * takes the new TCP connections and gives each an SMC child socket.  A
 * child whose peer announced SMC runs the CLC handshake in smc_hs_work(),
 * queued only once the peer's proposal starts to arrive (or after
 * SMC_CLC_WAIT_TIME without it), so a silent peer costs a socket and a
 * timer, never a blocked worker.  The others fall back at once.  Children
 * whose mode is decided wait in the listener's accept queue for accept().
 *
 * The listener stops draining TCP's queue while its own accept queue
 * reaches the backlog, so TCP's backlog pushes back on clients exactly as
 * it would for a TCP listener.  Handshakes in flight do not count there
 * (TCP would have handed those connections out already); they have their
 * own bound, SMC_LISTEN_HS_MAX: beyond it, and with net.smc.limit_smc_hs
 * while the handshake work queue is congested, TCP answers new
 * connection requests without the SMC option (smc_listen_hs_congested()),
 * so they go on as plain TCP at once.
 *
 * Locking: the accept queue and the counters are protected by the
 * listener's socket lock.
 */
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/workqueue.h>
#include <net/inet_connection_sock.h>
#include <net/tcp.h>
#include <net/sock.h>
#include "smc.h"
#include "clc.h"
#include "bpf_hook.h"
#include "sysctl.h"
#include "testhooks.h"

/* child->hs_flags */
enum {
	SMC_HS_F_QUEUED,	/* the first event came: only one counts */
	SMC_HS_F_EXPIRED,	/* no proposal within SMC_CLC_WAIT_TIME */
	SMC_HS_F_ARMING,	/* smc_hs_arm() is still setting up */
};

/**
 * smc_listen_hs_offer() - may a listener offer SMC to one more client?
 * @in_flight: its handshakes in flight plus the connections in TCP's
 *	queues (SYN received or not yet taken), each possibly offered SMC
 * @limit_congested: net.smc.limit_smc_hs is set and the handshake work
 *	queue is congested
 *
 * Return: true if the SYN-ACK may carry the SMC option.
 */
bool smc_listen_hs_offer(unsigned int in_flight, bool limit_congested)
{
	return in_flight < SMC_LISTEN_HS_MAX && !limit_congested;
}

/*
 * TCP asks before it answers a SYN that carries the SMC option (softirq,
 * @clcsk is the listening clcsock): true means the SYN-ACK goes without
 * it and the connection is plain TCP, as with Linux 6.12's limit_smc_hs.
 */
static bool smc_listen_hs_congested(const struct sock *clcsk)
{
	struct sock *sk = (struct sock *)clcsk;
	const struct smc_net_cfg *cfg;
	struct smc_sock *lsmc;
	unsigned int in_flight;
	bool congested = true;

	read_lock_bh(&sk->sk_callback_lock);
	rcu_read_lock();
	lsmc = rcu_dereference_sk_user_data(sk);
	rcu_read_unlock();
	if (lsmc) {
		cfg = smc_net_cfg(sock_net(sk));
		in_flight = READ_ONCE(lsmc->hs_pending) +
			    inet_csk_reqsk_queue_len(sk) +
			    READ_ONCE(sk->sk_ack_backlog);
		congested = !smc_listen_hs_offer(in_flight,
						 READ_ONCE(cfg->limit_smc_hs) &&
						 workqueue_congested(WORK_CPU_UNBOUND,
								     smc_wq));
	}
	read_unlock_bh(&sk->sk_callback_lock);
	return congested;
}

/* Softirq context, clcsock's callback lock held (see clcsock.c). */
void smc_listen_data_ready(struct smc_sock *lsmc)
{
	sock_hold(&lsmc->sk);
	if (!queue_work(smc_wq, &lsmc->accept_work))
		sock_put(&lsmc->sk);
}

int smc_listen(struct socket *sock, int backlog)
{
	struct sock *sk = sock->sk;
	struct smc_sock *smc = smc_sk(sk);
	struct socket *clcsock = smc->clcsock;
	int rc;

	lock_sock(sk);
	if (smc->hs_state != SMC_HS_NONE || sk->sk_state == TCP_LISTEN) {
		/* TCP decides: a new backlog, or EINVAL when connected. */
		rc = kernel_listen(clcsock, backlog);
		if (!rc && sk->sk_state == TCP_LISTEN)
			WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
		goto out;
	}
	smc_copy_sockopts_to_clc(smc);
	smc_bpf_policy(smc, NULL, 0);
	if (!smc->fallback_reason) {
		smc_tcp_option_ask(clcsock->sk, true);
		smc_tcp_option_congested(clcsock->sk, smc_listen_hs_congested);
	}
	rc = kernel_listen(clcsock, backlog);
	if (rc) {
		smc_tcp_option_ask(clcsock->sk, false);
		smc_tcp_option_congested(clcsock->sk, NULL);
		goto out;
	}
	WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
	sk->sk_state = TCP_LISTEN;
out:
	release_sock(sk);
	return rc;
}

/* Children waiting for accept() fill the backlog; handshakes do not. */
static bool smc_accept_q_full(struct smc_sock *lsmc)
{
	u32 limit = max_t(u32, READ_ONCE(lsmc->sk.sk_max_ack_backlog), 1);

	sock_owned_by_me(&lsmc->sk);
	return lsmc->accept_q_len >= limit;
}

/* The child's mode is decided: queue it for accept().  Listener locked. */
static void smc_accept_enqueue(struct smc_sock *lsmc, struct smc_sock *child)
{
	sock_owned_by_me(&lsmc->sk);
	smc_copy_sockopts_from_clc(child);
	child->sk.sk_state = TCP_ESTABLISHED;
	/* publish the mode before the state: readers acquire hs_state */
	smp_store_release(&child->hs_state, SMC_HS_DONE);
	list_add_tail(&child->accept_node, &lsmc->accept_q);
	WRITE_ONCE(lsmc->accept_q_len, lsmc->accept_q_len + 1);
	lsmc->sk.sk_data_ready(&lsmc->sk);
}

static void smc_accept_kick(struct smc_sock *lsmc)
{
	sock_hold(&lsmc->sk);
	if (!queue_work(smc_wq, &lsmc->accept_work))
		sock_put(&lsmc->sk);
}

/*
 * Release a child that never reached accept().  A child whose handshake
 * attached it to a link group goes the SMC-R way (abort, then close.c
 * detaches it) even while hs_state still says RUNNING: smc_hs_work() drops
 * children that made it to SMC-R but found their listener closed.
 */
void smc_child_drop(struct smc_sock *child)
{
	struct smc_sock *lsmc = child->listen_smc;

	child->listen_smc = NULL;
	/* TCP resets connections its listener never handed out */
	sock_no_linger(child->clcsock->sk);
	if (smc_is_smcr(child) || child->conn.attached) {
		sock_no_linger(&child->sk);	/* abort, as a reset */
		smc_close_active(child);
		sock_set_flag(&child->sk, SOCK_DEAD);
		smc_close_orphan(child);
	} else {
		smc_sock_destroy(child);
	}
	if (lsmc)
		sock_put(&lsmc->sk);
}

/*
 * hs_work runs once, after two things: the first event (data, the timer,
 * or what smc_hs_arm() found already there) and the end of smc_hs_arm().
 * Both take SMC_HS_F_ARMING away; whoever finds it gone comes second and
 * queues the work.  So the work never disarms a child that smc_hs_arm()
 * is still arming: its timer would be left pending on a child that the
 * work then frees.
 */
static void smc_hs_gate(struct smc_sock *child)
{
	if (!test_and_clear_bit(SMC_HS_F_ARMING, &child->hs_flags))
		queue_work(smc_wq, &child->hs_work);
}

/* Run the handshake now; the first of data, timer and caller wins. */
static void smc_hs_start(struct smc_sock *child, bool expired)
{
	if (test_and_set_bit(SMC_HS_F_QUEUED, &child->hs_flags))
		return;
	if (expired)
		set_bit(SMC_HS_F_EXPIRED, &child->hs_flags);
	smc_hs_gate(child);
}

/* Woken on the child's clcsock (softirq, its wait queue's lock held). */
static int smc_hs_wake(struct wait_queue_entry *wait, unsigned int mode,
		       int sync, void *key)
{
	struct smc_sock *child = container_of(wait, struct smc_sock, hs_wait);
	__poll_t mask = key_to_poll(key);

	/* data, end of stream or an error; not send space */
	if (!key || (mask & (EPOLLIN | EPOLLRDNORM | EPOLLERR | EPOLLHUP |
			     EPOLLRDHUP)))
		smc_hs_start(child, false);
	return 0;
}

static void smc_hs_expire(struct timer_list *t)
{
	struct smc_sock *child = timer_container_of(child, t, hs_timer);

	smc_hs_start(child, true);
}

/*
 * The client announced SMC and owes us its proposal: wait for its first
 * byte (or anything else that ends the wait) without a worker.  The
 * child's clcsock still wakes its own socket's queue (see smc_accept()).
 */
static void smc_hs_arm(struct smc_sock *child)
{
	struct sock *clcsk = child->clcsock->sk;

	child->hs_flags = BIT(SMC_HS_F_ARMING);
	init_waitqueue_func_entry(&child->hs_wait, smc_hs_wake);
	timer_setup(&child->hs_timer, smc_hs_expire, 0);
	add_wait_queue(sk_sleep(clcsk), &child->hs_wait);
	/* test hook: data may come and wake us while we are here */
	smc_faultinj_arm_delay();
	mod_timer(&child->hs_timer, jiffies + SMC_CLC_WAIT_TIME);
	/* pairs with skwq_has_sleeper(): either TCP sees us or we see it */
	smp_mb();
	/* what came before we listened */
	if (!skb_queue_empty_lockless(&clcsk->sk_receive_queue) ||
	    READ_ONCE(clcsk->sk_err) ||
	    (READ_ONCE(clcsk->sk_shutdown) & RCV_SHUTDOWN) ||
	    READ_ONCE(clcsk->sk_state) != TCP_ESTABLISHED)
		smc_hs_start(child, false);
	/* the child is the work's from here on */
	smc_hs_gate(child);
}

/* In hs_work, first: neither the wake-up nor the timer can queue it now. */
static void smc_hs_disarm(struct smc_sock *child)
{
	remove_wait_queue(sk_sleep(child->clcsock->sk), &child->hs_wait);
	timer_delete_sync(&child->hs_timer);
}

void smc_accept_work(struct work_struct *work)
{
	struct smc_sock *lsmc = container_of(work, struct smc_sock,
					     accept_work);
	struct sock *lsk = &lsmc->sk;
	struct socket *newclc;
	struct smc_sock *child;

	lock_sock(lsk);
	while (lsk->sk_state == TCP_LISTEN && !smc_accept_q_full(lsmc)) {
		if (kernel_accept(lsmc->clcsock, &newclc, O_NONBLOCK))
			break;
		child = smc_sock_alloc(sock_net(lsk), NULL, lsk->sk_protocol);
		if (!child) {
			smc_clcsock_detach(newclc);
			sock_release(newclc);
			continue;
		}
		child->clcsock = newclc;
		child->server = true;
		smc_clcsock_attach(child);
		sock_hold(lsk);
		child->listen_smc = lsmc;
		smc_memcg_inherit(&child->sk, lsk);
		smc_sock_link(&child->sk);
		child->sk.sk_uid = lsk->sk_uid;
		if (!smc_tcp_option_agreed(newclc->sk)) {
			/* The listener's own reason if it never offered SMC. */
			smc_set_fallback(child, lsmc->fallback_reason ?:
					 SMC_CLC_DECL_PEERNOSMC);
			smc_accept_enqueue(lsmc, child);
			continue;
		}
		WRITE_ONCE(lsmc->hs_pending, lsmc->hs_pending + 1);
		child->hs_state = SMC_HS_RUNNING;
		smc_hs_arm(child);
	}
	release_sock(lsk);
	sock_put(lsk);
}

/*
 * The server half of the CLC handshake for one child.  Returns 0 when the
 * mode is decided (so far always fallback), or a negative errno when the
 * connection has to be dropped.
 */
static int smc_listen_clc(struct smc_sock *child)
{
	struct socket *clcsock = child->clcsock;
	struct smc_clc_decline decl;
	struct smc_clc_hdr hdr;
	u32 reason;
	u8 *buf;
	int len;

	buf = kmalloc(SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	len = smc_clc_recv_msg(clcsock, buf, SMC_CLC_MAX_MSG_LEN,
			       SMC_CLC_WAIT_TIME, &hdr);
	if (len == -EPROTO) {
		/* The peer announced SMC but sends no CLC: its bytes are
		 * still unread, so TCP can carry on as if nothing happened.
		 */
		smc_set_fallback(child, SMC_CLC_DECL_SYNCERR);
		len = 0;
		goto out;
	}
	if (len == -EBADMSG) {
		/* a broken proposal, out of the stream: TCP may carry on */
		smc_clc_send_decline(clcsock, SMC_CLC_DECL_SYNCERR, SMC_V1);
		smc_set_fallback(child, SMC_CLC_DECL_SYNCERR);
		len = 0;
		goto out;
	}
	if (len < 0)
		goto out;

	switch (hdr.type) {
	case SMC_CLC_DECLINE:
		if (smc_clc_decline_decode(buf, len, &decl) == 0)
			child->peer_diagnosis = decl.peer_diagnosis;
		smc_set_fallback(child, SMC_CLC_DECL_PEERDECL);
		break;
	case SMC_CLC_PROPOSAL:
		reason = smc_hs_server(child, buf, len, hdr.version);
		if (reason)
			smc_set_fallback(child, reason);
		break;
	default:
		smc_clc_send_decline(clcsock, SMC_CLC_DECL_SYNCERR, hdr.version);
		smc_set_fallback(child, SMC_CLC_DECL_SYNCERR);
		break;
	}
	len = 0;
out:
	kfree(buf);
	return len;
}

void smc_hs_work(struct work_struct *work)
{
	struct smc_sock *child = container_of(work, struct smc_sock, hs_work);
	struct smc_sock *lsmc = child->listen_smc;
	struct sock *lsk = &lsmc->sk;
	int rc;

	smc_hs_disarm(child);
	if (test_bit(SMC_HS_F_EXPIRED, &child->hs_flags))
		rc = -EAGAIN;	/* the peer never sent its proposal */
	else
		rc = smc_listen_clc(child);

	/* dropped without SMC-R or fallback: a handshake error, as upstream */
	if (rc)
		smc_stats_hs_error(sock_net(&child->sk), true);
	lock_sock(lsk);
	WRITE_ONCE(lsmc->hs_pending, lsmc->hs_pending - 1);
	if (rc || lsk->sk_state != TCP_LISTEN) {
		release_sock(lsk);
		smc_child_drop(child);
		return;
	}
	smc_accept_enqueue(lsmc, child);
	release_sock(lsk);
	smc_accept_kick(lsmc);
}

int smc_accept(struct socket *sock, struct socket *newsock,
	       struct proto_accept_arg *arg)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *lsk = sock->sk;
	struct smc_sock *lsmc = smc_sk(lsk);
	struct smc_sock *child = NULL;
	bool was_full;
	long timeo;
	int rc = 0;

	lock_sock(lsk);
	if (lsk->sk_state != TCP_LISTEN) {
		rc = -EINVAL;
		goto out;
	}
	timeo = sock_rcvtimeo(lsk, arg->flags & O_NONBLOCK);
	add_wait_queue(sk_sleep(lsk), &wait);
	while (list_empty(&lsmc->accept_q)) {
		if (lsk->sk_state != TCP_LISTEN) {
			rc = -EINVAL;
			break;
		}
		if (!timeo) {
			rc = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			rc = sock_intr_errno(timeo);
			break;
		}
		sk_wait_event(lsk, &timeo,
			      !list_empty(&lsmc->accept_q) ||
			      lsk->sk_state != TCP_LISTEN, &wait);
	}
	remove_wait_queue(sk_sleep(lsk), &wait);
	if (rc)
		goto out;
	was_full = smc_accept_q_full(lsmc);
	child = list_first_entry(&lsmc->accept_q, struct smc_sock,
				 accept_node);
	list_del_init(&child->accept_node);
	WRITE_ONCE(lsmc->accept_q_len, lsmc->accept_q_len - 1);
	if (was_full)
		smc_accept_kick(lsmc);
out:
	release_sock(lsk);
	if (!child)
		return rc;

	lock_sock(&child->sk);
	sock_graft(&child->sk, newsock);
	newsock->state = SS_CONNECTED;
#ifdef SMC_HAVE_CUSTOM_SOCKOPT
	set_bit(SOCK_CUSTOM_SOCKOPT, &newsock->flags);
#endif
	smc_clcsock_redirect_wq(child, newsock);
	child->listen_smc = NULL;
	release_sock(&child->sk);
	sock_put(lsk);
	return 0;
}

__poll_t smc_listen_poll(struct smc_sock *lsmc)
{
	return READ_ONCE(lsmc->accept_q_len) ? EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * Stop listening (close or shutdown).  Children still in the handshake
 * see the state and drop themselves; queued ones are dropped here.
 */
void smc_listen_close(struct smc_sock *lsmc)
{
	struct sock *lsk = &lsmc->sk;
	struct smc_sock *child, *tmp;
	LIST_HEAD(drop);

	lock_sock(lsk);
	lsk->sk_state = TCP_CLOSE;
	list_splice_init(&lsmc->accept_q, &drop);
	WRITE_ONCE(lsmc->accept_q_len, 0);
	lsk->sk_state_change(lsk);
	release_sock(lsk);

	if (cancel_work_sync(&lsmc->accept_work))
		sock_put(lsk);
	list_for_each_entry_safe(child, tmp, &drop, accept_node) {
		list_del_init(&child->accept_node);
		smc_child_drop(child);
	}
}
