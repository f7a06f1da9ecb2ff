/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Workload: flows of RDMA WRITEs between hosts, over either transport.
 *
 * A flow moves @bytes from host src to host dst as WRITEs of @msg bytes,
 * spread over @nstreams QPs (streams of one MetaRoCE connection, or
 * separate RoCEv2 QPs each with its own source port), keeping @depth WRITEs
 * posted per QP. Its bytes land in a window of the destination host's
 * memory, fenced by guard bytes:
 *
 *	| guard | flow a's window | guard | flow b's window | guard |
 *
 * With check on, each window is as large as its flow (no byte is written
 * twice legitimately), every byte placed is counted, and wl_verify() checks
 * that each was placed exactly once, holds what the source sent (MetaRoCE
 * carries real payload), and that no guard byte was touched. Without
 * check, a window is a ring of ring bytes that WRITEs wrap around, and as
 * nothing reads it, every flow into a host shares one ring and every flow
 * one source buffer: memory stays a ring per host with 65,000 flows.
 *
 * Dependent flows (collectives): a flow's bytes may come in @nsteps steps
 * of equal size, and its steps may wait for another flow, @after
 * (wl_gate()): step k may start once @after has delivered k + 1 - @lag of
 * its steps (a ring all-reduce: lag 1, "step s + 1 after step s came in";
 * lag 0, one step each: "start when @after is done"). What counts as
 * delivered is what the gated flow's source can see for itself:
 *
 *   - @after ends at our source (it sends to us): its steps as they are
 *     received here. MetaRoCE: the last WRITE of each step carries an
 *     immediate, and its receive completion, which the engine's gate gives
 *     only once everything before it on the stream was placed, marks the
 *     step (rx_steps). RoCEv2: the responder places in PSN order only, so
 *     the bytes placed say how many steps are in.
 *   - @after starts at our source: its completion at the sender (done_ns),
 *     i.e. all of it, acknowledged.
 *
 * A flow without a gate costs nothing more per event; a gated flow, one
 * comparison per turn of its host's application, and a flow whose receipt
 * gates another, one per turn of its destination's.
 */
#ifndef SIM_WORKLOAD_H
#define SIM_WORKLOAD_H

#include "topo.h"
#include "baseline.h"
#include "xp_mroce.h"

#define WL_MAX_STREAMS	64
#define WL_GUARD	4096
#define WL_BASE		0x10000000ULL	/* remote address of a host's memory */
#define WL_CANARY	0xa5
#define WL_NONE		0xffffffffu	/* no flow */

enum wl_kind {
	WL_MROCE,
	WL_ROCEV2,
};

struct wl_stream {
	void *src;		/* struct mdl_qp / struct bl_qp at the source */
	void *dst;		/* ... and its peer at the destination */
	u32 posted;
};

struct wl_flow {
	u32 id;
	u32 src;
	u32 dst;
	u64 bytes;		/* 0: no end */
	u32 msg;
	u32 nstreams;
	u32 depth;
	u64 start_ns;
	u64 window;		/* destination window bytes */
	u64 mem_off;		/* its offset in the destination memory */
	u8 *src_buf;		/* [window]: what is sent */
	u64 posted_bytes;
	u32 rr;
	u64 done_ns;		/* 0: not complete */
	u32 next_of_src;	/* the source's next flow (index), or ~0 */
	/* steps and gates (see above); nsteps 1 and after WL_NONE: neither */
	u32 nsteps;
	u64 step_bytes;		/* bytes / nsteps */
	u32 after;		/* the gating flow (index), or WL_NONE */
	u32 lag;
	bool signal;		/* a gate waits for our receipt: track it */
	u32 rx_steps;		/* steps received, in order (signal) */
	u64 rx_done_ns;		/* ... all of them (0: not yet) */
	u32 next_watch;		/* the destination's next flow to watch */
	u64 *step_at;		/* [nsteps] when each step began (stepped, gated) */
	u64 *step_rx;		/* [nsteps] ... and was received (signal) */
	u32 gate_early;		/* check: a step began before its gate's bytes
				 * were all placed */
	struct wl_stream st[WL_MAX_STREAMS];
};

struct wl_mem {
	u8 *buf;
	u8 *count;		/* check only */
	u64 size;
	u32 rkey;
};

struct wl {
	struct topo *t;
	u8 kind;
	bool check;
	u64 ring;
	u32 mtu;
	void **xp;		/* [host]: struct xp_mroce / struct bl_host */
	struct wl_mem *mem;	/* [host] */
	u32 *first_of_src;	/* [host]: its first flow (index), or ~0 */
	u32 *first_watch;	/* [host]: signal flows into it not all in */
	struct wl_flow *flows;
	u32 nflows;
	u32 capflows;
	u32 qpn;
	u32 ndone;
};

struct wl_verdict {
	u64 bytes_missing;	/* never placed */
	u64 bytes_twice;	/* placed more than once */
	u64 bytes_corrupt;	/* placed, but not what was sent */
	u64 guard_touched;
	u32 order_violations;
	u32 errors;		/* completions in error, failed streams */
	u32 bad_place;
	u32 incomplete;		/* flows not done */
	u32 gate_early;		/* steps begun before their gate's bytes were in */
	u32 undelivered;	/* signal flows not seen received step by step */
};

void wl_init(struct wl *w, struct topo *t, enum wl_kind kind, bool check,
	     u32 mtu, u64 ring);
struct wl_flow *wl_flow(struct wl *w, u32 src, u32 dst, u64 bytes, u32 msg,
			u32 nstreams, u32 depth, u64 start_ns);
/*
 * @f's bytes in @nsteps steps (dividing them, one stream), and steps that
 * wait for flow @after (WL_NONE: none) as above. Before wl_setup().
 */
void wl_gate(struct wl *w, struct wl_flow *f, u32 nsteps, u32 after, u32 lag);
/* transports on every host, memory, QPs; flows start at their start_ns */
void wl_setup(struct wl *w, const struct mre_config *cfg);
/* payload bytes placed at the destination for @f */
u64 wl_placed(const struct wl *w, const struct wl_flow *f);
void wl_verify(const struct wl *w, struct wl_verdict *v);
void wl_free(struct wl *w);

#endif /* SIM_WORKLOAD_H */
