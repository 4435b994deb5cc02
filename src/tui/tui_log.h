/*
 * tui_log.h — the delta log pane.
 */
#ifndef KINF_TUI_LOG_H
#define KINF_TUI_LOG_H

#include "tui/tui_view.h"

/* The key of the object of the delta line under the cursor, or NULL. */
const char *log_selected_key(struct tab *tab);
/* The model's log was cleared: the cursor follows the newest again. */
void log_cleared(struct tab *tab);

#endif
