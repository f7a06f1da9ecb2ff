/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE wire format, version 2 (specification draft 1).
 *
 * This header and Documentation/protocol.md describe the same thing and are
 * changed together, with the Wireshark dissector tools/wireshark/mroce.lua
 * (make wireshark-check). Names here are the names the document uses.
 *
 * Every MetaRoCE packet is the payload of one UDP datagram sent to the
 * receiver's MetaRoCE port. All fields are big-endian. A packet is a 20-byte
 * common header followed by a type-specific body:
 *
 *	 0               1               2               3
 *	+-------+-------+---------------+-------------------------------+
 *	|  ver  | type  |     flags     |             path              |
 *	+-------+-------+---------------+-------------------------------+
 *	|                       dst_cid (64 bits)                       |
 *	|                                                               |
 *	+---------------------------------------------------------------+
 *	|                              psn                              |
 *	+---------------------------------------------------------------+
 *	|                              ts                               |
 *	+---------------------------------------------------------------+
 *
 * The engine never reads or writes a field except through mre_wire_parse()
 * and mre_wire_put() in wire.c; a received packet is fully validated by
 * mre_wire_parse() before any other code looks at it. The plane blob that
 * CONNECT and ACCEPT carry (protocol.md 4.4) is read and written only by
 * mre_wire_blob_parse() and mre_wire_blob_put().
 */
#ifndef MRE_WIRE_H
#define MRE_WIRE_H

#include "mre_types.h"

#define MRE_WIRE_VERSION	2	/* 0 is reserved: a zeroed buffer is never valid */
#define MRE_DEFAULT_UDP_PORT	4796	/* not 4791 (RoCEv2) nor 4793 (UET) */

enum mre_pkt_type {
	MRE_T_DATA	= 1,	/* sequenced, carries a TSN: the reliable channel */
	MRE_T_ACK	= 2,	/* per-path SACK + connection TSN state + CC feedback */
	MRE_T_CONNECT	= 3,	/* open a connection (dst_cid = 0) */
	MRE_T_ACCEPT	= 4,	/* answer to CONNECT */
	MRE_T_RESET	= 5,	/* "I have no connection with that id" */
	MRE_T_PROBE	= 6,	/* sequenced on a path, no TSN: liveness of a path */
	MRE_T_UD	= 7,	/* unreliable datagram (UD QPs), no connection */
	MRE_T_RETRY	= 8,	/* answer to a CONNECT without a valid cookie */
	MRE_T_CHALLENGE	= 9,	/* a nonce to a plane address the peer claimed */
	MRE_T_ECHO	= 10,	/* the nonce back: that address is the peer's */
	MRE_T_PARITY	= 11,	/* sequenced on a path, no TSN: a WRITE tail's XOR */
	MRE_T_MAX
};

/* common header flags */
#define MRE_F_ACK_REQ	0x01	/* receiver: acknowledge this path now */
#define MRE_F_RETX	0x02	/* this transmission is a retransmission */
#define MRE_F_ALL	0x03

/* CONNECT and ACCEPT flags (the "cflags" field) */
#define MRE_CF_PARITY	0x01	/* the sender takes PARITY packets (6.7) */
#define MRE_CF_ALL	0x01

/* ACK flags (the "aflags" field) */
#define MRE_AF_MARK	0x01	/* nak_mark is valid */

/* DATA operation codes (the "op" field) */
enum mre_op {
	MRE_OP_SEND		= 1,
	MRE_OP_WRITE		= 2,
	MRE_OP_READ_REQ		= 3,
	MRE_OP_READ_RESP	= 4,
	MRE_OP_ATOMIC_REQ	= 5,
	MRE_OP_ATOMIC_RESP	= 6,
	MRE_OP_NAK		= 7,	/* a message failed at the responder */
	MRE_OP_NOP		= 8,	/* fills a TSN whose stream is gone */
	MRE_OP_ATOMIC_WRITE_REQ	= 9,	/* an 8-byte store; ATOMIC_RESP answers */
	MRE_OP_FLUSH_REQ	= 10,	/* placement barrier; ATOMIC_RESP answers */
	MRE_OP_MAX
};

/* DATA flags (the "dflags" field) */
#define MRE_DF_FIRST	0x01	/* first packet of its message */
#define MRE_DF_LAST	0x02	/* last packet of its message */
#define MRE_DF_IMM	0x04	/* SEND/WRITE carries immediate data */
#define MRE_DF_SOLICIT	0x08	/* solicited event */
#define MRE_DF_RECV	0x10	/* message consumes a receive WQE (rsn valid) */
#define MRE_DF_INV	0x20	/* SEND: imm is an rkey for the responder to invalidate */
#define MRE_DF_ALL	0x3f

/* ATOMIC_REQ operations */
#define MRE_AOP_CMP_SWP	1
#define MRE_AOP_FETCH_ADD 2

/* FLUSH_REQ flags (the "fflags" field): placement types and selectivity */
#define MRE_FLUSH_GLOBAL	0x01	/* visible to every reader */
#define MRE_FLUSH_PERSISTENT	0x02	/* persistent (as the host defines) */
#define MRE_FLUSH_MR		0x10	/* the whole MR; raddr, mlen 0 */
#define MRE_FLUSH_ALL		0x13

/* NAK syndromes (DATA op NAK) and TSN rejection reasons (ACK nak field) */
enum mre_syndrome {
	MRE_SYN_NONE		= 0,
	MRE_SYN_RNR		= 1,	/* TSN rejected: no receive WQE (retry later) */
	MRE_SYN_NO_STREAM	= 2,	/* NAK: no such stream (requester: retry exceeded) */
	MRE_SYN_REM_ACCESS	= 3,	/* NAK: bad rkey, range or rights */
	MRE_SYN_REM_INV_REQ	= 4,	/* NAK: malformed or unsupported request */
	MRE_SYN_REM_OP		= 5,	/* NAK: responder could not execute */
	MRE_SYN_BUSY		= 6,	/* TSN refused: no resources now (retry) */
	MRE_SYN_MAX
};

/* sizes of the fixed parts */
#define MRE_COMMON_LEN		20
#define MRE_DATA_LEN		52	/* common + data header */
#define MRE_EXT_WRITE_LEN	20	/* raddr, rkey, rsn, imm */
#define MRE_EXT_SEND_LEN	8	/* rsn, imm */
#define MRE_EXT_READ_REQ_LEN	20	/* raddr, rkey, rdsn, len */
#define MRE_EXT_READ_RESP_LEN	4	/* rdsn */
#define MRE_EXT_ATOMIC_REQ_LEN	36	/* raddr, rkey, rdsn, aop, swap, compare */
#define MRE_EXT_ATOMIC_RESP_LEN	12	/* rdsn, orig */
#define MRE_EXT_NAK_LEN		4	/* syndrome */
#define MRE_EXT_NOP_LEN		0
#define MRE_EXT_ATOMIC_WRITE_LEN 24	/* raddr, rkey, rdsn, value */
#define MRE_EXT_FLUSH_LEN	20	/* raddr, rkey, rdsn, fflags */
#define MRE_ACK_LEN		(MRE_COMMON_LEN + 80)
#define MRE_PROBE_LEN		(MRE_COMMON_LEN + 8)
#define MRE_CONNECT_LEN		(MRE_COMMON_LEN + 28)	/* + blob */
#define MRE_RESET_LEN		(MRE_COMMON_LEN + 12)
#define MRE_RETRY_LEN		(MRE_COMMON_LEN + 8)
#define MRE_UD_LEN		(MRE_COMMON_LEN + 20)
#define MRE_PLANE_PKT_LEN	(MRE_COMMON_LEN + 12)	/* CHALLENGE and ECHO alike */
#define MRE_MAX_BLOB		136	/* opaque embedder data in CONNECT/ACCEPT */
#define MRE_MAX_HDR_LEN		72	/* largest header in front of a payload (WRITE) */

#define MRE_SACK_BITS		256	/* per-path selective ACK window */
#define MRE_SACK_WORDS		(MRE_SACK_BITS / 32)
#define MRE_TSN_SACK_BITS	64	/* TSN bitmap carried in each ACK */
#define MRE_MAX_PATHS		64	/* path ids are 0..63 */
#define MRE_MAX_PAYLOAD		4096	/* largest payload in one DATA packet */
#define MRE_PARITY_MAX		64	/* DATA packets one PARITY covers, at most */

/*
 * A packet in host byte order, as mre_wire_parse() returns it and the
 * builders take it. Only the fields of the packet's type are meaningful.
 */
struct mre_pkt {
	/* common header */
	u8 type;
	u8 flags;
	u16 path;
	u64 dst_cid;
	u32 psn;
	u32 ts;
	union {
		struct mre_pkt_data {
			u32 tsn;
			u32 path_una;	/* sender: PSNs below this on path are settled */
			u32 dst_stream;
			u32 src_stream;
			u32 msn;
			u32 offset;	/* of this payload within the message */
			u32 mlen;	/* length of the whole message */
			u8 op;
			u8 dflags;
			u16 plen;	/* payload bytes that follow the header */
			u32 rkey;	/* WRITE and the answered requests */
			u64 raddr;	/* message base address at the responder */
			u32 rsn;	/* receive sequence (DF_RECV) */
			u32 rdsn;	/* read/atomic sequence: READ_*, ATOMIC_*,
					   FLUSH_REQ */
			u32 imm;	/* DF_IMM; DF_INV: the rkey */
			u8 aop;		/* ATOMIC_REQ */
			u64 swap_add;	/* ATOMIC_REQ; ATOMIC_WRITE_REQ: value */
			u64 compare;	/* ATOMIC_REQ */
			u8 fflags;	/* FLUSH_REQ: MRE_FLUSH_* */
			u64 orig;	/* ATOMIC_RESP */
			u32 syndrome;	/* NAK */
		} data;
		struct mre_pkt_ack {
			u16 ack_path;	/* the sender's path this acknowledges */
			u8 nak;		/* enum mre_syndrome: why TSNs were refused */
			u8 aflags;
			u32 psn_cum;	/* next expected PSN on ack_path */
			u32 sack[MRE_SACK_WORDS]; /* bit i: psn_cum + 1 + i arrived */
			u32 tsn_cum;	/* next expected TSN: all before it accepted */
			u64 tsn_sack;	/* bit i: tsn_cum + 1 + i accepted */
			u32 ts_echo;	/* ts of the newest packet seen on ack_path */
			u32 ack_delay;	/* ns between that arrival and this ACK */
			u32 ce_count;	/* CE-marked packets seen on ack_path (wraps) */
			u32 rate_hint;	/* receiver's fair share for this sender, Mbit/s; 0: none */
			u32 rnr_delay;	/* ns to wait before resending refused TSNs */
			u32 dup_count;	/* duplicate TSNs seen on this connection (wraps) */
			u32 nak_mark;	/* (MRE_AF_MARK) one past the TSN of our latest NAK */
		} ack;
		struct mre_pkt_probe {
			u32 path_una;
		} probe;
		struct mre_pkt_connect {
			u64 src_cid;	/* the sender's own connection id */
			u32 isn;	/* the sender's first TSN */
			u8 window_log2;	/* the sender's TSN window (receive side) */
			u8 npaths;
			u16 blob_len;
			u32 cflags;
			u64 cookie;	/* CONNECT: the listener's RETRY cookie; 0: none */
			const u8 *blob;	/* the sender's planes (protocol.md 4.4) */
		} connect;
		struct mre_pkt_reset {
			u64 cid;	/* the connection id that was not found */
			u32 reason;
		} reset;
		struct mre_pkt_retry {
			u64 cookie;	/* to echo in the CONNECT, from the same address */
		} retry;
		struct mre_pkt_proof {	/* CHALLENGE and ECHO */
			u64 nonce;	/* never 0; an ECHO carries its CHALLENGE's */
			u8 plane;	/* the tested address: its index in the blob of
				   the CHALLENGE's receiver (the ECHO's sender) */
		} proof;
		struct mre_pkt_ud {
			u32 dst_qpn;
			u32 src_qpn;
			u32 qkey;
			u32 imm;
			u8 udflags;	/* MRE_DF_IMM, MRE_DF_SOLICIT */
			u16 plen;
		} ud;
	};
	const u8 *payload;	/* DATA and UD: plen bytes */
	u32 hdr_len;		/* bytes of header before the payload */
};

/* why mre_wire_parse() refused a packet; each has its own counter */
enum mre_parse_err {
	MRE_PARSE_OK = 0,
	MRE_PARSE_SHORT,	/* shorter than its header */
	MRE_PARSE_VERSION,	/* unknown version */
	MRE_PARSE_TYPE,		/* unknown type */
	MRE_PARSE_FLAGS,	/* reserved bits set */
	MRE_PARSE_LEN,		/* length fields disagree with the datagram */
	MRE_PARSE_FIELD,	/* a field is out of range (op, path, aop, ...) */
	MRE_PARSE_MAX
};

/*
 * An IP address: what the embedder saw a datagram come from or go to, and
 * what a plane blob carries. IPv4 in the first 4 bytes of a.
 */
#define MRE_AF_INET		4
#define MRE_AF_INET6		6
struct mre_addr {
	u8 family;		/* MRE_AF_INET, MRE_AF_INET6; 0: none */
	u8 a[16];
};

/* the plane blob, version 1 (protocol.md 4.4) */
#define MRE_BLOB_VERSION	1
#define MRE_BLOB_MAX_PLANES	8
#define MRE_BLOB_LEN(n, alen)	(4 + (n) * (alen))

MRE_STATIC_ASSERT(MRE_BLOB_LEN(MRE_BLOB_MAX_PLANES, 16) <= MRE_MAX_BLOB,
		  "a blob of 8 IPv6 planes fits in CONNECT");

enum mre_parse_err mre_wire_parse(const u8 *buf, u32 len, struct mre_pkt *pkt);
/* header length of a DATA packet of this op (0: unknown op) */
u32 mre_wire_data_hdr_len(u8 op);
/* write the header of pkt into buf; returns bytes written (the header only) */
u32 mre_wire_put(u8 *buf, const struct mre_pkt *pkt);
/*
 * The plane blob of @n planes (1..MRE_BLOB_MAX_PLANES) of @family into @buf
 * (MRE_MAX_BLOB bytes): plane k's address is @addrs[k], all zeros when its
 * family is not @family. Returns its length (0: @n or @family unusable).
 */
u32 mre_wire_blob_put(u8 *buf, u8 family, u32 n, const struct mre_addr *addrs);
/*
 * A peer's blob of @len bytes: its addresses of @family into @addrs
 * (MRE_BLOB_MAX_PLANES entries; family 0 where it has none). Returns the
 * number of planes, 0 when the blob is unusable (version, family, length,
 * count 0 or over MRE_BLOB_MAX_PLANES); @addrs is then untouched.
 */
u32 mre_wire_blob_parse(const u8 *blob, u32 len, u8 family,
			struct mre_addr *addrs);
/* the length of an address of @family (4, 16; 0: none) */
u32 mre_addr_len(u8 family);
bool mre_addr_eq(const struct mre_addr *a, const struct mre_addr *b);
/* an IPv4 or IPv6 multicast group */
bool mre_addr_is_group(const struct mre_addr *a);
const char *mre_wire_type_name(u8 type);
const char *mre_wire_op_name(u8 op);

#endif /* MRE_WIRE_H */
