/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the benchmark figures share (bench.c runs them; fabric.c has the
 * fat-tree ones): the output files and the engine's tuning.
 */
#ifndef SIM_BENCH_H
#define SIM_BENCH_H

#include "scenario.h"
#include <stdio.h>

/* DIR/summary.md, the section each figure writes */
extern FILE *bench_md;
/* a TSV file DIR/@name for a plot */
FILE *bench_tsv(const char *name);
/* a headline number, as "name<TAB>value" in DIR/figures.tsv */
void bench_fig(const char *name, double v);
/* "met" or "**missed**" */
const char *bench_met(bool ok);
/* qsort() comparator of doubles, ascending */
int bench_cmp_double(const void *a, const void *b);
/* the command line's overrides (--rto-min-us), on a scenario */
void bench_tune(struct scen *s);

/* fabric.c */
void fig_fattree(void);
void fig_scale(void);
void fig_taildrop(void);
void fig_planes(void);
void fig_collective(void);

#endif /* SIM_BENCH_H */
