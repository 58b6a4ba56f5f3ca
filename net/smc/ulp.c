// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: the TCP upper-layer protocol
 * "smc".  setsockopt(fd, SOL_TCP, TCP_ULP, "smc", 4) on a fresh TCP socket
 * turns the fd into an SMC socket whose clcsock is that TCP socket.
 *
 * Three struct socket take part:
 *
 *  - the file's own socket ("shell"): its inode stays the file's inode and
 *    its dentry's, so fstat, /proc/PID/fd, file locks and LSM file labels
 *    see nothing change.  It keeps pointing at the TCP sock, so a thread
 *    that read TCP's proto_ops from it before the switch finishes its call
 *    on a coherent TCP socket; its new proto_ops hand every call to the
 *    SMC socket;
 *  - the SMC socket: a new one, published in file->private_data, which is
 *    what every later socket call on the fd looks up.  Its inode gets the
 *    file inode's number, so sock_diag and /proc/PID/fd agree;
 *  - the clcsock: a new socket without a file that the TCP sock is
 *    grafted onto, with TCP's proto_ops and their module reference.
 *
 * close() ends in sock_close() on the file's inode, that is on the shell:
 * its .release releases the SMC socket, which releases its clcsock and
 * with it the TCP sock, as for any AF_SMC socket.
 *
 * Wait queues: both socks wake the SMC socket's queue from the switch on.
 * A socket that is being polled or has fasync set when TCP_ULP comes is
 * refused (EBUSY): its waiters sit on the shell's queue.  Those of a
 * poll()/select() racing with the switch are woken once, so they poll
 * again and find the SMC socket.
 *
 * The hook returns 0, so TCP records the ULP in the TCP sock
 * (icsk_ulp_ops, with a module reference dropped when the TCP sock is
 * destroyed).  getsockopt(TCP_ULP) on the fd is answered by the clcsock
 * and says "smc".  TCP children accepted by the clcsock do not inherit it.
 * getsockopt(SO_DOMAIN) says AF_SMC and SO_PROTOCOL SMCPROTO_SMC or
 * SMCPROTO_SMC6, as for socket(AF_SMC, ...); TCP_ULP again on the fd is
 * refused by smc_setsockopt() (EOPNOTSUPP).
 */
#include <linux/module.h>
#include <linux/net.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/security.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "smc.h"

/*
 * The shell's proto_ops.  A call that looked the fd up before the switch
 * but read the shell's ops after it lands here and is handed to the SMC
 * socket, where it would have gone a moment later.
 */
static struct socket *smc_ulp_fd_socket(struct socket *shell)
{
	/* pairs with the release of the shell's ops in smc_ulp_take_over() */
	smp_rmb();
	return READ_ONCE(shell->file->private_data);
}

/*
 * The file is being closed: no call is inside the shell any more, and
 * file->private_data is the SMC socket smc_ulp_take_over() put there.
 */
static int smc_ulp_shell_release(struct socket *shell)
{
	struct socket *smcsock = shell->file->private_data;

	shell->sk = NULL;
	/* owned by the file until now: sock_release() frees its inode */
	smcsock->file = NULL;
	sock_release(smcsock);
	return 0;
}

static int smc_ulp_shell_bind(struct socket *shell, struct sockaddr *addr,
			      int alen)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	return sock->ops->bind(sock, addr, alen);
}

static int smc_ulp_shell_connect(struct socket *shell, struct sockaddr *addr,
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
	return sock->ops->accept(sock, newsock, arg);
}

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

	return sock->ops->poll(file, sock, wait);
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

static void smc_ulp_shell_splice_eof(struct socket *shell)
{
	struct socket *sock = smc_ulp_fd_socket(shell);

	sock->ops->splice_eof(sock);
}

static const struct proto_ops smc_ulp_shell_ops = {
	.family		= PF_SMC,
	.owner		= THIS_MODULE,
	.release	= smc_ulp_shell_release,
	.bind		= smc_ulp_shell_bind,
	.connect	= smc_ulp_shell_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= smc_ulp_shell_accept,
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
	.splice_eof	= smc_ulp_shell_splice_eof,
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
	/*
	 * Pollers and fasync are on the shell's queue and would miss the SMC
	 * socket's wake-ups.  No barrier needed: the lock we hold orders
	 * fasync, and a racing poll() is woken by smc_ulp_take_over().
	 */
	if (sock->wq.fasync_list || waitqueue_active(&sock->wq.wait))
		return -EBUSY;
	return 0;
}

/*
 * tcp_ulp_ops.init, called by setsockopt(TCP_ULP) with @tcpsk locked.
 * Everything that can fail comes first; on failure the TCP socket is
 * untouched.
 */
static int smc_ulp_take_over(struct sock *tcpsk)
{
	struct socket *tcpsock = tcpsk->sk_socket;
	struct socket *smcsock, *clcsock;
	struct inode *inode;
	struct smc_sock *smc;
	struct file *file;
	int rc;

	rc = smc_ulp_check(tcpsk);
	if (rc)
		return rc;
	inode = SOCK_INODE(tcpsock);
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

	/* The TCP sock, with its ops and their module reference. */
	clcsock->type = SOCK_STREAM;
	clcsock->state = SS_UNCONNECTED;
	clcsock->ops = tcpsock->ops;
	sock_graft(tcpsk, clcsock);

	file = tcpsock->file;
	__module_get(THIS_MODULE);		/* for smc_ops */
	smcsock->ops = &smc_ops;
	smcsock->state = SS_UNCONNECTED;
	smcsock->file = file;
	smc_sock_adopt(smc, smcsock, clcsock);

	/* socket calls look the fd up here: publish a complete socket */
	smp_store_release(&file->private_data, smcsock);
	__module_get(THIS_MODULE);		/* for the shell's ops */
	smp_store_release(&tcpsock->ops, &smc_ulp_shell_ops);
	wake_up_interruptible_all(&tcpsock->wq.wait);
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
}

static struct tcp_ulp_ops smc_tcp_ulp __read_mostly = {
	.name	= "smc",
	.owner	= THIS_MODULE,
	.init	= smc_ulp_take_over,
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
