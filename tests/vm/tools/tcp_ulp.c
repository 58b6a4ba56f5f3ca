// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_ulp: TCP sockets turned into SMC sockets with
 * setsockopt(fd, SOL_TCP, TCP_ULP, "smc", 4).
 *
 *   tcp_ulp probe
 *	Every case prints "case NAME: ... ok" or "... UNEXPECTED": what the
 *	switch refuses (exact errno) and that a refused socket goes on
 *	working as TCP; what a switched socket says it is (the TCP socket
 *	it stays: SO_DOMAIN AF_INET or AF_INET6, SO_PROTOCOL IPPROTO_TCP,
 *	TCP_ULP "smc"); that epoll and SIGIO set up before the switch still
 *	report the switched socket.  Ends with "probe ok" (exit 0).
 *   tcp_ulp has-ulp
 *	Exit 0 if TCP_ULP "smc" switches a fresh TCP socket, else print the
 *	errno and exit 1 (Debian's 6.12 smc.ko no longer has the ULP).
 *   tcp_ulp server [-6] [-a] [-p PORT] [-n CONNS] [-t SECS]
 *	Plain TCP socket, TCP_ULP "smc" (-a: an AF_SMC socket instead, for
 *	a module without the ULP), bind, listen; accept CONNS
 *	connections and echo each (a process each) until EOF, printing
 *	"conn I: echoed N bytes sum=X" (X: FNV-1a 64 of what came in).
 *   tcp_ulp client ADDR [-6] [-p PORT] [-n CONNS] [-B BYTES] [-W FILE] [-t SECS]
 *	CONNS plain TCP sockets with TCP_ULP "smc", connected; BYTES of
 *	seeded data sent on each and every echoed byte checked; prints
 *	"conn I: sent N bytes sum=X".  With -W, "holding N" and wait for
 *	FILE before closing.  Ends with "conns=N bytes=TOTAL ok".
 *   tcp_ulp stress [-n ROUNDS] [-t SECS]
 *	ROUNDS times: a fresh TCP socket that four threads use at once,
 *	setsockopt(TCP_ULP "smc"), a non-blocking connect() to a local
 *	AF_SMC listener, listen() and poll()/epoll, while the main thread
 *	closes it.  Every call may fail, with an errno from a known list;
 *	every wait is bounded.  Prints the errno counts of each call and
 *	"stress rounds=N ok", or "UNEXPECTED" lines and exit 1.
 *
 * -6: AF_INET6 sockets (ADDR may be IPv4-mapped).  -t bounds every send
 * and receive and, with a margin, the whole run.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef AF_SMC
#define AF_SMC 43
#endif
#ifndef TCP_ULP
#define TCP_ULP 31
#endif
#ifndef IPPROTO_SMC
#define IPPROTO_SMC 256
#endif

#define CHUNK		65536
#define MAX_CONNS	64

static int family = AF_INET;
static int port = 5400;
static int conns = 1;
static long long bytes = 1 << 20;
static int secs = 60;
static const char *hold_file;
static bool af_smc_listener;
static int problems;

static void die(const char *what)
{
	fprintf(stderr, "tcp_ulp: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int sol_int(int fd, int opt)
{
	socklen_t len = sizeof(int);
	int val = -1;

	if (getsockopt(fd, SOL_SOCKET, opt, &val, &len))
		die("getsockopt");
	return val;
}

/* 0 or the errno of setsockopt(TCP_ULP, @name) */
static int set_ulp(int fd, const char *name)
{
	return setsockopt(fd, SOL_TCP, TCP_ULP, name, strlen(name)) ? errno : 0;
}

static void get_ulp(int fd, char *buf, size_t size)
{
	socklen_t len = size - 1;

	memset(buf, 0, size);
	if (getsockopt(fd, SOL_TCP, TCP_ULP, buf, &len))
		snprintf(buf, size, "<%s>", strerror(errno));
}

static const char *err_name(int err)
{
	switch (err) {
	case 0: return "0";
	case ENOTCONN: return "ENOTCONN";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOPROTOOPT: return "ENOPROTOOPT";
	case ENOENT: return "ENOENT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ESOCKTNOSUPPORT: return "ESOCKTNOSUPPORT";
	case EINVAL: return "EINVAL";
	default: return strerror(err);
	}
}

static void report(const char *name, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void report(const char *name, bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("case %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" %s\n", ok ? "ok" : "UNEXPECTED");
	if (!ok)
		problems++;
}

static void expect_err(const char *name, int got, int want)
{
	report(name, got == want, "errno %s (want %s)", err_name(got),
	       err_name(want));
}

static socklen_t make_addr(struct sockaddr_storage *ss, int fam,
			   const char *ip, int p)
{
	memset(ss, 0, sizeof(*ss));
	if (fam == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(p);
		a->sin6_addr = in6addr_any;
		if (ip && inet_pton(AF_INET6, ip, &a->sin6_addr) != 1) {
			fprintf(stderr, "tcp_ulp: bad IPv6 address %s\n", ip);
			exit(2);
		}
		return sizeof(*a);
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;

	a->sin_family = AF_INET;
	a->sin_port = htons(p);
	a->sin_addr.s_addr = htonl(INADDR_ANY);
	if (ip && inet_pton(AF_INET, ip, &a->sin_addr) != 1) {
		fprintf(stderr, "tcp_ulp: bad IPv4 address %s\n", ip);
		exit(2);
	}
	return sizeof(*a);
}

static int tcp_socket(int fam)
{
	int fd = socket(fam, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket");
	return fd;
}

/* A plain TCP listener on 127.0.0.1, any port; its port in *@p. */
static int local_listener(int *p)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = tcp_socket(AF_INET);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 4) ||
	    getsockname(fd, (struct sockaddr *)&a, &len))
		die("local listener");
	*p = ntohs(a.sin_port);
	return fd;
}

static int local_connect(int fd, int p)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons(p);
	return connect(fd, (struct sockaddr *)&a, sizeof(a)) ? errno : 0;
}

/* One byte from @a to @b over an established TCP pair. */
static bool byte_passes(int a, int b)
{
	char c = 'u', d = 0;

	return write(a, &c, 1) == 1 && read(b, &d, 1) == 1 && d == 'u';
}

/*
 * What a switched socket must say it is: the TCP socket it stays, with
 * the ULP "smc" attached.
 */
static void check_switched(const char *name, int fd, int fam)
{
	int dom = sol_int(fd, SO_DOMAIN), proto = sol_int(fd, SO_PROTOCOL);
	char ulp[32];

	get_ulp(fd, ulp, sizeof(ulp));
	report(name, dom == fam && proto == IPPROTO_TCP &&
	       sol_int(fd, SO_TYPE) == SOCK_STREAM && !strcmp(ulp, "smc"),
	       "SO_DOMAIN=%d SO_PROTOCOL=%d TCP_ULP=\"%s\" (want %d %d \"smc\")",
	       dom, proto, ulp, fam, IPPROTO_TCP);
}

static void case_fresh(int fam, const char *name)
{
	int fd = tcp_socket(fam);

	expect_err(name, set_ulp(fd, "smc"), 0);
	check_switched(name, fd, fam);
	close(fd);
}

static void case_twice(void)
{
	int fd = tcp_socket(AF_INET);

	if (set_ulp(fd, "smc"))
		die("first TCP_ULP");
	expect_err("twice", set_ulp(fd, "smc"), EOPNOTSUPP);
	check_switched("twice-still-smc", fd, AF_INET);
	close(fd);
}

/* Refused on a connected socket, which then still carries data. */
static void case_connected(void)
{
	int lfd, p, fd, afd, err;

	lfd = local_listener(&p);
	fd = tcp_socket(AF_INET);
	if (local_connect(fd, p))
		die("connect to the local listener");
	afd = accept(lfd, NULL, NULL);
	if (afd < 0)
		die("accept");
	err = set_ulp(fd, "smc");
	expect_err("connected", err, ENOTCONN);
	report("connected-still-tcp",
	       sol_int(fd, SO_DOMAIN) == AF_INET && byte_passes(fd, afd) &&
	       byte_passes(afd, fd), "SO_DOMAIN=%d, data both ways",
	       sol_int(fd, SO_DOMAIN));
	close(afd);
	close(fd);
	close(lfd);
}

/* Refused on a listener, which then still accepts. */
static void case_listening(void)
{
	int lfd, p, fd, afd;

	lfd = local_listener(&p);
	expect_err("listening", set_ulp(lfd, "smc"), ENOTCONN);
	fd = tcp_socket(AF_INET);
	afd = -1;
	if (!local_connect(fd, p))
		afd = accept(lfd, NULL, NULL);
	report("listening-still-tcp",
	       sol_int(lfd, SO_DOMAIN) == AF_INET && afd >= 0 &&
	       byte_passes(fd, afd), "SO_DOMAIN=%d, accepted %s",
	       sol_int(lfd, SO_DOMAIN), afd >= 0 ? "yes" : "no");
	if (afd >= 0)
		close(afd);
	close(fd);
	close(lfd);
}

static void case_udp(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		die("UDP socket");
	expect_err("udp", set_ulp(fd, "smc"), ENOPROTOOPT);
	close(fd);
}

/* An unknown name is TCP's ENOENT; the socket is then still TCP. */
static void case_unknown(void)
{
	int lfd, p, fd, afd = -1;
	char ulp[32];

	fd = tcp_socket(AF_INET);
	expect_err("unknown-ulp", set_ulp(fd, "nosuchulp"), ENOENT);
	get_ulp(fd, ulp, sizeof(ulp));
	lfd = local_listener(&p);
	if (!local_connect(fd, p))
		afd = accept(lfd, NULL, NULL);
	report("unknown-ulp-still-tcp",
	       sol_int(fd, SO_DOMAIN) == AF_INET && !ulp[0] && afd >= 0 &&
	       byte_passes(fd, afd), "SO_DOMAIN=%d TCP_ULP=\"%s\"",
	       sol_int(fd, SO_DOMAIN), ulp);
	if (afd >= 0)
		close(afd);
	close(fd);
	close(lfd);
}

/* An AF_SMC listener on 127.0.0.1, any port; its port in *@p. */
static int smc_local_listener(int *p)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_SMC, SOCK_STREAM, 0);

	if (fd < 0)
		die("AF_SMC socket");
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 64) ||
	    getsockname(fd, (struct sockaddr *)&a, &len))
		die("AF_SMC local listener");
	*p = ntohs(a.sin_port);
	return fd;
}

/*
 * A socket already in an epoll set is switched, and the epoll set then
 * reports the switched socket's connect and its data (over TCP: loopback
 * has no SMC-R device).
 */
static void case_epoll(void)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLET };
	int ep, fd, lfd, afd, p, n1, n2 = -1, e1 = 0, e2 = 0;
	char c = 'e';

	lfd = smc_local_listener(&p);
	ep = epoll_create1(0);
	fd = tcp_socket(AF_INET);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		die("epoll");
	/* the registration takes the unconnected socket's first report */
	epoll_wait(ep, &ev, 1, 0);
	expect_err("epoll-watched", set_ulp(fd, "smc"), 0);
	check_switched("epoll-watched", fd, AF_INET);
	if (fcntl(fd, F_SETFL, O_NONBLOCK) ||
	    local_connect(fd, p) != EINPROGRESS)
		die("non-blocking connect");
	n1 = epoll_wait(ep, &ev, 1, 5000);
	if (n1 == 1)
		e1 = ev.events;
	afd = accept(lfd, NULL, NULL);
	if (afd >= 0 && write(afd, &c, 1) == 1) {
		n2 = epoll_wait(ep, &ev, 1, 5000);
		if (n2 == 1)
			e2 = ev.events;
	}
	report("epoll-wakes", n1 == 1 && (e1 & EPOLLOUT) && n2 == 1 &&
	       (e2 & EPOLLIN) && read(fd, &c, 1) == 1 && c == 'e',
	       "connect: %d events 0x%x, data: %d events 0x%x", n1, e1, n2, e2);
	if (afd >= 0)
		close(afd);
	close(fd);
	close(ep);
	close(lfd);
}

/* O_ASYNC set before the switch: SIGIO still comes when data arrives. */
static void case_sigio(void)
{
	struct timespec ts = { .tv_sec = 5 };
	int fd, lfd, afd, p, sig = -1;
	sigset_t set;
	char c = 's';

	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	sigprocmask(SIG_BLOCK, &set, NULL);
	lfd = smc_local_listener(&p);
	fd = tcp_socket(AF_INET);
	if (fcntl(fd, F_SETOWN, getpid()) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC))
		die("O_ASYNC");
	expect_err("sigio-async", set_ulp(fd, "smc"), 0);
	if (local_connect(fd, p))
		die("connect");
	afd = accept(lfd, NULL, NULL);
	/* what connect() signalled is not what we wait for */
	while (sigtimedwait(&set, NULL, &(struct timespec){ 0 }) == SIGIO)
		;
	if (afd >= 0 && write(afd, &c, 1) == 1)
		sig = sigtimedwait(&set, NULL, &ts);
	report("sigio-data", sig == SIGIO && read(fd, &c, 1) == 1 && c == 's',
	       "signal %d (want %d)", sig, SIGIO);
	if (afd >= 0)
		close(afd);
	close(fd);
	close(lfd);
}

/* A bound socket keeps its address through the switch. */
static void case_bound(void)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *a = (struct sockaddr_in *)&ss;
	socklen_t len = make_addr(&ss, AF_INET, "127.0.0.1", 0);
	int fd = tcp_socket(AF_INET), p;

	if (bind(fd, (struct sockaddr *)&ss, len) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len))
		die("bind");
	p = ntohs(a->sin_port);
	expect_err("bound", set_ulp(fd, "smc"), 0);
	len = sizeof(ss);
	memset(&ss, 0, sizeof(ss));
	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		die("getsockname");
	report("bound-keeps-port", ntohs(a->sin_port) == p &&
	       sol_int(fd, SO_DOMAIN) == AF_INET, "port %d (want %d)",
	       ntohs(a->sin_port), p);
	close(fd);
}

/* IPPROTO_SMC sockets came with Linux 6.11. */
static bool kernel_has_ipproto_smc(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		die("uname");
	return major > 6 || (major == 6 && minor >= 11);
}

/* SMC sockets themselves refuse TCP_ULP. */
static void case_smc_sockets(void)
{
	int fd = socket(AF_SMC, SOCK_STREAM, 0);

	if (fd < 0)
		die("AF_SMC socket");
	expect_err("af-smc", set_ulp(fd, "smc"), EOPNOTSUPP);
	close(fd);
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_SMC);
	if (fd < 0 && errno == EPROTONOSUPPORT && !kernel_has_ipproto_smc()) {
		/* the kernel's inet layer has no IPPROTO_SMC before 6.11 */
		report("ipproto-smc", true, "none in this kernel");
		return;
	}
	if (fd < 0)
		die("IPPROTO_SMC socket");
	expect_err("ipproto-smc", set_ulp(fd, "smc"), EOPNOTSUPP);
	close(fd);
}

static int cmd_probe(void)
{
	case_fresh(AF_INET, "fresh-inet");
	case_fresh(AF_INET6, "fresh-inet6");
	case_twice();
	case_connected();
	case_listening();
	case_udp();
	case_unknown();
	case_epoll();
	case_sigio();
	case_bound();
	case_smc_sockets();
	printf("probe %s\n", problems ? "FAILED" : "ok");
	return !!problems;
}

/* A plain TCP socket of @family, switched to SMC. */
static int smc_socket(const char *what)
{
	int fd = tcp_socket(family), err = set_ulp(fd, "smc");
	int dom, proto;

	if (err) {
		errno = err;
		die("setsockopt(TCP_ULP, \"smc\")");
	}
	dom = sol_int(fd, SO_DOMAIN);
	proto = sol_int(fd, SO_PROTOCOL);
	printf("%s: SO_DOMAIN=%d SO_PROTOCOL=%d%s\n", what, dom, proto,
	       dom == family && proto == IPPROTO_TCP ? "" : " UNEXPECTED");
	return fd;
}

static int cmd_has_ulp(void)
{
	int fd = tcp_socket(AF_INET), err = set_ulp(fd, "smc");

	printf("TCP_ULP \"smc\": errno %s\n", err_name(err));
	close(fd);
	return !!err;
}

static int smc_listener(void)
{
	int fd, dom, proto;

	if (!af_smc_listener)
		return smc_socket("listener");
	fd = socket(AF_SMC, SOCK_STREAM, family == AF_INET6 ? 1 : 0);
	if (fd < 0)
		die("AF_SMC socket");
	dom = sol_int(fd, SO_DOMAIN);
	proto = sol_int(fd, SO_PROTOCOL);
	printf("listener: SO_DOMAIN=%d SO_PROTOCOL=%d\n", dom, proto);
	return fd;
}

static void set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = secs };

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		die("setsockopt timeouts");
}

static void fnv(uint64_t *h, const uint8_t *p, size_t len)
{
	while (len--) {
		*h ^= *p++;
		*h *= 0x100000001b3ULL;
	}
}

static int write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

static int echo(int fd, int idx)
{
	static uint8_t buf[CHUNK];
	uint64_t sum = 0xcbf29ce484222325ULL;
	long long total = 0;
	ssize_t n;

	set_timeouts(fd);
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("echo read");
		if (!n)
			break;
		fnv(&sum, buf, n);
		if (write_all(fd, buf, n))
			die("echo write");
		total += n;
	}
	printf("conn %d: echoed %lld bytes sum=%016llx\n", idx, total,
	       (unsigned long long)sum);
	return 0;
}

static int server(void)
{
	struct sockaddr_storage ss;
	int lfd, fd, one = 1, i, status, rc = 0;
	char ulp[32];
	pid_t pid;

	lfd = smc_listener();
	if (setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		die("SO_REUSEADDR");
	if (bind(lfd, (struct sockaddr *)&ss,
		 make_addr(&ss, family, NULL, port)) || listen(lfd, MAX_CONNS))
		die("bind/listen");
	printf("listening on port %d\n", port);
	fflush(stdout);
	for (i = 0; i < conns; i++) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			die("accept");
		get_ulp(fd, ulp, sizeof(ulp));
		printf("accepted %d: SO_DOMAIN=%d TCP_ULP=\"%s\"\n", i,
		       sol_int(fd, SO_DOMAIN), ulp);
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			close(lfd);
			exit(echo(fd, i));
		}
		close(fd);
	}
	close(lfd);
	while ((pid = wait(&status)) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			rc = 1;
	printf("conns=%d %s\n", conns, rc ? "FAILED" : "ok");
	return rc;
}

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void fill(uint8_t *buf, size_t len, uint64_t *s)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = next_rand(s) >> 56;
}

static int transfer(int fd, int idx)
{
	static uint8_t out[CHUNK], want[CHUNK], in[CHUNK];
	uint64_t ws = 0x7c90000ULL + idx, rs = ws;
	uint64_t sum = 0xcbf29ce484222325ULL;
	long long left = bytes;

	while (left) {
		size_t len = left < CHUNK ? left : CHUNK, got = 0;

		fill(out, len, &ws);
		fnv(&sum, out, len);
		if (write_all(fd, out, len)) {
			fprintf(stderr, "tcp_ulp: conn %d write: %s\n", idx,
				strerror(errno));
			return -1;
		}
		fill(want, len, &rs);
		while (got < len) {
			ssize_t n = read(fd, in + got, len - got);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				fprintf(stderr, "tcp_ulp: conn %d read: %s\n",
					idx, n ? strerror(errno) : "EOF");
				return -1;
			}
			got += n;
		}
		if (memcmp(in, want, len)) {
			fprintf(stderr, "tcp_ulp: conn %d: echo differs near offset %lld\n",
				idx, bytes - left);
			return -1;
		}
		left -= len;
	}
	printf("conn %d: sent %lld bytes sum=%016llx\n", idx, bytes,
	       (unsigned long long)sum);
	return 0;
}

static int client(const char *ip)
{
	struct sockaddr_storage ss;
	int fds[MAX_CONNS], i, rc = 0;
	socklen_t alen = make_addr(&ss, family, ip, port);

	for (i = 0; i < conns; i++) {
		char what[32];

		snprintf(what, sizeof(what), "socket %d", i);
		fds[i] = smc_socket(what);
		set_timeouts(fds[i]);
		if (connect(fds[i], (struct sockaddr *)&ss, alen))
			die("connect");
	}
	printf("connected %d\n", conns);
	fflush(stdout);
	for (i = 0; i < conns; i++)
		if (transfer(fds[i], i))
			rc = 1;
	if (hold_file && !rc) {
		printf("holding %d\n", conns);
		fflush(stdout);
		while (access(hold_file, F_OK))
			usleep(100000);
	}
	for (i = 0; i < conns; i++)
		close(fds[i]);
	if (rc)
		printf("conns=%d FAILED\n", conns);
	else
		printf("conns=%d bytes=%lld ok\n", conns, conns * bytes);
	return rc;
}

/*
 * stress: every round, four workers use the same fresh TCP socket at
 * once while the main thread closes it.  The fd number may already be
 * reused by the listener's accept() when a late worker uses it: that is
 * part of the race, and still only a socket call on some socket.
 */
enum { ST_ULP, ST_CONNECT, ST_LISTEN, ST_POLL, ST_WORKERS };

static const char * const st_name[ST_WORKERS] = {
	"setsockopt", "connect", "listen", "poll",
};

/* errnos each call may end with; anything else is a problem */
static const int st_ok[ST_WORKERS][10] = {
	[ST_ULP] = { EBADF, ENOTCONN, EEXIST, EOPNOTSUPP, ESOCKTNOSUPPORT,
		     ENOTSOCK, -1 },
	[ST_CONNECT] = { EBADF, EINPROGRESS, EALREADY, EISCONN, EINVAL,
			 ECONNREFUSED, EOPNOTSUPP, ENOTSOCK, EAGAIN, -1 },
	[ST_LISTEN] = { EBADF, EINVAL, EOPNOTSUPP, ENOTSOCK, -1 },
	[ST_POLL] = { EBADF, ENOENT, EPERM, -1 },
};

#define ST_ERRS 256

static struct {
	pthread_barrier_t start, done;
	atomic_int fd;
	int port, ep;
	atomic_bool stop;
	unsigned int counts[ST_WORKERS][ST_ERRS];
	atomic_int unexpected;
} st;

static void st_count(int w, int err)
{
	int i;

	st.counts[w][err < ST_ERRS ? err : ST_ERRS - 1]++;
	if (!err)
		return;
	for (i = 0; st_ok[w][i] > 0; i++)
		if (st_ok[w][i] == err)
			return;
	if (atomic_fetch_add(&st.unexpected, 1) < 10)
		printf("UNEXPECTED %s: errno %s\n", st_name[w], err_name(err));
}

static void st_op(int w, int fd, unsigned int round)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT };
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };
	int rc;

	switch (w) {
	case ST_ULP:
		st_count(w, set_ulp(fd, "smc"));
		break;
	case ST_CONNECT:
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		a.sin_port = htons(st.port);
		rc = connect(fd, (struct sockaddr *)&a, sizeof(a));
		st_count(w, rc ? errno : 0);
		break;
	case ST_LISTEN:
		/* most rounds leave the connect to win, some let listen */
		if (round % 4)
			usleep(round % 50);
		st_count(w, listen(fd, 4) ? errno : 0);
		break;
	case ST_POLL:
		if (round & 1) {
			rc = poll(&pfd, 1, 20);
			st_count(w, rc < 0 ? errno : 0);
			break;
		}
		rc = epoll_ctl(st.ep, EPOLL_CTL_ADD, fd, &ev);
		st_count(w, rc ? errno : 0);
		if (!rc) {
			epoll_wait(st.ep, &ev, 1, 20);
			epoll_ctl(st.ep, EPOLL_CTL_DEL, fd, NULL);
		}
		break;
	}
}

static void *st_worker(void *arg)
{
	int w = (int)(intptr_t)arg;
	unsigned int round = 0;

	for (;;) {
		pthread_barrier_wait(&st.start);
		if (atomic_load(&st.stop))
			return NULL;
		st_op(w, atomic_load(&st.fd), round++);
		pthread_barrier_wait(&st.done);
	}
}

/* Takes the listener's connections and drops them, until stopped. */
static void *st_acceptor(void *arg)
{
	struct pollfd pfd = { .fd = (int)(intptr_t)arg, .events = POLLIN };
	int fd;

	while (!atomic_load(&st.stop)) {
		if (poll(&pfd, 1, 50) != 1)
			continue;
		fd = accept4(pfd.fd, NULL, NULL, SOCK_NONBLOCK);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

static int cmd_stress(void)
{
	pthread_t workers[ST_WORKERS], acceptor;
	unsigned int round, rounds = conns;
	int lfd, w, fd, e;

	lfd = smc_local_listener(&st.port);
	if (fcntl(lfd, F_SETFL, O_NONBLOCK))
		die("listener O_NONBLOCK");
	st.ep = epoll_create1(0);
	if (st.ep < 0)
		die("epoll_create1");
	if (pthread_barrier_init(&st.start, NULL, ST_WORKERS + 1) ||
	    pthread_barrier_init(&st.done, NULL, ST_WORKERS + 1))
		die("barrier");
	for (w = 0; w < ST_WORKERS; w++)
		if (pthread_create(&workers[w], NULL, st_worker,
				   (void *)(intptr_t)w))
			die("pthread_create");
	if (pthread_create(&acceptor, NULL, st_acceptor,
			   (void *)(intptr_t)lfd))
		die("pthread_create");
	for (round = 0; round < rounds; round++) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (fd < 0)
			die("socket");
		atomic_store(&st.fd, fd);
		pthread_barrier_wait(&st.start);
		/* close at a different moment each round */
		if (round % 8)
			usleep(round % 97);
		close(fd);
		pthread_barrier_wait(&st.done);
	}
	atomic_store(&st.stop, true);
	pthread_barrier_wait(&st.start);
	for (w = 0; w < ST_WORKERS; w++)
		pthread_join(workers[w], NULL);
	pthread_join(acceptor, NULL);
	close(st.ep);
	close(lfd);
	for (w = 0; w < ST_WORKERS; w++) {
		printf("%s:", st_name[w]);
		for (e = 0; e < ST_ERRS; e++)
			if (st.counts[w][e])
				printf(" %s=%u", err_name(e), st.counts[w][e]);
		printf("\n");
	}
	if (atomic_load(&st.unexpected)) {
		printf("stress rounds=%u UNEXPECTED errnos: %d\n", rounds,
		       atomic_load(&st.unexpected));
		return 1;
	}
	printf("stress rounds=%u ok\n", rounds);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: tcp_ulp probe\n"
		"       tcp_ulp has-ulp\n"
		"       tcp_ulp server [-6] [-a] [-p PORT] [-n CONNS] [-t SECS]\n"
		"       tcp_ulp client ADDR [-6] [-p PORT] [-n CONNS] [-B BYTES] [-W FILE] [-t SECS]\n"
		"       tcp_ulp stress [-n ROUNDS] [-t SECS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *mode, *ip = NULL;
	int c;

	if (argc < 2)
		usage();
	mode = argv[1];
	optind = 2;
	if (!strcmp(mode, "client")) {
		if (argc < 3)
			usage();
		ip = argv[2];
		optind = 3;
	}
	while ((c = getopt(argc, argv, "6ap:n:B:W:t:")) != -1) {
		switch (c) {
		case 'a':
			af_smc_listener = true;
			break;
		case '6':
			family = AF_INET6;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'n':
			conns = atoi(optarg);
			break;
		case 'B':
			bytes = atoll(optarg);
			break;
		case 'W':
			hold_file = optarg;
			break;
		case 't':
			secs = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || conns < 1 ||
	    (conns > MAX_CONNS && strcmp(mode, "stress")) || bytes < 0 ||
	    secs < 1)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(secs + (hold_file ? 120 : 30));
	if (!strcmp(mode, "probe"))
		return cmd_probe();
	if (!strcmp(mode, "has-ulp"))
		return cmd_has_ulp();
	if (!strcmp(mode, "server"))
		return server();
	if (!strcmp(mode, "client"))
		return client(ip);
	if (!strcmp(mode, "stress"))
		return cmd_stress();
	usage();
	return 2;
}
