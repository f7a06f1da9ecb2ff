/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Completion queues: a ring the kernel fills and the consumer drains (the
 * provider in userspace, or mroce_poll_cq() for kernel consumers).
 *
 * Producers (the datapath, flushes) call mroce_cq_post() under cq->lock's
 * protection, typically with a peer or QP lock held. It never calls the
 * consumer's completion handler itself: a handler may post work and so
 * re-enter the datapath. It records the CQ in the caller's batch instead,
 * and mroce_batch_flush() has mroce_cq_notify() call the handler once
 * every lock is dropped.
 *
 * Completion vectors: a device has one per online CPU (comp_vectors), and
 * a CQ's vector names the CPU its consumer's handler runs on, as a NIC's
 * interrupt vector would: vector i is the i-th online CPU, spread as
 * cpumask_local_spread() spreads interrupts. A kernel CQ's handler made
 * due on another CPU is moved there (a high-priority work item, bottom
 * halves off around the handler, so a handler that schedules irq_poll or
 * work has it run on that CPU). A user CQ's handler only signals its
 * completion channel and runs where the completion was made: the waiting
 * thread runs where the scheduler puts it.
 */
#ifndef MROCE_CQ_H
#define MROCE_CQ_H

#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/mroce-abi.h>

#include "engine.h"
#include "queue.h"

struct mroce_batch;

struct mroce_cq {
	struct ib_cq ibcq;
	struct mroce_queue q;
	spinlock_t lock;	/* q, prod, notify, overflow, batched, shared */
	u8 notify;		/* IB_CQ_SOLICITED or IB_CQ_NEXT_COMP armed; 0 */
	bool overflow;		/* reported once (IB_EVENT_CQ_ERR) */
	bool batched;		/* on a batch's list: batch_next is that list's */
	u32 notify_shared;	/* notifications left to one on a batch already */
	u32 id;
	struct mroce_cq *batch_next;	/* on a batch's list while a notify is due */
	int cpu;		/* the CPU of its completion vector */
	struct work_struct notify_work;	/* the handler, on @cpu (kernel CQs) */
};

static inline struct mroce_cq *to_mroce_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct mroce_cq, ibcq);
}

int mroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata);
int mroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int mroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int mroce_poll_cq(struct ib_cq *ibcq, int n, struct ib_wc *wc);
int mroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
/*
 * The offload's events for @cq (include/mroce/offload.h): its completion
 * interrupt calls the handler if the CQ is armed, and disarms it; its CQ
 * error raises IB_EVENT_CQ_ERR once. 0, or -EALREADY (not armed; reported
 * before). Process context or softirq.
 */
int mroce_cq_ofl_comp(struct mroce_cq *cq);
int mroce_cq_ofl_error(struct mroce_cq *cq);
/* @cq, taken from a batch's list: call its handler (mroce_batch_flush()) */
void mroce_cq_batch_notify(struct mroce_cq *cq);
const struct cpumask *mroce_get_vector_affinity(struct ib_device *ibdev,
						int comp_vector);

/* the work queue that runs handlers on their vector's CPU (module load) */
int mroce_cq_init(void);
void mroce_cq_exit(void);

/* call @cq's completion handler, on its vector's CPU; no locks held */
void mroce_cq_notify(struct mroce_cq *cq);

/* the completion status of an engine status */
enum ib_wc_status mroce_wc_status(enum mre_status st);

/*
 * Add @cqe, a completion of @qp (its qp_num and port are filled in here;
 * for a kernel CQ, @qp is what ib_wc.qp will point to). A notification
 * due is queued on @b. Returns false when the CQ overflowed and the entry
 * was lost: counted (cq_overflow), and the CQ's consumer got
 * IB_EVENT_CQ_ERR (once).
 */
bool mroce_cq_post(struct mroce_cq *cq, const struct mroce_cqe *cqe,
		   struct ib_qp *qp, bool solicited, struct mroce_batch *b);

#endif /* MROCE_CQ_H */
