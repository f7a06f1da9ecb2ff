// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Peers (see peer.h): the table, the lock and the timer, the planes as a
 * connection sees them, opening, sending.
 */
#include <linux/hash.h>
#include <linux/ipv6.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "batch.h"
#include "net.h"
#include "param.h"
#include "peer.h"
#include "rx.h"
#include "mroce.h"

/* --- locking and the timer ------------------------------------------------- */

void mroce_peer_lock(struct mroce_peer *peer, struct mroce_batch *b)
	__acquires(&peer->lock)
{
	spin_lock_bh(&peer->lock);
	peer->batch = b;
	peer->now = 0;
}

/*
 * The engine's clock, read once per lock hold: a packet and the run that
 * follows it share one reading (a clock read is not free everywhere, e.g.
 * an emulated HPET).
 */
u64 mroce_peer_now(struct mroce_peer *peer)
{
	if (!peer->now)
		peer->now = ktime_get_ns();
	return peer->now;
}

/* run the engine, keep the timer on its deadline, unlock */
static void peer_run(struct mroce_peer *peer)
{
	u64 next = mre_conn_run(&peer->conn, mroce_peer_now(peer));

	if (next && (!peer->armed_at || next < peer->armed_at)) {
		peer->armed_at = next;
		hrtimer_start(&peer->timer, ns_to_ktime(next),
			      HRTIMER_MODE_ABS_SOFT);
	}
	peer->batch = NULL;
}

void mroce_peer_unlock(struct mroce_peer *peer)
	__releases(&peer->lock)
{
	peer_run(peer);
	spin_unlock_bh(&peer->lock);
}

static enum hrtimer_restart peer_timer(struct hrtimer *t)
{
	struct mroce_peer *peer = container_of(t, struct mroce_peer, timer);
	struct mroce_batch b;

	mroce_batch_init(&b);
	spin_lock(&peer->lock);
	peer->batch = &b;
	peer->now = 0;
	peer->armed_at = 0;
	peer_run(peer);
	spin_unlock(&peer->lock);
	mroce_batch_flush(&b);
	return HRTIMER_NORESTART;
}

/* --- the peer table -------------------------------------------------------- */

static u32 addr_hash(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return hash_32((__force u32)((struct sockaddr_in *)a)->sin_addr.s_addr,
			       MROCE_PEER_HASH_BITS);
	return hash_32(ipv6_addr_hash(&((struct sockaddr_in6 *)a)->sin6_addr),
		       MROCE_PEER_HASH_BITS);
}

/* RCU, or peers_lock */
static struct mroce_peer *peer_find(struct mroce_dev *mdev,
				    const struct sockaddr_storage *daddr)
{
	struct mroce_peer *peer;

	hlist_for_each_entry_rcu(peer, &mdev->peer_hash[addr_hash(daddr)],
				 addr_node)
		if (mroce_addr_eq(&peer->daddr, daddr))
			return peer;
	return NULL;
}

static void peer_free(struct mroce_peer *peer)
{
	u32 k;

	for (k = 1; k < MROCE_MAX_PLANES; k++)
		if (peer->pl[k].cache)
			dst_cache_destroy(&peer->pl[k].dst_cache);
	dst_cache_destroy(&peer->dst_cache);
	kvfree(peer->conn_mem);
	kfree_rcu(peer, rcu);
}

static struct mroce_peer *peer_new(struct mroce_dev *mdev,
				   const struct sockaddr_storage *daddr,
				   const struct sockaddr_storage *saddr)
{
	struct mroce_peer *peer;
	struct mre_addr addr;
	int err, tries;

	mroce_addr_of_sa(daddr, &addr);
	peer = kzalloc(sizeof(*peer), GFP_KERNEL);
	if (!peer)
		return ERR_PTR(-ENOMEM);
	peer->conn_mem = kvzalloc(mre_conn_mem_size(&mdev->ep.cfg), GFP_KERNEL);
	err = dst_cache_init(&peer->dst_cache, GFP_KERNEL);
	if (!peer->conn_mem || err) {
		kvfree(peer->conn_mem);
		kfree(peer);
		return ERR_PTR(-ENOMEM);
	}
	peer->mdev = mdev;
	peer->daddr = *daddr;
	peer->saddr = *saddr;
	spin_lock_init(&peer->lock);
	refcount_set(&peer->refs, 1);
	hrtimer_init(&peer->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	peer->timer.function = peer_timer;
	/* connection ids are random: retry the rare collision */
	for (tries = 0; tries < 8; tries++) {
		mre_conn_init(&peer->conn, &mdev->ep, peer->conn_mem, &addr);
		err = xa_insert(&mdev->peers_by_cid, peer->conn.cid, peer,
				GFP_KERNEL);
		if (err != -EBUSY)
			break;
	}
	if (err) {
		peer_free(peer);
		return ERR_PTR(err);
	}
	return peer;
}

struct mroce_peer *mroce_peer_get(struct mroce_dev *mdev,
				  const struct sockaddr *daddr,
				  const struct sockaddr *saddr)
{
	const struct sockaddr_storage *d = (const void *)daddr;
	const struct sockaddr_storage *s = (const void *)saddr;
	struct mroce_peer *peer, *other;

	rcu_read_lock();
	peer = peer_find(mdev, d);
	if (peer)
		refcount_inc(&peer->refs);
	rcu_read_unlock();
	if (peer)
		return peer;

	peer = peer_new(mdev, d, s);
	if (IS_ERR(peer))
		return peer;
	spin_lock_bh(&mdev->peers_lock);
	other = peer_find(mdev, d);
	if (other) {			/* someone was quicker */
		refcount_inc(&other->refs);
		spin_unlock_bh(&mdev->peers_lock);
		xa_erase(&mdev->peers_by_cid, peer->conn.cid);
		peer_free(peer);
		return other;
	}
	refcount_inc(&peer->refs);	/* the table's, and the caller's */
	hlist_add_head_rcu(&peer->addr_node, &mdev->peer_hash[addr_hash(d)]);
	spin_unlock_bh(&mdev->peers_lock);
	ibdev_dbg(&mdev->ibdev, "peer %pISc from %pISc: cid %#x\n", d, s,
		  peer->conn.cid);
	return peer;
}

/*
 * The demux's lookups (mre_ops.conn_by_id, .conn_by_addr): the peer found
 * is locked for the engine, into the receiving batch (rx.h); mroce_rx()
 * unlocks it. Its clock for the rest of the hold (the run at unlock) is
 * read under the lock (mroce_peer_now()): the datagram's reading, taken
 * before the lock was won, may be older by the time another holder spent
 * (the engine clamps that one to the connection's latest time, c->clock,
 * but running the connection late by a lock wait costs it: guest fabric
 * tests failed connections that way). Peers live until their device
 * goes, which first waits for receivers (RCU) and for the connect work:
 * what a lookup finds stays valid after its read section ends.
 */
static struct mre_conn *held(const struct mre_rx *rx, struct mroce_peer *peer)
	__cond_acquires(&peer->lock)
{
	struct mroce_rx_ctx *ctx = rx->ctx;

	if (!peer)
		return NULL;
	mroce_peer_lock(peer, &ctx->b);
	return &peer->conn;
}

struct mre_conn *mroce_peer_conn_by_id(struct mre_ep *ep,
				       const struct mre_rx *rx, u32 cid)
{
	struct mroce_dev *mdev = container_of(ep, struct mroce_dev, ep);
	struct mroce_peer *peer;

	rcu_read_lock();
	peer = xa_load(&mdev->peers_by_cid, cid);
	rcu_read_unlock();
	return held(rx, peer);
}

struct mre_conn *mroce_peer_conn_by_addr(struct mre_ep *ep,
					 const struct mre_rx *rx,
					 const struct mre_addr *addr)
{
	struct mroce_dev *mdev = container_of(ep, struct mroce_dev, ep);
	struct mroce_peer *peer;
	struct sockaddr_storage sa;

	mroce_sa_of_addr(addr, &sa);
	rcu_read_lock();
	peer = peer_find(mdev, &sa);
	rcu_read_unlock();
	return held(rx, peer);
}

void mroce_peer_put(struct mroce_peer *peer)
{
	/* the device's reference keeps it until mroce_peers_exit() */
	WARN_ON_ONCE(refcount_dec_and_test(&peer->refs));
}


/* --- planes ----------------------------------------------------------------- */

/*
 * How our plane k reaches the peer: from our address there to the peer's
 * on its plane k % (its planes), as its blob said (conn.peer_planes). A
 * plane whose addresses are not known goes by plane 0's. Peer locked.
 */
static void peer_routes(struct mroce_peer *peer)
{
	const struct mre_conn *c = &peer->conn;
	struct mroce_dev *mdev = peer->mdev;
	u32 n = mroce_planes(mdev), k;

	for (k = 1; k < MROCE_MAX_PLANES; k++) {
		struct mroce_peer_plane *pp = &peer->pl[k];
		struct net_device *ndev = mroce_plane_ndev(mdev, k);
		struct sockaddr_storage d;

		pp->ready = false;
		if (k >= n || !c->peer_nplanes || !ndev)
			continue;
		mroce_sa_of_addr(&c->peer_planes[k % c->peer_nplanes], &d);
		if (d.ss_family != peer->daddr.ss_family ||
		    !mroce_net_ndev_addr(ndev, d.ss_family, &pp->saddr))
			continue;
		if (!pp->cache)
			pp->cache = !dst_cache_init(&pp->dst_cache, GFP_ATOMIC);
		else if (!mroce_addr_eq(&pp->daddr, &d))
			dst_cache_reset(&pp->dst_cache);
		pp->daddr = d;
		pp->ready = true;
	}
}

void mroce_peer_planes(struct mroce_peer *peer)
{
	struct mroce_dev *mdev = peer->mdev;
	u32 n = mroce_planes(mdev), k;
	u64 now = mroce_peer_now(peer);

	lockdep_assert_held(&peer->lock);
	mre_conn_set_planes(&peer->conn, now, min_t(u32, n, peer->conn.npaths));
	rcu_read_lock();
	peer_routes(peer);
	for (k = 0; k < MROCE_MAX_PLANES; k++) {
		struct net_device *ndev = k < n ? mroce_plane_ndev(mdev, k) : NULL;
		bool down = k < n && (!ndev || !netif_running(ndev) ||
				      !netif_carrier_ok(ndev));

		/* every time: paths may just have moved onto a down plane */
		peer->plane_down[k] = down;
		if (n > 1)
			mre_conn_plane(&peer->conn, now, k, !down);
	}
	rcu_read_unlock();
}

void mroce_peers_planes(struct mroce_dev *mdev)
{
	struct mroce_peer *peer;
	unsigned long cid;

	if (!mdev->peers_ready)
		return;
	xa_for_each(&mdev->peers_by_cid, cid, peer) {
		struct mroce_batch b;

		mroce_batch_init(&b);
		mroce_peer_lock(peer, &b);
		mroce_peer_planes(peer);
		mroce_peer_unlock(peer);
		mroce_batch_flush(&b);
	}
}

/* --- streams: opening the connection ---------------------------------------- */

/*
 * A stream needs the connection: open it, or reopen a failed one, which
 * takes a new connection id (the old one may still name the old
 * incarnation in packets on the wire).
 */
static void peer_open(struct mroce_peer *peer)
{
	struct mroce_dev *mdev = peer->mdev;
	u32 old = peer->conn.cid;

	if (peer->conn.state != MRE_CONN_CLOSED &&
	    peer->conn.state != MRE_CONN_FAILED)
		return;
	mroce_peer_planes(peer);
	mre_conn_connect(&peer->conn, mroce_peer_now(peer));
	if (peer->conn.cid == old)
		return;
	xa_erase(&mdev->peers_by_cid, old);
	if (xa_insert(&mdev->peers_by_cid, peer->conn.cid, peer, GFP_ATOMIC))
		ibdev_dbg(&mdev->ibdev, "peer %pISc: no room for cid %#x\n",
			  &peer->daddr, peer->conn.cid);
}

void mroce_peer_attach(struct mroce_peer *peer, struct mre_stream *s,
		       const struct mre_stream_attr *sa)
{
	lockdep_assert_held(&peer->lock);
	/*
	 * Planes were added or removed since the peers last told each other
	 * theirs: while nothing uses the connection, open it again so that
	 * both learn the new addresses (the peer sees a restart).
	 */
	if (peer->conn.blob_planes != mroce_planes(peer->mdev) &&
	    mre_conn_renew(&peer->conn))
		ibdev_dbg(&peer->mdev->ibdev, "peer %pISc: planes changed, reconnecting\n",
			  &peer->daddr);
	mre_stream_attach(s, &peer->conn, sa);
	peer_open(peer);
}

void mroce_peer_detach(struct mroce_peer *peer, struct mre_stream *s)
{
	lockdep_assert_held(&peer->lock);
	if (s->conn)
		mre_stream_detach(s);
}

/* --- sending and events ------------------------------------------------------ */

/*
 * Out by plane @k: its netdev, our address there, the peer's address on
 * its matching plane. Plane 0, and a plane whose addresses are not known
 * (yet), use the peer's own addresses and whatever route they have.
 */
void mroce_peer_xmit(struct mroce_peer *peer, struct sk_buff *skb, u32 k,
		     u16 sport)
{
	struct mroce_dev *mdev = peer->mdev;
	struct mroce_peer_plane *pp;
	struct net_device *ndev;

	if (k && k < MROCE_MAX_PLANES && peer->pl[k].ready) {
		pp = &peer->pl[k];
		ndev = mroce_plane_ndev(mdev, k);
		if (ndev) {
			mroce_net_queue(mdev, skb, &pp->saddr, &pp->daddr,
					sport, pp->cache ? &pp->dst_cache : NULL,
					ndev->ifindex, peer->batch);
			return;
		}
	}
	mroce_net_queue(mdev, skb, &peer->saddr, &peer->daddr, sport,
			&peer->dst_cache, 0, peer->batch);
}

void mroce_peer_conn_event(struct mre_conn *c, enum mre_conn_event ev)
{
	struct mroce_peer *peer = mroce_peer_of(c);

	switch (ev) {
	case MRE_CONN_UP:
		ibdev_dbg(&peer->mdev->ibdev, "peer %pISc: connected (cid %#x)\n",
			  &peer->daddr, c->cid);
		break;
	case MRE_CONN_DEAD:
		ibdev_dbg(&peer->mdev->ibdev, "peer %pISc: connection failed\n",
			  &peer->daddr);
		break;
	case MRE_CONN_PLANES:
		rcu_read_lock();
		peer_routes(peer);
		rcu_read_unlock();
		break;
	default:
		break;
	}
}

/* --- setup and teardown ---------------------------------------------------- */

int mroce_peers_init(struct mroce_dev *mdev, const struct mre_ops *ops)
{
	struct mre_config cfg;
	const char *bad;
	int i;

	mroce_engine_config(&cfg);
	bad = mre_config_check(&cfg);
	if (bad) {
		pr_err("engine parameter out of range: %s\n", bad);
		return -EINVAL;
	}
	mre_ep_init(&mdev->ep, ops, &cfg);
	for (i = 0; i < ARRAY_SIZE(mdev->peer_hash); i++)
		INIT_HLIST_HEAD(&mdev->peer_hash[i]);
	spin_lock_init(&mdev->peers_lock);
	spin_lock_init(&mdev->atomic_lock);
	xa_init(&mdev->peers_by_cid);
	return 0;
}

/*
 * Device teardown, after every QP is gone, the device left its
 * namespace's receive list and the connect work is over (mroce_rx_exit()):
 * no receiver can find a peer once the grace period has passed, and none
 * of them can re-arm a timer afterwards, so the timers can be cancelled
 * and the peers freed.
 */
void mroce_peers_exit(struct mroce_dev *mdev)
{
	struct mroce_peer *peer, *all = NULL;
	int i;

	synchronize_rcu();		/* receivers that found the device */
	spin_lock_bh(&mdev->peers_lock);
	for (i = 0; i < ARRAY_SIZE(mdev->peer_hash); i++) {
		struct hlist_node *n;

		hlist_for_each_entry_safe(peer, n, &mdev->peer_hash[i],
					  addr_node) {
			hlist_del_rcu(&peer->addr_node);
			xa_erase(&mdev->peers_by_cid, peer->conn.cid);
			peer->exit_next = all;
			all = peer;
		}
	}
	spin_unlock_bh(&mdev->peers_lock);
	synchronize_rcu();		/* receivers that found a peer */
	while ((peer = all)) {
		all = peer->exit_next;
		hrtimer_cancel(&peer->timer);
		WARN_ON_ONCE(peer->conn.nstreams);
		peer_free(peer);
	}
	xa_destroy(&mdev->peers_by_cid);
}
