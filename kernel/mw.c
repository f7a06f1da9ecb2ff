// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory windows (mr.h): allocation, binds, invalidation, and the key
 * lookup of remote access, which an rkey may name through an MR or a
 * window.
 */
#include <linux/rcupdate.h>

#include "mr.h"
#include "oflcmd.h"
#include "mroce.h"

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
	err = mroce_ofl_mw_cmd(mw, MROCE_OFL_CMD_MW_CREATE);
	if (err) {
		xa_erase(&mdev->mws, id);
		synchronize_rcu();
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
	mroce_ofl_mw_cmd(mw, MROCE_OFL_CMD_MW_DESTROY);
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
