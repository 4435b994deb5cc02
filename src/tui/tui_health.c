/*
 * tui_health.c — the informer's own activity: what it is doing and since
 * when, its resourceVersion, how often it listed, watched, relisted (and
 * why), hit 410, failed, backed off, got bookmarks and resynced; deltas
 * per second, the FIFO's depth, the resync times and the last error.
 * Everything comes from informer_get_stats(), sampled once a second.
 */
#include <stdio.h>
#include <string.h>

#include <curses.h>

#include "tui/tui_view.h"
#include "lib/util.h"

static void state_text(const struct tui *t, const struct informer_stats *st,
		       char *buf, size_t size)
{
	char d[32];

	switch (st->state) {
	case STATE_LISTING:
		if (st->relists && st->relist_reason[0])
			snprintf(buf, size, "relisting (%s), page %u", st->relist_reason,
				 st->list_page);
		else
			snprintf(buf, size, "listing, page %u", st->list_page);
		break;
	case STATE_WATCHING:
		format_ago(t, st->state_since_ms, d);
		snprintf(buf, size, "watching for %s", d);
		break;
	case STATE_BACKOFF:
		format_age(st->backoff_until_ms - t->now_wall, d);
		snprintf(buf, size, "backing off, retry in %s", d);
		break;
	default:
		snprintf(buf, size, "%s", informer_state_name(st->state));
		break;
	}
}

static void health_draw(struct tui *t, const struct rect *r, bool focused)
{
	struct tab *tab = tui_tab(t);
	const struct informer_stats *st = &tab->m.stats;
	char lines[16][320], a[32], b[32];
	int attrs[16] = { 0 };
	size_t n = 0, err_line = (size_t)-1;

	draw_title(t, r, focused, " informer", NULL);

	char state[160];
	state_text(t, st, state, sizeof(state));
	snprintf(lines[n], sizeof(lines[n]), "state    %s", state);
	attrs[n++] = st->state == STATE_BACKOFF ? A_BOLD | tui_color(t, PAIR_ERROR) : A_BOLD;
	snprintf(lines[n++], sizeof(lines[0]), "rv       %s%s", st->rv[0] ? st->rv : "-",
		 st->synced ? "  synced" : "  not synced");
	snprintf(lines[n++], sizeof(lines[0]), "lists %llu  relists %llu  410s %llu",
		 (unsigned long long)st->lists, (unsigned long long)st->relists,
		 (unsigned long long)st->expired);
	snprintf(lines[n++], sizeof(lines[0]), "watches %llu  bookmarks %llu",
		 (unsigned long long)st->watches, (unsigned long long)st->bookmarks);
	snprintf(lines[n], sizeof(lines[0]), "errors %llu  backoffs %llu  renewed %llu",
		 (unsigned long long)st->errors, (unsigned long long)st->backoffs,
		 (unsigned long long)st->stalls);
	attrs[n++] = st->errors ? tui_color(t, PAIR_ERROR) : 0;
	snprintf(lines[n++], sizeof(lines[0]), "deltas/s %.1f  fifo %zu  cached %zu",
		 tab->m.deltas_per_s, st->fifo_depth, st->cached);
	if (st->last_resync_ms)
		format_ago(t, st->last_resync_ms, a);
	else
		snprintf(a, sizeof(a), "never");
	if (st->next_resync_ms)
		format_age(st->next_resync_ms - t->now_wall, b);
	snprintf(lines[n++], sizeof(lines[0]), "resyncs %llu  last %s%s%s",
		 (unsigned long long)st->resyncs, a, st->next_resync_ms ? "  next " : "",
		 st->next_resync_ms ? b : "");
	if (tab->m.held_nr || t->paused)
		snprintf(lines[n++], sizeof(lines[0]), "held %zu (paused)", tab->m.held_nr);
	if (st->last_error[0]) {
		format_ago(t, st->last_error_ms, a);
		snprintf(lines[n], sizeof(lines[0]), "error %s ago: %s", a, st->last_error);
		err_line = n;
		attrs[n++] = A_BOLD | tui_color(t, PAIR_ERROR);
	}
	snprintf(lines[n++], sizeof(lines[0]), "events %llu  pages %llu  429s %llu",
		 (unsigned long long)st->events, (unsigned long long)st->pages,
		 (unsigned long long)st->throttled);
	snprintf(lines[n++], sizeof(lines[0]), "Added %llu  Updated %llu  Deleted %llu",
		 (unsigned long long)st->deltas[DELTA_ADDED],
		 (unsigned long long)st->deltas[DELTA_UPDATED],
		 (unsigned long long)st->deltas[DELTA_DELETED]);
	snprintf(lines[n++], sizeof(lines[0]), "Replaced %llu  Sync %llu",
		 (unsigned long long)st->deltas[DELTA_REPLACED],
		 (unsigned long long)st->deltas[DELTA_SYNC]);

	int y = r->y + 1;
	int w = r->w - 1;
	for (size_t i = 0; i < n && y < r->y + r->h; i++) {
		const char *s = lines[i];
		/* The error takes up to three lines. */
		for (int k = 0; *s && k < (i == err_line ? 3 : 1) && y < r->y + r->h; k++) {
			draw_text(y++, r->x + 1, w, attrs[i], s);
			s += strlen(s) > (size_t)w ? (size_t)w : strlen(s);
		}
	}
}

const struct view_ops health_view = {
	.name = "health",
	.draw = health_draw,
};
