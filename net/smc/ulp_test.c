// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit stress for the TCP_ULP "smc" switch (ulp.c), meant for UML with
 * KASAN and lockdep (tests/kunit/run).
 *
 * Every round makes a TCP socket with a file, as socket(2) does, and lets
 * kernel threads race on it the way threads of a program race on one fd:
 * setsockopt(TCP_ULP, "smc"), a non-blocking connect() to a loopback TCP
 * listener, listen(), poll() and the final close.  Each thread holds its
 * own reference to the file while it calls, as fdget() would, and reads
 * the socket's ops afresh for every call, as the syscall layer does; the
 * round's own reference is dropped while they run, so the last fput(),
 * whoever makes it, releases everything.  Any errno is allowed (the
 * outcome of a race), except that the switch itself must work when it
 * runs alone; KASAN and lockdep judge the rest.  Their reports come from
 * the kthreads, which cannot fail the case: tests/kunit/run fails the
 * run on any such report in the kernel's log.
 *
 * Then the companion socket's ownership and waits, on real loopback TCP:
 * every clcsock gets its own callbacks back, TCP_ULP leaves a sock that
 * somebody else's callbacks or sk_user_data hold alone (EBUSY), and a CLC
 * receive or send ends by the module's own deadline even while the
 * application sets SO_RCVTIMEO (or SO_SNDTIMEO) to "forever".  A wait
 * that does not end fails the case and is then broken by closing the
 * peer, so a regression fails rather than hangs.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/file.h>
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/poll.h>
#include <linux/rtnetlink.h>
#include <linux/tcp.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "clc.h"
#include "smc.h"

#define ULP_ROUNDS	200
#define ULP_NAME	"smc"

enum ulp_act { ULP_SET, ULP_CONNECT, ULP_LISTEN, ULP_POLL, ULP_ACTS };

struct ulp_round {
	atomic_t switched;	/* rounds whose setsockopt(TCP_ULP) worked */
	atomic_t refused;	/* ... and whose was refused */
	struct file *file;
	struct sockaddr_in peer;
	struct completion go;
	struct completion done[ULP_ACTS];
};

struct ulp_worker {
	struct ulp_round *r;
	enum ulp_act act;
};

static int ulp_set(struct socket *sock)
{
	const struct proto_ops *ops = READ_ONCE(sock->ops);

	return ops->setsockopt(sock, SOL_TCP, TCP_ULP,
			       KERNEL_SOCKPTR(ULP_NAME), strlen(ULP_NAME));
}

static int ulp_worker_fn(void *arg)
{
	struct ulp_worker *w = arg;
	struct ulp_round *r = w->r;
	struct socket *sock = r->file->private_data;
	const struct proto_ops *ops;

	wait_for_completion(&r->go);
	ops = READ_ONCE(sock->ops);
	switch (w->act) {
	case ULP_SET:
		atomic_inc(ulp_set(sock) ? &r->refused : &r->switched);
		break;
	case ULP_CONNECT:
		ops->connect(sock, (struct sockaddr *)&r->peer,
			     sizeof(r->peer), O_NONBLOCK);
		break;
	case ULP_LISTEN:
		ops->listen(sock, 4);
		break;
	case ULP_POLL:
		ops->poll(r->file, sock, NULL);
		break;
	default:
		break;
	}
	fput(r->file);		/* this thread's reference */
	complete(&r->done[w->act]);
	return 0;
}

static struct file *ulp_tcp_file(struct kunit *test)
{
	struct socket *sock;
	struct file *file;
	int rc;

	rc = sock_create(AF_INET, SOCK_STREAM, IPPROTO_TCP, &sock);
	KUNIT_ASSERT_EQ(test, rc, 0);
	file = sock_alloc_file(sock, 0, NULL);	/* releases sock on error */
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	return file;
}

/* Accept and drop whatever the racing connects left on @lsock. */
static void ulp_drain(struct socket *lsock)
{
	struct socket *c;

	while (!kernel_accept(lsock, &c, O_NONBLOCK))
		sock_release(c);
}

/* The switch alone: must succeed, and the fd must then refuse a second. */
static void ulp_switch_alone(struct kunit *test)
{
	struct file *file = ulp_tcp_file(test);
	struct socket *sock = file->private_data;
	int rc;

	rc = ulp_set(sock);
	if (rc == -ENOENT)
		kunit_skip(test, "no \"smc\" ULP registered");
	KUNIT_EXPECT_EQ(test, rc, 0);
	KUNIT_EXPECT_EQ(test, ulp_set(sock), -EOPNOTSUPP);
	KUNIT_EXPECT_PTR_EQ(test, file->private_data, (void *)sock);
	fput(file);
}

/*
 * A kernel TCP listener on 127.0.0.1, an ephemeral port, its address in
 * @addr; NULL (the case failed) if there is none.
 */
static struct socket *ulp_lo_listener(struct kunit *test,
				      struct sockaddr_in *addr)
{
	struct socket *lsock;
	int rc, alen;

	/* nothing has brought lo up this early in UML: 127.0.0.1 with it */
	rtnl_lock();
	rc = dev_open(init_net.loopback_dev, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, rc, 0);
	rc = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			      &lsock);
	KUNIT_ASSERT_EQ(test, rc, 0);
	memset(addr, 0, sizeof(*addr));
	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rc = kernel_bind(lsock, (struct sockaddr *)addr, sizeof(*addr));
	if (!rc)
		rc = kernel_listen(lsock, 64);
	if (!rc) {
		alen = kernel_getsockname(lsock, (struct sockaddr *)addr);
		rc = alen < 0 ? alen : 0;
	}
	if (rc) {
		sock_release(lsock);
		KUNIT_FAIL(test, "loopback listener: %d", rc);
		return NULL;
	}
	return lsock;
}

static void ulp_switch_races(struct kunit *test)
{
	struct ulp_worker w[ULP_ACTS];
	struct task_struct *t;
	struct socket *lsock;
	struct ulp_round *r;
	int i, n;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	lsock = ulp_lo_listener(test, &r->peer);
	if (!lsock)
		return;

	for (n = 0; n < ULP_ROUNDS; n++) {
		r->file = ulp_tcp_file(test);
		init_completion(&r->go);
		for (i = 0; i < ULP_ACTS; i++) {
			init_completion(&r->done[i]);
			w[i].r = r;
			w[i].act = i;
			get_file(r->file);
			t = kthread_run(ulp_worker_fn, &w[i], "smc_ulp_race/%d",
					i);
			if (IS_ERR(t)) {
				fput(r->file);
				complete(&r->done[i]);
			}
		}
		complete_all(&r->go);
		fput(r->file);		/* the close, racing the others */
		for (i = 0; i < ULP_ACTS; i++)
			wait_for_completion(&r->done[i]);
		ulp_drain(lsock);
	}
	ulp_drain(lsock);
	sock_release(lsock);
	kunit_info(test, "%d rounds: switch won %d, refused %d\n", ULP_ROUNDS,
		   atomic_read(&r->switched), atomic_read(&r->refused));
	/* both outcomes of the race happened, or it was no race */
	KUNIT_EXPECT_GT(test, atomic_read(&r->switched), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&r->refused), 0);
}

/* Callbacks of a sock's previous owner, in place of TCP's: they count. */
static atomic_t ulp_foreign_calls;

static void ulp_foreign_cb(struct sock *sk)
{
	atomic_inc(&ulp_foreign_calls);
}

static struct socket *ulp_kern_tcp(struct kunit *test)
{
	struct socket *sock;
	int rc;

	rc = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			      &sock);
	KUNIT_ASSERT_EQ(test, rc, 0);
	return sock;
}

static struct smc_sock *ulp_owner(struct kunit *test, struct socket *clcsock)
{
	struct smc_sock *smc = smc_sock_alloc(&init_net, NULL, SMCPROTO_SMC);

	KUNIT_ASSERT_NOT_NULL(test, smc);
	smc->clcsock = clcsock;
	smc_clcsock_attach(smc);
	return smc;
}

/* Detach (done already) and free @smc; the clcsock goes with it. */
static void ulp_owner_free(struct smc_sock *smc)
{
	smc_sock_destroy(smc);
}

/*
 * Two clcsocks at once, one of which had callbacks other than TCP's: each
 * must forward to, and get back, its own; a TCP sock cloned from one of
 * ours (our callbacks, no owner yet) gets TCP's.
 */
static void ulp_clcsock_own_callbacks(struct kunit *test)
{
	struct socket *a = ulp_kern_tcp(test), *b = ulp_kern_tcp(test);
	struct socket *c = ulp_kern_tcp(test);
	void (*tcp_state_change)(struct sock *sk) = b->sk->sk_state_change;
	void (*tcp_data_ready)(struct sock *sk) = b->sk->sk_data_ready;
	void (*tcp_error_report)(struct sock *sk) = b->sk->sk_error_report;
	struct smc_sock *sa, *sb, *sc;

	atomic_set(&ulp_foreign_calls, 0);
	write_lock_bh(&a->sk->sk_callback_lock);
	a->sk->sk_state_change = ulp_foreign_cb;
	a->sk->sk_data_ready = ulp_foreign_cb;
	a->sk->sk_error_report = ulp_foreign_cb;
	write_unlock_bh(&a->sk->sk_callback_lock);

	sa = ulp_owner(test, a);
	sb = ulp_owner(test, b);
	KUNIT_EXPECT_PTR_NE(test, (void *)a->sk->sk_data_ready,
			    (void *)ulp_foreign_cb);

	/* ours forward to the sock's own: a's to the foreign, b's to TCP */
	a->sk->sk_data_ready(a->sk);
	KUNIT_EXPECT_EQ(test, atomic_read(&ulp_foreign_calls), 1);
	b->sk->sk_data_ready(b->sk);
	KUNIT_EXPECT_EQ(test, atomic_read(&ulp_foreign_calls), 1);

	/* c as sk_clone_lock() leaves a child of a listener of ours */
	write_lock_bh(&c->sk->sk_callback_lock);
	c->sk->sk_state_change = b->sk->sk_state_change;
	c->sk->sk_data_ready = b->sk->sk_data_ready;
	c->sk->sk_error_report = b->sk->sk_error_report;
	write_unlock_bh(&c->sk->sk_callback_lock);
	c->sk->sk_data_ready(c->sk);	/* no owner yet: TCP's */
	KUNIT_EXPECT_EQ(test, atomic_read(&ulp_foreign_calls), 1);
	sc = ulp_owner(test, c);

	smc_clcsock_detach(a);
	KUNIT_EXPECT_PTR_EQ(test, (void *)a->sk->sk_state_change,
			    (void *)ulp_foreign_cb);
	KUNIT_EXPECT_PTR_EQ(test, (void *)a->sk->sk_data_ready,
			    (void *)ulp_foreign_cb);
	KUNIT_EXPECT_PTR_EQ(test, (void *)a->sk->sk_error_report,
			    (void *)ulp_foreign_cb);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(a->sk->sk_user_data));
	smc_clcsock_detach(b);
	KUNIT_EXPECT_PTR_EQ(test, (void *)b->sk->sk_state_change,
			    (void *)tcp_state_change);
	KUNIT_EXPECT_PTR_EQ(test, (void *)b->sk->sk_data_ready,
			    (void *)tcp_data_ready);
	KUNIT_EXPECT_PTR_EQ(test, (void *)b->sk->sk_error_report,
			    (void *)tcp_error_report);
	smc_clcsock_detach(c);
	KUNIT_EXPECT_PTR_EQ(test, (void *)c->sk->sk_state_change,
			    (void *)tcp_state_change);
	KUNIT_EXPECT_PTR_EQ(test, (void *)c->sk->sk_data_ready,
			    (void *)tcp_data_ready);
	KUNIT_EXPECT_PTR_EQ(test, (void *)c->sk->sk_error_report,
			    (void *)tcp_error_report);

	/* a's own are the foreign ones: TCP's for its release */
	write_lock_bh(&a->sk->sk_callback_lock);
	a->sk->sk_state_change = tcp_state_change;
	a->sk->sk_data_ready = tcp_data_ready;
	a->sk->sk_error_report = tcp_error_report;
	write_unlock_bh(&a->sk->sk_callback_lock);
	ulp_owner_free(sa);
	ulp_owner_free(sb);
	ulp_owner_free(sc);
}

enum ulp_foreign { ULP_FOREIGN_USER_DATA, ULP_FOREIGN_DATA_READY,
		   ULP_FOREIGN_WRITE_SPACE, ULP_FOREIGN_STATE_CHANGE,
		   ULP_FOREIGN_ERROR_REPORT, ULP_FOREIGN_KINDS };

static int ulp_foreign_cookie;

/* Give @sk a foreign owner of one @kind; undo = true takes it back. */
static void ulp_foreign_set(struct sock *sk, enum ulp_foreign kind,
			    void (**saved)(struct sock *sk), bool undo)
{
	void (**cb)(struct sock *sk) = NULL;

	write_lock_bh(&sk->sk_callback_lock);
	switch (kind) {
	case ULP_FOREIGN_USER_DATA:
		rcu_assign_sk_user_data(sk, undo ? NULL : &ulp_foreign_cookie);
		break;
	case ULP_FOREIGN_DATA_READY:
		cb = &sk->sk_data_ready;
		break;
	case ULP_FOREIGN_WRITE_SPACE:
		cb = &sk->sk_write_space;
		break;
	case ULP_FOREIGN_STATE_CHANGE:
		cb = &sk->sk_state_change;
		break;
	default:
		cb = &sk->sk_error_report;
		break;
	}
	if (cb && undo) {
		*cb = *saved;
	} else if (cb) {
		*saved = *cb;
		*cb = ulp_foreign_cb;
	}
	write_unlock_bh(&sk->sk_callback_lock);
}

/*
 * TCP_ULP on a TCP sock whose sk_user_data or callbacks someone else
 * holds: EBUSY, the fd still the TCP socket it was, the owner's state
 * untouched.  Once the owner has gone, the switch works.
 */
static void ulp_refuses_foreign_owner(struct kunit *test)
{
	void (*saved)(struct sock *sk) = NULL;
	const struct proto_ops *ops, *ops_now;
	const struct tcp_ulp_ops *ulp;
	enum ulp_foreign kind;
	struct socket *sock;
	struct file *file;
	void *user_data, *want_data;
	int rc;

	for (kind = 0; kind < ULP_FOREIGN_KINDS; kind++) {
		file = ulp_tcp_file(test);
		sock = file->private_data;
		ops = READ_ONCE(sock->ops);
		ulp_foreign_set(sock->sk, kind, &saved, false);
		rc = ulp_set(sock);
		if (rc == -ENOENT) {
			ulp_foreign_set(sock->sk, kind, &saved, true);
			fput(file);
			kunit_skip(test, "no \"smc\" ULP registered");
		}
		ops_now = READ_ONCE(sock->ops);
		ulp = inet_csk(sock->sk)->icsk_ulp_ops;
		user_data = rcu_access_pointer(sock->sk->sk_user_data);
		KUNIT_EXPECT_EQ_MSG(test, rc, -EBUSY, "kind %d", kind);
		KUNIT_EXPECT_PTR_EQ_MSG(test, ops_now, ops, "kind %d", kind);
		KUNIT_EXPECT_NULL_MSG(test, ulp, "kind %d", kind);
		want_data = kind == ULP_FOREIGN_USER_DATA ?
			    &ulp_foreign_cookie : NULL;
		KUNIT_EXPECT_PTR_EQ_MSG(test, user_data, want_data,
					"kind %d", kind);
		if (rc) {
			/* refused: the owner leaves, then SMC may come */
			ulp_foreign_set(sock->sk, kind, &saved, true);
			KUNIT_EXPECT_EQ_MSG(test, ulp_set(sock), 0, "kind %d",
					    kind);
		}
		fput(file);
	}
}

/* A connected pair of kernel TCP sockets on loopback. */
struct ulp_pair {
	struct socket *cli, *srv;
};

static int ulp_pair_open(struct kunit *test, struct ulp_pair *p, int bufs)
{
	struct sockaddr_in addr;
	struct socket *lsock;
	int rc;

	lsock = ulp_lo_listener(test, &addr);
	if (!lsock)
		return -ENOTCONN;
	if (bufs)
		sock_set_rcvbuf(lsock->sk, bufs);	/* the child inherits */
	p->cli = ulp_kern_tcp(test);
	if (bufs)
		sock_setsockopt(p->cli, SOL_SOCKET, SO_SNDBUF,
				KERNEL_SOCKPTR(&bufs), sizeof(bufs));
	rc = kernel_connect(p->cli, (struct sockaddr *)&addr, sizeof(addr), 0);
	if (!rc)
		rc = kernel_accept(lsock, &p->srv, 0);
	sock_release(lsock);
	if (rc) {
		sock_release(p->cli);
		KUNIT_FAIL(test, "loopback connection: %d", rc);
	}
	return rc;
}

enum ulp_io { ULP_IO_RECV, ULP_IO_SEND };

/* A handshake step on a silent peer, in its own thread. */
struct ulp_hs {
	struct socket *clcsock;
	enum ulp_io io;
	long timeo;		/* for a receive */
	int rc;
	unsigned long took;	/* jiffies */
	struct completion done;
	u8 buf[SMC_CLC_HDR_LEN * 4];
};

static int ulp_hs_fn(void *arg)
{
	struct ulp_hs *hs = arg;
	unsigned long t0 = jiffies;
	struct smc_clc_hdr hdr;

	if (hs->io == ULP_IO_RECV)
		hs->rc = smc_clc_recv_msg(hs->clcsock, hs->buf,
					  sizeof(hs->buf), hs->timeo, &hdr);
	else
		hs->rc = smc_clc_send(hs->clcsock, hs->buf, sizeof(hs->buf));
	hs->took = jiffies - t0;
	complete(&hs->done);
	return 0;
}

/* What setsockopt(SO_RCVTIMEO or SO_SNDTIMEO, {0, 0}) does: no limit. */
static void ulp_timeo_forever(struct socket *sock, int optname)
{
	struct __kernel_sock_timeval tv = {};

	sock_setsockopt(sock, SOL_SOCKET, optname, KERNEL_SOCKPTR(&tv),
			sizeof(tv));
}

/*
 * Run @hs against the silent peer of @p while "the application" sets the
 * clcsock's @optname to forever: first exactly while the step waits for
 * the sock lock (setsockopt holds it too), then over and over.  The step
 * must end within @bound jiffies, else the case fails and the peer's
 * close ends it.
 */
static void ulp_hs_bounded(struct kunit *test, struct ulp_pair *p,
			   struct ulp_hs *hs, int optname, unsigned long bound)
{
	unsigned long end = jiffies + bound;
	struct task_struct *t;
	bool ended;

	init_completion(&hs->done);
	hs->clcsock = p->cli;
	lock_sock(p->cli->sk);
	t = kthread_run(ulp_hs_fn, hs, "smc_ulp_hs");
	if (IS_ERR(t)) {
		release_sock(p->cli->sk);
		KUNIT_FAIL(test, "kthread: %ld", PTR_ERR(t));
		return;
	}
	msleep(200);	/* the step is now at the sock lock */
	if (optname == SO_RCVTIMEO_NEW)
		WRITE_ONCE(p->cli->sk->sk_rcvtimeo, MAX_SCHEDULE_TIMEOUT);
	else
		WRITE_ONCE(p->cli->sk->sk_sndtimeo, MAX_SCHEDULE_TIMEOUT);
	release_sock(p->cli->sk);
	do {
		ulp_timeo_forever(p->cli, optname);
		ended = wait_for_completion_timeout(&hs->done, HZ / 50);
	} while (!ended && time_before(jiffies, end));
	if (!ended) {
		KUNIT_FAIL(test, "not ended within %lu ms: unbounded wait",
			   bound * 1000 / HZ);
		/* the peer goes: TCP ends the wait */
		sock_release(p->srv);
		p->srv = NULL;
		if (!wait_for_completion_timeout(&hs->done, 10 * HZ)) {
			/* still inside: leave it its socket */
			KUNIT_FAIL(test, "not ended by the peer's close");
			p->cli = NULL;
			return;
		}
	}
}

static void ulp_pair_close(struct ulp_pair *p)
{
	if (p->srv)
		sock_release(p->srv);
	if (p->cli)
		sock_release(p->cli);
}

/*
 * A CLC receive from a peer that says nothing ends at its own deadline
 * (-EAGAIN), whatever SO_RCVTIMEO the application sets meanwhile.
 */
static void ulp_clc_recv_bounded(struct kunit *test)
{
	struct ulp_pair p;
	struct ulp_hs *hs;

	hs = kunit_kzalloc(test, sizeof(*hs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hs);
	if (ulp_pair_open(test, &p, 0))
		return;
	hs->io = ULP_IO_RECV;
	hs->timeo = HZ;
	ulp_hs_bounded(test, &p, hs, SO_RCVTIMEO_NEW, hs->timeo + 3 * HZ);
	if (p.srv) {
		KUNIT_EXPECT_EQ(test, hs->rc, -EAGAIN);
		KUNIT_EXPECT_GE(test, hs->took, (unsigned long)hs->timeo);
	}
	kunit_info(test, "receive: %d after %lu ms\n", hs->rc,
		   hs->took * 1000 / HZ);
	ulp_pair_close(&p);
}

/*
 * The application's SO_RCVTIMEO is its own: a CLC receive neither
 * changes it while it waits nor depends on it.
 */
static void ulp_clc_recv_keeps_rcvtimeo(struct kunit *test)
{
	const long mine = 123 * HZ;
	struct ulp_pair p;
	struct ulp_hs *hs;
	struct task_struct *t;
	long seen;

	hs = kunit_kzalloc(test, sizeof(*hs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hs);
	if (ulp_pair_open(test, &p, 0))
		return;
	WRITE_ONCE(p.cli->sk->sk_rcvtimeo, mine);
	init_completion(&hs->done);
	hs->clcsock = p.cli;
	hs->io = ULP_IO_RECV;
	hs->timeo = HZ / 2;
	t = kthread_run(ulp_hs_fn, hs, "smc_ulp_hs");
	if (IS_ERR(t)) {
		ulp_pair_close(&p);
		KUNIT_FAIL(test, "kthread: %ld", PTR_ERR(t));
		return;
	}
	msleep(100);
	seen = READ_ONCE(p.cli->sk->sk_rcvtimeo);
	if (!wait_for_completion_timeout(&hs->done, 5 * HZ)) {
		KUNIT_FAIL(test, "receive did not end");
		sock_release(p.srv);
		p.srv = NULL;
		wait_for_completion(&hs->done);
	}
	KUNIT_EXPECT_EQ(test, seen, mine);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p.cli->sk->sk_rcvtimeo), mine);
	KUNIT_EXPECT_EQ(test, hs->rc, -EAGAIN);
	ulp_pair_close(&p);
}

/*
 * A CLC send into a peer that reads nothing (its window and our send
 * buffer full) ends by SMC_CLC_WAIT_TIME, whatever SO_SNDTIMEO says.
 */
static void ulp_clc_send_bounded(struct kunit *test)
{
	struct kvec iov;
	struct msghdr msg;
	struct ulp_pair p;
	struct ulp_hs *hs;
	size_t filled = 0;
	int rc;

	hs = kunit_kzalloc(test, sizeof(*hs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hs);
	if (ulp_pair_open(test, &p, 4096))
		return;
	/* fill the pipe: whatever the peer's window and our buffer take */
	do {
		iov.iov_base = hs->buf;
		iov.iov_len = sizeof(hs->buf);
		memset(&msg, 0, sizeof(msg));
		msg.msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL;
		rc = kernel_sendmsg(p.cli, &msg, &iov, 1, iov.iov_len);
		if (rc > 0)
			filled += rc;
	} while (rc > 0 && filled < (16 << 20));
	KUNIT_ASSERT_EQ(test, rc, -EAGAIN);
	/* let TCP settle: the peer's window is shut, no ACK to come */
	msleep(200);
	while (sk_stream_memory_free(p.cli->sk)) {
		iov.iov_base = hs->buf;
		iov.iov_len = sizeof(hs->buf);
		memset(&msg, 0, sizeof(msg));
		msg.msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL;
		if (kernel_sendmsg(p.cli, &msg, &iov, 1, iov.iov_len) <= 0)
			break;
		filled += sizeof(hs->buf);
	}
	hs->io = ULP_IO_SEND;
	ulp_hs_bounded(test, &p, hs, SO_SNDTIMEO_NEW,
		       SMC_CLC_WAIT_TIME + 3 * HZ);
	if (p.srv) {
		KUNIT_EXPECT_EQ(test, hs->rc, -EAGAIN);
		KUNIT_EXPECT_GE(test, hs->took,
				(unsigned long)SMC_CLC_WAIT_TIME);
	}
	kunit_info(test, "send after %zu bytes: %d after %lu ms\n", filled,
		   hs->rc, hs->took * 1000 / HZ);
	ulp_pair_close(&p);
}

static struct kunit_case smc_ulp_cases[] = {
	KUNIT_CASE(ulp_switch_alone),
	KUNIT_CASE_SLOW(ulp_switch_races),
	KUNIT_CASE(ulp_clcsock_own_callbacks),
	KUNIT_CASE(ulp_refuses_foreign_owner),
	KUNIT_CASE_SLOW(ulp_clc_recv_bounded),
	KUNIT_CASE(ulp_clc_recv_keeps_rcvtimeo),
	KUNIT_CASE_SLOW(ulp_clc_send_bounded),
	{}
};

static struct kunit_suite smc_ulp_suite = {
	.name = "smc_ulp",
	.test_cases = smc_ulp_cases,
};

kunit_test_suite(smc_ulp_suite);
