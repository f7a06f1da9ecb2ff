// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmroce-ep: memory regions, QPs and posting work (mroce-ep.h).
 */
#include "mep.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

int mep_reg_mr(struct mep *ep, void *base, size_t len, unsigned access,
	       uint32_t *key)
{
	struct mep_mr *m = NULL;
	u32 i, k;

	if (!base || !len || len > UINT32_MAX ||
	    (uintptr_t)base > UINTPTR_MAX - len)
		return -EINVAL;
	for (i = 0; i < MEP_MAX_MRS && !m; i++)
		if (!ep->mrs[i].key)
			m = &ep->mrs[i];
	if (!m)
		return -ENOSPC;
	/* a random key, not 0, not in use: a guessed rkey finds nothing */
	do {
		k = (u32)mep_rand(&ep->rng);
		for (i = 0; i < MEP_MAX_MRS && k; i++)
			if (ep->mrs[i].key == k)
				k = 0;
	} while (!k);
	m->base = base;
	m->len = len;
	m->access = access;
	m->key = k;
	*key = k;
	return 0;
}

int mep_dereg_mr(struct mep *ep, uint32_t key)
{
	u32 i;

	for (i = 0; key && i < MEP_MAX_MRS; i++) {
		if (ep->mrs[i].key == key) {
			memset(&ep->mrs[i], 0, sizeof(ep->mrs[i]));
			return 0;
		}
	}
	return -ENOENT;
}

struct mep_qp *mep_qp_create(struct mep *ep)
{
	struct mep_qp *qp;
	u32 i;

	for (i = 0; i < MEP_MAX_QPS; i++)
		if (!ep->qps[i])
			break;
	if (i == MEP_MAX_QPS)
		return NULL;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	qp->ep = ep;
	qp->qpn = ep->next_qpn++ & 0xffffff;
	ep->qps[i] = qp;
	return qp;
}

uint32_t mep_qp_num(const struct mep_qp *qp)
{
	return qp->qpn;
}

static int resolve(const char *host, uint16_t port, struct sockaddr_in *sa)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_DGRAM };
	struct addrinfo *res;

	if (getaddrinfo(host, NULL, &hints, &res) || !res)
		return -EHOSTUNREACH;
	memcpy(sa, res->ai_addr, sizeof(*sa));
	sa->sin_port = htons(port);
	freeaddrinfo(res);
	return 0;
}

int mep_qp_connect(struct mep_qp *qp, const char *host, uint16_t port,
		   uint32_t remote_qpn, uint32_t mtu)
{
	struct mre_stream_attr a = {
		.id = qp->qpn, .remote_id = remote_qpn,
		.mtu = mtu ? mtu : MRE_MAX_PAYLOAD, .max_rd = 16,
		.rnr_retry = 7, .retry = 7, .rnr_delay_ns = 20000,
	};
	struct sockaddr_in sa;
	struct mre_addr name;
	struct mep_peer *p;
	int r;

	if (qp->attached || qp->flushed)
		return -EISCONN;
	if (a.mtu < 256 || a.mtu > MRE_MAX_PAYLOAD)
		return -EINVAL;
	r = resolve(host, qp->ep->node ? 0 : port, &sa);
	if (r)
		return r;
	name = mep_name(qp->ep, &sa);
	p = mep_peer_get(qp->ep, &name, true);
	if (!p)
		return -ENOSPC;
	mre_stream_attach(&qp->s, p->c, &a);
	qp->attached = true;
	/* a connection that failed opens again, under a new id */
	if (p->c->state == MRE_CONN_FAILED)
		mre_conn_connect(p->c, mep_now());
	return 0;
}

void mep_qp_destroy(struct mep_qp *qp)
{
	struct mep *ep = qp->ep;
	u32 i;

	if (qp->attached)
		mre_stream_detach(&qp->s);
	for (i = 0; i < MEP_MAX_QPS; i++)
		if (ep->qps[i] == qp)
			ep->qps[i] = NULL;
	free(qp);
}

static int post(struct mep_qp *qp, const struct mre_wqe *w, void *buf,
		uint64_t wr_id)
{
	struct mep_swqe *sw;

	if (qp->fatal || qp->flushed)
		return -EIO;
	if (!qp->attached)
		return -ENOTCONN;
	if (qp->sq_posted - qp->sq_done >= MEP_SQ)
		return -EAGAIN;
	sw = &qp->sq[qp->sq_posted % MEP_SQ];
	sw->w = *w;
	sw->buf = buf;
	sw->wr_id = wr_id;
	qp->sq_posted++;
	mre_stream_kick(&qp->s);
	return 0;
}

int mep_post_write(struct mep_qp *qp, uint64_t wr_id, const void *buf,
		   uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct mre_wqe w = { .op = MRE_OP_WRITE, .len = len, .rkey = rkey,
			     .raddr = raddr };

	if (len && !buf)
		return -EINVAL;
	return post(qp, &w, (void *)buf, wr_id);
}

int mep_post_read(struct mep_qp *qp, uint64_t wr_id, void *buf, uint32_t len,
		  uint64_t raddr, uint32_t rkey)
{
	struct mre_wqe w = { .op = MRE_OP_READ_REQ, .len = len, .rkey = rkey,
			     .raddr = raddr };

	if (len && !buf)
		return -EINVAL;
	return post(qp, &w, buf, wr_id);
}

int mep_post_send(struct mep_qp *qp, uint64_t wr_id, const void *buf,
		  uint32_t len)
{
	struct mre_wqe w = { .op = MRE_OP_SEND, .len = len };

	if (len && !buf)
		return -EINVAL;
	return post(qp, &w, (void *)buf, wr_id);
}

int mep_post_atomic(struct mep_qp *qp, uint64_t wr_id, uint64_t *orig,
		    uint64_t raddr, uint32_t rkey, int cmp_swap,
		    uint64_t compare, uint64_t add)
{
	struct mre_wqe w = {
		.op = MRE_OP_ATOMIC_REQ, .len = 8, .rkey = rkey, .raddr = raddr,
		.aop = cmp_swap ? MRE_AOP_CMP_SWP : MRE_AOP_FETCH_ADD,
		.swap_add = add, .compare = compare,
	};

	if (!orig || raddr & 7)
		return -EINVAL;
	return post(qp, &w, orig, wr_id);
}

int mep_post_recv(struct mep_qp *qp, uint64_t wr_id, void *buf, uint32_t len)
{
	struct mep_rwqe *r;

	if (qp->fatal || qp->flushed)
		return -EIO;
	if (len && !buf)
		return -EINVAL;
	if (qp->rq_posted - qp->rq_done >= MEP_RQ)
		return -EAGAIN;
	r = &qp->rq[qp->rq_posted % MEP_RQ];
	r->buf = buf;
	r->len = len;
	r->wr_id = wr_id;
	qp->rq_posted++;
	return 0;
}
