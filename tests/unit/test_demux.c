// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The receive demux (mre_ep_rx()) and the plane blob: hand-built datagrams
 * into one model node, its answers caught on its wire.
 */
#include "model.h"
#include "mre_test.h"

struct one {
	struct mdl_node n;
	struct mre_conn c;		/* towards node 1 */
	struct mre_conn extra;		/* conn_new's, towards whoever asks */
	void *extra_mem;
	u32 sent;			/* packets the node put on its wire */
	u32 last_to;
	u8 last[MRE_CONNECT_LEN + MRE_MAX_BLOB];
	u32 last_len;
	bool last_claim;		/* the last packet went to a claim */
	u64 now;
};

static struct one *the_one;	/* new_conn() has only the node */

static void catch_out(struct mdl_node *n, u32 peer, const struct mre_xmit *x,
		      const u8 *pkt, u32 len)
{
	struct one *o = MRE_CONTAINER_OF(n, struct one, n);

	o->sent++;
	o->last_to = peer;
	o->last_claim = x->claim;
	o->last_len = len < sizeof(o->last) ? len : sizeof(o->last);
	mre_memcpy(o->last, pkt, o->last_len);
}

static struct one *one_new(struct kunit *test, const struct mre_config *cfg)
{
	struct one *o = MRE_ALLOC(test, sizeof(*o));
	struct mre_config def;

	if (!cfg) {
		mre_config_default(&def);
		cfg = &def;
	}
	mdl_node_init(&o->n, 0, mre_test_seed(test), cfg);
	o->n.out = catch_out;
	mdl_conn(&o->n, 1, &o->c, MRE_ALLOC(test, mre_conn_mem_size(cfg)));
	o->extra_mem = MRE_ALLOC(test, mre_conn_mem_size(cfg));
	o->now = 1000000;
	return o;
}

/* a datagram from node @from, as it would come off the wire */
static void rx_from(struct one *o, u32 from, const struct mre_pkt *p)
{
	u8 buf[MRE_CONNECT_LEN + MRE_MAX_BLOB];

	mdl_rx(&o->n, from, buf, mre_wire_put(buf, p), false, o->now);
}

/* the node's last packet out, parsed */
static struct mre_pkt last_out(struct kunit *test, struct one *o)
{
	struct mre_pkt r;

	MRE_EXPECT(test, mre_wire_parse(o->last, o->last_len, &r) ==
			 MRE_PARSE_OK);
	return r;
}

/*
 * A CONNECT from node @from the way a peer sends it: once without a
 * cookie, the RETRY's cookie caught, again with it.
 */
static void rx_connect(struct kunit *test, struct one *o, u32 from,
		       struct mre_pkt *p)
{
	u32 sent = o->sent;
	struct mre_pkt r;

	p->connect.cookie = 0;
	rx_from(o, from, p);
	MRE_ASSERT(test, o->sent == sent + 1);
	r = last_out(test, o);
	MRE_ASSERT(test, r.type == MRE_T_RETRY);
	MRE_EXPECT_EQ(test, r.dst_cid, p->connect.src_cid);
	p->connect.cookie = r.retry.cookie;
	rx_from(o, from, p);
}

static struct mre_pkt probe_to(u64 cid)
{
	struct mre_pkt p = { .type = MRE_T_PROBE, .path = 3, .dst_cid = cid };

	return p;
}

/* an ACK: a packet for an id large enough to be answered with a RESET */
static struct mre_pkt ack_to(u64 cid)
{
	struct mre_pkt p = { .type = MRE_T_ACK, .path = 3, .dst_cid = cid };

	return p;
}

static struct mre_pkt connect_from(u64 src_cid, const u8 *blob, u16 blob_len)
{
	struct mre_pkt p = {
		.type = MRE_T_CONNECT,
		.connect = {
			.src_cid = src_cid, .isn = 77, .window_log2 = 10,
			.npaths = 8, .blob = blob, .blob_len = blob_len,
		},
	};

	return p;
}

/* a packet for an id nobody has is answered by a RESET naming that id */
MRE_TEST(demux_reset_for_unknown_id)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt p = ack_to(0xdead), r;

	rx_from(o, 1, &p);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_no_conn, 1);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.reset_tx, 1);
	MRE_ASSERT(test, o->sent == 1);
	MRE_EXPECT_EQ(test, o->last_to, 1);
	MRE_ASSERT(test, mre_wire_parse(o->last, o->last_len, &r) ==
			 MRE_PARSE_OK);
	MRE_EXPECT_EQ(test, r.type, MRE_T_RESET);
	MRE_EXPECT_EQ(test, r.reset.cid, 0xdead);
	MRE_EXPECT_EQ(test, r.path, 3);
	/* a RESET is never answered, nor counted as a packet for an id */
	r.dst_cid = 0;
	rx_from(o, 7, &r);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_reset, 1);
	MRE_EXPECT_EQ(test, o->sent, 1);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_no_conn, 1);
}

/*
 * A RESET answers only a datagram at least as large (issue 29): a 28-byte
 * PROBE for an unknown id draws nothing, an ACK draws its RESET.
 */
MRE_TEST(demux_probe_draws_no_reset)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt p = probe_to(0xdead), a = ack_to(0xdead);

	rx_from(o, 1, &p);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_no_conn, 1);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.reset_tx, 0);
	MRE_EXPECT_EQ(test, o->sent, 0);
	rx_from(o, 1, &a);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_no_conn, 2);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.reset_tx, 1);
	MRE_EXPECT_EQ(test, o->sent, 1);
}

/*
 * Each reopen of a failed connection clears its window (O(window) in
 * softirq): a proven peer's RESET + CONNECT pairs get one reopen per
 * MRE_REOPEN_IVL connect_ns (drop_reopen), and a RESET for an id that is
 * not the connection's is counted as refused (issue 29).
 */
MRE_TEST(demux_reopen_limited)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt p = connect_from(0x1111, NULL, 0);
	struct mre_pkt r = { .type = MRE_T_RESET };

	rx_connect(test, o, 1, &p);
	MRE_ASSERT(test, o->c.state == MRE_CONN_ESTABLISHED);
	r.reset.cid = 0x1112;			/* not its id */
	rx_from(o, 1, &r);
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_reset, 1);
	r.reset.cid = 0x1111;
	rx_from(o, 1, &r);
	MRE_ASSERT(test, o->c.state == MRE_CONN_FAILED);
	p.connect.src_cid = 0x2222;		/* reopened: the first is free */
	rx_connect(test, o, 1, &p);
	MRE_ASSERT(test, o->c.state == MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, o->c.remote_cid, 0x2222);
	r.reset.cid = 0x2222;
	rx_from(o, 1, &r);
	MRE_ASSERT(test, o->c.state == MRE_CONN_FAILED);
	p.connect.src_cid = 0x3333;		/* at once: refused */
	rx_connect(test, o, 1, &p);
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_FAILED);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_reopen, 1);
	o->now += MRE_REOPEN_IVL * o->n.ep.cfg.connect_ns;
	rx_from(o, 1, &p);			/* its retry, later: taken */
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, o->c.remote_cid, 0x3333);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_reopen, 1);
}

/* RESETs go out at most reset_burst a second */
MRE_TEST(demux_reset_rate_limited)
{
	struct mre_config cfg;
	struct mre_pkt p = ack_to(0xbeef);
	struct one *o;
	u32 i;

	mre_config_default(&cfg);
	cfg.reset_burst = 3;
	o = one_new(test, &cfg);
	for (i = 0; i < 5; i++)
		rx_from(o, 1, &p);
	MRE_EXPECT_EQ(test, o->sent, 3);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.reset_tx, 3);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.reset_limited, 2);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_no_conn, 5);
	o->now += 999999999;		/* still the same second */
	rx_from(o, 1, &p);
	MRE_EXPECT_EQ(test, o->sent, 3);
	o->now += 1;			/* a new one */
	rx_from(o, 1, &p);
	MRE_EXPECT_EQ(test, o->sent, 4);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.reset_limited, 3);
}

/* the packet reaches the connection its id names, which comes back held */
MRE_TEST(demux_by_id_and_address)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt p = probe_to(o->c.cid), r;
	u8 buf[64];
	struct mre_rx rx = { .buf = buf, .src = mdl_addr(1),
			     .dst = mdl_addr(0) };

	o->c.state = MRE_CONN_ESTABLISHED;
	rx.len = mre_wire_put(buf, &p);
	MRE_EXPECT(test, mre_ep_rx(&o->n.ep, o->now, &rx) == &o->c);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.rx_probe, 1);
	/* a RESET by the sender's address, naming its id for us */
	o->c.remote_cid = 0x1234;
	r = (struct mre_pkt){ .type = MRE_T_RESET, .reset.cid = 0x1234 };
	rx.len = mre_wire_put(buf, &r);
	rx.src = mdl_addr(2);		/* not from node 1: nobody's */
	MRE_EXPECT(test, !mre_ep_rx(&o->n.ep, o->now, &rx));
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_ESTABLISHED);
	rx.src = mdl_addr(1);
	MRE_EXPECT(test, mre_ep_rx(&o->n.ep, o->now, &rx) == &o->c);
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_FAILED);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.reset_rx, 1);
	MRE_EXPECT_EQ(test, o->n.tr[MRE_TR_CONN_RESET][MRE_TRW_NONE], 1);
	MRE_EXPECT_EQ(test, o->n.tr[MRE_TR_CONN_RESTART][MRE_TRW_NONE], 0);
}

/*
 * DATA, ACK and PROBE are taken only from an address of the peer their
 * id names: from anywhere else the id alone proves nothing (counted,
 * nothing done).
 */
MRE_TEST(demux_bound_to_peer)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt p = probe_to(o->c.cid);
	struct mre_pkt a = { .type = MRE_T_ACK, .dst_cid = o->c.cid,
			     .ack = { .tsn_cum = o->c.tsn_next } };
	struct mre_pkt d = {
		.type = MRE_T_DATA, .dst_cid = o->c.cid,
		.data = { .op = MRE_OP_WRITE, .dflags = MRE_DF_FIRST |
			  MRE_DF_LAST, .plen = 0, .mlen = 0,
			  .tsn = o->c.rxw.base, .dst_stream = 1 },
	};

	o->c.state = MRE_CONN_ESTABLISHED;
	rx_from(o, 2, &p);
	rx_from(o, 2, &a);
	rx_from(o, 2, &d);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_foreign, 3);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.rx_probe, 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.rx_ack, 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.rx_data, 0);
	MRE_EXPECT_EQ(test, o->sent, 0);	/* not answered either */
	rx_from(o, 1, &p);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.rx_probe, 1);
}

/*
 * RESETs are limited per source: a flood from one address does not use
 * up what another may get. Sources share 4096 buckets by a keyed hash; of
 * three other sources at least one is in another bucket than the first.
 */
MRE_TEST(demux_reset_limit_per_source)
{
	struct mre_config cfg;
	struct mre_pkt p = ack_to(0xbeef);
	struct one *o;
	u32 i, before;

	mre_config_default(&cfg);
	cfg.reset_burst = 3;
	o = one_new(test, &cfg);
	for (i = 0; i < 50; i++)
		rx_from(o, 5, &p);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.reset_tx, 3);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.reset_limited, 47);
	before = o->sent;
	for (i = 6; i < 9; i++)
		rx_from(o, i, &p);
	MRE_EXPECT(test, o->sent > before);
}

/* only UD goes to a group; nothing is taken from a broadcast */
MRE_TEST(demux_groups_and_broadcast)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt p = probe_to(o->c.cid);
	struct mre_pkt ud = { .type = MRE_T_UD, .ud = { .dst_qpn = 0xffffff } };
	struct mre_rx rx = { .src = mdl_addr(1) };
	u8 buf[64];

	rx.buf = buf;
	rx.dst = (struct mre_addr){ .family = MRE_AF_INET,
				    .a = { 239, 1, 2, 3 } };
	rx.len = mre_wire_put(buf, &p);
	MRE_EXPECT(test, !mre_ep_rx(&o->n.ep, o->now, &rx));
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_group, 1);
	rx.len = mre_wire_put(buf, &ud);
	MRE_EXPECT(test, !mre_ep_rx(&o->n.ep, o->now, &rx));
	MRE_EXPECT_EQ(test, o->n.ud_rx, 1);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.rx_ud, 1);
	rx.dst = (struct mre_addr){ .family = MRE_AF_INET6, .a = { 0xff, 2 } };
	rx.len = mre_wire_put(buf, &p);
	MRE_EXPECT(test, !mre_ep_rx(&o->n.ep, o->now, &rx));
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_group, 2);
	rx.dst = mdl_addr(0);
	rx.bcast = true;
	rx.len = mre_wire_put(buf, &ud);
	MRE_EXPECT(test, !mre_ep_rx(&o->n.ep, o->now, &rx));
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_group, 3);
	MRE_EXPECT_EQ(test, o->n.ud_rx, 1);
	MRE_EXPECT_EQ(test, o->sent, 0);
}

/* a CONNECT from a node we have nothing for: refused, or a new connection */
static struct mre_conn *new_conn(struct mdl_node *n, u32 peer)
{
	struct one *o = the_one;

	mdl_conn(n, peer, &o->extra, o->extra_mem);
	/* the one call into the engine a callback may make: set it up */
	mre_conn_set_planes(&o->extra, o->now, 2);
	return &o->extra;
}

MRE_TEST(demux_connect_from_unknown)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt p = connect_from(0x5151, NULL, 0), r;

	rx_connect(test, o, 4, &p);
	MRE_EXPECT_EQ(test, o->n.conn_news, 1);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_conn_new, 1);
	MRE_EXPECT_EQ(test, o->sent, 1);	/* the RETRY only */
	the_one = o;
	o->n.new_conn = new_conn;
	rx_from(o, 4, &p);
	MRE_EXPECT_EQ(test, o->n.conn_news, 2);
	MRE_EXPECT_EQ(test, o->extra.state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, o->extra.remote_cid, 0x5151);
	MRE_EXPECT_EQ(test, o->extra.nplanes, 2);
	MRE_ASSERT(test, o->sent == 2);
	MRE_EXPECT_EQ(test, o->last_to, 4);
	r = last_out(test, o);
	MRE_EXPECT_EQ(test, r.type, MRE_T_ACCEPT);
	MRE_EXPECT_EQ(test, r.dst_cid, 0x5151);
	MRE_EXPECT_EQ(test, r.connect.src_cid, o->extra.cid);
	/* the same CONNECT again finds it by address: no second conn_new */
	rx_from(o, 4, &p);
	MRE_EXPECT_EQ(test, o->n.conn_news, 2);
	MRE_EXPECT_EQ(test, o->sent, 3);
	the_one = NULL;
}

/*
 * A RETRY is never limited: CONNECTs forged in the name of a node, 200 a
 * second, and more from a few hundred other addresses, do not keep that
 * node (nor another) from getting its RETRY, and so from connecting.
 * (With RETRYs in the RESET budget, 100 a second for a bucket of sources,
 * node 4's own bucket was spent and it never got one.)
 */
MRE_TEST(demux_retry_not_starved)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt p = connect_from(0x7000, NULL, 0);
	u32 i, from;

	the_one = o;
	o->n.new_conn = new_conn;
	for (i = 0; i < 200; i++) {		/* forged: node 4 sends none */
		p.connect.src_cid = 0x7100 + i;
		rx_from(o, 4, &p);
	}
	for (from = 100; from < 400; from++) {	/* 300 forged sources */
		for (i = 0; i < 110; i++) {
			p.connect.src_cid = (u64)from << 16 | i;
			rx_from(o, from, &p);
		}
	}
	MRE_EXPECT_EQ(test, o->n.ep.ctr.connect_cookie, 200 + 300 * 110);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.retry_tx, 200 + 300 * 110);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.retry_limited, 0);
	MRE_EXPECT_EQ(test, o->n.conn_news, 0);
	/* the same second: node 4 itself, then node 5, get in */
	o->now += 1000;
	p = connect_from(0x4444, NULL, 0);
	rx_connect(test, o, 4, &p);
	MRE_EXPECT_EQ(test, o->n.conn_news, 1);
	MRE_EXPECT_EQ(test, o->extra.state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, o->extra.remote_cid, 0x4444);
	o->n.new_conn = NULL;			/* refused: the RETRY counts */
	p = connect_from(0x5555, NULL, 0);
	rx_connect(test, o, 5, &p);
	MRE_EXPECT_EQ(test, o->n.conn_news, 2);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.retry_limited, 0);
	the_one = NULL;
}

/*
 * Three hundred sources that draw RESETs as fast as they may use up at
 * most 300 of the 4096 buckets: of 50 other sources, each sending as many
 * as its own budget in the same second, nearly all get every one (one may
 * share a bucket with a flooder, or with another of the 50: about 5 of
 * them on average; the test asks for 35). Each is still held to its
 * budget. (With 64 buckets the 300 left none free.)
 */
MRE_TEST(demux_reset_not_starved)
{
	struct mre_config cfg;
	struct mre_pkt p = ack_to(0xbeef);
	struct one *o;
	u32 i, from, full = 0;
	u64 before;

	mre_config_default(&cfg);
	cfg.reset_burst = 3;
	o = one_new(test, &cfg);
	for (from = 1000; from < 1300; from++)
		for (i = 0; i < 20; i++)
			rx_from(o, from, &p);
	MRE_EXPECT(test, o->n.ep.ctr.reset_tx <= 300 * 3);
	MRE_EXPECT(test, o->n.ep.ctr.reset_limited >= 300 * 17);
	o->now += 1000;
	for (from = 2000; from < 2050; from++) {
		before = o->n.ep.ctr.reset_tx;
		for (i = 0; i < 3; i++)
			rx_from(o, from, &p);
		full += o->n.ep.ctr.reset_tx - before == 3;
	}
	MRE_EXPECT(test, full >= 35);
	/* and one source alone gets no more than its own */
	before = o->n.ep.ctr.reset_tx;
	for (i = 0; i < 10; i++)
		rx_from(o, 3000, &p);
	MRE_EXPECT(test, o->n.ep.ctr.reset_tx - before <= 3);
}

/* a datagram from @src with @p: what mre_ep_rx() did with it */
static struct mre_conn *rx_addr(struct one *o, const struct mre_addr *src,
				const struct mre_pkt *p)
{
	u8 buf[MRE_CONNECT_LEN + MRE_MAX_BLOB];
	struct mre_rx rx = {
		.buf = buf, .len = mre_wire_put(buf, p), .src = *src,
		.dst = mdl_addr(0), .src_port = 49152,
	};

	return mre_ep_rx(&o->n.ep, o->now, &rx);
}

#define V4(w, x, y, z)	{ .family = MRE_AF_INET, .a = { w, x, y, z } }
#define V6(...)		{ .family = MRE_AF_INET6, .a = { __VA_ARGS__ } }

/*
 * A source address no peer can have (unspecified, loopback, multicast,
 * broadcast, the IPv4-mapped forms of those, none at all) gets nothing:
 * no RETRY, no RESET, no connection, not even to a connection's id; each
 * datagram counted in drop_src. 240/4, link-local and IPv4-mapped unicast
 * sources are answered as any other.
 */
MRE_TEST(demux_bogus_source)
{
	static const struct mre_addr bad[] = {
		V4(0, 0, 0, 0), V4(0, 1, 2, 3), V4(127, 0, 0, 1),
		V4(127, 255, 0, 9), V4(224, 0, 0, 1), V4(239, 1, 2, 3),
		V4(255, 255, 255, 255),
		V6(0), V6([15] = 1), V6(0xff, 0x02, [15] = 1),
		V6(0xff, 0x0e, [15] = 7),
		V6([10] = 0xff, [11] = 0xff, [12] = 127, [15] = 1),
		V6([10] = 0xff, [11] = 0xff),
		V6([10] = 0xff, [11] = 0xff, [12] = 224, [15] = 5),
		V6([10] = 0xff, [11] = 0xff, 255, 255, 255, 255),
		{ .family = 0 }, { .family = 5, .a = { 10, 0, 0, 1 } },
	};
	static const struct mre_addr good[] = {
		V4(10, 0, 0, 1), V4(240, 0, 0, 1), V4(198, 18, 0, 2),
		V4(1, 0, 0, 0), V4(126, 255, 255, 255), V4(223, 255, 255, 255),
		V4(255, 255, 255, 254),
		V6(0x20, 0x01, 0x0d, 0xb8, [15] = 1), V6(0xfe, 0x80, [15] = 1),
		V6([15] = 2), V6([10] = 0xff, [11] = 0xff, 198, 18, 0, 1),
		V6([11] = 0xff, [12] = 127, [15] = 1),
	};
	struct one *o = one_new(test, NULL);
	struct mre_pkt conn = connect_from(0x7777, NULL, 0);
	struct mre_pkt unknown = ack_to(0xdead), known;
	struct mre_pkt ud = { .type = MRE_T_UD, .ud = { .dst_qpn = 5 } };
	u32 i, n = MRE_ARRAY_SIZE(bad);

	the_one = o;
	o->n.new_conn = new_conn;
	o->c.state = MRE_CONN_ESTABLISHED;
	known = probe_to(o->c.cid);
	for (i = 0; i < n; i++) {
		conn.connect.cookie = 0;
		MRE_EXPECT(test, !rx_addr(o, &bad[i], &conn));
		conn.connect.cookie = 0x1234;		/* a guess */
		MRE_EXPECT(test, !rx_addr(o, &bad[i], &conn));
		MRE_EXPECT(test, !rx_addr(o, &bad[i], &unknown));
		MRE_EXPECT(test, !rx_addr(o, &bad[i], &known));
		MRE_EXPECT(test, !rx_addr(o, &bad[i], &ud));
		MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_src, 5 * (i + 1));
	}
	MRE_EXPECT_EQ(test, o->n.replies, 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.retry_tx, 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.reset_tx, 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.connect_cookie, 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_no_conn, 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_foreign, 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.rx_probe, 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.rx_ud, 0);
	MRE_EXPECT_EQ(test, o->n.ud_rx, 0);
	MRE_EXPECT_EQ(test, o->n.conn_news, 0);
	MRE_EXPECT_EQ(test, o->sent, 0);
	/* the others are answered */
	for (i = 0; i < MRE_ARRAY_SIZE(good); i++) {
		conn.connect.cookie = 0;
		rx_addr(o, &good[i], &conn);
		rx_addr(o, &good[i], &unknown);
		MRE_EXPECT_EQ(test, o->n.replies, 2 * (i + 1));
	}
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_src, 5 * n);
	the_one = NULL;
}

#undef V4
#undef V6

/*
 * No state for a CONNECT that has not proven its source address: without
 * the cookie of a RETRY sent there, with a wrong one, with one made for
 * another address or connection id, or one two epochs old, it gets a
 * RETRY and nothing else (no conn_new, no ACCEPT).
 */
MRE_TEST(demux_connect_needs_cookie)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt p = connect_from(0x6161, NULL, 0), r;
	u64 cookie;
	u32 i;

	the_one = o;
	o->n.new_conn = new_conn;
	for (i = 0; i < 100; i++) {
		p.connect.src_cid = 0x1000 + i;
		rx_from(o, 4 + i % 3, &p);
	}
	MRE_EXPECT_EQ(test, o->n.conn_news, 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.connect_cookie, 100);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.retry_tx, 100);
	r = last_out(test, o);
	MRE_EXPECT_EQ(test, r.type, MRE_T_RETRY);
	cookie = r.retry.cookie;		/* for node 4, id 0x1063 */
	p.connect.cookie = cookie;
	rx_from(o, 6, &p);			/* another address */
	p.connect.src_cid = 0x1062;
	rx_from(o, 4, &p);			/* another id */
	p.connect.src_cid = 0x1063;
	p.connect.cookie = cookie ^ 1;
	rx_from(o, 4, &p);			/* not ours */
	MRE_EXPECT_EQ(test, o->n.conn_news, 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.connect_cookie, 103);
	o->now += 2 * (1ULL << 33);		/* two epochs later: too old */
	p.connect.cookie = cookie;
	rx_from(o, 4, &p);
	MRE_EXPECT_EQ(test, o->n.conn_news, 0);
	r = last_out(test, o);
	p.connect.cookie = r.retry.cookie;	/* a fresh one works */
	rx_from(o, 4, &p);
	MRE_EXPECT_EQ(test, o->n.conn_news, 1);
	MRE_EXPECT_EQ(test, last_out(test, o).type, MRE_T_ACCEPT);
	the_one = NULL;
}

/*
 * A CONNECT names its node by the address it proved, never by its blob:
 * one from a stranger that claims node 1's plane-0 address in its blob
 * does not reach node 1's connection (which stays established with its
 * planes), and its own is the stranger's.
 */
MRE_TEST(demux_connect_claim_ignored)
{
	struct one *o = one_new(test, NULL);
	struct mre_addr claim[2] = { mdl_addr(1), mdl_addr(5) };
	u8 blob[MRE_MAX_BLOB];
	struct mre_pkt p;
	u64 remote;

	p = connect_from(0x1111, NULL, 0);
	rx_connect(test, o, 1, &p);
	MRE_ASSERT(test, o->c.state == MRE_CONN_ESTABLISHED);
	remote = o->c.remote_cid;
	p = connect_from(0x2222, blob,
			 (u16)mre_wire_blob_put(blob, MRE_AF_INET, 2, claim));
	rx_connect(test, o, 5, &p);		/* from the stranger at 5 */
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_foreign, 1);
	MRE_EXPECT_EQ(test, o->n.conn_news, 0);
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, o->c.remote_cid, remote);
	MRE_EXPECT_EQ(test, o->c.peer_nplanes, 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.challenge_tx, 0);
}

/*
 * A CONNECT of a new incarnation on an established connection (the
 * peer's restart, or a forgery) fails nothing: the old incarnation is
 * challenged (an ACK to its id). Only a RESET naming that id, which only
 * the restarted peer sends, ends it; the next CONNECT then opens anew.
 */
MRE_TEST(demux_restart_challenged)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt p = connect_from(0x1111, NULL, 0), r;

	rx_connect(test, o, 1, &p);
	MRE_ASSERT(test, o->c.state == MRE_CONN_ESTABLISHED);
	p.connect.src_cid = 0x2222;		/* a new incarnation */
	rx_connect(test, o, 1, &p);
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, o->c.remote_cid, 0x1111);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.challenge_tx, 1);
	MRE_EXPECT_EQ(test, o->n.conn_deads, 0);
	r = last_out(test, o);
	MRE_EXPECT_EQ(test, r.type, MRE_T_ACK);
	MRE_EXPECT_EQ(test, r.dst_cid, 0x1111);
	/* repeated at once: not answered in kind */
	rx_from(o, 1, &p);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.challenge_tx, 1);
	/* a RESET for another id proves nothing */
	r = (struct mre_pkt){ .type = MRE_T_RESET, .reset.cid = 0x1112 };
	rx_from(o, 1, &r);
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_ESTABLISHED);
	r.reset.cid = 0x1111;			/* the restarted peer's */
	rx_from(o, 1, &r);
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_FAILED);
	MRE_EXPECT_EQ(test, o->n.conn_deads, 1);
	MRE_EXPECT_EQ(test, o->n.tr[MRE_TR_CONN_RESTART][MRE_TRW_NONE], 1);
	MRE_EXPECT_EQ(test, o->n.tr[MRE_TR_CONN_RESET][MRE_TRW_NONE], 0);
	rx_from(o, 1, &p);
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, o->c.remote_cid, 0x2222);
}

/*
 * The peer's planes are learned when a connection opens, from addresses
 * that can be a peer's: unicast, of the connection's family, not ours;
 * a CONNECT by another plane reaches the connection only from a plane it
 * learned. Ours go back in the ACCEPT.
 */
MRE_TEST(demux_connect_by_plane0)
{
	struct one *o = one_new(test, NULL);
	struct mre_addr theirs[5] = {
		mdl_addr(1), mdl_addr(9), mdl_addr(8),		/* 8: ours */
		{ .family = MRE_AF_INET, .a = { 224, 0, 0, 9 } },
		{ .family = MRE_AF_INET, .a = { 127, 0, 0, 1 } },
	}, got[8];
	u8 blob[MRE_MAX_BLOB];
	struct mre_pkt p, r;
	u32 len;

	o->n.nplanes = 2;
	o->n.planes[0] = mdl_addr(0);
	o->n.planes[1] = mdl_addr(8);
	len = mre_wire_blob_put(blob, MRE_AF_INET, 5, theirs);
	p = connect_from(0x7777, blob, (u16)len);
	rx_connect(test, o, 9, &p);		/* by plane 1: nobody's yet */
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_foreign, 1);
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_CLOSED);
	rx_connect(test, o, 1, &p);
	MRE_EXPECT_EQ(test, o->n.conn_news, 0);
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, o->c.peer_nplanes, 5);
	MRE_EXPECT(test, mre_addr_eq(&o->c.peer_planes[1], &theirs[1]));
	MRE_EXPECT_EQ(test, o->c.peer_planes[2].family, 0);
	MRE_EXPECT_EQ(test, o->c.peer_planes[3].family, 0);
	MRE_EXPECT_EQ(test, o->c.peer_planes[4].family, 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_plane_addr, 3);
	MRE_EXPECT_EQ(test, o->n.planes_learned, 1);
	r = last_out(test, o);
	MRE_EXPECT_EQ(test, r.type, MRE_T_ACCEPT);
	MRE_EXPECT_EQ(test, mre_wire_blob_parse(r.connect.blob,
						r.connect.blob_len,
						MRE_AF_INET, got), 2);
	MRE_EXPECT(test, mre_addr_eq(&got[1], &o->n.planes[1]));
	MRE_EXPECT_EQ(test, o->c.blob_planes, 2);
	/* now by plane 1 it is the node's: its lost ACCEPT again */
	rx_connect(test, o, 9, &p);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_foreign, 1);
	MRE_EXPECT_EQ(test, last_out(test, o).type, MRE_T_ACCEPT);
	/* an established connection learns nothing from a later blob */
	theirs[1] = mdl_addr(7);
	len = mre_wire_blob_put(blob, MRE_AF_INET, 2, theirs);
	p = connect_from(0x7777, blob, (u16)len);
	rx_connect(test, o, 1, &p);
	theirs[1] = mdl_addr(9);
	MRE_EXPECT(test, mre_addr_eq(&o->c.peer_planes[1], &theirs[1]));
	MRE_EXPECT_EQ(test, o->n.planes_learned, 1);
}

/* the blob parser refuses what protocol.md 4.4 says a receiver ignores */
MRE_TEST(demux_blob_parse)
{
	struct mre_addr in[3] = { mdl_addr(1), { 0 }, mdl_addr(3) }, out[8];
	struct mre_addr v6 = { .family = MRE_AF_INET6, .a = { 0xfd, 0, 1 } };
	u8 b[MRE_MAX_BLOB];
	u32 len = mre_wire_blob_put(b, MRE_AF_INET, 3, in);

	MRE_EXPECT_EQ(test, len, 4 + 3 * 4);
	MRE_EXPECT_EQ(test, mre_wire_blob_parse(b, len, MRE_AF_INET, out), 3);
	MRE_EXPECT(test, mre_addr_eq(&out[0], &in[0]));
	MRE_EXPECT_EQ(test, out[1].family, 0);		/* none there */
	MRE_EXPECT(test, mre_addr_eq(&out[2], &in[2]));
	MRE_EXPECT_EQ(test, mre_wire_blob_parse(b, len - 1, MRE_AF_INET, out), 0);
	MRE_EXPECT_EQ(test, mre_wire_blob_parse(b, len, MRE_AF_INET6, out), 0);
	b[2] = 0;
	MRE_EXPECT_EQ(test, mre_wire_blob_parse(b, len, MRE_AF_INET, out), 0);
	b[2] = 9;
	MRE_EXPECT_EQ(test, mre_wire_blob_parse(b, MRE_MAX_BLOB, MRE_AF_INET,
						out), 0);
	b[2] = 3;
	b[0] = 0;
	MRE_EXPECT_EQ(test, mre_wire_blob_parse(b, len, MRE_AF_INET, out), 0);
	MRE_EXPECT_EQ(test, mre_wire_blob_put(b, MRE_AF_INET, 9, in), 0);
	MRE_EXPECT_EQ(test, mre_wire_blob_put(b, 5, 1, in), 0);
	len = mre_wire_blob_put(b, MRE_AF_INET6, 1, &v6);
	MRE_EXPECT_EQ(test, len, 4 + 16);
	MRE_EXPECT_EQ(test, mre_wire_blob_parse(b, len, MRE_AF_INET6, out), 1);
	MRE_EXPECT(test, mre_addr_eq(&out[0], &v6));
	MRE_EXPECT(test, !mre_addr_eq(&out[0], &in[0]));
}

/*
 * The embedder reads the clock for a datagram before it holds its
 * connection; a holder that ran the connection meanwhile at a later time
 * must not see it go back (a dead timer would fire on the difference).
 */
MRE_TEST(demux_clock_never_goes_back)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt p = probe_to(o->c.cid);
	struct mre_txd *t;

	o->c.state = MRE_CONN_ESTABLISHED;
	t = mre_txd_of(&o->c, o->c.tsn_next++);	/* one TSN out, sent */
	t->state = MRE_TXD_OUT;
	t->xmits = 1;
	t->path = 0xff;
	o->c.last_ack = o->now;
	mre_conn_run(&o->c, o->now);
	o->now -= 1000;			/* read before the last run */
	rx_from(o, 1, &p);		/* mre_ep_rx(), then mre_conn_run() */
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.conn_fail, 0);
	MRE_EXPECT_EQ(test, o->c.clock, o->now + 1000);
}


/*
 * --- the plane proof (protocol.md 5.4) ------------------------------------
 *
 * Node 0 with two planes (paths 1, 3, 5, 7 on plane 1) opened by node 1,
 * whose blob claims @w for its plane 1 (node 9's address: anybody's).
 */
static struct one *one_planes(struct kunit *test, u32 w)
{
	struct mre_config cfg;
	struct mre_addr theirs[2] = { mdl_addr(1), mdl_addr(w) };
	u8 blob[MRE_MAX_BLOB];
	struct mre_pkt p;
	struct one *o;

	mre_config_default(&cfg);
	cfg.nplanes = 2;
	o = one_new(test, &cfg);
	o->n.nplanes = 2;
	o->n.planes[0] = mdl_addr(0);
	o->n.planes[1] = mdl_addr(8);
	p = connect_from(0x7777, blob,
			 (u16)mre_wire_blob_put(blob, MRE_AF_INET, 2, theirs));
	rx_connect(test, o, 1, &p);
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, o->c.peer_nplanes, 2);
	return o;
}

/* run the node's timers for @ns of its time (nothing comes in) */
static void one_run(struct one *o, u64 ns)
{
	u64 end = o->now + ns, d;

	while ((d = mdl_run(&o->n, o->now)) && d <= end)
		o->now = d > o->now ? d : o->now + 1;
	o->now = end;
}

/* a CHALLENGE or ECHO from node @from to @cid */
static void rx_proof(struct one *o, u32 from, u8 type, u64 cid, u64 nonce,
		     u8 plane)
{
	struct mre_pkt p = {
		.type = type, .path = 1, .dst_cid = cid,
		.proof = { .nonce = nonce, .plane = plane },
	};

	rx_from(o, from, &p);
}

/*
 * A blob that names an address nobody proved: nothing goes there but
 * MRE_PLANE_TRIES CHALLENGEs of 32 bytes, doubling apart, and the plane
 * stays unproven (its paths go by plane 0's addresses), whatever the
 * peer makes the connection send (a PROBE on a plane-1 path is answered
 * by proven addresses).
 */
MRE_TEST(demux_plane_claim_bounded)
{
	struct one *o = one_planes(test, 9);
	struct mre_pkt p = probe_to(0), r;
	u32 i;

	MRE_EXPECT(test, !mre_conn_plane_proven(&o->c, 1));
	MRE_EXPECT_EQ(test, o->n.claims, 1);	/* the first round, at once */
	MRE_EXPECT(test, o->last_claim);
	r = last_out(test, o);
	MRE_EXPECT_EQ(test, r.type, MRE_T_CHALLENGE);
	MRE_EXPECT_EQ(test, o->last_len, MRE_PLANE_PKT_LEN);
	MRE_EXPECT_EQ(test, r.dst_cid, 0x7777);
	MRE_EXPECT_EQ(test, r.proof.plane, 1);
	MRE_EXPECT_EQ(test, r.path % 2, 1);		/* a path of plane 1 */
	MRE_EXPECT_NE(test, r.proof.nonce, 0);
	p.dst_cid = o->c.cid;
	for (i = 0; i < 40; i++) {
		one_run(o, 1000000);	/* 1 ms: connect_ns */
		p.path = 1;		/* plane 1's path */
		p.psn = i;
		rx_from(o, 1, &p);
		MRE_EXPECT(test, !o->last_claim);
		MRE_EXPECT_EQ(test, last_out(test, o).type, MRE_T_ACK);
	}
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, o->n.claims, MRE_PLANE_TRIES);
	MRE_EXPECT_EQ(test, o->n.claim_to[1], MRE_PLANE_TRIES);
	MRE_EXPECT_EQ(test, o->n.claim_bad, 0);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.plane_challenge_tx, MRE_PLANE_TRIES);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.plane_unproven, 1);
	MRE_EXPECT_EQ(test, o->c.plane_at, 0);
	MRE_EXPECT(test, !mre_conn_plane_proven(&o->c, 1));
	MRE_EXPECT(test, mre_conn_plane_proven(&o->c, 0));	/* its own */
}

/*
 * Only the nonce proves a plane: an ECHO with another one is dropped
 * (drop_echo); the right one proves it at once, the embedder is told,
 * and no CHALLENGE follows.
 */
MRE_TEST(demux_plane_echo_nonce)
{
	struct one *o = one_planes(test, 9);
	struct mre_pkt r = last_out(test, o);
	u32 learned = o->n.planes_learned;

	MRE_ASSERT(test, r.type == MRE_T_CHALLENGE);
	rx_proof(o, 1, MRE_T_ECHO, o->c.cid, r.proof.nonce + 1, 1);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_echo, 1);
	rx_proof(o, 1, MRE_T_ECHO, o->c.cid, r.proof.nonce, 0);	/* plane */
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_echo, 2);
	MRE_EXPECT(test, !mre_conn_plane_proven(&o->c, 1));
	MRE_EXPECT_EQ(test, o->n.planes_learned, learned);
	/* from a stranger, with the right nonce and id: not the peer */
	rx_proof(o, 5, MRE_T_ECHO, o->c.cid, r.proof.nonce, 1);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_foreign, 1);
	MRE_EXPECT(test, !mre_conn_plane_proven(&o->c, 1));
	rx_proof(o, 1, MRE_T_ECHO, o->c.cid, r.proof.nonce, 1);
	MRE_EXPECT(test, mre_conn_plane_proven(&o->c, 1));
	MRE_EXPECT(test, mre_conn_plane_proven(&o->c, 3));	/* 3 % 2 */
	MRE_EXPECT_EQ(test, o->n.ep.ctr.plane_echo_rx, 1);
	MRE_EXPECT_EQ(test, o->n.planes_learned, learned + 1);
	one_run(o, 100000000);
	MRE_EXPECT_EQ(test, o->n.claims, 1);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.plane_unproven, 0);
}

/*
 * A CHALLENGE is answered by exactly one ECHO of its size, with its nonce
 * and plane, to the peer's proven addresses (no claim), on an
 * established connection only.
 */
MRE_TEST(demux_plane_challenge_echoed)
{
	struct one *o = one_new(test, NULL);
	struct mre_pkt p = connect_from(0x1111, NULL, 0), r;
	u32 sent = o->sent;

	rx_proof(o, 1, MRE_T_CHALLENGE, o->c.cid, 0xabcdef, 3);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_state, 1);	/* not open */
	MRE_EXPECT_EQ(test, o->sent, sent);
	rx_connect(test, o, 1, &p);
	MRE_ASSERT(test, o->c.state == MRE_CONN_ESTABLISHED);
	sent = o->sent;
	rx_proof(o, 1, MRE_T_CHALLENGE, o->c.cid, 0xabcdef, 3);
	MRE_EXPECT_EQ(test, o->sent, sent + 1);
	MRE_EXPECT(test, !o->last_claim);
	MRE_EXPECT_EQ(test, o->last_len, MRE_PLANE_PKT_LEN);
	r = last_out(test, o);
	MRE_EXPECT_EQ(test, r.type, MRE_T_ECHO);
	MRE_EXPECT_EQ(test, r.dst_cid, 0x1111);
	MRE_EXPECT_EQ(test, r.proof.nonce, 0xabcdef);
	MRE_EXPECT_EQ(test, r.proof.plane, 3);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.plane_echo_tx, 1);
	/* an ECHO nobody asked for proves nothing and draws nothing */
	rx_proof(o, 1, MRE_T_ECHO, o->c.cid, 0xabcdef, 1);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_echo, 1);
	MRE_EXPECT_EQ(test, o->sent, sent + 1);
}

/*
 * The planes of an incarnation die with it: a failure takes their proof
 * (the embedder is told: its routes go), a reopen by us forgets them
 * (CONNECT and its retries never go to them), and a reopen by the peer
 * learns only what its new CONNECT says.
 */
MRE_TEST(demux_plane_forgotten)
{
	struct one *o = one_planes(test, 9);
	struct mre_pkt r = last_out(test, o), p;
	struct mre_addr theirs[2] = { mdl_addr(1), mdl_addr(6) };
	u8 blob[MRE_MAX_BLOB];
	u32 learned, claims;

	rx_proof(o, 1, MRE_T_ECHO, o->c.cid, r.proof.nonce, 1);
	MRE_ASSERT(test, mre_conn_plane_proven(&o->c, 1));
	learned = o->n.planes_learned;
	r = (struct mre_pkt){ .type = MRE_T_RESET, .reset.cid = 0x7777 };
	rx_from(o, 1, &r);
	MRE_ASSERT(test, o->c.state == MRE_CONN_FAILED);
	MRE_EXPECT(test, !mre_conn_plane_proven(&o->c, 1));
	MRE_EXPECT_EQ(test, o->n.planes_learned, learned + 1);
	/* reopened by the peer, whose new blob says plane 1 is at node 6 */
	p = connect_from(0x8888, blob,
			 (u16)mre_wire_blob_put(blob, MRE_AF_INET, 2, theirs));
	claims = o->n.claims;
	rx_connect(test, o, 1, &p);
	MRE_ASSERT(test, o->c.state == MRE_CONN_ESTABLISHED);
	MRE_EXPECT(test, mre_addr_eq(&o->c.peer_planes[1], &theirs[1]));
	MRE_EXPECT(test, !mre_conn_plane_proven(&o->c, 1));
	MRE_EXPECT_EQ(test, o->n.claims, claims + 1);	/* challenged anew */
	/* failed again, and reopened by us: nothing of the peer's is left */
	mre_conn_fail(&o->c, MRE_ST_RETRY_EXC, MRE_TR_CONN_FAIL, MRE_TRW_DEAD);
	mre_conn_connect(&o->c, o->now);
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_CONNECTING);
	MRE_EXPECT_EQ(test, o->c.peer_nplanes, 0);
	MRE_EXPECT_EQ(test, o->c.peer_planes[1].family, 0);
	MRE_EXPECT_EQ(test, o->c.planes_proven, 0);
	MRE_EXPECT(test, !mre_conn_plane_proven(&o->c, 1));
	claims = o->n.claims;
	one_run(o, 3000000000ULL);	/* every CONNECT retry */
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_FAILED);
	MRE_EXPECT_EQ(test, o->n.claims, claims);
	MRE_EXPECT_EQ(test, o->n.claim_bad, 0);
	/* a failed one, reopened by a CONNECT with no blob: no planes */
	p = connect_from(0x9999, NULL, 0);
	rx_connect(test, o, 1, &p);
	MRE_ASSERT(test, o->c.state == MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, o->c.peer_nplanes, 0);
}

MRE_SUITE(demux,
	  MRE_CASE(demux_reset_for_unknown_id),
	  MRE_CASE(demux_probe_draws_no_reset),
	  MRE_CASE(demux_reopen_limited),
	  MRE_CASE(demux_reset_rate_limited),
	  MRE_CASE(demux_by_id_and_address),
	  MRE_CASE(demux_bound_to_peer),
	  MRE_CASE(demux_reset_limit_per_source),
	  MRE_CASE(demux_retry_not_starved),
	  MRE_CASE(demux_reset_not_starved),
	  MRE_CASE(demux_bogus_source),
	  MRE_CASE(demux_groups_and_broadcast),
	  MRE_CASE(demux_connect_from_unknown),
	  MRE_CASE(demux_connect_needs_cookie),
	  MRE_CASE(demux_connect_claim_ignored),
	  MRE_CASE(demux_restart_challenged),
	  MRE_CASE(demux_connect_by_plane0),
	  MRE_CASE(demux_blob_parse),
	  MRE_CASE(demux_clock_never_goes_back),
	  MRE_CASE(demux_plane_claim_bounded),
	  MRE_CASE(demux_plane_echo_nonce),
	  MRE_CASE(demux_plane_challenge_echoed),
	  MRE_CASE(demux_plane_forgotten));
