// SPDX-License-Identifier: GPL-2.0
/*
 * smcctl - show what the SMC module counts and which SMC sockets exist.
 *
 *   smcctl [--json] fallback      fallbacks to TCP per side and reason
 *   smcctl [--json] stats         handshake outcome counters
 *   smcctl [--json] connections   SMC sockets (like smcss -a)
 *   smcctl [--json] info          SMC_NETLINK_GET_SYS_INFO
 *   smcctl [--json] devices       RoCE devices and their ports
 *   smcctl [--json] linkgroups    SMC-R link groups
 *   smcctl [--json] links         SMC-R links, per link group
 *   smcctl [--json] pnet ...      the PNET table (add, del, flush, show)
 *
 * Talks plain netlink: generic netlink family "SMC_GEN_NETLINK" for the
 * counters, "SMC_PNETID" for the PNET table (as smc-tools' smc_pnet),
 * NETLINK_SOCK_DIAG with family AF_SMC for the sockets.  The JSON
 * formats are documented in README.md and are kept stable.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <net/if.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/smc.h>
#include <linux/smc_diag.h>

#ifndef AF_SMC
#define AF_SMC 43
#endif

#define EXIT_NOSMC 2		/* the module (or its interface) is absent */
#define RECV_BUF (64 * 1024)

static bool json;
static const char *prog = "smcctl";

/* ---- names ---- */

struct code_name {
	uint32_t code;
	const char *name;
};

/* SMC_CLC_DECL_* reason codes (fixed by the SMC protocol) */
static const struct code_name reasons[] = {
	{ 0x01010000, "SMC_CLC_DECL_MEM" },
	{ 0x02010000, "SMC_CLC_DECL_TIMEOUT_CL" },
	{ 0x02020000, "SMC_CLC_DECL_TIMEOUT_AL" },
	{ 0x03000000, "SMC_CLC_DECL_CNFERR" },
	{ 0x03010000, "SMC_CLC_DECL_PEERNOSMC" },
	{ 0x03020000, "SMC_CLC_DECL_IPSEC" },
	{ 0x03030000, "SMC_CLC_DECL_NOSMCDEV" },
	{ 0x03030001, "SMC_CLC_DECL_NOSMCDDEV" },
	{ 0x03030002, "SMC_CLC_DECL_NOSMCRDEV" },
	{ 0x03030003, "SMC_CLC_DECL_NOISM2SUPP" },
	{ 0x03030004, "SMC_CLC_DECL_NOV2EXT" },
	{ 0x03030005, "SMC_CLC_DECL_NOV2DEXT" },
	{ 0x03030006, "SMC_CLC_DECL_NOSEID" },
	{ 0x03030007, "SMC_CLC_DECL_NOSMCD2DEV" },
	{ 0x03030008, "SMC_CLC_DECL_NOUEID" },
	{ 0x03030009, "SMC_CLC_DECL_RELEASEERR" },
	{ 0x0303000a, "SMC_CLC_DECL_MAXCONNERR" },
	{ 0x0303000b, "SMC_CLC_DECL_MAXLINKERR" },
	{ 0x03040000, "SMC_CLC_DECL_MODEUNSUPP" },
	{ 0x03050000, "SMC_CLC_DECL_RMBE_EC" },
	{ 0x03060000, "SMC_CLC_DECL_OPTUNSUPP" },
	{ 0x03070000, "SMC_CLC_DECL_DIFFPREFIX" },
	{ 0x03080000, "SMC_CLC_DECL_GETVLANERR" },
	{ 0x03090000, "SMC_CLC_DECL_ISMVLANERR" },
	{ 0x030a0000, "SMC_CLC_DECL_NOACTLINK" },
	{ 0x030b0000, "SMC_CLC_DECL_NOSRVLINK" },
	{ 0x030c0000, "SMC_CLC_DECL_VERSMISMAT" },
	{ 0x030d0000, "SMC_CLC_DECL_MAX_DMB" },
	{ 0x030e0000, "SMC_CLC_DECL_NOROUTE" },
	{ 0x030f0000, "SMC_CLC_DECL_NOINDIRECT" },
	{ 0x04000000, "SMC_CLC_DECL_SYNCERR" },
	{ 0x05000000, "SMC_CLC_DECL_PEERDECL" },
	{ 0x09990000, "SMC_CLC_DECL_INTERR" },
	{ 0x09990001, "SMC_CLC_DECL_ERR_RTOK" },
	{ 0x09990002, "SMC_CLC_DECL_ERR_RDYLNK" },
	{ 0x09990003, "SMC_CLC_DECL_ERR_REGBUF" },
};

static const char *reason_name(uint32_t code)
{
	size_t i;

	if (!code)
		return "NONE";
	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (reasons[i].code == code)
			return reasons[i].name;
	return "UNKNOWN";
}

/* SMC socket states; 1, 2, 7 and 10 coincide with the TCP states */
static const char *state_name(unsigned int s)
{
	switch (s) {
	case 1: return "ACTIVE";
	case 2: return "INIT";
	case 3: return "SYN_RECV";
	case 4: return "FIN_WAIT1";
	case 5: return "FIN_WAIT2";
	case 6: return "TIME_WAIT";
	case 7: return "CLOSED";
	case 8: return "CLOSE_WAIT";
	case 9: return "LAST_ACK";
	case 10: return "LISTEN";
	case 11: return "CLOSING";
	case 20: return "PEERCLOSEWAIT1";
	case 21: return "PEERCLOSEWAIT2";
	case 22: return "APPCLOSEWAIT1";
	case 23: return "APPCLOSEWAIT2";
	case 24: return "APPFINCLOSEWAIT";
	case 25: return "PEERFINCLOSEWAIT";
	case 26: return "PEERABORTWAIT";
	case 27: return "PROCESSABORT";
	default: return "UNKNOWN";
	}
}

static const char *mode_name(unsigned int m)
{
	switch (m) {
	case SMC_DIAG_MODE_SMCR: return "SMCR";
	case SMC_DIAG_MODE_FALLBACK_TCP: return "TCP";
	case SMC_DIAG_MODE_SMCD: return "SMCD";
	default: return "UNKNOWN";
	}
}

/* ---- netlink plumbing ---- */

static void die(int code, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(code);
}

static int nl_open(int proto)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd < 0)
		die(1, "netlink socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die(1, "netlink bind: %s", strerror(errno));
	return fd;
}

static void nl_send(int fd, struct nlmsghdr *nlh)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (sendto(fd, nlh, nlh->nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		die(1, "netlink send: %s", strerror(errno));
}

typedef void (*msg_cb)(const struct nlmsghdr *nlh, void *arg);

/* the kernel's explanation of the last error (extended ACK), or "" */
static char nl_errmsg[256];

static void nl_save_errmsg(const struct nlmsghdr *nlh);

/*
 * Receive the answer to the request with sequence number @seq until
 * NLMSG_DONE (dump) or the first message (non-dump).  Returns 0 or the
 * positive errno the kernel answered with.
 */
static int nl_recv(int fd, uint32_t seq, bool dump, msg_cb cb, void *arg)
{
	static char buf[RECV_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *nlh;
	int len;

	for (;;) {
		len = (int)recv(fd, buf, sizeof(buf), 0);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			die(1, "netlink receive: %s", strerror(errno));
		}
		if (len == 0)
			die(1, "%s", "netlink receive: unexpected end");
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
			cb(nlh, arg);
			if (!dump)
				return 0;
		}
	}
}

/* attributes: a flat table indexed by type, like libnl's nla_parse */
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

static void parse_attrs(const struct nlattr **tb, int max, const void *data,
			size_t len)
{
	parse_attr_range(tb, 0, max, data, len);
}

static const void *attr_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

/* NLMSGERR_ATTR_MSG of an error message with extended ACK attributes */
static void nl_save_errmsg(const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	size_t off = sizeof(*e), len, n;

	nl_errmsg[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	if (NLMSG_LENGTH(off) > nlh->nlmsg_len)
		return;
	len = nlh->nlmsg_len - NLMSG_LENGTH(off);
	parse_attrs(tb, NLMSGERR_ATTR_MAX, (const char *)e + off, len);
	if (!tb[NLMSGERR_ATTR_MSG])
		return;
	n = tb[NLMSGERR_ATTR_MSG]->nla_len - NLA_HDRLEN;
	if (n >= sizeof(nl_errmsg))
		n = sizeof(nl_errmsg) - 1;
	memcpy(nl_errmsg, attr_data(tb[NLMSGERR_ATTR_MSG]), n);
	nl_errmsg[n] = '\0';
}

static size_t attr_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

static void parse_nested(const struct nlattr **tb, int max,
			 const struct nlattr *nest)
{
	parse_attrs(tb, max, attr_data(nest), attr_len(nest));
}

/* this module's own attributes of @nest, from SMC_NLA_EXT_BASE on */
static void parse_ext(const struct nlattr **tb, int n,
		      const struct nlattr *nest)
{
	parse_attr_range(tb, SMC_NLA_EXT_BASE, n - 1, attr_data(nest),
			 attr_len(nest));
}

/* unsigned integer of any width the kernel may use (u8..u64, uint) */
static uint64_t attr_uint(const struct nlattr *a)
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

/* ---- generic netlink ---- */

struct genl_req {
	struct nlmsghdr nlh;
	struct genlmsghdr genl;
	char attrs[64];
};

static uint32_t seq_next = 1;

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
static int family_lookup_name(int fd, const char *name, int *id)
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
	req.nlh.nlmsg_seq = seq_next++;
	req.genl.cmd = CTRL_CMD_GETFAMILY;
	req.genl.version = 1;
	nl_send(fd, &req.nlh);
	return nl_recv(fd, req.nlh.nlmsg_seq, false, family_cb, id);
}

static int family_lookup(int fd, int *id)
{
	return family_lookup_name(fd, SMC_GENL_FAMILY_NAME, id);
}

/* Resolve SMC_GEN_NETLINK; exits with EXIT_NOSMC when it is not there. */
static int smc_family(int fd)
{
	int id = -1, err;

	err = family_lookup(fd, &id);
	if (err == ENOENT || (!err && id < 0))
		die(EXIT_NOSMC, "%s",
		    "generic netlink family " SMC_GENL_FAMILY_NAME
		    " not found: is the smc module loaded?");
	if (err)
		die(1, "resolving " SMC_GENL_FAMILY_NAME ": %s", strerror(err));
	return id;
}

/* a dump of @cmd; returns 0 or the positive errno the kernel answered */
static int smc_dump_try(int fd, int family, uint8_t cmd, msg_cb cb, void *arg)
{
	struct genl_req req;

	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	req.nlh.nlmsg_type = family;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nlh.nlmsg_seq = seq_next++;
	req.genl.cmd = cmd;
	req.genl.version = SMC_GENL_FAMILY_VERSION;
	nl_send(fd, &req.nlh);
	return nl_recv(fd, req.nlh.nlmsg_seq, true, cb, arg);
}

/* SMC_GEN_NETLINK's id, or -1 when it is not there (no exit) */
static int smc_family_quiet(int fd)
{
	int id = -1;

	if (family_lookup(fd, &id))
		return -1;
	return id;
}

static void smc_dump(int fd, int family, uint8_t cmd, msg_cb cb, void *arg)
{
	int err = smc_dump_try(fd, family, cmd, cb, arg);

	if (err)
		die(1, SMC_GENL_FAMILY_NAME " dump failed: %s", strerror(err));
}

/* the nest of type @top inside a SMC_GEN_NETLINK message, or NULL */
static const struct nlattr *smc_top(const struct nlmsghdr *nlh, int top)
{
	const struct nlattr *tb[SMC_GEN_MAX + 1];
	const struct genlmsghdr *g = NLMSG_DATA(nlh);

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*g)))
		return NULL;
	parse_attrs(tb, SMC_GEN_MAX, g + 1,
		    nlh->nlmsg_len - NLMSG_LENGTH(sizeof(*g)));
	return tb[top];
}

/* ---- smcctl fallback ---- */

#define MAX_REASONS 64

struct side_fback {
	uint64_t total;
	unsigned int n;
	uint32_t code[MAX_REASONS];
	uint32_t count[MAX_REASONS];
};

struct fback {
	struct side_fback side[2];	/* 0 client, 1 server */
};

static void fback_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[SMC_NLA_FBACK_STATS_MAX + 1];
	const struct nlattr *nest = smc_top(nlh, SMC_GEN_FBACK_STATS);
	struct fback *fb = arg;
	struct side_fback *s;

	if (!nest)
		return;
	parse_nested(tb, SMC_NLA_FBACK_STATS_MAX, nest);
	if (tb[SMC_NLA_FBACK_STATS_SRV_CNT])
		fb->side[1].total = attr_uint(tb[SMC_NLA_FBACK_STATS_SRV_CNT]);
	if (tb[SMC_NLA_FBACK_STATS_CLNT_CNT])
		fb->side[0].total = attr_uint(tb[SMC_NLA_FBACK_STATS_CLNT_CNT]);
	if (!tb[SMC_NLA_FBACK_STATS_RSN_CODE])
		return;
	s = &fb->side[attr_uint(tb[SMC_NLA_FBACK_STATS_TYPE]) ? 1 : 0];
	if (s->n == MAX_REASONS)
		return;
	s->code[s->n] = (uint32_t)attr_uint(tb[SMC_NLA_FBACK_STATS_RSN_CODE]);
	s->count[s->n] = (uint32_t)attr_uint(tb[SMC_NLA_FBACK_STATS_RSN_CNT]);
	s->n++;
}

static void get_fback(int fd, int family, struct fback *fb)
{
	memset(fb, 0, sizeof(*fb));
	smc_dump(fd, family, SMC_NETLINK_GET_FBACK_STATS, fback_cb, fb);
}

static void print_fback_side(const char *name, const struct side_fback *s,
			     bool last)
{
	unsigned int i;

	if (json) {
		printf("\"%s\":{\"total\":%" PRIu64 ",\"reasons\":[", name,
		       s->total);
		for (i = 0; i < s->n; i++)
			printf("%s{\"reason\":%" PRIu32 ",\"hex\":\"0x%08" PRIx32
			       "\",\"name\":\"%s\",\"count\":%" PRIu32 "}",
			       i ? "," : "", s->code[i], s->code[i],
			       reason_name(s->code[i]), s->count[i]);
		printf("]}%s", last ? "" : ",");
		return;
	}
	printf("%s fallbacks: %" PRIu64 "\n", name, s->total);
	for (i = 0; i < s->n; i++)
		printf("  0x%08" PRIx32 "  %-26s %10" PRIu32 "\n", s->code[i],
		       reason_name(s->code[i]), s->count[i]);
}

static int cmd_fallback(void)
{
	int fd = nl_open(NETLINK_GENERIC);
	struct fback fb;

	get_fback(fd, smc_family(fd), &fb);
	if (json)
		printf("{");
	print_fback_side("client", &fb.side[0], false);
	print_fback_side("server", &fb.side[1], true);
	if (json)
		printf("}\n");
	close(fd);
	return 0;
}

/* ---- smcctl stats ---- */

struct stats {
	uint64_t succ[2][2];	/* [client/server][v1/v2] */
	uint64_t hs_err[2];
	uint64_t rx_bytes, tx_bytes, rx_cnt, tx_cnt;
};

static void stats_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[SMC_NLA_STATS_MAX + 1];
	const struct nlattr *t[SMC_NLA_STATS_T_MAX + 1];
	const struct nlattr *nest = smc_top(nlh, SMC_GEN_STATS);
	struct stats *st = arg;

	if (!nest)
		return;
	parse_nested(tb, SMC_NLA_STATS_MAX, nest);
	st->hs_err[0] = attr_uint(tb[SMC_NLA_STATS_CLNT_HS_ERR_CNT]);
	st->hs_err[1] = attr_uint(tb[SMC_NLA_STATS_SRV_HS_ERR_CNT]);
	if (!tb[SMC_NLA_STATS_SMCR_TECH])
		return;
	parse_nested(t, SMC_NLA_STATS_T_MAX, tb[SMC_NLA_STATS_SMCR_TECH]);
	st->succ[0][0] = attr_uint(t[SMC_NLA_STATS_T_CLNT_V1_SUCC]);
	st->succ[0][1] = attr_uint(t[SMC_NLA_STATS_T_CLNT_V2_SUCC]);
	st->succ[1][0] = attr_uint(t[SMC_NLA_STATS_T_SRV_V1_SUCC]);
	st->succ[1][1] = attr_uint(t[SMC_NLA_STATS_T_SRV_V2_SUCC]);
	st->rx_bytes = attr_uint(t[SMC_NLA_STATS_T_RX_BYTES]);
	st->tx_bytes = attr_uint(t[SMC_NLA_STATS_T_TX_BYTES]);
	st->rx_cnt = attr_uint(t[SMC_NLA_STATS_T_RX_CNT]);
	st->tx_cnt = attr_uint(t[SMC_NLA_STATS_T_TX_CNT]);
}

static int cmd_stats(void)
{
	int fd = nl_open(NETLINK_GENERIC);
	int family = smc_family(fd);
	uint64_t c, s;
	struct stats st;
	struct fback fb;

	memset(&st, 0, sizeof(st));
	smc_dump(fd, family, SMC_NETLINK_GET_STATS, stats_cb, &st);
	get_fback(fd, family, &fb);
	c = st.succ[0][0] + st.succ[0][1];
	s = st.succ[1][0] + st.succ[1][1];
	if (json) {
		printf("{\"smcr_connections\":{\"client\":%" PRIu64
		       ",\"server\":%" PRIu64 ",\"v1\":%" PRIu64
		       ",\"v2\":%" PRIu64 "},", c, s,
		       st.succ[0][0] + st.succ[1][0],
		       st.succ[0][1] + st.succ[1][1]);
		printf("\"fallbacks\":{\"client\":%" PRIu64 ",\"server\":%"
		       PRIu64 "},", fb.side[0].total, fb.side[1].total);
		printf("\"handshake_errors\":{\"client\":%" PRIu64
		       ",\"server\":%" PRIu64 "},", st.hs_err[0], st.hs_err[1]);
		printf("\"rx\":{\"bytes\":%" PRIu64 ",\"calls\":%" PRIu64 "},",
		       st.rx_bytes, st.rx_cnt);
		printf("\"tx\":{\"bytes\":%" PRIu64 ",\"calls\":%" PRIu64 "}}\n",
		       st.tx_bytes, st.tx_cnt);
	} else {
		printf("%-18s %12s %12s\n", "", "client", "server");
		printf("%-18s %12" PRIu64 " %12" PRIu64 "\n", "SMC-R (v1)",
		       st.succ[0][0], st.succ[1][0]);
		printf("%-18s %12" PRIu64 " %12" PRIu64 "\n", "SMC-R (v2)",
		       st.succ[0][1], st.succ[1][1]);
		printf("%-18s %12" PRIu64 " %12" PRIu64 "\n", "TCP fallback",
		       fb.side[0].total, fb.side[1].total);
		printf("%-18s %12" PRIu64 " %12" PRIu64 "\n", "handshake errors",
		       st.hs_err[0], st.hs_err[1]);
		printf("rx %" PRIu64 " bytes in %" PRIu64 " calls, tx %" PRIu64
		       " bytes in %" PRIu64 " calls\n", st.rx_bytes, st.rx_cnt,
		       st.tx_bytes, st.tx_cnt);
	}
	close(fd);
	return 0;
}

/* ---- smcctl info ---- */

static void info_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[SMC_NLA_SYS_MAX + 1];
	const struct nlattr *nest = smc_top(nlh, SMC_GEN_SYS_INFO);
	char host[SMC_MAX_HOSTNAME_LEN + 1] = "";
	size_t n;

	(void)arg;
	if (!nest)
		return;
	parse_nested(tb, SMC_NLA_SYS_MAX, nest);
	if (tb[SMC_NLA_SYS_LOCAL_HOST]) {
		n = attr_len(tb[SMC_NLA_SYS_LOCAL_HOST]);
		if (n > SMC_MAX_HOSTNAME_LEN)
			n = SMC_MAX_HOSTNAME_LEN;
		memcpy(host, attr_data(tb[SMC_NLA_SYS_LOCAL_HOST]), n);
		host[n] = '\0';
		/* blank padded as in the CLC messages; keep printable only */
		for (n = strlen(host); n && host[n - 1] == ' '; n--)
			host[n - 1] = '\0';
		for (n = 0; host[n]; n++)
			if (host[n] < 0x20 || host[n] > 0x7e || host[n] == '"' ||
			    host[n] == '\\')
				host[n] = '?';
	}
	if (json)
		printf("{\"version\":%" PRIu64 ",\"release\":%" PRIu64
		       ",\"smcr_v2\":%s,\"ism_v2\":%s,\"hostname\":\"%s\"}\n",
		       attr_uint(tb[SMC_NLA_SYS_VER]),
		       attr_uint(tb[SMC_NLA_SYS_REL]),
		       attr_uint(tb[SMC_NLA_SYS_IS_SMCR_V2]) ? "true" : "false",
		       attr_uint(tb[SMC_NLA_SYS_IS_ISM_V2]) ? "true" : "false",
		       host);
	else
		printf("version %" PRIu64 " release %" PRIu64
		       "  SMC-Rv2 %s  ISMv2 %s  hostname %s\n",
		       attr_uint(tb[SMC_NLA_SYS_VER]),
		       attr_uint(tb[SMC_NLA_SYS_REL]),
		       attr_uint(tb[SMC_NLA_SYS_IS_SMCR_V2]) ? "yes" : "no",
		       attr_uint(tb[SMC_NLA_SYS_IS_ISM_V2]) ? "yes" : "no",
		       host);
}

static int cmd_info(void)
{
	int fd = nl_open(NETLINK_GENERIC);

	smc_dump(fd, smc_family(fd), SMC_NETLINK_GET_SYS_INFO, info_cb, NULL);
	close(fd);
	return 0;
}

/* ---- smcctl devices ---- */

/* a netlink string attribute, printable and JSON safe, at most len - 1 */
static void attr_str(char *buf, size_t len, const struct nlattr *a)
{
	size_t n = 0, i;

	if (a) {
		n = attr_len(a);
		if (n > len - 1)
			n = len - 1;
		memcpy(buf, attr_data(a), n);
	}
	buf[n] = '\0';
	for (i = 0; buf[i]; i++)
		if (buf[i] < 0x20 || buf[i] > 0x7e || buf[i] == '"' ||
		    buf[i] == '\\')
			buf[i] = '?';
}

struct dev_out {
	unsigned int n;
	FILE *f;		/* collects the output until the dump succeeded */
};

static void dev_port(FILE *f, const char *name, const char *pci,
		     unsigned int port, const struct nlattr *nest, bool first)
{
	const struct nlattr *tb[SMC_NLA_DEV_PORT_MAX + 1];
	char pnetid[16 + 1];		/* a PNET ID has at most 16 bytes */
	char ifname[IF_NAMESIZE] = "";
	unsigned int ifindex;
	bool active, user;

	parse_nested(tb, SMC_NLA_DEV_PORT_MAX, nest);
	attr_str(pnetid, sizeof(pnetid), tb[SMC_NLA_DEV_PORT_PNETID]);
	ifindex = (unsigned int)attr_uint(tb[SMC_NLA_DEV_PORT_NETDEV]);
	if (ifindex && !if_indextoname(ifindex, ifname))
		ifname[0] = '\0';
	active = attr_uint(tb[SMC_NLA_DEV_PORT_STATE]);
	user = attr_uint(tb[SMC_NLA_DEV_PORT_PNET_USR]);
	if (json) {
		fprintf(f, "%s{\"port\":%u,\"active\":%s,\"ifindex\":%u,",
			first ? "" : ",", port, active ? "true" : "false",
			ifindex);
		if (ifname[0])
			fprintf(f, "\"netdev\":\"%s\",", ifname);
		else
			fprintf(f, "\"netdev\":null,");
		fprintf(f, "\"pnetid\":\"%s\",\"pnetid_by_user\":%s,"
			"\"links\":%" PRIu64 "}", pnetid,
			user ? "true" : "false",
			attr_uint(tb[SMC_NLA_DEV_PORT_LNK_CNT]));
		return;
	}
	fprintf(f, "%-16s %-14s %4u  %-8s %-16s %-16s%s %5" PRIu64 "\n",
		name, pci, port, active ? "ACTIVE" : "INACTIVE",
		ifname[0] ? ifname : "-", pnetid[0] ? pnetid : "-",
		user ? "*" : " ", attr_uint(tb[SMC_NLA_DEV_PORT_LNK_CNT]));
}

static void dev_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *nest = smc_top(nlh, SMC_GEN_DEV_SMCR);
	const struct nlattr *tb[SMC_NLA_DEV_MAX + 1];
	char name[IB_DEVICE_NAME_MAX], pci[SMC_PCI_ID_STR_LEN + 1];
	struct dev_out *out = arg;
	bool first = true;
	int i;

	if (!nest)
		return;
	parse_nested(tb, SMC_NLA_DEV_MAX, nest);
	attr_str(name, sizeof(name), tb[SMC_NLA_DEV_IB_NAME]);
	attr_str(pci, sizeof(pci), tb[SMC_NLA_DEV_PCI_ID]);
	if (json) {
		fprintf(out->f, "%s{\"name\":\"%s\",\"critical\":%s,",
			out->n ? "," : "", name,
			attr_uint(tb[SMC_NLA_DEV_IS_CRIT]) ? "true" : "false");
		if (tb[SMC_NLA_DEV_PCI_ID])
			fprintf(out->f, "\"pci\":{\"id\":\"%s\",\"vendor\":%"
				PRIu64 ",\"device\":%" PRIu64 ",\"fid\":%"
				PRIu64 ",\"pchid\":%" PRIu64 "},", pci,
				attr_uint(tb[SMC_NLA_DEV_PCI_VENDOR]),
				attr_uint(tb[SMC_NLA_DEV_PCI_DEVICE]),
				attr_uint(tb[SMC_NLA_DEV_PCI_FID]),
				attr_uint(tb[SMC_NLA_DEV_PCI_CHID]));
		else
			fprintf(out->f, "\"pci\":null,");
		fprintf(out->f, "\"ports\":[");
	}
	for (i = 0; i < 2; i++) {
		if (!tb[SMC_NLA_DEV_PORT + i])
			continue;
		dev_port(out->f, name, pci[0] ? pci : "-", i + 1,
			 tb[SMC_NLA_DEV_PORT + i], first);
		first = false;
	}
	if (json)
		fprintf(out->f, "]}");
	else if (first)		/* no port at all */
		fprintf(out->f, "%-16s %-14s %4s\n", name, pci[0] ? pci : "-",
			"-");
	out->n++;
}

static int cmd_devices(void)
{
	int fd = nl_open(NETLINK_GENERIC);
	struct dev_out out = { 0, NULL };
	char *lines = NULL;
	size_t size = 0;

	out.f = open_memstream(&lines, &size);
	if (!out.f)
		die(1, "open_memstream: %s", strerror(errno));
	smc_dump(fd, smc_family(fd), SMC_NETLINK_GET_DEV_SMCR, dev_cb, &out);
	fclose(out.f);
	if (json)
		printf("{\"devices\":[%s]}\n", lines);
	else
		printf("%-16s %-14s %4s  %-8s %-16s %-17s %5s\n%s", "Device",
		       "PCI ID", "Port", "State", "Net-Dev", "PNET ID", "Links",
		       lines);
	free(lines);
	close(fd);
	return 0;
}

/* ---- smcctl linkgroups, smcctl links ---- */

/* a GID as the kernel formats it: 8 groups of 4 hex digits and 7 colons */
#define GID_STR_LEN 39

struct link_ent {
	unsigned int link_id;
	unsigned int state;
	unsigned int conns;
	unsigned int port;
	unsigned int ifindex;
	uint32_t uid, peer_uid;
	char ibdev[64];
	char gid[GID_STR_LEN + 1];
	char peer_gid[GID_STR_LEN + 1];
	uint64_t tx_wimm, rx_wimm;	/* this module's links only */
};

struct lgr_ent {
	uint32_t id;
	unsigned int role, type, buf_type, vlan;
	uint32_t conns;
	uint64_t net_cookie, sndbuf_bytes, rmb_bytes;
	char pnetid[16 + 1];
	bool v2;			/* the v2 nests were present */
	unsigned int version, release, peer_os;
	char peer_host[SMC_MAX_HOSTNAME_LEN + 1];
	char neg_eid[SMC_MAX_EID_LEN + 1];
	int direct;			/* -1 when not reported */
	unsigned int max_conns, max_links;
	int vx;				/* SMC_VX_*, -1 when not reported */
	unsigned int nlinks;
	struct link_ent *links;
};

struct lgr_list {
	unsigned int n;
	struct lgr_ent *lgr;
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die(1, "%s", "out of memory");
	return p;
}

/* the host name of a v2 peer arrives blank padded: strip the blanks */
static void rstrip(char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
}

static void lgr_v2(struct lgr_ent *g, const struct nlattr *common,
		   const struct nlattr *r2)
{
	const struct nlattr *tb[SMC_NLA_LGR_V2_MAX + 1];
	const struct nlattr *rb[SMC_NLA_LGR_R_V2_MAX + 1];

	g->v2 = true;
	if (common) {
		/* attribute type 0 is the version: parse_attrs keeps it */
		parse_nested(tb, SMC_NLA_LGR_V2_MAX, common);
		if (tb[SMC_NLA_LGR_V2_VER])
			g->version = (unsigned int)attr_uint(tb[SMC_NLA_LGR_V2_VER]);
		g->release = (unsigned int)attr_uint(tb[SMC_NLA_LGR_V2_REL]);
		g->peer_os = (unsigned int)attr_uint(tb[SMC_NLA_LGR_V2_OS]);
		attr_str(g->peer_host, sizeof(g->peer_host),
			 tb[SMC_NLA_LGR_V2_PEER_HOST]);
		rstrip(g->peer_host);
		attr_str(g->neg_eid, sizeof(g->neg_eid),
			 tb[SMC_NLA_LGR_V2_NEG_EID]);
		rstrip(g->neg_eid);
	}
	if (r2) {
		parse_nested(rb, SMC_NLA_LGR_R_V2_MAX, r2);
		if (rb[SMC_NLA_LGR_R_V2_DIRECT])
			g->direct = attr_uint(rb[SMC_NLA_LGR_R_V2_DIRECT]) ? 1 : 0;
		g->max_conns = (unsigned int)attr_uint(rb[SMC_NLA_LGR_R_V2_MAX_CONNS]);
		g->max_links = (unsigned int)attr_uint(rb[SMC_NLA_LGR_R_V2_MAX_LINKS]);
	}
}

static void lgr_msg(struct lgr_list *l, const struct nlattr *nest)
{
	const struct nlattr *tb[SMC_NLA_LGR_R_MAX + 1];
	const struct nlattr *ext[1];
	struct lgr_ent *g;

	l->lgr = xrealloc(l->lgr, (l->n + 1) * sizeof(*l->lgr));
	g = &l->lgr[l->n++];
	memset(g, 0, sizeof(*g));
	g->direct = -1;
	g->version = 1;
	parse_nested(tb, SMC_NLA_LGR_R_MAX, nest);
	g->id = (uint32_t)attr_uint(tb[SMC_NLA_LGR_R_ID]);
	g->role = (unsigned int)attr_uint(tb[SMC_NLA_LGR_R_ROLE]);
	g->type = (unsigned int)attr_uint(tb[SMC_NLA_LGR_R_TYPE]);
	g->buf_type = (unsigned int)attr_uint(tb[SMC_NLA_LGR_R_BUF_TYPE]);
	g->vlan = (unsigned int)attr_uint(tb[SMC_NLA_LGR_R_VLAN_ID]);
	g->conns = (uint32_t)attr_uint(tb[SMC_NLA_LGR_R_CONNS_NUM]);
	g->net_cookie = attr_uint(tb[SMC_NLA_LGR_R_NET_COOKIE]);
	g->sndbuf_bytes = attr_uint(tb[SMC_NLA_LGR_R_SNDBUF_ALLOC]);
	g->rmb_bytes = attr_uint(tb[SMC_NLA_LGR_R_RMB_ALLOC]);
	attr_str(g->pnetid, sizeof(g->pnetid), tb[SMC_NLA_LGR_R_PNETID]);
	if (tb[SMC_NLA_LGR_R_V2_COMMON] || tb[SMC_NLA_LGR_R_V2])
		lgr_v2(g, tb[SMC_NLA_LGR_R_V2_COMMON], tb[SMC_NLA_LGR_R_V2]);
	parse_ext(ext, 1, nest);
	g->vx = ext[0] ? (int)attr_uint(ext[0]) : -1;
}

/* a link belongs to the link group message before it */
static void link_msg(struct lgr_list *l, const struct nlattr *nest)
{
	const struct nlattr *tb[SMC_NLA_LINK_MAX + 1];
	const struct nlattr *ext[2];
	struct lgr_ent *g;
	struct link_ent *k;

	if (!l->n)
		return;
	g = &l->lgr[l->n - 1];
	g->links = xrealloc(g->links, (g->nlinks + 1) * sizeof(*g->links));
	k = &g->links[g->nlinks++];
	memset(k, 0, sizeof(*k));
	parse_nested(tb, SMC_NLA_LINK_MAX, nest);
	k->link_id = (unsigned int)attr_uint(tb[SMC_NLA_LINK_ID]);
	k->state = (unsigned int)attr_uint(tb[SMC_NLA_LINK_STATE]);
	k->conns = (unsigned int)attr_uint(tb[SMC_NLA_LINK_CONN_CNT]);
	k->port = (unsigned int)attr_uint(tb[SMC_NLA_LINK_IB_PORT]);
	k->ifindex = (unsigned int)attr_uint(tb[SMC_NLA_LINK_NET_DEV]);
	k->uid = (uint32_t)attr_uint(tb[SMC_NLA_LINK_UID]);
	k->peer_uid = (uint32_t)attr_uint(tb[SMC_NLA_LINK_PEER_UID]);
	attr_str(k->ibdev, sizeof(k->ibdev), tb[SMC_NLA_LINK_IB_DEV]);
	attr_str(k->gid, sizeof(k->gid), tb[SMC_NLA_LINK_GID]);
	attr_str(k->peer_gid, sizeof(k->peer_gid), tb[SMC_NLA_LINK_PEER_GID]);
	parse_ext(ext, 2, nest);
	k->tx_wimm = attr_uint(ext[SMC_NLA_LINK_EXT_TX_WIMM - SMC_NLA_EXT_BASE]);
	k->rx_wimm = attr_uint(ext[SMC_NLA_LINK_EXT_RX_WIMM - SMC_NLA_EXT_BASE]);
}

static void lgr_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *nest;

	nest = smc_top(nlh, SMC_GEN_LGR_SMCR);
	if (nest) {
		lgr_msg(arg, nest);
		return;
	}
	nest = smc_top(nlh, SMC_GEN_LINK_SMCR);
	if (nest)
		link_msg(arg, nest);
}

/*
 * All link groups with their links (SMC_NETLINK_GET_LINK_SMCR sends each
 * link group's message followed by its links').  Returns 0 or an errno.
 */
static int get_lgrs(int fd, int family, struct lgr_list *l)
{
	memset(l, 0, sizeof(*l));
	return smc_dump_try(fd, family, SMC_NETLINK_GET_LINK_SMCR, lgr_cb, l);
}

static void free_lgrs(struct lgr_list *l)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		free(l->lgr[i].links);
	free(l->lgr);
}

/* get_lgrs() on a socket of its own; an errno when there are none */
static int get_lgrs_quiet(struct lgr_list *l)
{
	int fd = nl_open(NETLINK_GENERIC);
	int family = smc_family_quiet(fd);
	int err = ENOENT;

	memset(l, 0, sizeof(*l));
	if (family >= 0)
		err = get_lgrs(fd, family, l);
	if (err) {
		free_lgrs(l);
		memset(l, 0, sizeof(*l));
	}
	close(fd);
	return err;
}

static const char *role_name(unsigned int r)
{
	return r == 0 ? "CLIENT" : r == 1 ? "SERVER" : "UNKNOWN";
}

static const char *lgr_type_name(unsigned int t)
{
	switch (t) {
	case 0: return "NONE";
	case 1: return "SINGLE";
	case 2: return "SYMMETRIC";
	case 3: return "ASYMMETRIC_PEER";
	case 4: return "ASYMMETRIC_LOCAL";
	default: return "UNKNOWN";
	}
}

static const char *link_state_name(unsigned int s)
{
	switch (s) {
	case 0: return "UNUSED";
	case 1: return "INACTIVE";
	case 2: return "ACTIVATING";
	case 3: return "ACTIVE";
	default: return "UNKNOWN";
	}
}

/* the peer of a link group: its first link's peer GID */
static const char *lgr_peer(const struct lgr_ent *g)
{
	return g->nlinks ? g->links[0].peer_gid : "";
}

static void json_lgr(const struct lgr_ent *g, bool first)
{
	printf("%s{\"id\":%" PRIu32 ",\"id_hex\":\"%08" PRIx32 "\","
	       "\"role\":\"%s\",\"type\":\"%s\",\"type_num\":%u,"
	       "\"version\":%u,\"release\":%u,\"conns\":%" PRIu32 ","
	       "\"links\":%u,\"peer_gid\":\"%s\",\"peer_host\":\"%s\","
	       "\"peer_os\":%u,\"neg_eid\":\"%s\",\"vlan\":%u,\"pnetid\":\"%s\","
	       "\"net_cookie\":%" PRIu64 ",\"buf_type\":%u,"
	       "\"sndbuf_bytes\":%" PRIu64 ",\"rmb_bytes\":%" PRIu64 ",",
	       first ? "" : ",", g->id, g->id, role_name(g->role),
	       lgr_type_name(g->type), g->type, g->version, g->release,
	       g->conns, g->nlinks, lgr_peer(g), g->peer_host, g->peer_os,
	       g->neg_eid, g->vlan, g->pnetid, g->net_cookie, g->buf_type,
	       g->sndbuf_bytes, g->rmb_bytes);
	/* extensions agreed: null from a module without them (Linux) */
	if (g->vx < 0)
		printf("\"extensions\":null,");
	else
		printf("\"extensions\":[%s],",
		       g->vx & SMC_VX_WIMM ? "\"wimm\"" : "");
	if (g->v2)
		printf("\"max_conns\":%u,\"max_links\":%u,\"direct\":%s}",
		       g->max_conns, g->max_links,
		       g->direct < 0 ? "null" : g->direct ? "true" : "false");
	else
		printf("\"max_conns\":null,\"max_links\":null,\"direct\":null}");
}

static int cmd_linkgroups(void)
{
	int fd = nl_open(NETLINK_GENERIC);
	struct lgr_list l;
	const struct lgr_ent *g;
	unsigned int i;
	int err;

	err = get_lgrs(fd, smc_family(fd), &l);
	if (err)
		die(1, "link group dump failed: %s", strerror(err));
	if (json)
		printf("{\"linkgroups\":[");
	else
		printf("%-8s %-6s %-16s %-3s %5s %5s %s\n", "LG-ID", "Role",
		       "Type", "Ver", "Conns", "Links", "Peer");
	for (i = 0; i < l.n; i++) {
		g = &l.lgr[i];
		if (json) {
			json_lgr(g, !i);
			continue;
		}
		printf("%08" PRIx32 " %-6s %-16s %u.%u %5" PRIu32 " %5u %s%s%s%s%s\n",
		       g->id, role_name(g->role), lgr_type_name(g->type),
		       g->version, g->release, g->conns, g->nlinks,
		       g->nlinks ? lgr_peer(g) : "-",
		       g->peer_host[0] ? " (" : "", g->peer_host,
		       g->peer_host[0] ? ")" : "",
		       g->vx > 0 && g->vx & SMC_VX_WIMM ? " [wimm]" : "");
	}
	if (json)
		printf("]}\n");
	free_lgrs(&l);
	close(fd);
	return 0;
}

static int cmd_links(void)
{
	int fd = nl_open(NETLINK_GENERIC);
	char ifname[IF_NAMESIZE];
	const struct link_ent *k;
	const struct lgr_ent *g;
	unsigned int i, j, n = 0;
	struct lgr_list l;
	int err;

	err = get_lgrs(fd, smc_family(fd), &l);
	if (err)
		die(1, "link dump failed: %s", strerror(err));
	if (json)
		printf("{\"links\":[");
	else
		printf("%-8s %4s %-10s %-12s %4s %-10s %5s %s\n", "LG-ID", "Link",
		       "State", "Device", "Port", "Net-Dev", "Conns",
		       "GID -> Peer GID");
	for (i = 0; i < l.n; i++) {
		g = &l.lgr[i];
		for (j = 0; j < g->nlinks; j++) {
			k = &g->links[j];
			if (!k->ifindex || !if_indextoname(k->ifindex, ifname))
				ifname[0] = '\0';
			if (!json) {
				printf("%08" PRIx32 " %4u %-10s %-12s %4u %-10s %5u %s -> %s\n",
				       g->id, k->link_id,
				       link_state_name(k->state), k->ibdev,
				       k->port, ifname[0] ? ifname : "-",
				       k->conns, k->gid, k->peer_gid);
				continue;
			}
			printf("%s{\"lgr_id\":%" PRIu32 ",\"lgr_id_hex\":\"%08"
			       PRIx32 "\",\"role\":\"%s\",\"link_id\":%u,"
			       "\"state\":\"%s\",\"state_num\":%u,"
			       "\"ibdev\":\"%s\",\"ibport\":%u,\"ifindex\":%u,",
			       n ? "," : "", g->id, g->id, role_name(g->role),
			       k->link_id, link_state_name(k->state), k->state,
			       k->ibdev, k->port, k->ifindex);
			if (ifname[0])
				printf("\"netdev\":\"%s\",", ifname);
			else
				printf("\"netdev\":null,");
			printf("\"gid\":\"%s\",\"peer_gid\":\"%s\","
			       "\"link_uid\":%" PRIu32 ",\"peer_link_uid\":%"
			       PRIu32 ",\"conns\":%u,\"tx_wimm\":%" PRIu64
			       ",\"rx_wimm\":%" PRIu64 "}", k->gid, k->peer_gid,
			       k->uid, k->peer_uid, k->conns, k->tx_wimm,
			       k->rx_wimm);
			n++;
		}
	}
	if (json)
		printf("]}\n");
	free_lgrs(&l);
	close(fd);
	return 0;
}

/* ---- smcctl connections ---- */

struct conn_out {
	unsigned int n;
	FILE *f;		/* collects the lines until the dump succeeded */
	const struct lgr_list *lgrs;	/* to find a connection's lgr id */
};

/*
 * The reply carries addresses but not their family (diag_family is
 * AF_SMC): an IPv4 clcsock fills only the first word of each address.
 */
static bool is_v4(const struct inet_diag_sockid *id)
{
	return !(id->idiag_src[1] | id->idiag_src[2] | id->idiag_src[3] |
		 id->idiag_dst[1] | id->idiag_dst[2] | id->idiag_dst[3]);
}

static void fmt_addr(char *buf, size_t len, bool v4, const __be32 *addr)
{
	if (!inet_ntop(v4 ? AF_INET : AF_INET6, addr, buf, len))
		snprintf(buf, len, "?");
}

/*
 * The link group of a connection: the one whose role is @role and which
 * has the link of @li (device, port, link id, both GIDs).  NULL unless
 * exactly one matches.
 */
static const struct lgr_ent *conn_lgr(const struct lgr_list *l, unsigned int role,
				      const struct smc_diag_linkinfo *li,
				      const char *ibname, const char *gid,
				      const char *peer_gid)
{
	const struct lgr_ent *found = NULL;
	const struct link_ent *k;
	unsigned int i, j;

	for (i = 0; l && i < l->n; i++) {
		if (l->lgr[i].role != role)
			continue;
		for (j = 0; j < l->lgr[i].nlinks; j++) {
			k = &l->lgr[i].links[j];
			if (k->link_id != li->link_id || k->port != li->ibport ||
			    strcmp(k->ibdev, ibname) || strcmp(k->gid, gid) ||
			    strcmp(k->peer_gid, peer_gid))
				continue;
			if (found && found != &l->lgr[i])
				return NULL;
			found = &l->lgr[i];
		}
	}
	return found;
}

/* a fixed-size text field of a diag structure, printable and JSON safe */
static void diag_str(char *buf, size_t len, const __u8 *src, size_t n)
{
	size_t i;

	if (n > len - 1)
		n = len - 1;
	memcpy(buf, src, n);
	buf[n] = '\0';
	for (i = 0; buf[i]; i++)
		if (buf[i] < 0x20 || buf[i] > 0x7e || buf[i] == '"' ||
		    buf[i] == '\\')
			buf[i] = '?';
}

/* one cursor: text "NAME WRAP:COUNT", JSON ",\"NAME\":{...}" */
static void put_curs(FILE *f, const char *name,
		     const struct smc_diag_cursor *c)
{
	if (json)
		fprintf(f, ",\"%s\":{\"wrap\":%u,\"count\":%u}", name,
			(unsigned int)c->wrap, (unsigned int)c->count);
	else
		fprintf(f, " %s %u:%u", name, (unsigned int)c->wrap,
			(unsigned int)c->count);
}

static void put_cursors(FILE *f, const struct smc_diag_conninfo *ci)
{
	put_curs(f, "rx_prod", &ci->rx_prod);
	put_curs(f, "rx_cons", &ci->rx_cons);
	put_curs(f, "tx_prod", &ci->tx_prod);
	put_curs(f, "tx_cons", &ci->tx_cons);
	put_curs(f, "tx_prep", &ci->tx_prep);
	put_curs(f, "tx_sent", &ci->tx_sent);
	put_curs(f, "tx_fin", &ci->tx_fin);
}

/* the SMC-R part of a connection: "smcr":{...} or "smcr":null */
static void conn_smcr(FILE *f, const struct lgr_list *lgrs,
		      const struct nlattr *cattr, const struct nlattr *lattr)
{
	char ibname[IB_DEVICE_NAME_MAX + 1], gid[41], peer_gid[41];
	const struct lgr_ent *g = NULL;
	struct smc_diag_conninfo ci;
	struct smc_diag_lgrinfo li;
	bool have_li;

	if (!cattr || attr_len(cattr) < sizeof(ci)) {
		if (json)
			fprintf(f, ",\"smcr\":null");
		return;
	}
	memcpy(&ci, attr_data(cattr), sizeof(ci));
	have_li = lattr && attr_len(lattr) >= sizeof(li);
	if (have_li) {
		memcpy(&li, attr_data(lattr), sizeof(li));
		diag_str(ibname, sizeof(ibname), li.lnk[0].ibname,
			 sizeof(li.lnk[0].ibname));
		diag_str(gid, sizeof(gid), li.lnk[0].gid, sizeof(li.lnk[0].gid));
		diag_str(peer_gid, sizeof(peer_gid), li.lnk[0].peer_gid,
			 sizeof(li.lnk[0].peer_gid));
		g = conn_lgr(lgrs, li.role, &li.lnk[0], ibname, gid, peer_gid);
	}
	if (!json) {
		if (g)
			fprintf(f, "  smcr lgr %08" PRIx32, g->id);
		else
			fprintf(f, "  smcr lgr -");
		if (have_li)
			fprintf(f, " link %u %s %s/%u", li.lnk[0].link_id,
				role_name(li.role), ibname, li.lnk[0].ibport);
		fprintf(f, " token %u sndbuf %u rmbe %u peer_rmbe %u", ci.token,
			ci.sndbuf_size, ci.rmbe_size, ci.peer_rmbe_size);
		put_cursors(f, &ci);
		fputc('\n', f);
		return;
	}
	fprintf(f, ",\"smcr\":{");
	if (g)
		fprintf(f, "\"lgr_id\":%" PRIu32 ",\"lgr_id_hex\":\"%08" PRIx32
			"\",", g->id, g->id);
	else
		fprintf(f, "\"lgr_id\":null,\"lgr_id_hex\":null,");
	if (have_li)
		fprintf(f, "\"role\":\"%s\",\"link_id\":%u,\"ibdev\":\"%s\","
			"\"ibport\":%u,\"gid\":\"%s\",\"peer_gid\":\"%s\",",
			role_name(li.role), li.lnk[0].link_id, ibname,
			li.lnk[0].ibport, gid, peer_gid);
	else
		fprintf(f, "\"role\":null,\"link_id\":null,\"ibdev\":null,"
			"\"ibport\":null,\"gid\":null,\"peer_gid\":null,");
	fprintf(f, "\"token\":%u,\"sndbuf_size\":%u,\"rmbe_size\":%u,",
		ci.token, ci.sndbuf_size, ci.rmbe_size);
	fprintf(f, "\"peer_rmbe_size\":%u", ci.peer_rmbe_size);
	put_cursors(f, &ci);
	fprintf(f, ",\"rx_prod_flags\":%u,\"rx_conn_state_flags\":%u",
		ci.rx_prod_flags, ci.rx_conn_state_flags);
	fprintf(f, ",\"tx_prod_flags\":%u,\"tx_conn_state_flags\":%u}",
		ci.tx_prod_flags, ci.tx_conn_state_flags);
}

static void conn_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct smc_diag_msg *r = NLMSG_DATA(nlh);
	const struct nlattr *tb[SMC_DIAG_MAX + 1];
	struct smc_diag_fallback fb = { 0, 0 };
	char laddr[INET6_ADDRSTRLEN], paddr[INET6_ADDRSTRLEN];
	char lstr[INET6_ADDRSTRLEN + 8], pstr[INET6_ADDRSTRLEN + 8];
	struct conn_out *out = arg;
	unsigned int lport, pport;
	bool v4;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*r)))
		return;
	parse_attrs(tb, SMC_DIAG_MAX, r + 1,
		    nlh->nlmsg_len - NLMSG_LENGTH(sizeof(*r)));
	if (tb[SMC_DIAG_FALLBACK] && attr_len(tb[SMC_DIAG_FALLBACK]) >= sizeof(fb))
		memcpy(&fb, attr_data(tb[SMC_DIAG_FALLBACK]), sizeof(fb));
	v4 = is_v4(&r->id);
	fmt_addr(laddr, sizeof(laddr), v4, r->id.idiag_src);
	fmt_addr(paddr, sizeof(paddr), v4, r->id.idiag_dst);
	lport = ntohs(r->id.idiag_sport);
	pport = ntohs(r->id.idiag_dport);
	snprintf(lstr, sizeof(lstr), v4 ? "%s:%u" : "[%s]:%u", laddr, lport);
	snprintf(pstr, sizeof(pstr), v4 ? "%s:%u" : "[%s]:%u", paddr, pport);

	if (json) {
		fprintf(out->f, "%s{\"state\":\"%s\",\"state_num\":%u,\"mode\":\"%s\","
		       "\"family\":\"%s\",\"local\":\"%s\",\"peer\":\"%s\","
		       "\"local_addr\":\"%s\",\"local_port\":%u,"
		       "\"peer_addr\":\"%s\",\"peer_port\":%u,"
		       "\"uid\":%u,\"inode\":%llu,"
		       "\"fallback_reason\":%u,\"fallback_reason_hex\":\"0x%08x\","
		       "\"fallback_reason_name\":\"%s\","
		       "\"peer_diagnosis\":%u,\"peer_diagnosis_hex\":\"0x%08x\","
		       "\"peer_diagnosis_name\":\"%s\"",
		       out->n ? "," : "", state_name(r->diag_state),
		       r->diag_state, mode_name(r->diag_mode),
		       v4 ? "inet" : "inet6", lstr, pstr, laddr, lport, paddr,
		       pport, r->diag_uid, (unsigned long long)r->diag_inode,
		       fb.reason, fb.reason, reason_name(fb.reason),
		       fb.peer_diagnosis, fb.peer_diagnosis,
		       reason_name(fb.peer_diagnosis));
		conn_smcr(out->f, out->lgrs, tb[SMC_DIAG_CONNINFO],
			  tb[SMC_DIAG_LGRINFO]);
		fputc('}', out->f);
	} else {
		fprintf(out->f, "%-15s %5u %8llu %-24s %-24s %-4s 0x%08x %s",
			state_name(r->diag_state), r->diag_uid,
			(unsigned long long)r->diag_inode, lstr, pstr,
			mode_name(r->diag_mode), fb.reason,
			fb.reason ? reason_name(fb.reason) : "-");
		if (fb.peer_diagnosis)
			fprintf(out->f, " (peer 0x%08x %s)", fb.peer_diagnosis,
				reason_name(fb.peer_diagnosis));
		fputc('\n', out->f);
		conn_smcr(out->f, out->lgrs, tb[SMC_DIAG_CONNINFO],
			  tb[SMC_DIAG_LGRINFO]);
	}
	out->n++;
}

static int cmd_connections(void)
{
	struct {
		struct nlmsghdr nlh;
		struct smc_diag_req r;
	} req;
	struct conn_out out = { 0, NULL, NULL };
	int fd = nl_open(NETLINK_SOCK_DIAG);
	struct lgr_list lgrs = { 0, NULL };
	char *lines = NULL;
	size_t size = 0;
	int err;

	/* link groups first, to name the one of each SMC-R connection */
	if (!get_lgrs_quiet(&lgrs))
		out.lgrs = &lgrs;
	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nlh.nlmsg_seq = seq_next++;
	req.r.diag_family = AF_SMC;
	req.r.diag_ext = (1 << (SMC_DIAG_CONNINFO - 1)) |
			 (1 << (SMC_DIAG_LGRINFO - 1));
	nl_send(fd, &req.nlh);

	out.f = open_memstream(&lines, &size);
	if (!out.f)
		die(1, "open_memstream: %s", strerror(errno));
	err = nl_recv(fd, req.nlh.nlmsg_seq, true, conn_cb, &out);
	if (err == ENOENT)
		die(EXIT_NOSMC, "%s",
		    "no sock_diag handler for AF_SMC: is the smc module loaded?");
	if (err)
		die(1, "AF_SMC sock_diag dump failed: %s", strerror(err));
	fclose(out.f);
	if (json)
		printf("{\"connections\":[%s]}\n", lines);
	else
		printf("%-15s %5s %8s %-24s %-24s %-4s %s\n%s", "State", "UID",
		       "Inode", "Local Address", "Peer Address", "Mode",
		       "Fallback", lines);
	free(lines);
	free_lgrs(&lgrs);
	close(fd);
	return 0;
}

/* ---- smcctl pnet ---- */

struct pnet_req {
	struct nlmsghdr nlh;
	struct genlmsghdr genl;
	char attrs[256];
};

static void pnet_put(struct pnet_req *r, uint16_t type, const void *data,
		     size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + r->nlh.nlmsg_len);

	if (r->nlh.nlmsg_len + NLA_ALIGN(NLA_HDRLEN + len) > sizeof(*r))
		die(64, "%s", "pnet: arguments too long");
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nlh.nlmsg_len += NLA_ALIGN(a->nla_len);
}

static void pnet_put_str(struct pnet_req *r, uint16_t type, const char *s)
{
	pnet_put(r, type, s, strlen(s) + 1);
}

/*
 * SMC_PNETID's id; exits with EXIT_NOSMC when it is not there.  Also asks
 * for extended ACKs on @fd: the kernel's reason for a refusal.
 */
static int pnet_family(int fd)
{
	int id = -1, err, on = 1;

	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &on, sizeof(on));
	err = family_lookup_name(fd, SMCR_GENL_FAMILY_NAME, &id);
	if (err == ENOENT || (!err && id < 0))
		die(EXIT_NOSMC, "%s",
		    "generic netlink family " SMCR_GENL_FAMILY_NAME
		    " not found: is the smc module loaded?");
	if (err)
		die(1, "resolving " SMCR_GENL_FAMILY_NAME ": %s", strerror(err));
	return id;
}

static void pnet_init(struct pnet_req *r, int family, uint8_t cmd,
		      uint16_t flags)
{
	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_type = family;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | flags;
	r->nlh.nlmsg_seq = seq_next++;
	r->genl.cmd = cmd;
	r->genl.version = SMCR_GENL_FAMILY_VERSION;
}

/* exit status 1 with the errno and the kernel's reason, if it gave one */
static int nl_fail(const char *tool, const char *what, int err)
{
	fprintf(stderr, "%s: %s %s: %s (errno %d)%s%s\n", prog, tool, what,
		strerror(err), err, nl_errmsg[0] ? ": " : "", nl_errmsg);
	return 1;
}

static int pnet_fail(const char *what, int err)
{
	return nl_fail("pnet", what, err);
}

static int pnet_change(struct pnet_req *r, int fd, const char *what)
{
	int err;

	nl_send(fd, &r->nlh);
	err = nl_recv(fd, r->nlh.nlmsg_seq, false, NULL, NULL);
	close(fd);
	return err ? pnet_fail(what, err) : 0;
}

struct pnet_out {
	unsigned int n;
	FILE *f;
};

static void pnet_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct genlmsghdr *g = NLMSG_DATA(nlh);
	const struct nlattr *tb[SMC_PNETID_MAX + 1];
	char id[16 + 1], eth[IF_NAMESIZE], ib[IB_DEVICE_NAME_MAX];
	struct pnet_out *out = arg;
	bool has_eth, has_ib;
	unsigned int port;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*g)))
		return;
	parse_attrs(tb, SMC_PNETID_MAX, g + 1,
		    nlh->nlmsg_len - NLMSG_LENGTH(sizeof(*g)));
	attr_str(id, sizeof(id), tb[SMC_PNETID_NAME]);
	attr_str(eth, sizeof(eth), tb[SMC_PNETID_ETHNAME]);
	attr_str(ib, sizeof(ib), tb[SMC_PNETID_IBNAME]);
	port = (unsigned int)attr_uint(tb[SMC_PNETID_IBPORT]);
	/* the kernel says "n/a" and port 255 for the half it has not */
	has_eth = eth[0] && strcmp(eth, "n/a");
	has_ib = ib[0] && strcmp(ib, "n/a");
	if (json) {
		fprintf(out->f, "%s{\"pnetid\":\"%s\",", out->n ? "," : "", id);
		if (has_eth)
			fprintf(out->f, "\"netdev\":\"%s\",", eth);
		else
			fprintf(out->f, "\"netdev\":null,");
		if (has_ib)
			fprintf(out->f, "\"ibdev\":\"%s\",\"ibport\":%u}", ib,
				port);
		else
			fprintf(out->f, "\"ibdev\":null,\"ibport\":null}");
	} else if (has_ib) {
		fprintf(out->f, "%-16s %-16s %-16s %4u\n", id,
			has_eth ? eth : "-", ib, port);
	} else {
		fprintf(out->f, "%-16s %-16s %-16s %4s\n", id,
			has_eth ? eth : "-", "-", "-");
	}
	out->n++;
}

static int pnet_show(int fd, int family, const char *id)
{
	struct pnet_out out = { 0, NULL };
	char *lines = NULL;
	struct pnet_req r;
	size_t size = 0;
	int err;

	pnet_init(&r, family, SMC_PNETID_GET, id ? 0 : NLM_F_DUMP);
	if (id)
		pnet_put_str(&r, SMC_PNETID_NAME, id);
	out.f = open_memstream(&lines, &size);
	if (!out.f)
		die(1, "open_memstream: %s", strerror(errno));
	nl_send(fd, &r.nlh);
	/* both answers end in NLMSG_DONE */
	err = nl_recv(fd, r.nlh.nlmsg_seq, true, pnet_cb, &out);
	fclose(out.f);
	close(fd);
	if (err) {
		free(lines);
		return pnet_fail("show", err);
	}
	if (json)
		printf("{\"pnet\":[%s]}\n", lines);
	else
		printf("%-16s %-16s %-16s %4s\n%s", "PNET ID", "Net-Dev",
		       "RDMA-Dev", "Port", lines);
	free(lines);
	return 0;
}

static void pnet_usage(void)
{
	fprintf(stderr,
		"usage: %s pnet add PNETID [--eth IFNAME] [--ib DEV [--port N]]\n"
		"       %s pnet del PNETID\n"
		"       %s pnet flush\n"
		"       %s [--json] pnet show [PNETID]\n",
		prog, prog, prog, prog);
	exit(64);
}

/* smcctl pnet add|del|flush|show ...: @argv holds what follows "pnet" */
static int cmd_pnet(int argc, char **argv)
{
	const char *eth = NULL, *ib = NULL, *id = NULL, *sub;
	long port = -1;
	struct pnet_req r;
	char *end;
	int i, fd;

	if (argc < 1)
		pnet_usage();
	sub = argv[0];
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--eth") && i + 1 < argc) {
			eth = argv[++i];
		} else if (!strcmp(argv[i], "--ib") && i + 1 < argc) {
			ib = argv[++i];
		} else if (!strcmp(argv[i], "--port") && i + 1 < argc) {
			errno = 0;
			port = strtol(argv[++i], &end, 0);
			if (errno || *end || end == argv[i] || port < 0 ||
			    port > 255)
				pnet_usage();
		} else if (argv[i][0] == '-' || id) {
			pnet_usage();
		} else {
			id = argv[i];
		}
	}

	if (!strcmp(sub, "show")) {
		if (eth || ib || port >= 0)
			pnet_usage();
		fd = nl_open(NETLINK_GENERIC);
		return pnet_show(fd, pnet_family(fd), id);
	}
	if (!strcmp(sub, "flush")) {
		if (id || eth || ib || port >= 0)
			pnet_usage();
		fd = nl_open(NETLINK_GENERIC);
		pnet_init(&r, pnet_family(fd), SMC_PNETID_FLUSH, NLM_F_ACK);
		return pnet_change(&r, fd, "flush");
	}
	if (!strcmp(sub, "del")) {
		if (!id || eth || ib || port >= 0)
			pnet_usage();
		fd = nl_open(NETLINK_GENERIC);
		pnet_init(&r, pnet_family(fd), SMC_PNETID_DEL, NLM_F_ACK);
		pnet_put_str(&r, SMC_PNETID_NAME, id);
		return pnet_change(&r, fd, "del");
	}
	if (!strcmp(sub, "add")) {
		uint8_t p = port < 0 ? 1 : (uint8_t)port;

		if (!id || (!eth && !ib) || (port >= 0 && !ib))
			pnet_usage();
		fd = nl_open(NETLINK_GENERIC);
		pnet_init(&r, pnet_family(fd), SMC_PNETID_ADD, NLM_F_ACK);
		pnet_put_str(&r, SMC_PNETID_NAME, id);
		if (eth)
			pnet_put_str(&r, SMC_PNETID_ETHNAME, eth);
		if (ib) {
			pnet_put_str(&r, SMC_PNETID_IBNAME, ib);
			pnet_put(&r, SMC_PNETID_IBPORT, &p, sizeof(p));
		}
		return pnet_change(&r, fd, "add");
	}
	pnet_usage();
	return 64;
}

/* ---- smcctl ueid ---- */

static void ueid_usage(void)
{
	fprintf(stderr,
		"usage: %s ueid add EID | ueid del EID | ueid flush\n"
		"       %s [--json] ueid show\n"
		"EID: at most %d of A-Z, 0-9, '.', '-' (lower case is raised)\n",
		prog, prog, SMC_MAX_EID_LEN);
	exit(64);
}

/*
 * An EID as the kernel takes it: upper case, blank padded to exactly
 * SMC_MAX_EID_LEN characters, NUL terminated.  Other characters are left
 * for the kernel to refuse, so that its errno is what the user sees.
 */
static void ueid_pad(char out[SMC_MAX_EID_LEN + 1], const char *in)
{
	size_t i, n = strlen(in);

	if (!n || n > SMC_MAX_EID_LEN)
		ueid_usage();
	for (i = 0; i < SMC_MAX_EID_LEN; i++)
		out[i] = i < n ? (char)toupper((unsigned char)in[i]) : ' ';
	out[SMC_MAX_EID_LEN] = '\0';
}

static void ueid_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct genlmsghdr *g = NLMSG_DATA(nlh);
	const struct nlattr *tb[SMC_NLA_EID_TABLE_MAX + 1];
	char eid[SMC_MAX_EID_LEN + 1];
	struct pnet_out *out = arg;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*g)))
		return;
	parse_attrs(tb, SMC_NLA_EID_TABLE_MAX, g + 1,
		    nlh->nlmsg_len - NLMSG_LENGTH(sizeof(*g)));
	if (!tb[SMC_NLA_EID_TABLE_ENTRY])
		return;
	attr_str(eid, sizeof(eid), tb[SMC_NLA_EID_TABLE_ENTRY]);
	rstrip(eid);
	if (json)
		fprintf(out->f, "%s\"%s\"", out->n ? "," : "", eid);
	else
		fprintf(out->f, "%s\n", eid);
	out->n++;
}

/* smcctl ueid add|del|flush|show ...: @argv holds what follows "ueid" */
static int cmd_ueid(int argc, char **argv)
{
	static const struct { const char *name; uint8_t cmd; bool arg; } ops[] = {
		{ "add", SMC_NETLINK_ADD_UEID, true },
		{ "del", SMC_NETLINK_REMOVE_UEID, true },
		{ "flush", SMC_NETLINK_FLUSH_UEID, false },
	};
	char eid[SMC_MAX_EID_LEN + 1], *lines = NULL;
	struct pnet_out out = { 0, NULL };
	struct pnet_req r;
	size_t size = 0, i;
	int fd, err, on = 1;

	if (argc < 1)
		ueid_usage();
	fd = nl_open(NETLINK_GENERIC);
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &on, sizeof(on));
	if (!strcmp(argv[0], "show")) {
		if (argc != 1)
			ueid_usage();
		pnet_init(&r, smc_family(fd), SMC_NETLINK_DUMP_UEID, NLM_F_DUMP);
		r.genl.version = SMC_GENL_FAMILY_VERSION;
		out.f = open_memstream(&lines, &size);
		if (!out.f)
			die(1, "open_memstream: %s", strerror(errno));
		nl_send(fd, &r.nlh);
		err = nl_recv(fd, r.nlh.nlmsg_seq, true, ueid_cb, &out);
		fclose(out.f);
		close(fd);
		if (err) {
			free(lines);
			return nl_fail("ueid", "show", err);
		}
		if (json)
			printf("{\"ueid\":[%s]}\n", lines);
		else
			fputs(lines, stdout);
		free(lines);
		return 0;
	}
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (strcmp(argv[0], ops[i].name))
			continue;
		if (argc != (ops[i].arg ? 2 : 1))
			ueid_usage();
		pnet_init(&r, smc_family(fd), ops[i].cmd, NLM_F_ACK);
		r.genl.version = SMC_GENL_FAMILY_VERSION;
		if (ops[i].arg) {
			ueid_pad(eid, argv[1]);
			pnet_put_str(&r, SMC_NLA_EID_TABLE_ENTRY, eid);
		}
		nl_send(fd, &r.nlh);
		err = nl_recv(fd, r.nlh.nlmsg_seq, false, NULL, NULL);
		close(fd);
		return err ? nl_fail("ueid", ops[i].name, err) : 0;
	}
	ueid_usage();
	return 64;
}

/* the arguments after "pnet" or "ueid" (from @first on), --json anywhere */
static int cmd_sub_args(int argc, char **argv, int first,
			int (*cmd)(int argc, char **argv))
{
	char **rest = calloc(argc, sizeof(*rest));
	int i, n = 0;

	if (!rest)
		die(1, "%s", "out of memory");
	for (i = first; i < argc; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			json = true;
		else
			rest[n++] = argv[i];
	}
	return cmd(n, rest);
}

/* ---- main ---- */

static void usage(FILE *f, int code)
{
	fprintf(f,
		"usage: %s [--json] COMMAND\n"
		"  fallback     fallbacks to TCP per side and reason code\n"
		"  stats        SMC-R connections, fallbacks, handshake errors\n"
		"  connections  SMC sockets: state, addresses, mode, fallback\n"
		"  info         SMC version and host name the module announces\n"
		"  devices      RoCE devices: ports, state, network device\n"
		"  linkgroups   SMC-R link groups: role, type, connections, peer\n"
		"  links        SMC-R links: state, device, GIDs, connections\n"
		"  ueid add EID | ueid del EID | ueid flush | ueid show\n"
		"               user-defined EIDs (SMC-R v2 needs one)\n"
		"  pnet add PNETID [--eth IFNAME] [--ib DEV [--port N]]\n"
		"  pnet del PNETID | pnet flush | pnet show [PNETID]\n"
		"               the PNET table: which RDMA port a network\n"
		"               device's connections may use\n"
		"exit status: 0 ok, 1 error, 2 SMC module not loaded, 64 usage\n",
		prog);
	exit(code);
}

int main(int argc, char **argv)
{
	const char *cmd = NULL;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			json = true;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			usage(stdout, 0);
		else if (!cmd && !strcmp(argv[i], "pnet"))
			return cmd_sub_args(argc, argv, i + 1, cmd_pnet);
		else if (!cmd && !strcmp(argv[i], "ueid"))
			return cmd_sub_args(argc, argv, i + 1, cmd_ueid);
		else if (argv[i][0] == '-' || cmd)
			usage(stderr, 64);
		else
			cmd = argv[i];
	}
	if (!cmd)
		usage(stderr, 64);
	if (!strcmp(cmd, "fallback"))
		return cmd_fallback();
	if (!strcmp(cmd, "stats"))
		return cmd_stats();
	if (!strcmp(cmd, "connections"))
		return cmd_connections();
	if (!strcmp(cmd, "info"))
		return cmd_info();
	if (!strcmp(cmd, "devices"))
		return cmd_devices();
	if (!strcmp(cmd, "linkgroups"))
		return cmd_linkgroups();
	if (!strcmp(cmd, "links"))
		return cmd_links();
	usage(stderr, 64);
	return 64;
}
