/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Receiving on a connection (recv.c; mre_conn_rx() is in engine.h).
 */
#ifndef MRE_RECV_H
#define MRE_RECV_H

#include "conn.h"
#include "send.h"

/* an ACK of ours read where it is made (recv.c): a connection to ourselves */
void mre_ack_self(struct mre_conn *c, struct mre_path *p, u64 now);

/*
 * The ACK owed for the peer's path @p, now: sent, or, when the peer is this
 * connection itself, read in place (mre_ack_self()).
 */
static inline void mre_ack_owed(struct mre_conn *c, struct mre_path *p,
				u64 now)
{
	if (c->local && c->remote_cid == c->cid)
		mre_ack_self(c, p, now);
	else
		mre_send_ack(c, p, now);
}

#endif /* MRE_RECV_H */
