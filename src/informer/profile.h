/*
 * profile.h — which client-go kinf imitates: the defaults that changed
 * between client-go versions, as one row per generation.
 *
 *   version     FIFO                       initial list     pops     backoff
 *   1.27-1.32   DeltaFIFO                  paged LIST       one key  manager
 *   1.33-1.34   RealFIFO (InOrderInformers) paged LIST      one      manager
 *   1.35        RealFIFO                   streaming list   batches  manager
 *                                          (WatchListClient) (InOrderInformersBatchProcess)
 *   1.36        atomic RealFIFO (AtomicFIFO) streaming list batches  DelayWithReset
 *
 * "manager" is wait.NewExponentialBackoffManager(800ms, 30s, 2m, 2.0,
 * 1.0): the delay resets after 2 minutes without a backoff; 1.36's
 * Backoff.DelayWithReset(clock, 2m) resets every 2 minutes counted from
 * the last reset.  A streaming list that fails: 1.28 falls back to a
 * plain LIST only when the server refuses with 422 (Invalid), 1.29 and
 * later on any error (reflector.go ListAndWatch).  Sources: client-go's
 * features/known_features.go, tools/cache/controller.go newQueueFIFO,
 * tools/cache/reflector.go, at the release tags.
 */
#ifndef KINF_PROFILE_H
#define KINF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "informer/fifo.h"
#include "lib/util.h"

enum backoff_rule {
	BACKOFF_RESET_WHEN_IDLE,	/* ≤1.35: 2 min without a backoff */
	BACKOFF_RESET_PERIODIC,		/* 1.36: every 2 min since the last reset */
};

struct client_go_profile {
	const char *version;		/* "1.36": the newest of its row */
	const char *versions;		/* "1.36", "1.33-1.34": what it stands for */
	enum fifo_kind fifo;
	size_t batch;			/* PopBatch's most; 0: one at a time */
	bool streaming_list;		/* WatchListClient on by default */
	bool watch_list_any_fallback;	/* 1.29+: any error falls back to LIST */
	enum backoff_rule backoff;
	/*
	 * 1.36: a watch from RV "" or "0" moves the RV only once an event
	 * other than ADDED came (its ADDED may be synthetic, in no RV order).
	 */
	bool hold_rv_of_adds;
	/*
	 * 1.32+: a LIST whose HTTP/2 connection was lost before its answer
	 * is retried by the REST client (request()'s IsHTTP2ConnectionLost);
	 * 1.31 and older fail it.
	 */
	bool list_retries_h2_lost;
	/*
	 * 1.32+: a watch request's failed answer is read as its Status says
	 * (Result.Error()), as a LIST's always was; 1.31 and older read its
	 * HTTP code alone (result.err), so a 500 that says TooManyRequests
	 * ends the cycle there, where 1.32 backs off and watches again.
	 */
	bool watch_reads_status;
	/*
	 * A CA from a file is read again, at most every 5 minutes, as a
	 * request is made, and new connections trust what it holds
	 * (ClientsAllowCARotation, on from 1.36): kclient_set_ca_reload().
	 */
	bool ca_reload;
};

/* The newest: what kinf imitates unless told otherwise. */
const struct client_go_profile *profile_default(void);

/*
 * The profile of a client-go version as people write it: "1.33",
 * "v1.33.2", "0.33" or "v0.33.2" (client-go's module version, as in a
 * go.mod).  NULL with err naming the versions known.
 */
const struct client_go_profile *profile_find(const char *version,
					     struct errbuf *err);

/* The minor version of "1.33", "v1.33.2", "0.33", "v0.33.2"; -1 if none. */
long version_minor(const char *s);

/* Every profile, oldest first, NULL-terminated. */
extern const struct client_go_profile *const client_go_profiles[];

const char *fifo_kind_name(enum fifo_kind kind);

#endif
