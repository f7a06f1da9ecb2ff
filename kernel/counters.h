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
	MROCE_CNT_RX_PACKETS,	/* MetaRoCE packets received for this device */
	MROCE_CNT_RX_DROPS,	/* ... and dropped (no datapath consumed them) */
	MROCE_CNT_TX_PACKETS,	/* packets handed to the network */
	MROCE_CNT_TX_DROPS,	/* packets the datapath could not send */
	MROCE_CNT_LINK_DOWNED,	/* port went from ACTIVE to DOWN */
	MROCE_NUM_COUNTERS
};

void mroce_counters_init(void);
struct rdma_hw_stats *mroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num);
int mroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index);

#endif /* MROCE_COUNTERS_H */
