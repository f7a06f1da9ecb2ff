// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Baseline RoCEv2 transport: go-back-N over one path per QP (see
 * baseline.h).
 */
#include "baseline.h"
#include <stdlib.h>
#include <string.h>

#define FP 8			/* windows are packets << FP */
#define ALPHA_ONE 1024

enum { BL_DATA = 1, BL_ACK = 2, BL_NAK = 3 };
#define BL_F_LAST 1

/* the simulator carries these; the wire sizes are RoCEv2's (baseline.h) */
struct bl_hdr {
	u8 type;
	u8 flags;
	u16 plen;
	u32 dqpn;
	u32 psn;		/* DATA: its PSN; ACK/NAK: next expected */
	u32 ts;			/* DATA: send time; ACK/NAK: echo */
	u32 ce;			/* ACK/NAK: CE-marked packets seen */
	u64 raddr;		/* DATA: where its payload lands */
};

static u64 now_of(const struct bl_host *bh)
{
	return bh->host->node.sim->now;
}

void bl_cfg_from(struct bl_cfg *b, const struct mre_config *c, u32 mtu)
{
	*b = (struct bl_cfg){
		.mtu = mtu,
		.ack_freq = c->ack_freq,
		.ack_delay_ns = c->ack_delay_ns,
		/*
		 * init_cwnd per path, what the engine's connections started
		 * with before conn_init_cwnd: RoCEv2 NICs start at line rate,
		 * so the baseline keeps a large first window
		 */
		.init_cwnd = MRE_MIN(c->init_cwnd * c->npaths, c->conn_max_cwnd),
		.min_cwnd = c->min_cwnd,
		.max_cwnd = c->conn_max_cwnd,
		.g_shift = c->ecn_g_shift,
		.rto_init_ns = c->rto_init_ns,
		.rto_min_ns = c->rto_min_ns,
		.rto_max_ns = c->rto_max_ns,
	};
}

/* --- responder ----------------------------------------------------------- */

static void send_ack(struct bl_qp *q, u8 type)
{
	struct bl_host *bh = q->bh;
	struct bl_hdr a = {
		.type = type, .dqpn = q->peer_qpn, .psn = q->epsn,
		.ts = q->rx_ts, .ce = q->rx_ce,
	};

	if (type == BL_NAK)
		bh->ctr.tx_nak++;
	else
		bh->ctr.tx_ack++;
	q->rx_unacked = 0;
	q->ack_at = 0;
	sim_host_send(bh->host, q->plane, q->peer, q->sport, BL_UDP_PORT,
		      (const u8 *)&a, sizeof(a), BL_ACK_WIRE);
}

static void place(struct bl_qp *q, const struct bl_hdr *d)
{
	u64 i;

	if (d->raddr < q->mem_base || d->raddr - q->mem_base > q->mem_len ||
	    d->plen > q->mem_len - (d->raddr - q->mem_base)) {
		q->bad_place++;
		return;
	}
	if (q->mem_count)
		for (i = 0; i < d->plen; i++)
			q->mem_count[d->raddr - q->mem_base + i]++;
	q->placed += d->plen;
}

static void rx_data(struct bl_qp *q, const struct bl_hdr *d, bool ce)
{
	struct bl_host *bh = q->bh;

	q->rx_ce += ce;
	bh->ctr.rx_ce += ce;
	q->rx_ts = d->ts;
	if (seq_lt(d->psn, q->epsn)) {
		bh->ctr.rx_dup++;
		send_ack(q, BL_ACK);
		return;
	}
	if (d->psn != q->epsn) {
		bh->ctr.rx_ooo++;
		if (!q->nak_sent) {
			q->nak_sent = true;
			send_ack(q, BL_NAK);
		}
		return;
	}
	place(q, d);
	q->epsn++;
	q->nak_sent = false;
	if (++q->rx_unacked >= bh->cfg.ack_freq || d->flags & BL_F_LAST || ce)
		send_ack(q, BL_ACK);
	else if (!q->ack_at)
		q->ack_at = now_of(bh) + bh->cfg.ack_delay_ns;
}

/* --- requester ----------------------------------------------------------- */

static u32 clamp(const struct bl_cfg *c, u32 w)
{
	u32 lo = c->min_cwnd << FP, hi = c->max_cwnd << FP;

	return w < lo ? lo : w > hi ? hi : w;
}

static void rtt_sample(struct bl_qp *q, u32 ts_echo)
{
	const struct bl_cfg *c = &q->bh->cfg;
	s32 r = (s32)((u32)now_of(q->bh) - ts_echo);
	u64 rtt = r > 0 ? (u64)r : 1, rto;

	if (!q->srtt) {
		q->srtt = rtt;
		q->rttvar = rtt / 2;
	} else {
		u64 d = q->srtt > rtt ? q->srtt - rtt : rtt - q->srtt;

		q->rttvar = q->rttvar - q->rttvar / 4 + d / 4;
		q->srtt = q->srtt - q->srtt / 8 + rtt / 8;
	}
	rto = q->srtt + 4 * q->rttvar;
	q->rto = rto < c->rto_min_ns ? c->rto_min_ns :
		 rto > c->rto_max_ns ? c->rto_max_ns : rto;
}

/* DCTCP on the QP's window, as the engine does on a path */
static void cc_ack(struct bl_qp *q, u32 acked, u32 ce)
{
	const struct bl_cfg *c = &q->bh->cfg;

	q->win_acked += acked;
	q->win_ce += ce;
	if (seq_ge(q->snd_una, q->win_end)) {
		u32 f = q->win_acked ? MRE_MIN(q->win_ce, q->win_acked) *
			ALPHA_ONE / q->win_acked : 0;
		u32 dec = q->alpha >> c->g_shift;

		q->alpha = q->alpha - (dec ? dec : q->alpha) + (f >> c->g_shift);
		q->win_acked = q->win_ce = 0;
		q->win_cut = false;
		q->win_end = q->snd_max;
	}
	if (ce) {
		if (!q->win_cut) {
			q->cwnd = clamp(c, q->cwnd - (u32)((u64)q->cwnd * q->alpha /
							  (2 * ALPHA_ONE)));
			q->ssthresh = q->cwnd;
			q->win_cut = true;
			q->bh->ctr.ecn_cut++;
		}
	} else if (acked && 2 * (q->snd_max - q->snd_una + acked) >= q->cwnd >> FP) {
		/* grows only while the window is what limits sending (RFC 7661) */
		if (q->cwnd < q->ssthresh)
			q->cwnd += acked << FP;
		else
			q->cwnd += (u32)(((u64)acked << (2 * FP)) / q->cwnd);
		q->cwnd = clamp(c, q->cwnd);
	}
}

static void complete(struct bl_qp *q)
{
	while (q->sq_head != q->sq_tail &&
	       seq_ge(q->snd_una, q->sq[q->sq_head % BL_SQ].psn_end)) {
		q->sq_head++;
		q->done++;
	}
}

static void rx_ack(struct bl_qp *q, const struct bl_hdr *a)
{
	u32 ce = a->ce - q->ce_echo, acked = 0;

	if (seq_gt(a->psn, q->snd_max))
		return;			/* acknowledges what was never sent */
	if (ce > 1u << 30)
		ce = 0;			/* an older ACK, reordered */
	else
		q->ce_echo = a->ce;
	if (seq_gt(a->psn, q->snd_una)) {
		acked = a->psn - q->snd_una;
		q->snd_una = a->psn;
		if (seq_lt(q->snd_nxt, q->snd_una))
			q->snd_nxt = q->snd_una;
		rtt_sample(q, a->ts);
		q->rto_at = q->snd_una == q->snd_max ? 0 :
			    now_of(q->bh) + q->rto;
		complete(q);
	}
	cc_ack(q, acked, ce);
	if (a->type == BL_NAK) {
		q->bh->ctr.rx_nak++;
		if (seq_lt(a->psn, q->snd_nxt))
			q->snd_nxt = a->psn;	/* go back N */
	}
}

static void rx(struct sim_host *h, struct sim_pkt *k)
{
	struct bl_host *bh = h->xp;
	struct bl_hdr hd;
	u32 i;

	if (k->dport != BL_UDP_PORT || k->len < sizeof(hd))
		return;
	memcpy(&hd, k->data, sizeof(hd));
	for (i = 0; i < bh->nqps; i++) {
		struct bl_qp *q = bh->qps[i];

		if (q->qpn != hd.dqpn || q->peer != sim_addr_host(k->src))
			continue;
		if (hd.type == BL_DATA)
			rx_data(q, &hd, k->ce);
		else
			rx_ack(q, &hd);
		return;
	}
}

static u32 msg_of(const struct bl_qp *q, u32 psn, u32 *start)
{
	u32 m, s = q->snd_una;

	/* the oldest uncompleted message starts at or before snd_una */
	for (m = q->sq_head; m != q->sq_tail; m++) {
		const struct bl_msg *g = &q->sq[m % BL_SQ];
		u32 first = g->psn_end - (g->len + q->bh->cfg.mtu - 1) / q->bh->cfg.mtu;

		s = first;
		if (seq_lt(psn, g->psn_end))
			break;
	}
	*start = s;
	return m;
}

static void send_psn(struct bl_qp *q)
{
	struct bl_host *bh = q->bh;
	u32 start, m = msg_of(q, q->snd_nxt, &start);
	const struct bl_msg *g = &q->sq[m % BL_SQ];
	u32 off = (q->snd_nxt - start) * bh->cfg.mtu;
	u32 len = MRE_MIN(bh->cfg.mtu, g->len - off);
	struct bl_hdr d = {
		.type = BL_DATA, .plen = (u16)len, .dqpn = q->peer_qpn,
		.psn = q->snd_nxt, .ts = (u32)now_of(bh), .raddr = g->raddr + off,
		.flags = q->snd_nxt + 1 == g->psn_end ? BL_F_LAST : 0,
	};

	bh->ctr.tx_data++;
	if (seq_lt(q->snd_nxt, q->snd_max))
		bh->ctr.tx_retx++;
	q->snd_nxt++;
	if (seq_gt(q->snd_nxt, q->snd_max))
		q->snd_max = q->snd_nxt;
	if (!q->rto_at)
		q->rto_at = now_of(bh) + q->rto;
	sim_host_send(bh->host, q->plane, q->peer, q->sport, BL_UDP_PORT,
		      (const u8 *)&d, sizeof(d), BL_DATA_WIRE_HDR + len);
}

static bool can_send(const struct bl_qp *q)
{
	return seq_lt(q->snd_nxt, q->psn_posted) &&
	       q->snd_nxt - q->snd_una < MRE_MAX(q->cwnd >> FP, 1u);
}

static void timers(struct bl_qp *q, u64 now)
{
	const struct bl_cfg *c = &q->bh->cfg;

	if (q->rto_at && now >= q->rto_at) {
		q->bh->ctr.rto++;
		q->snd_nxt = q->snd_una;
		q->rto = MRE_MIN(q->rto * 2, c->rto_max_ns);
		q->rto_at = q->snd_una == q->snd_max ? 0 : now + q->rto;
	}
	if (q->ack_at && now >= q->ack_at)
		send_ack(q, BL_ACK);
}

static u64 earliest(u64 a, u64 b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

static u64 run(struct sim_host *h)
{
	struct bl_host *bh = h->xp;
	u64 now = now_of(bh), next = 0;
	u32 i, idle = 0;

	for (i = 0; i < bh->nqps; i++)
		timers(bh->qps[i], now);
	/* the NIC pulls: QPs with something to send take turns */
	while (bh->nqps && idle < bh->nqps && sim_host_room(h)) {
		struct bl_qp *q = bh->qps[bh->rr++ % bh->nqps];

		if (!can_send(q)) {
			idle++;
			continue;
		}
		idle = 0;
		send_psn(q);
	}
	for (i = 0; i < bh->nqps; i++)
		next = earliest(next, earliest(bh->qps[i]->rto_at,
					       bh->qps[i]->ack_at));
	if (idle < bh->nqps && bh->nqps)
		next = now;	/* stopped for room: the NIC calls back */
	return next;
}

const struct sim_xport bl_ops = {
	.name = "rocev2",
	.rx = rx,
	.run = run,
};

struct bl_host *bl_new(struct sim_host *h, const struct bl_cfg *cfg)
{
	struct bl_host *bh = calloc(1, sizeof(*bh));

	if (!bh)
		abort();
	bh->host = h;
	bh->cfg = *cfg;
	sim_host_set_xport(h, &bl_ops, bh);
	return bh;
}

void bl_free(struct bl_host *bh)
{
	u32 i;

	for (i = 0; i < bh->nqps; i++)
		free(bh->qps[i]);
	free(bh->qps);
	free(bh);
}

struct bl_qp *bl_qp_new(struct bl_host *bh, u32 qpn, u32 peer, u32 peer_qpn)
{
	struct sim *s = bh->host->node.sim;
	struct bl_qp *q = calloc(1, sizeof(*q));
	u64 r = sim_seed_of(s, 0xb1ULL << 40 | (u64)bh->host->idx << 20 | qpn);

	if (!q)
		abort();
	if (bh->nqps == bh->capqps) {
		bh->capqps = bh->capqps ? 2 * bh->capqps : 8;
		bh->qps = realloc(bh->qps, bh->capqps * sizeof(*bh->qps));
		if (!bh->qps)
			abort();
	}
	q->bh = bh;
	q->qpn = qpn;
	q->peer = peer;
	q->peer_qpn = peer_qpn;
	q->sport = 49152 + (u16)(r % 16384);
	q->cwnd = bh->cfg.init_cwnd << FP;
	q->ssthresh = bh->cfg.max_cwnd << FP;
	q->alpha = ALPHA_ONE;
	q->rto = bh->cfg.rto_init_ns;
	bh->qps[bh->nqps++] = q;
	return q;
}

void bl_qp_mem(struct bl_qp *q, u64 base, u64 len, u8 *count)
{
	q->mem_base = base;
	q->mem_len = len;
	q->mem_count = count;
}

bool bl_post_write(struct bl_qp *q, u64 raddr, u32 len)
{
	u32 npkts = (len + q->bh->cfg.mtu - 1) / q->bh->cfg.mtu;

	if (q->sq_tail - q->sq_head >= BL_SQ || !len)
		return false;
	q->psn_posted += npkts;
	q->sq[q->sq_tail++ % BL_SQ] = (struct bl_msg){
		.psn_end = q->psn_posted, .len = len, .raddr = raddr,
	};
	return true;
}
