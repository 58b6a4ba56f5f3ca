// SPDX-License-Identifier: GPL-2.0
/*
 * udphub - a dumb Ethernet hub for QEMU "-netdev dgram" NICs on 127.0.0.1.
 *
 *   udphub HUBPORT VMPORT...
 *
 * Every datagram (one Ethernet frame) received on 127.0.0.1:HUBPORT from
 * 127.0.0.1:VMPORT[i] is sent to all other VMPORTs.  Frames from any other
 * source are dropped.  Only the loopback address is ever used.  The hub
 * exits on SIGTERM, or when its parent (the harness) dies.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_PORTS 64

static int parse_port(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v <= 0 || v > 65535) {
		fprintf(stderr, "udphub: bad port '%s'\n", s);
		exit(2);
	}
	return (int)v;
}

int main(int argc, char **argv)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	unsigned short ports[MAX_PORTS];
	static char frame[65536];
	int fd, nports, i;

	if (argc < 3 || argc - 2 > MAX_PORTS) {
		fprintf(stderr, "usage: udphub HUBPORT VMPORT...\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		return 1;
	nports = argc - 2;
	for (i = 0; i < nports; i++)
		ports[i] = (unsigned short)parse_port(argv[i + 2]);

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("udphub: socket");
		return 1;
	}
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	addr.sin_port = htons((unsigned short)parse_port(argv[1]));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		perror("udphub: bind");
		return 1;
	}
	for (;;) {
		struct sockaddr_in src;
		socklen_t slen = sizeof(src);
		ssize_t n = recvfrom(fd, frame, sizeof(frame), 0,
				     (struct sockaddr *)&src, &slen);
		int from = -1;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("udphub: recvfrom");
			return 1;
		}
		if (src.sin_addr.s_addr != htonl(INADDR_LOOPBACK))
			continue;
		for (i = 0; i < nports; i++)
			if (ntohs(src.sin_port) == ports[i])
				from = i;
		if (from < 0)
			continue;
		for (i = 0; i < nports; i++) {
			struct sockaddr_in dst = addr;

			if (i == from)
				continue;
			dst.sin_port = htons(ports[i]);
			/* A VM that is not up yet just loses the frame. */
			sendto(fd, frame, (size_t)n, 0,
			       (struct sockaddr *)&dst, sizeof(dst));
		}
	}
}
