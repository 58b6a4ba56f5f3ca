/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzz shim: only named, never used by the pure PNET ID code. */
#ifndef SHIM_NET_NET_NAMESPACE_H
#define SHIM_NET_NET_NAMESPACE_H

struct net;

#endif
