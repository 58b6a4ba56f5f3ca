// SPDX-License-Identifier: GPL-2.0
/*
 * smc_bpf policy: TCP sockets created by tasks in chosen cgroups become
 * SMC sockets.
 *
 * socket(2) passes its protocol through update_socket_protocol(), a hook
 * that fmod_ret programs may replace (Linux 6.6+, with CONFIG_MPTCP).
 * For socket(AF_INET or AF_INET6, SOCK_STREAM, 0 or IPPROTO_TCP) made by a
 * task inside one of the cgroups in cgroups[] (or below one), this returns
 * IPPROTO_SMC: the program gets an SMC socket, which falls back to TCP by
 * itself when the peer cannot do SMC.  Everything else keeps its protocol.
 *
 * Rules: the smc module calls smc_bpf_decide() at connect() and listen()
 * of an SMC socket, before TCP sends its SYN or listens, with the
 * destination address and port (connect) or the local port (listen, no
 * address).  smc_ports, an fmod_ret program on it, answers non-zero, and
 * so keeps that connection or listener on plain TCP, when the calling
 * task is in a cgroup of the policy whose rule lists port ranges that do
 * not hold the port, or (connect only) destination prefixes that do not
 * hold the address.  It needs the module's BTF; without it the loader
 * leaves smc_ports unloaded.
 *
 * The destination is copied with bpf_probe_read_kernel() (the hook's
 * struct sockaddr is shorter than an IPv6 address); the rest are integer
 * arguments, so no kernel type is needed: no vmlinux.h, no CO-RE.
 */
#include <stdbool.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "smc_bpf.h"

#define SMC_AF_INET		2
#define SMC_AF_INET6		10
#define SMC_SOCK_STREAM		1
#define SMC_SOCK_TYPE_MASK	0xf	/* the rest are SOCK_NONBLOCK etc. */
#define SMC_IPPROTO_TCP		6

/* The cgroups of the policy, by slot; set by the loader (cgroup fds). */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, SMC_BPF_SLOTS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} cgroups SEC(".maps");

/* What the loader knows about each slot, and how often it matched. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SMC_BPF_SLOTS);
	__type(key, __u32);
	__type(value, struct smc_bpf_slot);
} slots SEC(".maps");

SEC("fmod_ret/update_socket_protocol")
int BPF_PROG(smc_policy, int family, int type, int protocol)
{
	struct smc_bpf_slot *slot;
	__u32 i;

	if (family != SMC_AF_INET && family != SMC_AF_INET6)
		return protocol;
	if ((type & SMC_SOCK_TYPE_MASK) != SMC_SOCK_STREAM)
		return protocol;
	if (protocol != 0 && protocol != SMC_IPPROTO_TCP)
		return protocol;

	for (i = 0; i < SMC_BPF_SLOTS; i++) {
		/* 1: under it; 0: not; negative: empty slot */
		if (bpf_current_task_under_cgroup(&cgroups, i) != 1)
			continue;
		slot = bpf_map_lookup_elem(&slots, &i);
		if (slot)
			__sync_fetch_and_add(&slot->converted, 1);
		return IPPROTO_SMC;
	}
	return protocol;
}

/* The first slot whose cgroup holds the current task, or NULL. */
static struct smc_bpf_slot *current_slot(void)
{
	__u32 i;

	for (i = 0; i < SMC_BPF_SLOTS; i++) {
		if (bpf_current_task_under_cgroup(&cgroups, i) == 1)
			return bpf_map_lookup_elem(&slots, &i);
	}
	return NULL;
}

/* Does a range of @slot hold @port (or does the rule list none)? */
static bool port_allowed(const struct smc_bpf_slot *slot, __u16 port)
{
	__u32 n = slot->nports, j;

	if (!n)
		return true;
	for (j = 0; j < SMC_BPF_PORTS; j++) {
		if (j >= n)
			break;
		if (port >= slot->ports[j].lo && port <= slot->ports[j].hi)
			return true;
	}
	return false;
}

/* The start of a sockaddr_in or sockaddr_in6, as the kernel lays it out. */
struct smc_sa {
	__u16 family;
	__u16 port;
	__u32 v4;		/* sin_addr; sin6_flowinfo */
	__u32 v6[4];		/* sin6_addr */
};

/*
 * Does a prefix of @slot hold the destination @addr (or does the rule
 * list none)?  An IPv4-mapped IPv6 address (::ffff:a.b.c.d) meets the
 * IPv4 prefixes.  What cannot be read matches nothing.
 */
static bool addr_allowed(const struct smc_bpf_slot *slot, const void *addr)
{
	__u32 n = slot->naddrs, w[4] = { 0 }, j, k;
	const struct smc_bpf_prefix *p;
	struct smc_sa sa;
	__u8 family;

	if (!n)
		return true;
	if (!addr || bpf_probe_read_kernel(&sa, sizeof(sa), addr))
		return false;
	if (sa.family == SMC_AF_INET) {
		family = SMC_BPF_V4;
		w[0] = sa.v4;
	} else if (sa.family == SMC_AF_INET6) {
		if (!sa.v6[0] && !sa.v6[1] && sa.v6[2] == bpf_htonl(0xffff)) {
			family = SMC_BPF_V4;
			w[0] = sa.v6[3];
		} else {
			family = SMC_BPF_V6;
			for (k = 0; k < 4; k++)
				w[k] = sa.v6[k];
		}
	} else {
		return false;
	}
	for (j = 0; j < SMC_BPF_ADDRS; j++) {
		if (j >= n)
			break;
		p = &slot->addrs[j];
		if (p->family != family)
			continue;
		for (k = 0; k < 4; k++)
			if ((w[k] & p->mask[k]) != p->net[k])
				break;
		if (k == 4)
			return true;
	}
	return false;
}

SEC("fmod_ret/smc_bpf_decide")
int BPF_PROG(smc_ports, void *sk, void *addr, __u16 port, bool listen,
	     int ret)
{
	struct smc_bpf_slot *slot;

	if (ret)		/* decided already */
		return ret;
	slot = current_slot();
	if (!slot)
		return 0;
	/* a listener: the hook passes no local address, ports alone */
	if (port_allowed(slot, port) && (listen || addr_allowed(slot, addr)))
		return 0;
	__sync_fetch_and_add(&slot->to_tcp, 1);
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
