/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Basic types for the portable MetaRoCE engine.
 *
 * The engine's core files include only engine headers; this is the one place
 * that looks at its surroundings. In the kernel it takes the kernel's types,
 * elsewhere it defines the same names from compiler built-ins, so the engine
 * builds freestanding (no libc) for the host tests, the simulator and fuzzers.
 *
 * Sequence numbers (TSN, PSN, MSN) are 32-bit and compared in serial number
 * arithmetic (RFC 1982): seq_lt(a, b) is true when a precedes b by less than
 * 2^31.
 */
#ifndef MRE_TYPES_H
#define MRE_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#include <linux/stddef.h>
#define mre_memcpy(d, s, n)	memcpy(d, s, n)
#define mre_memset(d, c, n)	memset(d, c, n)
#else
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;
#ifndef __cplusplus
typedef _Bool bool;
#define true 1
#define false 0
#endif
#ifndef NULL
#define NULL ((void *)0)
#endif
#define offsetof(t, m) __builtin_offsetof(t, m)
#define mre_memcpy(d, s, n)	__builtin_memcpy(d, s, n)
#define mre_memset(d, c, n)	__builtin_memset(d, c, n)
#endif

#define MRE_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MRE_MIN(a, b) ((a) < (b) ? (a) : (b))
#define MRE_MAX(a, b) ((a) > (b) ? (a) : (b))
#define MRE_STATIC_ASSERT(c, msg) _Static_assert(c, msg)
#define MRE_CONTAINER_OF(p, t, m) ((t *)((char *)(p) - offsetof(t, m)))

/* serial-number comparison of 32-bit sequence numbers */
static inline bool seq_lt(u32 a, u32 b) { return (s32)(a - b) < 0; }
static inline bool seq_le(u32 a, u32 b) { return (s32)(a - b) <= 0; }
static inline bool seq_gt(u32 a, u32 b) { return (s32)(a - b) > 0; }
static inline bool seq_ge(u32 a, u32 b) { return (s32)(a - b) >= 0; }
static inline u32 seq_max(u32 a, u32 b) { return seq_gt(a, b) ? a : b; }

/*
 * Big-endian loads and stores on byte buffers. The wire format is read and
 * written only through these, so no packet field is ever accessed unaligned
 * and the engine does not depend on the host's byte order.
 */
static inline u16 get_be16(const u8 *p) { return (u16)(p[0] << 8 | p[1]); }
static inline u32 get_be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}
static inline u64 get_be64(const u8 *p)
{
	return (u64)get_be32(p) << 32 | get_be32(p + 4);
}
static inline void put_be16(u8 *p, u16 v) { p[0] = v >> 8; p[1] = (u8)v; }
static inline void put_be32(u8 *p, u32 v)
{
	p[0] = v >> 24; p[1] = (u8)(v >> 16); p[2] = (u8)(v >> 8); p[3] = (u8)v;
}
static inline void put_be64(u8 *p, u64 v)
{
	put_be32(p, (u32)(v >> 32));
	put_be32(p + 4, (u32)v);
}

#endif /* MRE_TYPES_H */
