/* scratch.c — a buffer kept between bursts of use; see scratch.h. */
#include "lib/scratch.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/util.h"

void *scratch_get(struct scratch *s, size_t size)
{
	s->used_ms = mono_ms();
	if (s->base && size <= s->size)
		return s->base;
	scratch_release(s);
	/* A quarter more, in whole pages: a table that grows by a few rows
	 * maps it once. */
	size_t want = (size + size / 4) / 4096 * 4096 + 4096;
	void *p = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("out of memory (a scratch buffer of %zu bytes: %s)", want, strerror(errno));
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
