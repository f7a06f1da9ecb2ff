// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: the packet parser.
 *
 * Any byte string goes through mre_ep_parse() (which must agree with
 * mre_wire_parse() and count exactly one drop reason on refusal). A packet
 * it accepts is written back with mre_wire_put(), which must reproduce the
 * header bytes exactly except for fields the parser accepts with any value
 * and the builder writes as zero (normalised: PROBE's reserved word at
 * offset 20); the rebuilt datagram must parse again to the same packet.
 */
#include "ep.h"
#include "wire.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BUG() abort()

static u64 no_random(struct mre_ep *ep)
{
	return 1;
}

static const struct mre_ops ops = { .random = no_random };

static u64 drops(const struct mre_counters *c)
{
	return c->drop_short + c->drop_version + c->drop_type + c->drop_flags +
	       c->drop_len + c->drop_field;
}

/* bytes the builder writes as zero whatever the parser accepted */
static bool normalised(const struct mre_pkt *p, u32 i)
{
	return p->type == MRE_T_PROBE && i >= MRE_COMMON_LEN + 4 &&
	       i < MRE_PROBE_LEN;
}

/* the decoded fields, without the pointers into the datagram */
static void plain(struct mre_pkt *p)
{
	if (p->type == MRE_T_CONNECT || p->type == MRE_T_ACCEPT)
		p->connect.blob = NULL;
	p->payload = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static u8 out[MRE_MAX_HDR_LEN + MRE_CONNECT_LEN + MRE_MAX_BLOB + MRE_MAX_PAYLOAD + 64];
	struct mre_pkt p, q, r;
	struct mre_config cfg;
	struct mre_ep ep;
	u32 len = size > 0xffff ? 0xffff : (u32)size, hl, i;
	int bad;

	mre_config_default(&cfg);
	if (mre_ep_init(&ep, &ops, &cfg))
		BUG();
	memset(&p, 0, sizeof(p));
	memset(&q, 0, sizeof(q));
	memset(&r, 0, sizeof(r));
	bad = mre_ep_parse(&ep, data, len, &p);
	if (!bad != (mre_wire_parse(data, len, &q) == MRE_PARSE_OK))
		BUG();
	if (drops(&ep.ctr) != !!bad)
		BUG();
	if (bad)
		return 0;
	/* the payload (DATA, UD) follows the header; nothing else does */
	if (p.hdr_len > len || (p.payload && p.payload != data + p.hdr_len))
		BUG();
	hl = mre_wire_put(out, &p);
	if (hl != p.hdr_len || hl + (len - hl) > sizeof(out))
		BUG();
	for (i = 0; i < hl; i++)
		if (out[i] != data[i] && !(normalised(&p, i) && out[i] == 0))
			BUG();
	memcpy(out + hl, data + hl, len - hl);
	if (mre_wire_parse(out, len, &r) != MRE_PARSE_OK)
		BUG();
	plain(&p);
	plain(&r);
	if (memcmp(&p, &r, sizeof(p)))
		BUG();
	return 0;
}
