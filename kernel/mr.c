// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory regions (see mr.h).
 */
#include <linux/dma-buf.h>
#include <linux/highmem.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "mr.h"
#include "oflcmd.h"
#include "mroce.h"

/* registered: one reference, no copy in progress */
static void mr_refs_init(struct mroce_mr *mr)
{
	refcount_set(&mr->refs, 1);
	init_completion(&mr->done);
}

static int mroce_mr_add(struct mroce_dev *mdev, struct mroce_mr *mr)
{
	u32 id;
	int err;

	mr_refs_init(mr);
	err = xa_alloc_cyclic(&mdev->mrs, &id, mr, XA_LIMIT(1, 0xffffff),
			      &mdev->mr_next, GFP_KERNEL);
	if (err < 0)
		return err;
	mr->id = id;
	mr->key = id << 8 | (get_random_u32() & 0xff);
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	return 0;
}

/*
 * Publish @mr under a new key and tell the offload. If the offload
 * refuses, the key goes again: lookups that found it in between (a peer
 * guessing keys) are waited for, as at dereg.
 */
static int mr_publish(struct mroce_dev *mdev, struct mroce_mr *mr,
		      struct ib_pd *pd)
{
	int err = mroce_mr_add(mdev, mr);

	if (err)
		return err;
	err = mroce_ofl_mr_cmd(mr, pd, MROCE_OFL_CMD_MR_CREATE, 0);
	if (err) {
		xa_erase(&mdev->mrs, mr->id);
		mroce_mr_put(mr);
		wait_for_completion(&mr->done);
		synchronize_rcu();
	}
	return err;
}

/* a user MR pinning [@start, @start + @length), not yet published */
static struct mroce_mr *user_mr_new(struct ib_pd *ibpd, u64 start, u64 length,
				    u64 iova, int access)
{
	struct sg_page_iter it;
	struct mroce_mr *mr;
	unsigned int n = 0;
	int err;

	if (access & ~(MROCE_MR_RIGHTS | IB_ACCESS_MW_BIND))
		return ERR_PTR(-EOPNOTSUPP);	/* e.g. ODP, zero-based */
	if (!length || length > MROCE_MAX_MR_SIZE)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->pages = kvcalloc(ib_umem_num_pages(mr->umem), sizeof(*mr->pages),
			     GFP_KERNEL);
	if (!mr->pages) {
		ib_umem_release(mr->umem);
		kfree(mr);
		return ERR_PTR(-ENOMEM);
	}
	for_each_sgtable_page(&mr->umem->sgt_append.sgt, &it, 0)
		mr->pages[n++] = sg_page_iter_page(&it);
	mr->type = MROCE_MR_USER;
	spin_lock_init(&mr->lock);
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	mr->start = start;
	mr->ibmr.page_size = PAGE_SIZE;
	return mr;
}

static void user_mr_free(struct mroce_mr *mr)
{
	mroce_ofl_unmap(&mr->ofl);	/* the offload let go of them */
	kvfree(mr->pages);
	ib_umem_release(mr->umem);
	kfree(mr);
}

struct ib_mr *mroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct mroce_mr *mr = user_mr_new(ibpd, start, length, iova, access);
	int err;

	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = mr_publish(to_mroce_dev(ibpd->device), mr, ibpd);
	if (err) {
		user_mr_free(mr);
		return ERR_PTR(err);
	}
	mroce_dbg_mr(mr, "iova %#llx len %llu access %#x\n", iova, length,
		     access);
	return &mr->ibmr;
}

/*
 * ibv_reg_dmabuf_mr: [@offset, @offset + @length) of the dma-buf @fd,
 * attached, pinned and mapped (dmabuf.c) before its key is published
 */
struct ib_mr *mroce_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
				       u64 length, u64 iova, int fd,
				       int access, struct ib_udata *udata)
{
	struct mroce_mr *mr;
	int err;

	if (access & ~MROCE_MR_RIGHTS)
		return ERR_PTR(-EOPNOTSUPP);	/* MW_BIND: user MRs only */
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = mroce_dmabuf_get(mr, ibpd->device, fd, offset, length, access);
	if (err)
		goto err_free;
	mr->type = MROCE_MR_DMABUF;
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	err = mr_publish(to_mroce_dev(ibpd->device), mr, ibpd);
	if (err)
		goto err_put;
	mroce_dbg_mr(mr, "dma-buf %zu B, [%llu +%llu] iova %#llx access %#x\n",
		     mr->dmabuf->size, offset, length, iova, access);
	return &mr->ibmr;

err_put:
	mroce_dmabuf_put(mr);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/* a window is bound to @mr_key (or may be: a dealloc in progress) */
static bool mw_bound_to(struct mroce_dev *mdev, u32 mr_key)
{
	struct mroce_mw *mw;
	unsigned long id;
	bool bound = false;

	rcu_read_lock();	/* throughout: dealloc_mw waits for us */
	xa_for_each(&mdev->mws, id, mw) {
		spin_lock_bh(&mw->lock);
		bound = mw->bound && mw->mr_key == mr_key;
		spin_unlock_bh(&mw->lock);
		if (bound)
			break;
	}
	rcu_read_unlock();
	return bound;
}

/*
 * ibv_rereg_mr: a new MR object under the same keys (ULPs and peers keep
 * the rkey they were given, as on mlx5), which takes the old one's place
 * in the key table at once; the core then deregisters the old one, which
 * waits for the copies into it that found it before (so none lands in the
 * old pages after the call, none in the new pages through the old
 * translation) and leaves the key to the new one. Without
 * IB_MR_REREG_TRANS the same range is pinned again (new rights may need a
 * writable pin). Not while a window is bound to the key: EBUSY (mr.h).
 */
struct ib_mr *mroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mroce_dev(ibmr->device);
	struct mroce_mr *old = to_mroce_mr(ibmr), *mr;
	void *was;
	int err;

	if (old->type != MROCE_MR_USER)
		return ERR_PTR(-EINVAL);
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = old->start;
		length = old->length;
		iova = old->iova;
	}
	if (!(flags & IB_MR_REREG_ACCESS))
		access = old->access;
	/* before pinning anything: no window may be bound, nor be bound now */
	spin_lock_bh(&old->lock);
	old->retired = true;
	spin_unlock_bh(&old->lock);
	if (mw_bound_to(mdev, old->key)) {
		mroce_dbg_mr(old, "rereg: a window is bound\n");
		err = -EBUSY;
		goto err_unretire;
	}
	mr = user_mr_new(ibpd, start, length, iova, access);
	if (IS_ERR(mr)) {
		err = PTR_ERR(mr);
		goto err_unretire;
	}
	mr_refs_init(mr);
	mr->id = old->id;
	mr->key = old->key;
	mr->ibmr.lkey = old->key;
	mr->ibmr.rkey = old->key;
	mr->ibmr.pd = ibpd;	/* lookups check it before the core sets it */
	err = mroce_ofl_mr_cmd(mr, ibpd, MROCE_OFL_CMD_MR_CREATE, MROCE_OFL_CF_REPLACE);
	if (err) {
		user_mr_free(mr);
		goto err_unretire;
	}
	was = xa_store(&mdev->mrs, mr->id, mr, GFP_KERNEL);
	if (xa_is_err(was)) {
		/* the offload's entry back to the MR that keeps the key */
		mroce_ofl_mr_cmd(old, old->ibmr.pd, MROCE_OFL_CMD_MR_CREATE,
		       MROCE_OFL_CF_REPLACE);
		user_mr_free(mr);
		err = xa_err(was);
		goto err_unretire;
	}
	mroce_dbg_mr(mr, "rereg flags %#x: iova %#llx len %llu access %#x\n",
		     flags, iova, length, access);
	return &mr->ibmr;

err_unretire:
	spin_lock_bh(&old->lock);
	old->retired = false;
	spin_unlock_bh(&old->lock);
	return ERR_PTR(err);
}

/* FRWR (frwr.c): room for @max_num_sg pages, no valid key yet */
struct ib_mr *mroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct mroce_dev *mdev = to_mroce_dev(ibpd->device);
	struct mroce_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);	/* no SG_GAPS, no integrity */
	if (!max_num_sg || max_num_sg > MROCE_MAX_FRPL)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->frpl = kvcalloc(max_num_sg, sizeof(*mr->frpl), GFP_KERNEL);
	if (!mr->frpl) {
		kfree(mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->type = MROCE_MR_FRWR;
	mr->max_pages = max_num_sg;
	spin_lock_init(&mr->lock);
	err = mr_publish(mdev, mr, ibpd);
	if (err) {
		kvfree(mr->frpl);
		kfree(mr);
		return ERR_PTR(err);
	}
	mroce_dbg_mr(mr, "frwr, %u pages\n", max_num_sg);
	return &mr->ibmr;
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
	err = mr_publish(mdev, mr, ibpd);
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

	bool last;

	/*
	 * No new lookup finds it (unless a rereg put its successor under
	 * the same key: that one stays); wait for the copies that did. Then
	 * the offload forgets the key, before the pages are unpinned.
	 */
	last = xa_cmpxchg(&mdev->mrs, mr->id, mr, NULL, 0) == mr;
	mroce_mr_put(mr);
	wait_for_completion(&mr->done);
	if (last)
		mroce_ofl_mr_cmd(mr, ibmr->pd, MROCE_OFL_CMD_MR_DESTROY, 0);
	mroce_dbg_mr(mr, "\n");
	mroce_ofl_unmap(&mr->ofl);	/* DESTROY, or a rereg's REPLACE, came first */
	if (mr->umem)
		ib_umem_release(mr->umem);
	if (mr->dmabuf)
		mroce_dmabuf_put(mr);	/* vunmap, unpin, detach */
	kvfree(mr->pages);
	kvfree(mr->frpl);
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
	if (mr && !(mr->type == MROCE_MR_FRWR ? mroce_frwr_hold(mr, key) :
		    mr->key == key && refcount_inc_not_zero(&mr->refs)))
		mr = NULL;
	rcu_read_unlock();
	if (!mr)
		return NULL;
	if (mr->ibmr.pd != pd || (mr->access & access) != access ||
	    (remote && mr->type == MROCE_MR_DMA &&
	     !(mr->access & MROCE_REMOTE_RIGHTS)) ||
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

	switch (mr->type) {
	case MROCE_MR_DMA:
		mroce_copy_dir((void *)(uintptr_t)addr, buf, len, to_mr);
		return;
	case MROCE_MR_FRWR:
		mroce_frwr_copy(mr, addr, buf, len, to_mr);
		return;
	case MROCE_MR_DMABUF:
		mroce_copy_dir(mr->kva + (addr - mr->iova), buf, len, to_mr);
		return;
	case MROCE_MR_USER:
		break;
	}
	va = mr->start + (addr - mr->iova);
	first = mr->start >> PAGE_SHIFT;
	while (len) {
		struct page *pg = mr->pages[(va >> PAGE_SHIFT) - first];
		unsigned int off = offset_in_page(va);
		unsigned int n = min_t(u32, len, PAGE_SIZE - off);
		u8 *p = kmap_local_page(pg);

		mroce_copy_dir(p + off, buf, n, to_mr);
		kunmap_local(p);
		buf += n;
		va += n;
		len -= n;
	}
}
