/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * The test dma-buf exporter's ioctl (tests/kmod/mroce_dmabuf_exp.c), for
 * the user test that registers its buffers (mroce-wr-check --dmabuf).
 */
#ifndef MROCE_DMABUF_EXP_H
#define MROCE_DMABUF_EXP_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define MROCE_DMABUF_DEV	"/dev/mroce_dmabuf"

struct mroce_dmabuf_create {
	__u64 size;		/* in: bytes, rounded up to pages */
	__s32 fd;		/* out: the dma-buf, O_RDWR | O_CLOEXEC */
	__u32 reserved;
};

#define MROCE_DMABUF_CREATE	_IOWR('m', 1, struct mroce_dmabuf_create)

#endif /* MROCE_DMABUF_EXP_H */
