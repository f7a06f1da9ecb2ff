// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce-wr-check: the extended QP (ibv_create_qp_ex, ibv_qp_ex, ibv_wr_*)
 * end to end, between two devices (or one, twice) in one process. Built by
 * `make tools` into build/tests/, run in the guest (tests/vm/wr-check.sh).
 *
 *	mroce-wr-check DEV_A GIDX_A DEV_B GIDX_B
 *
 * GIDX_*: the RoCE v2 GID index each device sends from. QPs on DEV_A post
 * with ibv_wr_* to QPs on DEV_B (RC and UD) and every result is checked on
 * both sides (and UC, with the legacy API on the responder, and UD
 * multicast: attach/detach, delivery to every attached QP): the data
 * that arrived or was read, the completions (opcode,
 * status, byte_len, immediate, wr_id). Also checked: which create requests
 * fail and with which errno (EOPNOTSUPP for what mroce lacks, EINVAL for
 * what is malformed), that failed and aborted sessions post nothing, that
 * a session after one works, and that a QP in RESET takes nothing. Memory
 * windows (check_mw()): types 1 and 2 bound, used, invalidated (locally,
 * by SEND_WITH_INV, by unbinding or freeing), and every access they must
 * refuse refused on both sides with the registered memory untouched.
 * Prints "ok"/"not ok" per check, then "N passed, N failed"; exit 1 on any
 * failure, 2 when setup fails.
 *
 *	mroce-wr-check --sink-gone DEV_A GIDX_A DEV_B GIDX_B
 *
 * checks only this: a READ, then an ATOMIC, whose local buffer's MR is
 * deregistered while the response is on its way completes with
 * IBV_WC_LOC_PROT_ERR (not SUCCESS with the data missing) and leaves the
 * requester's QP in ERR; and a 256 KiB READ whose responder QP loses
 * IBV_ACCESS_REMOTE_READ (ibv_modify_qp) while its response is still to
 * be sent does not complete with SUCCESS (the response is re-checked as
 * each packet is built). The caller makes the response late (wr-check.sh
 * delays the responder's packets with netem).
 *
 *	mroce-wr-check --dmabuf DEV_A GIDX_A DEV_B GIDX_B
 *
 * checks only ibv_reg_dmabuf_mr, with buffers of the test exporter
 * tests/kmod/mroce_dmabuf_exp.ko (loaded by the caller): WRITE, READ and
 * SEND into it land where they should, a range past its end and an fd that
 * is not a dma-buf are refused; the exporter sees the buffer attached,
 * pinned and mapped while the MR lives and nothing after dereg; rights
 * that write need an fd open for writing (EACCES); an exporter that cannot
 * pin is refused (EOPNOTSUPP); a static exporter is attached.
 *
 *	mroce-wr-check --idle-recv SECS DEV_A GIDX_A DEV_B GIDX_B
 *
 * connects an RC pair, posts two receives on B's QP, prints "idle-recv:
 * qpn A N B M" and stays idle for SECS while the caller plays the
 * malicious peer (tests/vm/hostile.sh), then checks that no receive
 * completed successfully out of order: each completion of B's receives is
 * printed; a SUCCESS is a failure, unless it is the first receive's.
 *
 *	mroce-wr-check --idle-read SECS DEV_A GIDX_A DEV_B GIDX_B
 *
 * connects an RC pair, completes one WRITE from A, posts a receive on B,
 * prints "idle-read: qpn A N B M msn 1" and stays idle for SECS while the
 * caller forges a malformed READ_REQ to B from A's address naming A's next
 * message (tests/vm/hostile.sh); then A must have completed nothing more
 * and still be in RTS, and B must be in error with its receive flushed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>

#include "tap.h"
#include "../kmod/mroce_dmabuf_exp.h"

#define BUF	65536
#define QKEY	0x11111111u
#define TMO_MS	5000

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	int gidx;
	enum ibv_mtu mtu;
};

static void side_open(struct side *s, const char *name, int gidx)
{
	struct ibv_port_attr port;

	s->ctx = open_named(name);
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 256, NULL, NULL, 0);
	s->buf = aligned_alloc(4096, BUF);
	if (!s->pd || !s->cq || !s->buf)
		die("PD, CQ or buffer");
	memset(s->buf, 0, BUF);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	if (!s->mr)
		die("ibv_reg_mr");
	if (ibv_query_port(s->ctx, 1, &port) ||
	    ibv_query_gid(s->ctx, 1, gidx, &s->gid))
		die("port or GID");
	s->gidx = gidx;
	s->mtu = port.active_mtu;
}

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000ull + t.tv_nsec / 1000000;
}

/* one completion from @cq within @ms, 0 if none came */
static int poll1(struct ibv_cq *cq, struct ibv_wc *wc, unsigned int ms)
{
	const struct timespec nap = { 0, 200000 };
	uint64_t end = now_ms() + ms;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n;
		nanosleep(&nap, NULL);
	} while (now_ms() < end);
	return 0;
}

/* the next completion is @wr_id, successful, of @opcode */
static int expect_wc(struct ibv_cq *cq, uint64_t wr_id,
		     enum ibv_wc_opcode opcode, struct ibv_wc *wc)
{
	if (poll1(cq, wc, TMO_MS) != 1) {
		printf("#   no completion for wr_id %#llx\n",
		       (unsigned long long)wr_id);
		return 0;
	}
	if (wc->status != IBV_WC_SUCCESS || wc->wr_id != wr_id ||
	    wc->opcode != opcode) {
		printf("#   wc wr_id %#llx status %s opcode %d, want %#llx opcode %d\n",
		       (unsigned long long)wc->wr_id,
		       ibv_wc_status_str(wc->status), wc->opcode,
		       (unsigned long long)wr_id, opcode);
		return 0;
	}
	return 1;
}

static int cq_empty(struct ibv_cq *cq, unsigned int ms)
{
	struct ibv_wc wc;

	return !poll1(cq, &wc, ms);
}

static void post_recv(struct ibv_qp *qp, struct side *s, uint64_t wr_id,
		      uint32_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf + off, .length = len,
		.lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_recv(qp, &wr, &bad))
		die("ibv_post_recv");
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

/* ---- QPs ------------------------------------------------------------------ */

/* @cap (if not NULL): what the QP got */
static struct ibv_qp *qp_ex(struct side *s, enum ibv_qp_type type,
			    uint64_t ops, struct ibv_qp_cap *cap)
{
	struct ibv_qp *qp;
	struct ibv_qp_init_attr_ex a = {
		.send_cq = s->cq, .recv_cq = s->cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 64,
			 .max_send_sge = 4, .max_recv_sge = 4,
			 .max_inline_data = 64 },
		.qp_type = type,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = s->pd,
		.send_ops_flags = ops,
	};

	qp = ibv_create_qp_ex(s->ctx, &a);
	if (cap)
		*cap = a.cap;
	return qp;
}

static struct ibv_qp *qp_legacy(struct side *s, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a = {
		.send_cq = s->cq, .recv_cq = s->cq,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 4, .max_recv_sge = 4 },
		.qp_type = type,
	};

	return ibv_create_qp(s->pd, &a);
}

static void rc_connect(struct ibv_qp *qp, struct side *s, uint32_t dqpn,
		       const union ibv_gid *dgid)
{
	int step;

	if (tap_rc_init_rtr(qp, s->gidx, dgid, dqpn, s->mtu,
			    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC, &step))
		die(step == 1 ? "RC INIT" : "RC RTR");
	if (tap_rc_rts(qp))
		die("RC RTS");
}

static void ud_ready(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY,
	};

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
}

/* ---- create ---------------------------------------------------------------- */

/* ibv_create_qp_ex(@a with @comp_mask, @ops) fails with @want */
static void create_fails(struct side *s, enum ibv_qp_type type,
			 uint32_t comp_mask, uint64_t ops, uint32_t flags,
			 int want, const char *what)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = s->cq, .recv_cq = s->cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
		.comp_mask = comp_mask,
		.pd = s->pd,
		.create_flags = flags,
		.send_ops_flags = ops,
	};
	struct ibv_qp *qp;
	char desc[160];

	errno = 0;
	qp = ibv_create_qp_ex(s->ctx, &a);
	snprintf(desc, sizeof(desc), "create_qp_ex %s fails with %s%s%s",
		 what, strerror(want), qp || errno == want ? "" : ", got ",
		 qp || errno == want ? "" : strerror(errno));
	check(!qp && errno == want, desc);
	if (qp)
		ibv_destroy_qp(qp);
}

enum {
	PD_OPS = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
	RC_OPS = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		 IBV_QP_EX_WITH_RDMA_WRITE |
		 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
	UD_OPS = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM,
	MW_OPS = RC_OPS | IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV |
		 IBV_QP_EX_WITH_SEND_WITH_INV,
	UC_OPS = UD_OPS | IBV_QP_EX_WITH_RDMA_WRITE |
		 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
};

static void check_create(struct side *s)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = s->cq, .recv_cq = s->cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_CREATE_FLAGS,
		.pd = s->pd,
	};
	struct ibv_cq_init_attr_ex cqa = { .cqe = 16 };
	struct ibv_device_attr_ex dev;
	struct ibv_qp *qp;
	struct ibv_cq_ex *cqx;

	qp = qp_ex(s, IBV_QPT_RC, RC_OPS, NULL);
	check(qp && ibv_qp_to_qp_ex(qp), "create_qp_ex RC with every RC op");
	if (qp)
		ibv_destroy_qp(qp);
	qp = qp_ex(s, IBV_QPT_UD, UD_OPS, NULL);
	check(qp && ibv_qp_to_qp_ex(qp), "create_qp_ex UD with SEND, SEND_WITH_IMM");
	if (qp)
		ibv_destroy_qp(qp);
	qp = qp_ex(s, IBV_QPT_UC, UC_OPS, NULL);
	check(qp && ibv_qp_to_qp_ex(qp),
	      "create_qp_ex UC with SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM");
	if (qp)
		ibv_destroy_qp(qp);
	qp = ibv_create_qp_ex(s->ctx, &a);
	check(qp && !ibv_qp_to_qp_ex(qp) && a.cap.max_send_wr >= 8,
	      "create_qp_ex with create_flags 0, no send ops: a plain QP, caps returned");
	if (qp)
		ibv_destroy_qp(qp);
	qp = qp_legacy(s, IBV_QPT_RC);
	check(qp && !ibv_qp_to_qp_ex(qp), "ibv_create_qp: no ibv_qp_ex");
	if (qp)
		ibv_destroy_qp(qp);

	qp = qp_ex(s, IBV_QPT_RC, MW_OPS, NULL);
	check(qp && ibv_qp_to_qp_ex(qp),
	      "create_qp_ex RC with BIND_MW, LOCAL_INV, SEND_WITH_INV");
	if (qp)
		ibv_destroy_qp(qp);
	create_fails(s, IBV_QPT_UD, PD_OPS, IBV_QP_EX_WITH_BIND_MW, 0,
		     EOPNOTSUPP, "UD WITH_BIND_MW");
	create_fails(s, IBV_QPT_UD, PD_OPS, IBV_QP_EX_WITH_SEND_WITH_INV, 0,
		     EOPNOTSUPP, "UD WITH_SEND_WITH_INV");
	create_fails(s, IBV_QPT_UC, PD_OPS, IBV_QP_EX_WITH_ATOMIC_WRITE, 0,
		     EOPNOTSUPP, "UC WITH_ATOMIC_WRITE");
	create_fails(s, IBV_QPT_UD, PD_OPS, IBV_QP_EX_WITH_TSO, 0,
		     EOPNOTSUPP, "UD WITH_TSO");
	create_fails(s, IBV_QPT_UD, PD_OPS, IBV_QP_EX_WITH_RDMA_WRITE, 0,
		     EOPNOTSUPP, "UD WITH_RDMA_WRITE");
	create_fails(s, IBV_QPT_RC, PD_OPS, 1ull << 40, 0,
		     EOPNOTSUPP, "RC unknown send op");
	create_fails(s, IBV_QPT_UC, PD_OPS, IBV_QP_EX_WITH_RDMA_READ, 0,
		     EOPNOTSUPP, "UC WITH_RDMA_READ");
	create_fails(s, IBV_QPT_UC, PD_OPS, IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
		     0, EOPNOTSUPP, "UC WITH_ATOMIC_FETCH_AND_ADD");
	create_fails(s, IBV_QPT_XRC_SEND, PD_OPS, IBV_QP_EX_WITH_SEND, 0,
		     EOPNOTSUPP, "XRC_SEND");
	create_fails(s, IBV_QPT_RC, PD_OPS | IBV_QP_INIT_ATTR_XRCD,
		     IBV_QP_EX_WITH_SEND, 0, EOPNOTSUPP, "with XRCD");
	create_fails(s, IBV_QPT_RC, PD_OPS | IBV_QP_INIT_ATTR_MAX_TSO_HEADER,
		     IBV_QP_EX_WITH_SEND, 0, EOPNOTSUPP, "with MAX_TSO_HEADER");
	create_fails(s, IBV_QPT_RC, PD_OPS | IBV_QP_INIT_ATTR_RX_HASH,
		     IBV_QP_EX_WITH_SEND, 0, EOPNOTSUPP, "with RX_HASH");
	create_fails(s, IBV_QPT_RC, PD_OPS | (1u << 20),
		     IBV_QP_EX_WITH_SEND, 0, EOPNOTSUPP, "unknown comp_mask bit");
	create_fails(s, IBV_QPT_UD, PD_OPS | IBV_QP_INIT_ATTR_CREATE_FLAGS,
		     IBV_QP_EX_WITH_SEND, IBV_QP_CREATE_SCATTER_FCS,
		     EOPNOTSUPP, "create_flags SCATTER_FCS");
	create_fails(s, IBV_QPT_RC, IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		     IBV_QP_EX_WITH_SEND, 0, EINVAL, "without a PD");

	/* the extended CQ itself: mroce-cq-check */
	cqx = ibv_create_cq_ex(s->ctx, &cqa);
	check(cqx && cqx->cqe >= 16, "ibv_create_cq_ex works");
	if (cqx)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
	memset(&dev, 0, sizeof(dev));
	check(!ibv_query_device_ex(s->ctx, NULL, &dev) &&
	      dev.orig_attr.max_qp_wr > 0, "ibv_query_device_ex");
	printf("#   atomic_cap %d, max_sge %d, device_cap_flags %#x\n",
	       dev.orig_attr.atomic_cap, dev.orig_attr.max_sge,
	       dev.orig_attr.device_cap_flags);
}

/* ---- RC -------------------------------------------------------------------- */

/* wr_complete's result is @want and nothing was sent */
static void session_fails(struct ibv_qp_ex *x, struct side *a, int want,
			  const char *what)
{
	int ret = ibv_wr_complete(x);
	char desc[160];

	snprintf(desc, sizeof(desc), "%s: wr_complete %s (got %s), nothing posted",
		 what, strerror(want), strerror(ret));
	check(ret == want && cq_empty(a->cq, 100), desc);
}

static void check_rc(struct side *a, struct side *b)
{
	struct ibv_qp_cap cap;
	struct ibv_qp *qa = qp_ex(a, IBV_QPT_RC, RC_OPS, &cap);
	struct ibv_qp *qb = qp_legacy(b, IBV_QPT_RC);
	struct ibv_qp_ex *x = qa ? ibv_qp_to_qp_ex(qa) : NULL;
	uint64_t rb = (uintptr_t)b->buf, la = (uintptr_t)a->buf;
	uint32_t rkey = b->mr->rkey, lkey = a->mr->lkey;
	struct ibv_wc wc;
	int ok, i, n;

	if (!x || !qb)
		die("RC QPs");
	printf("#   RC QP %u -> %u: max_send_wr %u, max_send_sge %u, max_inline_data %u\n",
	       qa->qp_num, qb->qp_num, cap.max_send_wr, cap.max_send_sge,
	       cap.max_inline_data);
	rc_connect(qa, a, qb->qp_num, &b->gid);
	rc_connect(qb, b, qa->qp_num, &a->gid);

	/* SEND, one SGE */
	fill(a->buf, 4096, 1);
	post_recv(qb, b, 100, 0, 8192);
	ibv_wr_start(x);
	x->wr_id = 1;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, lkey, la, 4096);
	check(!ibv_wr_complete(x), "RC wr_send: wr_complete");
	ok = expect_wc(a->cq, 1, IBV_WC_SEND, &wc);
	ok &= expect_wc(b->cq, 100, IBV_WC_RECV, &wc) && wc.byte_len == 4096 &&
	      !(wc.wc_flags & IBV_WC_WITH_IMM);
	check(ok && !memcmp(a->buf, b->buf, 4096), "RC wr_send: 4 KiB arrived");

	/* SEND with immediate */
	fill(a->buf, 100, 2);
	post_recv(qb, b, 101, 0, 8192);
	ibv_wr_start(x);
	x->wr_id = 2;
	ibv_wr_send_imm(x, htonl(0xdeadbeef));
	ibv_wr_set_sge(x, lkey, la, 100);
	check(!ibv_wr_complete(x), "RC wr_send_imm: wr_complete");
	ok = expect_wc(a->cq, 2, IBV_WC_SEND, &wc);
	ok &= expect_wc(b->cq, 101, IBV_WC_RECV, &wc) && wc.byte_len == 100 &&
	      wc.wc_flags & IBV_WC_WITH_IMM && wc.imm_data == htonl(0xdeadbeef);
	check(ok && !memcmp(a->buf, b->buf, 100), "RC wr_send_imm: data and immediate");

	/* RDMA WRITE */
	fill(a->buf, 6000, 3);
	ibv_wr_start(x);
	x->wr_id = 3;
	ibv_wr_rdma_write(x, rkey, rb + 8192);
	ibv_wr_set_sge(x, lkey, la, 6000);
	check(!ibv_wr_complete(x), "RC wr_rdma_write: wr_complete");
	ok = expect_wc(a->cq, 3, IBV_WC_RDMA_WRITE, &wc);
	check(ok && !memcmp(a->buf, b->buf + 8192, 6000), "RC wr_rdma_write: data written");

	/* RDMA WRITE with immediate: consumes a receive */
	fill(a->buf, 300, 4);
	post_recv(qb, b, 102, 0, 16);
	ibv_wr_start(x);
	x->wr_id = 4;
	ibv_wr_rdma_write_imm(x, rkey, rb + 16384, htonl(42));
	ibv_wr_set_sge(x, lkey, la, 300);
	check(!ibv_wr_complete(x), "RC wr_rdma_write_imm: wr_complete");
	ok = expect_wc(a->cq, 4, IBV_WC_RDMA_WRITE, &wc);
	ok &= expect_wc(b->cq, 102, IBV_WC_RECV_RDMA_WITH_IMM, &wc) &&
	      wc.wc_flags & IBV_WC_WITH_IMM && wc.imm_data == htonl(42);
	check(ok && !memcmp(a->buf, b->buf + 16384, 300),
	      "RC wr_rdma_write_imm: data, immediate, receive consumed");

	/* RDMA READ */
	fill(b->buf + 20000, 5000, 5);
	memset(a->buf + 20000, 0, 5000);
	ibv_wr_start(x);
	x->wr_id = 5;
	ibv_wr_rdma_read(x, rkey, rb + 20000);
	ibv_wr_set_sge(x, lkey, la + 20000, 5000);
	check(!ibv_wr_complete(x), "RC wr_rdma_read: wr_complete");
	ok = expect_wc(a->cq, 5, IBV_WC_RDMA_READ, &wc) && wc.byte_len == 5000;
	check(ok && !memcmp(a->buf + 20000, b->buf + 20000, 5000),
	      "RC wr_rdma_read: data read");

	/* atomics on b's 8 bytes at 32768, old values into a's at 32768 */
	*(uint64_t *)(b->buf + 32768) = 1000;
	ibv_wr_start(x);
	x->wr_id = 6;
	ibv_wr_atomic_cmp_swp(x, rkey, rb + 32768, 1000, 2000);
	ibv_wr_set_sge(x, lkey, la + 32768, 8);
	x->wr_id = 7;
	ibv_wr_atomic_cmp_swp(x, rkey, rb + 32768, 1000, 3000);
	ibv_wr_set_sge(x, lkey, la + 32776, 8);
	x->wr_id = 8;
	ibv_wr_atomic_fetch_add(x, rkey, rb + 32768, 5);
	ibv_wr_set_sge(x, lkey, la + 32784, 8);
	check(!ibv_wr_complete(x), "RC atomics: wr_complete (3 WRs)");
	ok = expect_wc(a->cq, 6, IBV_WC_COMP_SWAP, &wc);
	ok &= expect_wc(a->cq, 7, IBV_WC_COMP_SWAP, &wc);
	ok &= expect_wc(a->cq, 8, IBV_WC_FETCH_ADD, &wc);
	check(ok && *(uint64_t *)(a->buf + 32768) == 1000,
	      "RC wr_atomic_cmp_swp: swapped, old value returned");
	check(ok && *(uint64_t *)(a->buf + 32776) == 2000,
	      "RC wr_atomic_cmp_swp: no swap when unequal, old value returned");
	check(ok && *(uint64_t *)(a->buf + 32784) == 2000 &&
	      *(uint64_t *)(b->buf + 32768) == 2005,
	      "RC wr_atomic_fetch_add: added, old value returned");

	/* ATOMIC_WRITE: the 8 bytes of the builder's argument, no SGE */
	{
		uint64_t v = 0x0123456789abcdefull;

		*(uint64_t *)(b->buf + 32792) = 7;
		ibv_wr_start(x);
		x->wr_id = 9;
		ibv_wr_atomic_write(x, rkey, rb + 32792, &v);
		v = 0;		/* taken at the call: not read again */
		check(!ibv_wr_complete(x), "RC wr_atomic_write: wr_complete");
		ok = expect_wc(a->cq, 9, IBV_WC_ATOMIC_WRITE, &wc);
		check(ok && *(uint64_t *)(b->buf + 32792) ==
			    0x0123456789abcdefull,
		      "RC wr_atomic_write: stored, IBV_WC_ATOMIC_WRITE");
	}

	/* inline SEND: the buffer is ours again once wr_complete returns */
	fill(a->buf + 40000, 64, 9);
	memcpy(a->buf + 41000, a->buf + 40000, 64);
	post_recv(qb, b, 103, 0, 8192);
	ibv_wr_start(x);
	x->wr_id = 9;
	ibv_wr_send(x);
	ibv_wr_set_inline_data(x, a->buf + 40000, 64);
	n = ibv_wr_complete(x);
	memset(a->buf + 40000, 0xee, 64);
	check(!n, "RC inline wr_send: wr_complete");
	ok = expect_wc(a->cq, 9, IBV_WC_SEND, &wc);
	ok &= expect_wc(b->cq, 103, IBV_WC_RECV, &wc) && wc.byte_len == 64;
	check(ok && !memcmp(b->buf, a->buf + 41000, 64),
	      "RC wr_set_inline_data: copied at posting");

	/* inline list into an RDMA WRITE */
	{
		struct ibv_data_buf l[3] = {
			{ a->buf + 42000, 10 }, { a->buf + 42100, 1 },
			{ a->buf + 42200, 40 },
		};
		uint8_t want[51];

		fill(a->buf + 42000, 300, 10);
		memcpy(want, a->buf + 42000, 10);
		memcpy(want + 10, a->buf + 42100, 1);
		memcpy(want + 11, a->buf + 42200, 40);
		ibv_wr_start(x);
		x->wr_id = 10;
		ibv_wr_rdma_write(x, rkey, rb + 44000);
		ibv_wr_set_inline_data_list(x, 3, l);
		check(!ibv_wr_complete(x), "RC inline list wr_rdma_write: wr_complete");
		ok = expect_wc(a->cq, 10, IBV_WC_RDMA_WRITE, &wc);
		check(ok && !memcmp(b->buf + 44000, want, 51),
		      "RC wr_set_inline_data_list: 3 pieces concatenated");
	}

	/* SGE list */
	{
		struct ibv_sge l[3] = {
			{ la + 46000, 100, lkey }, { la + 47000, 1, lkey },
			{ la + 48000, 2000, lkey },
		};
		uint8_t want[2101];

		fill(a->buf + 46000, 4000, 11);
		memcpy(want, a->buf + 46000, 100);
		memcpy(want + 100, a->buf + 47000, 1);
		memcpy(want + 101, a->buf + 48000, 2000);
		post_recv(qb, b, 104, 0, 8192);
		ibv_wr_start(x);
		x->wr_id = 11;
		ibv_wr_send(x);
		ibv_wr_set_sge_list(x, 3, l);
		check(!ibv_wr_complete(x), "RC wr_set_sge_list: wr_complete");
		ok = expect_wc(a->cq, 11, IBV_WC_SEND, &wc);
		ok &= expect_wc(b->cq, 104, IBV_WC_RECV, &wc) &&
		      wc.byte_len == 2101;
		check(ok && !memcmp(b->buf, want, 2101),
		      "RC wr_set_sge_list: 3 SGEs concatenated");
	}

	/* a batch of 8, only the last signaled */
	for (i = 0; i < 8; i++)
		post_recv(qb, b, 200 + i, 1024 * i, 1024);
	fill(a->buf, 8 * 512, 12);
	ibv_wr_start(x);
	for (i = 0; i < 8; i++) {
		x->wr_id = 20 + i;
		x->wr_flags = i == 7 ? IBV_SEND_SIGNALED : 0;
		ibv_wr_send(x);
		ibv_wr_set_sge(x, lkey, la + 512 * i, 512);
	}
	check(!ibv_wr_complete(x), "RC batch of 8 sends: wr_complete");
	x->wr_flags = IBV_SEND_SIGNALED;
	ok = expect_wc(a->cq, 27, IBV_WC_SEND, &wc) && cq_empty(a->cq, 50);
	for (i = 0; i < 8 && ok; i++)
		ok = expect_wc(b->cq, 200 + i, IBV_WC_RECV, &wc) &&
		     wc.byte_len == 512 &&
		     !memcmp(b->buf + 1024 * i, a->buf + 512 * i, 512);
	check(ok, "RC batch of 8: one completion, 8 messages in order");

	/* wr_abort posts nothing; the next session does */
	post_recv(qb, b, 105, 0, 8192);
	ibv_wr_start(x);
	x->wr_id = 12;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, lkey, la, 10);
	ibv_wr_abort(x);
	check(cq_empty(a->cq, 200) && cq_empty(b->cq, 1),
	      "RC wr_abort: nothing posted");

	/* failed sessions post nothing */
	ibv_wr_start(x);
	x->wr_id = 13;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, lkey, la, 10);
	x->wr_id = 14;
	ibv_wr_send(x);
	{
		struct ibv_sge l[32];

		for (i = 0; i < 32; i++)
			l[i] = (struct ibv_sge){ la, 1, lkey };
		ibv_wr_set_sge_list(x, 32, l);
	}
	session_fails(x, a, EINVAL, "RC too many SGEs");
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_inline_data(x, a->buf, cap.max_inline_data + 1);
	session_fails(x, a, EINVAL, "RC inline data over max_inline_data");
	ibv_wr_start(x);
	ibv_wr_set_sge(x, lkey, la, 10);
	session_fails(x, a, EINVAL, "RC setter before any builder");
	ibv_wr_start(x);
	ibv_wr_rdma_read(x, rkey, rb);
	ibv_wr_set_inline_data(x, a->buf, 8);
	session_fails(x, a, EINVAL, "RC inline data on an RDMA READ");
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_ud_addr(x, NULL, 1, QKEY);
	session_fails(x, a, EINVAL, "RC wr_set_ud_addr");
	ibv_wr_start(x);
	for (i = 0; i <= (int)cap.max_send_wr; i++) {
		ibv_wr_send(x);
		ibv_wr_set_sge(x, lkey, la, 1);
	}
	session_fails(x, a, ENOMEM, "RC more WRs than the SQ holds");

	ibv_wr_start(x);
	x->wr_bind_mw(x, NULL, 1, NULL);
	session_fails(x, a, EINVAL, "RC wr_bind_mw without an MW");

	/* what mroce does not offer, called anyway */
	ibv_wr_start(x);
	x->wr_set_xrc_srqn(x, 1);
	session_fails(x, a, EOPNOTSUPP, "RC wr_set_xrc_srqn");

	/* after all that: the receive posted before the abort gets this one */
	fill(a->buf, 77, 13);
	ibv_wr_start(x);
	x->wr_id = 15;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, lkey, la, 77);
	check(!ibv_wr_complete(x), "RC send after failed sessions: wr_complete");
	ok = expect_wc(a->cq, 15, IBV_WC_SEND, &wc);
	ok &= expect_wc(b->cq, 105, IBV_WC_RECV, &wc) && wc.byte_len == 77;
	check(ok && !memcmp(a->buf, b->buf, 77) && cq_empty(b->cq, 50),
	      "RC send after aborted and failed sessions: only it arrived");

	/* ibv_post_send on the same QP, between sessions */
	{
		struct ibv_sge sge = { la, 33, lkey };
		struct ibv_send_wr wr = {
			.wr_id = 16, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		post_recv(qb, b, 106, 0, 8192);
		ok = !ibv_post_send(qa, &wr, &bad);
		ok &= expect_wc(a->cq, 16, IBV_WC_SEND, &wc);
		ok &= expect_wc(b->cq, 106, IBV_WC_RECV, &wc) &&
		      wc.byte_len == 33;
		check(ok, "RC ibv_post_send on an extended QP");

		/* a QP in RESET takes nothing */
		{
			struct ibv_qp_attr r = { .qp_state = IBV_QPS_RESET };
			struct ibv_recv_wr rwr = { .wr_id = 1 }, *rbad;

			if (ibv_modify_qp(qa, &r, IBV_QP_STATE))
				die("RESET");
			check(ibv_post_send(qa, &wr, &bad) == EINVAL,
			      "RC RESET: ibv_post_send EINVAL");
			check(ibv_post_recv(qa, &rwr, &rbad) == EINVAL,
			      "RC RESET: ibv_post_recv EINVAL");
			ibv_wr_start(x);
			ibv_wr_send(x);
			ibv_wr_set_sge(x, lkey, la, 8);
			session_fails(x, a, EINVAL, "RC RESET");
		}
	}

	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
}

/* ---- UD -------------------------------------------------------------------- */

#define GRH	40

static void check_ud(struct side *a, struct side *b)
{
	struct ibv_qp *qa = qp_ex(a, IBV_QPT_UD, UD_OPS, NULL);
	struct ibv_qp *qb = qp_legacy(b, IBV_QPT_UD);
	struct ibv_qp_ex *x = qa ? ibv_qp_to_qp_ex(qa) : NULL;
	struct ibv_ah_attr aha = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = b->gid, .sgid_index = a->gidx,
			 .hop_limit = 1 },
	};
	uint64_t la = (uintptr_t)a->buf;
	uint32_t lkey = a->mr->lkey;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	int ok;

	if (!x || !qb)
		die("UD QPs");
	ud_ready(qa);
	ud_ready(qb);
	ah = ibv_create_ah(a->pd, &aha);
	if (!ah)
		die("ibv_create_ah");

	/* SEND with an SGE */
	fill(a->buf, 512, 20);
	post_recv(qb, b, 300, 0, 2048);
	ibv_wr_start(x);
	x->wr_id = 30;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_ud_addr(x, ah, qb->qp_num, QKEY);
	ibv_wr_set_sge(x, lkey, la, 512);
	check(!ibv_wr_complete(x), "UD wr_send: wr_complete");
	ok = expect_wc(a->cq, 30, IBV_WC_SEND, &wc);
	ok &= expect_wc(b->cq, 300, IBV_WC_RECV, &wc) &&
	      wc.byte_len == GRH + 512 && wc.src_qp == qa->qp_num;
	check(ok && !memcmp(b->buf + GRH, a->buf, 512),
	      "UD wr_send + wr_set_ud_addr: arrived after the GRH, from our QP");

	/* SEND with immediate, inline, address set after the data */
	fill(a->buf, 48, 21);
	post_recv(qb, b, 301, 0, 2048);
	ibv_wr_start(x);
	x->wr_id = 31;
	ibv_wr_send_imm(x, htonl(7));
	ibv_wr_set_inline_data(x, a->buf, 48);
	ibv_wr_set_ud_addr(x, ah, qb->qp_num, QKEY);
	check(!ibv_wr_complete(x), "UD inline wr_send_imm: wr_complete");
	ok = expect_wc(a->cq, 31, IBV_WC_SEND, &wc);
	ok &= expect_wc(b->cq, 301, IBV_WC_RECV, &wc) &&
	      wc.byte_len == GRH + 48 && wc.wc_flags & IBV_WC_WITH_IMM &&
	      wc.imm_data == htonl(7);
	check(ok && !memcmp(b->buf + GRH, a->buf, 48),
	      "UD inline wr_send_imm: data and immediate");

	/* wrong qkey: dropped by the receiver, the sender completes */
	post_recv(qb, b, 302, 0, 2048);
	ibv_wr_start(x);
	x->wr_id = 32;
	ibv_wr_send(x);
	ibv_wr_set_ud_addr(x, ah, qb->qp_num, QKEY + 1);
	ibv_wr_set_sge(x, lkey, la, 8);
	check(!ibv_wr_complete(x) && expect_wc(a->cq, 32, IBV_WC_SEND, &wc) &&
	      cq_empty(b->cq, 300), "UD wr_set_ud_addr: the qkey is the one set");

	/* a UD WR without an address, RDMA on UD */
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_sge(x, lkey, la, 8);
	session_fails(x, a, EINVAL, "UD send without wr_set_ud_addr (last WR)");
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_sge(x, lkey, la, 8);
	ibv_wr_send(x);
	ibv_wr_set_ud_addr(x, ah, qb->qp_num, QKEY);
	session_fails(x, a, EINVAL, "UD send without wr_set_ud_addr (not last)");
	ibv_wr_start(x);
	ibv_wr_rdma_write(x, 1, 0);
	session_fails(x, a, EINVAL, "UD wr_rdma_write");
	ibv_wr_start(x);
	x->wr_send_tso(x, a->buf, 40, 1000);
	session_fails(x, a, EOPNOTSUPP, "UD wr_send_tso");

	/* the receive left from the qkey test gets the next one */
	fill(a->buf, 99, 22);
	ibv_wr_start(x);
	x->wr_id = 33;
	ibv_wr_send(x);
	ibv_wr_set_ud_addr(x, ah, qb->qp_num, QKEY);
	ibv_wr_set_sge(x, lkey, la, 99);
	check(!ibv_wr_complete(x), "UD send after failed sessions: wr_complete");
	ok = expect_wc(a->cq, 33, IBV_WC_SEND, &wc);
	ok &= expect_wc(b->cq, 302, IBV_WC_RECV, &wc) &&
	      wc.byte_len == GRH + 99;
	check(ok && !memcmp(b->buf + GRH, a->buf, 99) && cq_empty(b->cq, 50),
	      "UD send after failed sessions: only it arrived");

	ibv_destroy_ah(ah);
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
}

/* ---- memory windows ------------------------------------------------------- */

/*
 * b owns a buffer registered for binding only (LOCAL_WRITE | MW_BIND, no
 * remote right of its own) and opens windows on it; a accesses them. A
 * refused access ends both QPs (REM_ACCESS_ERR at a, the responder QP in
 * ERR), so every such check runs on a fresh pair.
 */
#define MWBUF	65536
#define WOFF	4096	/* the window most checks use: [WOFF, WOFF + WLEN) */
#define WLEN	8192
#define GUARD	0x5a

struct mwenv {
	struct side *a, *b;
	uint8_t *buf;		/* b's */
	struct ibv_mr *mr;	/* LOCAL_WRITE | MW_BIND */
	struct ibv_mr *ro;	/* MW_BIND only: no local write */
	struct ibv_qp *qa, *qb;	/* the current pair */
	struct ibv_qp_ex *xa, *xb;
};

static void drain(struct ibv_cq *cq)
{
	while (!cq_empty(cq, 50))
		;
}

static void pair_open(struct mwenv *e)
{
	e->qa = qp_ex(e->a, IBV_QPT_RC, MW_OPS, NULL);
	e->qb = qp_ex(e->b, IBV_QPT_RC, MW_OPS, NULL);
	if (!e->qa || !e->qb)
		die("MW QPs");
	e->xa = ibv_qp_to_qp_ex(e->qa);
	e->xb = ibv_qp_to_qp_ex(e->qb);
	rc_connect(e->qa, e->a, e->qb->qp_num, &e->b->gid);
	rc_connect(e->qb, e->b, e->qa->qp_num, &e->a->gid);
	memset(e->buf, GUARD, MWBUF);
}

/* close the pair; completions of a QP in error are flushed away */
static void pair_close(struct mwenv *e)
{
	ibv_destroy_qp(e->qa);
	ibv_destroy_qp(e->qb);
	drain(e->a->cq);
	drain(e->b->cq);
}

/* ---- UC -------------------------------------------------------------------- */

static void uc_connect(struct ibv_qp *qp, struct side *s, uint32_t dqpn,
		       const union ibv_gid *dgid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("UC INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = s->mtu;
	a.dest_qp_num = dqpn;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = s->gidx;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN))
		die("UC RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("UC RTS");
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return IBV_QPS_UNKNOWN;
	return a.qp_state;
}

/* the next completion on @cq: its status if it is @wr_id, else -1 */
static int wc_status(struct ibv_cq *cq, uint64_t wr_id, struct ibv_wc *wc)
{
	if (poll1(cq, wc, TMO_MS) != 1) {
		printf("#   no completion for wr_id %#llx\n",
		       (unsigned long long)wr_id);
		return -1;
	}
	if (wc->wr_id != wr_id) {
		printf("#   wr_id %#llx, want %#llx (%s)\n",
		       (unsigned long long)wc->wr_id,
		       (unsigned long long)wr_id,
		       ibv_wc_status_str(wc->status));
		return -1;
	}
	return wc->status;
}

/* b binds type 2 @mw as @rkey to [@off, @off + @len) of @mr; wc status */
static int bind2(struct mwenv *e, struct ibv_mw *mw, uint32_t rkey,
		 struct ibv_mr *mr, uint64_t off, uint64_t len,
		 unsigned int access)
{
	struct ibv_mw_bind_info bi = {
		.mr = mr, .addr = (uintptr_t)e->buf + off, .length = len,
		.mw_access_flags = access,
	};
	struct ibv_wc wc;
	int st;

	ibv_wr_start(e->xb);
	e->xb->wr_id = 0xb1;
	e->xb->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(e->xb, mw, rkey, &bi);
	if (ibv_wr_complete(e->xb))
		return -1;
	st = wc_status(e->b->cq, 0xb1, &wc);
	if (st == IBV_WC_SUCCESS && wc.opcode != IBV_WC_BIND_MW)
		return -1;
	return st;
}

/* a's RDMA (@op) of @len bytes at b's @off through @rkey; wc status */
static int rdma(struct mwenv *e, enum ibv_wr_opcode op, uint32_t rkey,
		uint64_t off, uint32_t len)
{
	struct ibv_wc wc;

	ibv_wr_start(e->xa);
	e->xa->wr_id = 0xa1;
	e->xa->wr_flags = IBV_SEND_SIGNALED;
	if (op == IBV_WR_RDMA_READ)
		ibv_wr_rdma_read(e->xa, rkey, (uintptr_t)e->buf + off);
	else
		ibv_wr_rdma_write(e->xa, rkey, (uintptr_t)e->buf + off);
	ibv_wr_set_sge(e->xa, e->a->mr->lkey, (uintptr_t)e->a->buf, len);
	if (ibv_wr_complete(e->xa))
		return -1;
	return wc_status(e->a->cq, 0xa1, &wc);
}

/* every byte of b's buffer from @off for @len is the guard */
static int guarded(struct mwenv *e, size_t off, size_t len)
{
	size_t i;

	for (i = off; i < off + len; i++)
		if (e->buf[i] != GUARD)
			return 0;
	return 1;
}

/* a refused access: REM_ACCESS_ERR at a, b's QP in ERR, nothing written */
static void refused(struct mwenv *e, int st, const char *what)
{
	char desc[200];
	int i;

	for (i = 0; i < 100 && qp_state(e->qb) != IBV_QPS_ERR; i++)
		usleep(10000);
	snprintf(desc, sizeof(desc),
		 "%s: REM_ACCESS_ERR (got %s), responder QP in ERR, memory untouched",
		 what, st < 0 ? "none" : ibv_wc_status_str(st));
	check(st == IBV_WC_REM_ACCESS_ERR && qp_state(e->qb) == IBV_QPS_ERR &&
	      guarded(e, 0, MWBUF), desc);
}

/* a new pair and a new type 2 MW bound by b's QP; NULL if the bind failed */
static struct ibv_mw *bound_pair(struct mwenv *e, uint32_t *rkey, uint64_t off,
				 uint64_t len, unsigned int access)
{
	struct ibv_mw *mw = ibv_alloc_mw(e->b->pd, IBV_MW_TYPE_2);
	int st;

	if (!mw)
		die("ibv_alloc_mw");
	pair_open(e);
	*rkey = ibv_inc_rkey(mw->rkey);
	st = bind2(e, mw, *rkey, e->mr, off, len, access);
	if (st) {
		printf("#   bind: %s\n", st < 0 ? "failed" : ibv_wc_status_str(st));
		ibv_dealloc_mw(mw);
		return NULL;
	}
	return mw;
}

static void check_mw(struct side *a, struct side *b)
{
	const unsigned int rw = IBV_ACCESS_REMOTE_WRITE |
				IBV_ACCESS_REMOTE_READ;
	struct mwenv e = { .a = a, .b = b };
	struct ibv_mw_bind bind;
	struct ibv_mw *mw, *mw1;
	struct ibv_wc wc;
	uint32_t rkey, old;
	int st, ok;

	e.buf = aligned_alloc(4096, MWBUF);
	if (!e.buf)
		die("MW buffer");
	e.mr = ibv_reg_mr(b->pd, e.buf, MWBUF, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_MW_BIND);
	e.ro = ibv_reg_mr(b->pd, e.buf, MWBUF, IBV_ACCESS_MW_BIND);
	mw1 = ibv_alloc_mw(b->pd, IBV_MW_TYPE_1);
	if (!e.mr || !e.ro || !mw1)
		die("MW MRs and MWs");

	/* type 2: bind, write and read through the window, LOCAL_INV */
	mw = bound_pair(&e, &rkey, WOFF, WLEN, rw);
	check(mw != NULL, "MW type 2: wr_bind_mw completes (BIND_MW)");
	if (!mw)
		goto out;
	fill(a->buf, WLEN, 40);
	st = rdma(&e, IBV_WR_RDMA_WRITE, rkey, WOFF, WLEN);
	check(st == IBV_WC_SUCCESS && !memcmp(e.buf + WOFF, a->buf, WLEN) &&
	      guarded(&e, 0, WOFF) &&
	      guarded(&e, WOFF + WLEN, MWBUF - WOFF - WLEN),
	      "MW type 2: RDMA WRITE of the whole window, nothing outside");
	st = rdma(&e, IBV_WR_RDMA_WRITE, rkey, WOFF + WLEN - 1, 1);
	check(st == IBV_WC_SUCCESS, "MW type 2: RDMA WRITE of its last byte");
	fill(e.buf + WOFF, 3000, 41);
	memset(a->buf, 0, 3000);
	st = rdma(&e, IBV_WR_RDMA_READ, rkey, WOFF + 100, 3000);
	check(st == IBV_WC_SUCCESS && !memcmp(a->buf, e.buf + WOFF + 100, 3000),
	      "MW type 2: RDMA READ through the window");
	ibv_wr_start(e.xb);
	e.xb->wr_id = 0xb2;
	e.xb->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_local_inv(e.xb, rkey);
	ok = !ibv_wr_complete(e.xb) &&
	     expect_wc(b->cq, 0xb2, IBV_WC_LOCAL_INV, &wc);
	check(ok, "MW type 2: wr_local_inv completes (LOCAL_INV)");
	memset(e.buf, GUARD, MWBUF);
	st = rdma(&e, IBV_WR_RDMA_WRITE, rkey, WOFF, 8);
	refused(&e, st, "MW type 2: after LOCAL_INV");
	pair_close(&e);

	/* invalidated, it binds again (on a new pair), with a new rkey */
	pair_open(&e);
	rkey = ibv_inc_rkey(rkey);
	st = bind2(&e, mw, rkey, e.mr, WOFF, WLEN, rw);
	check(st == IBV_WC_SUCCESS, "MW type 2: bound again after LOCAL_INV");
	/* type 2B: refused on another QP of the same PD */
	{
		struct mwenv o = e;

		pair_open(&o);
		st = rdma(&o, IBV_WR_RDMA_WRITE, rkey, WOFF, 8);
		refused(&o, st, "MW type 2: used on another QP than its binder's");
		pair_close(&o);
	}
	/* SEND_WITH_INV: b's receive says which rkey it invalidated */
	post_recv(e.qb, b, 0xb3, 0, 64);
	fill(a->buf, 20, 42);
	ibv_wr_start(e.xa);
	e.xa->wr_id = 0xa2;
	e.xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_inv(e.xa, rkey);
	ibv_wr_set_sge(e.xa, a->mr->lkey, (uintptr_t)a->buf, 20);
	ok = !ibv_wr_complete(e.xa) && expect_wc(a->cq, 0xa2, IBV_WC_SEND, &wc);
	ok &= expect_wc(b->cq, 0xb3, IBV_WC_RECV, &wc) && wc.byte_len == 20 &&
	      wc.wc_flags & IBV_WC_WITH_INV && !(wc.wc_flags & IBV_WC_WITH_IMM) &&
	      wc.invalidated_rkey == rkey;
	check(ok && !memcmp(b->buf, a->buf, 20),
	      "MW type 2: SEND_WITH_INV: data, receive WITH_INV and the rkey");
	st = rdma(&e, IBV_WR_RDMA_WRITE, rkey, WOFF, 8);
	refused(&e, st, "MW type 2: after SEND_WITH_INV");
	pair_close(&e);
	ibv_dealloc_mw(mw);

	/* the MR's own rkey: it has no remote right of its own */
	pair_open(&e);
	st = rdma(&e, IBV_WR_RDMA_WRITE, e.mr->rkey, WOFF, 8);
	refused(&e, st, "MW: the MR's own rkey (MW_BIND only)");
	pair_close(&e);

	/* SEND_WITH_INV naming what cannot be invalidated: REM_INV_REQ_ERR */
	pair_open(&e);
	post_recv(e.qb, b, 0xb4, 0, 64);
	ibv_wr_start(e.xa);
	e.xa->wr_id = 0xa3;
	e.xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_inv(e.xa, mw1->rkey);
	ibv_wr_set_sge(e.xa, a->mr->lkey, (uintptr_t)a->buf, 8);
	st = ibv_wr_complete(e.xa) ? -1 : wc_status(a->cq, 0xa3, &wc);
	check(st == IBV_WC_REM_INV_REQ_ERR,
	      "MW: SEND_WITH_INV of a type 1 MW: REM_INV_REQ_ERR");
	pair_close(&e);

	/* binds refused: past the MR, rights without local write, rebinding */
	mw = ibv_alloc_mw(b->pd, IBV_MW_TYPE_2);
	if (!mw)
		die("ibv_alloc_mw");
	rkey = mw->rkey;
	pair_open(&e);
	st = bind2(&e, mw, ibv_inc_rkey(rkey), e.mr, MWBUF - 8, 16, rw);
	check(st == IBV_WC_MW_BIND_ERR && qp_state(e.qb) == IBV_QPS_ERR,
	      "MW type 2: window past the MR: MW_BIND_ERR, QP in ERR");
	pair_close(&e);
	pair_open(&e);
	st = bind2(&e, mw, ibv_inc_rkey(rkey), e.ro, 0, 64,
		   IBV_ACCESS_REMOTE_WRITE);
	check(st == IBV_WC_MW_BIND_ERR,
	      "MW type 2: remote write on an MR without local write: MW_BIND_ERR");
	pair_close(&e);
	pair_open(&e);
	st = bind2(&e, mw, ibv_inc_rkey(rkey), e.mr, WOFF, WLEN, rw);
	check(st == IBV_WC_SUCCESS, "MW type 2: bind");
	st = bind2(&e, mw, ibv_inc_rkey(ibv_inc_rkey(rkey)), e.mr, WOFF, WLEN,
		   rw);
	check(st == IBV_WC_MW_BIND_ERR,
	      "MW type 2: bound again without invalidation: MW_BIND_ERR");
	pair_close(&e);
	pair_open(&e);
	rkey = ibv_inc_rkey(ibv_inc_rkey(ibv_inc_rkey(rkey)));
	st = bind2(&e, mw, rkey, e.mr, WOFF, WLEN, rw);
	check(st == IBV_WC_SUCCESS,
	      "MW type 2: free again once the QP that bound it is destroyed");
	pair_close(&e);
	ibv_dealloc_mw(mw);

	/* out of the window, or without the right: refused, nothing written */
	mw = bound_pair(&e, &rkey, WOFF, WLEN, rw);
	st = mw ? rdma(&e, IBV_WR_RDMA_WRITE, rkey, WOFF + WLEN - 8, 16) : -1;
	refused(&e, st, "MW type 2: RDMA WRITE across the window's end");
	pair_close(&e);
	if (mw)
		ibv_dealloc_mw(mw);
	mw = bound_pair(&e, &rkey, WOFF, WLEN, rw);
	st = mw ? rdma(&e, IBV_WR_RDMA_READ, rkey, WOFF - 1, 2) : -1;
	refused(&e, st, "MW type 2: RDMA READ across the window's start");
	pair_close(&e);
	if (mw)
		ibv_dealloc_mw(mw);
	mw = bound_pair(&e, &rkey, WOFF, WLEN, IBV_ACCESS_REMOTE_READ);
	st = mw ? rdma(&e, IBV_WR_RDMA_WRITE, rkey, WOFF, 8) : -1;
	refused(&e, st, "MW type 2: RDMA WRITE through a read-only window");
	pair_close(&e);
	if (mw)
		ibv_dealloc_mw(mw);

	/* freed while bound: refused */
	mw = bound_pair(&e, &rkey, WOFF, WLEN, rw);
	if (mw)
		ibv_dealloc_mw(mw);
	st = mw ? rdma(&e, IBV_WR_RDMA_WRITE, rkey, WOFF, 8) : -1;
	refused(&e, st, "MW type 2: after ibv_dealloc_mw");
	pair_close(&e);

	/* type 1: ibv_bind_mw, new rkey, unbind by a zero-length bind */
	pair_open(&e);
	old = mw1->rkey;
	bind = (struct ibv_mw_bind){
		.wr_id = 0xb5, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = e.mr, .addr = (uintptr_t)e.buf + WOFF,
			       .length = WLEN, .mw_access_flags = rw },
	};
	ok = !ibv_bind_mw(e.qb, mw1, &bind) &&
	     expect_wc(b->cq, 0xb5, IBV_WC_BIND_MW, &wc);
	check(ok && mw1->rkey == ibv_inc_rkey(old),
	      "MW type 1: ibv_bind_mw completes, the rkey's low byte moved on");
	fill(a->buf, 64, 43);
	st = rdma(&e, IBV_WR_RDMA_WRITE, mw1->rkey, WOFF + 64, 64);
	check(st == IBV_WC_SUCCESS && !memcmp(e.buf + WOFF + 64, a->buf, 64),
	      "MW type 1: RDMA WRITE through the window");
	old = mw1->rkey;
	bind.wr_id = 0xb6;
	bind.bind_info.length = 0;
	bind.bind_info.mw_access_flags = 0;
	ok = !ibv_bind_mw(e.qb, mw1, &bind) &&
	     expect_wc(b->cq, 0xb6, IBV_WC_BIND_MW, &wc);
	check(ok, "MW type 1: zero-length bind completes");
	memset(e.buf, GUARD, MWBUF);
	st = rdma(&e, IBV_WR_RDMA_WRITE, old, WOFF, 8);
	refused(&e, st, "MW type 1: the old rkey after a zero-length bind");
	pair_close(&e);
	pair_open(&e);
	{
		struct ibv_send_wr wr = {
			.opcode = IBV_WR_BIND_MW,
			.bind_mw = { .mw = mw1, .rkey = mw1->rkey },
		}, *bad;

		check(ibv_post_send(e.qb, &wr, &bad) == EINVAL,
		      "MW type 1: ibv_post_send BIND_MW is EINVAL (ibv_bind_mw only)");
	}
	ibv_wr_start(e.xb);
	e.xb->wr_id = 0xb7;
	e.xb->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_local_inv(e.xb, mw1->rkey);
	st = ibv_wr_complete(e.xb) ? -1 : wc_status(b->cq, 0xb7, &wc);
	check(st > 0 && qp_state(e.qb) == IBV_QPS_ERR,
	      "MW type 1: LOCAL_INV fails, QP in ERR");
	pair_close(&e);

	/* an MR deregistered under a bound window: the window is dead */
	pair_open(&e);
	bind.wr_id = 0xb8;
	bind.bind_info.length = WLEN;
	bind.bind_info.mw_access_flags = rw;
	ok = !ibv_bind_mw(e.qb, mw1, &bind) &&
	     expect_wc(b->cq, 0xb8, IBV_WC_BIND_MW, &wc);
	check(ok && !ibv_dereg_mr(e.mr),
	      "MW type 1: bound, then its MR deregistered");
	e.mr = NULL;
	st = rdma(&e, IBV_WR_RDMA_WRITE, mw1->rkey, WOFF, 8);
	refused(&e, st, "MW type 1: after its MR was deregistered");
	pair_close(&e);

out:
	check(!ibv_dealloc_mw(mw1) && (!e.mr || !ibv_dereg_mr(e.mr)) &&
	      !ibv_dereg_mr(e.ro), "MW: dealloc and dereg");
	free(e.buf);
}

/*
 * Remote access errors on plain MRs: a bad rkey, an access past the MR's
 * end, and an operation the MR does not allow each end in REM_ACCESS_ERR at
 * the requester and the responder QP in ERR, with b's memory untouched.
 */
static void check_mr_access(struct side *a, struct side *b)
{
	struct mwenv e = { .a = a, .b = b };
	struct ibv_mr *wo, *ro;
	struct ibv_wc wc;
	int st;

	e.buf = aligned_alloc(4096, MWBUF);
	if (!e.buf)
		die("MR buffer");
	wo = ibv_reg_mr(b->pd, e.buf, MWBUF, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	ro = ibv_reg_mr(b->pd, e.buf, MWBUF, IBV_ACCESS_REMOTE_READ);
	if (!wo || !ro)
		die("MRs for the access checks");

	pair_open(&e);
	st = rdma(&e, IBV_WR_RDMA_WRITE, wo->rkey, 0, 64);
	check(st == IBV_WC_SUCCESS, "MR: RDMA WRITE within a write-only MR");
	memset(e.buf, GUARD, MWBUF);
	st = rdma(&e, IBV_WR_RDMA_WRITE, wo->rkey ^ 0x00ffff00, 0, 64);
	refused(&e, st, "MR: RDMA WRITE with a bad rkey");
	pair_close(&e);

	pair_open(&e);
	st = rdma(&e, IBV_WR_RDMA_WRITE, wo->rkey, MWBUF - 8, 16);
	refused(&e, st, "MR: RDMA WRITE across the MR's end");
	pair_close(&e);

	pair_open(&e);
	st = rdma(&e, IBV_WR_RDMA_READ, wo->rkey, 0, 64);
	refused(&e, st, "MR: RDMA READ of an MR without REMOTE_READ");
	pair_close(&e);

	pair_open(&e);
	st = rdma(&e, IBV_WR_RDMA_WRITE, ro->rkey, 0, 64);
	refused(&e, st, "MR: RDMA WRITE to a read-only MR");
	pair_close(&e);

	pair_open(&e);
	ibv_wr_start(e.xa);
	e.xa->wr_id = 0xa9;
	e.xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(e.xa, wo->rkey, (uintptr_t)e.buf + 64, 1);
	ibv_wr_set_sge(e.xa, a->mr->lkey, (uintptr_t)a->buf, 8);
	st = ibv_wr_complete(e.xa) ? -1 : wc_status(a->cq, 0xa9, &wc);
	refused(&e, st, "MR: ATOMIC on an MR without REMOTE_ATOMIC");
	pair_close(&e);

	check(!ibv_dereg_mr(wo) && !ibv_dereg_mr(ro), "MR: dereg");
	free(e.buf);
}

/* ---- ibv_reg_dmabuf_mr ----------------------------------------------------- */

/* a new buffer of the test exporter (MROCE_DMABUF_F_* @flags): its fd */
static int dmabuf_new(int dev, unsigned int flags)
{
	struct mroce_dmabuf_create c = { .size = MWBUF, .flags = flags };

	if (ioctl(dev, MROCE_DMABUF_CREATE, &c))
		die("the test exporter's CREATE");
	return c.fd;
}

/* the exporter sees @fd's buffer attached, pinned and vmapped so often */
static int dmabuf_is(int dev, int fd, unsigned int attached,
		     unsigned int pinned, unsigned int vmapped)
{
	struct mroce_dmabuf_state st = { .fd = fd };

	if (ioctl(dev, MROCE_DMABUF_STATE, &st))
		die("the test exporter's STATE");
	if (st.attached != attached || st.pinned != pinned ||
	    st.vmapped != vmapped)
		printf("# dma-buf: attached %u pinned %u vmapped %u (pin calls %u)\n",
		       st.attached, st.pinned, st.vmapped, st.pin_calls);
	return st.attached == attached && st.pinned == pinned &&
	       st.vmapped == vmapped;
}

/* ibv_reg_dmabuf_mr of the whole of @fd with @access fails with @err */
static int dmabuf_refused(struct side *b, int fd, int access, int err)
{
	struct ibv_mr *mr = ibv_reg_dmabuf_mr(b->pd, 0, MWBUF, 0, fd, access);

	if (mr) {
		ibv_dereg_mr(mr);
		return 0;
	}
	if (errno != err)
		printf("# dma-buf: errno %d (%s)\n", errno, strerror(errno));
	return errno == err;
}

/*
 * The fd's mode and the exporter's pin: a read-only dma-buf takes no
 * right that writes (EACCES) but a read-only MR that a READ reads; a
 * write-only one takes none; an exporter whose pin fails is refused
 * (EOPNOTSUPP) and left as it was; a static exporter (no pin/unpin) is
 * attached, not pinned, while the MR lives. None of it leaks an
 * attachment, a pin or a mapping.
 */
static void check_dmabuf_exporters(struct side *a, struct side *b, int dev)
{
	const int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		       IBV_ACCESS_REMOTE_READ;
	struct mwenv e = { .a = a, .b = b };
	struct ibv_mr *mr;
	uint8_t *map;
	int fd, st;

	fd = dmabuf_new(dev, MROCE_DMABUF_F_RDONLY);
	check(dmabuf_refused(b, fd, IBV_ACCESS_LOCAL_WRITE, EACCES) &&
	      dmabuf_refused(b, fd, rw, EACCES) &&
	      dmabuf_refused(b, fd, IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_ATOMIC, EACCES) &&
	      dmabuf_is(dev, fd, 0, 0, 0),
	      "dmabuf: an O_RDONLY dma-buf: local write, remote write, atomic refused (EACCES), nothing held");
	/* e.buf: only the iovas rdma() names (the fd cannot be mapped writable) */
	e.buf = aligned_alloc(4096, MWBUF);
	if (!e.buf)
		die("buffer");
	mr = ibv_reg_dmabuf_mr(b->pd, 0, MWBUF, (uintptr_t)e.buf, fd,
			       IBV_ACCESS_REMOTE_READ);
	check(mr && dmabuf_is(dev, fd, 1, 1, 1),
	      "dmabuf: an O_RDONLY dma-buf: a REMOTE_READ MR, attached, pinned, mapped");
	if (mr) {
		pair_open(&e);
		memset(a->buf, 0x77, 4096);
		st = rdma(&e, IBV_WR_RDMA_READ, mr->rkey, 8192, 4096);
		check(st == IBV_WC_SUCCESS && !memchr(a->buf, 0x77, 4096),
		      "dmabuf: an RDMA READ of the O_RDONLY dma-buf (its zeroes)");
		pair_close(&e);
		check(!ibv_dereg_mr(mr) && dmabuf_is(dev, fd, 0, 0, 0),
		      "dmabuf: its dereg unpins, unmaps, detaches");
	}
	free(e.buf);
	close(fd);

	fd = dmabuf_new(dev, MROCE_DMABUF_F_WRONLY);
	check(dmabuf_refused(b, fd, IBV_ACCESS_REMOTE_READ, EACCES) &&
	      dmabuf_refused(b, fd, rw, EACCES) && dmabuf_is(dev, fd, 0, 0, 0),
	      "dmabuf: an O_WRONLY dma-buf is refused (EACCES), nothing held");
	close(fd);

	fd = dmabuf_new(dev, MROCE_DMABUF_F_NOPIN);
	check(dmabuf_refused(b, fd, rw, EOPNOTSUPP) &&
	      dmabuf_refused(b, fd, IBV_ACCESS_REMOTE_READ, EOPNOTSUPP) &&
	      dmabuf_is(dev, fd, 0, 0, 0),
	      "dmabuf: an exporter that cannot pin is refused (EOPNOTSUPP), nothing held");
	close(fd);

	fd = dmabuf_new(dev, MROCE_DMABUF_F_STATIC);
	map = mmap(NULL, MWBUF, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap of the static dma-buf");
	mr = ibv_reg_dmabuf_mr(b->pd, 0, MWBUF, (uintptr_t)map, fd, rw);
	check(mr && dmabuf_is(dev, fd, 1, 0, 1),
	      "dmabuf: a static exporter (no pin): attached and mapped while the MR lives");
	if (mr) {
		e.buf = map;
		pair_open(&e);
		fill(a->buf, 4096, 24);
		st = rdma(&e, IBV_WR_RDMA_WRITE, mr->rkey, 4096, 4096);
		check(st == IBV_WC_SUCCESS && !memcmp(map + 4096, a->buf, 4096),
		      "dmabuf: an RDMA WRITE into the static exporter's buffer");
		pair_close(&e);
		check(!ibv_dereg_mr(mr) && dmabuf_is(dev, fd, 0, 0, 0),
		      "dmabuf: its dereg unmaps and detaches");
	}
	munmap(map, MWBUF);
	close(fd);
}

/*
 * A buffer of the test exporter (tests/kmod/mroce_dmabuf_exp.ko), mapped
 * here, registered on b with ibv_reg_dmabuf_mr: the exporter sees it
 * attached, pinned and mapped while the MR lives, and nothing after dereg;
 * a WRITE, a READ and a SEND from a land where they should (checked
 * through the mapping); a range past the dma-buf and an fd that is not one
 * are refused. Then the fd's mode and exporters that cannot pin
 * (check_dmabuf_exporters()).
 */
static void check_dmabuf(struct side *a, struct side *b)
{
	const int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		       IBV_ACCESS_REMOTE_READ;
	struct mwenv e = { .a = a, .b = b };
	struct ibv_mr *mr, *bad;
	struct ibv_wc wc;
	uint8_t *map;
	int dev, fd, st, ok;

	dev = open(MROCE_DMABUF_DEV, O_RDWR);
	if (dev < 0)
		die("the test exporter (" MROCE_DMABUF_DEV ")");
	fd = dmabuf_new(dev, 0);
	map = mmap(NULL, MWBUF, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap of the dma-buf");
	mr = ibv_reg_dmabuf_mr(b->pd, 0, MWBUF, (uintptr_t)map, fd, rw);
	check(mr != NULL, "dmabuf: ibv_reg_dmabuf_mr of a 64 KiB dma-buf");
	if (!mr)
		return;
	check(dmabuf_is(dev, fd, 1, 1, 1),
	      "dmabuf: the exporter sees it attached, pinned and mapped while the MR lives");
	bad = ibv_reg_dmabuf_mr(b->pd, 4096, MWBUF, 0, fd, rw);
	check(!bad && errno == EINVAL,
	      "dmabuf: a range past the dma-buf's end: EINVAL");
	bad = ibv_reg_dmabuf_mr(b->pd, 0, 4096, 0, dev, rw);
	check(!bad, "dmabuf: an fd that is not a dma-buf is refused");

	e.buf = map;
	pair_open(&e);		/* the buffer is GUARD now */
	fill(a->buf, 8192, 21);
	st = rdma(&e, IBV_WR_RDMA_WRITE, mr->rkey, 100, 5000);
	check(st == IBV_WC_SUCCESS && !memcmp(map + 100, a->buf, 5000) &&
	      map[99] == GUARD && map[5100] == GUARD,
	      "dmabuf: an RDMA WRITE lands in the dma-buf's pages");
	fill(map + 20000, 3000, 22);
	memset(a->buf, 0, 3000);
	st = rdma(&e, IBV_WR_RDMA_READ, mr->rkey, 20000, 3000);
	check(st == IBV_WC_SUCCESS && !memcmp(a->buf, map + 20000, 3000),
	      "dmabuf: an RDMA READ reads them");
	memset(map, GUARD, MWBUF);
	st = rdma(&e, IBV_WR_RDMA_WRITE, mr->rkey, MWBUF - 8, 16);
	refused(&e, st, "dmabuf: a WRITE across the MR's end");
	pair_close(&e);

	pair_open(&e);
	{
		struct ibv_sge sge = { .addr = (uintptr_t)map + 40000,
				       .length = 2000, .lkey = mr->lkey };
		struct ibv_recv_wr r = { .wr_id = 0xd1, .sg_list = &sge,
					 .num_sge = 1 }, *br;

		if (ibv_post_recv(e.qb, &r, &br))
			die("dmabuf recv");
	}
	fill(a->buf, 2000, 23);
	ibv_wr_start(e.xa);
	e.xa->wr_id = 0xd2;
	e.xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(e.xa);
	ibv_wr_set_sge(e.xa, a->mr->lkey, (uintptr_t)a->buf, 2000);
	ok = !ibv_wr_complete(e.xa) &&
	     expect_wc(a->cq, 0xd2, IBV_WC_SEND, &wc) &&
	     expect_wc(b->cq, 0xd1, IBV_WC_RECV, &wc);
	check(ok && !memcmp(map + 40000, a->buf, 2000),
	      "dmabuf: a SEND into a receive in the dma-buf");
	pair_close(&e);

	check(!ibv_dereg_mr(mr), "dmabuf: dereg");
	check(dmabuf_is(dev, fd, 0, 0, 0),
	      "dmabuf: after dereg the exporter sees no attachment, pin or mapping");
	munmap(map, MWBUF);
	close(fd);
	check_dmabuf_exporters(a, b, dev);
	close(dev);
}

/* ---- ibv_rereg_mr ---------------------------------------------------------- */

/*
 * Re-registration: translation, rights and PD each take effect under the
 * same keys (the old pages are out of reach, the new ones in), and a WRITE
 * racing a re-registration of its target either lands in the old pages or
 * is refused, never in the new ones.
 */
static void check_rereg(struct side *a, struct side *b)
{
	const int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		       IBV_ACCESS_REMOTE_READ;
	struct mwenv e = { .a = a, .b = b };
	uint8_t *buf1, *buf2, *cur;
	struct ibv_pd *pd2;
	struct ibv_mr *mr;
	uint32_t old;
	int st, i, bad;

	buf1 = aligned_alloc(4096, MWBUF);
	buf2 = aligned_alloc(4096, MWBUF);
	pd2 = ibv_alloc_pd(b->ctx);
	if (!buf1 || !buf2 || !pd2)
		die("rereg buffers");
	mr = ibv_reg_mr(b->pd, buf1, MWBUF, rw);
	if (!mr)
		die("rereg MR");
	e.buf = buf1;
	memset(a->buf, 0x11, MWBUF);	/* what every WRITE here writes: not GUARD */

	pair_open(&e);
	memset(buf2, GUARD, MWBUF);
	st = rdma(&e, IBV_WR_RDMA_WRITE, mr->rkey, 0, 64);
	check(st == IBV_WC_SUCCESS, "rereg: WRITE before");
	old = mr->rkey;
	st = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, buf2,
			  MWBUF, 0);
	check(!st && mr->rkey == old && mr->addr == buf2,
	      "rereg: CHANGE_TRANSLATION to another buffer, the keys kept");
	memset(buf1, GUARD, MWBUF);
	e.buf = buf2;		/* rdma() aims at e.buf + offset */
	st = rdma(&e, IBV_WR_RDMA_WRITE, mr->rkey, 128, 64);
	check(st == IBV_WC_SUCCESS && buf2[128] != GUARD && buf1[128] == GUARD,
	      "rereg: WRITE with the new rkey lands in the new buffer only");
	e.buf = buf1;
	memset(buf2, GUARD, MWBUF);
	st = rdma(&e, IBV_WR_RDMA_WRITE, mr->rkey, 0, 64);
	check(st == IBV_WC_REM_ACCESS_ERR && buf1[0] == GUARD &&
	      buf2[0] == GUARD,
	      "rereg: WRITE to the old buffer's address is refused, neither buffer written");
	pair_close(&e);

	e.buf = buf2;
	pair_open(&e);
	st = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	check(!st, "rereg: CHANGE_ACCESS to remote read only");
	st = rdma(&e, IBV_WR_RDMA_READ, mr->rkey, 0, 64);
	check(st == IBV_WC_SUCCESS, "rereg: READ allowed by the new rights");
	st = rdma(&e, IBV_WR_RDMA_WRITE, mr->rkey, 0, 64);
	refused(&e, st, "rereg: WRITE the new rights no longer allow");
	pair_close(&e);

	pair_open(&e);
	st = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD | IBV_REREG_MR_CHANGE_ACCESS,
			  pd2, NULL, 0, rw);
	check(!st && mr->pd == pd2, "rereg: CHANGE_PD to a second PD");
	st = rdma(&e, IBV_WR_RDMA_WRITE, mr->rkey, 0, 64);
	refused(&e, st, "rereg: WRITE from a QP of the old PD");
	pair_close(&e);
	/* a SEND into a receive in the MR, now of another PD (pyverbs' test) */
	pair_open(&e);
	{
		struct ibv_sge sge = { .addr = (uintptr_t)buf2, .length = 64,
				       .lkey = mr->lkey };
		struct ibv_recv_wr rw = { .wr_id = 0xb7, .sg_list = &sge,
					  .num_sge = 1 }, *br;
		struct ibv_wc wc;

		post_recv(e.qa, a, 0xa7, 0, 64);	/* a's own receive */
		if (ibv_post_recv(e.qb, &rw, &br))
			die("rereg recv");
		ibv_wr_start(e.xa);
		e.xa->wr_id = 0xa8;
		e.xa->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(e.xa);
		ibv_wr_set_sge(e.xa, a->mr->lkey, (uintptr_t)a->buf, 64);
		st = ibv_wr_complete(e.xa) ? -1 : wc_status(a->cq, 0xa8, &wc);
		check(st == IBV_WC_REM_OP_ERR,
		      "rereg: a SEND into a receive whose MR moved to another PD: REM_OP_ERR first at the requester");
	}
	pair_close(&e);
	st = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, b->pd, NULL, 0, 0);
	check(!st, "rereg: CHANGE_PD back");
	cur = buf2;

	/* a 64 KiB WRITE racing the re-registration of its target */
	bad = 0;
	for (i = 0; i < 20 && !bad; i++) {
		uint8_t *from = cur, *to = cur == buf1 ? buf2 : buf1;
		struct ibv_wc wc;
		size_t k;

		e.buf = from;
		pair_open(&e);		/* from: guard */
		memset(to, GUARD, MWBUF);
		ibv_wr_start(e.xa);
		e.xa->wr_id = 0xa1;
		e.xa->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(e.xa, mr->rkey, (uintptr_t)from);
		ibv_wr_set_sge(e.xa, a->mr->lkey, (uintptr_t)a->buf, MWBUF);
		if (ibv_wr_complete(e.xa))
			die("racing WRITE");
		if (ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, to,
				 MWBUF, 0))
			bad = 1;
		cur = to;
		st = wc_status(a->cq, 0xa1, &wc);
		if (st != IBV_WC_SUCCESS && st != IBV_WC_REM_ACCESS_ERR)
			bad = 2;
		for (k = 0; k < MWBUF; k++)
			if (to[k] != GUARD)
				bad = 3;
		if (bad)
			printf("#   round %d: %d (%s)\n", i, bad,
			       st < 0 ? "none" : ibv_wc_status_str(st));
		pair_close(&e);
	}
	check(!bad, "rereg: 20 WRITEs racing a CHANGE_TRANSLATION: SUCCESS or REM_ACCESS_ERR, never into the new pages");

	check(!ibv_dereg_mr(mr) && !ibv_dealloc_pd(pd2), "rereg: dereg");
	free(buf1);
	free(buf2);
}

/*
 * ibv_rereg_mr under a bound window. A type 1 window bound with
 * REMOTE_WRITE to an MR of LOCAL_WRITE | MW_BIND must not follow the MR
 * onto other pages or rights: while it is bound, every re-registration
 * (rights alone, PD, translation and rights onto a read-only MAP_PRIVATE
 * mapping of a file, without LOCAL_WRITE) fails with EBUSY, and a WRITE
 * through the window keeps landing in the MR's own pages, never in the
 * file's. Unbound, the same re-registration works, the window's old rkey
 * is refused and the window cannot be bound to the read-only MR.
 */
#define FILEB	0x3c	/* the file's bytes */

static int all_bytes(const uint8_t *p, size_t len, uint8_t v)
{
	while (len--)
		if (*p++ != v)
			return 0;
	return 1;
}

/* ibv_rereg_mr(), 0 or the errno of its failure */
static int rereg_errno(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
		       void *addr, size_t len, int access)
{
	errno = 0;
	if (!ibv_rereg_mr(mr, flags, pd, addr, len, access))
		return 0;
	return errno ? errno : -1;
}

static void check_rereg_mw(struct side *a, struct side *b)
{
	const unsigned int rw = IBV_ACCESS_REMOTE_WRITE |
				IBV_ACCESS_REMOTE_READ;
	const int trans = IBV_REREG_MR_CHANGE_TRANSLATION |
			  IBV_REREG_MR_CHANGE_ACCESS;
	char path[] = "/tmp/mroce-wr-check.XXXXXX";
	struct mwenv e = { .a = a, .b = b };
	struct ibv_mw_bind bind;
	uint8_t *buf, *spare;
	struct ibv_pd *pd2;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t old;
	int fd, st, err, ok;
	char desc[200];

	/* the MR's pages: anonymous, so that the file can be mapped over them */
	buf = mmap(NULL, MWBUF, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	spare = aligned_alloc(4096, MWBUF);
	pd2 = ibv_alloc_pd(b->ctx);
	fd = mkstemp(path);
	if (buf == MAP_FAILED || !spare || !pd2 || fd < 0)
		die("rereg-mw buffers");
	memset(spare, FILEB, MWBUF);
	if (write(fd, spare, MWBUF) != MWBUF)
		die("rereg-mw file");
	close(fd);
	fd = open(path, O_RDONLY);	/* from here on, read only */
	unlink(path);
	if (fd < 0)
		die("rereg-mw file");
	e.buf = buf;
	e.mr = ibv_reg_mr(b->pd, buf, MWBUF, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_MW_BIND);
	mw = ibv_alloc_mw(b->pd, IBV_MW_TYPE_1);
	if (!e.mr || !mw)
		die("rereg-mw MR and MW");

	pair_open(&e);
	bind = (struct ibv_mw_bind){
		.wr_id = 0xc1, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = e.mr, .addr = (uintptr_t)buf + WOFF,
			       .length = WLEN, .mw_access_flags = rw },
	};
	ok = !ibv_bind_mw(e.qb, mw, &bind) &&
	     expect_wc(b->cq, 0xc1, IBV_WC_BIND_MW, &wc);
	fill(a->buf, 64, 60);
	st = ok ? rdma(&e, IBV_WR_RDMA_WRITE, mw->rkey, WOFF, 64) : -1;
	check(st == IBV_WC_SUCCESS && !memcmp(buf + WOFF, a->buf, 64),
	      "rereg under a window: type 1 MW bound with REMOTE_WRITE, WRITE through it");
	if (st != IBV_WC_SUCCESS)
		goto out;

	/* bound: no re-registration at all */
	err = rereg_errno(e.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, 0);
	snprintf(desc, sizeof(desc),
		 "rereg under a window: CHANGE_ACCESS to no rights fails with EBUSY (%s)",
		 err > 0 ? strerror(err) : err ? "failed" : "succeeded");
	check(err == EBUSY, desc);
	err = rereg_errno(e.mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0);
	check(err == EBUSY && e.mr->pd == b->pd,
	      "rereg under a window: CHANGE_PD fails with EBUSY");
	if (!err)	/* keep the rest meaningful */
		ibv_rereg_mr(e.mr, IBV_REREG_MR_CHANGE_PD, b->pd, NULL, 0, 0);
	fill(a->buf, WLEN, 61);
	st = rdma(&e, IBV_WR_RDMA_WRITE, mw->rkey, WOFF, WLEN);
	check(st == IBV_WC_SUCCESS && !memcmp(buf + WOFF, a->buf, WLEN) &&
	      guarded(&e, 0, WOFF) &&
	      guarded(&e, WOFF + WLEN, MWBUF - WOFF - WLEN),
	      "rereg under a window: WRITE through it lands in the window only");

	/*
	 * The attack: the file, read only, mapped over the MR's range, and
	 * the MR re-registered onto it without LOCAL_WRITE. Were it allowed,
	 * the window's WRITE would land in the file's pages (on 6.1 a private
	 * copy, mapped at buf; from 6.2 on, the page cache).
	 */
	if (mmap(buf, MWBUF, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) !=
	    buf)
		die("rereg-mw: mmap the file");
	err = rereg_errno(e.mr, trans, NULL, buf, MWBUF, 0);
	snprintf(desc, sizeof(desc),
		 "rereg under a window: CHANGE_TRANSLATION | CHANGE_ACCESS onto a read-only file mapping, no LOCAL_WRITE, fails with EBUSY (%s)",
		 err > 0 ? strerror(err) : err ? "failed" : "succeeded");
	check(err == EBUSY, desc);
	fill(a->buf, WLEN, 62);
	st = rdma(&e, IBV_WR_RDMA_WRITE, mw->rkey, WOFF, WLEN);
	ok = st == IBV_WC_SUCCESS && all_bytes(buf, MWBUF, FILEB);
	check(ok, "rereg under a window: a WRITE through it still lands in the MR's old pages, the file mapping untouched");
	/* and there indeed: read it back through the window */
	memset(a->buf, 0, WLEN);
	st = ok ? rdma(&e, IBV_WR_RDMA_READ, mw->rkey, WOFF, WLEN) : -1;
	fill(spare, WLEN, 62);
	check(st == IBV_WC_SUCCESS && !memcmp(a->buf, spare, WLEN),
	      "rereg under a window: READ through it returns that WRITE");

	/* unbound: the same re-registration works; the window is dead */
	old = mw->rkey;
	bind.wr_id = 0xc2;
	bind.bind_info.length = 0;
	bind.bind_info.mw_access_flags = 0;
	ok = !ibv_bind_mw(e.qb, mw, &bind) &&
	     expect_wc(b->cq, 0xc2, IBV_WC_BIND_MW, &wc);
	err = ok ? rereg_errno(e.mr, trans, NULL, buf, MWBUF, 0) : -1;
	snprintf(desc, sizeof(desc),
		 "rereg after a zero-length bind: CHANGE_TRANSLATION | CHANGE_ACCESS onto the file mapping works (%s)",
		 !ok ? "the bind failed" : err > 0 ? strerror(err) : err ? "error" : "ok");
	check(!err && e.mr->addr == buf, desc);
	st = rdma(&e, IBV_WR_RDMA_WRITE, old, WOFF, 8);
	check(st == IBV_WC_REM_ACCESS_ERR && all_bytes(buf, MWBUF, FILEB),
	      "rereg after unbinding: the window's old rkey is refused (REM_ACCESS_ERR), the file mapping untouched");
	pair_close(&e);
	e.buf = spare;		/* pair_open() writes e.buf: not the file */
	pair_open(&e);
	bind.wr_id = 0xc3;
	bind.bind_info.length = WLEN;
	bind.bind_info.mw_access_flags = rw;
	st = ibv_bind_mw(e.qb, mw, &bind) ? -1 : wc_status(b->cq, 0xc3, &wc);
	check(st == IBV_WC_MW_BIND_ERR,
	      "rereg: a window cannot be bound with REMOTE_WRITE to the MR without MW_BIND and LOCAL_WRITE");
out:
	pair_close(&e);
	check(!ibv_dealloc_mw(mw) && !ibv_dereg_mr(e.mr) &&
	      !ibv_dealloc_pd(pd2), "rereg under a window: dealloc and dereg");
	munmap(buf, MWBUF);
	close(fd);
	free(spare);
}

static void check_uc(struct side *a, struct side *b)
{
	struct ibv_qp *qa = qp_ex(a, IBV_QPT_UC, UC_OPS, NULL);
	struct ibv_qp *qb = qp_legacy(b, IBV_QPT_UC);
	struct ibv_qp_ex *x = qa ? ibv_qp_to_qp_ex(qa) : NULL;
	uint64_t rb = (uintptr_t)b->buf, la = (uintptr_t)a->buf;
	uint32_t rkey = b->mr->rkey, lkey = a->mr->lkey;
	struct ibv_sge sge = { .addr = la, .length = 64, .lkey = lkey };
	struct ibv_send_wr wr = { .wr_id = 50, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_READ,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	int ok;

	if (!x || !qb)
		die("UC QPs");
	uc_connect(qa, a, qb->qp_num, &b->gid);
	uc_connect(qb, b, qa->qp_num, &a->gid);
	check(qp_state(qa) == IBV_QPS_RTS && qp_state(qb) == IBV_QPS_RTS,
	      "UC QPs in RTS (no timeout, retry or RNR attributes)");

	fill(a->buf, 4096, 11);
	post_recv(qb, b, 200, 0, 8192);
	ibv_wr_start(x);
	x->wr_id = 20;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(x, htonl(7));
	ibv_wr_set_sge(x, lkey, la, 4096);
	check(!ibv_wr_complete(x), "UC wr_send_imm: wr_complete");
	ok = expect_wc(a->cq, 20, IBV_WC_SEND, &wc);
	ok &= expect_wc(b->cq, 200, IBV_WC_RECV, &wc) && wc.byte_len == 4096 &&
	      wc.wc_flags & IBV_WC_WITH_IMM && wc.imm_data == htonl(7);
	check(ok && !memcmp(a->buf, b->buf, 4096), "UC wr_send_imm: 4 KiB arrived");

	fill(a->buf, 6000, 12);
	post_recv(qb, b, 201, 0, 16);
	ibv_wr_start(x);
	x->wr_id = 21;
	ibv_wr_rdma_write(x, rkey, rb + 8192);
	ibv_wr_set_sge(x, lkey, la, 6000);
	x->wr_id = 22;
	ibv_wr_rdma_write_imm(x, rkey, rb + 16384, htonl(8));
	ibv_wr_set_sge(x, lkey, la, 300);
	check(!ibv_wr_complete(x), "UC wr_rdma_write, wr_rdma_write_imm: wr_complete");
	ok = expect_wc(a->cq, 21, IBV_WC_RDMA_WRITE, &wc);
	ok &= expect_wc(a->cq, 22, IBV_WC_RDMA_WRITE, &wc);
	ok &= expect_wc(b->cq, 201, IBV_WC_RECV_RDMA_WITH_IMM, &wc) &&
	      wc.imm_data == htonl(8);
	check(ok && !memcmp(a->buf, b->buf + 8192, 6000) &&
	      !memcmp(a->buf, b->buf + 16384, 300),
	      "UC RDMA WRITE and WRITE with immediate: data, immediate");

	ibv_wr_start(x);
	ibv_wr_rdma_read(x, rkey, rb);
	ibv_wr_set_sge(x, lkey, la, 64);
	session_fails(x, a, EINVAL, "UC wr_rdma_read");
	ibv_wr_start(x);
	ibv_wr_atomic_fetch_add(x, rkey, rb, 1);
	ibv_wr_set_sge(x, lkey, la, 8);
	session_fails(x, a, EINVAL, "UC wr_atomic_fetch_add");
	check(ibv_post_send(qb, &wr, &bad) == EINVAL && bad == &wr &&
	      cq_empty(b->cq, 100), "UC ibv_post_send RDMA_READ: EINVAL");

	/* a WRITE that may not land: dropped, the requester is not told */
	memset(b->buf + 24576, 0x5a, 1000);
	ibv_wr_start(x);
	x->wr_id = 23;
	ibv_wr_rdma_write(x, rkey + 0x100, rb + 24576);
	ibv_wr_set_sge(x, lkey, la, 1000);
	x->wr_id = 24;
	ibv_wr_rdma_write(x, rkey, rb + 0x7fff0000ull);
	ibv_wr_set_sge(x, lkey, la, 1000);
	check(!ibv_wr_complete(x), "UC WRITEs with a bad rkey, out of range: wr_complete");
	ok = expect_wc(a->cq, 23, IBV_WC_RDMA_WRITE, &wc);
	ok &= expect_wc(a->cq, 24, IBV_WC_RDMA_WRITE, &wc);
	check(ok && b->buf[24576] == 0x5a && b->buf[25575] == 0x5a &&
	      cq_empty(b->cq, 100) && qp_state(qb) == IBV_QPS_RTS,
	      "UC bad WRITEs: requester succeeds, nothing lands, responder stays RTS");

	/* a SEND too long for its receive fails the responder alone */
	post_recv(qb, b, 202, 0, 100);
	ibv_wr_start(x);
	x->wr_id = 25;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, lkey, la, 200);
	check(!ibv_wr_complete(x), "UC SEND longer than the receive: wr_complete");
	ok = expect_wc(a->cq, 25, IBV_WC_SEND, &wc);
	ok &= poll1(b->cq, &wc, TMO_MS) == 1 && wc.wr_id == 202 &&
	      wc.status == IBV_WC_LOC_LEN_ERR;
	check(ok && qp_state(qa) == IBV_QPS_RTS,
	      "UC SEND too long: requester succeeds, receive LOC_LEN_ERR");
	check(!poll1(b->cq, &wc, 200) && qp_state(qb) == IBV_QPS_ERR,
	      "UC SEND too long: responder QP in ERR");

	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
}

/* ---- UD multicast ----------------------------------------------------------- */

/* @ip (IPv4 or IPv6) as a RoCE v2 GID */
static void ip_gid(const char *ip, union ibv_gid *g)
{
	memset(g, 0, sizeof(*g));
	if (inet_pton(AF_INET6, ip, g->raw) == 1)
		return;
	g->raw[10] = 0xff;
	g->raw[11] = 0xff;
	if (inet_pton(AF_INET, ip, g->raw + 12) != 1)
		die("inet_pton");
}

/* a global IPv6 GID of @s (2000::/3), its index, or -1 */
static int gid6_index(struct side *s, union ibv_gid *g)
{
	int i;

	for (i = 0; i < 64; i++)
		if (!ibv_query_gid(s->ctx, 1, i, g) && (g->raw[0] & 0xe0) == 0x20)
			return i;
	return -1;
}

static void ud_post_send(struct ibv_qp *qp, struct side *s, struct ibv_ah *ah,
			 uint64_t wr_id, uint32_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf + off, .length = len,
		.lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = 0xffffff,
			   .remote_qkey = QKEY },
	}, *bad;

	if (ibv_post_send(qp, &wr, &bad))
		die("ibv_post_send UD multicast");
}

/*
 * @n receives on @cq within the timeout, one for each QP of @qpn, from
 * @src_qp, @len bytes after the GRH equal to @data; then nothing more
 */
static int mc_recvs(struct ibv_cq *cq, struct side *s, const uint32_t *qpn,
		    int n, uint32_t src_qp, const uint8_t *data, uint32_t len)
{
	int i, k, seen = 0, ok = 1;
	struct ibv_wc wc;

	for (i = 0; i < n; i++) {
		if (poll1(cq, &wc, TMO_MS) != 1) {
			printf("#   multicast: %d of %d receives\n", i, n);
			return 0;
		}
		for (k = 0; k < n && qpn[k] != wc.qp_num; k++)
			;
		if (k == n || seen & 1 << k || wc.status != IBV_WC_SUCCESS ||
		    wc.opcode != IBV_WC_RECV || wc.byte_len != GRH + len ||
		    wc.src_qp != src_qp ||
		    memcmp(s->buf + wc.wr_id + GRH, data, len)) {
			printf("#   multicast: wc qp %u status %s len %u src %u\n",
			       wc.qp_num, ibv_wc_status_str(wc.status),
			       wc.byte_len, wc.src_qp);
			ok = 0;
		}
		seen |= 1 << (k < n ? k : 0);
	}
	return ok && cq_empty(cq, 300);
}

static void check_mcast(struct side *a, struct side *b)
{
	struct ibv_qp *qa1 = qp_legacy(a, IBV_QPT_UD);
	struct ibv_qp *qa2 = qp_legacy(a, IBV_QPT_UD);
	struct ibv_qp *qb = qp_legacy(b, IBV_QPT_UD);
	struct ibv_qp *rc = qp_legacy(a, IBV_QPT_RC);
	struct ibv_ah_attr aha = {
		.is_global = 1, .port_num = 1,
		.grh = { .sgid_index = b->gidx, .hop_limit = 1 },
	};
	union ibv_gid g4, g6, sg6;
	struct ibv_device_attr dev;
	uint32_t qpn[3];
	struct ibv_ah *ah, *ah6 = NULL;
	struct ibv_wc wc;
	int ok, sgidx6;

	if (!qa1 || !qa2 || !qb || !rc)
		die("multicast QPs");
	ud_ready(qa1);
	ud_ready(qa2);
	ud_ready(qb);
	ip_gid("239.1.2.3", &g4);
	ip_gid("ff0e::6d72:1", &g6);
	check(!ibv_query_device(a->ctx, &dev) && dev.max_mcast_grp > 0 &&
	      dev.max_mcast_qp_attach > 0 && dev.max_total_mcast_qp_attach > 0,
	      "query_device: max_mcast_grp, max_mcast_qp_attach, max_total_mcast_qp_attach");
	check(ibv_attach_mcast(rc, &g4, 0) == EINVAL, "attach_mcast an RC QP: EINVAL");
	check(ibv_attach_mcast(qa1, &a->gid, 0) == EINVAL,
	      "attach_mcast a unicast GID: EINVAL");
	check(ibv_detach_mcast(qa1, &g4, 0) == EINVAL,
	      "detach_mcast a group not attached: EINVAL");
	check(!ibv_attach_mcast(qa1, &g4, 0) && !ibv_attach_mcast(qa2, &g4, 0) &&
	      !ibv_attach_mcast(qb, &g4, 0), "attach_mcast 3 UD QPs to 239.1.2.3");

	/* from B to the group: both QPs on A, and B's own (loopback) */
	aha.grh.dgid = g4;
	ah = ibv_create_ah(b->pd, &aha);
	if (!ah)
		die("ibv_create_ah multicast");
	fill(b->buf + 8192, 300, 40);
	post_recv(qa1, a, 0, 0, 2048);
	post_recv(qa2, a, 2048, 2048, 2048);
	post_recv(qb, b, 4096, 4096, 2048);
	ud_post_send(qb, b, ah, 7000, 8192, 300);
	qpn[0] = qa1->qp_num;
	qpn[1] = qa2->qp_num;
	ok = mc_recvs(a->cq, a, qpn, 2, qb->qp_num, b->buf + 8192, 300);
	check(ok, "multicast SEND to 239.1.2.3: each QP attached on the other device got it once");
	ok = poll1(b->cq, &wc, TMO_MS) == 1;
	ok &= poll1(b->cq, &wc, TMO_MS) == 1;	/* the send and the loopback */
	check(ok && cq_empty(b->cq, 300), "multicast SEND: completed, and the sender's own attached QP got it");

	/* detached QPs get nothing */
	check(!ibv_detach_mcast(qa2, &g4, 0), "detach_mcast");
	post_recv(qa1, a, 0, 0, 2048);
	post_recv(qa2, a, 2048, 2048, 2048);
	post_recv(qb, b, 4096, 4096, 2048);
	fill(b->buf + 8192, 100, 41);
	ud_post_send(qb, b, ah, 7001, 8192, 100);
	ok = mc_recvs(a->cq, a, qpn, 1, qb->qp_num, b->buf + 8192, 100);
	check(ok, "after detach_mcast: only the QP still attached got it");
	ok = poll1(b->cq, &wc, TMO_MS) == 1 && poll1(b->cq, &wc, TMO_MS) == 1;
	check(ok && cq_empty(b->cq, 300), "sender: completion and its own copy");

	/* IPv6 group (MLD on the netdev), when both have a global IPv6 GID */
	sgidx6 = gid6_index(b, &sg6);
	if (sgidx6 >= 0 && gid6_index(a, &sg6) >= 0) {
		aha.grh.dgid = g6;
		aha.grh.sgid_index = sgidx6;
		ah6 = ibv_create_ah(b->pd, &aha);
		check(ah6 && !ibv_attach_mcast(qa2, &g6, 0),
		      "attach_mcast to ff0e::6d72:1");
		if (ah6) {
			fill(b->buf + 8192, 700, 42);
			ud_post_send(qb, b, ah6, 7002, 8192, 700);
			qpn[0] = qa2->qp_num;
			ok = mc_recvs(a->cq, a, qpn, 1, qb->qp_num,
				      b->buf + 8192, 700);
			check(ok, "multicast SEND to ff0e::6d72:1 arrived");
			ok = poll1(b->cq, &wc, TMO_MS) == 1 &&
			     wc.wr_id == 7002 && cq_empty(b->cq, 300);
			check(ok, "IPv6 multicast SEND completed (B is not attached)");
		}
	} else {
		printf("#   no global IPv6 GIDs: IPv6 multicast not checked\n");
	}

	/* nobody attached: nothing arrives */
	check(!ibv_detach_mcast(qa1, &g4, 0) && !ibv_detach_mcast(qb, &g4, 0),
	      "detach_mcast the rest");
	post_recv(qa1, a, 0, 0, 2048);
	post_recv(qa2, a, 2048, 2048, 2048);
	post_recv(qb, b, 4096, 4096, 2048);
	ud_post_send(qb, b, ah, 7003, 8192, 100);
	ok = poll1(b->cq, &wc, TMO_MS) == 1 && wc.wr_id == 7003;
	check(ok && cq_empty(a->cq, 500) && cq_empty(b->cq, 100),
	      "after the last detach: the SEND completes, nobody receives");

	/* uverbs refuses to destroy an attached QP (a closing process's are detached) */
	check(!ibv_attach_mcast(qa1, &g4, 0) && ibv_destroy_qp(qa1) == EBUSY &&
	      !ibv_detach_mcast(qa1, &g4, 0) && !ibv_destroy_qp(qa1),
	      "destroy_qp of an attached QP: EBUSY; after detach_mcast it goes");
	if (ah6)
		ibv_detach_mcast(qa2, &g6, 0);
	ibv_destroy_qp(qa2);
	if (ah6)
		ibv_destroy_ah(ah6);
	ibv_destroy_ah(ah);
	ibv_destroy_qp(qb);
	ibv_destroy_qp(rc);
	while (poll1(a->cq, &wc, 100) || poll1(b->cq, &wc, 100))
		;	/* the flushed receives */
}

/*
 * a READs (or fetch-adds) from b into a buffer of its own, and deregisters
 * that buffer's MR right after posting: the response finds no MR.
 */
static void sink_gone(struct side *a, struct side *b, int atomic)
{
	struct mwenv e = { .a = a, .b = b };
	uint8_t *sink = aligned_alloc(4096, BUF);
	const char *what = atomic ? "ATOMIC" : "READ";
	char desc[160];
	struct ibv_mr *mr;
	struct ibv_wc wc;
	int st, i;

	e.buf = aligned_alloc(4096, MWBUF);
	if (!sink || !e.buf)
		die("buffers");
	mr = ibv_reg_mr(a->pd, sink, BUF, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("sink MR");
	pair_open(&e);
	ibv_wr_start(e.xa);
	e.xa->wr_id = 0xc1;
	e.xa->wr_flags = IBV_SEND_SIGNALED;
	if (atomic)
		ibv_wr_atomic_fetch_add(e.xa, b->mr->rkey, (uintptr_t)b->buf, 1);
	else
		ibv_wr_rdma_read(e.xa, b->mr->rkey, (uintptr_t)b->buf);
	ibv_wr_set_sge(e.xa, mr->lkey, (uintptr_t)sink, atomic ? 8 : BUF);
	if (ibv_wr_complete(e.xa))
		die("post");
	snprintf(desc, sizeof(desc), "%s in flight: its sink MR deregistered",
		 what);
	check(!ibv_dereg_mr(mr), desc);
	st = wc_status(a->cq, 0xc1, &wc);
	snprintf(desc, sizeof(desc), "%s: completes with LOC_PROT_ERR (got %s)",
		 what, st < 0 ? "none" : ibv_wc_status_str(st));
	check(st == IBV_WC_LOC_PROT_ERR, desc);
	for (i = 0; i < 100 && qp_state(e.qa) != IBV_QPS_ERR; i++)
		usleep(10000);
	snprintf(desc, sizeof(desc), "%s: requester QP in ERR", what);
	check(qp_state(e.qa) == IBV_QPS_ERR, desc);
	pair_close(&e);
	free(e.buf);
	free(sink);
}

/*
 * a READs 256 KiB from b; b's QP loses the remote read right right after:
 * the responder's first window (a few packets) may have gone, the rest
 * must not (the READ completes in error, not with SUCCESS).
 */
static void read_revoked(struct side *a, struct side *b)
{
	enum { LEN = 256 * 1024 };	/* ~190 packets: several windows */
	struct mwenv e = { .a = a, .b = b };
	struct ibv_qp_attr qa = { .qp_access_flags = 0 };
	uint8_t *src = aligned_alloc(4096, LEN), *dst = aligned_alloc(4096, LEN);
	struct ibv_mr *smr, *dmr;
	char desc[160];
	struct ibv_wc wc;
	int st;

	e.buf = aligned_alloc(4096, MWBUF);
	if (!e.buf || !src || !dst)
		die("buffers");
	smr = ibv_reg_mr(b->pd, src, LEN, IBV_ACCESS_REMOTE_READ);
	dmr = ibv_reg_mr(a->pd, dst, LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!smr || !dmr)
		die("READ MRs");
	pair_open(&e);
	ibv_wr_start(e.xa);
	e.xa->wr_id = 0xc2;
	e.xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(e.xa, smr->rkey, (uintptr_t)src);
	ibv_wr_set_sge(e.xa, dmr->lkey, (uintptr_t)dst, LEN);
	if (ibv_wr_complete(e.xa))
		die("post");
	usleep(50000);		/* the request is there, most of its response is not */
	check(!ibv_modify_qp(e.qb, &qa, IBV_QP_ACCESS_FLAGS),
	      "READ in flight: the responder QP's remote read right revoked");
	/* slow: every response packet takes 300 ms, the window starts small */
	st = poll1(a->cq, &wc, 30000) == 1 && wc.wr_id == 0xc2 ?
	     (int)wc.status : -1;
	printf("#   READ of 256 KiB, its right revoked: %s\n",
	       st < 0 ? "no completion in 30 s" : ibv_wc_status_str(st));
	snprintf(desc, sizeof(desc),
		 "READ whose right went: not SUCCESS (got %s)",
		 st < 0 ? "none" : ibv_wc_status_str(st));
	check(st >= 0 && st != IBV_WC_SUCCESS, desc);
	pair_close(&e);
	ibv_dereg_mr(smr);
	ibv_dereg_mr(dmr);
	free(src);
	free(dst);
	free(e.buf);
}

/* B's two receives wait while the caller sends a SEND for the second */
static void idle_recv(struct side *a, struct side *b, int secs)
{
	struct ibv_qp *qa = qp_ex(a, IBV_QPT_RC, RC_OPS, NULL);
	struct ibv_qp *qb = qp_ex(b, IBV_QPT_RC, RC_OPS, NULL);
	struct ibv_sge sge = { .addr = (uintptr_t)b->buf, .length = 4096,
			       .lkey = b->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int i, ok = 0, bad_ok = 0, n = 0;
	struct ibv_wc wc;
	char desc[160];

	if (!qa || !qb)
		die("QPs");
	rc_connect(qa, a, qb->qp_num, &b->gid);
	rc_connect(qb, b, qa->qp_num, &a->gid);
	for (i = 0; i < 2; i++) {
		wr.wr_id = 0xd0 + i;
		sge.addr = (uintptr_t)b->buf + 4096 * i;
		if (ibv_post_recv(qb, &wr, &bad))
			die("post_recv");
	}
	printf("idle-recv: qpn A %u B %u\n", qa->qp_num, qb->qp_num);
	sleep(secs);
	while (poll1(b->cq, &wc, 500) == 1) {
		printf("#   B completion wr_id %#llx %s len %u\n",
		       (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status), wc.byte_len);
		n++;
		if (wc.status == IBV_WC_SUCCESS)
			bad_ok += wc.wr_id != 0xd0;
		ok += wc.status == IBV_WC_SUCCESS;
	}
	snprintf(desc, sizeof(desc),
		 "a SEND for B's second receive only: no receive completed successfully (%d completions, %d successful)",
		 n, ok);
	check(!ok && !bad_ok, desc);
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
}

/*
 * A's one WRITE completes (A's next message is msn 1); the caller then
 * forges, from A's address, a malformed READ_REQ to B that names msn 1.
 * B's QP fails, as for any malformed request, and flushes its receive; B's
 * NAK names a message A has not sent, so A completes nothing (before the
 * fix A completed a WQE nobody posted and its error flush walked 2^32
 * slots in a worker) and its QP stays in RTS.
 */
static void idle_read(struct side *a, struct side *b, int secs)
{
	struct ibv_qp *qa = qp_ex(a, IBV_QPT_RC, RC_OPS, NULL);
	struct ibv_qp *qb = qp_ex(b, IBV_QPT_RC, RC_OPS, NULL);
	struct ibv_sge sge = { .addr = (uintptr_t)a->buf, .length = 64,
			       .lkey = a->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 0xe1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)b->buf + 8192,
			     .rkey = b->mr->rkey },
	}, *bad;
	struct ibv_wc wc;
	char desc[160];
	int n = 0, st;

	if (!qa || !qb)
		die("QPs");
	rc_connect(qa, a, qb->qp_num, &b->gid);
	rc_connect(qb, b, qa->qp_num, &a->gid);
	post_recv(qb, b, 0xe0, 0, 4096);
	if (ibv_post_send(qa, &wr, &bad))
		die("post_send");
	check(expect_wc(a->cq, 0xe1, IBV_WC_RDMA_WRITE, &wc),
	      "A's WRITE (msn 0) completes");
	printf("idle-read: qpn A %u B %u msn 1\n", qa->qp_num, qb->qp_num);
	sleep(secs);
	/* (bounded: before the fix the flush never ended) */
	while (n < 64 && poll1(a->cq, &wc, 500) == 1) {
		printf("#   A completion wr_id %#llx %s\n",
		       (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status));
		n++;
	}
	snprintf(desc, sizeof(desc),
		 "A completed nothing it was not given (%d completions)", n);
	check(!n, desc);
	check(qp_state(qa) == IBV_QPS_RTS, "A's QP is still in RTS");
	check(qp_state(qb) == IBV_QPS_ERR, "B's QP failed (the malformed READ)");
	st = wc_status(b->cq, 0xe0, &wc);
	snprintf(desc, sizeof(desc), "B's receive flushed (%s)",
		 st < 0 ? "no completion" : ibv_wc_status_str(st));
	check(st == IBV_WC_WR_FLUSH_ERR, desc);
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
}

int main(int argc, char **argv)
{
	struct side a = {}, b = {};
	int gone = argc > 1 && (!strcmp(argv[1], "--sink-gone") ||
				!strcmp(argv[1], "--dmabuf"));
	int dmabuf = gone && !strcmp(argv[1], "--dmabuf");
	int rd = argc > 2 && !strcmp(argv[1], "--idle-read");
	int idle = argc > 2 && (rd || !strcmp(argv[1], "--idle-recv")) ?
		   atoi(argv[2]) : 0;

	if (idle) {
		if (argc != 7) {
			fprintf(stderr, "usage: %s --idle-recv|--idle-read SECS DEV_A GIDX_A DEV_B GIDX_B\n",
				argv[0]);
			return 2;
		}
		setvbuf(stdout, NULL, _IOLBF, 0);
		side_open(&a, argv[3], atoi(argv[4]));
		side_open(&b, argv[5], atoi(argv[6]));
		if (rd)
			idle_read(&a, &b, idle);
		else
			idle_recv(&a, &b, idle);
		printf("%d passed, %d failed\n", passed, failed);
		return failed ? 1 : 0;
	}

	if (argc != 5 + gone) {
		fprintf(stderr, "usage: %s [--sink-gone|--dmabuf] DEV_A GIDX_A DEV_B GIDX_B\n",
			argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	argv += gone;
	side_open(&a, argv[1], atoi(argv[2]));
	side_open(&b, argv[3], atoi(argv[4]));
	if (dmabuf) {
		check_dmabuf(&a, &b);
		printf("%d passed, %d failed\n", passed, failed);
		return failed ? 1 : 0;
	}
	if (gone) {
		sink_gone(&a, &b, 0);
		sink_gone(&a, &b, 1);
		read_revoked(&a, &b);
		printf("%d passed, %d failed\n", passed, failed);
		return failed ? 1 : 0;
	}
	check_create(&a);
	check_rc(&a, &b);
	check_ud(&a, &b);
	check_mw(&a, &b);
	check_mr_access(&a, &b);
	check_rereg(&a, &b);
	check_rereg_mw(&a, &b);
	check_uc(&a, &b);
	check_mcast(&a, &b);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
