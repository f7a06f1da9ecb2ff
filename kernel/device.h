/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mroce devices: creation by `rdma link add`, the list of our own devices,
 * lookup by netdev and bulk removal.
 *
 * We keep our own list because the core's per-driver helpers match on
 * driver_id, and mroce reports RDMA_DRIVER_UNKNOWN (6.1 has no id for it):
 * ib_unregister_driver() and ib_device_get_by_netdev() with that id would
 * also find other drivers' devices.
 */
#ifndef MROCE_DEVICE_H
#define MROCE_DEVICE_H

struct net;
struct net_device;
struct mroce_dev;

int mroce_newlink(const char *ibdev_name, struct net_device *ndev);
struct mroce_dev *mroce_dev_get_by_netdev(struct net_device *ndev);
/* the device that has @ndev as its plane 1.. (*@plane: which), referenced */
struct mroce_dev *mroce_dev_get_by_plane(struct net_device *ndev, u32 *plane);
void mroce_devices_remove(struct net *net);

#endif /* MROCE_DEVICE_H */
