/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications over RDMA: per network namespace counters.
 *
 * Private to stats.c and netlink.c.  The hooks the rest of the module calls
 * are declared in smc.h.
 */
#ifndef SMC_STATS_H
#define SMC_STATS_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/percpu.h>
#include <net/net_namespace.h>

/* distinct fallback reasons remembered per side, the same as upstream */
#define SMC_STATS_FBACK_SLOTS	36

enum smc_stats_side {
	SMC_STATS_CLNT,
	SMC_STATS_SRV,
	SMC_STATS_SIDES
};

/* size classes: <= 8K, <= 16K, ... <= 1024K, larger */
#define SMC_STATS_BUF_MAX	9

/*
 * Every member of struct smc_stats_pcpu is a u64, so the per-cpu copies are
 * summed as plain arrays of u64 (see smc_stats_sum()).
 */
struct smc_stats_rmb {
	u64 size_small_peer;	/* peer's receive buffer too small */
	u64 size_small;		/* own buffer too small */
	u64 full_peer;		/* peer's receive buffer full */
	u64 full;		/* own buffer full */
	u64 reuse;		/* buffer taken from the cache */
	u64 alloc;		/* buffer newly allocated */
	u64 dgrade;		/* allocated smaller than wanted */
};

struct smc_stats_tech {
	u64 tx_rmbsize[SMC_STATS_BUF_MAX];
	u64 rx_rmbsize[SMC_STATS_BUF_MAX];
	u64 tx_pd[SMC_STATS_BUF_MAX];	/* send requests by size */
	u64 rx_pd[SMC_STATS_BUF_MAX];	/* receive requests by size */
	struct smc_stats_rmb rmb_tx;
	struct smc_stats_rmb rmb_rx;
	u64 clnt_v1_succ;
	u64 clnt_v2_succ;
	u64 srv_v1_succ;
	u64 srv_v2_succ;
	u64 sendpage;
	u64 splice;
	u64 cork;
	u64 ndly;
	u64 urg_data;
	u64 rx_bytes;
	u64 tx_bytes;
	u64 rx_cnt;
	u64 tx_cnt;
	u64 rx_rmbuse;		/* bytes of receive buffers in use */
	u64 tx_rmbuse;		/* bytes of send buffers in use */
};

struct smc_stats_pcpu {
	struct smc_stats_tech smcr;		/* SMC-D is never used here */
	u64 hs_err[SMC_STATS_SIDES];		/* handshake errors */
};

/* Sum of all CPUs' counters of @net into @sum. */
void smc_stats_sum(struct net *net, struct smc_stats_pcpu *sum);

/* All fallbacks of one side, whatever their reason. */
u64 smc_stats_fback_total(struct net *net, enum smc_stats_side side);

/*
 * Slot @idx of the per-reason table of @side.  Returns false when the slot
 * is still unused; slots are taken in order, so then all later ones are
 * unused as well.
 */
bool smc_stats_fback_slot(struct net *net, enum smc_stats_side side,
			  unsigned int idx, u32 *reason, u32 *count);

#endif /* SMC_STATS_H */
