// SPDX-License-Identifier: GPL-2.0
/*
 * smc_load - many concurrent, verified transfers over AF_SMC (or AF_INET).
 *
 *   smc_load -s [-f smc|inet] [-p PORT] [-n CONNS] [-t SECS]
 *   smc_load -c IP [-f smc|inet] [-p PORT] [-N CONNS] [-B BYTES]
 *            [-m echo|stream] [-k CHUNK] [-S SEED] [-G FILE] [-W FILE]
 *            [-t SECS]
 *
 * The client opens CONNS connections at the same time (one thread each)
 * and moves BYTES of seeded pseudo-random data on every one of them:
 *
 *   echo    the server sends every byte back; the client writes (helper
 *           thread) and reads (connection thread) at the same time, checks
 *           each byte it gets back against the pattern and compares the
 *           checksums of what it sent and what came back.
 *   stream  one way: the client sends the data and then its checksum; the
 *           server checks the bytes and the checksum and answers "OK" or
 *           "FAIL" in one line, which the client waits for.
 *
 * Each connection starts with a 32-byte header (magic, mode, connection
 * number, length, seed), so the server regenerates the expected data and
 * checks it in both modes.  A connection that closes before it sent a
 * header (a port probe) is not counted.
 *
 * Data: byte o of a connection is byte (o % 8) (little-endian) of the
 * 64-bit word splitmix64(seed + (o / 8) * golden); every connection has its
 * own seed (derived from -S and its number).  Checksum: 64-bit FNV-1a over
 * the data taken as little-endian 64-bit words (a short last word is
 * zero-padded), then over the length; it does not depend on how reads and
 * writes split the stream.
 *
 * All connections are opened before any sends data.  -G FILE: once all
 * connect()s returned, print "connected N connections" and wait until FILE
 * exists before sending (so several clients can start their data at the
 * same time, after all handshakes).  -W FILE: once every connection has
 * moved its data, keep all of them open (before shutdown) and print
 * "holding N connections" until FILE exists, so that a test can look at
 * the live sockets.
 *
 * The client ends with "conns=N bytes=TOTAL ok" (TOTAL: bytes verified
 * over all connections) or "... FAILED"; the server with the same line for
 * the connections it counted.  -t SECS: after SECS, print where every
 * connection stands (phase, bytes sent and received) and exit with code 3.
 * Exit code 0 only when every connection passed.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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
#define MODE_ECHO 1
#define MODE_STREAM 2
#define STATUS_LEN 64

/* progress of a connection, for the watchdog's report */
#define PROGRESS(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELAXED)
#define PEEK(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

static int family = AF_SMC;
static const char *family_name = "smc";
static size_t chunk = 64 << 10;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

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

static int new_socket(void)
{
	int fd;

	if (family == AF_SMC)
		fd = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC);
	else
		fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0) {
		fprintf(stderr, "smc_load: socket(%s): %s\n", family_name,
			strerror(errno));
		exit(1);
	}
	return fd;
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

/* bytes read (< n only at EOF), or -1 */
static ssize_t read_full(int fd, void *buf, size_t n)
{
	unsigned char *p = buf;
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* after our shutdown(SHUT_WR): the peer must close without more data */
static int expect_eof(int fd, char *err, size_t errlen)
{
	unsigned char c;
	ssize_t r = read_full(fd, &c, 1);

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

/* ---- server ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int timeout;

static void start_watchdog(void);
static long srv_counted, srv_failed, srv_active;
static unsigned long long srv_bytes;

struct srv_conn {
	int fd;
	char peer[INET_ADDRSTRLEN];
};

/* echo: check and send back everything until EOF; returns bytes or -1 */
static long long srv_echo(int fd, const struct hdr *h, uint64_t *sum,
			  char *err, size_t errlen)
{
	unsigned char *buf = xmalloc(chunk), *exp = xmalloc(chunk);
	unsigned long long off = 0;
	long long bad, rc = -1;
	struct csum c;

	csum_init(&c);
	for (;;) {
		ssize_t r = read(fd, buf, chunk);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "read: %s", strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		if (off + (size_t)r > h->bytes) {
			snprintf(err, errlen, "more than %" PRIu64 " bytes",
				 h->bytes);
			goto out;
		}
		bad = pattern_check(buf, h->seed, off, (size_t)r, exp);
		if (bad >= 0) {
			snprintf(err, errlen, "data mismatch at offset %lld",
				 bad);
			goto out;
		}
		csum_add(&c, buf, (size_t)r);
		off += (size_t)r;
		if (write_all(fd, buf, (size_t)r) < 0) {
			snprintf(err, errlen, "write: %s", strerror(errno));
			goto out;
		}
	}
	if (off != h->bytes) {
		snprintf(err, errlen, "EOF after %llu of %" PRIu64 " bytes",
			 off, h->bytes);
		goto out;
	}
	rc = (long long)off;
out:
	*sum = csum_final(&c);
	free(buf);
	free(exp);
	return rc;
}

/* stream: check the data and the trailing checksum, answer one line */
static long long srv_stream(int fd, const struct hdr *h, uint64_t *sum,
			    char *err, size_t errlen)
{
	unsigned char *buf = xmalloc(chunk), *exp = xmalloc(chunk);
	unsigned char trailer[16];
	char status[STATUS_LEN];
	unsigned long long off = 0;
	uint64_t peer_sum, peer_len;
	long long bad, rc = -1;
	struct csum c;
	ssize_t r;

	err[0] = '\0';
	csum_init(&c);
	while (off < h->bytes) {
		size_t n = h->bytes - off < chunk ? (size_t)(h->bytes - off) :
						    chunk;

		r = read(fd, buf, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(err, errlen, "%s after %llu of %" PRIu64
				 " bytes", r ? strerror(errno) : "EOF", off,
				 h->bytes);
			goto out;
		}
		bad = pattern_check(buf, h->seed, off, (size_t)r, exp);
		if (bad >= 0 && !err[0])
			snprintf(err, errlen, "data mismatch at offset %lld",
				 bad);
		csum_add(&c, buf, (size_t)r);
		off += (size_t)r;
	}
	*sum = csum_final(&c);
	r = read_full(fd, trailer, sizeof(trailer));
	if (r != (ssize_t)sizeof(trailer)) {
		snprintf(err, errlen, "no checksum trailer (%s)",
			 r < 0 ? strerror(errno) : "EOF");
		goto out;
	}
	memcpy(&peer_sum, trailer, 8);
	memcpy(&peer_len, trailer + 8, 8);
	peer_sum = be64toh(peer_sum);
	peer_len = be64toh(peer_len);
	if (!err[0] && (peer_sum != *sum || peer_len != off))
		snprintf(err, errlen, "checksum %016" PRIx64 "/%" PRIu64
			 " != sender's %016" PRIx64 "/%" PRIu64, *sum,
			 (uint64_t)off, peer_sum, peer_len);
	if (err[0])
		snprintf(status, sizeof(status), "FAIL %016" PRIx64 "\n", *sum);
	else
		snprintf(status, sizeof(status), "OK %016" PRIx64 "\n", *sum);
	if (write_all(fd, status, strlen(status)) < 0 && !err[0])
		snprintf(err, errlen, "write status: %s", strerror(errno));
	if (!err[0] && expect_eof(fd, err, errlen) == 0)
		rc = (long long)off;
out:
	*sum = csum_final(&c);
	free(buf);
	free(exp);
	return rc;
}

static void *srv_thread(void *arg)
{
	struct srv_conn *sc = arg;
	unsigned char hb[HDR_LEN];
	char err[160] = "";
	long long got = -1;
	uint64_t sum = 0;
	struct hdr h;
	double t0 = now();
	ssize_t r;

	r = read_full(sc->fd, hb, sizeof(hb));
	if (r == 0) {			/* a port probe: not counted */
		close(sc->fd);
		free(sc);
		return NULL;
	}
	pthread_mutex_lock(&lock);
	srv_active++;
	pthread_mutex_unlock(&lock);
	if (r != (ssize_t)sizeof(hb) || hdr_unpack(hb, &h)) {
		snprintf(err, sizeof(err), "bad header (%zd bytes)", r);
		h.mode = MODE_ECHO;
		h.idx = 0;
		h.bytes = 0;
	} else if (h.mode == MODE_ECHO) {
		got = srv_echo(sc->fd, &h, &sum, err, sizeof(err));
	} else {
		got = srv_stream(sc->fd, &h, &sum, err, sizeof(err));
	}
	close(sc->fd);
	pthread_mutex_lock(&lock);
	srv_counted++;
	srv_active--;
	if (got < 0)
		srv_failed++;
	else
		srv_bytes += (unsigned long long)got;
	printf("smc_load: server conn=%u mode=%s peer=%s bytes=%" PRIu64
	       " sum=%016" PRIx64 " time=%.3fs %s%s\n", h.idx,
	       mode_str(h.mode), sc->peer, h.bytes, sum, now() - t0,
	       got < 0 ? "FAILED: " : "ok", got < 0 ? err : "");
	fflush(stdout);
	pthread_mutex_unlock(&lock);
	free(sc);
	return NULL;
}

static int serve(int port, long conns)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	int one = 1, lfd, rc;
	long counted;

	lfd = new_socket();
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	addr.sin_addr.s_addr = htonl(INADDR_ANY);
	addr.sin_port = htons((unsigned short)port);
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(lfd, 128) < 0) {
		fprintf(stderr, "smc_load: bind/listen port %d: %s\n", port,
			strerror(errno));
		return 1;
	}
	printf("smc_load: server family=%s listening port=%d\n", family_name,
	       port);
	fflush(stdout);
	start_watchdog();

	for (;;) {
		struct pollfd pfd = { .fd = lfd, .events = POLLIN };
		struct sockaddr_in peer;
		socklen_t plen = sizeof(peer);
		struct srv_conn *sc;
		pthread_t tid;
		int fd;

		pthread_mutex_lock(&lock);
		counted = srv_counted;
		pthread_mutex_unlock(&lock);
		if (conns > 0 && counted >= conns)
			break;
		rc = poll(&pfd, 1, 200);
		if (rc < 0 && errno != EINTR) {
			perror("smc_load: poll");
			return 1;
		}
		if (rc <= 0)
			continue;
		fd = accept(lfd, (struct sockaddr *)&peer, &plen);
		if (fd < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			perror("smc_load: accept");
			return 1;
		}
		sc = xmalloc(sizeof(*sc));
		sc->fd = fd;
		if (!inet_ntop(AF_INET, &peer.sin_addr, sc->peer,
			       sizeof(sc->peer)))
			strcpy(sc->peer, "?");
		if (pthread_create(&tid, NULL, srv_thread, sc)) {
			fprintf(stderr, "smc_load: pthread_create failed\n");
			return 1;
		}
		pthread_detach(tid);
	}
	close(lfd);
	pthread_mutex_lock(&lock);
	printf("conns=%ld bytes=%llu %s\n", srv_counted, srv_bytes,
	       srv_failed ? "FAILED" : "ok");
	if (srv_failed)
		printf("smc_load: server: %ld of %ld connections failed\n",
		       srv_failed, srv_counted);
	fflush(stdout);
	rc = srv_failed ? 1 : 0;
	pthread_mutex_unlock(&lock);
	return rc;
}

/* ---- client ---- */

static struct sockaddr_in srv_addr;
static uint32_t cl_mode = MODE_ECHO;
static unsigned long long cl_bytes = 1 << 20;
static uint64_t cl_seed = 0x2545f4914f6cdd1dULL;
static long cl_conns = 1;

/*
 * A point every connection thread reaches (also after a failure); the
 * main thread opens it once all are there and, with -G/-W, its file exists.
 */
struct gate {
	const char *what, *file;
	long arrived, ok;
	int open;
};

static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static struct gate go_gate = { .what = "connected" };
static struct gate hold_gate = { .what = "holding" };

struct cl_conn {
	long idx;
	/* progress, read by the watchdog without locking */
	const char *phase;
	unsigned long long sent, rcvd;
	pthread_t tid;
	int fd;
	uint64_t seed;
	uint64_t sum_out, sum_in;
	unsigned long long verified;
	double t_connect, t_data;
	int failed;
	char err[160];
};

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

static void *cl_writer(void *arg)
{
	struct cl_conn *c = arg;
	unsigned char *buf = xmalloc(chunk);
	unsigned long long off = 0;
	struct csum s;

	csum_init(&s);
	while (off < cl_bytes) {
		size_t n = cl_bytes - off < chunk ? (size_t)(cl_bytes - off) :
						     chunk;

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
	unsigned char *buf = xmalloc(chunk), *exp = xmalloc(chunk);
	unsigned long long off = 0;
	pthread_t writer;
	struct csum s;
	long long bad;

	csum_init(&s);
	if (pthread_create(&writer, NULL, cl_writer, c)) {
		cl_fail(c, "pthread_create failed");
		goto out;
	}
	while (off < cl_bytes) {
		size_t n = cl_bytes - off < chunk ? (size_t)(cl_bytes - off) :
						     chunk;
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
	unsigned char *buf = xmalloc(chunk);
	unsigned long long off = 0;
	char status[STATUS_LEN], want[STATUS_LEN];
	uint64_t trailer[2];
	struct csum s;
	size_t len = 0;

	csum_init(&s);
	while (off < cl_bytes) {
		size_t n = cl_bytes - off < chunk ? (size_t)(cl_bytes - off) :
						     chunk;

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
	while (len < sizeof(status) - 1) {
		ssize_t r = read(c->fd, status + len, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			cl_fail(c, "%s", r ? strerror(errno) :
				"EOF before the server's verdict");
			goto out;
		}
		if (status[len++] == '\n')
			break;
	}
	status[len] = '\0';
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

static void gate_pass(struct gate *g, struct cl_conn *c)
{
	pthread_mutex_lock(&lock);
	g->arrived++;
	if (!c->failed)
		g->ok++;
	pthread_cond_broadcast(&gate_cv);
	while (!g->open)
		pthread_cond_wait(&gate_cv, &lock);
	pthread_mutex_unlock(&lock);
}

static void gate_open(struct gate *g)
{
	pthread_mutex_lock(&lock);
	while (g->arrived < cl_conns)
		pthread_cond_wait(&gate_cv, &lock);
	if (g->file) {
		printf("smc_load: %s %ld connections (%ld ok) until %s exists\n",
		       g->what, g->arrived, g->ok, g->file);
		fflush(stdout);
	}
	pthread_mutex_unlock(&lock);
	if (g->file) {
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

static void *cl_thread(void *arg)
{
	struct cl_conn *c = arg;
	unsigned char hb[HDR_LEN];
	char err[160];
	struct hdr h;
	double t0, t1;

	c->fd = new_socket();
	t0 = now();
	PROGRESS(c->phase, "connect");
	if (connect(c->fd, (struct sockaddr *)&srv_addr, sizeof(srv_addr)) < 0)
		cl_fail(c, "connect: %s", strerror(errno));
	c->t_connect = now() - t0;
	PROGRESS(c->phase, "connected");
	gate_pass(&go_gate, c);
	if (c->failed)
		goto hold;
	t1 = now();
	h.mode = cl_mode;
	h.idx = (uint32_t)c->idx;
	h.bytes = cl_bytes;
	h.seed = c->seed;
	hdr_pack(hb, &h);
	if (write_all(c->fd, hb, sizeof(hb)) < 0) {
		cl_fail(c, "write header: %s", strerror(errno));
		goto hold;
	}
	PROGRESS(c->phase, cl_mode == MODE_ECHO ? "echo" : "stream");
	if (cl_mode == MODE_ECHO)
		cl_echo(c);
	else
		cl_stream(c);
	c->t_data = now() - t1;
hold:
	PROGRESS(c->phase, "holding");
	gate_pass(&hold_gate, c);
	if (!c->failed) {
		PROGRESS(c->phase, "close");
		shutdown(c->fd, SHUT_WR);
		if (expect_eof(c->fd, err, sizeof(err))) {
			cl_fail(c, "%s", err);
			c->verified = 0;
		}
	}
	close(c->fd);
	PROGRESS(c->phase, "closed");
	return NULL;
}

/* -t: report every connection's progress and give up */
static struct cl_conn *wd_conns;

static void *watchdog(void *arg)
{
	double end = now() + timeout;
	long i;

	(void)arg;
	while (now() < end)
		usleep(200 * 1000);
	for (i = 0; wd_conns && i < cl_conns; i++)
		printf("smc_load: timeout: conn=%ld phase=%s sent=%llu rcvd=%llu\n",
		       wd_conns[i].idx, PEEK(wd_conns[i].phase),
		       PEEK(wd_conns[i].sent), PEEK(wd_conns[i].rcvd));
	if (!wd_conns)
		printf("smc_load: timeout: server counted %ld connections, %ld in progress\n",
		       PEEK(srv_counted), PEEK(srv_active));
	printf("smc_load: timed out after %us\n", timeout);
	fflush(stdout);
	fprintf(stderr, "smc_load: timed out after %us\n", timeout);
	_exit(3);
}

static void start_watchdog(void)
{
	pthread_t tid;

	if (!timeout)
		return;
	if (pthread_create(&tid, NULL, watchdog, NULL)) {
		fprintf(stderr, "smc_load: pthread_create failed\n");
		exit(1);
	}
	pthread_detach(tid);
}

static int client(const char *ip, int port)
{
	unsigned long long total = 0;
	struct cl_conn *conns;
	long i, failed = 0;
	double t0, t;

	if (inet_pton(AF_INET, ip, &srv_addr.sin_addr) != 1) {
		fprintf(stderr, "smc_load: bad IPv4 address '%s'\n", ip);
		return 2;
	}
	srv_addr.sin_family = AF_INET;
	srv_addr.sin_port = htons((unsigned short)port);
	conns = calloc((size_t)cl_conns, sizeof(*conns));
	if (!conns) {
		fprintf(stderr, "smc_load: out of memory\n");
		return 1;
	}
	for (i = 0; i < cl_conns; i++)
		conns[i].phase = "start";
	wd_conns = conns;
	start_watchdog();
	t0 = now();
	for (i = 0; i < cl_conns; i++) {
		conns[i].idx = i + 1;
		conns[i].fd = -1;
		conns[i].seed = splitmix(cl_seed ^ ((uint64_t)(i + 1) * GOLDEN));
		if (pthread_create(&conns[i].tid, NULL, cl_thread, &conns[i])) {
			fprintf(stderr, "smc_load: pthread_create failed\n");
			exit(1);
		}
	}
	gate_open(&go_gate);
	gate_open(&hold_gate);
	for (i = 0; i < cl_conns; i++) {
		struct cl_conn *c = &conns[i];

		pthread_join(c->tid, NULL);
		printf("smc_load: client conn=%ld mode=%s family=%s peer=%s:%d bytes=%llu sum=%016" PRIx64 " peer_sum=%016" PRIx64 " connect=%.3fs time=%.3fs rate=%.2fMB/s %s%s\n",
		       c->idx, mode_str(cl_mode), family_name, ip, port,
		       c->verified, c->sum_out, c->sum_in, c->t_connect,
		       c->t_data, c->t_data > 0 ? c->verified / c->t_data / 1e6 : 0.0,
		       c->failed ? "FAILED: " : "ok", c->failed ? c->err : "");
		if (c->failed)
			failed++;
		total += c->verified;
	}
	t = now() - t0;
	printf("smc_load: client mode=%s conns=%ld failed=%ld bytes=%llu time=%.3fs rate=%.2fMB/s\n",
	       mode_str(cl_mode), cl_conns, failed, total, t,
	       t > 0 ? total / t / 1e6 : 0.0);
	printf("conns=%ld bytes=%llu %s\n", cl_conns, total,
	       failed ? "FAILED" : "ok");
	fflush(stdout);
	/* conns stays allocated: the watchdog may still look at it */
	return failed ? 1 : 0;
}

static unsigned long long parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
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
		"usage: smc_load -s [-f smc|inet] [-p PORT] [-n CONNS] [-t SECS]\n"
		"       smc_load -c IP [-f smc|inet] [-p PORT] [-N CONNS] [-B BYTES]\n"
		"                [-m echo|stream] [-k CHUNK] [-S SEED] [-G FILE] [-W FILE]\n"
		"                [-t SECS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *ip = NULL;
	int server = 0, port = 12345, opt;
	long conns = 0;

	while ((opt = getopt(argc, argv, "sc:f:p:n:N:B:m:k:S:G:W:t:")) != -1) {
		switch (opt) {
		case 's': server = 1; break;
		case 'c': ip = optarg; break;
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
		case 'p': port = (int)parse_size(optarg); break;
		case 'n': conns = (long)parse_size(optarg); break;
		case 'N': cl_conns = (long)parse_size(optarg); break;
		case 'B': cl_bytes = parse_size(optarg); break;
		case 'm':
			if (!strcmp(optarg, "echo"))
				cl_mode = MODE_ECHO;
			else if (!strcmp(optarg, "stream"))
				cl_mode = MODE_STREAM;
			else
				usage();
			break;
		case 'k': chunk = (size_t)parse_size(optarg); break;
		case 'S': cl_seed = parse_size(optarg); break;
		case 'G': go_gate.file = optarg; break;
		case 'W': hold_gate.file = optarg; break;
		case 't': timeout = (unsigned int)parse_size(optarg); break;
		default: usage();
		}
	}
	if (server == !!ip || optind != argc || !chunk || port <= 0 ||
	    port > 65535 || cl_conns <= 0 || cl_conns > 4096)
		usage();
	signal(SIGPIPE, SIG_IGN);
	if (server)
		return serve(port, conns);
	return client(ip, port);
}
