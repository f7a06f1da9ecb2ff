// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Event queue (see evq.h).
 */
#include "evq.h"
#include <stdlib.h>

static bool before(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

void evq_init(struct evq *q)
{
	q->n = 0;
	q->cap = 1024;
	q->seq = 0;
	q->h = malloc(q->cap * sizeof(*q->h));
	if (!q->h)
		abort();
}

void evq_free(struct evq *q)
{
	free(q->h);
	q->h = NULL;
	q->n = q->cap = 0;
}

static void sift_up(struct evq *q, u32 i)
{
	struct sim_ev e = q->h[i];

	while (i) {
		u32 parent = (i - 1) / 2;

		if (!before(&e, &q->h[parent]))
			break;
		q->h[i] = q->h[parent];
		i = parent;
	}
	q->h[i] = e;
}

static void sift_down(struct evq *q, u32 i)
{
	struct sim_ev e = q->h[i];

	for (;;) {
		u32 c = 2 * i + 1;

		if (c >= q->n)
			break;
		if (c + 1 < q->n && before(&q->h[c + 1], &q->h[c]))
			c++;
		if (!before(&q->h[c], &e))
			break;
		q->h[i] = q->h[c];
		i = c;
	}
	q->h[i] = e;
}

void evq_push(struct evq *q, u64 at, sim_fn fn, void *obj, u64 arg)
{
	if (q->n == q->cap) {
		q->cap *= 2;
		q->h = realloc(q->h, q->cap * sizeof(*q->h));
		if (!q->h)
			abort();
	}
	q->h[q->n] = (struct sim_ev){
		.at = at, .seq = q->seq++, .fn = fn, .obj = obj, .arg = arg,
	};
	sift_up(q, q->n++);
}

bool evq_pop(struct evq *q, struct sim_ev *e)
{
	if (!q->n)
		return false;
	*e = q->h[0];
	q->h[0] = q->h[--q->n];
	if (q->n)
		sift_down(q, 0);
	return true;
}
