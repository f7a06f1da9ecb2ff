// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A device's packets to itself (see loop.h).
 */
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>

#include "loop.h"
#include "rx.h"
#include "mroce.h"

static int loop_poll(struct napi_struct *napi, int budget)
{
	struct mroce_loop *l = container_of(napi, struct mroce_loop, napi);
	struct mroce_dev *mdev = container_of(l, struct mroce_dev, loop);
	struct sk_buff *skb;
	int done = 0;

	rcu_read_lock();
	while (done < budget && (skb = skb_dequeue(&l->q))) {
		mroce_counter_inc(mdev, MROCE_CNT_RX_PACKETS);
		mroce_rx(mdev, skb);
		done++;
	}
	rcu_read_unlock();
	/* one queued meanwhile found the context scheduled: it runs again */
	if (done < budget)
		napi_complete_done(napi, done);
	return done;
}

void mroce_loop_init(struct mroce_dev *mdev)
{
	struct mroce_loop *l = &mdev->loop;

	skb_queue_head_init(&l->q);
	init_dummy_netdev(&l->ndev);
	netif_napi_add(&l->ndev, &l->napi, loop_poll);
	napi_enable(&l->napi);
	WRITE_ONCE(l->live, true);
}

void mroce_loop_exit(struct mroce_dev *mdev)
{
	struct mroce_loop *l = &mdev->loop;

	WRITE_ONCE(l->live, false);
	synchronize_rcu();		/* senders that saw it live have queued */
	napi_disable(&l->napi);
	netif_napi_del(&l->napi);
	skb_queue_purge(&l->q);
}
