/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * The send opcodes mroce carries, and the rules of each: one table, read by
 * the provider when it builds a WQE and by the kernel when it takes one
 * (kernel/req.c), when a kernel ULP posts one (kernel/post.c) and when it
 * completes one. An opcode that is not in the table, or not allowed for
 * the QP's type, is refused: posting fails (EOPNOTSUPP for an opcode mroce
 * does not know, EINVAL for one the QP type cannot carry), and a WQE the
 * kernel finds in a ring with such an opcode completes with
 * IB_WC_LOC_QP_OP_ERR. Nothing is guessed.
 *
 * Opcodes are the verbs' own (enum ib_uverbs_wr_opcode, which IBV_WR_* and
 * the kernel's IB_WR_* share for these), access rights the verbs' own
 * (IB_UVERBS_ACCESS_*, = IBV_ACCESS_* = IB_ACCESS_*), completion opcodes
 * enum ib_uverbs_wc_opcode (= IBV_WC_* = IB_WC_*); wire_op is the
 * MetaRoCE DATA op of the message (Documentation/protocol.md 4.2).
 */
#ifndef MROCE_WR_H
#define MROCE_WR_H

#include <linux/types.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>

/* mroce_wr_op.qp_types */
#define MROCE_QPT_RC		(1 << 0)
#define MROCE_QPT_UC		(1 << 1)
#define MROCE_QPT_UD		(1 << 2)	/* UD and the GSI QP */

/* the bit of a QP of type @qp_type (IB_UVERBS_QPT_*; the GSI QP's is UD's) */
static inline __u8 mroce_wr_qpt(__u32 qp_type)
{
	switch (qp_type) {
	case IB_UVERBS_QPT_RC:
		return MROCE_QPT_RC;
	case IB_UVERBS_QPT_UC:
		return MROCE_QPT_UC;
	default:
		return MROCE_QPT_UD;
	}
}

/* mroce_wr_op.flags */
#define MROCE_WR_LOCAL		(1 << 0)	/* runs in SQ order here; nothing on the wire */
#define MROCE_WR_RESP		(1 << 1)	/* the responder answers with data (READ, atomics) */
#define MROCE_WR_REMOTE		(1 << 2)	/* names remote memory: remote_addr, rkey */
#define MROCE_WR_IMM		(1 << 3)	/* carries immediate data */
#define MROCE_WR_INV		(1 << 4)	/* carries an rkey to invalidate (in imm_data) */
#define MROCE_WR_INLINE		(1 << 5)	/* its data may be inline */
#define MROCE_WR_USER		(1 << 6)	/* user QPs only: no kernel verb posts it */
#define MROCE_WR_VALUE		(1 << 7)	/* its data is the WQE's compare_add, no SGEs */

/* MetaRoCE DATA ops (protocol.md 4.2) and atomic operations */
#define MROCE_WIRE_SEND		1
#define MROCE_WIRE_WRITE	2
#define MROCE_WIRE_READ_REQ	3
#define MROCE_WIRE_ATOMIC_REQ	5
#define MROCE_WIRE_ATOMIC_WRITE	9
#define MROCE_AOP_CMP_SWP	1
#define MROCE_AOP_FETCH_ADD	2

struct mroce_wr_op {
	__u8 qp_types;		/* MROCE_QPT_*: the QP types that may post it */
	__u8 flags;		/* MROCE_WR_* */
	__u8 wc_opcode;		/* IB_UVERBS_WC_* of its completion */
	__u8 wire_op;		/* MROCE_WIRE_*; 0: a local operation */
	__u8 aop;		/* MROCE_AOP_* of an atomic */
	__u8 remote_access;	/* what the responder's MR must allow */
	__u8 local_access;	/* what the MRs of its SGEs must allow */
	__u8 len;		/* the length its data must have (atomics: 8); 0: any */
};

/*
 * ATOMIC_WRITE: Linux 6.2's IB_UVERBS_WR_ATOMIC_WRITE and
 * IB_UVERBS_WC_ATOMIC_WRITE, rdma-core's IBV_WR_ATOMIC_WRITE and
 * IBV_WC_ATOMIC_WRITE; 6.1's uapi does not name them yet.
 */
#define MROCE_WR_ATOMIC_WRITE	15
#define MROCE_WC_ATOMIC_WRITE	9

#define MROCE_WR_OPS		(MROCE_WR_ATOMIC_WRITE + 1)

static const struct mroce_wr_op mroce_wr_ops[MROCE_WR_OPS] = {
	[IB_UVERBS_WR_RDMA_WRITE] = {
		.qp_types = MROCE_QPT_RC | MROCE_QPT_UC,
		.flags = MROCE_WR_REMOTE | MROCE_WR_INLINE,
		.wc_opcode = IB_UVERBS_WC_RDMA_WRITE,
		.wire_op = MROCE_WIRE_WRITE,
		.remote_access = IB_UVERBS_ACCESS_REMOTE_WRITE,
	},
	[IB_UVERBS_WR_RDMA_WRITE_WITH_IMM] = {
		.qp_types = MROCE_QPT_RC | MROCE_QPT_UC,
		.flags = MROCE_WR_REMOTE | MROCE_WR_INLINE | MROCE_WR_IMM,
		.wc_opcode = IB_UVERBS_WC_RDMA_WRITE,
		.wire_op = MROCE_WIRE_WRITE,
		.remote_access = IB_UVERBS_ACCESS_REMOTE_WRITE,
	},
	[IB_UVERBS_WR_SEND] = {
		.qp_types = MROCE_QPT_RC | MROCE_QPT_UC | MROCE_QPT_UD,
		.flags = MROCE_WR_INLINE,
		.wc_opcode = IB_UVERBS_WC_SEND,
		.wire_op = MROCE_WIRE_SEND,
	},
	[IB_UVERBS_WR_SEND_WITH_IMM] = {
		.qp_types = MROCE_QPT_RC | MROCE_QPT_UC | MROCE_QPT_UD,
		.flags = MROCE_WR_INLINE | MROCE_WR_IMM,
		.wc_opcode = IB_UVERBS_WC_SEND,
		.wire_op = MROCE_WIRE_SEND,
	},
	[IB_UVERBS_WR_SEND_WITH_INV] = {
		.qp_types = MROCE_QPT_RC,
		.flags = MROCE_WR_INLINE | MROCE_WR_INV,
		.wc_opcode = IB_UVERBS_WC_SEND,
		.wire_op = MROCE_WIRE_SEND,
	},
	[IB_UVERBS_WR_RDMA_READ] = {
		.qp_types = MROCE_QPT_RC,
		.flags = MROCE_WR_REMOTE | MROCE_WR_RESP,
		.wc_opcode = IB_UVERBS_WC_RDMA_READ,
		.wire_op = MROCE_WIRE_READ_REQ,
		.remote_access = IB_UVERBS_ACCESS_REMOTE_READ,
		.local_access = IB_UVERBS_ACCESS_LOCAL_WRITE,
	},
	[IB_UVERBS_WR_ATOMIC_CMP_AND_SWP] = {
		.qp_types = MROCE_QPT_RC,
		.flags = MROCE_WR_REMOTE | MROCE_WR_RESP,
		.wc_opcode = IB_UVERBS_WC_COMP_SWAP,
		.wire_op = MROCE_WIRE_ATOMIC_REQ,
		.aop = MROCE_AOP_CMP_SWP,
		.remote_access = IB_UVERBS_ACCESS_REMOTE_ATOMIC,
		.local_access = IB_UVERBS_ACCESS_LOCAL_WRITE,
		.len = 8,
	},
	[IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD] = {
		.qp_types = MROCE_QPT_RC,
		.flags = MROCE_WR_REMOTE | MROCE_WR_RESP,
		.wc_opcode = IB_UVERBS_WC_FETCH_ADD,
		.wire_op = MROCE_WIRE_ATOMIC_REQ,
		.aop = MROCE_AOP_FETCH_ADD,
		.remote_access = IB_UVERBS_ACCESS_REMOTE_ATOMIC,
		.local_access = IB_UVERBS_ACCESS_LOCAL_WRITE,
		.len = 8,
	},
	/*
	 * 8 bytes from the WQE stored at once at the target (an aligned
	 * word; the MR's remote-write right, as rxe asks); answered like an
	 * atomic. No kernel verb of 6.1 posts it.
	 */
	[MROCE_WR_ATOMIC_WRITE] = {
		.qp_types = MROCE_QPT_RC,
		.flags = MROCE_WR_REMOTE | MROCE_WR_RESP | MROCE_WR_USER |
			 MROCE_WR_VALUE,
		.wc_opcode = MROCE_WC_ATOMIC_WRITE,
		.wire_op = MROCE_WIRE_ATOMIC_WRITE,
		.remote_access = IB_UVERBS_ACCESS_REMOTE_WRITE,
		.len = 8,
	},
	[IB_UVERBS_WR_LOCAL_INV] = {
		.qp_types = MROCE_QPT_RC,
		.flags = MROCE_WR_LOCAL | MROCE_WR_INV,
		.wc_opcode = IB_UVERBS_WC_LOCAL_INV,
	},
	[IB_UVERBS_WR_BIND_MW] = {
		.qp_types = MROCE_QPT_RC,
		.flags = MROCE_WR_LOCAL | MROCE_WR_USER,
		.wc_opcode = IB_UVERBS_WC_BIND_MW,
	},
};

/* the rules of @opcode, or NULL when mroce does not carry it at all */
static inline const struct mroce_wr_op *mroce_wr_op(__u32 opcode)
{
	if (opcode >= MROCE_WR_OPS || !mroce_wr_ops[opcode].qp_types)
		return (const struct mroce_wr_op *)0;
	return &mroce_wr_ops[opcode];
}

#endif /* MROCE_WR_H */
