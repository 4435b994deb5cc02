/*
 * tui_prompt.h — the status line's prompt (t->prompt).  prompt_key()
 * returns true when Enter on `:` closed the prompt on a resource's name:
 * the caller is to open the resource named by text; what goes wrong then
 * (no such resource) the caller says on the status line (tui_message()),
 * the prompt closed: the keys after it are keys again, not text.
 */
#ifndef KINF_TUI_PROMPT_H
#define KINF_TUI_PROMPT_H

#include "tui/tui_view.h"

void prompt_open(struct tui *t, enum prompt_kind kind);
bool prompt_key(struct tui *t, int key);
void prompt_draw(struct tui *t, int y);

#endif
