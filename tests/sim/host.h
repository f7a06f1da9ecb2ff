/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Hosts: NICs, one per plane, and a transport that owns the host's
 * transmit schedule.
 *
 * A NIC pulls: the transport is asked for packets (xport.run) whenever the
 * NIC's transmit queue holds less than nic_room bytes that have not started
 * yet, so a packet is built, timestamped and paced when the wire can take
 * it, as in an RDMA NIC, and a sender's queue never hides in the host.
 * xport.run is also called at the deadline it last returned and after every
 * received packet. It returns the next deadline: 0 for none, or a time not
 * after now for "more to send at once" (it is called again as soon as a NIC
 * has room).
 *
 * Hosts never forward. Packets from other hosts go to xport.rx.
 */
#ifndef SIM_HOST_H
#define SIM_HOST_H

#include "node.h"

#define SIM_MAX_PLANES 8

struct sim_host;

struct sim_xport {
	const char *name;
	void (*rx)(struct sim_host *h, struct sim_pkt *k);
	u64 (*run)(struct sim_host *h);
};

struct sim_host {
	struct sim_node node;
	u32 idx;		/* host number: the address's host part */
	u32 nnics;
	struct sim_port *nic[SIM_MAX_PLANES];	/* egress, by plane */
	u32 nic_room;		/* bytes not yet started below which run() is called */
	const struct sim_xport *xo;
	void *xp;		/* the transport's state */
	/* the application (workload) runs before each xport.run */
	void (*app)(struct sim_host *h);
	void *app_ctx;
	u64 timer_at;		/* armed deadline (0: none) */
	u64 timer_gen;
	bool kick_queued;
	u64 rx_pkts;
	u64 tx_pkts;
};

void sim_host_init(struct sim_host *h, struct sim *s, u32 node_id, u32 idx,
		   const char *name);
/* a NIC on plane @plane sends through @p (called by the topology) */
void sim_host_add_nic(struct sim_host *h, u32 plane, struct sim_port *p);
void sim_host_set_xport(struct sim_host *h, const struct sim_xport *xo,
			void *xp);
/*
 * Send a datagram of @len bytes (copied) from our NIC on @plane to host
 * @dst's NIC on the same plane. @wire_len is its UDP payload size on the
 * wire (>= len when the payload is not carried, as in the baseline).
 */
void sim_host_send(struct sim_host *h, u32 plane, u32 dst, u16 sport,
		   u16 dport, const u8 *data, u32 len, u32 wire_len);
/* may the transport hand over another packet now? */
bool sim_host_room(const struct sim_host *h);
/* call xport.run soon (now, after the current event) */
void sim_host_kick(struct sim_host *h);

#endif /* SIM_HOST_H */
