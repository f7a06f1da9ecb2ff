/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Planes: the netdevs of one device. Plane 0 is the netdev the device was
 * created on (`rdma link add NAME type mroce netdev DEV`); more are added
 * and removed through sysfs:
 *
 *	echo "add eth1" > /sys/class/infiniband/NAME/planes
 *	echo "del eth1" > /sys/class/infiniband/NAME/planes
 *	cat /sys/class/infiniband/NAME/planes	one line per plane:
 *						"IDX NETDEV up|down|gone"
 *
 * A plane is a separate fabric: each has its own addresses. The engine
 * puts path i on plane i % nplanes; a packet of a path on plane k leaves
 * by plane k's netdev, from its address, to the peer's address on its
 * plane k % (the peer's number of planes). Each side tells the other its
 * plane addresses in the CONNECT/ACCEPT blob (the engine writes and reads
 * it: mre_wire_blob_put()/_parse(), protocol.md 4.4; we give it our
 * addresses, mroce_planes_ours()), so a plane added after a connection
 * opened is used by our sending side at once and by the peer from its next
 * connection. A plane whose netdev is down (or was deleted, "gone") has its
 * paths failed; they are probed back when it comes up. Plane netdevs live
 * in the device's network namespace; one netdev is a plane of at most one
 * device.
 *
 * The queries (mroce_planes(), mroce_plane_ndev(), mroce_plane_of()) are
 * inline in mroce.h; this file is the plane table's writers.
 */
#ifndef MROCE_PLANE_H
#define MROCE_PLANE_H

#include <linux/netdevice.h>

#define MROCE_MAX_PLANES	8
/*
 * With a plane index to mroce_peer_xmit(): a CHALLENGE (mre_xmit.claim),
 * to the peer's claimed address on that plane though it is not proven
 */
#define MROCE_PLANE_CLAIM	0x80000000u

struct mre_addr;
struct mre_ep;
struct mroce_dev;

struct mroce_plane {
	struct net_device *ndev;	/* NULL: deleted (a gap); RTNL, RCU */
	netdevice_tracker tracker;	/* planes 1.. (plane 0: the device's) */
};

extern struct device_attribute dev_attr_planes;	/* the sysfs file */

/* mre_ops.our_planes: our address of @family on each plane */
u32 mroce_planes_ours(struct mre_ep *ep, u8 family, struct mre_addr *addrs);

/* netdev events for netdevs that are planes 1.. of a device (RTNL) */
void mroce_plane_netdev_event(struct net_device *ndev, unsigned long event);
/* device teardown: let go of planes 1.. */
void mroce_planes_release(struct mroce_dev *mdev);

#endif /* MROCE_PLANE_H */
