/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fuzz shim: SOCK_MIN_SNDBUF as it comes out on x86_64 Linux 6.12: twice
 * 2048 bytes plus the cache-aligned size of struct sk_buff (256).
 */
#ifndef SHIM_NET_SOCK_H
#define SHIM_NET_SOCK_H

#define SOCK_MIN_SNDBUF		4608

#endif
