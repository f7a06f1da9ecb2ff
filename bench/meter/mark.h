/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The meter's marks (bench/meter/meter.c): a guest program opens window ID
 * by executing the `ret` at MARK_VA + MARK_SLOT * ID and closes it with the
 * one at MARK_VA + MARK_PAGE + MARK_SLOT * ID. The plugin watches those
 * addresses; nothing else in the guest maps them.
 */
#ifndef MROCE_METER_MARK_H
#define MROCE_METER_MARK_H

#define MARK_VA		0x5a5a00000000ull
#define MARK_PAGE	4096u
#define MARK_SLOT	16u
#define MARK_IDS	(MARK_PAGE / MARK_SLOT)

#endif
