// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The packets the Wireshark dissector is checked on: one of every type
 * and every DATA operation, built by the engine's own mre_wire_put() with
 * distinct field values, written as a pcap (Ethernet, IPv4, UDP to port
 * 4796) and, per frame, the fields as sent (JSON lines, "mroce.<member>":
 * value) for tests/wireshark/check.py.
 *
 *	gen PCAP EXPECT
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

static FILE *pc, *ex;
static unsigned int frame;

static void w32(uint32_t v) { fwrite(&v, 4, 1, pc); }
static void w16(uint16_t v) { fwrite(&v, 2, 1, pc); }

static void pcap_pkt(const u8 *p, u32 len)
{
	u8 h[42] = { 0 };
	u32 ip = 20 + 8 + len, i, sum = 0;

	memcpy(h, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00", 14);
	h[14] = 0x45; h[16] = ip >> 8; h[17] = ip & 0xff; h[22] = 64; h[23] = 17;
	memcpy(h + 26, "\xc6\x12\x01\x01\xc6\x12\x01\x02", 8);
	for (i = 14; i < 34; i += 2)
		sum += h[i] << 8 | h[i + 1];
	sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	h[24] = sum >> 8; h[25] = sum & 0xff;
	h[34] = 0xc0; h[35] = 0x01;		/* source port 49153 */
	h[36] = 4796 >> 8; h[37] = 4796 & 0xff;
	h[38] = (8 + len) >> 8; h[39] = (8 + len) & 0xff;
	w32(frame); w32(0); w32(42 + len); w32(42 + len);
	fwrite(h, 42, 1, pc);
	fwrite(p, len, 1, pc);
	frame++;
}

/* the expectation of one frame: printf-style "name": value pairs */
#define EXP(...) fprintf(ex, __VA_ARGS__)

static void common(const struct mre_pkt *p)
{
	EXP("{\"frame\": %u, \"mroce.version\": %u, \"mroce.type\": %u, \"mroce.flags\": %u, \"mroce.path\": %u, \"mroce.dst_cid\": %llu, \"mroce.psn\": %u, \"mroce.ts\": %u",
	    frame + 1, MRE_WIRE_VERSION, p->type, p->flags, p->path,
	    (unsigned long long)p->dst_cid, p->psn, p->ts);
}

static void put(const struct mre_pkt *p, const u8 *payload, u32 plen)
{
	u8 b[MRE_MAX_HDR_LEN + MRE_MAX_BLOB + 256];
	u32 hl = mre_wire_put(b, p);
	struct mre_pkt chk;

	if (payload && plen)
		memcpy(b + hl, payload, plen);
	if (mre_wire_parse(b, hl + plen, &chk) != MRE_PARSE_OK) {
		fprintf(stderr, "gen: frame %u does not parse\n", frame + 1);
		exit(1);
	}
	pcap_pkt(b, hl + plen);
}

static void data(u8 op, u8 dflags, u16 plen)
{
	static const u8 pl[64] = "MetaRoCE payload bytes ...";
	struct mre_pkt p = {
		.type = MRE_T_DATA, .flags = MRE_F_ACK_REQ, .path = 3,
		.dst_cid = 0x1122334455667788ULL, .psn = 1000 + op, .ts = 77777,
		.data = {
			.tsn = 50000 + op, .path_una = 990, .dst_stream = 17,
			.src_stream = 18, .msn = 5, .offset = 0, .mlen = plen,
			.op = op, .dflags = dflags, .plen = plen, .rkey = 0xabcd12,
			.raddr = 0x7f0000001000ULL, .rsn = 3, .rdsn = 2,
			.imm = 0xdeadbeef, .aop = MRE_AOP_FETCH_ADD,
			.swap_add = 0x0102030405060708ULL,
			.compare = 0x1112131415161718ULL, .orig = 0x2122232425262728ULL,
			.syndrome = MRE_SYN_REM_ACCESS,
		},
	};
	const struct mre_pkt_data *d = &p.data;

	if (op == MRE_OP_ATOMIC_REQ || op == MRE_OP_ATOMIC_WRITE_REQ)
		p.data.mlen = 8;
	p.data.fflags = MRE_FLUSH_GLOBAL | MRE_FLUSH_PERSISTENT;
	common(&p);
	EXP(", \"mroce.tsn\": %u, \"mroce.path_una\": %u, \"mroce.dst_stream\": %u, \"mroce.src_stream\": %u, \"mroce.msn\": %u, \"mroce.offset\": %u, \"mroce.mlen\": %u, \"mroce.op\": %u, \"mroce.dflags\": %u, \"mroce.plen\": %u",
	    d->tsn, d->path_una, d->dst_stream, d->src_stream, d->msn, d->offset,
	    d->mlen, d->op, d->dflags, d->plen);
	switch (op) {
	case MRE_OP_SEND:
		EXP(", \"mroce.rsn\": %u, \"mroce.imm\": %u", d->rsn, d->imm);
		break;
	case MRE_OP_WRITE:
		EXP(", \"mroce.raddr\": %llu, \"mroce.rkey\": %u, \"mroce.rsn\": %u, \"mroce.imm\": %u",
		    (unsigned long long)d->raddr, d->rkey, d->rsn, d->imm);
		break;
	case MRE_OP_READ_REQ:
		EXP(", \"mroce.raddr\": %llu, \"mroce.rkey\": %u, \"mroce.rdsn\": %u",
		    (unsigned long long)d->raddr, d->rkey, d->rdsn);
		break;
	case MRE_OP_READ_RESP:
		EXP(", \"mroce.rdsn\": %u", d->rdsn);
		break;
	case MRE_OP_ATOMIC_REQ:
		EXP(", \"mroce.raddr\": %llu, \"mroce.rkey\": %u, \"mroce.rdsn\": %u, \"mroce.aop\": %u, \"mroce.swap_add\": %llu, \"mroce.compare\": %llu",
		    (unsigned long long)d->raddr, d->rkey, d->rdsn, d->aop,
		    (unsigned long long)d->swap_add, (unsigned long long)d->compare);
		break;
	case MRE_OP_ATOMIC_RESP:
		EXP(", \"mroce.rdsn\": %u, \"mroce.orig\": %llu", d->rdsn,
		    (unsigned long long)d->orig);
		break;
	case MRE_OP_ATOMIC_WRITE_REQ:
		EXP(", \"mroce.raddr\": %llu, \"mroce.rkey\": %u, \"mroce.rdsn\": %u, \"mroce.swap_add\": %llu",
		    (unsigned long long)d->raddr, d->rkey, d->rdsn,
		    (unsigned long long)d->swap_add);
		break;
	case MRE_OP_FLUSH_REQ:
		EXP(", \"mroce.raddr\": %llu, \"mroce.rkey\": %u, \"mroce.rdsn\": %u, \"mroce.fflags\": %u",
		    (unsigned long long)d->raddr, d->rkey, d->rdsn, d->fflags);
		break;
	case MRE_OP_NAK:
		EXP(", \"mroce.syndrome\": %u", d->syndrome);
		break;
	}
	EXP("}\n");
	put(&p, pl, plen);
}

int main(int argc, char **argv)
{
	static const u8 udp[40] = "a UD datagram";
	struct mre_addr planes[2] = {
		{ .family = MRE_AF_INET, .a = { 198, 18, 1, 1 } },
		{ .family = MRE_AF_INET, .a = { 198, 18, 2, 1 } },
	};
	u8 blob[MRE_MAX_BLOB];
	struct mre_pkt p;
	u32 i;

	if (argc != 3) {
		fprintf(stderr, "usage: gen PCAP EXPECT\n");
		return 2;
	}
	pc = fopen(argv[1], "wb");
	ex = fopen(argv[2], "w");
	if (!pc || !ex) {
		perror("gen");
		return 1;
	}
	w32(0xa1b2c3d4); w16(2); w16(4); w32(0); w32(0); w32(65535); w32(1);

	data(MRE_OP_SEND, MRE_DF_FIRST | MRE_DF_LAST | MRE_DF_RECV | MRE_DF_IMM, 64);
	data(MRE_OP_WRITE, MRE_DF_FIRST | MRE_DF_LAST | MRE_DF_IMM | MRE_DF_RECV, 64);
	data(MRE_OP_READ_REQ, MRE_DF_FIRST | MRE_DF_LAST, 0);
	data(MRE_OP_READ_RESP, MRE_DF_FIRST, 64);
	data(MRE_OP_ATOMIC_REQ, MRE_DF_FIRST | MRE_DF_LAST, 0);
	data(MRE_OP_ATOMIC_RESP, MRE_DF_FIRST | MRE_DF_LAST, 0);
	data(MRE_OP_NAK, MRE_DF_FIRST | MRE_DF_LAST, 0);
	data(MRE_OP_NOP, MRE_DF_FIRST | MRE_DF_LAST, 0);
	data(MRE_OP_ATOMIC_WRITE_REQ, MRE_DF_FIRST | MRE_DF_LAST, 0);
	data(MRE_OP_FLUSH_REQ, MRE_DF_FIRST | MRE_DF_LAST, 0);

	p = (struct mre_pkt){
		.type = MRE_T_ACK, .path = 2, .dst_cid = 0xa1a2a3a4a5a6a7a8ULL,
		.psn = 4, .ts = 123456,
		.ack = {
			.ack_path = 5, .nak = MRE_SYN_RNR, .aflags = MRE_AF_MARK,
			.psn_cum = 7000, .tsn_cum = 90000,
			.tsn_sack = 0x8000000000000005ULL, .ts_echo = 654321,
			.ack_delay = 8000, .ce_count = 12, .rate_hint = 25000,
			.rnr_delay = 100000, .dup_count = 3, .nak_mark = 89999,
		},
	};
	p.ack.sack[0] = 0x0000000b;	/* 7001, 7002, 7004 */
	p.ack.sack[7] = 0x40000000;	/* 7255 */
	common(&p);
	EXP(", \"mroce.ack_path\": %u, \"mroce.nak\": %u, \"mroce.aflags\": %u, \"mroce.psn_cum\": %u, \"mroce.tsn_cum\": %u, \"mroce.tsn_sack\": %llu, \"mroce.ts_echo\": %u, \"mroce.ack_delay\": %u, \"mroce.ce_count\": %u, \"mroce.rate_hint\": %u, \"mroce.rnr_delay\": %u, \"mroce.dup_count\": %u, \"mroce.nak_mark\": %u, \"mroce.sack_range\": \"7001-7002, 7004, 7255\", \"mroce.tsn_sack_range\": \"90001, 90003, 90064\"}\n",
	    p.ack.ack_path, p.ack.nak, p.ack.aflags, p.ack.psn_cum, p.ack.tsn_cum,
	    (unsigned long long)p.ack.tsn_sack, p.ack.ts_echo, p.ack.ack_delay,
	    p.ack.ce_count, p.ack.rate_hint, p.ack.rnr_delay, p.ack.dup_count,
	    p.ack.nak_mark);
	put(&p, NULL, 0);

	for (i = 0; i < 2; i++) {
		p = (struct mre_pkt){
			.type = i ? MRE_T_ACCEPT : MRE_T_CONNECT, .path = 1,
			.dst_cid = i ? 0xfeedfacecafebeefULL : 0, .ts = 42,
			.connect = {
				.src_cid = 0x0123456789abcdefULL + i, .isn = 31337,
				.window_log2 = 10, .npaths = 8,
				.cookie = i ? 0 : 0x5a5a5a5a12345678ULL, .blob = blob,
			},
		};
		p.connect.blob_len = (u16)mre_wire_blob_put(blob, MRE_AF_INET, 2, planes);
		common(&p);
		EXP(", \"mroce.src_cid\": %llu, \"mroce.isn\": %u, \"mroce.window_log2\": %u, \"mroce.npaths\": %u, \"mroce.blob_len\": %u, \"mroce.cflags\": 0, \"mroce.cookie\": %llu, \"mroce.blob_count\": 2, \"mroce.plane_ipv4\": [\"198.18.1.1\", \"198.18.2.1\"]}\n",
		    (unsigned long long)p.connect.src_cid, p.connect.isn,
		    p.connect.window_log2, p.connect.npaths, p.connect.blob_len,
		    (unsigned long long)p.connect.cookie);
		put(&p, NULL, 0);
	}

	p = (struct mre_pkt){ .type = MRE_T_RESET, .path = 6,
			      .reset = { .cid = 0x0badc0ffee000001ULL } };
	common(&p);
	EXP(", \"mroce.cid\": %llu, \"mroce.reason\": 0}\n",
	    (unsigned long long)p.reset.cid);
	put(&p, NULL, 0);

	p = (struct mre_pkt){ .type = MRE_T_PROBE, .flags = MRE_F_ACK_REQ,
			      .path = 9, .dst_cid = 99, .psn = 555,
			      .probe = { .path_una = 550 } };
	common(&p);
	EXP(", \"mroce.path_una\": 550}\n");
	put(&p, NULL, 0);

	p = (struct mre_pkt){ .type = MRE_T_UD,
			      .ud = { .dst_qpn = 0x123, .src_qpn = 0x456,
				      .qkey = 0x11111111, .imm = 7,
				      .udflags = MRE_DF_IMM, .plen = 40 } };
	common(&p);
	EXP(", \"mroce.dst_qpn\": %u, \"mroce.src_qpn\": %u, \"mroce.qkey\": %u, \"mroce.imm\": 7, \"mroce.udflags\": %u, \"mroce.plen\": 40}\n",
	    p.ud.dst_qpn, p.ud.src_qpn, p.ud.qkey, p.ud.udflags);
	put(&p, udp, 40);

	p = (struct mre_pkt){ .type = MRE_T_RETRY, .path = 1,
			      .dst_cid = 0x0123456789abcdefULL,
			      .retry = { .cookie = 0x77778888aaaabbbbULL } };
	common(&p);
	EXP(", \"mroce.cookie\": %llu}\n", (unsigned long long)p.retry.cookie);
	put(&p, NULL, 0);

	for (i = 0; i < 2; i++) {
		p = (struct mre_pkt){ .type = i ? MRE_T_ECHO : MRE_T_CHALLENGE,
				      .path = 3, .dst_cid = 0x1122334455667788ULL,
				      .ts = 77,
				      .proof = { .nonce = 0x8899aabbccddeeffULL,
						 .plane = 1 } };
		common(&p);
		EXP(", \"mroce.nonce\": %llu, \"mroce.plane\": %u}\n",
		    (unsigned long long)p.proof.nonce, p.proof.plane);
		put(&p, NULL, 0);
	}

	fclose(pc);
	fclose(ex);
	return 0;
}
