// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce-ep-bench: native figures of libmroce-ep in node mode, and the plain
 * UDP round trip they are compared with (scripts/bench-ep.sh).
 *
 *   mroce-ep-bench server ADDR TCPPORT
 *   mroce-ep-bench client SERVER ADDR TCPPORT bw SIZE WINDOW SECONDS
 *   mroce-ep-bench client SERVER ADDR TCPPORT lat SIZE COUNT
 *   mroce-ep-bench udp-echo ADDR PORT SECONDS
 *   mroce-ep-bench udp-ping SRC DST PORT SIZE COUNT
 *
 * server: a node (MEP_F_NODE) on ADDR:4796; serves one client over the
 * side channel of ep/sidechan.h on TCP TCPPORT (a buffer of the client's
 * size, remote WRITE and READ), then exits.
 *
 * client bw: a node on ADDR; after one WRITE that opens the connection,
 * keeps WINDOW WRITEs of SIZE bytes outstanding for SECONDS, then waits
 * for the last. Every figure counts completions with status success:
 *   bw size S window W ops N bytes B seconds T MBps M ops_per_s R retx X
 * (MB: 10^6 bytes of payload; T from the first post to the last
 * completion). MEP_COUNTERS=1: the engine's counters to stderr.
 *
 * client lat: COUNT READs of SIZE bytes, one at a time, each timed from
 * its post to its completion (after 100 not counted):
 *   lat size S count N median_us A p99_us B min_us C retx X
 *
 * udp-echo / udp-ping: the same round trip over plain UDP sockets: the
 * pinger sends SIZE bytes, the echo returns them, COUNT times (after 100
 * not counted), blocking in recv() as the endpoint blocks in ppoll():
 *   udp-lat size S count N median_us A p99_us B min_us C
 * The echo exits after a second of silence once something came, or after
 * SECONDS without anything.
 *
 * Plain UDP goodput and message rate come from mroce-udp-ceiling
 * (bench/guest/udp-ceiling.c). Exit status 0 when every operation succeeded.
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
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZE	(64u << 20)
#define WARMUP		100
#define REAP		64

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* "median_us A p99_us B min_us C" of @n round trips in ns (sorts @t) */
static void print_rtts(const char *what, uint32_t size, uint64_t *t,
		       uint32_t n)
{
	qsort(t, n, sizeof(*t), cmp_u64);
	printf("%s size %u count %u median_us %.2f p99_us %.2f min_us %.2f",
	       what, size, n, t[n / 2] / 1e3, t[(uint64_t)n * 99 / 100] / 1e3,
	       t[0] / 1e3);
}

/* ------------------------------------------------------------------------ */
/* the endpoint's server                                                      */

static int server(const char *addr, uint16_t tport)
{
	struct mep_hello h;
	struct mep_qp *qp = NULL;
	struct sockaddr_in peer;
	socklen_t pl = sizeof(peer);
	char host[INET_ADDRSTRLEN], res = 'f';
	uint32_t key = 0, size;
	void *buf = NULL;
	int err = 0, lfd, cfd = -1, r = 1;
	struct mep *ep = mep_create_flags(addr, 0, MEP_F_NODE, &err);

	lfd = mep_side_listen(tport);
	if (!ep || lfd < 0) {
		fprintf(stderr, "mroce-ep-bench: cannot listen: %s\n",
			strerror(ep ? errno : -err));
		goto out;
	}
	/* the client's connection, the engine running meanwhile */
	while (cfd < 0) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };

		mep_poll(ep, 5);
		if (poll(&p, 1, 0) == 1)
			cfd = accept(lfd, (struct sockaddr *)&peer, &pl);
	}
	if (mep_full_io(cfd, &h, sizeof(h), 0) ||
	    ntohl(h.magic) != MEP_SIDE_MAGIC)
		goto out;
	size = ntohl(h.size);
	inet_ntop(AF_INET, &peer.sin_addr, host, sizeof(host));
	buf = size && size <= MAX_SIZE ? calloc(1, size) : NULL;
	qp = mep_qp_create(ep);
	if (!buf || !qp ||
	    mep_reg_mr(ep, buf, size,
		       MEP_ACC_REMOTE_WRITE | MEP_ACC_REMOTE_READ, &key) ||
	    mep_qp_connect(qp, host, 0, ntohl(h.qpn), 0))
		goto out;
	if (mep_side_answer(cfd, mep_qp_num(qp), key, buf))
		goto out;
	/* serve until the client's verdict: one byte, or the end of stream */
	for (;;) {
		struct pollfd p = { .fd = cfd, .events = POLLIN };

		mep_poll(ep, 5);
		if (poll(&p, 1, 0) == 1)
			break;
	}
	r = read(cfd, &res, 1) == 1 && res == 'k' ? 0 : 1;
	mep_poll(ep, 20);	/* the last ACKs */
out:
	if (cfd >= 0)
		close(cfd);
	if (lfd >= 0)
		close(lfd);
	if (qp)
		mep_qp_destroy(qp);
	mep_destroy(ep);
	free(buf);
	return r;
}

/* ------------------------------------------------------------------------ */
/* the endpoint's client                                                      */

struct bench {
	struct mep *ep;
	struct mep_qp *qp;
	uint8_t *buf;
	uint32_t size, rkey;
	uint64_t raddr;
	uint64_t done, failed;
	uint64_t last_ns;	/* the last completion's time */
};

/*
 * Progress, then take the completions: counts them (into done, or failed
 * when not successful) and notes when the last came. Waits up to @ms for
 * one. Returns how many completed, or -1 when mep_poll() failed.
 */
static int reap(struct bench *b, int ms)
{
	struct mep_wc wc[REAP];
	int i, n, got = 0;

	if (mep_poll(b->ep, ms) < 0)
		return -1;
	while ((n = mep_poll_cq(b->ep, wc, REAP)) > 0) {
		for (i = 0; i < n; i++) {
			if (wc[i].status == MEP_WC_SUCCESS) {
				b->done++;
				continue;
			}
			if (!b->failed++)
				fprintf(stderr, "wr %llu: %s\n",
					(unsigned long long)wc[i].wr_id,
					mep_wc_status_str(wc[i].status));
		}
		got += n;
		b->last_ns = now_ns();
	}
	return got;
}

/* one operation (@rd: READ, else WRITE) waited for; 0 when it succeeded */
static int one(struct bench *b, uint64_t id, int rd)
{
	uint64_t limit = now_ns() + 30000000000ULL, before = b->done;
	int r;

	r = rd ? mep_post_read(b->qp, id, b->buf, b->size, b->raddr, b->rkey) :
		 mep_post_write(b->qp, id, b->buf, b->size, b->raddr, b->rkey);
	if (r)
		return -1;
	while (!(r = reap(b, 100)))
		if (now_ns() > limit)
			return -1;
	return r < 0 || b->done != before + 1 ? -1 : 0;
}

static int run_bw(struct bench *b, uint32_t window, double secs)
{
	uint64_t t0, end, posted = 0, ops;
	int r, stop = 0;

	if (one(b, 0, 0))	/* opens the connection */
		return -1;
	b->done = 0;
	t0 = now_ns();
	end = t0 + (uint64_t)(secs * 1e9);
	while (!stop || posted != b->done + b->failed) {
		while (!stop && posted - b->done - b->failed < window) {
			r = mep_post_write(b->qp, posted + 1, b->buf, b->size,
					   b->raddr, b->rkey);
			if (r == -EAGAIN)
				break;
			if (r)
				return -1;
			posted++;
		}
		if (reap(b, 100) < 0 || b->failed)
			return -1;
		if (now_ns() >= end)
			stop = 1;
		if (now_ns() >= end + 30000000000ULL)
			return -1;	/* the last never completed */
	}
	ops = b->done;
	printf("bw size %u window %u ops %llu bytes %llu seconds %.3f MBps %.2f ops_per_s %.0f",
	       b->size, window, (unsigned long long)ops,
	       (unsigned long long)(ops * b->size),
	       (b->last_ns - t0) / 1e9,
	       (double)ops * b->size * 1e3 / (double)(b->last_ns - t0),
	       (double)ops * 1e9 / (double)(b->last_ns - t0));
	return 0;
}

static int run_lat(struct bench *b, uint32_t count)
{
	uint64_t *t = calloc(count, sizeof(*t)), t0;
	uint32_t i;

	if (!t)
		return -1;
	for (i = 0; i < WARMUP + count; i++) {
		t0 = now_ns();
		if (one(b, i, 1)) {
			free(t);
			return -1;
		}
		if (i >= WARMUP)
			t[i - WARMUP] = b->last_ns - t0;
	}
	print_rtts("lat", b->size, t, count);
	free(t);
	return 0;
}

static int client(const char *srv, const char *addr, uint16_t tport,
		  char **argv, int argc)
{
	struct bench b = { 0 };
	struct mep_hello h;
	struct mep_answer a;
	int fd, err = 0, r = -1, bw = !strcmp(argv[0], "bw");
	unsigned long arg2 = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;

	b.size = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 0;
	if (!b.size || b.size > MAX_SIZE || !arg2 ||
	    (bw ? argc != 4 : argc != 3 || strcmp(argv[0], "lat"))) {
		fprintf(stderr, "mroce-ep-bench: bad arguments\n");
		return 2;
	}
	b.ep = mep_create_flags(addr, 0, MEP_F_NODE, &err);
	b.qp = b.ep ? mep_qp_create(b.ep) : NULL;
	b.buf = calloc(1, b.size);
	fd = mep_side_dial(srv, tport, addr);
	if (!b.qp || !b.buf || fd < 0) {
		fprintf(stderr, "mroce-ep-bench: cannot set up (%s)\n",
			fd < 0 ? "no server" : strerror(-err));
		goto out;
	}
	h = (struct mep_hello){ htonl(MEP_SIDE_MAGIC), htonl(mep_port(b.ep)),
				htonl(mep_qp_num(b.qp)), htonl(b.size) };
	if (mep_full_io(fd, &h, sizeof(h), 1) ||
	    mep_full_io(fd, &a, sizeof(a), 0) ||
	    ntohl(a.magic) != MEP_SIDE_MAGIC ||
	    mep_qp_connect(b.qp, srv, 0, ntohl(a.qpn), 0))
		goto out;
	b.rkey = ntohl(a.rkey);
	b.raddr = (uint64_t)ntohl(a.addr_hi) << 32 | ntohl(a.addr_lo);
	r = bw ? run_bw(&b, (uint32_t)arg2, atof(argv[3])) :
		 run_lat(&b, (uint32_t)arg2);
	if (!r)
		printf(" retx %llu\n",
		       (unsigned long long)mep_counter(b.ep, "tx_retx"));
	if (getenv("MEP_COUNTERS"))
		mep_print_counters(b.ep, 2);
	if (mep_full_io(fd, r ? "f" : "k", 1, 1))
		r = -1;
out:
	if (r)
		fprintf(stderr, "mroce-ep-bench: failed (%llu completed, %llu failed)\n",
			(unsigned long long)b.done,
			(unsigned long long)b.failed);
	if (fd >= 0)
		close(fd);
	mep_destroy(b.ep);
	free(b.buf);
	return r ? 1 : 0;
}

/* ------------------------------------------------------------------------ */
/* the plain UDP round trip                                                   */

static int udp_at(const char *addr, uint16_t port, struct sockaddr_in *sa)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	*sa = (struct sockaddr_in){ .sin_family = AF_INET,
				    .sin_port = htons(port) };
	if (s < 0 || inet_pton(AF_INET, addr, &sa->sin_addr) != 1 ||
	    bind(s, (struct sockaddr *)sa, sizeof(*sa))) {
		fprintf(stderr, "udp: %s:%u: %s\n", addr, port,
			strerror(errno));
		if (s >= 0)
			close(s);
		return -1;
	}
	return s;
}

static int udp_echo(const char *addr, uint16_t port, double secs)
{
	static char buf[65536];
	struct sockaddr_in sa, from;
	struct timeval tv = { .tv_sec = 1 };
	uint64_t n = 0, give_up = now_ns() + (uint64_t)(secs * 1e9);
	int s = udp_at(addr, port, &sa);

	if (s < 0)
		return 1;
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (;;) {
		socklen_t fl = sizeof(from);
		ssize_t len = recvfrom(s, buf, sizeof(buf), 0,
				       (struct sockaddr *)&from, &fl);

		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (n || now_ns() > give_up)
				break;
			continue;
		}
		n++;
		sendto(s, buf, (size_t)len, 0, (struct sockaddr *)&from, fl);
	}
	close(s);
	return n ? 0 : 1;
}

static int udp_ping(const char *src, const char *dst, uint16_t port,
		    uint32_t size, uint32_t count)
{
	static char buf[65536];
	struct sockaddr_in sa, to;
	struct timeval tv = { .tv_sec = 1 };
	uint64_t *t = calloc(count, sizeof(*t)), t0;
	uint32_t i;
	int s = udp_at(src, 0, &sa), r = 1;

	to = (struct sockaddr_in){ .sin_family = AF_INET,
				   .sin_port = htons(port) };
	if (s < 0 || !t || !size || size > 65507 ||
	    inet_pton(AF_INET, dst, &to.sin_addr) != 1)
		goto out;
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	/* the echo may be starting: the first datagram is retried */
	for (i = 0; i < WARMUP + count; i++) {
		int tries = 0;
		ssize_t got;

		t0 = now_ns();
		do {
			if (sendto(s, buf, size, 0, (struct sockaddr *)&to,
				   sizeof(to)) != (ssize_t)size)
				goto out;
			got = recv(s, buf, sizeof(buf), 0);
		} while (got < 0 && errno == EAGAIN && !i && ++tries < 5);
		if (got != (ssize_t)size) {
			fprintf(stderr, "udp-ping: round trip %u lost\n", i);
			goto out;
		}
		if (i >= WARMUP)
			t[i - WARMUP] = now_ns() - t0;
	}
	print_rtts("udp-lat", size, t, count);
	printf("\n");
	r = 0;
out:
	if (s >= 0)
		close(s);
	free(t);
	return r;
}

static const char usage_text[] =
	"usage: mroce-ep-bench server ADDR TCPPORT\n"
	"       mroce-ep-bench client SERVER ADDR TCPPORT bw SIZE WINDOW SECONDS\n"
	"       mroce-ep-bench client SERVER ADDR TCPPORT lat SIZE COUNT\n"
	"       mroce-ep-bench udp-echo ADDR PORT SECONDS\n"
	"       mroce-ep-bench udp-ping SRC DST PORT SIZE COUNT\n";

static int usage(void)
{
	fputs(usage_text, stderr);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "server"))
		return server(argv[2], (uint16_t)atoi(argv[3]));
	if (argc >= 7 && !strcmp(argv[1], "client"))
		return client(argv[2], argv[3], (uint16_t)atoi(argv[4]),
			      argv + 5, argc - 5);
	if (argc == 5 && !strcmp(argv[1], "udp-echo"))
		return udp_echo(argv[2], (uint16_t)atoi(argv[3]),
				atof(argv[4]));
	if (argc == 7 && !strcmp(argv[1], "udp-ping"))
		return udp_ping(argv[2], argv[3], (uint16_t)atoi(argv[4]),
				(uint32_t)strtoul(argv[5], NULL, 0),
				(uint32_t)strtoul(argv[6], NULL, 0));
	return usage();
}
