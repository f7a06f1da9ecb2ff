// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Loss by send time, across paths (protocol.md 6.3; after RACK, RFC 8985,
 * for many paths of different RTTs).
 *
 * FACK (path.c) sees a loss only from later PSNs of its own path: a
 * message of a few packets a path leaves nothing later on the path, and
 * its loss waits for the next message, a tail probe or the RTO. Here the
 * connection keeps the newest send time of any packet known to have
 * arrived (time_sent: its path's ACK said so, or its TSN, sent once, was
 * accepted: a resent TSN accepted may be any transmission's, Karn),
 * with the round trip it took to hear of it (time_rtt) and its path. An
 * unsettled PSN of path p sent before it is lost at
 *
 *	sent + max(time_rtt + max(0, srtt(p) - srtt(time_path)), srtt(p)) + reo
 *
 * that is, at the ACK that brings the news, once a packet sent more than
 * the paths' RTT difference plus reo after it has arrived; but never
 * before p's own SRTT plus reo: the news may have come in the TSN state of
 * an ACK on a shorter path than the packet's own, sooner than its path's
 * round trip (a skewed fabric showed it); a PSN whose TSN is beyond what
 * an ACK's TSN state can name waits the receiver's ACK delay more
 * (mre_loss_wait(), loss.h). reo is
 * time_mult quarters of the least min RTT of the paths (RACK's min_rtt/4),
 * at most the largest SRTT; a resend that proves unnecessary (the first
 * transmission was accepted before the resend could get there, msg.c)
 * raises time_mult by one, up to MRE_TIME_MULT_MAX, and it falls back by
 * one after 4 connection windows of TSNs accepted without such (msg.c).
 * A PSN not yet due arms time_at, which mre_conn_run() serves. No wire
 * change: every ACK carries its path's PSNs and the connection's TSNs, and
 * each TSN's descriptor has its latest send time, path and PSN.
 */
#include "loss.h"
#include "path.h"

#define MRE_TIME_AGE	(1u << 30)	/* ns: older news is none (u32 wrap) */

/* the reordering window: time_mult quarters of the least RTT */
static u64 reo_wnd(const struct mre_conn *c)
{
	u64 least = 0, most = 0;
	u32 i;

	for (i = 0; i < c->npaths; i++) {
		const struct mre_path *p = &c->paths[i];

		if (!p->srtt)
			continue;
		if (!least || p->min_rtt < least)
			least = p->min_rtt;
		most = MRE_MAX(most, p->srtt);
	}
	return MRE_MIN(least * c->time_mult / 4, most);
}

void mre_loss_time(struct mre_conn *c, u64 now)
{
	u64 reo, base, due, next = 0;
	u32 i;

	c->time_at = 0;
	if (!mre_cfg(c)->loss_time || !c->time_on || !c->inflight)
		return;
	if ((u32)now - c->time_sent >= MRE_TIME_AGE ||
	    c->time_path >= c->npaths) {
		c->time_on = false;
		return;
	}
	reo = reo_wnd(c);
	base = c->paths[c->time_path].srtt;
	for (i = 0; i < c->npaths; i++) {
		struct mre_path *p = &c->paths[i];
		u64 wait;

		if (!p->inflight || !p->srtt || p->health == MRE_PATH_FAILED)
			continue;
		wait = c->time_rtt + (p->srtt > base ? p->srtt - base : 0);
		wait = MRE_MAX(wait, p->srtt) + reo;
		due = mre_path_time_lost(p, c, c->time_sent, c->time_tsn,
					 wait, now);
		if (due && (!next || due < next))
			next = due;
	}
	if (next)
		c->time_at = now + next;
}
