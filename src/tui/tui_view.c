/*
 * tui_view.c — the helpers of the view contract that read the UI's state
 * (struct tui): colours, title bars, ages, the status-line message, the
 * jobs handed to the worker.  The views and the loop (tui.c) call them;
 * they call nothing above.
 */
#include "tui/tui_view.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <curses.h>

#include "lib/util.h"

#define MESSAGE_MS 4000

void tui_message(struct tui *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->message, sizeof(t->message), fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n >= sizeof(t->message))	/* a server's error, say */
		text_mark_cut(t->message, sizeof(t->message));
	t->message_until = mono_ms() + MESSAGE_MS;
}

int tui_color(const struct tui *t, int pair)
{
	return t->color ? COLOR_PAIR(pair) : 0;
}

int delta_attr(const struct tui *t, enum delta_type type)
{
	static const int pair[DELTA__COUNT] = {
		[DELTA_ADDED] = PAIR_ADDED,
		[DELTA_UPDATED] = PAIR_UPDATED,
		[DELTA_DELETED] = PAIR_DELETED,
		[DELTA_REPLACED] = PAIR_REPLACED,
		[DELTA_SYNC] = PAIR_SYNC,
		[DELTA_REPLACED_ALL] = PAIR_REPLACED,
		[DELTA_SYNC_ALL] = PAIR_SYNC,
	};
	static const int plain[DELTA__COUNT] = {
		[DELTA_ADDED] = A_BOLD,
		[DELTA_DELETED] = A_UNDERLINE,
	};
	if ((unsigned)type >= DELTA__COUNT)
		return A_NORMAL;
	return t->color ? (int)COLOR_PAIR(pair[type]) : plain[type];
}

int delta_type_width(void)
{
	static int width;	/* the names never change: measured once */

	if (width)
		return width;
	for (int i = 0; i < DELTA__COUNT; i++) {
		int w = text_width(delta_type_name((enum delta_type)i));
		width = w > width ? w : width;
	}
	return width;
}

void draw_title(const struct tui *t, const struct rect *r, bool focused,
		const char *text, const char *right)
{
	int attr = focused ? (t->color ? (int)(COLOR_PAIR(PAIR_TITLE) | A_BOLD)
				       : A_REVERSE | A_BOLD)
			   : (t->color ? A_REVERSE : A_REVERSE | A_DIM);
	draw_fill(r->y, r->x, r->w, attr, text);
	if (right) {
		int n = (int)strlen(right);
		if (n < r->w - (int)strlen(text) - 1)
			draw_text(r->y, r->x + r->w - n - 1, n, attr, right);
	}
}

void format_ago(const struct tui *t, int64_t wall, char buf[32])
{
	if (!wall) {
		snprintf(buf, 32, "-");
		return;
	}
	format_age(t->now_wall - wall, buf);
}

int tui_job_submit(struct tui *t, struct tui_job *job, const char *what)
{
	if (consumer_submit(&t->cons, &job->base) < 0)
		return -1;
	snprintf(t->working, sizeof(t->working), "%s", what);
	return 0;
}

