/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CDC (connection data control) wire codec and cursor arithmetic for
 * SMC-R.
 *
 * A CDC message is a 44-byte RDMA SEND that tells the peer how far this
 * side has produced into the peer's RMB (the producer cursor) and how far
 * it has consumed from its own RMB (the consumer cursor), plus a few
 * flags.  A cursor is a byte offset into a ring (the RMB element) of size
 * N together with a 16-bit count of how often the ring was wrapped.
 *
 * Pure functions only: no verbs, no sockets, no allocation, no locks.
 * The callers own the cursors and must serialize access to them.
 */
#ifndef SMC_CDC_WIRE_H
#define SMC_CDC_WIRE_H

#include <linux/types.h>

#define SMC_CDC_MSG_TYPE		0xfe
#define SMC_CDC_MSG_LEN			44

/* A ring position: byte @count within the ring, @wrap times around. */
struct smc_curs {
	u16 wrap;
	u32 count;
};

/* A CDC message, decoded (host byte order). */
struct smc_cdc_msg {
	u16 seqno;
	u32 token;			/* the receiver's RMBE alert token */
	struct smc_curs prod;		/* sender has written up to here */
	struct smc_curs cons;		/* sender has consumed up to here */
	/* producer flags */
	bool write_blocked;		/* sender has data but no space */
	bool urg_data_pending;
	bool urg_data_present;
	bool cons_curs_upd_req;		/* please send a consumer update */
	bool failover_validation;	/* replay after link failover */
	/* connection state flags */
	bool peer_done_writing;		/* sender did shutdown(SHUT_WR) */
	bool peer_conn_closed;
	bool peer_conn_abort;		/* abnormal close */
};

/*
 * The WIMM data path (two hosts running this module, see clc_nego.h
 * SMC_NEGO_VX_WIMM): an RDMA WRITE WITH IMMEDIATE whose 32-bit immediate is
 * the receiver's RMBE alert token, as a CDC message's token field; the
 * receiver learns the bytes written from its receive completion.  The
 * sender writes at its producer position and never across the ring's end,
 * so a write of @len bytes is legitimate only if it starts at @rx_prod's
 * ring position, ends within the ring, and stays within the window the
 * receiver announced (@rx_cons_sent, its last consumer count sent, plus
 * @size).  @rx_prod and @rx_cons_sent are 64-bit stream counts.  Returns
 * 0, -EINVAL for a zero length or ring size, -ERANGE when the write would
 * cross the ring's end, -ENOSPC when it overruns the window.
 */
int smc_wimm_check(u64 rx_prod, u64 rx_cons_sent, u32 size, u32 len);

/* One contiguous piece of a write: offsets in the send ring and the RMB. */
struct smc_ring_piece {
	u32 src;
	u32 dst;
	u32 len;
};

/*
 * Split up to @n bytes, from stream position @from, into pieces that are
 * contiguous both in the send ring (@snd_size bytes) and in the peer's
 * RMB (@rmb_size bytes), each at most @max_len long, at most @max pieces
 * of them into @p.  Returns the bytes the pieces cover (less than @n when
 * @max pieces were not enough, 0 when a size is 0); *@np is the number of
 * pieces.
 */
u32 smc_ring_split(u64 from, u32 n, u32 snd_size, u32 rmb_size,
		   u32 max_len, struct smc_ring_piece *p, unsigned int max,
		   unsigned int *np);

/*
 * Decode the CDC message in @buf (@len bytes as received).  Needs @len >=
 * 44, type byte 0xfe and length byte 44; reserved bits and bytes are
 * ignored.  The cursors are not checked against any ring here, see
 * smc_curs_check().  Returns 0, -EINVAL when @len is too short or -EPROTO.
 */
int smc_cdc_decode(const u8 *buf, size_t len, struct smc_cdc_msg *m);

/*
 * Encode @m into @buf (@cap >= 44), reserved fields zero.  Returns 44 or
 * -ENOSPC.
 */
int smc_cdc_encode(const struct smc_cdc_msg *m, u8 *buf, size_t cap);

/* Is sequence number @a older than @b (16-bit serial arithmetic)? */
static inline bool smc_cdc_seq_before(u16 a, u16 b)
{
	/* the sign bit of the 16-bit difference */
	return ((a - b) & 0x8000) != 0;
}

/*
 * Advance @c by @n bytes in a ring of @size bytes, bumping the wrap count
 * (modulo 2^16) when the end is crossed.  @n may be 0 .. @size.  Returns 0,
 * or -EINVAL for @size 0, a cursor not within the ring or @n > @size (@c
 * is then left alone).
 */
int smc_curs_add(u32 size, struct smc_curs *c, u32 n);

/*
 * Signed distance in bytes from @from to @to in a ring of @size bytes,
 * negative when @to lies behind @from.  Wrap counts are compared modulo
 * 2^16 (0x0000 follows 0xffff), so the result is meaningful while the two
 * are less than 2^15 rings apart.
 */
s64 smc_curs_delta(u32 size, const struct smc_curs *from,
		   const struct smc_curs *to);

/* smc_curs_delta() clamped to 0 .. @size. */
u32 smc_curs_diff(u32 size, const struct smc_curs *from,
		  const struct smc_curs *to);

/*
 * Bytes waiting to be read from an RMB of @size bytes: produced by the
 * peer up to @prod, consumed locally up to @cons.
 */
u32 smc_cdc_rx_avail(u32 size, const struct smc_curs *cons,
		     const struct smc_curs *prod);

/*
 * Bytes that may be written into the peer's RMB of @size bytes: written
 * locally up to @prod, consumed by the peer up to @peer_cons.
 */
u32 smc_cdc_tx_space(u32 size, const struct smc_curs *peer_cons,
		     const struct smc_curs *prod);

/*
 * Is @new a plausible successor of @old for a ring of @size bytes?  It
 * must lie within the ring, must not be behind @old and must not be more
 * than one ring ahead of it, nor (when @limit is not NULL) beyond @limit.
 * Typical limits: for the peer's producer cursor in our RMB, our last
 * announced consumer cursor advanced by @size; for the peer's consumer
 * cursor in its RMB, our own producer cursor.  Returns 0, -EINVAL for
 * @size 0 or @old/@limit outside the ring, -ERANGE when @new is outside
 * the ring, -EPROTO when it moved backwards and -EOVERFLOW when it is too
 * far ahead.
 */
int smc_curs_check(u32 size, const struct smc_curs *old,
		   const struct smc_curs *new, const struct smc_curs *limit);

/*
 * Minimum amount of newly consumed data worth a consumer cursor update
 * for an RMB of @size bytes: RFC 7609 asks for 10% of the buffer; Linux
 * uses at least SOCK_MIN_SNDBUF / 2.
 */
u32 smc_cdc_wnd_update_limit(u32 size);

/* The receiver's view for the window update decision. */
struct smc_cdc_wnd {
	u32 size;			/* our RMB */
	u32 update_limit;		/* smc_cdc_wnd_update_limit(size) */
	struct smc_curs confirmed;	/* consumer cursor last sent to peer */
	struct smc_curs cons;		/* consumer cursor now */
	struct smc_curs peer_prod;	/* last producer cursor from peer */
	bool peer_write_blocked;	/* flag in the peer's last CDC msg */
	bool peer_upd_req;		/* cons_curs_upd_req from the peer */
	bool force;			/* e.g. urgent data was consumed */
	bool lazy;			/* our own peer: a quarter, not half */
};

/*
 * Must the receiver send a CDC message announcing its consumer cursor?
 * Yes when the peer asked for it or @w->force; otherwise only when more
 * than update_limit bytes were consumed since the last announcement and
 * the peer either sees at most half of the RMB as free (a quarter when
 * @w->lazy) or is blocked.  @lazy is for a peer running this module on
 * the WIMM path, which never sets write_blocked: one message per three
 * quarters of a ring instead of one per half, and the writer still has a
 * quarter to write while the message travels.
 */
bool smc_cdc_cons_update_needed(const struct smc_cdc_wnd *w);

/*
 * RMB growth (clc_nego.h SMC_NEGO_VX_GROW, two hosts running this module).
 * A connection's RMB starts at 16 KiB and moves to a larger one once the
 * peer streams into it, by two messages that only such a link group
 * carries: 44-byte SENDs like a CDC message, of type 0xfd.
 *   OFFER  receiver to writer: generation @gen of its RMB, 16 KiB << @comp
 *          bytes at @vaddr with @rkey (valid on the link the message came
 *          on; the other links' keys went by LLC CONFIRM_RKEY first).
 *   MOVED  writer to receiver: every byte before stream position @pos has
 *          landed in the old RMB, every byte from @pos on goes to
 *          generation @gen, at its position modulo the new size.
 * @token is the receiving connection's alert token, as in a CDC message.
 * Layout (big endian): 0 type, 1 length 44, 2 op, 3 gen, 4 token, 8 comp,
 * 9 three reserved bytes, 12 rkey, 16 vaddr (64), 24 pos (64), 32 twelve
 * reserved bytes.
 */
#define SMC_MOVE_MSG_TYPE		0xfd
#define SMC_MOVE_MSG_LEN		SMC_CDC_MSG_LEN

enum smc_move_op {
	SMC_MOVE_OFFER = 1,
	SMC_MOVE_MOVED = 2,
};

struct smc_move_msg {
	u8 op;				/* enum smc_move_op */
	u8 gen;				/* 1, 2, ...: never 0 */
	u32 token;
	u8 comp;			/* OFFER */
	u32 rkey;			/* OFFER */
	u64 vaddr;			/* OFFER */
	u64 pos;			/* MOVED */
};

/*
 * Decode the move message in @buf (@len bytes as received): type 0xfd,
 * length byte 44, a known op, a generation other than 0 and, for an
 * OFFER, @comp at most SMCR_BUF_COMP_MAX.  Reserved bytes are ignored.
 * Returns 0, -EINVAL when @len is short of 44, else -EPROTO.
 */
int smc_move_decode(const u8 *buf, size_t len, struct smc_move_msg *m);

/* Encode @m into @buf (@cap >= 44), reserved bytes zero: 44 or -ENOSPC. */
int smc_move_encode(const struct smc_move_msg *m, u8 *buf, size_t cap);

/*
 * Checks of a received move message.  smc_move_offer_check(), for the
 * writer: an OFFER of generation @gen for 16 KiB << @comp bytes, when the
 * writer took generation @taken last (0: none), writes into an RMB of
 * @size bytes and still waits to switch to generation @taken (@pending).
 * smc_move_moved_check(), for the receiver: a MOVED of generation @gen at
 * stream position @pos, when it offered generation @offered (0: none),
 * still waits for it (@open; else it moved at @moved_at), has counted
 * @rx_prod bytes, announced @cons_sent consumed and has an RMB of @size
 * bytes (the old one while @open).  Both return 0 to take the message, 1
 * for a repeat of one already taken (after a link switch), -EPROTO when
 * it is out of order, -ERANGE for a size or position out of range.
 */
int smc_move_offer_check(u8 gen, u8 comp, u8 taken, bool pending, u32 size);
int smc_move_moved_check(u8 gen, u64 pos, u8 offered, bool open,
			 u64 moved_at, u64 rx_prod, u64 cons_sent, u32 size);

/*
 * On a link group with RMB growth, a CDC message's cursors are not ring
 * positions but the low 48 bits of stream counts (wrap: bits 47..32,
 * count: bits 31..0), so that they mean the same whichever RMB the bytes
 * are in, and whichever size either side last knew.
 */
void smc_curs_abs(u64 count, struct smc_curs *c);

/*
 * The stream count whose low 48 bits @c holds that lies nearest to @near
 * (less than 2^47 before or at most 2^47 after it).
 */
u64 smc_curs_abs_near(u64 near, const struct smc_curs *c);

/*
 * Should a receiver move to a larger RMB?  Its RMB has @size bytes and may
 * grow to @goal; the peer wrote @written bytes into it so far, @unread of
 * them not yet read.  Yes once the peer has filled half of the ring at
 * once or written four rings' worth: a connection that carries a stream.
 */
bool smc_rmb_grow_due(u32 size, u32 goal, u64 written, u32 unread);

/* RMB element sizes as in CLC accept/confirm (4 bits): 16 KiB << n */
#define SMC_BUF_MIN_SIZE		16384
#define SMCR_BUF_COMP_MAX		15	/* 512 MiB */
#define SMCD_BUF_COMP_MAX		6	/* 1 MiB */

/*
 * The compressed value for a buffer of at least @size bytes: the
 * smallest n with 16 KiB << n >= @size, capped at SMCD_BUF_COMP_MAX or
 * SMCR_BUF_COMP_MAX.  Sizes up to 16 KiB (including 0) give 0.
 */
u8 smc_bufsize_compress(u32 size, bool smcd);

/* 16 KiB << @comp, or -EINVAL for @comp > SMCR_BUF_COMP_MAX. */
int smc_bufsize_uncompress(u8 comp);
/*
 * The compressed size of a new connection's RMB (@rmb) or the size its
 * send buffer may grow to: the socket's buffer size halved when the
 * application set it (@locked, as upstream), else the sysctl's value; an
 * RMB in a link group already holding more than @roomy connections gets
 * half of the sysctl's value.
 */
u8 smc_bufsize_pick(bool rmb, int sk_buf, bool locked, int sysctl_val,
		    unsigned int lgr_conns, unsigned int roomy);

#endif /* SMC_CDC_WIRE_H */
