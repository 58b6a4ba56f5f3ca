/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Shared Memory Communications over RDMA (SMC-R): user interface.
 *
 * Generic netlink families, commands and attributes of the SMC module and
 * the socket constants user programs need.  Names, numbers and nesting are
 * the same as in Linux 6.12 so that existing tools (smc-tools: smcss,
 * smcr, smcd, smc_pnet) work against this module unchanged.  Never renumber
 * anything here; new values may only be appended before a __*_MAX entry.
 */

#ifndef _UAPI_LINUX_SMC_H_
#define _UAPI_LINUX_SMC_H_

/* Protocol argument of socket(AF_SMC, SOCK_STREAM, protocol) */
#ifndef SMCPROTO_SMC
#define SMCPROTO_SMC		0	/* TCP over IPv4 for the handshake */
#endif
#ifndef SMCPROTO_SMC6
#define SMCPROTO_SMC6		1	/* TCP over IPv6 for the handshake */
#endif

/* ---- Family "SMC_PNETID": PNET table (attributes, then commands) ---- */
enum {
	SMC_PNETID_UNSPEC,
	SMC_PNETID_NAME,		/* string: the PNET ID */
	SMC_PNETID_ETHNAME,		/* string: net device name */
	SMC_PNETID_IBNAME,		/* string: RDMA device name */
	SMC_PNETID_IBPORT,		/* u8: RDMA device port */
	__SMC_PNETID_MAX,
	SMC_PNETID_MAX = __SMC_PNETID_MAX - 1
};

enum {
	SMC_PNETID_GET = 1,
	SMC_PNETID_ADD,
	SMC_PNETID_DEL,
	SMC_PNETID_FLUSH
};

#define SMCR_GENL_FAMILY_NAME		"SMC_PNETID"
#define SMCR_GENL_FAMILY_VERSION	1

/* ---- Family "SMC_GEN_NETLINK": state that is not tied to one socket ---- */
#define SMC_GENL_FAMILY_NAME		"SMC_GEN_NETLINK"
#define SMC_GENL_FAMILY_VERSION		1

#define SMC_PCI_ID_STR_LEN		16	/* PCI id string, bytes */
#define SMC_MAX_HOSTNAME_LEN		32	/* host name as sent in CLC */
#define SMC_MAX_UEID			4	/* user defined EIDs */
#define SMC_MAX_EID_LEN			32	/* one EID, bytes */

/* Commands.  GET_* and DUMP_* are dumps; the others change state. */
enum {
	SMC_NETLINK_GET_SYS_INFO = 1,
	SMC_NETLINK_GET_LGR_SMCR,
	SMC_NETLINK_GET_LINK_SMCR,
	SMC_NETLINK_GET_LGR_SMCD,
	SMC_NETLINK_GET_DEV_SMCD,
	SMC_NETLINK_GET_DEV_SMCR,
	SMC_NETLINK_GET_STATS,
	SMC_NETLINK_GET_FBACK_STATS,
	SMC_NETLINK_DUMP_UEID,
	SMC_NETLINK_ADD_UEID,
	SMC_NETLINK_REMOVE_UEID,
	SMC_NETLINK_FLUSH_UEID,
	SMC_NETLINK_DUMP_SEID,
	SMC_NETLINK_ENABLE_SEID,
	SMC_NETLINK_DISABLE_SEID,
	SMC_NETLINK_DUMP_HS_LIMITATION,
	SMC_NETLINK_ENABLE_HS_LIMITATION,
	SMC_NETLINK_DISABLE_HS_LIMITATION,
};

/* Top level attributes of replies; each one is a nest. */
enum {
	SMC_GEN_UNSPEC,
	SMC_GEN_SYS_INFO,
	SMC_GEN_LGR_SMCR,
	SMC_GEN_LINK_SMCR,
	SMC_GEN_LGR_SMCD,
	SMC_GEN_DEV_SMCD,
	SMC_GEN_DEV_SMCR,
	SMC_GEN_STATS,
	SMC_GEN_FBACK_STATS,
	__SMC_GEN_MAX,
	SMC_GEN_MAX = __SMC_GEN_MAX - 1
};

/* Inside SMC_GEN_SYS_INFO */
enum {
	SMC_NLA_SYS_UNSPEC,
	SMC_NLA_SYS_VER,		/* u8: highest SMC version */
	SMC_NLA_SYS_REL,		/* u8: release within that version */
	SMC_NLA_SYS_IS_ISM_V2,		/* u8: an ISM device can do v2 */
	SMC_NLA_SYS_LOCAL_HOST,		/* string: host name used in CLC */
	SMC_NLA_SYS_SEID,		/* string: system EID (ISM v2 only) */
	SMC_NLA_SYS_IS_SMCR_V2,		/* u8: SMC-R v2 is supported */
	__SMC_NLA_SYS_MAX,
	SMC_NLA_SYS_MAX = __SMC_NLA_SYS_MAX - 1
};

/*
 * Inside SMC_NLA_LGR_R_V2_COMMON and SMC_NLA_LGR_D_V2_COMMON.  Note that
 * this enum has no UNSPEC entry: the version is attribute type 0.
 */
enum {
	SMC_NLA_LGR_V2_VER,		/* u8 */
	SMC_NLA_LGR_V2_REL,		/* u8 */
	SMC_NLA_LGR_V2_OS,		/* u8 */
	SMC_NLA_LGR_V2_NEG_EID,		/* string */
	SMC_NLA_LGR_V2_PEER_HOST,	/* string */
	__SMC_NLA_LGR_V2_MAX,
	SMC_NLA_LGR_V2_MAX = __SMC_NLA_LGR_V2_MAX - 1
};

/* Inside SMC_NLA_LGR_R_V2 */
enum {
	SMC_NLA_LGR_R_V2_UNSPEC,
	SMC_NLA_LGR_R_V2_DIRECT,	/* u8 */
	SMC_NLA_LGR_R_V2_MAX_CONNS,	/* u8 */
	SMC_NLA_LGR_R_V2_MAX_LINKS,	/* u8 */
	__SMC_NLA_LGR_R_V2_MAX,
	SMC_NLA_LGR_R_V2_MAX = __SMC_NLA_LGR_R_V2_MAX - 1
};

/* Inside SMC_GEN_LGR_SMCR: one SMC-R link group */
enum {
	SMC_NLA_LGR_R_UNSPEC,
	SMC_NLA_LGR_R_ID,		/* u32 */
	SMC_NLA_LGR_R_ROLE,		/* u8 */
	SMC_NLA_LGR_R_TYPE,		/* u8 */
	SMC_NLA_LGR_R_PNETID,		/* string */
	SMC_NLA_LGR_R_VLAN_ID,		/* u8 */
	SMC_NLA_LGR_R_CONNS_NUM,	/* u32 */
	SMC_NLA_LGR_R_V2_COMMON,	/* nest */
	SMC_NLA_LGR_R_V2,		/* nest */
	SMC_NLA_LGR_R_NET_COOKIE,	/* u64 */
	SMC_NLA_LGR_R_PAD,		/* flag */
	SMC_NLA_LGR_R_BUF_TYPE,		/* u8 */
	SMC_NLA_LGR_R_SNDBUF_ALLOC,	/* uint */
	SMC_NLA_LGR_R_RMB_ALLOC,	/* uint */
	__SMC_NLA_LGR_R_MAX,
	SMC_NLA_LGR_R_MAX = __SMC_NLA_LGR_R_MAX - 1
};

/* Inside SMC_GEN_LINK_SMCR: one link of an SMC-R link group */
enum {
	SMC_NLA_LINK_UNSPEC,
	SMC_NLA_LINK_ID,		/* u8 */
	SMC_NLA_LINK_IB_DEV,		/* string */
	SMC_NLA_LINK_IB_PORT,		/* u8 */
	SMC_NLA_LINK_GID,		/* string */
	SMC_NLA_LINK_PEER_GID,		/* string */
	SMC_NLA_LINK_CONN_CNT,		/* u32 */
	SMC_NLA_LINK_NET_DEV,		/* u32 */
	SMC_NLA_LINK_UID,		/* u32 */
	SMC_NLA_LINK_PEER_UID,		/* u32 */
	SMC_NLA_LINK_STATE,		/* u32 */
	__SMC_NLA_LINK_MAX,
	SMC_NLA_LINK_MAX = __SMC_NLA_LINK_MAX - 1
};

/*
 * This module's own attributes, numbered from SMC_NLA_EXT_BASE on so that
 * they stay clear of those Linux appends to the enums above; readers that
 * parse only up to a *_MAX skip them.
 */
#define SMC_NLA_EXT_BASE		0x1000

/* Inside SMC_GEN_LGR_SMCR */
enum {
	/* u32: vendor extensions agreed with the peer (SMC_VX_*) */
	SMC_NLA_LGR_R_EXT_VX = SMC_NLA_EXT_BASE,
};

/* values of SMC_NLA_LGR_R_EXT_VX */
#define SMC_VX_WIMM		0x0001	/* data by RDMA WRITE WITH IMMEDIATE */
#define SMC_VX_IWARP		0x0002	/* links on iWARP devices (rdma_cm) */
#define SMC_VX_GROW		0x0004	/* RMBs start small, grow on demand */

/* Inside SMC_GEN_LINK_SMCR */
enum {
	SMC_NLA_LINK_EXT_TX_WIMM = SMC_NLA_EXT_BASE,	/* u64: sent */
	SMC_NLA_LINK_EXT_RX_WIMM,			/* u64: received */
	SMC_NLA_LINK_EXT_PAD,				/* flag */
};

/* Inside SMC_GEN_LGR_SMCD: one SMC-D link group */
enum {
	SMC_NLA_LGR_D_UNSPEC,
	SMC_NLA_LGR_D_ID,		/* u32 */
	SMC_NLA_LGR_D_GID,		/* u64 */
	SMC_NLA_LGR_D_PEER_GID,		/* u64 */
	SMC_NLA_LGR_D_VLAN_ID,		/* u8 */
	SMC_NLA_LGR_D_CONNS_NUM,	/* u32 */
	SMC_NLA_LGR_D_PNETID,		/* string */
	SMC_NLA_LGR_D_CHID,		/* u16 */
	SMC_NLA_LGR_D_PAD,		/* flag */
	SMC_NLA_LGR_D_V2_COMMON,	/* nest */
	SMC_NLA_LGR_D_EXT_GID,		/* u64 */
	SMC_NLA_LGR_D_PEER_EXT_GID,	/* u64 */
	SMC_NLA_LGR_D_SNDBUF_ALLOC,	/* uint */
	SMC_NLA_LGR_D_DMB_ALLOC,	/* uint */
	__SMC_NLA_LGR_D_MAX,
	SMC_NLA_LGR_D_MAX = __SMC_NLA_LGR_D_MAX - 1
};

/* Inside SMC_NLA_DEV_PORT and SMC_NLA_DEV_PORT2 */
enum {
	SMC_NLA_DEV_PORT_UNSPEC,
	SMC_NLA_DEV_PORT_PNET_USR,	/* u8 */
	SMC_NLA_DEV_PORT_PNETID,	/* string */
	SMC_NLA_DEV_PORT_NETDEV,	/* u32 */
	SMC_NLA_DEV_PORT_STATE,		/* u8 */
	SMC_NLA_DEV_PORT_VALID,		/* u8 */
	SMC_NLA_DEV_PORT_LNK_CNT,	/* u32 */
	__SMC_NLA_DEV_PORT_MAX,
	SMC_NLA_DEV_PORT_MAX = __SMC_NLA_DEV_PORT_MAX - 1
};

/* Inside SMC_GEN_DEV_SMCD and SMC_GEN_DEV_SMCR: one device */
enum {
	SMC_NLA_DEV_UNSPEC,
	SMC_NLA_DEV_USE_CNT,		/* u32 */
	SMC_NLA_DEV_IS_CRIT,		/* u8 */
	SMC_NLA_DEV_PCI_FID,		/* u32 */
	SMC_NLA_DEV_PCI_CHID,		/* u16 */
	SMC_NLA_DEV_PCI_VENDOR,		/* u16 */
	SMC_NLA_DEV_PCI_DEVICE,		/* u16 */
	SMC_NLA_DEV_PCI_ID,		/* string */
	SMC_NLA_DEV_PORT,		/* nest */
	SMC_NLA_DEV_PORT2,		/* nest */
	SMC_NLA_DEV_IB_NAME,		/* string */
	__SMC_NLA_DEV_MAX,
	SMC_NLA_DEV_MAX = __SMC_NLA_DEV_MAX - 1
};

/*
 * Size histograms: inside SMC_NLA_STATS_T_TX_RMB_SIZE, _RX_RMB_SIZE,
 * _TXPLOAD_SIZE and _RXPLOAD_SIZE.  Type 0 doubles as the u64 pad.
 */
enum {
	SMC_NLA_STATS_PLOAD_PAD,
	SMC_NLA_STATS_PLOAD_8K,		/* u64: up to 8 KiB */
	SMC_NLA_STATS_PLOAD_16K,	/* u64 */
	SMC_NLA_STATS_PLOAD_32K,	/* u64 */
	SMC_NLA_STATS_PLOAD_64K,	/* u64 */
	SMC_NLA_STATS_PLOAD_128K,	/* u64 */
	SMC_NLA_STATS_PLOAD_256K,	/* u64 */
	SMC_NLA_STATS_PLOAD_512K,	/* u64 */
	SMC_NLA_STATS_PLOAD_1024K,	/* u64 */
	SMC_NLA_STATS_PLOAD_G_1024K,	/* u64: above 1 MiB */
	__SMC_NLA_STATS_PLOAD_MAX,
	SMC_NLA_STATS_PLOAD_MAX = __SMC_NLA_STATS_PLOAD_MAX - 1
};

/* Buffer events: inside SMC_NLA_STATS_T_TX_RMB_STATS and _RX_RMB_STATS */
enum {
	SMC_NLA_STATS_RMB_PAD,
	SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT,	/* u64 */
	SMC_NLA_STATS_RMB_SIZE_SM_CNT,		/* u64 */
	SMC_NLA_STATS_RMB_FULL_PEER_CNT,	/* u64 */
	SMC_NLA_STATS_RMB_FULL_CNT,		/* u64 */
	SMC_NLA_STATS_RMB_REUSE_CNT,		/* u64 */
	SMC_NLA_STATS_RMB_ALLOC_CNT,		/* u64 */
	SMC_NLA_STATS_RMB_DGRADE_CNT,		/* u64 */
	__SMC_NLA_STATS_RMB_MAX,
	SMC_NLA_STATS_RMB_MAX = __SMC_NLA_STATS_RMB_MAX - 1
};

/* Per technology: inside SMC_NLA_STATS_SMCD_TECH and SMC_NLA_STATS_SMCR_TECH */
enum {
	SMC_NLA_STATS_T_PAD,
	SMC_NLA_STATS_T_TX_RMB_SIZE,	/* nest */
	SMC_NLA_STATS_T_RX_RMB_SIZE,	/* nest */
	SMC_NLA_STATS_T_TXPLOAD_SIZE,	/* nest */
	SMC_NLA_STATS_T_RXPLOAD_SIZE,	/* nest */
	SMC_NLA_STATS_T_TX_RMB_STATS,	/* nest */
	SMC_NLA_STATS_T_RX_RMB_STATS,	/* nest */
	SMC_NLA_STATS_T_CLNT_V1_SUCC,	/* u64 */
	SMC_NLA_STATS_T_CLNT_V2_SUCC,	/* u64 */
	SMC_NLA_STATS_T_SRV_V1_SUCC,	/* u64 */
	SMC_NLA_STATS_T_SRV_V2_SUCC,	/* u64 */
	SMC_NLA_STATS_T_SENDPAGE_CNT,	/* u64 */
	SMC_NLA_STATS_T_SPLICE_CNT,	/* u64 */
	SMC_NLA_STATS_T_CORK_CNT,	/* u64 */
	SMC_NLA_STATS_T_NDLY_CNT,	/* u64 */
	SMC_NLA_STATS_T_URG_DATA_CNT,	/* u64 */
	SMC_NLA_STATS_T_RX_BYTES,	/* u64 */
	SMC_NLA_STATS_T_TX_BYTES,	/* u64 */
	SMC_NLA_STATS_T_RX_CNT,		/* u64 */
	SMC_NLA_STATS_T_TX_CNT,		/* u64 */
	SMC_NLA_STATS_T_RX_RMB_USAGE,	/* uint */
	SMC_NLA_STATS_T_TX_RMB_USAGE,	/* uint */
	__SMC_NLA_STATS_T_MAX,
	SMC_NLA_STATS_T_MAX = __SMC_NLA_STATS_T_MAX - 1
};

/* Inside SMC_GEN_STATS */
enum {
	SMC_NLA_STATS_PAD,
	SMC_NLA_STATS_SMCD_TECH,	/* nest */
	SMC_NLA_STATS_SMCR_TECH,	/* nest */
	SMC_NLA_STATS_CLNT_HS_ERR_CNT,	/* u64 */
	SMC_NLA_STATS_SRV_HS_ERR_CNT,	/* u64 */
	__SMC_NLA_STATS_MAX,
	SMC_NLA_STATS_MAX = __SMC_NLA_STATS_MAX - 1
};

/*
 * Inside SMC_GEN_FBACK_STATS: one (side, reason, count) entry per message;
 * the side totals ride along in the first message of a dump only.
 */
enum {
	SMC_NLA_FBACK_STATS_PAD,
	SMC_NLA_FBACK_STATS_TYPE,	/* u8: 1 server, 0 client */
	SMC_NLA_FBACK_STATS_SRV_CNT,	/* u64: all server fallbacks */
	SMC_NLA_FBACK_STATS_CLNT_CNT,	/* u64: all client fallbacks */
	SMC_NLA_FBACK_STATS_RSN_CODE,	/* u32: SMC_CLC_DECL_* code */
	SMC_NLA_FBACK_STATS_RSN_CNT,	/* u16: fallbacks for that code */
	__SMC_NLA_FBACK_STATS_MAX,
	SMC_NLA_FBACK_STATS_MAX = __SMC_NLA_FBACK_STATS_MAX - 1
};

/* SMC_NETLINK_{DUMP,ADD,REMOVE}_UEID */
enum {
	SMC_NLA_EID_TABLE_UNSPEC,
	SMC_NLA_EID_TABLE_ENTRY,	/* string */
	__SMC_NLA_EID_TABLE_MAX,
	SMC_NLA_EID_TABLE_MAX = __SMC_NLA_EID_TABLE_MAX - 1
};

/* SMC_NETLINK_DUMP_SEID */
enum {
	SMC_NLA_SEID_UNSPEC,
	SMC_NLA_SEID_ENTRY,		/* string */
	SMC_NLA_SEID_ENABLED,		/* u8 */
	__SMC_NLA_SEID_TABLE_MAX,
	SMC_NLA_SEID_TABLE_MAX = __SMC_NLA_SEID_TABLE_MAX - 1
};

/* SMC_NETLINK_DUMP_HS_LIMITATION */
enum {
	SMC_NLA_HS_LIMITATION_UNSPEC,
	SMC_NLA_HS_LIMITATION_ENABLED,	/* u8 */
	__SMC_NLA_HS_LIMITATION_MAX,
	SMC_NLA_HS_LIMITATION_MAX = __SMC_NLA_HS_LIMITATION_MAX - 1
};

/* Socket options at level SOL_SMC */
#define SMC_LIMIT_HS	1	/* int: limit concurrent handshakes */

#endif /* _UAPI_LINUX_SMC_H_ */
