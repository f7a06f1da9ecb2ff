// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A hostile provider against the kernel's work-queue rules (kernel/wq.h).
 *
 * The harness is the kernel's consumer side of an SQ in miniature: the
 * ring (exactly mre_ring_bytes() long), one shadow per slot (each its own
 * allocation, so ASan sees the end of every shadow), and the same take
 * loop as req.c's sq_refresh() and gather as gather_wqe(), written over
 * wq.h's helpers. The provider writes whatever it likes: a producer index
 * that went back into the WQEs in flight, one far ahead, inline lengths of
 * any size, payload spans that overflow, random ring contents. What must
 * hold:
 *
 *   - a take loop never runs more than size - (taken - done) times;
 *   - taken - done <= size, always;
 *   - the shadow of a WQE in flight never changes;
 *   - no read or write outside the ring, a shadow or the buffer it is
 *     copied to (ASan), and a read is within the WQE's validated length.
 */
#include <linux/types.h>
#include <rdma/mroce-abi.h>

#include "wq.h"
#include "mre_test.h"

#define Q_MAX		64
#define Q_INLINE	64	/* max_inline; also the shadow's room */

struct wq {
	struct mre_ring prov;		/* the provider's view */
	struct mre_ring kern;		/* the kernel's */
	unsigned char *mem;
	u32 size, stride;
	u32 done, taken;
	u8 *shadow[Q_MAX];
	u32 len[Q_MAX];			/* validated length; 0 when bad */
	u8 bad[Q_MAX];
	u32 takes;			/* entries the last refresh took */
	u32 broken;			/* refreshes that found a bad index */
	u8 *dst;			/* a gather's destination, Q_INLINE bytes */
};

static u64 rnd(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void wq_init(struct kunit *test, struct wq *q, u32 size)
{
	u32 i;

	mre_memset(q, 0, sizeof(*q));
	q->size = size;
	q->stride = sizeof(struct mroce_sqe) + Q_INLINE;
	q->mem = MRE_ALLOC(test, mre_ring_bytes(size, q->stride));
	mre_ring_init(&q->prov, q->mem, size, q->stride);
	mre_ring_init(&q->kern, q->mem, size, q->stride);
	for (i = 0; i < size; i++)
		q->shadow[i] = MRE_ALLOC(test, Q_INLINE);
	q->dst = MRE_ALLOC(test, Q_INLINE);
}

/* the QP was failed and reset: every index back to zero */
static void wq_reset(struct wq *q)
{
	mre_memset(q->mem, 0, MRE_RING_HDR_SIZE);
	q->prov.prod = q->prov.cons = 0;
	q->kern.prod = q->kern.cons = 0;
	q->done = q->taken = 0;
}

/* req.c sq_take()'s inline part */
static void wq_take(struct wq *q, u32 idx)
{
	const struct mroce_sqe *e = mre_ring_entry(&q->kern, idx);
	u32 slot = idx & (q->size - 1);
	u32 len = mre_ring_load(&e->length);

	q->bad[slot] = !mroce_wq_take_inline(q->shadow[slot], Q_INLINE, e->sge,
					     len, Q_INLINE);
	q->len[slot] = q->bad[slot] ? 0 : len;
}

/* req.c sq_refresh() */
static void wq_refresh(struct kunit *test, struct wq *q)
{
	u32 room = q->size - (q->taken - q->done), n;

	if (!mroce_wq_published(&q->kern, q->done, q->taken, &n))
		q->broken++;
	q->takes = n;
	MRE_ASSERT(test, n <= room);	/* else the loop below is unbounded */
	while (n--)
		wq_take(q, q->taken++);
	MRE_EXPECT_LE(test, q->taken - q->done, q->size);
}

/* req.c gather_wqe() for an inline WQE; true if it copied */
static bool wq_gather(struct kunit *test, struct wq *q, u32 idx, u32 off,
		      u32 len)
{
	u32 slot = idx & (q->size - 1);
	bool ok = mroce_wq_read_inline(q->shadow[slot], q->len[slot], off, len,
				       q->dst);

	if (ok)
		MRE_EXPECT_LE(test, (u64)off + len, q->len[slot]);
	return ok;
}

/* the provider posts @k inline WQEs of @len bytes each, honestly */
static void post(struct wq *q, u32 k, u32 len)
{
	while (k-- && mre_ring_space(&q->prov)) {
		struct mroce_sqe *e = mre_ring_next(&q->prov);

		e->length = len;
		mre_memset(e->sge, (int)(q->prov.prod & 0xff),
			   len < Q_INLINE ? len : Q_INLINE);
		mre_ring_publish(&q->prov, 1);
	}
}

static void complete(struct wq *q, u32 k)
{
	q->done += k;
	mre_ring_release(&q->kern, q->done);
}

MRE_TEST(wq_rewound_producer)
{
	struct wq q;
	u32 in_flight[Q_MAX], i;
	static const u32 back[] = { 4, 3, 2, 1, 0, 0xffffffff, 0x80000000 };

	wq_init(test, &q, 8);
	post(&q, 6, 10);
	wq_refresh(test, &q);
	MRE_EXPECT_EQ(test, q.taken, 6);
	complete(&q, 2);		/* in flight: 2..5 */
	for (i = 2; i < 6; i++)
		in_flight[i] = q.len[i];
	for (i = 0; i < MRE_ARRAY_SIZE(back); i++) {
		q.broken = 0;
		q.kern.hdr->prod = back[i];	/* behind taken (6) */
		wq_refresh(test, &q);
		MRE_EXPECT_EQ(test, q.broken, 1);
		MRE_EXPECT_EQ(test, q.takes, 0);
		MRE_EXPECT_EQ(test, q.taken, 6);
	}
	for (i = 2; i < 6; i++)
		MRE_EXPECT_EQ(test, q.len[i], in_flight[i]);
	/* the index as it was: nothing new, nothing wrong */
	q.broken = 0;
	q.kern.hdr->prod = 6;
	wq_refresh(test, &q);
	MRE_EXPECT_EQ(test, q.broken, 0);
	MRE_EXPECT_EQ(test, q.takes, 0);
}

MRE_TEST(wq_producer_far_ahead)
{
	struct wq q;

	wq_init(test, &q, 8);
	post(&q, 5, 1);
	wq_refresh(test, &q);
	complete(&q, 3);		/* done 3, taken 5: room for 6 more */
	q.kern.hdr->prod = 3 + 8 + 1;
	wq_refresh(test, &q);
	MRE_EXPECT_EQ(test, q.broken, 1);
	MRE_EXPECT_EQ(test, q.taken, 5);
	q.kern.hdr->prod = 0x7fffffff;
	wq_refresh(test, &q);
	MRE_EXPECT_EQ(test, q.broken, 2);
	/* exactly a ring past done is full, and allowed */
	q.kern.hdr->prod = 3 + 8;
	wq_refresh(test, &q);
	MRE_EXPECT_EQ(test, q.broken, 2);
	MRE_EXPECT_EQ(test, q.takes, 6);
	MRE_EXPECT_EQ(test, q.taken - q.done, 8);
}

/* an SRQ: no WQEs in flight on the ring (done == taken == cons) */
MRE_TEST(wq_srq_indices)
{
	struct wq q;
	u32 n;

	wq_init(test, &q, 16);
	post(&q, 4, 0);
	MRE_EXPECT(test, mroce_wq_published(&q.kern, 0, 0, &n));
	MRE_EXPECT_EQ(test, n, 4);
	complete(&q, 4);
	q.kern.hdr->prod = 3;
	MRE_EXPECT(test, !mroce_wq_published(&q.kern, 4, 4, &n));
	MRE_EXPECT_EQ(test, n, 0);
	q.kern.hdr->prod = 4 + 17;
	MRE_EXPECT(test, !mroce_wq_published(&q.kern, 4, 4, &n));
	q.kern.hdr->prod = 4 + 16;
	MRE_EXPECT(test, mroce_wq_published(&q.kern, 4, 4, &n));
	MRE_EXPECT_EQ(test, n, 16);
}

MRE_TEST(wq_huge_inline)
{
	static const u32 lens[] = { Q_INLINE + 1, 0xffffffff, 0x80000000,
				    0x10000, Q_INLINE, 0 };
	struct wq q;
	u32 i;

	wq_init(test, &q, 8);
	for (i = 0; i < MRE_ARRAY_SIZE(lens); i++)
		post(&q, 1, lens[i]);
	wq_refresh(test, &q);
	MRE_EXPECT_EQ(test, q.taken, MRE_ARRAY_SIZE(lens));
	for (i = 0; i < 4; i++) {
		MRE_EXPECT_EQ(test, q.bad[i], 1);
		MRE_EXPECT_EQ(test, q.len[i], 0);
		MRE_EXPECT(test, !wq_gather(test, &q, i, 0, lens[i]));
	}
	MRE_EXPECT_EQ(test, q.bad[4], 0);
	MRE_EXPECT_EQ(test, q.len[4], Q_INLINE);
	MRE_EXPECT(test, wq_gather(test, &q, 4, 0, Q_INLINE));
	MRE_EXPECT_EQ(test, q.bad[5], 0);
	MRE_EXPECT(test, wq_gather(test, &q, 5, 0, 0));
}

MRE_TEST(wq_gather_span)
{
	struct wq q;

	wq_init(test, &q, 8);
	post(&q, 1, 40);
	wq_refresh(test, &q);
	MRE_EXPECT(test, wq_gather(test, &q, 0, 0, 40));
	MRE_EXPECT(test, wq_gather(test, &q, 0, 39, 1));
	MRE_EXPECT(test, wq_gather(test, &q, 0, 40, 0));
	MRE_EXPECT(test, !wq_gather(test, &q, 0, 39, 2));
	MRE_EXPECT(test, !wq_gather(test, &q, 0, 41, 0));
	/* offset + length wraps to a small number */
	MRE_EXPECT(test, !wq_gather(test, &q, 0, 0xffffffe0, 0x28));
	MRE_EXPECT(test, !wq_gather(test, &q, 0, 1, 0xffffffff));
	MRE_EXPECT(test, !mroce_wq_span_ok(0xffffffff, 0xffffffff, 1));
	MRE_EXPECT(test, mroce_wq_span_ok(0xffffffff, 0xfffffffe, 1));
}

MRE_TEST(wq_rsn_window)
{
	MRE_EXPECT_EQ(test, mroce_wq_rsn(10, 10, 4), MROCE_RSN_OK);
	MRE_EXPECT_EQ(test, mroce_wq_rsn(10, 13, 4), MROCE_RSN_OK);
	MRE_EXPECT_EQ(test, mroce_wq_rsn(10, 14, 4), MROCE_RSN_AHEAD);
	MRE_EXPECT_EQ(test, mroce_wq_rsn(10, 9, 4), MROCE_RSN_DONE);
	MRE_EXPECT_EQ(test, mroce_wq_rsn(10, 0, 4), MROCE_RSN_DONE);
	MRE_EXPECT_EQ(test, mroce_wq_rsn(2, 0xfffffffe, 4), MROCE_RSN_DONE);
	MRE_EXPECT_EQ(test, mroce_wq_rsn(0xfffffffe, 1, 4), MROCE_RSN_OK);
	MRE_EXPECT_EQ(test, mroce_wq_rsn(0xfffffffe, 2, 4), MROCE_RSN_AHEAD);
	MRE_EXPECT_EQ(test, mroce_wq_rsn(10, 10 + 0x7fffffffU, 4),
		      MROCE_RSN_AHEAD);
	MRE_EXPECT_EQ(test, mroce_wq_rsn(10, 10 + 0x80000000U, 4),
		      MROCE_RSN_DONE);
}

static u32 hostile_len(u64 *s)
{
	switch (rnd(s) % 4) {
	case 0:
		return (u32)rnd(s);
	case 1:
		return Q_INLINE + (u32)(rnd(s) % 4);
	default:
		return (u32)(rnd(s) % (Q_INLINE + 1));
	}
}

static u32 hostile_prod(struct wq *q, u64 *s)
{
	switch (rnd(s) % 5) {
	case 0:
		return (u32)rnd(s);
	case 1:
		return q->taken - 1 - (u32)(rnd(s) % (2 * q->size));
	case 2:
		return q->done + q->size + 1 + (u32)(rnd(s) % q->size);
	default:
		return q->taken + (u32)(rnd(s) % (q->size + 1));
	}
}

/* one step of the provider, then one of the kernel */
static void random_step(struct kunit *test, struct wq *q, u64 *s,
			u32 *csum)
{
	u32 i, flight = q->taken - q->done, idx, slot;
	unsigned char *ent;

	switch (rnd(s) % 6) {
	case 0:
		post(q, (u32)(rnd(s) % (q->size + 1)), hostile_len(s));
		break;
	case 1:
		q->kern.hdr->prod = hostile_prod(q, s);
		break;
	case 2:			/* scribble over a ring entry, any */
		ent = mre_ring_entry(&q->kern, (u32)rnd(s));
		for (i = 0; i < q->stride; i++)
			ent[i] = (unsigned char)rnd(s);
		break;
	case 3:
		if (flight)
			complete(q, (u32)(rnd(s) % (flight + 1)));
		break;
	case 4:			/* the engine resends a span, or a wild one */
		if (!flight)
			break;
		idx = q->done + (u32)(rnd(s) % flight);
		slot = idx & (q->size - 1);
		if (rnd(s) & 1)
			MRE_EXPECT(test, wq_gather(test, q, idx, 0, q->len[slot]));
		else
			wq_gather(test, q, idx, (u32)rnd(s) % (Q_INLINE * 2),
				  hostile_len(s));
		break;
	}
	/* the kernel looks at the ring; shadows in flight must not move */
	flight = q->taken - q->done;
	for (i = 0; i < flight; i++) {
		slot = (q->done + i) & (q->size - 1);
		csum[slot] = q->len[slot] * 131 + q->shadow[slot][0];
	}
	wq_refresh(test, q);
	for (i = 0; i < flight; i++) {
		slot = (q->done + i) & (q->size - 1);
		MRE_EXPECT_EQ(test, csum[slot],
			      q->len[slot] * 131 + q->shadow[slot][0]);
	}
	if (q->broken)
		wq_reset(q);	/* the QP failed; its owner starts over */
}

MRE_TEST(wq_random_hostile)
{
	u64 s = mre_test_seed(test);
	u32 csum[Q_MAX], iter, broken = 0, sizes[] = { 1, 4, 16, 64 }, k;
	struct wq q;

	for (k = 0; k < MRE_ARRAY_SIZE(sizes); k++) {
		wq_init(test, &q, sizes[k]);
		for (iter = 0; iter < 2000; iter++) {
			random_step(test, &q, &s, csum);
			broken += q.broken;
			q.broken = 0;
			if (test->failures) {
				MRE_LOG(test, "size %u iteration %u", sizes[k],
					iter);
				return;
			}
		}
	}
	/* the walk reached the bad cases, not only the honest ones */
	MRE_EXPECT_GE(test, broken, 100);
}

MRE_SUITE(wq,
	  MRE_CASE(wq_rewound_producer),
	  MRE_CASE(wq_producer_far_ahead),
	  MRE_CASE(wq_srq_indices),
	  MRE_CASE(wq_huge_inline),
	  MRE_CASE(wq_gather_span),
	  MRE_CASE(wq_rsn_window),
	  MRE_CASE(wq_random_hostile));
