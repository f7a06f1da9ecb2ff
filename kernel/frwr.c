// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fast registration (FRWR) for kernel ULPs: MRs whose page list the ULP
 * maps and registers per I/O, invalidated locally or by the peer (see
 * mr.h for the rules).
 */
#include <linux/mm.h>
#include <linux/slab.h>

#include "mr.h"
#include "mroce.h"

static int frpl_add(struct ib_mr *ibmr, u64 addr)
{
	struct mroce_mr *mr = to_mroce_mr(ibmr);

	if (mr->nmap >= mr->max_pages)
		return -ENOMEM;
	mr->frpl[mr->nmap++] = addr;
	return 0;
}

/*
 * The ULP's process context, before it posts REG_MR; the core has set
 * ibmr->page_size. ib_sg_to_pages() sets ibmr->iova and ->length.
 */
int mroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct mroce_mr *mr = to_mroce_mr(ibmr);

	/* from 512 B (the smallest the core builds) to what a u32 length holds */
	if (!is_power_of_2(ibmr->page_size) || ibmr->page_size < SZ_512 ||
	    ibmr->page_size > SZ_1G)
		return -EINVAL;
	mr->nmap = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, frpl_add);
}

enum ib_wc_status mroce_mr_fast_reg(struct ib_qp *qp, u32 key, int access)
{
	struct mroce_dev *mdev = to_mroce_dev(qp->device);
	enum ib_wc_status st = IB_WC_MW_BIND_ERR;
	struct mroce_mr *mr;
	unsigned long flags;
	u64 first, span;

	if (access & ~MROCE_MR_RIGHTS)
		return st;
	rcu_read_lock();
	mr = xa_load(&mdev->mrs, key >> 8);
	if (!mr || mr->type != MROCE_MR_FRWR || mr->ibmr.pd != qp->pd)
		goto out;
	spin_lock_irqsave(&mr->lock, flags);
	/*
	 * The mapping is map_mr_sg's: it must lie inside its pages, so that
	 * no iova of the MR can name a page past the list.
	 */
	first = mr->ibmr.iova & ~((u64)mr->ibmr.page_size - 1);
	span = (u64)mr->nmap * mr->ibmr.page_size;
	if (!mr->valid && mr->nmap && mr->ibmr.length &&
	    mr->ibmr.iova - first <= span &&
	    mr->ibmr.length <= span - (mr->ibmr.iova - first)) {
		mr->key = key;
		mr->access = access;
		mr->iova = mr->ibmr.iova;
		mr->length = mr->ibmr.length;
		mr->npages = mr->nmap;
		mr->page_shift = ilog2(mr->ibmr.page_size);
		mr->valid = true;
		st = IB_WC_SUCCESS;
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	mroce_dbg_mr(mr, "reg key %#x iova %#llx len %llu pages %u (%u B) access %#x: %d\n",
		     key, mr->ibmr.iova, mr->ibmr.length, mr->nmap,
		     mr->ibmr.page_size, access, st);
out:
	rcu_read_unlock();
	return st;
}

/*
 * An FRWR MR that was just made invalid: wait for the copies that found it
 * before that. They run with BH off on other CPUs (never on this one: we
 * have BH off too), hold the MR for one memcpy and take no lock meanwhile.
 */
static void mr_quiesce(struct mroce_mr *mr)
{
	while (refcount_read(&mr->refs) > 1)
		cpu_relax();
}

bool mroce_frwr_invalidate(struct ib_qp *qp, struct mroce_mr *mr, u32 key,
			   bool remote, bool check)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&mr->lock, flags);
	ok = mr->valid && mr->key == key && mr->ibmr.pd == qp->pd &&
	     (!remote || mr->access & MROCE_REMOTE_RIGHTS);
	if (ok && !check)
		mr->valid = false;
	spin_unlock_irqrestore(&mr->lock, flags);
	if (ok && !check) {
		mr_quiesce(mr);
		mroce_dbg_mr(mr, "key %#x invalidated%s\n", key,
			     remote ? " by the peer" : "");
	}
	return ok;
}

bool mroce_frwr_hold(struct mroce_mr *mr, u32 key)
{
	unsigned long flags;
	bool ok;

	/* mr_quiesce() relies on it: no holder can be preempted by it */
	WARN_ON_ONCE(!in_softirq() && !irqs_disabled());
	spin_lock_irqsave(&mr->lock, flags);
	ok = mr->valid && mr->key == key && refcount_inc_not_zero(&mr->refs);
	spin_unlock_irqrestore(&mr->lock, flags);
	return ok;
}

/*
 * FRWR: page i of the mapping covers [first + i * size, first + (i + 1) *
 * size) of the iovas, first being iova rounded down to the page size; each
 * page is virtually contiguous kernel memory (ib_sg_to_pages() never puts
 * a page across two SG entries).
 */
void mroce_frwr_copy(struct mroce_mr *mr, u64 addr, void *buf, u32 len,
		     bool to_mr)
{
	u64 psize = 1ULL << mr->page_shift;
	u64 rel = addr - (mr->iova & ~(psize - 1));

	while (len) {
		u64 i = rel >> mr->page_shift, off = rel & (psize - 1);
		u32 n = min_t(u64, len, psize - off);
		u8 *p;

		/* fast_reg made the whole range lie inside the list */
		if (WARN_ON_ONCE(i >= mr->npages))
			return;
		p = (u8 *)(uintptr_t)(mr->frpl[i] + off);
		mroce_copy_dir(p, buf, n, to_mr);
		buf += n;
		rel += n;
		len -= n;
	}
}

