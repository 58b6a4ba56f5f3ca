// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: generic netlink family
 * "SMC_GEN_NETLINK", the interface smc-tools (smcr, smcd, smc_rnics) use.
 *
 * Commands, attributes and nesting follow include/uapi/linux/smc.h, which
 * keeps the numbering of Linux 6.12.  Implemented: system information,
 * statistics and fallback statistics, the RoCE devices (ib.c), the SMC-R
 * link groups and their links (snapshots from lgr.c), the UEID table
 * (eid.c), plus the SMC-D queries, which are always empty because this
 * module drives no ISM device.  Without s390 firmware there is no system
 * EID: its dump is empty and enabling or disabling it is -EOPNOTSUPP, as
 * in Linux 6.12.  The handshake limitation commands are answered with
 * -EOPNOTSUPP until the module has that state; the state-changing ones
 * already require CAP_NET_ADMIN.
 */
#include <linux/capability.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/utsname.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <linux/smc.h>

#include "smc.h"
#include "clc_nego.h"
#include "clc_wire.h"
#include "core.h"
#include "eid.h"
#include "ib.h"
#include "pnet.h"
#include "stats.h"

/* what SMC_NETLINK_GET_SYS_INFO announces */
#define SMC_NL_SYS_VERSION	SMC_V2	/* highest CLC version spoken */
#define SMC_NL_SYS_RELEASE	1	/* release within SMC_V2 */

/* position of a dump between calls, kept in netlink_callback::ctx */
struct smc_nl_dump_ctx {
	unsigned int pos;
	bool totals_sent;
};

static_assert(sizeof(struct smc_nl_dump_ctx) <=
	      sizeof_field(struct netlink_callback, ctx));

static struct smc_nl_dump_ctx *smc_nl_ctx(struct netlink_callback *cb)
{
	return (struct smc_nl_dump_ctx *)cb->ctx;
}

static struct genl_family smc_gen_nl_family;

static void *smc_nl_put_hdr(struct sk_buff *skb, struct netlink_callback *cb,
			    u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   &smc_gen_nl_family, NLM_F_MULTI, cmd);
}

/*
 * Result of a dump callback after a message did not fit: if the skb holds
 * earlier messages the core sends them and calls again; a message that does
 * not fit into an empty skb never will.
 */
static int smc_nl_dump_full(struct sk_buff *skb)
{
	return skb->len ? skb->len : -EMSGSIZE;
}

/* --- SMC_NETLINK_GET_SYS_INFO --- */

static int smc_nl_get_sys_info(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct smc_nl_dump_ctx *ctx = smc_nl_ctx(cb);
	char host[SMC_MAX_HOSTNAME_LEN + 1];
	struct nlattr *nest;
	size_t len;
	void *hdr;

	if (ctx->pos)
		return 0;
	/*
	 * The CLC handshake sends the first SMC_MAX_HOSTNAME_LEN bytes of the
	 * initial namespace's node name, padded with blanks: report the same.
	 */
	len = strnlen(init_utsname()->nodename, SMC_MAX_HOSTNAME_LEN);
	memcpy(host, init_utsname()->nodename, len);
	memset(host + len, ' ', SMC_MAX_HOSTNAME_LEN - len);
	host[SMC_MAX_HOSTNAME_LEN] = '\0';

	hdr = smc_nl_put_hdr(skb, cb, SMC_NETLINK_GET_SYS_INFO);
	if (!hdr)
		return smc_nl_dump_full(skb);
	nest = nla_nest_start(skb, SMC_GEN_SYS_INFO);
	if (!nest)
		goto cancel;
	if (nla_put_u8(skb, SMC_NLA_SYS_VER, SMC_NL_SYS_VERSION) ||
	    nla_put_u8(skb, SMC_NLA_SYS_REL, SMC_NL_SYS_RELEASE) ||
	    nla_put_u8(skb, SMC_NLA_SYS_IS_ISM_V2, 0) ||
	    nla_put_u8(skb, SMC_NLA_SYS_IS_SMCR_V2,
		       SMC_NL_SYS_VERSION >= SMC_V2) ||
	    nla_put_string(skb, SMC_NLA_SYS_LOCAL_HOST, host))
		goto cancel_nest;
	/* SMC_NLA_SYS_SEID exists only with an ISMv2 device */
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	ctx->pos = 1;
	return skb->len;

cancel_nest:
	nla_nest_cancel(skb, nest);
cancel:
	genlmsg_cancel(skb, hdr);
	return smc_nl_dump_full(skb);
}

/* --- SMC_NETLINK_GET_STATS --- */

static int smc_nl_put_u64(struct sk_buff *skb, int type, u64 val, int pad)
{
	return nla_put_u64_64bit(skb, type, val, pad);
}

/* one size histogram, attributes SMC_NLA_STATS_PLOAD_8K.._G_1024K */
static int smc_nl_put_sizes(struct sk_buff *skb, int type, const u64 *buf)
{
	struct nlattr *nest;
	int i;

	BUILD_BUG_ON(SMC_NLA_STATS_PLOAD_MAX != SMC_STATS_BUF_MAX);
	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < SMC_STATS_BUF_MAX; i++) {
		if (smc_nl_put_u64(skb, SMC_NLA_STATS_PLOAD_8K + i, buf[i],
				   SMC_NLA_STATS_PLOAD_PAD))
			goto cancel;
	}
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int smc_nl_put_rmb(struct sk_buff *skb, int type,
			  const struct smc_stats_rmb *rmb)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if (smc_nl_put_u64(skb, SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT,
			   rmb->size_small_peer, SMC_NLA_STATS_RMB_PAD) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_RMB_SIZE_SM_CNT,
			   rmb->size_small, SMC_NLA_STATS_RMB_PAD) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_RMB_FULL_PEER_CNT,
			   rmb->full_peer, SMC_NLA_STATS_RMB_PAD) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_RMB_FULL_CNT,
			   rmb->full, SMC_NLA_STATS_RMB_PAD) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_RMB_REUSE_CNT,
			   rmb->reuse, SMC_NLA_STATS_RMB_PAD) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_RMB_ALLOC_CNT,
			   rmb->alloc, SMC_NLA_STATS_RMB_PAD) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_RMB_DGRADE_CNT,
			   rmb->dgrade, SMC_NLA_STATS_RMB_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* SMC_NLA_STATS_SMCD_TECH or SMC_NLA_STATS_SMCR_TECH */
static int smc_nl_put_tech(struct sk_buff *skb, int type,
			   const struct smc_stats_tech *t)
{
	const int pad = SMC_NLA_STATS_T_PAD;
	struct nlattr *nest;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if (smc_nl_put_sizes(skb, SMC_NLA_STATS_T_TX_RMB_SIZE, t->tx_rmbsize) ||
	    smc_nl_put_sizes(skb, SMC_NLA_STATS_T_RX_RMB_SIZE, t->rx_rmbsize) ||
	    smc_nl_put_sizes(skb, SMC_NLA_STATS_T_TXPLOAD_SIZE, t->tx_pd) ||
	    smc_nl_put_sizes(skb, SMC_NLA_STATS_T_RXPLOAD_SIZE, t->rx_pd) ||
	    smc_nl_put_rmb(skb, SMC_NLA_STATS_T_TX_RMB_STATS, &t->rmb_tx) ||
	    smc_nl_put_rmb(skb, SMC_NLA_STATS_T_RX_RMB_STATS, &t->rmb_rx) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_T_CLNT_V1_SUCC,
			   t->clnt_v1_succ, pad) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_T_CLNT_V2_SUCC,
			   t->clnt_v2_succ, pad) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_T_SRV_V1_SUCC,
			   t->srv_v1_succ, pad) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_T_SRV_V2_SUCC,
			   t->srv_v2_succ, pad) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_T_SENDPAGE_CNT,
			   t->sendpage, pad) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_T_SPLICE_CNT, t->splice, pad) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_T_CORK_CNT, t->cork, pad) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_T_NDLY_CNT, t->ndly, pad) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_T_URG_DATA_CNT,
			   t->urg_data, pad) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_T_RX_BYTES, t->rx_bytes, pad) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_T_TX_BYTES, t->tx_bytes, pad) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_T_RX_CNT, t->rx_cnt, pad) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_T_TX_CNT, t->tx_cnt, pad) ||
	    nla_put_uint(skb, SMC_NLA_STATS_T_RX_RMB_USAGE, t->rx_rmbuse) ||
	    nla_put_uint(skb, SMC_NLA_STATS_T_TX_RMB_USAGE, t->tx_rmbuse)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * One message: SMC_GEN_STATS { SMCD_TECH {...}, SMCR_TECH {...},
 * CLNT_HS_ERR_CNT, SRV_HS_ERR_CNT }.  The SMC-D part is all zeroes.
 */
static int smc_nl_get_stats(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct smc_nl_dump_ctx *ctx = smc_nl_ctx(cb);
	struct smc_stats_tech *smcd;
	struct smc_stats_pcpu *sum;
	struct nlattr *nest;
	void *hdr;
	int rc;

	if (ctx->pos)
		return 0;
	sum = kzalloc(sizeof(*sum), GFP_KERNEL);
	smcd = kzalloc(sizeof(*smcd), GFP_KERNEL);
	if (!sum || !smcd) {
		rc = -ENOMEM;
		goto out;
	}
	smc_stats_sum(sock_net(skb->sk), sum);

	rc = smc_nl_dump_full(skb);
	hdr = smc_nl_put_hdr(skb, cb, SMC_NETLINK_GET_STATS);
	if (!hdr)
		goto out;
	nest = nla_nest_start(skb, SMC_GEN_STATS);
	if (!nest)
		goto cancel;
	if (smc_nl_put_tech(skb, SMC_NLA_STATS_SMCD_TECH, smcd) ||
	    smc_nl_put_tech(skb, SMC_NLA_STATS_SMCR_TECH, &sum->smcr) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_CLNT_HS_ERR_CNT,
			   sum->hs_err[SMC_STATS_CLNT], SMC_NLA_STATS_PAD) ||
	    smc_nl_put_u64(skb, SMC_NLA_STATS_SRV_HS_ERR_CNT,
			   sum->hs_err[SMC_STATS_SRV], SMC_NLA_STATS_PAD)) {
		nla_nest_cancel(skb, nest);
		goto cancel;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	ctx->pos = 1;
	rc = skb->len;
	goto out;

cancel:
	genlmsg_cancel(skb, hdr);
	rc = smc_nl_dump_full(skb);
out:
	kfree(smcd);
	kfree(sum);
	return rc;
}

/* --- SMC_NETLINK_GET_FBACK_STATS --- */

/*
 * One message per used (side, reason) slot: SMC_GEN_FBACK_STATS { TYPE,
 * RSN_CODE, RSN_CNT }, slot by slot with the server entry before the client
 * entry, as upstream does.  The first message also carries both side totals.
 */
static int smc_nl_put_fback(struct sk_buff *skb, struct netlink_callback *cb,
			    enum smc_stats_side side, u32 reason, u32 count)
{
	struct smc_nl_dump_ctx *ctx = smc_nl_ctx(cb);
	struct net *net = sock_net(skb->sk);
	struct nlattr *nest;
	void *hdr;

	hdr = smc_nl_put_hdr(skb, cb, SMC_NETLINK_GET_FBACK_STATS);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, SMC_GEN_FBACK_STATS);
	if (!nest)
		goto cancel;
	if (nla_put_u8(skb, SMC_NLA_FBACK_STATS_TYPE, side == SMC_STATS_SRV))
		goto cancel_nest;
	if (!ctx->totals_sent &&
	    (nla_put_u64_64bit(skb, SMC_NLA_FBACK_STATS_SRV_CNT,
			       smc_stats_fback_total(net, SMC_STATS_SRV),
			       SMC_NLA_FBACK_STATS_PAD) ||
	     nla_put_u64_64bit(skb, SMC_NLA_FBACK_STATS_CLNT_CNT,
			       smc_stats_fback_total(net, SMC_STATS_CLNT),
			       SMC_NLA_FBACK_STATS_PAD)))
		goto cancel_nest;
	/* the attribute is a u16: saturate rather than wrap */
	if (nla_put_u32(skb, SMC_NLA_FBACK_STATS_RSN_CODE, reason) ||
	    nla_put_u16(skb, SMC_NLA_FBACK_STATS_RSN_CNT,
			min_t(u32, count, U16_MAX)))
		goto cancel_nest;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	ctx->totals_sent = true;
	return 0;

cancel_nest:
	nla_nest_cancel(skb, nest);
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int smc_nl_get_fback_stats(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct smc_nl_dump_ctx *ctx = smc_nl_ctx(cb);
	struct net *net = sock_net(skb->sk);
	enum smc_stats_side side;
	unsigned int idx;
	u32 reason, count;

	/* pos counts (slot, side) pairs: 2 * slot, +1 for the client side */
	for (; ctx->pos < 2 * SMC_STATS_FBACK_SLOTS; ctx->pos++) {
		idx = ctx->pos / 2;
		side = ctx->pos % 2 ? SMC_STATS_CLNT : SMC_STATS_SRV;
		if (!smc_stats_fback_slot(net, side, idx, &reason, &count)) {
			/* slots are used in order: stop where both sides end */
			if (side == SMC_STATS_SRV &&
			    !smc_stats_fback_slot(net, SMC_STATS_CLNT, idx,
						  &reason, &count))
				break;
			continue;
		}
		if (smc_nl_put_fback(skb, cb, side, reason, count))
			return smc_nl_dump_full(skb);
	}
	ctx->pos = 2 * SMC_STATS_FBACK_SLOTS;
	return skb->len;
}

/* --- SMC_NETLINK_GET_DEV_SMCR --- */

/*
 * One port: SMC_NLA_DEV_PORT or SMC_NLA_DEV_PORT2 { PNET_USR, PNETID,
 * NETDEV, VALID, STATE, LNK_CNT }, the set upstream emits for each port
 * the device has.  The PNET ID is the PNET table's (PNET_USR 1) or empty;
 * no links are counted yet.
 */
static int smc_nl_put_dev_port(struct sk_buff *skb, int type,
			       const char *name, u8 num,
			       const struct smc_ib_port *port)
{
	char pnetid[SMC_PNET_LEN + 1] = {};
	struct nlattr *nest;
	bool user;

	user = !smc_pnet_of_ibname(name, num, (u8 *)pnetid);
	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, SMC_NLA_DEV_PORT_PNET_USR, user) ||
	    nla_put_string(skb, SMC_NLA_DEV_PORT_PNETID, pnetid) ||
	    nla_put_u32(skb, SMC_NLA_DEV_PORT_NETDEV, port->ifindex) ||
	    nla_put_u8(skb, SMC_NLA_DEV_PORT_VALID, 1) ||
	    nla_put_u8(skb, SMC_NLA_DEV_PORT_STATE, port->active) ||
	    nla_put_u32(skb, SMC_NLA_DEV_PORT_LNK_CNT, 0)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * One message per device: SMC_GEN_DEV_SMCR { IS_CRIT, PCI_* (only for a
 * device on a PCI function; FID and CHID are s390 values, 0 here),
 * IB_NAME, PORT, PORT2 }.
 */
static int smc_nl_put_dev_smcr(struct sk_buff *skb,
			       struct netlink_callback *cb,
			       const struct smc_ib_dev_info *info)
{
	struct nlattr *nest;
	void *hdr;
	int i;

	hdr = smc_nl_put_hdr(skb, cb, SMC_NETLINK_GET_DEV_SMCR);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, SMC_GEN_DEV_SMCR);
	if (!nest)
		goto cancel;
	/* critical: the only link of a link group; there are no links yet */
	if (nla_put_u8(skb, SMC_NLA_DEV_IS_CRIT, 0))
		goto cancel_nest;
	if (info->pci &&
	    (nla_put_u32(skb, SMC_NLA_DEV_PCI_FID, 0) ||
	     nla_put_u16(skb, SMC_NLA_DEV_PCI_CHID, 0) ||
	     nla_put_u16(skb, SMC_NLA_DEV_PCI_VENDOR, info->pci_vendor) ||
	     nla_put_u16(skb, SMC_NLA_DEV_PCI_DEVICE, info->pci_device) ||
	     nla_put_string(skb, SMC_NLA_DEV_PCI_ID, info->pci_id)))
		goto cancel_nest;
	if (nla_put_string(skb, SMC_NLA_DEV_IB_NAME, info->name))
		goto cancel_nest;
	/* SMC_NLA_DEV_PORT2 follows SMC_NLA_DEV_PORT, and there is no 3rd */
	static_assert(SMC_NLA_DEV_PORT + SMC_IB_MAX_PORTS - 1 ==
		      SMC_NLA_DEV_PORT2);
	for (i = 0; i < SMC_IB_MAX_PORTS; i++) {
		if (info->port[i].valid &&
		    smc_nl_put_dev_port(skb, SMC_NLA_DEV_PORT + i, info->name,
					i + 1, &info->port[i]))
			goto cancel_nest;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;

cancel_nest:
	nla_nest_cancel(skb, nest);
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int smc_nl_get_dev_smcr(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	struct smc_nl_dump_ctx *ctx = smc_nl_ctx(cb);
	struct smc_ib_dev_info *info;
	unsigned int next;
	int rc = 0;

	info = kmalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	for (next = ctx->pos;
	     !smc_ib_dev_info(sock_net(skb->sk), &next, info);
	     ctx->pos = next) {
		if (smc_nl_put_dev_smcr(skb, cb, info)) {
			rc = smc_nl_dump_full(skb);
			break;
		}
		rc = skb->len;
	}
	kfree(info);
	return rc;
}

/* --- SMC_NETLINK_GET_LGR_SMCR and SMC_NETLINK_GET_LINK_SMCR --- */

/* values of SMC_NLA_LGR_R_ROLE, _TYPE, _BUF_TYPE and SMC_NLA_LINK_STATE */
#define SMC_NL_ROLE_CLIENT	0
#define SMC_NL_ROLE_SERVER	1
#define SMC_NL_LGR_NONE		0	/* no active link */
#define SMC_NL_LGR_SINGLE	1	/* one link, one RDMA device each side */
#define SMC_NL_LGR_SYMMETRIC	2	/* two links */
#define SMC_NL_BUF_PHYS_CONT	0	/* physically contiguous buffers */
#define SMC_NL_LINK_UNUSED	0
#define SMC_NL_LINK_INACTIVE	1
#define SMC_NL_LINK_ACTIVATING	2
#define SMC_NL_LINK_ACTIVE	3

/* a GID as 8 big-endian groups of 4 hex digits, colon separated */
#define SMC_NL_GID_STR_LEN	(8 * 4 + 7)

static u32 smc_nl_link_state(enum smc_link_state st)
{
	switch (st) {
	case SMC_LINK_INIT:
	case SMC_LINK_ACTIVATING:
		return SMC_NL_LINK_ACTIVATING;
	case SMC_LINK_ACTIVE:
		return SMC_NL_LINK_ACTIVE;
	case SMC_LINK_DOWN:
		return SMC_NL_LINK_INACTIVE;
	default:
		return SMC_NL_LINK_UNUSED;
	}
}

static void smc_nl_gid_str(char *buf, const u8 *gid)
{
	int i;

	for (i = 0; i < SMC_IB_GID_LEN; i += 2)
		buf += sprintf(buf, i ? ":%02x%02x" : "%02x%02x", gid[i],
			       gid[i + 1]);
}

static int smc_nl_put_gid(struct sk_buff *skb, int type, const u8 *gid)
{
	char str[SMC_NL_GID_STR_LEN + 1];

	smc_nl_gid_str(str, gid);
	return nla_put_string(skb, type, str);
}

/* the u32 attributes of ids and uids carry the 4 bytes as they are */
static u32 smc_nl_raw_u32(const u8 *bytes)
{
	u32 v;

	memcpy(&v, bytes, sizeof(v));
	return v;
}

/*
 * SMC_NLA_LGR_R_V2_COMMON { VER, REL, OS, PEER_HOST, NEG_EID } and
 * SMC_NLA_LGR_R_V2 { DIRECT, MAX_CONNS, MAX_LINKS }, side by side in the
 * link group's nest, for an SMC-R v2 link group.
 */
static int smc_nl_put_lgr_v2(struct sk_buff *skb,
			     const struct smc_lgr_info *info)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, SMC_NLA_LGR_R_V2_COMMON);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, SMC_NLA_LGR_V2_VER, info->version) ||
	    nla_put_u8(skb, SMC_NLA_LGR_V2_REL, info->release) ||
	    nla_put_u8(skb, SMC_NLA_LGR_V2_OS, info->peer_os) ||
	    nla_put_string(skb, SMC_NLA_LGR_V2_PEER_HOST,
			   info->peer_hostname) ||
	    nla_put_string(skb, SMC_NLA_LGR_V2_NEG_EID, info->neg_eid))
		goto cancel;
	nla_nest_end(skb, nest);

	nest = nla_nest_start(skb, SMC_NLA_LGR_R_V2);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, SMC_NLA_LGR_R_V2_DIRECT, info->direct) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_V2_MAX_CONNS, info->max_conns) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_V2_MAX_LINKS, info->max_links))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* The uapi's SMC_VX_* bits for the negotiation's SMC_NEGO_VX_* ones. */
static u32 smc_nl_vx(u16 vx)
{
	return (vx & SMC_NEGO_VX_WIMM ? SMC_VX_WIMM : 0) |
	       (vx & SMC_NEGO_VX_IWARP ? SMC_VX_IWARP : 0) |
	       (vx & SMC_NEGO_VX_GROW ? SMC_VX_GROW : 0);
}

/* by active links; the asymmetric types (one side with two devices) are
 * not told apart from SYMMETRIC
 */
static u8 smc_nl_lgr_type(const struct smc_lgr_info *info)
{
	unsigned int i, active = 0;

	for (i = 0; i < info->nlinks; i++)
		if (info->links[i].state == SMC_LINK_ACTIVE)
			active++;
	if (!active)
		return SMC_NL_LGR_NONE;
	return active == 1 ? SMC_NL_LGR_SINGLE : SMC_NL_LGR_SYMMETRIC;
}

/*
 * One message SMC_NETLINK_GET_LGR_SMCR: SMC_GEN_LGR_SMCR { ID, CONNS_NUM,
 * ROLE, TYPE, BUF_TYPE, VLAN_ID, NET_COOKIE, PNETID, SNDBUF_ALLOC,
 * RMB_ALLOC (bytes), v2 nests }.  The PNET ID is that of the first link's
 * RDMA port when the lgr was made.
 */
static int smc_nl_put_lgr(struct sk_buff *skb, struct netlink_callback *cb,
			  const struct smc_lgr_info *info)
{
	struct nlattr *nest;
	void *hdr;

	hdr = smc_nl_put_hdr(skb, cb, SMC_NETLINK_GET_LGR_SMCR);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, SMC_GEN_LGR_SMCR);
	if (!nest)
		goto cancel;
	if (nla_put_u32(skb, SMC_NLA_LGR_R_ID, smc_nl_raw_u32(info->id)) ||
	    nla_put_u32(skb, SMC_NLA_LGR_R_CONNS_NUM, info->conns_num) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_ROLE,
		       info->server ? SMC_NL_ROLE_SERVER : SMC_NL_ROLE_CLIENT) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_TYPE, smc_nl_lgr_type(info)) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_BUF_TYPE, SMC_NL_BUF_PHYS_CONT) ||
	    /* a u8 attribute, as upstream: VLAN ids above 255 are cut */
	    nla_put_u8(skb, SMC_NLA_LGR_R_VLAN_ID, (u8)info->vlan) ||
	    nla_put_u64_64bit(skb, SMC_NLA_LGR_R_NET_COOKIE, info->net_cookie,
			      SMC_NLA_LGR_R_PAD) ||
	    nla_put_string(skb, SMC_NLA_LGR_R_PNETID, info->pnetid) ||
	    nla_put_uint(skb, SMC_NLA_LGR_R_SNDBUF_ALLOC, info->sndbuf_bytes) ||
	    nla_put_uint(skb, SMC_NLA_LGR_R_RMB_ALLOC, info->rmb_bytes) ||
	    nla_put_u32(skb, SMC_NLA_LGR_R_EXT_VX, smc_nl_vx(info->vx)))
		goto cancel_nest;
	if (info->version >= SMC_V2 && smc_nl_put_lgr_v2(skb, info))
		goto cancel_nest;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;

cancel_nest:
	nla_nest_cancel(skb, nest);
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * One message SMC_NETLINK_GET_LINK_SMCR: SMC_GEN_LINK_SMCR { ID, STATE,
 * CONN_CNT, IB_PORT, NET_DEV, IB_DEV, UID, PEER_UID, GID, PEER_GID }.
 * The link carries no lgr id: it belongs to the lgr message before it.
 */
static int smc_nl_put_link(struct sk_buff *skb, struct netlink_callback *cb,
			   const struct smc_link_info *link)
{
	struct nlattr *nest;
	void *hdr;

	hdr = smc_nl_put_hdr(skb, cb, SMC_NETLINK_GET_LINK_SMCR);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, SMC_GEN_LINK_SMCR);
	if (!nest)
		goto cancel;
	if (nla_put_u8(skb, SMC_NLA_LINK_ID, link->link_id) ||
	    nla_put_u32(skb, SMC_NLA_LINK_STATE,
			smc_nl_link_state(link->state)) ||
	    nla_put_u32(skb, SMC_NLA_LINK_CONN_CNT, link->conns) ||
	    nla_put_u8(skb, SMC_NLA_LINK_IB_PORT, link->port) ||
	    nla_put_u32(skb, SMC_NLA_LINK_NET_DEV, link->ifindex) ||
	    nla_put_string(skb, SMC_NLA_LINK_IB_DEV, link->ibname) ||
	    nla_put_u32(skb, SMC_NLA_LINK_UID,
			smc_nl_raw_u32(link->link_uid)) ||
	    nla_put_u32(skb, SMC_NLA_LINK_PEER_UID,
			smc_nl_raw_u32(link->peer_link_uid)) ||
	    smc_nl_put_gid(skb, SMC_NLA_LINK_GID, link->gid) ||
	    smc_nl_put_gid(skb, SMC_NLA_LINK_PEER_GID, link->peer_gid) ||
	    nla_put_u64_64bit(skb, SMC_NLA_LINK_EXT_TX_WIMM, link->tx_wimm,
			      SMC_NLA_LINK_EXT_PAD) ||
	    nla_put_u64_64bit(skb, SMC_NLA_LINK_EXT_RX_WIMM, link->rx_wimm,
			      SMC_NLA_LINK_EXT_PAD))
		goto cancel_nest;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;

cancel_nest:
	nla_nest_cancel(skb, nest);
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * A link group's message and, with @links, one message per link that is
 * being activated or active, as one unit: all of them or none.
 */
static int smc_nl_put_lgr_unit(struct sk_buff *skb,
			       struct netlink_callback *cb,
			       const struct smc_lgr_info *info, bool links)
{
	void *mark = skb_tail_pointer(skb);
	unsigned int i;

	if (smc_nl_put_lgr(skb, cb, info))
		return -EMSGSIZE;
	for (i = 0; links && i < info->nlinks; i++) {
		if (smc_nl_link_state(info->links[i].state) <
		    SMC_NL_LINK_ACTIVATING)
			continue;
		if (smc_nl_put_link(skb, cb, &info->links[i])) {
			nlmsg_trim(skb, mark);
			return -EMSGSIZE;
		}
	}
	return 0;
}

static int smc_nl_dump_lgrs(struct sk_buff *skb, struct netlink_callback *cb,
			    bool links)
{
	struct smc_nl_dump_ctx *ctx = smc_nl_ctx(cb);
	struct smc_lgr_info *info;
	unsigned int next;
	int rc = 0;

	info = kmalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	for (next = ctx->pos;
	     !smc_lgr_info(sock_net(skb->sk), &next, info);
	     ctx->pos = next) {
		if (smc_nl_put_lgr_unit(skb, cb, info, links)) {
			rc = smc_nl_dump_full(skb);
			break;
		}
		rc = skb->len;
	}
	kfree(info);
	return rc;
}

static int smc_nl_get_lgr_smcr(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	return smc_nl_dump_lgrs(skb, cb, false);
}

static int smc_nl_get_link_smcr(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	return smc_nl_dump_lgrs(skb, cb, true);
}

/* --- SMC-D queries: no ISM devices, so never anything to report --- */

static int smc_nl_dump_none(struct sk_buff *skb, struct netlink_callback *cb)
{
	return 0;
}

/* --- SMC_NETLINK_DUMP_UEID: one message per table entry --- */

static int smc_nl_dump_ueid(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct smc_nl_dump_ctx *ctx = smc_nl_ctx(cb);
	u8 eids[SMC_EID_MAX_UEID][SMC_CLC_EID_LEN];
	char str[SMC_MAX_EID_LEN + 1];
	unsigned int n;
	void *hdr;

	/* a snapshot per call; pos counts the entries already sent */
	n = smc_eid_ueids(eids, SMC_EID_MAX_UEID);
	for (; ctx->pos < n; ctx->pos++) {
		hdr = smc_nl_put_hdr(skb, cb, SMC_NETLINK_DUMP_UEID);
		if (!hdr)
			return smc_nl_dump_full(skb);
		memcpy(str, eids[ctx->pos], SMC_MAX_EID_LEN);
		str[SMC_MAX_EID_LEN] = '\0';
		if (nla_put_string(skb, SMC_NLA_EID_TABLE_ENTRY, str)) {
			genlmsg_cancel(skb, hdr);
			return smc_nl_dump_full(skb);
		}
		genlmsg_end(skb, hdr);
	}
	return skb->len;
}

/* --- SMC_NETLINK_{ADD,REMOVE,FLUSH}_UEID --- */

/*
 * The entry of an ADD or REMOVE request: 32 blank-padded characters and a
 * NUL (the policy has refused longer strings and ones without the NUL).
 * Returns it, NULL when the attribute is missing or of another length, or
 * an ERR_PTR(-EINVAL) when a NUL hides inside the 32 characters.
 */
static const char *smc_nl_eid_entry(struct genl_info *info)
{
	const struct nlattr *nla = info->attrs[SMC_NLA_EID_TABLE_ENTRY];
	const char *eid;

	if (!nla || nla_len(nla) != SMC_MAX_EID_LEN + 1) {
		GENL_SET_ERR_MSG(info, "EID must be 32 characters and a NUL");
		return NULL;
	}
	eid = nla_data(nla);
	if (strnlen(eid, SMC_MAX_EID_LEN) != SMC_MAX_EID_LEN)
		return ERR_PTR(-EINVAL);
	return eid;
}

static int smc_nl_add_ueid(struct sk_buff *skb, struct genl_info *info)
{
	const char *eid = smc_nl_eid_entry(info);
	int rc;

	if (IS_ERR_OR_NULL(eid))
		rc = -EINVAL;
	else
		rc = smc_eid_add(eid);
	switch (rc) {
	case -EINVAL:
		if (eid)
			GENL_SET_ERR_MSG(info, "not a valid EID");
		break;
	case -ERANGE:
		GENL_SET_ERR_MSG(info, "UEID table is full");
		break;
	case -EEXIST:
		GENL_SET_ERR_MSG(info, "UEID already in the table");
		break;
	}
	return rc;
}

static int smc_nl_remove_ueid(struct sk_buff *skb, struct genl_info *info)
{
	const char *eid = smc_nl_eid_entry(info);

	if (!eid)
		return -EINVAL;
	/* something that is not an EID is simply not in the table */
	if (IS_ERR(eid) || smc_eid_remove(eid)) {
		GENL_SET_ERR_MSG(info, "UEID not in the table");
		return -ENOENT;
	}
	return 0;
}

static int smc_nl_flush_ueid(struct sk_buff *skb, struct genl_info *info)
{
	smc_eid_flush();
	return 0;
}

/* --- SMC_NETLINK_DUMP_SEID: one empty message when there is no ISMv2 --- */

static int smc_nl_dump_seid(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct smc_nl_dump_ctx *ctx = smc_nl_ctx(cb);
	void *hdr;

	if (ctx->pos)
		return 0;
	hdr = smc_nl_put_hdr(skb, cb, SMC_NETLINK_DUMP_SEID);
	if (!hdr)
		return smc_nl_dump_full(skb);
	genlmsg_end(skb, hdr);
	ctx->pos = 1;
	return skb->len;
}

/* --- SMC_NETLINK_{ENABLE,DISABLE}_SEID: there is no system EID --- */

static int smc_nl_no_seid(struct sk_buff *skb, struct genl_info *info)
{
	GENL_SET_ERR_MSG(info, "no system EID on this platform");
	return -EOPNOTSUPP;
}

/*
 * State-changing commands whose state does not exist yet.  The core has
 * checked the capability and validated the attributes before this runs.
 */
static int smc_nl_not_supported(struct sk_buff *skb, struct genl_info *info)
{
	GENL_SET_ERR_MSG(info, "not supported by this SMC module");
	return -EOPNOTSUPP;
}

static const struct nla_policy smc_nl_ueid_policy[SMC_NLA_EID_TABLE_MAX + 1] = {
	[SMC_NLA_EID_TABLE_UNSPEC]	= { .type = NLA_REJECT },
	[SMC_NLA_EID_TABLE_ENTRY]	= { .type = NLA_STRING,
					    .len = SMC_MAX_EID_LEN },
};

/*
 * The command not listed (DUMP_HS_LIMITATION) is answered by the
 * genetlink core with -EOPNOTSUPP.
 * The UEID table is global, hence GENL_ADMIN_PERM (initial
 * user namespace); the handshake limitation is per network namespace,
 * hence GENL_UNS_ADMIN_PERM (CAP_NET_ADMIN over that namespace).
 */
static const struct genl_ops smc_gen_nl_ops[] = {
	{
		.cmd = SMC_NETLINK_GET_SYS_INFO,
		.dumpit = smc_nl_get_sys_info,
	},
	{
		.cmd = SMC_NETLINK_GET_DEV_SMCR,
		.dumpit = smc_nl_get_dev_smcr,
	},
	{
		.cmd = SMC_NETLINK_GET_LGR_SMCR,
		.dumpit = smc_nl_get_lgr_smcr,
	},
	{
		.cmd = SMC_NETLINK_GET_LINK_SMCR,
		.dumpit = smc_nl_get_link_smcr,
	},
	{
		.cmd = SMC_NETLINK_GET_LGR_SMCD,
		.dumpit = smc_nl_dump_none,
	},
	{
		.cmd = SMC_NETLINK_GET_DEV_SMCD,
		.dumpit = smc_nl_dump_none,
	},
	{
		.cmd = SMC_NETLINK_GET_STATS,
		.dumpit = smc_nl_get_stats,
	},
	{
		.cmd = SMC_NETLINK_GET_FBACK_STATS,
		.dumpit = smc_nl_get_fback_stats,
	},
	{
		.cmd = SMC_NETLINK_DUMP_UEID,
		.dumpit = smc_nl_dump_ueid,
	},
	{
		.cmd = SMC_NETLINK_ADD_UEID,
		.flags = GENL_ADMIN_PERM,
		.doit = smc_nl_add_ueid,
		.policy = smc_nl_ueid_policy,
		.maxattr = SMC_NLA_EID_TABLE_MAX,
	},
	{
		.cmd = SMC_NETLINK_REMOVE_UEID,
		.flags = GENL_ADMIN_PERM,
		.doit = smc_nl_remove_ueid,
		.policy = smc_nl_ueid_policy,
		.maxattr = SMC_NLA_EID_TABLE_MAX,
	},
	{
		.cmd = SMC_NETLINK_FLUSH_UEID,
		.flags = GENL_ADMIN_PERM,
		.doit = smc_nl_flush_ueid,
	},
	{
		.cmd = SMC_NETLINK_DUMP_SEID,
		.dumpit = smc_nl_dump_seid,
	},
	{
		.cmd = SMC_NETLINK_ENABLE_SEID,
		.flags = GENL_ADMIN_PERM,
		.doit = smc_nl_no_seid,
	},
	{
		.cmd = SMC_NETLINK_DISABLE_SEID,
		.flags = GENL_ADMIN_PERM,
		.doit = smc_nl_no_seid,
	},
	{
		.cmd = SMC_NETLINK_ENABLE_HS_LIMITATION,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = smc_nl_not_supported,
	},
	{
		.cmd = SMC_NETLINK_DISABLE_HS_LIMITATION,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = smc_nl_not_supported,
	},
};

/* requests of the other commands carry no attributes at all */
static const struct nla_policy smc_gen_nl_policy[2] = {
	[1] = { .type = NLA_REJECT },
};

static struct genl_family smc_gen_nl_family __ro_after_init = {
	.name = SMC_GENL_FAMILY_NAME,
	.version = SMC_GENL_FAMILY_VERSION,
	.hdrsize = 0,
	.maxattr = 1,
	.policy = smc_gen_nl_policy,
	.netnsok = true,
	.module = THIS_MODULE,
	.ops = smc_gen_nl_ops,
	.n_ops = ARRAY_SIZE(smc_gen_nl_ops),
	/* all commands predate strict header checking, as upstream */
	.resv_start_op = SMC_NETLINK_DISABLE_HS_LIMITATION + 1,
};

int smc_nl_init(void)
{
	return genl_register_family(&smc_gen_nl_family);
}

void smc_nl_exit(void)
{
	genl_unregister_family(&smc_gen_nl_family);
}
