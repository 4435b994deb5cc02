/*
 * scratch.h — one large buffer for work done again and again in bursts,
 * such as the TUI's sort and filter at each key press: kept from one use
 * to the next, so that its pages are made once a burst rather than once
 * a use, and given back to the system once unused for a while, so that
 * between bursts it costs no memory.
 *
 * Why not malloc and free each time: a fresh page costs a fault, and on
 * a virtual machine a fault can cost 15-20 us (measured here: the 400
 * pages of one 1.6 MB array of a sort at 100,000 rows, 6-9 ms, most of
 * the sort).  malloc hands such a size out as its own mapping and gives
 * it back at free().  The buffer is a mapping of its own too, so that
 * what it holds is given back when this says, not by malloc's rules;
 * from 2 MiB up, in huge pages where the system allows them, which make
 * the first use after an idle spell cheap too.
 *
 * Not thread-safe: the owner's thread only.
 */
#ifndef KINF_SCRATCH_H
#define KINF_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

struct scratch {
	void *base;		/* NULL: none held */
	size_t size;		/* mapped bytes */
	int64_t used_ms;	/* mono_ms() at the last scratch_get() */
};

/*
 * At least size bytes, aligned to a page (to a huge page from 2 MiB up),
 * their contents undefined; valid until the next scratch_get() or a
 * release.  Never fails (dies as xmalloc does).
 */
void *scratch_get(struct scratch *s, size_t size);
/* Gives the buffer back when it was last got keep_ms or more ago. */
void scratch_release_idle(struct scratch *s, int64_t keep_ms);
/* Gives the buffer back. */
void scratch_release(struct scratch *s);

#endif
