/*
 * tui_prompt.h — the status line's prompt (t->prompt).  After prompt_key(),
 * wants_resource asks the caller to open the resource named by text and
 * to close the prompt with prompt_close(); what goes wrong then (no such
 * resource) the caller says on the status line (tui_message()), the
 * prompt closed: the keys after it are keys again, not text.
 */
#ifndef KINF_TUI_PROMPT_H
#define KINF_TUI_PROMPT_H

#include "tui/tui_view.h"

void prompt_open(struct tui *t, enum prompt_kind kind);
void prompt_key(struct tui *t, int key);
void prompt_close(struct tui *t);
void prompt_draw(struct tui *t, int y);

#endif
