/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smcctl: what the commands share (netlink plumbing, options, exit codes).
 */
#ifndef SMCCTL_H
#define SMCCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "json.h"

#ifndef AF_SMC
#define AF_SMC 43
#endif

#ifndef SMCCTL_VERSION
#define SMCCTL_VERSION "unknown"
#endif

/* exit codes (smcctl(8), EXIT STATUS) */
#define EXIT_ERR	1	/* a runtime error */
#define EXIT_USAGE	2	/* bad arguments */
#define EXIT_NOSMC	3	/* the SMC module (or its interface) is absent */
#define EXIT_FALLBACK	4	/* check: connected, but over TCP */

/* what the command line asked for, besides the command */
struct opts {
	bool json;
	bool details;		/* -d: stats in detail */
	bool absolute;		/* -a: counters since the module was loaded */
	bool listening;		/* -l: listening sockets only */
	const char *netdev;	/* --netdev IFNAME */
	unsigned int ifindex;	/* ... resolved */
	const char *ibdev;	/* --ibdev DEV[/PORT] */
	char ibname[64];	/* ... its device */
	unsigned int ibport;	/* ... and port, 0 for any */
	bool have_lgr;		/* --lgr ID */
	uint32_t lgr;
	bool ipv6;		/* check -6 */
	bool server;		/* check --server */
	unsigned int timeout;	/* check -t, seconds; 0: the default */
};

extern struct opts opt;
extern const char *prog;

void die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/*
 * A text field fit for a table: control bytes shown as '?'.  The result
 * lives until VIS_SLOTS more calls: enough for one line of a table.
 */
#define VIS_SLOTS 8
const char *vis(const char *s);

/* ---- netlink ---- */

typedef void (*msg_cb)(const struct nlmsghdr *nlh, void *arg);

int nl_open(int proto);
void nl_send(int fd, struct nlmsghdr *nlh);
int nl_recv(int fd, uint32_t seq, bool dump, msg_cb cb, void *arg);
uint32_t nl_seq(void);
/* the kernel's explanation of the last refusal (extended ACK), or "" */
extern char nl_errmsg[256];
/* generic netlink family @name's id: 0 (*@id set, -1 if none) or errno */
int family_lookup_name(int fd, const char *name, int *id);

void parse_attrs(const struct nlattr **tb, int max, const void *data,
		 size_t len);
void parse_nested(const struct nlattr **tb, int max,
		  const struct nlattr *nest);
void parse_ext(const struct nlattr **tb, int n, const struct nlattr *nest);
const void *attr_data(const struct nlattr *a);
size_t attr_len(const struct nlattr *a);
uint64_t attr_uint(const struct nlattr *a);
/* a string attribute, at most @len - 1 bytes, up to its first NUL */
void attr_str(char *buf, size_t len, const struct nlattr *a);

/* SMC_GEN_NETLINK's id; exits with EXIT_NOSMC when it is not there */
int genl_family_or_die(int fd, const char *name);
int smc_family(int fd);
/* ... or -1 (no exit) */
int smc_family_quiet(int fd);
int smc_dump_try(int fd, int family, uint8_t cmd, msg_cb cb, void *arg);
void smc_dump(int fd, int family, uint8_t cmd, msg_cb cb, void *arg);
const struct nlattr *smc_top(const struct nlmsghdr *nlh, int top);

/* ---- generic netlink requests (smcctl.c) ---- */

/* one request with room for a few attributes */
struct pnet_req {
	struct nlmsghdr nlh;
	struct genlmsghdr genl;
	char attrs[256];
};

/* SMC_PNETID's id (exits with EXIT_NOSMC when it is not there) */
int pnet_family(int fd);
void pnet_init(struct pnet_req *r, int family, uint8_t cmd, uint16_t flags);
/* add an attribute; exits with EXIT_USAGE when it does not fit */
void pnet_put(struct pnet_req *r, uint16_t type, const void *data,
	      size_t len);
void pnet_put_str(struct pnet_req *r, uint16_t type, const char *s);

/* ---- sockets (smcctl.c) ---- */

/* what check needs to know about one AF_SMC socket */
struct sock_info {
	unsigned int state;		/* SMC socket state */
	unsigned int mode;		/* SMC_DIAG_MODE_* */
	uint32_t reason, peer_diag;	/* fallback reason, peer diagnosis */
	char local[64], peer[64];	/* ADDR:PORT, [ADDR]:PORT */
	bool smcr;			/* has an SMC-R connection */
	bool lgr_known;			/* the link group was found */
	uint32_t lgr_id;
	unsigned int version, release;	/* of the link group */
	char ibdev[64];
	unsigned int ibport;
	char netdev[16];		/* "" when unknown */
};

/*
 * The AF_SMC socket with inode @ino of the caller's network namespace.
 * Returns 0, ENOENT when it is not listed, EAFNOSUPPORT without the
 * AF_SMC sock_diag handler, or another errno.
 */
int sock_lookup(uint64_t ino, struct sock_info *si);

const char *state_name(unsigned int s);
const char *mode_name(unsigned int m);

/* ---- commands in other files ---- */

int cmd_stats(int argc, char **argv);
int cmd_fallback(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_debug_bundle(int argc, char **argv);
int cmd_apply(int argc, char **argv);
void apply_usage(FILE *f, int code) __attribute__((noreturn));

#endif /* SMCCTL_H */
