/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Per-device counters, exported as rdma_hw_stats on port 1 (shown by
 * `rdma statistic show` and /sys/class/infiniband/NAME/ports/1/hw_counters).
 * Every drop reason gets its own counter.
 */
#ifndef MROCE_COUNTERS_H
#define MROCE_COUNTERS_H

#include <linux/types.h>

struct ib_device;
struct rdma_hw_stats;

enum mroce_counter {
	MROCE_CNT_RX_PACKETS,	/* MetaRoCE datagrams received for this device */
	MROCE_CNT_RX_DROP_NOMEM,	/* ... dropped: no memory to make them linear */
	MROCE_CNT_RX_DROP_CONNECT_Q,	/* ... CONNECTs from new nodes: queue full */
	MROCE_CNT_RX_DROP_SRC_OURS,	/* from an offload: a source address of our planes */
	MROCE_CNT_UD_DROP_DST,	/* UD: the multicast QPN and a unicast address, or the reverse */
	MROCE_CNT_UD_DROP_NO_QP,	/* UD: no such QP, or no QP in the group */
	MROCE_CNT_UD_DROP_QKEY,	/* UD: not a UD QP, or the Q_Key differs */
	MROCE_CNT_UD_DROP_STATE,	/* UD: the QP is not in RTR or RTS */
	MROCE_CNT_UD_DROP_NO_RECV,	/* UD: no receive posted */
	MROCE_CNT_TX_PACKETS,	/* packets handed to the network */
	MROCE_CNT_TX_DROP_NOMEM,	/* not sent: no memory for the packet */
	MROCE_CNT_TX_DROP_NO_ROUTE,	/* not sent: no route, no socket of the family */
	MROCE_CNT_TX_DROP_XMIT,	/* not sent: the datapath's xmit failed */
	MROCE_CNT_CQ_OVERFLOW,	/* completions lost: their CQ was full */
	MROCE_CNT_LINK_DOWNED,	/* port went from ACTIVE to DOWN */
	MROCE_CNT_NET_NO_DEVICE,	/* namespace-wide: datagrams for no device */
	MROCE_CNT_PEERS_LIMITED,	/* no new peer: max_peers in use */
	MROCE_CNT_PEERS_MEM_LIMITED,	/* no new peer: max_peer_mb in use */
	MROCE_CNT_PEERS_USER_LIMITED,	/* no new peer: its user's quota in use */
	MROCE_CNT_PEERS_RECLAIMED,	/* peers freed: unused by any QP, idle */
	MROCE_CNT_WQ_BAD_INDEX,	/* a ring's producer index went back or too far ahead */
	MROCE_CNT_RQ_BAD_RSN,	/* a peer completed a receive out of order */
	MROCE_CNT_SQ_BAD_MSN,	/* the engine completed a message the SQ does not hold */
	MROCE_CNT_SRQ_WINDOW,	/* SRQ: a receive past the QP's claim window (RNR) */
	MROCE_CNT_RX_OFFLOAD,	/* of rx_packets: handed up by the device's offload */
	MROCE_CNT_TX_OFFLOAD,	/* packets the offload's xmit took */
	MROCE_NUM_COUNTERS
};

void mroce_counters_init(void);
struct rdma_hw_stats *mroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num);
int mroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index);

#endif /* MROCE_COUNTERS_H */
