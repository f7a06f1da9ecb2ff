/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `rdma res show qp|cq|mr -dd`: mroce's driver attributes (restrack.c).
 */
#ifndef MROCE_RESTRACK_H
#define MROCE_RESTRACK_H

struct ib_cq;
struct ib_mr;
struct ib_qp;
struct sk_buff;

/* ib_device_ops.fill_res_qp_entry: the stream and its connection */
int mroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
/* ib_device_ops.fill_res_cq_entry: the ring's fill, arming, overflow */
int mroce_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
/* ib_device_ops.fill_res_mr_entry: kind, iova, rights, pages */
int mroce_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);

#endif /* MROCE_RESTRACK_H */
