/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications over RDMA: enterprise IDs (EIDs).
 *
 * SMC v2 peers only talk when they share an EID.  The user defined EIDs
 * (UEIDs) live in one table for the whole system, filled by the module
 * parameter "ueid" and by the generic netlink UEID commands.  There is no
 * system EID (SEID) here: that comes from s390 firmware.
 *
 * An EID is 32 bytes: 1 to 32 characters out of 'A'-'Z', '0'-'9', '.' and
 * '-', the first one a letter or digit, padded with blanks to 32 bytes.
 */
#ifndef SMC_EID_H
#define SMC_EID_H

#include <linux/build_bug.h>
#include <linux/types.h>
#include <linux/smc.h>

#include "clc_wire.h"

/* table size: 4, as Linux 6.12 (a peer may still propose up to 8) */
#define SMC_EID_MAX_UEID	SMC_MAX_UEID

static_assert(SMC_CLC_EID_LEN == SMC_MAX_EID_LEN);
static_assert(SMC_EID_MAX_UEID <= SMC_CLC_MAX_UEID);

/*
 * Check the @len characters at @in (not necessarily NUL-terminated) and
 * write the blank-padded EID to @out.  Blanks at the end of @in are
 * padding and ignored.  Returns 0, or -EINVAL with @out untouched.
 */
int smc_eid_normalise(const char *in, size_t len, u8 out[SMC_CLC_EID_LEN]);

/*
 * The UEID table.  @s is a NUL-terminated EID, with or without its blank
 * padding.  smc_eid_add() returns -EINVAL (not an EID), -ERANGE (table
 * full) or -EEXIST; smc_eid_remove() -ENOENT when @s is not in the table.
 */
int smc_eid_add(const char *s);
int smc_eid_remove(const char *s);
void smc_eid_flush(void);

/*
 * For the handshake.  smc_eid_ueids() copies up to @max entries of the
 * table in the order they were added and returns how many it copied;
 * smc_eid_has_ueid() tells whether the 32 bytes at @eid are one of them.
 * Both take a spinlock (_bh): process or softirq context.
 */
int smc_eid_ueids(u8 eids[][SMC_CLC_EID_LEN], int max);
bool smc_eid_has_ueid(const u8 *eid);

/* No system EID without s390 firmware: never offered, never matched. */
static inline bool smc_eid_seid_enabled(void)
{
	return false;
}

/* Module load and unload: smc_eid_init() adds the "ueid" parameter's EIDs. */
int smc_eid_init(void);
void smc_eid_exit(void);

#endif /* SMC_EID_H */
