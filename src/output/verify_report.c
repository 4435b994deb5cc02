/* verify_report.c — a verify report as text and JSON; see verify_report.h. */
#include "output/verify_report.h"

#include <string.h>

#include "lib/termsafe.h"
#include "lib/util.h"

#define SUMMARY_KEYS 10

/* A key or resourceVersion, as the server sent it: escaped, on one line. */
static void add_text(struct strbuf *sb, const char *s)
{
	strbuf_add_termsafe(sb, s, strlen(s), TERMSAFE_ONE_LINE);
}

/*
 * Lost (the informer is past them: they will not come) told apart from a
 * lag (the informer had not caught up to the list): ' (...)' after the
 * counts.  A cache equal to the list has neither: that the informer had
 * not reached the list's RV (the whole server's) is no news then.
 */
static void add_lost_or_lag(struct strbuf *sb, const struct verify_report *r)
{
	size_t total = r->nmissing + r->nextra + r->nstale;

	if (r->nlost)
		strbuf_addf(sb, " (%zu lost: the informer is past %s and never brought %s)",
			    r->nlost, r->nlost == 1 ? "it" : "them", r->nlost == 1 ? "it" : "them");
	if (!r->caught_up && r->nlost < total) {
		strbuf_adds(sb, " (the informer had not caught up to rv ");
		add_text(sb, r->list_rv);
		strbuf_addch(sb, ')');
	}
}

/* "WHAT  KEY  cache rv RV, server rv RV", each rv there is */
static void add_diff_line(struct strbuf *sb, const char *what, const struct verify_diff *v)
{
	strbuf_addf(sb, "%s  ", what);
	add_text(sb, v->key);
	if (v->cache_rv) {
		strbuf_adds(sb, "  cache rv ");
		add_text(sb, v->cache_rv);
	}
	if (v->server_rv) {
		strbuf_adds(sb, v->cache_rv ? ", server rv " : "  server rv ");
		add_text(sb, v->server_rv);
	}
	strbuf_addch(sb, '\n');
}

void verify_report_text(const char *resource, const struct verify_report *r,
			struct strbuf *sb)
{
	add_text(sb, resource);
	if (verify_equal(r)) {
		strbuf_addf(sb, ": cache equals the server (%zu objects at rv ", r->server_count);
		add_text(sb, r->list_rv);
		strbuf_addch(sb, ')');
	} else {
		strbuf_addf(sb, ": cache has %zu objects at rv ", r->cache_count);
		add_text(sb, r->informer_rv && *r->informer_rv ? r->informer_rv : "?");
		strbuf_addf(sb, ", server %zu at rv ", r->server_count);
		add_text(sb, r->list_rv);
		strbuf_addf(sb, ": %zu missing, %zu extra, %zu stale", r->nmissing, r->nextra,
			    r->nstale);
	}
	add_lost_or_lag(sb, r);
	strbuf_addch(sb, '\n');
	for (size_t i = 0; i < r->nmissing; i++)
		add_diff_line(sb, "missing", &r->missing[i]);
	for (size_t i = 0; i < r->nextra; i++)
		add_diff_line(sb, "extra", &r->extra[i]);
	for (size_t i = 0; i < r->nstale; i++)
		add_diff_line(sb, "stale", &r->stale[i]);
}

static void add_diffs(struct strbuf *sb, const char *name,
		      const struct verify_diff *v, size_t nr)
{
	strbuf_addf(sb, ",\"%s\":[", name);
	for (size_t i = 0; i < nr; i++) {
		strbuf_adds(sb, i ? ",{\"key\":" : "{\"key\":");
		strbuf_add_json_string(sb, v[i].key);
		if (v[i].cache_rv)
			strbuf_add_json_text(sb, "cacheResourceVersion", v[i].cache_rv);
		if (v[i].server_rv)
			strbuf_add_json_text(sb, "serverResourceVersion", v[i].server_rv);
		strbuf_addch(sb, '}');
	}
	strbuf_addch(sb, ']');
}

void verify_report_json(const char *resource, const struct verify_report *r,
			struct strbuf *sb)
{
	strbuf_adds(sb, "\"resource\":");
	strbuf_add_json_string(sb, resource);
	strbuf_addf(sb, ",\"equal\":%s,\"cacheCount\":%zu,\"serverCount\":%zu",
		    verify_equal(r) ? "true" : "false", r->cache_count, r->server_count);
	strbuf_add_json_text(sb, "listResourceVersion", r->list_rv);
	strbuf_add_json_text(sb, "informerResourceVersion", r->informer_rv);
	strbuf_addf(sb, ",\"caughtUp\":%s,\"ahead\":%zu,\"lost\":%zu",
		    r->caught_up ? "true" : "false", r->ahead, r->nlost);
	add_diffs(sb, "missing", r->missing, r->nmissing);
	add_diffs(sb, "extra", r->extra, r->nextra);
	add_diffs(sb, "stale", r->stale, r->nstale);
}

void verify_report_summary(const struct verify_report *r, struct strbuf *sb)
{
	static const char *const what[] = { "missing", "extra", "stale" };
	const struct verify_diff *lists[] = { r->missing, r->extra, r->stale };
	size_t counts[] = { r->nmissing, r->nextra, r->nstale };
	size_t named = 0, total = r->nmissing + r->nextra + r->nstale;

	if (!total) {
		strbuf_addf(sb, "cache equals the server (%zu objects)", r->server_count);
	} else {
		strbuf_addf(sb, "%zu missing, %zu extra, %zu stale:",
			    r->nmissing, r->nextra, r->nstale);
		for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
			for (size_t i = 0; i < counts[l] && named < SUMMARY_KEYS; i++, named++) {
				strbuf_adds(sb, named ? ", " : " ");
				add_text(sb, lists[l][i].key);
				strbuf_addf(sb, " (%s)", what[l]);
			}
		if (named < total)
			strbuf_addf(sb, " and %zu more", total - named);
	}
	add_lost_or_lag(sb, r);
}
