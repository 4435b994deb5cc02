/*
 * draw.c — the drawing helpers every TUI view uses: text that says when
 * it is cut, word wrap, clocks and the scrolling cursor.  Below the views
 * and the loop (tui.c), which both call in here; nothing here calls back.
 *
 * Threads: none — the terminal thread only (ncurses is not thread-safe).
 */
#include "tui/draw.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <curses.h>

#include "lib/termsafe.h"
#include "lib/util.h"

static bool utf8;

void draw_set_utf8(bool on)
{
	utf8 = on;
}

const char *draw_ellipsis(void)
{
	return utf8 ? "…" : "..";
}

/*
 * The character at s (of at most len bytes) and its columns; a byte that
 * does not decode in this locale, or a character of no width, is a '?'.
 * Returns its bytes.
 */
static size_t char_at(const char *s, size_t len, mbstate_t *st, wchar_t *wc, int *cols)
{
	size_t n = mbrtowc(wc, s, len, st);

	if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
		memset(st, 0, sizeof(*st));
		*wc = L'?';
		n = 1;
	}
	*cols = wcwidth(*wc);
	if (*cols < 0) {
		*wc = L'?';
		*cols = 1;
	}
	return n;
}

/* s as wide characters, with a column width for each; returns how many (at most max). */
static size_t decode(const char *s, wchar_t *wbuf, int *widths, size_t max)
{
	mbstate_t st;
	size_t n = 0;

	memset(&st, 0, sizeof(st));
	for (; *s && n < max; n++)
		s += char_at(s, MB_CUR_MAX, &st, &wbuf[n], &widths[n]);
	return n;
}

/*
 * Every text drawn may quote the server: it is measured and drawn as
 * termsafe.h escapes it, so that nothing in it reaches the terminal as a
 * control, and ncurses never draws a control its own way.
 */
#define SAFE_SIZE 2048

static const char *safe_text(const char *s, char buf[SAFE_SIZE])
{
	size_t len = strlen(s);

	if (termsafe_is_safe(s, len, 0))
		return s;
	termsafe_escape(buf, SAFE_SIZE, s, len, 0);
	return buf;
}

int text_width(const char *s)
{
	wchar_t wbuf[512];
	int widths[512], cols = 0;
	bool ascii = true;
	char safe[SAFE_SIZE];

	s = safe_text(s, safe);
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p >= 0x80)
			ascii = false;
	if (ascii)
		return (int)strlen(s);
	size_t n = decode(s, wbuf, widths, ARRAY_SIZE(wbuf));
	for (size_t i = 0; i < n; i++)
		cols += widths[i];
	return cols;
}

void text_mark_cut(char *buf, size_t size)
{
	str_mark_cut(buf, size, draw_ellipsis());
}

int draw_text(int y, int x, int w, int attr, const char *s)
{
	wchar_t wbuf[512];
	int widths[512];
	char safe[SAFE_SIZE];

	if (w <= 0)
		return 0;
	s = safe_text(s, safe);
	attrset(attr);
	size_t n = decode(s, wbuf, widths, ARRAY_SIZE(wbuf) - 1);
	int total = 0;
	for (size_t i = 0; i < n; i++)
		total += widths[i];
	bool more = n == ARRAY_SIZE(wbuf) - 1;
	if (total <= w && !more) {
		mvaddnwstr(y, x, wbuf, (int)n);
		attrset(A_NORMAL);
		return total;
	}
	int used = 0, ell_w = utf8 ? 1 : 2;
	size_t i = 0;
	if (ell_w > w)
		ell_w = w;
	while (i < n && used + widths[i] <= w - ell_w)
		used += widths[i++];
	mvaddnwstr(y, x, wbuf, (int)i);
	mvaddnstr(y, x + used, draw_ellipsis(), utf8 ? -1 : ell_w);
	attrset(A_NORMAL);
	return used + ell_w;
}

void draw_fill(int y, int x, int w, int attr, const char *s)
{
	int used = draw_text(y, x, w, attr, s);
	if (used < w)
		mvhline(y, x + used, ' ' | (chtype)attr, w - used);
}

size_t text_fit(const char *s, size_t len, int w)
{
	mbstate_t st;
	size_t at = 0;
	int cols = 0;

	memset(&st, 0, sizeof(st));
	while (at < len) {
		wchar_t wc;
		int cw;
		size_t n = char_at(s + at, len - at, &st, &wc, &cw);
		if (at && cols + cw > w)
			break;
		cols += cw;
		at += n;
	}
	return at;
}

int text_wrap(const char *s, int w, int max_lines,
	      void (*line)(void *ctx, const char *text), void *ctx)
{
	char buf[1024];
	int given = 0;

	if (w < 1 || max_lines < 1)
		return 0;
	while (*s == ' ')
		s++;
	while (*s && given < max_lines) {
		/* Take words while they fit; a lone word too wide is split. */
		size_t len = 0, fit = 0;
		while (s[len]) {
			size_t word = strcspn(s + len, " ");
			char tmp[1024];
			size_t end = len + word;
			if (end >= sizeof(tmp))
				end = sizeof(tmp) - 1;
			memcpy(tmp, s, end);
			tmp[end] = '\0';
			if (text_width(tmp) > w)
				break;
			fit = end;
			len = end;
			while (s[len] == ' ')
				len++;
		}
		if (!fit)	/* one word wider than the line: as many characters as fit */
			fit = text_fit(s, strlen(s), w);
		if (fit >= sizeof(buf))
			fit = sizeof(buf) - 1;
		memcpy(buf, s, fit);
		buf[fit] = '\0';
		s += fit;
		while (*s == ' ')
			s++;
		given++;
		if (*s && given == max_lines) {
			/* More than the lines allow: say so on the last one. */
			char last[1100];
			snprintf(last, sizeof(last), "%s %s", buf, s);
			line(ctx, last);	/* drawn clipped: it ends in the ellipsis */
			return given;
		}
		line(ctx, buf);
	}
	return given;
}

void pane_line(struct pane_lines *p, int attr, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (p->y >= p->bottom)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	draw_text(p->y++, p->x, p->w, attr, buf);
}

void pane_wrap(void *ctx, const char *text)
{
	struct pane_lines *p = ctx;

	if (p->y < p->bottom)
		draw_text(p->y++, p->x, p->w, p->attr, text);
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

bool scroll_request(struct scroll *s, enum request req, size_t nr, int height)
{
	long page = height > 1 ? height - 1 : 1;

	switch (req) {
	case REQ_MOVE_UP:
		scroll_by(s, -1, nr);
		break;
	case REQ_MOVE_DOWN:
		scroll_by(s, 1, nr);
		break;
	case REQ_PAGE_UP:
		scroll_by(s, -page, nr);
		break;
	case REQ_PAGE_DOWN:
		scroll_by(s, page, nr);
		break;
	case REQ_MOVE_FIRST:
		s->cur = 0;
		break;
	case REQ_MOVE_LAST:
		s->cur = nr ? nr - 1 : 0;
		break;
	default:
		return false;
	}
	scroll_fix(s, nr, height);
	return true;
}
