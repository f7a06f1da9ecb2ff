// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The MetaRoCE wire code (kernel/engine/wire.c, protocol.md), built into
 * the software NIC as a NIC's parser would be: the shadow check
 * (shadow.c) reads the packets it carries with it. The engine's sources
 * stay unchanged; its symbols are not exported, so mroce.ko's copy and
 * this one do not meet.
 */
#include "../kernel/engine/wire.c"
