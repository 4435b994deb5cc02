/*
 * test_tui_request.c — the keys' one table: what a key asks for in each
 * keymap (exact keys before ranges, a main-screen key is nothing over a
 * full-screen view, the help takes only its own), and the help screen and
 * footers built from it.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/tui_request.h"
#include "unit.h"

TEST(main_screen_keys)
{
	CHECK_INT(request_of(KEYMAP_MAIN, 'j'), REQ_MOVE_DOWN);
	CHECK_INT(request_of(KEYMAP_MAIN, KEY_RIGHT), REQ_SORT_NEXT);
	CHECK_INT(request_of(KEYMAP_MAIN, '3'), REQ_GO_TAB);
	/* Exact keys win over Shift+letter, generic ones too. */
	CHECK_INT(request_of(KEYMAP_MAIN, 'S'), REQ_SORT_REVERSE);
	CHECK_INT(request_of(KEYMAP_MAIN, 'V'), REQ_VERIFY);
	CHECK_INT(request_of(KEYMAP_MAIN, 'G'), REQ_MOVE_LAST);
	CHECK_INT(request_of(KEYMAP_MAIN, 'N'), REQ_SORT_LETTER);
	CHECK_INT(request_of(KEYMAP_MAIN, 'h'), REQ_NONE);
	CHECK_INT(request_of(KEYMAP_MAIN, '0'), REQ_ALL_NAMESPACES);	/* as k9s's 0 */
}

TEST(detail_keys)
{
	CHECK_INT(request_of(KEYMAP_DETAIL, KEY_LEFT), REQ_CLOSE);
	CHECK_INT(request_of(KEYMAP_DETAIL, '['), REQ_STEP_OLDER);
	CHECK_INT(request_of(KEYMAP_DETAIL, 'p'), REQ_PAUSE);
	/* Keys of the main screen are nothing here. */
	CHECK_INT(request_of(KEYMAP_DETAIL, 'V'), REQ_NONE);
	CHECK_INT(request_of(KEYMAP_DETAIL, '\t'), REQ_NONE);
	CHECK_INT(request_of(KEYMAP_DETAIL, 'S'), REQ_NONE);
}

TEST(help_keys_are_its_own)
{
	CHECK_INT(request_of(KEYMAP_HELP, ' '), REQ_PAGE_DOWN);
	CHECK_INT(request_of(KEYMAP_HELP, 'q'), REQ_QUIT);
	/* Not the generic ones: they close the help. */
	CHECK_INT(request_of(KEYMAP_HELP, 'f' & 0x1f), REQ_NONE);
	CHECK_INT(request_of(KEYMAP_HELP, 27), REQ_NONE);
	CHECK_INT(request_of(KEYMAP_HELP, 'p'), REQ_NONE);
}

TEST(help_and_hints_from_the_table)
{
	size_t nr;
	const char *const *lines = request_help(&nr);

	CHECK(nr > 30);
	CHECK_STR(lines[0], "Moving");
	CHECK_STR(lines[1], "  Up/Down  j/k       move the cursor");
	CHECK_STR(lines[nr - 1], "  q                  quit");
	CHECK_STR(request_hints(KEYMAP_HELP), "Esc back  q quit");
	CHECK(!strncmp(request_hints(KEYMAP_MAIN), "? help  / filter", 16));
}

int main(void)
{
	RUN(main_screen_keys);
	RUN(detail_keys);
	RUN(help_keys_are_its_own);
	RUN(help_and_hints_from_the_table);
	return unit_done();
}
