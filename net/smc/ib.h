/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications over RDMA: the RDMA devices SMC-R can use.
 *
 * An ib_client keeps one struct smc_ib_dev per RDMA device (channel
 * adapters only) with the state of its first SMC_IB_MAX_PORTS ports.
 * Port numbers in this interface are those of the RDMA core: 1-based.
 *
 * A reference from smc_ib_find_by_netdev() keeps the device usable: its
 * removal (ib_client.remove) waits until every reference is dropped, so
 * references must be short-lived or given up when the device goes away.
 * The lookups sleep on a mutex but may be called under RTNL.
 */
#ifndef SMC_IB_H
#define SMC_IB_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <linux/smc.h>

#define SMC_IB_MAX_PORTS	2	/* SMC_NLA_DEV_PORT and _PORT2 */
#define SMC_IB_GID_LEN		16
#define SMC_IB_PNETID_LEN	16

/* one port: valid and roce are fixed, the rest as the work last read it */
struct smc_ib_port {
	bool valid;		/* the device has this port */
	bool roce;		/* RoCE v1 or v2 capable */
	bool iwarp;		/* iWARP (an RNIC's port): links through rdma_cm */
	bool active;		/* IB_PORT_ACTIVE and the device is not dead */
	u8 state;		/* enum ib_port_state */
	int ifindex;		/* netdev behind the port, 0 if none */
};

struct smc_ib_dev {
	struct ib_device *ibdev;
	struct list_head list;		/* on the device list while usable */
	refcount_t refs;		/* the list holds one */
	struct completion released;	/* refs reached zero */
	struct ib_event_handler event_handler;
	struct work_struct port_work;	/* re-reads the ports of port_dirty */
	unsigned long port_dirty;	/* bit p - 1: port p changed */
	bool fatal;			/* IB_EVENT_DEVICE_FATAL seen */
	struct smc_ib_port port[SMC_IB_MAX_PORTS];
};

/* a copy of one device for SMC_NETLINK_GET_DEV_SMCR */
struct smc_ib_dev_info {
	char name[IB_DEVICE_NAME_MAX];
	bool pci;			/* the pci_* fields are valid */
	u16 pci_vendor;
	u16 pci_device;
	char pci_id[SMC_PCI_ID_STR_LEN];
	struct smc_ib_port port[SMC_IB_MAX_PORTS];
};

int smc_ib_init(void);
void smc_ib_exit(void);

void smc_ib_hold(struct smc_ib_dev *dev);
void smc_ib_put(struct smc_ib_dev *dev);
struct smc_ib_dev *smc_ib_find_by_netdev(struct net_device *ndev, u8 *port);
int smc_ib_find_gid(struct smc_ib_dev *dev, u8 port, struct net_device *ndev,
		    unsigned short vlan, bool want_roce_v2,
		    u8 gid[SMC_IB_GID_LEN], u8 *sgid_index);
bool smc_ib_port_active(struct smc_ib_dev *dev, u8 port);
struct smc_ib_dev *smc_ib_find_iwarp(struct net_device *ndev, u8 *port);
bool smc_ib_port_iwarp(const struct smc_ib_dev *dev, u8 port);

int smc_ib_dev_info(struct net *net, unsigned int *pos,
		    struct smc_ib_dev_info *info);

/* where a link's local end is: a device port and its source GID */
struct smc_ib_path {
	struct smc_ib_dev *dev;
	u8 port;		/* 1-based */
	u8 sgid_index;
	u8 gid[SMC_IB_GID_LEN];
	u8 mac[ETH_ALEN];	/* of the port's network device */
};

int smc_ib_find_alt(struct net *net, const struct smc_ib_dev *avoid,
		    unsigned short vlan, bool want_roce_v2, bool iwarp,
		    const u8 like_gid[SMC_IB_GID_LEN],
		    bool (*want)(const char *name, u8 port, void *arg),
		    void *arg, struct smc_ib_path *path);

struct smc_ib_dev *smc_ib_find_port(struct net *net,
				    bool (*want)(const char *name, u8 port,
						 void *arg),
				    void *arg, u8 *port);

#endif /* SMC_IB_H */
