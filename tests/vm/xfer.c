// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce-xfer: a verifying RDMA transfer test over one RC QP, for any verbs
 * device (mroce, rdma_rxe). Built by `make tools` into build/tests/, run in
 * the guest by tests/vm/datapath.sh.
 *
 *	server:	mroce-xfer -d DEV [-g GIDX] [-p PORT]
 *	client:	mroce-xfer -d DEV [-g GIDX] [-p PORT] [-n OPS] [-S SEED]
 *			   [-m MAXLEN] [-B BUFSIZE] [-b BATCH] [-o OPS] SERVER
 *
 *	-n OPS      operations in all (default 300)
 *	-S SEED     seed of everything random (default: from the clock);
 *	            printed, so a failing run can be replayed with -S
 *	-m MAXLEN   largest message (default 1 MiB); sizes are 1 .. MAXLEN,
 *	            log-uniform, with MAXLEN itself and 1 byte now and then
 *	-B BUFSIZE  registered buffer on each side (default 4 MiB)
 *	-b BATCH    at most BATCH operations in flight at once (default 8)
 *	-o OPS      which operations: any of w (RDMA WRITE; every other one,
 *	            odd ids, with immediate: the server checks the receive
 *	            completion it makes and its immediate), r (RDMA READ),
 *	            s (SEND), a (ATOMIC_WRITE: 8 bytes to an aligned address,
 *	            posted with ibv_wr_atomic_write() on an extended QP)
 *	            (default wrs)
 *	-e          wait for completions on a completion channel (default:
 *	            poll, sleeping briefly when the CQ is empty)
 *	-T SECONDS  time limit for one batch's completions (default 120)
 *	-U FILE     after the OPS operations, go on until FILE exists (a test
 *	            that must be sure the transfer outlasts something else)
 *	-v          print every operation
 *	-L SIZE     instead: a ping-pong of SIZE-byte WRITEs with immediate,
 *	            OPS round trips, each WRITE's data checked by its receiver
 *	            (both sides give -L; the client prints the round trips'
 *	            median, mean, 99th percentile and longest)
 *
 * The side channel (QP numbers, GIDs, rkeys, and the per-batch protocol)
 * is TCP on PORT (default 18600). Per batch the client picks up to BATCH
 * operations whose regions do not overlap (random offsets, random lengths,
 * 1-4 scatter/gather entries, inline for small WRITEs/SENDs when the QP
 * allows it), tells the server about them (PREP: the server poisons WRITE
 * and SEND targets with the complement of the expected data, fills READ
 * sources with the expected data and posts the receives), posts them all,
 * waits for every completion, checks the READ destinations itself, and
 * asks the server to check the WRITE and SEND targets (VERIFY). The data
 * of operation i is a pseudo-random stream derived from (SEED, i), so both
 * sides can compare byte by byte; both also keep a 64-bit checksum of
 * every region and compare them.
 *
 * Output: "seed S", then per problem a line "MISMATCH ..." or "ERROR ...",
 * then "xfer: N ops, B bytes verified, C bytes corrupted, M checksum
 * mismatches, E errors". Exit status 0 only if every operation completed
 * and every byte matched; 1 on corruption or a failed operation; 2 on
 * usage or setup errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>

#define XFER_MAGIC	0x78666572u	/* "xfer" */
#define MAX_BATCH	64
#define MAX_SGE		4

enum { OP_WRITE, OP_READ, OP_SEND, OP_AWRITE, OP_N };
static const char *const op_name[] = { "WRITE", "READ", "SEND", "ATOMIC_WRITE" };

enum { MSG_PREP = 1, MSG_VERIFY, MSG_DONE };

struct conn_info {
	uint32_t magic;
	uint32_t qpn;
	uint32_t psn;
	uint32_t mtu;		/* enum ibv_mtu */
	uint8_t gid[16];
	uint64_t addr;
	uint64_t size;
	uint32_t rkey;
	uint32_t lid;
	uint64_t seed;
};

struct opdesc {
	uint32_t id;
	uint32_t len;
	uint64_t loff;		/* client buffer */
	uint64_t roff;		/* server buffer */
	uint8_t op;
	uint8_t nsge;
	uint8_t inl;
	uint8_t pad[5];
};

/*
 * Every other WRITE (odd ids) carries an immediate, the op id: it consumes
 * a receive (of no SGE) that the server posts and checks. A WRITE with
 * immediate is what mroce follows with a PARITY under loss.
 */
static int wimm(const struct opdesc *d)
{
	return d->op == OP_WRITE && d->id & 1;
}

struct msg_hdr {
	uint32_t type;
	uint32_t count;
};

struct op_result {
	uint64_t csum;		/* of the server's region */
	uint64_t corrupt;	/* bytes that differ from the expected data */
	uint64_t first_bad;	/* offset in the region of the first one */
	int32_t status;		/* receive completion status (SEND), or -1 */
	uint32_t byte_len;	/* receive completion byte_len (SEND) */
};

struct ctx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;	/* when awrite: the QP's extended side */
	int awrite;		/* -o a (client): an extended QP, ATOMIC_WRITE */
	struct ibv_mr *mr;
	uint8_t *buf;
	uint8_t *scratch;
	uint64_t size;
	uint32_t max_inline;
	int max_sge;
	int events;
	int timeout_s;
	int sock;
	uint64_t seed;
	struct conn_info remote;
};

/* ---- random numbers and data streams ---------------------------------- */

static uint64_t splitmix64(uint64_t *s);

/* an extended QP when ATOMIC_WRITE is asked for */
static struct ibv_qp *create_qp(struct ctx *c, struct ibv_qp_init_attr *qia)
{
	struct ibv_qp_init_attr_ex x = {
		.send_cq = qia->send_cq, .recv_cq = qia->recv_cq,
		.cap = qia->cap, .qp_type = qia->qp_type,
		.sq_sig_all = qia->sq_sig_all, .pd = c->pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_ATOMIC_WRITE,
	};
	struct ibv_qp *qp;

	if (!c->awrite)
		return ibv_create_qp(c->pd, qia);
	qp = ibv_create_qp_ex(c->ctx, &x);
	if (qp) {
		qia->cap = x.cap;
		c->qpx = ibv_qp_to_qp_ex(qp);
	}
	return qp;
}

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rnd_below(uint64_t *s, uint64_t n)
{
	return n ? splitmix64(s) % n : 0;
}

/* the data of operation id: byte k of the region is byte k of this stream */
static void gen_data(uint64_t seed, uint32_t id, uint8_t *dst, size_t len)
{
	uint64_t s = seed ^ ((uint64_t)id * 0xd6e8feb86659fd93ULL), w;
	size_t i = 0;

	while (i + 8 <= len) {
		w = splitmix64(&s);
		memcpy(dst + i, &w, 8);
		i += 8;
	}
	if (i < len) {
		w = splitmix64(&s);
		memcpy(dst + i, &w, len - i);
	}
}

static uint64_t csum64(const uint8_t *p, size_t len)	/* FNV-1a, 64 bit */
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

/* fill a region with the expected data (poison=0) or its complement */
static void fill(struct ctx *c, uint64_t off, uint32_t id, uint32_t len, int poison)
{
	uint32_t i;

	gen_data(c->seed, id, c->buf + off, len);
	if (poison)
		for (i = 0; i < len; i++)
			c->buf[off + i] = ~c->buf[off + i];
}

/* compare a region with the expected data: corrupted bytes, first bad */
static uint64_t compare(struct ctx *c, uint64_t off, uint32_t id, uint32_t len,
			uint64_t *first_bad)
{
	uint64_t bad = 0;
	uint32_t i;

	*first_bad = UINT64_MAX;
	gen_data(c->seed, id, c->scratch, len);
	if (!memcmp(c->scratch, c->buf + off, len))
		return 0;
	for (i = 0; i < len; i++)
		if (c->scratch[i] != c->buf[off + i]) {
			if (!bad)
				*first_bad = i;
			bad++;
		}
	return bad;
}

/* ---- side channel ------------------------------------------------------ */

static int xwrite(int fd, const void *p, size_t n)
{
	const char *b = p;
	ssize_t r;

	while (n) {
		r = write(fd, b, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		b += r;
		n -= r;
	}
	return 0;
}

static int xread(int fd, void *p, size_t n)
{
	char *b = p;
	ssize_t r;

	while (n) {
		r = read(fd, b, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		b += r;
		n -= r;
	}
	return 0;
}

static int tcp_listen_accept(const char *port)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE, .ai_family = AF_INET6,
				  .ai_socktype = SOCK_STREAM }, *res;
	int fd, cfd, one = 1, zero = 0;

	if (getaddrinfo(NULL, port, &hints, &res)) {
		fprintf(stderr, "xfer: getaddrinfo(port %s) failed\n", port);
		return -1;
	}
	fd = socket(res->ai_family, res->ai_socktype, 0);
	if (fd < 0) {
		perror("xfer: socket");
		freeaddrinfo(res);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 1)) {
		perror("xfer: bind/listen");
		close(fd);
		freeaddrinfo(res);
		return -1;
	}
	freeaddrinfo(res);
	printf("xfer: server listening on TCP %s\n", port);
	fflush(stdout);
	cfd = accept(fd, NULL, NULL);
	close(fd);
	if (cfd < 0)
		perror("xfer: accept");
	else
		setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return cfd;
}

static int tcp_connect(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *r;
	int fd = -1, one = 1, tries;

	if (getaddrinfo(host, port, &hints, &res)) {
		fprintf(stderr, "xfer: cannot resolve %s\n", host);
		return -1;
	}
	/* the server may not be listening yet: retry for 20 s */
	for (tries = 0; tries < 200 && fd < 0; tries++) {
		for (r = res; r; r = r->ai_next) {
			fd = socket(r->ai_family, r->ai_socktype, 0);
			if (fd < 0)
				continue;
			if (!connect(fd, r->ai_addr, r->ai_addrlen))
				break;
			close(fd);
			fd = -1;
		}
		if (fd < 0)
			usleep(100000);
	}
	freeaddrinfo(res);
	if (fd < 0)
		fprintf(stderr, "xfer: cannot connect to %s port %s\n", host, port);
	else
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* ---- verbs ------------------------------------------------------------- */

static int setup(struct ctx *c, const char *devname, int ib_port, int gidx,
		 struct conn_info *me)
{
	struct ibv_device **list, **d;
	struct ibv_port_attr pa;
	struct ibv_device_attr da;
	struct ibv_qp_init_attr qia = {};
	struct ibv_qp_attr qa = {};
	union ibv_gid gid;
	uint64_t s = (uint64_t)time(NULL) ^ getpid();

	list = ibv_get_device_list(NULL);
	if (!list) {
		perror("xfer: ibv_get_device_list");
		return -1;
	}
	for (d = list; *d; d++)
		if (!devname || !strcmp(ibv_get_device_name(*d), devname))
			break;
	if (!*d) {
		fprintf(stderr, "xfer: device %s not found\n", devname ? devname : "(any)");
		return -1;
	}
	c->ctx = ibv_open_device(*d);
	ibv_free_device_list(list);
	if (!c->ctx) {
		perror("xfer: ibv_open_device");
		return -1;
	}
	if (ibv_query_device(c->ctx, &da) || ibv_query_port(c->ctx, ib_port, &pa)) {
		perror("xfer: ibv_query_device/port");
		return -1;
	}
	if (ibv_query_gid(c->ctx, ib_port, gidx, &gid)) {
		perror("xfer: ibv_query_gid");
		return -1;
	}
	c->pd = ibv_alloc_pd(c->ctx);
	if (!c->pd) {
		perror("xfer: ibv_alloc_pd");
		return -1;
	}
	if (c->events) {
		c->ch = ibv_create_comp_channel(c->ctx);
		if (!c->ch) {
			perror("xfer: ibv_create_comp_channel");
			return -1;
		}
	}
	c->cq = ibv_create_cq(c->ctx, 4 * MAX_BATCH, NULL, c->ch, 0);
	if (!c->cq) {
		perror("xfer: ibv_create_cq");
		return -1;
	}
	if (c->ch && ibv_req_notify_cq(c->cq, 0)) {
		perror("xfer: ibv_req_notify_cq");
		return -1;
	}
	c->buf = aligned_alloc(4096, c->size);
	c->scratch = malloc(c->size);
	if (!c->buf || !c->scratch) {
		fprintf(stderr, "xfer: out of memory\n");
		return -1;
	}
	memset(c->buf, 0, c->size);
	c->mr = ibv_reg_mr(c->pd, c->buf, c->size, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!c->mr) {
		perror("xfer: ibv_reg_mr");
		return -1;
	}
	c->max_sge = da.max_sge < MAX_SGE ? da.max_sge : MAX_SGE;
	qia.send_cq = c->cq;
	qia.recv_cq = c->cq;
	qia.qp_type = IBV_QPT_RC;
	qia.sq_sig_all = 1;
	qia.cap.max_send_wr = 2 * MAX_BATCH;
	qia.cap.max_recv_wr = 2 * MAX_BATCH;
	qia.cap.max_send_sge = c->max_sge;
	qia.cap.max_recv_sge = c->max_sge;
	qia.cap.max_inline_data = 64;
	c->qp = create_qp(c, &qia);
	if (!c->qp) {
		qia.cap.max_inline_data = 0;	/* no inline data: try without */
		c->qp = create_qp(c, &qia);
	}
	if (!c->qp) {
		perror("xfer: ibv_create_qp");
		return -1;
	}
	c->max_inline = qia.cap.max_inline_data;
	qa.qp_state = IBV_QPS_INIT;
	qa.pkey_index = 0;
	qa.port_num = ib_port;
	qa.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			     IBV_ACCESS_LOCAL_WRITE;
	if (ibv_modify_qp(c->qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		perror("xfer: modify QP to INIT");
		return -1;
	}
	memset(me, 0, sizeof(*me));
	me->magic = XFER_MAGIC;
	me->qpn = c->qp->qp_num;
	me->psn = splitmix64(&s) & 0xffffff;
	me->mtu = pa.active_mtu;
	memcpy(me->gid, &gid, 16);
	me->addr = (uintptr_t)c->buf;
	me->size = c->size;
	me->rkey = c->mr->rkey;
	me->lid = pa.lid;
	printf("xfer: %s port %d gid[%d] %s qpn %#x mtu %d max_inline %u max_sge %d\n",
	       ibv_get_device_name(c->ctx->device), ib_port, gidx,
	       inet_ntop(AF_INET6, me->gid, (char[INET6_ADDRSTRLEN]){}, INET6_ADDRSTRLEN),
	       me->qpn, 128 << pa.active_mtu, c->max_inline, c->max_sge);
	return 0;
}

static int connect_qp(struct ctx *c, int ib_port, int gidx, const struct conn_info *me)
{
	const struct conn_info *rem = &c->remote;
	struct ibv_qp_attr qa = {};

	qa.qp_state = IBV_QPS_RTR;
	qa.path_mtu = me->mtu < rem->mtu ? me->mtu : rem->mtu;
	qa.dest_qp_num = rem->qpn;
	qa.rq_psn = rem->psn;
	qa.max_dest_rd_atomic = 16;
	qa.min_rnr_timer = 12;
	qa.ah_attr.is_global = 1;
	qa.ah_attr.port_num = ib_port;
	qa.ah_attr.dlid = rem->lid;
	memcpy(&qa.ah_attr.grh.dgid, rem->gid, 16);
	qa.ah_attr.grh.sgid_index = gidx;
	qa.ah_attr.grh.hop_limit = 64;
	if (ibv_modify_qp(c->qp, &qa, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) {
		perror("xfer: modify QP to RTR");
		return -1;
	}
	qa.qp_state = IBV_QPS_RTS;
	qa.sq_psn = me->psn;
	qa.timeout = 14;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 16;
	if (ibv_modify_qp(c->qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC)) {
		perror("xfer: modify QP to RTS");
		return -1;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* collect n completions into wc[]; 0, or -1 on timeout / poll error */
static int wait_cqes(struct ctx *c, struct ibv_wc *wc, int n)
{
	double deadline = now_s() + c->timeout_s;
	int got = 0, r, idle = 0;

	while (got < n) {
		r = ibv_poll_cq(c->cq, n - got, wc + got);
		if (r < 0) {
			fprintf(stderr, "ERROR ibv_poll_cq returned %d\n", r);
			return -1;
		}
		got += r;
		if (got >= n)
			break;
		if (r) {
			idle = 0;
			continue;
		}
		if (now_s() > deadline) {
			fprintf(stderr, "ERROR timeout: %d of %d completions after %d s\n",
				got, n, c->timeout_s);
			return -1;
		}
		if (c->ch) {
			struct pollfd pfd = { .fd = c->ch->fd, .events = POLLIN };
			struct ibv_cq *ev_cq;
			void *ev_ctx;

			/* re-arm, then poll once more before sleeping */
			if (ibv_req_notify_cq(c->cq, 0)) {
				fprintf(stderr, "ERROR ibv_req_notify_cq\n");
				return -1;
			}
			r = ibv_poll_cq(c->cq, n - got, wc + got);
			if (r > 0) {
				got += r;
				continue;
			}
			if (poll(&pfd, 1, 1000) > 0) {
				if (ibv_get_cq_event(c->ch, &ev_cq, &ev_ctx)) {
					fprintf(stderr, "ERROR ibv_get_cq_event\n");
					return -1;
				}
				ibv_ack_cq_events(ev_cq, 1);
			}
		} else if (++idle > 64) {
			usleep(idle > 1000 ? 1000 : 20);
		}
	}
	return 0;
}

/* split [0, len) into nsge pieces at random points (same on both sides) */
static int split(uint64_t seed, uint32_t id, uint32_t salt, uint32_t len, int nsge,
		 uint32_t *cut)
{
	uint64_t s = seed ^ ((uint64_t)id << 32) ^ salt;
	int i, j, n = 0;
	uint32_t v, t;

	if ((uint32_t)nsge > len)
		nsge = len;
	for (i = 0; i < nsge - 1; i++) {
		v = 1 + rnd_below(&s, len - 1);
		for (j = 0; j < n; j++)
			if (cut[j] == v)
				break;
		if (j == n)
			cut[n++] = v;
	}
	for (i = 1; i < n; i++)	/* insertion sort */
		for (j = i; j > 0 && cut[j - 1] > cut[j]; j--) {
			t = cut[j];
			cut[j] = cut[j - 1];
			cut[j - 1] = t;
		}
	return n + 1;
}

static int make_sges(struct ctx *c, uint64_t off, uint32_t id, uint32_t salt,
		     uint32_t len, int nsge, struct ibv_sge *sge)
{
	uint32_t cut[MAX_SGE];
	uint32_t start = 0, end;
	int i, n = split(c->seed, id, salt, len, nsge, cut);

	for (i = 0; i < n; i++) {
		end = i < n - 1 ? cut[i] : len;
		sge[i].addr = (uintptr_t)c->buf + off + start;
		sge[i].length = end - start;
		sge[i].lkey = c->mr->lkey;
		start = end;
	}
	return n;
}

/* ---- server ------------------------------------------------------------ */

static int server(struct ctx *c)
{
	struct opdesc ops[MAX_BATCH];
	struct op_result res[MAX_BATCH];
	struct ibv_wc wc[MAX_BATCH];
	struct ibv_sge sge[MAX_SGE];
	struct ibv_recv_wr rwr, *bad;
	struct msg_hdr h;
	uint64_t verified = 0, corrupted = 0, nops = 0;
	int nrecv, i, k, errors = 0;

	for (;;) {
		if (xread(c->sock, &h, sizeof(h))) {
			fprintf(stderr, "ERROR side channel closed\n");
			return 2;
		}
		if (h.type == MSG_DONE)
			break;
		if (h.count > MAX_BATCH || xread(c->sock, ops, h.count * sizeof(ops[0]))) {
			fprintf(stderr, "ERROR bad message\n");
			return 2;
		}
		memset(res, 0, sizeof(res));
		if (h.type == MSG_PREP) {
			for (i = 0; i < (int)h.count; i++) {
				struct opdesc *o = &ops[i];

				if (o->roff + o->len > c->size) {
					fprintf(stderr, "ERROR op %u out of range\n", o->id);
					return 2;
				}
				fill(c, o->roff, o->id, o->len, o->op != OP_READ);
				if (o->op == OP_READ)
					res[i].csum = csum64(c->buf + o->roff, o->len);
				if (o->op == OP_SEND || wimm(o)) {
					memset(&rwr, 0, sizeof(rwr));
					rwr.wr_id = o->id;
					rwr.sg_list = sge;
					rwr.num_sge = wimm(o) ? 0 :
						make_sges(c, o->roff, o->id, 2, o->len,
							  1 + o->id % c->max_sge, sge);
					if (ibv_post_recv(c->qp, &rwr, &bad)) {
						fprintf(stderr, "ERROR ibv_post_recv op %u: %s\n",
							o->id, strerror(errno));
						return 1;
					}
				}
			}
		} else if (h.type == MSG_VERIFY) {
			for (i = 0, nrecv = 0; i < (int)h.count; i++)
				nrecv += ops[i].op == OP_SEND || wimm(&ops[i]);
			if (nrecv && wait_cqes(c, wc, nrecv)) {
				errors++;
				for (i = 0; i < (int)h.count; i++)
					res[i].status = -2;
			}
			for (i = 0; i < (int)h.count; i++) {
				struct opdesc *o = &ops[i];

				res[i].status = res[i].status ? res[i].status : -1;
				if ((o->op == OP_SEND || wimm(o)) && res[i].status != -2) {
					for (k = 0; k < nrecv; k++)
						if (wc[k].wr_id == o->id)
							break;
					if (k == nrecv) {
						res[i].status = -3;
					} else {
						res[i].status = wc[k].status;
						res[i].byte_len = wc[k].byte_len;
						if (wc[k].status != IBV_WC_SUCCESS ||
						    wc[k].opcode != (wimm(o) ? IBV_WC_RECV_RDMA_WITH_IMM :
									IBV_WC_RECV) ||
						    (wimm(o) && (!(wc[k].wc_flags & IBV_WC_WITH_IMM) ||
								 ntohl(wc[k].imm_data) != o->id)))
							errors++;
					}
				}
				if (o->op == OP_READ)
					continue;
				res[i].corrupt = compare(c, o->roff, o->id, o->len, &res[i].first_bad);
				res[i].csum = csum64(c->buf + o->roff, o->len);
				verified += o->len;
				corrupted += res[i].corrupt;
				nops++;
			}
		} else {
			fprintf(stderr, "ERROR unknown message %u\n", h.type);
			return 2;
		}
		if (xwrite(c->sock, res, h.count * sizeof(res[0])))
			return 2;
	}
	printf("xfer server: %" PRIu64 " ops checked here, %" PRIu64 " bytes verified, %"
	       PRIu64 " bytes corrupted, %d errors\n", nops, verified, corrupted, errors);
	return corrupted || errors ? 1 : 0;
}

/* ---- client ------------------------------------------------------------ */

struct opts {
	long nops;
	uint32_t maxlen;
	int batch;
	int verbose;
	int mask;		/* 1 << OP_x */
	const char *until;	/* -U: go on past nops until this file exists */
};

static int more(const struct opts *o, long done)
{
	return done < o->nops || (o->until && access(o->until, F_OK));
}

static uint32_t pick_len(uint64_t *s, uint32_t maxlen)
{
	uint32_t r = rnd_below(s, 32), e, bits = 0;

	if (r == 0)
		return maxlen;
	if (r == 1)
		return 1;
	while ((1ULL << (bits + 1)) <= maxlen)
		bits++;
	e = rnd_below(s, bits + 1);
	return 1 + rnd_below(s, (1ULL << e) < maxlen ? (1ULL << e) : maxlen);
}

static int overlaps(uint64_t a, uint32_t alen, uint64_t b, uint32_t blen)
{
	return a < b + blen && b < a + alen;
}

static int client(struct ctx *c, const struct opts *o)
{
	struct opdesc ops[MAX_BATCH];
	struct op_result prep[MAX_BATCH], ver[MAX_BATCH];
	uint64_t csum[MAX_BATCH];
	struct ibv_wc wc[MAX_BATCH];
	struct ibv_send_wr wr[MAX_BATCH], *bad;
	struct ibv_sge sge[MAX_BATCH][MAX_SGE];
	struct msg_hdr h;
	uint64_t s = c->seed, verified = 0, corrupted = 0, fb;
	uint64_t per_op[OP_N] = {}, bytes_op[OP_N] = {};
	struct ibv_send_wr *chain[MAX_BATCH];
	int nchain, naw;
	long done = 0, mism = 0, errors = 0, batches = 0;
	uint32_t id = 0;
	double t0 = now_s();
	int n, i, j, k, want, r;

	while (more(o, done) && !errors) {
		/* pick a batch of non-overlapping operations */
		want = 1 + rnd_below(&s, o->batch);
		if (done < o->nops && want > o->nops - done)
			want = o->nops - done;
		for (n = 0, k = 0; n < want && k < 4 * want; k++) {
			struct opdesc *d = &ops[n];

			memset(d, 0, sizeof(*d));
			do
				d->op = rnd_below(&s, o->mask >> OP_AWRITE ? 4 : 3);
			while (!(o->mask & (1 << d->op)));
			if (d->op == OP_AWRITE) {	/* one aligned word */
				d->len = 8;
				d->loff = rnd_below(&s, c->size - 8 + 1);
				d->roff = 8 * rnd_below(&s, c->remote.size / 8);
				d->nsge = 1;
			} else {
				d->len = pick_len(&s, o->maxlen);
				d->loff = rnd_below(&s, c->size - d->len + 1);
				d->roff = rnd_below(&s, c->remote.size - d->len + 1);
				d->nsge = 1 + rnd_below(&s, c->max_sge);
			}
			d->inl = d->op != OP_READ && d->op != OP_AWRITE &&
				 d->len <= c->max_inline && (splitmix64(&s) & 1);
			if (d->inl)
				d->nsge = 1;
			for (j = 0; j < n; j++)
				if (overlaps(d->loff, d->len, ops[j].loff, ops[j].len) ||
				    overlaps(d->roff, d->len, ops[j].roff, ops[j].len))
					break;
			if (j < n)
				continue;
			d->id = id++;
			n++;
		}
		batches++;
		if (o->verbose)
			for (i = 0; i < n; i++)
				printf("op %u %s len %u loff %" PRIu64 " roff %" PRIu64
				       " nsge %u%s\n", ops[i].id, op_name[ops[i].op],
				       ops[i].len, ops[i].loff, ops[i].roff, ops[i].nsge,
				       ops[i].inl ? " inline" : "");
		/* PREP: the server poisons targets, fills sources, posts receives */
		h.type = MSG_PREP;
		h.count = n;
		if (xwrite(c->sock, &h, sizeof(h)) || xwrite(c->sock, ops, n * sizeof(ops[0])) ||
		    xread(c->sock, prep, n * sizeof(prep[0]))) {
			fprintf(stderr, "ERROR side channel failed (PREP)\n");
			return 2;
		}
		/* our sources get the data, our READ targets the complement */
		for (i = 0; i < n; i++) {
			struct opdesc *d = &ops[i];
			struct ibv_send_wr *w = &wr[i];

			fill(c, d->loff, d->id, d->len, d->op == OP_READ);
			csum[i] = d->op == OP_READ ? 0 : csum64(c->buf + d->loff, d->len);
			memset(w, 0, sizeof(*w));
			w->wr_id = d->id;
			w->sg_list = sge[i];
			w->num_sge = make_sges(c, d->loff, d->id, 1, d->len, d->nsge, sge[i]);
			w->opcode = wimm(d) ? IBV_WR_RDMA_WRITE_WITH_IMM :
				    d->op == OP_WRITE ? IBV_WR_RDMA_WRITE :
				    d->op == OP_READ ? IBV_WR_RDMA_READ : IBV_WR_SEND;
			w->imm_data = wimm(d) ? htonl(d->id) : 0;
			w->send_flags = IBV_SEND_SIGNALED | (d->inl ? IBV_SEND_INLINE : 0);
			if (d->op != OP_SEND) {
				w->wr.rdma.remote_addr = c->remote.addr + d->roff;
				w->wr.rdma.rkey = c->remote.rkey;
			}
			w->next = NULL;
		}
		/*
		 * ATOMIC_WRITEs in one ibv_wr_* session (their value is the
		 * stream's 8 bytes in our buffer), then the others as one
		 * chain or one by one
		 */
		for (i = 0, nchain = 0, naw = 0; i < n; i++) {
			if (ops[i].op != OP_AWRITE) {
				chain[nchain++] = &wr[i];
				continue;
			}
			if (!naw++)
				ibv_wr_start(c->qpx);
			c->qpx->wr_id = ops[i].id;
			c->qpx->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_atomic_write(c->qpx, c->remote.rkey,
					    c->remote.addr + ops[i].roff,
					    c->buf + ops[i].loff);
		}
		r = naw ? ibv_wr_complete(c->qpx) : 0;
		bad = NULL;
		if (r) {
			/* (not below: bad would be a legacy WR) */
		} else if (splitmix64(&s) & 1) {
			for (i = 0; i < nchain - 1; i++)
				chain[i]->next = chain[i + 1];
			r = nchain ? ibv_post_send(c->qp, chain[0], &bad) : 0;
		} else {
			for (i = 0, r = 0; i < nchain && !r; i++)
				r = ibv_post_send(c->qp, chain[i], &bad);
		}
		if (r) {
			fprintf(stderr, "ERROR ibv_post_send: %s (op %" PRIu64 ")\n",
				strerror(r), bad ? bad->wr_id : 0);
			return 1;
		}
		if (wait_cqes(c, wc, n)) {
			errors++;
			break;
		}
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "ERROR op %" PRIu64 ": completion %s (%d), vendor_err %#x\n",
					wc[i].wr_id, ibv_wc_status_str(wc[i].status),
					wc[i].status, wc[i].vendor_err);
				errors++;
			}
		}
		if (errors)
			break;
		/* check our READ targets */
		for (i = 0; i < n; i++) {
			struct opdesc *d = &ops[i];
			uint64_t bad_bytes;

			if (d->op != OP_READ)
				continue;
			bad_bytes = compare(c, d->loff, d->id, d->len, &fb);
			csum[i] = csum64(c->buf + d->loff, d->len);
			verified += d->len;
			corrupted += bad_bytes;
			if (bad_bytes || csum[i] != prep[i].csum) {
				mism++;
				printf("MISMATCH op %u READ len %u loff %" PRIu64 " roff %" PRIu64
				       " nsge %u: %" PRIu64 " bytes corrupted, first at +%" PRIu64
				       ", csum here %016" PRIx64 " there %016" PRIx64 "\n",
				       d->id, d->len, d->loff, d->roff, d->nsge, bad_bytes,
				       bad_bytes ? fb : 0, csum[i], prep[i].csum);
			}
		}
		/* VERIFY: the server checks WRITE and SEND targets */
		h.type = MSG_VERIFY;
		if (xwrite(c->sock, &h, sizeof(h)) || xwrite(c->sock, ops, n * sizeof(ops[0])) ||
		    xread(c->sock, ver, n * sizeof(ver[0]))) {
			fprintf(stderr, "ERROR side channel failed (VERIFY)\n");
			return 2;
		}
		for (i = 0; i < n; i++) {
			struct opdesc *d = &ops[i];

			per_op[d->op]++;
			bytes_op[d->op] += d->len;
			if (d->op == OP_READ)
				continue;
			verified += d->len;
			corrupted += ver[i].corrupt;
			if ((d->op == OP_SEND && (ver[i].status != IBV_WC_SUCCESS ||
						  ver[i].byte_len != d->len)) ||
			    (wimm(d) && ver[i].status != IBV_WC_SUCCESS)) {
				errors++;
				printf("ERROR op %u %s len %u: receive status %d byte_len %u\n",
				       d->id, wimm(d) ? "WRITE_WITH_IMM" : "SEND", d->len,
				       ver[i].status, ver[i].byte_len);
			}
			if (ver[i].corrupt || ver[i].csum != csum[i]) {
				mism++;
				printf("MISMATCH op %u %s len %u loff %" PRIu64 " roff %" PRIu64
				       " nsge %u%s: %" PRIu64 " bytes corrupted, first at +%" PRIu64
				       ", csum here %016" PRIx64 " there %016" PRIx64 "\n",
				       d->id, op_name[d->op], d->len, d->loff, d->roff, d->nsge,
				       d->inl ? " inline" : "", ver[i].corrupt,
				       ver[i].corrupt ? ver[i].first_bad : 0, csum[i], ver[i].csum);
			}
		}
		done += n;
	}
	h.type = MSG_DONE;
	h.count = 0;
	xwrite(c->sock, &h, sizeof(h));
	printf("xfer: %ld batches, WRITE %" PRIu64 " ops %" PRIu64 " B, READ %" PRIu64
	       " ops %" PRIu64 " B, SEND %" PRIu64 " ops %" PRIu64 " B, ATOMIC_WRITE %"
	       PRIu64 " ops, %.1f s\n",
	       batches, per_op[OP_WRITE], bytes_op[OP_WRITE], per_op[OP_READ],
	       bytes_op[OP_READ], per_op[OP_SEND], bytes_op[OP_SEND],
	       per_op[OP_AWRITE], now_s() - t0);
	printf("xfer: %ld ops, %" PRIu64 " bytes verified, %" PRIu64
	       " bytes corrupted, %ld checksum mismatches, %ld errors (seed %" PRIu64 ")\n",
	       done, verified, corrupted, mism, errors, c->seed);
	return corrupted || mism || errors || done < o->nops ? 1 : 0;
}

/* ---- -L: a ping-pong of WRITEs with immediate ------------------------- */

static int post_recv0(struct ctx *c)
{
	struct ibv_recv_wr w = { .wr_id = 1 }, *bad;

	return ibv_post_recv(c->qp, &w, &bad);
}

/* one WRITE with immediate @i of @size bytes, our buffer at @off to the peer's */
static int post_wimm(struct ctx *c, uint64_t off, uint32_t size, uint32_t i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->buf + off, .length = size, .lkey = c->mr->lkey,
	};
	struct ibv_send_wr w = {
		.wr_id = 2, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(i),
	}, *bad;

	w.wr.rdma.remote_addr = c->remote.addr + off;
	w.wr.rdma.rkey = c->remote.rkey;
	return ibv_post_send(c->qp, &w, &bad);
}

/*
 * Wait for the receive of @i; the completions of our own WRITEs on the way
 * are counted off *@sends (the peer's next WRITE may come before the ACK
 * that completes ours). @i < 0: wait only until *@sends is 0.
 */
static int pp_wait(struct ctx *c, long i, long *sends)
{
	struct ibv_wc wc;

	while (i >= 0 || *sends) {
		if (wait_cqes(c, &wc, 1))
			return -1;
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "ERROR ping-pong %ld: completion %s\n", i,
				ibv_wc_status_str(wc.status));
			return -1;
		}
		if (wc.opcode == IBV_WC_RDMA_WRITE) {
			--*sends;
			continue;
		}
		if (i < 0 || wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
		    ntohl(wc.imm_data) != (uint32_t)i) {
			fprintf(stderr, "ERROR ping-pong %ld: opcode %d imm %u\n", i,
				wc.opcode, ntohl(wc.imm_data));
			return -1;
		}
		if (post_recv0(c))
			return -1;
		return 0;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * -L SIZE: the client WRITEs SIZE bytes with immediate, the server answers
 * the same when its receive completes, @n times; the client prints the
 * round trips (what a step of a collective costs; mroce follows such
 * WRITEs with a PARITY under loss). The receive is posted before the sync.
 * Each WRITE carries its own data (stream 2i from the client into the
 * server's [0, SIZE), 2i + 1 back into the client's [SIZE, 2 SIZE)), which
 * its receiver checks byte by byte when the immediate says it is there.
 */
static int pingpong(struct ctx *c, int client, uint32_t size, long n)
{
	double *t = calloc(n, sizeof(*t)), t0 = 0, sum = 0;
	uint64_t in = client ? size : 0, out = client ? 0 : size, bad = 0, fb;
	long i, sends = 0;

	if (!t)
		return 2;
	for (i = 0; i < n; i++) {
		if (client) {
			fill(c, out, 2 * i, size, 0);
			t0 = now_s();
			if (post_wimm(c, out, size, i))
				break;
			sends++;
		}
		if (pp_wait(c, i, &sends))
			break;
		if (client) {
			t[i] = (now_s() - t0) * 1e6;
			sum += t[i];
		}
		bad += compare(c, in, 2 * i + !!client, size, &fb);
		if (client)
			continue;
		fill(c, out, 2 * i + 1, size, 0);
		if (post_wimm(c, out, size, i))
			break;
		sends++;
	}
	if (i < n || pp_wait(c, -1, &sends)) {
		fprintf(stderr, "ERROR ping-pong stopped at %ld of %ld\n", i, n);
		free(t);
		return 1;
	}
	printf("pingpong: %" PRIu64 " bytes received, %" PRIu64 " corrupted\n",
	       (uint64_t)n * size, bad);
	if (client) {
		qsort(t, n, sizeof(*t), cmp_double);
		printf("pingpong %u B x %ld: median %.2f mean %.2f p99 %.2f max %.2f us\n",
		       size, n, t[n / 2], sum / n, t[(n - 1) * 99 / 100], t[n - 1]);
	}
	free(t);
	return bad ? 1 : 0;
}

static void usage(const char *p)
{
	fprintf(stderr, "usage: %s -d DEV [-i IBPORT] [-g GIDX] [-p PORT] [-e] [-T SECS] [-U FILE]\n"
		"          [-n OPS] [-S SEED] [-m MAXLEN] [-B BUFSIZE] [-b BATCH] [-o wrsa] [-v]\n"
		"          [-L SIZE] [SERVER]\n"
		"  (no SERVER: be the server; see the comment at the top of xfer.c)\n", p);
}

int main(int argc, char **argv)
{
	struct ctx c = { .size = 4 << 20, .timeout_s = 120, .sock = -1 };
	struct opts o = { .nops = 300, .maxlen = 1 << 20, .batch = 8, .mask = 7 };
	const char *dev = NULL, *port = "18600", *peer;
	struct conn_info me;
	int ib_port = 1, gidx = 0, opt, seeded = 0, rc;
	uint32_t pp = 0;
	uint64_t seed = 0;
	struct timespec ts;

	while ((opt = getopt(argc, argv, "d:i:g:p:n:S:m:B:b:o:eT:U:vL:h")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'i': ib_port = atoi(optarg); break;
		case 'g': gidx = atoi(optarg); break;
		case 'p': port = optarg; break;
		case 'n': o.nops = atol(optarg); break;
		case 'S': seed = strtoull(optarg, NULL, 0); seeded = 1; break;
		case 'm': o.maxlen = strtoul(optarg, NULL, 0); break;
		case 'B': c.size = strtoull(optarg, NULL, 0); break;
		case 'b': o.batch = atoi(optarg); break;
		case 'o':
			o.mask = (strchr(optarg, 'w') ? 1 << OP_WRITE : 0) |
				 (strchr(optarg, 'r') ? 1 << OP_READ : 0) |
				 (strchr(optarg, 's') ? 1 << OP_SEND : 0) |
				 (strchr(optarg, 'a') ? 1 << OP_AWRITE : 0);
			break;
		case 'e': c.events = 1; break;
		case 'T': c.timeout_s = atoi(optarg); break;
		case 'U': o.until = optarg; break;
		case 'v': o.verbose = 1; break;
		case 'L': pp = strtoul(optarg, NULL, 0); break;
		default: usage(argv[0]); return 2;
		}
	}
	peer = optind < argc ? argv[optind] : NULL;
	if (o.batch < 1 || o.batch > MAX_BATCH || !o.mask || o.maxlen < 1 ||
	    o.maxlen > c.size || c.size > (1ULL << 31) || 2ULL * pp > c.size) {
		usage(argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!seeded) {
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ getpid();
	}
	c.awrite = peer && o.mask & 1 << OP_AWRITE;
	if (setup(&c, dev, ib_port, gidx, &me))
		return 2;
	c.sock = peer ? tcp_connect(peer, port) : tcp_listen_accept(port);
	if (c.sock < 0)
		return 2;
	/* the client's seed rules (and its buffer size travels to the server) */
	me.seed = seed;
	if (xwrite(c.sock, &me, sizeof(me)) || xread(c.sock, &c.remote, sizeof(c.remote)) ||
	    c.remote.magic != XFER_MAGIC) {
		fprintf(stderr, "xfer: bad exchange with the peer\n");
		return 2;
	}
	c.seed = peer ? seed : c.remote.seed;
	printf("xfer: seed %" PRIu64 " (replay: -S %" PRIu64 "), remote qpn %#x\n",
	       c.seed, c.seed, c.remote.qpn);
	if (peer && o.maxlen > c.remote.size) {
		fprintf(stderr, "xfer: MAXLEN larger than the server's buffer\n");
		return 2;
	}
	if (connect_qp(&c, ib_port, gidx, &me))
		return 2;
	if (pp && post_recv0(&c))
		return 2;
	/* both QPs must be in RTR before the first request arrives */
	{
		char b = 'r';

		if (xwrite(c.sock, &b, 1) || xread(c.sock, &b, 1)) {
			fprintf(stderr, "xfer: sync failed\n");
			return 2;
		}
	}
	rc = pp ? pingpong(&c, !!peer, pp, o.nops) :
	     peer ? client(&c, &o) : server(&c);
	ibv_destroy_qp(c.qp);
	ibv_dereg_mr(c.mr);
	ibv_destroy_cq(c.cq);
	if (c.ch)
		ibv_destroy_comp_channel(c.ch);
	ibv_dealloc_pd(c.pd);
	ibv_close_device(c.ctx);
	free(c.buf);
	free(c.scratch);
	close(c.sock);
	return rc;
}
