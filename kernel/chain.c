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
	preempt_disable();
	ch->n = 0;
	ch->outer = !this_cpu_read(cpu_chain);
	if (ch->outer)
		this_cpu_write(cpu_chain, ch);
}

/*
 * The CPU's chain is let go of before its peers are armed: arming enables
 * BHs, and a softirq run there arms its own peers at once. An interrupt's
 * softirq may add to the list until then; nothing else does.
 */
void mroce_chain_end(struct mroce_chain *ch)
{
	unsigned int i, n;

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
		for (i = 0; i < ch->n; i++)
			if (ch->peer[i] == peer) {
				ch->run[i] = run;
				mroce_peer_release(peer);
				return;
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
