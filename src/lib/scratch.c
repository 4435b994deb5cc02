/* scratch.c — a buffer kept between bursts of use; see scratch.h. */
#include "lib/scratch.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/util.h"

/*
 * Buffers of at least a huge page are mapped in huge pages where the
 * system lets a mapping ask for them (transparent huge pages, "madvise"
 * or "always"): one fault makes 2 MiB.  Measured here, 16 MiB made by
 * touching its 4 KiB pages took 60-90 ms, in huge pages 3-4 ms.
 */
#define HUGE_PAGE (2 * 1024 * 1024)

/* A mapping of size bytes aligned to a huge page; MAP_FAILED if none. */
static void *map_huge(size_t size)
{
	char *p = mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return p;
	char *at = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	if (at > p)
		munmap(p, (size_t)(at - p));
	munmap(at + size, (size_t)(p + HUGE_PAGE - at));
#ifdef MADV_HUGEPAGE
	(void)madvise(at, size, MADV_HUGEPAGE);	/* refused: small pages, as before */
#endif
	return at;
}

void *scratch_get(struct scratch *s, size_t size)
{
	s->used_ms = mono_ms();
	if (s->base && size <= s->size)
		return s->base;
	scratch_release(s);
	/* A quarter more, in whole pages: a table that grows by a few rows
	 * maps it once.  From a huge page up, in whole huge pages. */
	size_t want = (size + size / 4) / 4096 * 4096 + 4096;
	void *p;
	if (want >= HUGE_PAGE) {
		want = (want + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
		p = map_huge(want);
	} else {
		p = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	if (p == MAP_FAILED)
		out_of_memory(want);
	s->base = p;
	s->size = want;
	return p;
}

void scratch_release_idle(struct scratch *s, int64_t keep_ms)
{
	if (s->base && mono_ms() - s->used_ms >= keep_ms)
		scratch_release(s);
}

void scratch_release(struct scratch *s)
{
	if (s->base)
		munmap(s->base, s->size);
	s->base = NULL;
	s->size = 0;
}
