// SPDX-License-Identifier: GPL-2.0
/*
 * sockdiff - differential socket behaviour test (AF_INET oracle vs AF_SMC).
 *
 * Runs scripted scenarios with a chosen socket family on each side and writes
 * a canonical transcript of every observable result.  Two runs (oracle with
 * AF_INET on both sides, test with AF_SMC on one or both sides) must produce
 * identical transcripts; `sockdiff compare A B` checks that.  See README.md.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_SMC
#define AF_SMC 43
#endif
#define SMCPROTO_SMC 0
#define SMCPROTO_SMC6 1

#define SCEN_TIMEOUT 60	/* seconds per scenario (client side) */
#define WAIT_MS 5000		/* bound for "wait until event" loops */

static int g_smc;		/* this process uses AF_SMC */
static int g_v6;		/* IPv6 addressing */
static volatile const char *g_cur = "-";	/* current scenario (for alarm) */

/* ------------------------------------------------------------------ util */

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "sockdiff: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(2);
}

static void on_alarm(int sig)
{
	const char *c = (const char *)g_cur;
	char b[256];
	int n;

	(void)sig;
	n = snprintf(b, sizeof(b), "sockdiff: TIMEOUT (alarm) in scenario %s\n", c);
	if (write(2, b, n) < 0)
		_exit(3);
	_exit(3);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static const char *ename(int e)
{
	static __thread char b[16];
	const char *s = strerrorname_np(e);

	if (s)
		return s;
	snprintf(b, sizeof(b), "E%d", e);
	return b;
}

#define FNV_INIT 0xcbf29ce484222325ULL
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--) {
		h ^= *c++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* deterministic payload from a seed */
static void gen(unsigned char *b, size_t n, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 0x1234567;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = (unsigned char)(x >> 29);
	}
}

/* ------------------------------------------------------------ transcript */

struct log {
	char *buf;
	size_t len, cap;
	const char *scen;
	char side;
	int n;
	int tee;	/* >= 0: write lines straight to this fd, no buffering */
};

static ssize_t writen_fd(int fd, const char *p, size_t n)
{
	size_t o = 0;

	while (o < n) {
		ssize_t r = write(fd, p + o, n - o);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		o += r;
	}
	return o;
}

static void log_init(struct log *L, const char *scen, char side)
{
	memset(L, 0, sizeof(*L));
	L->scen = scen;
	L->side = side;
	L->tee = -1;
}

static void log_raw(struct log *L, const char *s, size_t k)
{
	if (L->tee >= 0) {
		if (writen_fd(L->tee, s, k) != (ssize_t)k)
			die("write transcript: %s", strerror(errno));
		return;
	}
	if (L->len + k + 1 > L->cap) {
		L->cap = (L->len + k + 1) * 2 + 256;
		L->buf = realloc(L->buf, L->cap);
		if (!L->buf)
			die("out of memory");
	}
	memcpy(L->buf + L->len, s, k);
	L->len += k;
	L->buf[L->len] = 0;
}

__attribute__((format(printf, 3, 4)))
static void lg(struct log *L, const char *step, const char *fmt, ...)
{
	char val[512], line[800];
	va_list ap;
	int k;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	k = snprintf(line, sizeof(line), "%s %c %02d.%s %s\n", L->scen, L->side,
		     L->n++, step, val);
	if (k >= (int)sizeof(line))
		k = sizeof(line) - 1;
	log_raw(L, line, k);
}

/* log a syscall return: number or ERR:ENAME (errno captured first) */
static void lr(struct log *L, const char *step, long r)
{
	int e = errno;

	if (r < 0)
		lg(L, step, "ERR:%s", ename(e));
	else
		lg(L, step, "%ld", r);
	errno = e;
}

static const char *pmask(int m, char *b, size_t bl)
{
	static const struct { int v; const char *n; } t[] = {
		{ POLLIN, "IN" }, { POLLPRI, "PRI" }, { POLLOUT, "OUT" },
		{ POLLERR, "ERR" }, { POLLHUP, "HUP" }, { POLLNVAL, "NVAL" },
		{ POLLRDNORM, "RDNORM" }, { POLLRDBAND, "RDBAND" },
		{ POLLWRNORM, "WRNORM" }, { POLLWRBAND, "WRBAND" },
		{ POLLRDHUP, "RDHUP" },
	};
	size_t i;

	b[0] = 0;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (m & t[i].v) {
			if (b[0])
				strncat(b, "|", bl - strlen(b) - 1);
			strncat(b, t[i].n, bl - strlen(b) - 1);
			m &= ~t[i].v;
		}
	}
	if (m)
		snprintf(b + strlen(b), bl - strlen(b), "%s0x%x", b[0] ? "|" : "", m);
	if (!b[0])
		snprintf(b, bl, "none");
	return b;
}

#define PALL (POLLIN | POLLPRI | POLLOUT | POLLRDNORM | POLLRDBAND | \
	      POLLWRNORM | POLLWRBAND | POLLRDHUP)

/* poll once with all interesting events, return revents (or -1) */
static int poll_now(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = PALL };
	int r = poll(&p, 1, ms);

	if (r < 0)
		return -1;
	return r ? p.revents : 0;
}

/* wait until all bits of `want` are reported (bounded); return final mask */
static int wait_mask(int fd, int want, int ms)
{
	long end = now_ms() + ms;
	int m;

	for (;;) {
		m = poll_now(fd, 10);
		if (m < 0 || (m & want) == want || now_ms() > end)
			return m;
		msleep(5);
	}
}

static void lpoll(struct log *L, const char *step, int fd, int want)
{
	char b[128];
	int m = want ? wait_mask(fd, want, WAIT_MS) : poll_now(fd, 0);

	if (m < 0)
		lr(L, step, -1);
	else
		lg(L, step, "%s", pmask(m, b, sizeof(b)));
}

/* ------------------------------------------------------------- sockets */

static int sock_domain(void)
{
	if (g_smc)
		return AF_SMC;
	return g_v6 ? AF_INET6 : AF_INET;
}

static int sock_new(int flags)
{
	return socket(sock_domain(), SOCK_STREAM | flags,
		      g_smc ? (g_v6 ? SMCPROTO_SMC6 : SMCPROTO_SMC) : 0);
}

static socklen_t mkaddr(struct sockaddr_storage *ss, const char *host, int port)
{
	memset(ss, 0, sizeof(*ss));
	if (g_v6) {
		struct sockaddr_in6 *a = (void *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			die("bad IPv6 address %s", host);
		return sizeof(*a);
	} else {
		struct sockaddr_in *a = (void *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			die("bad IPv4 address %s", host);
		return sizeof(*a);
	}
}

static int addr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

static void setport(struct sockaddr_storage *ss, int port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

static int sock_port(int fd, int peer)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	int r = peer ? getpeername(fd, (void *)&ss, &l) : getsockname(fd, (void *)&ss, &l);

	return r < 0 ? -1 : addr_port(&ss);
}

/* log family/ip/len of sockname or peername; port as relation to `eport`
 * (eport > 0: "ok" if equal; eport == 0: "0" or "nz") */
static void laddr(struct log *L, const char *step, int fd, int peer, int eport)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	char ip[INET6_ADDRSTRLEN] = "?";
	const char *fam;
	int r, p;

	memset(&ss, 0, sizeof(ss));
	r = peer ? getpeername(fd, (void *)&ss, &l) : getsockname(fd, (void *)&ss, &l);
	if (r < 0) {
		lr(L, step, -1);
		return;
	}
	if (ss.ss_family == AF_INET) {
		fam = "INET";
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, ip, sizeof(ip));
	} else if (ss.ss_family == AF_INET6) {
		fam = "INET6";
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, ip, sizeof(ip));
	} else {
		fam = "OTHER";
	}
	p = addr_port(&ss);
	lg(L, step, "fam=%s ip=%s len=%u port=%s", fam, ip, (unsigned)l,
	   eport > 0 ? (p == eport ? "ok" : "WRONG") : (p ? "nz" : "0"));
}

static ssize_t writen(int fd, const void *p, size_t n)
{
	size_t o = 0;

	while (o < n) {
		ssize_t r = send(fd, (const char *)p + o, n - o, MSG_NOSIGNAL);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return o ? (ssize_t)o : -1;
		}
		o += r;
	}
	return o;
}

static ssize_t readn(int fd, void *p, size_t n)
{
	size_t o = 0;

	while (o < n) {
		ssize_t r = recv(fd, (char *)p + o, n - o, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return o ? (ssize_t)o : -1;
		}
		if (r == 0)
			break;
		o += r;
	}
	return o;
}

/* read until EOF; returns total or -1 (errno set); *sum = FNV of data */
static long long recv_eof(int fd, uint64_t *sum)
{
	static __thread char *buf;
	long long tot = 0;
	uint64_t h = FNV_INIT;

	if (!buf)
		buf = xmalloc(65536);
	for (;;) {
		ssize_t r = recv(fd, buf, 65536, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			*sum = h;
			return -1;
		}
		if (r == 0)
			break;
		h = fnv(h, buf, r);
		tot += r;
	}
	*sum = h;
	return tot;
}

static int getint(int fd, int lvl, int opt)
{
	int v = -1;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, lvl, opt, &v, &l) < 0)
		return -1000 - errno;
	return v;
}

static int setint(int fd, int lvl, int opt, int v)
{
	return setsockopt(fd, lvl, opt, &v, sizeof(v));
}

static void lgetint(struct log *L, const char *step, int fd, int lvl, int opt)
{
	int v = -1;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, lvl, opt, &v, &l) < 0)
		lr(L, step, -1);
	else
		lg(L, step, "%d", v);
}

static void lflags(struct log *L, const char *step, int fd)
{
	int fl = fcntl(fd, F_GETFL), fd_fl = fcntl(fd, F_GETFD);

	lg(L, step, "nonblock=%d cloexec=%d", !!(fl & O_NONBLOCK), !!(fd_fl & FD_CLOEXEC));
}

static void lsoerr(struct log *L, const char *step, int fd)
{
	int v = getint(fd, SOL_SOCKET, SO_ERROR);

	if (v <= -1000)
		lr(L, step, -1);
	else
		lg(L, step, "%s", v ? ename(v) : "0");
}

/* wait until FIONREAD reports at least `want` and stays stable */
static int wait_inq(int fd, int want, int ms)
{
	long end = now_ms() + ms;
	int v = -1, prev = -2, same = 0;

	while (now_ms() < end) {
		if (ioctl(fd, FIONREAD, &v) < 0)
			return -1;
		if (v >= want && v == prev) {
			if (++same >= 3)
				break;
		} else {
			same = 0;
		}
		prev = v;
		msleep(10);
	}
	return v;
}

static int wait_outq0(int fd, int ms)
{
	long end = now_ms() + ms;
	int v = -1;

	while (now_ms() < end) {
		if (ioctl(fd, SIOCOUTQ, &v) < 0)
			return -1;
		if (v == 0)
			break;
		msleep(10);
	}
	return v;
}

/* ------------------------------------------------------------- protocol */

#define MAGIC "SOCKDIF1"
#define HF_REPORT 1
struct hdr {
	char magic[8];
	char scen[40];
	uint32_t seq, flags, arg, pad;
};

struct cctx {
	struct sockaddr_storage srv;
	socklen_t srvlen;
	const char *host;
	int port;
	uint32_t seq;		/* report key of the main connection */
	int have_report;
	const char *scen;
	uint32_t runid, nseq;
};

static uint32_t next_seq(struct cctx *C)
{
	return (C->runid << 16) | (++C->nseq & 0xffff);
}

static int send_hdr(int fd, const char *scen, uint32_t seq, uint32_t flags, uint32_t arg)
{
	struct hdr h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, MAGIC, 8);
	snprintf(h.scen, sizeof(h.scen), "%s", scen);
	h.seq = htonl(seq);
	h.flags = htonl(flags);
	h.arg = htonl(arg);
	return writen(fd, &h, sizeof(h)) == sizeof(h) ? 0 : -1;
}

/* connect to the server (blocking), send header; logs failures only */
static int cconn_ex(struct cctx *C, struct log *L, const char *scen, int report, uint32_t arg)
{
	int fd = sock_new(0);
	uint32_t seq = next_seq(C);

	if (fd < 0) {
		if (L)
			lr(L, "socket", -1);
		return -1;
	}
	if (connect(fd, (void *)&C->srv, C->srvlen) < 0) {
		if (L)
			lr(L, "connect", -1);
		close(fd);
		return -1;
	}
	if (send_hdr(fd, scen, seq, report ? HF_REPORT : 0, arg) < 0) {
		if (L)
			lr(L, "send_hdr", -1);
		close(fd);
		return -1;
	}
	if (report) {
		C->seq = seq;
		C->have_report = 1;
	}
	return fd;
}

static int cconn(struct cctx *C, struct log *L)
{
	return cconn_ex(C, L, C->scen, 1, 0);
}

/* tiny lockstep helpers: one byte tokens */
static int tok_send(int fd, char c)
{
	return send(fd, &c, 1, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

static int tok_recv(int fd, char want)
{
	char c;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, 20000) <= 0)
		return -1;
	if (recv(fd, &c, 1, 0) != 1)
		return -1;
	return c == want ? 0 : -1;
}

/* ================================================================ scenarios
 * client half: void c_X(struct cctx *, struct log *)
 * server half: void s_X(int fd, struct log *, struct sinfo *)
 */
struct sinfo {
	int accept_nonblock, accept_cloexec;
	uint32_t arg;
	int lport;
};

/* ---- connect/accept, names */
static void c_connect(struct cctx *C, struct log *L)
{
	int fd = sock_new(0), r;

	lr(L, "socket", fd < 0 ? -1 : 0);
	if (fd < 0)
		return;
	lflags(L, "flags", fd);
	laddr(L, "getpeername_unconn", fd, 1, 0);
	r = connect(fd, (void *)&C->srv, C->srvlen);
	lr(L, "connect", r);
	if (r < 0)
		goto out;
	C->seq = next_seq(C);
	C->have_report = 1;
	lr(L, "send_hdr", send_hdr(fd, C->scen, C->seq, HF_REPORT, 0));
	laddr(L, "getsockname", fd, 0, 0);
	laddr(L, "getpeername", fd, 1, C->port);
	lr(L, "connect_again", connect(fd, (void *)&C->srv, C->srvlen));
	lgetint(L, "SO_ERROR", fd, SOL_SOCKET, SO_ERROR);
	lgetint(L, "SO_TYPE", fd, SOL_SOCKET, SO_TYPE);
	lgetint(L, "SO_ACCEPTCONN", fd, SOL_SOCKET, SO_ACCEPTCONN);
	lr(L, "listen_connected", listen(fd, 1));
	lr(L, "accept_connected", accept(fd, NULL, NULL));
	lr(L, "tok", tok_recv(fd, 'k'));
	lpoll(L, "poll_idle", fd, 0);
out:
	close(fd);
}

static void s_connect(int fd, struct log *L, struct sinfo *S)
{
	lg(L, "accepted", "nonblock=%d cloexec=%d", S->accept_nonblock, S->accept_cloexec);
	laddr(L, "getsockname", fd, 0, S->lport);
	laddr(L, "getpeername", fd, 1, 0);
	lgetint(L, "SO_ACCEPTCONN", fd, SOL_SOCKET, SO_ACCEPTCONN);
	lgetint(L, "SO_ERROR", fd, SOL_SOCKET, SO_ERROR);
	lpoll(L, "poll_idle", fd, 0);
	lr(L, "tok", tok_send(fd, 'k'));
	lr(L, "read_eof", readn(fd, (char[4]){0}, 4));
}

/* ---- echo of various sizes (arg = size) */
struct sender {
	int fd;
	const unsigned char *buf;
	size_t n;
	ssize_t ret;
	int err;
	int shut;
};

static void *sender_thr(void *a)
{
	struct sender *s = a;

	s->ret = writen(s->fd, s->buf, s->n);
	s->err = errno;
	if (s->shut)
		shutdown(s->fd, SHUT_WR);
	return NULL;
}

static void c_echo_n(struct cctx *C, struct log *L, size_t n)
{
	unsigned char *buf = xmalloc(n);
	struct sender s;
	pthread_t th;
	uint64_t sum;
	long long got;
	int fd;

	gen(buf, n, n);
	fd = cconn_ex(C, L, "echo", 1, n);
	if (fd < 0)
		goto out;
	s = (struct sender){ .fd = fd, .buf = buf, .n = n, .shut = 1 };
	pthread_create(&th, NULL, sender_thr, &s);
	got = recv_eof(fd, &sum);
	pthread_join(th, NULL);
	errno = s.err;
	lr(L, "sent", s.ret);
	lr(L, "recv_total", got);
	lg(L, "recv_sum", "%016llx match=%d", (unsigned long long)sum,
	   sum == fnv(FNV_INIT, buf, n));
	close(fd);
out:
	free(buf);
}

static void s_echo(int fd, struct log *L, struct sinfo *S)
{
	char *buf = xmalloc(65536);
	long long tot = 0;
	uint64_t h = FNV_INIT;
	int err = 0;

	for (;;) {
		ssize_t r = recv(fd, buf, 65536, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			err = r < 0 ? errno : 0;
			break;
		}
		h = fnv(h, buf, r);
		tot += r;
		if (writen(fd, buf, r) != r) {
			err = errno;
			break;
		}
	}
	if (L) {
		lg(L, "recv_total", "%lld arg=%u", tot, S->arg);
		lg(L, "recv_sum", "%016llx", (unsigned long long)h);
		lg(L, "end", "%s", err ? ename(err) : "eof");
	} else if (err || !tot) {
		/* unreported (many): say what ended it, for the log */
		fprintf(stderr, "sockdiff: echo: peer port %d: %lld bytes, then %s\n",
			sock_port(fd, 1), tot, err ? ename(err) : "eof");
	}
	free(buf);
}

#define ECHO(sz) static void c_echo_##sz(struct cctx *C, struct log *L) { c_echo_n(C, L, sz); }
ECHO(1) ECHO(100) ECHO(4096) ECHO(65536) ECHO(1048576) ECHO(8388608)

/* ---- read/write/readv/writev/send/recv/sendmsg/recvmsg variants */
static ssize_t do_send(int fd, int m, const char *b, size_t n)
{
	struct iovec iov[3];
	struct msghdr mh;
	size_t a = n / 3, c = n / 3;

	iov[0] = (struct iovec){ (void *)b, a };
	iov[1] = (struct iovec){ (void *)(b + a), c };
	iov[2] = (struct iovec){ (void *)(b + a + c), n - a - c };
	switch (m) {
	case 0: return write(fd, b, n);
	case 1: return send(fd, b, n, 0);
	case 2: return sendto(fd, b, n, 0, NULL, 0);
	case 3: return writev(fd, iov, 3);
	case 4:
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = iov;
		mh.msg_iovlen = 3;
		return sendmsg(fd, &mh, 0);
	case 5: return send(fd, b, n, MSG_MORE);
	default: return send(fd, b, n, MSG_NOSIGNAL);
	}
}

static const char *snames[] = { "write", "send", "sendto", "writev", "sendmsg", "send_more", "send_nosig" };
static const char *rnames[] = { "read", "recv", "recvfrom", "readv", "recvmsg", "recv_waitall", "recv_dontwait_loop" };
#define NIO 7

/* receive exactly n bytes using method m; returns total; extra info in *info */
static ssize_t do_recv(int fd, int m, char *b, size_t n, char *info, size_t il)
{
	size_t o = 0;
	int calls = 0;

	snprintf(info, il, "-");
	while (o < n) {
		ssize_t r;
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		struct iovec iov[2];
		struct msghdr mh;

		calls++;
		switch (m) {
		case 0: r = read(fd, b + o, n - o); break;
		case 1: r = recv(fd, b + o, n - o, 0); break;
		case 2:
			memset(&ss, 0xa5, sizeof(ss));
			r = recvfrom(fd, b + o, n - o, 0, (void *)&ss, &sl);
			snprintf(info, il, "addrlen=%u", (unsigned)sl);
			break;
		case 3:
			iov[0] = (struct iovec){ b + o, (n - o) / 2 };
			iov[1] = (struct iovec){ b + o + (n - o) / 2, n - o - (n - o) / 2 };
			r = readv(fd, iov, 2);
			break;
		case 4:
			iov[0] = (struct iovec){ b + o, (n - o) / 2 };
			iov[1] = (struct iovec){ b + o + (n - o) / 2, n - o - (n - o) / 2 };
			memset(&mh, 0, sizeof(mh));
			mh.msg_name = &ss;
			mh.msg_namelen = sizeof(ss);
			mh.msg_iov = iov;
			mh.msg_iovlen = 2;
			r = recvmsg(fd, &mh, 0);
			snprintf(info, il, "namelen=%u flags=0x%x controllen=%zu",
				 (unsigned)mh.msg_namelen, mh.msg_flags, (size_t)mh.msg_controllen);
			break;
		case 5:
			r = recv(fd, b + o, n - o, MSG_WAITALL);
			if (r >= 0 && calls == 1)
				snprintf(info, il, "first=%zd", r);
			break;
		default:
			r = recv(fd, b + o, n - o, MSG_DONTWAIT);
			if (r < 0 && errno == EAGAIN) {
				struct pollfd p = { .fd = fd, .events = POLLIN };

				if (poll(&p, 1, 10000) <= 0)
					return -1;
				continue;
			}
			break;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return o ? (ssize_t)o : r;
		o += r;
	}
	return o;
}

static const size_t io_sizes[] = { 1, 7, 1000, 4096, 20000, 100000 };

static void c_iocalls(struct cctx *C, struct log *L)
{
	char *b = xmalloc(100000), *r = xmalloc(100000), info[128], st[64];
	int fd = cconn(C, L), m, k;

	if (fd < 0)
		goto out;
	for (m = 0; m < NIO; m++) {
		for (k = 0; k < (int)(sizeof(io_sizes) / sizeof(io_sizes[0])); k++) {
			size_t n = io_sizes[k];
			ssize_t x, o = 0;

			gen((unsigned char *)b, n, m * 100 + k);
			/* client sends with method m, one call (+rest via send) */
			x = do_send(fd, m, b, n);
			snprintf(st, sizeof(st), "%s_%zu", snames[m], n);
			lr(L, st, x > 0 ? (x == (ssize_t)n ? (long)n : -2) : x);
			if (x > 0 && x < (ssize_t)n)
				writen(fd, b + x, n - x);
			/* server echoes back with method m; client receives with m */
			o = do_recv(fd, m, r, n, info, sizeof(info));
			snprintf(st, sizeof(st), "%s_%zu", rnames[m], n);
			lr(L, st, o);
			lg(L, "info", "%s match=%d", info, o == (ssize_t)n && !memcmp(b, r, n));
		}
	}
	/* zero-length operations */
	lr(L, "send_0", send(fd, b, 0, 0));
	lr(L, "write_0", write(fd, b, 0));
	lr(L, "recv_0", recv(fd, r, 0, MSG_DONTWAIT));
	lr(L, "tok", tok_send(fd, 'z'));
	lr(L, "recv_eof", readn(fd, r, 1));
	close(fd);
out:
	free(b);
	free(r);
}

static void s_iocalls(int fd, struct log *L, struct sinfo *S)
{
	char *b = xmalloc(100000), info[128], st[64];
	int m, k;

	(void)S;
	for (m = 0; m < NIO; m++) {
		for (k = 0; k < (int)(sizeof(io_sizes) / sizeof(io_sizes[0])); k++) {
			size_t n = io_sizes[k];
			ssize_t o = do_recv(fd, m, b, n, info, sizeof(info)), x;

			snprintf(st, sizeof(st), "%s_%zu", rnames[m], n);
			lr(L, st, o);
			lg(L, "info", "%s sum=%016llx", info,
			   (unsigned long long)fnv(FNV_INIT, b, o > 0 ? o : 0));
			if (o != (ssize_t)n)
				goto out;
			x = do_send(fd, m, b, n);
			snprintf(st, sizeof(st), "%s_%zu", snames[m], n);
			lr(L, st, x > 0 ? (x == (ssize_t)n ? (long)n : -2) : x);
			if (x > 0 && x < (ssize_t)n)
				writen(fd, b + x, n - x);
		}
	}
	lr(L, "tok", tok_recv(fd, 'z'));
out:
	free(b);
}

/* ---- MSG_PEEK / MSG_DONTWAIT / MSG_WAITALL / FIONREAD */
static void c_msgflags(struct cctx *C, struct log *L)
{
	char b[1000];
	int fd = cconn(C, L), i;

	if (fd < 0)
		return;
	lr(L, "recv_dontwait_empty", recv(fd, b, 10, MSG_DONTWAIT));
	lr(L, "tok_s", tok_send(fd, 's'));
	lr(L, "tok_go", tok_recv(fd, 'g'));
	gen((unsigned char *)b, 1000, 7);
	lr(L, "send100", send(fd, b, 100, 0));
	lr(L, "tok_peeked", tok_recv(fd, 'p'));
	for (i = 0; i < 10; i++) {
		msleep(20);
		if (send(fd, b + i * 100, 100, 0) != 100)
			lg(L, "send_chunk", "short");
	}
	lr(L, "tok_done", tok_recv(fd, 'd'));
	/* nonblocking socket via fcntl */
	lr(L, "fcntl_nonblock", fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK));
	lr(L, "read_nonblock_empty", read(fd, b, 10));
	lr(L, "recv_peek_dontwait_empty", recv(fd, b, 10, MSG_PEEK | MSG_DONTWAIT));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	close(fd);
}

static void s_msgflags(int fd, struct log *L, struct sinfo *S)
{
	char b[1000], e[1000];
	ssize_t r;

	(void)S;
	gen((unsigned char *)e, 1000, 7);
	lr(L, "tok_s", tok_recv(fd, 's'));
	lr(L, "recv_dontwait_empty", recv(fd, b, 10, MSG_DONTWAIT));
	lr(L, "fionread_empty", ioctl(fd, FIONREAD, (int[1]){0}) < 0 ? -1 : 0);
	lr(L, "tok_go", tok_send(fd, 'g'));
	lpoll(L, "poll_data", fd, POLLIN);
	lg(L, "fionread", "%d", wait_inq(fd, 100, WAIT_MS));
	r = recv(fd, b, 50, MSG_PEEK);
	lr(L, "peek50", r);
	lg(L, "peek50_match", "%d", r == 50 && !memcmp(b, e, 50));
	r = recv(fd, b, 100, MSG_PEEK | MSG_DONTWAIT);
	lr(L, "peek100_dontwait", r);
	lg(L, "fionread_after_peek", "%d", wait_inq(fd, 0, 100));
	r = recv(fd, b, 30, 0);
	lr(L, "recv30", r);
	r = recv(fd, b + 30, 200, MSG_DONTWAIT);
	lr(L, "recv_rest_dontwait", r);
	lg(L, "recv_match", "%d", !memcmp(b, e, 100));
	lr(L, "recv_dontwait_empty2", recv(fd, b, 10, MSG_DONTWAIT));
	lr(L, "tok_peeked", tok_send(fd, 'p'));
	r = recv(fd, b, 1000, MSG_WAITALL);
	lr(L, "recv_waitall_1000", r);
	lg(L, "waitall_match", "%d", r == 1000 && !memcmp(b, e, 1000));
	lr(L, "tok_done", tok_send(fd, 'd'));
	lr(L, "recv_eof", recv(fd, b, 10, 0));
	lr(L, "recv_eof_waitall", recv(fd, b, 10, MSG_WAITALL));
	lr(L, "recv_eof_dontwait", recv(fd, b, 10, MSG_DONTWAIT));
}

/* ---- shutdown SHUT_WR half close */
static void c_shutwr(struct cctx *C, struct log *L)
{
	char b[5000];
	uint64_t sum;
	int fd = cconn(C, L);

	if (fd < 0)
		return;
	gen((unsigned char *)b, 3000, 3);
	lr(L, "send3000", writen(fd, b, 3000));
	lr(L, "shutdown_wr", shutdown(fd, SHUT_WR));
	lr(L, "send_after_shutwr", send(fd, b, 10, MSG_NOSIGNAL));
	lr(L, "write_after_shutwr", write(fd, b, 10));
	lr(L, "recv_total", recv_eof(fd, &sum));
	lg(L, "recv_sum", "%016llx", (unsigned long long)sum);
	lpoll(L, "poll_after_eof", fd, POLLHUP);
	lr(L, "recv_again", recv(fd, b, 10, 0));
	lsoerr(L, "SO_ERROR", fd);
	close(fd);
}

static void s_shutwr(int fd, struct log *L, struct sinfo *S)
{
	char b[5000];
	uint64_t sum;

	(void)S;
	lr(L, "recv_total", recv_eof(fd, &sum));
	lg(L, "recv_sum", "%016llx", (unsigned long long)sum);
	lpoll(L, "poll_after_eof", fd, POLLRDHUP);
	lr(L, "recv_again", recv(fd, b, 10, 0));
	gen((unsigned char *)b, 5000, 5);
	lr(L, "send5000", writen(fd, b, 5000));
	lpoll(L, "poll_after_send", fd, POLLRDHUP);
}

/* ---- SHUT_RD */
static void c_shutrd(struct cctx *C, struct log *L)
{
	char b[100];
	int fd = cconn(C, L);

	if (fd < 0)
		return;
	lr(L, "shutdown_rd", shutdown(fd, SHUT_RD));
	lr(L, "recv_after_shutrd", recv(fd, b, 10, 0));
	lr(L, "recv_dontwait_after_shutrd", recv(fd, b, 10, MSG_DONTWAIT));
	lpoll(L, "poll_after_shutrd", fd, POLLIN);
	gen((unsigned char *)b, 100, 11);
	lr(L, "send100", send(fd, b, 100, 0));
	lr(L, "shutdown_rd_again", shutdown(fd, SHUT_RD));
	lr(L, "shutdown_bad", shutdown(fd, 7));
	close(fd);
}

static void s_shutrd(int fd, struct log *L, struct sinfo *S)
{
	char b[100];
	ssize_t r;

	(void)S;
	r = recv(fd, b, 100, MSG_WAITALL);
	lr(L, "recv100", r);
	lr(L, "recv_eof", recv(fd, b, 100, 0));
}

/* ---- SHUT_RDWR */
static void c_shutrdwr(struct cctx *C, struct log *L)
{
	char b[100];
	int fd = cconn(C, L);

	if (fd < 0)
		return;
	lr(L, "tok", tok_recv(fd, 'w'));
	lr(L, "shutdown_rdwr", shutdown(fd, SHUT_RDWR));
	lpoll(L, "poll_after_shutrdwr", fd, POLLHUP);
	lr(L, "recv", recv(fd, b, 10, 0));
	lr(L, "send", send(fd, b, 10, MSG_NOSIGNAL));
	lr(L, "shutdown_wr_again", shutdown(fd, SHUT_WR));
	lsoerr(L, "SO_ERROR", fd);
	close(fd);
}

static void s_shutrdwr(int fd, struct log *L, struct sinfo *S)
{
	char b[100];

	(void)S;
	lr(L, "tok", tok_send(fd, 'w'));
	lr(L, "recv_eof", recv(fd, b, 100, 0));
	lpoll(L, "poll_after_eof", fd, POLLRDHUP);
	msleep(200);
}

/* ---- close -> peer reads EOF, then writes get EPIPE after RST */
static void c_close(struct cctx *C, struct log *L)
{
	char b[100];
	int fd = cconn(C, L);

	if (fd < 0)
		return;
	gen((unsigned char *)b, 100, 13);
	lr(L, "send100", send(fd, b, 100, 0));
	lr(L, "tok", tok_recv(fd, 'c'));
	lr(L, "close", close(fd));
}

static void s_close(int fd, struct log *L, struct sinfo *S)
{
	char b[200];
	ssize_t r;

	(void)S;
	r = recv(fd, b, 100, MSG_WAITALL);
	lr(L, "recv100", r);
	lr(L, "tok", tok_send(fd, 'c'));
	lr(L, "recv_eof", recv(fd, b, 100, 0));
	lpoll(L, "poll_after_eof", fd, POLLRDHUP);
	lr(L, "recv_eof_again", recv(fd, b, 100, 0));
	lr(L, "send_after_peer_close", send(fd, b, 100, MSG_NOSIGNAL));
	lpoll(L, "poll_after_rst", fd, POLLERR | POLLHUP);
	lsoerr(L, "SO_ERROR", fd);
	lsoerr(L, "SO_ERROR_again", fd);
	lr(L, "send_after_rst", send(fd, b, 100, MSG_NOSIGNAL));
	lr(L, "recv_after_rst", recv(fd, b, 100, 0));
}

/* ---- abortive close via SO_LINGER {1,0} -> ECONNRESET */
static void c_rst(struct cctx *C, struct log *L)
{
	struct linger lgr = { 1, 0 };
	int fd = cconn(C, L);

	if (fd < 0)
		return;
	lr(L, "tok", tok_recv(fd, 'x'));
	lr(L, "set_linger0", setsockopt(fd, SOL_SOCKET, SO_LINGER, &lgr, sizeof(lgr)));
	lr(L, "close", close(fd));
}

static void s_rst(int fd, struct log *L, struct sinfo *S)
{
	char b[100];

	(void)S;
	lr(L, "tok", tok_send(fd, 'x'));
	lpoll(L, "poll_after_rst", fd, POLLERR | POLLHUP);
	lr(L, "recv_after_rst", recv(fd, b, 100, 0));
	lr(L, "recv_again", recv(fd, b, 100, 0));
	lsoerr(L, "SO_ERROR", fd);
	lr(L, "send_after_rst", send(fd, b, 100, MSG_NOSIGNAL));
}

/* ---- close with unread data -> peer gets a reset */
static void c_closeunread(struct cctx *C, struct log *L)
{
	int fd = cconn(C, L);

	if (fd < 0)
		return;
	lr(L, "tok", tok_recv(fd, 'u'));
	lg(L, "inq", "%d", wait_inq(fd, 100, WAIT_MS));
	lr(L, "close_with_unread", close(fd));
}

static void s_closeunread(int fd, struct log *L, struct sinfo *S)
{
	char b[200];

	(void)S;
	gen((unsigned char *)b, 100, 41);
	lr(L, "tok", tok_send(fd, 'u'));
	lr(L, "send100", writen(fd, b, 100));
	lpoll(L, "poll_after_peer_close", fd, POLLERR | POLLHUP);
	lr(L, "recv", recv(fd, b, 100, 0));
	lr(L, "recv_again", recv(fd, b, 100, 0));
	lr(L, "send", send(fd, b, 10, MSG_NOSIGNAL));
}

/* ---- SO_RCVLOWAT: poll/recv wait for the low-water mark */
static void c_rcvlowat(struct cctx *C, struct log *L)
{
	char b[200];
	struct pollfd p;
	int fd = cconn(C, L);

	if (fd < 0)
		return;
	lr(L, "tok1", tok_send(fd, '1'));	/* the peer sends 50 bytes */
	lg(L, "inq50", "%d", wait_inq(fd, 50, WAIT_MS));
	lr(L, "set_rcvlowat_100", setint(fd, SOL_SOCKET, SO_RCVLOWAT, 100));
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	lr(L, "poll_below_lowat", poll(&p, 1, 300));
	lr(L, "recv_peek_dontwait_below_lowat", recv(fd, b, 200, MSG_DONTWAIT | MSG_PEEK));
	lr(L, "tok2", tok_send(fd, '2'));	/* 50 more */
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	lr(L, "poll_at_lowat", poll(&p, 1, 10000));
	wait_inq(fd, 100, WAIT_MS);
	lr(L, "recv_at_lowat", recv(fd, b, 200, 0));
	lr(L, "set_rcvlowat_1", setint(fd, SOL_SOCKET, SO_RCVLOWAT, 1));
	lr(L, "tok3", tok_send(fd, '3'));
	lr(L, "recv_eof", recv(fd, b, 200, 0));
	close(fd);
}

static void s_rcvlowat(int fd, struct log *L, struct sinfo *S)
{
	char b[100];

	(void)S;
	gen((unsigned char *)b, 100, 43);
	lr(L, "tok1", tok_recv(fd, '1'));
	lr(L, "send50", writen(fd, b, 50));
	lr(L, "tok2", tok_recv(fd, '2'));
	lr(L, "send50b", writen(fd, b + 50, 50));
	lr(L, "tok3", tok_recv(fd, '3'));
}

/* ---- urgent data (MSG_OOB), SIOCATMARK, SO_OOBINLINE */
static void c_oob(struct cctx *C, struct log *L)
{
	int fd = cconn(C, L);

	if (fd < 0)
		return;
	lr(L, "send_abc", send(fd, "abc", 3, 0));
	lr(L, "send_oob", send(fd, "X", 1, MSG_OOB));
	lr(L, "tok", tok_recv(fd, 'o'));
	close(fd);
}

static void s_oob(int fd, struct log *L, struct sinfo *S)
{
	char b[16] = { 0 };
	int v = -1;
	ssize_t r;

	(void)S;
	lpoll(L, "poll_urgent", fd, POLLPRI | POLLIN);
	lg(L, "inq", "%d", wait_inq(fd, 3, WAIT_MS));
	lr(L, "SIOCATMARK_before", ioctl(fd, SIOCATMARK, &v));
	lg(L, "atmark_before", "%d", v);
	r = recv(fd, b, sizeof(b), MSG_OOB);
	lr(L, "recv_oob", r);
	lg(L, "oob_byte", "%c", r == 1 ? b[0] : '?');
	lr(L, "recv_oob_again", recv(fd, b, sizeof(b), MSG_OOB));
	lpoll(L, "poll_after_oob", fd, POLLIN);
	r = recv(fd, b, sizeof(b), 0);
	lr(L, "recv_normal", r);
	lg(L, "normal_data", "%.*s", r > 0 ? (int)r : 0, b);
	v = -1;
	ioctl(fd, SIOCATMARK, &v);
	lg(L, "atmark_after", "%d", v);
	lr(L, "tok", tok_send(fd, 'o'));
	lr(L, "recv_eof", recv(fd, b, sizeof(b), 0));
}

/* ---- poll / select states */
static void lselect(struct log *L, const char *step, int fd, int ms)
{
	fd_set r, w, e;
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	int n;

	if (fd >= FD_SETSIZE) {
		lg(L, step, "fd-too-big");
		return;
	}
	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_ZERO(&e);
	FD_SET(fd, &r);
	FD_SET(fd, &w);
	FD_SET(fd, &e);
	n = select(fd + 1, &r, &w, &e, &tv);
	if (n < 0)
		lr(L, step, -1);
	else
		lg(L, step, "n=%d r=%d w=%d e=%d", n, FD_ISSET(fd, &r), FD_ISSET(fd, &w),
		   FD_ISSET(fd, &e));
}

static void c_poll(struct cctx *C, struct log *L)
{
	char b[100];
	struct pollfd p;
	int fd = cconn(C, L), r;
	fd_set rs;
	struct timeval tv = { 0, 200000 };

	if (fd < 0)
		return;
	lpoll(L, "poll_idle", fd, 0);
	lselect(L, "select_idle", fd, 0);
	/* blocked poll for input with timeout: times out */
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	lr(L, "poll_in_timeout", poll(&p, 1, 200));
	FD_ZERO(&rs);
	FD_SET(fd, &rs);
	lr(L, "select_rd_timeout", select(fd + 1, &rs, NULL, NULL, &tv));
	lr(L, "tok_send1", tok_send(fd, '1'));
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	r = poll(&p, 1, 10000);
	lr(L, "poll_in_wait", r);
	lpoll(L, "poll_data", fd, POLLIN);
	lselect(L, "select_data", fd, 1000);
	lg(L, "fionread", "%d", wait_inq(fd, 10, WAIT_MS));
	lr(L, "read10", readn(fd, b, 10));
	lpoll(L, "poll_drained", fd, 0);
	lr(L, "tok_close", tok_send(fd, '2'));
	lpoll(L, "poll_peer_closed", fd, POLLRDHUP);
	lselect(L, "select_peer_closed", fd, 1000);
	lr(L, "shutdown_wr", shutdown(fd, SHUT_WR));
	lpoll(L, "poll_both_closed", fd, POLLHUP);
	lselect(L, "select_both_closed", fd, 1000);
	close(fd);
}

static void s_poll(int fd, struct log *L, struct sinfo *S)
{
	char b[100];

	(void)S;
	gen((unsigned char *)b, 100, 17);
	lr(L, "tok1", tok_recv(fd, '1'));
	lr(L, "send10", send(fd, b, 10, 0));
	lr(L, "tok2", tok_recv(fd, '2'));
	lr(L, "shutdown_wr", shutdown(fd, SHUT_WR));
	lr(L, "recv_eof", recv(fd, b, 100, 0));
	lpoll(L, "poll_end", fd, POLLHUP);
}

/* ---- epoll level / edge triggered */
static void lepoll(struct log *L, const char *step, int ep, int ms)
{
	struct epoll_event ev[4];
	char b[128];
	int n = epoll_wait(ep, ev, 4, ms);

	if (n <= 0)
		lr(L, step, n);
	else
		lg(L, step, "n=%d ev=%s", n, pmask(ev[0].events, b, sizeof(b)));
}

static void c_epoll(struct cctx *C, struct log *L)
{
	char b[100];
	int fd = cconn(C, L), et, lt, eo;
	struct epoll_event ev;

	if (fd < 0)
		return;
	et = epoll_create1(EPOLL_CLOEXEC);
	lt = epoll_create1(EPOLL_CLOEXEC);
	eo = epoll_create1(EPOLL_CLOEXEC);
	ev = (struct epoll_event){ .events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.fd = fd };
	lr(L, "ctl_add_et", epoll_ctl(et, EPOLL_CTL_ADD, fd, &ev));
	ev = (struct epoll_event){ .events = EPOLLIN | EPOLLRDHUP, .data.fd = fd };
	lr(L, "ctl_add_lt", epoll_ctl(lt, EPOLL_CTL_ADD, fd, &ev));
	ev = (struct epoll_event){ .events = EPOLLOUT | EPOLLET, .data.fd = fd };
	lr(L, "ctl_add_out_et", epoll_ctl(eo, EPOLL_CTL_ADD, fd, &ev));
	lepoll(L, "out_et_first", eo, 1000);
	lepoll(L, "out_et_second", eo, 0);
	lepoll(L, "et_idle", et, 0);
	lepoll(L, "lt_idle", lt, 0);
	lr(L, "tok1", tok_send(fd, '1'));
	lepoll(L, "et_data", et, 10000);
	wait_inq(fd, 10, WAIT_MS);
	lepoll(L, "et_again", et, 100);
	lepoll(L, "lt_data", lt, 1000);
	lepoll(L, "lt_data_again", lt, 0);
	lr(L, "read5", readn(fd, b, 5));
	lepoll(L, "et_after_partial_read", et, 0);
	lepoll(L, "lt_after_partial_read", lt, 0);
	lr(L, "read5b", readn(fd, b, 5));
	lepoll(L, "lt_drained", lt, 0);
	lr(L, "tok2", tok_send(fd, '2'));
	lepoll(L, "et_data2", et, 10000);
	wait_inq(fd, 10, WAIT_MS);
	lr(L, "read10", readn(fd, b, 10));
	ev = (struct epoll_event){ .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLONESHOT, .data.fd = fd };
	lr(L, "ctl_mod_lt_oneshot", epoll_ctl(lt, EPOLL_CTL_MOD, fd, &ev));
	lepoll(L, "oneshot_first", lt, 1000);
	lepoll(L, "oneshot_second", lt, 0);
	lr(L, "tok3", tok_send(fd, '3'));
	lepoll(L, "et_peer_closed", et, 10000);
	lpoll(L, "poll_peer_closed", fd, POLLRDHUP);
	lepoll(L, "et_peer_closed_again", et, 100);
	lr(L, "ctl_del", epoll_ctl(et, EPOLL_CTL_DEL, fd, NULL));
	lr(L, "ctl_del_again", epoll_ctl(et, EPOLL_CTL_DEL, fd, NULL));
	close(et);
	close(lt);
	close(eo);
	close(fd);
}

static void s_epoll(int fd, struct log *L, struct sinfo *S)
{
	char b[100];

	(void)S;
	gen((unsigned char *)b, 100, 19);
	lr(L, "tok1", tok_recv(fd, '1'));
	lr(L, "send10", send(fd, b, 10, 0));
	lr(L, "tok2", tok_recv(fd, '2'));
	lr(L, "send10b", send(fd, b + 10, 10, 0));
	lr(L, "tok3", tok_recv(fd, '3'));
	lr(L, "shutdown_wr", shutdown(fd, SHUT_WR));
	lr(L, "recv_eof", recv(fd, b, 100, 0));
}

/* ---- non-blocking connect */
static void c_nbconnect(struct cctx *C, struct log *L)
{
	int fd = sock_new(SOCK_NONBLOCK), r;
	char b[8];

	lr(L, "socket_nonblock", fd < 0 ? -1 : 0);
	if (fd < 0)
		return;
	lflags(L, "flags", fd);
	r = connect(fd, (void *)&C->srv, C->srvlen);
	lr(L, "connect", r);
	lpoll(L, "poll_connected", fd, POLLOUT);
	lsoerr(L, "SO_ERROR", fd);
	lr(L, "connect_again", connect(fd, (void *)&C->srv, C->srvlen));
	laddr(L, "getpeername", fd, 1, C->port);
	C->seq = next_seq(C);
	C->have_report = 1;
	lr(L, "send_hdr", send_hdr(fd, C->scen, C->seq, HF_REPORT, 0));
	lr(L, "recv_nonblock_empty", recv(fd, b, 8, 0));
	lr(L, "tok_q", tok_send(fd, 'q'));
	lpoll(L, "poll_in", fd, POLLIN);
	lr(L, "tok_n", tok_recv(fd, 'n'));
	close(fd);
}

static void s_nbconnect(int fd, struct log *L, struct sinfo *S)
{
	char b[8];

	(void)S;
	lr(L, "tok_q", tok_recv(fd, 'q'));
	lr(L, "tok_n", tok_send(fd, 'n'));
	lr(L, "recv_eof", recv(fd, b, 8, 0));
}

/* closed port: ask the server for a bound-but-not-listening port */
static int closed_port(struct cctx *C)
{
	int fd = cconn_ex(C, NULL, "CLOSEDPORT", 0, 0);
	uint16_t p = 0;

	if (fd < 0)
		return -1;
	if (readn(fd, &p, 2) != 2)
		p = 0;
	close(fd);
	return p ? ntohs(p) : -1;
}

static void c_refused(struct cctx *C, struct log *L)
{
	struct sockaddr_storage a = C->srv;
	int port = closed_port(C), fd;

	lg(L, "closed_port", "%s", port > 0 ? "ok" : "FAILED");
	if (port <= 0)
		return;
	setport(&a, port);
	fd = sock_new(0);
	lr(L, "connect_blocking", connect(fd, (void *)&a, C->srvlen));
	lsoerr(L, "SO_ERROR_blocking", fd);
	lr(L, "connect_blocking_again", connect(fd, (void *)&a, C->srvlen));
	close(fd);
	fd = sock_new(SOCK_NONBLOCK);
	lr(L, "connect_nb", connect(fd, (void *)&a, C->srvlen));
	lpoll(L, "poll_nb", fd, POLLERR | POLLHUP);
	lsoerr(L, "SO_ERROR_nb", fd);
	lsoerr(L, "SO_ERROR_nb_again", fd);
	lr(L, "connect_nb_again", connect(fd, (void *)&a, C->srvlen));
	lr(L, "send_unconnected", send(fd, "x", 1, MSG_NOSIGNAL));
	lr(L, "recv_unconnected", recv(fd, (char[4]){0}, 1, 0));
	close(fd);
}

/* ---- socket options round trips */
static void lgetopt_tv(struct log *L, const char *step, int fd, int opt)
{
	struct timeval tv = { -1, -1 };
	socklen_t l = sizeof(tv);

	if (getsockopt(fd, SOL_SOCKET, opt, &tv, &l) < 0)
		lr(L, step, -1);
	else
		lg(L, step, "%ld.%06ld len=%u", (long)tv.tv_sec, (long)tv.tv_usec, (unsigned)l);
}

static void sockopts(struct log *L, int fd, int connected)
{
	struct { int lvl, opt, v; const char *n; } t[] = {
		{ IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY" },
		{ IPPROTO_TCP, TCP_CORK, 1, "TCP_CORK" },
		{ SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR" },
		{ SOL_SOCKET, SO_KEEPALIVE, 1, "SO_KEEPALIVE" },
		{ IPPROTO_TCP, TCP_KEEPIDLE, 60, "TCP_KEEPIDLE" },
		{ IPPROTO_TCP, TCP_KEEPINTVL, 7, "TCP_KEEPINTVL" },
		{ IPPROTO_TCP, TCP_KEEPCNT, 4, "TCP_KEEPCNT" },
		{ IPPROTO_TCP, TCP_USER_TIMEOUT, 12345, "TCP_USER_TIMEOUT" },
		{ SOL_SOCKET, SO_OOBINLINE, 1, "SO_OOBINLINE" },
		{ SOL_SOCKET, SO_PRIORITY, 3, "SO_PRIORITY" },
		{ SOL_SOCKET, SO_RCVLOWAT, 5, "SO_RCVLOWAT" },
		{ SOL_SOCKET, SO_RCVBUF, 65536, "SO_RCVBUF" },
		{ SOL_SOCKET, SO_SNDBUF, 65536, "SO_SNDBUF" },
	};
	struct linger lgr = { 1, 5 };
	struct timeval tv = { 0, 250000 };
	socklen_t l;
	char name[64], cong[32];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (t[i].opt != SO_RCVBUF && t[i].opt != SO_SNDBUF &&
		    t[i].opt != SO_RCVLOWAT) {
			snprintf(name, sizeof(name), "%s_default", t[i].n);
			lgetint(L, name, fd, t[i].lvl, t[i].opt);
		}
		snprintf(name, sizeof(name), "%s_set", t[i].n);
		lr(L, name, setint(fd, t[i].lvl, t[i].opt, t[i].v));
		snprintf(name, sizeof(name), "%s_get", t[i].n);
		lgetint(L, name, fd, t[i].lvl, t[i].opt);
	}
	lr(L, "TCP_CORK_off", setint(fd, IPPROTO_TCP, TCP_CORK, 0));
	lgetint(L, "TCP_CORK_get_off", fd, IPPROTO_TCP, TCP_CORK);
	lr(L, "SO_RCVLOWAT_reset", setint(fd, SOL_SOCKET, SO_RCVLOWAT, 1));
	if (g_v6) {
		lgetint(L, "IPV6_V6ONLY_default", fd, IPPROTO_IPV6, IPV6_V6ONLY);
		lr(L, "IPV6_TCLASS_set", setint(fd, IPPROTO_IPV6, IPV6_TCLASS, 0x20));
		lgetint(L, "IPV6_TCLASS_get", fd, IPPROTO_IPV6, IPV6_TCLASS);
	} else {
		lgetint(L, "IP_TOS_default", fd, IPPROTO_IP, IP_TOS);
		lr(L, "IP_TOS_set", setint(fd, IPPROTO_IP, IP_TOS, 0x20));
		lgetint(L, "IP_TOS_get", fd, IPPROTO_IP, IP_TOS);
		lgetint(L, "IP_TTL_default", fd, IPPROTO_IP, IP_TTL);
	}
	l = sizeof(lgr);
	memset(&lgr, 0xff, sizeof(lgr));
	lr(L, "SO_LINGER_default", getsockopt(fd, SOL_SOCKET, SO_LINGER, &lgr, &l));
	lg(L, "SO_LINGER_default_val", "%d,%d", lgr.l_onoff, lgr.l_linger);
	lgr = (struct linger){ 1, 5 };
	lr(L, "SO_LINGER_set", setsockopt(fd, SOL_SOCKET, SO_LINGER, &lgr, sizeof(lgr)));
	memset(&lgr, 0xff, sizeof(lgr));
	l = sizeof(lgr);
	lr(L, "SO_LINGER_get", getsockopt(fd, SOL_SOCKET, SO_LINGER, &lgr, &l));
	lg(L, "SO_LINGER_val", "%d,%d len=%u", lgr.l_onoff, lgr.l_linger, (unsigned)l);
	lgr = (struct linger){ 0, 0 };
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lgr, sizeof(lgr));
	lgetopt_tv(L, "SO_RCVTIMEO_default", fd, SO_RCVTIMEO);
	lr(L, "SO_RCVTIMEO_set", setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	lgetopt_tv(L, "SO_RCVTIMEO_get", fd, SO_RCVTIMEO);
	lr(L, "SO_SNDTIMEO_set", setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)));
	lgetopt_tv(L, "SO_SNDTIMEO_get", fd, SO_SNDTIMEO);
	tv = (struct timeval){ 0, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	l = sizeof(cong);
	memset(cong, 0, sizeof(cong));
	lr(L, "TCP_CONGESTION_get", getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cong, &l));
	lg(L, "TCP_CONGESTION_val", "%s", cong);
	/* error paths */
	lr(L, "setsockopt_short", setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, "x", 1));
	lr(L, "setsockopt_unknown_tcp", setint(fd, IPPROTO_TCP, 9999, 1));
	lr(L, "getsockopt_unknown_tcp", getint(fd, IPPROTO_TCP, 9999) <= -1000 ?
	   (errno = -1000 - getint(fd, IPPROTO_TCP, 9999), -1) : 0);
	lr(L, "setsockopt_unknown_sol", setint(fd, SOL_SOCKET, 9999, 1));
	lr(L, "setsockopt_keepidle_0", setint(fd, IPPROTO_TCP, TCP_KEEPIDLE, 0));
	lgetint(L, "SO_ERROR", fd, SOL_SOCKET, SO_ERROR);
	lgetint(L, "SO_TYPE", fd, SOL_SOCKET, SO_TYPE);
	lgetint(L, "SO_ACCEPTCONN", fd, SOL_SOCKET, SO_ACCEPTCONN);
	(void)connected;
}

static void c_sockopt(struct cctx *C, struct log *L)
{
	int fd = cconn(C, L);

	if (fd < 0)
		return;
	sockopts(L, fd, 1);
	lr(L, "tok", tok_recv(fd, 'o'));
	close(fd);
}

static void s_sockopt(int fd, struct log *L, struct sinfo *S)
{
	(void)S;
	sockopts(L, fd, 1);
	lr(L, "tok", tok_send(fd, 'o'));
	lr(L, "recv_eof", recv(fd, (char[4]){0}, 4, 0));
}

/* ---- SO_RCVTIMEO / SO_SNDTIMEO behaviour, full send buffer */
static void c_timeouts(struct cctx *C, struct log *L)
{
	struct timeval tv = { 0, 200000 };
	char *b = xmalloc(65536);
	long t0, dt;
	long long total = 0;
	uint64_t sum;
	ssize_t r;
	int fd = cconn(C, L), v;

	if (fd < 0)
		goto out;
	memset(b, 'q', 65536);
	lr(L, "set_rcvtimeo", setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	t0 = now_ms();
	lr(L, "recv_timeout", recv(fd, b, 100, 0));
	dt = now_ms() - t0;
	lg(L, "recv_timeout_elapsed", "%s", dt >= 150 && dt < 3000 ? "ok" : "BAD");
	lr(L, "set_sndtimeo", setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)));
	/* the peer does not read: the send buffer must fill up and a send
	 * must fail with EAGAIN after ~200ms (256 MiB is "never full") */
	for (;;) {
		t0 = now_ms();
		r = send(fd, b, 65536, MSG_NOSIGNAL);
		dt = now_ms() - t0;
		if (r <= 0 || total > (256LL << 20))
			break;
		total += r;
	}
	lr(L, "send_until_full", r);
	lg(L, "send_timeout_elapsed", "%s", dt >= 150 && dt < 3000 ? "ok" : "BAD");
	lg(L, "sent_some", "%d", total > 0);
	while ((r = send(fd, b, 65536, MSG_DONTWAIT | MSG_NOSIGNAL)) > 0)
		;
	lr(L, "send_dontwait_until_full", r);
	lpoll(L, "poll_full", fd, 0);
	v = -1;
	ioctl(fd, SIOCOUTQ, &v);
	lg(L, "outq_full", "%s", v > 0 ? "gt0" : "0");
	lr(L, "shutdown_wr", shutdown(fd, SHUT_WR));
	/* server drains, then sends back a byte count summary and closes */
	tv = (struct timeval){ 0, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	lr(L, "recv_total", recv_eof(fd, &sum));
	close(fd);
out:
	free(b);
}

static void s_timeouts(int fd, struct log *L, struct sinfo *S)
{
	uint64_t sum;
	long long t;
	int v, prev = -1, same = 0;
	long end = now_ms() + 30000;

	(void)S;
	/* do not read until the receive queue stopped growing for 1.5 s */
	lpoll(L, "poll_data", fd, POLLIN);
	while (now_ms() < end) {
		if (ioctl(fd, FIONREAD, &v) < 0)
			break;
		if (v == prev) {
			if (++same >= 75)	/* 1.5 s */
				break;
		} else {
			same = 0;
		}
		prev = v;
		msleep(20);
	}
	lg(L, "inq_stable", "%s", v > 0 ? "gt0" : "0");
	t = recv_eof(fd, &sum);
	lg(L, "drained", "%s", t > 0 ? "ok" : "BAD");
	lr(L, "send4", send(fd, "done", 4, 0));
}

/* ---- ioctl FIONREAD / SIOCINQ / SIOCOUTQ */
static void c_ioctl(struct cctx *C, struct log *L)
{
	char b[5000];
	int fd = cconn(C, L), v;

	if (fd < 0)
		return;
	v = -1;
	lr(L, "FIONREAD_empty", ioctl(fd, FIONREAD, &v));
	lg(L, "FIONREAD_empty_val", "%d", v);
	lr(L, "tok", tok_send(fd, 'i'));
	lpoll(L, "poll_in", fd, POLLIN);
	lg(L, "FIONREAD_1234", "%d", wait_inq(fd, 1234, WAIT_MS));
	v = -1;
	lr(L, "SIOCINQ", ioctl(fd, SIOCINQ, &v));
	lg(L, "SIOCINQ_val", "%d", v);
	lr(L, "read234", readn(fd, b, 234));
	v = -1;
	ioctl(fd, FIONREAD, &v);
	lg(L, "FIONREAD_after_read", "%d", v);
	lr(L, "read1000", readn(fd, b, 1000));
	v = -1;
	ioctl(fd, FIONREAD, &v);
	lg(L, "FIONREAD_drained", "%d", v);
	gen((unsigned char *)b, 5000, 23);
	lr(L, "send5000", writen(fd, b, 5000));
	lr(L, "tok_ack", tok_recv(fd, 'a'));
	lg(L, "SIOCOUTQ_acked", "%d", wait_outq0(fd, WAIT_MS));
	v = -1;
	lr(L, "SIOCOUTQNSD", ioctl(fd, SIOCOUTQNSD, &v));
	lg(L, "SIOCOUTQNSD_val", "%d", v);
	lr(L, "ioctl_bad", ioctl(fd, 0x89ff, &v));
	close(fd);
}

static void s_ioctl(int fd, struct log *L, struct sinfo *S)
{
	char b[5000];

	(void)S;
	gen((unsigned char *)b, 1234, 29);
	lr(L, "tok", tok_recv(fd, 'i'));
	lr(L, "send1234", writen(fd, b, 1234));
	lg(L, "SIOCOUTQ_acked", "%d", wait_outq0(fd, WAIT_MS));
	lr(L, "recv5000", readn(fd, b, 5000));
	lr(L, "tok_ack", tok_send(fd, 'a'));
	lr(L, "recv_eof", recv(fd, b, 10, 0));
}

/* ---- sendfile and splice */
static int tmpfile_with(size_t n, uint64_t seed, uint64_t *sum)
{
	char path[] = "/tmp/sockdiff.XXXXXX";
	unsigned char *b = xmalloc(n);
	int fd = mkstemp(path);

	if (fd < 0)
		die("mkstemp: %s", strerror(errno));
	unlink(path);
	gen(b, n, seed);
	if (write(fd, b, n) != (ssize_t)n)
		die("write tmpfile: %s", strerror(errno));
	*sum = fnv(FNV_INIT, b, n);
	free(b);
	return fd;
}

#define SF_SIZE (1048576 + 37)

/* The echo is read while sendfile runs: no dependence on buffer sizes. */
struct echo_reader {
	int fd;
	long long got;
	uint64_t sum;
};

static void *echo_reader_thr(void *arg)
{
	struct echo_reader *e = arg;

	e->got = recv_eof(e->fd, &e->sum);
	return NULL;
}

static void c_sendfile(struct cctx *C, struct log *L)
{
	struct echo_reader er = { 0 };
	uint64_t fsum, rsum;
	off_t off = 0;
	long long tot = 0;
	pthread_t th;
	ssize_t r;
	int ff = tmpfile_with(SF_SIZE, 31, &fsum), fd = cconn(C, L);

	if (fd < 0)
		goto out;
	er.fd = fd;
	pthread_create(&th, NULL, echo_reader_thr, &er);
	r = sendfile(fd, ff, &off, 100);
	lr(L, "sendfile_100", r);
	while (off < SF_SIZE) {
		r = sendfile(fd, ff, &off, SF_SIZE - off);
		if (r <= 0)
			break;
	}
	tot = off;
	lr(L, "sendfile_total", r < 0 ? -1 : tot);
	lr(L, "shutdown_wr", shutdown(fd, SHUT_WR));
	pthread_join(th, NULL);
	rsum = er.sum;
	lr(L, "recv_echo_total", er.got);
	lg(L, "echo_match", "%d", rsum == fsum);
	close(fd);
out:
	close(ff);
}

static void c_splice(struct cctx *C, struct log *L)
{
	uint64_t fsum, h = FNV_INIT;
	loff_t off = 0;
	long long tot = 0, rt = 0;
	ssize_t r = 0;
	int pp[2], ff = tmpfile_with(262144, 37, &fsum), fd = cconn(C, L);
	char *b = xmalloc(65536);

	if (fd < 0)
		goto out;
	if (pipe(pp) < 0)
		die("pipe");
	/* file -> pipe -> socket */
	while (off < 262144) {
		r = splice(ff, &off, pp[1], NULL, 262144 - off, 0);
		if (r <= 0)
			break;
		while (r > 0) {
			ssize_t w = splice(pp[0], NULL, fd, NULL, r, SPLICE_F_MORE);

			if (w <= 0) {
				r = -1;
				break;
			}
			r -= w;
			tot += w;
		}
		if (r < 0)
			break;
	}
	lr(L, "splice_to_sock_total", r < 0 ? -1 : tot);
	lr(L, "shutdown_wr", shutdown(fd, SHUT_WR));
	/* socket -> pipe -> read: server echoes back */
	for (;;) {
		r = splice(fd, NULL, pp[1], NULL, 65536, 0);
		if (r <= 0)
			break;
		while (r > 0) {
			ssize_t x = read(pp[0], b, r);

			if (x <= 0) {
				r = -1;
				break;
			}
			h = fnv(h, b, x);
			rt += x;
			r -= x;
		}
	}
	lr(L, "splice_from_sock_end", r);
	lg(L, "splice_from_sock_total", "%lld match=%d", rt, h == fsum);
	close(pp[0]);
	close(pp[1]);
	close(fd);
out:
	free(b);
	close(ff);
}

/* server half for splice: receive through splice, echo back through splice */
static void s_splice(int fd, struct log *L, struct sinfo *S)
{
	int pp[2];
	char *b = xmalloc(262144 + 1);
	long long tot = 0;
	ssize_t r = 0;

	(void)S;
	if (pipe(pp) < 0)
		die("pipe");
	for (;;) {
		r = splice(fd, NULL, pp[1], NULL, 65536, 0);
		if (r <= 0)
			break;
		while (r > 0) {
			ssize_t x = read(pp[0], b + (tot < 262144 ? tot : 0), r);

			if (x <= 0) {
				r = -1;
				break;
			}
			tot += x;
			r -= x;
		}
	}
	lr(L, "splice_in_end", r);
	lg(L, "splice_in_total", "%lld sum=%016llx", tot,
	   (unsigned long long)fnv(FNV_INIT, b, tot <= 262144 ? tot : 0));
	/* echo: buffer -> pipe -> socket */
	{
		long long o = 0;

		while (o < tot && tot <= 262144) {
			ssize_t w = write(pp[1], b + o, tot - o > 65536 ? 65536 : tot - o);

			if (w <= 0)
				break;
			while (w > 0) {
				ssize_t s = splice(pp[0], NULL, fd, NULL, w, 0);

				if (s <= 0) {
					w = -1;
					break;
				}
				w -= s;
				o += s;
			}
			if (w < 0)
				break;
		}
		lr(L, "splice_out_total", o);
	}
	close(pp[0]);
	close(pp[1]);
	free(b);
}

/* ---- many concurrent connections */
#define NCONC 64
#define CONC_SZ 65536
struct conc {
	struct cctx *C;
	int idx, fd;
	int ok;
	uint64_t sum;
	ssize_t sent;
	int err, rerr;
	long long got;
	int sum_ok;
};

static pthread_mutex_t conc_mu = PTHREAD_MUTEX_INITIALIZER;
static void *conc_thr(void *a)
{
	struct conc *c = a;
	unsigned char *b = xmalloc(CONC_SZ);
	struct sender s = { .fd = c->fd, .buf = b, .n = CONC_SZ, .shut = 1 };
	long long got;

	gen(b, CONC_SZ, 1000 + c->idx);
	sender_thr(&s);
	got = recv_eof(c->fd, &c->sum);
	c->rerr = got < 0 ? errno : 0;
	c->sent = s.ret;
	c->err = s.err;
	c->got = got;
	c->sum_ok = c->sum == fnv(FNV_INIT, b, CONC_SZ);
	c->ok = s.ret == CONC_SZ && got == CONC_SZ && c->sum_ok;
	free(b);
	return NULL;
}

static void c_many(struct cctx *C, struct log *L)
{
	struct conc c[NCONC];
	pthread_t th[NCONC];
	int i, nconn = 0, ok = 0;
	uint64_t x = 0;

	/* open all connections first so they are concurrently established */
	for (i = 0; i < NCONC; i++) {
		pthread_mutex_lock(&conc_mu);
		c[i] = (struct conc){ .C = C, .idx = i };
		c[i].fd = cconn_ex(C, NULL, "echo", 0, CONC_SZ);
		pthread_mutex_unlock(&conc_mu);
		if (c[i].fd >= 0)
			nconn++;
	}
	lg(L, "connected", "%d", nconn);
	for (i = 0; i < NCONC; i++)
		if (c[i].fd >= 0)
			pthread_create(&th[i], NULL, conc_thr, &c[i]);
	for (i = 0; i < NCONC; i++) {
		if (c[i].fd < 0)
			continue;
		pthread_join(th[i], NULL);
		ok += c[i].ok;
		/* how it failed, for the log only: the transcript has the count */
		if (!c[i].ok)
			fprintf(stderr, "sockdiff: many: connection %d (port %d): sent %zd (%s), received %lld (%s), %s\n",
				i, sock_port(c[i].fd, 0), c[i].sent,
				c[i].sent < 0 ? ename(c[i].err) : "ok",
				c[i].got, c[i].got < 0 ? ename(c[i].rerr) : "eof",
				c[i].sum_ok ? "sum matches" : "sum differs");
		x ^= c[i].sum * (i + 1);
		close(c[i].fd);
	}
	lg(L, "echo_ok", "%d", ok);
	lg(L, "sums", "%016llx", (unsigned long long)x);
}

/* ---- local-only (no remote peer; own listener on loopback) */
static const char *lo_ip(void)
{
	return g_v6 ? "::1" : "127.0.0.1";
}

static int lo_listener(int flags, int *port)
{
	struct sockaddr_storage a;
	socklen_t al = mkaddr(&a, lo_ip(), 0);
	int fd = sock_new(flags);

	if (fd < 0)
		return -1;
	if (bind(fd, (void *)&a, al) < 0 || listen(fd, 16) < 0) {
		close(fd);
		return -1;
	}
	*port = sock_port(fd, 0);
	return fd;
}

static void c_sockapi(struct cctx *C, struct log *L)
{
	int fd = sock_new(SOCK_NONBLOCK | SOCK_CLOEXEC), fd2;
	char b[8];

	(void)C;
	lr(L, "socket_nb_cloexec", fd < 0 ? -1 : 0);
	if (fd < 0)
		return;
	lflags(L, "flags", fd);
	fd2 = sock_new(SOCK_CLOEXEC);
	lflags(L, "flags_cloexec", fd2);
	close(fd2);
	fd2 = sock_new(0);
	lflags(L, "flags_plain", fd2);
	lr(L, "fcntl_setfd", fcntl(fd2, F_SETFD, FD_CLOEXEC));
	lflags(L, "flags_after_fcntl", fd2);
	close(fd2);
	lgetint(L, "SO_TYPE", fd, SOL_SOCKET, SO_TYPE);
	lgetint(L, "SO_ERROR", fd, SOL_SOCKET, SO_ERROR);
	lgetint(L, "SO_ACCEPTCONN", fd, SOL_SOCKET, SO_ACCEPTCONN);
	laddr(L, "getsockname_unbound", fd, 0, 0);
	laddr(L, "getpeername_unconn", fd, 1, 0);
	lr(L, "recv_unconn", recv(fd, b, 8, 0));
	lr(L, "read_unconn", read(fd, b, 8));
	lr(L, "send_unconn", send(fd, b, 8, MSG_NOSIGNAL));
	lr(L, "write_unconn", write(fd, b, 8));
	lr(L, "shutdown_unconn", shutdown(fd, SHUT_RDWR));
	lr(L, "accept_unconn", accept(fd, NULL, NULL));
	lpoll(L, "poll_unconn", fd, 0);
	{
		int v = -1;

		lr(L, "FIONREAD_unconn", ioctl(fd, FIONREAD, &v));
	}
	lr(L, "sendfile_unconn", sendfile(fd, 0, NULL, 1));
	close(fd);
	/* SOCK_NONBLOCK connect then blocking send etc. is in nbconnect */
	lr(L, "socket_bad_type", socket(sock_domain(), SOCK_STREAM | 0x4000000,
				       g_smc ? (g_v6 ? 1 : 0) : 0));
}

static void c_bind(struct cctx *C, struct log *L)
{
	struct sockaddr_storage a, a6;
	socklen_t al = mkaddr(&a, lo_ip(), 0);
	int s1 = sock_new(0), s2 = sock_new(0), s3, s4, port;

	(void)C;
	lr(L, "bind_s1", bind(s1, (void *)&a, al));
	laddr(L, "getsockname_s1", s1, 0, 0);
	port = sock_port(s1, 0);
	setport(&a, port);
	lr(L, "bind_s2_same", bind(s2, (void *)&a, al));
	lr(L, "bind_s1_again", bind(s1, (void *)&a, al));
	lr(L, "bind_s2_short", bind(s2, (void *)&a, 4));
	memset(&a6, 0, sizeof(a6));
	if (g_v6) {
		struct sockaddr_in *x = (void *)&a6;

		x->sin_family = AF_INET;
		lr(L, "bind_s2_wrongfam", bind(s2, (void *)&a6, sizeof(*x)));
	} else {
		struct sockaddr_in6 *x = (void *)&a6;

		x->sin6_family = AF_INET6;
		lr(L, "bind_s2_wrongfam", bind(s2, (void *)&a6, sizeof(*x)));
	}
	a6.ss_family = AF_UNIX;
	lr(L, "bind_s2_unix", bind(s2, (void *)&a6, sizeof(struct sockaddr_in)));
	{
		struct sockaddr_storage n;
		socklen_t nl = mkaddr(&n, g_v6 ? "2001:db8::1" : "192.0.2.1", 0);

		lr(L, "bind_s2_nonlocal", bind(s2, (void *)&n, nl));
	}
	lr(L, "listen_s1", listen(s1, 5));
	lr(L, "listen_s1_again", listen(s1, 10));
	lgetint(L, "SO_ACCEPTCONN", s1, SOL_SOCKET, SO_ACCEPTCONN);
	lr(L, "connect_listener", connect(s1, (void *)&a, al));
	lr(L, "shutdown_listener", shutdown(s1, SHUT_RDWR));
	lr(L, "bind_after_listen", bind(s1, (void *)&a, al));
	close(s1);
	close(s2);
	/* SO_REUSEADDR: both bind, only one may listen */
	s3 = sock_new(0);
	s4 = sock_new(0);
	setint(s3, SOL_SOCKET, SO_REUSEADDR, 1);
	setint(s4, SOL_SOCKET, SO_REUSEADDR, 1);
	setport(&a, 0);
	lr(L, "reuse_bind_s3", bind(s3, (void *)&a, al));
	setport(&a, sock_port(s3, 0));
	lr(L, "reuse_bind_s4", bind(s4, (void *)&a, al));
	lr(L, "reuse_listen_s3", listen(s3, 5));
	lr(L, "reuse_listen_s4", listen(s4, 5));
	close(s3);
	close(s4);
	/* listen without bind: autobind */
	s3 = sock_new(0);
	lr(L, "listen_unbound", listen(s3, 5));
	laddr(L, "getsockname_autobound", s3, 0, 0);
	{
		int v = -1;

		lr(L, "FIONREAD_listener", ioctl(s3, FIONREAD, &v));
		lr(L, "SIOCOUTQ_listener", ioctl(s3, SIOCOUTQ, &v));
	}
	lr(L, "recv_listener", recv(s3, (char[4]){0}, 4, MSG_DONTWAIT));
	lr(L, "send_listener", send(s3, "x", 1, MSG_NOSIGNAL));
	lpoll(L, "poll_listener", s3, 0);
	lr(L, "setsockopt_defer_accept", setint(s3, IPPROTO_TCP, TCP_DEFER_ACCEPT, 0));
	close(s3);
}

static void c_accept(struct cctx *C, struct log *L)
{
	struct sockaddr_storage a, pa;
	socklen_t al, pal;
	struct timeval tv = { 0, 150000 };
	int port, ls = lo_listener(SOCK_NONBLOCK, &port), c1, c2, c3, a1, a2, r;
	char b[8];

	(void)C;
	lr(L, "listen", ls < 0 ? -1 : 0);
	if (ls < 0)
		return;
	al = mkaddr(&a, lo_ip(), port);
	lflags(L, "listener_flags", ls);
	lr(L, "accept_nb_empty", accept(ls, NULL, NULL));
	lr(L, "accept4_nb_empty", accept4(ls, NULL, NULL, SOCK_CLOEXEC));
	lpoll(L, "poll_listener_empty", ls, 0);
	/* blocking listener with SO_RCVTIMEO */
	fcntl(ls, F_SETFL, fcntl(ls, F_GETFL) & ~O_NONBLOCK);
	lr(L, "set_rcvtimeo", setsockopt(ls, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	lr(L, "accept_timeout", accept(ls, NULL, NULL));
	c1 = sock_new(0);
	lr(L, "connect_c1", connect(c1, (void *)&a, al));
	lpoll(L, "poll_listener_pending", ls, POLLIN);
	pal = sizeof(pa);
	memset(&pa, 0, sizeof(pa));
	a1 = accept4(ls, (void *)&pa, &pal, SOCK_NONBLOCK | SOCK_CLOEXEC);
	lr(L, "accept4_nb_cloexec", a1 < 0 ? -1 : 0);
	lg(L, "accept4_addr", "fam=%s len=%u port=%s",
	   pa.ss_family == AF_INET ? "INET" : pa.ss_family == AF_INET6 ? "INET6" : "OTHER",
	   (unsigned)pal, addr_port(&pa) == sock_port(c1, 0) ? "ok" : "WRONG");
	lflags(L, "accepted_flags", a1);
	lr(L, "recv_accepted_empty", recv(a1, b, 8, 0));
	laddr(L, "accepted_sockname", a1, 0, port);
	laddr(L, "accepted_peername", a1, 1, sock_port(c1, 0));
	laddr(L, "c1_peername", c1, 1, port);
	lr(L, "c1_send", send(c1, "hello", 5, 0));
	lpoll(L, "accepted_poll", a1, POLLIN);
	lr(L, "accepted_read", read(a1, b, 8));
	c2 = sock_new(0);
	lr(L, "connect_c2", connect(c2, (void *)&a, al));
	a2 = accept(ls, NULL, NULL);
	lr(L, "accept_plain", a2 < 0 ? -1 : 0);
	lflags(L, "accept_plain_flags", a2);
	lr(L, "accept4_badflags", accept4(ls, NULL, NULL, 0x1));
	/* connection pending in queue, then listener closed: client sees reset */
	c3 = sock_new(0);
	lr(L, "connect_c3", connect(c3, (void *)&a, al));
	msleep(50);
	close(ls);
	lpoll(L, "c3_poll_after_listener_close", c3, POLLERR | POLLHUP);
	r = recv(c3, b, 8, 0);
	lr(L, "c3_recv", r);
	close(c1);
	close(c2);
	close(c3);
	close(a1);
	close(a2);
}

/* ---- race scenario (also used by `race` mode rounds) */
struct rthr {
	int fd, ep;
	int done;
	long long got;
	uint64_t sum;
	int err, mask;
	int early_err;	/* first error seen before data (e.g. ENOTCONN) */
};

static void *race_recv(void *a)
{
	struct rthr *t = a;
	char b[65536];
	uint64_t h = FNV_INIT;
	long long tot = 0;
	long end = now_ms() + 20000;

	for (;;) {
		ssize_t r = recv(t->fd, b, sizeof(b), 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && tot == 0 && (errno == ENOTCONN || errno == EAGAIN) &&
		    now_ms() < end) {
			/* not TCP-like while connecting; note and retry */
			if (!t->early_err)
				t->early_err = errno;
			msleep(1);
			continue;
		}
		if (r <= 0) {
			t->err = r < 0 ? errno : 0;
			break;
		}
		h = fnv(h, b, r);
		tot += r;
	}
	t->got = tot;
	t->sum = h;
	__atomic_store_n(&t->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void *race_poll(void *a)
{
	struct rthr *t = a;
	struct pollfd p = { .fd = t->fd, .events = POLLIN | POLLRDHUP };

	t->err = poll(&p, 1, 20000);
	t->mask = p.revents;
	__atomic_store_n(&t->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void *race_epoll(void *a)
{
	struct rthr *t = a;
	struct epoll_event ev;

	t->err = epoll_wait(t->ep, &ev, 1, 20000);
	t->mask = t->err > 0 ? (int)ev.events : 0;
	__atomic_store_n(&t->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static int join_bounded(pthread_t th, struct rthr *t, int ms)
{
	long end = now_ms() + ms;

	while (!__atomic_load_n(&t->done, __ATOMIC_SEQ_CST)) {
		if (now_ms() > end)
			return -1;
		msleep(1);
	}
	pthread_join(th, NULL);
	return 0;
}

#define RACE_SZ 262144
/* variant: 0 = threads wait during connect, server sends & closes (FIN)
 *          1 = connected, server closes (FIN) without data
 *          2 = connected, server aborts (RST)
 *          3 = own shutdown(SHUT_RDWR) while threads blocked */
static int race_round(struct cctx *C, int variant, int round, char *res, size_t rl)
{
	struct rthr tr = { 0 }, tp = { 0 }, te = { 0 };
	pthread_t hr, hp, he;
	struct epoll_event ev;
	unsigned char *exp;
	int fd = sock_new(SOCK_NONBLOCK), ep = epoll_create1(0), r, bad = 0;
	uint32_t seq = next_seq(C);
	uint64_t esum;

	if (fd < 0 || ep < 0)
		return snprintf(res, rl, "socket:%s", ename(errno)), 1;
	r = connect(fd, (void *)&C->srv, C->srvlen);
	if (r < 0 && errno != EINPROGRESS) {
		snprintf(res, rl, "connect:%s", ename(errno));
		close(fd);
		close(ep);
		return 1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	ev = (struct epoll_event){ .events = EPOLLIN | EPOLLRDHUP, .data.fd = fd };
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	tr.fd = tp.fd = te.fd = fd;
	te.ep = ep;
	if (variant == 0) {
		pthread_create(&hr, NULL, race_recv, &tr);
		pthread_create(&hp, NULL, race_poll, &tp);
		pthread_create(&he, NULL, race_epoll, &te);
	}
	/* wait for connection, send header */
	if (!(wait_mask(fd, POLLOUT, 10000) & POLLOUT))
		bad |= 1;
	if (send_hdr(fd, "race", seq, 0, variant) < 0)
		bad |= 2;
	if (variant != 0) {
		pthread_create(&hr, NULL, race_recv, &tr);
		pthread_create(&hp, NULL, race_poll, &tp);
		pthread_create(&he, NULL, race_epoll, &te);
		msleep(round % 3);
		if (variant == 3)
			shutdown(fd, SHUT_RDWR);
	}
	if (join_bounded(hr, &tr, 15000) < 0 || join_bounded(hp, &tp, 15000) < 0 ||
	    join_bounded(he, &te, 15000) < 0) {
		/* a thread hangs: unblock via shutdown, report, give up */
		shutdown(fd, SHUT_RDWR);
		snprintf(res, rl, "HANG recv=%d poll=%d epoll=%d", tr.done, tp.done, te.done);
		return 2;
	}
	exp = xmalloc(RACE_SZ);
	gen(exp, RACE_SZ, 4242);
	esum = fnv(FNV_INIT, exp, RACE_SZ);
	free(exp);
	snprintf(res, rl, "recv=%s got=%s early=%s poll=%s epoll=%s",
		 tr.err ? ename(tr.err) : "eof",
		 variant == 0 ? (tr.got == RACE_SZ && tr.sum == esum ? "intact" : "CORRUPT") :
		 (tr.got == 0 ? "0" : "DATA"),
		 tr.early_err ? ename(tr.early_err) : "none",
		 tp.err > 0 ? "woke" : tp.err == 0 ? "TIMEOUT" : ename(errno),
		 te.err > 0 ? "woke" : te.err == 0 ? "TIMEOUT" : "ERR");
	close(fd);
	close(ep);
	if (variant == 0 && !(tr.got == RACE_SZ && tr.sum == esum))
		bad |= 4;	/* data must arrive intact */
	return bad ? 1 : 0;
}

static void s_race(int fd, struct log *L, struct sinfo *S)
{
	unsigned char *b;
	struct linger lgr = { 1, 0 };

	(void)L;
	switch (S->arg) {
	case 0:
		b = xmalloc(RACE_SZ);
		gen(b, RACE_SZ, 4242);
		writen(fd, b, RACE_SZ);
		free(b);
		break;
	case 1:
		msleep(S->lport % 3);
		break;
	case 2:
		msleep(S->lport % 3);
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lgr, sizeof(lgr));
		break;
	default: {
		char x[16];

		recv(fd, x, sizeof(x), 0);	/* wait for client's shutdown */
		break;
	}
	}
}

/* sendfile racing with connection establishment and with the peer closing */
static int race_sendfile_round(struct cctx *C, int ff, size_t fsz, uint64_t fsum,
			       int early_close, char *res, size_t rl)
{
	int fd = sock_new(SOCK_NONBLOCK), r, serr = 0;
	off_t off = 0;
	ssize_t s = 0;
	char sumbuf[64];
	struct sender dummy;

	(void)dummy;
	r = connect(fd, (void *)&C->srv, C->srvlen);
	if (r < 0 && errno != EINPROGRESS)
		return snprintf(res, rl, "connect:%s", ename(errno)), close(fd), 1;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	/* the file begins with the request header: sendfile races the connect */
	while (off < (off_t)fsz) {
		s = sendfile(fd, ff, &off, fsz - off);
		if (s <= 0)
			break;
	}
	serr = errno;
	if (early_close) {
		snprintf(res, rl, "sendfile_returned=%s", "yes");
		close(fd);
		return 0;
	}
	shutdown(fd, SHUT_WR);
	memset(sumbuf, 0, sizeof(sumbuf));
	r = readn(fd, sumbuf, sizeof(sumbuf) - 1);
	{
		char want[64];

		snprintf(want, sizeof(want), "%zu %016llx", fsz - sizeof(struct hdr),
			 (unsigned long long)fsum);
		snprintf(res, rl, "sendfile=%s data=%s", s < 0 ? ename(serr) : "ok",
			 strcmp(sumbuf, want) ? "CORRUPT" : "intact");
		r = strcmp(sumbuf, want) ? 1 : 0;
	}
	close(fd);
	return r;
}

static void s_race_sf(int fd, struct log *L, struct sinfo *S)
{
	char *b = xmalloc(65536), out[64];
	long long tot = 0;
	uint64_t h = FNV_INIT;

	(void)L;
	for (;;) {
		ssize_t r = recv(fd, b, 65536, 0);

		if (r <= 0)
			break;
		h = fnv(h, b, r);
		tot += r;
		if (S->arg && tot > 100000)
			break;	/* early close */
	}
	if (!S->arg) {
		snprintf(out, sizeof(out), "%lld %016llx", tot, (unsigned long long)h);
		writen(fd, out, strlen(out));
	}
	free(b);
}

/* sendfile race rounds per variant; -1: rounds / 4 + 1 */
static int g_sf_rounds = -1;

static int run_race(struct cctx *C, int rounds, struct log *L)
{
	static const char *vn[] = { "during_connect", "peer_fin", "peer_rst", "self_shutdown" };
	char res[256], prev[256], st[64];
	int v, i, fails = 0;

	for (v = 0; v < 4; v++) {
		int ndiff = 0;

		prev[0] = 0;
		for (i = 0; i < rounds; i++) {
			int r = race_round(C, v, i, res, sizeof(res));

			if (r == 2)
				die("race %s round %d: %s", vn[v], i, res);
			if (r)
				fails++;
			if (prev[0] && strcmp(prev, res))
				ndiff++;
			if (!prev[0] || strcmp(prev, res)) {
				snprintf(st, sizeof(st), "%s_r%d", vn[v], i);
				if (!prev[0])
					snprintf(st, sizeof(st), "%s", vn[v]);
				lg(L, st, "%s", res);
			}
			snprintf(prev, sizeof(prev), "%s", res);
		}
		lg(L, vn[v], "rounds=%d", rounds);
	}
	/* sendfile racing connection establishment (file starts with header) */
	for (v = 0; v < 2 && g_sf_rounds; v++) {
		size_t fsz = sizeof(struct hdr) + 2 * 1048576;
		unsigned char *b = xmalloc(fsz);
		char path[] = "/tmp/sockdiff-race.XXXXXX";
		struct hdr h;
		int ff = mkstemp(path);
		uint64_t fsum;

		if (ff < 0)
			die("mkstemp");
		unlink(path);
		gen(b, fsz, 777);
		memset(&h, 0, sizeof(h));
		memcpy(h.magic, MAGIC, 8);
		snprintf(h.scen, sizeof(h.scen), "race_sf");
		h.arg = htonl(v);
		memcpy(b, &h, sizeof(h));
		fsum = fnv(FNV_INIT, b + sizeof(h), fsz - sizeof(h));
		if (write(ff, b, fsz) != (ssize_t)fsz)
			die("write");
		free(b);
		prev[0] = 0;
		for (i = 0; i < (g_sf_rounds < 0 ? rounds / 4 + 1 : g_sf_rounds); i++) {
			fails += race_sendfile_round(C, ff, fsz, fsum, v, res, sizeof(res));
			if (!prev[0] || strcmp(prev, res)) {
				snprintf(st, sizeof(st), "sendfile_%s_r%d", v ? "peer_close" : "connect", i);
				lg(L, st, "%s", res);
			}
			snprintf(prev, sizeof(prev), "%s", res);
		}
		close(ff);
	}
	return fails;
}

/* ------------------------------------------------------------- registry */
enum { PEER = 1, LOCAL = 2 };
struct scen {
	const char *name;
	int kind;
	void (*cfn)(struct cctx *, struct log *);
	const char *sname;	/* server half name (header) */
};

static const struct scen scens[] = {
	{ "connect", PEER, c_connect, "connect" },
	{ "echo_1", PEER, c_echo_1, "echo" },
	{ "echo_100", PEER, c_echo_100, "echo" },
	{ "echo_4k", PEER, c_echo_4096, "echo" },
	{ "echo_64k", PEER, c_echo_65536, "echo" },
	{ "echo_1m", PEER, c_echo_1048576, "echo" },
	{ "echo_8m", PEER, c_echo_8388608, "echo" },
	{ "iocalls", PEER, c_iocalls, "iocalls" },
	{ "msgflags", PEER, c_msgflags, "msgflags" },
	{ "shutwr", PEER, c_shutwr, "shutwr" },
	{ "shutrd", PEER, c_shutrd, "shutrd" },
	{ "shutrdwr", PEER, c_shutrdwr, "shutrdwr" },
	{ "close", PEER, c_close, "close" },
	{ "rst", PEER, c_rst, "rst" },
	{ "closeunread", PEER, c_closeunread, "closeunread" },
	{ "rcvlowat", PEER, c_rcvlowat, "rcvlowat" },
	{ "oob", PEER, c_oob, "oob" },
	{ "poll", PEER, c_poll, "poll" },
	{ "epoll", PEER, c_epoll, "epoll" },
	{ "nbconnect", PEER, c_nbconnect, "nbconnect" },
	{ "refused", PEER, c_refused, NULL },
	{ "sockopt", PEER, c_sockopt, "sockopt" },
	{ "timeouts", PEER, c_timeouts, "timeouts" },
	{ "ioctl", PEER, c_ioctl, "ioctl" },
	{ "sendfile", PEER, c_sendfile, "echo" },
	{ "splice", PEER, c_splice, "splice" },
	{ "many", PEER, c_many, NULL },
	{ "sockapi", LOCAL, c_sockapi, NULL },
	{ "bind", LOCAL, c_bind, NULL },
	{ "accept", LOCAL, c_accept, NULL },
};
#define NSCEN ((int)(sizeof(scens) / sizeof(scens[0])))

struct shalf {
	const char *name;
	void (*sfn)(int, struct log *, struct sinfo *);
};

static const struct shalf shalves[] = {
	{ "connect", s_connect }, { "echo", s_echo }, { "iocalls", s_iocalls },
	{ "msgflags", s_msgflags }, { "shutwr", s_shutwr }, { "shutrd", s_shutrd },
	{ "shutrdwr", s_shutrdwr }, { "close", s_close }, { "rst", s_rst },
	{ "closeunread", s_closeunread }, { "rcvlowat", s_rcvlowat }, { "oob", s_oob },
	{ "poll", s_poll }, { "epoll", s_epoll }, { "nbconnect", s_nbconnect },
	{ "sockopt", s_sockopt }, { "timeouts", s_timeouts }, { "ioctl", s_ioctl },
	{ "splice", s_splice }, { "race", s_race }, { "race_sf", s_race_sf },
};

/* --------------------------------------------------------------- server */
#define NSLOT 1024
struct slot {
	uint32_t seq;
	int state;	/* 0 empty, 1 running, 2 done */
	char *text;
};
static struct slot slots[NSLOT];
static pthread_mutex_t slot_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t slot_cv = PTHREAD_COND_INITIALIZER;
static volatile int srv_quit;
static int srv_closed_port;
static int srv_lport;

struct sconn {
	int fd;
	int nb, ce;
};

static void serve_report(int fd, uint32_t seq)
{
	struct slot *s = &slots[seq % NSLOT];
	struct timespec ts;
	const char *txt = NULL;
	char *copy;
	uint32_t n;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 60;
	pthread_mutex_lock(&slot_mu);
	while (!(s->seq == seq && s->state == 2) && rc == 0)
		rc = pthread_cond_timedwait(&slot_cv, &slot_mu, &ts);
	if (s->seq == seq && s->state == 2)
		txt = s->text;
	copy = strdup(txt ? txt : "* S 00.server TIMEOUT\n");
	pthread_mutex_unlock(&slot_mu);
	if (!copy)
		die("oom");
	n = htonl(strlen(copy));
	writen(fd, &n, 4);
	writen(fd, copy, strlen(copy));
	free(copy);
}

static void *conn_thr(void *a)
{
	struct sconn *sc = a;
	int fd = sc->fd;
	struct hdr h;
	struct sinfo S = { .accept_nonblock = sc->nb, .accept_cloexec = sc->ce, .lport = srv_lport };
	struct log L;
	struct slot *slot = NULL;
	size_t i;
	uint32_t seq;
	int report;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t got = -2;

	free(sc);
	if (poll(&p, 1, 30000) <= 0 ||
	    (got = readn(fd, &h, sizeof(h))) != sizeof(h) ||
	    memcmp(h.magic, MAGIC, 8)) {
		/* no client of ours: nothing to report but to the log */
		fprintf(stderr, "sockdiff: peer port %d: no request header (read %zd of %zu, %s)\n",
			sock_port(fd, 1), got, sizeof(h), strerror(errno));
		close(fd);
		return NULL;
	}
	h.scen[sizeof(h.scen) - 1] = 0;
	seq = ntohl(h.seq);
	report = ntohl(h.flags) & HF_REPORT;
	S.arg = ntohl(h.arg);
	if (!strcmp(h.scen, "QUIT")) {
		srv_quit = 1;
		writen(fd, "bye", 3);
		close(fd);
		return NULL;
	}
	if (!strcmp(h.scen, "REPORT")) {
		serve_report(fd, seq);
		close(fd);
		return NULL;
	}
	if (!strcmp(h.scen, "CLOSEDPORT")) {
		uint16_t pp = htons(srv_closed_port);

		writen(fd, &pp, 2);
		close(fd);
		return NULL;
	}
	if (!strcmp(h.scen, "race"))
		S.lport = seq;	/* per-round jitter */
	if (report) {
		slot = &slots[seq % NSLOT];
		pthread_mutex_lock(&slot_mu);
		free(slot->text);
		slot->text = NULL;
		slot->seq = seq;
		slot->state = 1;
		pthread_mutex_unlock(&slot_mu);
	}
	log_init(&L, "?", 'S');
	for (i = 0; i < sizeof(shalves) / sizeof(shalves[0]); i++) {
		if (!strcmp(shalves[i].name, h.scen)) {
			shalves[i].sfn(fd, &L, &S);
			break;
		}
	}
	if (i == sizeof(shalves) / sizeof(shalves[0]) && report)
		lg(&L, "unknown_scenario", "%s", h.scen);
	close(fd);
	if (slot) {
		pthread_mutex_lock(&slot_mu);
		slot->text = L.buf ? L.buf : strdup("");
		slot->state = 2;
		pthread_cond_broadcast(&slot_cv);
		pthread_mutex_unlock(&slot_mu);
	} else {
		free(L.buf);
	}
	return NULL;
}

struct srvargs {
	int lfd;
	int timeout;
};

static void *server_loop(void *a)
{
	struct srvargs *sa = a;
	long end = now_ms() + sa->timeout * 1000L;

	while (!srv_quit && now_ms() < end) {
		struct pollfd p = { .fd = sa->lfd, .events = POLLIN };
		struct sconn *sc;
		pthread_t th;
		pthread_attr_t at;
		int fd;

		if (poll(&p, 1, 200) <= 0)
			continue;
		fd = accept4(sa->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
				continue;
			die("accept: %s", strerror(errno));
		}
		sc = xmalloc(sizeof(*sc));
		sc->fd = fd;
		sc->nb = !!(fcntl(fd, F_GETFL) & O_NONBLOCK);
		sc->ce = !!(fcntl(fd, F_GETFD) & FD_CLOEXEC);
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&th, &at, conn_thr, sc))
			die("pthread_create");
		pthread_attr_destroy(&at);
	}
	return NULL;
}

static int server_setup(const char *bindip, int port)
{
	struct sockaddr_storage a;
	socklen_t al = mkaddr(&a, bindip, port);
	int fd = sock_new(SOCK_NONBLOCK), cfd;

	if (fd < 0)
		die("socket(%s): %s", g_smc ? "AF_SMC" : "AF_INET", strerror(errno));
	setint(fd, SOL_SOCKET, SO_REUSEADDR, 1);
	if (bind(fd, (void *)&a, al) < 0)
		die("bind port %d: %s", port, strerror(errno));
	if (listen(fd, 256) < 0)
		die("listen: %s", strerror(errno));
	srv_lport = sock_port(fd, 0);
	/* a bound but not listening port: connecting there is refused */
	cfd = sock_new(0);
	setport(&a, 0);
	if (cfd < 0 || bind(cfd, (void *)&a, al) < 0)
		die("bind closed port: %s", strerror(errno));
	srv_closed_port = sock_port(cfd, 0);
	return fd;
}

/* --------------------------------------------------------------- client */
static int fetch_report(struct cctx *C, uint32_t seq, struct log *out)
{
	int fd, r = -1;
	uint32_t n;
	char *t;

	fd = sock_new(0);
	if (fd < 0 || connect(fd, (void *)&C->srv, C->srvlen) < 0 ||
	    send_hdr(fd, "REPORT", seq, 0, 0) < 0)
		goto out;
	if (readn(fd, &n, 4) != 4)
		goto out;
	n = ntohl(n);
	if (n > (64u << 20))
		goto out;
	t = xmalloc(n + 1);
	if (readn(fd, t, n) == (ssize_t)n) {
		char *line = t, *nl;

		t[n] = 0;
		/* server lines start with "? S": substitute scenario name */
		while (*line && (nl = strchr(line, '\n'))) {
			*nl = 0;
			if (!strncmp(line, "? ", 2) || !strncmp(line, "* ", 2)) {
				log_raw(out, out->scen, strlen(out->scen));
				log_raw(out, line + 1, strlen(line + 1));
			} else {
				log_raw(out, line, strlen(line));
			}
			log_raw(out, "\n", 1);
			line = nl + 1;
		}
		r = 0;
	}
	free(t);
out:
	if (fd >= 0)
		close(fd);
	return r;
}

/* is `name` an element of the comma separated `list`? */
static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while (*p) {
		size_t k = strcspn(p, ",");

		if (k == n && !strncmp(p, name, n))
			return 1;
		p += k;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* run the scenarios, each in a child process bounded by SCEN_TIMEOUT (a hang
 * or crash is recorded in the transcript and the run goes on); returns the
 * number of hung or crashed scenarios */
static int run_client(struct cctx *C, const char *only, int kinds, FILE *out)
{
	int i, ran = 0, failed = 0, pp[2];
	pid_t pid;

	fprintf(out, "# sockdiff transcript v1 %s\n", g_v6 ? "ipv6" : "ipv4");
	for (i = 0; i < NSCEN; i++) {
		struct log L, S;
		long t0 = now_ms();

		if (!(scens[i].kind & kinds))
			continue;
		if (only && !in_list(only, scens[i].name))
			continue;
		ran++;
		g_cur = scens[i].name;
		C->nseq = i * 256;	/* distinct report keys per scenario */
		fflush(out);
		fflush(stderr);
		if (pipe(pp) < 0)
			die("pipe: %s", strerror(errno));
		pid = fork();
		if (pid < 0)
			die("fork: %s", strerror(errno));
		if (pid == 0) {
			/* child: run one scenario, transcript into the pipe */
			close(pp[0]);
			alarm(SCEN_TIMEOUT + 5);
			log_init(&L, scens[i].name, 'C');
			L.tee = pp[1];	/* lines survive a hang */
			C->scen = scens[i].sname ? scens[i].sname : scens[i].name;
			C->have_report = 0;
			scens[i].cfn(C, &L);
			if (C->have_report && scens[i].sname) {
				log_init(&S, scens[i].name, 'S');
				if (fetch_report(C, C->seq, &S) < 0)
					lg(&L, "report_fetch", "FAILED");
				else if (S.buf)
					log_raw(&L, S.buf, S.len);
				free(S.buf);
			}
			_exit(0);
		}
		close(pp[1]);
		/* parent: collect, bounded by SCEN_TIMEOUT */
		{
			char buf[65536];
			long end = now_ms() + SCEN_TIMEOUT * 1000L;
			int st = 0, timed_out = 0;

			for (;;) {
				struct pollfd p = { .fd = pp[0], .events = POLLIN };
				long left = end - now_ms();
				ssize_t r;

				if (left <= 0) {
					timed_out = 1;
					break;
				}
				if (poll(&p, 1, left) <= 0)
					continue;
				r = read(pp[0], buf, sizeof(buf));
				if (r < 0 && errno == EINTR)
					continue;
				if (r <= 0)
					break;
				fwrite(buf, 1, r, out);
			}
			close(pp[0]);
			if (timed_out)
				kill(pid, SIGKILL);
			if (waitpid(pid, &st, 0) < 0)
				die("waitpid: %s", strerror(errno));
			if (timed_out) {
				fprintf(out, "%s C 99.HANG killed after %ds\n", scens[i].name, SCEN_TIMEOUT);
				fprintf(stderr, "sockdiff: %s: HANG, killed after %d s\n",
					scens[i].name, SCEN_TIMEOUT);
				failed++;
			} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
				fprintf(out, "%s C 99.CHILD_FAILED status=0x%x\n", scens[i].name, st);
				fprintf(stderr, "sockdiff: %s: child failed (status 0x%x)\n",
					scens[i].name, st);
				failed++;
			}
		}
		fflush(out);
		fprintf(stderr, "sockdiff: %-10s done in %ld ms\n", scens[i].name, now_ms() - t0);
	}
	g_cur = "-";
	if (only && !ran)
		die("no such scenario: %s", only);
	return failed;
}

static void send_quit(struct cctx *C)
{
	int fd = cconn_ex(C, NULL, "QUIT", 0, 0);
	char b[4];

	if (fd >= 0) {
		readn(fd, b, 3);
		close(fd);
	}
}

/* -------------------------------------------------------------- compare */
struct tline {
	char *key, *val;
	int used;
};

static struct tline *load(const char *path, int *n)
{
	FILE *f = fopen(path, "r");
	struct tline *t = NULL;
	char *line = NULL;
	size_t cap = 0;
	int cnt = 0, alloc = 0;

	if (!f)
		die("open %s: %s", path, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		char *p, *sp;
		int k = 0;

		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#' || !line[0])
			continue;
		/* key = first three fields */
		for (p = line, sp = NULL; *p; p++) {
			if (*p == ' ' && ++k == 3) {
				sp = p;
				break;
			}
		}
		if (cnt == alloc) {
			alloc = alloc * 2 + 64;
			t = realloc(t, alloc * sizeof(*t));
			if (!t)
				die("oom");
		}
		if (sp) {
			char *dot = strchr(line, '.');
			int occ = 0, j;

			*sp = 0;
			/* key: "scen side name#occurrence" (drop the NN. index so
			 * that one extra/missing step does not shift the rest) */
			if (dot && dot < sp) {
				char *q = line + strcspn(line, " ");

				q += strspn(q, " ");
				q += strcspn(q, " ");
				memmove(q + 1, dot + 1, strlen(dot + 1) + 1);
			}
			for (j = 0; j < cnt; j++) {
				size_t kl = strcspn(t[j].key, "#");

				if (kl == strlen(line) && !strncmp(t[j].key, line, kl))
					occ++;
			}
			if (asprintf(&t[cnt].key, "%s#%d", line, occ) < 0)
				die("oom");
			t[cnt].val = strdup(sp + 1);
		} else {
			t[cnt].key = strdup(line);
			t[cnt].val = strdup("");
		}
		t[cnt].used = 0;
		cnt++;
	}
	free(line);
	fclose(f);
	*n = cnt;
	return t;
}

/* scenario name of a key ("scen side name#k") */
static size_t scen_len(const char *key)
{
	return strcspn(key, " ");
}

#define MAXPER 12	/* differences printed per scenario */

/* print one difference unless the scenario already had MAXPER of them */
static void pdiff(int *cnt, const char *fmt, ...)
{
	va_list ap;

	if (++*cnt > MAXPER)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

static int do_compare(const char *pa, const char *pb)
{
	int na, nb, i, j, diffs = 0, per = 0;
	struct tline *a = load(pa, &na), *b = load(pb, &nb);
	const char *cur = "";
	size_t cl = 0;

	for (i = 0; i < na; i++) {
		if (scen_len(a[i].key) != cl || strncmp(a[i].key, cur, cl)) {
			if (per > MAXPER)
				printf("  ... %d more difference(s) in %.*s\n", per - MAXPER, (int)cl, cur);
			cur = a[i].key;
			cl = scen_len(cur);
			per = 0;
		}
		for (j = 0; j < nb; j++)
			if (!b[j].used && !strcmp(a[i].key, b[j].key))
				break;
		if (j == nb) {
			pdiff(&per, "only in A: %s %s\n", a[i].key, a[i].val);
			diffs++;
			continue;
		}
		b[j].used = 1;
		if (strcmp(a[i].val, b[j].val)) {
			pdiff(&per, "differs:   %s\n    A: %s\n    B: %s\n", a[i].key, a[i].val, b[j].val);
			diffs++;
		}
	}
	if (per > MAXPER)
		printf("  ... %d more difference(s) in %.*s\n", per - MAXPER, (int)cl, cur);
	for (j = 0; j < nb; j++)
		if (!b[j].used) {
			printf("only in B: %s %s\n", b[j].key, b[j].val);
			diffs++;
		}
	if (na == 0 || nb == 0) {
		printf("empty transcript: A=%d lines B=%d lines\n", na, nb);
		diffs++;
	}
	printf("%d difference(s) (%d vs %d lines)\n", diffs, na, nb);
	return diffs ? 1 : 0;
}

/* ----------------------------------------------------------------- main */
static void usage(void)
{
	fprintf(stderr,
		"usage: sockdiff server --port P [--family inet|smc] [--v6] [--bind IP] [--timeout S]\n"
		"       sockdiff client --host IP --port P [--family inet|smc] [--v6] --out FILE [--only NAME,...] [--quit]\n"
		"       sockdiff local  [--family inet|smc] [--v6] [--host LOCALIP] --out FILE [--only NAME,...]\n"
		"       sockdiff race   --host IP --port P [--family inet|smc] [--v6] [--rounds N] [--sf-rounds N] [--out FILE] [--quit]\n"
		"       sockdiff quit   --host IP --port P [--family inet|smc] [--v6]   (stop a server)\n"
		"       sockdiff compare A B\n"
		"       sockdiff list\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *mode, *host = NULL, *outp = NULL, *only = NULL, *bindip = NULL;
	int port = -1, timeout = 600, rounds = 50, quit = 0, i, rc = 0;
	struct cctx C;
	FILE *out = stdout;

	if (argc < 2)
		usage();
	mode = argv[1];
	signal(SIGPIPE, SIG_IGN);
	signal(SIGALRM, on_alarm);
	if (!strcmp(mode, "compare")) {
		if (argc != 4)
			usage();
		return do_compare(argv[2], argv[3]);
	}
	if (!strcmp(mode, "list")) {
		for (i = 0; i < NSCEN; i++)
			printf("%s %s\n", scens[i].name, scens[i].kind == PEER ? "peer" : "local");
		return 0;
	}
	for (i = 2; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--v6")) {
			g_v6 = 1;
		} else if (!strcmp(o, "--quit")) {
			quit = 1;
		} else if (!v) {
			usage();
		} else if (!strcmp(o, "--family")) {
			if (!strcmp(v, "smc"))
				g_smc = 1;
			else if (strcmp(v, "inet"))
				usage();
			i++;
		} else if (!strcmp(o, "--port")) {
			port = atoi(v), i++;
		} else if (!strcmp(o, "--host")) {
			host = v, i++;
		} else if (!strcmp(o, "--bind")) {
			bindip = v, i++;
		} else if (!strcmp(o, "--out")) {
			outp = v, i++;
		} else if (!strcmp(o, "--only")) {
			only = v, i++;
		} else if (!strcmp(o, "--timeout")) {
			timeout = atoi(v), i++;
		} else if (!strcmp(o, "--rounds")) {
			rounds = atoi(v), i++;
		} else if (!strcmp(o, "--sf-rounds")) {
			g_sf_rounds = atoi(v), i++;
		} else {
			usage();
		}
	}
	if (outp && !(out = fopen(outp, "w")))
		die("open %s: %s", outp, strerror(errno));
	memset(&C, 0, sizeof(C));
	C.runid = (getpid() ^ (uint32_t)time(NULL)) & 0xffff;

	if (!strcmp(mode, "server")) {
		struct srvargs sa;

		if (port < 0)
			usage();
		alarm(timeout + 30);
		sa.lfd = server_setup(bindip ? bindip : (g_v6 ? "::" : "0.0.0.0"), port);
		sa.timeout = timeout;
		fprintf(stderr, "sockdiff: server (%s%s) listening on port %d\n",
			g_smc ? "smc" : "inet", g_v6 ? ",v6" : "", srv_lport);
		server_loop(&sa);
		msleep(500);	/* let in-flight report requests finish */
		return 0;
	}
	if (!strcmp(mode, "client") || !strcmp(mode, "race") || !strcmp(mode, "quit")) {
		if (!host || port < 0)
			usage();
		C.host = host;
		C.port = port;
		C.srvlen = mkaddr(&C.srv, host, port);
		if (!strcmp(mode, "quit")) {
			alarm(30);
			quit = 1;
		} else if (!strcmp(mode, "client")) {
			rc = run_client(&C, only, PEER, out) ? 1 : 0;
		} else {
			struct log L;
			int f;

			alarm(timeout);
			g_cur = "race";
			log_init(&L, "race", 'C');
			f = run_race(&C, rounds, &L);
			fprintf(out, "# sockdiff transcript v1 %s\n", g_v6 ? "ipv6" : "ipv4");
			if (L.buf)
				fputs(L.buf, out);
			free(L.buf);
			if (f) {
				fprintf(stderr, "sockdiff: race: %d failed rounds\n", f);
				rc = 1;
			}
		}
		if (quit)
			send_quit(&C);
		if (out != stdout && fclose(out))
			die("write %s: %s", outp, strerror(errno));
		return rc;
	}
	if (!strcmp(mode, "local")) {
		struct srvargs sa;
		pthread_t th;

		/* --host: a local address other than loopback for the peer
		 * scenarios (e.g. the VM's eth0 address, so SMC-R can use RoCE) */
		if (!host)
			host = lo_ip();
		sa.lfd = server_setup(host, 0);
		sa.timeout = timeout;
		pthread_create(&th, NULL, server_loop, &sa);
		C.host = host;
		C.port = srv_lport;
		C.srvlen = mkaddr(&C.srv, host, srv_lport);
		rc = run_client(&C, only, PEER | LOCAL, out) ? 1 : 0;
		srv_quit = 1;
		pthread_join(th, NULL);
		if (out != stdout && fclose(out))
			die("write %s: %s", outp, strerror(errno));
		return rc;
	}
	usage();
	return 2;
}
