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

static struct mre_pkt probe_to(u32 cid)
{
	struct mre_pkt p = { .type = MRE_T_PROBE, .path = 3, .dst_cid = cid };

	return p;
}

static struct mre_pkt connect_from(u32 src_cid, const u8 *blob, u16 blob_len)
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

	rx_from(o, 4, &p);
	MRE_EXPECT_EQ(test, o->n.conn_news, 1);
	MRE_EXPECT_EQ(test, o->n.ep.ctr.drop_conn_new, 1);
	MRE_EXPECT_EQ(test, o->sent, 0);
	the_one = o;
	o->n.new_conn = new_conn;
	rx_from(o, 4, &p);
	MRE_EXPECT_EQ(test, o->n.conn_news, 2);
	MRE_EXPECT_EQ(test, o->extra.state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, o->extra.remote_cid, 0x5151);
	MRE_EXPECT_EQ(test, o->extra.nplanes, 2);
	MRE_ASSERT(test, o->sent == 1);
	MRE_EXPECT_EQ(test, o->last_to, 4);
	MRE_ASSERT(test, mre_wire_parse(o->last, o->last_len, &r) ==
			 MRE_PARSE_OK);
	MRE_EXPECT_EQ(test, r.type, MRE_T_ACCEPT);
	MRE_EXPECT_EQ(test, r.dst_cid, 0x5151);
	MRE_EXPECT_EQ(test, r.connect.src_cid, o->extra.cid);
	/* the same CONNECT again finds it by address: no second conn_new */
	rx_from(o, 4, &p);
	MRE_EXPECT_EQ(test, o->n.conn_news, 2);
	MRE_EXPECT_EQ(test, o->sent, 2);
	the_one = NULL;
}

/*
 * A CONNECT that came by another plane names its node by the plane-0
 * address in its blob: it reaches the connection with that node, which
 * learns the peer's planes; ours go back in the ACCEPT.
 */
MRE_TEST(demux_connect_by_plane0)
{
	struct one *o = one_new(test, NULL);
	struct mre_addr theirs[2] = { mdl_addr(1), mdl_addr(9) }, got[8];
	u8 blob[MRE_MAX_BLOB];
	struct mre_pkt p, r;
	u32 len;

	o->n.nplanes = 2;
	o->n.planes[0] = mdl_addr(0);
	o->n.planes[1] = mdl_addr(8);
	len = mre_wire_blob_put(blob, MRE_AF_INET, 2, theirs);
	p = connect_from(0x7777, blob, (u16)len);
	rx_from(o, 9, &p);		/* from node 1's plane-1 address */
	MRE_EXPECT_EQ(test, o->n.conn_news, 0);
	MRE_EXPECT_EQ(test, o->c.state, MRE_CONN_ESTABLISHED);
	MRE_EXPECT_EQ(test, o->c.peer_nplanes, 2);
	MRE_EXPECT(test, mre_addr_eq(&o->c.peer_planes[1], &theirs[1]));
	MRE_EXPECT_EQ(test, o->n.planes_learned, 1);
	MRE_ASSERT(test, o->sent == 1);
	MRE_ASSERT(test, mre_wire_parse(o->last, o->last_len, &r) ==
			 MRE_PARSE_OK);
	MRE_EXPECT_EQ(test, r.type, MRE_T_ACCEPT);
	MRE_EXPECT_EQ(test, mre_wire_blob_parse(r.connect.blob,
						r.connect.blob_len,
						MRE_AF_INET, got), 2);
	MRE_EXPECT(test, mre_addr_eq(&got[1], &o->n.planes[1]));
	MRE_EXPECT_EQ(test, o->c.blob_planes, 2);
	/* a blob that cannot be used keeps what the last one said */
	blob[0] = 2;
	p.connect.src_cid = 0x7777;
	rx_from(o, 1, &p);
	MRE_EXPECT_EQ(test, o->c.peer_nplanes, 2);
	MRE_EXPECT(test, mre_addr_eq(&o->c.peer_planes[1], &theirs[1]));
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
	  MRE_CASE(demux_groups_and_broadcast),
	  MRE_CASE(demux_connect_from_unknown),
	  MRE_CASE(demux_connect_by_plane0),
	  MRE_CASE(demux_blob_parse),
	  MRE_CASE(demux_clock_never_goes_back));
