// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: hostile datagrams into the receive demux (mre_ep_rx())
 * and the plane blob parser, from any address.
 *
 * One model node with planes (so that it sends and reads blobs) has a
 * connection to node 1 and makes new ones, up to NPOOL, for CONNECTs from
 * nodes it does not know. The input is read as records
 *
 *	ctl (1 byte) | len (2 bytes, big-endian) | len bytes of datagram
 *
 * ctl bits 0-2: the sender (node 0..6; 7: an IPv6 address); bit 3: it came
 * as a broadcast; bit 4: CE; bit 5: sent to a multicast group; bit 6:
 * first overwrite dst_cid with a live connection's id (a CONNECT: its
 * cookie with the latest RETRY's, so that CONNECTs get past the cookie
 * check); bit 7: the clock jumps a second first (RESET rate limit
 * windows). The same bytes also go
 * through mre_wire_blob_parse() in both families.
 *
 * A bug is: a crash or sanitizer report; mre_ep_rx() returning a
 * connection that is not one of the node's; a packet the node sends that
 * does not parse; a blob that parses to more than MRE_BLOB_MAX_PLANES or
 * does not survive being written back and parsed again; more RESETs to
 * one sender in a second than reset_burst (RETRYs are not limited); a
 * RETRY that answers no CONNECT.
 */
#include "model.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BUG() abort()
#define NPOOL 4
#define PKT_MAX (MRE_MAX_HDR_LEN + 16 + MRE_MAX_PAYLOAD + MRE_MAX_BLOB)

static struct {
	struct mdl_node n;
	struct mre_conn c;
	u8 cmem[1 << 16];
	struct mre_conn pool[NPOOL];
	u8 pmem[NPOOL][1 << 16];
	u32 npool;
	u64 now;
	u64 epoch;
	u32 resets[MDL_MAX_PEERS];
	u64 cookie;		/* the latest RETRY's */
	u64 retries;		/* RETRYs sent */
} w;

static void out(struct mdl_node *n, u32 peer, const struct mre_xmit *x,
		const u8 *pkt, u32 len)
{
	struct mre_pkt p;

	if (mre_wire_parse(pkt, len, &p) != MRE_PARSE_OK)
		BUG();
	if (p.type == MRE_T_RETRY) {
		w.cookie = p.retry.cookie;
		if (++w.retries > w.n.ep.ctr.connect_cookie)
			BUG();
	}
	if (p.type != MRE_T_RESET)
		return;
	if (w.now - w.epoch >= 1000000000ULL) {
		w.epoch = w.now;
		memset(w.resets, 0, sizeof(w.resets));
	}
	if (peer >= MDL_MAX_PEERS || ++w.resets[peer] > w.n.ep.cfg.reset_burst)
		BUG();
}

static struct mre_conn *new_conn(struct mdl_node *n, u32 peer)
{
	struct mre_conn *c;

	if (w.npool == NPOOL || n->conns[peer])
		return NULL;
	c = &w.pool[w.npool];
	mdl_conn(n, peer, c, w.pmem[w.npool++]);
	mre_conn_set_planes(c, w.now, 2);
	return c;
}

static bool ours(const struct mre_conn *c)
{
	u32 i;

	if (c == &w.c)
		return true;
	for (i = 0; i < w.npool; i++)
		if (c == &w.pool[i])
			return true;
	return false;
}

static void setup(void)
{
	struct mre_config cfg;

	mre_config_default(&cfg);
	cfg.window_log2 = 6;
	cfg.conn_max_cwnd = 64;
	cfg.npaths = 4;
	cfg.reset_burst = 5;
	if (mre_config_check(&cfg) || mre_conn_mem_size(&cfg) > sizeof(w.cmem))
		BUG();
	w.npool = 0;
	w.now = 1000;
	w.epoch = 0;
	memset(w.resets, 0, sizeof(w.resets));
	w.cookie = 0;
	w.retries = 0;
	mdl_node_init(&w.n, 0, 0x5eed, &cfg);
	w.n.out = out;
	w.n.new_conn = new_conn;
	w.n.nplanes = 2;
	w.n.planes[0] = mdl_addr(0);
	w.n.planes[1] = mdl_addr(20);
	mdl_conn(&w.n, 1, &w.c, w.cmem);
	mre_conn_connect(&w.c, w.now);
}

/* whatever parses must be at most 8 planes and survive a round trip */
static void blob_check(const u8 *b, u32 len, u8 family)
{
	struct mre_addr a[MRE_BLOB_MAX_PLANES], c[MRE_BLOB_MAX_PLANES];
	u8 buf[MRE_MAX_BLOB];
	u32 n = mre_wire_blob_parse(b, len, family, a), m, k;

	if (!n)
		return;
	if (n > MRE_BLOB_MAX_PLANES)
		BUG();
	m = mre_wire_blob_put(buf, family, n, a);
	if (m != MRE_BLOB_LEN(n, mre_addr_len(family)) ||
	    mre_wire_blob_parse(buf, m, family, c) != n)
		BUG();
	for (k = 0; k < n; k++)
		if (a[k].family != c[k].family ||
		    (a[k].family && !mre_addr_eq(&a[k], &c[k])))
			BUG();
}

static struct mre_addr sender(u8 sel)
{
	struct mre_addr a = { .family = MRE_AF_INET6, .a = { 0xfd, 0, 0, 7 } };

	return sel < 7 ? mdl_addr(sel) : a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static u8 pkt[PKT_MAX];
	size_t off = 0;

	setup();
	while (off + 3 <= size) {
		u8 ctl = data[off];
		u32 len = (u32)data[off + 1] << 8 | data[off + 2];
		struct mre_rx rx = { .buf = pkt };
		struct mre_conn *c;

		off += 3;
		if (len > size - off)
			len = (u32)(size - off);
		len = MRE_MIN(len, (u32)PKT_MAX);
		memcpy(pkt, data + off, len);
		off += len;
		blob_check(pkt, len, MRE_AF_INET);
		blob_check(pkt, len, MRE_AF_INET6);
		if (ctl & 0x40 && len >= MRE_CONNECT_LEN &&
		    (pkt[0] & 0xf) == MRE_T_CONNECT)
			put_be64(pkt + MRE_COMMON_LEN + 20, w.cookie);
		else if (ctl & 0x40 && len >= 12)
			put_be64(pkt + 4, w.npool && ctl & 1 ?
				 w.pool[0].cid : w.c.cid);
		if (ctl & 0x80)
			w.now += 1000000000ULL;
		w.now += 500;
		rx.len = len;
		rx.src = sender(ctl & 7);
		rx.dst = mdl_addr(0);
		if (ctl & 0x20)
			rx.dst = (struct mre_addr){ .family = MRE_AF_INET,
						    .a = { 239, 0, 0, 1 } };
		rx.bcast = ctl & 8;
		rx.ce = ctl & 0x10;
		rx.src_port = 49152;
		c = mre_ep_rx(&w.n.ep, w.now, &rx);
		if (c && !ours(c))
			BUG();
		if (c)
			mre_conn_run(c, w.now);
	}
	mdl_run(&w.n, w.now + 1000000);
	return 0;
}
