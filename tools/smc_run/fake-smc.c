// SPDX-License-Identifier: GPL-2.0
/*
 * libfake-smc.so: for the host test only (make check).  Preloaded after
 * libsmc-preload.so, it answers socket(AF_SMC, type, SMCPROTO_SMC[6]) with
 * a TCP socket of the matching family, so that the rules' swap (options,
 * bind, dup3) can be tried on a machine without the smc module.  The fd
 * number keeps its value across the swap, its inode changes.
 */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int socket(int domain, int type, int protocol)
{
	if (domain == 43) {
		domain = protocol == 1 ? AF_INET6 : AF_INET;
		protocol = IPPROTO_TCP;
	}
	return (int)syscall(SYS_socket, domain, type, protocol);
}
