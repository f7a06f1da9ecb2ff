// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The peer table (see peer.h): a peer's lock and timer, a device's peers by
 * address (an rhashtable keyed by conn.addr) and by our connection id (an
 * xarray on its low 32 bits; all 64 compared), the limits on new peers
 * (room()), the reclaim of idle peers, setup and teardown.
 *
 * References: the table holds one, each QP using the peer one, and each
 * demux lookup one for as long as it holds the peer (rx.c lets go). A
 * lookup takes its reference under RCU with refcount_inc_not_zero(). A
 * peer that no QP uses and that has been unused for peer_idle_s (or any
 * such peer, when the table is full) is reclaimed: under peers_lock its
 * count goes from 1, the table's, to 0 (refcount_dec_if_one(), which
 * fails while anyone else holds it), it leaves the indexes and the list,
 * and after a grace period, when no lookup can still be about to take a
 * reference, its timer is cancelled and it is freed. Nothing else drops it.
 */
#include <linux/cred.h>
#include <linux/rhashtable.h>
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
 * follows it share one reading. Never older than the connection's latest
 * time: the previous holder may have read a CPU whose clock runs ahead.
 */
u64 mroce_peer_now(struct mroce_peer *peer)
{
	if (!peer->now)
		peer->now = mre_conn_clock(&peer->conn, mroce_clock_ns());
	return peer->now;
}

/* run the engine: its next deadline, for set_timer(); the run's number */
static u32 peer_run(struct mroce_peer *peer)
{
	peer->next_at = mre_conn_run(&peer->conn, mroce_peer_now(peer));
	peer->batch = NULL;
	WRITE_ONCE(peer->run, peer->run + 1);
	return peer->run;
}

/*
 * Peer locked: keep the timer on the engine's deadline (relative to our
 * clock, not the engine's). A later deadline, or none, leaves the timer
 * where it is: it fires, finds nothing due and goes to the new one, which
 * is cheaper than moving it at every ACK of a stream or (in the guest's
 * emulated clock event device) cancelling it after every small operation.
 * An earlier one moves it (counted for debugfs: a chain's work, chain.h).
 */
static void set_timer(struct mroce_peer *peer)
{
	u64 next = peer->next_at, now;

	if (next && (!peer->armed_at || next < peer->armed_at)) {
		peer->timer_earlier += peer->armed_at != 0;
		peer->armed_at = next;
		now = mroce_clock_ns();
		hrtimer_start(&peer->timer,
			      ns_to_ktime(next > now ? next - now : 0),
			      HRTIMER_MODE_REL_SOFT);
	}
}

void mroce_peer_unlock(struct mroce_peer *peer)
	__releases(&peer->lock)
{
	peer_run(peer);
	set_timer(peer);
	spin_unlock_bh(&peer->lock);
}

/*
 * Inside a chain (chain.h) the timer is set at its end, to what the last
 * run left (ib_write_lat 64 KiB: 1.0 ms against 1.5), by the latest run's
 * holder; outside one a second lock round costs more than it saves.
 */
u32 mroce_peer_unlock_defer(struct mroce_peer *peer)
	__releases(&peer->lock)
{
	u32 run = peer_run(peer);

	spin_unlock_bh(&peer->lock);
	return run;
}

void mroce_peer_arm(struct mroce_peer *peer, u32 run)
{
	if (READ_ONCE(peer->run) != run)
		return;		/* a later run's holder sets it */
	spin_lock_bh(&peer->lock);
	if (peer->run == run)
		set_timer(peer);
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
	set_timer(peer);
	spin_unlock(&peer->lock);
	mroce_batch_flush(&b);
	return HRTIMER_NORESTART;
}

/* --- the table ------------------------------------------------------------ */

static const struct rhashtable_params addr_params = {
	.key_len = sizeof(struct mre_addr),
	.key_offset = offsetof(struct mroce_peer, conn.addr),
	.head_offset = offsetof(struct mroce_peer, addr_node),
	.automatic_shrinking = true,
};

static unsigned long cid_index(u64 cid)
{
	return (u32)cid;
}

/* RCU: the peer of that address / id, referenced, or NULL */
static struct mroce_peer *live(struct mroce_peer *peer)
{
	return peer && refcount_inc_not_zero(&peer->refs) ? peer : NULL;
}

static struct mroce_peer *by_addr(struct mroce_dev *mdev,
				  const struct mre_addr *a)
{
	return rhashtable_lookup(&mdev->peers_by_addr, a, addr_params);
}

static struct mroce_peer *by_cid(struct mroce_dev *mdev, u64 cid)
{
	struct mroce_peer *peer = xa_load(&mdev->peers_by_cid, cid_index(cid));

	return peer && READ_ONCE(peer->conn.cid) == cid ? peer : NULL;
}

/* no one can reach @peer any more (or ever could): stop it, free it */
static void peer_free(struct mroce_peer *peer)
{
	u32 k;

	hrtimer_cancel(&peer->timer);
	for (k = 1; k < MROCE_MAX_PLANES; k++)
		if (peer->pl[k].cache)
			dst_cache_destroy(&peer->pl[k].dst_cache);
	dst_cache_destroy(&peer->dst_cache);
	kvfree(peer->conn_mem);
	kfree(peer);
}

/*
 * A new peer, not yet in the table: its id's slot in the xarray is
 * reserved (a reserved slot reads as empty), so that publishing it needs
 * no allocation under the table's lock.
 */
static struct mroce_peer *peer_new(struct mroce_dev *mdev,
				   const struct sockaddr_storage *daddr,
				   const struct sockaddr_storage *saddr,
				   kuid_t owner, gfp_t gfp)
{
	struct mroce_peer *peer;
	struct mre_addr addr;
	int err, tries;

	mroce_addr_of_sa(daddr, &addr);
	peer = kzalloc(sizeof(*peer), gfp);
	if (!peer)
		return ERR_PTR(-ENOMEM);
	peer->conn_mem = kvzalloc(mre_conn_mem_size(&mdev->ep.cfg), gfp);
	err = dst_cache_init(&peer->dst_cache, gfp);
	if (!peer->conn_mem || err) {
		kvfree(peer->conn_mem);
		kfree(peer);
		return ERR_PTR(-ENOMEM);
	}
	peer->mdev = mdev;
	peer->daddr = *daddr;
	peer->saddr = *saddr;
	peer->owner = owner;
	peer->used_at = jiffies;
	spin_lock_init(&peer->lock);
	refcount_set(&peer->refs, 1);
	hrtimer_init(&peer->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	peer->timer.function = peer_timer;
	/* connection ids are random: retry the rare collision of 32 bits */
	for (tries = 0; tries < 8; tries++) {
		mre_conn_init(&peer->conn, &mdev->ep, peer->conn_mem, &addr);
		err = xa_insert_bh(&mdev->peers_by_cid,
				   cid_index(peer->conn.cid), NULL, gfp);
		if (err != -EBUSY)
			break;
	}
	if (err) {
		peer_free(peer);
		return ERR_PTR(err);
	}
	return peer;
}

/* peers_lock: into the table (its reference is the one peer_new() set) */
static int publish(struct mroce_dev *mdev, struct mroce_peer *peer)
{
	int err = rhashtable_insert_fast(&mdev->peers_by_addr, &peer->addr_node,
					 addr_params);

	if (err)
		return err;
	xa_store(&mdev->peers_by_cid, cid_index(peer->conn.cid), peer,
		 GFP_ATOMIC);		/* reserved: allocates nothing */
	list_add_tail_rcu(&peer->node, &mdev->peer_list);
	atomic_inc(&mdev->npeers);
	return 0;
}

/* peers_lock: out of the table (readers may still see it until a grace period) */
static void unpublish(struct mroce_dev *mdev, struct mroce_peer *peer)
{
	rhashtable_remove_fast(&mdev->peers_by_addr, &peer->addr_node,
			       addr_params);
	xa_cmpxchg(&mdev->peers_by_cid, cid_index(peer->conn.cid), peer, NULL,
		   GFP_ATOMIC);
	list_del_rcu(&peer->node);
	atomic_dec(&mdev->npeers);
}

/*
 * Take peers out of the table and free them, after a grace period; may
 * sleep. @all (device teardown): every one. Else those no QP or lookup
 * holds (the table's reference the only one left), unused for @idle
 * jiffies at least, and charged to @owner if that is a valid uid.
 * Returns how many went.
 */
static u32 take_out(struct mroce_dev *mdev, unsigned long idle, bool all,
		    kuid_t owner)
{
	struct mroce_peer *peer, *n, *gone = NULL;
	u32 count = 0;

	spin_lock_bh(&mdev->peers_lock);
	list_for_each_entry_safe(peer, n, &mdev->peer_list, node) {
		if (!all &&
		    ((uid_valid(owner) && !uid_eq(peer->owner, owner)) ||
		     time_before(jiffies, READ_ONCE(peer->used_at) + idle) ||
		     !refcount_dec_if_one(&peer->refs)))
			continue;
		unpublish(mdev, peer);
		peer->exit_next = gone;
		gone = peer;
	}
	spin_unlock_bh(&mdev->peers_lock);
	if (!gone)
		return 0;
	synchronize_rcu();		/* lookups that may have found one */
	while ((peer = gone)) {
		gone = peer->exit_next;
		WARN_ON_ONCE(peer->conn.nstreams);
		peer_free(peer);
		count++;
	}
	return count;
}

static void reclaim(struct mroce_dev *mdev, unsigned long idle, kuid_t owner)
{
	atomic64_add(take_out(mdev, idle, false, owner),
		     &mdev->counters[MROCE_CNT_PEERS_RECLAIMED]);
}

static void reclaim_work(struct work_struct *work)
{
	struct mroce_dev *mdev = container_of(to_delayed_work(work),
					      struct mroce_dev, reclaim_work);
	u32 idle_s = mroce_param_peer_idle_s();

	if (!idle_s)
		return;
	reclaim(mdev, idle_s * HZ, INVALID_UID);
	schedule_delayed_work(&mdev->reclaim_work, max(idle_s / 2, 1u) * HZ);
}

/*
 * Limits on new peers (param.c says why): the room is the smaller of
 * max_peers and max_peer_mb's worth, QPs may fill all but an eighth of it
 * (left to CONNECTs), and a user, charged with each peer its QPs made or
 * were first to use until it is freed, may have max_peers_per_user, at
 * most half of what QPs may make (kernel QPs and CONNECTs charge no one).
 */
struct maker {
	bool passive;	/* a CONNECT's: may use the last eighth */
	kuid_t uid;	/* charged; INVALID_UID: no one */
};

/*
 * peers_lock: may @mk have one more peer (@new), or a peer's charge?
 * MROCE_NUM_COUNTERS: yes; else the counter of the limit in the way
 */
static enum mroce_counter fits(struct mroce_dev *mdev, const struct maker *mk,
			       bool new)
{
	enum mroce_counter why = MROCE_CNT_PEERS_LIMITED;
	u32 cap = mroce_param_max_peers(), n = 0;
	u64 mb = mroce_param_max_peer_mb(), by_mem;
	struct mroce_peer *peer;

	/* a peer's size, as the allocators round it (kmalloc: powers of 2) */
	by_mem = div_u64(mb << 20, roundup_pow_of_two(sizeof(*peer)) +
			 roundup_pow_of_two(mre_conn_mem_size(&mdev->ep.cfg)));
	if (mb && by_mem < cap) {
		cap = max_t(u64, by_mem, 1);
		why = MROCE_CNT_PEERS_MEM_LIMITED;
	}
	cap -= mk->passive ? 0 : cap / 8;
	if (new && atomic_read(&mdev->npeers) >= cap)
		return why;
	if (!uid_valid(mk->uid) || !mroce_param_max_peers_per_user())
		return MROCE_NUM_COUNTERS;
	list_for_each_entry(peer, &mdev->peer_list, node)
		n += uid_eq(peer->owner, mk->uid);
	return n < min(mroce_param_max_peers_per_user(), max(cap / 2, 1u)) ?
	       MROCE_NUM_COUNTERS : MROCE_CNT_PEERS_USER_LIMITED;
}

/* may @mk make a peer (@peer NULL) or take @peer's charge? 0 or -ENOMEM */
static int room(struct mroce_dev *mdev, const struct maker *mk,
		struct mroce_peer *peer)
{
	enum mroce_counter why;
	int tries;

	for (tries = 0; ; tries++) {	/* if not, unused peers go: twice */
		spin_lock_bh(&mdev->peers_lock);
		why = peer && uid_valid(peer->owner) ? MROCE_NUM_COUNTERS :
		      fits(mdev, mk, !peer);
		if (peer && why == MROCE_NUM_COUNTERS)
			peer->owner = mk->uid;	/* a no one's peer: it has it */
		spin_unlock_bh(&mdev->peers_lock);
		if (why == MROCE_NUM_COUNTERS)
			return 0;
		if (tries == 2)
			break;
		reclaim(mdev, 0, why == MROCE_CNT_PEERS_USER_LIMITED ?
			mk->uid : INVALID_UID);	/* its own, if that is it */
	}
	mroce_counter_inc(mdev, why);
	return -ENOMEM;
}

/* @peer, found and referenced, for @mk: charged to its user if no one's */
static struct mroce_peer *found(struct mroce_dev *mdev, const struct maker *mk,
				struct mroce_peer *peer)
{
	int err = uid_valid(mk->uid) ? room(mdev, mk, peer) : 0;

	if (err)
		mroce_peer_release(peer);
	return err ? ERR_PTR(err) : peer;
}

static struct mroce_peer *peer_get(struct mroce_dev *mdev,
				   const struct sockaddr_storage *d,
				   const struct sockaddr_storage *s,
				   const struct maker *mk, gfp_t gfp)
{
	struct mroce_peer *peer, *other;
	enum mroce_counter why;
	struct mre_addr a;
	int err;

	mroce_addr_of_sa(d, &a);
	rcu_read_lock();
	peer = live(by_addr(mdev, &a));
	rcu_read_unlock();
	if (peer)
		return found(mdev, mk, peer);
	err = room(mdev, mk, NULL);
	if (err)
		return ERR_PTR(err);
	peer = peer_new(mdev, d, s, mk->uid, gfp);
	if (IS_ERR(peer))
		return peer;
	spin_lock_bh(&mdev->peers_lock);
	rcu_read_lock();		/* what rhashtable_lookup() asks for */
	other = live(by_addr(mdev, &a));
	rcu_read_unlock();
	/* the limits again, where they hold: others may have made peers */
	why = other ? MROCE_NUM_COUNTERS : fits(mdev, mk, true);
	err = other ? -EEXIST : why != MROCE_NUM_COUNTERS ? -ENOMEM :
	      publish(mdev, peer);
	if (!err)
		refcount_inc(&peer->refs);	/* the table's, and the caller's */
	else		/* never published: nobody saw its reserved cid */
		xa_release(&mdev->peers_by_cid, cid_index(peer->conn.cid));
	spin_unlock_bh(&mdev->peers_lock);
	if (err) {			/* someone was quicker, or no room */
		if (why != MROCE_NUM_COUNTERS)
			mroce_counter_inc(mdev, why);
		peer_free(peer);
		return other ? found(mdev, mk, other) : ERR_PTR(err);
	}
	ibdev_dbg(&mdev->ibdev, "peer %pISc from %pISc: cid %#llx\n", d, s,
		  peer->conn.cid);
	return peer;
}

struct mroce_peer *mroce_peer_get(struct mroce_dev *mdev,
				  const struct sockaddr *daddr,
				  const struct sockaddr *saddr, bool user)
{
	struct maker mk = { .uid = user ? current_uid() : INVALID_UID };
	struct mroce_peer *peer = peer_get(mdev, (const void *)daddr,
					   (const void *)saddr, &mk,
					   GFP_KERNEL_ACCOUNT);

	if (!IS_ERR(peer))
		WRITE_ONCE(peer->used_at, jiffies);
	return peer;
}

struct mroce_peer *mroce_peer_accept(struct mroce_dev *mdev,
				     const struct sockaddr_storage *daddr,
				     const struct sockaddr_storage *saddr)
{
	struct maker mk = { .passive = true, .uid = INVALID_UID };

	return peer_get(mdev, daddr, saddr, &mk, GFP_KERNEL);
}

void mroce_peer_put(struct mroce_peer *peer)
{
	WRITE_ONCE(peer->used_at, jiffies);	/* idle from now, maybe */
	mroce_peer_release(peer);
}

void mroce_peer_hold(struct mroce_peer *peer)
{
	refcount_inc(&peer->refs);
}

void mroce_peer_release(struct mroce_peer *peer)
{
	/* the table's reference keeps it until reclaim or device teardown */
	WARN_ON_ONCE(refcount_dec_and_test(&peer->refs));
}

/*
 * The demux's lookups (mre_ops.conn_by_id, .conn_by_addr): the peer found
 * is referenced and locked for the engine, into the receiving batch
 * (rx.h); mroce_rx() unlocks and releases it. The hold's clock (the run
 * at unlock) is the datagram's reading when the lock is won at once: one
 * clock read per packet (an emulated HPET costs microseconds a read).
 * After a wait it is read again under the lock (mroce_peer_now()): the
 * datagram's reading is then older by the time another holder spent (the
 * engine clamps that one to the connection's latest time, c->clock, but
 * running the connection late by a lock wait costs it: guest fabric tests
 * failed connections that way).
 */
static struct mre_conn *held(const struct mre_rx *rx, struct mroce_peer *peer)
	__cond_acquires(&peer->lock)
{
	struct mroce_rx_ctx *ctx = rx->ctx;

	if (!peer)
		return NULL;
	if (spin_trylock_bh(&peer->lock)) {
		peer->batch = &ctx->b;
		peer->now = ctx->now;
	} else {
		mroce_peer_lock(peer, &ctx->b);
	}
	return &peer->conn;
}

struct mre_conn *mroce_peer_conn_by_id(struct mre_ep *ep,
				       const struct mre_rx *rx, u64 cid)
{
	struct mroce_dev *mdev = container_of(ep, struct mroce_dev, ep);
	struct mroce_peer *peer;

	rcu_read_lock();
	peer = live(by_cid(mdev, cid));
	rcu_read_unlock();
	return held(rx, peer);
}

struct mre_conn *mroce_peer_conn_by_addr(struct mre_ep *ep,
					 const struct mre_rx *rx,
					 const struct mre_addr *addr)
{
	struct mroce_dev *mdev = container_of(ep, struct mroce_dev, ep);
	struct mroce_peer *peer;

	rcu_read_lock();
	peer = live(by_addr(mdev, addr));
	rcu_read_unlock();
	return held(rx, peer);
}

void mroce_peer_rekey(struct mroce_peer *peer, u64 old)
{
	struct mroce_dev *mdev = peer->mdev;

	lockdep_assert_held(&peer->lock);
	xa_cmpxchg(&mdev->peers_by_cid, cid_index(old), peer, NULL, GFP_ATOMIC);
	if (xa_insert(&mdev->peers_by_cid, cid_index(peer->conn.cid), peer,
		      GFP_ATOMIC))
		ibdev_dbg(&mdev->ibdev, "peer %pISc: no room for cid %#llx\n",
			  &peer->daddr, peer->conn.cid);
}

void mroce_peers_for_each(struct mroce_dev *mdev,
			  void (*fn)(struct mroce_peer *peer, void *arg),
			  void *arg)
{
	struct mroce_peer *peer;

	rcu_read_lock();
	list_for_each_entry_rcu(peer, &mdev->peer_list, node) {
		if (!live(peer))
			continue;
		fn(peer, arg);
		mroce_peer_release(peer);
	}
	rcu_read_unlock();
}

/* --- setup and teardown ---------------------------------------------------- */

int mroce_peers_init(struct mroce_dev *mdev, const struct mre_ops *ops)
{
	struct mre_config cfg;
	const char *bad;
	int err;

	mroce_engine_config(&cfg);
	bad = mre_config_check(&cfg);
	if (bad) {
		pr_err("engine parameter out of range: %s\n", bad);
		return -EINVAL;
	}
	err = rhashtable_init(&mdev->peers_by_addr, &addr_params);
	if (err)
		return err;
	mre_ep_init(&mdev->ep, ops, &cfg);
	mre_ep_key(&mdev->ep);		/* before any CPU demuxes */
	INIT_LIST_HEAD(&mdev->peer_list);
	atomic_set(&mdev->npeers, 0);
	spin_lock_init(&mdev->peers_lock);
	spin_lock_init(&mdev->atomic_lock);
	/* its lock is taken under locks that softirqs take (a QP's, a peer's) */
	xa_init_flags(&mdev->peers_by_cid, XA_FLAGS_LOCK_BH);
	INIT_DELAYED_WORK(&mdev->reclaim_work, reclaim_work);
	if (mroce_param_peer_idle_s())
		schedule_delayed_work(&mdev->reclaim_work,
				      max(mroce_param_peer_idle_s() / 2, 1u) * HZ);
	return 0;
}

/*
 * Device teardown, after every QP is gone, the device left its namespace's
 * receive list and the connect work is over (mroce_rx_exit()): no receiver
 * can find a peer once the grace period has passed, nor can a chain still
 * hold one (chain.c: preemption off is a read side), so none can re-arm a
 * timer afterwards: the timers can be cancelled and the peers freed.
 */
void mroce_peers_exit(struct mroce_dev *mdev)
{
	cancel_delayed_work_sync(&mdev->reclaim_work);
	synchronize_rcu();		/* receivers that found the device */
	take_out(mdev, 0, true, INVALID_UID);
	rhashtable_destroy(&mdev->peers_by_addr);
	xa_destroy(&mdev->peers_by_cid);
}
