/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * debugfs: the state of every connection and path, for people.
 *
 *	/sys/kernel/debug/mroce/<ibdev>/peers
 *
 * One block per peer: addresses, connection ids and state, the TSN window,
 * the congestion window and rate hint, then one line per path: id, plane,
 * UDP source port, health, PSN window, window, RTT, RTO and packet counts.
 * The format is documented in Documentation/mroce.rst; it is for reading,
 * not a stable interface (rdma statistic has the totals).
 */
#ifndef MROCE_DEBUGFS_H
#define MROCE_DEBUGFS_H

struct mroce_dev;

void mroce_debugfs_init(void);
void mroce_debugfs_exit(void);
void mroce_debugfs_add(struct mroce_dev *mdev);
void mroce_debugfs_del(struct mroce_dev *mdev);

#endif /* MROCE_DEBUGFS_H */
