/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzz shim: only named by net/smc/pnet.h and ib.h. */
#ifndef SHIM_LINUX_NETDEVICE_H
#define SHIM_LINUX_NETDEVICE_H

#define ETH_ALEN		6

struct net;
struct net_device;

#endif
