// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection of the test-hooks flavour: make chosen allocations fail
 * as if registered memory or queue pairs had run out, so that tests can
 * check that new connections fall back to TCP (with SMC_CLC_DECL_MEM)
 * instead of failing, and that nothing leaks on the way.
 *
 * /sys/kernel/debug/smc_faultinj/ has, per site (testhooks.h):
 *   fail_rmb_alloc, fail_sndbuf_alloc, fail_qp_create
 *       N > 0: fail the next N attempts; -1: fail every attempt; 0: off
 *       (reads give what is left);
 *   injected_rmb_alloc, injected_sndbuf_alloc, injected_qp_create
 *       (read only) failures injected so far.
 * An RMB or send buffer attempt is one buffer size: smc_buf_get() tries
 * smaller sizes after a failed one, so failing one attempt gives a
 * smaller buffer and failing all of them a fallback.
 *
 * wr_delay_ms: the next sender on a link that may sleep (an LLC message,
 * a hostile burst) sleeps this long while it holds the link's send state,
 * once (max 30000), so that the link's destruction meets a sender inside.
 * down_delay_ms: the next work item for failed links sleeps this long
 * before it looks at them, once (max 30000).
 * arm_delay_ms: the next listener child that starts to wait for its
 * client's proposal sleeps this long in the middle of it, once (max 5000).
 * rx_eof_delay_ms: the next reader that finds nothing to read sleeps this
 * long (once, max 5000) before it decides between waiting and the end of
 * the stream, so that the peer's last data and its end can both arrive
 * meanwhile; the decision must rest on what it saw before the sleep.
 * buf_syncs_cpu, buf_syncs_dev (read only): buffer ranges handed to the
 * CPU and back to the devices (smc_wr_buf_sync()), for tests on Soft-RoCE,
 * where the syncs themselves do nothing.
 *
 * Two more knobs hold race windows open for the hostile-peer tests:
 *   attach_delay_ms  a new connection sleeps this long right after it was
 *                    put into its link group's tree (0: off, max 5000);
 *   seq_tokens       1: alert tokens come from a counter, so that a peer
 *                    can guess the next one, as it could before they were
 *                    random.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/minmax.h>

#include "testhooks.h"

static const char *const smc_fi_names[SMC_FI_SITES] = {
	[SMC_FI_RMB] = "rmb_alloc",
	[SMC_FI_SNDBUF] = "sndbuf_alloc",
	[SMC_FI_QP] = "qp_create",
	[SMC_FI_RTR_DOWN] = "rtr_down",
};

static atomic_t smc_fi_left[SMC_FI_SITES];
static atomic_t smc_fi_done[SMC_FI_SITES];
static struct dentry *smc_fi_dir;
static u32 smc_fi_wr_delay_ms;
static u32 smc_fi_down_delay_ms;
static u32 smc_fi_arm_delay_ms;
static u32 smc_fi_rx_eof_delay_ms;
static atomic_t smc_fi_syncs[2];	/* to the devices, to the CPU */
static u32 smc_fi_attach_delay_ms;
static bool smc_fi_seq_tokens;

#define SMC_FI_DELAY_MAX_MS	5000

bool smc_faultinj_fail(enum smc_faultinj_site site)
{
	int left;

	if (site >= SMC_FI_SITES)
		return false;
	left = atomic_read(&smc_fi_left[site]);
	do {
		if (!left)
			return false;
		if (left < 0)
			break;		/* every attempt, the count stays */
	} while (!atomic_try_cmpxchg(&smc_fi_left[site], &left, left - 1));
	atomic_inc(&smc_fi_done[site]);
	pr_info_ratelimited("fault injection: %s failed\n", smc_fi_names[site]);
	return true;
}

void smc_faultinj_attach_delay(void)
{
	u32 ms = min_t(u32, READ_ONCE(smc_fi_attach_delay_ms),
		       SMC_FI_DELAY_MAX_MS);

	if (ms)
		msleep(ms);
}

bool smc_faultinj_seq_tokens(void)
{
	return READ_ONCE(smc_fi_seq_tokens);
}

void smc_faultinj_wr_delay(void)
{
	u32 ms = min_t(u32, xchg(&smc_fi_wr_delay_ms, 0), 30000);

	if (!ms)
		return;
	pr_info("fault injection: a sender holds its link for %u ms\n", ms);
	msleep(ms);
	pr_info("fault injection: the held sender goes on\n");
}

void smc_faultinj_buf_sync(bool for_cpu)
{
	atomic_inc(&smc_fi_syncs[for_cpu]);
}

void smc_faultinj_down_delay(void)
{
	u32 ms = min_t(u32, xchg(&smc_fi_down_delay_ms, 0), 30000);

	if (!ms)
		return;
	pr_info("fault injection: failed links handled in %u ms\n", ms);
	msleep(ms);
}

void smc_faultinj_arm_delay(void)
{
	u32 ms = min_t(u32, xchg(&smc_fi_arm_delay_ms, 0), SMC_FI_DELAY_MAX_MS);

	if (!ms)
		return;
	pr_info("fault injection: a child's handshake set-up held for %u ms\n",
		ms);
	msleep(ms);
}

void smc_faultinj_rx_eof_delay(void)
{
	u32 ms = min_t(u32, xchg(&smc_fi_rx_eof_delay_ms, 0),
		       SMC_FI_DELAY_MAX_MS);

	if (!ms)
		return;
	pr_info("fault injection: a reader with nothing to read held for %u ms\n",
		ms);
	msleep(ms);
}

void smc_faultinj_init(void)
{
	char name[32];
	int i;

	smc_fi_dir = debugfs_create_dir("smc_faultinj", NULL);
	for (i = 0; i < SMC_FI_SITES; i++) {
		snprintf(name, sizeof(name), "fail_%s", smc_fi_names[i]);
		debugfs_create_atomic_t(name, 0600, smc_fi_dir,
					&smc_fi_left[i]);
		snprintf(name, sizeof(name), "injected_%s", smc_fi_names[i]);
		debugfs_create_atomic_t(name, 0400, smc_fi_dir,
					&smc_fi_done[i]);
	}
	debugfs_create_u32("attach_delay_ms", 0600, smc_fi_dir,
			   &smc_fi_attach_delay_ms);
	debugfs_create_bool("seq_tokens", 0600, smc_fi_dir,
			    &smc_fi_seq_tokens);
	debugfs_create_u32("wr_delay_ms", 0600, smc_fi_dir,
			   &smc_fi_wr_delay_ms);
	debugfs_create_u32("down_delay_ms", 0600, smc_fi_dir,
			   &smc_fi_down_delay_ms);
	debugfs_create_u32("arm_delay_ms", 0600, smc_fi_dir,
			   &smc_fi_arm_delay_ms);
	debugfs_create_u32("rx_eof_delay_ms", 0600, smc_fi_dir,
			   &smc_fi_rx_eof_delay_ms);
	debugfs_create_atomic_t("buf_syncs_cpu", 0400, smc_fi_dir,
				&smc_fi_syncs[1]);
	debugfs_create_atomic_t("buf_syncs_dev", 0400, smc_fi_dir,
				&smc_fi_syncs[0]);
}

void smc_faultinj_exit(void)
{
	debugfs_remove(smc_fi_dir);
	smc_fi_dir = NULL;
}
