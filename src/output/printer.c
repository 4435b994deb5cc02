/*
 * printer.c — notifications as lines, NDJSON or names, and activity as
 * notices; see printer.h.
 *
 * Formats are rows of formats[]: a function that appends one delta's
 * record to a strbuf.  A notice's text is
 * notice_text()'s, by enum activity.
 */
#include "output/printer.h"

#include <errno.h>

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "controller/controller.h"
#include "output/columns.h"
#include "output/controller_report.h"
#include "output/diff.h"
#include "output/format.h"
#include "output/redact.h"
#include "output/verify_report.h"
#include "informer/informer.h"
#include "informer/kobj_pick.h"
#include "lib/json_get.h"
#include "lib/strbuf.h"
#include "lib/termsafe.h"
#include "lib/util.h"

#define TO_STRING_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Line and wide output's columns, in order. */
enum line_col {
	COL_TIME,
	COL_TYPE,
	COL_KIND,
	COL_KEY,
	COL_RV,
	COL_STATUS,
	COL_AGE,	/* wide */
	COL_DETAIL,	/* wide */
	COL__COUNT
};

static const struct {
	const char *header;
	size_t min_width;
} line_cols[COL__COUNT] = {
	[COL_TIME] = { "TIME", 12 },
	[COL_TYPE] = { "TYPE", 8 },
	[COL_KIND] = { "KIND", 4 },
	[COL_KEY] = { "KEY", 24 },
	[COL_RV] = { "RV", 6 },
	[COL_STATUS] = { "STATUS", 12 },
	[COL_AGE] = { "AGE", 4 },
	[COL_DETAIL] = { "DETAILS", 0 },
};

#define LINE_GAP "  "

static const char *const type_colors[DELTA__COUNT] = {
	[DELTA_ADDED] = "\033[32m",
	[DELTA_UPDATED] = "\033[33m",
	[DELTA_DELETED] = "\033[31m",
	[DELTA_REPLACED] = "\033[34m",
	[DELTA_SYNC] = "\033[90m",
	[DELTA_REPLACED_ALL] = "\033[34m",
	[DELTA_SYNC_ALL] = "\033[90m",
	[DELTA_BOOKMARK] = "\033[90m",
};
#define COLOR_OFF "\033[0m"

/* Per resource: pages of the list in progress, for the notices. */
struct resource_state {
	const char *resource;
	unsigned pages;
};

struct printer;

struct printer_ops {
	const char *name;
	void (*delta)(struct printer *p, const struct notification *n,
		      struct strbuf *sb);
};

struct line;

struct printer {
	enum output_format format;	/* a row of formats[] */
	struct printer_opts opts;
	bool header_done;
	/* line and wide: initial lines held until every resource synced */
	bool holding;
	struct line *held;
	size_t held_nr, held_alloc, max_rv;
	size_t synced;		/* resources whose synced notice came */
	/* custom columns: initial rows held by the format, as line's */
	bool columns;
	size_t objects_held;
	struct errbuf err;	/* OUTPUT_OBJECT's template error */
	bool failed;
	bool progress_shown;	/* a progress line waits to be cleared */
	size_t width[COL__COUNT];
	struct resource_state *res;
	size_t res_nr, res_alloc;
	struct strbuf sb;
	/* errno of the first failed write: stdio's error flag is sticky and
	 * later calls fail without setting errno again. */
	int write_errno;
};

static int write_record(struct printer *p);

/* ---- helpers ------------------------------------------------------------ */

static bool is_line(const struct printer *p)
{
	return p->format == OUTPUT_LINE || p->format == OUTPUT_WIDE;
}

/* json with events: the records of what the informer did go on stdout too */
static bool json_events(const struct printer *p)
{
	return p->format == OUTPUT_JSON && p->opts.events;
}

static int64_t now_of(const struct printer *p)
{
	return p->opts.now_ms ? p->opts.now_ms : wall_ms();
}

static const char *kind_of(const struct notification *n)
{
	const struct kobj *obj = n->delta.obj;

	if (obj && obj->kind && *obj->kind)
		return obj->kind;
	return n->obj_kind ? n->obj_kind : "";
}

/* What a client-go event handler was called with, per notification kind. */
static const char *const handler_names[] = {
	[NOTIFY_ADD] = "OnAdd",
	[NOTIFY_UPDATE] = "OnUpdate",
	[NOTIFY_DELETE] = "OnDelete",
	[NOTIFY_ACTIVITY] = "",
	[NOTIFY_BOOKMARK] = "",
};

static bool is_initial(const struct delta *d)
{
	return d->source == SOURCE_LIST && d->list_no == 0;
}

static void pad(struct strbuf *sb, size_t have, size_t want)
{
	for (; have < want; have++)
		strbuf_addch(sb, ' ');
}

static void rstrip(struct strbuf *sb)
{
	while (sb->len && sb->buf[sb->len - 1] == ' ')
		sb->buf[--sb->len] = '\0';
}

/* ---- line and wide ------------------------------------------------------ */

/*
 * One line, kept as cells until the column widths are known: lines of
 * the initial list wait until every resource has synced, so that the
 * widths fit them all (with the header printed then).  A later key or
 * RV wider than its column widens it, from that line on: a key is never
 * cut, in a file or on a terminal, since it is what a reader looks for;
 * a later KIND wider than its column is cut with a marker ("…", "~" in
 * ASCII).
 */
struct line {
	char *cell[COL__COUNT];
	char *markers;		/* " (initial)", or "" */
	char *after;		/* the --diff lines, or "" */
	const char *color;	/* the type's colour, or NULL */
};

#define HOLD_MAX 20000	/* initial lines held at most, then printed */

static bool col_shown(const struct printer *p, enum line_col c)
{
	if (c == COL_KIND)
		return p->opts.show_kind;
	if (c == COL_AGE || c == COL_DETAIL)
		return p->format == OUTPUT_WIDE;
	return true;
}

static enum line_col last_col(const struct printer *p)
{
	return p->format == OUTPUT_WIDE ? COL_DETAIL : COL_STATUS;
}

static void widen(struct printer *p, char *const *cell)
{
	for (int c = 0; c < COL__COUNT; c++) {
		size_t w = utf8_width(cell[c]);
		if (col_shown(p, c) && w > p->width[c])
			p->width[c] = w;
	}
}

/* Appends s cut to width columns, its last one a marker when cut. */
static void add_cut(struct printer *p, struct strbuf *sb, const char *s, size_t width)
{
	const char *marker = p->opts.ascii ? "~" : "…";
	size_t w = 0;

	if (utf8_width(s) <= width) {
		strbuf_adds(sb, s);
		return;
	}
	while (*s && w + 1 < width) {
		size_t n = 1;
		while (((unsigned char)s[n] & 0xC0) == 0x80)
			n++;
		strbuf_add(sb, s, n);
		s += n;
		w++;
	}
	strbuf_adds(sb, marker);
}

/* Appends the cells, each padded to its column (the colour outside it). */
static void add_cells(struct printer *p, struct strbuf *sb, char *const *cell,
		      const char *type_color)
{
	enum line_col last = last_col(p);

	for (int c = 0; c < COL__COUNT; c++) {
		size_t w;
		if (!col_shown(p, c))
			continue;
		if (c == (int)last) {
			strbuf_adds(sb, cell[c]);
			break;
		}
		if (c == COL_KIND) {
			size_t at = sb->len;
			add_cut(p, sb, cell[c], p->width[c]);
			w = utf8_width(sb->buf + at);
		} else if (c == COL_TYPE && type_color) {
			strbuf_addf(sb, "%s%s%s", type_color, cell[c], COLOR_OFF);
			w = utf8_width(cell[c]);
		} else {
			strbuf_adds(sb, cell[c]);
			w = utf8_width(cell[c]);
		}
		pad(sb, w, p->width[c]);
		strbuf_adds(sb, LINE_GAP);
	}
}

static void line_header(struct printer *p, struct strbuf *sb)
{
	char *cell[COL__COUNT];

	for (int c = 0; c < COL__COUNT; c++)
		cell[c] = (char *)line_cols[c].header;
	add_cells(p, sb, cell, NULL);
	rstrip(sb);
	strbuf_addch(sb, '\n');
}

static void add_markers(const struct notification *n, struct strbuf *sb)
{
	const struct delta *d = &n->delta;

	if (d->tombstone)
		strbuf_adds(sb, " (tombstone)");
	if (is_initial(d)) {
		strbuf_adds(sb, " (initial)");
	} else if (d->source == SOURCE_LIST) {
		/* What the relist found: new to the cache, or changed meanwhile. */
		strbuf_addf(sb, " (relist #%u)", d->list_no);
		if (n->kind == NOTIFY_ADD)
			strbuf_adds(sb, " (added)");
		else if (n->kind == NOTIFY_UPDATE && n->old && !n->resync_only) {
			strbuf_adds(sb, " (changed from rv ");
			strbuf_add_termsafe(sb, n->old->rv, strlen(n->old->rv), 0);
			strbuf_addch(sb, ')');
		}
	}
	/* Resync-only: an update whose RV is the cached one (OnUpdate all the same). */
	if (n->resync_only)
		strbuf_adds(sb, d->source == SOURCE_RESYNC ? " (resync)" : " (unchanged)");
	if (n->replay)
		strbuf_adds(sb, " (replay)");
}

static void add_diff_lines(struct printer *p, const struct notification *n,
			   struct json_object *new_tree, struct strbuf *sb)
{
	struct json_object *old_tree = kobj_tree(n->old);
	unsigned flags = (p->opts.color ? DIFF_COLOR : 0) | (p->opts.ascii ? DIFF_ASCII : 0);

	/* A Secret's values changed: say so, by their sizes only. */
	redact_secret_pair(old_tree, new_tree);
	if (!diff_human(old_tree, new_tree, "    ", flags, sb) && !n->resync_only)
		strbuf_adds(sb, "    (no field changed)\n");
	json_object_put(old_tree);
}

/*
 * The watch line's columns of an object, computed from its tree once and
 * kept with it (kobj_memo): "STATUS\0DETAIL\0CREATED\0".  The short
 * status and the wide detail are what the object says; AGE moves with
 * the clock, so the creation time is kept, not the age.
 */
struct line_memo_ctx {
	const struct crd_columns *crds;
	const char *group, *kind;
	int64_t now_ms;
};

static char *line_memo(const struct kobj *obj, void *ctx)
{
	const struct line_memo_ctx *c = ctx;
	const struct kobj_pick *pick = columns_pick(c->crds, c->group, c->kind);
	struct json_object *tree = pick ? kobj_tree_pick(obj, pick) : kobj_tree(obj);
	struct strbuf sb = STRBUF_INIT;

	columns_short_status(c->crds, c->group, c->kind, tree, c->now_ms, &sb);
	strbuf_addch(&sb, '\0');
	columns_wide_detail(c->crds, c->group, c->kind, tree, c->now_ms, &sb);
	strbuf_addch(&sb, '\0');
	strbuf_adds(&sb, json_get_str(json_get(tree, "metadata"), "creationTimestamp", ""));
	json_object_put(tree);
	return strbuf_detach(&sb, NULL);
}

static void line_of(struct printer *p, const struct notification *n, struct line *l)
{
	const struct kobj *obj = n->delta.obj;
	const char *kind = kind_of(n);
	struct line_memo_ctx mctx = { p->opts.crds, n->group, kind, now_of(p) };
	const char *status = kobj_memo(obj, line_memo, &mctx);
	const char *detail = status + strlen(status) + 1;
	const char *created = detail + strlen(detail) + 1;
	struct strbuf sb = STRBUF_INIT;
	char clock[16], age[32] = "";

	format_clock(n->delta.time_ms, clock);
	if (p->format == OUTPUT_WIDE)
		format_age_since(*created ? created : NULL, now_of(p), age);
	/* Every cell may quote the server: escaped before it is measured. */
	l->cell[COL_TIME] = xstrdup(clock);
	l->cell[COL_TYPE] = xstrdup(delta_type_name(n->delta.type));
	l->cell[COL_KIND] = termsafe_dup(kind, 0);
	l->cell[COL_KEY] = termsafe_dup(obj->key, 0);
	l->cell[COL_RV] = termsafe_dup(obj->rv, 0);
	l->cell[COL_STATUS] = termsafe_dup(status, 0);
	l->cell[COL_AGE] = xstrdup(age);
	l->cell[COL_DETAIL] = termsafe_dup(p->format == OUTPUT_WIDE ? detail : "", 0);
	add_markers(n, &sb);
	l->markers = strbuf_detach(&sb, NULL);
	if (p->opts.diff && n->kind == NOTIFY_UPDATE && n->old) {
		struct json_object *tree = kobj_tree(obj);
		add_diff_lines(p, n, tree, &sb);
		json_object_put(tree);
	}
	l->after = strbuf_detach(&sb, NULL);
	l->color = p->opts.color ? type_colors[n->delta.type] : NULL;
}

static void line_release(struct line *l)
{
	for (int c = 0; c < COL__COUNT; c++)
		free(l->cell[c]);
	free(l->markers);
	free(l->after);
}

static void format_line(struct printer *p, const struct line *l, struct strbuf *sb)
{
	add_cells(p, sb, l->cell, l->color);
	/*
	 * Markers follow the last cell; an empty one keeps its place, so
	 * that a marker never reads as part of the RV.
	 */
	if (!*l->markers)
		rstrip(sb);
	strbuf_adds(sb, l->markers);
	strbuf_addch(sb, '\n');
	strbuf_adds(sb, l->after);
}

static void print_header_once(struct printer *p, struct strbuf *sb)
{
	if (!p->header_done && !p->opts.no_headers)
		line_header(p, sb);
	p->header_done = true;
}

/* Prints the held lines with the widths they make, and stops holding. */
static void release_held(struct printer *p, struct strbuf *sb)
{
	if (!p->holding)
		return;
	p->holding = false;
	if (p->columns) {
		format_print_held(p->opts.format, p->opts.no_headers, sb);
		return;
	}
	if (p->held_nr)
		print_header_once(p, sb);
	for (size_t i = 0; i < p->held_nr; i++) {
		format_line(p, &p->held[i], sb);
		line_release(&p->held[i]);
	}
	free(p->held);
	p->held = NULL;
	p->held_nr = p->held_alloc = 0;
	if (p->width[COL_RV] < p->max_rv + 1)	/* room for the RV to grow */
		p->width[COL_RV] = p->max_rv + 1;
}

/* Holds l (taken) until the lines are let go, its cells widening the columns. */
static void hold_line(struct printer *p, const struct line *l)
{
	widen(p, l->cell);
	ALLOC_GROW(p->held, p->held_nr + 1, p->held_alloc);
	p->held[p->held_nr++] = *l;
}

/* Prints l (taken), after the header the first time. */
static void print_line(struct printer *p, struct line *l, struct strbuf *sb)
{
	/* the key, the RV and the last column may grow; the KIND is cut */
	static const enum line_col grow[] = { COL_KEY, COL_RV };

	print_header_once(p, sb);
	for (size_t i = 0; i < ARRAY_SIZE(grow); i++)
		if (utf8_width(l->cell[grow[i]]) > p->width[grow[i]])
			p->width[grow[i]] = utf8_width(l->cell[grow[i]]);
	format_line(p, l, sb);
	line_release(l);
}

static void line_delta(struct printer *p, const struct notification *n,
		       struct strbuf *sb)
{
	struct line l = { { NULL }, NULL, NULL, NULL };

	line_of(p, n, &l);
	if (p->holding && is_initial(&n->delta) && p->held_nr < HOLD_MAX) {
		if (utf8_width(l.cell[COL_RV]) > p->max_rv)
			p->max_rv = utf8_width(l.cell[COL_RV]);
		hold_line(p, &l);
		return;
	}
	if (p->holding) {
		widen(p, l.cell);
		release_held(p, sb);
	}
	print_line(p, &l, sb);
}

/* ---- object formats ------------------------------------------------------- */

static void object_delta(struct printer *p, const struct notification *n,
			 struct strbuf *sb)
{
	struct json_object *tree = kobj_tree(n->delta.obj);
	int rc;

	if (p->holding && is_initial(&n->delta) && p->objects_held < HOLD_MAX) {
		/* custom columns: the initial list's rows sized as one, as line's */
		rc = format_hold(p->opts.format, tree, &p->err);
		p->objects_held++;
	} else {
		release_held(p, sb);
		rc = format_print_one(p->opts.format, tree, p->opts.no_headers, sb, &p->err);
	}
	if (rc < 0)
		p->failed = true;
	json_object_put(tree);
}

/* ---- name --------------------------------------------------------------- */

static void name_delta(struct printer *p, const struct notification *n,
		       struct strbuf *sb)
{
	const char *kind = kind_of(n);

	if (!*kind)
		kind = n->resource ? n->resource : "";
	for (; *kind; kind++)
		strbuf_addch(sb, (char)(*kind >= 'A' && *kind <= 'Z' ?
					*kind - 'A' + 'a' : *kind));
	/* kubectl's form: deployment.apps/web, pod/web-1. */
	if (n->group && *n->group)
		strbuf_addf(sb, ".%s", n->group);
	strbuf_addch(sb, '/');
	if (p->opts.terminal)
		strbuf_add_termsafe(sb, n->delta.obj->name, strlen(n->delta.obj->name), 0);
	else
		strbuf_adds(sb, n->delta.obj->name);
	strbuf_addch(sb, '\n');
}

/* ---- json --------------------------------------------------------------- */

static void add_bool(struct strbuf *sb, const char *name, bool value)
{
	strbuf_addf(sb, ",\"%s\":%s", name, value ? "true" : "false");
}

static void json_delta(struct printer *p, const struct notification *n,
		       struct strbuf *sb)
{
	const struct delta *d = &n->delta;
	const struct kobj *obj = d->obj;

	strbuf_add_json_record(sb, d->time_ms, delta_type_name(d->type));
	strbuf_add_json_text(sb, "handler", handler_names[n->kind]);
	strbuf_add_json_text(sb, "resource", n->resource);
	strbuf_add_json_text(sb, "kind", kind_of(n));
	strbuf_add_json_text(sb, "namespace", obj->ns);
	strbuf_add_json_text(sb, "name", obj->name);
	strbuf_add_json_text(sb, "key", obj->key);
	strbuf_add_json_text(sb, "resourceVersion", obj->rv);
	if (n->kind == NOTIFY_UPDATE && n->old)
		strbuf_add_json_text(sb, "oldResourceVersion", n->old->rv);
	add_bool(sb, "initialList", d->initial_list);
	add_bool(sb, "tombstone", d->tombstone);
	add_bool(sb, "resync", d->source == SOURCE_RESYNC);
	add_bool(sb, "unchanged", n->resync_only);
	strbuf_add_json_text(sb, "source", delta_source_name(d->source));
	strbuf_addf(sb, ",\"listNumber\":%u", d->list_no);
	/* The kobj already holds compact JSON: splice it, never re-serialise. */
	strbuf_adds(sb, ",\"object\":");
	kobj_json(obj, sb);
	if (p->opts.diff && n->kind == NOTIFY_UPDATE && n->old) {
		struct json_object *old_tree = kobj_tree(n->old);
		struct json_object *new_tree = kobj_tree(obj);
		struct json_object *patch = diff_json_patch(old_tree, new_tree);
		strbuf_adds(sb, ",\"diff\":");
		strbuf_adds(sb, json_object_to_json_string_ext(patch, TO_STRING_FLAGS));
		json_object_put(patch);
		json_object_put(old_tree);
		json_object_put(new_tree);
	}
	strbuf_adds(sb, "}\n");
}

static const char *const relist_class_names[RELIST__CLASSES] = {
	[RELIST_ADDED] = "added",
	[RELIST_CHANGED] = "changed",
	[RELIST_DELETED] = "deleted",
};

/* The Relist record of -o json with events. */
static void json_relist(const struct notification *n, struct strbuf *sb)
{
	const struct activity_info *a = n->activity;
	const struct relist_sample *s = a->replace.sample;

	strbuf_add_json_record(sb, wall_ms(), "Relist");
	strbuf_add_json_text(sb, "resource", n->resource);
	strbuf_addf(sb, ",\"listNumber\":%u", a->list_no);
	strbuf_add_json_text(sb, "reason", a->message);
	strbuf_addf(sb, ",\"listed\":%zu,\"added\":%zu,\"changed\":%zu,"
		    "\"deleted\":%zu,\"unchanged\":%zu,\"disconnectedMs\":%lld",
		    a->replace.listed, a->replace.added, a->replace.changed,
		    a->replace.deleted, a->replace.unchanged,
		    (long long)a->replace.disconnected_ms);
	strbuf_adds(sb, ",\"keys\":{");
	for (int c = 0; c < RELIST__CLASSES; c++) {
		strbuf_addf(sb, "%s\"%s\":[", c ? "," : "", relist_class_names[c]);
		for (size_t i = 0; s && i < s->nr[c]; i++) {
			const struct relist_key *k = &s->v[c][i];

			strbuf_addf(sb, "%s{\"key\":", i ? "," : "");
			strbuf_add_json_string(sb, k->key);
			if (k->old_rv)
				strbuf_add_json_text(sb, "oldResourceVersion", k->old_rv);
			if (k->new_rv)
				strbuf_add_json_text(sb, "resourceVersion", k->new_rv);
			strbuf_addch(sb, '}');
		}
		strbuf_addch(sb, ']');
	}
	strbuf_adds(sb, "}}\n");
}

/*
 * The Warning record of -o json with events: what the informer noticed
 * and did nothing about (a silent watch, a resourceVersion gone back),
 * for a script that reads stdout alone.
 */
static void json_warning(const struct notification *n, struct strbuf *sb)
{
	strbuf_add_json_record(sb, wall_ms(), "Warning");
	strbuf_add_json_text(sb, "resource", n->resource);
	strbuf_add_json_text(sb, "message", n->activity->message);
	strbuf_adds(sb, "}\n");
}

static const struct printer_ops formats[OUTPUT__COUNT] = {
	[OUTPUT_LINE] = { "line", line_delta },
	[OUTPUT_WIDE] = { "wide", line_delta },
	[OUTPUT_JSON] = { "json", json_delta },
	[OUTPUT_NAME] = { "name", name_delta },
	[OUTPUT_OBJECT] = { "object", object_delta },
};

const char *output_format_name(enum output_format format)
{
	return (unsigned)format < OUTPUT__COUNT ? formats[format].name : "unknown";
}

int output_format_parse(const char *name)
{
	for (int i = 0; i < OUTPUT__COUNT; i++)
		if (!strcmp(formats[i].name, name))
			return i;
	return -1;
}

/* ---- notices ------------------------------------------------------------ */

static struct resource_state *resource_state(struct printer *p, const char *resource)
{
	for (size_t i = 0; i < p->res_nr; i++)
		if (!strcmp(p->res[i].resource, resource))
			return &p->res[i];
	ALLOC_GROW(p->res, p->res_nr + 1, p->res_alloc);
	p->res[p->res_nr] = (struct resource_state){ resource, 0 };
	return &p->res[p->res_nr++];
}

static void with_message(struct strbuf *sb, const char *what, const char *message)
{
	strbuf_adds(sb, what);
	if (*message)
		strbuf_addf(sb, " (%s)", message);
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* A resourceVersion in a notice; "" shown as such (a list that said none). */
static const char *rv_said(const char *rv)
{
	return *rv ? rv : "\"\"";
}

/*
 * Appends the notice's text after "kinf: RESOURCE: "; false for an
 * activity that has none.  Silent notices run too, to keep the page count.
 */
static bool notice_text(struct resource_state *rs, const struct activity_info *a,
			struct strbuf *sb)
{
	switch (a->act) {
	case ACT_LIST_START:
		rs->pages = 0;
		with_message(sb, a->list_no ? "relisting" : "listing", a->message);
		break;
	case ACT_LIST_PAGE:
		rs->pages++;
		strbuf_addf(sb, "listing: %zu objects, %u page%s so far", a->count, rs->pages,
			    plural(rs->pages));
		break;
	case ACT_LIST_DONE:
		strbuf_addf(sb, "listed %zu object%s at rv %s", a->count, plural(a->count),
			    rv_said(a->rv));
		if (*a->message)
			strbuf_addf(sb, " (%s)", a->message);
		else if (rs->pages)
			strbuf_addf(sb, " (%u page%s)", rs->pages, plural(rs->pages));
		break;
	case ACT_LIST_FALLBACK:
		strbuf_adds(sb, *a->message ? a->message : activity_name(a->act));
		break;
	case ACT_WATCH_OPEN:
		strbuf_addf(sb, "watching from rv %s", rv_said(a->rv));
		break;
	case ACT_WATCH_END:
		if (*a->message)
			strbuf_addf(sb, "watch ended (%s)", a->message);
		else
			strbuf_adds(sb, "watch ended by server");
		/* How long it lived and what it carried: alive, or only quiet? */
		if (a->delay_ms)
			strbuf_addf(sb, " after %.1f s and %zu event%s", a->delay_ms / 1000.0,
				    a->count, plural(a->count));
		strbuf_addf(sb, ", re-watching from rv %s", rv_said(a->rv));
		break;
	case ACT_WATCH_EXPIRED:
		with_message(sb, "watch expired", a->message);
		strbuf_adds(sb, ", relisting");
		break;
	case ACT_WATCH_STALLED:
		with_message(sb, "watch renewed", a->message);
		strbuf_addf(sb, ", watching again from rv %s", rv_said(a->rv));
		break;
	case ACT_ERROR:
		strbuf_addf(sb, "error: %s", a->message);
		break;
	case ACT_WARNING:
		strbuf_addf(sb, "warning: %s", a->message);
		break;
	case ACT_BACKOFF:
		if (a->delay_ms < 1000)
			strbuf_addf(sb, "backing off %lldms", (long long)a->delay_ms);
		else
			strbuf_addf(sb, "backing off %.1fs", a->delay_ms / 1000.0);
		if (*a->message)
			strbuf_addf(sb, ": %s", a->message);
		break;
	case ACT_RELISTED:
		strbuf_addf(sb, "relist #%u", a->list_no);
		if (*a->message)
			strbuf_addf(sb, " (%s)", a->message);
		if (a->replace.disconnected_ms > 0)
			strbuf_addf(sb, ": disconnected %.1f s", a->replace.disconnected_ms / 1000.0);
		strbuf_addf(sb, ": %zu changed, %zu added, %zu deleted (tombstones), %zu unchanged",
			    a->replace.changed, a->replace.added, a->replace.deleted,
			    a->replace.unchanged);
		break;
	case ACT_RESYNC:
		strbuf_addf(sb, "resync: %zu %s delta%s queued", a->count,
			    *a->message ? a->message : "Sync", plural(a->count));
		break;
	case ACT_SYNCED:
		strbuf_addf(sb, "synced: %zu object%s cached", a->count, plural(a->count));
		break;
	case ACT_BOOKMARK:
		strbuf_addf(sb, "bookmark at rv %s", a->rv);
		break;
	default:
		return false;
	}
	return true;
}

/*
 * The notices shown only with opts.verbose.  A renewal (ACT_WATCH_STALLED)
 * is shown always: it is kinf acting, which says so.
 */
static const unsigned long verbose_only = 1ul << ACT_LIST_START | 1ul << ACT_LIST_PAGE |
					 1ul << ACT_WATCH_OPEN | 1ul << ACT_BOOKMARK;

/* -v: which keys a relist found, each class up to RELIST_SAMPLE_MAX. */
static void add_relist_keys(const struct replace_stats *r, struct strbuf *sb)
{
	const size_t counts[RELIST__CLASSES] = {
		[RELIST_ADDED] = r->added, [RELIST_CHANGED] = r->changed,
		[RELIST_DELETED] = r->deleted,
	};
	static const int order[] = { RELIST_CHANGED, RELIST_DELETED, RELIST_ADDED };

	if (!r->sample)
		return;
	for (size_t o = 0; o < ARRAY_SIZE(order); o++) {
		int c = order[o];
		const struct relist_sample *s = r->sample;

		if (!s->nr[c])
			continue;
		strbuf_addf(sb, "; %s", relist_class_names[c]);
		for (size_t i = 0; i < s->nr[c]; i++) {
			const struct relist_key *k = &s->v[c][i];

			strbuf_addf(sb, "%s %s", i ? "," : "", k->key);
			if (c == RELIST_CHANGED)
				strbuf_addf(sb, " (rv %s -> %s)", k->old_rv, k->new_rv);
		}
		if (counts[c] > s->nr[c])
			strbuf_addf(sb, " and %zu more", counts[c] - s->nr[c]);
	}
}

static void clear_progress(struct printer *p)
{
	if (!p->progress_shown)
		return;
	fputs("\r\033[K", p->opts.notices);
	fflush(p->opts.notices);
	p->progress_shown = false;
}

static void print_notice(struct printer *p, const struct notification *n)
{
	const struct activity_info *a = n->activity;
	struct resource_state *rs;
	struct strbuf sb = STRBUF_INIT, text = STRBUF_INIT;
	bool progress = a->act == ACT_LIST_PAGE && p->opts.progress && !p->opts.verbose;

	if (!p->opts.notices)
		return;
	rs = resource_state(p, n->resource ? n->resource : "");
	strbuf_addf(&text, "kinf: %s: ", rs->resource);
	if (!notice_text(rs, a, &text)) {
		strbuf_release(&text);
		return;
	}
	if (a->act == ACT_RELISTED && p->opts.verbose)
		add_relist_keys(&a->replace, &text);
	/* A notice quotes the server (messages, keys): one escaped line. */
	if (progress)
		strbuf_addch(&sb, '\r');
	strbuf_add_termsafe(&sb, text.buf, text.len, TERMSAFE_ONE_LINE);
	strbuf_release(&text);
	if (!(verbose_only >> a->act & 1) || p->opts.verbose || progress) {
		if (!progress)
			clear_progress(p);
		strbuf_adds(&sb, progress ? "\033[K" : "\n");
		fwrite(sb.buf, 1, sb.len, p->opts.notices);
		fflush(p->opts.notices);
		p->progress_shown = progress;
	}
	strbuf_release(&sb);
}

/* ---- the printer -------------------------------------------------------- */

struct printer *printer_new(enum output_format format,
			    const struct printer_opts *opts)
{
	struct printer *p = xcalloc(1, sizeof(*p));

	if (format == OUTPUT_OBJECT && !opts->format)
		format = OUTPUT_JSON;	/* nothing to print the object with */
	p->format = (unsigned)format < OUTPUT__COUNT ? format : OUTPUT_LINE;
	p->opts = *opts;
	strbuf_init(&p->sb, 0);
	if (!p->opts.out)
		p->opts.out = stdout;
	p->columns = format == OUTPUT_OBJECT && opts->format->kind == FORMAT_CUSTOM_COLUMNS;
	p->holding = (is_line(p) || p->columns) && opts->resources > 0;
	for (int c = 0; c < COL__COUNT; c++)
		p->width[c] = line_cols[c].min_width;
	for (int c = 0; c < COL__COUNT; c++)
		if (col_shown(p, c) && strlen(line_cols[c].header) > p->width[c])
			p->width[c] = strlen(line_cols[c].header);
	if (opts->controller)	/* its records' types, from the first line on */
		p->width[COL_TYPE] = CTL_TYPE_WIDTH;
	return p;
}

const char *printer_error(const struct printer *p)
{
	return p->err.msg;
}

int printer_finish(struct printer *p)
{
	strbuf_reset(&p->sb);
	release_held(p, &p->sb);
	if (p->sb.len && write_record(p) < 0)
		return -1;
	return printer_flush(p);
}

void printer_free(struct printer *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->held_nr; i++)
		line_release(&p->held[i]);
	free(p->held);
	clear_progress(p);
	strbuf_release(&p->sb);
	free(p->res);
	free(p);
}

/*
 * Records are buffered: the caller flushes once per batch it drains
 * (printer_flush), so a burst costs one write(2), not one per delta.
 */
/* Returns -1 with errno set to the first write failure's. */
static int write_failed(struct printer *p)
{
	if (!p->write_errno)
		p->write_errno = errno ? errno : EIO;
	errno = p->write_errno;
	return -1;
}

static int write_record(struct printer *p)
{
	FILE *out = p->opts.out;

	clear_progress(p);
	/* JSON on a terminal: what its escapes leave raw, escaped too */
	if (p->format == OUTPUT_JSON && p->opts.terminal &&
	    !termsafe_is_safe(p->sb.buf, p->sb.len, TERMSAFE_JSON)) {
		struct strbuf safe = STRBUF_INIT;
		strbuf_add_termsafe(&safe, p->sb.buf, p->sb.len, TERMSAFE_JSON);
		strbuf_release(&p->sb);
		p->sb = safe;
	}
	errno = 0;
	/* fwrite(NULL, 1, 0, ...) is undefined: an empty record writes nothing. */
	if ((p->sb.len && fwrite(p->sb.buf, 1, p->sb.len, out) != p->sb.len) || ferror(out))
		return write_failed(p);
	return 0;
}

/* Writes p->sb and a newline as a notice (none without opts.notices),
 * after the records printed so far; 0. */
static int write_notice(struct printer *p)
{
	if (!p->opts.notices)
		return 0;
	strbuf_addch(&p->sb, '\n');
	printer_flush(p);
	clear_progress(p);
	fwrite(p->sb.buf, 1, p->sb.len, p->opts.notices);
	fflush(p->opts.notices);
	strbuf_reset(&p->sb);
	return 0;
}

/* A controller record in the line output's columns (its own in the last). */
static void controller_line(struct printer *p, const struct ctl_record *r, int64_t base_ms)
{
	struct strbuf time = STRBUF_INIT, rv = STRBUF_INIT, text = STRBUF_INIT;
	struct line l = { { NULL }, xstrdup(""), xstrdup(""), NULL };

	controller_record_cells(r, base_ms, &time, &rv, &text);
	/* Every cell may quote the server: escaped before it is measured. */
	l.cell[COL_TIME] = strbuf_detach(&time, NULL);
	l.cell[COL_TYPE] = xstrdup(ctl_record_name(r->type));
	l.cell[COL_KIND] = termsafe_dup(r->kind ? r->kind : "", 0);	/* one controller a kind */
	l.cell[COL_KEY] = termsafe_dup(r->key, 0);
	l.cell[COL_RV] = termsafe_dup(rv.buf, 0);
	l.cell[COL_STATUS] = termsafe_dup(text.buf, 0);
	l.cell[COL_AGE] = xstrdup("");
	l.cell[COL_DETAIL] = xstrdup("");
	strbuf_release(&rv);
	strbuf_release(&text);
	if (p->holding && p->held_nr < HOLD_MAX)
		hold_line(p, &l);	/* after the initial lines it follows */
	else
		print_line(p, &l, &p->sb);
}

int printer_controller(struct printer *p, const struct ctl_record *r, int64_t base_ms)
{
	strbuf_reset(&p->sb);
	if (json_events(p))
		controller_record_json(r, base_ms, &p->sb);
	else if (is_line(p))
		controller_line(p, r, base_ms);
	return p->sb.len ? write_record(p) : 0;
}

int printer_controller_summary(struct printer *p, const struct controller_stats *st,
			       int64_t base_ms)
{
	strbuf_reset(&p->sb);
	if (json_events(p)) {
		controller_summary_json(st, base_ms, &p->sb);
		return write_record(p);
	}
	strbuf_adds(&p->sb, "kinf: ");
	controller_summary_text(st, &p->sb);
	return write_notice(p);
}

int printer_flush(struct printer *p)
{
	FILE *out = p->opts.out;
	errno = 0;
	return fflush(out) || ferror(out) ? write_failed(p) : 0;
}

int printer_verify(struct printer *p, const char *resource,
		   const struct verify_report *r)
{
	strbuf_reset(&p->sb);
	if (json_events(p)) {
		strbuf_add_json_record(&p->sb, wall_ms(), "Verify");
		strbuf_addch(&p->sb, ',');
		verify_report_json(resource, r, &p->sb);
		strbuf_adds(&p->sb, "}\n");
		return write_record(p);
	}
	strbuf_addf(&p->sb, "kinf: %s: verify: ", resource);
	verify_report_summary(r, &p->sb);
	return write_notice(p);
}

int printer_flight_dump(struct printer *p, const char *path, const char *reason)
{
	if (!json_events(p))
		return 0;
	strbuf_reset(&p->sb);
	strbuf_add_json_record(&p->sb, wall_ms(), "FlightDump");
	strbuf_add_json_text(&p->sb, "reason", reason);
	strbuf_add_json_text(&p->sb, "path", path);
	strbuf_adds(&p->sb, "}\n");
	return write_record(p);
}

/* "3s ago", or "never" for a time that never came (0). */
static void add_ago(struct strbuf *sb, int64_t now, int64_t then)
{
	char age[32];

	if (!then) {
		strbuf_adds(sb, "never");
		return;
	}
	format_age(now > then ? now - then : 0, age);
	strbuf_addf(sb, "%s ago", age);
}

int printer_health(struct printer *p, const char *resource,
		   const struct informer_stats *st, int64_t now)
{
	char a[32];

	strbuf_reset(&p->sb);
	strbuf_addf(&p->sb, "kinf: %s: health: %s", resource, informer_state_name(st->state));
	if (st->watch_since_ms) {
		format_age(now - st->watch_since_ms, a);
		strbuf_addf(&p->sb, ", watch open %s of %ds", a, st->watch_timeout_s);
	}
	strbuf_adds(&p->sb, ", last event ");
	add_ago(&p->sb, now, st->last_event_ms);
	strbuf_adds(&p->sb, ", last bookmark ");
	add_ago(&p->sb, now, st->last_bookmark_ms);
	if (st->bookmark_gap_ms) {
		format_age(st->bookmark_gap_ms, a);
		strbuf_addf(&p->sb, " (every %s)", a);
	}
	strbuf_addf(&p->sb, ", %llu very short watches, %llu rv back, backlog %zu",
		    (unsigned long long)st->short_watches,
		    (unsigned long long)st->rv_backwards, st->backlog);
	if (st->backlog && st->backlog_since_ms) {
		strbuf_adds(&p->sb, " (oldest ");
		add_ago(&p->sb, now, st->backlog_since_ms);
		strbuf_addch(&p->sb, ')');
	}
	return write_notice(p);
}

/*
 * A Bookmark delta (--types Bookmark): no object and no handler, only
 * the RV the Indexer took.  A line, or a JSON record; nothing in the
 * formats that print objects.
 */
static int bookmark_record(struct printer *p, const struct notification *n)
{
	const char *rv = n->activity ? n->activity->rv : "";

	if (p->format == OUTPUT_JSON) {
		strbuf_add_json_record(&p->sb, n->delta.time_ms, delta_type_name(DELTA_BOOKMARK));
		strbuf_add_json_text(&p->sb, "resource", n->resource);
		strbuf_add_json_text(&p->sb, "kind", kind_of(n));
		strbuf_add_json_text(&p->sb, "resourceVersion", rv);
		add_bool(&p->sb, "initialList", n->delta.initial_list);
		strbuf_add_json_text(&p->sb, "source", delta_source_name(n->delta.source));
		strbuf_adds(&p->sb, "}\n");
	} else if (is_line(p)) {
		struct line l = { { NULL }, xstrdup(""), xstrdup(""),
				  p->opts.color ? type_colors[DELTA_BOOKMARK] : NULL };
		char clock[16];

		format_clock(n->delta.time_ms, clock);
		l.cell[COL_TIME] = xstrdup(clock);
		l.cell[COL_TYPE] = xstrdup(delta_type_name(DELTA_BOOKMARK));
		l.cell[COL_KIND] = termsafe_dup(kind_of(n), 0);
		l.cell[COL_KEY] = xstrdup("");
		l.cell[COL_RV] = termsafe_dup(rv, 0);
		for (int c = COL_STATUS; c < COL__COUNT; c++)
			l.cell[c] = xstrdup("");
		release_held(p, &p->sb);
		print_header_once(p, &p->sb);
		format_line(p, &l, &p->sb);
		line_release(&l);
	}
	return write_record(p);
}

int printer_notification(struct printer *p, const struct notification *n)
{
	strbuf_reset(&p->sb);
	if (n->kind == NOTIFY_ACTIVITY) {
		if (n->activity->act == ACT_RELISTED && json_events(p)) {
			json_relist(n, &p->sb);
			return write_record(p);
		}
		/*
		 * Deltas printed so far go out before the notice that follows;
		 * a failure here stays in ferror() for printer_flush to report.
		 */
		if (p->opts.notices)
			printer_flush(p);
		print_notice(p, n);
		if (n->activity->act == ACT_WARNING && json_events(p)) {
			json_warning(n, &p->sb);
			return write_record(p);
		}
		if (n->activity->act == ACT_SYNCED && p->holding &&
		    ++p->synced >= p->opts.resources) {
			release_held(p, &p->sb);
			if (p->sb.len)
				return write_record(p);
		}
		return 0;
	}
	if (n->kind == NOTIFY_BOOKMARK)
		return bookmark_record(p, n);
	if (!n->delta.obj)
		return 0;
	formats[p->format].delta(p, n, &p->sb);
	if (p->failed) {
		errno = EINVAL;
		return -1;
	}
	return write_record(p);
}
