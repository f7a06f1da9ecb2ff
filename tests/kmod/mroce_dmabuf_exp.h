/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * The test dma-buf exporter's ioctls (tests/kmod/mroce_dmabuf_exp.c), for
 * the user test that registers its buffers (mroce-wr-check --dmabuf).
 */
#ifndef MROCE_DMABUF_EXP_H
#define MROCE_DMABUF_EXP_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define MROCE_DMABUF_DEV	"/dev/mroce_dmabuf"

/* the kind of buffer MROCE_DMABUF_CREATE makes (0: O_RDWR, dynamic) */
#define MROCE_DMABUF_F_RDONLY	(1u << 0)	/* the fd is O_RDONLY */
#define MROCE_DMABUF_F_WRONLY	(1u << 1)	/* the fd is O_WRONLY */
#define MROCE_DMABUF_F_STATIC	(1u << 2)	/* a static exporter: no pin/unpin */
#define MROCE_DMABUF_F_NOPIN	(1u << 3)	/* dynamic, but its pin fails (EBUSY) */

struct mroce_dmabuf_create {
	__u64 size;		/* in: bytes, rounded up to pages */
	__s32 fd;		/* out: the dma-buf, O_CLOEXEC */
	__u32 flags;		/* in: MROCE_DMABUF_F_* */
};

/* what the exporter sees of one of its buffers */
struct mroce_dmabuf_state {
	__s32 fd;		/* in: a dma-buf of this exporter */
	__u32 attached;		/* out: attachments (attach not yet detached) */
	__u32 pinned;		/* out: pins (pin not yet unpinned) */
	__u32 vmapped;		/* out: 1 while its kernel mapping is held */
	__u32 pin_calls;	/* out: pins ever asked for, failed ones too */
	__u32 reserved;
};

#define MROCE_DMABUF_CREATE	_IOWR('m', 1, struct mroce_dmabuf_create)
#define MROCE_DMABUF_STATE	_IOWR('m', 2, struct mroce_dmabuf_state)

#endif /* MROCE_DMABUF_EXP_H */
