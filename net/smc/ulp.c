// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: the TCP upper-layer protocol
 * "smc".  setsockopt(fd, SOL_TCP, TCP_ULP, "smc", 4) on a fresh TCP socket
 * makes the fd run SMC.  The fd stays a TCP socket: SMC is attached to it
 * the way kTLS attaches to TCP, by a ULP context and new proto_ops.
 *
 * Three struct socket take part:
 *
 *  - the file's own socket ("shell"): it is the file's socket, and its
 *    ->sk is the TCP sock, for the file's whole life; neither the file
 *    (private_data, inode, dentry) nor shell->sk is ever changed.  Only
 *    its proto_ops are switched, to ops that hand every call to the SMC
 *    socket;
 *  - the SMC socket: an internal struct socket that no file refers to.
 *    The TCP sock's ULP context (icsk_ulp_data) points at it, and that is
 *    how the shell's ops find it.  Its ->file is the shell's file, lent
 *    for code that looks at the file (O_NONBLOCK, splice); its inode gets
 *    the file inode's number, so sock_diag and /proc/PID/fd agree;
 *  - the clcsock: a new file-less struct socket that the TCP sock is
 *    grafted onto (TCP's proto_ops), so the SMC socket drives the very TCP
 *    connection the fd was created with.  Its inode also gets the file
 *    inode's number, for TCP's sock_diag and /proc/net/tcp.
 *
 * Publication: smc_ulp_init() runs under the TCP sock's lock.  It builds
 * the SMC socket completely, stores it in icsk_ulp_data (release) and only
 * then switches the shell's ops (release).  A shell op runs only after its
 * caller read the new ops, and reads icsk_ulp_data after an smp_rmb(), so
 * it always finds the complete SMC socket.  icsk_ulp_data is never cleared
 * while the file is open, and the shell holds a reference on the TCP sock
 * until its release, so shell->sk stays valid memory even once TCP is done.
 *
 * A thread that read TCP's ops just before the switch may still finish
 * its call on the TCP sock.  The switch parks the shell's state at
 * SS_DISCONNECTING, which TCP's connect() and listen() refuse (EINVAL)
 * once they get the sock lock, so such a thread cannot connect or listen
 * the TCP sock behind the SMC socket's back.  A SOL_SOCKET setsockopt()
 * racing the switch may fail with ENOPROTOOPT or reach TCP only.
 *
 * Wait queues: the SMC sock and the TCP sock both wake the shell's queue
 * (their sk_wq point there), so poll(), epoll and blocking calls that
 * registered on the fd before, during or after the switch are all woken;
 * the shell's .poll waits on the shell's queue itself and asks the SMC
 * socket only for the mask.  SIGIO (O_ASYNC) works too: sock_fasync() on
 * the fd flags the TCP sock, and the SMC sock is flagged from the switch
 * on; the signal is sent only while the shell's fasync list has entries.
 * On close, no sock is left pointing at the shell's queue: the SMC sock
 * is orphaned, and the TCP sock is orphaned by its release (TCP mode) or
 * sent to the clcsock's queue (an SMC-R connection that outlives the fd,
 * see smc_release()).
 *
 * close() ends in the shell's .release: it releases the SMC socket, which
 * releases its clcsock and with it the TCP sock, as for any AF_SMC socket.
 *
 * What the fd says: the kernel answers getsockopt(SOL_SOCKET) from the
 * TCP sock, so SO_DOMAIN is AF_INET or AF_INET6 and SO_PROTOCOL
 * IPPROTO_TCP, and SO_ERROR reports the TCP connection's errors (errors
 * of an SMC-R connection come back from the calls themselves and as
 * EPOLLERR).  setsockopt(SOL_SOCKET) reaches both socks (the shell gets
 * SOCK_CUSTOM_SOCKOPT, see smc_setsockopt()).  getsockopt(TCP_ULP) says
 * "smc"; TCP_ULP again is refused (EOPNOTSUPP), and so is (EBUSY) a TCP
 * sock whose sk_user_data or callbacks someone else holds already (a BPF
 * sockmap, an in-kernel user: see smc_clcsock_check()).  Sockets accepted
 * from a TCP_ULP listener are AF_SMC sockets (SO_DOMAIN AF_SMC), as
 * accept() on any AF_SMC listener gives, and their TCP socks carry no ULP
 * record.
 */
#include <linux/module.h>
#include <linux/net.h>
#include <linux/security.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "smc.h"

/*
 * The shell's proto_ops: each hands the call to the SMC socket.  The
 * caller read the shell's ops (READ_ONCE) before calling us; the smp_rmb()
 * orders that read before ours of icsk_ulp_data and pairs with the
 * smp_store_release() of the ops in smc_ulp_init(), which came after the
 * SMC socket was stored.  The file holds the shell, the shell holds the
 * TCP sock and the SMC socket lives until the shell's release.
 */
static struct socket *smc_ulp_fd_socket(struct socket *shell)
{
	struct inet_connection_sock *icsk = inet_csk(shell->sk);

	/* our ops were read before: so is the SMC socket they came after */
	smp_rmb();
	return rcu_dereference_raw(icsk->icsk_ulp_data);
}

/* The file is being closed: no call is inside the shell any more. */
static int smc_ulp_shell_release(struct socket *shell)
{
	struct sock *tcpsk = shell->sk;
	struct socket *smcsock = smc_ulp_fd_socket(shell);

	/* lent by the file, see smc_ulp_init(); sock_release() frees its inode */
	smcsock->file = NULL;
	/* leaves no sock pointing at the shell's wait queue */
	sock_release(smcsock);
	sock_put(tcpsk);
	return 0;
}

static int smc_ulp_shell_bind(struct socket *shell, struct sockaddr_unsized *addr,
			      int alen)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	return sock->ops->bind(sock, addr, alen);
}

static int smc_ulp_shell_connect(struct socket *shell, struct sockaddr_unsized *addr,
				 int alen, int flags)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	return sock->ops->connect(sock, addr, alen, flags);
}

static int smc_ulp_shell_accept(struct socket *shell, struct socket *newsock,
				struct proto_accept_arg *arg)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	/* accept() gave @newsock our ops; the same owner, so no module ref */
	newsock->ops = sock->ops;
	return smc_sock_accept(sock, newsock, arg);
}

SMC_DEFINE_ACCEPT_OP(smc_ulp_shell_accept);

static int smc_ulp_shell_getname(struct socket *shell, struct sockaddr *addr,
				 int peer)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	return sock->ops->getname(sock, addr, peer);
}

static __poll_t smc_ulp_shell_poll(struct file *file, struct socket *shell,
				   poll_table *wait)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	/* both socks wake the shell's queue; the SMC socket gives the mask */
	sock_poll_wait(file, shell, wait);
	return sock->ops->poll(file, sock, NULL);
}

static int smc_ulp_shell_ioctl(struct socket *shell, unsigned int cmd,
			       unsigned long arg)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	return sock->ops->ioctl(sock, cmd, arg);
}

#ifdef CONFIG_COMPAT
static int smc_ulp_shell_compat_ioctl(struct socket *shell, unsigned int cmd,
				      unsigned long arg)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	return sock->ops->compat_ioctl(sock, cmd, arg);
}
#endif

static int smc_ulp_shell_gettstamp(struct socket *shell, void __user *ustamp,
				   bool timeval, bool time32)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	return sock->ops->gettstamp(sock, ustamp, timeval, time32);
}

static int smc_ulp_shell_listen(struct socket *shell, int backlog)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	return sock->ops->listen(sock, backlog);
}

static int smc_ulp_shell_shutdown(struct socket *shell, int how)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	return sock->ops->shutdown(sock, how);
}

static int smc_ulp_shell_setsockopt(struct socket *shell, int level,
				    int optname, sockptr_t optval,
				    unsigned int optlen)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	return sock->ops->setsockopt(sock, level, optname, optval, optlen);
}

static int smc_ulp_shell_getsockopt(struct socket *shell, int level,
				    int optname, char __user *optval,
				    int __user *optlen)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	return sock->ops->getsockopt(sock, level, optname, optval, optlen);
}

static int smc_ulp_shell_sendmsg(struct socket *shell, struct msghdr *msg,
				 size_t len)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	return sock->ops->sendmsg(sock, msg, len);
}

static int smc_ulp_shell_recvmsg(struct socket *shell, struct msghdr *msg,
				 size_t len, int flags)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	return sock->ops->recvmsg(sock, msg, len, flags);
}

static ssize_t smc_ulp_shell_splice_read(struct socket *shell, loff_t *ppos,
					 struct pipe_inode_info *pipe,
					 size_t len, unsigned int flags)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	return sock->ops->splice_read(sock, ppos, pipe, len, flags);
}

#ifdef SMC_HAVE_SPLICE_EOF
static void smc_ulp_shell_splice_eof(struct socket *shell)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	sock->ops->splice_eof(sock);
}
#endif

static const struct proto_ops smc_ulp_shell_ops = {
	.family		= PF_SMC,
	.owner		= THIS_MODULE,
	.release	= smc_ulp_shell_release,
	.bind		= smc_ulp_shell_bind,
	.connect	= smc_ulp_shell_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= SMC_ACCEPT_OP(smc_ulp_shell_accept),
	.getname	= smc_ulp_shell_getname,
	.poll		= smc_ulp_shell_poll,
	.ioctl		= smc_ulp_shell_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= smc_ulp_shell_compat_ioctl,
#endif
	.gettstamp	= smc_ulp_shell_gettstamp,
	.listen		= smc_ulp_shell_listen,
	.shutdown	= smc_ulp_shell_shutdown,
	.setsockopt	= smc_ulp_shell_setsockopt,
	.getsockopt	= smc_ulp_shell_getsockopt,
	.sendmsg	= smc_ulp_shell_sendmsg,
	.recvmsg	= smc_ulp_shell_recvmsg,
	.mmap		= sock_no_mmap,
	.splice_read	= smc_ulp_shell_splice_read,
#ifdef SMC_HAVE_SPLICE_EOF
	.splice_eof	= smc_ulp_shell_splice_eof,
#endif
};

/* 0 if @sk may become an SMC socket, else why not (negative errno). */
static int smc_ulp_check(struct sock *sk)
{
	struct socket *sock = sk->sk_socket;

	if (!sock || sock->type != SOCK_STREAM || sk->sk_type != SOCK_STREAM ||
	    sk->sk_protocol != IPPROTO_TCP ||
	    (sk->sk_family != AF_INET && sk->sk_family != AF_INET6))
		return -ESOCKTNOSUPPORT;
	/* fresh (or disconnected) and owned by a file, as Linux 6.12 asks */
	if (!sock->file || sock->state != SS_UNCONNECTED ||
	    sk->sk_state != TCP_CLOSE)
		return -ENOTCONN;
	return 0;
}

/*
 * Make @clcsock the TCP sock's socket, as sock_graft() would, but leave
 * its sk_wq on the shell's queue: waiters of the fd sit there.
 */
static void smc_ulp_graft(struct sock *tcpsk, struct socket *clcsock)
{
	write_lock_bh(&tcpsk->sk_callback_lock);
	clcsock->sk = tcpsk;
	sk_set_socket(tcpsk, clcsock);
	security_sock_graft(tcpsk, clcsock);
	write_unlock_bh(&tcpsk->sk_callback_lock);
}

/*
 * tcp_ulp_ops.init, called by setsockopt(TCP_ULP) with @tcpsk locked.
 * Everything that can fail comes first; on failure the TCP socket is
 * untouched.
 */
static int smc_ulp_init(struct sock *tcpsk)
{
	struct socket *shell = tcpsk->sk_socket;
	struct socket *smcsock, *clcsock;
	struct inode *inode;
	struct smc_sock *smc;
	int rc;

	rc = smc_ulp_check(tcpsk);
	if (rc)
		return rc;
	/* nobody else's callbacks or sk_user_data: EBUSY */
	rc = smc_clcsock_check(tcpsk);
	if (rc)
		return rc;
	inode = SOCK_INODE(shell);
	clcsock = sock_alloc();
	if (!clcsock)
		return -ENFILE;
	smcsock = sock_alloc();
	if (!smcsock) {
		rc = -ENFILE;
		goto out_clc;
	}
	SOCK_INODE(clcsock)->i_uid = inode->i_uid;
	SOCK_INODE(clcsock)->i_gid = inode->i_gid;
	SOCK_INODE(clcsock)->i_ino = inode->i_ino;
	SOCK_INODE(smcsock)->i_uid = inode->i_uid;
	SOCK_INODE(smcsock)->i_gid = inode->i_gid;
	SOCK_INODE(smcsock)->i_ino = inode->i_ino;
	smcsock->type = SOCK_STREAM;
	smc = smc_sock_alloc(sock_net(tcpsk), smcsock,
			     tcpsk->sk_family == AF_INET6 ? SMCPROTO_SMC6 :
							    SMCPROTO_SMC);
	if (!smc) {
		rc = -ENOBUFS;
		goto out_smc;
	}
	/* LSMs label the new sock as the one it stands in for */
	security_sk_clone(tcpsk, &smc->sk);

	/* The TCP sock, with its ops (built in: no module reference). */
	clcsock->type = SOCK_STREAM;
	clcsock->state = SS_UNCONNECTED;
	clcsock->ops = shell->ops;
	smc_ulp_graft(tcpsk, clcsock);

	__module_get(THIS_MODULE);		/* for smc_ops */
	smcsock->ops = &smc_ops;
	smcsock->state = SS_UNCONNECTED;
	/* lent, never owned: the shell's release takes it back first */
	smcsock->file = shell->file;
	/* the SMC sock wakes the fd's waiters; SIGIO if they asked for it */
	rcu_assign_pointer(smc->sk.sk_wq, &shell->wq);
	sock_set_flag(&smc->sk, SOCK_FASYNC);
	/*
	 * The shell is the socket whose queue the clcsock wakes and whose
	 * SOL_SOCKET setsockopt() must reach both socks.
	 */
	smc_sock_adopt(smc, shell, clcsock);

	/* keeps shell->sk valid until the shell's release */
	sock_hold(tcpsk);
	/* what the shell's ops look up: publish a complete socket */
	rcu_assign_pointer(inet_csk(tcpsk)->icsk_ulp_data, smcsock);
	/* TCP's connect() and listen() refuse this state (EINVAL) */
	shell->state = SS_DISCONNECTING;
	__module_get(THIS_MODULE);		/* for the shell's ops */
	/* after icsk_ulp_data; pairs with smp_rmb() in smc_ulp_fd_socket() */
	smp_store_release(&shell->ops, &smc_ulp_shell_ops);
	return 0;

out_smc:
	sock_release(smcsock);
out_clc:
	sock_release(clcsock);
	return rc;
}

/*
 * A listening clcsock's TCP children start as copies of it; the record
 * is the listener's alone (no module reference was taken for a child).
 */
static void smc_ulp_clone(const struct request_sock *req, struct sock *newsk,
			  const gfp_t priority)
{
	inet_csk(newsk)->icsk_ulp_ops = NULL;
	RCU_INIT_POINTER(inet_csk(newsk)->icsk_ulp_data, NULL);
}

static struct tcp_ulp_ops smc_tcp_ulp __read_mostly = {
	.name	= "smc",
	.owner	= THIS_MODULE,
	.init	= smc_ulp_init,
	.clone	= smc_ulp_clone,
};

int __init smc_ulp_register(void)
{
	return tcp_register_ulp(&smc_tcp_ulp);
}

/*
 * Waits for a grace period: no setsockopt() is looking the name up any
 * more.  One that found it holds a module reference, and so does every
 * socket made by it, so none is left when the module goes.
 */
void smc_ulp_unregister(void)
{
	tcp_unregister_ulp(&smc_tcp_ulp);
}

MODULE_ALIAS_TCP_ULP("smc");
