// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: the RDMA device layer.
 *
 * An ib_client sees every RDMA device come and go.  Each channel adapter
 * gets a struct smc_ib_dev on smc_ib_devs; the RDMA core's asynchronous
 * events (port active/error, GID table changes, fatal errors) mark ports
 * to be re-read by a work item.  Lookups hand out counted references; a
 * device being removed leaves the list first, so no new references are
 * handed out, and its removal waits until the last one is dropped.
 *
 * Only the work item queries ports, so their state is written in the order
 * the events came; a new device is read by its first run.
 *
 * Locking: smc_ib_mutex protects the list and the port state of every
 * device on it.  Nothing that may wait for RTNL is done under it (rxe's
 * query_port takes RTNL), so the lookups may be called under RTNL.  The
 * event handler runs under the core's event_handler_rwsem and only
 * schedules work.
 */
#include <linux/bitops.h>
#include <linux/debugfs.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/ipv6.h>
#include <linux/mutex.h>
#include <linux/nsproxy.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>
#include "compat.h"

#include "ib.h"
#include "core.h"

static LIST_HEAD(smc_ib_devs);
static DEFINE_MUTEX(smc_ib_mutex);

static struct ib_client smc_ib_client;

static void smc_ib_get(struct smc_ib_dev *dev)
{
	refcount_inc(&dev->refs);
}

/**
 * smc_ib_hold() - another reference to a device the caller holds one on
 * @dev: the device
 */
void smc_ib_hold(struct smc_ib_dev *dev)
{
	smc_ib_get(dev);
}

/**
 * smc_ib_put() - drop a reference from smc_ib_find_by_netdev()
 * @dev: the device
 */
void smc_ib_put(struct smc_ib_dev *dev)
{
	if (refcount_dec_and_test(&dev->refs))
		complete(&dev->released);
}

/* ports the device has and SMC can describe: 1 .. last */
static u32 smc_ib_last_port(const struct smc_ib_dev *dev)
{
	return min_t(u32, rdma_end_port(dev->ibdev), SMC_IB_MAX_PORTS);
}

/* Re-reads the ports marked in port_dirty; the only writer of their state. */
static void smc_ib_port_work(struct work_struct *work)
{
	struct smc_ib_dev *dev = container_of(work, struct smc_ib_dev,
					      port_work);
	struct ib_port_attr attr;
	struct net_device *ndev;
	struct smc_ib_port *sp;
	bool was_active;
	int ifindex;
	u8 state;
	u32 p;

	for (p = 1; p <= smc_ib_last_port(dev); p++) {
		if (!test_and_clear_bit(p - 1, &dev->port_dirty))
			continue;
		/* may take RTNL (rxe): not under smc_ib_mutex */
		state = IB_PORT_NOP;
		if (!ib_query_port(dev->ibdev, p, &attr))
			state = attr.state;
		ndev = ib_device_get_netdev(dev->ibdev, p);
		ifindex = ndev ? ndev->ifindex : 0;
		dev_put(ndev);

		sp = &dev->port[p - 1];
		mutex_lock(&smc_ib_mutex);
		was_active = sp->active;
		sp->state = state;
		sp->active = !READ_ONCE(dev->fatal) &&
			     state == IB_PORT_ACTIVE;
		sp->ifindex = ifindex;
		mutex_unlock(&smc_ib_mutex);
		ibdev_dbg(dev->ibdev, "smc: port %u state %u, ifindex %d\n",
			  p, state, ifindex);
		/* port down or device dead: its link groups cannot go on */
		if (was_active && !sp->active)
			smc_lgr_terminate_port(dev, p);
	}
}

/* Runs in the RDMA core's event work, under its event_handler_rwsem. */
static void smc_ib_event(struct ib_event_handler *handler,
			 struct ib_event *ev)
{
	struct smc_ib_dev *dev = container_of(handler, struct smc_ib_dev,
					      event_handler);
	u32 p;

	switch (ev->event) {
	case IB_EVENT_DEVICE_FATAL:
		WRITE_ONCE(dev->fatal, true);
		for (p = 1; p <= smc_ib_last_port(dev); p++)
			set_bit(p - 1, &dev->port_dirty);
		break;
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_GID_CHANGE:
		p = ev->element.port_num;
		if (p < 1 || p > smc_ib_last_port(dev))
			return;
		set_bit(p - 1, &dev->port_dirty);
		break;
	default:
		return;
	}
	schedule_work(&dev->port_work);
}

/* ib_client.add: a device was registered (or we were) */
static int smc_ib_add(struct ib_device *ibdev)
{
	struct smc_ib_dev *dev;
	u32 p;

	/*
	 * SMC-R needs RoCE, which only channel adapters speak; between two
	 * hosts running this module also iWARP, an RNIC's (iw.c)
	 */
	if (ibdev->node_type != RDMA_NODE_IB_CA &&
	    ibdev->node_type != RDMA_NODE_RNIC)
		return -EOPNOTSUPP;
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->ibdev = ibdev;
	refcount_set(&dev->refs, 1);
	init_completion(&dev->released);
	INIT_WORK(&dev->port_work, smc_ib_port_work);
	for (p = 1; p <= smc_ib_last_port(dev); p++) {
		dev->port[p - 1].valid = rdma_is_port_valid(ibdev, p);
		dev->port[p - 1].roce = dev->port[p - 1].valid &&
					rdma_protocol_roce(ibdev, p);
		dev->port[p - 1].iwarp = dev->port[p - 1].valid &&
					 rdma_protocol_iwarp(ibdev, p);
		set_bit(p - 1, &dev->port_dirty);
	}
	ib_set_client_data(ibdev, &smc_ib_client, dev);

	mutex_lock(&smc_ib_mutex);
	list_add_tail(&dev->list, &smc_ib_devs);
	mutex_unlock(&smc_ib_mutex);

	/*
	 * Events from now on are seen; the first run of the work reads every
	 * port after that.  Not waited for: a port counts as inactive until
	 * then, and the caller might hold locks the port query needs.
	 */
	INIT_IB_EVENT_HANDLER(&dev->event_handler, ibdev, smc_ib_event);
	ib_register_event_handler(&dev->event_handler);
	schedule_work(&dev->port_work);
	return 0;
}

/*
 * ib_client.remove: the device is being unregistered (or we are).  Once
 * this returns, nothing of ours may touch @ibdev any more.
 */
static void smc_ib_remove(struct ib_device *ibdev, void *client_data)
{
	struct smc_ib_dev *dev = client_data;

	mutex_lock(&smc_ib_mutex);
	list_del(&dev->list);
	mutex_unlock(&smc_ib_mutex);

	/* waits for a running handler; then nothing schedules the work */
	ib_unregister_event_handler(&dev->event_handler);
	cancel_work_sync(&dev->port_work);

	/* link groups hold references until their links are destroyed */
	smc_lgr_terminate_dev(dev);
	smc_ib_put(dev);
	wait_for_completion(&dev->released);
	kfree(dev);
}

static struct ib_client smc_ib_client = {
	.name = "smc_ib",
	.add = smc_ib_add,
	.remove = smc_ib_remove,
};

/*
 * The first active RoCE (or with @iwarp, iWARP) port that @match accepts,
 * on a device that @net (NULL: any) may use; the device with a reference
 * held, or NULL.  @match runs under smc_ib_mutex.
 */
static struct smc_ib_dev *
__smc_ib_first_port(const struct net *net, bool iwarp,
		    bool (*match)(struct smc_ib_dev *dev, u8 port, void *arg),
		    void *arg, u8 *port)
{
	struct smc_ib_dev *dev, *found = NULL;
	u32 p;

	mutex_lock(&smc_ib_mutex);
	list_for_each_entry(dev, &smc_ib_devs, list) {
		if (net && !rdma_dev_access_netns(dev->ibdev, net))
			continue;
		for (p = 1; p <= smc_ib_last_port(dev); p++) {
			if ((iwarp ? !dev->port[p - 1].iwarp :
				     !dev->port[p - 1].roce) ||
			    !dev->port[p - 1].active || !match(dev, p, arg))
				continue;
			smc_ib_get(dev);
			found = dev;
			*port = p;
			goto out;
		}
	}
out:
	mutex_unlock(&smc_ib_mutex);
	return found;
}

static struct smc_ib_dev *
smc_ib_first_port(const struct net *net,
		  bool (*match)(struct smc_ib_dev *dev, u8 port, void *arg),
		  void *arg, u8 *port)
{
	return __smc_ib_first_port(net, false, match, arg, port);
}

/* @ndev, or the device a VLAN device @ndev sits on */
static const struct net_device *smc_ib_lower(const struct net_device *ndev)
{
	return is_vlan_dev(ndev) ? vlan_dev_real_dev(ndev) : ndev;
}

static bool smc_ib_port_on(struct smc_ib_dev *dev, u8 port, void *arg)
{
	struct net_device *pdev;

	lockdep_assert_held(&smc_ib_mutex);	/* smc_ib_first_port() */
	pdev = ib_device_get_netdev(dev->ibdev, port);
	dev_put(pdev);
	return pdev && pdev == arg;
}

/**
 * smc_ib_find_by_netdev() - the RDMA device to use for a network device
 * @ndev: the network device (a VLAN device stands for its real device)
 * @port: the port number (1-based) is stored here on success
 *
 * Finds an active RoCE port whose network device is @ndev, so Soft-RoCE
 * and RoCE adapters work without any configuration.  Only a device that
 * @ndev's network namespace (the socket's) may access counts: with the
 * RDMA core's exclusive netns mode a device of another namespace is not
 * ours to use, even when its port is bound to @ndev.
 *
 * Return: the device with a reference held (release with smc_ib_put()),
 * or NULL.
 */
struct smc_ib_dev *smc_ib_find_by_netdev(struct net_device *ndev, u8 *port)
{
	return smc_ib_first_port(dev_net(ndev), smc_ib_port_on,
				 (void *)smc_ib_lower(ndev), port);
}

/**
 * smc_ib_find_iwarp() - the iWARP device to use for a network device
 * @ndev: the network device (not a VLAN device: iWARP links are untagged)
 * @port: the port number (1-based) is stored here on success
 *
 * As smc_ib_find_by_netdev(), for an active iWARP port (Soft-iWARP, an
 * iWARP RNIC): what a host without RoCE on @ndev may use with a peer that
 * runs this module too.
 *
 * Return: the device with a reference held (release with smc_ib_put()),
 * or NULL.
 */
struct smc_ib_dev *smc_ib_find_iwarp(struct net_device *ndev, u8 *port)
{
	if (is_vlan_dev(ndev))
		return NULL;
	return __smc_ib_first_port(dev_net(ndev), true, smc_ib_port_on,
				   (void *)ndev, port);
}

/**
 * smc_ib_port_iwarp() - whether a port is an iWARP one (fixed at add)
 * @dev: a device the caller holds a reference on
 * @port: port number, 1-based
 *
 * Return: true for an iWARP port.
 */
bool smc_ib_port_iwarp(const struct smc_ib_dev *dev, u8 port)
{
	return port >= 1 && port <= SMC_IB_MAX_PORTS && dev->port[port - 1].iwarp;
}

/**
 * smc_ib_port_active() - whether a port was active when last read
 * @dev: a device the caller holds a reference on
 * @port: port number, 1-based
 *
 * Return: true if the port is active.
 */
bool smc_ib_port_active(struct smc_ib_dev *dev, u8 port)
{
	bool active;

	if (port < 1 || port > SMC_IB_MAX_PORTS)
		return false;
	mutex_lock(&smc_ib_mutex);
	active = dev->port[port - 1].active;
	mutex_unlock(&smc_ib_mutex);
	return active;
}

/* @ndev's IPv4 address on the subnet of @addr, or 0; RCU held */
static __be32 smc_ib_subnet_addr(const struct net_device *ndev, __be32 addr)
{
	const struct in_device *in_dev;
	const struct in_ifaddr *ifa;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "no RCU read lock");
	in_dev = __in_dev_get_rcu(ndev);
	if (!in_dev)
		return 0;
	in_dev_for_each_ifa_rcu(ifa, in_dev)
		if (inet_ifa_match(addr, ifa))
			return ifa->ifa_local;
	return 0;
}

/* whether @ndev has an IPv4 address on the subnet of @addr; RCU held */
static bool smc_ib_on_subnet(const struct net_device *ndev, __be32 addr)
{
	return smc_ib_subnet_addr(ndev, addr) != 0;
}

/*
 * Whether the GID entry belongs to @ndev (NULL: any) and VLAN @vlan, and
 * when @net is given, to a network device in @net with an IPv4 address on
 * the subnet of @subnet_of.
 */
static bool smc_ib_gid_on(const struct ib_gid_attr *attr,
			  const struct net_device *ndev, unsigned short vlan,
			  const struct net *net, __be32 subnet_of)
{
	const struct net_device *gdev;
	bool match;

	rcu_read_lock();
	gdev = rdma_read_gid_attr_ndev_rcu(attr);
	if (IS_ERR(gdev))
		match = false;
	else if (!vlan)
		match = !is_vlan_dev(gdev) && (!ndev || gdev == ndev);
	else
		match = is_vlan_dev(gdev) && vlan_dev_vlan_id(gdev) == vlan &&
			(!ndev || gdev == ndev || vlan_dev_real_dev(gdev) == ndev);
	if (match && net)
		match = net_eq(dev_net(gdev), net) &&
			smc_ib_on_subnet(gdev, subnet_of);
	rcu_read_unlock();
	return match;
}

static int __smc_ib_find_gid(struct smc_ib_dev *dev, u8 port,
			     struct net_device *ndev, unsigned short vlan,
			     bool want_roce_v2, const struct net *net,
			     __be32 subnet_of, u8 gid[SMC_IB_GID_LEN],
			     u8 *sgid_index)
{
	enum ib_gid_type type = want_roce_v2 ? IB_GID_TYPE_ROCE_UDP_ENCAP :
					       IB_GID_TYPE_ROCE;
	const struct ib_gid_attr *attr;
	unsigned int i;
	bool match;

	BUILD_BUG_ON(sizeof(attr->gid) != SMC_IB_GID_LEN);
	if (port < 1 || port > SMC_IB_MAX_PORTS ||
	    !rdma_is_port_valid(dev->ibdev, port))
		return -EINVAL;
	for (i = 0; i <= U8_MAX; i++) {
		attr = rdma_get_gid_attr(dev->ibdev, port, i);
		if (IS_ERR(attr)) {
			if (PTR_ERR(attr) == -EINVAL)	/* end of table */
				break;
			continue;			/* empty entry */
		}
		match = attr->gid_type == type &&
			(!want_roce_v2 ||
			 ipv6_addr_v4mapped((const struct in6_addr *)&attr->gid)) &&
			smc_ib_gid_on(attr, ndev, vlan, net, subnet_of);
		if (match) {
			memcpy(gid, attr->gid.raw, SMC_IB_GID_LEN);
			*sgid_index = attr->index;
		}
		rdma_put_gid_attr(attr);
		if (match)
			return 0;
	}
	return -ENODEV;
}

/**
 * smc_ib_find_gid() - pick the source GID for a link
 * @dev: a device the caller holds a reference on
 * @port: port number, 1-based
 * @ndev: the network device of the connection, either the VLAN device or
 *	the device below it; NULL accepts any
 * @vlan: VLAN id, 0 for untagged
 * @want_roce_v2: RoCE v2 (UDP encapsulated, IPv4-mapped GID as SMC-Rv2
 *	needs) rather than RoCE v1
 * @gid: the GID is stored here on success
 * @sgid_index: its index in the port's GID table is stored here
 *
 * Only the first 256 entries are searched: the index must fit a u8.  The
 * RDMA core fills the table from the netdev's addresses; Soft-RoCE (rxe)
 * only has RoCE v2 entries.
 *
 * Return: 0, -EINVAL for a bad port, -ENODEV when no entry matches.
 */
int smc_ib_find_gid(struct smc_ib_dev *dev, u8 port, struct net_device *ndev,
		    unsigned short vlan, bool want_roce_v2,
		    u8 gid[SMC_IB_GID_LEN], u8 *sgid_index)
{
	return __smc_ib_find_gid(dev, port, ndev, vlan, want_roce_v2, NULL, 0,
				 gid, sgid_index);
}

struct smc_ib_alt {
	struct net *net;
	const struct smc_ib_dev *avoid;
	unsigned short vlan;
	bool v2;
	bool iwarp;
	__be32 subnet_of;
	bool (*want)(const char *name, u8 port, void *arg);
	void *arg;
	struct smc_ib_path *path;
};

/*
 * An iWARP port for a further link: its untagged netdev in the link
 * group's namespace with an IPv4 address on the first link's subnet, the
 * "GID" that address v4-mapped (what rdma_cm connects to).
 */
static bool smc_ib_alt_iwarp(struct smc_ib_dev *dev, u8 port,
			     struct smc_ib_alt *a)
{
	struct net_device *pdev;
	__be32 addr = 0;

	pdev = ib_device_get_netdev(dev->ibdev, port);
	if (!pdev)
		return false;
	if (!is_vlan_dev(pdev) && net_eq(dev_net(pdev), a->net)) {
		rcu_read_lock();
		addr = smc_ib_subnet_addr(pdev, a->subnet_of);
		rcu_read_unlock();
	}
	if (addr) {
		ipv6_addr_set_v4mapped(addr, (struct in6_addr *)a->path->gid);
		a->path->sgid_index = 0;
		memcpy(a->path->mac, pdev->dev_addr, ETH_ALEN);
	}
	dev_put(pdev);
	return addr != 0;
}

static bool smc_ib_alt_port(struct smc_ib_dev *dev, u8 port, void *arg)
{
	struct smc_ib_alt *a = arg;
	struct net_device *pdev;

	lockdep_assert_held(&smc_ib_mutex);	/* smc_ib_first_port() */
	if (dev == a->avoid || READ_ONCE(dev->fatal) ||
	    !a->want(dev_name(&dev->ibdev->dev), port, a->arg))
		return false;
	if (a->iwarp)
		return smc_ib_alt_iwarp(dev, port, a);
	if (__smc_ib_find_gid(dev, port, NULL, a->vlan, a->v2,
			      a->v2 ? a->net : NULL, a->subnet_of,
			      a->path->gid, &a->path->sgid_index))
		return false;
	pdev = ib_device_get_netdev(dev->ibdev, port);
	if (!pdev)
		return false;
	memcpy(a->path->mac, pdev->dev_addr, ETH_ALEN);
	dev_put(pdev);
	return true;
}

/**
 * smc_ib_find_alt() - another RDMA port for a further link of a link group
 * @net: the link group's namespace
 * @avoid: the device of the link group's existing link
 * @vlan: the link group's VLAN id, 0 for untagged
 * @want_roce_v2: RoCE v2 (SMC-Rv2 link group) rather than RoCE v1
 * @iwarp: an iWARP port (an iWARP link group) rather than RoCE
 * @like_gid: the existing link's GID.  For RoCE v2 and iWARP the new
 *	port's network device must have an IPv4 address on the subnet of
 *	this GID's address, so that the peer can reach it the way it reaches
 *	the first link, and so that a Linux 6.12 peer, which checks the same,
 *	accepts it.
 * @want: the caller's test of a port by device name and port number (the
 *	PNET ID), called under the device list's mutex
 * @arg: passed to @want
 * @path: filled in on success, with a reference on @path->dev
 *
 * The first active port of the kind on another device wins, so that a link group
 * spans two adapters when the host has them (upstream's "symmetric" link
 * group); the caller falls back to a second QP on @avoid otherwise.
 *
 * Return: 0, or -ENODEV when no other device qualifies.
 */
int smc_ib_find_alt(struct net *net, const struct smc_ib_dev *avoid,
		    unsigned short vlan, bool want_roce_v2, bool iwarp,
		    const u8 like_gid[SMC_IB_GID_LEN],
		    bool (*want)(const char *name, u8 port, void *arg),
		    void *arg, struct smc_ib_path *path)
{
	struct smc_ib_alt a = {
		.net = net, .avoid = avoid, .vlan = vlan, .v2 = want_roce_v2,
		.iwarp = iwarp, .want = want, .arg = arg, .path = path,
	};

	if (want_roce_v2 || iwarp) {
		if (!ipv6_addr_v4mapped((const struct in6_addr *)like_gid))
			return -ENODEV;
		memcpy(&a.subnet_of, like_gid + 12, sizeof(a.subnet_of));
	}
	path->dev = __smc_ib_first_port(net, iwarp, smc_ib_alt_port, &a,
					&path->port);
	return path->dev ? 0 : -ENODEV;
}

/**
 * smc_ib_dev_info() - copy the next device for a netlink dump
 * @net: the requester's namespace: only devices it may access are shown
 * @pos: list position to start at; advanced past the device returned
 * @info: filled in
 *
 * The port state is the one last read.  The netdev ifindex is reported
 * only when the netdev lives in @net.
 *
 * Return: 0, or -ENOENT when there is no further device.
 */
int smc_ib_dev_info(struct net *net, unsigned int *pos,
		    struct smc_ib_dev_info *info)
{
	struct net_device *ndev;
	struct smc_ib_dev *dev;
	struct pci_dev *pdev;
	unsigned int i = 0;
	int rc = -ENOENT;
	u32 p;

	memset(info, 0, sizeof(*info));
	mutex_lock(&smc_ib_mutex);
	list_for_each_entry(dev, &smc_ib_devs, list) {
		if (i++ < *pos || !rdma_dev_access_netns(dev->ibdev, net))
			continue;
		*pos = i;
		strscpy(info->name, dev_name(&dev->ibdev->dev), sizeof(info->name));
		if (dev->ibdev->dev.parent && dev_is_pci(dev->ibdev->dev.parent)) {
			pdev = to_pci_dev(dev->ibdev->dev.parent);
			info->pci = true;
			info->pci_vendor = pdev->vendor;
			info->pci_device = pdev->device;
			strscpy(info->pci_id, pci_name(pdev), sizeof(info->pci_id));
		}
		for (p = 1; p <= smc_ib_last_port(dev); p++) {
			info->port[p - 1] = dev->port[p - 1];
			ndev = ib_device_get_netdev(dev->ibdev, p);
			if (!ndev || !net_eq(dev_net(ndev), net))
				info->port[p - 1].ifindex = 0;
			dev_put(ndev);
		}
		rc = 0;
		break;
	}
	mutex_unlock(&smc_ib_mutex);
	return rc;
}

#ifdef CONFIG_DEBUG_FS
static void smc_ib_show_gid(struct seq_file *m, struct smc_ib_dev *dev,
			    u8 port, struct net_device *ndev,
			    unsigned short vlan, bool v2)
{
	u8 gid[SMC_IB_GID_LEN], index;

	if (smc_ib_find_gid(dev, port, ndev, vlan, v2, gid, &index))
		seq_printf(m, " %s - -", v2 ? "v2" : "v1");
	else
		seq_printf(m, " %s %pI6c %u", v2 ? "v2" : "v1", gid, index);
}

/*
 * For tests: what the lookups answer for each netdev of the reader's
 * network namespace that maps to an active port, one line each:
 * "NETDEV IBDEV PORT v1 GID|- INDEX|- v2 GID|- INDEX|-".
 */
static int smc_ib_lookup_show(struct seq_file *m, void *unused)
{
	struct net *net = current->nsproxy->net_ns;
	struct net_device *ndev;
	struct smc_ib_dev *dev;
	unsigned short vlan;
	u8 port;

	rtnl_lock();		/* the lookups may be used under RTNL */
	for_each_netdev(net, ndev) {
		dev = smc_ib_find_by_netdev(ndev, &port);
		if (!dev)
			continue;
		vlan = is_vlan_dev(ndev) ? vlan_dev_vlan_id(ndev) : 0;
		seq_printf(m, "%s %s %u", netdev_name(ndev),
			   dev_name(&dev->ibdev->dev), port);
		smc_ib_show_gid(m, dev, port, ndev, vlan, false);
		smc_ib_show_gid(m, dev, port, ndev, vlan, true);
		seq_putc(m, '\n');
		smc_ib_put(dev);
	}
	rtnl_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smc_ib_lookup);
#endif

static struct dentry *smc_ib_debugfs;

int __init smc_ib_init(void)
{
	int rc;

	rc = ib_register_client(&smc_ib_client);
#ifdef CONFIG_DEBUG_FS
	if (!rc)
		smc_ib_debugfs = debugfs_create_file("smc_ib_lookup", 0400, NULL,
						     NULL, &smc_ib_lookup_fops);
#endif
	return rc;
}

void smc_ib_exit(void)
{
	debugfs_remove(smc_ib_debugfs);	/* waits for readers */
	ib_unregister_client(&smc_ib_client);
}

struct smc_ib_port_test {
	bool (*want)(const char *name, u8 port, void *arg);
	void *arg;
};

static bool smc_ib_port_named(struct smc_ib_dev *dev, u8 port, void *arg)
{
	struct smc_ib_port_test *t = arg;

	lockdep_assert_held(&smc_ib_mutex);	/* smc_ib_first_port() */
	return t->want(dev_name(&dev->ibdev->dev), port, t->arg);
}

/**
 * smc_ib_find_port() - the first active RoCE port a caller's test accepts
 * @net: only devices this namespace may use are tried
 * @want: the test, given the device's name and a port number; it runs
 *	under the device list mutex, so it must not use the lookups above
 * @arg: passed to @want
 * @port: the port number (1-based) is stored here on success
 *
 * Return: the device with a reference held (release with smc_ib_put()),
 * or NULL.
 */
struct smc_ib_dev *smc_ib_find_port(struct net *net,
				    bool (*want)(const char *name, u8 port,
						 void *arg),
				    void *arg, u8 *port)
{
	struct smc_ib_port_test t = { .want = want, .arg = arg };

	return smc_ib_first_port(net, smc_ib_port_named, &t, port);
}
