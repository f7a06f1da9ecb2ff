/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Streams: one ordered RC message stream (a QP) on a connection.
 *
 * A stream holds only cursors and a few fixed slots; the WQEs stay in the
 * embedder's queues and are read through mre_ops.sq_get() whenever a packet
 * is built or rebuilt. Message sequence numbers (msn) count the stream's send
 * WQEs from 0 at attach (those that go to the peer: the embedder runs purely
 * local ones itself and does not show them); rsn counts those that consume a receive WQE at the
 * peer (SEND, WRITE with immediate); rdsn counts READs and ATOMICs, which
 * also name a slot (rdsn % MRE_RD_SLOTS) on both sides:
 *
 *   requester slot  how much of the response has been placed;
 *   responder slot  the request's parameters, kept until the response has
 *                   been generated (READ data is read from the MR again if
 *                   a response packet must be resent; an ATOMIC's original
 *                   value is kept, so an ATOMIC is executed exactly once).
 *
 * The requester never has more than max_rd (<= MRE_RD_SLOTS) of them out,
 * so a responder slot is never reused while its response is still needed.
 */
#ifndef MRE_STREAM_H
#define MRE_STREAM_H

#include "mre_types.h"
#include "list.h"
#include "ep.h"

struct mre_conn;
struct mre_txd;

#define MRE_RD_SLOTS 128	/* per side and stream: the initiator depth (rxe: 128) */

/*
 * A READ, ATOMIC, ATOMIC_WRITE or FLUSH request: its response answers it,
 * and accepts its TSN at the requester (answered(), msg.c), so it neither
 * asks for an ACK nor draws one. All four take a read/atomic slot.
 */
#define MRE_OPS_ANSWERED	(1u << MRE_OP_READ_REQ | 1u << MRE_OP_ATOMIC_REQ | \
				 1u << MRE_OP_ATOMIC_WRITE_REQ |		\
				 1u << MRE_OP_FLUSH_REQ)

/* (one test on the per-packet paths: data_hdr() asks three times) */
static inline bool mre_op_answered(u8 op)
{
	return op < 32 && MRE_OPS_ANSWERED >> op & 1;
}

/* a READ or ATOMIC response: no completion at the responder waits on its ACK */
static inline bool mre_op_response(u8 op)
{
	return op == MRE_OP_READ_RESP || op == MRE_OP_ATOMIC_RESP;
}

enum mre_stream_state {
	MRE_STREAM_DETACHED = 0,
	MRE_STREAM_ACTIVE,	/* sends requests and responses */
	MRE_STREAM_STOPPED,	/* embedder stopped it: responses only */
	MRE_STREAM_ERROR,	/* failed: sends nothing */
};

enum mre_slot_state {
	MRE_SLOT_FREE = 0,
	MRE_SLOT_WAIT,		/* requester: response outstanding */
	MRE_SLOT_DONE,		/* requester: response complete */
	MRE_SLOT_ARRIVED,	/* responder: request accepted, gate not passed */
	MRE_SLOT_SENDING,	/* responder: response being generated */
	MRE_SLOT_SENT,		/* responder: response fully generated */
};

struct mre_rd_slot {
	u32 msn;		/* the requester's message */
	u32 len;
	u32 done;		/* requester: bytes placed; responder: bytes generated */
	u32 rkey;		/* responder */
	u64 raddr;		/* responder */
	u64 swap_add;		/* responder (atomic; ATOMIC_WRITE: value) */
	u64 compare;		/* responder (atomic) */
	u64 orig;		/* responder: the atomic's result */
	u8 op;			/* a request of mre_op_answered() */
	u8 aop;			/* ATOMIC: MRE_AOP_*; FLUSH: MRE_FLUSH_ */
	u8 state;		/* enum mre_slot_state */
	u8 seen;		/* requester: a response packet arrived */
	u32 tsn;		/* requester: the request's TSN */
				/* responder: conn->ack_gen at arrival */
};

struct mre_stream {
	struct mre_conn *conn;
	struct mre_list node;	/* on conn->active while it has work */
	struct mre_list anode;	/* on conn->attached */
	struct mre_list mnode;	/* on conn->markwait */
	u32 id;
	u32 remote_id;
	u32 mtu;
	u8 state;
	u8 max_rd;
	u8 rnr_retry;		/* 7: forever */
	u8 rnr_left;
	bool used;		/* has sent or received: tied to this incarnation */
	bool uc;		/* unreliable connected semantics (mre_stream_attr) */
	u64 rnr_delay;
	u32 rnr_ack;		/* conn ack_seq when an RNR was last counted */

	/* requester */
	u32 tx_msn;		/* message being sent (or next) */
	u32 tx_off;		/* bytes of it sent */
	bool tx_busy;		/* cur is WQE tx_msn and has been started */
	bool tx_resp;		/* alternate: last packet was a response */
	struct mre_wqe cur;
	u32 cur_seq;		/* its rsn or rdsn */
	u32 tx_rsn;
	u32 tx_rdsn;
	u32 acked_msn;		/* messages before this fully accepted */
	u32 comp_msn;		/* next to complete */
	u32 rd_comp;		/* oldest rdsn not completed */
	struct mre_rd_slot rq[MRE_RD_SLOTS];
	bool err;		/* message err_msn failed (a NAK, or locally) ... */
	u8 err_st;		/* ... with this enum mre_status */
	u32 err_msn;

	/* responder */
	struct mre_rd_slot rs[MRE_RD_SLOTS];
	u32 rs_head;		/* oldest rdsn whose response is not fully generated */
	u32 rs_tail;		/* next rdsn the gate will start */
	bool rx_err;		/* requests from rx_err_msn on are discarded */
	u32 rx_err_msn;
	bool rd_gone;		/* the READ rd_gone_msn's response was NAKed */
	u32 rd_gone_msn;
};

/*
 * Build the next new packet of @s into @d (TSN not yet set: the caller
 * gives it c->tsn_next); false: none.
 */
bool mre_stream_next(struct mre_stream *s, struct mre_txd *d);
/* all TSNs of message @msn (a request) are accepted */
void mre_stream_msg_acked(struct mre_stream *s, u32 msn);
/* run in-order send completions as far as possible */
void mre_stream_complete(struct mre_stream *s);
/* fail @s: tell the embedder once */
void mre_stream_fail(struct mre_stream *s, enum mre_status st);
/* @s was refused with RNR in ACK number @ack_seq; false when retries are used up */
bool mre_stream_rnr(struct mre_stream *s, u32 ack_seq);
/* the responder NAKed our message @msn (ignored by a UC stream) */
void mre_stream_nak_rx(struct mre_stream *s, u32 msn, u32 syn);
/*
 * Our message @msn failed with @st (a NAK's status, or here: its response
 * could not be placed, the local buffer is gone): it completes with @st in
 * order, then the stream fails.
 */
void mre_stream_msg_failed(struct mre_stream *s, u32 msn, enum mre_status st);
/* put @s on the list of streams with something to send */
void mre_conn_activate(struct mre_conn *c, struct mre_stream *s);
/*
 * May completions of @s run, or must they wait for a NAK of the peer that
 * is still on its way? (In the latter case @s waits on c->markwait until
 * the receive window passes the peer's NAK mark.)
 */
bool mre_conn_mark_ok(struct mre_conn *c, struct mre_stream *s);
/*
 * Does a stream of @c wait for the answer to a READ, ATOMIC, ATOMIC_WRITE
 * or FLUSH it sent? (A walk of the attached streams: timers only.)
 */
bool mre_conn_owed(const struct mre_conn *c);
/* the receive window moved: streams waiting for a NAK may now complete */
void mre_conn_markwait_run(struct mre_conn *c);


#endif /* MRE_STREAM_H */
