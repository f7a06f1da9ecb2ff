// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sim-check: scenarios that assert (make sim-check).
 *
 *	mroce-sim check [-v] [NAME...]
 *
 * Each check builds a fabric, runs it to completion and asserts what must
 * hold whatever the timing: every byte placed exactly once and holding what
 * was sent, guard bytes untouched, completions in posting order, no error;
 * plus the property the scenario is about (no spurious retransmission on
 * paths of different lengths, survival of a black hole, determinism, ...).
 * Seeds are fixed, so a failure replays with the same command. Ends with
 * "N passed, N failed"; exits non-zero when anything failed.
 */
#include "report.h"
#include "simcli.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

static u32 failures;
static bool verbose;

#define CHECK(c) do {							\
	if (!(c)) {							\
		failures++;						\
		fprintf(stderr, "  FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
	}								\
} while (0)
#define CHECK_EQ(a, b) do {						\
	unsigned long long _a = (a), _b = (b);				\
	if (_a != _b) {							\
		failures++;						\
		fprintf(stderr, "  FAIL %s:%d: %s == %s (%llu != %llu)\n", \
			__FILE__, __LINE__, #a, #b, _a, _b);		\
	}								\
} while (0)

/* --- pieces ---------------------------------------------------------------- */

static void t_evq_order(void)
{
	struct evq q;
	struct sim_ev e;
	u64 rng = 7, last_at = 0, last_arg = 0;
	u32 i;

	evq_init(&q);
	for (i = 0; i < 5000; i++)
		evq_push(&q, mdl_rand(&rng) % 100, NULL, NULL, i);
	for (i = 0; evq_pop(&q, &e); i++) {
		/* by time, and FIFO among equal times */
		CHECK(e.at > last_at || (e.at == last_at && (i == 0 || e.arg > last_arg)));
		last_at = e.at;
		last_arg = e.arg;
	}
	CHECK_EQ(i, 5000);
	evq_free(&q);
}

static void t_ecmp_spread(void)
{
	struct sim_pkt k = { .src = sim_addr(0, 0), .dst = sim_addr(1, 0),
			     .dport = MRE_DEFAULT_UDP_PORT, .proto = SIM_PROTO_UDP };
	u32 hits[8] = { 0 }, same = 0, i;
	u64 rng = 3;

	for (i = 0; i < 64000; i++) {
		u64 a, b;

		k.sport = (u16)(49152 + mdl_rand(&rng) % 16384);
		a = (sim_ecmp_hash(11, &k) >> 32) * 8 >> 32;
		b = (sim_ecmp_hash(12, &k) >> 32) * 8 >> 32;
		hits[a]++;
		same += a == b;
	}
	for (i = 0; i < 8; i++)		/* 8000 expected, sd ~84 */
		CHECK(hits[i] > 7600 && hits[i] < 8400);
	/* two switches' choices are independent: agree 1/8 of the time */
	CHECK(same > 7600 && same < 8400);
}

static void t_routes_fattree(void)
{
	struct scen s;
	struct sim_switch *edge;
	u32 i;

	scen_defaults(&s);
	sim_init(&s.sim, 1, NULL);
	topo_init(&s.topo, &s.sim, 1);
	topo_fattree(&s.topo, &s.tc, 4);
	CHECK_EQ(s.topo.nhosts, 16);
	/* the first edge switch: its own hosts direct, the rest over 2 aggs */
	edge = (struct sim_switch *)s.topo.rx_port[0][0]->from;
	CHECK_EQ(sim_switch_route(edge, 0)->n, 1);
	CHECK_EQ(sim_switch_route(edge, 1)->n, 1);
	for (i = 2; i < 16; i++)
		CHECK_EQ(sim_switch_route(edge, i)->n, 2);
	/* a core switch reaches every host through exactly one port */
	for (i = 0; i < 16; i++)
		CHECK_EQ(sim_switch_route(s.topo.spine[0][0], i)->n, 1);
	/* few distinct ECMP sets: one per downward port and one upward */
	CHECK(edge->ngrp <= edge->node.nports + 1);
	/* link 2 joins agg0.0 to core0.0 (bench's failed link) */
	CHECK(!strcmp(s.topo.links[2]->dir[0].from->name, "agg0.0") &&
	      !strcmp(s.topo.links[2]->dir[0].to->name, "core0.0"));
	topo_free(&s.topo);
	sim_free(&s.sim);
}

/* a node that records arrivals */
struct sink {
	struct sim_node node;
	u64 at[16];
	u8 ce[16];
	u32 n;
};

static void sink_rx(struct sim_node *n, struct sim_pkt *k, struct sim_port *in)
{
	struct sink *sk = (struct sink *)n;

	if (sk->n < 16) {
		sk->at[sk->n] = n->sim->now;
		sk->ce[sk->n++] = k->ce;
	}
	sim_pkt_free(n->sim, k);
}

/* a fresh run with one link between two sinks */
struct sink_rig {
	struct sim s;
	struct sink a, b;
	struct sim_link l;
};

static void sink_link(struct sink_rig *r, const struct sim_link_cfg *cfg)
{
	sim_init(&r->s, 1, NULL);
	r->a = (struct sink){ .node = { .sim = &r->s, .rx = sink_rx } };
	r->b = (struct sink){ .node = { .sim = &r->s, .rx = sink_rx } };
	sim_link_init(&r->l, &r->s, 0, &r->a.node, &r->b.node, cfg);
}

static void t_link_queue(void)
{
	const struct sim_link_cfg cfg = {
		.mbps = 100000, .delay_ns = 1000, .limit = 5 * 4162,
		.ecn_k = 2 * 4162,
	};
	struct sink_rig r;
	u32 i;

	sink_link(&r, &cfg);
	for (i = 0; i < 8; i++) {
		struct sim_pkt *k = sim_pkt_alloc(&r.s);

		k->len = 0;
		k->wire = 4162;		/* 332.96 ns at 100 Gbit/s */
		sim_port_send(&r.l.dir[0], k);
	}
	sim_run(&r.s, 1000000);
	/* 5 fit the buffer, 3 tail-dropped */
	CHECK_EQ(r.b.n, 5);
	CHECK_EQ(r.l.dir[0].drop_full, 3);
	/* back to back at line rate, exactly, plus the propagation delay */
	for (i = 0; i < r.b.n; i++)
		CHECK_EQ(r.b.at[i], 1000 + (u64)(i + 1) * 4162 * 8000 / 100000);
	/* marked when more than ecn_k bytes were already queued */
	CHECK_EQ(r.b.ce[0] + r.b.ce[1] + r.b.ce[2], 0);
	CHECK_EQ(r.b.ce[3] + r.b.ce[4], 2);
	CHECK_EQ(r.s.pkts_live, 0);
	sim_free(&r.s);
}

/* RED-like marking: none below ecn_k, all above ecn_kmax, a share between */
static void t_ecn_red(void)
{
	const struct sim_link_cfg cfg = {
		.mbps = 100, .delay_ns = 1000, .ecn_k = 10 * 1000,
		.ecn_kmax = 30 * 1000,
	};
	struct sink_rig r;
	u32 i, marks[3] = { 0 };

	sink_link(&r, &cfg);
	/* a slow link: the queue only grows while we enqueue */
	for (i = 0; i < 40; i++) {
		struct sim_pkt *k = sim_pkt_alloc(&r.s);
		u64 q = r.l.dir[0].qbytes;

		k->len = 0;
		k->wire = 1000;
		sim_port_send(&r.l.dir[0], k);
		marks[q <= cfg.ecn_k ? 0 : q < cfg.ecn_kmax ? 1 : 2] += k->ce;
	}
	CHECK_EQ(marks[0], 0);
	CHECK_EQ(marks[2], 10);		/* queued 30..39 KB: every one */
	CHECK(marks[1] > 3 && marks[1] < 17);	/* about half of 19 */
	sim_run(&r.s, 100000000);
	CHECK_EQ(r.s.pkts_live, 0);
	sim_free(&r.s);
}

/* --- end to end -------------------------------------------------------------- */

static void verdict_clean(const struct scen *s)
{
	struct wl_verdict v;

	wl_verify(&s->wl, &v);
	CHECK_EQ(v.incomplete, 0);
	CHECK_EQ(v.bytes_missing, 0);
	CHECK_EQ(v.bytes_twice, 0);
	CHECK_EQ(v.bytes_corrupt, 0);
	CHECK_EQ(v.guard_touched, 0);
	CHECK_EQ(v.order_violations, 0);
	CHECK_EQ(v.errors, 0);
	CHECK_EQ(v.bad_place, 0);
}

static void run(struct scen *s, const char *name)
{
	if (scen_run(s)) {
		failures++;
		fprintf(stderr, "  FAIL: engine refused the configuration\n");
		return;
	}
	if (verbose)
		rep_summary(stdout, name, s);
}

static void parallel(struct scen *s, u32 k, u64 bytes)
{
	scen_defaults(s);
	s->k = k;
	s->check = true;
	scen_flow(s, 0, 1, bytes, 0);
}

static void t_mroce_exactly_once(void)
{
	struct mre_counters c;
	struct scen s;

	parallel(&s, 4, 8 << 20);
	s.tc.planes = 2;
	s.streams = 4;
	run(&s, "mroce_exactly_once");
	verdict_clean(&s);
	scen_counters(&s, &c);
	CHECK_EQ(c.tx_retx, 0);
	CHECK_EQ(c.rx_dup_tsn, 0);
	CHECK_EQ(c.conn_open, 2);
	scen_free(&s);
}

static void t_mroce_skew_no_spurious(void)
{
	struct mre_counters c;
	struct scen s;

	/* spine i is i us longer each way: path RTTs 9.5 to 37.5 us */
	parallel(&s, 8, 16 << 20);
	s.spine_skew_ns = 1000;
	run(&s, "mroce_skew_no_spurious");
	verdict_clean(&s);
	scen_counters(&s, &c);
	/*
	 * Loss by send time across paths (protocol.md 6.3) may resend a
	 * packet that a later one, sent on a shorter path, overtook by more
	 * than the reordering window: rare (1 here), never more than 0.1 %
	 * of the 4096 packets; FACK alone resends none.
	 */
	CHECK(c.tx_retx == c.loss_time);
	CHECK(c.tx_retx <= 4);
	CHECK(c.spurious_retx <= c.tx_retx);	/* reported in a later ACK */
	CHECK_EQ(c.rx_dup_tsn, c.tx_retx);
	CHECK_EQ(c.loss_fast, 0);
	CHECK_EQ(c.rto, 0);
	scen_free(&s);
}

static void t_mroce_loss_exactly_once(void)
{
	struct mre_counters c;
	struct scen s;

	parallel(&s, 8, 8 << 20);
	s.spine_loss_ppm = 10000;	/* 1 % on every spine link, both ways */
	run(&s, "mroce_loss_exactly_once");
	verdict_clean(&s);
	scen_counters(&s, &c);
	CHECK(c.tx_retx > 0);
	scen_free(&s);
}

static void t_mroce_blackhole(void)
{
	struct mre_counters c;
	struct scen s;

	parallel(&s, 8, 32 << 20);
	scen_fault(&s, 300000, SCEN_SPINE_BLACKHOLE, SCEN_BUSIEST, 0);
	run(&s, "mroce_blackhole");
	verdict_clean(&s);
	scen_counters(&s, &c);
	CHECK(s.topo.spine[0][s.blackholed]->drop_bh > 0);
	/* found by silence (siblings heard, this path not) or by RTO */
	CHECK(c.path_silent + c.rto > 0);
	/* it carried on at speed: 32 MiB at ~93 Gbit/s is ~2.9 ms */
	CHECK(rep_end(&s) < 4000000);
	scen_free(&s);
}

static void t_mroce_ack_blackhole(void)
{
	const struct mre_conn *c;
	struct scen s;
	u32 i;

	/*
	 * Only the route of some path's ACKs dies (a spine's port toward the
	 * sender): its data still arrives. The sender finds the path silent
	 * and probes on new ports, which cannot help; the receiver moves the
	 * ACK route when a probe comes in, and the path is back.
	 */
	parallel(&s, 8, 32 << 20);
	scen_fault(&s, 300000, SCEN_SPINE_ACK_BLACKHOLE, SCEN_BUSIEST, 0);
	run(&s, "mroce_ack_blackhole");
	verdict_clean(&s);
	c = ((struct xp_mroce *)s.wl.xp[0])->node.conns[1];
	for (i = 0; i < c->npaths; i++)
		CHECK_EQ(c->paths[i].health, MRE_PATH_GOOD);
	CHECK(rep_end(&s) < 4000000);
	scen_free(&s);
}

static void t_mroce_link_down(void)
{
	struct scen s;

	/* a spine uplink fails and routing converges around it */
	parallel(&s, 4, 8 << 20);
	scen_fault(&s, 200000, SCEN_LINK_DOWN, 2, 0);	/* leafA - spine0 */
	run(&s, "mroce_link_down");
	verdict_clean(&s);
	CHECK(s.topo.links[2]->dir[0].state == SIM_LINK_DOWN);
	scen_free(&s);
}

static void t_mroce_link_slow(void)
{
	struct scen s;
	u32 i;

	/* both links of spine 0 drop to 10 Gbit/s mid-transfer */
	parallel(&s, 4, 8 << 20);
	for (i = 0; i < 2; i++)
		scen_fault(&s, 200000, SCEN_LINK_RATE, 2 + i, 10000);
	run(&s, "mroce_link_slow");
	verdict_clean(&s);
	CHECK_EQ(s.topo.links[2]->dir[0].cfg.mbps, 10000);
	scen_free(&s);
}

static void incast(struct scen *s, u8 xport, u32 n, u64 bytes)
{
	u32 i;

	scen_defaults(s);
	s->shape = SCEN_INCAST;
	s->nsend = n;
	s->nleaves = 2;
	s->nspines = 4;
	s->xport = xport;
	s->check = true;
	for (i = 0; i < n; i++)
		scen_flow(s, i, n, bytes, 0);
}

static void t_mroce_incast16(void)
{
	struct scen s;

	incast(&s, WL_MROCE, 16, 1 << 20);
	run(&s, "mroce_incast16");
	verdict_clean(&s);
	CHECK(scen_peak_queue(&s) <= s.tc.host.limit);
	scen_free(&s);
}

static void t_mroce_64_streams(void)
{
	struct mre_counters c;
	struct scen s;

	parallel(&s, 8, 8 << 20);
	s.streams = 64;
	s.depth = 2;
	run(&s, "mroce_64_streams");
	verdict_clean(&s);
	scen_counters(&s, &c);
	CHECK_EQ(c.tx_retx, 0);
	CHECK_EQ(c.conn_open, 2);	/* one connection for all 64 */
	scen_free(&s);
}

static void t_mroce_fattree(void)
{
	struct scen s;
	u32 i;

	scen_defaults(&s);
	s.shape = SCEN_FATTREE;
	s.fat_k = 4;
	s.check = true;
	for (i = 0; i < 16; i++)
		scen_flow(&s, i, (i + 8) % 16, 1 << 20, 0);
	run(&s, "mroce_fattree");
	verdict_clean(&s);
	scen_free(&s);
}

/* 128 hosts, a random permutation, every byte once; twice the same run */
static void fattree128_run(struct scen *s)
{
	scen_defaults(s);
	s->shape = SCEN_FATTREE;
	s->fat_k = 8;
	s->check = true;
	s->seed = 5;
	scen_permutation(s, 128, 256 << 10, 5);
	run(s, "mroce_fattree128");
}

static void t_mroce_fattree128(void)
{
	struct scen a, b;
	u32 i, in[128] = { 0 };

	fattree128_run(&a);
	CHECK_EQ(a.topo.nhosts, 128);
	CHECK_EQ(a.nflows, 128);
	for (i = 0; i < a.nflows; i++) {
		CHECK(a.flows[i].src != a.flows[i].dst);
		in[a.flows[i].dst]++;
	}
	for (i = 0; i < 128; i++)
		CHECK_EQ(in[i], 1);	/* a permutation: one flow into each */
	verdict_clean(&a);
	fattree128_run(&b);
	CHECK_EQ(a.sim.hash, b.sim.hash);
	scen_free(&a);
	scen_free(&b);
}

/*
 * bench taildrop's 16 flows: two leaves of 16 hosts and one spine, the
 * spine's links at 50 Gbit/s with 512 KiB tail-drop buffers and no ECN,
 * host i to host 16 + i without end. Every path of each connection crosses
 * the spine's queue, so its delay stands in for the marks (protocol.md 9):
 * the flows cut together before it overflows. At most 5 % of the data
 * packets resent (8.65 % when only losses cut), fair within Jain 0.95 from
 * 1 ms to the end, at least 0.94 of the spine's rate.
 */
static void t_mroce_taildrop16(void)
{
	struct mre_parity_ctr par;
	struct mre_counters c;
	struct scen s;
	double sum = 0, sq = 0;
	u32 a = 0, b, f;

	scen_defaults(&s);
	s.shape = SCEN_LEAFSPINE;
	s.nleaves = 2;
	s.per_leaf = 16;
	s.nspines = 1;
	s.tc.host.delay_ns = 1000;
	s.tc.host.ecn_k = 0;
	s.tc.fabric = s.tc.host;
	s.tc.fabric.mbps = 50000;
	s.t_end = 5000000;
	s.sample_ns = 10000;
	s.msg = 65536;
	s.ring = 65536;
	for (f = 0; f < 16; f++)
		scen_flow(&s, f, 16 + f, 0, 100000);
	run(&s, "mroce_taildrop16");
	scen_counters(&s, &c);
	CHECK(c.tx_retx * 100 <= c.tx_data * 5);
	CHECK(c.ecn_cut > 0);
	b = s.nsamp - 1;
	while (a < b && s.st[a] < 1000000)
		a++;
	for (f = 0; f < s.nflows; f++) {
		double g = (double)(s.sp[(size_t)b * s.nflows + f] -
				    s.sp[(size_t)a * s.nflows + f]) * 8 /
			   (double)(s.st[b] - s.st[a]);

		sum += g;
		sq += g * g;
	}
	CHECK(sq > 0 && sum * sum >= 0.95 * s.nflows * sq);
	CHECK(sum >= 0.94 * 50);
	scen_parity(&s, &par);
	if (verbose)
		printf("  resent %llu of %llu, %.2f Gbit/s, Jain %.3f, PARITY %llu\n",
		       (unsigned long long)c.tx_retx, (unsigned long long)c.tx_data,
		       sum, sq > 0 ? sum * sum / (s.nflows * sq) : 0,
		       (unsigned long long)par.tx);
	scen_free(&s);
}

/* leaf-spine, one spine-to-leaf direction at 25 %: slower, nothing lost */
static void t_mroce_leafspine_degraded(void)
{
	struct scen s;
	const struct sim_port *p;

	scen_defaults(&s);
	s.shape = SCEN_LEAFSPINE;
	s.nleaves = 4;
	s.per_leaf = 4;
	s.nspines = 2;
	s.check = true;
	scen_permutation(&s, 16, 1 << 20, 3);
	/* link 16 is spine0.0 - leaf0.0 (16 host links come first) */
	scen_fault(&s, 0, SCEN_PORT_DEGRADE, 16, 25);
	run(&s, "mroce_leafspine_degraded");
	p = &s.topo.links[16]->dir[1];
	CHECK(!strcmp(p->from->name, "spine0.0") && !strcmp(p->to->name, "leaf0.0"));
	CHECK_EQ(p->cfg.mbps, s.tc.fabric.mbps / 4);
	CHECK_EQ(s.topo.links[16]->dir[0].cfg.mbps, s.tc.fabric.mbps);
	verdict_clean(&s);
	scen_free(&s);
}

/* a whole plane goes down mid-transfer: every byte still once, in time */
static void t_mroce_plane_down(void)
{
	struct mre_counters k;
	struct scen s;

	scen_defaults(&s);
	s.shape = SCEN_FATTREE;
	s.fat_k = 4;
	s.tc.planes = 2;
	s.check = true;
	s.cfg.npaths = 8;
	scen_permutation(&s, 16, 2 << 20, 7);
	scen_fault(&s, 60000, SCEN_PLANE_DOWN, 1, 0);
	run(&s, "mroce_plane_down");
	verdict_clean(&s);
	scen_counters(&s, &k);
	CHECK(k.path_failed > 0);	/* the plane's paths were given up */
	CHECK(rep_end(&s) < 2000000);	/* and the rest carried the data */
	/* every link with a plane-1 switch at an end is down */
	CHECK_EQ(topo_plane_state(&s.topo, 1, SIM_LINK_DOWN), s.topo.nlinks / 2);
	scen_free(&s);
}

/*
 * Plane 1 goes down (the hosts see it), then one of plane 0's two spines
 * is black-holed both ways: each path of the connection has its data or
 * its ACKs (the receiver's source port for it) on the dead spine with
 * probability 3/4, and in these seeds all four live paths do, so the
 * sender hears nothing at all and every path is in stall mode. The
 * other spine delivers: stalled paths must move (a new source port and
 * a PROBE, which moves the receiver's ACK route too) instead of resending
 * into the black hole until dead_ns fails the connection (the guest
 * fabric test's failure, testing.rst "Known failures").
 */
static void t_mroce_stall_moves(void)
{
	static const u64 seeds[] = { 1, 3, 4 };
	struct mre_counters k;
	struct scen s;
	u32 i;

	for (i = 0; i < MRE_ARRAY_SIZE(seeds); i++) {
		parallel(&s, 2, 32 << 20);
		s.seed = seeds[i];
		s.tc.planes = 2;
		scen_fault(&s, 500000, SCEN_PLANE_DOWN, 1, SCEN_CARRIER);
		scen_fault(&s, 1000000, SCEN_SPINE_BLACKHOLE, SCEN_BUSIEST,
			   SCEN_ALL_PLANES);
		run(&s, "mroce_stall_moves");
		verdict_clean(&s);
		scen_counters(&s, &k);
		CHECK(k.rto_stall > 0);		/* it did stall */
		CHECK_EQ(k.conn_fail, 0);
		/* 32 MiB on one plane after 0.5 ms is ~2.3 ms unhurt */
		CHECK(rep_end(&s) < 3000000);
		scen_free(&s);
	}
}

/*
 * A ring all-reduce over the 16 hosts of a k = 4 fat tree, 1 % loss on every
 * switch-switch link: 30 steps of 16 KiB per rank, each gated on the step
 * before coming in from the previous rank (workload.h), ranks dealt over
 * the pods so that every hop crosses the core; and one more flow that
 * waits for rank 0's own sends to complete. Every byte once, and no step
 * began before what it waited for was in: its bytes all placed (the
 * workload checks that when the step begins), its receipt noted earlier.
 */
#define RING_N		16
#define RING_CHUNK	(16 << 10)

/* rank r's host: round-robin over the 4 pods of 4 hosts */
static u32 ring_host(u32 r)
{
	r %= RING_N;
	return r % 4 * 4 + r / 4;
}

static void ring_run(struct scen *s, u8 xport, const char *name)
{
	u32 r, steps = 2 * (RING_N - 1);

	scen_defaults(s);
	s->xport = xport;
	s->shape = SCEN_FATTREE;
	s->fat_k = 4;
	s->check = true;
	s->seed = 11;
	s->spine_loss_ppm = 10000;
	for (r = 0; r < RING_N; r++) {
		scen_flow(s, ring_host(r), ring_host(r + 1), steps * RING_CHUNK, 0);
		scen_gate(s, r, steps, (r + RING_N - 1) % RING_N, 1);
	}
	/* from rank 0's host: it waits for its own ring flow's completion */
	scen_flow(s, ring_host(0), 5, 64 << 10, 0);
	scen_gate(s, RING_N, 1, 0, 0);
	run(s, name);
}

static void ring_verdict(const struct scen *s)
{
	const struct wl_flow *fl = s->wl.flows, *x = &fl[RING_N];
	struct wl_verdict v;
	u64 late = 0, ideal;
	u32 r, k, early = 0, order = 0;

	verdict_clean(s);
	wl_verify(&s->wl, &v);
	CHECK_EQ(v.gate_early, 0);
	CHECK_EQ(v.undelivered, 0);
	for (r = 0; r < RING_N; r++) {
		const struct wl_flow *f = &fl[r], *g = &fl[(r + RING_N - 1) % RING_N];

		CHECK(f->signal);
		CHECK_EQ(f->rx_steps, f->nsteps);
		for (k = 0; k < f->nsteps; k++) {
			/* step k + 1 waits for step k of the flow into us */
			if (k && f->step_at[k] < g->step_rx[k - 1])
				early++;
			if (k && (f->step_at[k] < f->step_at[k - 1] ||
				  f->step_rx[k] < f->step_rx[k - 1]))
				order++;
			if (f->step_rx[k] < f->step_at[k])
				order++;
		}
		late = MRE_MAX(late, f->rx_done_ns);
	}
	CHECK_EQ(early, 0);
	CHECK_EQ(order, 0);
	/* gated, the steps take at least their serialisation and path each */
	ideal = 2 * (RING_N - 1) *
		((u64)RING_CHUNK / 4096 * (4096 + MRE_MAX_HDR_LEN + SIM_WIRE_OVERHEAD) *
		 8 / 100 + 6 * 1000);
	CHECK(late > ideal);
	/* the last flow began after rank 0's own flow completed */
	CHECK(fl[0].done_ns > 0);
	CHECK(x->step_at[0] >= fl[0].done_ns);
	CHECK(!x->signal);
}

static void t_mroce_ring_allreduce(void)
{
	struct mre_counters c;
	struct scen s;

	ring_run(&s, WL_MROCE, "mroce_ring_allreduce");
	ring_verdict(&s);
	scen_counters(&s, &c);
	CHECK(c.tx_retx > 0);		/* the loss was there */
	CHECK_EQ(c.drop_rnr, 0);	/* each step's receive was posted in time */
	scen_free(&s);
}

static void t_rocev2_ring_allreduce(void)
{
	struct bl_counters c;
	struct scen s;

	ring_run(&s, WL_ROCEV2, "rocev2_ring_allreduce");
	ring_verdict(&s);
	scen_bl_counters(&s, &c);
	CHECK(c.tx_retx > 0);
	scen_free(&s);
}

static void determinism_run(struct scen *s, u64 seed)
{
	parallel(s, 8, 4 << 20);
	s->seed = seed;
	s->spine_loss_ppm = 10000;
	scen_fault(s, 100000, SCEN_SPINE_BLACKHOLE, SCEN_BUSIEST, 0);
	run(s, "determinism");
}

static void t_determinism(void)
{
	struct scen a, b, c;

	determinism_run(&a, 42);
	determinism_run(&b, 42);
	determinism_run(&c, 43);
	CHECK_EQ(a.sim.hash, b.sim.hash);
	CHECK_EQ(a.sim.nev, b.sim.nev);
	CHECK_EQ(rep_end(&a), rep_end(&b));
	CHECK(a.sim.hash != c.sim.hash);
	verdict_clean(&a);
	verdict_clean(&c);
	scen_free(&a);
	scen_free(&b);
	scen_free(&c);
}

/* --- the baseline's own correctness ----------------------------------------- */

static void t_rocev2_lossless(void)
{
	struct bl_counters c;
	struct scen s;

	parallel(&s, 8, 8 << 20);
	s.xport = WL_ROCEV2;
	s.streams = 4;
	run(&s, "rocev2_lossless");
	verdict_clean(&s);
	scen_bl_counters(&s, &c);
	CHECK_EQ(c.tx_retx, 0);
	CHECK_EQ(c.tx_nak, 0);
	scen_free(&s);
}

static void t_rocev2_loss(void)
{
	struct bl_counters c;
	struct scen s;

	parallel(&s, 8, 4 << 20);
	s.xport = WL_ROCEV2;
	s.spine_loss_ppm = 10000;
	run(&s, "rocev2_loss");
	verdict_clean(&s);
	scen_bl_counters(&s, &c);
	CHECK(c.tx_nak > 0);
	/* go-back-N resends what followed the loss too */
	CHECK(c.tx_retx > c.tx_nak);
	CHECK(c.rx_ooo > 0);
	scen_free(&s);
}

static void t_rocev2_incast16(void)
{
	struct scen s;

	incast(&s, WL_ROCEV2, 16, 1 << 20);
	run(&s, "rocev2_incast16");
	verdict_clean(&s);
	scen_free(&s);
}

static void t_rocev2_blackhole_pins(void)
{
	struct wl_verdict v;
	struct scen s;

	/* one QP per path; those hashed onto the dead spine never finish */
	parallel(&s, 8, 16 << 20);
	s.xport = WL_ROCEV2;
	s.streams = 8;
	s.t_end = 5000000;
	scen_fault(&s, 200000, SCEN_SPINE_BLACKHOLE, SCEN_BUSIEST, 0);
	run(&s, "rocev2_blackhole_pins");
	wl_verify(&s.wl, &v);
	CHECK_EQ(v.incomplete, 1);	/* the one flow: some QPs stalled */
	CHECK(v.bytes_missing > 0);
	CHECK_EQ(v.bytes_twice, 0);
	CHECK_EQ(v.guard_touched, 0);
	scen_free(&s);
}

/* --- runner ------------------------------------------------------------------ */

static const struct {
	const char *name;
	void (*fn)(void);
} checks[] = {
	{ "evq_order", t_evq_order },
	{ "ecmp_spread", t_ecmp_spread },
	{ "routes_fattree", t_routes_fattree },
	{ "link_queue", t_link_queue },
	{ "ecn_red", t_ecn_red },
	{ "mroce_exactly_once", t_mroce_exactly_once },
	{ "mroce_skew_no_spurious", t_mroce_skew_no_spurious },
	{ "mroce_loss_exactly_once", t_mroce_loss_exactly_once },
	{ "mroce_blackhole", t_mroce_blackhole },
	{ "mroce_ack_blackhole", t_mroce_ack_blackhole },
	{ "mroce_link_down", t_mroce_link_down },
	{ "mroce_link_slow", t_mroce_link_slow },
	{ "mroce_incast16", t_mroce_incast16 },
	{ "mroce_64_streams", t_mroce_64_streams },
	{ "mroce_fattree", t_mroce_fattree },
	{ "mroce_fattree128", t_mroce_fattree128 },
	{ "mroce_taildrop16", t_mroce_taildrop16 },
	{ "mroce_leafspine_degraded", t_mroce_leafspine_degraded },
	{ "mroce_plane_down", t_mroce_plane_down },
	{ "mroce_stall_moves", t_mroce_stall_moves },
	{ "mroce_ring_allreduce", t_mroce_ring_allreduce },
	{ "determinism", t_determinism },
	{ "rocev2_lossless", t_rocev2_lossless },
	{ "rocev2_loss", t_rocev2_loss },
	{ "rocev2_incast16", t_rocev2_incast16 },
	{ "rocev2_blackhole_pins", t_rocev2_blackhole_pins },
	{ "rocev2_ring_allreduce", t_rocev2_ring_allreduce },
};

static bool selected(const char *name, int argc, char **argv)
{
	int i;

	if (!argc)
		return true;
	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

int sim_check_main(int argc, char **argv)
{
	u32 i, pass = 0, fail = 0;

	if (argc && !strcmp(argv[0], "-v")) {
		verbose = true;
		argc--;
		argv++;
	}
	for (i = 0; i < MRE_ARRAY_SIZE(checks); i++) {
		u32 before = failures;
		clock_t t0 = clock();

		if (!selected(checks[i].name, argc, argv))
			continue;
		checks[i].fn();
		if (failures == before)
			pass++;
		else
			fail++;
		printf("%s %s (%.2f s)\n", failures == before ? "ok  " : "FAIL",
		       checks[i].name, (double)(clock() - t0) / CLOCKS_PER_SEC);
		fflush(stdout);
	}
	printf("%u passed, %u failed\n", pass, fail);
	return fail ? 1 : 0;
}
