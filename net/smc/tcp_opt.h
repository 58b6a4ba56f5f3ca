/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TCP's SMC option: who carries it (the smc_tcp_option_*() the handshake
 * calls), and the eBPF way (tcp_opt.c) for kernels whose TCP does not
 * carry it itself.
 */
#ifndef SMC_TCP_OPT_H
#define SMC_TCP_OPT_H

#include <linux/types.h>
#include "compat.h"

struct sock;
struct saved_syn;

/* RFC 7609's option: kind 254, length 6, the 4-byte magic 0xE2D4C3D9 */
#define SMC_TCPOPT_LEN		6

/*
 * What a clcsock's owner knows of the option, under the clcsock's
 * sk_callback_lock (zero in a new socket).
 */
struct smc_tcpopt {
	/* listener: when its SYN-ACKs must go without the option */
	bool (*congested)(const struct sock *clcsk);
	bool ask;		/* the SYN (or a listener's SYN-ACKs) may carry it */
	bool agreed;		/* client: the peer's SYN-ACK carried it */
	bool own_save_syn;	/* listener: TCP_SAVE_SYN is on for us */
};

/* module parameter tcp_option_bpf: eBPF carries the option */
extern bool smc_tcpopt_bpf;

void smc_tcpopt_init(void);
void smc_tcpopt_ask(struct sock *clcsk, bool on);
bool smc_tcpopt_agreed(struct sock *clcsk);
void smc_tcpopt_congested(struct sock *clcsk,
			  bool (*congested)(const struct sock *sk));

/* The pure parts, for KUnit. */
bool smc_tcpopt_find(const u8 *opt, unsigned int len);
bool smc_tcpopt_syn_has(const void *th, unsigned int len);
bool smc_tcpopt_record_has(const struct saved_syn *syn);
void smc_tcpopt_record_mark(struct saved_syn *syn);
bool smc_tcpopt_record_marked(const struct saved_syn *syn);

/*
 * A kernel with CONFIG_SMC carries the option in TCP (compat.h), one
 * without it needs the eBPF program (tools/smc_tcpopt), and every
 * handshake goes without SMC while that is not attached, as with a peer
 * that has no SMC.  With the module parameter tcp_option_bpf, a kernel
 * with CONFIG_SMC leaves the option to that program too, so that the
 * path can be tested there.
 */
static inline bool smc_tcp_native(void)
{
	return SMC_HAVE_TCP_OPTION && !smc_tcpopt_bpf;
}

/* Before connect() or listen(), or with @clcsk locked. */
static inline void smc_tcp_option_ask(struct sock *clcsk, bool on)
{
	if (smc_tcp_native())
		smc_tcp_native_ask(clcsk, on);
	else
		smc_tcpopt_ask(clcsk, on);
}

static inline bool smc_tcp_option_agreed(struct sock *clcsk)
{
	if (smc_tcp_native())
		return smc_tcp_native_agreed(clcsk);
	return smc_tcpopt_agreed(clcsk);
}

/* A listener's @congested says when SYNs should go without the option. */
static inline void
smc_tcp_option_congested(struct sock *clcsk,
			 bool (*congested)(const struct sock *sk))
{
	if (smc_tcp_native())
		smc_tcp_native_congested(clcsk, congested);
	else
		smc_tcpopt_congested(clcsk, congested);
}

/* Module init and exit; smc_tcpopt_bpf is settled by the first. */
static inline void smc_tcp_option_enable(void)
{
	smc_tcpopt_init();
	if (smc_tcp_native())
		smc_tcp_native_enable();
}

static inline void smc_tcp_option_disable(void)
{
	if (smc_tcp_native())
		smc_tcp_native_disable();
}

#endif /* SMC_TCP_OPT_H */
