// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce-linebuf.so: LD_PRELOAD'ed by the guest tests (tests/vm/topo.sh) so
 * that perftest and the libibverbs examples write their stdout line by
 * line: a program killed by `timeout` then still leaves what it printed
 * in the log (coreutils' stdbuf is not in the guest image).
 */
#include <stdio.h>

__attribute__((constructor)) static void mroce_linebuf(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}
