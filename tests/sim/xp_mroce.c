// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE transport in a simulated host (see xp_mroce.h).
 */
#include "xp_mroce.h"
#include <stdlib.h>

static void out(struct mdl_node *n, u32 peer, const struct mre_xmit *x,
		const u8 *pkt, u32 len)
{
	struct xp_mroce *xp = n->harness;
	struct sim_host *h = xp->host;

	sim_host_send(h, x->plane % h->nnics, peer, x->src_port,
		      MRE_DEFAULT_UDP_PORT, pkt, len, len);
}

static void rx(struct sim_host *h, struct sim_pkt *k)
{
	struct xp_mroce *xp = h->xp;

	if (k->dport != MRE_DEFAULT_UDP_PORT)
		return;
	mdl_rx(&xp->node, sim_addr_host(k->src), k->data, k->len, k->ce,
	       h->node.sim->now);
}

static u64 run(struct sim_host *h)
{
	struct xp_mroce *xp = h->xp;

	return mdl_run(&xp->node, h->node.sim->now);
}

const struct sim_xport xp_mroce_ops = {
	.name = "mroce",
	.rx = rx,
	.run = run,
};

static void *zalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		abort();
	return p;
}

struct xp_mroce *xp_mroce_new(struct sim_host *h, const struct mre_config *cfg,
			      u32 npeers, u32 max_qps)
{
	struct xp_mroce *xp = zalloc(sizeof(*xp));

	xp->npeers = npeers;
	xp->tab = (struct mdl_tables){
		.max_peers = npeers,
		.conns = zalloc(npeers * sizeof(*xp->tab.conns)),
		.conn_mem = zalloc(npeers * sizeof(*xp->tab.conn_mem)),
		.live = zalloc(npeers * sizeof(*xp->tab.live)),
		.max_qps = max_qps,
		.qps = zalloc(max_qps * sizeof(*xp->tab.qps)),
	};
	mdl_node_init(&xp->node, h->idx, sim_seed_of(h->node.sim, 0x3e0ULL << 32 | h->idx),
		      cfg);
	xp->node.out = out;
	xp->node.harness = xp;
	xp->node.rx_no_run = true;
	mdl_node_tables(&xp->node, &xp->tab);
	xp->host = h;
	sim_host_set_xport(h, &xp_mroce_ops, xp);
	return xp;
}

struct mre_conn *xp_mroce_conn(struct xp_mroce *xp, u32 peer)
{
	struct mre_conn *c;

	if (peer >= xp->npeers)
		abort();
	if (xp->node.conns[peer])
		return xp->node.conns[peer];
	c = zalloc(sizeof(*c));
	return mdl_conn(&xp->node, peer, c,
			zalloc(mre_conn_mem_size(&xp->node.ep.cfg)));
}

void xp_mroce_free(struct xp_mroce *xp)
{
	u32 i;

	for (i = 0; i < xp->npeers; i++) {
		free(xp->node.conns[i]);
		free(xp->node.conn_mem[i]);
	}
	for (i = 0; i < xp->node.nqps; i++)
		free(xp->node.qps[i]);
	free(xp->tab.conns);
	free(xp->tab.conn_mem);
	free(xp->tab.live);
	free(xp->tab.qps);
	free(xp);
}
