/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * Rings shared between the kernel and the provider: the only ring code, used
 * by the kernel module, the rdma-core provider and the host tests.
 *
 * A ring is one mmap'd area: a 128-byte header (producer index, consumer
 * index, flags, each where only one side writes it) followed by 2^order
 * entries of a fixed stride. Indices are free-running 32-bit counters; an
 * entry's slot is index & (size - 1). The ring is full when prod - cons ==
 * size, so all size slots are usable.
 *
 *   queue   producer          consumer          cons means
 *   SQ      provider          kernel            WQEs completed (slot reusable)
 *   RQ      provider          kernel            receives completed
 *   SRQ     provider          kernel            receives taken by a QP
 *   CQ      kernel            provider          CQEs polled
 *
 * Ownership moves with the index: the producer fills an entry, then
 * publishes prod with release order; the consumer reads prod with acquire
 * order before it reads the entry, and publishes cons with release order
 * when it no longer needs the entry. Each side keeps a private copy of the
 * indices it owns and never trusts the other side's values: the kernel
 * clamps what it reads (mre_ring_avail()), so a corrupted index cannot make
 * it read outside the ring. For the SQ and RQ, where the kernel takes
 * entries before it completes them, the producer is also checked against
 * what the kernel has taken (kernel/wq.h): one that went backwards is a
 * corrupt queue, not a rewind.
 *
 * The SQ doorbell: the kernel sets MRE_RING_F_DB_NEEDED when it stops
 * looking at the SQ by itself (the QP has nothing in flight to send), then
 * looks once more. A provider that finds the flag set after publishing prod
 * makes the doorbell system call; otherwise the kernel will find the new
 * WQEs on its own. Both sides put a full barrier between their store and
 * their load (mre_ring_mb()) so that one of them always sees the other.
 */
#ifndef MRE_RING_H
#define MRE_RING_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <asm/barrier.h>
#define mre_ring_load_acquire(p)	smp_load_acquire(p)
#define mre_ring_store_release(p, v)	smp_store_release(p, v)
#define mre_ring_load(p)		READ_ONCE(*(p))
#define mre_ring_store(p, v)		WRITE_ONCE(*(p), v)
#define mre_ring_mb()			smp_mb()
typedef __u32 mre_ring_u32;
#else
#include <stdint.h>
#define mre_ring_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define mre_ring_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define mre_ring_load(p)		__atomic_load_n(p, __ATOMIC_RELAXED)
#define mre_ring_store(p, v)		__atomic_store_n(p, v, __ATOMIC_RELAXED)
#define mre_ring_mb()			__atomic_thread_fence(__ATOMIC_SEQ_CST)
typedef uint32_t mre_ring_u32;
#endif

#define MRE_RING_HDR_SIZE	128
#define MRE_RING_F_DB_NEEDED	0x1	/* SQ: ring the doorbell after posting */
#define MRE_RING_F_ERROR	0x2	/* the queue is in error: post to flush */

/* shared header; prod and cons sit on separate cache lines */
struct mre_ring_hdr {
	mre_ring_u32 prod;
	mre_ring_u32 flags;		/* written by the kernel */
	mre_ring_u32 pad0[14];
	mre_ring_u32 cons;
	mre_ring_u32 pad1[15];
};

/* one side's view of a ring: private indices, never shared */
struct mre_ring {
	struct mre_ring_hdr *hdr;
	unsigned char *entries;
	mre_ring_u32 size;		/* power of two */
	mre_ring_u32 stride;		/* bytes per entry */
	mre_ring_u32 prod;		/* producer: next to fill; consumer: last prod seen */
	mre_ring_u32 cons;		/* consumer: next to take; producer: last cons seen */
};

static inline void mre_ring_init(struct mre_ring *r, void *mem,
				 mre_ring_u32 size, mre_ring_u32 stride)
{
	r->hdr = (struct mre_ring_hdr *)mem;
	r->entries = (unsigned char *)mem + MRE_RING_HDR_SIZE;
	r->size = size;
	r->stride = stride;
	r->prod = 0;
	r->cons = 0;
}

/* bytes to map for a ring of @size entries of @stride */
static inline unsigned long mre_ring_bytes(mre_ring_u32 size,
					   mre_ring_u32 stride)
{
	return MRE_RING_HDR_SIZE + (unsigned long)size * stride;
}

static inline void *mre_ring_entry(const struct mre_ring *r, mre_ring_u32 idx)
{
	return r->entries + (unsigned long)(idx & (r->size - 1)) * r->stride;
}

/* --- producer side ------------------------------------------------------- */

/* free slots, refreshing the consumer's index (clamped: never more than size) */
static inline mre_ring_u32 mre_ring_space(struct mre_ring *r)
{
	mre_ring_u32 c = mre_ring_load_acquire(&r->hdr->cons);

	if ((mre_ring_u32)(r->prod - c) <= r->size)
		r->cons = c;
	return r->size - (r->prod - r->cons);
}

/* the next slot to fill (call mre_ring_space() first) */
static inline void *mre_ring_next(const struct mre_ring *r)
{
	return mre_ring_entry(r, r->prod);
}

/* hand every filled slot to the consumer */
static inline void mre_ring_publish(struct mre_ring *r, mre_ring_u32 n)
{
	r->prod += n;
	mre_ring_store_release(&r->hdr->prod, r->prod);
}

/* --- consumer side ------------------------------------------------------- */

/*
 * Entries published and not yet taken. A producer index that is behind us
 * or more than a ring ahead is ignored (an untrusted producer cannot make
 * the consumer read garbage as entries).
 */
static inline mre_ring_u32 mre_ring_avail(struct mre_ring *r)
{
	mre_ring_u32 p = mre_ring_load_acquire(&r->hdr->prod);

	if ((mre_ring_u32)(p - r->cons) <= r->size)
		r->prod = p;
	return r->prod - r->cons;
}

/* give back everything up to (not including) index @upto */
static inline void mre_ring_release(struct mre_ring *r, mre_ring_u32 upto)
{
	r->cons = upto;
	mre_ring_store_release(&r->hdr->cons, upto);
}

#endif /* MRE_RING_H */
