/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine's trace callback (trace.c). The events are in mroce_trace.h,
 * which trace.c and cq.c (mroce_wc_error) include.
 */
#ifndef MROCE_TRACE_CALLS_H
#define MROCE_TRACE_CALLS_H

#include "engine.h"

/* mre_ops.trace: the engine's event @t of @c as its tracepoint */
void mroce_trace_engine(struct mre_conn *c, const struct mre_trace *t);

#endif /* MROCE_TRACE_CALLS_H */
