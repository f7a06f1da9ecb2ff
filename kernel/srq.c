// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues (see srq.h).
 */
#include <linux/log2.h>
#include <rdma/ib_verbs.h>
#include <rdma/mroce-abi.h>

#include "qp.h"
#include "srq.h"
#include "wq.h"
#include "oflcmd.h"
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
	err = mroce_ofl_srq_cmd(srq, MROCE_OFL_CMD_SRQ_CREATE);
	if (err)
		goto err_free;
	if (udata) {
		resp.mmap_len = srq->q.len;
		resp.size = size;
		resp.stride = srq->q.r.stride;
		resp.max_sge = srq->max_sge;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			mroce_ofl_srq_cmd(srq, MROCE_OFL_CMD_SRQ_DESTROY);
			goto err_free;
		}
	}
	mroce_dbg_srq(srq, "%u entries\n", size);
	return 0;

err_free:
	mroce_queue_free(&srq->q);
	return err;
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
		return mroce_ofl_srq_cmd(srq, MROCE_OFL_CMD_SRQ_MODIFY);
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
	mroce_ofl_srq_cmd(srq, MROCE_OFL_CMD_SRQ_DESTROY);
	mroce_queue_free(&srq->q);
	return 0;
}

int mroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad)
{
	struct mroce_srq *srq = to_mroce_srq(ibsrq);
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&srq->post_lock, flags);
	for (; wr; wr = wr->next) {
		err = mroce_queue_post_rqe(&srq->q.kp, wr, srq->max_sge);
		if (err)
			break;
	}
	spin_unlock_irqrestore(&srq->post_lock, flags);
	if (err)
		*bad = wr;
	return err;
}

bool mroce_rwqe_take(const struct mroce_rqe *e, struct mroce_rwqe *r,
		     u32 max_sge)
{
	u32 n = READ_ONCE(e->num_sge), i;
	u64 sum = 0;

	r->wr_id = READ_ONCE(e->wr_id);
	r->num_sge = 0;
	r->length = 0;
	r->bad = 1;
	if (n > max_sge)
		return false;
	memcpy(r->sge, e->sge, n * sizeof(*r->sge));
	for (i = 0; i < n; i++)
		sum += r->sge[i].length;
	if (sum > MROCE_MAX_MSG)
		return false;
	r->num_sge = n;
	r->length = sum;
	r->bad = 0;
	return true;
}

/* the SRQ limit was crossed: tell its consumer (no lock held) */
static void limit_event(struct mroce_srq *srq)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

int mroce_srq_ofl_limit(struct mroce_srq *srq)
{
	u32 armed;

	spin_lock_bh(&srq->lock);
	armed = srq->limit;
	srq->limit = 0;			/* one event per arming */
	spin_unlock_bh(&srq->lock);
	if (!armed)
		return -EALREADY;
	limit_event(srq);
	return 0;
}

int mroce_srq_take(struct mroce_srq *srq, struct mroce_rwqe *r)
{
	struct mre_ring *ring = &srq->q.r;
	bool event = false;
	int got = 0;
	u32 n;

	spin_lock(&srq->lock);
	/*
	 * Its consumers are every QP on it: a bad producer index is ignored
	 * (counted), as if nothing were posted, until it makes sense again.
	 */
	if (!mroce_wq_published(ring, ring->cons, ring->cons, &n))
		mroce_counter_inc(to_mroce_dev(srq->ibsrq.device),
				  MROCE_CNT_WQ_BAD_INDEX);
	if (n) {
		got = mroce_rwqe_take(mre_ring_entry(ring, ring->cons), r,
				      srq->max_sge) ? 1 : -1;
		mre_ring_release(ring, ring->cons + 1);
		if (srq->limit && ring->prod - ring->cons < srq->limit) {
			srq->limit = 0;		/* one event per arming */
			event = true;
		}
	}
	spin_unlock(&srq->lock);
	if (event)
		limit_event(srq);
	return got;
}
