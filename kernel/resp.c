// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The responder (see resp.h).
 */
#include <rdma/mroce-wr.h>

#include "cq.h"
#include "mr.h"
#include "peer.h"
#include "qp.h"
#include "resp.h"
#include "srq.h"
#include "wq.h"
#include "mroce.h"

static bool qp_allows(struct mroce_qp *qp, int right)
{
	return qp->attr.qp_access_flags & right;
}

/* the right a remote operation of this WR opcode needs (mroce-wr.h) */
static int right_of(u32 wr_opcode)
{
	return mroce_wr_ops[wr_opcode].remote_access;
}

/* --- the receive queue ------------------------------------------------------- */

static struct mroce_rwqe *rwqe_at(struct mroce_qp *qp, u32 slot)
{
	return qp->rwq + (size_t)slot * qp->rwq_stride;
}

static struct mroce_rwqe *claim_at(struct mroce_qp *qp, u32 rsn)
{
	return rwqe_at(qp, rsn % MROCE_SRQ_CLAIMS);
}

/* the next receive of the stream to complete */
static u32 rq_head(const struct mroce_qp *qp)
{
	return qp->rq_done - qp->rq_base;
}

/*
 * A QP on an SRQ: the receive claimed for @rsn, claiming one if it has
 * none. @rsn is within the window (mroce_rq_get()), so its slot holds no
 * other receive of the window; one still busy belongs to nobody (a stale
 * claim) and refuses. A receive the SRQ held that is unusable is claimed
 * all the same, marked bad: it completes in error (mroce_rq_done()).
 */
static struct mroce_rwqe *srq_claim(struct mroce_qp *qp, u32 rsn)
{
	struct mroce_rwqe *c = claim_at(qp, rsn);

	if (c->used)
		return c->rsn == rsn ? c : NULL;
	if (!mroce_srq_take(qp->srq, c))
		return NULL;
	c->used = 1;
	c->rsn = rsn;
	return c;
}

/*
 * Take up to @max more receives from the RQ ring into their shadows (at
 * most what was published: wq.h). A producer index that went back or too
 * far ends the QP.
 */
static void rq_take(struct mroce_qp *qp, u32 max)
{
	u32 n;

	if (!mroce_wq_published(&qp->rq.r, qp->rq_done, qp->rq_taken, &n))
		mroce_qp_ring_broken(qp);
	for (n = min(n, max); n; n--) {
		u32 t = qp->rq_taken++;

		mroce_rwqe_take(mre_ring_entry(&qp->rq.r, t),
				rwqe_at(qp, t & (qp->rq.r.size - 1)),
				qp->max_recv_sge);
	}
}

static bool rq_has(const struct mroce_qp *qp, u32 idx)
{
	return idx - qp->rq_done < qp->rq_taken - qp->rq_done;
}

/* receive @rsn, within a ring of the head: its shadow, taking it if needed */
static struct mroce_rwqe *rq_fetch(struct mroce_qp *qp, u32 rsn)
{
	u32 idx = qp->rq_base + rsn;

	if (!rq_has(qp, idx))
		rq_take(qp, idx - qp->rq_taken + 1);
	return rq_has(qp, idx) ? rwqe_at(qp, idx & (qp->rq.r.size - 1)) : NULL;
}

/*
 * Receive @rsn, which a peer's packet names (the peer chooses it: it is
 * checked against the head, wq.h). NULL, and *@syn why: MRE_SYN_REM_INV_REQ
 * when it completed already, MRE_SYN_RNR when it is not posted yet or past
 * the window (a ring's worth; on an SRQ, MROCE_SRQ_CLAIMS).
 */
static struct mroce_rwqe *mroce_rq_get(struct mroce_qp *qp, u32 rsn,
				       int *syn)
{
	u32 window = qp->srq ? MROCE_SRQ_CLAIMS : qp->rq.r.size;
	struct mroce_rwqe *r;

	lockdep_assert_held(&qp->lock);
	*syn = MRE_SYN_RNR;
	switch (mroce_wq_rsn(rq_head(qp), rsn, window)) {
	case MROCE_RSN_DONE:
		*syn = MRE_SYN_REM_INV_REQ;
		return NULL;
	case MROCE_RSN_AHEAD:
		if (qp->srq)
			mroce_counter_inc(mroce_qp_dev(qp), MROCE_CNT_SRQ_WINDOW);
		return NULL;
	case MROCE_RSN_OK:
		break;
	}
	r = qp->srq ? srq_claim(qp, rsn) : rq_fetch(qp, rsn);
	if (r)
		*syn = MRE_SYN_NONE;
	return r;
}

struct mroce_rwqe *mroce_rq_next(struct mroce_qp *qp, struct mroce_batch *b)
{
	int syn;

	return mroce_rq_get(qp, rq_head(qp), &syn);
}

void mroce_rq_done(struct mroce_qp *qp, struct mroce_rwqe *r,
		   const struct mroce_cqe *cqe, bool solicited,
		   struct mroce_batch *b)
{
	struct mroce_cqe c = *cqe;

	lockdep_assert_held(&qp->lock);
	c.wr_id = r->wr_id;
	/* an unusable receive fails, and ends the QP (IB: local QP op error) */
	if (r->bad && c.status != IB_WC_WR_FLUSH_ERR) {
		c.status = IB_WC_LOC_QP_OP_ERR;
		c.byte_len = 0;
		if (qp->state != IB_QPS_ERR)
			mroce_qp_set_error(qp, MROCE_ST_FATAL);
	}
	/* as for the SQ: room first, then the completion (r is our copy) */
	qp->rq_done++;
	if (!qp->srq)
		mre_ring_release(&qp->rq.r, qp->rq_done);
	mroce_cq_post(to_mroce_cq(qp->ibqp.recv_cq), &c, &qp->ibqp, solicited,
		      b);
	if (qp->srq)
		r->used = 0;	/* a claim: its ring slot went when claimed */
}

/* an SRQ's claims, in the order of their receives, then any stale one */
static void flush_claims(struct mroce_qp *qp, const struct mroce_cqe *cqe,
			 struct mroce_batch *b)
{
	u32 head = rq_head(qp), i;

	for (i = 0; i < MROCE_SRQ_CLAIMS; i++) {
		struct mroce_rwqe *c = claim_at(qp, head + i);

		if (c->used && c->rsn == head + i)
			mroce_rq_done(qp, c, cqe, false, b);
	}
	for (i = 0; i < MROCE_SRQ_CLAIMS; i++) {
		struct mroce_rwqe *c = rwqe_at(qp, i);

		if (c->used)
			mroce_rq_done(qp, c, cqe, false, b);
	}
}

void mroce_resp_flush(struct mroce_qp *qp, struct mroce_batch *b)
{
	struct mroce_cqe cqe = { .status = IB_WC_WR_FLUSH_ERR,
				 .opcode = IB_WC_RECV };

	lockdep_assert_held(&qp->lock);
	if (qp->srq) {
		flush_claims(qp, &cqe, b);
		return;
	}
	rq_take(qp, qp->rq.r.size);
	while (qp->rq_done != qp->rq_taken) {
		struct mroce_rwqe *r = rwqe_at(qp, qp->rq_done &
					       (qp->rq.r.size - 1));

		mroce_rq_done(qp, r, &cqe, false, b);
	}
}

/* --- scatter/gather ------------------------------------------------------- */

int mroce_sge_copy(struct mroce_qp *qp, const struct mroce_sge *sge, u32 n,
		   u32 off, void *buf, u32 len, bool to_sge)
{
	int access = to_sge ? IB_ACCESS_LOCAL_WRITE : 0;
	u32 i;

	for (i = 0; i < n && len; i++) {
		struct mroce_mr *mr;
		u32 k;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		k = min(len, sge[i].length - off);
		mr = mroce_mr_get(mroce_qp_dev(qp), qp->ibqp.pd, sge[i].lkey,
				  sge[i].addr + off, k, access, false);
		if (!mr)
			return -EFAULT;
		mroce_mr_copy(mr, sge[i].addr + off, buf, k, to_sge);
		mroce_mr_put(mr);
		buf += k;
		len -= k;
		off = 0;
	}
	return len ? -EFAULT : 0;
}

/* --- placement ------------------------------------------------------------------ */

/*
 * The receive a packet's @rsn names, in *@r, for placing into: MRE_SYN_NONE,
 * or why not (mroce_rq_get(); MRE_SYN_REM_OP for an unusable receive, which
 * completes in error, in order).
 */
static int recv_for(struct mroce_qp *qp, u32 rsn, struct mroce_rwqe **r)
{
	int syn;

	*r = mroce_rq_get(qp, rsn, &syn);
	if (!*r)
		return syn;
	return (*r)->bad ? MRE_SYN_REM_OP : MRE_SYN_NONE;
}

static int place_recv(struct mroce_qp *qp, const struct mre_place *p,
		      const u8 *data, struct mroce_batch *b)
{
	struct mroce_rwqe *r;
	int syn = recv_for(qp, p->rsn, &r);

	if (syn != MRE_SYN_NONE)
		return syn;
	if (p->mlen > r->length)
		return MRE_SYN_REM_INV_REQ;
	/*
	 * SEND with invalidate: the rkey must name a valid FRWR MR of the
	 * QP's PD with a remote right, or a type 2 MW bound by this QP.
	 * Checked here, where a NAK can still answer it; invalidated in
	 * order, when the receive completes (mroce_resp_recv_done()).
	 */
	if (p->dflags & MRE_DF_INV && p->dflags & MRE_DF_LAST &&
	    !mroce_key_invalidate(&qp->ibqp, p->imm, true, true))
		return MRE_SYN_REM_INV_REQ;
	if (mroce_sge_copy(qp, r->sge, r->num_sge, p->offset, (void *)data,
			   p->len, true))
		return MRE_SYN_REM_OP;	/* our receive's own key is bad */
	return MRE_SYN_NONE;
}

static int place_write(struct mroce_qp *qp, const struct mre_place *p,
		       const u8 *data, struct mroce_batch *b)
{
	int right = right_of(IB_WR_RDMA_WRITE);
	struct mroce_rwqe *r;
	struct mroce_mr *mr;
	int syn;

	if (!qp_allows(qp, right))
		return MRE_SYN_REM_ACCESS;
	/* with immediate: its receive must exist before anything lands */
	if (p->dflags & MRE_DF_RECV && p->dflags & MRE_DF_LAST) {
		syn = recv_for(qp, p->rsn, &r);
		if (syn != MRE_SYN_NONE)
			return syn;
	}
	if (!p->mlen)
		return MRE_SYN_NONE;
	mr = mroce_rkey_get(&qp->ibqp, p->rkey, p->raddr, p->mlen, right);
	if (!mr)
		return MRE_SYN_REM_ACCESS;
	mroce_mr_copy(mr, p->raddr + p->offset, (void *)data, p->len, true);
	mroce_mr_put(mr);
	return MRE_SYN_NONE;
}

int mroce_resp_place(struct mre_stream *s, const struct mre_place *p,
		     const u8 *data)
{
	struct mroce_qp *qp = mroce_qp_of_stream(s);
	struct mroce_batch *b = mroce_peer_batch(s->conn);
	int r;

	spin_lock(&qp->lock);
	r = p->op == MRE_OP_WRITE ? place_write(qp, p, data, b) :
				    place_recv(qp, p, data, b);
	spin_unlock(&qp->lock);
	return r;
}

/* --- READ and ATOMIC --------------------------------------------------------- */

int mroce_resp_check(struct mre_stream *s, u8 op, u32 rkey, u64 raddr,
		     u32 len)
{
	struct mroce_qp *qp = mroce_qp_of_stream(s);
	int right = right_of(op == MRE_OP_READ_REQ ? IB_WR_RDMA_READ :
			     op == MRE_OP_ATOMIC_WRITE_REQ ?
			     MROCE_WR_ATOMIC_WRITE :
			     IB_WR_ATOMIC_FETCH_AND_ADD);
	struct mroce_mr *mr;

	if (!qp_allows(qp, right))
		return MRE_SYN_REM_ACCESS;
	if (!len)
		return MRE_SYN_NONE;
	mr = mroce_rkey_get(&qp->ibqp, rkey, raddr, len, right);
	if (!mr)
		return MRE_SYN_REM_ACCESS;
	mroce_mr_put(mr);
	return MRE_SYN_NONE;
}

/*
 * The MR (referenced) of the aligned word an atomic or an ATOMIC_WRITE
 * names, if the QP and the MR allow @wr_opcode's remote right now: the
 * request was checked when it arrived, and either may have changed since.
 */
static struct mroce_mr *word_mr(struct mroce_qp *qp, u32 wr_opcode, u32 rkey,
				u64 raddr)
{
	int right = right_of(wr_opcode);

	if (!qp_allows(qp, right) || raddr & 7)
		return NULL;
	return mroce_rkey_get(&qp->ibqp, rkey, raddr, 8, right);
}

int mroce_resp_atomic(struct mre_stream *s, const struct mre_atomic *a,
		      u64 *orig)
{
	struct mroce_qp *qp = mroce_qp_of_stream(s);
	struct mroce_dev *mdev = mroce_qp_dev(qp);
	struct mroce_mr *mr;
	u64 v;

	mr = word_mr(qp, IB_WR_ATOMIC_FETCH_AND_ADD, a->rkey, a->raddr);
	if (!mr)
		return MRE_SYN_REM_ACCESS;
	/* one lock for all atomics of the device, as rxe does */
	spin_lock(&mdev->atomic_lock);
	mroce_mr_copy(mr, a->raddr, &v, 8, false);
	*orig = v;
	if (a->aop == MRE_AOP_FETCH_ADD)
		v += a->swap_add;
	else if (v == a->compare)
		v = a->swap_add;
	mroce_mr_copy(mr, a->raddr, &v, 8, true);
	spin_unlock(&mdev->atomic_lock);
	mroce_mr_put(mr);
	return MRE_SYN_NONE;
}

/*
 * ATOMIC_WRITE: one store of the aligned word (mroce_copy_dir()), under
 * the device's atomic lock so that no remote atomic sees half of it; the
 * rights are those of a WRITE.
 */
int mroce_resp_atomic_write(struct mre_stream *s, u32 rkey, u64 raddr,
			    u64 value)
{
	struct mroce_qp *qp = mroce_qp_of_stream(s);
	struct mroce_dev *mdev = mroce_qp_dev(qp);
	struct mroce_mr *mr;

	mr = word_mr(qp, MROCE_WR_ATOMIC_WRITE, rkey, raddr);
	if (!mr)
		return MRE_SYN_REM_ACCESS;
	spin_lock(&mdev->atomic_lock);
	mroce_mr_copy(mr, raddr, &value, 8, true);
	spin_unlock(&mdev->atomic_lock);
	mroce_mr_put(mr);
	return MRE_SYN_NONE;
}

int mroce_resp_read(struct mroce_qp *qp, const struct mre_xmit *x, u8 *dst)
{
	int right = right_of(IB_WR_RDMA_READ);
	struct mroce_mr *mr;

	/*
	 * Rights are checked again for every packet: the QP's (modify_qp may
	 * have revoked REMOTE_READ since the request arrived) here, the MR's
	 * or MW's by the lookup. Either gone: the READ ends with a NAK.
	 */
	if (!qp_allows(qp, right))
		return MRE_SYN_REM_ACCESS;
	mr = mroce_rkey_get(&qp->ibqp, x->pl_rkey, x->pl_addr, x->pl_len, right);
	if (!mr)
		return MRE_SYN_REM_ACCESS;
	mroce_mr_copy(mr, x->pl_addr, dst, x->pl_len, false);
	mroce_mr_put(mr);
	return MRE_SYN_NONE;
}

/* --- receive completion ------------------------------------------------------ */

void mroce_resp_recv_done(struct mre_stream *s, const struct mre_recv_done *rd)
{
	struct mroce_qp *qp = mroce_qp_of_stream(s);
	struct mroce_batch *b = mroce_peer_batch(s->conn);
	struct mroce_cqe cqe = {
		.status = mroce_wc_status(rd->status),
		.opcode = rd->op == MRE_OP_WRITE ? IB_WC_RECV_RDMA_WITH_IMM :
						   IB_WC_RECV,
		.byte_len = rd->len,
	};
	struct mroce_rwqe *r = NULL;
	int syn;

	if (rd->dflags & MRE_DF_IMM) {
		cqe.imm_data = rd->imm;
		cqe.wc_flags = MROCE_WC_WITH_IMM;
	}
	spin_lock(&qp->lock);
	/*
	 * The gate runs in message order, so an honest peer completes the
	 * head. Any other receive (skipped ahead, completed already, never
	 * placed) is the peer's lie: complete nothing out of order, end the
	 * QP; its flush completes every receive, in order.
	 */
	if (rd->rsn == rq_head(qp))
		r = mroce_rq_get(qp, rd->rsn, &syn);
	if (!r) {
		mroce_counter_inc(mroce_qp_dev(qp), MROCE_CNT_RQ_BAD_RSN);
		mroce_dbg_qp(qp, "receive %u completed, head %u\n", rd->rsn,
			     rq_head(qp));
		if (qp->state != IB_QPS_ERR)
			mroce_qp_set_error(qp, MRE_ST_LOC_LEN);
		spin_unlock(&qp->lock);
		return;
	}
	if (rd->dflags & MRE_DF_INV && rd->status == MRE_ST_OK) {
		/*
		 * Checked when it arrived; if the key changed since (a local
		 * invalidate or dealloc raced it) it is not valid either way.
		 */
		mroce_key_invalidate(&qp->ibqp, rd->imm, true, false);
		cqe.imm_data = rd->imm;		/* the rkey, host order */
		cqe.wc_flags = MROCE_WC_WITH_INV;
	}
	mroce_rq_done(qp, r, &cqe, rd->dflags & MRE_DF_SOLICIT, b);
	spin_unlock(&qp->lock);
}
