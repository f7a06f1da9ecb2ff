// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bench-sim's fat-tree figures: permutations, a failed link,
 * oversubscription and a 1,024-to-1 incast at datacenter scale, next to
 * UEC's published htsim figures, and the simulator's own speed and memory
 * at each size.
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
		s->spine_loss_ppm = j->loss_ppm;
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
	} else {
		struct bl_counters c;

		scen_bl_counters(s, &c);
		r->data = c.tx_data;
		r->retx = c.tx_retx;
		r->rto = c.rto;
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
		    v.bytes_corrupt + v.guard_touched;
	r->missing = v.bytes_missing;
	r->twice = v.bytes_twice;
	r->events = s->sim.nev;
	if ((j->pattern == FAB_PAIRS || j->pattern == FAB_MULTI) && s->nsamp)
		open_measure(s, r, j->from_ns ? j->from_ns : FAB_BELL_FROM);
	if (j->plane_down && s->nsamp)
		plane_measure(s, r);
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
	scen_free(&s);
	return 0;
}
