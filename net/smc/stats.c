// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: fallback and handshake counters.
 *
 * Every network namespace has its own set.  The hot counters are per-cpu
 * u64s; the fallback table (reason code -> count, per side) is a fixed
 * array of slots claimed with cmpxchg, so counting never takes a lock and
 * may happen in any context.  Readers (netlink.c) sum and copy without
 * locking; a value that moves while being read is at most one event off.
 */
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/cpumask.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <net/netns/generic.h>

#include "smc.h"
#include "clc_wire.h"
#include "stats.h"

struct smc_stats_fback_slot {
	atomic_t reason;		/* 0 while the slot is free */
	atomic_t count;
};

struct smc_stats_net {
	struct smc_stats_pcpu __percpu *pcpu;
	struct smc_stats_fback_slot fback[SMC_STATS_SIDES][SMC_STATS_FBACK_SLOTS];
	atomic64_t fback_total[SMC_STATS_SIDES];
};

static unsigned int smc_stats_net_id __read_mostly;

static_assert(sizeof(struct smc_stats_pcpu) % sizeof(u64) == 0);

static struct smc_stats_net *smc_stats_net(struct net *net)
{
	return net_generic(net, smc_stats_net_id);
}

static enum smc_stats_side smc_stats_side(bool server)
{
	return server ? SMC_STATS_SRV : SMC_STATS_CLNT;
}

void smc_stats_fallback(struct net *net, bool server, u32 reason)
{
	struct smc_stats_net *sn = smc_stats_net(net);
	enum smc_stats_side side = smc_stats_side(server);
	struct smc_stats_fback_slot *slot = sn->fback[side];
	unsigned int i;
	u32 cur;

	atomic64_inc(&sn->fback_total[side]);
	/* 0 marks a free slot: such a fallback only shows in the total */
	if (!reason)
		return;
	for (i = 0; i < SMC_STATS_FBACK_SLOTS; i++) {
		cur = (u32)atomic_read(&slot[i].reason);
		if (!cur) {
			cur = (u32)atomic_cmpxchg(&slot[i].reason, 0, (int)reason);
			if (!cur)
				cur = reason;	/* this call claimed the slot */
		}
		if (cur == reason) {
			atomic_inc(&slot[i].count);
			return;
		}
	}
	/* more distinct reasons than slots: counted in the total only */
}

void smc_stats_hs_success(struct net *net, bool server, u8 version)
{
	struct smc_stats_net *sn = smc_stats_net(net);
	bool v2 = version >= SMC_V2;

	if (server) {
		if (v2)
			this_cpu_inc(sn->pcpu->smcr.srv_v2_succ);
		else
			this_cpu_inc(sn->pcpu->smcr.srv_v1_succ);
	} else {
		if (v2)
			this_cpu_inc(sn->pcpu->smcr.clnt_v2_succ);
		else
			this_cpu_inc(sn->pcpu->smcr.clnt_v1_succ);
	}
}

void smc_stats_hs_error(struct net *net, bool server)
{
	struct smc_stats_net *sn = smc_stats_net(net);

	this_cpu_inc(sn->pcpu->hs_err[smc_stats_side(server)]);
}

/* size class of a request or buffer of @len bytes, @len > 0 */
static unsigned int smc_stats_size_class(size_t len)
{
	unsigned int pos = fls64(((u64)len - 1) >> 13);

	return min_t(unsigned int, pos, SMC_STATS_BUF_MAX - 1);
}

void smc_stats_xfer(struct net *net, bool tx, size_t len, ssize_t done)
{
	struct smc_stats_net *sn = smc_stats_net(net);
	unsigned int pos;

	if (tx)
		this_cpu_inc(sn->pcpu->smcr.tx_cnt);
	else
		this_cpu_inc(sn->pcpu->smcr.rx_cnt);
	if (!len || done <= 0)
		return;
	pos = smc_stats_size_class(len);
	if (tx) {
		this_cpu_inc(sn->pcpu->smcr.tx_pd[pos]);
		this_cpu_add(sn->pcpu->smcr.tx_bytes, done);
	} else {
		this_cpu_inc(sn->pcpu->smcr.rx_pd[pos]);
		this_cpu_add(sn->pcpu->smcr.rx_bytes, done);
	}
}

void smc_stats_sum(struct net *net, struct smc_stats_pcpu *sum)
{
	struct smc_stats_net *sn = smc_stats_net(net);
	const size_t n = sizeof(*sum) / sizeof(u64);
	u64 *dst = (u64 *)sum;
	const u64 *src;
	size_t i;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		src = (const u64 *)per_cpu_ptr(sn->pcpu, cpu);
		for (i = 0; i < n; i++)
			dst[i] += READ_ONCE(src[i]);
	}
}

u64 smc_stats_fback_total(struct net *net, enum smc_stats_side side)
{
	return atomic64_read(&smc_stats_net(net)->fback_total[side]);
}

bool smc_stats_fback_slot(struct net *net, enum smc_stats_side side,
			  unsigned int idx, u32 *reason, u32 *count)
{
	struct smc_stats_fback_slot *slot;

	if (side >= SMC_STATS_SIDES || idx >= SMC_STATS_FBACK_SLOTS)
		return false;
	slot = &smc_stats_net(net)->fback[side][idx];
	*reason = (u32)atomic_read(&slot->reason);
	if (!*reason)
		return false;
	*count = (u32)atomic_read(&slot->count);
	return true;
}

static int __net_init smc_stats_net_init(struct net *net)
{
	struct smc_stats_net *sn = smc_stats_net(net);

	/* the rest of *sn is zeroed by the pernet core */
	sn->pcpu = alloc_percpu(struct smc_stats_pcpu);
	return sn->pcpu ? 0 : -ENOMEM;
}

static void __net_exit smc_stats_net_exit(struct net *net)
{
	struct smc_stats_net *sn = smc_stats_net(net);

	free_percpu(sn->pcpu);
	sn->pcpu = NULL;
}

static struct pernet_operations smc_stats_net_ops = {
	.init = smc_stats_net_init,
	.exit = smc_stats_net_exit,
	.id = &smc_stats_net_id,
	.size = sizeof(struct smc_stats_net),
};

int smc_stats_init(void)
{
	return register_pernet_subsys(&smc_stats_net_ops);
}

void smc_stats_exit(void)
{
	unregister_pernet_subsys(&smc_stats_net_ops);
}
