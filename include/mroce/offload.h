/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The mroce offload boundary: what a NIC driver (or mroce_swnic, the
 * software NIC) implements to run part of a mroce device's datapath, and
 * the calls mroce offers it. This header is the whole contract: an offload
 * includes nothing else of mroce's, and mroce reaches an offload only
 * through struct mroce_offload. Documentation/offload.rst describes each
 * operation's context, ordering, errors and memory rules.
 *
 * Levels. An offload declares, in mroce_offload.caps, which part of the
 * datapath it takes:
 *
 *   MROCE_OFL_PACKETS    frames: the offload builds the UDP/IP headers of
 *                        each MetaRoCE packet mroce hands it, checksums and
 *                        sends it; on receive it classifies MetaRoCE frames,
 *                        checks their headers and checksums and hands the
 *                        MetaRoCE packets up. mroce runs the transport.
 *   MROCE_OFL_TRANSPORT  paths, sequencing, SACK, loss detection, resend and
 *                        congestion control per connection (offload.rst,
 *                        "Levels not yet accepted").
 *   MROCE_OFL_DATAPATH   the transport plus placement through a host-
 *                        programmed MR table, WQE fetch and CQE writes
 *                        (likewise).
 *
 * This mroce accepts MROCE_OFL_PACKETS; an offload that asks for a level
 * mroce does not accept is refused at registration (-EOPNOTSUPP), so that a
 * driver never believes it runs what nobody hands it.
 */
#ifndef MROCE_OFFLOAD_BOUNDARY_H
#define MROCE_OFFLOAD_BOUNDARY_H

#include <linux/bits.h>
#include <linux/in6.h>
#include <linux/types.h>

struct module;
struct net_device;
struct sk_buff;

/* bumped on any incompatible change of this header */
#define MROCE_OFFLOAD_VERSION	1

#define MROCE_OFL_PACKETS	BIT(0)
#define MROCE_OFL_TRANSPORT	BIT(1)
#define MROCE_OFL_DATAPATH	BIT(2)

/* planes of a device: 0 is its link netdev, 1.. are added later */
#define MROCE_OFL_MAX_PLANES	8

/* mroce's side of one device an offload runs (opaque to the offload) */
struct mroce_ofl_port;

/**
 * struct mroce_ofl_port_info - what an offload learns of a device at attach
 * @ndev:      the device's link netdev (the one claim() accepted); mroce
 *             holds a reference on it until after detach()
 * @udp_dport: the UDP destination port of MetaRoCE frames, host order
 * @ibdev_name: the device's name, for logs
 */
struct mroce_ofl_port_info {
	struct net_device *ndev;
	u16 udp_dport;
	const char *ibdev_name;
};

/**
 * struct mroce_ofl_tx - how to frame one packet (level MROCE_OFL_PACKETS)
 * @family: AF_INET or AF_INET6
 * @tos:    IPv4 TOS / IPv6 traffic class, ECN bits included (ECT(0))
 * @ttl:    IPv4 TTL / IPv6 hop limit
 * @sport:  UDP source port: the path's entropy; must be kept as given
 * @dport:  UDP destination port
 * @saddr:  source address (from the device's plane the route leaves by)
 * @daddr:  destination address
 */
struct mroce_ofl_tx {
	u8 family;
	u8 tos;
	u8 ttl;
	__be16 sport;
	__be16 dport;
	union {
		__be32 v4;
		struct in6_addr v6;
	} saddr, daddr;
};

/**
 * struct mroce_offload - one offload's entry points
 * @name:    unique among registered offloads; sysfs `datapath` shows it
 * @owner:   the module implementing the ops; pinned while a device uses them
 * @version: MROCE_OFFLOAD_VERSION the driver was built against
 * @caps:    MROCE_OFL_* levels taken
 * @claim:   process context, RTNL not held, may sleep. True to run the
 *           datapath of a new mroce device on @ndev. Called once per new
 *           device; a false answer leaves the device on mroce's software
 *           datapath.
 * @attach:  process context, RTNL not held, may sleep. Set up the port for
 *           @port; store the offload's cookie in *@priv. After success the
 *           offload may call mroce_ofl_rx(@port, ...). A negative errno
 *           fails the device's creation (`rdma link add` returns it).
 * @detach:  process context, RTNL not held, may sleep. mroce sends nothing
 *           more on @priv and no longer accepts mroce_ofl_rx() for it. The
 *           offload stops receiving on every plane and frees what it still
 *           holds for @priv (queued frames included) before returning;
 *           mroce drops the netdev and module references afterwards.
 * @plane_add: optional. RTNL held, may sleep. The device gained plane @k
 *           (1..MROCE_OFL_MAX_PLANES-1) on @ndev, which mroce holds until
 *           after @plane_del: receive for it from now on. A negative errno
 *           refuses the plane (the sysfs write that added it returns it).
 *           Without @plane_add, frames of planes other than 0 reach mroce
 *           through its UDP socket; transmit is @xmit's on every plane.
 * @plane_del: RTNL held, may sleep; required with @plane_add. Plane @k
 *           goes: after the call the offload takes nothing from its netdev.
 *           Not called for the planes a device still has at @detach.
 * @xmit:    MROCE_OFL_PACKETS. Frame and send one MetaRoCE packet: @skb
 *           holds the MetaRoCE header and payload (linear, skb->data at the
 *           header) with headroom for UDP, IPv6 and the link header, and a
 *           route (skb_dst()) that mroce chose for @tx's addresses and
 *           source port. Always consumes @skb. Returns 0, or a negative
 *           errno when the frame was dropped (mroce counts tx_drop_xmit).
 *           Process context or softirq (never hard IRQ), never with a
 *           mroce lock held that mroce_ofl_rx() takes; must not sleep.
 */
struct mroce_offload {
	const char *name;
	struct module *owner;
	u32 version;
	u32 caps;
	bool (*claim)(struct net_device *ndev);
	int (*attach)(struct mroce_ofl_port *port,
		      const struct mroce_ofl_port_info *info, void **priv);
	void (*detach)(void *priv);
	int (*plane_add)(void *priv, u32 k, struct net_device *ndev);
	void (*plane_del)(void *priv, u32 k);
	int (*xmit)(void *priv, struct sk_buff *skb,
		    const struct mroce_ofl_tx *tx);
};

/*
 * Offer @ofl for new mroce devices. 0; -EINVAL: a member it needs is NULL
 * (plane_add without plane_del, too) or caps is empty or has unknown bits; -EPROTO: version mismatch;
 * -EOPNOTSUPP: a level this mroce does not accept; -EBUSY: another offload
 * is registered. Process context.
 */
int mroce_offload_register(const struct mroce_offload *ofl);

/*
 * Stop offering @ofl to new devices. Devices using it keep it (and its
 * module pinned) until they are removed. Process context.
 */
void mroce_offload_unregister(const struct mroce_offload *ofl);

/*
 * MROCE_OFL_PACKETS receive: a MetaRoCE frame for @port arrived and passed
 * the offload's checks (IP header and length, UDP checksum, the MetaRoCE
 * destination port). @skb as the UDP stack leaves a datagram: network
 * header at the IP header, transport header at the UDP header, skb->data
 * at the MetaRoCE header, skb->dev the netdev it arrived on, pkt_type
 * set. Always consumes @skb. Softirq (BH disabled); takes rcu_read_lock()
 * itself. Between detach's start and attach's next success it drops what
 * it is given.
 */
void mroce_ofl_rx(struct mroce_ofl_port *port, struct sk_buff *skb);

#endif /* MROCE_OFFLOAD_BOUNDARY_H */
