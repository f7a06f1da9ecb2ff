/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Loss by send time, across paths (loss.c; protocol.md 6.3): the newest
 * send time of a packet known to have arrived, on any path, judges the
 * packets sent before it on every path.
 */
#ifndef MRE_LOSS_H
#define MRE_LOSS_H

#include "conn.h"

/*
 * Was the latest transmission of TSN @tsn, @t, sent before (@sent, @than)?
 * By send time, and among packets sent at one time (a burst, or a clock
 * that did not move) by TSN: new TSNs go out in order, and a resend goes
 * before the new ones of its burst.
 */
static inline bool mre_loss_before(const struct mre_txd *t, u32 tsn,
				   u32 sent, u32 than)
{
	s32 d = (s32)(sent - t->sent);

	return d > 0 || (!d && seq_lt(tsn, than));
}

/*
 * How long after it left PSN @psn of @p, TSN @tsn, is lost once a packet
 * sent after it arrived, @wait being its path's allowance (loss.c). An
 * ACK names the TSNs accepted below its tsn_cum and MRE_TSN_SACK_BITS
 * beyond; past that only @p's own ACK can tell (below psn_fack it has),
 * and the receiver may hold that one for its ack delay (ours: the
 * endpoints are configured alike, as lazy_wait() in path.c assumes), so
 * such a PSN waits that much longer. Without it, a software endpoint's
 * lazy ACKs (every 8 packets of a path, 500 us) made its wide windows'
 * packets past one loss look lost: at 1 % netem loss, 34 % of the
 * packets of the module's 64 KiB WRITEs were needless resends, about 33
 * for each packet dropped.
 */
static inline u64 mre_loss_wait(const struct mre_conn *c,
				const struct mre_path *p, u32 psn, u32 tsn,
				u64 wait)
{
	if (seq_lt(tsn, c->tsn_una + 1 + MRE_TSN_SACK_BITS) ||
	    seq_lt(psn, p->psn_fack))
		return wait;
	return wait + mre_cfg(c)->ack_delay_ns;
}

/*
 * The latest transmission of TSN @tsn, @t, arrived, as an ACK heard at
 * @now says (its path's, or the TSN's acceptance in any ACK). Inline: the
 * paths report here without calling into loss.c, which calls them.
 */
static inline void mre_loss_delivered(struct mre_conn *c,
				      const struct mre_txd *t, u32 tsn,
				      u64 now)
{
	s32 d = (s32)(t->sent - c->time_sent);

	if (c->time_on && (d < 0 || (!d && !seq_gt(tsn, c->time_tsn))))
		return;
	c->time_on = true;
	c->time_sent = t->sent;
	c->time_tsn = tsn;
	c->time_rtt = (u32)now - t->sent;
	c->time_path = t->path;
}

/*
 * Declare lost every unsettled PSN whose time is up against the newest
 * packet delivered; arm c->time_at for the first one not yet due.
 * After each ACK, and when time_at is due (mre_conn_run()).
 */
void mre_loss_time(struct mre_conn *c, u64 now);

#endif /* MRE_LOSS_H */
