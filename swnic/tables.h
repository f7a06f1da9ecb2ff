/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The software NIC's object tables, as shadow.c keeps them and wqe.c reads
 * them: entries of QPs, keys (MRs and MWs) and AHs, looked up under RCU.
 * Commands change them under sh->lock (AH commands, which may come where
 * sleeping is not allowed, under the AH xarray's own lock instead).
 */
#ifndef SWNIC_TABLES_H
#define SWNIC_TABLES_H

#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include "ring.h"
#include "shadow.h"

#define SH_KIND_MW	0x80	/* struct shadow_key.kind: a memory window */
#define SH_READS	128	/* the engine's MRE_RD_SLOTS */

/* what a QP's and a key's entries start with: freed together after RCU */
struct shadow_head {
	struct rcu_head rcu;
	void *extra;	/* kvmalloc'ed: a QP's READ slots */
	u64 *pages;	/* kvmalloc'ed: a QP's send ring's, a user MR's pages */
	bool gone;	/* destroyed: a tombstone, kept to tell late packets */
};

/* a READ a peer asked of us, until its response goes (by rdsn) */
struct shadow_read {
	u32 rdsn;
	u32 rkey;
	u32 mlen;
	bool valid;
	u64 raddr;
};

struct shadow_qp {
	struct shadow_head h;	/* extra: RC's struct shadow_read[SH_READS] */
	spinlock_t rd_lock;	/* the READ slots */
	u32 pd;
	u32 dest_qpn;
	u32 qkey;
	u32 access;
	u32 sq_depth;
	u8 sq_stride_log2;	/* h.pages: the send ring's, physical */
	atomic_t sq_last;	/* the last SQ doorbell's producer index */
	u8 type;
	u8 state;
	bool has_dest;	/* RC/UC: an RTR since its creation or last RESET */
};

struct shadow_key {
	struct shadow_head h;	/* pages: a user MR's */
	u32 npages;
	u32 offset;		/* of iova into the first page */
	u32 pd;
	u32 key;
	u32 access;
	u8 kind;	/* MROCE_OFL_MR_* or SH_KIND_MW */
	u64 iova;
	u64 length;
};

/* either kind is freed through its head, its first member */
static_assert(offsetof(struct shadow_qp, h) == 0 &&
	      offsetof(struct shadow_key, h) == 0);

/* what an AH_CREATE told: freed after RCU */
struct shadow_ah {
	struct rcu_head rcu;
	u32 pd;
	u8 family;
};

static inline void sh_count(struct swnic_shadow *sh, enum shadow_stat s)
{
	atomic64_inc(&sh->stats[s]);
}

static inline bool has(struct xarray *xa, u32 id)
{
	return id && xa_load(xa, id);
}

/* a live entry, or NULL; a tombstone is reused by the next CREATE */
static inline void *live(struct xarray *xa, u32 id, bool *tomb)
{
	struct shadow_head *h = xa_load(xa, id);

	if (!h)
		return NULL;
	if (tomb)
		*tomb = h->gone;
	return h->gone ? NULL : h;
}

/* wqe.c: AH commands (any context); the AHs freed at detach */
int swnic_ah_cmd(struct swnic_shadow *sh, const struct mroce_ofl_cmd *c);
void swnic_ahs_free(struct swnic_shadow *sh);
/*
 * wqe.c: an index in @q's send ring header, through its first page: the
 * producer's (the user's or mroce's post) or the consumer's (mroce's)
 */
#define SH_PROD	offsetof(struct mre_ring_hdr, prod)
#define SH_CONS	offsetof(struct mre_ring_hdr, cons)
u32 swnic_sq_hdr(const struct shadow_qp *q, size_t field);
/* wqe.c: check SQ WQEs [@from, @to) of live QP @q, a doorbell's or poll's */
void swnic_wqe_fetch(struct swnic_shadow *sh, const struct shadow_qp *q,
		     u32 from, u32 to);

#endif /* SWNIC_TABLES_H */
