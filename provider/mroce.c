// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma-core (libibverbs PABI 34) provider for mroce devices.
 *
 * libibverbs offers every rdma device no other provider took to every
 * provider; we claim a device only if it has the mroce driver's own sysfs
 * attribute (/sys/class/infiniband/NAME/mroce_abi) with our ABI version.
 * The device name is the user's choice (`rdma link add NAME ...`) and says
 * nothing; names starting with "rxe" belong to librxe.
 *
 * The kernel driver reports RDMA_DRIVER_UNKNOWN (6.1 has no id for mroce),
 * and the context must be created with the same id or the kernel rejects
 * every ioctl.
 *
 * Ops left NULL in mroce_ctx_ops keep libibverbs' defaults, which fail with
 * EOPNOTSUPP (errno or return value): memory windows, XRC, flows, device
 * memory, ... (resize_cq too, with a kernel that lacks MROCE_CAP_RESIZE_CQ).
 * The objects are in verbs.c (the extended QP's and CQ's creation too), the
 * fast path in post.c (with the ibv_wr_* and ibv_cq_ex polling ops).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/ib_user_ioctl_verbs.h>

#include "mroce.h"

static int mroce_query_device_ex(struct ibv_context *ibctx,
				 const struct ibv_query_device_ex_input *input,
				 struct ibv_device_attr_ex *attr,
				 size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);

	return ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
					&resp_size);
}

static int mroce_query_port(struct ibv_context *ibctx, uint8_t port,
			    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(ibctx, port, attr, &cmd, sizeof(cmd));
}

static struct ibv_pd *mroce_alloc_pd(struct ibv_context *ibctx)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct mroce_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_alloc_pd(ibctx, &pd->ibv_pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}
	return &pd->ibv_pd;
}

static int mroce_dealloc_pd(struct ibv_pd *ibpd)
{
	int err;

	err = ibv_cmd_dealloc_pd(ibpd);
	if (err)
		return err;

	free(to_mroce_pd(ibpd));
	return 0;
}

static void mroce_free_context(struct ibv_context *ibctx)
{
	struct mroce_context *ctx = to_mroce_ctx(ibctx);

	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

static const struct verbs_context_ops mroce_ctx_ops = {
	.alloc_mw = mroce_alloc_mw,
	.alloc_pd = mroce_alloc_pd,
	.bind_mw = mroce_bind_mw,
	/* multicast: the kernel keeps the groups, the provider has no state */
	.attach_mcast = ibv_cmd_attach_mcast,
	.create_ah = mroce_create_ah,
	.create_cq = mroce_create_cq,
	.create_cq_ex = mroce_create_cq_ex,
	.create_qp = mroce_create_qp,
	.create_qp_ex = mroce_create_qp_ex,
	.create_srq = mroce_create_srq,
	.dealloc_mw = mroce_dealloc_mw,
	.dealloc_pd = mroce_dealloc_pd,
	.dereg_mr = mroce_dereg_mr,
	.destroy_ah = mroce_destroy_ah,
	.destroy_cq = mroce_destroy_cq,
	.destroy_qp = mroce_destroy_qp,
	.destroy_srq = mroce_destroy_srq,
	.detach_mcast = ibv_cmd_detach_mcast,
	.free_context = mroce_free_context,
	.modify_qp = mroce_modify_qp,
	.modify_srq = mroce_modify_srq,
	.poll_cq = mroce_poll_cq,
	.post_recv = mroce_post_recv,
	.post_send = mroce_post_send,
	.post_srq_recv = mroce_post_srq_recv,
	.query_device_ex = mroce_query_device_ex,
	.query_port = mroce_query_port,
	.query_qp = mroce_query_qp,
	.query_srq = mroce_query_srq,
	.reg_dmabuf_mr = mroce_reg_dmabuf_mr,
	.reg_mr = mroce_reg_mr,
	.req_notify_cq = mroce_req_notify_cq,
	.rereg_mr = mroce_rereg_mr,
};

/* what a kernel with MROCE_CAP_RESIZE_CQ adds */
static const struct verbs_context_ops mroce_resize_ops = {
	.resize_cq = mroce_resize_cq,
};

static struct verbs_context *mroce_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd,
						 void *private_data)
{
	struct mroce_get_context_resp resp = {};
	struct ibv_get_context cmd = {};
	struct mroce_context *ctx;
	int err;

	ctx = pabi34_init_and_alloc_context(ibdev, cmd_fd, ctx, vctx,
					    RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	err = ibv_cmd_get_context(&ctx->vctx, &cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (err) {
		mroce_err(&ctx->vctx, "GET_CONTEXT failed: %s\n",
			  strerror(err));
		goto err_uninit;
	}

	/* refuse a kernel we cannot talk to, before anyone tries */
	if (resp.drv.abi_version != MROCE_ABI_VERSION ||
	    !(resp.drv.caps & MROCE_CAP_BASIC) ||
	    !(resp.drv.caps & MROCE_CAP_DATAPATH)) {
		mroce_err(&ctx->vctx, "kernel ABI %u caps %#x, need ABI %u\n",
			  resp.drv.abi_version, resp.drv.caps,
			  MROCE_ABI_VERSION);
		err = EOPNOTSUPP;
		goto err_uninit;
	}
	ctx->caps = resp.drv.caps;

	verbs_set_ops(&ctx->vctx, &mroce_ctx_ops);
	if (ctx->caps & MROCE_CAP_RESIZE_CQ)
		verbs_set_ops(&ctx->vctx, &mroce_resize_ops);
	return &ctx->vctx;

err_uninit:
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	errno = err;
	return NULL;
}

/* the device carries the mroce driver's sysfs attribute with our ABI */
static bool mroce_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	char buf[16];
	char *end;
	unsigned long abi;

	if (ibv_read_ibdev_sysfs_file(buf, sizeof(buf), sysfs_dev, "%s",
				      MROCE_SYSFS_ABI_ATTR) <= 0)
		return false;

	abi = strtoul(buf, &end, 10);
	return end != buf && abi == MROCE_ABI_VERSION;
}

static struct verbs_device *mroce_alloc_device(struct verbs_sysfs_dev *sysfs)
{
	struct mroce_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	return &dev->vdev;
}

static void mroce_uninit_device(struct verbs_device *vdev)
{
	free(to_mroce_dev(&vdev->device));
}

static const struct verbs_device_ops mroce_dev_ops = {
	.name = "mroce",
	.match_min_abi_version = MROCE_ABI_VERSION,
	.match_max_abi_version = MROCE_ABI_VERSION,
	.match_device = mroce_match_device,
	.alloc_device = mroce_alloc_device,
	.uninit_device = mroce_uninit_device,
	.alloc_context = mroce_alloc_context,
};

PABI34_PROVIDER_DRIVER(mroce, mroce_dev_ops);
