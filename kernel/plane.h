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
 * plane addresses in the CONNECT/ACCEPT blob (below), so a plane added
 * after a connection opened is used by our sending side at once and by
 * the peer from its next connection. A plane whose netdev is down (or was
 * deleted, "gone") has its paths failed; they are probed back when it
 * comes up. Plane netdevs live in the device's network namespace; one
 * netdev is a plane of at most one device.
 *
 * The blob (Documentation/mroce.rst): version 1, address family (4 or 6),
 * number of planes n, one reserved byte, then n addresses (4 or 16 bytes),
 * plane 0 first.
 */
#ifndef MROCE_PLANE_H
#define MROCE_PLANE_H

#include <linux/netdevice.h>
#include <linux/socket.h>

#define MROCE_MAX_PLANES	8
#define MROCE_BLOB_VERSION	1
#define MROCE_BLOB_LEN(n, alen)	(4 + (n) * (alen))

struct mroce_dev;

struct mroce_plane {
	struct net_device *ndev;	/* NULL: deleted (a gap); RTNL, RCU */
	netdevice_tracker tracker;	/* planes 1.. (plane 0: the device's) */
};

extern struct device_attribute dev_attr_planes;	/* the sysfs file */

/* the device's planes: number, and plane @k's netdev (RCU or RTNL; NULL: gone) */
u32 mroce_planes(struct mroce_dev *mdev);
struct net_device *mroce_plane_ndev(struct mroce_dev *mdev, u32 k);
/* the plane of @mdev that @ndev is: 0 (the link's netdev), 1.., or -1 (RCU) */
int mroce_plane_of(struct mroce_dev *mdev, const struct net_device *ndev);
/* our address of @family on plane @k; false: it has none */
bool mroce_plane_addr(struct mroce_dev *mdev, u32 k, int family,
		      struct sockaddr_storage *sa);

/* our blob for a peer of @family into @buf (room: MRE_MAX_BLOB); its length */
u32 mroce_planes_blob(struct mroce_dev *mdev, int family, u8 *buf);
/*
 * A peer's blob: its plane addresses of @family into @addrs
 * (MROCE_MAX_PLANES); the number, 0 when the blob says nothing usable.
 */
u32 mroce_planes_parse(const u8 *blob, u32 len, int family,
		       struct sockaddr_storage *addrs);

/* netdev events for netdevs that are planes 1.. of a device (RTNL) */
void mroce_plane_netdev_event(struct net_device *ndev, unsigned long event);
/* device teardown: let go of planes 1.. */
void mroce_planes_release(struct mroce_dev *mdev);

#endif /* MROCE_PLANE_H */
