/*
 * test_scratch.c — the buffer kept between bursts: the same one while it
 * is large enough (what was written in it still there: no new pages), a
 * larger one when asked for more, given back only once idle for as long
 * as the caller says, and gone from the process's mappings then.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/scratch.h"
#include "smaps.h"
#include "unit.h"

/* Whether [p, p + 1) is in one of the process's mappings. */
static bool mapped(const void *p)
{
	unsigned char vec;
	long page = sysconf(_SC_PAGESIZE);
	void *at = (void *)((uintptr_t)p / (uintptr_t)page * (uintptr_t)page);

	return mincore(at, 1, &vec) == 0;
}

TEST(kept_between_uses_and_given_back_when_idle)
{
	struct scratch s = { 0 };
	char *a = scratch_get(&s, 100000);

	memset(a, 'x', 100000);
	CHECK(s.size >= 100000);
	CHECK(scratch_get(&s, 50000) == a);	/* smaller: the same */
	CHECK(scratch_get(&s, 100000) == a);
	CHECK(a[99999] == 'x');			/* and what it held */
	scratch_release_idle(&s, 60000);	/* used just now: kept */
	CHECK(s.base == a);
	CHECK(mapped(a));
	usleep(20000);
	scratch_release_idle(&s, 10);		/* idle for 20 ms of 10: given back */
	CHECK(s.base == NULL);
	CHECK(!mapped(a));
	char *b = scratch_get(&s, 4 * 1024 * 1024);
	CHECK(b != NULL && s.size >= 4 * 1024 * 1024);
	memset(b, 'y', 4 * 1024 * 1024);
	char *c = scratch_get(&s, 5 * 1024 * 1024);	/* larger: anew */
	CHECK(s.size >= 5 * 1024 * 1024);
	c[5 * 1024 * 1024 - 1] = 'z';
	scratch_release(&s);
	CHECK(s.base == NULL && s.size == 0);
	scratch_release(&s);			/* twice: nothing */
}

/* Whether transparent huge pages may be asked for (madvise or always). */
static bool thp_on(void)
{
	char buf[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strstr(buf, "[always]") || strstr(buf, "[madvise]");
}

TEST(a_large_buffer_is_in_huge_pages)
{
	struct scratch s = { 0 };
	const size_t huge = 2 * 1024 * 1024;
	char *a = scratch_get(&s, 5 * huge);

	/* whole huge pages, aligned to one, and nothing mapped around them
	 * that the alignment left */
	CHECK((uintptr_t)a % huge == 0);
	CHECK(s.size % huge == 0 && s.size >= 5 * huge);
	memset(a, 'h', s.size);
	CHECK(mapped(a) && mapped(a + s.size - 1));
	if (thp_on())
		CHECK(smaps_kb(a, "AnonHugePages") > 0);
	else
		printf("# transparent huge pages are off here: their use not checked\n");
	scratch_release(&s);
	CHECK(!mapped(a));
	/* a small one is not rounded up to a huge page */
	char *b = scratch_get(&s, 10000);
	CHECK(s.size < huge);
	b[0] = 1;
	scratch_release(&s);
}

int main(void)
{
	RUN(kept_between_uses_and_given_back_when_idle);
	RUN(a_large_buffer_is_in_huge_pages);
	return unit_done();
}
