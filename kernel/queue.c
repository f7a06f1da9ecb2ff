// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queues shared with userspace (see queue.h).
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/mroce-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "queue.h"
#include "mroce.h"

struct mroce_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	void *buf;
};

static struct mroce_mmap_entry *to_mroce_mmap(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct mroce_mmap_entry, rdma_entry);
}

int mroce_queue_init(struct mroce_queue *q, struct ib_udata *udata,
		     u32 size, u32 stride, u64 *offset)
{
	struct mroce_ucontext *uctx;
	struct mroce_mmap_entry *e;
	int err;

	if (!is_power_of_2(size) || !stride)
		return -EINVAL;
	q->len = PAGE_ALIGN(mre_ring_bytes(size, stride));
	q->buf = udata ? vmalloc_user(q->len) : vzalloc(q->len);
	if (!q->buf)
		return -ENOMEM;
	mre_ring_init(&q->r, q->buf, size, stride);
	mre_ring_init(&q->kp, q->buf, size, stride);
	q->mmap = NULL;
	q->ofl = (struct mroce_ofl_map){};
	if (!udata)
		return 0;

	uctx = rdma_udata_to_drv_context(udata, struct mroce_ucontext, ibuc);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e) {
		err = -ENOMEM;
		goto err_free;
	}
	e->buf = q->buf;
	err = rdma_user_mmap_entry_insert(&uctx->ibuc, &e->rdma_entry, q->len);
	if (err) {
		kfree(e);
		goto err_free;
	}
	q->mmap = &e->rdma_entry;
	*offset = rdma_user_mmap_get_offset(q->mmap);
	return 0;

err_free:
	vfree(q->buf);
	q->buf = NULL;
	return err;
}

/*
 * A user ring is the mmap entry's: mroce_mmap() may be mapping it right
 * now (it holds a reference on the entry, not on the object), so the
 * memory goes when the entry's last reference does (mroce_mmap_free()),
 * never before. Pages already mapped stay with the mapping either way.
 */
void mroce_queue_free(struct mroce_queue *q)
{
	mroce_ofl_unmap(&q->ofl);	/* the NIC was told to let go first */
	if (q->mmap)
		rdma_user_mmap_entry_remove(q->mmap);
	else
		vfree(q->buf);
	q->mmap = NULL;
	q->buf = NULL;
}

int mroce_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *re;
	int err;

	re = rdma_user_mmap_entry_get(ibuc, vma);
	if (!re) {
		mroce_dbg_uctx(to_mroce_uctx(ibuc), "offset %#lx unknown\n",
			       vma->vm_pgoff << PAGE_SHIFT);
		return -EINVAL;
	}
	err = remap_vmalloc_range(vma, to_mroce_mmap(re)->buf, 0);
	rdma_user_mmap_entry_put(re);
	return err;
}

/* the entry's last reference: removed, and no mmap() in progress */
void mroce_mmap_free(struct rdma_user_mmap_entry *re)
{
	struct mroce_mmap_entry *e = to_mroce_mmap(re);

	vfree(e->buf);
	kfree(e);
}

int mroce_queue_post_rqe(struct mre_ring *kp, const struct ib_recv_wr *wr,
			  u32 max_sge)
{
	struct mroce_rqe *e;
	u32 i;

	if (wr->num_sge > max_sge)
		return -EINVAL;
	if (!mre_ring_space(kp))
		return -ENOMEM;
	e = mre_ring_next(kp);
	e->wr_id = wr->wr_id;
	e->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		e->sge[i].addr = wr->sg_list[i].addr;
		e->sge[i].length = wr->sg_list[i].length;
		e->sge[i].lkey = wr->sg_list[i].lkey;
	}
	mre_ring_publish(kp, 1);
	return 0;
}
