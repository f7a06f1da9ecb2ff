/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Our own list of mroce devices, and the lookups on it.
 *
 * 6.1 has no enum rdma_driver_id value for mroce, so the core's
 * ib_device_get_by_netdev(ndev, RDMA_DRIVER_UNKNOWN) and
 * ib_unregister_driver() would match every UNKNOWN-driver device: mroce
 * keeps its devices here instead. The list is read under RCU (netdev
 * events, lookups) and written under mroce_devs_lock; lock order: RTNL,
 * then mroce_devs_lock. A namespace going away takes its devices first
 * (the pernet pre_exit hook here), before its netdevs and sockets go.
 */
#ifndef MROCE_DEVLIST_H
#define MROCE_DEVLIST_H

#include <linux/types.h>

struct net;
struct net_device;
struct mroce_dev;

int mroce_devlist_init(void);
void mroce_devlist_exit(void);

/*
 * Put @mdev on the list, under RTNL, unless its netdev left its
 * namespace meanwhile (-ENODEV) or another device took it (-EEXIST).
 */
int mroce_devlist_add(struct mroce_dev *mdev);
/* take @mdev off the list (if it is on it); process context */
void mroce_devlist_del(struct mroce_dev *mdev);

/*
 * Our device on @ndev (its plane 0), or the one @ndev is plane 1.. of
 * (the plane in *@plane, if not NULL), referenced with ib_device_try_get();
 * NULL when there is none or it is being unregistered. Release with
 * ib_device_put(). Any context that may take rcu_read_lock().
 */
struct mroce_dev *mroce_dev_get_by_netdev(struct net_device *ndev);
struct mroce_dev *mroce_dev_get_by_plane(struct net_device *ndev, u32 *plane);

/*
 * Unregister our devices in @net, or all if NULL (module unload).
 * Synchronous: each of them went through ib_device_ops.dealloc_driver
 * when it returns. Process context, no locks held.
 */
void mroce_devices_remove(struct net *net);

#endif /* MROCE_DEVLIST_H */
