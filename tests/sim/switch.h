/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Switches: forward by destination address over equal-cost next hops.
 *
 * The routing table (filled by topo_route()) gives, per destination NIC,
 * the set of egress ports on a shortest path. A switch has only a few
 * distinct sets (one per downward port, one upward), so the table holds a
 * u16 index per NIC into the switch's own list of sets, grp[0] being the
 * empty one: 2 bytes per NIC and switch, which is what lets a fabric of
 * thousands of hosts and switches fit. A packet takes the port
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
	u16 *rt;		/* [nrt], by destination NIC index: into grp */
	u32 nrt;
	struct sim_route *grp;	/* [ngrp] distinct ECMP sets; grp[0] empty */
	u32 ngrp;
	u32 capgrp;
	u32 (*nic_of)(void *topo, u32 addr);	/* address -> table index */
	void *topo;
	bool blackhole;		/* drops everything, silently */
	u64 fwd;
	u64 drop_noroute;
	u64 drop_bh;
};

void sim_switch_init(struct sim_switch *sw, struct sim *s, u32 id,
		     const char *name);
/* the ECMP set toward NIC index @nic (never NULL; n = 0: no route) */
static inline const struct sim_route *sim_switch_route(const struct sim_switch *sw,
							u32 nic)
{
	return &sw->grp[nic < sw->nrt ? sw->rt[nic] : 0];
}

/* the seeded 5-tuple hash (exposed for tests of its spread) */
u64 sim_ecmp_hash(u64 key, const struct sim_pkt *k);

#endif /* SIM_SWITCH_H */
