// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for the CDC codec and the cursor arithmetic
 * (net/smc/cdc_wire.c).
 *
 * The whole input is first decoded as a CDC message: decode->encode must
 * give back the input's first 44 bytes except the reserved bits, and
 * decode again to the same fields.  Then the input is read as a program:
 * a ring size, a cursor, and a list of operations on them with operands
 * from the input.  Properties: a cursor advanced by smc_curs_add() stays
 * within the ring and moves by exactly the amount added (an invalid call
 * leaves it alone); whatever smc_curs_check() accepts lies within the
 * ring, at most one ring ahead and not beyond the limit; free space and
 * available data never exceed the ring; a forced or requested window
 * update is always sent; compressed buffer sizes round up and stay
 * within the limits; a WRITE WITH IMMEDIATE that smc_wimm_check() lets
 * through starts at the producer position, ends within the ring and
 * stays within the window.
 */
#include <linux/errno.h>
#include <linux/types.h>
#include <net/sock.h>
#include "fuzz.h"
#include "../../net/smc/cdc_wire.h"

/* bits the codec gives a meaning to, per byte of the message */
static const u8 cdc_used_bits[SMC_CDC_MSG_LEN] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,	/* type .. token */
	0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,	/* prod cursor */
	0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,	/* cons cursor */
	0xf8, 0xe0,					/* flags */
};

static void fuzz_msg(const u8 *data, size_t size)
{
	struct smc_cdc_msg *m, *m2;
	u8 out[SMC_CDC_MSG_LEN + 8];
	int rc, i;

	m = fuzz_guard_alloc(sizeof(*m), 0x5a);
	rc = smc_cdc_decode(data, size, m);
	if (rc) {
		FUZZ_CHECK(rc == -EINVAL || rc == -EPROTO);
		FUZZ_CHECK(fuzz_all(m, sizeof(*m), 0));
		goto out;
	}
	memset(out, FUZZ_GUARD_BYTE, sizeof(out));
	FUZZ_CHECK(smc_cdc_encode(m, out, SMC_CDC_MSG_LEN - 1) == -ENOSPC);
	FUZZ_CHECK(fuzz_all(out, sizeof(out), FUZZ_GUARD_BYTE));
	FUZZ_CHECK(smc_cdc_encode(m, out, SMC_CDC_MSG_LEN) == SMC_CDC_MSG_LEN);
	FUZZ_CHECK(fuzz_all(out + SMC_CDC_MSG_LEN, 8, FUZZ_GUARD_BYTE));
	for (i = 0; i < SMC_CDC_MSG_LEN; i++)
		FUZZ_CHECK(out[i] == (data[i] & cdc_used_bits[i]));
	m2 = fuzz_guard_alloc(sizeof(*m2), 0x3c);
	FUZZ_CHECK(smc_cdc_decode(out, SMC_CDC_MSG_LEN, m2) == 0);
	FUZZ_CHECK(!memcmp(m, m2, sizeof(*m)));
	fuzz_guard_free(m2, sizeof(*m2));
out:
	fuzz_guard_free(m, sizeof(*m));
}

/* bits the move codec gives a meaning to (SMC_NEGO_VX_GROW) */
static const u8 move_used_bits[SMC_MOVE_MSG_LEN] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,	/* type .. token */
	0xff, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,	/* comp, rkey */
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,	/* vaddr */
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,	/* pos */
};

/* The same properties for the input read as an RMB move message. */
static void fuzz_move(const u8 *data, size_t size)
{
	struct smc_move_msg *m, *m2;
	u8 out[SMC_MOVE_MSG_LEN + 8];
	int rc, i;

	m = fuzz_guard_alloc(sizeof(*m), 0x5a);
	rc = smc_move_decode(data, size, m);
	if (rc) {
		FUZZ_CHECK(rc == -EINVAL || rc == -EPROTO);
		goto out;
	}
	FUZZ_CHECK(m->gen && (m->op == SMC_MOVE_OFFER ||
			      m->op == SMC_MOVE_MOVED));
	FUZZ_CHECK(m->op != SMC_MOVE_OFFER || m->comp <= SMCR_BUF_COMP_MAX);
	memset(out, FUZZ_GUARD_BYTE, sizeof(out));
	FUZZ_CHECK(smc_move_encode(m, out, SMC_MOVE_MSG_LEN - 1) == -ENOSPC);
	FUZZ_CHECK(fuzz_all(out, sizeof(out), FUZZ_GUARD_BYTE));
	FUZZ_CHECK(smc_move_encode(m, out, SMC_MOVE_MSG_LEN) ==
		   SMC_MOVE_MSG_LEN);
	FUZZ_CHECK(fuzz_all(out + SMC_MOVE_MSG_LEN, 8, FUZZ_GUARD_BYTE));
	for (i = 0; i < SMC_MOVE_MSG_LEN; i++)
		FUZZ_CHECK(out[i] == (data[i] & move_used_bits[i]));
	m2 = fuzz_guard_alloc(sizeof(*m2), 0x3c);
	FUZZ_CHECK(smc_move_decode(out, SMC_MOVE_MSG_LEN, m2) == 0);
	FUZZ_CHECK(!memcmp(m, m2, sizeof(*m)));
	fuzz_guard_free(m2, sizeof(*m2));
out:
	fuzz_guard_free(m, sizeof(*m));
}

/*
 * Stream counts as 48-bit cursors (RMB growth): a count read back near
 * itself, or near any count less than 2^47 away, is that count.
 */
static void op_abs(struct fuzz_in *in)
{
	u64 n = fuzz_u64(in), near;
	s64 off = (s64)fuzz_u64(in) % (1LL << 47);
	struct smc_curs c;

	smc_curs_abs(n, &c);
	FUZZ_CHECK(smc_curs_abs_near(n, &c) == n);
	near = n + off;
	FUZZ_CHECK(smc_curs_abs_near(near, &c) == n);
}

static void read_curs(struct fuzz_in *in, u32 size, struct smc_curs *c)
{
	u8 how = fuzz_u8(in);

	c->wrap = fuzz_u16(in);
	c->count = fuzz_u32(in);
	/* mostly cursors within the ring, sometimes anything */
	if (size && how & 0x7)
		c->count %= size;
}

static void op_add(struct fuzz_in *in, u32 size, struct smc_curs *c)
{
	struct smc_curs old = *c;
	u32 n = fuzz_u32(in);
	int rc;

	if (size && fuzz_u8(in) & 1)
		n %= (u64)size + 1;
	rc = smc_curs_add(size, c, n);
	if (!size || old.count >= size || n > size) {
		FUZZ_CHECK(rc == -EINVAL);
		FUZZ_CHECK(c->wrap == old.wrap && c->count == old.count);
		return;
	}
	FUZZ_CHECK(rc == 0 && c->count < size);
	FUZZ_CHECK(smc_curs_delta(size, &old, c) == n);
	FUZZ_CHECK(smc_curs_diff(size, &old, c) == n);
	FUZZ_CHECK(c->wrap == old.wrap || c->wrap == (u16)(old.wrap + 1));
}

static void op_check(struct fuzz_in *in, u32 size, const struct smc_curs *c)
{
	struct smc_curs nw, lim;
	bool use_lim;
	s64 ahead;
	int rc;

	read_curs(in, size, &nw);
	read_curs(in, size, &lim);
	use_lim = fuzz_u8(in) & 1;
	rc = smc_curs_check(size, c, &nw, use_lim ? &lim : NULL);
	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE ||
		   rc == -EPROTO || rc == -EOVERFLOW);
	if (rc)
		return;
	FUZZ_CHECK(size && c->count < size && nw.count < size);
	ahead = smc_curs_delta(size, c, &nw);
	FUZZ_CHECK(ahead >= 0 && ahead <= size);
	if (use_lim)
		FUZZ_CHECK(smc_curs_delta(size, &nw, &lim) >= 0);
}

static void op_window(struct fuzz_in *in, u32 size, const struct smc_curs *c)
{
	struct smc_curs other;
	struct smc_cdc_wnd w;
	u32 avail, space;
	u8 flags;

	read_curs(in, size, &other);
	avail = smc_cdc_rx_avail(size, c, &other);
	space = smc_cdc_tx_space(size, c, &other);
	FUZZ_CHECK(avail <= size && space <= size);
	FUZZ_CHECK(space == size - avail);

	memset(&w, 0, sizeof(w));
	w.size = size;
	w.update_limit = smc_cdc_wnd_update_limit(size);
	FUZZ_CHECK(w.update_limit >= SOCK_MIN_SNDBUF / 2 &&
		   w.update_limit >= size / 10);
	w.cons = *c;
	read_curs(in, size, &w.confirmed);
	read_curs(in, size, &w.peer_prod);
	flags = fuzz_u8(in);
	w.peer_write_blocked = flags & 1;
	w.peer_upd_req = flags & 2;
	w.force = flags & 4;
	if (flags & 8)
		w.update_limit = fuzz_u32(in);
	if (smc_cdc_cons_update_needed(&w) == false)
		FUZZ_CHECK(!w.peer_upd_req && !w.force);
}

static void op_bufsize(struct fuzz_in *in, u32 size)
{
	bool smcd = fuzz_u8(in) & 1;
	u8 max = smcd ? SMCD_BUF_COMP_MAX : SMCR_BUF_COMP_MAX;
	u8 comp = smc_bufsize_compress(size, smcd);
	int full;

	FUZZ_CHECK(comp <= max);
	full = smc_bufsize_uncompress(comp);
	FUZZ_CHECK(full >= SMC_BUF_MIN_SIZE);
	if (comp < max)
		FUZZ_CHECK((u32)full >= size);
	if (comp)
		FUZZ_CHECK((u32)smc_bufsize_uncompress(comp - 1) < size);
	comp = fuzz_u8(in);
	full = smc_bufsize_uncompress(comp);
	if (comp > SMCR_BUF_COMP_MAX)
		FUZZ_CHECK(full == -EINVAL);
	else
		FUZZ_CHECK(full == SMC_BUF_MIN_SIZE << comp);
}

/*
 * A WRITE WITH IMMEDIATE's length against the receiver's counts: what
 * smc_wimm_check() accepts starts at the producer position, ends within
 * the ring and stays within the announced window.
 */
static void op_wimm(struct fuzz_in *in, u32 size)
{
	u64 prod = fuzz_u32(in), cons_sent;
	u32 len = fuzz_u32(in), room = fuzz_u32(in), pos;
	int rc;

	prod = prod << 16 | fuzz_u16(in);
	/* mostly a consumer count a ring or less behind, sometimes any */
	cons_sent = fuzz_u8(in) & 0x7 && size ? prod - room % ((u64)size + 1) :
		    (u64)fuzz_u32(in) << 16;
	if (size && fuzz_u8(in) & 1)
		len %= (u64)size + 1;
	rc = smc_wimm_check(prod, cons_sent, size, len);
	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE ||
		   rc == -ENOSPC);
	if (rc)
		return;
	pos = prod % size;
	FUZZ_CHECK(len && (u64)pos + len <= size);
	FUZZ_CHECK(cons_sent <= prod && prod + len - cons_sent <= size);
}

static void op_seq(struct fuzz_in *in)
{
	u16 a = fuzz_u16(in), b = fuzz_u16(in);

	FUZZ_CHECK(!smc_cdc_seq_before(a, a));
	if (smc_cdc_seq_before(a, b) && smc_cdc_seq_before(b, a))
		FUZZ_CHECK((u16)(a - b) == 0x8000);
	FUZZ_CHECK(smc_cdc_seq_before(a, (u16)(a + 1)));
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fuzz_in in = { .p = data, .left = size };
	struct smc_curs c;
	u32 ring;
	int ops = 0;

	fuzz_msg(data, size);
	fuzz_move(data, size);

	ring = fuzz_u32(&in);
	/* mostly realistic ring sizes, sometimes any 32-bit value */
	if (fuzz_u8(&in) & 0x3)
		ring %= 1U << 20;
	read_curs(&in, ring, &c);
	while (in.left && ops++ < 64) {
		switch (fuzz_u8(&in) % 7) {
		case 0:
			op_add(&in, ring, &c);
			break;
		case 1:
			op_check(&in, ring, &c);
			break;
		case 2:
			op_window(&in, ring, &c);
			break;
		case 3:
			op_bufsize(&in, ring);
			break;
		case 4:
			op_seq(&in);
			break;
		case 5:
			op_wimm(&in, ring);
			break;
		case 6:
			op_abs(&in);
			break;
		}
	}
	return 0;
}
