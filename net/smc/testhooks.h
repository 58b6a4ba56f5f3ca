/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test hooks of the CONFIG_SMC_TESTHOOKS flavour: hostile.c makes this
 * host misbehave as a peer, faultinj.c fails chosen allocations.  Both are
 * controlled through debugfs (smc/).  Without the option every hook is an
 * empty inline and nothing of it is built.
 */
#ifndef SMC_TESTHOOKS_H
#define SMC_TESTHOOKS_H

#include <linux/types.h>

/*
 * Places where faultinj.c can make an allocation fail, each with a knob
 * in /sys/kernel/debug/smc_faultinj/ (see faultinj.c): a new RMB, a new
 * send buffer (allocation plus DMA mapping and registration), the verbs
 * resources (PD, CQ, QP) of a new link.
 */
enum smc_faultinj_site {
	SMC_FI_RMB,
	SMC_FI_SNDBUF,
	SMC_FI_QP,
	SMC_FI_SITES
};

#if IS_ENABLED(CONFIG_SMC_TESTHOOKS)
void smc_hostile_init(void);
void smc_hostile_exit(void);
void smc_faultinj_init(void);
void smc_faultinj_exit(void);
/* true: the caller must fail its allocation at @site as if memory ran out */
bool smc_faultinj_fail(enum smc_faultinj_site site);
#else
static inline void smc_hostile_init(void) { }
static inline void smc_hostile_exit(void) { }
static inline void smc_faultinj_init(void) { }
static inline void smc_faultinj_exit(void) { }
static inline bool smc_faultinj_fail(enum smc_faultinj_site site)
{
	return false;
}
#endif

#endif
