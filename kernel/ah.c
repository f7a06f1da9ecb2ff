// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address handles (see ah.h).
 */
#include <rdma/ib_addr.h>
#include <rdma/ib_verbs.h>
#include <rdma/mroce-abi.h>

#include "ah.h"
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
	int err;

	if (!(rdma_ah_get_ah_flags(a) & IB_AH_GRH) || !grh->sgid_attr)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	rdma_gid2ip((struct sockaddr *)&ah->saddr, &grh->sgid_attr->gid);
	rdma_gid2ip((struct sockaddr *)&ah->daddr, &grh->dgid);
	if (ah->saddr.ss_family != ah->daddr.ss_family)
		return -EINVAL;
	ah->attr = *a;
	ah->attr.grh.sgid_attr = NULL;
	err = xa_alloc_cyclic(&mdev->ahs, &ah->id, ah, XA_LIMIT(1, U32_MAX),
			      &mdev->ah_next, gfp);
	if (err < 0)
		return err;
	if (udata) {
		resp.ah_id = ah->id;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			xa_erase(&mdev->ahs, ah->id);
			return err;
		}
	}
	return 0;
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
	/* a user AH may be named by a WQE being sent: wait for the reader */
	if (flags & RDMA_DESTROY_AH_SLEEPABLE)
		synchronize_rcu();
	return 0;
}

bool mroce_ah_addrs(struct mroce_dev *mdev, u32 id, struct ib_pd *pd,
		    struct sockaddr_storage *saddr,
		    struct sockaddr_storage *daddr)
{
	struct mroce_ah *ah;
	bool ok = false;

	rcu_read_lock();
	ah = xa_load(&mdev->ahs, id);
	if (ah && ah->ibah.pd == pd) {
		*saddr = ah->saddr;
		*daddr = ah->daddr;
		ok = true;
	}
	rcu_read_unlock();
	return ok;
}
