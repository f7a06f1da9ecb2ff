/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Sequence windows as circular bitmaps.
 *
 * A window tracks which sequence numbers in [base, base + size) have been
 * seen. Bit (seq & (size - 1)) of the map stands for seq; size is a power of
 * two and a multiple of 32. The base itself is never marked: whenever the
 * base's own bit would be set, the base moves past it and every contiguous
 * marked number after it (mre_win_mark() does this and reports how far it
 * moved), clearing the bits it passes so that they are clean when the
 * window wraps round to them again.
 *
 * The per-path receive window (256 bits, the size of the SACK carried in
 * ACKs) and the connection's TSN receive window (2^window_log2 bits) are
 * both windows of this kind. mre_win_extract() produces the wire form:
 * bit i of the result stands for base + 1 + i.
 */
#ifndef MRE_SACK_H
#define MRE_SACK_H

#include "mre_types.h"

struct mre_win {
	u32 base;	/* lowest number not yet seen */
	u32 size;	/* bits in map: power of two, >= 32 */
	u32 marks;	/* bits set in map (all beyond base) */
	u32 *map;
};

enum mre_win_res {
	MRE_WIN_NEW,	/* newly marked */
	MRE_WIN_DUP,	/* seen before (below base, or already marked) */
	MRE_WIN_AHEAD,	/* at or beyond base + size: outside the window */
};

static inline bool mre_bit(const u32 *map, u32 i)
{
	return map[i >> 5] >> (i & 31) & 1;
}

static inline void mre_bit_set(u32 *map, u32 i)
{
	map[i >> 5] |= 1u << (i & 31);
}

static inline void mre_bit_clear(u32 *map, u32 i)
{
	map[i >> 5] &= ~(1u << (i & 31));
}

void mre_win_init(struct mre_win *w, u32 *map, u32 size, u32 base);
/* has @seq been seen? (false beyond the window) */
bool mre_win_test(const struct mre_win *w, u32 seq);
/*
 * Mark @seq as seen. On MRE_WIN_NEW, *@advanced is how far the base moved
 * (0 if @seq was above it); the caller handles base..base+*advanced-1 (old
 * base) as now contiguous.
 */
enum mre_win_res mre_win_mark(struct mre_win *w, u32 seq, u32 *advanced);
/* move the base up to @seq (the sender gave up what lies below); returns distance */
u32 mre_win_skip(struct mre_win *w, u32 seq);
/* @nwords words of wire bitmap: bit i of word j stands for base + 1 + 32j + i */
void mre_win_extract(const struct mre_win *w, u32 *out, u32 nwords);
/* bit i (i < 64) stands for base + 1 + i */
u64 mre_win_extract64(const struct mre_win *w);

#endif /* MRE_SACK_H */
