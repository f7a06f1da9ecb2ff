/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the guest-side checkers (verbs-check.c, wr-check.c, cq-check.c)
 * print: "ok - WHAT" or "not ok - WHAT" per check, and at the end
 * "N passed, N failed" (their caller, tests/vm/lib.sh's t_ok, reads it).
 */
#ifndef MROCE_TESTS_TAP_H
#define MROCE_TESTS_TAP_H

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

static int passed, failed;

static inline void check(int cond, const char *what)
{
	printf("%s - %s\n", cond ? "ok" : "not ok", what);
	if (cond)
		passed++;
	else
		failed++;
}

/* a setup step failed: there is nothing to check; exit status 2 */
static inline void die(const char *what)
{
	fprintf(stderr, "setup: %s: %s\n", what, strerror(errno));
	exit(2);
}

/*
 * How much longer the checkers' own time limits are on this kernel: the
 * guest's T_SCALE (tests/vm/lib.sh: 5 on the debug kernel), else 1
 */
static inline unsigned int tap_scale(void)
{
	const char *s = getenv("T_SCALE");
	int v = s ? atoi(s) : 1;

	return v >= 1 && v <= 100 ? v : 1;
}

/* @s, an IPv4 or IPv6 address, as a RoCE v2 GID (IPv4-mapped): 0, or -1 */
static inline int tap_gid(const char *s, union ibv_gid *g)
{
	struct in_addr a4;

	memset(g, 0, sizeof(*g));
	if (inet_pton(AF_INET, s, &a4) == 1) {
		g->raw[10] = 0xff;
		g->raw[11] = 0xff;
		memcpy(&g->raw[12], &a4, 4);
		return 0;
	}
	return inet_pton(AF_INET6, s, g->raw) == 1 ? 0 : -1;
}

/*
 * RC @qp from RESET to INIT (remote rights @access), then to RTR towards
 * QPN @dqpn at @dgid with @mtu: 0, or the errno of the step that failed,
 * its number (1 INIT, 2 RTR) in *@step
 */
static inline int tap_rc_init_rtr(struct ibv_qp *qp, int gidx,
				  const union ibv_gid *dgid, uint32_t dqpn,
				  enum ibv_mtu mtu, unsigned int access,
				  int *step)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = access,
	};

	*step = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return errno ? errno : EIO;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	*step = 2;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return errno ? errno : EIO;
	return 0;
}

/* RC @qp from RTR to RTS (SQ PSN 0, 7 retries): 0, or the errno */
static inline int tap_rc_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.sq_psn = 0,
		.max_rd_atomic = 4,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		return errno ? errno : EIO;
	return 0;
}

/* tap_rc_init_rtr() towards a node that need not exist (QPN 0x42) */
static inline int tap_rc_rtr(struct ibv_qp *qp, int gidx,
			     const union ibv_gid *dgid, int *step)
{
	return tap_rc_init_rtr(qp, gidx, dgid, 0x42, IBV_MTU_1024,
			       IBV_ACCESS_REMOTE_WRITE, step);
}

/* open the verbs device called @name, or die */
static inline struct ibv_context *open_named(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx;
	int i;

	if (!list)
		die("ibv_get_device_list");
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (!list[i]) {
		errno = ENODEV;
		die(name);
	}
	ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		die("ibv_open_device");
	return ctx;
}

#endif
