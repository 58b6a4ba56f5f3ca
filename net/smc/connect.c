// SPDX-License-Identifier: GPL-2.0
/*
 * Active open: TCP connect of the companion socket, then the client side
 * of the CLC handshake.
 *
 * connect() always starts the TCP connection without blocking.  When TCP
 * leaves SYN_SENT, a state-change hook on the companion socket schedules
 * smc_connect_work(), which runs the CLC exchange and decides the mode.
 * A blocking connect() simply waits for that decision, so blocking and
 * non-blocking connects share one code path and one set of outcomes.
 */
#include <linux/tcp.h>
#include <net/tcp.h>
#include <net/sock.h>
#include "smc.h"
#include "clc.h"
#include "bpf_hook.h"

/* Softirq context, clcsock's callback lock held (see clcsock.c). */
void smc_connect_state_change(struct smc_sock *smc, struct sock *clcsk)
{
	/* Accepted sockets run their handshake in smc_hs_work(). */
	if (smc->server)
		return;
	if (READ_ONCE(clcsk->sk_state) != TCP_SYN_SENT &&
	    READ_ONCE(smc->hs_state) == SMC_HS_RUNNING) {
		sock_hold(&smc->sk);
		if (!queue_work(smc_wq, &smc->connect_work))
			sock_put(&smc->sk);
	}
}

/*
 * The client half of the CLC handshake: SMC-R when both sides can, else
 * a fallback to TCP with the reason (any decline is sent by hs.c).
 */
static void smc_connect_clc(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;
	u32 reason;

	if (!smc_tcp_option_agreed(clcsk)) {
		smc_set_fallback(smc, smc->fallback_reason ?:
				 SMC_CLC_DECL_PEERNOSMC);
		return;
	}
	reason = smc_hs_client(smc);
	if (reason)
		smc_set_fallback(smc, reason);
}

void smc_connect_work(struct work_struct *work)
{
	struct smc_sock *smc = container_of(work, struct smc_sock,
					    connect_work);
	struct sock *sk = &smc->sk;
	struct sock *clcsk;
	int err;

	lock_sock(sk);
	/* Closed meanwhile: smc_connect_abort() took the handshake back. */
	if (smc->hs_state != SMC_HS_RUNNING)
		goto out;
	clcsk = smc->clcsock->sk;

	if (READ_ONCE(clcsk->sk_state) != TCP_ESTABLISHED &&
	    READ_ONCE(clcsk->sk_state) != TCP_CLOSE_WAIT) {
		/* TCP failed: hand its error to the AF_SMC socket, where
		 * connect() and SO_ERROR look for it, and allow a retry.
		 */
		err = xchg(&clcsk->sk_err, 0) ?: ECONNREFUSED;
		WRITE_ONCE(sk->sk_err, err);
		smc->clc_err_mirrored = false;
		smc->hs_state = SMC_HS_NONE;
		sk->sk_state = TCP_CLOSE;
		sk_error_report(sk);
		goto out;
	}

	smc_connect_clc(smc);
	smc_copy_sockopts_from_clc(smc);
	sk->sk_state = TCP_ESTABLISHED;
	/* A repeated connect() on the fd finds EISCONN in TCP. */
	smc->clcsock->state = SS_CONNECTED;
	/* publish the mode before the state: readers acquire hs_state */
	smp_store_release(&smc->hs_state, SMC_HS_DONE);
	sk->sk_state_change(sk);
	/* Wake writers too: poll may have been waiting for EPOLLOUT. */
	sk->sk_write_space(sk);
out:
	release_sock(sk);
	sock_put(sk);
}

/*
 * Wait for the handshake to decide.  Called with the socket locked.
 * Returns 0 once decided, -EAGAIN when @timeo ran out first, or the
 * signal's error.
 */
int smc_hs_wait(struct smc_sock *smc, long timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = &smc->sk;
	int rc = 0;

	add_wait_queue(sk_sleep(sk), &wait);
	while (READ_ONCE(smc->hs_state) == SMC_HS_RUNNING) {
		if (!timeo) {
			rc = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			rc = sock_intr_errno(timeo);
			break;
		}
		sk_wait_event(sk, &timeo,
			      READ_ONCE(smc->hs_state) != SMC_HS_RUNNING,
			      &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	return rc;
}

/* A blocking connect that times out leaves the connect running, as TCP's. */
static int smc_connect_wait(struct smc_sock *smc, long timeo)
{
	int rc = smc_hs_wait(smc, timeo);

	return rc == -EAGAIN ? -EINPROGRESS : rc;
}

/*
 * The end of a failed connect, as TCP ends it: the error is reported once
 * (ECONNABORTED if SO_ERROR took it already), the companion connection is
 * disconnected and the socket may connect again.
 */
static int smc_connect_failed(struct smc_sock *smc, struct socket *sock)
{
	struct sock *clcsk = smc->clcsock->sk;
	int err = sock_error(&smc->sk) ?: -ECONNABORTED;

	sock->state = SS_UNCONNECTED;
	smc->clcsock->state = SS_UNCONNECTED;
	lock_sock(clcsk);
	clcsk->sk_prot->disconnect(clcsk, 0);
	smc_tcp_option_ask(clcsk, false);
	release_sock(clcsk);
	return err;
}

/* A blocking connect, or a repeated one, learns how the handshake ended. */
static int smc_connect_result(struct smc_sock *smc, struct socket *sock,
			      int rc)
{
	if (rc)
		return rc;	/* still connecting */
	if (smc->hs_state == SMC_HS_DONE) {
		sock->state = SS_CONNECTED;
		return 0;
	}
	return smc_connect_failed(smc, sock);
}

int smc_connect(struct socket *sock, struct sockaddr_unsized *addr, int alen,
		int flags)
{
	struct sock *sk = sock->sk;
	struct smc_sock *smc = smc_sk(sk);
	struct socket *clcsock = smc->clcsock;
	int rc;

	if (alen < (int)sizeof(addr->sa_family))
		return -EINVAL;

	lock_sock(sk);
	if (smc->hs_state == SMC_HS_RUNNING) {
		if (flags & O_NONBLOCK)
			rc = -EALREADY;
		else
			rc = smc_connect_result(smc, sock,
						smc_connect_wait(smc, sock_sndtimeo(sk, 0)));
		goto out;
	}
	if (sock->state == SS_CONNECTING) {
		/* A non-blocking connect ended since the last call. */
		rc = smc_connect_result(smc, sock, 0);
		goto out;
	}
	if (smc->hs_state == SMC_HS_DONE || sk->sk_state == TCP_LISTEN ||
	    addr->sa_family == AF_UNSPEC) {
		/* TCP has the answer: EISCONN, or a disconnect by AF_UNSPEC. */
		smc_clcsock_err_sync(smc);
		rc = clcsock->ops->connect(clcsock, addr, alen, flags);
		smc_clcsock_err_sync(smc);
		goto out;
	}

	sk->sk_err = 0;
	smc_copy_sockopts_to_clc(smc);
	smc_bpf_policy(smc, (const struct sockaddr *)addr, alen);
	if (!smc->fallback_reason)
		smc_tcp_option_ask(clcsock->sk, true);
	smc->hs_state = SMC_HS_RUNNING;
	sk->sk_state = TCP_SYN_SENT;
	rc = kernel_connect(clcsock, addr, alen, O_NONBLOCK);
	if (rc && rc != -EINPROGRESS) {
		smc_tcp_option_ask(clcsock->sk, false);
		smc->hs_state = SMC_HS_NONE;
		sk->sk_state = TCP_CLOSE;
		goto out;
	}
	sock->state = SS_CONNECTING;
	/* The state may have changed before the hook saw it running. */
	if (READ_ONCE(clcsock->sk->sk_state) != TCP_SYN_SENT) {
		sock_hold(sk);
		if (!queue_work(smc_wq, &smc->connect_work))
			sock_put(sk);
	}
	if (flags & O_NONBLOCK)
		rc = -EINPROGRESS;
	else
		rc = smc_connect_result(smc, sock,
					smc_connect_wait(smc, sock_sndtimeo(sk, 0)));
out:
	release_sock(sk);
	return rc;
}

/*
 * Called on close while a connect may be under way: take the handshake
 * back, stop TCP so that nothing more happens on the wire, and make sure
 * the connect work is neither queued nor running when this returns.
 */
void smc_connect_abort(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;
	struct sock *sk = &smc->sk;
	bool running;

	lock_sock(sk);
	/* Under the callback lock, so no state change can queue the work
	 * after this point (see smc_connect_state_change()).
	 */
	write_lock_bh(&clcsk->sk_callback_lock);
	running = smc->hs_state == SMC_HS_RUNNING;
	if (running)
		WRITE_ONCE(smc->hs_state, SMC_HS_NONE);
	write_unlock_bh(&clcsk->sk_callback_lock);
	release_sock(sk);

	if (running && READ_ONCE(clcsk->sk_state) == TCP_SYN_SENT)
		tcp_abort(clcsk, ECONNABORTED);
	if (cancel_work_sync(&smc->connect_work))
		sock_put(sk);
}
