// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device lifecycle.
 *
 * Created by mroce_newlink() (`rdma link add NAME type mroce netdev DEV`),
 * removed by whoever unregisters the ib_device first: `rdma link delete`,
 * the netdev going away (netdev.c queues the unregistration), the netdev's
 * namespace going away (socket.c's pre_exit) or module unload. All of them
 * end in mroce_dev_dealloc() (ib_device_ops.dealloc_driver), which the core
 * calls exactly once, under the device's unregistration lock, and which
 * undoes everything mroce_newlink() set up.
 *
 * Our list of devices and the lookups on it are in devlist.c.
 */
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/mroce-abi.h>

#include "ah.h"
#include "cq.h"
#include "device.h"
#include "counters.h"
#include "debugfs.h"
#include "devlist.h"
#include "embed.h"
#include "mr.h"
#include "netdev.h"
#include "offload.h"
#include "param.h"
#include "peer.h"
#include "post.h"
#include "qp.h"
#include "restrack.h"
#include "queue.h"
#include "rx.h"
#include "socket.h"
#include "srq.h"
#include "verbs.h"
#include "mroce.h"

static ssize_t mroce_abi_show(struct device *device,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", MROCE_ABI_VERSION);
}
static DEVICE_ATTR_RO(mroce_abi);

static ssize_t datapath_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	struct mroce_dev *mdev =
		rdma_device_to_drv_device(device, struct mroce_dev, ibdev);

	return sysfs_emit(buf, "%s\n", mroce_ofl_name(mdev));
}
static DEVICE_ATTR_RO(datapath);

/* object commands its offload carried out and refused, and its events */
static struct mroce_ofl_port *ofl_of(struct device *device)
{
	return &rdma_device_to_drv_device(device, struct mroce_dev, ibdev)->ofl;
}

static ssize_t ofl_cmds_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&ofl_of(device)->cmds));
}
static DEVICE_ATTR_RO(ofl_cmds);

static ssize_t ofl_cmd_errors_show(struct device *device,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&ofl_of(device)->cmd_errors));
}
static DEVICE_ATTR_RO(ofl_cmd_errors);

static ssize_t ofl_events_show(struct device *device,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&ofl_of(device)->events));
}
static DEVICE_ATTR_RO(ofl_events);

static struct attribute *mroce_dev_attrs[] = {
	&dev_attr_mroce_abi.attr,
	&dev_attr_datapath.attr,
	&dev_attr_ofl_cmds.attr,
	&dev_attr_ofl_cmd_errors.attr,
	&dev_attr_ofl_events.attr,
	&dev_attr_planes.attr,		/* plane.c */
	NULL
};

/*
 * /sys/class/infiniband/NAME/: mroce_abi (what the provider matches on),
 * datapath ("software" or the offload's name), ofl_cmds,
 * ofl_cmd_errors and ofl_events (its object commands and events), and
 * planes
 */
static const struct attribute_group mroce_dev_attr_group = {
	.attrs = mroce_dev_attrs,
};

static void mroce_dev_dealloc(struct ib_device *ibdev);

static const struct ib_device_ops mroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = MROCE_ABI_VERSION,

	.alloc_hw_port_stats = mroce_alloc_hw_port_stats,
	.alloc_mr = mroce_alloc_mr,
	.alloc_mw = mroce_alloc_mw,
	.alloc_pd = mroce_alloc_pd,
	.alloc_ucontext = mroce_alloc_ucontext,
	.attach_mcast = mroce_attach_mcast,
	.create_ah = mroce_create_ah,
	.create_cq = mroce_create_cq,
	.create_qp = mroce_create_qp,
	.create_srq = mroce_create_srq,
	.create_user_ah = mroce_create_ah,
	.dealloc_driver = mroce_dev_dealloc,
	.dealloc_mw = mroce_dealloc_mw,
	.dealloc_pd = mroce_dealloc_pd,
	.dealloc_ucontext = mroce_dealloc_ucontext,
	.dereg_mr = mroce_dereg_mr,
	.destroy_ah = mroce_destroy_ah,
	.destroy_cq = mroce_destroy_cq,
	.destroy_qp = mroce_destroy_qp,
	.destroy_srq = mroce_destroy_srq,
	.detach_mcast = mroce_detach_mcast,
	.device_group = &mroce_dev_attr_group,
	.disassociate_ucontext = mroce_disassociate_ucontext,
	.fill_res_cq_entry = mroce_fill_res_cq_entry,
	.fill_res_mr_entry = mroce_fill_res_mr_entry,
	.fill_res_qp_entry = mroce_fill_res_qp_entry,
	.get_dma_mr = mroce_get_dma_mr,
	.get_hw_stats = mroce_get_hw_stats,
	.get_link_layer = mroce_get_link_layer,
	.get_vector_affinity = mroce_get_vector_affinity,
	.get_port_immutable = mroce_get_port_immutable,
	.map_mr_sg = mroce_map_mr_sg,
	.mmap = mroce_mmap,
	.mmap_free = mroce_mmap_free,
	.modify_qp = mroce_modify_qp,
	.modify_srq = mroce_modify_srq,
	.poll_cq = mroce_poll_cq,
	.post_recv = mroce_post_recv,
	.post_send = mroce_post_send,
	.post_srq_recv = mroce_post_srq_recv,
	.query_ah = mroce_query_ah,
	.query_device = mroce_query_device,
	.query_pkey = mroce_query_pkey,
	.query_port = mroce_query_port,
	.query_qp = mroce_query_qp,
	.query_srq = mroce_query_srq,
	.reg_user_mr = mroce_reg_user_mr,
	.reg_user_mr_dmabuf = mroce_reg_user_mr_dmabuf,
	.req_notify_cq = mroce_req_notify_cq,
	.rereg_user_mr = mroce_rereg_user_mr,
	.resize_cq = mroce_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, mroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, mroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, mroce_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, mroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, mroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, mroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, mroce_ucontext, ibuc),
};

/* EUI-64 from the MAC, as RoCE and IPv6 do; random if there is no MAC */
static void mroce_set_node_guid(struct mroce_dev *mdev)
{
	struct net_device *ndev = mdev->ndev;
	u8 *guid = (u8 *)&mdev->ibdev.node_guid;

	if (ndev->addr_len == ETH_ALEN && is_valid_ether_addr(ndev->dev_addr)) {
		addrconf_addr_eui48(guid, ndev->dev_addr);
		return;
	}
	get_random_bytes(guid, sizeof(mdev->ibdev.node_guid));
	guid[0] = (guid[0] & ~0x01) | 0x02;	/* unicast, locally assigned */
}

static void mroce_dev_setup(struct mroce_dev *mdev, struct net_device *ndev)
{
	struct ib_device *ibdev = &mdev->ibdev;

	INIT_LIST_HEAD(&mdev->node);
	INIT_LIST_HEAD(&mdev->net_node);
	xa_init_flags(&mdev->qps, XA_FLAGS_ALLOC);
	xa_init_flags(&mdev->mrs, XA_FLAGS_ALLOC1);
	xa_init(&mdev->mws);
	xa_init_flags(&mdev->ahs, XA_FLAGS_ALLOC1);
	mroce_mcast_init(mdev);
	mdev->ndev = ndev;
	netdev_hold(ndev, &mdev->ndev_tracker, GFP_KERNEL);
	mdev->nplanes = 1;
	mdev->planes[0].ndev = ndev;	/* held above */
	mdev->net = dev_net(ndev);
	mdev->port_state = mroce_port_state(ndev);

	ib_set_device_ops(ibdev, &mroce_dev_ops);
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = mroce_param_comp_vectors();
	ibdev->local_dma_lkey = 0;
	/*
	 * The write commands the core leaves off by default: the doorbells
	 * (an empty POST_SEND / POST_RECV, see ring.h) and CQ arming. POLL_CQ
	 * stays off: a user CQ is polled in the provider.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_SRQ_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	strscpy(ibdev->node_desc, MROCE_NODE_DESC, sizeof(ibdev->node_desc));
	mroce_set_node_guid(mdev);
}

/**
 * mroce_newlink - rdma_link_ops.newlink: a new device @ibdev_name on @ndev
 * @ibdev_name: name asked for; the core rejects duplicates
 * @ndev: netdev, in the caller's namespace, referenced by the caller
 *
 * Process context, no locks held (link_ops_rwsem for reading).
 */
int mroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct mroce_dev *mdev;
	int err;

	mdev = mroce_dev_get_by_netdev(ndev);
	if (!mdev)
		mdev = mroce_dev_get_by_plane(ndev, NULL);
	if (mdev) {
		ib_device_put(&mdev->ibdev);
		pr_err("%s already belongs to mroce device %s\n", ndev->name,
		       dev_name(&mdev->ibdev.dev));
		return -EEXIST;
	}

	mdev = ib_alloc_device(mroce_dev, ibdev);
	if (!mdev)
		return -ENOMEM;
	/* from here on ib_dealloc_device() runs mroce_dev_dealloc() */
	mroce_dev_setup(mdev, ndev);

	err = mroce_peers_init(mdev, &mroce_engine_ops);
	if (err)
		goto err_dealloc;
	mroce_rx_init(mdev);
	mdev->peers_ready = true;
	err = mroce_loop_init(mdev);
	if (err)
		goto err_dealloc;
	err = mroce_net_attach(mdev);
	if (err)
		goto err_dealloc;
	err = mroce_ofl_dev_init(mdev, ibdev_name);
	if (err)
		goto err_dealloc;

	err = ib_device_set_netdev(&mdev->ibdev, ndev, 1);
	if (err)
		goto err_dealloc;

	err = ib_register_device(&mdev->ibdev, ibdev_name, NULL);
	if (err)
		goto err_dealloc;

	rtnl_lock();
	err = mroce_devlist_add(mdev);
	if (!err)
		mroce_port_update(mdev);
	rtnl_unlock();
	if (err)
		goto err_unregister;

	mroce_debugfs_add(mdev);
	mroce_info_dev(mdev, "on %s (net %u), datapath %s\n", ndev->name,
		       mdev->net->ns.inum, mroce_ofl_name(mdev));
	return 0;

err_unregister:
	pr_err("%s: %s on %s not published: %s\n", __func__, ibdev_name,
	       ndev->name, err == -EEXIST ? "netdev taken meanwhile" :
	       "netdev went away meanwhile");
	ib_unregister_device(&mdev->ibdev);	/* frees mdev */
	return err;
err_dealloc:
	pr_err("%s: cannot create %s on %s: %d\n", __func__, ibdev_name,
	       ndev->name, err);
	ib_dealloc_device(&mdev->ibdev);
	return err;
}

/*
 * ib_device_ops.dealloc_driver: last driver call for a device, after the
 * core unregistered it (or from ib_dealloc_device() on a failed newlink,
 * where some of this was never set up). Process context.
 */
static void mroce_dev_dealloc(struct ib_device *ibdev)
{
	struct mroce_dev *mdev = to_mroce_dev(ibdev);

	mroce_devlist_del(mdev);
	mroce_debugfs_del(mdev);
	/*
	 * Receive no more, then stop the peers (their timers send), then
	 * close the sockets: nothing may send on a socket being released.
	 */
	mroce_net_unlist(mdev);
	mroce_ofl_dev_stop(mdev);
	if (mdev->peers_ready) {
		mroce_loop_exit(mdev);
		mroce_rx_exit(mdev);
		mroce_peers_exit(mdev);
	}
	mroce_ofl_dev_exit(mdev);
	mroce_net_detach(mdev);
	WARN_ON_ONCE(!xa_empty(&mdev->qps) || !xa_empty(&mdev->mrs) ||
		     !xa_empty(&mdev->mws));
	xa_destroy(&mdev->qps);
	xa_destroy(&mdev->mrs);
	xa_destroy(&mdev->mws);
	xa_destroy(&mdev->ahs);
	mroce_mcast_exit(mdev);
	mroce_planes_release(mdev);
	netdev_put(mdev->ndev, &mdev->ndev_tracker);
	mroce_dbg_dev(mdev, "freed\n");
	/*
	 * The core frees mdev with kfree_rcu() after the last reference, so
	 * RCU readers of mroce_devs and mnet->devs that still see it are safe.
	 */
}
