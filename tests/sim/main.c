// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce-sim: the fabric simulator's command line.
 *
 *	mroce-sim check [NAME...]          the asserting scenarios (sim-check)
 *	mroce-sim bench DIR [NAME...]      the benchmark figures, TSV into DIR
 *	mroce-sim run [options]            one scenario, summary on stdout
 *	mroce-sim fab NAME                 one run of bench fattree, taildrop,
 *	                                   planes, collective or scale, summary
 *	                                   on stdout
 *
 * run options:
 *	--xport mroce|rocev2  --topo parallel|incast|fattree  --k N (spines,
 *	or fat-tree k)  --nsend N  --planes N  --streams N  --bytes N
 *	--loss-ppm N (spine links)  --skew-ns N  --blackhole-us T (busiest
 *	spine)  --seed N  --check  --trace (every event on stdout)
 *	--end-us T (stop there; --bytes 0: a flow without end)
 *	--sample-ns N  --no-hints 1  --tsv FILE (per-sample goodput)
 *	--paths (flow 0's connection and paths at every sample, on stderr)
 *	--ring N (bytes of each flow's destination window without --check)
 *	--msg N (WRITE size)  --depth N (WRITEs posted per QP)
 *	--oversub R (fat tree: edge uplinks at 1/R of the rate)
 *	--blackhole-all-us T (busiest spine of plane 0, on every plane)
 *	--plane-down-us T (plane 1's links down, and the hosts see it)
 *	--bidir (parallel: a flow 1 -> 0 as well)
 *	--ack-blackhole-us T --ack-spines MASK (parallel, plane 0: the
 *	spines in MASK drop what they send toward host 0, the ACKs of flow 0)
 *	engine: --rto-min-us N  --rto-init-us N  --ack-freq N
 *	--ack-delay-us N  --dead-ms N
 *
 * MRE_SIM_ALLCTR=1 in the environment adds every nonzero engine counter
 * to a MetaRoCE summary.
 */
#include "report.h"
#include "simcli.h"
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
	fprintf(stderr, "usage: mroce-sim check [NAME...] | bench DIR [NAME...] | run [options] | fab NAME\n"
		"  run: --xport mroce|rocev2 --topo parallel|incast|fattree --k N --nsend N\n"
		"       --planes N --streams N --bytes N --loss-ppm N --skew-ns N\n"
		"       --blackhole-us T --seed N --check --trace\n"
		"       --end-us T --sample-ns N --no-hints 1 --tsv FILE --paths\n"
		"       --ring N --msg N --depth N --oversub R\n"
		"       --blackhole-all-us T --plane-down-us T --bidir\n"
		"       --ack-blackhole-us T --ack-spines MASK\n"
		"       --rto-min-us N --rto-init-us N --ack-freq N\n"
		"       --ack-delay-us N --dead-ms N\n"
		"  fab: one run of bench fattree/taildrop/planes/collective/scale by name\n"
		"       (no NAME: the list)\n");
	return 2;
}

static bool opt(int argc, char **argv, int *i, const char *name, u64 *v)
{
	if (strcmp(argv[*i], name) || *i + 1 >= argc)
		return false;
	*v = strtoull(argv[++*i], NULL, 0);
	return true;
}

static const char *tsv;
static bool bidir;
static u64 ack_bh_at, ack_spines;

static void show_paths(struct scen *s)
{
	rep_paths(stderr, s);
}

static int parse_run(int argc, char **argv, struct scen *s, u64 *bytes)
{
	u64 v;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--xport") && i + 1 < argc)
			s->xport = strcmp(argv[++i], "rocev2") ? WL_MROCE : WL_ROCEV2;
		else if (!strcmp(argv[i], "--topo") && i + 1 < argc) {
			i++;
			s->shape = !strcmp(argv[i], "incast") ? SCEN_INCAST :
				  !strcmp(argv[i], "fattree") ? SCEN_FATTREE :
				  SCEN_PARALLEL;
		} else if (opt(argc, argv, &i, "--k", &v))
			s->k = s->fat_k = (u32)v;
		else if (opt(argc, argv, &i, "--nsend", &v))
			s->nsend = (u32)v;
		else if (opt(argc, argv, &i, "--planes", &v))
			s->tc.planes = (u32)v;
		else if (opt(argc, argv, &i, "--streams", &v))
			s->streams = (u32)v;
		else if (opt(argc, argv, &i, "--bytes", &v))
			*bytes = v;
		else if (opt(argc, argv, &i, "--loss-ppm", &v))
			s->spine_loss_ppm = (u32)v;
		else if (opt(argc, argv, &i, "--skew-ns", &v))
			s->spine_skew_ns = v;
		else if (opt(argc, argv, &i, "--blackhole-us", &v))
			scen_fault(s, v * 1000, SCEN_SPINE_BLACKHOLE, SCEN_BUSIEST, 0);
		else if (opt(argc, argv, &i, "--blackhole-all-us", &v))
			scen_fault(s, v * 1000, SCEN_SPINE_BLACKHOLE,
				   SCEN_BUSIEST, SCEN_ALL_PLANES);
		else if (opt(argc, argv, &i, "--plane-down-us", &v))
			scen_fault(s, v * 1000, SCEN_PLANE_DOWN, 1,
				   SCEN_CARRIER);
		else if (opt(argc, argv, &i, "--ack-blackhole-us", &v))
			ack_bh_at = v * 1000;
		else if (opt(argc, argv, &i, "--ack-spines", &v))
			ack_spines = v;
		else if (!strcmp(argv[i], "--bidir"))
			bidir = true;
		else if (opt(argc, argv, &i, "--rto-min-us", &v))
			s->cfg.rto_min_ns = v * 1000;
		else if (opt(argc, argv, &i, "--rto-init-us", &v))
			s->cfg.rto_init_ns = v * 1000;
		else if (opt(argc, argv, &i, "--ack-freq", &v))
			s->cfg.ack_freq = (u32)v;
		else if (opt(argc, argv, &i, "--ack-delay-us", &v))
			s->cfg.ack_delay_ns = v * 1000;
		else if (opt(argc, argv, &i, "--dead-ms", &v))
			s->cfg.dead_ns = v * 1000000;
		else if (opt(argc, argv, &i, "--seed", &v))
			s->seed = v;
		else if (opt(argc, argv, &i, "--end-us", &v))
			s->t_end = v * 1000;
		else if (opt(argc, argv, &i, "--sample-ns", &v))
			s->sample_ns = v;
		else if (opt(argc, argv, &i, "--ring", &v))
			s->ring = v;
		else if (opt(argc, argv, &i, "--msg", &v))
			s->msg = (u32)v;
		else if (opt(argc, argv, &i, "--depth", &v))
			s->depth = (u32)v;
		else if (opt(argc, argv, &i, "--oversub", &v))
			s->tc.oversub = (u32)v;
		else if (opt(argc, argv, &i, "--no-hints", &v))
			s->no_hints = v != 0;
		else if (!strcmp(argv[i], "--tsv") && i + 1 < argc)
			tsv = argv[++i];
		else if (!strcmp(argv[i], "--paths"))
			s->on_sample = show_paths;
		else if (!strcmp(argv[i], "--check"))
			s->check = true;
		else if (!strcmp(argv[i], "--trace"))
			s->trace = stdout;
		else
			return -1;
	}
	return 0;
}

static void add_flows(struct scen *s, u64 bytes)
{
	u32 i, n;

	switch (s->shape) {
	case SCEN_PARALLEL:
		scen_flow(s, 0, 1, bytes, 0);
		if (bidir)
			scen_flow(s, 1, 0, bytes, 0);
		break;
	case SCEN_INCAST:
		s->nleaves = s->nleaves ? s->nleaves : 2;
		s->nspines = s->nspines ? s->nspines : 4;
		for (i = 0; i < s->nsend; i++)
			scen_flow(s, i, s->nsend, bytes, 0);
		break;
	case SCEN_FATTREE:
		n = s->fat_k * s->fat_k * s->fat_k / 4;
		for (i = 0; i < n; i++)	/* a shift permutation across pods */
			scen_flow(s, i, (i + n / 2) % n, bytes, 0);
		break;
	}
}

static int cmd_run(int argc, char **argv)
{
	struct scen s;
	u64 bytes = 8 << 20;
	u32 i;

	scen_defaults(&s);
	s.nsend = 16;
	s.fat_k = 4;
	if (parse_run(argc, argv, &s, &bytes))
		return usage();
	for (i = 0; ack_bh_at && i < 64; i++)
		if (ack_spines ? ack_spines >> i & 1 : !i)
			scen_fault(&s, ack_bh_at, SCEN_SPINE_ACK_BLACKHOLE,
				   ack_spines ? i : SCEN_BUSIEST, 0);
	add_flows(&s, bytes);
	if (scen_run(&s)) {
		fprintf(stderr, "engine refused the configuration: %s\n",
			mre_config_check(&s.cfg));
		return 1;
	}
	rep_summary(s.trace ? stderr : stdout, "run", &s);
	if (tsv) {
		FILE *f = fopen(tsv, "w");

		if (!f)
			return 1;
		rep_series_tsv(f, &s, 1, true);
		fclose(f);
	}
	scen_free(&s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "check"))
		return sim_check_main(argc - 2, argv + 2);
	if (!strcmp(argv[1], "bench") && argc >= 3)
		return sim_bench_main(argv[2], argc - 3, argv + 3);
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2);
	if (!strcmp(argv[1], "fab"))
		return sim_fab_main(argc - 2, argv + 2);
	return usage();
}
