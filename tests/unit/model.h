/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A model host for the engine: memory regions, QPs with send and receive
 * queues, completion logs, and an implementation of struct mre_ops on top.
 *
 * It is freestanding like the engine, so the unit tests (host and KUnit) and
 * the fabric simulator (tests/sim) drive the unmodified engine through the
 * same embedder. Packets leave through node->out(), which the harness
 * provides (a direct wire, or the simulated fabric).
 *
 * Checks built in (each a counter the tests assert on):
 *   - a WRITE or SEND may only land inside its MR / receive buffer;
 *   - with byte accounting on (mdl_mr.count), every byte of an MR records
 *     how many times it was written, so "exactly once" is checkable;
 *   - completions are logged in the order they come, with their status.
 */
#ifndef MRE_MODEL_H
#define MRE_MODEL_H

#include "engine.h"

#define MDL_MAX_QPS	64
#define MDL_MAX_MRS	16
#define MDL_MAX_PEERS	32
#define MDL_SQ		256	/* power of two */
#define MDL_RQ		256
#define MDL_LOG		4096	/* completion log entries kept */

#define MDL_ACC_LWRITE	1
#define MDL_ACC_RWRITE	2
#define MDL_ACC_RREAD	4
#define MDL_ACC_RATOMIC	8
#define MDL_ACC_FLUSH_GLOBAL	16	/* IB_ACCESS_FLUSH_GLOBAL */
#define MDL_ACC_FLUSH_PERSIST	32	/* IB_ACCESS_FLUSH_PERSISTENT */

struct mdl_node;

struct mdl_mr {
	u32 key;
	u32 access;
	u64 addr;		/* "virtual" address of mem[0] */
	u32 len;
	u8 *mem;
	u8 *count;		/* optional: times each byte was written remotely */
};

struct mdl_swqe {
	struct mre_wqe w;
	u8 *buf;		/* local buffer (payload source / READ sink) */
	u64 wr_id;
};

struct mdl_rwqe {
	u8 *buf;
	u32 len;
	u64 wr_id;
};

struct mdl_cqe {
	u64 wr_id;
	u64 placed;		/* node's placed_bytes when it completed */
	u32 len;
	u32 imm;
	u8 status;
	u8 recv;		/* 1: receive completion */
	u8 op;
	u8 dflags;
};

struct mdl_qp {
	struct mre_stream s;
	struct mdl_node *node;
	u32 qpn;
	u32 peer;		/* index of the peer node */
	struct mdl_swqe sq[MDL_SQ];
	u32 sq_posted;		/* next msn to post */
	u32 sq_done;		/* send completions so far */
	struct mdl_rwqe rq[MDL_RQ];
	u32 rq_posted;
	u32 rq_done;
	struct mdl_cqe log[MDL_LOG];
	u32 nlog;
	u32 errors;		/* completions with an error status */
	u8 fatal;		/* stream_error status (0: none) */
	u32 order_violations;	/* a completion out of posting order */
	u64 placed_bytes;	/* payload placed for this QP (per-flow goodput) */
	/*
	 * A local WQE (the kernel's BIND_MW) before message local_at (0: none):
	 * messages from it on are not posted as far as the engine can see
	 * until every one before has completed; send_done then says so.
	 */
	u32 local_at;
	bool resp_gone;		/* READ/ATOMIC responses find no buffer (MR gone) */
};

struct mdl_node {
	struct mre_ep ep;
	u32 id;
	u64 rng;
	/*
	 * QPs and connections: tables of max_qps and max_peers entries, the
	 * node's own small ones (MDL_MAX_QPS, MDL_MAX_PEERS) unless the
	 * harness gives larger ones (mdl_node_tables(), the simulator).
	 * live[] lists the peers that have a connection, in ascending order,
	 * so that running and looking up costs what is there, not the table.
	 */
	struct mdl_qp **qps;
	u32 nqps;
	u32 max_qps;
	struct mdl_mr mrs[MDL_MAX_MRS];
	u32 nmrs;
	struct mre_conn **conns;	/* [max_peers], by peer node id */
	void **conn_mem;		/* [max_peers] */
	u32 *live;			/* [max_peers]: nlive peer ids */
	u32 nlive;
	u32 max_peers;
	/* packets out: the harness delivers them (to node peer, on plane) */
	void (*out)(struct mdl_node *n, u32 peer, const struct mre_xmit *x,
		    const u8 *pkt, u32 len);
	void *harness;
	u64 placed_bytes;	/* payload bytes placed (goodput) */
	u32 bad_place;		/* placement outside a target was attempted */
	u32 awrites;		/* ATOMIC_WRITEs executed */
	u32 rebuilt;		/* packets rebuilt from a PARITY (m_parity()) */
	u32 flushes;		/* FLUSHes executed (not only checked) */
	u64 flush_placed;	/* placed_bytes when the last FLUSH ran */
	u32 conn_ups;
	u32 conn_deads;
	u32 planes_learned;	/* MRE_CONN_PLANES events */
	/*
	 * Packets sent with mre_xmit.claim (to a plane address the peer
	 * claimed, not proven): by the peer's plane they go to; claim_bad
	 * counts one that is not a CHALLENGE, goes by our plane 0, or to a
	 * plane already proven (the engine must never).
	 */
	u32 claims;
	u32 claim_to[MRE_BLOB_MAX_PLANES];
	u32 claim_bad;
	u32 conn_news;		/* conn_new asked (CONNECT from an unknown node) */
	u32 replies;		/* RESETs the demux sent back */
	u32 ud_rx;		/* UD datagrams handed over */
	/*
	 * mre_ops.trace: events counted by kind and reason, and each path's
	 * health and port followed through them (tr_bad: an event that does
	 * not follow from the one before, a path out of range). Kept per
	 * node: the tests that read them give a node one connection.
	 */
	u32 tr[MRE_TR_MAX][MRE_TRW_MAX];
	u32 tr_bad;
	u8 tr_health[MRE_MAX_PATHS];
	u16 tr_port[MRE_MAX_PATHS];	/* 0: no REPATH seen yet */
	struct mre_trace tr_last;
	/* the node's planes, for its blob (0: no blob, as without planes) */
	u32 nplanes;
	struct mre_addr planes[MRE_BLOB_MAX_PLANES];
	/* conn_new: a connection for node @peer, or NULL (NULL hook: refuse) */
	struct mre_conn *(*new_conn)(struct mdl_node *n, u32 peer);
	/*
	 * The harness owns the transmit schedule (a simulated NIC that asks
	 * for packets when its wire is free): mdl_rx() then only hands the
	 * packet to the engine and the harness calls mdl_run() when it may.
	 */
	bool rx_no_run;
	u8 txbuf[MRE_MAX_HDR_LEN + 16 + MRE_MAX_PAYLOAD + MRE_MAX_BLOB];
	u8 parbuf[MRE_MAX_PAYLOAD];	/* a packet rebuilt from a PARITY */
	struct mdl_qp *qps_own[MDL_MAX_QPS];
	struct mre_conn *conns_own[MDL_MAX_PEERS];
	void *conn_mem_own[MDL_MAX_PEERS];
	u32 live_own[MDL_MAX_PEERS];
};

/* tables the harness owns, for more peers or QPs than the node's own */
struct mdl_tables {
	u32 max_peers;
	struct mre_conn **conns;	/* [max_peers], zeroed */
	void **conn_mem;		/* [max_peers], zeroed */
	u32 *live;			/* [max_peers] */
	u32 max_qps;
	struct mdl_qp **qps;		/* [max_qps] */
};

extern const struct mre_ops mdl_ops;

/* 64-bit splitmix step: the model's (and simulator's) only randomness */
u64 mdl_rand(u64 *state);

void mdl_node_init(struct mdl_node *n, u32 id, u64 seed,
		   const struct mre_config *cfg);
/* use @t's tables (before any connection or QP is made) */
void mdl_node_tables(struct mdl_node *n, const struct mdl_tables *t);
/* connection to peer @peer; memory from @mem (mre_conn_mem_size bytes) */
struct mre_conn *mdl_conn(struct mdl_node *n, u32 peer, struct mre_conn *c,
			  void *mem);
/* register memory: @addr is its remote-visible address */
struct mdl_mr *mdl_mr_reg(struct mdl_node *n, u8 *mem, u32 len, u64 addr,
			  u32 access, u8 *count);
/* a connected QP pair element: attach @qp (storage from the caller) */
void mdl_qp_init(struct mdl_node *n, struct mdl_qp *qp, u32 qpn, u32 peer,
		 u32 remote_qpn, u32 mtu);
/* post a send WQE (op MRE_OP_*); returns its msn */
u32 mdl_post_send(struct mdl_qp *qp, const struct mre_wqe *w, u8 *buf,
		  u64 wr_id);
void mdl_post_recv(struct mdl_qp *qp, u8 *buf, u32 len, u64 wr_id);
/* the address of node @id: 10.0.id>>8.id, family MRE_AF_INET */
struct mre_addr mdl_addr(u32 id);
/* hand a received datagram from node @from to the node (mre_ep_rx()) */
void mdl_rx(struct mdl_node *n, u32 from, const u8 *pkt, u32 len, bool ce,
	    u64 now);
/* run every connection's timers/transmit; returns the earliest deadline */
u64 mdl_run(struct mdl_node *n, u64 now);

#endif /* MRE_MODEL_H */
