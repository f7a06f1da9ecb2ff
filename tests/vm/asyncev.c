// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce-asyncev: a verbs consumer that makes an RC QP (moved to INIT) on
 * a device and prints the asynchronous events it gets, for the offload
 * events test (tests/vm/offload.sh: an offload raises QP or device fatal,
 * the QP's owner must hear of it). Built by `make tools`.
 *
 *	mroce-asyncev -d DEV [-n EVENTS] [-t SECONDS]
 *
 * Prints "qpn N" once the QP is in INIT, then one line per event,
 * "event NAME" (and " qpn N" for a QP's), until EVENTS events (default 1)
 * or SECONDS (default 10) have passed. Exits 0 when EVENTS events came,
 * 1 when the time ran out, 2 on a usage or setup error.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

/* an RC QP in INIT: the smallest object an offload can fail */
static struct ibv_qp *make_qp(struct ibv_context *ctx)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_qp *qp = cq ? ibv_create_qp(pd, &ia) : NULL;

	if (!qp || ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				 IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return NULL;
	return qp;
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	struct ibv_async_event ev;
	struct ibv_context *ctx;
	struct pollfd pfd;
	int want = 1, secs = 10, got = 0, c;
	struct ibv_qp *qp;

	while ((c = getopt(argc, argv, "d:n:t:")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'n': want = atoi(optarg); break;
		case 't': secs = atoi(optarg); break;
		default: dev = NULL; optind = argc; break;
		}
	}
	if (!dev || want < 1 || secs < 1) {
		fprintf(stderr, "usage: mroce-asyncev -d DEV [-n EVENTS] [-t SECONDS]\n");
		return 2;
	}
	ctx = open_dev(dev);
	if (!ctx) {
		fprintf(stderr, "mroce-asyncev: cannot open %s\n", dev);
		return 2;
	}
	qp = make_qp(ctx);
	if (!qp) {
		fprintf(stderr, "mroce-asyncev: QP setup on %s: %s\n", dev,
			strerror(errno));
		return 2;
	}
	printf("qpn %u\n", qp->qp_num);
	fflush(stdout);

	pfd.fd = ctx->async_fd;
	pfd.events = POLLIN;
	while (got < want && poll(&pfd, 1, secs * 1000) > 0) {
		if (ibv_get_async_event(ctx, &ev))
			break;
		printf("event %s", ibv_event_type_str(ev.event_type));
		if (ev.event_type == IBV_EVENT_QP_FATAL ||
		    ev.event_type == IBV_EVENT_QP_REQ_ERR ||
		    ev.event_type == IBV_EVENT_QP_ACCESS_ERR)
			printf(" qpn %u", ev.element.qp->qp_num);
		printf("\n");
		fflush(stdout);
		ibv_ack_async_event(&ev);
		got++;
	}
	return got == want ? 0 : 1;
}
