// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bench-sim: the benchmark figures, MetaRoCE beside the RoCEv2 baseline.
 *
 *	mroce-sim bench DIR [--rto-min-us N] [loss|blackhole|reorder|incast|streams|
 *	                    fattree|taildrop|planes|collective|scale...]
 *
 * --rto-min-us overrides the engine's rto_min_ns in every MetaRoCE run (and
 * the baseline's, which mirrors it): a sensitivity study, not the default.
 *
 * Each figure writes its data as TSV into DIR (one file per plot), a
 * section of DIR/summary.md (the figure, its goal, the baseline, and how
 * each number was computed) and its headline numbers as "name<TAB>value"
 * lines in DIR/figures.tsv (for tables across runs). Figures are measured, never timed: simulated
 * time only, fixed seeds, so a rerun gives the same numbers.
 * scripts/bench-sim.sh plots the TSV with gnuplot and assembles README.md.
 */
#include "report.h"
#include "simcli.h"
#include "bench.h"
#include <stdlib.h>
#include <string.h>

#define NSEEDS 3
#define BH_SEEDS 5

FILE *bench_md;
static FILE *figs_tsv;
static const char *outdir;
static u64 rto_min_ns;		/* 0: the engine's default */

void bench_tune(struct scen *s)
{
	if (rto_min_ns)
		s->cfg.rto_min_ns = rto_min_ns;
}

FILE *bench_tsv(const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	return f;
}

static void parallel(struct scen *s, u8 xport, u64 bytes, u64 seed)
{
	scen_defaults(s);
	s->xport = xport;
	s->seed = seed;
	bench_tune(s);
	scen_flow(s, 0, 1, bytes, 0);
}

static void must_run(struct scen *s)
{
	if (scen_run(s)) {
		fprintf(stderr, "engine refused the configuration\n");
		exit(1);
	}
}

void bench_fig(const char *name, double v)
{
	fprintf(figs_tsv, "%s\t%.3f\n", name, v);
}

static double pct(u64 a, u64 b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

const char *bench_met(bool ok)
{
	return ok ? "met" : "**missed**";
}

int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, u32 n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* --- goodput vs random loss ------------------------------------------------ */

struct loss_pt {
	double gbps;
	double retx_pct;
};

static struct loss_pt loss_run(u8 xport, u32 ppm, u64 seed)
{
	struct loss_pt r;
	struct scen s;

	parallel(&s, xport, 32 << 20, seed);
	s.spine_loss_ppm = ppm;
	s.t_end = 20000000;
	must_run(&s);
	r.gbps = rep_goodput(&s);
	if (xport == WL_MROCE) {
		struct mre_counters c;

		scen_counters(&s, &c);
		r.retx_pct = pct(c.tx_retx, c.tx_data);
	} else {
		struct bl_counters c;

		scen_bl_counters(&s, &c);
		r.retx_pct = pct(c.tx_retx, c.tx_data);
	}
	scen_free(&s);
	return r;
}

static void fig_loss(void)
{
	static const u32 ppm[] = { 0, 1000, 10000, 50000, 100000 };
	double g[2][5] = { { 0 } }, rx[2][5] = { { 0 } };
	FILE *f = bench_tsv("loss.tsv");
	u32 i, x, k;

	fprintf(f, "loss_pct\te2e_pct\tmroce_gbps\tmroce_ratio\tmroce_retx_pct\trocev2_gbps\trocev2_ratio\trocev2_retx_pct\n");
	for (i = 0; i < 5; i++) {
		for (x = 0; x < 2; x++) {
			for (k = 0; k < NSEEDS; k++) {
				struct loss_pt p = loss_run(x ? WL_ROCEV2 : WL_MROCE,
							    ppm[i], k + 1);

				g[x][i] += p.gbps / NSEEDS;
				rx[x][i] += p.retx_pct / NSEEDS;
			}
		}
		fprintf(f, "%g\t%.2f\t%.2f\t%.3f\t%.2f\t%.2f\t%.3f\t%.2f\n",
			ppm[i] / 1e4, 100 * (1 - (1 - ppm[i] / 1e6) * (1 - ppm[i] / 1e6)),
			g[0][i], g[0][i] / g[0][0], rx[0][i],
			g[1][i], g[1][i] / g[1][0], rx[1][i]);
	}
	fclose(f);
	fprintf(bench_md, "## Goodput vs random loss\n\n"
		"Two hosts, 8 spines (8 paths for MetaRoCE; the baseline is one QP, so one path), "
		"32 MiB WRITE (or 20 ms if slower), loss on every spine link in both directions "
		"(a packet crosses two: end-to-end loss 1-(1-p)^2, ACKs too). Mean of %u seeds. "
		"Ratio = goodput / the same transport's lossless goodput.\n\n"
		"| loss per link | MetaRoCE Gbit/s | ratio | retx %% | RoCEv2 Gbit/s | ratio | retx %% |\n"
		"|---|---|---|---|---|---|---|\n", NSEEDS);
	for (i = 0; i < 5; i++)
		fprintf(bench_md, "| %g %% | %.1f | %.3f | %.2f | %.1f | %.3f | %.2f |\n",
			ppm[i] / 1e4, g[0][i], g[0][i] / g[0][0], rx[0][i],
			g[1][i], g[1][i] / g[1][0], rx[1][i]);
	bench_fig("loss_ratio_1pct", g[0][2] / g[0][0]);
	bench_fig("loss_ratio_5pct", g[0][3] / g[0][0]);
	bench_fig("loss_ratio_10pct", g[0][4] / g[0][0]);
	fprintf(bench_md, "\nGoal: >= 0.90 of lossless at 1 %% (%s: %.3f), >= 0.50 at 10 %% (%s: %.3f); "
		"Meta reports ~0.86 at 1 %%. Baseline at 1 %%: %.3f, at 10 %%: %.3f.\n\n"
		"![goodput vs loss](loss.png)\n\n",
		bench_met(g[0][2] / g[0][0] >= 0.9), g[0][2] / g[0][0],
		bench_met(g[0][4] / g[0][0] >= 0.5), g[0][4] / g[0][0],
		g[1][2] / g[1][0], g[1][4] / g[1][0]);
}

/* --- a spine black-holed mid-transfer ------------------------------------------ */

#define BH_AT 1000000ULL	/* ns */
#define BH_END 2500000ULL
#define BH_SAMPLE 1000ULL
#define BH_WIN 10		/* samples: 10 us, about one RTT */
#define BH_HOLD 100		/* samples a recovery must last */

struct bh_res {
	double g0;		/* goodput before, Gbit/s */
	double dip;		/* lowest windowed goodput after */
	double rec7_us;		/* back to >= 85 % of 7/8 of g0 (-1: never) */
	double rec_us;		/* back to >= 85 % of g0 (-1: never) */
	double gate_us;		/* completion gate stalled (-1: n/a) */
	double share;
	u32 spine;
};

static u32 sample_at(const struct scen *s, u64 t)
{
	u32 i;

	for (i = 0; i < s->nsamp; i++)
		if (s->st[i] >= t)
			return i;
	return s->nsamp - 1;
}

/* from the fault, how long until the windowed goodput holds >= @thr */
static double recovery_us(const struct scen *s, double thr)
{
	u32 i, j, a = sample_at(s, BH_AT);

	for (i = a; i + BH_HOLD < s->nsamp; i++) {
		for (j = i; j < i + BH_HOLD; j++)
			if (rep_window_gbps(s, j, BH_WIN) < thr)
				break;
		if (j == i + BH_HOLD)
			return (double)(s->st[i] - BH_AT) / 1000.0;
	}
	return -1;
}

static struct bh_res bh_run(u8 xport, u32 streams, u64 seed, FILE *series)
{
	struct bh_res r = { 0 };
	struct scen s;
	u32 i, a, b;

	parallel(&s, xport, 0, seed);
	s.streams = streams;
	s.t_end = BH_END;
	s.sample_ns = BH_SAMPLE;
	scen_fault(&s, BH_AT, SCEN_SPINE_BLACKHOLE, SCEN_BUSIEST, 0);
	must_run(&s);
	a = sample_at(&s, BH_AT / 2);
	b = sample_at(&s, BH_AT);
	r.g0 = rep_window_gbps(&s, b, b - a);
	r.dip = r.g0;
	for (i = b + 1; i < s.nsamp && s.st[i] < BH_AT + 300000; i++)
		r.dip = MRE_MIN(r.dip, rep_window_gbps(&s, i, BH_WIN));
	r.rec7_us = recovery_us(&s, 0.85 * 7 / 8 * r.g0);
	r.rec_us = recovery_us(&s, 0.85 * r.g0);
	r.gate_us = s.gate_at ? (double)(s.gate_at - BH_AT) / 1000.0 : -1;
	r.share = s.bh_share;
	r.spine = s.blackholed;
	for (i = 1; series && i < s.nsamp; i++)
		fprintf(series, "%.1f\t%.3f\n", s.st[i] / 1000.0,
			rep_window_gbps(&s, i, BH_WIN));
	scen_free(&s);
	return r;
}

static void bh_series(const char *name, u8 xport, u32 streams)
{
	FILE *f = bench_tsv(name);

	fprintf(f, "time_us\tgbps\n");
	bh_run(xport, streams, 1, f);
	fclose(f);
}

static void fmt_us(char *b, size_t n, double us, u64 rtt)
{
	if (us < 0)
		snprintf(b, n, "never");
	else
		snprintf(b, n, "%.0f us (%.1f RTT)", us, us * 1000 / (double)rtt);
}

static void fig_blackhole(void)
{
	double rec7[BH_SEEDS], rec[BH_SEEDS], gate[BH_SEEDS];
	struct bh_res bl1, bl8;
	struct scen d;
	FILE *f = bench_tsv("blackhole_seeds.tsv");
	char a[64], b[64], c[64];
	u64 rtt;
	u32 k;

	parallel(&d, WL_MROCE, 0, 1);
	rtt = rep_base_rtt(&d);
	fprintf(f, "seed\tspine\tshare\tg0_gbps\tdip_gbps\trec_7of8_us\trec_full_us\tgate_stall_us\n");
	fprintf(bench_md, "## One spine of 8 black-holed mid-transfer\n\n"
		"Two hosts, 8 spines, one unending WRITE stream; at t = 1 ms the spine that had "
		"carried the most packets (plane 0) starts dropping everything, silently (routing "
		"does not know). Goodput is placed bytes over a sliding 10 us window (about one "
		"unloaded RTT, %.1f us), sampled every 1 us. Recovery = time from the failure "
		"until that goodput is back at or above the threshold and stays there for 100 us; "
		"the brief's threshold is 85 %% of what 7 of 8 paths carried before (0.85 * 7/8 * "
		"g0), the stricter one 85 %% of g0. Gate stall = time until the receiver's "
		"completion gate passed every TSN sent before the failure (completions wait that "
		"long).\n\n"
		"| seed | spine (share of packets) | g0 Gbit/s | dip | recovery 7/8 | recovery full | gate stall |\n"
		"|---|---|---|---|---|---|---|\n", rtt / 1000.0);
	for (k = 0; k < BH_SEEDS; k++) {
		struct bh_res r = bh_run(WL_MROCE, 1, k + 1, NULL);

		rec7[k] = r.rec7_us < 0 ? 1e9 : r.rec7_us;
		rec[k] = r.rec_us < 0 ? 1e9 : r.rec_us;
		gate[k] = r.gate_us < 0 ? 1e9 : r.gate_us;
		fprintf(f, "%u\t%u\t%.3f\t%.2f\t%.2f\t%.1f\t%.1f\t%.1f\n", k + 1,
			r.spine, r.share, r.g0, r.dip, r.rec7_us, r.rec_us, r.gate_us);
		fmt_us(a, sizeof(a), r.rec7_us, rtt);
		fmt_us(b, sizeof(b), r.rec_us, rtt);
		fmt_us(c, sizeof(c), r.gate_us, rtt);
		fprintf(bench_md, "| %u | %u (%.0f %%) | %.1f | %.1f | %s | %s | %s |\n", k + 1,
			r.spine, 100 * r.share, r.g0, r.dip, a, b, c);
	}
	fclose(f);
	bl1 = bh_run(WL_ROCEV2, 1, 1, NULL);
	bl8 = bh_run(WL_ROCEV2, 8, 1, NULL);
	bh_series("blackhole_mroce.tsv", WL_MROCE, 1);
	bh_series("blackhole_rocev2_1qp.tsv", WL_ROCEV2, 1);
	bh_series("blackhole_rocev2_8qp.tsv", WL_ROCEV2, 8);
	bench_fig("blackhole_recovery_7of8_rtt", median(rec7, BH_SEEDS) * 1000 / rtt);
	bench_fig("blackhole_recovery_full_rtt", median(rec, BH_SEEDS) * 1000 / rtt);
	bench_fig("blackhole_gate_stall_rtt", median(gate, BH_SEEDS) * 1000 / rtt);
	fmt_us(a, sizeof(a), median(rec7, BH_SEEDS), rtt);
	fmt_us(b, sizeof(b), median(rec, BH_SEEDS), rtt);
	fmt_us(c, sizeof(c), median(gate, BH_SEEDS), rtt);
	fprintf(bench_md, "\nMedian over %u seeds: recovery (7/8) %s, full %s, gate stall %s. "
		"Goal: <= 3 RTTs (%s for the brief's threshold).\n\n",
		BH_SEEDS, a, b, c, bench_met(median(rec7, BH_SEEDS) * 1000 <= 3.0 * rtt));
	fmt_us(a, sizeof(a), bl1.rec7_us, rtt);
	fmt_us(b, sizeof(b), bl8.rec7_us, rtt);
	fmt_us(c, sizeof(c), bl8.rec_us, rtt);
	fprintf(bench_md, "Baseline (seed 1): one QP (%.1f Gbit/s before, lowest after %.1f): recovery %s; "
		"its source port is fixed, so it stays on the dead spine until its retries run out. "
		"Eight QPs, one port each (%.1f Gbit/s before, lowest %.1f): recovery (7/8) %s, full %s; "
		"the QPs hashed onto the dead spine never complete.\n\n"
		"![goodput around a black hole](blackhole.png)\n\n",
		bl1.g0, bl1.dip, a, bl8.g0, bl8.dip, b, c);
}

/* --- pure reordering: paths of different lengths, no loss ---------------------- */

static void fig_reorder(void)
{
	static const u64 skew[] = { 0, 500, 1000, 2000, 4000 };
	FILE *f = bench_tsv("reorder.tsv");
	struct scen d;
	u32 i, k;

	parallel(&d, WL_MROCE, 0, 1);
	fprintf(f, "skew_ns\tmax_rtt_us\tspurious_pct\tretx\tdata\trto\tgbps\n");
	fprintf(bench_md, "## Paths of different lengths, no loss: spurious retransmissions\n\n"
		"Two hosts, 8 spines; spine i's links are i * skew longer each way, so path RTTs "
		"range from %.1f us up to %.1f us + 28 * skew. Nothing is lost and each path keeps "
		"its order, so every retransmission is spurious. 32 MiB, %u seeds summed. The "
		"baseline sends each QP on one path: it sees no reordering here by construction "
		"(0 spurious; its weakness is the single path, not reordering).\n\n"
		"| skew per spine | slowest path RTT | spurious retx / data packets | RTOs | goodput |\n"
		"|---|---|---|---|---|\n", rep_base_rtt(&d) / 1000.0, rep_base_rtt(&d) / 1000.0,
		NSEEDS);
	for (i = 0; i < MRE_ARRAY_SIZE(skew); i++) {
		u64 retx = 0, data = 0, rto = 0;
		double g = 0, rtt = (rep_base_rtt(&d) + 28 * skew[i]) / 1000.0;
		double sp;

		for (k = 0; k < NSEEDS; k++) {
			struct mre_counters c;
			struct scen s;

			parallel(&s, WL_MROCE, 32 << 20, k + 1);
			s.spine_skew_ns = skew[i];
			must_run(&s);
			scen_counters(&s, &c);
			retx += c.tx_retx;
			data += c.tx_data;
			rto += c.rto;
			g += rep_goodput(&s) / NSEEDS;
			scen_free(&s);
		}
		sp = pct(retx, data);
		if (skew[i] == 2000 || skew[i] == 4000) {
			char n[64];

			snprintf(n, sizeof(n), "reorder_spurious_pct_skew%llu", skew[i]);
			bench_fig(n, sp);
		}
		fprintf(f, "%llu\t%.1f\t%.3f\t%llu\t%llu\t%llu\t%.2f\n", skew[i], rtt,
			sp, retx, data, rto, g);
		fprintf(bench_md, "| %.1f us | %.1f us | %.3f %% (%llu / %llu) %s | %llu | %.1f Gbit/s |\n",
			skew[i] / 1000.0, rtt, sp, retx, data,
			sp < 1 ? "" : "**goal missed**", rto, g);
	}
	fclose(f);
	fprintf(bench_md, "\nGoal: < 1 %% of packets.\n\n![spurious retransmissions](reorder.png)\n\n");
}

/* --- 16:1 incast --------------------------------------------------------------- */

#define IN_N 16
#define IN_SAMPLE 2000ULL
#define IN_WIN 25		/* samples: 50 us */

static double jain(const struct scen *s, u32 i)
{
	double sum = 0, sq = 0;
	u32 f;

	for (f = 0; f < s->nflows; f++) {
		double x = rep_flow_window_gbps(s, f, i, IN_WIN);

		sum += x;
		sq += x * x;
	}
	return sq > 0 ? sum * sum / (s->nflows * sq) : 0;
}

/* the first time after which Jain's index of 50 us rates stays >= 0.9 for 200 us */
static double fair_us(const struct scen *s)
{
	u32 i, j, hold = 200000 / IN_SAMPLE;

	for (i = IN_WIN; i + hold < s->nsamp; i++) {
		for (j = i; j < i + hold; j++)
			if (jain(s, j) < 0.9)
				break;
		if (j == i + hold)
			return s->st[i] / 1000.0;
	}
	return -1;
}

/* when the first flow completed */
static u64 first_done(const struct scen *s)
{
	u64 t = s->end_ns;
	u32 f;

	for (f = 0; f < s->wl.nflows; f++)
		if (s->wl.flows[f].done_ns)
			t = MRE_MIN(t, s->wl.flows[f].done_ns);
	return t;
}

/* the first time every sender paces within 10 % of the fair share, for good */
static double hint_us(const struct scen *s, double share_mbps)
{
	u32 i, f, last_bad = 0;

	for (i = 0; i < s->nsamp; i++) {
		bool bad = false;

		if (s->st[i] + 50000 >= first_done(s))
			break;		/* flows finishing change the share */
		for (f = 0; f < s->nflows; f++) {
			double r = s->sr[(size_t)i * s->nflows + f];

			bad |= r < 0.9 * share_mbps || r > 1.1 * share_mbps;
		}
		if (bad)
			last_bad = i;
	}
	return last_bad + 1 < s->nsamp ? s->st[last_bad + 1] / 1000.0 : -1;
}

static u64 above_us(const struct scen *s, u64 bytes)
{
	u64 t = 0;
	u32 i;

	for (i = 1; i < s->nsamp; i++)
		if (s->sq[i] > bytes)
			t += s->st[i] - s->st[i - 1];
	return t / 1000;
}

struct in_res {
	double fair, hint, gbps, up;
	u64 peak, drops, above;
};

static struct in_res in_run(u8 xport, bool hints, const char *series)
{
	struct in_res r;
	struct scen s;
	u32 i, f;

	scen_defaults(&s);
	s.shape = SCEN_INCAST;
	s.nsend = IN_N;
	s.nleaves = 2;
	s.nspines = 4;
	s.xport = xport;
	s.no_hints = !hints;
	s.sample_ns = IN_SAMPLE;
	bench_tune(&s);
	for (i = 0; i < IN_N; i++)
		scen_flow(&s, i, IN_N, 4 << 20, 0);
	must_run(&s);
	r.fair = fair_us(&s);
	r.hint = hints && xport == WL_MROCE ?
		 hint_us(&s, s.cfg.link_mbps * s.cfg.hint_pct / 100.0 / IN_N) : -1;
	r.gbps = rep_goodput(&s);
	r.up = s.up_ns / 1000.0;
	r.peak = s.topo.rx_port[IN_N][0]->peak;
	r.drops = s.topo.rx_port[IN_N][0]->drop_full;
	r.above = above_us(&s, s.tc.host.ecn_k);
	if (series) {
		FILE *t = bench_tsv(series);

		fprintf(t, "time_us\tqueue_kb\tjain");
		for (f = 0; f < s.nflows; f++)
			fprintf(t, "\tflow%u_gbps", f);
		fprintf(t, "\n");
		for (i = IN_WIN; i < s.nsamp; i++) {
			fprintf(t, "%.1f\t%.1f\t%.3f", s.st[i] / 1000.0,
				s.sq[i] / 1024.0, jain(&s, i));
			for (f = 0; f < s.nflows; f++)
				fprintf(t, "\t%.3f", rep_flow_window_gbps(&s, f, i, IN_WIN));
			fprintf(t, "\n");
		}
		fclose(t);
	}
	scen_free(&s);
	return r;
}

static void in_row(const char *name, const struct in_res *r, u64 rtt,
		   bool hints)
{
	char a[64], a2[64], b[64], b2[64];

	fmt_us(a, sizeof(a), r->hint, rtt);
	fmt_us(a2, sizeof(a2), r->hint < 0 ? -1 : r->hint - r->up, rtt);
	fmt_us(b, sizeof(b), r->fair, rtt);
	fmt_us(b2, sizeof(b2), r->fair < 0 ? -1 : r->fair - r->up, rtt);
	fprintf(bench_md, "| %s | %s | %s | %s | %s | %.1f | %llu KiB | %llu | %llu us |\n",
		name, hints ? a : "n/a", hints ? a2 : "n/a", b, b2, r->gbps,
		r->peak / 1024, r->drops, r->above);
}

static void fig_incast(void)
{
	struct in_res h = in_run(WL_MROCE, true, "incast_mroce.tsv");
	struct in_res n = in_run(WL_MROCE, false, "incast_mroce_nohint.tsv");
	struct in_res b = in_run(WL_ROCEV2, false, "incast_rocev2.tsv");
	struct scen d;
	u64 rtt;

	parallel(&d, WL_MROCE, 0, 1);
	rtt = rep_base_rtt(&d);
	fprintf(bench_md, "## 16:1 incast\n\n"
		"16 senders on 2 leaves, 4 spines, one receiver on its own leaf; each sends 4 MiB, "
		"all starting at t = 0 (handshake included). Receiver port: 512 KiB buffer, ECN "
		"above 64 KiB. Hint convergence = the time after which every sender paces within "
		"10 %% of the fair share (95 %% of 100 Gbit/s / 16) until the flows start to "
		"finish. Delivered fairness = the time after which Jain's index of the senders' "
		"goodputs over 50 us windows stays >= 0.9 for 200 us. Each is given from t = 0 "
		"and from the moment every connection was up (MetaRoCE's handshake: %.0f us; "
		"sampled every 2 us). RTT = %.1f us unloaded.\n\n"
		"| transport | hint convergence | ... after the handshake | delivered fairness | ... after the handshake | goodput Gbit/s | peak queue | drops at receiver port | time queue > K |\n"
		"|---|---|---|---|---|---|---|---|---|\n", h.up, rtt / 1000.0);
	bench_fig("incast_hint_rtt", h.hint < 0 ? -1 : (h.hint - h.up) * 1000 / rtt);
	bench_fig("incast_fair_rtt", h.fair < 0 ? -1 : (h.fair - h.up) * 1000 / rtt);
	bench_fig("incast_drops", (double)h.drops);
	in_row("MetaRoCE, hints", &h, rtt, true);
	in_row("MetaRoCE, no hints", &n, rtt, false);
	in_row("RoCEv2 baseline", &b, rtt, false);
	fprintf(bench_md, "\nGoal: converge to fair share within 2 RTTs (%s for the hints, counted after the "
		"handshake; %s for delivered fairness). Delivered fairness cannot read less than "
		"its first 50 us window from t = 0: %.0f us (%.1f RTT) after the handshake.\n\n"
		"![incast queue](incast_queue.png) ![incast per-sender goodput](incast_flows.png)\n\n",
		bench_met(h.hint >= 0 && (h.hint - h.up) * 1000 <= 2.0 * rtt),
		bench_met(h.fair >= 0 && (h.fair - h.up) * 1000 <= 2.0 * rtt),
		IN_WIN * IN_SAMPLE / 1000.0 - h.up,
		(IN_WIN * IN_SAMPLE / 1000.0 - h.up) * 1000 / rtt);
}

/* --- 1 vs 64 streams ---------------------------------------------------------- */

static double streams_run(u32 n, struct mre_counters *c)
{
	struct scen s;
	double g;

	parallel(&s, WL_MROCE, 64 << 20, 1);
	s.streams = n;
	s.depth = n == 1 ? 16 : 2;
	must_run(&s);
	g = rep_goodput(&s);
	scen_counters(&s, c);
	scen_free(&s);
	return g;
}

static void fig_streams(void)
{
	struct mre_counters c1, c64;
	struct mre_config cfg;
	double g1 = streams_run(1, &c1), g64 = streams_run(64, &c64);
	FILE *f = bench_tsv("streams.tsv");
	u32 conn;

	scen_engine_cfg(&cfg);
	conn = (u32)sizeof(struct mre_conn) + mre_conn_mem_size(&cfg);
	fprintf(f, "streams\tgbps\tretx\n1\t%.2f\t%llu\n64\t%.2f\t%llu\n", g1,
		c1.tx_retx, g64, c64.tx_retx);
	fclose(f);
	fprintf(bench_md, "## 1 vs 64 streams on one connection\n\n"
		"Two hosts, 8 spines, 64 MiB as 64 KiB WRITEs: one QP with 16 posted, or 64 QPs "
		"with 2 each, all on one connection.\n\n"
		"| streams | goodput Gbit/s | retransmissions |\n|---|---|---|\n"
		"| 1 | %.2f | %llu |\n| 64 | %.2f | %llu |\n\n"
		"Goal: the same goodput (%s: 64 streams give %.3f of 1).\n\n"
		"State (this build, x86_64, window_log2 %u, %u paths):\n\n"
		"| object | bytes | grows with |\n|---|---|---|\n"
		"| connection: sizeof(struct mre_conn) + mre_conn_mem_size(cfg) | %zu + %u = %u | fixed at init (TSN window, paths) |\n"
		"| of which per path: sizeof(struct mre_path) | %zu | paths |\n"
		"| per TSN slot: mre_txd + mre_gate + rtx queue entry + 1 bit | %zu | 2^window_log2 |\n"
		"| per stream: sizeof(struct mre_stream) | %zu | streams (embedded in the embedder's QP) |\n"
		"| the model's QP around it (sizeof(struct mdl_qp), not engine state) | %zu | streams |\n\n"
		"A connection's memory does not change with the number of streams: 64 streams "
		"add 64 * %zu = %zu bytes, all in the QPs.\n\n",
		g1, c1.tx_retx, g64, c64.tx_retx, bench_met(g64 >= 0.97 * g1), g64 / g1,
		cfg.window_log2, cfg.npaths, sizeof(struct mre_conn),
		mre_conn_mem_size(&cfg), conn, sizeof(struct mre_path),
		sizeof(struct mre_txd) + sizeof(struct mre_gate) + sizeof(u32),
		sizeof(struct mre_stream), sizeof(struct mdl_qp),
		sizeof(struct mre_stream), 64 * sizeof(struct mre_stream));
}

/* --- runner ------------------------------------------------------------------- */

static const struct {
	const char *name;
	void (*fn)(void);
} figs[] = {
	{ "loss", fig_loss },
	{ "blackhole", fig_blackhole },
	{ "reorder", fig_reorder },
	{ "incast", fig_incast },
	{ "streams", fig_streams },
	{ "fattree", fig_fattree },
	{ "taildrop", fig_taildrop },
	{ "planes", fig_planes },
	{ "collective", fig_collective },
	{ "scale", fig_scale },
};

int sim_bench_main(const char *dir, int argc, char **argv)
{
	char path[512];
	u32 i;
	int j;

	outdir = dir;
	if (argc >= 2 && !strcmp(argv[0], "--rto-min-us")) {
		rto_min_ns = strtoull(argv[1], NULL, 0) * 1000;
		argc -= 2;
		argv += 2;
	}
	snprintf(path, sizeof(path), "%s/summary.md", dir);
	bench_md = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/figures.tsv", dir);
	figs_tsv = fopen(path, "w");
	if (!bench_md || !figs_tsv) {
		perror(path);
		return 1;
	}
	for (i = 0; i < MRE_ARRAY_SIZE(figs); i++) {
		bool run = !argc;

		for (j = 0; j < argc; j++)
			run |= !strcmp(argv[j], figs[i].name);
		if (!run)
			continue;
		fprintf(stderr, "bench: %s\n", figs[i].name);
		figs[i].fn();
		fflush(bench_md);
	}
	if (rto_min_ns)
		fprintf(bench_md, "(All runs above with rto_min_ns = %llu, not the default.)\n",
			rto_min_ns);
	fclose(bench_md);
	fclose(figs_tsv);
	return 0;
}
