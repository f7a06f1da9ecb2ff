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
#include "net.h"
#include "qp.h"
#include "ud.h"
#include "mroce.h"

#define GRH_LEN 40

enum ib_wc_status mroce_ud_send(struct mroce_qp *qp, struct mroce_swqe *w,
				struct mroce_batch *b)
{
	struct mroce_dev *mdev = to_mroce_dev(qp->ibqp.device);
	struct sockaddr_storage saddr, daddr;
	struct sk_buff *skb;
	u8 fl = 0;
	u32 qkey;
	u8 *p;

	if (!mroce_ah_addrs(mdev, w->ah, qp->ibqp.pd, &saddr, &daddr))
		return IB_WC_LOC_QP_OP_ERR;
	skb = mroce_net_alloc(MRE_UD_LEN + w->length);
	if (!skb) {
		mroce_counter_inc(mdev, MROCE_CNT_TX_DROPS);
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
		     (__force u32)w->imm, fl, w->length, ktime_get_ns());
	if (w->flags & IB_SEND_INLINE)
		memcpy(p + MRE_UD_LEN, w->inl, w->length);
	else if (mroce_sge_copy(qp, w->sge, w->num_sge, 0, p + MRE_UD_LEN,
				w->length, false)) {
		kfree_skb(skb);
		return IB_WC_LOC_PROT_ERR;
	}
	mroce_counter_inc(mdev, MROCE_CNT_TX_PACKETS);
	mroce_net_queue(mdev, skb, &saddr, &daddr, qp->ud_sport, NULL, 0, b);
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

void mroce_ud_rx(struct mroce_dev *mdev, struct sk_buff *skb,
		 const struct mre_pkt *pkt)
{
	const struct mre_pkt_ud *u = &pkt->ud;
	struct mroce_cqe cqe = { .opcode = IB_WC_RECV };
	struct mroce_qp *qp = mroce_qp_lookup(mdev, u->dst_qpn);
	struct mroce_rwqe *r;
	struct mroce_batch b;
	u8 grh[GRH_LEN], nt;

	mdev->ep.ctr.rx_ud++;
	if (!qp || (qp->ibqp.qp_type != IB_QPT_UD &&
		    qp->ibqp.qp_type != IB_QPT_GSI) ||
	    u->qkey != qp->attr.qkey) {
		mroce_counter_inc(mdev, MROCE_CNT_RX_DROPS);
		return;
	}
	make_grh(skb, grh, &nt);
	mroce_batch_init(&b);
	spin_lock(&qp->lock);
	if (qp->state != IB_QPS_RTR && qp->state != IB_QPS_RTS)
		goto drop;
	r = mroce_qp_rq_next(qp, &b);
	if (!r)
		goto drop;			/* no receive posted: lost */
	cqe.byte_len = GRH_LEN + u->plen;
	cqe.src_qp = u->src_qpn;
	cqe.wc_flags = IB_WC_GRH;
	cqe.network_hdr_type = nt;
	if (u->udflags & MRE_DF_IMM) {
		cqe.imm_data = u->imm;
		cqe.wc_flags |= IB_WC_WITH_IMM;
	}
	if (cqe.byte_len > r->length)
		cqe.status = IB_WC_LOC_LEN_ERR;
	else if (mroce_sge_copy(qp, r->sge, r->num_sge, 0, grh, GRH_LEN, true) ||
		 mroce_sge_copy(qp, r->sge, r->num_sge, GRH_LEN,
				(void *)pkt->payload, u->plen, true))
		cqe.status = IB_WC_LOC_PROT_ERR;
	mroce_qp_recv_done(qp, r, &cqe, u->udflags & MRE_DF_SOLICIT, &b);
	spin_unlock(&qp->lock);
	mroce_batch_flush(&b);
	return;
drop:
	spin_unlock(&qp->lock);
	mroce_counter_inc(mdev, MROCE_CNT_RX_DROPS);
}
