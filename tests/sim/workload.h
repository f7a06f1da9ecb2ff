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
 * check, a window is a ring of ring bytes that WRITEs wrap around.
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
};

void wl_init(struct wl *w, struct topo *t, enum wl_kind kind, bool check,
	     u32 mtu, u64 ring);
struct wl_flow *wl_flow(struct wl *w, u32 src, u32 dst, u64 bytes, u32 msg,
			u32 nstreams, u32 depth, u64 start_ns);
/* transports on every host, memory, QPs; flows start at their start_ns */
void wl_setup(struct wl *w, const struct mre_config *cfg);
/* payload bytes placed at the destination for @f */
u64 wl_placed(const struct wl *w, const struct wl_flow *f);
void wl_verify(const struct wl *w, struct wl_verdict *v);
void wl_free(struct wl *w);

#endif /* SIM_WORKLOAD_H */
