// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Two engines end to end under a fake clock: handshake, every operation,
 * and loss recovery with scripted drops whose consequences are exact.
 */
#include "pair.h"
#include "cc.h"

#define KB 1024u
#define BUF (256 * KB)

struct rig {
	struct pair *p;
	struct mdl_qp *a, *b;
	u8 *src, *dst, *cnt;
	struct mdl_mr *mr;	/* on node 1: the WRITE/READ target */
};

static void fill(u8 *b, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		b[i] = (u8)(seed * 131 + i * 7 + (i >> 8));
}

static bool same(const u8 *a, const u8 *b, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static void rig_init(struct kunit *test, struct rig *r,
		     const struct mre_config *cfg, u64 delay)
{
	struct mre_config def;

	if (!cfg) {
		mre_config_default(&def);
		cfg = &def;
	}
	r->p = pair_new(test, cfg, mre_test_seed(test), delay);
	r->a = MRE_ALLOC(test, sizeof(*r->a));
	r->b = MRE_ALLOC(test, sizeof(*r->b));
	r->src = MRE_ALLOC(test, BUF);
	r->dst = MRE_ALLOC(test, BUF);
	r->cnt = MRE_ALLOC(test, BUF);
	fill(r->src, BUF, 1);
	pair_qps(r->p, r->a, r->b, 17, 1024);
	r->mr = mdl_mr_reg(&r->p->n[1], r->dst, BUF, 0x10000,
			   MDL_ACC_RWRITE | MDL_ACC_RREAD | MDL_ACC_RATOMIC,
			   r->cnt);
}

/* a WRITE from @qp (on node 0) into node 1's MR */
static u32 qp_write(struct rig *r, struct mdl_qp *qp, u32 off, u32 len,
		    u64 wr_id)
{
	struct mre_wqe w = {
		.op = MRE_OP_WRITE, .len = len, .rkey = r->mr->key,
		.raddr = 0x10000 + off,
	};

	return mdl_post_send(qp, &w, r->src + off, wr_id);
}

static u32 write(struct rig *r, u32 off, u32 len, u64 wr_id)
{
	return qp_write(r, r->a, off, len, wr_id);
}

/* every byte of [off, off+len) written exactly once, nothing else touched */
static bool exactly_once(struct rig *r, u32 off, u32 len)
{
	u32 i;

	for (i = 0; i < BUF; i++) {
		u8 want = i >= off && i < off + len;

		if (r->cnt[i] != want)
			return false;
	}
	return same(r->src + off, r->dst + off, len);
}

MRE_TEST(conn_handshake)
{
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	pair_run(r.p, 1000000);
	MRE_EXPECT_EQ(test, r.p->c[0].state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, r.p->c[1].state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, r.p->c[0].remote_cid, r.p->c[1].cid);
	MRE_EXPECT_EQ(test, r.p->c[1].remote_cid, r.p->c[0].cid);
	/* both sides attached a stream, so both opened: 2 CONNECTs, crossing */
	MRE_EXPECT_EQ(test, r.p->n[0].conn_ups, 1);
	MRE_EXPECT_EQ(test, r.p->n[1].conn_ups, 1);
}

/* drop node 1's first CONNECT and its first ACCEPT */
static bool hook_lost_accept(struct pair *p, u32 from, const struct pair_pkt *pk,
			     u64 n, u64 *extra)
{
	u32 *seen = p->hook_ctx;

	if (from != 1 || (pk->type != MRE_T_CONNECT && pk->type != MRE_T_ACCEPT))
		return false;
	return seen[pk->type]++ == 0;
}

/*
 * Node 1 open on node 0's CONNECT, node 0 still connecting (hook_lost_accept
 * dropped its ACCEPT); @w: a WRITE of @len bytes from node 1 (r->b) into
 * node 0's *@mem, whose bytes count their placements in *@cnt.
 */
static void lost_accept(struct kunit *test, struct rig *r, u32 *seen, u32 len,
			u8 **mem, u8 **cnt, struct mre_wqe *w)
{
	struct mdl_mr *mr0;
	u32 i;

	rig_init(test, r, NULL, 5000);
	*mem = MRE_ALLOC(test, len);
	*cnt = MRE_ALLOC(test, len);
	mr0 = mdl_mr_reg(&r->p->n[0], *mem, len, 0x20000, MDL_ACC_RWRITE,
			 *cnt);
	*w = (struct mre_wqe){ .op = MRE_OP_WRITE, .len = len,
			       .raddr = 0x20000, .rkey = mr0->key };
	r->p->hook = hook_lost_accept;
	r->p->hook_ctx = seen;
	for (i = 0; i < 1000 && r->p->c[1].state != MRE_CONN_ESTABLISHED; i++)
		pair_step(r->p);
}

/* every byte of @mem is r->src's, placed once */
static bool placed_once(const struct rig *r, const u8 *mem, const u8 *cnt,
			u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (cnt[i] != 1 || mem[i] != r->src[i])
			return false;
	return true;
}

/*
 * Node 1 opens on node 0's CONNECT, but its ACCEPT (and its own CONNECT)
 * is lost, and it sends a WRITE at once. Node 0 is still connecting and
 * drops the DATA; its CONNECT again draws a second ACCEPT, which must name
 * the same first TSN as the lost one: named from where node 1's sending
 * stands now, it put the WRITE's TSN below node 0's window, so its resend
 * was taken for a duplicate and acknowledged, and the WRITE completed with
 * nothing placed.
 */
MRE_TEST(conn_accept_again_same_isn)
{
	u32 seen[MRE_T_MAX] = { 0 };
	struct mre_wqe w;
	struct rig r;
	u8 *mem, *cnt;

	lost_accept(test, &r, seen, 64, &mem, &cnt, &w);
	MRE_ASSERT(test, r.p->c[1].state == MRE_CONN_ESTABLISHED);
	MRE_EXPECT_NE(test, r.p->c[0].state, MRE_CONN_ESTABLISHED);
	mdl_post_send(r.b, &w, r.src, 9);
	pair_run(r.p, 1000000000ULL);
	MRE_EXPECT_EQ(test, seen[MRE_T_ACCEPT], 2);
	MRE_EXPECT_EQ(test, r.p->c[0].state, MRE_CONN_ESTABLISHED);
	MRE_ASSERT(test, r.b->nlog == 1);
	MRE_EXPECT_EQ(test, r.b->log[0].status, MRE_ST_OK);
	MRE_EXPECT(test, placed_once(&r, mem, cnt, 64));
}

/*
 * The same lost ACCEPT, with 8 KiB (8 packets) sent at once: node 0, still
 * connecting, drops them, but they name its id, so it sends its CONNECT
 * again at once (MR-5.1-14); node 1 has heard nothing from node 0 since it
 * accepted, so its ACCEPT goes again and all it had out with it
 * (MR-5.1-15). The WRITE completes in a few round trips (10 us each here).
 * Before: node 0 waited for its CONNECT timer (connect_ns, 1 ms), node 1
 * for its RTO without an RTT sample (rto_init, 1 ms): 2 ms.
 */
MRE_TEST(conn_accept_lost_recovers_in_rtts)
{
	u32 seen[MRE_T_MAX] = { 0 };
	struct mre_wqe w;
	struct rig r;
	u8 *mem, *cnt;
	u64 t0;
	u32 i;

	lost_accept(test, &r, seen, 8 * KB, &mem, &cnt, &w);
	MRE_ASSERT(test, r.p->c[1].state == MRE_CONN_ESTABLISHED);
	MRE_ASSERT(test, r.p->c[0].state != MRE_CONN_ESTABLISHED);
	t0 = r.p->now;
	mdl_post_send(r.b, &w, r.src, 9);
	for (i = 0; i < 100000 && !r.b->nlog && pair_step(r.p); i++)
		;
	MRE_ASSERT(test, r.b->nlog == 1);
	MRE_EXPECT_EQ(test, r.b->log[0].status, MRE_ST_OK);
	MRE_EXPECT_LE(test, r.p->now - t0, 100000ULL);
	MRE_EXPECT_EQ(test, r.p->c[0].state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_GE(test, r.p->n[0].ep.ctr.drop_state, 1ULL);
	MRE_EXPECT_GE(test, r.p->n[1].ep.ctr.loss_rto, 8ULL);
	MRE_EXPECT_GE(test, r.p->n[1].tr[MRE_TR_LOSS][MRE_TRW_ACCEPT], 8);
	MRE_EXPECT(test, placed_once(&r, mem, cnt, 8 * KB));
}

MRE_TEST(conn_write_lossless)
{
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	write(&r, 0, 64 * KB, 7);
	pair_run(r.p, 10000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 1);
	MRE_EXPECT_EQ(test, r.a->log[0].wr_id, 7);
	MRE_EXPECT_EQ(test, r.a->log[0].status, MRE_ST_OK);
	MRE_EXPECT(test, exactly_once(&r, 0, 64 * KB));
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.tx_retx, 0);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.tx_data, 64);
	MRE_EXPECT_EQ(test, r.a->order_violations, 0);
	/* both take PARITY (CONNECT, ACCEPT), but nothing was lost: none */
	MRE_EXPECT(test, r.p->c[0].peer_parity && r.p->c[1].peer_parity);
	MRE_EXPECT_EQ(test, r.p->by_type[0][MRE_T_PARITY], 0);
}


/* drop DATA packets number *ctx (counted from 0, node 0 to node 1) */
struct drops {
	u64 idx[8];
	u32 n;
	u64 data_seen;
	int type;		/* MRE_T_* counted, default DATA */
	int path;		/* >= 0: drop everything on this path ... */
	u64 from_t, to_t;	/* ... between these times */
	u32 from;
};

static bool hook_drops(struct pair *p, u32 from, const struct pair_pkt *pk,
		       u64 n, u64 *extra)
{
	struct drops *d = p->hook_ctx;
	u32 i;
	u64 k;

	if (d->path >= 0 && from == d->from && pk->path == d->path &&
	    p->now >= d->from_t && p->now < d->to_t)
		return true;
	if (from != d->from || pk->type != (d->type ? d->type : MRE_T_DATA))
		return false;
	k = d->data_seen++;
	for (i = 0; i < d->n; i++)
		if (d->idx[i] == k)
			return true;
	return false;
}

static void set_drops(struct rig *r, struct drops *d)
{
	r->p->hook = hook_drops;
	r->p->hook_ctx = d;
}

MRE_TEST(conn_one_loss_fast_retransmit)
{
	struct drops d = { .idx = { 10 }, .n = 1, .path = -1 };
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	set_drops(&r, &d);
	write(&r, 0, 128 * KB, 1);
	pair_run(r.p, 10000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 1);
	MRE_EXPECT_EQ(test, r.a->log[0].status, MRE_ST_OK);
	MRE_EXPECT(test, exactly_once(&r, 0, 128 * KB));
	/*
	 * exactly one packet lost, found by SACK or by later packets of
	 * other paths (not by timeout), resent once
	 */
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.tx_retx, 1);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.loss_fast +
		      r.p->n[0].ep.ctr.loss_time, 1);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.rto, 0);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.rx_dup_tsn, 0);
}

/*
 * PARITY (protocol.md 6.7): a 64 KiB WRITE with immediate (64 packets)
 * loses the packets @idx of its last 16, with PARITY on whatever the loss
 * rate (parity_ppm 0) or off (parity_pkts 0); @imm false: a plain WRITE,
 * which gets none. Returns when the receiver was told (its receive
 * completion; the sender's, for a plain WRITE), in fake ns.
 */
static u64 parity_tail(struct kunit *test, const u64 *idx, u32 n, bool on,
		       bool imm, struct rig *r)
{
	struct drops d = { .n = n, .path = -1 };
	struct mre_wqe w = {
		.op = MRE_OP_WRITE, .len = 64 * KB, .flags = imm ? MRE_WQE_IMM : 0,
		.imm = 0x5eed,
	};
	struct mdl_qp *told;
	struct mre_config cfg;
	u32 i;

	for (i = 0; i < n; i++)
		d.idx[i] = idx[i];
	mre_config_default(&cfg);
	cfg.parity_ppm = 0;
	if (!on)
		cfg.parity_pkts = 0;
	rig_init(test, r, &cfg, 5000);
	set_drops(r, &d);
	w.rkey = r->mr->key;
	w.raddr = 0x10000;
	if (imm)
		mdl_post_recv(r->b, NULL, 0, 77);
	mdl_post_send(r->a, &w, r->src, 1);
	told = imm ? r->b : r->a;
	while (!told->nlog && r->p->now < 100000000)
		if (!pair_step(r->p))
			break;
	MRE_EXPECT_EQ(test, told->nlog, 1);
	MRE_EXPECT_EQ(test, told->log[0].status, MRE_ST_OK);
	if (imm)
		MRE_EXPECT_EQ(test, told->log[0].imm, 0x5eed);
	i = (u32)r->p->now;
	pair_run(r->p, 10000000);
	MRE_EXPECT_EQ(test, r->a->nlog, 1);
	MRE_EXPECT(test, exactly_once(r, 0, 64 * KB));
	MRE_EXPECT_EQ(test, r->a->order_violations, 0);
	MRE_EXPECT_EQ(test, r->p->n[0].ep.par.tx, on && imm ? 1 : 0);
	MRE_EXPECT_EQ(test, r->p->by_type[0][MRE_T_PARITY], on && imm ? 1 : 0);
	return i;
}

MRE_TEST(conn_parity_rebuilds_tail)
{
	static const u64 last[] = { 63 }, mid[] = { 55 };
	struct rig r;
	u64 with, without;

	/* the last packet: rebuilt at once, nothing resent */
	with = parity_tail(test, last, 1, true, true, &r);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.par.rebuilt, 1);
	MRE_EXPECT_EQ(test, r.p->n[1].rebuilt, 1);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.tx_retx, 0);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.rx_dup_tsn, 0);
	without = parity_tail(test, last, 1, false, true, &r);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.par.rebuilt, 0);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.tx_retx, 1);
	MRE_LOG(test, "last lost: told at %llu ns with PARITY, %llu without",
		(unsigned long long)with, (unsigned long long)without);
	/* a round trip (10 us) sooner at least */
	MRE_EXPECT_GE(test, without, with + 10000);
	/*
	 * One in the middle of the tail: rebuilt too, but the last packet's
	 * ACK showed a later PSN of its path first (FACK), so it was resent
	 * as well, and arrived as a duplicate.
	 */
	with = parity_tail(test, mid, 1, true, true, &r);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.par.rebuilt, 1);
	MRE_EXPECT_LE(test, r.p->n[0].ep.ctr.tx_retx, 1);
	without = parity_tail(test, mid, 1, false, true, &r);
	MRE_LOG(test, "middle lost: told at %llu ns with PARITY, %llu without",
		(unsigned long long)with, (unsigned long long)without);
	MRE_EXPECT_LE(test, with, without);
	/* a plain WRITE tells the receiver nothing: no PARITY for it */
	parity_tail(test, last, 1, true, false, &r);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.tx_retx, 1);
}

/* two of the tail lost: the PARITY cannot help, the resends do */
MRE_TEST(conn_parity_two_lost)
{
	static const u64 two[] = { 50, 60 };
	struct rig r;

	parity_tail(test, two, 2, true, true, &r);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.par.rebuilt, 0);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.par.short_of, 1);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.tx_retx, 2);
}

/* kernel/param.c's and mroce-ep's software values */
static void soft_config(struct mre_config *cfg)
{
	mre_config_default(cfg);
	cfg->rto_min_ns = 5000000;
	cfg->rto_init_ns = 20000000;
	cfg->ack_delay_ns = 500000;
	cfg->answer_ack_ns = 2000000;
	cfg->dead_ns = 5000000000ULL;
	cfg->ack_freq = 8;
	cfg->ack_ooo_now = 0;
	cfg->loss_queue_pct = 0;
	cfg->probe_min_ns = 4 * cfg->rto_min_ns;
	cfg->connect_ns = cfg->rto_init_ns;
	cfg->active_ns = cfg->rto_min_ns;
}

/* node 0's DATA one at a time over a slow link (@ser_ns each); one in @drop lost */
struct paced {
	u64 ser_ns;
	u64 last;		/* the previous one's arrival */
	u64 drop;
	u64 seen;
};

static bool hook_paced(struct pair *p, u32 from, const struct pair_pkt *pk,
		       u64 n, u64 *extra)
{
	struct paced *x = p->hook_ctx;
	u64 at = p->now + p->delay_ns;

	if (from != 0 || pk->type != MRE_T_DATA)
		return false;
	if (x->seen++ % x->drop == x->drop / 2)
		return true;
	if (x->last + x->ser_ns > at)
		*extra = x->last + x->ser_ns - at;
	x->last = at + *extra;
	return false;
}

/*
 * The module's software-endpoint values (lazy ACKs: every 8 packets of a
 * path or 500 us, none at once for reordering) on a slow link (10 us a
 * packet) that loses one packet in 100: each loss holds tsn_cum, and the
 * TSNs sent after it beyond an ACK's TSN report (64 past tsn_cum) are
 * heard of only by their own path's ACKs, which the receiver holds.
 * They wait the receiver's ACK delay more (loss.h, mre_loss_wait()): the
 * 3 losses are resent, nothing else. Before: 32 resends, 29 of them
 * needless (at 1 % netem loss 34 % of the module's 64 KiB WRITE packets
 * were needless resends).
 */
MRE_TEST(conn_lazy_acks_wide_window_no_spurious)
{
	struct paced x = { .ser_ns = 10000, .drop = 100 };
	struct mre_config cfg;
	const struct mre_counters *ct;
	struct rig r;

	soft_config(&cfg);
	rig_init(test, &r, &cfg, 50000);
	ct = &r.p->n[0].ep.ctr;
	r.p->hook = hook_paced;
	r.p->hook_ctx = &x;
	write(&r, 0, 256 * KB, 1);
	pair_run(r.p, 1000000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 1);
	MRE_EXPECT_EQ(test, r.a->log[0].status, MRE_ST_OK);
	MRE_EXPECT(test, exactly_once(&r, 0, 256 * KB));
	MRE_LOG(test, "retx %llu dup %llu loss_time %llu fast %llu",
		(unsigned long long)ct->tx_retx,
		(unsigned long long)r.p->n[1].ep.ctr.rx_dup_tsn,
		(unsigned long long)ct->loss_time,
		(unsigned long long)ct->loss_fast);
	MRE_EXPECT_LE(test, ct->tx_retx, 4);
	MRE_EXPECT_LE(test, r.p->n[1].ep.ctr.rx_dup_tsn, 1);
}

/*
 * A message of 8 packets over 8 paths, one a path, after a first message
 * that measured every path: its first packet is lost. Nothing later goes
 * on that path, so FACK cannot see it; the packets sent after it on the
 * other paths arrived, so it is lost by send time (loss.c) about one RTT
 * plus the reordering window after it left: not by a tail probe (two
 * RTTs of silence, then a probe's round trip) nor by a timeout.
 */
static void loss_across_paths(struct kunit *test, bool on)
{
	struct drops d = { .idx = { 64 }, .n = 1, .path = -1 };
	struct mre_config cfg;
	const struct mre_counters *ct;
	struct rig r;
	u64 t0;

	mre_config_default(&cfg);
	cfg.loss_time = on;
	rig_init(test, &r, &cfg, 5000);
	ct = &r.p->n[0].ep.ctr;
	set_drops(&r, &d);
	write(&r, 0, 64 * KB, 1);		/* 64 packets of 1 KiB */
	pair_run(r.p, 10000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 1);
	MRE_EXPECT_EQ(test, ct->tx_retx, 0);
	t0 = r.p->now;
	write(&r, 64 * KB, 8 * KB, 2);		/* data packets 64..71 */
	while (r.a->nlog < 2 && pair_step(r.p))
		;
	MRE_EXPECT_EQ(test, r.a->nlog, 2);
	MRE_EXPECT_EQ(test, r.a->log[1].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, ct->tx_retx, 1);
	MRE_EXPECT_EQ(test, ct->loss_fast, 0);
	if (on) {
		MRE_EXPECT_EQ(test, ct->loss_time, 1);
		MRE_EXPECT_EQ(test, ct->tx_tlp + ct->rto + ct->rto_stall, 0);
		MRE_EXPECT_EQ(test, r.p->n[0].tr[MRE_TR_LOSS][MRE_TRW_TIME], 1);
		/* RTT 10 us: lost after about 12.5, resent, acknowledged */
		MRE_EXPECT_LE(test, r.p->now - t0, 30000);
	} else {
		MRE_EXPECT_EQ(test, ct->loss_time, 0);
		MRE_EXPECT_GE(test, r.p->now - t0, 30000);
	}
	pair_run(r.p, 10000000);
	MRE_EXPECT(test, exactly_once(&r, 0, 72 * KB));
	MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.rx_dup_tsn, 0);
	MRE_EXPECT_EQ(test, ct->loss_late, 0);
}

/*
 * A tail-drop bottleneck on node 0's way to node 1 (@ns_per_kb to send
 * 1000 bytes, a buffer of @cap bytes), shared from @on_at to @off_at with
 * a TCP-like flow: a fluid window that grows by an MSS per RTT (its RTT
 * is @base_rtt plus the queue) and is cut to 0.7 when one of its 1500-byte
 * packets finds the buffer full (at most once per RTT), as CUBIC's beta.
 * Node 0's packets join the same FIFO, or are dropped when it is full.
 */
struct tcpq {
	u64 ns_per_kb;
	u64 cap;
	u64 base_rtt;
	u64 on_at, off_at;
	u64 last;		/* the fluid is computed up to here */
	u64 backlog;		/* bytes << 10 */
	u64 credit;		/* TCP's bytes << 10 not yet sent */
	u64 w;			/* TCP's window, bytes */
	u64 cut_at;
	u64 bg_bytes;		/* TCP's bytes through */
	u64 drops;		/* node 0's packets dropped */
};

#define TQ_SH	10
#define TQ_MSS	(1500ull << TQ_SH)

static void tcpq_advance(struct tcpq *q, u64 now)
{
	while (q->last < now) {
		u64 dt = MRE_MIN(now - q->last, 50000), rtt, srv;

		q->last += dt;
		srv = (dt << TQ_SH) * 1000 / q->ns_per_kb;
		q->backlog = q->backlog > srv ? q->backlog - srv : 0;
		if (q->last < q->on_at || q->last >= q->off_at)
			continue;
		if (!q->w)
			q->w = 10 * 1500;
		rtt = q->base_rtt + (q->backlog * q->ns_per_kb >> TQ_SH) / 1000;
		q->credit += (q->w << TQ_SH) * dt / rtt;
		q->w += 1500 * dt / rtt + 1;
		for (; q->credit >= TQ_MSS; q->credit -= TQ_MSS) {
			if (q->backlog + TQ_MSS <= q->cap << TQ_SH) {
				q->backlog += TQ_MSS;
				q->bg_bytes += 1500;
			} else if (q->last - q->cut_at > rtt) {
				q->w = q->w * 7 / 10;
				q->cut_at = q->last;
			}
		}
	}
}

static bool hook_tcpq(struct pair *p, u32 from, const struct pair_pkt *pk,
		      u64 n, u64 *extra)
{
	struct tcpq *q = p->hook_ctx;
	u64 len = (u64)pk->len << TQ_SH;

	tcpq_advance(q, p->now);
	if (from != 0)
		return false;
	if (q->backlog + len > q->cap << TQ_SH) {
		q->drops++;
		return true;
	}
	q->backlog += len;
	*extra = (q->backlog * q->ns_per_kb >> TQ_SH) / 1000;
	return false;
}

/* what one phase of tcpq_run() measured */
struct tcpq_phase {
	u32 kibps;		/* node 0's WRITEs completed */
	u32 tcp_kibps;		/* TCP's bytes through */
	u32 drop_pm;		/* node 0's packets dropped, per 1000 sent */
};

/* node 0 keeps 4 WRITEs of 64 KiB posted until @end: alone, beside TCP, alone */
static void tcpq_run(struct kunit *test, struct rig *r, struct tcpq *q,
		     u64 end, struct tcpq_phase ph[3])
{
	u64 at[3] = { q->on_at, q->off_at, end }, bg = 0, from = 0;
	u64 drops = 0, sent = 0;
	u32 posted = 0, done = 0, i = 0, mark = 0;

	for (; posted < 4; posted++)
		write(r, (posted % 4) * 64 * KB, 64 * KB, posted);
	while (i < 3 && pair_step(r->p)) {
		while (done < r->a->nlog && done < MDL_LOG) {
			MRE_EXPECT_EQ(test, r->a->log[done].status, MRE_ST_OK);
			done++;
			write(r, (posted % 4) * 64 * KB, 64 * KB, posted);
			posted++;
		}
		if (r->p->now < at[i])
			continue;
		ph[i].kibps = (u32)((u64)(done - mark) * 64 * 1000000000 /
				    (r->p->now - from));
		ph[i].tcp_kibps = (u32)((q->bg_bytes - bg) * 1000000000 /
					1024 / (r->p->now - from));
		ph[i].drop_pm = (u32)((q->drops - drops) * 1000 /
				      (r->p->sent[0] - sent + 1));
		MRE_LOG(test, "phase %u: mroce %u KiB/s, TCP %u KiB/s, %u/1000 of mroce's packets dropped",
			i, ph[i].kibps, ph[i].tcp_kibps, ph[i].drop_pm);
		mark = done;
		from = r->p->now;
		bg = q->bg_bytes;
		drops = q->drops;
		sent = r->p->sent[0];
		i++;
	}
	MRE_EXPECT_EQ(test, i, 3);
}

/*
 * Beside TCP on a tail-drop bottleneck without ECN (40 Mbit/s, 100
 * packets of buffer, 0.6 ms base RTT: the guest fabric's "beside TCP"
 * case), with losses and delay as the only signals (loss_queue_pct 300).
 * Alone, the connection's delay marks keep the queue short and lose
 * nothing. When TCP joins it fills the buffer whatever mroce does, and
 * the marks would cut mroce's window to one packet for as long as TCP
 * runs (47 KiB/s, 1 % of the link). A queue that does not drain under
 * MRE_Q_HELD marked windows is not the connection's own: it leaves the
 * queue to losses, cut as CUBIC cuts, grows two packets a window, and
 * holds half (2440 KiB/s against TCP's 2279); when TCP leaves, the queue
 * drains and the marks are back.
 */
MRE_TEST(conn_beside_tcp)
{
	struct tcpq q = {
		.ns_per_kb = 200000, .cap = 150000, .base_rtt = 600000,
		.on_at = 2000000000ULL, .off_at = 10000000000ULL,
	};
	u32 cap = 1000000000 / 200 / 1024;	/* KiB/s */
	struct tcpq_phase ph[3] = { 0 };
	struct mre_config cfg;
	struct rig r;

	soft_config(&cfg);
	cfg.loss_queue_pct = 300;
	rig_init(test, &r, &cfg, 300000);
	r.p->hook = hook_tcpq;
	r.p->hook_ctx = &q;
	tcpq_run(test, &r, &q, 13000000000ULL, ph);
	MRE_EXPECT_GE(test, ph[0].kibps, cap * 85 / 100);
	MRE_EXPECT_LE(test, ph[0].drop_pm, 1);
	MRE_EXPECT_GE(test, ph[1].kibps, cap * 40 / 100);
	MRE_EXPECT_GE(test, ph[1].tcp_kibps, cap * 40 / 100);
	MRE_EXPECT_GE(test, ph[2].kibps, cap * 85 / 100);
	MRE_EXPECT_LE(test, ph[2].drop_pm, 1);
	/*
	 * A backlogged connection alone in a deep buffer fills it (losses
	 * cut it, 0.7): the queue is its own but does not drain. The first
	 * RTT without a queue (here after a pause) gives it back to the marks.
	 */
	MRE_EXPECT_EQ(test, r.p->c[0].q_held, MRE_Q_HELD);
	pair_run(r.p, 1000000000);
	write(&r, 0, 4 * KB, 1000);
	pair_run(r.p, 1000000000);
	MRE_EXPECT_EQ(test, r.p->c[0].q_held, 0);
}

/*
 * From @from on, every packet waits @extra more (a queue that stands);
 * node 0's packets on path @hole are dropped until @hole_end.
 */
struct late {
	u64 from, extra;
	u64 hole_end;
	u16 hole;
};

static bool hook_late(struct pair *p, u32 from, const struct pair_pkt *pk,
		      u64 n, u64 *extra)
{
	struct late *l = p->hook_ctx;

	if (p->now >= l->from)
		*extra = l->extra;
	return from == 0 && pk->path == l->hole && p->now < l->hole_end;
}

/*
 * The module's values over 0.6 ms, a first 64 KiB WRITE delivered, then
 * every packet 126.4 ms later (hook_late): returns node 0's counters.
 */
static const struct mre_counters *late_rig(struct kunit *test,
					   struct rig *r, struct late *l)
{
	struct mre_config cfg;

	soft_config(&cfg);
	rig_init(test, r, &cfg, 300000);
	r->p->hook = hook_late;
	r->p->hook_ctx = l;
	write(r, 0, 64 * KB, 1);
	while (!r->a->nlog && pair_step(r->p))
		;
	MRE_EXPECT_EQ(test, r->a->nlog, 1);
	l->from = r->p->now;
	return &r->p->n[0].ep.ctr;
}

/*
 * The round trip grows from 0.6 ms to 127 ms, past rto_max (100 ms), as a
 * guest fabric's spine queued beside TCP. The first timeouts come before
 * the first answer can (nothing tells the sender yet), and resend a packet
 * each. But the answers then measure the path: timers capped below that
 * round trip, rto_max for an RTO, rto_init (20 ms) for a stall, kept
 * firing for nothing as long as the queue stood (there, 0.27 MiB/s
 * against TCP's 4.11). An RTO is never set below the path's own estimate
 * (SRTT + 4 RTTVAR): after the first round trips nothing more is resent.
 */
MRE_TEST(conn_rtt_beyond_rto_max)
{
	struct late l = { .from = ~0ULL, .extra = 126400000, .hole = 0xffff };
	const struct mre_counters *ct;
	struct rig r;
	u64 stalls, retx;
	u32 i;

	ct = late_rig(test, &r, &l);
	for (i = 0; i < 3; i++)
		write(&r, 64 * KB * (i + 1), 64 * KB, 2 + i);
	pair_run(r.p, 500000000);	/* about 4 of the new round trips */
	stalls = ct->rto + ct->rto_stall;
	retx = ct->tx_retx;
	MRE_LOG(test, "first 0.5 s: retx %llu timeouts %llu", (unsigned long long)retx,
		(unsigned long long)stalls);
	MRE_EXPECT_LE(test, retx, 64);
	pair_run(r.p, 10000000000ULL);
	MRE_EXPECT_EQ(test, r.a->nlog, 4);
	MRE_EXPECT_EQ(test, r.a->log[3].status, MRE_ST_OK);
	MRE_EXPECT(test, exactly_once(&r, 0, 256 * KB));
	MRE_LOG(test, "after: retx %llu timeouts %llu", (unsigned long long)ct->tx_retx,
		(unsigned long long)(ct->rto + ct->rto_stall));
	MRE_EXPECT_EQ(test, ct->rto + ct->rto_stall, stalls);
	MRE_EXPECT_EQ(test, ct->tx_retx, retx);
}

/*
 * The same round trip of 127 ms, and path 3's route black-holed for a
 * second: the path is found silent and probed. Its probes were given up
 * after at most probe_max (50 ms), before an answer could come back, so
 * it never came back after the hole ended (a guest fabric's path probed
 * 127 times in 4 s beside TCP). A probe now waits for the path's own
 * estimate: the path is good again, and every byte arrives once.
 */
MRE_TEST(conn_probe_answer_beyond_probe_max)
{
	struct late l = { .from = ~0ULL, .extra = 126400000, .hole = 3 };
	const struct mre_counters *ct;
	struct rig r;
	u32 i;

	ct = late_rig(test, &r, &l);
	pair_run(r.p, 1000000000);	/* the paths learn the new RTT */
	l.hole_end = r.p->now + 1000000000;
	for (i = 0; i < 3; i++)
		write(&r, 64 * KB * (i + 1), 64 * KB, 2 + i);
	pair_run(r.p, 20000000000ULL);
	MRE_EXPECT_EQ(test, r.a->nlog, 4);
	MRE_EXPECT_EQ(test, r.a->log[3].status, MRE_ST_OK);
	MRE_EXPECT(test, exactly_once(&r, 0, 256 * KB));
	MRE_LOG(test, "failed %llu recovered %llu probes %llu",
		(unsigned long long)ct->path_failed,
		(unsigned long long)ct->path_recovered,
		(unsigned long long)ct->tx_probe);
	MRE_EXPECT_GE(test, ct->path_failed, 1);
	MRE_EXPECT_GE(test, ct->path_recovered, ct->path_failed);
	MRE_EXPECT_EQ(test, r.p->c[0].paths[3].health, MRE_PATH_GOOD);
}

MRE_TEST(conn_loss_found_across_paths)
{
	loss_across_paths(test, true);
}

MRE_TEST(conn_loss_across_paths_off)
{
	loss_across_paths(test, false);
}

/*
 * 64 packets: the last one on its path goes missing; @tlp: tail probes on;
 * @local: the sender's peer is marked as itself (mre_conn_set_local()),
 * which arms no probes whatever the configuration says
 */
static void tail_loss(struct kunit *test, bool tlp, bool local)
{
	struct drops d = { .idx = { 63 }, .n = 1, .path = -1 };
	struct mre_config cfg;
	struct rig r;

	mre_config_default(&cfg);
	cfg.tlp = tlp;
	rig_init(test, &r, &cfg, 5000);
	set_drops(&r, &d);
	mre_conn_set_local(&r.p->c[0], local);
	if (local)
		tlp = false;
	write(&r, 0, 64 * KB, 1);
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 1);
	MRE_EXPECT_EQ(test, r.a->log[0].status, MRE_ST_OK);
	MRE_EXPECT(test, exactly_once(&r, 0, 64 * KB));
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.tx_retx, 1);
	if (tlp) {
		/* a probe two RTTs after the silence finds it, not a timeout */
		MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.tx_tlp, 1);
		MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.loss_tlp, 1);
		MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.rto +
			      r.p->n[0].ep.ctr.rto_stall, 0);
		/* traced once, as the tail probe's find, with its TSN */
		MRE_EXPECT_EQ(test, r.p->n[0].tr[MRE_TR_LOSS][MRE_TRW_TLP], 1);
		MRE_EXPECT_EQ(test, r.p->n[0].tr_last.ev, MRE_TR_LOSS);
	} else {
		/* a timeout (the path's, or the whole connection went quiet) */
		MRE_EXPECT_GE(test, r.p->n[0].ep.ctr.rto +
			      r.p->n[0].ep.ctr.rto_stall, 1);
		MRE_EXPECT_EQ(test, r.p->n[0].tr[MRE_TR_LOSS][MRE_TRW_RTO] +
			      r.p->n[0].tr[MRE_TR_LOSS][MRE_TRW_STALL], 1);
	}
	MRE_EXPECT_EQ(test, r.p->n[0].tr[MRE_TR_LOSS][MRE_TRW_FAST], 0);
	MRE_EXPECT_EQ(test, r.p->n[0].tr_bad, 0);
}

MRE_TEST(conn_tail_loss_tlp)
{
	tail_loss(test, true, false);
}

/* a connection to ourselves: no probe, the RTO recovers the loop's drop */
MRE_TEST(conn_local_no_tail_probe)
{
	tail_loss(test, true, true);
}

/*
 * A node's connection to itself, as the kernel's one-device pair has: two
 * QPs of node 0 on it, a 2-byte WRITE, a 2-byte READ and a 64 KiB WRITE
 * from one into an MR of the node. Every ACK is read where it is made
 * (mre_ack_owed()): none goes on the wire, each is counted sent and
 * received, and everything completes as over a wire.
 */
MRE_TEST(conn_self_ack_in_place)
{
	struct mre_wqe w2 = { .op = MRE_OP_WRITE, .len = 2, .raddr = 0x10000 };
	struct mre_wqe rd = { .op = MRE_OP_READ_REQ, .len = 2, .raddr = 0x10000 };
	struct mre_wqe w64 = { .op = MRE_OP_WRITE, .len = 64 * KB,
			       .raddr = 0x10000 };
	struct mdl_qp *a = MRE_ALLOC(test, sizeof(*a));
	struct mdl_qp *b = MRE_ALLOC(test, sizeof(*b));
	struct mre_conn *self = MRE_ALLOC(test, sizeof(*self));
	u8 *src = MRE_ALLOC(test, 64 * KB), *dst = MRE_ALLOC(test, 64 * KB);
	u8 *sink = MRE_ALLOC(test, 2);
	const struct mre_counters *k;
	struct mre_config cfg;
	struct mdl_mr *mr;
	struct pair *p;
	u32 i;

	mre_config_default(&cfg);
	p = pair_new(test, &cfg, mre_test_seed(test), 5000);
	mdl_conn(&p->n[0], 0, self,
		 MRE_ALLOC(test, mre_conn_mem_size(&cfg)));
	mre_conn_set_local(self, true);
	mdl_qp_init(&p->n[0], a, 40, 0, 41, 1024);
	mdl_qp_init(&p->n[0], b, 41, 0, 40, 1024);
	mr = mdl_mr_reg(&p->n[0], dst, 64 * KB, 0x10000,
			MDL_ACC_RWRITE | MDL_ACC_RREAD, NULL);
	w2.rkey = rd.rkey = w64.rkey = mr->key;
	fill(src, 64 * KB, 3);
	mdl_post_send(a, &w2, src, 1);
	mdl_post_send(a, &rd, sink, 2);
	mdl_post_send(a, &w64, src, 3);
	pair_run(p, 100000000);
	k = &p->n[0].ep.ctr;
	MRE_ASSERT(test, a->nlog == 3);
	for (i = 0; i < 3; i++)
		MRE_EXPECT_EQ(test, a->log[i].status, MRE_ST_OK);
	for (i = 0; i < 64 * KB && dst[i] == src[i]; i++)
		;
	MRE_EXPECT_EQ(test, i, 64 * KB);
	MRE_EXPECT(test, sink[0] == src[0] && sink[1] == src[1]);
	MRE_EXPECT_EQ(test, self->state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, self->remote_cid, self->cid);
	/* the ACKs: made and read, none sent */
	MRE_EXPECT_GE(test, k->tx_ack, 2);
	MRE_EXPECT_EQ(test, k->rx_ack, k->tx_ack);
	MRE_EXPECT_EQ(test, p->by_type[0][MRE_T_ACK], 0);
	MRE_EXPECT_EQ(test, k->tx_retx, 0);
	MRE_EXPECT_EQ(test, k->drop_ack + k->drop_foreign + k->drop_state, 0);
	MRE_EXPECT_EQ(test, p->n[1].ep.ctr.rx_pkts, 0);
}

MRE_TEST(conn_tail_loss_rto)
{
	tail_loss(test, false, false);
}

/* four 64 KiB WRITEs with @ppm per million of loss both ways, ACKs included */
/* four 64 KiB WRITEs through random loss; @parity: PARITY allowed */
static void lossy_writes(struct kunit *test, struct rig *r, u64 *ppm,
			 bool parity)
{
	struct mre_config cfg;
	u32 i;

	mre_config_default(&cfg);
	if (!parity)
		cfg.parity_pkts = 0;
	rig_init(test, r, &cfg, 5000);
	r->p->hook = pair_hook_loss;
	r->p->hook_ctx = ppm;
	for (i = 0; i < 4; i++)
		write(r, i * 64 * KB, 64 * KB, i);
	pair_run(r->p, 2000000000ULL);
	MRE_EXPECT_EQ(test, r->a->nlog, 4);
}

MRE_TEST(conn_random_loss_exactly_once)
{
	u64 ppm = 50000;	/* 5 % */
	struct rig r;
	u32 i;

	lossy_writes(test, &r, &ppm, true);
	for (i = 0; i < r.a->nlog; i++) {
		MRE_EXPECT_EQ(test, r.a->log[i].wr_id, i);
		MRE_EXPECT_EQ(test, r.a->log[i].status, MRE_ST_OK);
	}
	MRE_EXPECT(test, exactly_once(&r, 0, 256 * KB));
	MRE_EXPECT_GE(test, r.p->dropped, 10);
	MRE_EXPECT_EQ(test, r.a->order_violations, 0);
}

static u32 tr_sum(const struct mdl_node *n, u32 ev)
{
	u32 w, sum = 0;

	for (w = 0; w < MRE_TRW_MAX; w++)
		sum += n->tr[ev][w];
	return sum;
}

/* LOSS events a timer traced (loss_rto counts them: protocol.md 6.3) */
static u64 timer_losses(const struct mdl_node *n)
{
	return (u64)n->tr[MRE_TR_LOSS][MRE_TRW_RTO] +
	       n->tr[MRE_TR_LOSS][MRE_TRW_STALL] +
	       n->tr[MRE_TR_LOSS][MRE_TRW_PROBE] +
	       n->tr[MRE_TR_LOSS][MRE_TRW_PLANE] +
	       n->tr[MRE_TR_LOSS][MRE_TRW_ACCEPT];
}

/*
 * mre_ops.trace through a lossy transfer: every loss, repath and open the
 * counters saw is reported once, with the reason the counter names, and
 * each path's health and port replayed from the events end where the
 * path is.
 */
MRE_TEST(conn_trace_follows_counters)
{
	u64 ppm = 30000;	/* 3 % */
	struct rig r;
	u32 i, k;

	/* no PARITY: a loss it repaired would be no loss to the sender */
	lossy_writes(test, &r, &ppm, false);
	MRE_EXPECT_GE(test, tr_sum(&r.p->n[0], MRE_TR_LOSS), 5);
	for (k = 0; k < 2; k++) {
		const struct mdl_node *n = &r.p->n[k];
		const struct mre_counters *ct = &n->ep.ctr;
		const struct mre_conn *c = &r.p->c[k];

		MRE_EXPECT_EQ(test, n->tr_bad, 0);
		MRE_EXPECT_EQ(test, n->tr[MRE_TR_LOSS][MRE_TRW_FAST], ct->loss_fast);
		MRE_EXPECT_EQ(test, n->tr[MRE_TR_LOSS][MRE_TRW_TLP], ct->loss_tlp);
		MRE_EXPECT_EQ(test, n->tr[MRE_TR_LOSS][MRE_TRW_TIME],
			      ct->loss_time);
		MRE_EXPECT_EQ(test, n->tr[MRE_TR_LOSS][MRE_TRW_SILENT],
			      ct->loss_silent);
		MRE_EXPECT_EQ(test, timer_losses(n), ct->loss_rto);
		MRE_EXPECT_EQ(test, tr_sum(n, MRE_TR_REPATH), ct->path_repath);
		MRE_EXPECT_EQ(test, tr_sum(n, MRE_TR_CONN_OPEN), ct->conn_open);
		MRE_EXPECT_EQ(test, tr_sum(n, MRE_TR_CONN_FAIL), 0);
		for (i = 0; i < c->npaths; i++) {
			MRE_EXPECT_EQ(test, n->tr_health[i], c->paths[i].health);
			if (n->tr_port[i])
				MRE_EXPECT_EQ(test, n->tr_port[i],
					      c->paths[i].src_port);
		}
	}
	MRE_EXPECT_EQ(test, r.p->n[0].tr[MRE_TR_CONN_OPEN][MRE_TRW_ACTIVE] +
		      r.p->n[0].tr[MRE_TR_CONN_OPEN][MRE_TRW_PASSIVE], 1);
}

/* paths of different lengths: reordering between paths, none within one */
static bool hook_skew(struct pair *p, u32 from, const struct pair_pkt *pk,
		      u64 n, u64 *extra)
{
	*extra = (u64)pk->path * 3000;
	return false;
}

MRE_TEST(conn_path_skew_no_spurious)
{
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	r.p->hook = hook_skew;
	write(&r, 0, 256 * KB, 1);
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 1);
	MRE_EXPECT(test, exactly_once(&r, 0, 256 * KB));
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.tx_retx, 0);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.rx_dup_tsn, 0);
}

MRE_TEST(conn_send_recv_imm)
{
	struct mre_wqe w = { .op = MRE_OP_SEND, .flags = MRE_WQE_IMM, .imm = 0xabc };
	u8 *rbuf;
	struct rig r;
	u32 i;

	rig_init(test, &r, NULL, 5000);
	rbuf = MRE_ALLOC(test, 8 * 8 * KB);
	for (i = 0; i < 8; i++)
		mdl_post_recv(r.b, rbuf + i * 8 * KB, 8 * KB, 100 + i);
	for (i = 0; i < 8; i++) {
		w.len = 1000 + i * 900;
		w.imm = 0xabc + i;
		mdl_post_send(r.a, &w, r.src + i * 8 * KB, i);
	}
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 8);
	MRE_EXPECT_EQ(test, r.b->nlog, 8);
	for (i = 0; i < 8 && i < r.b->nlog; i++) {
		MRE_EXPECT_EQ(test, r.b->log[i].wr_id, 100 + i);
		MRE_EXPECT_EQ(test, r.b->log[i].len, 1000 + i * 900);
		MRE_EXPECT_EQ(test, r.b->log[i].imm, 0xabc + i);
		MRE_EXPECT_EQ(test, r.b->log[i].status, MRE_ST_OK);
		MRE_EXPECT(test, same(rbuf + i * 8 * KB, r.src + i * 8 * KB,
				      1000 + i * 900));
	}
	MRE_EXPECT_EQ(test, r.b->order_violations, 0);
}

MRE_TEST(conn_rnr_then_recv)
{
	struct mre_wqe w = { .op = MRE_OP_SEND, .len = 3000 };
	u8 *rbuf;
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	rbuf = MRE_ALLOC(test, 4 * KB);
	mdl_post_send(r.a, &w, r.src, 1);
	pair_run(r.p, 200000);		/* refused: no receive posted */
	MRE_EXPECT_EQ(test, r.a->nlog, 0);
	MRE_EXPECT_GE(test, r.p->n[1].ep.ctr.drop_rnr, 1);
	mdl_post_recv(r.b, rbuf, 4 * KB, 9);
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 1);
	MRE_EXPECT_EQ(test, r.a->log[0].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, r.b->nlog, 1);
	MRE_EXPECT_EQ(test, r.b->log[0].len, 3000);
	MRE_EXPECT(test, same(rbuf, r.src, 3000));
	MRE_EXPECT_GE(test, r.p->n[0].ep.ctr.rnr_wait, 1);
}

MRE_TEST(conn_read)
{
	struct mre_wqe w = { .op = MRE_OP_READ_REQ };
	u64 ppm = 20000;
	u8 *lbuf;
	struct rig r;
	u32 i;

	rig_init(test, &r, NULL, 5000);
	r.p->hook = pair_hook_loss;
	r.p->hook_ctx = &ppm;
	fill(r.dst, BUF, 9);
	lbuf = MRE_ALLOC(test, BUF);
	for (i = 0; i < 4; i++) {
		w.len = 50 * KB + i;
		w.rkey = r.mr->key;
		w.raddr = 0x10000 + i * 60 * KB;
		mdl_post_send(r.a, &w, lbuf + i * 60 * KB, i);
	}
	pair_run(r.p, 2000000000ULL);
	MRE_EXPECT_EQ(test, r.a->nlog, 4);
	for (i = 0; i < r.a->nlog; i++) {
		MRE_EXPECT_EQ(test, r.a->log[i].status, MRE_ST_OK);
		MRE_EXPECT(test, same(lbuf + i * 60 * KB, r.dst + i * 60 * KB,
				      50 * KB + i));
	}
}

/* every ATOMIC_RESP is dropped once: the requests are never re-executed */
static bool hook_drop_resp_once(struct pair *p, u32 from,
				const struct pair_pkt *pk, u64 n, u64 *extra)
{
	u32 *seen = p->hook_ctx;

	/* node 1 sends responses; drop each odd DATA packet it sends */
	return from == 1 && pk->type == MRE_T_DATA && ((*seen)++ & 1) == 0;
}

MRE_TEST(conn_atomic_exactly_once)
{
	struct mre_wqe w = { .op = MRE_OP_ATOMIC_REQ, .aop = MRE_AOP_FETCH_ADD,
			     .len = 8, .swap_add = 3 };
	u32 seen = 0, i, bad = 0;
	u64 *olds, v;
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	r.p->hook = hook_drop_resp_once;
	r.p->hook_ctx = &seen;
	mre_memset(r.dst, 0, 8);
	olds = MRE_ALLOC(test, 8 * 40);
	w.rkey = r.mr->key;
	w.raddr = 0x10000;
	for (i = 0; i < 40; i++)
		mdl_post_send(r.a, &w, (u8 *)&olds[i], i);
	pair_run(r.p, 2000000000ULL);
	MRE_EXPECT_EQ(test, r.a->nlog, 40);
	mre_memcpy(&v, r.dst, 8);
	MRE_EXPECT_EQ(test, v, 40 * 3);
	for (i = 0; i < 40; i++)
		bad += olds[i] != i * 3;
	MRE_EXPECT_EQ(test, bad, 0);
	MRE_EXPECT_GE(test, r.p->n[1].ep.ctr.tx_retx, 10);
}

MRE_TEST(conn_cmp_swap)
{
	struct mre_wqe w = { .op = MRE_OP_ATOMIC_REQ, .aop = MRE_AOP_CMP_SWP,
			     .len = 8 };
	u64 old[2], v = 5;
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	mre_memcpy(r.dst + 8, &v, 8);
	w.rkey = r.mr->key;
	w.raddr = 0x10008;
	w.compare = 5;
	w.swap_add = 77;
	mdl_post_send(r.a, &w, (u8 *)&old[0], 0);
	w.compare = 5;		/* fails now: value is 77 */
	w.swap_add = 99;
	mdl_post_send(r.a, &w, (u8 *)&old[1], 1);
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 2);
	mre_memcpy(&v, r.dst + 8, 8);
	MRE_EXPECT_EQ(test, v, 77);
	MRE_EXPECT_EQ(test, old[0], 5);
	MRE_EXPECT_EQ(test, old[1], 77);
}

MRE_TEST(conn_write_bad_rkey)
{
	struct mre_wqe w = { .op = MRE_OP_WRITE, .len = 4 * KB, .rkey = 0x999,
			     .raddr = 0x10000 };
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	write(&r, 0, 4 * KB, 1);		/* fine */
	mdl_post_send(r.a, &w, r.src, 2);	/* bad key */
	write(&r, 8 * KB, 4 * KB, 3);		/* flushed by the embedder */
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 2);
	MRE_EXPECT_EQ(test, r.a->log[0].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, r.a->log[1].status, MRE_ST_REM_ACCESS);
	MRE_EXPECT_EQ(test, r.a->fatal, MRE_ST_REM_ACCESS);
	MRE_EXPECT_EQ(test, r.b->fatal, MRE_ST_LOC_ACCESS);
	/* nothing landed outside the first write */
	MRE_EXPECT(test, exactly_once(&r, 0, 4 * KB));
}

MRE_TEST(conn_write_out_of_bounds)
{
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	/* MR is BUF long: a write crossing its end must not land at all */
	write(&r, BUF - 2 * KB, 2 * KB, 1);
	{
		struct mre_wqe w = { .op = MRE_OP_WRITE, .len = 4 * KB,
				     .rkey = r.mr->key,
				     .raddr = 0x10000 + BUF - 2 * KB };

		mdl_post_send(r.a, &w, r.src, 2);
	}
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 2);
	MRE_EXPECT_EQ(test, r.a->log[1].status, MRE_ST_REM_ACCESS);
	MRE_EXPECT(test, exactly_once(&r, BUF - 2 * KB, 2 * KB));
}

MRE_TEST(conn_send_too_long)
{
	struct mre_wqe w = { .op = MRE_OP_SEND, .len = 6000 };
	u8 *rbuf;
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	rbuf = MRE_ALLOC(test, 4 * KB);
	mdl_post_recv(r.b, rbuf, 4 * KB, 5);
	mdl_post_send(r.a, &w, r.src, 1);
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 1);
	MRE_EXPECT_EQ(test, r.a->log[0].status, MRE_ST_REM_INV_REQ);
	MRE_EXPECT_EQ(test, r.b->nlog, 1);
	MRE_EXPECT_EQ(test, r.b->log[0].status, MRE_ST_LOC_LEN);
}

/* both ends of the rig's QP pair as UC */
static void rig_uc(struct rig *r)
{
	r->a->s.uc = true;
	r->b->s.uc = true;
}

/* UC: a WRITE with a bad key is dropped at the responder, nobody fails */
MRE_TEST(conn_uc_write_bad_rkey)
{
	struct mre_wqe w = { .op = MRE_OP_WRITE, .len = 4 * KB, .rkey = 0x999,
			     .raddr = 0x10000 };
	struct rig r;
	u32 i;

	rig_init(test, &r, NULL, 5000);
	rig_uc(&r);
	write(&r, 0, 4 * KB, 1);
	mdl_post_send(r.a, &w, r.src, 2);
	write(&r, 4 * KB, 4 * KB, 3);
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 3);
	for (i = 0; i < r.a->nlog; i++)
		MRE_EXPECT_EQ(test, r.a->log[i].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, r.a->fatal, 0);
	MRE_EXPECT_EQ(test, r.b->fatal, 0);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.drop_access, 4); /* per packet */
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.rx_nak, 0);
	MRE_EXPECT(test, exactly_once(&r, 0, 8 * KB));
}

/* UC: a SEND too long fails the responder only; the requester completes */
MRE_TEST(conn_uc_send_too_long)
{
	struct mre_wqe w = { .op = MRE_OP_SEND, .len = 6000 };
	u8 *rbuf;
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	rig_uc(&r);
	rbuf = MRE_ALLOC(test, 4 * KB);
	mdl_post_recv(r.b, rbuf, 4 * KB, 5);
	mdl_post_send(r.a, &w, r.src, 1);
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 1);
	MRE_EXPECT_EQ(test, r.a->log[0].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, r.a->fatal, 0);
	MRE_EXPECT_EQ(test, r.b->nlog, 1);
	MRE_EXPECT_EQ(test, r.b->log[0].status, MRE_ST_LOC_LEN);
	MRE_EXPECT_EQ(test, r.b->fatal, MRE_ST_LOC_LEN);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.rx_nak, 0);
}

/* drop every packet from node 0 (its ACKs) while *ctx is set */
static bool hook_mute0(struct pair *p, u32 from, const struct pair_pkt *pk,
		       u64 n, u64 *extra_delay)
{
	return from == 0 && *(bool *)p->hook_ctx;
}

/*
 * The responder's MR loses its remote read right while a READ's response
 * is being generated (the embedder's check at each packet, xmit). The
 * requester's ACKs are held back meanwhile, so the responder resends
 * packets the requester already has: the NAK must still reach it (on a
 * TSN of its own), and the READ, whose response the requester does not
 * have in full, completes with REM_ACCESS. Only resends failed, so the
 * responder's stream goes on (a resend may be of data the requester has
 * finished with: conn_read_done_then_revoked).
 */
/* a rig with one WRITE done, @w a READ of the MR; its local buffer */
static u8 *read_rig(struct kunit *test, struct rig *r, struct mre_wqe *w)
{
	rig_init(test, r, NULL, 5000);
	write(r, 0, 4 * KB, 1);
	pair_run(r->p, 1000000000ULL);
	MRE_EXPECT(test, r->a->nlog == 1);
	w->rkey = r->mr->key;
	w->raddr = 0x10000;
	return MRE_ALLOC(test, w->len);
}

MRE_TEST(conn_read_right_revoked)
{
	struct mre_wqe w = { .op = MRE_OP_READ_REQ, .len = 60 * KB };
	bool mute = false;
	struct rig r;
	u8 *lbuf;

	lbuf = read_rig(test, &r, &w);
	r.p->hook = hook_mute0;
	r.p->hook_ctx = &mute;
	mdl_post_send(r.a, &w, lbuf, 2);
	pair_run(r.p, 12000);		/* the request there, the response begun */
	MRE_ASSERT(test, r.p->n[1].ep.ctr.tx_data > 0);
	mute = true;			/* the responder hears nothing ... */
	pair_run(r.p, 30000000);	/* ... and resends what arrived */
	MRE_EXPECT(test, r.p->n[1].ep.ctr.tx_retx > 0);
	r.mr->access &= ~(u32)MDL_ACC_RREAD;
	mute = false;
	pair_run(r.p, 1000000000ULL);
	MRE_ASSERT(test, r.a->nlog == 2);
	MRE_EXPECT_EQ(test, r.a->log[1].status, MRE_ST_REM_ACCESS);
	MRE_EXPECT_EQ(test, r.b->fatal, 0);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.tx_nak, 1);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.drop_stream, 0);
}

/*
 * A READ's whole response has arrived and the READ has completed, but the
 * requester's ACKs were lost, so the responder resends response packets;
 * meanwhile the responder's MR went away (as a ULP invalidates an FRWR MR
 * once the peer has its data: NVMe-oF's host, when the target's response
 * arrives). The resends become NOPs and one NAK, which the requester,
 * holding the response, drops: the READ stands, neither stream fails, and
 * the next message goes through.
 */
/* drop every packet from node 0 once the READ (its second message) is done */
static bool hook_mute0_after(struct pair *p, u32 from, const struct pair_pkt *pk,
			     u64 n, u64 *extra_delay)
{
	return from == 0 && ((struct mdl_qp *)p->hook_ctx)->nlog >= 2;
}

/*
 * A READ's response answers its request: once the paths have RTT samples,
 * a small READ is two packets (request, response). Neither asks for an
 * ACK: the requester's path holds nothing once the response is in (no
 * tail probe, no timeout), and the response's ACK comes delayed, after the
 * READ has completed, before the responder's tail timers give up on it (no
 * probe, no resend). ATOMICs do the same.
 */
static bool all_timed(const struct mre_conn *c)
{
	u32 i;

	for (i = 0; i < c->npaths; i++)
		if (!c->paths[i].srtt)
			return false;
	return true;
}

MRE_TEST(conn_read_answered_by_response)
{
	struct mre_config cfg;
	struct mre_wqe w = { .op = MRE_OP_READ_REQ, .len = 2 };
	struct mre_wqe at = { .op = MRE_OP_ATOMIC_REQ, .aop = MRE_AOP_FETCH_ADD,
			      .len = 8, .swap_add = 1 };
	struct rig r;
	u8 *lbuf;
	u32 i, k;

	mre_config_default(&cfg);
	cfg.ack_delay_ns = 500000;	/* the kernel's: the ACK would wait */
	cfg.ack_freq = 8;
	/*
	 * the windows' own asks (twice a window, the connection's and the
	 * path's: small responses keep to one path) beyond the READs below
	 */
	cfg.conn_init_cwnd = 64;
	cfg.init_cwnd = 64;
	rig_init(test, &r, &cfg, 10000);
	/* sprayed (small READs keep to one path): every path measured */
	write(&r, 0, 32 * KB, 1);
	pair_run(r.p, 1000000000ULL);
	w.rkey = at.rkey = r.mr->key;
	w.raddr = at.raddr = 0x10000;
	lbuf = MRE_ALLOC(test, 64);
	/*
	 * Requests ask on a path with no RTT sample, and so do responses: two
	 * READs measure the one path the responder's small responses keep to.
	 */
	for (k = 0; k < 2; k++) {
		mdl_post_send(r.a, &w, lbuf, 2 + k);
		pair_run(r.p, 1000000000ULL);
	}
	MRE_ASSERT(test, all_timed(&r.p->c[0]));
	for (k = 0; k < 8; k++) {
		u64 s0 = r.p->sent[0], s1 = r.p->sent[1];
		u64 probes = r.p->n[0].ep.ctr.tx_probe + r.p->n[0].ep.ctr.tx_tlp;
		u64 rprobes = r.p->n[1].ep.ctr.tx_probe + r.p->n[1].ep.ctr.tx_tlp;
		u64 answered = r.p->n[0].ep.ctr.resp_acks;
		u64 acks = r.p->n[0].ep.ctr.tx_ack;
		u32 n0 = r.a->nlog, j;

		mdl_post_send(r.a, k & 1 ? &at : &w, lbuf, 100 + k);
		for (i = 0; i < 100 && r.a->nlog == n0; i++)
			pair_step(r.p);
		MRE_ASSERT(test, r.a->nlog == n0 + 1);
		MRE_EXPECT_EQ(test, r.a->log[n0].status, MRE_ST_OK);
		/* the request, and no ACK of the response yet */
		MRE_EXPECT_EQ(test, r.p->sent[0] - s0, 1);
		MRE_EXPECT_EQ(test, r.p->sent[1] - s1, 1);	/* the response */
		MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.resp_acks, answered + 1);
		MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.tx_probe +
			      r.p->n[0].ep.ctr.tx_tlp, probes);
		/* nothing of the request is left to time out */
		for (j = 0; j < r.p->c[0].npaths; j++) {
			MRE_EXPECT_EQ(test, r.p->c[0].paths[j].inflight, 0);
			MRE_EXPECT_EQ(test, r.p->c[0].paths[j].tlp_at, 0);
			MRE_EXPECT_EQ(test, r.p->c[0].paths[j].rto_at, 0);
		}
		MRE_EXPECT_EQ(test, r.p->c[0].tsn_una, r.p->c[0].tsn_next);
		pair_run(r.p, 1000000000ULL);	/* the delayed ACK */
		MRE_EXPECT(test, r.p->n[0].ep.ctr.tx_ack > acks);
		MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.tx_probe +
			      r.p->n[1].ep.ctr.tx_tlp, rprobes);
		MRE_EXPECT_EQ(test, r.p->c[1].tsn_una, r.p->c[1].tsn_next);
	}
	pair_run(r.p, 1000000000ULL);	/* the delayed ACKs: harmless */
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.drop_ack, 0);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.tx_retx, 0);
	MRE_EXPECT_EQ(test, r.b->fatal, 0);
}

/*
 * Drop the next drop[0] DATA packets node 1 sends (its responses); count
 * in drop[1] those of them that asked for an ACK (common header, flags);
 * CE-mark the next drop[2] DATA packets node 0 sends.
 */
static bool hook_drop_answers(struct pair *p, u32 from,
			      const struct pair_pkt *pk, u64 n, u64 *extra)
{
	u32 *drop = p->hook_ctx;

	if (from == 0 && pk->type == MRE_T_DATA && drop[2]) {
		drop[2]--;
		((struct pair_pkt *)pk)->ce = 1;
		return false;
	}
	if (from != 1 || pk->type != MRE_T_DATA || !drop[0])
		return false;
	drop[0]--;
	drop[1] += pk->data[3] & MRE_F_ACK_REQ;
	return true;
}

/*
 * Small READs at the kernel module's ACK settings (500 us, every 8),
 * 10 us one way, every path of both ends measured (a WRITE and a READ,
 * sprayed) and a few READs done (the windows' own asks, twice a window,
 * left out of them).
 */
static u8 *answer_rig(struct kunit *test, struct rig *r, struct mre_wqe *w,
		      struct mre_config *cfg)
{
	u8 *lbuf;
	u32 i;

	mre_config_default(cfg);
	cfg->ack_delay_ns = 500000;
	cfg->answer_ack_ns = 2000000;
	cfg->ack_freq = 8;
	cfg->rto_min_ns = 5000000;
	cfg->rto_init_ns = 20000000;
	cfg->conn_init_cwnd = 64;
	cfg->init_cwnd = 64;
	rig_init(test, r, cfg, 10000);
	write(r, 0, 32 * KB, 1);
	pair_run(r->p, 1000000000ULL);
	*w = (struct mre_wqe){ .op = MRE_OP_READ_REQ, .len = 32 * KB,
			       .rkey = r->mr->key, .raddr = 0x10000 };
	lbuf = MRE_ALLOC(test, 32 * KB);
	mdl_post_send(r->a, w, lbuf, 1);
	pair_run(r->p, 1000000000ULL);
	w->len = 2;
	for (i = 0; i < 3; i++) {
		mdl_post_send(r->a, w, lbuf, 2 + i);
		pair_run(r->p, 1000000000ULL);
	}
	return lbuf;
}

/*
 * A lost one-packet answer whose request an ACK of the responder's
 * covered, so the requester no longer watches it (@mode 1: a WRITE right
 * behind the READ, whose ACK covers the request; 2: the request arrives
 * CE-marked and is acknowledged at once), or a lost resend of an answer
 * (3): a lazy tail probe finds it, not the RTO (rto_min 5 ms here). The
 * time the READ took.
 */
static u64 answer_lost_after(struct kunit *test, u32 mode)
{
	u32 drop[3] = { mode == 3 ? 2 : 1, 0, mode == 2 };
	struct mre_config cfg;
	struct mre_wqe w;
	struct rig r;
	u32 i, n0;
	u8 *lbuf;
	u64 t0;

	lbuf = answer_rig(test, &r, &w, &cfg);
	r.p->hook = hook_drop_answers;
	r.p->hook_ctx = drop;
	n0 = r.a->nlog;
	t0 = r.p->now;
	mdl_post_send(r.a, &w, lbuf, 10);
	if (mode == 1)
		write(&r, 4 * KB, 64, 11);
	for (i = 0; i < 100000 && r.a->nlog == n0; i++)
		pair_step(r.p);
	MRE_EXPECT(test, r.a->nlog > n0);
	MRE_EXPECT_EQ(test, r.a->log[n0].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, drop[0], 0);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.rto + r.p->n[1].ep.ctr.rto_stall, 0);
	return r.p->now - t0;
}

MRE_TEST(conn_answer_lost_write_behind)
{
	MRE_EXPECT(test, answer_lost_after(test, 1) < 2000000);
}

MRE_TEST(conn_answer_lost_ce_request)
{
	MRE_EXPECT(test, answer_lost_after(test, 2) < 2000000);
}

MRE_TEST(conn_answer_resend_lost)
{
	MRE_EXPECT(test, answer_lost_after(test, 3) < 2000000);
}

/*
 * A one-packet response probes no tail of its own (an answer tail,
 * protocol.md 6.3): while its ACK may wait answer_ack_ns, the responder
 * arms only its RTO. Lost, it leaves its request unanswered; the
 * requester's tail probe (about two RTTs) reaches the responder, which
 * probes its answer tails at once, and the response is resent. The READ
 * completes in a few RTTs; before, it waited for the responder's lazy
 * tail, ack_delay_ns (500 us here) more than two RTTs.
 */
MRE_TEST(conn_read_answer_lost)
{
	u32 drop[3] = { 0, 0, 0 }, i, j, n0;
	u64 tlp0, tlp1, retx1, t0;
	struct mre_config cfg;
	struct mre_wqe w;
	struct rig r;
	u8 *lbuf;

	lbuf = answer_rig(test, &r, &w, &cfg);
	/* answered at once: the responder's answer tail arms no tail probe */
	n0 = r.a->nlog;
	mdl_post_send(r.a, &w, lbuf, 10);
	for (i = 0; i < 100 && r.a->nlog == n0; i++)
		pair_step(r.p);
	MRE_ASSERT(test, r.a->nlog == n0 + 1);
	for (j = 0, i = 0; j < r.p->c[1].npaths; j++) {
		const struct mre_path *p = &r.p->c[1].paths[j];

		if (!p->inflight)
			continue;
		i++;
		MRE_EXPECT_EQ(test, p->tail, MRE_TAIL_ANSWER);
		MRE_EXPECT_EQ(test, p->tlp_at, 0);
		MRE_EXPECT(test, p->rto_at != 0);
	}
	MRE_EXPECT_EQ(test, i, 1);	/* the response, its ACK held */
	pair_run(r.p, 1000000000ULL);
	MRE_EXPECT_EQ(test, r.p->c[1].inflight, 0);
	/* lost: found by the request's tail probe */
	tlp0 = r.p->n[0].ep.ctr.tx_tlp;
	tlp1 = r.p->n[1].ep.ctr.tx_tlp;
	retx1 = r.p->n[1].ep.ctr.tx_retx;
	drop[0] = 1;
	r.p->hook = hook_drop_answers;
	r.p->hook_ctx = drop;
	n0 = r.a->nlog;
	t0 = r.p->now;
	mdl_post_send(r.a, &w, lbuf, 11);
	for (i = 0; i < 1000 && r.a->nlog == n0; i++)
		pair_step(r.p);
	MRE_ASSERT(test, r.a->nlog == n0 + 1);
	MRE_EXPECT_EQ(test, r.a->log[n0].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, drop[0], 0);
	MRE_EXPECT_EQ(test, drop[1], 0);	/* an answer tail was lost */
	MRE_EXPECT(test, r.p->now - t0 < cfg.ack_delay_ns);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.tx_tlp, tlp0 + 1);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.tx_tlp, tlp1 + 1);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.tx_retx, retx1 + 1);
	pair_run(r.p, 1000000000ULL);
	MRE_EXPECT_EQ(test, r.p->c[0].tsn_una, r.p->c[0].tsn_next);
	MRE_EXPECT_EQ(test, r.p->c[1].tsn_una, r.p->c[1].tsn_next);
	MRE_EXPECT_EQ(test, r.b->fatal, 0);
}

/*
 * A stream of 4 KiB READs at the kernel's ACK settings, posted every
 * 150 us as a host-bound benchmark posts them (ib_read_bw in the guest):
 * each response keeps to one path, so a path sees a response now and then
 * and never ack_freq packets. The last packet of a response of several
 * asks for its ACK: none waits for the delay timer (before, about one
 * timer expiry and ACK per READ: the guest's meter, 0.89 timer interrupts
 * an operation), and the ACKs stay about one a READ.
 */
MRE_TEST(conn_read_stream_acks_asked)
{
	struct mre_counters *k;
	struct mre_config cfg;
	struct mre_wqe w;
	struct rig r;
	u32 i, n0, posted, n = 200;
	u64 t0, ack0, tmr0;
	u8 *lbuf;

	lbuf = answer_rig(test, &r, &w, &cfg);
	k = &r.p->n[0].ep.ctr;
	w.len = 4 * KB;
	n0 = r.a->nlog;
	ack0 = k->tx_ack;
	tmr0 = k->ack_timer;
	t0 = r.p->now;
	for (posted = 0; posted < n; posted++) {
		mdl_post_send(r.a, &w, lbuf, 100 + posted);
		pair_run_until(r.p, t0 + (u64)(posted + 1) * 150000);
	}
	for (i = 0; i < 100000 && r.a->nlog < n0 + n; i++)
		pair_step(r.p);
	MRE_ASSERT(test, r.a->nlog == n0 + n);
	for (i = n0; i < r.a->nlog; i++)
		MRE_EXPECT_EQ(test, r.a->log[i].status, MRE_ST_OK);
	MRE_EXPECT(test, same(lbuf, r.dst, 4 * KB));
	pair_run(r.p, 1000000000ULL);
	MRE_LOG(test, "%u READs: %llu ACKs, %llu by the delay timer", n,
		(unsigned long long)(k->tx_ack - ack0),
		(unsigned long long)(k->ack_timer - tmr0));
	MRE_EXPECT_LE(test, k->ack_timer - tmr0, n / 20);
	MRE_EXPECT_LE(test, k->tx_ack - ack0, n * 3 / 2);
	MRE_EXPECT_EQ(test, r.p->c[1].inflight, 0);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.tx_tlp, 0);
}

/*
 * Small READs and FETCH_ADDs one at a time, as a latency test posts them,
 * at the kernel's ACK settings with 5 % loss both ways (ACKs and probes
 * too): every one completes, each add exactly once, whatever is lost of
 * requests, answers and their probes.
 */
MRE_TEST(conn_small_ops_lossy)
{
	struct mre_wqe rd = { .op = MRE_OP_READ_REQ, .len = 2 };
	struct mre_wqe at = { .op = MRE_OP_ATOMIC_REQ, .aop = MRE_AOP_FETCH_ADD,
			      .len = 8, .swap_add = 1 };
	struct mre_config cfg;
	u64 ppm = 50000, *olds, v;
	u32 i, n0, bad = 0;
	struct rig r;
	u8 *lbuf;

	mre_config_default(&cfg);
	cfg.ack_delay_ns = 500000;	/* the kernel module's */
	cfg.answer_ack_ns = 2000000;
	cfg.ack_freq = 8;
	cfg.rto_min_ns = 5000000;
	cfg.rto_init_ns = 20000000;
	cfg.dead_ns = 5000000000ULL;
	rig_init(test, &r, &cfg, 10000);
	mre_memset(r.dst, 0, 16);
	rd.rkey = at.rkey = r.mr->key;
	rd.raddr = 0x10000;
	at.raddr = 0x10008;
	lbuf = MRE_ALLOC(test, 64);
	olds = MRE_ALLOC(test, 8 * 100);
	r.p->hook = pair_hook_loss;
	r.p->hook_ctx = &ppm;
	for (i = 0; i < 200; i++) {
		n0 = r.a->nlog;
		if (i & 1)
			mdl_post_send(r.a, &at, (u8 *)&olds[i / 2], i);
		else
			mdl_post_send(r.a, &rd, lbuf, i);
		while (r.a->nlog == n0 && pair_step(r.p))
			;
		MRE_ASSERT(test, r.a->nlog == n0 + 1);
		MRE_EXPECT_EQ(test, r.a->log[n0].status, MRE_ST_OK);
	}
	mre_memcpy(&v, r.dst + 8, 8);
	MRE_EXPECT_EQ(test, v, 100);
	for (i = 0; i < 100; i++)
		bad += olds[i] != i;
	MRE_EXPECT_EQ(test, bad, 0);
	MRE_EXPECT_GE(test, r.p->dropped, 10);
	MRE_EXPECT_EQ(test, r.b->fatal, 0);
}

MRE_TEST(conn_read_done_then_revoked)
{
	struct mre_wqe w = { .op = MRE_OP_READ_REQ, .len = 12 * KB };
	struct rig r;
	u8 *lbuf;
	u32 i;

	lbuf = read_rig(test, &r, &w);
	r.p->hook = hook_mute0_after;
	r.p->hook_ctx = r.a;
	mdl_post_send(r.a, &w, lbuf, 2);
	for (i = 0; i < 100000 && r.a->nlog < 2; i++)
		pair_run(r.p, 1000);	/* the response arrives in full */
	MRE_ASSERT(test, r.a->nlog == 2);
	MRE_EXPECT_EQ(test, r.a->log[1].status, MRE_ST_OK);
	MRE_EXPECT(test, same(lbuf, r.dst, w.len));
	r.mr->access &= ~(u32)MDL_ACC_RREAD;	/* before anything is resent */
	pair_run(r.p, 30000000);	/* no ACK: the responder resends, and cannot */
	MRE_EXPECT(test, r.p->n[1].ep.ctr.tx_nak >= 1);
	r.p->hook = NULL;
	pair_run(r.p, 1000000000ULL);
	MRE_EXPECT(test, r.p->n[0].ep.ctr.rx_nak >= 1);
	MRE_EXPECT(test, r.p->n[0].ep.ctr.drop_inv_req >= 1);
	MRE_EXPECT_EQ(test, r.a->fatal, 0);
	MRE_EXPECT_EQ(test, r.b->fatal, 0);
	write(&r, 0, 4 * KB, 3);
	pair_run(r.p, 1000000000ULL);
	MRE_ASSERT(test, r.a->nlog == 3);
	MRE_EXPECT_EQ(test, r.a->log[2].status, MRE_ST_OK);
}

/* a READ arriving on a UC stream is refused: nothing is read, no NAK */
MRE_TEST(conn_uc_refuses_read)
{
	struct mre_wqe w = { .op = MRE_OP_READ_REQ, .len = 4 * KB };
	struct rig r;
	u8 *lbuf;

	rig_init(test, &r, NULL, 5000);
	r.b->s.uc = true;		/* the requester misbehaves as RC */
	lbuf = MRE_ALLOC(test, 4 * KB);
	w.rkey = r.mr->key;
	w.raddr = 0x10000;
	mdl_post_send(r.a, &w, lbuf, 1);
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, r.b->fatal, MRE_ST_LOC_LEN);
	MRE_EXPECT_EQ(test, r.a->nlog, 0);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.rx_nak, 0);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.tx_data, 0);
}

/* UC to a stream the peer does not have: completes, as IB UC does */
MRE_TEST(conn_uc_unknown_stream)
{
	struct mre_wqe w = { .op = MRE_OP_WRITE, .len = 3000, .raddr = 0x10000 };
	struct rig r;
	struct mdl_qp *x;

	rig_init(test, &r, NULL, 5000);
	x = MRE_ALLOC(test, sizeof(*x));
	mdl_qp_init(&r.p->n[0], x, 55, 1, 4242, 1024);	/* peer has no 4242 */
	x->s.uc = true;
	w.rkey = r.mr->key;
	mdl_post_send(x, &w, r.src, 1);
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, x->nlog, 1);
	MRE_EXPECT_EQ(test, x->log[0].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, x->fatal, 0);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.rx_nak, 1);
	MRE_EXPECT(test, exactly_once(&r, 0, 0));
}

MRE_TEST(conn_unknown_stream)
{
	struct rig r;
	struct mdl_qp *x;

	rig_init(test, &r, NULL, 5000);
	x = MRE_ALLOC(test, sizeof(*x));
	mdl_qp_init(&r.p->n[0], x, 55, 1, 4242, 1024);	/* peer has no 4242 */
	{
		struct mre_wqe w = { .op = MRE_OP_WRITE, .len = 3000,
				     .rkey = r.mr->key, .raddr = 0x10000 };

		mdl_post_send(x, &w, r.src, 1);
	}
	write(&r, 64 * KB, 8 * KB, 2);	/* a healthy stream is not disturbed */
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, x->nlog, 1);
	MRE_EXPECT_EQ(test, x->log[0].status, MRE_ST_RETRY_EXC);
	MRE_EXPECT_EQ(test, r.a->nlog, 1);
	MRE_EXPECT_EQ(test, r.a->log[0].status, MRE_ST_OK);
	MRE_EXPECT(test, exactly_once(&r, 64 * KB, 8 * KB));
}

/*
 * A node that never sent anything answers an unknown stream with a NAK,
 * long after the handshake: the NAK is owed an answer from when it leaves,
 * not from the handshake (the dead timer must not fire at once).
 */
MRE_TEST(conn_nak_after_idle)
{
	struct mre_config cfg;
	struct mdl_qp *x;
	struct rig r;

	mre_config_default(&cfg);
	cfg.dead_ns = 50000000;
	rig_init(test, &r, &cfg, 5000);
	pair_run(r.p, 10000000);
	MRE_ASSERT(test, r.p->c[1].state == MRE_CONN_ESTABLISHED);
	r.p->now += 4 * cfg.dead_ns;		/* idle: nothing happens */

	x = MRE_ALLOC(test, sizeof(*x));
	mdl_qp_init(&r.p->n[0], x, 55, 1, 4242, 1024);	/* peer has no 4242 */
	{
		struct mre_wqe w = { .op = MRE_OP_WRITE, .len = 3000,
				     .rkey = r.mr->key, .raddr = 0x10000 };

		mdl_post_send(x, &w, r.src, 1);
	}
	pair_run(r.p, 10000000);
	MRE_EXPECT_EQ(test, x->nlog, 1);
	MRE_EXPECT_EQ(test, x->log[0].status, MRE_ST_RETRY_EXC);
	MRE_EXPECT_EQ(test, r.p->c[1].state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, r.p->n[1].conn_deads, 0);
	MRE_EXPECT_EQ(test, r.p->c[1].tsn_una, r.p->c[1].tsn_next);
}

/* WRITE then SEND: the receive completes only once the WRITE has landed */
static bool hook_delay_first(struct pair *p, u32 from,
			     const struct pair_pkt *pk, u64 n, u64 *extra)
{
	u32 *k = p->hook_ctx;

	if (from == 0 && pk->type == MRE_T_DATA && (*k)++ < 8)
		*extra = 200000;	/* the WRITE's packets crawl */
	return false;
}

MRE_TEST(conn_order_write_then_send)
{
	struct mre_wqe w = { .op = MRE_OP_SEND, .len = 100 };
	u32 k = 0;
	u8 *rbuf;
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	r.p->hook = hook_delay_first;
	r.p->hook_ctx = &k;
	rbuf = MRE_ALLOC(test, KB);
	mdl_post_recv(r.b, rbuf, KB, 1);
	write(&r, 0, 8 * KB, 1);
	mdl_post_send(r.a, &w, r.src, 2);
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, r.b->nlog, 1);
	/* when the receive completed, all 8 KiB + 100 bytes had been placed */
	MRE_EXPECT_EQ(test, r.b->log[0].placed, 8 * KB + 100);
	MRE_EXPECT(test, exactly_once(&r, 0, 8 * KB));
}

/* DATA packets, not the last of their message, that ask for an ACK or not */
struct ackreq {
	u32 req, noreq;
};

static bool hook_ackreq(struct pair *p, u32 from, const struct pair_pkt *pk,
			u64 n, u64 *extra)
{
	struct ackreq *q = p->hook_ctx;
	struct mre_pkt x;

	if (from == 0 && mre_wire_parse(pk->data, pk->len, &x) == MRE_PARSE_OK &&
	    x.type == MRE_T_DATA && !(x.data.dflags & MRE_DF_LAST)) {
		if (x.flags & MRE_F_ACK_REQ)
			q->req++;
		else
			q->noreq++;
	}
	return false;
}

/*
 * A path with no RTT sample of its own asks for every packet's ACK at
 * once (the receiver would hold it ack_delay_ns for a second packet);
 * once measured, only the last packet of a message does.
 */
MRE_TEST(conn_ack_req_until_measured)
{
	struct ackreq q = { 0 };
	struct rig r;
	u32 i;

	rig_init(test, &r, NULL, 5000);
	r.p->hook = hook_ackreq;
	r.p->hook_ctx = &q;
	write(&r, 0, 256 * KB, 1);
	pair_run(r.p, 10000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 1);
	MRE_EXPECT_GE(test, q.req, r.p->c[0].npaths);
	MRE_EXPECT_GE(test, q.noreq, 1);
	for (i = 0; i < r.p->c[0].npaths; i++)
		MRE_EXPECT(test, r.p->c[0].paths[i].srtt != 0);
}

/* the earliest of @c's path deadlines (0: none) */
static u64 path_min(const struct mre_conn *c)
{
	u64 m = 0, d;
	u32 i;

	for (i = 0; i < c->npaths; i++) {
		d = mre_path_deadline(&c->paths[i]);
		if (d && (!m || d < m))
			m = d;
	}
	return m;
}

/*
 * After every run, path_due is the paths' earliest deadline, not an early
 * bound left by one cleared or moved later: returned as the next deadline,
 * an early one starts the embedder's timer for nothing (timers.c). Small
 * WRITEs and READs one after another, then a transfer under 2 % loss.
 */
MRE_TEST(conn_path_due_exact)
{
	struct mre_wqe rd = { .op = MRE_OP_READ_REQ, .len = 2 };
	u64 loss = 20000;
	u32 i, k, bad = 0, steps = 0;
	struct rig r;
	u8 *lbuf;

	rig_init(test, &r, NULL, 5000);
	rd.rkey = r.mr->key;
	rd.raddr = 0x10000;
	lbuf = MRE_ALLOC(test, 64);
	for (k = 0; k < 40; k++) {
		if (k == 20) {
			r.p->hook = pair_hook_loss;
			r.p->hook_ctx = &loss;
			write(&r, 0, 64 * KB, 100);
		} else if (k & 1) {
			mdl_post_send(r.a, &rd, lbuf, k);
		} else {
			write(&r, 64 * k, 2, k);
		}
		for (i = 0; i < 100000 && pair_step(r.p); i++) {
			steps++;
			mdl_run(&r.p->n[0], r.p->now);
			mdl_run(&r.p->n[1], r.p->now);
			bad += r.p->c[0].path_due != path_min(&r.p->c[0]);
			bad += r.p->c[1].path_due != path_min(&r.p->c[1]);
		}
	}
	MRE_EXPECT_EQ(test, r.a->nlog, 40);
	MRE_EXPECT_GE(test, steps, 200);
	MRE_EXPECT_EQ(test, bad, 0);
}

/* per DATA packet node 0 sent: its path; and the ACKs node 1 sent */
struct pathlog {
	u16 path[64];
	u32 n;
	u32 acks;
};

static bool hook_pathlog(struct pair *p, u32 from, const struct pair_pkt *pk,
			 u64 n, u64 *extra)
{
	struct pathlog *l = p->hook_ctx;

	if (from == 0 && pk->type == MRE_T_DATA && l->n < 64)
		l->path[l->n++] = pk->path;
	if (from == 1 && pk->type == MRE_T_ACK)
		l->acks++;
	return false;
}

/* four 4 KiB WRITEs one after another, then one of 16 KiB; MTU 1 KiB */
static void small_then_large(struct kunit *test, u32 small_bytes,
			     struct pathlog *l)
{
	struct mre_config cfg;
	struct rig r;
	u32 i;

	mre_config_default(&cfg);
	cfg.small_bytes = small_bytes;
	rig_init(test, &r, &cfg, 5000);
	write(&r, 0, KB, 1);		/* every path measured first */
	write(&r, KB, 31 * KB, 2);
	pair_run(r.p, 10000000);
	r.p->hook = hook_pathlog;
	r.p->hook_ctx = l;
	for (i = 0; i < 4; i++) {
		write(&r, 32 * KB + i * 4 * KB, 4 * KB, 10 + i);
		pair_run(r.p, 10000000);
	}
	write(&r, 48 * KB, 16 * KB, 20);
	pair_run(r.p, 10000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 7);
	MRE_EXPECT(test, exactly_once(&r, 0, 64 * KB));
	MRE_EXPECT_EQ(test, l->n, 32);
}

/*
 * A small message keeps to one path, and the next small message to the
 * same one (send.c, small_path()): one ACK per message instead of one per
 * packet. A larger message is sprayed as before.
 */
MRE_TEST(conn_small_message_one_path)
{
	struct pathlog l = { 0 }, off = { 0 };
	u32 i, distinct = 0;
	u32 seen = 0;

	small_then_large(test, 4096, &l);
	for (i = 1; i < 16; i++)
		MRE_EXPECT_EQ(test, l.path[i], l.path[0]);
	for (i = 16; i < 32; i++)
		if (!(seen & 1u << l.path[i])) {
			seen |= 1u << l.path[i];
			distinct++;
		}
	MRE_EXPECT_GE(test, distinct, 4);
	/* sprayed, the same small messages took several paths, more ACKs */
	small_then_large(test, 0, &off);
	for (i = 1, distinct = 1; i < 4; i++)
		distinct += off.path[i] != off.path[0];
	MRE_EXPECT_GE(test, distinct, 2);
	MRE_EXPECT_LE(test, l.acks + 4, off.acks);
}

MRE_TEST(conn_path_blackhole)
{
	struct drops d = { .path = 3, .from_t = 0, .to_t = 3000000, .n = 0 };
	struct rig r;
	u32 i;

	rig_init(test, &r, NULL, 5000);
	set_drops(&r, &d);
	for (i = 0; i < 4; i++)
		write(&r, i * 64 * KB, 64 * KB, i);
	pair_run(r.p, 1000000);
	/*
	 * Nothing lost for the user. The path never had an RTT sample of its
	 * own (its first packet went into the hole), so only its timeouts
	 * judge it: the first makes it SUSPECT, the second (fail_rtos) FAILED.
	 */
	MRE_EXPECT_EQ(test, r.a->nlog, 4);
	MRE_EXPECT(test, exactly_once(&r, 0, 256 * KB));
	MRE_EXPECT_EQ(test, r.p->c[0].paths[3].health, MRE_PATH_FAILED);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.rto, 2);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.path_failed, 1);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.path_silent, 0);
	/* more traffic while the hole lasts: the failed path takes none */
	for (i = 0; i < 4; i++)
		write(&r, i * 64 * KB, 64 * KB, 10 + i);
	pair_run(r.p, 1000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 8);
	MRE_EXPECT_EQ(test, r.p->c[0].paths[3].health, MRE_PATH_FAILED);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.path_failed, 1);
	MRE_EXPECT(test, same(r.src, r.dst, 256 * KB));
	/* the hole heals: a probe brings the path back */
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, r.p->c[0].paths[3].health, MRE_PATH_GOOD);
	MRE_EXPECT_GE(test, r.p->n[0].ep.ctr.path_recovered, 1);
}

/*
 * One path id dies for good, both directions, while WRITEs and READs run
 * (tests/conformance/mitm.py's kill-path): the connection lives on the
 * other paths, every operation completes. Once FAILED, the dead path gets
 * no DATA (MR-6.1-3) and its probes back off (MR-6.6-2). With 1 ms of
 * jitter the connection window falls to one packet (RTTs taken for a
 * queue), and the only packet out was on the dead path: its stall
 * timeouts sent a PROBE there every rto_init, which took that one slot
 * before the lost packet's resend could, until dead_ns failed the
 * connection. Each side sends at most max_data DATA into the dead path
 * (mitm.py's 64; 0: unchecked) and, if it sent any, does not end with
 * it GOOD: with
 * the software values each operation put about 8 packets on it, all lost
 * by send time, fewer than silence_k, and the path was never judged
 * (silence restarted from each batch) and took up to 384 DATA. When the
 * path heals, its probes bring it back (not FAILED).
 */
struct deadpath {
	u16 path;
	bool on;
	u64 jitter;		/* up to this much extra delay (reordering) */
	u64 probes[2];		/* PROBEs into the dead path, per sender */
	u64 data_failed[2];	/* DATA into it while its sender had it FAILED */
	u64 data[2];		/* DATA into it after it died */
};

static bool hook_deadpath(struct pair *p, u32 from, const struct pair_pkt *pk,
			  u64 n, u64 *extra)
{
	struct deadpath *d = p->hook_ctx;

	if (d->jitter)
		*extra = mdl_rand(&p->rng) % d->jitter;
	if (!d->on || pk->path != d->path)
		return false;
	if (pk->type == MRE_T_PROBE)
		d->probes[from]++;
	if (pk->type == MRE_T_DATA) {
		d->data[from]++;
		if (p->c[from].paths[d->path].health == MRE_PATH_FAILED)
			d->data_failed[from]++;
	}
	return true;
}

/* probes a FAILED path may send in @t ns: the doubling, then probe_max */
static u64 probe_bound(const struct mre_config *cfg, u64 t)
{
	u64 ivl = 1000, n = 0;

	while (ivl < cfg->probe_max_ns) {
		ivl *= 2;
		n++;
	}
	/* and the tail and stall probes before it failed */
	return n + t / cfg->probe_max_ns + 8;
}

static void dead_path(struct kunit *test, const struct mre_config *cfg,
		      u64 delay, u64 jitter, u32 len, u16 path, u64 max_data)
{
	struct mre_wqe rd = { .op = MRE_OP_READ_REQ, .len = len };
	struct deadpath d = { .path = path, .jitter = jitter };
	u32 i, ops = 40, done = 0;
	struct rig r;
	u64 t0 = 0;
	u8 *lbuf;

	rig_init(test, &r, cfg, delay);
	r.p->hook = hook_deadpath;
	r.p->hook_ctx = &d;
	rd.rkey = r.mr->key;
	lbuf = MRE_ALLOC(test, BUF);
	for (i = 0; i < ops; i++) {
		u32 off = (i % 3) * 64 * KB;
		u64 lim = r.p->now + 10000000000ULL;

		if (i == 4) {
			d.on = true;
			t0 = r.p->now;
		}
		write(&r, off, len, 2 * i);
		rd.raddr = 0x10000 + off;
		mdl_post_send(r.a, &rd, lbuf + off, 2 * i + 1);
		while (r.a->nlog < 2 * i + 2 && r.p->now < lim &&
		       pair_step(r.p))
			;
		if (r.a->nlog < 2 * i + 2)
			break;
		done++;
		if (!same(lbuf + off, r.src + off, len))
			break;
		mre_memset(lbuf + off, 0, len);
	}
	/* the answers' ACKs and the probes after them */
	pair_run(r.p, 1000000000ULL);
	MRE_EXPECT_EQ(test, done, ops);
	MRE_EXPECT_EQ(test, r.a->errors, 0);
	MRE_EXPECT_EQ(test, r.a->fatal, 0);
	MRE_EXPECT_EQ(test, r.b->fatal, 0);
	MRE_EXPECT_EQ(test, r.p->c[0].state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, r.p->c[1].state, MRE_CONN_ESTABLISHED);
	for (i = 0; i < 2; i++) {
		if (d.probes[i] > probe_bound(cfg, r.p->now - t0) ||
		    d.data_failed[i])
			MRE_LOG(test, "node %u: %llu probes, %llu data (%llu failed) in %llu ns",
				i, d.probes[i], d.data[i], d.data_failed[i],
				r.p->now - t0);
		MRE_EXPECT_LE(test, d.probes[i], probe_bound(cfg, r.p->now - t0));
		MRE_EXPECT_EQ(test, d.data_failed[i], 0);
		/* found out within a bounded number of packets (mitm.py's 64) */
		if ((max_data && d.data[i] > max_data) || (d.data[i] &&
		    r.p->c[i].paths[path].health == MRE_PATH_GOOD))
			MRE_LOG(test, "node %u: %llu data into path %u, ends %s (delay %llu jitter %llu len %u)",
				i, d.data[i], path,
				mre_path_health_name(r.p->c[i].paths[path].health),
				delay, jitter, len);
		if (max_data)
			MRE_EXPECT_LE(test, d.data[i], max_data);
		if (max_data && d.data[i])
			MRE_EXPECT_NE(test, r.p->c[i].paths[path].health,
				      MRE_PATH_GOOD);
		/* every loss a timer found is traced and counted alike */
		MRE_EXPECT_EQ(test, timer_losses(&r.p->n[i]),
			      r.p->n[i].ep.ctr.loss_rto);
	}
	/* the path heals: a probe brings it back, and it carries data */
	d.on = false;
	pair_run(r.p, 2 * cfg->probe_max_ns);
	for (i = 0; i < 8; i++) {
		write(&r, (i % 3) * 64 * KB, len, 2 * (ops + i));
		rd.raddr = 0x10000 + (i % 3) * 64 * KB;
		mdl_post_send(r.a, &rd, lbuf, 2 * (ops + i) + 1);
	}
	pair_run(r.p, 1000000000ULL);
	MRE_EXPECT_EQ(test, r.a->nlog, 2 * (ops + 8));
	/* (a SUSPECT one that got nothing to send since stays so) */
	for (i = 0; i < 2; i++)
		MRE_EXPECT_NE(test, r.p->c[i].paths[path].health,
			      MRE_PATH_FAILED);
}

MRE_TEST(conn_dead_path_default)
{
	struct mre_config cfg;
	u16 k;

	mre_config_default(&cfg);
	for (k = 0; k < 8; k += 3) {
		dead_path(test, &cfg, 5000, 0, 64 * KB, k, 64);
		dead_path(test, &cfg, 500000, 0, 64 * KB, k, 64);
		/*
		 * Not bounded yet: with 1 ms of jitter, in some seeds (7 of
		 * 45) a side sends 68-326 DATA into the dead path, which is
		 * lost by its timers and stays SUSPECT (or even GOOD) for up
		 * to seconds; HEAD did the same (seeds 15, 18, 19, 22, 44)
		 */
		dead_path(test, &cfg, 5000, 1000000, 64 * KB, k, 0);
		dead_path(test, &cfg, 5000, 0, 2, k, 64);
	}
}

MRE_TEST(conn_dead_path_soft)
{
	struct mre_config cfg;
	u16 k;

	soft_config(&cfg);
	for (k = 0; k < 8; k += 3) {
		dead_path(test, &cfg, 5000, 0, 64 * KB, k, 64);
		dead_path(test, &cfg, 500000, 0, 64 * KB, k, 64);
		dead_path(test, &cfg, 5000, 1000000, 64 * KB, k, 64);
		dead_path(test, &cfg, 50000, 200000, 64 * KB, k, 64);
		dead_path(test, &cfg, 5000, 0, 2, k, 64);
	}
}

static bool hook_all(struct pair *p, u32 from, const struct pair_pkt *pk,
		     u64 n, u64 *extra)
{
	return true;
}

/*
 * Everything lost both ways for 60 ms, then the network heals: every
 * path stalls together, moves and probes from its second stall timeout,
 * and the next stall timeout gives up the probe still unanswered. Each
 * loss a timer finds is traced and counted (loss_rto) alike, the probes
 * given up included (they were traced and not counted).
 */
MRE_TEST(conn_blackout_timer_losses)
{
	struct rig r;
	u32 k;

	rig_init(test, &r, NULL, 5000);
	write(&r, 0, 8 * KB, 1);
	pair_run(r.p, 10000000);
	r.p->hook = hook_all;
	write(&r, 0, 256 * KB, 2);
	pair_run(r.p, 60000000);
	r.p->hook = NULL;
	pair_run(r.p, 1000000000ULL);
	MRE_ASSERT(test, r.a->nlog == 2);
	MRE_EXPECT_EQ(test, r.a->errors, 0);
	MRE_EXPECT(test, same(r.src, r.dst, 256 * KB));
	MRE_EXPECT_GE(test, r.p->n[0].tr[MRE_TR_REPATH][MRE_TRW_STALL], 1);
	for (k = 0; k < 2; k++)
		MRE_EXPECT_EQ(test, timer_losses(&r.p->n[k]),
			      r.p->n[k].ep.ctr.loss_rto);
}

MRE_TEST(conn_peer_dead)
{
	struct mre_config cfg;
	struct rig r;

	mre_config_default(&cfg);
	cfg.dead_ns = 50000000;
	rig_init(test, &r, &cfg, 5000);
	pair_run(r.p, 200000);			/* established */
	r.p->hook = hook_all;
	write(&r, 0, 8 * KB, 1);
	pair_run(r.p, 1000000000ULL);
	MRE_EXPECT_EQ(test, r.a->nlog, 0);	/* the embedder flushes */
	MRE_EXPECT_EQ(test, r.a->fatal, MRE_ST_RETRY_EXC);
	MRE_EXPECT_EQ(test, r.p->c[0].state, MRE_CONN_FAILED);
	MRE_EXPECT_EQ(test, r.p->n[0].conn_deads, 1);
	MRE_EXPECT_EQ(test, r.p->n[0].tr[MRE_TR_CONN_FAIL][MRE_TRW_DEAD], 1);
	MRE_EXPECT_EQ(test, r.p->n[0].tr_last.ev, MRE_TR_CONN_FAIL);
}

/* a rig (dead_ns 50 ms) whose streams carried one 8 KiB WRITE: done? */
static bool one_write(struct kunit *test, struct rig *r,
		      struct mre_config *cfg)
{
	mre_config_default(cfg);
	cfg->dead_ns = 50000000;
	rig_init(test, r, cfg, 5000);
	write(r, 0, 8 * KB, 1);
	pair_run(r->p, 10000000);
	return r->a->nlog == 1;
}

/*
 * The peer's end of the connection failed and drops what comes (a FAILED
 * connection is kept until it reopens): ours must fail too, not wait.
 */
MRE_TEST(conn_peer_failed_end)
{
	struct mre_config cfg;
	struct rig r;

	MRE_ASSERT(test, one_write(test, &r, &cfg));
	mre_conn_fail(&r.p->c[1], MRE_ST_RETRY_EXC, MRE_TR_CONN_FAIL,
		      MRE_TRW_DEAD);
	write(&r, 0, 8 * KB, 2);
	pair_run(r.p, 1000000000ULL);
	MRE_EXPECT_EQ(test, r.a->fatal, MRE_ST_RETRY_EXC);
	MRE_EXPECT_EQ(test, r.p->c[0].state, MRE_CONN_FAILED);
}

/*
 * The same, and the peer's end tells: the first packet of ours that its
 * FAILED connection receives draws a RESET naming its id, so ours fails
 * within a round trip (RESET), not after dead_ns (50 ms here).
 */
MRE_TEST(conn_peer_failed_resets)
{
	struct mre_config cfg;
	struct rig r;
	u64 t0;

	MRE_ASSERT(test, one_write(test, &r, &cfg));
	mre_conn_fail(&r.p->c[1], MRE_ST_RETRY_EXC, MRE_TR_CONN_FAIL,
		      MRE_TRW_DEAD);
	t0 = r.p->now;
	write(&r, 0, 8 * KB, 2);
	while (r.p->c[0].state != MRE_CONN_FAILED && pair_step(r.p))
		;
	MRE_EXPECT_EQ(test, r.p->c[0].state, MRE_CONN_FAILED);
	MRE_EXPECT_LE(test, r.p->now - t0, 1000000);
	MRE_EXPECT_EQ(test, r.p->n[0].tr[MRE_TR_CONN_RESET][MRE_TRW_NONE], 1);
	MRE_EXPECT_EQ(test, r.a->fatal, MRE_ST_RETRY_EXC);
	MRE_EXPECT_GE(test, r.p->n[1].ep.ctr.reset_tx, 1);
	MRE_EXPECT_GE(test, r.p->n[1].ep.ctr.drop_state, 1);
}

/* node 1's DATA (READ responses) lost; everything else goes */
static bool hook_drop_data_1(struct pair *p, u32 from,
			     const struct pair_pkt *pk, u64 n, u64 *extra)
{
	return from == 1 && pk->type == MRE_T_DATA;
}

/*
 * The peer's end fails after it acknowledged our READ_REQ but before its
 * response got through: nothing of ours is outstanding, and the READ
 * must still end (in an error), not wait for a response that never comes.
 */
MRE_TEST(conn_peer_failed_read_owed)
{
	struct mre_wqe w = { .op = MRE_OP_READ_REQ, .len = 4 * KB,
			     .raddr = 0x10000 };
	struct mre_config cfg;
	struct rig r;
	u8 *lbuf;

	MRE_ASSERT(test, one_write(test, &r, &cfg));
	lbuf = MRE_ALLOC(test, 4 * KB);
	w.rkey = r.mr->key;
	r.p->hook = hook_drop_data_1;
	mdl_post_send(r.a, &w, lbuf, 2);
	pair_run(r.p, 2000000);
	MRE_ASSERT(test, r.p->c[0].tsn_una == r.p->c[0].tsn_next);
	MRE_ASSERT(test, r.a->nlog == 1);
	mre_conn_fail(&r.p->c[1], MRE_ST_RETRY_EXC, MRE_TR_CONN_FAIL,
		      MRE_TRW_DEAD);
	r.p->hook = NULL;
	pair_run(r.p, 1000000000ULL);
	MRE_EXPECT_EQ(test, r.a->nlog, 1);
	MRE_EXPECT_EQ(test, r.a->fatal, MRE_ST_RETRY_EXC);
	MRE_EXPECT_EQ(test, r.p->c[0].state, MRE_CONN_FAILED);
}

/* what node 1 sends from *hook_ctx on is 20 ms late */
static bool hook_late_1(struct pair *p, u32 from, const struct pair_pkt *pk,
			u64 n, u64 *extra)
{
	if (from == 1 && p->now >= *(u64 *)p->hook_ctx)
		*extra = 20000000;
	return false;
}

/*
 * An answer owed is not a dead peer while the request is young: a READ
 * answered at once, then quiet, then a second READ just before the first
 * one's watch is up, acknowledged and answered 20 ms late (dead_ns 50 ms).
 * Counted from the last packet heard alone, the watch failed the
 * connection.
 */
MRE_TEST(conn_owed_young_request)
{
	struct mre_wqe w = { .op = MRE_OP_READ_REQ, .len = 1 * KB,
			     .raddr = 0x10000 };
	struct mre_config cfg;
	struct rig r;
	u64 late = ~0ULL;
	u8 *lbuf;

	MRE_ASSERT(test, one_write(test, &r, &cfg));
	lbuf = MRE_ALLOC(test, 4 * KB);
	w.rkey = r.mr->key;
	r.p->hook = hook_late_1;
	r.p->hook_ctx = &late;
	mdl_post_send(r.a, &w, lbuf, 2);
	while (r.a->nlog < 2 && pair_step(r.p))
		;
	MRE_ASSERT(test, r.a->nlog == 2);
	/* quiet until 5 ms before the watch (nothing is due before it) */
	MRE_ASSERT(test, r.p->c[0].owed_at > r.p->now + 5000000);
	r.p->now = r.p->c[0].owed_at - 5000000;
	late = r.p->now;
	mdl_post_send(r.a, &w, lbuf, 3);
	pair_run(r.p, 1000000000ULL);
	MRE_ASSERT(test, r.a->nlog == 3);
	MRE_EXPECT_EQ(test, r.a->log[2].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, r.a->fatal, 0);
	MRE_EXPECT_EQ(test, r.p->c[0].state, MRE_CONN_ESTABLISHED);
}

/* a failed connection is reopened (new id) and carries new streams */
MRE_TEST(conn_reopen_after_failure)
{
	struct mre_config cfg;
	struct mdl_qp *a2, *b2;
	struct rig r;
	u32 old;

	/* both streams carry traffic */
	MRE_ASSERT(test, one_write(test, &r, &cfg));
	r.p->hook = hook_all;
	write(&r, 0, 8 * KB, 2);
	pair_run(r.p, 1000000000ULL);
	MRE_ASSERT(test, r.p->c[0].state == MRE_CONN_FAILED);
	/*
	 * The network heals; the failed QPs go, new ones come. The peer's
	 * new QP attaches before it hears of the reopening: being unused,
	 * it survives the restart that kills the old one.
	 */
	r.p->hook = NULL;
	mre_stream_detach(&r.a->s);
	a2 = MRE_ALLOC(test, sizeof(*a2));
	b2 = MRE_ALLOC(test, sizeof(*b2));
	pair_qps(r.p, a2, b2, 40, 1024);
	old = r.p->c[0].cid;
	mre_conn_connect(&r.p->c[0], r.p->now);
	MRE_EXPECT_NE(test, r.p->c[0].cid, old);
	qp_write(&r, a2, 0, 8 * KB, 9);
	pair_run(r.p, 1000000000ULL);
	MRE_EXPECT_EQ(test, r.p->c[0].state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, r.p->c[1].remote_cid, r.p->c[0].cid);
	MRE_EXPECT_EQ(test, a2->nlog, 1);
	MRE_EXPECT_EQ(test, a2->log[0].status, MRE_ST_OK);
	/* the peer saw a restart: its old (used) stream failed, the new one lives */
	MRE_EXPECT_EQ(test, r.b->fatal, MRE_ST_RETRY_EXC);
	MRE_EXPECT_EQ(test, b2->fatal, 0);
}

/* node 0's ACKs lost: node 1 keeps what it sent unacknowledged */
static bool hook_drop_ack_0(struct pair *p, u32 from,
			    const struct pair_pkt *pk, u64 n, u64 *extra)
{
	return from == 0 && pk->type == MRE_T_ACK;
}

/*
 * A node restarts while the other still has packets of the old
 * incarnation to resend; the other's user connects a new QP to the
 * restarted node's new QP meanwhile (the interop test's second case: a
 * new mroce-ep process toward the same module). The restarted node
 * answers a resend with a RESET naming the old id, unchallenged: the old
 * incarnation fails, but the new QP, which has carried nothing, belongs
 * to the new one and must not fail with it.
 */
MRE_TEST(conn_reset_spares_unused_stream)
{
	struct mre_wqe rd = { .op = MRE_OP_READ_REQ, .len = 8 * KB,
			      .rkey = 0, .raddr = 0x10000 };
	struct mre_config cfg;
	struct mdl_qp *a2, *b2;
	struct rig r;
	u64 t0;

	MRE_ASSERT(test, one_write(test, &r, &cfg));
	rd.rkey = r.mr->key;
	r.p->hook = hook_drop_ack_0;
	mdl_post_send(r.a, &rd, r.cnt, 2);
	while (r.a->nlog < 2 && pair_step(r.p))
		;
	MRE_ASSERT(test, r.a->nlog == 2);
	MRE_ASSERT(test, r.p->c[1].tsn_una != r.p->c[1].tsn_next);
	/* node 1's QP goes; node 0 restarts; node 1's new QP attaches */
	mre_stream_detach(&r.b->s);
	r.p->hook = NULL;
	pair_restart(r.p, 0, &cfg, mre_test_seed(test) + 77);
	MRE_ASSERT(test, r.p->c[0].cid != r.p->c[1].remote_cid);
	b2 = MRE_ALLOC(test, sizeof(*b2));
	a2 = MRE_ALLOC(test, sizeof(*a2));
	mdl_qp_init(&r.p->n[1], b2, 1040, 0, 40, 1024);
	t0 = r.p->now;
	while (r.p->c[1].state == MRE_CONN_ESTABLISHED && pair_step(r.p) &&
	       r.p->now - t0 < cfg.dead_ns / 2)
		;
	/* a resend drew the RESET: the old incarnation ended by it */
	MRE_EXPECT_EQ(test, r.p->c[1].state, MRE_CONN_FAILED);
	MRE_EXPECT_EQ(test, r.p->n[1].tr[MRE_TR_CONN_RESET][MRE_TRW_NONE], 1);
	MRE_EXPECT_EQ(test, b2->fatal, 0);
	/* node 0's new QP connects and writes through node 1's new one */
	mdl_qp_init(&r.p->n[0], a2, 40, 1, 1040, 1024);
	qp_write(&r, a2, 0, 8 * KB, 3);
	pair_run(r.p, 1000000000ULL);
	MRE_EXPECT_EQ(test, r.p->c[1].state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, r.p->c[1].remote_cid, r.p->c[0].cid);
	MRE_ASSERT(test, a2->nlog == 1);
	MRE_EXPECT_EQ(test, a2->log[0].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, a2->fatal, 0);
	MRE_EXPECT_EQ(test, b2->fatal, 0);
}

/*
 * The connection keeps the last stream it looked up (mre_conn_stream());
 * a QP that goes and a new one with its number must not find the old one:
 * its packets would be dropped as for no stream.
 */
MRE_TEST(conn_stream_lookup_follows_detach)
{
	struct mre_config cfg;
	struct mdl_qp *a2, *b2;
	struct rig r;

	MRE_ASSERT(test, one_write(test, &r, &cfg));
	MRE_EXPECT_EQ(test, r.p->c[1].stream_last[0] == &r.b->s, 1);
	mre_stream_detach(&r.a->s);
	mre_stream_detach(&r.b->s);
	a2 = MRE_ALLOC(test, sizeof(*a2));
	b2 = MRE_ALLOC(test, sizeof(*b2));
	pair_qps(r.p, a2, b2, 17, 1024);	/* r.a's and r.b's numbers */
	MRE_ASSERT(test, b2->qpn == r.b->qpn);
	qp_write(&r, a2, 0, 8 * KB, 2);
	pair_run(r.p, 1000000000ULL);
	MRE_ASSERT(test, a2->nlog == 1);
	MRE_EXPECT_EQ(test, a2->log[0].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.drop_stream, 0);
	MRE_EXPECT_EQ(test, r.p->c[1].stream_last[0] == &b2->s, 1);
	MRE_EXPECT_EQ(test, r.p->c[1].stream_last[1] == &r.b->s, 0);
}

/* a QP destroyed with packets in flight: they still fill their TSNs (NOP) */
MRE_TEST(conn_detach_in_flight)
{
	struct drops d = { .idx = { 5, 6, 20 }, .n = 3, .path = -1 };
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	set_drops(&r, &d);
	write(&r, 0, 64 * KB, 1);
	pair_run(r.p, 22000);		/* sent, losses not yet repaired */
	MRE_ASSERT(test, r.p->c[0].tsn_una != r.p->c[0].tsn_next);
	mre_stream_detach(&r.a->s);
	pair_run(r.p, 1000000000ULL);
	MRE_EXPECT_EQ(test, r.p->c[0].tsn_una, r.p->c[0].tsn_next);
	MRE_EXPECT_EQ(test, r.p->c[0].state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.drop_field, 0);
	MRE_EXPECT_EQ(test, r.a->nlog, 0);	/* detached: no completions */
}

/*
 * The embedder can lose a QP before it detaches it (the kernel takes a
 * destroyed QP out of its table first): resends become NOPs, and must
 * still be valid packets.
 */
MRE_TEST(conn_stream_vanishes_in_flight)
{
	struct drops d = { .idx = { 5, 6, 20 }, .n = 3, .path = -1 };
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	set_drops(&r, &d);
	write(&r, 0, 64 * KB, 1);
	pair_run(r.p, 22000);
	MRE_ASSERT(test, r.p->c[0].tsn_una != r.p->c[0].tsn_next);
	r.p->n[0].nqps = 0;		/* the lookup no longer finds it */
	pair_run(r.p, 1000000000ULL);
	MRE_EXPECT_EQ(test, r.p->c[0].tsn_una, r.p->c[0].tsn_next);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.drop_field, 0);
	MRE_EXPECT_EQ(test, r.p->c[0].state, MRE_CONN_ESTABLISHED);
}

/* a connection idle for longer than dead_ns is not dead when it speaks again */
MRE_TEST(conn_idle_then_send)
{
	struct mre_config cfg;
	struct rig r;

	MRE_ASSERT(test, one_write(test, &r, &cfg));
	r.p->now += 10 * cfg.dead_ns;		/* a long quiet spell */
	write(&r, 8 * KB, 8 * KB, 2);
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 2);
	MRE_EXPECT_EQ(test, r.a->log[1].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, r.p->c[0].state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.conn_fail, 0);
}

MRE_TEST(conn_lost_connect)
{
	struct drops d = { .type = MRE_T_CONNECT, .idx = { 0 }, .n = 1,
			   .path = -1 };
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	set_drops(&r, &d);
	write(&r, 0, 4 * KB, 1);
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, r.a->nlog, 1);
	MRE_EXPECT_EQ(test, r.p->c[0].state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT(test, exactly_once(&r, 0, 4 * KB));
}

MRE_TEST(conn_many_streams)
{
	struct mre_config cfg;
	struct mdl_qp *qa, *qb;
	struct rig r;
	u32 i, done = 0, before;

	mre_config_default(&cfg);
	before = mre_conn_mem_size(&cfg);
	rig_init(test, &r, &cfg, 5000);
	qa = MRE_ALLOC(test, sizeof(*qa) * 32);
	qb = MRE_ALLOC(test, sizeof(*qb) * 32);
	for (i = 0; i < 32; i++) {
		struct mre_wqe w = { .op = MRE_OP_WRITE, .len = 8 * KB,
				     .rkey = r.mr->key,
				     .raddr = 0x10000 + i * 8 * KB };

		pair_qps(r.p, &qa[i], &qb[i], 100 + i, 1024);
		mdl_post_send(&qa[i], &w, r.src + i * 8 * KB, i);
	}
	pair_run(r.p, 100000000);
	for (i = 0; i < 32; i++)
		done += qa[i].nlog == 1 && qa[i].log[0].status == MRE_ST_OK;
	MRE_EXPECT_EQ(test, done, 32);
	MRE_EXPECT(test, exactly_once(&r, 0, 256 * KB));
	/* the connection's memory was fixed before any stream existed */
	MRE_EXPECT_EQ(test, mre_conn_mem_size(&cfg), before);
	MRE_EXPECT_EQ(test, r.p->c[0].nstreams, 33);
}

/*
 * A READ whose local buffer went away (its MR deregistered under the
 * request) while the response was on its way: the WQE completes with a
 * local protection error, not with success and the data missing, and the
 * QP fails (what follows is flushed); the WRITE before it is unharmed.
 */
MRE_TEST(conn_read_buffer_gone)
{
	struct mre_wqe w = { .op = MRE_OP_READ_REQ, .len = 8 * KB };
	u8 *lbuf;
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	lbuf = MRE_ALLOC(test, BUF);
	write(&r, 0, 4 * KB, 1);
	w.rkey = r.mr->key;
	w.raddr = 0x10000;
	mdl_post_send(r.a, &w, lbuf, 2);
	write(&r, 64 * KB, 4 * KB, 3);
	r.a->resp_gone = true;
	pair_run(r.p, 2000000000ULL);
	MRE_ASSERT(test, r.a->nlog >= 2);
	MRE_EXPECT_EQ(test, r.a->log[0].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, r.a->log[1].wr_id, 2);
	MRE_EXPECT_EQ(test, r.a->log[1].status, MRE_ST_LOC_PROT);
	MRE_EXPECT_EQ(test, r.a->fatal, MRE_ST_LOC_PROT);
	MRE_EXPECT_GE(test, r.p->n[0].ep.ctr.drop_place, 1);
	MRE_EXPECT_EQ(test, r.a->order_violations, 0);
}

/*
 * A local WQE (a memory window bind) sits between two messages: the
 * engine finds the second not yet posted, goes idle, and resumes when the
 * first's completion lets the local one run (send_done says so): nothing
 * else kicks the stream.
 */
MRE_TEST(conn_local_wqe_resumes)
{
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	write(&r, 0, 4 * KB, 1);
	write(&r, 8 * KB, 4 * KB, 2);
	r.a->local_at = 1;
	pair_run(r.p, 1000000000ULL);
	MRE_EXPECT_EQ(test, r.a->nlog, 2);
	MRE_EXPECT_EQ(test, r.a->log[1].wr_id, 2);
	MRE_EXPECT_EQ(test, r.a->log[1].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, r.a->local_at, 0);
	MRE_EXPECT(test, same(r.src + 8 * KB, r.dst + 8 * KB, 4 * KB));
}

/*
 * A hostile peer's DATA on a live connection, as the wire carries it:
 * from node 0 to node 1, at node 1's next TSN and PSN on path 0.
 */
static void inject_to(struct rig *r, u32 to, struct mre_pkt *p)
{
	struct mre_conn *c = &r->p->c[to];
	struct mdl_qp *qp = to ? r->b : r->a;
	u8 buf[MRE_MAX_HDR_LEN + 64];

	p->type = MRE_T_DATA;
	p->dst_cid = c->cid;
	p->path = 0;
	p->psn = c->paths[0].rx.base;
	p->data.tsn = c->rxw.base;
	p->data.dst_stream = qp->s.id;
	p->data.src_stream = qp->s.remote_id;
	mdl_rx(&r->p->n[to], 1 - to, buf, mre_wire_put(buf, p), false,
	       r->p->now);
}

static void inject(struct rig *r, struct mre_pkt *p)
{
	inject_to(r, 1, p);
}

/*
 * A NAK names its message by the wire's msn: one already completed (or
 * not sent yet) fails nothing, and a real failure later is still seen.
 */
MRE_TEST(conn_nak_stale_msn_ignored)
{
	struct mre_pkt p = { .data = {
		.op = MRE_OP_NAK, .dflags = MRE_DF_FIRST | MRE_DF_LAST,
		.syndrome = MRE_SYN_REM_ACCESS,
	} };
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	write(&r, 0, 4 * KB, 1);
	pair_run(r.p, 1000000000ULL);
	MRE_ASSERT(test, r.a->nlog == 1);
	p.data.msn = r.a->s.comp_msn - 1;	/* completed */
	inject_to(&r, 0, &p);
	p.data.msn = r.a->s.tx_msn + 5;		/* never sent */
	inject_to(&r, 0, &p);
	MRE_EXPECT_EQ(test, r.p->n[0].ep.ctr.drop_inv_req, 2);
	MRE_EXPECT(test, !r.a->s.err);
	write(&r, 0, 4 * KB, 2);
	pair_run(r.p, 1000000000ULL);
	MRE_ASSERT(test, r.a->nlog == 2);
	MRE_EXPECT_EQ(test, r.a->log[1].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, r.a->fatal, 0);
}

/*
 * The next msn, not yet sent, is a future one too. A malformed READ_REQ
 * forged in node 0's name draws node 1's NAK for whatever msn it named;
 * naming node 0's next one made node 0 complete a WQE it had never been
 * given (the kernel's SQ index then ran past its producer and the error
 * flush walked 2^32 slots: issue 29, item 0). Node 0 drops that NAK.
 */
MRE_TEST(conn_nak_next_msn_ignored)
{
	struct mre_pkt p = { .data = {
		.op = MRE_OP_READ_REQ, .dflags = MRE_DF_FIRST | MRE_DF_LAST,
		.rdsn = 0xfffffffe,
	} };
	struct rig r;

	rig_init(test, &r, NULL, 5000);
	write(&r, 0, 4 * KB, 1);
	pair_run(r.p, 1000000000ULL);
	MRE_ASSERT(test, r.a->nlog == 1);
	MRE_ASSERT(test, !r.a->s.tx_busy);
	p.data.msn = r.a->s.tx_msn;
	inject(&r, &p);
	pair_run(r.p, 1000000000ULL);
	MRE_EXPECT(test, r.p->n[1].ep.ctr.tx_nak >= 1);
	MRE_EXPECT(test, r.p->n[0].ep.ctr.drop_inv_req >= 1);
	MRE_EXPECT_EQ(test, r.a->nlog, 1);
	MRE_EXPECT(test, !r.a->s.err);
	MRE_EXPECT_EQ(test, r.a->s.comp_msn, r.a->s.tx_msn);
}

/*
 * rdsn comes from the wire: a READ two behind the responder's next would
 * make it walk 2^32 slots to reach it (seconds of CPU in softirq). It is
 * refused like any malformed request: REM_INV_REQ, nothing walked.
 */
MRE_TEST(conn_read_far_rdsn_refused)
{
	struct mre_pkt p = { .data = {
		.op = MRE_OP_READ_REQ, .dflags = MRE_DF_FIRST | MRE_DF_LAST,
		.rkey = 0, .raddr = 0, .mlen = 0, .msn = 0,
	} };
	struct rig r;
	u32 tail, i;

	for (i = 0; i < 2; i++) {
		rig_init(test, &r, NULL, 5000);
		write(&r, 0, 4 * KB, 1);
		pair_run(r.p, 1000000000ULL);
		MRE_ASSERT(test, r.p->c[1].state == MRE_CONN_ESTABLISHED);
		tail = r.b->s.rs_tail;
		/* two behind, or beyond the slots */
		p.data.rdsn = i ? tail + MRE_RD_SLOTS : tail - 2;
		inject(&r, &p);
		MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.drop_inv_req, 1);
		MRE_EXPECT_EQ(test, r.b->s.rs_tail, tail);
		pair_run(r.p, 1000000000ULL);
		MRE_EXPECT_EQ(test, r.b->s.rs_tail, tail);
		MRE_EXPECT_EQ(test, r.b->s.rs_head, tail);
		MRE_EXPECT(test, r.p->n[1].ep.ctr.tx_nak >= 1);
	}
}

/* a response we did not ask for at that offset is not placed */
MRE_TEST(conn_atomic_resp_offset_refused)
{
	struct mre_pkt p = { .data = {
		.op = MRE_OP_ATOMIC_RESP, .dflags = MRE_DF_FIRST | MRE_DF_LAST,
		.offset = 4, .mlen = 8, .orig = 0x1122334455667788ULL,
	} };
	struct mre_wqe w = { .op = MRE_OP_ATOMIC_REQ, .len = 8,
			     .aop = MRE_AOP_FETCH_ADD, .swap_add = 1 };
	struct rig r;
	u64 placed;

	rig_init(test, &r, NULL, 5000);
	write(&r, 0, 4 * KB, 1);
	pair_run(r.p, 1000000000ULL);
	/* node 1 asks node 0; node 0's answer is held back by the test */
	w.rkey = r.mr->key;
	w.raddr = 0x10000;
	r.b->s.rq[0].state = MRE_SLOT_WAIT;
	r.b->s.rq[0].op = MRE_OP_ATOMIC_REQ;
	r.b->s.rq[0].len = 8;
	r.b->s.rq[0].msn = 0;
	placed = r.p->n[1].placed_bytes;
	p.data.rdsn = 0;
	inject(&r, &p);
	MRE_EXPECT_EQ(test, r.p->n[1].ep.ctr.drop_inv_req, 1);
	MRE_EXPECT_EQ(test, r.p->n[1].placed_bytes, placed);
	MRE_EXPECT_EQ(test, r.b->s.rq[0].state, MRE_SLOT_WAIT);
	(void)w;
}


/*
 * Two honest nodes with two planes each: each proves the other's plane-1
 * address with one CHALLENGE and its ECHO (one round trip), and the data
 * flows over both planes meanwhile (by plane 0's addresses until then).
 */
MRE_TEST(conn_planes_proven)
{
	struct mre_config cfg;
	struct rig r;
	u32 i;

	mre_config_default(&cfg);
	cfg.nplanes = 2;
	rig_init(test, &r, &cfg, 5000);
	for (i = 0; i < 2; i++) {
		r.p->n[i].nplanes = 2;
		r.p->n[i].planes[0] = mdl_addr(i);
		r.p->n[i].planes[1] = mdl_addr(20 + i);
	}
	write(&r, 0, 64 * KB, 1);
	pair_run(r.p, 100000000);
	MRE_EXPECT_EQ(test, r.a->sq_done, 1);
	MRE_EXPECT(test, exactly_once(&r, 0, 64 * KB));
	for (i = 0; i < 2; i++) {
		struct mdl_node *n = &r.p->n[i];
		struct mre_conn *c = &r.p->c[i];

		MRE_EXPECT_EQ(test, c->peer_nplanes, 2);
		MRE_EXPECT(test, mre_addr_eq(&c->peer_planes[1],
					     &r.p->n[1 - i].planes[1]));
		MRE_EXPECT(test, mre_conn_plane_proven(c, 1));
		MRE_EXPECT_EQ(test, n->ep.ctr.plane_challenge_tx, 1);
		MRE_EXPECT_EQ(test, n->ep.ctr.plane_echo_tx, 1);
		MRE_EXPECT_EQ(test, n->ep.ctr.plane_echo_rx, 1);
		MRE_EXPECT_EQ(test, n->ep.ctr.drop_echo, 0);
		MRE_EXPECT_EQ(test, n->ep.ctr.plane_unproven, 0);
		MRE_EXPECT_EQ(test, n->claims, 1);
		MRE_EXPECT_EQ(test, n->claim_to[1], 1);
		MRE_EXPECT_EQ(test, n->claim_bad, 0);
		MRE_EXPECT_EQ(test, r.p->by_type[i][MRE_T_CHALLENGE], 1);
		MRE_EXPECT_EQ(test, r.p->by_type[i][MRE_T_ECHO], 1);
		MRE_EXPECT_EQ(test, c->plane_at, 0);
	}
}

/*
 * A FIFO link each way, @ns_kb a KiB, that now and then holds everything
 * for @stall ns (a software host descheduled): it neither loses nor
 * reorders.
 */
struct fifo_link {
	u64 free_at[2];
	u64 ns_kb;
	u64 stall;
};

static bool hook_fifo(struct pair *p, u32 from, const struct pair_pkt *pk,
		      u64 n, u64 *extra)
{
	struct fifo_link *l = p->hook_ctx;
	u64 start = MRE_MAX(p->now, l->free_at[from]);

	l->free_at[from] = start + pk->len * l->ns_kb / 1024;
	if (!from && n % 2048 == 1000)
		l->free_at[from] += l->stall;
	*extra = l->free_at[from] - p->now;
	return false;
}

/*
 * The kernel module's software values (kernel/param.c: an ACK every 8
 * packets of a path or 500 us, none at once for a gap, RTO 5 ms) and a
 * stream of 64 KiB WRITEs, 32 outstanding, over a link that stalls for
 * 7 ms every 2048 packets. A stall longer than a tail probe's time makes
 * a few resends that prove unnecessary; the first transmissions come
 * after it. Their TSNs accepted were taken for news that the resends,
 * sent later, had arrived, and everything sent before the resends and
 * still held up in the stall was lost by send time: thousands of resends
 * on a link that lost nothing (the endpoint over veth saw 4,000 a second).
 */
MRE_TEST(conn_soft_acks_stall_no_spurious)
{
	struct fifo_link l = { .ns_kb = 1000, .stall = 7000000 };
	const struct mre_counters *ct;
	struct mre_config cfg;
	u32 posted = 0;
	struct rig r;

	mre_config_default(&cfg);
	cfg.rto_min_ns = 5000000;
	cfg.rto_init_ns = 20000000;
	cfg.ack_delay_ns = 500000;
	cfg.answer_ack_ns = 2000000;
	cfg.dead_ns = 5000000000ULL;
	cfg.ack_freq = 8;
	cfg.ack_ooo_now = 0;
	cfg.loss_queue_pct = 0;
	cfg.probe_min_ns = MRE_MAX(cfg.probe_min_ns, 4 * cfg.rto_min_ns);
	cfg.connect_ns = MRE_MAX(cfg.connect_ns, cfg.rto_init_ns);
	cfg.active_ns = MRE_MAX(cfg.active_ns, cfg.rto_min_ns);
	rig_init(test, &r, &cfg, 5000);
	r.p->hook = hook_fifo;
	r.p->hook_ctx = &l;
	ct = &r.p->n[0].ep.ctr;
	while (r.p->now < 100000000ULL) {
		while (posted - r.a->nlog < 32) {
			write(&r, (posted % 4) * 64 * KB, 64 * KB, posted);
			posted++;
		}
		if (!pair_step(r.p))
			break;
	}
	MRE_EXPECT_GE(test, r.a->nlog, 100);
	MRE_EXPECT_EQ(test, r.p->dropped, 0);
	MRE_EXPECT_EQ(test, r.a->order_violations, 0);
	MRE_EXPECT_EQ(test, ct->loss_time, 0);
	MRE_EXPECT_EQ(test, ct->loss_fast, 0);
	/* what the stalls cost: about a resend per tail probe */
	MRE_EXPECT_LE(test, ct->tx_retx, ct->tx_tlp + 8);
	MRE_EXPECT_LE(test, r.p->n[1].ep.ctr.rx_dup_tsn, ct->tx_retx);
}

MRE_SUITE(conn,
	  MRE_CASE(conn_soft_acks_stall_no_spurious),
	  MRE_CASE(conn_handshake),
	  MRE_CASE(conn_accept_again_same_isn),
	  MRE_CASE(conn_accept_lost_recovers_in_rtts),
	  MRE_CASE(conn_peer_failed_read_owed),
	  MRE_CASE(conn_peer_failed_resets),
	  MRE_CASE(conn_owed_young_request),
	  MRE_CASE(conn_planes_proven),
	  MRE_CASE(conn_read_far_rdsn_refused),
	  MRE_CASE(conn_atomic_resp_offset_refused),
	  MRE_CASE(conn_nak_stale_msn_ignored),
	  MRE_CASE(conn_nak_next_msn_ignored),
	  MRE_CASE(conn_read_right_revoked),
	  MRE_CASE(conn_read_done_then_revoked),
	  MRE_CASE(conn_read_answered_by_response),
	  MRE_CASE(conn_read_answer_lost),
	  MRE_CASE(conn_read_stream_acks_asked),
	  MRE_CASE(conn_small_ops_lossy),
	  MRE_CASE(conn_answer_lost_write_behind),
	  MRE_CASE(conn_answer_lost_ce_request),
	  MRE_CASE(conn_answer_resend_lost),
	  MRE_CASE(conn_write_lossless),
	  MRE_CASE(conn_one_loss_fast_retransmit),
	  MRE_CASE(conn_parity_rebuilds_tail),
	  MRE_CASE(conn_parity_two_lost),
	  MRE_CASE(conn_lazy_acks_wide_window_no_spurious),
	  MRE_CASE(conn_beside_tcp),
	  MRE_CASE(conn_rtt_beyond_rto_max),
	  MRE_CASE(conn_probe_answer_beyond_probe_max),
	  MRE_CASE(conn_loss_found_across_paths),
	  MRE_CASE(conn_loss_across_paths_off),
	  MRE_CASE(conn_tail_loss_tlp),
	  MRE_CASE(conn_tail_loss_rto),
	  MRE_CASE(conn_local_no_tail_probe),
	  MRE_CASE(conn_self_ack_in_place),
	  MRE_CASE(conn_random_loss_exactly_once),
	  MRE_CASE(conn_trace_follows_counters),
	  MRE_CASE(conn_path_skew_no_spurious),
	  MRE_CASE(conn_send_recv_imm),
	  MRE_CASE(conn_rnr_then_recv),
	  MRE_CASE(conn_read),
	  MRE_CASE(conn_atomic_exactly_once),
	  MRE_CASE(conn_cmp_swap),
	  MRE_CASE(conn_write_bad_rkey),
	  MRE_CASE(conn_write_out_of_bounds),
	  MRE_CASE(conn_send_too_long),
	  MRE_CASE(conn_uc_write_bad_rkey),
	  MRE_CASE(conn_uc_send_too_long),
	  MRE_CASE(conn_uc_refuses_read),
	  MRE_CASE(conn_uc_unknown_stream),
	  MRE_CASE(conn_unknown_stream),
	  MRE_CASE(conn_nak_after_idle),
	  MRE_CASE(conn_order_write_then_send),
	  MRE_CASE(conn_ack_req_until_measured),
	  MRE_CASE(conn_small_message_one_path),
	  MRE_CASE(conn_path_due_exact),
	  MRE_CASE(conn_path_blackhole),
	  MRE_CASE(conn_dead_path_default),
	  MRE_CASE(conn_dead_path_soft),
	  MRE_CASE(conn_peer_dead),
	  MRE_CASE(conn_blackout_timer_losses),
	  MRE_CASE(conn_peer_failed_end),
	  MRE_CASE(conn_reopen_after_failure),
	  MRE_CASE(conn_reset_spares_unused_stream),
	  MRE_CASE(conn_stream_lookup_follows_detach),
	  MRE_CASE(conn_detach_in_flight),
	  MRE_CASE(conn_stream_vanishes_in_flight),
	  MRE_CASE(conn_idle_then_send),
	  MRE_CASE(conn_lost_connect),
	  MRE_CASE(conn_many_streams),
	  MRE_CASE(conn_read_buffer_gone),
	  MRE_CASE(conn_local_wqe_resumes));

