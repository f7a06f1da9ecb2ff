// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce_swnic: a software NIC behind mroce's offload boundary
 * (include/mroce/offload.h, Documentation/offload.rst).
 *
 * It takes the mroce devices created on the netdevs named in its
 * `netdevs` parameter and runs, for them, what a NIC at the boundary's
 * PACKETS level runs:
 *
 *  - transmit: mroce hands over a MetaRoCE packet and how to frame it
 *    (struct mroce_ofl_tx); the packet goes on the port's transmit ring,
 *    and the port's NAPI poll (the NIC's transmit engine, in softirq on a
 *    dummy netdev of its own, not in mroce's call) builds the UDP and IP
 *    headers, computes both checksums in full and sends the frame on the
 *    route mroce chose;
 *  - receive: an rx_handler on each of the device's planes' netdevs (the
 *    NIC's classifier; plane_add and plane_del follow the planes) takes the
 *    frames addressed to this host's MetaRoCE UDP port, checks the IP
 *    header, the lengths and the UDP checksum, and hands the MetaRoCE
 *    packet up with mroce_ofl_rx(). Everything else, and fragments, goes
 *    on to the stack untouched;
 *  - objects (MROCE_OFL_OBJECTS, parameter `objects`, on by default): the
 *    tables a NIC running the datapath keeps, built from mroce's object
 *    commands, and a check of every DATA and UD packet carried either way
 *    against them (shadow.c): mroce's engine still moves the data, swnic
 *    counts each packet that names an object it was not told of;
 *  - DMA (parameter `dma`, on by default, with objects): a device of its
 *    own, /sys/devices/mroce_swnic, handed to mroce as the port's dma_dev,
 *    so that mroce maps every page list for it as for a PCI NIC. It has
 *    no IOMMU (dma-direct) but a bus window: bus address = physical +
 *    2^40, as behind a bridge with an offset, so a physical address where
 *    a mapped one belongs names no memory. The tables turn the bus
 *    addresses back into pages (dma_to_phys()).
 *
 * It uses nothing of mroce but that header and the wire format (wire.c),
 * as a vendor driver would.
 *
 * Locking: RTNL guards the rx_handler registration and is taken before
 * swnic_lock (a mutex), which guards the port list; the `netdevs`
 * parameter is read under the module's parameter lock; the transmit ring
 * is an sk_buff_head with its own lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/udp.h>

#include <mroce/offload.h>

#include "shadow.h"

static char swnic_netdevs[256];
module_param_string(netdevs, swnic_netdevs, sizeof(swnic_netdevs), 0644);
MODULE_PARM_DESC(netdevs,
		 "netdevs whose new mroce devices run on this NIC: names separated by commas, or * for every Ethernet netdev (read at each `rdma link add`)");

static bool swnic_objects = true;
module_param_named(objects, swnic_objects, bool, 0444);
MODULE_PARM_DESC(objects,
		 "take mroce's object commands (MROCE_OFL_OBJECTS) and check every packet carried against them (shadow_* in debugfs); default on");

static bool swnic_dma = true;
module_param_named(dma, swnic_dma, bool, 0444);
MODULE_PARM_DESC(dma,
		 "with objects: hand mroce a DMA device of the NIC's own (dma-direct, 64-bit), so that page lists are its bus addresses; default on");
static struct device *swnic_dma_dev;

static unsigned int swnic_tx_ring = 1024;
module_param_named(tx_ring, swnic_tx_ring, uint, 0444);
MODULE_PARM_DESC(tx_ring,
		 "frames a port's transmit ring holds (16..65536); when it is full, xmit refuses the packet (mroce counts tx_drop_xmit)");


enum swnic_stat {
	SWNIC_TX_FRAMES,	/* frames sent */
	SWNIC_TX_RING_FULL,	/* packets refused: the ring was full */
	SWNIC_TX_ERRORS,	/* not framed: no route, headroom or family */
	SWNIC_TX_DROPPED,	/* frames the layers below dropped (qdisc full) */
	SWNIC_RX_FRAMES,	/* MetaRoCE frames handed up */
	SWNIC_RX_BAD_HEADER,	/* dropped: IP header or length wrong */
	SWNIC_RX_BAD_CSUM,	/* dropped: UDP checksum wrong */
	SWNIC_NSTATS
};

static const char *const swnic_stat_names[SWNIC_NSTATS] = {
	[SWNIC_TX_FRAMES] = "tx_frames",
	[SWNIC_TX_RING_FULL] = "tx_ring_full",
	[SWNIC_TX_ERRORS] = "tx_errors",
	[SWNIC_TX_DROPPED] = "tx_dropped",
	[SWNIC_RX_FRAMES] = "rx_frames",
	[SWNIC_RX_BAD_HEADER] = "rx_bad_header",
	[SWNIC_RX_BAD_CSUM] = "rx_bad_csum",
};

/* the port's counters as mroce queries them: its own, then the tables' */
static const char *swnic_counter_names[SWNIC_NSTATS + SH_NSTATS];

/* one mroce device this NIC runs */
struct swnic_port {
	struct mroce_ofl_port *host;	/* mroce's handle, for mroce_ofl_rx() */
	struct net_device *ndev;	/* mroce holds it until after detach */
	char name[64];			/* the mroce device's */
	__be16 dport;
	/* the planes' netdevs whose rx_handler is ours ([0]: ndev); RTNL */
	struct net_device *rx_ndev[MROCE_OFL_MAX_PLANES];
	struct sk_buff_head txq;	/* the transmit ring */
	struct napi_struct napi;	/* the transmit engine */
	struct net_device napi_dev;	/* dummy: NAPI needs a netdev */
	struct list_head node;		/* swnic_ports; swnic_lock */
	struct dentry *dbg;
	atomic64_t stats[SWNIC_NSTATS];
	struct swnic_shadow sh;		/* the object tables (objects=1) */
};

static DEFINE_MUTEX(swnic_lock);
static LIST_HEAD(swnic_ports);		/* swnic_lock */
static struct dentry *swnic_dbg;

static void swnic_count(struct swnic_port *p, enum swnic_stat s)
{
	atomic64_inc(&p->stats[s]);
}

/* --- claim: the `netdevs` parameter ---------------------------------------- */

static bool swnic_wants(const struct net_device *ndev)
{
	char list[sizeof(swnic_netdevs)], *cur, *name;
	bool yes = false;

	kernel_param_lock(THIS_MODULE);
	strscpy(list, swnic_netdevs, sizeof(list));
	kernel_param_unlock(THIS_MODULE);

	cur = strim(list);
	while (!yes && (name = strsep(&cur, ",")) != NULL) {
		name = strim(name);
		yes = !strcmp(name, "*") || !strcmp(name, ndev->name);
	}
	return yes;
}

static bool swnic_claim(struct net_device *ndev)
{
	return ndev->type == ARPHRD_ETHER && !(ndev->flags & IFF_LOOPBACK) &&
	       swnic_wants(ndev);
}

/* --- transmit ----------------------------------------------------------- */

/* the framing travels with the packet on the ring */
static_assert(sizeof(struct mroce_ofl_tx) <= sizeof_field(struct sk_buff, cb));

static struct mroce_ofl_tx *tx_of(struct sk_buff *skb)
{
	return (struct mroce_ofl_tx *)skb->cb;
}

static int swnic_xmit(void *priv, struct sk_buff *skb,
		      const struct mroce_ofl_tx *tx)
{
	struct swnic_port *p = priv;

	if (unlikely(tx->family != AF_INET && tx->family != AF_INET6)) {
		swnic_count(p, SWNIC_TX_ERRORS);
		kfree_skb(skb);
		return -EAFNOSUPPORT;
	}
	if (unlikely(skb_queue_len(&p->txq) >= swnic_tx_ring)) {
		swnic_count(p, SWNIC_TX_RING_FULL);
		kfree_skb(skb);
		return -ENOBUFS;
	}
	if (swnic_objects)
		swnic_shadow_tx(&p->sh, skb);
	*tx_of(skb) = *tx;
	skb_queue_tail(&p->txq, skb);
	/* the doorbell: in process context, enabling BH runs the poll */
	local_bh_disable();
	napi_schedule(&p->napi);
	local_bh_enable();
	return 0;
}

static int swnic_frame4(struct net *net, struct sk_buff *skb,
			const struct mroce_ofl_tx *tx, struct udphdr *uh)
{
	int ulen = skb->len;
	struct iphdr *iph;

	uh->check = csum_tcpudp_magic(tx->saddr.v4, tx->daddr.v4, ulen,
				      IPPROTO_UDP, csum_partial(uh, ulen, 0));
	if (!uh->check)
		uh->check = CSUM_MANGLED_0;

	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = tx->tos;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = tx->ttl;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = tx->saddr.v4;
	iph->daddr = tx->daddr.v4;
	__ip_select_ident(net, iph, 1);
	ip_send_check(iph);

	skb->protocol = htons(ETH_P_IP);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	return ip_local_out(net, NULL, skb);
}

static int swnic_frame6(struct net *net, struct sk_buff *skb,
			const struct mroce_ofl_tx *tx, struct udphdr *uh)
{
	int ulen = skb->len;
	struct ipv6hdr *ip6h;

	uh->check = csum_ipv6_magic(&tx->saddr.v6, &tx->daddr.v6, ulen,
				    IPPROTO_UDP, csum_partial(uh, ulen, 0));
	if (!uh->check)
		uh->check = CSUM_MANGLED_0;

	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, tx->tos, 0);
	ip6h->payload_len = htons(ulen);
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = tx->ttl;
	ip6h->saddr = tx->saddr.v6;
	ip6h->daddr = tx->daddr.v6;

	skb->protocol = htons(ETH_P_IPV6);
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	return ip6_local_out(net, NULL, skb);
}

/* build one frame around a packet from the ring and send it */
static void swnic_send(struct swnic_port *p, struct sk_buff *skb)
{
	struct mroce_ofl_tx tx = *tx_of(skb);
	struct dst_entry *dst = skb_dst(skb);
	struct udphdr *uh;
	int err;

	if (unlikely(!dst || skb_linearize(skb) ||
		     skb_cow_head(skb, sizeof(*uh) + sizeof(struct ipv6hdr) +
				  LL_RESERVED_SPACE(dst->dev)))) {
		swnic_count(p, SWNIC_TX_ERRORS);
		kfree_skb(skb);
		return;
	}
	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = tx.sport;
	uh->dest = tx.dport;
	uh->len = htons(skb->len);
	uh->check = 0;
	skb->ip_summed = CHECKSUM_NONE;
	skb->dev = dst->dev;

	if (tx.family == AF_INET)
		err = swnic_frame4(dev_net(dst->dev), skb, &tx, uh);
	else
		err = swnic_frame6(dev_net(dst->dev), skb, &tx, uh);
	swnic_count(p, net_xmit_eval(err) ? SWNIC_TX_DROPPED : SWNIC_TX_FRAMES);
}

/*
 * The transmit engine: a NAPI poll that drains the ring, @budget frames a
 * turn (NAPI's weight, 64). A frame queued while it runs is seen by this
 * turn or by the next one napi_schedule() asks for.
 */
static int swnic_poll(struct napi_struct *napi, int budget)
{
	struct swnic_port *p = container_of(napi, struct swnic_port, napi);
	struct sk_buff *skb;
	int n = 0;

	while (n < budget && (skb = skb_dequeue(&p->txq))) {
		swnic_send(p, skb);
		n++;
	}
	if (n < budget)
		napi_complete_done(napi, n);
	return n;
}

/* --- receive ------------------------------------------------------------ */

/*
 * Is @skb one UDP datagram to @dport and one of this host's addresses?
 * (A GRO-merged one is not a MetaRoCE frame: the stack takes it.)
 */
static bool swnic_is_ours(const struct swnic_port *p, struct sk_buff *skb)
{
	struct udphdr _uh;
	const struct udphdr *uh;
	unsigned int off;

	if (skb_is_gso(skb))
		return false;
	if (skb->protocol == htons(ETH_P_IP)) {
		struct iphdr _iph;
		const struct iphdr *iph;

		iph = skb_header_pointer(skb, 0, sizeof(_iph), &_iph);
		if (!iph || iph->version != 4 || iph->ihl < 5 ||
		    iph->protocol != IPPROTO_UDP || ip_is_fragment(iph))
			return false;
		off = iph->ihl * 4;
		uh = skb_header_pointer(skb, off, sizeof(_uh), &_uh);
		return uh && uh->dest == p->dport &&
		       inet_addr_type_dev_table(dev_net(skb->dev), skb->dev,
						iph->daddr) == RTN_LOCAL;
	}
	if (skb->protocol == htons(ETH_P_IPV6)) {
		struct ipv6hdr _ip6h;
		const struct ipv6hdr *ip6h;

		ip6h = skb_header_pointer(skb, 0, sizeof(_ip6h), &_ip6h);
		if (!ip6h || ip6h->version != 6 || ip6h->nexthdr != IPPROTO_UDP)
			return false;
		uh = skb_header_pointer(skb, sizeof(*ip6h), sizeof(_uh), &_uh);
		return uh && uh->dest == p->dport &&
		       ipv6_chk_addr(dev_net(skb->dev), &ip6h->daddr, NULL, 0);
	}
	return false;
}

/* check and strip the IP and UDP headers of a frame swnic_is_ours() took */
static int swnic_rx_check(struct sk_buff *skb)
{
	unsigned int hlen, len;
	struct udphdr *uh;

	if (skb->protocol == htons(ETH_P_IP)) {
		if (!pskb_may_pull(skb, sizeof(struct iphdr)))
			return SWNIC_RX_BAD_HEADER;
		hlen = ip_hdr(skb)->ihl * 4;
		if (!pskb_may_pull(skb, hlen) ||
		    ip_fast_csum(skb->data, ip_hdr(skb)->ihl))
			return SWNIC_RX_BAD_HEADER;
		len = ntohs(ip_hdr(skb)->tot_len);
	} else {
		if (!pskb_may_pull(skb, sizeof(struct ipv6hdr)))
			return SWNIC_RX_BAD_HEADER;
		hlen = sizeof(struct ipv6hdr);
		len = hlen + ntohs(ipv6_hdr(skb)->payload_len);
	}
	if (len > skb->len || len < hlen + sizeof(*uh) ||
	    pskb_trim_rcsum(skb, len))
		return SWNIC_RX_BAD_HEADER;
	skb_reset_network_header(skb);
	__skb_pull(skb, hlen);
	skb_reset_transport_header(skb);
	if (!pskb_may_pull(skb, sizeof(*uh)))
		return SWNIC_RX_BAD_HEADER;
	uh = udp_hdr(skb);
	if (ntohs(uh->len) != skb->len)
		return SWNIC_RX_BAD_HEADER;

	if (skb->protocol == htons(ETH_P_IP)) {
		if (skb_checksum_init_zero_check(skb, IPPROTO_UDP, uh->check,
						 inet_compute_pseudo))
			return SWNIC_RX_BAD_CSUM;
	} else if (!uh->check ||
		   skb_checksum_init(skb, IPPROTO_UDP, ip6_compute_pseudo)) {
		return SWNIC_RX_BAD_CSUM;
	}
	if (skb_checksum_complete(skb))
		return SWNIC_RX_BAD_CSUM;
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	__skb_pull(skb, sizeof(*uh));
	return SWNIC_NSTATS;
}

/* the classifier: RCU read side, softirq */
static rx_handler_result_t swnic_rx_handler(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct swnic_port *p = rcu_dereference(skb->dev->rx_handler_data);
	int bad;

	if (!p || skb->pkt_type != PACKET_HOST || !swnic_is_ours(p, skb))
		return RX_HANDLER_PASS;
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return RX_HANDLER_CONSUMED;
	bad = swnic_rx_check(skb);
	if (bad != SWNIC_NSTATS) {
		swnic_count(p, bad);
		kfree_skb(skb);
		return RX_HANDLER_CONSUMED;
	}
	swnic_count(p, SWNIC_RX_FRAMES);
	if (swnic_objects)
		swnic_shadow_rx(&p->sh, skb);
	mroce_ofl_rx(p->host, skb);
	return RX_HANDLER_CONSUMED;
}

/* --- ports: attach, detach, netdev events -------------------------------- */

/* the port's counters: its own, then with objects its tables' */
static u32 swnic_ncounters(void)
{
	return SWNIC_NSTATS + (swnic_objects ? SH_NSTATS : 0);
}

/* the port's counters, in swnic_counter_names' order */
static int swnic_query_counters(void *priv, u64 *val)
{
	struct swnic_port *p = priv;
	int i;

	for (i = 0; i < SWNIC_NSTATS; i++)
		val[i] = atomic64_read(&p->stats[i]);
	if (swnic_objects)
		swnic_shadow_counters(&p->sh, NULL, val + SWNIC_NSTATS);
	return 0;
}

static int swnic_stats_show(struct seq_file *m, void *v)
{
	struct swnic_port *p = m->private;
	u64 val[SWNIC_NSTATS + SH_NSTATS];
	u32 i;

	seq_printf(m, "device %s netdev %s ring %u/%u\n", p->name,
		   p->ndev->name, skb_queue_len(&p->txq), swnic_tx_ring);
	rtnl_lock();
	for (i = 0; i < MROCE_OFL_MAX_PLANES; i++)
		if (p->rx_ndev[i])
			seq_printf(m, "rx plane %d %s\n", i, p->rx_ndev[i]->name);
	rtnl_unlock();
	swnic_query_counters(p, val);
	for (i = 0; i < swnic_ncounters(); i++)
		seq_printf(m, "%s %llu\n", swnic_counter_names[i], val[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(swnic_stats);

/* RTNL: classify what arrives on @ndev, plane @k of the port */
static int swnic_rx_on(struct swnic_port *p, u32 k, struct net_device *ndev)
{
	int err;

	ASSERT_RTNL();
	if (k >= MROCE_OFL_MAX_PLANES || p->rx_ndev[k])
		return -EINVAL;
	err = netdev_rx_handler_register(ndev, swnic_rx_handler, p);
	if (err) {
		pr_err("%s: cannot take receive on %s (plane %u): %d\n",
		       p->name, ndev->name, k, err);
		return err;
	}
	p->rx_ndev[k] = ndev;
	return 0;
}

/* RTNL: plane @k's netdev is the stack's again */
static void swnic_rx_off(struct swnic_port *p, u32 k)
{
	ASSERT_RTNL();
	if (k >= MROCE_OFL_MAX_PLANES || !p->rx_ndev[k])
		return;
	netdev_rx_handler_unregister(p->rx_ndev[k]);	/* waits for handlers */
	p->rx_ndev[k] = NULL;
}

static int swnic_plane_add(void *priv, u32 k, struct net_device *ndev)
{
	return k ? swnic_rx_on(priv, k, ndev) : -EINVAL;
}

static void swnic_plane_del(void *priv, u32 k)
{
	if (k)
		swnic_rx_off(priv, k);
}

static int swnic_attach(struct mroce_ofl_port *host,
			struct mroce_ofl_port_info *info, void **priv)
{
	struct swnic_port *p;
	int err;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->host = host;
	p->ndev = info->ndev;
	p->dport = htons(info->udp_dport);
	strscpy(p->name, info->ibdev_name, sizeof(p->name));
	skb_queue_head_init(&p->txq);
	swnic_shadow_init(&p->sh, swnic_dma_dev);
	init_dummy_netdev(&p->napi_dev);
	netif_napi_add_tx(&p->napi_dev, &p->napi, swnic_poll);
	napi_enable(&p->napi);

	/* RTNL, then swnic_lock: the netdev notifier's order */
	rtnl_lock();
	err = swnic_rx_on(p, 0, p->ndev);
	if (!err) {
		mutex_lock(&swnic_lock);
		list_add(&p->node, &swnic_ports);
		mutex_unlock(&swnic_lock);
	}
	rtnl_unlock();
	if (err) {
		napi_disable(&p->napi);
		netif_napi_del(&p->napi);
		kfree(p);
		return err;
	}
	p->dbg = debugfs_create_file(p->name, 0400, swnic_dbg, p,
				     &swnic_stats_fops);
	info->dma_dev = swnic_dma_dev;
	pr_info("%s on %s: packets level%s%s, transmit ring %u\n", p->name,
		p->ndev->name, swnic_objects ? " with object tables" : "",
		swnic_dma_dev ? " and a DMA device" : "", swnic_tx_ring);
	*priv = p;
	return 0;
}

static void swnic_detach(void *priv)
{
	struct swnic_port *p = priv;
	u32 k;

	debugfs_remove(p->dbg);
	rtnl_lock();
	mutex_lock(&swnic_lock);
	list_del(&p->node);
	mutex_unlock(&swnic_lock);
	for (k = 0; k < MROCE_OFL_MAX_PLANES; k++)
		swnic_rx_off(p, k);
	rtnl_unlock();
	/* mroce sends no more: the engine stops, what is left is dropped */
	napi_disable(&p->napi);
	netif_napi_del(&p->napi);
	skb_queue_purge(&p->txq);
	swnic_shadow_free(&p->sh);
	pr_info("%s detached from %s\n", p->name, p->ndev->name);
	kfree(p);
}

/* an object command from mroce's verbs (MROCE_OFL_OBJECTS) */
static int swnic_cmd(void *priv, const struct mroce_ofl_cmd *c)
{
	struct swnic_port *p = priv;

	return swnic_shadow_cmd(&p->sh, c);
}

/* a doorbell from mroce (MROCE_OFL_OBJECTS): any context */
static void swnic_doorbell(void *priv, u32 queue, u32 value)
{
	struct swnic_port *p = priv;

	swnic_shadow_doorbell(&p->sh, queue, value);
}

/* a netdev going away gets its receive back at once (RTNL) */
static int swnic_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct swnic_port *p;
	u32 k;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	mutex_lock(&swnic_lock);
	list_for_each_entry(p, &swnic_ports, node)
		for (k = 0; k < MROCE_OFL_MAX_PLANES; k++)
			if (p->rx_ndev[k] == ndev)
				swnic_rx_off(p, k);
	mutex_unlock(&swnic_lock);
	return NOTIFY_DONE;
}

static struct notifier_block swnic_netdev_nb = {
	.notifier_call = swnic_netdev_event,
};

/* caps gains MROCE_OFL_OBJECTS at load with objects=1 */
static struct mroce_offload swnic_offload = {
	.name = "mroce_swnic",
	.owner = THIS_MODULE,
	.version = MROCE_OFFLOAD_VERSION,
	.caps = MROCE_OFL_PACKETS,
	.claim = swnic_claim,
	.attach = swnic_attach,
	.detach = swnic_detach,
	.plane_add = swnic_plane_add,
	.plane_del = swnic_plane_del,
	.xmit = swnic_xmit,
	.cmd = swnic_cmd,
	.doorbell = swnic_doorbell,
	.counter_names = swnic_counter_names,
	.query_counters = swnic_query_counters,
};

/* the NIC's bus window: RAM below 2^40 appears at 2^40 and up */
#define SWNIC_BUS_OFFSET	BIT_ULL(40)
static const struct bus_dma_region swnic_bus[] = {
	{ .cpu_start = 0, .dma_start = SWNIC_BUS_OFFSET,
	  .size = SWNIC_BUS_OFFSET, .offset = -SWNIC_BUS_OFFSET },
	{}
};

/* the NIC's DMA device: dma-direct through the window */
static int swnic_dma_init(void)
{
	struct device *dev;
	int err;

	if (!swnic_objects || !swnic_dma)
		return 0;
	dev = root_device_register("mroce_swnic");
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	dev->dma_mask = &dev->coherent_dma_mask;
	err = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (err) {
		root_device_unregister(dev);
		return err;
	}
	dev->dma_range_map = swnic_bus;
	swnic_dma_dev = dev;
	return 0;
}

static void swnic_dma_exit(void)
{
	if (swnic_dma_dev) {
		swnic_dma_dev->dma_range_map = NULL;	/* not the core's to free */
		root_device_unregister(swnic_dma_dev);
	}
	swnic_dma_dev = NULL;
}

static int __init swnic_init(void)
{
	int err;

	swnic_tx_ring = clamp(swnic_tx_ring, 16U, 65536U);
	memcpy(swnic_counter_names, swnic_stat_names, sizeof(swnic_stat_names));
	swnic_offload.ncounters = swnic_ncounters();
	if (swnic_objects) {
		swnic_offload.caps |= MROCE_OFL_OBJECTS;
		swnic_shadow_counters(NULL, swnic_counter_names + SWNIC_NSTATS,
				      NULL);
	} else {	/* the ops of a feature not taken are refused */
		swnic_offload.cmd = NULL;
		swnic_offload.doorbell = NULL;
	}
	err = swnic_dma_init();
	if (err)
		return err;
	err = register_netdevice_notifier(&swnic_netdev_nb);
	if (err)
		goto err_dma;
	swnic_dbg = debugfs_create_dir("mroce_swnic", NULL);
	err = mroce_offload_register(&swnic_offload);
	if (err)
		goto err_nb;
	return 0;

err_nb:
	debugfs_remove(swnic_dbg);
	unregister_netdevice_notifier(&swnic_netdev_nb);
err_dma:
	swnic_dma_exit();
	return err;
}

/* only once no device uses us: each one pins this module */
static void __exit swnic_exit(void)
{
	mroce_offload_unregister(&swnic_offload);
	WARN_ON(!list_empty(&swnic_ports));
	debugfs_remove(swnic_dbg);
	unregister_netdevice_notifier(&swnic_netdev_nb);
	swnic_dma_exit();
}

module_init(swnic_init);
module_exit(swnic_exit);

MODULE_AUTHOR("mroce authors");
MODULE_DESCRIPTION("Software NIC for mroce: an offload at the packets level, with object tables");
MODULE_LICENSE("Dual BSD/GPL");
