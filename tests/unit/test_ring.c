// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The shared ring (kernel/engine/ring.h): fill/drain across wrap-around, and
 * an untrusted producer index that must not make the consumer misbehave.
 */
#include "ring.h"
#include "mre_types.h"
#include "mre_test.h"

struct two {
	struct mre_ring p, c;		/* producer's and consumer's views */
	unsigned char *mem;
};

static void two_init(struct kunit *test, struct two *t, u32 size, u32 stride)
{
	t->mem = MRE_ALLOC(test, mre_ring_bytes(size, stride));
	mre_ring_init(&t->p, t->mem, size, stride);
	mre_ring_init(&t->c, t->mem, size, stride);
}

MRE_TEST(ring_fill_drain_wrap)
{
	struct two t;
	u32 i, k, bad = 0, got = 0, next = 0;

	two_init(test, &t, 8, 16);
	for (k = 0; k < 100; k++) {
		/* produce up to 5, consume up to 3: the ring fills and wraps */
		for (i = 0; i < 5 && mre_ring_space(&t.p); i++) {
			u32 *e = mre_ring_next(&t.p);

			*e = t.p.prod;
			mre_ring_publish(&t.p, 1);
		}
		MRE_EXPECT_LE(test, t.p.prod - t.p.cons, 8);
		mre_ring_avail(&t.c);
		for (i = 0; i < 3 && t.c.cons != t.c.prod; i++) {
			u32 *e = mre_ring_entry(&t.c, t.c.cons);

			bad += *e != next++;
			got++;
			mre_ring_release(&t.c, t.c.cons + 1);
		}
	}
	MRE_EXPECT_EQ(test, bad, 0);
	MRE_EXPECT_EQ(test, got, 300);
	MRE_EXPECT_EQ(test, mre_ring_space(&t.p), 8 - (t.p.prod - t.c.cons));
}

MRE_TEST(ring_untrusted_indices)
{
	struct two t;

	two_init(test, &t, 8, 16);
	mre_ring_publish(&t.p, 3);
	MRE_EXPECT_EQ(test, mre_ring_avail(&t.c), 3);
	/* a producer index more than a ring ahead is ignored */
	t.c.hdr->prod = 3 + 9;
	MRE_EXPECT_EQ(test, mre_ring_avail(&t.c), 3);
	/* so is one that went backwards */
	mre_ring_release(&t.c, 2);
	t.c.hdr->prod = 1;
	MRE_EXPECT_EQ(test, mre_ring_avail(&t.c), 1);
	/* and a consumer index that claims more space than exists */
	t.p.hdr->cons = t.p.prod + 5;
	MRE_EXPECT_LE(test, mre_ring_space(&t.p), 8);
}

MRE_SUITE(ring,
	  MRE_CASE(ring_fill_drain_wrap),
	  MRE_CASE(ring_untrusted_indices));
