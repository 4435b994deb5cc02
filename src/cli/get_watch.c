/*
 * get_watch.c — `kinf get -w`, as kubectl's get.go watch() prints it;
 * see get_watch.h.  One thread: the caller's, blocked in the LIST and
 * then in the WATCH, printing each event as its line arrives.
 */
#include "cli/get_watch.h"

#include <errno.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "cluster/discovery.h"
#include "cluster/http.h"
#include "cluster/pager.h"
#include "informer/decode_error.h"
#include "informer/kobj.h"
#include "lib/json_get.h"
#include "lib/json_stream.h"
#include "lib/selector.h"
#include "lib/strbuf.h"
#include "lib/tabwriter.h"
#include "lib/termsafe.h"
#include "lib/util.h"
#include "output/columns.h"
#include "output/gofmt.h"

/* One `get -w`: what it prints with, and how far it got. */
struct gw {
	const struct get_watch_opts *o;
	const struct api_resource *res;
	bool tabular;			/* table or wide */
	unsigned flags;			/* kobj's, for the objects printed */
	struct kubetable_stream ts;
	struct tabwriter tw;		/* the other formats' */
	bool skip_next;			/* after a GET: the first event is the object again */
	bool stop;			/* printing failed: the watch ends */
	bool made_status;		/* printing client-go's Status of a refused value */
	struct errbuf err;
	const struct value_splitter *values;	/* the stream's */
};

/*
 * A Status kubectl prints as its typed metav1.Status: one client-go
 * made (made_status), or a server's of apiVersion v1, which kubectl's
 * decoder (UnstructuredPlusDefaultContentConfig) decodes into that type;
 * any other is an object like the rest.
 */
static bool is_status(const struct gw *g, struct json_object *obj)
{
	return g->made_status || (!strcmp(json_get_str(obj, "kind", ""), "Status") &&
				  !strcmp(json_get_str(obj, "apiVersion", ""), "v1"));
}

/*
 * Writes and empties sb.  A format that is no table goes through
 * kubectl's tabwriter, as its watch writes it (a template's tabs
 * align), flushed unless its print failed: kubectl's watch then ends
 * with only what the tabwriter let go (tabwriter.h).  -o name and json
 * on a terminal escaped, as get's.
 */
static int emit(struct gw *g, struct strbuf *sb, bool flush)
{
	struct strbuf safe = STRBUF_INIT, aligned = STRBUF_INIT;
	const struct strbuf *w = sb;
	int ret = 0;

	if (!g->tabular) {
		tabwriter_write(&g->tw, sb->buf, sb->len, &aligned);
		if (flush)
			tabwriter_flush(&g->tw, &aligned);
		w = &aligned;
	}
	if (g->o->fmt->terminal &&
	    (g->o->fmt->kind == FORMAT_NAME || g->o->fmt->kind == FORMAT_JSON)) {
		strbuf_add_termsafe(&safe, w->buf, w->len, g->o->fmt->kind == FORMAT_NAME
				    ? TERMSAFE_NEWLINE : TERMSAFE_JSON);
		w = &safe;
	}
	if (w->len && (fwrite(w->buf, 1, w->len, stdout) != w->len || fflush(stdout) != 0)) {
		if (errno != EPIPE)
			error("cannot write output: %s", strerror(errno));
		ret = -1;
	}
	strbuf_release(&safe);
	strbuf_release(&aligned);
	strbuf_reset(sb);
	return ret;
}

/*
 * A Go struct's JSON fields in their declaration order, and the struct
 * of each field's value (or of its elements) where it is one: how
 * json.Marshal writes a value kubectl decoded into a typed struct.
 */
struct go_field {
	const char *name;
	const struct go_field *sub;
};

static const struct go_field cause_fields[] = {
	{ "reason", NULL }, { "message", NULL }, { "field", NULL }, { NULL, NULL },
};
static const struct go_field details_fields[] = {
	{ "name", NULL }, { "group", NULL }, { "kind", NULL }, { "uid", NULL },
	{ "causes", cause_fields }, { "retryAfterSeconds", NULL }, { NULL, NULL },
};
static const struct go_field list_meta_fields[] = {
	{ "selfLink", NULL }, { "resourceVersion", NULL }, { "continue", NULL },
	{ "remainingItemCount", NULL }, { NULL, NULL },
};
/* metav1.Status; its metadata is never omitted (a struct, not a pointer) */
static const struct go_field status_fields[] = {
	{ "kind", NULL }, { "apiVersion", NULL }, { "metadata", list_meta_fields },
	{ "status", NULL }, { "message", NULL }, { "reason", NULL },
	{ "details", details_fields }, { "code", NULL }, { NULL, NULL },
};

/* omitempty: "", 0, false, null and [] are left out */
static bool go_empty(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		return true;
	case json_type_string:
		return !json_object_get_string_len(v);
	case json_type_int:
		return !json_object_get_int64(v);
	case json_type_boolean:
		return !json_object_get_boolean(v);
	case json_type_array:
		return !json_object_array_length(v);
	default:
		return false;
	}
}

/* A newline and the indent of depth (MarshalIndent's four spaces); none compact. */
static void go_newline(int depth, struct strbuf *out)
{
	if (depth < 0)
		return;
	strbuf_addch(out, '\n');
	for (int i = 0; i < depth; i++)
		strbuf_adds(out, "    ");
}

/*
 * v as a typed value of fields marshals: indented at depth, or compact
 * (-1).  A Status so (status_fields) is as kubectl's typed metav1.Status
 * marshals: its fields in the struct's order, not sorted (kubectl
 * decodes an ERROR event's object into that type).
 */
static void typed_json(struct json_object *v, const struct go_field *fields, int depth,
		       struct strbuf *out)
{
	int in = depth < 0 ? -1 : depth + 1;
	bool first = true;

	if (fields && json_object_is_type(v, json_type_array)) {
		strbuf_addch(out, '[');
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			strbuf_adds(out, i ? "," : "");
			go_newline(in, out);
			typed_json(json_object_array_get_idx(v, i), fields, in, out);
		}
		go_newline(depth, out);
		strbuf_addch(out, ']');
	} else if (fields && json_object_is_type(v, json_type_object)) {
		strbuf_addch(out, '{');
		for (const struct go_field *f = fields; f->name; f++) {
			struct json_object *m = json_get(v, f->name);
			bool always = fields == status_fields && f->sub == list_meta_fields;
			if (!always && go_empty(m))
				continue;
			strbuf_adds(out, first ? "" : ",");
			first = false;
			go_newline(in, out);
			gofmt_marshal_string(f->name, strlen(f->name), out);
			strbuf_adds(out, depth < 0 ? ":" : ": ");
			typed_json(m, f->sub, in, out);
		}
		if (!first)
			go_newline(depth, out);
		strbuf_addch(out, '}');
	} else if (!v && fields) {
		strbuf_adds(out, "{}");	/* the metadata of a Status without one */
	} else if (depth < 0) {
		gofmt_marshal(v, out);
	} else {
		struct strbuf val = STRBUF_INIT;
		gofmt_marshal_indent(v, &val);
		for (size_t j = 0; j < val.len; j++) {
			strbuf_addch(out, val.buf[j]);
			if (val.buf[j] == '\n')
				for (int i = 0; i < depth; i++)
					strbuf_adds(out, "    ");
		}
		strbuf_release(&val);
	}
}

/* {"type":T,"object":obj}: what kubectl prints with --output-watch-events. */
static struct json_object *envelope(const char *type, struct json_object *obj)
{
	struct json_object *ev = json_object_new_object();

	json_object_object_add(ev, "type", json_object_new_string(type));
	json_object_object_add(ev, "object", json_object_get(obj));
	return ev;
}

/* -o json with --output-watch-events: json.Marshal's one line. */
static void event_json(const struct gw *g, const char *type, struct json_object *obj,
		       struct strbuf *out)
{
	strbuf_adds(out, "{\"type\":");
	gofmt_marshal_string(type, strlen(type), out);
	strbuf_adds(out, ",\"object\":");
	if (is_status(g, obj))
		typed_json(obj, status_fields, -1, out);
	else
		gofmt_marshal(obj, out);
	strbuf_adds(out, "}\n");
}

static void name_line(struct gw *g, struct json_object *obj, struct strbuf *out)
{
	if (g->made_status || !strcmp(json_get_str(obj, "kind", ""), "Status"))
		strbuf_adds(out, "status/<unknown>\n");	/* kubectl's, for any Status */
	else
		strbuf_addf(out, "%s/%s\n", g->o->name_prefix,
			    json_get_str(json_get(obj, "metadata"), "name", ""));
}

/*
 * The Go type custom columns see, which prints their header again when
 * it changes (format_print_watch()): an object, a Status, or the pages
 * of a LIST (kubectl's printer takes their items, but remembers the
 * list's type).
 */
enum go_type { GO_OBJECT, GO_STATUS, GO_PAGES };

/*
 * Objects in a format other than a table, in one flush: type the event
 * type with --output-watch-events (ADDED for the list's); the items of
 * pages when from_pages.
 */
static int print_objects(struct gw *g, const char *type, struct json_object *const *objs,
			 size_t n, bool from_pages, struct strbuf *out)
{
	const struct get_watch_opts *o = g->o;
	bool no_headers = o->table.no_headers;
	int rc = 0;

	if (o->fmt->kind == FORMAT_NAME) {
		for (size_t i = 0; i < n; i++)
			name_line(g, objs[i], out);
		return 0;
	}
	if (o->fmt->kind == FORMAT_JSON) {
		for (size_t i = 0; i < n && rc == 0; i++) {
			if (o->events) {
				event_json(g, type, objs[i], out);
			} else if (is_status(g, objs[i])) {
				typed_json(objs[i], status_fields, 0, out);
				strbuf_addch(out, '\n');
			} else {
				rc = format_print_watch(o->fmt, &objs[i], 1, 0, no_headers, out, &g->err);
			}
		}
		return rc;
	}
	struct json_object **shown = xcalloc(n ? n : 1, sizeof(*shown));
	for (size_t i = 0; i < n; i++)
		shown[i] = o->events ? envelope(type, objs[i]) : json_object_get(objs[i]);
	enum go_type gt = from_pages ? GO_PAGES
			: !o->events && n == 1 && is_status(g, objs[0]) ? GO_STATUS : GO_OBJECT;
	rc = format_print_watch(o->fmt, shown, n, (int)gt, no_headers, out, &g->err);
	for (size_t i = 0; i < n; i++)
		json_object_put(shown[i]);
	free(shown);
	return rc;
}

/*
 * One Table (or an object or Status a table shows): event with -o
 * events.  Never sorted here: kubectl's warning says an event is not,
 * and print_first() sorts the list's.
 */
static void print_tabular(struct gw *g, const char *type, struct json_object *obj,
			  struct strbuf *out)
{
	const struct get_watch_opts *o = g->o;
	const char *event = o->events ? type : NULL;

	if (is_status(g, obj)) {
		kubetable_stream_status(&g->ts, obj, event, o->table.no_headers, out);
		return;
	}
	/* a server without Tables: kubectl's default columns, NAME and AGE */
	struct json_object *t = NULL;
	get_table_add(&t, json_object_get(obj));
	if (o->show_kind)
		kubetable_prefix_names(t, o->name_prefix, g->ts.columns);
	kubetable_stream_print(&g->ts, t, event, &o->table, out);
	json_object_put(t);
}

/* ---- the watch ------------------------------------------------------------ */

static struct json_object *cause(const char *reason, const char *message)
{
	struct json_object *c = json_object_new_object();

	json_object_object_add(c, "reason", json_object_new_string(reason));
	json_object_object_add(c, "message", json_object_new_string(message));
	return c;
}

/*
 * The ERROR event client-go's StreamWatcher sends for a value its
 * decoder refused (why: see decode_error.h), printed; the watch ends
 * there.  Its object is a Status of errors.NewClientErrorReporter, a 500
 * with two causes, printed as kubectl prints the metav1.Status it is;
 * inside a watch event, as it marshals one it made, without kind and
 * apiVersion.
 */
static void tell_decode_error(struct gw *g, const char *why)
{
	struct json_object *st = json_object_new_object();
	struct json_object *details = json_object_new_object();
	struct json_object *causes = json_object_new_array();
	struct strbuf server = STRBUF_INIT, msg = STRBUF_INIT, out = STRBUF_INIT;

	strbuf_addf(&server, "unable to decode an event from the watch stream: %s", why);
	strbuf_adds(&msg, "an error on the server (");
	gofmt_quote(server.buf, server.len, &msg);
	strbuf_adds(&msg, ") has prevented the request from succeeding");
	if (!g->o->events) {
		json_object_object_add(st, "kind", json_object_new_string("Status"));
		json_object_object_add(st, "apiVersion", json_object_new_string("v1"));
	}
	json_object_object_add(st, "metadata", json_object_new_object());
	json_object_object_add(st, "status", json_object_new_string("Failure"));
	json_object_object_add(st, "message", json_object_new_string(strbuf_str(&msg)));
	json_object_object_add(st, "reason", json_object_new_string("InternalError"));
	json_object_array_add(causes, cause("UnexpectedServerResponse", strbuf_str(&server)));
	json_object_array_add(causes, cause("ClientWatchDecoding", strbuf_str(&server)));
	json_object_object_add(details, "causes", causes);
	json_object_object_add(st, "details", details);
	json_object_object_add(st, "code", json_object_new_int(500));
	g->made_status = true;
	if (g->tabular)
		print_tabular(g, "ERROR", st, &out);
	if (g->tabular || print_objects(g, "ERROR", &st, 1, false, &out) == 0)
		emit(g, &out, true);
	g->made_status = false;
	g->stop = true;
	json_object_put(st);
	strbuf_release(&server);
	strbuf_release(&msg);
	strbuf_release(&out);
}

/* One value of the watch stream: printed, skipped, or the end. */
static int on_event(void *ctx, const char *text, size_t len)
{
	struct gw *g = ctx;
	struct json_object *ev = kobj_parse(text, len, true, g->flags);
	struct json_object *obj = json_get(ev, "object");
	const char *type = json_get_str(ev, "type", "");
	struct strbuf out = STRBUF_INIT, why = STRBUF_INIT;
	int rc = 0;

	if (!ev && !g->values->framed)
		return JSON_PIECE_REFRAME;	/* not one value: framed as client-go frames it */
	if (watch_decode_error(text, len, &why)) {
		tell_decode_error(g, strbuf_str(&why));
		rc = -1;
	} else if (!obj) {
		rc = -1;	/* valid to client-go, not to kinf's reader: not met */
	} else if (!strcmp(type, "BOOKMARK")) {
		/* never printed (kubectl asks for none) */
	} else if (g->skip_next) {
		g->skip_next = false;
	} else {
		if (g->tabular)
			print_tabular(g, type, obj, &out);
		else
			rc = print_objects(g, type, &obj, 1, false, &out);
		if (rc == 0)
			rc = emit(g, &out, true);
		else if (!g->tabular)
			emit(g, &out, false);	/* what the tabwriter lets go of a failed print */
	}
	if (rc < 0)
		g->stop = true;	/* a print that fails ends kubectl's watch, status 0 */
	strbuf_release(&out);
	strbuf_release(&why);
	json_object_put(ev);
	return rc;
}

static int on_watch_data(void *ctx, const char *data, size_t len)
{
	struct value_splitter *vs = ctx;
	struct gw *g = vs->ctx;
	int rc = value_splitter_feed(vs, data, len);

	/* streaming.NewDecoder's ErrObjectTooLarge, in its words */
	if (rc < 0 && vs->too_large && !g->stop)
		tell_decode_error(g, "object to decode was longer than maximum allowed size");
	return rc;
}

/* The WATCH kubectl's builder makes: r.Watch(rv), its query's keys sorted. */
static char *watch_path(struct cluster *c, const struct get_watch_opts *o,
			const struct api_resource *res, const char *rv, bool tabular)
{
	char *base = api_resource_path(res, res->namespaced ? c->scope_ns : NULL);
	struct strbuf q = STRBUF_INIT, path = STRBUF_INIT;

	if (o->nnames) {	/* one: get_watch() watches no more */
		char *f = field_selector_term("metadata.name", o->names[0]);
		url_query_add(&q, "fieldSelector", f);
		free(f);
	} else if (o->field_selector) {
		url_query_add(&q, "fieldSelector", o->field_selector);
	}
	if (tabular && o->table.sort_by)
		url_query_add(&q, "includeObject", "Object");
	if (!o->nnames && o->label_selector)
		url_query_add(&q, "labelSelector", o->label_selector);
	if (*rv)
		url_query_add(&q, "resourceVersion", rv);
	url_query_add(&q, "watch", "true");
	strbuf_addf(&path, "%s%s", base, strbuf_str(&q));
	strbuf_release(&q);
	free(base);
	return strbuf_detach(&path, NULL);
}

static int run_watch(struct gw *g, struct cluster *c, const char *rv, struct errbuf *err)
{
	char *path = watch_path(c, g->o, g->res, rv, g->tabular);
	struct value_splitter ls;
	struct stream_opts so = {
		.timeout_ms = kclient_timeout(c->client),
		.retries = HTTP_MAX_RETRIES,
		.accept = g->tabular ? PAGER_ACCEPT_TABLE : NULL,
		.limiter = c->limiter,
		/* `| head -1` on a quiet cluster: ended as the reader leaves */
		.hangup_fd = STDOUT_FILENO,
	};
	struct http_response resp = { 0 };
	int ret = 0;

	value_splitter_init(&ls, on_event, g);
	g->values = &ls;
	int rc = kclient_stream(c->client, path, &so, on_watch_data, &ls, &resp, err);
	/* no answer at all (a reset, an EOF): the REST client's Watch tries again */
	for (unsigned attempt = 1; http_no_answer_retriable(&resp, rc) &&
	     attempt <= HTTP_MAX_RETRIES; attempt++) {
		http_response_release(&resp);
		memset(&resp, 0, sizeof(resp));
		err->msg[0] = '\0';
		nanosleep(&(struct timespec){ .tv_nsec = HTTP_NO_ANSWER_RETRY_MS * 1000000L % 1000000000L,
					      .tv_sec = HTTP_NO_ANSWER_RETRY_MS / 1000 }, NULL);
		so.retry = true;
		rc = kclient_stream(c->client, path, &so, on_watch_data, &ls, &resp, err);
	}
	/* StreamWatcher's ERROR event for a stream that broke with no EOF */
	if (rc < 0 && resp.stream_broken && resp.status >= 200 && resp.status < 300 && !g->stop)
		tell_decode_error(g, resp.stream_error);
	if (resp.status >= 200 && resp.status < 300) {
		ret = 0;	/* however it ended: kubectl's watch ends with 0 */
	} else if (resp.status) {
		char what[128];
		snprintf(what, sizeof(what), "watch %s", g->res->name);
		http_status_message(&resp, what, err);
		ret = -1;
	} else if (rc < 0) {
		ret = -1;
	}
	if (ret < 0 && fd_hung_up(STDOUT_FILENO)) {
		/* `| head`: the reader left; no failure, as for watch */
		err->msg[0] = '\0';
		ret = 0;
	}
	value_splitter_release(&ls);
	http_response_release(&resp);
	free(path);
	return ret;
}

/* ---- the list (or the object) first --------------------------------------- */

struct first {
	/* the objects (not tabular, or from a server without Tables) */
	struct pager_tables pt;
	/*
	 * Each page of the LIST (its items in it, or its Table), or each
	 * object's Table by name.  kubectl's builder makes each an Info,
	 * and Result.Object() a List of them when there are several
	 * (print_first()).
	 */
	struct json_object **pages;
	size_t npages, pages_alloc;
	size_t paged;			/* objects of pt.objs in a page so far */
	char *rv;			/* where the watch starts */
	struct kobj_type type;
	unsigned flags;
	struct errbuf err;		/* why first_item() refused an object */
};

static void first_release(struct first *f)
{
	pager_tables_release(&f->pt);
	for (size_t i = 0; i < f->npages; i++)
		json_object_put(f->pages[i]);
	free(f->pages);
	free(f->rv);
}

/* f takes page over. */
static void add_page(struct first *f, struct json_object *page)
{
	ALLOC_GROW(f->pages, f->npages + 1, f->pages_alloc);
	f->pages[f->npages++] = page;
}

/* A Table page, kept whole; a Status or a plain list as pager_gather_table() takes it. */
static int first_table(void *ctx, struct json_object *page)
{
	struct first *f = ctx;

	if (strcmp(json_get_text(page, "kind", ""), "Table"))
		return pager_gather_table(&f->pt, page);
	add_page(f, json_object_get(page));
	return 0;
}

static int first_item(void *ctx, const char *text, size_t len)
{
	struct first *f = ctx;
	struct kobj *obj = kobj_from_list_item(text, len, &f->type, f->flags, &f->err);

	if (!obj)
		return -1;
	ALLOC_GROW(f->pt.objs, f->pt.nr + 1, f->pt.alloc);
	f->pt.objs[f->pt.nr++] = kobj_tree(obj);
	kobj_unref(obj);
	return 0;
}

/*
 * A page read.  Result.Object()'s resourceVersion, where the watch
 * starts, is the pages' when they agree, else none.
 */
static void first_page(void *ctx, const struct pager_page *p)
{
	struct first *f = ctx;

	if (!f->rv)
		f->rv = xstrdup(p->rv);
	else if (strcmp(f->rv, p->rv))
		f->rv[0] = '\0';
	if (!p->head)
		return;		/* a Table */
	struct json_object *items = json_object_new_array();
	for (; f->paged < f->pt.nr; f->paged++)
		json_object_array_add(items, json_object_get(f->pt.objs[f->paged]));
	json_object_object_add(p->head, "items", items);
	add_page(f, json_object_get(p->head));
}

/*
 * A last page that was one object, as kubectl reads it: one of the
 * objects, and in the last page's items when pages came before it.
 */
static void first_lone(struct first *f, const char *text)
{
	if (first_item(f, text, strlen(text)) < 0) {
		errbuf_set(&f->pt.status, "%s", f->err.msg);
		return;
	}
	if (!f->npages)
		return;
	struct json_object *obj = f->pt.objs[f->paged++];
	json_object_array_add(json_get(f->pages[f->npages - 1], "items"), json_object_get(obj));
	/* an Info of its own, whose resourceVersion the pages' must agree with */
	if (f->rv && strcmp(f->rv, json_get_text(json_get(obj, "metadata"), "resourceVersion", "")))
		f->rv[0] = '\0';
}

/* kubectl's LIST: pages of --chunk-size, a Table when one is printed. */
static int list_first(struct gw *g, struct cluster *c, struct first *f, struct errbuf *err)
{
	bool as_table = g->tabular;
	char *path = api_resource_path(g->res, g->res->namespaced ? c->scope_ns : NULL);
	struct pager_opts po = {
		.path = path,
		.as = as_table ? PAGER_TABLE : PAGER_ITEMS,
		.limit = g->o->limit,
		.label_selector = g->o->label_selector,
		.field_selector = g->o->field_selector,
		.include_object = as_table && g->o->table.sort_by,
		.strict = !as_table,	/* to see a Status in a 200 answer */
		.stream = {
			.idle_timeout_ms = 60000,
			.timeout_ms = kclient_timeout(c->client),
			.retries = HTTP_MAX_RETRIES,
			.limiter = c->limiter,
		},
	};
	struct pager_hooks hooks = {
		.ctx = f, .table = first_table, .item = first_item, .page = first_page,
	};
	struct pager_result pr;
	char what[128];
	int ret = 0;

	snprintf(what, sizeof(what), "list %s", g->res->name);
	f->pt.what = what;
	if (pager_list(c->client, &po, what, &hooks, &pr, err) < 0) {
		struct json_object *rest = pr.rest ? json_tokener_parse(pr.rest) : NULL;
		if (pr.end == PAGER_NOT_A_LIST && !pager_status_error(rest, what, &f->pt.status) &&
		    pager_lone_object(rest, what, &f->pt.status))
			first_lone(f, pr.rest);
		json_object_put(rest);
		if (f->pt.status.msg[0]) {
			errbuf_set(err, "%s", f->pt.status.msg);
			ret = -1;
		} else if (pr.end != PAGER_NO_METADATA && pr.end != PAGER_NOT_A_LIST) {
			/* (those two kubectl takes as the last page, or an empty list) */
			pager_explain(&pr, g->res->name, err);
			ret = -1;
		}
	}
	if (!f->rv)
		f->rv = xstrdup(pr.rv ? pr.rv : "");
	pager_result_release(&pr);
	free(path);
	return ret;
}

void get_not_found(const struct api_resource *res, const char *name, struct errbuf *err)
{
	errbuf_set(err, "%s%s%s \"%s\" not found", res->name, res->group[0] ? "." : "",
		   res->group, name);
}

/*
 * cli-runtime's Info.Get: an object not found in a namespace other than
 * "default" asks for the namespace too, through the same client (a
 * table's Accept and includeObject), and when that is not found either,
 * the namespace is what err says is not found.
 */
static void namespace_not_found(struct cluster *c, bool table, bool include_object,
				struct errbuf *err)
{
	const char *ns = c->scope_ns;
	struct strbuf path = STRBUF_INIT;
	struct http_response resp = { 0 };
	struct errbuf ignored = { "" };

	if (!ns || !*ns || !strcmp(ns, "default"))
		return;
	strbuf_adds(&path, "/api/v1/namespaces/");
	url_path_escape(&path, ns);
	if (table && include_object)
		strbuf_adds(&path, "?includeObject=Object");
	if (kclient_get_accept(c->client, path.buf, table ? PAGER_ACCEPT_TABLE : NULL, 0,
			       c->limiter, &resp, &ignored) == 0 && resp.status == 404)
		errbuf_set(err, "namespaces \"%s\" not found", ns);
	http_response_release(&resp);
	strbuf_release(&path);
}

int get_object(struct cluster *c, const struct api_resource *res, const char *name,
	       bool table, bool include_object, unsigned flags, struct json_object **out,
	       struct errbuf *err)
{
	const char *why = url_segment_refused(name);
	if (why) {
		errbuf_set(err, "invalid resource name \"%s\": %s", name, why);
		return -1;
	}
	char *base = api_resource_path(res, res->namespaced ? c->scope_ns : NULL);
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/", base);
	url_path_escape(&p, name);
	if (table && include_object)
		strbuf_adds(&p, "?includeObject=Object");
	char *path = strbuf_detach(&p, NULL);
	struct http_response resp = { 0 };
	int ret = -1;

	if (kclient_get_accept(c->client, path, table ? PAGER_ACCEPT_TABLE : NULL, 0,
			       c->limiter, &resp, err) < 0)
		goto out;
	if (resp.status == 404) {
		/* kubectl prints the server's word: `kind "name" not found`, or another */
		char *msg = http_status_member(&resp, "message");
		if (msg)
			errbuf_set(err, "%s", msg);
		else
			get_not_found(res, name, err);
		free(msg);
		if (res->namespaced)
			namespace_not_found(c, table, include_object, err);
		ret = http_answer_is(&resp, API_NOT_FOUND) ? GET_NOT_FOUND : -1;
		goto out;
	}
	if (resp.status < 200 || resp.status >= 300) {
		char what[128];
		snprintf(what, sizeof(what), "get %s", res->name);
		http_status_message(&resp, what, err);
		ret = http_answer_is(&resp, API_NOT_FOUND) ? GET_NOT_FOUND : -1;
		goto out;
	}
	struct json_object *obj = kobj_parse(resp.body.buf, resp.body.len, false, flags);
	if (!obj || !strcmp(json_get_str(obj, "kind", ""), "Status")) {
		errbuf_set(err, "get %s: %s", res->name, obj ? json_get_str(obj, "message", "")
							   : "the answer is not JSON");
		ret = obj && http_status_is(obj, API_NOT_FOUND) ? GET_NOT_FOUND : -1;
		json_object_put(obj);
		goto out;
	}
	*out = obj;
	ret = 0;
out:
	http_response_release(&resp);
	free(path);
	free(base);
	return ret;
}

void get_table_add(struct json_object **table, struct json_object *obj)
{
	if (strcmp(json_get_str(obj, "kind", ""), "Table")) {
		struct json_object *one = columns_table_json(NULL, NULL, NULL, &obj, 1, wall_ms());
		json_object_put(obj);
		obj = one;
	}
	if (!*table) {
		*table = obj;
		return;
	}
	struct json_object *rows = json_get(*table, "rows"), *more = json_get(obj, "rows");
	if (!json_object_is_type(rows, json_type_array))
		json_object_object_add(*table, "rows", rows = json_object_new_array());
	for (size_t i = 0; i < json_get_len(more); i++)
		json_object_array_add(rows, json_object_get(json_object_array_get_idx(more, i)));
	json_object_put(obj);
}

/*
 * kubectl's GET of each object, in order (a Table of one row each when
 * one is printed); the first that fails ends it, nothing printed.
 */
static int get_first(struct gw *g, struct cluster *c, struct first *f, struct errbuf *err)
{
	struct json_object *obj;

	for (size_t i = 0; i < g->o->nnames; i++) {
		if (get_object(c, g->res, g->o->names[i], g->tabular,
			       g->o->table.sort_by != NULL, f->flags, &obj, err) < 0)
			return -1;
		if (g->tabular) {
			struct json_object *table = NULL;
			get_table_add(&table, obj);
			add_page(f, table);
		} else {
			ALLOC_GROW(f->pt.objs, f->pt.nr + 1, f->pt.alloc);
			f->pt.objs[f->pt.nr++] = obj;
		}
	}
	f->rv = xstrdup("0");	/* from ~now: its first event is the object again */
	g->skip_next = true;
	return 0;
}

/*
 * Whether kubectl's watch prints the pages whole: it does with a List of
 * several (each page, PodList and all, to -o json, a template, ...),
 * except where its printer takes a list's items: -o name, and custom
 * columns of the objects (not of their --output-watch-events).
 */
static bool whole_pages(const struct gw *g, const struct first *f)
{
	enum format_kind k = g->o->fmt->kind;

	return f->npages > 1 && k != FORMAT_NAME && (k != FORMAT_CUSTOM_COLUMNS || g->o->events);
}

/* What was listed, printed as kubectl prints it before the watch. */
static int print_first(struct gw *g, struct first *f)
{
	struct strbuf out = STRBUF_INIT;
	int rc = 0;

	if (g->o->watch_only)
		return 0;
	if (g->tabular && !f->npages && f->pt.nr)	/* a server without Tables: NAME, AGE */
		add_page(f, columns_table_json(NULL, NULL, NULL, f->pt.objs, f->pt.nr, wall_ms()));
	if (g->tabular) {
		/* kubectl's printer sorts each Table's own rows; one flush of all */
		struct json_object *all = NULL;
		for (size_t i = 0; i < f->npages && rc == 0; i++) {
			rc = kubetable_sort_rows(f->pages[i], g->o->table.sort_by, &g->err);
			get_table_add(&all, json_object_get(f->pages[i]));
		}
		if (rc == 0 && all)
			print_tabular(g, "ADDED", all, &out);
		json_object_put(all);
	} else if (whole_pages(g, f)) {
		rc = print_objects(g, "ADDED", f->pages, f->npages, false, &out);
	} else {
		rc = print_objects(g, "ADDED", f->pt.objs, f->pt.nr, f->npages > 1, &out);
	}
	if (rc < 0 && !g->tabular)
		emit(g, &out, false);	/* what the tabwriter lets go of a failed print */
	if (rc < 0)
		error("unable to output the provided object: %s", g->err.msg);
	else
		rc = emit(g, &out, true);
	strbuf_release(&out);
	return rc;
}

/* SIGINT and SIGTERM end kubectl's watch with status 1; what was printed is out. */
static void on_signal(int signo)
{
	(void)signo;
	_exit(1);
}

int get_watch(struct cluster *c, const struct api_resource *res,
	      const struct get_watch_opts *o)
{
	enum format_kind k = o->fmt->kind;
	bool events_keep = o->events && (k == FORMAT_JSON || k == FORMAT_YAML);
	char *api_version = api_group_version(res->group, res->version);
	struct gw g = {
		.o = o, .res = res,
		.tabular = k == FORMAT_TABLE || k == FORMAT_WIDE,
		/* kubectl omits managedFields from json and yaml, not from an event's */
		.flags = o->keep_managed_fields || events_keep ? KOBJ_KEEP_MANAGED_FIELDS : 0,
		.ts = KUBETABLE_STREAM_INIT,
	};
	tabwriter_init(&g.tw, TABWRITER_KUBECTL_MINWIDTH, TABWRITER_KUBECTL_PADDING, true);
	struct first f = { .type = { .api_version = api_version, .kind = res->kind }, .flags = g.flags };
	struct errbuf err = { "" };
	struct sigaction sa = { .sa_handler = on_signal };
	int ret = 1;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (o->nnames ? get_first(&g, c, &f, &err) < 0
		      : list_first(&g, c, &f, &err) < 0) {
		error("%s", err.msg);
		goto out;
	}
	if (o->format_refused) {	/* kubectl's printer is made now (ToPrinter) */
		error("%s", o->format_refused);
		goto out;
	}
	if (print_first(&g, &f) < 0)
		goto out;
	if (o->nnames > 1) {	/* kubectl's Result.Watch, after its objects */
		error("you may only watch a single resource or type of resource at a time");
		goto out;
	}
	if (run_watch(&g, c, f.rv, &err) < 0) {
		error("%s", err.msg);
		goto out;
	}
	ret = 0;
out:
	kubetable_stream_release(&g.ts);
	tabwriter_release(&g.tw);
	first_release(&f);
	free(api_version);
	return ret;
}
