/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TCP's SMC option carried by eBPF (tcp_opt.c), for kernels whose TCP
 * does not carry it itself.  compat.h's smc_tcp_option_*() call in here.
 */
#ifndef SMC_TCP_OPT_H
#define SMC_TCP_OPT_H

#include <linux/types.h>

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

#endif /* SMC_TCP_OPT_H */
