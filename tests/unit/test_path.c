// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Paths and congestion control in isolation: one connection of a model node,
 * ACKs built by hand, time moved by hand.
 */
#include "cc.h"
#include "model.h"
#include "send.h"
#include "mre_test.h"

struct one {
	struct mdl_node n;
	struct mre_conn c;
	struct mre_path *p;
	u64 now;
};

static void drop_out(struct mdl_node *n, u32 peer, const struct mre_xmit *x,
		     const u8 *pkt, u32 len)
{
}

static struct one *one_new(struct kunit *test, struct mre_config *cfg)
{
	struct one *o = MRE_ALLOC(test, sizeof(*o));
	struct mre_config def;

	if (!cfg) {
		mre_config_default(&def);
		cfg = &def;
	}
	mdl_node_init(&o->n, 0, mre_test_seed(test), cfg);
	o->n.out = drop_out;
	mdl_conn(&o->n, 1, &o->c, MRE_ALLOC(test, mre_conn_mem_size(cfg)));
	o->c.state = MRE_CONN_ESTABLISHED;
	o->p = &o->c.paths[0];
	o->now = 1000000;
	return o;
}

/* send @n packets on path @path, as TSNs tsn_next.. (as send_tsn() does) */
static void send_on(struct one *o, u32 path, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		u32 tsn = o->c.tsn_next++;
		struct mre_txd *t = mre_txd_of(&o->c, tsn);

		*t = (struct mre_txd){ .op = MRE_OP_NOP, .state = MRE_TXD_OUT };
		t->psn = mre_path_sent(&o->c.paths[path], &o->c, tsn, false,
				       o->now);
		t->path = (u8)path;
		t->sent = (u32)o->now;
	}
}

/* send @n packets on path 0 */
static void send_n(struct one *o, u32 n)
{
	send_on(o, 0, n);
}

/* an ACK for @path: the newest packet it saw was sent at @echo */
static struct mre_pkt ack_for(struct one *o, u32 path, u32 cum, u32 sack0,
			      u64 echo)
{
	struct mre_pkt a = {
		.type = MRE_T_ACK,
		.ack = {
			.ack_path = (u16)path, .psn_cum = cum, .sack = { sack0 },
			.tsn_cum = o->c.tsn_una, .ts_echo = (u32)echo,
		},
	};
	return a;
}

static struct mre_pkt ack_of(struct one *o, u32 cum, u32 sack0, u32 ce)
{
	struct mre_pkt a = ack_for(o, 0, cum, sack0, o->now - 10000);

	a.ack.ce_count = ce;
	return a;
}

MRE_TEST(path_fack_loss)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt a;

	send_n(o, 10);
	MRE_EXPECT_EQ(test, o->p->inflight, 10);
	/* PSN 0 missing, 1..5 SACKed: 0 is three below the highest, so lost */
	a = ack_of(o, 0, 0x1f, 0);
	mre_path_ack(o->p, &o->c, &a, o->now);
	MRE_EXPECT_EQ(test, o->p->st_lost, 1);
	MRE_EXPECT_EQ(test, o->p->st_acked, 5);
	MRE_EXPECT_EQ(test, o->p->inflight, 4);
	MRE_EXPECT_EQ(test, o->p->psn_una, 6);
	MRE_EXPECT_EQ(test, o->c.rtxq_tail - o->c.rtxq_head, 1);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.loss_fast, 1);
}

MRE_TEST(path_reorder_tolerated)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt a;

	send_n(o, 10);
	/* 1 and 2 arrived before 0: not enough evidence of a loss */
	a = ack_of(o, 0, 0x3, 0);
	mre_path_ack(o->p, &o->c, &a, o->now);
	MRE_EXPECT_EQ(test, o->p->st_lost, 0);
	MRE_EXPECT_EQ(test, o->p->psn_una, 0);
	/* then 0 shows up */
	a = ack_of(o, 3, 0, 0);
	mre_path_ack(o->p, &o->c, &a, o->now);
	MRE_EXPECT_EQ(test, o->p->st_lost, 0);
	MRE_EXPECT_EQ(test, o->p->psn_una, 3);
	MRE_EXPECT_EQ(test, o->p->inflight, 7);
}

MRE_TEST(path_rtt_rto)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt a;

	send_n(o, 2);
	a = ack_of(o, 1, 0, 0);
	a.ack.ack_delay = 2000;			/* the receiver sat on it 2 us */
	mre_path_ack(o->p, &o->c, &a, o->now);
	MRE_EXPECT_EQ(test, o->p->srtt, 8000);
	MRE_EXPECT_EQ(test, o->p->rttvar, 4000);
	/* srtt + 4 rttvar = 24 us, below rto_min */
	MRE_EXPECT_EQ(test, o->p->rto, o->n.ep.cfg.rto_min_ns);
	MRE_EXPECT_EQ(test, o->p->rto_at, o->now + o->p->rto);
}

/*
 * An echo from our future (another CPU's clock ahead of ours, or a lie):
 * no RTT sample, and nothing counts as heard. It once made min_rtt 1 ns,
 * and, early in the clock's life, everything sent "due" for good.
 */
MRE_TEST(path_echo_from_future)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt a;
	u64 heard;

	send_n(o, 2);
	a = ack_of(o, 1, 0, 0);			/* sent 10 us ago */
	mre_path_ack(o->p, &o->c, &a, o->now);
	MRE_EXPECT_EQ(test, o->p->min_rtt, 10000);
	MRE_EXPECT_EQ(test, o->p->srtt, 10000);
	heard = o->c.heard_sent;
	MRE_EXPECT_EQ(test, heard, o->now - 10000);
	o->now += 20000;
	send_n(o, 2);
	a = ack_for(o, 0, 3, 0, o->now + 5000);	/* 5 us ahead of us */
	mre_path_ack(o->p, &o->c, &a, o->now);
	MRE_EXPECT_EQ(test, o->p->min_rtt, 10000);
	MRE_EXPECT_EQ(test, o->p->srtt, 10000);
	MRE_EXPECT_EQ(test, o->c.heard_sent, heard);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.loss_time, 0);
}

MRE_TEST(path_timeouts_fail_and_probe)
{
	struct one *o = one_new(test, NULL);
	u16 port = o->p->src_port;
	struct mre_pkt a;

	send_n(o, 4);
	o->now = o->p->rto_at;
	o->c.last_ack = o->now - 1;	/* other paths are being answered */
	o->c.heard_sent = o->now - 1;	/* ... for packets sent after ours */
	MRE_EXPECT(test, !mre_path_timers(o->p, &o->c, o->now));
	MRE_EXPECT_EQ(test, o->p->health, MRE_PATH_SUSPECT);
	MRE_EXPECT_EQ(test, o->p->st_lost, 4);
	MRE_EXPECT_NE(test, o->p->src_port, port);	/* moved off the route */
	MRE_EXPECT_EQ(test, o->p->cwnd >> MRE_FP, o->n.ep.cfg.min_cwnd);
	MRE_EXPECT_EQ(test, mre_path_room(o->p), 1);
	send_n(o, 1);
	o->now = o->p->rto_at;
	o->c.last_ack = o->now - 1;
	o->c.heard_sent = o->now - 1;
	MRE_EXPECT(test, !mre_path_timers(o->p, &o->c, o->now));
	MRE_EXPECT_EQ(test, o->p->health, MRE_PATH_FAILED);
	MRE_EXPECT_EQ(test, mre_path_room(o->p), 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.path_failed, 1);
	/* a probe goes out when due, and its ACK heals the path */
	MRE_EXPECT_EQ(test, o->p->probe_at, o->now + o->n.ep.cfg.probe_min_ns);
	o->now = o->p->probe_at;
	MRE_EXPECT(test, mre_path_timers(o->p, &o->c, o->now));
	mre_send_probe(&o->c, o->p, o->now);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.tx_probe, 1);
	MRE_EXPECT_EQ(test, o->p->probe_at, o->now + 2 * o->n.ep.cfg.probe_min_ns);
	a = ack_of(o, o->p->psn_next, 0, 0);
	mre_path_ack(o->p, &o->c, &a, o->now);
	MRE_EXPECT_EQ(test, o->p->health, MRE_PATH_GOOD);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.path_recovered, 1);
	MRE_EXPECT_GE(test, o->p->cwnd >> MRE_FP, o->n.ep.cfg.init_cwnd);
}

/* silence on every path is the connection's, not this path's fault */
MRE_TEST(path_stall_is_not_path_failure)
{
	struct one *o = one_new(test, NULL);
	u16 port = o->p->src_port;
	u64 rto;

	send_n(o, 4);
	rto = o->p->rto;
	o->now = o->p->rto_at;		/* and no ACK at all came meanwhile */
	MRE_EXPECT(test, !mre_path_timers(o->p, &o->c, o->now));
	MRE_EXPECT_EQ(test, o->p->health, MRE_PATH_GOOD);
	MRE_EXPECT_EQ(test, o->p->src_port, port);
	MRE_EXPECT_EQ(test, o->p->st_lost, 1);		/* the oldest, resent */
	MRE_EXPECT_EQ(test, o->p->inflight, 3);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.rto_stall, 1);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.rto, 0);
	/* backed off, but a stall backs off to rto_init at most, jittered */
	MRE_EXPECT_EQ(test, o->p->rto, MRE_MIN(2 * rto, o->n.ep.cfg.rto_init_ns));
	MRE_EXPECT_GE(test, o->p->rto_at, o->now + o->p->rto);
	MRE_EXPECT_LE(test, o->p->rto_at, o->now + o->p->rto + o->p->rto / 2);
	MRE_EXPECT_EQ(test, o->c.rtxq_tail - o->c.rtxq_head, 1);
}

/*
 * A stall that lasts: the timer doubles from a measured RTO up to rto_init
 * and stays there (a swamped receiver, section 7), and the resends of
 * senders that stalled together spread over half an RTO.
 */
MRE_TEST(path_stall_backoff_capped)
{
	struct one *o = one_new(test, NULL);
	const struct mre_config *cfg = &o->n.ep.cfg;
	u64 lo = ~0ULL, hi = 0;
	u32 i;

	send_n(o, 40);
	o->p->rto = cfg->rto_min_ns;	/* as if measured */
	o->p->rto_at = o->now + o->p->rto;
	for (i = 0; i < 30; i++) {
		u64 d;

		o->now = o->p->rto_at;
		MRE_EXPECT(test, !mre_path_timers(o->p, &o->c, o->now));
		MRE_EXPECT_LE(test, o->p->rto, cfg->rto_init_ns);
		d = o->p->rto_at - o->now - o->p->rto;
		lo = MRE_MIN(lo, d);
		hi = MRE_MAX(hi, d);
	}
	MRE_EXPECT_EQ(test, o->p->rto, cfg->rto_init_ns);
	MRE_EXPECT_EQ(test, o->p->health, MRE_PATH_GOOD);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.rto_stall, 30);
	/* jitter: not always the same, never more than half the RTO */
	MRE_EXPECT(test, lo != hi);
	MRE_EXPECT_LE(test, hi, cfg->rto_init_ns / 2);
}

/*
 * The timer fires, ACKs were read since it was armed, but none echoes a
 * packet sent after this path's oldest: no evidence against the path (a
 * descheduled host reads its ACKs after its timers). Resend the oldest only.
 */
MRE_TEST(path_rto_needs_newer_echo)
{
	struct one *o = one_new(test, NULL);
	u16 port = o->p->src_port;
	u64 t0 = o->now;

	send_n(o, 4);
	o->now = o->p->rto_at;
	o->c.last_ack = o->now - 1;
	o->c.heard_sent = t0 - 1;	/* echoes of older packets only */
	MRE_EXPECT(test, !mre_path_timers(o->p, &o->c, o->now));
	MRE_EXPECT_EQ(test, o->p->health, MRE_PATH_GOOD);
	MRE_EXPECT_EQ(test, o->p->st_lost, 1);
	MRE_EXPECT_EQ(test, o->p->src_port, port);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.rto, 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.rto_stall, 1);
	/* then the peer echoes a younger packet: the next timeout counts */
	o->now = o->p->rto_at;
	o->c.last_ack = o->now - 1;
	o->c.heard_sent = o->now - 1;
	MRE_EXPECT(test, !mre_path_timers(o->p, &o->c, o->now));
	MRE_EXPECT_EQ(test, o->p->health, MRE_PATH_SUSPECT);
	MRE_EXPECT_EQ(test, o->p->st_lost, 4);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.rto, 1);
}

MRE_TEST(path_plane_down_up)
{
	struct mre_config cfg;
	struct one *o;
	u32 i, failed = 0;

	mre_config_default(&cfg);
	cfg.nplanes = 2;
	o = one_new(test, &cfg);
	send_n(o, 3);
	mre_conn_plane(&o->c, o->now, 0, false);
	for (i = 0; i < o->c.npaths; i++)
		failed += o->c.paths[i].health == MRE_PATH_FAILED;
	MRE_EXPECT_EQ(test, failed, o->c.npaths / 2);
	MRE_EXPECT_EQ(test, o->n.tr[MRE_TR_PATH][MRE_TRW_PLANE], failed);
	MRE_EXPECT_EQ(test, o->n.tr[MRE_TR_LOSS][MRE_TRW_PLANE], 3);
	MRE_EXPECT_EQ(test, o->n.tr_bad, 0);
	MRE_EXPECT_EQ(test, o->p->st_lost, 3);		/* resent elsewhere */
	MRE_EXPECT_EQ(test, o->p->probe_at, 0);		/* no probing a dead plane */
	mre_conn_plane(&o->c, o->now + 5, 0, true);
	MRE_EXPECT_EQ(test, o->p->probe_at, o->now + 5);
}

/* a plane deleted while down: its failed paths move and are probed again */
MRE_TEST(path_planes_reassigned)
{
	struct mre_config cfg;
	struct one *o;
	u32 i, moved = 0;

	mre_config_default(&cfg);
	cfg.nplanes = 2;
	o = one_new(test, &cfg);
	mre_conn_plane(&o->c, o->now, 1, false);
	mre_conn_set_planes(&o->c, o->now + 7, 1);
	MRE_EXPECT_EQ(test, o->c.nplanes, 1);
	for (i = 0; i < o->c.npaths; i++) {
		const struct mre_path *p = &o->c.paths[i];

		MRE_EXPECT_EQ(test, p->plane, 0);
		MRE_EXPECT(test, !p->plane_down);
		if (i % 2 == 0)
			continue;
		moved++;
		MRE_EXPECT_EQ(test, p->health, MRE_PATH_FAILED);
		MRE_EXPECT_EQ(test, p->probe_at, o->now + 7);
	}
	MRE_EXPECT_EQ(test, moved, o->c.npaths / 2);
}

MRE_TEST(path_receiver_window)
{
	struct one *o = one_new(test, NULL);
	bool gap;

	MRE_EXPECT_EQ(test, mre_path_rx(o->p, 0, 0, 1, false, o->now, &gap),
		      MRE_WIN_NEW);
	MRE_EXPECT(test, !gap);
	MRE_EXPECT_EQ(test, mre_path_rx(o->p, 2, 0, 1, true, o->now, &gap),
		      MRE_WIN_NEW);
	MRE_EXPECT(test, gap);			/* hole at 1 */
	MRE_EXPECT_EQ(test, o->p->rx_ce, 1);
	/* in order above the hole: no news, the next ACK carries it */
	MRE_EXPECT_EQ(test, mre_path_rx(o->p, 3, 0, 1, false, o->now, &gap),
		      MRE_WIN_NEW);
	MRE_EXPECT(test, !gap);
	MRE_EXPECT_EQ(test, o->p->rx_reorder, 0);
	/* 1 arrives behind 2 and 3: reordered by 2, said at once */
	MRE_EXPECT_EQ(test, mre_path_rx(o->p, 1, 0, 1, false, o->now, &gap),
		      MRE_WIN_NEW);
	MRE_EXPECT(test, gap);
	MRE_EXPECT_EQ(test, o->p->rx_reorder, 2);
	MRE_EXPECT_EQ(test, o->p->rx.base, 4);
	/* the sender gave PSN 4 up (resent it elsewhere): stop waiting */
	MRE_EXPECT_EQ(test, mre_path_rx(o->p, 5, 5, 1, false, o->now, &gap),
		      MRE_WIN_NEW);
	MRE_EXPECT_EQ(test, o->p->rx.base, 6);
	/* ... it arrives after all, behind 5: reordering, not a duplicate */
	MRE_EXPECT_EQ(test, mre_path_rx(o->p, 4, 5, 1, false, o->now, &gap),
		      MRE_WIN_DUP);
	MRE_EXPECT(test, gap);
	MRE_EXPECT_EQ(test, o->p->rx_reorder, 2);
	MRE_EXPECT_EQ(test, o->p->st_late, 2);
	MRE_EXPECT_EQ(test, mre_path_rx(o->p, 6 + 300, 6, 1, false, o->now, &gap),
		      MRE_WIN_AHEAD);
}

MRE_TEST(cc_slow_start_and_ecn_cut)
{
	struct one *o = one_new(test, NULL);
	u32 w0 = o->p->cwnd, w1, cut;

	send_n(o, 20);
	o->p->win_end = o->p->psn_next;		/* one window: these 20 */
	mre_cc_path_ack(o->p, &o->c, 4, 0, 0);
	MRE_EXPECT_EQ(test, o->p->cwnd, w0 + (4 << MRE_FP));
	/* a mark: cut by alpha/2; alpha starts at 1 (DCTCP), so halved */
	w1 = o->p->cwnd;
	MRE_EXPECT_EQ(test, o->p->alpha, MRE_ALPHA_ONE);
	mre_cc_path_ack(o->p, &o->c, 1, 0, 1);
	cut = w1 / 2;
	MRE_EXPECT_EQ(test, o->p->cwnd, cut);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.ecn_cut, 1);
	/* traced: from and to in 1/100 packets, alpha in 1/1024 */
	MRE_EXPECT_EQ(test, o->n.tr[MRE_TR_CUT][MRE_TRW_ECN], 1);
	MRE_EXPECT_EQ(test, o->n.tr_last.path, o->p->id);
	MRE_EXPECT_EQ(test, o->n.tr_last.cut.from, (w1 * 100) >> MRE_FP);
	MRE_EXPECT_EQ(test, o->n.tr_last.cut.to, (cut * 100) >> MRE_FP);
	MRE_EXPECT_EQ(test, o->n.tr_last.cut.alpha, MRE_ALPHA_ONE);
	/* more marks in the same window do not cut again */
	mre_cc_path_ack(o->p, &o->c, 1, 0, 1);
	MRE_EXPECT_EQ(test, o->p->cwnd, cut);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.ecn_cut, 1);
	/* loss alone does not cut (loss_beta_shift 0) */
	w1 = o->p->cwnd;
	mre_cc_path_ack(o->p, &o->c, 0, 3, 0);
	MRE_EXPECT_EQ(test, o->p->cwnd, w1);
}

MRE_TEST(cc_alpha_tracks_marks)
{
	struct one *o = one_new(test, NULL);
	u32 i;

	/* windows with no marks decay alpha geometrically (g = 1/16) to 0 */
	for (i = 0; i < 100; i++) {
		o->p->psn_una = o->p->win_end;
		mre_cc_path_ack(o->p, &o->c, 10, 0, 0);
	}
	MRE_EXPECT_EQ(test, o->p->alpha, 0);
	/* half the packets marked for many windows: alpha near 1/2 */
	for (i = 0; i < 200; i++) {
		o->p->psn_una = o->p->win_end;
		o->p->win_acked += 5;
		mre_cc_path_ack(o->p, &o->c, 5, 0, 5);
	}
	MRE_EXPECT_GE(test, o->p->alpha, MRE_ALPHA_ONE / 2 - 40);
	MRE_EXPECT_LE(test, o->p->alpha, MRE_ALPHA_ONE / 2 + 40);
}

MRE_TEST(cc_rate_hint_and_pacing)
{
	struct mre_config cfg;
	struct one *o;
	struct mre_conn *c2;
	u64 at = 0;
	u32 i;

	mre_config_default(&cfg);
	cfg.link_mbps = 100000;
	o = one_new(test, &cfg);
	MRE_EXPECT_EQ(test, mre_cc_hint(&o->c, o->now), 95000);
	/* four senders active in this epoch: a quarter each */
	c2 = MRE_ALLOC(test, sizeof(*c2) * 3);
	for (i = 0; i < 3; i++) {
		struct mre_addr a = mdl_addr(2 + i);

		mre_conn_init(&c2[i], &o->n.ep,
			      MRE_ALLOC(test, mre_conn_mem_size(&cfg)), &a);
		mre_cc_rx_activity(&c2[i], 1000, o->now);
	}
	mre_cc_rx_activity(&o->c, 1000, o->now);
	MRE_EXPECT_EQ(test, mre_cc_hint(&o->c, o->now), 95000 / 4);
	/* two epochs of silence: the estimate resets */
	MRE_EXPECT_EQ(test, mre_cc_hint(&o->c, o->now + 3 * cfg.active_ns), 95000);
	/* pacing at 8 Gbit/s: a 1000-byte packet every 1000 ns */
	o->c.rate_mbps = 8000;
	o->c.pace_next = o->now;
	mre_cc_sent(&o->c, 1000, o->now);
	MRE_EXPECT_EQ(test, o->c.pace_next, o->now + 1000);
	MRE_EXPECT(test, !mre_cc_can_send(&o->c, o->now, &at));
	MRE_EXPECT_EQ(test, at, o->now + 1000);
	MRE_EXPECT(test, mre_cc_can_send(&o->c, o->now + 1000, &at));
	/* a hint is traced when it changes, not on every ACK carrying it */
	mre_cc_rate(&o->c, 4000);
	mre_cc_rate(&o->c, 4000);
	MRE_EXPECT_EQ(test, o->n.tr[MRE_TR_HINT][MRE_TRW_NONE], 1);
	MRE_EXPECT_EQ(test, o->n.tr_last.hint.from, 8000);
	MRE_EXPECT_EQ(test, o->n.tr_last.hint.to, 4000);
}

/*
 * A connection counts as an active sender from its handshake: the first
 * ACKs of an incast already carry the share of all senders, not of those
 * whose data has arrived so far.
 */
MRE_TEST(cc_hint_counts_handshakes)
{
	struct mre_config cfg;
	struct mre_pkt con = { .type = MRE_T_CONNECT };
	struct mre_conn *c2;
	struct one *o;
	u32 i;

	mre_config_default(&cfg);
	cfg.link_mbps = 100000;
	o = one_new(test, &cfg);
	c2 = MRE_ALLOC(test, sizeof(*c2) * 4);
	for (i = 0; i < 4; i++) {
		struct mre_addr a = mdl_addr(2 + i);

		mre_conn_init(&c2[i], &o->n.ep,
			      MRE_ALLOC(test, mre_conn_mem_size(&cfg)), &a);
		con.connect.src_cid = 100 + i;
		con.connect.window_log2 = 10;
		con.connect.npaths = 8;
		mre_conn_accept(&c2[i], o->now, &con);
		MRE_EXPECT_EQ(test, c2[i].state, MRE_CONN_ESTABLISHED);
	}
	/* four peers connected, none has sent data yet */
	MRE_EXPECT_EQ(test, mre_cc_hint(&o->c, o->now), 95000 / 4);
}

/*
 * A thousand senders, each paced at its share: one 4 KiB packet every 1,000
 * packet times of the receiver's link (333 us), far apart compared with
 * active_ns. The activity epoch stretches to cover that interval, so the
 * count sees all of them and the hint is their share, not seven times it
 * (what a 50 us epoch, seeing one sender in seven, offered).
 */
#define FANIN 1000

MRE_TEST(cc_hint_epoch_spans_fanin)
{
	struct mre_config cfg;
	struct mre_conn *c;
	struct one *o;
	u64 gap = 4168ULL * 8000 / 100000, t;	/* ns per packet at 100 Gbit/s */
	u32 i, round, hint;

	mre_config_default(&cfg);
	cfg.link_mbps = 100000;
	o = one_new(test, &cfg);
	c = MRE_ALLOC(test, sizeof(*c) * FANIN);
	for (i = 0; i < FANIN; i++)
		c[i].ep = &o->n.ep;	/* all the activity count reads */
	t = o->now;
	for (round = 0; round < 3; round++)
		for (i = 0; i < FANIN; i++, t += gap)
			mre_cc_rx_activity(&c[i], 4168, t);
	hint = mre_cc_hint(&c[0], t);
	MRE_EXPECT_GE(test, hint, 95000 / FANIN);
	MRE_EXPECT_LE(test, hint, 95000 / (FANIN - FANIN / 10));
	/* and a few senders still see active_ns epochs: silence resets it */
	MRE_EXPECT_EQ(test, mre_cc_hint(&c[0], t + 4 * FANIN * gap), 95000);
}

/*
 * A window grows only while at least half of it is in use (RFC 7661): a
 * paced path with a few packets out keeps the window it has, so a path
 * whose packets vanish cannot soak up more than that before its RTO.
 */
MRE_TEST(cc_grows_only_when_window_used)
{
	struct one *o = one_new(test, NULL);
	u32 w0 = o->p->cwnd, c0 = o->c.cwnd;

	o->c.cwnd = 128 << MRE_FP;
	c0 = o->c.cwnd;
	send_n(o, 3);				/* 3 of 16 in flight */
	o->p->win_end = o->p->psn_next + 100;	/* no window boundary */
	mre_cc_path_ack(o->p, &o->c, 1, 0, 0);
	MRE_EXPECT_EQ(test, o->p->cwnd, w0);
	send_n(o, 6);				/* 9 of 16: half in use */
	mre_cc_path_ack(o->p, &o->c, 1, 0, 0);
	MRE_EXPECT_EQ(test, o->p->cwnd, w0 + (1 << MRE_FP));
	/* the connection's window likewise: 9 of 128 in flight */
	o->c.win_end = o->c.tsn_next + 100;
	mre_cc_conn_acked(&o->c, 1);
	MRE_EXPECT_EQ(test, o->c.cwnd, c0);
	send_n(o, 60);
	mre_cc_conn_acked(&o->c, 1);
	MRE_EXPECT(test, o->c.cwnd > c0);
}

/*
 * ACKs overtake each other across paths: duplicates are counted once. They
 * do not make FACK more patient: on a lossy fabric they come from resends
 * after timeouts whose ACKs were lost, and a threshold raised by each ended
 * at 32, where FACK saw no loss on a path with a few packets out.
 */
MRE_TEST(ack_dup_count_reordered)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt a = ack_of(o, 0, 0, 0);

	a.ack.dup_count = 5;
	mre_conn_rx(&o->c, o->now, &a, false);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.spurious_retx, 5);
	a.ack.dup_count = 3;		/* an older ACK, late */
	mre_conn_rx(&o->c, o->now, &a, false);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.spurious_retx, 5);
	a.ack.dup_count = 6;		/* one more duplicate since the first */
	mre_conn_rx(&o->c, o->now, &a, false);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.spurious_retx, 6);
	MRE_EXPECT_EQ(test, o->c.reorder, o->n.ep.cfg.reorder_pkts);
}

/* give path @path an RTT sample: srtt and min_rtt 10 us, rttvar 5 us */
static void measure(struct one *o, u32 path)
{
	struct mre_path *p = &o->c.paths[path];
	struct mre_pkt a;

	send_on(o, path, 2);
	o->now += 10000;
	a = ack_for(o, path, p->psn_next, 0, o->now - 10000);
	mre_conn_rx(&o->c, o->now, &a, false);
}

/*
 * FACK declared a packet lost, and the receiver accepts its TSN before the
 * resend can have arrived: the packet was late within its path, and FACK
 * waits for one more later PSN. The threshold decays again by one per
 * connection window of TSNs accepted without such evidence.
 */
MRE_TEST(path_spurious_fack_reorder)
{
	struct one *o = one_new(test, NULL);
	struct mre_path *q = &o->c.paths[1];
	struct mre_txd *t;
	struct mre_pkt a;
	u32 t0, r0 = o->n.ep.cfg.reorder_pkts;

	measure(o, 0);
	measure(o, 1);
	t0 = o->c.tsn_next;
	send_n(o, 5);
	a = ack_of(o, o->p->psn_una, 0xf, 0);	/* the first missing, 4 after it */
	mre_conn_rx(&o->c, o->now, &a, false);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.loss_fast, 1);
	t = mre_txd_of(&o->c, t0);
	MRE_EXPECT_EQ(test, t->state, MRE_TXD_QUEUED);
	/* resent on path 1 (as send_tsn() would) ... */
	o->c.rtxq_head = o->c.rtxq_tail;
	t->psn = mre_path_sent(q, &o->c, t0, false, o->now);
	t->path = 1;
	t->sent = (u32)o->now;
	t->state = MRE_TXD_OUT;
	/* ... and accepted 2 us later, 8 us before the resend could arrive */
	o->now += 2000;
	a = ack_for(o, 0, o->p->psn_una, 0, o->now - 10000);
	a.ack.tsn_cum = t0 + 1;
	mre_conn_rx(&o->c, o->now, &a, false);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.loss_late, 1);
	MRE_EXPECT_EQ(test, o->c.reorder, r0 + 1);
	/* a window of TSNs accepted with no more of it: back to reorder_pkts */
	send_on(o, 2, o->c.cwnd >> MRE_FP);
	a.ack.tsn_cum = o->c.tsn_next;
	mre_conn_rx(&o->c, o->now, &a, false);
	MRE_EXPECT_EQ(test, o->c.reorder, r0);
}

/* a resend that had time to arrive says nothing about reordering */
MRE_TEST(path_fack_resend_in_time)
{
	struct one *o = one_new(test, NULL);
	struct mre_path *q = &o->c.paths[1];
	struct mre_txd *t;
	struct mre_pkt a;
	u32 t0;

	measure(o, 0);
	measure(o, 1);
	t0 = o->c.tsn_next;
	send_n(o, 5);
	a = ack_of(o, o->p->psn_una, 0xf, 0);
	mre_conn_rx(&o->c, o->now, &a, false);
	t = mre_txd_of(&o->c, t0);
	o->c.rtxq_head = o->c.rtxq_tail;
	t->psn = mre_path_sent(q, &o->c, t0, false, o->now);
	t->path = 1;
	t->sent = (u32)o->now;
	t->state = MRE_TXD_OUT;
	o->now += 12000;		/* past path 1's smallest RTT */
	a = ack_for(o, 0, o->p->psn_una, 0, o->now - 10000);
	a.ack.tsn_cum = t0 + 1;
	mre_conn_rx(&o->c, o->now, &a, false);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.loss_late, 0);
	MRE_EXPECT_EQ(test, o->c.reorder, o->n.ep.cfg.reorder_pkts);
}

/*
 * Packets sent on a path go unheard while one sent after them on another
 * path is acknowledged: the path is silent. Without waiting for its RTO
 * (rto_min) it is failed, what it had out is resent elsewhere, and it is
 * probed at once on a new source port; the probe's answer brings it back.
 */
MRE_TEST(path_silent_while_siblings_heard)
{
	struct one *o = one_new(test, NULL);
	struct mre_path *p = o->p, *q = &o->c.paths[1];
	struct mre_pkt a;
	u64 t0, due;
	u16 port;

	measure(o, 0);
	MRE_EXPECT_EQ(test, o->c.silence_k, o->n.ep.cfg.ack_freq + 1);
	t0 = o->now;
	send_on(o, 0, 3);		/* nothing will come back for these */
	due = mre_path_deadline(p);
	/* srtt + max(4 rttvar, srtt / 4), well before the RTO */
	MRE_EXPECT_EQ(test, due, t0 + 10000 + 4 * 5000);
	MRE_EXPECT(test, due < p->rto_at);
	o->now = t0 + 1000;
	send_on(o, 1, 1);		/* sent after them on another path ... */
	o->now = t0 + 11000;
	a = ack_for(o, 1, q->psn_next, 0, t0 + 1000);	/* ... and heard */
	mre_conn_rx(&o->c, o->now, &a, false);
	port = p->src_port;
	o->now = due - 1;
	MRE_EXPECT(test, !mre_path_timers(p, &o->c, o->now));
	MRE_EXPECT_EQ(test, p->health, MRE_PATH_GOOD);
	o->now = due;
	MRE_EXPECT(test, mre_path_timers(p, &o->c, o->now));
	mre_send_probe(&o->c, p, o->now);
	MRE_EXPECT_EQ(test, p->health, MRE_PATH_FAILED);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.path_silent, 1);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.loss_silent, 3);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.rto, 0);
	MRE_EXPECT_EQ(test, o->c.rtxq_tail - o->c.rtxq_head, 3);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.tx_probe, 1);	/* at once ... */
	MRE_EXPECT_NE(test, p->src_port, port);		/* ... elsewhere */
	/* unanswered, the next probe follows after about one RTT */
	MRE_EXPECT_EQ(test, p->probe_at, o->now + 2 * (due - t0) / 2);
	o->now += 10000;
	a = ack_for(o, 0, p->psn_next, 0, o->now - 10000);
	mre_conn_rx(&o->c, o->now, &a, false);
	MRE_EXPECT_EQ(test, p->health, MRE_PATH_GOOD);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.path_recovered, 1);
}

/*
 * Silence is judged only against siblings that were heard: when nothing
 * sent later came back either, the path waits (no timer spins), and the
 * first ACK of a later packet settles it.
 */
MRE_TEST(path_silence_needs_evidence)
{
	struct one *o = one_new(test, NULL);
	struct mre_path *p = o->p, *q = &o->c.paths[1];
	struct mre_pkt a;
	u64 t0;

	measure(o, 0);
	t0 = o->now;
	send_on(o, 0, 3);
	o->now = t0 + 1000;
	send_on(o, 1, 1);
	o->now = mre_path_deadline(p);
	/* an ACK of something older than the quiet packets is no evidence */
	a = ack_for(o, 1, q->psn_una, 0, t0 - 1000);
	mre_conn_rx(&o->c, o->now, &a, false);
	if (mre_path_timers(p, &o->c, o->now))	/* the tail probe, maybe */
		mre_send_probe(&o->c, p, o->now);
	MRE_EXPECT_EQ(test, p->health, MRE_PATH_GOOD);
	MRE_EXPECT(test, p->quiet_wait);
	MRE_EXPECT_EQ(test, mre_path_deadline(p), p->rto_at);
	a = ack_for(o, 1, q->psn_next, 0, t0 + 1000);
	mre_conn_rx(&o->c, o->now, &a, false);
	mre_conn_run(&o->c, o->now);
	MRE_EXPECT_EQ(test, p->health, MRE_PATH_FAILED);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.path_silent, 1);
}

/*
 * On a lossy fabric a healthy path is sometimes unheard for a few packets:
 * the number that counts as silence grows with the measured loss rate.
 */
MRE_TEST(path_silence_k_follows_loss)
{
	struct one *o = one_new(test, NULL);
	struct mre_path *p = o->p;

	mre_path_silence_k(&o->c);
	MRE_EXPECT_EQ(test, o->c.silence_k, 3);
	o->c.loss_ewma = 65536 * 2 / 100;	/* 2 % */
	mre_path_silence_k(&o->c);
	MRE_EXPECT_EQ(test, o->c.silence_k, 7);
	o->c.loss_ewma = 65536 * 19 / 100;	/* 19 % */
	mre_path_silence_k(&o->c);
	MRE_EXPECT_EQ(test, o->c.silence_k, 16);
	/* at 2 %, three unheard packets are not yet watched */
	measure(o, 0);
	o->c.loss_ewma = 65536 * 2 / 100;
	mre_path_silence_k(&o->c);
	send_on(o, 0, 3);
	MRE_EXPECT(test, !p->quiet_on);
	send_on(o, 0, 4);
	MRE_EXPECT(test, p->quiet_on);
}

/*
 * The connection starts at conn_init_cwnd and grows by one packet per TSN
 * accepted (slow start) until the first CE-marked window. Its DCTCP alpha
 * starts at 0, so that first cut is by the marked fraction measured, not
 * a halving: a window grown from conn_init_cwnd has not overshot by much,
 * and where the marks come from an incast the rate hint does the rest.
 * Then +1 per window.
 */
MRE_TEST(cc_conn_slow_start)
{
	struct one *o = one_new(test, NULL);
	u32 w, cut;

	MRE_EXPECT_EQ(test, o->c.cwnd, o->n.ep.cfg.conn_init_cwnd << MRE_FP);
	MRE_EXPECT_EQ(test, o->c.alpha, 0);
	o->c.win_end = o->c.tsn_next + 1000;	/* no window boundary yet */
	send_n(o, 8);				/* the window is in use */
	mre_cc_conn_acked(&o->c, 4);
	w = (o->n.ep.cfg.conn_init_cwnd + 4) << MRE_FP;
	MRE_EXPECT_EQ(test, o->c.cwnd, w);
	/* the window closes with 4 of its 8 TSNs marked: alpha 1/32 */
	o->c.win_ce = 4;
	o->c.win_end = o->c.tsn_una;
	mre_cc_conn_acked(&o->c, 4);
	MRE_EXPECT_EQ(test, o->c.alpha, MRE_ALPHA_ONE / 32);
	cut = w - w / 64;
	MRE_EXPECT_EQ(test, o->c.cwnd, cut);
	MRE_EXPECT_EQ(test, o->c.ssthresh, cut);
	/* out of slow start: one packet per window */
	o->c.win_end = o->c.tsn_next + 1000;
	mre_cc_conn_acked(&o->c, 4);
	MRE_EXPECT(test, o->c.cwnd > cut);
	MRE_EXPECT(test, o->c.cwnd < cut + (1 << MRE_FP));
}

/*
 * In slow start a rate hint sizes the window at once: the hinted rate over
 * the slowest measured path. A small share never shrinks it, and after
 * the first congestion signal the hint no longer moves it.
 */
MRE_TEST(cc_hint_sizes_window_in_slow_start)
{
	struct one *o = one_new(test, NULL);

	measure(o, 0);				/* srtt 10 us */
	mre_cc_sent(&o->c, 4000, o->now);	/* packets of 4000 bytes */
	/* 80 Gbit/s over 10 us is 100000 bytes: 25 packets */
	mre_cc_rate(&o->c, 80000);
	MRE_EXPECT_EQ(test, o->c.rate_mbps, 80000);
	MRE_EXPECT_EQ(test, o->c.cwnd, 25 << MRE_FP);
	mre_cc_rate(&o->c, 1000);
	MRE_EXPECT_EQ(test, o->c.cwnd, 25 << MRE_FP);
	o->c.ssthresh = o->c.cwnd;
	mre_cc_rate(&o->c, 100000);
	MRE_EXPECT_EQ(test, o->c.cwnd, 25 << MRE_FP);
}

/*
 * A loss is congestion only when a queue stood: the path's latest RTT
 * loss_queue_pct above its least. Then the path's window and the
 * connection's halve (the connection's from what it has out, once per
 * window's worth of packets sent); a loss at the base RTT cuts nothing.
 */
MRE_TEST(cc_loss_with_queue_is_congestion)
{
	struct one *o = one_new(test, NULL);
	u32 w, cw;

	send_n(o, 20);
	o->p->win_end = o->p->psn_next;
	o->c.inflight = 20;
	o->p->min_rtt = 10000;
	o->p->last_rtt = 30000;			/* 200 %: random loss */
	w = o->p->cwnd;
	cw = o->c.cwnd;
	mre_cc_path_ack(o->p, &o->c, 0, 2, 0);
	MRE_EXPECT_EQ(test, o->p->cwnd, w);
	MRE_EXPECT_EQ(test, o->c.cwnd, cw);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.loss_cut, 0);
	o->p->last_rtt = 45000;			/* 350 %: a full queue */
	mre_cc_path_ack(o->p, &o->c, 0, 2, 0);
	MRE_EXPECT_EQ(test, o->p->cwnd, w / 2);
	MRE_EXPECT_EQ(test, o->c.cwnd, MRE_MIN(cw, 20u << MRE_FP) / 2);
	MRE_EXPECT_EQ(test, o->c.ssthresh, o->c.cwnd);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.loss_cut, 1);
	MRE_EXPECT_EQ(test, o->n.tr[MRE_TR_CUT][MRE_TRW_LOSS], 2);
	/* more losses now: neither window is cut again ... */
	cw = o->c.cwnd;
	mre_cc_path_ack(o->p, &o->c, 0, 2, 0);
	MRE_EXPECT_EQ(test, o->p->cwnd, w / 2);
	MRE_EXPECT_EQ(test, o->c.cwnd, cw);
	/* ... until the connection has sent what it had out */
	for (w = 0; w < 20; w++)
		mre_cc_sent(&o->c, 4000, o->now);
	mre_cc_path_ack(o->p, &o->c, 0, 2, 0);
	MRE_EXPECT_EQ(test, o->c.cwnd, cw / 2);
}

/* PSNs 0 and 1 lost by send time, with a full queue behind them */
static struct one *time_loss(struct kunit *test, u32 st_ce, u32 *w, u32 *cw)
{
	struct one *o = one_new(test, NULL);

	send_n(o, 2);
	o->now += 30000;
	send_n(o, 18);
	o->p->st_ce = st_ce;
	o->p->win_end = o->p->psn_next;
	o->c.inflight = 20;
	o->p->min_rtt = 10000;
	o->p->last_rtt = 45000;			/* 350 %: a full queue */
	*w = o->p->cwnd;
	*cw = o->c.cwnd;
	/* TSN 2, sent 30 us after them, arrived */
	mre_path_time_lost(o->p, &o->c, (u32)o->now, 2, 20000, o->now);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.loss_time, 2);
	MRE_EXPECT_EQ(test, o->p->st_lost, 2);
	MRE_EXPECT_EQ(test, o->p->cwnd, *w / 2);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.loss_cut, 1);
	return o;
}

/*
 * A loss by send time comes without its path's CE marks (no ACK of the path
 * brought it): on a fabric that marks it cuts the path but not the
 * connection (such cuts took the 1,024-host permutation's tail from 329 to
 * 411 us). A FACK loss then still cuts the connection; and where nothing
 * marks, a loss by send time cuts both.
 */
MRE_TEST(cc_time_loss_no_conn_cut)
{
	struct one *o;
	struct mre_pkt a;
	u32 w, cw;

	o = time_loss(test, 1, &w, &cw);	/* ECN speaks for the queue */
	MRE_EXPECT_EQ(test, o->c.cwnd, cw);
	MRE_EXPECT_EQ(test, o->n.tr[MRE_TR_CUT][MRE_TRW_LOSS], 1);
	/* PSN 2 missing, 3..7 SACKed, 45 us after they left: FACK */
	o->now += 45000;
	o->c.inflight = 18;
	a = ack_for(o, 0, 2, 0x1f, o->now - 45000);
	mre_path_ack(o->p, &o->c, &a, o->now);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.loss_fast, 1);
	MRE_EXPECT(test, o->c.cwnd < cw);
	MRE_EXPECT_EQ(test, o->n.tr[MRE_TR_CUT][MRE_TRW_LOSS], 2);

	o = time_loss(test, 0, &w, &cw);	/* nothing marks */
	MRE_EXPECT_EQ(test, o->c.cwnd, MRE_MIN(cw, 20u << MRE_FP) / 2);
	MRE_EXPECT_EQ(test, o->n.tr[MRE_TR_CUT][MRE_TRW_LOSS], 2);
}

MRE_TEST(cc_loss_queue_pct_off)
{
	struct mre_config cfg;
	struct one *o;
	u32 w;

	mre_config_default(&cfg);
	cfg.loss_queue_pct = 0;
	o = one_new(test, &cfg);
	send_n(o, 20);
	o->c.inflight = 20;
	o->p->min_rtt = 10000;
	o->p->last_rtt = 50000;
	w = o->p->cwnd;
	mre_cc_path_ack(o->p, &o->c, 0, 2, 0);
	MRE_EXPECT_EQ(test, o->p->cwnd, w);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.loss_cut, 0);
}

/*
 * slow start ends at the first sample that shows a queue building (on a
 * fabric that marks: without marks, cc_delay_marks_without_ecn)
 */
MRE_TEST(cc_slow_start_ends_on_queue)
{
	struct one *o = one_new(test, NULL);
	u32 w;

	send_n(o, 20);
	o->p->st_ce = 1;
	o->p->win_end = o->p->psn_next;
	o->c.inflight = 20;
	o->p->min_rtt = 10000;
	o->p->last_rtt = 30000;
	w = o->p->cwnd;
	mre_cc_path_ack(o->p, &o->c, 4, 0, 0);
	MRE_EXPECT_EQ(test, o->p->cwnd, w + (4 << MRE_FP));	/* doubling */
	o->p->last_rtt = 45000;
	w = o->p->cwnd;
	mre_cc_path_ack(o->p, &o->c, 4, 0, 0);
	MRE_EXPECT_EQ(test, o->p->ssthresh, w);
	MRE_EXPECT(test, o->p->cwnd < w + (1 << MRE_FP));	/* +1 per window now */
	MRE_EXPECT_EQ(test, o->c.ssthresh, o->c.cwnd);
}

/*
 * A path that has never brought back a CE mark (a fabric without ECN)
 * takes a queue as deep as a congestion loss's (loss_queue_pct) for marks
 * on what the ACK settled: its window is cut as by ECN and the
 * connection's round counts them. Less queue marks nothing, nor does a
 * measured path within a quarter of its least RTT (a way around the
 * queue), nor loss_queue_pct 0.
 */
MRE_TEST(cc_delay_marks_without_ecn)
{
	struct one *o = one_new(test, NULL);
	struct mre_config cfg;
	u32 w;

	send_n(o, 20);
	o->p->win_end = o->p->psn_next;
	o->c.inflight = 20;
	o->p->min_rtt = 10000;
	o->p->last_rtt = 30000;			/* 200 % */
	w = o->p->cwnd;
	mre_cc_path_ack(o->p, &o->c, 4, 0, 0);
	MRE_EXPECT_EQ(test, o->p->cwnd, w + (4 << MRE_FP));
	MRE_EXPECT_EQ(test, o->c.win_ce, 0);
	o->p->last_rtt = 45000;			/* 350 %: a full queue */
	w = o->p->cwnd;
	mre_cc_path_ack(o->p, &o->c, 4, 0, 0);
	MRE_EXPECT_EQ(test, o->p->cwnd, w - w / 2);	/* alpha starts at 1 */
	MRE_EXPECT_EQ(test, o->p->ssthresh, o->p->cwnd);
	MRE_EXPECT_EQ(test, o->c.win_ce, 4);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.ecn_cut, 1);
	MRE_EXPECT_EQ(test, o->n.tr[MRE_TR_CUT][MRE_TRW_ECN], 1);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.loss_cut, 0);

	/* another path has next to no queue: no marks; with some, marks */
	o = one_new(test, NULL);
	send_n(o, 20);
	o->c.inflight = 20;
	o->p->min_rtt = 10000;
	o->p->last_rtt = 45000;
	o->c.paths[1].srtt = 12000;
	o->c.paths[1].min_rtt = 10000;
	o->c.paths[1].last_rtt = 12000;		/* 20 % */
	mre_cc_path_ack(o->p, &o->c, 4, 0, 0);
	MRE_EXPECT_EQ(test, o->c.win_ce, 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.ecn_cut, 0);
	o->c.paths[1].last_rtt = 13000;		/* 30 % */
	mre_cc_path_ack(o->p, &o->c, 4, 0, 0);
	MRE_EXPECT_EQ(test, o->c.win_ce, 4);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.ecn_cut, 1);

	mre_config_default(&cfg);
	cfg.loss_queue_pct = 0;
	o = one_new(test, &cfg);
	send_n(o, 20);
	o->c.inflight = 20;
	o->p->min_rtt = 10000;
	o->p->last_rtt = 45000;
	mre_cc_path_ack(o->p, &o->c, 4, 0, 0);
	MRE_EXPECT_EQ(test, o->c.win_ce, 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.ecn_cut, 0);
}

/*
 * The ACCEPT of our CONNECT is a round trip before any data: every path's
 * first RTT floor. It counts once, also when a crossing CONNECT of the
 * peer's opened the connection first; data samples only lower it.
 */
MRE_TEST(conn_accept_seeds_min_rtt)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt acc = { .type = MRE_T_ACCEPT };
	u32 i;

	o->c.connect_sent = o->now - 8000;
	mre_conn_rx(&o->c, o->now, &acc, false);
	for (i = 0; i < o->c.npaths; i++)
		MRE_EXPECT_EQ(test, o->c.paths[i].min_rtt, 8000);
	MRE_EXPECT_EQ(test, o->c.connect_sent, 0);
	o->now += 100000;
	mre_conn_rx(&o->c, o->now, &acc, false);	/* once only */
	MRE_EXPECT_EQ(test, o->c.paths[1].min_rtt, 8000);
	measure(o, 0);					/* 10 us: above it */
	MRE_EXPECT_EQ(test, o->p->min_rtt, 8000);
	MRE_EXPECT_EQ(test, o->p->last_rtt, 10000);
}

/*
 * A path without an RTT sample of its own times out on a guess, the
 * slowest measured sibling's RTO. The guess follows the siblings both
 * ways, so that a long path is not timed out on what the short ones
 * measured before its own first ACK could come back.
 */
MRE_TEST(path_guess_follows_slowest_sibling)
{
	struct one *o = one_new(test, NULL);
	struct mre_path *p = &o->c.paths[3], *q = &o->c.paths[1];
	struct mre_pkt a;
	u64 t0 = o->now;

	send_on(o, 3, 1);			/* no sample of its own */
	MRE_EXPECT_EQ(test, p->rto_at, t0 + o->n.ep.cfg.rto_init_ns);
	measure(o, 0);				/* 10 us: rto_min */
	MRE_EXPECT_EQ(test, p->rto_at, t0 + o->n.ep.cfg.rto_min_ns);
	send_on(o, 1, 2);			/* a sibling of 100 us */
	o->now += 100000;
	a = ack_for(o, 1, q->psn_next, 0, o->now - 100000);
	mre_conn_rx(&o->c, o->now, &a, false);
	MRE_EXPECT(test, q->rto > o->n.ep.cfg.rto_min_ns);
	MRE_EXPECT_EQ(test, p->rto_at, t0 + q->rto);
}

static u16 last_port;
static u8 last_type;

static void capture_out(struct mdl_node *n, u32 peer, const struct mre_xmit *x,
			const u8 *pkt, u32 len)
{
	last_port = x->src_port;
	last_type = pkt[0] & 0xf;
}

/*
 * A PROBE says the sender heard nothing on that path; the route of our ACKs
 * for it may be what is dead. The answer leaves on a new source port.
 */
MRE_TEST(probe_moves_ack_route)
{
	struct one *o = one_new(test, NULL);
	struct mre_path *r = &o->c.paths[2];
	struct mre_pkt pr = {
		.type = MRE_T_PROBE, .flags = MRE_F_ACK_REQ, .path = 2,
		.psn = 0, .ts = 5,
	};
	u16 port = r->src_port;

	o->n.out = capture_out;
	mre_conn_rx(&o->c, o->now, &pr, false);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.tx_ack, 1);
	MRE_EXPECT_EQ(test, last_type, MRE_T_ACK);
	MRE_EXPECT_NE(test, r->src_port, port);
	MRE_EXPECT_EQ(test, last_port, r->src_port);
	MRE_EXPECT_EQ(test, r->st_repath, 1);
}

MRE_SUITE(path,
	  MRE_CASE(path_fack_loss),
	  MRE_CASE(path_reorder_tolerated),
	  MRE_CASE(path_rtt_rto),
	  MRE_CASE(path_echo_from_future),
	  MRE_CASE(path_timeouts_fail_and_probe),
	  MRE_CASE(path_stall_is_not_path_failure),
	  MRE_CASE(path_stall_backoff_capped),
	  MRE_CASE(path_rto_needs_newer_echo),
	  MRE_CASE(path_plane_down_up),
	  MRE_CASE(path_planes_reassigned),
	  MRE_CASE(path_receiver_window),
	  MRE_CASE(cc_slow_start_and_ecn_cut),
	  MRE_CASE(cc_alpha_tracks_marks),
	  MRE_CASE(cc_rate_hint_and_pacing),
	  MRE_CASE(cc_hint_counts_handshakes),
	  MRE_CASE(cc_hint_epoch_spans_fanin),
	  MRE_CASE(cc_loss_with_queue_is_congestion),
	  MRE_CASE(cc_time_loss_no_conn_cut),
	  MRE_CASE(cc_loss_queue_pct_off),
	  MRE_CASE(cc_slow_start_ends_on_queue),
	  MRE_CASE(cc_delay_marks_without_ecn),
	  MRE_CASE(conn_accept_seeds_min_rtt),
	  MRE_CASE(cc_conn_slow_start),
	  MRE_CASE(cc_hint_sizes_window_in_slow_start),
	  MRE_CASE(cc_grows_only_when_window_used),
	  MRE_CASE(ack_dup_count_reordered),
	  MRE_CASE(path_spurious_fack_reorder),
	  MRE_CASE(path_fack_resend_in_time),
	  MRE_CASE(path_silent_while_siblings_heard),
	  MRE_CASE(path_silence_needs_evidence),
	  MRE_CASE(path_silence_k_follows_loss),
	  MRE_CASE(path_guess_follows_slowest_sibling),
	  MRE_CASE(probe_moves_ack_route));
