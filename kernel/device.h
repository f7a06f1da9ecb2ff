/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mroce devices: creation by `rdma link add` (mroce_newlink()) and the
 * teardown the core calls (ib_device_ops.dealloc_driver). Our list of
 * devices and the lookups on it: devlist.h.
 */
#ifndef MROCE_DEVICE_H
#define MROCE_DEVICE_H

struct net_device;

int mroce_newlink(const char *ibdev_name, struct net_device *ndev);

#endif /* MROCE_DEVICE_H */
