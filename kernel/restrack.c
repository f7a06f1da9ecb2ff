// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Driver attributes for `rdma res show qp|cq|mr -dd` (see restrack.h):
 * what a QP's stream and its connection, a CQ's ring and an MR look like
 * now, from nldev's dump, which may sleep and holds none of our locks.
 */
#include <rdma/ib_umem.h>
#include <rdma/restrack.h>
#include <linux/capability.h>
#include <linux/net.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "cq.h"
#include "mr.h"
#include "peer.h"
#include "qp.h"
#include "restrack.h"
#include "mroce.h"

static const char *const stream_states[] = {
	[MRE_STREAM_DETACHED] = "detached",
	[MRE_STREAM_ACTIVE] = "active",
	[MRE_STREAM_STOPPED] = "stopped",
	[MRE_STREAM_ERROR] = "error",
};

/* what is shown, copied under the locks */
struct qp_view {
	bool conn;			/* RC/UC with a peer */
	char peer[64];
	u64 cid, remote_cid;
	u8 conn_state, stream_state;
	u32 npaths, paths_good, stream, remote_stream;
	u32 msn_next, msn_done;
};

static void view_qp(struct mroce_qp *qp, struct qp_view *v)
{
	struct mroce_peer *peer;
	const struct mre_conn *c;
	u32 i;

	memset(v, 0, sizeof(*v));
	mutex_lock(&qp->mutex);		/* qp->peer stays */
	peer = qp->peer;
	if (peer) {
		c = &peer->conn;
		spin_lock_bh(&peer->lock);
		v->conn = true;
		snprintf(v->peer, sizeof(v->peer), "%pISc", &peer->daddr);
		v->cid = c->cid;
		v->remote_cid = c->remote_cid;
		v->conn_state = c->state;
		v->npaths = c->npaths;
		for (i = 0; i < c->npaths; i++)
			v->paths_good += c->paths[i].health == MRE_PATH_GOOD;
		v->stream_state = qp->s.state;
		v->stream = qp->s.id;
		v->remote_stream = qp->s.remote_id;
		v->msn_next = qp->s.tx_msn;
		v->msn_done = qp->s.comp_msn;
		spin_unlock_bh(&peer->lock);
	}
	mutex_unlock(&qp->mutex);
}

/*
 * May the caller see a connection's secrets: its ids, the streams and the
 * message numbers (with a peer's address they are what a RESET or a
 * forged request needs, protocol.md 11)? Only with CAP_NET_ADMIN, as the
 * core shows rkeys. nldev runs this hook whatever the caller may do and
 * does not pass what it found, so ask as netlink_capable() does: the task
 * (the dump runs in the requester's sendmsg or recvmsg) and, for a dump's
 * reply, the socket's opener too (a privileged writer on an unprivileged
 * user's socket learns nothing for it).
 */
static bool may_see_secrets(const struct sk_buff *msg)
{
	const struct socket *sock = msg->sk ? msg->sk->sk_socket : NULL;

	if (!capable(CAP_NET_ADMIN))
		return false;
	return !sock || !sock->file ||
	       file_ns_capable(sock->file, &init_user_ns, CAP_NET_ADMIN);
}

static int put_secrets(struct sk_buff *msg, const struct qp_view *v)
{
	return rdma_nl_put_driver_u64_hex(msg, "cid", v->cid) ||
	       rdma_nl_put_driver_u64_hex(msg, "remote_cid", v->remote_cid) ||
	       rdma_nl_put_driver_u32(msg, "stream", v->stream) ||
	       rdma_nl_put_driver_u32(msg, "remote_stream", v->remote_stream) ||
	       rdma_nl_put_driver_u32(msg, "msn_next", v->msn_next) ||
	       rdma_nl_put_driver_u32(msg, "msn_done", v->msn_done);
}

int mroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct nlattr *t;
	struct qp_view v;

	if (!mroce_qp_is_conn(to_mroce_qp(ibqp)))
		return 0;
	view_qp(to_mroce_qp(ibqp), &v);
	if (!v.conn)
		return 0;
	t = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!t)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_string(msg, "peer", v.peer) ||
	    rdma_nl_put_driver_string(msg, "conn",
				      mre_conn_state_name(v.conn_state)) ||
	    rdma_nl_put_driver_u32(msg, "paths", v.npaths) ||
	    rdma_nl_put_driver_u32(msg, "paths_good", v.paths_good) ||
	    rdma_nl_put_driver_string(msg, "stream_state",
				      v.stream_state < ARRAY_SIZE(stream_states) ?
				      stream_states[v.stream_state] : "?") ||
	    (may_see_secrets(msg) && put_secrets(msg, &v))) {
		nla_nest_cancel(msg, t);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, t);
	return 0;
}

int mroce_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct mroce_cq *cq = to_mroce_cq(ibcq);
	u32 size, waiting, shared;
	bool overflow, mapped;
	unsigned long flags;
	struct nlattr *t;
	u8 notify;

	spin_lock_irqsave(&cq->lock, flags);
	/* the consumer index may come from user memory: space is clamped */
	size = cq->q.r.size;
	waiting = size - mre_ring_space(&cq->q.r);
	notify = cq->notify;
	overflow = cq->overflow;
	mapped = cq->q.mmap;
	shared = cq->notify_shared;
	spin_unlock_irqrestore(&cq->lock, flags);
	t = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!t)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "entries", size) ||
	    rdma_nl_put_driver_u32(msg, "waiting", waiting) ||
	    rdma_nl_put_driver_string(msg, "armed",
				      notify == IB_CQ_NEXT_COMP ? "next" :
				      notify == IB_CQ_SOLICITED ? "solicited" :
				      "no") ||
	    rdma_nl_put_driver_string(msg, "overflow", overflow ? "yes" : "no") ||
	    rdma_nl_put_driver_string(msg, "ring", mapped ? "user" : "kernel") ||
	    rdma_nl_put_driver_u32(msg, "notify_shared", shared)) {
		nla_nest_cancel(msg, t);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, t);
	return 0;
}

/* IB_ACCESS_* as rdma-core spells them, comma-separated ("-": none) */
static void access_str(int access, char *buf, size_t len)
{
	static const struct { int bit; const char *name; } names[] = {
		{ IB_ACCESS_LOCAL_WRITE, "lw" },
		{ IB_ACCESS_REMOTE_WRITE, "rw" },
		{ IB_ACCESS_REMOTE_READ, "rr" },
		{ IB_ACCESS_REMOTE_ATOMIC, "ra" },
		{ IB_ACCESS_MW_BIND, "mw" },
		{ IB_ZERO_BASED, "zb" },
		{ IB_ACCESS_ON_DEMAND, "odp" },
	};
	size_t n = 0;
	u32 i;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(names) && n < len; i++)
		if (access & names[i].bit)
			n += scnprintf(buf + n, len - n, "%s%s", n ? "," : "",
				       names[i].name);
	if (!n)
		strscpy(buf, "-", len);
}

int mroce_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	static const char * const types[] = {
		[MROCE_MR_USER] = "user", [MROCE_MR_DMA] = "dma",
		[MROCE_MR_FRWR] = "frwr", [MROCE_MR_DMABUF] = "dmabuf",
	};
	/* fixed once registered; an FRWR MR's as of its last REG_MR */
	const struct mroce_mr *mr = to_mroce_mr(ibmr);
	struct nlattr *t;
	char access[32];

	access_str(READ_ONCE(mr->access), access, sizeof(access));
	t = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!t)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_string(msg, "type", types[mr->type]) ||
	    rdma_nl_put_driver_u64_hex(msg, "iova", READ_ONCE(mr->iova)) ||
	    rdma_nl_put_driver_string(msg, "access", access) ||
	    rdma_nl_put_driver_u64(msg, "pages",
				   mr->umem ? ib_umem_num_pages(mr->umem) :
				   READ_ONCE(mr->npages))) {
		nla_nest_cancel(msg, t);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, t);
	return 0;
}
