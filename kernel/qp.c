// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs (see qp.h).
 */
#include <linux/ipv6.h>
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <linux/vmalloc.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "ah.h"
#include "batch.h"
#include "cq.h"
#include "mcast.h"
#include "mr.h"
#include "peer.h"
#include "qp.h"
#include "srq.h"
#include "ud.h"
#include "verbs.h"
#include "mroce.h"

#define mroce_dbg_qp(qp, fmt, ...)					\
	ibdev_dbg((qp)->ibqp.device, "qp %u %s: " fmt, (qp)->ibqp.qp_num, \
		  __func__, ##__VA_ARGS__)

static bool is_rc(const struct mroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC;
}

/* RC and UC: a stream on the peer's connection (UC shares RC's paths) */
static bool is_conn(const struct mroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC;
}

static struct mroce_dev *qp_dev(const struct mroce_qp *qp)
{
	return to_mroce_dev(qp->ibqp.device);
}

static struct mroce_cq *scq(struct mroce_qp *qp)
{
	return to_mroce_cq(qp->ibqp.send_cq);
}

static struct mroce_cq *rcq(struct mroce_qp *qp)
{
	return to_mroce_cq(qp->ibqp.recv_cq);
}

enum ib_wc_status mroce_wc_status(enum mre_status st)
{
	static const u8 map[MRE_ST_MAX] = {
		[MRE_ST_OK] = IB_WC_SUCCESS,
		[MRE_ST_REM_ACCESS] = IB_WC_REM_ACCESS_ERR,
		[MRE_ST_REM_INV_REQ] = IB_WC_REM_INV_REQ_ERR,
		[MRE_ST_REM_OP] = IB_WC_REM_OP_ERR,
		[MRE_ST_RETRY_EXC] = IB_WC_RETRY_EXC_ERR,
		[MRE_ST_RNR_RETRY_EXC] = IB_WC_RNR_RETRY_EXC_ERR,
		[MRE_ST_LOC_LEN] = IB_WC_LOC_LEN_ERR,
		[MRE_ST_LOC_ACCESS] = IB_WC_LOC_ACCESS_ERR,
		[MRE_ST_FLUSH] = IB_WC_WR_FLUSH_ERR,
	};

	return st < MRE_ST_MAX ? map[st] : IB_WC_GENERAL_ERR;
}

static u32 wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	default:
		return IB_WC_SEND;
	}
}

/* BIND_MW and LOCAL_INV: done here, nothing goes to the peer */
static bool is_local(const struct mroce_swqe *w)
{
	return w->opcode == IB_WR_BIND_MW || w->opcode == IB_WR_LOCAL_INV;
}

/* IB's RNR NAK timer encoding (min_rnr_timer) in nanoseconds */
static u64 rnr_timer_ns(u8 code)
{
	static const u32 us[32] = {
		655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640,
		960, 1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480,
		30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680,
		491520,
	};

	return (u64)us[code & 31] * NSEC_PER_USEC;
}

/* --- lookup --------------------------------------------------------------- */

struct mroce_qp *mroce_qp_lookup(struct mroce_dev *mdev, u32 qpn)
{
	return xa_load(&mdev->qps, qpn);
}

/* --- send queue: copy, validate, complete -------------------------------- */

static u8 check_sges(struct mroce_qp *qp, const struct mroce_sge *sge, u32 n,
		     int access, u32 *total)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		struct mroce_mr *mr;

		sum += sge[i].length;
		if (!sge[i].length)
			continue;
		mr = mroce_mr_get(qp_dev(qp), qp->ibqp.pd, sge[i].lkey,
				  sge[i].addr, sge[i].length, access, false);
		if (!mr)
			return IB_WC_LOC_PROT_ERR;
		mroce_mr_put(mr);
	}
	if (sum > MROCE_MAX_MSG)
		return IB_WC_LOC_LEN_ERR;
	*total = sum;
	return IB_WC_SUCCESS;
}

/*
 * Copy ring entry @idx into its shadow and validate it there; the shadow's
 * status says how it ends if it is bad. Only the copy is used afterwards.
 */
static void sq_take(struct mroce_qp *qp, u32 idx)
{
	const struct mroce_sqe *e = mre_ring_entry(&qp->sq.r, idx);
	struct mroce_swqe *w = mroce_swqe(qp, idx);
	u32 room = qp->swq_stride - sizeof(*w), n, len = 0;
	bool rc = is_rc(qp), conn = is_conn(qp);
	int access = 0;

	w->wr_id = READ_ONCE(e->wr_id);
	w->opcode = READ_ONCE(e->opcode);
	w->flags = READ_ONCE(e->send_flags);
	w->imm = READ_ONCE(e->imm_data);
	w->raddr = READ_ONCE(e->remote_addr);
	w->rkey = READ_ONCE(e->rkey);
	w->compare_add = READ_ONCE(e->compare_add);
	w->swap = READ_ONCE(e->swap);
	w->ah = READ_ONCE(e->ah);
	w->remote_qpn = READ_ONCE(e->remote_qpn);
	w->qkey = READ_ONCE(e->remote_qkey);
	n = READ_ONCE(e->num_sge);
	w->status = IB_WC_SUCCESS;
	w->num_sge = 0;
	w->length = 0;

	switch (w->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		break;
	case IB_WR_SEND_WITH_INV:
		if (!rc)
			goto bad_op;
		break;
	case IB_WR_LOCAL_INV:
		if (!rc)
			goto bad_op;
		return;			/* imm is the rkey; no data */
	case IB_WR_BIND_MW:
		/* kernel ULPs have no MW binding WR */
		if (!rc || !qp->user)
			goto bad_op;
		w->bind_lkey = READ_ONCE(e->bind_lkey);
		w->bind_access = READ_ONCE(e->bind_access);
		w->bind_mw = READ_ONCE(e->bind_mw_rkey);
		return;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		if (!conn)
			goto bad_op;
		break;
	case IB_WR_RDMA_READ:
		if (!rc)
			goto bad_op;
		access = IB_ACCESS_LOCAL_WRITE;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (!rc)
			goto bad_op;
		access = IB_ACCESS_LOCAL_WRITE;
		break;
	default:
		goto bad_op;
	}

	if (w->flags & IB_SEND_INLINE && !access) {
		len = READ_ONCE(e->length);
		if (len > qp->max_inline || len > room) {
			w->status = IB_WC_LOC_LEN_ERR;
			return;
		}
		memcpy(w->inl, e->sge, len);
		w->length = len;
		return;
	}
	w->flags &= ~IB_SEND_INLINE;
	if (n > qp->max_send_sge) {
		w->status = IB_WC_LOC_LEN_ERR;
		return;
	}
	memcpy(w->sge, e->sge, n * sizeof(*w->sge));
	w->num_sge = n;
	w->status = check_sges(qp, w->sge, n, access, &len);
	w->length = len;
	if (w->status)
		return;
	if ((w->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	     w->opcode == IB_WR_ATOMIC_FETCH_AND_ADD) && len != 8)
		w->status = IB_WC_LOC_LEN_ERR;
	else if (!conn && len > ib_mtu_enum_to_int(qp->attr.path_mtu))
		w->status = IB_WC_LOC_LEN_ERR;
	return;

bad_op:
	w->status = IB_WC_LOC_QP_OP_ERR;
}

/* take every WQE published so far; false when there is none past sq_taken */
static bool sq_refresh(struct mroce_qp *qp)
{
	mre_ring_avail(&qp->sq.r);
	while (qp->sq_taken != qp->sq.r.prod)
		sq_take(qp, qp->sq_taken++);
	return qp->sq_taken != qp->sq_done;
}

static enum ib_wc_status run_one_local(struct mroce_qp *qp,
					const struct mroce_swqe *w)
{
	if (w->opcode == IB_WR_BIND_MW)
		return mroce_mw_bind(&qp->ibqp, w->bind_mw, w->rkey,
				     w->bind_lkey, w->raddr, w->compare_add,
				     w->bind_access);
	return mroce_mw_invalidate(&qp->ibqp, w->imm, false, false) ?
	       IB_WC_SUCCESS : IB_WC_LOC_PROT_ERR;
}

/*
 * A local WQE runs once every WQE before it has completed, so it sees the
 * effects of the operations posted before it and those posted after it see
 * its own. It is not a message: the engine never fetched it (the message
 * numbers skip it, sq_base moves past it) and stops at it until it has run.
 * One that fails completes in error and ends the QP, as a bad WQE does.
 */
bool mroce_qp_run_local(struct mroce_qp *qp, struct mroce_batch *b)
{
	bool ran = false;

	lockdep_assert_held(&qp->lock);
	while (qp->state == IB_QPS_RTS && qp->sq_done != qp->sq_taken) {
		struct mroce_swqe *w = mroce_swqe(qp, qp->sq_done);
		enum ib_wc_status st;

		if (w->status || !is_local(w))
			break;
		st = run_one_local(qp, w);
		if (st) {
			mroce_dbg_qp(qp, "wr %#llx: opcode %u failed\n", w->wr_id,
				     w->opcode);
			w->status = st;
			mroce_qp_sq_check(qp, b);
			break;
		}
		qp->sq_base++;
		mroce_qp_send_done(qp, qp->sq_done, IB_WC_SUCCESS, b);
		ran = true;
	}
	return ran;
}

/*
 * The SQ as the engine sees it: message @msn exists when it has been
 * posted, copied and found valid. A message already under way stays
 * readable in any state (its packets may have to be resent, e.g. while the
 * SQ drains); a new one starts only in RTS. When the engine finds nothing,
 * ask the provider for a doorbell, then look once more (the provider does
 * the mirror image, see ring.h). Local WQEs in the way run here if they
 * may; if they may not yet, there is no message @msn yet.
 */
struct mroce_swqe *mroce_qp_sq_get(struct mroce_qp *qp, u32 msn,
				   struct mroce_batch *b)
{
	u32 idx = qp->sq_base + msn;
	struct mroce_swqe *w;

	lockdep_assert_held(&qp->lock);
	if (idx - qp->sq_done < qp->sq_taken - qp->sq_done &&
	    seq_lt(msn, qp->s.tx_msn + (qp->s.tx_busy ? 1 : 0))) {
		w = mroce_swqe(qp, idx);
		return w->status ? NULL : w;
	}
	for (;;) {
		if (qp->state != IB_QPS_RTS)
			return NULL;
		idx = qp->sq_base + msn;
		if (idx - qp->sq_done >= qp->sq_taken - qp->sq_done) {
			sq_refresh(qp);
			if (idx - qp->sq_done >= qp->sq_taken - qp->sq_done) {
				u32 f = mre_ring_load(&qp->sq.r.hdr->flags);

				mre_ring_store(&qp->sq.r.hdr->flags,
					       f | MRE_RING_F_DB_NEEDED);
				mre_ring_mb();
				sq_refresh(qp);
				if (idx - qp->sq_done >=
				    qp->sq_taken - qp->sq_done)
					return NULL;
				mre_ring_store(&qp->sq.r.hdr->flags, f);
			}
		}
		w = mroce_swqe(qp, idx);
		if (w->status)
			return NULL;
		if (!is_local(w))
			return w;
		/* it runs when all before it are done; then @msn is the next */
		if (!mroce_qp_run_local(qp, b))
			return NULL;
	}
}

static void post_cqe(struct mroce_cq *cq, struct mroce_qp *qp,
		     struct mroce_cqe *cqe, bool solicited,
		     struct mroce_batch *b)
{
	cqe->qp_num = qp->ibqp.qp_num;
	cqe->port_num = 1;
	mroce_cq_post(cq, cqe, &qp->ibqp, solicited, b);
}

static void send_cqe(struct mroce_qp *qp, struct mroce_swqe *w,
		     enum ib_wc_status st, struct mroce_batch *b)
{
	struct mroce_cqe cqe = {
		.wr_id = w->wr_id,
		.status = st,
		.opcode = wc_opcode(w->opcode),
		.byte_len = w->length,
	};

	if (st == IB_WC_SUCCESS && !(w->flags & IB_SEND_SIGNALED) &&
	    !qp->sq_sig_all)
		return;
	post_cqe(scq(qp), qp, &cqe, false, b);
}

static void sq_release(struct mroce_qp *qp)
{
	mre_ring_release(&qp->sq.r, qp->sq_done);
	if (qp->state == IB_QPS_SQD && qp->sq_done == qp->sq_taken &&
	    qp->sq_drained_event) {
		qp->sq_drained_event = false;
		schedule_work(&qp->sqd_work);
	}
}

void mroce_qp_send_done(struct mroce_qp *qp, u32 idx, enum ib_wc_status st,
			struct mroce_batch *b)
{
	lockdep_assert_held(&qp->lock);
	if (idx != qp->sq_done)
		mroce_dbg_qp(qp, "completion %u out of order (next %u)\n", idx,
			     qp->sq_done);
	/*
	 * The ring slot is free before the completion says so: a consumer
	 * that posts again as soon as it polls must find the room.
	 */
	qp->sq_done = idx + 1;
	sq_release(qp);
	send_cqe(qp, mroce_swqe(qp, idx), st, b);
}

/* --- receive queue --------------------------------------------------------- */

static struct mroce_rwqe *rwqe_at(struct mroce_qp *qp, u32 slot)
{
	return qp->rwq + (size_t)slot * qp->rwq_stride;
}

/* copy a receive entry into @r and validate it; false: unusable */
bool mroce_rwqe_take(struct mroce_qp *qp, const struct mroce_rqe *e,
		     struct mroce_rwqe *r, u32 max_sge)
{
	u32 n = READ_ONCE(e->num_sge), i;
	u64 sum = 0;

	r->wr_id = READ_ONCE(e->wr_id);
	r->num_sge = 0;
	r->length = 0;
	if (n > max_sge)
		return false;
	memcpy(r->sge, e->sge, n * sizeof(*r->sge));
	for (i = 0; i < n; i++)
		sum += r->sge[i].length;
	if (sum > MROCE_MAX_MSG)
		return false;
	r->num_sge = n;
	r->length = sum;
	return true;
}

struct mroce_rwqe *mroce_qp_rq_get(struct mroce_qp *qp, u32 rsn,
				   struct mroce_batch *b)
{
	u32 idx = qp->rq_base + rsn;

	lockdep_assert_held(&qp->lock);
	if (qp->srq)
		return mroce_srq_claim(qp, rsn, b);
	if (idx - qp->rq_done >= qp->rq.r.size)
		return NULL;
	if (idx - qp->rq_done >= qp->rq_taken - qp->rq_done) {
		mre_ring_avail(&qp->rq.r);
		while (qp->rq_taken != qp->rq.r.prod &&
		       idx - qp->rq_done >= qp->rq_taken - qp->rq_done) {
			u32 t = qp->rq_taken++;

			mroce_rwqe_take(qp, mre_ring_entry(&qp->rq.r, t),
					rwqe_at(qp, t & (qp->rq.r.size - 1)),
					qp->max_recv_sge);
		}
		if (idx - qp->rq_done >= qp->rq_taken - qp->rq_done)
			return NULL;
	}
	return rwqe_at(qp, idx & (qp->rq.r.size - 1));
}

struct mroce_rwqe *mroce_qp_rq_next(struct mroce_qp *qp,
				    struct mroce_batch *b)
{
	return mroce_qp_rq_get(qp, qp->rq_done - qp->rq_base, b);
}

void mroce_qp_recv_done(struct mroce_qp *qp, struct mroce_rwqe *r,
			const struct mroce_cqe *cqe, bool solicited,
			struct mroce_batch *b)
{
	struct mroce_cqe c = *cqe;

	lockdep_assert_held(&qp->lock);
	c.wr_id = r->wr_id;
	/* as for the SQ: room first, then the completion (r is our copy) */
	qp->rq_done++;
	if (!qp->srq)
		mre_ring_release(&qp->rq.r, qp->rq_done);
	post_cqe(rcq(qp), qp, &c, solicited, b);
	if (qp->srq)
		mroce_srq_release(qp, r);	/* its ring slot went at claim time */
}

/* --- scatter/gather ------------------------------------------------------- */

int mroce_sge_copy(struct mroce_qp *qp, const struct mroce_sge *sge, u32 n,
		   u32 off, void *buf, u32 len, bool to_sge)
{
	int access = to_sge ? IB_ACCESS_LOCAL_WRITE : 0;
	u32 i;

	for (i = 0; i < n && len; i++) {
		struct mroce_mr *mr;
		u32 k;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		k = min(len, sge[i].length - off);
		mr = mroce_mr_get(qp_dev(qp), qp->ibqp.pd, sge[i].lkey,
				  sge[i].addr + off, k, access, false);
		if (!mr)
			return -EFAULT;
		mroce_mr_copy(mr, sge[i].addr + off, buf, k, to_sge);
		mroce_mr_put(mr);
		buf += k;
		len -= k;
		off = 0;
	}
	return len ? -EFAULT : 0;
}

/* --- flushing and errors --------------------------------------------------- */

/*
 * Complete everything outstanding: the SQ's first WQE with @first (the
 * reason the QP failed, or a flush), the rest and every receive with
 * WR_FLUSH_ERR. qp->lock held, the stream detached.
 */
static void flush(struct mroce_qp *qp, enum ib_wc_status first,
		  struct mroce_batch *b)
{
	struct mroce_cqe cqe = { .status = IB_WC_WR_FLUSH_ERR,
				 .opcode = IB_WC_RECV };

	sq_refresh(qp);
	while (qp->sq_done != qp->sq_taken) {
		struct mroce_swqe *w = mroce_swqe(qp, qp->sq_done++);

		sq_release(qp);
		send_cqe(qp, w, w->status ? w->status : first, b);
		first = IB_WC_WR_FLUSH_ERR;
	}
	sq_release(qp);
	if (qp->srq) {
		mroce_srq_flush_claims(qp, b);
		return;
	}
	mre_ring_avail(&qp->rq.r);
	while (qp->rq_done != qp->rq.r.prod) {
		struct mroce_rwqe *r;

		r = mroce_qp_rq_get(qp, qp->rq_done - qp->rq_base, b);
		if (!r)
			break;
		mroce_qp_recv_done(qp, r, &cqe, false, b);
	}
}

/* the first WQE not completed is bad: it ends the QP (in order) */
void mroce_qp_sq_check(struct mroce_qp *qp, struct mroce_batch *b)
{
	struct mroce_swqe *w;

	if (qp->sq_done == qp->sq_taken)
		return;
	w = mroce_swqe(qp, qp->sq_done);
	if (!w->status)
		return;
	mroce_dbg_qp(qp, "wr %#llx: local error %d\n", w->wr_id, w->status);
	qp->err_status = MRE_ST_FLUSH;
	qp->state = IB_QPS_ERR;
	mre_ring_store(&qp->sq.r.hdr->flags, MRE_RING_F_ERROR);
	schedule_work(&qp->err_work);
}

void mroce_qp_stream_error(struct mroce_qp *qp, enum mre_status st)
{
	lockdep_assert_held(&qp->lock);
	if (qp->state == IB_QPS_ERR)
		return;
	qp->err_status = st;
	qp->state = IB_QPS_ERR;
	mre_ring_store(&qp->sq.r.hdr->flags, MRE_RING_F_ERROR);
	schedule_work(&qp->err_work);
}

static void qp_event(struct mroce_qp *qp, enum ib_event_type type);

static void qp_sqd_work(struct work_struct *work)
{
	qp_event(container_of(work, struct mroce_qp, sqd_work),
		 IB_EVENT_SQ_DRAINED);
}

static void qp_event(struct mroce_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/* detach from the engine (RC), then complete all with @first */
static void qp_stop(struct mroce_qp *qp, enum ib_wc_status first,
		    struct mroce_batch *b)
{
	struct mroce_peer *peer = qp->peer;

	if (peer) {
		mroce_peer_lock(peer, b);
		spin_lock(&qp->lock);
		mroce_peer_detach(peer, qp);
		spin_unlock(&qp->lock);
		mroce_peer_unlock(peer);
	}
	spin_lock_bh(&qp->lock);
	flush(qp, first, b);
	spin_unlock_bh(&qp->lock);
}

/* process context: the engine or a bad WQE put the QP in error */
static void qp_err_work(struct work_struct *work)
{
	struct mroce_qp *qp = container_of(work, struct mroce_qp, err_work);
	enum ib_wc_status first = IB_WC_WR_FLUSH_ERR;
	enum ib_event_type ev = 0;
	struct mroce_batch b;

	mutex_lock(&qp->mutex);
	if (qp->state != IB_QPS_ERR) {		/* reset or reused meanwhile */
		mutex_unlock(&qp->mutex);
		return;
	}
	switch (qp->err_status) {
	case MRE_ST_RETRY_EXC:
	case MRE_ST_RNR_RETRY_EXC:
		first = mroce_wc_status(qp->err_status);
		break;
	case MRE_ST_LOC_ACCESS:
		ev = IB_EVENT_QP_ACCESS_ERR;
		break;
	case MRE_ST_LOC_LEN:
		ev = IB_EVENT_QP_REQ_ERR;
		break;
	}
	mroce_batch_init(&b);
	qp_stop(qp, first, &b);
	mroce_batch_flush(&b);
	mutex_unlock(&qp->mutex);
	mroce_dbg_qp(qp, "error %u, flushed\n", qp->err_status);
	if (ev)
		qp_event(qp, ev);
}

/* --- posting (kernel QPs) and the doorbell -------------------------------- */

/* send WQEs are waiting: let the engine (RC, UC) or the UD sender see them */
static void qp_kick(struct mroce_qp *qp)
{
	struct mroce_peer *peer = READ_ONCE(qp->peer);
	struct mroce_batch b;

	mroce_batch_init(&b);
	if (is_conn(qp)) {
		if (peer && qp->state == IB_QPS_RTS) {
			mroce_peer_lock(peer, &b);
			spin_lock(&qp->lock);
			mre_ring_store(&qp->sq.r.hdr->flags, 0);
			sq_refresh(qp);
			mroce_qp_sq_check(qp, &b);
			mroce_qp_run_local(qp, &b);
			if (qp->state == IB_QPS_RTS)
				mre_stream_kick(&qp->s);
			spin_unlock(&qp->lock);
			mroce_peer_unlock(peer);
		}
	} else {
		spin_lock_bh(&qp->lock);
		if (qp->state == IB_QPS_RTS) {
			sq_refresh(qp);
			while (qp->sq_done != qp->sq_taken) {
				struct mroce_swqe *w = mroce_swqe(qp, qp->sq_done);

				/* a local error (bad AH, lkey): as a bad WQE */
				if (!w->status)
					w->status = mroce_ud_send(qp, w, &b);
				if (w->status) {
					mroce_qp_sq_check(qp, &b);
					break;
				}
				mroce_qp_send_done(qp, qp->sq_done, IB_WC_SUCCESS,
						   &b);
			}
		}
		spin_unlock_bh(&qp->lock);
	}
	/*
	 * A QP in error completes what is posted to it at once (ib_drain_qp
	 * relies on it), once the engine has let go of it.
	 */
	if (qp->state == IB_QPS_ERR) {
		spin_lock_bh(&qp->lock);
		if (!qp->s.conn)
			flush(qp, IB_WC_WR_FLUSH_ERR, &b);
		spin_unlock_bh(&qp->lock);
	}
	mroce_batch_flush(&b);
}

static int sqe_from_wr(struct mroce_qp *qp, struct mroce_sqe *e,
		       const struct ib_send_wr *wr)
{
	u32 i, len = 0;

	/* as the provider's check_opcode(): what the QP type cannot carry */
	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		if (!is_conn(qp))
			return -EINVAL;
		break;
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (!is_rc(qp))
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	memset(e, 0, sizeof(*e));
	e->wr_id = wr->wr_id;
	e->opcode = wr->opcode;
	e->send_flags = wr->send_flags;
	e->imm_data = (__force u32)wr->ex.imm_data;
	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		e->remote_addr = rdma_wr(wr)->remote_addr;
		e->rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		e->remote_addr = atomic_wr(wr)->remote_addr;
		e->rkey = atomic_wr(wr)->rkey;
		e->compare_add = atomic_wr(wr)->compare_add;
		e->swap = atomic_wr(wr)->swap;
		break;
	default:
		break;
	}
	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI) {
		e->ah = to_mroce_ah(ud_wr(wr)->ah)->id;
		e->remote_qpn = ud_wr(wr)->remote_qpn;
		e->remote_qkey = ud_wr(wr)->remote_qkey;
	}
	if (wr->send_flags & IB_SEND_INLINE) {
		u8 *p = (u8 *)e->sge;

		for (i = 0; i < wr->num_sge; i++) {
			if (len + wr->sg_list[i].length > qp->max_inline)
				return -EINVAL;
			memcpy(p + len, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			len += wr->sg_list[i].length;
		}
		e->length = len;
		return 0;
	}
	if (wr->num_sge > qp->max_send_sge)
		return -EINVAL;
	e->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		e->sge[i].addr = wr->sg_list[i].addr;
		e->sge[i].length = wr->sg_list[i].length;
		e->sge[i].lkey = wr->sg_list[i].lkey;
	}
	return 0;
}

int mroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad)
{
	struct mroce_qp *qp = to_mroce_qp(ibqp);
	unsigned long flags;
	int err = 0;

	/* a user QP's WQEs are in its ring: this call is its doorbell */
	if (qp->user) {
		qp_kick(qp);
		return 0;
	}
	if (qp->state < IB_QPS_RTS) {
		*bad = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->sq_post_lock, flags);
	for (; wr; wr = wr->next) {
		if (!mre_ring_space(&qp->sq.r)) {
			err = -ENOMEM;
			break;
		}
		err = sqe_from_wr(qp, mre_ring_next(&qp->sq.r), wr);
		if (err)
			break;
		mre_ring_publish(&qp->sq.r, 1);
	}
	spin_unlock_irqrestore(&qp->sq_post_lock, flags);
	if (err)
		*bad = wr;
	qp_kick(qp);
	return err;
}

static int post_rqe(struct mre_ring *r, const struct ib_recv_wr *wr,
		    u32 max_sge)
{
	struct mroce_rqe *e;
	u32 i;

	if (wr->num_sge > max_sge)
		return -EINVAL;
	if (!mre_ring_space(r))
		return -ENOMEM;
	e = mre_ring_next(r);
	e->wr_id = wr->wr_id;
	e->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		e->sge[i].addr = wr->sg_list[i].addr;
		e->sge[i].length = wr->sg_list[i].length;
		e->sge[i].lkey = wr->sg_list[i].lkey;
	}
	mre_ring_publish(r, 1);
	return 0;
}

int mroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad)
{
	struct mroce_qp *qp = to_mroce_qp(ibqp);
	unsigned long flags;
	int err = 0;

	if (qp->srq) {
		*bad = wr;
		return -EINVAL;
	}
	if (!qp->user) {
		spin_lock_irqsave(&qp->rq_post_lock, flags);
		for (; wr; wr = wr->next) {
			err = post_rqe(&qp->rq.r, wr, qp->max_recv_sge);
			if (err)
				break;
		}
		spin_unlock_irqrestore(&qp->rq_post_lock, flags);
		if (err)
			*bad = wr;
	}
	/* receives are taken when messages arrive; only an error QP flushes */
	if (qp->state == IB_QPS_ERR) {
		struct mroce_batch b;

		mroce_batch_init(&b);
		spin_lock_bh(&qp->lock);
		if (!qp->s.conn)
			flush(qp, IB_WC_WR_FLUSH_ERR, &b);
		spin_unlock_bh(&qp->lock);
		mroce_batch_flush(&b);
	}
	return err;
}

/* --- create / destroy ------------------------------------------------------ */

static int alloc_qpn(struct mroce_dev *mdev, struct mroce_qp *qp,
		     enum ib_qp_type type)
{
	u32 qpn;
	int err;

	if (type == IB_QPT_GSI) {
		err = xa_insert(&mdev->qps, 1, qp, GFP_KERNEL);
		qpn = 1;
	} else {
		err = xa_alloc_cyclic(&mdev->qps, &qpn, qp,
				      XA_LIMIT(16, MROCE_MAX_QPN), &mdev->qp_next,
				      GFP_KERNEL);
		err = err < 0 ? err : 0;
	}
	if (!err)
		qp->ibqp.qp_num = qpn;
	return err;
}

static int check_caps(struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *c = &init->cap;

	if (c->max_send_wr > MROCE_MAX_QP_WR || c->max_recv_wr > MROCE_MAX_QP_WR ||
	    c->max_send_sge > MROCE_MAX_SGE || c->max_recv_sge > MROCE_MAX_SGE ||
	    c->max_inline_data > MROCE_MAX_INLINE)
		return -EINVAL;
	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
	case IB_QPT_GSI:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags & ~IB_QP_CREATE_SCATTER_FCS)
		return -EOPNOTSUPP;
	return 0;
}

static u32 sq_stride(u32 max_sge, u32 max_inline)
{
	return roundup_pow_of_two(sizeof(struct mroce_sqe) +
				  max(max_sge * sizeof(struct mroce_sge),
				      (size_t)max_inline));
}

static int create_queues(struct mroce_qp *qp, struct ib_qp_init_attr *init,
			 struct ib_udata *udata, struct mroce_create_qp_resp *resp)
{
	struct ib_qp_cap *c = &init->cap;
	u32 ssize, rsize, sstride, rstride;
	int err;

	qp->max_send_sge = max_t(u32, c->max_send_sge, 1);
	qp->max_recv_sge = max_t(u32, c->max_recv_sge, 1);
	qp->max_inline = c->max_inline_data;
	ssize = roundup_pow_of_two(max_t(u32, c->max_send_wr, 1));
	sstride = sq_stride(qp->max_send_sge, qp->max_inline);
	/* the inline room is what the stride leaves: report all of it */
	qp->max_inline = min_t(u32, MROCE_MAX_INLINE,
			       sstride - sizeof(struct mroce_sqe));
	err = mroce_queue_init(&qp->sq, udata, ssize, sstride,
			       &resp->sq_mmap_offset);
	if (err)
		return err;
	qp->swq_stride = sizeof(struct mroce_swqe) +
			 max(qp->max_send_sge * sizeof(struct mroce_sge),
			     (size_t)qp->max_inline);
	qp->swq = vzalloc(array_size(ssize, qp->swq_stride));
	if (!qp->swq) {
		err = -ENOMEM;
		goto err_sq;
	}
	rstride = roundup_pow_of_two(sizeof(struct mroce_rqe) +
				     qp->max_recv_sge * sizeof(struct mroce_sge));
	qp->rwq_stride = sizeof(struct mroce_rwqe) +
			 qp->max_recv_sge * sizeof(struct mroce_sge);
	if (qp->srq) {
		qp->rwq_stride = sizeof(struct mroce_rwqe) +
				 qp->srq->max_sge * sizeof(struct mroce_sge);
		qp->rwq = vzalloc(array_size(MROCE_SRQ_CLAIMS, qp->rwq_stride));
		if (!qp->rwq) {
			err = -ENOMEM;
			goto err_swq;
		}
		c->max_recv_wr = 0;
	} else {
		rsize = roundup_pow_of_two(max_t(u32, c->max_recv_wr, 1));
		err = mroce_queue_init(&qp->rq, udata, rsize, rstride,
				       &resp->rq_mmap_offset);
		if (err)
			goto err_swq;
		qp->rwq = vzalloc(array_size(rsize, qp->rwq_stride));
		if (!qp->rwq) {
			err = -ENOMEM;
			goto err_rq;
		}
		resp->rq_mmap_len = qp->rq.len;
		resp->rq_size = rsize;
		resp->rq_stride = rstride;
		c->max_recv_wr = rsize;
	}
	resp->sq_mmap_len = qp->sq.len;
	resp->sq_size = ssize;
	resp->sq_stride = sstride;
	resp->max_inline = qp->max_inline;
	resp->max_send_sge = qp->max_send_sge;
	resp->max_recv_sge = qp->max_recv_sge;
	c->max_send_wr = ssize;
	c->max_send_sge = qp->max_send_sge;
	c->max_recv_sge = qp->max_recv_sge;
	c->max_inline_data = qp->max_inline;
	return 0;

err_rq:
	mroce_queue_free(&qp->rq);
err_swq:
	vfree(qp->swq);
err_sq:
	mroce_queue_free(&qp->sq);
	return err;
}

static void free_queues(struct mroce_qp *qp)
{
	vfree(qp->rwq);
	if (!qp->srq)
		mroce_queue_free(&qp->rq);
	vfree(qp->swq);
	mroce_queue_free(&qp->sq);
}

int mroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mroce_dev(ibqp->device);
	struct mroce_qp *qp = to_mroce_qp(ibqp);
	struct mroce_create_qp_resp resp = {};
	int err;

	err = check_caps(init);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	mutex_init(&qp->mutex);
	spin_lock_init(&qp->lock);
	spin_lock_init(&qp->sq_post_lock);
	spin_lock_init(&qp->rq_post_lock);
	INIT_WORK(&qp->err_work, qp_err_work);
	INIT_WORK(&qp->sqd_work, qp_sqd_work);
	INIT_LIST_HEAD(&qp->mcast);
	qp->user = !!udata;
	qp->state = IB_QPS_RESET;
	qp->srq = init->srq ? to_mroce_srq(init->srq) : NULL;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->ud_sport = 49152 + get_random_u32_below(16384);
	qp->attr.path_mtu = mroce_ib_mtu(READ_ONCE(mdev->ndev->mtu));
	err = create_queues(qp, init, udata, &resp);
	if (err)
		return err;
	err = alloc_qpn(mdev, qp, init->qp_type);
	if (err)
		goto err_queues;
	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_qpn;
	}
	mroce_dbg_qp(qp, "type %d sq %u rq %u%s\n", init->qp_type,
		     resp.sq_size, resp.rq_size, udata ? " (user)" : "");
	return 0;

err_qpn:
	xa_erase(&mdev->qps, qp->ibqp.qp_num);
err_queues:
	free_queues(qp);
	return err;
}

/*
 * Destroy: once it is out of the QP table no packet finds it; the engine
 * forgets it when the stream detaches (under the peer lock, so no engine
 * callback still runs for it); synchronize_rcu() waits out receivers that
 * looked it up before; the error work is cancelled. Then nothing refers
 * to it and the queues can go.
 */
int mroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mroce_dev(ibqp->device);
	struct mroce_qp *qp = to_mroce_qp(ibqp);
	struct mroce_batch b;

	xa_erase(&mdev->qps, ibqp->qp_num);
	mutex_lock(&qp->mutex);
	mroce_batch_init(&b);
	if (qp->peer) {
		mroce_peer_lock(qp->peer, &b);
		spin_lock(&qp->lock);
		mroce_peer_detach(qp->peer, qp);
		spin_unlock(&qp->lock);
		mroce_peer_unlock(qp->peer);
		mroce_peer_put(qp->peer);
		qp->peer = NULL;
	}
	qp->state = IB_QPS_RESET;
	mutex_unlock(&qp->mutex);
	mroce_batch_flush(&b);
	/* nothing runs its WQEs any more: its type 2B windows die with it */
	if (is_rc(qp))
		mroce_mw_qp_gone(ibqp);
	mroce_mcast_qp_destroy(qp);	/* groups a kernel QP is still in */
	synchronize_rcu();
	cancel_work_sync(&qp->err_work);
	cancel_work_sync(&qp->sqd_work);
	mroce_dbg_qp(qp, "\n");
	free_queues(qp);
	return 0;
}

/* --- modify / query -------------------------------------------------------- */

static int resolve_av(struct mroce_qp *qp, const struct rdma_ah_attr *ah)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);

	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH) || !grh->sgid_attr)
		return -EINVAL;
	memset(&qp->av, 0, sizeof(qp->av));
	rdma_gid2ip((struct sockaddr *)&qp->av.saddr, &grh->sgid_attr->gid);
	rdma_gid2ip((struct sockaddr *)&qp->av.daddr, &grh->dgid);
	if (qp->av.saddr.ss_family != qp->av.daddr.ss_family)
		return -EINVAL;
	return 0;
}

static int check_attr(struct mroce_qp *qp, struct ib_qp_attr *attr, int mask)
{
	struct mroce_dev *mdev = qp_dev(qp);

	if (mask & IB_QP_PORT && attr->port_num != 1)
		return -EINVAL;
	if (mask & IB_QP_PKEY_INDEX && attr->pkey_index)
		return -EINVAL;
	if (mask & IB_QP_PATH_MTU &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096 ||
	     attr->path_mtu > mroce_ib_mtu(READ_ONCE(mdev->ndev->mtu))))
		return -EINVAL;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC &&
	    attr->max_rd_atomic > MROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC &&
	    attr->max_dest_rd_atomic > MROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if (mask & IB_QP_ACCESS_FLAGS &&
	    attr->qp_access_flags & ~(IB_ACCESS_REMOTE_WRITE |
				      IB_ACCESS_REMOTE_READ |
				      IB_ACCESS_REMOTE_ATOMIC |
				      IB_ACCESS_LOCAL_WRITE))
		return -EOPNOTSUPP;
	if (mask & IB_QP_AV && is_conn(qp))
		return resolve_av(qp, &attr->ah_attr);
	return 0;
}

static void copy_attr(struct mroce_qp *qp, struct ib_qp_attr *attr, int mask)
{
	struct ib_qp_attr *a = &qp->attr;

	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		/* kept for query_qp by index; the route is in qp->av */
		a->ah_attr = attr->ah_attr;
		a->ah_attr.grh.sgid_attr = NULL;
	}
	if (mask & IB_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
}

static bool fill_mtu = true;
module_param(fill_mtu, bool, 0644);
MODULE_PARM_DESC(fill_mtu, "RC packets carry as much payload as the netdev MTU allows, not only the QP's path MTU (default Y)");

/*
 * Payload bytes per RC packet. The path MTU is an InfiniBand size (1024
 * on a 1500-byte Ethernet); our packets are UDP datagrams, and the netdev
 * says what fits: 1384 bytes there (IPv6 headers assumed), a third fewer
 * packets for the same bytes. Placement does not care where packets end.
 */
static u32 stream_mtu(struct mroce_qp *qp)
{
	int room = (int)READ_ONCE(qp_dev(qp)->ndev->mtu) -
		   (int)sizeof(struct ipv6hdr) - (int)sizeof(struct udphdr) -
		   MROCE_MAX_HDR_LEN;
	u32 mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);

	if (READ_ONCE(fill_mtu) && room > (int)mtu)
		mtu = room;
	return mtu;
}

/*
 * The RNR timer a UC responder asks for (a UC QP has no min_rnr_timer
 * attribute): 0.64 ms, IB's code 12.
 */
#define MROCE_UC_RNR_TIMER	12

/*
 * Fill the engine's view of the stream from the QP's attributes. A UC QP
 * is a stream like RC's, delivered reliably and in order (a legal "UC"),
 * whose requester hears of no remote error; lacking a receive, the
 * responder refuses the packet and the sender waits for one as long as it
 * takes (rnr_retry 7), where IB UC would drop the message.
 */
void mroce_qp_stream_attr(struct mroce_qp *qp, struct mre_stream_attr *sa)
{
	bool uc = qp->ibqp.qp_type == IB_QPT_UC;

	*sa = (struct mre_stream_attr){
		.id = qp->ibqp.qp_num,
		.remote_id = qp->attr.dest_qp_num,
		.mtu = stream_mtu(qp),
		.max_rd = max_t(u32, qp->attr.max_rd_atomic, 1),
		.rnr_retry = uc ? 7 : qp->attr.rnr_retry,
		.retry = qp->attr.retry_cnt,
		.rnr_delay_ns = rnr_timer_ns(uc ? MROCE_UC_RNR_TIMER :
					     qp->attr.min_rnr_timer),
		.uc = uc,
	};
}

/* RESET: every queue empty, both sides' indices back to zero */
static void reset_queues(struct mroce_qp *qp)
{
	struct mroce_queue *qs[2] = { &qp->sq, qp->srq ? NULL : &qp->rq };
	int i;

	for (i = 0; i < 2; i++) {
		if (!qs[i])
			continue;
		memset(qs[i]->r.hdr, 0, MRE_RING_HDR_SIZE);
		qs[i]->r.prod = 0;
		qs[i]->r.cons = 0;
	}
	qp->sq_taken = qp->sq_done = qp->sq_base = 0;
	qp->rq_taken = qp->rq_done = qp->rq_base = 0;
}

static int to_rtr(struct mroce_qp *qp, struct mroce_batch *b)
{
	struct mroce_peer *peer;

	if (!is_conn(qp))
		return 0;
	peer = mroce_peer_get(qp_dev(qp), (struct sockaddr *)&qp->av.daddr,
			      (struct sockaddr *)&qp->av.saddr);
	if (IS_ERR(peer))
		return PTR_ERR(peer);
	if (qp->peer)
		mroce_peer_put(qp->peer);
	qp->peer = peer;
	mroce_peer_lock(peer, b);
	spin_lock(&qp->lock);
	qp->sq_base = qp->sq_done;
	qp->rq_base = qp->rq_done;
	qp->state = IB_QPS_RTR;
	mroce_peer_attach(peer, qp);
	spin_unlock(&qp->lock);
	mroce_peer_unlock(peer);
	return 0;
}

int mroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct mroce_qp *qp = to_mroce_qp(ibqp);
	enum ib_qp_state cur, new;
	struct mroce_batch b;
	int err = 0;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	if (udata && udata->inlen)
		return -EOPNOTSUPP;
	mroce_batch_init(&b);
	mutex_lock(&qp->mutex);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	new = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask)) {
		err = -EINVAL;
		goto out;
	}
	err = check_attr(qp, attr, mask);
	if (err)
		goto out;
	copy_attr(qp, attr, mask);
	if (!(mask & IB_QP_STATE))
		goto out;

	switch (new) {
	case IB_QPS_RESET:
		if (qp->peer) {
			mroce_peer_lock(qp->peer, &b);
			spin_lock(&qp->lock);
			mroce_peer_detach(qp->peer, qp);
			spin_unlock(&qp->lock);
			mroce_peer_unlock(qp->peer);
		}
		spin_lock_bh(&qp->lock);
		qp->state = IB_QPS_RESET;
		reset_queues(qp);
		spin_unlock_bh(&qp->lock);
		break;
	case IB_QPS_RTR:
		if (cur == IB_QPS_INIT)
			err = to_rtr(qp, &b);
		break;
	case IB_QPS_RTS:
	case IB_QPS_SQD:
		if (qp->peer) {
			struct mre_stream_attr sa;

			mroce_peer_lock(qp->peer, &b);
			spin_lock(&qp->lock);
			mroce_qp_stream_attr(qp, &sa);
			qp->s.max_rd = sa.max_rd;
			qp->s.rnr_retry = sa.rnr_retry;
			qp->s.rnr_left = sa.rnr_retry;
			qp->s.rnr_delay = sa.rnr_delay_ns;
			qp->state = new;
			if (new == IB_QPS_RTS)
				mre_stream_kick(&qp->s);
			spin_unlock(&qp->lock);
			mroce_peer_unlock(qp->peer);
		}
		break;
	case IB_QPS_ERR:
		qp->state = IB_QPS_ERR;
		qp_stop(qp, IB_WC_WR_FLUSH_ERR, &b);
		mre_ring_store(&qp->sq.r.hdr->flags, MRE_RING_F_ERROR);
		break;
	default:
		break;
	}
	if (!err) {
		spin_lock_bh(&qp->lock);
		qp->state = new;
		qp->attr.qp_state = new;
		if (new == IB_QPS_SQD) {
			qp->sq_drained_event = qp->sq_done != qp->sq_taken;
			qp->attr.sq_draining = qp->sq_drained_event;
		}
		spin_unlock_bh(&qp->lock);
		if (new == IB_QPS_SQD && !qp->sq_drained_event)
			qp_event(qp, IB_EVENT_SQ_DRAINED);
	}
out:
	mutex_unlock(&qp->mutex);
	mroce_batch_flush(&b);
	mroce_dbg_qp(qp, "%d -> %d mask %#x: %d\n", cur, new, mask, err);
	return err;
}

int mroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct mroce_qp *qp = to_mroce_qp(ibqp);

	mutex_lock(&qp->mutex);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->cap.max_send_wr = qp->sq.r.size;
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_inline_data = qp->max_inline;
	attr->cap.max_recv_wr = qp->srq ? 0 : qp->rq.r.size;
	attr->cap.max_recv_sge = qp->srq ? 0 : qp->max_recv_sge;
	attr->sq_draining = qp->state == IB_QPS_SQD && qp->sq_drained_event;
	mutex_unlock(&qp->mutex);

	memset(init, 0, sizeof(*init));
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->qp_type = ibqp->qp_type;
	init->port_num = 1;
	return 0;
}
