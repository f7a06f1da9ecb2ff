/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Packets out: allocation, routing, and the send itself, which runs in
 * mroce_batch_flush() once the datapath has dropped its locks.
 *
 * A packet is built in a linear skb (MetaRoCE header and payload) with
 * headroom for UDP, IP and the link layer, routed while it is built (the
 * route depends on the UDP source port where the host itself does ECMP),
 * and queued on the caller's batch with what the send needs in skb->cb.
 * UDP checksums are left to the device (CHECKSUM_PARTIAL), ECN is ECT(0).
 */
#ifndef MROCE_NET_H
#define MROCE_NET_H

#include <linux/jump_label.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <net/dst_cache.h>

struct mre_addr;
struct mroce_batch;
struct mroce_dev;
struct net_device;

/* a linear skb with room for @len bytes after the headers; NULL: no memory */
struct sk_buff *mroce_net_alloc(u32 len);

/*
 * Route @skb from @saddr to @daddr (the MetaRoCE port), UDP source port
 * @sport, and queue it on @b. Consumes @skb; -errno when it was dropped
 * (no route): the transport recovers it as a loss. @dc (may be NULL)
 * caches the route of this address pair: the source port is left out of
 * the cached route, so a host that does ECMP itself (rather than its
 * fabric) should pass NULL. @oif (0: any) is the netdev the route must
 * leave by (a plane's). A packet routed as local to one of the device's
 * own plane addresses is marked for the device's loop (loop.h) instead,
 * with module parameter loop_direct.
 */
int mroce_net_queue(struct mroce_dev *mdev, struct sk_buff *skb,
		    const struct sockaddr_storage *saddr,
		    const struct sockaddr_storage *daddr, u16 sport,
		    struct dst_cache *dc, int oif, struct mroce_batch *b);

/* software datapath: send a packet queued by mroce_net_queue() */
int mroce_net_xmit(struct mroce_dev *mdev, struct sk_buff *skb);

/* the destination address of a received packet (network header still set) */
void mroce_net_dst(const struct sk_buff *skb, struct sockaddr_storage *sa);
/* ... both addresses, in the engine's form (struct mre_rx) */
void mroce_net_addrs(const struct sk_buff *skb, struct mre_addr *src,
		     struct mre_addr *dst);
bool mroce_net_ce(const struct sk_buff *skb);
/* @ndev's first global address of @family (AF_INET, AF_INET6); false: none */
bool mroce_net_ndev_addr(struct net_device *ndev, int family,
			 struct sockaddr_storage *sa);

/* addresses between the engine's form and the socket layer's */
void mroce_addr_of_sa(const struct sockaddr_storage *sa, struct mre_addr *a);
void mroce_sa_of_addr(const struct mre_addr *a, struct sockaddr_storage *sa);
int mroce_af_of(u8 family);
/* is @sa an address of one of @mdev's planes (a peer that is ourselves)? */
bool mroce_net_is_self(struct mroce_dev *mdev,
		       const struct sockaddr_storage *sa);
bool mroce_addr_eq(const struct sockaddr_storage *a,
		   const struct sockaddr_storage *b);
/* an IPv4 or IPv6 multicast address */
bool mroce_addr_is_mcast(const struct sockaddr_storage *a);

#endif /* MROCE_NET_H */
