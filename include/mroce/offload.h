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
 * This mroce accepts MROCE_OFL_PACKETS, with or without the feature
 * MROCE_OFL_OBJECTS; an offload that asks for a level mroce does not accept
 * is refused at registration (-EOPNOTSUPP), so that a driver never believes
 * it runs what nobody hands it.
 */
#ifndef MROCE_OFFLOAD_BOUNDARY_H
#define MROCE_OFFLOAD_BOUNDARY_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/in6.h>
#include <linux/types.h>

struct device;
struct module;
struct net_device;
struct sk_buff;

/* bumped on any incompatible change of this header */
#define MROCE_OFFLOAD_VERSION	3

#define MROCE_OFL_PACKETS	BIT(0)
#define MROCE_OFL_TRANSPORT	BIT(1)
#define MROCE_OFL_DATAPATH	BIT(2)
/*
 * A feature, not a level: the offload is told of every verbs object of its
 * devices (PD, MR, MW, CQ, SRQ, QP) through cmd(), as a NIC that runs the
 * datapath must be. With PACKETS alone mroce's engine still moves the data
 * ("shadow mode"): the offload can check that the traffic it carries names
 * only objects it was told of.
 */
#define MROCE_OFL_OBJECTS	BIT(3)

/* planes of a device: 0 is its link netdev, 1.. are added later */
#define MROCE_OFL_MAX_PLANES	8

/* counters an offload may name (struct mroce_offload.counter_names) */
#define MROCE_OFL_MAX_COUNTERS	64

/* mroce's side of one device an offload runs (opaque to the offload) */
struct mroce_ofl_port;

/**
 * struct mroce_ofl_port_info - what an offload learns of a device at attach,
 * and what it answers
 * @ndev:      the device's link netdev (the one claim() accepted); mroce
 *             holds a reference on it until after detach()
 * @udp_dport: the UDP destination port of MetaRoCE frames, host order
 * @ibdev_name: the device's name, for logs
 * @dma_dev:   the answer, set by attach() (MROCE_OFL_OBJECTS): the device
 *             the NIC's DMA goes through (its PCI function), which must
 *             outlive the port. mroce maps every page it hands in a page
 *             list for it (dma_map_page(), DMA_BIDIRECTIONAL) from the
 *             command that hands it until after the command that takes it
 *             back (a DESTROY, a RESIZE, a replacing MR_CREATE, a refused
 *             CREATE), so the addresses are the NIC's. The mappings are
 *             kept and never synced: the device must be cache-coherent
 *             and must not bounce (swiotlb), as RDMA NICs are. NULL, as
 *             mroce leaves it: physical addresses, for a NIC that reaches
 *             memory as the CPU does.
 */
struct mroce_ofl_port_info {
	struct net_device *ndev;
	u16 udp_dport;
	const char *ibdev_name;
	struct device *dma_dev;
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

/*
 * Object commands (MROCE_OFL_OBJECTS). One 64-byte descriptor per command,
 * as a NIC's admin queue takes them. mroce issues them from its verbs
 * calls, in process context (but for the AH commands flagged ATOMIC),
 * never with a lock held that its datapath takes, and in order per object:
 * an object's CREATE before anything names it, its DESTROY after the last
 * command that names it. A CREATE is issued before the object's id or
 * key reaches anyone who could use it; a DESTROY after mroce itself no
 * longer uses the object, and mroce frees what the object held (unpins an
 * MR's pages) only after DESTROY returned: a DESTROY is the fence.
 *
 * Ids: every id is the one the verbs consumer sees (QP number, the MR's or
 * MW's key index = key >> 8, the AH's number a UD work request names) or
 * mroce's object number (PD, CQ, SRQ); 0 is never an object (no SRQ, no
 * PD). Ids are per device and reused after DESTROY.
 */
enum mroce_ofl_op {
	MROCE_OFL_CMD_PD_CREATE = 1,
	MROCE_OFL_CMD_PD_DESTROY,
	MROCE_OFL_CMD_MR_CREATE,	/* also a rereg: flag REPLACE */
	MROCE_OFL_CMD_MR_DESTROY,
	MROCE_OFL_CMD_MW_CREATE,
	MROCE_OFL_CMD_MW_DESTROY,
	MROCE_OFL_CMD_CQ_CREATE,
	MROCE_OFL_CMD_CQ_RESIZE,
	MROCE_OFL_CMD_CQ_DESTROY,
	MROCE_OFL_CMD_SRQ_CREATE,
	MROCE_OFL_CMD_SRQ_MODIFY,
	MROCE_OFL_CMD_SRQ_DESTROY,
	MROCE_OFL_CMD_QP_CREATE,
	MROCE_OFL_CMD_QP_MODIFY,
	MROCE_OFL_CMD_QP_DESTROY,
	MROCE_OFL_CMD_AH_CREATE,
	MROCE_OFL_CMD_AH_DESTROY,
	MROCE_OFL_CMD_MAX
};

/* the layout of struct mroce_ofl_cmd this header describes */
#define MROCE_OFL_CMD_VERSION	1

/*
 * struct mroce_ofl_cmd.flags. REPLACE: MR_CREATE of a live id (a rereg).
 * ATOMIC: an AH command from a caller that cannot sleep (create_ah
 * without RDMA_CREATE_AH_SLEEPABLE, destroy_ah without
 * RDMA_DESTROY_AH_SLEEPABLE, in softirq or under a spinlock, maybe with
 * hard IRQs disabled): cmd() must not sleep for it (poll the admin queue's
 * completion, as ionic does).
 */
#define MROCE_OFL_CF_REPLACE	BIT(0)
#define MROCE_OFL_CF_ATOMIC	BIT(1)

/* struct mroce_ofl_mr.kind */
enum mroce_ofl_mr_kind {
	MROCE_OFL_MR_USER = 1,	/* pinned user memory: [iova, iova + length) */
	MROCE_OFL_MR_DMABUF,	/* a dma-buf range: [iova, iova + length) */
	MROCE_OFL_MR_DMA,	/* all memory (kernel ULPs' local_dma_lkey) */
	MROCE_OFL_MR_FRWR,	/* mapped and keyed by REG_MR work requests */
};

/**
 * struct mroce_ofl_pages - memory a command hands the NIC: a ring or an MR
 * @addr:  the address of each page as the NIC reaches it: mapped for the
 *         port's dma_dev (physical without one) until the command that
 *         takes the pages back. The array is valid during the call (copy
 *         what you keep)
 * @n:     entries in @addr
 * @shift: log2 of the page size
 * @stride_log2: rings: log2 of an entry's size in bytes (0 for an MR)
 *
 * A ring is its 128-byte header (the producer and consumer indices,
 * kernel/engine/ring.h), then its entries, in the layouts of
 * include/uapi/rdma/mroce-abi.h.
 */
struct mroce_ofl_pages {
	const u64 *addr;
	u32 n;
	u8 shift;
	u8 stride_log2;
	u16 rsvd;
};

/**
 * struct mroce_ofl_qp - QP_CREATE and QP_MODIFY
 * @pd, @send_cq, @recv_cq, @srq: ids (@srq 0: none)
 * @type:   IB_QPT_RC, _UC, _UD or _GSI
 * @state:  IB_QPS_* after the command (CREATE: RESET)
 * @sq_log2, @rq_log2: log2 of the send and receive rings' depths in WQEs
 *          (@rq_log2 0 with an SRQ)
 * @create: CREATE: the send ring, and the receive ring (none: @rq.n 0)
 * @family: MODIFY, RC/UC from RTR on: AF_INET or AF_INET6 of @daddr
 * @modify: MODIFY: @attr_mask, the IB_QP_* attributes this modify set;
 *          @dest_qpn, RC/UC from RTR on: the peer's stream; @qkey (UD,
 *          GSI); @access, the IB_ACCESS_REMOTE_* the QP allows; @daddr,
 *          RC/UC from RTR on: the peer's address (the first plane's; a
 *          connection's other planes are the NIC's to find)
 */
struct mroce_ofl_qp {
	u32 pd, send_cq, recv_cq, srq;
	u8 type;
	u8 state;
	u8 sq_log2;
	u8 rq_log2;
	u8 family;
	u8 rsvd[3];
	union {
		struct {
			struct mroce_ofl_pages sq, rq;
		} create;
		struct {
			u32 attr_mask;
			u32 dest_qpn;
			u32 qkey;
			u32 access;
			union {
				__be32 v4;
				struct in6_addr v6;
			} daddr;
		} modify;
	};
};

/**
 * struct mroce_ofl_ah - AH_CREATE: where a UD work request naming the AH sends
 * @pd:     the AH's PD: a UD QP of another PD may not use it
 * @family: AF_INET or AF_INET6
 * @saddr:  our address (the source GID's), network order; IPv4 in the
 *          first 4 bytes
 * @daddr:  the destination's, likewise
 */
struct mroce_ofl_ah {
	u32 pd;
	u8 family;
	u8 rsvd[3];
	u8 saddr[16];
	u8 daddr[16];
};

/**
 * struct mroce_ofl_cmd - one command (64 bytes)
 * @op:      enum mroce_ofl_op
 * @version: MROCE_OFL_CMD_VERSION
 * @flags:   MROCE_OFL_CF_*
 * @id:      the object the command is about (see above)
 * @mr:      MR_CREATE: @pd, @key (lkey = rkey; for FRWR the initial one:
 *           REG_MR work requests change its low 8 bits), @access
 *           (IB_ACCESS_*), @kind, @iova and @length (USER and DMABUF);
 *           USER: @pages, the pinned pages, @iova at @offset into the
 *           first (DMABUF: none yet, @pages.n 0)
 * @mw:      MW_CREATE: @pd, @key, @type (1 or 2: IB_MW_TYPE_*); binds change
 *           the key's low 8 bits and the window, by work request
 * @cq:      CQ_CREATE, CQ_RESIZE: @depth in CQEs, @vector (CREATE), @ring
 * @srq:     SRQ_CREATE, SRQ_MODIFY: @pd, @depth in WQEs, @limit (0:
 *           unarmed), @ring (CREATE)
 * @qp:      QP_CREATE, QP_MODIFY
 * @ah:      AH_CREATE
 */
struct mroce_ofl_cmd {
	u8 op;
	u8 version;
	u16 flags;
	u32 id;
	union {
		struct mroce_ofl_mr {
			u32 pd;
			u32 key;
			u32 access;
			u8 kind;
			u8 rsvd[3];
			u64 iova;
			u64 length;
			struct mroce_ofl_pages pages;
			u32 offset;
		} mr;
		struct mroce_ofl_mw {
			u32 pd;
			u32 key;
			u8 type;
		} mw;
		struct mroce_ofl_cq {
			u32 depth;
			u32 vector;
			struct mroce_ofl_pages ring;
		} cq;
		struct mroce_ofl_srq {
			u32 pd;
			u32 depth;
			u32 limit;
			struct mroce_ofl_pages ring;
		} srq;
		struct mroce_ofl_qp qp;
		struct mroce_ofl_ah ah;
		u8 raw[56];
	};
};
static_assert(sizeof(struct mroce_ofl_cmd) == 64);

/*
 * Doorbells (MROCE_OFL_OBJECTS, optional op). A doorbell names its queue
 * as type << 24 | id and carries one 32-bit value:
 *   MROCE_OFL_DB_SQ      id: a QP; value: the send ring's producer index
 *                        (free-running, mod 2^32): its WQEs up to there
 *                        are posted;
 *   MROCE_OFL_DB_CQ_ARM  id: a CQ; value: IB_CQ_SOLICITED or
 *                        IB_CQ_NEXT_COMP, the event asked for.
 * Receive rings and SRQs ring none: the NIC reads their producer index
 * from the ring's header in host memory when a message needs a receive
 * (as mlx5 reads a doorbell record). A user ring's index is written by
 * the user: a doorbell behind the last one is stale and ignored, one more
 * than the ring's depth ahead of it is the NIC's to detect and refuse.
 */
#define MROCE_OFL_DB_SQ		1
#define MROCE_OFL_DB_CQ_ARM	2
#define MROCE_OFL_DBQ(type, id)	((u32)(type) << 24 | ((id) & 0xffffff))
#define MROCE_OFL_DBQ_TYPE(q)	((q) >> 24)
#define MROCE_OFL_DBQ_ID(q)	((q) & 0xffffff)

/*
 * Events up (MROCE_OFL_OBJECTS): what the NIC tells the host of its
 * objects, with mroce_ofl_event().
 *   MROCE_OFL_EV_QP_FATAL      id: a QP the NIC cannot run any more (a
 *                              ring or WQE it cannot use, an internal
 *                              fault). mroce moves it to ERR, flushes its
 *                              WQEs and raises IB_EVENT_QP_FATAL.
 *   MROCE_OFL_EV_DEVICE_FATAL  id 0: the NIC failed or was reset; every
 *                              QP of the device goes to ERR as above, and
 *                              mroce raises IB_EVENT_DEVICE_FATAL.
 *   MROCE_OFL_EV_CQ_COMP       id: a CQ the NIC wrote a CQE to that the
 *                              last MROCE_OFL_DB_CQ_ARM asked to hear of
 *                              (the completion interrupt). mroce disarms
 *                              the CQ and calls its completion handler (a
 *                              kernel ULP's, a user's completion channel).
 *                              -EALREADY if mroce has it disarmed: nothing
 *                              is called.
 *   MROCE_OFL_EV_CQ_ERR        id: a CQ that overflowed or whose ring the
 *                              NIC cannot use. mroce raises
 *                              IB_EVENT_CQ_ERR, once per CQ as for its own
 *                              overflow (-EALREADY after that).
 *   MROCE_OFL_EV_SRQ_LIMIT     id: an SRQ whose armed limit the NIC saw
 *                              crossed. mroce disarms it (ib_query_srq()
 *                              says 0) and raises
 *                              IB_EVENT_SRQ_LIMIT_REACHED; -EALREADY if it
 *                              is not armed.
 * A CQ or SRQ id is the one its CREATE command gave; after its DESTROY
 * returned the id is unknown (-ENOENT) and may be reused.
 */
enum mroce_ofl_event_type {
	MROCE_OFL_EV_QP_FATAL = 1,
	MROCE_OFL_EV_DEVICE_FATAL,
	MROCE_OFL_EV_CQ_COMP,
	MROCE_OFL_EV_CQ_ERR,
	MROCE_OFL_EV_SRQ_LIMIT,
	MROCE_OFL_EV_MAX
};

struct mroce_ofl_event {
	u8 type;
	u8 rsvd[3];
	u32 id;
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
 *           @port; store the offload's cookie in *@priv and, with
 *           MROCE_OFL_OBJECTS, its DMA device in @info->dma_dev. After
 *           success the offload may call mroce_ofl_rx(@port, ...). A
 *           negative errno fails the device's creation (`rdma link add`
 *           returns it).
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
 * @cmd:     MROCE_OFL_OBJECTS. Process context, may sleep (not with
 *           MROCE_OFL_CF_ATOMIC: then any context, hard IRQs maybe off,
 *           and it must not sleep). Carry out @cmd for the device @priv;
 *           return 0 or a negative errno: -EPROTO
 *           (a version it does not know), -EOPNOTSUPP (an op or a field
 *           value it does not support), -ENOENT (an id it was not told
 *           of), -EEXIST (CREATE of a live id), -ENOMEM. A failed CREATE or
 *           MODIFY fails the verb that issued it with that errno; a DESTROY
 *           cannot fail the verb (mroce logs and counts ofl_cmd_errors),
 *           nor can a CQ_RESIZE that puts back the ring a failed resize
 *           replaced (mroce frees the new ring either way).
 *           @cmd is valid during the call only.
 * @doorbell: optional, with MROCE_OFL_OBJECTS. Queue @queue has work up
 *           to @value (see MROCE_OFL_DB_*). Any context, hard IRQs off
 *           included; must not sleep; never fails.
 * @counter_names: with @query_counters, @ncounters names (1 to
 *           MROCE_OFL_MAX_COUNTERS, lower case, no white space) of the
 *           NIC's own counters of a port, fixed for the offload's life.
 * @query_counters: optional, any level. Process context, may sleep (an
 *           admin command on a NIC). Fill @val[0..ncounters) with the
 *           port's current values, in @counter_names' order; 0 or a
 *           negative errno. mroce shows them in its debugfs,
 *           mroce/NAME/ofl_counters.
 */
struct mroce_offload {
	const char *name;
	struct module *owner;
	u32 version;
	u32 caps;
	bool (*claim)(struct net_device *ndev);
	int (*attach)(struct mroce_ofl_port *port,
		      struct mroce_ofl_port_info *info, void **priv);
	void (*detach)(void *priv);
	int (*plane_add)(void *priv, u32 k, struct net_device *ndev);
	void (*plane_del)(void *priv, u32 k);
	int (*xmit)(void *priv, struct sk_buff *skb,
		    const struct mroce_ofl_tx *tx);
	int (*cmd)(void *priv, const struct mroce_ofl_cmd *cmd);
	void (*doorbell)(void *priv, u32 queue, u32 value);
	const char *const *counter_names;
	u32 ncounters;
	int (*query_counters)(void *priv, u64 *val);
};

/*
 * Offer @ofl for new mroce devices. 0; -EINVAL: a member it needs is NULL
 * (plane_add without plane_del, too; cmd for MROCE_OFL_OBJECTS, which cmd
 * and doorbell need; query_counters without 1..MROCE_OFL_MAX_COUNTERS
 * names) or caps has no level or unknown bits; -EPROTO: version mismatch;
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

/*
 * MROCE_OFL_OBJECTS: an event of @port's NIC (struct mroce_ofl_event).
 * Process context or softirq, with hard IRQs enabled, and no lock held
 * that the offload's cmd(), doorbell() or xmit() take: mroce calls the
 * consumer's handlers from it, and they may post work at once. Returns 0
 * (counted in sysfs ofl_events), -EINVAL for an unknown type, -ENOENT for
 * an id the device does not have, -EALREADY for an event with nothing left
 * to report (see the types), -ENODEV outside attach..detach.
 */
int mroce_ofl_event(struct mroce_ofl_port *port,
		    const struct mroce_ofl_event *ev);

#endif /* MROCE_OFFLOAD_BOUNDARY_H */
