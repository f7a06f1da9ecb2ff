/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Messages at the receiver: placement of each new TSN's payload, and the
 * completion gate that runs, in TSN order, what must wait for order (a
 * receive completion, a READ or ATOMIC execution, a failure). See msg.c.
 */
#ifndef MRE_MSG_H
#define MRE_MSG_H

#include "conn.h"

/*
 * A DATA packet with a TSN not seen before, inside the window: place it,
 * record its gate entry, accept the TSN and, when the cumulative point
 * moves, run the gate for every TSN it passed. Returns MRE_SYN_NONE if
 * the TSN was accepted, else the refusal (MRE_SYN_RNR, MRE_SYN_BUSY) to
 * report in ACKs.
 */
int mre_msg_rx(struct mre_conn *c, const struct mre_pkt *pkt, u64 now);
/*
 * May completions of @s run, or must they wait for a NAK of the peer that
 * is still on its way? (In the latter case @s waits on c->markwait until
 * the receive window passes the peer's NAK mark.)
 */
bool mre_conn_mark_ok(struct mre_conn *c, struct mre_stream *s);

#endif /* MRE_MSG_H */
