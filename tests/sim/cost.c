// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce-cost: a fixed transfer through two engines, for instruction counts.
 *
 * Two model hosts (tests/unit/model.c) on a wire of fixed delay, no loss,
 * default engine configuration; one 16 MiB WRITE in 4 KiB packets. The
 * driver keeps the engine's contract and no more: mre_conn_run() once after
 * every received packet and at the deadline it returned. Nothing
 * random but the engines' own seeded streams, so under
 * valgrind --tool=callgrind --toggle-collect=cost_transfer every run counts
 * the same instructions. scripts/bench-cost.sh runs it and divides the
 * instructions spent in kernel/engine/ by the data packets it prints.
 *
 * `mroce-cost small` measures small operations instead (cost_small()):
 * SMALL_OPS each of a 2-byte WRITE, a 2-byte READ and an 8-byte
 * FETCH_ADD, one at a time, the next posted when the previous completed,
 * as perftest's latency tests do; everything up to the next post counts
 * (the ACKs and timers of both ends). Per operation, that is the engine's
 * share of a round trip.
 */
#include "model.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QCAP 4096
#define PKT_MAX (MRE_MAX_HDR_LEN + 16 + MRE_MAX_PAYLOAD + MRE_MAX_BLOB)
#define DELAY 5000
#define BYTES (16u << 20)
#define MSG (256u << 10)
#define SMALL_OPS 1000

struct wpkt {
	u64 at;
	u32 to;
	u32 len;
	u8 data[PKT_MAX];
};

static struct {
	struct mdl_node n[2];
	struct mre_conn c[2];
	struct mdl_qp qp[2];
	struct wpkt *q;		/* FIFO: every packet takes DELAY */
	u32 head;
	u32 tail;
	u64 now;
	u8 *src;
	u8 *dst;
} w;

static void out(struct mdl_node *n, u32 peer, const struct mre_xmit *x,
		const u8 *pkt, u32 len)
{
	struct wpkt *k;

	if (w.tail - w.head == QCAP)
		abort();		/* sized so that it never happens */
	k = &w.q[w.tail++ % QCAP];
	k->at = w.now + DELAY;
	k->to = peer;
	k->len = len;
	memcpy(k->data, pkt, len);
}

static void setup(void)
{
	struct mre_config cfg;
	u32 i;

	mre_config_default(&cfg);
	w.q = calloc(QCAP, sizeof(*w.q));
	w.src = malloc(BYTES);
	w.dst = calloc(1, BYTES);
	if (!w.q || !w.src || !w.dst)
		abort();
	memset(w.src, 0x5a, BYTES);
	w.now = 1000;
	for (i = 0; i < 2; i++) {
		mdl_node_init(&w.n[i], i, 7, &cfg);
		w.n[i].out = out;
		w.n[i].rx_no_run = true;	/* run() follows every mdl_rx() */
		mdl_conn(&w.n[i], 1 - i, &w.c[i], calloc(1, mre_conn_mem_size(&cfg)));
	}
	mdl_mr_reg(&w.n[1], w.dst, BYTES, 0x100000,
		   MDL_ACC_RWRITE | MDL_ACC_RREAD | MDL_ACC_RATOMIC, NULL);
	mdl_qp_init(&w.n[0], &w.qp[0], 17, 1, 1017, MRE_MAX_PAYLOAD);
	mdl_qp_init(&w.n[1], &w.qp[1], 1017, 0, 17, MRE_MAX_PAYLOAD);
}

static u64 deadline[2];

/* the engine's contract: run after every packet received, and at deadlines */
static void run(u32 i)
{
	deadline[i] = mdl_run(&w.n[i], w.now);
}

static u64 earliest(u64 a, u64 b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/* deliver packets and serve deadlines until node 0 has @done completions */
static void until_done(u32 done)
{
	while (w.qp[0].sq_done < done) {
		u64 next = earliest(deadline[0], deadline[1]);

		if (w.head != w.tail && (!next || w.q[w.head % QCAP].at <= next)) {
			struct wpkt *k = &w.q[w.head++ % QCAP];

			w.now = MRE_MAX(w.now, k->at);
			mdl_rx(&w.n[k->to], 1 - k->to, k->data, k->len, false, w.now);
			run(k->to);
		} else if (next) {
			w.now = MRE_MAX(w.now, next);
			if (deadline[0] && deadline[0] <= w.now)
				run(0);
			if (deadline[1] && deadline[1] <= w.now)
				run(1);
		} else {
			abort();	/* stuck */
		}
	}
}

/* everything measured happens in here (callgrind --toggle-collect) */
void cost_transfer(void);
void cost_transfer(void)
{
	u32 off;

	for (off = 0; off < BYTES; off += MSG) {
		struct mre_wqe wr = { .op = MRE_OP_WRITE, .len = MSG,
				      .rkey = 0x100, .raddr = 0x100000 + off };

		mdl_post_send(&w.qp[0], &wr, w.src + off, off);
	}
	run(0);
	run(1);
	until_done(BYTES / MSG);
}

/* one small operation of each kind in turn, each when the last is done */
void cost_small(void);
void cost_small(void)
{
	static const struct mre_wqe kinds[3] = {
		{ .op = MRE_OP_WRITE, .len = 2, .rkey = 0x100, .raddr = 0x100000 },
		{ .op = MRE_OP_READ_REQ, .len = 2, .rkey = 0x100, .raddr = 0x100000 },
		{ .op = MRE_OP_ATOMIC_REQ, .aop = MRE_AOP_FETCH_ADD, .len = 8,
		  .swap_add = 1, .rkey = 0x100, .raddr = 0x100008 },
	};
	u32 i;

	for (i = 0; i < 3 * SMALL_OPS; i++) {
		mdl_post_send(&w.qp[0], &kinds[i % 3], w.src + 64 * (i % 3), i);
		run(0);
		until_done(w.qp[0].sq_done + 1);
	}
}

int main(int argc, char **argv)
{
	const struct mre_counters *a = &w.n[0].ep.ctr, *b = &w.n[1].ep.ctr;

	setup();
	if (argc > 1 && !strcmp(argv[1], "small")) {
		cost_small();
		printf("small_ops %u\npackets %llu\nacks_sent %llu\nsim_us %llu\n",
		       3 * SMALL_OPS,
		       (unsigned long long)(w.n[0].ep.ctr.tx_data + w.n[1].ep.ctr.tx_data +
					    a->tx_ack + b->tx_ack),
		       (unsigned long long)(a->tx_ack + b->tx_ack), w.now / 1000);
		return w.qp[0].log[0].status ? 1 : 0;
	}
	cost_transfer();
	if (memcmp(w.src, w.dst, BYTES) || w.qp[0].log[0].status)
		return 1;
	printf("bytes %u\ndata_sent %llu\ndata_received %llu\nretx %llu\nacks_sent %llu\nacks_received %llu\nsim_us %llu\n",
	       BYTES, a->tx_data, b->rx_data, a->tx_retx, b->tx_ack, a->rx_ack,
	       w.now / 1000);
	return 0;
}
