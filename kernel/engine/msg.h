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
 * A DATA packet with a TSN not seen before, inside the window: place it
 * and record its gate entry. Returns MRE_SYN_NONE if the TSN is accepted,
 * else the refusal (MRE_SYN_RNR, MRE_SYN_BUSY) to report in ACKs.
 */
int mre_msg_rx(struct mre_conn *c, const struct mre_pkt *pkt, u64 now);
/* the completion gate passed @tsn: run its entry */
void mre_msg_gate(struct mre_conn *c, u32 tsn, u64 now);

#endif /* MRE_MSG_H */
