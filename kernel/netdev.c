// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Netdev events.
 *
 *	NETDEV_UP, _DOWN, _CHANGE	port state follows running && carrier;
 *					a change dispatches IB_EVENT_PORT_ACTIVE
 *					or IB_EVENT_PORT_ERR
 *	NETDEV_CHANGEMTU		nothing to store: query_port derives the
 *					MTU from the netdev each time
 *	the same events for a plane 1..	its paths fail or come back;
 *					unregistering removes the plane
 *					(plane.c)
 *	NETDEV_UNREGISTER		(also sent when the netdev changes
 *					namespace) the device is unregistered,
 *					queued: the core's unregistration takes
 *					RTNL, which we hold here
 *
 * GIDs are not ours to manage: the core's roce_gid_mgmt follows the
 * netdev's addresses because the port is RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP.
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "netdev.h"
#include "devlist.h"
#include "peer.h"
#include "plane.h"
#include "mroce.h"

enum ib_port_state mroce_port_state(struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev) ?
		IB_PORT_ACTIVE : IB_PORT_DOWN;
}

static void mroce_port_event(struct mroce_dev *mdev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &mdev->ibdev,
		.element.port_num = 1,
		.event = type,
	};

	ib_dispatch_event(&ev);
}

/**
 * mroce_port_update - bring the port state in line with the netdev
 * @mdev: device (registered)
 *
 * Dispatches an event when the state changed. Called under RTNL, which
 * orders the updates.
 */
void mroce_port_update(struct mroce_dev *mdev)
{
	enum ib_port_state state = mroce_port_state(mdev->ndev);

	ASSERT_RTNL();
	if (state == mdev->port_state)
		return;

	WRITE_ONCE(mdev->port_state, state);
	if (state == IB_PORT_ACTIVE) {
		mroce_port_event(mdev, IB_EVENT_PORT_ACTIVE);
	} else {
		mroce_counter_inc(mdev, MROCE_CNT_LINK_DOWNED);
		mroce_port_event(mdev, IB_EVENT_PORT_ERR);
	}
	mroce_info_dev(mdev, "port %s (%s)\n",
		       state == IB_PORT_ACTIVE ? "ACTIVE" : "DOWN",
		       mdev->ndev->name);
}

static int mroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct mroce_dev *mdev = mroce_dev_get_by_netdev(ndev);

	if (!mdev) {
		mroce_plane_netdev_event(ndev, event);	/* a plane 1.. ? */
		return NOTIFY_DONE;
	}

	switch (event) {
	case NETDEV_UNREGISTER:
		mroce_info_dev(mdev, "%s unregistered, removing\n",
			       ndev->name);
		ib_unregister_device_queued(&mdev->ibdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		mroce_port_update(mdev);
		if (mroce_planes(mdev) > 1)
			mroce_peers_planes(mdev);	/* plane 0 */
		break;
	case NETDEV_CHANGEMTU:
		mroce_dbg_dev(mdev, "%s mtu %u\n", ndev->name, ndev->mtu);
		break;
	default:
		break;
	}

	ib_device_put(&mdev->ibdev);
	return NOTIFY_OK;
}

static struct notifier_block mroce_netdev_notifier = {
	.notifier_call = mroce_netdev_event,
};

int mroce_netdev_init(void)
{
	return register_netdevice_notifier(&mroce_netdev_notifier);
}

void mroce_netdev_exit(void)
{
	unregister_netdevice_notifier(&mroce_netdev_notifier);
}
