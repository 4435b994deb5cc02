/* pager.c — a LIST page after page; see pager.h. */
#include "cluster/pager.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_get.h"
#include "lib/json_scan.h"
#include "lib/strbuf.h"

/* How much of a page that is no object an error shows. */
#define LONE_OBJECT_SHOWN 160

/* controller-runtime's metadata informers' (and kubectl's) Accept. */
#define ACCEPT_METADATA "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1," \
			"application/json"

/* One pager_list() call. */
struct pager {
	struct kclient *client;
	const struct pager_opts *opts;
	const struct pager_hooks *hooks;
	struct pager_result *res;
	char *cont;		/* the next page's token */
	bool full;		/* after an expired continue: no limit */
	unsigned retries;	/* of this page, as the REST client counts */
	int64_t started, next_warn;	/* the client's clock */
	/* This request's body. */
	struct list_splitter split;	/* PAGER_ITEMS, PAGER_METADATA */
	struct strbuf body;		/* PAGER_TABLE */
	bool refused, split_failed;
};

/* ---- one request ---------------------------------------------------------- */

static char *page_path(struct pager *p)
{
	const struct pager_opts *o = p->opts;
	struct strbuf q = STRBUF_INIT;
	char num[16];

	/* In client-go's order: url.Values.Encode() sorts the keys. */
	if (p->cont)
		url_query_add(&q, "continue", p->cont);
	if (o->field_selector)
		url_query_add(&q, "fieldSelector", o->field_selector);
	if (o->include_object)
		url_query_add(&q, "includeObject", "Object");
	if (o->label_selector)
		url_query_add(&q, "labelSelector", o->label_selector);
	if (!p->full && o->limit) {
		snprintf(num, sizeof(num), "%ld", o->limit);
		url_query_add(&q, "limit", num);
	}
	if (!p->cont && o->rv && *o->rv)
		url_query_add(&q, "resourceVersion", o->rv);
	char *path = xasprintf("%s%s", o->path, strbuf_str(&q));
	strbuf_release(&q);
	return path;
}

static int on_item(void *ctx, const char *text, size_t len)
{
	struct pager *p = ctx;

	p->res->items++;
	if (p->hooks->item(p->hooks->ctx, text, len) < 0) {
		p->refused = true;
		return -1;
	}
	return 0;
}

static int on_items_data(void *ctx, const char *data, size_t len)
{
	struct pager *p = ctx;

	if (list_splitter_feed(&p->split, data, len) < 0) {
		p->split_failed = !p->refused;
		return -1;
	}
	return 0;
}

static int on_table_data(void *ctx, const char *data, size_t len)
{
	struct pager *p = ctx;

	strbuf_add(&p->body, data, len);
	return 0;
}

/* The slow-list warning, on the list's clock (it runs across the pages). */
static int64_t on_tick(void *ctx)
{
	struct pager *p = ctx;
	int64_t now = kclient_now_ms(p->client);

	if (now >= p->next_warn) {
		p->hooks->slow(p->hooks->ctx, now - p->started, p->res->items, p->res->pages);
		while (p->next_warn <= now)
			p->next_warn += p->opts->warn_ms;
	}
	return p->next_warn - now;
}

static int request_page(struct pager *p, struct errbuf *err)
{
	const struct pager_opts *o = p->opts;
	struct stream_opts so = o->stream;
	bool items = o->as != PAGER_TABLE;

	p->refused = p->split_failed = false;
	if (items)
		list_splitter_init(&p->split, on_item, p);
	else
		p->body = (struct strbuf)STRBUF_INIT;
	so.accept = o->as == PAGER_TABLE ? PAGER_ACCEPT_TABLE :
		    o->as == PAGER_METADATA ? ACCEPT_METADATA : NULL;
	if (o->warn_ms && p->hooks->slow) {
		so.tick = on_tick;
		so.tick_ctx = p;
		so.tick_ms = p->next_warn - kclient_now_ms(p->client);
		if (so.tick_ms < 1)
			so.tick_ms = 1;
	}
	p->res->pages++;
	if (p->hooks->request)
		p->hooks->request(p->hooks->ctx, p->res->pages);

	char *path = page_path(p);
	http_response_release(&p->res->resp);
	memset(&p->res->resp, 0, sizeof(p->res->resp));
	int rc = kclient_stream(p->client, path, &so, items ? on_items_data : on_table_data,
				p, &p->res->resp, err);
	free(path);
	return rc;
}

/* ---- what came ------------------------------------------------------------ */

/* Whether a whole body that json-c refused was cut short rather than no JSON. */
static bool cut_short(const char *text)
{
	struct json_tokener *tok = json_tokener_new_ex(JSON_MAX_DEPTH);
	size_t len = strlen(text);
	enum json_tokener_error e;

	json_object_put(json_tokener_parse_ex(tok, text, len > INT32_MAX ? INT32_MAX : (int)len));
	e = json_tokener_get_error(tok);
	json_tokener_free(tok);
	return e == json_tokener_continue;
}

/* A page's metadata: the list's RV (once) and the next token; false: none. */
static bool read_metadata(struct pager *p, json_object *root, const char **rv)
{
	json_object *meta;
	const char *cont;

	*rv = "";
	free(p->cont);
	p->cont = NULL;
	if (!root || !json_object_object_get_ex(root, "metadata", &meta))
		return false;
	/* ListMeta's fields as the unstructured list reads them: strings only */
	*rv = json_get_str(meta, "resourceVersion", NULL);
	if (*rv && !p->res->rv)
		p->res->rv = xstrdup(*rv);
	if (!*rv)
		*rv = "";
	cont = json_get_str(meta, "continue", "");
	if (*cont)
		p->cont = xstrdup(cont);
	return true;
}

static void page_read(struct pager *p, const char *rv, json_object *head, json_object *no_items)
{
	struct pager_page pg = {
		.page = p->res->pages, .items = p->res->items, .rv = rv, .cont = p->cont,
		.no_items = no_items, .head = head,
	};

	p->retries = 0;
	if (p->hooks->page)
		p->hooks->page(p->hooks->ctx, &pg);
}

/* Whether a page, root without its items array, has items neither array nor null. */
static bool other_items(const struct list_splitter *split, json_object *root)
{
	json_object *items;

	return !split->has_items && json_object_object_get_ex(root, "items", &items) && items;
}

/*
 * What client-go's dynamic client refuses of a page, root being the page
 * without its items array: "items" that is neither an array nor null
 * (decodeToList), then a kind that is no string or empty (Decode).
 */
static enum pager_end dynamic_refusal(const struct list_splitter *split, json_object *root)
{
	if (!root)
		return PAGER_MALFORMED;	/* deeper than Go reads */
	if (other_items(split, root))
		return PAGER_ITEMS_NOT_ARRAY;
	if (!*json_get_str(root, "kind", ""))
		return PAGER_NO_KIND;
	return PAGER_OK;
}

/*
 * A strict page as kubectl's builder decodes it (UnstructuredJSONScheme):
 * with "items", a list, whose items may be null (none) but nothing else
 * but an array; without, no list.
 */
static enum pager_end strict_refusal(const struct list_splitter *split, json_object *root)
{
	if (!split->has_items && !json_object_object_get_ex(root, "items", NULL))
		return PAGER_NOT_A_LIST;
	return other_items(split, root) ? PAGER_ITEMS_NOT_ARRAY : PAGER_OK;
}

/* A 2xx JSON list's page, read in full: its end, or PAGER_OK to go on. */
static enum pager_end items_page(struct pager *p)
{
	struct pager_result *res = p->res;
	const char *rv;

	if (!list_splitter_done(&p->split))
		return PAGER_ENDED_EARLY;
	json_object *root = json_parse_deep(list_splitter_rest(&p->split));
	enum pager_end end = p->opts->dynamic ? dynamic_refusal(&p->split, root)
			   : p->opts->strict ? strict_refusal(&p->split, root) : PAGER_OK;
	if (end == PAGER_NOT_A_LIST) {
		json_object_put(root);
		res->rest = xstrdup(list_splitter_rest(&p->split));
		return end;
	}
	bool has_meta = read_metadata(p, root, &rv);
	if (end == PAGER_OK)
		page_read(p, rv, root, p->opts->dynamic && !p->split.has_items ? root : NULL);
	if (end == PAGER_OK && !has_meta && p->opts->strict)
		end = PAGER_NO_METADATA;	/* read, and the last */
	json_object_put(root);
	return end;
}

/*
 * A Table page's rows[].object.metadata cut, as it is read, to what a
 * printed row reads: the rest is never built.
 */
static int printed_meta(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	(void)s, (void)ctx;
	return json_scan_key_is(key, klen, "namespace") || json_scan_key_is(key, klen, "labels")
	       ? 0 : JSON_SCAN_CUT;
}

/* Into the object named key, when it is one: 1 scanned, 0 not, -1 error. */
static int into(struct json_scan *s, const char *key, size_t klen, const char *name,
		json_scan_member_fn *fn)
{
	if (!json_scan_key_is(key, klen, name) || *s->p != '{')
		return 0;
	return json_scan_object(s, fn, NULL) < 0 ? -1 : 1;
}

static int row_object(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	(void)ctx;
	return into(s, key, klen, "metadata", printed_meta);
}

static int row_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	(void)ctx;
	return into(s, key, klen, "object", row_object);
}

static int row(struct json_scan *s, void *ctx)
{
	(void)ctx;
	if (*s->p != '{')
		return 0;
	return json_scan_object(s, row_member, NULL) < 0 ? -1 : 1;
}

static int page_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	(void)ctx;
	if (!json_scan_key_is(key, klen, "rows") || *s->p != '[')
		return 0;
	return json_scan_array(s, row, NULL) < 0 ? -1 : 1;
}

/* A 2xx Table's page, read in full: its end, or PAGER_OK to go on. */
static enum pager_end table_page(struct pager *p)
{
	/* its cells' numbers as kubectl decodes them: 1e+20, not a uint64 */
	json_object *page = json_scan_parse(p->body.buf, p->body.len,
					    p->opts->include_object ? NULL : page_member, NULL);
	enum pager_end end = PAGER_OK;
	const char *rv;

	if (!page) {
		if (cut_short(strbuf_str(&p->body)))
			return PAGER_ENDED_EARLY;
		json_describe_start(p->body.buf, p->body.len, p->res->begins,
				    sizeof(p->res->begins));
		return PAGER_NOT_JSON;
	}
	read_metadata(p, page, &rv);
	if (p->hooks->table(p->hooks->ctx, page) < 0)
		end = PAGER_REFUSED;
	else
		page_read(p, rv, NULL, NULL);
	json_object_put(page);
	return end;
}

/* What the body of a failed transfer says went wrong. */
static enum pager_end broken_body(struct pager *p)
{
	if (p->opts->as == PAGER_TABLE || !p->split_failed)
		return PAGER_FAILED;
	if (p->split.too_large)
		return PAGER_TOO_LARGE_PIECE;
	if (p->split.not_json) {
		json_describe_start(p->split.head, p->split.head_len, p->res->begins,
				    sizeof(p->res->begins));
		return PAGER_NOT_JSON;
	}
	return PAGER_MALFORMED;
}

/*
 * A non-2xx answer not retried: -1 to ask again (the full list after an
 * expired continue token), else how the list ends.
 */
static int bad_status(struct pager *p, const char *what, struct errbuf *err)
{
	const struct http_response *resp = &p->res->resp;

	if (p->cont && p->opts->full_list_fallback && http_status_reason_is(resp, "Expired")) {
		/* tools/pager: only IsResourceExpired, the reason, not the code. */
		if (p->hooks->restart)
			p->hooks->restart(p->hooks->ctx);
		p->res->items = 0;
		free(p->cont);
		p->cont = NULL;
		p->full = true;
		return -1;
	}
	http_status_message(resp, what, err);
	return PAGER_STATUS;
}

/* After one request: -1 for another request, else how the list ends. */
static int page_end(struct pager *p, int rc, const char *what, struct errbuf *err)
{
	const struct pager_opts *o = p->opts;
	const struct http_response *resp = &p->res->resp;

	if (o->stream.stop && atomic_load(o->stream.stop))
		return PAGER_STOPPED;
	if (p->refused)
		return PAGER_REFUSED;
	if (p->hooks->retry && p->retries < HTTP_MAX_RETRIES &&
	    (rc < 0 ? http_no_answer_retriable(resp, rc) : http_rest_retriable(resp))) {
		/* Nothing of this page was handed out (no byte, or a non-2xx). */
		p->retries++;
		int again = p->hooks->retry(p->hooks->ctx, resp);
		if (again > 0)
			return -1;
		if (again < 0)
			return PAGER_STOPPED;
	}
	if (rc < 0)
		return broken_body(p);
	if (resp->status < 200 || resp->status > 299)
		return bad_status(p, what, err);

	enum pager_end end = o->as == PAGER_TABLE ? table_page(p) : items_page(p);
	if (end != PAGER_OK || !p->cont)
		return end;
	return -1;
}

int pager_list(struct kclient *client, const struct pager_opts *opts, const char *what,
	       const struct pager_hooks *hooks, struct pager_result *res, struct errbuf *err)
{
	struct pager p = {
		.client = client, .opts = opts, .hooks = hooks, .res = res,
	};
	int end;

	memset(res, 0, sizeof(*res));
	p.started = kclient_now_ms(client);
	p.next_warn = p.started + opts->warn_ms;
	do {
		int rc = request_page(&p, err);
		end = page_end(&p, rc, what, err);
		if (opts->as != PAGER_TABLE)
			list_splitter_release(&p.split);
		else
			strbuf_release(&p.body);
	} while (end < 0);
	res->end = (enum pager_end)end;
	free(p.cont);
	return res->end == PAGER_OK ? 0 : -1;
}

void pager_result_release(struct pager_result *res)
{
	http_response_release(&res->resp);
	free(res->rv);
	free(res->rest);
	memset(res, 0, sizeof(*res));
}

/* How each end a body can have reads in kubectl's words; NULL: not one. */
static const char *const explanations[] = {
	[PAGER_TOO_LARGE_PIECE] = "holds a piece larger than 16 MiB",
	[PAGER_NOT_JSON] = "is not JSON: ",
	[PAGER_MALFORMED] = "is malformed",
	[PAGER_ENDED_EARLY] = "ended early",
	[PAGER_ITEMS_NOT_ARRAY] = "has items that are no array",
};

void pager_explain(const struct pager_result *res, const char *name, struct errbuf *err)
{
	if (res->end >= ARRAY_SIZE(explanations) || !explanations[res->end])
		return;
	errbuf_set(err, "the server's list of %s %s%s", name, explanations[res->end],
		   res->end == PAGER_NOT_JSON ? res->begins : "");
}

bool pager_status_error(struct json_object *doc, const char *what, struct errbuf *err)
{
	const char *msg = json_get_text(doc, "message", "");
	int code = json_object_get_int(json_get(doc, "code"));

	if (strcmp(json_get_text(doc, "kind", ""), "Status"))
		return false;
	errbuf_set(err, "%s: %s (%d, a Status in a 200 answer)", what, *msg ? msg : "no message",
		   code);
	return true;
}

bool pager_lone_object(struct json_object *doc, const char *what, struct errbuf *err)
{
	if (*json_get_text(doc, "kind", ""))
		return true;
	const char *text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
								JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = strlen(text);
	errbuf_set(err, "%s: Object 'Kind' is missing in '%.*s%s'", what,
		   len > LONE_OBJECT_SHOWN ? LONE_OBJECT_SHOWN : (int)len, text,
		   len > LONE_OBJECT_SHOWN ? "..." : "");
	return false;
}

static void gather_object(struct pager_tables *pt, struct json_object *obj)
{
	ALLOC_GROW(pt->objs, pt->nr + 1, pt->alloc);
	pt->objs[pt->nr++] = json_object_get(obj);
}

int pager_gather_table(void *ctx, struct json_object *page)
{
	struct pager_tables *pt = ctx;
	struct json_object *rows = json_get(page, "rows"), *all, *items = NULL;

	if (pager_status_error(page, pt->what, &pt->status)) {
		pt->not_found = http_status_is(page, API_NOT_FOUND);
		return -1;
	}
	if (strcmp(json_get_text(page, "kind", ""), "Table")) {
		if (json_object_object_get_ex(page, "items", &items)) {
			if (items && !json_object_is_type(items, json_type_array)) {
				errbuf_set(&pt->status, "%s: the answer %s", pt->what,
					   explanations[PAGER_ITEMS_NOT_ARRAY]);
				return -1;
			}
			for (size_t i = 0; i < json_get_len(items); i++)
				gather_object(pt, json_object_array_get_idx(items, i));
		} else if (pager_lone_object(page, pt->what, &pt->status)) {
			gather_object(pt, page);
		} else {
			return -1;
		}
	} else if (!pt->table) {
		pt->table = json_object_get(page);
	} else if (json_object_is_type(all = json_get(pt->table, "rows"), json_type_array)) {
		for (size_t i = 0; i < json_get_len(rows); i++)
			json_object_array_add(all, json_object_get(json_object_array_get_idx(rows, i)));
	}
	return 0;
}

void pager_tables_release(struct pager_tables *pt)
{
	json_object_put(pt->table);
	for (size_t i = 0; i < pt->nr; i++)
		json_object_put(pt->objs[i]);
	free(pt->objs);
}
