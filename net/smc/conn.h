/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications over RDMA: one SMC-R connection.
 *
 * Both directions are tracked as 64-bit byte counts of the stream, which
 * never wrap in practice; ring positions are these counts modulo the ring
 * size, and the 16-bit wrap counts of the wire cursors are derived from
 * them only when a CDC message is built or parsed.  Byte n of our sending
 * stream sits at n % sndbuf size in our send buffer and is written to
 * n % peer RMB size in the peer's RMB, so one count serves both rings
 * (after an RMB move, grow.c, the size of the RMB that holds byte n).
 *
 *   sending:   tx_done <= tx_written <= tx_queued,  peer_cons <= tx_written
 *     tx_queued   bytes the application has copied into the send buffer
 *     tx_written  bytes RDMA-written to the peer (announced by a CDC)
 *     tx_done     bytes whose write completed: send buffer space is free
 *     peer_cons   bytes the peer has consumed: its RMB space is free
 * On a link group with the WIMM extension (clc_nego.h SMC_NEGO_VX_WIMM)
 * plain data goes as RDMA WRITE WITH IMMEDIATE, which moves tx_written and
 * rx_prod like a CDC's producer cursor; a CDC carries everything else
 * (consumer cursor, flags, urgent data, replays), with absolute cursors
 * that agree with the WIMMs before it on the same link.
 *
 *   receiving: rx_cons <= rx_prod <= rx_cons + rmb size
 *     rx_prod     bytes the peer has written into our RMB
 *     rx_cons     bytes the application has read
 *     rx_cons_sent the consumer count last announced to the peer
 *
 * All of it is protected by conn->lock (a BH spinlock): CDC messages and
 * send completions update it in softirq context.
 */
#ifndef SMC_CONN_H
#define SMC_CONN_H

#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include "core.h"
#include "cdc_wire.h"

struct smc_sock;

enum {
	SMC_URG_NONE,			/* no urgent byte, or skipped */
	SMC_URG_VALID,			/* arrived, not read with MSG_OOB */
	SMC_URG_READ,			/* read with MSG_OOB */
};

struct smc_conn {
	struct smc_lgr_conn lc;		/* token, lgr, link, peer rtoken */
	/*
	 * lc is in the lgr's tree and the buffers exist: CDC messages are
	 * taken only then.  Written under lock, before the tree entry goes
	 * and after it came (the entry alone is no sign of a complete
	 * connection).
	 */
	bool attached;
	struct smc_buf *sndbuf;
	u8 sndbuf_comp;			/* what it may grow to (tx.c) */
	struct smc_buf *rmb;
	u32 peer_token;			/* the peer's RMBE alert token */
	u32 peer_rmb_size;		/* bytes, the peer's RMB element */

	spinlock_t lock;			/* everything below */
	/* sending */
	u64 tx_queued;
	u64 tx_written;
	u64 tx_done;
	u64 peer_cons;
	struct smc_curs peer_cons_curs;	/* last cursor seen on the wire */
	u16 tx_seq;			/* last CDC sequence number sent */
	bool tx_blocked;		/* a push is left to tx_work (no slot) */
	bool tx_corked;			/* held back by MSG_MORE/TCP_CORK */
	bool tx_nodelay;		/* TCP_NODELAY at the last write */
	bool tx_upd_req;		/* next CDC asks for one back (rx.c) */
	/* someone waits for a send to complete (poll found no room, or a
	 * writer, linger or buffer growth sleeps): the next completion wakes
	 * the socket with EPOLLOUT, as TCP does only after SOCK_NOSPACE
	 */
	bool tx_want_wake;
	bool tx_reset;			/* sent to a closed peer: TCP's reset */
	struct timer_list cork_timer;	/* TCP's ceiling on a cork */
	bool tx_urg_pending;
	bool tx_replay;			/* link switched: write again ... */
	u64 tx_replay_from;		/* ... from here to tx_written */
	/*
	 * link switched: the next message is a CDC, which tells the peer
	 * to take WIMMs from the new link only (rx_link)
	 */
	bool tx_cdc_next;
	/* a message that had to be sent found no free slot: tx_work owes it */
	bool tx_msg_owed;
	/* receiving */
	u64 rx_prod;
	u64 rx_cons;
	u64 rx_cons_sent;
	struct smc_curs peer_prod_curs;
	u16 rx_seq;			/* last CDC sequence number taken */
	bool rx_seq_valid;
	bool peer_write_blocked;
	bool peer_upd_req;
	bool rx_failover;		/* peer replays after a link switch */
	/*
	 * the link the peer sends on, as its last CDC showed (or its first
	 * WIMM): a WIMM from another link is an old one that a switch
	 * overtook, already counted by the CDC's producer cursor
	 */
	struct smc_link *rx_link;
	u32 rx_upd_limit;		/* consumer update threshold */

	/* urgent data (MSG_OOB), one byte as in TCP */
	u64 tx_urg_end;			/* just past the urgent byte, 0: none */
	u64 rx_urg_pos;			/* stream position of the urgent byte */
	u8 rx_urg_byte;
	u8 rx_urg_state;		/* SMC_URG_* */

	/* close state, see close.c */
	bool local_done_writing;	/* we announced SHUT_WR */
	bool local_closed;		/* we announced close */
	bool local_abort;		/* we announced abort */
	bool peer_done_writing;
	bool peer_closed;
	bool peer_abort;
	bool dead;			/* lgr gone: no more data */
	bool hs_done;			/* handshake ended in SMC-R */
	bool orphaned;			/* close() returned, close_work owns it */
	bool orphan_counted;		/* counts in smcr_max_orphans */
	bool freeing;			/* close_work is tearing it down */
	unsigned long close_deadline;

	/*
	 * RMB growth (SMC_NEGO_VX_GROW, grow.c).  Receiving: the RMB may
	 * grow to rmb_goal; rmb_next is offered to the peer (generation
	 * rx_move_gen), and once the peer moved, rmb_old holds the bytes
	 * before rx_move_pos until they are read.  Sending: the peer's
	 * OFFER (tx_move_gen) waits in tx_move_* until every write into the
	 * old RMB completed; then MOVED goes, and stays unacknowledged until
	 * its send completes.
	 */
	u8 rmb_goal;			/* compressed size */
	bool rx_grow_tried;		/* grow_work was queued (once) */
	bool rx_offer_owed;		/* OFFER to send (again) */
	u8 rx_move_gen;
	struct smc_buf *rmb_next;
	struct smc_buf *rmb_old;
	u64 rx_move_pos;
	u8 tx_move_gen;
	bool tx_move_pending;		/* switch once tx_done == tx_written */
	bool tx_moved_owed;		/* MOVED to send (again) */
	bool tx_moved_unacked;
	int tx_move_rtoken;
	u32 tx_move_size;
	u64 tx_move_pos;
	struct work_struct grow_work;	/* a new RMB, or the old one back */

	struct work_struct tx_work;	/* pushes when softirq could not */
	struct delayed_work close_work;	/* orphaned connection's end */
};

static inline struct smc_conn *smc_lc_conn(struct smc_lgr_conn *lc)
{
	return container_of(lc, struct smc_conn, lc);
}

/* cdc.c */
void smc_conn_init(struct smc_conn *conn);
void smc_conn_hs_done(struct smc_conn *conn);
/* Send a CDC message with the current cursors and flags (conn->lock held
 * by the caller, any context); returns 0 or a negative errno.  Pushes
 * pending data first.
 */
int smc_cdc_push_locked(struct smc_conn *conn, bool force_msg);
void smc_cdc_push(struct smc_conn *conn, bool force_msg);
bool smc_cdc_cons_due(struct smc_conn *conn);
void smc_conn_tx_work(struct work_struct *work);
void smc_sk_wake(struct sock *sk, __poll_t mask);
void smc_cdc_defer(struct smc_conn *conn);
void smc_cdc_violation(struct smc_conn *conn, const char *what);
/* the CDC cursor for stream count @count in a ring of @size bytes */
void smc_cdc_curs_out(struct smc_conn *conn, u64 count, u32 size,
		      struct smc_curs *c);

/*
 * grow.c: RMB growth.  smc_grow_init() at connection set-up;
 * smc_grow_rx_check() after the peer wrote (conn->lock held, any
 * context); smc_grow_push_locked() sends what the move owes before any
 * other message (conn->lock held): 0, or the error of a send (-EAGAIN
 * when it left work to tx_work); smc_grow_tx_hold() whether data must
 * wait for a move; smc_grow_tx_done() takes the completion of a MOVED
 * (cookie with SMC_GROW_COOKIE); smc_grow_link_switch() owes the
 * messages of an unfinished move again; smc_grow_ring() the RMB that
 * holds stream position @pos, its offset there and the contiguous bytes
 * from it within that RMB (conn->lock held); smc_grow_release() gives
 * back an old RMB that has been read (process context);
 * smc_grow_bufs_put() gives back what a move still holds.
 */
#define SMC_GROW_COOKIE		BIT_ULL(63)
void smc_grow_init(struct smc_conn *conn);
void smc_grow_rx_check(struct smc_conn *conn);
int smc_grow_push_locked(struct smc_conn *conn);
bool smc_grow_tx_hold(struct smc_conn *conn);
void smc_grow_tx_done(struct smc_conn *conn, u64 cookie, int status);
void smc_grow_link_switch(struct smc_conn *conn);
struct smc_buf *smc_grow_ring(struct smc_conn *conn, u64 pos, u32 *off,
			      u32 *contig);
void smc_grow_release(struct smc_conn *conn);
struct smc_buf *smc_grow_take_old(struct smc_conn *conn);
void smc_grow_bufs_put(struct smc_conn *conn, struct smc_lgr *lgr);

/* tx.c, rx.c */
void smc_tx_init(struct smc_conn *conn);
void smc_tx_uncork(struct smc_sock *smc);
bool smc_tx_autocork(struct smc_conn *conn);
int smc_tx_sendmsg(struct smc_sock *smc, struct msghdr *msg, size_t len);
void smc_tx_wait_done(struct smc_sock *smc, long *timeo);
int smc_rx_recvmsg(struct smc_sock *smc, struct msghdr *msg, size_t len,
		   int flags);
__poll_t smc_rx_poll(struct smc_sock *smc);
int smc_rx_ioctl(struct smc_sock *smc, unsigned int cmd, int *val);

/* close.c */
void smc_conn_init_close(struct smc_conn *conn);
void smc_close_kick(struct smc_sock *smc);
void smc_conn_free(struct smc_sock *smc);
void smc_conn_bufs_put(struct smc_conn *conn, struct smc_lgr *lgr);
int smc_close_shutdown(struct smc_sock *smc, int how);
void smc_close_active(struct smc_sock *smc);
void smc_close_orphan(struct smc_sock *smc);
int smc_close_init(void);
void smc_close_exit(void);

#endif /* SMC_CONN_H */
