// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The receive demux: from a datagram to its connection (see mre_ep_rx()
 * in ep.h).
 *
 *	parse ............................ drop_short .. drop_field
 *	to a group or a broadcast, not UD .. drop_group
 *	UD ............................... rx_ud, mre_ops.ud_rx
 *	CONNECT .. by the node's address . conn_by_addr, else conn_new
 *	                                   (drop_conn_new, connect_later)
 *	RESET .... by the sender's address  conn_by_addr (drop_reset)
 *	DATA, ACK, ACCEPT, PROBE .. by id . conn_by_id (drop_no_conn: RESET,
 *	                                   reset_tx / reset_limited)
 *	then the connection: a CONNECT's or ACCEPT's blob (c->peer_planes),
 *	mre_conn_accept() or mre_conn_rx().
 */
#include "engine.h"

#define NSEC_PER_S	1000000000ULL

/*
 * Who sent a CONNECT: the node's plane-0 address from its blob, and ours
 * on plane 0, when it came by another plane (plane 0 is down or not
 * routed); else the datagram's own addresses.
 */
static void connect_who(struct mre_ep *ep, const struct mre_rx *rx,
			const struct mre_pkt *pkt, struct mre_addr *who,
			struct mre_addr *local)
{
	struct mre_addr theirs[MRE_BLOB_MAX_PLANES], ours[MRE_BLOB_MAX_PLANES];
	u8 family = rx->src.family;

	*who = rx->src;
	*local = rx->dst;
	if (!ep->ops->our_planes ||
	    !mre_wire_blob_parse(pkt->connect.blob, pkt->connect.blob_len,
				 family, theirs) ||
	    theirs[0].family != family || mre_addr_eq(&theirs[0], &rx->src))
		return;
	mre_memset(ours, 0, sizeof(ours));
	if (!ep->ops->our_planes(ep, family, ours) || ours[0].family != family)
		return;
	*who = theirs[0];
	*local = ours[0];
}

/* the peer's planes, from the blob of its CONNECT or ACCEPT */
static void learn_planes(struct mre_conn *c, const struct mre_pkt *pkt)
{
	struct mre_addr a[MRE_BLOB_MAX_PLANES];
	u32 n = mre_wire_blob_parse(pkt->connect.blob, pkt->connect.blob_len,
				    c->addr.family, a);

	/* an unusable blob changes nothing: what an earlier one said stays */
	if (n) {
		mre_memcpy(c->peer_planes, a, sizeof(a[0]) * n);
		c->peer_nplanes = (u8)n;
	}
	if (c->ep->ops->conn_event)
		c->ep->ops->conn_event(c, MRE_CONN_PLANES);
}

/* a CONNECT: its connection, found or made, answered */
static struct mre_conn *rx_connect(struct mre_ep *ep, u64 now,
				   const struct mre_rx *rx,
				   const struct mre_pkt *pkt)
{
	struct mre_addr who, local;
	struct mre_conn *c;

	connect_who(ep, rx, pkt, &who, &local);
	c = ep->ops->conn_by_addr(ep, rx, &who);
	if (!c) {
		switch (ep->ops->conn_new(ep, rx, &who, &local, &c)) {
		case MRE_NEW_OK:
			break;
		case MRE_NEW_LATER:
			ep->ctr.connect_later++;
			return NULL;
		default:
			ep->ctr.drop_conn_new++;
			return NULL;
		}
	}
	learn_planes(c, pkt);
	mre_conn_accept(c, mre_conn_clock(c, now), pkt);
	return c;
}

/*
 * Answer a packet for an unknown connection id with a RESET naming it; at
 * most reset_burst a second (the window restarts a second after its first
 * RESET), so that a flood of such packets is not answered in kind.
 */
static void send_reset(struct mre_ep *ep, u64 now, const struct mre_rx *rx,
		       const struct mre_pkt *in)
{
	struct mre_pkt p = {
		.type = MRE_T_RESET,
		.path = in->path,
		.reset = { .cid = in->dst_cid, .reason = 0 },
	};
	u8 buf[MRE_RESET_LEN];

	if (!ep->ops->reply)
		return;
	/*
	 * Datagrams of one endpoint may be demuxed on several CPUs at once:
	 * like the counters, the limiter is not serialised, and a race lets
	 * a RESET or two more through in a second (a clock read on another
	 * CPU may also be a little older: compared as signed).
	 */
	if ((s64)(now - ep->reset_epoch) >= (s64)NSEC_PER_S || !ep->reset_epoch) {
		ep->reset_epoch = now ? now : 1;
		ep->reset_sent = 0;
	}
	if (ep->reset_sent >= ep->cfg.reset_burst) {
		ep->ctr.reset_limited++;
		return;
	}
	ep->reset_sent++;
	ep->ctr.reset_tx++;
	ep->ctr.tx_pkts++;
	ep->ctr.tx_ctrl++;
	ep->ops->reply(ep, rx, buf, mre_wire_put(buf, &p));
}

struct mre_conn *mre_ep_rx(struct mre_ep *ep, u64 now, const struct mre_rx *rx)
{
	struct mre_conn *c;
	struct mre_pkt pkt;

	if (mre_ep_parse(ep, rx->buf, rx->len, &pkt))
		return NULL;
	/* only UD may be sent to a group; nothing to a broadcast address */
	if (rx->bcast || (pkt.type != MRE_T_UD && mre_addr_is_group(&rx->dst))) {
		ep->ctr.drop_group++;
		return NULL;
	}
	switch (pkt.type) {
	case MRE_T_UD:
		ep->ctr.rx_ud++;
		if (ep->ops->ud_rx)
			ep->ops->ud_rx(ep, rx, &pkt);
		return NULL;
	case MRE_T_CONNECT:
		return rx_connect(ep, now, rx, &pkt);
	case MRE_T_RESET:
		c = ep->ops->conn_by_addr(ep, rx, &rx->src);
		if (!c) {
			ep->ctr.drop_reset++;
			return NULL;
		}
		break;
	default:
		c = ep->ops->conn_by_id(ep, rx, pkt.dst_cid);
		if (!c) {
			ep->ctr.drop_no_conn++;
			send_reset(ep, now, rx, &pkt);
			return NULL;
		}
		if (pkt.type == MRE_T_ACCEPT && c->state == MRE_CONN_CONNECTING)
			learn_planes(c, &pkt);
	}
	mre_conn_rx(c, mre_conn_clock(c, now), &pkt, rx->ce);
	return c;
}
