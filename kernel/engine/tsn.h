/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The TSN space of a connection's sending side: each TSN's transmit
 * descriptor (struct mre_txd, conn.h) and its state, the retransmit queue,
 * and the TSNs a NAK takes.
 *
 *	FREE --(sent)--> OUT --(a path's ACK)--> ARRIVED / ACKED
 *	                  |  \--(the path lost it)--> QUEUED --(resent)--> OUT
 *	                  \--(arrived, refused: RNR, BUSY)--> WAIT --> QUEUED
 *	ACKED --(tsn_una passes it)--> FREE
 *
 * A path reports what became of each of its PSNs here (mre_tsn_arrived(),
 * mre_tsn_lost()); only the latest transmission of a TSN speaks for it.
 * Whether the receiver accepted a TSN is the connection's business
 * (msg.c, for ACKs and responses), which frees descriptors in order.
 */
#ifndef MRE_TSN_H
#define MRE_TSN_H

#include "conn.h"

/* put @tsn on the retransmit queue (it leaves before any new TSN) */
void mre_tsn_retx(struct mre_conn *c, u32 tsn);
/*
 * NAK message @msn of the peer's stream @dst_stream, which addressed our
 * stream id @stream (whether or not we have it). The NAK gets its TSN at
 * once, so every ACK built from now on covers it (nak_mark) and the
 * requester cannot complete the message before it hears of the failure.
 * False when no TSN is free (the caller refuses the packet).
 */
bool mre_tsn_nak(struct mre_conn *c, u32 stream, u32 dst_stream, u32 msn,
		 u32 syn);
/* the packet of @t can no longer be built: the TSN carries nothing */
void mre_tsn_nop(struct mre_txd *t);
/*
 * The transmission of @tsn as PSN @psn of path @path arrived (an ACK of
 * that path, @ack, said so): accepted, refused, or not yet known.
 */
void mre_tsn_arrived(struct mre_conn *c, u32 tsn, u16 path, u32 psn,
		     const struct mre_pkt *ack, u64 now);
/*
 * ... was lost (@how: 1 FACK found it, 2 a packet sent later arrived, 0 a
 * timer): resend it
 */
void mre_tsn_lost(struct mre_conn *c, u32 tsn, u16 path, u32 psn, u8 how);

#endif /* MRE_TSN_H */
