/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The engine's embedder: struct mre_ops, each callback answered by the
 * glue file of its role (embed.c has the table).
 */
#ifndef MROCE_EMBED_H
#define MROCE_EMBED_H

struct mre_ops;

extern const struct mre_ops mroce_engine_ops;

#endif /* MROCE_EMBED_H */
