/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The eBPF policy hook: one call at connect() and at listen() of an SMC
 * socket, before TCP sends or accepts anything, where an fmod_ret program
 * (tools/smc_bpf) may decide that this connection goes without SMC.
 */
#ifndef SMC_BPF_HOOK_H
#define SMC_BPF_HOOK_H

#include <linux/types.h>

struct sock;
struct sockaddr;
struct smc_sock;

/*
 * The attach point.  @port is the destination port (connect, @addr is the
 * destination) or the local port (listen, @addr is NULL), in host order.
 * Returns 0 (SMC as usual) unless a program replaces the result; any other
 * value makes the socket use plain TCP.
 */
int smc_bpf_decide(struct sock *sk, const struct sockaddr *addr, u16 port,
		   bool listen);

/*
 * Ask the hook about @smc, socket locked, before the companion socket's
 * connect (@addr, @alen) or listen (@addr NULL).  A veto is kept as the
 * socket's fallback reason, so no SMC option goes out and the connection
 * (or every connection the listener accepts) falls back with it.
 */
void smc_bpf_policy(struct smc_sock *smc, const struct sockaddr *addr,
		    int alen);

/* Module init: let fmod_ret programs attach to smc_bpf_decide(). */
void smc_bpf_hook_init(void);

#endif /* SMC_BPF_HOOK_H */
