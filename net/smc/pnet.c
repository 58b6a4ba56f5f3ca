// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications over RDMA: the PNET table and its generic
 * netlink family SMC_PNETID (the interface of smc-tools' smc_pnet).
 *
 * Each network namespace has a list of entries, each one either a network
 * device name or an RDMA device name and port, with the PNET ID given to
 * it.  A name need not exist when its entry is made.  RDMA entries are
 * only taken in the initial namespace, whose list answers for RDMA ports
 * in every namespace.
 *
 * Locking: each list has a mutex.  smc_pnet_port_on() takes the
 * initial namespace's mutex while ib.c holds its device list mutex, so
 * nothing here calls into ib.c with a list mutex held.
 */
#include <linux/ctype.h>
#include <linux/if_vlan.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/netns/generic.h>
#include <linux/smc.h>

#include "pnet.h"

/* entries one namespace may have: the list is searched on every connect */
#define SMC_PNET_MAX_ENTRIES	256

/* what a dump shows for the half of an entry it does not have */
#define SMC_PNET_NONE_NAME	"n/a"
#define SMC_PNET_NONE_PORT	0xff

struct smc_pnet_entry {
	struct list_head list;
	u8 id[SMC_PNET_LEN + 1];	/* normalised, NUL terminated */
	bool ib;			/* RDMA port, else network device */
	u8 port;			/* RDMA port number, 1-based */
	char name[IB_DEVICE_NAME_MAX];	/* network or RDMA device name */
};

struct smc_pnet_table {
	struct mutex lock;		/* entries, count */
	struct list_head entries;
	unsigned int count;
};

static unsigned int smc_pnet_net_id __read_mostly;

static struct smc_pnet_table *smc_pnet_table(struct net *net)
{
	return net_generic(net, smc_pnet_net_id);
}

/* ---- lookups ---- */

/*
 * The PNET ID of a network device: that of the device a VLAN device sits
 * on if it has one, else its own entry's.
 */
static int smc_pnet_of_ndev(struct net *net, struct net_device *ndev,
			    u8 id[SMC_PNET_LEN])
{
	struct smc_pnet_table *t = smc_pnet_table(net);
	struct net_device *lower, *dev;
	struct smc_pnet_entry *e;
	bool found = false;

	lower = is_vlan_dev(ndev) ? vlan_dev_real_dev(ndev) : NULL;
	mutex_lock(&t->lock);
	rcu_read_lock();
	list_for_each_entry(e, &t->entries, list) {
		if (e->ib)
			continue;
		dev = dev_get_by_name_rcu(net, e->name);
		if (!dev || (dev != ndev && dev != lower))
			continue;
		memcpy(id, e->id, SMC_PNET_LEN);
		found = true;
		if (dev == lower)
			break;
	}
	rcu_read_unlock();
	mutex_unlock(&t->lock);
	return found ? 0 : -ENOENT;
}

/**
 * smc_pnet_of_ibname() - the PNET ID the table gives an RDMA port
 * @name: the RDMA device's name
 * @port: the port number, 1-based
 * @pnetid: the ID, NUL padded, is stored here; all NUL if there is none
 *
 * Return: 0, or -ENOENT if the port has no entry.
 */
int smc_pnet_of_ibname(const char *name, u8 port, u8 pnetid[SMC_PNET_LEN])
{
	struct smc_pnet_table *t = smc_pnet_table(&init_net);
	struct smc_pnet_entry *e;
	int rc = -ENOENT;

	memset(pnetid, 0, SMC_PNET_LEN);
	mutex_lock(&t->lock);
	list_for_each_entry(e, &t->entries, list) {
		if (e->ib && e->port == port && !strcmp(e->name, name)) {
			memcpy(pnetid, e->id, SMC_PNET_LEN);
			rc = 0;
			break;
		}
	}
	mutex_unlock(&t->lock);
	return rc;
}

/**
 * smc_pnet_of_ibport() - the PNET ID of an RDMA port
 * @net: the namespace asking (RDMA port entries are the same in all)
 * @dev: a device the caller holds a reference on
 * @port: the port number, 1-based
 * @pnetid: the ID, NUL padded, is stored here; all NUL if there is none
 *
 * Return: 0, or -ENOENT if the port has no PNET ID.
 */
int smc_pnet_of_ibport(struct net *net, struct smc_ib_dev *dev, u8 port,
		       u8 pnetid[SMC_IB_PNETID_LEN])
{
	char name[IB_DEVICE_NAME_MAX];

	strscpy(name, dev_name(&dev->ibdev->dev), sizeof(name));
	return smc_pnet_of_ibname(name, port, pnetid);
}

/**
 * smc_pnet_port_on() - whether an RDMA port is on a physical network
 * @name: the RDMA device's name
 * @port: the port number, 1-based
 * @arg: the PNET ID (u8[SMC_PNET_LEN]); an unset one takes unset ports
 *
 * A test for smc_ib_find_port() and smc_ib_find_alt().
 *
 * Return: true if the port's PNET ID (unset without an entry) matches.
 */
bool smc_pnet_port_on(const char *name, u8 port, void *arg)
{
	u8 id[SMC_PNET_LEN];

	smc_pnet_of_ibname(name, port, id);
	return smc_pnet_match(id, arg);
}

/**
 * smc_pnet_find_dev() - the RDMA port for a connection leaving by @ndev
 * @net: the connection's namespace (that of @ndev)
 * @ndev: the route's network device
 * @port: the port number (1-based) is stored here on success
 *
 * If @ndev, or the device below it when it is a VLAN device, has a PNET ID,
 * the first active RoCE port with the same PNET ID is used, or none.
 * Without a PNET ID this is smc_ib_find_by_netdev().
 *
 * Return: the device with a reference held (release with smc_ib_put()),
 * or NULL.
 */
struct smc_ib_dev *smc_pnet_find_dev(struct net *net, struct net_device *ndev,
				     u8 *port)
{
	u8 id[SMC_PNET_LEN];

	if (smc_pnet_of_ndev(net, ndev, id))
		return smc_ib_find_by_netdev(ndev, port);
	return smc_ib_find_port(net, smc_pnet_port_on, id, port);
}

/* ---- table changes ---- */

static int smc_pnet_insert(struct smc_pnet_table *t, const u8 *id, bool ib,
			   const char *name, u8 port)
{
	struct smc_pnet_entry *e, *new;
	int rc = 0;

	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return -ENOMEM;
	memcpy(new->id, id, SMC_PNET_LEN);
	new->ib = ib;
	new->port = port;
	strscpy(new->name, name, sizeof(new->name));

	mutex_lock(&t->lock);
	list_for_each_entry(e, &t->entries, list) {
		if (e->ib == ib && e->port == port && !strcmp(e->name, name)) {
			rc = -EEXIST;
			goto unlock;
		}
	}
	if (t->count >= SMC_PNET_MAX_ENTRIES) {
		rc = -ENOSPC;
		goto unlock;
	}
	list_add_tail(&new->list, &t->entries);
	t->count++;
	new = NULL;
unlock:
	mutex_unlock(&t->lock);
	kfree(new);
	return rc;
}

/* removes the entries with PNET ID @id, or all when @id is NULL */
static unsigned int smc_pnet_remove(struct smc_pnet_table *t, const u8 *id)
{
	struct smc_pnet_entry *e, *tmp;
	unsigned int n = 0;

	mutex_lock(&t->lock);
	list_for_each_entry_safe(e, tmp, &t->entries, list) {
		if (id && !smc_pnet_match(e->id, id))
			continue;
		list_del(&e->list);
		kfree(e);
		n++;
	}
	t->count -= n;
	mutex_unlock(&t->lock);
	return n;
}

/* ---- generic netlink ---- */

static const struct nla_policy smc_pnet_policy[SMC_PNETID_MAX + 1] = {
	[SMC_PNETID_NAME] = { .type = NLA_NUL_STRING, .len = SMC_PNET_LEN },
	[SMC_PNETID_ETHNAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[SMC_PNETID_IBNAME] = { .type = NLA_NUL_STRING,
				.len = IB_DEVICE_NAME_MAX - 1 },
	[SMC_PNETID_IBPORT] = { .type = NLA_U8 },
};

static struct genl_family smc_pnet_family;

/*
 * The PNET ID of a GET or DEL request, as given: such requests name an
 * existing entry, which smc_pnet_match() finds whatever the case.
 */
static int smc_pnet_req_id(struct genl_info *info, u8 id[SMC_PNET_LEN])
{
	const struct nlattr *a = info->attrs[SMC_PNETID_NAME];

	if (!a) {
		GENL_SET_ERR_MSG(info, "PNET ID missing");
		return -EINVAL;
	}
	memset(id, 0, SMC_PNET_LEN);
	/* the policy guarantees a NUL within SMC_PNET_LEN + 1 bytes */
	memcpy(id, nla_data(a), strnlen(nla_data(a), SMC_PNET_LEN));
	return 0;
}

static int smc_pnet_add_ib(struct smc_pnet_table *t, const u8 *id,
			   struct genl_info *info)
{
	char name[IB_DEVICE_NAME_MAX];
	const char *trimmed;
	u8 port = 1;

	if (info->attrs[SMC_PNETID_IBPORT]) {
		port = nla_get_u8(info->attrs[SMC_PNETID_IBPORT]);
		if (port < 1 || port > SMC_IB_MAX_PORTS) {
			GENL_SET_ERR_MSG(info, "RDMA port must be 1 or 2");
			return -EINVAL;
		}
	}
	nla_strscpy(name, info->attrs[SMC_PNETID_IBNAME], sizeof(name));
	trimmed = strim(name);
	if (!*trimmed) {
		GENL_SET_ERR_MSG(info, "empty RDMA device name");
		return -EINVAL;
	}
	return smc_pnet_insert(t, id, true, trimmed, port);
}

static int smc_pnet_add(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct smc_pnet_table *t = smc_pnet_table(net);
	struct nlattr **tb = info->attrs;
	bool added = false, ib;
	u8 id[SMC_PNET_LEN];
	int rc;

	if (!tb[SMC_PNETID_NAME]) {
		GENL_SET_ERR_MSG(info, "PNET ID missing");
		return -EINVAL;
	}
	if (smc_pnet_normalise(nla_data(tb[SMC_PNETID_NAME]), id)) {
		GENL_SET_ERR_MSG(info, "a PNET ID is 1 to 16 letters or digits");
		return -EINVAL;
	}
	if (!tb[SMC_PNETID_ETHNAME] && !tb[SMC_PNETID_IBNAME]) {
		GENL_SET_ERR_MSG(info, "network or RDMA device name missing");
		return -EINVAL;
	}
	if (tb[SMC_PNETID_ETHNAME] &&
	    !dev_valid_name(nla_data(tb[SMC_PNETID_ETHNAME]))) {
		GENL_SET_ERR_MSG(info, "invalid network device name");
		return -EINVAL;
	}
	/* RDMA ports belong to every namespace: only the initial one sets */
	ib = tb[SMC_PNETID_IBNAME] && net_eq(net, &init_net);

	if (tb[SMC_PNETID_ETHNAME]) {
		rc = smc_pnet_insert(t, id, false,
				     nla_data(tb[SMC_PNETID_ETHNAME]), 0);
		if (rc && rc != -EEXIST)
			return rc;
		added = !rc;
	}
	if (ib) {
		rc = smc_pnet_add_ib(t, id, info);
		if (rc && rc != -EEXIST)
			return rc;
		added |= !rc;
	}
	return added ? 0 : -EEXIST;
}

static int smc_pnet_del(struct sk_buff *skb, struct genl_info *info)
{
	struct smc_pnet_table *t = smc_pnet_table(genl_info_net(info));
	u8 id[SMC_PNET_LEN];
	int rc;

	rc = smc_pnet_req_id(info, id);
	if (rc)
		return rc;
	return smc_pnet_remove(t, id) ? 0 : -ENOENT;
}

static int smc_pnet_flush(struct sk_buff *skb, struct genl_info *info)
{
	smc_pnet_remove(smc_pnet_table(genl_info_net(info)), NULL);
	return 0;
}

/* one SMC_PNETID_GET message: NAME, ETHNAME, IBNAME, IBPORT */
static int smc_pnet_put_entry(struct sk_buff *skb, u32 portid, u32 seq,
			      const struct smc_pnet_entry *e)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &smc_pnet_family, NLM_F_MULTI,
			  SMC_PNETID_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, SMC_PNETID_NAME, (const char *)e->id) ||
	    nla_put_string(skb, SMC_PNETID_ETHNAME,
			   e->ib ? SMC_PNET_NONE_NAME : e->name) ||
	    nla_put_string(skb, SMC_PNETID_IBNAME,
			   e->ib ? e->name : SMC_PNET_NONE_NAME) ||
	    nla_put_u8(skb, SMC_PNETID_IBPORT,
		       e->ib ? e->port : SMC_PNET_NONE_PORT)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * Entries from position @start on, those with PNET ID @id only if it is
 * not NULL, until @skb is full.  Return: the position after the last one
 * put.
 */
static long smc_pnet_fill(struct net *net, struct sk_buff *skb, u32 portid,
			  u32 seq, const u8 *id, long start)
{
	struct smc_pnet_table *t = smc_pnet_table(net);
	struct smc_pnet_entry *e;
	long pos = 0;

	mutex_lock(&t->lock);
	list_for_each_entry(e, &t->entries, list) {
		if (id && !smc_pnet_match(e->id, id))
			continue;
		if (pos >= start &&
		    smc_pnet_put_entry(skb, portid, seq, e))
			break;
		pos++;
	}
	mutex_unlock(&t->lock);
	return pos;
}

static int smc_pnet_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	cb->args[0] = smc_pnet_fill(sock_net(skb->sk), skb,
				    NETLINK_CB(cb->skb).portid,
				    cb->nlh->nlmsg_seq, NULL, cb->args[0]);
	return skb->len;
}

/* GET with a PNET ID: its entries, then NLMSG_DONE, in one reply */
static int smc_pnet_get(struct sk_buff *skb, struct genl_info *info)
{
	u8 id[SMC_PNET_LEN];
	struct sk_buff *msg;
	int rc;

	rc = smc_pnet_req_id(info, id);
	if (rc)
		return rc;
	msg = nlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	smc_pnet_fill(genl_info_net(info), msg, info->snd_portid,
		      info->snd_seq, id, 0);
	if (!nlmsg_put(msg, info->snd_portid, info->snd_seq, NLMSG_DONE, 0,
		       NLM_F_MULTI)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return genlmsg_reply(msg, info);
}

/* as Linux 6.12: attributes are checked by type only, unknown ones pass */
#define SMC_PNET_VALIDATE	(GENL_DONT_VALIDATE_STRICT | \
				 GENL_DONT_VALIDATE_DUMP)

static const struct genl_ops smc_pnet_ops[] = {
	{
		.cmd = SMC_PNETID_GET,
		.validate = SMC_PNET_VALIDATE,
		.doit = smc_pnet_get,
		.dumpit = smc_pnet_dump,
	},
	{
		.cmd = SMC_PNETID_ADD,
		.validate = SMC_PNET_VALIDATE,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = smc_pnet_add,
	},
	{
		.cmd = SMC_PNETID_DEL,
		.validate = SMC_PNET_VALIDATE,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = smc_pnet_del,
	},
	{
		.cmd = SMC_PNETID_FLUSH,
		.validate = SMC_PNET_VALIDATE,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = smc_pnet_flush,
	},
};

static struct genl_family smc_pnet_family __ro_after_init = {
	.name = SMCR_GENL_FAMILY_NAME,
	.version = SMCR_GENL_FAMILY_VERSION,
	.maxattr = SMC_PNETID_MAX,
	.policy = smc_pnet_policy,
	.netnsok = true,
	.module = THIS_MODULE,
	.ops = smc_pnet_ops,
	.n_ops = ARRAY_SIZE(smc_pnet_ops),
	.resv_start_op = SMC_PNETID_FLUSH + 1,
};

/* ---- namespaces and module ---- */

static int __net_init smc_pnet_net_init(struct net *net)
{
	struct smc_pnet_table *t = smc_pnet_table(net);

	mutex_init(&t->lock);
	INIT_LIST_HEAD(&t->entries);
	return 0;
}

static void __net_exit smc_pnet_net_exit(struct net *net)
{
	struct smc_pnet_table *t = smc_pnet_table(net);

	smc_pnet_remove(t, NULL);
	mutex_destroy(&t->lock);
}

static struct pernet_operations smc_pnet_net_ops = {
	.init = smc_pnet_net_init,
	.exit = smc_pnet_net_exit,
	.id = &smc_pnet_net_id,
	.size = sizeof(struct smc_pnet_table),
};

int __init smc_pnet_init(void)
{
	int rc;

	rc = register_pernet_subsys(&smc_pnet_net_ops);
	if (rc)
		return rc;
	rc = genl_register_family(&smc_pnet_family);
	if (rc)
		unregister_pernet_subsys(&smc_pnet_net_ops);
	return rc;
}

void smc_pnet_exit(void)
{
	genl_unregister_family(&smc_pnet_family);
	unregister_pernet_subsys(&smc_pnet_net_ops);
}

MODULE_ALIAS_GENL_FAMILY(SMCR_GENL_FAMILY_NAME);
