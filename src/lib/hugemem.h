/*
 * hugemem.h — the process's memory that is all there, in 2 MiB pages:
 * for a process that reads all of a large cache again and again in
 * passes, such as the TUI's filter and sort over 100,000 objects.
 *
 * Why: the cache's objects are spread over some 14,000 pages of 4 KiB,
 * and a pass touches each.  On a virtual machine, the first pass after a
 * pause of a few hundred milliseconds paid a translation miss on nearly
 * every one of them: measured here at 100,000 pods, a pass reading one
 * byte of each object's key took 0.3-1.3 ms when repeated at once and
 * 15-146 ms after such a pause.  The same pass over the same objects in
 * 2 MiB pages (some 35 of them) took 0.2-15 ms after any pause, most
 * under 6.
 *
 * What: a sweep finds the private, anonymous, writable mappings (the
 * malloc heaps: the cache, the rows; not files nor the main stack, and a
 * thread's stack only where it is all there, as one rarely is) and asks the
 * kernel to make each 2 MiB of them a huge page (MADV_COLLAPSE, Linux
 * 6.1 and later) where every one of its 512 small pages is already
 * there: a range holding holes is left alone, so that no page is made
 * that was not, and the resident size stays what it was.  The ranges are
 * done one at a time (a range the kernel must copy costs a few ms; one
 * already huge, a few us), so that a caller does them between other work.
 * Nothing is done where the system turned transparent huge pages off
 * ("never"), or where the kernel does not know MADV_COLLAPSE.
 *
 * Not thread-safe: one owner.  Other threads may allocate meanwhile; the
 * kernel copes with a range that changed (it refuses it, and the next
 * sweep tries again).
 */
#ifndef KINF_HUGEMEM_H
#define KINF_HUGEMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct huge_sweep {
	uintptr_t *at;		/* huge page-aligned ranges left to try */
	size_t nr, next;
	size_t huge, page;	/* the system's sizes, found at the first start */
	bool off;		/* the system said no: never again */
	size_t sweep_tried, sweep_refused;	/* this sweep's ranges: all there; EINVAL */
	size_t made;		/* ranges the kernel made huge pages, every sweep */
};

/* A new sweep: every candidate range found now.  A sweep still going is
 * dropped.  Returns how many ranges it will try. */
size_t huge_sweep_start(struct huge_sweep *s);
/* Whether ranges are left to try. */
static inline bool huge_sweep_pending(const struct huge_sweep *s)
{
	return s->next < s->nr;
}
/* Tries the next range. */
void huge_sweep_step(struct huge_sweep *s);
void huge_sweep_free(struct huge_sweep *s);

#endif
