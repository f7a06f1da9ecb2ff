/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * UD and GSI QPs: single-packet datagrams (MetaRoCE type UD), no
 * connection, no acknowledgement. Sent synchronously when posted; received
 * into the next receive (a 40-byte GRH holding the IP header, then the
 * payload), as RoCEv2 lays it out, so ib_mad/ib_cm (QP1) and UD
 * applications see what they expect. A datagram to a multicast group (QPN
 * 0xffffff) goes into every QP attached to it (mcast.h).
 */
#ifndef MROCE_UD_H
#define MROCE_UD_H

#include <rdma/ib_verbs.h>

struct mroce_batch;
struct mroce_dev;
struct mroce_qp;
struct mroce_swqe;
struct mre_pkt;
struct sk_buff;

/* qp->lock held: send @w; returns its completion status */
enum ib_wc_status mroce_ud_send(struct mroce_qp *qp, struct mroce_swqe *w,
				struct mroce_batch *b);
/* a parsed UD datagram for this device (softirq, RCU) */
void mroce_ud_rx(struct mroce_dev *mdev, struct sk_buff *skb,
		 const struct mre_pkt *pkt);

#endif /* MROCE_UD_H */
