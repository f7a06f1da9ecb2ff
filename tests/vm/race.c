// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Race stress for the guest: verbs calls that the kernel runs at once.
 *
 *	mroce-race doorbell DEV GIDX SECS ADDR...
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
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	*step = 3;
	if (ibv_modify_qp(r->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		return errno;
	return 0;
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

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 6 && !strcmp(argv[1], "doorbell"))
		return race_doorbell(argv[2], atoi(argv[3]), atof(argv[4]),
				     argv + 5, argc - 5);
	fprintf(stderr, "usage: %s doorbell DEV GIDX SECS ADDR...\n", argv[0]);
	return 2;
}
