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
 * runs alone; KASAN and lockdep judge the rest.
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

static void ulp_switch_races(struct kunit *test)
{
	struct ulp_worker w[ULP_ACTS];
	struct task_struct *t;
	struct socket *lsock;
	struct ulp_round *r;
	int rc, i, n, alen;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	/* nothing has brought lo up this early in UML: 127.0.0.1 with it */
	rtnl_lock();
	rc = dev_open(init_net.loopback_dev, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, rc, 0);
	rc = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			      &lsock);
	KUNIT_ASSERT_EQ(test, rc, 0);
	r->peer.sin_family = AF_INET;
	r->peer.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rc = kernel_bind(lsock, (struct sockaddr *)&r->peer, sizeof(r->peer));
	if (!rc)
		rc = kernel_listen(lsock, 64);
	if (!rc) {
		alen = kernel_getsockname(lsock, (struct sockaddr *)&r->peer);
		rc = alen < 0 ? alen : 0;
	}
	if (rc) {
		sock_release(lsock);
		KUNIT_FAIL(test, "loopback listener: %d", rc);
		return;
	}

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

static struct kunit_case smc_ulp_cases[] = {
	KUNIT_CASE(ulp_switch_alone),
	KUNIT_CASE_SLOW(ulp_switch_races),
	{}
};

static struct kunit_suite smc_ulp_suite = {
	.name = "smc_ulp",
	.test_cases = smc_ulp_cases,
};

kunit_test_suite(smc_ulp_suite);
