/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Peers: one MetaRoCE connection per remote node, shared by every RC QP of
 * the device that talks to that node. A peer wraps the engine's struct
 * mre_conn with what the kernel adds: the lock every engine call runs
 * under, the hrtimer that serves the engine's deadline, the addresses and
 * the route cache, and the batch of packets and notifications the current
 * locked section produced.
 *
 * Every engine call goes through mroce_peer_lock() / mroce_peer_unlock():
 *
 *	mroce_batch_init(&b);
 *	mroce_peer_lock(peer, &b);
 *	... mre_conn_rx(), mre_stream_kick(), ...
 *	mroce_peer_unlock(peer);		runs the engine, arms the timer
 *	mroce_batch_flush(&b);			sends, notifies
 *
 * Contexts: packet receive (softirq), the timer (softirq), doorbells and
 * verbs (process context, BH disabled while locked). Nothing sleeps under
 * peer->lock and no socket call is made under it.
 *
 * Lifetime: a peer is created by the first QP that goes to RTR towards its
 * address, or by a CONNECT from an unknown address (in a work item: it
 * allocates), and lives until its device goes away. Lookups on the receive
 * path run under RCU (the UDP receive path holds it); QPs hold a
 * reference.
 */
#ifndef MROCE_PEER_H
#define MROCE_PEER_H

#include <linux/hrtimer.h>
#include <linux/refcount.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <net/dst_cache.h>

#include "engine.h"
#include "plane.h"

struct mroce_batch;
struct mroce_dev;
struct mroce_qp;
struct sk_buff;

/* how a path on our plane k (1..) reaches the peer (peer locked) */
struct mroce_peer_plane {
	struct sockaddr_storage daddr;	/* its address on plane k % its planes */
	struct sockaddr_storage saddr;	/* ours on plane k */
	struct dst_cache dst_cache;
	bool cache;			/* dst_cache set up */
	bool ready;			/* both addresses known */
};

struct mroce_peer {
	struct rcu_head rcu;		/* first: kfree_rcu() wants it near */
	struct mre_conn conn;
	void *conn_mem;
	struct mroce_dev *mdev;
	spinlock_t lock;		/* the engine's serialisation */
	struct mroce_batch *batch;	/* the locker's, while locked */
	struct hrtimer timer;
	u64 now;			/* lock: the clock, read once per hold */
	u64 armed_at;			/* lock: timer expiry asked for; 0: none */
	struct sockaddr_storage daddr;	/* the peer */
	struct sockaddr_storage saddr;	/* us, towards it */
	struct dst_cache dst_cache;
	/* planes (plane 0 is daddr/saddr above); peer locked */
	struct sockaddr_storage peer_planes[MROCE_MAX_PLANES]; /* its blob */
	u32 peer_nplanes;		/* 0: not told */
	u32 told_nplanes;		/* planes our last CONNECT/ACCEPT listed */
	bool plane_down[MROCE_MAX_PLANES];	/* as the engine was told */
	struct mroce_peer_plane pl[MROCE_MAX_PLANES];	/* [0] unused */
	struct hlist_node addr_node;	/* mdev->peer_hash; RCU */
	refcount_t refs;		/* the device's + one per QP */
	struct mroce_peer *exit_next;	/* mroce_peers_exit()'s list */
};

static inline struct mroce_peer *mroce_peer_of(struct mre_conn *c)
{
	return container_of(c, struct mroce_peer, conn);
}

int mroce_peers_init(struct mroce_dev *mdev);
/* drop every peer (device teardown; no QP left) */
void mroce_peers_exit(struct mroce_dev *mdev);

/* the peer at @daddr, seen from @saddr: found or created; referenced */
struct mroce_peer *mroce_peer_get(struct mroce_dev *mdev,
				  const struct sockaddr *daddr,
				  const struct sockaddr *saddr);
void mroce_peer_put(struct mroce_peer *peer);

/* the device's planes changed (added, removed, up or down): tell every peer */
void mroce_peers_planes(struct mroce_dev *mdev);

void mroce_peer_lock(struct mroce_peer *peer, struct mroce_batch *b);
void mroce_peer_unlock(struct mroce_peer *peer);

/* attach / detach an RC QP's stream (peer locked) */
void mroce_peer_attach(struct mroce_peer *peer, struct mroce_qp *qp);
void mroce_peer_detach(struct mroce_peer *peer, struct mroce_qp *qp);

/* the software datapath's receive entry (offload.h: rx) */
int mroce_peer_rx(struct mroce_dev *mdev, struct sk_buff *skb);

/* engine configuration from the module parameters */
void mroce_engine_config(struct mre_config *cfg);

#endif /* MROCE_PEER_H */
