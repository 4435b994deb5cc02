/*
 * tui_describe.h — `d`: an object as `kubectl describe` lays it out
 * (its describers' lines, aligned as its tabwriter aligns them): a Pod's
 * and a Secret's as their own describers (a Secret's values by their
 * sizes only), any other kind's as the generic describer (its fields,
 * key: value, nested by indent); then its Events, as kubectl fetches
 * them: a LIST of events with a field selector on the object's name,
 * namespace, uid (and kind, but for a Pod).
 */
#ifndef KINF_TUI_DESCRIBE_H
#define KINF_TUI_DESCRIBE_H

#include "tui/tui_view.h"

/*
 * The text of obj (the caller's tree, redacted in place) into out, a
 * line each; events: the Events' items, or NULL with note saying why
 * there are none to show (NULL note: the kind shows no Events).
 */
void describe_text(struct json_object *obj, const char *group, const char *kind,
		   struct json_object *events, const char *note, int64_t now_ms,
		   struct strbuf *out);
/* Whether kubectl describe shows Events for the kind (a Secret: none). */
bool describe_has_events(const char *group, const char *kind);
/*
 * What describe_fetch() number seq found, on the terminal thread: the
 * Events' items (an array, taken), or NULL and why not.
 */
typedef void describe_done_fn(struct tui *t, uint64_t seq, struct json_object *items,
			      const char *why);
/*
 * Starts the LIST of obj's Events on the worker; done gets what it
 * finds.  -1 with err when the worker has a job of the TUI's already.
 */
int describe_fetch(struct tui *t, struct json_object *obj, const char *group, const char *kind,
		   uint64_t seq, describe_done_fn *done, struct errbuf *err);

#endif
