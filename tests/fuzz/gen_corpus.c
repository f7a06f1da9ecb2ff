// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Seed corpora for the fuzz targets, written by the engine's own builders.
 *
 *	gen-corpus WIRE_DIR CONN_DIR DEMUX_DIR
 *
 * WIRE_DIR gets one valid packet of every type (DATA of every op), and a
 * CONNECT with a plane blob; CONN_DIR gets record files for fuzz_conn (see
 * there): each valid packet alone with its dst_cid patched, and all of
 * them in one sequence; DEMUX_DIR the same for fuzz_demux, from several
 * senders, the blob's CONNECT from a node it names by another address.
 */
#include "ep.h"
#include "wire.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXP 32

static u8 pk[MAXP][MRE_MAX_HDR_LEN + MRE_CONNECT_LEN + MRE_MAX_BLOB + 512];
static u32 pl[MAXP];
static u32 np;

static void add(const struct mre_pkt *p, u32 payload)
{
	u32 hl = mre_wire_put(pk[np], p), i;

	for (i = 0; i < payload; i++)
		pk[np][hl + i] = (u8)(i * 7);
	pl[np++] = hl + payload;
}

static void data(u8 op, u8 dflags, u16 plen)
{
	struct mre_pkt p = {
		.type = MRE_T_DATA, .flags = MRE_F_ACK_REQ, .path = 1,
		.dst_cid = 7, .psn = 3, .ts = 1000,
		.data = {
			.tsn = 100, .path_una = 3, .dst_stream = 1017,
			.src_stream = 17, .msn = 0, .offset = 0,
			.mlen = op == MRE_OP_ATOMIC_REQ ? 8 : 512, .op = op,
			.dflags = dflags, .plen = plen, .rkey = 0x100,
			.raddr = 0x10000, .aop = MRE_AOP_FETCH_ADD, .swap_add = 1,
			.syndrome = MRE_SYN_REM_ACCESS,
		},
	};

	add(&p, plen);
}

static void build(void)
{
	const u8 fl = MRE_DF_FIRST | MRE_DF_LAST;
	struct mre_pkt a = {
		.type = MRE_T_ACK, .path = 0, .dst_cid = 7,
		.ack = { .ack_path = 1, .psn_cum = 4, .sack = { 5 }, .tsn_cum = 101,
			 .tsn_sack = 3, .ts_echo = 1000, .rate_hint = 5000 },
	};
	struct mre_pkt c = {
		.type = MRE_T_CONNECT, .connect = { .src_cid = 9, .isn = 100,
			.window_log2 = 6, .npaths = 4, .blob_len = 4,
			.blob = (const u8 *)"blob" },
	};
	struct mre_pkt r = { .type = MRE_T_RESET, .reset = { .cid = 7 } };
	struct mre_pkt pr = { .type = MRE_T_PROBE, .flags = MRE_F_ACK_REQ,
			      .path = 2, .dst_cid = 7, .psn = 9 };
	struct mre_pkt ch = { .type = MRE_T_CHALLENGE, .path = 1, .dst_cid = 7,
			      .proof = { .nonce = 0x1234, .plane = 1 } };
	struct mre_pkt u = { .type = MRE_T_UD, .ud = { .dst_qpn = 5, .src_qpn = 6,
			     .qkey = 7, .plen = 64 } };
	/* node 3 names itself 10.0.0.3 from its plane-1 address 10.0.0.5 */
	struct mre_addr planes[2] = {
		{ .family = MRE_AF_INET, .a = { 10, 0, 0, 3 } },
		{ .family = MRE_AF_INET, .a = { 10, 0, 0, 5 } },
	};
	static u8 blob[MRE_MAX_BLOB];

	data(MRE_OP_WRITE, fl, 512);
	data(MRE_OP_SEND, fl | MRE_DF_RECV | MRE_DF_IMM, 512);
	data(MRE_OP_READ_REQ, fl, 0);
	data(MRE_OP_READ_RESP, fl, 512);
	data(MRE_OP_ATOMIC_REQ, fl, 0);
	data(MRE_OP_ATOMIC_RESP, fl, 0);
	data(MRE_OP_NAK, fl, 0);
	data(MRE_OP_NOP, fl, 0);
	add(&a, 0);
	add(&c, 0);
	c.type = MRE_T_ACCEPT;
	c.dst_cid = 7;
	add(&c, 0);
	add(&r, 0);
	add(&pr, 0);
	add(&u, 64);
	add(&ch, 0);
	ch.type = MRE_T_ECHO;
	add(&ch, 0);
	c.type = MRE_T_CONNECT;
	c.dst_cid = 0;
	c.connect.blob = blob;
	c.connect.blob_len = (u16)mre_wire_blob_put(blob, MRE_AF_INET, 2, planes);
	add(&c, 0);
}

static void put_file(const char *dir, const char *name, u32 i, const u8 *b,
		     u32 len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s%02u", dir, name, i);
	f = fopen(path, "wb");
	if (!f || fwrite(b, 1, len, f) != len) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

static u32 record(u8 *b, u32 i, u8 ctl)
{
	b[0] = ctl;
	b[1] = (u8)(pl[i] >> 8);
	b[2] = (u8)pl[i];
	memcpy(b + 3, pk[i], pl[i]);
	return 3 + pl[i];
}

int main(int argc, char **argv)
{
	static u8 seq[MAXP * (3 + sizeof(pk[0]))];
	u8 one[3 + sizeof(pk[0])];
	u32 i, n = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: gen-corpus WIRE_DIR CONN_DIR DEMUX_DIR\n");
		return 2;
	}
	build();
	for (i = 0; i < np; i++) {
		put_file(argv[1], "pkt", i, pk[i], pl[i]);
		put_file(argv[2], "one", i, one, record(one, i, 1 | 2 << 3));
		n += record(seq + n, i, (u8)(1 | (i & 1) << 1 | 1 << 3));
	}
	put_file(argv[2], "seq", 0, seq, n);
	/* fuzz_demux: from node 1 with its id, then from others, group, v6 */
	for (i = 0, n = 0; i < np; i++) {
		put_file(argv[3], "one", i, one, record(one, i, 1 | 0x40));
		n += record(seq + n, i, (u8)((i % 8) | (i & 1) << 6 |
					     (i % 5 == 0) << 5));
	}
	put_file(argv[3], "one", np, one, record(one, np - 1, 5));
	put_file(argv[3], "seq", 0, seq, n);
	/* a CONNECT from a new node, then again with the RETRY's cookie */
	for (i = 0; i < np; i++) {
		if ((pk[i][0] & 0xf) != MRE_T_CONNECT)
			continue;
		n = record(seq, i, 5);
		n += record(seq + n, i, 5 | 0x40);
		put_file(argv[3], "cookie", i, seq, n);
	}
	return 0;
}
