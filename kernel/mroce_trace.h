/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mroce tracepoints (system "mroce"): the engine's connection events
 * (struct mre_trace, handed up by mre_ops.trace and sent here by
 * trace.c) and error completions (cq.c). Documentation/mroce.rst,
 * "Tracepoints", lists them with an example.
 *
 * Every event names the device, the peer (its plane-0 address) and our
 * connection id, the drv_cid of `rdma res show qp -dd`. None fires per
 * packet: a loss, a repath, a window cut, a new rate hint, a change of
 * state. Off, each costs the engine one indirect call at the event and a
 * static branch here.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mroce

#if !defined(_MROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MROCE_TRACE_H

#include <linux/in6.h>
#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>
#include <rdma/mroce-abi.h>

#include "mroce.h"
#include "peer.h"

/* the fields every connection event starts with */
#define MROCE_TP_CONN_FIELDS					\
	__string(dev, dev_name(&peer->mdev->ibdev.dev))		\
	__array(u8, peer, sizeof(struct sockaddr_in6))		\
	__field(u64, cid)

#define MROCE_TP_CONN_ASSIGN					\
	do {							\
		__assign_str(dev, dev_name(&peer->mdev->ibdev.dev)); \
		memcpy(__entry->peer, &peer->daddr,		\
		       sizeof(struct sockaddr_in6));		\
		__entry->cid = peer->conn.cid;			\
	} while (0)

DECLARE_EVENT_CLASS(mroce_conn_class,
	TP_PROTO(const struct mroce_peer *peer, const struct mre_trace *t),
	TP_ARGS(peer, t),
	TP_STRUCT__entry(
		MROCE_TP_CONN_FIELDS
		__field(u64, remote_cid)
		__string(why, mre_trace_why_name(t->why))
	),
	TP_fast_assign(
		MROCE_TP_CONN_ASSIGN;
		__entry->remote_cid = peer->conn.remote_cid;
		__assign_str(why, mre_trace_why_name(t->why));
	),
	TP_printk("%s peer %pISc cid %#llx remote_cid %#llx why %s",
		  __get_str(dev), __entry->peer, __entry->cid,
		  __entry->remote_cid, __get_str(why))
);

#define MROCE_CONN_EVENT(name)						\
	DEFINE_EVENT(mroce_conn_class, name,				\
		TP_PROTO(const struct mroce_peer *peer,			\
			 const struct mre_trace *t),			\
		TP_ARGS(peer, t))

/* established (why: active, passive) */
MROCE_CONN_EVENT(mroce_conn_open);
/* the peer proved it restarted: what went over the old incarnation fails */
MROCE_CONN_EVENT(mroce_conn_restart);
/* the peer's RESET named the connection */
MROCE_CONN_EVENT(mroce_conn_reset);
/* failed (why: connect, dead, close) */
MROCE_CONN_EVENT(mroce_conn_fail);

TRACE_EVENT(mroce_path_state,
	TP_PROTO(const struct mroce_peer *peer, const struct mre_trace *t),
	TP_ARGS(peer, t),
	TP_STRUCT__entry(
		MROCE_TP_CONN_FIELDS
		__field(u16, path)
		__field(u8, plane)
		__field(u16, port)
		__string(from, mre_path_health_name(t->state.from))
		__string(to, mre_path_health_name(t->state.to))
		__string(why, mre_trace_why_name(t->why))
	),
	TP_fast_assign(
		const struct mre_path *p = &peer->conn.paths[t->path];

		MROCE_TP_CONN_ASSIGN;
		__entry->path = t->path;
		__entry->plane = p->plane;
		__entry->port = p->src_port;
		__assign_str(from, mre_path_health_name(t->state.from));
		__assign_str(to, mre_path_health_name(t->state.to));
		__assign_str(why, mre_trace_why_name(t->why));
	),
	TP_printk("%s peer %pISc cid %#llx path %u plane %u port %u %s -> %s why %s",
		  __get_str(dev), __entry->peer, __entry->cid, __entry->path,
		  __entry->plane, __entry->port, __get_str(from), __get_str(to),
		  __get_str(why))
);

TRACE_EVENT(mroce_repath,
	TP_PROTO(const struct mroce_peer *peer, const struct mre_trace *t),
	TP_ARGS(peer, t),
	TP_STRUCT__entry(
		MROCE_TP_CONN_FIELDS
		__field(u16, path)
		__field(u8, plane)
		__field(u16, old_port)
		__field(u16, new_port)
		__string(why, mre_trace_why_name(t->why))
	),
	TP_fast_assign(
		MROCE_TP_CONN_ASSIGN;
		__entry->path = t->path;
		__entry->plane = peer->conn.paths[t->path].plane;
		__entry->old_port = t->port.from;
		__entry->new_port = t->port.to;
		__assign_str(why, mre_trace_why_name(t->why));
	),
	TP_printk("%s peer %pISc cid %#llx path %u plane %u port %u -> %u why %s",
		  __get_str(dev), __entry->peer, __entry->cid, __entry->path,
		  __entry->plane, __entry->old_port, __entry->new_port,
		  __get_str(why))
);

/*
 * A packet found lost, and resent at once; "how" is what found it. A lost
 * probe (path or tail probe, no data in it) shows "(probe)" after its tsn.
 */
TRACE_EVENT(mroce_loss,
	TP_PROTO(const struct mroce_peer *peer, const struct mre_trace *t),
	TP_ARGS(peer, t),
	TP_STRUCT__entry(
		MROCE_TP_CONN_FIELDS
		__field(u16, path)
		__field(u32, psn)
		__field(u32, tsn)
		__string(how, mre_trace_why_name(t->why))
	),
	TP_fast_assign(
		MROCE_TP_CONN_ASSIGN;
		__entry->path = t->path;
		__entry->psn = t->loss.psn;
		__entry->tsn = t->loss.tsn;
		__assign_str(how, mre_trace_why_name(t->why));
	),
	TP_printk("%s peer %pISc cid %#llx path %u psn %u tsn %u%s how %s",
		  __get_str(dev), __entry->peer, __entry->cid, __entry->path,
		  __entry->psn, __entry->tsn,
		  __entry->tsn == MRE_PSN_PROBE ? " (probe)" : "",
		  __get_str(how))
);

/* a congestion window cut; path -1 is the connection's own window */
TRACE_EVENT(mroce_cwnd_cut,
	TP_PROTO(const struct mroce_peer *peer, const struct mre_trace *t),
	TP_ARGS(peer, t),
	TP_STRUCT__entry(
		MROCE_TP_CONN_FIELDS
		__field(int, path)
		__field(u32, from_x100)
		__field(u32, to_x100)
		__field(u32, alpha)
		__string(why, mre_trace_why_name(t->why))
	),
	TP_fast_assign(
		MROCE_TP_CONN_ASSIGN;
		__entry->path = t->path == MRE_TR_CONN_WIDE ? -1 : t->path;
		__entry->from_x100 = t->cut.from;
		__entry->to_x100 = t->cut.to;
		__entry->alpha = t->cut.alpha;
		__assign_str(why, mre_trace_why_name(t->why));
	),
	TP_printk("%s peer %pISc cid %#llx path %d cwnd %u.%02u -> %u.%02u pkts alpha %u/1024 why %s",
		  __get_str(dev), __entry->peer, __entry->cid, __entry->path,
		  __entry->from_x100 / 100, __entry->from_x100 % 100,
		  __entry->to_x100 / 100, __entry->to_x100 % 100,
		  __entry->alpha, __get_str(why))
);

/* the peer's receiver fair-share hint changed (Mbit/s; 0: none) */
TRACE_EVENT(mroce_rate_hint,
	TP_PROTO(const struct mroce_peer *peer, const struct mre_trace *t),
	TP_ARGS(peer, t),
	TP_STRUCT__entry(
		MROCE_TP_CONN_FIELDS
		__field(u32, from_mbps)
		__field(u32, to_mbps)
	),
	TP_fast_assign(
		MROCE_TP_CONN_ASSIGN;
		__entry->from_mbps = t->hint.from;
		__entry->to_mbps = t->hint.to;
	),
	TP_printk("%s peer %pISc cid %#llx hint %u -> %u Mbit/s",
		  __get_str(dev), __entry->peer, __entry->cid,
		  __entry->from_mbps, __entry->to_mbps)
);

/* a completion with an error status, as it enters the CQ */
TRACE_EVENT(mroce_wc_error,
	TP_PROTO(const struct ib_cq *cq, const struct ib_qp *qp,
		 const struct mroce_cqe *e),
	TP_ARGS(cq, qp, e),
	TP_STRUCT__entry(
		__string(dev, dev_name(&cq->device->dev))
		__field(u32, qpn)
		__field(u32, cqn)
		__field(u64, wr_id)
		__field(u32, status)
		__field(u32, opcode)
		__field(u32, vendor_err)
		__string(status_name, ib_wc_status_msg(e->status))
	),
	TP_fast_assign(
		__assign_str(dev, dev_name(&cq->device->dev));
		__entry->qpn = qp->qp_num;
		__entry->cqn = cq->res.id;
		__entry->wr_id = e->wr_id;
		__entry->status = e->status;
		__entry->opcode = e->opcode;
		__entry->vendor_err = e->vendor_err;
		__assign_str(status_name, ib_wc_status_msg(e->status));
	),
	TP_printk("%s qp %u cq %u wr_id %#llx opcode %u status %u (%s) vendor_err %u",
		  __get_str(dev), __entry->qpn, __entry->cqn, __entry->wr_id,
		  __entry->opcode, __entry->status, __get_str(status_name),
		  __entry->vendor_err)
);

#endif /* _MROCE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mroce_trace
#include <trace/define_trace.h>
