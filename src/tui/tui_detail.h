/*
 * tui_detail.h — the object full screen: its history, last change and
 * JSON; only the object, as YAML; or as kubectl describe lays it out.
 */
#ifndef KINF_TUI_DETAIL_H
#define KINF_TUI_DETAIL_H

#include "tui/tui_view.h"

enum detail_mode {
	DETAIL_HISTORY,
	DETAIL_YAML,
	DETAIL_DESCRIBE,
};
void detail_open(struct tui *t, size_t tab, const char *key, enum detail_mode mode);

#endif
