// SPDX-License-Identifier: GPL-2.0
/*
 * The meter's guest side for verbs programs (LD_PRELOAD): counts the work
 * requests a program posts with ibv_post_send() and sets the meter's marks
 * (mark.h) around a stretch of them, so that a window covers only the
 * program's measured loop, whatever it does before and after.
 *
 *   METER_ID=N METER_FROM=A METER_TO=B LD_PRELOAD=mroce-meter-shim.so PROG
 *
 * opens window N just before the A-th work request is posted and closes it
 * just before the B-th: B - A operations. ibv_post_send() is inline and
 * calls the context's ops.post_send, so the shim wraps ibv_open_device()
 * and puts itself in front of that pointer. perftest needs
 * --use_old_post_send for this (its ibv_wr_* path bypasses ops.post_send).
 * Without METER_ID or METER_TRACE the shim does nothing.
 *
 * For a timeline (scripts/bench-timeline.sh), METER_TRACE=DIR (tracefs)
 * turns the kernel's trace on before work request METER_FROM and off
 * before METER_TO, and writes "mroce-op N" into it before each work
 * request N from METER_FROM to METER_TO (METER_TO - METER_FROM
 * operations, each from its mark to the next); the plugin's marks are
 * then not set.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include "mark.h"

typedef int (*post_send_fn)(struct ibv_qp *, struct ibv_send_wr *,
			    struct ibv_send_wr **);

static post_send_fn real_post_send;
static unsigned char *page;
static unsigned long id, from, to, posted;
static int state;	/* 0 before the window, 1 in it, 2 after */
static int trace_fd = -1, trace_on = -1;

static void mark(unsigned int off)
{
	((void (*)(void))(page + off))();
}

/* open (1) or close (0) the window: the plugin's mark, or tracefs */
static void window(int open)
{
	if (trace_fd < 0)
		mark((open ? 0 : MARK_PAGE) + MARK_SLOT * id);
	else if (write(trace_on, open ? "1" : "0", 1) != 1)
		perror("meter shim: tracing_on");
}

static int post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad)
{
	struct ibv_send_wr *w;

	if (state == 0 && posted + 1 >= from) {
		state = 1;
		window(1);
	}
	if (state == 1 && trace_fd >= 0) {	/* the mark ends the last one */
		char m[32];
		int n = snprintf(m, sizeof(m), "mroce-op %lu", posted + 1);

		if (write(trace_fd, m, n) != n)
			perror("meter shim: trace_marker");
	}
	if (state == 1 && posted + 1 >= to) {
		state = 2;
		window(0);
	}
	for (w = wr; w; w = w->next)
		posted++;
	return real_post_send(qp, wr, bad);
}

struct ibv_context *ibv_open_device(struct ibv_device *dev)
{
	static struct ibv_context *(*real)(struct ibv_device *);
	struct ibv_context *ctx;

	if (!real)
		real = (struct ibv_context *(*)(struct ibv_device *))
			dlsym(RTLD_NEXT, "ibv_open_device");
	ctx = real ? real(dev) : NULL;
	if (!ctx || (!page && trace_fd < 0))
		return ctx;
	if (!real_post_send)
		real_post_send = ctx->ops.post_send;
	if (ctx->ops.post_send == real_post_send)
		ctx->ops.post_send = post_send;
	else
		fprintf(stderr, "meter shim: a second provider; not counted\n");
	return ctx;
}

__attribute__((constructor)) static void shim_init(void)
{
	const char *s = getenv("METER_ID"), *t = getenv("METER_TRACE");
	void *p;

	if (!s && !t)
		return;
	id = strtoul(s ? : "0", NULL, 0);
	from = strtoul(getenv("METER_FROM") ? : "1", NULL, 0);
	to = strtoul(getenv("METER_TO") ? : "0", NULL, 0);
	if (id >= MARK_IDS || !from || to <= from) {
		fprintf(stderr, "meter shim: METER_ID < %u, 0 < METER_FROM < METER_TO\n",
			MARK_IDS);
		return;
	}
	if (t) {
		char f[256];

		snprintf(f, sizeof(f), "%s/tracing_on", t);
		trace_on = open(f, O_WRONLY | O_CLOEXEC);
		snprintf(f, sizeof(f), "%s/trace_marker", t);
		trace_fd = open(f, O_WRONLY | O_CLOEXEC);
		if (trace_fd < 0 || trace_on < 0) {
			perror("meter shim: METER_TRACE");
			trace_fd = -1;
		}
		return;
	}
	p = mmap((void *)MARK_VA, 2 * MARK_PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != (void *)MARK_VA) {
		perror("meter shim: mmap");
		return;
	}
	memset(p, 0xc3, 2 * MARK_PAGE);	/* ret */
	if (mprotect(p, 2 * MARK_PAGE, PROT_READ | PROT_EXEC)) {
		perror("meter shim: mprotect");
		return;
	}
	page = p;
}
