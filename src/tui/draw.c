/*
 * draw.c — the drawing helpers every TUI view uses: clipped text, clocks
 * and the scrolling cursor.  Below the views and
 * the loop (tui.c), which both call in here; nothing here calls back.
 *
 * Threads: none — the terminal thread only (ncurses is not thread-safe).
 */
#include "tui/draw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include <curses.h>

#include "lib/util.h"

static bool is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

/* Draws s clipped to w columns; returns the columns used. */
static int put_text(int y, int x, int w, int attr, const char *s)
{
	int used;

	if (w <= 0)
		return 0;
	attrset(attr);
	if (is_ascii(s)) {
		int n = (int)strlen(s);
		used = n < w ? n : w;
		mvaddnstr(y, x, s, used);
	} else {
		wchar_t wbuf[512];
		size_t n = mbstowcs(wbuf, s, ARRAY_SIZE(wbuf) - 1);
		if (n == (size_t)-1) {
			/* Not valid in this locale: show bytes as '?'. */
			char safe[512];
			size_t i;
			for (i = 0; s[i] && i < sizeof(safe) - 1; i++)
				safe[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
			safe[i] = '\0';
			return put_text(y, x, w, attr, safe);
		}
		wbuf[ARRAY_SIZE(wbuf) - 1] = L'\0';
		int cols = 0;
		size_t i;
		for (i = 0; i < n; i++) {
			int cw = wcwidth(wbuf[i]);
			if (cw < 0)
				cw = 1;
			if (cols + cw > w)
				break;
			cols += cw;
		}
		mvaddnwstr(y, x, wbuf, (int)i);
		used = cols;
	}
	attrset(A_NORMAL);
	return used;
}

int draw_text(int y, int x, int w, int attr, const char *s)
{
	return put_text(y, x, w, attr, s);
}

void draw_fill(int y, int x, int w, int attr, const char *s)
{
	int used = put_text(y, x, w, attr, s);
	if (used < w)
		mvhline(y, x + used, ' ' | (chtype)attr, w - used);
}

void format_clock(int64_t wall, char buf[16])
{
	time_t secs = (time_t)(wall / 1000);
	struct tm tm;
	localtime_r(&secs, &tm);
	snprintf(buf, 16, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min,
		 tm.tm_sec, (int)(wall % 1000));
}

void scroll_fix(struct scroll *s, size_t nr, int height)
{
	size_t h = height > 0 ? (size_t)height : 1;

	if (!nr) {
		s->cur = s->top = 0;
		return;
	}
	if (s->cur >= nr)
		s->cur = nr - 1;
	if (s->cur < s->top)
		s->top = s->cur;
	if (s->cur >= s->top + h)
		s->top = s->cur - h + 1;
	/* No empty space below the last line when there is more above. */
	if (s->top + h > nr)
		s->top = nr > h ? nr - h : 0;
}

void scroll_by(struct scroll *s, long lines, size_t nr)
{
	if (!nr)
		return;
	if (lines < 0 && (size_t)-lines > s->cur)
		s->cur = 0;
	else if (lines > 0 && s->cur + (size_t)lines >= nr)
		s->cur = nr - 1;
	else
		s->cur = (size_t)((long)s->cur + lines);
}

bool scroll_key(struct scroll *s, int key, size_t nr, int height)
{
	long page = height > 1 ? height - 1 : 1;

	switch (key) {
	case KEY_UP: case 'k':
		scroll_by(s, -1, nr);
		break;
	case KEY_DOWN: case 'j':
		scroll_by(s, 1, nr);
		break;
	case KEY_PPAGE: case 'b' & 0x1f:
		scroll_by(s, -page, nr);
		break;
	case KEY_NPAGE: case 'f' & 0x1f: case ' ':
		scroll_by(s, page, nr);
		break;
	case KEY_HOME: case 'g':
		s->cur = 0;
		break;
	case KEY_END: case 'G':
		s->cur = nr ? nr - 1 : 0;
		break;
	default:
		return false;
	}
	scroll_fix(s, nr, height);
	return true;
}
