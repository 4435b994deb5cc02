/*
 * intern.c — shared copies of byte strings; see intern.h.
 *
 * DESIGN (threads): one mutex guards the whole table, counts included;
 * it is held for a lookup or an unlink only, never across a call out.
 * Readers of a copy's bytes take no lock: the bytes never change.
 *
 * A chained hash table that grows as a power of two and shrinks when
 * sparse; with no copy left it keeps nothing, so a process that lets
 * every object go holds no table.
 */
#include "lib/intern.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

static struct {
	pthread_mutex_t lock;
	struct intern **buckets;	/* nr_buckets: 0 or a power of two */
	size_t nr_buckets, nr;
} table = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint32_t bytes_hash(const char *p, size_t len)
{
	uint32_t h = 2166136261u;	/* FNV-1a, as hashmap_hash */

	while (len--)
		h = (h ^ (unsigned char)*p++) * 16777619u;
	return h;
}

static void table_rehash(size_t nr_buckets)
{
	struct intern **buckets = xcalloc(nr_buckets, sizeof(*buckets));

	for (size_t i = 0; i < table.nr_buckets; i++) {
		struct intern *e = table.buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			e->next = buckets[e->hash & (nr_buckets - 1)];
			buckets[e->hash & (nr_buckets - 1)] = e;
		}
	}
	free(table.buckets);
	table.buckets = buckets;
	table.nr_buckets = nr_buckets;
}

struct intern *intern_get(const char *bytes, size_t len)
{
	uint32_t hash = bytes_hash(bytes, len);
	struct intern *e;

	pthread_mutex_lock(&table.lock);
	if (table.nr_buckets)
		for (e = table.buckets[hash & (table.nr_buckets - 1)]; e; e = e->next)
			if (e->hash == hash && e->len == len && !memcmp(e->bytes, bytes, len)) {
				e->refs++;
				pthread_mutex_unlock(&table.lock);
				return e;
			}
	if (table.nr >= table.nr_buckets)
		table_rehash(table.nr_buckets ? table.nr_buckets * 2 : 64);
	e = xmalloc(sizeof(*e) + len);
	e->hash = hash;
	e->refs = 1;
	e->len = len;
	memcpy(e->bytes, bytes, len);
	e->next = table.buckets[hash & (table.nr_buckets - 1)];
	table.buckets[hash & (table.nr_buckets - 1)] = e;
	table.nr++;
	pthread_mutex_unlock(&table.lock);
	return e;
}

void intern_put(struct intern *e)
{
	struct intern **pp;

	pthread_mutex_lock(&table.lock);
	if (--e->refs) {
		pthread_mutex_unlock(&table.lock);
		return;
	}
	for (pp = &table.buckets[e->hash & (table.nr_buckets - 1)]; *pp != e;)
		pp = &(*pp)->next;
	*pp = e->next;
	free(e);
	/* None left: nothing is kept (a sparse table shrinks). */
	if (!--table.nr) {
		free(table.buckets);
		table.buckets = NULL;
		table.nr_buckets = 0;
	} else if (table.nr_buckets > 64 && table.nr * 8 < table.nr_buckets) {
		table_rehash(table.nr_buckets / 2);
	}
	pthread_mutex_unlock(&table.lock);
}
