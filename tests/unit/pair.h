/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Two model nodes joined by a scripted wire, under a fake clock.
 *
 * The clock jumps to the next event (a packet's arrival or a node's
 * deadline) instead of sleeping, so a test of seconds of protocol time runs
 * in milliseconds. Each direction delays packets by delay_ns plus whatever
 * the test's hook adds (reordering); the hook can also drop a packet, by
 * index, by type, by path, or at random from the pair's own seed.
 */
#ifndef MRE_PAIR_H
#define MRE_PAIR_H

#include "model.h"
#include "mre_test.h"

#define PAIR_QCAP 4096
#define PAIR_PKT_MAX (MRE_MAX_HDR_LEN + 16 + 2048 + MRE_MAX_BLOB)

struct pair_pkt {
	u64 at;
	u64 seq;		/* FIFO among equal arrival times */
	u32 to;
	u32 from;	/* the sender: the receiver itself on its own connection */
	u32 len;
	u16 path;
	u16 port;
	u8 type;
	u8 ce;
	u8 data[PAIR_PKT_MAX];
};

struct pair;

/*
 * Called for every packet sent (n counts them from 0 per direction):
 * return true to drop it; *extra_delay may add delay (reordering).
 */
typedef bool (*pair_hook)(struct pair *p, u32 from, const struct pair_pkt *pk,
			  u64 n, u64 *extra_delay);

struct pair {
	struct mdl_node n[2];
	struct mre_conn c[2];
	u64 now;
	u64 delay_ns;
	u64 rng;
	struct pair_pkt *q;	/* [PAIR_QCAP] */
	u32 qn;
	u64 qseq;
	u64 sent[2];
	u64 dropped;
	u64 by_type[2][MRE_T_MAX];
	pair_hook hook;
	void *hook_ctx;
	u64 deadline[2];
	struct kunit *test;
};

/* both nodes, a connection each way, memory from the test allocator */
struct pair *pair_new(struct kunit *test, const struct mre_config *cfg,
		      u64 seed, u64 delay_ns);
/*
 * Node @i restarts: all its state gone, a new connection (and id) toward
 * the other, which has not heard. Packets on the wire still reach it.
 */
void pair_restart(struct pair *p, u32 i, const struct mre_config *cfg,
		  u64 seed);
/* advance to the next event; false when nothing is pending */
bool pair_step(struct pair *p);
/* every event due by @until (absolute), then the clock at @until */
void pair_run_until(struct pair *p, u64 until);
/* step until idle or until @limit ns of fake time have passed */
void pair_run(struct pair *p, u64 limit);
/* a connected QP on each side: qp[0] on node 0 talks to qp[1] on node 1 */
void pair_qps(struct pair *p, struct mdl_qp *a, struct mdl_qp *b, u32 qpn,
	      u32 mtu);
/* random-loss hook: drops with probability hook_ctx = (u64 *)per-million */
bool pair_hook_loss(struct pair *p, u32 from, const struct pair_pkt *pk,
		    u64 n, u64 *extra_delay);

#endif /* MRE_PAIR_H */
