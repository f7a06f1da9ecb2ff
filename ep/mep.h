/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libmroce-ep internals: the endpoint, its peers and QPs (see mroce-ep.h).
 *
 * The engine knows a node by its address alone; an endpoint here is an
 * IPv4 address and a UDP port. So the library names each endpoint to the
 * engine by a synthetic IPv6 address that holds both: fd6d:6570::PORT:A.B.C.D
 * (mep_name()). It also keeps the engine's refusal of 127/8 sources from
 * refusing two endpoints that talk over loopback.
 *
 * In node mode (MEP_F_NODE) the endpoint is a MetaRoCE node like the kernel
 * module's: bound to one IPv4 address on the MetaRoCE port, it names each
 * peer by its IPv4 address (MRE_AF_INET, as kernel/net.c does), sends to
 * that address on its own port (every node's) and takes a datagram from
 * any source port as its address's.
 */
#ifndef MEP_H
#define MEP_H

/* the engine's headers first: they define the types libc would */
#include "engine.h"
#include "mroce-ep.h"
#include <netinet/in.h>

#define MEP_MAX_PEERS	16
#define MEP_MAX_QPS	64
#define MEP_MAX_MRS	64
#define MEP_SQ		256	/* power of two */
#define MEP_RQ		256
#define MEP_CQ		4096
#define MEP_BATCH	64	/* datagrams per sendmmsg / recvmmsg */
#define MEP_PKT_MAX	(MRE_MAX_HDR_LEN + 16 + MRE_MAX_PAYLOAD + MRE_MAX_BLOB)
#define MEP_RX_MAX	9216

struct mep_mr {
	u8 *base;
	u64 len;
	u32 key;		/* 0: free slot */
	u32 access;
};

struct mep_peer {
	struct mre_conn *c;	/* NULL: free slot */
	void *mem;
	struct sockaddr_in sa;
	struct mre_addr name;
};

struct mep_swqe {
	struct mre_wqe w;
	u8 *buf;		/* payload source, READ sink, atomic's *orig */
	u64 wr_id;
};

struct mep_rwqe {
	u8 *buf;
	u32 len;
	u64 wr_id;
};

struct mep_qp {
	struct mre_stream s;	/* attached when connected */
	struct mep *ep;
	u32 qpn;
	bool attached;
	u8 fatal;		/* stream_error's status + 1 (0: none) */
	bool flushed;
	struct mep_swqe sq[MEP_SQ];
	u32 sq_posted, sq_done;
	struct mep_rwqe rq[MEP_RQ];
	u32 rq_posted, rq_done;
};

struct mep_txbuf {
	struct sockaddr_in to;
	u32 len;
	u8 data[MEP_PKT_MAX];
};

struct mep {
	struct mre_ep eng;
	int fd;
	struct sockaddr_in local;
	bool node;		/* MEP_F_NODE */
	struct mre_addr name;	/* ours, as the engine sees it */
	u64 rng;		/* the engine's randomness (splitmix64) */
	u64 drop_rng;		/* the loss knob's, separate */
	u32 drop_ppm;
	u64 tx_dropped;
	u32 next_qpn;
	struct mep_peer peers[MEP_MAX_PEERS];
	struct mep_qp *qps[MEP_MAX_QPS];
	struct mep_mr mrs[MEP_MAX_MRS];
	struct mep_wc cq[MEP_CQ];
	u32 cq_head, cq_tail;	/* taken at head, added at tail */
	u64 cq_overflow;
	struct mep_txbuf *tx;	/* [MEP_BATCH] */
	u32 ntx;
	u8 *rx;			/* [MEP_BATCH][MEP_RX_MAX] */
};

extern const struct mre_ops mep_ops;

u64 mep_rand(u64 *state);
/* the engine's name of @sa (see above) and back */
struct mre_addr mep_name(const struct mep *ep, const struct sockaddr_in *sa);
int mep_unname(const struct mep *ep, const struct mre_addr *a,
	       struct sockaddr_in *sa);
/* the peer for @name, or a new one (NULL when the table is full) */
struct mep_peer *mep_peer_get(struct mep *ep, const struct mre_addr *name,
			      bool create);
/* now, CLOCK_MONOTONIC in ns: the engine's time */
u64 mep_now(void);
/* queue one datagram to @to (copying it); sends when the batch is full */
void mep_tx(struct mep *ep, const struct sockaddr_in *to, const u8 *hdr,
	    u32 hlen, const u8 *pl, u32 plen);
void mep_tx_flush(struct mep *ep);
/* a completion into the CQ */
void mep_cqe(struct mep *ep, u64 wr_id, u32 qpn, u32 len, u8 status, u8 op);
/* the region of @key holding [addr, addr + len) with @access, or NULL */
struct mep_mr *mep_mr_find(struct mep *ep, u32 key, u32 access, u64 addr,
			   u64 len);

#endif /* MEP_H */
