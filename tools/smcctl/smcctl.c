// SPDX-License-Identifier: GPL-2.0
/*
 * smcctl - show and change what the SMC module knows: counters, sockets,
 * RDMA devices, link groups, the PNET table and user EIDs; check whether
 * a connection gets SMC-R; collect a debug bundle.
 *
 * Talks plain netlink: generic netlink family "SMC_GEN_NETLINK" for the
 * counters, "SMC_PNETID" for the PNET table (as smc-tools' smc_pnet),
 * NETLINK_SOCK_DIAG with family AF_SMC for the sockets.  The JSON
 * formats are documented in README.md and are kept stable; usage and
 * exit codes in Documentation/man/smcctl.8.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
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

#include "reasons.h"
#include "smcctl.h"

struct opts opt;
const char *prog = "smcctl";

/* ---- names ---- */

/* SMC socket states; 1, 2, 7 and 10 coincide with the TCP states */
const char *state_name(unsigned int s)
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

#define SMC_STATE_LISTEN 10

const char *mode_name(unsigned int m)
{
	switch (m) {
	case SMC_DIAG_MODE_SMCR: return "SMCR";
	case SMC_DIAG_MODE_FALLBACK_TCP: return "TCP";
	case SMC_DIAG_MODE_SMCD: return "SMCD";
	default: return "UNKNOWN";
	}
}

/* ---- filters (--netdev, --ibdev, --lgr) ---- */

static bool link_filters(void)
{
	return opt.netdev || opt.ibdev || opt.have_lgr;
}

/* whether an RDMA port passes --ibdev */
static bool ib_match(const char *dev, unsigned int port)
{
	if (!opt.ibdev)
		return true;
	return !strcmp(dev, opt.ibname) && (!opt.ibport || opt.ibport == port);
}

static bool netdev_match(unsigned int ifindex)
{
	return !opt.netdev || ifindex == opt.ifindex;
}

/* ---- smcctl info ---- */

static void info_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[SMC_NLA_SYS_MAX + 1];
	const struct nlattr *nest = smc_top(nlh, SMC_GEN_SYS_INFO);
	char host[SMC_MAX_HOSTNAME_LEN + 1];
	size_t n;
	struct json j;

	(void)arg;
	if (!nest)
		return;
	parse_nested(tb, SMC_NLA_SYS_MAX, nest);
	attr_str(host, sizeof(host), tb[SMC_NLA_SYS_LOCAL_HOST]);
	/* blank padded as in the CLC messages */
	for (n = strlen(host); n && host[n - 1] == ' '; n--)
		host[n - 1] = '\0';
	if (opt.json) {
		json_init(&j, stdout);
		json_obj_open(&j, NULL);
		json_u64(&j, "version", attr_uint(tb[SMC_NLA_SYS_VER]));
		json_u64(&j, "release", attr_uint(tb[SMC_NLA_SYS_REL]));
		json_bool(&j, "smcr_v2", attr_uint(tb[SMC_NLA_SYS_IS_SMCR_V2]));
		json_bool(&j, "ism_v2", attr_uint(tb[SMC_NLA_SYS_IS_ISM_V2]));
		json_str(&j, "hostname", host);
		json_obj_close(&j);
		putchar('\n');
	} else {
		printf("version %" PRIu64 " release %" PRIu64
		       "  SMC-Rv2 %s  ISMv2 %s  hostname %s\n",
		       attr_uint(tb[SMC_NLA_SYS_VER]),
		       attr_uint(tb[SMC_NLA_SYS_REL]),
		       attr_uint(tb[SMC_NLA_SYS_IS_SMCR_V2]) ? "yes" : "no",
		       attr_uint(tb[SMC_NLA_SYS_IS_ISM_V2]) ? "yes" : "no",
		       vis(host));
	}
}

static int cmd_info(int argc, char **argv)
{
	int fd;

	(void)argv;
	if (argc)
		die(EXIT_USAGE, "info: no arguments");
	fd = nl_open(NETLINK_GENERIC);
	smc_dump(fd, smc_family(fd), SMC_NETLINK_GET_SYS_INFO, info_cb, NULL);
	close(fd);
	return 0;
}

/* ---- smcctl devices ---- */

/* output collected until the dump succeeded: text lines or a JSON array */
struct out {
	unsigned int n;
	FILE *f;
	struct json j;
	char *buf;
	size_t size;
};

static void out_open(struct out *o)
{
	memset(o, 0, sizeof(*o));
	o->f = open_memstream(&o->buf, &o->size);
	if (!o->f)
		die(EXIT_ERR, "open_memstream: %s", strerror(errno));
	json_init(&o->j, o->f);
	if (opt.json)
		json_arr_open(&o->j, NULL);
}

/* the collected JSON array, or text lines */
static const char *out_close(struct out *o)
{
	if (opt.json)
		json_arr_close(&o->j);
	fclose(o->f);
	o->f = NULL;
	return o->buf;
}

static void ifname_of(unsigned int ifindex, char *name)
{
	if (!ifindex || !if_indextoname(ifindex, name))
		name[0] = '\0';
}

static void dev_port(struct out *o, const char *name, const char *pci,
		     unsigned int port, const struct nlattr *nest)
{
	const struct nlattr *tb[SMC_NLA_DEV_PORT_MAX + 1];
	char pnetid[16 + 1];		/* a PNET ID has at most 16 bytes */
	char ifname[IF_NAMESIZE];
	unsigned int ifindex;
	bool active, user;
	uint64_t links;

	parse_nested(tb, SMC_NLA_DEV_PORT_MAX, nest);
	attr_str(pnetid, sizeof(pnetid), tb[SMC_NLA_DEV_PORT_PNETID]);
	ifindex = (unsigned int)attr_uint(tb[SMC_NLA_DEV_PORT_NETDEV]);
	ifname_of(ifindex, ifname);
	active = attr_uint(tb[SMC_NLA_DEV_PORT_STATE]);
	user = attr_uint(tb[SMC_NLA_DEV_PORT_PNET_USR]);
	links = attr_uint(tb[SMC_NLA_DEV_PORT_LNK_CNT]);
	if (opt.json) {
		json_obj_open(&o->j, NULL);
		json_u64(&o->j, "port", port);
		json_bool(&o->j, "active", active);
		json_u64(&o->j, "ifindex", ifindex);
		json_str(&o->j, "netdev", ifname[0] ? ifname : NULL);
		json_str(&o->j, "pnetid", pnetid);
		json_bool(&o->j, "pnetid_by_user", user);
		json_u64(&o->j, "links", links);
		json_obj_close(&o->j);
		return;
	}
	fprintf(o->f, "%-16s %-14s %4u  %-8s %-16s %-16s%s %5" PRIu64 "\n",
		vis(name), vis(pci), port, active ? "ACTIVE" : "INACTIVE",
		ifname[0] ? vis(ifname) : "-", pnetid[0] ? vis(pnetid) : "-",
		user ? "*" : " ", links);
}

/* a port passes --ibdev and --netdev */
static bool port_match(const char *name, unsigned int port,
		       const struct nlattr *nest)
{
	const struct nlattr *tb[SMC_NLA_DEV_PORT_MAX + 1];

	if (!ib_match(name, port))
		return false;
	parse_nested(tb, SMC_NLA_DEV_PORT_MAX, nest);
	return netdev_match((unsigned int)attr_uint(tb[SMC_NLA_DEV_PORT_NETDEV]));
}

static void dev_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *nest = smc_top(nlh, SMC_GEN_DEV_SMCR);
	const struct nlattr *tb[SMC_NLA_DEV_MAX + 1];
	char name[IB_DEVICE_NAME_MAX], pci[SMC_PCI_ID_STR_LEN + 1];
	struct out *o = arg;
	bool any = false;
	int i;

	if (!nest)
		return;
	parse_nested(tb, SMC_NLA_DEV_MAX, nest);
	attr_str(name, sizeof(name), tb[SMC_NLA_DEV_IB_NAME]);
	attr_str(pci, sizeof(pci), tb[SMC_NLA_DEV_PCI_ID]);
	if (opt.ibdev && strcmp(name, opt.ibname))
		return;
	if (opt.ibport || opt.netdev) {
		for (i = 0; i < 2; i++)
			if (tb[SMC_NLA_DEV_PORT + i] &&
			    port_match(name, i + 1, tb[SMC_NLA_DEV_PORT + i]))
				any = true;
		if (!any)
			return;
	}
	if (opt.json) {
		json_obj_open(&o->j, NULL);
		json_str(&o->j, "name", name);
		json_bool(&o->j, "critical", attr_uint(tb[SMC_NLA_DEV_IS_CRIT]));
		if (tb[SMC_NLA_DEV_PCI_ID]) {
			json_obj_open(&o->j, "pci");
			json_str(&o->j, "id", pci);
			json_u64(&o->j, "vendor",
				 attr_uint(tb[SMC_NLA_DEV_PCI_VENDOR]));
			json_u64(&o->j, "device",
				 attr_uint(tb[SMC_NLA_DEV_PCI_DEVICE]));
			json_u64(&o->j, "fid", attr_uint(tb[SMC_NLA_DEV_PCI_FID]));
			json_u64(&o->j, "pchid",
				 attr_uint(tb[SMC_NLA_DEV_PCI_CHID]));
			json_obj_close(&o->j);
		} else {
			json_null(&o->j, "pci");
		}
		json_arr_open(&o->j, "ports");
	}
	any = false;
	for (i = 0; i < 2; i++) {
		if (!tb[SMC_NLA_DEV_PORT + i])
			continue;
		if ((opt.ibport || opt.netdev) &&
		    !port_match(name, i + 1, tb[SMC_NLA_DEV_PORT + i]))
			continue;
		dev_port(o, name, pci[0] ? pci : "-", i + 1,
			 tb[SMC_NLA_DEV_PORT + i]);
		any = true;
	}
	if (opt.json) {
		json_arr_close(&o->j);
		json_obj_close(&o->j);
	} else if (!any) {	/* no port at all */
		fprintf(o->f, "%-16s %-14s %4s\n", vis(name),
			pci[0] ? vis(pci) : "-", "-");
	}
	o->n++;
}

static int cmd_devices(int argc, char **argv)
{
	const char *lines;
	struct out o;
	int fd;

	(void)argv;
	if (argc)
		die(EXIT_USAGE, "devices: no arguments");
	fd = nl_open(NETLINK_GENERIC);
	out_open(&o);
	smc_dump(fd, smc_family(fd), SMC_NETLINK_GET_DEV_SMCR, dev_cb, &o);
	lines = out_close(&o);
	if (opt.json)
		printf("{\"devices\":%s}\n", lines);
	else
		printf("%-16s %-14s %4s  %-8s %-16s %-17s %5s\n%s", "Device",
		       "PCI ID", "Port", "State", "Net-Dev", "PNET ID", "Links",
		       lines);
	free(o.buf);
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
		die(EXIT_ERR, "out of memory");
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

static bool link_match(const struct lgr_ent *g, const struct link_ent *k)
{
	if (opt.have_lgr && g->id != opt.lgr)
		return false;
	return ib_match(k->ibdev, k->port) && netdev_match(k->ifindex);
}

/* a link group passes the filters: its id, and one link for the others */
static bool lgr_match(const struct lgr_ent *g)
{
	unsigned int i;

	if (opt.have_lgr && g->id != opt.lgr)
		return false;
	if (!opt.ibdev && !opt.netdev)
		return true;
	for (i = 0; i < g->nlinks; i++)
		if (link_match(g, &g->links[i]))
			return true;
	return false;
}

/* "-" for an empty PNET ID in the tables */
static const char *pnet_txt(const char *id)
{
	return id[0] ? vis(id) : "-";
}

static void json_lgr(struct json *j, const struct lgr_ent *g)
{
	json_obj_open(j, NULL);
	json_u64(j, "id", g->id);
	json_strf(j, "id_hex", "%08" PRIx32, g->id);
	json_str(j, "role", role_name(g->role));
	json_str(j, "type", lgr_type_name(g->type));
	json_u64(j, "type_num", g->type);
	json_u64(j, "version", g->version);
	json_u64(j, "release", g->release);
	json_u64(j, "conns", g->conns);
	json_u64(j, "links", g->nlinks);
	json_str(j, "peer_gid", lgr_peer(g));
	json_str(j, "peer_host", g->peer_host);
	json_u64(j, "peer_os", g->peer_os);
	json_str(j, "neg_eid", g->neg_eid);
	json_u64(j, "vlan", g->vlan);
	json_str(j, "pnetid", g->pnetid);
	json_u64(j, "net_cookie", g->net_cookie);
	json_u64(j, "buf_type", g->buf_type);
	json_u64(j, "sndbuf_bytes", g->sndbuf_bytes);
	json_u64(j, "rmb_bytes", g->rmb_bytes);
	/* extensions agreed: null from a module without them (Linux) */
	if (g->vx < 0) {
		json_null(j, "extensions");
	} else {
		json_arr_open(j, "extensions");
		if (g->vx & SMC_VX_WIMM)
			json_str(j, NULL, "wimm");
		if (g->vx & SMC_VX_IWARP)
			json_str(j, NULL, "iwarp");
		if (g->vx & SMC_VX_GROW)
			json_str(j, NULL, "grow");
		json_arr_close(j);
	}
	if (g->v2) {
		json_u64(j, "max_conns", g->max_conns);
		json_u64(j, "max_links", g->max_links);
		if (g->direct < 0)
			json_null(j, "direct");
		else
			json_bool(j, "direct", g->direct);
	} else {
		json_null(j, "max_conns");
		json_null(j, "max_links");
		json_null(j, "direct");
	}
	json_obj_close(j);
}

static int cmd_linkgroups(int argc, char **argv)
{
	int fd = nl_open(NETLINK_GENERIC);
	struct lgr_list l;
	const struct lgr_ent *g;
	unsigned int i;
	struct json j;
	int err;

	(void)argv;
	if (argc)
		die(EXIT_USAGE, "linkgroups: no arguments (--lgr ID filters)");
	err = get_lgrs(fd, smc_family(fd), &l);
	if (err)
		die(EXIT_ERR, "link group dump failed: %s", strerror(err));
	json_init(&j, stdout);
	if (opt.json) {
		json_obj_open(&j, NULL);
		json_arr_open(&j, "linkgroups");
	} else {
		printf("%-8s %-6s %-16s %-3s %5s %5s %4s %-16s %s\n", "LG-ID",
		       "Role", "Type", "Ver", "Conns", "Links", "VLAN",
		       "PNET ID", "Peer");
	}
	for (i = 0; i < l.n; i++) {
		g = &l.lgr[i];
		if (!lgr_match(g))
			continue;
		if (opt.json) {
			json_lgr(&j, g);
			continue;
		}
		printf("%08" PRIx32 " %-6s %-16s %u.%u %5" PRIu32 " %5u %4u %-16s %s%s%s%s%s%s%s\n",
		       g->id, role_name(g->role), lgr_type_name(g->type),
		       g->version, g->release, g->conns, g->nlinks, g->vlan,
		       pnet_txt(g->pnetid), g->nlinks ? vis(lgr_peer(g)) : "-",
		       g->peer_host[0] ? " (" : "", vis(g->peer_host),
		       g->peer_host[0] ? ")" : "",
		       g->vx > 0 && g->vx & SMC_VX_WIMM ? " [wimm]" : "",
		       g->vx > 0 && g->vx & SMC_VX_IWARP ? " [iwarp]" : "",
		       g->vx > 0 && g->vx & SMC_VX_GROW ? " [grow]" : "");
	}
	if (opt.json) {
		json_arr_close(&j);
		json_obj_close(&j);
		putchar('\n');
	}
	free_lgrs(&l);
	close(fd);
	return 0;
}

static int cmd_links(int argc, char **argv)
{
	int fd = nl_open(NETLINK_GENERIC);
	char ifname[IF_NAMESIZE];
	const struct link_ent *k;
	const struct lgr_ent *g;
	struct lgr_list l;
	unsigned int i, m;
	struct json j;
	int err;

	(void)argv;
	if (argc)
		die(EXIT_USAGE, "links: no arguments (--lgr ID filters)");
	err = get_lgrs(fd, smc_family(fd), &l);
	if (err)
		die(EXIT_ERR, "link dump failed: %s", strerror(err));
	json_init(&j, stdout);
	if (opt.json) {
		json_obj_open(&j, NULL);
		json_arr_open(&j, "links");
	} else {
		printf("%-8s %4s %-10s %-12s %4s %-10s %5s %4s %-16s %s\n",
		       "LG-ID", "Link", "State", "Device", "Port", "Net-Dev",
		       "Conns", "VLAN", "PNET ID", "GID -> Peer GID");
	}
	for (i = 0; i < l.n; i++) {
		g = &l.lgr[i];
		for (m = 0; m < g->nlinks; m++) {
			k = &g->links[m];
			if (!link_match(g, k))
				continue;
			ifname_of(k->ifindex, ifname);
			if (!opt.json) {
				printf("%08" PRIx32 " %4u %-10s %-12s %4u %-10s %5u %4u %-16s %s -> %s\n",
				       g->id, k->link_id,
				       link_state_name(k->state), vis(k->ibdev),
				       k->port, ifname[0] ? vis(ifname) : "-",
				       k->conns, g->vlan, pnet_txt(g->pnetid),
				       vis(k->gid), vis(k->peer_gid));
				continue;
			}
			json_obj_open(&j, NULL);
			json_u64(&j, "lgr_id", g->id);
			json_strf(&j, "lgr_id_hex", "%08" PRIx32, g->id);
			json_str(&j, "role", role_name(g->role));
			json_u64(&j, "link_id", k->link_id);
			json_str(&j, "state", link_state_name(k->state));
			json_u64(&j, "state_num", k->state);
			json_str(&j, "ibdev", k->ibdev);
			json_u64(&j, "ibport", k->port);
			json_u64(&j, "ifindex", k->ifindex);
			json_str(&j, "netdev", ifname[0] ? ifname : NULL);
			json_str(&j, "gid", k->gid);
			json_str(&j, "peer_gid", k->peer_gid);
			json_u64(&j, "link_uid", k->uid);
			json_u64(&j, "peer_link_uid", k->peer_uid);
			json_u64(&j, "conns", k->conns);
			json_u64(&j, "tx_wimm", k->tx_wimm);
			json_u64(&j, "rx_wimm", k->rx_wimm);
			json_u64(&j, "vlan", g->vlan);
			json_str(&j, "pnetid", g->pnetid);
			json_obj_close(&j);
		}
	}
	if (opt.json) {
		json_arr_close(&j);
		json_obj_close(&j);
		putchar('\n');
	}
	free_lgrs(&l);
	close(fd);
	return 0;
}

/* ---- smcctl connections ---- */

struct conn_out {
	struct out o;
	const struct lgr_list *lgrs;	/* to find a connection's lgr id */
	uint64_t ino;			/* sock_lookup(): the one wanted */
	struct sock_info *si;		/* ... and what it found */
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
 * exactly one matches; *@link is its link.
 */
static const struct lgr_ent *conn_lgr(const struct lgr_list *l, unsigned int role,
				      const struct smc_diag_linkinfo *li,
				      const char *ibname, const char *gid,
				      const char *peer_gid,
				      const struct link_ent **link)
{
	const struct lgr_ent *found = NULL;
	const struct link_ent *k;
	unsigned int i, m;

	for (i = 0; l && i < l->n; i++) {
		if (l->lgr[i].role != role)
			continue;
		for (m = 0; m < l->lgr[i].nlinks; m++) {
			k = &l->lgr[i].links[m];
			if (k->link_id != li->link_id || k->port != li->ibport ||
			    strcmp(k->ibdev, ibname) || strcmp(k->gid, gid) ||
			    strcmp(k->peer_gid, peer_gid))
				continue;
			if (found && found != &l->lgr[i])
				return NULL;
			found = &l->lgr[i];
			*link = k;
		}
	}
	return found;
}

/* a fixed-size text field of a diag structure, up to its first NUL */
static void diag_str(char *buf, size_t len, const __u8 *src, size_t n)
{
	if (n > len - 1)
		n = len - 1;
	memcpy(buf, src, n);
	buf[n] = '\0';
}

/* one cursor: text "NAME WRAP:COUNT", JSON "NAME":{...} */
static void put_curs(struct out *o, const char *name,
		     const struct smc_diag_cursor *c)
{
	if (opt.json) {
		json_obj_open(&o->j, name);
		json_u64(&o->j, "wrap", c->wrap);
		json_u64(&o->j, "count", c->count);
		json_obj_close(&o->j);
	} else {
		fprintf(o->f, " %s %u:%u", name, (unsigned int)c->wrap,
			(unsigned int)c->count);
	}
}

static void put_cursors(struct out *o, const struct smc_diag_conninfo *ci)
{
	put_curs(o, "rx_prod", &ci->rx_prod);
	put_curs(o, "rx_cons", &ci->rx_cons);
	put_curs(o, "tx_prod", &ci->tx_prod);
	put_curs(o, "tx_cons", &ci->tx_cons);
	put_curs(o, "tx_prep", &ci->tx_prep);
	put_curs(o, "tx_sent", &ci->tx_sent);
	put_curs(o, "tx_fin", &ci->tx_fin);
}

/* what a socket's SMC-R attributes say, and where that is */
struct conn_smcr {
	bool have_ci, have_li;
	struct smc_diag_conninfo ci;
	struct smc_diag_lgrinfo li;
	char ibname[IB_DEVICE_NAME_MAX + 1], gid[41], peer_gid[41];
	const struct lgr_ent *g;	/* NULL: not found */
	const struct link_ent *k;	/* g's link */
};

static void conn_smcr_get(struct conn_smcr *s, const struct lgr_list *lgrs,
			  const struct nlattr *cattr, const struct nlattr *lattr)
{
	memset(s, 0, sizeof(*s));
	s->have_ci = cattr && attr_len(cattr) >= sizeof(s->ci);
	if (!s->have_ci)
		return;
	memcpy(&s->ci, attr_data(cattr), sizeof(s->ci));
	s->have_li = lattr && attr_len(lattr) >= sizeof(s->li);
	if (!s->have_li)
		return;
	memcpy(&s->li, attr_data(lattr), sizeof(s->li));
	diag_str(s->ibname, sizeof(s->ibname), s->li.lnk[0].ibname,
		 sizeof(s->li.lnk[0].ibname));
	diag_str(s->gid, sizeof(s->gid), s->li.lnk[0].gid,
		 sizeof(s->li.lnk[0].gid));
	diag_str(s->peer_gid, sizeof(s->peer_gid), s->li.lnk[0].peer_gid,
		 sizeof(s->li.lnk[0].peer_gid));
	s->g = conn_lgr(lgrs, s->li.role, &s->li.lnk[0], s->ibname, s->gid,
			s->peer_gid, &s->k);
}

/* an SMC-R connection passes --netdev, --ibdev and --lgr */
static bool conn_match(const struct conn_smcr *s)
{
	if (!link_filters())
		return true;
	if (!s->have_li)
		return false;
	if (!ib_match(s->ibname, s->li.lnk[0].ibport))
		return false;
	if (opt.have_lgr && (!s->g || s->g->id != opt.lgr))
		return false;
	return !opt.netdev || (s->k && netdev_match(s->k->ifindex));
}

/* the SMC-R part of a connection: "smcr":{...} or "smcr":null */
static void conn_smcr_put(struct out *o, const struct conn_smcr *s)
{
	const struct smc_diag_conninfo *ci = &s->ci;
	const struct lgr_ent *g = s->g;
	struct json *j = &o->j;

	if (!s->have_ci) {
		if (opt.json)
			json_null(j, "smcr");
		return;
	}
	if (!opt.json) {
		if (g)
			fprintf(o->f, "  smcr lgr %08" PRIx32, g->id);
		else
			fprintf(o->f, "  smcr lgr -");
		if (s->have_li)
			fprintf(o->f, " link %u %s %s/%u", s->li.lnk[0].link_id,
				role_name(s->li.role), vis(s->ibname),
				s->li.lnk[0].ibport);
		fprintf(o->f, " token %u sndbuf %u rmbe %u peer_rmbe %u",
			ci->token, ci->sndbuf_size, ci->rmbe_size,
			ci->peer_rmbe_size);
		put_cursors(o, ci);
		if (g)
			fprintf(o->f, " vlan %u pnetid %s", g->vlan,
				pnet_txt(g->pnetid));
		fputc('\n', o->f);
		return;
	}
	json_obj_open(j, "smcr");
	if (g) {
		json_u64(j, "lgr_id", g->id);
		json_strf(j, "lgr_id_hex", "%08" PRIx32, g->id);
	} else {
		json_null(j, "lgr_id");
		json_null(j, "lgr_id_hex");
	}
	if (s->have_li) {
		json_str(j, "role", role_name(s->li.role));
		json_u64(j, "link_id", s->li.lnk[0].link_id);
		json_str(j, "ibdev", s->ibname);
		json_u64(j, "ibport", s->li.lnk[0].ibport);
		json_str(j, "gid", s->gid);
		json_str(j, "peer_gid", s->peer_gid);
	} else {
		json_null(j, "role");
		json_null(j, "link_id");
		json_null(j, "ibdev");
		json_null(j, "ibport");
		json_null(j, "gid");
		json_null(j, "peer_gid");
	}
	json_u64(j, "token", ci->token);
	json_u64(j, "sndbuf_size", ci->sndbuf_size);
	json_u64(j, "rmbe_size", ci->rmbe_size);
	json_u64(j, "peer_rmbe_size", ci->peer_rmbe_size);
	put_cursors(o, ci);
	json_u64(j, "rx_prod_flags", ci->rx_prod_flags);
	json_u64(j, "rx_conn_state_flags", ci->rx_conn_state_flags);
	json_u64(j, "tx_prod_flags", ci->tx_prod_flags);
	json_u64(j, "tx_conn_state_flags", ci->tx_conn_state_flags);
	if (g) {
		json_u64(j, "vlan", g->vlan);
		json_str(j, "pnetid", g->pnetid);
	} else {
		json_null(j, "vlan");
		json_null(j, "pnetid");
	}
	json_obj_close(j);
}

static void sock_info_fill(struct sock_info *si, const struct smc_diag_msg *r,
			   const struct smc_diag_fallback *fb,
			   const struct conn_smcr *s, const char *lstr,
			   const char *pstr)
{
	memset(si, 0, sizeof(*si));
	si->state = r->diag_state;
	si->mode = r->diag_mode;
	si->reason = fb->reason;
	si->peer_diag = fb->peer_diagnosis;
	snprintf(si->local, sizeof(si->local), "%s", lstr);
	snprintf(si->peer, sizeof(si->peer), "%s", pstr);
	si->smcr = s->have_ci;
	if (s->have_li) {
		snprintf(si->ibdev, sizeof(si->ibdev), "%s", s->ibname);
		si->ibport = s->li.lnk[0].ibport;
	}
	if (s->g) {
		si->lgr_known = true;
		si->lgr_id = s->g->id;
		si->version = s->g->version;
		si->release = s->g->release;
		if (s->k)
			ifname_of(s->k->ifindex, si->netdev);
	}
}

static void conn_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct smc_diag_msg *r = NLMSG_DATA(nlh);
	const struct nlattr *tb[SMC_DIAG_MAX + 1];
	struct smc_diag_fallback fb = { 0, 0 };
	char laddr[INET6_ADDRSTRLEN], paddr[INET6_ADDRSTRLEN];
	char lstr[INET6_ADDRSTRLEN + 8], pstr[INET6_ADDRSTRLEN + 8];
	struct conn_out *c = arg;
	struct out *o = &c->o;
	struct json *j = &o->j;
	unsigned int lport, pport;
	struct conn_smcr s;
	bool v4;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*r)))
		return;
	if (c->si && r->diag_inode != c->ino)
		return;
	parse_attrs(tb, SMC_DIAG_MAX, r + 1,
		    nlh->nlmsg_len - NLMSG_LENGTH(sizeof(*r)));
	if (tb[SMC_DIAG_FALLBACK] && attr_len(tb[SMC_DIAG_FALLBACK]) >= sizeof(fb))
		memcpy(&fb, attr_data(tb[SMC_DIAG_FALLBACK]), sizeof(fb));
	conn_smcr_get(&s, c->lgrs, tb[SMC_DIAG_CONNINFO], tb[SMC_DIAG_LGRINFO]);
	if (!c->si && opt.listening && r->diag_state != SMC_STATE_LISTEN)
		return;
	if (!c->si && !conn_match(&s))
		return;
	v4 = is_v4(&r->id);
	fmt_addr(laddr, sizeof(laddr), v4, r->id.idiag_src);
	fmt_addr(paddr, sizeof(paddr), v4, r->id.idiag_dst);
	lport = ntohs(r->id.idiag_sport);
	pport = ntohs(r->id.idiag_dport);
	snprintf(lstr, sizeof(lstr), v4 ? "%s:%u" : "[%s]:%u", laddr, lport);
	snprintf(pstr, sizeof(pstr), v4 ? "%s:%u" : "[%s]:%u", paddr, pport);
	if (c->si) {
		sock_info_fill(c->si, r, &fb, &s, lstr, pstr);
		o->n++;
		return;
	}

	if (opt.json) {
		json_obj_open(j, NULL);
		json_str(j, "state", state_name(r->diag_state));
		json_u64(j, "state_num", r->diag_state);
		json_str(j, "mode", mode_name(r->diag_mode));
		json_str(j, "family", v4 ? "inet" : "inet6");
		json_str(j, "local", lstr);
		json_str(j, "peer", pstr);
		json_str(j, "local_addr", laddr);
		json_u64(j, "local_port", lport);
		json_str(j, "peer_addr", paddr);
		json_u64(j, "peer_port", pport);
		json_u64(j, "uid", r->diag_uid);
		json_u64(j, "inode", r->diag_inode);
		json_u64(j, "fallback_reason", fb.reason);
		json_strf(j, "fallback_reason_hex", "0x%08x", fb.reason);
		json_str(j, "fallback_reason_name", smc_reason_name(fb.reason));
		json_u64(j, "peer_diagnosis", fb.peer_diagnosis);
		json_strf(j, "peer_diagnosis_hex", "0x%08x", fb.peer_diagnosis);
		json_str(j, "peer_diagnosis_name",
			 smc_reason_name(fb.peer_diagnosis));
		conn_smcr_put(o, &s);
		json_obj_close(j);
	} else {
		fprintf(o->f, "%-15s %5u %8llu %-24s %-24s %-4s 0x%08x %s",
			state_name(r->diag_state), r->diag_uid,
			(unsigned long long)r->diag_inode, lstr, pstr,
			mode_name(r->diag_mode), fb.reason,
			fb.reason ? smc_reason_name(fb.reason) : "-");
		if (fb.peer_diagnosis)
			fprintf(o->f, " (peer 0x%08x %s)", fb.peer_diagnosis,
				smc_reason_name(fb.peer_diagnosis));
		fputc('\n', o->f);
		conn_smcr_put(o, &s);
	}
	o->n++;
}

/* the AF_SMC sock_diag dump into @c; 0 or an errno */
static int diag_dump(struct conn_out *c)
{
	struct {
		struct nlmsghdr nlh;
		struct smc_diag_req r;
	} req;
	int fd = nl_open(NETLINK_SOCK_DIAG);
	int err;

	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nlh.nlmsg_seq = nl_seq();
	req.r.diag_family = AF_SMC;
	req.r.diag_ext = (1 << (SMC_DIAG_CONNINFO - 1)) |
			 (1 << (SMC_DIAG_LGRINFO - 1));
	nl_send(fd, &req.nlh);
	err = nl_recv(fd, req.nlh.nlmsg_seq, true, conn_cb, c);
	close(fd);
	return err;
}

int sock_lookup(uint64_t ino, struct sock_info *si)
{
	struct lgr_list lgrs;
	struct conn_out c;
	int err;

	memset(&c, 0, sizeof(c));
	if (!get_lgrs_quiet(&lgrs))
		c.lgrs = &lgrs;
	c.ino = ino;
	c.si = si;
	err = diag_dump(&c);
	free_lgrs(&lgrs);
	if (err == ENOENT)
		return EAFNOSUPPORT;
	if (err)
		return err;
	return c.o.n ? 0 : ENOENT;
}

static int cmd_connections(int argc, char **argv)
{
	struct lgr_list lgrs = { 0, NULL };
	struct conn_out c;
	const char *lines;
	int err;

	(void)argv;
	if (argc)
		die(EXIT_USAGE, "connections: no arguments");
	memset(&c, 0, sizeof(c));
	/* link groups first, to name the one of each SMC-R connection */
	if (!get_lgrs_quiet(&lgrs))
		c.lgrs = &lgrs;
	out_open(&c.o);
	err = diag_dump(&c);
	if (err == ENOENT)
		die(EXIT_NOSMC,
		    "no sock_diag handler for AF_SMC: is the smc module loaded?");
	if (err)
		die(EXIT_ERR, "AF_SMC sock_diag dump failed: %s", strerror(err));
	lines = out_close(&c.o);
	if (opt.json)
		printf("{\"connections\":%s}\n", lines);
	else
		printf("%-15s %5s %8s %-24s %-24s %-4s %s\n%s", "State", "UID",
		       "Inode", "Local Address", "Peer Address", "Mode",
		       "Fallback", lines);
	free(c.o.buf);
	free_lgrs(&lgrs);
	return 0;
}

/* ---- smcctl reasons ---- */

static int cmd_reasons(int argc, char **argv)
{
	const struct smc_reason *r;
	struct json j;
	uint32_t code = 0;
	bool one = false;
	size_t i;
	char *end;

	if (argc > 1)
		die(EXIT_USAGE, "reasons: at most one CODE");
	if (argc == 1) {
		errno = 0;
		code = (uint32_t)strtoul(argv[0], &end, 16);
		if (errno || *end || end == argv[0])
			die(EXIT_USAGE, "reasons: %s is not a hex reason code",
			    argv[0]);
		one = true;
		if (!smc_reason_find(code))
			die(EXIT_ERR, "reasons: 0x%08" PRIx32
			    " is not an SMC reason code", code);
	}
	json_init(&j, stdout);
	if (opt.json) {
		json_obj_open(&j, NULL);
		json_arr_open(&j, "reasons");
	}
	for (i = 0; i < smc_reasons_n; i++) {
		r = &smc_reasons[i];
		if (one && r->code != code)
			continue;
		if (opt.json) {
			json_obj_open(&j, NULL);
			json_u64(&j, "reason", r->code);
			json_strf(&j, "hex", "0x%08" PRIx32, r->code);
			json_str(&j, "name", r->name);
			json_str(&j, "meaning", r->meaning);
			json_str(&j, "remedy", r->remedy);
			json_bool(&j, "smcd_only", r->smcd);
			json_bool(&j, "this_module", r->local);
			json_obj_close(&j);
			continue;
		}
		printf("0x%08" PRIx32 "  %-26s %s%s\n", r->code, r->name,
		       r->meaning, r->smcd ? " (SMC-D)" : "");
		if (one)
			printf("  what to do: %s\n", r->remedy);
	}
	if (opt.json) {
		json_arr_close(&j);
		json_obj_close(&j);
		putchar('\n');
	}
	return 0;
}

/* ---- smcctl pnet ---- */

void pnet_put(struct pnet_req *r, uint16_t type, const void *data,
		     size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + r->nlh.nlmsg_len);

	if (r->nlh.nlmsg_len + NLA_ALIGN(NLA_HDRLEN + len) > sizeof(*r))
		die(EXIT_USAGE, "pnet: arguments too long");
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nlh.nlmsg_len += NLA_ALIGN(a->nla_len);
}

void pnet_put_str(struct pnet_req *r, uint16_t type, const char *s)
{
	pnet_put(r, type, s, strlen(s) + 1);
}

/*
 * SMC_PNETID's id; exits with EXIT_NOSMC when it is not there.  Also asks
 * for extended ACKs on @fd: the kernel's reason for a refusal.
 */
int pnet_family(int fd)
{
	int on = 1;

	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &on, sizeof(on));
	return genl_family_or_die(fd, SMCR_GENL_FAMILY_NAME);
}

void pnet_init(struct pnet_req *r, int family, uint8_t cmd,
	       uint16_t flags)
{
	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_type = family;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | flags;
	r->nlh.nlmsg_seq = nl_seq();
	r->genl.cmd = cmd;
	r->genl.version = SMCR_GENL_FAMILY_VERSION;
}

/* exit status 1 with the errno and the kernel's reason, if it gave one */
static int nl_fail(const char *tool, const char *what, int err)
{
	fprintf(stderr, "%s: %s %s: %s (errno %d)%s%s\n", prog, tool, what,
		strerror(err), err, nl_errmsg[0] ? ": " : "", vis(nl_errmsg));
	return EXIT_ERR;
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

static void pnet_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct genlmsghdr *g = NLMSG_DATA(nlh);
	const struct nlattr *tb[SMC_PNETID_MAX + 1];
	char id[16 + 1], eth[IF_NAMESIZE], ib[IB_DEVICE_NAME_MAX];
	struct out *o = arg;
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
	if (opt.json) {
		json_obj_open(&o->j, NULL);
		json_str(&o->j, "pnetid", id);
		json_str(&o->j, "netdev", has_eth ? eth : NULL);
		json_str(&o->j, "ibdev", has_ib ? ib : NULL);
		if (has_ib)
			json_u64(&o->j, "ibport", port);
		else
			json_null(&o->j, "ibport");
		json_obj_close(&o->j);
	} else if (has_ib) {
		fprintf(o->f, "%-16s %-16s %-16s %4u\n", vis(id),
			has_eth ? vis(eth) : "-", vis(ib), port);
	} else {
		fprintf(o->f, "%-16s %-16s %-16s %4s\n", vis(id),
			has_eth ? vis(eth) : "-", "-", "-");
	}
	o->n++;
}

static int pnet_show(int fd, int family, const char *id)
{
	const char *lines;
	struct pnet_req r;
	struct out o;
	int err;

	pnet_init(&r, family, SMC_PNETID_GET, id ? 0 : NLM_F_DUMP);
	if (id)
		pnet_put_str(&r, SMC_PNETID_NAME, id);
	out_open(&o);
	nl_send(fd, &r.nlh);
	/* both answers end in NLMSG_DONE */
	err = nl_recv(fd, r.nlh.nlmsg_seq, true, pnet_cb, &o);
	lines = out_close(&o);
	close(fd);
	if (err) {
		free(o.buf);
		return pnet_fail("show", err);
	}
	if (opt.json)
		printf("{\"pnet\":%s}\n", lines);
	else
		printf("%-16s %-16s %-16s %4s\n%s", "PNET ID", "Net-Dev",
		       "RDMA-Dev", "Port", lines);
	free(o.buf);
	return 0;
}

static void pnet_usage(FILE *f, int code)
{
	fprintf(f,
		"usage: %s pnet add PNETID [--eth IFNAME] [--ib DEV [--port N]]\n"
		"       %s pnet del PNETID\n"
		"       %s pnet flush\n"
		"       %s [--json] pnet show [PNETID]\n",
		prog, prog, prog, prog);
	exit(code);
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
		pnet_usage(stderr, EXIT_USAGE);
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
				pnet_usage(stderr, EXIT_USAGE);
		} else if (argv[i][0] == '-' || id) {
			pnet_usage(stderr, EXIT_USAGE);
		} else {
			id = argv[i];
		}
	}

	if (!strcmp(sub, "show")) {
		if (eth || ib || port >= 0)
			pnet_usage(stderr, EXIT_USAGE);
		fd = nl_open(NETLINK_GENERIC);
		return pnet_show(fd, pnet_family(fd), id);
	}
	if (!strcmp(sub, "flush")) {
		if (id || eth || ib || port >= 0)
			pnet_usage(stderr, EXIT_USAGE);
		fd = nl_open(NETLINK_GENERIC);
		pnet_init(&r, pnet_family(fd), SMC_PNETID_FLUSH, NLM_F_ACK);
		return pnet_change(&r, fd, "flush");
	}
	if (!strcmp(sub, "del")) {
		if (!id || eth || ib || port >= 0)
			pnet_usage(stderr, EXIT_USAGE);
		fd = nl_open(NETLINK_GENERIC);
		pnet_init(&r, pnet_family(fd), SMC_PNETID_DEL, NLM_F_ACK);
		pnet_put_str(&r, SMC_PNETID_NAME, id);
		return pnet_change(&r, fd, "del");
	}
	if (!strcmp(sub, "add")) {
		uint8_t p = port < 0 ? 1 : (uint8_t)port;

		if (!id || (!eth && !ib) || (port >= 0 && !ib))
			pnet_usage(stderr, EXIT_USAGE);
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
	pnet_usage(stderr, EXIT_USAGE);
	return EXIT_USAGE;
}

/* ---- smcctl ueid ---- */

static void ueid_usage(FILE *f, int code)
{
	fprintf(f,
		"usage: %s ueid add EID | ueid del EID | ueid flush\n"
		"       %s [--json] ueid show\n"
		"EID: at most %d of A-Z, 0-9, '.', '-' (lower case is raised)\n",
		prog, prog, SMC_MAX_EID_LEN);
	exit(code);
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
		ueid_usage(stderr, EXIT_USAGE);
	for (i = 0; i < SMC_MAX_EID_LEN; i++)
		out[i] = i < n ? (char)toupper((unsigned char)in[i]) : ' ';
	out[SMC_MAX_EID_LEN] = '\0';
}

static void ueid_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct genlmsghdr *g = NLMSG_DATA(nlh);
	const struct nlattr *tb[SMC_NLA_EID_TABLE_MAX + 1];
	char eid[SMC_MAX_EID_LEN + 1];
	struct out *o = arg;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*g)))
		return;
	parse_attrs(tb, SMC_NLA_EID_TABLE_MAX, g + 1,
		    nlh->nlmsg_len - NLMSG_LENGTH(sizeof(*g)));
	if (!tb[SMC_NLA_EID_TABLE_ENTRY])
		return;
	attr_str(eid, sizeof(eid), tb[SMC_NLA_EID_TABLE_ENTRY]);
	rstrip(eid);
	if (opt.json)
		json_str(&o->j, NULL, eid);
	else
		fprintf(o->f, "%s\n", vis(eid));
	o->n++;
}

/* smcctl ueid add|del|flush|show ...: @argv holds what follows "ueid" */
static int cmd_ueid(int argc, char **argv)
{
	static const struct { const char *name; uint8_t cmd; bool arg; } ops[] = {
		{ "add", SMC_NETLINK_ADD_UEID, true },
		{ "del", SMC_NETLINK_REMOVE_UEID, true },
		{ "flush", SMC_NETLINK_FLUSH_UEID, false },
	};
	char eid[SMC_MAX_EID_LEN + 1];
	const char *lines;
	struct pnet_req r;
	struct out o;
	int fd, err, on = 1;
	size_t i = 0;

	if (argc < 1)
		ueid_usage(stderr, EXIT_USAGE);
	if (!strcmp(argv[0], "show")) {
		if (argc != 1)
			ueid_usage(stderr, EXIT_USAGE);
	} else {
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
			if (!strcmp(argv[0], ops[i].name))
				break;
		if (i == sizeof(ops) / sizeof(ops[0]) ||
		    argc != (ops[i].arg ? 2 : 1))
			ueid_usage(stderr, EXIT_USAGE);
		if (ops[i].arg)
			ueid_pad(eid, argv[1]);
	}
	fd = nl_open(NETLINK_GENERIC);
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &on, sizeof(on));
	if (!strcmp(argv[0], "show")) {
		pnet_init(&r, smc_family(fd), SMC_NETLINK_DUMP_UEID, NLM_F_DUMP);
		r.genl.version = SMC_GENL_FAMILY_VERSION;
		out_open(&o);
		nl_send(fd, &r.nlh);
		err = nl_recv(fd, r.nlh.nlmsg_seq, true, ueid_cb, &o);
		lines = out_close(&o);
		close(fd);
		if (err) {
			free(o.buf);
			return nl_fail("ueid", "show", err);
		}
		if (opt.json)
			printf("{\"ueid\":%s}\n", lines);
		else
			fputs(lines, stdout);
		free(o.buf);
		return 0;
	}
	pnet_init(&r, smc_family(fd), ops[i].cmd, NLM_F_ACK);
	r.genl.version = SMC_GENL_FAMILY_VERSION;
	if (ops[i].arg)
		pnet_put_str(&r, SMC_NLA_EID_TABLE_ENTRY, eid);
	nl_send(fd, &r.nlh);
	err = nl_recv(fd, r.nlh.nlmsg_seq, false, NULL, NULL);
	close(fd);
	return err ? nl_fail("ueid", ops[i].name, err) : 0;
}

/* ---- main ---- */

static void usage(FILE *f, int code)
{
	fprintf(f,
		"usage: %s [OPTIONS] COMMAND [ARGS]\n"
		"commands:\n"
		"  info         SMC version and host name the module announces\n"
		"  stats [show|reset] [-d] [-a]\n"
		"               SMC-R connections, fallbacks, errors, data; -d in\n"
		"               detail (buffers, sizes, special calls); reset:\n"
		"               count from now on (-a: since the module was loaded)\n"
		"  fallback [-a]\n"
		"               fallbacks to TCP per side and reason code\n"
		"  connections [-l] [FILTERS]\n"
		"               SMC sockets: state, addresses, mode, fallback;\n"
		"               -l: listening sockets only\n"
		"  devices [--netdev IF] [--ibdev DEV[/PORT]]\n"
		"               RDMA devices: ports, state, network device, PNET ID\n"
		"  linkgroups [FILTERS]\n"
		"               SMC-R link groups: role, type, VLAN, PNET ID, peer\n"
		"  links [FILTERS]\n"
		"               SMC-R links: state, device, GIDs, connections\n"
		"  reasons [CODE]\n"
		"               fallback reason codes: meaning and what to do\n"
		"  check [-6] [-t SECS] HOST:PORT\n"
		"  check --server [-6] [-t SECS] PORT\n"
		"               connect (or accept one connection) over AF_SMC and\n"
		"               tell whether it is SMC-R or why it fell back\n"
		"  debug-bundle [FILE.tar.gz|DIR]\n"
		"               collect what a bug report needs\n"
		"  ueid add EID | ueid del EID | ueid flush | ueid show\n"
		"               user-defined EIDs (SMC-R v2 needs one)\n"
		"  pnet add PNETID [--eth IFNAME] [--ib DEV [--port N]]\n"
		"  pnet del PNETID | pnet flush | pnet show [PNETID]\n"
		"               the PNET table: which RDMA port a network\n"
		"               device's connections may use\n"
		"  apply [-n] [FILE]\n"
		"               set the UEID and PNET tables from FILE (default\n"
		"               /etc/smc-r/smc-r.conf; at boot by udev); -n: check\n"
		"FILTERS: --netdev IF, --ibdev DEV[/PORT], --lgr ID (hex)\n"
		"options: -j, --json  one JSON document; -h, --help; -V, --version\n"
		"exit status: 0 ok, 1 error, 2 usage, 3 SMC module not loaded,\n"
		"             4 check: connected over TCP (fallback)\n",
		prog);
	exit(code);
}

static void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(%s --help lists the commands and options)\n", prog);
	exit(EXIT_USAGE);
}

/* which commands take an option */
enum {
	C_INFO = 1 << 0, C_STATS = 1 << 1, C_FALLBACK = 1 << 2,
	C_CONNS = 1 << 3, C_DEVICES = 1 << 4, C_LGRS = 1 << 5,
	C_LINKS = 1 << 6, C_REASONS = 1 << 7, C_CHECK = 1 << 8,
	C_BUNDLE = 1 << 9,
};

static const struct command {
	const char *name;
	unsigned int bit;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "info", C_INFO, cmd_info },
	{ "stats", C_STATS, cmd_stats },
	{ "fallback", C_FALLBACK, cmd_fallback },
	{ "connections", C_CONNS, cmd_connections },
	{ "devices", C_DEVICES, cmd_devices },
	{ "linkgroups", C_LGRS, cmd_linkgroups },
	{ "links", C_LINKS, cmd_links },
	{ "reasons", C_REASONS, cmd_reasons },
	{ "check", C_CHECK, cmd_check },
	{ "debug-bundle", C_BUNDLE, cmd_debug_bundle },
};

#define C_ALL (~0u)
#define C_FILTER (C_CONNS | C_LGRS | C_LINKS)

enum { O_JSON, O_DETAILS, O_ABSOLUTE, O_LISTENING, O_NETDEV, O_IBDEV,
	O_LGR, O_IPV6, O_TIMEOUT, O_SERVER, N_OPTIONS };

static const struct option_def {
	const char *lng;
	char shrt;
	bool arg;
	unsigned int cmds;
} options[N_OPTIONS] = {
	[O_JSON] = { "json", 'j', false, C_ALL },
	[O_DETAILS] = { "details", 'd', false, C_STATS },
	[O_ABSOLUTE] = { "absolute", 'a', false, C_STATS | C_FALLBACK },
	[O_LISTENING] = { "listening", 'l', false, C_CONNS },
	[O_NETDEV] = { "netdev", 0, true, C_FILTER | C_DEVICES },
	[O_IBDEV] = { "ibdev", 0, true, C_FILTER | C_DEVICES },
	[O_LGR] = { "lgr", 0, true, C_FILTER },
	[O_IPV6] = { "ipv6", '6', false, C_CHECK },
	[O_TIMEOUT] = { "timeout", 't', true, C_CHECK },
	[O_SERVER] = { "server", 'S', false, C_CHECK },
};

static void set_ibdev(const char *val)
{
	const char *slash = strchr(val, '/');
	size_t len = slash ? (size_t)(slash - val) : strlen(val);
	unsigned long v;
	char *end;

	if (!len || len >= sizeof(opt.ibname))
		usage_error("--ibdev %s: want DEV or DEV/PORT", val);
	memcpy(opt.ibname, val, len);
	opt.ibname[len] = '\0';
	opt.ibdev = val;
	if (!slash)
		return;
	errno = 0;
	v = strtoul(slash + 1, &end, 10);
	if (errno || *end || end == slash + 1 || !v || v > 255)
		usage_error("--ibdev %s: want DEV or DEV/PORT", val);
	opt.ibport = (unsigned int)v;
}

static void set_option(int id, const char *val)
{
	unsigned long v;
	char *end;

	switch (id) {
	case O_JSON:
		opt.json = true;
		break;
	case O_DETAILS:
		opt.details = true;
		break;
	case O_ABSOLUTE:
		opt.absolute = true;
		break;
	case O_LISTENING:
		opt.listening = true;
		break;
	case O_IPV6:
		opt.ipv6 = true;
		break;
	case O_SERVER:
		opt.server = true;
		break;
	case O_TIMEOUT:
		errno = 0;
		v = strtoul(val, &end, 10);
		if (errno || *end || end == val || !v || v > 3600 || val[0] == '-')
			usage_error("--timeout %s: want 1..3600 seconds", val);
		opt.timeout = (unsigned int)v;
		break;
	case O_NETDEV:
		if (!val[0])
			usage_error("--netdev needs a name");
		opt.netdev = val;
		break;
	case O_IBDEV:
		set_ibdev(val);
		break;
	case O_LGR:
		if (val[0] == '0' && (val[1] == 'x' || val[1] == 'X'))
			val += 2;
		errno = 0;
		v = strtoul(val, &end, 16);
		if (errno || *end || end == val || v > UINT32_MAX || val[0] == '-')
			usage_error("--lgr %s: want a link group id in hex", val);
		opt.have_lgr = true;
		opt.lgr = (uint32_t)v;
		break;
	}
}

/*
 * Find option @arg (with its value in @next, if it takes one); returns
 * how many arguments it used, 0 if @arg is no option of ours.
 */
static int parse_option(const char *arg, const char *next, int *which)
{
	const char *eq = NULL, *name;
	size_t len, i;

	if (arg[0] != '-' || !arg[1])
		return 0;
	if (arg[1] == '-') {
		name = arg + 2;
		eq = strchr(name, '=');
		len = eq ? (size_t)(eq - name) : strlen(name);
		for (i = 0; i < N_OPTIONS; i++)
			if (strlen(options[i].lng) == len &&
			    !strncmp(options[i].lng, name, len))
				break;
	} else {
		if (arg[2])
			return 0;	/* no bundling of short options */
		for (i = 0; i < N_OPTIONS; i++)
			if (options[i].shrt && options[i].shrt == arg[1])
				break;
	}
	if (i == N_OPTIONS)
		return 0;
	*which = (int)i;
	if (!options[i].arg) {
		if (eq)
			usage_error("%s takes no value", arg);
		set_option((int)i, NULL);
		return 1;
	}
	if (eq) {
		set_option((int)i, eq + 1);
		return 1;
	}
	if (!next)
		usage_error("%s needs a value", arg);
	set_option((int)i, next);
	return 2;
}

/* the arguments after "pnet" or "ueid" (from @first on), --json anywhere */
static int cmd_sub_args(int argc, char **argv, int first,
			int (*cmd)(int argc, char **argv),
			void (*help)(FILE *f, int code))
{
	char **rest = calloc(argc, sizeof(*rest));
	int i, n = 0;

	if (!rest)
		die(EXIT_ERR, "out of memory");
	for (i = first; i < argc; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			opt.json = true;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			help(stdout, 0);
		else
			rest[n++] = argv[i];
	}
	return cmd(n, rest);
}

int main(int argc, char **argv)
{
	bool used[N_OPTIONS] = { false };
	const struct command *cmd = NULL;
	int i, k, o, npos = 0;
	char **pos;
	size_t c;

	pos = calloc(argc, sizeof(*pos));
	if (!pos)
		die(EXIT_ERR, "out of memory");
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			usage(stdout, 0);
		if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V") ||
		    !strcmp(argv[i], "-v")) {
			printf("smcctl %s\n", SMCCTL_VERSION);
			return 0;
		}
		if (!cmd && !npos && !strcmp(argv[i], "pnet"))
			return cmd_sub_args(argc, argv, i + 1, cmd_pnet,
					    pnet_usage);
		if (!cmd && !npos && !strcmp(argv[i], "ueid"))
			return cmd_sub_args(argc, argv, i + 1, cmd_ueid,
					    ueid_usage);
		if (!cmd && !npos && !strcmp(argv[i], "apply"))
			return cmd_sub_args(argc, argv, i + 1, cmd_apply,
					    apply_usage);
		if (!strcmp(argv[i], "--")) {
			while (++i < argc)
				pos[npos++] = argv[i];
			break;
		}
		k = parse_option(argv[i], i + 1 < argc ? argv[i + 1] : NULL, &o);
		if (k) {
			used[o] = true;
			i += k - 1;
			continue;
		}
		if (argv[i][0] == '-' && argv[i][1])
			usage_error("unknown option %s", argv[i]);
		if (!cmd && !npos) {
			for (c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
				if (!strcmp(argv[i], commands[c].name))
					cmd = &commands[c];
			if (!cmd)
				usage_error("unknown command %s", argv[i]);
			continue;
		}
		pos[npos++] = argv[i];
	}
	if (!cmd)
		usage(stderr, EXIT_USAGE);
	for (o = 0; o < N_OPTIONS; o++)
		if (used[o] && !(options[o].cmds & cmd->bit))
			die(EXIT_USAGE, "--%s does not apply to %s (%s --help)",
			    options[o].lng, cmd->name, prog);
	if (opt.netdev) {
		opt.ifindex = if_nametoindex(opt.netdev);
		if (!opt.ifindex)
			die(EXIT_ERR, "--netdev %s: no such network device",
			    vis(opt.netdev));
	}
	return cmd->run(npos, pos);
}
