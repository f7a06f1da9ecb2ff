/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Receiving on a connection: the packets the demux (demux.c) found for it.
 *
 * An ACK is handled in one direction: first the path it names settles its
 * PSNs (path.c), telling each TSN's descriptor whether it arrived or was
 * lost (tsn.c); then the connection accepts the TSNs the ACK covers, in
 * order, completing messages (stream.c) and settling, on whatever path
 * they went, the PSNs of accepted TSNs whose own ACK has not come yet.
 *
 * A DATA packet passes its path's window (path.c), then the connection's
 * TSN window: a new TSN goes to msg.c, which places it, accepts it and
 * runs the completion gate for every TSN the cumulative point passes. The
 * ACK policy decides when to answer.
 */
#ifndef MRE_RECV_H
#define MRE_RECV_H

#include "conn.h"

#endif /* MRE_RECV_H */
