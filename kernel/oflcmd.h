/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Object commands (include/mroce/offload.h, MROCE_OFL_OBJECTS): each verbs
 * object described to the device's offload. All in process context; each
 * returns 0 without an offload that takes the commands, else its answer.
 * Where each verb issues them: Documentation/offload.rst, "Object
 * commands".
 */
#ifndef MROCE_OFLCMD_H
#define MROCE_OFLCMD_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

struct device;
struct mroce_ah;
struct mroce_cq;
struct mroce_dev;
struct mroce_mr;
struct mroce_mw;
struct mroce_ofl_cmd;
struct mroce_qp;
struct mroce_queue;
struct mroce_srq;

/*
 * Pages an object hands the NIC (a ring, a user MR's), as it reaches them:
 * mapped for the offload's DMA device @dev (physical addresses without
 * one) by the command that hands them, kept until the object's owner
 * calls mroce_ofl_unmap() after the command that takes them back.
 */
struct mroce_ofl_map {
	u64 *addr;
	u32 n;
	struct device *dev;
};

/* @m unmapped and freed (nothing if it holds nothing); process context */
void mroce_ofl_unmap(struct mroce_ofl_map *m);

int mroce_ofl_cmd(struct mroce_dev *mdev, struct mroce_ofl_cmd *c);
/* @q: the CQ's ring (CREATE, RESIZE: the new one), NULL for DESTROY */
int mroce_ofl_cq_cmd(struct mroce_cq *cq, u8 op, struct mroce_queue *q,
		     u32 vector);
int mroce_ofl_srq_cmd(struct mroce_srq *srq, u8 op);
/* @pd: the MR's (the core sets ibmr.pd only after a registration) */
int mroce_ofl_mr_cmd(struct mroce_mr *mr, struct ib_pd *pd, u8 op, u16 flags);
int mroce_ofl_mw_cmd(struct mroce_mw *mw, u8 op);
/* any context, IRQs maybe off: @sleepable false flags it ATOMIC */
int mroce_ofl_ah_cmd(struct mroce_ah *ah, u8 op, bool sleepable);
/* @state: the QP's after the command; @mask: the attributes it set */
int mroce_ofl_qp_cmd(struct mroce_qp *qp, u8 op, enum ib_qp_state state,
		     int mask);

/*
 * Doorbells (MROCE_OFL_DB_*), any context: callers test mroce_ofl_in_use
 * (offload.h) first, so that the software datapath pays no call.
 */
void mroce_ofl_sq_doorbell(struct mroce_qp *qp);
void mroce_ofl_cq_arm(struct mroce_cq *cq, u32 flags);

#endif /* MROCE_OFLCMD_H */
