// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Posting work requests (see post.h).
 */
#include <linux/overflow.h>
#include <rdma/mroce-wr.h>

#include "ah.h"
#include "batch.h"
#include "comp.h"
#include "mr.h"
#include "oflcmd.h"
#include "post.h"
#include "qp.h"
#include "req.h"
#include "sqe.h"
#include "mroce.h"

/* what a kernel WR may not be on @qp: -EOPNOTSUPP unknown, -EINVAL not here */
static int check_opcode(const struct mroce_qp *qp, u32 opcode)
{
	const struct mroce_wr_op *o = mroce_qp_wr_op(qp, opcode);

	if (!o)
		return -EOPNOTSUPP;	/* no kernel verb binds an MW */
	return o->qp_types & mroce_qp_type_bit(qp) ? 0 : -EINVAL;
}

/*
 * IB_WR_REG_MR: the key (the MR's index, the ULP's low byte) and access
 * it takes when it runs; the pages are what map_mr_sg gave the MR.
 */
static int sqe_reg_mr(struct mroce_sqe *e, const struct ib_reg_wr *wr)
{
	if (wr->key >> 8 != to_mroce_mr(wr->mr)->id)
		return -EINVAL;
	e->rkey = wr->key;
	e->bind_access = wr->access;
	return 0;
}

/* the WR's data: inline bytes copied now, or its SGEs */
static int sqe_data(struct mroce_qp *qp, struct mroce_sqe *e,
		    const struct ib_send_wr *wr)
{
	u32 i, len = 0;

	if (wr->send_flags & IB_SEND_INLINE) {
		u8 *p = (u8 *)e->sge;

		for (i = 0; i < wr->num_sge; i++) {
			u32 end;

			/* a huge length must not wrap the sum under the limit */
			if (check_add_overflow(len, wr->sg_list[i].length, &end) ||
			    end > qp->max_inline)
				return -EINVAL;
			memcpy(p + len, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			len = end;
		}
		e->length = len;
		return 0;
	}
	if (wr->num_sge > qp->max_send_sge)
		return -EINVAL;
	e->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		e->sge[i].addr = wr->sg_list[i].addr;
		e->sge[i].length = wr->sg_list[i].length;
		e->sge[i].lkey = wr->sg_list[i].lkey;
	}
	return 0;
}

static int sqe_from_wr(struct mroce_qp *qp, struct mroce_sqe *e,
		       const struct ib_send_wr *wr)
{
	int err = check_opcode(qp, wr->opcode);
	const struct mroce_wr_op *o;

	if (err)
		return err;
	o = mroce_qp_wr_op(qp, wr->opcode);
	memset(e, 0, sizeof(*e));
	e->wr_id = wr->wr_id;
	e->opcode = wr->opcode;
	e->send_flags = wr->send_flags;
	if (wr->opcode == IB_WR_REG_MR)
		return sqe_reg_mr(e, reg_wr(wr));
	/* the rkey to invalidate shares imm_data's place, in host order */
	e->imm_data = o->flags & MROCE_WR_INV ? wr->ex.invalidate_rkey :
			(__force u32)wr->ex.imm_data;
	if (o->flags & MROCE_WR_RESP && o->aop) {
		e->remote_addr = atomic_wr(wr)->remote_addr;
		e->rkey = atomic_wr(wr)->rkey;
		e->compare_add = atomic_wr(wr)->compare_add;
		e->swap = atomic_wr(wr)->swap;
	} else if (o->flags & MROCE_WR_REMOTE) {
		e->remote_addr = rdma_wr(wr)->remote_addr;
		e->rkey = rdma_wr(wr)->rkey;
	}
	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI) {
		e->ah = to_mroce_ah(ud_wr(wr)->ah)->id;
		e->remote_qpn = ud_wr(wr)->remote_qpn;
		e->remote_qkey = ud_wr(wr)->remote_qkey;
	}
	if (o->flags & MROCE_WR_LOCAL)
		return 0;		/* LOCAL_INV: no data */
	return sqe_data(qp, e, wr);
}

/* a QP in error: what was posted completes at once, once detached */
static void flush_if_error(struct mroce_qp *qp)
{
	struct mroce_batch b;

	if (qp->state != IB_QPS_ERR)
		return;
	mroce_batch_init(&b);
	spin_lock_bh(&qp->lock);
	if (!qp->s.conn)
		mroce_comp_flush(qp, IB_WC_WR_FLUSH_ERR, &b);
	spin_unlock_bh(&qp->lock);
	mroce_batch_flush(&b);
}

void mroce_post_kick_work(struct work_struct *work)
{
	struct mroce_qp *qp = container_of(work, struct mroce_qp, kick_work);

	mroce_req_kick(qp);
	flush_if_error(qp);
}

/*
 * The doorbell: run what was posted, or flush it if the QP is in error.
 * ib_mad posts to the GSI QP under a spinlock taken with interrupts off;
 * the doorbell takes BH locks and transmits, which needs interrupts on
 * (lockdep: "__local_bh_enable_ip" with IRQs disabled, from rping's
 * connect on the debug kernel). Such a post rings it from a work item.
 */
static void doorbell(struct mroce_qp *qp)
{
	if (static_branch_unlikely(&mroce_ofl_in_use))
		mroce_ofl_sq_doorbell(qp);
	if (irqs_disabled()) {
		schedule_work(&qp->kick_work);
		return;
	}
	mroce_req_kick(qp);
	flush_if_error(qp);
}

int mroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad)
{
	struct mroce_qp *qp = to_mroce_qp(ibqp);
	unsigned long flags;
	int err = 0;

	/* a user QP's WQEs are in its ring: this call is its doorbell */
	if (qp->user) {
		doorbell(qp);
		return 0;
	}
	if (qp->state < IB_QPS_RTS) {
		*bad = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->sq_post_lock, flags);
	for (; wr; wr = wr->next) {
		if (!mre_ring_space(&qp->sq.kp)) {
			err = -ENOMEM;
			break;
		}
		err = sqe_from_wr(qp, mre_ring_next(&qp->sq.kp), wr);
		if (err)
			break;
		mre_ring_publish(&qp->sq.kp, 1);
	}
	spin_unlock_irqrestore(&qp->sq_post_lock, flags);
	if (err)
		*bad = wr;
	doorbell(qp);
	return err;
}

int mroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad)
{
	struct mroce_qp *qp = to_mroce_qp(ibqp);
	unsigned long flags;
	int err = 0;

	if (qp->srq) {
		*bad = wr;
		return -EINVAL;
	}
	if (!qp->user) {
		spin_lock_irqsave(&qp->rq_post_lock, flags);
		for (; wr; wr = wr->next) {
			err = mroce_queue_post_rqe(&qp->rq.kp, wr, qp->max_recv_sge);
			if (err)
				break;
		}
		spin_unlock_irqrestore(&qp->rq_post_lock, flags);
		if (err)
			*bad = wr;
	}
	/* receives are taken when messages arrive; only an error QP flushes */
	if (irqs_disabled())
		schedule_work(&qp->kick_work);
	else
		flush_if_error(qp);
	return err;
}
