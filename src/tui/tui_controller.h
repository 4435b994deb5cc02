/*
 * tui_controller.h — the controller pane.
 */
#ifndef KINF_TUI_CONTROLLER_H
#define KINF_TUI_CONTROLLER_H

#include "tui/tui_view.h"

/* `w` shows or hides the controller pane (controller_view). */
void tui_ctl_toggle(struct tui *t);

#endif
