// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A connection's timers, and the run that serves them (mre_conn_run()).
 *
 * Timers of a connection, and what starts them (path timers are listed in
 * path.c; mre_conn_run() serves both):
 *   connect_at  CONNECT retry, doubling, connect_tries times, then FAILED.
 *   rnr_until   refused TSNs (MRE_TXD_WAIT) are resent at this time.
 *   stall       tsn_una's packet arrived but was neither accepted nor
 *               refused in an ACK that could say so: resent after an RTO.
 *   dead        data outstanding and no ACK for dead_ns: FAILED.
 *   owed_at     a request's answer owed and nothing heard for dead_ns:
 *               FAILED (owed_timer()).
 *   pace        the receiver's rate hint spaces packets out.
 *   time_at     an unsettled PSN sent before the newest one delivered is
 *               due: lost if nothing arrived of it (loss.c).
 *   plane_at    CHALLENGE rounds to unproven plane addresses of the peer,
 *               doubling, MRE_PLANE_TRIES of them (conn.c).
 *
 * A run looks at the paths' timers only once c->path_due, a bound no
 * later than any of them (mre_due()), is reached, or while a path
 * waits for evidence (quiet_wait): most runs follow a packet and find no
 * path timer due, and a scan of every path, twice, was a quarter of the
 * engine's instructions per small operation (scripts/bench-cost.sh).
 */
#include "engine.h"
#include "loss.h"
#include "path.h"
#include "recv.h"
#include "send.h"
#include "tsn.h"

/*
 * Since when the peer has owed us an answer: its last ACK, or the moment
 * data became outstanding after an idle spell (an idle connection hears
 * nothing and is not dead for it).
 */
static u64 heard(const struct mre_conn *c)
{
	return MRE_MAX(c->last_ack, c->out_since);
}

static u64 earliest(u64 a, u64 b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

static u64 max_rto(const struct mre_conn *c)
{
	u64 r = mre_cfg(c)->rto_min_ns;
	u32 i;

	for (i = 0; i < c->npaths; i++)
		if (c->paths[i].health != MRE_PATH_FAILED)
			r = MRE_MAX(r, c->paths[i].rto);
	return r;
}

/* refused TSNs whose wait is over, and a stalled tsn_una, go back out */
static u64 conn_timers(struct mre_conn *c, u64 now)
{
	u64 next = 0, stall;
	u32 t;

	if (c->n_wait) {
		if (now >= c->rnr_until) {
			for (t = c->tsn_una; t != c->tsn_next && c->n_wait; t++)
				if (mre_txd_of(c, t)->state == MRE_TXD_WAIT)
					mre_tsn_retx(c, t);
		} else {
			next = c->rnr_until;
		}
	}
	if (c->tsn_una != c->tsn_next &&
	    mre_txd_of(c, c->tsn_una)->state == MRE_TXD_ARRIVED) {
		stall = c->una_since + max_rto(c);
		if (now >= stall) {
			mre_tsn_retx(c, c->tsn_una);
			c->una_since = now;
		} else {
			next = earliest(next, stall);
		}
	}
	return next;
}

/* CONNECTING: retry the CONNECT, or give up; the next deadline */
static u64 connect_timer(struct mre_conn *c, u64 now)
{
	if (now < c->connect_at)
		return c->connect_at;
	if (++c->connect_tries >= mre_cfg(c)->connect_tries) {
		mre_conn_fail(c, MRE_ST_RETRY_EXC, MRE_TR_CONN_FAIL,
			      MRE_TRW_CONNECT);
		return 0;
	}
	mre_send_connect(c, MRE_T_CONNECT, now);
	c->connect_ivl *= 2;
	c->connect_at = now + c->connect_ivl;
	return c->connect_at;
}

/* a path's timer may be due, or a path waits for evidence (mre_due()) */
static bool paths_due(const struct mre_conn *c, u64 now)
{
	return c->quiet_waits || (c->path_due && now >= c->path_due);
}

/* the paths whose timers are due; the ACKs whose delay is over */
static void path_timers(struct mre_conn *c, u64 now)
{
	u32 i;

	if (!paths_due(c, now))
		return;
	for (i = 0; i < c->npaths; i++) {
		struct mre_path *p = &c->paths[i];
		u64 d = mre_path_deadline(p);

		/* a silent path waiting for evidence is judged after each ACK */
		if (!p->quiet_wait && (!d || d > now))
			continue;
		if (mre_path_timers(p, c, now))
			mre_send_probe(c, p, now);
		if (p->ack_at && p->ack_at <= now) {
			c->ep->ctr.ack_timer++;
			mre_ack_owed(c, p, now);
		}
	}
}

/*
 * Our READ, ATOMIC, ATOMIC_WRITE or FLUSH was accepted, so nothing of ours
 * is outstanding, but its answer has not come: the peer owes it, and
 * resends it until the answer is acknowledged or its end fails. Only the
 * peer's silence tells us that it failed (it drops what we send, or sends
 * nothing) or that the route back died: with nothing heard for dead_ns the
 * connection fails here, as it would with data outstanding (since the
 * later of the last packet heard and the newest such request). Looked at
 * when that time is up (a walk of the streams); true: failed.
 */
static bool owed_timer(struct mre_conn *c, u64 now)
{
	u64 since = MRE_MAX(c->last_rx, c->owed_sent);

	if (!c->owed_at || now < c->owed_at)
		return false;
	c->owed_at = 0;
	if (!mre_conn_owed(c))
		return false;
	if (now - since > mre_cfg(c)->dead_ns) {
		mre_conn_fail(c, MRE_ST_RETRY_EXC, MRE_TR_CONN_FAIL,
			      MRE_TRW_DEAD);
		return true;
	}
	c->owed_at = since + mre_cfg(c)->dead_ns + 1;
	return false;
}

u64 mre_conn_run(struct mre_conn *c, u64 now)
{
	u64 next = 0, pace_at = 0;
	u32 i;

	now = mre_conn_clock(c, now);
	if (c->state == MRE_CONN_CONNECTING)
		return connect_timer(c, now);
	if (c->state != MRE_CONN_ESTABLISHED)
		return 0;
	path_timers(c, now);
	if (c->time_at && now >= c->time_at)
		mre_loss_time(c, now);
	/*
	 * Nothing is owed before the oldest TSN has left: a NAK queued by a
	 * node that never sent anything (its last ACK heard at the handshake)
	 * goes out below and starts the clock there.
	 */
	if (c->tsn_una != c->tsn_next && mre_txd_of(c, c->tsn_una)->xmits &&
	    now - heard(c) > mre_cfg(c)->dead_ns) {
		mre_conn_fail(c, MRE_ST_RETRY_EXC, MRE_TR_CONN_FAIL,
			      MRE_TRW_DEAD);
		return 0;
	}
	if (owed_timer(c, now))
		return 0;
	next = conn_timers(c, now);
	next = earliest(next, mre_conn_plane_timer(c, now));
	if (mre_send_transmit(c, now, &pace_at))
		return now;		/* out of budget: come back at once */
	next = earliest(next, pace_at);
	/*
	 * The paths' earliest deadline, found again once the bound was
	 * reached or its path no longer holds it: returned early, it would
	 * start the embedder's timer for nothing (a timer interrupt an
	 * operation in the guest).
	 */
	if (paths_due(c, now) || (c->path_due &&
	    (c->due_path >= c->npaths ||
	     mre_path_deadline(&c->paths[c->due_path]) != c->path_due))) {
		c->path_due = 0;
		c->quiet_waits = false;
		for (i = 0; i < c->npaths; i++) {
			mre_due(c, &c->paths[i], mre_path_deadline(&c->paths[i]));
			c->quiet_waits |= c->paths[i].quiet_wait;
		}
	}
	next = earliest(next, c->path_due);
	next = earliest(next, c->time_at);
	next = earliest(next, c->owed_at);
	if (c->tsn_una != c->tsn_next)
		next = earliest(next, heard(c) + mre_cfg(c)->dead_ns + 1);
	return next;
}
