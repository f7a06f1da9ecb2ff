/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The TCP side channel of mroce-ep (ep/tool.c) and of its peer on the
 * kernel module, mroce-epside (tests/vm/epside.c): how a client learns a
 * server's QP number, rkey and buffer. One exchange per client, every
 * field a 32-bit word in network order:
 *
 *	client -> server  struct mep_hello   (magic, its UDP port, its QP, size)
 *	server -> client  struct mep_answer  (magic, its QP, rkey, address)
 *	client -> server  one byte at the end: 'k' all verified, 'f' not
 */
#ifndef MEP_SIDECHAN_H
#define MEP_SIDECHAN_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define MEP_SIDE_MAGIC	0x6d657031u	/* "mep1" */

struct mep_hello {
	uint32_t magic, udp_port, qpn, size;
};

struct mep_answer {
	uint32_t magic, qpn, rkey, addr_hi, addr_lo;
};

/* read (@wr 0) or write all of @len bytes; -1 on error or end of stream */
static inline int mep_full_io(int fd, void *buf, size_t len, int wr)
{
	char *p = buf;

	while (len) {
		ssize_t n = wr ? write(fd, p, len) : read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* the server's answer: its QP @qpn, the @rkey and address of @buf; 0 or -1 */
static inline int mep_side_answer(int fd, uint32_t qpn, uint32_t rkey,
				  const void *buf)
{
	struct mep_answer a = { htonl(MEP_SIDE_MAGIC), htonl(qpn), htonl(rkey),
				htonl((uint32_t)((uintptr_t)buf >> 32)),
				htonl((uint32_t)(uintptr_t)buf) };

	return mep_full_io(fd, &a, sizeof(a), 1);
}

/* a TCP socket listening on @port of every address; -1 on error */
static inline int mep_side_listen(uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 4)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A TCP connection to the side channel at @host:@port, bound to the IPv4
 * address @node when not NULL (node mode: the server learns the client
 * node's address from it). The server may be starting: tries for five
 * seconds. Returns the socket or -1.
 */
static inline int mep_side_dial(const char *host, uint16_t port,
				const char *node)
{
	struct sockaddr_in me = { .sin_family = AF_INET };
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	char ps[8];
	int i, fd;

	snprintf(ps, sizeof(ps), "%u", port);
	if (node && inet_pton(AF_INET, node, &me.sin_addr) != 1)
		return -1;
	if (getaddrinfo(host, ps, &hints, &res))
		return -1;
	for (i = 0; i < 50; i++) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 &&
		    (!node || !bind(fd, (struct sockaddr *)&me, sizeof(me))) &&
		    !connect(fd, res->ai_addr, res->ai_addrlen))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
		usleep(100000);
	}
	freeaddrinfo(res);
	return fd;
}

#endif /* MEP_SIDECHAN_H */
