// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fast registration (FRWR) as a kernel ULP uses it, checked on two RDMA
 * devices joined by a network: the cases where a device must refuse. It
 * uses the verbs API only (no mroce internals), so it runs on rdma_rxe as
 * well. Loading it runs every case and prints TAP lines and "N passed, N
 * failed" to the kernel log; the module then stays loaded until rmmod (the
 * result is also in /sys/module/mroce_frwr_test/parameters/failed).
 *
 *   insmod mroce_frwr_test.ko dev_a=mroce0 dev_b=mroce1 gid_a=1 gid_b=1
 *
 * Device A holds the FRWR MRs (its CQ polled in softirq), device B is the
 * peer that writes, reads and sends into them (its CQ in a workqueue); a
 * second round repeats two cases with CQs of the other two kinds (polled
 * directly, an unbound workqueue). Each case that must end a QP in error
 * gets a fresh QP pair. A last round checks completion vectors: dev_a has
 * one per online CPU, and a CQ's completions are handled on its vector's
 * CPU (ib_get_vector_affinity()), wherever the operation was posted.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

static char *dev_a = "mroce0", *dev_b = "mroce1";
static int gid_a = 1, gid_b = 1, failed = -1;
module_param(dev_a, charp, 0444);
module_param(dev_b, charp, 0444);
module_param(gid_a, int, 0444);
module_param(gid_b, int, 0444);
module_param(failed, int, 0444);
MODULE_PARM_DESC(dev_a, "device with the FRWR MRs");
MODULE_PARM_DESC(dev_b, "the peer device");
MODULE_PARM_DESC(gid_a, "RoCE v2 GID index of dev_a's address");
MODULE_PARM_DESC(gid_b, "RoCE v2 GID index of dev_b's address");
MODULE_PARM_DESC(failed, "after loading: how many checks failed (-1: not run)");

#define BUF_ORDER	4		/* 16 pages, physically contiguous */
#define BUF_LEN		(PAGE_SIZE << BUF_ORDER)
#define MSG_LEN		64

static int npass, nfail;

#define CHECK(cond, fmt, ...) ({					\
	bool _ok = (cond);						\
	if (_ok)							\
		npass++;						\
	else								\
		nfail++;						\
	pr_info("%s %d - " fmt "\n", _ok ? "ok" : "not ok",		\
		npass + nfail, ##__VA_ARGS__);				\
	_ok; })

/* one side: device, PD, CQ, QP, and a small buffer for SENDs */
struct side {
	struct ib_device *dev;
	int gid;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	u8 *msg;		/* MSG_LEN bytes, under pd->local_dma_lkey */
	u64 msg_dma;
};

struct wait {
	struct ib_cqe cqe;
	struct completion done;
	struct ib_wc wc;
	struct ib_cq *cq;	/* where it completes (polled here if DIRECT) */
	int cpu;		/* where the completion was handled */
};

static void wait_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct wait *w = container_of(wc->wr_cqe, struct wait, cqe);

	w->wc = *wc;
	w->cpu = raw_smp_processor_id();
	complete(&w->done);
}

static void wait_init(struct wait *w, struct ib_cq *cq)
{
	w->cq = cq;
	w->cqe.done = wait_done;
	init_completion(&w->done);
	memset(&w->wc, 0, sizeof(w->wc));
}

/* the completion's status, or -1 when none came within 2 s */
static int wait_for(struct wait *w)
{
	unsigned long end = jiffies + 2 * HZ;

	for (;;) {
		if (w->cq->poll_ctx == IB_POLL_DIRECT)
			ib_process_cq_direct(w->cq, -1);
		if (wait_for_completion_timeout(&w->done, HZ / 100))
			return w->wc.status;
		if (time_after(jiffies, end))
			return -1;
	}
}

static int side_init(struct side *s, const char *name, int gid,
		     enum ib_poll_context ctx, int vector)
{
	s->gid = gid;
	s->dev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (!s->dev)
		return -ENODEV;
	s->pd = ib_alloc_pd(s->dev, 0);
	if (IS_ERR(s->pd))
		return PTR_ERR(s->pd);
	s->cq = ib_alloc_cq(s->dev, NULL, 64, vector, ctx);
	if (IS_ERR(s->cq))
		return PTR_ERR(s->cq);
	s->msg = kzalloc(MSG_LEN, GFP_KERNEL);
	if (!s->msg)
		return -ENOMEM;
	s->msg_dma = ib_dma_map_single(s->dev, s->msg, MSG_LEN,
				       DMA_BIDIRECTIONAL);
	return ib_dma_mapping_error(s->dev, s->msg_dma) ? -ENOMEM : 0;
}

static void side_fini(struct side *s)
{
	if (s->msg && s->dev)
		ib_dma_unmap_single(s->dev, s->msg_dma, MSG_LEN,
				    DMA_BIDIRECTIONAL);
	kfree(s->msg);
	if (!IS_ERR_OR_NULL(s->cq))
		ib_free_cq(s->cq);
	if (!IS_ERR_OR_NULL(s->pd))
		ib_dealloc_pd(s->pd);
	if (s->dev)
		ib_device_put(s->dev);
}

static struct ib_qp *qp_create(struct side *s, struct ib_pd *pd)
{
	struct ib_qp_init_attr ia = {
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};

	return ib_create_qp(pd, &ia);
}

/* INIT, RTR, RTS towards @peer's QP @pqp */
static int qp_connect(struct side *s, struct ib_qp *qp, struct side *peer,
		      struct ib_qp *pqp)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_REMOTE_ATOMIC,
	};
	const struct ib_gid_attr *ga;
	struct net_device *ndev;
	u8 dmac[ETH_ALEN] = {};
	union ib_gid dgid;
	int err;

	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err)
		return err;
	/* the peer's GID, and its netdev's MAC: kernel QPs give both */
	ga = rdma_get_gid_attr(peer->dev, 1, peer->gid);
	if (IS_ERR(ga))
		return PTR_ERR(ga);
	dgid = ga->gid;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(ga);
	if (!IS_ERR(ndev))
		ether_addr_copy(dmac, ndev->dev_addr);
	rcu_read_unlock();
	rdma_put_gid_attr(ga);
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = pqp->qp_num;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&a.ah_attr, 1);
	rdma_ah_set_grh(&a.ah_attr, &dgid, 0, s->gid, 64, 0);
	ether_addr_copy(a.ah_attr.roce.dmac, dmac);
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 4;
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

/* a fresh connected QP pair (A's QP in @pd_a, or A's own PD) */
static int pair_new(struct side *a, struct side *b, struct ib_pd *pd_a)
{
	int err;

	a->qp = qp_create(a, pd_a ? pd_a : a->pd);
	if (IS_ERR(a->qp))
		return PTR_ERR(a->qp);
	b->qp = qp_create(b, b->pd);
	if (IS_ERR(b->qp))
		return PTR_ERR(b->qp);
	err = qp_connect(a, a->qp, b, b->qp);
	return err ? err : qp_connect(b, b->qp, a, a->qp);
}

static void pair_free(struct side *a, struct side *b)
{
	if (!IS_ERR_OR_NULL(a->qp)) {
		ib_drain_qp(a->qp);
		ib_destroy_qp(a->qp);
	}
	if (!IS_ERR_OR_NULL(b->qp)) {
		ib_drain_qp(b->qp);
		ib_destroy_qp(b->qp);
	}
	a->qp = NULL;
	b->qp = NULL;
}

/* post one WR on @qp and wait for its completion: the status, -1: none */
static int post_wait(struct ib_qp *qp, struct ib_send_wr *wr)
{
	struct wait w;
	int err;

	wait_init(&w, qp->send_cq);
	wr->wr_cqe = &w.cqe;
	wr->send_flags |= IB_SEND_SIGNALED;
	err = ib_post_send(qp, wr, NULL);
	if (err)
		return -2;
	return wait_for(&w);
}

static int reg_mr(struct ib_qp *qp, struct ib_mr *mr, int access)
{
	struct ib_reg_wr wr = {
		.wr.opcode = IB_WR_REG_MR,
		.mr = mr,
		.key = mr->rkey,
		.access = access,
	};

	return post_wait(qp, &wr.wr);
}

static int local_inv(struct ib_qp *qp, u32 key)
{
	struct ib_send_wr wr = {
		.opcode = IB_WR_LOCAL_INV,
		.ex.invalidate_rkey = key,
	};

	return post_wait(qp, &wr);
}

/* RDMA WRITE or READ of @len bytes of @s's message buffer at @raddr/@rkey */
static int rdma_op(struct side *s, enum ib_wr_opcode op, u64 raddr, u32 rkey,
		   u32 len)
{
	struct ib_sge sge = {
		.addr = s->msg_dma, .length = len,
		.lkey = s->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr.opcode = op,
		.wr.sg_list = &sge,
		.wr.num_sge = 1,
		.remote_addr = raddr,
		.rkey = rkey,
	};

	return post_wait(s->qp, &wr.wr);
}

#define RW	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		 IB_ACCESS_REMOTE_READ)

/*
 * Map 8 * @psize bytes of @buf from @sg_off on through an MR of page size
 * @psize (three SG entries, slices of the buffer that begin and end on
 * @psize boundaries, as ib_sg_to_pages() wants), register it, write a
 * pattern through it from B at iova + @psize + 100, check it landed at the
 * right byte of the pages, read the MR's last byte, and one byte past it.
 */
static void case_map(struct side *a, struct side *b, u8 *buf,
		     unsigned int psize, unsigned int sg_off)
{
	struct scatterlist sg[3];
	unsigned int off = sg_off, woff = psize + 100;
	struct ib_mr *mr;
	int n, i, st;
	bool landed;

	mr = ib_alloc_mr(a->pd, IB_MR_TYPE_MEM_REG, 64);
	if (!CHECK(!IS_ERR(mr), "psize %u: ib_alloc_mr", psize))
		return;
	sg_init_table(sg, 3);
	/* three slices of the buffer, each ending on a psize boundary */
	sg_set_buf(&sg[0], buf, 2 * psize);
	sg_set_buf(&sg[1], buf + 2 * psize, 2 * psize);
	sg_set_buf(&sg[2], buf + 4 * psize, 4 * psize);
	n = ib_dma_map_sg(a->dev, sg, 3, DMA_BIDIRECTIONAL);
	i = ib_map_mr_sg(mr, sg, n, &off, psize);
	CHECK(i == n && mr->iova == sg_dma_address(&sg[0]) + sg_off &&
	      mr->length == 8 * psize - sg_off,
	      "psize %u sg_offset %u: ib_map_mr_sg maps %d of %d, iova %#llx length %llu",
	      psize, sg_off, i, n, mr->iova, mr->length);
	st = reg_mr(a->qp, mr, RW);
	CHECK(st == IB_WC_SUCCESS, "psize %u: REG_MR completes: %d", psize, st);
	for (i = 0; i < MSG_LEN; i++)
		b->msg[i] = (u8)(psize + i);
	memset(buf, 0, 8 * psize);
	st = rdma_op(b, IB_WR_RDMA_WRITE, mr->iova + woff, mr->rkey, MSG_LEN);
	landed = !memcmp(buf + sg_off + woff, b->msg, MSG_LEN) &&
		 !memchr_inv(buf, 0, sg_off + woff);
	CHECK(st == IB_WC_SUCCESS && landed,
	      "psize %u: a WRITE at iova + %u lands at byte %u of the pages: %d %s",
	      psize, woff, sg_off + woff, st, landed ? "yes" : "no");
	memset(b->msg, 0, MSG_LEN);
	buf[8 * psize - 1] = 0x5a;	/* the MR's last byte */
	st = rdma_op(b, IB_WR_RDMA_READ, mr->iova + mr->length - 1, mr->rkey,
		     1);
	CHECK(st == IB_WC_SUCCESS && b->msg[0] == 0x5a,
	      "psize %u: a READ of the MR's last byte: %d %#x", psize, st,
	      b->msg[0]);
	st = rdma_op(b, IB_WR_RDMA_READ, mr->iova + mr->length - 1, mr->rkey,
		     2);
	CHECK(st == IB_WC_REM_ACCESS_ERR,
	      "psize %u: a READ one byte past the MR is refused: %d", psize,
	      st);
	pair_free(a, b);
	ib_dma_unmap_sg(a->dev, sg, 3, DMA_BIDIRECTIONAL);
	ib_dereg_mr(mr);
	pair_new(a, b, NULL);
}

/* REG_MR, LOCAL_INV, then: WRITE and local use refused, REG_MR again */
static void case_local_inv(struct side *a, struct side *b, u8 *buf)
{
	struct scatterlist sg;
	struct ib_mr *mr;
	u32 old;
	int st;

	mr = ib_alloc_mr(a->pd, IB_MR_TYPE_MEM_REG, 16);
	if (!CHECK(!IS_ERR(mr), "ib_alloc_mr"))
		return;
	sg_init_one(&sg, buf, PAGE_SIZE * 2);
	ib_dma_map_sg(a->dev, &sg, 1, DMA_BIDIRECTIONAL);
	ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
	st = reg_mr(a->qp, mr, RW);
	CHECK(st == IB_WC_SUCCESS, "REG_MR: %d", st);
	st = reg_mr(a->qp, mr, RW);
	CHECK(st != IB_WC_SUCCESS, "REG_MR of a valid MR is refused: %d", st);
	pair_free(a, b);
	pair_new(a, b, NULL);
	st = rdma_op(b, IB_WR_RDMA_WRITE, mr->iova, mr->rkey, 8);
	CHECK(st == IB_WC_SUCCESS, "WRITE while valid: %d", st);
	st = local_inv(a->qp, mr->rkey);
	CHECK(st == IB_WC_SUCCESS, "LOCAL_INV: %d", st);
	memset(buf, 0, 16);
	memset(b->msg, 0xee, MSG_LEN);
	st = rdma_op(b, IB_WR_RDMA_WRITE, mr->iova, mr->rkey, 8);
	CHECK(st == IB_WC_REM_ACCESS_ERR && !memchr_inv(buf, 0, 16),
	      "WRITE after LOCAL_INV: remote access error, nothing written: %d",
	      st);
	pair_free(a, b);
	pair_new(a, b, NULL);
	st = local_inv(a->qp, mr->rkey);
	CHECK(st != IB_WC_SUCCESS, "LOCAL_INV of an invalid key is refused: %d",
	      st);
	pair_free(a, b);
	pair_new(a, b, NULL);

	/* key rotation: the old key stays dead, the new one works */
	old = mr->rkey;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	st = reg_mr(a->qp, mr, RW);
	CHECK(st == IB_WC_SUCCESS && mr->rkey != old,
	      "REG_MR under a new key %#x (was %#x): %d", mr->rkey, old, st);
	st = rdma_op(b, IB_WR_RDMA_WRITE, mr->iova, mr->rkey, 8);
	CHECK(st == IB_WC_SUCCESS && !memcmp(buf, b->msg, 8),
	      "WRITE under the new key: %d", st);
	st = rdma_op(b, IB_WR_RDMA_WRITE, mr->iova, old, 8);
	CHECK(st == IB_WC_REM_ACCESS_ERR, "WRITE under the stale key: %d", st);
	pair_free(a, b);
	pair_new(a, b, NULL);

	/* the local side: an SGE with an invalidated lkey */
	st = local_inv(a->qp, mr->lkey);
	CHECK(st == IB_WC_SUCCESS, "LOCAL_INV of the new key: %d", st);
	{
		struct ib_sge sge = { .addr = mr->iova, .length = 8,
				      .lkey = mr->lkey };
		struct ib_rdma_wr wr = {
			.wr.opcode = IB_WR_RDMA_WRITE, .wr.sg_list = &sge,
			.wr.num_sge = 1, .remote_addr = 0, .rkey = 0,
		};

		st = post_wait(a->qp, &wr.wr);
		CHECK(st == IB_WC_LOC_PROT_ERR,
		      "an SGE with the invalidated lkey: local protection error: %d",
		      st);
	}
	pair_free(a, b);
	ib_dma_unmap_sg(a->dev, &sg, 1, DMA_BIDIRECTIONAL);
	ib_dereg_mr(mr);
	pair_new(a, b, NULL);
}

/* B sends with invalidate: A's receive says so, and the key is dead */
static int send_inv(struct side *a, struct side *b, u32 rkey,
		    struct wait *rw)
{
	struct ib_sge rsge = { .addr = a->msg_dma, .length = MSG_LEN,
			       .lkey = a->pd->local_dma_lkey };
	struct ib_recv_wr r = { .sg_list = &rsge, .num_sge = 1 };
	struct ib_sge sge = { .addr = b->msg_dma, .length = 8,
			      .lkey = b->pd->local_dma_lkey };
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND_WITH_INV, .sg_list = &sge, .num_sge = 1,
		.ex.invalidate_rkey = rkey,
	};

	wait_init(rw, a->qp->recv_cq);
	r.wr_cqe = &rw->cqe;
	if (ib_post_recv(a->qp, &r, NULL))
		return -2;
	return post_wait(b->qp, &wr);
}

static void case_remote_inv(struct side *a, struct side *b, u8 *buf)
{
	struct scatterlist sg;
	struct ib_mr *mr, *mr2;
	struct ib_pd *pd2;
	struct ib_qp *qp2;
	struct wait rw;
	int st, rst;

	mr = ib_alloc_mr(a->pd, IB_MR_TYPE_MEM_REG, 16);
	pd2 = ib_alloc_pd(a->dev, 0);
	if (!CHECK(!IS_ERR(mr) && !IS_ERR(pd2), "ib_alloc_mr, a second PD"))
		return;
	mr2 = ib_alloc_mr(pd2, IB_MR_TYPE_MEM_REG, 16);
	if (!CHECK(!IS_ERR(mr2), "ib_alloc_mr in the second PD"))
		return;
	sg_init_one(&sg, buf, PAGE_SIZE);
	ib_dma_map_sg(a->dev, &sg, 1, DMA_BIDIRECTIONAL);
	ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
	ib_map_mr_sg(mr2, &sg, 1, NULL, PAGE_SIZE);
	st = reg_mr(a->qp, mr, RW);
	CHECK(st == IB_WC_SUCCESS, "REG_MR: %d", st);
	st = send_inv(a, b, mr->rkey, &rw);
	rst = wait_for(&rw);
	CHECK(st == IB_WC_SUCCESS && rst == IB_WC_SUCCESS &&
	      rw.wc.wc_flags & IB_WC_WITH_INVALIDATE &&
	      rw.wc.ex.invalidate_rkey == mr->rkey,
	      "SEND_WITH_INV: send %d, receive %d flags %#x rkey %#x (want %#x)",
	      st, rst, rw.wc.wc_flags, rw.wc.ex.invalidate_rkey, mr->rkey);
	st = rdma_op(b, IB_WR_RDMA_WRITE, mr->iova, mr->rkey, 8);
	CHECK(st == IB_WC_REM_ACCESS_ERR,
	      "WRITE after the peer invalidated the key: %d", st);
	pair_free(a, b);
	pair_new(a, b, NULL);

	/* an MR of another PD: registered there, not the QP's to invalidate */
	qp2 = qp_create(a, pd2);
	if (!CHECK(!IS_ERR(qp2), "a QP in the second PD"))
		goto out;
	{
		/* REG_MR runs locally: qp2 needs no peer, only RTS */
		struct ib_qp *keep = a->qp;

		a->qp = qp2;
		st = qp_connect(a, qp2, b, b->qp);
		st = st ? -3 : reg_mr(qp2, mr2, RW);
		a->qp = keep;
	}
	CHECK(st == IB_WC_SUCCESS, "REG_MR in the second PD: %d", st);
	st = send_inv(a, b, mr2->rkey, &rw);
	CHECK(st == IB_WC_REM_INV_REQ_ERR,
	      "SEND_WITH_INV naming another PD's MR is refused: %d", st);
	st = local_inv(qp2, mr2->rkey);
	CHECK(st == IB_WC_SUCCESS,
	      "... and that MR is still valid (its own QP invalidates it): %d",
	      st);
	ib_drain_qp(qp2);
	ib_destroy_qp(qp2);
	pair_free(a, b);
	pair_new(a, b, NULL);
out:
	ib_dma_unmap_sg(a->dev, &sg, 1, DMA_BIDIRECTIONAL);
	if (!IS_ERR(mr2))
		ib_dereg_mr(mr2);
	ib_dereg_mr(mr);
	ib_dealloc_pd(pd2);
}

/* a SEND from A to B, posted on the CPU work_on_cpu() runs it on */
struct send_on {
	struct side *a, *b;
	struct wait ws, wr;	/* A's send completion, B's receive */
};

static long send_on_cpu(void *arg)
{
	struct send_on *o = arg;
	struct ib_sge sge = {
		.addr = o->b->msg_dma, .length = MSG_LEN,
		.lkey = o->b->pd->local_dma_lkey,
	};
	struct ib_recv_wr rwr = {
		.wr_cqe = &o->wr.cqe, .sg_list = &sge, .num_sge = 1,
	};
	struct ib_send_wr swr = {
		.wr_cqe = &o->ws.cqe, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED, .sg_list = &sge, .num_sge = 1,
	};

	wait_init(&o->wr, o->b->cq);
	wait_init(&o->ws, o->a->cq);
	if (ib_post_recv(o->b->qp, &rwr, NULL))
		return -2;
	sge.addr = o->a->msg_dma;
	sge.lkey = o->a->pd->local_dma_lkey;
	sge.length = 8;
	if (ib_post_send(o->a->qp, &swr, NULL))
		return -2;
	return wait_for(&o->ws) ?: wait_for(&o->wr);
}

/*
 * For the first vectors of dev_a, a CQ on the vector (polled in softirq,
 * as NVMe-oF's are), and a SEND posted from each of the first online
 * CPUs: its send completion must be handled on the vector's CPU.
 */
static void case_vectors(struct side *a, struct side *b)
{
	int nvec = a->dev->num_comp_vectors, v, cpu, n;

	CHECK(nvec == num_online_cpus(),
	      "%s: %d completion vectors, one per online CPU (%u)", dev_a,
	      nvec, num_online_cpus());
	a->cq = ib_alloc_cq(a->dev, NULL, 64, nvec, IB_POLL_SOFTIRQ);
	CHECK(PTR_ERR_OR_ZERO(a->cq) == -EINVAL,
	      "a CQ on vector %d (past the last) refused: %d", nvec,
	      PTR_ERR_OR_ZERO(a->cq));
	if (!IS_ERR(a->cq))
		ib_free_cq(a->cq);
	a->cq = NULL;
	for (v = 0; v < min(nvec, 4); v++) {
		const struct cpumask *m = ib_get_vector_affinity(a->dev, v);
		int want = m ? cpumask_first(m) : -1;
		struct send_on o = { .a = a, .b = b };
		int bad = 0, posts = 0;
		long st;

		if (!CHECK(want >= 0 && cpu_online(want),
			   "vector %d: affinity is cpu %d, online", v, want))
			continue;
		a->cq = ib_alloc_cq(a->dev, NULL, 64, v, IB_POLL_SOFTIRQ);
		if (!CHECK(!IS_ERR(a->cq) && !pair_new(a, b, NULL),
			   "vector %d: a CQ and a QP pair on it", v)) {
			if (IS_ERR(a->cq))
				a->cq = NULL;
			pair_free(a, b);
			continue;
		}
		n = 0;
		for_each_online_cpu(cpu) {
			if (n++ == 4)
				break;
			st = work_on_cpu(cpu, send_on_cpu, &o);
			posts++;
			if (st || o.ws.cpu != want) {
				pr_info("# vector %d, posted on cpu %d: status %ld, handled on cpu %d\n",
					v, cpu, st, o.ws.cpu);
				bad++;
			}
		}
		CHECK(!bad, "vector %d: %d SENDs posted from %d CPUs completed, each handled on cpu %d",
		      v, posts, posts, want);
		pair_free(a, b);
		ib_free_cq(a->cq);
		a->cq = NULL;
	}
}

static int __init frwr_test_init(void)
{
	struct side a = {}, b = {};
	struct page *pages;
	u8 *buf;

	npass = nfail = 0;
	pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, BUF_ORDER);
	if (!CHECK(pages, "%lu bytes of contiguous pages", BUF_LEN))
		goto out;
	buf = page_address(pages);
	if (!CHECK(!side_init(&a, dev_a, gid_a, IB_POLL_SOFTIRQ, 0) &&
		   !side_init(&b, dev_b, gid_b, IB_POLL_WORKQUEUE, 0),
		   "devices %s and %s: PD, CQ", dev_a, dev_b))
		goto out;
	CHECK(a.dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS &&
	      a.dev->attrs.max_fast_reg_page_list_len >= 64,
	      "%s: IB_DEVICE_MEM_MGT_EXTENSIONS, max_fast_reg_page_list_len %u",
	      dev_a, a.dev->attrs.max_fast_reg_page_list_len);
	if (!CHECK(!pair_new(&a, &b, NULL), "a connected RC QP pair"))
		goto out;
	case_map(&a, &b, buf, PAGE_SIZE, 0);
	case_map(&a, &b, buf, PAGE_SIZE, 300);
	case_map(&a, &b, buf, PAGE_SIZE / 2, 1000);	/* smaller pages */
	case_map(&a, &b, buf, PAGE_SIZE * 2, 5000);	/* larger pages */
	case_local_inv(&a, &b, buf);
	case_remote_inv(&a, &b, buf);
	pair_free(&a, &b);
	side_fini(&a);
	side_fini(&b);

	/* the other two kinds of kernel CQ: polled by the ULP, unbound work */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!CHECK(!side_init(&a, dev_a, gid_a, IB_POLL_DIRECT, 0) &&
		   !side_init(&b, dev_b, gid_b, IB_POLL_UNBOUND_WORKQUEUE, 0) &&
		   !pair_new(&a, &b, NULL),
		   "CQs polled directly (%s) and in an unbound workqueue (%s)",
		   dev_a, dev_b))
		goto out;
	case_map(&a, &b, buf, PAGE_SIZE, 300);
	case_remote_inv(&a, &b, buf);
	pair_free(&a, &b);

	/* completion vectors: A's CQs made in case_vectors() (B's: a work) */
	ib_free_cq(a.cq);
	a.cq = NULL;
	case_vectors(&a, &b);
out:
	side_fini(&a);
	side_fini(&b);
	if (pages)
		__free_pages(pages, BUF_ORDER);
	pr_info("%d passed, %d failed\n", npass, nfail);
	failed = nfail;
	return 0;
}

static void __exit frwr_test_exit(void)
{
}

module_init(frwr_test_init);
module_exit(frwr_test_exit);
MODULE_DESCRIPTION("FRWR checks for an RDMA device (mroce's test suite)");
MODULE_LICENSE("Dual BSD/GPL");
