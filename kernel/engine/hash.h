/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A keyed hash for what must not be guessed or steered from the wire: the
 * CONNECT cookies and the per-source limiter's buckets (demux.c).
 *
 * SipHash-2-4 (Aumasson and Bernstein, 2012): a pseudorandom function of a
 * 128-bit key, 64-bit output. Without the key an observer can neither
 * forge a value for an input nor choose inputs that collide. The engine's
 * key comes from mre_ops.random at mre_ep_init().
 */
#ifndef MRE_HASH_H
#define MRE_HASH_H

#include "mre_types.h"

u64 mre_siphash(const u64 key[2], const u8 *msg, u32 len);

#endif /* MRE_HASH_H */
