/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications over RDMA: the PNET table.
 *
 * A PNET ID names a physical network.  The administrator gives network
 * devices and RDMA device ports a PNET ID each (generic netlink family
 * SMC_PNETID); SMC-R then only uses an RDMA port whose PNET ID equals the
 * one of the network device a connection's route leaves through.  A
 * network device without an entry keeps the default: the RDMA port whose
 * own network device it is.
 *
 * Every network namespace has its own table.  Network device entries are
 * kept by name, so a device created later gets the ID of its entry.  RDMA
 * ports are shared by all namespaces, so their entries are accepted in the
 * initial namespace only and apply everywhere (as in Linux 6.12).
 *
 * The ID codec (smc_pnet_normalise(), smc_pnet_match()) is pure and lives
 * in pnet_id.c; the table and the netlink family in pnet.c.
 */
#ifndef SMC_PNET_H
#define SMC_PNET_H

#include <linux/netdevice.h>
#include <linux/types.h>
#include <net/net_namespace.h>

#include "ib.h"

/* an ID as stored: upper case letters and digits, NUL padded */
#define SMC_PNET_LEN	SMC_IB_PNETID_LEN

int smc_pnet_normalise(const char *in, u8 out[SMC_PNET_LEN]);
bool smc_pnet_match(const u8 *a, const u8 *b);
bool smc_pnet_is_set(const u8 *id);

int smc_pnet_init(void);
void smc_pnet_exit(void);

struct smc_ib_dev *smc_pnet_find_dev(struct net *net, struct net_device *ndev,
				     u8 *port);
int smc_pnet_of_ibport(struct net *net, struct smc_ib_dev *dev, u8 port,
		       u8 pnetid[SMC_IB_PNETID_LEN]);
int smc_pnet_of_ibname(const char *name, u8 port, u8 pnetid[SMC_PNET_LEN]);
bool smc_pnet_port_on(const char *name, u8 port, void *arg);

#endif /* SMC_PNET_H */
