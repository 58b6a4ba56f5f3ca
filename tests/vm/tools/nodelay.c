// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for QEMU's "socket" netdev (two VMs joined by one TCP
 * connection on 127.0.0.1): every TCP socket it makes gets TCP_NODELAY.
 *
 * QEMU 7.2 leaves Nagle on for that connection.  A VM that writes two
 * frames back to back (a RoCE packet and its ACK, say) then has the second
 * held until the host's delayed ACK of the first, about 40 ms later: a
 * RoCE round trip took 44 ms instead of about 1 ms.  Datagram NICs avoid
 * that but drop frames under bulk load (no flow control), which makes rxe
 * wait for its retransmission timer.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

static void nodelay(int fd)
{
	int one = 1;

	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int socket(int domain, int type, int protocol)
{
	static int (*real)(int, int, int);
	int fd;

	if (!real)
		real = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	fd = real(domain, type, protocol);
	if ((domain == AF_INET || domain == AF_INET6) &&
	    (type & 0xf) == SOCK_STREAM)
		nodelay(fd);
	return fd;
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	static int (*real)(int, struct sockaddr *, socklen_t *, int);
	int c;

	if (!real)
		real = (int (*)(int, struct sockaddr *, socklen_t *, int))
			dlsym(RTLD_NEXT, "accept4");
	c = real(fd, addr, len, flags);
	nodelay(c);
	return c;
}

int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	return accept4(fd, addr, len, 0);
}
