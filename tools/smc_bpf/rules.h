/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smc_bpf: the parts that need no kernel, so that the host test can run
 * them (test/unit.c): the rules' syntax, unit names, systemd drop-ins,
 * the status report.
 */
#ifndef SMC_BPF_RULES_H
#define SMC_BPF_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "smc_bpf.h"

#define ERR_LEN		256

/* The rules an attach or refresh sets; what is not given stays. */
struct rules {
	bool ports_given;		/* --ports, "all" included */
	bool addrs_given;		/* --addr, "all" included */
	__u32 nports;			/* 0: every port */
	struct smc_bpf_range ports[SMC_BPF_PORTS];
	__u32 naddrs;			/* 0: every destination */
	struct smc_bpf_prefix addrs[SMC_BPF_ADDRS];
};

/*
 * "80,443,8000-8099" (blanks around entries allowed) or "all": ports
 * 1..65535, sorted, duplicates and overlapping ranges merged, at most
 * SMC_BPF_PORTS ranges after that.  0, or -1 with the reason in @err.
 */
int parse_ports(const char *arg, struct rules *r, char *err, size_t errlen);

/*
 * "10.0.0.0/8,fd00::/8,192.0.2.1" or "all": IPv4 and IPv6 addresses
 * (inet_pton forms), each with an optional prefix length (default: the
 * whole address); host bits are cleared (10.1.2.3/8 is 10.0.0.0/8), as
 * smc_run -a does; duplicates dropped; at most SMC_BPF_ADDRS.  0, or -1
 * with the reason in @err.
 */
int parse_addrs(const char *arg, struct rules *r, char *err, size_t errlen);

/* "80,443,8000-8099" into @buf, "all" without ranges */
const char *ports_str(const struct smc_bpf_range *p, __u32 n, char *buf,
		      size_t len);
/* "10.0.0.0/8,fd00::/8" into @buf, "all" without prefixes */
const char *addrs_str(const struct smc_bpf_prefix *a, __u32 n, char *buf,
		      size_t len);
/* one prefix, "10.0.0.0/8" */
const char *prefix_str(const struct smc_bpf_prefix *p, char *buf, size_t len);

#define PORTS_STR_LEN	(SMC_BPF_PORTS * 12 + 1)
#define ADDRS_STR_LEN	(SMC_BPF_ADDRS * 44 + 1)

/*
 * A service unit's name, checked as systemd spells names: "nginx" and
 * "nginx.service" give "nginx.service", instances ("getty@tty1") too;
 * other unit types and templates are refused.  0, or -1 with @err.
 */
int unit_name(const char *arg, char *out, size_t len, char *err,
	      size_t errlen);

/*
 * The drop-in attach writes for @slot's unit, in full: a marker line
 * (DROPIN_MARK), then [Service] ExecStartPre=-+EXE refresh [--ports ..]
 * [--addr ..] UNIT, each argument quoted for systemd.  @exe must be an
 * absolute path of plain characters.  0, or -1 with @err.
 */
#define DROPIN_MARK	"# smc_bpf drop-in"
#define DROPIN_NAME	"smc-r.conf"
int dropin_text(FILE *f, const char *exe, const struct smc_bpf_slot *slot,
		char *err, size_t errlen);

/* One rule as status shows it. */
enum rule_state {
	RULE_LIVE,		/* applies to the tasks of its cgroup */
	RULE_INACTIVE,		/* a unit not running; its next start applies it */
	RULE_STALE,		/* applies to nothing, and nothing will fix it */
};

struct rule_view {
	int slot;			/* -1: a drop-in whose unit has no slot */
	struct smc_bpf_slot s;		/* the slot (unit and path for -1) */
	enum rule_state state;
	char why[160];			/* unless live */
	__u64 live_id;			/* the cgroup at s.path now, 0: none */
	char dropin[256];		/* the unit's drop-in, "" none */
	int dropin_loaded;		/* 1, 0, -1: unknown (no systemd) */
};

struct status_view {
	bool attached;
	const char *pin_dir;
	__u32 link_id, prog_id;		/* 0: unknown */
	bool ports_attached;
	__u32 ports_link_id, ports_prog_id;
	bool module_btf;
	bool smc_sockets;		/* IPPROTO_SMC sockets can be made */
	int nrules;
	struct rule_view rules[SMC_BPF_SLOTS * 2];
};

/* how many rules are RULE_STALE */
int status_stale(const struct status_view *v);
void status_text(FILE *f, const struct status_view *v);
void status_json(FILE *f, const struct status_view *v);
const char *rule_state_name(enum rule_state s);

#endif /* SMC_BPF_RULES_H */
