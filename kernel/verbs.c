// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device and port queries, user contexts and PDs.
 *
 * Limits reported in query_device are the ones the verbs objects enforce
 * (qp.c, cq.c, mr.c, srq.c, ah.c), so applications see the truth rather
 * than fail later.
 */
#include <linux/ipv6.h>
#include <linux/mm.h>
#include <linux/udp.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/mroce-abi.h>

#include "mr.h"
#include "qp.h"
#include "verbs.h"
#include "oflcmd.h"
#include "mroce.h"

/*
 * Largest IB MTU whose payload fits in one datagram on a netdev of MTU
 * @netdev_mtu: IPv6 header (the larger of the two), UDP and the MetaRoCE
 * header come off first. Never below IB_MTU_256.
 */
enum ib_mtu mroce_ib_mtu(unsigned int netdev_mtu)
{
	int room = (int)netdev_mtu - (int)sizeof(struct ipv6hdr) -
		   (int)sizeof(struct udphdr) - MROCE_MAX_HDR_LEN;

	return ib_mtu_int_to_enum(room);
}

int mroce_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		       struct ib_udata *udata)
{
	if (udata->inlen || udata->outlen)
		return -EINVAL;

	/* the core zeroed *attr */
	attr->sys_image_guid = ibdev->node_guid;
	attr->vendor_id = MROCE_VENDOR_ID;
	attr->vendor_part_id = MROCE_VENDOR_PART_ID;
	attr->hw_ver = MROCE_HW_VER;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_mr_size = MROCE_MAX_MR_SIZE;
	attr->max_pd = MROCE_MAX_PD;
	attr->max_pkeys = 1;
	attr->max_qp = MROCE_MAX_QP;
	attr->max_qp_wr = MROCE_MAX_QP_WR;
	attr->max_send_sge = MROCE_MAX_SGE;
	attr->max_recv_sge = MROCE_MAX_SGE;
	attr->max_sge_rd = MROCE_MAX_SGE;
	attr->max_cq = MROCE_MAX_CQ;
	attr->max_cqe = MROCE_MAX_CQE;
	attr->max_mr = MROCE_MAX_MR;
	attr->max_mw = MROCE_MAX_MR;
	attr->max_qp_rd_atom = MROCE_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = MROCE_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = MROCE_MAX_QP * MROCE_MAX_RD_ATOMIC;
	attr->max_srq = MROCE_MAX_SRQ;
	attr->max_srq_wr = MROCE_MAX_QP_WR;
	attr->max_srq_sge = MROCE_MAX_SGE;
	attr->max_ah = MROCE_MAX_AH;
	attr->max_mcast_grp = MROCE_MAX_MCG;
	attr->max_mcast_qp_attach = MROCE_MAX_MCG_QP;
	attr->max_total_mcast_qp_attach = MROCE_MAX_MCA;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->device_cap_flags = IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B |
				 IB_DEVICE_MEM_MGT_EXTENSIONS;
	attr->max_fast_reg_page_list_len = MROCE_MAX_FRPL;
	/* `rdma link delete` is how a soft device is removed */
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	return 0;
}

int mroce_query_port(struct ib_device *ibdev, u32 port_num,
		     struct ib_port_attr *attr)
{
	struct mroce_dev *mdev = to_mroce_dev(ibdev);
	struct net_device *ndev = mdev->ndev;
	int err;

	/* the core zeroed *attr */
	attr->state = READ_ONCE(mdev->port_state);
	if (attr->state == IB_PORT_ACTIVE)
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (netif_running(ndev))
		attr->phys_state = IB_PORT_PHYS_STATE_POLLING;
	else
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;

	attr->max_mtu = mroce_ib_mtu(READ_ONCE(ndev->mtu));
	attr->active_mtu = attr->max_mtu;
	attr->gid_tbl_len = MROCE_GID_TBL_LEN;
	attr->pkey_tbl_len = 1;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = 1U << 31;
	attr->max_vl_num = 1;

	/* fails once the netdev is unregistering: keep the defaults then */
	err = ib_get_eth_speed(ibdev, port_num, &attr->active_speed,
			       &attr->active_width);
	if (err) {
		mroce_dbg_dev(mdev, "no link speed from %s: %d\n", ndev->name,
			      err);
		attr->active_speed = IB_SPEED_SDR;
		attr->active_width = IB_WIDTH_1X;
	}
	return 0;
}

int mroce_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
		     u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

int mroce_get_port_immutable(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_immutable *immutable)
{
	/* RoCEv2-style GIDs: the core fills them from the netdev's addresses */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = 1;
	immutable->gid_tbl_len = MROCE_GID_TBL_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

enum rdma_link_layer mroce_get_link_layer(struct ib_device *ibdev,
					  u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

int mroce_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mroce_dev(ibuc->device);
	struct mroce_ucontext *uctx = to_mroce_uctx(ibuc);
	struct mroce_alloc_ucontext_resp resp = {
		.abi_version = MROCE_ABI_VERSION,
		.caps = MROCE_CAP_BASIC | MROCE_CAP_DATAPATH |
			MROCE_CAP_RESIZE_CQ,
	};
	int err;

	uctx->id = atomic_inc_return(&mdev->next_obj_id);
	err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	mroce_dbg_uctx(uctx, "abi %u caps %#x: %d\n", resp.abi_version,
		       resp.caps, err);
	return err;
}

void mroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	mroce_dbg_uctx(to_mroce_uctx(ibuc), "\n");
}

/*
 * The device is going away with the context still open (rdma link delete,
 * the netdev or namespace gone): with this op the core does not wait for
 * the process to close its fd. It has already zapped the mappings it
 * tracks (rdma_umap_priv_init(), for IO memory that may vanish); ours are
 * none of those: a ring is vmalloc memory whose pages the mapping holds a
 * reference on (queue.h), so leaving them mapped is safe, and the process
 * sees its rings stop. The core then destroys every object of the context
 * (each destroy removes its ring's mmap entry, and the kernel stops using
 * the ring) and calls dealloc_ucontext. Nothing is left for us to do here.
 */
void mroce_disassociate_ucontext(struct ib_ucontext *ibuc)
{
	mroce_dbg_uctx(to_mroce_uctx(ibuc), "device going away\n");
}

int mroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mroce_dev(ibpd->device);
	struct mroce_pd *pd = to_mroce_pd(ibpd);
	struct mroce_ofl_cmd c = { .op = MROCE_OFL_CMD_PD_CREATE };

	pd->id = atomic_inc_return(&mdev->next_obj_id);
	c.id = pd->id;
	mroce_dbg_pd(pd, "\n");
	return mroce_ofl_cmd(mdev, &c);
}

int mroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct mroce_ofl_cmd c = {
		.op = MROCE_OFL_CMD_PD_DESTROY,
		.id = to_mroce_pd(ibpd)->id,
	};

	mroce_dbg_pd(to_mroce_pd(ibpd), "\n");
	mroce_ofl_cmd(to_mroce_dev(ibpd->device), &c);
	return 0;
}
