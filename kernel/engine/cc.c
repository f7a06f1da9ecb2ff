// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Congestion control (see cc.h).
 */
#include "cc.h"
#include "conn.h"
#include "path.h"

/* pacing may run this far behind real time and catch up in a burst */
#define MRE_PACE_BURST_NS 20000

static u32 clamp_cwnd(u32 w, const struct mre_config *cfg, u32 max)
{
	u32 lo = cfg->min_cwnd << MRE_FP, hi = max << MRE_FP;

	return w < lo ? lo : w > hi ? hi : w;
}

/*
 * What the connection has out, but a failed path's PROBEs: one answered a
 * round trip later must not hold a window that congestion cut to a packet
 * (beside TCP they held it for seconds while the good paths had room).
 * Live paths' probes (tail, stall) count: out of the window they added to
 * an oversubscribed fabric's queues (4:1 permutation tail +2 %).
 */
static u32 data_out(const struct mre_conn *c)
{
	return c->inflight - c->probes_out;
}

static void aimd_grow(u32 *cwnd, const u32 *ssthresh, u32 acked)
{
	if (ssthresh && *cwnd < *ssthresh)
		*cwnd += acked << MRE_FP;			/* slow start */
	else if (*cwnd)
		*cwnd += (u32)(((u64)acked << (2 * MRE_FP)) / *cwnd);	/* +1 per window */
}

static void alpha_update(u32 *alpha, u32 acked, u32 ce, u32 g_shift)
{
	u32 f = acked ? (u32)((u64)MRE_MIN(ce, acked) * MRE_ALPHA_ONE / acked) : 0;

	u32 dec = *alpha >> g_shift;

	/* as Linux's DCTCP: a small alpha decays to zero, not to a floor */
	*alpha = *alpha - (dec ? dec : *alpha) + (f >> g_shift);
}

/*
 * A window grows only while it limits sending: at least half of it was in
 * use (RFC 7661). A window that is not the limit (pacing at a rate hint,
 * or an application that sends little) would otherwise grow without bound
 * and mean nothing: a path whose packets silently vanish would then absorb
 * that much of the connection's window before its RTO fires.
 */
static bool window_used(u32 inflight, u32 cwnd)
{
	return 2 * inflight >= cwnd >> MRE_FP;
}

static u32 ecn_cut(u32 cwnd, u32 alpha)
{
	return cwnd - (u32)(((u64)cwnd * alpha) / (2 * MRE_ALPHA_ONE));
}

/* a window in 1/100 packets, for mre_ops.trace */
static u32 cwnd_x100(u32 cwnd)
{
	return (u32)(((u64)cwnd * 100) >> MRE_FP);
}

/* the window of path @path (MRE_TR_CONN_WIDE: the connection's) was cut */
static void cut_trace(struct mre_conn *c, u16 path, u8 why, u32 from, u32 to,
		      u32 alpha)
{
	struct mre_trace t = {
		.ev = MRE_TR_CUT, .why = why, .path = path,
		.cut = { .from = cwnd_x100(from), .to = cwnd_x100(to),
			 .alpha = alpha },
	};

	mre_trace(c, &t);
}

void mre_cc_path_init(struct mre_path *p, struct mre_conn *c)
{
	const struct mre_config *cfg = &c->ep->cfg;

	p->cwnd = cfg->init_cwnd << MRE_FP;
	p->ssthresh = cfg->max_cwnd << MRE_FP;
	p->alpha = MRE_ALPHA_ONE;
	p->win_end = p->psn_next;
}

void mre_cc_init(struct mre_conn *c)
{
	const struct mre_config *cfg = &c->ep->cfg;

	c->cwnd = cfg->conn_init_cwnd << MRE_FP;
	c->ssthresh = cfg->conn_max_cwnd << MRE_FP;
	c->alpha = 0;
	c->win_end = c->tsn_next;
	c->rate_mbps = 0;
	c->pkt_bytes = 0;
	c->pace_next = 0;
}

/*
 * Is a loss on @p congestion? A queue was standing when it happened: the
 * path's latest RTT sample exceeds its least by loss_queue_pct. A tail-drop
 * port drops only when its buffer is full, so the packets before the loss
 * waited behind that buffer (a 512 KiB port at 100 Gbit/s adds 42 us to an
 * RTT of 10); a loss on a fabric that is not full (a flaky link, a bit
 * error) comes at the base RTT and says nothing about the load (TCP Veno
 * draws the same line with its backlog estimate).
 */
static bool queue_over(const struct mre_path *p, const struct mre_config *cfg,
		       u32 times)
{
	if (!cfg->loss_queue_pct || !p->min_rtt || p->last_rtt <= p->min_rtt)
		return false;
	return (p->last_rtt - p->min_rtt) * 100 >=
	       (u64)cfg->loss_queue_pct * times * p->min_rtt;
}

static bool loss_is_congestion(const struct mre_path *p,
			       const struct mre_config *cfg)
{
	return queue_over(p, cfg, 1);
}

bool mre_cc_loss_queued(const struct mre_path *p, const struct mre_conn *c)
{
	return loss_is_congestion(p, mre_cfg(c));
}

/*
 * Marks where the fabric sets none. On a path that has never brought back
 * a CE mark (a fabric without ECN, a tail-drop port on the way), what an
 * ACK settled counts as marked while the path stands as far above its
 * least RTT as a congestion loss would (loss_is_congestion()) and no
 * measured path of the connection is within a quarter of its own least:
 * a queue that all its paths cross, i.e. the connection's own bottleneck,
 * shared with whoever else crosses it. Each flow through it sees the same
 * delay, so DCTCP's estimator cuts them together and in proportion before
 * the buffer overflows, where the loss that would come next finds them one
 * at a time, a full-queue RTT late. A path with no queue to speak of shows
 * the connection a way around (a congested link on some paths only, or a
 * path just longer than the one the least RTT was seeded from): that is
 * left to the per-path loss cut. A path that has seen marks leaves the
 * queue to ECN, which marks far earlier.
 */
static u32 delay_marks(const struct mre_path *p, const struct mre_conn *c,
		       const struct mre_config *cfg, u32 acked, u32 ce)
{
	u32 i;

	if (ce || !acked || p->st_ce || !loss_is_congestion(p, cfg) ||
	    c->q_held >= MRE_Q_HELD)
		return ce;
	for (i = 0; i < c->npaths; i++) {
		const struct mre_path *q = &c->paths[i];

		if (q->health == MRE_PATH_GOOD && q->srtt &&
		    q->last_rtt * 4 < q->min_rtt * 5)
			return ce;
	}
	return acked;
}

/* a loss cut: half; 0.7 where a loss-based flow holds the queue (CUBIC's) */
static u32 beta_cut(u32 w, const struct mre_conn *c)
{
	return c->q_held >= MRE_Q_HELD ? w - w / 10 * 3 : w / 2;
}

/*
 * A congestion loss halves the connection's window, once per window's worth
 * of packets sent (about an RTT): counted in transmissions, not by the TSN
 * window's progress, which a TSN lost again and again holds up for as long
 * as the congestion lasts.
 */
static void conn_loss_cut(struct mre_conn *c)
{
	const struct mre_config *cfg = &c->ep->cfg;
	u32 was = c->cwnd;

	if (c->loss_cut_left)
		return;
	/* half of what is out, not of a window larger than the flight */
	c->cwnd = clamp_cwnd(beta_cut(MRE_MIN(c->cwnd, data_out(c) << MRE_FP),
				      c), cfg, cfg->conn_max_cwnd);
	c->loss_cut_left = MRE_MAX(data_out(c), 1u);
	c->ssthresh = c->cwnd;
	cut_trace(c, MRE_TR_CONN_WIDE, MRE_TRW_LOSS, was, c->cwnd, c->alpha);
}

/* has any path of @c brought back a CE mark: a fabric that marks? */
static bool conn_marked(const struct mre_conn *c)
{
	u32 i;

	for (i = 0; i < c->npaths; i++)
		if (c->paths[i].st_ce)
			return true;
	return false;
}

/* @by_time: the losses are by send time (mre_cc_path_time_lost()) */
static void path_ack(struct mre_path *p, struct mre_conn *c, u32 acked,
		     u32 lost, u32 ce, bool by_time)
{
	const struct mre_config *cfg = &c->ep->cfg;
	struct mre_ep *ep = c->ep;
	u32 real_ce = ce;

	if (acked && !queue_over(p, cfg, 2))
		c->q_held = 0;		/* the queue drained, or was never there */
	ce = delay_marks(p, c, cfg, acked, ce);
	c->win_delay |= ce != real_ce;
	p->win_acked += acked;
	p->win_ce += ce;
	c->win_ce += ce;
	/* one RTT window of this path has been answered: update alpha */
	if (seq_ge(p->psn_una, p->win_end)) {
		alpha_update(&p->alpha, p->win_acked, p->win_ce, cfg->ecn_g_shift);
		p->win_acked = p->win_ce = 0;
		p->win_cut = false;
		p->win_end = p->psn_next;
	}
	if (ce) {
		if (!p->win_cut) {
			u32 was = p->cwnd;

			p->cwnd = clamp_cwnd(ecn_cut(p->cwnd, p->alpha), cfg,
					     cfg->max_cwnd);
			p->ssthresh = p->cwnd;
			p->win_cut = true;
			ep->ctr.ecn_cut++;
			cut_trace(c, p->id, MRE_TRW_ECN, was, p->cwnd, p->alpha);
		}
	} else if (lost && (cfg->loss_beta_shift || loss_is_congestion(p, cfg))) {
		u32 shift = cfg->loss_beta_shift ? cfg->loss_beta_shift : 1;

		if (!p->win_cut) {
			u32 was = p->cwnd;

			p->cwnd = clamp_cwnd(cfg->loss_beta_shift ?
					     p->cwnd - (p->cwnd >> shift) :
					     beta_cut(p->cwnd, c),
					     cfg, cfg->max_cwnd);
			p->ssthresh = p->cwnd;
			p->win_cut = true;
			ep->ctr.loss_cut++;
			cut_trace(c, p->id, MRE_TRW_LOSS, was, p->cwnd, p->alpha);
		}
		if (!cfg->loss_beta_shift && !(by_time && conn_marked(c)))
			conn_loss_cut(c);
	} else if (acked && window_used(p->inflight + acked + lost, p->cwnd)) {
		/* a queue is building: slow start has found the pipe's size */
		if (p->cwnd < p->ssthresh && loss_is_congestion(p, cfg)) {
			p->ssthresh = p->cwnd;
			if (c->cwnd < c->ssthresh)
				c->ssthresh = c->cwnd;
		}
		aimd_grow(&p->cwnd, &p->ssthresh, acked);
		p->cwnd = clamp_cwnd(p->cwnd, cfg, cfg->max_cwnd);
	}
}

void mre_cc_path_ack(struct mre_path *p, struct mre_conn *c, u32 acked,
		     u32 lost, u32 ce)
{
	path_ack(p, c, acked, lost, ce, false);
}

/*
 * @n PSNs of @p lost by send time (loss.c). No ACK of @p brought them, so
 * none of the path's CE marks came with them: where FACK finds the same
 * drops on an ACK with marks and takes DCTCP's cut, these took the loss
 * cut. On a fabric that marks they cut the path but not the connection,
 * whose window ECN answers for (the 1,024-host permutation: 348 connection
 * cuts against 6 without loss by send time, tail 411 us against 329).
 * Where nothing marks, a loss may be the only signal: both are cut.
 */
void mre_cc_path_time_lost(struct mre_path *p, struct mre_conn *c, u32 n)
{
	path_ack(p, c, 0, n, 0, true);
}

void mre_cc_path_rto(struct mre_path *p, struct mre_conn *c)
{
	const struct mre_config *cfg = &c->ep->cfg;

	u32 was = p->cwnd;

	p->ssthresh = clamp_cwnd(p->cwnd / 2, cfg, cfg->max_cwnd);
	p->cwnd = cfg->min_cwnd << MRE_FP;
	cut_trace(c, p->id, MRE_TRW_RTO, was, p->cwnd, p->alpha);
	p->win_cut = true;
	p->win_end = p->psn_next;
}

/*
 * The queue is another flow's: the delay marks' cuts left the connection a
 * window far under its share. Slow start again, as a new flow of that
 * other kind would, up to its first loss, on the connection and its paths.
 */
static void compete(struct mre_conn *c)
{
	const struct mre_config *cfg = &c->ep->cfg;
	u32 i;

	c->ssthresh = cfg->conn_max_cwnd << MRE_FP;
	for (i = 0; i < c->npaths; i++)
		c->paths[i].ssthresh = cfg->max_cwnd << MRE_FP;
}

void mre_cc_conn_acked(struct mre_conn *c, u32 n)
{
	const struct mre_config *cfg = &c->ep->cfg;

	c->win_acked += n;
	if (seq_ge(c->tsn_una, c->win_end)) {
		bool marked = c->win_ce != 0;

		alpha_update(&c->alpha, c->win_acked, c->win_ce, cfg->ecn_g_shift);
		if (marked && c->win_delay && c->q_held < MRE_Q_HELD &&
		    !conn_marked(c) && ++c->q_held == MRE_Q_HELD)
			compete(c);
		c->win_delay = false;
		if (marked) {
			u32 was = c->cwnd;

			c->cwnd = clamp_cwnd(ecn_cut(c->cwnd, c->alpha), cfg,
					     cfg->conn_max_cwnd);
			c->ssthresh = c->cwnd;
			cut_trace(c, MRE_TR_CONN_WIDE, MRE_TRW_ECN, was, c->cwnd,
				  c->alpha);
		}
		c->win_acked = c->win_ce = 0;
		c->win_end = c->tsn_next;
		if (marked)
			return;
	}
	if (!c->win_ce && !c->loss_cut_left &&
	    window_used(data_out(c) + n, c->cwnd)) {
		/*
		 * Beside a loss-based flow, two packets a window: CUBIC
		 * regrows faster than one a window on long round trips
		 * (a 1 KiB packet is also under its 1448-byte segment)
		 */
		if (c->q_held >= MRE_Q_HELD && c->cwnd >= c->ssthresh)
			n *= 2;
		aimd_grow(&c->cwnd, &c->ssthresh, n);
		c->cwnd = clamp_cwnd(c->cwnd, cfg, cfg->conn_max_cwnd);
	}
}

bool mre_cc_can_send(struct mre_conn *c, u64 now, u64 *at)
{
	if (data_out(c) >= c->cwnd >> MRE_FP)
		return false;		/* an ACK will reopen it */
	if (c->rate_mbps && c->pace_next > now) {
		*at = c->pace_next;
		return false;
	}
	return true;
}

/*
 * In slow start, the first hint tells the connection the rate it may use:
 * take at once a window that carries that rate over its slowest measured
 * path, instead of doubling towards it for several RTTs (a lone sender on
 * paths of 120 us would spend most of a millisecond there). Pacing at the
 * hint keeps the larger window from bursting, and a sender with a small
 * share (an incast) gets no more than it had. After the first congestion
 * signal (ssthresh set) the window moves by ECN alone.
 */
void mre_cc_rate(struct mre_conn *c, u32 mbps)
{
	const struct mre_config *cfg = &c->ep->cfg;
	u64 rtt = 0, w;
	u32 i;

	if (c->rate_mbps != mbps) {
		struct mre_trace t = {
			.ev = MRE_TR_HINT, .path = MRE_TR_CONN_WIDE,
			.hint = { .from = c->rate_mbps, .to = mbps },
		};

		mre_trace(c, &t);
	}
	c->rate_mbps = mbps;
	if (!mbps || c->cwnd >= c->ssthresh || !c->pkt_bytes)
		return;
	for (i = 0; i < c->npaths; i++)
		if (c->paths[i].health == MRE_PATH_GOOD)
			rtt = MRE_MAX(rtt, c->paths[i].min_rtt);
	/* Mbit/s * ns / 8000 = bytes in flight at that rate */
	w = (u64)mbps * rtt / 8000 / c->pkt_bytes;
	w = MRE_MIN(w, (u64)cfg->conn_max_cwnd) << MRE_FP;
	if (w > c->cwnd)
		c->cwnd = (u32)w;
}

void mre_cc_sent(struct mre_conn *c, u32 bytes, u64 now)
{
	u64 floor = now > MRE_PACE_BURST_NS ? now - MRE_PACE_BURST_NS : 0;

	c->pkt_bytes = c->pkt_bytes ? c->pkt_bytes - c->pkt_bytes / 8 + bytes / 8 :
		       bytes;
	if (c->loss_cut_left)
		c->loss_cut_left--;

	if (!c->rate_mbps)
		return;
	if (c->pace_next < floor)
		c->pace_next = floor;
	/* bytes * 8 bits / (rate * 1e6 bit/s) in ns = bytes * 8000 / rate */
	c->pace_next += (u64)bytes * 8000 / c->rate_mbps;
}

/*
 * How long an activity epoch lasts. A sender paced at its share of N sends
 * a packet every N packet times of the receiver's link, so an epoch shorter
 * than that misses senders and the hint it yields is too large: in a
 * 1,000:1 incast of 4 KiB packets at 100 Gbit/s, a sender's packets are
 * 340 us apart, and counting over 50 us saw about one in seven, offered
 * each seven times its share and overflowed the port again. The epoch is
 * therefore at least two such intervals for the count it last saw, and
 * never shorter than active_ns.
 */
static u64 act_span(const struct mre_ep *ep)
{
	u64 n = MRE_MAX(ep->act_cur, ep->act_prev), span;

	if (!ep->cfg.link_mbps || !ep->act_bytes)
		return ep->cfg.active_ns;
	/* bytes * 8000 / Mbit/s = ns on the wire */
	span = 2 * n * ep->act_bytes * 8000 / ep->cfg.link_mbps;
	return MRE_MAX(span, ep->cfg.active_ns);
}

/*
 * Has the current epoch lasted @k spans after @d ns? A span is never less
 * than active_ns, so the division in act_span() is left out while @d is
 * shorter than that: on the receive path, for nearly every packet.
 */
static bool act_past(const struct mre_ep *ep, u64 d, u32 k)
{
	return d >= k * ep->cfg.active_ns && d >= k * act_span(ep);
}

void mre_cc_rx_activity(struct mre_conn *c, u32 bytes, u64 now)
{
	struct mre_ep *ep = c->ep;
	u64 d = now - ep->act_epoch_start;
	bool roll = act_past(ep, d, 1), stale = roll && act_past(ep, d, 2);

	if (bytes)
		ep->act_bytes = ep->act_bytes ?
				ep->act_bytes - ep->act_bytes / 8 + bytes / 8 : bytes;
	if (roll) {
		/* a skipped epoch means nobody was active in it */
		ep->act_prev = stale ? 0 : ep->act_cur;
		ep->act_cur = 0;
		ep->act_epoch++;
		ep->act_epoch_start = now;
	}
	if (c->act_epoch != ep->act_epoch) {
		c->act_epoch = ep->act_epoch;
		ep->act_cur++;
	}
}

u32 mre_cc_hint(struct mre_conn *c, u64 now)
{
	struct mre_ep *ep = c->ep;
	u64 n;

	if (!ep->cfg.link_mbps)
		return 0;
	n = MRE_MAX(ep->act_cur, ep->act_prev);
	if (act_past(ep, now - ep->act_epoch_start, 2))
		n = 0;		/* stale: nobody sent for two epochs */
	if (!n)
		n = 1;
	n = ep->cfg.link_mbps * ep->cfg.hint_pct / 100 / n;
	return n > 0xffffffffULL ? 0xffffffffu : n ? (u32)n : 1;
}
