// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receiving on a connection (mre_conn_rx(), engine.h): the packets the
 * demux (demux.c) found for it: ACCEPT, RESET, and on an established
 * connection ACK, DATA, PROBE, and the plane proof's CHALLENGE and ECHO
 * (conn.c).
 *
 * An ACK is handled in one direction: first the path it names settles its
 * PSNs (path.c), telling each TSN's descriptor whether it arrived or was
 * lost (tsn.c); then the connection accepts the TSNs the ACK covers, in
 * order (msg.c), completing messages (stream.c) and settling, on whatever
 * path they went, the PSNs of accepted TSNs whose own ACK has not come yet.
 *
 * A DATA packet passes its path's window (path.c), then the connection's
 * TSN window: a new TSN goes to msg.c, which places it, accepts it and
 * runs the completion gate for every TSN the cumulative point passes. The
 * ACK policy decides when to answer.
 *
 * After both, what the ACK said arrived judges, by send time, what every
 * path still has out (loss.c).
 */
#include "conn.h"
#include "cc.h"
#include "engine.h"
#include "loss.h"
#include "msg.h"
#include "parity.h"
#include "path.h"
#include "recv.h"
#include "send.h"
#include "stream.h"
#include "tsn.h"

static void rx_ack(struct mre_conn *c, const struct mre_pkt *pkt, u64 now)
{
	const struct mre_pkt_ack *a = &pkt->ack;
	u32 dups;

	/* beyond tsn_next: up to 2^31 ahead (the half-way point included) */
	if (a->ack_path >= c->npaths ||
	    a->tsn_cum - c->tsn_next - 1 < 0x80000000u) {
		c->ep->ctr.drop_ack++;
		return;
	}
	c->ep->ctr.rx_ack++;
	c->last_ack = now;
	c->ack_seq++;
	/* the peer has NAKed: nothing it acknowledges completes before the NAK */
	if (a->aflags & MRE_AF_MARK &&
	    (!c->peer_marked || seq_gt(a->nak_mark, c->peer_mark))) {
		c->peer_mark = a->nak_mark;
		c->peer_marked = true;
	}
	/*
	 * The receiver saw a PSN of that path arrive behind pkt->psn later
	 * ones: FACK must wait for one more than that before it calls a PSN
	 * lost (before this ACK's own SACK bits are judged).
	 */
	if (pkt->psn >= c->reorder && pkt->psn < MRE_PATH_RING) {
		c->reorder = pkt->psn + 1 < MRE_REORDER_MAX ?
			     pkt->psn + 1 : MRE_REORDER_MAX;
		c->reorder_calm = 0;
		c->ep->ctr.reorder_up++;
	}
	mre_path_ack(&c->paths[a->ack_path], c, pkt, now);
	mre_msg_ack_tsns(c, a, now);
	/* packets sent after others, on any path, arrived: judge the others */
	mre_loss_time(c, now);
	/*
	 * Duplicates at the receiver: we resent something that had arrived
	 * (counted; FACK's patience follows only spurious_fack(), msg.c).
	 * ACKs travel on different paths and overtake each other; an older
	 * count (it went backwards) must not become the reference, or the
	 * next newer ACK counts the same duplicates again.
	 */
	dups = a->dup_count - c->peer_dups;
	if (dups && dups < 1u << 20) {
		c->peer_dups = a->dup_count;
		c->ep->ctr.spurious_retx += dups;
	}
	mre_cc_rate(c, a->rate_hint);
}

/*
 * On a connection to ourselves an ACK is read where it is made. The
 * kernel's loop carries a device's packets to its own address, and a
 * one-device pair's two QPs share the node's connection to itself: an ACK
 * that took the loop would cost a packet, the loop's queue and the receive
 * path, and hold the connection while the other QP's doorbell waits for
 * it. Nothing else changes: it is counted sent (tx_ack) and received
 * (rx_ack) and read as it would arrive an instant later. The ACK comes
 * back here only if the peer's id is our own: the embedder's local flag
 * (mre_conn_set_local()) alone does not say so.
 */
void mre_ack_self(struct mre_conn *c, struct mre_path *p, u64 now)
{
	struct mre_pkt pkt;

	mre_ack_emit(c, p, now, &pkt);
	mre_conn_rx(c, now, &pkt, false);
}

/* why an ACK goes out at once (counted: the ACK rate is a cost) */
enum ack_why { ACK_DELAY, ACK_ASKED, ACK_OOO, ACK_OTHER };

/*
 * A delayed ACK waits ack_delay_ns for what arrived (@d), or answer_ack_ns
 * for a one-packet response (its sender's tail waits that long,
 * protocol.md 6.5); the earliest of the path's unacknowledged wins.
 */
static void ack_policy(struct mre_conn *c, struct mre_path *p,
		       const struct mre_pkt_data *d, enum ack_why why, u64 now)
{
	struct mre_counters *k = &c->ep->ctr;
	u64 at;

	if (why == ACK_DELAY && p->rx_unacked < mre_cfg(c)->ack_freq) {
		at = now + (mre_op_response(d->op) &&
			    d->dflags & MRE_DF_FIRST && d->dflags & MRE_DF_LAST ?
			    mre_cfg(c)->answer_ack_ns : mre_cfg(c)->ack_delay_ns);
		if (!p->ack_at || at < p->ack_at)
			p->ack_at = mre_due(c, p, at);
		return;
	}
	k->ack_asked += why == ACK_ASKED;
	k->ack_ooo += why == ACK_OOO;
	k->ack_other += why == ACK_OTHER;
	k->ack_count += why == ACK_DELAY;
	mre_ack_owed(c, p, now);
}

/*
 * A sequenced packet (DATA, PARITY, PROBE) on its path: its path, or NULL
 * when dropped (counted); *@gap: it arrived out of order.
 */
static inline struct mre_path *rx_path(struct mre_conn *c,
				       const struct mre_pkt *pkt, u32 path_una,
				       bool ce, u64 now, bool *gap)
{
	struct mre_path *p;

	if (pkt->path >= c->npaths) {
		c->ep->ctr.drop_field++;
		return NULL;
	}
	p = &c->paths[pkt->path];
	if (mre_path_rx(p, pkt->psn, path_una, pkt->ts, ce, now, gap) ==
	    MRE_WIN_AHEAD) {
		c->ep->ctr.drop_path_window++;
		return NULL;
	}
	return p;
}

static void rx_data(struct mre_conn *c, const struct mre_pkt *pkt, bool ce,
		    u64 now)
{
	const struct mre_pkt_data *d = &pkt->data;
	struct mre_path *p;
	enum ack_why why;
	bool gap;
	int syn;

	p = rx_path(c, pkt, d->path_una, ce, now, &gap);
	if (!p)
		return;
	c->ep->ctr.rx_data++;
	c->ep->ctr.rx_ce += ce;
	mre_cc_rx_activity(c, d->plen + MRE_MAX_HDR_LEN, now);
	why = ce ? ACK_OTHER : gap && mre_cfg(c)->ack_ooo_now ? ACK_OOO :
	      pkt->flags & MRE_F_ACK_REQ ? ACK_ASKED : ACK_DELAY;
	if (mre_win_test(&c->rxw, d->tsn)) {
		c->ep->ctr.rx_dup_tsn++;
		c->rx_dups++;
		why = ACK_OTHER;
	} else if (d->tsn - c->rxw.base >= c->wsize) {
		c->ep->ctr.drop_window++;
		why = ACK_OTHER;
	} else {
		syn = mre_msg_rx(c, pkt, now);
		if (syn != MRE_SYN_NONE) {
			c->nak = (u8)syn;
			why = ACK_OTHER;
		} else if (why == ACK_DELAY && mre_op_answered(d->op)) {
			/*
			 * Accepted: our response will say so (the requester
			 * takes it as the request's ACK, answered() in msg.c),
			 * and any later ACK of the path covers it too. No ACK
			 * of its own, not even a delayed one: a READ is the
			 * request, the response and the response's ACK.
			 */
			return;
		}
	}
	ack_policy(c, p, d, why, now);
}

/*
 * A PARITY (parity.c) is sequenced on its path like a PROBE and, like one,
 * acknowledged at once; what it rebuilds is accepted as if it had come.
 */
static void rx_parity(struct mre_conn *c, const struct mre_pkt *pkt, bool ce,
		      u64 now)
{
	const struct mre_pkt_data *d = &pkt->data;
	struct mre_path *p;
	bool gap;

	/* we never said we take them (MRE_CF_PARITY) */
	if (!mre_parity_takes(c->ep)) {
		c->ep->ctr.drop_type++;
		return;
	}
	p = rx_path(c, pkt, d->path_una, ce, now, &gap);
	if (!p)
		return;
	c->ep->ctr.rx_ce += ce;
	mre_cc_rx_activity(c, d->plen + MRE_MAX_HDR_LEN, now);
	mre_parity_rx(c, pkt, now);
	/* at once: it carries what was rebuilt, which its sender waits for */
	c->ep->ctr.ack_other++;
	mre_ack_owed(c, p, now);
}

/*
 * The peer heard nothing on one of its paths for a tail probe's time:
 * what it waits for may be one of our one-packet responses, which probe
 * no tail of their own (an answer tail, protocol.md 6.3). Their tails are
 * probed now; one probe per silence, as any tail probe.
 */
static void probe_answers(struct mre_conn *c, u64 now)
{
	u32 i;

	for (i = 0; i < c->npaths; i++) {
		struct mre_path *p = &c->paths[i];

		if (p->tail == MRE_TAIL_ANSWER && p->inflight && !p->tlp_out &&
		    (!p->tlp_at || p->tlp_at > now) &&
		    p->health != MRE_PATH_FAILED)
			p->tlp_at = mre_due(c, p, now);
	}
}

/*
 * A PROBE means the sender has heard nothing on that path: the route its
 * data takes may be dead, or the route our ACKs for it take. The sender
 * moves its own side before probing; we move ours (the path our ACKs for
 * it leave on, which keeps its sequence) before answering, or a black
 * hole on that reverse route alone would keep the path failed however
 * often the sender changed its port.
 */
static void rx_probe(struct mre_conn *c, const struct mre_pkt *pkt, u64 now)
{
	bool gap;

	if (pkt->path < c->npaths)
		c->ep->ctr.rx_probe++;
	if (!rx_path(c, pkt, pkt->probe.path_una, false, now, &gap))
		return;
	mre_path_repath(mre_send_ctrl_path(c, pkt->path), c,
			MRE_TRW_PEER_PROBE);
	probe_answers(c, now);	/* before our ACK turns them lazy */
	mre_ack_owed(c, &c->paths[pkt->path], now);
}

/*
 * The peer wants our CONNECT again with its cookie (protocol.md 5.1). Sent
 * at once when the cookie is new; else the CONNECT timer resends it, so
 * that two ends that disagree on a cookie do not ping-pong.
 */
static void rx_retry(struct mre_conn *c, const struct mre_pkt *pkt, u64 now)
{
	if (c->state != MRE_CONN_CONNECTING) {
		c->ep->ctr.drop_retry++;
		return;
	}
	c->ep->ctr.retry_rx++;
	if (c->cookie == pkt->retry.cookie)
		return;
	c->cookie = pkt->retry.cookie;
	mre_send_connect(c, MRE_T_CONNECT, now);
}

void mre_conn_rx(struct mre_conn *c, u64 now, const struct mre_pkt *pkt,
		 bool ce)
{
	switch (pkt->type) {
	case MRE_T_ACCEPT:
		c->ep->ctr.rx_ctrl++;
		if (c->state == MRE_CONN_CONNECTING)
			mre_conn_established(c, pkt, now);
		if (c->state == MRE_CONN_ESTABLISHED)
			mre_conn_hs_rtt(c, now);
		return;
	case MRE_T_RESET:
		c->ep->ctr.reset_rx++;
		/* not for this incarnation: refused, and counted as such */
		if (pkt->reset.cid != c->remote_cid ||
		    c->state != MRE_CONN_ESTABLISHED) {
			c->ep->ctr.drop_reset++;
			return;
		}
		mre_conn_peer_reset(c);
		return;
	case MRE_T_RETRY:
		rx_retry(c, pkt, now);
		return;
	}
	if (c->state != MRE_CONN_ESTABLISHED) {
		c->ep->ctr.drop_state++;
		if (c->state == MRE_CONN_CONNECTING)
			mre_conn_accept_lost(c, now);
		return;
	}
	c->last_rx = now;
	c->peer_heard = true;
	switch (pkt->type) {
	case MRE_T_DATA:
		rx_data(c, pkt, ce, now);
		break;
	case MRE_T_ACK:
		rx_ack(c, pkt, now);
		break;
	case MRE_T_PROBE:
		rx_probe(c, pkt, now);
		break;
	case MRE_T_PARITY:
		rx_parity(c, pkt, ce, now);
		break;
	case MRE_T_CHALLENGE:
	case MRE_T_ECHO:
		mre_conn_proof_rx(c, pkt, now);
		break;
	default:
		c->ep->ctr.drop_type++;
	}
}
