// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bench-sim's fabric figures: permutations, a failed link,
 * oversubscription and a 1,024-to-1 incast at datacenter scale, next to
 * UEC's published htsim figures (fattree); tail drop on a dumbbell
 * (taildrop); planes, scaling and one lost (planes); a ring all-reduce and
 * an all-to-all under loss against their ideal (collective); and the
 * simulator's own speed and memory at each size (scale).
 *
 * Every run is a child process: its figures come back through a pipe and
 * its peak memory and CPU time from wait4(), and as many run at once as
 * there are CPUs (MRE_SIM_JOBS overrides). A child runs one scenario with
 * its own seed, so the figures do not depend on how many run in parallel.
 */
#include "bench.h"
#include "report.h"
#include "simcli.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

enum fab_pattern {
	FAB_ONE,		/* one flow across the core */
	FAB_PERM,		/* a random permutation of every host */
	FAB_INCAST,		/* every other host sends to host 0 */
	FAB_PAIRS,		/* dumbbell: host i to host n/2 + i, no end */
	FAB_MULTI,		/* fan permutations at once, no end */
	FAB_RING,		/* ring all-reduce over ranks (collectives) */
	FAB_A2A,		/* all-to-all over ranks */
};

enum fab_shape {
	FAB_FAT,		/* a k-ary fat tree (3 tiers) */
	FAB_LS,			/* leaf-spine: 32 leaves of 32 hosts, k spines */
	FAB_BELL,		/* dumbbell: 2 leaves of k hosts, one spine */
};

struct fab_job {
	const char *name;
	u8 xport;
	u8 pattern;
	u8 shape;		/* enum fab_shape */
	u32 k;			/* fat tree: k; leaf-spine: spines */
	u32 planes;		/* 0: one */
	u32 oversub;
	u64 bytes;		/* per flow; 0: FAB_FLOW */
	bool fail_link;		/* core0 -> agg0 at 25 % from t = 0 */
	bool no_hints;
	u32 npaths;		/* 0: the default */
	u64 seed;
	u32 spine_mbps;		/* dumbbell: the spine links' rate */
	bool no_ecn;		/* dumbbell: tail drop only */
	u32 loss_ppm;		/* random loss on switch-switch links */
	u32 fan;		/* FAB_MULTI: flows out of (and into) each host */
	u64 from_ns;		/* flows without end: measured from here ... */
	u64 end_ns;		/* ... to here (0: the dumbbell's) */
	bool plane_down;	/* plane 1 goes down FAB_PLANE_AT after the start */
	bool check;		/* every byte placed exactly once */
	u32 ranks;		/* collectives: ranks, on hosts coll_host() */
	u64 chunk;		/* ring: bytes a step; all-to-all: to each peer */
	u32 window;		/* all-to-all: peers at once (0: all) */
	u32 reorder;		/* the engine's reorder_pkts (0: its default) */
	u32 rto_min_us;		/* ... rto_min (0: its default) */
	bool no_parity;		/* ... parity_pkts 0: no PARITY */
};

struct fab_res {
	bool ok;		/* the child ran to the end */
	u32 nhosts, nswitches, nlinks, nflows, done;
	double tail_us, p99_us, med_us, min_us;
	double gbps;
	u64 data, retx, drops, rto;
	u32 errors;		/* errors, order violations, bad placements */
	u64 events, pkts;
	double wall_s, cpu_s;
	long rss_kb;
	/* flows without end: from FAB_BELL_FROM (or from_ns) to the end */
	double open_gbps;	/* all flows */
	double jain;		/* Jain's index of the flows' goodputs */
	double flow_lo, flow_hi;	/* slowest and fastest flow, Gbit/s */
	/* plane down: goodput before, lowest 10 us window after, recovery */
	double pl_before, pl_dip, pl_rec_us;
	u64 missing, twice;	/* with check */
	/* collectives: per rank from FAB_START_NS, us; their steps */
	u32 ranks_done;
	double c_tail_us, c_p99_us, c_med_us, c_min_us;
	double step_med_us, step_mean_us, step_p99_us, step_max_us;
	u32 steps, slow_steps;	/* steps, and those over 2x the ideal one */
	u32 held;		/* steps received with the one before (held) */
	u32 excess[6];		/* steps by time beyond ideal: < 2, 10, 30,
				 * 60, 120 us, more */
	double slow_extra_us;	/* the time those took beyond the ideal, summed */
	u64 loss_fast, loss_tlp, loss_rto, loss_silent, loss_late, tx_tlp;
	u64 loss_time, spurious;
	u64 nak;		/* RoCEv2: sequence-error NAKs sent */
	u64 ecn_cut;		/* window cuts on ECN marks */
	struct mre_parity_ctr par;	/* PARITY, all hosts */
};

/*
 * The fabric, as close to uet-htsim's validation setup as the model goes
 * (bench/results/sim/README.md puts the two side by side):
 *   - 100 Gbit/s links, 1 us per hop, no switch latency;
 *   - 4 KiB of payload per packet (htsim: 4,086 B of a 4,150 B frame);
 *   - every port's buffer one BDP of the fabric's unloaded RTT, RED-like
 *     ECN marking from 0.2 to 0.8 of it (htsim's defaults with trimming;
 *     the model has no trimming, so an overflow is a drop);
 *   - 3 tiers: 43 packets of buffer, marks from 9 to 35; 2 tiers
 *     (leaf-spine): 29, from 6 to 24;
 *   - flows of 2,000,000 bytes as 64 KiB WRITEs, 16 posted, all starting
 *     at FAB_START_NS. htsim has no handshake, so connections are set up
 *     before that, and a flow's completion time (FCT) runs from its start
 *     to its sender's last completion.
 */
#define FAB_HOP_NS	1000
#define FAB_PKT_WIRE	(4096 + MRE_MAX_HDR_LEN + SIM_WIRE_OVERHEAD)
#define FAB_FLOW	2000000ULL
#define FAB_INCAST_FLOW	100000ULL
#define FAB_MSG		65536
#define FAB_START_NS	100000ULL
#define FAB_LS_LEAVES	32
#define FAB_LS_HOSTS	32
#define FAB_FAIL_LINK	2	/* topo_fattree(): agg0.0 - core0.0 */
#define FAB_FAIL_PCT	25
#define FAB_PLANE_AT	200000ULL	/* plane 1 down this long after the start */
#define FAB_PLANE_WIN	2		/* samples (of 5 us) per goodput window */
#define FAB_BELL_FROM	1000000ULL	/* dumbbell: measured from here ... */
#define FAB_BELL_END	5000000ULL	/* ... to here */

static void fab_ports(struct sim_link_cfg *c, u32 bdp_pkts, u32 lo, u32 hi)
{
	c->delay_ns = FAB_HOP_NS;
	c->limit = (u64)bdp_pkts * FAB_PKT_WIRE;
	c->ecn_k = (u64)lo * FAB_PKT_WIRE;
	c->ecn_kmax = (u64)hi * FAB_PKT_WIRE;
}

static void coll_flows(struct scen *s, const struct fab_job *j);

static void fab_scen(struct scen *s, const struct fab_job *j)
{
	u32 n, i;
	u64 bytes = j->bytes ? j->bytes : FAB_FLOW;

	scen_defaults(s);
	bench_tune(s);
	s->seed = j->seed ? j->seed : 13;
	s->xport = j->xport;
	s->no_hints = j->no_hints;
	s->tc.planes = j->planes ? j->planes : 1;
	s->tc.oversub = j->oversub;
	if (j->shape == FAB_BELL) {
		s->shape = SCEN_LEAFSPINE;
		s->nleaves = 2;
		s->per_leaf = j->k;
		s->nspines = 1;
		n = 2 * j->k;
		s->tc.host.delay_ns = FAB_HOP_NS;
		s->tc.fabric = s->tc.host;
		s->tc.fabric.mbps = j->spine_mbps;
		if (j->no_ecn)
			s->tc.host.ecn_k = s->tc.fabric.ecn_k = 0;
		s->t_end = FAB_BELL_END;
		s->sample_ns = 10000;
	} else if (j->shape == FAB_LS) {
		s->shape = SCEN_LEAFSPINE;
		s->nleaves = FAB_LS_LEAVES;
		s->per_leaf = FAB_LS_HOSTS;
		s->nspines = j->k;
		n = FAB_LS_LEAVES * FAB_LS_HOSTS;
		fab_ports(&s->tc.host, 29, 6, 24);
	} else {
		s->shape = SCEN_FATTREE;
		s->fat_k = j->k;
		n = j->k * j->k * j->k / 4;
		fab_ports(&s->tc.host, 43, 9, 35);
	}
	if (j->shape != FAB_BELL)
		s->tc.fabric = s->tc.host;
	/*
	 * every switch-switch link, from the flows' start: the connections
	 * are set up before it, as htsim's need none (a lost RETRY or ACCEPT
	 * held a ring's first step for connect_ns otherwise, 1 ms)
	 */
	if (j->loss_ppm)
		scen_fault(s, FAB_START_NS, SCEN_FABRIC_LOSS, 0, j->loss_ppm);
	if (j->reorder)
		s->cfg.reorder_pkts = j->reorder;
	if (j->no_parity)
		s->cfg.parity_pkts = 0;
	if (j->rto_min_us)		/* over bench_tune(): the run is about it */
		s->cfg.rto_min_ns = (u64)j->rto_min_us * 1000;
	if (j->npaths)
		s->cfg.npaths = j->npaths;
	s->msg = FAB_MSG;
	s->ring = FAB_MSG;	/* not checked: a ring of one message */
	if (j->shape != FAB_BELL) {
		s->sample_ns = 50000;
		s->t_end = 200000000;
	}
	if (j->end_ns)
		s->t_end = j->end_ns;
	if (j->plane_down || j->from_ns)
		s->sample_ns = 5000;
	s->check = j->check;
	switch (j->pattern) {
	case FAB_ONE:
		scen_flow(s, 0, n - 1, bytes, FAB_START_NS);
		break;
	case FAB_PERM:
		scen_permutation(s, n, bytes, s->seed);
		for (i = 0; i < s->nflows; i++)
			s->flows[i].start_ns = FAB_START_NS;
		break;
	case FAB_INCAST:
		for (i = 1; i < n; i++)
			scen_flow(s, i, 0, bytes, FAB_START_NS);
		break;
	case FAB_PAIRS:
		for (i = 0; i < n / 2; i++)
			scen_flow(s, i, n / 2 + i, 0, FAB_START_NS);
		break;
	case FAB_MULTI:
		for (i = 0; i < j->fan; i++)
			scen_permutation(s, n, 0, s->seed + i);
		for (i = 0; i < s->nflows; i++)
			s->flows[i].start_ns = FAB_START_NS;
		break;
	case FAB_RING:
	case FAB_A2A:
		if (j->shape != FAB_FAT || j->ranks > n || j->ranks < 2)
			abort();
		coll_flows(s, j);
		break;
	}
	if (j->plane_down)
		scen_fault(s, FAB_START_NS + FAB_PLANE_AT, SCEN_PLANE_DOWN, 1, 0);
	if (j->fail_link)
		scen_fault(s, 0, SCEN_PORT_DEGRADE, FAB_FAIL_LINK, FAB_FAIL_PCT);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void open_measure(const struct scen *s, struct fab_res *r, u64 from);
static void plane_measure(const struct scen *s, struct fab_res *r);
static void coll_measure(const struct scen *s, const struct fab_job *j,
			 struct fab_res *r);

static void fab_measure(const struct scen *s, const struct fab_job *j,
			struct fab_res *r)
{
	u64 *fct = calloc(s->wl.nflows ? s->wl.nflows : 1, sizeof(*fct));
	struct wl_verdict v;
	u32 i, k, n = 0;

	if (!fct)
		abort();
	r->nhosts = s->topo.nhosts;
	r->nlinks = s->topo.nlinks;
	r->nswitches = s->topo.nnodes - s->topo.nhosts;
	r->nflows = s->wl.nflows;
	for (i = 0; i < s->wl.nflows; i++) {
		const struct wl_flow *f = &s->wl.flows[i];

		if (f->done_ns)
			fct[n++] = f->done_ns - f->start_ns;
	}
	r->done = n;
	qsort(fct, n, sizeof(*fct), cmp_u64);
	if (n) {
		r->min_us = fct[0] / 1000.0;
		r->med_us = fct[n / 2] / 1000.0;
		r->p99_us = fct[(n - 1) * 99 / 100] / 1000.0;
		r->tail_us = fct[n - 1] / 1000.0;
	}
	free(fct);
	r->gbps = rep_goodput(s);
	if (s->xport == WL_MROCE) {
		struct mre_counters c;

		scen_counters(s, &c);
		r->data = c.tx_data;
		r->retx = c.tx_retx;
		r->rto = c.rto;
		r->loss_fast = c.loss_fast;
		r->loss_tlp = c.loss_tlp;
		r->loss_rto = c.loss_rto;
		r->loss_silent = c.loss_silent;
		r->loss_late = c.loss_late;
		r->loss_time = c.loss_time;
		r->spurious = c.spurious_retx;
		r->tx_tlp = c.tx_tlp;
		r->ecn_cut = c.ecn_cut;
		scen_parity(s, &r->par);
	} else {
		struct bl_counters c;

		scen_bl_counters(s, &c);
		r->data = c.tx_data;
		r->retx = c.tx_retx;
		r->rto = c.rto;
		r->nak = c.tx_nak;
		r->ecn_cut = c.ecn_cut;
	}
	for (i = 0; i < s->topo.nnodes; i++) {
		const struct sim_node *nd = s->topo.nodes[i];

		if (nd->kind == SIM_NODE_HOST)
			r->pkts += ((const struct sim_host *)nd)->tx_pkts;
		for (k = 0; k < nd->nports; k++)
			r->drops += nd->ports[k]->drop_full;
	}
	wl_verify(&s->wl, &v);
	r->errors = v.errors + v.order_violations + v.bad_place +
		    v.bytes_corrupt + v.guard_touched + v.gate_early +
		    v.undelivered;
	r->missing = v.bytes_missing;
	r->twice = v.bytes_twice;
	r->events = s->sim.nev;
	if ((j->pattern == FAB_PAIRS || j->pattern == FAB_MULTI) && s->nsamp)
		open_measure(s, r, j->from_ns ? j->from_ns : FAB_BELL_FROM);
	if (j->plane_down && s->nsamp)
		plane_measure(s, r);
	if (j->pattern == FAB_RING || j->pattern == FAB_A2A)
		coll_measure(s, j, r);
}

/* flows without end: goodputs from @from to the end of the run */
static void open_measure(const struct scen *s, struct fab_res *r, u64 from)
{
	u32 a, b = s->nsamp - 1, f;
	double sum = 0, sq = 0;

	for (a = 0; a < b && s->st[a] < from; a++)
		;
	r->flow_lo = 1e9;
	for (f = 0; f < s->nflows; f++) {
		double g = (double)(s->sp[(size_t)b * s->nflows + f] -
				    s->sp[(size_t)a * s->nflows + f]) * 8 /
			   (double)(s->st[b] - s->st[a]);

		sum += g;
		sq += g * g;
		r->flow_lo = MRE_MIN(r->flow_lo, g);
		r->flow_hi = MRE_MAX(r->flow_hi, g);
	}
	r->open_gbps = sum;
	r->jain = sq > 0 ? sum * sum / (s->nflows * sq) : 0;
}

/*
 * Plane 1 went down at FAB_PLANE_AT: the goodput of all flows over 10 us
 * windows before it (from half way there), the lowest after it, and how
 * long until it was back to 95 % of (P - 1) / P of before for good (until
 * the first flow completed).
 */
static void plane_measure(const struct scen *s, struct fab_res *r)
{
	u64 at = FAB_START_NS + FAB_PLANE_AT, first = s->end_ns, t;
	double sum = 0, want;
	u32 i, n = 0, last_bad = 0, planes = s->tc.planes;

	for (i = 0; i < s->wl.nflows; i++)
		if (s->wl.flows[i].done_ns)
			first = MRE_MIN(first, s->wl.flows[i].done_ns);
	for (i = FAB_PLANE_WIN; i < s->nsamp; i++) {
		t = s->st[i];
		if (t > FAB_START_NS + FAB_PLANE_AT / 2 && t <= at) {
			sum += rep_window_gbps(s, i, FAB_PLANE_WIN);
			n++;
		}
	}
	r->pl_before = n ? sum / n : 0;
	want = 0.95 * r->pl_before * (planes - 1) / planes;
	r->pl_dip = 1e9;
	for (i = FAB_PLANE_WIN; i < s->nsamp && s->st[i] < first; i++) {
		double g;

		if (s->st[i - FAB_PLANE_WIN] < at)
			continue;
		g = rep_window_gbps(s, i, FAB_PLANE_WIN);
		r->pl_dip = MRE_MIN(r->pl_dip, g);
		if (g < want)
			last_bad = i;
	}
	r->pl_rec_us = last_bad ? (s->st[last_bad] - at) / 1000.0 : 0;
}

static double secs(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

static void fab_child(const struct fab_job *j, int fd)
{
	struct fab_res r = { .ok = true };
	struct timespec t0, t1;
	struct scen s;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fab_scen(&s, j);
	if (scen_run(&s))
		_exit(1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r.wall_s = secs(&t0, &t1);
	fab_measure(&s, j, &r);
	if (write(fd, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	_exit(0);
}

static u32 ncpus(void)
{
	const char *e = getenv("MRE_SIM_JOBS");
	long n = e ? strtol(e, NULL, 0) : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : (u32)n;
}

/* run @n jobs, ncpus() at a time, each in a child */
static void fab_run_all(const struct fab_job *jobs, struct fab_res *res, u32 n)
{
	pid_t *pid = calloc(n, sizeof(*pid));
	int *fd = calloc(n, sizeof(*fd));
	u32 next = 0, running = 0, max = ncpus(), i;

	if (!pid || !fd)
		abort();
	fflush(NULL);
	while (next < n || running) {
		struct rusage ru;
		int st, p[2];
		pid_t done;

		while (running < max && next < n) {
			fprintf(stderr, "bench: %s\n", jobs[next].name);
			if (pipe(p))
				abort();
			pid[next] = fork();
			if (pid[next] < 0)
				abort();
			if (!pid[next]) {
				close(p[0]);
				fab_child(&jobs[next], p[1]);
			}
			close(p[1]);
			fd[next++] = p[0];
			running++;
		}
		done = wait4(-1, &st, 0, &ru);
		if (done < 0)
			abort();
		for (i = 0; i < next && pid[i] != done; i++)
			;
		if (i == next)
			continue;
		running--;
		memset(&res[i], 0, sizeof(res[i]));
		if (!WIFEXITED(st) || WEXITSTATUS(st) ||
		    read(fd[i], &res[i], sizeof(res[i])) != sizeof(res[i])) {
			fprintf(stderr, "bench: %s failed\n", jobs[i].name);
			res[i].ok = false;
		}
		close(fd[i]);
		res[i].rss_kb = ru.ru_maxrss;
		res[i].cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
			       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	}
	free(pid);
	free(fd);
}

/* run a figure's jobs; its TSV, opened, with its header line */
static FILE *fab_figure(const struct fab_job *jobs, struct fab_res *res, u32 n,
			const char *tsv, const char *header)
{
	FILE *f;

	fab_run_all(jobs, res, n);
	f = bench_tsv(tsv);
	fprintf(f, "%s\n", header);
	return f;
}

/* --- the uet-htsim comparison ------------------------------------------------ */

/* uet-htsim's figures for the same scenarios (its validate_outputs) */
struct fab_ref {
	const char *what;
	double lo, hi;		/* tail FCT range, us; 0: none published */
	double single_lo, single_hi;	/* single path (ECMP-like) */
};

enum {
	J_ONE, J_ONE_BL,
	J_P16, J_P16_BL,
	J_P1K, J_P1K_BL, J_P1K_64,
	J_FAIL, J_FAIL_BL,
	J_OS4, J_OS4_BL,
	J_OS8, J_OS8_BL,
	J_INC, J_INC_NOHINT, J_INC_BL,
	J_N,
};

/* a job: name, transport, pattern, k, then any other field */
#define FAB_JOB(nm, x, pat, kk, ...) { .name = nm, .xport = x, .pattern = pat, \
				       .k = kk, __VA_ARGS__ }
#define M WL_MROCE
#define B WL_ROCEV2

static const struct fab_job fat_jobs[J_N] = {
	[J_ONE] = FAB_JOB("one flow, mroce", M, FAB_ONE, 16),
	[J_ONE_BL] = FAB_JOB("one flow, rocev2", B, FAB_ONE, 16),
	[J_P16] = FAB_JOB("perm16, mroce", M, FAB_PERM, 4),
	[J_P16_BL] = FAB_JOB("perm16, rocev2", B, FAB_PERM, 4),
	[J_P1K] = FAB_JOB("perm1024, mroce", M, FAB_PERM, 16),
	[J_P1K_BL] = FAB_JOB("perm1024, rocev2", B, FAB_PERM, 16),
	[J_P1K_64] = FAB_JOB("perm1024, mroce 64 paths", M, FAB_PERM, 16, .npaths = 64),
	[J_FAIL] = FAB_JOB("perm1024 failed link, mroce", M, FAB_PERM, 16,
			   .fail_link = true),
	[J_FAIL_BL] = FAB_JOB("perm1024 failed link, rocev2", B, FAB_PERM, 16,
			      .fail_link = true),
	[J_OS4] = FAB_JOB("perm1024 4:1, mroce", M, FAB_PERM, 8, .shape = FAB_LS),
	[J_OS4_BL] = FAB_JOB("perm1024 4:1, rocev2", B, FAB_PERM, 8, .shape = FAB_LS),
	[J_OS8] = FAB_JOB("perm1024 8:1, mroce", M, FAB_PERM, 4, .shape = FAB_LS),
	[J_OS8_BL] = FAB_JOB("perm1024 8:1, rocev2", B, FAB_PERM, 4, .shape = FAB_LS),
	[J_INC] = FAB_JOB("incast 1023:1, mroce", M, FAB_INCAST, 16,
			  .bytes = FAB_INCAST_FLOW),
	[J_INC_NOHINT] = FAB_JOB("incast 1023:1, mroce no hints", M, FAB_INCAST, 16,
				 .bytes = FAB_INCAST_FLOW, .no_hints = true),
	[J_INC_BL] = FAB_JOB("incast 1023:1, rocev2", B, FAB_INCAST, 16,
			     .bytes = FAB_INCAST_FLOW),
};

/* "ok", or what went wrong: unfinished flows (at t_end), errors, a crash */
static const char *verdict(const struct fab_res *r, char *b, size_t n)
{
	if (!r->ok)
		snprintf(b, n, "**run failed**");
	else if (r->errors)
		snprintf(b, n, "**%u errors**", r->errors);
	else if (r->done != r->nflows)
		snprintf(b, n, "%u of %u unfinished", r->nflows - r->done, r->nflows);
	else
		snprintf(b, n, "ok");
	return b;
}

static void fat_row(const char *what, const struct fab_res *m,
		    const struct fab_res *b, double lo, double hi,
		    double slo, double shi)
{
	char ref[48] = "n/a", sref[48] = "n/a", ratio[32] = "n/a", v[48], bv[48];

	if (lo > 0) {
		snprintf(ref, sizeof(ref), "%.1f-%.1f", lo, hi);
		snprintf(ratio, sizeof(ratio), "%.2f", m->tail_us / hi);
	}
	if (slo > 0)
		snprintf(sref, sizeof(sref), "%.0f-%.0f", slo, shi);
	fprintf(bench_md, "| %s | %s | %.1f | %.1f | %.1f | %.2f | %llu | %s | %s | %.1f | %.1f | %llu | %s | %s |\n",
		what, ref, m->tail_us, m->p99_us, m->med_us,
		m->min_us > 0 ? m->tail_us / m->min_us : 0, m->retx, ratio,
		verdict(m, v, sizeof(v)), b->tail_us, b->med_us, b->retx,
		verdict(b, bv, sizeof(bv)), sref);
}

void fig_fattree(void)
{
	struct fab_res r[J_N];
	const struct fab_res *inc = &r[J_INC];
	double ideal_us;
	FILE *f;
	u32 i;

	fab_run_all(fat_jobs, r, J_N);
	f = bench_tsv("fattree.tsv");
	fprintf(f, "scenario\thosts\tflows\tdone\ttail_us\tp99_us\tmedian_us\tmin_us\tretx\tdata\tdrops\trto\terrors\n");
	for (i = 0; i < J_N; i++)
		fprintf(f, "%s\t%u\t%u\t%u\t%.1f\t%.1f\t%.1f\t%.1f\t%llu\t%llu\t%llu\t%llu\t%u\n",
			fat_jobs[i].name, r[i].nhosts, r[i].nflows, r[i].done,
			r[i].tail_us, r[i].p99_us, r[i].med_us, r[i].min_us,
			r[i].retx, r[i].data, r[i].drops, r[i].rto, r[i].errors);
	fclose(f);
	fprintf(bench_md, "## Fat tree at 1,024 hosts, next to uet-htsim\n\n"
		"The scenarios of uet-htsim's validation suite (htsim/sim/datacenter/validate_uec_*.txt "
		"and validate_outputs), rebuilt in this simulator with the same parameters where the "
		"model has them:\n\n"
		"| | uet-htsim | here |\n|---|---|---|\n"
		"| fabric | 3-tier fat tree, K = 16: 1,024 hosts, 8 per ToR | the same (topo_fattree, k = 16: 1,024 hosts, 320 switches) |\n"
		"| oversubscribed | 2-tier leaf-spine, 32 ToRs of 32 hosts, 8 (4:1) or 4 (8:1) uplinks | the same (topo_leafspine) |\n"
		"| links | 100 Gbit/s, 1 us per hop, no switch latency | the same |\n"
		"| packet | 4,150 B frame, 4,086 B payload, 64 B ACK | 4,096 B payload + up to 72 B MetaRoCE header + 66 B Ethernet/IP/UDP, preamble and gap |\n"
		"| port buffer | 1 BDP (43 packets; 29 in leaf-spine), with packet trimming | 1 BDP in packets the same, **no trimming**: an overflow is a drop |\n"
		"| ECN | RED-like on dequeue from 0.2 to 0.8 BDP (9 to 35 packets), off toward hosts with receiver CC | RED-like on enqueue between the same thresholds, on every switch port |\n"
		"| failed link | core0 -> agg0 of pod 0 at 25 %% rate, buffer and ECN thresholds, from t = 0 | the same (SCEN_PORT_DEGRADE) |\n"
		"| flows | 2,000,000 B; permutation and incast from its generators (seed 13) | 2,000,000 B as 64 KiB WRITEs, 16 posted; our own seeded permutation (seed 13) |\n"
		"| start | at t = 0, no handshake | connections set up first; every flow starts at %.0f us and its FCT counts from there |\n"
		"| transport | NSCC + RCCC, 128 entropies | MetaRoCE, %u paths per connection (the engine allows %u), rate hints on unless said |\n"
		"| FCT, spread | sender sees the last byte acknowledged; spread = last / first FCT | the sender's last completion; the same spread |\n\n"
		"Baseline: RoCEv2 as deployed (tests/sim/baseline.c), one QP per flow, so one ECMP path, "
		"go-back-N, a DCTCP-like ECN window.\n\n"
		"| scenario | uet-htsim tail us | MetaRoCE tail us | p99 | median | spread | retx | tail / uet-htsim | verdict | RoCEv2 tail us | median | retx | verdict | uet-htsim single path |\n"
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
		FAB_START_NS / 1000.0, fat_jobs[J_P1K].npaths ? fat_jobs[J_P1K].npaths : 8,
		MRE_MAX_PATHS);
	fat_row("one flow", &r[J_ONE], &r[J_ONE_BL], 176, 177, 0, 0);
	fat_row("permutation, 16 hosts", &r[J_P16], &r[J_P16_BL], 0, 0, 0, 0);
	fat_row("permutation, 1,024 hosts", &r[J_P1K], &r[J_P1K_BL], 200.5, 203.4,
		890, 1063);
	fat_row("same, one failed link", &r[J_FAIL], &r[J_FAIL_BL], 200.9, 205.1, 0, 0);
	fat_row("same, 4:1 oversubscribed", &r[J_OS4], &r[J_OS4_BL], 750, 814, 0, 0);
	fat_row("same, 8:1 oversubscribed", &r[J_OS8], &r[J_OS8_BL], 1443, 1479, 0, 0);
	ideal_us = (double)(r[J_INC].nflows) * FAB_INCAST_FLOW * 8 / 100000.0;
	fprintf(bench_md, "\nIncast: every other host sends %llu bytes to host 0 (%u senders); "
		"ideal = all bytes at line rate into one port: %.0f us.\n\n"
		"| congestion control | uet-htsim tail ms | spread | tail ms | / ideal | spread | median ms | retx | drops | verdict |\n"
		"|---|---|---|---|---|---|---|---|---|---|\n", FAB_INCAST_FLOW,
		inc->nflows, ideal_us);
	{
		static const struct {
			const char *what;
			u32 job;
			double ref, spread;
		} rows[] = {
			{ "MetaRoCE, sender and receiver (hints)", J_INC, 8.80, 2.0 },
			{ "MetaRoCE, sender only (no hints)", J_INC_NOHINT, 10.56, 82.6 },
			{ "RoCEv2 baseline (DCTCP-like ECN window)", J_INC_BL, 0, 0 },
		};

		for (i = 0; i < MRE_ARRAY_SIZE(rows); i++) {
			const struct fab_res *x = &r[rows[i].job];
			char ref[32] = "n/a", sp[32] = "n/a", v[48];

			if (rows[i].ref > 0) {
				snprintf(ref, sizeof(ref), "%.2f", rows[i].ref);
				snprintf(sp, sizeof(sp), "%.1f", rows[i].spread);
			}
			fprintf(bench_md, "| %s | %s | %s | %.2f | %.3f | %.1f | %.2f | %llu | %llu | %s |\n",
				rows[i].what, ref, sp, x->tail_us / 1000,
				x->tail_us / ideal_us,
				x->min_us > 0 ? x->tail_us / x->min_us : 0,
				x->med_us / 1000, x->retx, x->drops,
				verdict(x, v, sizeof(v)));
		}
	}
	bench_fig("fat_perm1024_tail_us", r[J_P1K].tail_us);
	bench_fig("fat_perm1024_vs_htsim", r[J_P1K].tail_us / 203.4);
	bench_fig("fat_fail_tail_us", r[J_FAIL].tail_us);
	bench_fig("fat_os4_tail_us", r[J_OS4].tail_us);
	bench_fig("fat_os8_tail_us", r[J_OS8].tail_us);
	bench_fig("fat_incast_vs_ideal", inc->tail_us / ideal_us);
	bench_fig("fat_incast_spread", inc->min_us > 0 ? inc->tail_us / inc->min_us : 0);
	fprintf(bench_md, "\nGoals: the 1,024-host permutation's tail within 1.1x of uet-htsim's "
		"multipath figure (%s: %.2fx); incast tail within 1.1x of ideal (%s: %.3fx) "
		"with spread <= 2 (%s: %.1f).\n\n",
		bench_met(r[J_P1K].tail_us <= 1.1 * 203.4), r[J_P1K].tail_us / 203.4,
		bench_met(inc->tail_us <= 1.1 * ideal_us), inc->tail_us / ideal_us,
		bench_met(inc->min_us > 0 && inc->tail_us <= 2 * inc->min_us),
		inc->min_us > 0 ? inc->tail_us / inc->min_us : 0);
}

/* --- how far the simulator goes ------------------------------------------------- */

static const struct fab_job scale_jobs[] = {
	FAB_JOB("scale k=4", M, FAB_PERM, 4),
	FAB_JOB("scale k=8", M, FAB_PERM, 8),
	FAB_JOB("scale k=16", M, FAB_PERM, 16),
	FAB_JOB("scale k=16, 8 planes", M, FAB_PERM, 16, .planes = 8, .npaths = 64),
	FAB_JOB("scale k=24", M, FAB_PERM, 24),
	FAB_JOB("scale k=32", M, FAB_PERM, 32),
};

void fig_scale(void)
{
	struct fab_res r[MRE_ARRAY_SIZE(scale_jobs)];
	u32 i;

	fab_run_all(scale_jobs, r, MRE_ARRAY_SIZE(scale_jobs));
	fprintf(bench_md, "## The simulator's speed and memory\n\n"
		"A random permutation of 2 MB flows (MetaRoCE) on fat trees of growing k, one "
		"child process per run, %u at a time. Packets = datagrams the hosts sent; "
		"memory = the child's peak resident set (wait4). Wall and CPU time are this "
		"machine's and vary from run to run; the other columns do not.\n\n"
		"| fat tree | planes | hosts | switches | links | flows done | tail FCT us | events | packets | wall s | CPU s | events/s | packets/s | peak memory MiB |\n"
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n", ncpus());
	for (i = 0; i < MRE_ARRAY_SIZE(scale_jobs); i++) {
		const struct fab_res *x = &r[i];

		fprintf(bench_md, "| k = %u | %u | %u | %u | %u | %u / %u | %.1f | %llu | %llu | %.1f | %.1f | %.2e | %.2e | %ld |\n",
			scale_jobs[i].k, scale_jobs[i].planes ? scale_jobs[i].planes : 1, x->nhosts,
			x->nswitches, x->nlinks, x->done, x->nflows, x->tail_us,
			x->events, x->pkts, x->wall_s, x->cpu_s,
			x->wall_s > 0 ? x->events / x->wall_s : 0,
			x->wall_s > 0 ? x->pkts / x->wall_s : 0, x->rss_kb / 1024);
	}
	fprintf(bench_md, "\n");
}

/* --- tail drop without ECN ------------------------------------------------------ */

#define BELL(nm, x, n, mbps, ...) FAB_JOB(nm, x, FAB_PAIRS, n, .shape = FAB_BELL, \
					  .spine_mbps = mbps, __VA_ARGS__)

enum {
	T_1, T_4, T_16, T_16_ECN, T_4_BL, T_4_P2, T_4_P4, T_4_LOSS, T_N,
};

static const struct fab_job bell_jobs[T_N] = {
	[T_1] = BELL("dumbbell 1 flow", M, 1, 50000, .no_ecn = true),
	[T_4] = BELL("dumbbell 4 flows", M, 4, 50000, .no_ecn = true),
	[T_16] = BELL("dumbbell 16 flows", M, 16, 50000, .no_ecn = true),
	[T_16_ECN] = BELL("dumbbell 16 flows, ECN", M, 16, 50000),
	[T_4_BL] = BELL("dumbbell 4 flows, rocev2", B, 4, 50000, .no_ecn = true),
	[T_4_P2] = BELL("dumbbell 4 flows, 2 planes", M, 4, 50000, .no_ecn = true,
			.planes = 2),
	[T_4_P4] = BELL("dumbbell 4 flows, 4 planes", M, 4, 50000, .no_ecn = true,
			.planes = 4),
	[T_4_LOSS] = BELL("dumbbell 4 flows, 1 % loss", M, 4, 50000, .no_ecn = true,
			  .loss_ppm = 10000),
};

void fig_taildrop(void)
{
	struct fab_res r[T_N];
	FILE *f;
	u32 i;

	f = fab_figure(bell_jobs, r, T_N, "taildrop.tsv",
		       "scenario\tflows\tplanes\tgbps\tbottleneck_gbps\tretx_pct\tjain\tslowest\tfastest");
	fprintf(bench_md, "## Tail drop without ECN\n\n"
		"A dumbbell: two leaves of N hosts and one spine per plane, host links at 100 Gbit/s, "
		"both spine links at 50 Gbit/s (the bottleneck), 512 KiB tail-drop buffers and no "
		"ECN marking unless said; host i sends to host N + i without end, each flow one "
		"connection. Goodput from %.0f to %.0f ms; retransmissions of all data packets over "
		"the whole run; Jain's index over the flows' goodputs.\n\n"
		"| scenario | flows | planes | goodput Gbit/s | of the bottleneck | retransmitted | Jain | slowest / fastest flow Gbit/s | verdict |\n"
		"|---|---|---|---|---|---|---|---|---|\n",
		FAB_BELL_FROM / 1e6, FAB_BELL_END / 1e6);
	for (i = 0; i < T_N; i++) {
		const struct fab_job *j = &bell_jobs[i];
		u32 planes = j->planes ? j->planes : 1;
		double cap = planes * j->spine_mbps / 1000.0;
		char v[48];

		fprintf(f, "%s\t%u\t%u\t%.2f\t%.1f\t%.2f\t%.3f\t%.2f\t%.2f\n", j->name,
			j->k, planes, r[i].open_gbps, cap,
			r[i].data ? 100.0 * r[i].retx / r[i].data : 0, r[i].jain,
			r[i].flow_lo, r[i].flow_hi);
		fprintf(bench_md, "| %s | %u | %u | %.1f | %.3f | %.2f %% | %.3f | %.1f / %.1f | %s |\n",
			j->name, j->k, planes, r[i].open_gbps, r[i].open_gbps / cap,
			r[i].data ? 100.0 * r[i].retx / r[i].data : 0, r[i].jain,
			r[i].flow_lo, r[i].flow_hi, r[i].ok && !r[i].errors ? "ok" :
			verdict(&r[i], v, sizeof(v)));
	}
	fclose(f);
	bench_fig("taildrop16_retx_pct", r[T_16].data ? 100.0 * r[T_16].retx / r[T_16].data : 0);
	bench_fig("taildrop16_of_bottleneck", r[T_16].open_gbps / 50);
	bench_fig("taildrop16_jain", r[T_16].jain);
	bench_fig("taildrop_planes4_scaling", r[T_4_P4].open_gbps / (4 * r[T_4].open_gbps));
	{
		double rx = r[T_16].data ? 100.0 * r[T_16].retx / r[T_16].data : 0;
		double g = r[T_16].open_gbps / 50, s2 = r[T_4_P2].open_gbps / (2 * r[T_4].open_gbps);
		double s4 = r[T_4_P4].open_gbps / (4 * r[T_4].open_gbps);

		fprintf(bench_md, "\nGoals (16 flows, no ECN): retransmissions <= 5 %% (%s: %.2f %%) with "
			"goodput >= 90 %% of the bottleneck (%s: %.3f); Jain >= 0.95 (%s: %.3f); planes "
			"scale >= 0.9 of linear (%s: 2 planes %.3f, 4 planes %.3f of 4 x 1 plane).\n\n",
			bench_met(rx <= 5), rx, bench_met(g >= 0.9), g,
			bench_met(r[T_16].jain >= 0.95), r[T_16].jain,
			bench_met(s2 >= 0.9 && s4 >= 0.9), s2, s4);
	}
}

/* --- planes ------------------------------------------------------------------------ */

/*
 * Meta's claims about planes: goodput that scales with them at thousands
 * of connections, and a plane lost without losing anything. Scaling: a
 * k = 16 fat tree per plane, 1,024 hosts each sending to 4 others and
 * receiving from 4 (4,096 connections), flows without end, 32 paths per
 * connection (4 per plane at 8), measured from 150 to 300 us after the
 * start. Failure: 16 hosts on 4 planes, a permutation of 32 MiB flows with
 * every byte checked, plane 1 (all its links) down 200 us in.
 */
#define PLANE_JOB(nm, p, ...) FAB_JOB(nm, M, FAB_MULTI, 16, .planes = p, .fan = 4, \
				      .npaths = 32, .from_ns = FAB_START_NS + 150000, \
				      .end_ns = FAB_START_NS + 300000, __VA_ARGS__)

enum { P_1, P_2, P_4, P_8, P_FAIL, P_N };

static const struct fab_job plane_jobs[P_N] = {
	[P_1] = PLANE_JOB("planes 1, 4096 connections", 1),
	[P_2] = PLANE_JOB("planes 2, 4096 connections", 2),
	[P_4] = PLANE_JOB("planes 4, 4096 connections", 4),
	[P_8] = PLANE_JOB("planes 8, 4096 connections", 8),
	[P_FAIL] = FAB_JOB("plane down, 4 planes", M, FAB_PERM, 4, .planes = 4,
			   .npaths = 16, .bytes = 32 << 20, .check = true,
			   .plane_down = true),
};

void fig_planes(void)
{
	struct fab_res r[P_N];
	const struct fab_res *x = &r[P_FAIL];
	FILE *f;
	u32 i;

	f = fab_figure(plane_jobs, r, P_N, "planes.tsv",
		       "planes\tconnections\tgbps\tof_linear\tretx_pct\tjain");
	fprintf(bench_md, "## Planes\n\n"
		"Scaling: a k = 16 fat tree on each plane (1,024 hosts), every host sending to "
		"4 others and receiving from 4 (4 random permutations, 4,096 connections), flows "
		"without end, 32 paths per connection, goodput of all flows from 150 to 300 us "
		"after they start. Linear = P times the one-plane figure.\n\n"
		"| planes | connections | goodput Tbit/s | per host Gbit/s | of linear | retransmitted | Jain | verdict |\n"
		"|---|---|---|---|---|---|---|---|\n");
	for (i = P_1; i <= P_8; i++) {
		u32 p = plane_jobs[i].planes;
		double lin = r[P_1].open_gbps > 0 ? r[i].open_gbps / (p * r[P_1].open_gbps) : 0;
		char v[48];

		fprintf(f, "%u\t%u\t%.1f\t%.3f\t%.2f\t%.3f\n", p, r[i].nflows,
			r[i].open_gbps, lin,
			r[i].data ? 100.0 * r[i].retx / r[i].data : 0, r[i].jain);
		fprintf(bench_md, "| %u | %u | %.2f | %.1f | %.3f | %.2f %% | %.3f | %s |\n", p,
			r[i].nflows, r[i].open_gbps / 1000, r[i].open_gbps / r[i].nhosts, lin,
			r[i].data ? 100.0 * r[i].retx / r[i].data : 0, r[i].jain,
			r[i].ok && !r[i].errors ? "ok" : verdict(&r[i], v, sizeof(v)));
	}
	fclose(f);
	bench_fig("planes8_of_linear", r[P_1].open_gbps > 0 ?
		  r[P_8].open_gbps / (8 * r[P_1].open_gbps) : 0);
	bench_fig("plane_down_recovery_us", x->pl_rec_us);
	fprintf(bench_md, "\nGoal: >= 0.95 of linear at 8 planes (%s: %.3f).\n\n"
		"Plane failure: a k = 4 fat tree on each of 4 planes (16 hosts), a permutation of "
		"32 MiB flows, 16 paths per connection, every byte checked; all links of plane 1 "
		"go down %.0f us after the start (routing reconverges at once; the engine is not "
		"told, it finds out). Goodput over 10 us windows.\n\n"
		"| before Gbit/s | lowest after | back to 95 %% of 3/4 for good after | bytes lost | placed twice | verdict |\n"
		"|---|---|---|---|---|---|\n"
		"| %.1f | %.1f | %.0f us | %llu | %llu | %s |\n\n",
		bench_met(r[P_1].open_gbps > 0 && r[P_8].open_gbps >= 0.95 * 8 * r[P_1].open_gbps),
		r[P_1].open_gbps > 0 ? r[P_8].open_gbps / (8 * r[P_1].open_gbps) : 0,
		FAB_PLANE_AT / 1000.0, x->pl_before, x->pl_dip, x->pl_rec_us, x->missing,
		x->twice, x->ok && !x->errors && x->done == x->nflows && !x->missing &&
		!x->twice ? "ok: every byte once" : "**FAILED**");
}

/* --- collectives under loss ---------------------------------------------------- */

/*
 * A ring all-reduce over 256 ranks and an all-to-all over 64 of the k = 16
 * fat tree (1,024 hosts, the fattree figure's links, buffers and ECN; 64:
 * each pair of ranks costs a connection and two model QPs, 0.4 MB, which
 * 256 ranks' 65,280 pairs do not fit), one rank per
 * host, dealt round-robin over the pods: rank r on host (r mod k) *
 * k^2 / 4 + r / k. A ring neighbour is then always in another pod, so every
 * hop of the ring crosses the core (6 links, 4 of them switch-switch), as
 * for a job scattered over the cluster.
 *
 * Ring all-reduce of M = N * chunk bytes: 2 (N - 1) steps; in step s rank r
 * sends a chunk to rank r + 1, and may send step s + 1 once it has received
 * step s from rank r - 1 (one flow per rank of 2 (N - 1) steps, gated on
 * the flow into it with lag 1, see workload.h: 256 flows and QP pairs, not
 * 130,560). Whether its own step s
 * was acknowledged does not matter. A rank is done when the last chunk came
 * in (its receive completion). Nothing is reduced: no compute time.
 *
 * All-to-all: each rank sends chunk bytes to each of the N - 1 others, to
 * r + 1, r + 2, ... in that order, window destinations at a time: the flow
 * to r + i starts when the one to r + i - window has completed at the
 * sender. Every rank then sends to a different one (a shifted permutation)
 * instead of all of them to rank 0 first. A rank is done at its last send
 * completion.
 *
 * Loss: on every switch-switch link, both directions (data and ACKs), at
 * COLL_LOSS_PPM so that a packet crossing the core (4 such links) is lost
 * with 1 %.
 */
#define COLL_K		16
#define COLL_RANKS	256
#define COLL_CHUNK	(64 << 10)
#define COLL_A2A_RANKS	64
#define COLL_A2A	(256 << 10)
#define COLL_WIN	4
#define COLL_LOSS_PPM	2509		/* 1 - (1 - p)^4 = 1.00 % */
#define COLL_CORE_LINKS	6		/* host - edge - agg - core - agg - edge - host */

static u32 coll_host(const struct fab_job *j, u32 r)
{
	return r % j->k * (j->k * j->k / 4) + r / j->k;
}

static void coll_flows(struct scen *s, const struct fab_job *j)
{
	u32 n = j->ranks, steps = 2 * (n - 1), r, i;

	if (j->pattern == FAB_RING) {
		for (r = 0; r < n; r++) {
			scen_flow(s, coll_host(j, r), coll_host(j, (r + 1) % n),
				  steps * j->chunk, FAB_START_NS);
			/* flow r - 1 comes into rank r */
			scen_gate(s, r, steps, (r + n - 1) % n, 1);
		}
		return;
	}
	for (r = 0; r < n; r++)
		for (i = 1; i < n; i++) {
			scen_flow(s, coll_host(j, r), coll_host(j, (r + i) % n),
				  j->chunk, FAB_START_NS);
			if (j->window && i > j->window)
				scen_gate(s, s->nflows - 1, 1,
					  s->nflows - 1 - j->window, 0);
		}
}

/* serialisation of @bytes of payload in full packets at the host's rate */
static double coll_ser_ns(const struct scen *s, u64 bytes)
{
	u64 pkts = (bytes + s->mtu - 1) / s->mtu;

	return (double)pkts * FAB_PKT_WIRE * 8000 / s->tc.host.mbps;
}

/* the unloaded one-way latency of a packet across the core, after its host */
static double coll_path_ns(const struct scen *s)
{
	return COLL_CORE_LINKS * FAB_HOP_NS +
	       (COLL_CORE_LINKS - 1) * coll_ser_ns(s, 1);
}

/* a ring step: its chunk out of the host, then the last packet across */
static double coll_step_ns(const struct scen *s, const struct fab_job *j)
{
	return coll_ser_ns(s, j->chunk) + coll_path_ns(s);
}

static double coll_ideal_us(const struct scen *s, const struct fab_job *j)
{
	double ack = (double)(MRE_ACK_LEN + SIM_WIRE_OVERHEAD) * 8000 / s->tc.host.mbps;

	if (j->pattern == FAB_RING)
		return 2.0 * (j->ranks - 1) * coll_step_ns(s, j) / 1000;
	/* every byte out at line rate, then the last one's round trip */
	return ((j->ranks - 1) * coll_ser_ns(s, j->chunk) + coll_path_ns(s) +
		COLL_CORE_LINKS * (FAB_HOP_NS + ack)) / 1000;
}

static void coll_measure(const struct scen *s, const struct fab_job *j,
			 struct fab_res *r)
{
	u32 n = j->ranks, i, k, m = 0, done = 0;
	double *t = calloc(n, sizeof(*t)), *lat = NULL, ideal = coll_step_ns(s, j);
	double sum = 0;

	if (!t)
		abort();
	for (i = 0; i < n; i++) {
		u64 at = 0;

		if (j->pattern == FAB_RING)
			at = s->wl.flows[i].rx_done_ns;	/* flow i goes to rank i + 1 */
		for (k = 0; j->pattern == FAB_A2A && k < n - 1; k++) {
			u64 d = s->wl.flows[i * (n - 1) + k].done_ns;

			if (!d)
				break;		/* rank i never finished */
			at = MRE_MAX(at, d);
		}
		if (j->pattern == FAB_A2A && k < n - 1)
			at = 0;
		if (at)
			t[done++] = (double)(at - FAB_START_NS) / 1000;
	}
	r->ranks_done = done;
	qsort(t, done, sizeof(*t), bench_cmp_double);
	if (done) {
		r->c_min_us = t[0];
		r->c_med_us = t[done / 2];
		r->c_p99_us = t[(done - 1) * 99 / 100];
		r->c_tail_us = t[done - 1];
	}
	free(t);
	if (j->pattern != FAB_RING)
		return;
	/* each step: from its first WRITE posted to its receipt */
	lat = calloc((size_t)n * 2 * (n - 1), sizeof(*lat));
	if (!lat)
		abort();
	for (i = 0; i < n; i++) {
		const struct wl_flow *f = &s->wl.flows[i];

		for (k = 0; k < f->rx_steps; k++) {
			double l = (double)(f->step_rx[k] - f->step_at[k]);
			double x = (l - ideal) / 1000;

			r->excess[x < 2 ? 0 : x < 10 ? 1 : x < 30 ? 2 : x < 60 ? 3 :
				  x < 120 ? 4 : 5]++;
			if (k && f->step_rx[k] == f->step_rx[k - 1])
				r->held++;
			lat[m++] = l / 1000;
			sum += l / 1000;
			if (l > 2 * ideal) {
				r->slow_steps++;
				r->slow_extra_us += (l - ideal) / 1000;
			}
		}
	}
	r->steps = m;
	qsort(lat, m, sizeof(*lat), bench_cmp_double);
	if (m) {
		r->step_med_us = lat[m / 2];
		r->step_mean_us = sum / m;
		r->step_p99_us = lat[(m - 1) * 99 / 100];
		r->step_max_us = lat[m - 1];
	}
	free(lat);
}

#define RING(nm, x, ...) FAB_JOB(nm, x, FAB_RING, COLL_K, .ranks = COLL_RANKS, \
				 .chunk = COLL_CHUNK, __VA_ARGS__)
#define RING_L(nm, x, ...) RING(nm, x, .loss_ppm = COLL_LOSS_PPM, __VA_ARGS__)
#define A2A(nm, x, win, ...) FAB_JOB(nm, x, FAB_A2A, COLL_K, .ranks = COLL_A2A_RANKS, \
				     .chunk = COLL_A2A, .window = win, __VA_ARGS__)

enum {
	C_AR, C_AR_L, C_AR_NOPAR, C_AR_RTO, C_AR_RO, C_AR_P2, C_AR_BL, C_AR_BL_L,
	C_AR256, C_AR256_L,
	C_A2A, C_A2A_L, C_A2A_BL, C_A2A_BL_L, C_A2A_ALL,
	C_N,
};

static const struct fab_job coll_jobs[C_N] = {
	[C_AR] = RING("allreduce256, mroce", M),
	[C_AR_L] = RING_L("allreduce256 1 % loss, mroce", M),
	[C_AR_NOPAR] = RING_L("allreduce256 1 % loss, mroce without PARITY", M,
			      .no_parity = true),
	/* levers of detection and resend: without PARITY, which hides them */
	[C_AR_RTO] = RING_L("allreduce256 1 % loss, mroce rto_min 20 us", M,
			    .rto_min_us = 20, .no_parity = true),
	[C_AR_RO] = RING_L("allreduce256 1 % loss, mroce reorder_pkts 1", M,
			   .reorder = 1, .no_parity = true),
	[C_AR_P2] = RING_L("allreduce256 1 % loss, mroce 2 paths reorder_pkts 1", M,
			   .reorder = 1, .npaths = 2, .no_parity = true),
	[C_AR_BL] = RING("allreduce256, rocev2", B),
	[C_AR_BL_L] = RING_L("allreduce256 1 % loss, rocev2", B),
	/* RING() sets the chunk; a second .chunk would be an override-init error */
	[C_AR256] = FAB_JOB("allreduce256 256 KiB, mroce", M, FAB_RING, COLL_K,
			    .ranks = COLL_RANKS, .chunk = 4 * COLL_CHUNK),
	[C_AR256_L] = FAB_JOB("allreduce256 256 KiB 1 % loss, mroce", M, FAB_RING,
			      COLL_K, .ranks = COLL_RANKS, .chunk = 4 * COLL_CHUNK,
			      .loss_ppm = COLL_LOSS_PPM),
	[C_A2A] = A2A("alltoall64, mroce", M, COLL_WIN),
	[C_A2A_L] = A2A("alltoall64 1 % loss, mroce", M, COLL_WIN,
			.loss_ppm = COLL_LOSS_PPM),
	[C_A2A_BL] = A2A("alltoall64, rocev2", B, COLL_WIN),
	[C_A2A_BL_L] = A2A("alltoall64 1 % loss, rocev2", B, COLL_WIN,
			   .loss_ppm = COLL_LOSS_PPM),
	[C_A2A_ALL] = A2A("alltoall64 all at once, mroce", M, 0),
};

/* the chance that a step of @pkts packets across the core loses one */
static double coll_hit(u32 pkts)
{
	double p = 1;
	u32 i;

	for (i = 0; i < pkts * 4; i++)
		p *= 1 - COLL_LOSS_PPM / 1e6;
	return 1 - p;
}

/*
 * The step chain's own cost of loss: the ring's steps as a max-plus
 * recurrence, where a step may start once the one before came in from the
 * previous rank and its own previous step left the host, is received in
 * order after its chunk and path, and a step that lost any of its packets
 * (each with COLL_LOSS_PPM on its 4 switch-switch links) pays exactly one
 * unloaded round trip more: a transport that found and resent every loss
 * at once. p99 over ranks / ideal, the mean of 3 seeds.
 */
static double coll_bound(const struct scen *s, const struct fab_job *j)
{
	u32 n = j->ranks, steps = 2 * (n - 1), r, k, seed, pkts = j->chunk / s->mtu;
	double ser = coll_ser_ns(s, j->chunk), path = coll_path_ns(s), sum = 0;
	double *rx = calloc(n, sizeof(*rx)), *nx = calloc(n, sizeof(*nx));
	double *st = calloc(n, sizeof(*st)), ack, rtt;
	u64 rng, hit = (u64)(coll_hit(pkts) * 4294967296.0);	/* in 2^-32 */

	if (!rx || !nx || !st)
		abort();
	ack = (double)(MRE_ACK_LEN + SIM_WIRE_OVERHEAD) * 8000 / s->tc.host.mbps;
	rtt = path + COLL_CORE_LINKS * (FAB_HOP_NS + ack);
	for (seed = 0; seed < 3; seed++) {
		rng = sim_mix(0xc011ULL + seed);
		memset(rx, 0, n * sizeof(*rx));
		memset(st, 0, n * sizeof(*st));
		for (k = 0; k < steps; k++) {
			for (r = 0; r < n; r++) {
				double go = k ? MRE_MAX(rx[(r + n - 1) % n], st[r] + ser) : 0;
				double x = (mdl_rand(&rng) >> 32) < hit ? rtt : 0;

				nx[r] = MRE_MAX(go + ser + path + x, rx[r]);
				st[r] = go;
			}
			memcpy(rx, nx, n * sizeof(*rx));
		}
		qsort(rx, n, sizeof(*rx), bench_cmp_double);
		sum += rx[(n - 1) * 99 / 100] / (steps * (ser + path));
	}
	free(rx);
	free(nx);
	free(st);
	return sum / 3;
}

static void coll_recovery(const struct fab_res *x, u8 xport, char *b, size_t n)
{
	if (xport == WL_MROCE)
		snprintf(b, n, "%llu / %llu / %llu / %llu", x->loss_fast,
			 x->loss_time, x->loss_tlp, x->loss_rto);
	else
		snprintf(b, n, "%llu NAKs, go-back-N", x->nak);
}

static void coll_row(const struct scen *s, const struct fab_job *j,
		     const struct fab_res *x, FILE *tsv)
{
	double ideal = coll_ideal_us(s, j);
	char rec[64], v[48], paths[16];

	snprintf(paths, sizeof(paths), "%u", j->npaths ? j->npaths : s->cfg.npaths);
	coll_recovery(x, j->xport, rec, sizeof(rec));
	fprintf(tsv, "%s\t%u\t%llu\t%u\t%.1f\t%.1f\t%.1f\t%.1f\t%.3f\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%u\t%u\t%.1f\t%ld\n",
		j->name, j->ranks, j->chunk, j->loss_ppm, x->c_tail_us, x->c_p99_us,
		x->c_med_us, ideal, ideal > 0 ? x->c_p99_us / ideal : 0, x->retx,
		x->data, x->rto, x->loss_fast, x->loss_tlp, x->loss_rto, x->errors,
		x->ranks_done, x->wall_s, x->rss_kb / 1024);
	fprintf(bench_md, "| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | **%.3f** | %.2f %% | %llu | %s | %s | %.1f / %ld |\n",
		j->name, j->xport == WL_MROCE ? paths : "1", j->loss_ppm ? "1 %" : "0",
		x->c_tail_us / 1000, x->c_p99_us / 1000, x->c_med_us / 1000, ideal / 1000,
		ideal > 0 ? x->c_p99_us / ideal : 0,
		x->data ? 100.0 * x->retx / x->data : 0, x->rto, rec,
		x->ok && x->ranks_done == j->ranks ? verdict(x, v, sizeof(v)) :
		"**ranks unfinished**", x->wall_s, x->rss_kb / 1024);
}

void fig_collective(void)
{
	static const u32 ar[] = { C_AR, C_AR_L, C_AR_NOPAR, C_AR_RTO, C_AR_RO,
				  C_AR_P2, C_AR_BL, C_AR_BL_L, C_AR256, C_AR256_L };
	static const u32 a2a[] = { C_A2A, C_A2A_L, C_A2A_BL, C_A2A_BL_L, C_A2A_ALL };
	struct fab_res r[C_N];
	const struct fab_res *l = &r[C_AR_L];
	struct mre_config def;
	double ratio[C_N], bound, bound256;
	struct scen s;
	FILE *f;
	u32 i, conn, pkts = COLL_CHUNK / 4096;

	f = fab_figure(coll_jobs, r, C_N, "collective.tsv",
		       "scenario\tranks\tchunk\tloss_ppm\tlast_us\tp99_us\tmedian_us\tideal_us\tp99_ratio\tretx\tdata\trto\tloss_fast\tloss_tlp\tloss_rto\terrors\tranks_done\twall_s\trss_mib");
	/* the figures' fabric, for the ideal and the bound (not run) */
	fab_scen(&s, &coll_jobs[C_AR]);
	for (i = 0; i < C_N; i++)
		ratio[i] = r[i].c_p99_us / coll_ideal_us(&s, &coll_jobs[i]);
	bound = coll_bound(&s, &coll_jobs[C_AR]);
	bound256 = coll_bound(&s, &coll_jobs[C_AR256]);
	mre_config_default(&def);
	conn = (u32)sizeof(struct mre_conn) + mre_conn_mem_size(&def);
	fprintf(bench_md, "## Collectives under loss\n\n"
		"A k = %u fat tree (%u hosts, the fat-tree figure's links, 43-packet buffers and "
		"ECN), one rank per host, ranks dealt round-robin over the %u pods (rank r on host "
		"(r mod %u) * %u + r / %u), so that each ring neighbour is in another pod and "
		"every ring hop crosses the core (6 links, 4 of them switch-switch). Loss: %.4f %% "
		"on every switch-switch link in both directions (data and ACKs), i.e. 1.00 %% for a "
		"packet across the core, from the collective's start: connections are set up "
		"first, lossless (a lost RETRY or ACCEPT cost a ring's first step the CONNECT "
		"timer, 1 ms, before); the collective starts at "
		"%.0f us and a rank's time counts from there. The MetaRoCE default: %u paths, "
		"rto_min %llu us, reorder_pkts %u.\n\n"
		"Ring all-reduce of M = N x chunk over N = %u ranks: 2 (N - 1) = %u steps; in step "
		"s rank r sends a chunk to rank r + 1 and may send step s + 1 once it has "
		"received step s from rank r - 1 (its own step s need not be acknowledged). A "
		"step is one WRITE; MetaRoCE puts an immediate on it and the receive completion "
		"marks the step in (the engine completes it once every byte before it on the "
		"stream was placed); RoCEv2 places in order, so its placed bytes say it. A rank is "
		"done when its last chunk came in; no compute. Ideal (non-blocking fabric, no "
		"loss) = 2 (N - 1) x (chunk / 4,096 packets x %u B at the host's line rate + the "
		"last packet's unloaded path: 6 x 1 us + 5 store-and-forward serialisations) = %u x "
		"%.2f us = %.2f ms for 64 KiB chunks.\n\n"
		"All-to-all over N = %u ranks (%u KiB to each other rank): rank r sends to r + 1, "
		"r + 2, ... in that order, %u destinations at a time (the WRITE to r + i starts "
		"when the one to r + i - %u has completed at the sender), so the ranks send a "
		"shifted permutation instead of all to the same rank first; the last row posts "
		"all %u at once. A rank is done at its last send completion. Ideal = (N - 1) x "
		"%u KiB at line rate (packets as above) + one unloaded round trip across the core = "
		"%.2f ms. %u ranks, not %u: every pair holds a MetaRoCE connection (%u bytes) and "
		"a model QP at each end (%zu bytes each, zeroed), %.0f GB at %u ranks.\n\n"
		"p99 and median are over the ranks' completion times; retransmitted = of the data "
		"packets sent; losses found = MetaRoCE's losses declared by SACK (reorder_pkts "
		"later packets on the same path) / by send time (a packet sent later, on any "
		"path, arrived) / by a tail probe / by a retransmission timeout. "
		"Wall time and peak memory are this machine's, one run at a time.\n\n"
		"| run | paths | loss | last rank ms | p99 ms | median ms | ideal ms | p99 / ideal | "
		"retransmitted | RTOs | losses found: SACK / time / TLP / RTO | verdict | wall s / MiB |\n"
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
		COLL_K, COLL_K * COLL_K * COLL_K / 4, COLL_K, COLL_K, COLL_K * COLL_K / 4,
		COLL_K, 100.0 * COLL_LOSS_PPM / 1e6, FAB_START_NS / 1000.0, def.npaths,
		def.rto_min_ns / 1000, def.reorder_pkts, COLL_RANKS, 2 * (COLL_RANKS - 1),
		FAB_PKT_WIRE, 2 * (COLL_RANKS - 1), coll_step_ns(&s, &coll_jobs[C_AR]) / 1000,
		coll_ideal_us(&s, &coll_jobs[C_AR]) / 1000, COLL_A2A_RANKS, COLL_A2A >> 10,
		COLL_WIN, COLL_WIN, COLL_A2A_RANKS - 1, COLL_A2A >> 10,
		coll_ideal_us(&s, &coll_jobs[C_A2A]) / 1000,
		COLL_A2A_RANKS, COLL_RANKS, conn, sizeof(struct mdl_qp),
		(double)COLL_RANKS * (COLL_RANKS - 1) * (conn + 2 * sizeof(struct mdl_qp)) / 1e9,
		COLL_RANKS);
	for (i = 0; i < MRE_ARRAY_SIZE(ar); i++)
		coll_row(&s, &coll_jobs[ar[i]], &r[ar[i]], f);
	fprintf(bench_md, "| any transport that resends every loss in one round trip "
		"(model, below), 64 KiB | | 1 %% | | | | | **%.3f** | | | | | |\n"
		"| the same, 256 KiB | | 1 %% | | | | | **%.3f** | | | | | |\n",
		bound, bound256);
	for (i = 0; i < MRE_ARRAY_SIZE(a2a); i++)
		coll_row(&s, &coll_jobs[a2a[i]], &r[a2a[i]], f);
	fclose(f);
	bench_fig("coll_allreduce_lossless_vs_ideal", ratio[C_AR]);
	bench_fig("coll_allreduce_1pct_vs_ideal", ratio[C_AR_L]);
	bench_fig("coll_allreduce_1pct_rocev2_vs_ideal", ratio[C_AR_BL_L]);
	bench_fig("coll_allreduce_1pct_bound", bound);
	bench_fig("coll_alltoall_1pct_vs_ideal", ratio[C_A2A_L]);
	fprintf(bench_md, "\nGoal: all-reduce p99 <= 1.3x ideal at 1 %% loss (%s: %.3f; "
		"lossless %.3f; RoCEv2 %.3f at 1 %%, %.3f lossless). All-to-all at 1 %%: %.3f "
		"(RoCEv2 %.3f).\n\n",
		bench_met(ratio[C_AR_L] <= 1.3), ratio[C_AR_L], ratio[C_AR],
		ratio[C_AR_BL_L], ratio[C_AR_BL], ratio[C_A2A_L], ratio[C_A2A_BL_L]);
	fprintf(bench_md, "What limits it. Steps of the 1 %% all-reduce (from a step's WRITE "
		"posted to its receipt, ideal %.2f us): median %.2f us, mean %.2f, p99 %.2f, "
		"longest %.0f; %u of %u within 2 us of ideal, %u over twice it, %u completed "
		"together with the step before (held in order behind its loss). Every rank's time "
		"is a chain of its %u steps, each waiting for the previous rank's, so a step "
		"delayed anywhere delays every rank after it, and the slowest rank collects the "
		"slowest of many such chains: the ranks end within %.1f %% of each other, and the "
		"collective takes about %u x the mean step (%.2f ms; measured %.2f).\n\n"
		"(1) The chain alone takes the goal's margin. A chunk of %u packets crossing 4 "
		"lossy links loses one with %.1f %% probability; the model row above gives every "
		"such step exactly one unloaded round trip more (a transport that finds and "
		"resends each loss at once) and nothing else, and gets %.3fx against the goal's "
		"1.3: a recovery slower than one round trip cannot meet it, and larger chunks do "
		"not help (at 256 KiB the chance is %.1f %%: %.3fx in the model, %.3fx "
		"measured).\n\n"
		"(2) MetaRoCE takes more than a round trip. A chunk is sprayed over %u paths, "
		"2 packets each, so FACK (reorder_pkts, %u, later packets of the same path "
		"acknowledged) rarely sees a loss within its step; a loss is found by send time "
		"instead (loss.c, protocol.md 6.3): once a packet sent after it on any path has "
		"arrived, that packet's round trip plus the paths' SRTT difference plus a "
		"reordering window (a quarter of the least RTT) after it left. Of %llu losses "
		"found, %llu were by send time, %llu by SACK, %llu by tail probe, %llu by "
		"timeout (%llu RTOs); %llu resends proved unnecessary. A lossy "
		"step still costs that round trip as measured under load, the window and the "
		"resend's way, against the model's one unloaded round trip. Measured, one lever "
		"at a time, without PARITY (%.3fx): rto_min 20 us %.3fx, reorder_pkts 1 %.3fx, "
		"reorder_pkts 1 with 2 paths (8 packets a path a step) %.3fx. (The loss counts "
		"above are of the run with PARITY, whose rebuilt packets are no loss to their "
		"sender.)\n\n"
		"(3) PARITY (protocol.md 6.7) takes the round trip out. While a connection loses "
		"packets (from its first window of 512 that lost 0.2 %%), each step's WRITE is "
		"followed by the XOR of its %u packets, and the receiver rebuilds the one it lacks "
		"from it and from what it placed. At 1 %%: %llu PARITY sent, %llu packets rebuilt "
		"(lost, or only late: such a packet then comes as a duplicate), %llu found nothing "
		"missing, %llu two or more; %.3fx against %.3fx without. A step that lost two "
		"packets, or one and its PARITY, still waits for the resends, as do a "
		"connection's steps before its first window showed the loss; the cost is one "
		"packet in 17 while it lasts (lossless: %llu PARITY, after losses to "
		"reordering).\n\n"
		"(4) Lossless, MetaRoCE is at %.3fx: its median step %.2f us over ideal, its "
		"p99 %.2f, queueing where the paths of different ranks' flows share links "
		"(ECMP). With 256 KiB chunks the bursts are four times longer and meet more: "
		"%llu window cuts on ECN marks, a p99 step of %.0f us, %.3fx lossless. RoCEv2, "
		"one path per QP, collides more (%.3fx lossless) and at 1 %% its go-back-N "
		"resends the rest of each step after a loss (%.2f %% retransmitted).\n\n"
		"All-to-all (no goal set; not analysed further): staggered, %.3fx lossless "
		"(%llu drops) and %.3fx at 1 %%. Posted all at once, every host serves its "
		"connections in the same order (ascending peer), so all ranks send to the same "
		"rank at the same moment: %llu drops and %.3fx lossless, which is why the "
		"figure staggers.\n\n",
		coll_step_ns(&s, &coll_jobs[C_AR]) / 1000, l->step_med_us, l->step_mean_us,
		l->step_p99_us, l->step_max_us, l->excess[0], l->steps, l->slow_steps, l->held,
		2 * (COLL_RANKS - 1),
		l->c_tail_us > 0 ? 100.0 * (l->c_tail_us - l->c_min_us) / l->c_tail_us : 0,
		2 * (COLL_RANKS - 1), 2 * (COLL_RANKS - 1) * l->step_mean_us / 1000,
		l->c_tail_us / 1000, pkts, 100 * coll_hit(pkts), bound,
		100 * coll_hit(4 * pkts), bound256, ratio[C_AR256_L], def.npaths,
		def.reorder_pkts,
		l->loss_fast + l->loss_time + l->loss_tlp + l->loss_rto, l->loss_time,
		l->loss_fast, l->loss_tlp, l->loss_rto, l->rto, l->loss_late,
		ratio[C_AR_NOPAR], ratio[C_AR_RTO], ratio[C_AR_RO], ratio[C_AR_P2],
		MRE_MIN(def.parity_pkts, pkts), l->par.tx, l->par.rebuilt,
		l->par.unused, l->par.short_of, ratio[C_AR_L], ratio[C_AR_NOPAR],
		r[C_AR].par.tx,
		ratio[C_AR], r[C_AR].step_med_us - coll_step_ns(&s, &coll_jobs[C_AR]) / 1000,
		r[C_AR].step_p99_us - coll_step_ns(&s, &coll_jobs[C_AR]) / 1000,
		r[C_AR256].ecn_cut, r[C_AR256].step_p99_us, ratio[C_AR256], ratio[C_AR_BL],
		r[C_AR_BL_L].data ? 100.0 * r[C_AR_BL_L].retx / r[C_AR_BL_L].data : 0,
		ratio[C_A2A], r[C_A2A].drops, ratio[C_A2A_L], r[C_A2A_ALL].drops,
		ratio[C_A2A_ALL]);
	free(s.flows);		/* built, never run: nothing else to free */
}

/* --- one of them, on its own ------------------------------------------------------ */

static const struct fab_job *fab_find(const char *name)
{
	u32 i;

	for (i = 0; i < J_N; i++)
		if (!strcmp(fat_jobs[i].name, name))
			return &fat_jobs[i];
	for (i = 0; i < MRE_ARRAY_SIZE(scale_jobs); i++)
		if (!strcmp(scale_jobs[i].name, name))
			return &scale_jobs[i];
	for (i = 0; i < T_N; i++)
		if (!strcmp(bell_jobs[i].name, name))
			return &bell_jobs[i];
	for (i = 0; i < P_N; i++)
		if (!strcmp(plane_jobs[i].name, name))
			return &plane_jobs[i];
	for (i = 0; i < C_N; i++)
		if (!strcmp(coll_jobs[i].name, name))
			return &coll_jobs[i];
	return NULL;
}

int sim_fab_main(int argc, char **argv)
{
	const struct fab_job *j = argc == 1 ? fab_find(argv[0]) : NULL;
	struct fab_res r = { .ok = true };
	struct scen s;
	u32 i;

	if (!j) {
		fprintf(stderr, "usage: mroce-sim fab NAME, one of:\n");
		for (i = 0; i < J_N; i++)
			fprintf(stderr, "  \"%s\"\n", fat_jobs[i].name);
		for (i = 0; i < MRE_ARRAY_SIZE(scale_jobs); i++)
			fprintf(stderr, "  \"%s\"\n", scale_jobs[i].name);
		for (i = 0; i < T_N; i++)
			fprintf(stderr, "  \"%s\"\n", bell_jobs[i].name);
		for (i = 0; i < P_N; i++)
			fprintf(stderr, "  \"%s\"\n", plane_jobs[i].name);
		for (i = 0; i < C_N; i++)
			fprintf(stderr, "  \"%s\"\n", coll_jobs[i].name);
		return 2;
	}
	fab_scen(&s, j);
	if (scen_run(&s))
		return 1;
	fab_measure(&s, j, &r);
	rep_summary(stdout, j->name, &s);
	printf("  flows %u done %u FCT tail %.1f p99 %.1f median %.1f first %.1f us, drops %llu\n",
	       r.nflows, r.done, r.tail_us, r.p99_us, r.med_us, r.min_us, r.drops);
	if (j->plane_down)
		printf("  plane down: %.1f Gbit/s before, lowest %.1f, back after %.0f us, lost %llu twice %llu\n",
		       r.pl_before, r.pl_dip, r.pl_rec_us, r.missing, r.twice);
	if (j->pattern == FAB_PAIRS || j->pattern == FAB_MULTI)
		printf("  open-ended: %.2f Gbit/s, Jain %.3f, flows %.2f-%.2f Gbit/s\n",
		       r.open_gbps, r.jain, r.flow_lo, r.flow_hi);
	if (j->pattern == FAB_RING || j->pattern == FAB_A2A)
		printf("  collective: ranks done %u of %u, last %.1f p99 %.1f median %.1f first %.1f us, ideal %.1f (p99 %.3fx)\n"
		       "  steps %u: median %.2f mean %.2f p99 %.2f max %.2f us, ideal %.2f; over 2x %u (%.1f us beyond ideal)\n"
		       "  loss_fast %llu loss_tlp %llu loss_rto %llu loss_silent %llu loss_late %llu tx_tlp %llu rto %llu nak %llu errors %u\n"
		       "  loss_time %llu spurious_retx %llu retx %llu of %llu\n"
		       "  steps beyond ideal: <2 us %u, <10 %u, <30 %u, <60 %u, <120 %u, more %u; held behind the one before %u\n",
		       r.ranks_done, j->ranks, r.c_tail_us, r.c_p99_us, r.c_med_us, r.c_min_us,
		       coll_ideal_us(&s, j), r.c_p99_us / coll_ideal_us(&s, j),
		       r.steps, r.step_med_us, r.step_mean_us, r.step_p99_us, r.step_max_us,
		       coll_step_ns(&s, j) / 1000, r.slow_steps, r.slow_extra_us,
		       r.loss_fast, r.loss_tlp, r.loss_rto, r.loss_silent, r.loss_late,
		       r.tx_tlp, r.rto, r.nak, r.errors, r.loss_time,
		       r.spurious, r.retx, r.data, r.excess[0], r.excess[1],
		       r.excess[2], r.excess[3], r.excess[4], r.excess[5], r.held);
	scen_free(&s);
	return 0;
}
