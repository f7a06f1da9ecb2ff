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
	/* only device/port queries and PDs: no QPs, CQs or MRs yet */
	MROCE_CAP_BASIC		= 1 << 0,
};

/* response to IB_USER_VERBS_CMD_GET_CONTEXT (driver part) */
struct mroce_alloc_ucontext_resp {
	__u32 abi_version;	/* MROCE_ABI_VERSION of the kernel */
	__u32 caps;		/* enum mroce_ucontext_caps */
	__aligned_u64 reserved;	/* zero; room for a later field */
};

#endif /* MROCE_ABI_USER_H */
