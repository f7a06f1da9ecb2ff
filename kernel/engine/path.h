/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Paths: the first-class lanes of a connection.
 *
 * A path is a UDP source port (the ECMP entropy the fabric hashes on) on one
 * plane. The port may be replaced at any time ("repath") without touching
 * the path's sequence: a path id names the lane, the port only steers it.
 * Each path keeps, per direction:
 *
 *   transmit  psn_next / psn_una and a ring from PSN to the TSN it carried;
 *             a PSN is "settled" once SACKed or declared lost. Loss: a PSN
 *             still unsettled when a PSN reorder_pkts later is SACKed
 *             (FACK), or everything unsettled when the path's RTO fires.
 *   receive   a 256-bit window of PSNs seen (the SACK returned in ACKs), the
 *             CE-marked count, the newest timestamp for RTT echo.
 *   control   RTT (srtt/rttvar, RFC 6298 gains), RTO with backoff, a
 *             DCTCP-style window, and health: GOOD, SUSPECT (has timed out
 *             since its last ACK), FAILED (fail_rtos timeouts in a row:
 *             no data, probed with backoff until a probe is ACKed).
 */
#ifndef MRE_PATH_H
#define MRE_PATH_H

#include "mre_types.h"
#include "sack.h"
#include "wire.h"

struct mre_conn;
struct mre_config;

#define MRE_PATH_RING		MRE_SACK_BITS	/* PSNs outstanding, at most ... */
#define MRE_PATH_MAX_OUT	(MRE_PATH_RING - 1)	/* ... this many */
#define MRE_PSN_PROBE		0xffffffffu	/* ring entry: a probe, no TSN */
#define MRE_FP			8		/* windows are packets << MRE_FP */
#define MRE_ALPHA_ONE		1024		/* DCTCP alpha fixed point */

enum mre_path_health {
	MRE_PATH_GOOD,
	MRE_PATH_SUSPECT,
	MRE_PATH_FAILED,
};

/*
 * What the newest PSN of a path leaves its tail timers to wait for
 * (mre_path_sent(), protocol.md 6.5): an ACK at once (it asked, or will
 * come anyway); a response's ACK, which the receiver may hold for its
 * ack_delay_ns (a lazy tail); or a one-packet response's, held for
 * answer_ack_ns, whose loss its request's own tail probe finds (an
 * answer tail: no tail probe of its own).
 */
enum mre_tail { MRE_TAIL_ASKED, MRE_TAIL_LAZY, MRE_TAIL_ANSWER };

struct mre_path {
	u16 id;
	u16 plane;
	u16 src_port;
	u8 health;
	u8 n_rto;		/* consecutive RTOs without an ACK in between */
	u8 n_stall;		/* consecutive stall RTOs, nothing heard */
	bool plane_down;	/* the embedder said the plane is down */

	/* transmit */
	u32 psn_next;
	u32 psn_una;		/* lowest unsettled PSN */
	u32 psn_fack;		/* one past the highest PSN SACKed */
	u32 inflight;		/* unsettled PSNs */
	u32 fprobes;		/* of them PROBEs sent while FAILED */
	u32 ring[MRE_PATH_RING];	/* PSN -> TSN (or MRE_PSN_PROBE) */
	u32 settled[MRE_PATH_RING / 32];

	/* congestion (cc.c) */
	u32 cwnd;		/* packets << MRE_FP */
	u32 ssthresh;		/* packets << MRE_FP */
	u32 alpha;		/* DCTCP estimate of the marked fraction */
	u32 ce_echo;		/* last ce_count the peer reported */
	u32 ts_echo;		/* newest ts_echo the peer reported */
	u32 win_end;		/* PSN that closes the current RTT window */
	u32 win_acked;
	u32 win_ce;
	bool win_cut;		/* window already cut in this RTT window */
	u32 loss_ewma;		/* lost fraction, 1/65536, gain 1/64 */
	u32 since_repath;	/* packets sent since the last repath */
	u32 since_ask;		/* packets sent since one asked for an ACK */
	u8 tail;		/* newest PSN: enum mre_tail */
	u32 last_asked;		/* newest PSN that is not an answer's */
	u64 tlp_at;		/* tail probe due (0: not armed) */
	u32 tlp_psn;		/* the tail probe out (tlp_out) ... */
	u32 tlp_sent;		/* ... sent then (ns, low 32 bits) */
	bool tlp_out;

	/* timing */
	u64 srtt;
	u64 rttvar;
	u64 rto;
	u64 min_rtt;
	u64 last_rtt;		/* the latest sample */
	u64 rto_at;		/* RTO deadline; 0: not armed */
	u64 rto_base;		/* when rto_at was last armed */
	u64 probe_at;		/* next probe of a FAILED path; 0: none */
	u64 probe_ivl;
	u64 quiet_ts;		/* send time of the silence_k-th unheard PSN ... */
	u64 quiet_due;		/* ... overdue from here (0: none, or quiet_wait) */
	bool quiet_on;		/* quiet_ts is valid */
	bool quiet_wait;	/* overdue: waiting for evidence from other paths */
	u32 time_unheard;	/* unheard PSNs lost by send time since news */

	/* receive (the peer's path with the same id) */
	struct mre_win rx;
	u32 rx_map[MRE_SACK_WORDS];
	u32 rx_ce;
	u32 rx_ts;
	u64 rx_ts_at;
	u32 rx_unacked;
	u32 rx_high;		/* one past the highest PSN that arrived */
	u32 rx_reorder;		/* most reordering seen since our last ACK */
	u64 ack_at;		/* delayed ACK deadline; 0: none */

	/* statistics (debugfs / simulator reports) */
	u64 st_tx;
	u64 st_retx;
	u64 st_lost;
	u64 st_acked;
	u64 st_ce;		/* also cc.c: none yet, the fabric does not mark */
	u64 st_repath;
	u64 st_rx;
	u64 st_tsn_acked;	/* PSNs settled by another path's ACK */
	u64 st_late;		/* PSNs that arrived behind later ones */
};

void mre_path_init(struct mre_path *p, struct mre_conn *c, u16 id, u64 now);
/* may a data packet go out on @p now? (health, window, SACK window) */
bool mre_path_can_send(const struct mre_path *p);
/* room left in the window, in packets (0 when it cannot send) */
u32 mre_path_room(const struct mre_path *p);
/*
 * record that @tsn goes out as the next PSN of @p; returns that PSN.
 * @tail: enum mre_tail, what its ACK may wait for (the tail's timers allow
 * for it)
 */
u32 mre_path_sent(struct mre_path *p, struct mre_conn *c, u32 tsn, u8 tail,
		  u64 now);
/* process the path part of an ACK for @p */
void mre_path_ack(struct mre_path *p, struct mre_conn *c,
		  const struct mre_pkt *pkt, u64 now);
/*
 * Serve @p's due timers (RTO, silence, tail probe, probe of a FAILED
 * path). True when a PROBE must go out on @p now: the caller sends it
 * (mre_send_probe()), a path sends nothing itself.
 */
bool mre_path_timers(struct mre_path *p, struct mre_conn *c, u64 now);
/*
 * The receiver accepted the TSN whose latest transmission is @psn of @p
 * (an ACK on any path says so): @psn arrived. Settles it without waiting
 * for @p's own ACK; RTT, ECN and loss detection still come from those.
 */
void mre_path_arrived(struct mre_path *p, struct mre_conn *c, u32 psn,
		      u64 now);
/*
 * Loss by send time (loss.c): every unsettled DATA PSN of @p sent before
 * the newest packet delivered on any path (sent at @newest, ns, low 32
 * bits, as TSN @newest_tsn) and at least @wait ago is lost. Returns how
 * long until the next PSN of @p sent before that one is due (0: none).
 */
u64 mre_path_time_lost(struct mre_path *p, struct mre_conn *c, u32 newest,
		       u32 newest_tsn, u64 wait, u64 now);
/* an ACK of ours covered the requests of @p's answer tail: a lazy tail */
void mre_path_answers_acked(struct mre_path *p, struct mre_conn *c, u64 now);
/* give @p a new source port (keeps its sequence); @why: enum mre_trace_why */
void mre_path_repath(struct mre_path *p, struct mre_conn *c, u8 why);
/*
 * Declare @p failed (@why: MRE_TRW_RTO, MRE_TRW_PLANE): settle everything
 * it has out as lost, start probing.
 */
void mre_path_fail(struct mre_path *p, struct mre_conn *c, u64 now, u8 why);
/* settle everything @p has out as lost (@why), counting each in *@ctr */
void mre_path_all_lost(struct mre_path *p, struct mre_conn *c, u64 *ctr,
		       u8 why);
/* recompute c->silence_k from the connection's loss rate (see path.c) */
void mre_path_silence_k(struct mre_conn *c);

/* rtt.c: the RTT estimator and RTO of a path */
void mre_path_rtt_sample(struct mre_path *p, const struct mre_config *cfg,
			 const struct mre_pkt_ack *a, u64 now);
/* SRTT + 4 RTTVAR; without a sample, three times the least RTT */
u64 mre_path_rto_est(const struct mre_path *p);
/* the timer doubled up to @cap, never below the path's own estimate */
u64 mre_path_rto_backoff(const struct mre_path *p, u64 cap);
/* a path without an RTT sample: its siblings', else a first guess */
u64 mre_path_guess_rto(const struct mre_conn *c, const struct mre_path *p);
/*
 * Earliest timer of @p (0: none). Every run of the connection asks it of
 * every path twice, so it is inline and without branches: a 0 ("none")
 * becomes the largest value as x - 1, which the minimum passes over.
 */
static inline u64 mre_path_deadline(const struct mre_path *p)
{
	u64 d = p->rto_at - 1;

	d = MRE_MIN(d, p->probe_at - 1);
	d = MRE_MIN(d, p->ack_at - 1);
	d = MRE_MIN(d, p->quiet_due - 1);
	d = MRE_MIN(d, p->tlp_at - 1);
	return d + 1;
}

/* receive side: a sequenced packet (DATA or PROBE) arrived on @p */
enum mre_win_res mre_path_rx(struct mre_path *p, u32 psn, u32 path_una,
			     u32 ts, bool ce, u64 now, bool *gap);

const char *mre_path_health_name(u8 h);

#endif /* MRE_PATH_H */
