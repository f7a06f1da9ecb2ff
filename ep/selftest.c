// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce-ep-selftest: two libmroce-ep endpoints in one process, over
 * 127.0.0.1, through what mroce-ep's transfer does not reach: SEND and
 * receive (a SEND before its receive: RNR, then delivered), atomics, and
 * the refusals (a range past the region, a right it lacks, a wrong or
 * deregistered rkey, a SEND longer than the receive). Ends with
 * "N passed, N failed"; exit status 0 when none failed.
 */
#include "mroce-ep.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct mep *a, *b;
static int passed, failed;

static void verdict(const char *name, int ok)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", name);
	if (ok)
		passed++;
	else
		failed++;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* run both endpoints for @secs, or until @ep completes @wr_id (into *wc) */
static int pump(struct mep *ep, uint64_t wr_id, struct mep_wc *wc,
		double secs)
{
	double end = now_s() + secs;
	struct mep_wc w;

	while (now_s() < end) {
		mep_poll(a, 0);
		mep_poll(b, 0);
		while (ep && mep_poll_cq(ep, &w, 1) == 1) {
			if (w.wr_id == wr_id) {
				*wc = w;
				return 0;
			}
		}
	}
	return -1;
}

/* a fresh connected pair of QPs: *qa on a, *qb on b */
static int pair(struct mep_qp **qa, struct mep_qp **qb)
{
	*qa = mep_qp_create(a);
	*qb = mep_qp_create(b);
	if (!*qa || !*qb)
		return -1;
	if (mep_qp_connect(*qa, "127.0.0.1", mep_port(b), mep_qp_num(*qb), 0) ||
	    mep_qp_connect(*qb, "127.0.0.1", mep_port(a), mep_qp_num(*qa), 0))
		return -1;
	return 0;
}

static void unpair(struct mep_qp *qa, struct mep_qp *qb)
{
	struct mep_wc w;

	pump(NULL, 0, NULL, 0.01);	/* let the last ACKs go */
	mep_qp_destroy(qa);
	mep_qp_destroy(qb);
	while (mep_poll_cq(a, &w, 1) == 1 || mep_poll_cq(b, &w, 1) == 1)
		;
}

static void t_send_recv(void)
{
	static uint8_t out[3000], in[4096];
	struct mep_qp *qa, *qb;
	struct mep_wc ws = { 0 }, wr = { 0 };
	size_t i;
	int ok;

	for (i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 7 + 1);
	ok = !pair(&qa, &qb) && !mep_post_send(qa, 1, out, sizeof(out));
	/* no receive yet: the SEND waits (RNR), then lands once one is posted */
	pump(NULL, 0, NULL, 0.005);
	ok = ok && !mep_post_recv(qb, 2, in, sizeof(in)) &&
	     !pump(a, 1, &ws, 5) && !pump(b, 2, &wr, 5);
	ok = ok && ws.status == MEP_WC_SUCCESS && ws.opcode == MEP_WC_SEND &&
	     wr.status == MEP_WC_SUCCESS && wr.opcode == MEP_WC_RECV &&
	     wr.byte_len == sizeof(out) && !memcmp(in, out, sizeof(out));
	verdict("send-recv (after RNR), 3000 bytes verified", ok);
	unpair(qa, qb);
}

static void t_atomics(void)
{
	static uint64_t word __attribute__((aligned(8))) = 5;
	uint64_t orig = 0, raddr = (uint64_t)(uintptr_t)&word;
	struct mep_qp *qa, *qb;
	struct mep_wc w = { 0 };
	uint32_t key;
	int ok;

	ok = !pair(&qa, &qb) &&
	     !mep_reg_mr(b, &word, 8, MEP_ACC_REMOTE_ATOMIC, &key);
	ok = ok && !mep_post_atomic(qa, 1, &orig, raddr, key, 0, 0, 3) &&
	     !pump(a, 1, &w, 5) && !w.status && orig == 5 && word == 8;
	ok = ok && !mep_post_atomic(qa, 2, &orig, raddr, key, 1, 8, 42) &&
	     !pump(a, 2, &w, 5) && !w.status && orig == 8 && word == 42;
	ok = ok && !mep_post_atomic(qa, 3, &orig, raddr, key, 1, 1, 7) &&
	     !pump(a, 3, &w, 5) && !w.status && orig == 42 && word == 42;
	verdict("fetch-add 5+3, compare-swap 8->42, compare-swap miss", ok);
	mep_dereg_mr(b, key);
	unpair(qa, qb);
}

/* a refused operation: what is posted, and the status it must complete with */
struct refusal {
	const char *name;
	int op;			/* MEP_WC_READ, _WRITE or _SEND */
	unsigned int access;	/* of the target region */
	size_t off;		/* into the region */
	uint32_t len;
	int key_delta;		/* added to the region's rkey */
	int dereg;		/* the region deregistered first */
	int want;
};

static const struct refusal refusals[] = {
	{ "READ past the region's end: remote access error",
	  MEP_WC_READ, MEP_ACC_REMOTE_READ, 8000, 200, 0, 0,
	  MEP_WC_REM_ACCESS_ERR },
	{ "WRITE to a read-only region: remote access error",
	  MEP_WC_WRITE, MEP_ACC_REMOTE_READ, 0, 100, 0, 0,
	  MEP_WC_REM_ACCESS_ERR },
	{ "READ with a wrong rkey: remote access error",
	  MEP_WC_READ, MEP_ACC_REMOTE_READ, 0, 100, 1, 0,
	  MEP_WC_REM_ACCESS_ERR },
	{ "READ of a deregistered region: remote access error",
	  MEP_WC_READ, MEP_ACC_REMOTE_READ, 0, 100, 0, 1,
	  MEP_WC_REM_ACCESS_ERR },
	{ "SEND longer than the receive: remote invalid request",
	  MEP_WC_SEND, 0, 0, 5000, 0, 0, MEP_WC_REM_INV_REQ_ERR },
};

/* one refused operation on a fresh pair: its completion has its status */
static void refused(const struct refusal *t)
{
	static uint8_t region[8192], local[16384];
	struct mep_qp *qa, *qb;
	struct mep_wc w = { 0 };
	uint64_t raddr = (uint64_t)(uintptr_t)region + t->off;
	uint32_t key;
	int ok, r;

	ok = !pair(&qa, &qb) &&
	     !mep_reg_mr(b, region, sizeof(region), t->access, &key);
	if (t->dereg)
		mep_dereg_mr(b, key);
	key += (uint32_t)t->key_delta;
	if (t->op == MEP_WC_READ)
		r = mep_post_read(qa, 9, local, t->len, raddr, key);
	else if (t->op == MEP_WC_WRITE)
		r = mep_post_write(qa, 9, local, t->len, raddr, key);
	else
		r = mep_post_recv(qb, 8, local, 100) ||
		    mep_post_send(qa, 9, local, t->len);
	ok = ok && !r && !pump(a, 9, &w, 5) && w.status == t->want;
	if (!ok)
		fprintf(stderr, "%s: status %s\n", t->name,
			mep_wc_status_str(w.status));
	/* a QP in error takes no more work */
	ok = ok && mep_post_read(qa, 10, local, 1, raddr, key) == -EIO;
	verdict(t->name, ok);
	if (!t->dereg)
		mep_dereg_mr(b, key - (uint32_t)t->key_delta);
	unpair(qa, qb);
}

int main(void)
{
	size_t i;
	int err = 0;

	a = mep_create("127.0.0.1", 0, &err);
	b = a ? mep_create("127.0.0.1", 0, &err) : NULL;
	if (!a || !b) {
		fprintf(stderr, "mroce-ep-selftest: %s\n", strerror(-err));
		return 1;
	}
	t_send_recv();
	t_atomics();
	for (i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++)
		refused(&refusals[i]);
	mep_destroy(a);
	mep_destroy(b);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
