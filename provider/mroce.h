/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdma-core provider for mroce devices: objects and helpers.
 */
#ifndef MROCE_PROVIDER_H
#define MROCE_PROVIDER_H

#include <pthread.h>
#include <stdint.h>
#include <rdma/mroce-abi.h>

#include "pabi34.h"
#include "ring.h"

struct mroce_device {
	struct verbs_device vdev;	/* first: libibverbs frees through it */
};

struct mroce_context {
	struct verbs_context vctx;	/* first */
	uint32_t caps;			/* enum mroce_ucontext_caps from the kernel */
};

struct mroce_pd {
	struct ibv_pd ibv_pd;
};

/* a ring mapped from the kernel (ring.h), with the lock of its own side */
struct mroce_uring {
	struct mre_ring r;
	void *map;
	size_t len;
	pthread_spinlock_t lock;
};

struct mroce_cq {
	struct verbs_cq vcq;		/* first: ibv_cq, ibv_cq_ex */
	struct mroce_uring q;		/* we consume; resize replaces it */
	/*
	 * ibv_cq_ex polling: a session (start_poll that found a CQE up to
	 * end_poll) holds q.lock; cur is the CQE the read_* ops read, not
	 * released yet (NULL once next_poll found nothing).
	 */
	const struct mroce_cqe *cur;
	bool polling;
};

struct mroce_qp {
	struct verbs_qp vqp;		/* first: ibv_qp, ibv_qp_ex */
	struct mroce_uring sq;		/* we produce */
	struct mroce_uring rq;		/* we produce; unmapped with an SRQ */
	uint32_t max_inline;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	/* ibv_wr_* between wr_start and wr_complete/wr_abort, under sq.lock */
	uint32_t wr_n;			/* entries built past sq.r.prod */
	int wr_err;			/* first error: nothing gets posted */
	bool wr_need_addr;		/* UD: the last entry has no address yet */
};

struct mroce_srq {
	struct ibv_srq ibv_srq;
	struct mroce_uring q;		/* we produce */
	uint32_t max_sge;
};

struct mroce_ah {
	struct ibv_ah ibv_ah;
	uint32_t id;			/* the kernel's: goes into each UD WQE */
};

struct mroce_mr {
	struct verbs_mr vmr;
};

struct mroce_mw {
	struct ibv_mw ibv_mw;
};

/* GET_CONTEXT response: core part, then ours (DECLARE_DRV_CMD's layout) */
struct mroce_get_context_resp {
	struct ib_uverbs_get_context_resp ibv_resp;
	struct mroce_alloc_ucontext_resp drv;
};

#define mroce_err(ctx, fmt, ...)					\
	__verbs_log(ctx, VERBS_LOG_ERR, "mroce: %s: %s: " fmt,		\
		    (ctx)->context.device->name, __func__, ##__VA_ARGS__)

static inline struct mroce_device *to_mroce_dev(struct ibv_device *ibdev)
{
	return (struct mroce_device *)ibdev;	/* vdev.device is first */
}

static inline struct mroce_context *to_mroce_ctx(struct ibv_context *ibctx)
{
	return (struct mroce_context *)((char *)ibctx -
		offsetof(struct mroce_context, vctx.context));
}

static inline struct mroce_pd *to_mroce_pd(struct ibv_pd *ibpd)
{
	return (struct mroce_pd *)ibpd;		/* ibv_pd is first */
}

/* every object's ibv_* struct is its first member */
#define to_mroce_cq(p)	((struct mroce_cq *)(p))	/* ibv_cq or ibv_cq_ex */
#define to_mroce_qp(p)	((struct mroce_qp *)(p))	/* ibv_qp or ibv_qp_ex */
#define to_mroce_srq(p)	((struct mroce_srq *)(p))
#define to_mroce_ah(p)	((struct mroce_ah *)(p))

/* verbs.c: the control path */
struct ibv_cq *mroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector);
struct ibv_cq_ex *mroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr);
int mroce_resize_cq(struct ibv_cq *ibcq, int cqe);
int mroce_destroy_cq(struct ibv_cq *ibcq);
int mroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
struct ibv_mr *mroce_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length,
			    uint64_t hca_va, int access);
struct ibv_mr *mroce_reg_dmabuf_mr(struct ibv_pd *ibpd, uint64_t offset,
				   size_t length, uint64_t iova, int fd,
				   int access);
int mroce_dereg_mr(struct verbs_mr *vmr);
int mroce_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		   void *addr, size_t length, int access);
struct ibv_mw *mroce_alloc_mw(struct ibv_pd *ibpd, enum ibv_mw_type type);
int mroce_dealloc_mw(struct ibv_mw *ibmw);
struct ibv_qp *mroce_create_qp(struct ibv_pd *ibpd,
			       struct ibv_qp_init_attr *attr);
struct ibv_qp *mroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr);
int mroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask);
int mroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr);
int mroce_destroy_qp(struct ibv_qp *ibqp);
struct ibv_srq *mroce_create_srq(struct ibv_pd *ibpd,
				 struct ibv_srq_init_attr *attr);
int mroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask);
int mroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int mroce_destroy_srq(struct ibv_srq *ibsrq);
struct ibv_ah *mroce_create_ah(struct ibv_pd *ibpd, struct ibv_ah_attr *attr);
int mroce_destroy_ah(struct ibv_ah *ibah);

/* post.c: the fast path, on the mapped rings */
int mroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
int mroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad);
int mroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad);
int mroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad);
int mroce_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *ibmw,
		  struct ibv_mw_bind *mw_bind);
void mroce_qp_ex_init(struct mroce_qp *qp);
void mroce_cq_ex_init(struct mroce_cq *cq);

#endif /* MROCE_PROVIDER_H */
