/* slab.c — fixed-size items from chunks, with a free list; see slab.h. */
#include "lib/slab.h"

#include <stdbool.h>
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
	free(s->live_bits);
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
		s->live_bits = xrealloc(s->live_bits,
					s->chunks_alloc * SLAB_WORDS * sizeof(*s->live_bits));
	}
	memset(s->live_bits + s->chunks_nr * SLAB_WORDS, 0, SLAB_WORDS * sizeof(*s->live_bits));
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

static inline void mark(struct slab *s, uint32_t id, bool live)
{
	uint64_t bit = (uint64_t)1 << (id % 64);

	if (live)
		s->live_bits[id / 64] |= bit;
	else
		s->live_bits[id / 64] &= ~bit;
}

void *slab_alloc(struct slab *s)
{
	void *p;
	uint32_t id;

	if (s->free) {
		p = s->free;
		memcpy(&s->free, p, sizeof(s->free));
		id = slab_id(s, p);
	} else {
		if (!s->fresh)
			add_chunk(s);
		id = (uint32_t)((s->chunks_nr - 1) * SLAB_CHUNK + (SLAB_CHUNK - s->fresh));
		p = slab_at(s, id);
		s->fresh--;
	}
	mark(s, id, true);
	memset(p, 0, s->size);
	return p;
}

void slab_free(struct slab *s, void *p)
{
	mark(s, slab_id(s, p), false);
	memcpy(p, &s->free, sizeof(s->free));
	s->free = p;
}

/* *iter: the item's place in the chunks by address, plus one. */
void *slab_next(const struct slab *s, size_t *iter)
{
	size_t at = *iter, end = s->chunks_nr * SLAB_CHUNK;

	while (at < end) {
		const struct slab_range *c = &s->by_addr[at / SLAB_CHUNK];
		size_t i = at % SLAB_CHUNK;
		uint64_t w = s->live_bits[c->no * SLAB_WORDS + i / 64] >> (i % 64);

		if (!w) {	/* none left in this word */
			at = (at | 63) + 1;
			continue;
		}
		i += (size_t)__builtin_ctzll(w);
		*iter = at - at % SLAB_CHUNK + i + 1;
		return s->chunks[c->no] + i * s->size;
	}
	*iter = end;
	return NULL;
}
