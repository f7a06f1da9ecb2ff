// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The completer (see comp.h).
 */
#include <linux/workqueue.h>

#include "batch.h"
#include "comp.h"
#include "cq.h"
#include "peer.h"
#include "qp.h"
#include "req.h"
#include "resp.h"
#include "mroce.h"

void mroce_qp_event(struct mroce_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

void mroce_comp_sqd_work(struct work_struct *work)
{
	mroce_qp_event(container_of(work, struct mroce_qp, sqd_work),
		       IB_EVENT_SQ_DRAINED);
}

void mroce_comp_stream_error(struct mre_stream *s, enum mre_status st)
{
	struct mroce_qp *qp = mroce_qp_of_stream(s);

	spin_lock(&qp->lock);
	if (qp->state != IB_QPS_ERR)
		mroce_qp_set_error(qp, st);
	spin_unlock(&qp->lock);
}

void mroce_comp_flush(struct mroce_qp *qp, enum ib_wc_status first,
		      struct mroce_batch *b)
{
	lockdep_assert_held(&qp->lock);
	mroce_req_flush(qp, first, b);
	mroce_resp_flush(qp, b);
}

void mroce_comp_detach(struct mroce_qp *qp, struct mroce_batch *b)
{
	struct mroce_peer *peer = qp->peer;

	if (peer) {
		mroce_peer_lock(peer, b);
		spin_lock(&qp->lock);
		mroce_peer_detach(peer, &qp->s);
		spin_unlock(&qp->lock);
		mroce_peer_unlock(peer);
	}
}

void mroce_comp_stop(struct mroce_qp *qp, enum ib_wc_status first,
		     struct mroce_batch *b)
{
	mroce_comp_detach(qp, b);
	spin_lock_bh(&qp->lock);
	mroce_comp_flush(qp, first, b);
	spin_unlock_bh(&qp->lock);
}

/* how the error the QP is in completes its first WQE, and its event */
static enum ib_wc_status err_first(u8 st, enum ib_event_type *ev)
{
	*ev = 0;
	switch (st) {
	case MRE_ST_RETRY_EXC:
	case MRE_ST_RNR_RETRY_EXC:
		return mroce_wc_status(st);
	case MRE_ST_LOC_ACCESS:
		*ev = IB_EVENT_QP_ACCESS_ERR;
		break;
	case MRE_ST_LOC_LEN:
		*ev = IB_EVENT_QP_REQ_ERR;
		break;
	case MROCE_ST_FATAL:
		*ev = IB_EVENT_QP_FATAL;
		break;
	}
	/* a local error completed its own WQE already: the rest flush */
	return IB_WC_WR_FLUSH_ERR;
}

/*
 * A QP on an SRQ takes none of its WQEs once it is in ERR and flushed: IB's
 * Last WQE Reached, which a consumer waits for before it destroys such a
 * QP (its drain cannot post to the SRQ). Cleared at RESET.
 */
bool mroce_comp_last_wqe_due(struct mroce_qp *qp)
{
	lockdep_assert_held(&qp->mutex);
	if (!qp->ibqp.srq || qp->last_wqe)
		return false;
	qp->last_wqe = true;
	return true;
}

void mroce_comp_err_work(struct work_struct *work)
{
	struct mroce_qp *qp = container_of(work, struct mroce_qp, err_work);
	enum ib_wc_status first;
	enum ib_event_type ev;
	struct mroce_batch b;
	bool last;

	mutex_lock(&qp->mutex);
	if (qp->state != IB_QPS_ERR) {		/* reset or reused meanwhile */
		mutex_unlock(&qp->mutex);
		return;
	}
	first = err_first(qp->err_status, &ev);
	mroce_batch_init(&b);
	mroce_comp_stop(qp, first, &b);
	mroce_batch_flush(&b);
	last = mroce_comp_last_wqe_due(qp);
	mutex_unlock(&qp->mutex);
	mroce_dbg_qp(qp, "error %u, flushed\n", qp->err_status);
	if (ev)
		mroce_qp_event(qp, ev);
	if (last)
		mroce_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}
