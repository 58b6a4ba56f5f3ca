// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: SMC sockets made by
 * socket(AF_INET or AF_INET6, SOCK_STREAM, IPPROTO_SMC).
 *
 * Such a socket is an AF_SMC socket in all but its name: inet_create()
 * allocates it from one of the protos below, whose objects are struct
 * smc_sock, and then lets .init turn it into the same thing smc_create()
 * builds (a clcsock of the socket's own family, linked for sock_diag).
 * Its proto_ops are smc_ops itself (nothing in the kernel reads
 * proto_ops.family).  getsockopt(SO_DOMAIN) says AF_INET or AF_INET6 and
 * SO_PROTOCOL says IPPROTO_SMC.  Sockets that accept() returns on such a
 * listener are made by the listener like any AF_SMC child: SO_DOMAIN
 * AF_SMC, SO_PROTOCOL IPPROTO_SMC, as in Linux 6.12.
 *
 * inet_create() sets up the inet (and inet6) part of the object and its
 * destructor; struct smc_sock leaves room for the inet part, struct
 * smc_inet6_sock adds the IPv6 one.  Those fields are never used by SMC:
 * addresses and options live in the clcsock.
 */
#include <linux/module.h>
#include <linux/net.h>
#include <linux/ipv6.h>
#include <net/protocol.h>
#include <net/sock.h>
#include <net/ipv6.h>
#include "smc.h"

#ifdef SMC_HAVE_IPPROTO_SMC

static struct lock_class_key smc_inet_slock_key;
static struct lock_class_key smc_inet_sk_key;

/* Called by inet_create() and inet6_create() on the new sock. */
static int smc_inet_init_sock(struct sock *sk)
{
	struct smc_sock *smc = smc_sk(sk);

	/* not TCP's lock classes: the clcsock is locked inside ours */
	sock_lock_init_class_and_name(sk, "slock-INET_SMC", &smc_inet_slock_key,
				      "sk_lock-INET_SMC", &smc_inet_sk_key);
	smc_sock_init(smc, sk->sk_protocol);
	return smc_sock_open(smc, sk->sk_socket, sk->sk_family,
			     sk->sk_kern_sock);
}

/*
 * Only sk_common_release() calls this: inet_create() gave up on the sock
 * after (or inside) .init, for instance because a cgroup BPF program
 * refused it.  Undo .init; sk_common_release() drops the last reference.
 */
static void smc_inet_destroy_sock(struct sock *sk)
{
	sock_hold(sk);
	smc_sock_destroy(smc_sk(sk));
}

/* The sock is never in an inet hash table. */
static void smc_inet_unhash(struct sock *sk)
{
}

static struct proto smc_inet_proto = {
	.name		= "INET_SMC",
	.owner		= THIS_MODULE,
	.init		= smc_inet_init_sock,
	.destroy	= smc_inet_destroy_sock,
	.unhash		= smc_inet_unhash,
	.obj_size	= sizeof(struct smc_sock),
};

static struct inet_protosw smc_inet_protosw = {
	.type		= SOCK_STREAM,
	.protocol	= IPPROTO_SMC,
	.prot		= &smc_inet_proto,
	.ops		= &smc_ops,
};

#if IS_ENABLED(CONFIG_IPV6)
struct smc_inet6_sock {
	struct smc_sock smc;
	struct ipv6_pinfo inet6;	/* set up by inet6_create() */
};

static struct proto smc_inet6_proto = {
	.name		= "INET6_SMC",
	.owner		= THIS_MODULE,
	.init		= smc_inet_init_sock,
	.destroy	= smc_inet_destroy_sock,
	.unhash		= smc_inet_unhash,
	.obj_size	= sizeof(struct smc_inet6_sock),
	.ipv6_pinfo_offset = offsetof(struct smc_inet6_sock, inet6),
};

static struct inet_protosw smc_inet6_protosw = {
	.type		= SOCK_STREAM,
	.protocol	= IPPROTO_SMC,
	.prot		= &smc_inet6_proto,
	.ops		= &smc_ops,
};

static int __init smc_inet6_init(void)
{
	int rc;

	rc = proto_register(&smc_inet6_proto, 1);
	if (rc)
		return rc;
	rc = inet6_register_protosw(&smc_inet6_protosw);
	if (rc)
		proto_unregister(&smc_inet6_proto);
	return rc;
}

static void smc_inet6_exit(void)
{
	inet6_unregister_protosw(&smc_inet6_protosw);
	proto_unregister(&smc_inet6_proto);
}
#else
static int __init smc_inet6_init(void)
{
	return 0;
}

static void smc_inet6_exit(void)
{
}
#endif

int __init smc_inet_init(void)
{
	int rc;

	rc = proto_register(&smc_inet_proto, 1);
	if (rc)
		return rc;
	inet_register_protosw(&smc_inet_protosw);
	rc = smc_inet6_init();
	if (rc) {
		pr_err("smc: IPPROTO_SMC for IPv6 not registered: %d\n", rc);
		inet_unregister_protosw(&smc_inet_protosw);
		proto_unregister(&smc_inet_proto);
	}
	return rc;
}

/*
 * Every socket holds a module reference, so none is left.  Unregistering
 * a protosw waits for a grace period (synchronize_net()): no socket() is
 * still inside inet_create() with ours when its proto goes.
 */
void smc_inet_exit(void)
{
	smc_inet6_exit();
	inet_unregister_protosw(&smc_inet_protosw);
	proto_unregister(&smc_inet_proto);
}

MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, IPPROTO_SMC, SOCK_STREAM);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, IPPROTO_SMC, SOCK_STREAM);
#endif /* SMC_HAVE_IPPROTO_SMC */
