// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: the net.smc sysctls.
 *
 * The per-namespace state (net_generic) holds the values and its own copy
 * of the ctl_table, whose entries point at those values.  The template
 * below stores in .data the offset of each value within struct
 * smc_net_cfg; a namespace's copy turns the offsets into addresses.
 */
#include <linux/jiffies.h>
#include <linux/limits.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <net/netns/generic.h>
#include "compat.h"

#include "sysctl.h"

static const int smc_sysctl_buf_min = SMC_NET_BUF_MIN;
static const int smc_sysctl_buf_max = SMC_NET_BUF_MAX;
static const int smc_sysctl_links_min = SMC_NET_LINKS_MIN;
static const int smc_sysctl_links_max = SMC_NET_LINKS_MAX;
static const int smc_sysctl_conns_min = SMC_NET_CONNS_MIN;
static const int smc_sysctl_conns_max = SMC_NET_CONNS_MAX;
static const int smc_sysctl_lgrs_min = SMC_NET_LGRS_MIN;
static const int smc_sysctl_lgrs_max = SMC_NET_LGRS_MAX;
static const int smc_sysctl_orphans_max = SMC_NET_ORPHANS_MAX;
static const int smc_sysctl_port_max = 65535;
static const int smc_sysctl_secs_max = INT_MAX / HZ;

static const struct smc_net_cfg smc_net_cfg_default = {
	.autocorking_size	= SMC_NET_AUTOCORKING_DEF,
	.smcr_buf_type		= SMC_NET_BUF_PHYS,
	.smcr_testlink_time	= SMC_NET_TESTLINK_DEF_SECS * HZ,
	.wmem			= SMC_NET_BUF_DEF,
	.rmem			= SMC_NET_BUF_DEF,
	.smcr_max_links_per_lgr	= SMC_NET_LINKS_DEF,
	.smcr_max_conns_per_lgr	= SMC_NET_CONNS_DEF,
	.smcr_max_lgrs		= SMC_NET_LGRS_DEF,
	.smcr_max_lgrs_per_peer	= SMC_NET_LGRS_PEER_DEF,
	.smcr_max_orphans	= SMC_NET_ORPHANS_DEF,
	.limit_smc_hs		= 0,
	.smcr_write_imm		= 1,
	.smcr_rmb_grow		= 0,
};

/*
 * A value kept in jiffies and shown in seconds, from 0 to what fits: a
 * negative interval makes no sense, so unlike proc_dointvec_jiffies()
 * this refuses one with -EINVAL.
 */
static int smc_sysctl_seconds(SMC_CTL_TABLE_CONST struct ctl_table *table,
			      int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	int *jiffies_val = table->data;
	struct ctl_table secs_table = *table;
	int secs = READ_ONCE(*jiffies_val) / HZ;
	int rc;

	secs_table.data = &secs;
	secs_table.maxlen = sizeof(secs);
	secs_table.extra1 = SYSCTL_ZERO;
	secs_table.extra2 = (void *)&smc_sysctl_secs_max;
	rc = proc_dointvec_minmax(&secs_table, write, buffer, lenp, ppos);
	if (write && !rc)
		WRITE_ONCE(*jiffies_val, secs * HZ);
	return rc;
}

#define SMC_CFG_OFFSET(field)	((void *)offsetof(struct smc_net_cfg, field))

static const struct ctl_table smc_sysctl_template[] = {
	{
		.procname	= "autocorking_size",
		.data		= SMC_CFG_OFFSET(autocorking_size),
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec,
	},
	{
		.procname	= "smcr_buf_type",
		.data		= SMC_CFG_OFFSET(smcr_buf_type),
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_TWO,
	},
	{
		.procname	= "smcr_testlink_time",
		.data		= SMC_CFG_OFFSET(smcr_testlink_time),
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= smc_sysctl_seconds,
	},
	{
		.procname	= "wmem",
		.data		= SMC_CFG_OFFSET(wmem),
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= (void *)&smc_sysctl_buf_min,
		.extra2		= (void *)&smc_sysctl_buf_max,
	},
	{
		.procname	= "rmem",
		.data		= SMC_CFG_OFFSET(rmem),
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= (void *)&smc_sysctl_buf_min,
		.extra2		= (void *)&smc_sysctl_buf_max,
	},
	{
		.procname	= "smcr_max_links_per_lgr",
		.data		= SMC_CFG_OFFSET(smcr_max_links_per_lgr),
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= (void *)&smc_sysctl_links_min,
		.extra2		= (void *)&smc_sysctl_links_max,
	},
	{
		.procname	= "smcr_max_conns_per_lgr",
		.data		= SMC_CFG_OFFSET(smcr_max_conns_per_lgr),
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= (void *)&smc_sysctl_conns_min,
		.extra2		= (void *)&smc_sysctl_conns_max,
	},
	{
		.procname	= "smcr_max_lgrs",
		.data		= SMC_CFG_OFFSET(smcr_max_lgrs),
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= (void *)&smc_sysctl_lgrs_min,
		.extra2		= (void *)&smc_sysctl_lgrs_max,
	},
	{
		.procname	= "smcr_max_lgrs_per_peer",
		.data		= SMC_CFG_OFFSET(smcr_max_lgrs_per_peer),
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= (void *)&smc_sysctl_lgrs_min,
		.extra2		= (void *)&smc_sysctl_lgrs_max,
	},
	{
		.procname	= "smcr_max_orphans",
		.data		= SMC_CFG_OFFSET(smcr_max_orphans),
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= (void *)&smc_sysctl_orphans_max,
	},
	{
		.procname	= "limit_smc_hs",
		.data		= SMC_CFG_OFFSET(limit_smc_hs),
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "smcr_write_imm",
		.data		= SMC_CFG_OFFSET(smcr_write_imm),
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "smcr_rmb_grow",
		.data		= SMC_CFG_OFFSET(smcr_rmb_grow),
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "smcr_iwarp_port",
		.data		= SMC_CFG_OFFSET(smcr_iwarp_port),
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= (void *)&smc_sysctl_port_max,
	},
};

struct smc_sysctl_net {
	struct smc_net_cfg cfg;
	struct ctl_table_header *hdr;
	/* and a zeroed entry: kernels before 6.6 look for one at the end */
	struct ctl_table table[ARRAY_SIZE(smc_sysctl_template) + 1];
};

static unsigned int smc_sysctl_net_id __read_mostly;

static struct smc_sysctl_net *smc_sysctl_net(const struct net *net)
{
	return net_generic(net, smc_sysctl_net_id);
}

const struct smc_net_cfg *smc_net_cfg(const struct net *net)
{
	return &smc_sysctl_net(net)->cfg;
}

void smc_net_set_limit_hs(struct net *net, bool on)
{
	WRITE_ONCE(smc_sysctl_net(net)->cfg.limit_smc_hs, on);
}

static int __net_init smc_sysctl_net_init(struct net *net)
{
	struct smc_sysctl_net *sn = smc_sysctl_net(net);
	size_t i;

	sn->cfg = smc_net_cfg_default;
	memcpy(sn->table, smc_sysctl_template, sizeof(smc_sysctl_template));
	for (i = 0; i < ARRAY_SIZE(smc_sysctl_template); i++)
		sn->table[i].data = (u8 *)&sn->cfg +
				    (uintptr_t)smc_sysctl_template[i].data;
	sn->hdr = register_net_sysctl_sz(net, "net/smc", sn->table,
					 ARRAY_SIZE(smc_sysctl_template));
	return sn->hdr ? 0 : -ENOMEM;
}

static void __net_exit smc_sysctl_net_exit(struct net *net)
{
	unregister_net_sysctl_table(smc_sysctl_net(net)->hdr);
}

static struct pernet_operations smc_sysctl_net_ops = {
	.init = smc_sysctl_net_init,
	.exit = smc_sysctl_net_exit,
	.id = &smc_sysctl_net_id,
	.size = sizeof(struct smc_sysctl_net),
};

int smc_sysctl_init(void)
{
	return register_pernet_subsys(&smc_sysctl_net_ops);
}

void smc_sysctl_exit(void)
{
	unregister_pernet_subsys(&smc_sysctl_net_ops);
}
