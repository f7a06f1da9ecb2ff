// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address handles (see ah.h).
 */
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_verbs.h>
#include <rdma/mroce-abi.h>

#include "ah.h"
#include "oflcmd.h"
#include "mroce.h"

int mroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mroce_dev(ibah->device);
	struct mroce_ah *ah = to_mroce_ah(ibah);
	const struct rdma_ah_attr *a = init->ah_attr;
	const struct ib_global_route *grh = rdma_ah_read_grh(a);
	gfp_t gfp = init->flags & RDMA_CREATE_AH_SLEEPABLE ? GFP_KERNEL :
							      GFP_ATOMIC;
	struct mroce_create_ah_resp resp = {};
	struct mroce_ah_addr *ad;
	int err;

	if (!(rdma_ah_get_ah_flags(a) & IB_AH_GRH) || !grh->sgid_attr)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	ad = kzalloc(sizeof(*ad), gfp);
	if (!ad)
		return -ENOMEM;
	ad->pd = ibah->pd;
	rdma_gid2ip((struct sockaddr *)&ad->saddr, &grh->sgid_attr->gid);
	rdma_gid2ip((struct sockaddr *)&ad->daddr, &grh->dgid);
	err = -EINVAL;
	if (ad->saddr.ss_family != ad->daddr.ss_family)
		goto err_free;
	ah->attr = *a;
	ah->attr.grh.sgid_attr = NULL;
	ah->addr = ad;
	err = xa_alloc_cyclic(&mdev->ahs, &ah->id, ad, XA_LIMIT(1, U32_MAX),
			      &mdev->ah_next, gfp);
	if (err < 0)
		goto err_free;
	err = mroce_ofl_ah_cmd(ah, MROCE_OFL_CMD_AH_CREATE, gfp == GFP_KERNEL);
	if (err)
		goto err_erase;
	if (udata) {
		resp.ah_id = ah->id;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			mroce_ofl_ah_cmd(ah, MROCE_OFL_CMD_AH_DESTROY, true);
			goto err_erase;
		}
	}
	return 0;

err_erase:
	xa_erase(&mdev->ahs, ah->id);
	kfree_rcu(ad, rcu);
	return err;

err_free:
	kfree(ad);
	return err;
}

int mroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	*attr = to_mroce_ah(ibah)->attr;
	return 0;
}

int mroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct mroce_dev *mdev = to_mroce_dev(ibah->device);
	struct mroce_ah *ah = to_mroce_ah(ibah);

	xa_erase(&mdev->ahs, ah->id);
	mroce_ofl_ah_cmd(ah, MROCE_OFL_CMD_AH_DESTROY,
			 flags & RDMA_DESTROY_AH_SLEEPABLE);
	/*
	 * A WQE being sent may have found it just before: its reader
	 * (mroce_ah_addrs()) is done after a grace period, in any context.
	 */
	kfree_rcu(ah->addr, rcu);
	return 0;
}

bool mroce_ah_addrs(struct mroce_dev *mdev, u32 id, struct ib_pd *pd,
		    struct sockaddr_storage *saddr,
		    struct sockaddr_storage *daddr)
{
	struct mroce_ah_addr *ad;
	bool ok = false;

	rcu_read_lock();
	ad = xa_load(&mdev->ahs, id);
	if (ad && ad->pd == pd) {
		*saddr = ad->saddr;
		*daddr = ad->daddr;
		ok = true;
	}
	rcu_read_unlock();
	return ok;
}
