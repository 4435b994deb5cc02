/* slab.c — fixed-size items from chunks, with a free list; see slab.h. */
#include "lib/slab.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

void slab_init(struct slab *s, size_t size)
{
	memset(s, 0, sizeof(*s));
	if (size < sizeof(void *))
		size = sizeof(void *);
	s->size = (size + 7) & ~(size_t)7;
}

void slab_release(struct slab *s)
{
	for (size_t i = 0; i < s->chunks_nr; i++)
		free(s->chunks[i]);
	free(s->chunks);
	free(s->by_addr);
	slab_init(s, s->size);
}

/* Takes a new chunk, and files it by address. */
static void add_chunk(struct slab *s)
{
	size_t at;
	char *chunk = xmalloc(SLAB_CHUNK * s->size);

	if (s->chunks_nr >= UINT32_MAX / SLAB_CHUNK)
		die("slab: more than %u items", UINT32_MAX);
	if (s->chunks_nr == s->chunks_alloc) {
		ALLOC_GROW(s->chunks, s->chunks_nr + 1, s->chunks_alloc);
		s->by_addr = xrealloc(s->by_addr, s->chunks_alloc * sizeof(*s->by_addr));
	}
	for (at = s->chunks_nr; at && s->by_addr[at - 1].base > chunk; at--)
		s->by_addr[at] = s->by_addr[at - 1];
	s->by_addr[at] = (struct slab_range){ chunk, (uint32_t)s->chunks_nr };
	s->chunks[s->chunks_nr++] = chunk;
	s->fresh = SLAB_CHUNK;
}

uint32_t slab_id(const struct slab *s, const void *p)
{
	size_t lo = 0, hi = s->chunks_nr;
	const char *c = p;

	/* The last chunk that starts at or below p. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->by_addr[mid].base <= c)
			lo = mid;
		else
			hi = mid;
	}
	return s->by_addr[lo].no * SLAB_CHUNK + (uint32_t)((size_t)(c - s->by_addr[lo].base) / s->size);
}

void *slab_alloc(struct slab *s)
{
	void *p;

	if (s->free) {
		p = s->free;
		memcpy(&s->free, p, sizeof(s->free));
	} else {
		if (!s->fresh)
			add_chunk(s);
		p = s->chunks[s->chunks_nr - 1] + (SLAB_CHUNK - s->fresh) * s->size;
		s->fresh--;
	}
	s->live++;
	memset(p, 0, s->size);
	return p;
}

void slab_free(struct slab *s, void *p)
{
	memcpy(p, &s->free, sizeof(s->free));
	s->free = p;
	s->live--;
}

size_t slab_bytes(const struct slab *s)
{
	return s->chunks_nr * SLAB_CHUNK * s->size +
	       s->chunks_alloc * (sizeof(*s->chunks) + sizeof(*s->by_addr));
}
