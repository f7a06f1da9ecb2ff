// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * PARITY's bytes (protocol.md 6.7; the engine decides when, in
 * kernel/engine/parity.c). The sender XORs the last packets of a WRITE,
 * read from its SGEs as each packet's payload is; the receiver rebuilds
 * the one it lacks from the PARITY and what it placed of the others, read
 * back from the MR the WRITE names, and the engine places the result as
 * that packet. Both run under a peer's lock, BHs off, so each CPU needs
 * one set of buffers: a piece being read, and the packet being rebuilt
 * (which the engine places before the next rebuild on this CPU).
 */
#include <linux/percpu.h>
#include <asm/unaligned.h>

#include "mr.h"
#include "parity.h"
#include "qp.h"

struct parity_buf {
	u8 piece[MRE_MAX_PAYLOAD];
	u8 out[MRE_MAX_PAYLOAD];
};

static struct parity_buf __percpu *parity_bufs;

/* @dst ^= @src, @len bytes (@dst may be an skb's, unaligned) */
static void xor_into(u8 *dst, const u8 *src, u32 len)
{
	u32 i = 0;

	for (; i + sizeof(long) <= len; i += sizeof(long))
		put_unaligned(get_unaligned((unsigned long *)(dst + i)) ^
			      get_unaligned((const unsigned long *)(src + i)),
			      (unsigned long *)(dst + i));
	for (; i < len; i++)
		dst[i] ^= src[i];
}

int mroce_parity_init(void)
{
	parity_bufs = alloc_percpu(struct parity_buf);
	return parity_bufs ? 0 : -ENOMEM;
}

void mroce_parity_exit(void)
{
	free_percpu(parity_bufs);
}

void mroce_parity_fold(struct mroce_qp *qp, const struct mre_xmit *x,
		       u32 wqe_len, u8 *dst,
		       void (*gather)(struct mroce_qp *qp,
				      const struct mre_xmit *x, u8 *dst))
{
	u8 *piece = this_cpu_ptr(parity_bufs)->piece;
	struct mre_xmit one = *x;
	u32 off;

	memset(dst, 0, x->pl_len);
	if (WARN_ON_ONCE(x->pl_len > MRE_MAX_PAYLOAD || !x->pl_len))
		return;
	for (off = x->pl_offset; off < wqe_len; off += x->pl_len) {
		one.pl_offset = off;
		one.pl_len = min(x->pl_len, wqe_len - off);
		gather(qp, &one, piece);
		xor_into(dst, piece, one.pl_len);
	}
}

const u8 *mroce_parity_rebuild(struct mre_stream *s,
			       const struct mre_rebuild *rb, const u8 *parity)
{
	struct mroce_qp *qp = mroce_qp_of_stream(s);
	struct parity_buf *buf = this_cpu_ptr(parity_bufs);
	struct mroce_mr *mr;
	u32 off, n;

	/* the engine bounds these by the wire's limits; the MR by its own */
	if (rb->len > MRE_MAX_PAYLOAD || rb->stride > MRE_MAX_PAYLOAD ||
	    rb->len > rb->stride || rb->off >= rb->mlen)
		return NULL;
	mr = mroce_rkey_get(&qp->ibqp, rb->rkey, rb->raddr + rb->off,
			    rb->mlen - rb->off, IB_ACCESS_REMOTE_WRITE);
	if (!mr)
		return NULL;
	memcpy(buf->out, parity, rb->len);
	for (off = rb->off; off < rb->mlen; off += rb->stride) {
		if (off == rb->miss)
			continue;
		n = min(rb->len, rb->mlen - off);
		mroce_mr_copy(mr, rb->raddr + off, buf->piece, n, false);
		xor_into(buf->out, buf->piece, n);
	}
	mroce_mr_put(mr);
	return buf->out;
}
