/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Peers: one MetaRoCE connection per remote node, shared by every RC and
 * UC QP of the device that talks to that node. A peer wraps the engine's
 * struct mre_conn with what the kernel adds: the lock every engine call
 * for it runs under, the hrtimer that serves the engine's deadline, the
 * addresses and route caches (per plane), and the batch of packets and
 * notifications the current locked section produced. It knows nothing of
 * QPs: a QP hands it its stream (mroce_peer_attach()).
 *
 * Every engine call goes through mroce_peer_lock() / mroce_peer_unlock():
 *
 *	mroce_batch_init(&b);
 *	mroce_peer_lock(peer, &b);
 *	... mre_conn_*(), mre_stream_kick(), ...
 *	mroce_peer_unlock(peer);		runs the engine, arms the timer
 *	mroce_batch_flush(&b);			sends, notifies
 *
 * The receive path takes the lock through the engine's demux (the lookups
 * here lock the peer they find) and rx.c unlocks the connection
 * mre_ep_rx() returns.
 *
 * Contexts: packet receive (softirq), the timer (softirq), doorbells and
 * verbs (process context, BH disabled while locked), the connect work.
 * Nothing sleeps under peer->lock and no socket call is made under it.
 *
 * Lifetime: a peer is created by the first QP that goes to RTR towards its
 * address, or by a CONNECT from an unknown node (in a work item: it
 * allocates), within the limits of peertab.c (max_peers, max_peer_mb,
 * max_peers_per_user), and lives until it is reclaimed (no QP has used it
 * for peer_idle_s, or room is needed) or its device goes away. Lookups on
 * the receive path run under RCU; QPs hold a reference.
 */
#ifndef MROCE_PEER_H
#define MROCE_PEER_H

#include <linux/hrtimer.h>
#include <linux/refcount.h>
#include <linux/rhashtable-types.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/uidgid.h>
#include <net/dst_cache.h>

#include "engine.h"
#include "plane.h"

struct mroce_batch;
struct mroce_dev;
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
	u64 next_at;			/* lock: the engine's deadline; 0: none */
	u32 run;			/* lock: runs of the engine so far */
	u32 timer_earlier;		/* lock: armed timer moved earlier */
	struct sockaddr_storage daddr;	/* the peer (its plane 0) */
	struct sockaddr_storage saddr;	/* us, towards it */
	struct dst_cache dst_cache;
	/* planes 1.. (plane 0 is daddr/saddr above); peer locked */
	bool plane_down[MROCE_MAX_PLANES];	/* as the engine was told */
	struct mroce_peer_plane pl[MROCE_MAX_PLANES];	/* [0] unused */
	struct rhash_head addr_node;	/* mdev->peers_by_addr */
	struct list_head node;		/* mdev->peer_list; RCU */
	unsigned long used_at;		/* jiffies: a QP last came or went */
	kuid_t owner;			/* peers_lock: user charged; or INVALID_UID */
	refcount_t refs;		/* the table's + one per QP and holder */
	struct mroce_peer *exit_next;	/* mroce_peers_exit()'s list */
};

static inline struct mroce_peer *mroce_peer_of(struct mre_conn *c)
{
	return container_of(c, struct mroce_peer, conn);
}

/* peer locked: the batch of whoever holds the lock (engine callbacks) */
static inline struct mroce_batch *mroce_peer_batch(struct mre_conn *c)
{
	return mroce_peer_of(c)->batch;
}

/* the device's engine endpoint with @ops; -EINVAL: bad module parameters */
int mroce_peers_init(struct mroce_dev *mdev, const struct mre_ops *ops);
/* drop every peer (device teardown; no QP left, nothing receives) */
void mroce_peers_exit(struct mroce_dev *mdev);

/*
 * The peer at @daddr, seen from @saddr, for a QP: found or created (its
 * memory charged to the caller's cgroup), referenced. @user: a user's QP
 * (not a kernel ULP's), whose caller's uid is charged with a peer it
 * makes or is the first user to use. -ENOMEM: no memory, or a limit is
 * in the way (peers_limited, peers_mem_limited, peers_user_limited).
 */
struct mroce_peer *mroce_peer_get(struct mroce_dev *mdev,
				  const struct sockaddr *daddr,
				  const struct sockaddr *saddr, bool user);
/* a QP lets go of its peer (the peer may be idle from now) */
void mroce_peer_put(struct mroce_peer *peer);
/* the same for a CONNECT whose cookie proved @daddr (the connect work) */
struct mroce_peer *mroce_peer_accept(struct mroce_dev *mdev,
				     const struct sockaddr_storage *daddr,
				     const struct sockaddr_storage *saddr);
/* a demux lookup's reference, after unlocking; or a mroce_peer_hold() */
void mroce_peer_release(struct mroce_peer *peer);
/* one more reference to a peer the caller knows referenced (a QP's) */
void mroce_peer_hold(struct mroce_peer *peer);
/* call @fn on every peer (referenced, not locked; RCU, must not sleep) */
void mroce_peers_for_each(struct mroce_dev *mdev,
			  void (*fn)(struct mroce_peer *peer, void *arg),
			  void *arg);
/* peer locked: its connection id changed from @old (reopened) */
void mroce_peer_rekey(struct mroce_peer *peer, u64 old);

/*
 * mre_ops.conn_by_id, .conn_by_addr: the peer, referenced and locked
 * (rx.c unlocks and releases it)
 */
struct mre_conn *mroce_peer_conn_by_id(struct mre_ep *ep,
				       const struct mre_rx *rx, u64 cid);
struct mre_conn *mroce_peer_conn_by_addr(struct mre_ep *ep,
					 const struct mre_rx *rx,
					 const struct mre_addr *addr);

void mroce_peer_lock(struct mroce_peer *peer, struct mroce_batch *b);
void mroce_peer_unlock(struct mroce_peer *peer);
/*
 * As mroce_peer_unlock(), but the timer is left to mroce_peer_arm() with
 * the run returned, called later (peer referenced, not locked; chain.c):
 * it sets the timer unless a later run came, whose holder sets it.
 */
u32 mroce_peer_unlock_defer(struct mroce_peer *peer);
void mroce_peer_arm(struct mroce_peer *peer, u32 run);
/* peer locked: the engine's clock for this hold, read once */
u64 mroce_peer_now(struct mroce_peer *peer);

/* the device's planes changed (added, removed, up or down): tell every peer */
void mroce_peers_planes(struct mroce_dev *mdev);
/* peer locked: bring the connection in line with the device's planes */
void mroce_peer_planes(struct mroce_peer *peer);

/* peer locked: attach a QP's stream @s (opens the connection) / detach it */
void mroce_peer_attach(struct mroce_peer *peer, struct mre_stream *s,
		       const struct mre_stream_attr *sa);
void mroce_peer_detach(struct mroce_peer *peer, struct mre_stream *s);

/* peer locked: send @skb (consumed) by our plane @plane, UDP source @sport */
void mroce_peer_xmit(struct mroce_peer *peer, struct sk_buff *skb, u32 plane,
		     u16 sport);

/* mre_ops.conn_event: logs, and the routes of a peer's learned planes */
void mroce_peer_conn_event(struct mre_conn *c, enum mre_conn_event ev);

#endif /* MROCE_PEER_H */
