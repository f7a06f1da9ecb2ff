/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mroce objects shared by the glue files: the device, the verbs objects
 * that exist so far, the to_mroce_*() helpers and the per-object debug
 * macros.
 *
 * Logging: every message about an object goes through one of the
 * mroce_dbg_*() macros below, which prefix the object id and __func__ (the
 * module name comes from pr_fmt / the ib_device name). Events a peer can
 * cause (packets) are logged with the *_ratelimited forms and at debug
 * level only, and each one bumps a counter (see counters.h).
 */
#ifndef MROCE_H
#define MROCE_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/ratelimit.h>
#include <linux/rhashtable-types.h>
#include <linux/sched/clock.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "counters.h"
#include "engine.h"
#include "loop.h"
#include "mcast.h"
#include "offload.h"
#include "plane.h"

struct mroce_net;

/*
 * Upper bound of the MetaRoCE header in front of a payload (the wire format
 * lives in kernel/engine/wire.h and Documentation/protocol.md). The port MTU
 * is what is left of the netdev MTU after IP, UDP and this.
 */
#define MROCE_MAX_HDR_LEN	MRE_MAX_HDR_LEN

/*
 * IEEE vendor id (24 bits) reported in query_device. mroce has no OUI of its
 * own. 0x026d72 has the X (local) bit set and the Y/Z bits clear: the
 * "administratively assigned" quadrant of the IEEE SLAP space, which no
 * registered OUI or CID can occupy, so it cannot be mistaken for a real
 * vendor's id. The low two bytes spell "mr". See Documentation/mroce.rst.
 */
#define MROCE_VENDOR_ID		0x026d72
#define MROCE_VENDOR_PART_ID	0x0001
#define MROCE_HW_VER		1
#define MROCE_NODE_DESC		"mroce MetaRoCE"
#define MROCE_GID_TBL_LEN	128
#define MROCE_MAX_PD		0x10000
#define MROCE_MAX_QPN		0xffffff
#define MROCE_MAX_QP		0x10000
#define MROCE_MAX_CQ		0x10000
#define MROCE_MAX_CQE		(1 << 16)
#define MROCE_MAX_MR		0x10000
#define MROCE_MAX_MR_SIZE	(1ULL << 40)
#define MROCE_MAX_SRQ		0x10000
#define MROCE_MAX_AH		0x10000
#define MROCE_MAX_MSG		(1U << 31)

/* one per `rdma link add ... type mroce` */
struct mroce_dev {
	struct ib_device ibdev;		/* first: ib_alloc_device() */
	struct net_device *ndev;	/* held until mroce_dev_dealloc() */
	netdevice_tracker ndev_tracker;
	struct mroce_plane planes[MROCE_MAX_PLANES];	/* plane.c; [0]: ndev */
	u32 nplanes;			/* RTNL writers */
	struct net *net;		/* dev_net(ndev) at creation; outlives us */
	struct mroce_net *mnet;		/* UDP sockets of dev_net(ndev) */
	struct sock *tx_sk[2];		/* [v6] mnet's sockets (NULL: no IPv6) */
	u16 udp_dport;			/* the MetaRoCE port (udp_port) */
	struct mroce_ofl_port ofl;	/* datapath: software or an offload */
	struct list_head node;		/* mroce_devs: RCU, writers hold mroce_devs_lock */
	struct list_head net_node;	/* mnet->devs: RCU, writers hold mnet->lock */
	bool net_listed;		/* on mnet->devs; mnet->lock */
	enum ib_port_state port_state;	/* last state dispatched; written under RTNL */
	atomic_t next_obj_id;		/* ids for debug output of PDs, contexts */
	atomic64_t counters[MROCE_NUM_COUNTERS];

	/* the datapath (rx.c, peer.c, qp.c, mr.c, ah.c) */
	bool peers_ready;		/* mroce_peers_init() done */
	struct mre_ep ep;		/* engine endpoint: config, counters */
	struct xarray qps;		/* by QP number; RCU readers */
	u32 qp_next;
	struct xarray mrs;		/* by key >> 8; RCU readers */
	u32 mr_next;			/* (MWs reserve their index there too) */
	struct xarray mws;		/* memory windows by rkey >> 8; RCU readers */
	struct xarray ahs;		/* by AH id; RCU readers */
	u32 ah_next;
	struct rhashtable peers_by_addr; /* by conn.addr; RCU readers */
	struct xarray peers_by_cid;	/* by (u32)conn.cid; RCU readers */
	struct list_head peer_list;	/* all; RCU readers */
	spinlock_t peers_lock;		/* writers of the three */
	atomic_t npeers;		/* on peer_list (max_peers) */
	struct delayed_work reclaim_work; /* idle peers go (peertab.c) */
	spinlock_t atomic_lock;		/* every remote atomic of the device */
	struct mroce_loop loop;		/* packets to ourselves (loop.c) */
	struct sk_buff_head connect_q;	/* CONNECTs from unknown peers (rx.c) */
	struct work_struct connect_work;

	/* UD multicast (mcast.c) */
	struct mutex mcast_lock;	/* writers of these; qp->mcast */
	struct hlist_head mcg_hash[1 << MROCE_MCG_HASH_BITS]; /* groups; RCU */
	u32 nmcg;			/* groups */
	u32 nmca;			/* QP attachments */
	struct dentry *debugfs;		/* debugfs.c */
};

struct mroce_ucontext {
	struct ib_ucontext ibuc;
	u32 id;
};

struct mroce_pd {
	struct ib_pd ibpd;
	u32 id;
};

static inline struct mroce_dev *to_mroce_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct mroce_dev, ibdev);
}

static inline struct mroce_ucontext *to_mroce_uctx(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct mroce_ucontext, ibuc);
}

static inline struct mroce_pd *to_mroce_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct mroce_pd, ibpd);
}

static inline void mroce_counter_inc(struct mroce_dev *mdev,
				     enum mroce_counter c)
{
	atomic64_inc(&mdev->counters[c]);
}

/*
 * The engine's clock: local_clock(), the scheduler's clock, as TCP's
 * microsecond RTT stamps once were (tcp_clock_us(), before departure-time
 * pacing tied TCP to the qdisc's clock). It reads the CPU's cycle counter,
 * where ktime_get() reads the clocksource: on a guest without a usable TSC
 * that is an emulated HPET at microseconds a read, and the receive path
 * reads the clock for every datagram. It is monotonic on one CPU; where
 * the TSC is not marked stable, CPUs may disagree by a little (it is kept
 * within a tick of the clocksource), so the engine keeps each connection's
 * time from going back (mre_conn_clock()) and an RTT sample taken across
 * CPUs may be off by that much. The hrtimer that serves the engine's
 * deadline runs on CLOCK_MONOTONIC and is set relative to this clock
 * (peertab.c, set_timer()).
 */
static inline u64 mroce_clock_ns(void)
{
	return local_clock();
}

/* the device's planes: how many (gaps included), and plane @k's netdev */
static inline u32 mroce_planes(struct mroce_dev *mdev)
{
	return READ_ONCE(mdev->nplanes) ?: 1;
}

/* RCU or RTNL; NULL: gone */
static inline struct net_device *mroce_plane_ndev(struct mroce_dev *mdev,
						  u32 k)
{
	if (!k)
		return mdev->ndev;
	if (k >= MROCE_MAX_PLANES)
		return NULL;
	return READ_ONCE(mdev->planes[k].ndev);
}

/* the plane of @mdev that @ndev is: 0 (the link's netdev), 1.., or -1 (RCU) */
static inline int mroce_plane_of(struct mroce_dev *mdev,
				 const struct net_device *ndev)
{
	u32 n = mroce_planes(mdev), k;

	if (ndev == mdev->ndev)
		return 0;
	for (k = 1; k < n && k < MROCE_MAX_PLANES; k++)
		if (READ_ONCE(mdev->planes[k].ndev) == ndev)
			return k;
	return -1;
}

#define mroce_dbg_dev(mdev, fmt, ...)					\
	ibdev_dbg(&(mdev)->ibdev, "%s: " fmt, __func__, ##__VA_ARGS__)
#define mroce_dbg_dev_ratelimited(mdev, fmt, ...)			\
	ibdev_dbg_ratelimited(&(mdev)->ibdev, "%s: " fmt, __func__,	\
			      ##__VA_ARGS__)
#define mroce_info_dev(mdev, fmt, ...)					\
	ibdev_info(&(mdev)->ibdev, fmt, ##__VA_ARGS__)
#define mroce_dbg_uctx(uctx, fmt, ...)					\
	ibdev_dbg((uctx)->ibuc.device, "uctx %u %s: " fmt, (uctx)->id,	\
		  __func__, ##__VA_ARGS__)
#define mroce_dbg_pd(pd, fmt, ...)					\
	ibdev_dbg((pd)->ibpd.device, "pd %u %s: " fmt, (pd)->id,	\
		  __func__, ##__VA_ARGS__)

#endif /* MROCE_H */
