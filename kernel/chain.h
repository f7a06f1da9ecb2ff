/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A doorbell's chain: what a post sets off on this CPU before its system
 * call returns. Over a veth pair (or the device's loop) the post's packet
 * is received in the softirq that the doorbell's own local_bh_enable()
 * runs, the answer to it there too, and the ACK that answer asks for: one
 * operation's every step, on both peers, inline. A peer unlocked in the
 * middle of it would set its timer to what that step left (the answer's
 * tail probe, a delayed ACK), and the next step, a moment later, would
 * clear it: the hrtimer, left where it was (peertab.c, set_timer()),
 * fires for nothing and is started again, an emulated clock read and
 * clock event write each time. Within a chain the timers of the peers it
 * touches are set once, at its end, to what the whole operation left.
 * The loop's poll (loop.c) is a chain too, for the same reason.
 *
 *	struct mroce_chain ch;
 *
 *	mroce_chain_begin(&ch);		preemption off until the end
 *	... post, flush, local_bh_enable(): receive, answer, ACK ...
 *	mroce_chain_end(&ch);		sets the timers, drops the references
 *
 * A chain begun while one runs on this CPU (a kernel ULP posting from its
 * completion handler, the loop's poll in the doorbell's softirq) hands
 * its peers to the outer one. A peer that finds no room is armed at once.
 * A peer that another holder ran after this chain did is left to that
 * holder (peer.h, mroce_peer_arm()): a ping-pong's other side posts while
 * our chain still runs, and its tail probe is not ours to set.
 */
#ifndef MROCE_CHAIN_H
#define MROCE_CHAIN_H

#include <linux/types.h>

struct mroce_peer;

/* peers one chain defers at most (a round trip over veth touches two) */
#define MROCE_CHAIN_PEERS	4

struct mroce_chain {
	struct mroce_peer *peer[MROCE_CHAIN_PEERS];
	u32 run[MROCE_CHAIN_PEERS];	/* mroce_peer_unlock_defer()'s */
	unsigned int n;
	bool outer;		/* the CPU's chain; else nested in one */
};

void mroce_chain_begin(struct mroce_chain *ch);
void mroce_chain_end(struct mroce_chain *ch);
/* is a chain running on this CPU (BHs off or in softirq) */
bool mroce_chain_on(void);
/*
 * @peer, referenced, after @run (mroce_peer_unlock_defer()): its timer is
 * set at the end of this CPU's chain, or now if there is none or it is
 * full, unless a later run came; the caller's reference goes with it.
 * BHs off or in softirq: a softirq must not add to the list while the
 * doorbell does.
 */
void mroce_chain_defer(struct mroce_peer *peer, u32 run);

#endif /* MROCE_CHAIN_H */
