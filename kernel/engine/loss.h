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
