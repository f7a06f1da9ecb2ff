// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A doorbell's chain (see chain.h): the peers its steps unlocked have
 * their timers set once, at its end.
 */
#include <linux/compiler.h>
#include <linux/percpu.h>
#include <linux/preempt.h>

#include "chain.h"
#include "peer.h"

/* the outermost chain running on this CPU, or NULL */
static DEFINE_PER_CPU(struct mroce_chain *, cpu_chain);

void mroce_chain_begin(struct mroce_chain *ch)
{
	ch->n = 0;
	ch->outer = false;
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return;	/* BHs and spinlocks sleep there: no chains */
	preempt_disable();
	ch->outer = !this_cpu_read(cpu_chain);
	barrier();	/* n is 0 before an interrupt's softirq can see ch */
	if (ch->outer)
		this_cpu_write(cpu_chain, ch);
}

/*
 * The CPU's chain is let go of before its peers are armed: arming enables
 * BHs, and a softirq run there arms its own peers at once. Until then the
 * owner adds to the list with BHs off, and a softirq run on top of it.
 *
 * The peers are held with preemption off from their lookup to their arm,
 * which is an RCU read side: device teardown (mroce_peers_exit()) waits
 * for a grace period before it cancels their timers and frees them.
 */
void mroce_chain_end(struct mroce_chain *ch)
{
	unsigned int i, n;

	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return;
	if (ch->outer) {
		this_cpu_write(cpu_chain, NULL);
		barrier();
		n = ch->n;
		for (i = 0; i < n; i++) {
			mroce_peer_arm(ch->peer[i], ch->run[i]);
			mroce_peer_release(ch->peer[i]);
		}
	}
	preempt_enable();
}

bool mroce_chain_on(void)
{
	return this_cpu_read(cpu_chain);
}

void mroce_chain_defer(struct mroce_peer *peer, u32 run)
{
	struct mroce_chain *ch = this_cpu_read(cpu_chain);
	unsigned int i;

	if (ch) {
		for (i = 0; i < ch->n; i++) {
			if (ch->peer[i] == peer) {
				ch->run[i] = run;
				mroce_peer_release(peer);
				return;
			}
		}
		if (ch->n < MROCE_CHAIN_PEERS) {
			ch->peer[ch->n] = peer;
			ch->run[ch->n] = run;
			ch->n++;
			return;
		}
	}
	mroce_peer_arm(peer, run);
	mroce_peer_release(peer);
}
