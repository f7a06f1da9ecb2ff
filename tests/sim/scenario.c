// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Scenarios (see scenario.h).
 */
#include "scenario.h"
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

void scen_engine_cfg(struct mre_config *cfg)
{
	mre_config_default(cfg);
	cfg->link_mbps = 100000;
	cfg->tx_burst = 1;
}

void scen_defaults(struct scen *s)
{
	const struct sim_link_cfg link = {
		.mbps = 100000, .delay_ns = 1000, .limit = 512 * 1024,
		.ecn_k = 64 * 1024,
	};

	memset(s, 0, sizeof(*s));
	s->seed = 1;
	s->shape = SCEN_PARALLEL;
	s->k = 8;
	s->tc = (struct topo_cfg){ .planes = 1, .host = link, .fabric = link };
	s->xport = WL_MROCE;
	scen_engine_cfg(&s->cfg);
	s->mtu = 4096;
	s->msg = 64 * 1024;
	s->depth = 16;
	s->streams = 1;
	s->ring = 1 << 20;
	s->t_end = 100000000;		/* 100 ms */
	s->sample_ns = 10000;
}

void scen_flow(struct scen *s, u32 src, u32 dst, u64 bytes, u64 start_ns)
{
	if (s->nflows == s->capflows) {
		s->capflows = s->capflows ? 2 * s->capflows : 32;
		s->flows = realloc(s->flows, s->capflows * sizeof(*s->flows));
		if (!s->flows)
			abort();
	}
	s->flows[s->nflows++] = (struct scen_flowspec){
		.src = src, .dst = dst, .bytes = bytes, .start_ns = start_ns,
		.nsteps = 1, .after = WL_NONE,
	};
}

void scen_gate(struct scen *s, u32 i, u32 nsteps, u32 after, u32 lag)
{
	if (i >= s->nflows)
		abort();
	s->flows[i].nsteps = nsteps;
	s->flows[i].after = after;
	s->flows[i].lag = lag;
}

void scen_permutation(struct scen *s, u32 n, u64 bytes, u64 seed)
{
	u32 *to = malloc(n * sizeof(*to)), i;
	u64 rng = sim_mix(seed ^ 0x7065726dULL);

	if (!to || n < 2)
		abort();
	for (i = 0; i < n; i++)
		to[i] = i;
	/* Fisher-Yates, then every fixed point swapped with its neighbour */
	for (i = n - 1; i > 0; i--) {
		u32 j = (u32)(mdl_rand(&rng) % (i + 1)), x = to[i];

		to[i] = to[j];
		to[j] = x;
	}
	for (i = 0; i < n; i++)
		if (to[i] == i) {
			u32 j = (i + 1) % n, x = to[i];

			to[i] = to[j];
			to[j] = x;
		}
	for (i = 0; i < n; i++)
		scen_flow(s, i, to[i], bytes, 0);
	free(to);
}

void scen_fault(struct scen *s, u64 at, enum scen_fault_kind kind, u32 target,
		u64 value)
{
	if (s->nfaults == SCEN_MAX_FAULTS)
		abort();
	s->faults[s->nfaults++] = (struct scen_fault){
		.at = at, .kind = (u8)kind, .target = target, .value = value,
	};
}

/* --- building -------------------------------------------------------------- */

static bool is_fabric(const struct sim_link *l)
{
	return l->dir[0].from->kind == SIM_NODE_SWITCH &&
	       l->dir[0].to->kind == SIM_NODE_SWITCH;
}

/* every switch-switch link loses @ppm */
static void fabric_loss(struct scen *s, u32 ppm)
{
	u32 i;

	for (i = 0; i < s->topo.nlinks; i++)
		if (is_fabric(s->topo.links[i]))
			sim_link_set_loss(s->topo.links[i], ppm);
}

/* spine i's links get i * skew more propagation; fabric links the loss */
static void shape_fabric(struct scen *s)
{
	struct topo *t = &s->topo;
	u32 i, p, j;

	fabric_loss(s, s->spine_loss_ppm);
	if (!s->spine_skew_ns)
		return;
	for (p = 0; p < t->nplanes; p++)
		for (i = 0; i < t->nspines; i++) {
			struct sim_node *n = &t->spine[p][i]->node;

			for (j = 0; j < n->nports; j++) {
				struct sim_port *out = n->ports[j];
				u32 k;

				out->cfg.delay_ns += i * s->spine_skew_ns;
				/* the reverse direction: the peer's port to us */
				for (k = 0; k < out->to->nports; k++)
					if (out->to->ports[k]->to == n)
						out->to->ports[k]->cfg.delay_ns +=
							i * s->spine_skew_ns;
			}
		}
}

static void build_topo(struct scen *s)
{
	topo_init(&s->topo, &s->sim, s->tc.planes);
	switch (s->shape) {
	case SCEN_PARALLEL:
		topo_parallel(&s->topo, &s->tc, s->k);
		break;
	case SCEN_INCAST:
		topo_incast(&s->topo, &s->tc, s->nsend, s->nleaves, s->nspines);
		break;
	case SCEN_FATTREE:
		topo_fattree(&s->topo, &s->tc, s->fat_k);
		break;
	case SCEN_LEAFSPINE:
		topo_leafspine(&s->topo, &s->tc, s->nleaves, s->per_leaf,
			       s->nspines);
		break;
	}
	shape_fabric(s);
}

/* --- faults ---------------------------------------------------------------- */

/* MetaRoCE: host @a's connection to host @b */
static const struct mre_conn *flow_conn(const struct scen *s, u32 a, u32 b)
{
	if (s->xport != WL_MROCE)
		return NULL;
	return ((struct xp_mroce *)s->wl.xp[a])->node.conns[b];
}

static u32 busiest_spine(struct scen *s)
{
	u64 sum = 0;
	u32 i, best = 0;

	for (i = 0; i < s->topo.nspines; i++) {
		sum += s->topo.spine[0][i]->fwd;
		if (s->topo.spine[0][i]->fwd > s->topo.spine[0][best]->fwd)
			best = i;
	}
	s->bh_share = sum ? (double)s->topo.spine[0][best]->fwd / (double)sum : 0;
	return best;
}

/* parallel: spine @i's port toward host 0's leaf (plane 0) */
static struct sim_port *spine_port_to_a(struct scen *s, u32 i)
{
	struct sim_node *leaf_a = s->topo.rx_port[0][0]->from;
	struct sim_node *n = &s->topo.spine[0][i]->node;
	u32 j;

	for (j = 0; j < n->nports; j++)
		if (n->ports[j]->to == leaf_a)
			return n->ports[j];
	abort();
}

static u32 busiest_ack_spine(struct scen *s)
{
	u32 i, best = 0;

	for (i = 0; i < s->topo.nspines; i++)
		if (spine_port_to_a(s, i)->tx_pkts > spine_port_to_a(s, best)->tx_pkts)
			best = i;
	return best;
}

/* MetaRoCE: every host's connections learn that @plane went down */
static void plane_carrier(struct scen *s, u32 plane)
{
	u32 i, j;

	if (s->xport != WL_MROCE)
		return;
	for (i = 0; i < s->topo.nhosts; i++) {
		struct xp_mroce *xp = s->wl.xp[i];

		for (j = 0; j < xp->npeers; j++)
			if (xp->node.conns[j])
				mre_conn_plane(xp->node.conns[j], s->sim.now,
					       plane, false);
		sim_host_kick(s->topo.hosts[i]);
	}
}

static void fault_ev(struct sim *sim, void *obj, u64 idx)
{
	struct scen *s = obj;
	const struct scen_fault *f = &s->faults[idx];
	struct sim_link *l = f->target < s->topo.nlinks ?
			     s->topo.links[f->target] : NULL;
	u32 i;

	sim_trace(sim, "fault", f->kind, f->target, f->value, 0);
	switch (f->kind) {
	case SCEN_SPINE_BLACKHOLE:
		s->blackholed = f->target == SCEN_BUSIEST ? busiest_spine(s) :
				f->target;
		for (i = 0; i < (f->value == SCEN_ALL_PLANES ?
				 s->topo.nplanes : 1); i++)
			s->topo.spine[i][s->blackholed]->blackhole = true;
		if (s->xport == WL_MROCE && s->nflows)
			s->gate_mark = flow_conn(s, s->wl.flows[0].src,
						 s->wl.flows[0].dst)->tsn_next;
		break;
	case SCEN_LINK_BLACKHOLE:
		if (l)
			sim_link_set_state(l, SIM_LINK_BLACKHOLE);
		break;
	case SCEN_LINK_DOWN:
	case SCEN_LINK_UP:
		if (!l)
			break;
		sim_link_set_state(l, f->kind == SCEN_LINK_DOWN ?
				   SIM_LINK_DOWN : SIM_LINK_UP);
		topo_route(&s->topo);
		break;
	case SCEN_LINK_RATE:
		if (l)
			sim_link_set_rate(l, f->value);
		break;
	case SCEN_PLANE_DOWN:
		topo_plane_state(&s->topo, f->target, SIM_LINK_DOWN);
		topo_route(&s->topo);
		if (f->value == SCEN_CARRIER)
			plane_carrier(s, f->target);
		break;
	case SCEN_PORT_DEGRADE:
		if (l)
			sim_port_degrade(&l->dir[1], (u32)f->value);
		break;
	case SCEN_FABRIC_LOSS:
		fabric_loss(s, (u32)f->value);
		break;
	case SCEN_SPINE_ACK_BLACKHOLE:
		s->blackholed = f->target == SCEN_BUSIEST ? busiest_ack_spine(s) :
				f->target;
		spine_port_to_a(s, s->blackholed)->state = SIM_LINK_BLACKHOLE;
		break;
	}
}

/* --- sampling -------------------------------------------------------------- */

/* every flow's sending connection is established (MetaRoCE), or any placed */
static bool all_up(const struct scen *s)
{
	u32 i;

	for (i = 0; i < s->nflows; i++) {
		const struct wl_flow *f = &s->wl.flows[i];
		const struct mre_conn *c = flow_conn(s, f->src, f->dst);

		if (c ? c->state != MRE_CONN_ESTABLISHED : !wl_placed(&s->wl, f))
			return false;
	}
	return true;
}

static void gate_check(struct scen *s)
{
	const struct wl_flow *f = &s->wl.flows[0];
	const struct mre_conn *rc;

	if (!s->gate_mark || s->gate_at || !(rc = flow_conn(s, f->dst, f->src)))
		return;
	if (seq_ge(rc->rxw.base, s->gate_mark))
		s->gate_at = s->sim.now;
}

static void sample(struct scen *s)
{
	struct sim_host *rx = s->topo.hosts[s->topo.nhosts - 1];
	u32 i;

	if (s->nsamp == s->capsamp) {
		s->capsamp = s->capsamp ? 2 * s->capsamp : 1024;
		s->st = realloc(s->st, s->capsamp * sizeof(*s->st));
		s->sq = realloc(s->sq, s->capsamp * sizeof(*s->sq));
		s->sp = realloc(s->sp, (size_t)s->capsamp * s->nflows * sizeof(*s->sp));
		s->sr = realloc(s->sr, (size_t)s->capsamp * s->nflows * sizeof(*s->sr));
		if (!s->st || !s->sq || !s->sp || !s->sr)
			abort();
	}
	s->st[s->nsamp] = s->sim.now;
	s->sq[s->nsamp] = s->topo.rx_port[rx->idx][0]->qbytes;
	for (i = 0; i < s->nflows; i++) {
		const struct wl_flow *f = &s->wl.flows[i];
		const struct mre_conn *c = flow_conn(s, f->src, f->dst);

		s->sp[(size_t)s->nsamp * s->nflows + i] = wl_placed(&s->wl, f);
		s->sr[(size_t)s->nsamp * s->nflows + i] = c ? c->rate_mbps : 0;
	}
	gate_check(s);
	if (!s->up_ns && all_up(s))
		s->up_ns = s->sim.now;
	s->nsamp++;
	if (s->on_sample)
		s->on_sample(s);
}

static void sample_ev(struct sim *sim, void *obj, u64 arg)
{
	struct scen *s = obj;

	sample(s);
	if (s->wl.ndone == s->nflows) {
		s->end_ns = sim->now;
		sim_stop(sim);
		return;
	}
	sim_at(sim, sim->now + s->sample_ns, sample_ev, s, 0);
}

/* --- running --------------------------------------------------------------- */

int scen_run(struct scen *s)
{
	u32 i;

	s->cfg.link_mbps = s->no_hints ? 0 : s->tc.host.mbps * s->tc.planes;
	s->cfg.nplanes = s->tc.planes;
	if (mre_config_check(&s->cfg))
		return -1;
	sim_init(&s->sim, s->seed, s->trace);
	build_topo(s);
	wl_init(&s->wl, &s->topo, s->xport, s->check, s->mtu, s->ring);
	for (i = 0; i < s->nflows; i++) {
		const struct scen_flowspec *f = &s->flows[i];

		struct wl_flow *w = wl_flow(&s->wl, f->src, f->dst, f->bytes,
					    s->msg, s->streams, s->depth,
					    f->start_ns);

		if (f->nsteps > 1 || f->after != WL_NONE)
			wl_gate(&s->wl, w, f->nsteps, f->after, f->lag);
	}
	wl_setup(&s->wl, &s->cfg);
	for (i = 0; i < s->nfaults; i++)
		sim_at(&s->sim, s->faults[i].at, fault_ev, s, i);
	sim_at(&s->sim, 0, sample_ev, s, 0);
	sim_run(&s->sim, s->t_end);
	if (!s->end_ns) {
		s->end_ns = s->sim.now;
		sample(s);
	}
	return 0;
}

void scen_free(struct scen *s)
{
	wl_free(&s->wl);
	topo_free(&s->topo);
	sim_free(&s->sim);
	free(s->st);
	free(s->sp);
	free(s->sq);
	free(s->sr);
	free(s->flows);
	s->flows = NULL;
	s->nflows = s->capflows = 0;
	s->st = s->sp = s->sq = NULL;
	s->sr = NULL;
	s->nsamp = s->capsamp = 0;
}

/* --- results ---------------------------------------------------------------- */

/* @n u64 counters at @off in each MetaRoCE host's endpoint, summed */
static void sum_ep(const struct scen *s, u64 *to, size_t off, u32 n)
{
	u32 i, j;

	memset(to, 0, n * sizeof(u64));
	if (s->xport != WL_MROCE)
		return;
	for (i = 0; i < s->topo.nhosts; i++) {
		const u64 *from = (const u64 *)((const char *)
			&((struct xp_mroce *)s->wl.xp[i])->node.ep + off);

		for (j = 0; j < n; j++)
			to[j] += from[j];
	}
}

void scen_counters(const struct scen *s, struct mre_counters *c)
{
	sum_ep(s, (u64 *)c, offsetof(struct mre_ep, ctr), MRE_NCOUNTERS);
}

void scen_parity(const struct scen *s, struct mre_parity_ctr *c)
{
	sum_ep(s, (u64 *)c, offsetof(struct mre_ep, par),
	       sizeof(*c) / sizeof(u64));
}

void scen_bl_counters(const struct scen *s, struct bl_counters *c)
{
	u32 i, j;

	memset(c, 0, sizeof(*c));
	if (s->xport != WL_ROCEV2)
		return;
	for (i = 0; i < s->topo.nhosts; i++) {
		const u64 *from = (const u64 *)&((struct bl_host *)s->wl.xp[i])->ctr;
		u64 *to = (u64 *)c;

		for (j = 0; j < sizeof(*c) / sizeof(u64); j++)
			to[j] += from[j];
	}
}

u64 scen_peak_queue(const struct scen *s)
{
	u64 peak = 0;
	u32 i, j;

	for (i = 0; i < s->topo.nnodes; i++) {
		const struct sim_node *n = s->topo.nodes[i];

		if (n->kind != SIM_NODE_SWITCH)
			continue;
		for (j = 0; j < n->nports; j++)
			peak = MRE_MAX(peak, n->ports[j]->peak);
	}
	return peak;
}

u64 scen_placed(const struct scen *s)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < s->wl.nflows; i++)
		sum += wl_placed(&s->wl, &s->wl.flows[i]);
	return sum;
}
