/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Work queues whose producer is not trusted: the index and bounds rules of
 * the kernel's side of the SQ, RQ and SRQ rings (ring.h), as pure code.
 * Compiled into the module (req.c, resp.c, srq.c) and into the host
 * harness tests/ring/, which plays a hostile provider against it.
 *
 * The ring's header is user-writable memory: the producer index in it can
 * be anything, at any moment. The kernel keeps its own indices and checks
 * every value it reads against them:
 *
 *	done <= taken <= prod <= done + size	(serial arithmetic, mod 2^32)
 *
 *   done    WQEs completed; the ring's consumer index (slots given back)
 *   taken   WQEs copied into the kernel's shadow and validated there
 *   prod    what the producer says it published
 *
 * The slots [done, taken) hold WQEs in flight: their shadows are in use
 * and must not be taken again. A producer index behind @taken (it moved
 * backwards) or more than a ring ahead of @done is refused as a whole
 * (mroce_wq_published()): nothing is taken, the caller fails the queue. So
 * every loop that takes WQEs runs at most size - (taken - done) times.
 *
 * The SRQ has no WQEs in flight on its ring (a QP copies a receive out and
 * the slot goes back at once): done == taken there.
 *
 * Receives complete in order: receive @rsn of a stream is at head + k
 * (head: the next to complete). mroce_wq_rsn() sorts the receive a peer's
 * packet names into completed already, within the window the queue can
 * hold, or not reachable yet.
 *
 * The shadow of a WQE keeps its own validated length; payload is read
 * from it only within that length (mroce_wq_span_ok(), with the overflow
 * check the end of a span needs).
 *
 * Locks: the caller's (the QP's or SRQ's consumer lock); nothing here
 * keeps state of its own.
 */
#ifndef MROCE_WQ_H
#define MROCE_WQ_H

#include "mre_types.h"
#include "ring.h"

#ifdef __KERNEL__
#include <linux/overflow.h>
#else
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#endif

/*
 * The number of entries the producer published past @taken, into *@n.
 * False (and *@n 0) when its index is bad: behind @taken, or more than
 * r->size past @done. Needs taken - done <= r->size (the caller's
 * invariant; this keeps it). On success r->prod is the index read.
 */
static inline bool mroce_wq_published(struct mre_ring *r, u32 done,
				      u32 taken, u32 *n)
{
	u32 p = mre_ring_load_acquire(&r->hdr->prod);
	u32 room = r->size - (taken - done);

	*n = 0;
	if ((u32)(p - taken) > room)
		return false;
	r->prod = p;
	*n = p - taken;
	return true;
}

/* where receive @rsn stands against @head, the next receive to complete */
enum mroce_rsn {
	MROCE_RSN_OK,		/* head <= rsn < head + window */
	MROCE_RSN_DONE,		/* before head: completed already */
	MROCE_RSN_AHEAD,	/* head + window or later: not yet */
};

static inline enum mroce_rsn mroce_wq_rsn(u32 head, u32 rsn, u32 window)
{
	if (seq_lt(rsn, head))
		return MROCE_RSN_DONE;
	return rsn - head < window ? MROCE_RSN_OK : MROCE_RSN_AHEAD;
}

/* does [@off, @off + @len) lie within @length bytes? */
static inline bool mroce_wq_span_ok(u32 length, u32 off, u32 len)
{
	u32 end;

	return !check_add_overflow(off, len, &end) && end <= length;
}

/*
 * Inline data of @len bytes from a ring entry into a shadow's @room
 * bytes, for a QP that allows @max_inline: false (nothing copied) when it
 * is longer than either.
 */
static inline bool mroce_wq_take_inline(u8 *shadow, u32 room, const void *src,
					u32 len, u32 max_inline)
{
	if (len > max_inline || len > room)
		return false;
	mre_memcpy(shadow, src, len);
	return true;
}

/*
 * Bytes [@off, @off + @len) of a shadow's inline data, @have bytes of it,
 * into @dst: false (nothing copied) when the span is not inside it.
 */
static inline bool mroce_wq_read_inline(const u8 *shadow, u32 have, u32 off,
					u32 len, u8 *dst)
{
	if (!mroce_wq_span_ok(have, off, len))
		return false;
	mre_memcpy(dst, shadow + off, len);
	return true;
}

#endif /* MROCE_WQ_H */
