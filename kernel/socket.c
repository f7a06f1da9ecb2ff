// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Per-namespace UDP sockets (see socket.h).
 *
 * Locking and lifetime:
 *  - struct mroce_net lives in the namespace's net_generic area; it exists
 *    from pernet init to pernet exit of that namespace.
 *  - mnet->lock (a mutex) serialises attach/detach: the user count, opening
 *    and closing the sockets, and writers of mnet->devs. It is only taken in
 *    process context with no other lock held (never under RTNL), and
 *    nothing is taken inside it except what the socket calls take
 *    themselves, so holding it across udp_sock_create()/release cannot
 *    invert an order. It is held there so that a close and the next open
 *    cannot overlap (the new bind would find the port still in use).
 *  - The receive path never takes it: encap_rcv runs in softirq under RCU,
 *    finds mnet through sk_user_data and walks mnet->devs with RCU.
 *    udp_tunnel_sock_release() clears sk_user_data and waits for a grace
 *    period before the socket goes away.
 *  - A device is detached from its namespace in ib_device_ops.dealloc_driver.
 *    A namespace cannot go away under its devices: devlist.c's pre_exit
 *    hook unregisters, synchronously, every mroce device whose netdev is in
 *    the dying namespace, so when pernet exit runs here the user count is
 *    zero and the sockets are closed.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/udp.h>
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include "socket.h"
#include "rx.h"
#include "mroce.h"

struct mroce_net {
	struct net *net;
	struct mutex lock;
	unsigned int users;		/* attached devices; lock */
	struct socket *sock4;		/* lock */
	struct socket *sock6;		/* lock; NULL without IPv6 */
	struct list_head devs;		/* mroce_dev.net_node; RCU, lock */
	atomic64_t no_device;		/* datagrams for no device of ours */
};

static unsigned int mroce_net_id __read_mostly;
static u16 mroce_udp_port __read_mostly;

#define mroce_dbg_net(mnet, fmt, ...)					\
	pr_debug("net %u %s: " fmt, (mnet)->net->ns.inum, __func__,	\
		 ##__VA_ARGS__)

/*
 * The netdev a datagram came in for. One that a node sends to its own
 * address (two QPs of one device, or two devices of one namespace) arrives
 * on the loopback device: the netdev holding the destination address names
 * the device then. RCU read side.
 */
static struct net_device *mroce_rx_netdev(struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;

	if (!dev || !(dev->flags & IFF_LOOPBACK))
		return dev;
	if (ip_hdr(skb)->version == 4)
		return __ip_dev_find(dev_net(dev), ip_hdr(skb)->daddr, false);
#if IS_ENABLED(CONFIG_IPV6)
	return ipv6_dev_find(dev_net(dev), &ipv6_hdr(skb)->daddr, NULL);
#else
	return NULL;
#endif
}

/* softirq, RCU read side: hand the datagram to its device or drop it */
static int mroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct mroce_net *mnet = rcu_dereference_sk_user_data(sk);
	struct net_device *dev = mroce_rx_netdev(skb);
	struct mroce_dev *mdev;

	if (unlikely(!mnet))
		goto drop;		/* the socket is being released */

	/* the device the datagram came in for: by the netdev, any plane's */
	list_for_each_entry_rcu(mdev, &mnet->devs, net_node) {
		if (!dev || mroce_plane_of(mdev, dev) < 0)
			continue;
		mroce_counter_inc(mdev, MROCE_CNT_RX_PACKETS);
		__skb_pull(skb, sizeof(struct udphdr));
		mroce_rx(mdev, skb);
		return 0;
	}
	net_dbg_ratelimited("mroce: datagram from %s for no device\n",
			    skb->dev ? skb->dev->name : "?");
	atomic64_inc(&mnet->no_device);
drop:
	kfree_skb(skb);
	return 0;
}

static struct socket *mroce_udp_open(struct mroce_net *mnet, bool ipv6)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.sk_user_data = mnet,
		.encap_type = 1,
		.encap_rcv = mroce_udp_encap_recv,
	};
	struct udp_port_cfg cfg = {
		.local_udp_port = htons(mroce_udp_port),
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		cfg.family = AF_INET6;
		cfg.local_ip6 = in6addr_any;
		cfg.ipv6_v6only = 1;
	} else {
		cfg.family = AF_INET;
		cfg.local_ip.s_addr = htonl(INADDR_ANY);
	}

	err = udp_sock_create(mnet->net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);

	setup_udp_tunnel_sock(mnet->net, sock, &tcfg);
	/*
	 * setup_udp_tunnel_sock() turns IPv4 multicast loopback off; UD
	 * multicast needs it: the QPs of this host attached to a group get
	 * what is sent to it from here (IPv6 sockets keep theirs on).
	 */
	if (!ipv6) {
		lock_sock(sock->sk);
		inet_sk(sock->sk)->mc_loop = 1;
		release_sock(sock->sk);
	}
	return sock;
}

static int mroce_net_open(struct mroce_net *mnet)
{
	struct socket *sock;

	lockdep_assert_held(&mnet->lock);

	sock = mroce_udp_open(mnet, false);
	if (IS_ERR(sock)) {
		pr_err("net %u: cannot bind UDP port %u (IPv4): %pe\n",
		       mnet->net->ns.inum, mroce_udp_port, sock);
		return PTR_ERR(sock);
	}
	mnet->sock4 = sock;

	sock = mroce_udp_open(mnet, true);
	if (IS_ERR(sock) && PTR_ERR(sock) != -EAFNOSUPPORT) {
		pr_err("net %u: cannot bind UDP port %u (IPv6): %pe\n",
		       mnet->net->ns.inum, mroce_udp_port, sock);
		udp_tunnel_sock_release(mnet->sock4);
		mnet->sock4 = NULL;
		return PTR_ERR(sock);
	}
	mnet->sock6 = IS_ERR(sock) ? NULL : sock;	/* no IPv6: v4 only */

	mroce_dbg_net(mnet, "listening on UDP %u%s\n", mroce_udp_port,
		      mnet->sock6 ? "" : " (IPv4 only)");
	return 0;
}

static void mroce_net_close(struct mroce_net *mnet)
{
	lockdep_assert_held(&mnet->lock);

	if (mnet->sock6)
		udp_tunnel_sock_release(mnet->sock6);
	udp_tunnel_sock_release(mnet->sock4);
	mnet->sock4 = NULL;
	mnet->sock6 = NULL;
	mroce_dbg_net(mnet, "closed UDP %u\n", mroce_udp_port);
}

/**
 * mroce_net_attach - join the namespace of @mdev's netdev
 * @mdev: new device; mdev->ndev set, not yet visible to anyone
 *
 * Opens the namespace's sockets if @mdev is its first device. Process
 * context, no locks held. Undone by mroce_net_detach().
 */
int mroce_net_attach(struct mroce_dev *mdev)
{
	struct mroce_net *mnet = net_generic(dev_net(mdev->ndev),
					     mroce_net_id);
	int err = 0;

	mutex_lock(&mnet->lock);
	if (!mnet->users)
		err = mroce_net_open(mnet);
	if (!err) {
		mnet->users++;
		list_add_tail_rcu(&mdev->net_node, &mnet->devs);
		mdev->net_listed = true;
		mdev->mnet = mnet;
		/* they stay open while the namespace has devices */
		mdev->tx_sk[0] = mnet->sock4->sk;
		mdev->tx_sk[1] = mnet->sock6 ? mnet->sock6->sk : NULL;
		mdev->udp_dport = mroce_udp_port;
	}
	mutex_unlock(&mnet->lock);
	return err;
}

/*
 * Stop receiving for @mdev: the namespace's receive path no longer finds
 * it (after a grace period). Its sockets stay open for what it still
 * sends until mroce_net_detach().
 */
static void net_unlist_locked(struct mroce_dev *mdev)
{
	lockdep_assert_held(&mdev->mnet->lock);
	if (mdev->net_listed)
		list_del_rcu(&mdev->net_node);
	mdev->net_listed = false;
}

void mroce_net_unlist(struct mroce_dev *mdev)
{
	struct mroce_net *mnet = mdev->mnet;

	if (!mnet)
		return;
	mutex_lock(&mnet->lock);
	net_unlist_locked(mdev);
	mutex_unlock(&mnet->lock);
}

/* Leave the namespace; closes its sockets after its last device. */
void mroce_net_detach(struct mroce_dev *mdev)
{
	struct mroce_net *mnet = mdev->mnet;

	if (!mnet)
		return;

	mutex_lock(&mnet->lock);
	net_unlist_locked(mdev);
	if (!--mnet->users)
		mroce_net_close(mnet);
	mutex_unlock(&mnet->lock);
	mdev->mnet = NULL;
	mdev->tx_sk[0] = mdev->tx_sk[1] = NULL;
}

static int __net_init mroce_net_init(struct net *net)
{
	struct mroce_net *mnet = net_generic(net, mroce_net_id);

	mnet->net = net;
	mutex_init(&mnet->lock);
	INIT_LIST_HEAD(&mnet->devs);
	return 0;
}

static void __net_exit mroce_net_exit(struct net *net)
{
	struct mroce_net *mnet = net_generic(net, mroce_net_id);

	WARN_ON_ONCE(mnet->users || mnet->sock4);
	mutex_destroy(&mnet->lock);
}

static struct pernet_operations mroce_net_ops = {
	.init = mroce_net_init,
	.exit = mroce_net_exit,
	.id = &mroce_net_id,
	.size = sizeof(struct mroce_net),
};

/*
 * 4791 is RoCEv2 (rdma_rxe binds it in init_net) and 4793 Ultra Ethernet;
 * sharing either would hand their traffic to us or ours to them.
 */
int mroce_socket_init(u16 udp_port)
{
	if (!udp_port || udp_port == 4791 || udp_port == 4793) {
		pr_err("udp_port=%u refused (0, 4791 RoCEv2 and 4793 UET are not ours)\n",
		       udp_port);
		return -EINVAL;
	}
	mroce_udp_port = udp_port;
	return register_pernet_subsys(&mroce_net_ops);
}

u64 mroce_net_no_device(struct mroce_dev *mdev)
{
	struct mroce_net *mnet = READ_ONCE(mdev->mnet);

	return mnet ? atomic64_read(&mnet->no_device) : 0;
}

void mroce_socket_exit(void)
{
	unregister_pernet_subsys(&mroce_net_ops);
}
