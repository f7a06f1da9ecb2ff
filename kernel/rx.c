// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receiving (see rx.h): the datagram into the engine's demux, and the
 * demux's callbacks for a new node's CONNECT, UD and replies (the lookups
 * of known peers are the peer table's, peer.c).
 */
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <linux/workqueue.h>

#include "batch.h"
#include "chain.h"
#include "net.h"
#include "peer.h"
#include "rx.h"
#include "ud.h"
#include "mroce.h"

static struct mroce_rx_ctx *ctx_of(const struct mre_rx *rx)
{
	return rx->ctx;
}

/*
 * Hand @skb (linear, UDP header pulled) to the engine; consumes it. The
 * peer's timer is set as it is unlocked, or at the end of the chain this
 * CPU runs (chain.h: a doorbell's, the loop's poll).
 */
static void rx_one(struct mroce_dev *mdev, struct sk_buff *skb, bool may_alloc)
{
	struct mroce_rx_ctx ctx = {
		.mdev = mdev, .skb = skb, .now = mroce_clock_ns(),
		.may_alloc = may_alloc,
	};
	struct mre_rx rx = {
		.buf = skb->data, .len = skb->len,
		.src_port = ntohs(udp_hdr(skb)->source),
		.ce = mroce_net_ce(skb),
		.bcast = skb->pkt_type == PACKET_BROADCAST,
		.ctx = &ctx,
	};
	struct mroce_peer *peer;
	struct mre_conn *c;

	mroce_net_addrs(skb, &rx.src, &rx.dst);
	mroce_batch_init(&ctx.b);
	c = mre_ep_rx(&mdev->ep, ctx.now, &rx);
	if (c) {
		peer = mroce_peer_of(c);
		if (!mroce_chain_on()) {
			mroce_peer_unlock(peer);	/* runs it */
			mroce_peer_release(peer);
		} else {
			mroce_chain_defer(peer, mroce_peer_unlock_defer(peer));
		}
	}
	mroce_batch_flush(&ctx.b);
	if (!ctx.kept)
		consume_skb(skb);	/* each drop is counted by its reason */
}

int mroce_rx(struct mroce_dev *mdev, struct sk_buff *skb)
{
	if (skb_linearize(skb)) {
		mroce_counter_inc(mdev, MROCE_CNT_RX_DROP_NOMEM);
		kfree_skb(skb);
		return 0;
	}
	rx_one(mdev, skb, false);
	return 0;
}

/* --- CONNECTs from new nodes ------------------------------------------------- */

/*
 * A CONNECT from a node without a peer, whose cookie proved the address
 * it came from. In softirq: queue it for the connect work (its route,
 * which may be a noref one valid in this RCU section only, is dropped: it
 * is not needed). In the work: make the peer (max_peers at most), set up
 * for the device's planes before the engine gets it (mre_ops.conn_new
 * allows it).
 */
enum mre_new mroce_rx_conn_new(struct mre_ep *ep, const struct mre_rx *rx,
			       const struct mre_addr *addr,
			       const struct mre_addr *local,
			       struct mre_conn **c)
{
	struct mroce_rx_ctx *ctx = ctx_of(rx);
	struct mroce_dev *mdev = ctx->mdev;
	struct sockaddr_storage d, s;
	struct mroce_peer *peer;

	if (!ctx->may_alloc) {
		if (skb_queue_len(&mdev->connect_q) >= MROCE_CONNECT_Q) {
			mroce_counter_inc(mdev, MROCE_CNT_RX_DROP_CONNECT_Q);
			return MRE_NEW_REFUSED;
		}
		skb_dst_drop(ctx->skb);
		skb_queue_tail(&mdev->connect_q, ctx->skb);
		ctx->kept = true;
		schedule_work(&mdev->connect_work);
		return MRE_NEW_LATER;
	}
	mroce_sa_of_addr(addr, &d);
	mroce_sa_of_addr(local, &s);
	peer = mroce_peer_accept(mdev, &d, &s);
	if (IS_ERR(peer))
		return MRE_NEW_REFUSED;
	mroce_peer_lock(peer, &ctx->b);	/* held: rx_one() lets go */
	mroce_peer_planes(peer);
	*c = &peer->conn;
	return MRE_NEW_OK;
}

/* CONNECTs from unknown nodes, back into the demux where it may allocate */
static void connect_work(struct work_struct *work)
{
	struct mroce_dev *mdev = container_of(work, struct mroce_dev,
					      connect_work);
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&mdev->connect_q)))
		rx_one(mdev, skb, true);
}

void mroce_rx_init(struct mroce_dev *mdev)
{
	skb_queue_head_init(&mdev->connect_q);
	INIT_WORK(&mdev->connect_work, connect_work);
}

/* the device left its namespace's receive list: nothing queues any more */
void mroce_rx_exit(struct mroce_dev *mdev)
{
	synchronize_rcu();		/* receivers that found the device */
	cancel_work_sync(&mdev->connect_work);
	skb_queue_purge(&mdev->connect_q);
}

/* --- UD and replies ---------------------------------------------------------- */

void mroce_rx_ud(struct mre_ep *ep, const struct mre_rx *rx,
		 const struct mre_pkt *pkt)
{
	struct mroce_rx_ctx *ctx = ctx_of(rx);

	mroce_ud_rx(ctx->mdev, ctx->skb, pkt);
}

/* a RESET or RETRY back to where the datagram came from (no peer, no route cache) */
void mroce_rx_reply(struct mre_ep *ep, const struct mre_rx *rx, const u8 *pkt,
		    u32 len)
{
	struct mroce_rx_ctx *ctx = ctx_of(rx);
	struct sockaddr_storage src, dst;
	struct sk_buff *skb;

	skb = mroce_net_alloc(len);
	if (!skb) {
		mroce_counter_inc(ctx->mdev, MROCE_CNT_TX_DROP_NOMEM);
		return;
	}
	memcpy(skb_put(skb, len), pkt, len);
	mroce_sa_of_addr(&rx->src, &src);
	mroce_sa_of_addr(&rx->dst, &dst);
	mroce_net_queue(ctx->mdev, skb, &dst, &src, rx->src_port, NULL, 0,
			&ctx->b);
}
