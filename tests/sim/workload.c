// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Workload: WRITE flows over MetaRoCE or the RoCEv2 baseline (see
 * workload.h).
 */
#include "workload.h"
#include <stdlib.h>
#include <string.h>

static void *zalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		abort();
	return p;
}

static u8 pattern(const struct wl_flow *f, u64 i)
{
	return (u8)(f->id * 131 + i * 7 + (i >> 8) + (i >> 16));
}

void wl_init(struct wl *w, struct topo *t, enum wl_kind kind, bool check,
	     u32 mtu, u64 ring)
{
	memset(w, 0, sizeof(*w));
	w->t = t;
	w->kind = (u8)kind;
	w->check = check;
	w->mtu = mtu;
	w->ring = ring;
}

struct wl_flow *wl_flow(struct wl *w, u32 src, u32 dst, u64 bytes, u32 msg,
			u32 nstreams, u32 depth, u64 start_ns)
{
	struct wl_flow *f;

	if (!nstreams || nstreams > WL_MAX_STREAMS)
		abort();
	if (w->nflows == w->capflows) {
		w->capflows = w->capflows ? 2 * w->capflows : 32;
		w->flows = realloc(w->flows, w->capflows * sizeof(*w->flows));
		if (!w->flows)
			abort();
	}
	f = &w->flows[w->nflows];
	*f = (struct wl_flow){
		.id = w->nflows++, .src = src, .dst = dst, .bytes = bytes,
		.msg = msg, .nstreams = nstreams, .depth = depth,
		.start_ns = start_ns,
	};
	return f;
}

/* --- transports ------------------------------------------------------------ */

static void open_mroce(struct wl *w, struct wl_flow *f, struct wl_stream *st)
{
	struct xp_mroce *a = w->xp[f->src], *b = w->xp[f->dst];
	struct mdl_qp *qa = zalloc(sizeof(*qa)), *qb = zalloc(sizeof(*qb));
	u32 qpn = ++w->qpn;

	xp_mroce_conn(a, f->dst);
	xp_mroce_conn(b, f->src);
	mdl_qp_init(&a->node, qa, 2 * qpn, f->dst, 2 * qpn + 1, w->mtu);
	mdl_qp_init(&b->node, qb, 2 * qpn + 1, f->src, 2 * qpn, w->mtu);
	st->src = qa;
	st->dst = qb;
}

static void open_rocev2(struct wl *w, struct wl_flow *f, struct wl_stream *st)
{
	u32 qpn = ++w->qpn;
	struct wl_mem *m = &w->mem[f->dst];
	struct bl_qp *qb = bl_qp_new(w->xp[f->dst], 2 * qpn + 1, f->src, 2 * qpn);

	st->src = bl_qp_new(w->xp[f->src], 2 * qpn, f->dst, 2 * qpn + 1);
	st->dst = qb;
	bl_qp_mem(qb, WL_BASE, m->size, m->count);
	/* both ends of a RoCEv2 QP send from the same port */
	qb->sport = ((struct bl_qp *)st->src)->sport;
}

static bool post(struct wl *w, struct wl_flow *f, struct wl_stream *st,
		 u64 off, u32 len)
{
	u64 at = f->mem_off + off % f->window;
	u8 *src = f->src_buf + off % f->window;

	if (w->kind == WL_ROCEV2)
		return bl_post_write(st->src, WL_BASE + at, len);
	{
		struct mre_wqe wq = {
			.op = MRE_OP_WRITE, .len = len,
			.rkey = w->mem[f->dst].rkey, .raddr = WL_BASE + at,
		};

		mdl_post_send(st->src, &wq, src, off);
	}
	return true;
}

static u32 completed(const struct wl *w, const struct wl_stream *st)
{
	if (w->kind == WL_ROCEV2)
		return ((const struct bl_qp *)st->src)->done;
	return ((const struct mdl_qp *)st->src)->sq_done;
}

static u64 placed(const struct wl *w, const struct wl_stream *st)
{
	if (w->kind == WL_ROCEV2)
		return ((const struct bl_qp *)st->dst)->placed;
	return ((const struct mdl_qp *)st->dst)->placed_bytes;
}

/* --- the application on each host ------------------------------------------ */

static bool flow_finished(const struct wl *w, const struct wl_flow *f)
{
	u32 i;

	if (!f->bytes || f->posted_bytes < f->bytes)
		return false;
	for (i = 0; i < f->nstreams; i++)
		if (completed(w, &f->st[i]) != f->st[i].posted)
			return false;
	return true;
}

static void flow_post(struct wl *w, struct wl_flow *f)
{
	u32 idle = 0;

	/* the streams take turns, one WRITE each, while they have room */
	while (idle < f->nstreams) {
		struct wl_stream *st = &f->st[f->rr++ % f->nstreams];
		u32 len = f->msg;

		if (f->bytes && f->posted_bytes >= f->bytes)
			break;
		if (f->bytes)
			len = (u32)MRE_MIN((u64)len, f->bytes - f->posted_bytes);
		if (st->posted - completed(w, st) >= f->depth ||
		    !post(w, f, st, f->posted_bytes, len)) {
			idle++;
			continue;
		}
		idle = 0;
		st->posted++;
		f->posted_bytes += len;
	}
}

static void app(struct sim_host *h)
{
	struct wl *w = h->app_ctx;
	u64 now = h->node.sim->now;
	u32 i;

	for (i = w->first_of_src[h->idx]; i != ~0u; i = w->flows[i].next_of_src) {
		struct wl_flow *f = &w->flows[i];

		if (now < f->start_ns || f->done_ns)
			continue;
		flow_post(w, f);
		if (flow_finished(w, f)) {
			f->done_ns = now;
			w->ndone++;
			sim_trace(h->node.sim, "flow-done", f->id, f->posted_bytes, 0, 0);
		}
	}
}

static void start_ev(struct sim *s, void *obj, u64 arg)
{
	sim_host_kick(obj);
}

/* --- setup ----------------------------------------------------------------- */

static void layout(struct wl *w)
{
	u32 nh = w->t->nhosts, i, *last = zalloc(nh * sizeof(*last));

	w->xp = zalloc(nh * sizeof(*w->xp));
	w->mem = zalloc(nh * sizeof(*w->mem));
	w->first_of_src = zalloc(nh * sizeof(*w->first_of_src));
	for (i = 0; i < nh; i++) {
		w->mem[i].size = WL_GUARD;
		w->first_of_src[i] = ~0u;
	}
	/* each source's flows, in the order they were added */
	for (i = 0; i < w->nflows; i++) {
		struct wl_flow *f = &w->flows[i];

		if (f->src >= nh || f->dst >= nh)
			abort();
		f->next_of_src = ~0u;
		if (w->first_of_src[f->src] == ~0u)
			w->first_of_src[f->src] = i;
		else
			w->flows[last[f->src]].next_of_src = i;
		last[f->src] = i;
	}
	free(last);
	for (i = 0; i < w->nflows; i++) {
		struct wl_flow *f = &w->flows[i];
		u64 win = w->check && f->bytes ? f->bytes : w->ring;

		/* a WRITE never wraps: the ring is whole messages */
		win = (win + f->msg - 1) / f->msg * f->msg;
		f->window = win;
		f->mem_off = w->mem[f->dst].size;
		w->mem[f->dst].size += win + WL_GUARD;
		f->src_buf = zalloc(win);
		for (u64 j = 0; j < win; j++)
			f->src_buf[j] = pattern(f, j);
	}
}

/* the QPs host @h will hold: one per stream of every flow it is an end of */
static u32 qps_of(const struct wl *w, u32 h)
{
	u32 i, n = 0;

	for (i = 0; i < w->nflows; i++)
		if (w->flows[i].src == h || w->flows[i].dst == h)
			n += w->flows[i].nstreams;
	return n;
}

static void make_xports(struct wl *w, const struct mre_config *cfg)
{
	struct bl_cfg bc;
	u32 i;

	bl_cfg_from(&bc, cfg, w->mtu);
	for (i = 0; i < w->t->nhosts; i++) {
		struct sim_host *h = w->t->hosts[i];
		struct wl_mem *m = &w->mem[i];

		m->buf = zalloc(m->size);
		memset(m->buf, WL_CANARY, m->size);
		if (w->check)
			m->count = zalloc(m->size);
		h->app = app;
		h->app_ctx = w;
		if (w->kind == WL_ROCEV2) {
			w->xp[i] = bl_new(h, &bc);
			continue;
		}
		w->xp[i] = xp_mroce_new(h, cfg, w->t->nhosts,
					qps_of(w, i));
		m->rkey = mdl_mr_reg(&((struct xp_mroce *)w->xp[i])->node, m->buf,
				     (u32)m->size, WL_BASE, MDL_ACC_RWRITE,
				     m->count)->key;
	}
}

void wl_setup(struct wl *w, const struct mre_config *cfg)
{
	u32 i, j;

	layout(w);
	make_xports(w, cfg);
	for (i = 0; i < w->nflows; i++) {
		struct wl_flow *f = &w->flows[i];

		for (j = 0; j < f->nstreams; j++) {
			if (w->kind == WL_ROCEV2)
				open_rocev2(w, f, &f->st[j]);
			else
				open_mroce(w, f, &f->st[j]);
		}
		sim_at(w->t->sim, f->start_ns, start_ev, w->t->hosts[f->src], 0);
	}
	/* responders need a turn too (handshake) */
	for (i = 0; i < w->t->nhosts; i++)
		sim_at(w->t->sim, 0, start_ev, w->t->hosts[i], 0);
}

u64 wl_placed(const struct wl *w, const struct wl_flow *f)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < f->nstreams; i++)
		sum += placed(w, &f->st[i]);
	return sum;
}

/* --- verdict ----------------------------------------------------------------- */

static void verify_flow(const struct wl *w, const struct wl_flow *f,
			struct wl_verdict *v)
{
	const struct wl_mem *m = &w->mem[f->dst];
	u64 i;

	for (i = 0; i < f->window; i++) {
		u64 at = f->mem_off + i;
		u8 want = i < f->bytes;

		if (m->count[at] > 1)
			v->bytes_twice++;
		else if (m->count[at] < want)
			v->bytes_missing++;
		else if (m->count[at] > want)
			v->guard_touched++;	/* past the flow's end */
		else if (want && w->kind == WL_MROCE && m->buf[at] != f->src_buf[i])
			v->bytes_corrupt++;
	}
}

static void verify_guards(const struct wl *w, u32 host, struct wl_verdict *v)
{
	const struct wl_mem *m = &w->mem[host];
	u64 i, g = 0;
	u32 f;

	/* the guard before each window, and the tail after the last */
	for (f = 0; f <= w->nflows; f++) {
		u64 end = f < w->nflows ? w->flows[f].mem_off : m->size;

		if (f < w->nflows && w->flows[f].dst != host)
			continue;
		for (i = end >= WL_GUARD ? end - WL_GUARD : 0; i < end; i++)
			if (m->count[i] || m->buf[i] != WL_CANARY)
				g++;
	}
	v->guard_touched += g;
}

static void verify_streams(const struct wl *w, const struct wl_flow *f,
			   struct wl_verdict *v)
{
	u32 i;

	for (i = 0; i < f->nstreams; i++) {
		if (w->kind == WL_ROCEV2) {
			const struct bl_qp *b = f->st[i].dst;

			v->bad_place += b->bad_place;
			continue;
		}
		{
			const struct mdl_qp *a = f->st[i].src, *b = f->st[i].dst;

			v->order_violations += a->order_violations +
					       b->order_violations;
			v->errors += a->errors + b->errors + !!a->fatal + !!b->fatal;
		}
	}
}

void wl_verify(const struct wl *w, struct wl_verdict *v)
{
	u32 i;

	memset(v, 0, sizeof(*v));
	for (i = 0; i < w->nflows; i++) {
		const struct wl_flow *f = &w->flows[i];

		if (!f->done_ns)
			v->incomplete++;
		if (w->check)
			verify_flow(w, f, v);
		verify_streams(w, f, v);
	}
	for (i = 0; i < w->t->nhosts; i++) {
		if (w->check)
			verify_guards(w, i, v);
		if (w->kind == WL_MROCE)
			v->bad_place += ((struct xp_mroce *)w->xp[i])->node.bad_place;
	}
}

void wl_free(struct wl *w)
{
	u32 i;

	for (i = 0; i < w->nflows; i++)
		free(w->flows[i].src_buf);
	for (i = 0; i < w->t->nhosts; i++) {
		free(w->mem[i].buf);
		free(w->mem[i].count);
		if (!w->xp[i])
			continue;
		if (w->kind == WL_ROCEV2)
			bl_free(w->xp[i]);
		else
			xp_mroce_free(w->xp[i]);
	}
	free(w->flows);
	free(w->xp);
	free(w->mem);
	free(w->first_of_src);
}
