/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Shared Memory Communications over RDMA (SMC-R): sock_diag interface.
 *
 * A SOCK_DIAG_BY_FAMILY dump with sdiag_family AF_SMC (43) and a
 * struct smc_diag_req as payload returns one struct smc_diag_msg per SMC
 * socket, followed by SMC_DIAG_* attributes.  The layout is the one of
 * Linux 6.12 so smcss and other existing tools understand it.
 */
#ifndef _UAPI_SMC_DIAG_H_
#define _UAPI_SMC_DIAG_H_

#include <linux/types.h>
#include <linux/inet_diag.h>
#include <rdma/ib_user_verbs.h>

/* Dump request */
struct smc_diag_req {
	__u8	diag_family;		/* AF_SMC */
	__u8	pad[2];
	__u8	diag_ext;		/* bit (SMC_DIAG_x - 1): want attr x */
	struct inet_diag_sockid	id;	/* not used for filtering */
};

/*
 * One socket.  Addresses, ports and interface come from the TCP socket
 * that carries the handshake (or all data after a fallback).
 */
struct smc_diag_msg {
	__u8		diag_family;
	__u8		diag_state;	/* SMC socket state */
	union {
		__u8	diag_mode;	/* SMC_DIAG_MODE_* */
		__u8	diag_fallback;	/* name used before diag_mode */
	};
	__u8		diag_shutdown;
	struct inet_diag_sockid id;

	__u32		diag_uid;
	__aligned_u64	diag_inode;
};

/* Values of diag_mode */
enum {
	SMC_DIAG_MODE_SMCR,
	SMC_DIAG_MODE_FALLBACK_TCP,
	SMC_DIAG_MODE_SMCD,
};

/* Attributes after struct smc_diag_msg */
enum {
	SMC_DIAG_NONE,
	SMC_DIAG_CONNINFO,		/* struct smc_diag_conninfo */
	SMC_DIAG_LGRINFO,		/* struct smc_diag_lgrinfo */
	SMC_DIAG_SHUTDOWN,		/* u8: RCV_SHUTDOWN | SEND_SHUTDOWN */
	SMC_DIAG_DMBINFO,		/* struct smcd_diag_dmbinfo */
	SMC_DIAG_FALLBACK,		/* struct smc_diag_fallback */
	__SMC_DIAG_MAX,
};

#define SMC_DIAG_MAX (__SMC_DIAG_MAX - 1)

/* A cursor into a ring buffer: wrap count and byte offset */
struct smc_diag_cursor {
	__u16	reserved;
	__u16	wrap;
	__u32	count;
};

/* SMC_DIAG_CONNINFO: one SMC connection */
struct smc_diag_conninfo {
	__u32			token;		/* connection token */
	__u32			sndbuf_size;	/* local send buffer */
	__u32			rmbe_size;	/* local receive buffer */
	__u32			peer_rmbe_size;	/* peer's receive buffer */
	/* cursors into the local receive buffer */
	struct smc_diag_cursor	rx_prod;
	struct smc_diag_cursor	rx_cons;
	/* cursors into the peer's receive buffer */
	struct smc_diag_cursor	tx_prod;
	struct smc_diag_cursor	tx_cons;
	__u8			rx_prod_flags;
	__u8			rx_conn_state_flags;
	__u8			tx_prod_flags;
	__u8			tx_conn_state_flags;
	/* cursors into the local send buffer */
	struct smc_diag_cursor	tx_prep;	/* written by the user */
	struct smc_diag_cursor	tx_sent;	/* posted to the peer */
	struct smc_diag_cursor	tx_fin;		/* completed */
};

/* One SMC-R link */
struct smc_diag_linkinfo {
	__u8 link_id;
	__u8 ibname[IB_DEVICE_NAME_MAX];	/* RDMA device */
	__u8 ibport;				/* its port */
	__u8 gid[40];				/* local GID, text */
	__u8 peer_gid[40];			/* peer GID, text */
};

/* SMC_DIAG_LGRINFO: the link group of an SMC-R connection */
struct smc_diag_lgrinfo {
	struct smc_diag_linkinfo	lnk[1];
	__u8				role;	/* 0 client, 1 server */
};

/* SMC_DIAG_FALLBACK: why the socket runs over TCP, if it does */
struct smc_diag_fallback {
	__u32 reason;		/* local SMC_CLC_DECL_* code, 0 if none */
	__u32 peer_diagnosis;	/* code the peer declined with, 0 if none */
};

/* SMC_DIAG_DMBINFO: SMC-D connection internals */
struct smcd_diag_dmbinfo {
	__u32		linkid;
	__aligned_u64	peer_gid;
	__aligned_u64	my_gid;
	__aligned_u64	token;		/* local DMB */
	__aligned_u64	peer_token;	/* peer DMB element */
	__aligned_u64	peer_gid_ext;
	__aligned_u64	my_gid_ext;
};

#endif /* _UAPI_SMC_DIAG_H_ */
