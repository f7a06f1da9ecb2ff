// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Connections: memory, the handshake and the life cycle, planes (see
 * conn.h). Sending is in send.c, receiving in recv.c, the timers in
 * timers.c, the TSN descriptors in tsn.c.
 */
#include "conn.h"
#include "cc.h"
#include "engine.h"
#include "path.h"
#include "send.h"
#include "stream.h"

#define CONN_ALIGN 16
#define ALIGN_UP(x) (((x) + CONN_ALIGN - 1) & ~(u32)(CONN_ALIGN - 1))

u32 mre_conn_mem_size(const struct mre_config *cfg)
{
	u32 w = 1u << cfg->window_log2;

	return ALIGN_UP(w * sizeof(struct mre_txd)) +
	       ALIGN_UP(w * sizeof(struct mre_gate)) +
	       ALIGN_UP(w * sizeof(u32)) +		/* retransmit queue */
	       ALIGN_UP(w / 8) +			/* TSN receive window */
	       cfg->npaths * ALIGN_UP(sizeof(struct mre_path));
}

static u32 random_nonzero(struct mre_ep *ep)
{
	u32 v;

	do {
		v = (u32)ep->ops->random(ep);
	} while (!v);
	return v;
}

/* a connection id: 64 random bits, what a blind attacker must guess */
static u64 random_cid(struct mre_ep *ep)
{
	u64 v;

	do {
		v = ep->ops->random(ep);
	} while (!v);
	return v;
}

/* fresh sequence state for both directions (init, and peer restart) */
static void conn_reset_seq(struct mre_conn *c, u64 now)
{
	u32 i;

	c->isn = c->tsn_next = c->tsn_una = random_nonzero(c->ep);
	c->una_since = now;
	c->rtxq_head = c->rtxq_tail = 0;
	c->n_wait = 0;
	c->inflight = 0;
	c->probes_out = 0;
	c->peer_dups = 0;
	c->rx_dups = 0;
	c->nak = MRE_SYN_NONE;
	c->nak_marked = false;
	c->peer_marked = false;
	c->cnak_stream = 0;
	c->reorder = mre_cfg(c)->reorder_pkts;
	c->reorder_calm = 0;
	c->time_at = 0;
	c->owed_at = 0;
	c->time_on = false;
	c->time_mult = 1;
	c->time_calm = 0;
	c->heard_sent = 0;
	c->loss_ewma = 0;
	mre_path_silence_k(c);
	mre_memset(c->txd, 0, c->wsize * sizeof(*c->txd));
	mre_memset(c->gate, 0, c->wsize * sizeof(*c->gate));
	mre_win_init(&c->rxw, c->rxw.map, c->wsize, 0);
	for (i = 0; i < c->npaths; i++)
		mre_path_init(&c->paths[i], c, (u16)i, now);
	mre_cc_init(c);
}

void mre_conn_init(struct mre_conn *c, struct mre_ep *ep, void *mem,
		   const struct mre_addr *addr)
{
	const struct mre_config *cfg = &ep->cfg;
	u8 *m = mem;

	mre_memset(c, 0, sizeof(*c));
	c->ep = ep;
	c->addr = *addr;
	c->npaths = (u8)cfg->npaths;
	c->nplanes = (u8)cfg->nplanes;
	c->window_log2 = (u8)cfg->window_log2;
	c->wsize = 1u << cfg->window_log2;
	c->peer_wsize = c->wsize;
	c->txd = (struct mre_txd *)m;
	m += ALIGN_UP(c->wsize * sizeof(struct mre_txd));
	c->gate = (struct mre_gate *)m;
	m += ALIGN_UP(c->wsize * sizeof(struct mre_gate));
	c->rtxq = (u32 *)m;
	m += ALIGN_UP(c->wsize * sizeof(u32));
	c->rxw.map = (u32 *)m;
	m += ALIGN_UP(c->wsize / 8);
	c->paths = (struct mre_path *)m;
	mre_list_init(&c->active);
	mre_list_init(&c->attached);
	mre_list_init(&c->markwait);
	c->cid = random_cid(ep);
	c->state = MRE_CONN_CLOSED;
	conn_reset_seq(c, 0);
}

const char *mre_conn_state_name(u8 st)
{
	static const char *const names[] = {
		[MRE_CONN_CLOSED] = "closed",
		[MRE_CONN_CONNECTING] = "connecting",
		[MRE_CONN_ESTABLISHED] = "established",
		[MRE_CONN_FAILED] = "failed",
	};

	return st < MRE_ARRAY_SIZE(names) ? names[st] : "?";
}

/*
 * The ACCEPT of our CONNECT: a round trip before any data, so with the
 * queues as the fabric leaves them idle. It is each path's first floor
 * (min_rtt), which congestion is judged against (cc.c), so that a first
 * flight that fills a queue cannot pass for the base RTT. It counts
 * whether the ACCEPT opens the connection or comes after a CONNECT of the
 * peer's crossed ours and opened it (a crossing CONNECT is no round trip).
 */
void mre_conn_hs_rtt(struct mre_conn *c, u64 now)
{
	u64 rtt = now - c->connect_sent;
	u32 i;

	if (!c->connect_sent || now <= c->connect_sent)
		return;
	c->connect_sent = 0;
	for (i = 0; i < c->npaths; i++)
		if (!c->paths[i].min_rtt || rtt < c->paths[i].min_rtt)
			c->paths[i].min_rtt = rtt;
}

void mre_conn_established(struct mre_conn *c, const struct mre_pkt *pkt,
			  u64 now)
{
	struct mre_trace t = {
		.ev = MRE_TR_CONN_OPEN, .path = MRE_TR_CONN_WIDE,
		.why = c->state == MRE_CONN_CONNECTING ? MRE_TRW_ACTIVE :
							 MRE_TRW_PASSIVE,
	};

	c->remote_cid = pkt->connect.src_cid;
	c->peer_wsize = 1u << pkt->connect.window_log2;
	c->peer_parity = pkt->connect.cflags & MRE_CF_PARITY;
	mre_win_init(&c->rxw, c->rxw.map, c->wsize, pkt->connect.isn);
	c->state = MRE_CONN_ESTABLISHED;
	c->last_ack = now;
	c->last_rx = now;
	c->peer_heard = false;
	c->una_since = now;
	c->ep->ctr.conn_open++;
	/*
	 * A connection is opened because a stream has something to send: count
	 * the peer as a sender now, so that the first ACKs of an incast already
	 * carry the share that counts all of them, not of those seen so far.
	 */
	mre_cc_rx_activity(c, 0, now);
	mre_trace(c, &t);
	if (c->ep->ops->conn_event)
		c->ep->ops->conn_event(c, MRE_CONN_UP);
}

/* our blob, from the embedder's planes now */
static void make_blob(struct mre_conn *c)
{
	struct mre_addr a[MRE_BLOB_MAX_PLANES];
	u32 n;

	c->blob_len = 0;
	c->blob_planes = 0;
	if (!c->ep->ops->our_planes)
		return;
	mre_memset(a, 0, sizeof(a));
	n = c->ep->ops->our_planes(c->ep, c->addr.family, a);
	c->blob_len = (u16)mre_wire_blob_put(c->blob, c->addr.family,
					     MRE_MIN(n, (u32)MRE_BLOB_MAX_PLANES),
					     a);
	c->blob_planes = c->blob_len ? (u8)n : 0;
}

/*
 * --- the plane proof (protocol.md 5.4) -----------------------------------
 *
 * The peer's blob claims an address for each of its planes; nothing but a
 * claim. A path of ours on plane k sends to the peer's plane k % (its
 * planes) only once that address has echoed a nonce of ours: a CHALLENGE
 * (32 bytes) goes there, at most MRE_PLANE_TRIES times in all, and its
 * ECHO, which the peer sends by addresses already proven, proves it.
 * Before that, plane k's packets go by plane 0's addresses (the embedder's
 * routes, mre_conn_plane_proven()): a blob that names a victim draws at
 * most three small packets to it, whatever the peer does.
 */

static void planes_changed(struct mre_conn *c)
{
	if (c->ep->ops->conn_event)
		c->ep->ops->conn_event(c, MRE_CONN_PLANES);
}

void mre_conn_set_local(struct mre_conn *c, bool local)
{
	c->local = local;
}

bool mre_conn_plane_proven(const struct mre_conn *c, u32 k)
{
	return c->peer_nplanes &&
	       (c->planes_proven >> (k % c->peer_nplanes) & 1);
}

/* the peer's planes (bit j) our planes 1.. would send to, not proven yet */
static u32 planes_wanted(const struct mre_conn *c)
{
	u32 k, j, w = 0;

	if (!c->peer_nplanes)
		return 0;
	for (k = 1; k < c->nplanes; k++) {
		j = k % c->peer_nplanes;
		if (c->peer_planes[j].family && !(c->planes_proven >> j & 1))
			w |= 1u << j;
	}
	return w;
}

/* no plane proven, no challenge under way */
static void proofs_clear(struct mre_conn *c)
{
	c->planes_proven = 0;
	c->plane_tries = 0;
	c->plane_at = 0;
	mre_memset(c->plane_nonce, 0, sizeof(c->plane_nonce));
}

void mre_conn_planes_learned(struct mre_conn *c, u64 now)
{
	u32 j;

	proofs_clear(c);
	/* the address the handshake came from is proven already */
	for (j = 0; j < c->peer_nplanes; j++)
		if (mre_addr_eq(&c->peer_planes[j], &c->addr))
			c->planes_proven |= 1u << j;
	c->plane_at = now ? now : 1;	/* challenge once established */
}

/* no route to a plane address until it is proven again (a failure) */
static void planes_unprove(struct mre_conn *c)
{
	bool had = c->planes_proven;

	proofs_clear(c);
	if (had)
		planes_changed(c);
}

void mre_conn_planes_forget(struct mre_conn *c)
{
	bool had = c->peer_nplanes && !c->planes_proven;

	c->peer_nplanes = 0;
	mre_memset(c->peer_planes, 0, sizeof(c->peer_planes));
	planes_unprove(c);
	if (had)		/* (planes_unprove() told it if any was proven) */
		planes_changed(c);
}

/* a CHALLENGE to the peer's plane @j, by a path of ours that maps to it */
static void challenge_plane(struct mre_conn *c, u32 j, u64 now)
{
	struct mre_path *p = NULL;
	u32 i;

	for (i = 0; i < c->npaths; i++) {
		struct mre_path *q = &c->paths[i];

		if (!q->plane || q->plane % c->peer_nplanes != j ||
		    q->plane_down)
			continue;
		if (!p || (p->health == MRE_PATH_FAILED &&
			   q->health != MRE_PATH_FAILED))
			p = q;
	}
	if (!p)
		return;		/* its planes are down: this round is lost */
	if (!c->plane_nonce[j])
		c->plane_nonce[j] = random_cid(c->ep);
	c->ep->ctr.plane_challenge_tx++;
	mre_send_proof(c, p, MRE_T_CHALLENGE, c->plane_nonce[j], (u8)j, now);
}

u64 mre_conn_plane_timer(struct mre_conn *c, u64 now)
{
	u32 want, j;

	if (!c->plane_at)
		return 0;
	if (now < c->plane_at)
		return c->plane_at;
	want = planes_wanted(c);
	if (!want || c->plane_tries >= MRE_PLANE_TRIES) {
		for (j = 0; j < c->peer_nplanes; j++)
			c->ep->ctr.plane_unproven += want >> j & 1;
		c->plane_at = 0;
		return 0;
	}
	for (j = 0; j < c->peer_nplanes; j++)
		if (want >> j & 1)
			challenge_plane(c, j, now);
	c->plane_at = now + (mre_cfg(c)->connect_ns << c->plane_tries);
	c->plane_tries++;
	return c->plane_at;
}

void mre_conn_proof_rx(struct mre_conn *c, const struct mre_pkt *pkt, u64 now)
{
	u32 j = pkt->proof.plane;

	c->ep->ctr.rx_ctrl++;
	if (pkt->type == MRE_T_CHALLENGE) {
		/* one ECHO, as large, by addresses already proven (no claim) */
		c->ep->ctr.plane_echo_tx++;
		mre_send_proof(c, mre_send_ctrl_path(c, pkt->path), MRE_T_ECHO,
			       pkt->proof.nonce, pkt->proof.plane, now);
		return;
	}
	if (j >= c->peer_nplanes || !c->plane_nonce[j] ||
	    pkt->proof.nonce != c->plane_nonce[j]) {
		c->ep->ctr.drop_echo++;
		return;
	}
	c->ep->ctr.plane_echo_rx++;
	if (c->planes_proven >> j & 1)
		return;		/* an answer to an earlier round */
	c->planes_proven |= 1u << j;
	planes_changed(c);
}

void mre_conn_connect(struct mre_conn *c, u64 now)
{
	/*
	 * Reopening a failed connection: everything it carried is gone on
	 * both sides. A new connection id makes the peer see a restart
	 * (section 5.2 of the spec) and drop its old state too.
	 */
	if (c->state == MRE_CONN_FAILED) {
		conn_reset_seq(c, now);
		c->cid = random_cid(c->ep);
		c->remote_cid = 0;
		c->state = MRE_CONN_CLOSED;
	}
	if (c->state != MRE_CONN_CLOSED)
		return;
	/* the peer tells its planes anew: none of the old ones is used */
	mre_conn_planes_forget(c);
	make_blob(c);
	c->state = MRE_CONN_CONNECTING;
	c->cookie = 0;		/* bound to our id: a new one needs a new cookie */
	c->connect_tries = 0;
	c->connect_early = 0;
	c->connect_ivl = mre_cfg(c)->connect_ns;
	mre_send_connect(c, MRE_T_CONNECT, now);
	c->connect_at = now + c->connect_ivl;
}

/* fail the attached streams (only those that carried traffic: @used_only) */
static void fail_streams(struct mre_conn *c, enum mre_status st,
			 bool used_only)
{
	struct mre_list *l, *n;

	for (l = c->attached.next; l != &c->attached; l = n) {
		struct mre_stream *s = MRE_CONTAINER_OF(l, struct mre_stream,
							anode);

		n = l->next;
		if (!used_only || s->used)
			mre_stream_fail(s, st);
	}
}

/* the connection ends: its streams (those that carried traffic: @used_only) fail */
static void conn_end(struct mre_conn *c, enum mre_status st, u8 ev, u8 why,
		     bool used_only)
{
	struct mre_trace t = { .ev = ev, .why = why, .path = MRE_TR_CONN_WIDE };

	c->challenged = false;
	c->state = MRE_CONN_FAILED;
	mre_trace(c, &t);
	c->ep->ctr.conn_fail++;
	planes_unprove(c);
	fail_streams(c, st, used_only);
	if (c->ep->ops->conn_event)
		c->ep->ops->conn_event(c, MRE_CONN_DEAD);
}

void mre_conn_fail(struct mre_conn *c, enum mre_status st, u8 ev, u8 why)
{
	if (c->state != MRE_CONN_FAILED)
		conn_end(c, st, ev, why, false);
}

/*
 * A CONNECT of a new incarnation on an established connection: only the
 * peer can prove that it restarted. Send it something on the old
 * incarnation (an ACK); a peer that restarted has no such id and answers
 * with a RESET naming it, our remote_cid, which an attacker who is not on
 * the path cannot know (mre_conn_peer_reset()). Until then nothing fails.
 * One challenge per connect_ns: a flood of CONNECTs is not answered in kind.
 */
static void challenge(struct mre_conn *c, u64 now)
{
	if (c->challenged && now - c->challenge_at < mre_cfg(c)->connect_ns)
		return;
	c->challenged = true;
	c->challenge_at = now;
	c->ep->ctr.challenge_tx++;
	mre_send_ack(c, &c->paths[0], now);
}

void mre_conn_peer_reset(struct mre_conn *c)
{
	/*
	 * The peer has no such connection: it restarted, or freed it. What
	 * went over this incarnation is lost with it. Streams attached
	 * meanwhile that have not carried anything yet stay: their QPs were
	 * connected to new QPs of the peer (a restarted peer's, whose
	 * resends of the old incarnation drew this RESET even before any
	 * challenge), and the next CONNECT opens them a new incarnation.
	 */
	conn_end(c, MRE_ST_RETRY_EXC, c->challenged ? MRE_TR_CONN_RESTART :
		 MRE_TR_CONN_RESET, MRE_TRW_NONE, true);
}

/*
 * The peer's CONNECT again, for the incarnation we accepted: our ACCEPT was
 * lost, and goes again. If nothing has come from the peer since we
 * accepted, it was still CONNECTING when our packets reached it and
 * dropped them (protocol.md 5.1, MR-5.1-15): what we have out is lost now,
 * and goes again after the ACCEPT, not at an RTO (with no RTT sample yet,
 * rto_init: a lost ACCEPT held the first step of a 256-rank all-reduce in
 * the simulator for a millisecond). Once the peer was heard from, a
 * CONNECT is an old copy: the ACCEPT alone.
 */
static void accept_again(struct mre_conn *c, u64 now)
{
	u32 i;

	mre_send_connect(c, MRE_T_ACCEPT, now);
	if (c->peer_heard)
		return;
	for (i = 0; i < c->npaths; i++)
		mre_path_all_lost(&c->paths[i], c, &c->ep->ctr.loss_rto,
				  MRE_TRW_ACCEPT);
}

/*
 * A packet for us while CONNECTING: the peer has our id, so it accepted a
 * CONNECT of ours and its ACCEPT was lost. Our CONNECT goes again at once,
 * not at its timer (connect_ns), at most once per MRE_CONNECT_EARLY of
 * connect_ns, and neither counts as a try nor times the round trip (Karn:
 * the ACCEPT may answer an earlier CONNECT). protocol.md 5.1, MR-5.1-14.
 */
void mre_conn_accept_lost(struct mre_conn *c, u64 now)
{
	if (c->connect_early &&
	    now - c->connect_early < mre_cfg(c)->connect_ns / MRE_CONNECT_EARLY)
		return;
	c->connect_early = now ? now : 1;
	mre_send_connect(c, MRE_T_CONNECT, now);
	c->connect_sent = 0;
}

int mre_conn_accept(struct mre_conn *c, u64 now, const struct mre_pkt *pkt)
{
	int reopened = 0;

	c->ep->ctr.rx_ctrl++;
	if (c->state == MRE_CONN_ESTABLISHED) {
		if (c->remote_cid == pkt->connect.src_cid)
			accept_again(c, now);
		else
			challenge(c, now);
		return 0;
	}
	if (c->state == MRE_CONN_FAILED) {
		/* reopened by the peer: whatever went over the old one is gone */
		fail_streams(c, MRE_ST_RETRY_EXC, true);
		conn_reset_seq(c, now);
		c->reopened = true;
		c->reopen_at = now;
		reopened = 1;
	}
	c->challenged = false;
	make_blob(c);		/* a new incarnation: our planes now */
	mre_conn_established(c, pkt, now);
	mre_send_connect(c, MRE_T_ACCEPT, now);
	return reopened;
}

bool mre_conn_may_reopen(const struct mre_conn *c, u64 now)
{
	return !c->reopened ||
	       now - c->reopen_at >= MRE_REOPEN_IVL * mre_cfg(c)->connect_ns;
}

void mre_conn_close(struct mre_conn *c, enum mre_status st)
{
	mre_conn_fail(c, st, MRE_TR_CONN_FAIL, MRE_TRW_CLOSE);
	c->state = MRE_CONN_CLOSED;
}

bool mre_conn_renew(struct mre_conn *c)
{
	if (c->state != MRE_CONN_ESTABLISHED || !mre_conn_idle(c))
		return false;
	c->state = MRE_CONN_FAILED;	/* nothing to fail: nothing attached */
	planes_unprove(c);
	return true;
}

bool mre_conn_idle(const struct mre_conn *c)
{
	return mre_list_empty(&c->attached) && c->tsn_una == c->tsn_next;
}

void mre_conn_set_planes(struct mre_conn *c, u64 now, u32 nplanes)
{
	u32 i;

	if (nplanes < 1 || nplanes > c->npaths || nplanes == c->nplanes)
		return;
	c->nplanes = (u8)nplanes;
	/* our new planes may map to peer planes not yet challenged */
	if (c->peer_nplanes) {
		c->plane_tries = 0;
		c->plane_at = now ? now : 1;
	}
	for (i = 0; i < c->npaths; i++) {
		struct mre_path *p = &c->paths[i];
		u8 plane = (u8)(i % nplanes);

		if (p->plane == plane)
			continue;
		p->plane = plane;
		p->plane_down = false;
		mre_path_repath(p, c, MRE_TRW_PLANES);
		/* failed with its old plane: try it on the new one */
		if (p->health == MRE_PATH_FAILED)
			p->probe_at = mre_due(c, p, now);
	}
}

void mre_conn_plane(struct mre_conn *c, u64 now, u32 plane, bool up)
{
	u32 i;

	for (i = 0; i < c->npaths; i++) {
		struct mre_path *p = &c->paths[i];

		if (p->plane != plane || p->plane_down == !up)
			continue;
		p->plane_down = !up;
		if (!up)
			mre_path_fail(p, c, now, MRE_TRW_PLANE);
		else if (p->health == MRE_PATH_FAILED)
			p->probe_at = mre_due(c, p, now);
	}
}

/* forget every gate entry and descriptor of stream @id (stream detach) */
static void conn_forget_stream(struct mre_conn *c, u32 id)
{
	u32 t;

	/* unacknowledged TSNs of the stream still have to reach the peer */
	for (t = c->tsn_una; t != c->tsn_next; t++) {
		struct mre_txd *d = mre_txd_of(c, t);

		if (d->stream != id || d->state == MRE_TXD_ACKED ||
		    d->op == MRE_OP_NAK)
			continue;
		d->stream = 0;
		d->op = MRE_OP_NOP;
		d->len = 0;
		d->offset = 0;
		d->msn = 0;
		d->seq = 0;
		d->dflags = MRE_DF_FIRST | MRE_DF_LAST;
	}
	for (t = 0; t < c->wsize; t++)
		if (c->gate[t].kind && c->gate[t].stream == id)
			c->gate[t].kind = MRE_GATE_NONE;
}

void mre_stream_attach(struct mre_stream *s, struct mre_conn *c,
		       const struct mre_stream_attr *a)
{
	mre_conn_stream_drop(c, s);	/* attached again: its id may change */
	mre_memset(s, 0, sizeof(*s));
	mre_list_init(&s->node);
	mre_list_init(&s->mnode);
	s->conn = c;
	s->id = a->id;
	s->remote_id = a->remote_id;
	s->mtu = MRE_MAX(256u, MRE_MIN(a->mtu, (u32)MRE_MAX_PAYLOAD));
	s->max_rd = (u8)MRE_MAX(1u, MRE_MIN(a->max_rd, (u32)MRE_RD_SLOTS));
	s->rnr_retry = (u8)MRE_MIN(a->rnr_retry, 7u);
	s->rnr_left = s->rnr_retry;
	s->rnr_delay = a->rnr_delay_ns;
	s->uc = a->uc;
	s->state = MRE_STREAM_ACTIVE;
	mre_list_add_tail(&s->anode, &c->attached);
	c->nstreams++;
}

void mre_stream_detach(struct mre_stream *s)
{
	struct mre_conn *c = s->conn;

	if (!c)
		return;
	mre_list_del(&s->node);
	mre_list_del(&s->anode);
	mre_list_del(&s->mnode);
	c->nstreams--;
	mre_conn_stream_drop(c, s);
	/* nothing in the connection may name this stream any more */
	conn_forget_stream(c, s->id);
	s->state = MRE_STREAM_DETACHED;
	s->conn = NULL;
}
