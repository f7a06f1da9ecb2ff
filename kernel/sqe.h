/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Send WQEs taken from the ring: each is copied into the QP's shadow and
 * validated there against the opcode rules (mroce-wr.h's table, and
 * IB_WR_REG_MR for kernel QPs), its lengths and its keys; the shadow's
 * status says how it ends if it is bad. Only the copy is used afterwards
 * (req.c). Callers hold qp->lock.
 */
#ifndef MROCE_SQE_H
#define MROCE_SQE_H

#include <linux/types.h>

struct mroce_qp;
struct mroce_sge;
struct mroce_wr_op;

/*
 * The rules of send opcode @opcode on @qp: mroce-wr.h's table, and for
 * kernel QPs IB_WR_REG_MR (a kernel verb only, outside the table). NULL
 * when @qp cannot post it at all.
 */
const struct mroce_wr_op *mroce_qp_wr_op(const struct mroce_qp *qp,
					 u32 opcode);
/* copy ring entry @idx into its shadow and validate it there */
void mroce_sqe_take(struct mroce_qp *qp, u32 idx);
/* every SGE's key names memory of the QP's PD it may use for @access */
u8 mroce_sqe_keys(struct mroce_qp *qp, const struct mroce_sge *sge, u32 n,
		  int access);

#endif /* MROCE_SQE_H */
