/*
 * smaps.h — what the kernel says of one of this process's mappings
 * (/proc/self/smaps), for the tests of memory kept in huge pages.
 */
#ifndef KINF_UNIT_SMAPS_H
#define KINF_UNIT_SMAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A member ("Rss", "AnonHugePages") of the mapping holding p, in kB; -1: none. */
static inline long smaps_kb(const void *p, const char *member)
{
	char line[256];
	FILE *f = fopen("/proc/self/smaps", "r");
	size_t len = strlen(member);
	bool in = false;
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		} else if (in && !strncmp(line, member, len) && line[len] == ':') {
			kb = strtol(line + len + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb;
}

#endif
