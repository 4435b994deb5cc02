/* verify.c — the cache against the server's list; see verify.h. */
#include "informer/verify.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

int verify_rv_compare(const char *a, const char *b, int *cmp)
{
	if (!a || !b || !is_number(a) || !is_number(b))
		return -1;
	/* Any length: no leading zeros, then the longer is the larger. */
	while (a[0] == '0' && a[1])
		a++;
	while (b[0] == '0' && b[1])
		b++;
	size_t la = strlen(a), lb = strlen(b);
	int c = la != lb ? (la < lb ? -1 : 1) : strcmp(a, b);
	*cmp = c < 0 ? -1 : c > 0;
	return 0;
}

/* a is newer than b, as numbers; false when either is no number. */
static bool newer(const char *a, const char *b)
{
	int cmp;
	return verify_rv_compare(a, b, &cmp) == 0 && cmp > 0;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct verify_entry *)a)->key,
		      ((const struct verify_entry *)b)->key);
}

void verify_sort(struct verify_entry *v, size_t nr)
{
	if (nr > 1)	/* qsort(NULL, 0, ...) is undefined */
		qsort(v, nr, sizeof(*v), by_key);
}

struct diffs {
	struct verify_diff *v;
	size_t nr, alloc;
};

static void add_diff(struct diffs *d, const char *key, const char *cache_rv,
		     const char *server_rv)
{
	ALLOC_GROW(d->v, d->nr + 1, d->alloc);
	d->v[d->nr++] = (struct verify_diff){
		.key = xstrdup(key),
		.cache_rv = cache_rv ? xstrdup(cache_rv) : NULL,
		.server_rv = server_rv ? xstrdup(server_rv) : NULL,
	};
}

void verify_compare(const struct verify_entry *cache, size_t ncache,
		    const struct verify_entry *server, size_t nserver,
		    const char *list_rv, struct verify_report *out)
{
	struct diffs missing = { 0 }, extra = { 0 }, stale = { 0 };
	size_t i = 0, j = 0;

	memset(out, 0, sizeof(*out));
	out->list_rv = xstrdup(list_rv ? list_rv : "");
	out->server_count = nserver;
	for (size_t k = 0; k < ncache; k++)
		out->cache_count += !cache[k].gone;

	/* A merge of the two sorted lists. */
	while (i < ncache || j < nserver) {
		int c = i == ncache ? 1 : j == nserver ? -1 : strcmp(cache[i].key, server[j].key);
		if (c < 0) {		/* only the cache knows the key */
			const struct verify_entry *e = &cache[i++];
			if (e->gone)
				;	/* deleted, and the server agrees */
			else if (newer(e->rv, list_rv))
				out->ahead++;
			else
				add_diff(&extra, e->key, e->rv, NULL);
		} else if (c > 0) {	/* only the server has it */
			const struct verify_entry *s = &server[j++];
			add_diff(&missing, s->key, NULL, s->rv);
		} else {
			const struct verify_entry *e = &cache[i++], *s = &server[j++];
			if (!e->gone && !strcmp(e->rv, s->rv))
				;
			else if (newer(e->rv, s->rv))
				out->ahead++;
			else if (e->gone)
				add_diff(&missing, s->key, NULL, s->rv);
			else
				add_diff(&stale, e->key, e->rv, s->rv);
		}
	}
	out->missing = missing.v;
	out->nmissing = missing.nr;
	out->extra = extra.v;
	out->nextra = extra.nr;
	out->stale = stale.v;
	out->nstale = stale.nr;
}

static void release_diffs(struct verify_diff *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(v[i].key);
		free(v[i].cache_rv);
		free(v[i].server_rv);
	}
	free(v);
}

void verify_report_release(struct verify_report *r)
{
	release_diffs(r->missing, r->nmissing);
	release_diffs(r->extra, r->nextra);
	release_diffs(r->stale, r->nstale);
	free(r->list_rv);
	free(r->informer_rv);
	memset(r, 0, sizeof(*r));
}
