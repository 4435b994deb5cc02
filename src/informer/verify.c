/* verify.c — the cache against the server's list; see verify.h. */
#include "informer/verify.h"

#include <stdlib.h>
#include <string.h>

#include "informer/kobj.h"
#include "lib/json_scan.h"
#include "lib/strbuf.h"
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
		.cache_rv = xstrdup_or_null(cache_rv),
		.server_rv = xstrdup_or_null(server_rv),
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

/* ---- the server's items --------------------------------------------------- */

/* One of the three strings an item is verified by, as the scan saw it. */
struct item_string {
	const char *text, *end;		/* between the quotes; NULL: none */
	bool escaped;
};

struct item_fields {
	struct item_string name, ns, rv;
};

/* The string at the cursor into *str; none when the value is not a string. */
static int take(struct json_scan *s, struct item_string *str)
{
	*str = (struct item_string){ 0 };
	if (*s->p != '"')
		return 0;	/* scanned as any value */
	return json_scan_string(s, &str->text, &str->end, &str->escaped) < 0 ? -1 : 1;
}

/*
 * A name or namespace with a "\u0000" would key another object: refused,
 * as the informer refuses it (only an escape can put a NUL there).
 */
static int take_key_part(struct json_scan *s, struct item_string *str)
{
	int rc = take(s, str);

	if (rc > 0 && str->escaped) {
		struct strbuf sb = STRBUF_INIT;
		json_scan_decode(str->text, str->end, &sb);
		bool nul = memchr(sb.buf, '\0', sb.len) != NULL;
		strbuf_release(&sb);
		if (nul)
			return json_scan_fail(s, "a NUL byte in its name or namespace");
	}
	return rc;
}

static int item_metadata_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct item_fields *f = ctx;

	if (json_scan_key_is(key, klen, "name"))
		return take_key_part(s, &f->name);
	if (json_scan_key_is(key, klen, "namespace"))
		return take_key_part(s, &f->ns);
	if (json_scan_key_is(key, klen, "resourceVersion"))
		return take(s, &f->rv);
	return 0;
}

/* The last metadata member counts, as when json-c reads the object. */
static int item_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct item_fields *f = ctx;

	if (!json_scan_key_is(key, klen, "metadata"))
		return 0;
	*f = (struct item_fields){ 0 };
	if (*s->p != '{')
		return 0;
	return json_scan_object(s, item_metadata_member, f) < 0 ? -1 : 1;
}

/*
 * Appends what str stands for, up to a NUL (as a C string ends), with
 * bytes that are not UTF-8 as U+FFFD: what the informer's objects hold.
 */
static void add_item_string(struct strbuf *sb, const struct item_string *str)
{
	struct strbuf dec = STRBUF_INIT;
	const char *p = str->text;
	size_t len = str->text ? (size_t)(str->end - str->text) : 0;

	if (str->escaped) {
		json_scan_decode(str->text, str->end, &dec);
		p = dec.buf;
		len = strnlen(dec.buf, dec.len);
	}
	char *clean = len ? utf8_replace_invalid(p, len, &len) : NULL;
	strbuf_add(sb, clean ? clean : p, len);
	free(clean);
	strbuf_release(&dec);
}

char *verify_item_key_rv(const char *text, size_t len, struct errbuf *err)
{
	struct item_fields f = { 0 };
	struct json_scan s;

	json_scan_init(&s, text, len, NULL);
	if (kobj_scan_document(&s, text, item_member, &f, err) < 0)
		return NULL;

	struct strbuf sb = STRBUF_INIT;
	add_item_string(&sb, &f.ns);
	if (sb.len)
		strbuf_addch(&sb, '/');
	add_item_string(&sb, &f.name);
	strbuf_addch(&sb, '\0');
	add_item_string(&sb, &f.rv);
	return strbuf_detach(&sb, NULL);
}
