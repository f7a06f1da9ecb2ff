// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Hosts (see host.h).
 */
#include "host.h"
#include "link.h"
#include <string.h>
#include <stdio.h>

/* run() calls in one go at most, before yielding to other events */
#define HOST_RUN_LOOPS 64

static void arm(struct sim_host *h, u64 at);

/* the transport may send: let it, and keep its timer */
static void service(struct sim_host *h)
{
	struct sim *s = h->node.sim;
	u64 d = 0;
	u32 i;

	for (i = 0; i < HOST_RUN_LOOPS; i++) {
		if (h->app)
			h->app(h);
		d = h->xo->run(h);
		if (!d || d > s->now || !sim_host_room(h))
			break;
	}
	if (d && d <= s->now) {
		/* wants more: a NIC that starts a packet will call us back */
		if (sim_host_room(h))
			d = s->now + 1;		/* run() made no progress */
		else
			d = 0;
	}
	arm(h, d);
}

static void timer_ev(struct sim *s, void *obj, u64 gen)
{
	struct sim_host *h = obj;

	if (gen != h->timer_gen)
		return;		/* re-armed since */
	h->timer_at = 0;
	sim_trace(s, "timer", h->node.id, 0, 0, 0);
	service(h);
}

static void arm(struct sim_host *h, u64 at)
{
	if (at == h->timer_at)
		return;
	h->timer_gen++;
	h->timer_at = at;
	if (at)
		sim_at(h->node.sim, at, timer_ev, h, h->timer_gen);
}

static void kick_ev(struct sim *s, void *obj, u64 arg)
{
	struct sim_host *h = obj;

	h->kick_queued = false;
	service(h);
}

void sim_host_kick(struct sim_host *h)
{
	if (h->kick_queued)
		return;
	h->kick_queued = true;
	sim_at(h->node.sim, h->node.sim->now, kick_ev, h, 0);
}

bool sim_host_room(const struct sim_host *h)
{
	u64 waiting = 0;
	u32 i;

	for (i = 0; i < h->nnics; i++)
		waiting += h->nic[i]->waiting;
	return waiting < (u64)h->nic_room * h->nnics;
}

/* a NIC started a packet: room may have opened */
static void nic_started(struct sim_port *p)
{
	struct sim_host *h = p->owner;

	if (sim_host_room(h))
		sim_host_kick(h);
}

static void host_rx(struct sim_node *n, struct sim_pkt *k,
		    struct sim_port *in)
{
	struct sim_host *h = (struct sim_host *)n;

	h->rx_pkts++;
	h->xo->rx(h, k);
	sim_pkt_free(n->sim, k);
	service(h);
}

void sim_host_init(struct sim_host *h, struct sim *s, u32 node_id, u32 idx,
		   const char *name)
{
	memset(h, 0, sizeof(*h));
	h->node = (struct sim_node){
		.sim = s, .id = node_id, .kind = SIM_NODE_HOST, .rx = host_rx,
	};
	snprintf(h->node.name, sizeof(h->node.name), "%.23s", name);
	h->idx = idx;
	h->nic_room = 2 * (SIM_WIRE_OVERHEAD + MRE_MAX_HDR_LEN + MRE_MAX_PAYLOAD);
}

void sim_host_add_nic(struct sim_host *h, u32 plane, struct sim_port *p)
{
	h->nic[plane] = p;
	if (plane >= h->nnics)
		h->nnics = plane + 1;
	p->started = nic_started;
	p->owner = h;
}

void sim_host_set_xport(struct sim_host *h, const struct sim_xport *xo,
			void *xp)
{
	h->xo = xo;
	h->xp = xp;
}

void sim_host_send(struct sim_host *h, u32 plane, u32 dst, u16 sport,
		   u16 dport, const u8 *data, u32 len, u32 wire_len)
{
	struct sim *s = h->node.sim;
	struct sim_pkt *k;

	if (plane >= h->nnics || !h->nic[plane] || len > SIM_PKT_MAX) {
		sim_trace(s, "drop-nonic", h->node.id, plane, len, 0);
		return;
	}
	k = sim_pkt_alloc(s);
	k->src = sim_addr(h->idx, plane);
	k->dst = sim_addr(dst, plane);
	k->sport = sport;
	k->dport = dport;
	k->proto = SIM_PROTO_UDP;
	k->len = len;
	k->wire = MRE_MAX(wire_len, len) + SIM_WIRE_OVERHEAD;
	memcpy(k->data, data, len);
	h->tx_pkts++;
	/* the header's bytes too: two runs agree on content, not just timing */
	sim_trace(s, "send", h->node.id, k->id, (u64)k->dst << 32 | (u64)k->sport << 16 | k->len,
		  sim_bytes_hash(data, MRE_MIN(len, (u32)MRE_MAX_HDR_LEN)));
	sim_port_send(h->nic[plane], k);
}
