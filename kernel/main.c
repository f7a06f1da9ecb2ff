// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce: soft RDMA devices over any netdev, with the MetaRoCE multipath
 * transport over UDP.
 *
 *	modprobe mroce [udp_port=N]
 *	rdma link add NAME type mroce netdev DEV	(autoloads the module)
 *	rdma link delete NAME
 *
 * One concern per file: device.c (lifecycle, our device list), verbs.c
 * (ib_device_ops), netdev.c (netdev events, port state), socket.c (per
 * namespace UDP sockets), offload.c (datapath ops), counters.c
 * (rdma_hw_stats). The protocol engine is kernel/engine/.
 */
#include <linux/module.h>
#include <rdma/rdma_netlink.h>

#include "counters.h"
#include "debugfs.h"
#include "device.h"
#include "netdev.h"
#include "socket.h"

static ushort udp_port = MROCE_DEFAULT_UDP_PORT;
module_param(udp_port, ushort, 0444);
MODULE_PARM_DESC(udp_port,
		 "UDP port of MetaRoCE in every namespace (default 4796; 0, 4791 (RoCEv2) and 4793 (UET) are refused)");

static struct rdma_link_ops mroce_link_ops = {
	.type = "mroce",
	.newlink = mroce_newlink,
};

static int __init mroce_init(void)
{
	int err;

	mroce_counters_init();
	mroce_debugfs_init();
	err = mroce_socket_init(udp_port);
	if (err)
		goto err_debugfs;

	err = mroce_netdev_init();
	if (err)
		goto err_socket;

	rdma_link_register(&mroce_link_ops);
	pr_info("loaded, UDP port %u\n", udp_port);
	return 0;

err_socket:
	mroce_socket_exit();
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
	mroce_debugfs_exit();
	pr_info("unloaded\n");
}

module_init(mroce_init);
module_exit(mroce_exit);

MODULE_ALIAS_RDMA_LINK("mroce");
MODULE_DESCRIPTION("mroce: soft RDMA over any netdev with the MetaRoCE multipath transport");
MODULE_AUTHOR("mroce developers");
MODULE_LICENSE("Dual BSD/GPL");
