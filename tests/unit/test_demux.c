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
	u64 now;
};

static struct one *the_one;	/* new_conn() has only the node */

static void catch_out(struct mdl_node *n, u32 peer, const struct mre_xmit *x,
		      const u8 *pkt, u32 len)
{
	struct one *o = MRE_CONTAINER_OF(n, struct one, n);

	o->sent++;
	o->last_to = peer;
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
	struct mre_pkt p = probe_to(0xdead), r;

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

/* RESETs go out at most reset_burst a second */
MRE_TEST(demux_reset_rate_limited)
{
	struct mre_config cfg;
	struct mre_pkt p = probe_to(0xbeef);
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
	struct mre_pkt p = probe_to(0xbeef);
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
	struct mre_pkt p = probe_to(0xbeef);
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
	struct mre_pkt unknown = probe_to(0xdead), known;
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

MRE_SUITE(demux,
	  MRE_CASE(demux_reset_for_unknown_id),
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
	  MRE_CASE(demux_clock_never_goes_back));
