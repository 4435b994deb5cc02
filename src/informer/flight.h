/*
 * flight.h — the flight recorder (`kinf watch --flight-recorder`): what
 * the server sent the reflectors over the last while, kept in memory,
 * and written as a recording (recording.h's format, for `kinf replay`)
 * when something goes wrong.
 *
 * It taps the client as the recorder does (flight_tap, a kclient_tap)
 * and keeps the same records, compressed in segments of a ring.  What
 * came before the ring's oldest record is kept as checkpoints: each
 * informer hands the flight (flight_checkpoints, its checkpoint_sink)
 * snapshots of its Indexer, every object's pointer, each taken where the
 * reflector's FIFO was drained at a known place of what it read
 * (fifo_drained_at()).  A dump of a stream holds its records from the
 * first while the ring still has them all; after that it starts from
 * the stream's oldest snapshot that every record after it is still in
 * the ring for: the snapshot as one exchange marked "reconstructed" (a
 * list of its objects, or the ADDED events of a streaming list), the
 * watch open at its place begun again, then the ring's records from
 * that place on.  The objects are the cache's, as kinf holds them: after
 * its transform (managedFields dropped unless kept), not as the server
 * sent them.
 *
 * Memory is bounded: when the window (opts.window_ms) or the budget
 * (opts.budget: the ring's bytes, compressed or not, and the snapshots')
 * runs out, the oldest segments go (a segment spans at most an eighth
 * of the window, so that a quiet stream's records go too), once a
 * snapshot covers each stream's records in them.  A snapshot costs its
 * pointers, and the objects it alone keeps alive (replaced in the
 * Indexer since), counted when the next one comes.  The flight asks a
 * stream for a snapshot (wakes its processor) once it has an eighth of
 * the window or of the budget of records after its newest one, and when
 * the ring would let go of records none covers.  Only over the budget
 * by a quarter does the ring let those go too: the stream then has no
 * starting point, and is left out of a dump, until its next snapshot.
 *
 * A trigger (flight_trigger()) notes a reason, the keys concerned and the
 * time; the dump is due opts.tail_ms later, so that the recovery is in
 * it too, and flight_dump_due() takes it then: what the recorder holds
 * at that moment, which a thread of the flight's own, the writer, then
 * writes as opts.dir/kinf-TIME-REASON.rec.gz, mode 0600, with the
 * trigger as a record (recording_line_trigger()).  While one is due,
 * further triggers are part of it (not counted); one that comes while a
 * dump is being written is due in its turn, and taken when its tail has
 * passed (or, should a taken dump still wait for the writer then, when
 * the writer takes that one: at most two dumps are held at once).  A
 * dump being written keeps the segments and snapshots it reads (their
 * references) and the records not compressed yet (a copy): that is over
 * the budget, as its snapshots' texts and the order of its records are.
 * At most opts.keep dumps stay in the folder; the oldest go.  No request
 * header is kept, so neither are credentials.
 *
 * Threads: the tap is called from every reflector thread at once, the
 * checkpoint sink from every processor thread, the rest from any
 * thread.  The tap appends and compresses records; a dump is taken
 * under the flight's lock (segments and snapshots referenced) and
 * written on the writer's thread (started by flight_new();
 * flight_free() lets it end the dumps taken, then joins it) with no
 * lock held: neither the taps, the processors nor flight_dump_due()'s
 * caller wait for the writing.
 */
#ifndef KINF_FLIGHT_H
#define KINF_FLIGHT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

struct checkpoint_sink;
struct recording_info;

/*
 * What may write a dump (--dump-on names them in this order): who
 * watches for them (informer/consumer.h, the controller view) asks
 * flight_trigger() when the flight's mask has theirs.
 */
enum dump_on {
	DUMP_ON_VERIFY = 1 << 0,		/* --verify-every found a divergence */
	DUMP_ON_RELIST = 1 << 1,		/* a relist changed, added or deleted keys */
	DUMP_ON_RV_REGRESSION = 1 << 2,		/* a resourceVersion went back */
	DUMP_ON_WATCH_ERROR = 1 << 3,		/* a watch failed */
	/*
	 * --controller: states no Reconcile read of an object the cache no
	 * longer holds (the Reconcile found it gone): lost to the controller
	 * for good.
	 */
	DUMP_ON_CONTROLLER_UNSEEN = 1 << 4,
	/* --controller: any state no Reconcile read (routine coalescing too) */
	DUMP_ON_CONTROLLER_COALESCED = 1 << 5,
};
#define DUMP_ON_DEFAULT (DUMP_ON_VERIFY | DUMP_ON_RELIST | DUMP_ON_RV_REGRESSION)

struct flight_opts {
	int64_t window_ms;
	size_t budget;			/* bytes */
	int64_t tail_ms;
	const char *dir;		/* borrowed, lives as long as the flight */
	unsigned keep;			/* 0: no limit */
	/* The dumps' header; borrowed, must outlive the flight. */
	const struct recording_info *info;
	/*
	 * Tests: called on the dump writer's thread as it begins a dump
	 * taken, with no lock of the flight held; may block.  NULL: none.
	 */
	void (*hold)(void *ctx);
	void *hold_ctx;
};

struct flight;

/* NULL, with err set, when a pipe or a thread cannot be had. */
struct flight *flight_new(const struct flight_opts *opts, struct errbuf *err);
void flight_free(struct flight *f);

/* The flight recorder as a client's tap (kclient_set_tap(), ctx the flight). */
extern const struct kclient_tap flight_tap;
/*
 * ... and as the informers' checkpoint sink (informer_set_checkpoints(),
 * ctx the flight; session_set_checkpoints() for a session's).  An
 * informer's stream and the tap's are the same name.
 */
extern const struct checkpoint_sink flight_checkpoints;

/*
 * Something went wrong: reason (e.g. "verify", "signal"), keys (takes
 * it; NULL: none), an array of {"key":K,"class":"missing"|...}.  false
 * when a dump is due already (this trigger is part of it).
 */
bool flight_trigger(struct flight *f, const char *reason, struct json_object *keys);
/*
 * ms until the due dump is to be taken (0: now); -1: none is due, or
 * one is but waits until the writer has taken the dump before it, which
 * it does as it ends the one it writes: flight_fd() says when.
 */
int64_t flight_due_ms(struct flight *f);
/*
 * Takes the due dump if its tail has passed (or at once with now: kinf
 * is ending) and hands it to the writer's thread, then hands back a
 * dump the writer has ended, oldest first: 1 with *path and *reason
 * (the caller frees both) when it was written, -1 with err when it
 * could not be, 0 when none has ended.  Does not wait for the writer,
 * but with now: then it waits for the dumps taken, so that called with
 * now until it returns 0, it leaves none being written and none unsaid.
 * One thread calls it (the consumer's).
 */
int flight_dump_due(struct flight *f, bool now, char **path, char **reason,
		    struct errbuf *err);
/*
 * Readable while a dump the writer ended is unsaid: a caller that sleeps
 * in poll() polls it, and calls flight_dump_due() (which reads a byte of
 * it for each dump it hands back) when it is.  Owned by the flight.
 */
int flight_fd(struct flight *f);

/* The bytes the ring and the snapshots hold now (what the budget counts). */
size_t flight_bytes(struct flight *f);
/*
 * The ring's records not let go of yet: their bytes (compressed, and
 * those not compressed yet) and how long ago the oldest came (-1: none).
 * A dump holds them as records; what came before, only as its stream's
 * snapshot.
 */
void flight_ring(struct flight *f, size_t *bytes, int64_t *oldest_age_ms);
/* Each stream's snapshots held now, summed (tests). */
size_t flight_snapshots(struct flight *f);
/* The exchanges it knows of now: begun, and not ended or not let go of (tests). */
size_t flight_exchanges(struct flight *f);

/* dir is a folder kinf may write in; -1 with err (one line) if not. */
int flight_check_dir(const char *dir, struct errbuf *err);

#endif
