// SPDX-License-Identifier: GPL-2.0
/*
 * smc_tcpopt: TCP's SMC option (RFC 7609) by eBPF, on a kernel whose TCP
 * has none of its own (built without CONFIG_SMC).
 *
 * A sock_ops program on the root cgroup.  TCP calls it for every TCP
 * socket at a few points of the socket's life (here: TIMEOUT_INIT, which
 * is also a listener's new request, and the two ESTABLISHED events), and
 * for the segments of a socket whose BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG
 * is on (HDR_OPT_LEN_CB, WRITE_HDR_OPT_CB); the smc module turns that
 * flag on for its own TCP sockets only, until they are established.
 * What happens is the module's decision, taken in its kfunc
 * bpf_smc_tcpopt() (net/smc/tcp_opt.c): this program passes the events on,
 * writes the option where the answer says so, and counts.  Other sockets
 * cost a switch on the event; the ESTABLISHED events reach the module
 * only for sockets with the flag on, and a new request only for a
 * listener that keeps its SYNs.
 */
#include <stdbool.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "smc_tcpopt.h"

#define SMC_TCPHDR_SYN		0x02

extern int bpf_smc_tcpopt(struct bpf_sock_ops *ctx) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SMC_TCPOPT_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static void count(__u32 i)
{
	__u64 *n = bpf_map_lookup_elem(&stats, &i);

	if (n)
		(*n)++;
}

/* A SYN or SYN-ACK about to be sent (the MSS computation has no skb) */
static bool syn(const struct bpf_sock_ops *skops)
{
	return skops->skb_tcp_flags & SMC_TCPHDR_SYN;
}

SEC("sockops")
int smc_tcpopt(struct bpf_sock_ops *skops)
{
	__u8 opt[SMC_TCPOPT_LEN] = {
		SMC_TCPOPT_KIND, SMC_TCPOPT_LEN, SMC_TCPOPT_MAGIC0,
		SMC_TCPOPT_MAGIC1, SMC_TCPOPT_MAGIC2, SMC_TCPOPT_MAGIC3,
	};

	switch (skops->op) {
	case BPF_SOCK_OPS_TIMEOUT_INIT:
		/* a connecting socket's is a full one, a new request's not */
		if (!skops->is_fullsock && bpf_smc_tcpopt(skops))
			count(SMC_TCPOPT_SYN_OFFERED);
		break;
	case BPF_SOCK_OPS_HDR_OPT_LEN_CB:
		if (syn(skops) && bpf_smc_tcpopt(skops))
			bpf_reserve_hdr_opt(skops, sizeof(opt), 0);
		break;
	case BPF_SOCK_OPS_WRITE_HDR_OPT_CB:
		if (syn(skops) && bpf_smc_tcpopt(skops) &&
		    !bpf_store_hdr_opt(skops, opt, sizeof(opt), 0))
			count(skops->is_fullsock ? SMC_TCPOPT_SYN_SENT :
				     SMC_TCPOPT_SYNACK_SENT);
		break;
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		if ((skops->bpf_sock_ops_cb_flags &
		     BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG) &&
		    bpf_smc_tcpopt(skops))
			count(SMC_TCPOPT_SYNACK_SEEN);
		break;
	}
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
