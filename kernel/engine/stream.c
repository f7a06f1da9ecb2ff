// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Streams: segmentation of messages into packets, read/atomic slots,
 * in-order send completions (see stream.h).
 */
#include "stream.h"
#include "conn.h"
#include "engine.h"

void mre_conn_activate(struct mre_conn *c, struct mre_stream *s)
{
	if (mre_list_empty(&s->node))
		mre_list_add_tail(&s->node, &c->active);
}

void mre_stream_kick(struct mre_stream *s)
{
	if (s->conn && s->state == MRE_STREAM_ACTIVE)
		mre_conn_activate(s->conn, s);
}

void mre_stream_stop(struct mre_stream *s)
{
	if (s->state == MRE_STREAM_ACTIVE)
		s->state = MRE_STREAM_STOPPED;
}

void mre_stream_fail(struct mre_stream *s, enum mre_status st)
{
	struct mre_conn *c = s->conn;

	if (s->state == MRE_STREAM_ERROR || s->state == MRE_STREAM_DETACHED)
		return;
	s->state = MRE_STREAM_ERROR;
	c->ep->ctr.msg_err++;
	c->ep->ops->stream_error(s, st);
}

bool mre_stream_rnr(struct mre_stream *s, u32 ack_seq)
{
	if (s->rnr_ack == ack_seq)
		return true;		/* this ACK was counted already */
	s->rnr_ack = ack_seq;
	if (s->rnr_retry == 7)
		return true;
	if (!s->rnr_left)
		return false;
	s->rnr_left--;
	return true;
}

static void txd_set(struct mre_txd *d, const struct mre_stream *s, u8 op,
		    u32 msn, u32 off, u32 len, u8 dflags, u32 seq)
{
	d->stream = s->id;
	d->op = op;
	d->msn = msn;
	d->offset = off;
	d->len = (u16)len;
	d->dflags = dflags;
	d->seq = seq;
}

/* the next response packet (READ data or ATOMIC result), in rdsn order */
static bool resp_next(struct mre_stream *s, struct mre_txd *d)
{
	while (s->rs_head != s->rs_tail) {
		u32 rdsn = s->rs_head;
		struct mre_rd_slot *r = &s->rs[rdsn % MRE_RD_SLOTS];
		u32 len;
		u8 fl;

		if (r->state != MRE_SLOT_SENDING) {
			s->rs_head++;	/* refused at the gate: nothing to send */
			continue;
		}
		/* ATOMIC_RESP also answers an ATOMIC_WRITE or FLUSH (orig 0) */
		if (r->op != MRE_OP_READ_REQ) {
			txd_set(d, s, MRE_OP_ATOMIC_RESP, r->msn, 0, 0,
				MRE_DF_FIRST | MRE_DF_LAST, rdsn);
			r->state = MRE_SLOT_SENT;
			s->rs_head++;
			return true;
		}
		len = MRE_MIN(s->mtu, r->len - r->done);
		fl = r->done ? 0 : MRE_DF_FIRST;
		if (r->done + len == r->len)
			fl |= MRE_DF_LAST;
		txd_set(d, s, MRE_OP_READ_RESP, r->msn, r->done, len, fl, rdsn);
		r->done += len;
		if (fl & MRE_DF_LAST) {
			r->state = MRE_SLOT_SENT;
			s->rs_head++;
		}
		return true;
	}
	return false;
}

/* start WQE tx_msn if it is posted and may start now */
static bool req_start(struct mre_stream *s)
{
	struct mre_ep *ep = s->conn->ep;
	struct mre_wqe *w = &s->cur;

	if (!ep->ops->sq_get(s, s->tx_msn, w))
		return false;
	if (w->flags & MRE_WQE_FENCE && s->rd_comp != s->tx_rdsn)
		return false;		/* wait for earlier READ/ATOMIC */
	switch (w->op) {
	case MRE_OP_READ_REQ:
	case MRE_OP_ATOMIC_REQ:
	case MRE_OP_ATOMIC_WRITE_REQ:
	case MRE_OP_FLUSH_REQ: {
		struct mre_rd_slot *r;

		if (s->tx_rdsn - s->rd_comp >= s->max_rd)
			return false;	/* initiator depth reached */
		s->cur_seq = s->tx_rdsn++;
		r = &s->rq[s->cur_seq % MRE_RD_SLOTS];
		mre_memset(r, 0, sizeof(*r));
		r->msn = s->tx_msn;
		/* a one-packet answer: 8 bytes (its orig) but for a READ */
		r->len = w->op == MRE_OP_READ_REQ ? w->len : 8;
		r->op = w->op;
		r->state = MRE_SLOT_WAIT;
		/* a request is one packet, the TSN the sender gives next */
		r->tsn = s->conn->tsn_next;
		s->conn->owed_sent = s->conn->clock;	/* the answer's watch */
		if (!s->conn->owed_at)
			s->conn->owed_at = s->conn->clock +
					   mre_cfg(s->conn)->dead_ns;
		break;
	}
	case MRE_OP_SEND:
		s->cur_seq = s->tx_rsn++;
		break;
	case MRE_OP_WRITE:
		s->cur_seq = w->flags & MRE_WQE_IMM ? s->tx_rsn++ : 0;
		break;
	default:
		return false;		/* the embedder validates ops at post */
	}
	s->tx_busy = true;
	s->tx_off = 0;
	return true;
}

static bool req_next(struct mre_stream *s, struct mre_txd *d)
{
	const struct mre_wqe *w = &s->cur;
	u32 len = 0;
	u8 fl;

	if (s->state != MRE_STREAM_ACTIVE || s->err)
		return false;
	if (!s->tx_busy && !req_start(s))
		return false;
	fl = s->tx_off ? 0 : MRE_DF_FIRST;
	switch (w->op) {
	case MRE_OP_SEND:
	case MRE_OP_WRITE:
		len = MRE_MIN(s->mtu, w->len - s->tx_off);
		if (s->tx_off + len == w->len)
			fl |= MRE_DF_LAST | (w->flags & MRE_WQE_SOLICIT ?
					     MRE_DF_SOLICIT : 0);
		if (w->flags & MRE_WQE_IMM)
			fl |= MRE_DF_IMM | MRE_DF_RECV;
		if (w->flags & MRE_WQE_INV && w->op == MRE_OP_SEND)
			fl |= MRE_DF_INV;
		if (w->op == MRE_OP_SEND)
			fl |= MRE_DF_RECV;
		break;
	default:
		fl |= MRE_DF_LAST;
	}
	txd_set(d, s, w->op, s->tx_msn, s->tx_off, len, fl, s->cur_seq);
	s->tx_off += len;
	if (fl & MRE_DF_LAST) {
		s->tx_busy = false;
		s->tx_msn++;
		s->conn->ep->ctr.msg_sent++;
	}
	return true;
}

static bool stream_next(struct mre_stream *s, struct mre_txd *d);

bool mre_stream_next(struct mre_stream *s, struct mre_txd *d)
{
	if (!stream_next(s, d))
		return false;
	s->used = true;
	return true;
}

static bool stream_next(struct mre_stream *s, struct mre_txd *d)
{
	if (s->state == MRE_STREAM_ERROR || s->state == MRE_STREAM_DETACHED)
		return false;
	/* responses and requests take turns */
	if (s->tx_resp) {
		if (req_next(s, d)) {
			s->tx_resp = false;
			return true;
		}
		return resp_next(s, d);
	}
	if (resp_next(s, d)) {
		s->tx_resp = true;
		return true;
	}
	return req_next(s, d);
}

void mre_stream_msg_acked(struct mre_stream *s, u32 msn)
{
	if (seq_ge(msn + 1, s->acked_msn))
		s->acked_msn = msn + 1;
	s->rnr_left = s->rnr_retry;
	mre_stream_complete(s);
}

static enum mre_status nak_status(u32 syn)
{
	switch (syn) {
	case MRE_SYN_REM_ACCESS:
		return MRE_ST_REM_ACCESS;
	case MRE_SYN_REM_INV_REQ:
		return MRE_ST_REM_INV_REQ;
	case MRE_SYN_NO_STREAM:
		return MRE_ST_RETRY_EXC;
	default:
		return MRE_ST_REM_OP;
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

void mre_stream_complete(struct mre_stream *s)
{
	const struct mre_ops *ops = s->conn->ep->ops;
	bool kick = false;

	while (s->state != MRE_STREAM_ERROR && s->state != MRE_STREAM_DETACHED) {
		u32 msn = s->comp_msn;

		if (s->err && msn == s->err_msn) {
			ops->send_done(s, msn, s->err_st);
			s->comp_msn++;
			mre_stream_fail(s, s->err_st);
			return;
		}
		if (msn == s->acked_msn || !mre_conn_mark_ok(s->conn, s))
			break;
		if (s->rd_comp != s->tx_rdsn &&
		    s->rq[s->rd_comp % MRE_RD_SLOTS].msn == msn) {
			struct mre_rd_slot *r = &s->rq[s->rd_comp % MRE_RD_SLOTS];

			if (r->state != MRE_SLOT_DONE)
				break;
			r->state = MRE_SLOT_FREE;
			s->rd_comp++;
			kick = true;	/* a READ/ATOMIC or fence may go now */
		}
		s->comp_msn++;
		/* true: the embedder made more WQEs available (local ones ran) */
		kick |= ops->send_done(s, msn, MRE_ST_OK);
	}
	if (kick)
		mre_stream_kick(s);
}

bool mre_conn_owed(const struct mre_conn *c)
{
	const struct mre_list *l;

	for (l = c->attached.next; l != &c->attached; l = l->next) {
		const struct mre_stream *s = MRE_CONTAINER_OF(l,
						struct mre_stream, anode);
		u32 rdsn;

		if (s->state == MRE_STREAM_ERROR)
			continue;
		/* at most max_rd slots are outstanding */
		for (rdsn = s->rd_comp; rdsn != s->tx_rdsn; rdsn++)
			if (s->rq[rdsn % MRE_RD_SLOTS].state == MRE_SLOT_WAIT)
				return true;
	}
	return false;
}

void mre_conn_markwait_run(struct mre_conn *c)
{
	while (!mre_list_empty(&c->markwait) &&
	       seq_ge(c->rxw.base, c->peer_mark)) {
		struct mre_stream *s = MRE_CONTAINER_OF(c->markwait.next,
							struct mre_stream, mnode);

		mre_list_del(&s->mnode);
		mre_stream_complete(s);
	}
}

/* the earliest failure wins; completions run in order up to it */
void mre_stream_msg_failed(struct mre_stream *s, u32 msn, enum mre_status st)
{
	if (!s->err || seq_lt(msn, s->err_msn)) {
		s->err = true;
		s->err_msn = msn;
		s->err_st = (u8)st;
	}
	mre_stream_complete(s);
}

/*
 * Do we hold the whole response to our READ or ATOMIC @msn? Then a NAK for
 * it is stale: the responder failed to resend what we had (read_resp_gone()
 * in send.c), and the message stands.
 */
static bool response_held(const struct mre_stream *s, u32 msn)
{
	u32 rdsn;

	/* only outstanding slots (at most max_rd) hold a response */
	for (rdsn = s->rd_comp; rdsn != s->tx_rdsn; rdsn++) {
		const struct mre_rd_slot *r = &s->rq[rdsn % MRE_RD_SLOTS];

		if (r->state == MRE_SLOT_DONE && r->msn == msn)
			return true;
	}
	return false;
}

void mre_stream_nak_rx(struct mre_stream *s, u32 msn, u32 syn)
{
	/*
	 * A UC requester never learns what became of its messages: the
	 * responder sends no NAK for them, and the one a responder without
	 * the stream sends (NO_STREAM) is dropped here. The message
	 * completes when its TSNs are acknowledged, as every other does.
	 */
	if (s->uc)
		return;
	/*
	 * msn is the wire's: only a message sent (tx_msn is the next one,
	 * under way if tx_busy) and not yet completed can fail. A stale one
	 * would hide the real failure's msn; a future one would complete
	 * WQEs the embedder never gave us (its SQ indices past its own).
	 */
	if (seq_lt(msn, s->comp_msn) ||
	    !seq_lt(msn, s->tx_msn + (s->tx_busy ? 1 : 0)) ||
	    response_held(s, msn)) {
		s->conn->ep->ctr.drop_inv_req++;
		return;
	}
	mre_stream_msg_failed(s, msn, nak_status(syn));
}
