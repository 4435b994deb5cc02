/* delta.c — delta types and sources by name, and delta lists; see delta.h. */
#include "informer/delta.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const type_names[DELTA__COUNT] = {
	[DELTA_ADDED] = "Added",
	[DELTA_UPDATED] = "Updated",
	[DELTA_DELETED] = "Deleted",
	[DELTA_REPLACED] = "Replaced",
	[DELTA_SYNC] = "Sync",
	[DELTA_REPLACED_ALL] = "ReplacedAll",
	[DELTA_SYNC_ALL] = "SyncAll",
	[DELTA_BOOKMARK] = "Bookmark",
};

static const char *const source_names[SOURCE__COUNT] = {
	[SOURCE_LIST] = "list",
	[SOURCE_WATCH] = "watch",
	[SOURCE_RESYNC] = "resync",
};

const char *delta_type_name(enum delta_type type)
{
	return (unsigned)type < DELTA__COUNT ? type_names[type] : "Unknown";
}

int delta_type_parse(const char *name)
{
	for (int i = 0; i < DELTA__COUNT; i++)
		if (!strcasecmp(type_names[i], name))
			return i;
	return -1;
}

const char *delta_source_name(enum delta_source source)
{
	return (unsigned)source < SOURCE__COUNT ? source_names[source] :
						  "unknown";
}

void deltas_push(struct deltas *d, const struct delta *delta)
{
	/*
	 * Most keys gather one or two deltas before they are popped, and a
	 * list queues one per object: start small rather than ALLOC_GROW's 16.
	 */
	if (d->nr == d->alloc) {
		d->alloc = d->alloc ? d->alloc * 2 : 2;
		d->v = xrealloc(d->v, d->alloc * sizeof(*d->v));
	}
	d->v[d->nr++] = *delta;
}

void delta_release(struct delta *delta)
{
	kobj_unref(delta->obj);
	delta->obj = NULL;
	for (size_t i = 0; i < delta->nr_all; i++)
		kobj_unref(delta->all[i]);
	free(delta->all);
	delta->all = NULL;
	delta->nr_all = 0;
}

void deltas_release(struct deltas *d)
{
	for (size_t i = 0; i < d->nr; i++)
		delta_release(&d->v[i]);
	free(d->v);
	*d = (struct deltas){ 0 };
}
