// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues (see srq.h).
 */
#include <linux/log2.h>
#include <rdma/ib_verbs.h>
#include <rdma/mroce-abi.h>

#include "batch.h"
#include "qp.h"
#include "srq.h"
#include "mroce.h"

#define mroce_dbg_srq(srq, fmt, ...)					\
	ibdev_dbg((srq)->ibsrq.device, "srq %u %s: " fmt, (srq)->id,	\
		  __func__, ##__VA_ARGS__)

static u32 rqe_stride(u32 max_sge)
{
	return roundup_pow_of_two(sizeof(struct mroce_rqe) +
				  max_sge * sizeof(struct mroce_sge));
}

int mroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mroce_dev(ibsrq->device);
	struct mroce_srq *srq = to_mroce_srq(ibsrq);
	struct ib_srq_attr *a = &init->attr;
	struct mroce_create_srq_resp resp = {};
	u32 size;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!a->max_wr || a->max_wr > MROCE_MAX_QP_WR ||
	    a->max_sge > MROCE_MAX_SGE || a->srq_limit > a->max_wr)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	spin_lock_init(&srq->lock);
	spin_lock_init(&srq->post_lock);
	srq->id = atomic_inc_return(&mdev->next_obj_id);
	srq->max_sge = max_t(u32, a->max_sge, 1);
	srq->limit = a->srq_limit;
	size = roundup_pow_of_two(a->max_wr);
	err = mroce_queue_init(&srq->q, udata, size, rqe_stride(srq->max_sge),
			       &resp.mmap_offset);
	if (err)
		return err;
	a->max_wr = size;
	a->max_sge = srq->max_sge;
	if (udata) {
		resp.mmap_len = srq->q.len;
		resp.size = size;
		resp.stride = srq->q.r.stride;
		resp.max_sge = srq->max_sge;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			mroce_queue_free(&srq->q);
			return err;
		}
	}
	mroce_dbg_srq(srq, "%u entries\n", size);
	return 0;
}

int mroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct mroce_srq *srq = to_mroce_srq(ibsrq);

	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;	/* no resize (IB_DEVICE_SRQ_RESIZE unset) */
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit > srq->q.r.size)
			return -EINVAL;
		spin_lock_bh(&srq->lock);
		srq->limit = attr->srq_limit;
		spin_unlock_bh(&srq->lock);
	}
	return 0;
}

int mroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct mroce_srq *srq = to_mroce_srq(ibsrq);

	attr->max_wr = srq->q.r.size;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	return 0;
}

int mroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct mroce_srq *srq = to_mroce_srq(ibsrq);

	/* no QP uses it any more (the core counts) */
	mroce_dbg_srq(srq, "\n");
	mroce_queue_free(&srq->q);
	return 0;
}

int mroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad)
{
	struct mroce_srq *srq = to_mroce_srq(ibsrq);
	struct mre_ring *r = &srq->q.r;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&srq->post_lock, flags);
	for (; wr; wr = wr->next) {
		struct mroce_rqe *e;
		u32 i;

		if (wr->num_sge > srq->max_sge) {
			err = -EINVAL;
			break;
		}
		if (!mre_ring_space(r)) {
			err = -ENOMEM;
			break;
		}
		e = mre_ring_next(r);
		e->wr_id = wr->wr_id;
		e->num_sge = wr->num_sge;
		for (i = 0; i < wr->num_sge; i++) {
			e->sge[i].addr = wr->sg_list[i].addr;
			e->sge[i].length = wr->sg_list[i].length;
			e->sge[i].lkey = wr->sg_list[i].lkey;
		}
		mre_ring_publish(r, 1);
	}
	spin_unlock_irqrestore(&srq->post_lock, flags);
	if (err)
		*bad = wr;
	return err;
}

static struct mroce_rwqe *claim_at(struct mroce_qp *qp, u32 rsn)
{
	return qp->rwq + (size_t)(rsn % MROCE_SRQ_CLAIMS) * qp->rwq_stride;
}

struct mroce_rwqe *mroce_srq_claim(struct mroce_qp *qp, u32 rsn,
				   struct mroce_batch *b)
{
	struct mroce_srq *srq = qp->srq;
	struct mroce_rwqe *c = claim_at(qp, rsn);
	bool event = false, ok = false;
	struct mre_ring *r = &srq->q.r;

	if (c->used)
		return c->rsn == rsn ? c : NULL;	/* busy: try later */
	spin_lock(&srq->lock);
	if (mre_ring_avail(r)) {
		ok = mroce_rwqe_take(qp, mre_ring_entry(r, r->cons), c,
				     srq->max_sge);
		mre_ring_release(r, r->cons + 1);
		if (srq->limit && r->prod - r->cons < srq->limit) {
			srq->limit = 0;		/* one event per arming */
			event = true;
		}
	}
	spin_unlock(&srq->lock);
	if (event && srq->ibsrq.event_handler) {
		struct ib_event ev = {
			.device = srq->ibsrq.device,
			.element.srq = &srq->ibsrq,
			.event = IB_EVENT_SRQ_LIMIT_REACHED,
		};

		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	}
	if (!ok)
		return NULL;
	c->used = 1;
	c->rsn = rsn;
	return c;
}

void mroce_srq_release(struct mroce_qp *qp, struct mroce_rwqe *r)
{
	r->used = 0;
}

void mroce_srq_flush_claims(struct mroce_qp *qp, struct mroce_batch *b)
{
	struct mroce_cqe cqe = { .status = IB_WC_WR_FLUSH_ERR,
				 .opcode = IB_WC_RECV };
	u32 i;

	for (i = 0; i < MROCE_SRQ_CLAIMS; i++) {
		struct mroce_rwqe *c = claim_at(qp, i);

		if (c->used)
			mroce_qp_recv_done(qp, c, &cqe, false, b);
	}
}
