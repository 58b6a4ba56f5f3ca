/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smc_bpf: what the BPF policy and its loader share.
 */
#ifndef SMC_BPF_H
#define SMC_BPF_H

#define SMC_BPF_SLOTS		8	/* rules (cgroups) the policy can hold */
#define SMC_BPF_PORTS		16	/* port ranges per rule */
#define SMC_BPF_ADDRS		8	/* destination prefixes per rule */
#define SMC_BPF_PATH_LEN	240	/* cgroup path, NUL included */
#define SMC_BPF_UNIT_LEN	256	/* systemd unit name, NUL included */

#ifndef IPPROTO_SMC
#define IPPROTO_SMC		256
#endif

/* smc_bpf_slot.flags */
#define SMC_BPF_F_USED		0x1	/* the slot holds a rule */
#define SMC_BPF_F_UNIT		0x2	/* the rule follows a systemd unit */

/* smc_bpf_prefix.family */
#define SMC_BPF_V4		4
#define SMC_BPF_V6		6

/* Ports lo..hi (host order, lo <= hi) may use SMC. */
struct smc_bpf_range {
	__u16 lo;
	__u16 hi;
};

/*
 * A destination prefix: an address matches when (addr & mask) == net,
 * word by word, in network byte order.  IPv4 uses word 0 only.
 */
struct smc_bpf_prefix {
	__u32 net[4];
	__u32 mask[4];
	__u8 family;			/* SMC_BPF_V4 or SMC_BPF_V6 */
	__u8 bits;			/* prefix length, for the loader */
	__u8 pad[2];
};

/*
 * One entry of the "slots" map: a rule of the policy.  The cgroup it
 * covers is in the "cgroups" map under the same index (empty while a
 * unit is not running); the program reads the rule's ports and
 * prefixes on the module's smc_bpf_decide().
 */
struct smc_bpf_slot {
	__u64 cgroup_id;		/* 0: no cgroup (unit not running) */
	__u64 converted;		/* sockets turned into IPPROTO_SMC */
	__u64 to_tcp;			/* connects/listens a rule kept TCP */
	__u64 refreshed;		/* times refresh found a new cgroup */
	__u32 flags;			/* SMC_BPF_F_* */
	__u32 nports;			/* 0: every port may use SMC */
	__u32 naddrs;			/* 0: every destination may */
	__u32 pad;
	struct smc_bpf_range ports[SMC_BPF_PORTS];
	struct smc_bpf_prefix addrs[SMC_BPF_ADDRS];
	char path[SMC_BPF_PATH_LEN];	/* the cgroup, as last resolved */
	char unit[SMC_BPF_UNIT_LEN];	/* with SMC_BPF_F_UNIT */
};

#endif /* SMC_BPF_H */
