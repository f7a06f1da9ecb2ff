/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared receive queues. The SRQ's ring is filled by the provider (or
 * mroce_post_srq_recv()); a QP claims a receive from it when the first
 * packet of a message for a new receive arrives, copies it into one of its
 * claim slots and releases the ring slot at once (the SRQ's consumer index
 * counts claimed receives). The limit event fires when a claim leaves fewer
 * than srq_limit receives in the SRQ.
 */
#ifndef MROCE_SRQ_H
#define MROCE_SRQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "queue.h"

struct mroce_batch;
struct mroce_qp;
struct mroce_rwqe;

struct mroce_srq {
	struct ib_srq ibsrq;
	struct mroce_queue q;
	spinlock_t lock;	/* consumer side: claims, limit */
	spinlock_t post_lock;	/* kernel SRQs: producers */
	u32 max_sge;
	u32 limit;		/* armed when nonzero */
	u32 id;
};

static inline struct mroce_srq *to_mroce_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct mroce_srq, ibsrq);
}

int mroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int mroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int mroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int mroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int mroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad);

/* qp->lock held: the receive claimed for @rsn (claiming one if needed) */
struct mroce_rwqe *mroce_srq_claim(struct mroce_qp *qp, u32 rsn,
				   struct mroce_batch *b);
/* qp->lock held: the claim @r is complete */
void mroce_srq_release(struct mroce_qp *qp, struct mroce_rwqe *r);
/* qp->lock held: complete every claim in progress with WR_FLUSH_ERR */
void mroce_srq_flush_claims(struct mroce_qp *qp, struct mroce_batch *b);

#endif /* MROCE_SRQ_H */
