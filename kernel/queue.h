/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Queues shared with userspace: the kernel's side of kernel/engine/ring.h.
 *
 * A queue is one vmalloc'ed ring. For a user object it is mapped into the
 * process through an rdma_user_mmap_entry (offset and length go back in the
 * create response); for a kernel object (in-kernel ULPs, the GSI QP) it is
 * the same ring in kernel memory, so both take the same code paths.
 *
 * Lifetime: a kernel ring is freed when its object is destroyed; a user
 * ring belongs to its mmap entry and is freed with it (mroce_mmap_free(),
 * after the object's destroy removed the entry and no mmap() holds it),
 * so a mapping in progress never maps freed memory. A process that still
 * has it mapped keeps the pages (remap_vmalloc_range() took a reference on
 * each), never the object: every index the kernel
 * reads from a work queue is checked against its own (wq.h), and WQEs
 * are copied and validated before use.
 */
#ifndef MROCE_QUEUE_H
#define MROCE_QUEUE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "oflcmd.h"
#include "ring.h"

struct mroce_queue {
	struct mre_ring r;	/* the kernel's side: consumer of a work queue */
	/*
	 * A kernel object's work queue is also produced in the kernel (a
	 * ULP's post): that side keeps its own view of the same ring, since
	 * each view's indices are private to its side (ring.h) and the two
	 * sides run under different locks (post vs. QP/SRQ lock).
	 */
	struct mre_ring kp;
	void *buf;
	size_t len;
	struct rdma_user_mmap_entry *mmap;	/* user queues only */
	struct mroce_ofl_map ofl;	/* its pages for the offload (OBJECTS) */
};

/*
 * Allocate a ring of @size entries (a power of two) of @stride bytes; for
 * a user object (@udata) also insert its mmap entry and return its offset
 * in @offset. Process context.
 */
int mroce_queue_init(struct mroce_queue *q, struct ib_udata *udata,
		     u32 size, u32 stride, u64 *offset);
void mroce_queue_free(struct mroce_queue *q);

/*
 * A kernel consumer's receive WR into ring @kp, its producer view of an RQ
 * or SRQ (mroce_queue.kp): -EINVAL, -ENOMEM, 0
 */
int mroce_queue_post_rqe(struct mre_ring *kp, const struct ib_recv_wr *wr,
			 u32 max_sge);

int mroce_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void mroce_mmap_free(struct rdma_user_mmap_entry *entry);

#endif /* MROCE_QUEUE_H */
