/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * mroce kernel <-> rdma-core provider ABI.
 *
 * Shared by kernel/ (built with -Iinclude/uapi) and provider/. Every struct
 * has explicit padding and 64-bit fields are __aligned_u64, so i386 and
 * x86_64 userspace see the same layout. MROCE_ABI_VERSION is the
 * ib_device_ops.uverbs_abi_ver the kernel reports in
 * /sys/class/infiniband_verbs/uverbsN/abi_version, the value of the driver's
 * own sysfs attribute /sys/class/infiniband/NAME/mroce_abi (which the
 * provider matches devices on), and the version the provider accepts. Bump it
 * on any incompatible change to this file.
 */
#ifndef MROCE_ABI_USER_H
#define MROCE_ABI_USER_H

#include <linux/types.h>

#define MROCE_ABI_VERSION	1

/* name of the driver-owned sysfs attribute of every mroce ib_device */
#define MROCE_SYSFS_ABI_ATTR	"mroce_abi"

/* mroce_alloc_ucontext_resp.caps: what this kernel's datapath offers */
enum mroce_ucontext_caps {
	/* device/port queries and PDs */
	MROCE_CAP_BASIC		= 1 << 0,
	/* QPs, CQs, SRQs, MRs, AHs through the mmap'd rings below */
	MROCE_CAP_DATAPATH	= 1 << 1,
	/* IB_USER_VERBS_CMD_RESIZE_CQ, answered with mroce_resize_cq_resp */
	MROCE_CAP_RESIZE_CQ	= 1 << 2,
};

/* response to IB_USER_VERBS_CMD_GET_CONTEXT (driver part) */
struct mroce_alloc_ucontext_resp {
	__u32 abi_version;	/* MROCE_ABI_VERSION of the kernel */
	__u32 caps;		/* enum mroce_ucontext_caps */
	__aligned_u64 reserved;	/* zero; room for a later field */
};

/*
 * ---- Datapath: queues shared through mmap --------------------------------
 *
 * Every SQ, RQ, SRQ and CQ is one ring (kernel/engine/ring.h: a 128-byte
 * header with the producer and consumer indices, then 2^n entries of a
 * fixed stride). The create responses below give each ring's mmap offset
 * and length (mmap on the verbs command fd), its number of entries and its
 * stride. Entries use the layouts below; the kernel copies and validates a
 * WQE before using it and never reads it again afterwards, so a provider
 * (or a malicious process) that rewrites a posted WQE changes nothing.
 *
 * Opcodes and flags are the verbs' own values: struct mroce_sqe.opcode is an
 * enum ib_uverbs_wr_opcode (IBV_WR_*), send_flags are IBV_SEND_*, a CQE's
 * opcode is an enum ib_uverbs_wc_opcode (IBV_WC_*), status an enum
 * ibv_wc_status, wc_flags IBV_WC_* flags (enum mroce_cqe_flags: where
 * libibverbs and the kernel's IB_WC_* differ, the CQE has libibverbs').
 */

/* one scatter/gather element: a virtual address in an MR of the QP's PD */
struct mroce_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/*
 * Send queue entry. The stride is a power of two of at least
 * sizeof(struct mroce_sqe) + max(max_send_sge * 16, max_inline_data);
 * the SGEs, or with IBV_SEND_INLINE the inline data (length bytes), follow
 * the fixed part.
 *
 * Memory windows (RC only; no SGEs): IBV_WR_BIND_MW binds the MW whose
 * current rkey is bind_mw_rkey (only its index, rkey >> 8, is used) to
 * [remote_addr, remote_addr + compare_add) of the MR bind_lkey (0 and a
 * zero length: unbind a type 1 MW) with the IBV_ACCESS_* bind_access; rkey
 * is its new rkey (same index, new low byte). IBV_WR_LOCAL_INV and
 * IBV_WR_SEND_WITH_INV carry the rkey to invalidate in imm_data, in host
 * order (ibv_send_wr's invalidate_rkey shares imm_data's place).
 */
struct mroce_sqe {
	__aligned_u64 wr_id;
	__u32 opcode;		/* IBV_WR_* */
	__u32 send_flags;	/* IBV_SEND_* */
	__u32 num_sge;
	__u32 imm_data;		/* big-endian, as in ibv_send_wr */
	__aligned_u64 remote_addr;
	__u32 rkey;
	__u32 length;		/* inline: bytes of inline data */
	__aligned_u64 compare_add;
	__aligned_u64 swap;
	union {
		struct {
			__u32 ah;	/* UD: mroce_create_ah_resp.ah_id */
			__u32 remote_qpn;	/* UD */
			__u32 remote_qkey;	/* UD */
		};
		struct {
			__u32 bind_lkey;	/* BIND_MW: the MR */
			__u32 bind_access;	/* BIND_MW: IBV_ACCESS_* */
			__u32 bind_mw_rkey;	/* BIND_MW: names the MW */
		};
	};
	__u32 reserved;
	struct mroce_sge sge[];
};

/* receive queue entry (RQ and SRQ); SGEs follow */
struct mroce_rqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
	struct mroce_sge sge[];
};

/* completion queue entry (stride 64) */
struct mroce_cqe {
	__aligned_u64 wr_id;
	__u32 status;		/* IBV_WC_SUCCESS, ... */
	__u32 opcode;		/* IBV_WC_SEND, ..., IBV_WC_RECV */
	__u32 vendor_err;
	__u32 byte_len;
	__u32 imm_data;		/* big-endian */
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags;		/* IBV_WC_GRH, IBV_WC_WITH_IMM */
	__u16 pkey_index;
	__u16 slid;
	__u8 sl;		/* UD receive: MROCE_SL_ROCEV2_* */
	__u8 dlid_path_bits;
	__u8 port_num;
	__u8 network_hdr_type;	/* UD with GRH: RDMA_NETWORK_IPV4/IPV6 */
	__u32 reserved[4];
};

/*
 * The sl of a UD receive's completion is the packet's RoCE type, as mlx5
 * reports it (no VLAN priority): bit 3 set for RoCE v2 (UDP), bits 2:0 the
 * network header, 2 for IPv4 and 1 for IPv6. UCX 1.13's ud_verbs takes
 * where to find the destination address in the GRH from it.
 */
#define MROCE_SL_ROCEV2_IPV4	0xa
#define MROCE_SL_ROCEV2_IPV6	0x9

#define MROCE_CQE_STRIDE	64

/*
 * mroce_cqe.wc_flags (libibverbs' values). With MROCE_WC_WITH_INV, imm_data
 * is the invalidated rkey, in host order.
 */
enum mroce_cqe_flags {
	MROCE_WC_GRH		= 1 << 0,	/* IBV_WC_GRH */
	MROCE_WC_WITH_IMM	= 1 << 1,	/* IBV_WC_WITH_IMM */
	MROCE_WC_WITH_INV	= 1 << 3,	/* IBV_WC_WITH_INV */
};

/* driver part of the create CQ response */
struct mroce_create_cq_resp {
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_len;
	__u32 size;		/* entries (>= the cqe asked for) */
	__u32 stride;		/* MROCE_CQE_STRIDE */
};

/*
 * Driver part of the resize CQ response: the CQ's new ring. The kernel
 * copied the CQEs not yet polled (consumer index to producer index of the
 * old ring, read when it switched) to the new ring's slots 0..n-1 and set
 * its producer index to n and its consumer index to 0; from then on it
 * fills the new ring only. The old ring's mapping stays valid until the
 * provider unmaps it, but the kernel no longer writes to it. The provider
 * must not poll the CQ while the command runs (or it would take CQEs that
 * were copied too), then maps the new ring and unmaps the old one.
 */
struct mroce_resize_cq_resp {
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_len;
	__u32 size;		/* entries (>= the cqe asked for) */
	__u32 stride;		/* MROCE_CQE_STRIDE */
};

/* driver part of the create QP response */
struct mroce_create_qp_resp {
	__aligned_u64 sq_mmap_offset;
	__aligned_u64 sq_mmap_len;
	__aligned_u64 rq_mmap_offset;	/* 0/0 when the QP uses an SRQ */
	__aligned_u64 rq_mmap_len;
	__u32 sq_size;
	__u32 sq_stride;
	__u32 rq_size;
	__u32 rq_stride;
	__u32 max_inline;
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 reserved;
};

/* driver part of the create SRQ response */
struct mroce_create_srq_resp {
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_len;
	__u32 size;
	__u32 stride;
	__u32 max_sge;
	__u32 reserved;
};

/* driver part of the create AH response */
struct mroce_create_ah_resp {
	__u32 ah_id;		/* put it in mroce_sqe.ah */
	__u32 reserved;
};

#endif /* MROCE_ABI_USER_H */
