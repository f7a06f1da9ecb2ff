/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared receive queues. The SRQ's ring is filled by the provider (or
 * mroce_post_srq_recv()); a QP takes a receive from it when the first
 * packet of a message for a new receive arrives (mroce_srq_take(): the
 * responder keeps the copy in one of the QP's claim slots, resp.c) and the
 * ring slot is released at once (the SRQ's consumer index counts claimed
 * receives). The limit event fires when a claim leaves fewer than
 * srq_limit receives in the SRQ.
 */
#ifndef MROCE_SRQ_H
#define MROCE_SRQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "queue.h"

struct mroce_rqe;
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

/*
 * Copy a receive ring entry into @r and validate it; false: unusable (@r
 * is marked bad: the first message for it completes it with
 * IB_WC_LOC_QP_OP_ERR and ends the QP, resp.c).
 */
bool mroce_rwqe_take(const struct mroce_rqe *e, struct mroce_rwqe *r,
		     u32 max_sge);
/*
 * The next receive of @srq into @r (validated): 1, or -1 when it was
 * unusable (@r's wr_id is set: it completes in error), 0 when the SRQ is
 * empty. May raise the limit event. Any context.
 */
int mroce_srq_take(struct mroce_srq *srq, struct mroce_rwqe *r);
/*
 * The offload saw @srq's armed limit crossed: disarm it and raise
 * IB_EVENT_SRQ_LIMIT_REACHED. 0, or -EALREADY when it is not armed.
 * Process context or softirq.
 */
int mroce_srq_ofl_limit(struct mroce_srq *srq);

#endif /* MROCE_SRQ_H */
