/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Queue pairs: the verbs objects and their life cycle (qp.c). The roles of
 * the datapath work on them: the requester (req.c: the SQ, WQE fetch and
 * send completion), the responder (resp.c: the RQ, placement, receive
 * completion), the completer (comp.c: errors and flushing), kernel posting
 * (post.c), UD (ud.c).
 *
 * Queues. The SQ and RQ are rings (queue.h) filled by the provider (or by
 * mroce_post_send()/mroce_post_recv() for kernel QPs). The kernel copies
 * each WQE into a private shadow entry and validates it there before use
 * (sq_taken / rq_taken count the copied ones); completions free ring slots
 * in order (sq_done / rq_done, published as the rings' consumer index;
 * the indices a ring's producer writes are checked against these: wq.h). A
 * QP on an SRQ claims a receive from it for each message and keeps the copy
 * in one of MROCE_SRQ_CLAIMS slots until the receive completes. Receives
 * complete in order, whatever the peer's packets say (resp.c).
 *
 * The engine (RC and UC). From RTR the QP's stream is attached to the peer's
 * connection; message msn is SQ index sq_base + msn, receive rsn is RQ
 * index rq_base + rsn (both bases are the done counts at attach). The
 * engine pulls WQEs (mre_ops.sq_get, req.c) when it has room; the provider
 * rings the doorbell only when the kernel asked for it
 * (MRE_RING_F_DB_NEEDED, see ring.h), i.e. when the engine found the SQ
 * empty.
 *
 * Locks, outermost first: qp->mutex (modify, destroy) -> peer->lock (the
 * engine; RC, UC) -> qp->lock (queues' consumer side, shadows, state) ->
 * srq->lock / cq->lock. Producer locks of kernel QPs (sq_post_lock,
 * rq_post_lock) are taken alone.
 */
#ifndef MROCE_QP_H
#define MROCE_QP_H

#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/mroce-abi.h>
#include <rdma/mroce-wr.h>

#include "engine.h"
#include "queue.h"
#include "ring.h"
#include "mroce.h"

struct mroce_batch;
struct mroce_peer;
struct mroce_srq;
struct mroce_ah;
struct mroce_dev;

#define MROCE_MAX_QP_WR		4096
#define MROCE_MAX_SGE		16
#define MROCE_MAX_INLINE	256
#define MROCE_MAX_RD_ATOMIC	MRE_RD_SLOTS
/*
 * Receives a QP on an SRQ may hold claimed and not yet complete: the
 * window [head, head + MROCE_SRQ_CLAIMS) of its receive numbers (head: the
 * next to complete). A packet for a receive past it is refused (RNR,
 * resent later, counted as srq_window), so a peer can pin at most this
 * many of the SRQ's receives per QP.
 */
#define MROCE_SRQ_CLAIMS	16

/* qp->err_status values of the glue's own, past enum mre_status */
#define MROCE_ST_FATAL		MRE_ST_MAX	/* a ring or WQE the QP's owner broke */

/*
 * The kernel's validated copy of a send WQE. BIND_MW: the window is
 * [raddr, raddr + compare_add), rkey the MW's new rkey; LOCAL_INV and
 * SEND_WITH_INV: imm is the rkey to invalidate (host order).
 */
struct mroce_swqe {
	u64 wr_id;
	u32 opcode;		/* IB_WR_* */
	u32 flags;		/* IB_SEND_* */
	u32 length;		/* payload bytes */
	u32 imm;		/* big-endian, as posted */
	u64 raddr;
	u32 rkey;
	u32 num_sge;		/* 0 with IB_SEND_INLINE */
	u64 compare_add;
	u64 swap;
	union {
		struct {
			u32 ah;		/* UD */
			u32 remote_qpn;	/* UD */
			u32 qkey;	/* UD */
		};
		struct {
			u32 bind_lkey;	/* BIND_MW: the MR */
			u32 bind_access; /* BIND_MW: IB_ACCESS_* */
			u32 bind_mw;	/* BIND_MW: the MW's rkey */
		};
	};
	u8 status;		/* IB_WC_SUCCESS or the local error it ends with */
	bool keys_later;	/* SGE keys checked once the local WQE before ran */
	union {
		struct mroce_sge sge[0];
		u8 inl[0];
	};
};

/* the kernel's copy of a receive WQE */
struct mroce_rwqe {
	u64 wr_id;
	u32 num_sge;
	u32 length;		/* sum of the SGEs */
	u32 rsn;		/* SRQ claims: which receive of the stream */
	u8 used;		/* SRQ claims: slot taken */
	u8 bad;			/* unusable (too many SGEs, too long): ends in error */
	struct mroce_sge sge[];
};

/* where an RC or UC QP sends to, from its address vector */
struct mroce_av {
	struct sockaddr_storage saddr;	/* ours (the source GID) */
	struct sockaddr_storage daddr;	/* the peer's (destination GID) */
};

struct mroce_qp {
	struct ib_qp ibqp;
	struct mre_stream s;		/* RC, UC: attached from RTR to INIT/RESET/ERR */
	struct mroce_peer *peer;	/* RC, UC: from RTR; referenced */
	struct mutex mutex;
	spinlock_t lock;
	enum ib_qp_state state;		/* lock (written also under mutex) */
	bool user;

	struct mroce_queue sq;
	void *swq;			/* shadow: sq size entries of swq_stride */
	u32 swq_stride;
	u32 sq_taken;
	u32 sq_done;
	u32 sq_base;
	u32 sq_local_end;		/* 1 + the index of the last local WQE taken */
	spinlock_t sq_post_lock;

	struct mroce_queue rq;		/* not on an SRQ */
	void *rwq;			/* shadow (or SRQ claims) */
	u32 rwq_stride;
	u32 rq_taken;
	u32 rq_done;
	u32 rq_base;
	spinlock_t rq_post_lock;
	struct mroce_srq *srq;

	struct ib_qp_attr attr;		/* as query_qp reports it */
	struct mroce_av av;		/* RC, UC */
	u32 max_inline;
	u32 max_send_sge;
	u32 max_recv_sge;
	u16 ud_sport;			/* UD: source port */
	bool sq_sig_all;
	bool sq_drained_event;		/* SQD: SQ_DRAINED due when drained */
	bool last_wqe;			/* mutex: ERR's LAST_WQE_REACHED raised */
	struct work_struct sqd_work;	/* raises SQ_DRAINED */
	struct work_struct kick_work;	/* a doorbell rung with IRQs off */
	struct work_struct err_work;	/* engine failed the stream */
	u8 err_status;			/* enum mre_status that failed it */
	struct list_head mcast;		/* UD: its groups (mcast.c) */
};

static inline struct mroce_qp *to_mroce_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct mroce_qp, ibqp);
}

static inline struct mroce_qp *mroce_qp_of_stream(struct mre_stream *s)
{
	return container_of(s, struct mroce_qp, s);
}

static inline struct mroce_swqe *mroce_swqe(struct mroce_qp *qp, u32 idx)
{
	return qp->swq + (size_t)(idx & (qp->sq.r.size - 1)) * qp->swq_stride;
}

static inline struct mroce_dev *mroce_qp_dev(const struct mroce_qp *qp)
{
	return to_mroce_dev(qp->ibqp.device);
}

static inline bool mroce_qp_is_rc(const struct mroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC;
}

/* RC and UC: a stream on the peer's connection (UC shares RC's paths) */
static inline bool mroce_qp_is_conn(const struct mroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC;
}

/* the QP's type as the opcode table (mroce-wr.h) names it */
static inline u8 mroce_qp_type_bit(const struct mroce_qp *qp)
{
	return mroce_wr_qpt(qp->ibqp.qp_type);	/* IB_QPT_* = IB_UVERBS_QPT_* */
}

/*
 * qp->lock held: the QP is in error for @st (enum mre_status): it takes no
 * new work, the provider is told through the SQ ring's flags, and the
 * completer's work (comp.c) detaches it and flushes what is outstanding.
 */
static inline void mroce_qp_set_error(struct mroce_qp *qp, u8 st)
{
	lockdep_assert_held(&qp->lock);
	qp->err_status = st;
	qp->state = IB_QPS_ERR;
	mre_ring_store(&qp->sq.r.hdr->flags, MRE_RING_F_ERROR);
	schedule_work(&qp->err_work);
}

#define mroce_dbg_qp(qp, fmt, ...)					\
	ibdev_dbg((qp)->ibqp.device, "qp %u %s: " fmt, (qp)->ibqp.qp_num, \
		  __func__, ##__VA_ARGS__)

/*
 * qp->lock held: the producer index of one of the QP's rings is bad
 * (wq.h): none of its WQEs can be trusted, so the QP fails (IB_EVENT_QP_FATAL,
 * what a HCA raises for a corrupt work queue), counted once per QP error.
 */
static inline void mroce_qp_ring_broken(struct mroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if (qp->state == IB_QPS_ERR)
		return;
	mroce_counter_inc(mroce_qp_dev(qp), MROCE_CNT_WQ_BAD_INDEX);
	mroce_dbg_qp(qp, "a ring's producer index is bad\n");
	mroce_qp_set_error(qp, MROCE_ST_FATAL);
}

/* ib_device_ops */
int mroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int mroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int mroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int mroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);

/* find a QP by number for the receive path (RCU held); no reference */
static inline struct mroce_qp *mroce_qp_lookup(struct mroce_dev *mdev, u32 qpn)
{
	return xa_load(&mdev->qps, qpn);
}

#endif /* MROCE_QP_H */
