/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The MetaRoCE protocol engine: what an embedder sees.
 *
 * The engine is I/O-free and freestanding. Time, randomness, packet output,
 * memory placement and completions enter and leave through struct mre_ops;
 * the engine never reads a clock, never allocates and takes no locks. The
 * same code runs in the kernel module, the host unit tests, the fabric
 * simulator and the fuzzers. Given the same seed and the same inputs at the
 * same times it produces the same outputs.
 *
 * Objects (all allocated by the embedder):
 *
 *   struct mre_ep      one per device: configuration, counters, the
 *                      receiver's count of active senders (rate hints).
 *   struct mre_conn    one per peer node: the TSN windows, the paths, the
 *                      congestion controller. Its memory is fixed at
 *                      mre_conn_init() and does not grow with the number of
 *                      streams (mre_conn_mem_size()).
 *   struct mre_stream  one per RC QP, embedded in the embedder's QP: message
 *                      cursors and read/atomic slots. Fixed size.
 *
 * Entry points: mre_ep_rx() for every received datagram (it finds the
 * connection: ep.h), mre_conn_run() for timers and sending, and the calls
 * below for the embedder's own events (a QP connects, posts, goes away;
 * planes change).
 *
 * Concurrency: the caller serialises all calls that touch one connection and
 * its streams (the kernel glue holds the connection's lock around every
 * engine call and around mre_stream_* calls for streams of that
 * connection). mre_ep_rx() takes that serialisation through the embedder's
 * lookups (mre_ops.conn_by_id and friends return a connection held) and
 * returns the connection still held. Different connections may run in
 * parallel, and mre_ep_rx() on several CPUs at once for one endpoint; the
 * mre_ep counters are then updated without atomicity, which is acceptable
 * for statistics, and so are the two other things they share: the
 * demux's RESET rate limit (demux.c: a race lets a RESET or two more
 * through) and the receiver's count of active senders (cc.c: an estimate
 * for rate hints).
 *
 * Callbacks run with that serialisation held: they must not sleep and do
 * not call back into the engine. There is one exception, written on it:
 * mre_ops.conn_new may set up the connection it creates
 * (mre_conn_set_planes(), mre_conn_plane()) before handing it over, since
 * the engine does not hold that connection yet (unit test
 * demux_connect_from_unknown). Where a callback's outcome needs the engine
 * to act, the callback says so in its return value (mre_ops.send_done
 * returns true when more WQEs became available; the engine schedules the
 * stream).
 *
 * Time is a u64 count of nanoseconds from an arbitrary origin, passed in by
 * the caller on every entry point. It must never go backwards for one
 * connection. mre_ep_rx() is the one entry whose time the embedder reads
 * before it holds the connection (the lookup takes the lock), so another
 * holder may have run the connection at a later time meanwhile: the engine
 * keeps each connection's latest time (c->clock) and uses it when the
 * time it is given is older.
 */
#ifndef MRE_ENGINE_H
#define MRE_ENGINE_H

#include "ep.h"
#include "conn.h"
#include "stream.h"

/* ------------------------------------------------------------------------ */
/* connection                                                                 */

/* bytes of memory mre_conn_init() needs for @cfg */
u32 mre_conn_mem_size(const struct mre_config *cfg);

/*
 * Set up @c with @mem (mre_conn_mem_size() bytes, any content) and a fresh
 * random connection id, towards the node at @addr (its plane-0 address:
 * the family of the plane blobs, what mre_ops.conn_by_addr() looks for).
 * The embedder keeps a table from id to connection.
 */
void mre_conn_init(struct mre_conn *c, struct mre_ep *ep, void *mem,
		   const struct mre_addr *addr);

/*
 * Active open: send CONNECT with our plane blob (mre_ops.our_planes). On a
 * FAILED connection this reopens it under a new connection id: the
 * embedder must re-key its id table (compare c->cid before and after).
 */
void mre_conn_connect(struct mre_conn *c, u64 now);

/*
 * Passive open or repeated CONNECT: @pkt is a parsed CONNECT for @c, from
 * an address its cookie proved (mre_ep_rx() calls it; a test may too).
 * Answers with ACCEPT. A CONNECT of a new incarnation on an established
 * connection is challenged instead (protocol.md 5.2): nothing fails until
 * the peer proves the restart. Returns 1 when a failed connection was
 * reopened (its old state flushed), else 0.
 */
int mre_conn_accept(struct mre_conn *c, u64 now, const struct mre_pkt *pkt);

/* "closed", "connecting", "established", "failed" (logs, debugfs, rdma res) */
const char *mre_conn_state_name(u8 st);

/* a parsed packet for @c (its dst_cid matched). @ce: IP header said CE */
void mre_conn_rx(struct mre_conn *c, u64 now, const struct mre_pkt *pkt,
		 bool ce);

/*
 * Run timers and send what may be sent. Returns the next time at which
 * mre_conn_run() must be called again (0: nothing pending). Callers also
 * call it after mre_conn_rx() and after posting work.
 */
u64 mre_conn_run(struct mre_conn *c, u64 now);

/*
 * The embedder now has @nplanes planes (1..npaths): path i moves to plane
 * i % @nplanes (keeping its sequences; a path that changes plane takes a
 * new source port). Planes start up; report a down one with
 * mre_conn_plane().
 */
void mre_conn_set_planes(struct mre_conn *c, u64 now, u32 nplanes);

/*
 * @local: the peer is this node itself (the embedder hands our packets to
 * it straight back, as the kernel's loop does for a device talking to its
 * own address). Nothing on that way loses a packet but a full queue, which
 * the RTO recovers: no tail probes are armed. Their deadline, two RTTs of
 * the loop, is otherwise a timer that fires for nothing after almost every
 * small operation, its ACK having come an instant after the timer was set.
 */
void mre_conn_set_local(struct mre_conn *c, bool local);

/* a plane went down or came back: fail its paths at once, or probe them */
void mre_conn_plane(struct mre_conn *c, u64 now, u32 plane, bool up);

/*
 * May our plane @k (1..) send to the peer's address on its plane
 * k % c->peer_nplanes (c->peer_planes)? Only once that address proved it
 * is the peer's by echoing our nonce (protocol.md 5.4), or is the peer's
 * own address. Until then the embedder sends plane @k's packets by plane
 * 0's addresses, and only CHALLENGEs (mre_xmit.claim) to the claim.
 */
bool mre_conn_plane_proven(const struct mre_conn *c, u32 k);

/* tear down: fails every attached stream with @st; no packet is sent */
void mre_conn_close(struct mre_conn *c, enum mre_status st);

/*
 * Let an idle, established connection be opened again with a new id and
 * handshake (mre_conn_connect() next), so that the peers exchange new
 * blobs (the embedder's planes changed). Nothing is failed or counted
 * here; the peer sees a restart. False (and nothing done) unless idle.
 */
bool mre_conn_renew(struct mre_conn *c);

/* true when no stream is attached and nothing is in flight */
bool mre_conn_idle(const struct mre_conn *c);

/* ------------------------------------------------------------------------ */
/* stream                                                                     */

struct mre_stream_attr {
	u32 id;			/* local stream id (QPN) */
	u32 remote_id;		/* the peer's stream id */
	u32 mtu;		/* payload bytes per packet */
	u32 max_rd;		/* READ/ATOMIC outstanding as requester */
	u32 rnr_retry;		/* 7: forever */
	u32 retry;		/* timeouts tolerated (IB retry_cnt) */
	u64 rnr_delay_ns;	/* what we ask a sender to wait when we lack a WQE */
	bool uc;		/* IB UC: no READ/ATOMIC, no error reaches the requester */
};

/* bind @s to @c; WQEs and receives count from msn/rsn 0 */
void mre_stream_attach(struct mre_stream *s, struct mre_conn *c,
		       const struct mre_stream_attr *a);
/* unbind; forgets everything in flight for it (no completions follow) */
void mre_stream_detach(struct mre_stream *s);
/* new send WQEs are posted: schedule the stream (then mre_conn_run()) */
void mre_stream_kick(struct mre_stream *s);
/* the embedder moved the QP to an error/reset state: stop sending */
void mre_stream_stop(struct mre_stream *s);

#endif /* MRE_ENGINE_H */
