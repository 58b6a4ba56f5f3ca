// SPDX-License-Identifier: GPL-2.0
/*
 * CDC wire codec and cursor arithmetic for SMC-R.
 *
 * Wire layout (all multi-byte fields big-endian):
 *   0  type 0xfe        1  length 44        2  seqno (16)
 *   4  alert token (32)
 *   8  producer cursor: 2 reserved, wrap (16), count (32)
 *  16  consumer cursor: same layout
 *  24  producer flags   25  connection state flags
 *  26  18 reserved bytes
 * Flag bits are numbered from the most significant bit down.
 */
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <net/sock.h>
#include "cdc_wire.h"

#define CDC_TYPE		0
#define CDC_LEN			1
#define CDC_SEQNO		2
#define CDC_TOKEN		4
#define CDC_PROD		8
#define CDC_CONS		16
#define CDC_PROD_FLAGS		24
#define CDC_CONN_FLAGS		25
/* within a cursor */
#define CURS_WRAP		2
#define CURS_COUNT		4

#define PF_WRITE_BLOCKED	0x80
#define PF_URG_DATA_PENDING	0x40
#define PF_URG_DATA_PRESENT	0x20
#define PF_CONS_CURS_UPD_REQ	0x10
#define PF_FAILOVER_VALIDATION	0x08

#define CF_PEER_DONE_WRITING	0x80
#define CF_PEER_CONN_CLOSED	0x40
#define CF_PEER_CONN_ABORT	0x20

static void cdc_get_curs(const u8 *p, struct smc_curs *c)
{
	c->wrap = get_unaligned_be16(p + CURS_WRAP);
	c->count = get_unaligned_be32(p + CURS_COUNT);
}

static void cdc_put_curs(const struct smc_curs *c, u8 *p)
{
	put_unaligned_be16(c->wrap, p + CURS_WRAP);
	put_unaligned_be32(c->count, p + CURS_COUNT);
}

int smc_cdc_decode(const u8 *buf, size_t len, struct smc_cdc_msg *m)
{
	u8 pf, cf;

	memset(m, 0, sizeof(*m));
	if (len < SMC_CDC_MSG_LEN)
		return -EINVAL;
	if (buf[CDC_TYPE] != SMC_CDC_MSG_TYPE ||
	    buf[CDC_LEN] != SMC_CDC_MSG_LEN)
		return -EPROTO;
	m->seqno = get_unaligned_be16(buf + CDC_SEQNO);
	m->token = get_unaligned_be32(buf + CDC_TOKEN);
	cdc_get_curs(buf + CDC_PROD, &m->prod);
	cdc_get_curs(buf + CDC_CONS, &m->cons);
	pf = buf[CDC_PROD_FLAGS];
	m->write_blocked = pf & PF_WRITE_BLOCKED;
	m->urg_data_pending = pf & PF_URG_DATA_PENDING;
	m->urg_data_present = pf & PF_URG_DATA_PRESENT;
	m->cons_curs_upd_req = pf & PF_CONS_CURS_UPD_REQ;
	m->failover_validation = pf & PF_FAILOVER_VALIDATION;
	cf = buf[CDC_CONN_FLAGS];
	m->peer_done_writing = cf & CF_PEER_DONE_WRITING;
	m->peer_conn_closed = cf & CF_PEER_CONN_CLOSED;
	m->peer_conn_abort = cf & CF_PEER_CONN_ABORT;
	return 0;
}

int smc_cdc_encode(const struct smc_cdc_msg *m, u8 *buf, size_t cap)
{
	u8 pf = 0, cf = 0;

	if (cap < SMC_CDC_MSG_LEN)
		return -ENOSPC;
	memset(buf, 0, SMC_CDC_MSG_LEN);
	buf[CDC_TYPE] = SMC_CDC_MSG_TYPE;
	buf[CDC_LEN] = SMC_CDC_MSG_LEN;
	put_unaligned_be16(m->seqno, buf + CDC_SEQNO);
	put_unaligned_be32(m->token, buf + CDC_TOKEN);
	cdc_put_curs(&m->prod, buf + CDC_PROD);
	cdc_put_curs(&m->cons, buf + CDC_CONS);
	if (m->write_blocked)
		pf |= PF_WRITE_BLOCKED;
	if (m->urg_data_pending)
		pf |= PF_URG_DATA_PENDING;
	if (m->urg_data_present)
		pf |= PF_URG_DATA_PRESENT;
	if (m->cons_curs_upd_req)
		pf |= PF_CONS_CURS_UPD_REQ;
	if (m->failover_validation)
		pf |= PF_FAILOVER_VALIDATION;
	if (m->peer_done_writing)
		cf |= CF_PEER_DONE_WRITING;
	if (m->peer_conn_closed)
		cf |= CF_PEER_CONN_CLOSED;
	if (m->peer_conn_abort)
		cf |= CF_PEER_CONN_ABORT;
	buf[CDC_PROD_FLAGS] = pf;
	buf[CDC_CONN_FLAGS] = cf;
	return SMC_CDC_MSG_LEN;
}

/* ---------------------------------------------------------------------- */
/* cursors                                                                 */

int smc_curs_add(u32 size, struct smc_curs *c, u32 n)
{
	u64 pos;

	if (!size || c->count >= size || n > size)
		return -EINVAL;
	pos = (u64)c->count + n;	/* < 2 * size, no u32 overflow */
	if (pos >= size) {
		pos -= size;
		c->wrap++;
	}
	c->count = pos;
	return 0;
}

s64 smc_curs_delta(u32 size, const struct smc_curs *from,
		   const struct smc_curs *to)
{
	s16 wraps = (s16)(u16)(to->wrap - from->wrap);

	return (s64)wraps * size + (s64)to->count - (s64)from->count;
}

u32 smc_curs_diff(u32 size, const struct smc_curs *from,
		  const struct smc_curs *to)
{
	return clamp_t(s64, smc_curs_delta(size, from, to), 0, size);
}

u32 smc_cdc_rx_avail(u32 size, const struct smc_curs *cons,
		     const struct smc_curs *prod)
{
	return smc_curs_diff(size, cons, prod);
}

u32 smc_cdc_tx_space(u32 size, const struct smc_curs *peer_cons,
		     const struct smc_curs *prod)
{
	return size - smc_curs_diff(size, peer_cons, prod);
}

int smc_curs_check(u32 size, const struct smc_curs *old,
		   const struct smc_curs *new, const struct smc_curs *limit)
{
	s64 ahead;

	if (!size || old->count >= size || (limit && limit->count >= size))
		return -EINVAL;
	if (new->count >= size)
		return -ERANGE;
	ahead = smc_curs_delta(size, old, new);
	if (ahead < 0)
		return -EPROTO;
	if (ahead > size)
		return -EOVERFLOW;
	if (limit && smc_curs_delta(size, new, limit) < 0)
		return -EOVERFLOW;
	return 0;
}

u32 smc_cdc_wnd_update_limit(u32 size)
{
	return max_t(u32, size / 10, SOCK_MIN_SNDBUF / 2);
}

bool smc_cdc_cons_update_needed(const struct smc_cdc_wnd *w)
{
	u32 unconfirmed, peer_free;

	if (w->peer_upd_req || w->force)
		return true;
	unconfirmed = smc_curs_diff(w->size, &w->confirmed, &w->cons);
	if (unconfirmed <= w->update_limit)
		return false;
	/* what the peer believes is free: it only knows @confirmed */
	peer_free = w->size - smc_curs_diff(w->size, &w->confirmed,
					    &w->peer_prod);
	return peer_free <= w->size / (w->lazy ? 4 : 2) ||
	       w->peer_write_blocked;
}

int smc_wimm_check(u64 rx_prod, u64 rx_cons_sent, u32 size, u32 len)
{
	u32 pos;

	if (!len || !size)
		return -EINVAL;
	div_u64_rem(rx_prod, size, &pos);
	if (len > size - pos)
		return -ERANGE;
	if (rx_prod < rx_cons_sent || rx_prod - rx_cons_sent > size ||
	    len > size - (rx_prod - rx_cons_sent))
		return -ENOSPC;
	return 0;
}

u32 smc_ring_split(u64 from, u32 n, u32 snd_size, u32 rmb_size,
		   u32 max_len, struct smc_ring_piece *p, unsigned int max,
		   unsigned int *np)
{
	u32 src, dst, len, done = 0;

	*np = 0;
	if (!snd_size || !rmb_size || !max_len)
		return 0;
	div_u64_rem(from, snd_size, &src);
	div_u64_rem(from, rmb_size, &dst);
	while (done < n && *np < max) {
		len = min3(n - done, snd_size - src, rmb_size - dst);
		len = min(len, max_len);
		p[*np].src = src;
		p[*np].dst = dst;
		p[*np].len = len;
		(*np)++;
		done += len;
		src = src + len == snd_size ? 0 : src + len;
		dst = dst + len == rmb_size ? 0 : dst + len;
	}
	return done;
}

/* ---------------------------------------------------------------------- */
/* RMB growth                                                              */

#define MOVE_OP			2
#define MOVE_GEN		3
#define MOVE_TOKEN		4
#define MOVE_COMP		8
#define MOVE_RKEY		12
#define MOVE_VADDR		16
#define MOVE_POS		24

#define CURS_ABS_BITS		48
#define CURS_ABS_MASK		(BIT_ULL(CURS_ABS_BITS) - 1)

int smc_move_decode(const u8 *buf, size_t len, struct smc_move_msg *m)
{
	memset(m, 0, sizeof(*m));
	if (len < SMC_MOVE_MSG_LEN)
		return -EINVAL;
	if (buf[CDC_TYPE] != SMC_MOVE_MSG_TYPE ||
	    buf[CDC_LEN] != SMC_MOVE_MSG_LEN)
		return -EPROTO;
	m->op = buf[MOVE_OP];
	m->gen = buf[MOVE_GEN];
	m->token = get_unaligned_be32(buf + MOVE_TOKEN);
	m->comp = buf[MOVE_COMP];
	m->rkey = get_unaligned_be32(buf + MOVE_RKEY);
	m->vaddr = get_unaligned_be64(buf + MOVE_VADDR);
	m->pos = get_unaligned_be64(buf + MOVE_POS);
	if (!m->gen)
		return -EPROTO;
	switch (m->op) {
	case SMC_MOVE_OFFER:
		return m->comp > SMCR_BUF_COMP_MAX ? -EPROTO : 0;
	case SMC_MOVE_MOVED:
		return 0;
	default:
		return -EPROTO;
	}
}

int smc_move_encode(const struct smc_move_msg *m, u8 *buf, size_t cap)
{
	if (cap < SMC_MOVE_MSG_LEN)
		return -ENOSPC;
	memset(buf, 0, SMC_MOVE_MSG_LEN);
	buf[CDC_TYPE] = SMC_MOVE_MSG_TYPE;
	buf[CDC_LEN] = SMC_MOVE_MSG_LEN;
	buf[MOVE_OP] = m->op;
	buf[MOVE_GEN] = m->gen;
	put_unaligned_be32(m->token, buf + MOVE_TOKEN);
	buf[MOVE_COMP] = m->comp;
	put_unaligned_be32(m->rkey, buf + MOVE_RKEY);
	put_unaligned_be64(m->vaddr, buf + MOVE_VADDR);
	put_unaligned_be64(m->pos, buf + MOVE_POS);
	return SMC_MOVE_MSG_LEN;
}

int smc_move_offer_check(u8 gen, u8 comp, u8 taken, bool pending, u32 size)
{
	if (taken && gen == taken)
		return 1;
	if (gen != (u8)(taken + 1) || pending)
		return -EPROTO;
	if (comp > SMCR_BUF_COMP_MAX || !size ||
	    ((u64)SMC_BUF_MIN_SIZE << comp) <= size)
		return -ERANGE;
	return 0;
}

int smc_move_moved_check(u8 gen, u64 pos, u8 offered, bool open,
			 u64 moved_at, u64 rx_prod, u64 cons_sent, u32 size)
{
	if (!open)
		return offered && gen == offered && pos == moved_at ? 1 :
		       -EPROTO;
	if (gen != offered)
		return -EPROTO;
	/* nothing written may lie beyond the old RMB's window */
	if (pos < rx_prod || cons_sent > rx_prod || pos > cons_sent + size)
		return -ERANGE;
	return 0;
}

void smc_curs_abs(u64 count, struct smc_curs *c)
{
	c->wrap = (u16)(count >> 32);
	c->count = (u32)count;
}

u64 smc_curs_abs_near(u64 near, const struct smc_curs *c)
{
	u64 v = ((u64)c->wrap << 32) | c->count;
	u64 d = (v - near) & CURS_ABS_MASK;

	/* a 48-bit two's complement distance */
	if (d > BIT_ULL(CURS_ABS_BITS - 1))
		return near - (BIT_ULL(CURS_ABS_BITS) - d);
	return near + d;
}

bool smc_rmb_grow_due(u32 size, u32 goal, u64 written, u32 unread)
{
	if (!size || goal <= size)
		return false;
	return unread >= size / 2 || written >= 4ULL * size;
}

/* ---------------------------------------------------------------------- */
/* compressed buffer sizes                                                 */

u8 smc_bufsize_compress(u32 size, bool smcd)
{
	u8 max = smcd ? SMCD_BUF_COMP_MAX : SMCR_BUF_COMP_MAX;
	u32 units;

	if (size <= SMC_BUF_MIN_SIZE)
		return 0;
	/* number of 16 KiB units, rounded up, minus one: >= 1 here */
	units = (size - 1) / SMC_BUF_MIN_SIZE;
	return min_t(u32, ilog2(units) + 1, max);
}

int smc_bufsize_uncompress(u8 comp)
{
	if (comp > SMCR_BUF_COMP_MAX)
		return -EINVAL;
	return SMC_BUF_MIN_SIZE << comp;
}

u8 smc_bufsize_pick(bool rmb, int sk_buf, bool locked, int sysctl_val,
		    unsigned int lgr_conns, unsigned int roomy)
{
	u8 comp = smc_bufsize_compress(locked ? sk_buf / 2 : sysctl_val, false);

	if (rmb && !locked && comp && lgr_conns > roomy)
		comp--;
	return comp;
}
