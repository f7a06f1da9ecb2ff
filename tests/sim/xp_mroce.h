/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE in a simulated host: the unmodified engine, embedded through the
 * model host of the unit tests (tests/unit/model.c). Engine plane p leaves
 * by the host's NIC p; the model's node id is the host index, so a packet's
 * source address names the connection it belongs to.
 */
#ifndef SIM_XP_MROCE_H
#define SIM_XP_MROCE_H

#include "host.h"

struct xp_mroce {
	struct mdl_node node;
	struct sim_host *host;
	u32 npeers;		/* hosts in the fabric */
	/* the model's tables, sized by npeers: node.conns[host] (NULL: none) */
	struct mdl_tables tab;
};

extern const struct sim_xport xp_mroce_ops;

/*
 * The engine in @h, with @cfg, for a fabric of @npeers hosts and up to
 * @max_qps QPs; its randomness from the run's seed.
 */
struct xp_mroce *xp_mroce_new(struct sim_host *h, const struct mre_config *cfg,
			      u32 npeers, u32 max_qps);
void xp_mroce_free(struct xp_mroce *x);
/* the connection to host @peer (made on first use) */
struct mre_conn *xp_mroce_conn(struct xp_mroce *x, u32 peer);

#endif /* SIM_XP_MROCE_H */
