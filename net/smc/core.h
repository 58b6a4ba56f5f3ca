/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications over RDMA: link groups, links, buffers.
 *
 * A link group (struct smc_lgr) is the RDMA relationship between this host
 * and one peer host in one role: one or more links (RC queue pairs, one
 * per RDMA port pair), the send buffers and RMBs registered on them, the
 * peer's RMB tokens, and the connections that share all of it.
 *
 * Layers (each in its own file, one job each):
 *   wr.c   verbs resources of one link: PD, CQ, QP, posting of SENDs,
 *          RDMA WRITEs and receive buffers, memory registration;
 *          completions dispatched in softirq context.
 *   link.c bringing a link's QP to RTR/RTS from the peer's parameters.
 *   lgr.c  the link group registry, connection tokens, buffer pools,
 *          peer rkeys, idle timeout and termination.
 *   llc.c  LLC flows on the links (CONFIRM_LINK, TEST_LINK, CONFIRM_RKEY,
 *          DELETE_RKEY, DELETE_LINK, ADD_LINK rejection).
 * Connections (conn.h, cdc.c, tx.c, rx.c) sit on top and only use the
 * functions declared here.
 *
 * Contexts: completions run in softirq context.  CDC messages and send
 * completions for connections are handed to the connection layer under
 * read_lock_bh(&lgr->conns_lock), so a connection found in the tree stays
 * alive while its callback runs; the connection layer's callbacks must not
 * sleep.  LLC messages are handed to llc.c, which processes them in a
 * work item.
 */
#ifndef SMC_CORE_H
#define SMC_CORE_H

#include <linux/atomic.h>
#include <linux/in6.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include "ib.h"
#include "clc_wire.h"

#define SMC_LINKS_MAX		3	/* links per link group, upstream too */
#define SMC_RMBS_MAX		255	/* peer RMB tokens per link group */
#define SMC_CONNS_MAX		255	/* connections per link group */
#define SMC_LGR_ROOMY_CONNS	16	/* beyond: new RMBs get half of rmem */
#define SMC_LLC_WAIT_TIME	(2 * HZ)	/* one LLC request/response */

/* How a link came into being, for diagnostics and ADD_LINK decisions. */
enum smc_link_state {
	SMC_LINK_UNUSED,	/* slot free */
	SMC_LINK_INIT,		/* QP created, not yet connected */
	SMC_LINK_ACTIVATING,	/* QP in RTR/RTS, CONFIRM_LINK pending */
	SMC_LINK_ACTIVE,	/* usable for connections */
	SMC_LINK_DOWN,		/* failed or being deleted */
};

/* The IPv4 address of a v4-mapped GID (SMC-R v2, iWARP) */
static inline __be32 smc_gid_v4(const u8 *gid)
{
	__be32 a;

	memcpy(&a, gid + 12, sizeof(a));
	return a;
}

/* The peer's end of a link, from a CLC accept/confirm or an ADD_LINK. */
struct smc_link_peer {
	u8 gid[SMC_IB_GID_LEN];
	u8 mac[ETH_ALEN];	/* next hop's MAC for the address vector */
	u32 qpn;		/* 24 bits */
	u32 psn;		/* 24 bits, the peer's initial send PSN */
	u8 mtu;			/* enum ib_mtu the peer offered */
};

struct smc_wr;			/* private to wr.c */

struct smc_link {
	struct smc_lgr *lgr;
	u8 idx;			/* index in lgr->links[] */
	u8 link_id;		/* link number on the wire (1..255) */
	u8 link_uid[4];		/* ours, as sent in CONFIRM_LINK/ADD_LINK */
	u8 peer_link_uid[4];
	enum smc_link_state state;

	/* local end */
	struct smc_ib_dev *dev;	/* holds a reference while not UNUSED */
	u8 port;		/* 1-based */
	u8 sgid_index;
	u8 gid[SMC_IB_GID_LEN];
	u8 mac[ETH_ALEN];
	u32 qpn;		/* qp->qp_num once created */
	u32 psn;		/* our initial send PSN, random 24 bits */
	enum ib_mtu path_mtu;	/* port's active MTU, later min with peer's */
	struct ib_pd *pd;
	struct ib_qp *qp;
	struct smc_wr *wr;	/* work request state (wr.c) */

	/* remote end */
	struct smc_link_peer peer;

	/* accounting */
	atomic_t conn_cnt;	/* connections using this link */
	u64 tx_bytes;		/* RDMA-written payload */
	u64 rx_bytes;		/* payload the peer announced (CDC, WIMM) */
	u64 tx_msgs;
	u64 rx_msgs;
	u64 tx_wimm;		/* WRITE WITH IMMEDIATEs completed ... */
	u64 rx_wimm;		/* ... and received */
};

/* One send buffer or RMB, registered on the link group's links. */
struct smc_buf {
	struct list_head list;	/* on lgr->sndbufs or lgr->rmbs */
	void *cpu_addr;		/* physically contiguous, page aligned */
	u32 size;		/* 16 KiB << comp */
	u8 comp;		/* smc_bufsize_compress(size) */
	bool rmb;
	bool used;		/* owned by a connection */
	bool rkey_confirmed;	/* RMB: the peer has its rkey on all links */
	struct {
		u64 dma_addr;	/* ib_dma address; for an RMB also the iova */
		u32 lkey;
		u32 rkey;	/* RMB only */
		struct ib_mr *mr;	/* RMB only */
		bool mapped;
	} map[SMC_LINKS_MAX];
};

/* The peer's RMB as we address it on one link. */
struct smc_rtoken {
	u64 vaddr;
	u32 rkey;
};

/*
 * What a link group keeps of a connection.  Embedded in the connection
 * (struct smc_conn, conn.h), found by token in softirq context.
 */
struct smc_lgr_conn {
	struct rb_node node;	/* lgr->conns, by token */
	u32 token;		/* our RMBE alert token, unique per lgr */
	struct smc_lgr *lgr;	/* holds a reference while attached */
	struct smc_link *link;	/* the link for CDC and RDMA writes */
	int peer_rtoken;	/* index into lgr->rtokens, -1 if none */
	bool gone;		/* lgr terminated under the connection */
};

struct smc_lgr {
	struct list_head list;	/* on the global lgr list */
	struct kref ref;	/* list, each connection, each user */
	struct net *net;
	bool server;		/* our role */
	u8 version;		/* SMC_V1 or SMC_V2 */
	u8 release;		/* SMC_CLC_RELEASE_* negotiated */
	u8 id[4];		/* lgr id, first bytes of our link uids */
	u8 peer_systemid[SMC_CLC_SYSTEMID_LEN];
	u8 peer_gid[SMC_IB_GID_LEN];	/* the first link's peer GID */
	u8 peer_mac[ETH_ALEN];	/* v1: lgr match also by MAC */
	struct in6_addr peer_addr;	/* TCP peer (IPv4 v4-mapped) */
	unsigned short vlan;
	bool iwarp;		/* links on iWARP devices, through rdma_cm */
	u8 pnetid[SMC_IB_PNETID_LEN];	/* the first link's port's, NUL padded */
	u8 max_conns;
	u8 max_links;
	char peer_hostname[SMC_CLC_HOSTNAME_LEN + 1];
	u8 peer_os;
	u8 neg_eid[SMC_CLC_EID_LEN];	/* v2: the EID agreed at first contact */
	bool direct;		/* v2: the peer is reached without a gateway */
	/*
	 * SMC_NEGO_VX_* agreed at first contact (clc_nego.h): set before
	 * the first link can carry anything, constant afterwards
	 */
	u16 vx;
	bool terminating;	/* no new connections, links going down */
	bool bye;		/* we sent DELETE_LINK: let it out */
	bool await_peer;	/* and wait for the peer's end */
	bool peer_ended;	/* its final DELETE_LINK (all) came */
	bool freeing;

	struct mutex llc_mutex;	/* one LLC flow of ours at a time */
	struct smc_link links[SMC_LINKS_MAX];

	rwlock_t conns_lock;	/* conns, conns_num */
	struct rb_root conns;
	unsigned int conns_num;

	struct mutex bufs_mutex;	/* sndbufs, rmbs */
	struct list_head sndbufs;
	struct list_head rmbs;

	spinlock_t rtokens_lock;	/* rtokens, rtokens_used; innermost */
	struct smc_rtoken rtokens[SMC_RMBS_MAX][SMC_LINKS_MAX];
	DECLARE_BITMAP(rtokens_used, SMC_RMBS_MAX);

	struct delayed_work free_work;	/* idle timeout */
	struct work_struct terminate_work;
	void *llc;		/* LLC state (llc.c) */
};

/*
 * lgr.c -- registry.
 *
 * smc_lgr_find(): an lgr in @role with the peer's identity that is not
 * terminating, has an active link and room for one more connection; the
 * caller gets a reference.  For v1 also the peer MAC must match, and
 * always the TCP peer address of the handshake (smc_lgr_matches()).
 * smc_lgr_create(): a new lgr with one link in SMC_LINK_INIT on @dev/@port
 * (QP created, receive buffers posted), listed, with one reference for the
 * caller.  The caller serialises find+create with the same peer with
 * smc_lgr_pending_lock().
 */
struct smc_lgr_key {
	struct net *net;
	bool server;
	u8 version;
	u8 peer_systemid[SMC_CLC_SYSTEMID_LEN];
	u8 peer_gid[SMC_IB_GID_LEN];
	u8 peer_mac[ETH_ALEN];
	struct in6_addr peer_addr;	/* the clcsock's peer, IPv4 v4-mapped */
	unsigned short vlan;
	bool iwarp;		/* links on iWARP devices (iw.c) */
};

/* A handshake's claim on creating or joining a link group with one peer. */
struct smc_lgr_pending {
	struct list_head list;	/* on the claims list while held */
	struct net *net;
	bool server;
	bool held;
	struct in6_addr peer_addr;
	u8 peer_systemid[SMC_CLC_SYSTEMID_LEN];
};

struct smc_lgr_local {		/* our end of the first link */
	struct smc_ib_dev *dev;	/* reference taken by smc_lgr_create */
	u8 port;
	u8 sgid_index;
	u8 gid[SMC_IB_GID_LEN];
	u8 mac[ETH_ALEN];
	u8 max_conns;
	u8 max_links;
	u8 release;
	u8 eid[SMC_CLC_EID_LEN];	/* v2: the agreed EID, else zero */
	bool direct;		/* v2: no gateway on the way to the peer */
	u16 vx;			/* client: the vendor extensions agreed */
};

int smc_lgr_init(void);
void smc_lgr_exit(void);	/* terminates and frees every lgr */
int smc_lgr_pending_lock(struct smc_lgr_pending *p,
			 const struct smc_lgr_key *key, long timeout);
void smc_lgr_pending_unlock(struct smc_lgr_pending *p);
bool smc_lgr_matches(struct smc_lgr *lgr, const struct smc_lgr_key *key);
struct smc_lgr *smc_lgr_find(const struct smc_lgr_key *key);
struct smc_lgr *smc_lgr_create(const struct smc_lgr_key *key,
			       const struct smc_lgr_local *local);
void smc_lgr_put(struct smc_lgr *lgr);
#if IS_ENABLED(CONFIG_SMC_KUNIT_TEST)
struct smc_lgr *smc_lgr_create_linkless(const struct smc_lgr_key *key);
#endif
/* Terminate: links down, every connection told via smc_conn_lgr_gone(). */
void smc_lgr_terminate(struct smc_lgr *lgr, u32 answer);
/* Terminate every lgr using @dev (device removal). Process context. */
void smc_lgr_terminate_dev(struct smc_ib_dev *dev);
/* Terminate every lgr with a link on @dev/@port (port down). No waiting. */
void smc_lgr_terminate_port(struct smc_ib_dev *dev, u8 port);
/* The active link whose peer end is @qpn/@gid, or NULL. */
struct smc_link *smc_lgr_find_link(struct smc_lgr *lgr, u32 qpn,
				   const u8 *gid);
/* The active link with the fewest connections, or NULL. */
struct smc_link *smc_lgr_pick_link(struct smc_lgr *lgr);

/*
 * Connections.  smc_lgr_conn_add() gives @c a fresh token, a link
 * (@link, or one picked) and an lgr reference; it fails with -ENOSPC when
 * the lgr has max_conns connections or -ENOLINK when it has no usable
 * link.  smc_lgr_conn_del() removes it; afterwards no callback for @c
 * runs or is running.  The lgr's idle timer starts when the last
 * connection leaves.
 */
int smc_lgr_conn_add(struct smc_lgr *lgr, struct smc_lgr_conn *c,
		     struct smc_link *link);
void smc_lgr_conn_del(struct smc_lgr_conn *c);

/*
 * Buffers.  smc_buf_get() returns an unused buffer of @lgr of exactly
 * 16 KiB << @comp bytes, else allocates one of that size, falling back to
 * smaller sizes (never below 16 KiB) when memory is short; NULL if none.
 * It is mapped (and for an RMB registered for remote write) on every
 * active link.  An RMB is zeroed before a new connection gets it, so a
 * peer never reads stale data.  smc_buf_put() returns it to the pool.
 * smc_buf_confirm_rkey(): make sure the peer knows the RMB's rkeys on all
 * links (LLC CONFIRM_RKEY unless rkey_confirmed); may sleep up to
 * SMC_LLC_WAIT_TIME.
 */
struct smc_buf *smc_buf_get(struct smc_lgr *lgr, bool rmb, u8 comp);
void smc_buf_put(struct smc_lgr *lgr, struct smc_buf *buf);
int smc_buf_confirm_rkey(struct smc_lgr *lgr, struct smc_buf *rmb);

/*
 * wr.c -- ownership of @len bytes of @buf at @off, on every link the
 * buffer is mapped on: to the CPU before it reads what a device wrote
 * (@for_cpu) or writes where a device reads, and back to the devices
 * afterwards.  Any context; a mapping that goes away meanwhile is
 * skipped.
 */
void smc_wr_buf_sync(struct smc_lgr *lgr, struct smc_buf *buf, u32 off,
		     u32 len, bool for_cpu);

/*
 * Peer RMB tokens.  smc_rtoken_add(): record the peer's RMB (@vaddr,
 * @rkey as valid on @link), or find it when known; returns the index or a
 * negative errno.  smc_rtoken_get(): the token for link @link_idx.
 */
int smc_rtoken_add(struct smc_lgr *lgr, struct smc_link *link, u64 vaddr,
		   u32 rkey);
bool smc_rtoken_get(struct smc_lgr *lgr, int idx, u8 link_idx,
		    struct smc_rtoken *tok);

/*
 * link.c -- first link bring-up, called by the handshake.
 * smc_link_rtr(): store @peer and move the QP to RTR.  smc_link_rts():
 * move it to RTS.  Both return 0 or a negative errno.
 */
int smc_link_rtr(struct smc_link *link, const struct smc_link_peer *peer);
int smc_link_rts(struct smc_link *link);

/*
 * llc.c -- the first link's confirmation.  Client: wait for the server's
 * CONFIRM_LINK request (up to @timeo), move to RTS, answer.  Server: send
 * the request, wait for the answer (up to @timeo).  On success the link
 * is SMC_LINK_ACTIVE and the lgr accepts connections.  Both return 0 or
 * an SMC_CLC_DECL_* reason (TIMEOUT_CL, RMBE_EC, ERR_RDYLNK, ...).
 */
int smc_llc_first_link_client(struct smc_link *link, long timeo);
int smc_llc_first_link_server(struct smc_link *link, long timeo);

/*
 * wr.c -- work requests on a link.  Sends need a free send slot; with
 * @timeo 0 the call does not sleep and fails with -EAGAIN when none is
 * free; otherwise it waits up to @timeo jiffies (-ETIMEDOUT) and fails at
 * once with -ENOLINK when the link is down.
 *
 * smc_wr_send(): one SEND of @len bytes (<= SMC_WR_TX_SIZE, or up to
 * SMC_LLC_V2_MAX_LEN on a v2 link for an LLC message).  When @token is not
 * zero, its completion is reported through smc_conn_tx_done() for the
 * connection holding @token on the link's lgr (if it still exists).
 *
 * smc_wr_write_send(): RDMA WRITEs of @writes (up to SMC_WR_MAX_WRITES,
 * source in a send buffer mapped on @link) followed by the SEND of @msg,
 * posted as one chain so the peer sees the data before the message.
 */
#define SMC_WR_TX_SIZE		44
#define SMC_WR_MAX_WRITES	4

struct smc_wr_write {
	u64 local_addr;		/* ib_dma address on this link's device */
	u32 len;
	u64 remote_addr;
	u32 rkey;
};

int smc_wr_send(struct smc_link *link, const void *msg, u32 len, u32 token,
		u64 cookie, long timeo);
int smc_wr_write_send(struct smc_link *link, const struct smc_wr_write *writes,
		      unsigned int nwrites, const void *msg, u32 len,
		      u32 token, u64 cookie, long timeo);
/*
 * smc_wr_write_imm(): the WIMM data path (a link group with
 * SMC_NEGO_VX_WIMM): each of @writes is an RDMA WRITE WITH IMMEDIATE
 * carrying @imm (the peer connection's alert token), so that data and its
 * notice are one operation; the peer learns each write's length from its
 * receive completion.  One send slot, the last write signaled, never
 * sleeps (-EAGAIN without a free slot).
 */
int smc_wr_write_imm(struct smc_link *link, const struct smc_wr_write *writes,
		     unsigned int nwrites, u32 imm, u32 token, u64 cookie);
/*
 * For a sender that cannot sleep where it posts: smc_wr_hold() (where the
 * post happens, e.g. under conn->lock) pins @link's work request state and
 * returns it, NULL when the link is down; smc_wr_slot_wait() then sleeps
 * on that state until a completion frees a send slot (not reserved: the
 * next post may still find none), the link goes down or @timeo passes,
 * and lets go of it.  The link itself may be gone by then.
 */
struct smc_wr *smc_wr_hold(struct smc_link *link);
void smc_wr_slot_wait(struct smc_wr *wr, long timeo);

/*
 * Callbacks into the connection layer (cdc.c), softirq context with
 * read_lock(&lgr->conns_lock) held: must not sleep.
 *   smc_conn_cdc_rx():   a CDC message for @c arrived on @link.
 *   smc_conn_wimm_rx():  an RDMA WRITE WITH IMMEDIATE for @c put @len
 *                        bytes into its RMB, arriving on @link.
 *   smc_conn_tx_done():  the SEND posted with (@c's token, @cookie)
 *                        completed; @status 0 or -EIO (link failed).
 * Under write_lock_bh(&lgr->conns_lock), any context, must not sleep:
 *   smc_conn_lgr_gone(): the lgr was terminated, @c can no longer move
 *                        data; @c stays attached until smc_lgr_conn_del().
 *   smc_conn_link_switch(): @c's link failed: it uses @to from now on and
 *                        writes its unacknowledged data again there.
 */
struct smc_cdc_msg;
void smc_conn_cdc_rx(struct smc_lgr_conn *c, struct smc_link *link,
		     const struct smc_cdc_msg *msg);
void smc_conn_wimm_rx(struct smc_lgr_conn *c, struct smc_link *link,
		      u32 len);
void smc_conn_tx_done(struct smc_lgr_conn *c, u64 cookie, int status);
void smc_conn_lgr_gone(struct smc_lgr_conn *c);
void smc_conn_link_switch(struct smc_lgr_conn *c, struct smc_link *to);
/*
 * smc_conn_move_rx(): an RMB growth message for @c arrived on @link
 * (softirq context, read_lock(&lgr->conns_lock) held, as a CDC message).
 */
struct smc_move_msg;
void smc_conn_move_rx(struct smc_lgr_conn *c, struct smc_link *link,
		      const struct smc_move_msg *msg);

/*
 * ---- lgr.c: snapshots for netlink and sock_diag (netlink.c, diag.c) ----
 *
 * Copies taken under the registry's locks, so that the callers can format
 * them without holding any lock of ours.
 *
 * smc_lgr_info(): the first link group of @net at or after list position
 * *@pos that is not terminating, with its links that are not UNUSED;
 * *@pos is advanced past it.  Process context (counts the buffers under
 * bufs_mutex).  Returns 0, or -ENOENT when there is none.
 *
 * smc_lgr_link_info(): one link of @lgr (the caller holds a reference);
 * false when the lgr is terminating or the link is UNUSED.  Never sleeps.
 */
struct smc_link_info {
	u8 link_id;
	enum smc_link_state state;
	u8 port;		/* 1-based */
	int ifindex;		/* netdev behind the port, 0 if none */
	u32 conns;		/* connections using the link */
	char ibname[IB_DEVICE_NAME_MAX];
	u8 link_uid[4];
	u8 peer_link_uid[4];
	u8 gid[SMC_IB_GID_LEN];
	u8 peer_gid[SMC_IB_GID_LEN];
	u64 tx_wimm;
	u64 rx_wimm;
};

struct smc_lgr_info {
	u8 id[4];
	bool server;
	u8 version;
	u8 release;
	u8 peer_os;
	char peer_hostname[SMC_CLC_HOSTNAME_LEN + 1];
	char neg_eid[SMC_CLC_EID_LEN + 1];
	bool direct;
	unsigned short vlan;
	char pnetid[SMC_IB_PNETID_LEN + 1];
	u64 net_cookie;
	u32 conns_num;
	u8 max_conns;
	u8 max_links;
	u16 vx;			/* vendor extensions agreed */
	u64 sndbuf_bytes;	/* send buffers allocated, bytes */
	u64 rmb_bytes;		/* RMBs allocated, bytes */
	unsigned int nlinks;	/* valid entries in links[] */
	struct smc_link_info links[SMC_LINKS_MAX];
};

int smc_lgr_info(struct net *net, unsigned int *pos,
		 struct smc_lgr_info *info);
bool smc_lgr_link_info(struct smc_lgr *lgr, struct smc_link *link,
		       struct smc_link_info *info);

#endif /* SMC_CORE_H */
