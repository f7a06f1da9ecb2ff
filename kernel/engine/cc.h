/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Congestion control, from both ends.
 *
 * Sender: an ECN-driven AIMD window on every path (DCTCP's estimator: the
 * window is cut by alpha/2 at most once per window of data when CE marks
 * come back; it grows only while half of it is in use) and the same on the
 * whole connection, so that a connection spraying over N paths takes one
 * fair share of a shared bottleneck, not N.
 * Loss cuts only when it is congestion: the path's latest RTT stood
 * loss_queue_pct above its least when the loss was found, i.e. a queue was
 * full (the tail-drop bottleneck of a fabric without ECN). Then the path's
 * window and the connection's halve, each at most once per its window. A
 * loss at the base RTT is random (a flaky link): on a lossy fabric it is no
 * congestion signal, and a path that loses much more than its siblings is
 * moved instead (path.c). Where nothing marks (a path that never saw CE),
 * that queue on every path of the connection counts as CE marks, so the
 * flows sharing it cut together before it overflows. But a queue that
 * stays above twice that mark through MRE_Q_HELD of the connection's marked
 * windows is not its own to drain (a loss-based flow such as TCP fills the
 * buffer whatever it does; never judged where a real CE mark came back):
 * the marks stop and losses alone cut, by 0.3 as CUBIC's, until an RTT
 * sample shows the queue short again.
 * loss_beta_shift makes every loss cut the path's window by 2^-n. A
 * timeout collapses the path's window to min_cwnd. A loss by send time
 * (loss.c) on a fabric that marks cuts its path but not the connection: it
 * came without its path's marks.
 *
 * Receiver: every ACK carries a fair-share rate, the receiver's capacity
 * divided by the number of connections that sent it data recently. The
 * sender paces the whole connection at that rate. An incast converges in
 * about one RTT instead of many AIMD rounds.
 */
#ifndef MRE_CC_H
#define MRE_CC_H

#include "mre_types.h"

/* marked windows with the queue standing before it is taken as another's */
#define MRE_Q_HELD	4

struct mre_conn;
struct mre_path;

void mre_cc_init(struct mre_conn *c);
void mre_cc_path_init(struct mre_path *p, struct mre_conn *c);
/* an ACK settled @acked PSNs and @lost PSNs on @p and reported @ce new marks */
void mre_cc_path_ack(struct mre_path *p, struct mre_conn *c, u32 acked,
		     u32 lost, u32 ce);
/* @n PSNs of @p lost by send time (loss.c) */
void mre_cc_path_time_lost(struct mre_path *p, struct mre_conn *c, u32 n);
void mre_cc_path_rto(struct mre_path *p, struct mre_conn *c);
/* would a loss on @p now be taken as congestion (a queue stood)? */
bool mre_cc_loss_queued(const struct mre_path *p, const struct mre_conn *c);
/* @n TSNs were newly accepted (connection window) */
void mre_cc_conn_acked(struct mre_conn *c, u32 n);
/* may the connection send one more packet now? else *@at: when */
bool mre_cc_can_send(struct mre_conn *c, u64 now, u64 *at);
/* the receiver's latest rate hint, Mbit/s (0: none) */
void mre_cc_rate(struct mre_conn *c, u32 mbps);
void mre_cc_sent(struct mre_conn *c, u32 bytes, u64 now);
/* receiver: @bytes of data arrived on @c (0: it opened), counts senders */
void mre_cc_rx_activity(struct mre_conn *c, u32 bytes, u64 now);
/* receiver: the rate to advertise to @c's sender, Mbit/s (0: none) */
u32 mre_cc_hint(struct mre_conn *c, u64 now);

#endif /* MRE_CC_H */
