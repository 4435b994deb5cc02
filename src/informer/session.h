/*
 * session.h — the informers a command runs: one shared informer per
 * resource named on the command line, all on one cluster connection,
 * with the selection flags (-n/-A, -l, --field-selector, NAME) applied.
 * watch, get --from-cache and tui all start their informers here.
 */
#ifndef KINF_SESSION_H
#define KINF_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster/cluster.h"
#include "informer/fifo.h"
#include "informer/informer.h"
#include "informer/profile.h"

struct session_opts {
	const char *resources;		/* "pods,deploy" as typed */
	const char *name;		/* one object's name, or NULL */
	const char *label_selector;
	const char *field_selector;
	/* Which client-go to imitate (NULL: the newest, profile_default()). */
	const struct client_go_profile *profile;
	/* Overrides of the profile's FIFO and initial list mode, when set. */
	bool fifo_set, streaming_set;
	enum fifo_kind fifo;
	bool streaming_list;
	bool keep_managed_fields;
	int64_t resync_ms;
	unsigned page_size;
	int64_t stall_ms;		/* 0: the reflector's default */
	int64_t renew_ms;		/* --renew-silent; 0: never */
};

/*
 * --chunk-size as typed (-1 when not given) to informer_opts.page_size:
 * not given means client-go's rules, 0 means one response.
 */
static inline unsigned session_page_size(long chunk_size)
{
	if (chunk_size < 0)
		return 0;
	return chunk_size ? (unsigned)chunk_size : PAGE_SIZE_NONE;
}

struct session {
	struct cluster cluster;
	struct informer **informers;
	const struct api_resource **resources;
	size_t nr;
	void *priv;
};

/*
 * Connects (cluster_flags), resolves the resources and makes one informer
 * each — not started yet, so listeners can be added first.  -1 with err,
 * and in *refused (when not NULL) discovery_refused(): 0 unless the
 * server refused discovery.
 */
int session_open(struct session *s, const struct session_opts *opts, long *refused,
		 struct errbuf *err);
/*
 * The same on a cluster made by the caller (a replay's client, with no
 * discovery), for the resources given: s takes c over (closed with s);
 * the resources stay the caller's and must outlive s.  -1 with err, c
 * still the caller's, for a bad selector or a namespace that one of the
 * resources may not have (cluster_scope_check()).
 */
int session_open_on(struct session *s, const struct session_opts *opts,
		    const struct cluster *c, const struct api_resource *const *res,
		    size_t nr, struct errbuf *err);
/*
 * What the profile of opts sets on the client itself (1.36's CA
 * rotation, and so what an empty CA file trusts), for a caller that
 * resolves resources before session_open_on(): discovery's requests
 * trust what the informers' will.  session_open() and session_open_on()
 * call it.
 */
void session_prepare_client(const struct session_opts *opts, struct kclient *client);
int session_start(struct session *s, struct errbuf *err);
/*
 * The informer of one more resource (as the command line names one:
 * "deploy", "pods", "crontabs.stable.example.com"), with the options the
 * session was opened with: its index, made but not started (*added), or
 * the index of the one the session already has.  -1 with err when the
 * name is no resource the server offers.  The TUI's `:` adds tabs so.
 */
int session_add(struct session *s, const char *typed, bool *added, struct errbuf *err);
/*
 * The selectors the session's informers list and watch with (NAME folded
 * into the field selector as metadata.name=NAME); each may be NULL.  They
 * live as long as the session.
 */
void session_selectors(const struct session *s, const char **label_selector,
		       const char **field_selector);
/*
 * Every informer of the session, and each session_add() makes, hands
 * its Indexer's checkpoints to sink (informer_set_checkpoints()): the
 * flight recorder's.  Before session_start().
 */
void session_set_checkpoints(struct session *s, const struct checkpoint_sink *sink, void *ctx);
/* Stops every informer (joins their threads); the caches stay readable. */
void session_stop(struct session *s);
void session_close(struct session *s);	/* stops, frees */

#endif
