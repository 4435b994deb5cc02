/*
 * slab.h — many items of one fixed size, allocated from chunks of
 * SLAB_CHUNK items each, with a free list threaded through the freed
 * items.  For a large number of small records such as the TUI's rows
 * (100,000 of them): no malloc header and no rounding to a malloc size
 * class per item, and an item never moves while it is allocated, so
 * pointers to it (an ostree node embedded in it, a hash set slot) stay
 * valid.  Each item also has an id, a dense 32-bit number (slab_id(),
 * slab_at()), for tables of many items where a pointer's 8 bytes count
 * (the TUI's rows).  The items allocated can be walked in
 * their order in memory (slab_next()), which a pass reading each item
 * (and, ahead, what it points at) is fastest in: a bit an item says
 * which are.
 *
 * Memory: chunks are never returned before slab_release(); a freed item
 * is reused by the next slab_alloc() (the most recently freed first).
 * The peak number of items is what stays allocated, as with malloc's
 * own arenas after a burst of frees.
 *
 * A zeroed struct is not ready: slab_init() first.  Not thread-safe: the
 * owner locks (the TUI uses one thread).
 */
#ifndef KINF_SLAB_H
#define KINF_SLAB_H

#include <stddef.h>
#include <stdint.h>

#define SLAB_CHUNK 512	/* items per chunk: 44 KiB of 88-byte rows */
#define SLAB_WORDS (SLAB_CHUNK / 64)	/* a chunk's bits of live[] */

struct slab {
	size_t size;		/* bytes per item, a multiple of 8 */
	char **chunks;		/* owned, each SLAB_CHUNK items; chunk i holds ids i * SLAB_CHUNK... */
	size_t chunks_nr, chunks_alloc;
	/* The chunks by address, for slab_id(): chunks_nr of them. */
	struct slab_range {
		const char *base;
		uint32_t no;	/* its index in chunks */
	} *by_addr;
	uint64_t *live_bits;	/* SLAB_WORDS a chunk, by chunk: item i's bit set while allocated */
	size_t fresh;		/* items of the newest chunk never handed out yet */
	void *free;		/* freed items, each holding the next's address */
};

/* size: of one item (rounded up to 8 bytes, at least a pointer's). */
void slab_init(struct slab *s, size_t size);
/* Frees every chunk: every item still allocated is gone with them. */
void slab_release(struct slab *s);

/* A zeroed item, aligned to 8 bytes.  Never fails (aborts as xmalloc). */
void *slab_alloc(struct slab *s);
/* Gives item p (from this slab's slab_alloc(), not yet freed) back. */
void slab_free(struct slab *s, void *p);

/* Item p's id: O(log chunks).  p is allocated from s (or was: an id
 * outlives a free, and is the next alloc's that reuses the item). */
uint32_t slab_id(const struct slab *s, const void *p);

/* The item whose id is id (from slab_id(), its item allocated): O(1). */
static inline void *slab_at(const struct slab *s, uint32_t id)
{
	return s->chunks[id / SLAB_CHUNK] + (size_t)(id % SLAB_CHUNK) * s->size;
}

/*
 * The items allocated, in their order in memory, none allocated or freed
 * meanwhile:
 *   size_t iter = 0; void *p;
 *   while ((p = slab_next(s, &iter))) ...
 */
void *slab_next(const struct slab *s, size_t *iter);

#endif
