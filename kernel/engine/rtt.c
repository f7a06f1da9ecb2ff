// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A path's round trip and its timeout (see path.h): RFC 6298's estimator
 * on every sample an ACK gives, the back-off of a timer that fired, and
 * the guess of a path that has no sample of its own yet.
 */
#include "path.h"
#include "conn.h"

void mre_path_rtt_sample(struct mre_path *p, const struct mre_config *cfg,
			 const struct mre_pkt_ack *a, u64 now)
{
	s32 r = (s32)((u32)now - a->ts_echo - a->ack_delay);
	u64 rtt, rto;

	/* ends before it began: a skewed clock or a lie, not 1 ns (min_rtt) */
	if (r <= 0)
		return;
	rtt = (u64)r;
	p->last_rtt = rtt;
	if (!p->srtt) {
		p->srtt = rtt;
		p->rttvar = rtt / 2;
		if (!p->min_rtt || rtt < p->min_rtt)
			p->min_rtt = rtt;
	} else {
		u64 d = p->srtt > rtt ? p->srtt - rtt : rtt - p->srtt;

		p->rttvar = p->rttvar - p->rttvar / 4 + d / 4;
		p->srtt = p->srtt - p->srtt / 8 + rtt / 8;
		if (rtt < p->min_rtt)
			p->min_rtt = rtt;
	}
	/* rto_max bounds the back-off (mre_path_rto_backoff()), not this */
	rto = p->srtt + 4 * p->rttvar;
	p->rto = MRE_MAX(rto, cfg->rto_min_ns);
}

/* the path's own timeout, SRTT + 4 RTTVAR; before a sample, 3 x least RTT */
u64 mre_path_rto_est(const struct mre_path *p)
{
	return p->srtt ? p->srtt + 4 * p->rttvar : 3 * p->min_rtt;
}

/*
 * The path's timer doubled, up to @cap, but never below its own estimate:
 * one shorter than the round trip fires before any answer can come back
 * (a guest fabric's spine queued 127 ms beside TCP; capped at rto_max,
 * 100 ms, or at rto_init for a stall, every timeout took a packet that
 * was still on its way as lost and the connection held 6 % of the link).
 */
u64 mre_path_rto_backoff(const struct mre_path *p, u64 cap)
{
	return MRE_MIN(p->rto * 2, MRE_MAX(cap, mre_path_rto_est(p)));
}

/*
 * The RTO of a path without an RTT sample: the slowest measured sibling's
 * (same two hosts), with its own backoff; else rto_init, or three times
 * its least RTT (the handshake's round trip) where that is longer.
 */
u64 mre_path_guess_rto(const struct mre_conn *c, const struct mre_path *p)
{
	u64 r = 0;
	u32 i;

	for (i = 0; i < c->npaths; i++)
		if (c->paths[i].srtt && c->paths[i].rto > r)
			r = c->paths[i].rto;
	if (!r)
		return MRE_MAX(p->rto, mre_path_rto_est(p));
	return r << MRE_MIN(p->n_rto, 6u);
}
