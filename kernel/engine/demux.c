// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The receive demux: from a datagram to its connection (see mre_ep_rx()
 * in ep.h).
 *
 *	parse ............................ drop_short .. drop_field
 *	to a group or a broadcast, not UD .. drop_group
 *	UD ............................... rx_ud, mre_ops.ud_rx
 *	CONNECT .. no valid cookie ....... RETRY (connect_cookie, retry_tx /
 *	                                   retry_limited), nothing kept
 *	           by its source address . conn_by_addr, else conn_new
 *	                                   (drop_conn_new, connect_later);
 *	           by a plane not its own  drop_foreign
 *	RESET .... by the sender's address  conn_by_addr (drop_reset)
 *	DATA, ACK, ACCEPT, PROBE, RETRY .. by id: conn_by_id (drop_no_conn:
 *	                                   RESET, reset_tx / reset_limited);
 *	           not from the peer ..... drop_foreign
 *	then the connection: the blob of the CONNECT or ACCEPT that opens it
 *	(c->peer_planes; drop_plane_addr), mre_conn_accept() or mre_conn_rx().
 */
#include "engine.h"
#include "hash.h"

#define NSEC_PER_S	1000000000ULL

#define COOKIE_EPOCH_SHIFT	33	/* a cookie's epoch: 2^33 ns, 8.6 s */

#define ADDR_KEY_LEN	17	/* an address as hash input: family, 16 bytes */

/* @a as hash input: family, then its bytes, the rest zero */
static void addr_key(const struct mre_addr *a, u8 *m)
{
	mre_memset(m, 0, ADDR_KEY_LEN);
	m[0] = a->family;
	mre_memcpy(m + 1, a->a, mre_addr_len(a->family));
}

/*
 * The cookie for a CONNECT of connection @cid from @src in @epoch: keyed,
 * so only we can make one, and it reaches only whoever receives at @src.
 */
static u64 cookie_of(struct mre_ep *ep, const struct mre_addr *src, u64 cid,
		     u64 epoch)
{
	u8 m[ADDR_KEY_LEN + 16];
	u64 v;

	addr_key(src, m);
	put_be64(m + ADDR_KEY_LEN, cid);
	put_be64(m + ADDR_KEY_LEN + 8, epoch);
	mre_ep_key(ep);
	v = mre_siphash(ep->secret, m, sizeof(m));
	return v ? v : 1;
}

/* a cookie of this epoch or of the one before (8.6 to 17 s old at most) */
static bool cookie_ok(struct mre_ep *ep, u64 now, const struct mre_rx *rx,
		      const struct mre_pkt *pkt)
{
	u64 e = now >> COOKIE_EPOCH_SHIFT, k = pkt->connect.cookie;

	return k && (k == cookie_of(ep, &rx->src, pkt->connect.src_cid, e) ||
		     (e && k == cookie_of(ep, &rx->src, pkt->connect.src_cid,
					  e - 1)));
}

/*
 * May one more RESET or RETRY go to @src? At most reset_burst a second to
 * one source: sources share a bucket by a keyed hash of the address, so a
 * flood from one (or forged in the name of one) cannot use up another's.
 * Datagrams of one endpoint may be demuxed on several CPUs at once: like
 * the counters, the buckets are not serialised, and a race lets one or two
 * more through in a second (a clock read on another CPU may also be a
 * little older: compared as signed).
 */
static bool rl_take(struct mre_ep *ep, u64 now, const struct mre_addr *src)
{
	u8 m[ADDR_KEY_LEN];
	struct mre_rl *b;

	addr_key(src, m);
	mre_ep_key(ep);
	b = &ep->rl[mre_siphash(ep->secret, m, sizeof(m)) % MRE_RL_BUCKETS];

	if (!b->start || (s64)(now - b->start) >= (s64)NSEC_PER_S) {
		b->start = now ? now : 1;
		b->sent = 0;
	}
	if (b->sent >= ep->cfg.reset_burst)
		return false;
	b->sent++;
	return true;
}

/*
 * Send @p (a RESET or a RETRY) back to where the datagram came from, if
 * its source's bucket allows: counted in *@sent, or in *@limited.
 */
static void reply(struct mre_ep *ep, u64 now, const struct mre_rx *rx,
		  const struct mre_pkt *p, u64 *sent, u64 *limited)
{
	u8 buf[MRE_RESET_LEN];

	MRE_STATIC_ASSERT(MRE_RETRY_LEN <= MRE_RESET_LEN, "reply buffer");
	if (!ep->ops->reply)
		return;
	if (!rl_take(ep, now, &rx->src)) {
		(*limited)++;
		return;
	}
	(*sent)++;
	ep->ctr.tx_pkts++;
	ep->ctr.tx_ctrl++;
	ep->ops->reply(ep, rx, buf, mre_wire_put(buf, p));
}

/* a CONNECT without a valid cookie: the cookie, and nothing kept */
static void send_retry(struct mre_ep *ep, u64 now, const struct mre_rx *rx,
		       const struct mre_pkt *in)
{
	struct mre_pkt p = {
		.type = MRE_T_RETRY,
		.path = in->path,
		.dst_cid = in->connect.src_cid,
		.retry = {
			.cookie = cookie_of(ep, &rx->src, in->connect.src_cid,
					    now >> COOKIE_EPOCH_SHIFT),
		},
	};

	ep->ctr.connect_cookie++;
	reply(ep, now, rx, &p, &ep->ctr.retry_tx, &ep->ctr.retry_limited);
}

/* answer a packet for an unknown connection id with a RESET naming it */
static void send_reset(struct mre_ep *ep, u64 now, const struct mre_rx *rx,
		       const struct mre_pkt *in)
{
	struct mre_pkt p = {
		.type = MRE_T_RESET,
		.path = in->path,
		.reset = { .cid = in->dst_cid, .reason = 0 },
	};

	reply(ep, now, rx, &p, &ep->ctr.reset_tx, &ep->ctr.reset_limited);
}

/* is @a an address of the peer of @c: its own, or one of its planes? */
static bool from_peer(const struct mre_conn *c, const struct mre_addr *a)
{
	u32 k;

	if (mre_addr_eq(&c->addr, a))
		return true;
	for (k = 0; k < c->peer_nplanes && k < MRE_BLOB_MAX_PLANES; k++)
		if (mre_addr_eq(&c->peer_planes[k], a))
			return true;
	return false;
}

/*
 * Does a packet with @c's id come from @c's peer? From its address or a
 * plane it told when the connection opened. An ACCEPT that opens the
 * connection may come from a plane its own blob names: its dst_cid, our
 * new id, was sent to that node alone, and proves it.
 */
static bool bound(const struct mre_conn *c, const struct mre_rx *rx,
		  const struct mre_pkt *pkt)
{
	struct mre_addr a[MRE_BLOB_MAX_PLANES];
	u32 k, n;

	if (from_peer(c, &rx->src))
		return true;
	if (pkt->type != MRE_T_ACCEPT || c->state != MRE_CONN_CONNECTING)
		return false;
	n = mre_wire_blob_parse(pkt->connect.blob, pkt->connect.blob_len,
				c->addr.family, a);
	for (k = 0; k < n; k++)
		if (mre_addr_eq(&a[k], &rx->src))
			return true;
	return false;
}

/* may @a be a peer's plane address: unicast, of @family, not ours */
static bool plane_addr_ok(const struct mre_addr *a, u8 family,
			  const struct mre_addr *ours, u32 nours)
{
	u32 i, n = mre_addr_len(family);
	bool zero = true;

	if (a->family != family || mre_addr_is_group(a))
		return false;
	for (i = 0; i < n; i++)
		zero &= !a->a[i];
	if (zero)
		return false;
	if (family == MRE_AF_INET &&
	    (a->a[0] == 127 || a->a[0] == 0 ||
	     (a->a[0] == 255 && a->a[1] == 255 && a->a[2] == 255 &&
	      a->a[3] == 255)))
		return false;
	if (family == MRE_AF_INET6 && a->a[15] == 1) {
		for (i = 0, zero = true; i < 15; i++)
			zero &= !a->a[i];
		if (zero)		/* ::1 */
			return false;
	}
	for (i = 0; i < nours; i++)
		if (mre_addr_eq(a, &ours[i]))
			return false;
	return true;
}

/*
 * The planes of the peer of @c, from the blob of the CONNECT or ACCEPT
 * that opens the connection. Each address must be a unicast one of the
 * connection's family and not one of ours; one that is not is left out
 * (that plane goes by plane 0's addresses) and counted.
 */
static void learn_planes(struct mre_conn *c, const struct mre_pkt *pkt)
{
	struct mre_addr a[MRE_BLOB_MAX_PLANES], ours[MRE_BLOB_MAX_PLANES];
	u32 k, nours = 0, n = mre_wire_blob_parse(pkt->connect.blob,
						  pkt->connect.blob_len,
						  c->addr.family, a);

	/* an unusable blob changes nothing: what an earlier one said stays */
	if (!n)
		return;
	mre_memset(ours, 0, sizeof(ours));
	if (c->ep->ops->our_planes)
		nours = MRE_MIN(c->ep->ops->our_planes(c->ep, c->addr.family,
						       ours),
				(u32)MRE_BLOB_MAX_PLANES);
	for (k = 0; k < n; k++) {
		if (a[k].family &&
		    !plane_addr_ok(&a[k], c->addr.family, ours, nours)) {
			c->ep->ctr.drop_plane_addr++;
			a[k].family = 0;
		}
	}
	mre_memcpy(c->peer_planes, a, sizeof(a[0]) * n);
	c->peer_nplanes = (u8)n;
	if (c->ep->ops->conn_event)
		c->ep->ops->conn_event(c, MRE_CONN_PLANES);
}

/*
 * The connection of a CONNECT whose cookie proved its source address. The
 * node is the one at that address. A CONNECT by another of its planes
 * (plane 0 down, or a retry on another plane) names its plane 0 in its
 * blob: that connection is the node's only if the source address is one
 * of the planes it learned when it opened (a claim in a blob alone names
 * nobody). Else the source address is a new node's.
 */
static struct mre_conn *connect_conn(struct mre_ep *ep,
				     const struct mre_rx *rx,
				     const struct mre_pkt *pkt, bool *foreign)
{
	struct mre_addr theirs[MRE_BLOB_MAX_PLANES];
	struct mre_conn *c = ep->ops->conn_by_addr(ep, rx, &rx->src);

	*foreign = false;
	if (c || !mre_wire_blob_parse(pkt->connect.blob, pkt->connect.blob_len,
				      rx->src.family, theirs) ||
	    theirs[0].family != rx->src.family ||
	    mre_addr_eq(&theirs[0], &rx->src))
		return c;
	c = ep->ops->conn_by_addr(ep, rx, &theirs[0]);
	*foreign = c && !from_peer(c, &rx->src);
	return c;
}

/* a CONNECT: its cookie checked, its connection found or made, answered */
static struct mre_conn *rx_connect(struct mre_ep *ep, u64 now,
				   const struct mre_rx *rx,
				   const struct mre_pkt *pkt)
{
	struct mre_conn *c;
	bool foreign;

	if (!cookie_ok(ep, now, rx, pkt)) {
		send_retry(ep, now, rx, pkt);
		return NULL;
	}
	c = connect_conn(ep, rx, pkt, &foreign);
	if (foreign) {
		ep->ctr.drop_foreign++;
		return c;	/* held: the caller lets go of it */
	}
	if (!c) {
		switch (ep->ops->conn_new(ep, rx, &rx->src, &rx->dst, &c)) {
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
	now = mre_conn_clock(c, now);
	if (c->state != MRE_CONN_ESTABLISHED)
		learn_planes(c, pkt);
	mre_conn_accept(c, now, pkt);
	return c;
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
			if (pkt.type != MRE_T_RETRY)
				send_reset(ep, now, rx, &pkt);
			return NULL;
		}
		if (!bound(c, rx, &pkt)) {
			ep->ctr.drop_foreign++;
			return c;	/* held: the caller lets go of it */
		}
		if (pkt.type == MRE_T_ACCEPT && c->state == MRE_CONN_CONNECTING)
			learn_planes(c, &pkt);
	}
	mre_conn_rx(c, mre_conn_clock(c, now), &pkt, rx->ce);
	return c;
}
