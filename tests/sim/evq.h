/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The simulator's event queue: a binary min-heap of (time, sequence).
 *
 * Events at the same time run in the order they were scheduled (the
 * sequence number breaks ties), so a run never depends on heap layout,
 * pointer values or anything but the order of the program's own calls.
 */
#ifndef SIM_EVQ_H
#define SIM_EVQ_H

#include "mre_types.h"

struct sim;
typedef void (*sim_fn)(struct sim *s, void *obj, u64 arg);

struct sim_ev {
	u64 at;
	u64 seq;
	sim_fn fn;
	void *obj;
	u64 arg;
};

struct evq {
	struct sim_ev *h;
	u32 n;
	u32 cap;
	u64 seq;
};

void evq_init(struct evq *q);
void evq_free(struct evq *q);
void evq_push(struct evq *q, u64 at, sim_fn fn, void *obj, u64 arg);
/* the earliest event into *@e; false when empty */
bool evq_pop(struct evq *q, struct sim_ev *e);
/* time of the earliest event (only when q->n) */
static inline u64 evq_next_at(const struct evq *q) { return q->h[0].at; }

#endif /* SIM_EVQ_H */
