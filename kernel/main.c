// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce: soft RDMA devices over any netdev, with the MetaRoCE multipath
 * transport over UDP.
 *
 *	modprobe mroce [udp_port=N]
 *	rdma link add NAME type mroce netdev DEV	(autoloads the module)
 *	rdma link delete NAME
 *
 * One concern per file; Documentation/mroce.rst ("Files") lists them all,
 * and its "Packet walk" follows a packet through them. The protocol engine
 * is kernel/engine/.
 */
#include <linux/module.h>
#include <rdma/rdma_netlink.h>

#include "counters.h"
#include "cq.h"
#include "debugfs.h"
#include "device.h"
#include "devlist.h"
#include "netdev.h"
#include "param.h"
#include "parity.h"
#include "socket.h"

static struct rdma_link_ops mroce_link_ops = {
	.type = "mroce",
	.newlink = mroce_newlink,
};

static int __init mroce_init(void)
{
	int err;

	mroce_counters_init();
	mroce_debugfs_init();
	err = mroce_parity_init();
	if (err)
		goto err_debugfs;
	err = mroce_cq_init();
	if (err)
		goto err_parity;
	err = mroce_devlist_init();
	if (err)
		goto err_cq;
	err = mroce_socket_init(mroce_param_udp_port());
	if (err)
		goto err_devlist;

	err = mroce_netdev_init();
	if (err)
		goto err_socket;

	rdma_link_register(&mroce_link_ops);
	pr_info("loaded, UDP port %u\n", mroce_param_udp_port());
	return 0;

err_socket:
	mroce_socket_exit();
err_devlist:
	mroce_devlist_exit();
err_cq:
	mroce_cq_exit();
err_parity:
	mroce_parity_exit();
err_debugfs:
	mroce_debugfs_exit();
	return err;
}

static void __exit mroce_exit(void)
{
	/* no new devices, then remove ours: the undo of link registration */
	rdma_link_unregister(&mroce_link_ops);
	mroce_devices_remove(NULL);

	mroce_netdev_exit();
	mroce_socket_exit();
	mroce_devlist_exit();
	mroce_cq_exit();
	mroce_parity_exit();
	mroce_debugfs_exit();
	pr_info("unloaded\n");
}

module_init(mroce_init);
module_exit(mroce_exit);

MODULE_ALIAS_RDMA_LINK("mroce");
MODULE_DESCRIPTION("mroce: soft RDMA over any netdev with the MetaRoCE multipath transport");
MODULE_AUTHOR("mroce developers");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_IMPORT_NS(DMA_BUF);
