// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Packets out (see net.h), and the batch flush that sends them.
 */
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/dsfield.h>
#include <net/if_inet6.h>
#include <net/inet_ecn.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/ip_tunnels.h>
#include <net/route.h>
#include <net/udp_tunnel.h>

#include "batch.h"
#include "cq.h"
#include "loop.h"
#include "net.h"
#include "offload.h"
#include "param.h"
#include "mroce.h"

/* what the send needs; read out before the IP layer reuses skb->cb */
struct mroce_skb_cb {
	struct mroce_dev *mdev;
	union {
		__be32 v4;
		struct in6_addr v6;
	} saddr, daddr;
	__be16 sport;
	u8 v6;
	u8 loop;	/* to ourselves: loop.c, not UDP and IP */
};

static_assert(sizeof(struct mroce_skb_cb) <= sizeof_field(struct sk_buff, cb));

static struct mroce_skb_cb *cb_of(struct sk_buff *skb)
{
	return (struct mroce_skb_cb *)skb->cb;
}

#define MROCE_HEADROOM (LL_MAX_HEADER + sizeof(struct ipv6hdr) + \
			sizeof(struct udphdr))

struct sk_buff *mroce_net_alloc(u32 len)
{
	struct sk_buff *skb = alloc_skb(MROCE_HEADROOM + len, GFP_ATOMIC);

	if (skb)
		skb_reserve(skb, MROCE_HEADROOM);
	return skb;
}

bool mroce_addr_eq(const struct sockaddr_storage *a,
		   const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((struct sockaddr_in *)b)->sin_addr.s_addr;
	return ipv6_addr_equal(&((struct sockaddr_in6 *)a)->sin6_addr,
			       &((struct sockaddr_in6 *)b)->sin6_addr);
}

bool mroce_addr_is_mcast(const struct sockaddr_storage *a)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)a;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)a;

	if (a->ss_family == AF_INET)
		return ipv4_is_multicast(s4->sin_addr.s_addr);
	return a->ss_family == AF_INET6 &&
	       ipv6_addr_is_multicast(&s6->sin6_addr);
}

static int route4(struct mroce_dev *mdev, struct sk_buff *skb,
		  struct mroce_skb_cb *cb, struct dst_cache *dc, int oif)
{
	struct flowi4 fl = {
		.flowi4_oif = oif,
		.daddr = cb->daddr.v4,
		.saddr = cb->saddr.v4,
		.flowi4_proto = IPPROTO_UDP,
		.flowi4_tos = INET_ECN_ECT_0,
		.fl4_sport = cb->sport,
		.fl4_dport = htons(mdev->udp_dport),
	};
	struct rtable *rt;
	__be32 saddr;

	rt = dc ? dst_cache_get_ip4(dc, &saddr) : NULL;
	if (rt) {
		skb_dst_set(skb, &rt->dst);
		return 0;
	}
	rt = ip_route_output_key(mdev->net, &fl);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	if (dc)
		dst_cache_set_ip4(dc, &rt->dst, fl.saddr);
	skb_dst_set(skb, &rt->dst);
	return 0;
}

static int route6(struct mroce_dev *mdev, struct sk_buff *skb,
		  struct mroce_skb_cb *cb, struct dst_cache *dc, int oif)
{
	struct flowi6 fl = {
		.flowi6_oif = oif,
		.daddr = cb->daddr.v6,
		.saddr = cb->saddr.v6,
		.flowi6_proto = IPPROTO_UDP,
		.fl6_sport = cb->sport,
		.fl6_dport = htons(mdev->udp_dport),
	};
	struct in6_addr saddr;
	struct dst_entry *dst;

	dst = dc ? dst_cache_get_ip6(dc, &saddr) : NULL;
	if (dst) {
		skb_dst_set(skb, dst);
		return 0;
	}
	dst = ipv6_stub->ipv6_dst_lookup_flow(mdev->net,
					      mdev->tx_sk[1], &fl, NULL);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	if (dc)
		dst_cache_set_ip6(dc, dst, &fl.saddr);
	skb_dst_set(skb, dst);
	return 0;
}

/* is @a6 / @a4 (by @v6) one of @ndev's own addresses? (RCU) */
static bool ndev_owns(struct net_device *ndev, bool v6,
		      const struct in6_addr *a6, __be32 a4)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;

	if (v6) {
#if IS_ENABLED(CONFIG_IPV6)
		/* strict: a global address counts only on @ndev itself */
		return ipv6_chk_addr(dev_net(ndev), a6, ndev, 1);
#else
		return false;
#endif
	}
	in_dev = __in_dev_get_rcu(ndev);
	if (!in_dev)
		return false;
	in_dev_for_each_ifa_rcu(ifa, in_dev)
		if (ifa->ifa_local == a4)
			return true;
	return false;
}

/*
 * An address of one of @mdev's planes? A walk of their few addresses,
 * under rcu_read_lock(): the netdevs' address lists are read with
 * rcu_dereference(), which lockdep accepts only there, not in a caller's
 * BH-off section (a QP's modify sends the CONNECT from process context
 * with BHs off: "suspicious RCU usage" on the debug kernel).
 */
static bool self_addr(struct mroce_dev *mdev, bool v6,
		      const struct in6_addr *a6, __be32 a4)
{
	u32 n = mroce_planes(mdev), k;
	bool self = false;

	rcu_read_lock();
	for (k = 0; k < n && !self; k++) {
		struct net_device *ndev = mroce_plane_ndev(mdev, k);

		self = ndev && ndev_owns(ndev, v6, a6, a4);
	}
	rcu_read_unlock();
	return self;
}

bool mroce_net_is_self(struct mroce_dev *mdev,
		       const struct sockaddr_storage *sa)
{
	if (sa->ss_family == AF_INET6)
		return self_addr(mdev, true,
				 &((const struct sockaddr_in6 *)sa)->sin6_addr, 0);
	if (sa->ss_family == AF_INET)
		return self_addr(mdev, false, NULL,
				 ((const struct sockaddr_in *)sa)->sin_addr.s_addr);
	return false;
}

/*
 * Is the packet for this device itself: to an address of one of its
 * planes? Decided by the address alone, as a NIC decides by its own MAC
 * (rdma_rxe too): a policy rule may route a node's own address out of a
 * wire (the test rig's does), and a packet sent there would come back to
 * us anyway. Another device of the namespace, or a socket of the host's
 * own, goes by the stack: only our own receive path is skipped. No lookup
 * in the FIB.
 */
static bool to_self(struct mroce_dev *mdev, const struct mroce_skb_cb *cb)
{
	return mroce_param_loop_direct() &&
	       self_addr(mdev, cb->v6, &cb->daddr.v6, cb->daddr.v4);
}

int mroce_net_queue(struct mroce_dev *mdev, struct sk_buff *skb,
		    const struct sockaddr_storage *saddr,
		    const struct sockaddr_storage *daddr, u16 sport,
		    struct dst_cache *dc, int oif, struct mroce_batch *b)
{
	struct mroce_skb_cb *cb = cb_of(skb);
	int err;

	memset(cb, 0, sizeof(*cb));
	cb->mdev = mdev;
	cb->sport = htons(sport);
	cb->v6 = daddr->ss_family == AF_INET6;
	if (cb->v6) {
		cb->saddr.v6 = ((struct sockaddr_in6 *)saddr)->sin6_addr;
		cb->daddr.v6 = ((struct sockaddr_in6 *)daddr)->sin6_addr;
	} else {
		cb->saddr.v4 = ((struct sockaddr_in *)saddr)->sin_addr.s_addr;
		cb->daddr.v4 = ((struct sockaddr_in *)daddr)->sin_addr.s_addr;
	}
	/* to ourselves: no route wanted (loop_xmit() frames it itself) */
	cb->loop = to_self(mdev, cb);
	if (!mdev->tx_sk[cb->v6])
		err = -EAFNOSUPPORT;
	else if (cb->loop)
		err = 0;
	else if (cb->v6)
		err = route6(mdev, skb, cb, dc, oif);
	else
		err = route4(mdev, skb, cb, dc, oif);
	if (err) {
		mroce_counter_inc(mdev, MROCE_CNT_TX_DROP_NO_ROUTE);
		kfree_skb(skb);
		return err;
	}
	__skb_queue_tail(&b->tx, skb);
	return 0;
}


/* what an offload needs to frame a packet queued by mroce_net_queue() */
static void tx_desc(const struct mroce_dev *mdev, const struct sk_buff *skb,
		    struct mroce_ofl_tx *tx)
{
	const struct mroce_skb_cb *cb = cb_of((struct sk_buff *)skb);
	struct dst_entry *dst = skb_dst(skb);

	memset(tx, 0, sizeof(*tx));
	tx->tos = INET_ECN_ECT_0;
	tx->sport = cb->sport;
	tx->dport = htons(mdev->udp_dport);
	if (cb->v6) {
		tx->family = AF_INET6;
		tx->ttl = ip6_dst_hoplimit(dst);
		tx->saddr.v6 = cb->saddr.v6;
		tx->daddr.v6 = cb->daddr.v6;
	} else {
		tx->family = AF_INET;
		tx->ttl = ip4_dst_hoplimit(dst);
		tx->saddr.v4 = cb->saddr.v4;
		tx->daddr.v4 = cb->daddr.v4;
	}
}

/*
 * A device's offload frames and sends the packet (level PACKETS). Out of
 * line: the software path's loop in mroce_batch_flush() keeps its frame.
 */
static noinline int ofl_xmit(struct mroce_dev *mdev, struct sk_buff *skb)
{
	struct mroce_ofl_tx tx;
	int err;

	tx_desc(mdev, skb, &tx);
	err = mdev->ofl.ofl->xmit(mdev->ofl.priv, skb, &tx);
	if (!err)
		mroce_counter_inc(mdev, MROCE_CNT_TX_OFFLOAD);
	return err;
}

/* the software datapath's xmit: UDP, IP, out */
int mroce_net_xmit(struct mroce_dev *mdev, struct sk_buff *skb)
{
	struct mroce_skb_cb cb = *cb_of(skb);
	struct dst_entry *dst = skb_dst(skb);
	__be16 dport = htons(mdev->udp_dport);
	struct sock *sk = mdev->tx_sk[cb.v6];

	/* the tunnel helpers take over the route reference */
	dst_hold(dst);
	skb_dst_drop(skb);
	skb->ip_summed = CHECKSUM_NONE;
	if (cb.v6) {
		udp_tunnel6_xmit_skb(dst, sk, skb, dst->dev, &cb.saddr.v6,
				     &cb.daddr.v6, INET_ECN_ECT_0,
				     ip6_dst_hoplimit(dst), 0, cb.sport, dport,
				     false);
	} else {
		udp_tunnel_xmit_skb((struct rtable *)dst, sk, skb,
				    cb.saddr.v4, cb.daddr.v4, INET_ECN_ECT_0,
				    ip4_dst_hoplimit(dst), 0, cb.sport, dport,
				    false, false);
	}
	return 0;
}

/* into this CPU's loop queue (loop.h), its NAPI context scheduled */
static int loop_queue(struct mroce_loop *l, struct sk_buff *skb)
{
	struct mroce_loop_cpu *lc;
	int err = 0;

	/* BHs off: this CPU's queue is ours; RCU against mroce_loop_exit() */
	local_bh_disable();
	rcu_read_lock();
	lc = this_cpu_ptr(l->cpu);
	if (unlikely(!READ_ONCE(l->live) ||
		     skb_queue_len(&lc->q) >= MROCE_LOOP_QLEN)) {
		kfree_skb(skb);
		err = -ENOBUFS;
	} else {
		__skb_queue_tail(&lc->q, skb);
		/*
		 * From inside this CPU's poll (a packet's ACK or answer), or a
		 * doorbell that drains the queue itself (loop.h), which
		 * dequeues it next: scheduling the context again would cost an
		 * empty poll, and ten of those in a row hand the CPU's
		 * softirqs to ksoftirqd.
		 */
		if (!lc->polling)
			napi_schedule(&lc->napi);
	}
	rcu_read_unlock();
	local_bh_enable();	/* the softirq runs here, unless we are in one */
	return err;
}

/*
 * A packet to ourselves, framed as it would arrive (IP and UDP headers
 * before the data, the data at the MetaRoCE header: mroce_rx()'s input),
 * into the device's loop (loop.c).
 */
static noinline int loop_xmit(struct mroce_dev *mdev, struct sk_buff *skb)
{
	struct mroce_skb_cb cb = *cb_of(skb);
	u32 len = skb->len + sizeof(struct udphdr);
	struct udphdr *uh;

	skb_dst_drop(skb);
	memset(skb->cb, 0, sizeof(skb->cb));
	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = cb.sport;
	uh->dest = htons(mdev->udp_dport);
	uh->len = htons(len);
	uh->check = 0;
	if (cb.v6) {
		struct ipv6hdr *ip6 = skb_push(skb, sizeof(*ip6));

		skb_reset_network_header(skb);
		ip6_flow_hdr(ip6, INET_ECN_ECT_0, 0);
		ip6->payload_len = htons(len);
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = 64;
		ip6->saddr = cb.saddr.v6;
		ip6->daddr = cb.daddr.v6;
		skb->protocol = htons(ETH_P_IPV6);
	} else {
		struct iphdr *iph = skb_push(skb, sizeof(*iph));

		skb_reset_network_header(skb);
		iph->version = 4;
		iph->ihl = 5;
		iph->tos = INET_ECN_ECT_0;
		iph->tot_len = htons(len + sizeof(*iph));
		iph->id = 0;
		iph->frag_off = htons(IP_DF);
		iph->ttl = 64;
		iph->protocol = IPPROTO_UDP;
		iph->saddr = cb.saddr.v4;
		iph->daddr = cb.daddr.v4;
		ip_send_check(iph);
		skb->protocol = htons(ETH_P_IP);
	}
	skb->pkt_type = PACKET_HOST;
	__skb_pull(skb, skb_transport_offset(skb) + sizeof(*uh));
	return loop_queue(&mdev->loop, skb);
}

void mroce_batch_flush(struct mroce_batch *b)
{
	struct sk_buff *skb;
	struct mroce_cq *cq;

	/*
	 * The whole batch goes out before any receive runs on this CPU. A
	 * veth pair and our loop hand a packet to the receive softirq, which
	 * runs when BHs are enabled again: at the first packet, its ACK
	 * would come back and the window it opens send new packets ahead of
	 * the rest of this batch, which sent earlier but not out yet, the
	 * later ones' ACKs then pass for losses of these (by send time: a
	 * third to a half of a lossless 64 KiB WRITE resent needlessly).
	 */
	local_bh_disable();
	while ((skb = __skb_dequeue(&b->tx))) {
		struct mroce_dev *mdev = cb_of(skb)->mdev;
		int err;

		if (unlikely(cb_of(skb)->loop))
			err = loop_xmit(mdev, skb);
		else if (static_branch_unlikely(&mroce_ofl_in_use) &&
			 mdev->ofl.ofl)
			err = ofl_xmit(mdev, skb);
		else
			err = mroce_net_xmit(mdev, skb);
		if (err)
			mroce_counter_inc(mdev, MROCE_CNT_TX_DROP_XMIT);
	}
	local_bh_enable();
	while ((cq = b->cqs)) {
		b->cqs = cq->batch_next;
		mroce_cq_batch_notify(cq);
	}
}

void mroce_net_dst(const struct sk_buff *skb, struct sockaddr_storage *sa)
{
	memset(sa, 0, sizeof(*sa));
	if (ip_hdr(skb)->version == 4) {
		sa->ss_family = AF_INET;
		((struct sockaddr_in *)sa)->sin_addr.s_addr = ip_hdr(skb)->daddr;
	} else {
		sa->ss_family = AF_INET6;
		((struct sockaddr_in6 *)sa)->sin6_addr = ipv6_hdr(skb)->daddr;
	}
}

void mroce_net_addrs(const struct sk_buff *skb, struct mre_addr *src,
		     struct mre_addr *dst)
{
	memset(src, 0, sizeof(*src));
	memset(dst, 0, sizeof(*dst));
	if (ip_hdr(skb)->version == 4) {
		src->family = dst->family = MRE_AF_INET;
		memcpy(src->a, &ip_hdr(skb)->saddr, 4);
		memcpy(dst->a, &ip_hdr(skb)->daddr, 4);
	} else {
		src->family = dst->family = MRE_AF_INET6;
		memcpy(src->a, &ipv6_hdr(skb)->saddr, 16);
		memcpy(dst->a, &ipv6_hdr(skb)->daddr, 16);
	}
}

bool mroce_net_ce(const struct sk_buff *skb)
{
	if (ip_hdr(skb)->version == 4)
		return INET_ECN_is_ce(ipv4_get_dsfield(ip_hdr(skb)));
	return INET_ECN_is_ce(ipv6_get_dsfield(ipv6_hdr(skb)));
}

static bool addr4(struct net_device *ndev, struct sockaddr_storage *sa)
{
	struct in_device *in_dev;
	bool found = false;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		const struct in_ifaddr *ifa;

		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			if (ifa->ifa_scope != RT_SCOPE_UNIVERSE)
				continue;
			memset(sa, 0, sizeof(*sa));
			sa->ss_family = AF_INET;
			((struct sockaddr_in *)sa)->sin_addr.s_addr =
				ifa->ifa_local;
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static bool addr6(struct net_device *ndev, struct sockaddr_storage *sa)
{
	struct inet6_dev *idev;
	bool found = false;

	rcu_read_lock();
	idev = __in6_dev_get(ndev);
	if (idev) {
		const struct inet6_ifaddr *ifp;

		read_lock_bh(&idev->lock);
		list_for_each_entry(ifp, &idev->addr_list, if_list) {
			if (ifp->scope & (IFA_HOST | IFA_LINK | IFA_SITE) ||
			    ifp->flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED))
				continue;
			memset(sa, 0, sizeof(*sa));
			sa->ss_family = AF_INET6;
			((struct sockaddr_in6 *)sa)->sin6_addr = ifp->addr;
			found = true;
			break;
		}
		read_unlock_bh(&idev->lock);
	}
	rcu_read_unlock();
	return found;
}

bool mroce_net_ndev_addr(struct net_device *ndev, int family,
			 struct sockaddr_storage *sa)
{
	if (family == AF_INET6)
		return addr6(ndev, sa);
	return family == AF_INET && addr4(ndev, sa);
}

int mroce_af_of(u8 family)
{
	return family == MRE_AF_INET6 ? AF_INET6 :
	       family == MRE_AF_INET ? AF_INET : AF_UNSPEC;
}

void mroce_addr_of_sa(const struct sockaddr_storage *sa, struct mre_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (sa->ss_family == AF_INET) {
		a->family = MRE_AF_INET;
		memcpy(a->a, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa->ss_family == AF_INET6) {
		a->family = MRE_AF_INET6;
		memcpy(a->a, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	}
}

void mroce_sa_of_addr(const struct mre_addr *a, struct sockaddr_storage *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->ss_family = mroce_af_of(a->family);
	if (a->family == MRE_AF_INET)
		memcpy(&((struct sockaddr_in *)sa)->sin_addr, a->a, 4);
	else if (a->family == MRE_AF_INET6)
		memcpy(&((struct sockaddr_in6 *)sa)->sin6_addr, a->a, 16);
}
