// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reports (see report.h).
 */
#include "report.h"
#include <stdlib.h>

static u64 placed_at(const struct scen *s, u32 i, u32 f)
{
	return s->sp[(size_t)i * s->nflows + f];
}

static u64 all_placed_at(const struct scen *s, u32 i)
{
	u64 sum = 0;
	u32 f;

	for (f = 0; f < s->nflows; f++)
		sum += placed_at(s, i, f);
	return sum;
}

static double gbps(u64 bytes, u64 ns)
{
	return ns ? (double)bytes * 8 / (double)ns : 0;
}

u64 rep_end(const struct scen *s)
{
	u64 end = 0;
	u32 f;

	for (f = 0; f < s->wl.nflows; f++) {
		if (!s->wl.flows[f].done_ns)
			return s->end_ns;
		end = MRE_MAX(end, s->wl.flows[f].done_ns);
	}
	return end;
}

double rep_goodput(const struct scen *s)
{
	u64 start = s->end_ns;
	u32 f;

	for (f = 0; f < s->nflows; f++)
		start = MRE_MIN(start, s->flows[f].start_ns);
	return gbps(scen_placed(s), rep_end(s) - start);
}

double rep_window_gbps(const struct scen *s, u32 i, u32 w)
{
	u32 j = i >= w ? i - w : 0;

	return gbps(all_placed_at(s, i) - all_placed_at(s, j), s->st[i] - s->st[j]);
}

double rep_flow_window_gbps(const struct scen *s, u32 f, u32 i, u32 w)
{
	u32 j = i >= w ? i - w : 0;

	return gbps(placed_at(s, i, f) - placed_at(s, j, f), s->st[i] - s->st[j]);
}

u64 rep_base_rtt(const struct scen *s)
{
	const struct sim_link_cfg *h = &s->tc.host, *f = &s->tc.fabric;
	u32 data = s->mtu + MRE_MAX_HDR_LEN + SIM_WIRE_OVERHEAD;
	u32 ack = MRE_ACK_LEN + SIM_WIRE_OVERHEAD;

	return 2 * (2 * h->delay_ns + 2 * f->delay_ns) +
	       2 * (u64)(data + ack) * 8000 / h->mbps +
	       2 * (u64)(data + ack) * 8000 / f->mbps;
}

static void summary_mroce(FILE *f, const struct scen *s)
{
	struct mre_parity_ctr par;
	struct mre_counters c;

	scen_counters(s, &c);
	fprintf(f, "  data %llu retx %llu spurious %llu loss_fast %llu loss_time %llu loss_rto %llu loss_silent %llu rto %llu rto_stall %llu\n"
		"  path_silent %llu path_failed %llu recovered %llu repath %llu ecn_cut %llu rx_ce %llu dup_tsn %llu\n",
		c.tx_data, c.tx_retx, c.spurious_retx, c.loss_fast, c.loss_time,
		c.loss_rto,
		c.loss_silent, c.rto, c.rto_stall, c.path_silent, c.path_failed,
		c.path_recovered, c.path_repath, c.ecn_cut, c.rx_ce, c.rx_dup_tsn);
	scen_parity(s, &par);
	if (par.tx || par.rx)
		fprintf(f, "  parity tx %llu rx %llu rebuilt %llu unused %llu short %llu failed %llu skipped %llu\n",
			par.tx, par.rx, par.rebuilt, par.unused, par.short_of,
			par.failed, par.skipped);
	if (getenv("MRE_SIM_ALLCTR")) {
		u32 i;

		for (i = 0; i < MRE_NCOUNTERS; i++)
			if (((const u64 *)&c)[i])
				fprintf(f, " %s %llu", mre_counter_names[i],
					((const u64 *)&c)[i]);
		fprintf(f, "\n");
	}
}

static void summary_rocev2(FILE *f, const struct scen *s)
{
	struct bl_counters c;

	scen_bl_counters(s, &c);
	fprintf(f, "  data %llu retx %llu nak_tx %llu rto %llu ooo_drop %llu dup %llu ecn_cut %llu rx_ce %llu\n",
		c.tx_data, c.tx_retx, c.tx_nak, c.rto, c.rx_ooo, c.rx_dup,
		c.ecn_cut, c.rx_ce);
}

void rep_summary(FILE *f, const char *name, const struct scen *s)
{
	struct wl_verdict v;

	wl_verify(&s->wl, &v);
	fprintf(f, "%s: %s seed %llu, %.1f us, %llu bytes placed, %.2f Gbit/s, peak queue %llu B, %llu events, trace %016llx\n",
		name, s->xport == WL_MROCE ? "mroce" : "rocev2", s->seed,
		rep_end(s) / 1000.0, scen_placed(s), rep_goodput(s),
		scen_peak_queue(s), s->sim.nev, s->sim.hash);
	if (s->xport == WL_MROCE)
		summary_mroce(f, s);
	else
		summary_rocev2(f, s);
	fprintf(f, "  incomplete %u missing %llu twice %llu corrupt %llu guard %llu order %u errors %u bad_place %u\n",
		v.incomplete, v.bytes_missing, v.bytes_twice, v.bytes_corrupt,
		v.guard_touched, v.order_violations, v.errors, v.bad_place);
}

void rep_series_tsv(FILE *f, const struct scen *s, u32 w, bool per_flow)
{
	u32 i, k;

	fprintf(f, "time_us\tgbps");
	for (k = 0; per_flow && k < s->nflows; k++)
		fprintf(f, "\tflow%u", k);
	fprintf(f, "\tqueue_kb\n");
	for (i = 1; i < s->nsamp; i++) {
		fprintf(f, "%.3f\t%.3f", s->st[i] / 1000.0, rep_window_gbps(s, i, w));
		for (k = 0; per_flow && k < s->nflows; k++)
			fprintf(f, "\t%.3f", rep_flow_window_gbps(s, k, i, w));
		fprintf(f, "\t%.1f\n", s->sq[i] / 1024.0);
	}
}

void rep_paths(FILE *f, const struct scen *s)
{
	const struct wl_flow *fl = &s->wl.flows[0];
	const struct mre_conn *c;
	u32 i;

	const struct mre_txd *u;

	if (s->xport != WL_MROCE)
		return;
	c = ((struct xp_mroce *)s->wl.xp[fl->src])->node.conns[fl->dst];
	u = &c->txd[c->tsn_una & (c->wsize - 1)];
	fprintf(f, "%.1f us: cwnd %u inflight %u rate %u una+%u (state %u path %u xmits %u) reorder %u k %u paths (cwnd/inflight/health, srtt us):",
		s->sim.now / 1000.0, c->cwnd >> MRE_FP, c->inflight, c->rate_mbps,
		c->tsn_next - c->tsn_una, u->state, u->path, u->xmits,
		c->reorder, c->silence_k);
	for (i = 0; i < c->npaths; i++) {
		const struct mre_path *p = &c->paths[i];

		fprintf(f, " %u/%u%s%.0f", p->cwnd >> MRE_FP, p->inflight,
			p->health == MRE_PATH_GOOD ? "/" :
			p->health == MRE_PATH_SUSPECT ? "/S/" : "/F/",
			p->srtt / 1000.0);
	}
	fprintf(f, "\n");
}
