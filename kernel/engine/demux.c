// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The receive demux: from a datagram to its connection (see mre_ep_rx()
 * in ep.h).
 *
 *	parse ............................ drop_short .. drop_field
 *	from an address no peer has ...... drop_src (nothing answered)
 *	to a group or a broadcast, not UD .. drop_group
 *	UD ............................... rx_ud, mre_ops.ud_rx
 *	CONNECT .. no valid cookie ....... RETRY (connect_cookie, retry_tx;
 *	                                   never limited), nothing kept
 *	           by its source address . conn_by_addr, else conn_new
 *	                                   (drop_conn_new, connect_later);
 *	           by a plane not its own  drop_foreign
 *	RESET .... by the sender's address  conn_by_addr (drop_reset)
 *	DATA, ACK, ACCEPT, PROBE, RETRY,
 *	CHALLENGE, ECHO .................. by id: conn_by_id (drop_no_conn:
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
 * May one more RESET go to @src? At most reset_burst (and 65535) in one
 * second of the endpoint's to one source. Sources share MRE_RL_BUCKETS
 * buckets by a keyed hash of the address: a flood in the name of k
 * sources uses up at most k buckets, which a sender cannot choose, so any
 * other source shares one of them with a chance of at most k / 4096 (a
 * few hundred: under one in ten), and to starve every source takes some
 * 4096 * reset_burst datagrams a second. No cap over all sources: whoever
 * floods could use that up for all.
 * The seconds are the endpoint's: one starts at the first RESET asked for
 * after the last one ended, and has a number (rl_gen); a bucket counts
 * only in the second it last counted in (a source may get two seconds'
 * worth around the turn). When the number wraps (after 65536 seconds at
 * least) the buckets are cleared, so a stale one never counts.
 * Datagrams of one endpoint may be demuxed on several CPUs at once: like
 * the counters, the limiter is not serialised, and a race lets one or two
 * more through in a second (a clock read on another CPU may also be a
 * little older: compared as signed).
 */
static bool rl_take(struct mre_ep *ep, u64 now, const struct mre_addr *src)
{
	u32 burst = MRE_MIN(ep->cfg.reset_burst, 0xffffu), v, *b;
	u8 m[ADDR_KEY_LEN];

	addr_key(src, m);
	mre_ep_key(ep);
	b = &ep->rl[mre_siphash(ep->secret, m, sizeof(m)) &
		    (MRE_RL_BUCKETS - 1)];

	if (!ep->rl_start || (s64)(now - ep->rl_start) >= (s64)NSEC_PER_S) {
		ep->rl_start = now ? now : 1;
		if (!++ep->rl_gen)
			mre_memset(ep->rl, 0, sizeof(ep->rl));
	}
	v = *b;
	if (v >> 16 != ep->rl_gen)
		v = (u32)ep->rl_gen << 16;
	if ((v & 0xffff) >= burst)
		return false;
	*b = v + 1;
	return true;
}

/*
 * Send @p (a RESET or a RETRY) back to where the datagram came from,
 * counted in *@sent; a RESET (@limited set) only if its source's bucket
 * allows, else counted in *@limited.
 */
static void reply(struct mre_ep *ep, u64 now, const struct mre_rx *rx,
		  const struct mre_pkt *p, u64 *sent, u64 *limited)
{
	u8 buf[MRE_RESET_LEN];

	MRE_STATIC_ASSERT(MRE_RETRY_LEN <= MRE_RESET_LEN, "reply buffer");
	if (!ep->ops->reply)
		return;
	if (limited && !rl_take(ep, now, &rx->src)) {
		(*limited)++;
		return;
	}
	(*sent)++;
	ep->ctr.tx_pkts++;
	ep->ctr.tx_ctrl++;
	ep->ops->reply(ep, rx, buf, mre_wire_put(buf, p));
}

/*
 * A CONNECT without a valid cookie: the cookie, and nothing kept. Every
 * one is answered, with no limit: a RETRY is smaller than the CONNECT it
 * answers (no amplification: a forger could send the victim as much
 * itself), costs what receiving the CONNECT did, and is the only way in.
 * Any limit keyed by the source address, which the forger chooses, is
 * one that a flood forged in the name of a node uses up for that node: a
 * hundred forged CONNECTs a second would keep it from ever connecting
 * (and a limit per bucket, a few hundred sources from connecting at all).
 * So retry_limited stays 0.
 */
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

	MRE_STATIC_ASSERT(MRE_RETRY_LEN <= MRE_CONNECT_LEN, "no amplification");
	ep->ctr.connect_cookie++;
	reply(ep, now, rx, &p, &ep->ctr.retry_tx, NULL);
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

	/*
	 * Never more bytes back than came: a PROBE (28) gets no RESET (32).
	 * A peer that lost its state learns it from the next DATA or ACK.
	 */
	if (rx->len < MRE_RESET_LEN)
		return;
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

/* an IPv4 unicast address no node has: 0/8, loopback, broadcast */
static bool v4_bogus(const u8 *a)
{
	return !a[0] || a[0] == 127 ||
	       (a[0] == 255 && a[1] == 255 && a[2] == 255 && a[3] == 255);
}

/*
 * Can @a be no peer's address? IPv4 0/8, 127/8, 224/4 and
 * 255.255.255.255; IPv6 ::, ::1, ff00::/8, and IPv4-mapped ones of the
 * IPv4 kinds; an address of no family. No node sends from one, nor can
 * be reached at one: a datagram from one is forged (or our own stack
 * talking to itself over 127/8, which mroce does not use: a node that
 * talks to itself does so at its own address), and an answer would go
 * to ourselves or to a group. 240/4 is left alone (some use it as
 * unicast), and so are our own addresses, which the embedder knows.
 */
static bool addr_bogus(const struct mre_addr *a)
{
	u32 i;

	if (a->family != MRE_AF_INET && a->family != MRE_AF_INET6)
		return true;
	if (mre_addr_is_group(a))		/* 224/4, ff00::/8 */
		return true;
	if (a->family == MRE_AF_INET)
		return v4_bogus(a->a);
	for (i = 0; i < 10; i++)
		if (a->a[i])
			return false;
	if (a->a[10] == 0xff && a->a[11] == 0xff)	/* ::ffff:a.b.c.d */
		return v4_bogus(a->a + 12) || (a->a[12] & 0xf0) == 0xe0;
	if (a->a[10] || a->a[11] || a->a[12] || a->a[13] || a->a[14])
		return false;
	return a->a[15] <= 1;				/* :: and ::1 */
}

/* may @a be a peer's plane address: unicast, of @family, not ours */
static bool plane_addr_ok(const struct mre_addr *a, u8 family,
			  const struct mre_addr *ours, u32 nours)
{
	u32 i;

	if (a->family != family || addr_bogus(a))
		return false;
	for (i = 0; i < nours; i++)
		if (mre_addr_eq(a, &ours[i]))
			return false;
	return true;
}

/*
 * The planes of the peer of @c, from the blob of the CONNECT or ACCEPT
 * that opens the connection. Each address must be a unicast one of the
 * connection's family and not one of ours; one that is not is left out
 * (that plane goes by plane 0's addresses) and counted. What an earlier
 * incarnation learned is gone (mre_conn_connect() forgot it, or here for
 * a connection the peer reopens), and an address learned is a claim that
 * only carries traffic once proven (conn.c, mre_conn_plane_proven()).
 */
static void learn_planes(struct mre_conn *c, const struct mre_pkt *pkt,
			 u64 now)
{
	struct mre_addr a[MRE_BLOB_MAX_PLANES], ours[MRE_BLOB_MAX_PLANES];
	u32 k, nours = 0, n = mre_wire_blob_parse(pkt->connect.blob,
						  pkt->connect.blob_len,
						  c->addr.family, a);

	/* an unusable blob says nothing: plane 0's addresses for every plane */
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
	mre_conn_planes_learned(c, now);
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
	if (c->state == MRE_CONN_FAILED && !mre_conn_may_reopen(c, now)) {
		ep->ctr.drop_reopen++;
		return c;	/* held: the caller lets go of it */
	}
	/* it opens the connection (or reopens a failed one): its planes */
	if (c->state != MRE_CONN_ESTABLISHED) {
		mre_conn_planes_forget(c);
		learn_planes(c, pkt, now);
	}
	mre_conn_accept(c, now, pkt);
	return c;
}

struct mre_conn *mre_ep_rx(struct mre_ep *ep, u64 now, const struct mre_rx *rx)
{
	struct mre_conn *c;
	struct mre_pkt pkt;

	if (mre_ep_parse(ep, rx->buf, rx->len, &pkt))
		return NULL;
	/* from an address no peer has: never answered, nothing kept */
	if (addr_bogus(&rx->src)) {
		ep->ctr.drop_src++;
		return NULL;
	}
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
		/*
		 * Our end failed and the peer's has not heard: it would wait
		 * for dead_ns (or for ever, owed nothing it sends). Tell it,
		 * as a node that freed the connection would: the RESET names
		 * our id, which only it (and its path) knows.
		 */
		if (c->state == MRE_CONN_FAILED && pkt.type != MRE_T_RETRY &&
		    pkt.type != MRE_T_ACCEPT) {
			ep->ctr.drop_state++;
			send_reset(ep, now, rx, &pkt);
			return c;	/* held: the caller lets go of it */
		}
		now = mre_conn_clock(c, now);
		if (pkt.type == MRE_T_ACCEPT && c->state == MRE_CONN_CONNECTING)
			learn_planes(c, &pkt, now);
	}
	mre_conn_rx(c, mre_conn_clock(c, now), &pkt, rx->ce);
	return c;
}
