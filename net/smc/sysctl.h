/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications over RDMA: the net.smc sysctls.
 *
 * Every network namespace has its own set, with the names, defaults and
 * ranges of Linux 6.12.  Writers are the sysctl files (and the netlink
 * handshake limitation commands); readers use READ_ONCE() on the fields.
 */
#ifndef SMC_SYSCTL_H
#define SMC_SYSCTL_H

#include <linux/types.h>
#include <net/net_namespace.h>

/* values of smcr_buf_type */
enum smc_net_buf_type {
	SMC_NET_BUF_PHYS,	/* physically contiguous buffers */
	SMC_NET_BUF_VIRT,	/* virtually contiguous buffers */
	SMC_NET_BUF_MIXED,	/* physically contiguous if possible */
};

struct smc_net_cfg {
	unsigned int autocorking_size;	/* bytes; 0 turns autocorking off */
	unsigned int smcr_buf_type;	/* enum smc_net_buf_type */
	int smcr_testlink_time;		/* JIFFIES (file: seconds); 0: off */
	int wmem;			/* initial send buffer, bytes */
	int rmem;			/* initial receive buffer, bytes */
	int smcr_max_links_per_lgr;	/* 1..2 */
	int smcr_max_conns_per_lgr;	/* 16..255 */
	int smcr_max_lgrs;		/* link groups of the namespace */
	int smcr_max_lgrs_per_peer;	/* ... with one TCP peer address */
	int smcr_max_orphans;		/* lingering closed connections */
	int limit_smc_hs;		/* 0 or 1; read by listen.c at each SYN */
	int smcr_write_imm;		/* 0 or 1: offer/accept the WIMM path */
	int smcr_rmb_grow;		/* 0 or 1: offer/accept RMB growth */
	int smcr_iwarp_port;		/* iWARP listener's TCP port; 0: any */
};

/* defaults */
#define SMC_NET_AUTOCORKING_DEF		(64 * 1024)
#define SMC_NET_TESTLINK_DEF_SECS	30
#define SMC_NET_BUF_DEF			(128 * 1024)
/* upstream's default is 2: ours offers second links only when asked, for now */
#define SMC_NET_LINKS_DEF		2
#define SMC_NET_CONNS_DEF		255
#define SMC_NET_LGRS_DEF		1024
#define SMC_NET_LGRS_PEER_DEF		16
#define SMC_NET_ORPHANS_DEF		4096

/* ranges */
#define SMC_NET_BUF_MIN			(16 * 1024)
#define SMC_NET_BUF_MAX			(INT_MAX / 2)
#define SMC_NET_LINKS_MIN		1
#define SMC_NET_LINKS_MAX		2
#define SMC_NET_CONNS_MIN		16
#define SMC_NET_CONNS_MAX		255
#define SMC_NET_LGRS_MIN		1
#define SMC_NET_LGRS_MAX		65535
#define SMC_NET_ORPHANS_MAX		(16 * 1024 * 1024)

/* the settings of @net; valid while @net lives and the module is loaded */
const struct smc_net_cfg *smc_net_cfg(const struct net *net);

/* SMC_NETLINK_{ENABLE,DISABLE}_HS_LIMITATION: same as writing limit_smc_hs */
void smc_net_set_limit_hs(struct net *net, bool on);

int smc_sysctl_init(void);
void smc_sysctl_exit(void);

#endif /* SMC_SYSCTL_H */
