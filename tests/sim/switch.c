// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Switch forwarding (see switch.h).
 */
#include "switch.h"
#include "link.h"
#include <stdio.h>

/*
 * Two rounds of splitmix64's finaliser over the key and the 5-tuple: every
 * input bit flips each output bit with probability close to 1/2, so flows
 * spread evenly and two switches (different keys) choose independently.
 */
u64 sim_ecmp_hash(u64 key, const struct sim_pkt *k)
{
	u64 h = sim_mix(key ^ ((u64)k->src << 32 | k->dst));

	return sim_mix(h ^ ((u64)k->sport << 32 | (u64)k->dport << 16 | k->proto));
}

static void sw_rx(struct sim_node *n, struct sim_pkt *k, struct sim_port *in)
{
	struct sim_switch *sw = (struct sim_switch *)n;
	const struct sim_route *r;
	u32 i, pick;

	if (sw->blackhole) {
		sw->drop_bh++;
		sim_trace(n->sim, "drop-bh", n->id, k->id, 0, 0);
		sim_pkt_free(n->sim, k);
		return;
	}
	i = sw->nic_of(sw->topo, k->dst);
	r = i < sw->nrt ? &sw->grp[sw->rt[i]] : NULL;
	if (!r || !r->n) {
		sw->drop_noroute++;
		sim_trace(n->sim, "drop-noroute", n->id, k->id, k->dst, 0);
		sim_pkt_free(n->sim, k);
		return;
	}
	/* multiply-shift: unbiased over the top 32 bits of the hash */
	pick = (u32)(((sim_ecmp_hash(sw->key, k) >> 32) * r->n) >> 32);
	sw->fwd++;
	sim_port_send(n->ports[r->port[pick]], k);
}

void sim_switch_init(struct sim_switch *sw, struct sim *s, u32 id,
		     const char *name)
{
	*sw = (struct sim_switch){
		.node = { .sim = s, .id = id, .kind = SIM_NODE_SWITCH, .rx = sw_rx },
		.key = sim_seed_of(s, 0x5717ULL << 32 | id),
	};
	snprintf(sw->node.name, sizeof(sw->node.name), "%.23s", name);
}
