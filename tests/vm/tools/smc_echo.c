// SPDX-License-Identifier: GPL-2.0
/*
 * smc_echo - echo client/server over AF_SMC or AF_INET stream sockets.
 *
 *   smc_echo -s [-f smc|inet] [-p PORT] [-n CONNS] [-t SECS]
 *   smc_echo -c IP [-f smc|inet] [-p PORT] [-B BYTES] [-k CHUNK]
 *            [-N CONNS] [-t SECS]
 *
 * The client sends BYTES of pseudo-random data in CHUNK-sized pieces, reads
 * each piece back before sending the next, and checks that what came back
 * is what it sent (byte compare and FNV-1a checksum).  The server echoes
 * every byte back until the peer closes.  A connection that closes without
 * sending anything (a port probe) is not counted against -n.  -t arms an
 * alarm: the program fails if it is not done within SECS seconds.
 *
 * AF_SMC is 43; protocol 0 (SMCPROTO_SMC) takes IPv4 socket addresses.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
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

static int family = AF_SMC;
static const char *family_name = "smc";

static void on_alarm(int sig)
{
	static const char msg[] = "smc_echo: timed out\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
	while (n--) {
		h ^= *p++;
		h *= FNV_PRIME;
	}
	return h;
}

static int new_socket(void)
{
	int fd;

	if (family == AF_SMC)
		fd = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC);
	else
		fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0) {
		fprintf(stderr, "smc_echo: socket(%s): %s\n", family_name,
			strerror(errno));
		exit(1);
	}
	return fd;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
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

/* Returns the number of bytes read (< n only at EOF), or -1. */
static ssize_t read_full(int fd, unsigned char *p, size_t n)
{
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
		fprintf(stderr, "smc_echo: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static int serve(int port, long conns)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	static unsigned char buf[1 << 16];
	int one = 1, lfd;
	long done = 0;

	lfd = new_socket();
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	addr.sin_addr.s_addr = htonl(INADDR_ANY);
	addr.sin_port = htons((unsigned short)port);
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(lfd, 16) < 0) {
		fprintf(stderr, "smc_echo: bind/listen port %d: %s\n", port,
			strerror(errno));
		return 1;
	}
	printf("smc_echo: server family=%s listening port=%d\n", family_name,
	       port);
	fflush(stdout);

	while (conns <= 0 || done < conns) {
		struct sockaddr_in peer;
		socklen_t plen = sizeof(peer);
		unsigned long long bytes = 0;
		uint64_t sum = FNV_OFFSET;
		double t0;
		int fd = accept(lfd, (struct sockaddr *)&peer, &plen);

		if (fd < 0) {
			if (errno == EINTR)
				continue;
			perror("smc_echo: accept");
			return 1;
		}
		t0 = now();
		for (;;) {
			ssize_t r = read(fd, buf, sizeof(buf));

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				fprintf(stderr, "smc_echo: server read: %s\n",
					strerror(errno));
				close(fd);
				return 1;
			}
			if (r == 0)
				break;
			sum = fnv1a(sum, buf, (size_t)r);
			bytes += (unsigned long long)r;
			if (write_all(fd, buf, (size_t)r) < 0) {
				fprintf(stderr, "smc_echo: server write: %s\n",
					strerror(errno));
				close(fd);
				return 1;
			}
		}
		close(fd);
		if (!bytes)
			continue;	/* a port probe */
		done++;
		printf("smc_echo: server conn=%ld peer=%s bytes=%llu sum=%016" PRIx64 " time=%.3fs\n",
		       done, inet_ntoa(peer.sin_addr), bytes, sum, now() - t0);
		fflush(stdout);
	}
	close(lfd);
	return 0;
}

static int client_once(const char *ip, int port, unsigned long long total,
		       size_t chunk, long idx, uint32_t *seed)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	unsigned char *out = malloc(chunk), *in = malloc(chunk);
	uint64_t sum_out = FNV_OFFSET, sum_in = FNV_OFFSET;
	unsigned long long done = 0;
	double t0, t1, t2;
	int fd, rc = 0;

	if (!out || !in) {
		fprintf(stderr, "smc_echo: out of memory\n");
		exit(1);
	}
	if (inet_pton(AF_INET, ip, &addr.sin_addr) != 1) {
		fprintf(stderr, "smc_echo: bad IPv4 address '%s'\n", ip);
		exit(2);
	}
	addr.sin_port = htons((unsigned short)port);
	fd = new_socket();
	t0 = now();
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		fprintf(stderr, "smc_echo: connect %s:%d: %s\n", ip, port,
			strerror(errno));
		close(fd);
		free(out);
		free(in);
		return 1;
	}
	t1 = now();
	while (done < total) {
		size_t n = total - done < chunk ? (size_t)(total - done) : chunk;
		size_t i;
		ssize_t r;

		for (i = 0; i < n; i++) {
			*seed ^= *seed << 13;
			*seed ^= *seed >> 17;
			*seed ^= *seed << 5;
			out[i] = (unsigned char)*seed;
		}
		if (write_all(fd, out, n) < 0) {
			fprintf(stderr, "smc_echo: client write: %s\n",
				strerror(errno));
			rc = 1;
			break;
		}
		r = read_full(fd, in, n);
		if (r != (ssize_t)n) {
			fprintf(stderr, "smc_echo: client read: %s\n",
				r < 0 ? strerror(errno) : "early EOF");
			rc = 1;
			break;
		}
		sum_out = fnv1a(sum_out, out, n);
		sum_in = fnv1a(sum_in, in, n);
		if (memcmp(out, in, n)) {
			fprintf(stderr, "smc_echo: data mismatch at offset %llu\n",
				done);
			rc = 1;
			break;
		}
		done += n;
	}
	shutdown(fd, SHUT_WR);
	close(fd);
	t2 = now();
	if (!rc && sum_in != sum_out)
		rc = 1;
	printf("smc_echo: client conn=%ld family=%s peer=%s:%d bytes=%llu sum=%016" PRIx64 " echo_sum=%016" PRIx64 " connect=%.3fs time=%.3fs rate=%.2fMB/s %s\n",
	       idx, family_name, ip, port, done, sum_out, sum_in, t1 - t0,
	       t2 - t1, t2 > t1 ? 2.0 * done / (t2 - t1) / 1e6 : 0.0,
	       rc ? "FAILED" : "ok");
	fflush(stdout);
	free(out);
	free(in);
	return rc;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: smc_echo -s [-f smc|inet] [-p PORT] [-n CONNS] [-t SECS]\n"
		"       smc_echo -c IP [-f smc|inet] [-p PORT] [-B BYTES] [-k CHUNK] [-N CONNS] [-t SECS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long long bytes = 1 << 20;
	size_t chunk = 64 << 10;
	const char *ip = NULL;
	int server = 0, port = 12345, opt, rc = 0;
	long conns = 1, nconn = 1, i;
	unsigned int timeout = 0;
	uint32_t seed = 0x2545f491;

	while ((opt = getopt(argc, argv, "sc:f:p:n:N:B:k:t:")) != -1) {
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
		case 'N': nconn = (long)parse_size(optarg); break;
		case 'B': bytes = parse_size(optarg); break;
		case 'k': chunk = (size_t)parse_size(optarg); break;
		case 't': timeout = (unsigned int)parse_size(optarg); break;
		default: usage();
		}
	}
	if (server == !!ip || optind != argc || !chunk || port <= 0 ||
	    port > 65535)
		usage();
	signal(SIGPIPE, SIG_IGN);
	if (timeout) {
		signal(SIGALRM, on_alarm);
		alarm(timeout);
	}
	if (server)
		return serve(port, conns);
	for (i = 1; i <= nconn; i++)
		rc |= client_once(ip, port, bytes, chunk, i, &seed);
	return rc;
}
