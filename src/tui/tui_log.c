/*
 * tui_log.c — the delta stream of the current resource: one line per
 * delta, coloured by type, saying where it came from (initial list,
 * relist n, watch, resync) and whether it is a tombstone, with the
 * informer's activity (lists, watches, 410s, backoff) between them.
 * The cursor follows the newest line until it is moved away; Enter opens
 * the object's detail.
 */
#include <stdio.h>
#include <string.h>

#include <curses.h>

#include "tui/tui_view.h"
#include "lib/util.h"

static void log_follow(struct tab *tab)
{
	if (tab->log_follow && tab->m.log_nr)
		tab->log.cur = tab->m.log_nr - 1;
}

static void log_draw(struct tui *t, const struct rect *r, bool focused)
{
	struct tab *tab = tui_tab(t);
	struct model *m = &tab->m;
	char title[128], right[64];

	tab->log_height = r->h - 1;
	log_follow(tab);
	scroll_fix(&tab->log, m->log_nr, tab->log_height);

	snprintf(title, sizeof(title), " deltas  %zu shown", m->log_nr);
	snprintf(right, sizeof(right), "%s", tab->log_follow ? "following" : "");
	draw_title(t, r, focused, title, right);

	for (int i = 0; i < tab->log_height; i++) {
		size_t at = tab->log.top + (size_t)i;
		if (at >= m->log_nr)
			break;
		const struct log_entry *e = model_log_at(m, at);
		bool sel = focused && at == tab->log.cur;
		int base = sel ? A_REVERSE : A_NORMAL;
		int y = r->y + 1 + i, x = r->x;
		char clock[16], buf[512];

		if (sel)
			mvhline(y, r->x, ' ' | (chtype)base, r->w);
		format_clock(e->time_ms, clock);
		draw_text(y, x, r->w, base | A_DIM, clock);
		x += 13;
		if (x >= r->x + r->w)
			continue;
		if (e->kind == LOG_ACTIVITY) {
			snprintf(buf, sizeof(buf), "-- %s", e->text);
			draw_text(y, x, r->x + r->w - x, base | A_BOLD | tui_color(t, PAIR_ACTIVITY), buf);
			continue;
		}
		const char *type = delta_type_name(e->d.type);
		draw_text(y, x, r->x + r->w - x, base | (sel ? 0 : delta_attr(t, e->d.type)), type);
		x += 9;
		if (x >= r->x + r->w)
			continue;
		char how[64];
		hist_describe(&e->d, how, sizeof(how));
		snprintf(buf, sizeof(buf), "%s  rv %s  %s", e->text, e->d.rv[0] ? e->d.rv : "-", how);
		draw_text(y, x, r->x + r->w - x, base, buf);
	}
}

static bool log_key(struct tui *t, int key)
{
	struct tab *tab = tui_tab(t);
	struct model *m = &tab->m;

	if (scroll_key(&tab->log, key, m->log_nr, tab->log_height)) {
		tab->log_follow = m->log_nr && tab->log.cur == m->log_nr - 1;
		return true;
	}
	if (key == '\r' || key == '\n' || key == KEY_ENTER) {
		if (tab->log.cur < m->log_nr) {
			const struct log_entry *e = model_log_at(m, tab->log.cur);
			if (e->kind == LOG_DELTA)
				detail_open(t, t->cur, e->text);
		}
		return true;
	}
	return false;
}

static void log_wheel(struct tui *t, int lines)
{
	struct tab *tab = tui_tab(t);
	scroll_by(&tab->log, lines, tab->m.log_nr);
	scroll_fix(&tab->log, tab->m.log_nr, tab->log_height);
	tab->log_follow = tab->m.log_nr && tab->log.cur == tab->m.log_nr - 1;
}

const struct view_ops log_view = {
	.name = "log",
	.draw = log_draw,
	.key = log_key,
	.wheel = log_wheel,
};
