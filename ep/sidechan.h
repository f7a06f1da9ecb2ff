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

#endif /* MEP_SIDECHAN_H */
