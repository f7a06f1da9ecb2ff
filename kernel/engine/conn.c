// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Connections: handshake, TSN windows, ACKs, the transmit loop (see conn.h).
 *
 * Timers of a connection, and what starts them (mre_conn_run() serves all;
 * path timers are listed in path.c):
 *   connect_at  CONNECT retry, doubling, connect_tries times, then FAILED.
 *   rnr_until   refused TSNs (MRE_TXD_WAIT) are resent at this time.
 *   stall       tsn_una's packet arrived but was neither accepted nor
 *               refused in an ACK that could say so: resent after an RTO.
 *   dead        data outstanding and no ACK for dead_ns: FAILED.
 *   pace        the receiver's rate hint spaces packets out.
 */
#include "conn.h"
#include "cc.h"
#include "engine.h"
#include "path.h"
#include "stream.h"

#define CONN_ALIGN 16
#define ALIGN_UP(x) (((x) + CONN_ALIGN - 1) & ~(u32)(CONN_ALIGN - 1))

static const struct mre_config *cfg_of(const struct mre_conn *c)
{
	return &c->ep->cfg;
}

u32 mre_conn_mem_size(const struct mre_config *cfg)
{
	u32 w = 1u << cfg->window_log2;

	return ALIGN_UP(w * sizeof(struct mre_txd)) +
	       ALIGN_UP(w * sizeof(struct mre_gate)) +
	       ALIGN_UP(w * sizeof(u32)) +		/* retransmit queue */
	       ALIGN_UP(w / 8) +			/* TSN receive window */
	       cfg->npaths * ALIGN_UP(sizeof(struct mre_path));
}

static u32 random_nonzero(struct mre_ep *ep)
{
	u32 v;

	do {
		v = (u32)ep->ops->random(ep);
	} while (!v);
	return v;
}

/* fresh sequence state for both directions (init, and peer restart) */
static void conn_reset_seq(struct mre_conn *c, u64 now)
{
	u32 i;

	c->tsn_next = c->tsn_una = random_nonzero(c->ep);
	c->una_since = now;
	c->rtxq_head = c->rtxq_tail = 0;
	c->n_wait = 0;
	c->inflight = 0;
	c->peer_dups = 0;
	c->rx_dups = 0;
	c->nak = MRE_SYN_NONE;
	c->nak_marked = false;
	c->peer_marked = false;
	c->cnak_stream = 0;
	c->reorder = cfg_of(c)->reorder_pkts;
	c->reorder_calm = 0;
	c->heard_sent = 0;
	c->loss_ewma = 0;
	mre_path_silence_k(c);
	mre_memset(c->txd, 0, c->wsize * sizeof(*c->txd));
	mre_memset(c->gate, 0, c->wsize * sizeof(*c->gate));
	mre_win_init(&c->rxw, c->rxw.map, c->wsize, 0);
	for (i = 0; i < c->npaths; i++)
		mre_path_init(&c->paths[i], c, (u16)i, now);
	mre_cc_init(c);
}

void mre_conn_init(struct mre_conn *c, struct mre_ep *ep, void *mem)
{
	const struct mre_config *cfg = &ep->cfg;
	u8 *m = mem;

	mre_memset(c, 0, sizeof(*c));
	c->ep = ep;
	c->npaths = (u8)cfg->npaths;
	c->nplanes = (u8)cfg->nplanes;
	c->window_log2 = (u8)cfg->window_log2;
	c->wsize = 1u << cfg->window_log2;
	c->peer_wsize = c->wsize;
	c->txd = (struct mre_txd *)m;
	m += ALIGN_UP(c->wsize * sizeof(struct mre_txd));
	c->gate = (struct mre_gate *)m;
	m += ALIGN_UP(c->wsize * sizeof(struct mre_gate));
	c->rtxq = (u32 *)m;
	m += ALIGN_UP(c->wsize * sizeof(u32));
	c->rxw.map = (u32 *)m;
	m += ALIGN_UP(c->wsize / 8);
	c->paths = (struct mre_path *)m;
	mre_list_init(&c->active);
	mre_list_init(&c->attached);
	mre_list_init(&c->markwait);
	c->cid = random_nonzero(ep);
	c->state = MRE_CONN_CLOSED;
	conn_reset_seq(c, 0);
}

void mre_conn_path_event(struct mre_conn *c, struct mre_path *p)
{
	if (c->ep->ops->conn_event)
		c->ep->ops->conn_event(c, MRE_CONN_PATH);
}

void mre_conn_activate(struct mre_conn *c, struct mre_stream *s)
{
	if (mre_list_empty(&s->node))
		mre_list_add_tail(&s->node, &c->active);
}

/* TSNs kept free for NAKs: new messages stop short of the window by this */
static u32 nak_reserve(const struct mre_conn *c)
{
	return MRE_MIN(64u, c->wsize / 8);
}

static void queue_retx(struct mre_conn *c, u32 tsn);

bool mre_conn_nak(struct mre_conn *c, u32 stream, u32 dst_stream, u32 msn,
		  u32 syn)
{
	struct mre_txd *t;
	u32 tsn;

	if (c->tsn_next - c->tsn_una >= c->wsize)
		return false;
	tsn = c->tsn_next++;
	t = mre_txd_of(c, tsn);
	*t = (struct mre_txd){
		.stream = stream, .msn = msn, .offset = dst_stream, .seq = syn,
		.op = MRE_OP_NAK, .dflags = MRE_DF_FIRST | MRE_DF_LAST,
		.path = 0xff,
	};
	queue_retx(c, tsn);		/* goes out first, on any path */
	c->nak_mark = tsn + 1;
	c->nak_marked = true;
	return true;
}

bool mre_conn_mark_ok(struct mre_conn *c, struct mre_stream *s)
{
	if (!c->peer_marked || seq_ge(c->rxw.base, c->peer_mark))
		return true;
	if (mre_list_empty(&s->mnode))
		mre_list_add_tail(&s->mnode, &c->markwait);
	return false;
}

/* the receive window moved: streams waiting for a NAK may now complete */
static void markwait_run(struct mre_conn *c)
{
	while (!mre_list_empty(&c->markwait) &&
	       seq_ge(c->rxw.base, c->peer_mark)) {
		struct mre_stream *s = MRE_CONTAINER_OF(c->markwait.next,
							struct mre_stream, mnode);

		mre_list_del(&s->mnode);
		mre_stream_complete(s);
	}
}

/* --- sending ------------------------------------------------------------- */

static void xmit(struct mre_conn *c, const struct mre_path *p, const u8 *hdr,
		 u32 hlen, struct mre_xmit *x)
{
	x->hdr = hdr;
	x->hdr_len = hlen;
	x->path = p->id;
	x->plane = p->plane;
	x->src_port = p->src_port;
	c->ep->ctr.tx_pkts++;
	c->ep->ctr.tx_bytes += hlen + x->pl_len;
	c->ep->ops->xmit(c, x);
}

static void send_ctrl(struct mre_conn *c, const struct mre_path *p,
		      struct mre_pkt *pkt)
{
	u8 hdr[MRE_CONNECT_LEN + MRE_MAX_BLOB];
	struct mre_xmit x = { 0 };

	c->ep->ctr.tx_ctrl++;
	xmit(c, p, hdr, mre_wire_put(hdr, pkt), &x);
}

/* a usable path to send a control packet on, starting with @pref */
static const struct mre_path *ctrl_path(const struct mre_conn *c, u32 pref)
{
	u32 i;

	for (i = 0; i < c->npaths; i++) {
		const struct mre_path *p = &c->paths[(pref + i) % c->npaths];

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
static void send_connect(struct mre_conn *c, u8 type, u64 now)
{
	u32 plane = (c->connect_tries / 2) % c->nplanes;
	struct mre_pkt pkt = {
		.type = type,
		.path = (u16)(plane + c->nplanes *
			      (c->connect_tries % (c->npaths / c->nplanes))),
		.dst_cid = type == MRE_T_CONNECT ? 0 : c->remote_cid,
		.ts = (u32)now,
		.connect = {
			.src_cid = c->cid, .isn = c->tsn_next,
			.window_log2 = c->window_log2, .npaths = c->npaths,
			.blob_len = c->blob_len, .blob = c->blob,
		},
	};

	send_ctrl(c, ctrl_path(c, pkt.path), &pkt);
}

void mre_conn_send_ack(struct mre_conn *c, struct mre_path *p, u64 now)
{
	const struct mre_path *q = ctrl_path(c, p->id);
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
	xmit(c, q, hdr, mre_wire_put(hdr, &pkt), &x);
}

void mre_conn_send_probe(struct mre_conn *c, struct mre_path *p, u64 now)
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

	pkt.psn = mre_path_sent(p, c, MRE_PSN_PROBE, now);
	pkt.probe.path_una = p->psn_una;
	c->ep->ctr.tx_probe++;
	xmit(c, p, hdr, mre_wire_put(hdr, &pkt), &x);
}

/* fill the op-specific fields of a DATA packet from its stream and WQE */
static bool fill_data(struct mre_conn *c, struct mre_txd *t,
		      const struct mre_wqe *cur, struct mre_pkt *pkt,
		      struct mre_xmit *x)
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
		s = c->ep->ops->stream(c, t->stream);
	if (t->op == MRE_OP_NOP || !s || s->conn != c)
		return false;
	d->dst_stream = s->remote_id;
	switch (t->op) {
	case MRE_OP_SEND:
	case MRE_OP_WRITE:
	case MRE_OP_READ_REQ:
	case MRE_OP_ATOMIC_REQ:
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
		d->mlen = t->op == MRE_OP_ATOMIC_REQ ? 8 : cur->len;
		d->aop = cur->aop;
		d->swap_add = cur->swap_add;
		d->compare = cur->compare;
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

/* the packet of @t can no longer be built: the TSN carries nothing */
static void to_nop(struct mre_txd *t)
{
	t->stream = 0;
	t->msn = 0;
	t->offset = 0;
	t->seq = 0;
	t->op = MRE_OP_NOP;
	t->len = 0;
	t->dflags = MRE_DF_FIRST | MRE_DF_LAST;
}

/* (re)transmit TSN @tsn on path @p */
static void send_tsn(struct mre_conn *c, u32 tsn, struct mre_path *p, u64 now,
		     const struct mre_wqe *cur)
{
	struct mre_txd *t = mre_txd_of(c, tsn);
	u8 hdr[MRE_DATA_LEN + MRE_EXT_ATOMIC_REQ_LEN];
	struct mre_pkt pkt;
	struct mre_xmit x;
	u32 hlen;

again:
	mre_memset(&pkt, 0, sizeof(pkt));
	mre_memset(&x, 0, sizeof(x));
	if (!fill_data(c, t, cur, &pkt, &x)) {
		to_nop(t);
		mre_memset(&pkt, 0, sizeof(pkt));
		mre_memset(&x, 0, sizeof(x));
	}
	pkt.type = MRE_T_DATA;
	/*
	 * Ask for an ACK at once on a message's last packet, and on a path
	 * that has no RTT sample of its own yet: the receiver would otherwise
	 * hold the ACK for ack_delay_ns waiting for a second packet, and a new
	 * connection spread over many paths (an incast: a packet per path in
	 * the first RTT) would learn its rate hint, and its RTTs, that much
	 * later. Until then the path runs on a guessed RTO.
	 */
	pkt.flags = (t->xmits ? MRE_F_RETX : 0) |
		    (t->dflags & MRE_DF_LAST || !p->srtt ? MRE_F_ACK_REQ : 0);
	pkt.path = p->id;
	pkt.dst_cid = c->remote_cid;
	pkt.ts = (u32)now;
	pkt.data.tsn = tsn;
	pkt.data.msn = t->msn;
	pkt.data.offset = t->op == MRE_OP_NAK ? 0 : t->offset;
	pkt.data.op = t->op;
	pkt.data.dflags = t->dflags;
	pkt.data.plen = t->len;
	hlen = mre_wire_data_hdr_len(t->op);
	pkt.psn = mre_path_sent(p, c, tsn, now);
	/*
	 * Ask for an ACK twice per window, the path's and the connection's:
	 * the windows say how soon the sender runs dry, and the receiver's
	 * own rules (every ack_freq packets of a path, or ack_delay after
	 * the first) know nothing of them.
	 */
	if (++p->since_ask >= MRE_MAX(1u, (p->cwnd >> MRE_FP) / 2) ||
	    ++c->since_ask >= MRE_MAX(1u, (c->cwnd >> MRE_FP) / 2))
		pkt.flags |= MRE_F_ACK_REQ;
	if (pkt.flags & MRE_F_ACK_REQ) {
		p->since_ask = 0;
		c->since_ask = 0;
	}
	pkt.data.path_una = p->psn_una;
	mre_wire_put(hdr, &pkt);
	t->path = (u8)p->id;
	t->psn = pkt.psn;
	t->sent = (u32)now;
	t->state = MRE_TXD_OUT;
	/* the oldest outstanding TSN going out for the first time: owed from now */
	if (!t->xmits && tsn == c->tsn_una)
		c->out_since = now;
	c->ep->ctr.tx_data++;
	if (t->xmits) {
		c->ep->ctr.tx_retx++;
		p->st_retx++;
	}
	if (t->xmits < 0xff)
		t->xmits++;
	if (t->op == MRE_OP_NAK)
		c->ep->ctr.tx_nak++;
	x.hdr = hdr;
	x.hdr_len = hlen;
	x.path = p->id;
	x.plane = p->plane;
	x.src_port = p->src_port;
	c->ep->ctr.tx_pkts++;
	c->ep->ctr.tx_bytes += hlen + x.pl_len;
	mre_cc_sent(c, hlen + x.pl_len, now);
	if (c->ep->ops->xmit(c, &x) == MRE_SYN_REM_ACCESS &&
	    t->op == MRE_OP_READ_RESP) {
		/*
		 * The MR went away under a READ response: this TSN carries the
		 * NAK instead (the PSN just used looks lost to the path).
		 */
		struct mre_stream *s = c->ep->ops->stream(c, t->stream);

		t->op = MRE_OP_NAK;
		t->seq = MRE_SYN_REM_ACCESS;
		t->len = 0;
		t->dflags = MRE_DF_FIRST | MRE_DF_LAST;
		if (s)
			mre_stream_fail(s, MRE_ST_LOC_ACCESS);
		cur = NULL;
		goto again;
	}
}

static void queue_retx(struct mre_conn *c, u32 tsn)
{
	struct mre_txd *t = mre_txd_of(c, tsn);

	if (t->state == MRE_TXD_WAIT)
		c->n_wait--;
	t->state = MRE_TXD_QUEUED;
	c->rtxq[c->rtxq_tail++ & (c->wsize - 1)] = tsn;
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

/* the next new packet: the active streams take turns, one packet each */
static bool next_new(struct mre_conn *c, struct mre_txd *t,
		     const struct mre_wqe **cur)
{
	*cur = NULL;
	while (!mre_list_empty(&c->active)) {
		struct mre_stream *s = MRE_CONTAINER_OF(c->active.next,
							struct mre_stream, node);

		mre_list_del(&s->node);
		if (!mre_stream_next(s, t))
			continue;
		mre_list_add_tail(&s->node, &c->active);	/* take turns */
		if (t->op != MRE_OP_READ_RESP && t->op != MRE_OP_ATOMIC_RESP)
			*cur = &s->cur;
		return true;
	}
	return false;
}

static bool has_new(const struct mre_conn *c)
{
	return !mre_list_empty(&c->active);
}

/* returns true when it stopped for lack of budget (call again at once) */
static bool transmit(struct mre_conn *c, u64 now, u64 *pace_at)
{
	u32 budget = cfg_of(c)->tx_burst;
	u32 win = MRE_MIN(c->wsize, c->peer_wsize) - nak_reserve(c);

	while (budget) {
		const struct mre_wqe *cur;
		struct mre_path *p;
		struct mre_txd t;
		u32 tsn;

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
		if (!next_new(c, &t, &cur))
			return false;
		tsn = c->tsn_next++;
		t.state = MRE_TXD_OUT;
		t.xmits = 0;
		t.fack = 0;
		*mre_txd_of(c, tsn) = t;
		send_tsn(c, tsn, p, now, cur);
		budget--;
	}
	return true;
}

/* --- receiving ------------------------------------------------------------ */

static bool tsn_in_ack(const struct mre_pkt_ack *a, u32 tsn, bool *known)
{
	u32 d = tsn - a->tsn_cum - 1;

	*known = true;
	if (seq_lt(tsn, a->tsn_cum))
		return true;
	if (tsn == a->tsn_cum)
		return false;
	if (d < MRE_TSN_SACK_BITS)
		return a->tsn_sack >> d & 1;
	*known = false;
	return false;
}

void mre_conn_tsn_arrived(struct mre_conn *c, u32 tsn, u16 path, u32 psn,
			  const struct mre_pkt *ack, u64 now)
{
	struct mre_txd *t = mre_txd_of(c, tsn);
	const struct mre_pkt_ack *a = &ack->ack;
	bool known, ok;

	/* only the latest transmission speaks for the TSN */
	if (seq_lt(tsn, c->tsn_una) || seq_ge(tsn, c->tsn_next) ||
	    (t->state != MRE_TXD_OUT && t->state != MRE_TXD_QUEUED) ||
	    t->path != path || t->psn != psn)
		return;
	ok = tsn_in_ack(a, tsn, &known);
	if (ok) {
		t->state = MRE_TXD_ACKED;
		return;
	}
	if (!known) {
		t->state = MRE_TXD_ARRIVED;
		return;
	}
	/* arrived, and this very ACK says it was not accepted: refused */
	if (a->nak == MRE_SYN_RNR && t->stream) {
		struct mre_stream *s = c->ep->ops->stream(c, t->stream);

		if (s && s->conn == c && !mre_stream_rnr(s, c->ack_seq)) {
			mre_stream_fail(s, MRE_ST_RNR_RETRY_EXC);
			to_nop(t);
		}
	}
	t->state = MRE_TXD_WAIT;
	c->n_wait++;
	c->ep->ctr.rnr_wait++;
	if (c->n_wait == 1 || c->rnr_until < now)
		c->rnr_until = now + (a->nak == MRE_SYN_RNR ? a->rnr_delay :
				       cfg_of(c)->rto_min_ns);
}

void mre_conn_tsn_lost(struct mre_conn *c, u32 tsn, u16 path, u32 psn,
		       bool fack)
{
	struct mre_txd *t = mre_txd_of(c, tsn);

	if (seq_lt(tsn, c->tsn_una) || seq_ge(tsn, c->tsn_next) ||
	    t->state != MRE_TXD_OUT || t->path != path || t->psn != psn)
		return;
	t->fack = fack;
	queue_retx(c, tsn);
}

/*
 * FACK declared a packet lost and it was resent, but the receiver has
 * accepted its TSN before the resend could have got there (it has not
 * left yet, or left less than its path's smallest RTT ago): the first
 * transmission arrived, late, behind later PSNs of its own path. That is
 * reordering within a path (a repath onto a route of another length, a
 * fabric that sprays per packet): FACK waits for one more later PSN from
 * now on. The duplicates the receiver reports are not such evidence: on a
 * lossy fabric nearly all of them are resends after timeouts whose ACKs
 * were lost, and a threshold raised by each of them ends at 32.
 */
static void spurious_fack(struct mre_conn *c, const struct mre_txd *t,
			  u64 now)
{
	const struct mre_path *q = &c->paths[t->path];

	if (!t->fack || (t->state != MRE_TXD_QUEUED &&
			 (t->state != MRE_TXD_OUT || t->path >= c->npaths ||
			  !q->min_rtt || (u32)now - t->sent >= q->min_rtt)))
		return;
	c->ep->ctr.loss_late++;
	c->reorder_calm = 0;
	if (c->reorder < MRE_REORDER_MAX)
		c->reorder++;
}

static void tsn_accept(struct mre_conn *c, u32 tsn, u64 now)
{
	struct mre_txd *t = mre_txd_of(c, tsn);

	spurious_fack(c, t, now);
	if (t->state == MRE_TXD_OUT && t->path < c->npaths &&
	    cfg_of(c)->tsn_settle)
		mre_path_arrived(&c->paths[t->path], c, t->psn, now);
	if (t->state == MRE_TXD_WAIT)
		c->n_wait--;
	t->state = MRE_TXD_ACKED;
}

/*
 * A raised reorder threshold returns to reorder_pkts by one for every
 * connection window of TSNs accepted with no reordering seen: reordering
 * within a path is transient (a repath), and a threshold that only grew
 * would end at 32, where FACK no longer sees any loss on a path with a
 * few packets in flight and every loss waits for a timeout.
 */
static void reorder_calm(struct mre_conn *c, u32 n)
{
	c->reorder_calm += n;
	if (c->reorder_calm < c->cwnd >> MRE_FP)
		return;
	c->reorder_calm = 0;
	if (c->reorder > cfg_of(c)->reorder_pkts)
		c->reorder--;
}

/* the TSN part of an ACK: what the receiver accepted */
static void ack_tsns(struct mre_conn *c, const struct mre_pkt_ack *a, u64 now)
{
	u32 t, i, n = 0;

	for (t = c->tsn_una; seq_lt(t, a->tsn_cum); t++)
		tsn_accept(c, t, now);
	for (i = 0; i < MRE_TSN_SACK_BITS; i++) {
		t = a->tsn_cum + 1 + i;
		if (!(a->tsn_sack >> i & 1) || seq_lt(t, c->tsn_una))
			continue;
		if (seq_ge(t, c->tsn_next))
			break;
		tsn_accept(c, t, now);
	}
	while (c->tsn_una != c->tsn_next) {
		struct mre_txd *d = mre_txd_of(c, c->tsn_una);

		if (d->state != MRE_TXD_ACKED)
			break;
		d->state = MRE_TXD_FREE;
		c->tsn_una++;
		n++;
		if (d->dflags & MRE_DF_LAST && d->stream &&
		    (d->op == MRE_OP_SEND || d->op == MRE_OP_WRITE ||
		     d->op == MRE_OP_READ_REQ || d->op == MRE_OP_ATOMIC_REQ)) {
			struct mre_stream *s = c->ep->ops->stream(c, d->stream);

			if (s && s->conn == c)
				mre_stream_msg_acked(s, d->msn);
		}
	}
	if (n) {
		c->una_since = now;
		reorder_calm(c, n);	/* against the window before it grows */
		mre_cc_conn_acked(c, n);
	}
}

static void rx_ack(struct mre_conn *c, const struct mre_pkt *pkt, u64 now)
{
	const struct mre_pkt_ack *a = &pkt->ack;
	u32 dups;

	if (a->ack_path >= c->npaths || seq_gt(a->tsn_cum, c->tsn_next)) {
		c->ep->ctr.drop_ack++;
		return;
	}
	c->ep->ctr.rx_ack++;
	c->last_ack = now;
	c->ack_seq++;
	/* the peer has NAKed: nothing it acknowledges completes before the NAK */
	if (a->aflags & MRE_AF_MARK &&
	    (!c->peer_marked || seq_gt(a->nak_mark, c->peer_mark))) {
		c->peer_mark = a->nak_mark;
		c->peer_marked = true;
	}
	/*
	 * The receiver saw a PSN of that path arrive behind pkt->psn later
	 * ones: FACK must wait for one more than that before it calls a PSN
	 * lost (before this ACK's own SACK bits are judged).
	 */
	if (pkt->psn >= c->reorder && pkt->psn < MRE_PATH_RING) {
		c->reorder = pkt->psn + 1 < MRE_REORDER_MAX ?
			     pkt->psn + 1 : MRE_REORDER_MAX;
		c->reorder_calm = 0;
		c->ep->ctr.reorder_up++;
	}
	mre_path_ack(&c->paths[a->ack_path], c, pkt, now);
	ack_tsns(c, a, now);
	/*
	 * Duplicates at the receiver: we resent something that had arrived
	 * (counted; FACK's patience follows only spurious_fack()).
	 * ACKs travel on different paths and overtake each other; an older
	 * count (it went backwards) must not become the reference, or the
	 * next newer ACK counts the same duplicates again.
	 */
	dups = a->dup_count - c->peer_dups;
	if (dups && dups < 1u << 20) {
		c->peer_dups = a->dup_count;
		c->ep->ctr.spurious_retx += dups;
	}
	mre_cc_rate(c, a->rate_hint);
}

/* why an ACK goes out at once (counted: the ACK rate is a cost) */
enum ack_why { ACK_DELAY, ACK_ASKED, ACK_OOO, ACK_OTHER };

static void ack_policy(struct mre_conn *c, struct mre_path *p,
		       enum ack_why why, u64 now)
{
	struct mre_counters *k = &c->ep->ctr;

	if (why == ACK_DELAY && p->rx_unacked < cfg_of(c)->ack_freq) {
		if (!p->ack_at)
			p->ack_at = now + cfg_of(c)->ack_delay_ns;
		return;
	}
	k->ack_asked += why == ACK_ASKED;
	k->ack_ooo += why == ACK_OOO;
	k->ack_other += why == ACK_OTHER;
	k->ack_count += why == ACK_DELAY;
	mre_conn_send_ack(c, p, now);
}

static void rx_data(struct mre_conn *c, const struct mre_pkt *pkt, bool ce,
		    u64 now)
{
	const struct mre_pkt_data *d = &pkt->data;
	struct mre_path *p;
	enum ack_why why;
	bool gap;
	u32 adv, t;
	int syn;

	if (pkt->path >= c->npaths) {
		c->ep->ctr.drop_field++;
		return;
	}
	p = &c->paths[pkt->path];
	if (mre_path_rx(p, pkt->psn, d->path_una, pkt->ts, ce, now, &gap) ==
	    MRE_WIN_AHEAD) {
		c->ep->ctr.drop_path_window++;
		return;
	}
	c->ep->ctr.rx_data++;
	c->ep->ctr.rx_ce += ce;
	mre_cc_rx_activity(c, now);
	why = ce ? ACK_OTHER : gap && cfg_of(c)->ack_ooo_now ? ACK_OOO :
	      pkt->flags & MRE_F_ACK_REQ ? ACK_ASKED : ACK_DELAY;
	if (mre_win_test(&c->rxw, d->tsn)) {
		c->ep->ctr.rx_dup_tsn++;
		c->rx_dups++;
		why = ACK_OTHER;
	} else if (d->tsn - c->rxw.base >= c->wsize) {
		c->ep->ctr.drop_window++;
		why = ACK_OTHER;
	} else {
		syn = mre_msg_rx(c, pkt, now);
		if (syn != MRE_SYN_NONE) {
			c->nak = (u8)syn;
			why = ACK_OTHER;
		} else {
			u32 base = c->rxw.base;

			mre_win_mark(&c->rxw, d->tsn, &adv);
			if (adv)
				c->nak = MRE_SYN_NONE;
			for (t = 0; t < adv; t++)
				mre_msg_gate(c, base + t, now);
			if (adv)
				markwait_run(c);
		}
	}
	ack_policy(c, p, why, now);
}

/*
 * A PROBE means the sender has heard nothing on that path: the route its
 * data takes may be dead, or the route our ACKs for it take. The sender
 * moves its own side before probing; we move ours (the path our ACKs for
 * it leave on, which keeps its sequence) before answering, or a black
 * hole on that reverse route alone would keep the path failed however
 * often the sender changed its port.
 */
static void rx_probe(struct mre_conn *c, const struct mre_pkt *pkt, u64 now)
{
	bool gap;

	if (pkt->path >= c->npaths)
		return;
	c->ep->ctr.rx_probe++;
	if (mre_path_rx(&c->paths[pkt->path], pkt->psn, pkt->probe.path_una,
			pkt->ts, false, now, &gap) == MRE_WIN_AHEAD)
		return;
	mre_path_repath(&c->paths[ctrl_path(c, pkt->path)->id], c);
	mre_conn_send_ack(c, &c->paths[pkt->path], now);
}

static void established(struct mre_conn *c, const struct mre_pkt *pkt,
			u64 now)
{
	c->remote_cid = pkt->connect.src_cid;
	c->peer_wsize = 1u << pkt->connect.window_log2;
	mre_win_init(&c->rxw, c->rxw.map, c->wsize, pkt->connect.isn);
	c->state = MRE_CONN_ESTABLISHED;
	c->last_ack = now;
	c->una_since = now;
	c->ep->ctr.conn_open++;
	/*
	 * A connection is opened because a stream has something to send: count
	 * the peer as a sender now, so that the first ACKs of an incast already
	 * carry the share that counts all of them, not of those seen so far.
	 */
	mre_cc_rx_activity(c, now);
	if (c->ep->ops->conn_event)
		c->ep->ops->conn_event(c, MRE_CONN_UP);
}

void mre_conn_rx(struct mre_conn *c, u64 now, const struct mre_pkt *pkt,
		 bool ce)
{
	switch (pkt->type) {
	case MRE_T_ACCEPT:
		c->ep->ctr.rx_ctrl++;
		if (c->state == MRE_CONN_CONNECTING)
			established(c, pkt, now);
		return;
	case MRE_T_RESET:
		c->ep->ctr.reset_rx++;
		if (pkt->reset.cid == c->remote_cid &&
		    c->state == MRE_CONN_ESTABLISHED)
			mre_conn_fail(c, MRE_ST_RETRY_EXC);
		return;
	}
	if (c->state != MRE_CONN_ESTABLISHED) {
		c->ep->ctr.drop_state++;
		return;
	}
	switch (pkt->type) {
	case MRE_T_DATA:
		rx_data(c, pkt, ce, now);
		break;
	case MRE_T_ACK:
		rx_ack(c, pkt, now);
		break;
	case MRE_T_PROBE:
		rx_probe(c, pkt, now);
		break;
	default:
		c->ep->ctr.drop_type++;
	}
}

/* --- life cycle ----------------------------------------------------------- */

void mre_conn_connect(struct mre_conn *c, u64 now, const u8 *blob,
		      u32 blob_len)
{
	/*
	 * Reopening a failed connection: everything it carried is gone on
	 * both sides. A new connection id makes the peer see a restart
	 * (section 5.2 of the spec) and drop its old state too.
	 */
	if (c->state == MRE_CONN_FAILED) {
		conn_reset_seq(c, now);
		c->cid = random_nonzero(c->ep);
		c->remote_cid = 0;
		c->state = MRE_CONN_CLOSED;
	}
	if (c->state != MRE_CONN_CLOSED)
		return;
	c->blob_len = (u16)MRE_MIN(blob_len, (u32)MRE_MAX_BLOB);
	if (c->blob_len)
		mre_memcpy(c->blob, blob, c->blob_len);
	c->state = MRE_CONN_CONNECTING;
	c->connect_tries = 0;
	c->connect_ivl = cfg_of(c)->connect_ns;
	send_connect(c, MRE_T_CONNECT, now);
	c->connect_at = now + c->connect_ivl;
}

/* fail the attached streams (only those that carried traffic: @used_only) */
static void fail_streams(struct mre_conn *c, enum mre_status st,
			 bool used_only)
{
	struct mre_list *l, *n;

	for (l = c->attached.next; l != &c->attached; l = n) {
		struct mre_stream *s = MRE_CONTAINER_OF(l, struct mre_stream,
							anode);

		n = l->next;
		if (!used_only || s->used)
			mre_stream_fail(s, st);
	}
}

void mre_conn_fail(struct mre_conn *c, enum mre_status st)
{
	if (c->state == MRE_CONN_FAILED)
		return;
	c->state = MRE_CONN_FAILED;
	c->ep->ctr.conn_fail++;
	fail_streams(c, st, false);
	if (c->ep->ops->conn_event)
		c->ep->ops->conn_event(c, MRE_CONN_DEAD);
}

int mre_conn_accept(struct mre_conn *c, u64 now, const struct mre_pkt *pkt,
		    const u8 *blob, u32 blob_len)
{
	int restarted = 0;

	c->ep->ctr.rx_ctrl++;
	if (c->state == MRE_CONN_ESTABLISHED &&
	    c->remote_cid == pkt->connect.src_cid) {
		send_connect(c, MRE_T_ACCEPT, now);	/* our ACCEPT was lost */
		return 0;
	}
	if (c->state == MRE_CONN_ESTABLISHED || c->state == MRE_CONN_FAILED) {
		/*
		 * The peer restarted (or reopened after a failure): whatever
		 * went over the old incarnation is gone. Streams attached
		 * meanwhile that have not carried anything yet belong to the
		 * new one (their QPs were connected to new QPs of the peer)
		 * and stay.
		 */
		if (c->state == MRE_CONN_ESTABLISHED) {
			c->ep->ctr.conn_fail++;
			if (c->ep->ops->conn_event)
				c->ep->ops->conn_event(c, MRE_CONN_DEAD);
		}
		fail_streams(c, MRE_ST_RETRY_EXC, true);
		conn_reset_seq(c, now);
		restarted = 1;
	}
	if (blob_len) {		/* a new incarnation: what the embedder says now */
		c->blob_len = (u16)MRE_MIN(blob_len, (u32)MRE_MAX_BLOB);
		mre_memcpy(c->blob, blob, c->blob_len);
	}
	established(c, pkt, now);
	send_connect(c, MRE_T_ACCEPT, now);
	return restarted;
}

void mre_conn_close(struct mre_conn *c, enum mre_status st)
{
	mre_conn_fail(c, st);
	c->state = MRE_CONN_CLOSED;
}

bool mre_conn_renew(struct mre_conn *c)
{
	if (c->state != MRE_CONN_ESTABLISHED || !mre_conn_idle(c))
		return false;
	c->state = MRE_CONN_FAILED;	/* nothing to fail: nothing attached */
	return true;
}

bool mre_conn_idle(const struct mre_conn *c)
{
	return mre_list_empty(&c->attached) && c->tsn_una == c->tsn_next;
}

void mre_conn_set_planes(struct mre_conn *c, u64 now, u32 nplanes)
{
	u32 i;

	if (nplanes < 1 || nplanes > c->npaths || nplanes == c->nplanes)
		return;
	c->nplanes = (u8)nplanes;
	for (i = 0; i < c->npaths; i++) {
		struct mre_path *p = &c->paths[i];
		u8 plane = (u8)(i % nplanes);

		if (p->plane == plane)
			continue;
		p->plane = plane;
		p->plane_down = false;
		mre_path_repath(p, c);
		/* failed with its old plane: try it on the new one */
		if (p->health == MRE_PATH_FAILED)
			p->probe_at = now;
	}
}

void mre_conn_plane(struct mre_conn *c, u64 now, u32 plane, bool up)
{
	u32 i;

	for (i = 0; i < c->npaths; i++) {
		struct mre_path *p = &c->paths[i];

		if (p->plane != plane || p->plane_down == !up)
			continue;
		p->plane_down = !up;
		if (!up)
			mre_path_fail(p, c, now);
		else if (p->health == MRE_PATH_FAILED)
			p->probe_at = now;
	}
}

/* --- timers ---------------------------------------------------------------- */

/*
 * Since when the peer has owed us an answer: its last ACK, or the moment
 * data became outstanding after an idle spell (an idle connection hears
 * nothing and is not dead for it).
 */
static u64 heard(const struct mre_conn *c)
{
	return MRE_MAX(c->last_ack, c->out_since);
}

static u64 earliest(u64 a, u64 b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

static u64 max_rto(const struct mre_conn *c)
{
	u64 r = cfg_of(c)->rto_min_ns;
	u32 i;

	for (i = 0; i < c->npaths; i++)
		if (c->paths[i].health != MRE_PATH_FAILED)
			r = MRE_MAX(r, c->paths[i].rto);
	return r;
}

/* refused TSNs whose wait is over, and a stalled tsn_una, go back out */
static u64 conn_timers(struct mre_conn *c, u64 now)
{
	u64 next = 0, stall;
	u32 t;

	if (c->n_wait) {
		if (now >= c->rnr_until) {
			for (t = c->tsn_una; t != c->tsn_next && c->n_wait; t++)
				if (mre_txd_of(c, t)->state == MRE_TXD_WAIT)
					queue_retx(c, t);
		} else {
			next = c->rnr_until;
		}
	}
	if (c->tsn_una != c->tsn_next &&
	    mre_txd_of(c, c->tsn_una)->state == MRE_TXD_ARRIVED) {
		stall = c->una_since + max_rto(c);
		if (now >= stall) {
			queue_retx(c, c->tsn_una);
			c->una_since = now;
		} else {
			next = earliest(next, stall);
		}
	}
	return next;
}

u64 mre_conn_run(struct mre_conn *c, u64 now)
{
	u64 next = 0, pace_at = 0;
	u32 i;

	if (c->state == MRE_CONN_CONNECTING) {
		if (now < c->connect_at)
			return c->connect_at;
		if (++c->connect_tries >= cfg_of(c)->connect_tries) {
			mre_conn_fail(c, MRE_ST_RETRY_EXC);
			return 0;
		}
		send_connect(c, MRE_T_CONNECT, now);
		c->connect_ivl *= 2;
		c->connect_at = now + c->connect_ivl;
		return c->connect_at;
	}
	if (c->state != MRE_CONN_ESTABLISHED)
		return 0;
	for (i = 0; i < c->npaths; i++) {
		struct mre_path *p = &c->paths[i];
		u64 d = mre_path_deadline(p);

		/* a silent path waiting for evidence is judged after each ACK */
		if (!p->quiet_wait && (!d || d > now))
			continue;
		mre_path_timers(p, c, now);
		if (p->ack_at && p->ack_at <= now) {
			c->ep->ctr.ack_timer++;
			mre_conn_send_ack(c, p, now);
		}
	}
	/*
	 * Nothing is owed before the oldest TSN has left: a NAK queued by a
	 * node that never sent anything (its last ACK heard at the handshake)
	 * goes out below and starts the clock there.
	 */
	if (c->tsn_una != c->tsn_next && mre_txd_of(c, c->tsn_una)->xmits &&
	    now - heard(c) > cfg_of(c)->dead_ns) {
		mre_conn_fail(c, MRE_ST_RETRY_EXC);
		return 0;
	}
	next = conn_timers(c, now);
	if (transmit(c, now, &pace_at))
		return now;		/* out of budget: come back at once */
	next = earliest(next, pace_at);
	for (i = 0; i < c->npaths; i++)
		next = earliest(next, mre_path_deadline(&c->paths[i]));
	if (c->tsn_una != c->tsn_next)
		next = earliest(next, heard(c) + cfg_of(c)->dead_ns + 1);
	return next;
}
