/*
 * flight.h — the flight recorder (`kinf watch --flight-recorder`): what
 * the server sent the reflectors over the last while, kept in memory,
 * and written as a recording (recording.h's format, for `kinf replay`)
 * when something goes wrong.
 *
 * It taps the client as the recorder does (flight_tap, a kclient_tap)
 * and keeps the same records, compressed in segments of a ring.  Memory
 * is bounded: when the window (opts.window_ms) or the budget
 * (opts.budget, the bytes held, compressed or not) runs out, the oldest
 * segments go (a segment spans at most an eighth of the window, so that
 * a quiet stream's records go too).  A dump must replay, so each stream's
 * last list (every page of it, or a streaming list up to its
 * initial-events-end bookmark) is kept apart, compressed in segments as
 * the ring is, whatever its age, as the
 * dump's starting point; what of the stream came before it is left out of
 * a dump.  When the ring lets go of a record that came after that list,
 * every such record is folded into a checkpoint (flight_checkpoint.h),
 * the cache rebuilt at the window's start, which a dump begins with
 * instead, marked as reconstructed: the list, as kept, is its base, and
 * the checkpoint holds what changed since (the two are folded into one
 * when the changes outweigh the list).  The budget counts the compressed
 * segments, the records not compressed yet, the lists kept, what waits
 * to be folded, and the checkpoints (their objects' texts compressed
 * together in segments); a checkpoint is never let go of (a newer list
 * replaces it), so one larger than the budget leaves the ring empty.
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
 * dump being written keeps the segments it reads (its references), the
 * records not compressed yet (a copy) and the checkpoints as text: that
 * is over the budget, as the order of its records is.  At most
 * opts.keep dumps stay in the folder; the oldest go.  No request header
 * is kept, so neither are credentials.
 *
 * Threads: the tap is called from every reflector thread at once; the
 * rest from any thread.  The tap only appends and compresses records:
 * what leaves the window is folded into the checkpoints on a thread of
 * the flight's own (started by flight_new(), joined by flight_free()),
 * so a list leaving the window never delays what the informer sees; a
 * list that ended becomes the base of its checkpoint as it is kept,
 * with what changed after it kept apart, and is folded only when most
 * of it has been replaced, or for a dump.  A dump is taken under the
 * flight's locks (what is pending folded, the segments referenced), its
 * checkpoints made text on the flight's thread before it folds more,
 * then ordered, compressed and written on the
 * writer's thread (started by flight_new(); flight_free() lets it end
 * the dumps taken, then joins it) with no lock held: neither the taps,
 * the folder nor flight_dump_due()'s caller wait for the writing.  When
 * the flight's thread is so far behind that the budget would not hold,
 * the tap folds what is due itself, and waits only while that thread is
 * folding (or a dump's checkpoints are to be made text first).
 */
#ifndef KINF_FLIGHT_H
#define KINF_FLIGHT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

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
	 * Tests: called with no lock of the flight held, and may block:
	 * hold on the dump writer's thread as it begins a dump taken,
	 * hold_texts on the flight's own as it is about to make a dump's
	 * checkpoints text, hold_folder on the flight's own as it wakes for
	 * work (a folder starved of CPU).  NULL: none.
	 */
	void (*hold)(void *ctx);
	void (*hold_texts)(void *ctx);
	void (*hold_folder)(void *ctx);
	void *hold_ctx;
};

struct flight;

/* NULL, with err set, when a pipe or a thread cannot be had. */
struct flight *flight_new(const struct flight_opts *opts, struct errbuf *err);
void flight_free(struct flight *f);

/* The flight recorder as a client's tap (kclient_set_tap(), ctx the flight). */
extern const struct kclient_tap flight_tap;

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

/*
 * The bytes the ring, the kept lists and the checkpoints hold now, and
 * what the ring let go of that the flight's thread has not folded yet.
 */
size_t flight_bytes(struct flight *f);
/*
 * The ring's records not let go of yet: their bytes (compressed, and
 * those not compressed yet) and how long ago the oldest came (-1: none).
 * A dump holds them as records; what came before, only as its stream's
 * list or checkpoint.
 */
void flight_ring(struct flight *f, size_t *bytes, int64_t *oldest_age_ms);
/*
 * Blocks until what the ring let go of is folded into the checkpoints
 * (a dump does as much first): flight_bytes() is then what a recorder
 * folding on the tap would hold.
 */
void flight_settle(struct flight *f);
/* The dumps written so far (kinf_flight_recorder_dumps_total). */
unsigned long flight_dumps(struct flight *f);

/* dir is a folder kinf may write in; -1 with err (one line) if not. */
int flight_check_dir(const char *dir, struct errbuf *err);

#endif
