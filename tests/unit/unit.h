/*
 * unit.h — the unit tests' harness: TAP output, one test function per
 * rule, checks that report file:line and the values seen.
 *
 *   TEST(dedups_consecutive_deletes) { ... CHECK(x == 1); CHECK_STR(a, b); }
 *   int main(void) { RUN(dedups_consecutive_deletes); return unit_done(); }
 */
#ifndef KINF_UNIT_H
#define KINF_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_planned, unit_failed, unit_current_failed;

#define TEST(name) static void test_##name(void)

#define RUN(name)                                                          \
	do {                                                               \
		unit_current_failed = 0;                                   \
		test_##name();                                             \
		unit_planned++;                                            \
		if (unit_current_failed)                                   \
			unit_failed++;                                     \
		printf("%s %d - %s\n", unit_current_failed ? "not ok" : "ok", \
		       unit_planned, #name);                               \
		fflush(stdout);                                            \
	} while (0)

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond)) {                                             \
			printf("# %s:%d: check failed: %s\n", __FILE__,    \
			       __LINE__, #cond);                           \
			unit_current_failed = 1;                           \
		}                                                          \
	} while (0)

#define CHECK_INT(a, b)                                                    \
	do {                                                               \
		long long a_ = (long long)(a), b_ = (long long)(b);        \
		if (a_ != b_) {                                            \
			printf("# %s:%d: %s == %lld, expected %s == %lld\n", \
			       __FILE__, __LINE__, #a, a_, #b, b_);        \
			unit_current_failed = 1;                           \
		}                                                          \
	} while (0)

#define CHECK_STR(a, b)                                                    \
	do {                                                               \
		const char *a_ = (a), *b_ = (b);                           \
		if (!a_ || !b_ || strcmp(a_, b_)) {                        \
			printf("# %s:%d: %s is \"%s\", expected \"%s\"\n", \
			       __FILE__, __LINE__, #a, a_ ? a_ : "(null)", \
			       b_ ? b_ : "(null)");                        \
			unit_current_failed = 1;                           \
		}                                                          \
	} while (0)

static inline int unit_done(void)
{
	printf("1..%d\n", unit_planned);
	return unit_failed ? 1 : 0;
}

#endif
