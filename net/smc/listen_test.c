// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for when a listener still offers SMC in its SYN-ACK:
 * smc_listen_hs_offer(), the decision behind net.smc.limit_smc_hs and the
 * bound on handshakes in flight per listener.
 */
#include <kunit/test.h>

#include "smc.h"

static void listen_offer_bound_test(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, smc_listen_hs_offer(0, false));
	KUNIT_EXPECT_TRUE(test, smc_listen_hs_offer(SMC_LISTEN_HS_MAX - 1,
						    false));
	/* at the bound: plain TCP, at once */
	KUNIT_EXPECT_FALSE(test, smc_listen_hs_offer(SMC_LISTEN_HS_MAX,
						     false));
	KUNIT_EXPECT_FALSE(test, smc_listen_hs_offer(UINT_MAX, false));
}

static void listen_offer_limit_hs_test(struct kunit *test)
{
	/* limit_smc_hs set and the handshake queue congested */
	KUNIT_EXPECT_FALSE(test, smc_listen_hs_offer(0, true));
	KUNIT_EXPECT_FALSE(test, smc_listen_hs_offer(SMC_LISTEN_HS_MAX, true));
}

static struct kunit_case listen_test_cases[] = {
	KUNIT_CASE(listen_offer_bound_test),
	KUNIT_CASE(listen_offer_limit_hs_test),
	{}
};

static struct kunit_suite listen_test_suite = {
	.name = "smc_listen_offer",
	.test_cases = listen_test_cases,
};

kunit_test_suite(listen_test_suite);
