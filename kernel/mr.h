/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Memory regions: registration, lookup by key, and the only code that
 * touches registered memory (mroce_mr_copy()).
 *
 * Keys: lkey == rkey == index << 8 | a random byte, the index from the
 * device's MR xarray. A lookup (mroce_mr_get()) checks the whole key, the
 * PD, the access rights and that the range lies inside the region, and
 * returns the MR with a reference; the datapath holds it only for the copy
 * at hand. Posted WQEs keep keys, not MRs, so deregistering never waits for
 * the network: dereg removes the key (no new lookup can find it) and waits
 * for the few copies in progress, then unpins the pages. A WQE that names a
 * key that is gone fails with a protection error when it is used.
 */
#ifndef MROCE_MR_H
#define MROCE_MR_H

#include <linux/completion.h>
#include <linux/refcount.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

struct mroce_dev;

enum mroce_mr_type {
	MROCE_MR_USER,		/* pinned user pages, addresses are iovas */
	MROCE_MR_DMA,		/* kernel: addresses are kernel virtual */
};

struct mroce_mr {
	struct ib_mr ibmr;
	enum mroce_mr_type type;
	u32 id;			/* xarray index: key >> 8 */
	int access;		/* IB_ACCESS_* */
	u64 iova;		/* first byte, as the peer names it */
	u64 length;
	struct ib_umem *umem;
	struct page **pages;	/* USER: page i covers user VA (start & PAGE_MASK) + i pages */
	unsigned long start;	/* USER: user VA of iova */
	refcount_t refs;	/* 1 while registered + copies in progress */
	struct completion done;	/* refs reached zero */
	struct rcu_head rcu;
};

static inline struct mroce_mr *to_mroce_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct mroce_mr, ibmr);
}

/* ib_device_ops */
struct ib_mr *mroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
struct ib_mr *mroce_get_dma_mr(struct ib_pd *ibpd, int access);
int mroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/*
 * The MR @key of @pd covering [@addr, @addr + @len) with all of @access,
 * referenced, or NULL. @remote: the key came off the wire (an rkey), which
 * only MRs with a remote right can match. Any context.
 */
struct mroce_mr *mroce_mr_get(struct mroce_dev *mdev, struct ib_pd *pd,
			      u32 key, u64 addr, u64 len, int access,
			      bool remote);
void mroce_mr_put(struct mroce_mr *mr);

/* copy @len bytes between @buf and @addr of @mr (range already checked) */
void mroce_mr_copy(struct mroce_mr *mr, u64 addr, void *buf, u32 len,
		   bool to_mr);

#endif /* MROCE_MR_H */
