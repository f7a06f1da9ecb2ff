// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_hw_stats glue: the glue's counters live as atomic64_t in struct
 * mroce_dev, the engine's in its endpoint; both are copied out when the
 * core asks.
 */
#include "counters.h"
#include "engine.h"
#include "socket.h"
#include "mroce.h"

static const struct rdma_stat_desc mroce_counter_descs[] = {
	[MROCE_CNT_RX_PACKETS].name		= "rx_packets",
	[MROCE_CNT_RX_DROP_NOMEM].name		= "rx_drop_nomem",
	[MROCE_CNT_RX_DROP_CONNECT_Q].name	= "rx_drop_connect_q",
	[MROCE_CNT_RX_DROP_SRC_OURS].name	= "rx_drop_src_ours",
	[MROCE_CNT_UD_DROP_DST].name		= "ud_drop_dst",
	[MROCE_CNT_UD_DROP_NO_QP].name		= "ud_drop_no_qp",
	[MROCE_CNT_UD_DROP_QKEY].name		= "ud_drop_qkey",
	[MROCE_CNT_UD_DROP_STATE].name		= "ud_drop_state",
	[MROCE_CNT_UD_DROP_NO_RECV].name	= "ud_drop_no_recv",
	[MROCE_CNT_TX_PACKETS].name		= "tx_packets",
	[MROCE_CNT_TX_DROP_NOMEM].name		= "tx_drop_nomem",
	[MROCE_CNT_TX_DROP_NO_ROUTE].name	= "tx_drop_no_route",
	[MROCE_CNT_TX_DROP_XMIT].name		= "tx_drop_xmit",
	[MROCE_CNT_CQ_OVERFLOW].name		= "cq_overflow",
	[MROCE_CNT_LINK_DOWNED].name		= "link_downed",
	[MROCE_CNT_NET_NO_DEVICE].name		= "net_no_device",
	[MROCE_CNT_PEERS_LIMITED].name		= "peers_limited",
	[MROCE_CNT_PEERS_MEM_LIMITED].name	= "peers_mem_limited",
	[MROCE_CNT_PEERS_USER_LIMITED].name	= "peers_user_limited",
	[MROCE_CNT_PEERS_RECLAIMED].name	= "peers_reclaimed",
	[MROCE_CNT_WQ_BAD_INDEX].name		= "wq_bad_index",
	[MROCE_CNT_RQ_BAD_RSN].name		= "rq_bad_rsn",
	[MROCE_CNT_SQ_BAD_MSN].name		= "sq_bad_msn",
	[MROCE_CNT_SRQ_WINDOW].name		= "srq_window",
	[MROCE_CNT_RX_OFFLOAD].name		= "rx_offload",
	[MROCE_CNT_TX_OFFLOAD].name		= "tx_offload",
};

/*
 * The glue's counters, then the engine's (struct mre_counters, named by
 * mre_counter_names[]: every drop reason of the protocol has its own).
 */
static struct rdma_stat_desc mroce_all_descs[MROCE_NUM_COUNTERS + MRE_NCOUNTERS];

void mroce_counters_init(void)
{
	unsigned int i;

	BUILD_BUG_ON(ARRAY_SIZE(mroce_counter_descs) != MROCE_NUM_COUNTERS);
	for (i = 0; i < MROCE_NUM_COUNTERS; i++)
		mroce_all_descs[i] = mroce_counter_descs[i];
	for (i = 0; i < MRE_NCOUNTERS; i++)
		mroce_all_descs[MROCE_NUM_COUNTERS + i].name =
			mre_counter_names[i];
}

struct rdma_hw_stats *mroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num)
{
	return rdma_alloc_hw_stats_struct(mroce_all_descs,
					  ARRAY_SIZE(mroce_all_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int mroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index)
{
	struct mroce_dev *mdev = to_mroce_dev(ibdev);
	const u64 *eng = (const u64 *)&mdev->ep.ctr;
	unsigned int i;

	if (!port_num || !stats)
		return -EINVAL;

	for (i = 0; i < MROCE_NUM_COUNTERS; i++)
		stats->value[i] = atomic64_read(&mdev->counters[i]);
	/* kept by the namespace's socket, which the device shares */
	stats->value[MROCE_CNT_NET_NO_DEVICE] = mroce_net_no_device(mdev);
	/* the engine's are plain u64s, updated under per-peer locks */
	for (i = 0; i < MRE_NCOUNTERS; i++)
		stats->value[MROCE_NUM_COUNTERS + i] = READ_ONCE(eng[i]);

	return ARRAY_SIZE(mroce_all_descs);
}
