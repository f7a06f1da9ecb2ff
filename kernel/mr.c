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
	err = mroce_mr_add(to_mroce_dev(ibpd->device), mr);
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
	err = mroce_mr_add(to_mroce_dev(ibpd->device), mr);
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
	was = xa_store(&mdev->mrs, mr->id, mr, GFP_KERNEL);
	if (xa_is_err(was)) {
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
	err = mroce_mr_add(mdev, mr);
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

	/*
	 * No new lookup finds it (unless a rereg put its successor under
	 * the same key: that one stays); wait for the copies that did.
	 */
	xa_cmpxchg(&mdev->mrs, mr->id, mr, NULL, 0);
	mroce_mr_put(mr);
	wait_for_completion(&mr->done);
	mroce_dbg_mr(mr, "\n");
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

/* --- memory windows --------------------------------------------------------- */

#define mroce_dbg_mw(mw, fmt, ...)					\
	ibdev_dbg((mw)->ibmw.device, "mw %#x %s: " fmt, (mw)->id,	\
		  __func__, ##__VA_ARGS__)

#define MROCE_MW_ACCESS	(IB_ACCESS_LOCAL_WRITE | MROCE_REMOTE_RIGHTS)

int mroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mroce_dev(ibmw->device);
	struct mroce_mw *mw = to_mroce_mw(ibmw);
	u32 id;
	int err;

	/* the core lets only types 1 and 2 through; we do 1 and 2B */
	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	spin_lock_init(&mw->lock);
	/* reserve the index among the MRs' keys, then publish the MW */
	err = xa_alloc_cyclic(&mdev->mrs, &id, NULL, XA_LIMIT(1, 0xffffff),
			      &mdev->mr_next, GFP_KERNEL);
	if (err < 0)
		return err;
	mw->id = id;
	mw->rkey = id << 8 | (get_random_u32() & 0xff);
	ibmw->rkey = mw->rkey;
	err = xa_insert(&mdev->mws, id, mw, GFP_KERNEL);
	if (err) {
		xa_erase(&mdev->mrs, id);
		return err;
	}
	mroce_dbg_mw(mw, "type %d rkey %#x\n", ibmw->type, mw->rkey);
	return 0;
}

int mroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct mroce_dev *mdev = to_mroce_dev(ibmw->device);
	struct mroce_mw *mw = to_mroce_mw(ibmw);

	/* no new lookup finds it; lookups in progress (RCU) end first */
	xa_erase(&mdev->mws, mw->id);
	synchronize_rcu();
	xa_erase(&mdev->mrs, mw->id);	/* the index may be reused now */
	mroce_dbg_mw(mw, "\n");
	return 0;
}

/* C10-73, C10-74: @mr allows a window with @access (to bind, to use) */
static bool mr_binds(const struct mroce_mr *mr, int access)
{
	return mr->type == MROCE_MR_USER && mr->access & IB_ACCESS_MW_BIND &&
	       (!(access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) ||
		mr->access & IB_ACCESS_LOCAL_WRITE);
}

/* the MW @key names (its index: the low byte is not looked at); RCU held */
static struct mroce_mw *mw_lookup(struct ib_qp *qp, u32 key)
{
	struct mroce_mw *mw = xa_load(&to_mroce_dev(qp->device)->mws, key >> 8);

	return mw && mw->ibmw.pd == qp->pd ? mw : NULL;
}

struct mroce_mr *mroce_rkey_get(struct ib_qp *qp, u32 rkey, u64 addr, u64 len,
				int access)
{
	struct mroce_dev *mdev = to_mroce_dev(qp->device);
	struct mroce_mr *mr;
	struct mroce_mw *mw;
	u32 mr_key = 0;

	mr = mroce_mr_get(mdev, qp->pd, rkey, addr, len, access, true);
	if (mr)
		return mr;
	rcu_read_lock();
	mw = mw_lookup(qp, rkey);
	if (mw) {
		spin_lock_bh(&mw->lock);
		if (mw->bound && mw->rkey == rkey &&
		    (mw->access & access) == access &&
		    (mw->ibmw.type == IB_MW_TYPE_1 || mw->qpn == qp->qp_num) &&
		    addr >= mw->addr && addr - mw->addr <= mw->length &&
		    len <= mw->length - (addr - mw->addr))
			mr_key = mw->mr_key;
		spin_unlock_bh(&mw->lock);
	}
	rcu_read_unlock();
	if (!mr_key)
		return NULL;
	/* the MR as it is now (it may be gone): it must still allow this */
	mr = mroce_mr_get(mdev, qp->pd, mr_key, addr, len, 0, false);
	if (mr && !mr_binds(mr, access)) {
		mroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

enum ib_wc_status mroce_mw_bind(struct ib_qp *qp, u32 mw_key, u32 new_rkey,
				u32 mr_key, u64 addr, u64 len, int access)
{
	struct mroce_dev *mdev = to_mroce_dev(qp->device);
	enum ib_wc_status st = IB_WC_MW_BIND_ERR;
	struct mroce_mr *mr = NULL;
	struct mroce_mw *mw;

	if (access & ~MROCE_MW_ACCESS)		/* zero-based windows, ... */
		return st;
	if (mr_key || len) {
		mr = mroce_mr_get(mdev, qp->pd, mr_key, addr, len, 0, false);
		if (!mr)
			return st;
		if (!mr_binds(mr, access))
			goto out;
	}
	rcu_read_lock();
	mw = mw_lookup(qp, mw_key);
	if (!mw || new_rkey >> 8 != mw->id)
		goto out_rcu;
	/* a rereg's search for bound windows sees us, or we see the rereg */
	if (mr)
		spin_lock_bh(&mr->lock);
	else
		__acquire(&mr->lock);	/* for sparse: unbinding */
	spin_lock_bh(&mw->lock);
	/* type 2: bound only from the free state, and to an MR */
	if ((mr && mr->retired) ||
	    (mw->ibmw.type == IB_MW_TYPE_2 && (mw->bound || !mr)))
		goto out_unlock;
	mw->rkey = new_rkey;
	mw->ibmw.rkey = new_rkey;
	mw->bound = mr && len;	/* a zero-length bind unbinds */
	mw->mr_key = mr_key;
	mw->addr = addr;
	mw->length = len;
	mw->access = access;
	mw->qpn = qp->qp_num;
	st = IB_WC_SUCCESS;
	mroce_dbg_mw(mw, "rkey %#x mr %#x [%#llx +%llu] access %#x qp %u\n",
		     new_rkey, mr_key, addr, len, access, qp->qp_num);
out_unlock:
	spin_unlock_bh(&mw->lock);
	if (mr)
		spin_unlock_bh(&mr->lock);
	else
		__release(&mr->lock);
out_rcu:
	rcu_read_unlock();
out:
	if (mr)
		mroce_mr_put(mr);
	return st;
}

/* RCU held */
static bool mw_invalidate(struct ib_qp *qp, u32 rkey, bool remote, bool check)
{
	struct mroce_mw *mw;
	bool ok = false;

	mw = mw_lookup(qp, rkey);
	/* o10-37.2.26: a type 1 MW is not invalidated, it is unbound */
	if (mw && mw->ibmw.type == IB_MW_TYPE_2) {
		spin_lock_bh(&mw->lock);
		ok = mw->rkey == rkey &&
		     (!remote || (mw->bound && mw->qpn == qp->qp_num));
		if (ok && !check)
			mw->bound = false;
		spin_unlock_bh(&mw->lock);
	}
	return ok;
}

bool mroce_key_invalidate(struct ib_qp *qp, u32 rkey, bool remote, bool check)
{
	struct mroce_mr *mr;
	bool ok;

	rcu_read_lock();
	/* an MR index or an MW's (reserved: NULL there), never both */
	mr = xa_load(&to_mroce_dev(qp->device)->mrs, rkey >> 8);
	if (mr)
		ok = mr->type == MROCE_MR_FRWR &&
		     mroce_frwr_invalidate(qp, mr, rkey, remote, check);
	else
		ok = mw_invalidate(qp, rkey, remote, check);
	rcu_read_unlock();
	return ok;
}

void mroce_mw_qp_gone(struct ib_qp *qp)
{
	struct mroce_dev *mdev = to_mroce_dev(qp->device);
	struct mroce_mw *mw;
	unsigned long id;

	/* under RCU throughout: dealloc_mw waits for us */
	rcu_read_lock();
	xa_for_each(&mdev->mws, id, mw) {
		if (mw->ibmw.type != IB_MW_TYPE_2 || mw->ibmw.pd != qp->pd)
			continue;
		spin_lock_bh(&mw->lock);
		if (mw->bound && mw->qpn == qp->qp_num)
			mw->bound = false;
		spin_unlock_bh(&mw->lock);
	}
	rcu_read_unlock();
}
