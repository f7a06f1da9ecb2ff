/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The completer: how a QP ends in error and what it completes then. The
 * engine failing a stream (mre_ops.stream_error) or a bad WQE
 * (mroce_qp_set_error(), qp.h) puts the QP in ERR at once; the error work
 * here, in process context, detaches it from the engine and flushes every
 * outstanding WQE and receive (the queues' own loops: req.c, resp.c), the
 * first send WQE with the error's own status, then raises the QP's async
 * event. CQEs themselves are posted by the CQ (cq.c); the roles build them.
 */
#ifndef MROCE_COMP_H
#define MROCE_COMP_H

#include <rdma/ib_verbs.h>

#include "engine.h"

struct mroce_batch;
struct mroce_qp;
struct work_struct;

/* mre_ops.stream_error: the engine can take the stream no further */
void mroce_comp_stream_error(struct mre_stream *s, enum mre_status st);
/* qp->err_work (process context, takes qp->mutex) */
void mroce_comp_err_work(struct work_struct *work);
/* qp->sqd_work: the SQ drained in SQD */
void mroce_comp_sqd_work(struct work_struct *work);
/* qp->mutex held: the stream leaves the engine (the peer stays the QP's) */
void mroce_comp_detach(struct mroce_qp *qp, struct mroce_batch *b);
/* qp->mutex held: detach from the engine, then complete all, with @first */
void mroce_comp_stop(struct mroce_qp *qp, enum ib_wc_status first,
		     struct mroce_batch *b);
/* qp->lock held, the stream detached: complete everything outstanding */
void mroce_comp_flush(struct mroce_qp *qp, enum ib_wc_status first,
		      struct mroce_batch *b);
/*
 * qp->mutex held, the QP in ERR and flushed: is IB_EVENT_QP_LAST_WQE_REACHED
 * due (a QP on an SRQ, once per entry into ERR)? The caller raises it after
 * letting go of the mutex.
 */
bool mroce_comp_last_wqe_due(struct mroce_qp *qp);
/* an affiliated async event of @qp to its consumer */
void mroce_qp_event(struct mroce_qp *qp, enum ib_event_type type);

#endif /* MROCE_COMP_H */
