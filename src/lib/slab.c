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
	slab_init(s, s->size);
}

void *slab_alloc(struct slab *s)
{
	void *p;

	if (s->free) {
		p = s->free;
		memcpy(&s->free, p, sizeof(s->free));
	} else {
		if (!s->fresh) {
			ALLOC_GROW(s->chunks, s->chunks_nr + 1, s->chunks_alloc);
			s->chunks[s->chunks_nr++] = xmalloc(SLAB_CHUNK * s->size);
			s->fresh = SLAB_CHUNK;
		}
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
	return s->chunks_nr * SLAB_CHUNK * s->size + s->chunks_alloc * sizeof(*s->chunks);
}
