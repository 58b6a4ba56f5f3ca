/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test hooks of the CONFIG_SMC_TESTHOOKS flavour: hostile.c makes this
 * host misbehave as a peer, faultinj.c fails chosen allocations.  Both are
 * controlled through debugfs (smc/).  Without the option every hook is an
 * empty inline and nothing of it is built.
 */
#ifndef SMC_TESTHOOKS_H
#define SMC_TESTHOOKS_H

#if IS_ENABLED(CONFIG_SMC_TESTHOOKS)
void smc_hostile_init(void);
void smc_hostile_exit(void);
void smc_faultinj_init(void);
void smc_faultinj_exit(void);
#else
static inline void smc_hostile_init(void) { }
static inline void smc_hostile_exit(void) { }
static inline void smc_faultinj_init(void) { }
static inline void smc_faultinj_exit(void) { }
#endif

#endif
