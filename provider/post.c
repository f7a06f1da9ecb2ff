// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fast path: posting WQEs into the SQ/RQ/SRQ rings and polling CQEs
 * from the CQ ring, with no system call except the SQ doorbell the kernel
 * asks for (ring.h): after publishing, a full barrier, then the flag is
 * read; the kernel sets the flag, then looks at the ring. One of the two
 * always sees the other's write.
 *
 * Sends are posted with ibv_post_send() or with the ibv_wr_* interface of
 * an extended QP (ibv_qp_ex); both build entries the same way.
 *
 * Each ring's producer side is serialised by its spinlock (verbs allow
 * several threads to post to one QP); the kernel re-validates every WQE it
 * takes, so nothing here is trusted by it. Errors follow the verbs: ENOMEM
 * when the queue is full, EINVAL for a malformed WR or a QP in RESET
 * (libibverbs keeps ibv_qp.state), EOPNOTSUPP for an operation mroce does
 * not offer.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rdma/mroce-wr.h>

#include "mroce.h"

/* ---- CQ ------------------------------------------------------------------ */

int mroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct mroce_cq *cq = to_mroce_cq(ibcq);
	struct mre_ring *r = &cq->q.r;
	int n = 0;

	pthread_spin_lock(&cq->q.lock);
	/* refresh the producer index: its load orders the entries after it */
	mre_ring_avail(r);
	for (; n < ne && r->cons != r->prod; n++) {
		const struct mroce_cqe *e = mre_ring_entry(r, r->cons);
		struct ibv_wc *w = &wc[n];

		w->wr_id = e->wr_id;
		w->status = e->status;
		w->opcode = e->opcode;
		w->vendor_err = e->vendor_err;
		w->byte_len = e->byte_len;
		w->imm_data = e->imm_data;
		w->qp_num = e->qp_num;
		w->src_qp = e->src_qp;
		w->wc_flags = e->wc_flags;
		w->pkey_index = e->pkey_index;
		w->slid = e->slid;
		w->sl = e->sl;
		w->dlid_path_bits = e->dlid_path_bits;
		mre_ring_release(r, r->cons + 1);
	}
	pthread_spin_unlock(&cq->q.lock);
	return n;
}

/*
 * The extended CQ's polling session. start_poll takes the CQ's lock and
 * holds it to end_poll, when it finds a CQE; the current CQE (cq->cur)
 * stays in the ring, unreleased, while the read_* ops read it, and is
 * released by next_poll or end_poll. If start_poll finds nothing it
 * returns ENOENT with the lock dropped and end_poll must not be called,
 * but one that is (pyverbs does) does nothing. next_poll after ENOENT
 * looks again.
 */
static void cqx_take(struct mroce_cq *cq)
{
	const struct mroce_cqe *e = mre_ring_entry(&cq->q.r, cq->q.r.cons);

	cq->cur = e;
	cq->vcq.cq_ex.wr_id = e->wr_id;
	cq->vcq.cq_ex.status = e->status;
}

static void cqx_release(struct mroce_cq *cq)
{
	if (cq->cur) {
		cq->cur = NULL;
		mre_ring_release(&cq->q.r, cq->q.r.cons + 1);
	}
}

static int cqx_start_poll(struct ibv_cq_ex *x, struct ibv_poll_cq_attr *attr)
{
	struct mroce_cq *cq = to_mroce_cq(x);

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->q.lock);
	if (!mre_ring_avail(&cq->q.r)) {
		pthread_spin_unlock(&cq->q.lock);
		return ENOENT;
	}
	cq->polling = true;
	cqx_take(cq);
	return 0;
}

static int cqx_next_poll(struct ibv_cq_ex *x)
{
	struct mroce_cq *cq = to_mroce_cq(x);

	cqx_release(cq);
	if (!mre_ring_avail(&cq->q.r))
		return ENOENT;
	cqx_take(cq);
	return 0;
}

static void cqx_end_poll(struct ibv_cq_ex *x)
{
	struct mroce_cq *cq = to_mroce_cq(x);

	if (!cq->polling)
		return;
	cqx_release(cq);
	cq->polling = false;
	pthread_spin_unlock(&cq->q.lock);
}

static enum ibv_wc_opcode cqx_read_opcode(struct ibv_cq_ex *x)
{
	return to_mroce_cq(x)->cur->opcode;
}

static uint32_t cqx_read_vendor_err(struct ibv_cq_ex *x)
{
	return to_mroce_cq(x)->cur->vendor_err;
}

static uint32_t cqx_read_byte_len(struct ibv_cq_ex *x)
{
	return to_mroce_cq(x)->cur->byte_len;
}

static __be32 cqx_read_imm_data(struct ibv_cq_ex *x)
{
	return to_mroce_cq(x)->cur->imm_data;	/* big-endian already */
}

static uint32_t cqx_read_qp_num(struct ibv_cq_ex *x)
{
	return to_mroce_cq(x)->cur->qp_num;
}

static uint32_t cqx_read_src_qp(struct ibv_cq_ex *x)
{
	return to_mroce_cq(x)->cur->src_qp;
}

static unsigned int cqx_read_wc_flags(struct ibv_cq_ex *x)
{
	return to_mroce_cq(x)->cur->wc_flags;
}

static uint32_t cqx_read_slid(struct ibv_cq_ex *x)
{
	return to_mroce_cq(x)->cur->slid;
}

static uint8_t cqx_read_sl(struct ibv_cq_ex *x)
{
	return to_mroce_cq(x)->cur->sl;
}

static uint8_t cqx_read_dlid_path_bits(struct ibv_cq_ex *x)
{
	return to_mroce_cq(x)->cur->dlid_path_bits;
}

/*
 * Every reader of a standard field is set, whatever wc_flags asked for
 * (they cost nothing); the others stay NULL, as their flags are refused.
 */
void mroce_cq_ex_init(struct mroce_cq *cq)
{
	struct ibv_cq_ex *x = &cq->vcq.cq_ex;

	x->start_poll = cqx_start_poll;
	x->next_poll = cqx_next_poll;
	x->end_poll = cqx_end_poll;
	x->read_opcode = cqx_read_opcode;
	x->read_vendor_err = cqx_read_vendor_err;
	x->read_byte_len = cqx_read_byte_len;
	x->read_imm_data = cqx_read_imm_data;
	x->read_qp_num = cqx_read_qp_num;
	x->read_src_qp = cqx_read_src_qp;
	x->read_wc_flags = cqx_read_wc_flags;
	x->read_slid = cqx_read_slid;
	x->read_sl = cqx_read_sl;
	x->read_dlid_path_bits = cqx_read_dlid_path_bits;
}

/* ---- SQ ------------------------------------------------------------------ */

/* the QP type as the opcode table names it */
static uint8_t qpt_bit(const struct ibv_qp *ibqp)
{
	switch (ibqp->qp_type) {
	case IBV_QPT_RC:
		return MROCE_QPT_RC;
	case IBV_QPT_UC:
		return MROCE_QPT_UC;
	case IBV_QPT_UD:
		return MROCE_QPT_UD;
	default:
		return 0;
	}
}

/* may @ibqp post @op? (the table in mroce-wr.h, which the kernel reads too) */
static int check_opcode(const struct ibv_qp *ibqp, enum ibv_wr_opcode op)
{
	const struct mroce_wr_op *o = mroce_wr_op(op);

	if (!o)
		return EOPNOTSUPP;	/* TSO, FLUSH, ... */
	/* not in UC or UD (IB spec): an invalid WR for the QP */
	return o->qp_types & qpt_bit(ibqp) ? 0 : EINVAL;
}

/* the operations whose data may be inline: the ones that send it */
static bool inline_ok(enum ibv_wr_opcode op)
{
	const struct mroce_wr_op *o = mroce_wr_op(op);

	return o && o->flags & MROCE_WR_INLINE;
}

/*
 * The bind part of a BIND_MW entry. @type1: from ibv_bind_mw(), the only
 * way to bind a type 1 MW; a type 2 MW is bound by a WR. The MW is named
 * by its rkey; the new rkey may differ from it in the low byte only. The
 * kernel checks the MR, the window and the rights when the WQE runs (a
 * bad bind completes with IBV_WC_MW_BIND_ERR).
 */
static int sqe_bind(struct mroce_sqe *e, const struct ibv_mw *mw,
		    uint32_t rkey, const struct ibv_mw_bind_info *bi,
		    bool type1)
{
	if (!mw || !bi || (mw->type == IBV_MW_TYPE_1) != type1 ||
	    (rkey ^ mw->rkey) & ~0xffu || (!bi->mr && bi->length))
		return EINVAL;
	e->rkey = rkey;
	e->remote_addr = bi->addr;
	e->compare_add = bi->length;
	e->bind_lkey = bi->mr ? bi->mr->lkey : 0;
	e->bind_access = bi->mw_access_flags;
	e->bind_mw_rkey = mw->rkey;
	return 0;
}

/* start the entry @e: its fixed part, zero where the operation adds nothing */
static int sqe_init(const struct mroce_qp *qp, struct mroce_sqe *e,
		    enum ibv_wr_opcode op, uint64_t wr_id, unsigned int flags)
{
	int err = check_opcode(&qp->vqp.qp, op);

	if (err)
		return err;
	memset(e, 0, sizeof(*e));
	e->wr_id = wr_id;
	e->opcode = op;
	e->send_flags = flags;
	return 0;
}

/* append @len bytes of inline data (IBV_SEND_INLINE is the caller's) */
static int sqe_add_inline(const struct mroce_qp *qp, struct mroce_sqe *e,
			  const void *addr, size_t len)
{
	if (len > qp->max_inline - e->length)
		return EINVAL;
	memcpy((uint8_t *)e->sge + e->length, addr, len);
	e->length += len;
	return 0;
}

static int sqe_set_sges(const struct mroce_qp *qp, struct mroce_sqe *e,
			const struct ibv_sge *sg, size_t n)
{
	size_t i;

	if (n > qp->max_send_sge)
		return EINVAL;
	e->num_sge = n;
	for (i = 0; i < n; i++) {
		e->sge[i].addr = sg[i].addr;
		e->sge[i].length = sg[i].length;
		e->sge[i].lkey = sg[i].lkey;
	}
	return 0;
}

/* one WR into the slot at the producer index */
static int build_sqe(struct mroce_qp *qp, struct mroce_sqe *e,
		     const struct ibv_send_wr *wr)
{
	int i, err;

	err = sqe_init(qp, e, wr->opcode, wr->wr_id, wr->send_flags);
	if (err)
		return err;
	e->imm_data = wr->imm_data;
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		e->remote_addr = wr->wr.rdma.remote_addr;
		e->rkey = wr->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		e->remote_addr = wr->wr.atomic.remote_addr;
		e->rkey = wr->wr.atomic.rkey;
		e->compare_add = wr->wr.atomic.compare_add;
		e->swap = wr->wr.atomic.swap;
		break;
	case IBV_WR_BIND_MW:
		return sqe_bind(e, wr->bind_mw.mw, wr->bind_mw.rkey,
				&wr->bind_mw.bind_info, false);
	case IBV_WR_LOCAL_INV:
		return 0;	/* imm_data is invalidate_rkey; no data */
	case IBV_WR_ATOMIC_WRITE:
		return EOPNOTSUPP;	/* no field for its value: ibv_wr_* only */
	default:
		break;		/* SEND_WITH_INV: likewise, with data */
	}
	if (qp->vqp.qp.qp_type == IBV_QPT_UD) {
		if (!wr->wr.ud.ah)
			return EINVAL;
		e->ah = to_mroce_ah(wr->wr.ud.ah)->id;
		e->remote_qpn = wr->wr.ud.remote_qpn;
		e->remote_qkey = wr->wr.ud.remote_qkey;
	}
	if (!(wr->send_flags & IBV_SEND_INLINE) || !inline_ok(wr->opcode))
		return sqe_set_sges(qp, e, wr->sg_list, (size_t)wr->num_sge);
	for (i = 0; i < wr->num_sge; i++) {
		err = sqe_add_inline(qp, e,
				     (void *)(uintptr_t)wr->sg_list[i].addr,
				     wr->sg_list[i].length);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The doorbell: a POST_SEND (or POST_RECV) write command with no WR, which
 * the kernel takes as "look at the ring". Written directly: libibverbs'
 * ibv_cmd_post_send() refuses an empty list.
 */
static int doorbell(struct ibv_qp *ibqp, uint32_t command)
{
	struct ib_uverbs_post_send_resp resp;
	struct ibv_post_send cmd = {
		.hdr = {
			.command = command,
			.in_words = sizeof(cmd) / 4,
			.out_words = sizeof(resp) / 4,
		},
		.core_payload = {
			.response = (uintptr_t)&resp,
			.qp_handle = ibqp->handle,
			.wqe_size = sizeof(struct ib_uverbs_send_wr),
		},
	};

	/* POST_RECV's request has POST_SEND's layout; only the WR size differs */
	_Static_assert(sizeof(struct ib_uverbs_post_recv) ==
		       sizeof(struct ib_uverbs_post_send) &&
		       offsetof(struct ib_uverbs_post_recv, wqe_size) ==
		       offsetof(struct ib_uverbs_post_send, wqe_size),
		       "POST_RECV and POST_SEND requests differ");
	if (command == IB_USER_VERBS_CMD_POST_RECV)
		cmd.core_payload.wqe_size = sizeof(struct ib_uverbs_recv_wr);
	if (write(ibqp->context->cmd_fd, &cmd, cmd.hdr.in_words * 4) !=
	    cmd.hdr.in_words * 4)
		return errno;
	return 0;
}

/*
 * Hand the @n entries built past the producer index to the kernel, drop the
 * SQ lock, then ring the doorbell if the kernel needs it: UD is sent by the
 * kernel at the doorbell only, RC and UC when the kernel asked (ring.h).
 */
static int sq_commit(struct mroce_qp *qp, uint32_t n)
{
	struct mre_ring *r = &qp->sq.r;
	uint32_t flags;

	if (n)
		mre_ring_publish(r, n);
	pthread_spin_unlock(&qp->sq.lock);
	if (!n)
		return 0;
	mre_ring_mb();
	flags = mre_ring_load(&r->hdr->flags);
	if (qp->vqp.qp.qp_type == IBV_QPT_UD ||
	    flags & (MRE_RING_F_DB_NEEDED | MRE_RING_F_ERROR))
		return doorbell(&qp->vqp.qp, IB_USER_VERBS_CMD_POST_SEND);
	return 0;
}

int mroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad)
{
	struct mroce_qp *qp = to_mroce_qp(ibqp);
	struct mre_ring *r = &qp->sq.r;
	uint32_t n = 0;
	int err = 0, db_err;

	if (ibqp->state == IBV_QPS_RESET) {
		*bad = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->sq.lock);
	for (; wr; wr = wr->next, n++) {
		if (mre_ring_space(r) <= n) {
			err = ENOMEM;
			break;
		}
		err = build_sqe(qp, mre_ring_entry(r, r->prod + n), wr);
		if (err)
			break;
	}
	db_err = sq_commit(qp, n);
	if (err) {
		*bad = wr;
		return err;
	}
	return db_err;
}

/*
 * ibv_bind_mw(): a type 1 MW is bound by a BIND_MW WQE like a type 2 one;
 * its rkey changes at once (the completion says whether the bind took).
 */
int mroce_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *ibmw,
		  struct ibv_mw_bind *mw_bind)
{
	struct mroce_qp *qp = to_mroce_qp(ibqp);
	struct mre_ring *r = &qp->sq.r;
	uint32_t rkey = ibv_inc_rkey(ibmw->rkey);
	struct mroce_sqe *e;
	int err, db_err;

	if (ibqp->state == IBV_QPS_RESET)
		return EINVAL;
	pthread_spin_lock(&qp->sq.lock);
	if (!mre_ring_space(r)) {
		err = ENOMEM;
	} else {
		e = mre_ring_entry(r, r->prod);
		err = sqe_init(qp, e, IBV_WR_BIND_MW, mw_bind->wr_id,
			       mw_bind->send_flags);
		if (!err)
			err = sqe_bind(e, ibmw, rkey, &mw_bind->bind_info,
				       true);
	}
	if (!err)
		ibmw->rkey = rkey;
	db_err = sq_commit(qp, err ? 0 : 1);
	return err ? err : db_err;
}

/*
 * ---- The ibv_wr_* interface (ibv_qp_ex) ----------------------------------
 *
 * wr_start takes the SQ lock, each builder fills the next slot past the
 * producer index, the setters complete it, and wr_complete publishes them
 * all with post_send's sq_commit(); wr_abort drops them, as does
 * wr_complete after any error, which it returns (the builders and setters
 * cannot). The errors are post_send's.
 */

static struct mroce_sqe *wr_last(const struct mroce_qp *qp)
{
	return mre_ring_entry(&qp->sq.r, qp->sq.r.prod + qp->wr_n - 1);
}

static void wr_fail(struct mroce_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
}

/* a builder: the next entry, or NULL once the session has failed */
static struct mroce_sqe *wr_begin(struct ibv_qp_ex *ibqpx,
				  enum ibv_wr_opcode op)
{
	struct mroce_qp *qp = to_mroce_qp(ibqpx);
	struct mre_ring *r = &qp->sq.r;
	struct mroce_sqe *e;
	int err;

	if (qp->wr_need_addr)
		wr_fail(qp, EINVAL);	/* the last UD entry went nowhere */
	if (qp->wr_err)
		return NULL;
	if (mre_ring_space(r) <= qp->wr_n) {
		wr_fail(qp, ENOMEM);
		return NULL;
	}
	e = mre_ring_entry(r, r->prod + qp->wr_n);
	/* the data setter says whether the data is inline */
	err = sqe_init(qp, e, op, ibqpx->wr_id,
		       ibqpx->wr_flags & ~IBV_SEND_INLINE);
	if (err) {
		wr_fail(qp, err);
		return NULL;
	}
	qp->wr_n++;
	qp->wr_need_addr = qp->vqp.qp.qp_type == IBV_QPT_UD;
	return e;
}

/* a builder of an RDMA or atomic operation */
static struct mroce_sqe *wr_begin_remote(struct ibv_qp_ex *ibqpx,
					 enum ibv_wr_opcode op, uint32_t rkey,
					 uint64_t remote_addr)
{
	struct mroce_sqe *e = wr_begin(ibqpx, op);

	if (e) {
		e->rkey = rkey;
		e->remote_addr = remote_addr;
	}
	return e;
}

/* a setter: the entry the last builder made, or NULL */
static struct mroce_sqe *wr_cur(struct mroce_qp *qp)
{
	if (qp->wr_err)
		return NULL;
	if (!qp->wr_n) {
		wr_fail(qp, EINVAL);	/* a setter before any builder */
		return NULL;
	}
	return wr_last(qp);
}

static void mroce_wr_send(struct ibv_qp_ex *ibqpx)
{
	wr_begin(ibqpx, IBV_WR_SEND);
}

static void mroce_wr_send_imm(struct ibv_qp_ex *ibqpx, __be32 imm_data)
{
	struct mroce_sqe *e = wr_begin(ibqpx, IBV_WR_SEND_WITH_IMM);

	if (e)
		e->imm_data = imm_data;
}

static void mroce_wr_rdma_write(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				uint64_t remote_addr)
{
	wr_begin_remote(ibqpx, IBV_WR_RDMA_WRITE, rkey, remote_addr);
}

static void mroce_wr_rdma_write_imm(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				    uint64_t remote_addr, __be32 imm_data)
{
	struct mroce_sqe *e = wr_begin_remote(ibqpx, IBV_WR_RDMA_WRITE_WITH_IMM,
					      rkey, remote_addr);

	if (e)
		e->imm_data = imm_data;
}

static void mroce_wr_rdma_read(struct ibv_qp_ex *ibqpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	wr_begin_remote(ibqpx, IBV_WR_RDMA_READ, rkey, remote_addr);
}

static void mroce_wr_atomic_cmp_swp(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t compare,
				    uint64_t swap)
{
	struct mroce_sqe *e = wr_begin_remote(ibqpx, IBV_WR_ATOMIC_CMP_AND_SWP,
					      rkey, remote_addr);

	if (e) {
		e->compare_add = compare;
		e->swap = swap;
	}
}

static void mroce_wr_atomic_fetch_add(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				      uint64_t remote_addr, uint64_t add)
{
	struct mroce_sqe *e = wr_begin_remote(ibqpx,
					      IBV_WR_ATOMIC_FETCH_AND_ADD,
					      rkey, remote_addr);

	if (e)
		e->compare_add = add;
}

static void mroce_wr_set_ud_addr(struct ibv_qp_ex *ibqpx, struct ibv_ah *ah,
				 uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct mroce_qp *qp = to_mroce_qp(ibqpx);
	struct mroce_sqe *e = wr_cur(qp);

	if (!e)
		return;
	if (qp->vqp.qp.qp_type != IBV_QPT_UD || !ah) {
		wr_fail(qp, EINVAL);
		return;
	}
	e->ah = to_mroce_ah(ah)->id;
	e->remote_qpn = remote_qpn;
	e->remote_qkey = remote_qkey;
	qp->wr_need_addr = false;
}

static void mroce_wr_set_sge_list(struct ibv_qp_ex *ibqpx, size_t num_sge,
				  const struct ibv_sge *sg_list)
{
	struct mroce_qp *qp = to_mroce_qp(ibqpx);
	struct mroce_sqe *e = wr_cur(qp);
	int err;

	if (!e)
		return;
	e->send_flags &= ~IBV_SEND_INLINE;
	e->length = 0;
	err = sqe_set_sges(qp, e, sg_list, num_sge);
	if (err)
		wr_fail(qp, err);
}

static void mroce_wr_set_sge(struct ibv_qp_ex *ibqpx, uint32_t lkey,
			     uint64_t addr, uint32_t length)
{
	const struct ibv_sge sge = {
		.addr = addr, .length = length, .lkey = lkey,
	};

	mroce_wr_set_sge_list(ibqpx, 1, &sge);
}

static void mroce_wr_set_inline_data_list(struct ibv_qp_ex *ibqpx,
					  size_t num_buf,
					  const struct ibv_data_buf *buf_list)
{
	struct mroce_qp *qp = to_mroce_qp(ibqpx);
	struct mroce_sqe *e = wr_cur(qp);
	size_t i;
	int err = 0;

	if (!e)
		return;
	if (!inline_ok(e->opcode)) {
		wr_fail(qp, EINVAL);
		return;
	}
	e->send_flags |= IBV_SEND_INLINE;
	e->num_sge = 0;
	e->length = 0;
	for (i = 0; i < num_buf && !err; i++)
		err = sqe_add_inline(qp, e, buf_list[i].addr,
				     buf_list[i].length);
	if (err)
		wr_fail(qp, err);
}

static void mroce_wr_set_inline_data(struct ibv_qp_ex *ibqpx, void *addr,
				     size_t length)
{
	const struct ibv_data_buf buf = { .addr = addr, .length = length };

	mroce_wr_set_inline_data_list(ibqpx, 1, &buf);
}

/* a type 2 MW (type 1: ibv_bind_mw()); its rkey becomes @rkey */
static void mroce_wr_bind_mw(struct ibv_qp_ex *ibqpx, struct ibv_mw *mw,
			     uint32_t rkey,
			     const struct ibv_mw_bind_info *bind_info)
{
	struct mroce_sqe *e = wr_begin(ibqpx, IBV_WR_BIND_MW);
	int err;

	if (!e)
		return;
	err = sqe_bind(e, mw, rkey, bind_info, false);
	if (err)
		wr_fail(to_mroce_qp(ibqpx), err);
}

static void mroce_wr_local_inv(struct ibv_qp_ex *ibqpx,
			       uint32_t invalidate_rkey)
{
	struct mroce_sqe *e = wr_begin(ibqpx, IBV_WR_LOCAL_INV);

	if (e)
		e->imm_data = invalidate_rkey;
}

static void mroce_wr_send_inv(struct ibv_qp_ex *ibqpx,
			      uint32_t invalidate_rkey)
{
	struct mroce_sqe *e = wr_begin(ibqpx, IBV_WR_SEND_WITH_INV);

	if (e)
		e->imm_data = invalidate_rkey;
}

/*
 * What mroce does not offer: creating a QP that asks for these fails with
 * EOPNOTSUPP; called anyway, they fail the session the same way.
 */

static void mroce_wr_send_tso(struct ibv_qp_ex *ibqpx, void *hdr,
			      uint16_t hdr_sz, uint16_t mss)
{
	wr_fail(to_mroce_qp(ibqpx), EOPNOTSUPP);
}

static void mroce_wr_set_xrc_srqn(struct ibv_qp_ex *ibqpx,
				  uint32_t remote_srqn)
{
	wr_fail(to_mroce_qp(ibqpx), EOPNOTSUPP);
}

/* the 8 bytes at @atomic_wr go in the entry: no SGE, no setter */
static void mroce_wr_atomic_write(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				  uint64_t remote_addr, const void *atomic_wr)
{
	struct mroce_sqe *e = wr_begin_remote(ibqpx, IBV_WR_ATOMIC_WRITE,
					      rkey, remote_addr);

	if (e) {
		memcpy(&e->compare_add, atomic_wr, sizeof(e->compare_add));
		e->length = sizeof(e->compare_add);
	}
}

static void mroce_wr_start(struct ibv_qp_ex *ibqpx)
{
	struct mroce_qp *qp = to_mroce_qp(ibqpx);

	pthread_spin_lock(&qp->sq.lock);
	qp->wr_n = 0;
	qp->wr_err = qp->vqp.qp.state == IBV_QPS_RESET ? EINVAL : 0;
	qp->wr_need_addr = false;
}

static int mroce_wr_complete(struct ibv_qp_ex *ibqpx)
{
	struct mroce_qp *qp = to_mroce_qp(ibqpx);
	int err, db_err;

	if (qp->wr_need_addr)
		wr_fail(qp, EINVAL);
	err = qp->wr_err;
	db_err = sq_commit(qp, err ? 0 : qp->wr_n);
	return err ? err : db_err;
}

static void mroce_wr_abort(struct ibv_qp_ex *ibqpx)
{
	pthread_spin_unlock(&to_mroce_qp(ibqpx)->sq.lock);
}

/* every op, whatever send_ops_flags asked for: check_opcode() decides */
void mroce_qp_ex_init(struct mroce_qp *qp)
{
	struct ibv_qp_ex *x = &qp->vqp.qp_ex;

	x->wr_atomic_cmp_swp = mroce_wr_atomic_cmp_swp;
	x->wr_atomic_fetch_add = mroce_wr_atomic_fetch_add;
	x->wr_bind_mw = mroce_wr_bind_mw;
	x->wr_local_inv = mroce_wr_local_inv;
	x->wr_rdma_read = mroce_wr_rdma_read;
	x->wr_rdma_write = mroce_wr_rdma_write;
	x->wr_rdma_write_imm = mroce_wr_rdma_write_imm;
	x->wr_send = mroce_wr_send;
	x->wr_send_imm = mroce_wr_send_imm;
	x->wr_send_inv = mroce_wr_send_inv;
	x->wr_send_tso = mroce_wr_send_tso;
	x->wr_set_ud_addr = mroce_wr_set_ud_addr;
	x->wr_set_xrc_srqn = mroce_wr_set_xrc_srqn;
	x->wr_set_inline_data = mroce_wr_set_inline_data;
	x->wr_set_inline_data_list = mroce_wr_set_inline_data_list;
	x->wr_set_sge = mroce_wr_set_sge;
	x->wr_set_sge_list = mroce_wr_set_sge_list;
	x->wr_start = mroce_wr_start;
	x->wr_complete = mroce_wr_complete;
	x->wr_abort = mroce_wr_abort;
	x->wr_atomic_write = mroce_wr_atomic_write;
	qp->vqp.comp_mask |= VERBS_QP_EX;
}

/* ---- RQ and SRQ ----------------------------------------------------------- */

static int post_rqes(struct mroce_uring *u, uint32_t max_sge,
		     struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct mre_ring *r = &u->r;
	uint32_t n = 0;
	int err = 0, i;

	pthread_spin_lock(&u->lock);
	for (; wr; wr = wr->next, n++) {
		struct mroce_rqe *e;

		if (mre_ring_space(r) <= n) {
			err = ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge) {
			err = EINVAL;
			break;
		}
		e = mre_ring_entry(r, r->prod + n);
		e->wr_id = wr->wr_id;
		e->num_sge = wr->num_sge;
		e->reserved = 0;
		for (i = 0; i < wr->num_sge; i++) {
			e->sge[i].addr = wr->sg_list[i].addr;
			e->sge[i].length = wr->sg_list[i].length;
			e->sge[i].lkey = wr->sg_list[i].lkey;
		}
	}
	if (n)
		mre_ring_publish(r, n);
	pthread_spin_unlock(&u->lock);
	if (err)
		*bad = wr;
	return err;
}

int mroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad)
{
	struct mroce_qp *qp = to_mroce_qp(ibqp);
	int err;

	/* the QP receives from an SRQ, or is in RESET (C10-97.2.1) */
	if (!qp->rq.map || ibqp->state == IBV_QPS_RESET) {
		*bad = wr;
		return EINVAL;
	}
	err = post_rqes(&qp->rq, qp->max_recv_sge, wr, bad);
	/* receives are taken as messages arrive; a QP in error flushes them */
	mre_ring_mb();
	if (mre_ring_load(&qp->sq.r.hdr->flags) & MRE_RING_F_ERROR)
		doorbell(ibqp, IB_USER_VERBS_CMD_POST_RECV);
	return err;
}

int mroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad)
{
	struct mroce_srq *srq = to_mroce_srq(ibsrq);

	return post_rqes(&srq->q, srq->max_sge, wr, bad);
}
