// SPDX-License-Identifier: GPL-2.0
/*
 * The eBPF policy hook (see bpf_hook.h).
 *
 * Debian's kernel has no CONFIG_FUNCTION_ERROR_INJECTION, so an
 * ALLOW_ERROR_INJECTION() mark would not make smc_bpf_decide() a valid
 * fmod_ret target.  What the verifier accepts instead is a function in a
 * BTF id set registered with register_btf_fmodret_id_set(), which needs
 * the module's own (split) BTF: the build makes it with pahole against
 * the headers' vmlinux.  A module built without BTF still works; the hook
 * then just always says "SMC".
 *
 * With no program attached, the cost is one direct call per connect() or
 * listen(): the function is __weak so that the compiler can neither
 * inline it nor assume its result.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/socket.h>
#include <linux/stddef.h>
#include <net/sock.h>
#include "smc.h"
#include "clc.h"
#include "bpf_hook.h"

/*
 * The reason kept for a veto.  Like TCP fast open, the decision is local
 * and taken before the SYN, which then carries no SMC option: upstream
 * records such fallbacks as "option not supported".
 */
#define SMC_BPF_FALLBACK_REASON	SMC_CLC_DECL_OPTUNSUPP

__weak noinline int smc_bpf_decide(struct sock *sk,
				   const struct sockaddr *addr, u16 port,
				   bool listen)
{
	return 0;
}

/* The port of an AF_INET or AF_INET6 address, 0 when there is none. */
static u16 smc_bpf_addr_port(const struct sockaddr *addr, int alen)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;

	/* sin_port and sin6_port share their offset */
	BUILD_BUG_ON(offsetof(struct sockaddr_in, sin_port) !=
		     offsetof(struct sockaddr_in6, sin6_port));
	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return 0;
	if (alen < (int)offsetofend(struct sockaddr_in, sin_port))
		return 0;
	return ntohs(sin->sin_port);
}

void smc_bpf_policy(struct smc_sock *smc, const struct sockaddr *addr,
		    int alen)
{
	bool listen = !addr;
	u16 port;

	/* already without SMC: nothing left to decide */
	if (smc->fallback_reason)
		return;
	if (listen)
		port = smc->clcsock->sk->sk_num;
	else
		port = smc_bpf_addr_port(addr, alen);
	if (smc_bpf_decide(&smc->sk, addr, port, listen))
		smc->fallback_reason = SMC_BPF_FALLBACK_REASON;
}

/* fmod_ret on a module's function needs its BTF and a 6.3+ kernel */
#if defined(MODULE) && IS_ENABLED(CONFIG_DEBUG_INFO_BTF_MODULES) && \
	defined(SMC_HAVE_BTF_FMODRET)
BTF_SET8_START(smc_bpf_fmodret_ids)
BTF_ID_FLAGS(func, smc_bpf_decide)
BTF_SET8_END(smc_bpf_fmodret_ids)

static const struct btf_kfunc_id_set smc_bpf_fmodret_set = {
	.owner = THIS_MODULE,
	.set = &smc_bpf_fmodret_ids,
};

void smc_bpf_hook_init(void)
{
	int rc;

	/* built without pahole: no BTF, so no program could name the hook */
	if (!THIS_MODULE->btf_data_size) {
		pr_info("no module BTF: eBPF port rules unavailable\n");
		return;
	}
	rc = register_btf_fmodret_id_set(&smc_bpf_fmodret_set);
	if (rc)
		pr_warn("eBPF port rules unavailable: %d\n", rc);
}
#else
void smc_bpf_hook_init(void)
{
}
#endif
