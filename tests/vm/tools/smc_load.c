// SPDX-License-Identifier: GPL-2.0
/*
 * smc_load - verified transfers over many AF_SMC (or AF_INET) connections:
 * all at once, or many short ones one after the other.
 *
 *   smc_load -s [-f smc|inet] [-p PORT] [-n CONNS] [-q] [-t SECS]
 *   smc_load -c IP [-f smc|inet] [-p PORT] [-N CONNS | -R CYCLES]
 *            [-P THREADS] [-B BYTES] [-m echo|stream] [-k CHUNK] [-S SEED]
 *            [-G FILE] [-W FILE] [-M smcr|fallback|smcd] [-q] [-t SECS]
 *
 * Every connection moves BYTES (default 1 MiB) of seeded pseudo-random
 * data, checked on both sides:
 *
 *   echo    the server sends every byte back; the client writes (helper
 *           thread) and reads at the same time, checks each byte it gets
 *           back against the pattern and compares the checksums of what
 *           it sent and what came back.
 *   stream  one way: the client sends the data and then its checksum; the
 *           server checks the bytes and the checksum and answers "OK" or
 *           "FAIL" in one line, which the client waits for.
 *
 * Each connection starts with a 32-byte header (magic, mode, connection
 * number, length, seed), so the server regenerates the expected data and
 * checks it in both modes.  A connection that closes before it sent a
 * header (a port probe) is not counted.  The client ends a connection with
 * shutdown(SHUT_WR) and then wants the server's close without more data.
 *
 * Data: byte o of a connection is byte (o % 8) (little-endian) of the
 * 64-bit word splitmix64(seed + (o / 8) * golden); every connection has its
 * own seed (derived from -S and its number).  Checksum: 64-bit FNV-1a over
 * the data taken as little-endian 64-bit words (a short last word is
 * zero-padded), then over the length; it does not depend on how reads and
 * writes split the stream.
 *
 * Server: one thread, epoll over the listener and every connection (so
 * thousands of held connections cost no thread or stack each).  It prints
 * one line per counted connection ("smc_load: server conn=... ok" or
 * "... FAILED: why"; -q: the failed ones only) and stops after -n CONNS
 * counted connections, or on SIGTERM/SIGINT, with
 * "server accepted=N closed=N bytes=B errors=N" and "conns=N bytes=B ok"
 * (or "... FAILED"); bytes: payload of the connections that passed.
 *
 * Client, -N CONNS (concurrent, default 1): THREADS threads (default one
 * per connection, at most 4096) share the connections.  All connections
 * are opened before any sends data; then each thread moves the data of
 * its connections one after the other; all of them stay open until every
 * connection is done, and then close.  -G FILE: once all connect()s
 * returned, print "connected N connections" and wait until FILE exists
 * before sending (so several clients can start their data at the same
 * time, after all handshakes).  -W FILE: once every connection moved its
 * data, keep all of them open (before shutdown) and print "holding N
 * connections" until FILE exists, so that a test can look at the live
 * sockets.  -M MODE: then ask the kernel (AF_SMC sock_diag) for the mode
 * of every connected socket, print "modes smcr=N fallback=N smcd=N
 * unknown=N" and fail unless all are in MODE.
 *
 * Client, -R CYCLES (short): THREADS threads (default 16) run CYCLES
 * connect, header, data, shutdown, close cycles between them.
 *
 * The client prints the time of each phase with connect latency
 * (min/avg/max), one line per connection ("smc_load: client conn=... ok" or
 * "... FAILED: why"; -q: the failed ones only), and ends with "conns=N
 * bytes=TOTAL ok" (TOTAL: bytes verified over all connections) or "...
 * FAILED".  -t SECS: after SECS, print where every connection (server: how
 * many) stands and exit with code 3.  Exit code 0 only when every
 * connection passed (and, with -M, was in that mode).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/netlink.h>
#include <linux/smc_diag.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_SMC
#define AF_SMC 43
#endif
#define SMCPROTO_SMC 0

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL
#define GOLDEN 0x9e3779b97f4a7c15ULL

#define MAGIC "SMCLOAD1"
#define HDR_LEN 32
#define TRAILER_LEN 16
#define MODE_ECHO 1
#define MODE_STREAM 2
#define STATUS_LEN 64
#define MAX_THREADS 4096
#define MAX_CONNS (1L << 20)

/* progress of a connection, for the watchdog's report */
#define PROGRESS(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELAXED)
#define PEEK(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

static int family = AF_SMC;
static const char *family_name = "smc";
static size_t chunk = 64 << 10;
static bool quiet;
static unsigned int timeout;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "smc_load: out of memory\n");
		exit(1);
	}
	return p;
}

/* ---- data pattern and checksum ---- */

static uint64_t splitmix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t pattern_word(uint64_t seed, uint64_t idx)
{
	return splitmix(seed + idx * GOLDEN);
}

/* the @n pattern bytes at stream offset @off */
static void pattern_fill(unsigned char *p, uint64_t seed, uint64_t off,
			 size_t n)
{
	uint64_t w;

	while (n && (off & 7)) {
		*p++ = (unsigned char)(pattern_word(seed, off >> 3) >>
				       (8 * (off & 7)));
		off++;
		n--;
	}
	while (n >= 8) {
		w = htole64(pattern_word(seed, off >> 3));
		memcpy(p, &w, 8);
		p += 8;
		off += 8;
		n -= 8;
	}
	while (n) {
		*p++ = (unsigned char)(pattern_word(seed, off >> 3) >>
				       (8 * (off & 7)));
		off++;
		n--;
	}
}

/* offset of the first byte of @p that differs from the pattern, or -1 */
static long long pattern_check(const unsigned char *p, uint64_t seed,
			       uint64_t off, size_t n, unsigned char *scratch)
{
	size_t i;

	pattern_fill(scratch, seed, off, n);
	if (!memcmp(p, scratch, n))
		return -1;
	for (i = 0; p[i] == scratch[i]; i++)
		;
	return (long long)(off + i);
}

struct csum {
	uint64_t h, pend, len;
	unsigned int npend;
};

static void csum_init(struct csum *c)
{
	memset(c, 0, sizeof(*c));
	c->h = FNV_OFFSET;
}

static void csum_word(struct csum *c, uint64_t w)
{
	c->h ^= w;
	c->h *= FNV_PRIME;
}

static void csum_add(struct csum *c, const unsigned char *p, size_t n)
{
	uint64_t w;

	c->len += n;
	while (n && c->npend) {
		c->pend |= (uint64_t)*p++ << (8 * c->npend);
		n--;
		if (++c->npend == 8) {
			csum_word(c, c->pend);
			c->pend = 0;
			c->npend = 0;
		}
	}
	while (n >= 8) {
		memcpy(&w, p, 8);
		csum_word(c, le64toh(w));
		p += 8;
		n -= 8;
	}
	while (n) {
		c->pend |= (uint64_t)*p++ << (8 * c->npend);
		c->npend++;
		n--;
	}
}

static uint64_t csum_final(const struct csum *c)
{
	struct csum f = *c;

	if (f.npend)
		csum_word(&f, f.pend);
	csum_word(&f, f.len);
	return f.h;
}


/* ---- socket helpers ---- */

/* a new socket of the -f family, or -errno */
static int new_socket(void)
{
	int fd;

	if (family == AF_SMC)
		fd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, SMCPROTO_SMC);
	else
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

static int write_all(int fd, const void *buf, size_t n)
{
	const unsigned char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* after our shutdown(SHUT_WR): the peer must close without more data */
static int expect_eof(int fd, char *err, size_t errlen)
{
	unsigned char c;
	ssize_t r;

	do {
		r = read(fd, &c, 1);
	} while (r < 0 && errno == EINTR);
	if (r < 0) {
		snprintf(err, errlen, "read at close: %s", strerror(errno));
		return -1;
	}
	if (r > 0) {
		snprintf(err, errlen, "unexpected data at close");
		return -1;
	}
	return 0;
}

struct hdr {
	uint32_t mode, idx;
	uint64_t bytes, seed;
};

static void hdr_pack(unsigned char *b, const struct hdr *h)
{
	uint32_t v32;
	uint64_t v64;

	memcpy(b, MAGIC, 8);
	v32 = htobe32(h->mode);
	memcpy(b + 8, &v32, 4);
	v32 = htobe32(h->idx);
	memcpy(b + 12, &v32, 4);
	v64 = htobe64(h->bytes);
	memcpy(b + 16, &v64, 8);
	v64 = htobe64(h->seed);
	memcpy(b + 24, &v64, 8);
}

static int hdr_unpack(const unsigned char *b, struct hdr *h)
{
	uint32_t v32;
	uint64_t v64;

	if (memcmp(b, MAGIC, 8))
		return -1;
	memcpy(&v32, b + 8, 4);
	h->mode = be32toh(v32);
	memcpy(&v32, b + 12, 4);
	h->idx = be32toh(v32);
	memcpy(&v64, b + 16, 8);
	h->bytes = be64toh(v64);
	memcpy(&v64, b + 24, 8);
	h->seed = be64toh(v64);
	return h->mode == MODE_ECHO || h->mode == MODE_STREAM ? 0 : -1;
}

static const char *mode_str(uint32_t mode)
{
	return mode == MODE_ECHO ? "echo" : "stream";
}

/* -t: the watchdog reports through this and exits with code 3 */
static void (*wd_report)(void);

static void *watchdog(void *arg)
{
	double end = now() + timeout;

	(void)arg;
	while (now() < end)
		usleep(200 * 1000);
	if (wd_report)
		wd_report();
	printf("smc_load: timed out after %us\n", timeout);
	fflush(stdout);
	fprintf(stderr, "smc_load: timed out after %us\n", timeout);
	_exit(3);
}

static void start_watchdog(void (*report)(void))
{
	pthread_t tid;

	wd_report = report;
	if (!timeout)
		return;
	if (pthread_create(&tid, NULL, watchdog, NULL)) {
		fprintf(stderr, "smc_load: pthread_create failed\n");
		exit(1);
	}
	pthread_detach(tid);
}

/* ---- server: one thread, epoll over every connection ---- */

enum srv_state { S_HDR, S_DATA, S_TRAILER, S_STATUS, S_EOF };

struct srv_conn {
	int fd;
	enum srv_state state;
	bool active;		/* sent something: counted when it ends */
	unsigned char hb[HDR_LEN];
	unsigned char trailer[TRAILER_LEN];
	size_t got;		/* bytes in hb or trailer */
	struct hdr h;
	unsigned long long off;	/* data bytes received */
	struct csum c;
	unsigned char *out;	/* still to send: echoed data or the status */
	size_t out_len, out_off;
	double t0;
	char err[160];
	char peer[INET_ADDRSTRLEN];
};

static int srv_ep;
static unsigned char *srv_buf, *srv_exp;
static long srv_accepted, srv_closed, srv_errors;
static long srv_counted, srv_failed, srv_active;
static unsigned long long srv_bytes;
static volatile sig_atomic_t srv_stop;

static void srv_on_stop(int sig)
{
	(void)sig;
	srv_stop = 1;
}

static void __attribute__((format(printf, 2, 3)))
srv_fail(struct srv_conn *sc, const char *fmt, ...)
{
	va_list ap;

	if (sc->err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(sc->err, sizeof(sc->err), fmt, ap);
	va_end(ap);
}

/* the connection is over (passed unless it has an error): count, close */
static void srv_end(struct srv_conn *sc)
{
	bool failed = sc->err[0];

	if (sc->active) {
		srv_active--;
		PROGRESS(srv_counted, srv_counted + 1);
		if (failed) {
			srv_failed++;
			srv_errors++;
		} else {
			srv_bytes += sc->off;
		}
		if (failed || !quiet)
			printf("smc_load: server conn=%u mode=%s peer=%s bytes=%" PRIu64
			       " sum=%016" PRIx64 " time=%.3fs %s%s\n", sc->h.idx,
			       mode_str(sc->h.mode), sc->peer, sc->h.bytes,
			       csum_final(&sc->c), now() - sc->t0,
			       failed ? "FAILED: " : "ok", sc->err);
	}
	close(sc->fd);		/* also leaves the epoll set */
	srv_closed++;
	free(sc->out);
	free(sc);
}

static void srv_want(struct srv_conn *sc, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = sc };

	if (epoll_ctl(srv_ep, EPOLL_CTL_MOD, sc->fd, &ev))
		srv_fail(sc, "epoll_ctl: %s", strerror(errno));
}

/* send what is queued: 1 all sent, 0 the rest later (EPOLLOUT), -1 error */
static int srv_flush(struct srv_conn *sc)
{
	while (sc->out_off < sc->out_len) {
		ssize_t w = write(sc->fd, sc->out + sc->out_off,
				  sc->out_len - sc->out_off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			return 0;
		if (w < 0)
			return -1;
		sc->out_off += (size_t)w;
	}
	free(sc->out);
	sc->out = NULL;
	sc->out_len = 0;
	sc->out_off = 0;
	return 1;
}

/*
 * Send @n bytes at @p (copied when they cannot go at once); false when the
 * connection failed.  While bytes wait, the connection waits for EPOLLOUT
 * and reads nothing.
 */
static bool srv_send(struct srv_conn *sc, const void *p, size_t n,
		     const char *what)
{
	int rc;

	sc->out = xmalloc(n);
	memcpy(sc->out, p, n);
	sc->out_len = n;
	sc->out_off = 0;
	rc = srv_flush(sc);
	if (rc < 0) {
		srv_fail(sc, "%s: %s", what, strerror(errno));
		return false;
	}
	if (rc == 0)
		srv_want(sc, EPOLLOUT);
	return !sc->err[0];
}

/* after the status line went out: wait for the client's close */
static void srv_status_sent(struct srv_conn *sc)
{
	if (sc->err[0]) {
		srv_end(sc);
		return;
	}
	sc->state = S_EOF;
}

/* header complete: what comes next */
static void srv_header(struct srv_conn *sc)
{
	if (hdr_unpack(sc->hb, &sc->h)) {
		srv_fail(sc, "bad header (%d bytes)", HDR_LEN);
		sc->h.mode = MODE_ECHO;
		sc->h.idx = 0;
		sc->h.bytes = 0;
		srv_end(sc);
		return;
	}
	sc->got = 0;
	sc->state = sc->h.mode == MODE_STREAM && !sc->h.bytes ? S_TRAILER :
								 S_DATA;
}

/* stream: data and trailer in, the verdict out */
static void srv_trailer(struct srv_conn *sc)
{
	uint64_t sum = csum_final(&sc->c), peer_sum, peer_len;
	char status[STATUS_LEN];

	memcpy(&peer_sum, sc->trailer, 8);
	memcpy(&peer_len, sc->trailer + 8, 8);
	peer_sum = be64toh(peer_sum);
	peer_len = be64toh(peer_len);
	if (peer_sum != sum || peer_len != sc->off)
		srv_fail(sc, "checksum %016" PRIx64 "/%" PRIu64 " != sender's %016"
			 PRIx64 "/%" PRIu64, sum, (uint64_t)sc->off, peer_sum,
			 peer_len);
	snprintf(status, sizeof(status), "%s %016" PRIx64 "\n",
		 sc->err[0] ? "FAIL" : "OK", sum);
	sc->state = S_STATUS;
	if (!srv_send(sc, status, strlen(status), "write status")) {
		srv_end(sc);
		return;
	}
	if (!sc->out)
		srv_status_sent(sc);
}

static void srv_read(struct srv_conn *sc)
{
	unsigned char *p = srv_buf;
	size_t n = chunk;
	long long bad;
	ssize_t r;

	switch (sc->state) {
	case S_HDR:
		p = sc->hb + sc->got;
		n = HDR_LEN - sc->got;
		break;
	case S_DATA:
		if (sc->h.mode == MODE_STREAM && sc->h.bytes - sc->off < n)
			n = (size_t)(sc->h.bytes - sc->off);
		break;
	case S_TRAILER:
		p = sc->trailer + sc->got;
		n = TRAILER_LEN - sc->got;
		break;
	case S_STATUS:
		return;
	case S_EOF:
		n = 1;
		break;
	}
	r = read(sc->fd, p, n);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (!sc->active) {
		if (r == 0) {		/* a port probe: not counted */
			srv_end(sc);
			return;
		}
		sc->active = true;
		srv_active++;
	}
	switch (sc->state) {
	case S_HDR:
		if (r <= 0) {
			if (r < 0)
				srv_fail(sc, "bad header (read: %s)", strerror(errno));
			else
				srv_fail(sc, "bad header (%zu bytes)", sc->got);
			sc->h.mode = MODE_ECHO;
			srv_end(sc);
			return;
		}
		sc->got += (size_t)r;
		if (sc->got == HDR_LEN)
			srv_header(sc);
		return;
	case S_DATA:
		break;
	case S_TRAILER:
		if (r <= 0) {
			srv_fail(sc, "no checksum trailer (%s)",
				 r < 0 ? strerror(errno) : "EOF");
			srv_end(sc);
			return;
		}
		sc->got += (size_t)r;
		if (sc->got == TRAILER_LEN)
			srv_trailer(sc);
		return;
	case S_STATUS:
		return;
	case S_EOF:
		if (r < 0)
			srv_fail(sc, "read at close: %s", strerror(errno));
		else if (r > 0)
			srv_fail(sc, "unexpected data at close");
		srv_end(sc);
		return;
	}

	/* S_DATA */
	if (sc->h.mode == MODE_STREAM) {
		if (r <= 0) {
			srv_fail(sc, "%s after %llu of %" PRIu64 " bytes",
				 r ? strerror(errno) : "EOF", sc->off,
				 sc->h.bytes);
			srv_end(sc);
			return;
		}
		/* on a wrong byte: read on, the client waits for a verdict */
		bad = pattern_check(srv_buf, sc->h.seed, sc->off, (size_t)r,
				    srv_exp);
		if (bad >= 0)
			srv_fail(sc, "data mismatch at offset %lld", bad);
		csum_add(&sc->c, srv_buf, (size_t)r);
		sc->off += (size_t)r;
		if (sc->off == sc->h.bytes) {
			sc->state = S_TRAILER;
			sc->got = 0;
		}
		return;
	}
	/* echo: check and send back everything until EOF */
	if (r < 0) {
		srv_fail(sc, "read: %s", strerror(errno));
	} else if (r == 0) {
		if (sc->off != sc->h.bytes)
			srv_fail(sc, "EOF after %llu of %" PRIu64 " bytes",
				 sc->off, sc->h.bytes);
	} else if (sc->off + (size_t)r > sc->h.bytes) {
		srv_fail(sc, "more than %" PRIu64 " bytes", sc->h.bytes);
	} else {
		bad = pattern_check(srv_buf, sc->h.seed, sc->off, (size_t)r,
				    srv_exp);
		if (bad >= 0) {
			srv_fail(sc, "data mismatch at offset %lld", bad);
		} else {
			csum_add(&sc->c, srv_buf, (size_t)r);
			sc->off += (size_t)r;
			if (srv_send(sc, srv_buf, (size_t)r, "write"))
				return;
		}
	}
	srv_end(sc);
}

static void srv_event(struct srv_conn *sc)
{
	int rc;

	if (!sc->out) {
		srv_read(sc);
		return;
	}
	rc = srv_flush(sc);
	if (rc == 0)
		return;
	if (rc < 0) {
		srv_fail(sc, "%s: %s",
			 sc->state == S_STATUS ? "write status" : "write",
			 strerror(errno));
		srv_end(sc);
		return;
	}
	srv_want(sc, EPOLLIN);
	if (sc->err[0])
		srv_end(sc);
	else if (sc->state == S_STATUS)
		srv_status_sent(sc);
}

static void srv_accept(int lfd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct sockaddr_in peer;
	socklen_t plen = sizeof(peer);
	struct srv_conn *sc;
	int fd;

	fd = accept4(lfd, (struct sockaddr *)&peer, &plen, SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno == EINTR || errno == EAGAIN ||
		    errno == ECONNABORTED)
			return;
		srv_errors++;
		fprintf(stderr, "smc_load: accept: %s\n", strerror(errno));
		usleep(10 * 1000);	/* EMFILE: do not spin */
		return;
	}
	srv_accepted++;
	sc = xmalloc(sizeof(*sc));
	memset(sc, 0, sizeof(*sc));
	sc->fd = fd;
	sc->state = S_HDR;
	sc->t0 = now();
	sc->h.mode = MODE_ECHO;
	csum_init(&sc->c);
	if (!inet_ntop(AF_INET, &peer.sin_addr, sc->peer, sizeof(sc->peer)))
		strcpy(sc->peer, "?");
	ev.data.ptr = sc;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) ||
	    epoll_ctl(srv_ep, EPOLL_CTL_ADD, fd, &ev)) {
		srv_errors++;
		fprintf(stderr, "smc_load: new connection: %s\n",
			strerror(errno));
		srv_end(sc);
	}
}

static void srv_report(void)
{
	printf("smc_load: timeout: server counted %ld connections, %ld in progress\n",
	       PEEK(srv_counted), PEEK(srv_active));
}

static int serve(int port, long conns)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	struct epoll_event ev = { .events = EPOLLIN }, evs[64];
	struct sigaction sa = { .sa_handler = srv_on_stop };
	int one = 1, lfd, i, n;

	lfd = new_socket();
	if (lfd < 0) {
		fprintf(stderr, "smc_load: socket(%s): %s\n", family_name,
			strerror(-lfd));
		return 1;
	}
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	addr.sin_addr.s_addr = htonl(INADDR_ANY);
	addr.sin_port = htons((unsigned short)port);
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(lfd, 1024) < 0) {
		fprintf(stderr, "smc_load: bind/listen port %d: %s\n", port,
			strerror(errno));
		return 1;
	}
	srv_ep = epoll_create1(EPOLL_CLOEXEC);
	ev.data.ptr = NULL;	/* the listener */
	if (srv_ep < 0 || epoll_ctl(srv_ep, EPOLL_CTL_ADD, lfd, &ev)) {
		perror("smc_load: epoll");
		return 1;
	}
	srv_buf = xmalloc(chunk);
	srv_exp = xmalloc(chunk);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("smc_load: server family=%s listening port=%d\n", family_name,
	       port);
	fflush(stdout);
	start_watchdog(srv_report);

	while (!srv_stop && !(conns > 0 && srv_counted >= conns)) {
		n = epoll_wait(srv_ep, evs, 64, 200);
		if (n < 0 && errno != EINTR) {
			perror("smc_load: epoll_wait");
			return 1;
		}
		for (i = 0; i < n; i++) {
			if (evs[i].data.ptr)
				srv_event(evs[i].data.ptr);
			else
				srv_accept(lfd);
		}
	}
	close(lfd);
	printf("server accepted=%ld closed=%ld bytes=%llu errors=%ld\n",
	       srv_accepted, srv_closed, srv_bytes, srv_errors);
	printf("conns=%ld bytes=%llu %s\n", srv_counted, srv_bytes,
	       srv_failed ? "FAILED" : "ok");
	if (srv_failed)
		printf("smc_load: server: %ld of %ld connections failed\n",
		       srv_failed, srv_counted);
	fflush(stdout);
	return srv_failed ? 1 : 0;
}

/* ---- client ---- */

static struct sockaddr_in srv_addr;
static const char *cl_ip;
static int cl_port;
static uint32_t cl_mode = MODE_ECHO;
static unsigned long long cl_bytes = 1 << 20;
static uint64_t cl_seed = 0x2545f4914f6cdd1dULL;
static long cl_conns = 1;	/* -N connections or -R cycles */
static bool cl_short;		/* -R */
static unsigned int nthreads;	/* -P */
static int want_mode = -1;	/* -M: an SMC_DIAG_MODE_* */
static long next_cycle;		/* -R, atomic */
static pthread_attr_t thread_attr;

/*
 * A point every client thread reaches (also after failures); the main
 * thread opens it once all are there and, with -G/-W, its file exists.
 */
struct gate {
	const char *what, *file;
	unsigned int arrived;
	long ok;
	int open;
};

static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static struct gate go_gate = { .what = "connected" };
static struct gate hold_gate = { .what = "holding" };

struct cl_conn {
	/* progress, read by the watchdog without locking */
	long idx;
	const char *phase;
	unsigned long long sent, rcvd;
	int fd;
	bool connected;
	uint64_t ino;
	uint64_t seed;
	uint64_t sum_out, sum_in;
	unsigned long long verified;
	double t_connect, t_data;
	int failed;
	char err[160];
};

/* -N: one per connection; -R: one per thread, for its current cycle */
static struct cl_conn *cl;
static long cl_slots;

/* under lock */
static long res_failed;
static unsigned long long res_bytes;
static double lat_min = 1e9, lat_max, lat_sum;
static long lat_n;

/* record the first failure of a connection (reader and writer may race) */
static void __attribute__((format(printf, 2, 3)))
cl_fail(struct cl_conn *c, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&lock);
	if (!c->failed) {
		c->failed = 1;
		va_start(ap, fmt);
		vsnprintf(c->err, sizeof(c->err), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&lock);
}

/* a connection's buffers: no larger than its data */
static size_t cl_bufsize(void)
{
	return cl_bytes < chunk ? (size_t)cl_bytes : chunk;
}

static void *cl_writer(void *arg)
{
	struct cl_conn *c = arg;
	size_t len = cl_bufsize();
	unsigned char *buf = xmalloc(len);
	unsigned long long off = 0;
	struct csum s;

	csum_init(&s);
	while (off < cl_bytes) {
		size_t n = cl_bytes - off < len ? (size_t)(cl_bytes - off) : len;

		pattern_fill(buf, c->seed, off, n);
		if (write_all(c->fd, buf, n) < 0) {
			cl_fail(c, "write: %s", strerror(errno));
			/* wake the reader, which would wait for the echo */
			shutdown(c->fd, SHUT_RDWR);
			break;
		}
		csum_add(&s, buf, n);
		off += n;
		PROGRESS(c->sent, off);
	}
	c->sum_out = csum_final(&s);
	free(buf);
	return NULL;
}

static void cl_echo(struct cl_conn *c)
{
	size_t len = cl_bufsize();
	unsigned char *buf = xmalloc(len), *exp = xmalloc(len);
	unsigned long long off = 0;
	pthread_t writer;
	struct csum s;
	long long bad;

	csum_init(&s);
	if (pthread_create(&writer, &thread_attr, cl_writer, c)) {
		cl_fail(c, "pthread_create failed");
		goto out;
	}
	while (off < cl_bytes) {
		size_t n = cl_bytes - off < len ? (size_t)(cl_bytes - off) : len;
		ssize_t r = read(c->fd, buf, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			cl_fail(c, "%s", r ? strerror(errno) :
				"EOF before all data came back");
			break;
		}
		bad = pattern_check(buf, c->seed, off, (size_t)r, exp);
		if (bad >= 0)
			cl_fail(c, "echo differs at offset %lld", bad);
		csum_add(&s, buf, (size_t)r);
		off += (size_t)r;
		PROGRESS(c->rcvd, off);
	}
	pthread_join(writer, NULL);
	c->sum_in = csum_final(&s);
	if (!c->failed && c->sum_in != c->sum_out)
		cl_fail(c, "checksum of the echo differs");
	if (!c->failed)
		c->verified = off;
out:
	free(buf);
	free(exp);
}

static void cl_stream(struct cl_conn *c)
{
	size_t len = cl_bufsize();
	unsigned char *buf = xmalloc(len);
	unsigned long long off = 0;
	char status[STATUS_LEN], want[STATUS_LEN];
	uint64_t trailer[2];
	struct csum s;
	size_t got = 0;

	csum_init(&s);
	while (off < cl_bytes) {
		size_t n = cl_bytes - off < len ? (size_t)(cl_bytes - off) : len;

		pattern_fill(buf, c->seed, off, n);
		if (write_all(c->fd, buf, n) < 0) {
			cl_fail(c, "write: %s", strerror(errno));
			goto out;
		}
		csum_add(&s, buf, n);
		off += n;
		PROGRESS(c->sent, off);
	}
	c->sum_out = csum_final(&s);
	trailer[0] = htobe64(c->sum_out);
	trailer[1] = htobe64(off);
	if (write_all(c->fd, trailer, sizeof(trailer)) < 0) {
		cl_fail(c, "write checksum: %s", strerror(errno));
		goto out;
	}
	PROGRESS(c->phase, "verdict");
	/* the server's verdict: one line */
	while (got < sizeof(status) - 1) {
		ssize_t r = read(c->fd, status + got, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			cl_fail(c, "%s", r ? strerror(errno) :
				"EOF before the server's verdict");
			goto out;
		}
		if (status[got++] == '\n')
			break;
	}
	status[got] = '\0';
	snprintf(want, sizeof(want), "OK %016" PRIx64 "\n", c->sum_out);
	if (strcmp(status, want)) {
		status[strcspn(status, "\n")] = '\0';
		cl_fail(c, "server says \"%s\"", status);
		goto out;
	}
	c->sum_in = c->sum_out;
	c->verified = off;
out:
	free(buf);
}

/* a fresh connection @idx (from 1) in slot @c */
static void cl_init(struct cl_conn *c, long idx)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->seed = splitmix(cl_seed ^ ((uint64_t)idx * GOLDEN));
	PROGRESS(c->phase, "start");
	PROGRESS(c->idx, idx);
}

static void cl_connect(struct cl_conn *c)
{
	struct stat st;
	double t0, ms;

	PROGRESS(c->phase, "connect");
	c->fd = new_socket();
	if (c->fd < 0) {
		cl_fail(c, "socket(%s): %s", family_name, strerror(-c->fd));
		c->fd = -1;
		return;
	}
	t0 = now();
	if (connect(c->fd, (struct sockaddr *)&srv_addr, sizeof(srv_addr)) < 0) {
		cl_fail(c, "connect: %s", strerror(errno));
	} else {
		c->connected = true;
		if (!fstat(c->fd, &st))
			c->ino = st.st_ino;
	}
	c->t_connect = now() - t0;
	if (c->connected) {
		ms = c->t_connect * 1000;
		pthread_mutex_lock(&lock);
		if (ms < lat_min)
			lat_min = ms;
		if (ms > lat_max)
			lat_max = ms;
		lat_sum += ms;
		lat_n++;
		pthread_mutex_unlock(&lock);
	}
	PROGRESS(c->phase, "connected");
}

/* the header, then the data of the mode */
static void cl_data(struct cl_conn *c)
{
	unsigned char hb[HDR_LEN];
	struct hdr h;
	double t0 = now();

	if (c->failed)
		return;
	h.mode = cl_mode;
	h.idx = (uint32_t)c->idx;
	h.bytes = cl_bytes;
	h.seed = c->seed;
	hdr_pack(hb, &h);
	if (write_all(c->fd, hb, sizeof(hb)) < 0) {
		cl_fail(c, "write header: %s", strerror(errno));
		return;
	}
	PROGRESS(c->phase, cl_mode == MODE_ECHO ? "echo" : "stream");
	if (cl_mode == MODE_ECHO)
		cl_echo(c);
	else
		cl_stream(c);
	c->t_data = now() - t0;
}

static void cl_shutdown(struct cl_conn *c)
{
	PROGRESS(c->phase, "close");
	if (!c->failed)
		shutdown(c->fd, SHUT_WR);
}

/* after cl_shutdown(): the server's close, then ours */
static void cl_close(struct cl_conn *c)
{
	char err[160];

	if (!c->failed && expect_eof(c->fd, err, sizeof(err))) {
		cl_fail(c, "%s", err);
		c->verified = 0;
	}
	if (c->fd >= 0)
		close(c->fd);
	PROGRESS(c->phase, "closed");
}

/* count a finished connection and print its line; under lock */
static void cl_result(const struct cl_conn *c)
{
	if (c->failed)
		res_failed++;
	res_bytes += c->verified;
	if (quiet && !c->failed)
		return;
	printf("smc_load: client conn=%ld mode=%s family=%s peer=%s:%d bytes=%llu sum=%016" PRIx64 " peer_sum=%016" PRIx64 " connect=%.3fs time=%.3fs rate=%.2fMB/s %s%s\n",
	       c->idx, mode_str(cl_mode), family_name, cl_ip, cl_port,
	       c->verified, c->sum_out, c->sum_in, c->t_connect, c->t_data,
	       c->t_data > 0 ? c->verified / c->t_data / 1e6 : 0.0,
	       c->failed ? "FAILED: " : "ok", c->err);
}

static void gate_pass(struct gate *g, long ok)
{
	pthread_mutex_lock(&lock);
	g->arrived++;
	g->ok += ok;
	pthread_cond_broadcast(&gate_cv);
	while (!g->open)
		pthread_cond_wait(&gate_cv, &lock);
	pthread_mutex_unlock(&lock);
}

/* wait until every thread is at the gate */
static void gate_wait(struct gate *g)
{
	pthread_mutex_lock(&lock);
	while (g->arrived < nthreads)
		pthread_cond_wait(&gate_cv, &lock);
	pthread_mutex_unlock(&lock);
}

static void gate_open(struct gate *g)
{
	if (g->file) {
		printf("smc_load: %s %ld connections (%ld ok) until %s exists\n",
		       g->what, cl_conns, g->ok, g->file);
		fflush(stdout);
		while (access(g->file, F_OK))
			usleep(100 * 1000);
		printf("smc_load: %s: go on\n", g->what);
		fflush(stdout);
	}
	pthread_mutex_lock(&lock);
	g->open = 1;
	pthread_cond_broadcast(&gate_cv);
	pthread_mutex_unlock(&lock);
}

/* -N: thread t's connections are t, t + THREADS, ... */
static void *cl_worker(void *arg)
{
	long t = (long)(uintptr_t)arg, i, ok = 0;

	for (i = t; i < cl_conns; i += nthreads) {
		cl_connect(&cl[i]);
		ok += !cl[i].failed;
	}
	gate_pass(&go_gate, ok);
	ok = 0;
	for (i = t; i < cl_conns; i += nthreads) {
		cl_data(&cl[i]);
		PROGRESS(cl[i].phase, "holding");
		ok += !cl[i].failed;
	}
	gate_pass(&hold_gate, ok);
	for (i = t; i < cl_conns; i += nthreads)
		cl_shutdown(&cl[i]);
	for (i = t; i < cl_conns; i += nthreads)
		cl_close(&cl[i]);
	return NULL;
}

/* -R: whole cycles, until all are taken */
static void *cl_short_worker(void *arg)
{
	struct cl_conn *c = &cl[(uintptr_t)arg];
	long i;

	for (;;) {
		i = __atomic_fetch_add(&next_cycle, 1, __ATOMIC_RELAXED);
		if (i >= cl_conns)
			break;
		cl_init(c, i + 1);
		cl_connect(c);
		cl_data(c);
		cl_shutdown(c);
		cl_close(c);
		pthread_mutex_lock(&lock);
		cl_result(c);
		pthread_mutex_unlock(&lock);
	}
	PROGRESS(c->phase, "done");
	return NULL;
}

static void cl_report(void)
{
	long i;

	for (i = 0; i < cl_slots; i++)
		printf("smc_load: timeout: conn=%ld phase=%s sent=%llu rcvd=%llu\n",
		       PEEK(cl[i].idx), PEEK(cl[i].phase), PEEK(cl[i].sent),
		       PEEK(cl[i].rcvd));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static const char *const diag_mode_names[] = {
	[SMC_DIAG_MODE_SMCR] = "smcr",
	[SMC_DIAG_MODE_FALLBACK_TCP] = "fallback",
	[SMC_DIAG_MODE_SMCD] = "smcd",
};

/*
 * -M: count the modes of our connected sockets from an AF_SMC sock_diag
 * dump (cnt[3]: modes unknown to us).  False when the dump cannot be had
 * (no AF_SMC sock_diag).
 */
static bool diag_modes(unsigned int cnt[4], unsigned int *n)
{
	struct {
		struct nlmsghdr nlh;
		struct smc_diag_req r;
	} req = {
		.nlh = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		},
		.r = { .diag_family = AF_SMC },
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	static char buf[65536] __attribute__((aligned(8)));
	uint64_t *inodes = xmalloc(sizeof(*inodes) * (size_t)cl_conns);
	bool done = false;
	long i;
	int fd;

	*n = 0;
	for (i = 0; i < cl_conns; i++)
		if (cl[i].connected)
			inodes[(*n)++] = cl[i].ino;
	qsort(inodes, *n, sizeof(*inodes), cmp_u64);
	memset(cnt, 0, 4 * sizeof(cnt[0]));
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0 || sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&sa,
			     sizeof(sa)) < 0) {
		free(inodes);
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!done) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		if (len <= 0)
			break;
		for (; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			struct smc_diag_msg *m = NLMSG_DATA(h);
			uint64_t ino;

			if (h->nlmsg_type == NLMSG_DONE ||
			    h->nlmsg_type == NLMSG_ERROR) {
				/* counted so far: a short count fails -M */
				done = true;
				break;
			}
			ino = m->diag_inode;
			if (!bsearch(&ino, inodes, *n, sizeof(ino), cmp_u64))
				continue;
			cnt[m->diag_mode < 3 ? m->diag_mode : 3]++;
		}
	}
	close(fd);
	free(inodes);
	return done;
}

/* -M: print the modes; true if every connected socket is in want_mode */
static bool check_modes(void)
{
	unsigned int cnt[4], n;

	if (!diag_modes(cnt, &n)) {
		printf("smc_load: modes unknown (no AF_SMC sock_diag)\n");
		return false;
	}
	printf("smc_load: modes smcr=%u fallback=%u smcd=%u unknown=%u\n",
	       cnt[SMC_DIAG_MODE_SMCR], cnt[SMC_DIAG_MODE_FALLBACK_TCP],
	       cnt[SMC_DIAG_MODE_SMCD], cnt[3]);
	if (cnt[want_mode] == n)
		return true;
	printf("smc_load: modes: %u of %u connected sockets not %s\n",
	       n - cnt[want_mode], n, diag_mode_names[want_mode]);
	return false;
}

static int client(void)
{
	pthread_t *tids = xmalloc(nthreads * sizeof(*tids));
	bool modes_ok = true;
	double t0, t1, t2, t;
	unsigned int i;
	long j;

	if (inet_pton(AF_INET, cl_ip, &srv_addr.sin_addr) != 1) {
		fprintf(stderr, "smc_load: bad IPv4 address '%s'\n", cl_ip);
		return 2;
	}
	srv_addr.sin_family = AF_INET;
	srv_addr.sin_port = htons((unsigned short)cl_port);
	cl_slots = cl_short ? nthreads : cl_conns;
	cl = xmalloc((size_t)cl_slots * sizeof(*cl));
	for (j = 0; j < cl_slots; j++)
		cl_init(&cl[j], j + 1);
	/* cl stays allocated: the watchdog may still look at it */
	start_watchdog(cl_report);
	t0 = now();
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&tids[i], &thread_attr,
				   cl_short ? cl_short_worker : cl_worker,
				   (void *)(uintptr_t)i)) {
			fprintf(stderr, "smc_load: pthread_create failed\n");
			exit(1);
		}
	if (cl_short) {
		for (i = 0; i < nthreads; i++)
			pthread_join(tids[i], NULL);
		t = now() - t0;
		printf("smc_load: cycles: %ld cycles, %u threads, %.2f s (%.1f cycles/s), connect ms min %.1f avg %.1f max %.1f\n",
		       cl_conns, nthreads, t, cl_conns / t, lat_n ? lat_min : 0,
		       lat_n ? lat_sum / lat_n : 0, lat_max);
	} else {
		gate_wait(&go_gate);
		t1 = now();
		printf("smc_load: connect: %ld of %ld in %.2f s (%.1f/s), connect ms min %.1f avg %.1f max %.1f\n",
		       lat_n, cl_conns, t1 - t0, lat_n / (t1 - t0),
		       lat_n ? lat_min : 0, lat_n ? lat_sum / lat_n : 0,
		       lat_max);
		gate_open(&go_gate);
		t1 = now();
		gate_wait(&hold_gate);
		t2 = now();
		printf("smc_load: data: %ld of %ld verified in %.2f s\n",
		       hold_gate.ok, cl_conns, t2 - t1);
		if (want_mode >= 0)
			modes_ok = check_modes();
		gate_open(&hold_gate);
		t2 = now();
		for (i = 0; i < nthreads; i++)
			pthread_join(tids[i], NULL);
		printf("smc_load: close: %ld in %.2f s\n", cl_conns,
		       now() - t2);
		for (j = 0; j < cl_conns; j++)
			cl_result(&cl[j]);
	}
	t = now() - t0;
	printf("smc_load: client mode=%s conns=%ld failed=%ld bytes=%llu time=%.3fs rate=%.2fMB/s\n",
	       mode_str(cl_mode), cl_conns, res_failed, res_bytes, t,
	       t > 0 ? res_bytes / t / 1e6 : 0.0);
	printf("conns=%ld bytes=%llu %s\n", cl_conns, res_bytes,
	       res_failed || !modes_ok ? "FAILED" : "ok");
	fflush(stdout);
	free(tids);
	return res_failed || !modes_ok ? 1 : 0;
}

static unsigned long long parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k':
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'm':
	case 'M':
		v <<= 20;
		end++;
		break;
	case 'g':
	case 'G':
		v <<= 30;
		end++;
		break;
	}
	if (*s == '\0' || *end != '\0') {
		fprintf(stderr, "smc_load: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: smc_load -s [-f smc|inet] [-p PORT] [-n CONNS] [-q] [-t SECS]\n"
		"       smc_load -c IP [-f smc|inet] [-p PORT] [-N CONNS | -R CYCLES]\n"
		"                [-P THREADS] [-B BYTES] [-m echo|stream] [-k CHUNK] [-S SEED]\n"
		"                [-G FILE] [-W FILE] [-M smcr|fallback|smcd] [-q] [-t SECS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int server = 0, port = 12345, opt;
	unsigned long long threads = 0;
	long conns = 0;
	struct rlimit rl;
	bool n_set = false;

	while ((opt = getopt(argc, argv, "sc:f:p:n:N:R:P:B:m:k:S:G:W:M:qt:")) != -1) {
		switch (opt) {
		case 's':
			server = 1;
			break;
		case 'c':
			cl_ip = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "smc")) {
				family = AF_SMC;
			} else if (!strcmp(optarg, "inet") ||
				   !strcmp(optarg, "tcp")) {
				family = AF_INET;
			} else {
				usage();
			}
			family_name = family == AF_SMC ? "smc" : "inet";
			break;
		case 'p':
			port = (int)parse_size(optarg);
			break;
		case 'n':
			conns = (long)parse_size(optarg);
			break;
		case 'N':
		case 'R':
			if (n_set)
				usage();	/* one of -N and -R */
			n_set = true;
			cl_conns = (long)parse_size(optarg);
			cl_short = opt == 'R';
			break;
		case 'P':
			threads = parse_size(optarg);
			break;
		case 'B':
			cl_bytes = parse_size(optarg);
			break;
		case 'm':
			if (!strcmp(optarg, "echo"))
				cl_mode = MODE_ECHO;
			else if (!strcmp(optarg, "stream"))
				cl_mode = MODE_STREAM;
			else
				usage();
			break;
		case 'k':
			chunk = (size_t)parse_size(optarg);
			break;
		case 'S':
			cl_seed = parse_size(optarg);
			break;
		case 'G':
			go_gate.file = optarg;
			break;
		case 'W':
			hold_gate.file = optarg;
			break;
		case 'M':
			for (want_mode = 0; want_mode < 3; want_mode++)
				if (!strcmp(optarg, diag_mode_names[want_mode]))
					break;
			if (want_mode == 3)
				usage();
			break;
		case 'q':
			quiet = true;
			break;
		case 't':
			timeout = (unsigned int)parse_size(optarg);
			break;
		default:
			usage();
		}
	}
	if (server == !!cl_ip || optind != argc || !chunk || port <= 0 ||
	    port > 65535 || cl_conns <= 0 || cl_conns > MAX_CONNS ||
	    threads > MAX_THREADS)
		usage();
	/* short cycles hold nothing to wait at or to look at */
	if (cl_short && (go_gate.file || hold_gate.file || want_mode >= 0))
		usage();
	if (want_mode >= 0 && family != AF_SMC)
		usage();
	nthreads = threads ? (unsigned int)threads : cl_short ? 16 : MAX_THREADS;
	if (nthreads > cl_conns)
		nthreads = (unsigned int)cl_conns;
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* room for every connection (and the server's epoll set) */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (server)
		return serve(port, conns);
	/* small stacks: the buffers are on the heap */
	pthread_attr_init(&thread_attr);
	pthread_attr_setstacksize(&thread_attr, 256 << 10);
	cl_port = port;
	return client();
}
