/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the guest-side checkers (verbs-check.c, wr-check.c, cq-check.c)
 * print: "ok - WHAT" or "not ok - WHAT" per check, and at the end
 * "N passed, N failed" (their caller, tests/vm/lib.sh's t_ok, reads it).
 */
#ifndef MROCE_TESTS_TAP_H
#define MROCE_TESTS_TAP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

static inline void check(int cond, const char *what)
{
	printf("%s - %s\n", cond ? "ok" : "not ok", what);
	if (cond)
		passed++;
	else
		failed++;
}

/* a setup step failed: there is nothing to check; exit status 2 */
static inline void die(const char *what)
{
	fprintf(stderr, "setup: %s: %s\n", what, strerror(errno));
	exit(2);
}

#endif
