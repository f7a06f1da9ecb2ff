// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: hostile packets into a live connection.
 *
 * Two model hosts (tests/unit/model.c) open a connection over a wire with a
 * fixed delay and start real traffic on it: WRITEs, a SEND, a READ and an
 * ATOMIC one way, a WRITE the other. Then the input is read as records
 *
 *	ctl (1 byte) | len (2 bytes, big-endian) | len bytes of datagram
 *
 * each handed to one host as if it came from the other. ctl bit 0: first
 * overwrite dst_cid with the receiving connection's id (so most records get
 * past the connection lookup and reach the engine's state machines) and,
 * in a DATA packet that parses, make the sequence values live: the TSN
 * near the receiver's window base, the PSN near its path's, the streams
 * the connected ones, the rdsn near the stream's next (some of each just
 * outside their windows; the fuzzed values choose the offsets); bit 1:
 * to host 0 instead of host 1; bit 2: CE mark; bits 3-7: advance the clock
 * by that many 500 ns steps first, delivering what the wire holds. The
 * genuine traffic keeps flowing in between, and after the last record the
 * pair runs on for 5 ms of simulated time.
 *
 * A bug is: any crash or sanitizer report; a placement outside a target
 * (an MR's range and rights, a posted receive, the buffer of one of our
 * own READs or ATOMICs; not a receive already completed, which the model
 * refuses as the kernel does);
 * one packet that takes more than a second of CPU (a loop bounded by a
 * wire value). libFuzzer's -timeout bounds a whole input. A receive the
 * hostile peer completes out of order is its own doing: the model, like
 * the kernel, completes nothing out of order and fails the QP.
 */
#include <time.h>
#include "model.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BUG() abort()
#define QCAP 512
#define PKT_MAX (MRE_MAX_HDR_LEN + 16 + MRE_MAX_PAYLOAD + MRE_MAX_BLOB)
#define DELAY 2000
#define MEM 65536

struct wpkt {
	u64 at;
	u32 to;
	u32 len;
	u8 data[PKT_MAX];
};

static struct {
	struct mdl_node n[2];
	struct mre_conn c[2];
	u8 cmem[2][1 << 16];
	struct mdl_qp qp[2];
	u8 mem[2][MEM];
	u8 src[MEM];
	u8 rbuf[4096];
	struct wpkt q[QCAP];	/* a FIFO: every packet takes DELAY */
	u32 qhead;
	u32 qtail;
	u64 now;
	u32 steps;
} w;

static void out(struct mdl_node *n, u32 peer, const struct mre_xmit *x,
		const u8 *pkt, u32 len)
{
	struct wpkt *k;

	if (w.qtail - w.qhead == QCAP || len > PKT_MAX)
		return;			/* a local drop: the engine recovers */
	k = &w.q[w.qtail++ % QCAP];
	k->at = w.now + DELAY;
	k->to = peer;
	k->len = len;
	memcpy(k->data, pkt, len);
}

/* hand over everything due by now, oldest first */
static void deliver(void)
{
	while (w.qhead != w.qtail && w.q[w.qhead % QCAP].at <= w.now) {
		static struct wpkt k;

		k = w.q[w.qhead++ % QCAP];
		mdl_rx(&w.n[k.to], 1 - k.to, k.data, k.len, false, w.now);
	}
}

static u64 run_both(void)
{
	u64 a = mdl_run(&w.n[0], w.now), b = mdl_run(&w.n[1], w.now);

	return !a ? b : !b ? a : a < b ? a : b;
}

/* run the pair for @ns of simulated time, event to event */
static void advance(u64 ns)
{
	u64 end = w.now + ns;
	u32 steps = 0;

	while (w.now < end && steps++ < 20000) {
		u64 next = run_both(), t = end;

		w.steps++;
		deliver();
		if (w.qhead != w.qtail)
			t = MRE_MIN(t, w.q[w.qhead % QCAP].at);
		if (next && next > w.now)
			t = MRE_MIN(t, next);
		w.now = MRE_MAX(t, w.now + 1);
	}
	deliver();
	run_both();
}

static void post(void)
{
	struct mre_wqe wr = { .op = MRE_OP_WRITE, .len = 16384, .rkey = 0x100,
			      .raddr = 0x10000 };
	struct mre_wqe snd = { .op = MRE_OP_SEND, .len = 3000, .flags = MRE_WQE_IMM };
	struct mre_wqe rd = { .op = MRE_OP_READ_REQ, .len = 8192, .rkey = 0x100,
			      .raddr = 0x14000 };
	struct mre_wqe at = { .op = MRE_OP_ATOMIC_REQ, .aop = MRE_AOP_FETCH_ADD,
			      .len = 8, .rkey = 0x100, .raddr = 0x18000, .swap_add = 1 };

	mdl_post_recv(&w.qp[1], w.rbuf, sizeof(w.rbuf), 1);
	mdl_post_send(&w.qp[0], &wr, w.src, 1);
	mdl_post_send(&w.qp[0], &snd, w.src, 2);
	mdl_post_send(&w.qp[0], &rd, w.src + 16384, 3);
	mdl_post_send(&w.qp[0], &at, w.src + 32768, 4);
	mdl_post_send(&w.qp[0], &wr, w.src, 5);
	wr.raddr = 0x10000;
	mdl_post_send(&w.qp[1], &wr, w.src, 6);
}

static void setup(void)
{
	struct mre_config cfg;
	u32 i;

	mre_config_default(&cfg);
	cfg.window_log2 = 6;
	cfg.conn_max_cwnd = 64;
	cfg.npaths = 4;
	if (mre_config_check(&cfg) || mre_conn_mem_size(&cfg) > sizeof(w.cmem[0]))
		BUG();
	w.qhead = w.qtail = 0;
	w.now = 1000;
	w.steps = 0;
	for (i = 0; i < 2; i++) {
		mdl_node_init(&w.n[i], i, 0x5eed, &cfg);
		w.n[i].out = out;
		mdl_conn(&w.n[i], 1 - i, &w.c[i], w.cmem[i]);
		memset(w.mem[i], 0, MEM);
		mdl_mr_reg(&w.n[i], w.mem[i], MEM, 0x10000,
			   MDL_ACC_RWRITE | MDL_ACC_RREAD | MDL_ACC_RATOMIC, NULL);
	}
	mdl_qp_init(&w.n[0], &w.qp[0], 17, 1, 1017, 1024);
	mdl_qp_init(&w.n[1], &w.qp[1], 1017, 0, 17, 1024);
	post();
	advance(10000);		/* CONNECT, RETRY, CONNECT, ACCEPT: traffic in flight */
}

/* the DATA packet in @pkt, its sequence values made live for host @to */
static void make_live(u8 *pkt, u32 len, u32 to)
{
	struct mre_conn *c = &w.c[to];
	struct mdl_qp *qp = &w.qp[to];
	struct mre_pkt p;
	u32 hl;

	if (mre_wire_parse(pkt, len, &p) != MRE_PARSE_OK ||
	    p.type != MRE_T_DATA || p.path >= c->npaths)
		return;
	p.data.tsn = c->rxw.base + (p.data.tsn % 8) - 1;
	p.psn = c->paths[p.path].rx.base + (p.psn % 8) - 1;
	if (p.data.dst_stream & 1) {
		p.data.dst_stream = qp->s.id;
		p.data.src_stream = qp->s.remote_id;
	}
	if (p.data.op == MRE_OP_READ_REQ || p.data.op == MRE_OP_ATOMIC_REQ)
		p.data.rdsn = qp->s.rs_tail + (p.data.rdsn % 20) - 2;
	else if (p.data.op == MRE_OP_SEND || p.data.dflags & MRE_DF_RECV)
		p.data.rsn = qp->rq_done + (p.data.rsn % 4) - 1;
	hl = mre_wire_put(pkt, &p);
	if (hl != p.hdr_len)
		BUG();			/* a packet that parses rebuilds the same */
}

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static u8 pkt[PKT_MAX];
	size_t off = 0;
	double t;
	u32 i;

	setup();
	while (off + 3 <= size) {
		u8 ctl = data[off];
		u32 len = (u32)data[off + 1] << 8 | data[off + 2], to = ctl & 2 ? 0 : 1;

		off += 3;
		if (len > size - off)
			len = (u32)(size - off);
		len = MRE_MIN(len, (u32)PKT_MAX);
		memcpy(pkt, data + off, len);
		off += len;
		if (ctl & 1 && len >= 12) {
			put_be64(pkt + 4, w.c[to].cid);
			make_live(pkt, len, to);
		}
		if (ctl >> 3)
			advance((u64)(ctl >> 3) * 500);
		t = cpu_s();
		mdl_rx(&w.n[to], 1 - to, pkt, len, ctl & 4, w.now);
		run_both();
		if (cpu_s() - t > 1.0)
			BUG();		/* unbounded work for one packet */
	}
	advance(5000000);
	for (i = 0; i < 2; i++)
		if (w.n[i].bad_place)
			BUG();
	return 0;
}
