// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Transmit descriptors, the retransmit queue and NAKs (see tsn.h).
 */
#include "tsn.h"
#include "stream.h"

void mre_tsn_retx(struct mre_conn *c, u32 tsn)
{
	struct mre_txd *t = mre_txd_of(c, tsn);

	if (t->state == MRE_TXD_WAIT)
		c->n_wait--;
	t->state = MRE_TXD_QUEUED;
	c->rtxq[c->rtxq_tail++ & (c->wsize - 1)] = tsn;
}

bool mre_tsn_nak(struct mre_conn *c, u32 stream, u32 dst_stream, u32 msn,
		 u32 syn)
{
	struct mre_txd *t;
	u32 tsn;

	if (c->tsn_next - c->tsn_una >= c->wsize)
		return false;
	tsn = c->tsn_next++;
	t = mre_txd_of(c, tsn);
	*t = (struct mre_txd){
		.stream = stream, .msn = msn, .offset = dst_stream, .seq = syn,
		.op = MRE_OP_NAK, .dflags = MRE_DF_FIRST | MRE_DF_LAST,
		.path = 0xff,
	};
	mre_tsn_retx(c, tsn);		/* goes out first, on any path */
	c->nak_mark = tsn + 1;
	c->nak_marked = true;
	return true;
}

void mre_tsn_nop(struct mre_txd *t)
{
	t->stream = 0;
	t->msn = 0;
	t->offset = 0;
	t->seq = 0;
	t->op = MRE_OP_NOP;
	t->len = 0;
	t->dflags = MRE_DF_FIRST | MRE_DF_LAST;
}

/* does ACK @a say that @tsn was accepted? (*@known: false if it cannot tell) */
static bool tsn_in_ack(const struct mre_pkt_ack *a, u32 tsn, bool *known)
{
	u32 d = tsn - a->tsn_cum - 1;

	*known = true;
	if (seq_lt(tsn, a->tsn_cum))
		return true;
	if (tsn == a->tsn_cum)
		return false;
	if (d < MRE_TSN_SACK_BITS)
		return a->tsn_sack >> d & 1;
	*known = false;
	return false;
}

/* the latest transmission of @tsn is PSN @psn of @path, and still unsettled */
static struct mre_txd *latest(struct mre_conn *c, u32 tsn, u16 path, u32 psn)
{
	struct mre_txd *t = mre_txd_of(c, tsn);

	if (seq_lt(tsn, c->tsn_una) || seq_ge(tsn, c->tsn_next) ||
	    t->path != path || t->psn != psn)
		return NULL;
	return t;
}

/* arrived, and its ACK says it was not accepted: refused, resent later */
static void refused(struct mre_conn *c, struct mre_txd *t,
		    const struct mre_pkt_ack *a, u64 now)
{
	if (a->nak == MRE_SYN_RNR && t->stream) {
		struct mre_stream *s = mre_conn_stream(c, t->stream);

		if (s && s->conn == c && !mre_stream_rnr(s, c->ack_seq)) {
			mre_stream_fail(s, MRE_ST_RNR_RETRY_EXC);
			mre_tsn_nop(t);
		}
	}
	t->state = MRE_TXD_WAIT;
	c->n_wait++;
	c->ep->ctr.rnr_wait++;
	if (c->n_wait == 1 || c->rnr_until < now)
		c->rnr_until = now + (a->nak == MRE_SYN_RNR ? a->rnr_delay :
				       mre_cfg(c)->rto_min_ns);
}

void mre_tsn_arrived(struct mre_conn *c, u32 tsn, u16 path, u32 psn,
		     const struct mre_pkt *ack, u64 now)
{
	struct mre_txd *t = latest(c, tsn, path, psn);
	bool known;

	if (!t || (t->state != MRE_TXD_OUT && t->state != MRE_TXD_QUEUED))
		return;
	if (tsn_in_ack(&ack->ack, tsn, &known))
		t->state = MRE_TXD_ACKED;
	else if (!known)
		t->state = MRE_TXD_ARRIVED;
	else
		refused(c, t, &ack->ack, now);
}

void mre_tsn_lost(struct mre_conn *c, u32 tsn, u16 path, u32 psn, u8 how)
{
	struct mre_txd *t = latest(c, tsn, path, psn);

	if (!t || t->state != MRE_TXD_OUT)
		return;
	t->fack = how | (t->fack & MRE_TXD_PARITY);
	mre_tsn_retx(c, tsn);
}
