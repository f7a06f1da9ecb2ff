// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Message placement and the completion gate.
 *
 * mre_msg_rx() handles one newly arrived TSN: the payload is placed at
 * once, wherever it belongs (a WRITE names its destination, a SEND names its
 * receive, a READ response names the READ), and whatever must wait for
 * order (a receive completion, a READ, ATOMIC, ATOMIC_WRITE or FLUSH
 * execution, a failure) is written into the gate entry of the TSN. The gate
 * (gate_run()) runs that entry when the cumulative TSN passes it, i.e. once
 * everything sent before it on the connection, and so on its stream, has
 * been placed: a FLUSH run there covers every earlier placement.
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
 *
 * The requester's side of the same TSNs is here too: the TSNs of ours the
 * peer accepted, as an ACK says (mre_msg_ack_tsns()) or as a response to
 * a READ or ATOMIC shows (answered()), retire in order from tsn_una and
 * ack their messages (stream.c).
 */
#include "msg.h"
#include "cc.h"
#include "path.h"
#include "stream.h"
#include "tsn.h"

static struct mre_gate *gate_of(struct mre_conn *c, u32 tsn)
{
	return &c->gate[tsn & (c->wsize - 1)];
}

static bool is_request(u8 op)
{
	return op < 32 && (MRE_OPS_ANSWERED | 1u << MRE_OP_SEND |
			   1u << MRE_OP_WRITE) >> op & 1;
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
	const struct mre_ops *ops = c->ep->ops;
	struct mre_flush f;
	struct mre_gate *g;
	int e;

	/*
	 * rdsn comes from the wire: it must be one the gate has not started
	 * and within MRE_RD_SLOTS of the oldest response still to generate
	 * (an honest requester never has more out), or it would move rs_tail
	 * anywhere and the response loop would walk to it. A slot still in
	 * use means the requester broke its initiator depth.
	 */
	if (seq_lt(d->rdsn, s->rs_tail) || d->rdsn - s->rs_head >= MRE_RD_SLOTS ||
	    r->state == MRE_SLOT_ARRIVED || r->state == MRE_SLOT_SENDING ||
	    ((d->op == MRE_OP_ATOMIC_REQ || d->op == MRE_OP_ATOMIC_WRITE_REQ) &&
	     d->raddr & 7) ||
	    (d->op == MRE_OP_ATOMIC_WRITE_REQ && !ops->atomic_write) ||
	    (d->op == MRE_OP_FLUSH_REQ && !ops->flush))
		return msg_error(c, s, tsn, d, MRE_SYN_REM_INV_REQ);
	/* checked now so that a failure can still refuse the packet */
	if (d->op == MRE_OP_FLUSH_REQ) {
		f = (struct mre_flush){
			.fflags = d->fflags, .rkey = d->rkey,
			.raddr = d->raddr, .len = d->mlen,
		};
		e = ops->flush(s, &f, false);
	} else {
		e = ops->check(s, d->op, d->rkey, d->raddr, d->mlen);
	}
	if (e)
		return msg_error(c, s, tsn, d, MRE_SYN_REM_ACCESS);
	mre_memset(r, 0, sizeof(*r));
	r->msn = d->msn;
	r->op = d->op;
	r->rkey = d->rkey;
	r->raddr = d->raddr;
	r->len = d->mlen;
	r->aop = d->op == MRE_OP_FLUSH_REQ ? d->fflags : d->aop;
	r->swap_add = d->swap_add;
	r->compare = d->compare;
	r->tsn = c->ack_gen;
	r->state = MRE_SLOT_ARRIVED;
	g = gate_of(c, tsn);
	g->kind = d->op == MRE_OP_READ_REQ ? MRE_GATE_READ : MRE_GATE_ATOMIC;
	g->stream = s->id;
	g->seq = d->rdsn;
	return MRE_SYN_NONE;
}

/*
 * FACK declared a packet lost and it was resent, but the receiver has
 * accepted its TSN before the resend could have got there (it has not
 * left yet, or left less than its path's smallest RTT ago): the first
 * transmission arrived, late, behind later PSNs of its own path. That is
 * reordering within a path (a repath onto a route of another length, a
 * fabric that sprays per packet): FACK waits for one more later PSN from
 * now on. Declared lost by send time (loss.c), it was overtaken by packets
 * of other paths by more than the reordering window: that window grows by
 * a quarter of the least RTT instead. The duplicates the receiver reports
 * are not such evidence: on a lossy fabric nearly all of them are resends
 * after timeouts whose ACKs were lost, and a threshold raised by each of
 * them ends at 32.
 */
static void spurious_fack(struct mre_conn *c, const struct mre_txd *t,
			  u64 now)
{
	const struct mre_path *q = &c->paths[t->path];

	/* a PARITY may have rebuilt it: its loss was real */
	if (t->fack & MRE_TXD_PARITY)
		return;
	if (!t->fack || (t->state != MRE_TXD_QUEUED &&
			 (t->state != MRE_TXD_OUT || t->path >= c->npaths ||
			  !q->min_rtt || (u32)now - t->sent >= q->min_rtt)))
		return;
	c->ep->ctr.loss_late++;
	c->reorder_calm = 0;
	if (t->fack == 2) {		/* by send time: its window grows */
		c->time_calm = 0;
		if (c->time_mult < MRE_TIME_MULT_MAX)
			c->time_mult++;
	} else if (c->reorder < MRE_REORDER_MAX) {
		c->reorder++;
	}
}

static void tsn_accept(struct mre_conn *c, u32 tsn, u64 now)
{
	struct mre_txd *t = mre_txd_of(c, tsn);

	spurious_fack(c, t, now);
	if (t->state == MRE_TXD_OUT && t->path < c->npaths &&
	    mre_cfg(c)->tsn_settle)
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
	if (c->reorder > mre_cfg(c)->reorder_pkts)
		c->reorder--;
	/* the send-time window falls back slower: every MRE_TIME_CALM */
	if (c->time_mult > 1 && ++c->time_calm >= MRE_TIME_CALM) {
		c->time_calm = 0;
		c->time_mult--;
	}
}

/* the accepted TSNs from tsn_una on retire; their messages are acked */
static void retire(struct mre_conn *c, u64 now)
{
	u32 n = 0;

	while (c->tsn_una != c->tsn_next) {
		struct mre_txd *d = mre_txd_of(c, c->tsn_una);

		if (d->state != MRE_TXD_ACKED)
			break;
		d->state = MRE_TXD_FREE;
		c->tsn_una++;
		n++;
		if (d->dflags & MRE_DF_LAST && d->stream && is_request(d->op)) {
			struct mre_stream *s = mre_conn_stream(c, d->stream);

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

/*
 * A response to our READ or ATOMIC @msn of stream @stream, whose request
 * was TSN @tsn, arrived: the responder answers only a request it accepted,
 * so the TSN is accepted, as an ACK would say. The request's path need
 * not wait for that ACK, which the responder may then delay (data_hdr()
 * does not ask for it): a READ is two packets on its critical path, not
 * four. A TSN that no longer holds that request (retired, or reused) is
 * left alone.
 */
static void answered(struct mre_conn *c, u32 tsn, u32 stream, u32 msn,
		     u64 now)
{
	struct mre_txd *t = mre_txd_of(c, tsn);

	if (seq_lt(tsn, c->tsn_una) || seq_ge(tsn, c->tsn_next) ||
	    t->stream != stream || t->msn != msn ||
	    !mre_op_answered(t->op) ||
	    t->state == MRE_TXD_ACKED)
		return;
	c->ep->ctr.resp_acks++;
	tsn_accept(c, tsn, now);
	retire(c, now);
}

void mre_msg_ack_tsns(struct mre_conn *c, const struct mre_pkt_ack *a, u64 now)
{
	u32 t, ahead = a->tsn_cum - c->tsn_una;
	u64 sack = a->tsn_sack;

	/* by count, not seq_lt(): two values 2^31 apart each precede the other */
	if (ahead <= c->tsn_next - c->tsn_una)
		for (t = c->tsn_una; ahead; ahead--, t++)
			tsn_accept(c, t, now);
	/* the set bits only: most ACKs carry none */
	while (sack) {
		t = a->tsn_cum + 1 + (u32)__builtin_ctzll(sack);
		sack &= sack - 1;
		if (seq_lt(t, c->tsn_una))
			continue;
		if (seq_ge(t, c->tsn_next))
			break;
		tsn_accept(c, t, now);
	}
	retire(c, now);
}

/* a READ or ATOMIC response for our message: place it, maybe complete */
static void rx_response(struct mre_conn *c, struct mre_stream *s,
			const struct mre_pkt *pkt)
{
	const struct mre_pkt_data *d = &pkt->data;
	struct mre_rd_slot *r = &s->rq[d->rdsn % MRE_RD_SLOTS];
	bool atomic = d->op == MRE_OP_ATOMIC_RESP;	/* or AWRITE, FLUSH */
	struct mre_place pl = {
		.op = d->op, .dflags = d->dflags, .msn = d->msn,
		.offset = d->offset, .len = atomic ? 8 : d->plen,
	};
	int e = MRE_SYN_NONE;
	u8 orig[8];

	/* offset and length from the wire: within what we asked for */
	if (r->state != MRE_SLOT_WAIT || r->msn != d->msn ||
	    (r->op == MRE_OP_READ_REQ) == atomic ||
	    (atomic && d->offset) || d->offset > r->len ||
	    d->plen > r->len - d->offset) {
		c->ep->ctr.drop_inv_req++;	/* not what we asked for */
		return;
	}
	if (atomic) {
		/*
		 * Only an ATOMIC has a result: the answer to an ATOMIC_WRITE
		 * or a FLUSH says that it ran, and no buffer takes it.
		 */
		mre_memcpy(orig, &d->orig, 8);	/* host order for the embedder */
		if (r->op == MRE_OP_ATOMIC_REQ)
			e = c->ep->ops->place(s, &pl, orig);
		r->done = 8;
	} else {
		if (d->plen)
			e = c->ep->ops->place(s, &pl, pkt->payload);
		r->done += d->plen;
	}
	if (!r->seen)
		answered(c, r->tsn, s->id, r->msn, c->clock);
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
	s = mre_conn_stream(c, d->dst_stream);
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
	case MRE_OP_ATOMIC_WRITE_REQ:
	case MRE_OP_FLUSH_REQ:
		/* after a failed request nothing later on the stream executes */
		if (s->state == MRE_STREAM_ERROR ||
		    (s->rx_err && seq_ge(d->msn, s->rx_err_msn)))
			return MRE_SYN_NONE;
		if (d->op == MRE_OP_SEND || d->op == MRE_OP_WRITE)
			return rx_write_send(c, s, tsn, pkt);
		if (s->uc)		/* UC has no READ, ATOMIC, FLUSH */
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
	struct mre_flush f;
	int e;

	if (r->state != MRE_SLOT_ARRIVED)
		return;
	if (seq_ge(rdsn, s->rs_tail))	/* checked at arrival: < rs_head + slots */
		s->rs_tail = rdsn + 1;
	r->state = MRE_SLOT_SENT;	/* until proven good */
	if (r->op == MRE_OP_READ_REQ) {
		e = ops->check(s, r->op, r->rkey, r->raddr, r->len);
	} else if (r->op == MRE_OP_ATOMIC_WRITE_REQ) {
		/*
		 * Here, once: a resent request is a duplicate TSN and never
		 * reaches the gate again. Its answer's orig stays 0.
		 */
		e = ops->atomic_write(s, r->rkey, r->raddr, r->swap_add);
	} else if (r->op == MRE_OP_FLUSH_REQ) {
		/*
		 * The gate passes a TSN only once every earlier one of the
		 * connection has been placed (and its gate entry run: an
		 * earlier ATOMIC or ATOMIC_WRITE executed): all the stream
		 * placed before the FLUSH is in memory. The host makes it
		 * visible or persistent.
		 */
		f = (struct mre_flush){
			.fflags = r->aop, .rkey = r->rkey, .raddr = r->raddr,
			.len = r->len,
		};
		e = ops->flush(s, &f, true);
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
	s = mre_conn_stream(c, g->stream);
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
	mre_conn_markwait_run(c);
	return MRE_SYN_NONE;
}
