/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Scenarios: a topology, a transport, flows, faults at given times, and a
 * sampler, run to completion; what the tests assert on and the benchmarks
 * plot.
 *
 * scen_defaults() gives the datacenter parameters every figure uses:
 *
 *   links        100 Gbit/s, 1 us propagation per hop
 *   switch port  512 KiB buffer (tail drop), ECN mark above 64 KiB
 *   MTU          4 KiB payload per packet
 *   engine       mre_config_default() plus: link_mbps = the host's
 *                line rate, all planes (receiver rate hints on, hint_pct
 *                95; no_hints: off), nplanes = the planes, and tx_burst 1 (the NIC pulls one
 *                packet at a time, see host.h)
 *
 * host - leaf - spine - leaf - host is then an RTT of about 9.5 us
 * unloaded (8 us of propagation, 4 serialisations of a 4 KiB packet) and a
 * bandwidth-delay product of about 120 KB (29 packets).
 */
#ifndef SIM_SCENARIO_H
#define SIM_SCENARIO_H

#include "workload.h"

#define SCEN_MAX_FAULTS	8
#define SCEN_BUSIEST	0xffffffffu	/* fault target: the busiest spine */
#define SCEN_ALL_PLANES	1	/* SCEN_SPINE_BLACKHOLE value: every plane */
#define SCEN_CARRIER	1	/* SCEN_PLANE_DOWN value: hosts see it */

enum scen_topo {
	SCEN_PARALLEL,		/* k spines between two hosts */
	SCEN_INCAST,		/* nsend senders, one receiver (the last host) */
	SCEN_FATTREE,		/* fat_k-ary fat tree */
	SCEN_LEAFSPINE,		/* nleaves of per_leaf hosts, nspines */
};

enum scen_fault_kind {
	SCEN_SPINE_BLACKHOLE,	/* spine target of plane 0 drops everything
				 * (value SCEN_ALL_PLANES: that spine of
				 * every plane) */
	SCEN_LINK_BLACKHOLE,	/* link target */
	SCEN_LINK_DOWN,		/* link target, and routing converges */
	SCEN_LINK_UP,
	SCEN_LINK_RATE,		/* link target runs at value Mbit/s */
	SCEN_SPINE_ACK_BLACKHOLE, /* parallel: spine target of plane 0 drops
				   * what it sends toward host 0 (the ACKs of
				   * flow 0 -> 1), nothing else; SCEN_BUSIEST:
				   * the spine that sent it the most */
	SCEN_PLANE_DOWN,	/* every link of plane target down; reroute
				 * (value SCEN_CARRIER: and every host's
				 * connections are told, as the kernel does
				 * when its NIC of the plane loses carrier) */
	SCEN_PORT_DEGRADE,	/* link target's direction b -> a (the second
				 * node it was built with toward the first) at
				 * value % of its rate, buffer and ECN marks */
	SCEN_FABRIC_LOSS,	/* every switch-switch link loses value ppm */
};

struct scen_fault {
	u64 at;
	u8 kind;
	u32 target;
	u64 value;
};

struct scen_flowspec {
	u32 src;
	u32 dst;
	u64 bytes;
	u64 start_ns;
	u32 nsteps;		/* wl_gate(): 1 and WL_NONE, neither */
	u32 after;
	u32 lag;
};

struct scen {
	/* what to run */
	u64 seed;
	u8 shape;		/* enum scen_topo */
	u32 k;			/* parallel: spines */
	u32 nsend;		/* incast */
	u32 nleaves;
	u32 nspines;
	u32 fat_k;
	u32 per_leaf;		/* leaf-spine */
	struct topo_cfg tc;
	u32 spine_loss_ppm;	/* on every switch-switch link */
	u64 spine_skew_ns;	/* spine i's links are i * skew longer */
	bool no_hints;		/* receivers send no rate hints */
	u8 xport;		/* enum wl_kind */
	struct mre_config cfg;
	u32 mtu;
	u32 msg;
	u32 depth;
	u32 streams;
	u64 ring;
	bool check;
	struct scen_flowspec *flows;
	u32 nflows;
	u32 capflows;
	struct scen_fault faults[SCEN_MAX_FAULTS];
	u32 nfaults;
	u64 t_end;		/* stop here if not done */
	u64 sample_ns;
	FILE *trace;
	void (*on_sample)(struct scen *s);	/* after each sample (debugging) */

	/* the run */
	struct sim sim;
	struct topo topo;
	struct wl wl;
	u32 blackholed;		/* spine a SCEN_BUSIEST fault chose */
	double bh_share;	/* its share of spine traffic before the fault */
	u64 *st;		/* sample times */
	u64 *sp;		/* [nsamp][nflows] bytes placed per flow */
	u64 *sq;		/* [nsamp] bytes queued at the last host's port */
	u32 *sr;		/* [nsamp][nflows] sender's paced rate, Mbit/s */
	/* completion gate after a SCEN_SPINE_BLACKHOLE (flow 0, MetaRoCE) */
	u32 gate_mark;		/* the sender's next TSN when it struck */
	u64 gate_at;		/* when the receiver's gate passed it (0: not) */
	u32 nsamp;
	u32 capsamp;
	u64 end_ns;
	u64 up_ns;		/* first sample with every flow's connection up */
};

void scen_defaults(struct scen *s);
/* the engine's configuration for the simulated fabric (see above) */
void scen_engine_cfg(struct mre_config *cfg);
void scen_flow(struct scen *s, u32 src, u32 dst, u64 bytes, u64 start_ns);
/* flow @i in @nsteps steps, each waiting for flow @after (workload.h) */
void scen_gate(struct scen *s, u32 i, u32 nsteps, u32 after, u32 lag);
/*
 * A random permutation of @n hosts, each sending @bytes to exactly one
 * other and receiving from exactly one (a derangement), drawn from @seed.
 */
void scen_permutation(struct scen *s, u32 n, u64 bytes, u64 seed);
void scen_fault(struct scen *s, u64 at, enum scen_fault_kind kind, u32 target,
		u64 value);
/* build and run; 0, or -1 if the engine refused the configuration */
int scen_run(struct scen *s);
void scen_free(struct scen *s);

/* sums over every host */
void scen_counters(const struct scen *s, struct mre_counters *c);
/* the same for PARITY (parity.c), which the engine counts apart */
void scen_parity(const struct scen *s, struct mre_parity_ctr *c);
void scen_bl_counters(const struct scen *s, struct bl_counters *c);
/* largest queue seen on any switch port, and at the receiver's port */
u64 scen_peak_queue(const struct scen *s);
/* payload bytes placed by all flows */
u64 scen_placed(const struct scen *s);

#endif /* SIM_SCENARIO_H */
