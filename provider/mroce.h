/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdma-core provider for mroce devices: objects and helpers.
 */
#ifndef MROCE_PROVIDER_H
#define MROCE_PROVIDER_H

#include <stdint.h>
#include <rdma/mroce-abi.h>

#include "pabi34.h"

struct mroce_device {
	struct verbs_device vdev;	/* first: libibverbs frees through it */
};

struct mroce_context {
	struct verbs_context vctx;	/* first */
	uint32_t caps;			/* enum mroce_ucontext_caps from the kernel */
};

struct mroce_pd {
	struct ibv_pd ibv_pd;
};

/* GET_CONTEXT response: core part, then ours (DECLARE_DRV_CMD's layout) */
struct mroce_get_context_resp {
	struct ib_uverbs_get_context_resp ibv_resp;
	struct mroce_alloc_ucontext_resp drv;
};

#define mroce_err(ctx, fmt, ...)					\
	__verbs_log(ctx, VERBS_LOG_ERR, "mroce: %s: %s: " fmt,		\
		    (ctx)->context.device->name, __func__, ##__VA_ARGS__)

static inline struct mroce_device *to_mroce_dev(struct ibv_device *ibdev)
{
	return (struct mroce_device *)ibdev;	/* vdev.device is first */
}

static inline struct mroce_context *to_mroce_ctx(struct ibv_context *ibctx)
{
	return (struct mroce_context *)((char *)ibctx -
		offsetof(struct mroce_context, vctx.context));
}

static inline struct mroce_pd *to_mroce_pd(struct ibv_pd *ibpd)
{
	return (struct mroce_pd *)ibpd;		/* ibv_pd is first */
}

#endif /* MROCE_PROVIDER_H */
