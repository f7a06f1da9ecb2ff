// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The software NIC's WQE fetch (shadow mode) and its AH table.
 *
 * A NIC that runs the datapath fetches each send WQE from the QP's ring in
 * host memory when the SQ's doorbell says it is there, and must find
 * everything it names in its own tables: the opcode allowed for the QP's
 * type (the table include/uapi/rdma/mroce-wr.h gives the provider and
 * mroce), each SGE's lkey an MR of the QP's PD whose rights and range
 * allow it, a UD WQE's AH one it was told of, of the same PD. swnic does
 * that at every SQ doorbell and as the QP sends (it polls the ring's
 * producer index then, as a NIC polls a scheduled QP's ring: a user's
 * posts ring no doorbell while mroce polls), reading the WQEs through the
 * page list QP_CREATE gave, while mroce's engine still takes and runs them.
 *
 * The doorbell or poll that moves a QP's last producer index on (shadow.c,
 * sq_index(), sq_poll()) owns the WQEs up to its index, so no two CPUs
 * fetch the same one. A WQE is judged only if mroce had not consumed its
 * slot by the time it was read: the producer may reuse a consumed slot,
 * and what was read may then be half of the next WQE (counted as raced).
 *
 * FRWR MRs and memory windows are keyed by work requests: their lkeys are
 * checked by index and PD only, as the packet checks do.
 */
#include <linux/highmem.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/mroce-abi.h>
#include <rdma/mroce-wr.h>

#include "ring.h"
#include "tables.h"

/* --- AHs (any context, IRQs maybe off: the xarray's lock, IRQs saved) - */

static int ah_create(struct swnic_shadow *sh, const struct mroce_ofl_cmd *c)
{
	const struct mroce_ofl_ah *a = &c->ah;
	struct shadow_ah *ah;
	unsigned long flags;
	int err;

	if (!c->id || !has(&sh->pds, a->pd))
		return c->id ? -ENOENT : -EINVAL;
	if (a->family != AF_INET && a->family != AF_INET6)
		return -EINVAL;
	ah = kzalloc(sizeof(*ah), GFP_ATOMIC);
	if (!ah)
		return -ENOMEM;
	ah->pd = a->pd;
	ah->family = a->family;
	xa_lock_irqsave(&sh->ahs, flags);
	err = __xa_insert(&sh->ahs, c->id, ah, GFP_ATOMIC);
	xa_unlock_irqrestore(&sh->ahs, flags);
	if (err)
		kfree(ah);
	return err == -EBUSY ? -EEXIST : err;
}

int swnic_ah_cmd(struct swnic_shadow *sh, const struct mroce_ofl_cmd *c)
{
	struct shadow_ah *ah;
	unsigned long flags;

	if (c->flags & ~MROCE_OFL_CF_ATOMIC)
		return -EINVAL;
	if (c->op == MROCE_OFL_CMD_AH_CREATE)
		return ah_create(sh, c);
	xa_lock_irqsave(&sh->ahs, flags);
	ah = __xa_erase(&sh->ahs, c->id);
	xa_unlock_irqrestore(&sh->ahs, flags);
	if (!ah)
		return -ENOENT;
	kfree_rcu(ah, rcu);	/* a WQE check may hold it */
	return 0;
}

/* detach: nothing checks any more */
void swnic_ahs_free(struct swnic_shadow *sh)
{
	struct shadow_ah *ah;
	unsigned long i;

	xa_for_each(&sh->ahs, i, ah)
		kfree_rcu(ah, rcu);
	xa_destroy(&sh->ahs);
}

/* --- send WQEs (RCU, any context) ----------------------------------------- */

/* @len bytes at @off into @q's send ring, read through its pages */
static void ring_read(const struct shadow_qp *q, u64 off, void *buf, u32 len)
{
	while (len) {
		u32 in = offset_in_page(off), n = min_t(u32, len, PAGE_SIZE - in);
		const u8 *va = kmap_local_page(pfn_to_page(PHYS_PFN(
					q->h.pages[off >> PAGE_SHIFT])));

		memcpy(buf, va + in, n);
		kunmap_local(va);
		off += n;
		buf += n;
		len -= n;
	}
}

u32 swnic_sq_hdr(const struct shadow_qp *q, size_t field)
{
	const u8 *h = kmap_local_page(pfn_to_page(PHYS_PFN(q->h.pages[0])));
	u32 v = READ_ONCE(*(const u32 *)(h + field));

	kunmap_local(h);
	return v;
}

/* may @q's WQE use [addr, addr + len) through lkey @key for @right? */
static bool lkey_ok(struct swnic_shadow *sh, const struct shadow_qp *q,
		    const struct mroce_sge *sge, u32 right)
{
	const struct shadow_key *k = live(&sh->keys, sge->lkey >> 8, NULL);
	u64 end;

	if (!k || k->kind == SH_KIND_MW || k->pd != q->pd)
		return false;
	if (k->kind == MROCE_OFL_MR_FRWR)	/* keyed by REG_MR: index */
		return true;
	if (k->key != sge->lkey || (right && !(k->access & right)))
		return false;
	if (k->kind == MROCE_OFL_MR_DMA)
		return true;
	return !check_add_overflow(sge->addr, (u64)sge->length, &end) &&
	       sge->addr >= k->iova && end - k->iova <= k->length;
}

/* the WQE at ring offset @off, whose fixed part is @e */
static enum shadow_stat wqe_check(struct swnic_shadow *sh,
				  const struct shadow_qp *q, u64 off,
				  const struct mroce_sqe *e)
{
	u32 stride = 1U << q->sq_stride_log2, op = e->opcode, n, i;
	const struct mroce_wr_op *o = op < MROCE_WR_OPS ? &mroce_wr_ops[op] :
							  NULL;
	const struct shadow_ah *ah;
	struct mroce_sge sge;

	if (op == IB_WR_REG_MR)		/* kernel QPs: the pages are mroce's */
		return SH_WQE_REG_MR;
	if (!o || !(o->qp_types & mroce_wr_qpt(q->type)))
		return SH_WQE_BAD_OP;
	if (mroce_wr_qpt(q->type) == MROCE_QPT_UD) {
		ah = xa_load(&sh->ahs, e->ah);
		if (!ah || ah->pd != q->pd)
			return SH_WQE_UNKNOWN_AH;
	}
	/* local WRs and WQEs that carry their value name no local memory */
	if (o->flags & (MROCE_WR_LOCAL | MROCE_WR_VALUE) ||
	    (e->send_flags & IB_SEND_INLINE && o->flags & MROCE_WR_INLINE))
		return SH_NSTATS;
	n = e->num_sge;
	if (stride < sizeof(*e) || n > (stride - sizeof(*e)) / sizeof(sge))
		return SH_WQE_BAD_SGE;
	for (i = 0; i < n; i++) {
		ring_read(q, off + sizeof(*e) + i * sizeof(sge), &sge,
			  sizeof(sge));
		if (sge.length && !lkey_ok(sh, q, &sge, o->local_access))
			return SH_WQE_BAD_LKEY;
	}
	return SH_NSTATS;
}

void swnic_wqe_fetch(struct swnic_shadow *sh, const struct shadow_qp *q,
		     u32 from, u32 to)
{
	struct mroce_sqe e;
	enum shadow_stat s;
	u32 idx;
	u64 off;

	for (idx = from; idx != to; idx++) {
		off = MRE_RING_HDR_SIZE +
		      ((u64)(idx & (q->sq_depth - 1)) << q->sq_stride_log2);
		ring_read(q, off, &e, sizeof(e));
		s = wqe_check(sh, q, off, &e);
		/* consumed by now: the producer may have reused the slot */
		smp_rmb();	/* the WQE's bytes were read before the index */
		if ((s32)(idx - swnic_sq_hdr(q, SH_CONS)) < 0)
			s = SH_WQE_RACED;
		sh_count(sh, s == SH_NSTATS ? SH_WQE_CHECKED : s);
	}
}
