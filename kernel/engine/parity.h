/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * PARITY: the XOR of a WRITE's last packets, sent after them while the
 * connection loses packets, so that the receiver rebuilds one lost packet
 * of the tail at once instead of waiting a round trip for its resend
 * (parity.c, protocol.md 6.7).
 */
#ifndef MRE_PARITY_H
#define MRE_PARITY_H

#include "conn.h"

/* may this end take PARITY packets (what CONNECT and ACCEPT say) */
static inline bool mre_parity_takes(const struct mre_ep *ep)
{
	return ep->cfg.parity_pkts && ep->ops->parity;
}

/*
 * The connection's recent loss, counted over windows of MRE_PARITY_WIN
 * first transmissions: PARITY starts after a window that lost parity_ppm
 * of them, most not to congestion (the path's RTT was within
 * loss_queue_pct of its least, cc.c: a buffer that overflows drops in
 * bursts, which one PARITY does not repair, and would only carry more),
 * and stops after MRE_PARITY_CALM windows in a row that did not. Not
 * sooner: a loss that a PARITY repaired is not seen by its sender (its TSN
 * is accepted, which settles its PSN), so windows with PARITY look cleaner
 * than the network is. Only whole windows: the first losses of a
 * connection, in slow start against a buffer that has just filled, often
 * come before the RTT shows the queue (a tail-drop dumbbell's flows).
 */
#define MRE_PARITY_WIN	512
#define MRE_PARITY_CALM	4

static inline bool mre_parity_lossy(const struct mre_conn *c)
{
	return c->par_lost > c->par_cong &&
	       (u64)c->par_lost * 1000000 >=
	       (u64)c->ep->cfg.parity_ppm * MRE_PARITY_WIN;
}

/* a first transmission of a DATA packet */
static inline void mre_parity_sent(struct mre_conn *c)
{
	if (++c->par_sent < MRE_PARITY_WIN)
		return;
	if (mre_parity_lossy(c)) {
		c->par_on = true;
		c->par_calm = 0;
	} else if (c->par_on && ++c->par_calm >= MRE_PARITY_CALM) {
		c->par_on = false;
	}
	c->par_sent = 0;
	c->par_lost = 0;
	c->par_cong = 0;
}

/* a DATA packet was found lost; @queued: with a queue standing (cc.c) */
static inline void mre_parity_lost(struct mre_conn *c, bool queued)
{
	if (queued)
		c->par_cong++;
	else
		c->par_lost++;
}

/* a PARITY arrived and passed its path: rebuild what it can */
void mre_parity_rx(struct mre_conn *c, const struct mre_pkt *pkt, u64 now);

#endif /* MRE_PARITY_H */
