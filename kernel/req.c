// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The requester (see req.h).
 */
#include <rdma/mroce-wr.h>

#include "batch.h"
#include "chain.h"
#include "cq.h"
#include "loop.h"
#include "mr.h"
#include "net.h"
#include "parity.h"
#include "peer.h"
#include "qp.h"
#include "req.h"
#include "resp.h"
#include "sqe.h"
#include "ud.h"
#include "wq.h"
#include "mroce.h"

/* the table's values are the kernel's and the wire's */
static_assert((int)MROCE_WIRE_SEND == (int)MRE_OP_SEND &&
	      (int)MROCE_WIRE_WRITE == (int)MRE_OP_WRITE &&
	      (int)MROCE_WIRE_READ_REQ == (int)MRE_OP_READ_REQ &&
	      (int)MROCE_WIRE_ATOMIC_REQ == (int)MRE_OP_ATOMIC_REQ &&
	      (int)MROCE_WIRE_ATOMIC_WRITE == (int)MRE_OP_ATOMIC_WRITE_REQ);
static_assert((int)MROCE_AOP_CMP_SWP == (int)MRE_AOP_CMP_SWP &&
	      (int)MROCE_AOP_FETCH_ADD == (int)MRE_AOP_FETCH_ADD);
static_assert((int)IB_UVERBS_ACCESS_REMOTE_WRITE == (int)IB_ACCESS_REMOTE_WRITE &&
	      (int)IB_UVERBS_ACCESS_REMOTE_READ == (int)IB_ACCESS_REMOTE_READ &&
	      (int)IB_UVERBS_ACCESS_REMOTE_ATOMIC == (int)IB_ACCESS_REMOTE_ATOMIC &&
	      (int)IB_UVERBS_ACCESS_LOCAL_WRITE == (int)IB_ACCESS_LOCAL_WRITE);
static_assert((int)IB_UVERBS_WR_BIND_MW == (int)IB_WR_BIND_MW &&
	      (int)IB_UVERBS_WR_SEND_WITH_INV == (int)IB_WR_SEND_WITH_INV &&
	      (int)IB_UVERBS_WC_LOCAL_INV == (int)IB_WC_LOCAL_INV &&
	      (int)IB_UVERBS_WC_FETCH_ADD == (int)IB_WC_FETCH_ADD);


/* --- taking WQEs ------------------------------------------------------------- */

/* SQ index @idx is taken (copied) and not completed */
static bool sq_pending(const struct mroce_qp *qp, u32 idx)
{
	return idx - qp->sq_done < qp->sq_taken - qp->sq_done;
}


/*
 * Take every WQE published so far (at most the ring's free shadows: wq.h);
 * a producer index that went back or too far ends the QP. False when no
 * WQE is outstanding.
 */
static bool sq_refresh(struct mroce_qp *qp)
{
	u32 n;

	if (!mroce_wq_published(&qp->sq.r, qp->sq_done, qp->sq_taken, &n))
		mroce_qp_ring_broken(qp);
	while (n--)
		mroce_sqe_take(qp, qp->sq_taken++);
	return qp->sq_taken != qp->sq_done;
}

/* the first WQE not completed is bad: it ends the QP (in order) */
static void sq_check(struct mroce_qp *qp)
{
	struct mroce_swqe *w;

	if (qp->sq_done == qp->sq_taken)
		return;
	w = mroce_swqe(qp, qp->sq_done);
	if (!w->status)
		return;
	mroce_dbg_qp(qp, "wr %#llx: local error %d\n", w->wr_id, w->status);
	mroce_qp_set_error(qp, MRE_ST_FLUSH);
}

/* --- send completion ----------------------------------------------------------- */

static void send_cqe(struct mroce_qp *qp, struct mroce_swqe *w,
		     enum ib_wc_status st, struct mroce_batch *b)
{
	const struct mroce_wr_op *o = mroce_qp_wr_op(qp, w->opcode);
	struct mroce_cqe cqe = {
		.wr_id = w->wr_id,
		.status = st,
		/* a WQE with no opcode of ours completes in error, as a SEND */
		.opcode = o ? o->wc_opcode : IB_WC_SEND,
		.byte_len = w->length,
	};

	if (st == IB_WC_SUCCESS && !(w->flags & IB_SEND_SIGNALED) &&
	    !qp->sq_sig_all)
		return;
	mroce_cq_post(to_mroce_cq(qp->ibqp.send_cq), &cqe, &qp->ibqp, false, b);
}

static void sq_release(struct mroce_qp *qp)
{
	mre_ring_release(&qp->sq.r, qp->sq_done);
	if (qp->state == IB_QPS_SQD && qp->sq_done == qp->sq_taken &&
	    qp->sq_drained_event) {
		qp->sq_drained_event = false;
		schedule_work(&qp->sqd_work);
	}
}

/* send WQE @idx is complete (in order) */
static void sq_done(struct mroce_qp *qp, u32 idx, enum ib_wc_status st,
		    struct mroce_batch *b)
{
	lockdep_assert_held(&qp->lock);
	if (idx != qp->sq_done)
		mroce_dbg_qp(qp, "completion %u out of order (next %u)\n", idx,
			     qp->sq_done);
	/*
	 * The ring slot is free before the completion says so: a consumer
	 * that posts again as soon as it polls must find the room.
	 */
	qp->sq_done = idx + 1;
	sq_release(qp);
	send_cqe(qp, mroce_swqe(qp, idx), st, b);
}

void mroce_req_flush(struct mroce_qp *qp, enum ib_wc_status first,
		     struct mroce_batch *b)
{
	u32 n;

	lockdep_assert_held(&qp->lock);
	sq_refresh(qp);
	/*
	 * Never more than the ring holds: sq_refresh() and sq_done() keep
	 * the indices within it, and if they ever did not, a walk to
	 * sq_taken would be 2^32 completions in a worker.
	 */
	n = qp->sq_taken - qp->sq_done;
	if (n > qp->sq.r.size) {
		mroce_dbg_qp(qp, "flush: %u WQEs outstanding, ring %u\n", n,
			     qp->sq.r.size);
		n = 0;
		qp->sq_done = qp->sq_taken;
	}
	while (n--) {
		struct mroce_swqe *w = mroce_swqe(qp, qp->sq_done++);

		sq_release(qp);
		send_cqe(qp, w, w->status ? w->status : first, b);
		first = IB_WC_WR_FLUSH_ERR;
	}
	sq_release(qp);
}

/* --- local WQEs -------------------------------------------------------------------- */

static enum ib_wc_status run_one_local(struct mroce_qp *qp,
					const struct mroce_swqe *w)
{
	switch (w->opcode) {
	case IB_WR_BIND_MW:
		return mroce_mw_bind(&qp->ibqp, w->bind_mw, w->rkey,
				     w->bind_lkey, w->raddr, w->compare_add,
				     w->bind_access);
	case IB_WR_REG_MR:
		return mroce_mr_fast_reg(&qp->ibqp, w->rkey, w->bind_access);
	default:	/* LOCAL_INV */
		return mroce_key_invalidate(&qp->ibqp, w->imm, false, false) ?
		       IB_WC_SUCCESS : IB_WC_LOC_PROT_ERR;
	}
}

static bool is_local(const struct mroce_qp *qp, const struct mroce_swqe *w)
{
	const struct mroce_wr_op *o = mroce_qp_wr_op(qp, w->opcode);

	return o && o->flags & MROCE_WR_LOCAL;
}

/*
 * A local WQE runs once every WQE before it has completed, so it sees the
 * effects of the operations posted before it and those posted after it see
 * its own. It is not a message: the engine never fetched it (the message
 * numbers skip it, sq_base moves past it) and stops at it until it has run.
 * One that fails completes in error and ends the QP, as a bad WQE does.
 * True if any ran.
 */
static bool run_local(struct mroce_qp *qp, struct mroce_batch *b)
{
	bool ran = false;

	lockdep_assert_held(&qp->lock);
	while (qp->state == IB_QPS_RTS && qp->sq_done != qp->sq_taken) {
		struct mroce_swqe *w = mroce_swqe(qp, qp->sq_done);
		enum ib_wc_status st;

		if (w->status || !is_local(qp, w))
			break;
		st = run_one_local(qp, w);
		if (st) {
			mroce_dbg_qp(qp, "wr %#llx: opcode %u failed\n", w->wr_id,
				     w->opcode);
			w->status = st;
			sq_check(qp);
			break;
		}
		qp->sq_base++;
		sq_done(qp, qp->sq_done, IB_WC_SUCCESS, b);
		ran = true;
	}
	return ran;
}

/* --- the SQ as the engine sees it ------------------------------------------- */

/* is SQ index @idx taken (copied)? If not, take what was published */
static bool sq_has(struct mroce_qp *qp, u32 idx)
{
	u32 f;

	if (sq_pending(qp, idx))
		return true;
	sq_refresh(qp);
	if (sq_pending(qp, idx))
		return true;
	/* empty: ask for a doorbell, then look once more (ring.h) */
	f = mre_ring_load(&qp->sq.r.hdr->flags);
	mre_ring_store(&qp->sq.r.hdr->flags, f | MRE_RING_F_DB_NEEDED);
	mre_ring_mb();
	sq_refresh(qp);
	if (!sq_pending(qp, idx))
		return false;
	mre_ring_store(&qp->sq.r.hdr->flags, f);
	return true;
}

/*
 * Every local WQE before @w has run: the keys of its SGEs are checked now
 * if they were not when it was taken. A bad one ends the QP, in order.
 */
static struct mroce_swqe *keys_now(struct mroce_qp *qp, struct mroce_swqe *w)
{
	const struct mroce_wr_op *o = mroce_qp_wr_op(qp, w->opcode);

	if (!w->keys_later)
		return w;
	w->keys_later = false;
	w->status = mroce_sqe_keys(qp, w->sge, w->num_sge, o->local_access);
	if (!w->status)
		return w;
	sq_check(qp);
	return NULL;
}

/*
 * Message @msn exists when it has been posted, copied and found valid. A
 * message already under way stays readable in any state (its packets may
 * have to be resent, e.g. while the SQ drains); a new one starts only in
 * RTS. Local WQEs in the way run here if they may; if they may not yet,
 * there is no message @msn yet.
 */
static struct mroce_swqe *sq_get(struct mroce_qp *qp, u32 msn,
				 struct mroce_batch *b)
{
	u32 idx = qp->sq_base + msn;
	struct mroce_swqe *w;

	lockdep_assert_held(&qp->lock);
	if (sq_pending(qp, idx) &&
	    seq_lt(msn, qp->s.tx_msn + (qp->s.tx_busy ? 1 : 0))) {
		w = mroce_swqe(qp, idx);
		return w->status ? NULL : w;
	}
	for (;;) {
		if (qp->state != IB_QPS_RTS)
			return NULL;
		idx = qp->sq_base + msn;
		if (!sq_has(qp, idx))
			return NULL;
		w = mroce_swqe(qp, idx);
		if (w->status)
			return NULL;
		if (!is_local(qp, w))
			return keys_now(qp, w);
		/* it runs when all before it are done; then @msn is the next */
		if (!run_local(qp, b))
			return NULL;
	}
}

/* the engine's view of a message WQE (mroce-wr.h says what it is) */
static void wqe_of(const struct mroce_swqe *q, struct mre_wqe *w)
{
	const struct mroce_wr_op *o = mroce_wr_op(q->opcode);

	memset(w, 0, sizeof(*w));
	w->op = o->wire_op;
	w->aop = o->aop;
	w->len = o->len ? o->len : q->length;
	w->rkey = q->rkey;
	w->raddr = q->raddr;
	w->imm = q->imm;		/* MROCE_WR_INV: the rkey */
	w->swap_add = q->compare_add;
	if (o->aop == MROCE_AOP_CMP_SWP) {
		w->compare = q->compare_add;
		w->swap_add = q->swap;
	}
	if (o->flags & MROCE_WR_IMM)
		w->flags |= MRE_WQE_IMM;
	if (o->flags & MROCE_WR_INV)
		w->flags |= MRE_WQE_INV;
	if (q->flags & IB_SEND_SOLICITED)
		w->flags |= MRE_WQE_SOLICIT;
	if (q->flags & IB_SEND_FENCE)
		w->flags |= MRE_WQE_FENCE;
}

bool mroce_req_sq_get(struct mre_stream *s, u32 msn, struct mre_wqe *w)
{
	struct mroce_qp *qp = mroce_qp_of_stream(s);
	struct mroce_swqe *q;

	lockdep_assert_held(&mroce_peer_of(s->conn)->lock);
	spin_lock(&qp->lock);
	/* only valid message WQEs come out: their opcode is in the table */
	q = sq_get(qp, msn, mroce_peer_batch(s->conn));
	if (q)
		wqe_of(q, w);
	spin_unlock(&qp->lock);
	return q;
}

bool mroce_req_send_done(struct mre_stream *s, u32 msn, enum mre_status st)
{
	struct mroce_qp *qp = mroce_qp_of_stream(s);
	struct mroce_batch *b = mroce_peer_batch(s->conn);
	u32 idx = qp->sq_base + msn;
	bool ran;

	spin_lock(&qp->lock);
	/*
	 * The engine completes only messages it fetched, but @msn came a
	 * long way (a NAK names it): one the SQ does not hold would move
	 * sq_done past sq_taken and complete WQEs nobody posted. Complete
	 * nothing; the QP ends, and its flush completes what it does hold.
	 */
	if (!sq_pending(qp, idx)) {
		mroce_counter_inc(mroce_qp_dev(qp), MROCE_CNT_SQ_BAD_MSN);
		mroce_dbg_qp(qp, "message %u completed, SQ holds %u..%u\n",
			     msn, qp->sq_done - qp->sq_base,
			     qp->sq_taken - qp->sq_base);
		if (qp->state != IB_QPS_ERR)
			mroce_qp_set_error(qp, MROCE_ST_FATAL);
		spin_unlock(&qp->lock);
		return false;
	}
	sq_done(qp, idx, mroce_wc_status(st), b);
	sq_check(qp);
	/* local WQEs that waited for it run now: the messages after may go */
	ran = run_local(qp, b);
	spin_unlock(&qp->lock);
	return ran;
}

int mroce_req_place_resp(struct mre_stream *s, const struct mre_place *p,
			 const u8 *data)
{
	struct mroce_qp *qp = mroce_qp_of_stream(s);
	struct mroce_swqe *w;
	int r = MRE_SYN_NONE;

	spin_lock(&qp->lock);
	w = mroce_swqe(qp, qp->sq_base + p->msn);
	/*
	 * The engine matched the response to our READ or ATOMIC; its span
	 * is the peer's: an atomic's 8 bytes go at offset 0, READ data within
	 * the WQE's length. Anything else fails the WQE (LOC_PROT).
	 */
	if ((p->op == MRE_OP_ATOMIC_RESP && (p->offset || p->len != 8)) ||
	    !mroce_wq_span_ok(w->length, p->offset, p->len))
		r = MRE_SYN_REM_INV_REQ;
	/* our SGEs were checked at post: failing now, the MR went away */
	else if (mroce_sge_copy(qp, w->sge, w->num_sge, p->offset,
				(void *)data, p->len, true))
		r = MRE_SYN_REM_ACCESS;
	spin_unlock(&qp->lock);
	return r;
}

/* --- packets out ------------------------------------------------------------ */

/*
 * A send WQE payload into @dst: inline bytes, or gathered from its SGEs,
 * never past the shadow's own validated length. The MR went away under a
 * posted WQE, or the span is not the WQE's: send zeros, not other memory.
 */
static void gather_wqe(struct mroce_qp *qp, const struct mre_xmit *x, u8 *dst)
{
	struct mroce_swqe *w = mroce_swqe(qp, qp->sq_base + x->pl_msn);
	bool ok;

	if (w->flags & IB_SEND_INLINE)
		ok = mroce_wq_read_inline(w->inl, w->length, x->pl_offset,
					  x->pl_len, dst);
	else
		ok = mroce_wq_span_ok(w->length, x->pl_offset, x->pl_len) &&
		     !mroce_sge_copy(qp, w->sge, w->num_sge, x->pl_offset, dst,
				     x->pl_len, false);
	if (!ok)
		memset(dst, 0, x->pl_len);
}

/* a PARITY's payload: the WQE's pieces from pl_offset on, XORed */
static void gather_parity(struct mroce_qp *qp, const struct mre_xmit *x,
			  u8 *dst)
{
	struct mroce_swqe *w = mroce_swqe(qp, qp->sq_base + x->pl_msn);

	mroce_parity_fold(qp, x, w->length, dst, gather_wqe);
}

int mroce_req_xmit(struct mre_conn *c, const struct mre_xmit *x)
{
	struct mroce_peer *peer = mroce_peer_of(c);
	struct mroce_dev *mdev = peer->mdev;
	struct sk_buff *skb;
	u8 *p;

	skb = mroce_net_alloc(x->hdr_len + x->pl_len);
	if (!skb) {
		mroce_counter_inc(mdev, MROCE_CNT_TX_DROP_NOMEM);
		return 0;			/* recovered like a loss */
	}
	p = skb_put(skb, x->hdr_len + x->pl_len);
	memcpy(p, x->hdr, x->hdr_len);
	p += x->hdr_len;
	if (x->pl_src == MRE_PL_WQE) {
		gather_wqe(mroce_qp_of_stream(x->pl_stream), x, p);
	} else if (x->pl_src == MRE_PL_PARITY) {
		gather_parity(mroce_qp_of_stream(x->pl_stream), x, p);
	} else if (x->pl_src == MRE_PL_MR &&
		   mroce_resp_read(mroce_qp_of_stream(x->pl_stream), x, p)) {
		kfree_skb(skb);
		return MRE_SYN_REM_ACCESS;
	}
	mroce_counter_inc(mdev, MROCE_CNT_TX_PACKETS);
	mroce_peer_xmit(peer, skb, x->plane | (x->claim ? MROCE_PLANE_CLAIM : 0),
			x->src_port);
	return 0;
}

/* --- the doorbell ------------------------------------------------------------- */

/*
 * RC, UC: the peer the QP's stream is attached to, referenced, or NULL.
 * POST_SEND and MODIFY_QP run at once (both hold the QP's uobject shared)
 * and modify_qp swaps qp->peer under the QP's lock: read it there, while
 * the QP's own reference keeps it, and take ours. Ours keeps it from
 * being reclaimed and freed until the doorbell has armed its timer.
 */
static struct mroce_peer *kick_peer(struct mroce_qp *qp)
{
	struct mroce_peer *peer;

	spin_lock_bh(&qp->lock);
	peer = qp->state == IB_QPS_RTS ? qp->peer : NULL;
	if (peer)
		mroce_peer_hold(peer);
	spin_unlock_bh(&qp->lock);
	return peer;
}

/* RC, UC: what was posted goes to the engine (@peer locked by the caller) */
static void kick_conn(struct mroce_qp *qp, struct mroce_peer *peer,
		      struct mroce_batch *b)
{
	lockdep_assert_held(&peer->lock);
	spin_lock(&qp->lock);
	/*
	 * The stream may have left @peer since kick_peer() (RESET, then RTR
	 * to another node): its engine state is another peer's, under
	 * another lock. Attach and detach run under both locks, so this
	 * holds until we let go.
	 */
	if (qp->s.conn != &peer->conn) {
		spin_unlock(&qp->lock);
		return;
	}
	mre_ring_store(&qp->sq.r.hdr->flags, 0);
	sq_refresh(qp);
	sq_check(qp);
	run_local(qp, b);
	if (qp->state == IB_QPS_RTS)
		mre_stream_kick(&qp->s);
	spin_unlock(&qp->lock);
}

/* UD: every posted datagram out now */
static void kick_ud(struct mroce_qp *qp, struct mroce_batch *b)
{
	spin_lock_bh(&qp->lock);
	if (qp->state == IB_QPS_RTS) {
		sq_refresh(qp);
		while (qp->sq_done != qp->sq_taken) {
			struct mroce_swqe *w = mroce_swqe(qp, qp->sq_done);

			/* a local error (bad AH, lkey): as a bad WQE */
			if (!w->status)
				w->status = mroce_ud_send(qp, w, b);
			if (w->status) {
				sq_check(qp);
				break;
			}
			sq_done(qp, qp->sq_done, IB_WC_SUCCESS, b);
		}
	}
	spin_unlock_bh(&qp->lock);
}

/*
 * BHs stay off from the engine's run to the end of the flush. Unlocking
 * the peer with them on would run the receive softirq there, before our
 * batch went out: the ACKs waiting in the loop's queue or a veth backlog
 * open the window, the softirq sends new packets and hears of them, and
 * our batch's packets, sent earlier and still here, pass for losses by
 * send time (a whole burst at once, four PSNs on each of eight paths, in
 * a one-device 64 KiB stream). mroce_batch_flush() keeps them off for
 * its own loop for the same reason.
 */
void mroce_req_kick(struct mroce_qp *qp)
{
	struct mroce_dev *mdev = mroce_qp_dev(qp);
	struct mroce_peer *peer;
	struct mroce_chain ch;
	struct mroce_batch b;
	bool loop = false;

	mroce_chain_begin(&ch);
	mroce_batch_init(&b);
	local_bh_disable();
	/* a datagram or a peer that is ourselves: its packets drained below */
	if (!mroce_qp_is_conn(qp)) {
		loop = mroce_loop_hold(mdev);
		kick_ud(qp, &b);
	} else {
		peer = kick_peer(qp);
		if (peer) {
			mroce_peer_lock(peer, &b);
			loop = peer->conn.local && mroce_loop_hold(mdev);
			kick_conn(qp, peer, &b);
			/* its timer: at the end */
			mroce_chain_defer(peer, mroce_peer_unlock_defer(peer));
		}
	}
	mroce_batch_flush(&b);
	if (loop)
		mroce_loop_drain(mdev);	/* what went to ourselves, here */
	local_bh_enable();	/* the receive softirq: the batch is out */
	mroce_chain_end(&ch);
}
