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
 *   topo_leafspine L leaves of H hosts each, every leaf linked once to each
 *                  of S spines: an oversubscription of H:S at the leaves
 *   topo_fattree   k-ary fat tree: k pods of k/2 edge and k/2 aggregation
 *                  switches, (k/2)^2 cores, k^3/4 hosts (k = 16: 1,024;
 *                  k = 32: 8,192); topo_cfg.oversub R > 1 divides the rate
 *                  of every edge-aggregation link by R, so an edge switch
 *                  has R times more bandwidth down than up
 *
 * Every table grows with what is built (nodes, links, hosts); only the
 * number of planes (SIM_MAX_PLANES) and the spines a builder records for
 * the scenarios (TOPO_MAX_SPINES per plane) are bounded.
 */
#ifndef SIM_TOPO_H
#define SIM_TOPO_H

#include "host.h"
#include "link.h"
#include "switch.h"

#define TOPO_MAX_SPINES 256	/* cores of a k = 32 fat tree */
#define TOPO_MAX_FAT_K 32

struct topo {
	struct sim *sim;
	struct sim_node **nodes;
	u32 nnodes;
	u32 capnodes;
	struct sim_link **links;
	u32 nlinks;
	u32 caplinks;
	struct sim_host **hosts;
	u32 nhosts;
	u32 caphosts;
	u32 nplanes;
	/* builder bookkeeping, for scenarios: */
	struct sim_switch *spine[SIM_MAX_PLANES][TOPO_MAX_SPINES];
	u32 nspines;
	struct sim_port *(*rx_port)[SIM_MAX_PLANES]; /* [host]: switch -> host */
	/* routing's scratch: one BFS queue */
	struct sim_node **bfsq;
};

struct topo_cfg {
	u32 planes;
	u32 oversub;			/* fat tree: edge uplinks at 1/oversub */
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
/*
 * Every link of plane @plane (a switch of it at either end: the builders
 * name switches "<name>.<plane>") to @state; the caller reroutes. Returns
 * the links set.
 */
u32 topo_plane_state(struct topo *t, u32 plane, u8 state);
/* routing table index of an address (the NIC's), or ~0 */
u32 topo_nic_index(void *t, u32 addr);

void topo_parallel(struct topo *t, const struct topo_cfg *c, u32 k);
void topo_incast(struct topo *t, const struct topo_cfg *c, u32 nsend,
		 u32 nleaves, u32 nspines);
void topo_leafspine(struct topo *t, const struct topo_cfg *c, u32 nleaves,
		    u32 per_leaf, u32 nspines);
void topo_fattree(struct topo *t, const struct topo_cfg *c, u32 k);

#endif /* SIM_TOPO_H */
