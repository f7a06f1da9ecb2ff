/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Sending: every packet a connection puts on the wire is built here and
 * leaves through the embedder's xmit (struct mre_ops).
 *
 * DATA packets are rebuilt from their transmit descriptor (tsn.h) each
 * time they go out, from the stream's WQE (mre_ops.sq_get) or READ slot:
 * the engine keeps no copy of a payload. mre_send_transmit() is the spray
 * loop: resends first, then new packets of the active streams, one each in
 * turn, each on the next path with room, within the connection's window,
 * its congestion window and the receiver's rate hint.
 */
#ifndef MRE_SEND_H
#define MRE_SEND_H

#include "conn.h"

/* a usable path to send a control packet on, starting with path @pref */
struct mre_path *mre_send_ctrl_path(struct mre_conn *c, u32 pref);
/* CONNECT or ACCEPT (@type), with the connection's blob */
void mre_send_connect(struct mre_conn *c, u8 type, u64 now);
/*
 * The ACK for the peer's path @p as it stands @now: what it reports counts
 * as acknowledged (the path's ACK timer stops; tx_ack). Sent, or with
 * @in_place left there to be read (mre_ack_owed(), recv.h: a connection
 * to ourselves).
 */
void mre_ack_emit(struct mre_conn *c, struct mre_path *p, u64 now,
		  struct mre_pkt *in_place);

/* an ACK for the peer's path @p, now, on the wire */
static inline void mre_send_ack(struct mre_conn *c, struct mre_path *p,
				u64 now)
{
	mre_ack_emit(c, p, now, NULL);
}
/*
 * A CHALLENGE (on @p, to the peer's claimed address of its plane @plane)
 * or an ECHO (on @p, to proven addresses) carrying @nonce
 */
void mre_send_proof(struct mre_conn *c, struct mre_path *p, u8 type,
		    u64 nonce, u8 plane, u64 now);
/* a sequenced PROBE on @p */
void mre_send_probe(struct mre_conn *c, struct mre_path *p, u64 now);
/*
 * Send what may be sent now, at most tx_burst packets. True when it
 * stopped for lack of budget (call again at once); else *@pace_at, if
 * set, is when pacing lets the next packet go.
 */
bool mre_send_transmit(struct mre_conn *c, u64 now, u64 *pace_at);

#endif /* MRE_SEND_H */
