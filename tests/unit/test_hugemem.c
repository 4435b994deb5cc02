/*
 * test_hugemem.c — the sweep that makes the memory huge pages: a range
 * all in memory becomes one huge page; a range with a hole, or none of
 * it there, is left as it was, so that no page is made that was not (the
 * resident size the same); a mapping of a file is not touched.  Where the
 * system has no huge pages for a process, or a kernel older than
 * MADV_COLLAPSE, only that nothing was made is checked, and it says so.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/hugemem.h"
#include "smaps.h"
#include "unit.h"

#define HUGE (2UL * 1024 * 1024)
#define MADV_COLLAPSE_ 25	/* Linux 6.1's; older headers lack it */
#define SMALL 4096UL

static bool resident(const void *p)
{
	unsigned char vec = 0;

	return mincore((void *)((uintptr_t)p & ~(SMALL - 1)), 1, &vec) == 0 && (vec & 1);
}

static void sweep_all(struct huge_sweep *s)
{
	huge_sweep_start(s);
	while (huge_sweep_pending(s))
		huge_sweep_step(s);
}

TEST(a_range_all_there_is_made_huge_and_no_page_is_made)
{
	/* Three ranges of a mapping of their own (PROT_NONE around it keeps
	 * the kernel from merging it with a neighbour): one all there, one
	 * with a hole of a page, one with nothing in it. */
	char *area = mmap(NULL, 6 * HUGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(area != MAP_FAILED);
	char *at = (char *)(((uintptr_t)area + HUGE - 1) & ~(HUGE - 1)) + HUGE;
	CHECK(mprotect(at, 3 * HUGE, PROT_READ | PROT_WRITE) == 0);
	char *full = at, *holed = at + HUGE, *empty = at + 2 * HUGE;
	char *hole = holed + 100 * SMALL;

	memset(full, 'f', HUGE);
	memset(holed, 'h', (size_t)(hole - holed));
	memset(hole + SMALL, 'h', HUGE - (size_t)(hole + SMALL - holed));
	CHECK(!resident(hole) && !resident(empty) && resident(full + HUGE - 1));
	long rss = smaps_kb(at, "Rss");
	CHECK_INT(rss, (long)((2 * HUGE - SMALL) / 1024));

	/* Whether this system makes huge pages at all: asked directly, of a
	 * mapping of its own. */
	char *control = mmap(NULL, 2 * HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			     -1, 0);
	CHECK(control != MAP_FAILED);
	char *c = (char *)(((uintptr_t)control + HUGE - 1) & ~(HUGE - 1));
	memset(c, 'c', HUGE);
	bool can = madvise(c, HUGE, MADV_COLLAPSE_) == 0;
	munmap(control, 2 * HUGE);

	struct huge_sweep s = { 0 };
	sweep_all(&s);
	CHECK(s.nr >= 3);		/* ours among the others */
	CHECK(!huge_sweep_pending(&s));

	/* Nothing made that was not there, whatever the system allows. */
	CHECK_INT(smaps_kb(at, "Rss"), rss);
	CHECK(!resident(hole) && !resident(empty));
	CHECK(full[0] == 'f' && full[HUGE - 1] == 'f' && holed[0] == 'h' && hole[-1] == 'h');

	if (can) {
		CHECK(s.made >= 1 && !s.off);
		CHECK_INT(smaps_kb(at, "AnonHugePages"), (long)(HUGE / 1024));
		/* Again: the same range is tried, and stays what it is. */
		sweep_all(&s);
		CHECK_INT(smaps_kb(at, "AnonHugePages"), (long)(HUGE / 1024));
		CHECK_INT(smaps_kb(at, "Rss"), rss);
	} else {
		printf("# no huge page made here (THP off, or a kernel without "
		       "MADV_COLLAPSE): only that nothing was made is checked\n");
	}
	huge_sweep_free(&s);
	CHECK(s.at == NULL && s.nr == 0);
	munmap(area, 6 * HUGE);
}

TEST(a_mapping_of_a_file_is_not_a_candidate)
{
	char path[] = "/tmp/kinf-hugemem-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	unlink(path);
	CHECK(ftruncate(fd, (off_t)(4 * HUGE)) == 0);
	char *area = mmap(NULL, 4 * HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(area != MAP_FAILED);
	memset(area, 'x', 4 * HUGE);	/* all there, and copied: private */
	/* Beside it, the same in anonymous memory: a candidate. */
	char *anon = mmap(NULL, 4 * HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(anon != MAP_FAILED);
	memset(anon, 'y', 4 * HUGE);

	struct huge_sweep s = { 0 };
	huge_sweep_start(&s);
	size_t of_file = 0, of_anon = 0;
	for (size_t i = 0; i < s.nr; i++) {
		of_file += s.at[i] + HUGE > (uintptr_t)area && s.at[i] < (uintptr_t)area + 4 * HUGE;
		of_anon += s.at[i] + HUGE > (uintptr_t)anon && s.at[i] < (uintptr_t)anon + 4 * HUGE;
	}
	CHECK_INT(of_file, 0);
	CHECK(of_anon >= 3);	/* 4 huge pages' worth, aligned or not */
	huge_sweep_free(&s);
	munmap(anon, 4 * HUGE);
	munmap(area, 4 * HUGE);
	close(fd);
}

int main(void)
{
	RUN(a_range_all_there_is_made_huge_and_no_page_is_made);
	RUN(a_mapping_of_a_file_is_not_a_candidate);
	return unit_done();
}
