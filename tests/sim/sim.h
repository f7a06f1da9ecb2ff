/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fabric simulator: a discrete-event loop over nodes (hosts, switches)
 * joined by links, running the unmodified engine in every host.
 *
 * Determinism. Simulated time is a u64 count of nanoseconds. Every source
 * of randomness is a splitmix64 stream derived from the run's seed and the
 * name of its owner (a port's loss, a switch's ECMP hash, a host's engine),
 * and events at the same instant run in the order they were scheduled. The
 * same seed and the same scenario therefore give the same run, event for
 * event. Each event that changes state calls sim_trace(), which folds it
 * into a 64-bit FNV-1a hash (compared by the determinism test) and, with
 * --trace, prints it as one line:
 *
 *	<ns> <what> <a> <b> <c> <d>
 *
 * Packets are pooled; a packet belongs to exactly one place at a time (a
 * port's queue, the wire, a host's hands) and whoever drops or consumes it
 * calls sim_pkt_free(). sim_free() releases the pool, including packets
 * still queued or in flight when a run stops.
 */
#ifndef SIM_H
#define SIM_H

#include "model.h"
#include "evq.h"
#include <stdio.h>

/* Ethernet header 14 + FCS 4 + preamble 8 + gap 12, IPv4 20, UDP 8 */
#define SIM_WIRE_OVERHEAD	66
#define SIM_PKT_MAX	(MRE_MAX_HDR_LEN + 16 + MRE_MAX_PAYLOAD + MRE_MAX_BLOB)
#define SIM_PROTO_UDP	17

struct sim_pkt {
	struct sim_pkt *next;	/* queue or free list */
	u64 id;			/* creation order, for the trace */
	u32 src;		/* source address (sim_addr()) */
	u32 dst;
	u16 sport;
	u16 dport;
	u8 proto;
	u8 ce;			/* IP ECN field says Congestion Experienced */
	u32 len;		/* datagram bytes in data[] */
	u32 wire;		/* bytes it occupies on a wire and in a queue */
	u8 data[SIM_PKT_MAX];
};

struct sim {
	u64 now;
	u64 seed;
	struct evq q;
	u64 hash;		/* FNV-1a over every traced event */
	u64 nev;		/* events run */
	FILE *trace;		/* NULL: no printing */
	u64 pkt_ids;
	struct sim_pkt *free_pkts;
	void *slabs;		/* every packet's memory, freed by sim_free() */
	u64 pkts_live;
	bool stop;
};

void sim_init(struct sim *s, u64 seed, FILE *trace);
void sim_free(struct sim *s);
/* schedule @fn(s, obj, arg) at @at (never before now) */
void sim_at(struct sim *s, u64 at, sim_fn fn, void *obj, u64 arg);
/* run events until none is left, sim_stop(), or the next is after @until */
void sim_run(struct sim *s, u64 until);
static inline void sim_stop(struct sim *s) { s->stop = true; }
/* record one state change (hash; print with --trace) */
void sim_trace(struct sim *s, const char *what, u64 a, u64 b, u64 c, u64 d);

/* FNV-1a of @len bytes (packet headers in the trace) */
u64 sim_bytes_hash(const u8 *p, u32 len);

struct sim_pkt *sim_pkt_alloc(struct sim *s);
void sim_pkt_free(struct sim *s, struct sim_pkt *k);

/* 64-bit mixing (splitmix64's finaliser) and a seeded stream per owner */
u64 sim_mix(u64 x);
static inline u64 sim_seed_of(const struct sim *s, u64 salt)
{
	return sim_mix(s->seed ^ sim_mix(salt));
}
/* uniform in [0, 1e6) from a splitmix stream */
static inline u32 sim_ppm(u64 *rng) { return (u32)(mdl_rand(rng) % 1000000); }

/* a NIC's address: host index and plane (10.plane.host>>8.host) */
static inline u32 sim_addr(u32 host, u32 plane)
{
	return 0x0a000000u | plane << 16 | host;
}
static inline u32 sim_addr_host(u32 a) { return a & 0xffff; }
static inline u32 sim_addr_plane(u32 a) { return a >> 16 & 0xff; }

#endif /* SIM_H */
