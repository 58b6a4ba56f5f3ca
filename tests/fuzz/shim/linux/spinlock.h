/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fuzz shim: single-threaded locks that abort on misuse (taking a held
 * lock, releasing a free one), so unbalanced paths show up as crashes.
 */
#ifndef SHIM_LINUX_SPINLOCK_H
#define SHIM_LINUX_SPINLOCK_H

#include <stdlib.h>
#include <linux/types.h>

typedef struct {
	bool held;
} spinlock_t;

#define DEFINE_SPINLOCK(x)	spinlock_t x = { .held = false }

static inline void shim_lock(spinlock_t *l)
{
	if (l->held)
		abort();
	l->held = true;
}

static inline void shim_unlock(spinlock_t *l)
{
	if (!l->held)
		abort();
	l->held = false;
}

#define spin_lock(l)		shim_lock(l)
#define spin_unlock(l)		shim_unlock(l)
#define spin_lock_bh(l)		shim_lock(l)
#define spin_unlock_bh(l)	shim_unlock(l)

#endif
