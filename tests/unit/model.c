// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Model host: struct mre_ops over simple memory regions and queues (see
 * model.h). Freestanding, so it also builds into the KUnit suite.
 */
#include "model.h"

#ifdef __KERNEL__
#define MDL_UINTPTR unsigned long
#else
#define MDL_UINTPTR __UINTPTR_TYPE__
#endif

u64 mdl_rand(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static struct mdl_node *node_of_ep(struct mre_ep *ep)
{
	return ep->priv;
}

static struct mdl_qp *qp_of(struct mre_stream *s)
{
	return MRE_CONTAINER_OF(s, struct mdl_qp, s);
}

static u32 peer_of(struct mre_conn *c)
{
	return (u32)(MDL_UINTPTR)c->priv;
}

static struct mdl_mr *find_mr(struct mdl_node *n, u32 key, u32 access,
			      u64 addr, u32 len)
{
	u32 i;

	for (i = 0; i < n->nmrs; i++) {
		struct mdl_mr *m = &n->mrs[i];

		if (m->key != key)
			continue;
		if ((m->access & access) != access)
			return NULL;
		if (addr < m->addr || addr - m->addr > m->len ||
		    len > m->len - (addr - m->addr))
			return NULL;
		return m;
	}
	return NULL;
}

static u64 m_random(struct mre_ep *ep)
{
	return mdl_rand(&node_of_ep(ep)->rng);
}

/* dst ^= @len bytes at @src */
static void xor_into(u8 *dst, const u8 *src, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		dst[i] ^= src[i];
}

/* a PARITY's payload: WQE bytes [off, end) folded x->pl_len at a time */
static void parity_fold(u8 *dst, const u8 *buf, u32 off, u32 end, u32 stride)
{
	mre_memset(dst, 0, stride);
	for (; off < end; off += stride)
		xor_into(dst, buf + off, MRE_MIN(stride, end - off));
}

static int m_xmit(struct mre_conn *c, const struct mre_xmit *x)
{
	struct mdl_node *n = node_of_ep(c->ep);
	u8 *pkt = n->txbuf;
	const u8 *src = NULL;

	mre_memcpy(pkt, x->hdr, x->hdr_len);
	if (x->pl_src == MRE_PL_WQE) {
		struct mdl_qp *qp = qp_of(x->pl_stream);

		src = qp->sq[x->pl_msn % MDL_SQ].buf + x->pl_offset;
	} else if (x->pl_src == MRE_PL_MR) {
		struct mdl_mr *m = find_mr(n, x->pl_rkey, MDL_ACC_RREAD,
					   x->pl_addr, x->pl_len);

		if (!m)
			return MRE_SYN_REM_ACCESS;
		src = m->mem + (x->pl_addr - m->addr);
	} else if (x->pl_src == MRE_PL_PARITY) {
		struct mdl_swqe *sw = &qp_of(x->pl_stream)->sq[x->pl_msn % MDL_SQ];

		parity_fold(pkt + x->hdr_len, sw->buf, x->pl_offset, sw->w.len,
			    x->pl_len);
	}
	if (src && x->pl_len)
		mre_memcpy(pkt + x->hdr_len, src, x->pl_len);
	if (x->claim) {
		n->claims++;
		if (!c->peer_nplanes || !x->plane ||
		    (x->hdr[0] & 0xf) != MRE_T_CHALLENGE ||
		    x->hdr_len != MRE_PLANE_PKT_LEN || x->pl_len ||
		    mre_conn_plane_proven(c, x->plane))
			n->claim_bad++;
		else
			n->claim_to[x->plane % c->peer_nplanes]++;
	}
	n->out(n, peer_of(c), x, pkt, x->hdr_len + x->pl_len);
	return 0;
}

static struct mre_stream *m_stream(struct mre_conn *c, u32 id)
{
	struct mdl_node *n = node_of_ep(c->ep);
	u32 i;

	for (i = 0; i < n->nqps; i++)
		if (n->qps[i]->qpn == id && n->qps[i]->s.conn == c)
			return &n->qps[i]->s;
	return NULL;
}

static bool m_sq_get(struct mre_stream *s, u32 msn, struct mre_wqe *w)
{
	struct mdl_qp *qp = qp_of(s);

	if (!seq_lt(msn, qp->sq_posted) || qp->sq_posted - msn > MDL_SQ)
		return false;
	/* behind a local WQE that runs once everything before it completed */
	if (qp->local_at && seq_ge(msn, qp->local_at) &&
	    qp->sq_done != qp->local_at)
		return false;
	*w = qp->sq[msn % MDL_SQ].w;
	return true;
}

static int place_write(struct mdl_node *n, struct mdl_qp *qp,
		       const struct mre_place *p, const u8 *data)
{
	u64 dst = p->raddr + p->offset;
	struct mdl_mr *m;
	u32 i;

	/* a WRITE with immediate needs its receive before anything lands */
	if (p->dflags & MRE_DF_RECV && p->dflags & MRE_DF_LAST &&
	    !seq_lt(p->rsn, qp->rq_posted))
		return MRE_SYN_RNR;
	/* the whole message must fit, or no part of it lands */
	m = find_mr(n, p->rkey, MDL_ACC_RWRITE, p->raddr, p->mlen);
	if (!m)
		return MRE_SYN_REM_ACCESS;
	if (p->len)
		mre_memcpy(m->mem + (dst - m->addr), data, p->len);
	if (m->count)
		for (i = 0; i < p->len; i++)
			m->count[dst - m->addr + i]++;
	n->placed_bytes += p->len;
	qp->placed_bytes += p->len;
	return MRE_SYN_NONE;
}

static int m_place(struct mre_stream *s, const struct mre_place *p,
		   const u8 *data)
{
	struct mdl_qp *qp = qp_of(s);
	struct mdl_node *n = qp->node;
	struct mdl_swqe *sw;
	struct mdl_rwqe *r;

	switch (p->op) {
	case MRE_OP_WRITE:
		return place_write(n, qp, p, data);
	case MRE_OP_SEND:
		/* a receive completed already is not written again (the kernel's rule) */
		if (seq_lt(p->rsn, qp->rq_done))
			return MRE_SYN_REM_INV_REQ;
		if (!seq_lt(p->rsn, qp->rq_posted))
			return MRE_SYN_RNR;
		r = &qp->rq[p->rsn % MDL_RQ];
		if (p->mlen > r->len)
			return MRE_SYN_REM_INV_REQ;
		if (p->len)
			mre_memcpy(r->buf + p->offset, data, p->len);
		n->placed_bytes += p->len;
		qp->placed_bytes += p->len;
		return MRE_SYN_NONE;
	case MRE_OP_READ_RESP:
	case MRE_OP_ATOMIC_RESP:
		if (qp->resp_gone)
			return MRE_SYN_REM_ACCESS;	/* our buffer went away */
		sw = &qp->sq[p->msn % MDL_SQ];
		if (p->offset + p->len > (p->op == MRE_OP_ATOMIC_RESP ? 8 : sw->w.len)) {
			n->bad_place++;
			return MRE_SYN_REM_INV_REQ;
		}
		mre_memcpy(sw->buf + p->offset, data, p->len);
		n->placed_bytes += p->len;
		qp->placed_bytes += p->len;
		return MRE_SYN_NONE;
	}
	n->bad_place++;
	return MRE_SYN_REM_INV_REQ;
}

static const u8 *m_parity(struct mre_stream *s, const struct mre_rebuild *rb,
			  const u8 *parity)
{
	struct mdl_node *n = qp_of(s)->node;
	struct mdl_mr *m = find_mr(n, rb->rkey, MDL_ACC_RWRITE, rb->raddr,
				   rb->mlen);
	const u8 *base;
	u32 off;

	if (!m)
		return NULL;
	base = m->mem + (rb->raddr - m->addr);
	mre_memcpy(n->parbuf, parity, rb->len);
	for (off = rb->off; off < rb->mlen; off += rb->stride)
		if (off != rb->miss)
			xor_into(n->parbuf, base + off,
				 MRE_MIN(rb->len, rb->mlen - off));
	n->rebuilt++;
	return n->parbuf;
}

static int m_check(struct mre_stream *s, u8 op, u32 rkey, u64 raddr,
		   u32 len)
{
	/* an ATOMIC_WRITE needs the right to write (as rxe asks) */
	u32 acc = op == MRE_OP_READ_REQ ? MDL_ACC_RREAD :
		  op == MRE_OP_ATOMIC_WRITE_REQ ? MDL_ACC_RWRITE :
		  MDL_ACC_RATOMIC;

	return find_mr(qp_of(s)->node, rkey, acc, raddr, len) ?
	       MRE_SYN_NONE : MRE_SYN_REM_ACCESS;
}

static int m_atomic(struct mre_stream *s, const struct mre_atomic *a,
		    u64 *orig)
{
	struct mdl_mr *m = find_mr(qp_of(s)->node, a->rkey, MDL_ACC_RATOMIC,
				   a->raddr, 8);
	u64 v;
	u8 *p;

	if (!m || a->raddr & 7)
		return MRE_SYN_REM_ACCESS;
	p = m->mem + (a->raddr - m->addr);
	mre_memcpy(&v, p, 8);
	*orig = v;
	if (a->aop == MRE_AOP_FETCH_ADD)
		v += a->swap_add;
	else if (v == a->compare)
		v = a->swap_add;
	mre_memcpy(p, &v, 8);
	return MRE_SYN_NONE;
}

static int m_atomic_write(struct mre_stream *s, u32 rkey, u64 raddr,
			  u64 value)
{
	struct mdl_node *n = qp_of(s)->node;
	struct mdl_mr *m = find_mr(n, rkey, MDL_ACC_RWRITE, raddr, 8);
	u32 i;

	if (!m || raddr & 7)
		return MRE_SYN_REM_ACCESS;
	mre_memcpy(m->mem + (raddr - m->addr), &value, 8);
	if (m->count)
		for (i = 0; i < 8; i++)
			m->count[raddr - m->addr + i]++;
	n->awrites++;
	return MRE_SYN_NONE;
}

static int m_flush(struct mre_stream *s, const struct mre_flush *f,
		   bool exec)
{
	struct mdl_node *n = qp_of(s)->node;
	u32 acc = (f->fflags & MRE_FLUSH_GLOBAL ?
		   MDL_ACC_FLUSH_GLOBAL : 0) |
		  (f->fflags & MRE_FLUSH_PERSISTENT ?
		   MDL_ACC_FLUSH_PERSIST : 0);
	struct mdl_mr *m;
	u32 i;

	if (f->fflags & MRE_FLUSH_MR) {
		for (i = 0; i < n->nmrs; i++)
			if (n->mrs[i].key == f->rkey)
				break;
		m = i < n->nmrs && (n->mrs[i].access & acc) == acc ?
		    &n->mrs[i] : NULL;
	} else {
		m = find_mr(n, f->rkey, acc, f->raddr, f->len);
	}
	if (!m)
		return MRE_SYN_REM_ACCESS;
	if (exec) {
		/* the model's memory is plain memory: nothing to write back */
		n->flushes++;
		n->flush_placed = n->placed_bytes;
	}
	return MRE_SYN_NONE;
}

static void log_cqe(struct mdl_qp *qp, const struct mdl_cqe *e)
{
	if (e->status)
		qp->errors++;
	if (qp->nlog < MDL_LOG) {
		qp->log[qp->nlog] = *e;
		qp->log[qp->nlog++].placed = qp->node->placed_bytes;
	}
}

static bool m_send_done(struct mre_stream *s, u32 msn, enum mre_status st)
{
	struct mdl_qp *qp = qp_of(s);
	struct mdl_cqe e = {
		.wr_id = qp->sq[msn % MDL_SQ].wr_id,
		.status = (u8)st,
		.op = qp->sq[msn % MDL_SQ].w.op,
	};

	if (msn != qp->sq_done)
		qp->order_violations++;
	qp->sq_done = msn + 1;
	log_cqe(qp, &e);
	/* the local WQE at local_at runs now: what follows it may go */
	if (qp->local_at && qp->sq_done == qp->local_at) {
		qp->local_at = 0;
		return true;
	}
	return false;
}

static void m_recv_done(struct mre_stream *s, const struct mre_recv_done *r)
{
	struct mdl_qp *qp = qp_of(s);
	struct mdl_cqe e = {
		.wr_id = qp->rq[r->rsn % MDL_RQ].wr_id,
		.len = r->len, .imm = r->imm, .status = r->status, .recv = 1,
		.op = r->op, .dflags = r->dflags,
	};

	/*
	 * Out of order: a hostile peer's doing when it comes from the wire's
	 * rsn. Like the kernel, complete nothing out of order: the QP fails
	 * (order_violations counts what an honest peer must never cause).
	 */
	if (r->rsn != qp->rq_done) {
		qp->order_violations++;
		qp->fatal = MRE_ST_REM_INV_REQ;
		return;
	}
	qp->rq_done = r->rsn + 1;
	log_cqe(qp, &e);
}

static void m_stream_error(struct mre_stream *s, enum mre_status st)
{
	qp_of(s)->fatal = st ? (u8)st : 255;
}

struct mre_addr mdl_addr(u32 id)
{
	struct mre_addr a = {
		.family = MRE_AF_INET,
		.a = { 10, 0, (u8)(id >> 8), (u8)id },
	};

	return a;
}

/* the node an address names (n->max_peers: none) */
static u32 node_of_addr(const struct mdl_node *n, const struct mre_addr *a)
{
	u32 id = (u32)a->a[2] << 8 | a->a[3];

	if (a->family != MRE_AF_INET || a->a[0] != 10 || a->a[1] ||
	    id >= n->max_peers)
		return n->max_peers;
	return id;
}

static struct mre_conn *m_conn_by_id(struct mre_ep *ep,
				     const struct mre_rx *rx, u64 cid)
{
	struct mdl_node *n = node_of_ep(ep);
	u32 i;

	for (i = 0; i < n->nlive; i++)
		if (n->conns[n->live[i]]->cid == cid)
			return n->conns[n->live[i]];
	return NULL;
}

static struct mre_conn *m_conn_by_addr(struct mre_ep *ep,
				       const struct mre_rx *rx,
				       const struct mre_addr *peer)
{
	struct mdl_node *n = node_of_ep(ep);
	u32 id = node_of_addr(n, peer);

	return id < n->max_peers ? n->conns[id] : NULL;
}

static enum mre_new m_conn_new(struct mre_ep *ep, const struct mre_rx *rx,
			       const struct mre_addr *peer,
			       const struct mre_addr *local,
			       struct mre_conn **c)
{
	struct mdl_node *n = node_of_ep(ep);
	u32 id = node_of_addr(n, peer);

	n->conn_news++;
	if (!n->new_conn || id >= n->max_peers)
		return MRE_NEW_REFUSED;
	*c = n->new_conn(n, id);
	return *c ? MRE_NEW_OK : MRE_NEW_REFUSED;
}

static u32 m_our_planes(struct mre_ep *ep, u8 family, struct mre_addr *addrs)
{
	struct mdl_node *n = node_of_ep(ep);
	u32 k;

	for (k = 0; k < n->nplanes && k < MRE_BLOB_MAX_PLANES; k++)
		addrs[k] = n->planes[k];
	return k;
}

static void m_ud_rx(struct mre_ep *ep, const struct mre_rx *rx,
		    const struct mre_pkt *pkt)
{
	node_of_ep(ep)->ud_rx++;
}

/* a RESET back to the sender, by the harness's wire */
static void m_reply(struct mre_ep *ep, const struct mre_rx *rx, const u8 *pkt,
		    u32 len)
{
	struct mdl_node *n = node_of_ep(ep);
	struct mre_xmit x = { .hdr = pkt, .hdr_len = len, .src_port = 49152 };
	u32 to = node_of_addr(n, &rx->src);

	n->replies++;
	if (to < n->max_peers && n->out)
		n->out(n, to, &x, pkt, len);
}

static void m_conn_event(struct mre_conn *c, enum mre_conn_event ev)
{
	struct mdl_node *n = node_of_ep(c->ep);

	if (ev == MRE_CONN_UP)
		n->conn_ups++;
	else if (ev == MRE_CONN_DEAD)
		n->conn_deads++;
	else if (ev == MRE_CONN_PLANES)
		n->planes_learned++;
}

static void m_trace(struct mre_conn *c, const struct mre_trace *t)
{
	struct mdl_node *n = node_of_ep(c->ep);
	bool conn_wide = t->path == MRE_TR_CONN_WIDE;

	n->tr_last = *t;
	if (t->ev >= MRE_TR_MAX || t->why >= MRE_TRW_MAX ||
	    (!conn_wide && t->path >= c->npaths)) {
		n->tr_bad++;
		return;
	}
	n->tr[t->ev][t->why]++;
	switch (t->ev) {
	case MRE_TR_PATH:
		if (conn_wide || t->state.from == t->state.to ||
		    t->state.from != n->tr_health[t->path])
			n->tr_bad++;
		else
			n->tr_health[t->path] = t->state.to;
		break;
	case MRE_TR_REPATH:
		if (conn_wide || t->port.from == t->port.to ||
		    (n->tr_port[t->path] && t->port.from != n->tr_port[t->path]))
			n->tr_bad++;
		n->tr_port[t->path] = t->port.to;
		break;
	case MRE_TR_LOSS:
		if (conn_wide)
			n->tr_bad++;
		break;
	case MRE_TR_CUT:
		if (t->cut.to > t->cut.from)
			n->tr_bad++;
		break;
	default:
		if (!conn_wide)
			n->tr_bad++;
	}
}

const struct mre_ops mdl_ops = {
	.random = m_random,
	.conn_by_id = m_conn_by_id,
	.conn_by_addr = m_conn_by_addr,
	.conn_new = m_conn_new,
	.our_planes = m_our_planes,
	.ud_rx = m_ud_rx,
	.reply = m_reply,
	.xmit = m_xmit,
	.stream = m_stream,
	.sq_get = m_sq_get,
	.place = m_place,
	.check = m_check,
	.atomic = m_atomic,
	.atomic_write = m_atomic_write,
	.flush = m_flush,
	.send_done = m_send_done,
	.recv_done = m_recv_done,
	.parity = m_parity,
	.stream_error = m_stream_error,
	.conn_event = m_conn_event,
	.trace = m_trace,
};

void mdl_node_init(struct mdl_node *n, u32 id, u64 seed,
		   const struct mre_config *cfg)
{
	mre_memset(n, 0, sizeof(*n));
	n->id = id;
	n->rng = seed ^ (0x1234567ULL * (id + 1));
	mre_ep_init(&n->ep, &mdl_ops, cfg);
	n->ep.priv = n;
	n->qps = n->qps_own;
	n->max_qps = MDL_MAX_QPS;
	n->conns = n->conns_own;
	n->conn_mem = n->conn_mem_own;
	n->live = n->live_own;
	n->max_peers = MDL_MAX_PEERS;
}

void mdl_node_tables(struct mdl_node *n, const struct mdl_tables *t)
{
	n->qps = t->qps;
	n->max_qps = t->max_qps;
	n->conns = t->conns;
	n->conn_mem = t->conn_mem;
	n->live = t->live;
	n->max_peers = t->max_peers;
}

struct mre_conn *mdl_conn(struct mdl_node *n, u32 peer, struct mre_conn *c,
			  void *mem)
{
	struct mre_addr a = mdl_addr(peer);

	u32 i;

	mre_conn_init(c, &n->ep, mem, &a);
	c->priv = (void *)(MDL_UINTPTR)peer;
	if (!n->conns[peer]) {
		/* keep live[] ascending: runs visit peers in id order */
		for (i = n->nlive; i && n->live[i - 1] > peer; i--)
			n->live[i] = n->live[i - 1];
		n->live[i] = peer;
		n->nlive++;
	}
	n->conns[peer] = c;
	n->conn_mem[peer] = mem;
	return c;
}

struct mdl_mr *mdl_mr_reg(struct mdl_node *n, u8 *mem, u32 len, u64 addr,
			  u32 access, u8 *count)
{
	struct mdl_mr *m = &n->mrs[n->nmrs];

	m->key = 0x100 + n->nmrs;
	m->access = access;
	m->addr = addr;
	m->len = len;
	m->mem = mem;
	m->count = count;
	n->nmrs++;
	return m;
}

void mdl_qp_init(struct mdl_node *n, struct mdl_qp *qp, u32 qpn, u32 peer,
		 u32 remote_qpn, u32 mtu)
{
	struct mre_stream_attr a = {
		.id = qpn, .remote_id = remote_qpn, .mtu = mtu, .max_rd = 16,
		.rnr_retry = 7, .retry = 7, .rnr_delay_ns = 20000,
	};

	mre_memset(qp, 0, sizeof(*qp));
	qp->node = n;
	qp->qpn = qpn;
	qp->peer = peer;
	if (n->nqps < n->max_qps)
		n->qps[n->nqps++] = qp;
	mre_stream_attach(&qp->s, n->conns[peer], &a);
}

u32 mdl_post_send(struct mdl_qp *qp, const struct mre_wqe *w, u8 *buf,
		  u64 wr_id)
{
	u32 msn = qp->sq_posted;
	struct mdl_swqe *sw = &qp->sq[msn % MDL_SQ];

	sw->w = *w;
	sw->buf = buf;
	sw->wr_id = wr_id;
	qp->sq_posted++;
	mre_stream_kick(&qp->s);
	return msn;
}

void mdl_post_recv(struct mdl_qp *qp, u8 *buf, u32 len, u64 wr_id)
{
	struct mdl_rwqe *r = &qp->rq[qp->rq_posted % MDL_RQ];

	r->buf = buf;
	r->len = len;
	r->wr_id = wr_id;
	qp->rq_posted++;
}

void mdl_rx(struct mdl_node *n, u32 from, const u8 *buf, u32 len, bool ce,
	    u64 now)
{
	struct mre_rx rx = {
		.buf = buf, .len = len, .src = mdl_addr(from),
		.dst = mdl_addr(n->id), .src_port = 49152, .ce = ce,
	};
	struct mre_conn *c = mre_ep_rx(&n->ep, now, &rx);

	if (c && !n->rx_no_run)
		mre_conn_run(c, now);
}

u64 mdl_run(struct mdl_node *n, u64 now)
{
	u64 next = 0, d;
	u32 i;

	for (i = 0; i < n->nlive; i++) {
		struct mre_conn *c = n->conns[n->live[i]];

		if (c->state == MRE_CONN_CLOSED && c->nstreams)
			mre_conn_connect(c, now);
		d = mre_conn_run(c, now);
		if (d && (!next || d < next))
			next = d;
	}
	return next;
}
