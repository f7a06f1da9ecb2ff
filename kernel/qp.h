/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Queue pairs: the verbs state machine and the queues, and the glue that
 * lets the engine read a QP's WQEs and fill its receives and CQs.
 *
 * Queues. The SQ and RQ are rings (queue.h) filled by the provider (or by
 * mroce_post_send()/mroce_post_recv() for kernel QPs). The kernel copies
 * each WQE into a private shadow entry and validates it there before use
 * (sq_taken / rq_taken count the copied ones); completions free ring slots
 * in order (sq_done / rq_done, published as the rings' consumer index). A
 * QP on an SRQ claims a receive from it for each message and keeps the copy
 * in one of MROCE_SRQ_CLAIMS slots until the receive completes.
 *
 * The engine (RC and UC). From RTR the QP's stream is attached to the peer's
 * connection; message msn is SQ index sq_base + msn, receive rsn is RQ
 * index rq_base + rsn (both bases are the done counts at attach). The
 * engine pulls WQEs (mroce_qp_sq_get()) when it has room; the provider
 * rings the doorbell only when the kernel asked for it (MRE_RING_F_DB_NEEDED,
 * see ring.h), i.e. when the engine found the SQ empty.
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

#include "engine.h"
#include "queue.h"

struct mroce_batch;
struct mroce_peer;
struct mroce_srq;
struct mroce_ah;
struct mroce_dev;

#define MROCE_MAX_QP_WR		4096
#define MROCE_MAX_SGE		16
#define MROCE_MAX_INLINE	256
#define MROCE_MAX_RD_ATOMIC	MRE_RD_SLOTS
#define MROCE_SRQ_CLAIMS	64	/* receives in progress per QP on an SRQ */

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
	struct work_struct sqd_work;	/* raises SQ_DRAINED */
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

/* ib_device_ops */
int mroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int mroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int mroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int mroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int mroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad);
int mroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad);

/* find a QP by number for the receive path (RCU held); no reference */
struct mroce_qp *mroce_qp_lookup(struct mroce_dev *mdev, u32 qpn);

/* --- for the engine glue (peer.c) and UD (ud.c); qp->lock held ----------- */

/*
 * The send WQE of message @msn, copied and valid, or NULL. Local WQEs
 * (BIND_MW, LOCAL_INV) are not messages: they run when everything before
 * them has completed (mroce_qp_run_local()) and the engine never sees them.
 */
struct mroce_swqe *mroce_qp_sq_get(struct mroce_qp *qp, u32 msn,
				   struct mroce_batch *b);
/* run (and complete) the local WQEs now at the head of the SQ; true if any */
bool mroce_qp_run_local(struct mroce_qp *qp, struct mroce_batch *b);
/* receive number @rsn of the stream (claimed from the SRQ if need be) */
struct mroce_rwqe *mroce_qp_rq_get(struct mroce_qp *qp, u32 rsn,
				   struct mroce_batch *b);
/* the next receive for a UD datagram */
struct mroce_rwqe *mroce_qp_rq_next(struct mroce_qp *qp,
				    struct mroce_batch *b);
void mroce_qp_send_done(struct mroce_qp *qp, u32 idx, enum ib_wc_status st,
			struct mroce_batch *b);
void mroce_qp_recv_done(struct mroce_qp *qp, struct mroce_rwqe *r,
			const struct mroce_cqe *cqe, bool solicited,
			struct mroce_batch *b);
/* copy a receive ring entry into @r and validate it; false: unusable */
bool mroce_rwqe_take(struct mroce_qp *qp, const struct mroce_rqe *e,
		     struct mroce_rwqe *r, u32 max_sge);
/* the engine's view of the stream, from the QP's attributes */
void mroce_qp_stream_attr(struct mroce_qp *qp, struct mre_stream_attr *sa);
/* the first outstanding send WQE is locally bad: fail the QP (later) */
void mroce_qp_sq_check(struct mroce_qp *qp, struct mroce_batch *b);
/* the engine failed the stream with @st: error state and flush, later */
void mroce_qp_stream_error(struct mroce_qp *qp, enum mre_status st);
/* copy between @buf and byte @off of an SGE list; -EFAULT on a bad key */
int mroce_sge_copy(struct mroce_qp *qp, const struct mroce_sge *sge, u32 n,
		   u32 off, void *buf, u32 len, bool to_sge);

enum ib_wc_status mroce_wc_status(enum mre_status st);

#endif /* MROCE_QP_H */
