/*
 * tui_prompt.c — the line typed on the status line: `/` a filter (applied
 * as it is typed), `:` a resource to show (switching to its tab, or adding
 * one), `n` a namespace to narrow every tab to.  Tab completes `:` from
 * the resources the server offers and `n` from the namespaces in the
 * caches.  Enter keeps what was typed unless it does not parse, which the
 * prompt then says; Esc puts back what was there before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "cluster/discovery.h"
#include "informer/session.h"
#include "lib/util.h"
#include "tui/tui_prompt.h"
#include "tui/tui_table.h"

static const char *const prompt_labels[] = {
	[PROMPT_FILTER] = "filter (regex, or l:selector): ",
	[PROMPT_RESOURCE] = "resource: ",
	[PROMPT_NAMESPACE] = "namespace (empty: all): ",
};

void prompt_open(struct tui *t, enum prompt_kind kind)
{
	struct prompt *p = &t->prompt;
	struct tab *tab = tui_tab(t);

	memset(p, 0, sizeof(*p));
	p->kind = kind;
	if (kind == PROMPT_FILTER) {
		/* A new filter, not an edit of the old: Esc brings that back. */
		snprintf(p->saved, sizeof(p->saved), "%s", tab->filter.text);
		if (filter_active(&tab->filter)) {
			filter_clear(&tab->filter);
			t->filter_gen++;
		}
	}
}

/* ---- completion ------------------------------------------------------------ */

struct words {
	char **v;
	size_t nr, alloc;
};

static void words_add(struct words *w, const char *s)
{
	for (size_t i = 0; i < w->nr; i++)
		if (!strcmp(w->v[i], s))
			return;
	ALLOC_GROW(w->v, w->nr + 1, w->alloc);
	w->v[w->nr++] = xstrdup(s);
}

static void words_release(struct words *w)
{
	for (size_t i = 0; i < w->nr; i++)
		free(w->v[i]);
	free(w->v);
}

/* The resources `:` can show: those that can be listed and watched. */
static void resource_words(struct tui *t, struct words *w)
{
	const struct api_resource **all;
	size_t nr;

	discovery_all(t->session->cluster.disco, &all, &nr);
	for (size_t i = 0; i < nr; i++)
		if (api_resource_has_verb(all[i], "list") && api_resource_has_verb(all[i], "watch"))
			words_add(w, all[i]->name);
}

/* The namespaces the caches know: of namespaced objects, and Namespaces. */
static void namespace_words(struct tui *t, struct words *w)
{
	for (size_t i = 0; i < t->nr; i++) {
		struct model *m = &t->tabs[i].m;
		bool is_ns = !strcmp(m->kind, "Namespace");
		size_t iter = 0;
		struct row *r;
		if (!m->namespaced && !is_ns)
			continue;
		while ((r = model_next_row(m, &iter))) {
			const char *ns = is_ns ? r->obj->name : r->obj->ns;
			if (ns && *ns)
				words_add(w, ns);
		}
	}
	if (t->session->cluster.scope_ns)
		words_add(w, t->session->cluster.scope_ns);
}

static void complete(struct tui *t)
{
	struct prompt *p = &t->prompt;
	struct words all = { 0 }, match = { 0 };

	if (p->kind == PROMPT_RESOURCE)
		resource_words(t, &all);
	else if (p->kind == PROMPT_NAMESPACE)
		namespace_words(t, &all);
	else
		return;
	size_t len = strlen(p->text);
	for (size_t i = 0; i < all.nr; i++)
		if (!strncmp(all.v[i], p->text, len))
			words_add(&match, all.v[i]);
	if (match.nr > 1)
		qsort(match.v, match.nr, sizeof(*match.v), strv_cmp);

	p->hint[0] = '\0';
	if (!match.nr) {
		snprintf(p->hint, sizeof(p->hint), "no %s starts with '%s'",
			 p->kind == PROMPT_RESOURCE ? "resource" : "namespace", p->text);
	} else {
		/* As far as every candidate agrees. */
		size_t common = strlen(match.v[0]);
		for (size_t i = 1; i < match.nr; i++) {
			size_t k = 0;
			while (k < common && match.v[i][k] == match.v[0][k])
				k++;
			common = k;
		}
		if (common >= sizeof(p->text))
			common = sizeof(p->text) - 1;
		memcpy(p->text, match.v[0], common);
		p->text[common] = '\0';
		if (match.nr > 1) {
			size_t n = 0;
			for (size_t i = 0; i < match.nr && n + 2 < sizeof(p->hint); i++)
				n += (size_t)snprintf(p->hint + n, sizeof(p->hint) - n, "%s%s",
						      i ? "  " : "", match.v[i]);
		}
	}
	words_release(&all);
	words_release(&match);
}

/* ---- what the typed text does ---------------------------------------------- */

/* Applies the filter as typed; an invalid one is said, and not applied. */
static void filter_follow(struct tui *t)
{
	struct prompt *p = &t->prompt;
	struct tab *tab = tui_tab(t);
	struct errbuf err = { "" };

	p->error[0] = '\0';
	if (!strcmp(tab->filter.text, p->text))
		return;
	if (filter_set(&tab->filter, p->text, &err) < 0) {
		snprintf(p->error, sizeof(p->error), "%s", err.msg);
		filter_clear(&tab->filter);
	}
	t->filter_gen++;
	table_to_top(tab);
}

/*
 * Enter: the prompt closes, unless the filter typed does not parse; true
 * when the loop is to open the resource typed.
 */
static bool accept(struct tui *t)
{
	struct prompt *p = &t->prompt;
	bool open = false;

	switch (p->kind) {
	case PROMPT_FILTER:
		if (p->error[0])
			return false;
		break;
	case PROMPT_RESOURCE:
		if (!strcmp(p->text, "q") || !strcmp(p->text, "quit"))
			t->quit = true;
		else
			open = p->text[0] != '\0';
		break;
	case PROMPT_NAMESPACE:
		tui_namespace_show(t, p->text);
		if (p->text[0])
			tui_message(t, "namespace %s only; n and Enter shows all again", p->text);
		else
			tui_message(t, "all namespaces");
		break;
	case PROMPT_NONE:
		break;
	}
	p->kind = PROMPT_NONE;
	return open;
}

static void cancel(struct tui *t)
{
	struct prompt *p = &t->prompt;
	struct tab *tab = tui_tab(t);
	struct errbuf err;

	if (p->kind == PROMPT_FILTER) {
		if (filter_set(&tab->filter, p->saved, &err) < 0)
			filter_clear(&tab->filter);
		t->filter_gen++;
	}
}

bool prompt_key(struct tui *t, int key)
{
	struct prompt *p = &t->prompt;
	size_t len = strlen(p->text);
	bool edited = false;

	switch (key) {
	case 27:	/* Esc: as it was */
		cancel(t);
		p->kind = PROMPT_NONE;
		return false;
	case '\r': case '\n': case KEY_ENTER:
		return accept(t);
	case '\t':
		complete(t);
		edited = true;
		break;
	case KEY_BACKSPACE: case 127: case 8:
		if (len)
			p->text[len - 1] = '\0';
		edited = true;
		break;
	case 'u' & 0x1f:
		p->text[0] = '\0';
		edited = true;
		break;
	default:
		if (key >= 32 && key < 127 && len + 1 < sizeof(p->text)) {
			p->text[len] = (char)key;
			p->text[len + 1] = '\0';
			edited = true;
		}
		break;
	}
	if (!edited)
		return false;
	if (key != '\t')
		p->hint[0] = '\0';
	if (p->kind == PROMPT_FILTER)
		filter_follow(t);	/* the table follows the typing */
	else
		p->error[0] = '\0';
	return false;
}

void prompt_draw(struct tui *t, int y)
{
	struct prompt *p = &t->prompt;
	char buf[600];

	snprintf(buf, sizeof(buf), "%s%s", prompt_labels[p->kind], p->text);
	draw_fill(y, 0, t->cols, A_NORMAL, buf);
	int x = text_width(buf);
	if (x < t->cols)
		mvaddch(y, x, ' ' | A_REVERSE);
	/* The error, or what Tab found, to the right of the cursor. */
	const char *note = p->error[0] ? p->error : p->hint;
	int attr = p->error[0] ? A_BOLD | tui_color(t, PAIR_ERROR) : A_DIM;
	if (*note && x + 3 < t->cols)
		draw_text(y, x + 3, t->cols - x - 3, attr, note);
}
