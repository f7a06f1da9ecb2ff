// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Paths, receive side (see path.h): the peer's path with the same id, as
 * its DATA and PROBE packets arrive. A 256-bit window of the PSNs seen
 * (the SACK an ACK returns), moved up to the sender's path_una first (it
 * has given those up); the CE-marked count and the newest timestamp for
 * the ACK's echo; one past the highest PSN that arrived, against which a
 * late PSN's reordering distance is measured (protocol.md 6.2). What the
 * ACK then says and when it goes is recv.c's.
 */
#include "path.h"

enum mre_win_res mre_path_rx(struct mre_path *p, u32 psn, u32 path_una,
			     u32 ts, bool ce, u64 now, bool *gap)
{
	enum mre_win_res r;
	u32 adv;

	/* the sender has settled everything below path_una: stop waiting */
	if (seq_gt(path_una, p->rx.base) &&
	    seq_le(path_una - p->rx.base, 1u << 30))
		mre_win_skip(&p->rx, path_una);
	if (seq_lt(p->rx_high, p->rx.base))
		p->rx_high = p->rx.base;
	r = mre_win_mark(&p->rx, psn, &adv);
	*gap = false;
	if (r == MRE_WIN_AHEAD)
		return r;
	p->st_rx++;
	if (ce)
		p->rx_ce++;
	p->rx_ts = ts;
	p->rx_ts_at = now;
	p->rx_unacked++;
	/*
	 * Out of order (a hole opened, or one filled): tell the sender at
	 * once. PSNs are never sent twice: one below the highest arrived was
	 * reordered by that distance, which the ACK reports (FACK learns its
	 * patience from it). In order above an open hole is not news.
	 */
	if (seq_ge(psn, p->rx_high)) {
		*gap = psn != p->rx_high;
		p->rx_high = psn + 1;
	} else {
		u32 d = p->rx_high - 1 - psn;

		if (d > p->rx_reorder && d < MRE_PATH_RING)
			p->rx_reorder = d;
		p->st_late++;
		*gap = true;
	}
	return r;
}
