/*
 * tui_help.h — the help screen.
 */
#ifndef KINF_TUI_HELP_H
#define KINF_TUI_HELP_H

#include "tui/tui_view.h"

/* The keys, from the top, full screen. */
void help_open(struct tui *t);

#endif
