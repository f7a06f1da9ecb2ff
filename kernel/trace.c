// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoints' home (CREATE_TRACE_POINTS) and the engine's trace
 * callback: each struct mre_trace becomes the tracepoint of its kind.
 * Runs under the peer's lock, like every engine callback.
 */
#define CREATE_TRACE_POINTS
#include "mroce_trace.h"
#include "trace.h"

void mroce_trace_engine(struct mre_conn *c, const struct mre_trace *t)
{
	const struct mroce_peer *peer = mroce_peer_of(c);

	if (t->path != MRE_TR_CONN_WIDE && t->path >= c->npaths)
		return;
	switch (t->ev) {
	case MRE_TR_CONN_OPEN:
		trace_mroce_conn_open(peer, t);
		break;
	case MRE_TR_CONN_RESTART:
		trace_mroce_conn_restart(peer, t);
		break;
	case MRE_TR_CONN_RESET:
		trace_mroce_conn_reset(peer, t);
		break;
	case MRE_TR_CONN_FAIL:
		trace_mroce_conn_fail(peer, t);
		break;
	case MRE_TR_PATH:
		if (t->path != MRE_TR_CONN_WIDE)
			trace_mroce_path_state(peer, t);
		break;
	case MRE_TR_REPATH:
		if (t->path != MRE_TR_CONN_WIDE)
			trace_mroce_repath(peer, t);
		break;
	case MRE_TR_LOSS:
		trace_mroce_loss(peer, t);
		break;
	case MRE_TR_CUT:
		trace_mroce_cwnd_cut(peer, t);
		break;
	case MRE_TR_HINT:
		trace_mroce_rate_hint(peer, t);
		break;
	}
}
