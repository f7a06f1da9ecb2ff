// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Event loop, trace hash, packet pool (see sim.h).
 */
#include "sim.h"
#include <stdlib.h>
#include <string.h>

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

u64 sim_mix(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void sim_init(struct sim *s, u64 seed, FILE *trace)
{
	memset(s, 0, sizeof(*s));
	s->seed = seed;
	s->trace = trace;
	s->hash = FNV_OFFSET;
	evq_init(&s->q);
}

#define SLAB_PKTS 64

struct slab {
	struct slab *next;
	struct sim_pkt pkt[SLAB_PKTS];
};

void sim_free(struct sim *s)
{
	while (s->slabs) {
		struct slab *b = s->slabs;

		s->slabs = b->next;
		free(b);
	}
	s->free_pkts = NULL;
	evq_free(&s->q);
}

void sim_at(struct sim *s, u64 at, sim_fn fn, void *obj, u64 arg)
{
	evq_push(&s->q, at < s->now ? s->now : at, fn, obj, arg);
}

void sim_run(struct sim *s, u64 until)
{
	struct sim_ev e;

	s->stop = false;
	while (!s->stop && s->q.n && evq_next_at(&s->q) <= until) {
		evq_pop(&s->q, &e);
		s->now = e.at;
		s->nev++;
		e.fn(s, e.obj, e.arg);
	}
	if (!s->stop && s->now < until)
		s->now = until;
}

static u64 fnv(u64 h, u64 v)
{
	int i;

	for (i = 0; i < 8; i++) {
		h ^= (u8)(v >> (8 * i));
		h *= FNV_PRIME;
	}
	return h;
}

void sim_trace(struct sim *s, const char *what, u64 a, u64 b, u64 c, u64 d)
{
	u64 h = fnv(s->hash, s->now);
	const char *w;

	for (w = what; *w; w++) {
		h ^= (u8)*w;
		h *= FNV_PRIME;
	}
	s->hash = fnv(fnv(fnv(fnv(h, a), b), c), d);
	if (s->trace)
		fprintf(s->trace, "%llu %s %llu %llu %llu %llu\n", s->now, what,
			a, b, c, d);
}

u64 sim_bytes_hash(const u8 *p, u32 len)
{
	u64 h = FNV_OFFSET;

	while (len--) {
		h ^= *p++;
		h *= FNV_PRIME;
	}
	return h;
}

struct sim_pkt *sim_pkt_alloc(struct sim *s)
{
	struct sim_pkt *k;

	if (!s->free_pkts) {
		struct slab *b = malloc(sizeof(*b));
		u32 i;

		if (!b)
			abort();
		b->next = s->slabs;
		s->slabs = b;
		for (i = 0; i < SLAB_PKTS; i++)
			sim_pkt_free(s, &b->pkt[i]);
		s->pkts_live += SLAB_PKTS;
	}
	k = s->free_pkts;
	s->free_pkts = k->next;
	k->next = NULL;
	k->id = s->pkt_ids++;
	k->ce = 0;
	s->pkts_live++;
	return k;
}

void sim_pkt_free(struct sim *s, struct sim_pkt *k)
{
	k->next = s->free_pkts;
	s->free_pkts = k;
	s->pkts_live--;
}
