/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Memory regions: registration, lookup by key, and the only code that
 * touches registered memory (mroce_mr_copy()).
 *
 * Keys: lkey == rkey == index << 8 | a random byte, the index from the
 * device's MR xarray. A lookup (mroce_mr_get()) checks the whole key, the
 * PD, the access rights and that the range lies inside the region, and
 * returns the MR with a reference; the datapath holds it only for the copy
 * at hand (it takes no lock and calls nothing while it holds one). Posted
 * WQEs keep keys, not MRs, so deregistering never waits for the network:
 * dereg removes the key (no new lookup can find it) and waits for the few
 * copies in progress, then unpins the pages. A WQE that names a
 * key that is gone fails with a protection error when it is used.
 *
 * Memory windows (type 1 and type 2B) take their index from the same key
 * space (reserved in mdev->mrs, the MW itself in mdev->mws), so an rkey
 * names an MR or an MW, never both. An MW is an rkey that maps to a window
 * [addr, addr + length) of one MR, with its own remote rights: binding
 * records the MR's key, the window and the rights; a remote access through
 * the MW's rkey (mroce_rkey_get()) checks them, then looks the MR up by
 * that key as a local access would, and checks again what the bind did:
 * the MR (whichever one the key names now) still allows binding, and local
 * writes if the access writes (remote write or atomic). Nothing holds the
 * MR: deregistering it leaves the windows bound to it unusable (as on
 * mlx5), and an access through them fails with a remote access error.
 * ibv_rereg_mr of an MR with windows bound to its key fails with EBUSY: it
 * marks the MR retired under its lock (a bind to it fails from then on),
 * then looks for a bound window in mdev->mws, and un-retires it if there is
 * one; a bind takes the MR's lock around setting the binding, so it either
 * comes first (and the search sees it) or fails. Bind and invalidate run
 * in the QP's SQ order (req.c); each MW's binding is guarded by its lock. A
 * type 2 MW is bound to the QP that bound it (2B) and is free again when
 * that QP is destroyed.
 *
 * A dma-buf MR (dmabuf.c) is reached through the exporter's kernel
 * mapping: the device uses the CPU, so an exporter without a vmap, or
 * memory the CPU cannot reach as plain memory (I/O memory), is refused
 * with EOPNOTSUPP. Before the key is published the buffer is attached
 * (with the ib_device's own struct device: nothing maps it for DMA),
 * pinned, then vmapped; dereg, after the last copy, undoes it in the
 * reverse order: vunmap, unpin, detach, put. A dynamic exporter (one with
 * pin/unpin) gets a dynamic attachment and dma_buf_pin() under the
 * reservation lock, as ib_umem_dmabuf_get_pinned() does; if the pin fails
 * the registration fails with EOPNOTSUPP, and its move_notify is never
 * due (only warned of). A static exporter has no pin to give and cannot
 * tell of a move: it gets a static attachment (which maps nothing for a
 * static exporter) and keeps the buffer in place while attached. The
 * vmap follows the kernel's locking rule (6.1: without the reservation
 * lock, which exporters take themselves; 6.2 on: dma_buf_vmap_unlocked()).
 * The dma-buf's fd must be open for reading, and for writing if the MR
 * has a right that writes into it (local write, remote write, remote
 * atomic): EACCES otherwise, as mmap(2) of the fd would answer.
 *
 * Fast registration (FRWR, kernel ULPs only): alloc_mr makes an MR with
 * room for max_num_sg pages and no valid key; map_mr_sg fills its page
 * list (kernel virtual addresses: the device uses the core's virtual DMA,
 * so a DMA address is the kernel address of the byte); IB_WR_REG_MR, in
 * the QP's SQ order, makes the mapping valid under the WR's key (its index
 * is the MR's, the low byte the ULP's: ib_update_fast_reg_key()) and
 * access. LOCAL_INV, or a SEND_WITH_INV from the peer, makes it invalid
 * again, and returns only once no copy into or out of the MR is in
 * progress: after the invalidation completes, nothing touches the pages,
 * so the ULP may unmap and reuse them. Lookups of an FRWR MR take its lock
 * (valid, key, the mapping: consistent with what REG_MR wrote), so a
 * lookup either comes before the invalidation (and the invalidation waits
 * for its copy) or fails. REG_MR on a valid MR, a key of another MR, an
 * MR of another PD or rights beyond IB_ACCESS_* fails with
 * IB_WC_MW_BIND_ERR; LOCAL_INV of a key that is not valid with
 * IB_WC_LOC_PROT_ERR. A peer may invalidate only an MR of the QP's PD,
 * valid under that key, registered with a remote right
 * (IB_WC_REM_INV_REQ_ERR otherwise, as for type 2 MWs).
 */
#ifndef MROCE_MR_H
#define MROCE_MR_H

#include <linux/completion.h>
#include <linux/iosys-map.h>
#include <linux/refcount.h>
#include <linux/string.h>
#include <asm/unaligned.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "oflcmd.h"

struct mroce_dev;

enum mroce_mr_type {
	MROCE_MR_USER,		/* pinned user pages, addresses are iovas */
	MROCE_MR_DMA,		/* kernel: addresses are kernel virtual */
	MROCE_MR_FRWR,		/* kernel: a page list, valid between REG_MR and invalidation */
	MROCE_MR_DMABUF,	/* user: a dma-buf, through its kernel mapping */
};

/* the rights a peer may be given; and what any MR may be registered with */
#define MROCE_REMOTE_RIGHTS	(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC)
#define MROCE_MR_RIGHTS		(IB_ACCESS_LOCAL_WRITE | MROCE_REMOTE_RIGHTS | \
				 IB_ACCESS_RELAXED_ORDERING)

/* FRWR: the most pages one MR maps (max_fast_reg_page_list_len) */
#define MROCE_MAX_FRPL		512

struct mroce_mr {
	struct ib_mr ibmr;
	enum mroce_mr_type type;
	u32 id;			/* xarray index: key >> 8 */
	u32 key;		/* lkey == rkey in force (FRWR: REG_MR's; ibmr's is the ULP's) */
	int access;		/* IB_ACCESS_* */
	u64 iova;		/* first byte, as the peer names it */
	u64 length;
	struct ib_umem *umem;
	struct page **pages;	/* USER: page i covers user VA (start & PAGE_MASK) + i pages */
	struct mroce_ofl_map ofl;	/* USER: those pages for the offload */
	unsigned long start;	/* USER: user VA of iova */
	struct dma_buf *dmabuf;	/* DMABUF: referenced, attached, pinned, vmapped */
	struct dma_buf_attachment *dmabuf_attach;
	struct iosys_map dmabuf_map;
	u8 *kva;		/* DMABUF: the kernel address of iova */
	/*
	 * FRWR: lock guards valid, key, access, iova, length, npages,
	 * page_shift; USER: retired, and windows being bound to the MR
	 */
	spinlock_t lock;
	bool retired;		/* USER: a rereg is replacing it: binds fail */
	bool valid;		/* REG_MR ran; no invalidation since */
	u64 *frpl;		/* page i at kernel address frpl[i], max_pages of them */
	u32 max_pages;
	u32 nmap;		/* pages map_mr_sg wrote */
	u32 npages;		/* pages of the valid mapping */
	u32 page_shift;		/* its page size */
	refcount_t refs;	/* 1 while registered + copies in progress */
	struct completion done;	/* refs reached zero */
	struct rcu_head rcu;
};

static inline struct mroce_mr *to_mroce_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct mroce_mr, ibmr);
}

struct mroce_mw {
	struct ib_mw ibmw;	/* allocated and freed by the core */
	u32 id;			/* index in mdev->mws (reserved in mdev->mrs) */
	spinlock_t lock;	/* everything below */
	u32 rkey;		/* current: id << 8 | key byte */
	bool bound;		/* remote access through rkey is possible */
	u32 mr_key;		/* bound: the MR's key */
	u64 addr;		/* bound: the window, in the MR's iovas */
	u64 length;
	int access;		/* bound: IB_ACCESS_* of the window */
	u32 qpn;		/* bound type 2: the QP that bound it */
};

static inline struct mroce_mw *to_mroce_mw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct mroce_mw, ibmw);
}

/* ib_device_ops */
struct ib_mr *mroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
struct ib_mr *mroce_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
				       u64 length, u64 iova, int fd,
				       int access, struct ib_udata *udata);
struct ib_mr *mroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata);
struct ib_mr *mroce_get_dma_mr(struct ib_pd *ibpd, int access);
int mroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
int mroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int mroce_dealloc_mw(struct ib_mw *ibmw);
struct ib_mr *mroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int mroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);

/*
 * The MR @key of @pd covering [@addr, @addr + @len) with all of @access,
 * referenced, or NULL. @remote: the key came off the wire (an rkey), which
 * only MRs with a remote right can match. Any context.
 */
struct mroce_mr *mroce_mr_get(struct mroce_dev *mdev, struct ib_pd *pd,
			      u32 key, u64 addr, u64 len, int access,
			      bool remote);
void mroce_mr_put(struct mroce_mr *mr);

/* --- inside mr.c and frwr.c ----------------------------------------------- */

/* @len bytes between @buf and the MR's memory at @p, the way @to_mr says */
static inline void mroce_copy_dir(void *p, void *buf, u32 len, bool to_mr)
{
	/* an aligned word in one access: what atomics and ATOMIC_WRITE need */
	if (len == 8 && IS_ALIGNED((unsigned long)p, 8)) {
		if (to_mr)
			WRITE_ONCE(*(u64 *)p, get_unaligned((u64 *)buf));
		else
			put_unaligned(READ_ONCE(*(u64 *)p), (u64 *)buf);
		return;
	}
	if (to_mr)
		memcpy(p, buf, len);
	else
		memcpy(buf, p, len);
}

#define mroce_dbg_mr(mr, fmt, ...)					\
	ibdev_dbg((mr)->ibmr.device, "mr %#x %s: " fmt, (mr)->ibmr.lkey,\
		  __func__, ##__VA_ARGS__)

/*
 * FRWR: a reference on @mr if it is valid under @key, checked under its
 * lock. RCU held.
 */
bool mroce_frwr_hold(struct mroce_mr *mr, u32 key);
/* FRWR: mroce_mr_copy() of a valid mapping */
void mroce_frwr_copy(struct mroce_mr *mr, u64 addr, void *buf, u32 len,
		     bool to_mr);
/* FRWR: mroce_key_invalidate() of @mr, which @key names; RCU held */
bool mroce_frwr_invalidate(struct ib_qp *qp, struct mroce_mr *mr, u32 key,
			   bool remote, bool check);

/*
 * DMABUF: attach to, pin and vmap the dma-buf @fd for @mr, whose
 * [@offset, @offset + @length) it will reach with @access (@ibdev's). Sets
 * mr->dmabuf, dmabuf_attach, dmabuf_map and kva; 0 or -errno (EINVAL: a
 * bad range, EACCES: the fd's mode, EOPNOTSUPP: no pin, no vmap or I/O
 * memory, or the error of dma_buf_get() or of the exporter's attach).
 */
int mroce_dmabuf_get(struct mroce_mr *mr, struct ib_device *ibdev, int fd,
		     u64 offset, u64 length, int access);
/* DMABUF: undo mroce_dmabuf_get(); no copy may be in progress */
void mroce_dmabuf_put(struct mroce_mr *mr);

/*
 * What an rkey that came off the wire for @qp may touch: the MR @rkey
 * names (as mroce_mr_get(..., true)), or the MR behind the MW @rkey names
 * when the window is bound, covers [@addr, @addr + @len) with all of
 * @access, is in @qp's PD and (type 2) was bound by @qp, and when the MR
 * (checked as it is now, not as it was at bind time) allows binding, and
 * local writes if @access has remote write or atomic. Referenced, or NULL.
 * Any context.
 */
struct mroce_mr *mroce_rkey_get(struct ib_qp *qp, u32 rkey, u64 addr, u64 len,
				int access);

/*
 * The local operations on MWs, run in SQ order by @qp (BH disabled).
 * Bind the MW named by @mw_key to [@addr, @addr + @len) of the MR @mr_key
 * (0 with @len 0: unbind, type 1 only) with @access; its rkey becomes
 * @new_rkey. Returns IB_WC_SUCCESS or IB_WC_MW_BIND_ERR.
 */
enum ib_wc_status mroce_mw_bind(struct ib_qp *qp, u32 mw_key, u32 new_rkey,
				u32 mr_key, u64 addr, u64 len, int access);
/*
 * IB_WR_REG_MR on @qp: the FRWR MR @key names becomes valid under @key
 * with @access and the pages map_mr_sg gave it. IB_WC_SUCCESS or
 * IB_WC_MW_BIND_ERR.
 */
enum ib_wc_status mroce_mr_fast_reg(struct ib_qp *qp, u32 key, int access);
/*
 * Invalidate @rkey of @qp's PD: an FRWR MR, or a type 2 MW. LOCAL_INV
 * (@remote false), or SEND_WITH_INV arriving on @qp (@remote: the MR must
 * have a remote right; the MW must be bound, by @qp). @check: only say
 * whether it would succeed. Other MRs cannot be invalidated. Returns true
 * on success; an MR's copies in progress have ended by then.
 */
bool mroce_key_invalidate(struct ib_qp *qp, u32 rkey, bool remote, bool check);
/* @qp is being destroyed: the type 2 MWs it bound are free again */
void mroce_mw_qp_gone(struct ib_qp *qp);

/* copy @len bytes between @buf and @addr of @mr (range already checked) */
void mroce_mr_copy(struct mroce_mr *mr, u64 addr, void *buf, u32 len,
		   bool to_mr);

#endif /* MROCE_MR_H */
