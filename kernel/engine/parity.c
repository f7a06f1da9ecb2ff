// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * PARITY: a WRITE's tail, repaired without a round trip (protocol.md 6.7).
 *
 * A synchronous collective moves one message per step and waits for it: a
 * packet lost near a message's end is found only when later packets are
 * acknowledged (the same message's, the next step's) or by a tail probe,
 * and the step then costs a round trip under load plus the resend. While
 * a connection loses packets (parity.h), the sender follows the last
 * parity_pkts packets of each WRITE with immediate (what a receiver waits
 * for; plain WRITEs are bulk, which PARITY would only slow) with one
 * PARITY: their XOR, plen bytes a packet (send.c). It is sequenced on a
 * path like a PROBE (never resent: its loss costs only the repair) and
 * carries the WRITE's header, so the receiver can rebuild any one of those
 * packets from the others, which it has placed, and accept it as if it had
 * arrived (here). The ACK that carries the rebuilt TSN settles the lost
 * PSN too (tsn_settle), usually before the sender found it lost: nothing
 * is resent, and the sender never sees that loss.
 *
 * Only WRITEs: their destination names itself (rkey, raddr), so the
 * receiver reads the packets that did come back from where it put them.
 * Only a node that said so in its CONNECT or ACCEPT (MRE_CF_PARITY) is
 * sent any.
 */
#include "parity.h"
#include "msg.h"
#include "stream.h"

/* has TSN @tsn arrived (accepted, or placed out of order)? */
static bool tsn_in(const struct mre_conn *c, u32 tsn)
{
	return seq_lt(tsn, c->rxw.base) || mre_win_test(&c->rxw, tsn);
}

void mre_parity_rx(struct mre_conn *c, const struct mre_pkt *pkt, u64 now)
{
	const struct mre_pkt_data *d = &pkt->data;
	struct mre_rebuild rb = {
		.rkey = d->rkey, .raddr = d->raddr, .off = d->offset,
		.stride = d->plen, .mlen = d->mlen,
	};
	u32 n = (d->mlen - d->offset + d->plen - 1) / d->plen;
	u32 i, miss = n;
	struct mre_stream *s;
	struct mre_pkt r;
	const u8 *data;

	c->ep->par.rx++;
	/* its last TSN inside the window (parse_data() bounds n by 64) */
	if (!seq_lt(d->tsn + n - 1, c->rxw.base + c->wsize)) {
		c->ep->ctr.drop_window++;
		return;
	}
	for (i = 0; i < n; i++) {
		if (tsn_in(c, d->tsn + i))
			continue;
		if (miss != n) {
			c->ep->par.short_of++;
			return;
		}
		miss = i;
	}
	if (miss == n) {
		c->ep->par.unused++;
		return;
	}
	s = mre_conn_stream(c, d->dst_stream);
	if (!s || s->conn != c || s->remote_id != d->src_stream ||
	    s->state != MRE_STREAM_ACTIVE) {
		c->ep->par.failed++;
		return;
	}
	rb.miss = d->offset + miss * d->plen;
	rb.len = MRE_MIN(d->plen, d->mlen - rb.miss);
	data = c->ep->ops->parity(s, &rb, pkt->payload);
	if (!data) {
		c->ep->par.failed++;
		return;
	}
	/* the packet as its sender built it (send.c, req_next() in stream.c) */
	r = *pkt;
	r.type = MRE_T_DATA;
	r.payload = data;
	r.data.tsn = d->tsn + miss;
	r.data.offset = rb.miss;
	r.data.plen = (u16)rb.len;
	r.data.dflags = (d->dflags & (MRE_DF_IMM | MRE_DF_RECV)) |
			(rb.miss ? 0 : MRE_DF_FIRST) |
			(miss == n - 1 ? d->dflags & (MRE_DF_LAST |
						      MRE_DF_SOLICIT) : 0);
	if (mre_msg_rx(c, &r, now) == MRE_SYN_NONE)
		c->ep->par.rebuilt++;
	else
		c->ep->par.failed++;
}
