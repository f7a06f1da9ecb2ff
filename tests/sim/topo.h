/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Topologies: a graph of hosts and switches joined by links, with routing
 * tables computed from it.
 *
 * topo_route() runs one breadth-first search per destination NIC, starting
 * at the switch port that reaches it and following links that are not
 * down, never through another host. Every switch then forwards towards
 * that NIC over all its ports that lead one hop closer (ECMP). Taking a
 * link down and calling topo_route() again is a routing event: the
 * fabric converges at once. A black hole is not one: switches keep using
 * the link and its packets vanish.
 *
 * Builders (each plane p of a host is its own copy of the fabric):
 *
 *   topo_parallel  host0 - leafA - K spines - leafB - host1: K equal paths
 *   topo_incast    N senders on L leaves (round robin), one receiver on its
 *                  own leaf, S spines between; L = 0: everyone on one leaf
 *   topo_fattree   k-ary fat tree: k pods of k/2 edge and k/2 aggregation
 *                  switches, (k/2)^2 cores, k^3/4 hosts
 */
#ifndef SIM_TOPO_H
#define SIM_TOPO_H

#include "host.h"
#include "link.h"
#include "switch.h"

#define TOPO_MAX_NODES 256
#define TOPO_MAX_LINKS 1024
#define TOPO_MAX_HOSTS 32	/* the model's MDL_MAX_PEERS */

struct topo {
	struct sim *sim;
	struct sim_node *nodes[TOPO_MAX_NODES];
	u32 nnodes;
	struct sim_link *links[TOPO_MAX_LINKS];
	u32 nlinks;
	struct sim_host *hosts[TOPO_MAX_HOSTS];
	u32 nhosts;
	u32 nplanes;
	/* builder bookkeeping, for scenarios: */
	struct sim_switch *spine[SIM_MAX_PLANES][SIM_MAX_ECMP];
	u32 nspines;
	struct sim_port *rx_port[TOPO_MAX_HOSTS][SIM_MAX_PLANES]; /* switch -> host */
};

struct topo_cfg {
	u32 planes;
	struct sim_link_cfg host;	/* host - leaf links */
	struct sim_link_cfg fabric;	/* switch - switch links */
};

void topo_init(struct topo *t, struct sim *s, u32 nplanes);
void topo_free(struct topo *t);
struct sim_host *topo_host(struct topo *t, const char *name);
struct sim_switch *topo_switch(struct topo *t, const char *name);
struct sim_link *topo_link(struct topo *t, struct sim_node *a,
			   struct sim_node *b, const struct sim_link_cfg *c);
/* attach @h's NIC for @plane to switch @sw */
struct sim_link *topo_attach(struct topo *t, struct sim_host *h, u32 plane,
			     struct sim_switch *sw,
			     const struct sim_link_cfg *c);
/* (re)compute every switch's routing table */
void topo_route(struct topo *t);
/* routing table index of an address (the NIC's), or ~0 */
u32 topo_nic_index(void *t, u32 addr);

void topo_parallel(struct topo *t, const struct topo_cfg *c, u32 k);
void topo_incast(struct topo *t, const struct topo_cfg *c, u32 nsend,
		 u32 nleaves, u32 nspines);
void topo_fattree(struct topo *t, const struct topo_cfg *c, u32 k);

#endif /* SIM_TOPO_H */
