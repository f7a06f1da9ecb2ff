/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * PARITY in the kernel (parity.c): the engine's XOR of a WRITE's tail
 * (kernel/engine/parity.c, protocol.md 6.7), its bytes gathered from the
 * sender's SGEs and read back from the receiver's MR.
 */
#ifndef MROCE_PARITY_H
#define MROCE_PARITY_H

#include "engine/engine.h"

struct mroce_qp;

int mroce_parity_init(void);
void mroce_parity_exit(void);

/*
 * A PARITY's payload into @dst (x->pl_len bytes): the bytes of a WQE of
 * @wqe_len from x->pl_offset to its end, folded x->pl_len at a time; @gather reads one
 * piece of the WQE as a DATA packet's payload would be (zeros if it
 * cannot). BHs off (the peer's lock).
 */
void mroce_parity_fold(struct mroce_qp *qp, const struct mre_xmit *x,
		       u32 wqe_len, u8 *dst,
		       void (*gather)(struct mroce_qp *qp,
				      const struct mre_xmit *x, u8 *dst));

/* mre_ops.parity: the missing packet's bytes, read back from our MR */
const u8 *mroce_parity_rebuild(struct mre_stream *s,
			       const struct mre_rebuild *rb, const u8 *parity);

#endif /* MROCE_PARITY_H */
