/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Connections: one per pair of nodes, carrying every stream (QP) between
 * them over all paths under one congestion controller.
 *
 * Two sequence spaces:
 *
 *   TSN  transmit sequence number, per connection and direction. Given to a
 *        packet once, kept when it is resent. The receiver accepts each TSN
 *        once (exactly-once delivery, duplicates dropped) in a window of
 *        2^window_log2. Its cumulative point (all TSNs below accepted) is the
 *        completion gate: a receive completes, and a READ or ATOMIC
 *        executes, only when the gate has passed the TSN of its message's
 *        last packet, so everything sent before it on that stream has been
 *        placed (RC ordering) without a reorder buffer.
 *   PSN  path sequence number, per path and direction, given to every
 *        transmission. Used only to detect loss and measure the path.
 *
 * State per connection is fixed at init: per TSN slot a transmit descriptor
 * (mre_txd, what to rebuild the packet from: never a copy of the payload)
 * and a gate entry (mre_gate, what to do when the gate passes), plus the
 * paths. Nothing is kept per stream here; streams keep their own cursors.
 */
#ifndef MRE_CONN_H
#define MRE_CONN_H

#include "mre_types.h"
#include "ep.h"
#include "list.h"
#include "path.h"
#include "sack.h"
#include "wire.h"

struct mre_ep;
struct mre_stream;

/* transmit descriptor states */
enum mre_txd_state {
	MRE_TXD_FREE = 0,
	MRE_TXD_OUT,		/* latest transmission unsettled on its path */
	MRE_TXD_ARRIVED,	/* its path saw it arrive; acceptance not yet known */
	MRE_TXD_QUEUED,		/* on the retransmit queue */
	MRE_TXD_WAIT,		/* refused (RNR): resend at rnr_until */
	MRE_TXD_ACKED,		/* accepted by the receiver */
};

/*
 * What a TSN carried. For requests and responses: the local stream id, the
 * message, offset and length; seq is the rsn/rdsn. A NAK is complete in
 * itself: seq is the syndrome, offset the peer's stream id and stream the
 * id the peer addressed (ours, even when we have no such stream).
 */
struct mre_txd {
	u32 stream;
	u32 msn;
	u32 offset;
	u32 seq;
	u32 psn;		/* of the latest transmission */
	u16 len;
	u8 op;
	u8 dflags;
	u8 state;
	u8 path;		/* of the latest transmission */
	u8 xmits;		/* transmissions (saturates) */
	u8 fack;		/* the latest replaces one lost: 1 by FACK,
				 * 2 by send time (loss.c); | MRE_TXD_PARITY */
	u32 sent;		/* when (low 32 bits of ns) it was latest sent */
};

#define MRE_TXD_PARITY	0x80	/* fack: a PARITY covered it (parity.c) */

/* what the completion gate does when it passes a TSN */
enum mre_gate_kind {
	MRE_GATE_NONE = 0,
	MRE_GATE_RECV,		/* complete receive seq (rsn) */
	MRE_GATE_READ,		/* start the READ response in slot seq (rdsn) */
	MRE_GATE_ATOMIC,	/* execute the ATOMIC in slot seq (rdsn) */
	MRE_GATE_ERROR,		/* fail the stream: NAK msn with syndrome op */
};

struct mre_gate {
	u32 stream;
	u32 seq;
	u32 len;
	u32 imm;		/* RECV: immediate; ERROR: the message's msn */
	u8 kind;
	u8 dflags;
	u8 op;			/* RECV: SEND/WRITE; ERROR: syndrome */
	u8 rsvd;
};

enum mre_conn_state {
	MRE_CONN_CLOSED,
	MRE_CONN_CONNECTING,
	MRE_CONN_ESTABLISHED,
	MRE_CONN_FAILED,
};


struct mre_conn {
	struct mre_ep *ep;
	u64 clock;		/* the latest time the engine ran it at */
	u64 cid;		/* ours: the peer puts it in dst_cid */
	u64 remote_cid;
	u8 state;
	u8 npaths;
	u8 nplanes;
	u8 window_log2;
	u32 wsize;		/* 2^window_log2 */
	u32 peer_wsize;		/* the peer's receive window */

	/* transmit TSN space */
	u32 isn;		/* the first TSN of this incarnation: every
				 * CONNECT and ACCEPT names it */
	u32 tsn_next;
	u32 tsn_una;		/* lowest TSN not yet accepted */
	u64 una_since;		/* when tsn_una last moved */
	struct mre_txd *txd;	/* [wsize] */
	u32 *rtxq;		/* [wsize] TSNs to resend, FIFO */
	u32 rtxq_head;
	u32 rtxq_tail;
	u32 n_wait;		/* descriptors in MRE_TXD_WAIT */
	u64 rnr_until;
	u64 last_ack;		/* last ACK received (liveness) */
	u64 out_since;		/* data outstanding since (after idle) */
	u64 last_rx;		/* last packet received established (liveness) */
	u64 owed_at;		/* look for unanswered requests then (0: none) */
	u64 owed_sent;		/* newest request to be answered built then */
	u64 heard_sent;		/* newest send time an ACK echoed (any path) */
	u32 loss_ewma;		/* lost fraction over all paths, 1/65536, gain 1/1024 */
	u32 silence_k;		/* unheard PSNs that make a path silent (path.c) */
	u32 peer_dups;		/* last dup_count the peer reported */
	u32 reorder;		/* current reorder threshold (adapts) */
#define MRE_REORDER_MAX	32	/* ... up to this */
	u32 since_ask;		/* packets sent since one asked for an ACK */
	u32 reorder_calm;	/* TSNs accepted since reorder last grew */
	u32 inflight;		/* sum of the paths' */
	u32 probes_out;		/* of them failed paths' PROBEs (window) */
	/* loss by send time, across paths (loss.c) */
	u64 time_at;		/* a PSN's time is up then (0: none) */
	u32 time_sent;		/* newest send time delivered (ns, low 32), */
	u32 time_tsn;		/* ... its TSN (orders a burst's packets), */
	u32 time_rtt;		/* ... its round trip when we heard of it, */
	u8 time_path;		/* ... its path; */
	bool time_on;		/* ... valid */
	u8 time_mult;		/* reordering window, quarters of least RTT */
#define MRE_TIME_MULT_MAX 8	/* ... up to this many */
	u8 time_calm;		/* reorder windows since time_mult last grew */
#define MRE_TIME_CALM	4	/* ... after this many, time_mult falls */

	/* receive TSN space */
	struct mre_win rxw;
	struct mre_gate *gate;	/* [wsize] */
	u32 rx_dups;		/* duplicate TSNs seen (reported in ACKs) */
	u32 ack_gen;		/* ACKs sent: a request that arrived since ... */
	bool answer_tails;	/* ... is unacknowledged (answer tails, send.c) */
	u8 nak;			/* refusal to report in ACKs (enum mre_syndrome) */
	u32 nak_delay;		/* ns: RNR wait to report */
	bool nak_marked;	/* we have sent a NAK: nak_mark is valid */
	u32 nak_mark;		/* one past the TSN of our latest NAK */
	u32 cnak_stream;	/* last unknown stream NAKed (no repeats) */
	u32 cnak_msn;
	bool peer_marked;	/* the peer has NAKed: completions wait for ... */
	u32 peer_mark;		/* ... our receive window to pass this */
	struct mre_list markwait;	/* streams waiting for peer_mark */
	u32 act_epoch;		/* last activity epoch counted (rate hints) */

	/* paths */
	struct mre_path *paths;	/* [npaths] */
	u32 rr;			/* spray cursor */
	u32 small;		/* the path small messages keep to (send.c) */
	u64 path_due;		/* no path deadline before this (0: none) */
	u32 due_path;		/* the path whose deadline set path_due */
	bool quiet_waits;	/* a path waits for evidence (timers.c) */

	/* congestion control of the whole connection (cc.c) */
	u32 cwnd;		/* packets << MRE_FP */
	u32 ssthresh;		/* packets << MRE_FP: slow start below */
	u32 alpha;
	u32 win_end;		/* TSN closing the current window */
	u32 win_acked;
	u32 win_ce;
	u32 loss_cut_left;	/* packets to send before another loss cut */
	u8 q_held;		/* delay-marked cuts since a queue-free RTT */
	bool win_delay;		/* this window's marks include delay marks */
	u32 rate_mbps;		/* the receiver's hint: pace at this; 0: none */
	u32 pkt_bytes;		/* data packets sent, mean size (gain 1/8) */
	u64 pace_next;

	/* streams */
	struct mre_list active;	/* with something to send */
	struct mre_list attached;	/* all */
	u32 nstreams;
	struct mre_stream *stream_last[2];	/* mre_conn_stream()'s, newest first */
	u32 stream_last_id[2];
	u32 ack_seq;		/* ACKs processed (RNR accounting) */

	/* handshake, and the peer's planes */
	struct mre_addr addr;	/* the peer node's address (its plane 0) */
	u64 connect_at;
	u64 connect_sent;	/* when our latest CONNECT left */
	u64 connect_ivl;
	u64 connect_early;	/* CONNECTING: a CONNECT went early then (0: none) */
	u32 connect_tries;
	bool peer_heard;	/* a packet came on this incarnation since it opened */
	bool local;		/* the peer is this node: no tail probes (engine.h) */
	bool peer_parity;	/* the peer takes PARITY (MRE_CF_PARITY) */
	bool par_on;		/* losing enough for PARITY (parity.h) */
	u16 par_sent;		/* first transmissions in this window */
	u16 par_lost;		/* ... losses found in it, no queue standing */
	u16 par_cong;		/* ... and with one (cc.c) */
	u8 par_calm;		/* windows in a row that lost less */
	u64 cookie;		/* CONNECTING: the peer's RETRY cookie (0: none) */
	u64 challenge_at;	/* a CONNECT for a new incarnation was challenged */
	bool challenged;	/* ... and no proof (a RESET for ours) came yet */
	bool reopened;		/* a CONNECT reopened it once (at reopen_at) */
	u64 reopen_at;
	u16 blob_len;		/* our blob, as sent in CONNECT / ACCEPT ... */
	u8 blob_planes;		/* ... listing this many planes */
	u8 blob[MRE_MAX_BLOB];
	u8 peer_nplanes;	/* what the peer's blob said (0: nothing yet) */
	struct mre_addr peer_planes[MRE_BLOB_MAX_PLANES];
	/*
	 * Plane proof (conn.c, protocol.md 5.4): bit j of planes_proven says
	 * peer_planes[j] echoed our nonce (or is the peer's own address);
	 * until then nothing but CHALLENGEs goes there.
	 */
	u8 planes_proven;
	u8 plane_tries;		/* CHALLENGE rounds sent (MRE_PLANE_TRIES) */
	u64 plane_at;		/* the next round (0: none) */
	u64 plane_nonce[MRE_BLOB_MAX_PLANES];	/* 0: none drawn */

	void *priv;		/* the embedder's */
};

/* --- used between the engine's own files -------------------------------- */

static inline const struct mre_config *mre_cfg(const struct mre_conn *c)
{
	return &c->ep->cfg;
}

/*
 * The time for an entry into @c: @now, or the latest time @c ran at if
 * @now is older (mre_ep_rx() reads its clock before the embedder holds the
 * connection; another holder may have run it at a later time meanwhile).
 */
static inline u64 mre_conn_clock(struct mre_conn *c, u64 now)
{
	if (now < c->clock)
		return c->clock;
	c->clock = now;
	return now;
}

/*
 * The stream @id of @c (mre_ops.stream), the last two found kept: a
 * connection's packets name few streams (two QPs of a node talking to
 * each other share its connection to itself), and the embedder's lookup
 * is a table's (an xarray in the kernel, 4 of them a small READ).
 * mre_stream_detach() forgets a stream, and so does its attach.
 */
static inline struct mre_stream *mre_conn_stream(struct mre_conn *c, u32 id)
{
	struct mre_stream *s = c->stream_last[1];

	if (c->stream_last[0] && c->stream_last_id[0] == id)
		return c->stream_last[0];
	if (!s || c->stream_last_id[1] != id) {
		s = c->ep->ops->stream(c, id);
		if (!s)
			return NULL;
	}
	c->stream_last[1] = c->stream_last[0];
	c->stream_last_id[1] = c->stream_last_id[0];
	c->stream_last[0] = s;
	c->stream_last_id[0] = id;
	return s;
}

/* @s is no longer @c's to look up (mre_conn_stream()) */
static inline void mre_conn_stream_drop(struct mre_conn *c,
					  const struct mre_stream *s)
{
	u32 i;

	for (i = 0; i < 2; i++)
		if (c->stream_last[i] == s)
			c->stream_last[i] = NULL;
}

/* report @t to the embedder (mre_ops.trace), if it asked for events */
static inline void mre_trace(struct mre_conn *c, const struct mre_trace *t)
{
	if (c->ep->ops->trace)
		c->ep->ops->trace(c, t);
}

/*
 * A deadline of path @p is set to @at (returned): c->path_due stays at or
 * before every path's deadline, so that mre_conn_run() looks at the paths
 * only once one may be due, and c->due_path names the path that set it.
 * While that path's deadline is still path_due, path_due is exact; once
 * it was cleared or moved later, the next run finds the earliest again.
 */
static inline u64 mre_due(struct mre_conn *c, const struct mre_path *p,
			  u64 at)
{
	if (at && (!c->path_due || at < c->path_due)) {
		c->path_due = at;
		c->due_path = p->id;
	}
	return at;
}

static inline struct mre_txd *mre_txd_of(struct mre_conn *c, u32 tsn)
{
	return &c->txd[tsn & (c->wsize - 1)];
}

/*
 * Fail every stream and stop. @ev and @why say what happened, for
 * mre_ops.trace: MRE_TR_CONN_FAIL (why CONNECT, DEAD, CLOSE).
 */
void mre_conn_fail(struct mre_conn *c, enum mre_status st, u8 ev, u8 why);
/* our CONNECT was answered by an ACCEPT: the paths' first RTT floor */
void mre_conn_hs_rtt(struct mre_conn *c, u64 now);
/* CONNECTING, a packet named us: our ACCEPT came not, CONNECT again (conn.c) */
void mre_conn_accept_lost(struct mre_conn *c, u64 now);
/* an early CONNECT at most once per connect_ns / this */
#define MRE_CONNECT_EARLY	16
/* the handshake completed (@pkt: the peer's CONNECT or ACCEPT) */
void mre_conn_established(struct mre_conn *c, const struct mre_pkt *pkt,
			  u64 now);
/*
 * A RESET naming our id for the peer (its restart, proven if it answers
 * our challenge, or a connection it freed): what went over this
 * incarnation fails, streams that carried nothing stay for the next.
 */
void mre_conn_peer_reset(struct mre_conn *c);
/* CHALLENGE rounds per learned plane: then it stays unproven */
#define MRE_PLANE_TRIES	3
/* a FAILED connection is reopened by a CONNECT at most once in this many connect_ns */
#define MRE_REOPEN_IVL	32
/* @pkt opens @c: the peer's planes from its blob (demux.c) are new */
void mre_conn_planes_learned(struct mre_conn *c, u64 now);
/* forget the peer's planes, proven or not (a new incarnation) */
void mre_conn_planes_forget(struct mre_conn *c);
/*
 * May a CONNECT reopen @c, FAILED, now? Each reopen clears the window's
 * state (O(window)), so a peer gets one per MRE_REOPEN_IVL connect_ns
 * (drop_reopen); an honest one's CONNECT retries reach past it.
 */
bool mre_conn_may_reopen(const struct mre_conn *c, u64 now);
/* the CHALLENGE timer (ESTABLISHED): a round when due; its next deadline */
u64 mre_conn_plane_timer(struct mre_conn *c, u64 now);
/* a CHALLENGE or an ECHO for @c, ESTABLISHED */
void mre_conn_proof_rx(struct mre_conn *c, const struct mre_pkt *pkt, u64 now);

#endif /* MRE_CONN_H */
