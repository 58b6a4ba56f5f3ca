// SPDX-License-Identifier: GPL-2.0
/*
 * A hostile SMC-R peer, for tests only (CONFIG_SMC_TESTHOOKS).
 *
 * Rules written to /sys/kernel/debug/smc_hostile/rules make this host
 * mangle what it sends: CLC messages on the TCP connection, LLC messages
 * and CDC messages (and their RDMA writes) on the link.  A rule names the
 * layer, the message, what to do and optionally the TCP port of the one
 * connection to attack (either end), how many matching messages to let
 * pass first and how many to mangle:
 *
 *   clc proposal|accept|confirm|decline|any ACTION [ARG] [port P] [skip K] [count C]
 *   cdc any ACTION [ARG] [port P] [skip K] [count C]
 *   wimm any force [port P] [skip K] [count C]
 *   llc confirm_link|...|test_link|any ACTION [ARG] [skip K] [count C]
 *   clear
 *
 * LLC messages belong to a link group, not to a connection: LLC rules
 * take no port.  Up to 32 rules; reading the file lists them with how
 * many messages each saw and mangled.  See
 * Documentation/networking/smc-testing.rst for the actions and what a
 * normal peer does about each.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/unaligned.h>
#include <linux/workqueue.h>
#include <net/inet_sock.h>
#include <net/sock.h>
#include "smc.h"
#include "clc_wire.h"
#include "clc_nego.h"
#include "cdc_wire.h"
#include "conn.h"
#include "core.h"
#include "llc_wire.h"
#include "testhooks.h"

DEFINE_STATIC_KEY_FALSE(smc_hostile_armed);

enum { SMC_HL_CLC, SMC_HL_CDC, SMC_HL_LLC, SMC_HL_WIMM };

#define SMC_HL_BIT(l)	BIT(SMC_HL_##l)

enum smc_hostile_act {
	SMC_HA_DROP,		/* this message is not sent */
	SMC_HA_STALL,		/* nor any later CLC message of the connection */
	SMC_HA_TRUNC,		/* ARG bytes sent, length field says ARG */
	SMC_HA_SHORT,		/* ARG bytes sent, length field unchanged */
	SMC_HA_OVERSIZE,	/* padded to ARG bytes, length field says ARG */
	SMC_HA_LEN,		/* length field ARG, bytes unchanged */
	SMC_HA_VERSION,		/* CLC version ARG */
	SMC_HA_TYPE,		/* message type ARG */
	SMC_HA_CORRUPT,		/* byte at offset ARG inverted */
	SMC_HA_DUP,		/* sent twice */
	SMC_HA_PRODBEYOND,	/* CDC producer cursor past the peer's RMB */
	SMC_HA_CONSBEYOND,	/* CDC consumer cursor past our RMB */
	SMC_HA_WRAPJUMP,	/* CDC producer wrap count + ARG (default 3) */
	SMC_HA_REPLAY,		/* the previous CDC again, as the next one */
	SMC_HA_OLDSEQ,		/* CDC sequence number - ARG (default 2) */
	SMC_HA_RKEY,		/* RDMA writes with a wrong rkey */
	SMC_HA_OFFSET,		/* RDMA writes ARG bytes further */
	SMC_HA_BURST,		/* then ARG malformed messages on the link */
	SMC_HA_SPRAY,		/* then ARG CDCs at the peer's next tokens */
	SMC_HA_ADDLINK,		/* LLC: then ARG ADD_LINK requests */
	SMC_HA_FORCE,		/* WIMM: data by WRITE WITH IMMEDIATE, agreed
				 * or not
				 */
	SMC_HA_MOVED,		/* before the CDC, an RMB MOVED nobody asked */
	SMC_HA_OFFER,		/* before the CDC, an RMB OFFER of 16 KiB */
	SMC_HA_NUM
};

struct smc_hostile_act_def {
	const char *name;
	u8 layers;		/* SMC_HL_BIT()s it applies to */
	bool needs_arg;
	bool after;		/* acts after the message was sent (CDC) */
};

static const struct smc_hostile_act_def smc_hostile_acts[SMC_HA_NUM] = {
	[SMC_HA_DROP] = { "drop", SMC_HL_BIT(CLC) | SMC_HL_BIT(LLC) },
	[SMC_HA_STALL] = { "stall", SMC_HL_BIT(CLC) },
	[SMC_HA_TRUNC] = { "trunc", SMC_HL_BIT(CLC) | SMC_HL_BIT(LLC), true },
	[SMC_HA_SHORT] = { "short", SMC_HL_BIT(CLC), true },
	[SMC_HA_OVERSIZE] = { "oversize", SMC_HL_BIT(CLC), true },
	[SMC_HA_LEN] = { "len", SMC_HL_BIT(CLC) | SMC_HL_BIT(CDC) |
				SMC_HL_BIT(LLC), true },
	[SMC_HA_VERSION] = { "version", SMC_HL_BIT(CLC), true },
	[SMC_HA_TYPE] = { "type", SMC_HL_BIT(CLC) | SMC_HL_BIT(LLC), true },
	[SMC_HA_CORRUPT] = { "corrupt", SMC_HL_BIT(CLC) | SMC_HL_BIT(CDC) |
				    SMC_HL_BIT(LLC), true },
	[SMC_HA_DUP] = { "dup", SMC_HL_BIT(CLC) | SMC_HL_BIT(CDC), false,
			 true },
	[SMC_HA_PRODBEYOND] = { "prodbeyond", SMC_HL_BIT(CDC) },
	[SMC_HA_CONSBEYOND] = { "consbeyond", SMC_HL_BIT(CDC) },
	[SMC_HA_WRAPJUMP] = { "wrapjump", SMC_HL_BIT(CDC) },
	[SMC_HA_REPLAY] = { "replay", SMC_HL_BIT(CDC), false, true },
	[SMC_HA_OLDSEQ] = { "oldseq", SMC_HL_BIT(CDC) },
	[SMC_HA_RKEY] = { "rkey", SMC_HL_BIT(CDC) },
	[SMC_HA_OFFSET] = { "offset", SMC_HL_BIT(CDC), true },
	[SMC_HA_BURST] = { "burst", SMC_HL_BIT(CDC), true, true },
	[SMC_HA_SPRAY] = { "spray", SMC_HL_BIT(CDC), true, true },
	[SMC_HA_ADDLINK] = { "addlink", SMC_HL_BIT(LLC), true },
	[SMC_HA_FORCE] = { "force", SMC_HL_BIT(WIMM) },
	[SMC_HA_MOVED] = { "moved", SMC_HL_BIT(CDC) },
	[SMC_HA_OFFER] = { "offer", SMC_HL_BIT(CDC) },
};

#define SMC_HOSTILE_RULES	32
#define SMC_HOSTILE_TEXT	96
#define SMC_HOSTILE_BURST_MAX	10000
#define SMC_HOSTILE_ANY		(-1)

struct smc_hostile_rule {
	bool used;
	u8 layer;
	int msg;		/* message type or SMC_HOSTILE_ANY */
	u8 act;
	u32 arg;
	bool has_arg;
	u16 port;		/* 0: every connection */
	u32 skip;
	u32 count;		/* 0: no limit */
	u32 seen;
	u32 hits;
	const struct sock *stalled;	/* compared only, never used */
	bool have_last;
	u8 last[SMC_CDC_MSG_LEN];	/* replay: the message before */
	char text[SMC_HOSTILE_TEXT];
};

static DEFINE_SPINLOCK(smc_hostile_lock);	/* the rules; BH */
static struct smc_hostile_rule smc_hostile_rules[SMC_HOSTILE_RULES];
static struct dentry *smc_hostile_dir;
static struct workqueue_struct *smc_hostile_wq;

static bool smc_hostile_port_ok(const struct smc_hostile_rule *r,
				const struct sock *sk)
{
	if (!r->port)
		return true;
	if (!sk)
		return false;
	return ntohs(inet_sk(sk)->inet_sport) == r->port ||
	       ntohs(inet_sk(sk)->inet_dport) == r->port;
}

/*
 * The first rule of @layer for message @msg on @sk's connection whose turn
 * it is, copied to @out; counts what it saw.  @after selects the rules
 * acting after a send.  Lock held.
 */
static bool smc_hostile_match(u8 layer, int msg, const struct sock *sk,
			      bool after, struct smc_hostile_rule **out)
{
	struct smc_hostile_rule *r, *pass = NULL;
	int i;

	for (i = 0; i < SMC_HOSTILE_RULES; i++) {
		r = &smc_hostile_rules[i];
		/* only CDC has rules acting after the send */
		if (!r->used || r->layer != layer ||
		    (layer == SMC_HL_CDC &&
		     smc_hostile_acts[r->act].after != after))
			continue;
		/* the port too: a socket at the same address may be new */
		if (layer == SMC_HL_CLC && r->stalled && r->stalled == sk &&
		    smc_hostile_port_ok(r, sk)) {
			r->hits++;
			*out = r;
			return true;	/* silent for good */
		}
		if ((r->msg != SMC_HOSTILE_ANY && r->msg != msg) ||
		    !smc_hostile_port_ok(r, sk))
			continue;
		r->seen++;
		if (r->seen <= r->skip || (r->count && r->hits >= r->count)) {
			pass = pass ?: r;	/* replay keeps what passes */
			continue;
		}
		r->hits++;
		*out = r;
		return true;
	}
	*out = pass;
	return false;
}

/* ------------------------------------------------------------------ */
/* CLC                                                                 */

static int smc_hostile_tcp_send(struct socket *clcsock, const void *buf,
				size_t len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	int rc;

	if (!len)
		return 0;
	rc = kernel_sendmsg(clcsock, &msg, &iov, 1, len);
	if (rc < 0)
		return rc;
	return rc == len ? 0 : -EPIPE;
}

/* The CLC header: eyecatcher, type (4), length (5, be16), version (7). */
static void smc_hostile_clc_setlen(u8 *b, size_t len, u32 val)
{
	if (len >= 7)
		put_unaligned_be16(val, b + 5);
}

bool __smc_hostile_clc(struct socket *clcsock, const void *buf, size_t len,
		       int *rc)
{
	struct sock *sk = clcsock->sk;
	int type = len > 4 ? ((const u8 *)buf)[4] : SMC_HOSTILE_ANY;
	struct smc_hostile_rule *r;
	size_t out_len = len;
	u8 act;
	u32 arg;
	u8 *b;

	spin_lock_bh(&smc_hostile_lock);
	if (!smc_hostile_match(SMC_HL_CLC, type, sk, false, &r)) {
		spin_unlock_bh(&smc_hostile_lock);
		return false;
	}
	act = r->act;
	arg = r->arg;
	if (act == SMC_HA_STALL)
		r->stalled = sk;
	spin_unlock_bh(&smc_hostile_lock);

	net_info_ratelimited("smc hostile: clc type %d %s %u (%zu bytes)\n",
			     type, smc_hostile_acts[act].name, arg, len);
	*rc = 0;
	if (act == SMC_HA_DROP || act == SMC_HA_STALL)
		return true;
	if (act == SMC_HA_OVERSIZE)
		out_len = max_t(size_t, len, min_t(u32, arg, 0xffff));
	b = kzalloc(out_len, GFP_KERNEL);
	if (!b) {
		*rc = -ENOMEM;
		return true;
	}
	memcpy(b, buf, len);
	switch (act) {
	case SMC_HA_TRUNC:
		out_len = min_t(size_t, arg, len);
		smc_hostile_clc_setlen(b, len, out_len);
		break;
	case SMC_HA_SHORT:
		out_len = min_t(size_t, arg, len);
		break;
	case SMC_HA_OVERSIZE:
	case SMC_HA_LEN:
		smc_hostile_clc_setlen(b, len, act == SMC_HA_LEN ? arg :
				       out_len);
		break;
	case SMC_HA_VERSION:
		if (len > 7)
			b[7] = (b[7] & 0x0f) | (arg << 4);
		break;
	case SMC_HA_TYPE:
		if (len > 4)
			b[4] = arg;
		break;
	case SMC_HA_CORRUPT:
		if (arg < len)
			b[arg] ^= 0xff;
		break;
	}
	*rc = smc_hostile_tcp_send(clcsock, b, out_len);
	if (!*rc && act == SMC_HA_DUP)
		*rc = smc_hostile_tcp_send(clcsock, b, out_len);
	kfree(b);
	return true;
}

/* ------------------------------------------------------------------ */
/* LLC                                                                 */

/* v1: length byte 1; v2: bytes 1-2, little-endian as Linux sends them */
static void smc_hostile_llc_setlen(u8 *buf, u32 val)
{
	if ((buf[0] >> 4) == SMC_LLC_VERSION_V2) {
		buf[1] = val & 0xff;
		buf[2] = val >> 8;
	} else {
		buf[1] = val;
	}
}

#define SMC_HOSTILE_ADDLINK_MAX	5000

struct smc_hostile_addlink {
	struct work_struct work;
	struct smc_lgr *lgr;	/* a reference */
	struct smc_link *link;
	u32 n;
};

/*
 * ADD_LINK requests that a peer must answer or refuse, each as long as
 * the link group's version allows (v2: all 255 rkey pairs, 4152 bytes),
 * one after the other: every one the victim takes costs it a queue entry
 * of that size until it is answered.
 */
static void smc_hostile_addlink_work(struct work_struct *work)
{
	struct smc_hostile_addlink *a = container_of(work,
						     struct smc_hostile_addlink,
						     work);
	struct smc_llc_rkey_pair *pairs;
	struct smc_link *link = a->link;
	struct smc_llc_msg m = {};
	u32 i, sent = 0;
	int len = 0;
	u8 *buf;

	pairs = kcalloc(SMC_LLC_ADD_LINK_V2_MAX_RKEYS, sizeof(*pairs),
			GFP_KERNEL);
	buf = kmalloc(SMC_LLC_V2_MAX_LEN, GFP_KERNEL);
	if (!pairs || !buf)
		goto out;
	for (i = 0; i < SMC_LLC_ADD_LINK_V2_MAX_RKEYS; i++) {
		pairs[i].rkey = 0x1000 + i;
		pairs[i].rkey_new = 0x2000 + i;
		pairs[i].vaddr_new = 0x100000ULL * (i + 1);
	}
	m.type = SMC_LLC_ADD_LINK;
	memcpy(m.add_link.mac, link->mac, SMC_LLC_MAC_LEN);
	memcpy(m.add_link.gid, link->gid, SMC_LLC_GID_LEN);
	m.add_link.qpn = link->qpn;
	m.add_link.qp_mtu = link->path_mtu;
	m.add_link.psn = link->psn;
	if (a->lgr->version == SMC_V2) {
		m.version = SMC_LLC_VERSION_V2;
		m.add_link.has_ext = true;
		m.add_link.v2_direct = true;
		memcpy(m.add_link.target_gid, link->gid, SMC_LLC_GID_LEN);
		m.add_link.num_rkeys = SMC_LLC_ADD_LINK_V2_MAX_RKEYS;
		m.add_link.rkeys = pairs;
	} else {
		m.version = SMC_LLC_VERSION_V1;
	}
	/* after the message that triggered us */
	msleep(500);
	for (i = 0; i < a->n; i++) {
		m.add_link.link_num = 2 + i % 200;
		len = smc_llc_encode(&m, buf, SMC_LLC_V2_MAX_LEN);
		if (len < 0 || smc_wr_send(link, buf, len, 0, 0, HZ))
			break;
		sent++;
		/* paced, so that the victim's queue of 32 takes them all */
		if (i % 8 == 7)
			usleep_range(2000, 3000);
	}
out:
	pr_info("smc hostile: addlink: %u ADD_LINK requests of %d bytes sent (%u asked)\n",
		sent, len, a->n);
	kfree(buf);
	kfree(pairs);
	smc_lgr_put(a->lgr);
	kfree(a);
}

static void smc_hostile_addlink(struct smc_link *link, u32 n)
{
	struct smc_hostile_addlink *a = kzalloc(sizeof(*a), GFP_ATOMIC);

	if (!a)
		return;
	INIT_WORK(&a->work, smc_hostile_addlink_work);
	a->lgr = link->lgr;
	a->link = link;
	a->n = min_t(u32, n, SMC_HOSTILE_ADDLINK_MAX);
	kref_get(&a->lgr->ref);
	queue_work(smc_hostile_wq, &a->work);
}

bool __smc_hostile_llc(struct smc_link *link, u8 *buf, int *len)
{
	struct smc_hostile_rule *r;
	u8 act;
	u32 arg;

	if (*len < SMC_LLC_HDR_LEN)
		return false;
	spin_lock_bh(&smc_hostile_lock);
	if (!smc_hostile_match(SMC_HL_LLC, buf[0] & 0x0f, NULL, false, &r)) {
		spin_unlock_bh(&smc_hostile_lock);
		return false;
	}
	act = r->act;
	arg = r->arg;
	spin_unlock_bh(&smc_hostile_lock);

	net_info_ratelimited("smc hostile: llc type 0x%02x %s %u\n", buf[0],
			     smc_hostile_acts[act].name, arg);
	switch (act) {
	case SMC_HA_DROP:
		return true;
	case SMC_HA_TRUNC:
		*len = clamp_t(int, arg, 1, *len);
		smc_hostile_llc_setlen(buf, *len);
		break;
	case SMC_HA_LEN:
		smc_hostile_llc_setlen(buf, arg);
		break;
	case SMC_HA_TYPE:
		buf[0] = (buf[0] & 0xf0) | (arg & 0x0f);
		break;
	case SMC_HA_CORRUPT:
		if (arg < *len)
			buf[arg] ^= 0xff;
		break;
	case SMC_HA_ADDLINK:
		smc_hostile_addlink(link, arg);
		break;
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* CDC                                                                 */

static const struct sock *smc_hostile_conn_sk(struct smc_conn *conn)
{
	struct smc_sock *smc = smc_conn_sock(conn);
	struct socket *clcsock = READ_ONCE(smc->clcsock);

	return clcsock ? READ_ONCE(clcsock->sk) : NULL;
}

/*
 * An RMB growth message the protocol does not allow here, on the
 * connection's link ahead of the CDC being mangled: a MOVED that no
 * OFFER asked for, or an OFFER of 16 KiB, which is never larger than
 * the RMB the peer has, both of a generation no move of this connection
 * reaches (a real move of the peer's may be under way: a message of its
 * generation could pass for part of it).  Whether or not the link group
 * agreed on growth, the peer must abort the connection.  conn->lock
 * held.
 */
#define SMC_HOSTILE_MOVE_GEN	200

static void smc_hostile_move(struct smc_conn *conn, bool offer)
{
	struct smc_move_msg m = {
		.op = offer ? SMC_MOVE_OFFER : SMC_MOVE_MOVED,
		.gen = SMC_HOSTILE_MOVE_GEN,
		.token = conn->peer_token,
		.pos = conn->tx_written,
	};
	u8 buf[SMC_MOVE_MSG_LEN];

	smc_move_encode(&m, buf, sizeof(buf));
	if (smc_wr_send(conn->lc.link, buf, sizeof(buf), 0, 0, 0))
		net_info_ratelimited("smc hostile: token %u: move message not sent\n",
				     conn->lc.token);
}

void __smc_hostile_cdc(struct smc_conn *conn, u8 *buf,
		       struct smc_wr_write *w, unsigned int nw)
{
	struct smc_hostile_rule *r;
	struct smc_cdc_msg m;
	unsigned int i;
	bool grow;
	u8 act;
	u32 arg;

	spin_lock_bh(&smc_hostile_lock);
	if (!smc_hostile_match(SMC_HL_CDC, SMC_CDC_MSG_TYPE,
			       smc_hostile_conn_sk(conn), false, &r)) {
		spin_unlock_bh(&smc_hostile_lock);
		return;
	}
	act = r->act;
	arg = r->arg;
	spin_unlock_bh(&smc_hostile_lock);

	net_info_ratelimited("smc hostile: cdc token %u %s %u\n",
			     conn->lc.token, smc_hostile_acts[act].name, arg);
	if (smc_cdc_decode(buf, SMC_CDC_MSG_LEN, &m))
		return;
	/*
	 * With RMB growth the cursors are stream counts (grow.c): beyond
	 * is then past the window, not past the ring's end, and the window
	 * is that of an RMB whose size may be changing: 2^40 bytes ahead is
	 * past any, and still reads as ahead.
	 */
	grow = READ_ONCE(conn->lc.lgr->vx) & SMC_NEGO_VX_GROW;
	switch (act) {
	case SMC_HA_PRODBEYOND:
		if (grow)
			smc_curs_abs(conn->tx_written + BIT_ULL(40), &m.prod);
		else
			m.prod.count = conn->peer_rmb_size + 8;
		break;
	case SMC_HA_CONSBEYOND:
		if (grow)
			smc_curs_abs(conn->rx_prod + BIT_ULL(40), &m.cons);
		else
			m.cons.count = conn->rmb->size + 8;
		break;
	case SMC_HA_WRAPJUMP:
		m.prod.wrap += arg ?: 3;
		break;
	case SMC_HA_OLDSEQ:
		m.seqno -= arg ?: 2;
		break;
	case SMC_HA_RKEY:
		for (i = 0; i < nw; i++)
			w[i].rkey ^= 0x5a5a5a5a;
		break;
	case SMC_HA_OFFSET:
		for (i = 0; i < nw; i++)
			w[i].remote_addr += arg;
		break;
	case SMC_HA_MOVED:
	case SMC_HA_OFFER:
		smc_hostile_move(conn, act == SMC_HA_OFFER);
		break;
	}
	smc_cdc_encode(&m, buf, SMC_CDC_MSG_LEN);
	if (act == SMC_HA_LEN)
		buf[1] = arg;
	else if (act == SMC_HA_CORRUPT && arg < SMC_CDC_MSG_LEN)
		buf[arg] ^= 0xff;
}

struct smc_hostile_burst {
	struct work_struct work;
	struct smc_lgr *lgr;	/* a reference */
	struct smc_link *link;
	u32 n;
	u32 token;		/* spray: the token the peer gave us, else 0 */
};

#define SMC_HOSTILE_SPRAY_AHEAD	4	/* tokens after the peer's one */

/*
 * A well-formed CDC message for the @i-th guess at a connection the peer
 * is still setting up: if its tokens came from a counter, the next ones
 * follow @token.  It claims 64 bytes were written into that RMB.
 */
static void smc_hostile_spray_msg(u32 token, u32 i, u8 *buf)
{
	struct smc_cdc_msg m = {
		.seqno = 1 + i / SMC_HOSTILE_SPRAY_AHEAD,
		.token = token + 1 + i % SMC_HOSTILE_SPRAY_AHEAD,
		.prod = { .count = 64 },
	};

	memset(buf, 0, SMC_WR_TX_SIZE);
	smc_cdc_encode(&m, buf, SMC_WR_TX_SIZE);
}

/*
 * One malformed message of three kinds in turn: an LLC TEST_LINK whose
 * length field says 8 bytes, a CDC message whose length byte is wrong,
 * and a message of a type nobody knows.
 */
static void smc_hostile_junk(struct smc_lgr *lgr, u32 i, u8 *buf)
{
	struct smc_llc_msg m = {};

	memset(buf, 0, SMC_WR_TX_SIZE);
	switch (i % 3) {
	case 0:
		m.type = SMC_LLC_TEST_LINK;
		m.version = lgr->version == SMC_V2 ? SMC_LLC_VERSION_V2 :
						     SMC_LLC_VERSION_V1;
		if (smc_llc_encode(&m, buf, SMC_WR_TX_SIZE) >= 0)
			smc_hostile_llc_setlen(buf, 8);
		break;
	case 1:
		buf[0] = SMC_CDC_MSG_TYPE;
		buf[1] = 20;
		break;
	default:
		buf[0] = 0x5d;
		buf[1] = SMC_WR_TX_SIZE;
		break;
	}
}

static void smc_hostile_burst_work(struct work_struct *work)
{
	struct smc_hostile_burst *b = container_of(work,
						   struct smc_hostile_burst,
						   work);
	u8 buf[SMC_WR_TX_SIZE];
	u32 i, sent = 0;

	for (i = 0; i < b->n; i++) {
		if (b->token) {
			smc_hostile_spray_msg(b->token, i, buf);
			/* about a millisecond per round of guesses */
			if (i % SMC_HOSTILE_SPRAY_AHEAD == 0)
				usleep_range(1000, 1500);
		} else {
			smc_hostile_junk(b->lgr, i, buf);
		}
		if (smc_wr_send(b->link, buf, sizeof(buf), 0, 0, HZ))
			break;
		sent++;
	}
	pr_info("smc hostile: %s of %u messages sent (%u asked)\n",
		b->token ? "token spray" : "burst", sent, b->n);
	smc_lgr_put(b->lgr);
	kfree(b);
}

static void smc_hostile_burst(struct smc_conn *conn, u32 n, bool spray)
{
	struct smc_hostile_burst *b = kzalloc(sizeof(*b), GFP_ATOMIC);

	if (!b)
		return;
	INIT_WORK(&b->work, smc_hostile_burst_work);
	b->lgr = conn->lc.lgr;
	b->link = conn->lc.link;
	b->n = min_t(u32, n, SMC_HOSTILE_BURST_MAX);
	b->token = spray ? conn->peer_token : 0;
	kref_get(&b->lgr->ref);
	queue_work(smc_hostile_wq, &b->work);
}

/*
 * WIMM: the next write of @conn goes as WRITE WITH IMMEDIATE, whatever the
 * link group agreed (conn->lock held).
 */
bool __smc_hostile_wimm_force(struct smc_conn *conn)
{
	struct smc_hostile_rule *r;
	bool fire;

	spin_lock_bh(&smc_hostile_lock);
	fire = smc_hostile_match(SMC_HL_WIMM, SMC_HOSTILE_ANY,
				 smc_hostile_conn_sk(conn), false, &r);
	spin_unlock_bh(&smc_hostile_lock);
	if (fire)
		net_info_ratelimited("smc hostile: wimm token %u force\n",
				     conn->lc.token);
	return fire;
}

/* Rules of the CDC layer exist: data must go by CDC for them to see it. */
bool __smc_hostile_cdc_armed(void)
{
	bool any = false;
	int i;

	spin_lock_bh(&smc_hostile_lock);
	for (i = 0; i < SMC_HOSTILE_RULES; i++)
		any |= smc_hostile_rules[i].used &&
		       smc_hostile_rules[i].layer == SMC_HL_CDC;
	spin_unlock_bh(&smc_hostile_lock);
	return any;
}

void __smc_hostile_cdc_sent(struct smc_conn *conn, const u8 *buf)
{
	u8 replay[SMC_CDC_MSG_LEN];
	struct smc_hostile_rule *r;
	bool fire, have_last;
	struct smc_cdc_msg m;
	u8 act;
	u32 arg;

	spin_lock_bh(&smc_hostile_lock);
	fire = smc_hostile_match(SMC_HL_CDC, SMC_CDC_MSG_TYPE,
				 smc_hostile_conn_sk(conn), true, &r);
	if (!r) {
		spin_unlock_bh(&smc_hostile_lock);
		return;
	}
	act = r->act;
	arg = r->arg;
	have_last = r->have_last;
	memcpy(replay, r->last, sizeof(replay));
	memcpy(r->last, buf, sizeof(r->last));
	r->have_last = true;
	spin_unlock_bh(&smc_hostile_lock);
	if (!fire)
		return;

	net_info_ratelimited("smc hostile: cdc token %u %s %u\n",
			     conn->lc.token, smc_hostile_acts[act].name, arg);
	switch (act) {
	case SMC_HA_DUP:
		smc_wr_send(conn->lc.link, buf, SMC_CDC_MSG_LEN, 0, 0, 0);
		break;
	case SMC_HA_REPLAY:
		/* the old cursors under a new sequence number */
		if (!have_last || smc_cdc_decode(replay, sizeof(replay), &m))
			break;
		m.seqno = conn->tx_seq + 1;
		smc_cdc_encode(&m, replay, sizeof(replay));
		if (!smc_wr_send(conn->lc.link, replay, sizeof(replay), 0, 0,
				 0))
			conn->tx_seq = m.seqno;
		break;
	case SMC_HA_BURST:
	case SMC_HA_SPRAY:
		smc_hostile_burst(conn, arg, act == SMC_HA_SPRAY);
		break;
	}
}

/* ------------------------------------------------------------------ */
/* control                                                             */

static const char * const smc_hostile_clc_msgs[] = {
	[SMC_CLC_PROPOSAL] = "proposal",
	[SMC_CLC_ACCEPT] = "accept",
	[SMC_CLC_CONFIRM] = "confirm",
	[SMC_CLC_DECLINE] = "decline",
};

static const char * const smc_hostile_llc_msgs[] = {
	[SMC_LLC_CONFIRM_LINK] = "confirm_link",
	[SMC_LLC_ADD_LINK] = "add_link",
	[SMC_LLC_ADD_LINK_CONT] = "add_link_cont",
	[SMC_LLC_DELETE_LINK] = "delete_link",
	[SMC_LLC_REQ_ADD_LINK] = "req_add_link",
	[SMC_LLC_CONFIRM_RKEY] = "confirm_rkey",
	[SMC_LLC_TEST_LINK] = "test_link",
	[SMC_LLC_CONFIRM_RKEY_CONT] = "confirm_rkey_cont",
	[SMC_LLC_DELETE_RKEY] = "delete_rkey",
};

static int smc_hostile_lookup(const char * const *names, unsigned int n,
			      const char *word)
{
	unsigned int i;

	if (!strcmp(word, "any"))
		return SMC_HOSTILE_ANY;
	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], word))
			return i;
	return -EINVAL;
}

static char *smc_hostile_word(char **line)
{
	char *w;

	do {
		w = strsep(line, " \t\n");
	} while (w && !*w);
	return w;
}

static int smc_hostile_parse(char *line, struct smc_hostile_rule *r)
{
	char *w, *key;
	u32 val;
	int i;

	strscpy(r->text, strim(line), sizeof(r->text));
	w = smc_hostile_word(&line);
	if (!w)
		return -EINVAL;
	if (!strcmp(w, "clc"))
		r->layer = SMC_HL_CLC;
	else if (!strcmp(w, "cdc"))
		r->layer = SMC_HL_CDC;
	else if (!strcmp(w, "llc"))
		r->layer = SMC_HL_LLC;
	else if (!strcmp(w, "wimm"))
		r->layer = SMC_HL_WIMM;
	else
		return -EINVAL;

	w = smc_hostile_word(&line);
	if (!w)
		return -EINVAL;
	if (r->layer == SMC_HL_CLC)
		r->msg = smc_hostile_lookup(smc_hostile_clc_msgs,
					    ARRAY_SIZE(smc_hostile_clc_msgs), w);
	else if (r->layer == SMC_HL_LLC)
		r->msg = smc_hostile_lookup(smc_hostile_llc_msgs,
					    ARRAY_SIZE(smc_hostile_llc_msgs), w);
	else
		r->msg = strcmp(w, "any") ? -EINVAL : SMC_HOSTILE_ANY;
	if (r->msg == -EINVAL)
		return -EINVAL;

	w = smc_hostile_word(&line);
	if (!w)
		return -EINVAL;
	for (i = 0; i < SMC_HA_NUM; i++)
		if (!strcmp(smc_hostile_acts[i].name, w))
			break;
	if (i == SMC_HA_NUM || !(smc_hostile_acts[i].layers & BIT(r->layer)))
		return -EINVAL;
	r->act = i;

	while ((key = smc_hostile_word(&line))) {
		if (!kstrtou32(key, 0, &val)) {
			r->arg = val;	/* a bare number is the argument */
			r->has_arg = true;
			continue;
		}
		w = smc_hostile_word(&line);
		if (!w || kstrtou32(w, 0, &val))
			return -EINVAL;
		if (!strcmp(key, "port") && r->layer != SMC_HL_LLC &&
		    val <= U16_MAX)
			r->port = val;
		else if (!strcmp(key, "skip"))
			r->skip = val;
		else if (!strcmp(key, "count"))
			r->count = val;
		else
			return -EINVAL;
	}
	if (smc_hostile_acts[r->act].needs_arg && !r->has_arg)
		return -EINVAL;
	return 0;
}

static void smc_hostile_rearm(void)
{
	bool any = false;
	int i;

	spin_lock_bh(&smc_hostile_lock);
	for (i = 0; i < SMC_HOSTILE_RULES; i++)
		any |= smc_hostile_rules[i].used;
	spin_unlock_bh(&smc_hostile_lock);
	if (any)
		static_branch_enable(&smc_hostile_armed);
	else
		static_branch_disable(&smc_hostile_armed);
}

static DEFINE_MUTEX(smc_hostile_ctl);	/* writers of the rules file */

static ssize_t smc_hostile_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	struct smc_hostile_rule r = {};
	char *line;
	int i, rc;

	if (len >= SMC_HOSTILE_TEXT)
		return -EINVAL;
	line = memdup_user_nul(ubuf, len);
	if (IS_ERR(line))
		return PTR_ERR(line);
	mutex_lock(&smc_hostile_ctl);
	if (sysfs_streq(line, "clear")) {
		spin_lock_bh(&smc_hostile_lock);
		memset(smc_hostile_rules, 0, sizeof(smc_hostile_rules));
		spin_unlock_bh(&smc_hostile_lock);
		rc = 0;
		goto out;
	}
	rc = smc_hostile_parse(line, &r);
	if (rc)
		goto out;
	r.used = true;
	rc = -ENOSPC;
	spin_lock_bh(&smc_hostile_lock);
	for (i = 0; i < SMC_HOSTILE_RULES; i++) {
		if (!smc_hostile_rules[i].used) {
			smc_hostile_rules[i] = r;
			rc = 0;
			break;
		}
	}
	spin_unlock_bh(&smc_hostile_lock);
out:
	if (!rc)
		smc_hostile_rearm();
	mutex_unlock(&smc_hostile_ctl);
	kfree(line);
	return rc ? rc : len;
}

static ssize_t smc_hostile_read(struct file *file, char __user *ubuf,
				size_t len, loff_t *ppos)
{
	const size_t cap = SMC_HOSTILE_RULES * (SMC_HOSTILE_TEXT + 48);
	struct smc_hostile_rule *r;
	size_t n = 0;
	ssize_t rc;
	char *text;
	int i;

	text = kmalloc(cap, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	spin_lock_bh(&smc_hostile_lock);
	for (i = 0; i < SMC_HOSTILE_RULES; i++) {
		r = &smc_hostile_rules[i];
		if (r->used)
			n += scnprintf(text + n, cap - n,
				       "%d: %s (seen %u hits %u)\n", i,
				       r->text, r->seen, r->hits);
	}
	spin_unlock_bh(&smc_hostile_lock);
	rc = simple_read_from_buffer(ubuf, len, ppos, text, n);
	kfree(text);
	return rc;
}

static const struct file_operations smc_hostile_fops = {
	.owner = THIS_MODULE,
	.read = smc_hostile_read,
	.write = smc_hostile_write,
	.llseek = default_llseek,
};

void smc_hostile_init(void)
{
	smc_hostile_wq = alloc_workqueue("smc_hostile", WQ_UNBOUND, 1);
	smc_hostile_dir = debugfs_create_dir("smc_hostile", NULL);
	if (smc_hostile_wq)
		debugfs_create_file("rules", 0600, smc_hostile_dir, NULL,
				    &smc_hostile_fops);
	pr_info("smc: test hooks built in: this host can act as a hostile peer\n");
}

void smc_hostile_exit(void)
{
	debugfs_remove(smc_hostile_dir);	/* waits for writers */
	smc_hostile_dir = NULL;
	static_branch_disable(&smc_hostile_armed);
	if (smc_hostile_wq)
		destroy_workqueue(smc_hostile_wq);
	smc_hostile_wq = NULL;
}
