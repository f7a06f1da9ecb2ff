// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs: create, modify, query, destroy (see qp.h), and how a QP's
 * attributes make its engine stream.
 */
#include <linux/ipv6.h>
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <linux/vmalloc.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "batch.h"
#include "comp.h"
#include "mcast.h"
#include "mr.h"
#include "param.h"
#include "peer.h"
#include "post.h"
#include "qp.h"
#include "srq.h"
#include "verbs.h"
#include "oflcmd.h"
#include "mroce.h"

/* IB's RNR NAK timer encoding (min_rnr_timer) in nanoseconds */
static u64 rnr_timer_ns(u8 code)
{
	static const u32 us[32] = {
		655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640,
		960, 1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480,
		30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680,
		491520,
	};

	return (u64)us[code & 31] * NSEC_PER_USEC;
}

/* --- create / destroy ------------------------------------------------------ */

static int alloc_qpn(struct mroce_dev *mdev, struct mroce_qp *qp,
		     enum ib_qp_type type)
{
	u32 qpn;
	int err;

	if (type == IB_QPT_GSI) {
		err = xa_insert(&mdev->qps, 1, qp, GFP_KERNEL);
		qpn = 1;
	} else {
		err = xa_alloc_cyclic(&mdev->qps, &qpn, qp,
				      XA_LIMIT(16, MROCE_MAX_QPN), &mdev->qp_next,
				      GFP_KERNEL);
		err = err < 0 ? err : 0;
	}
	if (!err)
		qp->ibqp.qp_num = qpn;
	return err;
}

static int check_caps(struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *c = &init->cap;

	if (c->max_send_wr > MROCE_MAX_QP_WR || c->max_recv_wr > MROCE_MAX_QP_WR ||
	    c->max_send_sge > MROCE_MAX_SGE || c->max_recv_sge > MROCE_MAX_SGE ||
	    c->max_inline_data > MROCE_MAX_INLINE)
		return -EINVAL;
	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
	case IB_QPT_GSI:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags & ~IB_QP_CREATE_SCATTER_FCS)
		return -EOPNOTSUPP;
	return 0;
}

static u32 sq_stride(u32 max_sge, u32 max_inline)
{
	return roundup_pow_of_two(sizeof(struct mroce_sqe) +
				  max(max_sge * sizeof(struct mroce_sge),
				      (size_t)max_inline));
}

static int create_queues(struct mroce_qp *qp, struct ib_qp_init_attr *init,
			 struct ib_udata *udata, struct mroce_create_qp_resp *resp)
{
	struct ib_qp_cap *c = &init->cap;
	u32 ssize, rsize, sstride, rstride;
	int err;

	qp->max_send_sge = max_t(u32, c->max_send_sge, 1);
	qp->max_recv_sge = max_t(u32, c->max_recv_sge, 1);
	qp->max_inline = c->max_inline_data;
	ssize = roundup_pow_of_two(max_t(u32, c->max_send_wr, 1));
	sstride = sq_stride(qp->max_send_sge, qp->max_inline);
	/* the inline room is what the stride leaves: report all of it */
	qp->max_inline = min_t(u32, MROCE_MAX_INLINE,
			       sstride - sizeof(struct mroce_sqe));
	err = mroce_queue_init(&qp->sq, udata, ssize, sstride,
			       &resp->sq_mmap_offset);
	if (err)
		return err;
	qp->swq_stride = sizeof(struct mroce_swqe) +
			 max(qp->max_send_sge * sizeof(struct mroce_sge),
			     (size_t)qp->max_inline);
	qp->swq = vzalloc(array_size(ssize, qp->swq_stride));
	if (!qp->swq) {
		err = -ENOMEM;
		goto err_sq;
	}
	rstride = roundup_pow_of_two(sizeof(struct mroce_rqe) +
				     qp->max_recv_sge * sizeof(struct mroce_sge));
	qp->rwq_stride = sizeof(struct mroce_rwqe) +
			 qp->max_recv_sge * sizeof(struct mroce_sge);
	if (qp->srq) {
		qp->rwq_stride = sizeof(struct mroce_rwqe) +
				 qp->srq->max_sge * sizeof(struct mroce_sge);
		qp->rwq = vzalloc(array_size(MROCE_SRQ_CLAIMS, qp->rwq_stride));
		if (!qp->rwq) {
			err = -ENOMEM;
			goto err_swq;
		}
		c->max_recv_wr = 0;
	} else {
		rsize = roundup_pow_of_two(max_t(u32, c->max_recv_wr, 1));
		err = mroce_queue_init(&qp->rq, udata, rsize, rstride,
				       &resp->rq_mmap_offset);
		if (err)
			goto err_swq;
		qp->rwq = vzalloc(array_size(rsize, qp->rwq_stride));
		if (!qp->rwq) {
			err = -ENOMEM;
			goto err_rq;
		}
		resp->rq_mmap_len = qp->rq.len;
		resp->rq_size = rsize;
		resp->rq_stride = rstride;
		c->max_recv_wr = rsize;
	}
	resp->sq_mmap_len = qp->sq.len;
	resp->sq_size = ssize;
	resp->sq_stride = sstride;
	resp->max_inline = qp->max_inline;
	resp->max_send_sge = qp->max_send_sge;
	resp->max_recv_sge = qp->max_recv_sge;
	c->max_send_wr = ssize;
	c->max_send_sge = qp->max_send_sge;
	c->max_recv_sge = qp->max_recv_sge;
	c->max_inline_data = qp->max_inline;
	return 0;

err_rq:
	mroce_queue_free(&qp->rq);
err_swq:
	vfree(qp->swq);
err_sq:
	mroce_queue_free(&qp->sq);
	return err;
}

static void free_queues(struct mroce_qp *qp)
{
	vfree(qp->rwq);
	if (!qp->srq)
		mroce_queue_free(&qp->rq);
	vfree(qp->swq);
	mroce_queue_free(&qp->sq);
}

int mroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mroce_dev(ibqp->device);
	struct mroce_qp *qp = to_mroce_qp(ibqp);
	struct mroce_create_qp_resp resp = {};
	int err;

	err = check_caps(init);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	mutex_init(&qp->mutex);
	spin_lock_init(&qp->lock);
	spin_lock_init(&qp->sq_post_lock);
	spin_lock_init(&qp->rq_post_lock);
	INIT_WORK(&qp->err_work, mroce_comp_err_work);
	INIT_WORK(&qp->sqd_work, mroce_comp_sqd_work);
	INIT_WORK(&qp->kick_work, mroce_post_kick_work);
	INIT_LIST_HEAD(&qp->mcast);
	qp->user = !!udata;
	qp->state = IB_QPS_RESET;
	qp->srq = init->srq ? to_mroce_srq(init->srq) : NULL;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->ud_sport = 49152 + get_random_u32_below(16384);
	qp->attr.path_mtu = mroce_ib_mtu(READ_ONCE(mdev->ndev->mtu));
	err = create_queues(qp, init, udata, &resp);
	if (err)
		return err;
	err = alloc_qpn(mdev, qp, init->qp_type);
	if (err)
		goto err_queues;
	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_qpn;
	}
	err = mroce_ofl_qp_cmd(qp, MROCE_OFL_CMD_QP_CREATE, IB_QPS_RESET, 0);
	if (err)
		goto err_qpn;
	mroce_dbg_qp(qp, "type %d sq %u rq %u%s\n", init->qp_type,
		     resp.sq_size, resp.rq_size, udata ? " (user)" : "");
	return 0;

err_qpn:
	xa_erase(&mdev->qps, qp->ibqp.qp_num);
err_queues:
	free_queues(qp);
	return err;
}

/*
 * Destroy: once it is out of the QP table no new lookup finds it (the
 * engine's connection may still reach it by the stream it last looked up,
 * mre_conn_stream()); the engine forgets it when the stream detaches
 * (under the peer lock, so no engine callback still runs for it);
 * synchronize_rcu() waits out receivers that looked it up before; the
 * error work is cancelled. Then nothing refers to it and the queues can go.
 */
int mroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mroce_dev(ibqp->device);
	struct mroce_qp *qp = to_mroce_qp(ibqp);
	struct mroce_peer *peer;
	struct mroce_batch b;

	xa_erase(&mdev->qps, ibqp->qp_num);
	mutex_lock(&qp->mutex);
	mroce_batch_init(&b);
	peer = qp->peer;
	if (peer) {
		mroce_peer_lock(peer, &b);
		spin_lock(&qp->lock);
		mroce_peer_detach(peer, &qp->s);
		qp->peer = NULL;	/* under the lock: mroce_req_kick() */
		spin_unlock(&qp->lock);
		mroce_peer_unlock(peer);
		mroce_peer_put(peer);
	}
	qp->state = IB_QPS_RESET;
	mutex_unlock(&qp->mutex);
	mroce_batch_flush(&b);
	/* nothing runs its WQEs any more: its type 2B windows die with it */
	if (mroce_qp_is_rc(qp))
		mroce_mw_qp_gone(ibqp);
	mroce_mcast_qp_destroy(qp);	/* groups a kernel QP is still in */
	synchronize_rcu();
	cancel_work_sync(&qp->err_work);
	cancel_work_sync(&qp->sqd_work);
	cancel_work_sync(&qp->kick_work);
	mroce_dbg_qp(qp, "\n");
	mroce_ofl_qp_cmd(qp, MROCE_OFL_CMD_QP_DESTROY, IB_QPS_RESET, 0);
	free_queues(qp);
	return 0;
}

/* --- modify / query -------------------------------------------------------- */

static int resolve_av(struct mroce_qp *qp, const struct rdma_ah_attr *ah)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);

	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH) || !grh->sgid_attr)
		return -EINVAL;
	memset(&qp->av, 0, sizeof(qp->av));
	rdma_gid2ip((struct sockaddr *)&qp->av.saddr, &grh->sgid_attr->gid);
	rdma_gid2ip((struct sockaddr *)&qp->av.daddr, &grh->dgid);
	if (qp->av.saddr.ss_family != qp->av.daddr.ss_family)
		return -EINVAL;
	return 0;
}

static int check_attr(struct mroce_qp *qp, struct ib_qp_attr *attr, int mask)
{
	struct mroce_dev *mdev = mroce_qp_dev(qp);

	if (mask & IB_QP_PORT && attr->port_num != 1)
		return -EINVAL;
	if (mask & IB_QP_PKEY_INDEX && attr->pkey_index)
		return -EINVAL;
	if (mask & IB_QP_PATH_MTU &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096 ||
	     attr->path_mtu > mroce_ib_mtu(READ_ONCE(mdev->ndev->mtu))))
		return -EINVAL;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC &&
	    attr->max_rd_atomic > MROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC &&
	    attr->max_dest_rd_atomic > MROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if (mask & IB_QP_ACCESS_FLAGS &&
	    attr->qp_access_flags & ~(IB_ACCESS_REMOTE_WRITE |
				      IB_ACCESS_REMOTE_READ |
				      IB_ACCESS_REMOTE_ATOMIC |
				      IB_ACCESS_LOCAL_WRITE))
		return -EOPNOTSUPP;
	if (mask & IB_QP_AV && mroce_qp_is_conn(qp))
		return resolve_av(qp, &attr->ah_attr);
	return 0;
}

static void copy_attr(struct mroce_qp *qp, struct ib_qp_attr *attr, int mask)
{
	struct ib_qp_attr *a = &qp->attr;

	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		/* kept for query_qp by index; the route is in qp->av */
		a->ah_attr = attr->ah_attr;
		a->ah_attr.grh.sgid_attr = NULL;
	}
	if (mask & IB_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
}

/*
 * Payload bytes per RC packet. The path MTU is an InfiniBand size (1024
 * on a 1500-byte Ethernet); our packets are UDP datagrams, and the netdev
 * says what fits: 1384 bytes there (IPv6 headers assumed), a third fewer
 * packets for the same bytes. Placement does not care where packets end.
 */
static u32 stream_mtu(struct mroce_qp *qp)
{
	int room = (int)READ_ONCE(mroce_qp_dev(qp)->ndev->mtu) -
		   (int)sizeof(struct ipv6hdr) - (int)sizeof(struct udphdr) -
		   MROCE_MAX_HDR_LEN;
	u32 mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);

	if (mroce_param_fill_mtu() && room > (int)mtu)
		mtu = room;
	return mtu;
}

/*
 * The RNR timer a UC responder asks for (a UC QP has no min_rnr_timer
 * attribute): 0.64 ms, IB's code 12.
 */
#define MROCE_UC_RNR_TIMER	12

/*
 * Fill the engine's view of the stream from the QP's attributes. A UC QP
 * is a stream like RC's, delivered reliably and in order (a legal "UC"),
 * whose requester hears of no remote error; lacking a receive, the
 * responder refuses the packet and the sender waits for one as long as it
 * takes (rnr_retry 7), where IB UC would drop the message.
 */
static void stream_attr(struct mroce_qp *qp, struct mre_stream_attr *sa)
{
	bool uc = qp->ibqp.qp_type == IB_QPT_UC;

	*sa = (struct mre_stream_attr){
		.id = qp->ibqp.qp_num,
		.remote_id = qp->attr.dest_qp_num,
		.mtu = stream_mtu(qp),
		.max_rd = max_t(u32, qp->attr.max_rd_atomic, 1),
		.rnr_retry = uc ? 7 : qp->attr.rnr_retry,
		.retry = qp->attr.retry_cnt,
		.rnr_delay_ns = rnr_timer_ns(uc ? MROCE_UC_RNR_TIMER :
					     qp->attr.min_rnr_timer),
		.uc = uc,
	};
}

/* RESET: every queue empty, both sides' indices back to zero */
static void reset_queues(struct mroce_qp *qp)
{
	struct mroce_queue *qs[2] = { &qp->sq, qp->srq ? NULL : &qp->rq };
	int i;

	for (i = 0; i < 2; i++) {
		if (!qs[i])
			continue;
		memset(qs[i]->r.hdr, 0, MRE_RING_HDR_SIZE);
		qs[i]->r.prod = 0;
		qs[i]->r.cons = 0;
		qs[i]->kp.prod = 0;
		qs[i]->kp.cons = 0;
	}
	qp->sq_taken = qp->sq_done = qp->sq_base = qp->sq_local_end = 0;
	qp->rq_taken = qp->rq_done = qp->rq_base = 0;
	/* receives claimed from an SRQ are dropped, as RESET drops WQEs */
	if (qp->srq)
		memset(qp->rwq, 0, array_size(MROCE_SRQ_CLAIMS, qp->rwq_stride));
}

static int to_rtr(struct mroce_qp *qp, struct mroce_batch *b)
{
	struct mroce_peer *peer, *old;
	struct mre_stream_attr sa;

	if (!mroce_qp_is_conn(qp))
		return 0;
	/* a user's QP (not a kernel ULP's): its caller's uid is charged */
	peer = mroce_peer_get(mroce_qp_dev(qp), (struct sockaddr *)&qp->av.daddr,
			      (struct sockaddr *)&qp->av.saddr,
			      !!qp->ibqp.uobject);
	if (IS_ERR(peer))
		return PTR_ERR(peer);
	mroce_peer_lock(peer, b);
	spin_lock(&qp->lock);
	/* swapped under the QP's lock, where mroce_req_kick() reads it */
	old = qp->peer;
	qp->peer = peer;
	qp->sq_base = qp->sq_done;
	qp->rq_base = qp->rq_done;
	qp->state = IB_QPS_RTR;
	stream_attr(qp, &sa);
	mroce_peer_attach(peer, &qp->s, &sa);
	spin_unlock(&qp->lock);
	mroce_peer_unlock(peer);
	if (old)	/* its stream left it at RESET */
		mroce_peer_put(old);
	return 0;
}

/* a state in which the QP's traffic stops */
static bool stops(enum ib_qp_state state)
{
	return state == IB_QPS_RESET || state == IB_QPS_ERR;
}

int mroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct mroce_qp *qp = to_mroce_qp(ibqp);
	enum ib_qp_state cur, new;
	struct mroce_batch b;
	bool last = false;
	int err = 0;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	if (udata && udata->inlen)
		return -EOPNOTSUPP;
	mroce_batch_init(&b);
	mutex_lock(&qp->mutex);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	new = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask)) {
		err = -EINVAL;
		goto out;
	}
	err = check_attr(qp, attr, mask);
	if (err)
		goto out;
	copy_attr(qp, attr, mask);
	/* the offload hears of traffic let flow before, of traffic stopped after */
	if (!stops(new)) {
		err = mroce_ofl_qp_cmd(qp, MROCE_OFL_CMD_QP_MODIFY, new, mask);
		if (err)
			goto out;
	}
	if (!(mask & IB_QP_STATE))
		goto out;

	switch (new) {
	case IB_QPS_RESET:
		mroce_comp_detach(qp, &b);
		spin_lock_bh(&qp->lock);
		qp->state = IB_QPS_RESET;
		reset_queues(qp);
		spin_unlock_bh(&qp->lock);
		qp->last_wqe = false;
		break;
	case IB_QPS_RTR:
		if (cur == IB_QPS_INIT)
			err = to_rtr(qp, &b);
		break;
	case IB_QPS_RTS:
	case IB_QPS_SQD:
		if (qp->peer) {
			struct mre_stream_attr sa;

			mroce_peer_lock(qp->peer, &b);
			spin_lock(&qp->lock);
			stream_attr(qp, &sa);
			qp->s.max_rd = sa.max_rd;
			qp->s.rnr_retry = sa.rnr_retry;
			qp->s.rnr_left = sa.rnr_retry;
			qp->s.rnr_delay = sa.rnr_delay_ns;
			qp->state = new;
			if (new == IB_QPS_RTS)
				mre_stream_kick(&qp->s);
			spin_unlock(&qp->lock);
			mroce_peer_unlock(qp->peer);
		}
		break;
	case IB_QPS_ERR:
		qp->state = IB_QPS_ERR;
		mroce_comp_stop(qp, IB_WC_WR_FLUSH_ERR, &b);
		mre_ring_store(&qp->sq.r.hdr->flags, MRE_RING_F_ERROR);
		last = mroce_comp_last_wqe_due(qp);
		break;
	default:
		break;
	}
	if (!err) {
		spin_lock_bh(&qp->lock);
		qp->state = new;
		qp->attr.qp_state = new;
		if (new == IB_QPS_SQD) {
			qp->sq_drained_event = qp->sq_done != qp->sq_taken;
			qp->attr.sq_draining = qp->sq_drained_event;
		}
		spin_unlock_bh(&qp->lock);
		if (new == IB_QPS_SQD && !qp->sq_drained_event)
			mroce_qp_event(qp, IB_EVENT_SQ_DRAINED);
		if (stops(new))
			mroce_ofl_qp_cmd(qp, MROCE_OFL_CMD_QP_MODIFY, new, mask);
	}
out:
	mutex_unlock(&qp->mutex);
	mroce_batch_flush(&b);
	if (last)
		mroce_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
	mroce_dbg_qp(qp, "%d -> %d mask %#x: %d\n", cur, new, mask, err);
	return err;
}

int mroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct mroce_qp *qp = to_mroce_qp(ibqp);

	mutex_lock(&qp->mutex);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->cap.max_send_wr = qp->sq.r.size;
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_inline_data = qp->max_inline;
	attr->cap.max_recv_wr = qp->srq ? 0 : qp->rq.r.size;
	attr->cap.max_recv_sge = qp->srq ? 0 : qp->max_recv_sge;
	attr->sq_draining = qp->state == IB_QPS_SQD && qp->sq_drained_event;
	mutex_unlock(&qp->mutex);

	memset(init, 0, sizeof(*init));
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->qp_type = ibqp->qp_type;
	init->port_num = 1;
	return 0;
}
