// SPDX-License-Identifier: GPL-2.0
/*
 * smcload - many AF_SMC connections at once, or many short ones.
 *
 *   smcload -s [-p PORT] [-t SECS]
 *   smcload -c IP [-p PORT] -n CONNS [-P THREADS] [-B BYTES] [-W FILE]
 *           [-t SECS]
 *   smcload -c IP [-p PORT] -m CYCLES [-P THREADS] [-B BYTES] [-t SECS]
 *
 * Server: one thread, epoll over the listener and every accepted socket;
 * whatever a connection sends comes straight back.  It runs until SIGTERM
 * or SIGINT (or -t SECS) and then prints "server accepted=N closed=N
 * bytes=N errors=N".
 *
 * Client, -n (concurrent): THREADS threads (default 16) open CONNS
 * connections between them, one after the other per thread, and keep all
 * of them open.  Once every connect() returned, each connection sends
 * BYTES (default 1024) of data seeded by its number and reads it back,
 * byte for byte compared.  Then the client asks the kernel (sock_diag,
 * AF_SMC) for the mode of its sockets and prints "modes smcr=N
 * fallback=N smcd=N unknown=N"; with -W it prints "holding N connections"
 * and waits until FILE exists; then it closes them all.
 *
 * Client, -m (short): THREADS threads run CYCLES connect, send BYTES,
 * read them back and check them, close cycles between them.
 *
 * Both client modes print the time of each phase, connect latency
 * (min/avg/max), and end with "conns=N ok=N failed=N bytes=N" and "ok"
 * or "FAILED".  Exit code 0 only when every connection passed (and, for
 * -n, every socket was in SMC-R mode); 3 on -t timeout.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/smc_diag.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
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
#define GOLDEN 0x9e3779b97f4a7c15ULL
#define MAX_BYTES (1 << 20)

static struct sockaddr_in peer;
static unsigned int nthreads = 16;
static unsigned int bytes = 1024;
static unsigned int total;	/* -n CONNS or -m CYCLES */
static const char *hold_file;

/* per connection (-n) */
struct conn {
	int fd;
	double connect_ms;
	bool ok;
	uint64_t inode;
};

static struct conn *conns;
static pthread_barrier_t phase;

/* results, under stats_lock */
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int n_ok, n_failed;
static uint64_t n_bytes;
static double lat_min = 1e9, lat_max, lat_sum;
static unsigned int lat_n;
static unsigned int next_cycle;	/* -m, atomic */
static char first_error[160];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_alarm(int sig)
{
	static const char msg[] = "smcload: timed out\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

static void note_error(unsigned int idx, const char *what, int err)
{
	pthread_mutex_lock(&stats_lock);
	if (!first_error[0])
		snprintf(first_error, sizeof(first_error),
			 "connection %u: %s: %s", idx, what,
			 err ? strerror(err) : "bad data");
	pthread_mutex_unlock(&stats_lock);
}

static void note_latency(double ms)
{
	pthread_mutex_lock(&stats_lock);
	if (ms < lat_min)
		lat_min = ms;
	if (ms > lat_max)
		lat_max = ms;
	lat_sum += ms;
	lat_n++;
	pthread_mutex_unlock(&stats_lock);
}

static void note_result(bool ok, unsigned int len)
{
	pthread_mutex_lock(&stats_lock);
	if (ok) {
		n_ok++;
		n_bytes += len;
	} else {
		n_failed++;
	}
	pthread_mutex_unlock(&stats_lock);
}

/* byte o of connection idx's data */
static void fill(unsigned char *buf, unsigned int len, unsigned int idx)
{
	uint64_t x = (idx + 1) * GOLDEN;
	unsigned int i;

	for (i = 0; i < len; i++) {
		x ^= x >> 31;
		x *= GOLDEN;
		buf[i] = (unsigned char)(x >> 56);
	}
}

/* open and connect one socket; returns the fd or -errno */
static int open_conn(unsigned int idx, double *ms)
{
	double t0 = now();
	int fd, err;

	fd = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC);
	if (fd < 0) {
		err = errno;
		note_error(idx, "socket", err);
		return -err;
	}
	if (connect(fd, (struct sockaddr *)&peer, sizeof(peer))) {
		err = errno;
		note_error(idx, "connect", err);
		close(fd);
		return -err;
	}
	*ms = (now() - t0) * 1000;
	note_latency(*ms);
	return fd;
}

/* send the connection's data, read it back and compare; true if equal */
static bool exchange(int fd, unsigned int idx, unsigned char *out,
		     unsigned char *in)
{
	unsigned int done = 0, got = 0;
	ssize_t n;

	fill(out, bytes, idx);
	while (done < bytes) {
		n = write(fd, out + done, bytes - done);
		if (n <= 0) {
			note_error(idx, "write", n < 0 ? errno : EPIPE);
			return false;
		}
		done += n;
	}
	while (got < bytes) {
		n = read(fd, in + got, bytes - got);
		if (n <= 0) {
			note_error(idx, "read", n < 0 ? errno : ECONNRESET);
			return false;
		}
		got += n;
	}
	if (memcmp(out, in, bytes)) {
		note_error(idx, "compare", 0);
		return false;
	}
	return true;
}

/* ---- -n: concurrent connections ---- */

static void *concurrent_thread(void *arg)
{
	unsigned int t = (uintptr_t)arg, i;
	unsigned char *out = malloc(bytes), *in = malloc(bytes);
	struct stat st;
	int fd;

	if (!out || !in) {
		perror("malloc");
		exit(1);
	}
	for (i = t; i < total; i += nthreads) {
		conns[i].fd = -1;
		fd = open_conn(i, &conns[i].connect_ms);
		if (fd < 0)
			continue;
		conns[i].fd = fd;
		if (!fstat(fd, &st))
			conns[i].inode = st.st_ino;
	}
	pthread_barrier_wait(&phase);	/* all connected */
	pthread_barrier_wait(&phase);	/* main took the time */
	for (i = t; i < total; i += nthreads) {
		if (conns[i].fd < 0) {
			note_result(false, 0);
			continue;
		}
		conns[i].ok = exchange(conns[i].fd, i, out, in);
		note_result(conns[i].ok, bytes);
	}
	pthread_barrier_wait(&phase);	/* all verified */
	free(out);
	free(in);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Count the modes of our sockets from an AF_SMC sock_diag dump.  Returns
 * false when the dump cannot be had (module without diag).
 */
static bool diag_modes(unsigned int cnt[4])
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
	uint64_t *inodes = malloc(sizeof(*inodes) * (total + 1));
	unsigned int i, n = 0;
	bool done = false;
	int fd;

	if (!inodes)
		return false;
	for (i = 0; i < total; i++)
		if (conns[i].fd >= 0)
			inodes[n++] = conns[i].inode;
	qsort(inodes, n, sizeof(*inodes), cmp_u64);
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
				done = true;
				break;
			}
			ino = m->diag_inode;
			if (!bsearch(&ino, inodes, n, sizeof(ino), cmp_u64))
				continue;
			cnt[m->diag_mode < 3 ? m->diag_mode : 3]++;
		}
	}
	close(fd);
	free(inodes);
	return done;
}

static int run_concurrent(void)
{
	pthread_t *tids = calloc(nthreads, sizeof(*tids));
	unsigned int i, cnt[4];
	double t0, t1, t2, t3;
	bool modes_ok;

	conns = calloc(total, sizeof(*conns));
	if (!tids || !conns) {
		perror("calloc");
		return 1;
	}
	pthread_barrier_init(&phase, NULL, nthreads + 1);
	t0 = now();
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, concurrent_thread,
				   (void *)(uintptr_t)i)) {
			perror("pthread_create");
			return 1;
		}
	pthread_barrier_wait(&phase);
	t1 = now();
	printf("smcload: connected %u of %u in %.2f s (%.1f/s), connect ms min %.1f avg %.1f max %.1f\n",
	       lat_n, total, t1 - t0, lat_n / (t1 - t0),
	       lat_n ? lat_min : 0, lat_n ? lat_sum / lat_n : 0, lat_max);
	fflush(stdout);
	pthread_barrier_wait(&phase);
	pthread_barrier_wait(&phase);
	t2 = now();
	printf("smcload: verified %u of %u (%" PRIu64 " bytes) in %.2f s\n",
	       n_ok, total, n_bytes, t2 - t1);
	modes_ok = diag_modes(cnt);
	if (modes_ok)
		printf("smcload: modes smcr=%u fallback=%u smcd=%u unknown=%u\n",
		       cnt[SMC_DIAG_MODE_SMCR], cnt[SMC_DIAG_MODE_FALLBACK_TCP],
		       cnt[SMC_DIAG_MODE_SMCD], cnt[3]);
	else
		printf("smcload: modes unknown (no AF_SMC sock_diag)\n");
	if (cnt[SMC_DIAG_MODE_SMCR] != lat_n)
		modes_ok = false;
	if (hold_file) {
		printf("smcload: holding %u connections\n", lat_n);
		fflush(stdout);
		while (access(hold_file, F_OK))
			usleep(100000);
	}
	t3 = now();
	for (i = 0; i < total; i++)
		if (conns[i].fd >= 0)
			close(conns[i].fd);
	printf("smcload: closed %u in %.2f s\n", lat_n, now() - t3);
	for (i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	if (first_error[0])
		printf("smcload: first error: %s\n", first_error);
	printf("conns=%u ok=%u failed=%u bytes=%" PRIu64 " %s\n", total, n_ok,
	       n_failed, n_bytes,
	       n_ok == total && modes_ok ? "ok" : "FAILED");
	return n_ok == total && modes_ok ? 0 : 1;
}

/* ---- -m: short connections ---- */

static void *short_thread(void *arg)
{
	unsigned char *out = malloc(bytes), *in = malloc(bytes);
	unsigned int i;
	double ms;
	bool ok;
	int fd;

	(void)arg;
	if (!out || !in) {
		perror("malloc");
		exit(1);
	}
	for (;;) {
		i = __atomic_fetch_add(&next_cycle, 1, __ATOMIC_RELAXED);
		if (i >= total)
			break;
		fd = open_conn(i, &ms);
		if (fd < 0) {
			note_result(false, 0);
			continue;
		}
		ok = exchange(fd, i, out, in);
		if (close(fd) && ok) {
			note_error(i, "close", errno);
			ok = false;
		}
		note_result(ok, bytes);
	}
	free(out);
	free(in);
	return NULL;
}

static int run_short(void)
{
	pthread_t *tids = calloc(nthreads, sizeof(*tids));
	double t0, t;
	unsigned int i;

	if (!tids) {
		perror("calloc");
		return 1;
	}
	t0 = now();
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, short_thread, NULL)) {
			perror("pthread_create");
			return 1;
		}
	for (i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	t = now() - t0;
	printf("smcload: %u cycles, %u threads, %.2f s (%.1f cycles/s), connect ms min %.1f avg %.1f max %.1f\n",
	       total, nthreads, t, total / t, lat_n ? lat_min : 0,
	       lat_n ? lat_sum / lat_n : 0, lat_max);
	if (first_error[0])
		printf("smcload: first error: %s\n", first_error);
	printf("conns=%u ok=%u failed=%u bytes=%" PRIu64 " %s\n", total, n_ok,
	       n_failed, n_bytes, n_ok == total ? "ok" : "FAILED");
	return n_ok == total ? 0 : 1;
}

/* ---- server ---- */

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static int run_server(unsigned short port)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	uint64_t accepted = 0, closed = 0, echoed = 0, errors = 0;
	struct epoll_event ev, evs[64];
	static char buf[65536];
	int lfd, ep, i, n, fd, one = 1;
	ssize_t r, w, off;

	lfd = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC);
	if (lfd < 0) {
		perror("socket(AF_SMC)");
		return 1;
	}
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1024)) {
		perror("bind/listen");
		return 1;
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.events = EPOLLIN;
	ev.data.fd = lfd;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev)) {
		perror("epoll");
		return 1;
	}
	printf("smcload: listening on port %u\n", port);
	fflush(stdout);
	while (!stop) {
		n = epoll_wait(ep, evs, 64, 200);
		if (n < 0 && errno != EINTR) {
			perror("epoll_wait");
			return 1;
		}
		for (i = 0; i < n; i++) {
			fd = evs[i].data.fd;
			if (fd == lfd) {
				fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
				if (fd < 0) {
					errors++;
					continue;
				}
				accepted++;
				ev.events = EPOLLIN;
				ev.data.fd = fd;
				if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)) {
					errors++;
					close(fd);
					closed++;
				}
				continue;
			}
			r = read(fd, buf, sizeof(buf));
			for (off = 0; r > 0 && off < r; off += w) {
				w = write(fd, buf + off, r - off);
				if (w <= 0) {
					r = -1;
					break;
				}
			}
			if (r > 0) {
				echoed += r;
				continue;
			}
			if (r < 0)
				errors++;
			close(fd);	/* also leaves the epoll set */
			closed++;
		}
	}
	printf("server accepted=%" PRIu64 " closed=%" PRIu64 " bytes=%" PRIu64
	       " errors=%" PRIu64 "\n", accepted, closed, echoed, errors);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: smcload -s [-p PORT] [-t SECS]\n"
		"       smcload -c IP [-p PORT] -n CONNS|-m CYCLES [-P THREADS] [-B BYTES] [-W FILE] [-t SECS]\n");
	exit(64);
}

int main(int argc, char **argv)
{
	unsigned int secs = 0, port = 5200;
	const char *ip = NULL;
	bool server = false, cycles = false;
	struct rlimit rl;
	int c;

	while ((c = getopt(argc, argv, "sc:p:n:m:P:B:W:t:")) != -1) {
		switch (c) {
		case 's':
			server = true;
			break;
		case 'c':
			ip = optarg;
			break;
		case 'p':
			port = strtoul(optarg, NULL, 0);
			break;
		case 'n':
		case 'm':
			total = strtoul(optarg, NULL, 0);
			cycles = c == 'm';
			break;
		case 'P':
			nthreads = strtoul(optarg, NULL, 0);
			break;
		case 'B':
			bytes = strtoul(optarg, NULL, 0);
			break;
		case 'W':
			hold_file = optarg;
			break;
		case 't':
			secs = strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (server == !!ip || !port || port > 65535 || !bytes ||
	    bytes > MAX_BYTES || !nthreads || (!server && !total))
		usage();
	if (nthreads > total && !server)
		nthreads = total;
	signal(SIGPIPE, SIG_IGN);
	if (secs) {
		signal(SIGALRM, on_alarm);
		alarm(secs);
	}
	/* room for every connection (and the server's epoll set) */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (server) {
		signal(SIGTERM, on_stop);
		signal(SIGINT, on_stop);
		return run_server(port);
	}
	peer.sin_family = AF_INET;
	peer.sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &peer.sin_addr) != 1)
		usage();
	return cycles ? run_short() : run_concurrent();
}
