// SPDX-License-Identifier: GPL-2.0
/*
 * inet_smc: SMC sockets made with socket(AF_INET or AF_INET6, SOCK_STREAM,
 * IPPROTO_SMC).
 *
 *   inet_smc probe
 *	For AF_INET and AF_INET6: create the socket, check SO_DOMAIN,
 *	SO_TYPE and SO_PROTOCOL, bind to the wildcard address, listen.
 *   inet_smc server [-6] [-p PORT] [-n CONNS] [-t SECS]
 *	Listen, accept CONNS connections, echo each (a process each) until
 *	the client closes.  Prints "listening" when ready.
 *   inet_smc client ADDR [-6] [-p PORT] [-n CONNS] [-B BYTES] [-W FILE] [-t SECS]
 *	Open CONNS connections, then on each send BYTES of seeded data and
 *	check every byte that comes back.  With -W, print "holding N" and
 *	keep all connections open until FILE exists.  Ends with
 *	"conns=N bytes=TOTAL ok" (exit 0) or a reason (exit 1).
 *
 * -6: an AF_INET6 socket (ADDR may be an IPv4-mapped address).  Every
 * socket the tool creates or accepts prints its SO_DOMAIN/SO_PROTOCOL;
 * created ones must say AF_INET or AF_INET6 and IPPROTO_SMC.  -t bounds
 * the whole run (default 120 s) and every single send or receive.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef IPPROTO_SMC
#define IPPROTO_SMC 256
#endif

#define CHUNK		65536
#define MAX_CONNS	64

static int family = AF_INET;
static int port = 5300;
static int conns = 1;
static long long bytes = 1 << 20;
static int secs = 120;
static const char *hold_file;

static void die(const char *what)
{
	fprintf(stderr, "inet_smc: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int sockopt_int(int fd, int opt)
{
	socklen_t len = sizeof(int);
	int val = -1;

	if (getsockopt(fd, SOL_SOCKET, opt, &val, &len))
		die("getsockopt");
	return val;
}

/* Print what the socket says it is; 0 if it is family @fam, IPPROTO_SMC. */
static int check_socket(int fd, const char *what, int fam)
{
	int dom = sockopt_int(fd, SO_DOMAIN);
	int type = sockopt_int(fd, SO_TYPE);
	int proto = sockopt_int(fd, SO_PROTOCOL);
	bool ok = type == SOCK_STREAM && proto == IPPROTO_SMC &&
		  (!fam || dom == fam);

	printf("%s: SO_DOMAIN=%d SO_TYPE=%d SO_PROTOCOL=%d%s\n", what, dom,
	       type, proto, ok ? "" : " UNEXPECTED");
	fflush(stdout);
	return ok ? 0 : -1;
}

static void set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = secs };

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		die("setsockopt timeouts");
}

static int new_socket(int fam)
{
	int fd = socket(fam, SOCK_STREAM, IPPROTO_SMC);

	if (fd < 0)
		die(fam == AF_INET6 ? "socket(AF_INET6, SOCK_STREAM, IPPROTO_SMC)" :
		    "socket(AF_INET, SOCK_STREAM, IPPROTO_SMC)");
	return fd;
}

static socklen_t make_addr(struct sockaddr_storage *ss, const char *ip)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		a->sin6_addr = in6addr_any;
		if (ip && inet_pton(AF_INET6, ip, &a->sin6_addr) != 1) {
			fprintf(stderr, "inet_smc: bad IPv6 address %s\n", ip);
			exit(2);
		}
		return sizeof(*a);
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;

	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	a->sin_addr.s_addr = htonl(INADDR_ANY);
	if (ip && inet_pton(AF_INET, ip, &a->sin_addr) != 1) {
		fprintf(stderr, "inet_smc: bad IPv4 address %s\n", ip);
		exit(2);
	}
	return sizeof(*a);
}

static int cmd_probe(void)
{
	static const int fams[] = { AF_INET, AF_INET6 };
	struct sockaddr_storage ss;
	int i, fd, rc = 0;

	for (i = 0; i < 2; i++) {
		const char *name = fams[i] == AF_INET ? "AF_INET" : "AF_INET6";
		char what[64];

		family = fams[i];
		port = 0;
		fd = new_socket(family);
		snprintf(what, sizeof(what), "probe %s socket", name);
		if (check_socket(fd, what, family))
			rc = 1;
		if (bind(fd, (struct sockaddr *)&ss, make_addr(&ss, NULL)) ||
		    listen(fd, 1)) {
			fprintf(stderr, "inet_smc: %s bind/listen: %s\n", name,
				strerror(errno));
			rc = 1;
		} else {
			snprintf(what, sizeof(what), "probe %s listener", name);
			if (check_socket(fd, what, family))
				rc = 1;
		}
		close(fd);
	}
	printf("probe %s\n", rc ? "FAILED" : "ok");
	return rc;
}

static ssize_t write_all(int fd, const uint8_t *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += n;
	}
	return done;
}

/* Child of the server: echo until EOF. */
static int echo(int fd, int idx)
{
	static uint8_t buf[CHUNK];
	long long total = 0;
	ssize_t n;

	set_timeouts(fd);
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "inet_smc: conn %d read: %s\n", idx,
				strerror(errno));
			return 1;
		}
		if (!n)
			break;
		if (write_all(fd, buf, n) < 0) {
			fprintf(stderr, "inet_smc: conn %d write: %s\n", idx,
				strerror(errno));
			return 1;
		}
		total += n;
	}
	printf("conn %d: echoed %lld bytes\n", idx, total);
	return 0;
}

static int server(void)
{
	struct sockaddr_storage ss;
	int lfd, fd, one = 1, i, status, rc = 0;
	pid_t pid;

	lfd = new_socket(family);
	if (setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		die("SO_REUSEADDR");
	if (bind(lfd, (struct sockaddr *)&ss, make_addr(&ss, NULL)))
		die("bind");
	if (listen(lfd, MAX_CONNS))
		die("listen");
	if (check_socket(lfd, "listener", family))
		rc = 1;
	printf("listening on port %d\n", port);
	fflush(stdout);
	for (i = 0; i < conns; i++) {
		char what[32];

		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			die("accept");
		snprintf(what, sizeof(what), "accepted %d", i);
		/* accepted sockets: IPPROTO_SMC, any domain */
		if (check_socket(fd, what, 0))
			rc = 1;
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

/* xorshift64: the data of connection @idx, checked byte by byte */
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
	uint64_t ws = 0x5eed0000ULL + idx, rs = ws;
	long long left = bytes;

	while (left) {
		size_t len = left < CHUNK ? left : CHUNK, got = 0;

		fill(out, len, &ws);
		if (write_all(fd, out, len) < 0) {
			fprintf(stderr, "inet_smc: conn %d write: %s\n", idx,
				strerror(errno));
			return -1;
		}
		fill(want, len, &rs);
		while (got < len) {
			ssize_t n = read(fd, in + got, len - got);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				fprintf(stderr, "inet_smc: conn %d read: %s\n",
					idx, n ? strerror(errno) : "EOF");
				return -1;
			}
			got += n;
		}
		if (memcmp(in, want, len)) {
			fprintf(stderr, "inet_smc: conn %d: echoed data differs at offset ~%lld\n",
				idx, bytes - left);
			return -1;
		}
		left -= len;
	}
	return 0;
}

static int client(const char *ip)
{
	struct sockaddr_storage ss;
	int fds[MAX_CONNS], i, rc = 0;
	socklen_t alen;

	alen = make_addr(&ss, ip);
	for (i = 0; i < conns; i++) {
		char what[32];

		fds[i] = new_socket(family);
		set_timeouts(fds[i]);
		snprintf(what, sizeof(what), "socket %d", i);
		if (check_socket(fds[i], what, family))
			rc = 1;
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

static void print_help(void)
{
	fprintf(stderr,
		"usage: inet_smc probe\n"
		"       inet_smc server [-6] [-p PORT] [-n CONNS] [-t SECS]\n"
		"       inet_smc client ADDR [-6] [-p PORT] [-n CONNS] [-B BYTES] [-W FILE] [-t SECS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *mode, *ip = NULL;
	int c;

	if (argc < 2)
		print_help();
	mode = argv[1];
	optind = 2;
	if (!strcmp(mode, "client")) {
		if (argc < 3)
			print_help();
		ip = argv[2];
		optind = 3;
	}
	while ((c = getopt(argc, argv, "6p:n:B:W:t:")) != -1) {
		switch (c) {
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
			print_help();
		}
	}
	if (optind != argc || conns < 1 || conns > MAX_CONNS || bytes < 0 ||
	    secs < 1)
		print_help();
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* bounds everything, including the hold */
	alarm(secs + (hold_file ? 300 : 0));
	if (!strcmp(mode, "probe"))
		return cmd_probe();
	if (!strcmp(mode, "server"))
		return server();
	if (!strcmp(mode, "client"))
		return client(ip);
	print_help();
	return 2;
}
