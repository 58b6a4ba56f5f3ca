/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel interfaces this module meets on the kernel lines it supports
 * (Debian's 6.1, 6.12 and 7.3), in one place.
 *
 * The module's code is written against the newest form of each interface.
 * Where the kernel being built against lacks that form, this header
 * supplies it on top of the older one.  What a kernel has is learnt from
 * compile-time probes (compat_probes.c; the Makefile writes their
 * results to compat_probes.h), from macros its headers define, or from
 * its Kconfig, never from version numbers: Debian backports interfaces
 * into its stable kernels, and so do other distributions.
 *
 * Kept out of the pure wire layer (*_wire.c, clc_nego.c), which uses
 * nothing that differs between these kernels.
 */
#ifndef SMC_COMPAT_H
#define SMC_COMPAT_H

#include <linux/net.h>
#include <linux/splice.h>
#include <linux/sysctl.h>
#include <net/netlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include "compat_probes.h"

/*
 * bind() and connect() of proto_ops: struct sockaddr_unsized on 7.x, a
 * struct sockaddr before.  Only the pointer's type differs.
 */
#ifndef SMC_HAVE_SOCKADDR_UNSIZED
#define sockaddr_unsized sockaddr
#endif

/*
 * accept() of proto_ops: since 6.10 its flags come in a struct, and
 * errors it wants to report without failing go back in it.  Before, the
 * flags were arguments; SMC_ACCEPT_OP() names what goes into proto_ops,
 * and smc_sock_accept() calls a socket's accept() either way.
 */
#ifdef SMC_HAVE_PROTO_ACCEPT_ARG
#define SMC_ACCEPT_OP(fn)	fn
#define SMC_DEFINE_ACCEPT_OP(fn)					\
	static_assert(__same_type(&(fn), int (*)(struct socket *,		\
					       struct socket *,		\
					       struct proto_accept_arg *)))

static inline int smc_sock_accept(struct socket *sock, struct socket *newsock,
				  struct proto_accept_arg *arg)
{
	return sock->ops->accept(sock, newsock, arg);
}
#else
struct proto_accept_arg {
	unsigned int flags;
	int err;
	bool kern;
};

#define SMC_ACCEPT_OP(fn)	fn##_flags
#define SMC_DEFINE_ACCEPT_OP(fn)					\
static int fn##_flags(struct socket *sock, struct socket *newsock,	\
		      int flags, bool kern)				\
{									\
	struct proto_accept_arg arg = { .flags = flags, .kern = kern };	\
	int rc = fn(sock, newsock, &arg);				\
									\
	return rc ? rc : arg.err;					\
}

static inline int smc_sock_accept(struct socket *sock, struct socket *newsock,
				  struct proto_accept_arg *arg)
{
	return sock->ops->accept(sock, newsock, arg->flags, arg->kern);
}
#endif

#ifndef SMC_HAVE_COPY_SPLICE_READ
#define copy_splice_read	generic_file_splice_read
#endif

/*
 * Sysctl handlers take a const table since 6.11; tables are registered
 * with their size since 6.6 and need a zeroed entry at the end before
 * (smc_sysctl keeps one either way).
 */
#ifdef SMC_HAVE_CONST_CTL_TABLE
#define SMC_CTL_TABLE_CONST	const
#else
#define SMC_CTL_TABLE_CONST
#endif

#ifndef SMC_HAVE_REGISTER_NET_SYSCTL_SZ
static inline struct ctl_table_header *
register_net_sysctl_sz(struct net *net, const char *path,
		       struct ctl_table *table, size_t size)
{
	return register_net_sysctl(net, path, table);
}
#endif

#ifndef SMC_HAVE_SK_WAKE_ASYNC_RCU
/* Before 6.10 sk_wake_async() took the RCU read lock itself. */
#define sk_wake_async_rcu	sk_wake_async
#endif

#ifndef SMC_HAVE_NLA_PUT_UINT
/* An NLA_UINT attribute: 32 bits when the value fits, else 64. */
static inline int nla_put_uint(struct sk_buff *skb, int attrtype, u64 value)
{
	u32 low = value;

	if (low == value)
		return nla_put_u32(skb, attrtype, low);
	return nla_put(skb, attrtype, sizeof(value), &value);
}
#endif

#ifndef SMC_HAVE_IB_DEVICE_GET_NETDEV
/*
 * The netdev of an RDMA port, held.  Before 6.10 the core kept it to
 * itself.  A driver's get_netdev() holds what it returns; drivers without
 * one (6.1's rxe) left the netdev in the GID table, where the port's
 * default GID (index 0) names it.
 */
static inline struct net_device *ib_device_get_netdev(struct ib_device *ibdev,
						      u32 port)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev;

	if (ibdev->ops.get_netdev)
		return ibdev->ops.get_netdev(ibdev, port);
	/*
	 * iWARP ports have no GID cache; their GID starts with the MAC of
	 * their netdev (6.1's siw)
	 */
	if (rdma_protocol_iwarp(ibdev, port)) {
		union ib_gid gid;

		if (!ibdev->ops.query_gid ||
		    ibdev->ops.query_gid(ibdev, port, 0, &gid))
			return NULL;
		rcu_read_lock();
		ndev = dev_getbyhwaddr_rcu(&init_net, ARPHRD_ETHER, gid.raw);
		dev_hold(ndev);
		rcu_read_unlock();
		return ndev;
	}
	attr = rdma_get_gid_attr(ibdev, port, 0);
	if (IS_ERR(attr))
		return NULL;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (IS_ERR(ndev))
		ndev = NULL;
	else
		dev_hold(ndev);
	rcu_read_unlock();
	rdma_put_gid_attr(attr);
	return ndev;
}
#endif

#ifndef SMC_HAVE_SK_UID
/* Before 7.x sk_uid was read under the callback lock. */
#define sk_uid(sk)	sock_i_uid(sk)
#endif

#ifndef timer_container_of
#define timer_container_of	from_timer
#endif

/* 6.8 renamed MAX_ORDER (orders below it) to MAX_PAGE_ORDER (the highest) */
#ifndef MAX_PAGE_ORDER
#define MAX_PAGE_ORDER		(MAX_ORDER - 1)
#endif

/*
 * TCP's orphan count (tcp_max_orphans) includes SMC's lingering orphans
 * where the kernel exports it; Debian's 7.3, without SMC, does not.
 */
#ifdef SMC_HAVE_EXPORT_TCP_ORPHAN_COUNT
static inline void smc_tcp_orphan_count_add(int n)
{
	this_cpu_add(tcp_orphan_count, n);
}
#else
static inline void smc_tcp_orphan_count_add(int n)
{
}
#endif

/*
 * socket(AF_INET/AF_INET6, SOCK_STREAM, IPPROTO_SMC) exists since 6.11;
 * SOL_SOCKET options reach a socket's own setsockopt() when it asks
 * since 6.9 (SOCK_CUSTOM_SOCKOPT), before that only the socket's sock
 * sees them.  Both announce themselves with a macro.
 */
#ifdef IPPROTO_SMC
#define SMC_HAVE_IPPROTO_SMC		1
#endif
#ifdef SOCK_CUSTOM_SOCKOPT
#define SMC_HAVE_CUSTOM_SOCKOPT		1
#endif

/*
 * TCP's SMC option (RFC 7609's experimental TCP option).  A kernel built
 * with CONFIG_SMC sends it on a SYN or SYN-ACK of a socket whose syn_smc
 * is set, while tcp_have_smc is on, and leaves syn_smc set only when the
 * peer's segment carried it too.  A kernel without CONFIG_SMC (Debian's
 * 7.3) neither sends nor parses it: tcp_opt.h decides who carries it.
 */
#if IS_ENABLED(CONFIG_SMC)
#define SMC_HAVE_TCP_OPTION		1

static inline void smc_tcp_native_ask(struct sock *clcsk, bool on)
{
	tcp_sk(clcsk)->syn_smc = on;
}

static inline bool smc_tcp_native_agreed(const struct sock *clcsk)
{
	return tcp_sk(clcsk)->syn_smc;
}

static inline void
smc_tcp_native_congested(struct sock *clcsk,
			 bool (*congested)(const struct sock *sk))
{
	tcp_sk(clcsk)->smc_hs_congested = congested;
}

static inline void smc_tcp_native_enable(void)
{
	static_branch_inc(&tcp_have_smc);
}

static inline void smc_tcp_native_disable(void)
{
	static_branch_dec(&tcp_have_smc);
}
#else
#define SMC_HAVE_TCP_OPTION		0

static inline void smc_tcp_native_ask(struct sock *clcsk, bool on)
{
}

static inline bool smc_tcp_native_agreed(const struct sock *clcsk)
{
	return false;
}

static inline void
smc_tcp_native_congested(struct sock *clcsk,
			 bool (*congested)(const struct sock *sk))
{
}

static inline void smc_tcp_native_enable(void)
{
}

static inline void smc_tcp_native_disable(void)
{
}
#endif

#endif /* SMC_COMPAT_H */
