// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Building and sending packets, the spray loop (see send.h).
 */
#include "send.h"
#include "cc.h"
#include "parity.h"
#include "path.h"
#include "stream.h"
#include "tsn.h"

/* hand a built packet to the embedder */
static int xmit(struct mre_conn *c, const struct mre_path *p, const u8 *hdr,
		u32 hlen, struct mre_xmit *x)
{
	x->hdr = hdr;
	x->hdr_len = hlen;
	x->path = p->id;
	x->plane = p->plane;
	x->src_port = p->src_port;
	c->ep->ctr.tx_pkts++;
	c->ep->ctr.tx_bytes += hlen + x->pl_len;
	return c->ep->ops->xmit(c, x);
}

static void send_ctrl(struct mre_conn *c, const struct mre_path *p,
		      struct mre_pkt *pkt)
{
	u8 hdr[MRE_CONNECT_LEN + MRE_MAX_BLOB];
	struct mre_xmit x = { 0 };

	c->ep->ctr.tx_ctrl++;
	xmit(c, p, hdr, mre_wire_put(hdr, pkt), &x);
}

struct mre_path *mre_send_ctrl_path(struct mre_conn *c, u32 pref)
{
	u32 i;

	for (i = 0; i < c->npaths; i++) {
		struct mre_path *p = &c->paths[(pref + i) % c->npaths];

		if (p->health != MRE_PATH_FAILED && !p->plane_down)
			return p;
	}
	return &c->paths[pref % c->npaths];
}

/*
 * CONNECT and ACCEPT leave on plane 0 first (its addresses name the node
 * to the peer), then, every second try, on the next plane: a dead plane 0
 * must not keep the connection from opening.
 */
void mre_send_connect(struct mre_conn *c, u8 type, u64 now)
{
	u32 plane = (c->connect_tries / 2) % c->nplanes;
	struct mre_pkt pkt = {
		.type = type,
		.path = (u16)(plane + c->nplanes *
			      (c->connect_tries % (c->npaths / c->nplanes))),
		.dst_cid = type == MRE_T_CONNECT ? 0 : c->remote_cid,
		.ts = (u32)now,
		.connect = {
			.src_cid = c->cid, .isn = c->isn,
			.window_log2 = c->window_log2, .npaths = c->npaths,
			.blob_len = c->blob_len, .blob = c->blob,
			.cookie = type == MRE_T_CONNECT ? c->cookie : 0,
			.cflags = mre_parity_takes(c->ep) ? MRE_CF_PARITY : 0,
		},
	};

	if (type == MRE_T_CONNECT)
		c->connect_sent = now;
	send_ctrl(c, mre_send_ctrl_path(c, pkt.path), &pkt);
}

/*
 * An ACK of ours covers every request that arrived before it: the
 * requester no longer watches their answers (protocol.md 6.5), so the
 * answer tails out get their tail probes back, and the answers still to
 * go out will not be answer tails (fill_data()).
 */
static void answers_acked(struct mre_conn *c, u64 now)
{
	u32 i;

	c->ack_gen++;
	if (!c->answer_tails)
		return;
	c->answer_tails = false;
	for (i = 0; i < c->npaths; i++)
		if (c->paths[i].tail == MRE_TAIL_ANSWER)
			mre_path_answers_acked(&c->paths[i], c, now);
}

void mre_ack_emit(struct mre_conn *c, struct mre_path *p, u64 now,
		  struct mre_pkt *in_place)
{
	struct mre_path *q = mre_send_ctrl_path(c, p->id);
	u64 delay = now - p->rx_ts_at;
	struct mre_pkt pkt = {
		.type = MRE_T_ACK,
		.path = q->id,
		.dst_cid = c->remote_cid,
		.psn = p->rx_reorder,	/* an ACK's psn: reordering seen */
		.ts = (u32)now,
		.ack = {
			.ack_path = p->id,
			.nak = c->nak,
			.psn_cum = p->rx.base,
			.tsn_cum = c->rxw.base,
			.tsn_sack = mre_win_extract64(&c->rxw),
			.ts_echo = p->rx_ts,
			.ack_delay = delay > 0xffffffffULL ? 0xffffffffu : (u32)delay,
			.ce_count = p->rx_ce,
			.rate_hint = mre_cc_hint(c, now),
			.rnr_delay = c->nak_delay,
			.dup_count = c->rx_dups,
			.aflags = c->nak_marked ? MRE_AF_MARK : 0,
			.nak_mark = c->nak_mark,
		},
	};
	u8 hdr[MRE_ACK_LEN];
	struct mre_xmit x = { 0 };

	mre_win_extract(&p->rx, pkt.ack.sack, MRE_SACK_WORDS);
	p->rx_unacked = 0;
	p->rx_reorder = 0;
	p->ack_at = 0;
	c->ep->ctr.tx_ack++;
	answers_acked(c, now);
	if (in_place)
		*in_place = pkt;
	else
		xmit(c, q, hdr, mre_wire_put(hdr, &pkt), &x);
}

void mre_send_proof(struct mre_conn *c, struct mre_path *p, u8 type,
		    u64 nonce, u8 plane, u64 now)
{
	struct mre_pkt pkt = {
		.type = type,
		.path = p->id,
		.dst_cid = c->remote_cid,
		.ts = (u32)now,
		.proof = { .nonce = nonce, .plane = plane },
	};
	u8 hdr[MRE_PLANE_PKT_LEN];
	struct mre_xmit x = { .claim = type == MRE_T_CHALLENGE };

	c->ep->ctr.tx_ctrl++;
	xmit(c, p, hdr, mre_wire_put(hdr, &pkt), &x);
}

void mre_send_probe(struct mre_conn *c, struct mre_path *p, u64 now)
{
	struct mre_pkt pkt = {
		.type = MRE_T_PROBE,
		.flags = MRE_F_ACK_REQ,
		.path = p->id,
		.dst_cid = c->remote_cid,
		.ts = (u32)now,
	};
	u8 hdr[MRE_PROBE_LEN];
	struct mre_xmit x = { 0 };

	pkt.psn = mre_path_sent(p, c, MRE_PSN_PROBE, MRE_TAIL_ASKED, now);
	pkt.probe.path_una = p->psn_una;
	c->ep->ctr.tx_probe++;
	xmit(c, p, hdr, mre_wire_put(hdr, &pkt), &x);
}

/* fill the op-specific fields of a DATA packet from its stream and WQE */

static bool fill_data(struct mre_conn *c, struct mre_txd *t,
		      const struct mre_wqe *cur, struct mre_pkt *pkt,
		      struct mre_xmit *x, bool *unacked)
{
	struct mre_pkt_data *d = &pkt->data;
	struct mre_stream *s = NULL;
	struct mre_wqe w;
	struct mre_rd_slot *r;

	d->src_stream = t->stream;
	if (t->op == MRE_OP_NAK) {		/* self-contained */
		d->dst_stream = t->offset;
		d->syndrome = t->seq;
		return true;
	}
	if (t->stream)
		s = mre_conn_stream(c, t->stream);
	if (t->op == MRE_OP_NOP || !s || s->conn != c)
		return false;
	d->dst_stream = s->remote_id;
	switch (t->op) {
	case MRE_OP_SEND:
	case MRE_OP_WRITE:
	case MRE_OP_READ_REQ:
	case MRE_OP_ATOMIC_REQ:
	case MRE_OP_ATOMIC_WRITE_REQ:
	case MRE_OP_FLUSH_REQ:
		if (!cur) {
			if (!c->ep->ops->sq_get(s, t->msn, &w))
				return false;
			cur = &w;
		}
		d->rkey = cur->rkey;
		d->raddr = cur->raddr;
		d->imm = cur->imm;
		d->rsn = t->seq;
		d->rdsn = t->seq;
		d->mlen = t->op == MRE_OP_ATOMIC_REQ ||
			  t->op == MRE_OP_ATOMIC_WRITE_REQ ? 8 : cur->len;
		d->aop = cur->aop;
		d->swap_add = cur->swap_add;
		d->compare = cur->compare;
		if (t->op == MRE_OP_FLUSH_REQ) {
			d->fflags = cur->fflags;
			/* the whole MR: no range on the wire (4.2) */
			if (d->fflags & MRE_FLUSH_MR) {
				d->raddr = 0;
				d->mlen = 0;
			}
		}
		if (t->len) {
			x->pl_src = MRE_PL_WQE;
			x->pl_stream = s;
			x->pl_msn = t->msn;
			x->pl_offset = t->offset;
			x->pl_len = t->len;
		}
		break;
	case MRE_OP_READ_RESP:
	case MRE_OP_ATOMIC_RESP:
		r = &s->rs[t->seq % MRE_RD_SLOTS];
		*unacked = r->tsn == c->ack_gen;	/* no ACK since it came */
		d->rdsn = t->seq;
		d->orig = r->orig;
		d->mlen = t->op == MRE_OP_READ_RESP ? r->len : 0;
		if (t->len) {
			x->pl_src = MRE_PL_MR;
			x->pl_stream = s;
			x->pl_rkey = r->rkey;
			x->pl_addr = r->raddr + t->offset;
			x->pl_len = t->len;
		}
		break;
	}
	return true;
}

/* the common and DATA fields of TSN @tsn going out on @p; its header length */
static u32 data_hdr(struct mre_conn *c, u32 tsn, struct mre_path *p, u64 now,
		    struct mre_pkt *pkt, bool unacked)
{
	const struct mre_txd *t = mre_txd_of(c, tsn);
	bool resp = mre_op_response(t->op);
	u8 tail;

	pkt->type = MRE_T_DATA;
	/*
	 * Ask for an ACK at once on a message's last packet, and on a path
	 * that has no RTT sample of its own yet: the receiver would otherwise
	 * hold the ACK for ack_delay_ns waiting for a second packet, and a new
	 * connection spread over many paths (an incast: a packet per path in
	 * the first RTT) would learn its rate hint, and its RTTs, that much
	 * later. Until then the path runs on a guessed RTO. A request's
	 * last packet does not ask (mre_op_answered()), nor a one-packet
	 * response: the requester completes on it, the responder completes
	 * nothing on its ACK, and an ACK asked for there is a packet and its
	 * handling inside the requester's round trip (veth, loopback: the
	 * whole READ runs in the poster's system call); its loss is found by
	 * its request's tail probe (an answer tail). A longer response's last
	 * packet asks: its ACK would otherwise wait for the receiver's delay
	 * timer, one expiry per response in a stream of READs spread over the
	 * paths (each path seeing a response now and then, never ack_freq
	 * packets), and its tail probe for that delay too. The lazy tails'
	 * timers allow for the delay (mre_path_sent()); the counts below
	 * still ask twice a window.
	 */
	pkt->flags = (t->xmits ? MRE_F_RETX : 0) |
		     ((t->dflags & MRE_DF_LAST && !mre_op_answered(t->op) &&
		       (!resp || !(t->dflags & MRE_DF_FIRST))) ||
		      !p->srtt ? MRE_F_ACK_REQ : 0);
	pkt->path = p->id;
	pkt->dst_cid = c->remote_cid;
	pkt->ts = (u32)now;
	pkt->data.tsn = tsn;
	pkt->data.msn = t->msn;
	pkt->data.offset = t->op == MRE_OP_NAK ? 0 : t->offset;
	pkt->data.op = t->op;
	pkt->data.dflags = t->dflags;
	pkt->data.plen = t->len;
	/*
	 * Ask for an ACK twice per window, the path's and the connection's:
	 * the windows say how soon the sender runs dry, and the receiver's
	 * own rules (every ack_freq packets of a path, or ack_delay after
	 * the first) know nothing of them. A request's response is its
	 * ACK: the next packet that is not a request asks instead.
	 */
	if ((++p->since_ask >= MRE_MAX(1u, (p->cwnd >> MRE_FP) / 2) ||
	     ++c->since_ask >= MRE_MAX(1u, (c->cwnd >> MRE_FP) / 2)) &&
	    !mre_op_answered(t->op))
		pkt->flags |= MRE_F_ACK_REQ;
	if (pkt->flags & MRE_F_ACK_REQ) {
		p->since_ask = 0;
		c->since_ask = 0;
	}
	/*
	 * An answer tail: a one-packet response, its first transmission,
	 * whose request no ACK of ours has covered (the requester's tail
	 * probe watches it, protocol.md 6.5).
	 */
	tail = !resp || pkt->flags & MRE_F_ACK_REQ ? MRE_TAIL_ASKED :
	       unacked && !t->xmits && t->dflags & MRE_DF_FIRST &&
	       t->dflags & MRE_DF_LAST ? MRE_TAIL_ANSWER : MRE_TAIL_LAZY;
	c->answer_tails |= tail == MRE_TAIL_ANSWER;
	pkt->psn = mre_path_sent(p, c, tsn, tail, now);
	pkt->data.path_una = p->psn_una;
	return mre_wire_data_hdr_len(t->op);
}

/* TSN @tsn went out as PSN @psn of @p: its descriptor and the counters */
static void data_sent(struct mre_conn *c, u32 tsn, struct mre_path *p,
		      u32 psn, u64 now)
{
	struct mre_txd *t = mre_txd_of(c, tsn);

	t->path = (u8)p->id;
	t->psn = psn;
	t->sent = (u32)now;
	t->state = MRE_TXD_OUT;
	/* the oldest outstanding TSN going out for the first time: owed from now */
	if (!t->xmits && tsn == c->tsn_una)
		c->out_since = now;
	c->ep->ctr.tx_data++;
	if (t->xmits) {
		c->ep->ctr.tx_retx++;
		p->st_retx++;
	} else {
		mre_parity_sent(c);
	}
	if (t->xmits < 0xff)
		t->xmits++;
	if (t->op == MRE_OP_NAK)
		c->ep->ctr.tx_nak++;
}

/*
 * A READ response packet can no longer be built (the MR, or the right to
 * read it, went away under the READ). The TSN may be a resend of one the
 * peer already holds: it carries nothing now (a NOP), and the NAK takes a
 * new TSN, so that it reaches the requester either way (once per READ).
 * A first transmission that fails is our error: the stream fails. A
 * resend that fails is not, by itself: the requester may have the whole
 * response already and be done with it (a ULP invalidates the MR as soon
 * as it has the result: NVMe-oF, NFS/RDMA), and then it drops the NAK
 * (mre_stream_nak_rx()); if it does not have it, the NAK fails its READ.
 */
static void read_resp_gone(struct mre_conn *c, struct mre_txd *t)
{
	struct mre_stream *s = mre_conn_stream(c, t->stream);
	u32 msn = t->msn;

	mre_tsn_nop(t);
	if (!s || s->conn != c || s->state == MRE_STREAM_ERROR)
		return;
	if (!s->rd_gone || s->rd_gone_msn != msn) {
		if (!mre_tsn_nak(c, s->id, s->remote_id, msn,
				 MRE_SYN_REM_ACCESS))
			c->ep->ctr.nak_overflow++;
		s->rd_gone = true;
		s->rd_gone_msn = msn;
	}
	if (!t->xmits)
		mre_stream_fail(s, MRE_ST_LOC_ACCESS);
}

/* (re)transmit TSN @tsn on path @p (@cur: its WQE, if at hand) */
static void send_tsn(struct mre_conn *c, u32 tsn, struct mre_path *p, u64 now,
		     const struct mre_wqe *cur)
{
	struct mre_txd *t = mre_txd_of(c, tsn);
	u8 hdr[MRE_DATA_LEN + MRE_EXT_ATOMIC_REQ_LEN];
	bool unacked = false;
	struct mre_pkt pkt;
	struct mre_xmit x;
	u32 hlen;

again:
	mre_memset(&pkt, 0, sizeof(pkt));
	mre_memset(&x, 0, sizeof(x));
	if (!fill_data(c, t, cur, &pkt, &x, &unacked)) {
		mre_tsn_nop(t);
		mre_memset(&pkt, 0, sizeof(pkt));
		mre_memset(&x, 0, sizeof(x));
	}
	hlen = data_hdr(c, tsn, p, now, &pkt, unacked);
	mre_wire_put(hdr, &pkt);
	data_sent(c, tsn, p, pkt.psn, now);
	mre_cc_sent(c, hlen + x.pl_len, now);
	if (xmit(c, p, hdr, hlen, &x) == MRE_SYN_REM_ACCESS &&
	    t->op == MRE_OP_READ_RESP) {
		read_resp_gone(c, t);
		cur = NULL;
		goto again;
	}
}

/* TSNs kept free for NAKs: new messages stop short of the window by this */
static u32 nak_reserve(const struct mre_conn *c)
{
	return MRE_MIN(64u, c->wsize / 8);
}

/*
 * The next path to spray on: round robin over paths with room. A SUSPECT
 * path takes part (its window, cut to min_cwnd by the timeout, makes each
 * packet on it a probe). A retransmission goes to a GOOD path other than
 * the one it was lost on when one has room: that path has just shown a loss.
 */
static struct mre_path *pick_path(struct mre_conn *c, int avoid)
{
	struct mre_path *fallback = NULL;
	u32 k;

	for (k = 0; k < c->npaths; k++) {
		u32 i = (c->rr + k) % c->npaths;
		struct mre_path *p = &c->paths[i];

		if (!mre_path_can_send(p))
			continue;
		if ((int)i != avoid &&
		    (p->health == MRE_PATH_GOOD || avoid < 0)) {
			c->rr = i + 1;
			return p;
		}
		if (!fallback || (fallback->health != MRE_PATH_GOOD &&
				  p->health == MRE_PATH_GOOD))
			fallback = p;
	}
	if (fallback)
		c->rr = fallback->id + 1;
	return fallback;
}

/*
 * A packet of a small message (one packet, or a WQE or a READ response of
 * at most small_bytes: @mlen) goes where the previous small message's went
 * while that path is GOOD and has room, instead of to @p, the next in
 * spray order.
 * Sprayed, the two or three packets of a 4 KiB message take as many paths,
 * and each path is acknowledged apart: an ACK per packet, and a delayed-ACK
 * deadline per path. On one path the message's last packet asks for the
 * one ACK that covers it, and a sparse flow of small operations (a READ or
 * ATOMIC round trip, an RPC) lets the receiver's delayed ACK cover several
 * (ib_write_bw 4 KiB in the guest: 5.8 packets a message against 4.0).
 * Spraying spreads load; a small message carries too little for that to
 * matter, and a stream of them that fills the path's window goes on to
 * the next path.
 */
static struct mre_path *small_path(struct mre_conn *c, const struct mre_txd *t,
				   u32 mlen, struct mre_path *p)
{
	u32 lim = mre_cfg(c)->small_bytes;
	struct mre_path *q;

	if (!lim || (!(t->dflags & MRE_DF_FIRST && t->dflags & MRE_DF_LAST) &&
		     mlen > lim))
		return p;
	q = c->small < c->npaths ? &c->paths[c->small] : NULL;
	if (q && q != p && q->health == MRE_PATH_GOOD && mre_path_can_send(q))
		return q;
	c->small = p->id;
	return p;
}

/*
 * The next new packet: the active streams take turns, one packet each.
 * @cur: its WQE, if it has one; @mlen: its message's length.
 */
static bool next_new(struct mre_conn *c, struct mre_txd *t,
		     const struct mre_wqe **cur, u32 *mlen)
{
	*cur = NULL;
	while (!mre_list_empty(&c->active)) {
		struct mre_stream *s = MRE_CONTAINER_OF(c->active.next,
							struct mre_stream, node);

		mre_list_del(&s->node);
		if (!mre_stream_next(s, t))
			continue;
		mre_list_add_tail(&s->node, &c->active);	/* take turns */
		if (mre_op_response(t->op)) {
			*mlen = s->rs[t->seq % MRE_RD_SLOTS].len;
		} else {
			*cur = &s->cur;
			*mlen = s->cur.len;
		}
		return true;
	}
	return false;
}

/*
 * The tail a PARITY covers after @tsn, the last packet of a WRITE with
 * immediate and not its first (the caller's test), went out for the first
 * time: its packets (2 or more, in a row of TSNs), 0 for none; *@first its
 * first TSN (parity.c).
 */
static u32 parity_tail(struct mre_conn *c, u32 tsn, u32 *first)
{
	const struct mre_config *cfg = mre_cfg(c);
	const struct mre_txd *last = mre_txd_of(c, tsn), *t;
	u32 n, i, stride;

	if (!c->peer_parity || !mre_parity_takes(c->ep) ||
	    (!c->par_on && cfg->parity_ppm))
		return 0;
	/* the tail: up to parity_pkts packets, all still held, in a row */
	stride = mre_txd_of(c, tsn - 1)->len;
	if (!stride)
		return 0;
	n = MRE_MIN(cfg->parity_pkts, MRE_PARITY_MAX);
	n = MRE_MIN(n, tsn - c->tsn_una + 1);
	n = MRE_MIN(n, last->offset / stride + 1);
	if (n < 2)
		return 0;
	for (i = 1; i < n; i++) {
		t = mre_txd_of(c, tsn - i);
		if (t->stream != last->stream || t->msn != last->msn ||
		    t->op != MRE_OP_WRITE || t->len != stride ||
		    t->offset != last->offset - i * stride) {
			c->ep->par.skipped++;
			return 0;
		}
	}
	*first = tsn - (n - 1);
	return n;
}

/*
 * A PARITY after WRITE TSN @tsn (its last packet, just sent for the first
 * time; @cur its WQE) when the connection loses packets (parity.c). Its
 * PSN is a probe's: never resent. It asks for the ACK that carries what
 * it rebuilt.
 */
static void send_parity(struct mre_conn *c, u32 tsn, const struct mre_wqe *cur,
			u64 now)
{
	u8 hdr[MRE_DATA_LEN + MRE_EXT_WRITE_LEN];
	struct mre_stream *s;
	struct mre_txd *t;
	struct mre_path *p;
	struct mre_pkt pkt;
	struct mre_xmit x;
	u32 first, n, i, hlen;

	n = parity_tail(c, tsn, &first);
	if (!n)
		return;
	t = mre_txd_of(c, first);
	s = mre_conn_stream(c, t->stream);
	p = pick_path(c, -1);
	if (!p || !s)
		return;
	for (i = 0; i < n; i++)
		mre_txd_of(c, first + i)->fack |= MRE_TXD_PARITY;
	mre_memset(&pkt, 0, sizeof(pkt));
	mre_memset(&x, 0, sizeof(x));
	x.pl_src = MRE_PL_PARITY;
	x.pl_stream = s;
	x.pl_msn = t->msn;
	x.pl_offset = t->offset;
	x.pl_len = t->len;
	pkt.type = MRE_T_PARITY;
	pkt.flags = MRE_F_ACK_REQ;
	pkt.path = p->id;
	pkt.dst_cid = c->remote_cid;
	pkt.ts = (u32)now;
	pkt.data = (struct mre_pkt_data){
		.tsn = first, .dst_stream = s->remote_id, .src_stream = t->stream,
		.msn = t->msn, .offset = t->offset, .mlen = cur->len,
		.op = MRE_OP_WRITE, .plen = t->len, .rkey = cur->rkey,
		.raddr = cur->raddr, .rsn = t->seq, .imm = cur->imm,
		.dflags = (mre_txd_of(c, tsn)->dflags & ~MRE_DF_FIRST) |
			  (t->offset ? 0 : MRE_DF_FIRST),
	};
	pkt.psn = mre_path_sent(p, c, MRE_PSN_PROBE, MRE_TAIL_ASKED, now);
	pkt.data.path_una = p->psn_una;
	hlen = mre_wire_put(hdr, &pkt);
	mre_cc_sent(c, hlen + x.pl_len, now);
	c->ep->par.tx++;
	xmit(c, p, hdr, hlen, &x);
}

static bool has_new(const struct mre_conn *c)
{
	return !mre_list_empty(&c->active);
}

bool mre_send_transmit(struct mre_conn *c, u64 now, u64 *pace_at)
{
	u32 budget = mre_cfg(c)->tx_burst;
	u32 win = MRE_MIN(c->wsize, c->peer_wsize) - nak_reserve(c);

	while (budget) {
		const struct mre_wqe *cur;
		struct mre_path *p;
		struct mre_txd t;
		u32 tsn, mlen;

		if (c->rtxq_head == c->rtxq_tail && !has_new(c))
			return false;
		if (!mre_cc_can_send(c, now, pace_at))
			return false;
		if (c->rtxq_head != c->rtxq_tail) {
			tsn = c->rtxq[c->rtxq_head & (c->wsize - 1)];
			/*
			 * Settled meanwhile, or even retired: its slot may
			 * now hold a newer TSN, which is not this entry's.
			 */
			if (seq_lt(tsn, c->tsn_una) || seq_ge(tsn, c->tsn_next) ||
			    mre_txd_of(c, tsn)->state != MRE_TXD_QUEUED) {
				c->rtxq_head++;
				continue;
			}
			p = pick_path(c, mre_txd_of(c, tsn)->path);
			if (!p)
				return false;
			c->rtxq_head++;
			send_tsn(c, tsn, p, now, NULL);
			budget--;
			continue;
		}
		if (c->tsn_next - c->tsn_una >= win)
			return false;
		p = pick_path(c, -1);
		if (!p)
			return false;
		if (!next_new(c, &t, &cur, &mlen))
			return false;
		p = small_path(c, &t, mlen, p);
		tsn = c->tsn_next++;
		t.state = MRE_TXD_OUT;
		t.xmits = 0;
		t.fack = 0;
		*mre_txd_of(c, tsn) = t;
		send_tsn(c, tsn, p, now, cur);
		if ((t.dflags & (MRE_DF_LAST | MRE_DF_IMM)) ==
		    (MRE_DF_LAST | MRE_DF_IMM) && t.op == MRE_OP_WRITE && t.offset)
			send_parity(c, tsn, cur, now);
		budget--;
	}
	return true;
}
