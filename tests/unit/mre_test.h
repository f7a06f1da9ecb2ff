/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One test source, two runners.
 *
 * The engine's unit tests are written once against these macros. Under
 * __KERNEL__ they become a KUnit suite (tests/kunit wires them into a UML
 * kernel built from Debian's linux-source-6.1); on the host they register
 * themselves with the small runner in tests/unit/runner.c, which prints
 * "N passed, N failed" and takes test names (or suite names) as filters.
 *
 * A test is written as
 *
 *	MRE_TEST(sack_marks_gap)
 *	{
 *		MRE_EXPECT_EQ(test, x, 3);
 *	}
 *	MRE_SUITE(sack, MRE_CASE(sack_marks_gap), ...);
 *
 * Every test gets "struct kunit *test"; on the host that is the runner's own
 * context, so the same body compiles in both places. Randomised tests take
 * their seed from mre_test_seed(test) and must print it on failure; the host
 * runner takes MRE_SEED from the environment so a failure can be replayed.
 */
#ifndef MRE_TEST_H
#define MRE_TEST_H

#ifdef __KERNEL__
#include <kunit/test.h>
#include <kunit/resource.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#define MRE_TEST(name) static void name(struct kunit *test)
#define MRE_CASE(fn) KUNIT_CASE(fn)
#define MRE_SUITE(sname, ...)						\
	static struct kunit_case sname##_cases[] = { __VA_ARGS__, {} };	\
	static struct kunit_suite sname##_suite = {			\
		.name = "mroce_" #sname,				\
		.test_cases = sname##_cases,				\
	};								\
	kunit_test_suite(sname##_suite)

#define MRE_EXPECT(test, c)		KUNIT_EXPECT_TRUE(test, c)
#define MRE_EXPECT_EQ(test, a, b)	KUNIT_EXPECT_EQ(test, (long long)(a), (long long)(b))
#define MRE_EXPECT_NE(test, a, b)	KUNIT_EXPECT_NE(test, (long long)(a), (long long)(b))
#define MRE_EXPECT_LE(test, a, b)	KUNIT_EXPECT_LE(test, (long long)(a), (long long)(b))
#define MRE_EXPECT_GE(test, a, b)	KUNIT_EXPECT_GE(test, (long long)(a), (long long)(b))
#define MRE_ASSERT(test, c)		KUNIT_ASSERT_TRUE(test, c)
#define MRE_ALLOC(test, size)		mre_test_alloc(test, size)
#define MRE_LOG(test, fmt, ...)		kunit_info(test, fmt, ##__VA_ARGS__)

static inline unsigned long long mre_test_seed(struct kunit *test)
{
	return 0x6d726f6365ULL;		/* fixed: KUnit runs must be repeatable */
}

/*
 * Test memory: the harnesses allocate megabytes (packet queues, buffers),
 * beyond kmalloc's reach, so use vzalloc, freed by KUnit after the test.
 */
static int mre_test_valloc_init(struct kunit_resource *res, void *size)
{
	res->data = vzalloc((unsigned long)size);
	return res->data ? 0 : -ENOMEM;
}

static void mre_test_valloc_free(struct kunit_resource *res)
{
	vfree(res->data);
}

static inline void *mre_test_alloc(struct kunit *test, unsigned long size)
{
	void *p = kunit_alloc_resource(test, mre_test_valloc_init,
				       mre_test_valloc_free, GFP_KERNEL,
				       (void *)size);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

#define mre_test_trace 0

#else /* host */

struct kunit {
	const char *name;	/* current test */
	int failures;		/* expectations failed in this test */
	int aborted;
	unsigned long long seed;
	void *allocs;		/* freed after each test */
};

struct mre_test_case {
	const char *name;
	void (*fn)(struct kunit *test);
};

struct mre_test_suite {
	const char *name;
	const struct mre_test_case *cases;
	struct mre_test_suite *next;
};

void mre_test_register(struct mre_test_suite *suite);
void mre_test_fail(struct kunit *test, const char *file, int line,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void *mre_test_alloc(struct kunit *test, unsigned long size);
void mre_test_log(struct kunit *test, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define MRE_TEST(name) static void name(struct kunit *test)
#define MRE_CASE(fn) { #fn, fn }
#define MRE_SUITE(sname, ...)						\
	static const struct mre_test_case sname##_cases[] = {		\
		__VA_ARGS__, { 0, 0 } };				\
	static struct mre_test_suite sname##_suite = {			\
		#sname, sname##_cases, 0 };				\
	__attribute__((constructor)) static void sname##_register(void)	\
	{ mre_test_register(&sname##_suite); }

#define MRE_EXPECT(test, c) do {					\
	if (!(c))							\
		mre_test_fail(test, __FILE__, __LINE__, "%s", #c);	\
} while (0)
#define MRE__CMP(test, a, op, b) do {					\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (!(_a op _b))						\
		mre_test_fail(test, __FILE__, __LINE__,			\
			      "%s %s %s (%lld vs %lld)", #a, #op, #b,	\
			      _a, _b);					\
} while (0)
#define MRE_EXPECT_EQ(test, a, b) MRE__CMP(test, a, ==, b)
#define MRE_EXPECT_NE(test, a, b) MRE__CMP(test, a, !=, b)
#define MRE_EXPECT_LE(test, a, b) MRE__CMP(test, a, <=, b)
#define MRE_EXPECT_GE(test, a, b) MRE__CMP(test, a, >=, b)
#define MRE_ASSERT(test, c) do {					\
	if (!(c)) {							\
		mre_test_fail(test, __FILE__, __LINE__, "%s", #c);	\
		return;							\
	}								\
} while (0)
#define MRE_ALLOC(test, size) mre_test_alloc(test, size)
#define MRE_LOG(test, ...) mre_test_log(test, __VA_ARGS__)

static inline unsigned long long mre_test_seed(struct kunit *test)
{
	return test->seed;
}

extern int mre_test_trace;	/* MRE_TRACE=1: harnesses print every packet */

#endif /* __KERNEL__ */
#endif /* MRE_TEST_H */
