// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * struct mre_ops for the kernel: which glue file answers which engine
 * callback (the roles, rxe's cut):
 *
 *	receive, dispatch   rx.c     conn_new, ud_rx, reply
 *	peers               peer.c   conn_by_id, conn_by_addr, conn_event
 *	planes              plane.c  our_planes
 *	requester           req.c    xmit, sq_get, send_done, READ/ATOMIC
 *	                             responses (place)
 *	responder           resp.c   WRITE/SEND (place), check, atomic,
 *	                             recv_done
 *	completer           comp.c   stream_error
 *	tracepoints         trace.c  trace
 *	QPs                 here     stream: an id to its QP's stream
 */
#include <linux/random.h>

#include "comp.h"
#include "embed.h"
#include "parity.h"
#include "peer.h"
#include "plane.h"
#include "qp.h"
#include "req.h"
#include "resp.h"
#include "rx.h"
#include "trace.h"

static u64 e_random(struct mre_ep *ep)
{
	return get_random_u64();
}

/* the stream @id of connection @c: an RC/UC QP of ours on it */
static struct mre_stream *e_stream(struct mre_conn *c, u32 id)
{
	struct mroce_dev *mdev = container_of(c->ep, struct mroce_dev, ep);
	struct mroce_qp *qp = mroce_qp_lookup(mdev, id);

	if (!qp || !mroce_qp_is_conn(qp) || qp->s.conn != c) {
		ibdev_dbg_ratelimited(&mdev->ibdev,
				      "peer %pISc: no stream %u (qp %s, conn %s)\n",
				      &mroce_peer_of(c)->daddr, id,
				      qp ? "found" : "none",
				      qp && qp->s.conn ? "other" : "none");
		return NULL;
	}
	return &qp->s;
}

/* a request's payload is the responder's; a response's, the requester's */
static int e_place(struct mre_stream *s, const struct mre_place *p,
		   const u8 *data)
{
	if (p->op == MRE_OP_WRITE || p->op == MRE_OP_SEND)
		return mroce_resp_place(s, p, data);
	return mroce_req_place_resp(s, p, data);
}

const struct mre_ops mroce_engine_ops = {
	.random = e_random,
	.conn_by_id = mroce_peer_conn_by_id,
	.conn_by_addr = mroce_peer_conn_by_addr,
	.conn_new = mroce_rx_conn_new,
	.our_planes = mroce_planes_ours,
	.ud_rx = mroce_rx_ud,
	.reply = mroce_rx_reply,
	.xmit = mroce_req_xmit,
	.stream = e_stream,
	.sq_get = mroce_req_sq_get,
	.send_done = mroce_req_send_done,
	.place = e_place,
	.check = mroce_resp_check,
	.atomic = mroce_resp_atomic,
	.atomic_write = mroce_resp_atomic_write,
	.recv_done = mroce_resp_recv_done,
	.parity = mroce_parity_rebuild,
	.stream_error = mroce_comp_stream_error,
	.conn_event = mroce_peer_conn_event,
	.trace = mroce_trace_engine,
};
