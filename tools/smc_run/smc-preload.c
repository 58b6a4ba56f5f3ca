// SPDX-License-Identifier: GPL-2.0
/*
 * libsmc-preload.so: run an unmodified TCP program over AF_SMC.
 *
 * Interposes socket(): a TCP socket request (family AF_INET or AF_INET6,
 * type SOCK_STREAM optionally OR'ed with SOCK_NONBLOCK / SOCK_CLOEXEC,
 * protocol 0 or IPPROTO_TCP) becomes socket(AF_SMC, type, SMCPROTO_SMC)
 * for AF_INET or socket(AF_SMC, type, SMCPROTO_SMC6) for AF_INET6.  AF_SMC
 * sockets take the same sockaddr_in / sockaddr_in6 addresses, so the
 * program does not notice.  Every other socket() call is passed through
 * untouched.
 *
 * When the AF_SMC socket cannot be created because the kernel has no
 * AF_SMC (EAFNOSUPPORT: smc module not loaded), no SMC6 protocol
 * (EPROTONOSUPPORT) or a security policy forbids it (EACCES, EPERM), the
 * original TCP socket is created instead and one warning per process goes
 * to stderr.  Other errors (EMFILE, ENOMEM, ...) are returned as they are:
 * TCP would fail the same way.
 *
 * Environment (read once, when the library is loaded):
 *   SMC_DEBUG=1        one line on stderr per converted socket and per
 *                      fallback to TCP (not only the first)
 *   SMC_SNDBUF=SIZE    setsockopt(SO_SNDBUF) on every converted socket
 *   SMC_RCVBUF=SIZE    setsockopt(SO_RCVBUF) on every converted socket
 *                      (SIZE in bytes, suffix k/K or m/M allowed)
 *
 * Thread safety: the settings are written once by the constructor before
 * the program's main() runs and only read afterwards; the pointer to the
 * next socket() and the "warned" flag are atomics.  Diagnostics are
 * formatted on the stack and written with a single write(2).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
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

typedef int (*socket_fn)(int, int, int);

static socket_fn next_socket;	/* atomic: socket() of the next object */
static int warned;		/* atomic: fallback warning printed */
static int debug;		/* constant after the constructor */
static int sndbuf, rcvbuf;	/* constant after the constructor, 0 = unset */

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	char buf[256];
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

static void __attribute__((constructor)) smc_preload_init(void)
{
	const char *s = getenv("SMC_DEBUG");

	debug = s && *s && strcmp(s, "0") != 0;
	sndbuf = parse_size("SMC_SNDBUF");
	rcvbuf = parse_size("SMC_RCVBUF");
}

static int raw_socket(int domain, int type, int protocol)
{
	return (int)syscall(SYS_socket, domain, type, protocol);
}

static socket_fn get_next_socket(void)
{
	socket_fn fn = __atomic_load_n(&next_socket, __ATOMIC_ACQUIRE);

	if (!fn) {
		/* racing threads all find the same symbol: benign */
		fn = (socket_fn)dlsym(RTLD_NEXT, "socket");
		if (!fn)
			fn = raw_socket;
		__atomic_store_n(&next_socket, fn, __ATOMIC_RELEASE);
	}
	return fn;
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

int socket(int domain, int type, int protocol)
{
	socket_fn real = get_next_socket();
	int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	int fd, err;

	if ((domain != AF_INET && domain != AF_INET6) || base != SOCK_STREAM ||
	    (protocol != 0 && protocol != IPPROTO_TCP))
		return real(domain, type, protocol);

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
	err = errno;
	if (err != EAFNOSUPPORT && err != EPROTONOSUPPORT &&
	    err != EACCES && err != EPERM)
		return fd;	/* EMFILE, ENOMEM, ...: TCP would fail too */

	if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		say("cannot create AF_SMC sockets (%s%s): using TCP", strerror(err),
		    err == EAFNOSUPPORT ? ", is the smc module loaded?" : "");
	else if (debug)
		say("socket(%s, SOCK_STREAM, %d): AF_SMC failed (%s), using TCP",
		    family_name(domain), protocol, strerror(err));
	return real(domain, type, protocol);
}
