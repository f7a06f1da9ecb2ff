// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Peers and the engine's embedder (see peer.h): struct mre_ops on top of
 * QPs, MRs and CQs, the receive entry of the software datapath, the timer.
 */
#include <linux/hash.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "batch.h"
#include "cq.h"
#include "mr.h"
#include "net.h"
#include "peer.h"
#include "qp.h"
#include "ud.h"
#include "mroce.h"

/* --- engine configuration: module parameters ------------------------------ */

static uint npaths = 8;
module_param(npaths, uint, 0444);
MODULE_PARM_DESC(npaths, "paths (UDP source ports) per connection, 1..64 (default 8)");
static uint window = 10;
module_param(window, uint, 0444);
MODULE_PARM_DESC(window, "log2 of the TSN window per connection, 4..16 (default 10: 1024 packets)");
static uint rto_min_us = 5000;
module_param(rto_min_us, uint, 0444);
MODULE_PARM_DESC(rto_min_us, "smallest path retransmission timeout, microseconds (default 5000)");
static uint rto_init_us = 20000;
module_param(rto_init_us, uint, 0444);
MODULE_PARM_DESC(rto_init_us, "retransmission timeout before any RTT sample, microseconds (default 20000)");
/*
 * ACKs: a software endpoint pays for every packet it handles, an ACK as
 * much as a data packet, and its paths each see a packet every tens or
 * hundreds of microseconds. The sender asks for the ACKs it needs (twice
 * per window, at the end of each message, tail probes), so the receiver's
 * own rules can be lazy: every 8 packets of a path, 500 us at most, and
 * no ACK at once for reordering (a host sending from two CPUs reorders
 * all the time). The engine's defaults (every 2, 8 us, at once) are a
 * datacenter NIC's.
 */
static uint ack_delay_us = 500;
module_param(ack_delay_us, uint, 0444);
MODULE_PARM_DESC(ack_delay_us, "longest delay of an ACK, microseconds (default 500)");
static uint dead_ms = 5000;
module_param(dead_ms, uint, 0444);
MODULE_PARM_DESC(dead_ms, "no ACK for this long with data outstanding fails a connection, ms (default 5000)");
static uint link_mbps;
module_param(link_mbps, uint, 0444);
MODULE_PARM_DESC(link_mbps, "receive capacity advertised in rate hints, Mbit/s (default 0: no hints)");
static uint init_cwnd = 16;
module_param(init_cwnd, uint, 0444);
MODULE_PARM_DESC(init_cwnd, "initial window of a path, packets (default 16)");
static uint ack_freq = 8;
module_param(ack_freq, uint, 0444);
MODULE_PARM_DESC(ack_freq, "acknowledge every this many packets of a path, 1..64 (default 8)");
static bool ack_ooo;
module_param(ack_ooo, bool, 0444);
MODULE_PARM_DESC(ack_ooo, "acknowledge a packet that arrives out of order at once (default N)");
static uint tx_burst = 32;
module_param(tx_burst, uint, 0444);
MODULE_PARM_DESC(tx_burst, "most packets one connection sends before letting others run (default 32)");

void mroce_engine_config(struct mre_config *cfg)
{
	mre_config_default(cfg);
	cfg->npaths = npaths;
	cfg->window_log2 = window;
	cfg->conn_max_cwnd = 1u << min(window, 16u);
	cfg->rto_min_ns = (u64)rto_min_us * NSEC_PER_USEC;
	cfg->rto_init_ns = max_t(u64, (u64)rto_init_us * NSEC_PER_USEC,
				 cfg->rto_min_ns);
	cfg->ack_delay_ns = (u64)ack_delay_us * NSEC_PER_USEC;
	cfg->dead_ns = (u64)dead_ms * NSEC_PER_MSEC;
	cfg->link_mbps = link_mbps;
	cfg->init_cwnd = init_cwnd;
	cfg->ack_freq = ack_freq;
	cfg->tx_burst = tx_burst;
	cfg->ack_ooo_now = ack_ooo;
	/* software endpoints jitter by milliseconds: probe gently */
	cfg->probe_min_ns = max_t(u64, cfg->probe_min_ns, 4 * cfg->rto_min_ns);
	cfg->connect_ns = max_t(u64, cfg->connect_ns, cfg->rto_init_ns);
	cfg->active_ns = max_t(u64, cfg->active_ns, cfg->rto_min_ns);
}

/* --- the embedder ---------------------------------------------------------- */

static struct mroce_dev *dev_of_ep(struct mre_ep *ep)
{
	return container_of(ep, struct mroce_dev, ep);
}

static u64 e_random(struct mre_ep *ep)
{
	return get_random_u64();
}

static struct mre_stream *e_stream(struct mre_conn *c, u32 id)
{
	struct mroce_dev *mdev = dev_of_ep(c->ep);
	struct mroce_qp *qp = mroce_qp_lookup(mdev, id);

	if (!qp || (qp->ibqp.qp_type != IB_QPT_RC &&
		    qp->ibqp.qp_type != IB_QPT_UC) || qp->s.conn != c) {
		ibdev_dbg_ratelimited(&mdev->ibdev,
				      "peer %pISc: no stream %u (qp %s, conn %s)\n",
				      &mroce_peer_of(c)->daddr, id,
				      qp ? "found" : "none",
				      qp && qp->s.conn ? "other" : "none");
		return NULL;
	}
	return &qp->s;
}

/* a send WQE payload into @dst: inline bytes, or gathered from its SGEs */
static void gather_wqe(struct mroce_qp *qp, const struct mre_xmit *x, u8 *dst)
{
	struct mroce_swqe *w = mroce_swqe(qp, qp->sq_base + x->pl_msn);

	if (w->flags & IB_SEND_INLINE) {
		memcpy(dst, w->inl + x->pl_offset, x->pl_len);
		return;
	}
	/* the MR went away under a posted WQE: send zeros, not old memory */
	if (mroce_sge_copy(qp, w->sge, w->num_sge, x->pl_offset, dst,
			   x->pl_len, false))
		memset(dst, 0, x->pl_len);
}

/*
 * Out by plane @k: its netdev, our address there, the peer's address on
 * its matching plane. Plane 0, and a plane whose addresses are not known
 * (yet), use the peer's own addresses and whatever route they have.
 */
static void peer_queue(struct mroce_peer *peer, struct sk_buff *skb, u32 k,
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

static int e_xmit(struct mre_conn *c, const struct mre_xmit *x)
{
	struct mroce_peer *peer = mroce_peer_of(c);
	struct mroce_dev *mdev = peer->mdev;
	struct sk_buff *skb;
	u8 *p;

	skb = mroce_net_alloc(x->hdr_len + x->pl_len);
	if (!skb) {
		mroce_counter_inc(mdev, MROCE_CNT_TX_DROPS);
		return 0;			/* recovered like a loss */
	}
	p = skb_put(skb, x->hdr_len + x->pl_len);
	memcpy(p, x->hdr, x->hdr_len);
	p += x->hdr_len;
	if (x->pl_src == MRE_PL_WQE) {
		gather_wqe(mroce_qp_of_stream(x->pl_stream), x, p);
	} else if (x->pl_src == MRE_PL_MR) {
		struct mroce_qp *qp = mroce_qp_of_stream(x->pl_stream);
		struct mroce_mr *mr;

		mr = mroce_rkey_get(&qp->ibqp, x->pl_rkey, x->pl_addr,
				    x->pl_len, IB_ACCESS_REMOTE_READ);
		if (!mr) {
			kfree_skb(skb);
			return MRE_SYN_REM_ACCESS;
		}
		mroce_mr_copy(mr, x->pl_addr, p, x->pl_len, false);
		mroce_mr_put(mr);
	}
	mroce_counter_inc(mdev, MROCE_CNT_TX_PACKETS);
	peer_queue(peer, skb, x->plane, x->src_port);
	return 0;
}

static bool e_sq_get(struct mre_stream *s, u32 msn, struct mre_wqe *w)
{
	struct mroce_qp *qp = mroce_qp_of_stream(s);
	struct mroce_swqe *q;

	spin_lock(&qp->lock);
	q = mroce_qp_sq_get(qp, msn, mroce_peer_of(s->conn)->batch);
	if (q) {
		memset(w, 0, sizeof(*w));
		w->len = q->length;
		w->rkey = q->rkey;
		w->raddr = q->raddr;
		w->imm = q->imm;
		w->swap_add = q->compare_add;
		switch (q->opcode) {
		case IB_WR_SEND_WITH_IMM:
			w->flags |= MRE_WQE_IMM;
			fallthrough;
		case IB_WR_SEND:
			w->op = MRE_OP_SEND;
			break;
		case IB_WR_SEND_WITH_INV:
			w->flags |= MRE_WQE_INV;	/* imm: the rkey */
			w->op = MRE_OP_SEND;
			break;
		case IB_WR_RDMA_WRITE_WITH_IMM:
			w->flags |= MRE_WQE_IMM;
			fallthrough;
		case IB_WR_RDMA_WRITE:
			w->op = MRE_OP_WRITE;
			break;
		case IB_WR_RDMA_READ:
			w->op = MRE_OP_READ_REQ;
			break;
		case IB_WR_ATOMIC_CMP_AND_SWP:
			w->op = MRE_OP_ATOMIC_REQ;
			w->aop = MRE_AOP_CMP_SWP;
			w->compare = q->compare_add;
			w->swap_add = q->swap;
			w->len = 8;
			break;
		default:
			w->op = MRE_OP_ATOMIC_REQ;
			w->aop = MRE_AOP_FETCH_ADD;
			w->len = 8;
		}
		if (q->flags & IB_SEND_SOLICITED)
			w->flags |= MRE_WQE_SOLICIT;
		if (q->flags & IB_SEND_FENCE)
			w->flags |= MRE_WQE_FENCE;
	}
	spin_unlock(&qp->lock);
	return q;
}

static bool qp_allows(struct mroce_qp *qp, int right)
{
	return qp->attr.qp_access_flags & right;
}

static int place_recv(struct mroce_qp *qp, const struct mre_place *p,
		      const u8 *data, struct mroce_batch *b)
{
	struct mroce_rwqe *r = mroce_qp_rq_get(qp, p->rsn, b);

	if (!r)
		return MRE_SYN_RNR;
	if (p->mlen > r->length)
		return MRE_SYN_REM_INV_REQ;
	/*
	 * SEND with invalidate: the rkey must name a type 2 MW bound by this
	 * QP. Checked here, where a NAK can still answer it; invalidated in
	 * order, when the receive completes (e_recv_done()).
	 */
	if (p->dflags & MRE_DF_INV && p->dflags & MRE_DF_LAST &&
	    !mroce_mw_invalidate(&qp->ibqp, p->imm, true, true))
		return MRE_SYN_REM_INV_REQ;
	if (mroce_sge_copy(qp, r->sge, r->num_sge, p->offset, (void *)data,
			   p->len, true))
		return MRE_SYN_REM_OP;	/* our receive's own key is bad */
	return MRE_SYN_NONE;
}

static int place_write(struct mroce_qp *qp, const struct mre_place *p,
		       const u8 *data, struct mroce_batch *b)
{
	struct mroce_mr *mr;

	if (!qp_allows(qp, IB_ACCESS_REMOTE_WRITE))
		return MRE_SYN_REM_ACCESS;
	/* with immediate: its receive must exist before anything lands */
	if (p->dflags & MRE_DF_RECV && p->dflags & MRE_DF_LAST &&
	    !mroce_qp_rq_get(qp, p->rsn, b))
		return MRE_SYN_RNR;
	if (!p->mlen)
		return MRE_SYN_NONE;
	mr = mroce_rkey_get(&qp->ibqp, p->rkey, p->raddr, p->mlen,
			    IB_ACCESS_REMOTE_WRITE);
	if (!mr)
		return MRE_SYN_REM_ACCESS;
	mroce_mr_copy(mr, p->raddr + p->offset, (void *)data, p->len, true);
	mroce_mr_put(mr);
	return MRE_SYN_NONE;
}

static int e_place(struct mre_stream *s, const struct mre_place *p,
		   const u8 *data)
{
	struct mroce_qp *qp = mroce_qp_of_stream(s);
	struct mroce_batch *b = mroce_peer_of(s->conn)->batch;
	struct mroce_swqe *w;
	int r = MRE_SYN_NONE;

	spin_lock(&qp->lock);
	switch (p->op) {
	case MRE_OP_WRITE:
		r = place_write(qp, p, data, b);
		break;
	case MRE_OP_SEND:
		r = place_recv(qp, p, data, b);
		break;
	case MRE_OP_READ_RESP:
	case MRE_OP_ATOMIC_RESP:
		w = mroce_swqe(qp, qp->sq_base + p->msn);
		/* our own SGEs were checked at post; a vanished MR loses data */
		if (mroce_sge_copy(qp, w->sge, w->num_sge, p->offset,
				   (void *)data, p->len, true))
			mroce_counter_inc(to_mroce_dev(qp->ibqp.device),
					  MROCE_CNT_RX_DROPS);
		break;
	}
	spin_unlock(&qp->lock);
	return r;
}

static int e_check(struct mre_stream *s, u8 op, u32 rkey, u64 raddr, u32 len)
{
	struct mroce_qp *qp = mroce_qp_of_stream(s);
	int right = op == MRE_OP_READ_REQ ? IB_ACCESS_REMOTE_READ :
					    IB_ACCESS_REMOTE_ATOMIC;
	struct mroce_mr *mr;

	if (!qp_allows(qp, right))
		return MRE_SYN_REM_ACCESS;
	if (!len)
		return MRE_SYN_NONE;
	mr = mroce_rkey_get(&qp->ibqp, rkey, raddr, len, right);
	if (!mr)
		return MRE_SYN_REM_ACCESS;
	mroce_mr_put(mr);
	return MRE_SYN_NONE;
}

static int e_atomic(struct mre_stream *s, const struct mre_atomic *a,
		    u64 *orig)
{
	struct mroce_qp *qp = mroce_qp_of_stream(s);
	struct mroce_dev *mdev = to_mroce_dev(qp->ibqp.device);
	struct mroce_mr *mr;
	u64 v;

	if (!qp_allows(qp, IB_ACCESS_REMOTE_ATOMIC) || a->raddr & 7)
		return MRE_SYN_REM_ACCESS;
	mr = mroce_rkey_get(&qp->ibqp, a->rkey, a->raddr, 8,
			    IB_ACCESS_REMOTE_ATOMIC);
	if (!mr)
		return MRE_SYN_REM_ACCESS;
	/* one lock for all atomics of the device, as rxe does */
	spin_lock(&mdev->atomic_lock);
	mroce_mr_copy(mr, a->raddr, &v, 8, false);
	*orig = v;
	if (a->aop == MRE_AOP_FETCH_ADD)
		v += a->swap_add;
	else if (v == a->compare)
		v = a->swap_add;
	mroce_mr_copy(mr, a->raddr, &v, 8, true);
	spin_unlock(&mdev->atomic_lock);
	mroce_mr_put(mr);
	return MRE_SYN_NONE;
}

static void e_send_done(struct mre_stream *s, u32 msn, enum mre_status st)
{
	struct mroce_qp *qp = mroce_qp_of_stream(s);
	struct mroce_batch *b = mroce_peer_of(s->conn)->batch;

	spin_lock(&qp->lock);
	mroce_qp_send_done(qp, qp->sq_base + msn, mroce_wc_status(st), b);
	mroce_qp_sq_check(qp, b);
	/* local WQEs that waited for it run now, then the messages after */
	if (mroce_qp_run_local(qp, b))
		mre_stream_kick(s);
	spin_unlock(&qp->lock);
}

static void e_recv_done(struct mre_stream *s, const struct mre_recv_done *rd)
{
	struct mroce_qp *qp = mroce_qp_of_stream(s);
	struct mroce_batch *b = mroce_peer_of(s->conn)->batch;
	struct mroce_cqe cqe = {
		.status = mroce_wc_status(rd->status),
		.opcode = rd->op == MRE_OP_WRITE ? IB_WC_RECV_RDMA_WITH_IMM :
						   IB_WC_RECV,
		.byte_len = rd->len,
	};
	struct mroce_rwqe *r;

	if (rd->dflags & MRE_DF_IMM) {
		cqe.imm_data = rd->imm;
		cqe.wc_flags = MROCE_WC_WITH_IMM;
	}
	spin_lock(&qp->lock);
	if (rd->dflags & MRE_DF_INV && rd->status == MRE_ST_OK) {
		/*
		 * Checked when it arrived; if the MW changed since (a local
		 * invalidate or dealloc raced it) it is not valid either way.
		 */
		mroce_mw_invalidate(&qp->ibqp, rd->imm, true, false);
		cqe.imm_data = rd->imm;		/* the rkey, host order */
		cqe.wc_flags = MROCE_WC_WITH_INV;
	}
	r = mroce_qp_rq_get(qp, rd->rsn, b);
	if (r)
		mroce_qp_recv_done(qp, r, &cqe, rd->dflags & MRE_DF_SOLICIT, b);
	spin_unlock(&qp->lock);
}

static void e_stream_error(struct mre_stream *s, enum mre_status st)
{
	struct mroce_qp *qp = mroce_qp_of_stream(s);

	spin_lock(&qp->lock);
	mroce_qp_stream_error(qp, st);
	spin_unlock(&qp->lock);
}

static void e_conn_event(struct mre_conn *c, enum mre_conn_event ev)
{
	struct mroce_peer *peer = mroce_peer_of(c);

	if (ev == MRE_CONN_UP)
		ibdev_dbg(&peer->mdev->ibdev, "peer %pISc: connected (cid %#x)\n",
			  &peer->daddr, c->cid);
	else if (ev == MRE_CONN_DEAD)
		ibdev_dbg(&peer->mdev->ibdev, "peer %pISc: connection failed\n",
			  &peer->daddr);
}

static const struct mre_ops mroce_engine_ops = {
	.random = e_random,
	.xmit = e_xmit,
	.stream = e_stream,
	.sq_get = e_sq_get,
	.place = e_place,
	.check = e_check,
	.atomic = e_atomic,
	.send_done = e_send_done,
	.recv_done = e_recv_done,
	.stream_error = e_stream_error,
	.conn_event = e_conn_event,
};

/* --- locking and the timer ------------------------------------------------- */

void mroce_peer_lock(struct mroce_peer *peer, struct mroce_batch *b)
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
static u64 peer_now(struct mroce_peer *peer)
{
	if (!peer->now)
		peer->now = ktime_get_ns();
	return peer->now;
}

/* run the engine, keep the timer on its deadline, unlock */
static void peer_run(struct mroce_peer *peer)
{
	u64 next = mre_conn_run(&peer->conn, peer_now(peer));

	if (next && (!peer->armed_at || next < peer->armed_at)) {
		peer->armed_at = next;
		hrtimer_start(&peer->timer, ns_to_ktime(next),
			      HRTIMER_MODE_ABS_SOFT);
	}
	peer->batch = NULL;
}

void mroce_peer_unlock(struct mroce_peer *peer)
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
		return hash_32(((struct sockaddr_in *)a)->sin_addr.s_addr,
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
	int err, tries;

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
		mre_conn_init(&peer->conn, &mdev->ep, peer->conn_mem);
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

void mroce_peer_put(struct mroce_peer *peer)
{
	/* the device's reference keeps it until mroce_peers_exit() */
	WARN_ON_ONCE(refcount_dec_and_test(&peer->refs));
}

/* --- planes ----------------------------------------------------------------- */

/*
 * Bring the peer in line with the device's planes and what the peer told
 * us of its own: the engine's plane count, each plane's addresses and
 * route cache, and which planes are down. Peer locked.
 */
static void peer_planes(struct mroce_peer *peer)
{
	struct mroce_dev *mdev = peer->mdev;
	u32 n = mroce_planes(mdev), k;
	u64 now = peer_now(peer);

	mre_conn_set_planes(&peer->conn, now, min_t(u32, n, peer->conn.npaths));
	for (k = 1; k < MROCE_MAX_PLANES; k++) {
		struct mroce_peer_plane *pp = &peer->pl[k];
		const struct sockaddr_storage *d;

		pp->ready = false;
		if (k >= n || !peer->peer_nplanes)
			continue;
		d = &peer->peer_planes[k % peer->peer_nplanes];
		if (d->ss_family != peer->daddr.ss_family ||
		    !mroce_plane_addr(mdev, k, d->ss_family, &pp->saddr))
			continue;
		if (!pp->cache)
			pp->cache = !dst_cache_init(&pp->dst_cache, GFP_ATOMIC);
		else if (!mroce_addr_eq(&pp->daddr, d))
			dst_cache_reset(&pp->dst_cache);
		pp->daddr = *d;
		pp->ready = true;
	}
	for (k = 0; k < MROCE_MAX_PLANES; k++) {
		struct net_device *ndev = k < n ? mroce_plane_ndev(mdev, k) : NULL;
		bool down = k < n && (!ndev || !netif_running(ndev) ||
				      !netif_carrier_ok(ndev));

		/* every time: paths may just have moved onto a down plane */
		peer->plane_down[k] = down;
		if (n > 1)
			mre_conn_plane(&peer->conn, now, k, !down);
	}
}

/* what the peer says of its planes (a CONNECT's or ACCEPT's blob) */
static void peer_learn(struct mroce_peer *peer, const struct mre_pkt *pkt)
{
	u32 n = mroce_planes_parse(pkt->connect.blob, pkt->connect.blob_len,
				   peer->daddr.ss_family, peer->peer_planes);

	if (n)
		peer->peer_nplanes = n;
	peer_planes(peer);
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
		peer_planes(peer);
		mroce_peer_unlock(peer);
		mroce_batch_flush(&b);
	}
}

/*
 * A stream needs the connection: open it, or reopen a failed one, which
 * takes a new connection id (the old one may still name the old
 * incarnation in packets on the wire).
 */
static void peer_open(struct mroce_peer *peer)
{
	struct mroce_dev *mdev = peer->mdev;
	u32 old = peer->conn.cid;
	u8 blob[MRE_MAX_BLOB];

	if (peer->conn.state != MRE_CONN_CLOSED &&
	    peer->conn.state != MRE_CONN_FAILED)
		return;
	peer_planes(peer);
	peer->told_nplanes = mroce_planes(mdev);
	mre_conn_connect(&peer->conn, peer_now(peer), blob,
			 mroce_planes_blob(mdev, peer->daddr.ss_family, blob));
	if (peer->conn.cid == old)
		return;
	xa_erase(&mdev->peers_by_cid, old);
	if (xa_insert(&mdev->peers_by_cid, peer->conn.cid, peer, GFP_ATOMIC))
		ibdev_dbg(&mdev->ibdev, "peer %pISc: no room for cid %#x\n",
			  &peer->daddr, peer->conn.cid);
}

void mroce_peer_attach(struct mroce_peer *peer, struct mroce_qp *qp)
{
	struct mre_stream_attr sa;

	lockdep_assert_held(&peer->lock);
	/*
	 * Planes were added or removed since the peers last told each other
	 * theirs: while nothing uses the connection, open it again so that
	 * both learn the new addresses (the peer sees a restart).
	 */
	if (peer->told_nplanes != mroce_planes(peer->mdev) &&
	    mre_conn_renew(&peer->conn))
		ibdev_dbg(&peer->mdev->ibdev, "peer %pISc: planes changed, reconnecting\n",
			  &peer->daddr);
	mroce_qp_stream_attr(qp, &sa);
	mre_stream_attach(&qp->s, &peer->conn, &sa);
	peer_open(peer);
}

void mroce_peer_detach(struct mroce_peer *peer, struct mroce_qp *qp)
{
	lockdep_assert_held(&peer->lock);
	if (qp->s.conn)
		mre_stream_detach(&qp->s);
}

/* --- receiving -------------------------------------------------------------- */

/* a CONNECT for @peer (locked): learn its planes, answer with ours */
static void peer_accept(struct mroce_peer *peer, const struct mre_pkt *pkt)
{
	u8 blob[MRE_MAX_BLOB];

	peer_learn(peer, pkt);
	peer->told_nplanes = mroce_planes(peer->mdev);
	mre_conn_accept(&peer->conn, peer_now(peer), pkt, blob,
			mroce_planes_blob(peer->mdev, peer->daddr.ss_family,
					  blob));
}

/*
 * Who sent a CONNECT: the node's plane-0 address, from its blob, and ours
 * (it may have come by another plane when plane 0 is down); else the
 * packet's own addresses.
 */
static void connect_who(struct mroce_dev *mdev, struct sk_buff *skb,
			const struct mre_pkt *pkt, struct sockaddr_storage *src,
			struct sockaddr_storage *dst)
{
	struct sockaddr_storage planes[MROCE_MAX_PLANES], me;

	mroce_net_src(skb, src);
	mroce_net_dst(skb, dst);
	if (mroce_planes_parse(pkt->connect.blob, pkt->connect.blob_len,
			       src->ss_family, planes) &&
	    planes[0].ss_family == src->ss_family &&
	    !mroce_addr_eq(&planes[0], src) &&
	    mroce_plane_addr(mdev, 0, src->ss_family, &me)) {
		*src = planes[0];
		*dst = me;
	}
}

/* a CONNECT from an address we have no peer for: make one (it allocates) */
static void connect_work(struct work_struct *work)
{
	struct mroce_dev *mdev = container_of(work, struct mroce_dev,
					      connect_work);
	struct sockaddr_storage src, dst;
	struct mroce_peer *peer;
	struct sk_buff *skb;
	struct mroce_batch b;
	struct mre_pkt pkt;

	while ((skb = skb_dequeue(&mdev->connect_q))) {
		if (mre_wire_parse(skb->data, skb->len, &pkt) != MRE_PARSE_OK)
			goto next;
		connect_who(mdev, skb, &pkt, &src, &dst);
		peer = mroce_peer_get(mdev, (struct sockaddr *)&src,
				      (struct sockaddr *)&dst);
		if (IS_ERR(peer))
			goto next;
		mroce_batch_init(&b);
		mroce_peer_lock(peer, &b);
		peer_accept(peer, &pkt);
		mroce_peer_unlock(peer);
		mroce_batch_flush(&b);
		mroce_peer_put(peer);
next:
		kfree_skb(skb);
	}
}

static void send_reset(struct mroce_dev *mdev, struct sk_buff *in,
		       const struct mre_pkt *pkt)
{
	struct sockaddr_storage src, dst;
	struct mroce_batch b;
	struct sk_buff *skb;

	if (!__ratelimit(&mdev->reset_rs))
		return;
	skb = mroce_net_alloc(MRE_RESET_LEN);
	if (!skb)
		return;
	mre_ep_build_reset(&mdev->ep, pkt, skb_put(skb, MRE_RESET_LEN));
	mroce_net_src(in, &src);
	mroce_net_dst(in, &dst);
	mroce_batch_init(&b);
	mroce_net_queue(mdev, skb, &dst, &src, ntohs(udp_hdr(in)->source), NULL, 0,
			&b);
	mroce_batch_flush(&b);
}

int mroce_peer_rx(struct mroce_dev *mdev, struct sk_buff *skb)
{
	struct sockaddr_storage src, dst;
	struct mroce_peer *peer;
	struct mroce_batch b;
	struct mre_pkt pkt;
	long long cid;

	if (skb_linearize(skb))
		goto drop;
	cid = mre_ep_parse(&mdev->ep, skb->data, skb->len, &pkt);
	if (cid < 0)
		goto drop;
	/* only UD may be sent to a group; nothing to a broadcast address */
	if (skb->pkt_type == PACKET_BROADCAST)
		goto drop;
	if (pkt.type != MRE_T_UD) {
		mroce_net_dst(skb, &dst);
		if (mroce_addr_is_mcast(&dst))
			goto drop;
	}
	switch (pkt.type) {
	case MRE_T_UD:
		mroce_ud_rx(mdev, skb, &pkt);
		goto done;
	case MRE_T_CONNECT:
	case MRE_T_RESET:
		mroce_net_src(skb, &src);
		peer = peer_find(mdev, &src);
		if (!peer && pkt.type == MRE_T_CONNECT) {
			if (skb_queue_len(&mdev->connect_q) > 64)
				goto drop;
			skb_queue_tail(&mdev->connect_q, skb);
			schedule_work(&mdev->connect_work);
			return 0;
		}
		break;
	default:
		peer = xa_load(&mdev->peers_by_cid, (u32)cid);
		if (!peer) {
			mdev->ep.ctr.drop_no_conn++;
			if (pkt.type != MRE_T_RESET)
				send_reset(mdev, skb, &pkt);
			goto drop;
		}
	}
	if (!peer)
		goto drop;
	mroce_batch_init(&b);
	mroce_peer_lock(peer, &b);
	if (pkt.type == MRE_T_CONNECT) {
		peer_accept(peer, &pkt);
	} else {
		if (pkt.type == MRE_T_ACCEPT)
			peer_learn(peer, &pkt);
		mre_conn_rx(&peer->conn, peer_now(peer), &pkt,
			    mroce_net_ce(skb));
	}
	mroce_peer_unlock(peer);
	mroce_batch_flush(&b);
done:
	consume_skb(skb);
	return 0;
drop:
	mroce_counter_inc(mdev, MROCE_CNT_RX_DROPS);
	kfree_skb(skb);
	return 0;
}

/* --- setup and teardown ---------------------------------------------------- */

int mroce_peers_init(struct mroce_dev *mdev)
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
	mre_ep_init(&mdev->ep, &mroce_engine_ops, &cfg);
	for (i = 0; i < ARRAY_SIZE(mdev->peer_hash); i++)
		INIT_HLIST_HEAD(&mdev->peer_hash[i]);
	spin_lock_init(&mdev->peers_lock);
	spin_lock_init(&mdev->atomic_lock);
	xa_init(&mdev->peers_by_cid);
	skb_queue_head_init(&mdev->connect_q);
	INIT_WORK(&mdev->connect_work, connect_work);
	ratelimit_state_init(&mdev->reset_rs, HZ, 100);
	return 0;
}

/*
 * Device teardown, after every QP is gone and the device left its
 * namespace's receive list: no receiver can find a peer once the grace
 * period has passed, and none of them can re-arm a timer afterwards, so the
 * timers can be cancelled and the peers freed.
 */
void mroce_peers_exit(struct mroce_dev *mdev)
{
	struct mroce_peer *peer, *all = NULL;
	int i;

	synchronize_rcu();		/* receivers that found the device */
	cancel_work_sync(&mdev->connect_work);
	skb_queue_purge(&mdev->connect_q);
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
