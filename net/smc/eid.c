// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: the table of user defined EIDs.
 *
 * A fixed array of at most SMC_EID_MAX_UEID blank-padded entries in the
 * order they were added, guarded by a spinlock so that the handshake can
 * look at it from process or softirq context.  Entries are validated once, when they are
 * added; everything else only compares bytes.
 */
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "eid.h"

static DEFINE_SPINLOCK(smc_eid_lock);
static u8 smc_eid_table[SMC_EID_MAX_UEID][SMC_CLC_EID_LEN];
static int smc_eid_count;		/* entries in use, from index 0 */

static char *smc_eid_param;
module_param_named(ueid, smc_eid_param, charp, 0);
MODULE_PARM_DESC(ueid,
		 "user defined EIDs to start with, comma separated (e.g. SMC-TESTBED-EID)");

/* plain ASCII: the EID character set knows no other letters */
static bool smc_eid_upper_or_digit(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

int smc_eid_normalise(const char *in, size_t len, u8 out[SMC_CLC_EID_LEN])
{
	size_t i;

	while (len && in[len - 1] == ' ')
		len--;
	if (!len || len > SMC_CLC_EID_LEN)
		return -EINVAL;
	/* this also refuses a leading blank, '.' or '-' */
	if (!smc_eid_upper_or_digit(in[0]))
		return -EINVAL;
	for (i = 1; i < len; i++) {
		if (!smc_eid_upper_or_digit(in[i]) && in[i] != '.' &&
		    in[i] != '-')
			return -EINVAL;
	}
	memcpy(out, in, len);
	memset(out + len, ' ', SMC_CLC_EID_LEN - len);
	return 0;
}

/* index of @eid in the table or -1; the caller holds smc_eid_lock */
static int smc_eid_find(const u8 *eid)
{
	int i;

	for (i = 0; i < smc_eid_count; i++) {
		if (!memcmp(smc_eid_table[i], eid, SMC_CLC_EID_LEN))
			return i;
	}
	return -1;
}

static int smc_eid_add_len(const char *s, size_t len)
{
	u8 eid[SMC_CLC_EID_LEN];
	int rc;

	rc = smc_eid_normalise(s, len, eid);
	if (rc)
		return rc;
	spin_lock_bh(&smc_eid_lock);
	/* a full table wins over a duplicate, as in Linux 6.12 */
	if (smc_eid_count >= SMC_EID_MAX_UEID) {
		rc = -ERANGE;
	} else if (smc_eid_find(eid) >= 0) {
		rc = -EEXIST;
	} else {
		memcpy(smc_eid_table[smc_eid_count], eid, SMC_CLC_EID_LEN);
		smc_eid_count++;
	}
	spin_unlock_bh(&smc_eid_lock);
	return rc;
}

int smc_eid_add(const char *s)
{
	return smc_eid_add_len(s, strlen(s));
}

int smc_eid_remove(const char *s)
{
	u8 eid[SMC_CLC_EID_LEN];
	int i, rc = -ENOENT;

	/* something that is not an EID cannot be in the table */
	if (smc_eid_normalise(s, strlen(s), eid))
		return -ENOENT;
	spin_lock_bh(&smc_eid_lock);
	i = smc_eid_find(eid);
	if (i >= 0) {
		/* close the gap, keeping the order of the others */
		memmove(smc_eid_table[i], smc_eid_table[i + 1],
			(smc_eid_count - i - 1) * SMC_CLC_EID_LEN);
		smc_eid_count--;
		memset(smc_eid_table[smc_eid_count], 0, SMC_CLC_EID_LEN);
		rc = 0;
	}
	spin_unlock_bh(&smc_eid_lock);
	return rc;
}

void smc_eid_flush(void)
{
	spin_lock_bh(&smc_eid_lock);
	memset(smc_eid_table, 0, sizeof(smc_eid_table));
	smc_eid_count = 0;
	spin_unlock_bh(&smc_eid_lock);
}

int smc_eid_ueids(u8 eids[][SMC_CLC_EID_LEN], int max)
{
	int n;

	spin_lock_bh(&smc_eid_lock);
	n = clamp(smc_eid_count, 0, max);
	memcpy(eids, smc_eid_table, n * SMC_CLC_EID_LEN);
	spin_unlock_bh(&smc_eid_lock);
	return n;
}

bool smc_eid_has_ueid(const u8 *eid)
{
	bool found;

	spin_lock_bh(&smc_eid_lock);
	found = smc_eid_find(eid) >= 0;
	spin_unlock_bh(&smc_eid_lock);
	return found;
}

/* longest piece of a bad parameter entry quoted in the log */
#define SMC_EID_LOG_MAX		40

int smc_eid_init(void)
{
	const char *p = smc_eid_param, *end;
	size_t len;
	int rc;

	while (p && *p) {
		end = strchrnul(p, ',');
		len = end - p;
		/* empty entries ("A,,B", a trailing comma) are no mistake */
		if (len) {
			rc = smc_eid_add_len(p, len);
			if (rc == -EEXIST)
				rc = 0;
			if (rc)
				pr_warn("smc: ueid \"%.*s\"%s not added: %s\n",
					(int)min_t(size_t, len, SMC_EID_LOG_MAX),
					p, len > SMC_EID_LOG_MAX ? "..." : "",
					rc == -ERANGE ? "table full" :
					"not a valid EID");
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}

void smc_eid_exit(void)
{
	smc_eid_flush();
}
