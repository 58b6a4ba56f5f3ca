// SPDX-License-Identifier: GPL-2.0
/*
 * smcctl apply [-n] [FILE]: set the UEID and PNET tables from a file, by
 * default /etc/smc-r/smc-r.conf, so that they survive a reboot.  The udev
 * rule tools/smcctl/90-smc-r.rules runs it whenever the smc module is
 * loaded (both tables live in the module and go with it).
 *
 * The file has one entry per line; '#' starts a comment:
 *	ueid EID
 *	pnet PNETID [--eth IFNAME] [--ib DEV [--port N]]
 * A table the file has entries for is replaced: flushed, then filled
 * from the file.  A table it has none for is left as it is, so that a
 * UEID given as a module option (modprobe.d) stays when the file only
 * sets PNET IDs.  A device named in a PNET entry need not exist yet.
 *
 * The whole file is read and checked first: a bad line changes nothing
 * (exit 2, naming FILE:LINE).  Then every entry goes in; one the kernel
 * refuses is reported and the others still go in (exit 1).  -n checks
 * the file only.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>

#include <linux/smc.h>

#include "smcctl.h"

#define APPLY_DEFAULT_FILE	"/etc/smc-r/smc-r.conf"
#define APPLY_PNET_LEN		16	/* a PNET ID, characters */
#define APPLY_IBNAME_LEN	64	/* IB_DEVICE_NAME_MAX */
#define APPLY_MAX_ENTRIES	256	/* the module's PNET table holds no more */

struct apply_entry {
	bool pnet;			/* else a UEID */
	unsigned int line;
	char id[SMC_MAX_EID_LEN + 1];	/* EID blank padded, or PNET ID */
	char eth[IF_NAMESIZE];		/* "" when none */
	char ib[APPLY_IBNAME_LEN];	/* "" when none */
	unsigned int port;		/* 0: none given */
};

struct apply_file {
	const char *name;
	struct apply_entry e[APPLY_MAX_ENTRIES];
	unsigned int n;
	bool has_ueid, has_pnet;
};

void apply_usage(FILE *f, int code)
{
	fprintf(f,
		"usage: %s apply [-n] [FILE]\n"
		"sets the UEID and PNET tables from FILE (default %s):\n"
		"  ueid EID\n"
		"  pnet PNETID [--eth IFNAME] [--ib DEV [--port N]]\n"
		"a table with entries in FILE is replaced by them; -n: check only\n",
		prog, APPLY_DEFAULT_FILE);
	exit(code);
}

static void __attribute__((format(printf, 3, 4), noreturn))
bad_line(const struct apply_file *af, unsigned int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s:%u: ", prog, af->name, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("; nothing applied\n", stderr);
	exit(EXIT_USAGE);
}

/* An EID as the kernel takes it (upper case, blank padded), if valid. */
static bool eid_ok(char out[SMC_MAX_EID_LEN + 1], const char *in)
{
	size_t i, n = strlen(in);

	if (!n || n > SMC_MAX_EID_LEN || !isalnum((unsigned char)in[0]))
		return false;
	for (i = 0; i < SMC_MAX_EID_LEN; i++) {
		unsigned char c = i < n ? (unsigned char)in[i] : ' ';

		if (i < n && !isascii(c))
			return false;
		if (i < n && !isalnum(c) && c != '.' && c != '-')
			return false;
		out[i] = (char)toupper(c);
	}
	out[SMC_MAX_EID_LEN] = '\0';
	return true;
}

static bool pnetid_ok(const char *in)
{
	size_t i, n = strlen(in);

	if (!n || n > APPLY_PNET_LEN)
		return false;
	for (i = 0; i < n; i++)
		if (!isascii((unsigned char)in[i]) ||
		    !isalnum((unsigned char)in[i]))
			return false;
	return true;
}

/* a device name: printable, no blank or '/', and short enough */
static bool devname_ok(const char *in, size_t size)
{
	size_t i, n = strlen(in);

	if (!n || n >= size || !strcmp(in, ".") || !strcmp(in, ".."))
		return false;
	for (i = 0; i < n; i++)
		if (!isgraph((unsigned char)in[i]) || in[i] == '/' ||
		    in[i] == ':')
			return false;
	return true;
}

static void parse_pnet(struct apply_file *af, struct apply_entry *e,
		       char **w, int nw)
{
	char *end;
	long v;
	int i;

	if (nw < 2)
		bad_line(af, e->line, "pnet needs a PNET ID");
	if (!pnetid_ok(w[1]))
		bad_line(af, e->line, "PNET ID '%s': want 1 to %d letters or digits",
			 vis(w[1]), APPLY_PNET_LEN);
	strcpy(e->id, w[1]);
	for (i = 2; i < nw; i++) {
		if (i + 1 >= nw)
			bad_line(af, e->line, "%s needs a value", vis(w[i]));
		if (!strcmp(w[i], "--eth") && !e->eth[0]) {
			if (!devname_ok(w[i + 1], sizeof(e->eth)))
				bad_line(af, e->line, "bad network device name '%s'",
					 vis(w[i + 1]));
			strcpy(e->eth, w[++i]);
		} else if (!strcmp(w[i], "--ib") && !e->ib[0]) {
			if (!devname_ok(w[i + 1], sizeof(e->ib)))
				bad_line(af, e->line, "bad RDMA device name '%s'",
					 vis(w[i + 1]));
			strcpy(e->ib, w[++i]);
		} else if (!strcmp(w[i], "--port") && !e->port) {
			errno = 0;
			v = strtol(w[++i], &end, 10);
			if (errno || *end || end == w[i] || v < 1 || v > 2)
				bad_line(af, e->line, "--port %s: want 1 or 2",
					 vis(w[i]));
			e->port = (unsigned int)v;
		} else {
			bad_line(af, e->line, "unexpected '%s'", vis(w[i]));
		}
	}
	if (!e->eth[0] && !e->ib[0])
		bad_line(af, e->line, "pnet %s names no device (--eth or --ib)",
			 e->id);
	if (e->port && !e->ib[0])
		bad_line(af, e->line, "--port without --ib");
}

/* Read and check @af->name; exits on the first bad line. */
static void apply_read(struct apply_file *af)
{
	char *buf = NULL, *w[16], *p, *save;
	unsigned int line = 0;
	size_t cap = 0;
	struct apply_entry *e;
	int nw;
	FILE *f;

	f = fopen(af->name, "r");
	if (!f)
		die(EXIT_ERR, "%s: %s", af->name, strerror(errno));
	while (getline(&buf, &cap, f) >= 0) {
		line++;
		p = strchr(buf, '#');
		if (p)
			*p = '\0';
		nw = 0;
		for (p = strtok_r(buf, " \t\r\n", &save); p;
		     p = strtok_r(NULL, " \t\r\n", &save)) {
			if (nw == (int)(sizeof(w) / sizeof(w[0])))
				bad_line(af, line, "too many words");
			w[nw++] = p;
		}
		if (!nw)
			continue;
		if (af->n == APPLY_MAX_ENTRIES)
			bad_line(af, line, "more than %d entries",
				 APPLY_MAX_ENTRIES);
		e = &af->e[af->n];
		memset(e, 0, sizeof(*e));
		e->line = line;
		if (!strcmp(w[0], "ueid")) {
			if (nw != 2)
				bad_line(af, line, "want: ueid EID");
			if (!eid_ok(e->id, w[1]))
				bad_line(af, line,
					 "EID '%s': want 1 to %d of A-Z, 0-9, '.', '-', starting with a letter or digit",
					 vis(w[1]), SMC_MAX_EID_LEN);
			af->has_ueid = true;
		} else if (!strcmp(w[0], "pnet")) {
			e->pnet = true;
			parse_pnet(af, e, w, nw);
			af->has_pnet = true;
		} else {
			bad_line(af, line, "unknown entry '%s' (ueid or pnet)",
				 vis(w[0]));
		}
		af->n++;
	}
	if (ferror(f))
		die(EXIT_ERR, "%s: read error", af->name);
	free(buf);
	fclose(f);
}

/*
 * One request to the kernel, to SMC_GEN_NETLINK (@ueid) or SMC_PNETID:
 * 0 or its errno (EEXIST counts as done: a line given twice).
 */
static int apply_request(int family, bool ueid, uint8_t cmd,
			 const struct apply_entry *e)
{
	struct pnet_req r;
	int fd, err, on = 1;
	uint8_t port;

	fd = nl_open(NETLINK_GENERIC);
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &on, sizeof(on));
	pnet_init(&r, family, cmd, NLM_F_ACK);
	if (ueid)
		r.genl.version = SMC_GENL_FAMILY_VERSION;
	if (e && !e->pnet) {
		pnet_put_str(&r, SMC_NLA_EID_TABLE_ENTRY, e->id);
	} else if (e) {
		pnet_put_str(&r, SMC_PNETID_NAME, e->id);
		if (e->eth[0])
			pnet_put_str(&r, SMC_PNETID_ETHNAME, e->eth);
		if (e->ib[0]) {
			port = e->port ? (uint8_t)e->port : 1;
			pnet_put_str(&r, SMC_PNETID_IBNAME, e->ib);
			pnet_put(&r, SMC_PNETID_IBPORT, &port, sizeof(port));
		}
	}
	nl_send(fd, &r.nlh);
	err = nl_recv(fd, r.nlh.nlmsg_seq, false, NULL, NULL);
	close(fd);
	return err == EEXIST ? 0 : err;
}

static void apply_report(const struct apply_file *af,
			 const struct apply_entry *e, const char *what, int err)
{
	if (e)
		fprintf(stderr, "%s: %s:%u: ", prog, af->name, e->line);
	else
		fprintf(stderr, "%s: %s: ", prog, af->name);
	fprintf(stderr, "%s: %s (errno %d)%s%s\n", what, strerror(err), err,
		nl_errmsg[0] ? ": " : "", vis(nl_errmsg));
}

int cmd_apply(int argc, char **argv)
{
	static struct apply_file af;
	int smc_fam = -1, pnet_fam = -1, fd, err, failed = 0;
	bool check_only = false;
	unsigned int i;
	int a = 0;

	if (a < argc && !strcmp(argv[a], "-n")) {
		check_only = true;
		a++;
	}
	if (argc - a > 1)
		apply_usage(stderr, EXIT_USAGE);
	af.name = a < argc ? argv[a] : APPLY_DEFAULT_FILE;
	apply_read(&af);
	if (check_only) {
		printf("%s: %u entries, fine\n", af.name, af.n);
		return 0;
	}

	/* both families first: a missing module changes nothing */
	fd = nl_open(NETLINK_GENERIC);
	if (af.has_ueid)
		smc_fam = smc_family(fd);
	if (af.has_pnet)
		pnet_fam = pnet_family(fd);
	close(fd);

	if (af.has_ueid) {
		err = apply_request(smc_fam, true, SMC_NETLINK_FLUSH_UEID, NULL);
		if (err) {
			apply_report(&af, NULL, "ueid flush", err);
			failed = 1;
		}
	}
	if (af.has_pnet) {
		err = apply_request(pnet_fam, false, SMC_PNETID_FLUSH, NULL);
		if (err) {
			apply_report(&af, NULL, "pnet flush", err);
			failed = 1;
		}
	}
	for (i = 0; i < af.n; i++) {
		const struct apply_entry *e = &af.e[i];

		err = apply_request(e->pnet ? pnet_fam : smc_fam, !e->pnet,
				    e->pnet ? SMC_PNETID_ADD :
					      SMC_NETLINK_ADD_UEID, e);
		if (err) {
			apply_report(&af, e, e->pnet ? "pnet add" : "ueid add",
				     err);
			failed = 1;
		}
	}
	return failed ? EXIT_ERR : 0;
}
