// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: the AF_SMC socket family.
 *
 * Every AF_SMC socket owns a companion TCP socket, the clcsock.  Until an
 * SMC-R connection is established, and for good once the socket has fallen
 * back, each operation on the AF_SMC socket is carried out by the clcsock.
 * The clcsock is never swapped in behind the application's file: it stays
 * owned by the AF_SMC socket until that socket is released, so a thread
 * inside any call on the fd always sees both sockets alive and whole.
 *
 * The clcsock reports its wake-ups on the AF_SMC socket's wait queue (its
 * sk_wq points there), so poll, epoll and blocking calls need no second
 * registration and no callback rewiring when the mode is decided.
 */
#include <linux/module.h>
#include <linux/smc.h>
#include <linux/sock_diag.h>
#include <net/genetlink.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/sockptr.h>
#include <linux/splice.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "smc.h"
#include "clc.h"
#include "ib.h"
#include "iw.h"
#include "core.h"
#include "eid.h"
#include "pnet.h"
#include "sysctl.h"
#include "bpf_hook.h"
#include "trace.h"
#include "testhooks.h"

struct workqueue_struct *smc_wq;

struct smc_sock_list smc_sock_list = {
	.lock = __RW_LOCK_UNLOCKED(smc_sock_list.lock),
};

#ifndef SMC_HAVE_CUSTOM_SOCKOPT
static void smc_keepalive(struct sock *sk, int on);
#endif

struct proto smc_proto = {
	.name		= "SMC",
	.owner		= THIS_MODULE,
	.obj_size	= sizeof(struct smc_sock),
#ifndef SMC_HAVE_CUSTOM_SOCKOPT
	.keepalive	= smc_keepalive,
#endif
};

void smc_sock_link(struct sock *sk)
{
	write_lock_bh(&smc_sock_list.lock);
	sk_add_node(sk, &smc_sock_list.head);
	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, 1);
	write_unlock_bh(&smc_sock_list.lock);
}

static void smc_sock_unlink(struct sock *sk)
{
	write_lock_bh(&smc_sock_list.lock);
	if (sk_del_node_init(sk))
		sock_prot_inuse_add(sock_net(sk), sk->sk_prot, -1);
	write_unlock_bh(&smc_sock_list.lock);
}

struct smc_sock *smc_sock_alloc(struct net *net, struct socket *sock,
				int protocol)
{
	struct smc_sock *smc;
	struct sock *sk;

	sk = sk_alloc(net, PF_SMC, GFP_KERNEL, &smc_proto, 0);
	if (!sk)
		return NULL;
	sock_init_data(sock, sk);
	smc = smc_sk(sk);
	smc_sock_init(smc, protocol);
	return smc;
}

/* The SMC part of a new sock, allocated here or by inet_create(). */
void smc_sock_init(struct smc_sock *smc, int protocol)
{
	struct sock *sk = &smc->sk;

	sk->sk_type = SOCK_STREAM;
	sk->sk_protocol = protocol;
	sk->sk_state = TCP_CLOSE;
	smc->hs_state = SMC_HS_NONE;
	INIT_WORK(&smc->connect_work, smc_connect_work);
	INIT_WORK(&smc->accept_work, smc_accept_work);
	INIT_WORK(&smc->hs_work, smc_hs_work);
	INIT_LIST_HEAD(&smc->accept_q);
	INIT_LIST_HEAD(&smc->accept_node);
	smc_conn_init(&smc->conn);
	smc_conn_init_close(&smc->conn);
}

/*
 * Final teardown of a socket that no thread can reach any more (released
 * by its file, or a child that never got one).
 */
void smc_sock_destroy(struct smc_sock *smc)
{
	struct socket *clcsock = smc->clcsock;

	/*
	 * close.c detaches an SMC-R connection before it gets here; left
	 * attached, it would stay in the link group's tree after the sock is
	 * freed, with the link group's reference.
	 */
	if (WARN_ON_ONCE(smc->conn.attached))
		smc_conn_free(smc);
	/* Unlink first: sock_diag reads the clcsock only while linked. */
	smc_sock_unlink(&smc->sk);
	smc->sk.sk_state = TCP_CLOSE;
	if (clcsock) {
		smc->clcsock = NULL;
		/* Borrowed from the AF_SMC socket, see smc_splice_read(). */
		clcsock->file = NULL;
		smc_clcsock_detach(clcsock);
		sock_release(clcsock);
	}
	sock_put(&smc->sk);
}

void smc_set_fallback(struct smc_sock *smc, u32 reason)
{
	smc->fallback_reason = reason;
	WRITE_ONCE(smc->use_fallback, true);
	trace_smc_switch_to_fallback(smc, reason);
	smc_stats_fallback(sock_net(&smc->sk), smc->server, reason);
}

/* Let the clcsock wake whoever waits on the AF_SMC socket @sock. */
void smc_clcsock_redirect_wq(struct smc_sock *smc, struct socket *sock)
{
	struct sock *clcsk = smc->clcsock->sk;

	write_lock_bh(&clcsk->sk_callback_lock);
	rcu_assign_pointer(clcsk->sk_wq, &sock->wq);
	write_unlock_bh(&clcsk->sk_callback_lock);
}

#define SMC_SK_FLAGS_FROM_CLC ((1UL << SOCK_LINGER) | \
			       (1UL << SOCK_KEEPOPEN) | \
			       (1UL << SOCK_URGINLINE) | \
			       (1UL << SOCK_BROADCAST) | \
			       (1UL << SOCK_DBG) | \
			       (1UL << SOCK_LOCALROUTE) | \
			       (1UL << SOCK_RCVTSTAMP) | \
			       (1UL << SOCK_RCVTSTAMPNS) | \
			       (1UL << SOCK_ZEROCOPY))

/*
 * SOL_SOCKET getsockopt() reads the AF_SMC sock directly, so it has to
 * mirror what TCP has: at creation, and for accepted sockets the values
 * TCP inherited from the listener.
 */
void smc_copy_sockopts_from_clc(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;
	struct sock *sk = &smc->sk;

	sk->sk_flags = (sk->sk_flags & ~SMC_SK_FLAGS_FROM_CLC) |
		       (clcsk->sk_flags & SMC_SK_FLAGS_FROM_CLC);
	WRITE_ONCE(sk->sk_sndbuf, READ_ONCE(clcsk->sk_sndbuf));
	WRITE_ONCE(sk->sk_rcvbuf, READ_ONCE(clcsk->sk_rcvbuf));
	WRITE_ONCE(sk->sk_rcvtimeo, READ_ONCE(clcsk->sk_rcvtimeo));
	WRITE_ONCE(sk->sk_sndtimeo, READ_ONCE(clcsk->sk_sndtimeo));
	WRITE_ONCE(sk->sk_lingertime, READ_ONCE(clcsk->sk_lingertime));
	WRITE_ONCE(sk->sk_rcvlowat, READ_ONCE(clcsk->sk_rcvlowat));
	WRITE_ONCE(sk->sk_mark, READ_ONCE(clcsk->sk_mark));
	WRITE_ONCE(sk->sk_priority, READ_ONCE(clcsk->sk_priority));
	WRITE_ONCE(sk->sk_bound_dev_if, READ_ONCE(clcsk->sk_bound_dev_if));
	sk->sk_userlocks = clcsk->sk_userlocks;
	sk->sk_reuse = clcsk->sk_reuse;
	sk->sk_reuseport = clcsk->sk_reuseport;
}

#ifndef SMC_HAVE_CUSTOM_SOCKOPT
/*
 * Kernels before 6.9 give SOL_SOCKET setsockopt() to the AF_SMC sock
 * alone (no SOCK_CUSTOM_SOCKOPT), never to smc_setsockopt().  TCP learns
 * them here instead: at bind(), connect() and listen(), and before every
 * call a fallback socket hands to TCP (send, receive, poll, shutdown,
 * close).  Only what differs is written, without the clcsock's lock:
 * TCP's own changes to its flags (atomic bit operations here) and its
 * buffer autotuning (sizes only when the application fixed them) stay.
 * SO_KEEPALIVE also starts or stops TCP's timer: smc_keepalive().
 */
void smc_copy_sockopts_to_clc(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;
	struct sock *sk = &smc->sk;
	unsigned long mask = SMC_SK_FLAGS_FROM_CLC;
	unsigned long diff;
	int bit;

	diff = (READ_ONCE(sk->sk_flags) ^ READ_ONCE(clcsk->sk_flags)) & mask;
	for_each_set_bit(bit, &diff, BITS_PER_LONG) {
		if (sock_flag(sk, bit))
			set_bit(bit, &clcsk->sk_flags);
		else
			clear_bit(bit, &clcsk->sk_flags);
	}
	if (clcsk->sk_userlocks != sk->sk_userlocks)
		clcsk->sk_userlocks = sk->sk_userlocks;
	if (sk->sk_userlocks & SOCK_SNDBUF_LOCK)
		WRITE_ONCE(clcsk->sk_sndbuf, READ_ONCE(sk->sk_sndbuf));
	if (sk->sk_userlocks & SOCK_RCVBUF_LOCK)
		WRITE_ONCE(clcsk->sk_rcvbuf, READ_ONCE(sk->sk_rcvbuf));
	WRITE_ONCE(clcsk->sk_rcvtimeo, READ_ONCE(sk->sk_rcvtimeo));
	WRITE_ONCE(clcsk->sk_sndtimeo, READ_ONCE(sk->sk_sndtimeo));
	WRITE_ONCE(clcsk->sk_lingertime, READ_ONCE(sk->sk_lingertime));
	WRITE_ONCE(clcsk->sk_rcvlowat, READ_ONCE(sk->sk_rcvlowat));
	WRITE_ONCE(clcsk->sk_priority, READ_ONCE(sk->sk_priority));
	if (READ_ONCE(clcsk->sk_mark) != READ_ONCE(sk->sk_mark) ||
	    READ_ONCE(clcsk->sk_bound_dev_if) !=
	    READ_ONCE(sk->sk_bound_dev_if)) {
		WRITE_ONCE(clcsk->sk_mark, READ_ONCE(sk->sk_mark));
		WRITE_ONCE(clcsk->sk_bound_dev_if,
			   READ_ONCE(sk->sk_bound_dev_if));
		sk_dst_reset(clcsk);
	}
	if (clcsk->sk_reuse != sk->sk_reuse)
		clcsk->sk_reuse = sk->sk_reuse;
	if (clcsk->sk_reuseport != sk->sk_reuseport)
		clcsk->sk_reuseport = sk->sk_reuseport;
}

/* SO_KEEPALIVE on the AF_SMC sock (locked): TCP's timer follows it. */
static void smc_keepalive(struct sock *sk, int on)
{
	struct socket *clcsock = smc_sk(sk)->clcsock;
	struct sock *clcsk;

	if (!clcsock)
		return;
	clcsk = clcsock->sk;
	lock_sock(clcsk);
	if (clcsk->sk_prot->keepalive)
		clcsk->sk_prot->keepalive(clcsk, on);
	sock_valbool_flag(clcsk, SOCK_KEEPOPEN, on);
	release_sock(clcsk);
}
#endif

static int smc_create(struct net *net, struct socket *sock, int protocol,
		      int kern)
{
	struct smc_sock *smc;
	int family, rc;

	if (sock->type != SOCK_STREAM)
		return -ESOCKTNOSUPPORT;
	if (protocol != SMCPROTO_SMC && protocol != SMCPROTO_SMC6)
		return -EPROTONOSUPPORT;
	family = protocol == SMCPROTO_SMC6 ? AF_INET6 : AF_INET;

	sock->state = SS_UNCONNECTED;
	sock->ops = &smc_ops;
	smc = smc_sock_alloc(net, sock, protocol);
	if (!smc)
		return -ENOBUFS;
	rc = smc_sock_open(smc, sock, family, kern);
	if (rc) {
		sock_orphan(&smc->sk);
		sock->sk = NULL;
		sock_put(&smc->sk);
	}
	return rc;
}

/*
 * Give @smc, new and owned by @sock, its clcsock of @family and make it
 * visible to sock_diag.  On failure only the sock itself is left to free.
 */
int smc_sock_open(struct smc_sock *smc, struct socket *sock, int family,
		  int kern)
{
	struct socket *clcsock;
	int rc;

	rc = __sock_create(sock_net(&smc->sk), family, SOCK_STREAM,
			   IPPROTO_TCP, &clcsock, kern);
	if (rc)
		return rc;
	smc_sock_adopt(smc, sock, clcsock);
	return 0;
}

/*
 * Make @clcsock, an unconnected TCP socket, the companion of @smc (new)
 * and make @smc visible to sock_diag.  @sock is the socket the application
 * holds: @smc's own, or for TCP_ULP (ulp.c) the fd's TCP socket; the
 * clcsock wakes its queue and its SOL_SOCKET options come to
 * smc_setsockopt().  Cannot fail: ulp.c calls it once nothing may be
 * undone any more.
 */
void smc_sock_adopt(struct smc_sock *smc, struct socket *sock,
		    struct socket *clcsock)
{
	smc->clcsock = clcsock;
	/* SOL_SOCKET options must reach both sockets, see smc_setsockopt. */
#ifdef SMC_HAVE_CUSTOM_SOCKOPT
	set_bit(SOCK_CUSTOM_SOCKOPT, &sock->flags);
#endif
	smc_clcsock_redirect_wq(smc, sock);
	smc_clcsock_attach(smc);
	smc_copy_sockopts_from_clc(smc);
	smc_sock_link(&smc->sk);
}

static int smc_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct smc_sock *smc;
	bool smcr;

	if (!sk)
		return 0;
	smc = smc_sk(sk);
	if (sk->sk_state == TCP_LISTEN)
		smc_listen_close(smc);
	smc_connect_abort(smc);
	smcr = smc_is_smcr(smc);
	if (smcr)
		smc_close_active(smc);

	lock_sock(sk);
	sock_orphan(sk);
	/*
	 * An SMC-R connection outlives @sock, and so does its clcsock: let
	 * TCP's wake-ups go to the clcsock's own queue, not to freed memory.
	 */
	if (smcr)
		smc_clcsock_redirect_wq(smc, smc->clcsock);
	sock->sk = NULL;
	release_sock(sk);
	if (smcr) {
		smc_close_orphan(smc);
	} else {
		/* SO_LINGER decides how TCP closes */
		if (smc->clcsock)
			smc_copy_sockopts_to_clc(smc);
		smc_sock_destroy(smc);
	}
	return 0;
}

static int smc_bind(struct socket *sock, struct sockaddr_unsized *addr, int alen)
{
	struct sock *sk = sock->sk;
	struct socket *clcsock = smc_sk(sk)->clcsock;
	int rc;

	lock_sock(sk);
	smc_copy_sockopts_to_clc(smc_sk(sk));
	rc = clcsock->ops->bind(clcsock, addr, alen);
	release_sock(sk);
	return rc;
}

static int smc_getname(struct socket *sock, struct sockaddr *addr, int peer)
{
	struct socket *clcsock = smc_sk(sock->sk)->clcsock;

	return clcsock->ops->getname(clcsock, addr, peer);
}

static __poll_t smc_fallback_poll(struct file *file, struct smc_sock *smc)
{
	/* SO_RCVLOWAT decides when TCP says EPOLLIN */
	smc_copy_sockopts_to_clc(smc);
	return smc->clcsock->ops->poll(file, smc->clcsock, NULL);
}

static __poll_t smc_poll(struct file *file, struct socket *sock,
			 poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct smc_sock *smc = smc_sk(sk);
	__poll_t mask;

	sock_poll_wait(file, sock, wait);
	smc_clcsock_err_sync(smc);
	if (READ_ONCE(sk->sk_state) == TCP_LISTEN)
		mask = smc_listen_poll(smc);
	/* pairs with the release when the handshake is decided */
	else if (smp_load_acquire(&smc->hs_state) == SMC_HS_RUNNING)
		mask = 0;
	else if (smc_is_smcr(smc))
		mask = smc_rx_poll(smc);
	else
		mask = smc_fallback_poll(file, smc);
	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	return mask;
}

static int smc_ioctl(struct socket *sock, unsigned int cmd, unsigned long arg)
{
	struct smc_sock *smc = smc_sk(sock->sk);
	struct socket *clcsock = smc->clcsock;
	int val, rc;

	if (smc_is_smcr(smc)) {
		rc = smc_rx_ioctl(smc, cmd, &val);
		if (rc != -ENOIOCTLCMD)
			return rc ?: put_user(val, (int __user *)arg);
	}
	return clcsock->ops->ioctl(clcsock, cmd, arg);
}

#ifdef CONFIG_COMPAT
static int smc_compat_ioctl(struct socket *sock, unsigned int cmd,
			    unsigned long arg)
{
	struct socket *clcsock = smc_sk(sock->sk)->clcsock;

	if (!clcsock->ops->compat_ioctl)
		return -ENOIOCTLCMD;
	return clcsock->ops->compat_ioctl(clcsock, cmd, arg);
}
#endif

static int smc_gettstamp(struct socket *sock, void __user *userstamp,
			 bool timeval, bool time32)
{
	struct socket *clcsock = smc_sk(sock->sk)->clcsock;

	return clcsock->ops->gettstamp(clcsock, userstamp, timeval, time32);
}

static int smc_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;
	struct smc_sock *smc = smc_sk(sk);
	bool stop_listening;
	int rc;

	if (how < SHUT_RD || how > SHUT_RDWR)
		return -EINVAL;
	if (smc_is_smcr(smc))
		return smc_close_shutdown(smc, how);
	lock_sock(sk);
	smc_copy_sockopts_to_clc(smc);
	rc = kernel_sock_shutdown(smc->clcsock, how);
	stop_listening = !rc && sk->sk_state == TCP_LISTEN &&
			 ((how + 1) & RCV_SHUTDOWN);
	release_sock(sk);
	if (stop_listening)
		smc_listen_close(smc);
	return rc;
}

static bool smc_is_fastopen_opt(int level, int optname)
{
	return level == SOL_TCP &&
	       (optname == TCP_FASTOPEN || optname == TCP_FASTOPEN_CONNECT ||
		optname == TCP_FASTOPEN_NO_COOKIE ||
		optname == TCP_FASTOPEN_KEY);
}

/* Larger than any fixed-size SOL_SOCKET option value. */
#define SMC_SOCKOPT_BUF	64

static int smc_setsockopt(struct socket *sock, int level, int optname,
			  sockptr_t optval, unsigned int optlen)
{
	struct sock *sk = sock->sk;
	struct smc_sock *smc = smc_sk(sk);
	struct socket *clcsock = smc->clcsock;
	u8 buf[SMC_SOCKOPT_BUF];
	int rc;

	if (level == SOL_TCP && optname == TCP_ULP)
		return -EOPNOTSUPP;

	if (level != SOL_SOCKET) {
		rc = clcsock->ops->setsockopt(clcsock, level, optname, optval,
					      optlen);
		if (!rc && level == SOL_TCP && smc_is_smcr(smc) &&
		    (optname == TCP_CORK || optname == TCP_NODELAY))
			smc_tx_uncork(smc);
		if (!rc && smc_is_fastopen_opt(level, optname)) {
			/* The SMC option and TCP fast open do not mix. */
			lock_sock(sk);
			if (smc->hs_state == SMC_HS_NONE &&
			    sk->sk_state != TCP_LISTEN)
				smc->fallback_reason = SMC_CLC_DECL_OPTUNSUPP;
			release_sock(sk);
		}
		return rc;
	}

	/*
	 * TCP acts on SOL_SOCKET options; the AF_SMC sock keeps a copy
	 * because SOL_SOCKET getsockopt() is answered from it.
	 */
	if (optlen > sizeof(buf))
		return sock_setsockopt(clcsock, level, optname, optval, optlen);
	if (copy_from_sockptr(buf, optval, optlen))
		return -EFAULT;
	rc = sock_setsockopt(clcsock, level, optname, KERNEL_SOCKPTR(buf),
			     optlen);
	if (!rc)
		sock_setsockopt(sock, level, optname, KERNEL_SOCKPTR(buf),
				optlen);
	return rc;
}

static int smc_getsockopt(struct socket *sock, int level, int optname,
			  char __user *optval, int __user *optlen)
{
	struct socket *clcsock = smc_sk(sock->sk)->clcsock;

	return clcsock->ops->getsockopt(clcsock, level, optname, optval,
					optlen);
}

/*
 * Data calls made while the handshake runs wait for its outcome, as TCP's
 * would wait for the connection.  Returns 0 when the call may proceed.
 */
static int smc_wait_hs(struct smc_sock *smc, bool nonblock, long timeo)
{
	struct sock *sk = &smc->sk;
	int rc;

	/* pairs with the release when the handshake is decided */
	if (smp_load_acquire(&smc->hs_state) != SMC_HS_RUNNING)
		return 0;
	if (nonblock)
		return -EAGAIN;

	lock_sock(sk);
	rc = smc_hs_wait(smc, timeo);
	if (!rc && sk->sk_err)
		rc = sock_error(sk);
	release_sock(sk);
	return rc;
}

static int smc_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct sock *sk = sock->sk;
	struct smc_sock *smc = smc_sk(sk);
	bool nonblock = msg->msg_flags & MSG_DONTWAIT;
	int rc;

	rc = smc_wait_hs(smc, nonblock, sock_sndtimeo(sk, nonblock));
	if (rc)
		return rc;
	if (smc_is_smcr(smc))
		return smc_tx_sendmsg(smc, msg, len);
	smc_copy_sockopts_to_clc(smc);
	smc_clcsock_err_sync(smc);
	rc = smc->clcsock->ops->sendmsg(smc->clcsock, msg, len);
	smc_clcsock_err_sync(smc);
	return rc;
}

static int smc_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
		       int flags)
{
	struct sock *sk = sock->sk;
	struct smc_sock *smc = smc_sk(sk);
	bool nonblock = flags & MSG_DONTWAIT;
	int rc;

	rc = smc_wait_hs(smc, nonblock, sock_rcvtimeo(sk, nonblock));
	if (rc)
		return rc;
	if (smc_is_smcr(smc))
		return smc_rx_recvmsg(smc, msg, len, flags);
	smc_copy_sockopts_to_clc(smc);
	smc_clcsock_err_sync(smc);
	rc = smc->clcsock->ops->recvmsg(smc->clcsock, msg, len, flags);
	smc_clcsock_err_sync(smc);
	return rc;
}

static ssize_t smc_splice_read(struct socket *sock, loff_t *ppos,
			       struct pipe_inode_info *pipe, size_t len,
			       unsigned int flags)
{
	struct sock *sk = sock->sk;
	struct smc_sock *smc = smc_sk(sk);
	bool nonblock = (flags & SPLICE_F_NONBLOCK) ||
			(sock->file && (sock->file->f_flags & O_NONBLOCK));
	ssize_t rc;

	rc = smc_wait_hs(smc, nonblock, sock_rcvtimeo(sk, nonblock));
	if (rc)
		return rc;
	/* SMC-R: copied out of the RMB through our own recvmsg */
	if (smc_is_smcr(smc))
		return copy_splice_read(sock->file, ppos, pipe, len, flags);
	/*
	 * TCP's splice looks at its socket's file for O_NONBLOCK; lend it
	 * ours.  It is the same pointer every time and is cleared before the
	 * clcsock is released.
	 */
	WRITE_ONCE(smc->clcsock->file, sock->file);
	smc_copy_sockopts_to_clc(smc);
	smc_clcsock_err_sync(smc);
	rc = smc->clcsock->ops->splice_read(smc->clcsock, ppos, pipe, len,
					    flags);
	smc_clcsock_err_sync(smc);
	return rc;
}

#ifdef SMC_HAVE_SPLICE_EOF
static void smc_splice_eof(struct socket *sock)
{
	struct smc_sock *smc = smc_sk(sock->sk);

	/* pairs with the release when the handshake is decided */
	if (smp_load_acquire(&smc->hs_state) == SMC_HS_DONE &&
	    smc->clcsock->ops->splice_eof)
		smc->clcsock->ops->splice_eof(smc->clcsock);
}
#endif

SMC_DEFINE_ACCEPT_OP(smc_accept);

const struct proto_ops smc_ops = {
	.family		= PF_SMC,
	.owner		= THIS_MODULE,
	.release	= smc_release,
	.bind		= smc_bind,
	.connect	= smc_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= SMC_ACCEPT_OP(smc_accept),
	.getname	= smc_getname,
	.poll		= smc_poll,
	.ioctl		= smc_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= smc_compat_ioctl,
#endif
	.gettstamp	= smc_gettstamp,
	.listen		= smc_listen,
	.shutdown	= smc_shutdown,
	.setsockopt	= smc_setsockopt,
	.getsockopt	= smc_getsockopt,
	.sendmsg	= smc_sendmsg,
	.recvmsg	= smc_recvmsg,
	.mmap		= sock_no_mmap,
	.splice_read	= smc_splice_read,
#ifdef SMC_HAVE_SPLICE_EOF
	.splice_eof	= smc_splice_eof,
#endif
};

static const struct net_proto_family smc_family_ops = {
	.family	= PF_SMC,
	.owner	= THIS_MODULE,
	.create	= smc_create,
};

static int __init smc_init(void)
{
	int rc;

	rc = smc_clc_init();
	if (rc)
		return rc;
	smc_bpf_hook_init();
	smc_wq = alloc_workqueue("smc_wq", WQ_UNBOUND, 0);
	if (!smc_wq)
		return -ENOMEM;
	smc_hostile_init();
	smc_faultinj_init();
	rc = proto_register(&smc_proto, 1);
	if (rc)
		goto out_wq;
	rc = smc_sysctl_init();
	if (rc)
		goto out_proto;
	smc_eid_init();
	rc = smc_lgr_init();
	if (rc)
		goto out_eid;
	rc = smc_stats_init();
	if (rc)
		goto out_lgr;
	rc = smc_close_init();
	if (rc)
		goto out_stats;
	rc = smc_nl_init();
	if (rc)
		goto out_close;
	rc = smc_diag_init();
	if (rc)
		goto out_nl;
	rc = smc_pnet_init();
	if (rc)
		goto out_diag;
	rc = smc_ib_init();
	if (rc)
		goto out_pnet;
	rc = sock_register(&smc_family_ops);
	if (rc)
		goto out_ib;
	rc = smc_inet_init();
	if (rc)
		goto out_sock;
	/* last: it hands out sockets made with everything above */
	rc = smc_ulp_register();
	if (rc)
		goto out_inet;
	smc_tcp_option_enable();
	return 0;

out_inet:
	smc_inet_exit();
out_sock:
	sock_unregister(PF_SMC);
out_ib:
	smc_ib_exit();
out_pnet:
	smc_pnet_exit();
out_diag:
	smc_diag_exit();
out_nl:
	smc_nl_exit();
out_close:
	smc_close_exit();
out_stats:
	smc_stats_exit();
out_lgr:
	smc_lgr_exit();
out_eid:
	smc_eid_exit();
	smc_sysctl_exit();
out_proto:
	proto_unregister(&smc_proto);
out_wq:
	smc_faultinj_exit();
	smc_hostile_exit();
	destroy_workqueue(smc_wq);
	return rc;
}

static void __exit smc_exit(void)
{
	smc_ulp_unregister();
	smc_tcp_option_disable();
	smc_inet_exit();
	sock_unregister(PF_SMC);
	/* no sockets are left: every link group can go */
	smc_lgr_exit();
	smc_iw_exit();		/* the iWARP listener, free of links now */
	smc_ib_exit();
	smc_pnet_exit();
	smc_diag_exit();
	smc_nl_exit();
	smc_close_exit();
	smc_stats_exit();
	smc_eid_exit();
	smc_sysctl_exit();
	smc_faultinj_exit();
	smc_hostile_exit();
	destroy_workqueue(smc_wq);
	proto_unregister(&smc_proto);
}

module_init(smc_init);
module_exit(smc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Shared Memory Communications over RDMA (SMC-R)");
/* dkms.conf's version: DKMS replaces the in-tree smc.ko only if set */
MODULE_VERSION("0.4");
MODULE_ALIAS_NETPROTO(PF_SMC);
MODULE_ALIAS_GENL_FAMILY(SMC_GENL_FAMILY_NAME);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_NETLINK, NETLINK_SOCK_DIAG, AF_SMC);
