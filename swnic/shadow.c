// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The software NIC's object tables and the shadow check (shadow.h).
 *
 * A NIC that runs the datapath knows a device's objects only from the
 * host's commands. While mroce's engine still moves the data, swnic keeps
 * the tables such a NIC would keep and checks each DATA and UD packet it
 * carries against them:
 *
 *  - sent (mroce's): the source QP was created and, for RC/UC, told of an
 *    RTR whose dest_qpn is the packet's destination stream. A miss is a
 *    hole in the boundary: a NIC could not have sent that packet.
 *  - received: the destination QP exists, and the rkey of a WRITE, READ
 *    or ATOMIC names an MR or MW of the QP's PD whose rights and range
 *    allow the access. From a mroce peer in a test's traffic, a miss is
 *    a hole (mroce placed data a NIC would have refused); from a hostile
 *    peer it is what the NIC must refuse, so it is counted apart.
 *
 * Keys changed by work requests (FRWR's REG_MR, MW binds) are checked by
 * their index only: at the datapath level those requests travel in the
 * send queue, not as commands.
 *
 * Doorbells are checked too: each names a QP or CQ the NIC was told of,
 * and an SQ's producer index moves ahead by at most the ring's depth.
 *
 * Locking: commands are serialised by sh->lock; the packet and doorbell
 * checks read the QP and key tables under RCU. A CREATE or a rereg puts
 * a new entry in (xa_store) and frees the one it replaces after a grace
 * period; MODIFY and DESTROY change a QP's or key's entry in place, field
 * by field (READ_ONCE/WRITE_ONCE; a QP's dest_qpn is written before
 * has_dest is released), so the SQ's last doorbell index lives on.
 */
#include <linux/dma-direct.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <rdma/ib_verbs.h>
#include <rdma/mroce-abi.h>

#include "ring.h"
#include "wire.h"
#include "shadow.h"
#include "tables.h"

/* destroyed QPs and keys remembered, to tell late packets from holes */
#define SH_MAX_TOMBS	65536

static const char *const sh_names[SH_NSTATS] = {
	[SH_CMDS] = "shadow_cmds",
	[SH_CMD_REFUSED] = "shadow_cmd_refused",
	[SH_TX_CHECKED] = "shadow_tx_checked",
	[SH_RX_CHECKED] = "shadow_rx_checked",
	[SH_TX_UNKNOWN_QP] = "shadow_tx_unknown_qp",
	[SH_TX_NO_DEST] = "shadow_tx_no_dest",
	[SH_TX_BAD_DEST] = "shadow_tx_bad_dest",
	[SH_RX_UNKNOWN_QP] = "shadow_rx_unknown_qp",
	[SH_RX_UNKNOWN_KEY] = "shadow_rx_unknown_key",
	[SH_RX_BAD_KEY] = "shadow_rx_bad_key",
	[SH_RX_GONE_QP] = "shadow_rx_gone_qp",
	[SH_RX_GONE_KEY] = "shadow_rx_gone_key",
	[SH_DB] = "shadow_db",
	[SH_DB_UNKNOWN] = "shadow_db_unknown",
	[SH_DB_BAD_INDEX] = "shadow_db_bad_index",
	[SH_DB_STALE] = "shadow_db_stale",
	[SH_DB_RING_DIFFERS] = "shadow_db_ring_differs",
	[SH_READ_CHECKED] = "shadow_read_checked",
	[SH_READ_DIFFERS] = "shadow_read_differs",
	[SH_WQE_CHECKED] = "shadow_wqe_checked",
	[SH_WQE_RACED] = "shadow_wqe_raced",
	[SH_WQE_BAD_OP] = "shadow_wqe_bad_op",
	[SH_WQE_BAD_SGE] = "shadow_wqe_bad_sge",
	[SH_WQE_BAD_LKEY] = "shadow_wqe_bad_lkey",
	[SH_WQE_UNKNOWN_AH] = "shadow_wqe_unknown_ah",
	[SH_WQE_REG_MR] = "shadow_wqe_reg_mr",
};

static void entry_free(void *e)
{
	struct shadow_head *h = e;

	kvfree(h->extra);
	kvfree(h->pages);
	kfree(h);
}

static void entry_free_rcu(struct rcu_head *rcu)
{
	entry_free(container_of(rcu, struct shadow_head, rcu));
}

static void entry_free_later(void *e)
{
	call_rcu(&((struct shadow_head *)e)->rcu, entry_free_rcu);
}

void swnic_shadow_init(struct swnic_shadow *sh, struct device *dma)
{
	sh->dma = dma;
	mutex_init(&sh->lock);
	xa_init(&sh->pds);
	xa_init(&sh->cqs);
	xa_init(&sh->srqs);
	xa_init(&sh->qps);
	xa_init(&sh->keys);
	xa_init_flags(&sh->ahs, XA_FLAGS_LOCK_IRQ);
}

/* detach: nothing sends or receives any more */
void swnic_shadow_free(struct swnic_shadow *sh)
{
	unsigned long i;
	void *e;

	rcu_barrier();	/* the entries replaced or erased before */
	xa_for_each(&sh->qps, i, e)
		entry_free(e);
	xa_for_each(&sh->keys, i, e)
		entry_free(e);
	xa_destroy(&sh->qps);
	xa_destroy(&sh->keys);
	xa_destroy(&sh->pds);
	xa_destroy(&sh->cqs);
	xa_destroy(&sh->srqs);
	swnic_ahs_free(sh);
}

/* --- commands (sh->lock) -------------------------------------------------- */

/*
 * The memory behind address @a of a page list. With a DMA device the
 * addresses are its bus addresses: dma-direct's, turned back as a NIC's
 * IOMMU would (the identity where no offset or encryption bit applies).
 */
static phys_addr_t nic_phys(const struct swnic_shadow *sh, u64 a)
{
	return sh->dma ? dma_to_phys(sh->dma, a) : a;
}

/* every page of @p a page of memory this NIC can reach */
static int pages_ok(const struct swnic_shadow *sh,
		    const struct mroce_ofl_pages *p)
{
	u32 i;

	if (p->n && !p->addr)
		return -EINVAL;
	if (p->n && p->shift != PAGE_SHIFT)
		return -EOPNOTSUPP;
	for (i = 0; i < p->n; i++)
		if (offset_in_page(p->addr[i]) ||
		    !pfn_valid(PHYS_PFN(nic_phys(sh, p->addr[i]))))
			return -EINVAL;
	return 0;
}

/* a ring of @depth entries: its header and entries fit its pages */
static int ring_ok(const struct swnic_shadow *sh,
		   const struct mroce_ofl_pages *p, u32 depth)
{
	int err = pages_ok(sh, p);

	if (err)
		return err;
	if (!p->n || !depth || p->stride_log2 > 16 ||
	    ((u64)p->n << p->shift) <
	    MRE_RING_HDR_SIZE + ((u64)depth << p->stride_log2))
		return -EINVAL;
	return 0;
}

static int id_create(struct xarray *xa, u32 id)
{
	if (!id)
		return -EINVAL;
	return xa_insert(xa, id, xa_mk_value(1), GFP_KERNEL) == -EBUSY ?
	       -EEXIST : 0;
}

static int id_destroy(struct xarray *xa, u32 id)
{
	return xa_erase(xa, id) ? 0 : -ENOENT;
}

/*
 * Put @e in place of @old, the entry at @id (live, a tombstone or NULL).
 * An old entry with pages (a rereg's MR) goes only once no check can still
 * read them, before this returns: mroce unpins them after the command.
 */
static int replace(struct xarray *xa, u32 id, void *e, void *old)
{
	void *was = xa_store(xa, id, e, GFP_KERNEL);

	if (xa_is_err(was)) {
		entry_free(e);
		return xa_err(was);
	}
	if (old && ((struct shadow_head *)old)->pages) {
		synchronize_rcu();
		entry_free(old);
	} else if (old) {
		entry_free_later(old);
	}
	return 0;
}

/*
 * Destroy the live entry @e at @id: it stays, marked gone, while there is
 * room for such tombstones (late packets for it are told from holes), else
 * it goes. Its extra and pages (READ slots, a ring's or a user MR's pages)
 * go once no reader can still have found it live, before this returns:
 * mroce unpins an MR's pages when MR_DESTROY returns. The caller must not touch @e afterwards.
 */
static void bury(struct swnic_shadow *sh, struct xarray *xa, u32 id, void *e)
{
	struct shadow_head *h = e;
	bool keep = sh->tombs < SH_MAX_TOMBS;

	if (keep) {
		WRITE_ONCE(h->gone, true);
		sh->tombs++;
	} else {
		xa_erase(xa, id);
	}
	if (!h->extra && !h->pages) {
		if (!keep)
			entry_free_later(e);
		return;
	}
	synchronize_rcu();
	if (keep) {
		kvfree(h->extra);
		kvfree(h->pages);
		h->extra = NULL;
		h->pages = NULL;
	} else {
		entry_free(e);
	}
}

/* @p's addresses as the memory behind them, or NULL (-ENOMEM) */
static u64 *pages_copy(const struct swnic_shadow *sh,
		       const struct mroce_ofl_pages *p)
{
	u64 *a = kvmalloc_array(p->n, sizeof(*a), GFP_KERNEL);
	u32 i;

	for (i = 0; a && i < p->n; i++)
		a[i] = nic_phys(sh, p->addr[i]);
	return a;
}

static int key_create(struct swnic_shadow *sh, const struct mroce_ofl_cmd *c,
		      bool mw)
{
	bool rereg = !mw && c->flags & MROCE_OFL_CF_REPLACE;
	u32 pd = mw ? c->mw.pd : c->mr.pd, key = mw ? c->mw.key : c->mr.key;
	struct shadow_key *old, *k;
	bool tomb = false;

	if (!has(&sh->pds, pd))
		return -ENOENT;
	if (!c->id || key >> 8 != c->id)
		return -EINVAL;
	old = live(&sh->keys, c->id, &tomb);
	/* a rereg replaces a user MR; anything else takes a free index */
	if (rereg && (!old || old->kind != MROCE_OFL_MR_USER))
		return -ENOENT;
	if (!rereg && old)
		return -EEXIST;
	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return -ENOMEM;
	k->pd = pd;
	k->key = key;
	if (mw) {
		if (c->mw.type != IB_MW_TYPE_1 && c->mw.type != IB_MW_TYPE_2)
			goto einval;
		k->kind = SH_KIND_MW;
	} else {
		k->kind = c->mr.kind;
		k->access = c->mr.access;
		k->iova = c->mr.iova;
		k->length = c->mr.length;
		switch (k->kind) {
		case MROCE_OFL_MR_USER:
		case MROCE_OFL_MR_DMABUF:
			if (!k->length || k->iova + k->length < k->iova)
				goto einval;
			/* the pages cover [offset, offset + length) exactly */
			if (k->kind == MROCE_OFL_MR_USER &&
			    (c->mr.offset >= PAGE_SIZE || pages_ok(sh, &c->mr.pages) ||
			     c->mr.pages.n != DIV_ROUND_UP(c->mr.offset + k->length,
							   PAGE_SIZE)))
				goto einval;
			if (k->kind == MROCE_OFL_MR_USER) {
				k->h.pages = pages_copy(sh, &c->mr.pages);
				if (!k->h.pages) {
					kfree(k);
					return -ENOMEM;
				}
				k->npages = c->mr.pages.n;
				k->offset = c->mr.offset;
			}
			break;
		case MROCE_OFL_MR_DMA:
		case MROCE_OFL_MR_FRWR:
			break;
		default:
			goto einval;
		}
	}
	if (tomb)	/* the index is reused: the tombstone goes */
		sh->tombs--;
	return replace(&sh->keys, c->id, k, xa_load(&sh->keys, c->id));
einval:
	kfree(k);
	return -EINVAL;
}

static int key_destroy(struct swnic_shadow *sh, u32 id, bool mw)
{
	struct shadow_key *k = live(&sh->keys, id, NULL);

	if (!k || (k->kind == SH_KIND_MW) != mw)
		return -ENOENT;
	bury(sh, &sh->keys, id, k);
	return 0;
}

static int qp_create(struct swnic_shadow *sh, const struct mroce_ofl_cmd *c)
{
	const struct mroce_ofl_qp *a = &c->qp;
	struct shadow_qp *q;
	bool tomb = false;

	if (!c->id)
		return -EINVAL;
	if (live(&sh->qps, c->id, &tomb))
		return -EEXIST;
	if (!has(&sh->pds, a->pd) || !has(&sh->cqs, a->send_cq) ||
	    !has(&sh->cqs, a->recv_cq) || (a->srq && !has(&sh->srqs, a->srq)))
		return -ENOENT;
	if (a->type != IB_QPT_RC && a->type != IB_QPT_UC &&
	    a->type != IB_QPT_UD && a->type != IB_QPT_GSI)
		return -EOPNOTSUPP;
	if (a->state != IB_QPS_RESET || a->sq_log2 > 24 || a->rq_log2 > 24 ||
	    (1U << a->create.sq.stride_log2) < sizeof(struct mroce_sqe) ||
	    (a->srq && (a->rq_log2 || a->create.rq.n)) ||
	    ring_ok(sh, &a->create.sq, 1U << a->sq_log2) ||
	    (!a->srq && ring_ok(sh, &a->create.rq, 1U << a->rq_log2)))
		return -EINVAL;
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	q->pd = a->pd;
	q->type = a->type;
	q->state = IB_QPS_RESET;
	q->sq_depth = 1U << a->sq_log2;
	q->sq_stride_log2 = a->create.sq.stride_log2;
	spin_lock_init(&q->rd_lock);
	q->h.pages = pages_copy(sh, &a->create.sq);
	if (q->h.pages && a->type == IB_QPT_RC)
		q->h.extra = kvcalloc(SH_READS, sizeof(struct shadow_read),
				      GFP_KERNEL);
	if (!q->h.pages || (a->type == IB_QPT_RC && !q->h.extra)) {
		entry_free(q);
		return -ENOMEM;
	}
	if (tomb)
		sh->tombs--;
	return replace(&sh->qps, c->id, q, xa_load(&sh->qps, c->id));
}

static bool connected(u8 type)
{
	return type == IB_QPT_RC || type == IB_QPT_UC;
}

static int qp_modify(struct swnic_shadow *sh, const struct mroce_ofl_cmd *c)
{
	const struct mroce_ofl_qp *a = &c->qp;
	struct shadow_qp *q = live(&sh->qps, c->id, NULL);

	if (!q)
		return -ENOENT;
	if (a->state > IB_QPS_ERR)
		return -EINVAL;
	if (connected(q->type) && a->state == IB_QPS_RTR &&
	    a->family != AF_INET && a->family != AF_INET6)
		return -EINVAL;
	WRITE_ONCE(q->state, a->state);
	WRITE_ONCE(q->qkey, a->modify.qkey);
	WRITE_ONCE(q->access, a->modify.access);
	if (a->state == IB_QPS_RESET) {		/* the rings start at 0 again */
		atomic_set(&q->sq_last, 0);
		WRITE_ONCE(q->has_dest, false);
	} else if (a->state == IB_QPS_INIT) {
		WRITE_ONCE(q->has_dest, false);
	} else if (connected(q->type) && a->state == IB_QPS_RTR) {
		WRITE_ONCE(q->dest_qpn, a->modify.dest_qpn);
		/* dest_qpn before the flag: tx_check()'s acquire pairs */
		smp_store_release(&q->has_dest, true);
	}
	return 0;
}

static int qp_destroy(struct swnic_shadow *sh, u32 id)
{
	struct shadow_qp *q = live(&sh->qps, id, NULL);

	if (!q)
		return -ENOENT;
	bury(sh, &sh->qps, id, q);
	return 0;
}

static int do_cmd(struct swnic_shadow *sh, const struct mroce_ofl_cmd *c)
{
	switch (c->op) {
	case MROCE_OFL_CMD_PD_CREATE:
		return id_create(&sh->pds, c->id);
	case MROCE_OFL_CMD_PD_DESTROY:
		return id_destroy(&sh->pds, c->id);
	case MROCE_OFL_CMD_CQ_CREATE:
		return ring_ok(sh, &c->cq.ring, c->cq.depth) ? -EINVAL :
		       id_create(&sh->cqs, c->id);
	case MROCE_OFL_CMD_CQ_RESIZE:
		return !has(&sh->cqs, c->id) ? -ENOENT :
		       ring_ok(sh, &c->cq.ring, c->cq.depth) ? -EINVAL : 0;
	case MROCE_OFL_CMD_CQ_DESTROY:
		return id_destroy(&sh->cqs, c->id);
	case MROCE_OFL_CMD_SRQ_CREATE:
		if (!has(&sh->pds, c->srq.pd))
			return -ENOENT;
		if (c->srq.limit > c->srq.depth ||
		    ring_ok(sh, &c->srq.ring, c->srq.depth))
			return -EINVAL;
		return id_create(&sh->srqs, c->id);
	case MROCE_OFL_CMD_SRQ_MODIFY:
		if (!has(&sh->srqs, c->id))
			return -ENOENT;
		return c->srq.limit > c->srq.depth ? -EINVAL : 0;
	case MROCE_OFL_CMD_SRQ_DESTROY:
		return id_destroy(&sh->srqs, c->id);
	case MROCE_OFL_CMD_MR_CREATE:
		return key_create(sh, c, false);
	case MROCE_OFL_CMD_MR_DESTROY:
		return key_destroy(sh, c->id, false);
	case MROCE_OFL_CMD_MW_CREATE:
		return c->flags ? -EINVAL : key_create(sh, c, true);
	case MROCE_OFL_CMD_MW_DESTROY:
		return key_destroy(sh, c->id, true);
	case MROCE_OFL_CMD_QP_CREATE:
		return qp_create(sh, c);
	case MROCE_OFL_CMD_QP_MODIFY:
		return qp_modify(sh, c);
	case MROCE_OFL_CMD_QP_DESTROY:
		return qp_destroy(sh, c->id);
	}
	return -EOPNOTSUPP;
}

int swnic_shadow_cmd(struct swnic_shadow *sh, const struct mroce_ofl_cmd *c)
{
	int err;

	if (c->version != MROCE_OFL_CMD_VERSION)
		err = -EPROTO;
	else if (c->op == MROCE_OFL_CMD_AH_CREATE ||
		 c->op == MROCE_OFL_CMD_AH_DESTROY)
		err = swnic_ah_cmd(sh, c);	/* maybe atomic: no sh->lock */
	else if (c->flags & ~MROCE_OFL_CF_REPLACE ||
		 (c->flags && c->op != MROCE_OFL_CMD_MR_CREATE))
		err = -EINVAL;
	else {
		mutex_lock(&sh->lock);
		err = do_cmd(sh, c);
		mutex_unlock(&sh->lock);
	}
	sh_count(sh, err ? SH_CMD_REFUSED : SH_CMDS);
	return err;
}

/* --- the packet checks (RCU) ---------------------------------------------- */

/*
 * The packet as the wire code reads it; false: not DATA, PARITY (a WRITE's
 * header: its stream and rkey are checked as that WRITE's) or UD
 */
static bool sh_parse(struct sk_buff *skb, struct mre_pkt *p, bool pull)
{
	u8 type;

	if (skb->len < MRE_COMMON_LEN ||
	    (pull && !pskb_may_pull(skb, MRE_COMMON_LEN)))
		return false;
	type = skb->data[0] & 0xf;
	if (type != MRE_T_DATA && type != MRE_T_PARITY && type != MRE_T_UD)
		return false;
	/* the fixed header only: the parser reads no payload */
	if (pull && !pskb_may_pull(skb, min_t(u32, skb->len, MRE_MAX_HDR_LEN)))
		return false;
	if (skb_headlen(skb) < min_t(u32, skb->len, MRE_MAX_HDR_LEN))
		return false;
	return mre_wire_parse(skb->data, skb->len, p) == MRE_PARSE_OK;
}

/* a READ the peer asked of RC QP @q, its key checked: until it is answered */
static void read_record(struct shadow_qp *q, const struct mre_pkt_data *d)
{
	struct shadow_read *slot;

	if (!q->h.extra)
		return;
	slot = (struct shadow_read *)q->h.extra + d->rdsn % SH_READS;
	spin_lock_bh(&q->rd_lock);
	*slot = (struct shadow_read){
		.rdsn = d->rdsn, .rkey = d->rkey, .mlen = d->mlen,
		.valid = true, .raddr = d->raddr,
	};
	spin_unlock_bh(&q->rd_lock);
}

/* @len bytes at @off into user MR @k, read through its pages, are @data */
static bool mr_holds(const struct shadow_key *k, u64 off, const u8 *data,
		     u32 len)
{
	const u64 *pages = k->h.pages;
	u64 at = off + k->offset;

	while (len) {
		u64 idx = at >> PAGE_SHIFT;
		u32 in = offset_in_page(at), n = min_t(u32, len, PAGE_SIZE - in);
		const u8 *va;
		bool same;

		if (idx >= k->npages)
			return false;
		va = kmap_local_page(pfn_to_page(PHYS_PFN(pages[idx])));
		same = !memcmp(va + in, data, n);
		kunmap_local(va);
		if (!same)
			return false;
		at += n;
		data += n;
		len -= n;
	}
	return true;
}

/*
 * A READ response mroce sends from RC QP @q: its payload is what the
 * user MR the request named holds there, read through the pages
 * MR_CREATE gave. RCU held (MR_DESTROY waits for it before mroce unpins).
 */
static void read_check(struct swnic_shadow *sh, struct shadow_qp *q,
		       const struct mre_pkt_data *d, const u8 *data)
{
	struct shadow_read r = {}, *slot;
	const struct shadow_key *k;
	u64 off;

	if (!q->h.extra || !d->plen)
		return;
	slot = (struct shadow_read *)q->h.extra + d->rdsn % SH_READS;
	spin_lock_bh(&q->rd_lock);
	if (slot->valid && slot->rdsn == d->rdsn)
		r = *slot;
	spin_unlock_bh(&q->rd_lock);
	if (!r.valid || d->offset > r.mlen || d->plen > r.mlen - d->offset)
		return;
	k = xa_load(&sh->keys, r.rkey >> 8);
	/* the MR as it is now (a rereg may have moved it): inside it */
	if (!k || READ_ONCE(k->h.gone) || k->kind != MROCE_OFL_MR_USER ||
	    k->key != r.rkey || r.raddr < k->iova ||
	    check_add_overflow(r.raddr - k->iova, (u64)d->offset, &off) ||
	    off > k->length || d->plen > k->length - off)
		return;
	sh_count(sh, SH_READ_CHECKED);
	if (!mr_holds(k, off, data, d->plen))
		sh_count(sh, SH_READ_DIFFERS);
}

/* what a packet's source QP must be to have sent it */
static enum shadow_stat tx_check(const struct shadow_qp *q,
				 const struct mre_pkt *p)
{
	if (!q || READ_ONCE(q->h.gone))
		return SH_TX_UNKNOWN_QP;
	if (p->type == MRE_T_UD)
		return connected(q->type) ? SH_TX_UNKNOWN_QP : SH_NSTATS;
	if (!connected(q->type))
		return SH_TX_UNKNOWN_QP;
	/* pairs with qp_modify()'s release: dest_qpn is the RTR's */
	if (!smp_load_acquire(&q->has_dest))
		return SH_TX_NO_DEST;
	return p->data.dst_stream == READ_ONCE(q->dest_qpn) ? SH_NSTATS :
							      SH_TX_BAD_DEST;
}

static void sq_poll(struct swnic_shadow *sh, struct shadow_qp *q);

void swnic_shadow_tx(struct swnic_shadow *sh, const struct sk_buff *skb)
{
	enum shadow_stat bad;
	struct shadow_qp *q;
	struct mre_pkt p;
	u32 qpn;

	if (!sh_parse((struct sk_buff *)skb, &p, false))
		return;
	/* a NAK may answer a stream that does not exist; a NOP has none */
	if (p.type == MRE_T_DATA &&
	    (p.data.op == MRE_OP_NAK || p.data.op == MRE_OP_NOP))
		return;
	qpn = p.type == MRE_T_UD ? p.ud.src_qpn : p.data.src_stream;
	sh_count(sh, SH_TX_CHECKED);
	rcu_read_lock();
	q = xa_load(&sh->qps, qpn);
	bad = tx_check(q, &p);
	if (bad == SH_NSTATS && p.type == MRE_T_DATA &&
	    p.data.op == MRE_OP_READ_RESP)
		read_check(sh, q, &p.data, p.payload);
	if (bad == SH_NSTATS)
		sq_poll(sh, q);
	rcu_read_unlock();
	if (bad != SH_NSTATS)
		sh_count(sh, bad);
}

/* the rights a remote request needs of its QP and of the MR (0: none) */
static u32 right_of(u8 op)
{
	switch (op) {
	case MRE_OP_WRITE:
		return IB_ACCESS_REMOTE_WRITE;
	case MRE_OP_READ_REQ:
		return IB_ACCESS_REMOTE_READ;
	case MRE_OP_ATOMIC_REQ:
		return IB_ACCESS_REMOTE_ATOMIC;
	}
	return 0;
}

/* may @q's peer reach [raddr, raddr + mlen) through @rkey for @op? */
static enum shadow_stat key_check(struct swnic_shadow *sh,
				  const struct shadow_qp *q,
				  const struct mre_pkt_data *d)
{
	const struct shadow_key *k = xa_load(&sh->keys, d->rkey >> 8);
	u32 right = right_of(d->op);

	if (!k)
		return SH_RX_UNKNOWN_KEY;
	if (READ_ONCE(k->h.gone))
		return SH_RX_GONE_KEY;
	if (k->pd != q->pd || (right && !(READ_ONCE(q->access) & right)))
		return SH_RX_BAD_KEY;
	/* windows and FRWR MRs are keyed by work requests: the index only */
	if (k->kind == SH_KIND_MW || k->kind == MROCE_OFL_MR_FRWR)
		return SH_NSTATS;
	if (k->key != d->rkey || (right && !(k->access & right)))
		return SH_RX_BAD_KEY;
	if (k->kind == MROCE_OFL_MR_DMA ||
	    (d->op == MRE_OP_FLUSH_REQ && d->fflags & MRE_FLUSH_MR))
		return SH_NSTATS;
	if (d->raddr < k->iova || d->raddr - k->iova > k->length ||
	    d->mlen > k->length - (d->raddr - k->iova))
		return SH_RX_BAD_KEY;
	return SH_NSTATS;
}

static enum shadow_stat rx_check(struct swnic_shadow *sh,
				 const struct mre_pkt *p)
{
	const struct mre_pkt_data *d = &p->data;
	struct shadow_qp *q;
	enum shadow_stat bad;

	q = xa_load(&sh->qps, p->type == MRE_T_UD ? p->ud.dst_qpn :
						    d->dst_stream);
	if (!q)
		return SH_RX_UNKNOWN_QP;
	if (READ_ONCE(q->h.gone))
		return SH_RX_GONE_QP;
	if (p->type == MRE_T_UD || !d->mlen)
		return SH_NSTATS;
	switch (d->op) {
	case MRE_OP_READ_REQ:
		bad = key_check(sh, q, d);
		if (bad == SH_NSTATS)
			read_record(q, d);
		return bad;
	case MRE_OP_WRITE:
	case MRE_OP_ATOMIC_REQ:
	case MRE_OP_ATOMIC_WRITE_REQ:
	case MRE_OP_FLUSH_REQ:
		return key_check(sh, q, d);
	}
	return SH_NSTATS;
}

void swnic_shadow_rx(struct swnic_shadow *sh, struct sk_buff *skb)
{
	enum shadow_stat bad;
	struct mre_pkt p;

	if (!sh_parse(skb, &p, true))
		return;
	if (p.type == MRE_T_DATA && p.data.op == MRE_OP_NOP)
		return;
	/* multicast UD (IB_MULTICAST_QPN): a group, not a QP */
	if (p.type == MRE_T_UD && p.ud.dst_qpn == IB_MULTICAST_QPN)
		return;
	sh_count(sh, SH_RX_CHECKED);
	rcu_read_lock();
	bad = rx_check(sh, &p);
	rcu_read_unlock();
	if (bad != SH_NSTATS)
		sh_count(sh, bad);
}

/* --- doorbells (any context) ---------------------------------------------- */

/*
 * An SQ doorbell at producer index @pi: ahead of the last by at most the
 * ring's depth, and what the ring's header says through the pages
 * QP_CREATE gave, or ahead of it by at most the depth (posted since).
 * The doorbell that moves the last index on owns the WQEs from there
 * (*@from) to @pi.
 */
static enum shadow_stat sq_index(struct shadow_qp *q, u32 pi, u32 *from)
{
	int last = atomic_read(&q->sq_last);

	if (swnic_sq_hdr(q, SH_PROD) - pi > q->sq_depth)
		return SH_DB_RING_DIFFERS;

	do {
		u32 ahead = pi - (u32)last;

		/* behind or at the last one: another CPU's, rung later */
		if (!ahead || (s32)ahead < 0)
			return SH_DB_STALE;
		if (ahead > q->sq_depth)
			return SH_DB_BAD_INDEX;
	} while (!atomic_try_cmpxchg(&q->sq_last, &last, (int)pi));
	*from = last;
	return SH_NSTATS;
}

/*
 * @q sends: fetch what its send ring holds beyond the last index, as a
 * NIC polls a scheduled QP's ring (a user's posts ring no doorbell while
 * mroce polls it). An index behind, equal or more than a ring ahead is
 * left to the doorbells to judge.
 */
static void sq_poll(struct swnic_shadow *sh, struct shadow_qp *q)
{
	u32 prod = swnic_sq_hdr(q, SH_PROD);
	int last = atomic_read(&q->sq_last);
	u32 ahead = prod - (u32)last;

	if (ahead && ahead <= q->sq_depth &&
	    atomic_try_cmpxchg(&q->sq_last, &last, (int)prod))
		swnic_wqe_fetch(sh, q, last, prod);
}

void swnic_shadow_doorbell(struct swnic_shadow *sh, u32 queue, u32 value)
{
	u32 id = MROCE_OFL_DBQ_ID(queue);
	enum shadow_stat bad = SH_DB_UNKNOWN;
	struct shadow_qp *q;
	u32 from;

	sh_count(sh, SH_DB);
	rcu_read_lock();
	switch (MROCE_OFL_DBQ_TYPE(queue)) {
	case MROCE_OFL_DB_SQ:
		q = xa_load(&sh->qps, id);
		if (q && !READ_ONCE(q->h.gone))
			bad = sq_index(q, value, &from);
		if (bad == SH_NSTATS)
			swnic_wqe_fetch(sh, q, from, value);
		break;
	case MROCE_OFL_DB_CQ_ARM:
		if (has(&sh->cqs, id) &&
		    (value == IB_CQ_SOLICITED || value == IB_CQ_NEXT_COMP))
			bad = SH_NSTATS;
		break;
	}
	rcu_read_unlock();
	if (bad != SH_NSTATS)
		sh_count(sh, bad);
}

void swnic_shadow_counters(const struct swnic_shadow *sh, const char **names,
			   u64 *val)
{
	int i;

	for (i = 0; i < SH_NSTATS; i++) {
		if (names)
			names[i] = sh_names[i];
		if (val)
			val[i] = atomic64_read(&sh->stats[i]);
	}
}
