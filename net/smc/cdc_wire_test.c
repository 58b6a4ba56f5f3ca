// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the CDC wire codec, the cursor arithmetic and the
 * compressed buffer sizes.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/sock.h>
#include "cdc_wire.h"

#define KIB		1024U
#define MIB		(1024U * 1024U)
#define RING_S		(16 * KIB)
#define RING_L		MIB

static u8 *exact_copy(struct kunit *test, const u8 *src, size_t len)
{
	u8 *buf = kunit_kzalloc(test, len ? len : 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	memcpy(buf, src, len);
	return buf;
}

static struct smc_curs curs(u16 wrap, u32 count)
{
	struct smc_curs c = { .wrap = wrap, .count = count };

	return c;
}

/* ---------------------------------------------------------------------- */
/* message codec                                                           */

static const u8 golden_cdc[SMC_CDC_MSG_LEN] = {
	0xfe, 44, 0x12, 0x34,			/* type, len, seqno */
	0xde, 0xad, 0xbe, 0xef,			/* token */
	0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x10, 0x00,	/* prod 5:4096 */
	0x00, 0x00, 0xff, 0xff, 0x00, 0x00, 0x3f, 0xff,	/* cons 65535:16383 */
	0x90,					/* write blocked, upd req */
	0xa0,					/* done writing, abort */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static void golden_cdc_test(struct kunit *test)
{
	struct smc_cdc_msg m;
	u8 *out;

	KUNIT_ASSERT_EQ(test, smc_cdc_decode(exact_copy(test, golden_cdc, 44),
					     44, &m), 0);
	KUNIT_EXPECT_EQ(test, m.seqno, 0x1234);
	KUNIT_EXPECT_EQ(test, m.token, 0xdeadbeef);
	KUNIT_EXPECT_EQ(test, m.prod.wrap, 5);
	KUNIT_EXPECT_EQ(test, m.prod.count, 4096);
	KUNIT_EXPECT_EQ(test, m.cons.wrap, 0xffff);
	KUNIT_EXPECT_EQ(test, m.cons.count, 16383);
	KUNIT_EXPECT_TRUE(test, m.write_blocked);
	KUNIT_EXPECT_FALSE(test, m.urg_data_pending);
	KUNIT_EXPECT_FALSE(test, m.urg_data_present);
	KUNIT_EXPECT_TRUE(test, m.cons_curs_upd_req);
	KUNIT_EXPECT_FALSE(test, m.failover_validation);
	KUNIT_EXPECT_TRUE(test, m.peer_done_writing);
	KUNIT_EXPECT_FALSE(test, m.peer_conn_closed);
	KUNIT_EXPECT_TRUE(test, m.peer_conn_abort);

	out = kunit_kzalloc(test, 48, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	memset(out, 0x5a, 48);
	KUNIT_ASSERT_EQ(test, smc_cdc_encode(&m, out, 48), 44);
	KUNIT_EXPECT_MEMEQ(test, out, golden_cdc, 44);
	KUNIT_EXPECT_EQ(test, out[44], 0x5a);
}

/* Each flag alone: its bit on the wire and back. */
struct cdc_flag {
	const char *name;
	unsigned int byte;
	u8 bit;
	size_t off;		/* offsetof the bool in smc_cdc_msg */
};

#define FLAG(f, b, v) { #f, b, v, offsetof(struct smc_cdc_msg, f) }
static const struct cdc_flag cdc_flags[] = {
	FLAG(write_blocked, 24, 0x80),
	FLAG(urg_data_pending, 24, 0x40),
	FLAG(urg_data_present, 24, 0x20),
	FLAG(cons_curs_upd_req, 24, 0x10),
	FLAG(failover_validation, 24, 0x08),
	FLAG(peer_done_writing, 25, 0x80),
	FLAG(peer_conn_closed, 25, 0x40),
	FLAG(peer_conn_abort, 25, 0x20),
};

#undef FLAG

static void cdc_flag_desc(const struct cdc_flag *f, char *desc)
{
	strscpy(desc, f->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cdc_flag, cdc_flags, cdc_flag_desc);

static void flag_test(struct kunit *test)
{
	const struct cdc_flag *f = test->param_value;
	struct smc_cdc_msg m, d;
	u8 *buf = kunit_kzalloc(test, 44, GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	memset(&m, 0, sizeof(m));
	*((bool *)((u8 *)&m + f->off)) = true;
	KUNIT_ASSERT_EQ(test, smc_cdc_encode(&m, buf, 44), 44);
	for (i = 0; i < 44; i++) {
		u8 want = i == 0 ? 0xfe : i == 1 ? 44 :
			  i == f->byte ? f->bit : 0;

		KUNIT_EXPECT_EQ_MSG(test, buf[i], want, "byte %u", i);
	}
	KUNIT_ASSERT_EQ(test, smc_cdc_decode(buf, 44, &d), 0);
	KUNIT_EXPECT_MEMEQ(test, &d, &m, sizeof(m));
}

static void cdc_roundtrip_test(struct kunit *test)
{
	static const struct smc_curs c[] = {
		{ 0, 0 }, { 0xffff, 0xffffffff }, { 1, RING_S - 1 },
		{ 0x8000, RING_L - 1 }, { 0x7fff, 1 },
	};
	struct smc_cdc_msg m, d;
	u8 *buf = kunit_kzalloc(test, 44, GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		memset(&m, 0, sizeof(m));
		m.seqno = 0xffff - i;
		m.token = 0x80000000 | i;
		m.prod = c[i];
		m.cons = c[ARRAY_SIZE(c) - 1 - i];
		m.urg_data_present = i & 1;
		m.peer_conn_closed = !(i & 1);
		KUNIT_ASSERT_EQ(test, smc_cdc_encode(&m, buf, 44), 44);
		KUNIT_ASSERT_EQ(test, smc_cdc_decode(buf, 44, &d), 0);
		KUNIT_EXPECT_MEMEQ(test, &d, &m, sizeof(m));
	}
}

static void cdc_malformed_test(struct kunit *test)
{
	static const u8 bad_lens[] = { 0, 1, 43, 45, 48, 0xfe, 0xff };
	struct smc_cdc_msg m;
	unsigned int i, n = 0;
	u8 *buf;

	/* every truncation */
	for (i = 0; i < SMC_CDC_MSG_LEN; i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    smc_cdc_decode(exact_copy(test, golden_cdc, i),
						   i, &m),
				    -EINVAL, "len %u", i);
	/* every other type byte, including all LLC types */
	buf = exact_copy(test, golden_cdc, 44);
	for (i = 0; i < 256; i++) {
		buf[0] = i;
		if (smc_cdc_decode(buf, 44, &m) == 0)
			n++;
	}
	KUNIT_EXPECT_EQ(test, n, 1);
	buf[0] = 0xfe;
	for (i = 0; i < ARRAY_SIZE(bad_lens); i++) {
		buf[1] = bad_lens[i];
		KUNIT_EXPECT_EQ(test, smc_cdc_decode(buf, 44, &m), -EPROTO);
	}
	/* reserved bits and bytes are ignored; longer buffers are fine */
	buf = kunit_kzalloc(test, 48, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	memcpy(buf, golden_cdc, 44);
	buf[8] = 0xff;			/* cursor reserved */
	buf[9] = 0xff;
	buf[24] |= 0x07;
	buf[25] |= 0x1f;
	memset(buf + 26, 0xee, 22);
	KUNIT_ASSERT_EQ(test, smc_cdc_decode(buf, 48, &m), 0);
	KUNIT_EXPECT_EQ(test, m.prod.wrap, 5);
	KUNIT_EXPECT_FALSE(test, m.peer_conn_closed);
	/* no room to encode */
	for (i = 0; i < SMC_CDC_MSG_LEN; i++)
		KUNIT_EXPECT_EQ(test, smc_cdc_encode(&m, buf, i), -ENOSPC);
}

static void seq_test(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, smc_cdc_seq_before(1, 2));
	KUNIT_EXPECT_FALSE(test, smc_cdc_seq_before(2, 2));
	KUNIT_EXPECT_FALSE(test, smc_cdc_seq_before(3, 2));
	KUNIT_EXPECT_TRUE(test, smc_cdc_seq_before(0xffff, 0));
	KUNIT_EXPECT_FALSE(test, smc_cdc_seq_before(0, 0xffff));
	KUNIT_EXPECT_TRUE(test, smc_cdc_seq_before(0, 0x7fff));
	KUNIT_EXPECT_FALSE(test, smc_cdc_seq_before(0, 0x8001));
}

/* ---------------------------------------------------------------------- */
/* cursor arithmetic                                                       */

static void curs_add_test(struct kunit *test)
{
	static const u32 sizes[] = { RING_S, RING_L };
	struct smc_curs c;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		u32 n = sizes[i];

		c = curs(3, 0);
		KUNIT_EXPECT_EQ(test, smc_curs_add(n, &c, 0), 0);
		KUNIT_EXPECT_EQ(test, c.wrap, 3);
		KUNIT_EXPECT_EQ(test, c.count, 0);
		/* up to the last byte of the ring */
		KUNIT_EXPECT_EQ(test, smc_curs_add(n, &c, n - 1), 0);
		KUNIT_EXPECT_EQ(test, c.wrap, 3);
		KUNIT_EXPECT_EQ(test, c.count, n - 1);
		/* one more wraps to 0 */
		KUNIT_EXPECT_EQ(test, smc_curs_add(n, &c, 1), 0);
		KUNIT_EXPECT_EQ(test, c.wrap, 4);
		KUNIT_EXPECT_EQ(test, c.count, 0);
		/* a full ring keeps the offset, bumps the wrap */
		c = curs(4, 100);
		KUNIT_EXPECT_EQ(test, smc_curs_add(n, &c, n), 0);
		KUNIT_EXPECT_EQ(test, c.wrap, 5);
		KUNIT_EXPECT_EQ(test, c.count, 100);
		/* crossing the end from the last byte */
		c = curs(5, n - 1);
		KUNIT_EXPECT_EQ(test, smc_curs_add(n, &c, n), 0);
		KUNIT_EXPECT_EQ(test, c.wrap, 6);
		KUNIT_EXPECT_EQ(test, c.count, n - 1);
		/* wrap counter overflow at 16 bits */
		c = curs(0xffff, n - 10);
		KUNIT_EXPECT_EQ(test, smc_curs_add(n, &c, 10), 0);
		KUNIT_EXPECT_EQ(test, c.wrap, 0);
		KUNIT_EXPECT_EQ(test, c.count, 0);
		/* refused: too much, cursor outside the ring */
		c = curs(7, 1);
		KUNIT_EXPECT_EQ(test, smc_curs_add(n, &c, n + 1), -EINVAL);
		KUNIT_EXPECT_EQ(test, c.wrap, 7);
		KUNIT_EXPECT_EQ(test, c.count, 1);
		c = curs(7, n);
		KUNIT_EXPECT_EQ(test, smc_curs_add(n, &c, 0), -EINVAL);
		c = curs(7, 0xffffffff);
		KUNIT_EXPECT_EQ(test, smc_curs_add(n, &c, 1), -EINVAL);
	}
	c = curs(0, 0);
	KUNIT_EXPECT_EQ(test, smc_curs_add(0, &c, 0), -EINVAL);
	/* the largest ring: no 32-bit overflow in count + n */
	c = curs(1, 0xfffffffe);
	KUNIT_EXPECT_EQ(test, smc_curs_add(0xffffffff, &c, 0xffffffff), 0);
	KUNIT_EXPECT_EQ(test, c.wrap, 2);
	KUNIT_EXPECT_EQ(test, c.count, 0xfffffffe);
}

static void curs_delta_test(struct kunit *test)
{
	struct smc_curs a, b;

	a = curs(0, 100);
	b = curs(0, 300);
	KUNIT_EXPECT_EQ(test, smc_curs_delta(RING_S, &a, &b), 200);
	KUNIT_EXPECT_EQ(test, smc_curs_delta(RING_S, &b, &a), -200);
	KUNIT_EXPECT_EQ(test, smc_curs_diff(RING_S, &a, &b), 200);
	KUNIT_EXPECT_EQ(test, smc_curs_diff(RING_S, &b, &a), 0);
	/* across the ring end */
	a = curs(9, RING_S - 1);
	b = curs(10, 0);
	KUNIT_EXPECT_EQ(test, smc_curs_delta(RING_S, &a, &b), 1);
	KUNIT_EXPECT_EQ(test, smc_curs_delta(RING_S, &b, &a), -1);
	/* a whole ring, and more than a ring (clamped by diff) */
	a = curs(9, 5);
	b = curs(10, 5);
	KUNIT_EXPECT_EQ(test, smc_curs_delta(RING_L, &a, &b), RING_L);
	KUNIT_EXPECT_EQ(test, smc_curs_diff(RING_L, &a, &b), RING_L);
	b = curs(12, 6);
	KUNIT_EXPECT_EQ(test, smc_curs_delta(RING_L, &a, &b),
			3LL * RING_L + 1);
	KUNIT_EXPECT_EQ(test, smc_curs_diff(RING_L, &a, &b), RING_L);
	/* across the wrap counter overflow */
	a = curs(0xffff, RING_S - 100);
	b = curs(0, 50);
	KUNIT_EXPECT_EQ(test, smc_curs_delta(RING_S, &a, &b), 150);
	KUNIT_EXPECT_EQ(test, smc_curs_delta(RING_S, &b, &a), -150);
	a = curs(0xfffe, 0);
	b = curs(1, 0);
	KUNIT_EXPECT_EQ(test, smc_curs_delta(RING_L, &a, &b), 3LL * RING_L);
	/* half the wrap space apart reads as behind */
	a = curs(0, 0);
	b = curs(0x8000, 0);
	KUNIT_EXPECT_LT(test, smc_curs_delta(RING_S, &a, &b), 0);
	b = curs(0x7fff, 0);
	KUNIT_EXPECT_EQ(test, smc_curs_delta(RING_S, &a, &b),
			0x7fffLL * RING_S);
	/* no overflow with the largest sizes */
	a = curs(0, 0);
	b = curs(0x7fff, 0xfffffffe);
	KUNIT_EXPECT_EQ(test, smc_curs_delta(0xffffffff, &a, &b),
			0x7fffLL * 0xffffffffLL + 0xfffffffeLL);
}

static void avail_space_test(struct kunit *test)
{
	static const u32 sizes[] = { RING_S, RING_L };
	struct smc_curs cons, prod;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		u32 n = sizes[i];

		/* empty */
		cons = curs(2, 7);
		prod = curs(2, 7);
		KUNIT_EXPECT_EQ(test, smc_cdc_rx_avail(n, &cons, &prod), 0);
		KUNIT_EXPECT_EQ(test, smc_cdc_tx_space(n, &cons, &prod), n);
		/* full: producer a whole ring ahead */
		prod = curs(3, 7);
		KUNIT_EXPECT_EQ(test, smc_cdc_rx_avail(n, &cons, &prod), n);
		KUNIT_EXPECT_EQ(test, smc_cdc_tx_space(n, &cons, &prod), 0);
		/* producer at the ring end, consumer at the start */
		cons = curs(2, 0);
		prod = curs(2, n - 1);
		KUNIT_EXPECT_EQ(test, smc_cdc_rx_avail(n, &cons, &prod),
				n - 1);
		KUNIT_EXPECT_EQ(test, smc_cdc_tx_space(n, &cons, &prod), 1);
		/* producer wrapped, consumer at the ring end */
		cons = curs(2, n - 1);
		prod = curs(3, 1);
		KUNIT_EXPECT_EQ(test, smc_cdc_rx_avail(n, &cons, &prod), 2);
		KUNIT_EXPECT_EQ(test, smc_cdc_tx_space(n, &cons, &prod),
				n - 2);
		/* across the wrap counter overflow */
		cons = curs(0xffff, n / 2);
		prod = curs(0, n / 4);
		KUNIT_EXPECT_EQ(test, smc_cdc_rx_avail(n, &cons, &prod),
				n - n / 4);
		KUNIT_EXPECT_EQ(test, smc_cdc_tx_space(n, &cons, &prod),
				n / 4);
		/* hostile: producer behind consumer, or far ahead */
		cons = curs(5, 100);
		prod = curs(5, 50);
		KUNIT_EXPECT_EQ(test, smc_cdc_rx_avail(n, &cons, &prod), 0);
		KUNIT_EXPECT_EQ(test, smc_cdc_tx_space(n, &cons, &prod), n);
		prod = curs(9, 50);
		KUNIT_EXPECT_EQ(test, smc_cdc_rx_avail(n, &cons, &prod), n);
		KUNIT_EXPECT_EQ(test, smc_cdc_tx_space(n, &cons, &prod), 0);
	}
}

static void curs_check_test(struct kunit *test)
{
	static const u32 sizes[] = { RING_S, RING_L };
	struct smc_curs old, new, lim;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		u32 n = sizes[i];

		old = curs(4, n - 1);
		/* same, one ahead across the end, a full ring ahead */
		KUNIT_EXPECT_EQ(test, smc_curs_check(n, &old, &old, NULL), 0);
		new = curs(5, 0);
		KUNIT_EXPECT_EQ(test, smc_curs_check(n, &old, &new, NULL), 0);
		new = curs(5, n - 1);
		KUNIT_EXPECT_EQ(test, smc_curs_check(n, &old, &new, NULL), 0);
		/* one byte more than a ring ahead */
		new = curs(6, 0);
		KUNIT_EXPECT_EQ(test, smc_curs_check(n, &old, &new, NULL),
				-EOVERFLOW);
		/* outside the ring */
		new = curs(4, n);
		KUNIT_EXPECT_EQ(test, smc_curs_check(n, &old, &new, NULL),
				-ERANGE);
		new = curs(4, 0xffffffff);
		KUNIT_EXPECT_EQ(test, smc_curs_check(n, &old, &new, NULL),
				-ERANGE);
		/* backwards: in count, in wrap, by half the wrap space */
		new = curs(4, n - 2);
		KUNIT_EXPECT_EQ(test, smc_curs_check(n, &old, &new, NULL),
				-EPROTO);
		new = curs(3, n - 1);
		KUNIT_EXPECT_EQ(test, smc_curs_check(n, &old, &new, NULL),
				-EPROTO);
		new = curs(4 + 0x8000, 0);
		KUNIT_EXPECT_EQ(test, smc_curs_check(n, &old, &new, NULL),
				-EPROTO);
		/* wrap counter overflow is a normal step forward */
		old = curs(0xffff, n - 1);
		new = curs(0, 3);
		KUNIT_EXPECT_EQ(test, smc_curs_check(n, &old, &new, NULL), 0);
		new = curs(0xfffe, 3);
		KUNIT_EXPECT_EQ(test, smc_curs_check(n, &old, &new, NULL),
				-EPROTO);
		/* limits: up to and including the limit */
		old = curs(1, 10);
		lim = curs(1, 500);
		new = curs(1, 500);
		KUNIT_EXPECT_EQ(test, smc_curs_check(n, &old, &new, &lim), 0);
		new = curs(1, 501);
		KUNIT_EXPECT_EQ(test, smc_curs_check(n, &old, &new, &lim),
				-EOVERFLOW);
		/* the producer limit: announced consumer + ring size */
		lim = curs(1, 10);
		KUNIT_ASSERT_EQ(test, smc_curs_add(n, &lim, n), 0);
		new = curs(2, 10);
		KUNIT_EXPECT_EQ(test, smc_curs_check(n, &old, &new, &lim), 0);
		new = curs(2, 11);
		KUNIT_EXPECT_EQ(test, smc_curs_check(n, &old, &new, &lim),
				-EOVERFLOW);
		/* bad arguments */
		lim = curs(1, n);
		new = curs(1, 10);
		KUNIT_EXPECT_EQ(test, smc_curs_check(n, &old, &new, &lim),
				-EINVAL);
		old = curs(1, n);
		KUNIT_EXPECT_EQ(test, smc_curs_check(n, &old, &new, NULL),
				-EINVAL);
	}
	old = curs(0, 0);
	KUNIT_EXPECT_EQ(test, smc_curs_check(0, &old, &old, NULL), -EINVAL);
}

/* ---------------------------------------------------------------------- */
/* window updates                                                          */

static void wnd_limit_test(struct kunit *test)
{
	u32 floor = SOCK_MIN_SNDBUF / 2;

	KUNIT_EXPECT_EQ(test, smc_cdc_wnd_update_limit(RING_S),
			max_t(u32, RING_S / 10, floor));
	KUNIT_EXPECT_EQ(test, smc_cdc_wnd_update_limit(RING_L), RING_L / 10);
	KUNIT_EXPECT_EQ(test, smc_cdc_wnd_update_limit(512 * MIB),
			512 * MIB / 10);
	KUNIT_EXPECT_EQ(test, smc_cdc_wnd_update_limit(0), floor);
}

static void wnd_init(struct smc_cdc_wnd *w, u32 size)
{
	memset(w, 0, sizeof(*w));
	w->size = size;
	w->update_limit = smc_cdc_wnd_update_limit(size);
}

static void wnd_update_test(struct kunit *test)
{
	static const u32 sizes[] = { RING_S, RING_L };
	struct smc_cdc_wnd w;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		u32 n = sizes[i];
		u32 lim;

		wnd_init(&w, n);
		lim = w.update_limit;
		/* nothing consumed: nothing to say unless asked */
		KUNIT_EXPECT_FALSE(test, smc_cdc_cons_update_needed(&w));
		w.peer_upd_req = true;
		KUNIT_EXPECT_TRUE(test, smc_cdc_cons_update_needed(&w));
		w.peer_upd_req = false;
		w.force = true;
		KUNIT_EXPECT_TRUE(test, smc_cdc_cons_update_needed(&w));
		w.force = false;

		/* the peer filled the ring; we read exactly the limit */
		w.peer_prod = curs(1, 0);
		w.cons = curs(0, lim);
		KUNIT_EXPECT_FALSE(test, smc_cdc_cons_update_needed(&w));
		/* ... and even a blocked peer waits below the limit */
		w.peer_write_blocked = true;
		KUNIT_EXPECT_FALSE(test, smc_cdc_cons_update_needed(&w));
		w.peer_write_blocked = false;
		/* one byte more: the peer sees a full ring, so announce */
		w.cons = curs(0, lim + 1);
		KUNIT_EXPECT_TRUE(test, smc_cdc_cons_update_needed(&w));

		/* the peer sees more than half free: keep quiet */
		w.peer_prod = curs(0, lim + 1);
		KUNIT_EXPECT_FALSE(test, smc_cdc_cons_update_needed(&w));
		/* unless it says it is blocked */
		w.peer_write_blocked = true;
		KUNIT_EXPECT_TRUE(test, smc_cdc_cons_update_needed(&w));
		w.peer_write_blocked = false;
		/* exactly half free counts as low */
		w.peer_prod = curs(0, n / 2);
		KUNIT_EXPECT_TRUE(test, smc_cdc_cons_update_needed(&w));
		w.peer_prod = curs(0, n / 2 - 1);
		KUNIT_EXPECT_FALSE(test, smc_cdc_cons_update_needed(&w));

		/* our own peer on the WIMM path: a quarter free is low */
		w.lazy = true;
		w.peer_prod = curs(0, n / 2);
		KUNIT_EXPECT_FALSE(test, smc_cdc_cons_update_needed(&w));
		w.peer_prod = curs(0, n / 2 + n / 4);
		KUNIT_EXPECT_TRUE(test, smc_cdc_cons_update_needed(&w));
		w.peer_prod = curs(0, n / 2 + n / 4 - 1);
		KUNIT_EXPECT_FALSE(test, smc_cdc_cons_update_needed(&w));
		w.peer_write_blocked = true;
		KUNIT_EXPECT_TRUE(test, smc_cdc_cons_update_needed(&w));
		w.peer_write_blocked = false;
		w.lazy = false;
		w.peer_prod = curs(0, n / 2 - 1);

		/* the same across the ring end and the wrap overflow */
		w.confirmed = curs(0xffff, n - 10);
		w.cons = curs(0, lim - 10);
		w.peer_prod = curs(0, n - 10);
		KUNIT_EXPECT_FALSE(test, smc_cdc_cons_update_needed(&w));
		w.cons = curs(0, lim - 9);
		KUNIT_EXPECT_TRUE(test, smc_cdc_cons_update_needed(&w));
		w.peer_prod = curs(0, 0);
		KUNIT_EXPECT_FALSE(test, smc_cdc_cons_update_needed(&w));
	}
}

/* ---------------------------------------------------------------------- */
/* compressed buffer sizes                                                 */

static void bufsize_test(struct kunit *test)
{
	unsigned int n;

	KUNIT_EXPECT_EQ(test, smc_bufsize_compress(0, false), 0);
	KUNIT_EXPECT_EQ(test, smc_bufsize_compress(1, false), 0);
	KUNIT_EXPECT_EQ(test, smc_bufsize_compress(16 * KIB - 1, false), 0);
	KUNIT_EXPECT_EQ(test, smc_bufsize_compress(16 * KIB, false), 0);
	for (n = 1; n <= SMCR_BUF_COMP_MAX; n++) {
		u32 sz = 16 * KIB << n;

		/* exact power: n; one below: still n; one above the
		 * previous power: n as well (rounds up)
		 */
		KUNIT_EXPECT_EQ_MSG(test, smc_bufsize_compress(sz, false), n,
				    "size %u", sz);
		KUNIT_EXPECT_EQ(test, smc_bufsize_compress(sz - 1, false), n);
		KUNIT_EXPECT_EQ(test,
				smc_bufsize_compress((sz >> 1) + 1, false), n);
		KUNIT_EXPECT_EQ(test, smc_bufsize_uncompress(n), (int)sz);
		KUNIT_EXPECT_EQ(test,
				smc_bufsize_compress(smc_bufsize_uncompress(n),
						     false), n);
	}
	KUNIT_EXPECT_EQ(test, smc_bufsize_uncompress(0), (int)(16 * KIB));
	KUNIT_EXPECT_EQ(test, smc_bufsize_uncompress(15), (int)(512 * MIB));
	KUNIT_EXPECT_EQ(test, smc_bufsize_uncompress(16), -EINVAL);
	KUNIT_EXPECT_EQ(test, smc_bufsize_uncompress(255), -EINVAL);
	/* SMC-R caps at 512 MiB */
	KUNIT_EXPECT_EQ(test, smc_bufsize_compress(512 * MIB + 1, false), 15);
	KUNIT_EXPECT_EQ(test, smc_bufsize_compress(0xffffffff, false), 15);
	/* SMC-D caps at 1 MiB */
	KUNIT_EXPECT_EQ(test, smc_bufsize_compress(MIB, true), 6);
	KUNIT_EXPECT_EQ(test, smc_bufsize_compress(MIB - 1, true), 6);
	KUNIT_EXPECT_EQ(test, smc_bufsize_compress(MIB / 2 + 1, true), 6);
	KUNIT_EXPECT_EQ(test, smc_bufsize_compress(MIB / 2, true), 5);
	KUNIT_EXPECT_EQ(test, smc_bufsize_compress(MIB + 1, true), 6);
	KUNIT_EXPECT_EQ(test, smc_bufsize_compress(0xffffffff, true), 6);
	KUNIT_EXPECT_EQ(test, smc_bufsize_compress(16 * KIB, true), 0);
	KUNIT_EXPECT_EQ(test, smc_bufsize_compress(16 * KIB + 1, true), 1);
}

/* the size rules of a new connection's buffers */
static void bufsize_pick_test(struct kunit *test)
{
	/* the sysctl's value: 128 KiB is comp 3 */
	KUNIT_EXPECT_EQ(test, smc_bufsize_pick(true, 0, false, 128 * KIB, 1, 16),
			3);
	KUNIT_EXPECT_EQ(test, smc_bufsize_pick(true, 0, false, 128 * KIB, 16,
					       16), 3);
	/* a crowded link group: half for RMBs only */
	KUNIT_EXPECT_EQ(test, smc_bufsize_pick(true, 0, false, 128 * KIB, 17,
					       16), 2);
	KUNIT_EXPECT_EQ(test, smc_bufsize_pick(false, 0, false, 128 * KIB, 17,
					       16), 3);
	/* never below the smallest size */
	KUNIT_EXPECT_EQ(test, smc_bufsize_pick(true, 0, false, 16 * KIB, 200,
					       16), 0);
	/* SO_RCVBUF set: half of it, as upstream, and no crowd rule */
	KUNIT_EXPECT_EQ(test, smc_bufsize_pick(true, 512 * KIB, true,
					       128 * KIB, 200, 16), 4);
	KUNIT_EXPECT_EQ(test, smc_bufsize_pick(false, 64 * KIB, true,
					       128 * KIB, 0, 0), 1);
	/* odd values round up to the next size SMC-R can announce */
	KUNIT_EXPECT_EQ(test, smc_bufsize_pick(true, 0, false, 100000, 1, 16),
			3);
}

/* A WRITE WITH IMMEDIATE's length against the receiver's counts. */
static void wimm_check_test(struct kunit *test)
{
	const u32 sz = 65536;

	/* from an empty ring: up to the whole ring */
	KUNIT_EXPECT_EQ(test, smc_wimm_check(0, 0, sz, 1), 0);
	KUNIT_EXPECT_EQ(test, smc_wimm_check(0, 0, sz, sz), 0);
	KUNIT_EXPECT_EQ(test, smc_wimm_check(0, 0, sz, sz + 1), -ERANGE);
	KUNIT_EXPECT_EQ(test, smc_wimm_check(0, 0, sz, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, smc_wimm_check(0, 0, 0, 1), -EINVAL);
	/* never across the ring's end: the writer splits there */
	KUNIT_EXPECT_EQ(test, smc_wimm_check(sz - 10, sz - 10, sz, 10), 0);
	KUNIT_EXPECT_EQ(test, smc_wimm_check(sz - 10, sz - 10, sz, 11),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, smc_wimm_check(3 * (u64)sz, 3 * (u64)sz, sz,
					     sz), 0);
	/* the window: what the receiver announced consumed, plus the ring */
	KUNIT_EXPECT_EQ(test, smc_wimm_check(sz + 100, 100, sz, 1), -ENOSPC);
	KUNIT_EXPECT_EQ(test, smc_wimm_check(sz + 100, 101, sz, 1), 0);
	KUNIT_EXPECT_EQ(test, smc_wimm_check(sz + 100, 101, sz, 2), -ENOSPC);
	KUNIT_EXPECT_EQ(test, smc_wimm_check(1000, 0, sz, sz - 1000), 0);
	KUNIT_EXPECT_EQ(test, smc_wimm_check(1000, 0, sz, sz - 999),
			-ERANGE);
	/* counts that cannot be: consumed beyond produced, or a ring apart */
	KUNIT_EXPECT_EQ(test, smc_wimm_check(100, 200, sz, 1), -ENOSPC);
	KUNIT_EXPECT_EQ(test, smc_wimm_check(2 * (u64)sz + 1, 0, sz, 1),
			-ENOSPC);
	/* near 2^64 stream counts nothing wraps */
	KUNIT_EXPECT_EQ(test, smc_wimm_check(U64_MAX - 15, U64_MAX - 15, 16,
					     16), 0);
}

static void expect_piece(struct kunit *test, const struct smc_ring_piece *p,
			 u32 src, u32 dst, u32 len)
{
	KUNIT_EXPECT_EQ(test, p->src, src);
	KUNIT_EXPECT_EQ(test, p->dst, dst);
	KUNIT_EXPECT_EQ(test, p->len, len);
}

static void ring_split_test(struct kunit *test)
{
	struct smc_ring_piece p[4];
	unsigned int np, i;
	u32 done, off;
	u64 from;

	/* no ring, no piece */
	KUNIT_EXPECT_EQ(test, smc_ring_split(0, 10, 0, 100, 100, p, 4, &np), 0);
	KUNIT_EXPECT_EQ(test, np, 0);
	KUNIT_EXPECT_EQ(test, smc_ring_split(0, 10, 100, 100, 0, p, 4, &np), 0);
	/* one piece */
	KUNIT_EXPECT_EQ(test, smc_ring_split(0, 100, 1000, 500, ~0U, p, 4,
					     &np), 100);
	KUNIT_ASSERT_EQ(test, np, 1);
	expect_piece(test, &p[0], 0, 0, 100);
	/* the send ring ends first, then the RMB */
	KUNIT_EXPECT_EQ(test, smc_ring_split(1900, 700, 1000, 1200, ~0U, p, 4,
					     &np), 700);
	KUNIT_ASSERT_EQ(test, np, 3);
	expect_piece(test, &p[0], 900, 700, 100);
	expect_piece(test, &p[1], 0, 800, 400);
	expect_piece(test, &p[2], 400, 0, 200);
	/* the length cap; pieces run out before the bytes do */
	KUNIT_EXPECT_EQ(test, smc_ring_split(0, 200 << 10, 256 << 10,
					     256 << 10, 64 << 10, p, 4, &np),
			200 << 10);
	KUNIT_ASSERT_EQ(test, np, 4);
	KUNIT_EXPECT_EQ(test, p[3].src, 192 << 10);
	KUNIT_EXPECT_EQ(test, p[3].len, 8 << 10);
	KUNIT_EXPECT_EQ(test, smc_ring_split(0, 300 << 10, 512 << 10,
					     512 << 10, 64 << 10, p, 4, &np),
			256 << 10);
	KUNIT_EXPECT_EQ(test, np, 4);
	KUNIT_EXPECT_EQ(test, smc_ring_split(0, 10, 100, 100, 100, p, 0, &np),
			0);

	/* every split: contiguous, within both rings, capped, in order */
	for (from = 0; from < 3000; from += 37) {
		done = smc_ring_split(from, 1500, 1000, 700, 300, p, 4, &np);
		KUNIT_EXPECT_LE(test, done, 1500);
		KUNIT_EXPECT_LE(test, np, 4);
		if (done < 1500)
			KUNIT_EXPECT_EQ(test, np, 4);
		for (i = 0, off = 0; i < np; i++) {
			KUNIT_EXPECT_GT(test, p[i].len, 0);
			KUNIT_EXPECT_LE(test, p[i].len, 300);
			KUNIT_EXPECT_EQ(test, p[i].src, (from + off) % 1000);
			KUNIT_EXPECT_EQ(test, p[i].dst, (from + off) % 700);
			KUNIT_EXPECT_LE(test, p[i].src + p[i].len, 1000);
			KUNIT_EXPECT_LE(test, p[i].dst + p[i].len, 700);
			off += p[i].len;
		}
		KUNIT_EXPECT_EQ(test, off, done);
	}
}

/* ---------------------------------------------------------------------- */
/* RMB growth                                                              */

static const u8 golden_offer[SMC_MOVE_MSG_LEN] = {
	0xfd, 44, 0x01, 0x02,			/* type, len, OFFER, gen 2 */
	0x00, 0x00, 0x01, 0x07,			/* token 263 */
	0x03, 0, 0, 0,				/* comp 3 (128 KiB) */
	0x12, 0x34, 0x56, 0x78,			/* rkey */
	0x00, 0x00, 0x00, 0x01, 0x80, 0x00, 0x40, 0x00,	/* vaddr */
	0, 0, 0, 0, 0, 0, 0, 0,			/* pos */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static const u8 golden_moved[SMC_MOVE_MSG_LEN] = {
	0xfd, 44, 0x02, 0x01,			/* type, len, MOVED, gen 1 */
	0xca, 0xfe, 0x00, 0x01,			/* token */
	0, 0, 0, 0, 0, 0, 0, 0,			/* comp, rkey */
	0, 0, 0, 0, 0, 0, 0, 0,			/* vaddr */
	0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x80, 0x01,	/* pos */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static void move_golden_test(struct kunit *test)
{
	struct smc_move_msg m;
	u8 out[SMC_MOVE_MSG_LEN];

	KUNIT_ASSERT_EQ(test, smc_move_decode(exact_copy(test, golden_offer,
							 44), 44, &m), 0);
	KUNIT_EXPECT_EQ(test, m.op, SMC_MOVE_OFFER);
	KUNIT_EXPECT_EQ(test, m.gen, 2);
	KUNIT_EXPECT_EQ(test, m.token, 263);
	KUNIT_EXPECT_EQ(test, m.comp, 3);
	KUNIT_EXPECT_EQ(test, m.rkey, 0x12345678);
	KUNIT_EXPECT_EQ(test, m.vaddr, 0x180004000ULL);
	KUNIT_EXPECT_EQ(test, smc_move_encode(&m, out, sizeof(out)), 44);
	KUNIT_EXPECT_MEMEQ(test, out, golden_offer, 44);

	KUNIT_ASSERT_EQ(test, smc_move_decode(exact_copy(test, golden_moved,
							 44), 44, &m), 0);
	KUNIT_EXPECT_EQ(test, m.op, SMC_MOVE_MOVED);
	KUNIT_EXPECT_EQ(test, m.gen, 1);
	KUNIT_EXPECT_EQ(test, m.token, 0xcafe0001);
	KUNIT_EXPECT_EQ(test, m.pos, 0x200008001ULL);
	KUNIT_EXPECT_EQ(test, smc_move_encode(&m, out, sizeof(out)), 44);
	KUNIT_EXPECT_MEMEQ(test, out, golden_moved, 44);
	KUNIT_EXPECT_EQ(test, smc_move_encode(&m, out, 43), -ENOSPC);
}

/* Each mangled field of a valid message: the expected verdict. */
static void move_malformed_test(struct kunit *test)
{
	struct smc_move_msg m;
	u8 buf[SMC_MOVE_MSG_LEN];

	memcpy(buf, golden_offer, sizeof(buf));
	KUNIT_EXPECT_EQ(test, smc_move_decode(buf, 43, &m), -EINVAL);
	KUNIT_EXPECT_EQ(test, smc_move_decode(buf, 0, &m), -EINVAL);
	/* a CDC message is no move message, and the other way round */
	KUNIT_EXPECT_EQ(test, smc_move_decode(golden_cdc, 44, &m), -EPROTO);
	KUNIT_EXPECT_EQ(test, smc_cdc_decode(golden_offer, 44,
					     &(struct smc_cdc_msg){}), -EPROTO);
	buf[1] = 45;
	KUNIT_EXPECT_EQ(test, smc_move_decode(buf, 44, &m), -EPROTO);
	buf[1] = 44;
	buf[2] = 0;				/* op */
	KUNIT_EXPECT_EQ(test, smc_move_decode(buf, 44, &m), -EPROTO);
	buf[2] = 3;
	KUNIT_EXPECT_EQ(test, smc_move_decode(buf, 44, &m), -EPROTO);
	buf[2] = SMC_MOVE_OFFER;
	buf[3] = 0;				/* generation 0 */
	KUNIT_EXPECT_EQ(test, smc_move_decode(buf, 44, &m), -EPROTO);
	buf[3] = 255;
	KUNIT_EXPECT_EQ(test, smc_move_decode(buf, 44, &m), 0);
	buf[8] = SMCR_BUF_COMP_MAX + 1;		/* beyond 512 MiB */
	KUNIT_EXPECT_EQ(test, smc_move_decode(buf, 44, &m), -EPROTO);
	buf[8] = SMCR_BUF_COMP_MAX;
	KUNIT_EXPECT_EQ(test, smc_move_decode(buf, 44, &m), 0);
	/* a MOVED does not look at comp; reserved bytes are ignored */
	buf[2] = SMC_MOVE_MOVED;
	buf[8] = 0xff;
	buf[9] = 0xff;
	buf[43] = 0xff;
	KUNIT_EXPECT_EQ(test, smc_move_decode(buf, 44, &m), 0);
}

static void move_offer_check_test(struct kunit *test)
{
	/* the first offer: generation 1, larger than the RMB */
	KUNIT_EXPECT_EQ(test, smc_move_offer_check(1, 3, 0, false, RING_S), 0);
	KUNIT_EXPECT_EQ(test, smc_move_offer_check(1, 1, 0, false, RING_S), 0);
	/* not larger, or beyond the protocol's sizes */
	KUNIT_EXPECT_EQ(test, smc_move_offer_check(1, 0, 0, false, RING_S),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, smc_move_offer_check(1, 3, 0, false,
						   128 * KIB), -ERANGE);
	KUNIT_EXPECT_EQ(test, smc_move_offer_check(1, 3, 0, false, 0),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, smc_move_offer_check(1, SMCR_BUF_COMP_MAX + 1,
						   0, false, RING_S), -ERANGE);
	/* out of order: a generation skipped, or one while waiting */
	KUNIT_EXPECT_EQ(test, smc_move_offer_check(2, 3, 0, false, RING_S),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, smc_move_offer_check(200, 3, 0, false, RING_S),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, smc_move_offer_check(2, 4, 1, true, RING_S),
			-EPROTO);
	/* the one taken, again: a repeat, waiting or not */
	KUNIT_EXPECT_EQ(test, smc_move_offer_check(1, 3, 1, true, RING_S), 1);
	KUNIT_EXPECT_EQ(test, smc_move_offer_check(1, 3, 1, false,
						   128 * KIB), 1);
	/* the next generation after a move, and around 255 */
	KUNIT_EXPECT_EQ(test, smc_move_offer_check(2, 4, 1, false, 128 * KIB),
			0);
	KUNIT_EXPECT_EQ(test, smc_move_offer_check(0, 4, 255, false, RING_S),
			0);
}

static void move_moved_check_test(struct kunit *test)
{
	const u32 s = RING_S;

	/* offered, waiting: at the producer count, within the window */
	KUNIT_EXPECT_EQ(test, smc_move_moved_check(1, 5000, 1, true, 0, 5000,
						   0, s), 0);
	KUNIT_EXPECT_EQ(test, smc_move_moved_check(1, 6000, 1, true, 0, 5000,
						   0, s), 0);
	KUNIT_EXPECT_EQ(test, smc_move_moved_check(1, s, 1, true, 0, 5000, 0,
						   s), 0);
	/* behind what came, or past the old window */
	KUNIT_EXPECT_EQ(test, smc_move_moved_check(1, 4999, 1, true, 0, 5000,
						   0, s), -ERANGE);
	KUNIT_EXPECT_EQ(test, smc_move_moved_check(1, s + 1, 1, true, 0, 5000,
						   0, s), -ERANGE);
	KUNIT_EXPECT_EQ(test, smc_move_moved_check(1, 9000, 1, true, 0, 5000,
						   6000, s), -ERANGE);
	/* another generation than offered, or none offered */
	KUNIT_EXPECT_EQ(test, smc_move_moved_check(2, 5000, 1, true, 0, 5000,
						   0, s), -EPROTO);
	KUNIT_EXPECT_EQ(test, smc_move_moved_check(1, 5000, 0, false, 0, 5000,
						   0, s), -EPROTO);
	/* after the move: the same message again, and nothing else */
	KUNIT_EXPECT_EQ(test, smc_move_moved_check(1, 5000, 1, false, 5000,
						   9000, 6000, 8 * s), 1);
	KUNIT_EXPECT_EQ(test, smc_move_moved_check(1, 5001, 1, false, 5000,
						   9000, 6000, 8 * s), -EPROTO);
	KUNIT_EXPECT_EQ(test, smc_move_moved_check(200, 5000, 1, false, 5000,
						   9000, 6000, 8 * s), -EPROTO);
}

static void curs_abs_test(struct kunit *test)
{
	const u64 top = BIT_ULL(48);
	struct smc_curs c;

	smc_curs_abs(0x123456789abcULL, &c);
	KUNIT_EXPECT_EQ(test, c.wrap, 0x1234);
	KUNIT_EXPECT_EQ(test, c.count, 0x56789abc);
	/* bits above 47 are not on the wire */
	smc_curs_abs(0xffff000000000005ULL, &c);
	KUNIT_EXPECT_EQ(test, c.wrap, 0);
	KUNIT_EXPECT_EQ(test, c.count, 5);

	/* ahead of, at and behind the known count */
	smc_curs_abs(5000, &c);
	KUNIT_EXPECT_EQ(test, smc_curs_abs_near(1000, &c), 5000);
	KUNIT_EXPECT_EQ(test, smc_curs_abs_near(5000, &c), 5000);
	KUNIT_EXPECT_EQ(test, smc_curs_abs_near(9000, &c), 5000);
	/* across the 48-bit boundary, both ways */
	smc_curs_abs(3 * top + 10, &c);
	KUNIT_EXPECT_EQ(test, smc_curs_abs_near(3 * top - 10, &c),
			3 * top + 10);
	smc_curs_abs(3 * top - 10, &c);
	KUNIT_EXPECT_EQ(test, smc_curs_abs_near(3 * top + 10, &c),
			3 * top - 10);
	/* the nearest reading: at most half the space ahead */
	smc_curs_abs(top / 2, &c);
	KUNIT_EXPECT_EQ(test, smc_curs_abs_near(0, &c), top / 2);
	smc_curs_abs(top / 2 + 1, &c);
	KUNIT_EXPECT_EQ(test, smc_curs_abs_near(top, &c), top / 2 + 1);
	/* round trips at many counts */
	for (u64 n = 1; n < BIT_ULL(60); n = n * 3 + 7) {
		smc_curs_abs(n, &c);
		KUNIT_EXPECT_EQ(test, smc_curs_abs_near(n, &c), n);
		KUNIT_EXPECT_EQ(test, smc_curs_abs_near(n - 1000, &c), n);
		KUNIT_EXPECT_EQ(test, smc_curs_abs_near(n + RING_L, &c), n);
	}
}

static void rmb_grow_due_test(struct kunit *test)
{
	const u32 s = RING_S;

	/* nothing to grow to */
	KUNIT_EXPECT_FALSE(test, smc_rmb_grow_due(s, s, 100 * s, s));
	KUNIT_EXPECT_FALSE(test, smc_rmb_grow_due(0, s, 100 * s, s));
	KUNIT_EXPECT_FALSE(test, smc_rmb_grow_due(2 * s, s, 100 * s, s));
	/* a quiet connection stays small */
	KUNIT_EXPECT_FALSE(test, smc_rmb_grow_due(s, 8 * s, 0, 0));
	KUNIT_EXPECT_FALSE(test, smc_rmb_grow_due(s, 8 * s, 4 * s - 1,
						  s / 2 - 1));
	/* half the ring waiting at once, or four rings in all */
	KUNIT_EXPECT_TRUE(test, smc_rmb_grow_due(s, 8 * s, s / 2, s / 2));
	KUNIT_EXPECT_TRUE(test, smc_rmb_grow_due(s, 8 * s, 4 * s, 0));
	KUNIT_EXPECT_TRUE(test, smc_rmb_grow_due(s, 2 * s, U64_MAX, 0));
}

static struct kunit_case cdc_wire_cases[] = {
	KUNIT_CASE(golden_cdc_test),
	KUNIT_CASE_PARAM(flag_test, cdc_flag_gen_params),
	KUNIT_CASE(cdc_roundtrip_test),
	KUNIT_CASE(cdc_malformed_test),
	KUNIT_CASE(seq_test),
	KUNIT_CASE(curs_add_test),
	KUNIT_CASE(curs_delta_test),
	KUNIT_CASE(avail_space_test),
	KUNIT_CASE(curs_check_test),
	KUNIT_CASE(wnd_limit_test),
	KUNIT_CASE(wnd_update_test),
	KUNIT_CASE(bufsize_test),
	KUNIT_CASE(bufsize_pick_test),
	KUNIT_CASE(wimm_check_test),
	KUNIT_CASE(ring_split_test),
	KUNIT_CASE(move_golden_test),
	KUNIT_CASE(move_malformed_test),
	KUNIT_CASE(move_offer_check_test),
	KUNIT_CASE(move_moved_check_test),
	KUNIT_CASE(curs_abs_test),
	KUNIT_CASE(rmb_grow_due_test),
	{}
};

static struct kunit_suite cdc_wire_suite = {
	.name = "smc_cdc_wire",
	.test_cases = cdc_wire_cases,
};

kunit_test_suite(cdc_wire_suite);
