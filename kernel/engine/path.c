// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Paths: sequence, loss detection, RTT/RTO, health (see path.h).
 *
 * Timers of a path, and what starts them:
 *   rto_at    armed when a PSN goes out with none outstanding, re-armed on
 *             every ACK that settles something, cleared when nothing is
 *             outstanding. Fires: everything outstanding is lost, the path
 *             gets a new source port, SUSPECT, or FAILED after fail_rtos;
 *             if nothing was heard from the peer, only the oldest is lost
 *             (conn_stall_rto()), and from the second the path moves.
 *   probe_at  armed while FAILED (not while its plane is down). Fires: a
 *             PROBE on a fresh source port; the interval doubles up to
 *             probe_max_ns. An ACK covering a probe makes the path GOOD.
 *   quiet_due armed while the path has silence_k PSNs out that it has
 *             heard nothing about (those it lost by send time since it
 *             last heard anything count, though settled). Fires: if
 *             packets sent after them on other paths have been
 *             acknowledged, the path is silent (path_silent()); else it
 *             waits for such an ACK (quiet_wait).
 *   ack_at    (receive side) the delayed-ACK deadline, see recv.c.
 * Each is set through mre_due(): mre_conn_run() looks no earlier.
 */
#include "parity.h"
#include "path.h"
#include "cc.h"
#include "conn.h"
#include "loss.h"
#include "tsn.h"

static const char *const health_names[] = {
	[MRE_PATH_GOOD] = "good",
	[MRE_PATH_SUSPECT] = "suspect",
	[MRE_PATH_FAILED] = "failed",
};

/* tell the embedder a path changed (health, port, plane) */
static void path_event(struct mre_conn *c)
{
	if (c->ep->ops->conn_event)
		c->ep->ops->conn_event(c, MRE_CONN_PATH);
}

const char *mre_path_health_name(u8 h)
{
	return h < MRE_ARRAY_SIZE(health_names) ? health_names[h] : "?";
}

/* @p's health is now @h, because of @why (traced when it changed) */
static void set_health(struct mre_path *p, struct mre_conn *c, u8 h, u8 why)
{
	struct mre_trace t = {
		.ev = MRE_TR_PATH, .why = why, .path = p->id,
		.state = { .from = p->health, .to = h },
	};

	if (p->health == h)
		return;
	p->health = h;
	mre_trace(c, &t);
}

/* a source port in the dynamic range, different from the current one */
static u16 pick_port(struct mre_conn *c, u16 old)
{
	u16 port;

	do {
		port = 49152 + (u16)(c->ep->ops->random(c->ep) % 16384);
	} while (port == old);
	return port;
}

void mre_path_init(struct mre_path *p, struct mre_conn *c, u16 id, u64 now)
{
	const struct mre_config *cfg = &c->ep->cfg;

	mre_memset(p, 0, sizeof(*p));
	p->id = id;
	p->plane = id % c->nplanes;
	p->src_port = pick_port(c, 0);
	p->health = MRE_PATH_GOOD;
	p->rto = cfg->rto_init_ns;
	mre_win_init(&p->rx, p->rx_map, MRE_SACK_BITS, 0);
	mre_cc_path_init(p, c);
}

static bool is_settled(const struct mre_path *p, u32 psn)
{
	return mre_bit(p->settled, psn & (MRE_PATH_RING - 1));
}

/*
 * The data packet @psn of @p still has out (its TSN in *@tsn), or NULL: a
 * settled PSN, a probe, or a TSN since resent elsewhere
 */
static const struct mre_txd *out_txd(const struct mre_path *p,
				     struct mre_conn *c, u32 psn, u32 *tsn)
{
	const struct mre_txd *t;

	*tsn = p->ring[psn & (MRE_PATH_RING - 1)];
	if (is_settled(p, psn) || *tsn == MRE_PSN_PROBE)
		return NULL;
	t = mre_txd_of(c, *tsn);
	return t->path == p->id && t->psn == psn ? t : NULL;
}

u32 mre_path_room(const struct mre_path *p)
{
	u32 w = p->cwnd >> MRE_FP, out = p->psn_next - p->psn_una;

	if (p->health == MRE_PATH_FAILED || p->plane_down)
		return 0;
	if (!w)
		w = 1;
	if (p->inflight >= w || out >= MRE_PATH_MAX_OUT)
		return 0;
	return MRE_MIN(w - p->inflight, MRE_PATH_MAX_OUT - out);
}

bool mre_path_can_send(const struct mre_path *p)
{
	return mre_path_room(p) > 0;
}

/* --- silence: a path that hears nothing while its siblings are heard ----- */
#define MRE_SILENCE_KMAX 16

/*
 * How many PSNs a path must have out, unheard of, before its silence
 * counts. The receiver acknowledges at least every ack_freq-th packet of
 * a path that arrives; one more than that, so that a single lost packet
 * (whose neighbour's ACK then waits for the next arrival) is not
 * silence. Beyond that, each ack_freq more packets give the path one more
 * chance to be heard, each missed when the ACK or the packets it would
 * cover are lost, about twice the loss rate: enough chances that a
 * healthy path at the connection's loss rate stays unheard less than
 * once in a thousand times. On a clean fabric 3 packets, at 2 % end-to-end
 * loss 7, at 19 % the cap (16).
 */
void mre_path_silence_k(struct mre_conn *c)
{
	u64 l = MRE_MIN(2ULL * c->loss_ewma, 60000ULL), pr = l;
	u32 f = c->ep->cfg.ack_freq, k = f + 1;

	while (pr > 64 && k < MRE_SILENCE_KMAX) {
		pr = pr * l >> 16;
		k += f;
	}
	c->silence_k = MRE_MIN(k, MRE_MAX(f, MRE_SILENCE_KMAX));
}

/* the first PSN of @p that no ACK has said anything about */
static u32 first_unheard(const struct mre_path *p)
{
	return seq_max(p->psn_fack, p->psn_una);
}

/* how long after it was sent an unheard PSN of @p is overdue */
static u64 quiet_span(const struct mre_path *p)
{
	return p->srtt + MRE_MAX(4 * p->rttvar, p->srtt / 4);
}

/*
 * The PSN silence watches: the silence_k-th unheard one, counting the
 * PSNs lost by send time since the path last heard anything: no ACK said
 * anything of those either. (Settled, they moved psn_una, and a path that
 * loses every batch of fewer than silence_k by send time was never judged.)
 */
static u32 quiet_psn(const struct mre_path *p, const struct mre_conn *c)
{
	return first_unheard(p) + c->silence_k - 1 -
	       MRE_MIN(p->time_unheard, c->silence_k - 1);
}

static void quiet_set(struct mre_path *p, struct mre_conn *c, u64 sent)
{
	p->quiet_on = true;
	p->quiet_wait = false;
	p->quiet_ts = sent;
	p->quiet_due = mre_due(c, p, sent + quiet_span(p));
}

/*
 * Watch the silence_k-th unheard PSN, by its send time (in its
 * descriptor; probes are not watched: a FAILED path probes on its own
 * schedule). A path without an RTT sample of its own is not watched
 * either: only its RTO can judge it.
 */
static void quiet_arm(struct mre_path *p, struct mre_conn *c, u64 now)
{
	u32 psn = quiet_psn(p, c);
	u32 tsn = p->ring[psn & (MRE_PATH_RING - 1)];
	const struct mre_txd *t = mre_txd_of(c, tsn);

	p->quiet_on = false;
	p->quiet_wait = false;
	p->quiet_due = 0;
	if (!p->srtt || p->health == MRE_PATH_FAILED ||
	    !seq_lt(psn, p->psn_next) || is_settled(p, psn) ||
	    tsn == MRE_PSN_PROBE || t->path != p->id || t->psn != psn)
		return;
	quiet_set(p, c, now - (u32)((u32)now - t->sent));
}

/*
 * The newest PSN of @p is a response packet that did not ask for an ACK
 * (the requester has no use for a quick one): the receiver may hold its
 * ACK for its ack delay (ours, as the fabric's endpoints are configured
 * alike; answer_ack_ns for a one-packet response), so the tail's timers
 * wait that much longer, as TCP's tail probe allows for a delayed ACK
 * (RFC 8985) and QUIC's probe timeout for max_ack_delay. RTT samples take
 * the delay out already (the ACK says how long it was held). Requests and
 * data keep their timers: the last packet of their message asks.
 */
static u64 lazy_wait(const struct mre_path *p, const struct mre_conn *c)
{
	return p->tail == MRE_TAIL_ANSWER ? c->ep->cfg.answer_ack_ns :
	       p->tail == MRE_TAIL_LAZY ? c->ep->cfg.ack_delay_ns : 0;
}

/*
 * Tail probe (after TCP's TLP, RFC 8985): when a path with packets out has
 * heard nothing for two smoothed RTTs, its last packets or the ACK for
 * them are probably lost, and with nothing sent after them FACK cannot
 * tell; the RTO (rto_min, milliseconds in software) would. Send a PROBE
 * on the path instead: the receiver answers it at once, and every PSN
 * sent before it that its ACK does not show arrived is lost (it had two
 * RTTs to get there). One probe per silence; the RTO stays the backstop.
 */
static void tlp_arm(struct mre_path *p, struct mre_conn *c, u64 now)
{
	u64 pto = MRE_MAX(2 * p->srtt, p->srtt + 4 * p->rttvar);

	p->tlp_at = 0;
	/*
	 * None: probes off, a peer that is ourselves (mre_conn_set_local()),
	 * no RTT yet, a failed path; or all it has unsettled are answers,
	 * which their requests watch.
	 */
	if (!c->ep->cfg.tlp || c->local || !p->srtt ||
	    p->health == MRE_PATH_FAILED ||
	    (p->tail == MRE_TAIL_ANSWER && seq_lt(p->last_asked, p->psn_una)))
		return;
	p->tlp_at = mre_due(c, p, now + MRE_MAX(pto, c->ep->cfg.tlp_min_ns) +
			    lazy_wait(p, c));
}

/*
 * The probe's PSN was settled some other way (FACK, a TSN acceptance, a
 * stalled connection's timeout): it will not be seen in an ACK's ranges,
 * so tail probes would stay off on this path until its next timeout.
 */
static void tlp_settled(struct mre_path *p)
{
	if (p->tlp_out && (seq_lt(p->tlp_psn, p->psn_una) ||
			   is_settled(p, p->tlp_psn)))
		p->tlp_out = false;
}

/* true: the tail probe is due now (the caller sends it) */
static bool tlp_fire(struct mre_path *p, struct mre_conn *c, u64 now)
{
	p->tlp_at = 0;
	if (!p->inflight || p->health == MRE_PATH_FAILED || p->plane_down)
		return false;
	c->ep->ctr.tx_tlp++;
	p->tlp_psn = p->psn_next;
	p->tlp_sent = (u32)now;
	p->tlp_out = true;
	return true;
}

u32 mre_path_sent(struct mre_path *p, struct mre_conn *c, u32 tsn, u8 tail,
		  u64 now)
{
	u32 psn = p->psn_next++;

	p->tail = tail;
	if (tail != MRE_TAIL_ANSWER)
		p->last_asked = psn;
	p->ring[psn & (MRE_PATH_RING - 1)] = tsn;
	mre_bit_clear(p->settled, psn & (MRE_PATH_RING - 1));
	p->inflight++;
	c->inflight++;
	if (tsn == MRE_PSN_PROBE && p->health == MRE_PATH_FAILED) {
		p->fprobes++;		/* outside the connection's window */
		c->probes_out++;
	}
	p->st_tx++;
	p->since_repath++;
	if (!p->rto_at) {
		p->rto_base = now;
		p->rto_at = mre_due(c, p, now + lazy_wait(p, c) +
				    (p->srtt ? p->rto : mre_path_guess_rto(c, p)));
	}
	if (!p->tlp_at && !p->tlp_out)
		tlp_arm(p, c, now);
	if (!p->quiet_on && p->srtt && tsn != MRE_PSN_PROBE &&
	    p->health != MRE_PATH_FAILED &&
	    psn == quiet_psn(p, c))
		quiet_set(p, c, now);
	return psn;
}

static void settle(struct mre_path *p, struct mre_conn *c, u32 psn)
{
	mre_bit_set(p->settled, psn & (MRE_PATH_RING - 1));
	p->inflight--;
	c->inflight--;
	if (p->fprobes && p->ring[psn & (MRE_PATH_RING - 1)] == MRE_PSN_PROBE) {
		p->fprobes--;
		c->probes_out--;
	}
}

/*
 * Lost fraction, 1/65536 units: the path's (gain 1/64) and all paths'
 * (gain 1/1024: slow enough that sparse losses, one in a thousand, keep
 * it near their rate between them; rounded so that it decays to 0 on a
 * clean fabric).
 */
static void loss_sample(struct mre_path *p, struct mre_conn *c, bool lost)
{
	p->loss_ewma = p->loss_ewma - (p->loss_ewma >> 6) + (lost ? 1024 : 0);
	c->loss_ewma = c->loss_ewma - ((c->loss_ewma + 1023) >> 10) +
		       (lost ? 64 : 0);
}

/* @psn is lost, as @why found (FAST: FACK, TIME: by send time; or a timer) */
static void settle_lost(struct mre_path *p, struct mre_conn *c, u32 psn,
			u8 why)
{
	u32 tsn = p->ring[psn & (MRE_PATH_RING - 1)];
	struct mre_trace t = {
		.ev = MRE_TR_LOSS, .why = why, .path = p->id,
		.loss = { .psn = psn, .tsn = tsn },
	};

	settle(p, c, psn);
	mre_trace(c, &t);	/* a probe too: the loss counters count it */
	if (tsn == MRE_PSN_PROBE)
		return;
	p->st_lost++;
	loss_sample(p, c, true);
	mre_parity_lost(c, mre_cc_loss_queued(p, c));
	mre_tsn_lost(c, tsn, p->id, psn, why == MRE_TRW_FAST ? 1 :
		     why == MRE_TRW_TIME ? 2 : 0);
}

static void advance_una(struct mre_path *p)
{
	while (p->psn_una != p->psn_next && is_settled(p, p->psn_una))
		p->psn_una++;
}

static void recovered(struct mre_path *p, struct mre_conn *c)
{
	const struct mre_config *cfg = &c->ep->cfg;

	set_health(p, c, MRE_PATH_GOOD, MRE_TRW_ACKED);
	p->n_rto = 0;
	p->probe_at = 0;
	p->cwnd = cfg->init_cwnd << MRE_FP;
	p->ssthresh = cfg->max_cwnd << MRE_FP;
	p->win_cut = false;
	p->win_end = p->psn_next;
	p->loss_ewma = 0;
	c->ep->ctr.path_recovered++;
	path_event(c);
}

/* average loss over the connection's other usable paths, 1/65536 units */
static u32 others_loss(const struct mre_conn *c, const struct mre_path *p)
{
	u64 sum = 0;
	u32 i, n = 0;

	for (i = 0; i < c->npaths; i++) {
		if (&c->paths[i] == p || c->paths[i].health == MRE_PATH_FAILED)
			continue;
		sum += c->paths[i].loss_ewma;
		n++;
	}
	return n ? (u32)(sum / n) : 0;
}

/* move off a path that loses far more than its siblings */
static void check_repath(struct mre_path *p, struct mre_conn *c)
{
	const struct mre_config *cfg = &c->ep->cfg;
	u32 avg, lim = cfg->repath_loss_pct * 65536u / 100;

	if (!cfg->repath_loss_pct || p->since_repath < 128 || p->loss_ewma < lim)
		return;
	avg = others_loss(c, p);
	if (c->npaths > 1 && (u64)p->loss_ewma < (u64)avg * cfg->repath_factor)
		return;
	mre_path_repath(p, c, MRE_TRW_LOSSY);
	p->loss_ewma = avg;
}

/*
 * A sibling measured the RTT: paths still running on a guess follow the
 * slowest measured sibling (mre_path_guess_rto()), both ways: shorter than
 * rto_init once one is measured, and longer again when a slower one is.
 * On paths of different lengths a guess kept from the short paths alone
 * would time the long ones out before their first ACK could come back.
 */
static void retime_guesses(struct mre_conn *c)
{
	u32 i;

	for (i = 0; i < c->npaths; i++) {
		struct mre_path *q = &c->paths[i];

		if (q->srtt || !q->rto_at || q->health == MRE_PATH_FAILED)
			continue;
		q->rto_at = mre_due(c, q, q->rto_base + mre_path_guess_rto(c, q));
	}
}

/* what one ACK did to a path, gathered over its phases */
struct ack_news {
	u32 acked;		/* PSNs it settled as arrived */
	u32 lost;		/* PSNs it settled as lost */
	bool probe_acked;	/* one of them was a probe */
	bool tlp_seen;		/* one of them was the tail probe */
};

/* an ACK says @psn arrived: settle it, and tell its TSN's descriptor */
static void ack_one(struct mre_path *p, struct mre_conn *c, u32 psn,
		    const struct mre_pkt *pkt, u64 now, struct ack_news *n)
{
	u32 tsn = p->ring[psn & (MRE_PATH_RING - 1)];
	const struct mre_txd *t;

	n->tlp_seen |= p->tlp_out && psn == p->tlp_psn;
	settle(p, c, psn);
	loss_sample(p, c, false);
	n->acked++;
	if (tsn == MRE_PSN_PROBE) {
		n->probe_acked = true;
		return;
	}
	t = mre_txd_of(c, tsn);
	if (t->path == p->id && t->psn == psn)
		mre_loss_delivered(c, t, tsn, now);
	mre_tsn_arrived(c, tsn, p->id, psn, pkt, now);
}

/* everything below psn_cum arrived; the SACK bits cover the rest */
static void ack_ranges(struct mre_path *p, struct mre_conn *c,
		       const struct mre_pkt *pkt, u64 now, struct ack_news *n)
{
	const struct mre_pkt_ack *a = &pkt->ack;
	u32 psn, end, i;

	end = seq_lt(a->psn_cum, p->psn_una) ? p->psn_una : a->psn_cum;
	for (psn = p->psn_una; psn != end; psn++)
		if (!is_settled(p, psn))
			ack_one(p, c, psn, pkt, now, n);
	if (seq_gt(a->psn_cum, p->psn_fack))
		p->psn_fack = a->psn_cum;
	for (i = 0; i < MRE_SACK_BITS; i++) {
		u32 w = a->sack[i / 32];

		if (!w) {
			i |= 31;
			continue;
		}
		if (!(w >> (i % 32) & 1))
			continue;
		psn = a->psn_cum + 1 + i;
		if (seq_ge(psn, p->psn_next))
			break;
		if (seq_gt(psn + 1, p->psn_fack))
			p->psn_fack = psn + 1;
		if (seq_lt(psn, p->psn_una) || is_settled(p, psn))
			continue;
		ack_one(p, c, psn, pkt, now, n);
	}
}

/*
 * FACK: unsettled and reorder PSNs below the highest SACKed: lost.
 * The threshold stays below three quarters of the path's window: a
 * path that cannot have that many packets out would see no loss this
 * way, only by its timers (heavy reordering costs resends instead).
 */
static void ack_fack(struct mre_path *p, struct mre_conn *c,
		     struct ack_news *n)
{
	u32 thr = MRE_MIN(c->reorder, MRE_MAX(c->ep->cfg.reorder_pkts,
					      (p->cwnd >> MRE_FP) * 3 / 4));
	u32 psn;

	for (psn = p->psn_una; seq_lt(psn + thr, p->psn_fack); psn++) {
		if (is_settled(p, psn))
			continue;
		settle_lost(p, c, psn, MRE_TRW_FAST);
		c->ep->ctr.loss_fast++;
		n->lost++;
	}
}

/*
 * The tail probe got there: what went out an RTT or more before it
 * and did not is lost. (Younger PSNs may just have been overtaken:
 * a software sender's packets leave from several CPUs.)
 */
static void ack_tlp(struct mre_path *p, struct mre_conn *c,
		    struct ack_news *n)
{
	u32 psn;

	for (psn = p->psn_una; seq_lt(psn, p->tlp_psn); psn++) {
		u32 tsn = p->ring[psn & (MRE_PATH_RING - 1)];
		const struct mre_txd *t = mre_txd_of(c, tsn);

		if (is_settled(p, psn) || (tsn != MRE_PSN_PROBE &&
		    t->path == p->id && t->psn == psn &&
		    p->tlp_sent - t->sent < p->srtt))
			continue;
		settle_lost(p, c, psn, MRE_TRW_TLP);
		c->ep->ctr.loss_tlp++;
		n->lost++;
	}
	p->tlp_out = false;
}

/* the ACK's measurements: CE marks, RTT, health, window, timers */
static void ack_measure(struct mre_path *p, struct mre_conn *c,
			const struct mre_pkt_ack *a, u64 now,
			const struct ack_news *n)
{
	u32 ce = a->ce_count - p->ce_echo;

	p->ce_echo = a->ce_count;
	if (ce > 1u << 30)
		ce = 0;		/* went backwards: a reordered older ACK */
	p->st_ce += ce;
	/*
	 * Newer news of the path: an RTT sample even when other paths' ACKs
	 * settled these PSNs first (mre_path_arrived()); PSNs are never
	 * resent, so any echo is a clean sample.
	 */
	if (n->acked || (s32)(a->ts_echo - p->ts_echo) > 0) {
		p->ts_echo = a->ts_echo;
		mre_path_rtt_sample(p, &c->ep->cfg, a, now);
		p->st_acked += n->acked;
		if (p->health == MRE_PATH_FAILED ? n->probe_acked :
		    p->health == MRE_PATH_SUSPECT)
			recovered(p, c);
		p->n_rto = 0;
		p->n_stall = 0;
		p->time_unheard = 0;
	}
	if (p->health != MRE_PATH_FAILED) {
		mre_cc_path_ack(p, c, n->acked, n->lost, ce);
		if (n->lost)
			check_repath(p, c);
	}
	if (!p->inflight) {
		p->rto_at = 0;
		p->tlp_at = 0;
	} else if (n->acked) {
		p->rto_base = now;
		p->rto_at = mre_due(c, p, now + p->rto + lazy_wait(p, c));
		if (!p->tlp_out)
			tlp_arm(p, c, now);
	}
	if (n->acked)
		retime_guesses(c);
}

void mre_path_ack(struct mre_path *p, struct mre_conn *c,
		  const struct mre_pkt *pkt, u64 now)
{
	const struct mre_pkt_ack *a = &pkt->ack;
	struct ack_news n = { 0 };
	s32 age;

	if (seq_gt(a->psn_cum, p->psn_next)) {
		c->ep->ctr.drop_ack++;	/* acknowledges PSNs never sent */
		return;
	}
	/* sent at ts_echo, what came before is due; none from our future */
	age = (s32)((u32)now - a->ts_echo);
	if (age >= 0 && (u64)age <= now && now - (u64)age > c->heard_sent)
		c->heard_sent = now - (u64)age;
	mre_path_silence_k(c);
	ack_ranges(p, c, pkt, now, &n);
	ack_fack(p, c, &n);
	if (n.tlp_seen)
		ack_tlp(p, c, &n);
	advance_una(p);
	tlp_settled(p);
	ack_measure(p, c, a, now, &n);
	quiet_arm(p, c, now);
}

/*
 * Every ACK carries the connection's TSN state, so the path a TSN went on
 * learns that it arrived from whichever ACK comes first: its window and
 * timers move on without an ACK of its own for every few packets (paths
 * carry a few packets each between the ACKs asked for, and each would
 * otherwise wait for the receiver's ACK delay, or a tail probe). FACK's
 * highest SACKed PSN is not moved: TSN order says nothing of PSN order.
 */
void mre_path_arrived(struct mre_path *p, struct mre_conn *c, u32 psn,
		      u64 now)
{
	u32 tsn = p->ring[psn & (MRE_PATH_RING - 1)];
	const struct mre_txd *t;
	bool news;

	if (seq_lt(psn, p->psn_una) || !seq_lt(psn, p->psn_next) ||
	    is_settled(p, psn))
		return;
	/*
	 * News for loss.c and of the path if sent once: a resent TSN may be
	 * any copy's (Karn), as the first arriving late behind its resend here
	 */
	t = mre_txd_of(c, tsn);
	news = tsn != MRE_PSN_PROBE && t->xmits < 2;
	if (news) {
		mre_loss_delivered(c, t, tsn, now);
		p->time_unheard = 0;
	}
	settle(p, c, psn);
	loss_sample(p, c, false);
	p->n_stall = 0;
	p->st_acked++;
	p->st_tsn_acked++;
	advance_una(p);
	tlp_settled(p);
	if (p->health != MRE_PATH_FAILED)
		mre_cc_path_ack(p, c, 1, 0, 0);
	if (!p->inflight) {
		p->rto_at = 0;
		p->tlp_at = 0;
	} else {
		p->rto_base = now;
		p->rto_at = mre_due(c, p, now + p->rto + lazy_wait(p, c));
		if (!p->tlp_out)
			tlp_arm(p, c, now);
	}
	/* no news: a watch that counts losses by send time stays on */
	if (news || !p->time_unheard || !p->quiet_on)
		quiet_arm(p, c, now);
}

u64 mre_path_time_lost(struct mre_path *p, struct mre_conn *c, u32 newest,
		       u32 newest_tsn, u64 wait, u64 now)
{
	u32 psn, n = 0, unheard = 0, kth_age = 0;
	bool kth_lost = false;
	u64 due = 0, w;

	for (psn = p->psn_una; psn != p->psn_next; psn++) {
		const struct mre_txd *t;
		u32 tsn, age;

		t = out_txd(p, c, psn, &tsn);
		if (!t)
			continue;
		if (!mre_loss_before(t, tsn, newest, newest_tsn))
			break;		/* the rest of @p left later still */
		age = (u32)now - t->sent;
		w = mre_loss_wait(c, p, psn, tsn, wait);
		if (age < w) {
			due = w - age;
			break;
		}
		if (seq_ge(psn, p->psn_fack) &&	/* unheard of */
		    p->time_unheard + ++unheard >= c->silence_k && !kth_lost) {
			kth_lost = true;
			kth_age = age;
		}
		settle_lost(p, c, psn, MRE_TRW_TIME);
		n++;
	}
	if (!n)
		return due;
	c->ep->ctr.loss_time += n;
	advance_una(p);
	tlp_settled(p);
	if (p->health != MRE_PATH_FAILED) {
		mre_cc_path_time_lost(p, c, n);
		check_repath(p, c);
	}
	if (!p->inflight) {
		p->rto_at = 0;
		p->tlp_at = 0;
	}
	/*
	 * Those above fack were not heard of either: they count for silence
	 * (a black-holed path must be found silent, not lose each new packet
	 * by send time), the silence_k-th by its send time. A watch on stays:
	 * psn_una may pass PSNs that arrived (by TSN) and move it later.
	 */
	if (!unheard || p->health == MRE_PATH_FAILED)
		return due;
	p->time_unheard += unheard;
	if (p->quiet_on)
		return due;
	if (kth_lost)
		quiet_set(p, c, now - kth_age);
	else
		quiet_arm(p, c, now);
	return due;
}

void mre_path_answers_acked(struct mre_path *p, struct mre_conn *c, u64 now)
{
	p->tail = MRE_TAIL_LAZY;
	if (p->inflight && !p->tlp_at && !p->tlp_out)
		tlp_arm(p, c, now);
}

void mre_path_repath(struct mre_path *p, struct mre_conn *c, u8 why)
{
	struct mre_trace t = {
		.ev = MRE_TR_REPATH, .why = why, .path = p->id,
		.port = { .from = p->src_port },
	};

	p->src_port = pick_port(c, p->src_port);
	t.port.to = p->src_port;
	mre_trace(c, &t);
	p->since_repath = 0;
	p->st_repath++;
	c->ep->ctr.path_repath++;
	path_event(c);
}

void mre_path_all_lost(struct mre_path *p, struct mre_conn *c, u64 *ctr,
		       u8 why)
{
	u32 psn;

	for (psn = p->psn_una; psn != p->psn_next; psn++)
		if (!is_settled(p, psn)) {
			settle_lost(p, c, psn, why);
			(*ctr)++;
		}
	p->psn_una = p->psn_next;
	p->rto_at = 0;
	p->tlp_at = 0;
	p->tlp_out = false;
	p->quiet_on = false;
	p->quiet_due = 0;
}

void mre_path_fail(struct mre_path *p, struct mre_conn *c, u64 now, u8 why)
{
	const struct mre_config *cfg = &c->ep->cfg;

	mre_path_all_lost(p, c, &c->ep->ctr.loss_rto, why);
	if (p->health != MRE_PATH_FAILED) {
		set_health(p, c, MRE_PATH_FAILED, why);
		c->ep->ctr.path_failed++;
		p->probe_ivl = cfg->probe_min_ns;
	}
	p->probe_at = mre_due(c, p, p->plane_down ? 0 : now + p->probe_ivl);
	if (!p->plane_down)
		mre_path_repath(p, c, why);
	else
		path_event(c);
}

/*
 * A connection-wide stall backs a path's timer off to rto_init (at least
 * rto_min), not rto_max. A peer that answers nothing is dead (dead_ns) or
 * swamped, as an incast's receiver: senders whose first packets were all
 * dropped backed off to 100 ms retried long after the port drained (a
 * 1,023:1 incast of 100 KB took 95 ms instead of 8.2).
 */
static u64 stall_rto_max(const struct mre_config *cfg)
{
	return MRE_MIN(cfg->rto_max_ns, MRE_MAX(cfg->rto_init_ns, cfg->rto_min_ns));
}

/* stall RTOs in a row, nothing heard between, before a path moves */
#define MRE_STALL_MOVE	2

/*
 * Nothing at all came back from the peer since this path's timer was
 * armed: the silence is the connection's (the peer, or this host, is
 * stalled), not evidence against the path. Resend the oldest packet, as a
 * probe, and back off; the path keeps its health. (A real dead peer is
 * caught by dead_ns.)
 *
 * But the silence may also be every route's at once: each path's data,
 * or the ACKs for it (the peer's source ports), crossing a dead link,
 * while other ports would get through (a black hole on a fabric whose
 * other plane is down). Then nothing recovers by itself: the resends go
 * to sibling paths on dead routes too, silence (path_silent()) needs a
 * sibling heard, and the peer moves its ACK route only on a PROBE. So
 * from the MRE_STALL_MOVE-th stall RTO in a row with nothing heard since
 * the one before, the path takes a new source port and, with an RTT
 * sample and packets out on a sibling too (else the resend tests the
 * other routes, and a probe would take a 1-packet window before it), a
 * PROBE there (true: the caller sends it), which the peer answers on a
 * new port of its own; the first answer ends the stall. It is the tail
 * probe too; older unanswered probes give way to it (each holds window).
 * Still no health change, no window cut and no failure; and a path never
 * heard at all (an incast sender whose first packets were all dropped at
 * a swamped receiver) only moves: its probes would add to the swamp, and
 * their answers would make its siblings' dropped packets look like
 * silence. A host descheduled for longer than an RTO fires one stall RTO
 * per path before it reads its ACKs, which resets the count.
 */
static bool conn_stall_rto(struct mre_path *p, struct mre_conn *c, u64 now)
{
	const struct mre_config *cfg = &c->ep->cfg;
	u32 psn = p->psn_una;
	bool move, probe = false;

	c->ep->ctr.rto_stall++;
	if (c->last_ack <= p->rto_base) {
		if (p->n_stall < 0xff)
			p->n_stall++;
	} else {
		p->n_stall = 0;
	}
	while (psn != p->psn_next && is_settled(p, psn))
		psn++;
	if (psn != p->psn_next) {
		settle_lost(p, c, psn, MRE_TRW_STALL);
		c->ep->ctr.loss_rto++;
		advance_una(p);
		tlp_settled(p);
	}
	move = p->n_stall >= MRE_STALL_MOVE && !p->plane_down;
	if (move) {
		mre_path_repath(p, c, MRE_TRW_STALL);
		probe = p->srtt != 0 && c->inflight > p->inflight;
	}
	if (probe) {
		/* unanswered probes give way to the new one (the window) */
		for (psn = p->psn_una; psn != p->psn_next; psn++)
			if (!is_settled(p, psn) &&
			    p->ring[psn & (MRE_PATH_RING - 1)] == MRE_PSN_PROBE) {
				settle_lost(p, c, psn, MRE_TRW_STALL);
				c->ep->ctr.loss_rto++;	/* as traced */
			}
		advance_una(p);
		/* it is the tail probe too: its ACK shows what got there */
		p->tlp_at = 0;
		p->tlp_psn = p->psn_next;
		p->tlp_sent = (u32)now;
		p->tlp_out = true;
	}
	p->rto = mre_path_rto_backoff(p, stall_rto_max(cfg));
	p->rto_base = now;
	p->rto_at = mre_due(c, p, !p->inflight ? 0 : now + p->rto +
			    c->ep->ops->random(c->ep) % (p->rto / 2 + 1));
	quiet_arm(p, c, now);
	return probe;
}

/*
 * Has the peer echoed a packet that left after the oldest one @p still has
 * out? Only then is that one overdue rather than not yet answered: a
 * software host that was descheduled for longer than rto_min fires its
 * timers before it reads the ACKs waiting for it, and the ones it has read
 * may all be older than this path's outstanding packets.
 */
static bool heard_after_oldest(const struct mre_path *p, struct mre_conn *c)
{
	u32 psn, tsn;

	for (psn = p->psn_una; psn != p->psn_next; psn++) {
		const struct mre_txd *t = out_txd(p, c, psn, &tsn);

		if (t)
			return (s32)((u32)c->heard_sent - t->sent) > 0;
	}
	return true;
}

/* true: a PROBE must go out on @p now (a stalled path that moved) */
static bool path_rto(struct mre_path *p, struct mre_conn *c, u64 now)
{
	const struct mre_config *cfg = &c->ep->cfg;

	if (c->npaths > 1 && (c->last_ack <= p->rto_base ||
			      !heard_after_oldest(p, c)))
		return conn_stall_rto(p, c, now);
	c->ep->ctr.rto++;
	p->n_rto++;
	p->n_stall = 0;
	mre_path_all_lost(p, c, &c->ep->ctr.loss_rto, MRE_TRW_RTO);
	mre_cc_path_rto(p, c);
	p->rto = mre_path_rto_backoff(p, cfg->rto_max_ns);
	if (p->n_rto >= cfg->fail_rtos) {
		mre_path_fail(p, c, now, MRE_TRW_RTO);
		return false;
	}
	set_health(p, c, MRE_PATH_SUSPECT, MRE_TRW_RTO);
	mre_path_repath(p, c, MRE_TRW_RTO);
	return false;
}

/*
 * silence_k PSNs of @p are overdue and nothing was heard of them, while a
 * packet sent after them on another path has been acknowledged: the
 * receiver is alive and the fabric delivers, so the loss is this path's
 * route (a black hole, a dead link, or the route its ACKs take). Waiting
 * for the RTO (rto_min) would leave the path swallowing new data and its
 * lost TSNs holding the completion gate for that long. Instead: resend
 * what it has out on other paths now, take it out of the spray and probe
 * it at once on a new source port (FAILED, with a first probe interval of
 * about one RTT instead of probe_min_ns). If the connection as a whole
 * went quiet (no such ACK), the path is not judged: see conn_stall_rto().
 */
static void path_silent(struct mre_path *p, struct mre_conn *c, u64 now)
{
	c->ep->ctr.path_silent++;
	c->ep->ctr.path_failed++;
	mre_path_all_lost(p, c, &c->ep->ctr.loss_silent, MRE_TRW_SILENT);
	set_health(p, c, MRE_PATH_FAILED, MRE_TRW_SILENT);
	p->probe_ivl = quiet_span(p) / 2;	/* doubled before it is used */
	p->probe_at = mre_due(c, p, p->plane_down ? 0 : now);
	path_event(c);
}

static void quiet_check(struct mre_path *p, struct mre_conn *c, u64 now)
{
	if (!p->quiet_on || (!p->quiet_wait && now < p->quiet_due))
		return;
	if (c->heard_sent <= p->quiet_ts) {
		p->quiet_wait = true;	/* nothing later was heard either */
		p->quiet_due = 0;
		return;
	}
	path_silent(p, c, now);
}

bool mre_path_timers(struct mre_path *p, struct mre_conn *c, u64 now)
{
	const struct mre_config *cfg = &c->ep->cfg;
	bool probe = false;

	if (p->rto_at && now >= p->rto_at) {
		if (p->health == MRE_PATH_FAILED)	/* an unanswered probe */
			mre_path_all_lost(p, c, &c->ep->ctr.loss_rto,
					  MRE_TRW_PROBE);
		else
			probe = path_rto(p, c, now);
	}
	quiet_check(p, c, now);
	if (p->tlp_at && now >= p->tlp_at)
		probe |= tlp_fire(p, c, now);
	if (p->probe_at && now >= p->probe_at &&
	    p->health == MRE_PATH_FAILED && !p->plane_down) {
		mre_path_all_lost(p, c, &c->ep->ctr.loss_rto, MRE_TRW_PROBE);
		mre_path_repath(p, c, MRE_TRW_PROBE);
		probe = true;
		p->probe_ivl = MRE_MIN(p->probe_ivl * 2, cfg->probe_max_ns);
		/* an answer needs a round trip: wait for it past probe_max */
		p->probe_at = mre_due(c, p, now + MRE_MAX(p->probe_ivl,
							  mre_path_rto_est(p)));
	}
	return probe;
}
