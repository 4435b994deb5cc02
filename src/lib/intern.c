/*
 * intern.c — shared copies of byte strings; see intern.h.
 *
 * DESIGN (threads): one mutex guards the whole table, counts included;
 * it is held for a lookup or an unlink only, never across a call out.
 * Readers of a copy's bytes take no lock: the bytes never change.
 *
 * The table is a hashmap (lib/hashmap.h) keyed by the bytes: it grows
 * as a power of two and shrinks when sparse; with no copy left it keeps
 * nothing, so a process that lets every object go holds no table.
 */
#include "lib/intern.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hashmap.h"
#include "lib/util.h"

static struct {
	pthread_mutex_t lock;
	struct hashmap map;	/* each entry's value (and key) its struct intern */
} table = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint32_t bytes_hash(const char *p, size_t len)
{
	uint32_t h = 2166136261u;	/* FNV-1a, as hashmap_hash */

	while (len--)
		h = (h ^ (unsigned char)*p++) * 16777619u;
	return h;
}

struct bytes {
	const char *p;
	size_t len;
};

static bool same_bytes(const struct hashmap_entry *he, const void *ctx)
{
	const struct intern *e = he->value;
	const struct bytes *b = ctx;

	return e->len == b->len && !memcmp(e->bytes, b->p, b->len);
}

static bool same_copy(const struct hashmap_entry *he, const void *ctx)
{
	return he->value == ctx;
}

struct intern *intern_get(const char *bytes, size_t len)
{
	uint32_t hash = bytes_hash(bytes, len);
	struct hashmap_entry *he;
	struct intern *e;

	pthread_mutex_lock(&table.lock);
	he = hashmap_find_by(&table.map, hash, same_bytes, &(struct bytes){ bytes, len });
	if (he) {
		e = he->value;
		e->refs++;
	} else {
		e = xmalloc(sizeof(*e) + len);
		e->hash = hash;
		e->refs = 1;
		e->len = len;
		memcpy(e->bytes, bytes, len);
		hashmap_insert_hashed(&table.map, hash, (const char *)e, e);
	}
	pthread_mutex_unlock(&table.lock);
	return e;
}

void intern_put(struct intern *e)
{
	pthread_mutex_lock(&table.lock);
	bool last = !--e->refs;
	if (last)
		hashmap_remove_entry(&table.map, hashmap_find_by(&table.map, e->hash, same_copy, e));
	pthread_mutex_unlock(&table.lock);
	if (last)
		free(e);
}
