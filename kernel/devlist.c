// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Our device list (see devlist.h).
 *
 * A device goes on the list under RTNL after a check that its netdev is
 * still registered in the namespace it was created in: netdev events also
 * run under RTNL, so a NETDEV_UNREGISTER either sees the device on the list
 * or happened before the check, which then refuses the device.
 */
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>

#include "devlist.h"
#include "plane.h"
#include "mroce.h"

static LIST_HEAD(mroce_devs);
static DEFINE_MUTEX(mroce_devs_lock);

int mroce_devlist_add(struct mroce_dev *mdev)
{
	struct net_device *ndev = mdev->ndev;
	struct mroce_dev *other;
	int err = 0;

	ASSERT_RTNL();
	if (ndev->reg_state != NETREG_REGISTERED ||
	    !net_eq(dev_net(ndev), mdev->net))
		return -ENODEV;

	mutex_lock(&mroce_devs_lock);
	other = mroce_dev_get_by_netdev(ndev);
	if (other) {
		ib_device_put(&other->ibdev);
		err = -EEXIST;
	} else {
		list_add_tail_rcu(&mdev->node, &mroce_devs);
	}
	mutex_unlock(&mroce_devs_lock);
	return err;
}

void mroce_devlist_del(struct mroce_dev *mdev)
{
	mutex_lock(&mroce_devs_lock);
	if (!list_empty(&mdev->node))
		list_del_rcu(&mdev->node);
	mutex_unlock(&mroce_devs_lock);
}

struct mroce_dev *mroce_dev_get_by_plane(struct net_device *ndev, u32 *plane)
{
	struct mroce_dev *mdev, *found = NULL;
	int k;

	rcu_read_lock();
	list_for_each_entry_rcu(mdev, &mroce_devs, node) {
		k = mroce_plane_of(mdev, ndev);
		if (k > 0 && ib_device_try_get(&mdev->ibdev)) {
			found = mdev;
			if (plane)
				*plane = k;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

struct mroce_dev *mroce_dev_get_by_netdev(struct net_device *ndev)
{
	struct mroce_dev *mdev, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(mdev, &mroce_devs, node) {
		if (mdev->ndev == ndev && ib_device_try_get(&mdev->ibdev)) {
			found = mdev;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/* next device of ours in @net (any if NULL), pinned with get_device() */
static struct ib_device *mroce_devices_next(struct net *net)
{
	struct mroce_dev *mdev;
	struct ib_device *ibdev = NULL;

	mutex_lock(&mroce_devs_lock);
	list_for_each_entry(mdev, &mroce_devs, node) {
		if (net && !net_eq(mdev->net, net))
			continue;
		ibdev = &mdev->ibdev;
		get_device(&ibdev->dev);
		break;
	}
	mutex_unlock(&mroce_devs_lock);
	return ibdev;
}

/*
 * Including devices someone else was unregistering at the same time:
 * ib_unregister_device() waits on the device's unregistration lock.
 */
void mroce_devices_remove(struct net *net)
{
	struct ib_device *ibdev;

	while ((ibdev = mroce_devices_next(net))) {
		ib_unregister_device(ibdev);
		put_device(&ibdev->dev);
	}
}

/* before the namespace's netdevs and sockets go: take our devices down */
static void __net_exit mroce_devlist_pre_exit(struct net *net)
{
	mroce_devices_remove(net);
}

static struct pernet_operations mroce_devlist_net_ops = {
	.pre_exit = mroce_devlist_pre_exit,
};

int mroce_devlist_init(void)
{
	return register_pernet_subsys(&mroce_devlist_net_ops);
}

void mroce_devlist_exit(void)
{
	unregister_pernet_subsys(&mroce_devlist_net_ops);
}
