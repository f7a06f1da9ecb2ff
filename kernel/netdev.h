/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Netdev side of a device: port state from the netdev's state, async
 * events on changes, and removal when the netdev goes away.
 */
#ifndef MROCE_NETDEV_H
#define MROCE_NETDEV_H

#include <rdma/ib_verbs.h>

struct net_device;
struct mroce_dev;

enum ib_port_state mroce_port_state(struct net_device *ndev);
void mroce_port_update(struct mroce_dev *mdev);

int mroce_netdev_init(void);
void mroce_netdev_exit(void);

#endif /* MROCE_NETDEV_H */
