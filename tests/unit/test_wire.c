// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Wire format: every packet type survives put/parse unchanged, and every
 * malformed variant is refused with the right reason.
 */
#include "model.h"
#include "mre_test.h"

static struct mre_pkt data_pkt(u8 op)
{
	struct mre_pkt p = {
		.type = MRE_T_DATA, .flags = MRE_F_ACK_REQ, .path = 5,
		.dst_cid = 0xdeadbeef, .psn = 77, .ts = 123456,
		.data = {
			.tsn = 0xfffffff0, .path_una = 70, .dst_stream = 0x11,
			.src_stream = 0x22, .msn = 9, .offset = 2048,
			.mlen = 8192, .op = op, .dflags = MRE_DF_LAST,
			.plen = 100, .rkey = 0x1234, .raddr = 0x7f0000001000ULL,
			.rsn = 3, .rdsn = 4, .imm = 0xcafe, .aop = MRE_AOP_CMP_SWP,
			.swap_add = 0x1111222233334444ULL,
			.compare = 0x5555666677778888ULL, .orig = 42,
			.syndrome = MRE_SYN_REM_ACCESS,
		},
	};

	switch (op) {
	case MRE_OP_SEND:
		p.data.dflags |= MRE_DF_RECV | MRE_DF_IMM;
		break;
	case MRE_OP_READ_REQ:
	case MRE_OP_ATOMIC_REQ:
	case MRE_OP_ATOMIC_RESP:
	case MRE_OP_NAK:
	case MRE_OP_NOP:
	case MRE_OP_ATOMIC_WRITE_REQ:
	case MRE_OP_FLUSH_REQ:
		p.data.dflags = MRE_DF_FIRST | MRE_DF_LAST;
		p.data.plen = 0;
		p.data.offset = 0;
		if (op == MRE_OP_ATOMIC_REQ || op == MRE_OP_ATOMIC_WRITE_REQ)
			p.data.mlen = 8;
		p.data.fflags = MRE_FLUSH_GLOBAL | MRE_FLUSH_PERSISTENT;
		break;
	}
	return p;
}

/* build @in with a payload, parse it back, compare the fields that travel */
static bool roundtrip_data(struct kunit *test, u8 op)
{
	struct mre_pkt in = data_pkt(op), out;
	u8 buf[256] = { 0 };
	u32 hl = mre_wire_put(buf, &in), i;

	for (i = 0; i < in.data.plen; i++)
		buf[hl + i] = (u8)i;
	if (mre_wire_parse(buf, hl + in.data.plen, &out) != MRE_PARSE_OK)
		return false;
	if (out.type != MRE_T_DATA || out.path != 5 || out.dst_cid != 0xdeadbeef ||
	    out.psn != 77 || out.ts != 123456 || out.flags != MRE_F_ACK_REQ)
		return false;
	if (out.data.tsn != in.data.tsn || out.data.msn != 9 ||
	    out.data.path_una != 70 || out.data.dst_stream != 0x11 ||
	    out.data.src_stream != 0x22 || out.data.plen != in.data.plen ||
	    out.data.mlen != in.data.mlen || out.hdr_len != hl ||
	    out.data.dflags != in.data.dflags)
		return false;
	if (out.data.plen && out.payload[99] != 99)
		return false;
	switch (op) {
	case MRE_OP_WRITE:
		return out.data.rkey == 0x1234 && out.data.raddr == in.data.raddr &&
		       out.data.rsn == 3 && out.data.imm == 0xcafe;
	case MRE_OP_SEND:
		return out.data.rsn == 3 && out.data.imm == 0xcafe;
	case MRE_OP_READ_REQ:
		return out.data.rkey == 0x1234 && out.data.rdsn == 4;
	case MRE_OP_ATOMIC_REQ:
		return out.data.swap_add == in.data.swap_add &&
		       out.data.compare == in.data.compare &&
		       out.data.aop == MRE_AOP_CMP_SWP && out.data.rdsn == 4;
	case MRE_OP_ATOMIC_RESP:
		return out.data.orig == 42 && out.data.rdsn == 4;
	case MRE_OP_ATOMIC_WRITE_REQ:
		return out.data.rkey == 0x1234 && out.data.raddr == in.data.raddr &&
		       out.data.rdsn == 4 && out.data.swap_add == in.data.swap_add;
	case MRE_OP_FLUSH_REQ:
		return out.data.rkey == 0x1234 && out.data.raddr == in.data.raddr &&
		       out.data.rdsn == 4 && out.data.fflags == in.data.fflags;
	case MRE_OP_READ_RESP:
		return out.data.rdsn == 4;
	case MRE_OP_NAK:
		return out.data.syndrome == MRE_SYN_REM_ACCESS;
	}
	return true;
}

MRE_TEST(wire_data_roundtrip)
{
	u8 op;

	for (op = 1; op < MRE_OP_MAX; op++) {
		if (!roundtrip_data(test, op))
			MRE_LOG(test, "op %s", mre_wire_op_name(op));
		MRE_EXPECT(test, roundtrip_data(test, op));
	}
}

MRE_TEST(wire_ack_roundtrip)
{
	struct mre_pkt in = {
		.type = MRE_T_ACK, .path = 2, .dst_cid = 9, .ts = 5,
		.ack = {
			.ack_path = 63, .nak = MRE_SYN_RNR, .aflags = MRE_AF_MARK,
			.psn_cum = 1000, .sack = { 1, 2, 3, 4, 5, 6, 7, 0x80000000 },
			.tsn_cum = 0xffffff00, .tsn_sack = 0x8000000000000001ULL,
			.ts_echo = 11, .ack_delay = 12, .ce_count = 13,
			.rate_hint = 14, .rnr_delay = 15, .dup_count = 16,
			.nak_mark = 17,
		},
	}, out;
	u8 buf[MRE_ACK_LEN];
	u32 len = mre_wire_put(buf, &in);

	MRE_EXPECT_EQ(test, len, MRE_ACK_LEN);
	MRE_ASSERT(test, mre_wire_parse(buf, len, &out) == MRE_PARSE_OK);
	MRE_EXPECT_EQ(test, out.ack.ack_path, 63);
	MRE_EXPECT_EQ(test, out.ack.sack[7], 0x80000000u);
	MRE_EXPECT_EQ(test, out.ack.sack[3], 4);
	MRE_EXPECT_EQ(test, out.ack.tsn_cum, 0xffffff00u);
	MRE_EXPECT(test, out.ack.tsn_sack == 0x8000000000000001ULL);
	MRE_EXPECT_EQ(test, out.ack.dup_count, 16);
	MRE_EXPECT_EQ(test, out.ack.nak_mark, 17);
	MRE_EXPECT_EQ(test, out.ack.rnr_delay, 15);
	/* one byte short or long is refused */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len - 1, &out), MRE_PARSE_SHORT);
}

MRE_TEST(wire_connect_roundtrip)
{
	static const u8 blob[5] = { 1, 2, 3, 4, 5 };
	struct mre_pkt in = {
		.type = MRE_T_CONNECT, .path = 1,
		.connect = { .src_cid = 77, .isn = 88, .window_log2 = 10,
			     .npaths = 8, .blob_len = 5, .blob = blob },
	}, out;
	u8 buf[MRE_CONNECT_LEN + MRE_MAX_BLOB];
	u32 len = mre_wire_put(buf, &in);

	MRE_ASSERT(test, mre_wire_parse(buf, len, &out) == MRE_PARSE_OK);
	MRE_EXPECT_EQ(test, out.connect.src_cid, 77);
	MRE_EXPECT_EQ(test, out.connect.isn, 88);
	MRE_EXPECT_EQ(test, out.connect.blob_len, 5);
	MRE_EXPECT_EQ(test, out.connect.blob[4], 5);
	/* a CONNECT must not name a destination; an ACCEPT must */
	buf[11] = 1;
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_FIELD);
	buf[11] = 0;
	buf[0] = MRE_WIRE_VERSION << 4 | MRE_T_ACCEPT;
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_FIELD);
	/* window out of range */
	buf[0] = MRE_WIRE_VERSION << 4 | MRE_T_CONNECT;
	buf[MRE_COMMON_LEN + 12] = 20;
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_FIELD);
}

/*
 * PARITY: a WRITE's DATA header, its last packet's flags, covering
 * [offset, mlen) in plen-byte packets; cflags' PARITY bit in CONNECT
 */
MRE_TEST(wire_parity)
{
	struct mre_pkt in = data_pkt(MRE_OP_WRITE), out;
	u8 buf[256] = { 0 };
	u32 hl, len;

	in.type = MRE_T_PARITY;
	in.data.mlen = 2048 + 16 * 100;		/* 16 packets of 100 */
	hl = mre_wire_put(buf, &in);
	len = hl + in.data.plen;
	MRE_ASSERT(test, mre_wire_parse(buf, len, &out) == MRE_PARSE_OK);
	MRE_EXPECT_EQ(test, out.type, MRE_T_PARITY);
	MRE_EXPECT_EQ(test, out.data.tsn, in.data.tsn);
	MRE_EXPECT_EQ(test, out.data.offset, 2048);
	MRE_EXPECT_EQ(test, out.data.rkey, 0x1234);
	MRE_EXPECT_EQ(test, out.data.plen, 100);
	MRE_EXPECT_EQ(test, mre_wire_type_name(MRE_T_PARITY)[0], 'P');
	/* 65 packets: more than one PARITY covers */
	put_be32(buf + 44, 2048 + 64 * 100 + 1);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_FIELD);
	put_be32(buf + 44, 2048 + 64 * 100);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_OK);
	buf[49] = 0;				/* not the message's last */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_FIELD);
	buf[49] = MRE_DF_LAST;
	in.data.op = MRE_OP_SEND;		/* only WRITEs */
	in.data.dflags = MRE_DF_LAST | MRE_DF_RECV;
	mre_memset(buf, 0, sizeof(buf));
	hl = mre_wire_put(buf, &in);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl + in.data.plen, &out),
		      MRE_PARSE_FIELD);
	in.data.op = MRE_OP_WRITE;		/* no payload: no stride */
	in.data.dflags = MRE_DF_LAST;
	in.data.plen = 0;
	hl = mre_wire_put(buf, &in);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl, &out), MRE_PARSE_FIELD);
	/* CONNECT: the PARITY bit is known, the others reserved */
	in = (struct mre_pkt){
		.type = MRE_T_CONNECT, .path = 1,
		.connect = { .src_cid = 77, .isn = 88, .window_log2 = 10,
			     .npaths = 8, .cflags = MRE_CF_PARITY },
	};
	len = mre_wire_put(buf, &in);
	MRE_ASSERT(test, mre_wire_parse(buf, len, &out) == MRE_PARSE_OK);
	MRE_EXPECT_EQ(test, out.connect.cflags, MRE_CF_PARITY);
	buf[MRE_COMMON_LEN + 19] = 2;
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_FIELD);
}

MRE_TEST(wire_rejects)
{
	struct mre_pkt in = data_pkt(MRE_OP_WRITE), out;
	u8 buf[256] = { 0 };
	u32 hl = mre_wire_put(buf, &in), len = hl + in.data.plen;
	u8 save;

	MRE_ASSERT(test, mre_wire_parse(buf, len, &out) == MRE_PARSE_OK);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, 3, &out), MRE_PARSE_SHORT);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len - 1, &out), MRE_PARSE_LEN);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl - 1, &out), MRE_PARSE_SHORT);
	save = buf[0];
	buf[0] = 0 << 4 | MRE_T_DATA;		/* version 0 is reserved */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_VERSION);
	buf[0] = MRE_WIRE_VERSION << 4 | 0xf;
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_TYPE);
	buf[0] = save;
	buf[1] = 0x80;				/* reserved flag */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_FLAGS);
	buf[1] = 0;
	buf[3] = MRE_MAX_PATHS;			/* path id out of range */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_FIELD);
	buf[3] = 5;
	buf[48] = 0;				/* op 0 */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_FIELD);
	buf[48] = MRE_OP_MAX;
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_FIELD);
	buf[48] = MRE_OP_WRITE;
	buf[49] = MRE_DF_RECV;			/* RECV without IMM on a WRITE */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_FLAGS);
	buf[49] = MRE_DF_LAST;
	put_be32(buf + 44, 100);		/* mlen < offset + plen */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_FIELD);
	put_be32(buf + 44, 8192);
	mre_memset(buf + 4, 0, 8);	/* DATA without a destination */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_FIELD);
}

MRE_TEST(wire_no_payload_ops)
{
	struct mre_pkt in = data_pkt(MRE_OP_READ_REQ), out;
	u8 buf[256] = { 0 };
	u32 hl = mre_wire_put(buf, &in);

	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl, &out), MRE_PARSE_OK);
	/* a READ request with bytes after it is malformed */
	put_be16(buf + 50, 4);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl + 4, &out), MRE_PARSE_LEN);
	/* an atomic must be 8 bytes and 8-byte operations only */
	in = data_pkt(MRE_OP_ATOMIC_REQ);
	hl = mre_wire_put(buf, &in);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl, &out), MRE_PARSE_OK);
	buf[52 + 16] = 9;			/* aop */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl, &out), MRE_PARSE_FIELD);
	/* a single-packet op that is not FIRST|LAST */
	in = data_pkt(MRE_OP_NAK);
	hl = mre_wire_put(buf, &in);
	buf[49] = MRE_DF_FIRST;
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl, &out), MRE_PARSE_FLAGS);
	/* a NAK may only carry a message syndrome, not a refusal */
	buf[49] = MRE_DF_FIRST | MRE_DF_LAST;
	put_be32(buf + 52, MRE_SYN_RNR);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl, &out), MRE_PARSE_FIELD);
}

/*
 * ATOMIC_WRITE is 8 bytes; a FLUSH names a placement type, no unknown
 * flag, no range with the whole MR, and no reserved byte set.
 */
MRE_TEST(wire_atomic_write_flush)
{
	struct mre_pkt in = data_pkt(MRE_OP_ATOMIC_WRITE_REQ), out;
	u8 buf[256] = { 0 };
	u32 hl = mre_wire_put(buf, &in);

	MRE_EXPECT_EQ(test, hl, MRE_DATA_LEN + MRE_EXT_ATOMIC_WRITE_LEN);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl, &out), MRE_PARSE_OK);
	MRE_EXPECT_EQ(test, get_be64(buf + 68), in.data.swap_add);
	put_be32(buf + 44, 16);			/* mlen */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl, &out), MRE_PARSE_FIELD);
	in = data_pkt(MRE_OP_FLUSH_REQ);
	hl = mre_wire_put(buf, &in);
	MRE_EXPECT_EQ(test, hl, MRE_DATA_LEN + MRE_EXT_FLUSH_LEN);
	MRE_EXPECT_EQ(test, buf[68], MRE_FLUSH_GLOBAL | MRE_FLUSH_PERSISTENT);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl, &out), MRE_PARSE_OK);
	MRE_EXPECT_EQ(test, out.data.mlen, 8192);
	buf[68] = 0;				/* no placement type */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl, &out), MRE_PARSE_FIELD);
	buf[68] = MRE_FLUSH_GLOBAL | 0x04;	/* unknown flag */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl, &out), MRE_PARSE_FIELD);
	buf[68] = MRE_FLUSH_GLOBAL | MRE_FLUSH_MR;	/* with a range */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl, &out), MRE_PARSE_FIELD);
	put_be64(buf + 52, 0);
	put_be32(buf + 44, 0);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl, &out), MRE_PARSE_OK);
	buf[70] = 1;				/* reserved */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl, &out), MRE_PARSE_FIELD);
	buf[70] = 0;
	buf[49] = MRE_DF_FIRST;			/* one packet: FIRST|LAST */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl, &out), MRE_PARSE_FLAGS);
}

/* SEND with invalidate: the imm field is the rkey; not with IMM, SEND only */
MRE_TEST(wire_send_inv)
{
	struct mre_pkt in = data_pkt(MRE_OP_SEND), out;
	u8 buf[256] = { 0 };
	u32 hl;

	in.data.dflags = MRE_DF_LAST | MRE_DF_RECV | MRE_DF_INV;
	in.data.imm = 0x12345678;
	hl = mre_wire_put(buf, &in);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl + in.data.plen, &out),
		      MRE_PARSE_OK);
	MRE_EXPECT_EQ(test, out.data.dflags, in.data.dflags);
	MRE_EXPECT_EQ(test, out.data.imm, 0x12345678);
	buf[49] |= MRE_DF_IMM;			/* both: which is imm? */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl + in.data.plen, &out),
		      MRE_PARSE_FLAGS);
	in = data_pkt(MRE_OP_WRITE);
	in.data.dflags |= MRE_DF_INV;		/* only a SEND invalidates */
	hl = mre_wire_put(buf, &in);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, hl + in.data.plen, &out),
		      MRE_PARSE_FLAGS);
}

/* every single-byte corruption is either refused or parses consistently */
MRE_TEST(wire_mutations)
{
	u64 rng = mre_test_seed(test);
	u8 op, buf[256], ref[256];
	u32 ok = 0, bad = 0, i, k;

	for (op = 1; op < MRE_OP_MAX; op++) {
		struct mre_pkt in = data_pkt(op), out;
		u32 len = mre_wire_put(ref, &in) + in.data.plen;

		for (k = 0; k < 200; k++) {
			mre_memcpy(buf, ref, sizeof(buf));
			i = (u32)(mdl_rand(&rng) % len);
			buf[i] ^= (u8)(1 + mdl_rand(&rng) % 255);
			if (mre_wire_parse(buf, len, &out) != MRE_PARSE_OK) {
				bad++;
				continue;
			}
			ok++;
			/* whatever parses obeys the invariants others rely on */
			MRE_EXPECT(test, out.hdr_len <= len);
			if (out.type == MRE_T_DATA) {
				MRE_EXPECT(test, out.hdr_len + out.data.plen == len);
				MRE_EXPECT(test, out.data.offset + out.data.plen <=
					   out.data.mlen);
				MRE_EXPECT(test, out.path < MRE_MAX_PATHS);
			}
		}
	}
	MRE_EXPECT_GE(test, ok, 1);
	MRE_EXPECT_GE(test, bad, 1);
}


/* CHALLENGE and ECHO: one size, a nonce never 0, a plane of a blob */
MRE_TEST(wire_proof_roundtrip)
{
	u8 buf[64] = { 0 };
	struct mre_pkt in = {
		.type = MRE_T_CHALLENGE, .path = 7, .dst_cid = 0x55,
		.ts = 9, .proof = { .nonce = 0x0102030405060708ULL, .plane = 3 },
	}, out;
	u32 len = mre_wire_put(buf, &in);

	MRE_EXPECT_EQ(test, len, MRE_PLANE_PKT_LEN);
	MRE_ASSERT(test, mre_wire_parse(buf, len, &out) == MRE_PARSE_OK);
	MRE_EXPECT_EQ(test, out.type, MRE_T_CHALLENGE);
	MRE_EXPECT_EQ(test, out.proof.nonce, in.proof.nonce);
	MRE_EXPECT_EQ(test, out.proof.plane, 3);
	in.type = MRE_T_ECHO;
	MRE_EXPECT_EQ(test, mre_wire_put(buf, &in), len);	/* as large */
	MRE_ASSERT(test, mre_wire_parse(buf, len, &out) == MRE_PARSE_OK);
	MRE_EXPECT_EQ(test, out.type, MRE_T_ECHO);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len - 1, &out), MRE_PARSE_SHORT);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len + 1, &out), MRE_PARSE_LEN);
	buf[MRE_COMMON_LEN + 9] = 1;			/* reserved */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_FIELD);
	buf[MRE_COMMON_LEN + 9] = 0;
	buf[MRE_COMMON_LEN + 8] = MRE_BLOB_MAX_PLANES;	/* no such plane */
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_FIELD);
	in.proof.nonce = 0;
	mre_wire_put(buf, &in);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_FIELD);
	in.proof.nonce = 1;
	in.dst_cid = 0;
	mre_wire_put(buf, &in);
	MRE_EXPECT_EQ(test, mre_wire_parse(buf, len, &out), MRE_PARSE_FIELD);
}

MRE_SUITE(wire,
	  MRE_CASE(wire_data_roundtrip),
	  MRE_CASE(wire_ack_roundtrip),
	  MRE_CASE(wire_connect_roundtrip),
	  MRE_CASE(wire_proof_roundtrip),
	  MRE_CASE(wire_parity),
	  MRE_CASE(wire_rejects),
	  MRE_CASE(wire_no_payload_ops),
	  MRE_CASE(wire_atomic_write_flush),
	  MRE_CASE(wire_send_inv),
	  MRE_CASE(wire_mutations));
