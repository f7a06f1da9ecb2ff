// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmroce-ep: the endpoint, its socket and the poll loop (mroce-ep.h).
 */
#define _GNU_SOURCE
#include "mep.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/ip.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NS_US 1000ULL
#define NS_MS 1000000ULL

static const u8 name_prefix[4] = { 0xfd, 0x6d, 0x65, 0x70 };

u64 mep_rand(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

u64 mep_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

struct mre_addr mep_name(const struct mep *ep, const struct sockaddr_in *sa)
{
	struct mre_addr a = { .family = MRE_AF_INET6 };

	if (ep->node) {
		/* the kernel glue's name of an IPv4 node: its address alone */
		a.family = MRE_AF_INET;
		memcpy(a.a, &sa->sin_addr.s_addr, 4);
		return a;
	}
	memcpy(a.a, name_prefix, sizeof(name_prefix));
	memcpy(a.a + 10, &sa->sin_port, 2);
	memcpy(a.a + 12, &sa->sin_addr.s_addr, 4);
	return a;
}

int mep_unname(const struct mep *ep, const struct mre_addr *a,
	       struct sockaddr_in *sa)
{
	if (ep->node) {
		/* every node listens on the MetaRoCE port: ours */
		if (a->family != MRE_AF_INET)
			return -EINVAL;
		memset(sa, 0, sizeof(*sa));
		sa->sin_family = AF_INET;
		sa->sin_port = ep->local.sin_port;
		memcpy(&sa->sin_addr.s_addr, a->a, 4);
		return 0;
	}
	if (a->family != MRE_AF_INET6 ||
	    memcmp(a->a, name_prefix, sizeof(name_prefix)))
		return -EINVAL;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	memcpy(&sa->sin_port, a->a + 10, 2);
	memcpy(&sa->sin_addr.s_addr, a->a + 12, 4);
	return 0;
}

static void peer_free(struct mep_peer *p)
{
	mre_conn_close(p->c, MRE_ST_FLUSH);
	free(p->c);
	free(p->mem);
	memset(p, 0, sizeof(*p));
}

/* a full table: the first connection with no stream and nothing in flight */
static struct mep_peer *peer_reclaim(struct mep *ep)
{
	u32 i;

	for (i = 0; i < MEP_MAX_PEERS; i++) {
		if (!ep->peers[i].c->nstreams && mre_conn_idle(ep->peers[i].c)) {
			peer_free(&ep->peers[i]);
			return &ep->peers[i];
		}
	}
	return NULL;
}

struct mep_peer *mep_peer_get(struct mep *ep, const struct mre_addr *name,
			      bool create)
{
	struct mep_peer *free_slot = NULL;
	struct sockaddr_in sa;
	u32 i;

	for (i = 0; i < MEP_MAX_PEERS; i++) {
		struct mep_peer *p = &ep->peers[i];

		if (p->c && mre_addr_eq(&p->name, name))
			return p;
		if (!p->c && !free_slot)
			free_slot = p;
	}
	if (!create || mep_unname(ep, name, &sa))
		return NULL;
	if (!free_slot)
		free_slot = peer_reclaim(ep);
	if (!free_slot)
		return NULL;
	free_slot->sa = sa;
	free_slot->c = calloc(1, sizeof(*free_slot->c));
	free_slot->mem = malloc(mre_conn_mem_size(&ep->eng.cfg));
	if (!free_slot->c || !free_slot->mem) {
		free(free_slot->c);
		free(free_slot->mem);
		free_slot->c = NULL;
		return NULL;
	}
	free_slot->name = *name;
	mre_conn_init(free_slot->c, &ep->eng, free_slot->mem, name);
	free_slot->c->priv = free_slot;
	return free_slot;
}

/* ------------------------------------------------------------------------ */
/* datagrams out and in                                                       */

void mep_tx_flush(struct mep *ep)
{
	struct mmsghdr msg[MEP_BATCH];
	struct iovec iov[MEP_BATCH];
	u32 i, done = 0;
	int n;

	memset(msg, 0, sizeof(msg[0]) * ep->ntx);
	for (i = 0; i < ep->ntx; i++) {
		iov[i].iov_base = ep->tx[i].data;
		iov[i].iov_len = ep->tx[i].len;
		msg[i].msg_hdr.msg_name = &ep->tx[i].to;
		msg[i].msg_hdr.msg_namelen = sizeof(ep->tx[i].to);
		msg[i].msg_hdr.msg_iov = &iov[i];
		msg[i].msg_hdr.msg_iovlen = 1;
	}
	while (done < ep->ntx) {
		n = sendmmsg(ep->fd, msg + done, ep->ntx - done, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* a full socket buffer, an unreachable port: a loss */
			ep->tx_dropped++;
			done++;
			continue;
		}
		done += (u32)n;
	}
	ep->ntx = 0;
}

void mep_tx(struct mep *ep, const struct sockaddr_in *to, const u8 *hdr,
	    u32 hlen, const u8 *pl, u32 plen)
{
	struct mep_txbuf *b;

	if (hlen + plen > MEP_PKT_MAX ||
	    (ep->drop_ppm && mep_rand(&ep->drop_rng) % 1000000 < ep->drop_ppm)) {
		ep->tx_dropped++;
		return;
	}
	if (ep->ntx == MEP_BATCH)
		mep_tx_flush(ep);
	b = &ep->tx[ep->ntx++];
	b->to = *to;
	b->len = hlen + plen;
	memcpy(b->data, hdr, hlen);
	if (plen)
		memcpy(b->data + hlen, pl, plen);
}

/* did the datagram of @mh arrive marked CE (IP_RECVTOS)? */
static bool rx_ce(struct msghdr *mh)
{
	struct cmsghdr *cm;

	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm))
		if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_TOS &&
		    cm->cmsg_len >= CMSG_LEN(1))
			return (*CMSG_DATA(cm) & IPTOS_ECN_MASK) == IPTOS_ECN_CE;
	return false;
}

/* receive what is there (up to a few batches); returns datagrams taken */
static int rx_batch(struct mep *ep)
{
	struct mmsghdr msg[MEP_BATCH];
	struct iovec iov[MEP_BATCH];
	struct sockaddr_in from[MEP_BATCH];
	/* room for the IP_TOS message (one byte: the ECN field) */
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl[MEP_BATCH];
	int i, n;

	memset(msg, 0, sizeof(msg));
	for (i = 0; i < MEP_BATCH; i++) {
		iov[i].iov_base = ep->rx + (size_t)i * MEP_RX_MAX;
		iov[i].iov_len = MEP_RX_MAX;
		msg[i].msg_hdr.msg_name = &from[i];
		msg[i].msg_hdr.msg_namelen = sizeof(from[i]);
		msg[i].msg_hdr.msg_iov = &iov[i];
		msg[i].msg_hdr.msg_iovlen = 1;
		msg[i].msg_hdr.msg_control = ctl[i].buf;
		msg[i].msg_hdr.msg_controllen = sizeof(ctl[i].buf);
	}
	n = recvmmsg(ep->fd, msg, MEP_BATCH, MSG_DONTWAIT, NULL);
	if (n <= 0)
		return n < 0 && errno != EAGAIN && errno != EINTR ? -errno : 0;
	for (i = 0; i < n; i++) {
		struct mre_rx rx = {
			.buf = iov[i].iov_base, .len = msg[i].msg_len,
			.src = mep_name(ep, &from[i]), .dst = ep->name,
			.src_port = ntohs(from[i].sin_port),
			.ce = rx_ce(&msg[i].msg_hdr),
		};
		struct mre_conn *c;

		if (from[i].sin_family != AF_INET ||
		    msg[i].msg_hdr.msg_flags & MSG_TRUNC)
			continue;
		c = mre_ep_rx(&ep->eng, mep_now(), &rx);
		if (c)
			mre_conn_run(c, mep_now());
	}
	return n;
}

/* ------------------------------------------------------------------------ */
/* timers, errors, completions                                                */

void mep_cqe(struct mep *ep, u64 wr_id, u32 qpn, u32 len, u8 status, u8 op)
{
	struct mep_wc *wc;

	if (ep->cq_tail - ep->cq_head >= MEP_CQ) {
		ep->cq_overflow++;
		return;
	}
	wc = &ep->cq[ep->cq_tail++ % MEP_CQ];
	wc->wr_id = wr_id;
	wc->qpn = qpn;
	wc->byte_len = len;
	wc->status = status;
	wc->opcode = op;
}

/* a QP the engine failed: complete what is outstanding, detach it */
static void qp_flush(struct mep_qp *qp)
{
	struct mep *ep = qp->ep;

	if (qp->attached)
		mre_stream_detach(&qp->s);
	qp->attached = false;
	qp->flushed = true;
	for (; qp->sq_done != qp->sq_posted; qp->sq_done++) {
		struct mep_swqe *sw = &qp->sq[qp->sq_done % MEP_SQ];

		mep_cqe(ep, sw->wr_id, qp->qpn, 0, MEP_WC_FLUSH_ERR, sw->w.op);
	}
	for (; qp->rq_done != qp->rq_posted; qp->rq_done++)
		mep_cqe(ep, qp->rq[qp->rq_done % MEP_RQ].wr_id, qp->qpn, 0,
			MEP_WC_FLUSH_ERR, MEP_WC_RECV);
}

/* run every connection; returns the earliest deadline (0: none) */
static u64 run_all(struct mep *ep)
{
	u64 next = 0, d, now = mep_now();
	u32 i;

	for (i = 0; i < MEP_MAX_PEERS; i++) {
		struct mre_conn *c = ep->peers[i].c;

		if (!c)
			continue;
		if (c->state == MRE_CONN_CLOSED && c->nstreams)
			mre_conn_connect(c, now);
		d = mre_conn_run(c, now);
		if (d && (!next || d < next))
			next = d;
	}
	for (i = 0; i < MEP_MAX_QPS; i++)
		if (ep->qps[i] && ep->qps[i]->fatal && !ep->qps[i]->flushed)
			qp_flush(ep->qps[i]);
	mep_tx_flush(ep);
	return next;
}

static u32 cq_ready(const struct mep *ep)
{
	return ep->cq_tail - ep->cq_head;
}

/* receive what is waiting, a few batches at most, sending between */
static int rx_drain(struct mep *ep)
{
	int i, n;

	for (i = 0; i < 8; i++) {
		n = rx_batch(ep);
		if (n < MEP_BATCH)
			return n < 0 ? n : 0;
		mep_tx_flush(ep);
	}
	return 0;
}

int mep_poll(struct mep *ep, int timeout_ms)
{
	u64 end = timeout_ms < 0 ? ~0ULL : mep_now() + (u64)timeout_ms * 1000000;
	struct pollfd pfd = { .fd = ep->fd, .events = POLLIN };
	int r;

	for (;;) {
		u64 next, now, until = end;
		struct timespec ts;

		/*
		 * What came first (ACKs that arrived while the caller was
		 * away), then the timers: a timer run before them would
		 * take the caller's absence for the peer's silence.
		 */
		r = rx_drain(ep);
		if (r < 0)
			return r;
		next = run_all(ep);
		now = mep_now();
		if (cq_ready(ep) || now >= end)
			return (int)cq_ready(ep);
		if (next && next < until)
			until = next;
		if (until < now)
			until = now;
		if (until - now > 1000000000ULL)
			until = now + 1000000000ULL;
		ts.tv_sec = (time_t)((until - now) / 1000000000ULL);
		ts.tv_nsec = (long)((until - now) % 1000000000ULL);
		if (ppoll(&pfd, 1, &ts, NULL) < 0 && errno != EINTR)
			return -errno;
	}
}

int mep_poll_cq(struct mep *ep, struct mep_wc *wc, int n)
{
	int i;

	for (i = 0; i < n && cq_ready(ep); i++)
		wc[i] = ep->cq[ep->cq_head++ % MEP_CQ];
	return i;
}

/* ------------------------------------------------------------------------ */
/* the endpoint                                                               */

static int ep_socket(struct mep *ep, const char *addr, uint16_t port)
{
	int buf = 4 << 20, ect0 = IPTOS_ECN_ECT0, on = 1;
	socklen_t sl = sizeof(ep->local);

	ep->local.sin_family = AF_INET;
	ep->local.sin_port = htons(port);
	if (addr && *addr && inet_pton(AF_INET, addr, &ep->local.sin_addr) != 1)
		return -EINVAL;
	/* a node is its address: the wildcard names no one */
	if (ep->node && !ep->local.sin_addr.s_addr)
		return -EDESTADDRREQ;
	ep->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (ep->fd < 0)
		return -errno;
	setsockopt(ep->fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	setsockopt(ep->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	/* every packet ECT(0), and the ECN field of each one received told */
	if (setsockopt(ep->fd, IPPROTO_IP, IP_TOS, &ect0, sizeof(ect0)) ||
	    setsockopt(ep->fd, IPPROTO_IP, IP_RECVTOS, &on, sizeof(on)))
		return -errno;
	if (bind(ep->fd, (struct sockaddr *)&ep->local, sizeof(ep->local)) ||
	    getsockname(ep->fd, (struct sockaddr *)&ep->local, &sl))
		return -errno;
	ep->name = mep_name(ep, &ep->local);
	return 0;
}

static u64 env_u64(const char *name, u64 dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : dflt;
}

/*
 * The engine's configuration. MEP_CFG=software (the default) is what the
 * kernel module runs with, a software endpoint's: the defaults of
 * kernel/param.c's parameters and what mroce_engine_config() derives from
 * them, the reference for every value below (its comments say why: a host
 * pays for each ACK as for a data packet and jitters by more than a
 * switch queue adds; the fields the module leaves at the engine's
 * defaults are left so here). MEP_CFG=default is mre_config_default(), a
 * datacenter NIC's (ACK every 2 packets or 8 us, rto_min 50 us, a loss or
 * an RTT 300 % above the least counts as congestion). A few MEP_* values
 * override either (ep/README). -EINVAL for another MEP_CFG or a value
 * mre_config_check() refuses.
 */
static int ep_config(struct mre_config *cfg)
{
	const char *base = getenv("MEP_CFG");
	bool soft = !base || !*base || !strcmp(base, "software");

	if (!soft && strcmp(base, "default"))
		return -EINVAL;
	mre_config_default(cfg);
	if (soft) {
		cfg->rto_min_ns = 5000 * NS_US;
		cfg->rto_init_ns = 20000 * NS_US;
		cfg->ack_delay_ns = 500 * NS_US;
		cfg->answer_ack_ns = 2000 * NS_US;
		cfg->dead_ns = 5000 * NS_MS;
		cfg->ack_freq = 8;
		cfg->ack_ooo_now = 0;
		/* 0: a loss never cuts, and no RTT counts as a mark (cc.c) */
		cfg->loss_queue_pct = 0;
	}
	cfg->rto_min_ns = env_u64("MEP_RTO_MIN_US", cfg->rto_min_ns / NS_US) * NS_US;
	cfg->rto_init_ns = MRE_MAX(cfg->rto_init_ns, cfg->rto_min_ns);
	cfg->ack_delay_ns = env_u64("MEP_ACK_DELAY_US", cfg->ack_delay_ns / NS_US) * NS_US;
	cfg->ack_freq = (u32)env_u64("MEP_ACK_FREQ", cfg->ack_freq);
	cfg->loss_queue_pct = (u32)env_u64("MEP_LOSS_QUEUE_PCT", cfg->loss_queue_pct);
	if (soft) {
		/* as kernel/param.c: probes, CONNECTs, activity follow the RTO */
		cfg->probe_min_ns = MRE_MAX(cfg->probe_min_ns, 4 * cfg->rto_min_ns);
		cfg->connect_ns = MRE_MAX(cfg->connect_ns, cfg->rto_init_ns);
		cfg->active_ns = MRE_MAX(cfg->active_ns, cfg->rto_min_ns);
	}
	return mre_config_check(cfg) ? -EINVAL : 0;
}

struct mep *mep_create(const char *addr, uint16_t port, int *err)
{
	return mep_create_flags(addr, port,
				env_u64("MEP_NODE", 0) ? MEP_F_NODE : 0, err);
}

struct mep *mep_create_flags(const char *addr, uint16_t port, unsigned flags,
			     int *err)
{
	struct mep *ep = calloc(1, sizeof(*ep));
	struct mre_config cfg;
	u64 seed = 0;
	int r = -ENOMEM;

	if (!ep)
		goto fail;
	ep->fd = -1;
	r = -EINVAL;
	if (flags & ~MEP_F_NODE)
		goto fail;
	ep->node = flags & MEP_F_NODE;
	if (ep->node && !port)
		port = MEP_NODE_PORT;
	r = -ENOMEM;
	ep->tx = calloc(MEP_BATCH, sizeof(*ep->tx));
	ep->rx = malloc((size_t)MEP_BATCH * MEP_RX_MAX);
	if (!ep->tx || !ep->rx)
		goto fail;
	if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = mep_now() ^ (u64)getpid() << 32;
	seed = env_u64("MEP_SEED", seed);
	ep->rng = seed;
	ep->drop_rng = seed ^ 0x5eedd40fULL;
	ep->drop_ppm = (u32)env_u64("MEP_DROP_PPM", 0);
	ep->next_qpn = 0x10 + (u32)(mep_rand(&ep->rng) & 0xffff);
	r = ep_config(&cfg);
	if (r)
		goto fail;
	r = -EINVAL;
	if (mre_ep_init(&ep->eng, &mep_ops, &cfg))
		goto fail;
	ep->eng.priv = ep;
	r = ep_socket(ep, addr, port);
	if (r)
		goto fail;
	return ep;
fail:
	if (err)
		*err = r;
	mep_destroy(ep);
	return NULL;
}

void mep_destroy(struct mep *ep)
{
	u32 i;

	if (!ep)
		return;
	for (i = 0; i < MEP_MAX_QPS; i++)
		if (ep->qps[i])
			mep_qp_destroy(ep->qps[i]);
	for (i = 0; i < MEP_MAX_PEERS; i++) {
		if (ep->peers[i].c)
			peer_free(&ep->peers[i]);
	}
	if (ep->fd >= 0)
		close(ep->fd);
	free(ep->tx);
	free(ep->rx);
	free(ep);
}

uint16_t mep_port(const struct mep *ep)
{
	return ntohs(ep->local.sin_port);
}

int mep_fd(const struct mep *ep)
{
	return ep->fd;
}

uint64_t mep_counter(const struct mep *ep, const char *name)
{
	const u64 *v = (const u64 *)&ep->eng.ctr;
	u32 i;

	for (i = 0; i < MRE_NCOUNTERS; i++)
		if (!strcmp(mre_counter_names[i], name))
			return v[i];
	return 0;
}

void mep_print_counters(const struct mep *ep, int fd)
{
	const u64 *v = (const u64 *)&ep->eng.ctr;
	u32 i;

	for (i = 0; i < MRE_NCOUNTERS; i++)
		if (v[i])
			dprintf(fd, "%s %llu\n", mre_counter_names[i],
				(unsigned long long)v[i]);
}

uint64_t mep_tx_dropped(const struct mep *ep)
{
	return ep->tx_dropped;
}

const char *mep_wc_status_str(int st)
{
	static const char *const names[] = {
		"success", "remote access error", "remote invalid request",
		"remote operation error", "retry exceeded",
		"RNR retry exceeded", "local length error",
		"local access error", "reset by the peer",
		"local protection error",
	};

	if (st == MEP_WC_FLUSH_ERR)
		return "flushed";
	return st >= 0 && st < (int)MRE_ARRAY_SIZE(names) ? names[st] :
	       "unknown";
}
