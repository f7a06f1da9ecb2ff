// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Circular sequence windows (see sack.h).
 */
#include "sack.h"

void mre_win_init(struct mre_win *w, u32 *map, u32 size, u32 base)
{
	w->base = base;
	w->size = size;
	w->marks = 0;
	w->map = map;
	mre_memset(map, 0, size / 8);
}

bool mre_win_test(const struct mre_win *w, u32 seq)
{
	u32 d = seq - w->base;

	if ((s32)d < 0)
		return true;
	if (d >= w->size)
		return false;
	return mre_bit(w->map, seq & (w->size - 1));
}

/* advance the base over contiguous marked numbers, clearing them */
static u32 win_slide(struct mre_win *w)
{
	u32 n = 0, mask = w->size - 1;

	for (;;) {
		u32 i = w->base & mask;
		u32 word = w->map[i >> 5] >> (i & 31);
		u32 run;

		if (!(word & 1))
			break;
		/* count the run of ones in this word starting at bit i */
		run = (~word) ? (u32)__builtin_ctz(~word) : 32 - (i & 31);
		if (run > 32 - (i & 31))
			run = 32 - (i & 31);
		if (run == 32)
			w->map[i >> 5] = 0;
		else
			w->map[i >> 5] &= ~(((1u << run) - 1) << (i & 31));
		w->base += run;
		w->marks -= run;
		n += run;
	}
	return n;
}

enum mre_win_res mre_win_mark(struct mre_win *w, u32 seq, u32 *advanced)
{
	u32 d = seq - w->base;

	*advanced = 0;
	if ((s32)d < 0)
		return MRE_WIN_DUP;
	if (d >= w->size)
		return MRE_WIN_AHEAD;
	if (mre_bit(w->map, seq & (w->size - 1)))
		return MRE_WIN_DUP;
	if (d) {
		mre_bit_set(w->map, seq & (w->size - 1));
		w->marks++;
		return MRE_WIN_NEW;
	}
	w->base++;
	*advanced = 1 + win_slide(w);
	return MRE_WIN_NEW;
}

u32 mre_win_skip(struct mre_win *w, u32 seq)
{
	u32 n = 0, d = seq - w->base;

	/*
	 * A jump of a window or more passes every mark: start afresh, in
	 * constant time (the distance comes from the peer, up to 2^30).
	 */
	if (seq_lt(w->base, seq) && d >= w->size) {
		mre_memset(w->map, 0, w->size / 8);
		w->marks = 0;
		w->base = seq;
		return d;
	}
	while (seq_lt(w->base, seq)) {
		w->marks -= mre_bit(w->map, w->base & (w->size - 1));
		mre_bit_clear(w->map, w->base & (w->size - 1));
		w->base++;
		n++;
	}
	return n + win_slide(w);
}

static u32 extract32(const struct mre_win *w, u32 first)
{
	u32 mask = w->size - 1, out = 0, i;
	u32 idx = first & mask, sh = idx & 31;

	/* fast path: aligned within one word */
	if (!sh)
		return w->map[idx >> 5];
	out = w->map[idx >> 5] >> sh;
	i = (idx + 32) & mask;
	out |= w->map[i >> 5] << (32 - sh);
	return out;
}

void mre_win_extract(const struct mre_win *w, u32 *out, u32 nwords)
{
	u32 j, limit = w->size - 1;	/* base + 1 + limit - 1 is the last in window */

	if (!w->marks) {		/* nothing beyond base: most ACKs */
		mre_memset(out, 0, nwords * sizeof(*out));
		return;
	}
	for (j = 0; j < nwords; j++) {
		u32 lo = 32 * j;	/* bit 0 of this word: base + 1 + lo */

		if (lo >= limit) {
			out[j] = 0;
			continue;
		}
		out[j] = extract32(w, w->base + 1 + lo);
		if (limit - lo < 32)	/* past the window: would alias the base */
			out[j] &= (1u << (limit - lo)) - 1;
	}
}

u64 mre_win_extract64(const struct mre_win *w)
{
	u32 o[2];

	mre_win_extract(w, o, 2);
	return (u64)o[1] << 32 | o[0];
}
