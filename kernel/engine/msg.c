// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Message placement and the completion gate.
 *
 * mre_msg_rx() handles one newly arrived TSN: the payload is placed at
 * once, wherever it belongs (a WRITE names its destination, a SEND names its
 * receive, a READ response names the READ), and whatever must wait for
 * order (a receive completion, a READ or ATOMIC execution, a failure) is
 * written into the gate entry of the TSN. The gate (gate_run()) runs that entry
 * when the cumulative TSN passes it, i.e. once everything sent before it on
 * the connection, and so on its stream, has been placed.
 *
 * A packet is refused (its TSN stays unaccepted and the sender resends it)
 * only when a receive WQE is missing (RNR) or when a NAK it calls for gets
 * no TSN (BUSY). Every other problem is the message's: the TSN is accepted,
 * the payload dropped, a NAK goes to the requester at once (it carries the
 * message's msn, so the requester completes everything before it normally),
 * and the responder's own side of the failure (the stream's error state, a
 * receive completed in error) waits for the gate, in order.
 *
 * A UC stream (mre_stream_attr.uc) sends no NAK: a WRITE without immediate
 * that may not land is dropped and the stream goes on; any other failure
 * (a READ or ATOMIC request, a SEND too long for its receive, an access
 * error of a WRITE with immediate) fails the responder's stream alone.
 * Messages are still delivered reliably and in order; RNR still refuses
 * the packet (the sender waits for the receive).
 */
#include "msg.h"
#include "stream.h"
#include "tsn.h"

static struct mre_gate *gate_of(struct mre_conn *c, u32 tsn)
{
	return &c->gate[tsn & (c->wsize - 1)];
}

static bool is_request(u8 op)
{
	return op == MRE_OP_SEND || op == MRE_OP_WRITE ||
	       op == MRE_OP_READ_REQ || op == MRE_OP_ATOMIC_REQ;
}

/*
 * A request for message @msn failed with @syn: NAK it now, fail the stream
 * at the gate. Returns the refusal (MRE_SYN_BUSY) when the NAK cannot go.
 */
static int msg_error(struct mre_conn *c, struct mre_stream *s, u32 tsn,
		     const struct mre_pkt_data *d, u32 syn)
{
	struct mre_gate *g = gate_of(c, tsn);

	/* UC: the requester is not told; only our side fails */
	if (!s->uc && !mre_tsn_nak(c, s->id, s->remote_id, d->msn, syn))
		return MRE_SYN_BUSY;
	if (!s->rx_err || seq_lt(d->msn, s->rx_err_msn))
		s->rx_err_msn = d->msn;
	s->rx_err = true;
	g->kind = MRE_GATE_ERROR;
	g->stream = s->id;
	g->seq = d->rsn;
	g->imm = d->msn;
	g->op = (u8)syn;
	g->dflags = d->dflags;
	c->ep->ctr.drop_access += syn == MRE_SYN_REM_ACCESS;
	c->ep->ctr.drop_inv_req += syn != MRE_SYN_REM_ACCESS;
	return MRE_SYN_NONE;
}

static int rx_write_send(struct mre_conn *c, struct mre_stream *s, u32 tsn,
			 const struct mre_pkt *pkt)
{
	const struct mre_pkt_data *d = &pkt->data;
	struct mre_place pl = {
		.op = d->op, .dflags = d->dflags, .msn = d->msn,
		.offset = d->offset, .len = d->plen, .rkey = d->rkey,
		.raddr = d->raddr, .rsn = d->rsn, .mlen = d->mlen,
		.imm = d->imm,
	};
	struct mre_gate *g;
	int r;

	r = c->ep->ops->place(s, &pl, pkt->payload);
	if (r == MRE_SYN_RNR) {
		c->nak_delay = (u32)MRE_MIN(s->rnr_delay, 0xffffffffULL);
		c->ep->ctr.drop_rnr++;
		return r;
	}
	if (r == MRE_SYN_REM_ACCESS && s->uc && !(d->dflags & MRE_DF_RECV)) {
		/* UC: a WRITE that may not land is dropped, nothing else */
		c->ep->ctr.drop_access++;
		return MRE_SYN_NONE;
	}
	/* a bad receive WQE of ours is the requester's REM_OP (IB 9.7.5.2.4) */
	if (r != MRE_SYN_NONE)
		return msg_error(c, s, tsn, d, r == MRE_SYN_REM_ACCESS ||
				 r == MRE_SYN_REM_OP ? (u32)r :
				 MRE_SYN_REM_INV_REQ);
	if ((d->dflags & (MRE_DF_LAST | MRE_DF_RECV)) ==
	    (MRE_DF_LAST | MRE_DF_RECV)) {
		g = gate_of(c, tsn);
		g->kind = MRE_GATE_RECV;
		g->stream = s->id;
		g->seq = d->rsn;
		g->len = d->offset + d->plen;
		g->imm = d->imm;
		g->op = d->op;
		g->dflags = d->dflags;
	}
	if (d->dflags & MRE_DF_LAST)
		c->ep->ctr.msg_recv++;
	return MRE_SYN_NONE;
}

static int rx_rd_req(struct mre_conn *c, struct mre_stream *s, u32 tsn,
		     const struct mre_pkt_data *d)
{
	struct mre_rd_slot *r = &s->rs[d->rdsn % MRE_RD_SLOTS];
	struct mre_gate *g;

	/*
	 * rdsn comes from the wire: it must be one the gate has not started
	 * and within MRE_RD_SLOTS of the oldest response still to generate
	 * (an honest requester never has more out), or it would move rs_tail
	 * anywhere and the response loop would walk to it. A slot still in
	 * use means the requester broke its initiator depth.
	 */
	if (seq_lt(d->rdsn, s->rs_tail) || d->rdsn - s->rs_head >= MRE_RD_SLOTS ||
	    r->state == MRE_SLOT_ARRIVED || r->state == MRE_SLOT_SENDING ||
	    (d->op == MRE_OP_ATOMIC_REQ && d->raddr & 7))
		return msg_error(c, s, tsn, d, MRE_SYN_REM_INV_REQ);
	/* checked now so that a failure can still refuse the packet */
	if (c->ep->ops->check(s, d->op, d->rkey, d->raddr, d->mlen))
		return msg_error(c, s, tsn, d, MRE_SYN_REM_ACCESS);
	mre_memset(r, 0, sizeof(*r));
	r->msn = d->msn;
	r->op = d->op;
	r->rkey = d->rkey;
	r->raddr = d->raddr;
	r->len = d->mlen;
	r->aop = d->aop;
	r->swap_add = d->swap_add;
	r->compare = d->compare;
	r->state = MRE_SLOT_ARRIVED;
	g = gate_of(c, tsn);
	g->kind = d->op == MRE_OP_READ_REQ ? MRE_GATE_READ : MRE_GATE_ATOMIC;
	g->stream = s->id;
	g->seq = d->rdsn;
	return MRE_SYN_NONE;
}

/* a READ or ATOMIC response for our message: place it, maybe complete */
static void rx_response(struct mre_conn *c, struct mre_stream *s,
			const struct mre_pkt *pkt)
{
	const struct mre_pkt_data *d = &pkt->data;
	struct mre_rd_slot *r = &s->rq[d->rdsn % MRE_RD_SLOTS];
	bool atomic = d->op == MRE_OP_ATOMIC_RESP;
	struct mre_place pl = {
		.op = d->op, .dflags = d->dflags, .msn = d->msn,
		.offset = d->offset, .len = atomic ? 8 : d->plen,
	};
	int e = MRE_SYN_NONE;
	u8 orig[8];

	/* offset and length from the wire: within what we asked for */
	if (r->state != MRE_SLOT_WAIT || r->msn != d->msn ||
	    (r->op == MRE_OP_ATOMIC_REQ) != atomic ||
	    (atomic && d->offset) || d->offset > r->len ||
	    d->plen > r->len - d->offset) {
		c->ep->ctr.drop_inv_req++;	/* not what we asked for */
		return;
	}
	if (atomic) {
		mre_memcpy(orig, &d->orig, 8);	/* host order for the embedder */
		e = c->ep->ops->place(s, &pl, orig);
		r->done = 8;
	} else {
		if (d->plen)
			e = c->ep->ops->place(s, &pl, pkt->payload);
		r->done += d->plen;
	}
	if (!r->seen)
		mre_recv_answered(c, r->tsn, s->id, r->msn, c->clock);
	r->seen = 1;
	if (e != MRE_SYN_NONE) {
		/* our buffer for it went away (deregistered under the request) */
		c->ep->ctr.drop_place++;
		mre_stream_msg_failed(s, r->msn, MRE_ST_LOC_PROT);
	}
	if (r->done == r->len)
		r->state = MRE_SLOT_DONE;
	mre_stream_complete(s);
}

static int place_tsn(struct mre_conn *c, const struct mre_pkt *pkt)
{
	const struct mre_pkt_data *d = &pkt->data;
	u32 tsn = d->tsn;
	struct mre_stream *s;

	gate_of(c, tsn)->kind = MRE_GATE_NONE;
	if (d->op == MRE_OP_NOP)
		return MRE_SYN_NONE;
	s = c->ep->ops->stream(c, d->dst_stream);
	if (!s || s->conn != c || s->remote_id != d->src_stream ||
	    s->state == MRE_STREAM_DETACHED) {
		c->ep->ctr.drop_stream++;
		/* the requester must hear that its QP talks to nobody (once) */
		if (!is_request(d->op) || (c->cnak_stream == d->src_stream &&
					   c->cnak_msn == d->msn))
			return MRE_SYN_NONE;
		if (!mre_tsn_nak(c, d->dst_stream, d->src_stream, d->msn,
				  MRE_SYN_NO_STREAM))
			return MRE_SYN_BUSY;
		c->cnak_stream = d->src_stream;
		c->cnak_msn = d->msn;
		return MRE_SYN_NONE;
	}
	s->used = true;
	switch (d->op) {
	case MRE_OP_SEND:
	case MRE_OP_WRITE:
	case MRE_OP_READ_REQ:
	case MRE_OP_ATOMIC_REQ:
		/* after a failed request nothing later on the stream executes */
		if (s->state == MRE_STREAM_ERROR ||
		    (s->rx_err && seq_ge(d->msn, s->rx_err_msn)))
			return MRE_SYN_NONE;
		if (d->op == MRE_OP_SEND || d->op == MRE_OP_WRITE)
			return rx_write_send(c, s, tsn, pkt);
		if (s->uc)		/* UC has no READ or ATOMIC */
			return msg_error(c, s, tsn, d, MRE_SYN_REM_INV_REQ);
		return rx_rd_req(c, s, tsn, d);
	case MRE_OP_READ_RESP:
	case MRE_OP_ATOMIC_RESP:
		if (s->state != MRE_STREAM_ERROR)
			rx_response(c, s, pkt);
		return MRE_SYN_NONE;
	case MRE_OP_NAK:
		c->ep->ctr.rx_nak++;
		mre_stream_nak_rx(s, d->msn, d->syndrome);
		return MRE_SYN_NONE;
	}
	return MRE_SYN_NONE;
}

static enum mre_status resp_status(u32 syn)
{
	return syn == MRE_SYN_REM_ACCESS ? MRE_ST_LOC_ACCESS : MRE_ST_LOC_LEN;
}

static void gate_read(struct mre_conn *c, struct mre_stream *s, u32 rdsn)
{
	struct mre_rd_slot *r = &s->rs[rdsn % MRE_RD_SLOTS];
	const struct mre_ops *ops = c->ep->ops;
	struct mre_atomic a;
	int e;

	if (r->state != MRE_SLOT_ARRIVED)
		return;
	if (seq_ge(rdsn, s->rs_tail))	/* checked at arrival: < rs_head + slots */
		s->rs_tail = rdsn + 1;
	r->state = MRE_SLOT_SENT;	/* until proven good */
	if (r->op == MRE_OP_READ_REQ) {
		e = ops->check(s, r->op, r->rkey, r->raddr, r->len);
	} else {
		a = (struct mre_atomic){
			.aop = r->aop, .rkey = r->rkey, .raddr = r->raddr,
			.swap_add = r->swap_add, .compare = r->compare,
		};
		e = ops->atomic(s, &a, &r->orig);
	}
	if (e != MRE_SYN_NONE) {
		/* the MR changed since the request arrived and was checked */
		c->ep->ctr.drop_access++;
		if (!mre_tsn_nak(c, s->id, s->remote_id, r->msn,
				  MRE_SYN_REM_ACCESS))
			c->ep->ctr.nak_overflow++;
		mre_stream_fail(s, MRE_ST_LOC_ACCESS);
		return;
	}
	r->state = MRE_SLOT_SENDING;
	r->done = 0;
	mre_conn_activate(c, s);
}

static void gate_run(struct mre_conn *c, u32 tsn)
{
	struct mre_gate *g = gate_of(c, tsn);
	struct mre_recv_done rd;
	struct mre_stream *s;
	u8 kind = g->kind;

	if (kind == MRE_GATE_NONE)
		return;
	g->kind = MRE_GATE_NONE;
	s = c->ep->ops->stream(c, g->stream);
	if (!s || s->conn != c || s->state == MRE_STREAM_ERROR ||
	    s->state == MRE_STREAM_DETACHED)
		return;
	switch (kind) {
	case MRE_GATE_RECV:
		rd = (struct mre_recv_done){
			.rsn = g->seq, .len = g->len, .imm = g->imm,
			.op = g->op, .dflags = g->dflags, .status = MRE_ST_OK,
		};
		c->ep->ops->recv_done(s, &rd);
		break;
	case MRE_GATE_READ:
	case MRE_GATE_ATOMIC:
		gate_read(c, s, g->seq);
		break;
	case MRE_GATE_ERROR:
		/* a receive it would have consumed completes in error too */
		if (g->dflags & MRE_DF_RECV && g->op != MRE_SYN_REM_ACCESS) {
			rd = (struct mre_recv_done){
				.rsn = g->seq, .op = MRE_OP_SEND,
				.status = MRE_ST_LOC_LEN,
			};
			c->ep->ops->recv_done(s, &rd);
		}
		mre_stream_fail(s, resp_status(g->op));
		break;
	}
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

int mre_msg_rx(struct mre_conn *c, const struct mre_pkt *pkt, u64 now)
{
	u32 base = c->rxw.base, adv, t;
	int syn = place_tsn(c, pkt);

	if (syn != MRE_SYN_NONE)
		return syn;		/* refused: the TSN stays unaccepted */
	mre_win_mark(&c->rxw, pkt->data.tsn, &adv);
	if (!adv)
		return MRE_SYN_NONE;
	c->nak = MRE_SYN_NONE;
	for (t = 0; t < adv; t++)
		gate_run(c, base + t);
	markwait_run(c);
	return MRE_SYN_NONE;
}
