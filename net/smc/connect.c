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

/* Every TCP socket starts with the same state-change callback. */
static void (*smc_tcp_state_change)(struct sock *sk);

/* Runs in softirq context. */
static void smc_clcsock_state_change(struct sock *clcsk)
{
	void (*orig)(struct sock *sk);
	struct smc_sock *smc;

	read_lock_bh(&clcsk->sk_callback_lock);
	smc = clcsk->sk_user_data;
	orig = smc ? smc->clc_state_change : READ_ONCE(smc_tcp_state_change);
	if (smc && READ_ONCE(clcsk->sk_state) != TCP_SYN_SENT &&
	    READ_ONCE(smc->hs_state) == SMC_HS_RUNNING) {
		sock_hold(&smc->sk);
		if (!queue_work(smc_wq, &smc->connect_work))
			sock_put(&smc->sk);
	}
	read_unlock_bh(&clcsk->sk_callback_lock);
	if (orig)
		orig(clcsk);
}

static void smc_clcsock_hook(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;

	write_lock_bh(&clcsk->sk_callback_lock);
	if (clcsk->sk_state_change != smc_clcsock_state_change) {
		smc->clc_state_change = clcsk->sk_state_change;
		WRITE_ONCE(smc_tcp_state_change, clcsk->sk_state_change);
		clcsk->sk_user_data = smc;
		clcsk->sk_state_change = smc_clcsock_state_change;
	}
	write_unlock_bh(&clcsk->sk_callback_lock);
}

static void smc_clcsock_unhook(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;

	write_lock_bh(&clcsk->sk_callback_lock);
	if (clcsk->sk_state_change == smc_clcsock_state_change) {
		clcsk->sk_state_change = smc->clc_state_change;
		clcsk->sk_user_data = NULL;
	}
	write_unlock_bh(&clcsk->sk_callback_lock);
}

/*
 * The client half of the CLC handshake.  This module does not offer an
 * SMC-R path yet, so a peer that announced SMC gets a decline telling it
 * that we have no usable device; both sides then continue over TCP.
 */
static void smc_connect_clc(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;

	if (!tcp_sk(clcsk)->syn_smc) {
		smc_set_fallback(smc, smc->fallback_reason ?:
				 SMC_CLC_DECL_PEERNOSMC);
		return;
	}
	/* A failed send is not fatal: the peer then times out and the TCP
	 * connection itself reports the error to the application.
	 */
	smc_clc_send_decline(smc->clcsock, SMC_CLC_DECL_NOSMCDEV, SMC_V1);
	smc_set_fallback(smc, SMC_CLC_DECL_NOSMCDEV);
}

void smc_connect_work(struct work_struct *work)
{
	struct smc_sock *smc = container_of(work, struct smc_sock,
					    connect_work);
	struct sock *sk = &smc->sk;
	struct sock *clcsk = smc->clcsock->sk;
	int err;

	lock_sock(sk);
	if (smc->hs_state != SMC_HS_RUNNING)
		goto out;
	smc_clcsock_unhook(smc);

	if (READ_ONCE(clcsk->sk_state) != TCP_ESTABLISHED &&
	    READ_ONCE(clcsk->sk_state) != TCP_CLOSE_WAIT) {
		/* TCP failed: hand its error to the AF_SMC socket, where
		 * connect() and SO_ERROR look for it, and allow a retry.
		 */
		err = xchg(&clcsk->sk_err, 0) ?: ECONNREFUSED;
		sk->sk_err = err;
		smc->hs_state = SMC_HS_NONE;
		sk->sk_state = TCP_CLOSE;
		sk_error_report(sk);
		goto out;
	}

	smc_connect_clc(smc);
	smc_copy_sockopts_from_clc(smc);
	sk->sk_state = TCP_ESTABLISHED;
	smc->sk.sk_socket->state = SS_CONNECTED;
	/* publish the mode before the state: readers acquire hs_state */
	smp_store_release(&smc->hs_state, SMC_HS_DONE);
	sk->sk_state_change(sk);
	/* Wake writers too: poll may have been waiting for EPOLLOUT. */
	sk->sk_write_space(sk);
out:
	release_sock(sk);
	sock_put(sk);
}

/* Wait for the handshake to decide.  Called with the socket locked. */
static int smc_connect_wait(struct smc_sock *smc, long timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = &smc->sk;
	int rc = 0;

	add_wait_queue(sk_sleep(sk), &wait);
	while (READ_ONCE(smc->hs_state) == SMC_HS_RUNNING) {
		if (!timeo) {
			rc = -EINPROGRESS;
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
	if (rc)
		return rc;
	return sock_error(sk);
}

int smc_connect(struct socket *sock, struct sockaddr *addr, int alen,
		int flags)
{
	struct sock *sk = sock->sk;
	struct smc_sock *smc = smc_sk(sk);
	struct socket *clcsock = smc->clcsock;
	int rc;

	if (alen < (int)sizeof(addr->sa_family))
		return -EINVAL;

	lock_sock(sk);
	switch (smc->hs_state) {
	case SMC_HS_RUNNING:
		rc = (flags & O_NONBLOCK) ? -EALREADY :
			smc_connect_wait(smc, sock_sndtimeo(sk, 0));
		goto out;
	case SMC_HS_DONE:
		/* TCP has the answer (EISCONN, or a disconnect by AF_UNSPEC). */
		rc = clcsock->ops->connect(clcsock, addr, alen, flags);
		goto out;
	case SMC_HS_NONE:
		break;
	}
	if (sk->sk_state == TCP_LISTEN || addr->sa_family == AF_UNSPEC) {
		rc = clcsock->ops->connect(clcsock, addr, alen, flags);
		goto out;
	}

	sk->sk_err = 0;
	if (!smc->fallback_reason)
		tcp_sk(clcsock->sk)->syn_smc = 1;
	smc_clcsock_hook(smc);
	smc->hs_state = SMC_HS_RUNNING;
	sk->sk_state = TCP_SYN_SENT;
	rc = kernel_connect(clcsock, addr, alen, O_NONBLOCK);
	if (rc && rc != -EINPROGRESS) {
		smc_clcsock_unhook(smc);
		tcp_sk(clcsock->sk)->syn_smc = 0;
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
	rc = (flags & O_NONBLOCK) ? -EINPROGRESS :
		smc_connect_wait(smc, sock_sndtimeo(sk, 0));
out:
	release_sock(sk);
	return rc;
}

/*
 * Called on close while a connect may be under way: stop TCP so that the
 * handshake ends now, and wait for the work to finish.
 */
void smc_connect_abort(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;

	if (READ_ONCE(smc->hs_state) == SMC_HS_RUNNING &&
	    READ_ONCE(clcsk->sk_state) == TCP_SYN_SENT)
		tcp_abort(clcsk, ECONNABORTED);
	smc_clcsock_unhook(smc);
	if (cancel_work_sync(&smc->connect_work))
		sock_put(&smc->sk);
}
