// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE wire format: the only code that reads or writes packet bytes.
 *
 * mre_wire_parse() checks a received datagram completely (version, type,
 * every length, every enumerated field) and returns it decoded; nothing
 * after it trusts a packet byte. mre_wire_put() is its inverse for headers.
 * Offsets below are those of Documentation/protocol.md.
 */
#include "wire.h"

/* DATA header offsets (after the 20-byte common header) */
enum {
	D_TSN = 20, D_PATH_UNA = 24, D_DST_STREAM = 28, D_SRC_STREAM = 32,
	D_MSN = 36, D_OFFSET = 40, D_MLEN = 44, D_OP = 48, D_DFLAGS = 49,
	D_PLEN = 50, D_EXT = 52,
};

static const u8 data_ext_len[MRE_OP_MAX] = {
	[MRE_OP_SEND]		= MRE_EXT_SEND_LEN,
	[MRE_OP_WRITE]		= MRE_EXT_WRITE_LEN,
	[MRE_OP_READ_REQ]	= MRE_EXT_READ_REQ_LEN,
	[MRE_OP_READ_RESP]	= MRE_EXT_READ_RESP_LEN,
	[MRE_OP_ATOMIC_REQ]	= MRE_EXT_ATOMIC_REQ_LEN,
	[MRE_OP_ATOMIC_RESP]	= MRE_EXT_ATOMIC_RESP_LEN,
	[MRE_OP_NAK]		= MRE_EXT_NAK_LEN,
	[MRE_OP_NOP]		= MRE_EXT_NOP_LEN,
	[MRE_OP_ATOMIC_WRITE_REQ] = MRE_EXT_ATOMIC_WRITE_LEN,
	[MRE_OP_FLUSH_REQ]	= MRE_EXT_FLUSH_LEN,
};

/* which DATA ops may carry a payload, and which dflags each may use */
static const u8 data_op_flags[MRE_OP_MAX] = {
	[MRE_OP_SEND]		= MRE_DF_FIRST | MRE_DF_LAST | MRE_DF_IMM |
				  MRE_DF_SOLICIT | MRE_DF_RECV | MRE_DF_INV,
	[MRE_OP_WRITE]		= MRE_DF_FIRST | MRE_DF_LAST | MRE_DF_IMM |
				  MRE_DF_SOLICIT | MRE_DF_RECV,
	[MRE_OP_READ_REQ]	= MRE_DF_FIRST | MRE_DF_LAST,
	[MRE_OP_READ_RESP]	= MRE_DF_FIRST | MRE_DF_LAST,
	[MRE_OP_ATOMIC_REQ]	= MRE_DF_FIRST | MRE_DF_LAST,
	[MRE_OP_ATOMIC_RESP]	= MRE_DF_FIRST | MRE_DF_LAST,
	[MRE_OP_NAK]		= MRE_DF_FIRST | MRE_DF_LAST,
	[MRE_OP_NOP]		= MRE_DF_FIRST | MRE_DF_LAST,
	[MRE_OP_ATOMIC_WRITE_REQ] = MRE_DF_FIRST | MRE_DF_LAST,
	[MRE_OP_FLUSH_REQ]	= MRE_DF_FIRST | MRE_DF_LAST,
};

static const bool data_op_payload[MRE_OP_MAX] = {
	[MRE_OP_SEND] = true, [MRE_OP_WRITE] = true, [MRE_OP_READ_RESP] = true,
};

static const char *const type_names[MRE_T_MAX] = {
	[MRE_T_DATA] = "DATA", [MRE_T_ACK] = "ACK", [MRE_T_CONNECT] = "CONNECT",
	[MRE_T_ACCEPT] = "ACCEPT", [MRE_T_RESET] = "RESET",
	[MRE_T_PROBE] = "PROBE", [MRE_T_UD] = "UD", [MRE_T_RETRY] = "RETRY",
	[MRE_T_CHALLENGE] = "CHALLENGE", [MRE_T_ECHO] = "ECHO",
	[MRE_T_PARITY] = "PARITY",
};

static const char *const op_names[MRE_OP_MAX] = {
	[MRE_OP_SEND] = "SEND", [MRE_OP_WRITE] = "WRITE",
	[MRE_OP_READ_REQ] = "READ_REQ", [MRE_OP_READ_RESP] = "READ_RESP",
	[MRE_OP_ATOMIC_REQ] = "ATOMIC_REQ", [MRE_OP_ATOMIC_RESP] = "ATOMIC_RESP",
	[MRE_OP_NAK] = "NAK", [MRE_OP_NOP] = "NOP",
	[MRE_OP_ATOMIC_WRITE_REQ] = "ATOMIC_WRITE_REQ",
	[MRE_OP_FLUSH_REQ] = "FLUSH_REQ",
};

const char *mre_wire_type_name(u8 type)
{
	return type < MRE_T_MAX && type_names[type] ? type_names[type] : "?";
}

const char *mre_wire_op_name(u8 op)
{
	return op < MRE_OP_MAX && op_names[op] ? op_names[op] : "?";
}

u32 mre_wire_data_hdr_len(u8 op)
{
	if (op == 0 || op >= MRE_OP_MAX)
		return 0;
	return MRE_DATA_LEN + data_ext_len[op];
}

/*
 * The extension of a request that takes a read/atomic slot (READ, ATOMIC,
 * ATOMIC_WRITE, FLUSH): raddr, rkey and rdsn first, then the op's own.
 * Non-zero when a field is out of range.
 */
static int parse_answered(const u8 *x, struct mre_pkt_data *d)
{
	d->raddr = get_be64(x);
	d->rkey = get_be32(x + 8);
	d->rdsn = get_be32(x + 12);
	switch (d->op) {
	case MRE_OP_READ_REQ:
		/* the READ's length travels in mlen; x + 16 is reserved */
		return get_be32(x + 16) || d->raddr + d->mlen < d->raddr;
	case MRE_OP_ATOMIC_REQ:
		d->aop = x[16];
		d->swap_add = get_be64(x + 20);
		d->compare = get_be64(x + 28);
		return (x[17] | x[18] | x[19]) || d->mlen != 8 ||
		       (d->aop != MRE_AOP_CMP_SWP &&
			d->aop != MRE_AOP_FETCH_ADD);
	case MRE_OP_ATOMIC_WRITE_REQ:
		d->swap_add = get_be64(x + 16);
		return d->mlen != 8;
	}
	/* FLUSH: a placement type at least; the whole MR names no range */
	d->fflags = x[16];
	return (x[17] | x[18] | x[19]) || d->fflags & ~MRE_FLUSH_ALL ||
	       !(d->fflags & (MRE_FLUSH_GLOBAL | MRE_FLUSH_PERSISTENT)) ||
	       (d->fflags & MRE_FLUSH_MR && (d->raddr || d->mlen)) ||
	       d->raddr + d->mlen < d->raddr;
}

static enum mre_parse_err parse_data(const u8 *b, u32 len, struct mre_pkt *p)
{
	struct mre_pkt_data *d = &p->data;
	const u8 *x = b + D_EXT;
	u32 hl;

	if (len < MRE_DATA_LEN)
		return MRE_PARSE_SHORT;
	d->tsn = get_be32(b + D_TSN);
	d->path_una = get_be32(b + D_PATH_UNA);
	d->dst_stream = get_be32(b + D_DST_STREAM);
	d->src_stream = get_be32(b + D_SRC_STREAM);
	d->msn = get_be32(b + D_MSN);
	d->offset = get_be32(b + D_OFFSET);
	d->mlen = get_be32(b + D_MLEN);
	d->op = b[D_OP];
	d->dflags = b[D_DFLAGS];
	d->plen = get_be16(b + D_PLEN);
	hl = mre_wire_data_hdr_len(d->op);
	if (!hl)
		return MRE_PARSE_FIELD;
	if (d->dflags & ~data_op_flags[d->op])
		return MRE_PARSE_FLAGS;
	if (len < hl)
		return MRE_PARSE_SHORT;
	if (hl + d->plen != len)
		return MRE_PARSE_LEN;
	if (d->plen && !data_op_payload[d->op])
		return MRE_PARSE_LEN;
	if (d->plen > MRE_MAX_PAYLOAD)
		return MRE_PARSE_LEN;
	/* the payload lies inside its message */
	if (d->offset > d->mlen || d->plen > d->mlen - d->offset)
		return MRE_PARSE_FIELD;
	switch (d->op) {
	case MRE_OP_SEND:
		/* imm carries immediate data or the rkey to invalidate */
		if (!(d->dflags & MRE_DF_RECV) ||
		    (d->dflags & (MRE_DF_IMM | MRE_DF_INV)) ==
		    (MRE_DF_IMM | MRE_DF_INV))
			return MRE_PARSE_FLAGS;
		d->rsn = get_be32(x);
		d->imm = get_be32(x + 4);
		break;
	case MRE_OP_WRITE:
		/* a WRITE consumes a receive WQE exactly when it carries imm */
		if (!!(d->dflags & MRE_DF_RECV) != !!(d->dflags & MRE_DF_IMM))
			return MRE_PARSE_FLAGS;
		d->raddr = get_be64(x);
		d->rkey = get_be32(x + 8);
		d->rsn = get_be32(x + 12);
		d->imm = get_be32(x + 16);
		if (d->raddr + d->mlen < d->raddr)
			return MRE_PARSE_FIELD;
		break;
	case MRE_OP_READ_REQ:
	case MRE_OP_ATOMIC_REQ:
	case MRE_OP_ATOMIC_WRITE_REQ:
	case MRE_OP_FLUSH_REQ:
		if (parse_answered(x, d))
			return MRE_PARSE_FIELD;
		break;
	case MRE_OP_READ_RESP:
		d->rdsn = get_be32(x);
		break;
	case MRE_OP_ATOMIC_RESP:
		d->rdsn = get_be32(x);
		d->orig = get_be64(x + 4);
		break;
	case MRE_OP_NAK:
		d->syndrome = get_be32(x);
		if (d->syndrome < MRE_SYN_NO_STREAM || d->syndrome > MRE_SYN_REM_OP)
			return MRE_PARSE_FIELD;
		break;
	}
	/* single-packet operations are both first and last */
	if (d->op != MRE_OP_SEND && d->op != MRE_OP_WRITE &&
	    d->op != MRE_OP_READ_RESP &&
	    (d->dflags & (MRE_DF_FIRST | MRE_DF_LAST)) !=
	    (MRE_DF_FIRST | MRE_DF_LAST))
		return MRE_PARSE_FLAGS;
	p->hdr_len = hl;
	p->payload = b + hl;
	/*
	 * A PARITY has a WRITE's DATA header: the first packet it covers
	 * (tsn, offset), the message's last packet's flags, and plen the
	 * stride, its payload's length. It covers the packets from offset
	 * to the message's end, plen bytes each (the last may be shorter),
	 * at most MRE_PARITY_MAX.
	 */
	if (p->type == MRE_T_PARITY &&
	    (d->op != MRE_OP_WRITE || !(d->dflags & MRE_DF_LAST) || !d->plen ||
	     d->offset >= d->mlen ||
	     (d->mlen - d->offset - 1) / d->plen >= MRE_PARITY_MAX))
		return MRE_PARSE_FIELD;
	return MRE_PARSE_OK;
}

static enum mre_parse_err parse_ack(const u8 *b, u32 len, struct mre_pkt *p)
{
	struct mre_pkt_ack *a = &p->ack;
	const u8 *x = b + MRE_COMMON_LEN;
	int i;

	if (len < MRE_ACK_LEN)
		return MRE_PARSE_SHORT;
	if (len != MRE_ACK_LEN)
		return MRE_PARSE_LEN;
	a->ack_path = get_be16(x);
	a->nak = x[2];
	a->aflags = x[3];
	a->psn_cum = get_be32(x + 4);
	for (i = 0; i < MRE_SACK_WORDS; i++)
		a->sack[i] = get_be32(x + 8 + 4 * i);
	x += 8 + 4 * MRE_SACK_WORDS;
	a->tsn_cum = get_be32(x);
	a->tsn_sack = get_be64(x + 4);
	a->ts_echo = get_be32(x + 12);
	a->ack_delay = get_be32(x + 16);
	a->ce_count = get_be32(x + 20);
	a->rate_hint = get_be32(x + 24);
	a->rnr_delay = get_be32(x + 28);
	a->dup_count = get_be32(x + 32);
	a->nak_mark = get_be32(x + 36);
	if (a->ack_path >= MRE_MAX_PATHS || a->nak >= MRE_SYN_MAX ||
	    (a->aflags & ~MRE_AF_MARK))
		return MRE_PARSE_FIELD;
	p->hdr_len = len;
	return MRE_PARSE_OK;
}

static enum mre_parse_err parse_connect(const u8 *b, u32 len,
					struct mre_pkt *p)
{
	struct mre_pkt_connect *c = &p->connect;
	const u8 *x = b + MRE_COMMON_LEN;

	if (len < MRE_CONNECT_LEN)
		return MRE_PARSE_SHORT;
	c->src_cid = get_be64(x);
	c->isn = get_be32(x + 8);
	c->window_log2 = x[12];
	c->npaths = x[13];
	c->blob_len = get_be16(x + 14);
	c->cflags = get_be32(x + 16);
	c->cookie = get_be64(x + 20);
	if (c->blob_len > MRE_MAX_BLOB || MRE_CONNECT_LEN + (u32)c->blob_len != len)
		return MRE_PARSE_LEN;
	if (!c->src_cid || c->window_log2 < 4 || c->window_log2 > 16 ||
	    !c->npaths || c->npaths > MRE_MAX_PATHS ||
	    c->cflags & ~MRE_CF_ALL ||
	    (p->type == MRE_T_ACCEPT && c->cookie))
		return MRE_PARSE_FIELD;
	/* CONNECT opens (no id yet), ACCEPT answers one */
	if ((p->type == MRE_T_CONNECT) != (p->dst_cid == 0))
		return MRE_PARSE_FIELD;
	c->blob = b + MRE_CONNECT_LEN;
	p->hdr_len = len;
	return MRE_PARSE_OK;
}

static enum mre_parse_err parse_ud(const u8 *b, u32 len, struct mre_pkt *p)
{
	struct mre_pkt_ud *u = &p->ud;
	const u8 *x = b + MRE_COMMON_LEN;

	if (len < MRE_UD_LEN)
		return MRE_PARSE_SHORT;
	u->dst_qpn = get_be32(x);
	u->src_qpn = get_be32(x + 4);
	u->qkey = get_be32(x + 8);
	u->imm = get_be32(x + 12);
	u->udflags = x[16];
	u->plen = get_be16(x + 18);
	if (x[17] || (u->udflags & ~(MRE_DF_IMM | MRE_DF_SOLICIT)))
		return MRE_PARSE_FLAGS;
	if (MRE_UD_LEN + (u32)u->plen != len || u->plen > MRE_MAX_PAYLOAD)
		return MRE_PARSE_LEN;
	if (p->dst_cid)
		return MRE_PARSE_FIELD;
	p->hdr_len = MRE_UD_LEN;
	p->payload = b + MRE_UD_LEN;
	return MRE_PARSE_OK;
}

/* CHALLENGE and ECHO: a nonce and the plane it tests, on a connection */
static enum mre_parse_err parse_proof(const u8 *b, u32 len, struct mre_pkt *p)
{
	const u8 *x = b + MRE_COMMON_LEN;

	if (len != MRE_PLANE_PKT_LEN)
		return len < MRE_PLANE_PKT_LEN ? MRE_PARSE_SHORT : MRE_PARSE_LEN;
	p->proof.nonce = get_be64(x);
	p->proof.plane = x[8];
	p->hdr_len = len;
	if (x[9] | x[10] | x[11])
		return MRE_PARSE_FIELD;
	if (!p->dst_cid || !p->proof.nonce ||
	    p->proof.plane >= MRE_BLOB_MAX_PLANES)
		return MRE_PARSE_FIELD;
	return MRE_PARSE_OK;
}

enum mre_parse_err mre_wire_parse(const u8 *b, u32 len, struct mre_pkt *p)
{
	if (len < MRE_COMMON_LEN)
		return MRE_PARSE_SHORT;
	if (b[0] >> 4 != MRE_WIRE_VERSION)
		return MRE_PARSE_VERSION;
	p->type = b[0] & 0xf;
	p->flags = b[1];
	p->path = get_be16(b + 2);
	p->dst_cid = get_be64(b + 4);
	p->psn = get_be32(b + 12);
	p->ts = get_be32(b + 16);
	p->payload = NULL;
	if (p->type == 0 || p->type >= MRE_T_MAX)
		return MRE_PARSE_TYPE;
	if (p->flags & ~MRE_F_ALL)
		return MRE_PARSE_FLAGS;
	if (p->path >= MRE_MAX_PATHS)
		return MRE_PARSE_FIELD;
	switch (p->type) {
	case MRE_T_DATA:
	case MRE_T_PARITY:
		if (!p->dst_cid)
			return MRE_PARSE_FIELD;
		return parse_data(b, len, p);
	case MRE_T_ACK:
		if (!p->dst_cid)
			return MRE_PARSE_FIELD;
		return parse_ack(b, len, p);
	case MRE_T_CONNECT:
	case MRE_T_ACCEPT:
		return parse_connect(b, len, p);
	case MRE_T_RESET:
		if (len != MRE_RESET_LEN)
			return len < MRE_RESET_LEN ? MRE_PARSE_SHORT : MRE_PARSE_LEN;
		p->reset.cid = get_be64(b + MRE_COMMON_LEN);
		p->reset.reason = get_be32(b + MRE_COMMON_LEN + 8);
		p->hdr_len = len;
		return p->reset.cid ? MRE_PARSE_OK : MRE_PARSE_FIELD;
	case MRE_T_RETRY:
		if (len != MRE_RETRY_LEN)
			return len < MRE_RETRY_LEN ? MRE_PARSE_SHORT : MRE_PARSE_LEN;
		p->retry.cookie = get_be64(b + MRE_COMMON_LEN);
		p->hdr_len = len;
		/* it answers the CONNECT of connection dst_cid */
		return p->dst_cid && p->retry.cookie ? MRE_PARSE_OK :
						       MRE_PARSE_FIELD;
	case MRE_T_PROBE:
		if (len != MRE_PROBE_LEN)
			return len < MRE_PROBE_LEN ? MRE_PARSE_SHORT : MRE_PARSE_LEN;
		if (!p->dst_cid)
			return MRE_PARSE_FIELD;
		p->probe.path_una = get_be32(b + MRE_COMMON_LEN);
		p->hdr_len = len;
		return MRE_PARSE_OK;
	case MRE_T_UD:
		return parse_ud(b, len, p);
	case MRE_T_CHALLENGE:
	case MRE_T_ECHO:
		return parse_proof(b, len, p);
	}
	return MRE_PARSE_TYPE;
}

static u32 put_data(u8 *b, const struct mre_pkt *p)
{
	const struct mre_pkt_data *d = &p->data;
	u8 *x = b + D_EXT;
	u32 hl = mre_wire_data_hdr_len(d->op);

	put_be32(b + D_TSN, d->tsn);
	put_be32(b + D_PATH_UNA, d->path_una);
	put_be32(b + D_DST_STREAM, d->dst_stream);
	put_be32(b + D_SRC_STREAM, d->src_stream);
	put_be32(b + D_MSN, d->msn);
	put_be32(b + D_OFFSET, d->offset);
	put_be32(b + D_MLEN, d->mlen);
	b[D_OP] = d->op;
	b[D_DFLAGS] = d->dflags;
	put_be16(b + D_PLEN, d->plen);
	switch (d->op) {
	case MRE_OP_SEND:
		put_be32(x, d->rsn);
		put_be32(x + 4, d->imm);
		break;
	case MRE_OP_WRITE:
		put_be64(x, d->raddr);
		put_be32(x + 8, d->rkey);
		put_be32(x + 12, d->rsn);
		put_be32(x + 16, d->imm);
		break;
	case MRE_OP_READ_REQ:
		put_be64(x, d->raddr);
		put_be32(x + 8, d->rkey);
		put_be32(x + 12, d->rdsn);
		put_be32(x + 16, 0);
		break;
	case MRE_OP_READ_RESP:
		put_be32(x, d->rdsn);
		break;
	case MRE_OP_ATOMIC_REQ:
		put_be64(x, d->raddr);
		put_be32(x + 8, d->rkey);
		put_be32(x + 12, d->rdsn);
		x[16] = d->aop;
		x[17] = x[18] = x[19] = 0;
		put_be64(x + 20, d->swap_add);
		put_be64(x + 28, d->compare);
		break;
	case MRE_OP_ATOMIC_RESP:
		put_be32(x, d->rdsn);
		put_be64(x + 4, d->orig);
		break;
	case MRE_OP_ATOMIC_WRITE_REQ:
		put_be64(x, d->raddr);
		put_be32(x + 8, d->rkey);
		put_be32(x + 12, d->rdsn);
		put_be64(x + 16, d->swap_add);
		break;
	case MRE_OP_FLUSH_REQ:
		put_be64(x, d->raddr);
		put_be32(x + 8, d->rkey);
		put_be32(x + 12, d->rdsn);
		x[16] = d->fflags;
		x[17] = x[18] = x[19] = 0;
		break;
	case MRE_OP_NAK:
		put_be32(x, d->syndrome);
		break;
	}
	return hl;
}

static u32 put_ack(u8 *b, const struct mre_pkt *p)
{
	const struct mre_pkt_ack *a = &p->ack;
	u8 *x = b + MRE_COMMON_LEN;
	int i;

	put_be16(x, a->ack_path);
	x[2] = a->nak;
	x[3] = a->aflags;
	put_be32(x + 4, a->psn_cum);
	for (i = 0; i < MRE_SACK_WORDS; i++)
		put_be32(x + 8 + 4 * i, a->sack[i]);
	x += 8 + 4 * MRE_SACK_WORDS;
	put_be32(x, a->tsn_cum);
	put_be64(x + 4, a->tsn_sack);
	put_be32(x + 12, a->ts_echo);
	put_be32(x + 16, a->ack_delay);
	put_be32(x + 20, a->ce_count);
	put_be32(x + 24, a->rate_hint);
	put_be32(x + 28, a->rnr_delay);
	put_be32(x + 32, a->dup_count);
	put_be32(x + 36, a->nak_mark);
	return MRE_ACK_LEN;
}

static u32 put_connect(u8 *b, const struct mre_pkt *p)
{
	const struct mre_pkt_connect *c = &p->connect;
	u8 *x = b + MRE_COMMON_LEN;

	put_be64(x, c->src_cid);
	put_be32(x + 8, c->isn);
	x[12] = c->window_log2;
	x[13] = c->npaths;
	put_be16(x + 14, c->blob_len);
	put_be32(x + 16, c->cflags);
	put_be64(x + 20, c->cookie);
	if (c->blob_len)
		mre_memcpy(b + MRE_CONNECT_LEN, c->blob, c->blob_len);
	return MRE_CONNECT_LEN + c->blob_len;
}

u32 mre_wire_put(u8 *b, const struct mre_pkt *p)
{
	u8 *x = b + MRE_COMMON_LEN;

	b[0] = MRE_WIRE_VERSION << 4 | (p->type & 0xf);
	b[1] = p->flags;
	put_be16(b + 2, p->path);
	put_be64(b + 4, p->dst_cid);
	put_be32(b + 12, p->psn);
	put_be32(b + 16, p->ts);
	switch (p->type) {
	case MRE_T_DATA:
	case MRE_T_PARITY:
		return put_data(b, p);
	case MRE_T_ACK:
		return put_ack(b, p);
	case MRE_T_CONNECT:
	case MRE_T_ACCEPT:
		return put_connect(b, p);
	case MRE_T_RESET:
		put_be64(x, p->reset.cid);
		put_be32(x + 8, p->reset.reason);
		return MRE_RESET_LEN;
	case MRE_T_RETRY:
		put_be64(x, p->retry.cookie);
		return MRE_RETRY_LEN;
	case MRE_T_PROBE:
		put_be32(x, p->probe.path_una);
		put_be32(x + 4, 0);
		return MRE_PROBE_LEN;
	case MRE_T_UD:
		put_be32(x, p->ud.dst_qpn);
		put_be32(x + 4, p->ud.src_qpn);
		put_be32(x + 8, p->ud.qkey);
		put_be32(x + 12, p->ud.imm);
		x[16] = p->ud.udflags;
		x[17] = 0;
		put_be16(x + 18, p->ud.plen);
		return MRE_UD_LEN;
	case MRE_T_CHALLENGE:
	case MRE_T_ECHO:
		put_be64(x, p->proof.nonce);
		x[8] = p->proof.plane;
		x[9] = x[10] = x[11] = 0;
		return MRE_PLANE_PKT_LEN;
	}
	return 0;
}

u32 mre_addr_len(u8 family)
{
	return family == MRE_AF_INET ? 4 : family == MRE_AF_INET6 ? 16 : 0;
}

bool mre_addr_eq(const struct mre_addr *a, const struct mre_addr *b)
{
	u32 i, n = mre_addr_len(a->family);

	if (a->family != b->family)
		return false;
	for (i = 0; i < n; i++)
		if (a->a[i] != b->a[i])
			return false;
	return true;
}

bool mre_addr_is_group(const struct mre_addr *a)
{
	return (a->family == MRE_AF_INET && (a->a[0] & 0xf0) == 0xe0) ||
	       (a->family == MRE_AF_INET6 && a->a[0] == 0xff);
}

u32 mre_wire_blob_put(u8 *buf, u8 family, u32 n, const struct mre_addr *addrs)
{
	u32 alen = mre_addr_len(family), k;

	if (!alen || !n || n > MRE_BLOB_MAX_PLANES)
		return 0;
	buf[0] = MRE_BLOB_VERSION;
	buf[1] = family;
	buf[2] = (u8)n;
	buf[3] = 0;
	for (k = 0; k < n; k++) {
		u8 *p = buf + MRE_BLOB_LEN(k, alen);

		if (addrs[k].family == family)
			mre_memcpy(p, addrs[k].a, alen);
		else
			mre_memset(p, 0, alen);	/* none: the peer skips it */
	}
	return MRE_BLOB_LEN(n, alen);
}

u32 mre_wire_blob_parse(const u8 *blob, u32 len, u8 family,
			struct mre_addr *addrs)
{
	u32 alen = mre_addr_len(family), n, k, i;

	if (!alen || len < MRE_BLOB_LEN(0, 0) || blob[0] != MRE_BLOB_VERSION ||
	    blob[1] != family)
		return 0;
	n = blob[2];
	if (!n || n > MRE_BLOB_MAX_PLANES || len < MRE_BLOB_LEN(n, alen))
		return 0;
	for (k = 0; k < n; k++) {
		const u8 *p = blob + MRE_BLOB_LEN(k, alen);

		mre_memset(&addrs[k], 0, sizeof(addrs[k]));
		for (i = 0; i < alen && !p[i]; i++)
			;
		if (i == alen)
			continue;		/* all zeros: the peer has none */
		addrs[k].family = family;
		mre_memcpy(addrs[k].a, p, alen);
	}
	return n;
}
