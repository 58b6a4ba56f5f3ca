// SPDX-License-Identifier: GPL-2.0
/*
 * smc_bpf: the rules' syntax, unit names and drop-ins (see rules.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "rules.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* the entry at @s up to a comma, blanks trimmed, into @buf */
static const char *next_entry(const char *s, char *buf, size_t len,
			      bool *toolong)
{
	size_t n = strcspn(s, ",");
	const char *end = s + n;

	s = skip_blanks(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*toolong = (size_t)(end - s) >= len;
	if (*toolong)
		n = len - 1;
	else
		n = end - s;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return s + strcspn(s, ",");
}

/* a port number: decimal digits only, 1..65535 */
static int parse_port(const char *s, unsigned int *port, char *err,
		      size_t errlen)
{
	unsigned long v;
	const char *p;

	if (!*s)
		return fail(err, errlen, "a range lacks a port");
	for (p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return fail(err, errlen, "'%s' is not a port number", s);
	errno = 0;
	v = strtoul(s, NULL, 10);
	if (errno || v < 1 || v > 65535)
		return fail(err, errlen, "port %s is out of 1..65535", s);
	*port = v;
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct smc_bpf_range *x = a, *y = b;

	return (int)x->lo - (int)y->lo;
}

int parse_ports(const char *arg, struct rules *r, char *err, size_t errlen)
{
	/* up to 64 entries before merging, at most 16 after */
	struct smc_bpf_range tmp[64];
	unsigned int lo, hi, n = 0, i, m;
	const char *s = arg;
	char buf[32], *dash;
	bool toolong;

	if (!strcmp(skip_blanks(arg), "all")) {
		r->ports_given = true;
		r->nports = 0;
		return 0;
	}
	for (;;) {
		s = next_entry(s, buf, sizeof(buf), &toolong);
		if (toolong)
			return fail(err, errlen, "'%s...' is not a port or range", buf);
		if (!buf[0])
			return fail(err, errlen, "an empty entry (want ports and ranges like 80,443,8000-8099)");
		dash = strchr(buf, '-');
		if (dash) {
			*dash = '\0';
			/* blanks around the dash, as smc_run allows */
			for (i = strlen(buf); i && (buf[i - 1] == ' ' || buf[i - 1] == '\t'); i--)
				buf[i - 1] = '\0';
			if (parse_port(buf, &lo, err, errlen) ||
			    parse_port(skip_blanks(dash + 1), &hi, err, errlen))
				return -1;
			if (lo > hi)
				return fail(err, errlen, "range %u-%u runs backwards", lo, hi);
		} else {
			if (parse_port(buf, &lo, err, errlen))
				return -1;
			hi = lo;
		}
		if (n == sizeof(tmp) / sizeof(tmp[0]))
			return fail(err, errlen, "more than %zu entries",
				    sizeof(tmp) / sizeof(tmp[0]));
		tmp[n].lo = lo;
		tmp[n].hi = hi;
		n++;
		if (!*s)
			break;
		s++;		/* the comma */
	}
	qsort(tmp, n, sizeof(tmp[0]), range_cmp);
	for (i = 1, m = 0; i < n; i++) {
		/* overlapping: one range (adjacent ones stay as written) */
		if (tmp[i].lo <= tmp[m].hi) {
			if (tmp[i].hi > tmp[m].hi)
				tmp[m].hi = tmp[i].hi;
		} else {
			tmp[++m] = tmp[i];
		}
	}
	m++;
	if (m > SMC_BPF_PORTS)
		return fail(err, errlen, "%u separate ports and ranges, at most %d",
			    m, SMC_BPF_PORTS);
	memset(r->ports, 0, sizeof(r->ports));
	memcpy(r->ports, tmp, m * sizeof(tmp[0]));
	r->nports = m;
	r->ports_given = true;
	return 0;
}

/* clear the host bits of @a (@words words of network order) past @bits */
static void make_mask(__u32 *mask, int words, unsigned int bits)
{
	int i;

	for (i = 0; i < 4; i++) {
		if (i >= words || !bits)
			mask[i] = 0;
		else if (bits >= 32)
			mask[i] = 0xffffffff;
		else
			mask[i] = htonl(~(0xffffffffu >> bits));
		bits = bits >= 32 ? bits - 32 : 0;
	}
}

static int parse_prefix(const char *s, struct smc_bpf_prefix *p, char *err,
			size_t errlen)
{
	char buf[64], *slash;
	unsigned long bits;
	unsigned int max, i;
	const char *q;

	if (strlen(s) >= sizeof(buf))
		return fail(err, errlen, "'%s' is not an address", s);
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	memset(p, 0, sizeof(*p));
	if (inet_pton(AF_INET, buf, p->net) == 1) {
		p->family = SMC_BPF_V4;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, p->net) == 1) {
		p->family = SMC_BPF_V6;
		max = 128;
	} else {
		return fail(err, errlen, "'%s' is not an IPv4 or IPv6 address", buf);
	}
	bits = max;
	if (slash) {
		if (!*slash)
			return fail(err, errlen, "'%s': no prefix length after '/'", s);
		for (q = slash; *q; q++)
			if (*q < '0' || *q > '9')
				return fail(err, errlen, "'%s': '%s' is not a prefix length",
					    s, slash);
		errno = 0;
		bits = strtoul(slash, NULL, 10);
		if (errno || bits > max)
			return fail(err, errlen, "'%s': prefix length %s is above %u",
				    s, slash, max);
	}
	p->bits = bits;
	make_mask(p->mask, max / 32, bits);
	for (i = 0; i < 4; i++)
		p->net[i] &= p->mask[i];
	return 0;
}

int parse_addrs(const char *arg, struct rules *r, char *err, size_t errlen)
{
	struct smc_bpf_prefix p, tmp[SMC_BPF_ADDRS];
	const char *s = arg;
	unsigned int n = 0, i;
	bool toolong;
	char buf[64];

	if (!strcmp(skip_blanks(arg), "all")) {
		r->addrs_given = true;
		r->naddrs = 0;
		return 0;
	}
	for (;;) {
		s = next_entry(s, buf, sizeof(buf), &toolong);
		if (toolong)
			return fail(err, errlen, "'%s...' is not an address", buf);
		if (!buf[0])
			return fail(err, errlen, "an empty entry (want addresses and prefixes like 10.0.0.0/8,fd00::/8)");
		if (parse_prefix(buf, &p, err, errlen))
			return -1;
		for (i = 0; i < n && memcmp(&tmp[i], &p, sizeof(p)); i++)
			;
		if (i == n) {
			if (n == SMC_BPF_ADDRS)
				return fail(err, errlen, "more than %d addresses and prefixes",
					    SMC_BPF_ADDRS);
			tmp[n++] = p;
		}
		if (!*s)
			break;
		s++;
	}
	memset(r->addrs, 0, sizeof(r->addrs));
	memcpy(r->addrs, tmp, n * sizeof(tmp[0]));
	r->naddrs = n;
	r->addrs_given = true;
	return 0;
}

const char *ports_str(const struct smc_bpf_range *p, __u32 n, char *buf,
		      size_t len)
{
	size_t off = 0;
	__u32 i;

	if (!n || n > SMC_BPF_PORTS)
		return "all";
	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++) {
		if (p[i].lo == p[i].hi)
			off += snprintf(buf + off, len - off, "%s%u",
					i ? "," : "", p[i].lo);
		else
			off += snprintf(buf + off, len - off, "%s%u-%u",
					i ? "," : "", p[i].lo, p[i].hi);
	}
	return buf;
}

const char *prefix_str(const struct smc_bpf_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(p->family == SMC_BPF_V4 ? AF_INET : AF_INET6, p->net,
		       a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	snprintf(buf, len, "%s/%u", a, p->bits);
	return buf;
}

const char *addrs_str(const struct smc_bpf_prefix *a, __u32 n, char *buf,
		      size_t len)
{
	char one[INET6_ADDRSTRLEN + 8];
	size_t off = 0;
	__u32 i;

	if (!n || n > SMC_BPF_ADDRS)
		return "all";
	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? "," : "",
				prefix_str(&a[i], one, sizeof(one)));
	return buf;
}

/* the unit types that are not services: --unit refuses them */
static const char *const other_types[] = {
	".socket", ".slice", ".scope", ".target", ".mount", ".automount",
	".swap", ".timer", ".path", ".device",
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

int unit_name(const char *arg, char *out, size_t len, char *err,
	      size_t errlen)
{
	const char *p, *at;
	size_t n, i;

	if (!*arg)
		return fail(err, errlen, "an empty unit name");
	for (p = arg; *p; p++) {
		if (!isascii((unsigned char)*p) ||
		    !(isalnum((unsigned char)*p) || strchr(":-_.\\@", *p)))
			return fail(err, errlen,
				    "'%s': a unit name has only letters, digits and :-_.\\@",
				    arg);
	}
	for (i = 0; i < sizeof(other_types) / sizeof(other_types[0]); i++)
		if (ends_with(arg, other_types[i]))
			return fail(err, errlen,
				    "'%s' is not a service (for a slice or scope, give --cgroup)",
				    arg);
	n = strlen(arg);
	if (ends_with(arg, ".service"))
		n -= strlen(".service");
	if (!n || arg[0] == '.' || arg[0] == '@')
		return fail(err, errlen, "'%s': no name before the suffix", arg);
	if (arg[0] == '-')
		return fail(err, errlen, "'%s': a service name does not start with '-'",
			    arg);
	at = memchr(arg, '@', n);
	if (at && memchr(at + 1, '@', n - (at + 1 - arg)))
		return fail(err, errlen, "'%s': more than one '@'", arg);
	if (at && at == arg + n - 1)
		return fail(err, errlen,
			    "'%s' is a template: give an instance (NAME@INSTANCE.service)",
			    arg);
	if (n + strlen(".service") + 1 > len)
		return fail(err, errlen, "'%s': longer than %zu characters", arg,
			    len - 1);
	snprintf(out, len, "%.*s.service", (int)n, arg);
	return 0;
}

/*
 * One argument of an Exec line, quoted: systemd unquotes "..." and
 * undoes C escapes in it, and expands % specifiers and $ variables.
 */
static void exec_quote(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		else if (*s == '%' || *s == '$')
			fputc(*s, f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int dropin_text(FILE *f, const char *exe, const struct smc_bpf_slot *slot,
		char *err, size_t errlen)
{
	char ports[PORTS_STR_LEN], addrs[ADDRS_STR_LEN];
	const char *p;

	/* the executable is the unquoted word after the -+ prefixes */
	if (exe[0] != '/')
		return fail(err, errlen, "%s: not an absolute path", exe);
	for (p = exe; *p; p++)
		if (!isalnum((unsigned char)*p) || !isascii((unsigned char)*p))
			if (!strchr("/._+-@:,", *p))
				return fail(err, errlen,
					    "%s: a path with characters a drop-in cannot name unquoted; install smc_bpf in a plain path",
					    exe);
	fprintf(f, DROPIN_MARK ": written by \"smc_bpf attach --unit\", removed by\n"
		"# \"smc_bpf detach\"; see smc_bpf(8).  Before the service's own processes\n"
		"# start, it points the SMC policy's rule for this unit at the cgroup of\n"
		"# this start (the cgroup, and its id, are new on every start).  \"-\": a\n"
		"# failure does not stop the service (it runs without SMC, and\n"
		"# smc_bpf status says so); \"+\": with full privileges.\n"
		"[Service]\n"
		"ExecStartPre=-+%s refresh", exe);
	if (slot->nports) {
		fputs(" --ports ", f);
		exec_quote(f, ports_str(slot->ports, slot->nports, ports,
					sizeof(ports)));
	}
	if (slot->naddrs) {
		fputs(" --addr ", f);
		exec_quote(f, addrs_str(slot->addrs, slot->naddrs, addrs,
					sizeof(addrs)));
	}
	fputc(' ', f);
	exec_quote(f, slot->unit);
	fputc('\n', f);
	return 0;
}
