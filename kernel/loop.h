/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A device's packets to itself (two QPs of one device, a UD datagram to
 * its own address): straight from the batch flush to its receive path,
 * as rxe's loopback does, instead of down UDP and IP, through the
 * loopback netdev and up again. net.c decides (the destination address
 * is one of the device's planes', whatever the route; module parameter
 * loop_direct), frames the packet as received (IP and UDP headers,
 * data at the MetaRoCE header), queues it on this CPU and schedules its
 * NAPI context; this file hands it to mroce_rx() from that context, in
 * softirq as a datagram from the socket would be, a budget at a time, as
 * a chain (chain.h): each peer's timer is set once, after the burst. So
 * a packet to ourselves never recurses into the receive path of the flush
 * that sent it, and the calls flow one way: net.c does not call up here.
 * A doorbell takes its own (mroce_loop_hold(), mroce_loop_drain()): after
 * its flush, with BHs still off, inside its chain.
 */
#ifndef MROCE_LOOP_H
#define MROCE_LOOP_H

#include <linux/netdevice.h>
#include <linux/skbuff.h>

struct mroce_dev;

/* packets waiting at most, per CPU (the stack's per-CPU backlog is 1000) */
#define MROCE_LOOP_QLEN	2048

/*
 * One CPU's queue and NAPI context. A packet is handled on the CPU that
 * sent it, as a veth pair's are (the stack's per-CPU backlog): a doorbell's
 * packet, the ACK it draws and the answer to it run in the doorbell's own
 * flush, before it sets its timer, even while another CPU is in its poll.
 * Only this CPU touches it (BHs off or in its softirq).
 */
struct mroce_loop_cpu {
	struct sk_buff_head q;		/* framed packets to ourselves */
	struct napi_struct napi;
	bool polling;			/* in its poll or a doorbell's hold */
};

struct mroce_loop {
	struct mroce_loop_cpu __percpu *cpu;
	struct net_device ndev;		/* dummy: the NAPI contexts' owner */
	bool live;			/* takes packets (RCU readers) */
};

/* packets a doorbell takes from its CPU's queue itself, at most */
#define MROCE_LOOP_DRAIN	NAPI_POLL_WEIGHT

/*
 * A doorbell's packets to ourselves, taken by the doorbell itself: between
 * mroce_loop_hold() (true: held) and mroce_loop_drain(), with BHs off all
 * along (which also holds off mroce_loop_exit()'s grace period), nothing
 * this CPU queues schedules the NAPI context; the drain then hands them,
 * and what they send to ourselves in turn, to mroce_rx() on the spot, as
 * the poll would have a moment later, without the softirq's round (two
 * of them a one-device round trip). More than MROCE_LOOP_DRAIN are left
 * to the poll. Held already (a post from a completion handler inside the
 * drain or the poll): false, and the outer one takes them.
 */
bool mroce_loop_hold(struct mroce_dev *mdev);
void mroce_loop_drain(struct mroce_dev *mdev);

int mroce_loop_init(struct mroce_dev *mdev);
/* no more packets taken, those queued dropped (process context) */
void mroce_loop_exit(struct mroce_dev *mdev);

#endif /* MROCE_LOOP_H */
