/*
 * tui_detail.c — one object, full screen (Enter on a row or a log line):
 * its delta history since kinf started, what its last update changed,
 * and its current JSON; or (y) the object as `kubectl get -o yaml`
 * prints it; or (d) as `kubectl describe` lays it out, with its Events,
 * which the consumer's worker fetches meanwhile (tui_describe.c).  Long
 * lines wrap at the view's width, continued at their own indent (at a
 * space in the second half of the width, else where they must); `w`
 * cuts them instead, ending in the ellipsis, and back.
 *
 * `[` and `]` step through the history: each step shows what that delta
 * changed (a diff of the state before it and the state it left) and the
 * object as it left it, for the newest HIST_STATES steps, whose states
 * the model keeps (as its history's budget allows: the header says how
 * many older deltas were let go of).  The text is rebuilt whenever a
 * delta for the object arrives; once the object is no longer tracked the
 * last text stays, marked so.
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
#include "lib/termsafe.h"
#include "tui/tui_detail.h"
#include "tui/tui_describe.h"
#include "tui/tui_story.h"
#include "lib/util.h"

#define WRAP_MIN 16		/* narrower, the lines are cut, not wrapped */

/* A line on screen: bytes [off, off + len) of a line, drawn indent columns in. */
struct vis_line {
	size_t line;
	size_t off, len;
	int indent;
};

/* The view's own state (t->screen[SCREEN_DETAIL]): which object, and its text. */
struct detail_state {
	size_t tab;
	char *key;
	enum detail_mode mode;
	unsigned version;	/* the row's version the lines are of */
	/* --controller: the key's and any key's tui_ctl_generation, and when
	 * built (an owner's Reconcile shows within a second). */
	uint64_t ctl_gen, ctl_any;
	int64_t built_mono;
	/*
	 * `[` `]`: the delta looked at, numbered from the object's first
	 * since kinf started (so that it stays the same delta when the ring
	 * turns or the budget lets older ones go); -1: the newest.
	 */
	long step;
	size_t hist_nr;		/* the row's history's entries the lines show */
	/*
	 * `d`: the Events (an array, owned; NULL: none known) or what the
	 * view says instead (""), and the fetch it waits for (0: none).
	 */
	struct json_object *events;
	char events_note[600];
	uint64_t events_seq, events_last;
	struct text_line {
		char *text;	/* escaped for the terminal: drawn as measured */
		int attr;
	} *lines;
	size_t nr, alloc;
	/* The lines as on screen: one each, or (wrap) their pieces. */
	bool wrap;
	struct vis_line *vis;
	size_t vis_nr, vis_alloc;
	int vis_w;		/* the width they were cut for; -1: cut them again */
	bool relocate;		/* `w`: the top back on keep_line */
	size_t keep_line;
	struct scroll scroll;	/* over vis */
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

	ALLOC_GROW(ds(t)->lines, ds(t)->nr + 1, ds(t)->alloc);
	va_start(ap, fmt);
	char *text = xvasprintf(fmt, ap);
	va_end(ap);
	if (!termsafe_is_safe(text, strlen(text), TERMSAFE_ONE_LINE)) {
		char *safe = termsafe_dup(text, TERMSAFE_ONE_LINE);
		free(text);
		text = safe;
	}
	ds(t)->lines[ds(t)->nr++] = (struct text_line){ text, attr };
}

/* Each line of text, after prefix. */
static void add_text(struct tui *t, const char *prefix, const char *text)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		add_line(t, 0, "%s%.*s", prefix, (int)n, p);
		p += n + (p[n] == '\n');
	}
}

static void clear_lines(struct tui *t)
{
	for (size_t i = 0; i < ds(t)->nr; i++)
		free(ds(t)->lines[i].text);
	ds(t)->nr = 0;
	ds(t)->vis_w = -1;
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
	diff_human(a, b, "  ", 0, &text);
	for (const char *p = strbuf_str(&text); *p; i++) {
		size_t n = strcspn(p, "\n");
		int attr = i < whats.len ? tui_color(t, pair[(int)whats.buf[i]]) : 0;
		add_line(t, attr, "%.*s", (int)n, p);
		p += n + (p[n] == '\n');
	}
	strbuf_release(&text);
	strbuf_release(&whats);
}

/*
 * `y`: the object as `kubectl get -o yaml` shows it, and nothing else;
 * `d`: as kubectl describe lays it out, then its Events.
 */
static void build_text(struct tui *t, struct row *r)
{
	struct tab *tab = &t->tabs[ds(t)->tab];
	struct json_object *tree = kobj_tree(r->obj);
	struct strbuf text = STRBUF_INIT;
	struct errbuf err = { "the object cannot be read" };
	int rc = tree ? 0 : -1;

	clear_lines(t);
	if (tree && ds(t)->mode == DETAIL_DESCRIBE) {
		describe_text(tree, tab->m.group, tab->m.kind, ds(t)->events,
			      ds(t)->events_note[0] ? ds(t)->events_note : NULL, wall_ms(), &text);
	} else if (tree) {
		redact_secret(tree);	/* a Secret's values by their sizes, as everywhere on screen */
		rc = yaml_emit(tree, &text, 0, &err);
	}
	if (rc < 0)
		add_line(t, A_BOLD | tui_color(t, PAIR_ERROR), "%s", err.msg);
	else
		add_text(t, "", strbuf_str(&text));
	json_object_put(tree);
	strbuf_release(&text);
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

/*
 * The history's lines, the step's marked: its columns even, the type as
 * wide as the widest name (ReplacedAll), the RV as the widest here.
 */
static void add_history(struct tui *t, struct row *r, size_t step)
{
	struct tab *tab = &t->tabs[ds(t)->tab];
	char clock[16], how[64], dropped[64] = "";
	int rv_w = 1;

	if (row_hist_dropped(r))	/* the ring's or the budget's (--history-size) */
		snprintf(dropped, sizeof(dropped), "; %u older deltas not kept", row_hist_dropped(r));
	add_line(t, A_BOLD, "Delta history: %zu since kinf started%s;  [ ] step through it",
		 (size_t)row_hist_total(r), dropped);
	for (size_t i = 0; i < row_hist_nr(r); i++) {
		struct hist_entry buf;
		int w = text_width(row_hist_at(r, i, &buf)->rv);
		rv_w = w > rv_w ? w : rv_w;
	}
	for (size_t i = 0; i < row_hist_nr(r); i++) {
		struct hist_entry buf;
		const struct hist_entry *h = row_hist_at(r, i, &buf);
		format_clock(h->time_ms, clock);
		hist_describe(h, how, sizeof(how));
		char fate[192] = "";
		if (tui_ctl_fate(t, tab->ctl, r, i, fate + 2, sizeof(fate) - 2))
			memcpy(fate, "  ", 2);	/* --controller: where it went */
		add_line(t, delta_attr(t, h->type) | (i == step && row_hist_nr(r) > 1 ? A_REVERSE : 0),
			 "%s %s  %-*s  rv %-*s  %s%s", i == step ? ">" : " ", clock,
			 delta_type_width(), delta_type_name(h->type), rv_w, h->rv[0] ? h->rv : "-",
			 how, fate);
	}
	add_line(t, 0, "%s", "");
}

static void build(struct tui *t, struct row *r)
{
	struct tab *tab = &t->tabs[ds(t)->tab];
	const char *arrow = t->utf8 ? "→" : "->";
	size_t step = step_of(t, r);
	bool newest = !row_hist_nr(r) || step + 1 == row_hist_nr(r);
	struct kobj *state = row_hist_nr(r) ? row_hist_obj(r, step) : NULL;

	if (ds(t)->mode != DETAIL_HISTORY) {
		build_text(t, r);
		return;
	}
	clear_lines(t);
	add_history(t, r, step);

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
		add_text(t, "  ", json_object_to_json_string_ext(tree,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(tree);
	}
	ds(t)->version = r->version;
	ds(t)->hist_nr = row_hist_nr(r);
	ds(t)->ctl_gen = tui_ctl_generation(tab->ctl, row_key_of(r));
	ds(t)->ctl_any = tui_ctl_generation(tab->ctl, NULL);
	ds(t)->built_mono = mono_ms();
}

/* The Events known: items (taken; NULL: none), waited for no longer. */
static void events_set(struct detail_state *st, struct json_object *items)
{
	json_object_put(st->events);
	st->events = items;
	st->events_seq = 0;
	st->events_note[0] = '\0';
}

/* The Events found, shown if the describe view still waits for them. */
static void events_found(struct tui *t, uint64_t seq, struct json_object *items, const char *why)
{
	struct detail_state *st = ds(t);

	if (!seq || seq != st->events_seq) {
		json_object_put(items);
		return;
	}
	events_set(st, items);
	if (!items)
		snprintf(st->events_note, sizeof(st->events_note), "(cannot list them: %s)", why);
	struct row *r = model_row(&t->tabs[st->tab].m, st->key);
	if (r && st->mode == DETAIL_DESCRIBE)
		build(t, r);
}

/* `d`: the Events of r's object, fetched anew on the worker (none for a Secret). */
static void events_fetch(struct tui *t, struct row *r)
{
	struct detail_state *st = ds(t);
	struct tab *tab = &t->tabs[st->tab];
	struct json_object *tree;
	struct errbuf err = { "" };

	events_set(st, NULL);
	if (!describe_has_events(tab->m.group, tab->m.kind))
		return;
	if (!(tree = kobj_tree(r->obj))) {
		snprintf(st->events_note, sizeof(st->events_note), "(the object cannot be read)");
		return;
	}
	if (describe_fetch(t, tree, tab->m.group, tab->m.kind, ++st->events_last, events_found,
			   &err) < 0) {
		snprintf(st->events_note, sizeof(st->events_note), "(not fetched: %s)", err.msg);
	} else {
		st->events_seq = st->events_last;
		snprintf(st->events_note, sizeof(st->events_note), "(fetching from the server%s)",
			 draw_ellipsis());
	}
	json_object_put(tree);
}

static void *detail_view_new(struct tui *t, struct tab *tab)
{
	struct detail_state *st = xcalloc(1, sizeof(*st));

	st->wrap = true;	/* as k9s's views: w cuts the lines instead */
	st->vis_w = -1;
	return st;
}

static void detail_view_free(void *state)
{
	struct detail_state *st = state;

	for (size_t i = 0; i < st->nr; i++)
		free(st->lines[i].text);
	free(st->lines);
	free(st->vis);
	json_object_put(st->events);
	free(st->key);
	free(st);
}

static void vis_push(struct detail_state *st, size_t line, size_t off, size_t len, int indent)
{
	ALLOC_GROW(st->vis, st->vis_nr + 1, st->vis_alloc);
	st->vis[st->vis_nr++] = (struct vis_line){ line, off, len, indent };
}

/* Where a piece of n bytes ends: after its last space, if in its second half. */
static size_t word_end(const char *s, size_t n)
{
	for (size_t i = n; i > n / 2; i--)
		if (s[i - 1] == ' ')
			return i;
	return n;
}

/*
 * The lines as they go on a screen w columns wide: whole (cut as they
 * are drawn) or in pieces that fit, each continued at its line's indent.
 */
static void vis_cut(struct tui *t, int w)
{
	struct detail_state *st = ds(t);

	st->vis_nr = 0;
	for (size_t i = 0; i < st->nr; i++) {
		const char *s = st->lines[i].text;
		size_t len = strlen(s), off = 0;
		int indent = 0, lead = (int)strspn(s, " ");
		if (!st->wrap || w < WRAP_MIN) {
			vis_push(st, i, 0, len, 0);
			continue;
		}
		if (lead > w / 2)
			lead = 0;
		do {
			size_t n = text_fit(s + off, len - off, w - indent);
			if (off + n < len)
				n = word_end(s + off, n);
			vis_push(st, i, off, n, indent);
			off += n;
			indent = lead;
		} while (off < len);
	}
	st->vis_w = w;
	for (size_t i = 0; st->relocate && i < st->vis_nr; i++) {
		if (st->vis[i].line == st->keep_line) {
			st->scroll.top = st->scroll.cur = i;
			st->relocate = false;
		}
	}
	st->relocate = false;
}

static void draw_piece(struct tui *t, int y, const struct rect *r, const struct vis_line *v)
{
	const struct text_line *line = &ds(t)->lines[v->line];

	if (v->off == 0 && !line->text[v->len]) {
		draw_text(y, r->x + v->indent, r->w - v->indent, line->attr, line->text);
		return;
	}
	char piece[2048];
	snprintf(piece, sizeof(piece), "%.*s", (int)v->len, line->text + v->off);
	draw_text(y, r->x + v->indent, r->w - v->indent, line->attr, piece);
}

static void detail_draw(struct tui *t, const struct rect *r, bool focused)
{
	static const char *const modes[] = {
		[DETAIL_HISTORY] = "", [DETAIL_YAML] = "  YAML", [DETAIL_DESCRIBE] = "  DESCRIBE",
	};
	struct tab *tab = &t->tabs[ds(t)->tab];
	struct row *row = model_row(&tab->m, ds(t)->key);
	char title[512], ago[32];

	/* The budget's trim changes a history but not the row's version. */
	if (row && (row->version != ds(t)->version || row_hist_nr(row) != ds(t)->hist_nr ||
		    ds(t)->ctl_gen != tui_ctl_generation(tab->ctl, row_key_of(row)) ||
		    (ds(t)->ctl_any != tui_ctl_generation(tab->ctl, NULL) &&
		     t->now_mono - ds(t)->built_mono >= 1000)))
		build(t, row);
	ds(t)->height = r->h - 1;
	if (ds(t)->vis_w != r->w)
		vis_cut(t, r->w);
	scroll_fix(&ds(t)->scroll, ds(t)->vis_nr, ds(t)->height);

	if (row) {
		format_ago(t, row_last_ms(row), ago);
		snprintf(title, sizeof(title), " %s %s  rv %s  %s %s ago%s%s", tab->m.kind,
			 ds(t)->key, row->obj->rv, delta_type_name(row->last_type), ago,
			 row->gone ? "  (deleted)" : "", modes[ds(t)->mode]);
	} else {
		snprintf(title, sizeof(title), " %s %s  (no longer cached)", tab->m.kind,
			 ds(t)->key);
	}
	draw_title(t, r, focused, title, ds(t)->wrap ? "wrap on" : "wrap off");
	for (int i = 0; i < ds(t)->height; i++) {
		size_t at = ds(t)->scroll.top + (size_t)i;
		if (at >= ds(t)->vis_nr)
			break;
		draw_piece(t, r->y + 1 + i, r, &ds(t)->vis[at]);
	}
}

/* `[` `]`: a step older or newer in the history; past the newest: follow it. */
static void step(struct tui *t, enum request req)
{
	struct row *row = model_row(&t->tabs[ds(t)->tab].m, ds(t)->key);

	if (!row || !row_hist_nr(row))
		return;
	size_t at = step_of(t, row);
	long first = (long)row_hist_dropped(row);
	if (req == REQ_STEP_OLDER && at > 0)
		ds(t)->step = first + (long)at - 1;
	else if (req == REQ_STEP_NEWER)
		ds(t)->step = at + 1 >= row_hist_nr(row) ? -1 : first + (long)at + 1;
	build(t, row);
}

/*
 * The object in mode: detail_open()'s; `y`: the other of history (with
 * its diff and JSON) and YAML; `d`: the describe view, or its Events
 * fetched again.
 */
static void switch_mode(struct tui *t, enum detail_mode mode)
{
	struct row *row = model_row(&t->tabs[ds(t)->tab].m, ds(t)->key);

	if (mode != ds(t)->mode)
		ds(t)->scroll.cur = ds(t)->scroll.top = 0;
	ds(t)->mode = mode;
	if (row && mode == DETAIL_DESCRIBE)
		events_fetch(t, row);
	if (row)
		build(t, row);
}

void detail_open(struct tui *t, size_t tab, const char *key, enum detail_mode mode)
{
	char *copy = xstrdup(key);

	free(ds(t)->key);
	ds(t)->key = copy;
	ds(t)->tab = tab;
	ds(t)->step = -1;
	ds(t)->scroll = (struct scroll){ 0, 0 };
	clear_lines(t);
	ds(t)->version = 0;
	events_set(ds(t), NULL);
	switch_mode(t, mode);
	t->view = &detail_view;
}

/*
 * The text scrolls by lines, or (0) by a move request: the cursor is the
 * top line, from 0 to the last page's.  False: no lines and req no move.
 */
static bool scroll_text(struct tui *t, enum request req, long lines)
{
	struct scroll *s = &ds(t)->scroll;
	size_t nr = ds(t)->vis_nr;
	size_t last_top = nr > (size_t)ds(t)->height ? nr - (size_t)ds(t)->height : 0;

	s->cur = s->top;
	if (lines)
		scroll_by(s, lines, last_top + 1);
	else if (!scroll_request(s, req, last_top + 1, ds(t)->height))
		return false;
	s->top = s->cur;
	return true;
}

static bool detail_request(struct tui *t, enum request req, int key)
{
	if (scroll_text(t, req, 0))
		return true;
	switch (req) {
	case REQ_CLOSE: t->view = NULL; break;
	case REQ_STEP_OLDER: case REQ_STEP_NEWER: step(t, req); break;
	case REQ_YAML:
		switch_mode(t, ds(t)->mode == DETAIL_YAML ? DETAIL_HISTORY : DETAIL_YAML);
		break;
	case REQ_DESCRIBE: switch_mode(t, DETAIL_DESCRIBE); break;
	case REQ_WRAP:
		/* The same line on top, however it is cut. */
		ds(t)->keep_line = ds(t)->scroll.top < ds(t)->vis_nr
				   ? ds(t)->vis[ds(t)->scroll.top].line : 0;
		ds(t)->relocate = true;
		ds(t)->wrap = !ds(t)->wrap;
		ds(t)->vis_w = -1;
		tui_message(t, "long lines %s; w: %s", ds(t)->wrap ? "wrapped" : "cut",
			    ds(t)->wrap ? "cut them" : "wrap them");
		break;
	default:
		return false;
	}
	return true;
}

static void detail_wheel(struct tui *t, int lines)
{
	scroll_text(t, REQ_NONE, lines);
}

const struct view_ops detail_view = {
	.new = detail_view_new,
	.free = detail_view_free,
	.draw = detail_draw,
	.keymap = KEYMAP_DETAIL,
	.request = detail_request,
	.wheel = detail_wheel,
};
