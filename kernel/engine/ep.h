/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Engine endpoint: configuration, counters, and the interface the embedder
 * implements (struct mre_ops). See engine.h for the overall contract.
 */
#ifndef MRE_EP_H
#define MRE_EP_H

#include "mre_types.h"
#include "wire.h"

struct mre_ep;
struct mre_conn;
struct mre_stream;

/* completion status, mapped by the embedder to its own (ib_wc_status) */
enum mre_status {
	MRE_ST_OK = 0,
	MRE_ST_REM_ACCESS,	/* responder refused rkey / range / rights */
	MRE_ST_REM_INV_REQ,	/* responder: malformed or too long for the receive */
	MRE_ST_REM_OP,		/* responder failed to execute */
	MRE_ST_RETRY_EXC,	/* no progress: peer unreachable or gone */
	MRE_ST_RNR_RETRY_EXC,	/* receiver not ready, retries used up */
	MRE_ST_LOC_LEN,		/* responder side: message longer than the receive */
	MRE_ST_LOC_ACCESS,	/* responder side: the request broke our MR rules */
	MRE_ST_FLUSH,		/* connection reset by the peer */
	MRE_ST_LOC_PROT,	/* requester: a response's local buffer is gone */
	MRE_ST_MAX
};

/* ------------------------------------------------------------------------ */
/* configuration (per endpoint; every field documented in protocol.md §10)   */

struct mre_config {
	u32 npaths;		/* paths per connection, 1..MRE_MAX_PATHS */
	u32 nplanes;		/* planes; path i uses plane i % nplanes */
	u32 window_log2;	/* TSN window: 2^n packets in flight (4..16) */
	u32 ack_freq;		/* ACK after this many packets on a path */
	u32 ack_ooo_now;	/* 1: ACK an out-of-order arrival at once */
	u64 ack_delay_ns;	/* ... or this long after the first unACKed one */
	u64 answer_ack_ns;	/* ... or, for a one-packet response, this long */
	u64 rto_init_ns;	/* path RTO before the first RTT sample */
	u64 rto_min_ns;
	u32 tlp;		/* 1: tail probes (path.c) */
	u32 tsn_settle;		/* 1: a TSN accepted settles its PSN (path.c) */
	u32 loss_time;		/* 1: loss by send time across paths (loss.c) */
	u64 tlp_min_ns;		/* a tail probe waits at least this long */
	u64 rto_max_ns;
	u32 reorder_pkts;	/* loss when this many later PSNs are SACKed */
	u32 fail_rtos;		/* consecutive RTOs before a path is FAILED */
	u64 probe_min_ns;	/* first probe of a failed path, doubling ... */
	u64 probe_max_ns;	/* ... up to this */
	u64 dead_ns;		/* no ACK progress this long with data out: conn dead */
	u64 connect_ns;		/* first CONNECT retry; doubles */
	u32 connect_tries;
	u32 init_cwnd;		/* packets, per path */
	u32 min_cwnd;
	u32 max_cwnd;		/* per path; also bounded by the 256-PSN SACK window */
	u32 conn_init_cwnd;	/* whole connection, first window (slow start) */
	u32 conn_max_cwnd;	/* whole connection; also bounded by the TSN window */
	u32 ecn_g_shift;	/* DCTCP gain g = 2^-n */
	u32 loss_beta_shift;	/* path window *= 1 - 2^-n on any loss; 0: ... */
	/* ... only a loss with the RTT this % above its least halves (cc.c) */
	u32 loss_queue_pct;
	u64 link_mbps;		/* receiver capacity for fair-share hints; 0: no hints */
	u32 hint_pct;		/* hint = link * pct / 100 / active senders */
	u64 active_ns;		/* a sender is active if data came in this long */
	u32 repath_loss_pct;	/* move a path whose loss exceeds this %, and ... */
	u32 repath_factor;	/* ... this many times the connection's average */
	u32 tx_burst;		/* most packets one mre_conn_run() sends */
	u32 small_bytes;	/* a message this small keeps to one path (send.c) */
	u32 reset_burst;	/* RESETs a second to one source (demux.c) */
	/*
	 * A WRITE with immediate: its last packets, up to this many, get a
	 * PARITY after them while the connection loses at least parity_ppm
	 * of its packets (parity.h; 0 ppm: always); parity_pkts 0: no
	 * PARITY sent or taken (it also needs mre_ops.parity).
	 */
	u32 parity_pkts;
	u32 parity_ppm;
};

/* fill cfg with the defaults documented in protocol.md */
void mre_config_default(struct mre_config *cfg);
/* 0 if usable, else the first field found out of range (for messages) */
const char *mre_config_check(const struct mre_config *cfg);

/* ------------------------------------------------------------------------ */
/* counters: every drop reason has its own                                    */

#define MRE_COUNTERS(X)							\
	X(tx_pkts)	X(tx_bytes)	X(tx_data)	X(tx_retx)	\
	X(tx_ack)	X(tx_probe)	X(tx_ctrl)	X(tx_nak)	\
	X(rx_pkts)	X(rx_bytes)	X(rx_data)	X(rx_ack)	\
	X(rx_ce)	X(rx_dup_tsn)	X(rx_probe)			\
	X(rx_ctrl)	X(rx_nak)	X(rx_ud)			\
	X(drop_short)	X(drop_version)	X(drop_type)	X(drop_flags)	\
	X(drop_len)	X(drop_field)	X(drop_no_conn)	X(drop_state)	\
	X(drop_window)	X(drop_path_window) X(drop_stream) X(drop_rnr)	\
	X(drop_access)	X(drop_inv_req)	X(drop_ack)			\
	X(loss_fast)	X(loss_rto)	X(rto)		X(spurious_retx) \
	X(path_failed)	X(path_recovered) X(path_repath)		\
	X(msg_sent)	X(msg_recv)	X(msg_err)			\
	X(conn_open)	X(conn_fail)	X(reset_tx)	X(reset_rx)	\
	X(ecn_cut)	X(rnr_wait)	X(nak_overflow)	X(rto_stall)	\
	X(path_silent)	X(loss_silent)	X(loss_late)	X(reorder_up)	\
	X(tx_tlp)	X(loss_tlp)					\
	X(ack_asked)	X(ack_ooo)	X(ack_other)	X(ack_count)	\
	X(ack_timer)	X(resp_acks)					\
	X(drop_group)	X(drop_reset)	X(drop_conn_new) X(connect_later) \
	X(reset_limited) X(drop_place)					\
	X(retry_tx)	X(retry_rx)	X(retry_limited) X(drop_retry)	\
	X(connect_cookie) X(drop_foreign) X(challenge_tx)		\
	X(drop_plane_addr) X(loss_cut)	X(drop_src)			\
	X(plane_challenge_tx) X(plane_echo_tx) X(plane_echo_rx)		\
	X(drop_echo)	X(plane_unproven) X(drop_reopen)		\
	X(loss_time)

struct mre_counters {
#define MRE_X(n) u64 n;
	MRE_COUNTERS(MRE_X)
#undef MRE_X
};

extern const char *const mre_counter_names[];
#define MRE_NCOUNTERS (sizeof(struct mre_counters) / sizeof(u64))

/* ------------------------------------------------------------------------ */
/* what the embedder provides                                                */

/* a send WQE as the engine needs to see it */
struct mre_wqe {
	u8 op;			/* MRE_OP_SEND, _WRITE, _READ_REQ,
				   _ATOMIC_REQ, _ATOMIC_WRITE_REQ, _FLUSH_REQ */
	u8 flags;		/* MRE_WQE_* */
	u8 aop;			/* MRE_AOP_* for atomics */
	u8 fflags;		/* FLUSH: MRE_FLUSH_* (MR: no raddr, len) */
	u32 len;		/* message length (atomics: 8; FLUSH: range) */
	u32 rkey;
	u64 raddr;
	u32 imm;
	u64 swap_add;		/* ATOMIC_WRITE: the value to store */
	u64 compare;
};
#define MRE_WQE_IMM	0x01
#define MRE_WQE_SOLICIT	0x02
#define MRE_WQE_FENCE	0x04	/* wait for earlier READ/ATOMIC to complete */
#define MRE_WQE_INV	0x08	/* SEND with invalidate: imm is the rkey */

/* where a payload comes from, for the embedder to gather */
enum mre_pl_src {
	MRE_PL_NONE = 0,
	MRE_PL_WQE,		/* send queue WQE pl_msn of pl_stream, at pl_offset */
	MRE_PL_MR,		/* local MR pl_rkey at pl_addr (READ responses) */
	/*
	 * A PARITY: the XOR of send queue WQE pl_msn's bytes from pl_offset
	 * to the WQE's end, taken pl_len bytes at a time (the last piece
	 * padded with zeros): pl_len bytes.
	 */
	MRE_PL_PARITY,
};

struct mre_xmit {
	const u8 *hdr;		/* the engine's header, hdr_len bytes */
	u32 hdr_len;
	u16 path;		/* path index (also in the header) */
	u16 plane;		/* which plane (netdev) to leave by */
	u16 src_port;		/* UDP source port: the path's ECMP entropy */
	/*
	 * A CHALLENGE: to the peer's address on its plane that @plane maps
	 * to (k % its planes), as its blob claimed, though not proven
	 * (mre_conn_plane_proven()); never by plane 0's addresses instead
	 * (drop it when that address or plane is not at hand). Every other
	 * packet (0) goes to proven addresses only.
	 */
	u8 claim;
	u8 pl_src;		/* enum mre_pl_src */
	u32 pl_len;
	struct mre_stream *pl_stream;
	u32 pl_msn;
	u32 pl_offset;
	u32 pl_rkey;
	u64 pl_addr;
};

/*
 * The one packet of a WRITE's tail that a PARITY can rebuild: the PARITY
 * covers [off, mlen) of the message at raddr in rkey, stride bytes a
 * packet; the packet at miss (len bytes) is the one that has not come.
 */
struct mre_rebuild {
	u32 rkey;
	u64 raddr;
	u32 off;
	u32 stride;
	u32 mlen;
	u32 miss;
	u32 len;
};

/* one received payload to be placed, in any order */
struct mre_place {
	u8 op;			/* MRE_OP_WRITE, _SEND, _READ_RESP, _ATOMIC_RESP */
	u8 dflags;
	u32 msn;		/* READ_RESP / ATOMIC_RESP: the requester's WQE */
	u32 offset;		/* within the message */
	u32 len;
	u32 rkey;		/* WRITE: destination is raddr + offset in rkey */
	u64 raddr;
	u32 rsn;		/* SEND / WRITE with imm: the receive WQE */
	u32 mlen;		/* length of the whole message */
	u32 imm;		/* SEND with MRE_DF_INV: the rkey to invalidate */
};

struct mre_atomic {
	u8 aop;
	u32 rkey;
	u64 raddr;
	u64 swap_add;
	u64 compare;
};

/* a FLUSH at the responder (mre_ops.flush) */
struct mre_flush {
	u8 fflags;		/* MRE_FLUSH_GLOBAL, _PERSISTENT, _MR */
	u32 rkey;
	u64 raddr;		/* not MRE_FLUSH_MR: [raddr, raddr + len) */
	u32 len;
};

struct mre_recv_done {
	u32 rsn;
	u32 len;
	u32 imm;
	u8 op;			/* MRE_OP_SEND or MRE_OP_WRITE (with imm) */
	u8 dflags;		/* MRE_DF_IMM, MRE_DF_SOLICIT, MRE_DF_INV (imm: rkey) */
	u8 status;		/* enum mre_status */
};

enum mre_conn_event {
	MRE_CONN_UP,		/* established: streams may send */
	MRE_CONN_DEAD,		/* failed; its streams have been failed already */
	MRE_CONN_PATH,		/* a path changed health (for logs / stats) */
	/*
	 * The peer's planes changed: learned from its blob (c->peer_planes),
	 * proven (mre_conn_plane_proven()), or forgotten (a failure, a new
	 * incarnation). The embedder routes plane k to the peer's plane
	 * address only while it is proven.
	 */
	MRE_CONN_PLANES,
};

/*
 * What mre_ops.trace reports: the connection's events as they happen (the
 * kernel turns them into tracepoints, mroce.rst "Tracepoints"). They come
 * at events, never per packet sent or received: a lost packet, a repath,
 * a window cut, a change of the peer's rate hint, a change of state.
 */
enum mre_trace_ev {
	MRE_TR_CONN_OPEN,	/* established; why: ACTIVE or PASSIVE */
	MRE_TR_CONN_RESTART,	/* the peer proved it restarted (its RESET) */
	MRE_TR_CONN_RESET,	/* the peer's RESET named this connection */
	MRE_TR_CONN_FAIL,	/* why: CONNECT (no answer), DEAD, CLOSE */
	MRE_TR_PATH,		/* health: state.from -> state.to */
	MRE_TR_REPATH,		/* a new source port: port.from -> port.to */
	MRE_TR_LOSS,		/* loss.psn lost, loss.tsn resent (MRE_PSN_PROBE: a probe) */
	MRE_TR_CUT,		/* a window cut (path MRE_TR_CONN_WIDE: the connection's) */
	MRE_TR_HINT,		/* the peer's rate hint changed, Mbit/s (0: none) */
	MRE_TR_MAX
};

/* why it happened: what detected a loss (and so resent it), what moved a path */
enum mre_trace_why {
	MRE_TRW_NONE,
	MRE_TRW_ACTIVE,		/* open: our CONNECT was accepted */
	MRE_TRW_PASSIVE,	/* open: we accepted the peer's */
	MRE_TRW_CONNECT,	/* fail: CONNECT unanswered connect_tries times */
	MRE_TRW_DEAD,		/* fail: nothing heard for dead_ns */
	MRE_TRW_CLOSE,		/* fail: the embedder closed it */
	MRE_TRW_FAST,		/* FACK: later PSNs of the path were SACKed */
	MRE_TRW_TLP,		/* the tail probe arrived and these did not */
	MRE_TRW_RTO,		/* the path's retransmission timeout */
	MRE_TRW_SILENT,		/* the path went silent while siblings were heard */
	MRE_TRW_STALL,		/* the whole connection was quiet: the oldest, as a probe */
	MRE_TRW_PROBE,		/* a failed path's probe timer (an unanswered probe) */
	MRE_TRW_PLANE,		/* its plane went down */
	MRE_TRW_PLANES,		/* the planes were reassigned */
	MRE_TRW_LOSSY,		/* it lost far more than its siblings */
	MRE_TRW_PEER_PROBE,	/* the peer probed it: our ACK route may be bad too */
	MRE_TRW_ACKED,		/* an ACK (of a probe, on a suspect path) recovered it */
	MRE_TRW_ECN,		/* cut: CE marks in the window */
	MRE_TRW_LOSS,		/* cut: losses in the window (loss_beta_shift) */
	MRE_TRW_TIME,		/* one sent after it, on any path, arrived */
	MRE_TRW_ACCEPT,		/* sent before the peer had our ACCEPT: dropped */
	MRE_TRW_MAX
};

#define MRE_TR_CONN_WIDE	0xffff	/* mre_trace.path of a connection's own event */

struct mre_trace {
	u8 ev;			/* enum mre_trace_ev */
	u8 why;			/* enum mre_trace_why */
	u16 path;		/* the path's id, or MRE_TR_CONN_WIDE */
	union {
		struct { u8 from, to; } state;		/* PATH: mre_path_health_name() */
		struct { u16 from, to; } port;		/* REPATH: UDP source ports */
		struct { u32 psn, tsn; } loss;		/* LOSS */
		struct { u32 from, to, alpha; } cut;	/* CUT: cwnd in 1/100 packets, alpha in 1/1024 */
		struct { u32 from, to; } hint;		/* HINT: Mbit/s */
	};
};

/* "open", "loss", ... and "fast", "rto", ... (tracepoints, logs, tests) */
const char *mre_trace_ev_name(u8 ev);
const char *mre_trace_why_name(u8 why);

/*
 * One received datagram, as the embedder hands it to mre_ep_rx(): the
 * MetaRoCE packet (the UDP payload) and what the IP and UDP headers said.
 */
struct mre_rx {
	const u8 *buf;
	u32 len;
	struct mre_addr src;	/* the sender's address */
	struct mre_addr dst;	/* ours, that it was sent to */
	u16 src_port;		/* the sender's UDP port: a RESET goes back there */
	bool ce;		/* the IP header was CE-marked */
	bool bcast;		/* it came as a link-layer broadcast */
	void *ctx;		/* the embedder's, for its callbacks */
};

/* what mre_ops.conn_new did with a CONNECT from an unknown node */
enum mre_new {
	MRE_NEW_OK,		/* *c: a connection for it, held */
	MRE_NEW_LATER,		/* kept the datagram: mre_ep_rx() again later */
	MRE_NEW_REFUSED,	/* no connection (no memory, a limit): dropped */
};

/*
 * The embedder's callbacks. Each runs with the embedder's serialisation of
 * the connection concerned held and must not sleep. None calls back into
 * the engine, except where its comment says so.
 */
struct mre_ops {
	/* 64 random bits (source ports, connection ids, first TSNs, cookie key) */
	u64 (*random)(struct mre_ep *ep);

	/* --- the demux (mre_ep_rx()): finding connections ------------------ */
	/*
	 * The connection whose id is @cid (ours: a packet's dst_cid), or the
	 * one with the node at @peer (its address: c->addr), or NULL. A
	 * connection returned is *held*: the embedder serialises it for the
	 * engine from now until mre_ep_rx() returns it to the caller, who
	 * lets go of it (runs it, unlocks). @rx is the datagram being handled.
	 */
	struct mre_conn *(*conn_by_id)(struct mre_ep *ep, const struct mre_rx *rx,
				       u64 cid);
	struct mre_conn *(*conn_by_addr)(struct mre_ep *ep,
					 const struct mre_rx *rx,
					 const struct mre_addr *peer);
	/*
	 * A CONNECT from @peer (the address it came from and proved by its
	 * cookie, reached at our @local), which has no connection. MRE_NEW_OK: *@c is a new connection
	 * (mre_conn_init() with @peer), held as above. Before returning it the
	 * embedder may set it up with mre_conn_set_planes() and
	 * mre_conn_plane(): the engine does not hold it yet, so these calls
	 * are not re-entry. MRE_NEW_LATER: the embedder cannot allocate here;
	 * it keeps the datagram and hands it to mre_ep_rx() again from where
	 * it can. MRE_NEW_REFUSED: counted (drop_conn_new) and dropped.
	 */
	enum mre_new (*conn_new)(struct mre_ep *ep, const struct mre_rx *rx,
				 const struct mre_addr *peer,
				 const struct mre_addr *local,
				 struct mre_conn **c);
	/*
	 * Our address of @family on each of our planes into @addrs
	 * (MRE_BLOB_MAX_PLANES entries; family 0 where a plane has none);
	 * returns the number of planes. What CONNECT and ACCEPT tell the peer
	 * (the plane blob), and plane 0's address names us. NULL: no planes,
	 * no blob.
	 */
	u32 (*our_planes)(struct mre_ep *ep, u8 family, struct mre_addr *addrs);
	/* a parsed UD datagram (no connection) */
	void (*ud_rx)(struct mre_ep *ep, const struct mre_rx *rx,
		      const struct mre_pkt *pkt);
	/*
	 * Send @pkt (a RESET or a RETRY) back: from rx->dst to rx->src, port
	 * rx->src_port. The demux limits RESETs per source (reset_burst);
	 * a RETRY answers one CONNECT and is not limited.
	 */
	void (*reply)(struct mre_ep *ep, const struct mre_rx *rx, const u8 *pkt,
		      u32 len);

	/* --- the connection's packets out ----------------------------------- */
	/*
	 * Send one packet. The header is only valid during the call. Return 0
	 * when sent or dropped locally (the engine recovers it like a loss),
	 * or MRE_SYN_REM_ACCESS when an MRE_PL_MR payload is no longer valid
	 * (the engine then answers the READ with a NAK).
	 */
	int (*xmit)(struct mre_conn *c, const struct mre_xmit *x);

	/* --- the requester ---------------------------------------------------- */
	/* the stream with local id @id attached to @c, or NULL */
	struct mre_stream *(*stream)(struct mre_conn *c, u32 id);
	/* send WQE number @msn of @s (counting from 0 at attach); false: not posted */
	bool (*sq_get)(struct mre_stream *s, u32 msn, struct mre_wqe *w);
	/*
	 * WQE @msn is complete (in order). True when the completion let more
	 * WQEs become available (the embedder ran local work queued behind
	 * it): the engine then schedules @s (as mre_stream_kick() would).
	 */
	bool (*send_done)(struct mre_stream *s, u32 msn, enum mre_status st);

	/* --- the responder ---------------------------------------------------- */
	/*
	 * Place a payload (WRITE, SEND, READ_RESP) or an atomic's original
	 * value (ATOMIC_RESP, 8 bytes, host order). Return MRE_SYN_NONE,
	 * MRE_SYN_RNR (no receive WQE posted for rsn: the packet is refused
	 * and resent later), MRE_SYN_REM_ACCESS or MRE_SYN_REM_INV_REQ
	 * (the message fails; the requester gets a NAK). For READ_RESP and
	 * ATOMIC_RESP (our own request's answer) anything but MRE_SYN_NONE
	 * means our buffer is gone: the WQE completes with MRE_ST_LOC_PROT.
	 */
	int (*place)(struct mre_stream *s, const struct mre_place *p,
		     const u8 *data);
	/*
	 * responder: may @len bytes at @raddr in @rkey be the target of a
	 * remote @op (MRE_OP_READ_REQ or MRE_OP_ATOMIC_REQ; with
	 * atomic_write, MRE_OP_ATOMIC_WRITE_REQ, which needs the right to
	 * write)? Returns MRE_SYN_NONE or MRE_SYN_REM_ACCESS.
	 */
	int (*check)(struct mre_stream *s, u8 op, u32 rkey, u64 raddr, u32 len);
	/* responder: execute an atomic once; *orig gets the old value */
	int (*atomic)(struct mre_stream *s, const struct mre_atomic *a,
		      u64 *orig);
	/*
	 * Optional (NULL: the request is refused, NAK REM_INV_REQ).
	 * responder: store @value at @raddr in @rkey as one 64-bit store,
	 * atomic against the atomics of @atomic (IB_WR_ATOMIC_WRITE). @raddr
	 * is 8-byte aligned; the engine checked it with @check (op
	 * MRE_OP_ATOMIC_WRITE_REQ: the MR's remote-write right) when the
	 * request arrived, and runs it once, in order. Returns MRE_SYN_NONE
	 * or MRE_SYN_REM_ACCESS (the MR changed since).
	 */
	int (*atomic_write)(struct mre_stream *s, u32 rkey, u64 raddr,
			    u64 value);
	/*
	 * Optional (NULL: the request is refused, NAK REM_INV_REQ).
	 * responder: FLUSH @f (IB_WR_FLUSH). With @exec false only check it
	 * (when it arrives): may the MR of f->rkey, the whole MR with
	 * MRE_FLUSH_MR else [raddr, raddr + len), be flushed with the
	 * placement types asked (the MR's flush-global and flush-persistent
	 * rights)? With @exec true (in order: every earlier message of the
	 * stream has been placed) make what was placed there visible
	 * (GLOBAL) or persistent (PERSISTENT); a memory barrier suffices for
	 * ordinary memory. Returns MRE_SYN_NONE or MRE_SYN_REM_ACCESS.
	 */
	int (*flush)(struct mre_stream *s, const struct mre_flush *f,
		     bool exec);
	/* responder: receive @r->rsn is complete (in order) */
	void (*recv_done)(struct mre_stream *s, const struct mre_recv_done *r);
	/*
	 * Optional (NULL: the embedder builds no MRE_PL_PARITY payload and
	 * takes no PARITY; CONNECT and ACCEPT say so).
	 * responder: the bytes of @rb's missing packet: @parity (rb->stride
	 * bytes) XOR the rest of [rb->off, rb->mlen) as placed in rb->rkey,
	 * taken rb->stride bytes at a time, the missing piece left out. Only
	 * if that whole range lies in an MR that allows remote writes. The
	 * result (rb->len bytes) stays valid until the next call on this
	 * CPU; NULL: not rebuilt (the sender resends the packet as ever).
	 */
	const u8 *(*parity)(struct mre_stream *s, const struct mre_rebuild *rb,
			    const u8 *parity);

	/* --- errors and events ------------------------------------------------ */
	/*
	 * @s can go no further: move the QP to the error state and flush.
	 * The engine has detached nothing; the embedder calls
	 * mre_stream_detach() when it is done with the stream.
	 */
	void (*stream_error)(struct mre_stream *s, enum mre_status st);
	void (*conn_event)(struct mre_conn *c, enum mre_conn_event ev);
	/*
	 * Optional: an event of @c (struct mre_trace, valid during the call).
	 * For observation only: it must not change what the engine does.
	 */
	void (*trace)(struct mre_conn *c, const struct mre_trace *t);
};

/* ------------------------------------------------------------------------ */
/* endpoint                                                                   */

struct mre_ep {
	const struct mre_ops *ops;
	struct mre_config cfg;
	struct mre_counters ctr;
	/*
	 * Active-sender estimate for rate hints: conns seen per epoch. An
	 * epoch lasts active_ns, or longer with many senders (cc.c
	 * act_span()); act_bytes averages the data packets received.
	 */
	u64 act_epoch_start;
	u32 act_epoch;
	u32 act_cur;
	u32 act_prev;
	u32 act_bytes;
	/* the key of cookies and limiter buckets (hash.h): mre_ep_key() */
	u64 secret[2];
	bool secret_set;
	/* PARITY (parity.c), apart from ctr: kept out of the embedder's table */
	struct mre_parity_ctr {
		u64 tx;		/* PARITY packets sent */
		u64 rx;		/* PARITY packets received */
		u64 rebuilt;	/* DATA packets rebuilt from one */
		u64 unused;	/* ... nothing was missing */
		u64 short_of;	/* ... two or more were missing */
		u64 failed;	/* ... the embedder could not rebuild */
		u64 skipped;	/* a tail's TSNs were not in a row: none sent */
	} par;
	/*
	 * The RESET limiter (demux.c rl_take()): the endpoint's current
	 * second (its start, and its number), and per bucket of sources
	 * the number of the second it last counted (high 16 bits) and the
	 * RESETs it sent then (low 16). Fixed: 16 KiB, whatever the peers.
	 */
#define MRE_RL_BUCKETS	4096	/* a power of two */
	u64 rl_start;
	u16 rl_gen;
	u32 rl[MRE_RL_BUCKETS];
	void *priv;		/* the embedder's */
};

/* returns 0, or -1 if cfg is unusable (see mre_config_check()) */
int mre_ep_init(struct mre_ep *ep, const struct mre_ops *ops,
		const struct mre_config *cfg);

/*
 * Draw the key of the CONNECT cookies and the reply limiter now (once).
 * An embedder that runs mre_ep_rx() on several CPUs at once calls it after
 * mre_ep_init(), before the first datagram; otherwise the demux draws it
 * at its first use.
 */
void mre_ep_key(struct mre_ep *ep);

/*
 * A received datagram (@rx): the one receive entry of the engine.
 *
 * It parses and validates the packet (each refusal counted under its own
 * reason), refuses one from a source address no peer can have
 * (unspecified, loopback, multicast, broadcast: drop_src, never answered)
 * and finds its connection through the embedder: DATA, ACK, ACCEPT, PROBE,
 * RETRY, CHALLENGE and ECHO by their dst_cid (mre_ops.conn_by_id), and only from an
 * address of that peer; RESET by its sender's address; CONNECT by the
 * address it came from, once its cookie proves that address (else it is
 * answered with a RETRY and nothing is kept), creating a connection for
 * an unknown node (conn_new). It answers a packet for an unknown id with
 * a RESET (mre_ops.reply; RESETs at most reset_burst a second to one
 * source, a RETRY to every CONNECT without a cookie), gives UD datagrams
 * to mre_ops.ud_rx, learns the peer's planes from the blob of the CONNECT
 * or ACCEPT that opens a connection, and hands the packet to its
 * connection. Nothing that came off the wire is trusted before then
 * (protocol.md section 11).
 *
 * Returns the connection it delivered to, still held (see conn_by_id):
 * the caller runs it (mre_conn_run()) and lets go of it. NULL when the
 * datagram went to no connection (dropped, answered, UD, or kept by
 * conn_new for later).
 */
struct mre_conn *mre_ep_rx(struct mre_ep *ep, u64 now, const struct mre_rx *rx);

/*
 * Parse and validate a datagram (mre_wire_parse()), counting it and the
 * reason for a refusal: 0 when @pkt is good, else -1. mre_ep_rx() starts
 * with it; the fuzzers call it alone.
 */
int mre_ep_parse(struct mre_ep *ep, const u8 *buf, u32 len,
		 struct mre_pkt *pkt);

/* build a UD header into @buf (MRE_UD_LEN bytes); returns its length */
u32 mre_ud_build(u8 *buf, u32 dst_qpn, u32 src_qpn, u32 qkey, u32 imm,
		 u8 udflags, u16 plen, u64 now);

#endif /* MRE_EP_H */
