// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Engine endpoint: configuration, counters, parsing a datagram.
 */
#include "ep.h"
#include "path.h"
#include "wire.h"

const char *const mre_counter_names[] = {
#define MRE_X(n) #n,
	MRE_COUNTERS(MRE_X)
#undef MRE_X
};

MRE_STATIC_ASSERT(sizeof(mre_counter_names) / sizeof(mre_counter_names[0]) ==
		  MRE_NCOUNTERS, "counter names");

static const char *const trace_ev_names[] = {
	[MRE_TR_CONN_OPEN] = "open",
	[MRE_TR_CONN_RESTART] = "restart",
	[MRE_TR_CONN_RESET] = "reset",
	[MRE_TR_CONN_FAIL] = "fail",
	[MRE_TR_PATH] = "path",
	[MRE_TR_REPATH] = "repath",
	[MRE_TR_LOSS] = "loss",
	[MRE_TR_CUT] = "cut",
	[MRE_TR_HINT] = "hint",
};

static const char *const trace_why_names[] = {
	[MRE_TRW_NONE] = "-",
	[MRE_TRW_ACTIVE] = "active",
	[MRE_TRW_PASSIVE] = "passive",
	[MRE_TRW_CONNECT] = "connect",
	[MRE_TRW_DEAD] = "dead",
	[MRE_TRW_CLOSE] = "close",
	[MRE_TRW_FAST] = "fast",
	[MRE_TRW_TLP] = "tlp",
	[MRE_TRW_RTO] = "rto",
	[MRE_TRW_SILENT] = "silent",
	[MRE_TRW_STALL] = "stall",
	[MRE_TRW_PROBE] = "probe",
	[MRE_TRW_PLANE] = "plane",
	[MRE_TRW_PLANES] = "planes",
	[MRE_TRW_LOSSY] = "lossy",
	[MRE_TRW_PEER_PROBE] = "peer-probe",
	[MRE_TRW_ACKED] = "acked",
	[MRE_TRW_ECN] = "ecn",
	[MRE_TRW_LOSS] = "loss",
	[MRE_TRW_TIME] = "time",
	[MRE_TRW_ACCEPT] = "accept",
};

MRE_STATIC_ASSERT(MRE_ARRAY_SIZE(trace_ev_names) == MRE_TR_MAX, "trace events");
MRE_STATIC_ASSERT(MRE_ARRAY_SIZE(trace_why_names) == MRE_TRW_MAX, "trace reasons");

const char *mre_trace_ev_name(u8 ev)
{
	return ev < MRE_TR_MAX ? trace_ev_names[ev] : "?";
}

const char *mre_trace_why_name(u8 why)
{
	return why < MRE_TRW_MAX ? trace_why_names[why] : "?";
}

/* Defaults: a datacenter fabric (RTT tens of microseconds). protocol.md §10. */
void mre_config_default(struct mre_config *cfg)
{
	*cfg = (struct mre_config){
		.npaths = 8,
		.nplanes = 1,
		.window_log2 = 10,
		.ack_freq = 2,
		.ack_ooo_now = 1,
		.ack_delay_ns = 8000,
		.answer_ack_ns = 64000,
		.rto_init_ns = 1000000,
		.rto_min_ns = 50000,
		.tlp = 1,
		.tsn_settle = 1,
		.loss_time = 1,
		.rto_max_ns = 100000000,
		.reorder_pkts = 3,
		.fail_rtos = 2,
		.probe_min_ns = 200000,
		.probe_max_ns = 50000000,
		.dead_ns = 2000000000ULL,
		.connect_ns = 1000000,
		.connect_tries = 10,
		.init_cwnd = 16,
		.min_cwnd = 1,
		.max_cwnd = MRE_PATH_MAX_OUT,
		.conn_init_cwnd = 8,
		.conn_max_cwnd = 1 << 10,
		.ecn_g_shift = 4,
		.loss_beta_shift = 0,
		.loss_queue_pct = 300,
		.link_mbps = 0,
		.hint_pct = 95,
		.active_ns = 50000,
		.repath_loss_pct = 5,
		.repath_factor = 4,
		.tx_burst = 32,
		.small_bytes = 4096,
		.reset_burst = 100,
		.parity_pkts = 16,
		.parity_ppm = 2000,
	};
}

const char *mre_config_check(const struct mre_config *c)
{
	if (c->npaths < 1 || c->npaths > MRE_MAX_PATHS)
		return "npaths";
	if (c->nplanes < 1 || c->nplanes > c->npaths)
		return "nplanes";
	if (c->window_log2 < 4 || c->window_log2 > 16)
		return "window_log2";
	if (c->ack_freq < 1 || c->ack_freq > 64)
		return "ack_freq";
	/* an ACK says how long it was held in 32 bits of nanoseconds */
	if (c->ack_delay_ns > 1000000000)
		return "ack_delay";
	if (c->answer_ack_ns > 1000000000)
		return "answer_ack";
	if (!c->rto_min_ns || c->rto_min_ns > c->rto_max_ns ||
	    c->rto_init_ns < c->rto_min_ns || c->rto_init_ns > c->rto_max_ns)
		return "rto";
	if (c->reorder_pkts < 1 || c->reorder_pkts > 64)
		return "reorder_pkts";
	if (c->fail_rtos < 1)
		return "fail_rtos";
	if (!c->probe_min_ns || c->probe_min_ns > c->probe_max_ns)
		return "probe";
	if (!c->dead_ns || !c->connect_ns || !c->connect_tries)
		return "timeouts";
	if (c->min_cwnd < 1 || c->init_cwnd < c->min_cwnd ||
	    c->max_cwnd < c->init_cwnd || c->max_cwnd > MRE_PATH_MAX_OUT)
		return "cwnd";
	if (c->conn_max_cwnd < 1 || c->conn_max_cwnd > (1u << c->window_log2))
		return "conn_max_cwnd";
	if (c->conn_init_cwnd < c->min_cwnd || c->conn_init_cwnd > c->conn_max_cwnd)
		return "conn_init_cwnd";
	if (c->ecn_g_shift < 1 || c->ecn_g_shift > 10 || c->loss_beta_shift > 10 ||
	    c->loss_queue_pct > 10000)
		return "ecn";
	if (c->hint_pct < 1 || c->hint_pct > 100 || !c->active_ns)
		return "hint";
	if (!c->tx_burst)
		return "tx_burst";
	if (c->parity_pkts > MRE_PARITY_MAX || c->parity_ppm > 1000000)
		return "parity";
	return NULL;
}

int mre_ep_init(struct mre_ep *ep, const struct mre_ops *ops,
		const struct mre_config *cfg)
{
	if (mre_config_check(cfg))
		return -1;
	mre_memset(ep, 0, sizeof(*ep));
	ep->ops = ops;
	ep->cfg = *cfg;
	ep->act_epoch = 1;
	return 0;
}

void mre_ep_key(struct mre_ep *ep)
{
	if (ep->secret_set)
		return;
	ep->secret[0] = ep->ops->random(ep);
	ep->secret[1] = ep->ops->random(ep);
	ep->secret_set = true;
}

int mre_ep_parse(struct mre_ep *ep, const u8 *buf, u32 len,
		 struct mre_pkt *pkt)
{
	static const unsigned int drop_of[MRE_PARSE_MAX] = {
		[MRE_PARSE_SHORT] = offsetof(struct mre_counters, drop_short),
		[MRE_PARSE_VERSION] = offsetof(struct mre_counters, drop_version),
		[MRE_PARSE_TYPE] = offsetof(struct mre_counters, drop_type),
		[MRE_PARSE_FLAGS] = offsetof(struct mre_counters, drop_flags),
		[MRE_PARSE_LEN] = offsetof(struct mre_counters, drop_len),
		[MRE_PARSE_FIELD] = offsetof(struct mre_counters, drop_field),
	};
	enum mre_parse_err e;

	ep->ctr.rx_pkts++;
	ep->ctr.rx_bytes += len;
	e = mre_wire_parse(buf, len, pkt);
	if (e != MRE_PARSE_OK) {
		(*(u64 *)((char *)&ep->ctr + drop_of[e]))++;
		return -1;
	}
	return 0;
}

u32 mre_ud_build(u8 *buf, u32 dst_qpn, u32 src_qpn, u32 qkey, u32 imm,
		 u8 udflags, u16 plen, u64 now)
{
	struct mre_pkt p = {
		.type = MRE_T_UD,
		.ts = (u32)now,
		.ud = {
			.dst_qpn = dst_qpn, .src_qpn = src_qpn, .qkey = qkey,
			.imm = imm, .udflags = udflags, .plen = plen,
		},
	};

	return mre_wire_put(buf, &p);
}
