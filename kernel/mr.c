// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory regions (see mr.h).
 */
#include <linux/highmem.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "mr.h"
#include "mroce.h"

#define mroce_dbg_mr(mr, fmt, ...)					\
	ibdev_dbg((mr)->ibmr.device, "mr %#x %s: " fmt, (mr)->ibmr.lkey,\
		  __func__, ##__VA_ARGS__)

static int mroce_mr_add(struct mroce_dev *mdev, struct mroce_mr *mr)
{
	u32 id;
	int err;

	refcount_set(&mr->refs, 1);
	init_completion(&mr->done);
	err = xa_alloc_cyclic(&mdev->mrs, &id, mr, XA_LIMIT(1, 0xffffff),
			      &mdev->mr_next, GFP_KERNEL);
	if (err < 0)
		return err;
	mr->id = id;
	mr->ibmr.lkey = id << 8 | (get_random_u32() & 0xff);
	mr->ibmr.rkey = mr->ibmr.lkey;
	return 0;
}

struct ib_mr *mroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mroce_dev(ibpd->device);
	struct sg_page_iter it;
	struct mroce_mr *mr;
	unsigned int n = 0;
	int err;

	if (access & ~(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		       IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |
		       IB_ACCESS_RELAXED_ORDERING))
		return ERR_PTR(-EOPNOTSUPP);	/* e.g. ODP, MW binding */
	if (!length || length > MROCE_MAX_MR_SIZE)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free;
	}
	mr->pages = kvcalloc(ib_umem_num_pages(mr->umem), sizeof(*mr->pages),
			     GFP_KERNEL);
	if (!mr->pages) {
		err = -ENOMEM;
		goto err_umem;
	}
	for_each_sgtable_page(&mr->umem->sgt_append.sgt, &it, 0)
		mr->pages[n++] = sg_page_iter_page(&it);
	mr->type = MROCE_MR_USER;
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	mr->start = start;
	err = mroce_mr_add(mdev, mr);
	if (err)
		goto err_pages;
	mr->ibmr.page_size = PAGE_SIZE;
	mroce_dbg_mr(mr, "iova %#llx len %llu pages %u access %#x\n", iova,
		     length, n, access);
	return &mr->ibmr;

err_pages:
	kvfree(mr->pages);
err_umem:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/* the PD's local_dma_lkey and kernel ULPs' global MRs: all kernel memory */
struct ib_mr *mroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct mroce_dev *mdev = to_mroce_dev(ibpd->device);
	struct mroce_mr *mr;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->type = MROCE_MR_DMA;
	mr->access = access;
	mr->iova = 0;
	mr->length = U64_MAX;
	err = mroce_mr_add(mdev, mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	mroce_dbg_mr(mr, "dma access %#x\n", access);
	return &mr->ibmr;
}

int mroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mroce_dev(ibmr->device);
	struct mroce_mr *mr = to_mroce_mr(ibmr);

	/* no new lookup finds it; wait for the copies that did */
	xa_erase(&mdev->mrs, mr->id);
	mroce_mr_put(mr);
	wait_for_completion(&mr->done);
	mroce_dbg_mr(mr, "\n");
	if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree_rcu(mr, rcu);
	return 0;
}

struct mroce_mr *mroce_mr_get(struct mroce_dev *mdev, struct ib_pd *pd,
			      u32 key, u64 addr, u64 len, int access,
			      bool remote)
{
	struct mroce_mr *mr;

	rcu_read_lock();
	mr = xa_load(&mdev->mrs, key >> 8);
	if (!mr || mr->ibmr.lkey != key || !refcount_inc_not_zero(&mr->refs))
		mr = NULL;
	rcu_read_unlock();
	if (!mr)
		return NULL;
	if (mr->ibmr.pd != pd || (mr->access & access) != access ||
	    (remote && mr->type == MROCE_MR_DMA &&
	     !(mr->access & (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE |
			     IB_ACCESS_REMOTE_ATOMIC))) ||
	    addr < mr->iova || addr - mr->iova > mr->length ||
	    len > mr->length - (addr - mr->iova)) {
		mroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

void mroce_mr_put(struct mroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->refs))
		complete(&mr->done);
}

void mroce_mr_copy(struct mroce_mr *mr, u64 addr, void *buf, u32 len,
		   bool to_mr)
{
	unsigned long va, first;

	if (mr->type == MROCE_MR_DMA) {
		if (to_mr)
			memcpy((void *)(uintptr_t)addr, buf, len);
		else
			memcpy(buf, (void *)(uintptr_t)addr, len);
		return;
	}
	va = mr->start + (addr - mr->iova);
	first = mr->start >> PAGE_SHIFT;
	while (len) {
		struct page *pg = mr->pages[(va >> PAGE_SHIFT) - first];
		unsigned int off = offset_in_page(va);
		unsigned int n = min_t(u32, len, PAGE_SIZE - off);
		u8 *p = kmap_local_page(pg);

		if (to_mr)
			memcpy(p + off, buf, n);
		else
			memcpy(buf, p + off, n);
		kunmap_local(p);
		buf += n;
		va += n;
		len -= n;
	}
}
