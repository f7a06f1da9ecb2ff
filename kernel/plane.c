// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Planes (see plane.h): the sysfs file, adding and removing, plane netdev
 * events, and our plane addresses for the engine's blob.
 *
 * Writers of mdev->planes and mdev->nplanes hold RTNL; readers (the
 * datapath, under a peer's lock with BH off) use READ_ONCE under RCU. A
 * deleted plane's netdev is let go of after a grace period.
 */
#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>

#include "devlist.h"
#include "engine.h"
#include "peer.h"
#include "net.h"
#include "offload.h"
#include "plane.h"
#include "mroce.h"

/* our address of @family on plane @k, in the engine's terms */
static bool plane_addr(struct mroce_dev *mdev, u32 k, u8 family,
		       struct mre_addr *a)
{
	struct net_device *ndev = mroce_plane_ndev(mdev, k);
	struct sockaddr_storage sa;

	if (!ndev || !mroce_net_ndev_addr(ndev, mroce_af_of(family), &sa))
		return false;
	mroce_addr_of_sa(&sa, a);
	return true;
}

u32 mroce_planes_ours(struct mre_ep *ep, u8 family, struct mre_addr *addrs)
{
	struct mroce_dev *mdev = container_of(ep, struct mroce_dev, ep);
	u32 n = min_t(u32, mroce_planes(mdev), MRE_BLOB_MAX_PLANES), k;

	BUILD_BUG_ON(MROCE_MAX_PLANES > MRE_BLOB_MAX_PLANES);
	rcu_read_lock();
	for (k = 0; k < n; k++)
		if (!plane_addr(mdev, k, family, &addrs[k]))
			addrs[k].family = 0;	/* none: the peer skips it */
	rcu_read_unlock();
	return n;
}

/* --- adding and removing -------------------------------------------------- */

static int plane_add(struct mroce_dev *mdev, struct net_device *ndev)
{
	struct mroce_dev *other;
	u32 n = mroce_planes(mdev), k;
	int err;

	ASSERT_RTNL();
	if (ndev == mdev->ndev)
		return -EEXIST;
	other = mroce_dev_get_by_netdev(ndev);
	if (!other)
		other = mroce_dev_get_by_plane(ndev, NULL);
	if (other) {
		ib_device_put(&other->ibdev);
		return -EBUSY;
	}
	for (k = 1; k < n && mdev->planes[k].ndev; k++)
		;
	if (k >= MROCE_MAX_PLANES)
		return -ENOSPC;
	/* the offload receives for it first, or refuses it */
	err = mroce_ofl_plane_add(mdev, k, ndev);
	if (err)
		return err;
	netdev_hold(ndev, &mdev->planes[k].tracker, GFP_KERNEL);
	WRITE_ONCE(mdev->planes[k].ndev, ndev);
	if (k == n)
		WRITE_ONCE(mdev->nplanes, n + 1);
	mroce_info_dev(mdev, "plane %u: %s\n", k, ndev->name);
	return 0;
}

static int plane_del(struct mroce_dev *mdev, struct net_device *ndev)
{
	u32 n = mroce_planes(mdev);
	int k = mroce_plane_of(mdev, ndev);

	ASSERT_RTNL();
	if (k < 1)
		return k == 0 ? -EBUSY : -ENOENT;
	mroce_ofl_plane_del(mdev, k);
	WRITE_ONCE(mdev->planes[k].ndev, NULL);
	while (n > 1 && !mdev->planes[n - 1].ndev)
		n--;
	WRITE_ONCE(mdev->nplanes, n);
	mroce_peers_planes(mdev);	/* its paths fail, or move */
	synchronize_net();		/* senders that still saw it */
	netdev_put(ndev, &mdev->planes[k].tracker);
	mroce_info_dev(mdev, "plane %u (%s) removed\n", k, ndev->name);
	return 0;
}

void mroce_plane_netdev_event(struct net_device *ndev, unsigned long event)
{
	struct mroce_dev *mdev = mroce_dev_get_by_plane(ndev, NULL);

	if (!mdev)
		return;
	switch (event) {
	case NETDEV_UNREGISTER:
		plane_del(mdev, ndev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		mroce_peers_planes(mdev);
		break;
	default:
		break;
	}
	ib_device_put(&mdev->ibdev);
}

void mroce_planes_release(struct mroce_dev *mdev)
{
	u32 k;

	for (k = 1; k < MROCE_MAX_PLANES; k++) {
		struct net_device *ndev = mdev->planes[k].ndev;

		if (!ndev)
			continue;
		WRITE_ONCE(mdev->planes[k].ndev, NULL);
		netdev_put(ndev, &mdev->planes[k].tracker);
	}
	WRITE_ONCE(mdev->nplanes, 1);
}

/* --- sysfs ----------------------------------------------------------------- */

/* the device of a sysfs file: the ib_device's, or a namespace's compat copy */
static struct mroce_dev *mdev_of(struct device *device)
{
	return to_mroce_dev(rdma_device_to_ibdev(device));
}

static ssize_t planes_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct mroce_dev *mdev = mdev_of(device);
	int len = 0;
	u32 k, n;

	rcu_read_lock();
	n = mroce_planes(mdev);
	for (k = 0; k < n; k++) {
		struct net_device *ndev = mroce_plane_ndev(mdev, k);

		len += sysfs_emit_at(buf, len, "%u %s %s\n", k,
				     ndev ? ndev->name : "-",
				     !ndev ? "gone" :
				     netif_running(ndev) &&
				     netif_carrier_ok(ndev) ? "up" : "down");
	}
	rcu_read_unlock();
	return len;
}

static ssize_t planes_store(struct device *device,
			    struct device_attribute *attr, const char *buf,
			    size_t count)
{
	struct mroce_dev *mdev = mdev_of(device);
	char op[4], name[IFNAMSIZ + 1];
	struct net_device *ndev;
	int err;

	if (sscanf(buf, "%3s %16s", op, name) != 2 ||
	    (strcmp(op, "add") && strcmp(op, "del")))
		return -EINVAL;
	if (!rtnl_trylock())
		return restart_syscall();
	ndev = __dev_get_by_name(mdev->net, name);
	if (!ndev)
		err = -ENODEV;
	else if (!strcmp(op, "add"))
		err = plane_add(mdev, ndev);
	else
		err = plane_del(mdev, ndev);
	if (!err && !strcmp(op, "add"))
		mroce_peers_planes(mdev);
	rtnl_unlock();
	return err ?: count;
}
DEVICE_ATTR_RW(planes);
