// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce-epside: the kernel module's side of an interop test with
 * libmroce-ep (ep/). Built by `make tools` into build/tests/, run in the
 * guest by tests/vm/interop.sh.
 *
 *	mroce-epside -d DEV [-p PORT] [-1] [-T SECONDS]
 *
 * The server of mroce-ep's TCP side channel (ep/tool.c), on TCP PORT
 * (default 18700), for a client in node mode (mroce-ep client ... --node):
 * the client sends magic, its UDP port, its QP number and a size; this
 * answers with its QP number, the rkey and the address of a SIZE buffer.
 * The client node is the TCP client's IPv4 address: the QP's destination
 * GID is that address IPv4-mapped, its source GID the device's entry for
 * the address the connection came to (ibv_query_gid). The QP goes to RTR
 * and RTS toward the client's QP number; the buffer allows remote WRITE,
 * READ and atomics. Then nothing but waiting: the client WRITEs, READs
 * back and compares, and at the end sends one byte, 'k' (all verified) or
 * 'f', or hangs up.
 *
 * Prints per client "epside: client A.B.C.D qp N -> M, S bytes, gid[G]"
 * and "epside: served ..., verdict ok|FAILED, qp state S". -1: serve one
 * client and exit 0 only when it said 'k' and the QP is not in error;
 * else serve clients until killed. Exit 2 on usage or setup errors.
 * -T: the longest one client may take (default 600 s).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>

#include "../../ep/sidechan.h"

#define MAX_SIZE	(64u << 20)
#define IB_PORT		1

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	void *buf;
	uint32_t size;
};

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++) {
		if (!strcmp(ibv_get_device_name(list[i]), name)) {
			ctx = ibv_open_device(list[i]);
			break;
		}
	}
	ibv_free_device_list(list);
	return ctx;
}

/* @v4 (network order) IPv4-mapped into @gid: ::ffff:a.b.c.d */
static void gid_of_v4(union ibv_gid *gid, const struct in_addr *v4)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(gid->raw + 12, &v4->s_addr, 4);
}

/* the index of @want in the port's GID table, or -1 */
static int find_gid(struct ibv_context *ctx, const union ibv_gid *want)
{
	struct ibv_port_attr pa;
	union ibv_gid g;
	int i;

	if (ibv_query_port(ctx, IB_PORT, &pa))
		return -1;
	for (i = 0; i < pa.gid_tbl_len && i < 1024; i++) {
		if (ibv_query_gid(ctx, IB_PORT, i, &g))
			continue;
		if (!memcmp(&g, want, sizeof(g)))
			return i;
	}
	return -1;
}

static void side_free(struct side *s)
{
	if (s->qp)
		ibv_destroy_qp(s->qp);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	free(s->buf);
	s->qp = NULL;
	s->mr = NULL;
	s->cq = NULL;
	s->pd = NULL;
	s->buf = NULL;
}

/* PD, CQ, MR and an RC QP in INIT */
static int side_init(struct side *s, uint32_t size)
{
	struct ibv_qp_init_attr qia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr qa = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = IB_PORT,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	s->size = size;
	if (posix_memalign(&s->buf, 4096, size)) {
		s->buf = NULL;
		fprintf(stderr, "epside: no memory for %u bytes\n", size);
		return -1;
	}
	memset(s->buf, 0, size);
	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd) {
		perror("epside: ibv_alloc_pd");
		return -1;
	}
	s->cq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0);
	if (!s->cq) {
		perror("epside: ibv_create_cq");
		return -1;
	}
	s->mr = ibv_reg_mr(s->pd, s->buf, size, qa.qp_access_flags);
	if (!s->mr) {
		perror("epside: ibv_reg_mr");
		return -1;
	}
	qia.send_cq = s->cq;
	qia.recv_cq = s->cq;
	s->qp = ibv_create_qp(s->pd, &qia);
	if (!s->qp) {
		perror("epside: ibv_create_qp");
		return -1;
	}
	if (ibv_modify_qp(s->qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		perror("epside: modify QP to INIT");
		return -1;
	}
	return 0;
}

/* RTR and RTS toward QP @rqpn of the node at @peer, from GID @gidx */
static int side_connect(struct side *s, const struct in_addr *peer,
			uint32_t rqpn, int gidx)
{
	struct ibv_port_attr pa;
	struct ibv_qp_attr qa;

	if (ibv_query_port(s->ctx, IB_PORT, &pa)) {
		perror("epside: ibv_query_port");
		return -1;
	}
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	qa.path_mtu = pa.active_mtu;
	qa.dest_qp_num = rqpn;
	qa.rq_psn = 0;
	qa.max_dest_rd_atomic = 16;
	qa.min_rnr_timer = 12;
	qa.ah_attr.is_global = 1;
	qa.ah_attr.port_num = IB_PORT;
	gid_of_v4(&qa.ah_attr.grh.dgid, peer);
	qa.ah_attr.grh.sgid_index = (uint8_t)gidx;
	qa.ah_attr.grh.hop_limit = 64;
	if (ibv_modify_qp(s->qp, &qa, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) {
		perror("epside: modify QP to RTR");
		return -1;
	}
	qa.qp_state = IBV_QPS_RTS;
	qa.sq_psn = 0;
	qa.timeout = 14;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 16;
	if (ibv_modify_qp(s->qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_MAX_QP_RD_ATOMIC)) {
		perror("epside: modify QP to RTS");
		return -1;
	}
	return 0;
}

static const char *qp_state(struct ibv_qp *qp)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;

	if (ibv_query_qp(qp, &qa, IBV_QP_STATE, &ia))
		return "unknown";
	return (unsigned)qa.qp_state < sizeof(names) / sizeof(names[0]) ?
	       names[qa.qp_state] : "unknown";
}

/*
 * The client's verdict byte, or 0 when it hung up, -1 at the time limit.
 * The buffer is the client's to change meanwhile: nothing to do here, the
 * module's responder does it all.
 */
static int wait_verdict(int cfd, int limit_s)
{
	struct pollfd p = { .fd = cfd, .events = POLLIN };
	char res;
	int i;

	for (i = 0; i < limit_s; i++) {
		int n = poll(&p, 1, 1000);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 0;
		if (n == 1)
			return read(cfd, &res, 1) == 1 ? res : 0;
	}
	return -1;
}

/* one client; returns 0 when it said 'k' and the QP is fine */
static int serve(struct side *s, int cfd, int limit_s)
{
	struct sockaddr_in peer, me;
	socklen_t pl = sizeof(peer), ml = sizeof(me);
	char host[INET_ADDRSTRLEN], mine[INET_ADDRSTRLEN];
	const char *state;
	union ibv_gid g;
	struct mep_hello h;
	uint32_t size;
	int gidx, v, r = 1;

	if (mep_full_io(cfd, &h, sizeof(h), 0) || ntohl(h.magic) != MEP_SIDE_MAGIC ||
	    getpeername(cfd, (struct sockaddr *)&peer, &pl) ||
	    getsockname(cfd, (struct sockaddr *)&me, &ml) ||
	    peer.sin_family != AF_INET) {
		fprintf(stderr, "epside: not a mroce-ep client over IPv4\n");
		return 1;
	}
	inet_ntop(AF_INET, &peer.sin_addr, host, sizeof(host));
	inet_ntop(AF_INET, &me.sin_addr, mine, sizeof(mine));
	size = ntohl(h.size);
	if (!size || size > MAX_SIZE) {
		fprintf(stderr, "epside: %s asked for %u bytes\n", host, size);
		return 1;
	}
	gid_of_v4(&g, &me.sin_addr);
	gidx = find_gid(s->ctx, &g);
	if (gidx < 0) {
		fprintf(stderr, "epside: no GID for %s on the device\n", mine);
		return 1;
	}
	if (side_init(s, size) ||
	    side_connect(s, &peer.sin_addr, ntohl(h.qpn) & 0xffffff, gidx))
		goto out;
	if (mep_side_answer(cfd, s->qp->qp_num, s->mr->rkey, s->buf)) {
		fprintf(stderr, "epside: the side channel failed\n");
		goto out;
	}
	printf("epside: client %s qp %u -> %u, %u bytes, gid[%d] %s\n", host,
	       s->qp->qp_num, ntohl(h.qpn), size, gidx, mine);
	fflush(stdout);
	v = wait_verdict(cfd, limit_s);
	state = qp_state(s->qp);
	r = v == 'k' && strcmp(state, "ERR") ? 0 : 1;
	printf("epside: served %s, %u bytes, verdict %s, qp state %s\n", host,
	       size, v == 'k' ? "ok" : v < 0 ? "TIMEOUT" : v ? "FAILED" :
	       "HUNG UP", state);
	fflush(stdout);
out:
	side_free(s);
	return r;
}

static int usage(void)
{
	fprintf(stderr, "usage: mroce-epside -d DEV [-p PORT] [-1] [-T SECONDS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct side s = { 0 };
	const char *dev = NULL;
	int opt, once = 0, limit_s = 600, lfd, r = 0;
	uint16_t port = 18700;

	while ((opt = getopt(argc, argv, "d:p:1T:")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'p':
			port = (uint16_t)atoi(optarg);
			break;
		case '1':
			once = 1;
			break;
		case 'T':
			limit_s = atoi(optarg);
			break;
		default:
			return usage();
		}
	}
	if (!dev || optind != argc || !port || limit_s <= 0)
		return usage();
	s.ctx = open_dev(dev);
	if (!s.ctx) {
		fprintf(stderr, "epside: no device %s\n", dev);
		return 2;
	}
	lfd = mep_side_listen(port);
	if (lfd < 0) {
		perror("epside: TCP port");
		ibv_close_device(s.ctx);
		return 2;
	}
	printf("epside: %s, listening on TCP port %u\n", dev, port);
	fflush(stdout);
	for (;;) {
		int cfd = accept(lfd, NULL, NULL);

		if (cfd < 0) {
			if (errno == EINTR)
				continue;
			perror("epside: accept");
			r = 2;
			break;
		}
		r = serve(&s, cfd, limit_s);
		close(cfd);
		if (once)
			break;
	}
	close(lfd);
	ibv_close_device(s.ctx);
	return r;
}
