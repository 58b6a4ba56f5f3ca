/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smc_bpf: what the BPF policy and its loader share.
 */
#ifndef SMC_BPF_H
#define SMC_BPF_H

#define SMC_BPF_SLOTS		8	/* cgroups the policy can hold */
#define SMC_BPF_PORTS		16	/* port rules per cgroup */
#define SMC_BPF_PATH_LEN	240

#ifndef IPPROTO_SMC
#define IPPROTO_SMC		256
#endif

/*
 * One entry of the "slots" map: a cgroup in the policy, for the loader,
 * and its port rules for the program on the module's smc_bpf_decide().
 */
struct smc_bpf_slot {
	__u64 cgroup_id;		/* 0: slot free */
	__u64 converted;		/* sockets turned into IPPROTO_SMC */
	__u64 to_tcp;			/* connects/listens a port rule kept TCP */
	__u32 nports;			/* 0: every port may use SMC */
	__u16 ports[SMC_BPF_PORTS];	/* the ports that may, host order */
	char path[SMC_BPF_PATH_LEN];	/* as given to attach */
};

#endif /* SMC_BPF_H */
