// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmroce-ep: struct mre_ops, the engine's view of the endpoint's peers,
 * QPs and memory regions (see mep.h).
 */
#include "mep.h"
#include <stdlib.h>
#include <string.h>

_Static_assert((int)MEP_WC_FLUSH == (int)MRE_ST_FLUSH &&
	       (int)MEP_WC_LOC_PROT_ERR == (int)MRE_ST_LOC_PROT &&
	       (int)MEP_WC_RETRY_EXC_ERR == (int)MRE_ST_RETRY_EXC &&
	       (int)MRE_ST_MAX < (int)MEP_WC_FLUSH_ERR,
	       "mep_wc_status is mre_status");
_Static_assert((int)MEP_WC_SEND == (int)MRE_OP_SEND &&
	       (int)MEP_WC_WRITE == (int)MRE_OP_WRITE &&
	       (int)MEP_WC_READ == (int)MRE_OP_READ_REQ &&
	       (int)MEP_WC_ATOMIC == (int)MRE_OP_ATOMIC_REQ,
	       "mep_wc_opcode is MRE_OP_*");

static struct mep *ep_of(struct mre_ep *e)
{
	return e->priv;
}

static struct mep_qp *qp_of(struct mre_stream *s)
{
	return MRE_CONTAINER_OF(s, struct mep_qp, s);
}

struct mep_mr *mep_mr_find(struct mep *ep, u32 key, u32 access, u64 addr,
			   u64 len)
{
	u32 i;

	if (!key)
		return NULL;
	for (i = 0; i < MEP_MAX_MRS; i++) {
		struct mep_mr *m = &ep->mrs[i];
		u64 base = (u64)(uintptr_t)m->base;

		if (m->key != key)
			continue;
		/* [addr, addr + len) inside [base, base + m->len), no overflow */
		if ((m->access & access) != access || addr < base ||
		    addr - base > m->len || len > m->len - (addr - base))
			return NULL;
		return m;
	}
	return NULL;
}

static u8 *mr_ptr(const struct mep_mr *m, u64 addr)
{
	return m->base + (addr - (u64)(uintptr_t)m->base);
}

static u64 o_random(struct mre_ep *e)
{
	return mep_rand(&ep_of(e)->rng);
}

static struct mre_conn *o_conn_by_id(struct mre_ep *e, const struct mre_rx *rx,
				     u64 cid)
{
	struct mep *ep = ep_of(e);
	u32 i;

	for (i = 0; i < MEP_MAX_PEERS; i++)
		if (ep->peers[i].c && ep->peers[i].c->cid == cid)
			return ep->peers[i].c;
	return NULL;
}

static struct mre_conn *o_conn_by_addr(struct mre_ep *e,
				       const struct mre_rx *rx,
				       const struct mre_addr *peer)
{
	struct mep_peer *p = mep_peer_get(ep_of(e), peer, false);

	return p ? p->c : NULL;
}

static enum mre_new o_conn_new(struct mre_ep *e, const struct mre_rx *rx,
			       const struct mre_addr *peer,
			       const struct mre_addr *local,
			       struct mre_conn **c)
{
	struct mep_peer *p = mep_peer_get(ep_of(e), peer, true);

	if (!p)
		return MRE_NEW_REFUSED;
	*c = p->c;
	return MRE_NEW_OK;
}

static void o_ud_rx(struct mre_ep *e, const struct mre_rx *rx,
		    const struct mre_pkt *pkt)
{
	/* no UD QPs in this library: counted by the engine (rx_ud) */
}

static void o_reply(struct mre_ep *e, const struct mre_rx *rx, const u8 *pkt,
		    u32 len)
{
	struct sockaddr_in to;

	if (!mep_unname(ep_of(e), &rx->src, &to))
		mep_tx(ep_of(e), &to, pkt, len, NULL, 0);
}

static int o_xmit(struct mre_conn *c, const struct mre_xmit *x)
{
	struct mep *ep = ep_of(c->ep);
	struct mep_peer *p = c->priv;
	const u8 *pl = NULL;

	if (x->claim)
		return 0;	/* no planes: never a claimed address */
	if (x->pl_src == MRE_PL_WQE && x->pl_len) {
		struct mep_qp *qp = qp_of(x->pl_stream);

		pl = qp->sq[x->pl_msn % MEP_SQ].buf + x->pl_offset;
	} else if (x->pl_src == MRE_PL_MR) {
		struct mep_mr *m = mep_mr_find(ep, x->pl_rkey,
					       MEP_ACC_REMOTE_READ,
					       x->pl_addr, x->pl_len);

		if (!m)
			return MRE_SYN_REM_ACCESS;
		pl = mr_ptr(m, x->pl_addr);
	}
	mep_tx(ep, &p->sa, x->hdr, x->hdr_len, pl, pl ? x->pl_len : 0);
	return 0;
}

static struct mre_stream *o_stream(struct mre_conn *c, u32 id)
{
	struct mep *ep = ep_of(c->ep);
	u32 i;

	for (i = 0; i < MEP_MAX_QPS; i++) {
		struct mep_qp *qp = ep->qps[i];

		if (qp && qp->attached && qp->qpn == id && qp->s.conn == c)
			return &qp->s;
	}
	return NULL;
}

static bool o_sq_get(struct mre_stream *s, u32 msn, struct mre_wqe *w)
{
	struct mep_qp *qp = qp_of(s);

	if (!seq_lt(msn, qp->sq_posted) || qp->sq_posted - msn > MEP_SQ)
		return false;
	*w = qp->sq[msn % MEP_SQ].w;
	return true;
}

static bool o_send_done(struct mre_stream *s, u32 msn, enum mre_status st)
{
	struct mep_qp *qp = qp_of(s);
	struct mep_swqe *sw = &qp->sq[msn % MEP_SQ];

	/* @msn may come from a peer's NAK: only one posted and not done */
	if (!seq_lt(msn, qp->sq_posted) || seq_lt(msn, qp->sq_done))
		return false;
	qp->sq_done = msn + 1;
	mep_cqe(qp->ep, sw->wr_id, qp->qpn, sw->w.len, (u8)st, sw->w.op);
	return false;
}

/* a READ or atomic response into the requester's own buffer */
static int place_resp(struct mep_qp *qp, const struct mre_place *p,
		      const u8 *data)
{
	struct mep_swqe *sw = &qp->sq[p->msn % MEP_SQ];
	u32 room = p->op == MRE_OP_ATOMIC_RESP ? 8 : sw->w.len;

	if (!seq_lt(p->msn, qp->sq_posted) || seq_lt(p->msn, qp->sq_done) ||
	    p->offset > room || p->len > room - p->offset)
		return MRE_SYN_REM_INV_REQ;
	memcpy(sw->buf + p->offset, data, p->len);
	return MRE_SYN_NONE;
}

static int o_place(struct mre_stream *s, const struct mre_place *p,
		   const u8 *data)
{
	struct mep_qp *qp = qp_of(s);
	struct mep_rwqe *r;
	struct mep_mr *m;

	switch (p->op) {
	case MRE_OP_WRITE:
		if (p->dflags & MRE_DF_RECV)
			return MRE_SYN_REM_INV_REQ;	/* no WRITE with imm here */
		/* the whole message must fit, or no part of it lands */
		m = mep_mr_find(qp->ep, p->rkey, MEP_ACC_REMOTE_WRITE,
				p->raddr, p->mlen);
		if (!m || p->offset > p->mlen || p->len > p->mlen - p->offset)
			return MRE_SYN_REM_ACCESS;
		memcpy(mr_ptr(m, p->raddr) + p->offset, data, p->len);
		return MRE_SYN_NONE;
	case MRE_OP_SEND:
		if (seq_lt(p->rsn, qp->rq_done))
			return MRE_SYN_REM_INV_REQ;
		if (!seq_lt(p->rsn, qp->rq_posted))
			return MRE_SYN_RNR;
		r = &qp->rq[p->rsn % MEP_RQ];
		if (p->mlen > r->len || p->offset > p->mlen ||
		    p->len > p->mlen - p->offset)
			return MRE_SYN_REM_INV_REQ;
		memcpy(r->buf + p->offset, data, p->len);
		return MRE_SYN_NONE;
	case MRE_OP_READ_RESP:
	case MRE_OP_ATOMIC_RESP:
		return place_resp(qp, p, data);
	}
	return MRE_SYN_REM_INV_REQ;
}

static int o_check(struct mre_stream *s, u8 op, u32 rkey, u64 raddr, u32 len)
{
	u32 acc = op == MRE_OP_READ_REQ ? MEP_ACC_REMOTE_READ :
		  op == MRE_OP_ATOMIC_WRITE_REQ ? MEP_ACC_REMOTE_WRITE :
		  MEP_ACC_REMOTE_ATOMIC;

	return mep_mr_find(qp_of(s)->ep, rkey, acc, raddr, len) ?
	       MRE_SYN_NONE : MRE_SYN_REM_ACCESS;
}

static int o_atomic(struct mre_stream *s, const struct mre_atomic *a,
		    u64 *orig)
{
	struct mep_mr *m = mep_mr_find(qp_of(s)->ep, a->rkey,
				       MEP_ACC_REMOTE_ATOMIC, a->raddr, 8);
	u64 v;
	u8 *p;

	if (!m || a->raddr & 7)
		return MRE_SYN_REM_ACCESS;
	p = mr_ptr(m, a->raddr);
	memcpy(&v, p, 8);
	*orig = v;
	if (a->aop == MRE_AOP_FETCH_ADD)
		v += a->swap_add;
	else if (v == a->compare)
		v = a->swap_add;
	memcpy(p, &v, 8);
	return MRE_SYN_NONE;
}

static void o_recv_done(struct mre_stream *s, const struct mre_recv_done *r)
{
	struct mep_qp *qp = qp_of(s);

	/* in order, or the peer is broken: fail the QP, complete nothing */
	if (r->rsn != qp->rq_done) {
		qp->fatal = MRE_ST_REM_INV_REQ + 1;
		return;
	}
	qp->rq_done = r->rsn + 1;
	mep_cqe(qp->ep, qp->rq[r->rsn % MEP_RQ].wr_id, qp->qpn, r->len,
		r->status, MEP_WC_RECV);
}

static void o_stream_error(struct mre_stream *s, enum mre_status st)
{
	/* mep_poll() flushes and detaches it, outside the engine's call */
	qp_of(s)->fatal = (u8)st + 1;
}

static void o_conn_event(struct mre_conn *c, enum mre_conn_event ev)
{
	/* the streams of a dead connection were failed already */
}

const struct mre_ops mep_ops = {
	.random = o_random,
	.conn_by_id = o_conn_by_id,
	.conn_by_addr = o_conn_by_addr,
	.conn_new = o_conn_new,
	.our_planes = NULL,	/* one plane, no blob */
	.ud_rx = o_ud_rx,
	.reply = o_reply,
	.xmit = o_xmit,
	.stream = o_stream,
	.sq_get = o_sq_get,
	.send_done = o_send_done,
	.place = o_place,
	.check = o_check,
	.atomic = o_atomic,
	.atomic_write = NULL,	/* refused: NAK REM_INV_REQ */
	.flush = NULL,		/* refused likewise */
	.recv_done = o_recv_done,
	.stream_error = o_stream_error,
	.conn_event = o_conn_event,
};
