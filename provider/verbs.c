// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The control path: CQs, QPs, SRQs, MRs and AHs are created by the kernel
 * (ibv_cmd_*); the rings of CQs, QPs and SRQs are then mapped here, so that
 * posting and polling (post.c) need no system call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mroce.h"

/* map a ring the kernel described at @*map; 0 or an errno */
static int ring_mmap(struct ibv_context *ibctx, uint64_t offset, uint64_t len,
		     uint32_t size, uint32_t stride, void **map)
{
	if (!len || !size || (size & (size - 1)) || !stride ||
	    len < MRE_RING_HDR_SIZE + (uint64_t)size * stride)
		return EINVAL;
	*map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		    ibctx->cmd_fd, offset);
	if (*map == MAP_FAILED) {
		*map = NULL;
		return errno;
	}
	return 0;
}

/* map the ring the kernel described; 0 or an errno */
static int uring_map(struct mroce_uring *u, struct ibv_context *ibctx,
		     uint64_t offset, uint64_t len, uint32_t size,
		     uint32_t stride)
{
	int err = ring_mmap(ibctx, offset, len, size, stride, &u->map);

	if (err)
		return err;
	u->len = len;
	mre_ring_init(&u->r, u->map, size, stride);
	pthread_spin_init(&u->lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

static void uring_unmap(struct mroce_uring *u)
{
	if (!u->map)
		return;
	munmap(u->map, u->len);
	pthread_spin_destroy(&u->lock);
	u->map = NULL;
}

/* ---- CQ ------------------------------------------------------------------ */

struct mroce_create_cq_resp_all {
	struct ib_uverbs_create_cq_resp ibv_resp;
	struct mroce_create_cq_resp drv;
};

static struct mroce_cq *create_cq(struct ibv_context *ibctx, int cqe,
				  struct ibv_comp_channel *channel,
				  int comp_vector)
{
	struct mroce_create_cq_resp_all resp = {};
	struct ibv_create_cq cmd = {};
	struct mroce_cq *cq;
	int err;

	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd, sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_free;
	err = uring_map(&cq->q, ibctx, resp.drv.mmap_offset, resp.drv.mmap_len,
			resp.drv.size, resp.drv.stride);
	if (err) {
		mroce_err(&to_mroce_ctx(ibctx)->vctx, "cannot map CQ: %s\n",
			  strerror(err));
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		goto err_free;
	}
	return cq;

err_free:
	free(cq);
	errno = err;
	return NULL;
}

struct ibv_cq *mroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector)
{
	struct mroce_cq *cq = create_cq(ibctx, cqe, channel, comp_vector);

	return cq ? &cq->vcq.cq : NULL;
}

enum {
	/* what the CQE has: every standard field, no timestamp, VLAN, tag */
	MROCE_CQ_WC_FLAGS = IBV_WC_STANDARD_FLAGS,
	/* a hint: the CQ locks anyway */
	MROCE_CQ_CREATE_FLAGS = IBV_CREATE_CQ_ATTR_SINGLE_THREADED,
};

/*
 * The extended CQ: the same kernel CQ and ring as ibv_create_cq() (made
 * with the legacy command), polled with the ibv_cq_ex ops (post.c).
 * libibverbs has refused wc_flags it does not know and will fill channel
 * and cq_context. A parent domain (IBV_CQ_INIT_ATTR_MASK_PD), a wc_flag
 * beyond the standard ones (timestamps, CVLAN, flow tag, TM info) and a
 * create flag other than SINGLE_THREADED (IGNORE_OVERRUN) are EOPNOTSUPP.
 */
struct ibv_cq_ex *mroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr)
{
	struct mroce_context *ctx = to_mroce_ctx(ibctx);
	struct mroce_cq *cq;

	if (attr->comp_mask & ~IBV_CQ_INIT_ATTR_MASK_FLAGS) {
		mroce_err(&ctx->vctx, "unsupported comp_mask %#x\n",
			  attr->comp_mask);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->wc_flags & ~(uint64_t)MROCE_CQ_WC_FLAGS) {
		mroce_err(&ctx->vctx, "unsupported wc_flags %#llx\n",
			  (unsigned long long)(attr->wc_flags &
					       ~(uint64_t)MROCE_CQ_WC_FLAGS));
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS &&
	    attr->flags & ~MROCE_CQ_CREATE_FLAGS) {
		mroce_err(&ctx->vctx, "unsupported create flags %#x\n",
			  attr->flags);
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = create_cq(ibctx, attr->cqe, attr->channel, attr->comp_vector);
	if (!cq)
		return NULL;
	mroce_cq_ex_init(cq);
	return &cq->vcq.cq_ex;
}

struct mroce_resize_cq_resp_all {
	struct ib_uverbs_resize_cq_resp ibv_resp;
	struct mroce_resize_cq_resp drv;
};

/*
 * The kernel moves the CQEs not polled yet to a new ring and answers with
 * it (mroce-abi.h); we hold the CQ's lock over the command, so nothing is
 * polled twice, then map the new ring and unmap the old one. An error from
 * the command (EINVAL: more CQEs outstanding than @cqe) leaves the CQ as it
 * was. Once the kernel has switched, only the mmap can fail (no address
 * space left): the CQ then has no ring we can see, is made to look empty,
 * and must be destroyed.
 */
int mroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct mroce_resize_cq_resp_all resp = {};
	struct mroce_cq *cq = to_mroce_cq(ibcq);
	struct ibv_resize_cq cmd = {};
	struct mre_ring *r = &cq->q.r;
	void *map;
	int err;

	pthread_spin_lock(&cq->q.lock);
	err = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (err)
		goto out;
	err = ring_mmap(ibcq->context, resp.drv.mmap_offset,
			resp.drv.mmap_len, resp.drv.size, resp.drv.stride,
			&map);
	if (err) {
		mroce_err(&to_mroce_ctx(ibcq->context)->vctx,
			  "cannot map the resized CQ (%s): it is lost\n",
			  strerror(err));
		/* the kernel no longer writes the old ring: make it empty */
		r->prod = r->cons;
		mre_ring_store(&r->hdr->prod, r->cons);
		goto out;
	}
	munmap(cq->q.map, cq->q.len);
	cq->q.map = map;
	cq->q.len = resp.drv.mmap_len;
	/* the kernel's new ring starts at index 0, the CQEs kept before prod */
	mre_ring_init(r, map, resp.drv.size, resp.drv.stride);
out:
	pthread_spin_unlock(&cq->q.lock);
	return err;
}

int mroce_destroy_cq(struct ibv_cq *ibcq)
{
	struct mroce_cq *cq = to_mroce_cq(ibcq);
	int err = ibv_cmd_destroy_cq(ibcq);

	if (err)
		return err;
	uring_unmap(&cq->q);
	free(cq);
	return 0;
}

int mroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}

/* ---- MR ------------------------------------------------------------------ */

/* a registration's outcome: the MR, or NULL with errno @err (@mr freed) */
static struct ibv_mr *mr_done(struct mroce_mr *mr, int err)
{
	if (!err)
		return &mr->vmr.ibv_mr;
	free(mr);
	errno = err;
	return NULL;
}

struct ibv_mr *mroce_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length,
			    uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct mroce_mr *mr = calloc(1, sizeof(*mr));

	if (!mr)
		return mr_done(NULL, ENOMEM);
	return mr_done(mr, ibv_cmd_reg_mr(ibpd, addr, length, hca_va, access,
					  &mr->vmr, &cmd, sizeof(cmd), &resp,
					  sizeof(resp)));
}

/* the kernel reaches the dma-buf through its exporter's kernel mapping */
struct ibv_mr *mroce_reg_dmabuf_mr(struct ibv_pd *ibpd, uint64_t offset,
				   size_t length, uint64_t iova, int fd,
				   int access)
{
	struct mroce_mr *mr = calloc(1, sizeof(*mr));

	if (!mr)
		return mr_done(NULL, ENOMEM);
	return mr_done(mr, ibv_cmd_reg_dmabuf_mr(ibpd, offset, length, iova,
						 fd, access, &mr->vmr));
}

/*
 * The kernel keeps the lkey and rkey (libibverbs copies them into the
 * ibv_mr anyway); libibverbs has checked the flags.
 */
int mroce_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		   void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;

	return ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
				access, pd, &cmd, sizeof(cmd), &resp,
				sizeof(resp));
}

int mroce_dereg_mr(struct verbs_mr *vmr)
{
	int err = ibv_cmd_dereg_mr(vmr);

	if (err)
		return err;
	free(vmr);
	return 0;
}

/* ---- MW ------------------------------------------------------------------ */

/*
 * Types 1 and 2 (2B: bound to the QP that binds it); the kernel refuses
 * any other type (EINVAL). Binding is a send WQE (post.c).
 */
struct ibv_mw *mroce_alloc_mw(struct ibv_pd *ibpd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct mroce_mw *mw;
	int err;

	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_alloc_mw(ibpd, type, &mw->ibv_mw, &cmd, sizeof(cmd),
			       &resp, sizeof(resp));
	if (err) {
		free(mw);
		errno = err;
		return NULL;
	}
	return &mw->ibv_mw;
}

int mroce_dealloc_mw(struct ibv_mw *ibmw)
{
	int err = ibv_cmd_dealloc_mw(ibmw);

	if (err)
		return err;
	free(ibmw);
	return 0;
}

/* ---- QP ------------------------------------------------------------------ */

struct mroce_create_qp_resp_all {
	struct ib_uverbs_create_qp_resp ibv_resp;
	struct mroce_create_qp_resp drv;
};

/* the QP with its rings mapped; NULL with errno set */
static struct mroce_qp *create_qp(struct ibv_pd *ibpd,
				  struct ibv_qp_init_attr *attr)
{
	struct mroce_create_qp_resp_all resp = {};
	struct ibv_context *ibctx = ibpd->context;
	struct ibv_create_qp cmd = {};
	struct mroce_qp *qp;
	int err;

	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    attr->qp_type != IBV_QPT_UD) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_create_qp(ibpd, &qp->vqp.qp, attr, &cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_free;
	err = uring_map(&qp->sq, ibctx, resp.drv.sq_mmap_offset,
			resp.drv.sq_mmap_len, resp.drv.sq_size,
			resp.drv.sq_stride);
	if (err)
		goto err_destroy;
	if (!attr->srq) {
		err = uring_map(&qp->rq, ibctx, resp.drv.rq_mmap_offset,
				resp.drv.rq_mmap_len, resp.drv.rq_size,
				resp.drv.rq_stride);
		if (err)
			goto err_unmap;
	}
	qp->max_inline = resp.drv.max_inline;
	qp->max_send_sge = resp.drv.max_send_sge;
	qp->max_recv_sge = resp.drv.max_recv_sge;
	/* what the kernel granted (ibv_create_qp's contract) */
	attr->cap.max_send_wr = resp.drv.sq_size;
	attr->cap.max_recv_wr = attr->srq ? 0 : resp.drv.rq_size;
	attr->cap.max_send_sge = resp.drv.max_send_sge;
	attr->cap.max_recv_sge = attr->srq ? 0 : resp.drv.max_recv_sge;
	attr->cap.max_inline_data = resp.drv.max_inline;
	return qp;

err_unmap:
	uring_unmap(&qp->sq);
err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	free(qp);
	errno = err;
	return NULL;
}

struct ibv_qp *mroce_create_qp(struct ibv_pd *ibpd,
			       struct ibv_qp_init_attr *attr)
{
	struct mroce_qp *qp = create_qp(ibpd, attr);

	return qp ? &qp->vqp.qp : NULL;
}

enum {
	MROCE_QP_COMP_MASK = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_CREATE_FLAGS |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
	MROCE_UD_SEND_OPS = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM,
	MROCE_UC_SEND_OPS = MROCE_UD_SEND_OPS |
			    IBV_QP_EX_WITH_RDMA_WRITE |
			    IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
	MROCE_RC_SEND_OPS = MROCE_UC_SEND_OPS |
			    IBV_QP_EX_WITH_RDMA_READ |
			    IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
			    IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
			    IBV_QP_EX_WITH_ATOMIC_WRITE |
			    IBV_QP_EX_WITH_BIND_MW |
			    IBV_QP_EX_WITH_LOCAL_INV |
			    IBV_QP_EX_WITH_SEND_WITH_INV,
};

/*
 * What ibv_create_qp_ex() may ask of mroce. As rxe and efa answer: a
 * feature mroce lacks (XRC, RSS, TSO, create flags, memory windows and
 * invalidation on UD, an unknown comp_mask or send_ops_flags
 * bit) is EOPNOTSUPP; a request without its PD is EINVAL.
 */
static int check_qp_init_attr_ex(struct mroce_context *ctx,
				 const struct ibv_qp_init_attr_ex *attr)
{
	uint64_t ops = attr->qp_type == IBV_QPT_RC ? MROCE_RC_SEND_OPS :
		       attr->qp_type == IBV_QPT_UC ? MROCE_UC_SEND_OPS :
		       MROCE_UD_SEND_OPS;

	if (attr->comp_mask & ~MROCE_QP_COMP_MASK) {
		mroce_err(&ctx->vctx, "unsupported comp_mask %#x\n",
			  attr->comp_mask);
		return EOPNOTSUPP;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd)
		return EINVAL;
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    attr->qp_type != IBV_QPT_UD)
		return EOPNOTSUPP;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS &&
	    attr->create_flags)
		return EOPNOTSUPP;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS &&
	    attr->send_ops_flags & ~ops) {
		mroce_err(&ctx->vctx, "unsupported send_ops_flags %#llx\n",
			  (unsigned long long)(attr->send_ops_flags & ~ops));
		return EOPNOTSUPP;
	}
	return 0;
}

struct ibv_qp *mroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_init_attr base;
	struct mroce_qp *qp;
	int err;

	err = check_qp_init_attr_ex(to_mroce_ctx(ibctx), attr);
	if (err) {
		errno = err;
		return NULL;
	}
	base = (struct ibv_qp_init_attr){
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
	};
	qp = create_qp(attr->pd, &base);
	if (!qp)
		return NULL;
	attr->cap = base.cap;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		mroce_qp_ex_init(qp);
	return &qp->vqp.qp;
}

/*
 * RESET: the QP's completions still in @ibcq go (as on mlx5), so that a QP
 * brought back up does not hand out the flushes of its last life. The
 * others keep their order; only entries the kernel has published are
 * moved, and it writes only past them.
 */
static void cq_clean(struct ibv_cq *ibcq, uint32_t qpn)
{
	struct mroce_cq *cq = to_mroce_cq(ibcq);
	struct mre_ring *r = &cq->q.r;
	uint32_t i, kept;

	pthread_spin_lock(&cq->q.lock);
	mre_ring_avail(r);
	kept = r->prod;
	for (i = r->prod; i != r->cons;) {
		struct mroce_cqe *e = mre_ring_entry(r, --i);

		if (e->qp_num == qpn)
			continue;
		if (--kept != i)
			memcpy(mre_ring_entry(r, kept), e, r->stride);
	}
	mre_ring_release(r, kept);
	pthread_spin_unlock(&cq->q.lock);
}

int mroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask)
{
	struct mroce_qp *qp = to_mroce_qp(ibqp);
	struct ibv_modify_qp cmd = {};
	int err;

	err = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (err)
		return err;
	/* RESET empties the queues: the kernel zeroed the shared indices */
	if (attr_mask & IBV_QP_STATE && attr->qp_state == IBV_QPS_RESET) {
		pthread_spin_lock(&qp->sq.lock);
		qp->sq.r.prod = qp->sq.r.cons = 0;
		pthread_spin_unlock(&qp->sq.lock);
		if (qp->rq.map) {
			pthread_spin_lock(&qp->rq.lock);
			qp->rq.r.prod = qp->rq.r.cons = 0;
			pthread_spin_unlock(&qp->rq.lock);
		}
		cq_clean(ibqp->send_cq, ibqp->qp_num);
		if (ibqp->recv_cq && ibqp->recv_cq != ibqp->send_cq)
			cq_clean(ibqp->recv_cq, ibqp->qp_num);
	}
	return 0;
}

int mroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

int mroce_destroy_qp(struct ibv_qp *ibqp)
{
	struct mroce_qp *qp = to_mroce_qp(ibqp);
	int err = ibv_cmd_destroy_qp(ibqp);

	if (err)
		return err;
	uring_unmap(&qp->rq);
	uring_unmap(&qp->sq);
	free(qp);
	return 0;
}

/* ---- SRQ ----------------------------------------------------------------- */

struct mroce_create_srq_resp_all {
	struct ib_uverbs_create_srq_resp ibv_resp;
	struct mroce_create_srq_resp drv;
};

struct ibv_srq *mroce_create_srq(struct ibv_pd *ibpd,
				 struct ibv_srq_init_attr *attr)
{
	struct mroce_create_srq_resp_all resp = {};
	struct ibv_create_srq cmd = {};
	struct mroce_srq *srq;
	int err;

	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_create_srq(ibpd, &srq->ibv_srq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_free;
	err = uring_map(&srq->q, ibpd->context, resp.drv.mmap_offset,
			resp.drv.mmap_len, resp.drv.size, resp.drv.stride);
	if (err) {
		ibv_cmd_destroy_srq(&srq->ibv_srq);
		goto err_free;
	}
	srq->max_sge = resp.drv.max_sge;
	return &srq->ibv_srq;

err_free:
	free(srq);
	errno = err;
	return NULL;
}

int mroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask)
{
	struct ibv_modify_srq cmd = {};

	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int mroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

int mroce_destroy_srq(struct ibv_srq *ibsrq)
{
	struct mroce_srq *srq = to_mroce_srq(ibsrq);
	int err = ibv_cmd_destroy_srq(ibsrq);

	if (err)
		return err;
	uring_unmap(&srq->q);
	free(srq);
	return 0;
}

/* ---- AH ------------------------------------------------------------------ */

struct mroce_create_ah_resp_all {
	struct ib_uverbs_create_ah_resp ibv_resp;
	struct mroce_create_ah_resp drv;
};

struct ibv_ah *mroce_create_ah(struct ibv_pd *ibpd, struct ibv_ah_attr *attr)
{
	struct mroce_create_ah_resp_all resp = {};
	struct mroce_ah *ah;
	int err;

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_create_ah(ibpd, &ah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (err) {
		free(ah);
		errno = err;
		return NULL;
	}
	ah->id = resp.drv.ah_id;
	return &ah->ibv_ah;
}

int mroce_destroy_ah(struct ibv_ah *ibah)
{
	int err = ibv_cmd_destroy_ah(ibah);

	if (err)
		return err;
	free(to_mroce_ah(ibah));
	return 0;
}
