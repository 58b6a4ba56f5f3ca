// SPDX-License-Identifier: GPL-2.0
/*
 * libsmc-preload.so: run an unmodified TCP program over AF_SMC.
 *
 * Interposes socket(), connect() and listen().  A TCP socket request
 * (family AF_INET or AF_INET6, type SOCK_STREAM optionally OR'ed with
 * SOCK_NONBLOCK / SOCK_CLOEXEC, protocol 0 or IPPROTO_TCP) becomes
 * socket(AF_SMC, type, SMCPROTO_SMC) for AF_INET or socket(AF_SMC, type,
 * SMCPROTO_SMC6) for AF_INET6.  AF_SMC sockets take the same sockaddr_in /
 * sockaddr_in6 addresses, so the program does not notice.  Every other
 * socket() call is passed through untouched.
 *
 * With rules (SMC_PORTS, SMC_ADDRS) a TCP socket stays TCP at socket() and
 * is remembered as a candidate.  At connect() the destination, at listen()
 * the bound local address decides: when it matches, a new AF_SMC socket
 * gets the settings the program gave the TCP socket (file flags, socket
 * options that differ from a fresh TCP socket's, the bound address) and
 * dup3() puts it on the program's fd number before the real call runs.
 * Whatever goes wrong on the way leaves the TCP socket in place.
 *
 * When the AF_SMC socket cannot be created because the kernel has no
 * AF_SMC (EAFNOSUPPORT: smc module not loaded), no SMC6 protocol
 * (EPROTONOSUPPORT) or a security policy forbids it (EACCES, EPERM), the
 * original TCP socket is used instead and one warning per process goes
 * to stderr.  Other errors of socket() (EMFILE, ENOMEM, ...) are returned
 * as they are: TCP would fail the same way.
 *
 * Environment (read once, when the library is loaded):
 *   SMC_DEBUG=1        one line on stderr per converted socket, per rule
 *                      decision and per fallback to TCP
 *   SMC_SNDBUF=SIZE    setsockopt(SO_SNDBUF) on every converted socket
 *   SMC_RCVBUF=SIZE    setsockopt(SO_RCVBUF) on every converted socket
 *                      (SIZE in bytes, suffix k/K or m/M allowed)
 *   SMC_PORTS=LIST     rule: ports and ranges, "6379,8000-8100"
 *   SMC_ADDRS=LIST     rule: addresses and prefixes, "10.1.0.0/16,fd00::/8"
 *   SMC_NO_INHERIT=1   take the library out of LD_PRELOAD, so that programs
 *                      this one exec()s run without it
 *
 * Thread safety: the settings are written once by the constructor before
 * the program's main() runs and only read afterwards; the pointers to the
 * next functions, the "warned" flag and the candidate bitmap are atomics.
 * Diagnostics are formatted on the stack and written with one write(2).
 * Without SMC_DEBUG, connect() and listen() only make system calls, so
 * they stay async-signal-safe; the debug lines use snprintf().
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef AF_SMC
#define AF_SMC 43
#endif
#define SMCPROTO_SMC	0	/* SMC over IPv4 addresses */
#define SMCPROTO_SMC6	1	/* SMC over IPv6 addresses */

/* fds at or above this are never candidates: they stay TCP */
#define CAND_FDS	65536
#define LONG_BITS	(8 * (int)sizeof(unsigned long))
#define MAX_ADDR_RULES	32

typedef int (*socket_fn)(int, int, int);
typedef int (*connect_fn)(int, const struct sockaddr *, socklen_t);
typedef int (*listen_fn)(int, int);

static socket_fn next_socket;	/* atomic: socket() of the next object */
static connect_fn next_connect;	/* atomic: connect() likewise */
static listen_fn next_listen;	/* atomic: listen() likewise */
static int warned;		/* atomic: fallback warning printed */
static int debug;		/* constant after the constructor */
static int sndbuf, rcvbuf;	/* constant after the constructor, 0 = unset */

/* The rules, constant after the constructor. */
static bool rules;		/* SMC_PORTS or SMC_ADDRS given */
static bool rules_bad;		/* one of them unreadable: nothing matches */
static bool port_rule, addr_rule;
static unsigned char port_map[65536 / 8];

struct addr_match {
	int family;		/* AF_INET or AF_INET6 */
	int bits;		/* prefix length */
	unsigned char addr[16];	/* masked to the prefix */
};

static struct addr_match addr_rules[MAX_ADDR_RULES];
static int n_addr_rules;

/* TCP sockets left as TCP because of the rules; atomic bit operations */
static unsigned long cand[CAND_FDS / LONG_BITS];

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	char buf[320];
	va_list ap;
	int n, m;

	n = snprintf(buf, sizeof(buf), "smc_run[%ld]: ", (long)getpid());
	va_start(ap, fmt);
	m = vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	n += m;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	/* one write, so lines of several threads do not mix */
	if (write(STDERR_FILENO, buf, n) < 0)
		return;
}

/* SIZE[k|K|m|M] -> bytes; 0 for unset or invalid. */
static int parse_size(const char *name)
{
	const char *s = getenv(name);
	unsigned long long v;
	char *end;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end == 'k' || *end == 'K') {
		v *= 1024;
		end++;
	} else if (*end == 'm' || *end == 'M') {
		v *= 1024 * 1024;
		end++;
	}
	if (errno || *end || v == 0 || v > 0x7fffffff) {
		say("ignoring %s=%s: not a size (bytes, k or m suffix)", name, s);
		return 0;
	}
	return (int)v;
}

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* "6379, 8000-8100" into port_map; -1 when malformed. */
static int parse_ports(const char *s)
{
	unsigned long lo, hi, p;
	char *end;

	for (;;) {
		s = skip_blanks(s);
		if (*s < '0' || *s > '9')
			return -1;
		lo = strtoul(s, &end, 10);
		hi = lo;
		s = skip_blanks(end);
		if (*s == '-') {
			s = skip_blanks(s + 1);
			if (*s < '0' || *s > '9')
				return -1;
			hi = strtoul(s, &end, 10);
			s = skip_blanks(end);
		}
		if (lo < 1 || hi > 65535 || lo > hi)
			return -1;
		for (p = lo; p <= hi; p++)
			port_map[p / 8] |= 1 << (p % 8);
		if (!*s)
			return 0;
		if (*s++ != ',')
			return -1;
	}
}

static void mask_prefix(unsigned char *a, int len, int bits)
{
	int i;

	for (i = 0; i < len; i++) {
		if (bits >= 8)
			bits -= 8;
		else {
			a[i] &= (unsigned char)(0xff00 >> bits);
			bits = 0;
		}
	}
}

/* One "ADDR" or "ADDR/BITS" of length n into addr_rules; -1 if malformed. */
static int parse_addr(const char *s, size_t n)
{
	struct addr_match *r = &addr_rules[n_addr_rules];
	char buf[64], *slash, *end;
	unsigned long bits;
	int max;

	if (n_addr_rules == MAX_ADDR_RULES || n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	if (inet_pton(AF_INET, buf, r->addr) == 1) {
		r->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, r->addr) == 1) {
		r->family = AF_INET6;
		max = 128;
	} else {
		return -1;
	}
	bits = max;
	if (slash) {
		if (*slash < '0' || *slash > '9')
			return -1;
		bits = strtoul(slash, &end, 10);
		if (*end || bits > (unsigned long)max)
			return -1;
	}
	r->bits = (int)bits;
	mask_prefix(r->addr, max / 8, r->bits);
	n_addr_rules++;
	return 0;
}

/* "10.0.0.0/8, fd00::1" into addr_rules; -1 when malformed. */
static int parse_addrs(const char *s)
{
	size_t n;

	for (;;) {
		s = skip_blanks(s);
		n = strcspn(s, ", \t");
		if (parse_addr(s, n))
			return -1;
		s = skip_blanks(s + n);
		if (!*s)
			return 0;
		if (*s++ != ',')
			return -1;
	}
}

static void read_rules(void)
{
	const char *ports = getenv("SMC_PORTS");
	const char *addrs = getenv("SMC_ADDRS");

	if (ports && *ports) {
		rules = port_rule = true;
		if (parse_ports(ports)) {
			say("SMC_PORTS=%s: not a list of ports and ranges (like 6379,8000-8100): no socket becomes AF_SMC",
			    ports);
			rules_bad = true;
		}
	}
	if (addrs && *addrs) {
		rules = addr_rule = true;
		if (parse_addrs(addrs)) {
			say("SMC_ADDRS=%s: not a list of at most %d addresses or prefixes (like 10.1.0.0/16,fd00::1): no socket becomes AF_SMC",
			    addrs, MAX_ADDR_RULES);
			rules_bad = true;
		}
	}
}

/* Is LD_PRELOAD entry e (length n) this library, found as self? */
static bool is_self(const char *e, size_t n, const char *self)
{
	const char *base = strrchr(self, '/');
	size_t i;

	base = base ? base + 1 : self;
	if (strlen(self) == n && !memcmp(e, self, n))
		return true;
	/* compare the file names: the entry may be a relative or bare name */
	for (i = n; i > 0 && e[i - 1] != '/'; i--)
		;
	return strlen(base) == n - i && !memcmp(e + i, base, n - i);
}

/*
 * SMC_NO_INHERIT: take this library out of LD_PRELOAD, so that whatever
 * the program exec()s runs unconverted.  LD_PRELOAD entries are separated
 * by colons or blanks; the others are kept, joined by colons.
 */
static void drop_from_ld_preload(void)
{
	const char *pl = getenv("LD_PRELOAD"), *s;
	char *out, *o;
	Dl_info info;
	size_t n;

	if (!pl || !dladdr((void *)drop_from_ld_preload, &info) ||
	    !info.dli_fname)
		return;
	out = malloc(strlen(pl) + 1);
	if (!out)
		return;
	o = out;
	for (s = pl; *s; s += n) {
		s += strspn(s, ": \t");
		n = strcspn(s, ": \t");
		if (!n || is_self(s, n, info.dli_fname))
			continue;
		if (o != out)
			*o++ = ':';
		memcpy(o, s, n);
		o += n;
	}
	*o = '\0';
	if (*out)
		setenv("LD_PRELOAD", out, 1);
	else
		unsetenv("LD_PRELOAD");
	if (debug)
		say("SMC_NO_INHERIT: %s%s for the programs this one runs",
		    *out ? "LD_PRELOAD=" : "no LD_PRELOAD", out);
	free(out);
}

static int raw_socket(int domain, int type, int protocol)
{
	return (int)syscall(SYS_socket, domain, type, protocol);
}

static int raw_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	return (int)syscall(SYS_connect, fd, sa, len);
}

static int raw_listen(int fd, int backlog)
{
	return (int)syscall(SYS_listen, fd, backlog);
}

/* The next object's symbol, else fallback; racing callers agree. */
static void *next_fn(void **slot, const char *name, void *fallback)
{
	void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (!fn) {
		fn = dlsym(RTLD_NEXT, name);
		if (!fn)
			fn = fallback;
		__atomic_store_n(slot, fn, __ATOMIC_RELEASE);
	}
	return fn;
}

static socket_fn get_next_socket(void)
{
	return (socket_fn)next_fn((void **)&next_socket, "socket",
				  (void *)raw_socket);
}

static connect_fn get_next_connect(void)
{
	return (connect_fn)next_fn((void **)&next_connect, "connect",
				   (void *)raw_connect);
}

static listen_fn get_next_listen(void)
{
	return (listen_fn)next_fn((void **)&next_listen, "listen",
				  (void *)raw_listen);
}

static void __attribute__((constructor)) smc_preload_init(void)
{
	const char *s = getenv("SMC_DEBUG");

	debug = s && *s && strcmp(s, "0") != 0;
	sndbuf = parse_size("SMC_SNDBUF");
	rcvbuf = parse_size("SMC_RCVBUF");
	read_rules();
	s = getenv("SMC_NO_INHERIT");
	if (s && *s && strcmp(s, "0") != 0)
		drop_from_ld_preload();
	/* dlsym() is no function for signal handlers: resolve now */
	get_next_socket();
	get_next_connect();
	get_next_listen();
}

static void cand_mark(int fd, bool on)
{
	unsigned long bit;

	if (fd < 0 || fd >= CAND_FDS)
		return;
	bit = 1UL << (fd % LONG_BITS);
	if (on)
		__atomic_fetch_or(&cand[fd / LONG_BITS], bit, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&cand[fd / LONG_BITS], ~bit, __ATOMIC_RELAXED);
}

/* Clear fd's mark; true if it was set (only one caller gets true). */
static bool cand_take(int fd)
{
	unsigned long bit;

	if (fd < 0 || fd >= CAND_FDS)
		return false;
	bit = 1UL << (fd % LONG_BITS);
	return __atomic_fetch_and(&cand[fd / LONG_BITS], ~bit,
				  __ATOMIC_RELAXED) & bit;
}

static const char *family_name(int domain)
{
	return domain == AF_INET ? "AF_INET" : "AF_INET6";
}

static void set_buf(int fd, int opt, const char *name, int size)
{
	int saved = errno;

	if (size && setsockopt(fd, SOL_SOCKET, opt, &size, sizeof(size)) && debug)
		say("fd %d: setsockopt(%s, %d): %s", fd, name, size, strerror(errno));
	errno = saved;
}

/*
 * Whether err of socket(AF_SMC) means "no SMC here", so that TCP is used.
 * The first time in a process says so, always; *quiet tells the caller
 * whether its own debug line is still due.
 */
static bool smc_unavailable(int err, bool *quiet)
{
	if (err != EAFNOSUPPORT && err != EPROTONOSUPPORT &&
	    err != EACCES && err != EPERM)
		return false;
	*quiet = !debug;
	if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED)) {
		say("cannot create AF_SMC sockets (%s%s): using TCP", strerror(err),
		    err == EAFNOSUPPORT ? ", is the smc module loaded?" : "");
		*quiet = true;
	}
	return true;
}

/* An inet address taken apart: family, 4 or 16 bytes, port. */
struct endpoint {
	int family;
	unsigned char addr[16];
	unsigned int port;
};

static bool get_endpoint(const struct sockaddr *sa, socklen_t len,
			 struct endpoint *ep)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;

	if (!sa || len < sizeof(sa_family_t))
		return false;
	if (sa->sa_family == AF_INET && len >= sizeof(*sin)) {
		ep->family = AF_INET;
		memcpy(ep->addr, &sin->sin_addr, 4);
		ep->port = ntohs(sin->sin_port);
		return true;
	}
	if (sa->sa_family == AF_INET6 && len >= sizeof(*sin6)) {
		ep->family = AF_INET6;
		memcpy(ep->addr, &sin6->sin6_addr, 16);
		ep->port = ntohs(sin6->sin6_port);
		return true;
	}
	return false;
}

static bool prefix_match(const unsigned char *a, const struct addr_match *r)
{
	int full = r->bits / 8, rest = r->bits % 8;
	unsigned char mask = (unsigned char)(0xff00 >> rest);

	if (memcmp(a, r->addr, full))
		return false;
	return !rest || (a[full] & mask) == r->addr[full];
}

static bool addr_matches(const struct endpoint *ep)
{
	static const unsigned char mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};
	const unsigned char *v4 = NULL;
	int i;

	if (ep->family == AF_INET)
		v4 = ep->addr;
	else if (!memcmp(ep->addr, mapped, sizeof(mapped)))
		v4 = ep->addr + 12;	/* ::ffff:a.b.c.d meets IPv4 rules */
	for (i = 0; i < n_addr_rules; i++) {
		const struct addr_match *r = &addr_rules[i];

		if (r->family == AF_INET ? v4 && prefix_match(v4, r) :
		    ep->family == AF_INET6 && prefix_match(ep->addr, r))
			return true;
	}
	return false;
}

static bool rules_match(const struct endpoint *ep)
{
	if (rules_bad)
		return false;
	if (port_rule && !(port_map[ep->port / 8] & (1 << (ep->port % 8))))
		return false;
	return !addr_rule || addr_matches(ep);
}

static const char *endpoint_str(const struct endpoint *ep, char *buf,
				size_t size)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(ep->family, ep->addr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	snprintf(buf, size, ep->family == AF_INET6 ? "[%s]:%u" : "%s:%u",
		 a, ep->port);
	return buf;
}

/*
 * What the program may have set on its TCP socket and is copied to the
 * AF_SMC socket when its value differs from a fresh TCP socket's.  Those
 * that matter to bind() come first.
 */
#define OPT_BUF		1	/* the kernel doubles what is set */
#define OPT_V6		2	/* AF_INET6 sockets only */

static const struct copied_opt {
	int level, name, flags;
	const char *label;
} copied_opts[] = {
	{ SOL_SOCKET, SO_BINDTODEVICE, 0, "SO_BINDTODEVICE" },
	{ IPPROTO_IPV6, IPV6_V6ONLY, OPT_V6, "IPV6_V6ONLY" },
	{ SOL_SOCKET, SO_REUSEADDR, 0, "SO_REUSEADDR" },
	{ SOL_SOCKET, SO_REUSEPORT, 0, "SO_REUSEPORT" },
	{ SOL_SOCKET, SO_KEEPALIVE, 0, "SO_KEEPALIVE" },
	{ SOL_SOCKET, SO_SNDBUF, OPT_BUF, "SO_SNDBUF" },
	{ SOL_SOCKET, SO_RCVBUF, OPT_BUF, "SO_RCVBUF" },
	{ SOL_SOCKET, SO_LINGER, 0, "SO_LINGER" },
	{ SOL_SOCKET, SO_RCVTIMEO, 0, "SO_RCVTIMEO" },
	{ SOL_SOCKET, SO_SNDTIMEO, 0, "SO_SNDTIMEO" },
	{ SOL_SOCKET, SO_OOBINLINE, 0, "SO_OOBINLINE" },
	{ SOL_SOCKET, SO_PRIORITY, 0, "SO_PRIORITY" },
	{ IPPROTO_TCP, TCP_NODELAY, 0, "TCP_NODELAY" },
	{ IPPROTO_TCP, TCP_CORK, 0, "TCP_CORK" },
	{ IPPROTO_TCP, TCP_KEEPIDLE, 0, "TCP_KEEPIDLE" },
	{ IPPROTO_TCP, TCP_KEEPINTVL, 0, "TCP_KEEPINTVL" },
	{ IPPROTO_TCP, TCP_KEEPCNT, 0, "TCP_KEEPCNT" },
	{ IPPROTO_TCP, TCP_USER_TIMEOUT, 0, "TCP_USER_TIMEOUT" },
};

union optval {
	int i;
	unsigned char b[64];
};

/* Why a swap failed: the step and its errno, for the debug line. */
struct swap_err {
	const char *step;
	int err;
};

static int swap_fail(struct swap_err *e, const char *step)
{
	e->step = step;
	e->err = errno;
	return -1;
}

/* Copy the options of tcp that differ from ref's to smc. */
static int copy_opts(int tcp, int ref, int smc, int family,
		     struct swap_err *e)
{
	union optval v, d;
	socklen_t vl, dl;
	size_t i;

	for (i = 0; i < sizeof(copied_opts) / sizeof(copied_opts[0]); i++) {
		const struct copied_opt *o = &copied_opts[i];

		if ((o->flags & OPT_V6) && family != AF_INET6)
			continue;
		vl = sizeof(v);
		dl = sizeof(d);
		memset(&v, 0, sizeof(v));
		memset(&d, 0, sizeof(d));
		if (getsockopt(tcp, o->level, o->name, &v, &vl) ||
		    getsockopt(ref, o->level, o->name, &d, &dl))
			return swap_fail(e, o->label);
		if (vl == dl && !memcmp(&v, &d, vl))
			continue;
		if (o->flags & OPT_BUF)
			v.i /= 2;
		if (setsockopt(smc, o->level, o->name, &v, vl))
			return swap_fail(e, o->label);
	}
	return 0;
}

/* Was tcp bound by the program?  Then *ss holds where. */
static bool is_bound(int tcp, struct sockaddr_storage *ss, socklen_t *len)
{
	struct endpoint ep;
	int i;

	*len = sizeof(*ss);
	if (getsockname(tcp, (struct sockaddr *)ss, len) ||
	    !get_endpoint((struct sockaddr *)ss, *len, &ep))
		return false;
	if (ep.port)
		return true;
	for (i = 0; i < (ep.family == AF_INET ? 4 : 16); i++)
		if (ep.addr[i])
			return true;
	return false;
}

/*
 * Bind smc where tcp is bound.  tcp still holds the address, so both get
 * SO_REUSEADDR for the bind (neither listens, so Linux lets them share
 * it) and their own value back afterwards.
 */
static int copy_bind(int tcp, int smc, struct swap_err *e)
{
	static const int one = 1, zero;
	struct sockaddr_storage ss;
	socklen_t len, rl = sizeof(int);
	int reuse = 0, rc;

	if (!is_bound(tcp, &ss, &len))
		return 0;
	if (getsockopt(tcp, SOL_SOCKET, SO_REUSEADDR, &reuse, &rl))
		return swap_fail(e, "SO_REUSEADDR");
	if (!reuse &&
	    (setsockopt(tcp, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	     setsockopt(smc, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one))))
		rc = swap_fail(e, "SO_REUSEADDR");
	else if (bind(smc, (struct sockaddr *)&ss, len))
		rc = swap_fail(e, "bind");
	else
		rc = 0;
	if (!reuse) {
		setsockopt(tcp, SOL_SOCKET, SO_REUSEADDR, &zero, sizeof(zero));
		if (!rc && setsockopt(smc, SOL_SOCKET, SO_REUSEADDR, &zero,
				      sizeof(zero)))
			rc = swap_fail(e, "SO_REUSEADDR");
	}
	return rc;
}

/*
 * The family of fd if it still is a TCP socket in state CLOSE: neither
 * connected nor connecting nor listening.  The fd number may have been
 * closed and reused since socket() marked it.
 */
static int fresh_tcp_family(int fd)
{
	socklen_t l1 = sizeof(int), l2 = sizeof(int), l3 = sizeof(int), l4;
	int domain, type, proto;
	struct tcp_info ti;

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &l1) ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l2) ||
	    getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &l3))
		return -1;
	if ((domain != AF_INET && domain != AF_INET6) || type != SOCK_STREAM ||
	    proto != IPPROTO_TCP)
		return -1;
	l4 = sizeof(ti);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l4) ||
	    l4 < sizeof(ti.tcpi_state) || ti.tcpi_state != TCP_CLOSE)
		return -1;
	return domain;
}

/*
 * Put an AF_SMC socket with tcp's settings on fd number tcp.  0 when done;
 * -1 with *e set when tcp is left as it was (e->step NULL: nothing more
 * to report).
 */
static int swap_in_smc(int tcp, int family, struct swap_err *e)
{
	socket_fn real = get_next_socket();
	int fl, fdfl, ref, smc = -1, rc = -1;
	bool quiet;

	fl = fcntl(tcp, F_GETFL);
	fdfl = fcntl(tcp, F_GETFD);
	if (fl < 0 || fdfl < 0)
		return swap_fail(e, "fcntl");
	smc = real(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC,
		   family == AF_INET6 ? SMCPROTO_SMC6 : SMCPROTO_SMC);
	if (smc < 0) {
		swap_fail(e, "socket(AF_SMC)");
		if (smc_unavailable(e->err, &quiet) && quiet)
			e->step = NULL;
		return -1;
	}
	ref = real(family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	if (ref < 0) {
		swap_fail(e, "socket(TCP)");
		goto out;
	}
	set_buf(smc, SO_SNDBUF, "SO_SNDBUF", sndbuf);
	set_buf(smc, SO_RCVBUF, "SO_RCVBUF", rcvbuf);
	if (copy_opts(tcp, ref, smc, family, e) || copy_bind(tcp, smc, e))
		goto out;
	if ((fl & O_NONBLOCK) && fcntl(smc, F_SETFL, O_NONBLOCK)) {
		swap_fail(e, "fcntl(O_NONBLOCK)");
		goto out;
	}
	if (dup3(smc, tcp, (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0) {
		swap_fail(e, "dup3");
		goto out;
	}
	rc = 0;
out:
	if (ref >= 0)
		close(ref);
	close(smc);
	return rc;
}

/*
 * A candidate reached connect() (to ep) or listen() (bound to ep): swap
 * in AF_SMC when the rules say so.  Leaves errno as it found it.
 */
static void decide(int fd, const struct endpoint *ep, const char *call)
{
	struct swap_err e = { NULL, 0 };
	int saved = errno, family;
	char where[80];

	if (!rules_match(ep)) {
		if (debug)
			say("fd %d: %s %s does not match the rules: stays TCP",
			    fd, call, endpoint_str(ep, where, sizeof(where)));
		goto out;
	}
	family = fresh_tcp_family(fd);
	if (family < 0) {
		if (debug)
			say("fd %d: %s: no longer a new TCP socket, left alone",
			    fd, call);
		goto out;
	}
	if (swap_in_smc(fd, family, &e)) {
		if (debug && e.step)
			say("fd %d: %s %s: AF_SMC swap failed at %s (%s): stays TCP",
			    fd, call, endpoint_str(ep, where, sizeof(where)),
			    e.step, strerror(e.err));
		goto out;
	}
	if (debug)
		say("fd %d: %s %s matches the rules: %s -> AF_SMC fd %d", fd,
		    call, endpoint_str(ep, where, sizeof(where)),
		    family_name(family), fd);
out:
	errno = saved;
}

int socket(int domain, int type, int protocol)
{
	socket_fn real = get_next_socket();
	int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	bool quiet;
	int fd, err;

	if ((domain != AF_INET && domain != AF_INET6) || base != SOCK_STREAM ||
	    (protocol != 0 && protocol != IPPROTO_TCP)) {
		fd = real(domain, type, protocol);
		if (rules)
			cand_mark(fd, false);	/* a stale mark goes */
		return fd;
	}

	if (rules) {
		fd = real(domain, type, protocol);
		cand_mark(fd, true);
		if (debug && fd >= 0)
			say("socket(%s, SOCK_STREAM, %d) -> TCP fd %d%s",
			    family_name(domain), protocol, fd,
			    fd < CAND_FDS ? ", rules decide at connect/listen" :
			    ", too high a number for the rules: stays TCP");
		return fd;
	}

	fd = real(AF_SMC, type, domain == AF_INET6 ? SMCPROTO_SMC6 : SMCPROTO_SMC);
	if (fd >= 0) {
		if (debug)
			say("socket(%s, SOCK_STREAM%s%s, %d) -> AF_SMC fd %d",
			    family_name(domain),
			    type & SOCK_NONBLOCK ? "|SOCK_NONBLOCK" : "",
			    type & SOCK_CLOEXEC ? "|SOCK_CLOEXEC" : "",
			    protocol, fd);
		set_buf(fd, SO_SNDBUF, "SO_SNDBUF", sndbuf);
		set_buf(fd, SO_RCVBUF, "SO_RCVBUF", rcvbuf);
		return fd;
	}
	/* EMFILE, ENOMEM, ...: TCP would fail too */
	err = errno;
	if (!smc_unavailable(err, &quiet))
		return fd;
	if (!quiet)
		say("socket(%s, SOCK_STREAM, %d): AF_SMC failed (%s), using TCP",
		    family_name(domain), protocol, strerror(err));
	return real(domain, type, protocol);
}

int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	connect_fn real = get_next_connect();
	struct endpoint ep;

	if (rules && cand_take(fd)) {
		if (get_endpoint(addr, len, &ep))
			decide(fd, &ep, "connect to");
		else
			cand_mark(fd, true);	/* AF_UNSPEC, ...: not yet */
	}
	return real(fd, addr, len);
}

int listen(int fd, int backlog)
{
	listen_fn real = get_next_listen();
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct endpoint ep;
	int saved = errno;

	if (rules && cand_take(fd)) {
		if (!getsockname(fd, (struct sockaddr *)&ss, &sl) &&
		    get_endpoint((struct sockaddr *)&ss, sl, &ep))
			decide(fd, &ep, "listen on");
		errno = saved;
	}
	return real(fd, backlog);
}
