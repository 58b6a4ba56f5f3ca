/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications over RDMA: the socket.
 */
#ifndef SMC_H
#define SMC_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/wait.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <net/sock.h>
#include <net/inet_sock.h>
#include "compat.h"
#include "tcp_opt.h"
#include "conn.h"

/* protocol values for socket(AF_SMC, SOCK_STREAM, ...) */
#define SMCPROTO_SMC		0	/* IPv4 clcsock */
#define SMCPROTO_SMC6		1	/* IPv6 clcsock */

/*
 * Where a socket stands in its life.  The handshake may only be entered
 * once; the outcome (SMC-R or fallback) is decided before a socket ever
 * reaches SMC_HS_DONE and never changes afterwards.
 */
enum smc_hs_state {
	SMC_HS_NONE,		/* no connection attempt yet */
	SMC_HS_RUNNING,		/* TCP connect and CLC exchange under way */
	SMC_HS_DONE,		/* mode decided, see use_fallback */
};

/*
 * The callbacks of a clcsock that ours replace, as it had them before it
 * became ours; put back when it leaves us (clcsock.c).  Written under the
 * clcsock's sk_callback_lock.
 */
struct smc_clcsock_cb {
	void (*state_change)(struct sock *sk);
	void (*data_ready)(struct sock *sk);
	void (*error_report)(struct sock *sk);
};

struct smc_sock {
	union {				/* must be first */
		struct sock sk;
		/* room for what inet_create() sets up, see inet.c */
		struct inet_sock inet;
	};
	struct socket *clcsock;		/* companion TCP socket */
	struct smc_clcsock_cb clcsk_cb;	/* clcsock's own callbacks */
	struct mutex clcsock_lock;	/* serialises CLC I/O on clcsock */
	enum smc_hs_state hs_state;
	bool use_fallback;		/* the fd behaves as clcsock */
	u32 fallback_reason;		/* SMC_CLC_DECL_*, 0 when none */
	u32 peer_diagnosis;		/* reason the peer declined, if it did */
	bool server;			/* created by accept */
	bool clc_err_mirrored;		/* sk_err holds a copy of clcsock's */

	/* active open */
	struct work_struct connect_work;

	/* passive open: listener side */
	struct work_struct accept_work;	/* drains clcsock's accept queue */
	struct list_head accept_q;	/* children ready for accept() */
	unsigned int accept_q_len;
	unsigned int hs_pending;	/* children still in the handshake */

	/* passive open: child side */
	struct smc_sock *listen_smc;	/* holds a reference while queued */
	struct list_head accept_node;
	struct work_struct hs_work;
	/* until the proposal comes: no worker waits for it (listen.c) */
	struct wait_queue_entry hs_wait;
	struct timer_list hs_timer;
	unsigned long hs_flags;		/* SMC_HS_F_* bits */

	/* TCP's SMC option where eBPF carries it (tcp_opt.c) */
	struct smc_tcpopt tcpopt;

	/* SMC-R mode: the connection on a link group */
	struct smc_conn conn;
};

/* The socket that embeds the SMC-R connection @conn. */
static inline struct smc_sock *smc_conn_sock(struct smc_conn *conn)
{
	return container_of(conn, struct smc_sock, conn);
}

/* Does the socket move its data by SMC-R (handshake done, no fallback)? */
static inline bool smc_is_smcr(const struct smc_sock *smc)
{
	/* pairs with the release when the handshake is decided */
	return smp_load_acquire(&smc->hs_state) == SMC_HS_DONE &&
	       !READ_ONCE(smc->use_fallback);
}

static inline struct smc_sock *smc_sk(const struct sock *sk)
{
	return (struct smc_sock *)sk;
}

/*
 * Memory cgroups.  A connection's send buffer and RMB are pinned pages
 * allocated with __GFP_ACCOUNT (lgr.c) while its socket's memory cgroup is
 * the active one: they are charged to the cgroup that made the host pin
 * them, even from a work item.  A server child takes the listener's cgroup
 * (the application that listens, as TCP charges the one that accepts).
 */
static inline struct mem_cgroup *smc_memcg_enter(const struct sock *sk)
{
	return set_active_memcg(sk->sk_memcg);
}

static inline void smc_memcg_leave(struct mem_cgroup *old)
{
	set_active_memcg(old);
}

static inline void smc_memcg_inherit(struct sock *child,
				     const struct sock *parent)
{
#ifdef CONFIG_MEMCG
	if (child->sk_memcg || !parent->sk_memcg)
		return;
	css_get(&parent->sk_memcg->css);
	/* put by sk_free()'s mem_cgroup_sk_free() */
	child->sk_memcg = parent->sk_memcg;
#endif
}

/* All SMC sockets, for sock_diag.  Walk under read_lock(&smc_sock_list.lock). */
struct smc_sock_list {
	rwlock_t lock;
	struct hlist_head head;
};

extern struct smc_sock_list smc_sock_list;

/* af_smc.c */
extern struct workqueue_struct *smc_wq;
extern struct proto smc_proto;
struct smc_sock *smc_sock_alloc(struct net *net, struct socket *sock,
				int protocol);
void smc_sock_init(struct smc_sock *smc, int protocol);
int smc_sock_open(struct smc_sock *smc, struct socket *sock, int family,
		  int kern);
void smc_sock_adopt(struct smc_sock *smc, struct socket *sock,
		    struct socket *clcsock);
extern const struct proto_ops smc_ops;
void smc_sock_link(struct sock *sk);
void smc_sock_destroy(struct smc_sock *smc);
void smc_set_fallback(struct smc_sock *smc, u32 reason);
void smc_copy_sockopts_from_clc(struct smc_sock *smc);
#ifdef SMC_HAVE_CUSTOM_SOCKOPT
/* SOL_SOCKET setsockopt() reaches TCP at once (smc_setsockopt) */
static inline void smc_copy_sockopts_to_clc(struct smc_sock *smc)
{
}
#else
void smc_copy_sockopts_to_clc(struct smc_sock *smc);
#endif
void smc_clcsock_redirect_wq(struct smc_sock *smc, struct socket *sock);

/* inet.c: socket(AF_INET or AF_INET6, SOCK_STREAM, IPPROTO_SMC), 6.11+ */
#ifdef SMC_HAVE_IPPROTO_SMC
int smc_inet_init(void);
void smc_inet_exit(void);
#else
static inline int smc_inet_init(void)
{
	return 0;
}

static inline void smc_inet_exit(void)
{
}
#endif

/* ulp.c: setsockopt(SOL_TCP, TCP_ULP, "smc") makes a TCP fd an SMC one */
int smc_ulp_register(void);
void smc_ulp_unregister(void);

/* clcsock.c: callbacks on the companion socket */
int smc_clcsock_init(void);
int smc_clcsock_check(struct sock *sk);
void smc_clcsock_attach(struct smc_sock *smc);
void smc_clcsock_detach(struct socket *clcsock);
void smc_clcsock_err_sync(struct smc_sock *smc);
bool smc_clcsock_ours(const struct sock *sk);
struct smc_sock *smc_clcsock_owner_of(const struct sock *sk);

/* connect.c: active open */
int smc_connect(struct socket *sock, struct sockaddr_unsized *addr, int alen,
		int flags);
void smc_connect_work(struct work_struct *work);
void smc_connect_state_change(struct smc_sock *smc, struct sock *clcsk);
int smc_hs_wait(struct smc_sock *smc, long timeo);
void smc_connect_abort(struct smc_sock *smc);

/*
 * listen.c: passive open.  A listener offers SMC (the SYN-ACK's option) to
 * at most SMC_LISTEN_HS_MAX connections at a time: its handshakes in
 * flight plus the connections still in TCP's queues.  Beyond that, new
 * connections are plain TCP from the start (PEERNOSMC, as upstream's
 * limit_smc_hs does it).
 */
#define SMC_LISTEN_HS_MAX	256
bool smc_listen_hs_offer(unsigned int in_flight, bool limit_congested);
int smc_listen(struct socket *sock, int backlog);
int smc_accept(struct socket *sock, struct socket *newsock,
	       struct proto_accept_arg *arg);
void smc_accept_work(struct work_struct *work);
void smc_hs_work(struct work_struct *work);
void smc_child_drop(struct smc_sock *child);
void smc_listen_data_ready(struct smc_sock *lsmc);
void smc_listen_close(struct smc_sock *lsmc);
__poll_t smc_listen_poll(struct smc_sock *lsmc);

/* hs.c: the SMC-R handshake; 0 for SMC-R, else the fallback reason */
u32 smc_hs_client(struct smc_sock *smc);
u32 smc_hs_server(struct smc_sock *child, const u8 *buf, int len,
		  u8 version);

/* Fallback accounting (stats.c). */
int smc_stats_init(void);
void smc_stats_exit(void);
void smc_stats_fallback(struct net *net, bool server, u32 reason);

/* Generic netlink (netlink.c) and sock_diag (diag.c). */
int smc_nl_init(void);
void smc_nl_exit(void);
int smc_diag_init(void);
void smc_diag_exit(void);

/* stats/netlink/diag */
/*
 * More accounting hooks (stats.c), all lock-free and callable in any
 * context.  smc_stats_hs_success(): an SMC-R connection was set up by the
 * handshake, @version is the negotiated SMC_V1 or SMC_V2.
 * smc_stats_hs_error(): the handshake ended the connection instead of
 * running SMC-R or falling back (a broken CLC stream, a listener's child
 * dropped unaccepted), as upstream's handshake error counters count.
 * smc_stats_xfer(): one send (@tx) or receive call on an SMC-R connection
 * that asked for @len bytes and moved @done (negative: error).
 */
void smc_stats_hs_success(struct net *net, bool server, u8 version);
void smc_stats_hs_error(struct net *net, bool server);
void smc_stats_xfer(struct net *net, bool tx, size_t len, ssize_t done);

#endif /* SMC_H */
