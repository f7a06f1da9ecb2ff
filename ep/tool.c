// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce-ep: a verified transfer between two libmroce-ep endpoints.
 *
 *   mroce-ep server PORT [-1] [--node ADDR[:UDPPORT]]
 *   mroce-ep client HOST PORT [-n OPS] [-s SIZE] [--node ADDR[:UDPPORT]]
 *
 * The server listens on UDP PORT (MetaRoCE) and TCP PORT (the side channel
 * that exchanges QP numbers and the rkey). For each client it registers a
 * SIZE buffer; the client WRITEs SIZE random bytes into it, READs them back
 * and checks every byte, OPS times; then (SIZE >= 8) a fetch-and-add and a
 * compare-and-swap on the buffer's first 8 bytes, checked against what it
 * wrote and read back. -1: the server serves one client, then exits (0
 * when the client's QP worked). Exit status 0 only when every operation
 * succeeded and every byte came back.
 *
 * --node: node mode (MEP_F_NODE), as a peer of the kernel module: MetaRoCE
 * on ADDR:UDPPORT (default 4796), peers named by address; PORT is then the
 * TCP side channel's alone, whose client binds ADDR so that the server
 * learns the client node's address from the connection.
 */
#define _GNU_SOURCE
#include "mroce-ep.h"
#include "sidechan.h"
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZE	(64u << 20)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* wait for the completion of @wr_id; returns its status (or -1: timeout) */
static int wait_wc(struct mep *ep, uint64_t wr_id, double limit_s)
{
	double end = now_s() + limit_s;
	struct mep_wc wc;

	while (now_s() < end) {
		if (mep_poll(ep, 100) < 0)
			return -1;
		while (mep_poll_cq(ep, &wc, 1) == 1) {
			if (wc.wr_id == wr_id)
				return wc.status;
			fprintf(stderr, "unexpected completion %llu: %s\n",
				(unsigned long long)wc.wr_id,
				mep_wc_status_str(wc.status));
		}
	}
	return -1;
}

/* ------------------------------------------------------------------------ */
/* server                                                                     */

/* the endpoint: node mode when @node is an address */
static struct mep *ep_open(const char *node, uint16_t node_port,
			   uint16_t port, int *err)
{
	if (node)
		return mep_create_flags(node, node_port, MEP_F_NODE, err);
	return mep_create(NULL, port, err);
}

/* one client: set up its QP and buffer, serve until it hangs up */
static int serve(struct mep *ep, int cfd)
{
	struct sockaddr_in peer;
	socklen_t pl = sizeof(peer);
	struct mep_hello h;
	struct mep_qp *qp;
	uint32_t key = 0, size;
	char host[INET_ADDRSTRLEN];
	void *buf;
	int r = 1;

	if (mep_full_io(cfd, &h, sizeof(h), 0) || ntohl(h.magic) != MEP_SIDE_MAGIC ||
	    getpeername(cfd, (struct sockaddr *)&peer, &pl))
		return 1;
	size = ntohl(h.size);
	inet_ntop(AF_INET, &peer.sin_addr, host, sizeof(host));
	buf = size && size <= MAX_SIZE ? calloc(1, size) : NULL;
	qp = mep_qp_create(ep);
	if (!buf || !qp ||
	    mep_reg_mr(ep, buf, size, MEP_ACC_REMOTE_WRITE | MEP_ACC_REMOTE_READ |
		       MEP_ACC_REMOTE_ATOMIC, &key) ||
	    mep_qp_connect(qp, host, (uint16_t)ntohl(h.udp_port),
			   ntohl(h.qpn), 0))
		goto out;
	if (mep_side_answer(cfd, mep_qp_num(qp), key, buf))
		goto out;
	printf("client %s:%u qp %u -> %u, %u bytes\n", host,
	       ntohl(h.udp_port), mep_qp_num(qp), ntohl(h.qpn), size);
	fflush(stdout);
	/* the client says how it went in one byte, or just hangs up */
	for (;;) {
		struct pollfd p = { .fd = cfd, .events = POLLIN };
		char res;

		mep_poll(ep, 5);
		if (poll(&p, 1, 0) == 1) {
			r = read(cfd, &res, 1) == 1 && res == 'k' ? 0 : 1;
			break;
		}
	}
out:
	if (qp)
		mep_qp_destroy(qp);
	if (key)
		mep_dereg_mr(ep, key);
	free(buf);
	return r;
}

static int server(uint16_t port, int once, const char *node,
		  uint16_t node_port)
{
	struct mep *ep;
	int lfd, err = 0, r = 0;

	ep = ep_open(node, node_port, port, &err);
	lfd = mep_side_listen(port);
	if (!ep || lfd < 0) {
		fprintf(stderr, "mroce-ep: port %u: %s\n", port,
			strerror(ep ? errno : -err));
		mep_destroy(ep);
		if (lfd >= 0)
			close(lfd);
		return 1;
	}
	printf("listening on UDP port %u and TCP port %u%s%s\n", mep_port(ep),
	       port, node ? ", node " : "", node ? node : "");
	fflush(stdout);
	for (;;) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		int cfd;

		mep_poll(ep, 5);
		if (poll(&p, 1, 0) != 1)
			continue;
		cfd = accept(lfd, NULL, NULL);
		if (cfd < 0)
			continue;
		r = serve(ep, cfd);
		close(cfd);
		if (once)
			break;
	}
	/* let the last ACKs go out before the socket closes */
	mep_poll(ep, 20);
	printf("server: retransmitted %llu, dropped on purpose %llu\n",
	       (unsigned long long)mep_counter(ep, "tx_retx"),
	       (unsigned long long)mep_tx_dropped(ep));
	mep_destroy(ep);
	close(lfd);
	return r;
}

/* ------------------------------------------------------------------------ */
/* client                                                                     */

struct run {
	struct mep *ep;
	struct mep_qp *qp;
	uint8_t *wbuf, *rbuf;
	uint32_t size, rkey;
	uint64_t raddr, ops, done, bad_bytes, failed;
};

/* one WRITE, then one READ of the same range, then compare */
static int one_op(struct run *x, uint64_t *seed)
{
	uint64_t i, id = x->done * 2;
	int st;

	for (i = 0; i < x->size; i++)
		x->wbuf[i] = (uint8_t)xorshift(seed);
	for (i = 0; i < x->size; i++)
		x->rbuf[i] = (uint8_t)~x->wbuf[i];
	if (mep_post_write(x->qp, id, x->wbuf, x->size, x->raddr, x->rkey))
		return -1;
	st = wait_wc(x->ep, id, 30);
	if (st) {
		fprintf(stderr, "WRITE %llu: %s\n", (unsigned long long)x->done,
			st < 0 ? "timed out" : mep_wc_status_str(st));
		return -1;
	}
	if (mep_post_read(x->qp, id + 1, x->rbuf, x->size, x->raddr, x->rkey))
		return -1;
	st = wait_wc(x->ep, id + 1, 30);
	if (st) {
		fprintf(stderr, "READ %llu: %s\n", (unsigned long long)x->done,
			st < 0 ? "timed out" : mep_wc_status_str(st));
		return -1;
	}
	for (i = 0; i < x->size; i++)
		x->bad_bytes += x->wbuf[i] != x->rbuf[i];
	return 0;
}

/* one atomic; returns the old value through *@orig, 0 or -1 */
static int one_atomic(struct run *x, uint64_t id, int cas, uint64_t cmp,
		      uint64_t add, uint64_t *orig)
{
	int st;

	if (mep_post_atomic(x->qp, id, orig, x->raddr, x->rkey, cas, cmp, add))
		return -1;
	st = wait_wc(x->ep, id, 30);
	if (st) {
		fprintf(stderr, "%s: %s\n", cas ? "CMP_SWAP" : "FETCH_ADD",
			st < 0 ? "timed out" : mep_wc_status_str(st));
		return -1;
	}
	return 0;
}

/*
 * After the transfer the peer's first 8 bytes are wbuf's: add to them,
 * swap them for another value, read that back. Returns the failures.
 */
static int atomics(struct run *x)
{
	const uint64_t add = 0x0101010101010101ULL, swap = 0x6d65702d6e6f6465ULL;
	uint64_t id = x->done * 2 + 1000, first, orig = 0, back = 0;
	int bad = 0;

	memcpy(&first, x->wbuf, 8);
	if (one_atomic(x, id, 0, 0, add, &orig))
		return 1;
	bad += orig != first;
	if (one_atomic(x, id + 1, 1, first + add, swap, &orig))
		return 1;
	bad += orig != first + add;
	if (mep_post_read(x->qp, id + 2, &back, 8, x->raddr, x->rkey) ||
	    wait_wc(x->ep, id + 2, 30))
		return 1;
	bad += back != swap;
	if (bad)
		fprintf(stderr, "atomics: %d of 3 values wrong\n", bad);
	else
		printf("atomics: fetch-and-add, compare-and-swap verified\n");
	return bad;
}

/* run @ms more: the peer's last response ACKed (answer_ack_ns, 2 ms), what
 * is on the way counted; else the peer resends it to a closed port */
static void linger(struct mep *ep, int ms)
{
	double end = now_s() + ms / 1e3;
	struct mep_wc wc;

	while (now_s() < end) {
		if (mep_poll(ep, (int)((end - now_s()) * 1e3) + 1) < 0)
			return;
		while (mep_poll_cq(ep, &wc, 1) == 1)
			;
	}
}

static int transfer(struct run *x)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
	double t0 = now_s(), t;

	for (x->done = 0; x->done < x->ops; x->done++) {
		if (one_op(x, &seed)) {
			x->failed++;
			break;
		}
	}
	t = now_s() - t0;
	if (!x->failed && x->done && x->size >= 8 && !(x->raddr & 7))
		x->failed += atomics(x);
	linger(x->ep, 20);
	printf("%llu ops, %llu bytes verified, %llu corrupted, %llu failed\n",
	       (unsigned long long)x->done,
	       (unsigned long long)(x->done * x->size),
	       (unsigned long long)x->bad_bytes,
	       (unsigned long long)x->failed);
	printf("%.0f ops/s, %.1f MB/s (WRITE + READ payload), %.3f s\n",
	       x->done / t, 2.0 * x->done * x->size / t / 1e6, t);
	printf("client: retransmitted %llu (tail probes %llu, timeouts %llu, "
	       "spurious %llu), dropped on purpose %llu\n",
	       (unsigned long long)mep_counter(x->ep, "tx_retx"),
	       (unsigned long long)mep_counter(x->ep, "tx_tlp"),
	       (unsigned long long)(mep_counter(x->ep, "rto") +
				    mep_counter(x->ep, "rto_stall")),
	       (unsigned long long)mep_counter(x->ep, "spurious_retx"),
	       (unsigned long long)mep_tx_dropped(x->ep));
	if (getenv("MEP_COUNTERS"))
		mep_print_counters(x->ep, 1);
	return x->failed || x->bad_bytes || x->done != x->ops;
}

static int client(const char *host, uint16_t port, uint64_t ops,
		  uint32_t size, const char *node, uint16_t node_port)
{
	struct run x = { .ops = ops, .size = size };
	struct mep_hello h;
	struct mep_answer a;
	int fd, err = 0, r = 1;

	x.ep = ep_open(node, node_port, 0, &err);
	x.qp = x.ep ? mep_qp_create(x.ep) : NULL;
	x.wbuf = malloc(size);
	x.rbuf = malloc(size);
	fd = mep_side_dial(host, port, node);
	if (!x.qp || !x.wbuf || !x.rbuf || fd < 0) {
		fprintf(stderr, "mroce-ep: cannot set up (%s)\n",
			fd < 0 ? "no server" : strerror(-err));
		goto out;
	}
	h = (struct mep_hello){ htonl(MEP_SIDE_MAGIC), htonl(mep_port(x.ep)),
				htonl(mep_qp_num(x.qp)), htonl(size) };
	if (mep_full_io(fd, &h, sizeof(h), 1) || mep_full_io(fd, &a, sizeof(a), 0) ||
	    ntohl(a.magic) != MEP_SIDE_MAGIC ||
	    mep_qp_connect(x.qp, host, port, ntohl(a.qpn), 0)) {
		fprintf(stderr, "mroce-ep: the side channel failed\n");
		goto out;
	}
	x.rkey = ntohl(a.rkey);
	x.raddr = (uint64_t)ntohl(a.addr_hi) << 32 | ntohl(a.addr_lo);
	r = transfer(&x);
	if (mep_full_io(fd, r ? "f" : "k", 1, 1))
		r = 1;
out:
	if (fd >= 0)
		close(fd);
	mep_destroy(x.ep);
	free(x.wbuf);
	free(x.rbuf);
	return r;
}

static int usage(void)
{
	fprintf(stderr, "usage: mroce-ep server PORT [-1] [--node ADDR[:UDPPORT]]\n"
		"       mroce-ep client HOST PORT [-n OPS] [-s SIZE] "
		"[--node ADDR[:UDPPORT]]\n");
	return 2;
}

/* ADDR[:UDPPORT] into @addr (room for a dotted IPv4) and *@port */
static int node_arg(const char *arg, char *addr, size_t room, uint16_t *port)
{
	const char *colon = strchr(arg, ':');
	size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
	unsigned long p = MEP_NODE_PORT;
	char *end;

	if (!len || len >= room)
		return -1;
	memcpy(addr, arg, len);
	addr[len] = 0;
	if (colon) {
		p = strtoul(colon + 1, &end, 10);
		if (*end || !p || p > 65535)
			return -1;
	}
	*port = (uint16_t)p;
	return 0;
}

int main(int argc, char **argv)
{
	char node_buf[INET_ADDRSTRLEN];
	const char *node = NULL;
	uint16_t node_port = MEP_NODE_PORT;
	uint64_t ops = 1000;
	uint32_t size = 65536;
	int i, once = 0, srv, first;

	if (argc < 3)
		return usage();
	srv = !strcmp(argv[1], "server");
	if (!srv && (strcmp(argv[1], "client") || argc < 4))
		return usage();
	first = srv ? 3 : 4;
	for (i = first; i < argc; i++) {
		if (srv && !strcmp(argv[i], "-1")) {
			once = 1;
			continue;
		}
		if (i + 1 == argc)
			return usage();
		if (!strcmp(argv[i], "--node")) {
			if (node_arg(argv[++i], node_buf, sizeof(node_buf),
				     &node_port))
				return usage();
			node = node_buf;
		} else if (!srv && !strcmp(argv[i], "-n")) {
			ops = strtoull(argv[++i], NULL, 0);
		} else if (!srv && !strcmp(argv[i], "-s")) {
			size = (uint32_t)strtoul(argv[++i], NULL, 0);
		} else {
			return usage();
		}
	}
	if (srv)
		return server((uint16_t)atoi(argv[2]), once, node, node_port);
	if (!size || size > MAX_SIZE)
		return usage();
	return client(argv[2], (uint16_t)atoi(argv[3]), ops, size, node,
		      node_port);
}
