// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Peers (see peer.h): the planes as a connection sees them, opening,
 * sending. The table of peers, their references, lock and timer are
 * peertab.c's.
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

/* --- planes ----------------------------------------------------------------- */

/*
 * How our plane k reaches the peer: from our address there to the peer's
 * on its plane k % (its planes), as its blob said (conn.peer_planes), once
 * that address proved it is the peer's (mre_conn_plane_proven(): it echoed
 * our CHALLENGE). A plane whose addresses are not known, or not proven,
 * goes by plane 0's. Peer locked.
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
		if (k >= n || !c->peer_nplanes || !ndev ||
		    !mre_conn_plane_proven(c, k))
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
	mre_conn_set_local(&peer->conn, mroce_net_is_self(mdev, &peer->daddr));
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

static void peer_planes_one(struct mroce_peer *peer, void *arg)
{
	struct mroce_batch b;

	mroce_batch_init(&b);
	mroce_peer_lock(peer, &b);
	mroce_peer_planes(peer);
	mroce_peer_unlock(peer);
	mroce_batch_flush(&b);
}

void mroce_peers_planes(struct mroce_dev *mdev)
{
	if (mdev->peers_ready)
		mroce_peers_for_each(mdev, peer_planes_one, NULL);
}

/* --- streams: opening the connection ---------------------------------------- */

/*
 * A stream needs the connection: open it, or reopen a failed one, which
 * takes a new connection id (the old one may still name the old
 * incarnation in packets on the wire).
 */
static void peer_open(struct mroce_peer *peer)
{
	u64 old = peer->conn.cid;

	if (peer->conn.state != MRE_CONN_CLOSED &&
	    peer->conn.state != MRE_CONN_FAILED)
		return;
	mroce_peer_planes(peer);
	mre_conn_connect(&peer->conn, mroce_peer_now(peer));
	if (peer->conn.cid != old)
		mroce_peer_rekey(peer, old);
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
 * A CHALLENGE out by plane @k to the address the peer claimed there, not
 * proven yet: looked up now (challenges are few, no route cache). Never
 * by plane 0's addresses instead: the peer would echo it from there and
 * the claim would pass for proven. Dropped (lost, like a loss) when that
 * plane or address is not at hand.
 */
static void peer_claim_xmit(struct mroce_peer *peer, struct sk_buff *skb,
			    u32 k, u16 sport)
{
	const struct mre_conn *c = &peer->conn;
	struct mroce_dev *mdev = peer->mdev;
	struct sockaddr_storage s, d;
	struct net_device *ndev;

	rcu_read_lock();
	ndev = k && k < mroce_planes(mdev) ? mroce_plane_ndev(mdev, k) : NULL;
	if (ndev && c->peer_nplanes) {
		mroce_sa_of_addr(&c->peer_planes[k % c->peer_nplanes], &d);
		if (d.ss_family == peer->daddr.ss_family &&
		    mroce_net_ndev_addr(ndev, d.ss_family, &s)) {
			mroce_net_queue(mdev, skb, &s, &d, sport, NULL,
					ndev->ifindex, peer->batch);
			rcu_read_unlock();
			return;
		}
	}
	rcu_read_unlock();
	kfree_skb(skb);
}

/*
 * Out by plane @k: its netdev, our address there, the peer's address on
 * its matching plane. Plane 0, and a plane whose addresses are not known
 * or not proven (yet), use the peer's own addresses and whatever route
 * they have; a CHALLENGE (@k with MROCE_PLANE_CLAIM) goes to the claim.
 */
void mroce_peer_xmit(struct mroce_peer *peer, struct sk_buff *skb, u32 k,
		     u16 sport)
{
	struct mroce_dev *mdev = peer->mdev;
	struct mroce_peer_plane *pp;
	struct net_device *ndev;

	if (k & MROCE_PLANE_CLAIM) {
		peer_claim_xmit(peer, skb, k & ~MROCE_PLANE_CLAIM, sport);
		return;
	}
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
		ibdev_dbg(&peer->mdev->ibdev, "peer %pISc: connected (cid %#llx)\n",
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
