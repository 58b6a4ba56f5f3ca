// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for tcp_opt.c's pure parts: finding the SMC option in a TCP
 * option area, in a SYN's header and in a request's record (a saved SYN),
 * and the record's mark.
 *
 * 254, 6, 0xe2, 0xd4, 0xc3, 0xd9 is the SMC option (RFC 7609).  Every
 * input sits in a heap buffer of exactly its size, so that a read past
 * its end shows up under KASAN.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tcp.h>
#include <net/request_sock.h>

#include "tcp_opt.h"

#define OPT_MAX		40

struct find_case {
	const char *name;
	u8 opt[OPT_MAX];
	unsigned int len;
	bool found;
};

static const struct find_case find_cases[] = {
	{ "empty", { 0 }, 0, false },
	{ "alone", { 254, 6, 0xe2, 0xd4, 0xc3, 0xd9 }, 6, true },
	/* what TCP with CONFIG_SMC writes */
	{ "after two NOPs",
	  { 1, 1, 254, 6, 0xe2, 0xd4, 0xc3, 0xd9 }, 8, true },
	/* what bpf_store_hdr_opt() and the NOP padding make of it */
	{ "before two NOPs",
	  { 254, 6, 0xe2, 0xd4, 0xc3, 0xd9, 1, 1 }, 8, true },
	{ "after a SYN's usual options",
	  { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 1, 2, 3, 4, 0, 0, 0, 0,
	    1, 3, 3, 7, 254, 6, 0xe2, 0xd4, 0xc3, 0xd9 }, 26, true },
	{ "behind fast open's experimental option",
	  { 254, 4, 0xf9, 0x89, 254, 6, 0xe2, 0xd4, 0xc3, 0xd9 }, 10, true },
	{ "longer, even, magic first",
	  { 254, 8, 0xe2, 0xd4, 0xc3, 0xd9, 0, 0 }, 8, true },
	{ "after EOL",
	  { 0, 1, 254, 6, 0xe2, 0xd4, 0xc3, 0xd9 }, 8, false },
	{ "other magic", { 254, 6, 0xe2, 0xd4, 0xc3, 0xd8 }, 6, false },
	{ "fast open's magic", { 254, 6, 0xf9, 0x89, 0xc3, 0xd9 }, 6, false },
	{ "kind 253", { 253, 6, 0xe2, 0xd4, 0xc3, 0xd9 }, 6, false },
	{ "odd length", { 254, 7, 0xe2, 0xd4, 0xc3, 0xd9, 0 }, 7, false },
	{ "too short for the magic", { 254, 4, 0xe2, 0xd4 }, 4, false },
	{ "cut off", { 254, 6, 0xe2, 0xd4, 0xc3 }, 5, false },
	{ "kind without length", { 1, 1, 254 }, 3, false },
	{ "length below 2 ends the walk",
	  { 8, 1, 254, 6, 0xe2, 0xd4, 0xc3, 0xd9 }, 8, false },
	{ "length past the end",
	  { 8, 12, 0, 0, 254, 6, 0xe2, 0xd4, 0xc3, 0xd9 }, 10, false },
	{ "only NOPs", { 1, 1, 1, 1 }, 4, false },
};

KUNIT_ARRAY_PARAM_DESC(find_case, find_cases, name);

static void tcp_opt_find_test(struct kunit *test)
{
	const struct find_case *c = test->param_value;
	u8 *opt;

	opt = kunit_kmalloc(test, c->len ?: 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, opt);
	memcpy(opt, c->opt, c->len);
	KUNIT_EXPECT_EQ(test, smc_tcpopt_find(opt, c->len), c->found);
}

/* A TCP header with @opt (@optlen bytes, a multiple of 4) after it. */
static u8 *tcp_hdr_make(struct kunit *test, const u8 *opt,
			unsigned int optlen, bool syn, bool ack)
{
	struct tcphdr *th;

	th = kunit_kzalloc(test, sizeof(*th) + optlen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, th);
	th->source = htons(40000);
	th->dest = htons(5400);
	th->doff = (sizeof(*th) + optlen) / 4;
	th->syn = syn;
	th->ack = ack;
	memcpy(th + 1, opt, optlen);
	return (u8 *)th;
}

static const u8 syn_opts[] = {
	2, 4, 0x05, 0xb4, 1, 1, 254, 6, 0xe2, 0xd4, 0xc3, 0xd9
};

static void tcp_opt_syn_test(struct kunit *test)
{
	unsigned int len = sizeof(struct tcphdr) + sizeof(syn_opts);
	static const u8 none[] = { 2, 4, 0x05, 0xb4 };
	struct tcphdr *th;
	u8 *hdr;

	hdr = tcp_hdr_make(test, syn_opts, sizeof(syn_opts), true, false);
	KUNIT_EXPECT_TRUE(test, smc_tcpopt_syn_has(hdr, len));
	hdr = tcp_hdr_make(test, syn_opts, sizeof(syn_opts), true, true);
	KUNIT_EXPECT_TRUE(test, smc_tcpopt_syn_has(hdr, len));
	/* only a SYN or SYN-ACK counts, as for TCP itself */
	hdr = tcp_hdr_make(test, syn_opts, sizeof(syn_opts), false, true);
	KUNIT_EXPECT_FALSE(test, smc_tcpopt_syn_has(hdr, len));
	hdr = tcp_hdr_make(test, none, sizeof(none), true, false);
	KUNIT_EXPECT_FALSE(test, smc_tcpopt_syn_has(hdr, sizeof(*th) +
						    sizeof(none)));
	/* a header that claims more than there is, or less than its size */
	hdr = tcp_hdr_make(test, syn_opts, sizeof(syn_opts), true, false);
	KUNIT_EXPECT_FALSE(test, smc_tcpopt_syn_has(hdr, len - 4));
	KUNIT_EXPECT_FALSE(test, smc_tcpopt_syn_has(hdr, sizeof(*th) - 1));
	th = (struct tcphdr *)hdr;
	th->doff = 4;
	KUNIT_EXPECT_FALSE(test, smc_tcpopt_syn_has(hdr, len));
	/* the options end where the header says, not where the bytes do */
	th->doff = 5;
	KUNIT_EXPECT_FALSE(test, smc_tcpopt_syn_has(hdr, len));
}

/* A saved SYN as TCP keeps it: @mac, then @net bytes of IP header. */
static struct saved_syn *record_make(struct kunit *test, u32 mac, u32 net,
				     const u8 *opt, unsigned int optlen)
{
	u32 tcp = sizeof(struct tcphdr) + optlen;
	struct saved_syn *syn;
	u8 *hdr;

	syn = kunit_kzalloc(test, struct_size(syn, data, mac + net + tcp),
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, syn);
	syn->mac_hdrlen = mac;
	syn->network_hdrlen = net;
	syn->tcp_hdrlen = tcp;
	memset(syn->data, 0x45, mac + net);
	hdr = tcp_hdr_make(test, opt, optlen, true, false);
	memcpy(syn->data + mac + net, hdr, tcp);
	return syn;
}

struct record_case {
	const char *name;
	u32 mac, net;
	bool smc;
};

static const struct record_case record_cases[] = {
	{ "IPv4", 0, 20, true },
	{ "IPv4 with options", 0, 24, true },
	{ "IPv6", 0, 40, true },
	{ "IPv6 with an extension header", 0, 48, true },
	{ "with the MAC header (TCP_SAVE_SYN 2)", 14, 20, true },
	{ "IPv4, no SMC", 0, 20, false },
	{ "IPv6, no SMC", 0, 40, false },
};

KUNIT_ARRAY_PARAM_DESC(record_case, record_cases, name);

static void tcp_opt_record_test(struct kunit *test)
{
	static const u8 plain[] = { 2, 4, 0x05, 0xb4, 1, 3, 3, 7 };
	const struct record_case *c = test->param_value;
	struct saved_syn *syn;

	if (c->smc)
		syn = record_make(test, c->mac, c->net, syn_opts,
				  sizeof(syn_opts));
	else
		syn = record_make(test, c->mac, c->net, plain, sizeof(plain));
	KUNIT_EXPECT_FALSE(test, smc_tcpopt_record_marked(syn));
	KUNIT_EXPECT_EQ(test, smc_tcpopt_record_has(syn), c->smc);
	/* marked: offered, and no longer a SYN that anybody reads */
	smc_tcpopt_record_mark(syn);
	KUNIT_EXPECT_TRUE(test, smc_tcpopt_record_marked(syn));
	KUNIT_EXPECT_FALSE(test, smc_tcpopt_record_has(syn));
	KUNIT_EXPECT_EQ(test, syn->mac_hdrlen + syn->network_hdrlen +
			syn->tcp_hdrlen, 0);
}

static struct kunit_case tcp_opt_test_cases[] = {
	KUNIT_CASE_PARAM(tcp_opt_find_test, find_case_gen_params),
	KUNIT_CASE(tcp_opt_syn_test),
	KUNIT_CASE_PARAM(tcp_opt_record_test, record_case_gen_params),
	{}
};

static struct kunit_suite tcp_opt_test_suite = {
	.name = "smc_tcp_opt",
	.test_cases = tcp_opt_test_cases,
};

kunit_test_suite(tcp_opt_test_suite);
