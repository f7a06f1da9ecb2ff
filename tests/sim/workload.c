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
		.start_ns = start_ns, .nsteps = 1, .step_bytes = bytes,
		.after = WL_NONE,
	};
	return f;
}

void wl_gate(struct wl *w, struct wl_flow *f, u32 nsteps, u32 after, u32 lag)
{
	/* steps are counted on one stream, whole and in order */
	if (!nsteps || !f->bytes || f->bytes % nsteps || f->nstreams != 1 ||
	    after == f->id)
		abort();
	f->nsteps = nsteps;
	f->step_bytes = f->bytes / nsteps;
	f->after = after;
	f->lag = lag;
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

/*
 * @signal: the WRITE ends a step whose receipt someone waits for. MetaRoCE
 * carries an immediate, and its receive is posted at the destination just
 * before, as a receiver that posted all of them up front would have one
 * there; RoCEv2 needs nothing (in-order placement says it).
 */
static bool post(struct wl *w, struct wl_flow *f, struct wl_stream *st,
		 u64 off, u32 len, bool signal)
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
		struct mdl_qp *rq = st->dst;

		if (signal) {
			if (rq->rq_posted - rq->rq_done >= MDL_RQ)
				return false;	/* the ring of receives is full */
			mdl_post_recv(rq, NULL, 0, off);
			wq.flags = MRE_WQE_IMM;
			wq.imm = (u32)(off / f->step_bytes);
		}
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

static void gate_verify(struct wl *w, struct wl_flow *f, u32 k);

/* post WRITEs of @f up to byte @limit (a step's end, or all of it) */
static void flow_post(struct wl *w, struct wl_flow *f, u64 limit, u64 now)
{
	u32 idle = 0;

	/* the streams take turns, one WRITE each, while they have room */
	while (idle < f->nstreams) {
		struct wl_stream *st = &f->st[f->rr++ % f->nstreams];
		u64 end = limit;
		u32 len = f->msg, k = 0;

		if (f->bytes && f->posted_bytes >= limit)
			break;
		/* a WRITE never spans two steps: each step ends one */
		if (f->nsteps > 1) {
			k = (u32)(f->posted_bytes / f->step_bytes);
			end = (u64)(k + 1) * f->step_bytes;
		}
		if (f->bytes)
			len = (u32)MRE_MIN((u64)len, end - f->posted_bytes);
		if (st->posted - completed(w, st) >= f->depth ||
		    !post(w, f, st, f->posted_bytes, len,
			  f->signal && f->posted_bytes + len == end)) {
			idle++;
			continue;
		}
		/* a step begins: when, and (check) was its gate's data in? */
		if (f->nsteps > 1 ? f->posted_bytes == (u64)k * f->step_bytes :
		    !f->posted_bytes) {
			if (f->step_at)
				f->step_at[k] = now;
			if (w->check && f->after != WL_NONE)
				gate_verify(w, f, k);
		}
		idle = 0;
		st->posted++;
		f->posted_bytes += len;
	}
}

/* --- steps and gates --------------------------------------------------------- */

/* steps of @f received in order at its destination, at most nsteps */
static u32 rx_steps(const struct wl *w, const struct wl_flow *f)
{
	u64 in;
	u32 n = f->rx_steps;

	if (w->kind == WL_MROCE)
		return ((const struct mdl_qp *)f->st[0].dst)->rq_done;
	/* RoCEv2 places in PSN order: a multiplication, not a division */
	in = ((const struct bl_qp *)f->st[0].dst)->placed;
	while (n < f->nsteps && in >= (u64)(n + 1) * f->step_bytes)
		n++;
	return n;
}

/* host @h's turn: note what came in of the flows it watches */
static void watch(struct wl *w, struct sim_host *h, u64 now)
{
	u32 *p = &w->first_watch[h->idx];

	while (*p != WL_NONE) {
		struct wl_flow *f = &w->flows[*p];
		u32 n = rx_steps(w, f);

		for (; f->rx_steps < n && f->rx_steps < f->nsteps; f->rx_steps++)
			f->step_rx[f->rx_steps] = now;
		if (f->rx_steps < f->nsteps) {
			p = &f->next_watch;
			continue;
		}
		f->rx_done_ns = now;
		*p = f->next_watch;	/* all in: no longer watched */
	}
}

/*
 * Bytes of @f its gate lets it post: steps up to what its gate flow has
 * delivered (as our source sees it) plus the lag.
 */
static u64 gate_limit(const struct wl *w, const struct wl_flow *f)
{
	const struct wl_flow *g = &w->flows[f->after];
	u32 have = g->dst == f->src ? g->rx_steps :
		   g->done_ns ? g->nsteps : 0;

	if (have + f->lag >= f->nsteps)
		return f->bytes;
	return (u64)(have + f->lag) * f->step_bytes;
}

/*
 * check: when a step of @f starts, every byte of the gate's step it waited
 * for is placed at the gate's destination (the earlier ones were checked
 * when the earlier steps started). The transport's completion semantics
 * are what is tested: a receive completion or a send completion that came
 * before its bytes were all in would open a gate early.
 */
static void gate_verify(struct wl *w, struct wl_flow *f, u32 k)
{
	const struct wl_flow *g = &w->flows[f->after];
	const u8 *cnt = w->mem[g->dst].count;
	u64 from, i;

	if (k < f->lag)
		return;			/* runs ahead of its gate: nothing owed */
	/* step k waited for g's steps up to k - lag (< g->nsteps: wl_setup) */
	from = (u64)(k - f->lag) * g->step_bytes;
	for (i = from; i < from + g->step_bytes; i++)
		if (!cnt[g->mem_off + i]) {
			f->gate_early++;
			return;
		}
}

static void app(struct sim_host *h)
{
	struct wl *w = h->app_ctx;
	u64 now = h->node.sim->now;
	u32 i;

	/* receipts first: a step that came in now may open a gate below */
	if (w->first_watch[h->idx] != WL_NONE)
		watch(w, h, now);
	for (i = w->first_of_src[h->idx]; i != ~0u; i = w->flows[i].next_of_src) {
		struct wl_flow *f = &w->flows[i];
		u64 limit = f->bytes;

		if (now < f->start_ns || f->done_ns)
			continue;
		if (f->after != WL_NONE) {
			limit = gate_limit(w, f);
			if (limit <= f->posted_bytes && limit < f->bytes)
				continue;	/* waits for its gate */
		}
		flow_post(w, f, limit, now);
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

/* gates: what each waits for is delivered where it can be seen (above) */
static void link_gates(struct wl *w)
{
	u32 i;

	for (i = 0; i < w->nflows; i++) {
		struct wl_flow *f = &w->flows[i], *g;

		if (f->nsteps > 1 || f->after != WL_NONE)
			f->step_at = zalloc(f->nsteps * sizeof(*f->step_at));
		if (f->after == WL_NONE)
			continue;
		if (f->after >= w->nflows)
			abort();
		g = &w->flows[f->after];
		/* it could never finish, or never see its gate */
		if ((u64)g->nsteps + f->lag < f->nsteps ||
		    (g->dst != f->src && g->src != f->src) ||
		    (g->dst == f->src && g->nstreams != 1))
			abort();
		if (g->dst == f->src && !g->signal) {
			g->signal = true;
			g->step_rx = zalloc(g->nsteps * sizeof(*g->step_rx));
			g->next_watch = w->first_watch[g->dst];
			w->first_watch[g->dst] = g->id;
		}
	}
}

static void layout(struct wl *w)
{
	u32 nh = w->t->nhosts, i, *last = zalloc(nh * sizeof(*last));
	u64 shared = 0;
	u8 *src = NULL;

	w->xp = zalloc(nh * sizeof(*w->xp));
	w->mem = zalloc(nh * sizeof(*w->mem));
	w->first_of_src = zalloc(nh * sizeof(*w->first_of_src));
	w->first_watch = zalloc(nh * sizeof(*w->first_watch));
	for (i = 0; i < nh; i++) {
		w->mem[i].size = WL_GUARD;
		w->first_of_src[i] = ~0u;
		w->first_watch[i] = WL_NONE;
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
	link_gates(w);
	for (i = 0; i < w->nflows; i++) {
		struct wl_flow *f = &w->flows[i];
		u64 win = w->check && f->bytes ? f->bytes : w->ring;

		/* a WRITE never wraps: the ring is whole messages */
		win = (win + f->msg - 1) / f->msg * f->msg;
		f->window = win;
		if (!w->check) {
			/* nothing reads it: one ring per host, one source */
			f->mem_off = WL_GUARD;
			w->mem[f->dst].size = MRE_MAX(w->mem[f->dst].size,
						      WL_GUARD + win + WL_GUARD);
			shared = MRE_MAX(shared, win);
			continue;
		}
		f->mem_off = w->mem[f->dst].size;
		w->mem[f->dst].size += win + WL_GUARD;
		f->src_buf = zalloc(win);
		for (u64 j = 0; j < win; j++)
			f->src_buf[j] = pattern(f, j);
	}
	if (w->check || !w->nflows)
		return;
	src = zalloc(shared);
	for (u64 j = 0; j < shared; j++)
		src[j] = pattern(&w->flows[0], j);
	for (i = 0; i < w->nflows; i++)
		w->flows[i].src_buf = src;
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
		/* every step seen received, once and in order */
		if (f->signal && (f->rx_steps != f->nsteps ||
				  rx_steps(w, f) != f->nsteps))
			v->undelivered++;
		v->gate_early += f->gate_early;
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

	for (i = 0; i < w->nflows; i++) {
		/* without check the flows share flow 0's */
		if (w->check || !i)
			free(w->flows[i].src_buf);
		free(w->flows[i].step_at);
		free(w->flows[i].step_rx);
	}
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
	free(w->first_watch);
}
