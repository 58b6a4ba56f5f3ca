// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for who may join a link group and who waits for whom:
 * smc_lgr_matches() and smc_lgr_pending_lock().
 *
 * A proposal's identifiers (system id, GID, MAC) are cleartext; a link
 * group also remembers the TCP peer address it was set up with, and a
 * handshake from another address never joins it, whatever it claims.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>

#include "core.h"

static const u8 lgr_test_sysid[SMC_CLC_SYSTEMID_LEN] = {
	0x00, 0x01, 0x5a, 0x5a, 0x12, 0x34, 0x56, 0x78
};

static void lgr_test_key(struct smc_lgr_key *key, __be32 addr)
{
	memset(key, 0, sizeof(*key));
	key->net = &init_net;
	key->server = true;
	key->version = SMC_V2;
	memcpy(key->peer_systemid, lgr_test_sysid, sizeof(lgr_test_sysid));
	ipv6_addr_set_v4mapped(htonl(0xc0a84d03), (struct in6_addr *)key->peer_gid);
	key->peer_mac[5] = 3;
	ipv6_addr_set_v4mapped(addr, &key->peer_addr);
}

/* A link group as smc_lgr_create() leaves it for @key's peer. */
static struct smc_lgr *lgr_test_lgr(struct kunit *test,
				    const struct smc_lgr_key *key)
{
	struct smc_lgr *lgr = kunit_kzalloc(test, sizeof(*lgr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, lgr);
	lgr->net = key->net;
	lgr->server = key->server;
	lgr->version = key->version;
	memcpy(lgr->peer_systemid, key->peer_systemid, SMC_CLC_SYSTEMID_LEN);
	memcpy(lgr->peer_gid, key->peer_gid, SMC_IB_GID_LEN);
	memcpy(lgr->peer_mac, key->peer_mac, ETH_ALEN);
	lgr->peer_addr = key->peer_addr;
	return lgr;
}

static void lgr_match_same_peer_test(struct kunit *test)
{
	struct smc_lgr_key key;
	struct smc_lgr *lgr;

	lgr_test_key(&key, htonl(0xc0a84d03));
	lgr = lgr_test_lgr(test, &key);
	KUNIT_EXPECT_TRUE(test, smc_lgr_matches(lgr, &key));
}

/* M4: the same identifiers from another TCP peer must not join. */
static void lgr_match_spoofed_proposal_test(struct kunit *test)
{
	struct smc_lgr_key key, spoof;
	struct smc_lgr *lgr;

	lgr_test_key(&key, htonl(0xc0a84d03));
	lgr = lgr_test_lgr(test, &key);
	lgr_test_key(&spoof, htonl(0xc0a84d02));
	KUNIT_EXPECT_FALSE(test, smc_lgr_matches(lgr, &spoof));

	/* an IPv6 peer is not the IPv4 one either */
	spoof = key;
	spoof.peer_addr = (struct in6_addr){ .s6_addr = { 0x20, 0x01, 0x0d,
		0xb8, [15] = 3 } };
	KUNIT_EXPECT_FALSE(test, smc_lgr_matches(lgr, &spoof));
}

static void lgr_match_other_identity_test(struct kunit *test)
{
	struct smc_lgr_key key, other;
	struct smc_lgr *lgr;

	lgr_test_key(&key, htonl(0xc0a84d03));
	lgr = lgr_test_lgr(test, &key);

	other = key;
	other.peer_systemid[7] ^= 1;
	KUNIT_EXPECT_FALSE(test, smc_lgr_matches(lgr, &other));
	other = key;
	other.peer_gid[15] ^= 1;
	KUNIT_EXPECT_FALSE(test, smc_lgr_matches(lgr, &other));
	other = key;
	other.server = false;
	KUNIT_EXPECT_FALSE(test, smc_lgr_matches(lgr, &other));
	other = key;
	other.vlan = 7;
	KUNIT_EXPECT_FALSE(test, smc_lgr_matches(lgr, &other));
}

/* Handshakes with the same peer wait; with another one they do not. */
static void lgr_pending_per_peer_test(struct kunit *test)
{
	struct smc_lgr_pending a = {}, b = {}, c = {}, d = {};
	struct smc_lgr_key key, other;

	lgr_test_key(&key, htonl(0xc0a84d03));
	KUNIT_ASSERT_EQ(test, smc_lgr_pending_lock(&a, &key, 1), 0);
	KUNIT_EXPECT_EQ(test, smc_lgr_pending_lock(&b, &key, 2), -ETIMEDOUT);
	KUNIT_EXPECT_FALSE(test, b.held);

	/* another TCP peer with the same identifiers does not wait */
	lgr_test_key(&other, htonl(0xc0a84d02));
	KUNIT_EXPECT_EQ(test, smc_lgr_pending_lock(&c, &other, 1), 0);
	/* nor does the other role with the same peer */
	other = key;
	other.server = false;
	KUNIT_EXPECT_EQ(test, smc_lgr_pending_lock(&d, &other, 1), 0);

	smc_lgr_pending_unlock(&a);
	KUNIT_EXPECT_EQ(test, smc_lgr_pending_lock(&b, &key, 1), 0);
	smc_lgr_pending_unlock(&b);
	smc_lgr_pending_unlock(&c);
	smc_lgr_pending_unlock(&d);
	/* unlocking what is not held does nothing */
	smc_lgr_pending_unlock(&d);
	KUNIT_EXPECT_FALSE(test, d.held);
}

static struct kunit_case lgr_test_cases[] = {
	KUNIT_CASE(lgr_match_same_peer_test),
	KUNIT_CASE(lgr_match_spoofed_proposal_test),
	KUNIT_CASE(lgr_match_other_identity_test),
	KUNIT_CASE(lgr_pending_per_peer_test),
	{}
};

static struct kunit_suite lgr_test_suite = {
	.name = "smc_lgr_peer",
	.test_cases = lgr_test_cases,
};

kunit_test_suite(lgr_test_suite);
