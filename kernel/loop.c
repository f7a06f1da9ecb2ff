// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A device's packets to itself (see loop.h).
 */
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>

#include "chain.h"
#include "loop.h"
#include "rx.h"
#include "mroce.h"

/* up to @budget packets of this CPU's queue, each to mroce_rx() */
static int loop_take(struct mroce_dev *mdev, struct mroce_loop_cpu *lc,
		     int budget)
{
	struct sk_buff *skb;
	int done = 0;

	while (done < budget && (skb = __skb_dequeue(&lc->q))) {
		mroce_counter_inc(mdev, MROCE_CNT_RX_PACKETS);
		mroce_rx(mdev, skb);
		done++;
	}
	return done;
}

static int loop_poll(struct napi_struct *napi, int budget)
{
	struct mroce_loop_cpu *lc = container_of(napi, struct mroce_loop_cpu,
						 napi);
	struct mroce_loop *l = container_of(napi->dev, struct mroce_loop, ndev);
	struct mroce_dev *mdev = container_of(l, struct mroce_dev, loop);
	struct mroce_chain ch;
	int done;

	/* what the packets send to ourselves joins the queue and runs here */
	lc->polling = true;
	rcu_read_lock();
	/* the burst's timers: where its packets, ACKs and answers left them */
	mroce_chain_begin(&ch);
	done = loop_take(mdev, lc, budget);
	mroce_chain_end(&ch);
	rcu_read_unlock();
	lc->polling = false;
	if (done < budget)
		napi_complete_done(napi, done);
	return done;
}

bool mroce_loop_hold(struct mroce_dev *mdev)
{
	struct mroce_loop *l = &mdev->loop;
	struct mroce_loop_cpu *lc;
	bool held = false;

	lockdep_assert_in_softirq();	/* BHs off: the queue is this CPU's */
	rcu_read_lock();
	lc = this_cpu_ptr(l->cpu);
	if (READ_ONCE(l->live) && !lc->polling) {
		lc->polling = true;	/* net.c schedules no poll */
		held = true;
	}
	rcu_read_unlock();
	return held;
}

void mroce_loop_drain(struct mroce_dev *mdev)
{
	struct mroce_loop_cpu *lc;

	lockdep_assert_in_softirq();
	rcu_read_lock();
	lc = this_cpu_ptr(mdev->loop.cpu);
	loop_take(mdev, lc, MROCE_LOOP_DRAIN);
	lc->polling = false;
	if (!skb_queue_empty(&lc->q))
		napi_schedule(&lc->napi);	/* the rest, in its softirq */
	rcu_read_unlock();
}

int mroce_loop_init(struct mroce_dev *mdev)
{
	struct mroce_loop *l = &mdev->loop;
	int cpu;

	l->cpu = alloc_percpu(struct mroce_loop_cpu);
	if (!l->cpu)
		return -ENOMEM;
	init_dummy_netdev(&l->ndev);
	for_each_possible_cpu(cpu) {
		struct mroce_loop_cpu *lc = per_cpu_ptr(l->cpu, cpu);

		__skb_queue_head_init(&lc->q);
		netif_napi_add(&l->ndev, &lc->napi, loop_poll);
		napi_enable(&lc->napi);
	}
	WRITE_ONCE(l->live, true);
	return 0;
}

void mroce_loop_exit(struct mroce_dev *mdev)
{
	struct mroce_loop *l = &mdev->loop;
	int cpu;

	if (!l->cpu)
		return;
	WRITE_ONCE(l->live, false);
	synchronize_rcu();		/* senders that saw it live have queued */
	for_each_possible_cpu(cpu) {
		struct mroce_loop_cpu *lc = per_cpu_ptr(l->cpu, cpu);

		napi_disable(&lc->napi);
		netif_napi_del(&lc->napi);
		__skb_queue_purge(&lc->q);
	}
	free_percpu(l->cpu);
	l->cpu = NULL;
}
