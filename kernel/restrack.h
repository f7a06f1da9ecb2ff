/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `rdma res show qp -dd`: mroce's driver attributes of a QP (restrack.c).
 */
#ifndef MROCE_RESTRACK_H
#define MROCE_RESTRACK_H

struct ib_qp;
struct sk_buff;

/* ib_device_ops.fill_res_qp_entry: the stream and its connection */
int mroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);

#endif /* MROCE_RESTRACK_H */
