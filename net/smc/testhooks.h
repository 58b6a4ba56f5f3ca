/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test hooks of the CONFIG_SMC_TESTHOOKS flavour: hostile.c makes this
 * host misbehave as a peer, faultinj.c fails chosen allocations.  Both are
 * controlled through debugfs (smc_hostile/, smc_faultinj/).  Without the
 * option every hook is an empty inline and nothing of it is built.
 *
 * The hostile hooks sit where this host sends CLC (smc_clc_send), LLC
 * (smc_llc_send) and CDC messages (smc_cdc_push_once); they cost one
 * static branch until a rule is written to debugfs smc_hostile/rules.
 */
#ifndef SMC_TESTHOOKS_H
#define SMC_TESTHOOKS_H

#include <linux/jump_label.h>
#include <linux/types.h>

struct socket;
struct smc_conn;
struct smc_link;
struct smc_wr_write;

/*
 * Places where faultinj.c can make an allocation fail, each with a knob
 * in /sys/kernel/debug/smc_faultinj/ (see faultinj.c): a new RMB, a new
 * send buffer (allocation plus DMA mapping and registration), the verbs
 * resources (PD, CQ, QP) of a new link.  Not an allocation: rtr_down
 * fails a link (as a completion error would) just after its QP went to
 * RTR, before the link's state moves on.
 */
enum smc_faultinj_site {
	SMC_FI_RMB,
	SMC_FI_SNDBUF,
	SMC_FI_QP,
	SMC_FI_RTR_DOWN,
	SMC_FI_SITES
};

#if IS_ENABLED(CONFIG_SMC_TESTHOOKS)
void smc_hostile_init(void);
void smc_hostile_exit(void);
void smc_faultinj_init(void);
void smc_faultinj_exit(void);
/* true: the caller must fail its allocation at @site as if memory ran out */
bool smc_faultinj_fail(enum smc_faultinj_site site);
/*
 * Race windows held open on purpose (smc_faultinj/attach_delay_ms): sleep
 * where a new connection has just been put in its link group's tree.
 */
void smc_faultinj_attach_delay(void);
/* smc_faultinj/seq_tokens: alert tokens as guessable as a plain counter */
bool smc_faultinj_seq_tokens(void);
/*
 * smc_faultinj/wr_delay_ms: the next sender that may sleep holds the
 * link's send state this long (once), to widen its race with the
 * link's destruction.
 */
void smc_faultinj_wr_delay(void);
/*
 * smc_faultinj/down_delay_ms: the next work item that handles failed
 * links sleeps this long first (once), so that the failed link's slot can
 * be freed and taken by a new link meanwhile.
 */
void smc_faultinj_down_delay(void);
/*
 * smc_faultinj/arm_delay_ms: the next listener child that waits for its
 * client's proposal sleeps this long (once) between the start and the end
 * of that set-up, to widen its race with the proposal's arrival.
 */
void smc_faultinj_arm_delay(void);
/*
 * smc_faultinj/rx_eof_delay_ms: the next reader that finds nothing to read
 * sleeps this long (once) before it decides to wait or to return the end.
 */
void smc_faultinj_rx_eof_delay(void);
/* smc_faultinj/buf_syncs_cpu, _dev: buffer syncs counted (RMB reads) */
void smc_faultinj_buf_sync(bool for_cpu);

DECLARE_STATIC_KEY_FALSE(smc_hostile_armed);
bool __smc_hostile_clc(struct socket *clcsock, const void *buf, size_t len,
		       int *rc);
bool __smc_hostile_llc(struct smc_link *link, u8 *buf, int *len);
void __smc_hostile_cdc(struct smc_conn *conn, u8 *buf,
		       struct smc_wr_write *w, unsigned int nw);
void __smc_hostile_cdc_sent(struct smc_conn *conn, const u8 *buf);
bool __smc_hostile_wimm_force(struct smc_conn *conn);
bool __smc_hostile_cdc_armed(void);

/*
 * CLC: true when the hostile layer took the send over (mangled, dropped
 * or repeated it); *@rc is then smc_clc_send()'s result.
 */
static inline bool smc_hostile_clc(struct socket *clcsock, const void *buf,
				   size_t len, int *rc)
{
	if (!static_branch_unlikely(&smc_hostile_armed))
		return false;
	return __smc_hostile_clc(clcsock, buf, len, rc);
}

/* LLC: may rewrite @buf / *@len in place; true means do not send. */
static inline bool smc_hostile_llc(struct smc_link *link, u8 *buf, int *len)
{
	if (!static_branch_unlikely(&smc_hostile_armed))
		return false;
	return __smc_hostile_llc(link, buf, len);
}

/*
 * CDC, before the send: may rewrite the 44-byte message and the RDMA
 * writes in place (conn->lock held).
 */
static inline void smc_hostile_cdc(struct smc_conn *conn, u8 *buf,
				   struct smc_wr_write *w, unsigned int nw)
{
	if (static_branch_unlikely(&smc_hostile_armed))
		__smc_hostile_cdc(conn, buf, w, nw);
}

/*
 * While CDC rules are armed, data goes by CDC messages only, so that those
 * rules see all of it.
 */
static inline bool smc_hostile_wimm_off(void)
{
	if (!static_branch_unlikely(&smc_hostile_armed))
		return false;
	return __smc_hostile_cdc_armed();
}

/* A "wimm force" rule: WRITE WITH IMMEDIATE though not agreed. */
static inline bool smc_hostile_wimm_force(struct smc_conn *conn)
{
	if (!static_branch_unlikely(&smc_hostile_armed))
		return false;
	return __smc_hostile_wimm_force(conn);
}

/* CDC, after a send that was taken (conn->lock held): repeats, bursts. */
static inline void smc_hostile_cdc_sent(struct smc_conn *conn, const u8 *buf)
{
	if (static_branch_unlikely(&smc_hostile_armed))
		__smc_hostile_cdc_sent(conn, buf);
}
#else
static inline void smc_hostile_init(void) { }
static inline void smc_hostile_exit(void) { }
static inline void smc_faultinj_init(void) { }
static inline void smc_faultinj_exit(void) { }
static inline bool smc_faultinj_fail(enum smc_faultinj_site site)
{
	return false;
}

static inline void smc_faultinj_attach_delay(void) { }
static inline bool smc_faultinj_seq_tokens(void)
{
	return false;
}

static inline void smc_faultinj_wr_delay(void) { }
static inline void smc_faultinj_down_delay(void) { }
static inline void smc_faultinj_arm_delay(void) { }
static inline void smc_faultinj_rx_eof_delay(void) { }
static inline void smc_faultinj_buf_sync(bool for_cpu) { }

static inline bool smc_hostile_clc(struct socket *clcsock, const void *buf,
				   size_t len, int *rc)
{
	return false;
}

static inline bool smc_hostile_llc(struct smc_link *link, u8 *buf, int *len)
{
	return false;
}

static inline void smc_hostile_cdc(struct smc_conn *conn, u8 *buf,
				   struct smc_wr_write *w, unsigned int nw)
{
}

static inline void smc_hostile_cdc_sent(struct smc_conn *conn, const u8 *buf)
{
}

static inline bool smc_hostile_wimm_off(void)
{
	return false;
}

static inline bool smc_hostile_wimm_force(struct smc_conn *conn)
{
	return false;
}
#endif

#endif
