// SPDX-License-Identifier: GPL-2.0
/*
 * TCP's SMC option carried by eBPF, for kernels whose TCP has none.
 *
 * RFC 7609 has both ends announce SMC with an experimental TCP option
 * (kind 254, length 6, magic 0xE2D4C3D9) in the SYN and in the SYN-ACK.
 * TCP does that itself only in a kernel built with CONFIG_SMC (compat.h).
 * Elsewhere (Debian's 7.3) a sock_ops program that tools/smc_tcpopt
 * attaches to the root cgroup calls bpf_smc_tcpopt() at a few points of
 * every TCP connection's life, and this file answers it: whether the
 * segment at hand carries the option (the program then writes it with
 * bpf_reserve_hdr_opt() and bpf_store_hdr_opt()), and what the peer sent.
 *
 * Only our clcsocks get the option.  A clcsock that asks for it has its
 * owner say so (struct smc_tcpopt) and BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG
 * turned on, without which TCP never asks the program about a segment;
 * the flag goes off again once TCP is established.  Any other socket
 * costs the program a look at the event's number, and for a listener's
 * new request one call here that finds no saved SYN.
 *
 * Client: each SYN carries the option.  At ACTIVE_ESTABLISHED the SYN-ACK
 * is at hand, and the owner learns whether it carried the option too.
 *
 * Server: the listening clcsock keeps each SYN (TCP_SAVE_SYN), and the
 * saved copy becomes the request's record of what we decided.  When TCP
 * sets the request up (TIMEOUT_INIT: the request is not yet findable by
 * anybody else, and no SYN-ACK was sent), bpf_smc_tcpopt() reads the
 * SYN's options from the copy: if they carry the option and the listener
 * is not congested, it marks the record (all of its lengths zero, which
 * no saved SYN ever has), else it frees it.  Every SYN-ACK of the request,
 * first or retransmitted, carries the option exactly when the record is
 * marked, and TCP moves the record into the child socket, where
 * smc_tcpopt_agreed() looks for the mark.  So the child cannot believe
 * anything else than what the client was told, and without the program
 * no record is ever marked: no SYN-ACK carries the option and no child
 * expects SMC.  A SYN-ACK made from a SYN cookie has no record and goes
 * without the option, as does a fast open child's (its request's record
 * moved to the child before any decision).  A marked record stays with
 * the child until TCP frees the socket; getsockopt(TCP_SAVED_SYN) returns
 * nothing for it.
 *
 * The module parameter tcp_option_bpf (read-only) says whether this path
 * is in use: always on a kernel without CONFIG_SMC, and on one with it
 * only when asked at load time (for testing this path there).
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/filter.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/unaligned.h>
#include <net/request_sock.h>
#include <net/tcp.h>
#include "smc.h"
#include "tcp_opt.h"

bool smc_tcpopt_bpf __read_mostly;
module_param_named(tcp_option_bpf, smc_tcpopt_bpf, bool, 0444);
MODULE_PARM_DESC(tcp_option_bpf,
		 "TCP's SMC option by eBPF (tools/smc_tcpopt): always on a kernel without CONFIG_SMC; with it, for testing only");

/*
 * Does the TCP option area @opt (@len bytes) carry the SMC option?  The
 * walk and what counts as the option are those of tcp_parse_options():
 * an even length of at least 6 whose first four data bytes are the magic.
 */
bool smc_tcpopt_find(const u8 *opt, unsigned int len)
{
	unsigned int size;

	while (len) {
		if (opt[0] == TCPOPT_EOL)
			return false;
		if (opt[0] == TCPOPT_NOP) {
			opt++;
			len--;
			continue;
		}
		if (len < 2)
			return false;
		size = opt[1];
		if (size < 2 || size > len)
			return false;
		if (opt[0] == TCPOPT_EXP && size >= SMC_TCPOPT_LEN &&
		    !(size & 1) && get_unaligned_be32(opt + 2) == TCPOPT_SMC_MAGIC)
			return true;
		opt += size;
		len -= size;
	}
	return false;
}

/*
 * Is the TCP header at @th (@len bytes of it at hand) a SYN, or SYN-ACK,
 * with the SMC option?
 */
bool smc_tcpopt_syn_has(const void *th, unsigned int len)
{
	const struct tcphdr *t = th;
	unsigned int hlen;

	if (len < sizeof(*t) || !t->syn)
		return false;
	hlen = t->doff * 4;
	if (hlen < sizeof(*t) || hlen > len)
		return false;
	return smc_tcpopt_find((const u8 *)(t + 1), hlen - sizeof(*t));
}

/* The record of a request: the SYN TCP saved, or our mark. */
bool smc_tcpopt_record_marked(const struct saved_syn *syn)
{
	return !syn->mac_hdrlen && !syn->network_hdrlen && !syn->tcp_hdrlen;
}

bool smc_tcpopt_record_has(const struct saved_syn *syn)
{
	if (smc_tcpopt_record_marked(syn))
		return false;
	return smc_tcpopt_syn_has(syn->data + syn->mac_hdrlen +
				  syn->network_hdrlen, syn->tcp_hdrlen);
}

/* Offered: what remains of the copy is never read again. */
void smc_tcpopt_record_mark(struct saved_syn *syn)
{
	syn->mac_hdrlen = 0;
	syn->network_hdrlen = 0;
	syn->tcp_hdrlen = 0;
}

#if IS_ENABLED(CONFIG_CGROUP_BPF)
/* TCP calls the program for @sk's segments (while @on).  @sk owned. */
static void smc_tcpopt_flag(struct sock *sk, bool on)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (on)
		tp->bpf_sock_ops_cb_flags |= BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG;
	else
		tp->bpf_sock_ops_cb_flags &= ~BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG;
}
#else
static void smc_tcpopt_flag(struct sock *sk, bool on)
{
}
#endif

/* @sk's option state if @sk is an owned clcsock.  Callback lock held. */
static struct smc_tcpopt *smc_tcpopt_of(const struct sock *sk)
{
	struct smc_sock *smc = smc_clcsock_owner_of(sk);

	return smc ? &smc->tcpopt : NULL;
}

/*
 * Before connect() or listen() of @clcsk, or with @clcsk locked: its SYN
 * or its SYN-ACKs may (@on) carry the option, or not.
 */
void smc_tcpopt_ask(struct sock *clcsk, bool on)
{
	struct smc_tcpopt *st;
	bool owned;

	write_lock_bh(&clcsk->sk_callback_lock);
	st = smc_tcpopt_of(clcsk);
	owned = !!st;
	if (st) {
		st->ask = on;
		st->agreed = false;
	}
	write_unlock_bh(&clcsk->sk_callback_lock);
	smc_tcpopt_flag(clcsk, on && owned);
}

/*
 * A listener's @congested, or NULL when it stops listening.  The listener
 * keeps its SYNs for the records, unless the application asked for that
 * itself: a record is then the application's, and no SYN-ACK carries the
 * option.
 */
void smc_tcpopt_congested(struct sock *clcsk,
			  bool (*congested)(const struct sock *sk))
{
	struct tcp_sock *tp = tcp_sk(clcsk);
	struct smc_tcpopt *st;

	lock_sock(clcsk);
	write_lock_bh(&clcsk->sk_callback_lock);
	st = smc_tcpopt_of(clcsk);
	if (st) {
		st->congested = congested;
		if (congested && !tp->save_syn) {
			tp->save_syn = 1;
			st->own_save_syn = true;
		} else if (!congested && st->own_save_syn) {
			tp->save_syn = 0;
			st->own_save_syn = false;
		}
	}
	write_unlock_bh(&clcsk->sk_callback_lock);
	release_sock(clcsk);
}

/*
 * Did the peer agree to SMC: the SYN-ACK of our SYN carried the option
 * (client), or our SYN-ACK did, to a SYN that had it (a child of our
 * listener, by its request's record)?  Nothing frees a child's record
 * before accept() hands the child out.
 */
bool smc_tcpopt_agreed(struct sock *clcsk)
{
	const struct saved_syn *syn;
	const struct smc_tcpopt *st;
	bool agreed = false;

	read_lock_bh(&clcsk->sk_callback_lock);
	st = smc_tcpopt_of(clcsk);
	if (st)
		agreed = st->agreed;
	read_unlock_bh(&clcsk->sk_callback_lock);
	if (agreed)
		return true;
	syn = READ_ONCE(tcp_sk(clcsk)->saved_syn);
	return syn && smc_tcpopt_record_marked(syn);
}

/*
 * The kfunc needs the sock_ops context (any kernel with cgroup BPF), the
 * module's own BTF and kfunc sets that declare themselves (6.9+).
 */
#if IS_ENABLED(CONFIG_CGROUP_BPF) && defined(MODULE) && \
	IS_ENABLED(CONFIG_DEBUG_INFO_BTF_MODULES) && defined(BTF_KFUNCS_START)
/*
 * TIMEOUT_INIT of a new request (softirq): decide for it if its listener
 * is one of ours that asked (see the top of the file).
 */
static int smc_tcpopt_request(struct request_sock *req)
{
	bool (*congested)(const struct sock *sk) = NULL;
	struct saved_syn *syn = req->saved_syn;
	struct sock *lsk = req->rsk_listener;
	const struct smc_tcpopt *st;
	bool ours = false;

	/* every listener that keeps no SYN ends here */
	if (!syn || !lsk)
		return 0;
	read_lock_bh(&lsk->sk_callback_lock);
	st = smc_tcpopt_of(lsk);
	if (st && st->ask && st->own_save_syn) {
		ours = true;
		congested = st->congested;
	}
	read_unlock_bh(&lsk->sk_callback_lock);
	if (!ours)
		return 0;
	if (smc_tcpopt_record_has(syn) && !(congested && congested(lsk))) {
		smc_tcpopt_record_mark(syn);
		return 1;
	}
	/* no SMC for this one: nothing needs its SYN any more */
	req->saved_syn = NULL;
	kfree(syn);
	return 0;
}

/* HDR_OPT_LEN_CB and WRITE_HDR_OPT_CB: does this segment carry it? */
static int smc_tcpopt_write(const struct bpf_sock_ops_kern *skops)
{
	const struct saved_syn *syn;
	struct sock *sk = skops->sk;
	const struct smc_tcpopt *st;
	bool ask = false;

	/* the MSS of data segments, which never carry it; SYN cookies */
	if (!skops->skb ||
	    (skops->args[0] & (BPF_WRITE_HDR_TCP_CURRENT_MSS |
			       BPF_WRITE_HDR_TCP_SYNACK_COOKIE)))
		return 0;
	if (!skops->is_fullsock) {
		/* a request's SYN-ACK: as its record says */
		syn = READ_ONCE(inet_reqsk(sk)->saved_syn);
		return syn && smc_tcpopt_record_marked(syn);
	}
	if (!(TCP_SKB_CB(skops->skb)->tcp_flags & TCPHDR_SYN))
		return 0;
	read_lock_bh(&sk->sk_callback_lock);
	st = smc_tcpopt_of(sk);
	if (st)
		ask = st->ask;
	read_unlock_bh(&sk->sk_callback_lock);
	return ask;
}

/*
 * ACTIVE_ESTABLISHED (@skb: the SYN-ACK) or PASSIVE_ESTABLISHED (@skb
 * NULL; a child, or a client after a simultaneous open) of a socket with
 * the flag on: no more SYNs, so the flag goes off if the socket is ours.
 * A client that asked learns the peer's answer.
 */
static int smc_tcpopt_established(struct sock *sk, const struct sk_buff *skb)
{
	bool ours, agreed = false;
	struct smc_tcpopt *st;

	write_lock_bh(&sk->sk_callback_lock);
	ours = smc_clcsock_ours(sk);
	st = smc_tcpopt_of(sk);
	if (st && st->ask) {
		/* tcp_v4_rcv() pulled the whole TCP header in */
		agreed = skb && smc_tcpopt_syn_has(tcp_hdr(skb),
						   tcp_hdrlen(skb));
		st->agreed = agreed;
		st->ask = false;
	}
	write_unlock_bh(&sk->sk_callback_lock);
	if (ours)
		smc_tcpopt_flag(sk, false);
	return agreed;
}

__bpf_kfunc_start_defs();

/**
 * bpf_smc_tcpopt() - the smc module's part of a TCP event
 * @ctx: the context of the sock_ops program that TCP called
 *
 * For tools/smc_tcpopt's program, called with the events it passes on:
 * TIMEOUT_INIT, HDR_OPT_LEN_CB, WRITE_HDR_OPT_CB, ACTIVE_ESTABLISHED_CB
 * and PASSIVE_ESTABLISHED_CB.
 *
 * Return: 1 when the segment of HDR_OPT_LEN_CB or WRITE_HDR_OPT_CB is to
 * carry the SMC option, when the request of TIMEOUT_INIT is offered SMC
 * or when the SYN-ACK of ACTIVE_ESTABLISHED_CB carried the option; else 0.
 */
__bpf_kfunc int bpf_smc_tcpopt(struct bpf_sock_ops *ctx)
{
	struct bpf_sock_ops_kern *skops = (struct bpf_sock_ops_kern *)ctx;
	struct sock *sk = skops->sk;

	if (!sk)
		return 0;
	switch (skops->op) {
	case BPF_SOCK_OPS_TIMEOUT_INIT:
		if (skops->is_fullsock || sk->sk_state != TCP_NEW_SYN_RECV)
			return 0;
		return smc_tcpopt_request(inet_reqsk(sk));
	case BPF_SOCK_OPS_HDR_OPT_LEN_CB:
	case BPF_SOCK_OPS_WRITE_HDR_OPT_CB:
		return smc_tcpopt_write(skops);
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
		return smc_tcpopt_established(sk, skops->skb);
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		return smc_tcpopt_established(sk, NULL);
	}
	return 0;
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(smc_tcpopt_kfunc_ids)
BTF_ID_FLAGS(func, bpf_smc_tcpopt)
BTF_KFUNCS_END(smc_tcpopt_kfunc_ids)

/* Our kfunc is for sock_ops programs only: it reads their context. */
static int smc_tcpopt_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	if (!btf_id_set8_contains(&smc_tcpopt_kfunc_ids, kfunc_id))
		return 0;
	return prog->type == BPF_PROG_TYPE_SOCK_OPS ? 0 : -EACCES;
}

static const struct btf_kfunc_id_set smc_tcpopt_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &smc_tcpopt_kfunc_ids,
	.filter = smc_tcpopt_kfunc_filter,
};

/*
 * Registered for every program type (6.12 has no kfunc hook of its own
 * for sock_ops), and kept to sock_ops by the filter.
 */
static int smc_tcpopt_register(void)
{
	if (!THIS_MODULE->btf_data_size)
		return -ENOENT;		/* built without pahole */
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_UNSPEC,
					 &smc_tcpopt_kfunc_set);
}
#else
static int smc_tcpopt_register(void)
{
	return -EOPNOTSUPP;
}
#endif

/* Module init: make bpf_smc_tcpopt() known when this path is in use. */
void smc_tcpopt_init(void)
{
	int rc;

	if (!IS_ENABLED(CONFIG_SMC))
		smc_tcpopt_bpf = true;
	if (!smc_tcpopt_bpf)
		return;
	rc = smc_tcpopt_register();
	if (rc)
		pr_warn("no eBPF for TCP's SMC option (%d): every connection falls back to TCP\n",
			rc);
	else
		pr_info("TCP's SMC option by eBPF: attach tools/smc_tcpopt\n");
}
