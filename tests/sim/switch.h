/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Switches: forward by destination address over equal-cost next hops.
 *
 * The routing table (filled by topo_route()) gives, per destination NIC,
 * the set of egress ports on a shortest path. A packet takes the port
 * chosen by a hash of its 5-tuple (addresses, protocol, both UDP ports),
 * keyed per switch, as datacenter switches do: packets of one flow stay in
 * order on one path, and a sender steers a flow by its UDP source port.
 */
#ifndef SIM_SWITCH_H
#define SIM_SWITCH_H

#include "node.h"

#define SIM_MAX_ECMP 64

struct sim_route {
	u16 n;
	u16 port[SIM_MAX_ECMP];	/* indices into node.ports */
};

struct sim_switch {
	struct sim_node node;
	u64 key;		/* ECMP hash key */
	struct sim_route *rt;	/* [nrt], by destination NIC index */
	u32 nrt;
	u32 (*nic_of)(void *topo, u32 addr);	/* address -> table index */
	void *topo;
	bool blackhole;		/* drops everything, silently */
	u64 fwd;
	u64 drop_noroute;
	u64 drop_bh;
};

void sim_switch_init(struct sim_switch *sw, struct sim *s, u32 id,
		     const char *name);
/* the seeded 5-tuple hash (exposed for tests of its spread) */
u64 sim_ecmp_hash(u64 key, const struct sim_pkt *k);

#endif /* SIM_SWITCH_H */
