/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The module parameters, all in param.c (Documentation/mroce.rst lists
 * every one): the UDP port, the engine's configuration and fill_mtu.
 */
#ifndef MROCE_PARAM_H
#define MROCE_PARAM_H

#include <linux/types.h>

struct mre_config;

/* the MetaRoCE UDP port (udp_port) */
u16 mroce_param_udp_port(void);
/* the engine configuration the parameters describe (for a new device) */
void mroce_engine_config(struct mre_config *cfg);
/* max_peers, max_peer_mb, max_peers_per_user, peer_idle_s (peertab.c) */
u32 mroce_param_max_peers(void);
u32 mroce_param_max_peer_mb(void);
u32 mroce_param_max_peers_per_user(void);
u32 mroce_param_peer_idle_s(void);
/* comp_vectors: a new device's completion vectors */
u32 mroce_param_comp_vectors(void);
/* fill_mtu: RC packets as large as the netdev MTU allows */
bool mroce_param_fill_mtu(void);
/* loop_direct: packets to the device itself skip the stack (loop.c) */
bool mroce_param_loop_direct(void);

#endif /* MROCE_PARAM_H */
