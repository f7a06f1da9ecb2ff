// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Object commands (include/mroce/offload.h, MROCE_OFL_OBJECTS): how the
 * verbs paths tell a device's offload of the PDs, MRs, MWs, CQs, SRQs and
 * QPs they create, change and destroy. Where and in which order each verb
 * issues its command is in Documentation/offload.rst ("Object commands");
 * the software datapath pays one test per verb.
 */
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "ah.h"
#include "cq.h"
#include "mr.h"
#include "queue.h"
#include "offload.h"
#include "oflcmd.h"
#include "qp.h"
#include "srq.h"
#include "mroce.h"

DEFINE_STATIC_KEY_FALSE(mroce_ofl_in_use);

static const char *const cmd_names[MROCE_OFL_CMD_MAX] = {
	[MROCE_OFL_CMD_PD_CREATE] = "PD_CREATE",
	[MROCE_OFL_CMD_PD_DESTROY] = "PD_DESTROY",
	[MROCE_OFL_CMD_MR_CREATE] = "MR_CREATE",
	[MROCE_OFL_CMD_MR_DESTROY] = "MR_DESTROY",
	[MROCE_OFL_CMD_MW_CREATE] = "MW_CREATE",
	[MROCE_OFL_CMD_MW_DESTROY] = "MW_DESTROY",
	[MROCE_OFL_CMD_CQ_CREATE] = "CQ_CREATE",
	[MROCE_OFL_CMD_CQ_RESIZE] = "CQ_RESIZE",
	[MROCE_OFL_CMD_CQ_DESTROY] = "CQ_DESTROY",
	[MROCE_OFL_CMD_SRQ_CREATE] = "SRQ_CREATE",
	[MROCE_OFL_CMD_SRQ_MODIFY] = "SRQ_MODIFY",
	[MROCE_OFL_CMD_SRQ_DESTROY] = "SRQ_DESTROY",
	[MROCE_OFL_CMD_QP_CREATE] = "QP_CREATE",
	[MROCE_OFL_CMD_QP_MODIFY] = "QP_MODIFY",
	[MROCE_OFL_CMD_QP_DESTROY] = "QP_DESTROY",
	[MROCE_OFL_CMD_AH_CREATE] = "AH_CREATE",
	[MROCE_OFL_CMD_AH_DESTROY] = "AH_DESTROY",
};

/* does the device's offload take object commands (and page lists)? */
static bool takes_objects(struct mroce_dev *mdev)
{
	const struct mroce_offload *ofl = mdev->ofl.ofl;

	return ofl && ofl->caps & MROCE_OFL_OBJECTS;
}

/**
 * mroce_ofl_cmd - tell the device's offload of an object (OBJECTS)
 * @mdev: the device
 * @c:    the command; mroce_ofl_cmd() sets its version
 *
 * Process context, no lock held that the datapath takes. 0 when the
 * device's offload has no MROCE_OFL_OBJECTS (the software datapath costs
 * a test), else the offload's answer. A refused DESTROY is logged: the
 * object goes anyway.
 */
int mroce_ofl_cmd(struct mroce_dev *mdev, struct mroce_ofl_cmd *c)
{
	const struct mroce_offload *ofl = mdev->ofl.ofl;
	int err;

	if (!(c->flags & MROCE_OFL_CF_ATOMIC))
		might_sleep();
	if (!takes_objects(mdev))
		return 0;
	c->version = MROCE_OFL_CMD_VERSION;
	err = ofl->cmd(mdev->ofl.priv, c);
	if (!err) {
		atomic64_inc(&mdev->ofl.cmds);
		return 0;
	}
	atomic64_inc(&mdev->ofl.cmd_errors);
	ibdev_warn_ratelimited(&mdev->ibdev, "offload %s: %s %u refused: %d\n",
			       ofl->name, c->op < MROCE_OFL_CMD_MAX &&
			       cmd_names[c->op] ? cmd_names[c->op] : "?",
			       c->id, err);
	return err;
}

static void forget(struct xarray *xa, u32 id)
{
	xa_erase(xa, id);
	synchronize_rcu();	/* events under way that found it */
}

/*
 * Command @c for @obj, a CQ or SRQ the NIC's events name by id (@xa): a
 * CREATE makes it findable before the NIC learns of it, a DESTROY makes it
 * unknown, and waits out the events that found it, before the NIC forgets.
 */
static int tell(struct mroce_dev *mdev, struct xarray *xa, void *obj,
		struct mroce_ofl_cmd *c, bool create, bool destroy)
{
	int err;

	if (destroy)
		forget(xa, c->id);
	if (create) {
		err = xa_insert(xa, c->id, obj, GFP_KERNEL);
		if (err)
			return err;
	}
	err = mroce_ofl_cmd(mdev, c);
	if (err && create)
		forget(xa, c->id);
	return err;
}

void mroce_ofl_unmap(struct mroce_ofl_map *m)
{
	u32 i;

	for (i = 0; m->dev && i < m->n; i++)
		dma_unmap_page(m->dev, m->addr[i], PAGE_SIZE, DMA_BIDIRECTIONAL);
	kvfree(m->addr);
	*m = (struct mroce_ofl_map){};
}

/* page @pg as the NIC reaches it, into *@a; -ENOMEM */
static int map_page(struct device *dev, struct page *pg, u64 *a)
{
	dma_addr_t d;

	if (!dev) {
		*a = page_to_phys(pg);
		return 0;
	}
	d = dma_map_page(dev, pg, 0, PAGE_SIZE, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, d))
		return -ENOMEM;
	*a = d;
	return 0;
}

/*
 * The @n pages page(@src, i) into @m for the device's offload, unless @m
 * holds them already (a command that puts a ring or an MR back). Up to
 * 2^28 pages (a 1 TiB MR): it yields the CPU as it goes.
 */
static int map_pages(struct mroce_dev *mdev, struct mroce_ofl_map *m, u32 n,
		     struct page *(*page)(const void *src, u32 i),
		     const void *src)
{
	int err;

	if (m->addr)
		return 0;
	m->addr = kvmalloc_array(n, sizeof(*m->addr), GFP_KERNEL);
	if (!m->addr)
		return -ENOMEM;
	m->dev = mdev->ofl.dma_dev;
	for (m->n = 0; m->n < n; m->n++) {
		err = map_page(m->dev, page(src, m->n), &m->addr[m->n]);
		if (err) {
			mroce_ofl_unmap(m);	/* the m->n mapped before */
			return err;
		}
		cond_resched();
	}
	return 0;
}

static struct page *ring_page(const void *q, u32 i)
{
	const struct mroce_queue *r = q;

	return vmalloc_to_page((u8 *)r->buf + (size_t)i * PAGE_SIZE);
}

/* @p: the pages of vmalloc'ed ring @q as the NIC reaches them (q->ofl) */
static int ring_pages(struct mroce_dev *mdev, struct mroce_queue *q,
		      struct mroce_ofl_pages *p)
{
	int err = map_pages(mdev, &q->ofl, q->len >> PAGE_SHIFT, ring_page, q);

	if (err)
		return err;
	*p = (struct mroce_ofl_pages){
		.addr = q->ofl.addr,
		.n = q->ofl.n,
		.shift = PAGE_SHIFT,
		.stride_log2 = ilog2(q->r.stride),
	};
	return 0;
}

/* tell the device's offload of @cq (MROCE_OFL_OBJECTS); @q: its ring */
int mroce_ofl_cq_cmd(struct mroce_cq *cq, u8 op, struct mroce_queue *q,
		     u32 vector)
{
	struct mroce_dev *mdev = to_mroce_dev(cq->ibcq.device);
	struct mroce_ofl_cmd c = {
		.op = op,
		.id = cq->id,
		.cq = { .vector = vector },
	};
	int err;

	if (!takes_objects(mdev))
		return 0;
	if (q) {
		c.cq.depth = q->r.size;
		err = ring_pages(mdev, q, &c.cq.ring);
		if (err)
			return err;
	}
	return tell(mdev, &mdev->ofl.cqs, cq, &c, op == MROCE_OFL_CMD_CQ_CREATE,
		    op == MROCE_OFL_CMD_CQ_DESTROY);
}

/* tell the device's offload of @srq (MROCE_OFL_OBJECTS) */
int mroce_ofl_srq_cmd(struct mroce_srq *srq, u8 op)
{
	struct mroce_dev *mdev = to_mroce_dev(srq->ibsrq.device);
	struct mroce_ofl_cmd c = {
		.op = op,
		.id = srq->id,
		.srq = {
			.pd = to_mroce_pd(srq->ibsrq.pd)->id,
			.depth = srq->q.r.size,
			.limit = READ_ONCE(srq->limit),	/* a limit event clears it */
		},
	};
	int err;

	if (!takes_objects(mdev))
		return 0;
	if (op == MROCE_OFL_CMD_SRQ_CREATE) {
		err = ring_pages(mdev, &srq->q, &c.srq.ring);
		if (err)
			return err;
	}
	return tell(mdev, &mdev->ofl.srqs, srq, &c,
		    op == MROCE_OFL_CMD_SRQ_CREATE,
		    op == MROCE_OFL_CMD_SRQ_DESTROY);
}

static struct page *mr_page(const void *mr, u32 i)
{
	return ((const struct mroce_mr *)mr)->pages[i];
}

/* tell the device's offload of @mr, in @pd (MROCE_OFL_OBJECTS) */
int mroce_ofl_mr_cmd(struct mroce_mr *mr, struct ib_pd *pd, u8 op, u16 flags)
{
	static const u8 kinds[] = {
		[MROCE_MR_USER] = MROCE_OFL_MR_USER,
		[MROCE_MR_DMA] = MROCE_OFL_MR_DMA,
		[MROCE_MR_FRWR] = MROCE_OFL_MR_FRWR,
		[MROCE_MR_DMABUF] = MROCE_OFL_MR_DMABUF,
	};
	struct mroce_ofl_cmd c = {
		.op = op,
		.flags = flags,
		.id = mr->id,
		.mr = {
			.pd = to_mroce_pd(pd)->id,
			.key = mr->key,
			.access = mr->access,
			.kind = kinds[mr->type],
			.iova = mr->iova,
			.length = mr->length,
		},
	};
	struct mroce_dev *mdev = to_mroce_dev(pd->device);
	int err;

	if (!takes_objects(mdev))
		return 0;
	/* a user MR's pinned pages, page i covering user VA start + i pages */
	if (op == MROCE_OFL_CMD_MR_CREATE && mr->type == MROCE_MR_USER) {
		err = map_pages(mdev, &mr->ofl, ib_umem_num_pages(mr->umem),
				mr_page, mr);
		if (err)
			return err;
		c.mr.pages = (struct mroce_ofl_pages){
			.addr = mr->ofl.addr, .n = mr->ofl.n, .shift = PAGE_SHIFT,
		};
		c.mr.offset = offset_in_page(mr->start);
	}
	return mroce_ofl_cmd(mdev, &c);
}

/* tell the device's offload of @mw (MROCE_OFL_OBJECTS) */
int mroce_ofl_mw_cmd(struct mroce_mw *mw, u8 op)
{
	struct mroce_ofl_cmd c = {
		.op = op,
		.id = mw->id,
		.mw = {
			.pd = to_mroce_pd(mw->ibmw.pd)->id,
			.key = mw->rkey,
			.type = mw->ibmw.type,
		},
	};

	return mroce_ofl_cmd(to_mroce_dev(mw->ibmw.device), &c);
}

/* @sa's address into @a (IPv4: its first 4 bytes), network order */
static void ah_addr(const struct sockaddr_storage *sa, u8 *a)
{
	if (sa->ss_family == AF_INET)
		memcpy(a, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else
		memcpy(a, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
}

/* tell the device's offload of @ah (MROCE_OFL_OBJECTS); any context */
int mroce_ofl_ah_cmd(struct mroce_ah *ah, u8 op, bool sleepable)
{
	const struct mroce_ah_addr *ad = ah->addr;
	struct mroce_ofl_cmd c = {
		.op = op,
		.flags = sleepable ? 0 : MROCE_OFL_CF_ATOMIC,
		.id = ah->id,
	};

	if (op == MROCE_OFL_CMD_AH_CREATE) {
		c.ah.pd = to_mroce_pd(ah->ibah.pd)->id;
		c.ah.family = ad->daddr.ss_family;
		ah_addr(&ad->saddr, c.ah.saddr);
		ah_addr(&ad->daddr, c.ah.daddr);
	}
	return mroce_ofl_cmd(to_mroce_dev(ah->ibah.device), &c);
}

static u32 cq_id(struct ib_cq *ibcq)
{
	return ibcq ? to_mroce_cq(ibcq)->id : 0;
}

/* tell the device's offload of @qp, now in @state; @mask: what changed */
int mroce_ofl_qp_cmd(struct mroce_qp *qp, u8 op, enum ib_qp_state state,
		     int mask)
{
	struct mroce_dev *mdev = mroce_qp_dev(qp);
	struct ib_qp *ibqp = &qp->ibqp;
	const struct sockaddr_storage *d = &qp->av.daddr;
	struct mroce_ofl_cmd c = {
		.op = op,
		.id = ibqp->qp_num,
		.qp = {
			.pd = to_mroce_pd(ibqp->pd)->id,
			.send_cq = cq_id(ibqp->send_cq),
			.recv_cq = cq_id(ibqp->recv_cq),
			.srq = qp->srq ? qp->srq->id : 0,
			.type = ibqp->qp_type,
			.state = state,
			.sq_log2 = ilog2(qp->sq.r.size),
			.rq_log2 = qp->srq ? 0 : ilog2(qp->rq.r.size),
		},
	};
	struct mroce_ofl_qp *a = &c.qp;
	int err = 0;

	if (!takes_objects(mdev))
		return 0;
	if (op == MROCE_OFL_CMD_QP_CREATE) {
		err = ring_pages(mdev, &qp->sq, &a->create.sq);
		if (!err && !qp->srq)
			err = ring_pages(mdev, &qp->rq, &a->create.rq);
		return err ?: mroce_ofl_cmd(mdev, &c);
	}
	a->modify.attr_mask = mask;
	a->modify.dest_qpn = qp->attr.dest_qp_num;
	a->modify.qkey = qp->attr.qkey;
	a->modify.access = qp->attr.qp_access_flags;
	if (mroce_qp_is_conn(qp) && d->ss_family == AF_INET) {
		a->family = AF_INET;
		a->modify.daddr.v4 = ((const struct sockaddr_in *)d)->sin_addr.s_addr;
	} else if (mroce_qp_is_conn(qp) && d->ss_family == AF_INET6) {
		a->family = AF_INET6;
		a->modify.daddr.v6 = ((const struct sockaddr_in6 *)d)->sin6_addr;
	}
	return mroce_ofl_cmd(mdev, &c);
}

/* the offload's doorbell op, if the device has one that takes them */
static const struct mroce_offload *db_ofl(struct mroce_dev *mdev)
{
	return takes_objects(mdev) && mdev->ofl.ofl->doorbell ? mdev->ofl.ofl :
								NULL;
}

/* @qp's send ring was produced to: its producer index, as the ring says */
void mroce_ofl_sq_doorbell(struct mroce_qp *qp)
{
	struct mroce_dev *mdev = mroce_qp_dev(qp);
	const struct mroce_offload *ofl = db_ofl(mdev);

	if (ofl)
		ofl->doorbell(mdev->ofl.priv,
			      MROCE_OFL_DBQ(MROCE_OFL_DB_SQ, qp->ibqp.qp_num),
			      mre_ring_load_acquire(&qp->sq.r.hdr->prod));
}

/* @cq was armed for the next (@flags IB_CQ_NEXT_COMP) or solicited CQE */
void mroce_ofl_cq_arm(struct mroce_cq *cq, u32 flags)
{
	struct mroce_dev *mdev = to_mroce_dev(cq->ibcq.device);
	const struct mroce_offload *ofl = db_ofl(mdev);

	if (ofl)
		ofl->doorbell(mdev->ofl.priv,
			      MROCE_OFL_DBQ(MROCE_OFL_DB_CQ_ARM, cq->id), flags);
}
