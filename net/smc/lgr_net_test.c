// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a link group does not outlive the network namespace it belongs
 * to.  It reads that namespace's settings while it lives and holds no
 * reference on it, so the namespace's exit must end it first.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/user_namespace.h>
#include <net/net_namespace.h>

#include "core.h"

#define LGR_NET_TEST_WAIT	(20 * HZ)

static void lgr_net_exit_ends_lgr_test(struct kunit *test)
{
	struct smc_lgr_key key = { .server = true, .version = SMC_V2 };
	unsigned long deadline;
	struct smc_lgr *lgr;
	struct net *net;
	bool gone = false;

	net = copy_net_ns(CLONE_NEWNET, &init_user_ns, &init_net);
	if (IS_ERR(net))
		kunit_skip(test, "no network namespace: %ld", PTR_ERR(net));
	key.net = net;
	lgr = smc_lgr_create_linkless(&key);
	if (!lgr) {
		put_net(net);
		KUNIT_FAIL(test, "no link group");
		return;
	}
	/* the namespace's last reference: its exit runs in a work item */
	put_net(net);
	deadline = jiffies + LGR_NET_TEST_WAIT;
	while (time_before(jiffies, deadline)) {
		gone = READ_ONCE(lgr->terminating) &&
		       list_empty_careful(&lgr->list);
		if (gone)
			break;
		msleep(50);
	}
	KUNIT_EXPECT_TRUE_MSG(test, gone,
			      "a link group outlived its network namespace");
	if (!gone)
		smc_lgr_terminate(lgr, 0);
	smc_lgr_put(lgr);
}

static struct kunit_case lgr_net_test_cases[] = {
	KUNIT_CASE(lgr_net_exit_ends_lgr_test),
	{}
};

static struct kunit_suite lgr_net_test_suite = {
	.name = "smc_lgr_net",
	.test_cases = lgr_net_test_cases,
};

kunit_test_suite(lgr_net_test_suite);
