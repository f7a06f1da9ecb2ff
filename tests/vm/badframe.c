// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce-badframe: IPv4 UDP datagrams to the MetaRoCE port whose UDP
 * header is wrong, sent through a raw socket (the kernel builds the IP
 * header; the UDP header and its checksum are ours), for the software
 * NIC's receive checks (tests/vm/offload.sh). Built by `make tools`.
 *
 *	mroce-badframe [-H] -s SRC -d DST [-p PORT] [-n COUNT] [-l LEN] KIND
 *
 * KIND:
 *   csum        a UDP checksum that is wrong (never 0, which means "none")
 *   ulen-long   a UDP length 8 bytes more than the datagram
 *   ulen-short  a UDP length of 4, less than the UDP header
 *   good        a right header and checksum around LEN zero bytes (a
 *               MetaRoCE packet the engine will refuse): the control case
 *
 * -H writes the IP header too (IP_HDRINCL), so that SRC may be any
 * address, one the sender does not have (tests/vm/hostile.sh sends from
 * the victim's own). Prints "badframe KIND: sent N" and exits 0, 1 on a
 * send error, 2 on a usage error. Needs CAP_NET_RAW.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct udp {
	uint16_t sport, dport, len, check;
};

static uint32_t sum16(const void *p, size_t n, uint32_t s)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)b[i] << 8 | b[i + 1];
	if (n & 1)
		s += (uint32_t)b[n - 1] << 8;
	return s;
}

/* the UDP checksum of @len bytes at @u, from @src to @dst (network order) */
static uint16_t udp_csum(struct in_addr src, struct in_addr dst,
			 const void *u, size_t len)
{
	uint32_t s = 0;
	uint16_t c;

	s = sum16(&src, 4, s);
	s = sum16(&dst, 4, s);
	s += IPPROTO_UDP + (uint32_t)len;
	s = sum16(u, len, s);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	c = (uint16_t)~s;
	return htons(c ? c : 0xffff);
}

static void usage(FILE *f)
{
	fputs("mroce-badframe [-H] -s SRC -d DST [-p PORT] [-n COUNT] [-l LEN] KIND\n"
	      "KIND: csum, ulen-long, ulen-short or good\n", f);
}

int main(int argc, char **argv)
{
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct sockaddr_in dst = { .sin_family = AF_INET };
	unsigned long count = 10, n, len = 64, port = 4796;
	const char *kind;
	uint8_t frame[20 + 2048], *buf = frame + 20;
	struct udp *u = (struct udp *)buf;
	int c, s, have_src = 0, have_dst = 0, hdrincl = 0, one = 1;
	size_t ulen;

	while ((c = getopt(argc, argv, "Hs:d:p:n:l:h")) != -1) {
		switch (c) {
		case 'H':
			hdrincl = 1;
			break;
		case 's':
			have_src = inet_pton(AF_INET, optarg, &src.sin_addr) == 1;
			break;
		case 'd':
			have_dst = inet_pton(AF_INET, optarg, &dst.sin_addr) == 1;
			break;
		case 'p':
			port = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		case 'l':
			len = strtoul(optarg, NULL, 0);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !have_src || !have_dst || !port || port > 65535 ||
	    len > sizeof(frame) - 20 - sizeof(*u)) {
		usage(stderr);
		return 2;
	}
	kind = argv[optind];
	if (strcmp(kind, "csum") && strcmp(kind, "ulen-long") &&
	    strcmp(kind, "ulen-short") && strcmp(kind, "good")) {
		usage(stderr);
		return 2;
	}

	memset(frame, 0, sizeof(frame));
	u->sport = htons(40000);
	u->dport = htons((uint16_t)port);
	u->len = htons((uint16_t)(sizeof(*u) + len));
	u->check = udp_csum(src.sin_addr, dst.sin_addr, buf, sizeof(*u) + len);
	if (!strcmp(kind, "csum")) {
		u->check ^= htons(0x5555);	/* wrong ... */
		if (!u->check)
			u->check = htons(1);	/* ... and not "none" */
	} else if (!strcmp(kind, "ulen-long")) {
		u->len = htons((uint16_t)(sizeof(*u) + len + 8));
	} else if (!strcmp(kind, "ulen-short")) {
		u->len = htons(4);
	}

	ulen = sizeof(*u) + len;
	if (hdrincl) {
		/* the kernel fills in the length, the id and the checksum */
		frame[0] = 0x45;
		frame[8] = 64;
		frame[9] = IPPROTO_UDP;
		memcpy(frame + 12, &src.sin_addr, 4);
		memcpy(frame + 16, &dst.sin_addr, 4);
	}
	s = socket(AF_INET, SOCK_RAW, IPPROTO_UDP);
	if (s < 0 || (hdrincl ? setsockopt(s, IPPROTO_IP, IP_HDRINCL, &one,
					   sizeof(one)) :
		      bind(s, (struct sockaddr *)&src, sizeof(src)))) {
		perror("badframe: raw socket");
		return 2;
	}
	for (n = 0; n < count; n++) {
		if (sendto(s, hdrincl ? frame : buf, ulen + (hdrincl ? 20 : 0),
			   0, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
			fprintf(stderr, "badframe: sendto: %s\n", strerror(errno));
			return 1;
		}
	}
	close(s);
	printf("badframe %s: sent %lu\n", kind, n);
	return 0;
}
