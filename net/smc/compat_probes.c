// SPDX-License-Identifier: GPL-2.0
/*
 * Compile-time probes of the kernel this module is built against.
 *
 * Never linked into the module: the Makefile compiles this file once for
 * each "#ifdef SMC_PROBE_<NAME>" block below, with the kernel's own flags
 * and -DSMC_PROBE_<NAME>, and writes compat_probes.h, which defines
 * SMC_HAVE_<NAME> for every block that compiled.  A block uses an API in
 * its newest form; compat.h supplies what a kernel without it needs.
 * Things the kernel's headers announce with a macro (IPPROTO_SMC,
 * SOCK_CUSTOM_SOCKOPT, timer_container_of, MAX_PAGE_ORDER) or with
 * Kconfig (CONFIG_SMC for TCP's SMC option) need no probe.
 */
#include <linux/net.h>
#include <linux/sysctl.h>
#include <linux/splice.h>
#include <linux/btf.h>
#include <net/netlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>

int smc_probe(void);

/* accept() of proto_ops takes its flags in a struct (6.10) */
#ifdef SMC_PROBE_PROTO_ACCEPT_ARG
static int smc_probe_accept(struct socket *sock, struct socket *newsock,
			    struct proto_accept_arg *arg)
{
	return arg->err;
}

static const struct proto_ops smc_probe_ops = {
	.accept = smc_probe_accept,
};

int smc_probe(void)
{
	return smc_probe_ops.family;
}
#endif

/* bind() and connect() of proto_ops take struct sockaddr_unsized (7.x) */
#ifdef SMC_PROBE_SOCKADDR_UNSIZED
static int smc_probe_bind(struct socket *sock, struct sockaddr_unsized *addr,
			  int len)
{
	return len;
}

static const struct proto_ops smc_probe_ops = {
	.bind = smc_probe_bind,
};

int smc_probe(void)
{
	return smc_probe_ops.family;
}
#endif

/* proto_ops has splice_eof (6.5) */
#ifdef SMC_PROBE_SPLICE_EOF
static const struct proto_ops smc_probe_ops = {
	.splice_eof = NULL,
};

int smc_probe(void)
{
	return smc_probe_ops.family;
}
#endif

/* copy_splice_read() reads any file into a pipe (6.5) */
#ifdef SMC_PROBE_COPY_SPLICE_READ
int smc_probe(void)
{
	return copy_splice_read(NULL, NULL, NULL, 0, 0);
}
#endif

/* sysctl handlers get a const table (6.11) */
#ifdef SMC_PROBE_CONST_CTL_TABLE
static int smc_probe_handler(const struct ctl_table *table, int write,
			     void *buffer, size_t *lenp, loff_t *ppos)
{
	return write;
}

static struct ctl_table smc_probe_table = {
	.proc_handler = smc_probe_handler,
};

int smc_probe(void)
{
	return smc_probe_table.mode;
}
#endif

/* a sysctl table is registered with its size, no sentinel (6.6) */
#ifdef SMC_PROBE_REGISTER_NET_SYSCTL_SZ
int smc_probe(void)
{
	return !register_net_sysctl_sz(NULL, "", NULL, 0);
}
#endif

/* sk_wake_async_rcu() for callers inside an RCU section (6.10) */
#ifdef SMC_PROBE_SK_WAKE_ASYNC_RCU
int smc_probe(void)
{
	sk_wake_async_rcu(NULL, SOCK_WAKE_SPACE, POLL_OUT);
	return 0;
}
#endif

/* nla_put_uint(), 32 or 64 bits as the value needs (6.7) */
#ifdef SMC_PROBE_NLA_PUT_UINT
int smc_probe(void)
{
	return nla_put_uint(NULL, 1, 0);
}
#endif

/* ib_device_get_netdev() is there for modules (6.10) */
#ifdef SMC_PROBE_IB_DEVICE_GET_NETDEV
int smc_probe(void)
{
	return !ib_device_get_netdev(NULL, 1);
}
#endif

/* fmod_ret programs may attach to a module's function in a BTF set (6.3) */
#ifdef SMC_PROBE_BTF_FMODRET
int smc_probe(void)
{
	return register_btf_fmodret_id_set(NULL);
}
#endif

/* sk_uid() reads a sock's owner without its callback lock (7.x) */
#ifdef SMC_PROBE_SK_UID
int smc_probe(void)
{
	kuid_t uid = sk_uid(NULL);

	return __kuid_val(uid);
}
#endif
