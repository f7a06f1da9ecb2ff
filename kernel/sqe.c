// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Send WQEs taken from the ring (see sqe.h).
 */
#include <rdma/mroce-wr.h>

#include "mr.h"
#include "qp.h"
#include "sqe.h"
#include "wq.h"
#include "mroce.h"

/* IB_WR_REG_MR: kernel QPs only, run in SQ order (mr.h) */
static const struct mroce_wr_op reg_mr_op = {
	.qp_types = MROCE_QPT_RC,
	.flags = MROCE_WR_LOCAL,
	.wc_opcode = IB_WC_REG_MR,
};

const struct mroce_wr_op *mroce_qp_wr_op(const struct mroce_qp *qp,
					 u32 opcode)
{
	const struct mroce_wr_op *o = mroce_wr_op(opcode);

	if (opcode == IB_WR_REG_MR && !qp->user)
		return &reg_mr_op;
	/* kernel ULPs have no MW binding WR */
	if (o && o->flags & MROCE_WR_USER && !qp->user)
		return NULL;
	return o;
}

/* the sum of the SGEs' lengths, into *@total, or a local length error */
static u8 sges_len(const struct mroce_sge *sge, u32 n, u32 *total)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < n; i++)
		sum += sge[i].length;
	if (sum > MROCE_MAX_MSG)
		return IB_WC_LOC_LEN_ERR;
	*total = sum;
	return IB_WC_SUCCESS;
}

/* every SGE's key names memory of the QP's PD it may use for @access */
u8 mroce_sqe_keys(struct mroce_qp *qp, const struct mroce_sge *sge, u32 n,
		   int access)
{
	u32 i;

	for (i = 0; i < n; i++) {
		struct mroce_mr *mr;

		if (!sge[i].length)
			continue;
		mr = mroce_mr_get(mroce_qp_dev(qp), qp->ibqp.pd, sge[i].lkey,
				  sge[i].addr, sge[i].length, access, false);
		if (!mr)
			return IB_WC_LOC_PROT_ERR;
		mroce_mr_put(mr);
	}
	return IB_WC_SUCCESS;
}

/*
 * Is a local WQE (a registration, an invalidation, a bind) among those
 * before SQ index @idx that have not completed? Then the keys @idx's SGEs
 * name are checked only once that one ran: REG_MR then a WQE that uses the
 * new key is a legal chain, and so is LOCAL_INV then one that must fail.
 */
static bool local_before(const struct mroce_qp *qp, u32 idx)
{
	return qp->sq_local_end - qp->sq_done - 1 < idx - qp->sq_done;
}

/* the data of a message WQE: inline bytes, or its SGEs, checked */
static void take_data(struct mroce_qp *qp, u32 idx, const struct mroce_sqe *e,
		      struct mroce_swqe *w, const struct mroce_wr_op *o)
{
	u32 room = qp->swq_stride - sizeof(*w), n = READ_ONCE(e->num_sge);
	u32 len = 0;

	if (o->flags & MROCE_WR_VALUE) {	/* the value is compare_add */
		w->length = o->len;
		return;
	}
	if (w->flags & IB_SEND_INLINE && o->flags & MROCE_WR_INLINE) {
		len = READ_ONCE(e->length);
		if (!mroce_wq_take_inline(w->inl, room, e->sge, len,
					  qp->max_inline)) {
			w->status = IB_WC_LOC_LEN_ERR;
			return;
		}
		w->length = len;
		return;
	}
	w->flags &= ~IB_SEND_INLINE;
	if (n > qp->max_send_sge) {
		w->status = IB_WC_LOC_LEN_ERR;
		return;
	}
	memcpy(w->sge, e->sge, n * sizeof(*w->sge));
	w->num_sge = n;
	w->status = sges_len(w->sge, n, &len);
	w->length = len;
	if (w->status)
		return;
	w->keys_later = local_before(qp, idx);
	if (!w->keys_later)
		w->status = mroce_sqe_keys(qp, w->sge, n, o->local_access);
	if (w->status)
		return;
	if (o->len && len != o->len)
		w->status = IB_WC_LOC_LEN_ERR;
	else if (!mroce_qp_is_conn(qp) &&
		 len > ib_mtu_enum_to_int(qp->attr.path_mtu))
		w->status = IB_WC_LOC_LEN_ERR;
}

void mroce_sqe_take(struct mroce_qp *qp, u32 idx)
{
	const struct mroce_sqe *e = mre_ring_entry(&qp->sq.r, idx);
	struct mroce_swqe *w = mroce_swqe(qp, idx);
	const struct mroce_wr_op *o;

	w->wr_id = READ_ONCE(e->wr_id);
	w->opcode = READ_ONCE(e->opcode);
	w->flags = READ_ONCE(e->send_flags);
	w->imm = READ_ONCE(e->imm_data);
	w->raddr = READ_ONCE(e->remote_addr);
	w->rkey = READ_ONCE(e->rkey);
	w->compare_add = READ_ONCE(e->compare_add);
	w->swap = READ_ONCE(e->swap);
	w->ah = READ_ONCE(e->ah);
	w->remote_qpn = READ_ONCE(e->remote_qpn);
	w->qkey = READ_ONCE(e->remote_qkey);
	w->status = IB_WC_SUCCESS;
	w->keys_later = false;
	w->num_sge = 0;
	w->length = 0;

	o = mroce_qp_wr_op(qp, w->opcode);
	if (!o || !(o->qp_types & mroce_qp_type_bit(qp))) {
		w->status = IB_WC_LOC_QP_OP_ERR;
		return;
	}
	/* REG_MR: the key in rkey, the access in bind_access */
	if (w->opcode == IB_WR_BIND_MW || w->opcode == IB_WR_REG_MR) {
		w->bind_lkey = READ_ONCE(e->bind_lkey);
		w->bind_access = READ_ONCE(e->bind_access);
		w->bind_mw = READ_ONCE(e->bind_mw_rkey);
	}
	if (o->flags & MROCE_WR_LOCAL)
		qp->sq_local_end = idx + 1;	/* LOCAL_INV: imm is the rkey */
	else
		take_data(qp, idx, e, w, o);
}
