// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Sequence windows against a deliberately naive model: a plain array of
 * "seen" flags indexed from a fixed origin, with the base found by search.
 */
#include "model.h"
#include "mre_test.h"

#define NAIVE 4096

struct naive {
	u32 origin;
	u8 seen[NAIVE];
	u32 base;		/* offset from origin */
};

static void naive_mark(struct naive *n, u32 off)
{
	n->seen[off] = 1;
	while (n->base < NAIVE && n->seen[n->base])
		n->base++;
}

MRE_TEST(sack_basic)
{
	u32 map[256 / 32], adv, out[8];
	struct mre_win w;

	mre_win_init(&w, map, 256, 100);
	MRE_EXPECT_EQ(test, mre_win_mark(&w, 102, &adv), MRE_WIN_NEW);
	MRE_EXPECT_EQ(test, adv, 0);
	MRE_EXPECT_EQ(test, w.base, 100);
	MRE_EXPECT_EQ(test, mre_win_mark(&w, 102, &adv), MRE_WIN_DUP);
	MRE_EXPECT_EQ(test, mre_win_mark(&w, 99, &adv), MRE_WIN_DUP);
	MRE_EXPECT_EQ(test, mre_win_mark(&w, 356, &adv), MRE_WIN_AHEAD);
	mre_win_extract(&w, out, 8);
	MRE_EXPECT_EQ(test, out[0], 2);		/* 102 = base + 1 + 1 */
	MRE_EXPECT_EQ(test, mre_win_mark(&w, 100, &adv), MRE_WIN_NEW);
	MRE_EXPECT_EQ(test, adv, 1);
	MRE_EXPECT_EQ(test, mre_win_mark(&w, 101, &adv), MRE_WIN_NEW);
	MRE_EXPECT_EQ(test, adv, 2);		/* 101 and 102 */
	MRE_EXPECT_EQ(test, w.base, 103);
	MRE_EXPECT(test, mre_win_test(&w, 102));
	MRE_EXPECT(test, !mre_win_test(&w, 103));
	/* the last slot of the window is usable, the next is not */
	MRE_EXPECT_EQ(test, mre_win_mark(&w, 103 + 255, &adv), MRE_WIN_NEW);
	MRE_EXPECT_EQ(test, mre_win_mark(&w, 103 + 256, &adv), MRE_WIN_AHEAD);
	mre_win_extract(&w, out, 8);
	MRE_EXPECT_EQ(test, out[7], 0x40000000u);	/* bit 254 */
	/* skipping moves the base and clears what it passes */
	MRE_EXPECT_EQ(test, mre_win_skip(&w, 200), 97);
	MRE_EXPECT_EQ(test, w.base, 200);
	MRE_EXPECT(test, !mre_win_test(&w, 200));
}

/*
 * A peer's path_una can ask the receiver to skip up to 2^30 PSNs at once
 * (found by tests/fuzz/fuzz_conn: bit by bit that took seconds per packet).
 * A jump of a window or more clears the window in one go.
 */
MRE_TEST(sack_skip_far)
{
	u32 map[256 / 32], adv, i, far = 100 + (1u << 30);
	struct mre_win w;

	mre_win_init(&w, map, 256, 100);
	mre_win_mark(&w, 101, &adv);
	mre_win_mark(&w, 300, &adv);
	MRE_EXPECT_EQ(test, mre_win_skip(&w, far), 1u << 30);
	MRE_EXPECT_EQ(test, w.base, far);
	for (i = 0; i < 256; i++)
		MRE_EXPECT(test, !mre_win_test(&w, far + i));
	MRE_EXPECT_EQ(test, mre_win_mark(&w, far + 1, &adv), MRE_WIN_NEW);
	MRE_EXPECT_EQ(test, mre_win_mark(&w, far, &adv), MRE_WIN_NEW);
	MRE_EXPECT_EQ(test, adv, 2);
	/* exactly one window: also a fresh start */
	MRE_EXPECT_EQ(test, mre_win_skip(&w, w.base + 256), 256);
	for (i = 0; i < 256; i++)
		MRE_EXPECT(test, !mre_win_test(&w, w.base + i));
	/* less than a window keeps the marks beyond the new base */
	mre_win_mark(&w, w.base + 10, &adv);
	MRE_EXPECT_EQ(test, mre_win_skip(&w, w.base + 10), 11);
	/* behind the base: nothing moves */
	MRE_EXPECT_EQ(test, mre_win_skip(&w, w.base - 5), 0);
}

/* random marks across wrap-around, compared with the naive model */
MRE_TEST(sack_random_vs_naive)
{
	static u32 map[1024 / 32];
	struct naive *n = MRE_ALLOC(test, sizeof(*n));
	u64 rng = mre_test_seed(test);
	u32 i, adv, bad = 0, size = 1024;
	struct mre_win w;

	n->origin = 0xfffffe00;			/* wraps through zero */
	mre_win_init(&w, map, size, n->origin);
	for (i = 0; i < 20000 && n->base + size < NAIVE; i++) {
		u32 off = n->base + (u32)(mdl_rand(&rng) % (size + 8));
		enum mre_win_res r, want;
		u32 old = n->base;

		if (off >= NAIVE)
			continue;
		want = off >= n->base + size ? MRE_WIN_AHEAD :
		       n->seen[off] ? MRE_WIN_DUP : MRE_WIN_NEW;
		r = mre_win_mark(&w, n->origin + off, &adv);
		if (want == MRE_WIN_NEW)
			naive_mark(n, off);
		bad += r != want;
		bad += w.base != n->origin + n->base;
		bad += r == MRE_WIN_NEW && adv != n->base - old;
		if (!(i & 63)) {	/* the count of marks the extract trusts */
			u32 k, set = 0;

			for (k = 0; k < size / 32; k++)
				set += (u32)__builtin_popcount(map[k]);
			bad += set != w.marks;
			if (i & 64 && n->base + 3 < NAIVE) {
				/* a skip (the peer gave up on 3) keeps it too */
				u32 to = n->base + 3;

				mre_win_skip(&w, w.base + 3);
				while (n->base < to)
					naive_mark(n, n->base);
			}
		}
	}
	MRE_EXPECT_EQ(test, bad, 0);
	MRE_EXPECT_GE(test, n->base, 1000);
}

MRE_TEST(sack_extract_matches)
{
	u32 map[256 / 32], out[8], adv, i, bad = 0;
	u64 rng = mre_test_seed(test) + 1;
	struct mre_win w;
	u8 seen[256] = { 0 };

	mre_win_init(&w, map, 256, 0xfffffff0);
	mre_win_mark(&w, 0xfffffff0, &adv);	/* base = ...f1 */
	for (i = 0; i < 100; i++) {
		u32 d = 1 + (u32)(mdl_rand(&rng) % 254);

		mre_win_mark(&w, w.base + d, &adv);
		if (!adv)
			seen[d - 1] = 1;
	}
	mre_win_extract(&w, out, 8);
	for (i = 0; i < 255; i++)
		bad += (out[i / 32] >> (i % 32) & 1) != seen[i];
	MRE_EXPECT_EQ(test, bad, 0);
	MRE_EXPECT_EQ(test, out[7] >> 31, 0);	/* never aliases the base */
}

MRE_SUITE(sack,
	  MRE_CASE(sack_basic),
	  MRE_CASE(sack_skip_far),
	  MRE_CASE(sack_random_vs_naive),
	  MRE_CASE(sack_extract_matches));
