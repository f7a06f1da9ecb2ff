// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SipHash-2-4 (see hash.h): two compression rounds per 8-byte word, four
 * finalisation rounds. The message is read as little-endian words; the
 * last word carries the length in its top byte.
 */
#include "hash.h"

static inline u64 rotl(u64 x, u32 b)
{
	return x << b | x >> (64 - b);
}

struct sip {
	u64 v0, v1, v2, v3;
};

static void sipround(struct sip *s)
{
	s->v0 += s->v1;
	s->v1 = rotl(s->v1, 13) ^ s->v0;
	s->v0 = rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl(s->v3, 16) ^ s->v2;
	s->v0 += s->v3;
	s->v3 = rotl(s->v3, 21) ^ s->v0;
	s->v2 += s->v1;
	s->v1 = rotl(s->v1, 17) ^ s->v2;
	s->v2 = rotl(s->v2, 32);
}

static void absorb(struct sip *s, u64 m)
{
	s->v3 ^= m;
	sipround(s);
	sipround(s);
	s->v0 ^= m;
}

static u64 le64(const u8 *p, u32 n)
{
	u64 v = 0;
	u32 i;

	for (i = 0; i < n; i++)
		v |= (u64)p[i] << (8 * i);
	return v;
}

u64 mre_siphash(const u64 key[2], const u8 *msg, u32 len)
{
	struct sip s = {
		.v0 = key[0] ^ 0x736f6d6570736575ULL,
		.v1 = key[1] ^ 0x646f72616e646f6dULL,
		.v2 = key[0] ^ 0x6c7967656e657261ULL,
		.v3 = key[1] ^ 0x7465646279746573ULL,
	};
	u32 i, whole = len & ~7u;

	for (i = 0; i < whole; i += 8)
		absorb(&s, le64(msg + i, 8));
	absorb(&s, le64(msg + whole, len - whole) | (u64)(len & 0xff) << 56);
	s.v2 ^= 0xff;
	for (i = 0; i < 4; i++)
		sipround(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
