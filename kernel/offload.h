/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Datapath ops: the entry points every MetaRoCE packet of a device goes
 * through. The software implementation (mroce_sw_dp_ops) is the default; a
 * NIC driver that can run parts of the datapath itself (e.g. a programmable
 * NIC such as AMD Pensando's, running the transport in its P4 pipeline)
 * registers its own table with mroce_offload_register() and is offered
 * every new device; see Documentation/offload.rst.
 *
 * A device picks its ops once, at creation, and keeps them (and a reference
 * on ops->owner) until it is freed, so the ops never change under a running
 * datapath.
 */
#ifndef MROCE_OFFLOAD_H
#define MROCE_OFFLOAD_H

#include <linux/types.h>

struct module;
struct net_device;
struct sk_buff;
struct mroce_dev;

/**
 * struct mroce_dp_ops - datapath entry points of one implementation
 * @name:  for logs; unique among registered offloads
 * @owner: module implementing the ops; pinned while a device uses them
 * @claim: process context, RTNL not held. Return true to run the datapath
 *         of a new mroce device on @ndev (e.g. @ndev is one of your ports).
 *         Unused for the software ops, which take every device.
 * @xmit:  send one MetaRoCE packet of @mdev. @skb holds the MetaRoCE header
 *         and payload, with headroom for UDP/IP/Ethernet. Consumes @skb in
 *         all cases. Returns 0 or a negative errno (the caller counts a tx
 *         drop). Context: any, including softirq; must not sleep.
 * @rx:    a MetaRoCE packet arrived for @mdev; @skb->data points at the
 *         MetaRoCE header (UDP header pulled). Consumes @skb in all cases.
 *         Context: softirq under rcu_read_lock(); must not sleep.
 */
struct mroce_dp_ops {
	const char *name;
	struct module *owner;
	bool (*claim)(struct net_device *ndev);
	int (*xmit)(struct mroce_dev *mdev, struct sk_buff *skb);
	int (*rx)(struct mroce_dev *mdev, struct sk_buff *skb);
};

extern const struct mroce_dp_ops mroce_sw_dp_ops;

int mroce_offload_register(const struct mroce_dp_ops *ops);
void mroce_offload_unregister(const struct mroce_dp_ops *ops);

const struct mroce_dp_ops *mroce_dp_get(struct net_device *ndev);
void mroce_dp_put(const struct mroce_dp_ops *ops);

#endif /* MROCE_OFFLOAD_H */
