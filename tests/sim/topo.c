// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Topologies and routing (see topo.h).
 */
#include "topo.h"
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define DIST_INF 0xffffffffu

static void *zalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p)
		abort();
	return p;
}

void topo_init(struct topo *t, struct sim *s, u32 nplanes)
{
	memset(t, 0, sizeof(*t));
	t->sim = s;
	t->nplanes = nplanes;
}

void topo_free(struct topo *t)
{
	u32 i;

	for (i = 0; i < t->nnodes; i++) {
		struct sim_node *n = t->nodes[i];

		if (n->kind == SIM_NODE_SWITCH)
			free(((struct sim_switch *)n)->rt);
		free(n->ports);
		free(n);
	}
	for (i = 0; i < t->nlinks; i++)
		free(t->links[i]);
	memset(t, 0, sizeof(*t));
}

static void add_node(struct topo *t, struct sim_node *n)
{
	if (t->nnodes == TOPO_MAX_NODES)
		abort();
	t->nodes[t->nnodes++] = n;
}

struct sim_host *topo_host(struct topo *t, const char *name)
{
	struct sim_host *h = zalloc(sizeof(*h));

	if (t->nhosts == TOPO_MAX_HOSTS)
		abort();
	sim_host_init(h, t->sim, t->nnodes, t->nhosts, name);
	t->hosts[t->nhosts++] = h;
	add_node(t, &h->node);
	return h;
}

struct sim_switch *topo_switch(struct topo *t, const char *name)
{
	struct sim_switch *sw = zalloc(sizeof(*sw));

	sim_switch_init(sw, t->sim, t->nnodes, name);
	sw->nic_of = topo_nic_index;
	sw->topo = t;
	add_node(t, &sw->node);
	return sw;
}

static void add_port(struct sim_node *n, struct sim_port *p)
{
	n->ports = realloc(n->ports, (n->nports + 1) * sizeof(*n->ports));
	if (!n->ports)
		abort();
	n->ports[n->nports++] = p;
}

struct sim_link *topo_link(struct topo *t, struct sim_node *a,
			   struct sim_node *b, const struct sim_link_cfg *c)
{
	struct sim_link *l = zalloc(sizeof(*l));

	if (t->nlinks == TOPO_MAX_LINKS)
		abort();
	sim_link_init(l, t->sim, t->nlinks, a, b, c);
	t->links[t->nlinks++] = l;
	add_port(a, &l->dir[0]);
	add_port(b, &l->dir[1]);
	return l;
}

struct sim_link *topo_attach(struct topo *t, struct sim_host *h, u32 plane,
			     struct sim_switch *sw,
			     const struct sim_link_cfg *c)
{
	struct sim_link *l = topo_link(t, &h->node, &sw->node, c);

	sim_host_add_nic(h, plane, &l->dir[0]);
	t->rx_port[h->idx][plane] = &l->dir[1];
	return l;
}

u32 topo_nic_index(void *tv, u32 addr)
{
	const struct topo *t = tv;
	u32 h = sim_addr_host(addr), p = sim_addr_plane(addr);

	if (h >= t->nhosts || p >= t->nplanes)
		return ~0u;
	return h * t->nplanes + p;
}

static void alloc_tables(struct topo *t)
{
	u32 i, n = t->nhosts * t->nplanes;

	for (i = 0; i < t->nnodes; i++) {
		struct sim_switch *sw = (struct sim_switch *)t->nodes[i];

		if (t->nodes[i]->kind != SIM_NODE_SWITCH)
			continue;
		free(sw->rt);
		sw->rt = zalloc(n * sizeof(*sw->rt));
		sw->nrt = n;
	}
}

/* distances of every switch to the switch port @last (which reaches the NIC) */
static void bfs(struct topo *t, const struct sim_port *last)
{
	struct sim_node *queue[TOPO_MAX_NODES];
	u32 head = 0, tail = 0, i, j;

	for (i = 0; i < t->nnodes; i++)
		t->nodes[i]->dist = DIST_INF;
	if (last->state == SIM_LINK_DOWN)
		return;
	last->from->dist = 1;
	queue[tail++] = last->from;
	while (head < tail) {
		struct sim_node *v = queue[head++];

		/* every switch u with an up link u -> v is one hop further */
		for (j = 0; j < v->nports; j++) {
			struct sim_port *back = v->ports[j];
			struct sim_node *u = back->to;

			if (u->kind != SIM_NODE_SWITCH || u->dist != DIST_INF ||
			    back->state == SIM_LINK_DOWN)
				continue;
			u->dist = v->dist + 1;
			queue[tail++] = u;
		}
	}
}

/* every switch's ports that lead one hop closer become its ECMP set */
static void fill_routes(struct topo *t, u32 nic, const struct sim_port *last)
{
	u32 i, j;

	for (i = 0; i < t->nnodes; i++) {
		struct sim_node *u = t->nodes[i];
		struct sim_route *r;

		if (u->kind != SIM_NODE_SWITCH)
			continue;
		r = &((struct sim_switch *)u)->rt[nic];
		r->n = 0;
		if (u->dist == DIST_INF)
			continue;
		for (j = 0; j < u->nports && r->n < SIM_MAX_ECMP; j++) {
			struct sim_port *p = u->ports[j];

			if (p->state == SIM_LINK_DOWN)
				continue;
			if (p == last || (p->to->kind == SIM_NODE_SWITCH &&
					  p->to->dist + 1 == u->dist))
				r->port[r->n++] = (u16)j;
		}
	}
}

void topo_route(struct topo *t)
{
	u32 h, p;

	alloc_tables(t);
	for (h = 0; h < t->nhosts; h++)
		for (p = 0; p < t->nplanes; p++) {
			const struct sim_port *last = t->rx_port[h][p];

			if (!last)
				continue;
			bfs(t, last);
			fill_routes(t, h * t->nplanes + p, last);
		}
	sim_trace(t->sim, "route", t->nnodes, t->nlinks, 0, 0);
}

static struct sim_switch *named_switch(struct topo *t, const char *fmt,
				       u32 a, u32 b)
{
	char name[48];

	snprintf(name, sizeof(name), fmt, a, b);
	return topo_switch(t, name);
}

static struct sim_host *named_host(struct topo *t, u32 i)
{
	char name[24];

	snprintf(name, sizeof(name), "h%u", i);
	return topo_host(t, name);
}

void topo_parallel(struct topo *t, const struct topo_cfg *c, u32 k)
{
	struct sim_host *h0 = named_host(t, 0), *h1 = named_host(t, 1);
	u32 p, i;

	t->nspines = k;
	for (p = 0; p < c->planes; p++) {
		struct sim_switch *a = named_switch(t, "leafA.%u", p, 0);
		struct sim_switch *b = named_switch(t, "leafB.%u", p, 0);

		topo_attach(t, h0, p, a, &c->host);
		topo_attach(t, h1, p, b, &c->host);
		for (i = 0; i < k; i++) {
			struct sim_switch *s = named_switch(t, "spine%u.%u", i, p);

			t->spine[p][i] = s;
			topo_link(t, &a->node, &s->node, &c->fabric);
			topo_link(t, &s->node, &b->node, &c->fabric);
		}
	}
	topo_route(t);
}

void topo_incast(struct topo *t, const struct topo_cfg *c, u32 nsend,
		 u32 nleaves, u32 nspines)
{
	struct sim_host *h[TOPO_MAX_HOSTS];
	u32 p, i;

	for (i = 0; i <= nsend; i++)
		h[i] = named_host(t, i);	/* h[nsend]: the receiver */
	t->nspines = nleaves ? nspines : 0;
	for (p = 0; p < c->planes; p++) {
		struct sim_switch *rl = named_switch(t, "leafR.%u", p, 0);
		struct sim_switch *leaf[SIM_MAX_ECMP];

		topo_attach(t, h[nsend], p, rl, &c->host);
		for (i = 0; i < nleaves; i++)
			leaf[i] = named_switch(t, "leaf%u.%u", i, p);
		for (i = 0; i < nsend; i++)
			topo_attach(t, h[i], p, nleaves ? leaf[i % nleaves] : rl,
				    &c->host);
		for (i = 0; nleaves && i < nspines; i++) {
			struct sim_switch *s = named_switch(t, "spine%u.%u", i, p);
			u32 j;

			t->spine[p][i] = s;
			topo_link(t, &s->node, &rl->node, &c->fabric);
			for (j = 0; j < nleaves; j++)
				topo_link(t, &leaf[j]->node, &s->node, &c->fabric);
		}
	}
	topo_route(t);
}

void topo_fattree(struct topo *t, const struct topo_cfg *c, u32 k)
{
	struct sim_switch *edge[16][8], *agg[16][8], *core[64];
	u32 half = k / 2, p, pod, i, j, n = 0;

	if (k < 2 || k > 16 || k & 1 || k * k * k / 4 > TOPO_MAX_HOSTS)
		abort();
	for (i = 0; i < k * k * k / 4; i++)
		named_host(t, i);
	t->nspines = half * half;
	for (p = 0; p < c->planes; p++) {
		for (i = 0; i < half * half; i++) {
			core[i] = named_switch(t, "core%u.%u", i, p);
			t->spine[p][i] = core[i];
		}
		for (pod = 0; pod < k; pod++)
			for (i = 0; i < half; i++) {
				edge[pod][i] = named_switch(t, "edge%u.%u", pod * half + i, p);
				agg[pod][i] = named_switch(t, "agg%u.%u", pod * half + i, p);
			}
		for (pod = 0, n = 0; pod < k; pod++)
			for (i = 0; i < half; i++) {
				for (j = 0; j < half; j++) {
					topo_attach(t, t->hosts[n++], p, edge[pod][i], &c->host);
					topo_link(t, &edge[pod][i]->node,
						  &agg[pod][j]->node, &c->fabric);
					topo_link(t, &agg[pod][i]->node,
						  &core[i * half + j]->node, &c->fabric);
				}
			}
	}
	topo_route(t);
}
