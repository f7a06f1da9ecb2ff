// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Planes (see plane.h): the sysfs file, plane netdev events, and our and
 * the peers' plane addresses.
 *
 * Writers of mdev->planes and mdev->nplanes hold RTNL; readers (the
 * datapath, under a peer's lock with BH off) use READ_ONCE under RCU. A
 * deleted plane's netdev is let go of after a grace period.
 */
#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>

#include "device.h"
#include "engine.h"
#include "peer.h"
#include "plane.h"
#include "mroce.h"

u32 mroce_planes(struct mroce_dev *mdev)
{
	return READ_ONCE(mdev->nplanes) ?: 1;
}

struct net_device *mroce_plane_ndev(struct mroce_dev *mdev, u32 k)
{
	if (!k)
		return mdev->ndev;
	if (k >= MROCE_MAX_PLANES)
		return NULL;
	return READ_ONCE(mdev->planes[k].ndev);
}

int mroce_plane_of(struct mroce_dev *mdev, const struct net_device *ndev)
{
	u32 n = mroce_planes(mdev), k;

	if (ndev == mdev->ndev)
		return 0;
	for (k = 1; k < n; k++)
		if (READ_ONCE(mdev->planes[k].ndev) == ndev)
			return k;
	return -1;
}

static bool addr4(struct net_device *ndev, struct sockaddr_storage *sa)
{
	struct in_device *in_dev;
	bool found = false;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		const struct in_ifaddr *ifa;

		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			if (ifa->ifa_scope != RT_SCOPE_UNIVERSE)
				continue;
			memset(sa, 0, sizeof(*sa));
			sa->ss_family = AF_INET;
			((struct sockaddr_in *)sa)->sin_addr.s_addr =
				ifa->ifa_local;
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static bool addr6(struct net_device *ndev, struct sockaddr_storage *sa)
{
	struct inet6_dev *idev;
	bool found = false;

	rcu_read_lock();
	idev = __in6_dev_get(ndev);
	if (idev) {
		const struct inet6_ifaddr *ifp;

		read_lock_bh(&idev->lock);
		list_for_each_entry(ifp, &idev->addr_list, if_list) {
			if (ifp->scope & (IFA_HOST | IFA_LINK | IFA_SITE) ||
			    ifp->flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED))
				continue;
			memset(sa, 0, sizeof(*sa));
			sa->ss_family = AF_INET6;
			((struct sockaddr_in6 *)sa)->sin6_addr = ifp->addr;
			found = true;
			break;
		}
		read_unlock_bh(&idev->lock);
	}
	rcu_read_unlock();
	return found;
}

bool mroce_plane_addr(struct mroce_dev *mdev, u32 k, int family,
		      struct sockaddr_storage *sa)
{
	struct net_device *ndev = mroce_plane_ndev(mdev, k);

	if (!ndev)
		return false;
	return family == AF_INET6 ? addr6(ndev, sa) : addr4(ndev, sa);
}

static u32 addr_len(int family)
{
	return family == AF_INET6 ? sizeof(struct in6_addr) :
				    sizeof(struct in_addr);
}

u32 mroce_planes_blob(struct mroce_dev *mdev, int family, u8 *buf)
{
	u32 n = mroce_planes(mdev), alen = addr_len(family), k;

	BUILD_BUG_ON(MROCE_BLOB_LEN(MROCE_MAX_PLANES,
				    sizeof(struct in6_addr)) > MRE_MAX_BLOB);
	buf[0] = MROCE_BLOB_VERSION;
	buf[1] = family == AF_INET6 ? 6 : 4;
	buf[2] = n;
	buf[3] = 0;
	for (k = 0; k < n; k++) {
		struct sockaddr_storage sa;
		u8 *p = buf + MROCE_BLOB_LEN(k, alen);

		if (!mroce_plane_addr(mdev, k, family, &sa))
			memset(p, 0, alen);	/* none: the peer skips it */
		else if (family == AF_INET6)
			memcpy(p, &((struct sockaddr_in6 *)&sa)->sin6_addr, alen);
		else
			memcpy(p, &((struct sockaddr_in *)&sa)->sin_addr, alen);
	}
	return MROCE_BLOB_LEN(n, alen);
}

u32 mroce_planes_parse(const u8 *blob, u32 len, int family,
		       struct sockaddr_storage *addrs)
{
	u32 alen = addr_len(family), n, k;

	if (len < MROCE_BLOB_LEN(0, 0) || blob[0] != MROCE_BLOB_VERSION ||
	    blob[1] != (family == AF_INET6 ? 6 : 4))
		return 0;
	n = blob[2];
	if (!n || n > MROCE_MAX_PLANES || len < MROCE_BLOB_LEN(n, alen))
		return 0;
	for (k = 0; k < n; k++) {
		const u8 *p = blob + MROCE_BLOB_LEN(k, alen);

		memset(&addrs[k], 0, sizeof(addrs[k]));
		if (!memchr_inv(p, 0, alen))
			continue;		/* AF_UNSPEC: the peer has none */
		addrs[k].ss_family = family;
		if (family == AF_INET6)
			memcpy(&((struct sockaddr_in6 *)&addrs[k])->sin6_addr,
			       p, alen);
		else
			memcpy(&((struct sockaddr_in *)&addrs[k])->sin_addr,
			       p, alen);
	}
	return n;
}

/* --- adding and removing -------------------------------------------------- */

static int plane_add(struct mroce_dev *mdev, struct net_device *ndev)
{
	struct mroce_dev *other;
	u32 n = mroce_planes(mdev), k;

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
