/*
 * tui_controller.h — the controller pane, and the object it is about.
 */
#ifndef KINF_TUI_CONTROLLER_H
#define KINF_TUI_CONTROLLER_H

#include "tui/tui_view.h"

/* `w` shows or hides the controller pane (controller_view). */
void tui_ctl_toggle(struct tui *t);
/* The key of the object under the cursor, in the table or the delta pane
 * (as focused), or NULL: what the pane, y and d are about. */
const char *tui_selected_key(struct tui *t);

#endif
