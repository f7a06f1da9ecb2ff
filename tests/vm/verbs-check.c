// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest-side verbs check of one mroce device, through libibverbs and our
 * provider (built on the host by `make`, run in the guest by foundation.sh).
 *
 *	mroce-verbs-check DEVICE [EXPECTED_PORT_STATE]
 *
 * Checks: the device is listed and opened by the "mroce" provider (not
 * another one), vendor id and node GUID are non-zero, port 1 is Ethernet
 * (and in EXPECTED_PORT_STATE, e.g. ACTIVE or DOWN, if given), a PD can be
 * allocated and freed, mmap() of the command fd is refused, a CQ and an MR
 * are created and destroyed, memory windows of types 1 and 2 are allocated
 * and freed and a type that does not exist (3) is refused with EINVAL (not
 * EOPNOTSUPP: test suites expect the error, rather than skip).
 * Prints "ok"/"not ok" per check, then "N passed, N failed"; exit 1 on any
 * failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>

#include "tap.h"

#include "../../provider/pabi34.h"

static struct ibv_device *find_dev(struct ibv_device **list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(ibv_get_device_name(*list), name))
			return *list;
	return NULL;
}

static void check_objects(struct ibv_context *ctx, struct ibv_pd *pd)
{
	static char buf[4096];
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_mw *mw;

	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	check(cq && cq->cqe >= 16, "ibv_create_cq (16 entries or more)");
	if (cq)
		check(!ibv_destroy_cq(cq), "ibv_destroy_cq");

	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	check(mr && mr->rkey && mr->length == sizeof(buf), "ibv_reg_mr");
	if (mr)
		check(!ibv_dereg_mr(mr), "ibv_dereg_mr");

	/* remote write without local write is invalid (IB spec 10.6.3.1) */
	errno = 0;
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_REMOTE_WRITE);
	check(!mr && errno == EINVAL, "ibv_reg_mr: REMOTE_WRITE alone is EINVAL");
	if (mr)
		ibv_dereg_mr(mr);

	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_MW_BIND);
	check(mr != NULL, "ibv_reg_mr with IBV_ACCESS_MW_BIND");
	if (mr)
		check(!ibv_dereg_mr(mr), "ibv_dereg_mr (MW_BIND)");

	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	check(mw && mw->rkey && mw->type == IBV_MW_TYPE_1,
	      "ibv_alloc_mw type 1");
	if (mw)
		check(!ibv_dealloc_mw(mw), "ibv_dealloc_mw type 1");
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	check(mw && mw->rkey && mw->type == IBV_MW_TYPE_2,
	      "ibv_alloc_mw type 2");
	if (mw)
		check(!ibv_dealloc_mw(mw), "ibv_dealloc_mw type 2");

	errno = 0;
	mw = ibv_alloc_mw(pd, (enum ibv_mw_type)3);
	check(!mw && errno == EINVAL, "ibv_alloc_mw type 3 fails with EINVAL");
	if (mw)
		ibv_dealloc_mw(mw);
}

static void check_port(struct ibv_context *ctx, const char *want_state)
{
	struct ibv_port_attr port;
	union ibv_gid gid;
	int i, ngids = 0;

	check(!ibv_query_port(ctx, 1, &port), "ibv_query_port");
	check(port.link_layer == IBV_LINK_LAYER_ETHERNET,
	      "link layer Ethernet");
	printf("# port state %s, active_mtu %d, gid_tbl_len %d\n",
	       ibv_port_state_str(port.state), 128 << port.active_mtu,
	       port.gid_tbl_len);
	if (want_state)
		check(port.state == (!strcmp(want_state, "ACTIVE") ?
				     IBV_PORT_ACTIVE : IBV_PORT_DOWN),
		      "port state as expected");
	for (i = 0; i < port.gid_tbl_len && i < 16; i++) {
		static const union ibv_gid zero;

		if (ibv_query_gid(ctx, 1, i, &gid) || !memcmp(&gid, &zero, sizeof(gid)))
			continue;
		ngids++;
	}
	printf("# %d non-zero GIDs in the first 16 entries\n", ngids);
}

int main(int argc, char **argv)
{
	struct ibv_device_attr_ex attr = {};
	struct verbs_device *vdev;
	struct ibv_device **list;
	struct ibv_device *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	void *map;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DEVICE [PORT_STATE]\n", argv[0]);
		return 2;
	}
	list = ibv_get_device_list(NULL);
	dev = list ? find_dev(list, argv[1]) : NULL;
	check(dev != NULL, "device listed by libibverbs");
	if (!dev)
		goto out;

	vdev = (struct verbs_device *)dev;
	check(vdev->ops && !strcmp(vdev->ops->name, "mroce"),
	      "claimed by the mroce provider");
	check(ibv_get_device_guid(dev) != 0, "node GUID non-zero");
	check(dev->transport_type == IBV_TRANSPORT_IB, "transport InfiniBand (RoCE)");

	ctx = ibv_open_device(dev);
	check(ctx != NULL, "ibv_open_device");
	if (!ctx)
		goto out;

	check(!ibv_query_device_ex(ctx, NULL, &attr), "ibv_query_device_ex");
	printf("# vendor_id %#x part %u hw_ver %u max_pd %d\n",
	       attr.orig_attr.vendor_id, attr.orig_attr.vendor_part_id,
	       attr.orig_attr.hw_ver, attr.orig_attr.max_pd);
	check(attr.orig_attr.vendor_id != 0, "vendor id non-zero");
	check_port(ctx, argc > 2 ? argv[2] : NULL);

	/* nothing is mmap()able yet: the kernel refuses every offset */
	errno = 0;
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, ctx->cmd_fd, 0);
	check(map == MAP_FAILED && errno == EINVAL, "mmap of the uverbs fd refused (EINVAL)");
	if (map != MAP_FAILED)
		munmap(map, 4096);

	pd = ibv_alloc_pd(ctx);
	check(pd != NULL, "ibv_alloc_pd");
	if (pd) {
		check_objects(ctx, pd);
		check(!ibv_dealloc_pd(pd), "ibv_dealloc_pd");
	}
	check(!ibv_close_device(ctx), "ibv_close_device");
out:
	if (list)
		ibv_free_device_list(list);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
