// SPDX-License-Identifier: GPL-2.0
/*
 * smc_bench: the socket workloads of the benchmark (tests/bench).
 *
 *   smc_bench -s [-f tcp|smc] [-p PORT]
 *   smc_bench -c IP [-f tcp|smc] [-p PORT] -w rr     [-m SIZE] [-n ROUNDS]
 *   smc_bench -c IP ... -w stream [-P STREAMS] [-B BYTES] [-m WRITE]
 *   smc_bench -c IP ... -w crr    [-P THREADS] [-n CONNS]
 *   smc_bench -c IP ... -w idle   [-n CONNS] -W FILE
 *   smc_bench -c IP ... -w cpu -W FILE
 *
 * -f tcp opens AF_INET sockets, -f smc AF_SMC ones (SMCPROTO_SMC): the
 * same program measures TCP and any SMC module.  The server serves every
 * connection in a thread of its own; a connection starts with a 16-byte
 * request header (magic, workload, message size).
 *
 *   rr      ROUNDS round trips of SIZE bytes (after 10 % warm-up rounds):
 *           median, p99 and mean latency of the ROUNDS; "warmup" says
 *           how many came before them, for counts that cover them all
 *   stream  STREAMS connections each writing BYTES in WRITE-sized writes;
 *           the server acknowledges the count it read: MB/s over the
 *           wall time of all streams
 *   crr     THREADS threads each making CONNS connections with one 64 B
 *           request and response: connections per second
 *   idle    CONNS connections that only say hello, held open until FILE
 *           exists (memory per idle connection is measured meanwhile)
 *   cpu     nothing but the CPU figures below, until FILE exists:
 *           around another program's run
 *
 * Around each workload the client reads the busy and total jiffies of
 * both VMs: its own from /proc/stat, the server's through one more
 * connection that asks for them (cpu_local, cpu_peer: [busy, total]).
 * So the CPU cost counts what both kernels did for the workload and
 * nothing of the harness waiting around it.
 *
 * The result is one JSON object on stdout; anything wrong exits 1 with a
 * message on stderr.  Every byte is checked: the server echoes what it
 * got, the client compares.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_SMC
#define AF_SMC 43
#endif
#define SMCPROTO_SMC 0

#define MAGIC		0x534d4342u	/* "SMCB" */
#define HDR_LEN		16
#define MAX_MSG		(1 << 20)
#define CRR_MSG		64

enum { W_RR = 1, W_STREAM, W_CRR, W_IDLE, W_CPU };

static int use_smc;
static char result[512];	/* the workload's JSON object, open */
static struct sockaddr_in peer;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("smc_bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int new_socket(void)
{
	int fd = use_smc ? socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC) :
			   socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;

	if (fd < 0)
		die("socket(%s): %s", use_smc ? "AF_SMC" : "AF_INET",
		    strerror(errno));
	/* request/response: no Nagle delay, as any RPC program sets */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static int io_all(int fd, void *buf, size_t len, int wr)
{
	char *p = buf;

	while (len) {
		ssize_t n = wr ? write(fd, p, len) : read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= n;
	}
	return 0;
}

static void put32(unsigned char *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

/* busy and total jiffies of this machine, as /proc/stat's cpu line */
static void cpu_jiffies(uint64_t *busy, uint64_t *total)
{
	unsigned long long v[10] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int i, n = 0;

	*busy = 0;
	*total = 0;
	if (f) {
		n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7], &v[8], &v[9]);
		fclose(f);
	}
	if (n < 5)
		die("cannot read /proc/stat");
	for (i = 0; i < 8; i++)	/* guest times are in user and nice already */
		*total += v[i];
	/* idle and iowait are not busy */
	*busy = *total - v[3] - v[4];
}

/* ---- server ---- */

static void *srv_conn(void *arg)
{
	int fd = (int)(long)arg;
	unsigned char hdr[HDR_LEN];
	uint64_t got = 0, be;
	uint32_t w, size;
	char *buf = NULL;
	ssize_t n;

	if (io_all(fd, hdr, HDR_LEN, 0) || get32(hdr) != MAGIC)
		goto out;
	w = get32(hdr + 4);
	size = get32(hdr + 8);
	if (!size || size > MAX_MSG)
		goto out;
	buf = malloc(size);
	if (!buf)
		goto out;
	switch (w) {
	case W_CPU: {
		uint64_t v[2];

		cpu_jiffies(&v[0], &v[1]);
		v[0] = htobe64(v[0]);
		v[1] = htobe64(v[1]);
		io_all(fd, v, sizeof(v), 1);
		break;
	}
	case W_RR:
	case W_CRR:
	case W_IDLE:
		/* echo messages of @size until the client closes */
		while (!io_all(fd, buf, size, 0))
			if (io_all(fd, buf, size, 1))
				break;
		break;
	case W_STREAM:
		while ((n = read(fd, buf, size)) > 0 || (n < 0 && errno == EINTR))
			if (n > 0)
				got += n;
		be = htobe64(got);
		io_all(fd, &be, sizeof(be), 1);
		break;
	}
out:
	free(buf);
	close(fd);
	return NULL;
}

static void server(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	int lfd = new_socket(), one = 1, fd;
	pthread_attr_t attr;
	pthread_t t;

	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1024))
		die("bind/listen port %d: %s", port, strerror(errno));
	printf("smc_bench: listening port=%d family=%s\n", port,
	       use_smc ? "smc" : "tcp");
	fflush(stdout);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (;;) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED ||
			    errno == EMFILE || errno == ENFILE)
				continue;
			die("accept: %s", strerror(errno));
		}
		if (pthread_create(&t, &attr, srv_conn, (void *)(long)fd))
			close(fd);
	}
}

/* ---- client ---- */

static int connect_hdr(uint32_t w, uint32_t size)
{
	unsigned char hdr[HDR_LEN] = { 0 };
	int fd = new_socket();

	if (connect(fd, (struct sockaddr *)&peer, sizeof(peer)))
		die("connect: %s", strerror(errno));
	put32(hdr, MAGIC);
	put32(hdr + 4, w);
	put32(hdr + 8, size);
	if (io_all(fd, hdr, HDR_LEN, 1))
		die("write header: %s", strerror(errno));
	return fd;
}

static void fill(char *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (char)(seed >> 16);
	}
}

/* one round trip of @size bytes on @fd; the echo must equal what went */
static void round_trip(int fd, const char *out, char *in, uint32_t size)
{
	int rc = io_all(fd, (void *)out, size, 1);

	if (!rc)
		rc = io_all(fd, in, size, 0);
	if (rc)
		die("round trip of %u bytes: %s", size, strerror(-rc));
	if (memcmp(out, in, size))
		die("round trip of %u bytes: echo differs", size);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void client_rr(uint32_t size, long rounds)
{
	long warm = rounds / 10, i;
	char *out = malloc(size), *in = malloc(size);
	double *lat = calloc(rounds, sizeof(*lat)), sum = 0, t;
	int fd;

	if (!out || !in || !lat)
		die("out of memory");
	fill(out, size, size);
	fd = connect_hdr(W_RR, size);
	for (i = 0; i < warm; i++)
		round_trip(fd, out, in, size);
	for (i = 0; i < rounds; i++) {
		t = now();
		round_trip(fd, out, in, size);
		lat[i] = (now() - t) * 1e6;
		sum += lat[i];
	}
	close(fd);
	qsort(lat, rounds, sizeof(*lat), cmp_double);
	snprintf(result, sizeof(result),
		 "{\"workload\":\"rr\",\"size\":%u,\"rounds\":%ld,\"warmup\":%ld,\"median_us\":%.1f,\"p99_us\":%.1f,\"mean_us\":%.1f",
		 size, rounds, warm, lat[rounds / 2], lat[(long)((rounds - 1) * 0.99)], sum / rounds);
	free(lat);
	free(in);
	free(out);
}

struct stream_arg {
	uint64_t bytes;
	uint32_t wsize;
	int fd;
};

static void *stream_thread(void *arg)
{
	struct stream_arg *s = arg;
	uint64_t left = s->bytes, ack;
	char *buf = malloc(s->wsize);
	uint32_t n;

	if (!buf)
		die("out of memory");
	fill(buf, s->wsize, 7);
	while (left) {
		n = left < s->wsize ? (uint32_t)left : s->wsize;
		if (io_all(s->fd, buf, n, 1))
			die("stream write: %s", strerror(errno));
		left -= n;
	}
	shutdown(s->fd, SHUT_WR);
	if (io_all(s->fd, &ack, sizeof(ack), 0))
		die("stream ack: %s", strerror(errno));
	if (be64toh(ack) != s->bytes)
		die("stream: server read %llu of %llu bytes",
		    (unsigned long long)be64toh(ack),
		    (unsigned long long)s->bytes);
	close(s->fd);
	free(buf);
	return NULL;
}

static void client_stream(int streams, uint64_t bytes, uint32_t wsize)
{
	struct stream_arg *a = calloc(streams, sizeof(*a));
	pthread_t *t = calloc(streams, sizeof(*t));
	double t0, secs;
	int i;

	if (!a || !t)
		die("out of memory");
	/* connect all first: the measured time is data only */
	for (i = 0; i < streams; i++) {
		a[i].fd = connect_hdr(W_STREAM, wsize);
		a[i].bytes = bytes;
		a[i].wsize = wsize;
	}
	t0 = now();
	for (i = 0; i < streams; i++)
		if (pthread_create(&t[i], NULL, stream_thread, &a[i]))
			die("pthread_create");
	for (i = 0; i < streams; i++)
		pthread_join(t[i], NULL);
	secs = now() - t0;
	snprintf(result, sizeof(result),
		 "{\"workload\":\"stream\",\"streams\":%d,\"write\":%u,\"bytes\":%llu,\"secs\":%.3f,\"mbps\":%.2f",
		 streams, wsize, (unsigned long long)bytes * streams, secs, bytes * streams / secs / 1e6);
	free(t);
	free(a);
}

struct crr_arg {
	long conns;
	unsigned int seed;
};

static void *crr_thread(void *arg)
{
	struct crr_arg *c = arg;
	char out[CRR_MSG], in[CRR_MSG];
	long i;
	int fd;

	for (i = 0; i < c->conns; i++) {
		fill(out, sizeof(out), c->seed + i);
		fd = connect_hdr(W_CRR, CRR_MSG);
		round_trip(fd, out, in, CRR_MSG);
		close(fd);
	}
	return NULL;
}

static void client_crr(int threads, long conns)
{
	struct crr_arg *a = calloc(threads, sizeof(*a));
	pthread_t *t = calloc(threads, sizeof(*t));
	double t0, secs;
	int i;

	if (!a || !t)
		die("out of memory");
	t0 = now();
	for (i = 0; i < threads; i++) {
		a[i].conns = conns;
		a[i].seed = 1000u * i;
		if (pthread_create(&t[i], NULL, crr_thread, &a[i]))
			die("pthread_create");
	}
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	secs = now() - t0;
	snprintf(result, sizeof(result),
		 "{\"workload\":\"crr\",\"threads\":%d,\"conns\":%ld,\"secs\":%.3f,\"cps\":%.2f",
		 threads, conns * threads, secs, conns * threads / secs);
	free(t);
	free(a);
}

/* CONNS connections, one hello each, held until @file exists */
static void client_idle(long conns, const char *file)
{
	char out[CRR_MSG], in[CRR_MSG];
	int *fds = calloc(conns, sizeof(*fds));
	struct stat st;
	long i;

	if (!fds)
		die("out of memory");
	fill(out, sizeof(out), 99);
	for (i = 0; i < conns; i++) {
		fds[i] = connect_hdr(W_IDLE, CRR_MSG);
		round_trip(fds[i], out, in, CRR_MSG);
	}
	printf("smc_bench: idle %ld connections open\n", conns);
	fflush(stdout);
	while (stat(file, &st))
		usleep(100000);
	for (i = 0; i < conns; i++)
		close(fds[i]);
	snprintf(result, sizeof(result),
		 "{\"workload\":\"idle\",\"conns\":%ld",
		 conns);
	free(fds);
}

/* [busy, total] jiffies of the server's machine */
static void peer_cpu(uint64_t *busy, uint64_t *total)
{
	int fd = connect_hdr(W_CPU, 1);
	uint64_t v[2];

	if (io_all(fd, v, sizeof(v), 0))
		die("server CPU figures: %s", strerror(errno));
	close(fd);
	*busy = be64toh(v[0]);
	*total = be64toh(v[1]);
}

static void usage(void)
{
	fputs("usage: smc_bench -s [-f tcp|smc] [-p PORT]\n"
	      "       smc_bench -c IP [-f tcp|smc] [-p PORT] -w rr|stream|crr|idle|cpu\n"
	      "                 [-m SIZE] [-n N] [-P PAR] [-B BYTES] [-W FILE]\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *ip = NULL, *wl = NULL, *file = NULL;
	long n = 0, size = 0, par = 1;
	unsigned long long bytes = 64ull << 20;
	int srv = 0, port = 5600, opt;
	uint64_t lb0, lt0, lb1, lt1, pb0, pt0, pb1, pt1;
	struct stat st;

	while ((opt = getopt(argc, argv, "sc:f:p:w:m:n:P:B:W:")) != -1) {
		switch (opt) {
		case 's': srv = 1; break;
		case 'c': ip = optarg; break;
		case 'f':
			if (!strcmp(optarg, "smc"))
				use_smc = 1;
			else if (strcmp(optarg, "tcp"))
				usage();
			break;
		case 'p': port = atoi(optarg); break;
		case 'w': wl = optarg; break;
		case 'm': size = atol(optarg); break;
		case 'n': n = atol(optarg); break;
		case 'P': par = atol(optarg); break;
		case 'B': bytes = strtoull(optarg, NULL, 0); break;
		case 'W': file = optarg; break;
		default: usage();
		}
	}
	if (port <= 0 || port > 65535 || par < 1 || par > 256 || size < 0 ||
	    size > MAX_MSG || n < 0)
		usage();
	if (srv)
		server(port);
	if (!ip || !wl)
		usage();
	peer.sin_family = AF_INET;
	peer.sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &peer.sin_addr) != 1)
		usage();
	cpu_jiffies(&lb0, &lt0);
	peer_cpu(&pb0, &pt0);
	if (!strcmp(wl, "cpu") && file) {
		snprintf(result, sizeof(result), "{\"workload\":\"cpu\"");
		while (stat(file, &st))
			usleep(100000);
	} else if (!strcmp(wl, "rr")) {
		client_rr(size ?: 64, n ?: 1000);
	} else if (!strcmp(wl, "stream")) {
		client_stream(par, bytes, size ?: 65536);
	} else if (!strcmp(wl, "crr")) {
		client_crr(par, n ?: 50);
	} else if (!strcmp(wl, "idle") && file) {
		client_idle(n ?: 50, file);
	} else {
		usage();
	}
	peer_cpu(&pb1, &pt1);
	cpu_jiffies(&lb1, &lt1);
	printf("%s,\"cpu_local\":[%llu,%llu],\"cpu_peer\":[%llu,%llu]}\n",
	       result, (unsigned long long)(lb1 - lb0),
	       (unsigned long long)(lt1 - lt0),
	       (unsigned long long)(pb1 - pb0),
	       (unsigned long long)(pt1 - pt0));
	return 0;
}
