/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Messages at the receiver: placement of each new TSN's payload, and the
 * completion gate that runs, in TSN order, what must wait for order (a
 * receive completion, a READ or ATOMIC execution, a failure); at the
 * sender: the TSNs the peer accepted retire in order. See msg.c.
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
 * The TSN part of ACK @a: what the receiver accepted. The accepted TSNs
 * retire in order from tsn_una and their messages are acked (stream.c).
 */
void mre_msg_ack_tsns(struct mre_conn *c, const struct mre_pkt_ack *a,
		      u64 now);

#endif /* MRE_MSG_H */
