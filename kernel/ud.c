// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * UD and GSI datagrams (see ud.h).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <rdma/ib_verbs.h>
#include <rdma/mroce-abi.h>

#include "ah.h"
#include "batch.h"
#include "cq.h"
#include "mcast.h"
#include "net.h"
#include "qp.h"
#include "resp.h"
#include "ud.h"
#include "mroce.h"

#define GRH_LEN 40

enum ib_wc_status mroce_ud_send(struct mroce_qp *qp, struct mroce_swqe *w,
				struct mroce_batch *b)
{
	struct mroce_dev *mdev = to_mroce_dev(qp->ibqp.device);
	struct sockaddr_storage saddr, daddr;
	struct sk_buff *skb;
	int oif;
	u8 fl = 0;
	u32 qkey;
	u8 *p;

	if (!mroce_ah_addrs(mdev, w->ah, qp->ibqp.pd, &saddr, &daddr))
		return IB_WC_LOC_QP_OP_ERR;
	skb = mroce_net_alloc(MRE_UD_LEN + w->length);
	if (!skb) {
		mroce_counter_inc(mdev, MROCE_CNT_TX_DROP_NOMEM);
		return IB_WC_SUCCESS;		/* unreliable: a loss */
	}
	if (w->opcode == IB_WR_SEND_WITH_IMM)
		fl |= MRE_DF_IMM;
	if (w->flags & IB_SEND_SOLICITED)
		fl |= MRE_DF_SOLICIT;
	/* a Q_Key with its high bit set means "use the QP's own" */
	qkey = w->qkey & 0x80000000 ? qp->attr.qkey : w->qkey;
	p = skb_put(skb, MRE_UD_LEN + w->length);
	mre_ud_build(p, w->remote_qpn, qp->ibqp.qp_num, qkey,
		     (__force u32)w->imm, fl, w->length, mroce_clock_ns());
	if (w->flags & IB_SEND_INLINE)
		memcpy(p + MRE_UD_LEN, w->inl, w->length);
	else if (mroce_sge_copy(qp, w->sge, w->num_sge, 0, p + MRE_UD_LEN,
				w->length, false)) {
		kfree_skb(skb);
		return IB_WC_LOC_PROT_ERR;
	}
	mroce_counter_inc(mdev, MROCE_CNT_TX_PACKETS);
	/* a group is joined on the device's netdev: send it there */
	oif = mroce_addr_is_mcast(&daddr) ? mdev->ndev->ifindex : 0;
	mroce_net_queue(mdev, skb, &saddr, &daddr, qp->ud_sport, NULL, oif, b);
	return IB_WC_SUCCESS;
}

/* the 40 bytes RoCEv2 puts in front of a UD payload: the IP header */
static void make_grh(const struct sk_buff *skb, u8 *grh, u8 *net_type)
{
	memset(grh, 0, GRH_LEN);
	if (ip_hdr(skb)->version == 4) {
		memcpy(grh + 20, ip_hdr(skb), sizeof(struct iphdr));
		*net_type = RDMA_NETWORK_IPV4;
	} else {
		memcpy(grh, ipv6_hdr(skb), sizeof(struct ipv6hdr));
		*net_type = RDMA_NETWORK_IPV6;
	}
}

/* what every QP a datagram is for needs of it */
struct ud_rx {
	struct mroce_dev *mdev;
	const struct mre_pkt_ud *u;
	const u8 *payload;
	u8 grh[GRH_LEN];
	u8 nt;
};

/* the datagram into @qp's next receive, or dropped (RCU read side) */
static void ud_deliver(struct mroce_qp *qp, void *ctx)
{
	struct ud_rx *x = ctx;
	const struct mre_pkt_ud *u = x->u;
	struct mroce_cqe cqe = { .opcode = IB_WC_RECV };
	enum mroce_counter why;
	struct mroce_rwqe *r;
	struct mroce_batch b;

	if ((qp->ibqp.qp_type != IB_QPT_UD &&
	     qp->ibqp.qp_type != IB_QPT_GSI) || u->qkey != qp->attr.qkey) {
		mroce_counter_inc(x->mdev, MROCE_CNT_UD_DROP_QKEY);
		return;
	}
	mroce_batch_init(&b);
	spin_lock(&qp->lock);
	if (qp->state != IB_QPS_RTR && qp->state != IB_QPS_RTS) {
		why = MROCE_CNT_UD_DROP_STATE;
		goto drop;
	}
	r = mroce_rq_next(qp, &b);
	if (!r) {
		why = MROCE_CNT_UD_DROP_NO_RECV;	/* lost */
		goto drop;
	}
	cqe.byte_len = GRH_LEN + u->plen;
	cqe.src_qp = u->src_qpn;
	cqe.wc_flags = IB_WC_GRH;
	cqe.network_hdr_type = x->nt;
	cqe.sl = x->nt == RDMA_NETWORK_IPV4 ? MROCE_SL_ROCEV2_IPV4 :
					      MROCE_SL_ROCEV2_IPV6;
	if (u->udflags & MRE_DF_IMM) {
		cqe.imm_data = u->imm;
		cqe.wc_flags |= IB_WC_WITH_IMM;
	}
	if (cqe.byte_len > r->length)
		cqe.status = IB_WC_LOC_LEN_ERR;
	else if (mroce_sge_copy(qp, r->sge, r->num_sge, 0, x->grh, GRH_LEN,
				true) ||
		 mroce_sge_copy(qp, r->sge, r->num_sge, GRH_LEN,
				(void *)x->payload, u->plen, true))
		cqe.status = IB_WC_LOC_PROT_ERR;
	mroce_rq_done(qp, r, &cqe, u->udflags & MRE_DF_SOLICIT, &b);
	spin_unlock(&qp->lock);
	mroce_batch_flush(&b);
	return;
drop:
	spin_unlock(&qp->lock);
	mroce_counter_inc(x->mdev, why);
}

/*
 * A datagram for QP 0xffffff (IB_MULTICAST_QPN) goes to every QP attached
 * to the group it was sent to; the multicast QPN with any other
 * destination, and a multicast destination with any other QPN, are
 * dropped.
 */
void mroce_ud_rx(struct mroce_dev *mdev, struct sk_buff *skb,
		 const struct mre_pkt *pkt)
{
	struct ud_rx x = { .mdev = mdev, .u = &pkt->ud,
			   .payload = pkt->payload };
	bool mcast_qpn = pkt->ud.dst_qpn == IB_MULTICAST_QPN;
	struct sockaddr_storage dst;
	struct mroce_qp *qp;

	mroce_net_dst(skb, &dst);
	if (mcast_qpn != mroce_addr_is_mcast(&dst)) {
		mroce_counter_inc(mdev, MROCE_CNT_UD_DROP_DST);
		return;
	}
	make_grh(skb, x.grh, &x.nt);
	if (mcast_qpn) {
		if (!mroce_mcast_rx(mdev, &dst, ud_deliver, &x))
			mroce_counter_inc(mdev, MROCE_CNT_UD_DROP_NO_QP);
		return;
	}
	qp = mroce_qp_lookup(mdev, pkt->ud.dst_qpn);
	if (!qp) {
		mroce_counter_inc(mdev, MROCE_CNT_UD_DROP_NO_QP);
		return;
	}
	ud_deliver(qp, &x);
}
