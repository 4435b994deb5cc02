/*
 * unit.h — the unit tests' harness: TAP output, one test function per
 * rule, checks that report file:line and the values seen.
 *
 *   TEST(dedups_consecutive_deletes) { ... CHECK(x == 1); CHECK_STR(a, b); }
 *   int main(void) { RUN(dedups_consecutive_deletes); return unit_done(); }
 *
 * A check that never runs asserts nothing, so the harness refuses both
 * ways of writing one:
 *   - a test that ran no check at all is "not ok";
 *   - every check site registers itself in the linker section
 *     "unit_sites"; unit_done() reports each site that never ran, in a
 *     branch never taken or a loop over nothing, as one more "not ok".
 * CHECKF(cond, fmt, ...) is the check for comparisons the other macros
 * cannot print, CHECK_FAILS(bad, what) the one for a precondition; nothing
 * else may fail a test.
 */
#ifndef KINF_UNIT_H
#define KINF_UNIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

struct unit_site {
	const char *file;
	int line;
	const char *expr;
	unsigned long hits;
};

/* The section's bounds, from the linker; weak, so that a program with no
 * check site still links (and then fails: it has nothing to run). */
extern struct unit_site *__start_unit_sites[] __attribute__((weak));
extern struct unit_site *__stop_unit_sites[] __attribute__((weak));

static int unit_planned, unit_failed, unit_current_failed, unit_current_checks;

/* Counts one run of the check site it stands in; the pointer in the
 * section is how unit_done() finds the sites that never ran. */
#define UNIT_SITE(expr_)                                                   \
	do {                                                               \
		static struct unit_site site_ = { __FILE__, __LINE__, expr_, 0 }; \
		static struct unit_site *site_ptr_                         \
			__attribute__((section("unit_sites"), used)) = &site_; \
		(void)site_ptr_;                                           \
		site_.hits++;                                              \
		unit_current_checks++;                                     \
	} while (0)

#define TEST(name) static void test_##name(void)

#define RUN(name)                                                          \
	do {                                                               \
		unit_current_failed = 0;                                   \
		unit_current_checks = 0;                                   \
		test_##name();                                             \
		unit_planned++;                                            \
		if (!unit_current_checks)                                  \
			printf("# %s ran no check\n", #name);              \
		if (unit_current_failed || !unit_current_checks)           \
			unit_failed++;                                     \
		printf("%s %d - %s\n",                                     \
		       unit_current_failed || !unit_current_checks ? "not ok" : "ok", \
		       unit_planned, #name);                               \
		fflush(stdout);                                            \
	} while (0)

#define UNIT_CHECK(text, cond, ...)                                        \
	do {                                                               \
		UNIT_SITE(text);                                           \
		if (!(cond)) {                                             \
			printf("# %s:%d: ", __FILE__, __LINE__);           \
			printf(__VA_ARGS__);                               \
			printf("\n");                                      \
			unit_current_failed = 1;                           \
		}                                                          \
	} while (0)

#define CHECKF(cond, ...) UNIT_CHECK(#cond, cond, __VA_ARGS__)
#define CHECK(cond) UNIT_CHECK(#cond, cond, "check failed: %s", #cond)

/* A check of a test's precondition, true when it failed so that the test
 * can stop:  if (CHECK_FAILS(!fixture_up(&f), "simulator up")) goto out; */
#define CHECK_FAILS(bad, what)                                             \
	({                                                                 \
		int bad_ = !!(bad);                                        \
		UNIT_CHECK(what, !bad_, "failed: %s", what);               \
		bad_;                                                      \
	})

#define CHECK_INT(a, b)                                                    \
	do {                                                               \
		long long a_ = (long long)(a), b_ = (long long)(b);        \
		UNIT_CHECK(#a " == " #b, a_ == b_, "%s == %lld, expected %s == %lld", #a, a_, #b, b_); \
	} while (0)

#define CHECK_STR(a, b)                                                    \
	do {                                                               \
		const char *a_ = (a), *b_ = (b);                           \
		UNIT_CHECK(#a " is " #b, a_ && b_ && !strcmp(a_, b_), "%s is \"%s\", expected \"%s\"", \
		       #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)");        \
	} while (0)

/*
 * No file descriptor left for this process: RLIMIT_NOFILE lowered to the
 * lowest one free, so that every one below it is in use.  *was keeps the
 * limit for unit_fds_restore().  False if the limit could not be set.
 */
static inline bool unit_fds_exhaust(struct rlimit *was)
{
	int fd = dup(0);
	struct rlimit none;

	if (fd < 0 || close(fd) < 0 || getrlimit(RLIMIT_NOFILE, was) < 0)
		return false;
	none = *was;
	none.rlim_cur = (rlim_t)fd;
	return setrlimit(RLIMIT_NOFILE, &none) == 0;
}

static inline bool unit_fds_restore(const struct rlimit *was)
{
	return setrlimit(RLIMIT_NOFILE, was) == 0;
}

/* A fixed sequence of pseudo-random numbers (xorshift32): a run repeats. */
static inline uint32_t unit_rand(void)
{
	static uint32_t x = 2463534242u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

static inline int unit_done(void)
{
	struct unit_site **s = __start_unit_sites, **end = __stop_unit_sites;

	if (!s || s == end) {
		printf("not ok %d - the program has no check\n", ++unit_planned);
		unit_failed++;
	}
	for (; s && s < end; s++) {
		if ((*s)->hits)
			continue;
		printf("not ok %d - the check at %s:%d never ran: %s\n", ++unit_planned,
		       (*s)->file, (*s)->line, (*s)->expr);
		unit_failed++;
	}
	printf("1..%d\n", unit_planned);
	return unit_failed ? 1 : 0;
}

#endif
