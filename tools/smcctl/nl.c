// SPDX-License-Identifier: GPL-2.0
/*
 * smcctl's netlink plumbing: sockets, dumps, attribute parsing, and the
 * generic netlink family SMC_GEN_NETLINK.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/smc.h>

#include "smcctl.h"

#define RECV_BUF (64 * 1024)

void die(int code, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

const char *vis(const char *s)
{
	static char buf[VIS_SLOTS][256];
	static unsigned int next;
	char *b = buf[next++ % VIS_SLOTS];
	size_t i;

	for (i = 0; s[i] && i < sizeof(buf[0]) - 1; i++)
		b[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	b[i] = '\0';
	return b;
}

int nl_open(int proto)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd < 0)
		die(EXIT_ERR, "netlink socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die(EXIT_ERR, "netlink bind: %s", strerror(errno));
	return fd;
}

void nl_send(int fd, struct nlmsghdr *nlh)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (sendto(fd, nlh, nlh->nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		die(EXIT_ERR, "netlink send: %s", strerror(errno));
}

uint32_t nl_seq(void)
{
	static uint32_t seq;

	return ++seq;
}

/* the kernel's explanation of the last error (extended ACK), or "" */
char nl_errmsg[256];

/* NLMSGERR_ATTR_MSG of an error message with extended ACK attributes */
static void nl_save_errmsg(const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	size_t off = sizeof(*e), len;

	nl_errmsg[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	if (NLMSG_LENGTH(off) > nlh->nlmsg_len)
		return;
	len = nlh->nlmsg_len - NLMSG_LENGTH(off);
	parse_attrs(tb, NLMSGERR_ATTR_MAX, (const char *)e + off, len);
	attr_str(nl_errmsg, sizeof(nl_errmsg), tb[NLMSGERR_ATTR_MSG]);
}

/*
 * Receive the answer to the request with sequence number @seq until
 * NLMSG_DONE (dump) or the first message (non-dump).  Returns 0 or the
 * positive errno the kernel answered with.
 */
int nl_recv(int fd, uint32_t seq, bool dump, msg_cb cb, void *arg)
{
	static char buf[RECV_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *nlh;
	int len;

	for (;;) {
		len = (int)recv(fd, buf, sizeof(buf), 0);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			die(EXIT_ERR, "netlink receive: %s", strerror(errno));
		}
		if (len == 0)
			die(EXIT_ERR, "netlink receive: unexpected end");
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_DONE) {
				int err = 0;

				if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
					memcpy(&err, NLMSG_DATA(nlh), sizeof(err));
				return err < 0 ? -err : 0;
			}
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nlh);

				if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return EPROTO;
				if (e->error) {
					nl_save_errmsg(nlh);
					return -e->error;
				}
				if (!dump)
					return 0;
				continue;
			}
			if (cb)
				cb(nlh, arg);
			if (!dump)
				return 0;
		}
	}
}

/* tb[i] is the attribute of type @base + i, for i in 0 .. @max */
static void parse_attr_range(const struct nlattr **tb, int base, int max,
			     const void *data, size_t len)
{
	const struct nlattr *a = data;
	size_t step;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	while (len >= NLA_HDRLEN) {
		int type = a->nla_type & NLA_TYPE_MASK;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
			break;
		if (type >= base && type - base <= max)
			tb[type - base] = a;
		step = NLA_ALIGN(a->nla_len);
		if (step >= len)
			break;
		len -= step;
		a = (const struct nlattr *)((const char *)a + step);
	}
}

/* attributes: a flat table indexed by type, like libnl's nla_parse */
void parse_attrs(const struct nlattr **tb, int max, const void *data,
		 size_t len)
{
	parse_attr_range(tb, 0, max, data, len);
}

const void *attr_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

size_t attr_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

void parse_nested(const struct nlattr **tb, int max,
		  const struct nlattr *nest)
{
	parse_attrs(tb, max, attr_data(nest), attr_len(nest));
}

/* this module's own attributes of @nest, from SMC_NLA_EXT_BASE on */
void parse_ext(const struct nlattr **tb, int n, const struct nlattr *nest)
{
	parse_attr_range(tb, SMC_NLA_EXT_BASE, n - 1, attr_data(nest),
			 attr_len(nest));
}

/* unsigned integer of any width the kernel may use (u8..u64, uint) */
uint64_t attr_uint(const struct nlattr *a)
{
	uint64_t v64;
	uint32_t v32;
	uint16_t v16;

	if (!a)
		return 0;
	switch (attr_len(a)) {
	case 1:
		return *(const uint8_t *)attr_data(a);
	case 2:
		memcpy(&v16, attr_data(a), 2);
		return v16;
	case 4:
		memcpy(&v32, attr_data(a), 4);
		return v32;
	case 8:
		memcpy(&v64, attr_data(a), 8);
		return v64;
	default:
		return 0;
	}
}

void attr_str(char *buf, size_t len, const struct nlattr *a)
{
	size_t n = 0;

	if (a) {
		n = attr_len(a);
		if (n > len - 1)
			n = len - 1;
		memcpy(buf, attr_data(a), n);
	}
	buf[n] = '\0';
}

/* ---- generic netlink ---- */

struct genl_req {
	struct nlmsghdr nlh;
	struct genlmsghdr genl;
	char attrs[64];
};

static void family_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	const struct genlmsghdr *g = NLMSG_DATA(nlh);
	int *id = arg;

	parse_attrs(tb, CTRL_ATTR_MAX, g + 1,
		    nlh->nlmsg_len - NLMSG_LENGTH(sizeof(*g)));
	if (tb[CTRL_ATTR_FAMILY_ID])
		*id = (int)attr_uint(tb[CTRL_ATTR_FAMILY_ID]);
}

/* Ask for family @name's id; 0 (*@id set, -1 if none) or an errno. */
int family_lookup_name(int fd, const char *name, int *id)
{
	struct genl_req req;
	size_t nlen = strlen(name) + 1;
	struct nlattr *a;

	memset(&req, 0, sizeof(req));
	a = (struct nlattr *)req.attrs;
	a->nla_type = CTRL_ATTR_FAMILY_NAME;
	a->nla_len = NLA_HDRLEN + nlen;
	memcpy(req.attrs + NLA_HDRLEN, name, nlen);
	req.nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(a->nla_len);
	req.nlh.nlmsg_type = GENL_ID_CTRL;
	req.nlh.nlmsg_flags = NLM_F_REQUEST;
	req.nlh.nlmsg_seq = nl_seq();
	req.genl.cmd = CTRL_CMD_GETFAMILY;
	req.genl.version = 1;
	nl_send(fd, &req.nlh);
	return nl_recv(fd, req.nlh.nlmsg_seq, false, family_cb, id);
}

/* the id of generic netlink family @name, or exit: EXIT_NOSMC without it */
int genl_family_or_die(int fd, const char *name)
{
	int id = -1, err;

	err = family_lookup_name(fd, name, &id);
	if (err == ENOENT || (!err && id < 0))
		die(EXIT_NOSMC, "generic netlink family %s not found: is the smc module loaded?",
		    name);
	if (err)
		die(EXIT_ERR, "resolving %s: %s", name, strerror(err));
	return id;
}

int smc_family(int fd)
{
	return genl_family_or_die(fd, SMC_GENL_FAMILY_NAME);
}

int smc_family_quiet(int fd)
{
	int id = -1;

	if (family_lookup_name(fd, SMC_GENL_FAMILY_NAME, &id))
		return -1;
	return id;
}

/* a dump of @cmd; returns 0 or the positive errno the kernel answered */
int smc_dump_try(int fd, int family, uint8_t cmd, msg_cb cb, void *arg)
{
	struct genl_req req;

	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	req.nlh.nlmsg_type = family;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nlh.nlmsg_seq = nl_seq();
	req.genl.cmd = cmd;
	req.genl.version = SMC_GENL_FAMILY_VERSION;
	nl_send(fd, &req.nlh);
	return nl_recv(fd, req.nlh.nlmsg_seq, true, cb, arg);
}

void smc_dump(int fd, int family, uint8_t cmd, msg_cb cb, void *arg)
{
	int err = smc_dump_try(fd, family, cmd, cb, arg);

	if (err)
		die(EXIT_ERR, SMC_GENL_FAMILY_NAME " dump failed: %s",
		    strerror(err));
}

/* the nest of type @top inside a SMC_GEN_NETLINK message, or NULL */
const struct nlattr *smc_top(const struct nlmsghdr *nlh, int top)
{
	const struct nlattr *tb[SMC_GEN_MAX + 1];
	const struct genlmsghdr *g = NLMSG_DATA(nlh);

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*g)))
		return NULL;
	parse_attrs(tb, SMC_GEN_MAX, g + 1,
		    nlh->nlmsg_len - NLMSG_LENGTH(sizeof(*g)));
	return tb[top];
}
