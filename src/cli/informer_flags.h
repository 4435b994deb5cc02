/*
 * informer_flags.h — the flags that say how an informer runs (which
 * objects, which queue, resync, paging, streaming lists, stall timeout),
 * shared by the commands that run informers live: watch and tui.  One
 * option table, included in each command's table, fills one struct; so
 * the two commands cannot drift apart in what they accept.
 */
#ifndef KINF_INFORMER_FLAGS_H
#define KINF_INFORMER_FLAGS_H

#include <stdbool.h>
#include <stdint.h>

#include "informer/session.h"
#include "lib/opt.h"

struct recording_info;

struct informer_flags {
	const char *label_selector, *field_selector;
	const char *client_go;		/* --client-go VERSION, NULL: the newest */
	int fifo;			/* an enum fifo_kind; -1: the profile's */
	int64_t resync_ms, stall_ms, renew_ms;
	bool keep_managed_fields;
	bool streaming_list, streaming_list_seen;
	long chunk_size;		/* -1: not given */
};

/* The flags (filled by opt_parse through informer_flag_options). */
extern struct informer_flags informer_flags;
/* --fifo's names, in enum fifo_kind's order (fifo_kind_name()'s). */
extern const char *const informer_fifo_names[];
/* -l, --field-selector, --fifo, --resync, --keep-managed-fields, ... */
extern const struct option informer_flag_options[];

/*
 * The session options the flags ask for, for `resources` ("pods,deploy"
 * as typed) and one object's name (NULL: every object).  An unknown
 * --client-go is a usage error of cmd.
 */
struct session_opts informer_flags_session(const struct command *cmd,
					   const char *resources, const char *name);

/*
 * session_open() for the commands that run informers until stopped
 * (watch, tui).  Their informers retry a refused list for ever, as
 * client-go's Run does; so that a cold discovery cache ends as a warm one
 * does, discovery the server refuses (401, 403: discovery_refused()) is
 * tried again the same way: after the reflector's backoff (800 ms
 * doubling to 30 s, jittered), each refusal a notice on stderr (none when
 * quiet), until the server lets kinf in or timeout_ms (0: never) has
 * passed since the call.  *waited_ms (waited_ms may be NULL): how long
 * the retries took, 0 with none.  -1 with err (the last failure) otherwise.
 */
int informer_flags_open(struct session *s, const struct session_opts *so, int64_t timeout_ms,
			bool quiet, int64_t *waited_ms, struct errbuf *err);

/*
 * What a recording's header (cluster/recording.h) says of the session
 * opened with so: its server, scope, selectors, client-go and queue, and
 * resources (borrowed from s, which must outlive info).
 */
void informer_flags_recording_info(struct session *s, const struct session_opts *so,
				   struct recording_info *info);

#endif
