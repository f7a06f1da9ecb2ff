/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Work the datapath collects while it holds locks and does after dropping
 * them: packets to send (the socket call must not run under our locks) and
 * completion handlers to call (a handler may post and re-enter us).
 *
 *	struct mroce_batch b;
 *
 *	mroce_batch_init(&b);
 *	spin_lock(...); ... engine / queue work adds to &b ... spin_unlock(...);
 *	mroce_batch_flush(&b);
 *
 * A batch lives on the stack of one entry point (packet receive, timer,
 * doorbell, post, modify) and is flushed before that entry point returns.
 */
#ifndef MROCE_BATCH_H
#define MROCE_BATCH_H

#include <linux/skbuff.h>

struct mroce_cq;

struct mroce_batch {
	struct sk_buff_head tx;		/* built packets, cb: struct mroce_skb_cb */
	struct mroce_cq *cqs;		/* CQs to notify, linked by cq->batch_next */
};

static inline void mroce_batch_init(struct mroce_batch *b)
{
	__skb_queue_head_init(&b->tx);
	b->cqs = NULL;
}

/* send the packets, then call the completion handlers; any context */
void mroce_batch_flush(struct mroce_batch *b);

#endif /* MROCE_BATCH_H */
