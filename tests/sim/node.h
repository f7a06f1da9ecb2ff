/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A node of the fabric graph: a host or a switch. A node owns its egress
 * ports (one per link it is attached to); packets reach it through rx().
 */
#ifndef SIM_NODE_H
#define SIM_NODE_H

#include "sim.h"

struct sim_port;

enum sim_node_kind {
	SIM_NODE_HOST,
	SIM_NODE_SWITCH,
};

struct sim_node {
	struct sim *sim;
	u32 id;			/* index in the topology's node table */
	u8 kind;
	char name[24];
	struct sim_port **ports;	/* egress ports */
	u32 nports;
	/* a packet arrived from port @in (the peer's egress port) */
	void (*rx)(struct sim_node *n, struct sim_pkt *k, struct sim_port *in);
	u32 dist;		/* routing scratch (topo.c) */
};

#endif /* SIM_NODE_H */
