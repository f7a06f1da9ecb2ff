// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Peer limits for the guest (tests/vm/peers.sh):
 *
 *	mroce-peers DEV GIDX HOLD_SECS ADDR...
 *
 * One RC QP of DEV per ADDR (IPv4 or IPv6 of a node that need not exist),
 * each taken RESET -> INIT -> RTR towards its ADDR: the RTR makes the
 * peer of that node (kernel/peertab.c), or is refused. Prints a line per
 * QP ("rtr ADDR ok" or "rtr ADDR: ERROR"), then
 * "peers: N ok, N ENOMEM, N other", then "holding" and keeps every QP
 * (and so every peer it made) for HOLD_SECS before it tears them down.
 * Exit 0 unless a setup step or a verbs call failed other than with
 * ENOMEM at RTR.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "tap.h"

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	int gidx, hold, n, i, e, step, ok = 0, nomem = 0, other = 0;
	struct ibv_context *ctx;
	struct ibv_qp **qps;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	union ibv_gid g;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 5) {
		fprintf(stderr, "usage: %s DEV GIDX HOLD_SECS ADDR...\n",
			argv[0]);
		return 2;
	}
	gidx = atoi(argv[2]);
	hold = atoi(argv[3]);
	n = argc - 4;
	qps = calloc(n, sizeof(*qps));
	ctx = open_named(argv[1]);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!qps || !pd || !cq)
		die("PD or CQ");
	qa.send_cq = qa.recv_cq = cq;
	for (i = 0; i < n; i++) {
		if (tap_gid(argv[4 + i], &g)) {
			errno = EINVAL;
			die(argv[4 + i]);
		}
		qps[i] = ibv_create_qp(pd, &qa);
		if (!qps[i])
			die("ibv_create_qp");
		e = tap_rc_rtr(qps[i], gidx, &g, &step);
		if (!e) {
			ok++;
			printf("rtr %s ok\n", argv[4 + i]);
		} else {
			if (e == ENOMEM)
				nomem++;
			else
				other++;
			printf("rtr %s: %s\n", argv[4 + i], strerror(e));
		}
	}
	printf("peers: %d ok, %d ENOMEM, %d other\n", ok, nomem, other);
	printf("holding\n");
	if (hold > 0)
		sleep(hold);
	for (i = 0; i < n; i++)
		if (ibv_destroy_qp(qps[i]))
			die("ibv_destroy_qp");
	if (ibv_destroy_cq(cq) || ibv_dealloc_pd(pd))
		die("teardown");
	ibv_close_device(ctx);
	free(qps);
	return other ? 1 : 0;
}
