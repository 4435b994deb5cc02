/*
 * tui_detail.c — one object, full screen (Enter on a row or a log line):
 * its delta history since kinf started, what its last update changed,
 * and its current JSON; or (y) the object as `kubectl get -o yaml`
 * prints it.  `[` and `]` step through the history: each step shows what
 * that delta changed (a diff of the state before it and the state it
 * left) and the object as it left it, for the newest HIST_STATES steps,
 * whose states the model keeps (as its history's budget allows: the
 * header says how many older deltas were let go of).  The text is rebuilt whenever a delta for the
 * object arrives; once the object is no longer tracked the last text
 * stays, marked so.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>
#include <json-c/json.h>

#include "output/diff.h"
#include "output/redact.h"
#include "output/yaml.h"
#include "lib/strbuf.h"
#include "tui/tui_view.h"
#include "lib/util.h"

/* The view's own state (t->screen[SCREEN_DETAIL]): which object, and its text. */
struct detail_state {
	size_t tab;
	char *key;
	bool yaml;		/* the object as YAML, nothing else */
	unsigned version;	/* the row's version the lines are of */
	/* --controller: the key's and any key's tui_ctl_generation, and when
	 * built (an owner's Reconcile shows within a second). */
	uint64_t ctl_gen, ctl_any;
	int64_t built_mono;
	bool vanished;		/* the row was freed; lines are the last */
	/*
	 * `[` `]`: the delta looked at, numbered from the object's first
	 * since kinf started (so that it stays the same delta when the ring
	 * turns or the budget lets older ones go); -1: the newest.
	 */
	long step;
	size_t hist_nr;		/* the row's history's entries the lines show */
	char **lines;
	int *attrs;
	size_t nr, alloc;
	struct scroll scroll;
	int height;
};

static inline struct detail_state *ds(const struct tui *t)
{
	return t->screen[SCREEN_DETAIL];
}

static void add_line(struct tui *t, int attr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_line(struct tui *t, int attr, const char *fmt, ...)
{
	va_list ap;

	if (ds(t)->nr + 1 > ds(t)->alloc) {
		size_t alloc = ds(t)->alloc;
		ALLOC_GROW(ds(t)->lines, ds(t)->nr + 1, alloc);
		ds(t)->attrs = xrealloc(ds(t)->attrs, alloc * sizeof(*ds(t)->attrs));
		ds(t)->alloc = alloc;
	}
	va_start(ap, fmt);
	ds(t)->lines[ds(t)->nr] = xvasprintf(fmt, ap);
	va_end(ap);
	ds(t)->attrs[ds(t)->nr++] = attr;
}

static void clear_lines(struct tui *t)
{
	for (size_t i = 0; i < ds(t)->nr; i++)
		free(ds(t)->lines[i]);
	ds(t)->nr = 0;
}

/* diff_walk() reports the changes in the order diff_human() prints them. */
static void note_what(void *ctx, const struct diff_change *change)
{
	struct strbuf *whats = ctx;
	strbuf_addch(whats, (char)change->what);
}

static void add_diff(struct tui *t, struct json_object *a, struct json_object *b)
{
	static const int pair[] = {
		[DIFF_ADDED] = PAIR_ADDED,
		[DIFF_REMOVED] = PAIR_DELETED,
		[DIFF_CHANGED] = PAIR_UPDATED,
	};
	struct strbuf text = STRBUF_INIT, whats = STRBUF_INIT;
	size_t i = 0;

	diff_walk(a, b, note_what, &whats);
	diff_human(a, b, "  ", false, &text);
	for (const char *p = strbuf_str(&text); *p; i++) {
		size_t n = strcspn(p, "\n");
		int attr = i < whats.len ? tui_color(t, pair[(int)whats.buf[i]]) : 0;
		add_line(t, attr, "%.*s", (int)n, p);
		p += n + (p[n] == '\n');
	}
	strbuf_release(&text);
	strbuf_release(&whats);
}

/* `y`: the object as `kubectl get -o yaml` shows it, and nothing else. */
static void build_yaml(struct tui *t, struct row *r)
{
	struct json_object *tree = kobj_tree(r->obj);
	struct strbuf yaml = STRBUF_INIT;
	struct errbuf err = { "" };

	clear_lines(t);
	if (tree)
		redact_secret(tree);	/* a Secret's values by their sizes, as everywhere on screen */
	if (!tree || yaml_emit(tree, &yaml, &err) < 0) {
		add_line(t, A_BOLD | tui_color(t, PAIR_ERROR), "%s",
			 tree ? err.msg : "the object cannot be read");
	} else {
		for (const char *p = strbuf_str(&yaml); *p;) {
			size_t n = strcspn(p, "\n");
			add_line(t, 0, "%.*s", (int)n, p);
			p += n + (p[n] == '\n');
		}
	}
	json_object_put(tree);
	strbuf_release(&yaml);
	ds(t)->version = r->version;
}

/*
 * The history entry the view looks at (an index into the row's history):
 * the oldest kept when its delta was let go of since.
 */
static size_t step_of(const struct tui *t, const struct row *r)
{
	size_t nr = row_hist_nr(r), first = row_hist_dropped(r);

	if (ds(t)->step < 0 || (size_t)ds(t)->step >= first + nr)
		return nr ? nr - 1 : 0;
	return (size_t)ds(t)->step < first ? 0 : (size_t)ds(t)->step - first;
}

/* What the change at a step did: a diff of two states of the object. */
static void add_change(struct tui *t, struct kobj *before, struct kobj *after)
{
	struct json_object *a = kobj_tree(before), *b = kobj_tree(after);
	size_t lines = ds(t)->nr;

	redact_secret_pair(a, b);
	if (a && b) {
		/*
		 * List items carry no kind or apiVersion and watch events do:
		 * that is no change to the object.
		 */
		static const char *const type_meta[] = { "kind", "apiVersion" };
		for (size_t i = 0; i < ARRAY_SIZE(type_meta); i++) {
			if (!json_object_object_get_ex(a, type_meta[i], NULL) ||
			    !json_object_object_get_ex(b, type_meta[i], NULL)) {
				json_object_object_del(a, type_meta[i]);
				json_object_object_del(b, type_meta[i]);
			}
		}
		add_diff(t, a, b);
	}
	if (ds(t)->nr == lines)
		add_line(t, A_DIM, "  (no difference)");
	json_object_put(a);
	json_object_put(b);
}

static void build(struct tui *t, struct row *r)
{
	struct tab *tab = &t->tabs[ds(t)->tab];
	const char *arrow = t->utf8 ? "→" : "->";
	char clock[16], how[64];
	size_t step = step_of(t, r);
	bool newest = !row_hist_nr(r) || step + 1 == row_hist_nr(r);
	struct kobj *state = row_hist_nr(r) ? row_hist_obj(r, step) : NULL;

	if (ds(t)->yaml) {
		build_yaml(t, r);
		return;
	}
	clear_lines(t);
	char dropped[64] = "";
	if (row_hist_dropped(r))	/* the ring's or the budget's (--history-size) */
		snprintf(dropped, sizeof(dropped), "; %u older deltas not kept", row_hist_dropped(r));
	add_line(t, A_BOLD, "Delta history: %zu since kinf started%s;  [ ] step through it",
		 (size_t)row_hist_total(r), dropped);
	for (size_t i = 0; i < row_hist_nr(r); i++) {
		struct hist_entry buf;
		const struct hist_entry *h = row_hist_at(r, i, &buf);
		format_clock(h->time_ms, clock);
		hist_describe(h, how, sizeof(how));
		char fate[192] = "";
		if (tui_ctl_fate(t, tab->ctl, r, i, fate + 2, sizeof(fate) - 2))
			memcpy(fate, "  ", 2);	/* --controller: where it went */
		add_line(t, delta_attr(t, h->type) | (i == step && row_hist_nr(r) > 1 ? A_REVERSE : 0),
			 "%s %s  %-8s  rv %-10s  %s%s", i == step ? ">" : " ", clock,
			 delta_type_name(h->type), h->rv[0] ? h->rv : "-", how, fate);
	}
	add_line(t, 0, "%s", "");

	if (!newest || !row_prev(r)) {
		/* A step's change: from the state before it, when both are kept. */
		struct kobj *before = step ? row_hist_obj(r, step - 1) : NULL;
		struct hist_entry buf;
		const struct hist_entry *h = row_hist_nr(r) ? row_hist_at(r, step, &buf) : NULL;

		if (!h) {
			add_line(t, A_BOLD, "Last update: none seen since kinf started");
		} else if (!tab->m.hist_states) {
			add_line(t, A_BOLD, "Step %zu of %zu: %s rv %s: no state is kept (--history 0)",
				 step + 1, row_hist_nr(r), delta_type_name(h->type), h->rv);
		} else if (!state) {
			add_line(t, A_BOLD, "Step %zu of %zu: %s rv %s: its state is no longer kept "
				 "(the newest %u at most)", step + 1, row_hist_nr(r),
				 delta_type_name(h->type), h->rv, tab->m.hist_states);
		} else if (!before) {
			add_line(t, A_BOLD, "Step %zu of %zu: %s rv %s: the first state kept",
				 step + 1, row_hist_nr(r), delta_type_name(h->type), h->rv);
		} else {
			add_line(t, A_BOLD, "Step %zu of %zu: %s rv %s %s %s", step + 1, row_hist_nr(r),
				 delta_type_name(h->type), before->rv, arrow, state->rv);
			add_change(t, before, state);
		}
	} else {
		add_line(t, A_BOLD, "Last update: rv %s %s %s", row_prev(r)->rv, arrow, r->obj->rv);
		add_change(t, row_prev(r), r->obj);
	}
	add_line(t, 0, "%s", "");

	struct kobj *shown = state && !newest ? state : r->obj;
	add_line(t, A_BOLD, "%s (%s)%s", r->gone && newest ? "Last known state" : "Object",
		 tab->m.kind, newest ? "" : ", as this step left it");
	struct json_object *tree = kobj_tree(shown);
	if (tree) {
		redact_secret(tree);
		const char *json = json_object_to_json_string_ext(tree,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			JSON_C_TO_STRING_NOSLASHESCAPE);
		for (const char *p = json; *p;) {
			size_t n = strcspn(p, "\n");
			add_line(t, 0, "  %.*s", (int)n, p);
			p += n + (p[n] == '\n');
		}
		json_object_put(tree);
	}
	ds(t)->version = r->version;
	ds(t)->hist_nr = row_hist_nr(r);
	ds(t)->ctl_gen = tui_ctl_generation(tab->ctl, row_key(r));
	ds(t)->ctl_any = tui_ctl_generation(tab->ctl, NULL);
	ds(t)->built_mono = mono_ms();
}

void detail_open(struct tui *t, size_t tab, const char *key, bool yaml)
{
	char *copy = xstrdup(key);

	free(ds(t)->key);
	ds(t)->key = copy;
	ds(t)->tab = tab;
	ds(t)->yaml = yaml;
	ds(t)->vanished = false;
	ds(t)->step = -1;
	ds(t)->scroll = (struct scroll){ 0, 0 };
	clear_lines(t);
	ds(t)->version = 0;
	struct row *r = model_row(&t->tabs[tab].m, key);
	if (r)
		build(t, r);
	else
		ds(t)->vanished = true;
	t->view = &detail_view;
}

static void *detail_view_new(struct tui *t, struct tab *tab)
{
	return xcalloc(1, sizeof(struct detail_state));
}

static void detail_view_free(void *state)
{
	struct detail_state *st = state;

	for (size_t i = 0; i < st->nr; i++)
		free(st->lines[i]);
	free(st->lines);
	free(st->attrs);
	free(st->key);
	free(st);
}

static void detail_draw(struct tui *t, const struct rect *r, bool focused)
{
	struct tab *tab = &t->tabs[ds(t)->tab];
	struct row *row = model_row(&tab->m, ds(t)->key);
	char title[512], ago[32];

	/* The budget's trim changes a history but not the row's version. */
	if (row && (row->version != ds(t)->version || row_hist_nr(row) != ds(t)->hist_nr ||
		    ds(t)->ctl_gen != tui_ctl_generation(tab->ctl, row_key(row)) ||
		    (ds(t)->ctl_any != tui_ctl_generation(tab->ctl, NULL) &&
		     t->now_mono - ds(t)->built_mono >= 1000)))
		build(t, row);
	if (!row)
		ds(t)->vanished = true;
	ds(t)->height = r->h - 1;
	scroll_fix(&ds(t)->scroll, ds(t)->nr, ds(t)->height);

	if (row) {
		format_ago(t, row_last_ms(row), ago);
		snprintf(title, sizeof(title), " %s %s  rv %s  %s %s ago%s%s", tab->m.kind,
			 ds(t)->key, row->obj->rv, delta_type_name(row->last_type), ago,
			 row->gone ? "  (deleted)" : "", ds(t)->yaml ? "  YAML" : "");
	} else {
		snprintf(title, sizeof(title), " %s %s  (no longer cached)", tab->m.kind,
			 ds(t)->key);
	}
	draw_title(t, r, focused, title, NULL);
	for (int i = 0; i < ds(t)->height; i++) {
		size_t at = ds(t)->scroll.top + (size_t)i;
		if (at >= ds(t)->nr)
			break;
		draw_text(r->y + 1 + i, r->x, r->w, ds(t)->attrs[at], ds(t)->lines[at]);
	}
}

static bool detail_request(struct tui *t, enum request req, int key)
{
	/* The text itself scrolls: the cursor is the top line. */
	struct scroll *s = &ds(t)->scroll;
	size_t nr = ds(t)->nr;
	size_t last_top = nr > (size_t)ds(t)->height ? nr - (size_t)ds(t)->height : 0;
	long page = ds(t)->height > 1 ? ds(t)->height - 1 : 1;
	long by;

	switch (req) {
	case REQ_MOVE_UP: by = -1; break;
	case REQ_MOVE_DOWN: by = 1; break;
	case REQ_PAGE_UP: by = -page; break;
	case REQ_PAGE_DOWN: by = page; break;
	case REQ_MOVE_FIRST:
		s->cur = s->top = 0;
		return true;
	case REQ_MOVE_LAST:
		s->cur = s->top = last_top;
		return true;
	case REQ_CLOSE:
		t->view = NULL;
		return true;
	case REQ_STEP_OLDER: case REQ_STEP_NEWER: {
		/* A step older or newer in the history; past the newest: follow it. */
		struct row *row = model_row(&t->tabs[ds(t)->tab].m, ds(t)->key);
		if (!row || !row_hist_nr(row))
			return true;
		size_t step = step_of(t, row);
		long first = (long)row_hist_dropped(row);
		if (req == REQ_STEP_OLDER && step > 0)
			ds(t)->step = first + (long)step - 1;
		else if (req == REQ_STEP_NEWER)
			ds(t)->step = step + 1 >= row_hist_nr(row) ? -1 : first + (long)step + 1;
		build(t, row);
		return true;
	}
	case REQ_YAML: {
		/* The other of the two: history, diff and JSON, or YAML. */
		struct row *row = model_row(&t->tabs[ds(t)->tab].m, ds(t)->key);
		ds(t)->yaml = !ds(t)->yaml;
		s->cur = s->top = 0;
		if (row)
			build(t, row);
		return true;
	}
	default:
		return false;
	}
	s->cur = s->top;
	scroll_by(s, by, last_top + 1);
	s->top = s->cur;
	return true;
}

static void detail_wheel(struct tui *t, int lines)
{
	struct scroll *s = &ds(t)->scroll;
	size_t nr = ds(t)->nr;
	size_t last_top = nr > (size_t)ds(t)->height ? nr - (size_t)ds(t)->height : 0;

	s->cur = s->top;
	scroll_by(s, lines, last_top + 1);
	s->top = s->cur;
}

const struct view_ops detail_view = {
	.name = "detail",
	.new = detail_view_new,
	.free = detail_view_free,
	.draw = detail_draw,
	.keymap = KEYMAP_DETAIL,
	.request = detail_request,
	.wheel = detail_wheel,
};
