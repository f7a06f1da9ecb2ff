// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Two engines under a fake clock (see pair.h).
 */
#include "pair.h"

static void pair_trace(struct pair *p, u32 from, const struct pair_pkt *pk,
		       const char *what)
{
	struct mre_pkt x;

	if (mre_wire_parse(pk->data, pk->len, &x) != MRE_PARSE_OK) {
		MRE_LOG(p->test, "%llu %u>%u %s unparsable", p->now, from,
			1 - from, what);
		return;
	}
	if (x.type == MRE_T_DATA)
		MRE_LOG(p->test, "%llu %u>%u %s DATA p%u psn %u una %u tsn %u %s msn %u off %u len %u%s",
			p->now, from, 1 - from, what, x.path, x.psn,
			x.data.path_una, x.data.tsn, mre_wire_op_name(x.data.op),
			x.data.msn, x.data.offset, x.data.plen,
			x.flags & MRE_F_RETX ? " RETX" : "");
	else if (x.type == MRE_T_ACK)
		MRE_LOG(p->test, "%llu %u>%u %s ACK p%u cum %u sack %08x tsn_cum %u tsack %llx nak %u mark %u%s",
			p->now, from, 1 - from, what, x.ack.ack_path,
			x.ack.psn_cum, x.ack.sack[0], x.ack.tsn_cum,
			x.ack.tsn_sack, x.ack.nak, x.ack.nak_mark,
			x.ack.aflags ? "*" : "");
	else
		MRE_LOG(p->test, "%llu %u>%u %s %s p%u psn %u", p->now, from,
			1 - from, what, mre_wire_type_name(x.type), x.path,
			x.psn);
}

static void out(struct mdl_node *n, u32 peer, const struct mre_xmit *x,
		const u8 *pkt, u32 len)
{
	struct pair *p = n->harness;
	struct pair_pkt *pk;
	u64 extra = 0;
	u32 from = n->id;

	p->sent[from]++;
	p->by_type[from][pkt[0] & 0xf]++;
	if (p->qn == PAIR_QCAP || len > PAIR_PKT_MAX) {
		p->dropped++;
		return;
	}
	pk = &p->q[p->qn];
	pk->to = peer;
	pk->from = from;
	pk->len = len;
	pk->path = x->path;
	pk->port = x->src_port;
	pk->type = pkt[0] & 0xf;
	pk->ce = 0;
	mre_memcpy(pk->data, pkt, len);
	if (p->hook && p->hook(p, from, pk, p->sent[from] - 1, &extra)) {
		p->dropped++;
		if (mre_test_trace)
			pair_trace(p, from, pk, "DROP");
		return;
	}
	if (mre_test_trace)
		pair_trace(p, from, pk, "send");
	pk->at = p->now + p->delay_ns + extra;
	pk->seq = p->qseq++;
	p->qn++;
}

struct pair *pair_new(struct kunit *test, const struct mre_config *cfg,
		      u64 seed, u64 delay_ns)
{
	struct pair *p = MRE_ALLOC(test, sizeof(*p));
	u32 i, msz = mre_conn_mem_size(cfg);

	p->test = test;
	p->q = MRE_ALLOC(test, sizeof(*p->q) * PAIR_QCAP);
	p->delay_ns = delay_ns;
	p->rng = seed;
	p->now = 1000;
	for (i = 0; i < 2; i++) {
		mdl_node_init(&p->n[i], i, seed, cfg);
		p->n[i].out = out;
		p->n[i].harness = p;
		mdl_conn(&p->n[i], 1 - i, &p->c[i], MRE_ALLOC(test, msz));
	}
	return p;
}

void pair_restart(struct pair *p, u32 i, const struct mre_config *cfg,
		  u64 seed)
{
	mdl_node_init(&p->n[i], i, seed, cfg);
	p->n[i].out = out;
	p->n[i].harness = p;
	mdl_conn(&p->n[i], 1 - i, &p->c[i],
		 MRE_ALLOC(p->test, mre_conn_mem_size(cfg)));
}

void pair_qps(struct pair *p, struct mdl_qp *a, struct mdl_qp *b, u32 qpn,
	      u32 mtu)
{
	mdl_qp_init(&p->n[0], a, qpn, 1, qpn + 1000, mtu);
	mdl_qp_init(&p->n[1], b, qpn + 1000, 0, qpn, mtu);
}

/* the next event, if it is due by @until; else the clock goes to @until */
static bool step(struct pair *p, u64 until)
{
	u64 t = 0;
	u32 i, best = 0;
	bool pkt = false;

	for (i = 0; i < 2; i++) {
		p->deadline[i] = mdl_run(&p->n[i], p->now);
		if (p->deadline[i] && (!t || p->deadline[i] < t))
			t = p->deadline[i];
	}
	for (i = 0; i < p->qn; i++) {
		if (!pkt || p->q[i].at < p->q[best].at ||
		    (p->q[i].at == p->q[best].at && p->q[i].seq < p->q[best].seq)) {
			best = i;
			pkt = true;
		}
	}
	if ((!pkt || p->q[best].at > until) && (!t || t > until)) {
		if (until != ~0ULL && until > p->now)
			p->now = until;
		return false;
	}
	if (pkt && (!t || p->q[best].at <= t)) {
		struct pair_pkt *pk = &p->q[best];

		if (pk->at > p->now)
			p->now = pk->at;
		mdl_rx(&p->n[pk->to], pk->from, pk->data, pk->len, pk->ce,
		       p->now);
		/* keep the queue dense; order is by 'at', not position */
		*pk = p->q[--p->qn];
		return true;
	}
	/* a deadline (t != 0 here: something was due by @until) */
	if (t > p->now)
		p->now = t;
	return true;
}

bool pair_step(struct pair *p)
{
	return step(p, ~0ULL);
}

void pair_run_until(struct pair *p, u64 until)
{
	while (step(p, until))
		;
}

void pair_run(struct pair *p, u64 limit)
{
	u64 end = p->now + limit;

	while (p->now < end && pair_step(p))
		;
}

bool pair_hook_loss(struct pair *p, u32 from, const struct pair_pkt *pk,
		    u64 n, u64 *extra_delay)
{
	u64 ppm = *(u64 *)p->hook_ctx;

	return mdl_rand(&p->rng) % 1000000 < ppm;
}
