// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host runner for the engine's unit tests (see mre_test.h).
 *
 *	unit-tests [-l] [-v] [NAME...]
 *
 * NAME selects a suite or a single test; -l lists, -v prints every test.
 * MRE_SEED=<n> in the environment fixes the seed handed to randomised tests
 * (default: a fixed value, so runs repeat). Ends with "N passed, N failed"
 * and exits non-zero when anything failed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mre_test.h"

static struct mre_test_suite *suites;
int mre_test_trace;

void mre_test_register(struct mre_test_suite *suite)
{
	struct mre_test_suite **p = &suites;

	/* keep suites in name order so output does not depend on link order */
	while (*p && strcmp((*p)->name, suite->name) < 0)
		p = &(*p)->next;
	suite->next = *p;
	*p = suite;
}

void mre_test_fail(struct kunit *test, const char *file, int line,
		   const char *fmt, ...)
{
	va_list ap;

	test->failures++;
	fprintf(stderr, "  FAIL %s at %s:%d: ", test->name, file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " [seed %llu]\n", test->seed);
}

void mre_test_log(struct kunit *test, const char *fmt, ...)
{
	va_list ap;

	printf("    %s: ", test->name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

struct alloc_hdr {
	struct alloc_hdr *next;
	long long pad;		/* keep the payload 16-byte aligned */
};

void *mre_test_alloc(struct kunit *test, unsigned long size)
{
	struct alloc_hdr *h = calloc(1, sizeof(*h) + size);

	if (!h) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	h->next = test->allocs;
	test->allocs = h;
	return h + 1;
}

static void free_allocs(struct kunit *test)
{
	struct alloc_hdr *h = test->allocs, *n;

	for (; h; h = n) {
		n = h->next;
		free(h);
	}
	test->allocs = NULL;
}

static int selected(int argc, char **argv, const char *suite,
		    const char *name)
{
	int i;

	if (argc == 0)
		return 1;
	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], suite) || !strcmp(argv[i], name))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const struct mre_test_suite *s;
	const struct mre_test_case *c;
	unsigned long long seed = 0x6d726f6365ULL;
	int pass = 0, fail = 0, verbose = 0, list = 0;
	const char *env = getenv("MRE_SEED");

	if (env)
		seed = strtoull(env, NULL, 0);
	mre_test_trace = getenv("MRE_TRACE") != NULL;
	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-v"))
			verbose = 1;
		else if (!strcmp(argv[1], "-l"))
			list = 1;
		else {
			fprintf(stderr, "usage: %s [-l] [-v] [SUITE|TEST...]\n",
				argv[0]);
			return 2;
		}
		argc--;
		argv++;
	}
	argc--;
	argv++;
	printf("# seed %llu (set MRE_SEED to replay)\n", seed);
	for (s = suites; s; s = s->next) {
		for (c = s->cases; c->name; c++) {
			struct kunit t = { .name = c->name, .seed = seed };

			if (!selected(argc, argv, s->name, c->name))
				continue;
			if (list) {
				printf("%s.%s\n", s->name, c->name);
				continue;
			}
			c->fn(&t);
			free_allocs(&t);
			if (t.failures) {
				fail++;
				printf("not ok %s.%s\n", s->name, c->name);
			} else {
				pass++;
				if (verbose)
					printf("ok %s.%s\n", s->name, c->name);
			}
		}
	}
	if (!list)
		printf("%d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
