/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A device's packets to itself (two QPs of one device, a UD datagram to
 * its own address): straight from the batch flush to its receive path,
 * as rxe's loopback does, instead of down UDP and IP, through the
 * loopback netdev and up again. net.c decides (the route is local and the
 * destination address is one of the device's planes', module parameter
 * loop_direct), frames the packet as received (IP and UDP headers,
 * data at the MetaRoCE header), queues it here and schedules the NAPI
 * context; this file hands it to mroce_rx() from that context, in softirq
 * as a datagram from the socket would be, a budget at a time. So a packet
 * to ourselves never recurses into the receive path of the flush that
 * sent it, and the calls flow one way: net.c does not call up here.
 */
#ifndef MROCE_LOOP_H
#define MROCE_LOOP_H

#include <linux/netdevice.h>
#include <linux/skbuff.h>

struct mroce_dev;

/* packets waiting at most (the stack's per-CPU backlog is 1000) */
#define MROCE_LOOP_QLEN	2048

struct mroce_loop {
	struct sk_buff_head q;		/* framed packets to ourselves */
	struct napi_struct napi;
	struct net_device ndev;		/* dummy: the NAPI context's owner */
	bool live;			/* takes packets (RCU readers) */
};

void mroce_loop_init(struct mroce_dev *mdev);
/* no more packets taken, those queued dropped (process context) */
void mroce_loop_exit(struct mroce_dev *mdev);

#endif /* MROCE_LOOP_H */
