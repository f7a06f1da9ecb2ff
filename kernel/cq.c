// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues (see cq.h).
 */
#include <linux/log2.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "batch.h"
#include "cq.h"
#include "oflcmd.h"
#include "mroce.h"
#include "mroce_trace.h"

#define mroce_dbg_cq(cq, fmt, ...)					\
	ibdev_dbg((cq)->ibcq.device, "cq %u %s: " fmt, (cq)->id, __func__, \
		  ##__VA_ARGS__)

/* a kernel CQ keeps the ib_qp pointer for ib_wc.qp in the CQE's spare room */
static_assert(sizeof_field(struct mroce_cqe, reserved) >= sizeof(void *));
static_assert((int)MROCE_WC_GRH == (int)IB_WC_GRH &&
	      (int)MROCE_WC_WITH_IMM == (int)IB_WC_WITH_IMM);

static struct workqueue_struct *comp_wq;

int mroce_cq_init(void)
{
	/* block and file ULPs complete I/O through it: it must make progress */
	comp_wq = alloc_workqueue("mroce_comp", WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	return comp_wq ? 0 : -ENOMEM;
}

void mroce_cq_exit(void)
{
	destroy_workqueue(comp_wq);
}

static int vector_cpu(u32 comp_vector)
{
	return cpumask_local_spread(comp_vector, NUMA_NO_NODE);
}

const struct cpumask *mroce_get_vector_affinity(struct ib_device *ibdev,
						int comp_vector)
{
	if (comp_vector < 0 || comp_vector >= ibdev->num_comp_vectors)
		return NULL;
	return cpumask_of(vector_cpu(comp_vector));
}

static void call_handler(struct mroce_cq *cq)
{
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

static void notify_work(struct work_struct *work)
{
	struct mroce_cq *cq = container_of(work, struct mroce_cq, notify_work);

	local_bh_disable();
	call_handler(cq);
	local_bh_enable();
}

void mroce_cq_notify(struct mroce_cq *cq)
{
	/* a notification already queued there covers this one too */
	if (!cq->ibcq.uobject && cq->cpu != raw_smp_processor_id() &&
	    cpu_online(cq->cpu))
		queue_work_on(cq->cpu, comp_wq, &cq->notify_work);
	else
		call_handler(cq);
}

int mroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mroce_dev(ibcq->device);
	struct mroce_cq *cq = to_mroce_cq(ibcq);
	struct mroce_create_cq_resp resp = {};
	u32 size;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (!attr->cqe || attr->cqe > MROCE_MAX_CQE ||
	    attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	size = roundup_pow_of_two(attr->cqe);
	spin_lock_init(&cq->lock);
	cq->cpu = vector_cpu(attr->comp_vector);
	INIT_WORK(&cq->notify_work, notify_work);
	cq->id = atomic_inc_return(&mdev->next_obj_id);
	err = mroce_queue_init(&cq->q, udata, size, MROCE_CQE_STRIDE,
			       &resp.mmap_offset);
	if (err)
		return err;
	ibcq->cqe = size;
	err = mroce_ofl_cq_cmd(cq, MROCE_OFL_CMD_CQ_CREATE, &cq->q, attr->comp_vector);
	if (err)
		goto err_free;
	if (udata) {
		resp.mmap_len = cq->q.len;
		resp.size = size;
		resp.stride = MROCE_CQE_STRIDE;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			mroce_ofl_cq_cmd(cq, MROCE_OFL_CMD_CQ_DESTROY, NULL, 0);
			goto err_free;
		}
	}
	mroce_dbg_cq(cq, "%u entries%s, vector %u on cpu %d\n", size,
		     udata ? " (user)" : "", attr->comp_vector, cq->cpu);
	return 0;

err_free:
	mroce_queue_free(&cq->q);
	return err;
}

int mroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct mroce_cq *cq = to_mroce_cq(ibcq);

	/* no QP uses it any more (the core counts), so nothing posts to it */
	mroce_dbg_cq(cq, "\n");
	mroce_ofl_cq_cmd(cq, MROCE_OFL_CMD_CQ_DESTROY, NULL, 0);
	cancel_work_sync(&cq->notify_work);
	mroce_queue_free(&cq->q);
	return 0;
}

/*
 * Give the CQ a new ring of roundup_pow_of_two(@cqe) entries. The CQEs not
 * yet polled move to the start of the new ring, in order, under cq->lock,
 * so the producers (which take that lock) write either to the old ring
 * before the move or to the new one after it: none is lost. The consumer
 * must not poll meanwhile: the provider holds its CQ lock over the command
 * (mroce-abi.h), mroce_poll_cq() takes cq->lock. More CQEs outstanding than
 * @cqe is EINVAL, as the IB spec says (checked under the lock, where the
 * count can only have grown since the response was written). Everything
 * that can fail comes before the switch, so a failed resize leaves the CQ
 * as it was.
 */
int mroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct mroce_cq *cq = to_mroce_cq(ibcq);
	struct mroce_resize_cq_resp resp = {};
	struct mroce_queue nq, oq;
	struct mre_ring *r = &cq->q.r;
	unsigned long flags;
	u32 size, n, i;
	int err;

	if (cqe <= 0 || cqe > MROCE_MAX_CQE)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	size = roundup_pow_of_two(cqe);
	err = mroce_queue_init(&nq, udata, size, MROCE_CQE_STRIDE,
			       &resp.mmap_offset);
	if (err)
		return err;
	/* before the switch: the offload must take what the ring will */
	err = mroce_ofl_cq_cmd(cq, MROCE_OFL_CMD_CQ_RESIZE, &nq, 0);
	if (err)
		goto err_free;
	if (udata) {
		resp.mmap_len = nq.len;
		resp.size = size;
		resp.stride = MROCE_CQE_STRIDE;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_back;
	}

	spin_lock_irqsave(&cq->lock, flags);
	/* refreshes r->cons from the consumer (clamped to a ring's worth) */
	n = r->size - mre_ring_space(r);
	if (n > (u32)cqe) {
		spin_unlock_irqrestore(&cq->lock, flags);
		mroce_dbg_cq(cq, "%u CQEs outstanding, cannot shrink to %d\n",
			     n, cqe);
		err = -EINVAL;
		goto err_back;
	}
	for (i = 0; i < n; i++)
		memcpy(mre_ring_entry(&nq.r, i), mre_ring_entry(r, r->cons + i),
		       MROCE_CQE_STRIDE);
	mre_ring_publish(&nq.r, n);
	oq = cq->q;
	cq->q = nq;
	ibcq->cqe = size;
	spin_unlock_irqrestore(&cq->lock, flags);

	mroce_dbg_cq(cq, "%u -> %u entries, %u CQEs moved\n", oq.r.size, size,
		     n);
	/* a user mapping of the old ring keeps its pages; we are done with it */
	mroce_queue_free(&oq);
	return 0;

err_back:	/* the offload took the new ring: back to the old (must not fail) */
	mroce_ofl_cq_cmd(cq, MROCE_OFL_CMD_CQ_RESIZE, &cq->q, 0);
err_free:
	mroce_queue_free(&nq);
	return err;
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
		[MRE_ST_LOC_PROT] = IB_WC_LOC_PROT_ERR,
	};

	return st < MRE_ST_MAX ? map[st] : IB_WC_GENERAL_ERR;
}

/* the CQ failed (an overflow, the offload's CQ error): IB_EVENT_CQ_ERR once */
static bool cq_error(struct mroce_cq *cq)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};
	unsigned long flags;
	bool first;

	spin_lock_irqsave(&cq->lock, flags);
	first = !cq->overflow;
	cq->overflow = true;
	spin_unlock_irqrestore(&cq->lock, flags);
	if (first && cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
	return first;
}

int mroce_cq_ofl_error(struct mroce_cq *cq)
{
	return cq_error(cq) ? 0 : -EALREADY;
}

int mroce_cq_ofl_comp(struct mroce_cq *cq)
{
	unsigned long flags;
	bool armed;

	spin_lock_irqsave(&cq->lock, flags);
	armed = cq->notify;	/* 0 also while a batch's notification is due */
	cq->notify = 0;
	spin_unlock_irqrestore(&cq->lock, flags);
	if (!armed)
		return -EALREADY;
	local_bh_disable();	/* as a batch calls it: kernel CQs poll in BH */
	mroce_cq_notify(cq);
	local_bh_enable();
	return 0;
}

bool mroce_cq_post(struct mroce_cq *cq, const struct mroce_cqe *cqe,
		   struct ib_qp *qp, bool solicited, struct mroce_batch *b)
{
	unsigned long flags;
	struct mroce_cqe *e;
	bool notify = false;

	spin_lock_irqsave(&cq->lock, flags);
	if (!mre_ring_space(&cq->q.r)) {
		spin_unlock_irqrestore(&cq->lock, flags);
		mroce_counter_inc(to_mroce_dev(cq->ibcq.device),
				  MROCE_CNT_CQ_OVERFLOW);
		mroce_dbg_cq(cq, "overflow: completion of qp %u lost\n",
			     qp->qp_num);
		cq_error(cq);
		return false;
	}
	if (unlikely(cqe->status != IB_WC_SUCCESS))
		trace_mroce_wc_error(&cq->ibcq, qp, cqe);
	e = mre_ring_next(&cq->q.r);
	memcpy(e, cqe, sizeof(*e));
	e->qp_num = qp->qp_num;
	e->port_num = 1;
	if (!cq->q.mmap)
		memcpy(e->reserved, &qp, sizeof(qp));
	mre_ring_publish(&cq->q.r, 1);
	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED && (solicited || cqe->status))) {
		cq->notify = 0;
		notify = true;
	}
	/*
	 * The consumer may have armed the CQ again (it polled and re-armed
	 * on its own) while the notification of an earlier CQE still waits
	 * on another context's batch. That one is called after this CQE is
	 * in the ring (it leaves the list under our lock first), so it
	 * covers this CQE too; linking the CQ into our batch as well would
	 * overwrite batch_next, the other list's link, and the CQs after it
	 * on that list would never be notified: their consumers never poll
	 * or arm again, every later CQE of theirs waits for ever (NVMe-oF's
	 * I/O timeouts, then ib_drain_qp() blocked).
	 */
	if (notify && cq->batched) {
		notify = false;
		cq->notify_shared++;
	}
	if (notify) {
		cq->batched = true;
		cq->batch_next = b->cqs;
		b->cqs = cq;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return true;
}

void mroce_cq_batch_notify(struct mroce_cq *cq)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	cq->batched = false;
	spin_unlock_irqrestore(&cq->lock, flags);
	mroce_cq_notify(cq);
}

int mroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct mroce_cq *cq = to_mroce_cq(ibcq);
	unsigned long irqflags;
	int ret = 0;
	u8 armed;

	spin_lock_irqsave(&cq->lock, irqflags);
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	armed = cq->notify;
	/* anything produced that the consumer has not taken yet? */
	if (flags & IB_CQ_REPORT_MISSED_EVENTS &&
	    mre_ring_load(&cq->q.r.hdr->cons) != cq->q.r.prod)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	/*
	 * The offload hears of the arm mroce holds, after it holds it: its
	 * completion interrupt (mroce_cq_ofl_comp()) may come at once.
	 */
	if (static_branch_unlikely(&mroce_ofl_in_use))
		mroce_ofl_cq_arm(cq, armed);
	return ret;
}

static void cqe_to_wc(const struct mroce_cqe *e, struct ib_wc *wc)
{
	struct ib_qp *qp;

	memcpy(&qp, e->reserved, sizeof(qp));
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = e->wr_id;
	wc->status = e->status;
	wc->opcode = e->opcode;
	wc->vendor_err = e->vendor_err;
	wc->byte_len = e->byte_len;
	wc->ex.imm_data = (__force __be32)e->imm_data;
	wc->qp = qp;
	wc->src_qp = e->src_qp;
	/* IBV_WC_GRH and _WITH_IMM have the kernel's values, _WITH_INV not */
	wc->wc_flags = e->wc_flags & (IB_WC_GRH | IB_WC_WITH_IMM);
	if (e->wc_flags & MROCE_WC_WITH_INV)
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;	/* ex: invalidate_rkey */
	wc->pkey_index = e->pkey_index;
	wc->slid = e->slid;
	wc->sl = e->sl;
	wc->dlid_path_bits = e->dlid_path_bits;
	wc->port_num = e->port_num;
	if (e->network_hdr_type) {
		wc->network_hdr_type = e->network_hdr_type;
		wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	}
}

/*
 * Kernel consumers only: a user CQ is polled in the provider. uverbs
 * offers IB_USER_VERBS_CMD_POLL_CQ to every driver with poll_cq, so a
 * process can ask for one of its own CQs: refused, because a user CQ's
 * ring is the process's memory (the ib_qp pointer a kernel CQE keeps in
 * its spare room would be whatever the process wrote there). A kernel CQ's
 * ring is never mapped: its CQEs and indices are the kernel's own.
 */
int mroce_poll_cq(struct ib_cq *ibcq, int n, struct ib_wc *wc)
{
	struct mroce_cq *cq = to_mroce_cq(ibcq);
	struct mre_ring *r = &cq->q.r;
	unsigned long flags;
	int i;

	if (cq->q.mmap || ibcq->uobject)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, flags);
	for (i = 0; i < n && r->cons != r->prod; i++) {
		cqe_to_wc(mre_ring_entry(r, r->cons), &wc[i]);
		mre_ring_release(r, r->cons + 1);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return i;
}
