/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The responder: what the peer's requests do here. Placement of WRITE and
 * SEND payloads (straight into the MR, or into the receive the packet
 * names), the checks and execution of READ and ATOMIC requests, the READ
 * response's data, receive completions; beside them the receive queue
 * (the QP's own RQ, or the claims it holds on its SRQ) and the copy
 * between SGE lists and buffers.
 *
 * Receive numbers: receive @rsn of a stream is RQ index rq_base + rsn, or
 * claim slot rsn % MROCE_SRQ_CLAIMS on an SRQ. A receive is taken (copied
 * and validated, srq.h's mroce_rwqe_take()) when the first packet that
 * needs it arrives, and completes in order (mroce_rq_done()). The peer
 * names the receive (@rsn) and is not trusted with it: a packet for a
 * receive before the head (completed) is refused with REM_INV_REQ, one
 * past the window (the RQ's size; MROCE_SRQ_CLAIMS on an SRQ) with RNR, a
 * completion of any receive but the head ends the QP (rq_bad_rsn).
 *
 * Locks: qp->lock held by every function here (the engine callbacks take
 * it), under the peer's lock for RC and UC.
 */
#ifndef MROCE_RESP_H
#define MROCE_RESP_H

#include "engine.h"

struct mroce_batch;
struct mroce_cqe;
struct mroce_qp;
struct mroce_rwqe;
struct mroce_sge;

/* mre_ops: placement of a WRITE or SEND packet (MRE_SYN_*) */
int mroce_resp_place(struct mre_stream *s, const struct mre_place *p,
		     const u8 *data);
/* mre_ops.check, .atomic, .recv_done */
int mroce_resp_check(struct mre_stream *s, u8 op, u32 rkey, u64 raddr,
		     u32 len);
int mroce_resp_atomic(struct mre_stream *s, const struct mre_atomic *a,
		      u64 *orig);
/* mre_ops.atomic_write */
int mroce_resp_atomic_write(struct mre_stream *s, u32 rkey, u64 raddr,
			    u64 value);
void mroce_resp_recv_done(struct mre_stream *s,
			  const struct mre_recv_done *rd);
/* the data of a READ response packet into @dst; MRE_SYN_REM_ACCESS: MR gone */
int mroce_resp_read(struct mroce_qp *qp, const struct mre_xmit *x, u8 *dst);

/* the next receive (the head), for a UD datagram, or NULL */
struct mroce_rwqe *mroce_rq_next(struct mroce_qp *qp, struct mroce_batch *b);
/* receive @r is complete with @cqe (its wr_id filled in here) */
void mroce_rq_done(struct mroce_qp *qp, struct mroce_rwqe *r,
		   const struct mroce_cqe *cqe, bool solicited,
		   struct mroce_batch *b);
/* complete every receive (posted or claimed) with WR_FLUSH_ERR */
void mroce_resp_flush(struct mroce_qp *qp, struct mroce_batch *b);

/* copy between @buf and byte @off of an SGE list; -EFAULT on a bad key */
int mroce_sge_copy(struct mroce_qp *qp, const struct mroce_sge *sge, u32 n,
		   u32 off, void *buf, u32 len, bool to_sge);

#endif /* MROCE_RESP_H */
