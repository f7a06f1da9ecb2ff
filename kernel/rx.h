/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The receive entry of the software datapath: every MetaRoCE datagram of
 * a device goes from the socket (socket.c) through mroce_rx() into
 * mre_ep_rx(), which parses it, finds its connection through the peer
 * table's lookups (peer.c: held, the peer locked) and hands it over;
 * mroce_rx() then runs the connection and unlocks it. The demux's other
 * callbacks are here: a new node's connection, UD, replies.
 *
 * A CONNECT from a node we have no peer for needs a new peer, which
 * allocates: the datagram waits in the device's connect queue (at most
 * MROCE_CONNECT_Q of them) for a work item that hands it to mre_ep_rx()
 * again, this time allowed to create the peer.
 */
#ifndef MROCE_RX_H
#define MROCE_RX_H

#include "batch.h"
#include "engine.h"

struct mroce_dev;
struct mroce_peer;
struct sk_buff;

/*
 * What the demux's callbacks need of the datagram being handled (struct
 * mre_rx.ctx): the batch that the peer they lock sends into (flushed once
 * it is unlocked), the skb, the clock read for it.
 */
struct mroce_rx_ctx {
	struct mroce_dev *mdev;
	struct sk_buff *skb;
	struct mroce_batch b;
	u64 now;
	bool may_alloc;		/* the connect work: conn_new may create */
	bool kept;		/* the skb went to the connect queue */
};

#define MROCE_CONNECT_Q		64

/* the device's connect queue and work / their end (before the peers go) */
void mroce_rx_init(struct mroce_dev *mdev);
void mroce_rx_exit(struct mroce_dev *mdev);

/* the software datapath's receive entry (offload.h: rx); softirq, RCU */
int mroce_rx(struct mroce_dev *mdev, struct sk_buff *skb);

/* mre_ops: a connection for a new node, UD, replies */
enum mre_new mroce_rx_conn_new(struct mre_ep *ep, const struct mre_rx *rx,
			       const struct mre_addr *peer,
			       const struct mre_addr *local,
			       struct mre_conn **c);
void mroce_rx_ud(struct mre_ep *ep, const struct mre_rx *rx,
		 const struct mre_pkt *pkt);
void mroce_rx_reply(struct mre_ep *ep, const struct mre_rx *rx, const u8 *pkt,
		    u32 len);

#endif /* MROCE_RX_H */
