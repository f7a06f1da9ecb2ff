/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * UD multicast: ib_device_ops.attach_mcast / detach_mcast and the groups
 * the receive path delivers to.
 *
 * A RoCE v2 multicast GID is an IP multicast address (IPv4-mapped, or an
 * IPv6 ff00::/8 one). A group is that address on the device; attaching a
 * UD QP to it also joins the address on the device's netdev (IGMP / MLD,
 * and the link-layer filter), so that the IP layer accepts the group's
 * datagrams and hands them to our UDP socket. A UD datagram sent to the
 * group with destination QPN 0xffffff reaches every QP attached to it on
 * every device that joined, including the sender's own (IP multicast
 * loopback).
 *
 * Locking: mdev->mcast_lock (a mutex) serialises attach, detach and QP
 * teardown and guards each QP's list of attachments; it is taken with no
 * other lock held, and RTNL (for the IP join and leave) only outside it.
 * The receive path walks the group table and each group's QPs under RCU.
 */
#ifndef MROCE_MCAST_H
#define MROCE_MCAST_H

#include <linux/list.h>
#include <linux/socket.h>
#include <rdma/ib_verbs.h>

struct mroce_dev;
struct mroce_qp;
struct mre_pkt;
struct sk_buff;

#define MROCE_MAX_MCG		1024	/* groups per device */
#define MROCE_MAX_MCG_QP	64	/* QPs per group */
#define MROCE_MAX_MCA		16384	/* attachments per device */
#define MROCE_MCG_HASH_BITS	6

void mroce_mcast_init(struct mroce_dev *mdev);
/* device teardown: every QP is gone, so is every group */
void mroce_mcast_exit(struct mroce_dev *mdev);

/* ib_device_ops */
int mroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int mroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);

/* QP teardown: leave every group the QP is still attached to */
void mroce_mcast_qp_destroy(struct mroce_qp *qp);

/*
 * Receive path (RCU): call @deliver for each QP attached to the group
 * @dst (the datagram's destination address); returns how many were called.
 */
u32 mroce_mcast_rx(struct mroce_dev *mdev, const struct sockaddr_storage *dst,
		   void (*deliver)(struct mroce_qp *qp, void *ctx), void *ctx);

#endif /* MROCE_MCAST_H */
