// SPDX-License-Identifier: GPL-2.0
/*
 * smcctl check [-6] [-t SECS] HOST:PORT
 * smcctl check --server [-6] [-t SECS] PORT
 *
 * One live connection over AF_SMC, and what became of it: SMC-R, or TCP
 * with the fallback reason (and the peer's, when it declined) and what to
 * do about it.  The mode comes from the AF_SMC sock_diag entry of the
 * socket (found by its inode), as `smcctl connections` shows it.  The
 * server accepts one connection, reports, waits briefly for the client
 * to close and exits: run it on one host and the client on the other.
 */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>

#include <linux/smc.h>
#include <linux/smc_diag.h>

#include "reasons.h"
#include "smcctl.h"

#define CHECK_TIMEOUT	10	/* client: seconds for connect and handshake */
#define SMC_STATE_INIT	2

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* milliseconds left until @deadline (-1: none), at least 0 */
static int left_ms(int64_t deadline)
{
	int64_t d;

	if (deadline < 0)
		return -1;
	d = deadline - now_ms();
	return d < 0 ? 0 : d > 1000000000 ? 1000000000 : (int)d;
}

static int smc_socket(int family, int flags)
{
	int fd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC | flags,
			family == AF_INET6 ? SMCPROTO_SMC6 : SMCPROTO_SMC);

	if (fd < 0 && (errno == EAFNOSUPPORT || errno == EPROTONOSUPPORT))
		die(EXIT_NOSMC, "AF_SMC sockets are not available: is the smc "
		    "module loaded?");
	if (fd < 0)
		die(EXIT_ERR, "AF_SMC socket: %s", strerror(errno));
	return fd;
}

/*
 * The diag entry of @fd once its handshake is decided (the state is no
 * longer INIT), waiting until @deadline.
 */
static void await_mode(int fd, int64_t deadline, struct sock_info *si)
{
	struct stat st;
	int err;

	if (fstat(fd, &st))
		die(EXIT_ERR, "fstat: %s", strerror(errno));
	for (;;) {
		err = sock_lookup((uint64_t)st.st_ino, si);
		if (err == EAFNOSUPPORT)
			die(EXIT_ERR, "connected, but there is no AF_SMC sock_diag "
			    "handler to tell the mode (modprobe smc_diag)");
		if (err && err != ENOENT)
			die(EXIT_ERR, "AF_SMC sock_diag dump failed: %s",
			    strerror(err));
		if (!err && si->state != SMC_STATE_INIT)
			return;
		if (!left_ms(deadline))
			break;
		usleep(50 * 1000);
	}
	if (err)
		die(EXIT_ERR, "connected, but sock_diag does not list the socket");
	die(EXIT_ERR, "connected, but the SMC handshake did not end in time");
}

static void json_reason(struct json *j, const char *key, uint32_t code)
{
	char k[64];

	json_u64(j, key, code);
	snprintf(k, sizeof(k), "%s_hex", key);
	json_strf(j, k, "0x%08" PRIx32, code);
	snprintf(k, sizeof(k), "%s_name", key);
	json_str(j, k, smc_reason_name(code));
	snprintf(k, sizeof(k), "%s_text", key);
	json_str(j, k, smc_reason_text(code));
}

/* print what became of the connection; returns the exit code */
static int report(const char *role, const struct sock_info *si)
{
	const struct smc_reason *r = NULL;
	bool smc = si->mode != SMC_DIAG_MODE_FALLBACK_TCP;
	struct json j;

	if (!smc) {
		/* the peer's own reason says more than "peer declined" */
		r = smc_reason_find(si->reason);
		if (si->peer_diag && smc_reason_find(si->peer_diag))
			r = smc_reason_find(si->peer_diag);
	}
	if (opt.json) {
		json_init(&j, stdout);
		json_obj_open(&j, NULL);
		json_str(&j, "role", role);
		json_str(&j, "local", si->local);
		json_str(&j, "peer", si->peer);
		json_str(&j, "mode", mode_name(si->mode));
		json_str(&j, "state", state_name(si->state));
		if (si->lgr_known) {
			json_u64(&j, "smc_version", si->version);
			json_u64(&j, "smc_release", si->release);
			json_u64(&j, "lgr_id", si->lgr_id);
		} else {
			json_null(&j, "smc_version");
			json_null(&j, "smc_release");
			json_null(&j, "lgr_id");
		}
		json_str(&j, "ibdev", si->ibdev[0] ? si->ibdev : NULL);
		if (si->ibdev[0])
			json_u64(&j, "ibport", si->ibport);
		else
			json_null(&j, "ibport");
		json_str(&j, "netdev", si->netdev[0] ? si->netdev : NULL);
		json_reason(&j, "fallback_reason", si->reason);
		json_reason(&j, "peer_diagnosis", si->peer_diag);
		json_str(&j, "hint", r ? r->remedy : NULL);
		json_obj_close(&j);
		putchar('\n');
		return smc ? 0 : EXIT_FALLBACK;
	}
	printf("%s %s, peer %s: ", role, si->local, si->peer);
	if (si->mode == SMC_DIAG_MODE_SMCD) {
		printf("SMC-D\n");
		return 0;
	}
	if (smc) {
		if (si->lgr_known)
			printf("SMC-R v%u (release %u, link group %08" PRIx32,
			       si->version, si->release, si->lgr_id);
		else
			printf("SMC-R (link group unknown");
		if (si->ibdev[0])
			printf(", %s port %u", vis(si->ibdev), si->ibport);
		if (si->netdev[0])
			printf(", %s", vis(si->netdev));
		printf(")\n");
		return 0;
	}
	printf("TCP fallback: %s (0x%08" PRIx32 " %s)\n",
	       smc_reason_text(si->reason), si->reason,
	       smc_reason_name(si->reason));
	if (si->peer_diag)
		printf("  the peer's reason: %s (0x%08" PRIx32 " %s)\n",
		       smc_reason_text(si->peer_diag), si->peer_diag,
		       smc_reason_name(si->peer_diag));
	if (r)
		printf("  what to do%s: %s\n",
		       r->code == si->peer_diag ? " (on the peer)" : "",
		       r->remedy);
	return EXIT_FALLBACK;
}

/* HOST:PORT or [HOST]:PORT into its halves (in @buf) */
static void split_hostport(char *buf, const char **host, const char **port)
{
	char *colon;

	if (buf[0] == '[') {
		colon = strchr(buf, ']');
		if (!colon || colon[1] != ':')
			die(EXIT_USAGE, "check: want [ADDRESS]:PORT, not %s", buf);
		*colon = '\0';
		*host = buf + 1;
		*port = colon + 2;
	} else {
		colon = strrchr(buf, ':');
		if (!colon || strchr(buf, ':') != colon)
			die(EXIT_USAGE, "check: want HOST:PORT or [IPV6]:PORT, not %s",
			    buf);
		*colon = '\0';
		*host = buf;
		*port = colon + 1;
	}
	if (!**host || !**port)
		die(EXIT_USAGE, "check: want HOST:PORT");
}

/* a non-blocking connect of @fd, finished by @deadline; 0 or an errno */
static int connect_by(int fd, const struct addrinfo *ai, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int err = 0, n;

	if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
		return 0;
	if (errno != EINPROGRESS)
		return errno;
	do {
		n = poll(&p, 1, left_ms(deadline));
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno;
	if (!n)
		return ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
		return errno;
	return err;
}

static int check_client(const char *arg)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	const char *host, *port;
	struct sock_info si;
	int64_t deadline;
	int fd = -1, err = 0, rc;
	char *buf, name[NI_MAXHOST];

	buf = strdup(arg);
	if (!buf)
		die(EXIT_ERR, "out of memory");
	split_hostport(buf, &host, &port);
	hints.ai_family = opt.ipv6 ? AF_INET6 : AF_UNSPEC;
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc)
		die(EXIT_ERR, "check: %s: %s", arg, gai_strerror(rc));
	deadline = now_ms() + 1000LL * (opt.timeout ? opt.timeout : CHECK_TIMEOUT);
	for (ai = res; ai; ai = ai->ai_next) {
		if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
			continue;
		fd = smc_socket(ai->ai_family, SOCK_NONBLOCK);
		err = connect_by(fd, ai, deadline);
		if (!err)
			break;
		if (getnameinfo(ai->ai_addr, ai->ai_addrlen, name, sizeof(name),
				NULL, 0, NI_NUMERICHOST))
			snprintf(name, sizeof(name), "?");
		fprintf(stderr, "%s: check: connect to %s port %s: %s\n", prog,
			name, port, strerror(err));
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		die(EXIT_ERR, "check: cannot connect to %s", arg);
	await_mode(fd, deadline, &si);
	rc = report("client", &si);
	close(fd);
	free(buf);
	return rc;
}

static int check_server(const char *arg)
{
	int family = opt.ipv6 ? AF_INET6 : AF_INET;
	struct sockaddr_storage ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct pollfd p = { .events = POLLIN };
	socklen_t len = sizeof(ss);
	int64_t deadline = -1, drain;
	struct sock_info si;
	int fd, c, n, on = 1, rc;
	unsigned long port;
	char *end, b[256];

	errno = 0;
	port = strtoul(arg, &end, 10);
	if (errno || *end || end == arg || port > 65535 || arg[0] == '-')
		die(EXIT_USAGE, "check --server: %s is not a port", arg);
	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET6) {
		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_any;
		s6->sin6_port = htons((uint16_t)port);
		len = sizeof(*s6);
	} else {
		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_ANY);
		s4->sin_port = htons((uint16_t)port);
		len = sizeof(*s4);
	}
	fd = smc_socket(family, 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 1))
		die(EXIT_ERR, "check --server: port %lu: %s", port,
		    strerror(errno));
	len = sizeof(ss);
	if (!getsockname(fd, (struct sockaddr *)&ss, &len))
		port = ntohs(family == AF_INET6 ? s6->sin6_port : s4->sin_port);
	fprintf(stderr, "%s: listening on port %lu (AF_SMC, %s)\n", prog, port,
		family == AF_INET6 ? "IPv6" : "IPv4");
	if (opt.timeout)
		deadline = now_ms() + 1000LL * opt.timeout;
	p.fd = fd;
	do {
		n = poll(&p, 1, left_ms(deadline));
	} while (n < 0 && errno == EINTR);
	if (n <= 0)
		die(EXIT_ERR, "check --server: %s", n ? strerror(errno) :
		    "no connection in time");
	c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		die(EXIT_ERR, "check --server: accept: %s", strerror(errno));
	close(fd);
	await_mode(c, now_ms() + 1000LL * (opt.timeout ? opt.timeout :
					   CHECK_TIMEOUT), &si);
	rc = report("server", &si);
	fflush(stdout);
	/* let the client close first (it does at once), for at most 2 s */
	drain = now_ms() + 2000;
	p.fd = c;
	while (poll(&p, 1, left_ms(drain)) > 0 && read(c, b, sizeof(b)) > 0)
		;
	close(c);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	if (argc != 1)
		die(EXIT_USAGE, "%s", opt.server ?
		    "check --server: want one PORT" :
		    "check: want one HOST:PORT");
	return opt.server ? check_server(argv[0]) : check_client(argv[0]);
}
