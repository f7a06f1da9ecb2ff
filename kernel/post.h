/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Posting: ib_post_send() and ib_post_recv(). A kernel QP's work requests
 * are written into its rings here, as the provider writes a user QP's, and
 * checked against the same opcode table (mroce-wr.h); for a user QP the
 * call is the doorbell. A QP in error completes what is posted to it at
 * once, once the engine has let go of it (ib_drain_qp() relies on it).
 */
#ifndef MROCE_POST_H
#define MROCE_POST_H

#include <rdma/ib_verbs.h>

int mroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad);
int mroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad);
/* qp->kick_work: the doorbell of a post made with interrupts off */
void mroce_post_kick_work(struct work_struct *work);

#endif /* MROCE_POST_H */
