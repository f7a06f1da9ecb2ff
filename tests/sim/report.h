/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Reports: what a scenario did, as text for people and TSV for plots, and
 * the figures computed from its samples.
 */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include "scenario.h"

/* when the last flow completed (the end of the run if one did not) */
u64 rep_end(const struct scen *s);
/* goodput of all flows, Gbit/s, from their start to rep_end() */
double rep_goodput(const struct scen *s);
/* goodput of all flows between samples i - w and i (w samples back), Gbit/s */
double rep_window_gbps(const struct scen *s, u32 i, u32 w);
/* ... of flow f only */
double rep_flow_window_gbps(const struct scen *s, u32 f, u32 i, u32 w);
/* the unloaded round trip host - leaf - spine - leaf - host, ns */
u64 rep_base_rtt(const struct scen *s);

/* one paragraph: time, bytes, goodput, the counters that matter, verdict */
void rep_summary(FILE *f, const char *name, const struct scen *s);
/* one line: flow 0's sending connection and each of its paths (MetaRoCE) */
void rep_paths(FILE *f, const struct scen *s);
/* per sample: time_us and the windowed goodput of all flows (and each) */
void rep_series_tsv(FILE *f, const struct scen *s, u32 w, bool per_flow);

#endif /* SIM_REPORT_H */
