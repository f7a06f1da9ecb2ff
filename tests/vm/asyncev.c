// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce-asyncev: a verbs consumer that makes an RC QP (moved to INIT) on
 * a device and prints the events it gets, for the offload events test
 * (tests/vm/offload.sh: an offload raises an event, the owner of the
 * object must hear of it). Built by `make tools`.
 *
 *	mroce-asyncev -d DEV [-n EVENTS] [-t SECONDS] [-e]
 *
 * The QP's CQ has a completion channel and is armed; its receives come
 * from an SRQ with two receives posted and its limit armed at 1. Prints
 * "qpn N" once all that is set up, then one line per event: "event NAME"
 * (and " qpn N" for a QP's) for an asynchronous event, "comp" for one on
 * the channel, until EVENTS events (default 1) or SECONDS (default 10)
 * have passed. -e: then move the QP to ERR itself (a QP on an SRQ must
 * hear IBV_EVENT_QP_LAST_WQE_REACHED). Exits 0 when EVENTS events came, 1
 * when the time ran out, 2 on a usage or setup error.
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

/* an RC QP in INIT, on an armed CQ with a channel and an armed SRQ */
static struct ibv_qp *make_qp(struct ibv_context *ctx,
			      struct ibv_comp_channel *ch)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 4, NULL, ch, 0) : NULL;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *srq = cq ? ibv_create_srq(pd, &sa) : NULL;
	struct ibv_srq_attr limit = { .srq_limit = 1 };
	struct ibv_recv_wr wr = { .wr_id = 1 }, *bad;
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_qp *qp;

	if (!srq || ibv_post_srq_recv(srq, &wr, &bad) ||
	    ibv_post_srq_recv(srq, &wr, &bad) ||
	    ibv_modify_srq(srq, &limit, IBV_SRQ_LIMIT) ||
	    ibv_req_notify_cq(cq, 0))
		return NULL;
	qp = ibv_create_qp(pd, &ia);
	if (!qp || ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				 IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return NULL;
	return qp;
}

/* one event from @ctx's async fd: printed, acknowledged */
static int async_event(struct ibv_context *ctx)
{
	struct ibv_async_event ev;

	if (ibv_get_async_event(ctx, &ev))
		return -1;
	printf("event %s", ibv_event_type_str(ev.event_type));
	if (ev.event_type == IBV_EVENT_QP_FATAL ||
	    ev.event_type == IBV_EVENT_QP_REQ_ERR ||
	    ev.event_type == IBV_EVENT_QP_ACCESS_ERR ||
	    ev.event_type == IBV_EVENT_QP_LAST_WQE_REACHED)
		printf(" qpn %u", ev.element.qp->qp_num);
	printf("\n");
	ibv_ack_async_event(&ev);
	return 0;
}

/* one completion event from @ch: printed, acknowledged */
static int comp_event(struct ibv_comp_channel *ch)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	if (ibv_get_cq_event(ch, &cq, &cq_ctx))
		return -1;
	printf("comp\n");
	ibv_ack_cq_events(cq, 1);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	struct ibv_comp_channel *ch;
	struct ibv_context *ctx;
	struct pollfd pfd[2];
	int want = 1, secs = 10, got = 0, to_err = 0, c, i;
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp *qp;

	while ((c = getopt(argc, argv, "d:n:t:e")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'n': want = atoi(optarg); break;
		case 't': secs = atoi(optarg); break;
		case 'e': to_err = 1; break;
		default: dev = NULL; optind = argc; break;
		}
	}
	if (!dev || want < 1 || secs < 1) {
		fprintf(stderr, "usage: mroce-asyncev -d DEV [-n EVENTS] [-t SECONDS] [-e]\n");
		return 2;
	}
	ctx = open_dev(dev);
	if (!ctx) {
		fprintf(stderr, "mroce-asyncev: cannot open %s\n", dev);
		return 2;
	}
	ch = ibv_create_comp_channel(ctx);
	qp = ch ? make_qp(ctx, ch) : NULL;
	if (!qp) {
		fprintf(stderr, "mroce-asyncev: QP setup on %s: %s\n", dev,
			strerror(errno));
		return 2;
	}
	printf("qpn %u\n", qp->qp_num);
	fflush(stdout);
	if (to_err && ibv_modify_qp(qp, &err, IBV_QP_STATE)) {
		fprintf(stderr, "mroce-asyncev: QP to ERR: %s\n", strerror(errno));
		return 2;
	}

	pfd[0] = (struct pollfd){ .fd = ctx->async_fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	while (got < want && poll(pfd, 2, secs * 1000) > 0) {
		for (i = 0; i < 2 && got < want; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			if (i ? comp_event(ch) : async_event(ctx))
				return 1;
			fflush(stdout);
			got++;
		}
	}
	return got == want ? 0 : 1;
}
