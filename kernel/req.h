/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The requester: the send queue and what leaves from it. Taking WQEs from
 * the ring into the QP's shadows (validated there by sqe.c), running local WQEs (memory window binds,
 * fast registrations and invalidations) in SQ order, handing messages to the engine
 * (mre_ops.sq_get), gathering their payload when a packet is built, every
 * packet of a connection out (mre_ops.xmit), READ and ATOMIC responses
 * into our buffers, send completions, and the doorbell.
 *
 * Locks: qp->lock for the SQ's consumer side and shadows; the engine
 * callbacks take it under the peer's lock.
 */
#ifndef MROCE_REQ_H
#define MROCE_REQ_H

#include <rdma/ib_verbs.h>

#include "engine.h"

struct mroce_batch;
struct mroce_qp;

/* mre_ops.xmit: a packet of a connection, header and payload, out */
int mroce_req_xmit(struct mre_conn *c, const struct mre_xmit *x);
/* mre_ops.sq_get: message @msn of the stream, if posted and valid */
bool mroce_req_sq_get(struct mre_stream *s, u32 msn, struct mre_wqe *w);
/* mre_ops.send_done: true when local WQEs behind it ran (more to send) */
bool mroce_req_send_done(struct mre_stream *s, u32 msn, enum mre_status st);
/* mre_ops.place of READ_RESP / ATOMIC_RESP: into the WQE's SGEs */
int mroce_req_place_resp(struct mre_stream *s, const struct mre_place *p,
			 const u8 *data);

/* the doorbell: send WQEs are waiting (RC, UC: to the engine; UD: out now) */
void mroce_req_kick(struct mroce_qp *qp);
/* qp->lock: complete every send WQE, the first with @first, then FLUSH */
void mroce_req_flush(struct mroce_qp *qp, enum ib_wc_status first,
		     struct mroce_batch *b);

#endif /* MROCE_REQ_H */
