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

		if (n->kind == SIM_NODE_SWITCH) {
			free(((struct sim_switch *)n)->rt);
			free(((struct sim_switch *)n)->grp);
		}
		free(n->ports);
		free(n);
	}
	for (i = 0; i < t->nlinks; i++)
		free(t->links[i]);
	free(t->nodes);
	free(t->links);
	free(t->hosts);
	free(t->rx_port);
	free(t->bfsq);
	memset(t, 0, sizeof(*t));
}

/* make room for one more of @n entries of @size bytes in *@arr */
static void grow(void *arr, u32 n, u32 *cap, size_t size)
{
	void **a = arr;
	u32 old = *cap;

	if (n < old)
		return;
	*cap = old ? 2 * old : 64;
	*a = realloc(*a, *cap * size);
	if (!*a)
		abort();
	memset((char *)*a + old * size, 0, (*cap - old) * size);
}

static void add_node(struct topo *t, struct sim_node *n)
{
	grow(&t->nodes, t->nnodes, &t->capnodes, sizeof(*t->nodes));
	t->nodes[t->nnodes++] = n;
}

struct sim_host *topo_host(struct topo *t, const char *name)
{
	struct sim_host *h = zalloc(sizeof(*h));
	u32 cap = t->caphosts;

	if (t->nhosts > 0xffff)
		abort();	/* sim_addr() has 16 bits of host */
	grow(&t->hosts, t->nhosts, &t->caphosts, sizeof(*t->hosts));
	if (cap != t->caphosts)
		grow(&t->rx_port, t->nhosts, &cap, sizeof(*t->rx_port));
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

	grow(&t->links, t->nlinks, &t->caplinks, sizeof(*t->links));
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

		t->nodes[i]->dist = DIST_INF;
		if (t->nodes[i]->kind != SIM_NODE_SWITCH)
			continue;
		free(sw->rt);
		sw->rt = zalloc(n * sizeof(*sw->rt));
		sw->nrt = n;
		if (!sw->grp) {
			sw->capgrp = 8;
			sw->grp = zalloc(sw->capgrp * sizeof(*sw->grp));
		}
		sw->ngrp = 1;	/* grp[0]: no route */
	}
	free(t->bfsq);
	t->bfsq = zalloc(t->nnodes * sizeof(*t->bfsq));
}

/*
 * Distances of every switch to the switch port @last (which reaches the
 * NIC); returns how many switches were reached, listed in t->bfsq. Only
 * those are reset afterwards, so one destination costs its plane, not the
 * whole fabric.
 */
static u32 bfs(struct topo *t, const struct sim_port *last)
{
	struct sim_node **queue = t->bfsq;
	u32 head = 0, tail = 0, j;

	if (last->state == SIM_LINK_DOWN)
		return 0;
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
	return tail;
}

/* the index of set @r in @sw's list, added if new */
static u16 intern(struct sim_switch *sw, const struct sim_route *r)
{
	u32 g;

	if (!r->n)
		return 0;
	for (g = 1; g < sw->ngrp; g++)
		if (sw->grp[g].n == r->n &&
		    !memcmp(sw->grp[g].port, r->port, r->n * sizeof(r->port[0])))
			return (u16)g;
	if (sw->ngrp > 0xffff)
		abort();
	grow(&sw->grp, sw->ngrp, &sw->capgrp, sizeof(*sw->grp));
	sw->grp[sw->ngrp] = *r;
	return (u16)sw->ngrp++;
}

/* every reached switch's ports that lead one hop closer become its ECMP set */
static void fill_routes(struct topo *t, u32 nic, const struct sim_port *last,
			u32 nreached)
{
	u32 i, j;

	for (i = 0; i < nreached; i++) {
		struct sim_node *u = t->bfsq[i];
		struct sim_route r = { 0 };

		for (j = 0; j < u->nports && r.n < SIM_MAX_ECMP; j++) {
			struct sim_port *p = u->ports[j];

			if (p->state == SIM_LINK_DOWN)
				continue;
			if (p == last || (p->to->kind == SIM_NODE_SWITCH &&
					  p->to->dist + 1 == u->dist))
				r.port[r.n++] = (u16)j;
		}
		((struct sim_switch *)u)->rt[nic] = intern((struct sim_switch *)u, &r);
	}
	for (i = 0; i < nreached; i++)
		t->bfsq[i]->dist = DIST_INF;
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
			fill_routes(t, h * t->nplanes + p, last, bfs(t, last));
		}
	sim_trace(t->sim, "route", t->nnodes, t->nlinks, 0, 0);
}

/* the plane a node's name says (switches only; ~0: a host) */
static u32 plane_of(const struct sim_node *n)
{
	const char *dot;

	if (n->kind != SIM_NODE_SWITCH || !(dot = strrchr(n->name, '.')))
		return ~0u;
	return (u32)strtoul(dot + 1, NULL, 10);
}

u32 topo_plane_state(struct topo *t, u32 plane, u8 state)
{
	u32 i, n = 0;

	for (i = 0; i < t->nlinks; i++) {
		struct sim_link *l = t->links[i];

		if (plane_of(l->dir[0].from) == plane ||
		    plane_of(l->dir[0].to) == plane) {
			sim_link_set_state(l, (enum sim_link_state)state);
			n++;
		}
	}
	return n;
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
	struct sim_host **h = zalloc((nsend + 1) * sizeof(*h));
	u32 p, i;

	if (nleaves > TOPO_MAX_SPINES || nspines > TOPO_MAX_SPINES)
		abort();
	for (i = 0; i <= nsend; i++)
		h[i] = named_host(t, i);	/* h[nsend]: the receiver */
	t->nspines = nleaves ? nspines : 0;
	for (p = 0; p < c->planes; p++) {
		struct sim_switch *rl = named_switch(t, "leafR.%u", p, 0);
		struct sim_switch *leaf[TOPO_MAX_SPINES];

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
	free(h);
	topo_route(t);
}

void topo_leafspine(struct topo *t, const struct topo_cfg *c, u32 nleaves,
		    u32 per_leaf, u32 nspines)
{
	struct sim_switch **leaf = zalloc(nleaves * sizeof(*leaf));
	u32 p, i, j;

	if (nspines > TOPO_MAX_SPINES)
		abort();
	for (i = 0; i < nleaves * per_leaf; i++)
		named_host(t, i);
	t->nspines = nspines;
	for (p = 0; p < c->planes; p++) {
		for (i = 0; i < nleaves; i++) {
			leaf[i] = named_switch(t, "leaf%u.%u", i, p);
			for (j = 0; j < per_leaf; j++)
				topo_attach(t, t->hosts[i * per_leaf + j], p,
					    leaf[i], &c->host);
		}
		for (i = 0; i < nspines; i++) {
			struct sim_switch *s = named_switch(t, "spine%u.%u", i, p);

			t->spine[p][i] = s;
			for (j = 0; j < nleaves; j++)
				topo_link(t, &leaf[j]->node, &s->node, &c->fabric);
		}
	}
	free(leaf);
	topo_route(t);
}

void topo_fattree(struct topo *t, const struct topo_cfg *c, u32 k)
{
	struct sim_switch *edge[TOPO_MAX_FAT_K][TOPO_MAX_FAT_K / 2];
	struct sim_switch *agg[TOPO_MAX_FAT_K][TOPO_MAX_FAT_K / 2];
	struct sim_switch *core[TOPO_MAX_SPINES];
	struct sim_link_cfg up = c->fabric;
	u32 half = k / 2, p, pod, i, j, n = 0;

	if (k < 2 || k > TOPO_MAX_FAT_K || k & 1)
		abort();
	if (c->oversub > 1)
		up.mbps /= c->oversub;
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
						  &agg[pod][j]->node, &up);
					topo_link(t, &agg[pod][i]->node,
						  &core[i * half + j]->node, &c->fabric);
				}
			}
	}
	topo_route(t);
}
