// SPDX-License-Identifier: GPL-2.0
/*
 * Callbacks on the companion TCP socket.
 *
 * From creation (or accept) to release, a clcsock carries a pointer to its
 * AF_SMC owner in sk_user_data (marked not to be copied, so connections
 * cloned from a listener start without one) and three callbacks of ours:
 *
 *  - state change: TCP left SYN_SENT, the connect work may run;
 *  - data ready:   on a listener, new TCP connections wait to be taken;
 *  - error report: TCP recorded an error, which SOL_SOCKET getsockopt
 *                  (answered from the AF_SMC sock) must be able to see.
 *
 * Each then calls TCP's own callback, which wakes the AF_SMC socket's wait
 * queue (the clcsock's sk_wq points there).  The callbacks are put back
 * before the clcsock is released, so a TCP socket that lingers in its
 * closing states never calls into this module after it is gone.
 */
#include <net/sock.h>
#include <net/tcp.h>
#include "smc.h"

/* TCP's callbacks: the same for every TCP socket. */
static struct {
	void (*state_change)(struct sock *sk);
	void (*data_ready)(struct sock *sk);
	void (*error_report)(struct sock *sk);
} smc_tcp_cb;

/* Call with clcsk->sk_callback_lock held. */
static struct smc_sock *smc_clcsock_owner(const struct sock *clcsk)
{
	return (struct smc_sock *)((uintptr_t)clcsk->sk_user_data &
				   SK_USER_DATA_PTRMASK);
}

/*
 * In SMC-R mode the TCP connection only idles until both ends close it:
 * its FIN or a late segment is no news for the AF_SMC socket's waiters
 * (an edge-triggered epoll would see a second edge after the peer's
 * close, which TCP never gives).  Call with clcsk->sk_callback_lock held.
 */
static bool smc_clcsock_quiet(const struct smc_sock *smc)
{
	return smc && smc_is_smcr(smc);
}

static void smc_clcsock_state_change(struct sock *clcsk)
{
	struct smc_sock *smc;
	bool quiet;

	read_lock_bh(&clcsk->sk_callback_lock);
	smc = smc_clcsock_owner(clcsk);
	if (smc)
		smc_connect_state_change(smc, clcsk);
	quiet = smc_clcsock_quiet(smc);
	read_unlock_bh(&clcsk->sk_callback_lock);
	if (!quiet)
		smc_tcp_cb.state_change(clcsk);
}

static void smc_clcsock_data_ready(struct sock *clcsk)
{
	struct smc_sock *smc;
	bool listening = false, quiet;

	read_lock_bh(&clcsk->sk_callback_lock);
	smc = smc_clcsock_owner(clcsk);
	if (smc && READ_ONCE(clcsk->sk_state) == TCP_LISTEN) {
		smc_listen_data_ready(smc);
		listening = true;
	}
	quiet = smc_clcsock_quiet(smc);
	read_unlock_bh(&clcsk->sk_callback_lock);
	/* A listener's waiters are woken by the accept queue, not by TCP. */
	if (!listening && !quiet)
		smc_tcp_cb.data_ready(clcsk);
}

static void smc_clcsock_error_report(struct sock *clcsk)
{
	struct smc_sock *smc;
	int err;

	read_lock_bh(&clcsk->sk_callback_lock);
	smc = smc_clcsock_owner(clcsk);
	err = READ_ONCE(clcsk->sk_err);
	/* A connect in progress takes TCP's error itself when it ends. */
	/* In SMC-R mode the TCP connection only idles: its errors are not
	 * the connection's.
	 */
	if (smc && err && READ_ONCE(smc->hs_state) != SMC_HS_RUNNING &&
	    !smc_is_smcr(smc)) {
		WRITE_ONCE(smc->sk.sk_err, err);
		WRITE_ONCE(smc->clc_err_mirrored, true);
	}
	read_unlock_bh(&clcsk->sk_callback_lock);
	smc_tcp_cb.error_report(clcsk);
}

/* Make @smc the owner of its clcsock and install our callbacks. */
void smc_clcsock_attach(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;

	write_lock_bh(&clcsk->sk_callback_lock);
	if (clcsk->sk_state_change != smc_clcsock_state_change) {
		WRITE_ONCE(smc_tcp_cb.state_change, clcsk->sk_state_change);
		WRITE_ONCE(smc_tcp_cb.data_ready, clcsk->sk_data_ready);
		WRITE_ONCE(smc_tcp_cb.error_report, clcsk->sk_error_report);
		clcsk->sk_state_change = smc_clcsock_state_change;
		clcsk->sk_data_ready = smc_clcsock_data_ready;
		clcsk->sk_error_report = smc_clcsock_error_report;
	}
	__rcu_assign_sk_user_data_with_flags(clcsk, smc, SK_USER_DATA_NOCOPY);
	write_unlock_bh(&clcsk->sk_callback_lock);
}

/* Undo smc_clcsock_attach(); TCP's callbacks are back when it returns. */
void smc_clcsock_detach(struct socket *clcsock)
{
	struct sock *clcsk = clcsock->sk;

	write_lock_bh(&clcsk->sk_callback_lock);
	rcu_assign_sk_user_data(clcsk, NULL);
	if (clcsk->sk_state_change == smc_clcsock_state_change) {
		clcsk->sk_state_change = smc_tcp_cb.state_change;
		clcsk->sk_data_ready = smc_tcp_cb.data_ready;
		clcsk->sk_error_report = smc_tcp_cb.error_report;
	}
	write_unlock_bh(&clcsk->sk_callback_lock);
}

/*
 * TCP errors are visible twice: in the clcsock, where TCP reports and
 * consumes them, and mirrored in the AF_SMC sock, where SO_ERROR reads
 * them.  Whichever side consumes the error first, the other copy goes too,
 * so the fd reports each error once, as TCP would.
 *
 * smc_clcsock_err_sync() runs before and after every call into TCP that
 * may consume an error.
 */
void smc_clcsock_err_sync(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;

	if (!READ_ONCE(smc->clc_err_mirrored))
		return;
	write_lock_bh(&clcsk->sk_callback_lock);
	if (!READ_ONCE(smc->sk.sk_err)) {
		/* SO_ERROR took it */
		WRITE_ONCE(clcsk->sk_err, 0);
		smc->clc_err_mirrored = false;
	} else if (!READ_ONCE(clcsk->sk_err)) {
		/* TCP returned it from a call */
		WRITE_ONCE(smc->sk.sk_err, 0);
		smc->clc_err_mirrored = false;
	}
	write_unlock_bh(&clcsk->sk_callback_lock);
}
