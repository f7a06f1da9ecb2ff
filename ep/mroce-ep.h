/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libmroce-ep: a MetaRoCE endpoint in userspace.
 *
 * The protocol engine of kernel/engine/ (unchanged) over one UDP socket.
 * The caller drives it: mep_poll() receives, runs the engine's timers and
 * sends; nothing happens between calls. One thread per endpoint: no call
 * may run concurrently with another on the same endpoint.
 *
 * Reliable connected QPs only (READ, WRITE, SEND, ATOMIC). IPv4 only in
 * this step. See ep/README.
 *
 * Errors are returned as negative errno values.
 */
#ifndef MROCE_EP_H
#define MROCE_EP_H

#include <stddef.h>
#include <stdint.h>

struct mep;
struct mep_qp;

/* remote rights of a memory region (mep_reg_mr) */
#define MEP_ACC_REMOTE_WRITE	1
#define MEP_ACC_REMOTE_READ	2
#define MEP_ACC_REMOTE_ATOMIC	4

/* completion status: the engine's enum mre_status, plus MEP_WC_FLUSH_ERR */
enum mep_wc_status {
	MEP_WC_SUCCESS = 0,
	MEP_WC_REM_ACCESS_ERR,		/* the peer refused rkey, range or rights */
	MEP_WC_REM_INV_REQ_ERR,		/* the peer found the request invalid */
	MEP_WC_REM_OP_ERR,		/* the peer failed to execute it */
	MEP_WC_RETRY_EXC_ERR,		/* no progress: the peer is unreachable */
	MEP_WC_RNR_RETRY_EXC_ERR,	/* the peer had no receive posted */
	MEP_WC_LOC_LEN_ERR,		/* a SEND longer than our receive */
	MEP_WC_LOC_ACCESS_ERR,		/* a request broke our MR rules */
	MEP_WC_FLUSH,			/* the peer reset the connection */
	MEP_WC_LOC_PROT_ERR,		/* our buffer for a response is gone */
	MEP_WC_FLUSH_ERR = 100,		/* flushed: the QP went to error */
};

enum mep_wc_opcode {
	MEP_WC_SEND = 1,
	MEP_WC_WRITE = 2,
	MEP_WC_READ = 3,
	MEP_WC_ATOMIC = 5,
	MEP_WC_RECV = 128,		/* a receive (SEND from the peer) */
};

struct mep_wc {
	uint64_t wr_id;
	uint32_t qpn;		/* the local QP */
	uint32_t byte_len;	/* bytes of the message */
	uint8_t status;		/* enum mep_wc_status */
	uint8_t opcode;		/* enum mep_wc_opcode */
};

/*
 * Create an endpoint: a UDP socket bound to @addr (dotted IPv4; NULL or ""
 * for any) and @port (0: the kernel picks one, see mep_port()).
 * Environment, read here:
 *   MEP_SEED      seed of the endpoint's random numbers (default: getrandom)
 *   MEP_DROP_PPM  drop this many outgoing datagrams per million, at random
 *                 (loss injection for tests; default 0)
 *   MEP_NODE      1: node mode (MEP_F_NODE below)
 *   MEP_CFG       the engine's configuration: software (default: the kernel
 *                 module's, kernel/param.c) or default (the engine's own,
 *                 a datacenter NIC's); MEP_RTO_MIN_US, MEP_ACK_DELAY_US,
 *                 MEP_ACK_FREQ and MEP_LOSS_QUEUE_PCT override it (ep/README)
 * Returns NULL with *err set (may be NULL) on failure (-EINVAL for an
 * unknown MEP_CFG or a configuration the engine refuses).
 */
struct mep *mep_create(const char *addr, uint16_t port, int *err);

/* the MetaRoCE port of the kernel module (its udp_port parameter) */
#define MEP_NODE_PORT	4796

/*
 * mep_create_flags(): flags
 *   MEP_F_NODE    node mode: the endpoint is a MetaRoCE node, as the kernel
 *                 module is one. @addr is required (the node's IPv4
 *                 address); @port is the MetaRoCE port (0: MEP_NODE_PORT),
 *                 every peer's too. Peers are named by their address alone:
 *                 datagrams go to peer:@port, and a datagram from any source
 *                 port is the address's. So one node per address, and no
 *                 127/8 peers (the engine refuses them as sources).
 *                 mep_qp_connect() ignores its @port. ep/README, "Names".
 */
#define MEP_F_NODE	1u

/*
 * mep_create() with @flags (MEP_F_*). mep_create() itself is this with
 * MEP_F_NODE when the environment has MEP_NODE=1, else with none.
 */
struct mep *mep_create_flags(const char *addr, uint16_t port, unsigned flags,
			     int *err);

/* Close the socket, destroy every QP and connection, free everything. */
void mep_destroy(struct mep *ep);

/* the UDP port the endpoint is bound to */
uint16_t mep_port(const struct mep *ep);

/* the socket, to wait on it with poll() beside other descriptors */
int mep_fd(const struct mep *ep);

/*
 * Register [base, base + len) for remote access with @access (MEP_ACC_*).
 * The peer names it by *key (the rkey) and by addresses starting at
 * (uint64_t)(uintptr_t)base. Returns 0 or -ENOSPC, -EINVAL.
 */
int mep_reg_mr(struct mep *ep, void *base, size_t len, unsigned access,
	       uint32_t *key);

/* Forget the region of @key: later requests for it are refused. */
int mep_dereg_mr(struct mep *ep, uint32_t key);

/* Create a QP (not yet connected); its number is mep_qp_num(). */
struct mep_qp *mep_qp_create(struct mep *ep);

/* the QP's number: the stream id the peer needs (out of band) */
uint32_t mep_qp_num(const struct mep_qp *qp);

/*
 * Connect @qp to QP @remote_qpn of the endpoint at @host:@port (dotted
 * IPv4 or a name; in node mode the node @host, @port ignored). @mtu: payload bytes per packet, 256..4096 (0: 4096).
 * The connection to that endpoint is opened by mep_poll() as needed;
 * work may be posted at once. Returns 0 or a negative errno.
 */
int mep_qp_connect(struct mep_qp *qp, const char *host, uint16_t port,
		   uint32_t remote_qpn, uint32_t mtu);

/* Detach and free @qp; its outstanding work is forgotten, not completed. */
void mep_qp_destroy(struct mep_qp *qp);

/*
 * Post work. Local buffers are plain memory (no registration) and must stay
 * valid until the work's completion. Each returns 0, -EAGAIN (the send or
 * receive queue is full: poll for completions first), -ENOTCONN (not
 * connected), -EIO (the QP is in error) or -EINVAL.
 */
/* WRITE @len bytes from @buf to @raddr in the peer's region @rkey */
int mep_post_write(struct mep_qp *qp, uint64_t wr_id, const void *buf,
		   uint32_t len, uint64_t raddr, uint32_t rkey);
/* READ @len bytes at @raddr in the peer's region @rkey into @buf */
int mep_post_read(struct mep_qp *qp, uint64_t wr_id, void *buf, uint32_t len,
		  uint64_t raddr, uint32_t rkey);
/* SEND @len bytes of @buf into the peer's next posted receive */
int mep_post_send(struct mep_qp *qp, uint64_t wr_id, const void *buf,
		  uint32_t len);
/* a receive buffer for the peer's next SEND */
int mep_post_recv(struct mep_qp *qp, uint64_t wr_id, void *buf, uint32_t len);
/*
 * A 64-bit atomic at @raddr (8-byte aligned) in @rkey: fetch-and-add of
 * @add (@cmp_swap false) or compare-and-swap of @compare to @add. The old
 * value goes to *@orig (host order).
 */
int mep_post_atomic(struct mep_qp *qp, uint64_t wr_id, uint64_t *orig,
		    uint64_t raddr, uint32_t rkey, int cmp_swap,
		    uint64_t compare, uint64_t add);

/*
 * Make progress: receive datagrams, run the engine's timers, send. Waits
 * up to @timeout_ms (0: do not wait; -1: until something completes) and
 * returns as soon as a completion is ready. Returns the number of
 * completions ready for mep_poll_cq(), or a negative errno.
 */
int mep_poll(struct mep *ep, int timeout_ms);

/* Take up to @n completions into @wc (all QPs); returns how many. */
int mep_poll_cq(struct mep *ep, struct mep_wc *wc, int n);

/* "success", "retry exceeded", ... */
const char *mep_wc_status_str(int status);

/* the engine's counter @name (tx_retx, drop_src, ...), or 0 if unknown */
uint64_t mep_counter(const struct mep *ep, const char *name);

/* every non-zero engine counter, "name value" a line, to @fd */
void mep_print_counters(const struct mep *ep, int fd);

/* datagrams mep_poll() dropped on purpose (MEP_DROP_PPM) or could not send */
uint64_t mep_tx_dropped(const struct mep *ep);

#endif /* MROCE_EP_H */
