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
 * Each then calls the callback the clcsock had before (TCP's own), which
 * wakes the AF_SMC socket's wait queue (the clcsock's sk_wq points there).
 * Those originals are kept per socket, in the owner's clcsk_cb, and put
 * back before the clcsock is released, so a TCP socket that lingers in its
 * closing states never calls into this module after it is gone.
 *
 * A TCP sock whose callbacks or sk_user_data someone else has taken (a
 * BPF sockmap, an in-kernel user) is never made a clcsock: TCP_ULP asks
 * smc_clcsock_check() first.  Our own clcsocks are fresh TCP socks.  So
 * every clcsock's originals are TCP's own, which is what a call that
 * finds no owner (a child cloned from one of our listeners and not yet
 * attached, or a call that raced the detach) forwards to.
 */
#include <net/sock.h>
#include <net/tcp.h>
#include "smc.h"

/* What a new TCP sock starts with; read once at module init. */
static struct smc_clcsock_cb smc_tcp_cb __ro_after_init;
static void (*smc_tcp_write_space)(struct sock *sk) __ro_after_init;

/* Record TCP's own callbacks from a TCP sock made for the purpose. */
int __init smc_clcsock_init(void)
{
	struct socket *probe;
	struct sock *sk;
	int rc;

	rc = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			      &probe);
	if (rc)
		return rc;
	sk = probe->sk;
	smc_tcp_cb.state_change = sk->sk_state_change;
	smc_tcp_cb.data_ready = sk->sk_data_ready;
	smc_tcp_cb.error_report = sk->sk_error_report;
	smc_tcp_write_space = sk->sk_write_space;
	sock_release(probe);
	return 0;
}

/* Call with clcsk->sk_callback_lock held. */
static struct smc_sock *smc_clcsock_owner(const struct sock *clcsk)
{
	return (struct smc_sock *)((uintptr_t)clcsk->sk_user_data &
				   SK_USER_DATA_PTRMASK);
}

/*
 * The callbacks @clcsk had before ours: its owner's record, or with no
 * owner TCP's own (see the top of the file).  Call with
 * clcsk->sk_callback_lock held; the pointers read stay valid after it.
 */
static const struct smc_clcsock_cb *smc_clcsock_orig(const struct sock *clcsk)
{
	struct smc_sock *smc = smc_clcsock_owner(clcsk);

	return smc ? &smc->clcsk_cb : &smc_tcp_cb;
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
	void (*orig)(struct sock *sk);
	struct smc_sock *smc;
	bool quiet;

	read_lock_bh(&clcsk->sk_callback_lock);
	smc = smc_clcsock_owner(clcsk);
	if (smc)
		smc_connect_state_change(smc, clcsk);
	quiet = smc_clcsock_quiet(smc);
	orig = smc_clcsock_orig(clcsk)->state_change;
	read_unlock_bh(&clcsk->sk_callback_lock);
	if (!quiet)
		orig(clcsk);
}

/*
 * Is @sk one of ours: a clcsock, or a child TCP cloned from one of our
 * listeners and not accepted yet?  For callers that may hold any TCP sock
 * (tcp_opt.c's eBPF hook).  Call with sk->sk_callback_lock held.
 */
bool smc_clcsock_ours(const struct sock *sk)
{
	return sk->sk_state_change == smc_clcsock_state_change;
}

/*
 * The owner of @sk if @sk is one of our clcsocks, else NULL (not ours, or
 * a child not yet accepted).  Call with sk->sk_callback_lock held.
 */
struct smc_sock *smc_clcsock_owner_of(const struct sock *sk)
{
	return smc_clcsock_ours(sk) ? smc_clcsock_owner(sk) : NULL;
}

static void smc_clcsock_data_ready(struct sock *clcsk)
{
	void (*orig)(struct sock *sk);
	bool listening = false, quiet;
	struct smc_sock *smc;

	read_lock_bh(&clcsk->sk_callback_lock);
	smc = smc_clcsock_owner(clcsk);
	if (smc && READ_ONCE(clcsk->sk_state) == TCP_LISTEN) {
		smc_listen_data_ready(smc);
		listening = true;
	}
	quiet = smc_clcsock_quiet(smc);
	orig = smc_clcsock_orig(clcsk)->data_ready;
	read_unlock_bh(&clcsk->sk_callback_lock);
	/* A listener's waiters are woken by the accept queue, not by TCP. */
	if (!listening && !quiet)
		orig(clcsk);
}

static void smc_clcsock_error_report(struct sock *clcsk)
{
	void (*orig)(struct sock *sk);
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
	orig = smc_clcsock_orig(clcsk)->error_report;
	read_unlock_bh(&clcsk->sk_callback_lock);
	orig(clcsk);
}

/*
 * May @sk, a TCP sock, become a clcsock?  Only if nobody else holds its
 * sk_user_data or has replaced one of its callbacks (a BPF sockmap does
 * both): ours would cut them off, or theirs us.  Another ULP (kTLS) never
 * gets here, the kernel refuses a second one.  0, or -EBUSY.  Call with
 * @sk locked and attach before unlocking it: sockmap locks it too.
 */
int smc_clcsock_check(struct sock *sk)
{
	int rc = 0;

	sock_owned_by_me(sk);
	read_lock_bh(&sk->sk_callback_lock);
	if (rcu_access_pointer(sk->sk_user_data) ||
	    sk->sk_state_change != smc_tcp_cb.state_change ||
	    sk->sk_data_ready != smc_tcp_cb.data_ready ||
	    sk->sk_error_report != smc_tcp_cb.error_report ||
	    sk->sk_write_space != smc_tcp_write_space)
		rc = -EBUSY;
	read_unlock_bh(&sk->sk_callback_lock);
	return rc;
}

/*
 * Make @smc the owner of its clcsock and install our callbacks, keeping
 * the clcsock's own in @smc.  The clcsock is fresh, accepted from one of
 * our listeners, or passed smc_clcsock_check().
 */
void smc_clcsock_attach(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;
	struct smc_sock *owner;

	write_lock_bh(&clcsk->sk_callback_lock);
	owner = smc_clcsock_owner(clcsk);
	WARN_ON_ONCE(owner && owner != smc);
	if (clcsk->sk_state_change == smc_clcsock_state_change) {
		/*
		 * Cloned from one of our listeners, whose originals, TCP's
		 * own, are the child's too; or attached again.
		 */
		smc->clcsk_cb = *smc_clcsock_orig(clcsk);
	} else {
		smc->clcsk_cb.state_change = clcsk->sk_state_change;
		smc->clcsk_cb.data_ready = clcsk->sk_data_ready;
		smc->clcsk_cb.error_report = clcsk->sk_error_report;
		clcsk->sk_state_change = smc_clcsock_state_change;
		clcsk->sk_data_ready = smc_clcsock_data_ready;
		clcsk->sk_error_report = smc_clcsock_error_report;
	}
	__rcu_assign_sk_user_data_with_flags(clcsk, smc, SK_USER_DATA_NOCOPY);
	write_unlock_bh(&clcsk->sk_callback_lock);
}

/*
 * Undo smc_clcsock_attach(); the clcsock's own callbacks are back when it
 * returns.  Also for a child clcsock that was never attached.
 */
void smc_clcsock_detach(struct socket *clcsock)
{
	struct sock *clcsk = clcsock->sk;
	const struct smc_clcsock_cb *orig;

	write_lock_bh(&clcsk->sk_callback_lock);
	orig = smc_clcsock_orig(clcsk);
	if (clcsk->sk_state_change == smc_clcsock_state_change) {
		clcsk->sk_state_change = orig->state_change;
		clcsk->sk_data_ready = orig->data_ready;
		clcsk->sk_error_report = orig->error_report;
	}
	rcu_assign_sk_user_data(clcsk, NULL);
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
