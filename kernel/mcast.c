// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * UD multicast (see mcast.h).
 */
#include <linux/hash.h>
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>

#include "mcast.h"
#include "net.h"
#include "qp.h"
#include "mroce.h"

/* a multicast group of the device */
struct mroce_mcg {
	struct hlist_node node;		/* mdev->mcg_hash; RCU */
	struct sockaddr_storage addr;	/* the group's IP address */
	struct list_head qps;		/* struct mroce_mca.node; RCU */
	u32 nqps;
	struct rcu_head rcu;
};

/* a QP attached to a group */
struct mroce_mca {
	struct list_head node;		/* mcg->qps; RCU */
	struct list_head qp_node;	/* qp->mcast; mcast_lock */
	struct mroce_qp *qp;
	struct mroce_mcg *mcg;
	struct rcu_head rcu;
};

void mroce_mcast_init(struct mroce_dev *mdev)
{
	int i;

	mutex_init(&mdev->mcast_lock);
	for (i = 0; i < ARRAY_SIZE(mdev->mcg_hash); i++)
		INIT_HLIST_HEAD(&mdev->mcg_hash[i]);
}

void mroce_mcast_exit(struct mroce_dev *mdev)
{
	WARN_ON_ONCE(mdev->nmcg || mdev->nmca);
	mutex_destroy(&mdev->mcast_lock);
}

static u32 mcg_hash(const struct sockaddr_storage *a)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)a;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)a;

	if (a->ss_family == AF_INET)
		return hash_32((__force u32)s4->sin_addr.s_addr,
			       MROCE_MCG_HASH_BITS);
	return hash_32(ipv6_addr_hash(&s6->sin6_addr), MROCE_MCG_HASH_BITS);
}

/* RCU or mcast_lock */
static struct mroce_mcg *mcg_find(struct mroce_dev *mdev,
				  const struct sockaddr_storage *addr)
{
	struct mroce_mcg *mcg;

	hlist_for_each_entry_rcu(mcg, &mdev->mcg_hash[mcg_hash(addr)], node,
				 lockdep_is_held(&mdev->mcast_lock))
		if (mroce_addr_eq(&mcg->addr, addr))
			return mcg;
	return NULL;
}

/* the group address of @gid; -EINVAL if it is not an IP multicast one */
static int gid_to_group(const union ib_gid *gid, struct sockaddr_storage *a)
{
	memset(a, 0, sizeof(*a));
	rdma_gid2ip((struct sockaddr *)a, gid);
	if (a->ss_family == AF_INET &&
	    ipv4_is_multicast(((struct sockaddr_in *)a)->sin_addr.s_addr))
		return 0;
	if (a->ss_family == AF_INET6 &&
	    ipv6_addr_is_multicast(&((struct sockaddr_in6 *)a)->sin6_addr))
		return 0;
	return -EINVAL;
}

/*
 * Join (or leave) @a on the device's netdev: IGMP / MLD and the link-layer
 * filter. Counted by the IP layer, once per attachment. Takes RTNL.
 */
static int ip_join(struct mroce_dev *mdev, const struct sockaddr_storage *a,
		   bool join)
{
	struct net_device *ndev = mdev->ndev;
	int err = 0;

	rtnl_lock();
	if (a->ss_family == AF_INET) {
		struct in_device *in_dev = __in_dev_get_rtnl(ndev);
		__be32 addr = ((struct sockaddr_in *)a)->sin_addr.s_addr;

		if (!in_dev)
			err = -ENODEV;
		else if (join)
			ip_mc_inc_group(in_dev, addr);
		else
			ip_mc_dec_group(in_dev, addr);
	} else if (IS_ENABLED(CONFIG_IPV6)) {
		const struct in6_addr *addr;

		addr = &((const struct sockaddr_in6 *)a)->sin6_addr;
		if (join)
			err = ipv6_dev_mc_inc(ndev, addr);
		else
			err = ipv6_dev_mc_dec(ndev, addr);
	} else {
		err = -EAFNOSUPPORT;
	}
	rtnl_unlock();
	return err;
}

int mroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct mroce_dev *mdev = to_mroce_dev(ibqp->device);
	struct mroce_qp *qp = to_mroce_qp(ibqp);
	struct mroce_mca *mca, *m;
	struct mroce_mcg *mcg, *new_mcg = NULL;
	struct sockaddr_storage addr;
	int err;

	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	err = gid_to_group(gid, &addr);
	if (err)
		return err;
	mca = kzalloc(sizeof(*mca), GFP_KERNEL);
	new_mcg = kzalloc(sizeof(*new_mcg), GFP_KERNEL);
	if (!mca || !new_mcg) {
		err = -ENOMEM;
		goto out_free;
	}
	/* joined before the group exists, left after it is gone */
	err = ip_join(mdev, &addr, true);
	if (err)
		goto out_free;

	mutex_lock(&mdev->mcast_lock);
	mcg = mcg_find(mdev, &addr);
	if (mcg) {
		list_for_each_entry(m, &qp->mcast, qp_node) {
			if (m->mcg == mcg) {	/* attached already: fine */
				err = 1;
				goto out_unlock;
			}
		}
		if (mcg->nqps >= MROCE_MAX_MCG_QP) {
			err = -ENOMEM;
			goto out_unlock;
		}
	} else if (mdev->nmcg >= MROCE_MAX_MCG) {
		err = -ENOMEM;
		goto out_unlock;
	}
	if (mdev->nmca >= MROCE_MAX_MCA) {
		err = -ENOMEM;
		goto out_unlock;
	}
	if (!mcg) {
		mcg = new_mcg;
		new_mcg = NULL;
		mcg->addr = addr;
		INIT_LIST_HEAD(&mcg->qps);
		hlist_add_head_rcu(&mcg->node,
				   &mdev->mcg_hash[mcg_hash(&addr)]);
		mdev->nmcg++;
	}
	mca->qp = qp;
	mca->mcg = mcg;
	list_add_tail(&mca->qp_node, &qp->mcast);
	list_add_tail_rcu(&mca->node, &mcg->qps);
	mcg->nqps++;
	mdev->nmca++;
	mca = NULL;
out_unlock:
	mutex_unlock(&mdev->mcast_lock);
	if (err)
		ip_join(mdev, &addr, false);
	ibdev_dbg(&mdev->ibdev, "qp %u %s: %pISc: %d\n", ibqp->qp_num, __func__,
		  &addr, err);
	if (err > 0)
		err = 0;
out_free:
	kfree(new_mcg);
	kfree(mca);
	return err;
}

/* mcast_lock held; the caller leaves the IP group afterwards */
static void mca_del(struct mroce_dev *mdev, struct mroce_mca *mca)
{
	struct mroce_mcg *mcg = mca->mcg;

	lockdep_assert_held(&mdev->mcast_lock);
	list_del_rcu(&mca->node);
	list_del(&mca->qp_node);
	kfree_rcu(mca, rcu);
	mdev->nmca--;
	if (--mcg->nqps)
		return;
	hlist_del_rcu(&mcg->node);
	kfree_rcu(mcg, rcu);
	mdev->nmcg--;
}

int mroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct mroce_dev *mdev = to_mroce_dev(ibqp->device);
	struct mroce_qp *qp = to_mroce_qp(ibqp);
	struct sockaddr_storage addr;
	struct mroce_mca *mca;
	int err;

	err = gid_to_group(gid, &addr);
	if (err)
		return err;
	err = -EINVAL;			/* not attached */
	mutex_lock(&mdev->mcast_lock);
	list_for_each_entry(mca, &qp->mcast, qp_node) {
		if (mroce_addr_eq(&mca->mcg->addr, &addr)) {
			mca_del(mdev, mca);
			err = 0;
			break;
		}
	}
	mutex_unlock(&mdev->mcast_lock);
	if (!err)
		ip_join(mdev, &addr, false);
	ibdev_dbg(&mdev->ibdev, "qp %u %s: %pISc: %d\n", ibqp->qp_num, __func__,
		  &addr, err);
	return err;
}

void mroce_mcast_qp_destroy(struct mroce_qp *qp)
{
	struct mroce_dev *mdev = to_mroce_dev(qp->ibqp.device);
	struct sockaddr_storage addr;
	struct mroce_mca *mca;

	for (;;) {
		mutex_lock(&mdev->mcast_lock);
		mca = list_first_entry_or_null(&qp->mcast, struct mroce_mca,
					       qp_node);
		if (mca) {
			addr = mca->mcg->addr;
			mca_del(mdev, mca);
		}
		mutex_unlock(&mdev->mcast_lock);
		if (!mca)
			return;
		ip_join(mdev, &addr, false);
	}
}

u32 mroce_mcast_rx(struct mroce_dev *mdev, const struct sockaddr_storage *dst,
		   void (*deliver)(struct mroce_qp *qp, void *ctx), void *ctx)
{
	struct mroce_mcg *mcg = mcg_find(mdev, dst);
	struct mroce_mca *mca;
	u32 n = 0;

	if (!mcg)
		return 0;
	list_for_each_entry_rcu(mca, &mcg->qps, node) {
		deliver(mca->qp, ctx);
		n++;
	}
	return n;
}
