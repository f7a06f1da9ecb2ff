// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce-craft: hostile MetaRoCE packets, for the guest's hostile-network
 * test (tests/vm/hostile.sh). Built by `make tools` into build/tests/ with
 * the engine's own wire code (kernel/engine/wire.c compiled in): every
 * packet is a struct mre_pkt written by mre_wire_put(), every plane blob
 * comes from mre_wire_blob_put(), replies are read by mre_wire_parse(), so
 * a change of the wire format in wire.h/wire.c carries over by a rebuild.
 *
 *	mroce-craft [OPTIONS] MODE      (--help for the list)
 *
 * Modes:
 *   connect-flood   --count CONNECTs, each naming a distinct node as plane
 *                   0 of its blob (--node, then the next addresses) with a
 *                   distinct src_cid (--src-cid, +1 each), at --rate
 *   forged-connect  a CONNECT whose blob names --claim (the victim's real
 *                   peer) as plane 0: "I am that node, restarted", with a
 *                   new src_cid
 *   send-rsn        a 64-byte DATA SEND for receive --rsn (1) of
 *                   --dst-stream from --src-stream, at the live TSN: a
 *                   malicious connected peer's out-of-order receive
 *   read-far        a DATA READ_REQ to --cid, rdsn --rdsn (0xfffffffe),
 *                   length 0, at TSN --tsn (or the victim's receive base
 *                   from its debugfs + --tsn-ahead, or random), streams
 *                   --dst-stream / --src-stream (the victim's QPN, its
 *                   peer's QPN), msn --msn (or random); prints how
 *                   long the send took
 *   foreign         DATA WRITE, ACK, PROBE and ACCEPT packets carrying the
 *                   live --cid, round robin, --count in all
 *   garbage         --count datagrams (or as many as --secs allows):
 *                   random bytes and mutated valid packets (random
 *                   connection ids), from --seed
 *   replay          the host fuzzers' corpora (tests/fuzz; make
 *                   fuzz-corpus): the files and folders given with
 *                   --corpus or as more arguments after the mode, folders
 *                   walked in name order. A file's format is --format, or
 *                   the nearest folder of its path named wire, demux or
 *                   conn (else wire): wire (fuzz_wire) one raw datagram
 *                   per file; demux (fuzz_demux) and conn (fuzz_conn)
 *                   records "ctl(1) | len(2, BE) | datagram", read as the
 *                   fuzzers read them. demux ctl: bit 6 puts the live
 *                   connection id (--peers/--peer) into dst_cid, in a
 *                   CONNECT the cookie of the latest RETRY the victim sent
 *                   us (waiting up to --wait-ms for one); bit 4 CE (IP
 *                   ECN); bit 3 to --bcast ADDR (a link-layer broadcast;
 *                   skipped without it); sender 1 (the model's connected
 *                   peer) from --src, senders 2-6 from the --alt-src
 *                   addresses in turn (else --src); skipped: sender 0
 *                   (the receiver itself), sender 7 (IPv6), bit 5
 *                   (multicast group: the victim joins none); bit 7 (the
 *                   model's clock) ignored. conn ctl: bit 0 the live id,
 *                   bit 2 CE, the rest ignored. --count: passes over the
 *                   corpora (default 1). Counts the datagrams the
 *                   engine's own parser (mre_wire_parse) refuses, and the
 *                   CONNECTs sent from an address after a cookie-proven
 *                   one (the victim may accept or challenge those)
 *
 * --cid and --src-cid take 64-bit values (the wire's connection ids). --peers FILE
 * --peer ADDR reads the connection id (and the receive base, "rx gate")
 * of the victim's peer ADDR from the victim's debugfs peers file.
 *
 * --cookie (CONNECT modes): after each CONNECT wait --wait-ms for a reply
 * from the victim and print it; the RETRY of the stateless handshake for
 * the CONNECT's id (reply_cookie()) has its cookie echoed in a second
 * CONNECT from the same address (replies go to the sender's MetaRoCE
 * port: give --sport 4796).
 * --listen-ms N: after sending, read replies for N ms and count them by
 * type.
 *
 * Output: with -v a line per packet; per mode a line
 *   "craft MODE: sent N packets (B bytes) in S s [, details]"
 * (replay: "craft replay: sent N datagrams from F files, skipped S ...")
 * and for replies "craft replies: ...". Exit 0 if everything was sent, 1
 * on a send error, 2 on usage errors.
 */
#include "wire.h"		/* first: the engine's types (no stdbool) */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <getopt.h>
#include <sched.h>
#include <inttypes.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#define PKT_MAX		(MRE_MAX_HDR_LEN + MRE_CONNECT_LEN + MRE_MAX_BLOB + MRE_MAX_PAYLOAD)

static struct {
	const char *mode;
	struct sockaddr_storage dst, src;
	socklen_t dlen;
	int have_src;
	unsigned port, sport;
	unsigned long count;
	double rate;
	uint64_t seed;
	uint64_t cid, src_cid;
	int have_cid, have_src_cid;
	const char *peers, *peer;
	int64_t tsn;		/* -1: from debugfs or random */
	uint32_t tsn_ahead;
	uint32_t path, psn;
	uint32_t dst_stream, src_stream;
	int have_streams;
	uint32_t rdsn;
	uint32_t rsn;
	int64_t msn;		/* read-far's msn; -1: random */
	struct mre_addr node;	/* first flood node */
	int have_node;
	struct mre_addr claim;	/* forged: the node we claim to be */
	int have_claim;
	int cid_from_peers;
	uint32_t tsn_step;
	const char *netns;
	int cookie, wait_ms, listen_ms, verbose;
	double secs;		/* garbage: for this long */
	const char *corpus[256];	/* replay */
	int ncorpus;
	const char *format;
	struct mre_addr alt[16];	/* replay: senders 2-6 */
	int nalt;
	struct mre_addr bcast;
	int have_bcast;
} opt = {
	.port = MRE_DEFAULT_UDP_PORT, .tsn = -1, .msn = -1, .tsn_ahead = 32, .tsn_step = 1,
	.rdsn = 0xfffffffeu, .rsn = 1, .wait_ms = 200,
};

static int sock = -1;
static uint64_t rng;
static unsigned long n_sent, n_bytes, n_err;
static double max_send_s;
static u64 peer_gate;		/* from debugfs */
static int have_gate;

static uint64_t rnd(void)	/* xorshift64* */
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

static uint32_t rnd32_nz(void)
{
	uint32_t v;

	do
		v = (uint32_t)rnd();
	while (!v);
	return v;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int parse_addr(const char *s, struct mre_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a->a) == 1) {
		a->family = MRE_AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->a) == 1) {
		a->family = MRE_AF_INET6;
		return 0;
	}
	return -1;
}

static void sa_of(const struct mre_addr *a, unsigned port,
		  struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == MRE_AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		memcpy(&s->sin_addr, a->a, 4);
		*len = sizeof(*s);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = htons(port);
		memcpy(&s->sin6_addr, a->a, 16);
		*len = sizeof(*s);
	}
}

static struct mre_addr victim;	/* --dst as the engine's address */

static const char *addr_str(const struct mre_addr *a, char *buf, size_t n)
{
	return inet_ntop(a->family == MRE_AF_INET ? AF_INET : AF_INET6, a->a,
			 buf, n) ? buf : "?";
}

/* the next address after @a (a flood's distinct nodes) */
static void addr_inc(struct mre_addr *a)
{
	int i = (int)mre_addr_len(a->family) - 1;

	for (; i >= 0; i--)
		if (++a->a[i])
			break;
}

static void pace(double t0)
{
	double due, t;

	if (opt.rate <= 0)
		return;
	due = t0 + n_sent / opt.rate;
	t = now_s();
	if (due > t) {
		struct timespec ts = { (time_t)(due - t),
				       (long)((due - t - (time_t)(due - t)) * 1e9) };
		nanosleep(&ts, NULL);
	}
}

/* @len bytes through @fd to @to; @ce: with the ECN field CE */
static int send_dgram(int fd, const u8 *b, u32 len, const struct sockaddr_storage *to,
		      socklen_t tlen, int ce)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cb;
	struct iovec iov = { .iov_base = (void *)b, .iov_len = len };
	struct msghdr m = { .msg_name = (void *)to, .msg_namelen = tlen,
			    .msg_iov = &iov, .msg_iovlen = 1 };
	double t = now_s(), d;
	ssize_t r;

	if (ce) {		/* ECN CE (3) in the TOS / traffic class */
		struct cmsghdr *c;
		int v = 3;

		memset(&cb, 0, sizeof(cb));
		m.msg_control = cb.buf;
		m.msg_controllen = sizeof(cb.buf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = to->ss_family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
		c->cmsg_type = to->ss_family == AF_INET ? IP_TOS : IPV6_TCLASS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &v, sizeof(v));
	}
	r = sendmsg(fd, &m, 0);

	d = now_s() - t;
	if (d > max_send_s)
		max_send_s = d;
	if (r != (ssize_t)len) {
		/* ENOBUFS/EAGAIN under a flood: count, go on */
		if (n_err++ < 5)
			fprintf(stderr, "craft: sendto: %s\n", strerror(errno));
		return -1;
	}
	n_sent++;
	n_bytes += len;
	return 0;
}

static int send_buf(const u8 *b, u32 len)
{
	return send_dgram(sock, b, len, &opt.dst, opt.dlen, 0);
}

/* a packet through the engine's builder, plus @plen payload bytes */
static int send_pkt(const struct mre_pkt *p, u32 plen)
{
	u8 b[PKT_MAX];
	u32 hl = mre_wire_put(b, p), i;
	struct mre_pkt chk;

	for (i = 0; i < plen; i++)
		b[hl + i] = (u8)rnd();
	if (opt.verbose) {
		enum mre_parse_err e = mre_wire_parse(b, hl + plen, &chk);

		printf("  %s", mre_wire_type_name(p->type));
		if (p->type == MRE_T_DATA)
			printf(" %s tsn %u streams %u<-%u", mre_wire_op_name(p->data.op),
			       p->data.tsn, p->data.dst_stream, p->data.src_stream);
		if (p->type == MRE_T_CONNECT || p->type == MRE_T_ACCEPT)
			printf(" src_cid %#" PRIx64 " blob %u B",
			       (uint64_t)p->connect.src_cid, p->connect.blob_len);
		printf(" dst_cid %#" PRIx64 " path %u psn %u: %u bytes%s\n",
		       (uint64_t)p->dst_cid, p->path, p->psn, hl + plen,
		       e ? " (does not parse!)" : "");
	}
	return send_buf(b, hl + plen);
}

/* --- replies ----------------------------------------------------------------- */

static unsigned long rep_type[MRE_T_MAX + 1], rep_bad, rep_n;

static int recv_reply(int ms, u8 *b, u32 *len, struct mre_pkt *p)
{
	struct pollfd pf = { .fd = sock, .events = POLLIN };
	ssize_t r;

	if (poll(&pf, 1, ms) <= 0)
		return -1;
	r = recv(sock, b, PKT_MAX, 0);
	if (r < 0)
		return -1;
	*len = (u32)r;
	rep_n++;
	if (mre_wire_parse(b, *len, p) != MRE_PARSE_OK) {
		rep_bad++;
		return 1;
	}
	rep_type[p->type < MRE_T_MAX ? p->type : MRE_T_MAX]++;
	return 0;
}

/*
 * The cookie of a reply to our CONNECT, if it carries one: a RETRY for our
 * CONNECT's id (protocol.md 5.1). Its cookie goes into @c, so that the
 * caller sends the CONNECT again from the same address with it echoed: a
 * CONNECT that has proven the attacker's own address.
 */
static bool reply_cookie(const struct mre_pkt *reply, struct mre_pkt *c)
{
	if (reply->type != MRE_T_RETRY || reply->dst_cid != c->connect.src_cid)
		return false;
	c->connect.cookie = reply->retry.cookie;
	return true;
}

static void wait_reply(struct mre_pkt *c)
{
	double end = now_s() + opt.wait_ms / 1000.0;
	u8 b[PKT_MAX];
	struct mre_pkt r;
	u32 len;
	int e;

	/* replies to earlier CONNECTs (an ACCEPT, a challenge) may come first */
	do {
		e = recv_reply((int)MRE_MAX(1.0, (end - now_s()) * 1000), b, &len, &r);
	} while (e == 0 && !(r.type == MRE_T_RETRY &&
			     r.dst_cid == c->connect.src_cid) && now_s() < end);
	if (e < 0) {
		printf("  reply: none in %d ms\n", opt.wait_ms);
		return;
	}
	if (e > 0) {
		printf("  reply: %u bytes, type %u, not parsed by wire format %d\n",
		       len, len ? b[0] & 0xf : 0, MRE_WIRE_VERSION);
		return;
	}
	printf("  reply: %s dst_cid %#" PRIx64 "\n", mre_wire_type_name(r.type),
	       (uint64_t)r.dst_cid);
	if (reply_cookie(&r, c)) {
		printf("  reply carries a cookie: CONNECT again with it\n");
		send_pkt(c, 0);
	}
}

static void listen_replies(void)
{
	u8 b[PKT_MAX];
	struct mre_pkt r;
	u32 len;
	double end = now_s() + opt.listen_ms / 1e3;
	int t;

	if (!opt.listen_ms)
		return;
	while (now_s() < end)
		recv_reply((int)((end - now_s()) * 1e3) + 1, b, &len, &r);
	printf("craft replies: %lu in %d ms:", rep_n, opt.listen_ms);
	for (t = 1; t <= MRE_T_MAX; t++)
		if (rep_type[t])
			printf(" %s %lu", t < MRE_T_MAX ? mre_wire_type_name((u8)t) : "other",
			       rep_type[t]);
	printf(" unparsed %lu\n", rep_bad);
}

/* --- the victim's debugfs ------------------------------------------------------ */

/*
 * "peer ADDR from ADDR cid CID remote CID STATE streams N" and, on the
 * next line, "... rx gate BASE" (kernel/debugfs.c).
 */
static int peers_fd = -1;

static void read_peers(void)
{
	static char buf[1 << 20];
	char line[512], a[128], *pos = buf, *nl;
	ssize_t n, len = 0;
	int in = 0;

	/* the file stays open: re-read just before a packet that needs it */
	if (peers_fd < 0)
		peers_fd = open(opt.peers, O_RDONLY);
	if (peers_fd < 0 || lseek(peers_fd, 0, SEEK_SET) < 0) {
		fprintf(stderr, "craft: %s: %s\n", opt.peers, strerror(errno));
		exit(2);
	}
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(peers_fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	buf[len] = 0;
	have_gate = 0;
	for (; *pos; pos = nl ? nl + 1 : pos + strlen(pos)) {
		char *g;

		nl = strchr(pos, '\n');
		snprintf(line, sizeof(line), "%.*s", nl ? (int)(nl - pos) : (int)strlen(pos), pos);

		if (!strncmp(line, "peer ", 5)) {
			char *c = strstr(line, " cid ");

			in = sscanf(line, "peer %127s", a) == 1 &&
			     !strcmp(a, opt.peer) && c;
			if (in && (!opt.have_cid || opt.cid_from_peers)) {
				opt.cid = strtoull(c + 5, NULL, 0);
				opt.have_cid = 1;
				opt.cid_from_peers = 1;
			}
			continue;
		}
		if (in && (g = strstr(line, "rx gate "))) {
			peer_gate = strtoull(g + 8, NULL, 0);
			have_gate = 1;
			break;
		}
	}
	if (!opt.have_cid) {
		fprintf(stderr, "craft: no peer %s in %s\n", opt.peer, opt.peers);
		exit(2);
	}
}

static u32 pick_tsn(void)
{
	if (opt.tsn >= 0)
		return (u32)opt.tsn;
	if (opt.peers)
		read_peers();		/* the victim's receive base now */
	if (have_gate)
		return (u32)(peer_gate + opt.tsn_ahead);
	return (u32)rnd();
}

/* --- modes --------------------------------------------------------------------- */

static void connect_pkt(struct mre_pkt *p, u8 *blob, const struct mre_addr *node,
			uint64_t src_cid)
{
	memset(p, 0, sizeof(*p));
	p->type = MRE_T_CONNECT;
	p->path = 0;
	p->connect.src_cid = src_cid;
	p->connect.isn = (u32)rnd();
	p->connect.window_log2 = 10;
	p->connect.npaths = 8;
	p->connect.blob_len = (u16)mre_wire_blob_put(blob, victim.family, 1, node);
	p->connect.blob = blob;
}

static void mode_connect_flood(void)
{
	struct mre_addr node = opt.node;
	uint64_t cid = opt.have_src_cid ? opt.src_cid : rnd32_nz();
	u8 blob[MRE_MAX_BLOB];
	struct mre_pkt p;
	double t0 = now_s();
	char a0[64], a1[64];
	unsigned long i;

	if (!opt.count)
		opt.count = 1000;
	addr_str(&node, a0, sizeof(a0));
	for (i = 0; i < opt.count; i++) {
		if (!cid)
			cid = 1;
		connect_pkt(&p, blob, &node, cid);
		pace(t0);
		send_pkt(&p, 0);
		if (opt.cookie)
			wait_reply(&p);
		if (i + 1 < opt.count) {
			addr_inc(&node);
			cid++;
		}
	}
	printf("craft connect-flood: sent %lu CONNECTs (%lu bytes) in %.2f s, nodes %s .. %s, src_cid %#" PRIx64 " .. %#" PRIx64 ", %lu send errors\n",
	       n_sent, n_bytes, now_s() - t0, a0, addr_str(&node, a1, sizeof(a1)),
	       cid - (opt.count - 1), cid, n_err);
}

static void mode_forged_connect(void)
{
	uint64_t cid = opt.have_src_cid ? opt.src_cid : rnd32_nz();
	u8 blob[MRE_MAX_BLOB];
	struct mre_pkt p;
	double t0 = now_s();
	char a[64];
	unsigned long i;

	if (!opt.have_claim) {
		fprintf(stderr, "craft: forged-connect needs --claim ADDR\n");
		exit(2);
	}
	if (!opt.count)
		opt.count = 1;
	for (i = 0; i < opt.count; i++) {
		connect_pkt(&p, blob, &opt.claim, cid + i);
		send_pkt(&p, 0);
		if (opt.cookie)
			wait_reply(&p);
	}
	printf("craft forged-connect: sent %lu CONNECTs (%lu bytes) in %.2f s claiming plane 0 = %s, src_cid %#" PRIx64 ", isn %u, %lu send errors\n",
	       n_sent, n_bytes, now_s() - t0, addr_str(&opt.claim, a, sizeof(a)),
	       cid, p.connect.isn, n_err);
}

static void data_pkt(struct mre_pkt *p, u8 op, u32 tsn)
{
	memset(p, 0, sizeof(*p));
	p->type = MRE_T_DATA;
	p->flags = MRE_F_ACK_REQ;
	p->path = (u16)opt.path;
	p->dst_cid = opt.cid;
	p->psn = opt.psn;
	p->data.tsn = tsn;
	p->data.path_una = opt.psn;
	p->data.dst_stream = opt.have_streams ? opt.dst_stream : (u32)rnd();
	p->data.src_stream = opt.have_streams ? opt.src_stream : (u32)rnd();
	p->data.msn = (u32)rnd();
	p->data.op = op;
	p->data.dflags = MRE_DF_FIRST | MRE_DF_LAST;
}

static void need_cid(void)
{
	if (!opt.have_cid) {
		fprintf(stderr, "craft: %s needs --cid or --peers/--peer\n", opt.mode);
		exit(2);
	}
}

static void mode_read_far(void)
{
	struct mre_pkt p;
	double t0 = now_s();
	unsigned long i;
	u32 tsn = 0, tsn0 = 0;

	need_cid();
	if (!opt.count)
		opt.count = 1;
	for (i = 0; i < opt.count; i++) {
		tsn = pick_tsn() + (u32)i * opt.tsn_step;
		data_pkt(&p, MRE_OP_READ_REQ, tsn);
		p.data.rdsn = opt.rdsn + (u32)i;
		p.data.rkey = (u32)rnd();
		p.data.raddr = 0;
		p.data.mlen = 0;
		if (opt.msn >= 0)
			p.data.msn = (u32)opt.msn;
		if (!i)
			tsn0 = tsn;
		send_pkt(&p, 0);
	}
	printf("craft read-far: sent %lu READ_REQs (%lu bytes) in %.2f s: dst_cid %#" PRIx64 " tsn %u%s streams %u<-%u msn %u rdsn %#x len 0 path %u psn %u; longest send %.3f s, %lu send errors\n",
	       n_sent, n_bytes, now_s() - t0, opt.cid, tsn0,
	       opt.tsn < 0 && have_gate ? " (rx gate + ahead)" : "",
	       p.data.dst_stream, p.data.src_stream, p.data.msn, opt.rdsn,
	       opt.path, opt.psn,
	       max_send_s, n_err);
}

/*
 * A 64-byte SEND for receive --rsn (default 1) of --dst-stream from
 * --src-stream at the live TSN: what a malicious connected peer sends to
 * make a receive out of order (from the peer's own address: --src).
 */
static void mode_send_rsn(void)
{
	struct mre_pkt p;

	need_cid();
	data_pkt(&p, MRE_OP_SEND, pick_tsn());
	p.data.dflags = MRE_DF_FIRST | MRE_DF_LAST | MRE_DF_RECV;
	p.data.msn = 0;
	p.data.rsn = opt.rsn;
	p.data.mlen = 64;
	p.data.plen = 64;
	send_pkt(&p, 64);
	printf("craft send-rsn: sent %lu SEND (%lu bytes): dst_cid %#" PRIx64 " tsn %u streams %u<-%u rsn %u, %lu send errors\n",
	       n_sent, n_bytes, opt.cid, p.data.tsn, p.data.dst_stream,
	       p.data.src_stream, opt.rsn, n_err);
}

static void mode_foreign(void)
{
	static const u8 kinds[] = { MRE_T_DATA, MRE_T_ACK, MRE_T_PROBE, MRE_T_ACCEPT };
	unsigned long per[4] = { 0 }, i;
	u8 blob[MRE_MAX_BLOB];
	struct mre_addr me;
	struct mre_pkt p;
	double t0 = now_s();
	u32 tsn0 = 0;

	need_cid();
	if (!opt.count)
		opt.count = 40;
	memset(&me, 0, sizeof(me));
	if (opt.have_src) {
		if (victim.family == MRE_AF_INET)
			memcpy(me.a, &((struct sockaddr_in *)&opt.src)->sin_addr, 4);
		else
			memcpy(me.a, &((struct sockaddr_in6 *)&opt.src)->sin6_addr, 16);
		me.family = victim.family;
	}
	for (i = 0; i < opt.count; i++) {
		u8 k = kinds[i % 4];

		switch (k) {
		case MRE_T_DATA:	/* a 64-byte WRITE at the live TSN */
			data_pkt(&p, MRE_OP_WRITE, pick_tsn());
			if (!i)
				tsn0 = p.data.tsn;
			p.data.rkey = (u32)rnd();
			p.data.raddr = rnd() & 0xffffffffull;
			p.data.mlen = 64;
			p.data.plen = 64;
			send_pkt(&p, 64);
			break;
		case MRE_T_ACK:
			memset(&p, 0, sizeof(p));
			p.type = MRE_T_ACK;
			p.path = (u16)opt.path;
			p.dst_cid = opt.cid;
			p.ack.ack_path = (u16)opt.path;
			p.ack.psn_cum = opt.psn;
			p.ack.tsn_cum = (u32)rnd();
			send_pkt(&p, 0);
			break;
		case MRE_T_PROBE:
			memset(&p, 0, sizeof(p));
			p.type = MRE_T_PROBE;
			p.flags = MRE_F_ACK_REQ;
			p.path = (u16)opt.path;
			p.dst_cid = opt.cid;
			p.psn = opt.psn;
			p.probe.path_una = opt.psn;
			send_pkt(&p, 0);
			break;
		case MRE_T_ACCEPT:	/* naming ourselves as the peer's plane 0 */
			connect_pkt(&p, blob, me.family ? &me : &victim, rnd32_nz());
			p.type = MRE_T_ACCEPT;
			p.dst_cid = opt.cid;
			send_pkt(&p, 0);
			break;
		}
		per[i % 4]++;
	}
	printf("craft foreign: sent %lu packets (%lu bytes) in %.2f s to dst_cid %#" PRIx64 ": WRITE %lu (first at tsn %u%s) ACK %lu PROBE %lu ACCEPT %lu, %lu send errors\n",
	       n_sent, n_bytes, now_s() - t0, opt.cid, per[0], tsn0,
	       opt.tsn < 0 && have_gate ? ", rx gate + ahead" : "", per[1],
	       per[2], per[3], n_err);
}

/* a valid packet of a random kind with a random connection id */
static u32 template(u8 *b)
{
	static const u8 ops[] = { MRE_OP_SEND, MRE_OP_WRITE, MRE_OP_READ_REQ,
				  MRE_OP_READ_RESP, MRE_OP_ATOMIC_REQ, MRE_OP_NAK };
	struct mre_pkt p;
	u32 plen = 0, hl;

	memset(&p, 0, sizeof(p));
	p.path = (u16)(rnd() % 8);
	p.psn = (u32)rnd();
	p.ts = (u32)rnd();
	p.dst_cid = rnd32_nz();
	switch (rnd() % 5) {
	case 0: case 1:
		p.type = MRE_T_DATA;
		p.data.op = ops[rnd() % sizeof(ops)];
		p.data.tsn = (u32)rnd();
		p.data.dst_stream = (u32)rnd();
		p.data.src_stream = (u32)rnd();
		p.data.dflags = MRE_DF_FIRST | MRE_DF_LAST;
		p.data.rkey = (u32)rnd();
		switch (p.data.op) {
		case MRE_OP_SEND:
			p.data.dflags |= MRE_DF_RECV;
			/* fall through */
		case MRE_OP_WRITE:
		case MRE_OP_READ_RESP:
			plen = (u32)(rnd() % 256);
			p.data.mlen = plen;
			break;
		case MRE_OP_READ_REQ:
			p.data.mlen = (u32)(rnd() % 65536);
			break;
		case MRE_OP_ATOMIC_REQ:
			p.data.aop = MRE_AOP_FETCH_ADD;
			p.data.mlen = 8;
			break;
		case MRE_OP_NAK:
			p.data.syndrome = MRE_SYN_REM_ACCESS;
			break;
		}
		p.data.plen = (u16)plen;
		break;
	case 2:
		p.type = MRE_T_ACK;
		p.ack.ack_path = p.path;
		p.ack.psn_cum = (u32)rnd();
		p.ack.tsn_cum = (u32)rnd();
		break;
	case 3:
		p.type = MRE_T_PROBE;
		break;
	default:
		p.type = MRE_T_RESET;
		p.dst_cid = 0;
		p.reset.cid = rnd32_nz();
		break;
	}
	hl = mre_wire_put(b, &p);
	for (u32 i = 0; i < plen; i++)
		b[hl + i] = (u8)rnd();
	return hl + plen;
}

static void mode_garbage(void)
{
	unsigned long n_rand = 0, n_mut = 0, n_valid = 0, i;
	double t0 = now_s();
	struct mre_pkt chk;
	u8 b[PKT_MAX];

	if (!opt.count && opt.secs <= 0)
		opt.count = 1000;
	for (i = 0; (!opt.count || i < opt.count) &&
		    (opt.secs <= 0 || now_s() - t0 < opt.secs); i++) {
		u32 len, k, j;
		int valid;

		if (rnd() % 4 == 0) {		/* random bytes, 0..199 */
			len = (u32)(rnd() % 200);
			for (j = 0; j < len; j++)
				b[j] = (u8)rnd();
			n_rand++;
		} else {			/* a valid packet, mutated */
			len = template(b);
			switch (rnd() % 3) {
			case 0:			/* 1..4 random bytes */
				for (k = 1 + rnd() % 4; k; k--)
					b[rnd() % len] = (u8)rnd();
				break;
			case 1:			/* cut short */
				len = (u32)(rnd() % len);
				break;
			default:		/* a bit flipped, or longer */
				if (rnd() & 1)
					b[rnd() % len] ^= (u8)(1u << (rnd() % 8));
				else
					for (k = 1 + rnd() % 16; k; k--)
						b[len++] = (u8)rnd();
			}
			n_mut++;
		}
		valid = mre_wire_parse(b, len, &chk) == MRE_PARSE_OK;
		pace(t0);
		if (!send_buf(b, len) && valid)
			n_valid++;
	}
	printf("craft garbage: sent %lu datagrams (%lu bytes) in %.2f s, seed %#" PRIx64 ": %lu random, %lu mutated, %lu of them still parse (random ids), the engine's parser refuses %lu, %lu send errors\n",
	       n_sent, n_bytes, now_s() - t0, opt.seed, n_rand, n_mut, n_valid,
	       n_sent - n_valid, n_err);
}

/* --- replay: the fuzzers' corpora ------------------------------------------------ */

#define RP_MAX	(MRE_MAX_HDR_LEN + 16 + MRE_MAX_PAYLOAD + MRE_MAX_BLOB)	/* fuzz_demux's PKT_MAX */
#define RP_FILE_MAX	(4u << 20)

enum { RF_WIRE, RF_DEMUX, RF_CONN };
static const char *const rf_name[] = { "wire", "demux", "conn" };

static struct {
	int fd[1 + 16];			/* [0]: --src (sock), then --alt-src */
	int proven[1 + 16];		/* sent a CONNECT with a fresh cookie */
	u64 cookie;			/* the latest RETRY's */
	int fresh;			/* ... not used yet */
	double t0;
	unsigned long files, recs[3], skip_self, skip_v6, skip_group, skip_bcast,
		skip_long, skip_read, cid_put, no_cid, cookie_put, cookie_fresh,
		bcast, ce, alt, refused, after_proof, retries;
} rp;

/* replies to @fd: remember the cookie of a RETRY; wait up to @ms for one */
static void rp_drain(int fd, int ms)
{
	double end = now_s() + ms / 1e3;
	u8 b[PKT_MAX];
	struct mre_pkt r;

	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		int left = (int)((end - now_s()) * 1e3);
		ssize_t n;

		if (poll(&pf, 1, left > 0 ? left : 0) <= 0)
			return;
		n = recv(fd, b, sizeof(b), MSG_DONTWAIT);
		if (n < 0)
			return;
		if (mre_wire_parse(b, (u32)n, &r) == MRE_PARSE_OK &&
		    r.type == MRE_T_RETRY) {
			rp.cookie = r.retry.cookie;
			rp.fresh = 1;
			rp.retries++;
			if (ms)
				return;
		}
	}
}

static int rp_live_cid(u64 *cid)
{
	if (!opt.peers)
		return -1;
	read_peers();		/* the victim's connection with --peer now */
	*cid = opt.cid;
	return 0;
}

/* one datagram of the corpus, with the fuzzer's ctl applied */
static void rp_send(int fmt, u8 ctl, u8 *b, u32 len)
{
	const struct sockaddr_storage *to = &opt.dst;
	socklen_t tlen = opt.dlen;
	static struct sockaddr_storage bc;
	static socklen_t bclen;
	struct mre_pkt p;
	int k = 0, ce = 0, put_id = 0;
	u64 cid;

	if (len > 65507) {
		rp.skip_long++;
		return;
	}
	if (fmt == RF_DEMUX) {
		u8 sel = ctl & 7;

		if (sel == 0) {		/* the receiver's own address */
			rp.skip_self++;
			return;
		}
		if (sel == 7) {		/* an IPv6 sender */
			rp.skip_v6++;
			return;
		}
		if (ctl & 0x20) {	/* to a multicast group */
			rp.skip_group++;
			return;
		}
		if (ctl & 8) {		/* a link-layer broadcast */
			if (!opt.have_bcast) {
				rp.skip_bcast++;
				return;
			}
			if (!bclen)
				sa_of(&opt.bcast, opt.port, &bc, &bclen);
			to = &bc;
			tlen = bclen;
			rp.bcast++;
		}
		if (sel >= 2 && opt.nalt) {
			k = 1 + (sel - 2) % opt.nalt;
			rp.alt++;
		}
		ce = !!(ctl & 0x10);
		if (ctl & 0x40 && len >= MRE_CONNECT_LEN &&
		    (b[0] & 0xf) == MRE_T_CONNECT) {
			rp_drain(rp.fd[k], 0);
			if (!rp.fresh)
				rp_drain(rp.fd[k], opt.wait_ms);
			put_be64(b + MRE_COMMON_LEN + 20, rp.cookie);
			rp.cookie_put++;
			if (rp.fresh) {
				rp.cookie_fresh++;
				rp.proven[k] = 1;
			}
			rp.fresh = 0;
		} else if (ctl & 0x40 && len >= 12) {
			put_id = 1;
		}
	} else if (fmt == RF_CONN) {
		ce = !!(ctl & 4);
		put_id = ctl & 1 && len >= 12;
	}
	if (put_id) {
		if (!rp_live_cid(&cid)) {
			put_be64(b + 4, cid);
			rp.cid_put++;
		} else {
			rp.no_cid++;
		}
	}
	rp.ce += ce;
	if (mre_wire_parse(b, len, &p) != MRE_PARSE_OK)
		p.type = 0;		/* (no type is 0) */
	if (opt.verbose)
		printf("  %s ctl %#x: %u bytes%s%s%s\n", rf_name[fmt], ctl, len,
		       p.type ? " " : " (the parser refuses it)",
		       p.type ? mre_wire_type_name(p.type) : "", k ? " (alt src)" : "");
	pace(rp.t0);
	if (send_dgram(rp.fd[k], b, len, to, tlen, ce))
		return;
	if (!p.type)
		rp.refused++;
	if (p.type == MRE_T_CONNECT && rp.proven[k])
		rp.after_proof++;
	rp_drain(rp.fd[k], 0);
}

static int rp_format(const char *path)
{
	char buf[4096], *c, *e;

	if (opt.format) {
		for (int f = 0; f < 3; f++)
			if (!strcmp(opt.format, rf_name[f]))
				return f;
		fprintf(stderr, "craft: --format wire|demux|conn\n");
		exit(2);
	}
	/* the nearest folder named wire, demux or conn */
	snprintf(buf, sizeof(buf), "%s", path);
	while ((c = strrchr(buf, '/'))) {
		*c = 0;
		e = strrchr(buf, '/');
		e = e ? e + 1 : buf;
		for (int f = 0; f < 3; f++)
			if (!strcmp(e, rf_name[f]))
				return f;
	}
	return RF_WIRE;
}

static void rp_file(const char *path)
{
	static u8 data[RP_FILE_MAX], pkt[65536];
	int fmt = rp_format(path);
	size_t size = 0, off = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		fprintf(stderr, "craft: %s: %s\n", path, strerror(errno));
		rp.skip_read++;
		return;
	}
	while (size < sizeof(data) && (n = read(fd, data + size, sizeof(data) - size)) > 0)
		size += (size_t)n;
	close(fd);
	rp.files++;
	if (fmt == RF_WIRE) {
		if (size > sizeof(pkt)) {
			rp.skip_long++;
			return;
		}
		memcpy(pkt, data, size);
		rp.recs[fmt]++;
		rp_send(fmt, 0, pkt, (u32)size);
		return;
	}
	/* the records, as fuzz_demux and fuzz_conn read them */
	while (off + 3 <= size) {
		u8 ctl = data[off];
		u32 len = (u32)data[off + 1] << 8 | data[off + 2];

		off += 3;
		if (len > size - off)
			len = (u32)(size - off);
		len = MRE_MIN(len, (u32)RP_MAX);
		memcpy(pkt, data + off, len);
		off += len;
		rp.recs[fmt]++;
		rp_send(fmt, ctl, pkt, len);
	}
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void rp_path(const char *path, int depth)
{
	struct dirent **ents;
	struct stat st;
	int n, i;

	if (stat(path, &st)) {
		fprintf(stderr, "craft: %s: %s\n", path, strerror(errno));
		rp.skip_read++;
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		rp_file(path);
		return;
	}
	if (depth > 8 || (n = scandir(path, &ents, NULL, name_cmp)) < 0)
		return;
	for (i = 0; i < n; i++) {
		char sub[4096];

		if (ents[i]->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", path, ents[i]->d_name);
			rp_path(sub, depth + 1);
		}
		free(ents[i]);
	}
	free(ents);
}

static void mode_replay(void)
{
	double t0 = now_s();
	unsigned long pass, skipped;
	int i;

	if (!opt.ncorpus) {
		fprintf(stderr, "craft: replay needs --corpus PATH or paths after the mode\n");
		exit(2);
	}
	rp.fd[0] = sock;
	for (i = 0; i < opt.nalt; i++) {
		struct sockaddr_storage ss;
		socklen_t sl;

		if (opt.alt[i].family != victim.family) {
			fprintf(stderr, "craft: --alt-src of another family than --dst\n");
			exit(2);
		}
		rp.fd[1 + i] = socket(victim.family == MRE_AF_INET ? AF_INET : AF_INET6,
				      SOCK_DGRAM, 0);
		sa_of(&opt.alt[i], opt.sport, &ss, &sl);
		if (rp.fd[1 + i] < 0 || bind(rp.fd[1 + i], (struct sockaddr *)&ss, sl)) {
			perror("craft: --alt-src bind");
			exit(2);
		}
	}
	if (opt.have_bcast) {
		int one = 1;

		if (opt.bcast.family != victim.family) {
			fprintf(stderr, "craft: --bcast of another family than --dst\n");
			exit(2);
		}

		for (i = 0; i <= opt.nalt; i++)
			setsockopt(rp.fd[i], SOL_SOCKET, SO_BROADCAST, &one, sizeof(one));
	}
	if (!opt.count)
		opt.count = 1;
	rp.t0 = t0;
	for (pass = 0; pass < opt.count; pass++)
		for (i = 0; i < opt.ncorpus; i++)
			rp_path(opt.corpus[i], 0);
	skipped = rp.skip_self + rp.skip_v6 + rp.skip_group + rp.skip_bcast + rp.skip_long;
	printf("craft replay: sent %lu datagrams from %lu files, skipped %lu (%lu bytes in %.2f s; records wire %lu demux %lu conn %lu; the engine's parser refuses %lu; live id put %lu%s, cookie put %lu (fresh %lu, RETRYs seen %lu), CONNECTs after a proven one %lu; broadcast %lu, CE %lu, from --alt-src %lu; skipped: sender self %lu, IPv6 %lu, group %lu, broadcast %lu, too long %lu, unreadable %lu), %lu send errors\n",
	       n_sent, rp.files, skipped, n_bytes, now_s() - t0, rp.recs[RF_WIRE],
	       rp.recs[RF_DEMUX], rp.recs[RF_CONN], rp.refused, rp.cid_put,
	       rp.no_cid ? " (no --peers: some left as they were)" : "", rp.cookie_put,
	       rp.cookie_fresh, rp.retries, rp.after_proof, rp.bcast, rp.ce, rp.alt,
	       rp.skip_self, rp.skip_v6, rp.skip_group, rp.skip_bcast, rp.skip_long,
	       rp.skip_read, n_err);
}

/* --- main ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
"usage: mroce-craft --dst ADDR [options] MODE\n"
"       mroce-craft --dst ADDR [options] replay [PATH...]\n"
"modes: connect-flood forged-connect read-far send-rsn foreign garbage replay\n"
"  --dst ADDR          victim (IPv4 or IPv6)\n"
"  --port N            victim's MetaRoCE UDP port (default %u, module param udp_port)\n"
"  --src ADDR          send from this address (the attacker's own)\n"
"  --sport N           from this UDP port (default: any)\n"
"  --netns NAME        send from network namespace NAME (/run/netns/NAME),\n"
"                      entered after --peers is opened: the victim's\n"
"                      debugfs is read in the caller's namespaces, again\n"
"                      right before each packet that takes its TSN\n"
"  --count N           packets (defaults: flood 1000, forged 1, read-far 1,\n"
"                      foreign 40, garbage 1000)\n"
"  --rate PPS          packets a second (default: as fast as possible)\n"
"  --seed N            random seed (default: from the clock; printed)\n"
"  --cid CID           the victim's connection id (dst_cid; 64-bit value)\n"
"  --src-cid CID       src_cid of the (first) CONNECT (default random)\n"
"  --peers FILE --peer ADDR\n"
"                      the cid and rx gate of peer ADDR in the victim's\n"
"                      debugfs peers file (/sys/kernel/debug/mroce/DEV/peers)\n"
"  --tsn N             DATA TSN (default: rx gate + --tsn-ahead, else random)\n"
"  --tsn-ahead N       (default 32)\n"
"  --tsn-step N        read-far: TSN step between its packets (default 1)\n"
"  --path N --psn N    path and PSN of DATA/ACK/PROBE (default 0 0)\n"
"  --dst-stream N --src-stream N\n"
"                      the victim's QPN and its peer's (default random)\n"
"  --rdsn N            read-far's rdsn (default 0xfffffffe)\n"
"  --rsn N             send-rsn's receive sequence number (default 1)\n"
"  --msn N             read-far's message number (default random)\n"
"  --node ADDR         connect-flood: first node named (default 10.66.0.1 / fd66::1)\n"
"  --claim ADDR        forged-connect: the node to claim to be (plane 0)\n"
"  --cookie            after each CONNECT wait --wait-ms (200) for a reply;\n"
"                      echo a cookie it carries (RETRY) in a second CONNECT\n"
"  --listen-ms N       after sending, count replies for N ms\n"
"  --secs S            garbage: send for S seconds (with --count: whichever\n"
"                      ends first)\n"
"  --corpus PATH       replay: a corpus file or folder (repeatable; or PATHs\n"
"                      after the mode); --count N: passes over them (1)\n"
"  --format F          replay: wire | demux | conn for every file (default:\n"
"                      by the nearest folder so named, else wire)\n"
"  --alt-src ADDR      replay: fuzz_demux senders 2-6 from these addresses\n"
"                      in turn (repeatable, 16 at most; default --src)\n"
"  --bcast ADDR        replay: where fuzz_demux's broadcast records go\n"
"                      (skipped without it)\n"
"  -v                  a line per packet\n", MRE_DEFAULT_UDP_PORT);
}

static uint64_t num(const char *s)
{
	char *e;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &e, 0);
	if (errno || *e || !*s) {
		fprintf(stderr, "craft: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void addr_opt(const char *s, struct mre_addr *a)
{
	if (parse_addr(s, a)) {
		fprintf(stderr, "craft: bad address '%s'\n", s);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	enum { OPT_DST = 256, OPT_PORT, OPT_SRC, OPT_SPORT, OPT_COUNT, OPT_RATE, OPT_SEED,
	       OPT_CID, OPT_SCID, OPT_PEERS, OPT_PEER, OPT_TSN, OPT_AHEAD, OPT_PATH, OPT_PSN,
	       OPT_DSTR, OPT_SSTR, OPT_RDSN, OPT_RSN, OPT_NODE, OPT_CLAIM, OPT_COOKIE, OPT_WAIT,
	       OPT_LISTEN, OPT_STEP, OPT_NETNS, OPT_MSN, OPT_SECS, OPT_CORPUS, OPT_FORMAT,
	       OPT_ALT, OPT_BCAST };
	static const struct option lo[] = {
		{ "dst", 1, 0, OPT_DST }, { "port", 1, 0, OPT_PORT },
		{ "src", 1, 0, OPT_SRC }, { "sport", 1, 0, OPT_SPORT },
		{ "count", 1, 0, OPT_COUNT }, { "rate", 1, 0, OPT_RATE },
		{ "seed", 1, 0, OPT_SEED }, { "cid", 1, 0, OPT_CID },
		{ "src-cid", 1, 0, OPT_SCID }, { "peers", 1, 0, OPT_PEERS },
		{ "peer", 1, 0, OPT_PEER }, { "tsn", 1, 0, OPT_TSN },
		{ "tsn-ahead", 1, 0, OPT_AHEAD }, { "path", 1, 0, OPT_PATH },
		{ "psn", 1, 0, OPT_PSN }, { "dst-stream", 1, 0, OPT_DSTR },
		{ "src-stream", 1, 0, OPT_SSTR }, { "rdsn", 1, 0, OPT_RDSN }, { "rsn", 1, 0, OPT_RSN },
		{ "msn", 1, 0, OPT_MSN },
		{ "node", 1, 0, OPT_NODE }, { "claim", 1, 0, OPT_CLAIM },
		{ "cookie", 0, 0, OPT_COOKIE }, { "wait-ms", 1, 0, OPT_WAIT },
		{ "listen-ms", 1, 0, OPT_LISTEN }, { "tsn-step", 1, 0, OPT_STEP },
		{ "netns", 1, 0, OPT_NETNS }, { "help", 0, 0, 'h' },
		{ "secs", 1, 0, OPT_SECS }, { "corpus", 1, 0, OPT_CORPUS },
		{ "format", 1, 0, OPT_FORMAT }, { "alt-src", 1, 0, OPT_ALT },
		{ "bcast", 1, 0, OPT_BCAST },
		{ 0, 0, 0, 0 },
	};
	struct mre_addr src;
	const char *dst = NULL;
	int o, seeded = 0, have_sstr = 0, have_dstr = 0;
	socklen_t slen;

	while ((o = getopt_long(argc, argv, "vh", lo, NULL)) != -1) {
		switch (o) {
		case OPT_DST: dst = optarg; break;
		case OPT_PORT: opt.port = (unsigned)num(optarg); break;
		case OPT_SRC: addr_opt(optarg, &src); opt.have_src = 1; break;
		case OPT_SPORT: opt.sport = (unsigned)num(optarg); break;
		case OPT_COUNT: opt.count = num(optarg); break;
		case OPT_RATE: opt.rate = atof(optarg); break;
		case OPT_SEED: opt.seed = num(optarg); seeded = 1; break;
		case OPT_CID: opt.cid = num(optarg); opt.have_cid = 1; break;
		case OPT_SCID: opt.src_cid = num(optarg); opt.have_src_cid = 1; break;
		case OPT_PEERS: opt.peers = optarg; break;
		case OPT_PEER: opt.peer = optarg; break;
		case OPT_TSN: opt.tsn = (int64_t)(num(optarg) & 0xffffffffu); break;
		case OPT_AHEAD: opt.tsn_ahead = (uint32_t)num(optarg); break;
		case OPT_PATH: opt.path = (uint32_t)num(optarg); break;
		case OPT_PSN: opt.psn = (uint32_t)num(optarg); break;
		case OPT_DSTR: opt.dst_stream = (uint32_t)num(optarg); have_dstr = 1; break;
		case OPT_SSTR: opt.src_stream = (uint32_t)num(optarg); have_sstr = 1; break;
		case OPT_RDSN: opt.rdsn = (uint32_t)num(optarg); break;
		case OPT_RSN: opt.rsn = (uint32_t)num(optarg); break;
		case OPT_MSN: opt.msn = (int64_t)(num(optarg) & 0xffffffffu); break;
		case OPT_NODE: addr_opt(optarg, &opt.node); opt.have_node = 1; break;
		case OPT_CLAIM: addr_opt(optarg, &opt.claim); opt.have_claim = 1; break;
		case OPT_COOKIE: opt.cookie = 1; break;
		case OPT_WAIT: opt.wait_ms = (int)num(optarg); break;
		case OPT_LISTEN: opt.listen_ms = (int)num(optarg); break;
		case OPT_STEP: opt.tsn_step = (uint32_t)num(optarg); break;
		case OPT_NETNS: opt.netns = optarg; break;
		case OPT_SECS: opt.secs = atof(optarg); break;
		case OPT_CORPUS:
			if (opt.ncorpus == (int)(sizeof(opt.corpus) / sizeof(opt.corpus[0]))) {
				fprintf(stderr, "craft: too many --corpus\n");
				return 2;
			}
			opt.corpus[opt.ncorpus++] = optarg;
			break;
		case OPT_FORMAT: opt.format = optarg; break;
		case OPT_ALT:
			if (opt.nalt == 16) {
				fprintf(stderr, "craft: more than 16 --alt-src\n");
				return 2;
			}
			addr_opt(optarg, &opt.alt[opt.nalt++]);
			break;
		case OPT_BCAST: addr_opt(optarg, &opt.bcast); opt.have_bcast = 1; break;
		case 'v': opt.verbose = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc || !dst ||
	    (optind != argc - 1 && strcmp(argv[optind], "replay"))) {
		usage(stderr);
		return 2;
	}
	opt.mode = argv[optind];
	for (o = optind + 1; o < argc; o++) {	/* replay's paths */
		if (opt.ncorpus == (int)(sizeof(opt.corpus) / sizeof(opt.corpus[0]))) {
			fprintf(stderr, "craft: too many corpus paths\n");
			return 2;
		}
		opt.corpus[opt.ncorpus++] = argv[o];
	}
	opt.have_streams = have_dstr && have_sstr;
	addr_opt(dst, &victim);
	sa_of(&victim, opt.port, &opt.dst, &opt.dlen);
	if (!opt.have_node) {
		parse_addr(victim.family == MRE_AF_INET ? "10.66.0.1" : "fd66::1", &opt.node);
	} else if (opt.node.family != victim.family) {
		fprintf(stderr, "craft: --node of another family than --dst\n");
		return 2;
	}
	if (opt.have_claim && opt.claim.family != victim.family) {
		fprintf(stderr, "craft: --claim of another family than --dst\n");
		return 2;
	}
	if (!seeded)
		opt.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	rng = opt.seed ? opt.seed : 1;
	printf("craft %s: seed %#" PRIx64 ", victim %s port %u\n", opt.mode, opt.seed,
	       dst, opt.port);
	if (opt.peers) {
		if (!opt.peer) {
			fprintf(stderr, "craft: --peers needs --peer ADDR\n");
			return 2;
		}
		read_peers();
		printf("craft %s: victim's peer %s: cid %#" PRIx64 ", rx gate %s%" PRIu64 "\n",
		       opt.mode, opt.peer, opt.cid, have_gate ? "" : "? ",
		       have_gate ? (uint64_t)peer_gate : 0);
	}

	if (opt.netns) {	/* after opening the peers file: sysfs stays ours */
		char path[256];
		int fd;

		snprintf(path, sizeof(path), "/run/netns/%s", opt.netns);
		fd = open(path, O_RDONLY);
		if (fd < 0) {	/* iproute2's NETNS_RUN_DIR */
			snprintf(path, sizeof(path), "/var/run/netns/%s", opt.netns);
			fd = open(path, O_RDONLY);
		}
		if (fd < 0 || setns(fd, CLONE_NEWNET)) {
			fprintf(stderr, "craft: netns %s: %s\n", path, strerror(errno));
			return 2;
		}
		close(fd);
	}
	sock = socket(victim.family == MRE_AF_INET ? AF_INET : AF_INET6, SOCK_DGRAM, 0);
	if (sock < 0) {
		perror("socket");
		return 2;
	}
	if (opt.have_src || opt.sport) {
		struct sockaddr_storage ss;
		struct mre_addr any = { .family = victim.family };

		if (opt.have_src && src.family != victim.family) {
			fprintf(stderr, "craft: --src of another family than --dst\n");
			return 2;
		}
		sa_of(opt.have_src ? &src : &any, opt.sport, &ss, &slen);
		if (bind(sock, (struct sockaddr *)&ss, slen)) {
			perror("bind");
			return 2;
		}
		opt.src = ss;
	}

	if (!strcmp(opt.mode, "connect-flood"))
		mode_connect_flood();
	else if (!strcmp(opt.mode, "forged-connect"))
		mode_forged_connect();
	else if (!strcmp(opt.mode, "read-far"))
		mode_read_far();
	else if (!strcmp(opt.mode, "send-rsn"))
		mode_send_rsn();
	else if (!strcmp(opt.mode, "foreign"))
		mode_foreign();
	else if (!strcmp(opt.mode, "garbage"))
		mode_garbage();
	else if (!strcmp(opt.mode, "replay"))
		mode_replay();
	else {
		fprintf(stderr, "craft: unknown mode '%s'\n", opt.mode);
		usage(stderr);
		return 2;
	}
	listen_replies();
	close(sock);
	return n_err ? 1 : 0;
}
