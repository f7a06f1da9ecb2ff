// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Race stress for the guest: verbs calls that the kernel runs at once.
 *
 *	mroce-race doorbell DEV GIDX SECS ADDR...
 *	mroce-race mr|destroy|traffic CDEV CGIDX SDEV SGIDX SECS
 *
 * One RC QP of DEV. A thread rings its SQ doorbell (the provider's empty
 * POST_SEND, written here directly) as fast as it can, with a WRITE posted
 * now and then so that the stream has work; the main thread meanwhile
 * cycles the QP RESET -> INIT -> RTR -> RTS, each RTR to the next ADDR
 * (IPv4 or IPv6 of nodes that need not exist). In 6.1 POST_SEND and
 * MODIFY_QP hold the QP's uobject shared, so the doorbell meets every
 * step of modify_qp: the peer it kicks may be swapped, and with more ADDRs
 * than the module's max_peers the old peer is reclaimed at once. Prints
 * "race doorbell: N cycles, N doorbells, ..." and exits 0 when every call
 * behaved (an RTR may fail with ENOMEM when max_peers are in use: counted,
 * not a failure). What the kernel did wrong shows in its log (the caller
 * checks it; a debug kernel turns a use-after-free or a list corrupted
 * under the wrong lock into a report).
 *
 * The other three run an RC pair between two devices (CDEV requests,
 * SDEV responds), WRITEs and READs of 4-64 KiB, 16 in flight:
 *   mr       meanwhile a thread deregisters and registers the target MR,
 *            re-registers it onto another buffer and without its remote
 *            rights, binds a type 2 window over it and invalidates it,
 *            and swaps the requester's own sink MR; the pair fails on
 *            the errors that causes and is connected again.
 *   destroy  a pair is connected, given 16 operations and destroyed
 *            0-20 ms later, one QP then the other, in both orders; with
 *            loss on the link (the caller's netem) its timers are armed.
 *   traffic  only the operations, until SECS or until a device goes
 *            away (the caller deletes the link or unloads the module).
 * Each prints "race NAME: ..." and exits 0 when every call behaved.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "tap.h"

struct rig {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	uint8_t *buf;
	int gidx;
	atomic_int stop;
	atomic_ulong bells, bell_err, posts;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* the provider's doorbell: POST_SEND with no WR (provider/post.c) */
static int doorbell(struct rig *r)
{
	struct ib_uverbs_post_send_resp resp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send core;
	} cmd = {
		.hdr = {
			.command = IB_USER_VERBS_CMD_POST_SEND,
			.in_words = sizeof(cmd) / 4,
			.out_words = sizeof(resp) / 4,
		},
		.core = {
			.response = (uintptr_t)&resp,
			.qp_handle = r->qp->handle,
			.wqe_size = sizeof(struct ib_uverbs_send_wr),
		},
	};

	return write(r->ctx->cmd_fd, &cmd, sizeof(cmd)) == sizeof(cmd) ?
	       0 : errno;
}

static void *bell_thread(void *arg)
{
	struct rig *r = arg;
	struct ibv_sge sge = { .addr = (uintptr_t)r->buf, .length = 64,
			       .lkey = r->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { .remote_addr = 0x1000, .rkey = 0x1234 },
	}, *bad;
	struct ibv_wc wc[16];
	unsigned long n = 0;

	while (!atomic_load(&r->stop)) {
		/* a WRITE now and then (fails while the QP is not RTS) */
		if (!(n++ % 64) && !ibv_post_send(r->qp, &wr, &bad))
			atomic_fetch_add(&r->posts, 1);
		if (doorbell(r))
			atomic_fetch_add(&r->bell_err, 1);
		atomic_fetch_add(&r->bells, 1);
		while (ibv_poll_cq(r->cq, 16, wc) > 0)
			;
	}
	return NULL;
}

/* RESET, INIT, RTR to @dgid, RTS: 0, or the errno of the step that failed */
static int cycle(struct rig *r, const union ibv_gid *dgid, int *step)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	int e;

	*step = 0;
	if (ibv_modify_qp(r->qp, &a, IBV_QP_STATE))
		return errno;
	e = tap_rc_rtr(r->qp, r->gidx, dgid, step);
	if (e)
		return e;
	*step = 3;
	return tap_rc_rts(r->qp);
}

static int race_doorbell(const char *dev, int gidx, double secs,
			 char **addrs, int naddrs)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	unsigned long cycles = 0, nomem = 0, bad = 0;
	union ibv_gid *gids = calloc(naddrs, sizeof(*gids));
	struct rig r = { .gidx = gidx };
	pthread_t t;
	double end;
	int i, e, step;

	if (!gids)
		die("calloc");
	for (i = 0; i < naddrs; i++)
		if (tap_gid(addrs[i], &gids[i]))
			die(addrs[i]);
	r.ctx = open_named(dev);
	r.pd = ibv_alloc_pd(r.ctx);
	r.cq = ibv_create_cq(r.ctx, 64, NULL, NULL, 0);
	r.buf = aligned_alloc(4096, 4096);
	if (!r.pd || !r.cq || !r.buf)
		die("PD, CQ or buffer");
	r.mr = ibv_reg_mr(r.pd, r.buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	qa.send_cq = qa.recv_cq = r.cq;
	r.qp = r.mr ? ibv_create_qp(r.pd, &qa) : NULL;
	if (!r.qp)
		die("MR or QP");
	if (pthread_create(&t, NULL, bell_thread, &r))
		die("pthread_create");
	end = now_s() + secs;
	for (i = 0; now_s() < end; i = (i + 1) % naddrs) {
		e = cycle(&r, &gids[i], &step);
		cycles++;
		if (e == ENOMEM && step == 2) {
			nomem++;	/* max_peers in use */
		} else if (e) {
			if (bad++ < 5)
				printf("#   cycle %lu to %s: step %d: %s\n",
				       cycles, addrs[i], step, strerror(e));
		}
	}
	atomic_store(&r.stop, 1);
	pthread_join(t, NULL);
	printf("race doorbell: %lu cycles over %d addresses, %lu doorbells (%lu refused), %lu WRITEs posted, %lu RTRs refused with ENOMEM, %lu other failures, in %.1f s\n",
	       cycles, naddrs, atomic_load(&r.bells), atomic_load(&r.bell_err),
	       atomic_load(&r.posts), nomem, bad, secs);
	if (ibv_destroy_qp(r.qp) || ibv_dereg_mr(r.mr) ||
	    ibv_destroy_cq(r.cq) || ibv_dealloc_pd(r.pd))
		die("teardown");
	ibv_close_device(r.ctx);
	free(gids);
	free(r.buf);
	return bad || !cycles ? 1 : 0;
}

/* ---- two devices, one RC pair ---------------------------------------- */

#define TGT	(128 * 1024)	/* the responder's target region */
#define LBUF	(64 * 1024)	/* the requester's buffer */
#define DEPTH	16		/* operations in flight */
#define STALL_S	30		/* an operation not completed by then: a bug */
#define REMOTE	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)
#define RIGHTS	(IBV_ACCESS_LOCAL_WRITE | REMOTE | IBV_ACCESS_MW_BIND)

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	union ibv_gid gid;
	int gidx;
	enum ibv_mtu mtu;
};

struct pair {
	struct side c, s;		/* requester, responder */
	uint8_t *lbuf, *tbuf[2];	/* requester's buffer; the targets */
	struct ibv_mr *lmr, *tmr;	/* churned by the churn thread */
	atomic_uint lkey, rkey;		/* what the requester uses next */
	atomic_ulong raddr;
	atomic_int stop;
	/* the requester's */
	unsigned long ok, err, recovers, stalls, post_err, st[32];
	unsigned long stale;		/* a QP failed while being connected */
	/* the churn thread's: per kind, and calls that failed */
	unsigned long churn[5], churn_err;
};

static struct ibv_qp *rc_qp(struct side *s, struct ibv_cq *cq, int bind)
{
	struct ibv_qp_init_attr_ex qa = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = s->pd,
	};

	if (bind) {
		qa.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		qa.send_ops_flags = IBV_QP_EX_WITH_BIND_MW |
				    IBV_QP_EX_WITH_LOCAL_INV;
	}
	return ibv_create_qp_ex(s->ctx, &qa);
}

static void side_open(struct side *s, const char *dev, int gidx)
{
	struct ibv_port_attr port;

	s->ctx = open_named(dev);
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 4 * DEPTH, NULL, NULL, 0);
	if (!s->pd || !s->cq)
		die("PD or CQ");
	if (ibv_query_port(s->ctx, 1, &port) ||
	    ibv_query_gid(s->ctx, 1, gidx, &s->gid))
		die("port or GID");
	s->gidx = gidx;
	s->mtu = port.active_mtu;
	s->qp = rc_qp(s, s->cq, 0);
	if (!s->qp)
		die("QP");
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	return ibv_query_qp(qp, &a, IBV_QP_STATE, &ia) ? -1 : (int)a.qp_state;
}

/* @qa of @a and @qb of @b to RESET, then connected to each other: 0 or errno */
static int pair_connect(struct ibv_qp *qa, struct side *a,
			struct ibv_qp *qb, struct side *b)
{
	static const char *const what[] = {
		"RESET a", "RESET b", "INIT a", "RTR a", "INIT b", "RTR b",
		"RTS a", "RTS b",
	};
	struct ibv_qp_attr r = { .qp_state = IBV_QPS_RESET };
	int step = 0, k = 0, e = 0;

	if (ibv_modify_qp(qa, &r, IBV_QP_STATE))
		e = errno ? errno : EIO;
	if (!e && (k = 1, ibv_modify_qp(qb, &r, IBV_QP_STATE)))
		e = errno ? errno : EIO;
	if (!e) {
		e = tap_rc_init_rtr(qa, a->gidx, &b->gid, qb->qp_num, a->mtu,
				    REMOTE, &step);
		k = 1 + step;
	}
	if (!e) {
		e = tap_rc_init_rtr(qb, b->gidx, &a->gid, qa->qp_num, b->mtu,
				    REMOTE, &step);
		k = 3 + step;
	}
	if (!e) {
		k = 6;
		e = tap_rc_rts(qa);
	}
	if (!e) {
		k = 7;
		e = tap_rc_rts(qb);
	}
	if (e)
		printf("#   %s (QP %#x, %#x) failed: %s; states now %d, %d\n",
		       what[k], qa->qp_num, qb->qp_num, strerror(e),
		       qp_state(qa), qp_state(qb));
	return e;
}

static void publish(struct pair *p, const uint8_t *addr, uint32_t rkey)
{
	atomic_store(&p->raddr, (uintptr_t)addr);
	atomic_store(&p->rkey, rkey);
}

/* both devices, buffers, MRs and the pair connected */
static void pair_open(struct pair *p, char **argv)
{
	side_open(&p->c, argv[0], atoi(argv[1]));
	side_open(&p->s, argv[2], atoi(argv[3]));
	p->lbuf = aligned_alloc(4096, LBUF);
	p->tbuf[0] = aligned_alloc(4096, TGT);
	p->tbuf[1] = aligned_alloc(4096, TGT);
	if (!p->lbuf || !p->tbuf[0] || !p->tbuf[1])
		die("buffers");
	p->lmr = ibv_reg_mr(p->c.pd, p->lbuf, LBUF, IBV_ACCESS_LOCAL_WRITE);
	p->tmr = ibv_reg_mr(p->s.pd, p->tbuf[0], TGT, RIGHTS);
	if (!p->lmr || !p->tmr)
		die("MRs");
	atomic_store(&p->lkey, p->lmr->lkey);
	publish(p, p->tbuf[0], p->tmr->rkey);
	errno = pair_connect(p->c.qp, &p->c, p->s.qp, &p->s);
	if (errno)
		die("connect");
}

/* the device of @s is gone (disassociated: every command refused) */
static int side_gone(struct side *s)
{
	struct ibv_port_attr port;

	return ibv_query_port(s->ctx, 1, &port) != 0;
}

/* a WRITE or READ of 4-64 KiB at a random offset of the target: 0, or errno */
static int post_op(struct pair *p, uint64_t wr_id, unsigned int *seed)
{
	uint32_t len = 4096u << (rand_r(seed) % 5);
	uint64_t roff = (uint64_t)(rand_r(seed) % ((TGT - len) / 4096 + 1)) * 4096;
	uint64_t loff = (uint64_t)(rand_r(seed) % ((LBUF - len) / 4096 + 1)) * 4096;
	struct ibv_sge sge = {
		.addr = (uintptr_t)p->lbuf + loff, .length = len,
		.lkey = atomic_load(&p->lkey),
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = rand_r(seed) & 1 ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = atomic_load(&p->raddr) + roff,
			     .rkey = atomic_load(&p->rkey) },
	}, *bad;

	return ibv_post_send(p->c.qp, &wr, &bad);
}

/*
 * The requester: WRITEs and READs to the published target, DEPTH in
 * flight, for @secs. An error completion (the target or the sink went)
 * fails the pair: when the rest has flushed, both QPs are reset and
 * connected again (a new generation in wr_id; the older completions are
 * ignored). An operation that does not complete within STALL_S is a bug.
 * With @gone_ok a device that goes away (rdma link delete, rmmod: every
 * command refused) ends the run. 0 when everything behaved.
 */
static int requester(struct pair *p, double secs, int gone_ok)
{
	double end = now_s() + secs, last = now_s(), looked = 0;
	unsigned int seed = 1, inflight = 0;
	uint64_t gen = 1, seq = 0;
	struct ibv_wc wc[DEPTH];
	int failed = 0, n, i, e;

	while (now_s() < end) {
		while (!failed && inflight < DEPTH) {
			if (post_op(p, gen << 32 | seq++, &seed)) {
				p->post_err++;
				failed = 1;
				break;
			}
			inflight++;
		}
		n = ibv_poll_cq(p->c.cq, DEPTH, wc);
		for (i = 0; i < n; i++) {
			if (wc[i].wr_id >> 32 != gen)
				continue;
			inflight--;
			last = now_s();
			if (wc[i].status == IBV_WC_SUCCESS) {
				p->ok++;
				continue;
			}
			p->err++;
			p->st[wc[i].status < 32 ? wc[i].status : 31]++;
			failed = 1;
		}
		if (now_s() - last > 2 && now_s() - looked > 1) {
			looked = now_s();	/* quiet: is a device gone? */
			if (side_gone(&p->c) || side_gone(&p->s))
				return gone_ok ? 0 : 1;
		}
		if (inflight && now_s() - last > STALL_S) {
			printf("#   %u operations not completed in %d s\n",
			       inflight, STALL_S);
			p->stalls++;
			inflight = 0;
			failed = 1;
		}
		if (!failed || (inflight && now_s() - last < 2))
			continue;
		/*
		 * A request of the pair's previous life may still reach the
		 * responder after both were reset (the stream ids are the QP
		 * numbers, and mroce, like a device with equal PSNs, cannot
		 * tell lives apart), fail its new stream and put it in ERR
		 * before RTS: counted, and connected once more.
		 */
		e = pair_connect(p->c.qp, &p->c, p->s.qp, &p->s);
		for (i = 0; e == EINVAL && i < 3 &&
		     (qp_state(p->c.qp) == IBV_QPS_ERR ||
		      qp_state(p->s.qp) == IBV_QPS_ERR); i++) {
			p->stale++;
			e = pair_connect(p->c.qp, &p->c, p->s.qp, &p->s);
		}
		if (e && (side_gone(&p->c) || side_gone(&p->s)))
			return gone_ok ? 0 : 1;
		if (e) {
			printf("#   connecting the pair again: %s\n", strerror(e));
			return 1;
		}
		p->recovers++;
		gen++;
		inflight = 0;
		failed = 0;
		last = now_s();
	}
	return p->stalls ? 1 : 0;
}

/* one work request on bind QP @x; its completion status on @cq, or -1 */
static int bind_wr(struct ibv_qp_ex *x, struct ibv_cq *cq, struct ibv_mw *mw,
		   uint32_t rkey, const struct ibv_mw_bind_info *bi)
{
	double end = now_s() + STALL_S;
	struct ibv_wc wc;

	ibv_wr_start(x);
	x->wr_id = rkey;
	x->wr_flags = IBV_SEND_SIGNALED;
	if (bi)
		ibv_wr_bind_mw(x, mw, rkey, bi);
	else
		ibv_wr_local_inv(x, rkey);
	if (ibv_wr_complete(x))
		return -1;
	while (now_s() < end)
		if (ibv_poll_cq(cq, 1, &wc) == 1)
			return wc.status;
	return -1;
}

struct churn {
	struct pair *p;
	struct ibv_qp *bq_c, *bq_s;	/* a pair for binds and invalidates */
	struct ibv_cq *bcq;
	struct ibv_mw *mw;
	uint32_t mwkey;
	int cur;			/* the target buffer the MR maps */
};

static void churn_bad(struct churn *k, const char *what)
{
	if (k->p->churn_err++ < 5)
		printf("#   churn: %s: %s\n", what, strerror(errno));
}

/* a type 2 window bound over the target, used a while, invalidated */
static void churn_window(struct churn *k, unsigned int *seed)
{
	struct pair *p = k->p;
	struct ibv_mw_bind_info bi = {
		.mr = p->tmr, .addr = (uintptr_t)p->tbuf[k->cur], .length = TGT,
		.mw_access_flags = REMOTE,
	};
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(k->bq_s);

	k->mwkey = ibv_inc_rkey(k->mwkey);
	if (bind_wr(x, k->bcq, k->mw, k->mwkey, &bi)) {
		churn_bad(k, "bind");
		errno = pair_connect(k->bq_s, &p->s, k->bq_c, &p->c);
		if (errno)
			churn_bad(k, "bind pair");
		return;
	}
	publish(p, p->tbuf[k->cur], k->mwkey);
	usleep(rand_r(seed) % 5000);
	if (bind_wr(x, k->bcq, k->mw, k->mwkey, NULL))
		churn_bad(k, "local invalidate");
	publish(p, p->tbuf[k->cur], p->tmr->rkey);
}

/*
 * The responder's target (and the requester's sink) changed under the
 * operations in flight, one of five ways in turn, until told to stop
 */
static void *churn_thread(void *arg)
{
	struct churn *k = arg;
	struct pair *p = k->p;
	unsigned int seed = 7;
	unsigned long i;

	for (i = 0; !atomic_load(&p->stop); i++) {
		switch (i % 5) {
		case 0:	/* deregistered, registered again: a new rkey */
			if (ibv_dereg_mr(p->tmr)) {
				churn_bad(k, "dereg");
				break;
			}
			p->tmr = ibv_reg_mr(p->s.pd, p->tbuf[k->cur], TGT, RIGHTS);
			if (!p->tmr) {
				churn_bad(k, "reg");
				atomic_store(&p->stop, 1);
				return NULL;
			}
			publish(p, p->tbuf[k->cur], p->tmr->rkey);
			break;
		case 1:	/* re-registered onto the other buffer */
			k->cur ^= 1;
			if (ibv_rereg_mr(p->tmr, IBV_REREG_MR_CHANGE_TRANSLATION,
					 NULL, p->tbuf[k->cur], TGT, 0))
				churn_bad(k, "rereg translation");
			publish(p, p->tbuf[k->cur], p->tmr->rkey);
			break;
		case 2:	/* the remote rights taken away a while */
			if (ibv_rereg_mr(p->tmr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
					 NULL, 0, IBV_ACCESS_LOCAL_WRITE |
					 IBV_ACCESS_MW_BIND))
				churn_bad(k, "rereg access");
			usleep(rand_r(&seed) % 5000);
			if (ibv_rereg_mr(p->tmr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
					 NULL, 0, RIGHTS))
				churn_bad(k, "rereg access back");
			publish(p, p->tbuf[k->cur], p->tmr->rkey);
			break;
		case 3:
			churn_window(k, &seed);
			break;
		case 4:	/* the requester's sink deregistered and back */
			if (ibv_dereg_mr(p->lmr)) {
				churn_bad(k, "dereg sink");
				break;
			}
			p->lmr = ibv_reg_mr(p->c.pd, p->lbuf, LBUF,
					    IBV_ACCESS_LOCAL_WRITE);
			if (!p->lmr) {
				churn_bad(k, "reg sink");
				atomic_store(&p->stop, 1);
				return NULL;
			}
			atomic_store(&p->lkey, p->lmr->lkey);
			break;
		}
		p->churn[i % 5]++;
		usleep(rand_r(&seed) % 2000);
	}
	return NULL;
}

static void pair_report(struct pair *p, const char *what, double secs)
{
	int i;

	printf("race %s: %lu operations completed, %lu failed (", what, p->ok,
	       p->err);
	for (i = 0; i < 32; i++)
		if (p->st[i])
			printf(" %s %lu", ibv_wc_status_str(i), p->st[i]);
	printf(" ), %lu reconnects (%lu again: a QP failed meanwhile), %lu stalls, %lu posts refused, in %.1f s\n",
	       p->recovers, p->stale, p->stalls, p->post_err, secs);
}

/* the pair's objects given back; the calls may fail on a device gone */
static int pair_close(struct pair *p, int gone_ok)
{
	int e = 0;

	e |= ibv_destroy_qp(p->c.qp) | ibv_destroy_qp(p->s.qp);
	e |= (p->lmr ? ibv_dereg_mr(p->lmr) : 0) |
	     (p->tmr ? ibv_dereg_mr(p->tmr) : 0);
	e |= ibv_destroy_cq(p->c.cq) | ibv_destroy_cq(p->s.cq);
	e |= ibv_dealloc_pd(p->c.pd) | ibv_dealloc_pd(p->s.pd);
	ibv_close_device(p->c.ctx);
	ibv_close_device(p->s.ctx);
	free(p->lbuf);
	free(p->tbuf[0]);
	free(p->tbuf[1]);
	return e && !gone_ok;
}

/*
 * mr: placement in flight against the MRs it lands in: the requester's
 * WRITEs and READs while the churn thread deregisters, re-registers
 * (translation, rights), binds and invalidates windows, and swaps the
 * requester's own sink
 */
static int race_mr(char **argv, double secs)
{
	struct pair p = { 0 };
	struct churn k = { .p = &p };
	pthread_t t;
	int rc, i;

	pair_open(&p, argv);
	k.bcq = ibv_create_cq(p.s.ctx, 4, NULL, NULL, 0);
	k.bq_s = k.bcq ? rc_qp(&p.s, k.bcq, 1) : NULL;
	k.bq_c = rc_qp(&p.c, p.c.cq, 0);
	k.mw = ibv_alloc_mw(p.s.pd, IBV_MW_TYPE_2);
	if (!k.bq_s || !k.bq_c || !k.mw)
		die("bind QPs or window");
	k.mwkey = k.mw->rkey;
	errno = pair_connect(k.bq_s, &p.s, k.bq_c, &p.c);
	if (errno)
		die("bind pair");
	if (pthread_create(&t, NULL, churn_thread, &k))
		die("pthread_create");
	rc = requester(&p, secs, 0);
	atomic_store(&p.stop, 1);
	pthread_join(t, NULL);
	pair_report(&p, "mr", secs);
	printf("race mr: churned: %lu dereg+reg, %lu rereg translation, %lu rereg rights, %lu windows, %lu sink dereg+reg; %lu calls failed\n",
	       p.churn[0], p.churn[1], p.churn[2], p.churn[3], p.churn[4],
	       p.churn_err);
	for (i = 0; i < 5; i++)
		rc |= !p.churn[i];
	if (ibv_destroy_qp(k.bq_s) || ibv_destroy_qp(k.bq_c) ||
	    ibv_dealloc_mw(k.mw) || ibv_destroy_cq(k.bcq))
		die("bind teardown");
	rc |= pair_close(&p, 0);
	return rc || p.churn_err || !p.ok || !p.err;
}

/*
 * destroy: QPs destroyed against the transport's timers. A pair is
 * created, connected and given DEPTH operations (with the caller's netem
 * loss, retransmissions and probes are timed); 0-20 ms later one QP, then
 * the other, is destroyed, in either order, operations still in flight.
 */
static int race_destroy(char **argv, double secs)
{
	struct pair p = { 0 };
	double end = now_s() + secs;
	unsigned long cycles = 0, posted = 0, done = 0;
	unsigned int seed = 3, i;
	struct ibv_wc wc[DEPTH];
	int n;

	pair_open(&p, argv);
	while (now_s() < end) {
		for (i = 0; i < DEPTH && !post_op(&p, i, &seed); i++)
			posted++;
		usleep(rand_r(&seed) % 20000);
		while ((n = ibv_poll_cq(p.c.cq, DEPTH, wc)) > 0)
			done += n;
		if (cycles & 1 ? ibv_destroy_qp(p.s.qp) || ibv_destroy_qp(p.c.qp) :
				 ibv_destroy_qp(p.c.qp) || ibv_destroy_qp(p.s.qp))
			die("destroy QP");
		while (ibv_poll_cq(p.c.cq, DEPTH, wc) > 0 ||
		       ibv_poll_cq(p.s.cq, DEPTH, wc) > 0)
			;
		cycles++;
		p.c.qp = rc_qp(&p.c, p.c.cq, 0);
		p.s.qp = rc_qp(&p.s, p.s.cq, 0);
		if (!p.c.qp || !p.s.qp)
			die("create QP");
		errno = pair_connect(p.c.qp, &p.c, p.s.qp, &p.s);
		if (errno)
			die("connect");
	}
	printf("race destroy: %lu pairs destroyed with operations in flight, %lu operations posted, %lu completed before, in %.1f s\n",
	       cycles, posted, done, secs);
	return pair_close(&p, 0) || !cycles;
}

/*
 * traffic: the requester alone, until @secs or its devices go away
 * (rdma link delete, rmmod): exit 0 either way once every call behaved
 */
static int race_traffic(char **argv, double secs)
{
	struct pair p = { 0 };
	int rc, gone;

	double t0;

	pair_open(&p, argv);
	printf("race traffic: connected\n");
	t0 = now_s();
	rc = requester(&p, secs, 1);
	gone = side_gone(&p.c) || side_gone(&p.s);
	pair_report(&p, gone ? "traffic (a device went away)" : "traffic",
		    now_s() - t0);
	return pair_close(&p, gone) | rc | !p.ok;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 6 && !strcmp(argv[1], "doorbell"))
		return race_doorbell(argv[2], atoi(argv[3]), atof(argv[4]),
				     argv + 5, argc - 5);
	if (argc == 7 && !strcmp(argv[1], "mr"))
		return race_mr(argv + 2, atof(argv[6]));
	if (argc == 7 && !strcmp(argv[1], "destroy"))
		return race_destroy(argv + 2, atof(argv[6]));
	if (argc == 7 && !strcmp(argv[1], "traffic"))
		return race_traffic(argv + 2, atof(argv[6]));
	fprintf(stderr, "usage: %s doorbell DEV GIDX SECS ADDR...\n"
		"       %s mr|destroy|traffic CDEV CGIDX SDEV SGIDX SECS\n",
		argv[0], argv[0]);
	return 2;
}
