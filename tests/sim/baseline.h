/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Baseline: RoCEv2 reliable connection as deployed, for side-by-side
 * figures. Not the engine: a separate, small transport.
 *
 *   path        one per QP: a fixed UDP source port, so ECMP pins the QP to
 *               one route for its whole life.
 *   sequence    one PSN space per QP. The responder accepts only the next
 *               expected PSN (in-order placement), drops anything after a
 *               gap and NAKs the expected PSN once per gap (a "sequence
 *               error" NAK); a duplicate is re-ACKed. ACKs are cumulative,
 *               every ack_freq in-order packets, at a message's last
 *               packet, or after ack_delay.
 *   recovery    go-back-N: a NAK rewinds the requester to the NAKed PSN and
 *               everything after it is sent again; a retransmission timeout
 *               (RFC 6298 estimator, rto_min as the engine's, doubling)
 *               rewinds to the oldest unacknowledged PSN.
 *   congestion  an ECN window per QP with DCTCP's estimator and the
 *               engine's constants: ACKs echo the count of CE-marked
 *               packets; the window is cut by alpha/2 at most once per
 *               window of data, grows by slow start until the first cut and
 *               by one packet per window after, and only while at least half
 *               of it is in use (RFC 7661). Loss alone does not cut it
 *               (DCQCN, as deployed, reacts to congestion marks only).
 *               Transmission is pulled by the NIC at line rate.
 *
 * A deployed NIC's timeout is coarser (4.096 us * 2^k, milliseconds in
 * practice); giving the baseline the engine's timer flatters it.
 */
#ifndef SIM_BASELINE_H
#define SIM_BASELINE_H

#include "host.h"

#define BL_UDP_PORT	4791	/* RoCEv2 */
#define BL_SQ		64	/* messages outstanding per QP */
/* RoCEv2 header bytes on the wire: BTH 12 + RETH 16 + ICRC 4; ACK: BTH+AETH+ICRC */
#define BL_DATA_WIRE_HDR 32
#define BL_ACK_WIRE	20

struct bl_cfg {
	u32 mtu;
	u32 ack_freq;
	u64 ack_delay_ns;
	u32 init_cwnd;
	u32 min_cwnd;
	u32 max_cwnd;
	u32 g_shift;
	u64 rto_init_ns;
	u64 rto_min_ns;
	u64 rto_max_ns;
};

struct bl_counters {
	u64 tx_data;
	u64 tx_retx;
	u64 tx_ack;
	u64 tx_nak;
	u64 rx_nak;
	u64 rto;
	u64 ecn_cut;
	u64 rx_ooo;		/* dropped: after a gap */
	u64 rx_dup;
	u64 rx_ce;
};

struct bl_msg {
	u32 psn_end;		/* one past its last PSN */
	u32 len;
	u64 raddr;
};

struct bl_host;

struct bl_qp {
	struct bl_host *bh;
	u32 qpn;
	u32 peer;		/* host index */
	u32 peer_qpn;
	u16 sport;
	u8 plane;
	/* requester */
	struct bl_msg sq[BL_SQ];
	u32 sq_head;		/* oldest not completed */
	u32 sq_tail;		/* next to post */
	u32 psn_posted;		/* PSNs of posted messages end here */
	u32 snd_una;
	u32 snd_nxt;
	u32 snd_max;		/* one past the highest PSN ever sent */
	u32 done;		/* completions */
	u32 cwnd;		/* packets << 8 */
	u32 ssthresh;
	u32 alpha;		/* 1/1024 */
	u32 win_end;
	u32 win_acked;
	u32 win_ce;
	bool win_cut;
	u32 ce_echo;
	u64 srtt;
	u64 rttvar;
	u64 rto;
	u64 rto_at;
	/* responder */
	u32 epsn;
	bool nak_sent;
	u32 rx_unacked;
	u64 ack_at;
	u32 rx_ce;
	u32 rx_ts;
	u64 placed;
	u64 mem_base;		/* where WRITEs may land */
	u64 mem_len;
	u8 *mem_count;		/* optional: times each byte was placed */
	u32 bad_place;
};

struct bl_host {
	struct sim_host *host;
	struct bl_cfg cfg;
	struct bl_qp **qps;
	u32 nqps;
	u32 capqps;
	u32 rr;
	struct bl_counters ctr;
};

extern const struct sim_xport bl_ops;

/* the engine's constants for the baseline (see above) */
void bl_cfg_from(struct bl_cfg *b, const struct mre_config *c, u32 mtu);
struct bl_host *bl_new(struct sim_host *h, const struct bl_cfg *cfg);
void bl_free(struct bl_host *bh);
/* a QP to @peer's QP @peer_qpn; the source port comes from the run's seed */
struct bl_qp *bl_qp_new(struct bl_host *bh, u32 qpn, u32 peer, u32 peer_qpn);
/* responder: WRITEs may land in [base, base + len); count: optional */
void bl_qp_mem(struct bl_qp *q, u64 base, u64 len, u8 *count);
/* post a WRITE of @len bytes to @raddr; false when the queue is full */
bool bl_post_write(struct bl_qp *q, u64 raddr, u32 len);

#endif /* SIM_BASELINE_H */
