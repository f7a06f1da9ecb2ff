/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Per network namespace UDP sockets of mroce.
 *
 * Each namespace that holds at least one mroce device has one IPv4 and one
 * IPv6 (v6only) kernel UDP socket bound to the module's udp_port, opened
 * when its first device attaches and closed when its last one detaches.
 * Received datagrams go to the device whose netdev they came in on
 * (mroce_rx()). An attached device has its namespace's sockets and the UDP
 * port in mdev->tx_sk[] and mdev->udp_dport, for net.c's sends.
 */
#ifndef MROCE_SOCKET_H
#define MROCE_SOCKET_H

#include <linux/types.h>

struct mroce_dev;

#define MROCE_DEFAULT_UDP_PORT	4796

int mroce_socket_init(u16 udp_port);
void mroce_socket_exit(void);

int mroce_net_attach(struct mroce_dev *mdev);
void mroce_net_unlist(struct mroce_dev *mdev);
void mroce_net_detach(struct mroce_dev *mdev);

/* datagrams @mdev's namespace received for no device (net_no_device) */
u64 mroce_net_no_device(struct mroce_dev *mdev);

#endif /* MROCE_SOCKET_H */
