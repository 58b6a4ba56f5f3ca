// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a listener's child that is dropped unaccepted gives its link
 * group back.
 *
 * smc_hs_work() drops a child whose handshake ended in SMC-R when the
 * listener was closed meanwhile; the child's hs_state still says RUNNING
 * then, only its connection is attached.  The drop has to detach that
 * connection (abort, close.c), or the link group keeps the connection's
 * reference and, once the sock is freed, a node in its tree of
 * connections that points into freed memory.
 *
 * The link group here has no QP: its first link is marked active only for
 * smc_lgr_conn_add(), and the connection never learnt the peer's RMB, so
 * the abort sends nothing.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/net.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "smc.h"
#include "core.h"

#define DROP_TEST_WAIT	(10 * HZ)

/* A child as smc_hs_work() leaves it after an SMC-R handshake. */
static struct smc_sock *drop_test_child(struct kunit *test,
					struct smc_lgr *lgr)
{
	struct smc_sock *child;
	struct socket *clc;
	int rc;

	child = smc_sock_alloc(&init_net, NULL, SMCPROTO_SMC);
	KUNIT_ASSERT_NOT_NULL(test, child);
	rc = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			      &clc);
	if (rc) {
		sock_put(&child->sk);
		KUNIT_FAIL(test, "no TCP socket: %d", rc);
		return NULL;
	}
	child->clcsock = clc;
	child->server = true;
	child->hs_state = SMC_HS_RUNNING;
	rc = smc_lgr_conn_add(lgr, &child->conn.lc, &lgr->links[0]);
	if (rc) {
		smc_sock_destroy(child);
		KUNIT_FAIL(test, "smc_lgr_conn_add: %d", rc);
		return NULL;
	}
	spin_lock_bh(&child->conn.lock);
	child->conn.attached = true;
	spin_unlock_bh(&child->conn.lock);
	smc_conn_hs_done(&child->conn);
	return child;
}

static unsigned int drop_test_conns(struct smc_lgr *lgr)
{
	unsigned int n;

	read_lock_bh(&lgr->conns_lock);
	n = lgr->conns_num;
	read_unlock_bh(&lgr->conns_lock);
	return n;
}

static void listen_drop_attached_child_test(struct kunit *test)
{
	struct smc_lgr_key key = {
		.net = &init_net,
		.server = true,
		.version = SMC_V2,
	};
	struct smc_lgr *lgr;
	struct smc_sock *child;
	unsigned long deadline;
	unsigned int refs;
	bool detached = false;

	ipv6_addr_set_v4mapped(htonl(0xc0a86401), &key.peer_addr);
	lgr = smc_lgr_create_linkless(&key);
	KUNIT_ASSERT_NOT_NULL(test, lgr);
	lgr->links[0].lgr = lgr;
	WRITE_ONCE(lgr->links[0].state, SMC_LINK_ACTIVE);

	child = drop_test_child(test, lgr);
	if (!child)
		goto out;
	KUNIT_EXPECT_EQ(test, drop_test_conns(lgr), 1U);
	/* ours: the sock stays readable whatever the drop does */
	sock_hold(&child->sk);
	smc_child_drop(child);

	deadline = jiffies + DROP_TEST_WAIT;
	while (time_before(jiffies, deadline)) {
		/* the sock's destruction comes after smc_conn_free() */
		detached = !READ_ONCE(child->conn.attached) &&
			   !drop_test_conns(lgr) && !READ_ONCE(child->clcsock);
		if (detached)
			break;
		msleep(20);
	}
	KUNIT_EXPECT_TRUE_MSG(test, detached,
			      "a dropped child stayed attached to its link group");
	if (detached) {
		/* the list's, ours, and the idle timer's while it is armed */
		refs = 2 + delayed_work_pending(&lgr->free_work);
		KUNIT_EXPECT_EQ(test, kref_read(&lgr->ref), refs);
	} else {
		smc_conn_free(child);
	}
	sock_put(&child->sk);
out:
	WRITE_ONCE(lgr->links[0].state, SMC_LINK_UNUSED);
	smc_lgr_terminate(lgr, 0);
	smc_lgr_put(lgr);
}

static struct kunit_case listen_drop_test_cases[] = {
	KUNIT_CASE(listen_drop_attached_child_test),
	{}
};

static struct kunit_suite listen_drop_test_suite = {
	.name = "smc_listen_drop",
	.test_cases = listen_drop_test_cases,
};

kunit_test_suite(listen_drop_test_suite);
