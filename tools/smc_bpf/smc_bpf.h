/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smc_bpf: what the BPF policy and its loader share.
 */
#ifndef SMC_BPF_H
#define SMC_BPF_H

#define SMC_BPF_SLOTS		8	/* cgroups the policy can hold */
#define SMC_BPF_PATH_LEN	240

#ifndef IPPROTO_SMC
#define IPPROTO_SMC		256
#endif

/* One entry of the "slots" map: a cgroup in the policy, for the loader. */
struct smc_bpf_slot {
	__u64 cgroup_id;		/* 0: slot free */
	__u64 converted;		/* sockets turned into IPPROTO_SMC */
	char path[SMC_BPF_PATH_LEN];	/* as given to attach */
};

#endif /* SMC_BPF_H */
