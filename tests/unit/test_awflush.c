// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ATOMIC_WRITE and FLUSH end to end (IB_WR_ATOMIC_WRITE, IB_WR_FLUSH):
 * the store lands once however often its request arrives, errors
 * complete as an ATOMIC's do, and a FLUSH runs at the responder only
 * once everything the stream sent before it has been placed.
 */
#include "pair.h"

#define KB 1024u
#define BUF (64 * KB)
#define BASE 0x10000ULL

struct awf {
	struct pair *p;
	struct mdl_qp *a, *b;
	u8 *src, *dst, *cnt;
	struct mdl_mr *mr;	/* on node 1 */
	u64 set_on_answer;	/* hook: the owner's change at the answer */
	u64 delay_first;	/* hook: delay node 0's first DATA by this */
	u32 drop_nth;		/* hook: drop node 0's DATA packet n - 1 */
	u32 data0, data1;	/* DATA packets seen from node 0, node 1 */
};

static void awf_init(struct kunit *test, struct awf *r, u32 access)
{
	struct mre_config cfg;
	u32 i;

	mre_config_default(&cfg);
	r->p = pair_new(test, &cfg, mre_test_seed(test), 5000);
	r->a = MRE_ALLOC(test, sizeof(*r->a));
	r->b = MRE_ALLOC(test, sizeof(*r->b));
	r->src = MRE_ALLOC(test, BUF);
	r->dst = MRE_ALLOC(test, BUF);
	r->cnt = MRE_ALLOC(test, BUF);
	for (i = 0; i < BUF; i++)
		r->src[i] = (u8)(i * 7 + (i >> 8));
	pair_qps(r->p, r->a, r->b, 17, 1024);
	r->mr = mdl_mr_reg(&r->p->n[1], r->dst, BUF, BASE, access, r->cnt);
}

static bool awf_hook(struct pair *p, u32 from, const struct pair_pkt *pk,
		     u64 n, u64 *extra)
{
	struct awf *r = p->hook_ctx;

	if (pk->type != MRE_T_DATA)
		return false;
	if (from == 1) {
		/*
		 * The responder has executed the request it answers: the
		 * target's owner changes the word now. A request that runs
		 * again from here on would overwrite it.
		 */
		if (r->data1++ == 0 && r->set_on_answer)
			mre_memcpy(r->dst + 8, &r->set_on_answer, 8);
		return false;
	}
	if (r->drop_nth && r->data0 + 1 == r->drop_nth) {
		r->data0++;
		return true;
	}
	if (r->data0++)
		return false;
	*extra = r->delay_first;
	return false;
}

static u32 awrite(struct awf *r, u64 raddr, u32 rkey, u64 value, u64 wr_id)
{
	struct mre_wqe w = {
		.op = MRE_OP_ATOMIC_WRITE_REQ, .len = 8, .rkey = rkey,
		.raddr = raddr, .swap_add = value,
	};

	return mdl_post_send(r->a, &w, NULL, wr_id);
}

static u32 flush(struct awf *r, u8 fflags, u64 raddr, u32 len, u32 rkey,
		 u64 wr_id)
{
	struct mre_wqe w = {
		.op = MRE_OP_FLUSH_REQ, .fflags = fflags, .len = len,
		.rkey = rkey, .raddr = raddr,
	};

	return mdl_post_send(r->a, &w, NULL, wr_id);
}

static u64 word(const struct awf *r, u32 off)
{
	u64 v;

	mre_memcpy(&v, r->dst + off, 8);
	return v;
}

MRE_TEST(awf_atomic_write)
{
	struct awf r = { 0 };
	u32 i, other = 0;

	awf_init(test, &r, MDL_ACC_RWRITE);
	awrite(&r, BASE + 8, r.mr->key, 0x0102030405060708ULL, 5);
	pair_run(r.p, 100000000);
	MRE_ASSERT(test, r.a->nlog == 1);
	MRE_EXPECT_EQ(test, r.a->log[0].wr_id, 5);
	MRE_EXPECT_EQ(test, r.a->log[0].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, r.a->log[0].op, MRE_OP_ATOMIC_WRITE_REQ);
	MRE_EXPECT_EQ(test, word(&r, 8), 0x0102030405060708ULL);
	for (i = 0; i < BUF; i++)
		other += r.cnt[i] != (i >= 8 && i < 16);
	MRE_EXPECT_EQ(test, other, 0);
	MRE_EXPECT_EQ(test, r.p->n[1].awrites, 1);
	MRE_EXPECT_EQ(test, r.a->fatal, 0);
	MRE_EXPECT_EQ(test, r.b->fatal, 0);
}

/*
 * The request's first transmission is held in the fabric: the requester
 * resends it, the resend executes, and the owner of the word changes it
 * as soon as the answer leaves. Then the first transmission arrives, a
 * duplicate: it must not store the value again.
 */
MRE_TEST(awf_atomic_write_once)
{
	struct awf r = { .set_on_answer = 0x7777, .delay_first = 20000000 };

	awf_init(test, &r, MDL_ACC_RWRITE);
	r.p->hook = awf_hook;
	r.p->hook_ctx = &r;
	awrite(&r, BASE + 8, r.mr->key, 0x1234, 1);
	pair_run(r.p, 2000000000ULL);
	MRE_ASSERT(test, r.a->nlog == 1);
	MRE_EXPECT_EQ(test, r.a->log[0].status, MRE_ST_OK);
	MRE_EXPECT_GE(test, r.p->n[0].ep.ctr.tx_retx, 1);
	MRE_EXPECT_GE(test, r.p->n[1].ep.ctr.rx_dup_tsn, 1);
	MRE_EXPECT_EQ(test, r.p->n[1].awrites, 1);
	MRE_EXPECT_EQ(test, word(&r, 8), 0x7777);
}

/*
 * 30 % loss each way: requests and answers are lost and resent, requests
 * arrive twice; each word is still stored exactly once.
 */
MRE_TEST(awf_atomic_write_lossy)
{
	struct mre_wqe w = { .op = MRE_OP_ATOMIC_WRITE_REQ, .len = 8 };
	u64 ppm = 300000;
	struct awf r = { 0 };
	u32 i;

	awf_init(test, &r, MDL_ACC_RWRITE);
	/* the handshake too (a lost ACCEPT answered again: 62b8370) */
	r.p->hook = pair_hook_loss;
	r.p->hook_ctx = &ppm;
	w.rkey = r.mr->key;
	for (i = 0; i < 20; i++) {
		w.raddr = BASE + 8 * i;
		w.swap_add = 100 + i;
		mdl_post_send(r.a, &w, NULL, i);
	}
	pair_run(r.p, 4000000000ULL);
	MRE_ASSERT(test, r.a->nlog == 20);
	for (i = 0; i < 20; i++) {
		MRE_EXPECT_EQ(test, r.a->log[i].status, MRE_ST_OK);
		MRE_EXPECT_EQ(test, word(&r, 8 * i), 100 + i);
	}
	for (i = 0; i < 20 * 8; i++)
		MRE_EXPECT_EQ(test, r.cnt[i], 1);
	MRE_EXPECT_EQ(test, r.p->n[1].awrites, 20);
	MRE_EXPECT_GE(test, r.p->n[0].ep.ctr.tx_retx, 1);
	MRE_EXPECT_GE(test, r.p->n[1].ep.ctr.tx_retx, 1);
}

/* the errors of an ATOMIC: key or right (REM_ACCESS), alignment (INV_REQ) */
MRE_TEST(awf_atomic_write_errors)
{
	static const struct {
		u32 access;
		u64 raddr;
		bool bad_key;
		u8 st;
	} cases[] = {
		{ MDL_ACC_RWRITE, BASE, true, MRE_ST_REM_ACCESS },
		/* an ATOMIC_WRITE needs the right to write, not to atomic */
		{ MDL_ACC_RATOMIC | MDL_ACC_RREAD, BASE, false,
		  MRE_ST_REM_ACCESS },
		{ MDL_ACC_RWRITE, BASE + BUF, false, MRE_ST_REM_ACCESS },
		{ MDL_ACC_RWRITE, BASE + 4, false, MRE_ST_REM_INV_REQ },
	};
	u32 k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct awf r = { 0 };

		awf_init(test, &r, cases[k].access);
		mre_memset(r.dst, 0x5a, 16);
		awrite(&r, cases[k].raddr,
		       cases[k].bad_key ? 0x999 : r.mr->key, 1, 1);
		pair_run(r.p, 100000000);
		MRE_ASSERT(test, r.a->nlog == 1);
		MRE_EXPECT_EQ(test, r.a->log[0].status, cases[k].st);
		MRE_EXPECT_EQ(test, r.a->fatal, cases[k].st);
		MRE_EXPECT_EQ(test, r.b->fatal,
			      cases[k].st == MRE_ST_REM_ACCESS ?
			      MRE_ST_LOC_ACCESS : MRE_ST_LOC_LEN);
		MRE_EXPECT_EQ(test, r.p->n[1].awrites, 0);
		MRE_EXPECT_EQ(test, word(&r, 0), 0x5a5a5a5a5a5a5a5aULL);
	}
}

/*
 * WRITE, then FLUSH of its range: the WRITE's last packet is lost, and
 * resent (a tail loss: found by a probe) after the FLUSH arrived. The
 * FLUSH runs only once the whole WRITE is placed, and completes after it.
 */
MRE_TEST(awf_flush_after_write)
{
	struct awf r = { .drop_nth = 32 };
	struct mre_wqe w = {
		.op = MRE_OP_WRITE, .len = 32 * KB, .raddr = BASE,
	};
	u32 i;

	awf_init(test, &r, MDL_ACC_RWRITE | MDL_ACC_FLUSH_GLOBAL);
	r.p->hook = awf_hook;
	r.p->hook_ctx = &r;
	w.rkey = r.mr->key;
	mdl_post_send(r.a, &w, r.src, 1);
	flush(&r, MRE_FLUSH_GLOBAL, BASE, 32 * KB, r.mr->key, 2);
	pair_run(r.p, 1000000000ULL);
	MRE_ASSERT(test, r.a->nlog == 2);
	MRE_EXPECT_EQ(test, r.a->log[0].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, r.a->log[1].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, r.a->log[1].op, MRE_OP_FLUSH_REQ);
	MRE_EXPECT_GE(test, r.p->n[0].ep.ctr.tx_retx, 1);
	MRE_EXPECT_EQ(test, r.p->n[1].flushes, 1);
	/* when the FLUSH ran, all 32 KiB were in place */
	MRE_EXPECT_EQ(test, r.p->n[1].flush_placed, 32 * KB);
	for (i = 0; i < 32 * KB; i++)
		if (r.dst[i] != r.src[i] || r.cnt[i] != 1)
			break;
	MRE_EXPECT_EQ(test, i, 32 * KB);
}

/* the whole MR, persistent: no range travels, the MR's right is checked */
MRE_TEST(awf_flush_mr)
{
	struct awf r = { 0 };

	awf_init(test, &r, MDL_ACC_RWRITE | MDL_ACC_FLUSH_PERSIST);
	awrite(&r, BASE, r.mr->key, 9, 1);
	flush(&r, MRE_FLUSH_PERSISTENT | MRE_FLUSH_MR, 0x1234, 77, r.mr->key,
	      2);
	pair_run(r.p, 100000000);
	MRE_ASSERT(test, r.a->nlog == 2);
	MRE_EXPECT_EQ(test, r.a->log[1].status, MRE_ST_OK);
	MRE_EXPECT_EQ(test, r.p->n[1].flushes, 1);
	MRE_EXPECT_EQ(test, r.p->n[1].awrites, 1);
}

/* a range outside the MR, or a placement type the MR does not allow */
MRE_TEST(awf_flush_errors)
{
	static const struct {
		u32 access;
		u8 fflags;
		u64 raddr;
		u32 len;
	} cases[] = {
		{ MDL_ACC_FLUSH_GLOBAL, MRE_FLUSH_GLOBAL, BASE + 4 * KB, BUF },
		{ MDL_ACC_FLUSH_GLOBAL, MRE_FLUSH_GLOBAL, BASE - 8, 16 },
		{ MDL_ACC_FLUSH_GLOBAL, MRE_FLUSH_PERSISTENT, BASE, 8 },
		{ MDL_ACC_FLUSH_PERSIST, MRE_FLUSH_GLOBAL | MRE_FLUSH_MR,
		  0, 0 },
		{ MDL_ACC_RWRITE, MRE_FLUSH_GLOBAL, BASE, 8 },
	};
	u32 k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct awf r = { 0 };

		awf_init(test, &r, cases[k].access);
		flush(&r, cases[k].fflags, cases[k].raddr, cases[k].len,
		      r.mr->key, 1);
		pair_run(r.p, 100000000);
		MRE_ASSERT(test, r.a->nlog == 1);
		MRE_EXPECT_EQ(test, r.a->log[0].status, MRE_ST_REM_ACCESS);
		MRE_EXPECT_EQ(test, r.b->fatal, MRE_ST_LOC_ACCESS);
		MRE_EXPECT_EQ(test, r.p->n[1].flushes, 0);
	}
}

/* an embedder without the callbacks refuses both: REM_INV_REQ */
MRE_TEST(awf_unsupported)
{
	static struct mre_ops ops;
	u32 k;

	ops = mdl_ops;
	ops.atomic_write = NULL;
	ops.flush = NULL;
	for (k = 0; k < 2; k++) {
		struct awf r = { 0 };

		awf_init(test, &r, MDL_ACC_RWRITE | MDL_ACC_FLUSH_GLOBAL);
		r.p->n[1].ep.ops = &ops;
		if (k)
			flush(&r, MRE_FLUSH_GLOBAL, BASE, 8, r.mr->key, 1);
		else
			awrite(&r, BASE, r.mr->key, 1, 1);
		pair_run(r.p, 100000000);
		MRE_ASSERT(test, r.a->nlog == 1);
		MRE_EXPECT_EQ(test, r.a->log[0].status, MRE_ST_REM_INV_REQ);
		MRE_EXPECT_EQ(test, word(&r, 0), 0);
	}
}

MRE_SUITE(awflush,
	  MRE_CASE(awf_atomic_write),
	  MRE_CASE(awf_atomic_write_once),
	  MRE_CASE(awf_atomic_write_lossy),
	  MRE_CASE(awf_atomic_write_errors),
	  MRE_CASE(awf_flush_after_write),
	  MRE_CASE(awf_flush_mr),
	  MRE_CASE(awf_flush_errors),
	  MRE_CASE(awf_unsupported));
