// SPDX-License-Identifier: GPL-2.0
/*
 * Passive open: listen, the server side of the CLC handshake, accept.
 *
 * The companion socket listens for TCP.  Its data-ready callback (called
 * when TCP queues a new connection) schedules smc_accept_work(), which
 * takes the new TCP connections and gives each an SMC child socket.  A
 * child whose peer announced SMC runs the CLC handshake in smc_hs_work();
 * the others fall back at once.  Children whose mode is decided wait in
 * the listener's accept queue for accept().
 *
 * The listener stops draining TCP's queue while its own accept queue plus
 * the handshakes in flight reach the backlog, so TCP's backlog keeps
 * pushing back on clients exactly as it would for a TCP listener.
 *
 * Locking: the accept queue and the counters are protected by the
 * listener's socket lock.
 */
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/tcp.h>
#include <net/sock.h>
#include "smc.h"
#include "clc.h"
#include "bpf_hook.h"

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
	smc_bpf_policy(smc, NULL, 0);
	if (!smc->fallback_reason)
		tcp_sk(clcsock->sk)->syn_smc = 1;
	rc = kernel_listen(clcsock, backlog);
	if (rc) {
		tcp_sk(clcsock->sk)->syn_smc = 0;
		goto out;
	}
	WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
	sk->sk_state = TCP_LISTEN;
out:
	release_sock(sk);
	return rc;
}

static bool smc_accept_q_full(struct smc_sock *lsmc)
{
	u32 limit = max_t(u32, READ_ONCE(lsmc->sk.sk_max_ack_backlog), 1);

	return lsmc->accept_q_len + lsmc->hs_pending >= limit;
}

/* The child's mode is decided: queue it for accept().  Listener locked. */
static void smc_accept_enqueue(struct smc_sock *lsmc, struct smc_sock *child)
{
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

/* Release a child that never reached accept(). */
static void smc_child_drop(struct smc_sock *child)
{
	struct smc_sock *lsmc = child->listen_smc;

	child->listen_smc = NULL;
	/* TCP resets connections its listener never handed out */
	sock_no_linger(child->clcsock->sk);
	if (smc_is_smcr(child)) {
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
		smc_sock_link(&child->sk);
		child->sk.sk_uid = lsk->sk_uid;
		if (!tcp_sk(newclc->sk)->syn_smc) {
			/* The listener's own reason if it never offered SMC. */
			smc_set_fallback(child, lsmc->fallback_reason ?:
					 SMC_CLC_DECL_PEERNOSMC);
			smc_accept_enqueue(lsmc, child);
			continue;
		}
		lsmc->hs_pending++;
		child->hs_state = SMC_HS_RUNNING;
		queue_work(smc_wq, &child->hs_work);
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

	rc = smc_listen_clc(child);

	lock_sock(lsk);
	lsmc->hs_pending--;
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
	set_bit(SOCK_CUSTOM_SOCKOPT, &newsock->flags);
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
