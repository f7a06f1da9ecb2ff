// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The offload boundary, mroce's side (see offload.h and
 * include/mroce/offload.h): registration, a device's attach and detach,
 * the receive upcall and the event upcall. (The transmit crossing is
 * net.c's, the object commands and doorbells oflcmd.c's.)
 *
 * At most one offload is registered at a time (there is one kind of NIC
 * per deployment in practice; a list can come when a second one exists).
 * The registered table is read and its owner pinned under mroce_ofl_lock,
 * so unregistering cannot race with a device picking it up; devices created
 * before the unregister keep their module reference, which is what keeps
 * the offload's module loaded while they exist (rmmod says it is in use).
 *
 * A device's teardown (device.c, mroce_dev_dealloc()) runs
 * mroce_ofl_dev_stop() before its receive path goes (rx.c's
 * synchronize_rcu() then also waits for receive upcalls under way) and
 * mroce_ofl_dev_exit() after its peers are gone, when nothing sends any
 * more: then the offload's detach() may free what it holds.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/inetdevice.h>
#include <linux/skbuff.h>
#include <net/addrconf.h>
#include <net/ip.h>

#include "cq.h"
#include "net.h"
#include "offload.h"
#include "plane.h"
#include "qp.h"
#include "rx.h"
#include "srq.h"
#include "mroce.h"

#define MROCE_OFL_LEVELS (MROCE_OFL_PACKETS | MROCE_OFL_TRANSPORT | \
			  MROCE_OFL_DATAPATH)
#define MROCE_OFL_FEATURES MROCE_OFL_OBJECTS
/* the levels and features this mroce hands to an offload */
#define MROCE_OFL_ACCEPTED (MROCE_OFL_PACKETS | MROCE_OFL_OBJECTS)

static DEFINE_MUTEX(mroce_ofl_lock);
static const struct mroce_offload *mroce_ofl;	/* mroce_ofl_lock */

/* query_counters with 1..MROCE_OFL_MAX_COUNTERS names, or none of them */
static bool counters_ok(const struct mroce_offload *ofl)
{
	u32 i;

	if (!ofl->query_counters)
		return !ofl->ncounters && !ofl->counter_names;
	if (!ofl->counter_names || !ofl->ncounters ||
	    ofl->ncounters > MROCE_OFL_MAX_COUNTERS)
		return false;
	for (i = 0; i < ofl->ncounters; i++)
		if (!ofl->counter_names[i] || !*ofl->counter_names[i] ||
		    strpbrk(ofl->counter_names[i], " \t\n"))
			return false;
	return true;
}

static int ofl_check(const struct mroce_offload *ofl)
{
	if (!ofl || !ofl->name || !ofl->claim || !ofl->attach ||
	    !ofl->detach)
		return -EINVAL;
	if (ofl->version != MROCE_OFFLOAD_VERSION)
		return -EPROTO;
	if (!(ofl->caps & MROCE_OFL_LEVELS) ||
	    ofl->caps & ~(MROCE_OFL_LEVELS | MROCE_OFL_FEATURES))
		return -EINVAL;
	if (ofl->caps & ~MROCE_OFL_ACCEPTED)
		return -EOPNOTSUPP;
	if (ofl->caps & MROCE_OFL_PACKETS && !ofl->xmit)
		return -EINVAL;
	if (ofl->caps & MROCE_OFL_OBJECTS ? !ofl->cmd : ofl->cmd || ofl->doorbell)
		return -EINVAL;
	if (!ofl->plane_add != !ofl->plane_del || !counters_ok(ofl))
		return -EINVAL;
	return 0;
}

/**
 * mroce_offload_register - offer an offload for new mroce devices
 * @ofl: the offload's entry points; must stay valid until unregistered
 *
 * Devices created afterwards whose netdev @ofl->claim()s run on @ofl;
 * existing devices keep what they have. Returns 0, -EINVAL for an
 * incomplete table or unknown caps, -EPROTO for another
 * MROCE_OFFLOAD_VERSION, -EOPNOTSUPP for a level this mroce does not
 * accept, or -EBUSY when another offload is registered.
 */
int mroce_offload_register(const struct mroce_offload *ofl)
{
	int err = ofl_check(ofl);

	if (err) {
		pr_warn("offload %s refused: %d\n",
			ofl && ofl->name ? ofl->name : "?", err);
		return err;
	}
	mutex_lock(&mroce_ofl_lock);
	if (mroce_ofl)
		err = -EBUSY;
	else
		mroce_ofl = ofl;
	mutex_unlock(&mroce_ofl_lock);

	if (!err)
		pr_info("datapath offload %s registered (caps %#x)\n",
			ofl->name, ofl->caps);
	return err;
}
EXPORT_SYMBOL_GPL(mroce_offload_register);

/**
 * mroce_offload_unregister - stop offering @ofl to new devices
 * @ofl: the table passed to mroce_offload_register()
 *
 * Devices already using @ofl keep a reference on @ofl->owner, so its
 * module cannot unload while they exist; they go with `rdma link delete`
 * or when their netdev is unregistered.
 */
void mroce_offload_unregister(const struct mroce_offload *ofl)
{
	mutex_lock(&mroce_ofl_lock);
	if (mroce_ofl == ofl)
		mroce_ofl = NULL;
	mutex_unlock(&mroce_ofl_lock);
}
EXPORT_SYMBOL_GPL(mroce_offload_unregister);

/* the registered offload if it claims @ndev, with its module pinned */
static const struct mroce_offload *ofl_get(struct net_device *ndev)
{
	const struct mroce_offload *ofl = NULL;

	mutex_lock(&mroce_ofl_lock);
	if (mroce_ofl && try_module_get(mroce_ofl->owner)) {
		if (mroce_ofl->claim(ndev))
			ofl = mroce_ofl;
		else
			module_put(mroce_ofl->owner);
	}
	mutex_unlock(&mroce_ofl_lock);
	return ofl;
}

/*
 * A new device's datapath (newlink, process context): the registered
 * offload's if it claims the netdev and attaches, else the software one.
 * A failed attach fails the device rather than running it on a datapath
 * the administrator did not ask for.
 */
int mroce_ofl_dev_init(struct mroce_dev *mdev, const char *ibdev_name)
{
	struct mroce_ofl_port *port = &mdev->ofl;
	struct mroce_ofl_port_info info = {
		.ndev = mdev->ndev,
		.udp_dport = mdev->udp_dport,	/* mroce_net_attach() set it */
		.ibdev_name = ibdev_name,
	};
	const struct mroce_offload *ofl = ofl_get(mdev->ndev);
	int err;

	port->mdev = mdev;
	if (!ofl)
		return 0;
	xa_init(&port->cqs);
	xa_init(&port->srqs);
	err = ofl->attach(port, &info, &port->priv);
	if (err) {
		pr_err("%s: offload %s did not attach: %d\n", mdev->ndev->name,
		       ofl->name, err);
		module_put(ofl->owner);
		return err;
	}
	static_branch_inc(&mroce_ofl_in_use);
	if (ofl->caps & MROCE_OFL_OBJECTS)
		port->dma_dev = info.dma_dev;	/* page lists are mapped for it */
	port->ofl = ofl;
	WRITE_ONCE(port->live, true);
	return 0;
}

/* teardown, before the receive path goes: refuse the offload's upcalls */
void mroce_ofl_dev_stop(struct mroce_dev *mdev)
{
	WRITE_ONCE(mdev->ofl.live, false);
}

/*
 * Teardown, when nothing sends any more: detach and unpin the offload. No
 * upcall is under way: mroce_ofl_dev_stop() came before mroce_rx_exit(),
 * whose grace period waited for those that saw the port live (a device
 * with an offload always has peers_ready, set before the attach).
 */
void mroce_ofl_dev_exit(struct mroce_dev *mdev)
{
	struct mroce_ofl_port *port = &mdev->ofl;
	const struct mroce_offload *ofl = port->ofl;

	if (!ofl)
		return;
	ofl->detach(port->priv);
	xa_destroy(&port->cqs);		/* empty: the core destroyed them all */
	xa_destroy(&port->srqs);
	port->ofl = NULL;
	port->priv = NULL;
	port->dma_dev = NULL;
	static_branch_dec(&mroce_ofl_in_use);
	module_put(ofl->owner);
}

/* plane @k of the device is now @ndev (RTNL): the offload's say */
int mroce_ofl_plane_add(struct mroce_dev *mdev, u32 k, struct net_device *ndev)
{
	const struct mroce_offload *ofl = mdev->ofl.ofl;

	ASSERT_RTNL();
	BUILD_BUG_ON(MROCE_MAX_PLANES > MROCE_OFL_MAX_PLANES);
	if (!ofl || !ofl->plane_add)
		return 0;
	return ofl->plane_add(mdev->ofl.priv, k, ndev);
}

/* plane @k of the device goes (RTNL) */
void mroce_ofl_plane_del(struct mroce_dev *mdev, u32 k)
{
	const struct mroce_offload *ofl = mdev->ofl.ofl;

	ASSERT_RTNL();
	if (ofl && ofl->plane_del)
		ofl->plane_del(mdev->ofl.priv, k);
}

/* sysfs `datapath` */
const char *mroce_ofl_name(const struct mroce_dev *mdev)
{
	return mdev->ofl.ofl ? mdev->ofl.ofl->name : "software";
}

/*
 * An offload hands frames up before ip_rcv(), so none of the stack's
 * source checks ran. A frame that claims an address of one of the
 * device's own planes as its source came from elsewhere (the device
 * talking to itself goes by loop.c or lo, never through an offload), and an answer
 * would go to ourselves: refused (rx_drop_src_ours). The engine refuses
 * addresses no node has (drop_src). RCU held.
 */
static bool src_is_ours(struct mroce_dev *mdev, const struct sk_buff *skb)
{
	struct net_device *owner = NULL;
	u32 n = mroce_planes(mdev), k;

	if (ip_hdr(skb)->version == 4)
		owner = __ip_dev_find(mdev->net, ip_hdr(skb)->saddr, false);
	for (k = 0; k < n; k++) {
		struct net_device *ndev = mroce_plane_ndev(mdev, k);

		if (!ndev)
			continue;
		if (ip_hdr(skb)->version == 4 ? ndev == owner :
		    ipv6_chk_addr(mdev->net, &ipv6_hdr(skb)->saddr, ndev, 1))
			return true;
	}
	return false;
}

/**
 * mroce_ofl_rx - a MetaRoCE packet from an offload at level PACKETS
 * @port: the port attach() was given
 * @skb:  the packet, as include/mroce/offload.h describes; consumed
 */
void mroce_ofl_rx(struct mroce_ofl_port *port, struct sk_buff *skb)
{
	rcu_read_lock();
	if (likely(READ_ONCE(port->live))) {
		mroce_counter_inc(port->mdev, MROCE_CNT_RX_PACKETS);
		mroce_counter_inc(port->mdev, MROCE_CNT_RX_OFFLOAD);
		if (unlikely(src_is_ours(port->mdev, skb))) {
			mroce_counter_inc(port->mdev, MROCE_CNT_RX_DROP_SRC_OURS);
			kfree_skb(skb);
		} else {
			mroce_rx(port->mdev, skb);
		}
	} else {
		kfree_skb(skb);
	}
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(mroce_ofl_rx);

bool mroce_ofl_has_counters(const struct mroce_dev *mdev)
{
	return mdev->ofl.ofl && mdev->ofl.ofl->query_counters;
}

int mroce_ofl_counters_show(struct mroce_dev *mdev, struct seq_file *m)
{
	const struct mroce_offload *ofl = mdev->ofl.ofl;
	u64 *val;
	u32 i;
	int err;

	val = kcalloc(ofl->ncounters, sizeof(*val), GFP_KERNEL);
	if (!val)
		return -ENOMEM;
	err = ofl->query_counters(mdev->ofl.priv, val);
	for (i = 0; !err && i < ofl->ncounters; i++)
		seq_printf(m, "%s %llu\n", ofl->counter_names[i], val[i]);
	kfree(val);
	return err;
}

/* @qp fails as the NIC said: ERR, its WQEs flushed, IB_EVENT_QP_FATAL */
static void qp_fatal(struct mroce_qp *qp)
{
	spin_lock_bh(&qp->lock);
	if (qp->state != IB_QPS_ERR)
		mroce_qp_set_error(qp, MROCE_ST_FATAL);
	spin_unlock_bh(&qp->lock);
}

/* every QP of the device fails, then its owners hear of the device */
static void device_fatal(struct mroce_dev *mdev)
{
	struct ib_event iev = {
		.device = &mdev->ibdev,
		.event = IB_EVENT_DEVICE_FATAL,
	};
	struct mroce_qp *qp;
	unsigned long id;

	xa_for_each(&mdev->qps, id, qp)
		qp_fatal(qp);
	ib_dispatch_event(&iev);	/* any context */
}

/* under rcu_read_lock(): the objects found stay until a grace period */
static int ofl_event(struct mroce_dev *mdev, const struct mroce_ofl_event *ev)
{
	struct mroce_srq *srq;
	struct mroce_qp *qp;
	struct mroce_cq *cq;

	switch (ev->type) {
	case MROCE_OFL_EV_QP_FATAL:
		qp = mroce_qp_lookup(mdev, ev->id);
		if (!qp)
			return -ENOENT;
		qp_fatal(qp);
		return 0;
	case MROCE_OFL_EV_DEVICE_FATAL:
		device_fatal(mdev);
		return 0;
	case MROCE_OFL_EV_CQ_COMP:
	case MROCE_OFL_EV_CQ_ERR:
		cq = xa_load(&mdev->ofl.cqs, ev->id);
		if (!cq)
			return -ENOENT;
		return ev->type == MROCE_OFL_EV_CQ_COMP ?
		       mroce_cq_ofl_comp(cq) : mroce_cq_ofl_error(cq);
	case MROCE_OFL_EV_SRQ_LIMIT:
		srq = xa_load(&mdev->ofl.srqs, ev->id);
		return srq ? mroce_srq_ofl_limit(srq) : -ENOENT;
	default:
		return -EINVAL;
	}
}

/**
 * mroce_ofl_event - an event of the NIC behind @port (MROCE_OFL_OBJECTS)
 * @port: the port attach() was given
 * @ev:   the event, as include/mroce/offload.h describes
 *
 * Process context or softirq. 0, -EINVAL (an unknown type), -ENOENT (no
 * such object), -EALREADY (nothing left to report), -ENODEV (the port is
 * not attached). A completion interrupt is not logged; the others are.
 */
int mroce_ofl_event(struct mroce_ofl_port *port,
		    const struct mroce_ofl_event *ev)
{
	struct mroce_dev *mdev = port->mdev;
	int err;

	rcu_read_lock();	/* the objects, and the device while live */
	err = READ_ONCE(port->live) ? ofl_event(mdev, ev) : -ENODEV;
	rcu_read_unlock();
	if (!err)
		atomic64_inc(&port->events);
	if (err || ev->type != MROCE_OFL_EV_CQ_COMP)
		ibdev_info_ratelimited(&mdev->ibdev,
				       "offload event %u id %u: %d\n",
				       ev->type, ev->id, err);
	return err;
}
EXPORT_SYMBOL_GPL(mroce_ofl_event);
