/* hugemem.c — the memory that is all there, in 2 MiB pages; see hugemem.h. */
#include "lib/hugemem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/util.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25	/* Linux 6.1; older headers lack it */
#endif

/*
 * The size of a huge page (2 MiB on x86-64), or 0 where the system lets
 * a process have none ("never", or no transparent huge pages at all).
 */
static size_t huge_size(void)
{
	char line[128] = "";
	unsigned long size = 0;
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	if (!line[0] || strstr(line, "[never]"))
		return 0;
	if (!(f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "r")))
		return 0;
	if (fscanf(f, "%lu", &size) != 1)
		size = 0;
	fclose(f);
	return size;
}

size_t huge_sweep_start(struct huge_sweep *s)
{
	size_t alloc = 0;
	char line[512];
	FILE *f;

	free(s->at);
	s->at = NULL;
	s->nr = s->next = s->sweep_tried = s->sweep_refused = 0;
	if (!s->off && !s->huge) {
		long page = sysconf(_SC_PAGESIZE);
		s->huge = huge_size();
		s->page = page > 0 ? (size_t)page : 4096;
		s->off = !s->huge || s->huge % s->page;
	}
	if (s->off || !(f = fopen("/proc/self/maps", "r")))
		return 0;
	/* A mapping larger than the machine's memory cannot be all there: a
	 * reservation, such as a sanitizer's shadow (terabytes: millions of
	 * ranges to look at for nothing). */
	long pages = sysconf(_SC_PHYS_PAGES);
	uintptr_t ram = pages > 0 ? (uintptr_t)pages * s->page : UINTPTR_MAX;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[8], path[16] = "";
		/* start-end perms offset dev inode [path]: no path, anonymous */
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %15s", &lo, &hi, perms, path) < 3)
			continue;
		if (strcmp(perms, "rw-p") || (path[0] && strcmp(path, "[heap]")) || hi - lo > ram)
			continue;
		for (uintptr_t at = (lo + s->huge - 1) / s->huge * s->huge; at + s->huge <= hi;
		     at += s->huge) {
			ALLOC_GROW(s->at, s->nr + 1, alloc);
			s->at[s->nr++] = at;
		}
	}
	fclose(f);
	return s->nr;
}

/* Whether all of the huge page's range at is in memory now. */
static bool all_there(const struct huge_sweep *s, uintptr_t at)
{
	size_t n = s->huge / s->page;
	unsigned char vec[4096], *v = n <= sizeof(vec) ? vec : xmalloc(n);
	bool all = mincore((void *)at, s->huge, v) == 0;	/* else unmapped since */

	for (size_t i = 0; all && i < n; i++)
		all = v[i] & 1;
	if (v != vec)
		free(v);
	return all;
}

void huge_sweep_step(struct huge_sweep *s)
{
	if (!huge_sweep_pending(s))
		return;
	uintptr_t at = s->at[s->next++];
	if (all_there(s, at)) {
		s->sweep_tried++;
		if (madvise((void *)at, s->huge, MADV_COLLAPSE) == 0)
			s->made++;
		else if (errno == EINVAL)
			s->sweep_refused++;
	}
	/* Every range tried refused as an unknown advice: a kernel without
	 * MADV_COLLAPSE (before 6.1).  Not again. */
	if (!huge_sweep_pending(s) && s->sweep_tried && s->sweep_refused == s->sweep_tried)
		s->off = true;
}

void huge_sweep_free(struct huge_sweep *s)
{
	free(s->at);
	memset(s, 0, sizeof(*s));
}
