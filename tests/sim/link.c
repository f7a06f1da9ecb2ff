// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Ports and links (see link.h).
 */
#include "link.h"

static void port_init(struct sim_port *p, struct sim *s, u32 id,
		      struct sim_node *from, struct sim_node *to,
		      const struct sim_link_cfg *cfg)
{
	*p = (struct sim_port){
		.sim = s, .id = id, .from = from, .to = to, .cfg = *cfg,
		.state = SIM_LINK_UP, .rng = sim_seed_of(s, 0x9017ULL << 32 | id),
		.ecn_rng = sim_seed_of(s, 0xec40ULL << 32 | id),
	};
}

void sim_link_init(struct sim_link *l, struct sim *s, u32 id,
		   struct sim_node *a, struct sim_node *b,
		   const struct sim_link_cfg *cfg)
{
	l->id = id;
	port_init(&l->dir[0], s, 2 * id, a, b, cfg);
	port_init(&l->dir[1], s, 2 * id + 1, b, a, cfg);
}

u64 sim_port_ser_ns(const struct sim_port *p, u32 wire)
{
	return (u64)wire * 8000 / p->cfg.mbps;
}

static void drop(struct sim_port *p, struct sim_pkt *k, const char *why,
		 u64 *ctr)
{
	(*ctr)++;
	sim_trace(p->sim, why, p->id, k->id, k->wire, p->qbytes);
	sim_pkt_free(p->sim, k);
}

static void arrive(struct sim *s, void *obj, u64 arg)
{
	struct sim_port *p = obj;
	struct sim_pkt *k = (struct sim_pkt *)(__UINTPTR_TYPE__)arg;

	sim_trace(s, "arrive", p->id, k->id, p->to->id, k->ce);
	p->to->rx(p->to, k, p);
}

static void start(struct sim_port *p);

static void tx_done(struct sim *s, void *obj, u64 arg)
{
	struct sim_port *p = obj;
	struct sim_pkt *k = p->head;

	p->head = k->next;
	if (!p->head)
		p->tail = NULL;
	k->next = NULL;
	p->qbytes -= k->wire;
	p->busy = false;
	p->tx_pkts++;
	p->tx_bytes += k->wire;
	if (p->state != SIM_LINK_UP)
		drop(p, k, "drop-down", &p->drop_down);
	else if (p->cfg.loss_ppm && sim_ppm(&p->rng) < p->cfg.loss_ppm)
		drop(p, k, "drop-loss", &p->drop_loss);
	else
		sim_at(s, s->now + p->cfg.delay_ns, arrive, p,
		       (u64)(__UINTPTR_TYPE__)k);
	if (p->head)
		start(p);
}

/* serialise the head packet */
static void start(struct sim_port *p)
{
	struct sim *s = p->sim;
	struct sim_pkt *k = p->head;
	u64 bits = (u64)k->wire * 8000 + p->rem;

	p->busy = true;
	p->waiting -= k->wire;
	p->rem = bits % p->cfg.mbps;
	sim_at(s, s->now + bits / p->cfg.mbps, tx_done, p, 0);
	if (p->started)
		p->started(p);
}

/* above ecn_k: mark? (always without ecn_kmax, else RED-like) */
static bool ecn_mark(struct sim_port *p)
{
	u64 k = p->cfg.ecn_k, kmax = p->cfg.ecn_kmax;

	if (kmax <= k || p->qbytes >= kmax)
		return true;
	return mdl_rand(&p->ecn_rng) % (kmax - k) < p->qbytes - k;
}

void sim_port_send(struct sim_port *p, struct sim_pkt *k)
{
	if (p->state != SIM_LINK_UP) {
		drop(p, k, "drop-down", &p->drop_down);
		return;
	}
	if (p->cfg.limit && p->qbytes + k->wire > p->cfg.limit) {
		drop(p, k, "drop-full", &p->drop_full);
		return;
	}
	if (p->cfg.ecn_k && p->qbytes > p->cfg.ecn_k && !k->ce && ecn_mark(p)) {
		k->ce = 1;
		p->ce_marks++;
	}
	k->next = NULL;
	if (p->tail)
		p->tail->next = k;
	else
		p->head = k;
	p->tail = k;
	p->qbytes += k->wire;
	p->waiting += k->wire;
	if (p->qbytes > p->peak)
		p->peak = p->qbytes;
	sim_trace(p->sim, "enq", p->id, k->id, k->wire, p->qbytes);
	if (!p->busy)
		start(p);
}

void sim_link_set_state(struct sim_link *l, enum sim_link_state st)
{
	l->dir[0].state = l->dir[1].state = (u8)st;
	sim_trace(l->dir[0].sim, "link-state", l->id, st, 0, 0);
}

void sim_link_set_rate(struct sim_link *l, u64 mbps)
{
	l->dir[0].cfg.mbps = l->dir[1].cfg.mbps = mbps;
	sim_trace(l->dir[0].sim, "link-rate", l->id, mbps, 0, 0);
}

void sim_link_set_loss(struct sim_link *l, u32 ppm)
{
	l->dir[0].cfg.loss_ppm = l->dir[1].cfg.loss_ppm = ppm;
	sim_trace(l->dir[0].sim, "link-loss", l->id, ppm, 0, 0);
}

void sim_port_degrade(struct sim_port *p, u32 pct)
{
	p->cfg.mbps = p->cfg.mbps * pct / 100;
	p->cfg.limit = p->cfg.limit * pct / 100;
	p->cfg.ecn_k = p->cfg.ecn_k * pct / 100;
	p->cfg.ecn_kmax = p->cfg.ecn_kmax * pct / 100;
	sim_trace(p->sim, "port-degrade", p->id, pct, 0, 0);
}
