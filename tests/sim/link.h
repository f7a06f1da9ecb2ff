/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Links: two ports, one per direction. A port is an output queue in front
 * of a wire:
 *
 *   enqueue   dropped at once if the link is not up (a black hole drops
 *             silently, as a broken line card does) or if the buffer would
 *             exceed limit bytes (tail drop); else marked CE when the
 *             buffer already holds more than ecn_k bytes (DCTCP-style
 *             marking on enqueue, instantaneous queue) and queued. With
 *             ecn_kmax > ecn_k the mark is RED-like instead: with
 *             probability (q - ecn_k) / (ecn_kmax - ecn_k) in between,
 *             always above ecn_kmax (its own seeded stream).
 *   serialise wire bytes * 8 / rate, exactly (the remainder carries over).
 *   wire      lost with probability loss_ppm / 1e6 (its own seeded
 *             stream), else it reaches the peer node after delay_ns.
 *
 * A link can be black-holed (silent drops; routing does not know) or taken
 * down (topo_route() then routes around it), and slowed, at any time.
 */
#ifndef SIM_LINK_H
#define SIM_LINK_H

#include "node.h"

enum sim_link_state {
	SIM_LINK_UP,
	SIM_LINK_BLACKHOLE,
	SIM_LINK_DOWN,
};

struct sim_link_cfg {
	u64 mbps;		/* rate, Mbit/s */
	u64 delay_ns;		/* propagation */
	u64 limit;		/* buffer, bytes (0: unlimited) */
	u64 ecn_k;		/* mark CE above this many bytes (0: never) */
	u64 ecn_kmax;		/* > ecn_k: marking probability 1 from here */
	u32 loss_ppm;		/* random loss, per million packets */
};

struct sim_port {
	struct sim *sim;
	u32 id;			/* global port number (trace) */
	struct sim_node *from;
	struct sim_node *to;
	struct sim_link_cfg cfg;
	u8 state;
	u64 rng;		/* loss */
	u64 ecn_rng;		/* RED-like marking */
	/* queue: head is being serialised while busy */
	struct sim_pkt *head;
	struct sim_pkt *tail;
	u64 qbytes;		/* buffered, including the one on the wire */
	u64 waiting;		/* buffered and not yet started */
	bool busy;
	u64 rem;		/* serialisation remainder, bit-ns * Mbit/s */
	/* the owner wants to hear when a packet starts (host NICs) */
	void (*started)(struct sim_port *p);
	void *owner;
	/* statistics */
	u64 tx_pkts;
	u64 tx_bytes;
	u64 drop_full;
	u64 drop_loss;
	u64 drop_down;
	u64 ce_marks;
	u64 peak;		/* most bytes buffered */
};

struct sim_link {
	u32 id;
	struct sim_port dir[2];	/* dir[0]: a -> b, dir[1]: b -> a */
};

void sim_link_init(struct sim_link *l, struct sim *s, u32 id,
		   struct sim_node *a, struct sim_node *b,
		   const struct sim_link_cfg *cfg);
/* hand @k to the port (it owns it from now on) */
void sim_port_send(struct sim_port *p, struct sim_pkt *k);
/* both directions */
void sim_link_set_state(struct sim_link *l, enum sim_link_state st);
void sim_link_set_rate(struct sim_link *l, u64 mbps);
void sim_link_set_loss(struct sim_link *l, u32 ppm);
/* one direction at @pct % of its rate, buffer and ECN thresholds */
void sim_port_degrade(struct sim_port *p, u32 pct);
/* the port's packet rate at line speed for @wire-byte frames, ns each */
u64 sim_port_ser_ns(const struct sim_port *p, u32 wire);

#endif /* SIM_LINK_H */
