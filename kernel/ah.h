/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Address handles (UD). A user AH is named in its WQEs by the id the
 * create response returns; the kernel finds it by id when the WQE is sent
 * and copies the addresses out under RCU, so an AH destroyed meanwhile is
 * simply not found (its WQE fails); what the reader may still hold is
 * freed after a grace period (kfree_rcu()). A kernel ULP's AH is valid for as long
 * as its WQE is posted, by the verbs' rules.
 */
#ifndef MROCE_AH_H
#define MROCE_AH_H

#include <linux/socket.h>
#include <rdma/ib_verbs.h>

struct mroce_dev;

/*
 * What a WQE's sender reads of an AH, under RCU: its own allocation,
 * freed after a grace period (the core frees struct mroce_ah itself as
 * soon as destroy_ah returns, which may not sleep).
 */
struct mroce_ah_addr {
	struct rcu_head rcu;
	struct ib_pd *pd;
	struct sockaddr_storage saddr;	/* ours (source GID) */
	struct sockaddr_storage daddr;
};

struct mroce_ah {
	struct ib_ah ibah;
	u32 id;
	struct mroce_ah_addr *addr;	/* in mdev->ahs under id */
	struct rdma_ah_attr attr;	/* for query_ah (sgid by index only) */
};

static inline struct mroce_ah *to_mroce_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct mroce_ah, ibah);
}

int mroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata);
int mroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int mroce_destroy_ah(struct ib_ah *ibah, u32 flags);

/* the addresses of AH @id of @pd into @saddr/@daddr; false if none. RCU. */
bool mroce_ah_addrs(struct mroce_dev *mdev, u32 id, struct ib_pd *pd,
		    struct sockaddr_storage *saddr,
		    struct sockaddr_storage *daddr);

#endif /* MROCE_AH_H */
