// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce-udp-ceiling: the goodput of plain UDP datagrams between two
 * addresses, the ceiling a UDP-based RDMA transport works under on the
 * same path (scripts/bench-guest.sh).
 *
 *   mroce-udp-ceiling recv ADDR PORT SECONDS
 *   mroce-udp-ceiling send SRC DST PORT SIZE SECONDS
 *
 * The sender pushes SIZE-byte datagrams with sendmmsg(), 32 a call, for
 * SECONDS; the receiver counts what arrives with recvmmsg() until it has
 * heard nothing for one second (or SECONDS + 5 have passed) and prints
 *   bytes N datagrams N seconds S MBps M
 * where the time runs from the first datagram to the last, and MB is
 * 10^6 bytes of UDP payload. Exit status 0 when something arrived.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define BATCH 32
#define MAXSZ 65507

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int sock_at(const char *addr, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int s = socket(AF_INET, SOCK_DGRAM, 0), big = 8 << 20;

	if (s < 0 || inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", addr);
		exit(2);
	}
	sa.sin_port = htons(port);
	setsockopt(s, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	setsockopt(s, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("bind");
		exit(2);
	}
	return s;
}

static int do_recv(const char *addr, int port, double secs)
{
	static char buf[BATCH][MAXSZ];
	struct mmsghdr m[BATCH];
	struct iovec iov[BATCH];
	struct timeval tv = { .tv_sec = 1 };
	unsigned long long bytes = 0, n = 0;
	double first = 0, last = 0, start = now_s();
	int s = sock_at(addr, port), i, r;

	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (;;) {
		for (i = 0; i < BATCH; i++) {
			iov[i] = (struct iovec){ buf[i], MAXSZ };
			m[i] = (struct mmsghdr){ .msg_hdr = {
				.msg_iov = &iov[i], .msg_iovlen = 1 } };
		}
		r = recvmmsg(s, m, BATCH, MSG_WAITFORONE, NULL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (n || now_s() - start > secs + 5)
				break;	/* a second of silence after data */
			continue;
		}
		if (!n)
			first = now_s();
		last = now_s();
		for (i = 0; i < r; i++)
			bytes += m[i].msg_len;
		n += r;
	}
	if (n < 2 || last <= first) {
		printf("bytes %llu datagrams %llu seconds 0 MBps 0\n", bytes, n);
		return 1;
	}
	printf("bytes %llu datagrams %llu seconds %.3f MBps %.2f\n", bytes, n,
	       last - first, bytes / (last - first) / 1e6);
	return 0;
}

static int do_send(const char *src, const char *dst, int port, int size,
		   double secs)
{
	static char buf[MAXSZ];
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct mmsghdr m[BATCH];
	struct iovec iov = { buf, (size_t)size };
	double end = now_s() + secs;
	int s = sock_at(src, 0), i;

	if (size < 1 || size > MAXSZ || inet_pton(AF_INET, dst, &to.sin_addr) != 1) {
		fprintf(stderr, "bad size or address\n");
		return 2;
	}
	for (i = 0; i < BATCH; i++)
		m[i] = (struct mmsghdr){ .msg_hdr = {
			.msg_name = &to, .msg_namelen = sizeof(to),
			.msg_iov = &iov, .msg_iovlen = 1 } };
	while (now_s() < end)
		if (sendmmsg(s, m, BATCH, 0) < 0 && errno != ENOBUFS &&
		    errno != EAGAIN && errno != EINTR) {
			perror("sendmmsg");
			return 1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "recv"))
		return do_recv(argv[2], atoi(argv[3]), atof(argv[4]));
	if (argc == 7 && !strcmp(argv[1], "send"))
		return do_send(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]),
			       atof(argv[6]));
	fprintf(stderr, "usage: %s recv ADDR PORT SECONDS | send SRC DST PORT SIZE SECONDS\n",
		argv[0]);
	return 2;
}
