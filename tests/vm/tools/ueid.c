// SPDX-License-Identifier: GPL-2.0
/*
 * ueid - add, remove or flush an SMC user-defined EID (UEID) through the
 * SMC_GEN_NETLINK generic netlink family, as IBM's smc-tools "smcd ueid"
 * does.  SMC-R v2 needs at least one UEID on both peers.
 *
 *   ueid add EID      EID: upper-case letters, digits, '.', '-' (<= 32)
 *   ueid del EID
 *   ueid flush
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#define SMC_GENL_FAMILY_NAME	"SMC_GEN_NETLINK"
#define SMC_GENL_FAMILY_VERSION	1
#define SMC_NETLINK_ADD_UEID	10
#define SMC_NETLINK_REMOVE_UEID	11
#define SMC_NETLINK_FLUSH_UEID	12
#define SMC_NLA_EID_TABLE_ENTRY	1
#define SMC_MAX_EID_LEN		32

struct nlreq {
	struct nlmsghdr nlh;
	struct genlmsghdr genl;
	char attrs[256];
};

static int nl_fd;
static uint32_t nl_seq;

static void put_attr(struct nlreq *req, uint16_t type, const void *data,
		     size_t len)
{
	struct nlattr *nla = (struct nlattr *)((char *)req +
					       NLMSG_ALIGN(req->nlh.nlmsg_len));

	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + len;
	memcpy((char *)nla + NLA_HDRLEN, data, len);
	req->nlh.nlmsg_len = NLMSG_ALIGN(req->nlh.nlmsg_len) +
			     NLA_ALIGN(nla->nla_len);
}

static void init_req(struct nlreq *req, uint16_t family, uint8_t cmd,
		     uint8_t version)
{
	memset(req, 0, sizeof(*req));
	req->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	req->nlh.nlmsg_type = family;
	req->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req->nlh.nlmsg_seq = ++nl_seq;
	req->genl.cmd = cmd;
	req->genl.version = version;
}

/* Send @req; on success copy the first non-ack reply into @reply (if any). */
static int transact(struct nlreq *req, char *reply, size_t reply_len)
{
	struct sockaddr_nl kern = { .nl_family = AF_NETLINK };
	char buf[8192];
	int got_reply = 0;

	if (sendto(nl_fd, req, req->nlh.nlmsg_len, 0,
		   (struct sockaddr *)&kern, sizeof(kern)) < 0) {
		perror("ueid: sendto");
		return -1;
	}
	for (;;) {
		ssize_t n = recv(nl_fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nlh;

		if (n < 0) {
			perror("ueid: recv");
			return -1;
		}
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, (size_t)n);
		     nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_seq != req->nlh.nlmsg_seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *err = NLMSG_DATA(nlh);

				if (err->error) {
					errno = -err->error;
					return -1;
				}
				return 0;
			}
			if (reply && !got_reply) {
				size_t len = nlh->nlmsg_len < reply_len ?
					     nlh->nlmsg_len : reply_len;

				memcpy(reply, nlh, len);
				got_reply = 1;
			}
		}
	}
}

static int resolve_family(const char *name)
{
	struct nlreq req;
	char reply[4096];
	struct nlmsghdr *nlh = (struct nlmsghdr *)reply;
	struct nlattr *nla;
	int len;

	init_req(&req, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
	put_attr(&req, CTRL_ATTR_FAMILY_NAME, name, strlen(name) + 1);
	memset(reply, 0, sizeof(reply));
	if (transact(&req, reply, sizeof(reply)) < 0)
		return -1;
	len = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	nla = (struct nlattr *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
	while (len >= (int)NLA_HDRLEN && nla->nla_len >= NLA_HDRLEN) {
		if ((nla->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
			return *(uint16_t *)((char *)nla + NLA_HDRLEN);
		len -= NLA_ALIGN(nla->nla_len);
		nla = (struct nlattr *)((char *)nla + NLA_ALIGN(nla->nla_len));
	}
	errno = ENOENT;
	return -1;
}

static int make_eid(const char *in, char out[SMC_MAX_EID_LEN + 1])
{
	size_t i, len = strlen(in);

	if (!len || len > SMC_MAX_EID_LEN)
		return -1;
	for (i = 0; i < len; i++) {
		char c = in[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '-'))
			return -1;
	}
	memset(out, ' ', SMC_MAX_EID_LEN);
	memcpy(out, in, len);
	out[SMC_MAX_EID_LEN] = '\0';
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: ueid add EID | ueid del EID | ueid flush\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sockaddr_nl local = { .nl_family = AF_NETLINK };
	char eid[SMC_MAX_EID_LEN + 1];
	struct nlreq req;
	int family;
	uint8_t cmd;

	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "add") && argc == 3)
		cmd = SMC_NETLINK_ADD_UEID;
	else if (!strcmp(argv[1], "del") && argc == 3)
		cmd = SMC_NETLINK_REMOVE_UEID;
	else if (!strcmp(argv[1], "flush") && argc == 2)
		cmd = SMC_NETLINK_FLUSH_UEID;
	else
		usage();
	if (argc == 3 && make_eid(argv[2], eid)) {
		fprintf(stderr, "ueid: invalid EID '%s' (A-Z 0-9 . -, 1..32)\n",
			argv[2]);
		return 2;
	}

	nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl_fd < 0 || bind(nl_fd, (struct sockaddr *)&local,
			      sizeof(local)) < 0) {
		perror("ueid: netlink socket");
		return 1;
	}
	family = resolve_family(SMC_GENL_FAMILY_NAME);
	if (family < 0) {
		fprintf(stderr, "ueid: family %s: %s (smc module loaded?)\n",
			SMC_GENL_FAMILY_NAME, strerror(errno));
		return 1;
	}
	init_req(&req, family, cmd, SMC_GENL_FAMILY_VERSION);
	if (argc == 3)
		put_attr(&req, SMC_NLA_EID_TABLE_ENTRY, eid, sizeof(eid));
	if (transact(&req, NULL, 0) < 0) {
		fprintf(stderr, "ueid: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	close(nl_fd);
	return 0;
}
