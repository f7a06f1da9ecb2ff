// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_hw_stats glue: the counters live as atomic64_t in struct mroce_dev
 * and are copied out when the core asks.
 */
#include "counters.h"
#include "mroce.h"

static const struct rdma_stat_desc mroce_counter_descs[] = {
	[MROCE_CNT_RX_PACKETS].name	= "rx_packets",
	[MROCE_CNT_RX_DROPS].name	= "rx_drops",
	[MROCE_CNT_TX_PACKETS].name	= "tx_packets",
	[MROCE_CNT_TX_DROPS].name	= "tx_drops",
	[MROCE_CNT_LINK_DOWNED].name	= "link_downed",
};

struct rdma_hw_stats *mroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num)
{
	BUILD_BUG_ON(ARRAY_SIZE(mroce_counter_descs) != MROCE_NUM_COUNTERS);

	return rdma_alloc_hw_stats_struct(mroce_counter_descs,
					  ARRAY_SIZE(mroce_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int mroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index)
{
	struct mroce_dev *mdev = to_mroce_dev(ibdev);
	int i;

	if (!port_num || !stats)
		return -EINVAL;

	for (i = 0; i < MROCE_NUM_COUNTERS; i++)
		stats->value[i] = atomic64_read(&mdev->counters[i]);

	return MROCE_NUM_COUNTERS;
}
