// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Datapath ops selection and the software datapath.
 *
 * At most one offload is registered at a time (there is one kind of NIC
 * per deployment in practice; a list can come when a second one exists).
 * The registered table is read and its owner pinned under mroce_dp_lock, so
 * unregistering cannot race with a device picking it up; devices created
 * before the unregister keep their module reference, which is what keeps
 * the offload's module loaded while they exist.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "net.h"
#include "offload.h"
#include "rx.h"
#include "mroce.h"

static DEFINE_MUTEX(mroce_dp_lock);
static const struct mroce_dp_ops *mroce_offload_ops;	/* mroce_dp_lock */

/*
 * The software datapath: the MetaRoCE engine in the kernel (rx.c) on
 * receive, the IP stack (net.c) on transmit.
 */
const struct mroce_dp_ops mroce_sw_dp_ops = {
	.name = "software",
	.owner = THIS_MODULE,
	.rx = mroce_rx,
	.xmit = mroce_net_xmit,
};

/**
 * mroce_offload_register - offer a hardware datapath for new mroce devices
 * @ops: the offload's entry points; must stay valid until unregistered
 *
 * Devices created afterwards whose netdev @ops->claim()s use @ops; existing
 * devices keep what they have. Returns 0, -EINVAL for an incomplete table or
 * -EBUSY when another offload is registered.
 */
int mroce_offload_register(const struct mroce_dp_ops *ops)
{
	int err = 0;

	if (!ops || !ops->name || !ops->claim || !ops->xmit || !ops->rx)
		return -EINVAL;

	mutex_lock(&mroce_dp_lock);
	if (mroce_offload_ops)
		err = -EBUSY;
	else
		mroce_offload_ops = ops;
	mutex_unlock(&mroce_dp_lock);

	if (!err)
		pr_info("datapath offload %s registered\n", ops->name);
	return err;
}
EXPORT_SYMBOL_GPL(mroce_offload_register);

/**
 * mroce_offload_unregister - stop offering @ops to new devices
 * @ops: the table passed to mroce_offload_register()
 *
 * Devices already using @ops keep a reference on @ops->owner, so a module
 * cannot unload while they exist; it has to remove them (`rdma link
 * delete`) or unregister their netdevs first.
 */
void mroce_offload_unregister(const struct mroce_dp_ops *ops)
{
	mutex_lock(&mroce_dp_lock);
	if (mroce_offload_ops == ops)
		mroce_offload_ops = NULL;
	mutex_unlock(&mroce_dp_lock);
}
EXPORT_SYMBOL_GPL(mroce_offload_unregister);

/* Ops for a new device on @ndev, with a reference on their module. */
const struct mroce_dp_ops *mroce_dp_get(struct net_device *ndev)
{
	const struct mroce_dp_ops *ops = &mroce_sw_dp_ops;

	mutex_lock(&mroce_dp_lock);
	if (mroce_offload_ops && try_module_get(mroce_offload_ops->owner)) {
		if (mroce_offload_ops->claim(ndev))
			ops = mroce_offload_ops;
		else
			module_put(mroce_offload_ops->owner);
	}
	mutex_unlock(&mroce_dp_lock);
	return ops;
}

void mroce_dp_put(const struct mroce_dp_ops *ops)
{
	if (ops && ops != &mroce_sw_dp_ops)
		module_put(ops->owner);
}
