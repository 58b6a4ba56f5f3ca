/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smcctl stats and fallback: the module's counters (SMC_NETLINK_GET_STATS,
 * SMC_NETLINK_GET_FBACK_STATS) and the baseline `stats reset` keeps.
 */
#ifndef SMCCTL_STATS_H
#define SMCCTL_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define ST_SIZES	9	/* size classes: 8K .. 1024K, larger */
#define ST_BUFEV	7	/* buffer events, SMC_NLA_STATS_RMB_* */

/* every counter, as a flat array (so a baseline can be subtracted) */
enum {
	ST_CLNT_V1, ST_CLNT_V2, ST_SRV_V1, ST_SRV_V2,
	ST_HS_ERR_CLNT, ST_HS_ERR_SRV,
	ST_FB_CLNT, ST_FB_SRV,
	ST_RX_BYTES, ST_TX_BYTES, ST_RX_CNT, ST_TX_CNT,
	ST_CORK, ST_NDLY, ST_SENDPAGE, ST_SPLICE, ST_URG,
	ST_RX_INUSE, ST_TX_INUSE,	/* bytes in use: not counters */
	ST_RX_REQSIZE,
	ST_TX_REQSIZE = ST_RX_REQSIZE + ST_SIZES,
	ST_RX_BUFSIZE = ST_TX_REQSIZE + ST_SIZES,
	ST_TX_BUFSIZE = ST_RX_BUFSIZE + ST_SIZES,
	ST_RX_BUF = ST_TX_BUFSIZE + ST_SIZES,
	ST_TX_BUF = ST_RX_BUF + ST_BUFEV,
	ST_N = ST_TX_BUF + ST_BUFEV
};

#define FB_MAX_REASONS 64

/* one side's fallbacks per reason (the total is in the counters) */
struct side_fback {
	unsigned int n;
	uint32_t code[FB_MAX_REASONS];
	uint32_t count[FB_MAX_REASONS];
};

struct counters {
	uint64_t v[ST_N];
	struct side_fback fb[2];	/* 0 client, 1 server */
};

/* what `stats reset` remembers: the counters then, and where they were */
struct baseline {
	char boot_id[40];	/* /proc/sys/kernel/random/boot_id */
	int family;		/* SMC_GEN_NETLINK's id: new after a reload */
	uint64_t netns;		/* inode of the network namespace */
	int64_t time;		/* when, seconds since the epoch */
	struct counters c;
};

/* the baseline's name of counter @i ("rx_req_8K", ...) */
const char *st_key(unsigned int i);
/* whether counter @i only grows (a baseline applies to it) */
bool st_monotonic(unsigned int i);

/* write @b to @f; 0 or -1 (errno set) */
int baseline_write(FILE *f, const struct baseline *b);
/* read a baseline; 0, or -1 when @f does not hold one */
int baseline_read(FILE *f, struct baseline *b);
/*
 * @cur minus @base for every counter and reason; reasons whose count is
 * then 0 are dropped.  Returns -1 (and leaves @cur alone) when a counter
 * is below its baseline: the counters were reset since (module reload).
 */
int counters_sub(struct counters *cur, const struct counters *base);

#endif /* SMCCTL_STATS_H */
