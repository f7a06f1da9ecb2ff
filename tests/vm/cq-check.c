// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce-cq-check: ibv_resize_cq and the extended CQ (ibv_create_cq_ex,
 * ibv_cq_ex polling) on one device, with a UD QP that sends to itself.
 * Built by `make tools` into build/tests/, run in the guest
 * (tests/vm/cq-check.sh).
 *
 *	mroce-cq-check DEV GIDX
 *
 * What pyverbs does not look at: the CQEs not polled before a resize are
 * all there afterwards, in order, whether the CQ grew or shrank, was full
 * or had wrapped; a resize below the CQEs outstanding fails with EINVAL and
 * changes nothing; a resize while another thread keeps producing loses or
 * duplicates no completion (send CQ: the doorbell's system call; receive
 * CQ: the network path); the ibv_cq_ex readers return the CQE's fields;
 * what the extended CQ refuses, and with which errno; the kernel's
 * POLL_CQ command, which uverbs offers to every driver with a poll_cq, is
 * refused on a user CQ (its ring is the process's memory). Prints
 * "ok"/"not ok" per check, then "N passed, N failed"; exit 1 on any
 * failure, 2 when setup fails.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "tap.h"

#define QKEY	0x11111111u
#define GRH	40
#define MSG	64
#define SLOT	(GRH + MSG)	/* one receive buffer */
#define NRECV	256
#define BUF	(2 * 4096 + NRECV * SLOT)
#define TMO_MS	5000

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint8_t *buf;
static union ibv_gid gid;
static int gidx;
static struct ibv_ah *ah;
static struct ibv_device_attr dattr;

static void open_dev(const char *name)
{
	struct ibv_ah_attr aha = { .is_global = 1, .port_num = 1 };

	ctx = open_named(name);
	if (ibv_query_device(ctx, &dattr))
		die("ibv_query_device");
	pd = ibv_alloc_pd(ctx);
	buf = aligned_alloc(4096, BUF);
	if (!pd || !buf)
		die("PD or buffer");
	memset(buf, 0, BUF);
	mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE);
	if (!mr || ibv_query_gid(ctx, 1, gidx, &gid))
		die("MR or GID");
	aha.grh.dgid = gid;
	aha.grh.sgid_index = gidx;
	aha.grh.hop_limit = 1;
	ah = ibv_create_ah(pd, &aha);
	if (!ah)
		die("ibv_create_ah");
}

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000ull + t.tv_nsec / 1000000;
}

static void nap_ms(unsigned int ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

/* a UD QP in RTS sending with @scq, receiving with @rcq */
static struct ibv_qp *ud_qp(struct ibv_cq *scq, struct ibv_cq *rcq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = scq, .recv_cq = rcq,
		.cap = { .max_send_wr = 64, .max_recv_wr = NRECV,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	if (!qp)
		die("ibv_create_qp");
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		die("UD INIT");
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("UD RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("UD RTS");
	return qp;
}

/* one signaled UD send to the QP itself; @imm: with immediate @imm */
static int send1(struct ibv_qp *qp, uint64_t wr_id, int with_imm,
		 uint32_t imm)
{
	struct ibv_sge sge = { (uintptr_t)buf, MSG, mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = with_imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(imm),
		.wr.ud = { .ah = ah, .remote_qpn = qp->qp_num,
			   .remote_qkey = QKEY },
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/*
 * @n sends with wr_id @first.., then a pause: a UD send completes in the
 * doorbell's system call, the pause only makes sure.
 */
static void sends(struct ibv_qp *qp, uint64_t first, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (send1(qp, first + i, 0, 0))
			die("ibv_post_send");
	nap_ms(50);
}

static void post_recv(struct ibv_qp *qp, uint64_t wr_id)
{
	struct ibv_sge sge = {
		(uintptr_t)buf + 8192 + (wr_id % NRECV) * SLOT, SLOT, mr->lkey
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_recv(qp, &wr, &bad))
		die("ibv_post_recv");
}

/* the next @n completions are sends @first.. in order, then none */
static int drain(struct ibv_cq *cq, uint64_t first, int n, const char *what)
{
	uint64_t end = now_ms() + TMO_MS;
	struct ibv_wc wc;
	int got = 0, r;

	while (got < n && now_ms() < end) {
		r = ibv_poll_cq(cq, 1, &wc);
		if (r < 0)
			break;
		if (!r) {
			nap_ms(1);
			continue;
		}
		if (wc.wr_id != first + got || wc.status != IBV_WC_SUCCESS ||
		    wc.opcode != IBV_WC_SEND) {
			printf("#   %s: completion %d: wr_id %llu status %s opcode %d, want wr_id %llu\n",
			       what, got, (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status), wc.opcode,
			       (unsigned long long)(first + got));
			return 0;
		}
		got++;
	}
	if (got < n) {
		printf("#   %s: %d of %d completions\n", what, got, n);
		return 0;
	}
	nap_ms(20);
	if (ibv_poll_cq(cq, 1, &wc)) {
		printf("#   %s: one completion too many (wr_id %llu)\n", what,
		       (unsigned long long)wc.wr_id);
		return 0;
	}
	return 1;
}

static int resize_is(struct ibv_cq *cq, int cqe, int want_err)
{
	int old = cq->cqe, err = ibv_resize_cq(cq, cqe);

	if (err != want_err) {
		printf("#   resize to %d: %s, want %s\n", cqe, strerror(err),
		       strerror(want_err));
		return 0;
	}
	if (err && cq->cqe != old) {
		printf("#   failed resize changed cqe %d -> %d\n", old, cq->cqe);
		return 0;
	}
	if (!err && cq->cqe < cqe) {
		printf("#   resize to %d gave cqe %d\n", cqe, cq->cqe);
		return 0;
	}
	return 1;
}

/* ---- resize with CQEs pending --------------------------------------------- */

static void check_resize(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	struct ibv_cq *rcq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp;
	int ok;

	if (!cq || !rcq)
		die("ibv_create_cq");
	qp = ud_qp(cq, rcq);	/* no receive posted: the datagrams drop */

	sends(qp, 1, 3);
	ok = resize_is(cq, 2, EINVAL) && resize_is(cq, 1, EINVAL);
	check(ok, "3 CQEs outstanding: resize to 2 or 1 is EINVAL, cqe unchanged");
	check(resize_is(cq, 3, 0), "3 CQEs outstanding: resize to 3 works");
	check(resize_is(cq, 64, 0), "3 CQEs outstanding: resize to 64 works");
	sends(qp, 4, 10);
	check(drain(cq, 1, 13, "grown"),
	      "after shrink and grow: the 3 CQEs from before and 10 after, in order, once");

	/* CQEs pending across the ring's end */
	check(resize_is(cq, 8, 0), "empty CQ: resize to 8");
	sends(qp, 100, 6);
	check(drain(cq, 100, 6, "first lap"), "6 completions");
	sends(qp, 200, 5);	/* slots 6, 7, 0, 1, 2 */
	ok = resize_is(cq, 16, 0) && resize_is(cq, 5, 0) &&
	     resize_is(cq, 4, EINVAL);
	check(ok, "5 CQEs pending across the ring's end: resize 16, 5 work, 4 is EINVAL");
	check(drain(cq, 200, 5, "wrapped"),
	      "the 5 wrapped CQEs after two resizes, in order, once");

	/* a full CQ grows: nothing was lost, the new room is there */
	check(resize_is(cq, 4, 0), "empty CQ: resize to 4");
	sends(qp, 300, 4);
	check(resize_is(cq, 8, 0), "full CQ (4 of 4): resize to 8");
	sends(qp, 304, 4);
	check(drain(cq, 300, 8, "full"), "8 completions: 4 from the full CQ, 4 after");

	/* down to one entry */
	check(resize_is(cq, 1, 0), "empty CQ: resize to 1");
	sends(qp, 400, 1);
	check(resize_is(cq, 1, 0), "resize 1 -> 1 with its CQE pending");
	check(resize_is(cq, 2, 0), "resize 1 -> 2 with its CQE pending");
	sends(qp, 401, 1);
	check(drain(cq, 400, 2, "one"), "2 completions after resizes of a 1-entry CQ");

	/* bad sizes */
	ok = resize_is(cq, 0, EINVAL) && resize_is(cq, -1, EINVAL) &&
	     resize_is(cq, dattr.max_cqe + 1, EINVAL);
	sends(qp, 500, 2);
	check(ok && drain(cq, 500, 2, "bad sizes"),
	      "resize to 0, -1, max_cqe + 1: EINVAL, the CQ still works");

	/* req_notify after a resize still reports an event */
	check(!ibv_req_notify_cq(cq, 0), "req_notify_cq after resizes");

	check(!ibv_destroy_qp(qp) && !ibv_destroy_cq(cq) &&
	      !ibv_destroy_cq(rcq), "destroy QP and resized CQs");
}

/* ---- resize while completions keep coming --------------------------------- */

#define RACE_N		20000
#define RACE_WINDOW	48	/* sends not yet polled, at most */

static atomic_uint race_polled;
static atomic_int race_err;
static atomic_bool race_stop;		/* the poller gave up */
static uint8_t race_seen[RACE_N];	/* immediates received */

static void *race_sender(void *arg)
{
	struct ibv_qp *qp = arg;
	unsigned int i;

	for (i = 0; i < RACE_N; i++) {
		while (i - atomic_load(&race_polled) >= RACE_WINDOW &&
		       !atomic_load(&race_stop))
			sched_yield();
		if (atomic_load(&race_stop))
			break;
		if (send1(qp, i, 1, i)) {
			atomic_store(&race_err, errno ? errno : EIO);
			break;
		}
	}
	return NULL;
}

static void check_race(void)
{
	static const int sizes[] = { 64, 256, 50, 1024, 128, 49, 512 };
	struct ibv_cq *scq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	struct ibv_cq *rcq = ibv_create_cq(ctx, 512, NULL, NULL, 0);
	unsigned int sent_ok = 0, rnext = 0, rposted, resizes = 0;
	unsigned int rbad = 0, rresizes = 0, rerr = 0, imm;
	uint64_t t0, end;
	struct ibv_wc wc[16];
	struct ibv_qp *qp;
	pthread_t th;
	int i, n, bad = 0;

	if (!scq || !rcq)
		die("ibv_create_cq");
	qp = ud_qp(scq, rcq);
	for (rposted = 0; rposted < NRECV; rposted++)
		post_recv(qp, rposted);
	atomic_store(&race_polled, 0);
	t0 = now_ms();
	end = t0 + 60000 * tap_scale();
	if (pthread_create(&th, NULL, race_sender, qp))
		die("pthread_create");
	while (sent_ok < RACE_N && !atomic_load(&race_err) && now_ms() < end) {
		n = ibv_poll_cq(scq, 16, wc);
		for (i = 0; i < n; i++) {
			if (wc[i].wr_id != sent_ok ||
			    wc[i].status != IBV_WC_SUCCESS) {
				if (!bad++)
					printf("#   send completion wr_id %llu status %s, want %u\n",
					       (unsigned long long)wc[i].wr_id,
					       ibv_wc_status_str(wc[i].status),
					       sent_ok);
			}
			sent_ok++;
		}
		atomic_store(&race_polled, sent_ok);
		if (n > 0 && sent_ok / 97 != (sent_ok - n) / 97) {
			if (ibv_resize_cq(scq, sizes[resizes % 7]))
				bad++;
			resizes++;
		}
		n = ibv_poll_cq(rcq, 16, wc);
		for (i = 0; i < n; i++) {
			/*
			 * receives complete in the order they were posted,
			 * each datagram once (the loopback may reorder them)
			 */
			imm = ntohl(wc[i].imm_data);
			if (wc[i].wr_id != rnext || wc[i].status ||
			    wc[i].byte_len != SLOT || imm >= RACE_N ||
			    race_seen[imm]++)
				if (!rbad++)
					printf("#   receive wr_id %llu (want %u) status %s len %u imm %u\n",
					       (unsigned long long)wc[i].wr_id,
					       rnext,
					       ibv_wc_status_str(wc[i].status),
					       wc[i].byte_len, imm);
			rnext++;
			post_recv(qp, rposted++);
		}
		/* never below the NRECV receives that may be outstanding */
		if (n > 0 && rnext / 89 != (rnext - n) / 89) {
			if (ibv_resize_cq(rcq, sizes[(rresizes + 3) % 7] * 8))
				rerr++;
			rresizes++;
		}
	}
	atomic_store(&race_stop, true);
	pthread_join(th, NULL);
	/* what is still on its way to the receive CQ */
	for (end = now_ms() + 500; now_ms() < end;) {
		n = ibv_poll_cq(rcq, 16, wc);
		for (i = 0; i < n; i++, rnext++) {
			imm = ntohl(wc[i].imm_data);
			if (wc[i].wr_id != rnext || wc[i].status ||
			    imm >= RACE_N || race_seen[imm]++)
				rbad++;
		}
		if (!n)
			nap_ms(5);
	}
	printf("#   %u sends in %llu ms, %u send CQ resizes; %u received, %u receive CQ resizes\n",
	       sent_ok, (unsigned long long)(now_ms() - t0), resizes, rnext,
	       rresizes);
	check(!atomic_load(&race_err), "sender thread: every post_send worked");
	check(sent_ok == RACE_N && !bad,
	      "send CQ resized every 97 completions under a sending thread: every completion once, in order, no resize failed");
	check(!rbad && !rerr && rnext > 0,
	      "receive CQ resized every 89 completions under arriving datagrams: receives in posted order, no duplicate");
	check(!ibv_destroy_qp(qp) && !ibv_destroy_cq(scq) &&
	      !ibv_destroy_cq(rcq), "destroy QP and CQs");
}

/* ---- the extended CQ ------------------------------------------------------ */

static struct ibv_cq_ex *cqx_new(uint32_t cqe, uint64_t wc_flags,
				 uint32_t comp_mask, uint32_t flags)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = cqe, .wc_flags = wc_flags, .comp_mask = comp_mask,
		.flags = flags,
	};

	errno = 0;
	return ibv_create_cq_ex(ctx, &a);
}

static void cqx_fails(uint64_t wc_flags, uint32_t comp_mask, uint32_t flags,
		      uint32_t cqe, int want, const char *what)
{
	struct ibv_cq_ex *x = cqx_new(cqe, wc_flags, comp_mask, flags);
	char desc[160];

	snprintf(desc, sizeof(desc), "ibv_create_cq_ex %s: %s (got %s)", what,
		 strerror(want), x ? "a CQ" : strerror(errno));
	check(!x && errno == want, desc);
	if (x)
		ibv_destroy_cq(ibv_cq_ex_to_cq(x));
}

/* next_poll, retried for up to TMO_MS; its result */
/*
 * The sl of a UD receive: its RoCE packet type, as mlx5 reports it (UCX's
 * ud_verbs reads the address family from it): 0xa RoCE v2 over IPv4 (the
 * GID an IPv4-mapped address), 0x9 over IPv6.
 */
static unsigned int ud_sl(void)
{
	static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(gid.raw, v4, sizeof(v4)) ? 0x9 : 0xa;
}

static int next(struct ibv_cq_ex *x)
{
	uint64_t end = now_ms() + TMO_MS;
	int r;

	while ((r = ibv_next_poll(x)) == ENOENT && now_ms() < end)
		nap_ms(1);
	return r;
}

/* start_poll, retried for up to TMO_MS; its result */
static int start(struct ibv_cq_ex *x)
{
	struct ibv_poll_cq_attr pa = {};
	uint64_t end = now_ms() + TMO_MS;
	int r;

	while ((r = ibv_start_poll(x, &pa)) == ENOENT && now_ms() < end)
		nap_ms(1);
	return r;
}

static void check_cq_ex(void)
{
	struct ibv_poll_cq_attr pa = { .comp_mask = 1 };
	struct ibv_comp_channel *ch;
	struct ibv_cq *ecq;
	struct ibv_cq_ex *x;
	struct ibv_qp *qp;
	struct ibv_wc wc;
	void *ectx;
	int i, ok, seen_send = 0, seen_recv = 0;

	cqx_fails(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP, 0, 0, 16, EOPNOTSUPP,
		  "WITH_COMPLETION_TIMESTAMP");
	cqx_fails(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK, 0, 0, 16,
		  EOPNOTSUPP, "WITH_COMPLETION_TIMESTAMP_WALLCLOCK");
	cqx_fails(IBV_WC_EX_WITH_CVLAN, 0, 0, 16, EOPNOTSUPP, "WITH_CVLAN");
	cqx_fails(IBV_WC_EX_WITH_FLOW_TAG, 0, 0, 16, EOPNOTSUPP,
		  "WITH_FLOW_TAG");
	cqx_fails(IBV_WC_EX_WITH_TM_INFO, 0, 0, 16, EOPNOTSUPP,
		  "WITH_TM_INFO");
	cqx_fails(1ull << 40, 0, 0, 16, EOPNOTSUPP, "an unknown wc_flag");
	cqx_fails(0, IBV_CQ_INIT_ATTR_MASK_PD, 0, 16, EOPNOTSUPP,
		  "with a parent domain");
	cqx_fails(0, 1u << 10, 0, 16, EOPNOTSUPP, "an unknown comp_mask bit");
	cqx_fails(0, IBV_CQ_INIT_ATTR_MASK_FLAGS,
		  IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN, 16, EOPNOTSUPP,
		  "IGNORE_OVERRUN");
	cqx_fails(0, 0, 0, 0, EINVAL, "cqe 0");
	cqx_fails(0, 0, 0, dattr.max_cqe + 1, EINVAL, "cqe max_cqe + 1");
	x = cqx_new(16, IBV_WC_STANDARD_FLAGS, IBV_CQ_INIT_ATTR_MASK_FLAGS,
		    IBV_CREATE_CQ_ATTR_SINGLE_THREADED);
	check(x && x->cqe >= 16,
	      "ibv_create_cq_ex: every standard wc_flag, SINGLE_THREADED");
	if (x)
		ibv_destroy_cq(ibv_cq_ex_to_cq(x));

	x = cqx_new(64, IBV_WC_STANDARD_FLAGS, 0, 0);
	if (!x)
		die("ibv_create_cq_ex");
	qp = ud_qp(ibv_cq_ex_to_cq(x), ibv_cq_ex_to_cq(x));
	check(ibv_start_poll(x, &pa) == EINVAL, "start_poll with a comp_mask: EINVAL");
	pa.comp_mask = 0;
	check(ibv_start_poll(x, &pa) == ENOENT, "start_poll on an empty CQ: ENOENT");
	ibv_end_poll(x);	/* not allowed, but pyverbs does it: harmless */
	check(ibv_poll_cq(ibv_cq_ex_to_cq(x), 1, &wc) == 0,
	      "ibv_poll_cq on it after that: empty, no dead lock");

	/* a send with immediate to ourselves: the send and the receive */
	post_recv(qp, 77);
	for (i = 0; i < MSG; i++)
		buf[i] = (uint8_t)(i * 3 + 1);
	if (send1(qp, 55, 1, 0x1234567))
		die("ibv_post_send");
	ok = start(x) == 0;
	for (i = 0; ok && i < 2; i++) {
		if (i)
			ok = !next(x);
		if (!ok || x->status != IBV_WC_SUCCESS)
			break;
		if (x->wr_id == 55) {
			seen_send = ibv_wc_read_opcode(x) == IBV_WC_SEND &&
				    ibv_wc_read_qp_num(x) == qp->qp_num &&
				    ibv_wc_read_vendor_err(x) == 0;
		} else if (x->wr_id == 77) {
			seen_recv = ibv_wc_read_opcode(x) == IBV_WC_RECV &&
				    ibv_wc_read_byte_len(x) == GRH + MSG &&
				    ntohl(ibv_wc_read_imm_data(x)) == 0x1234567 &&
				    ibv_wc_read_wc_flags(x) & IBV_WC_WITH_IMM &&
				    ibv_wc_read_wc_flags(x) & IBV_WC_GRH &&
				    ibv_wc_read_qp_num(x) == qp->qp_num &&
				    ibv_wc_read_src_qp(x) == qp->qp_num &&
				    ibv_wc_read_sl(x) == ud_sl() &&
				    ibv_wc_read_slid(x) == 0 &&
				    ibv_wc_read_dlid_path_bits(x) == 0 &&
				    !memcmp(buf + 8192 + 77 * SLOT + GRH, buf,
					    MSG);
		}
	}
	check(ok && seen_send, "cq_ex: the send's CQE (wr_id, status, opcode, qp_num)");
	check(ok && seen_recv, "cq_ex: the receive's CQE (opcode, byte_len, imm, wc_flags, qp_num, src_qp, sl: RoCE v2 and the address family, slid, data)");
	check(ibv_next_poll(x) == ENOENT, "next_poll past the last: ENOENT");
	check(ibv_next_poll(x) == ENOENT, "next_poll again: ENOENT");
	ibv_end_poll(x);

	/* a session that stops early, the legacy poll, a resize, a session */
	sends(qp, 10, 4);
	ok = start(x) == 0 && x->wr_id == 10 && !ibv_next_poll(x) &&
	     x->wr_id == 11;
	ibv_end_poll(x);
	check(ok, "session: 2 of 4 completions, end_poll");
	check(ibv_poll_cq(ibv_cq_ex_to_cq(x), 1, &wc) == 1 && wc.wr_id == 12,
	      "ibv_poll_cq on the cq_ex: the 3rd");
	check(!ibv_resize_cq(ibv_cq_ex_to_cq(x), 256) && x->cqe >= 256,
	      "resize the cq_ex to 256 with 1 pending");
	sends(qp, 14, 1);
	ok = start(x) == 0 && x->wr_id == 13 && !ibv_next_poll(x) &&
	     x->wr_id == 14 && ibv_next_poll(x) == ENOENT;
	ibv_end_poll(x);
	check(ok, "session after the resize: the 4th, then the one sent after");
	check(!ibv_destroy_qp(qp) && !ibv_destroy_cq(ibv_cq_ex_to_cq(x)),
	      "destroy QP and cq_ex");

	/* with a completion channel: the event names the cq_ex */
	ch = ibv_create_comp_channel(ctx);
	if (!ch)
		die("ibv_create_comp_channel");
	{
		struct ibv_cq_init_attr_ex a = {
			.cqe = 8, .wc_flags = IBV_WC_EX_WITH_BYTE_LEN,
			.channel = ch, .cq_context = &ch,
		};

		x = ibv_create_cq_ex(ctx, &a);
	}
	if (!x)
		die("ibv_create_cq_ex with a channel");
	qp = ud_qp(ibv_cq_ex_to_cq(x), ibv_cq_ex_to_cq(x));
	ok = !ibv_req_notify_cq(ibv_cq_ex_to_cq(x), 0);
	if (send1(qp, 1, 0, 0))
		die("ibv_post_send");
	{
		struct pollfd pf = { .fd = ch->fd, .events = POLLIN };

		ok = ok && poll(&pf, 1, TMO_MS) == 1 &&
		     !ibv_get_cq_event(ch, &ecq, &ectx) &&
		     ecq == ibv_cq_ex_to_cq(x) && ectx == &ch;
	}
	if (ok)
		ibv_ack_cq_events(ecq, 1);
	ok = ok && start(x) == 0 && x->wr_id == 1;
	ibv_end_poll(x);
	check(ok, "cq_ex with a completion channel: event with its cq_context, then the CQE");
	check(!ibv_destroy_qp(qp) && !ibv_destroy_cq(ibv_cq_ex_to_cq(x)) &&
	      !ibv_destroy_comp_channel(ch),
	      "destroy QP, cq_ex, then its channel");
}

/*
 * The write() command POLL_CQ on one of our CQs, as a process may issue
 * it without the provider: the kernel must not read the CQ's ring (ours
 * to write) as its own.
 */
static void check_poll_cq_cmd(void)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_poll_cq cmd;
	} req;
	struct {
		struct ib_uverbs_poll_cq_resp r;
		struct ib_uverbs_wc wc[4];
	} resp;
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	ssize_t n;

	if (!cq)
		die("ibv_create_cq");
	memset(&req, 0, sizeof(req));
	memset(&resp, 0, sizeof(resp));
	req.hdr.command = IB_USER_VERBS_CMD_POLL_CQ;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.cq_handle = cq->handle;
	req.cmd.ne = 4;
	n = write(ctx->cmd_fd, &req, sizeof(req));
	printf("#   POLL_CQ command: %zd (%s)\n", n, n < 0 ? strerror(errno) : "taken");
	check(n < 0 && errno == EOPNOTSUPP,
	      "the kernel's POLL_CQ on a user CQ: EOPNOTSUPP");
	ibv_destroy_cq(cq);
}

int main(int argc, char **argv)
{
	struct ibv_async_event ev;
	int fl;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEV GIDX\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	gidx = atoi(argv[2]);
	open_dev(argv[1]);
	check_resize();
	check_cq_ex();
	check_race();
	check_poll_cq_cmd();

	fl = fcntl(ctx->async_fd, F_GETFL);
	fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
	if (!ibv_get_async_event(ctx, &ev)) {
		printf("#   async event %s\n", ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
		check(0, "no async event (CQ overflow) during the checks");
	} else {
		check(1, "no async event (CQ overflow) during the checks");
	}
	ibv_destroy_ah(ah);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(buf);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
