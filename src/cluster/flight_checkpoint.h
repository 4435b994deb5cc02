/*
 * flight_checkpoint.h — the flight recorder's reconstructed starting
 * point: a stream's cache as it stood at the window's start, rebuilt from
 * what the server sent (a list's items, then the watch events after it),
 * for when even the stream's last list is older than the window.
 *
 * The flight recorder (flight.h) feeds a checkpoint the records it is
 * about to let go of, in the recording's line format (recording.h):
 * first its kept list's, then each record of the stream the ring evicts.
 * A list page's body, once ended, replaces the objects (its first page)
 * or adds to them; a watch's events (a streaming list's too) add, modify
 * and delete them, and every event and bookmark moves the
 * resourceVersion on.  Non-2xx answers and ERROR events change nothing.
 *
 * In a dump (checkpoint_write()), the checkpoint is one exchange marked
 * "reconstructed":true: a list of every object at the resourceVersion
 * reached (or, when the stream began with a streaming list, a watch of
 * ADDED events ended by the initial-events-end bookmark), so that a
 * replay's reflector starts from it as from the server's answer.  Each
 * exchange whose beginning it took but whose end it has not seen (the
 * watch open at the window's start) is begun again after it, marked too,
 * with the part of an event it holds: the ring's records of that exchange
 * follow on from there.  A streaming list's events go at the head of the
 * watch open then, which was their connection, instead of an exchange of
 * their own: one that ended at once would be a very short watch.
 *
 * Objects are found in the text by the scanner (lib/json_scan.h), not
 * through json-c trees: this runs for every event the ring lets go of.
 * An object is kept as its compact text, which is what json-c would
 * have written of it (the server's compact JSON, byte for byte), but
 * for a member named twice in one object, which stays twice.
 *
 * Ownership: the checkpoint copies what it keeps, the objects' texts
 * compressed together in segments (zstd), dead texts let go of in bulk:
 * 100,000 pods would be 300 MiB as text.  Not thread-safe: the
 * flight recorder calls it under its fold lock (flight.c).
 */
#ifndef KINF_FLIGHT_CHECKPOINT_H
#define KINF_FLIGHT_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

struct checkpoint;

/* An empty checkpoint of stream (copied). */
struct checkpoint *checkpoint_new(const char *stream);
void checkpoint_free(struct checkpoint *ck);	/* NULL: no-op */

/*
 * An overlay: what changed after a base the caller keeps (a stream's
 * list, as records), so that a list leaving the window costs no fold of
 * its objects.  It first takes the base's records with skimming on
 * (only which exchanges are open, and a watch's piece of an event, are
 * kept: the objects stay in the base), then checkpoint_skim_end(), then
 * the records after the base as any checkpoint does, a deletion kept as
 * a key that hides the base's object.  It is written only through
 * checkpoint_overlay() onto the base folded into a checkpoint of its own.
 */
struct checkpoint *checkpoint_new_overlay(const char *stream);
void checkpoint_skim_end(struct checkpoint *ck);
/*
 * ck, the base's records folded, takes over's changes: it is then what
 * folding the base's records and every record over took after its skim
 * would have made.
 */
void checkpoint_overlay(struct checkpoint *ck, const struct checkpoint *over);
/* The bytes of the live objects' texts, uncompressed. */
size_t checkpoint_live(const struct checkpoint *ck);

/*
 * The dead texts' share of the compressed segments (each segment's
 * compressed bytes times the dead part of its text): about what
 * checkpoint_compact() gives back.  A checkpoint compacts itself when
 * its dead texts pass a multiple of its live ones (a bound on the CPU
 * its copying costs); the flight recorder compacts it sooner when its
 * budget needs the room.
 */
size_t checkpoint_dead(const struct checkpoint *ck);
/*
 * The live texts copied into new segments, the dead let go of (no-op
 * without dead texts).  Each old segment goes once read, so the memory
 * held rises meanwhile by no more than checkpoint_compact_peak().
 */
void checkpoint_compact(struct checkpoint *ck);
size_t checkpoint_compact_peak(const struct checkpoint *ck);

/* One record (a line of the format, with or without its newline). */
void checkpoint_take(struct checkpoint *ck, const char *line, size_t len);
/*
 * A data record of exchange x at t given as its bytes, not as its line:
 * what the ring keeps (no escaping to undo).  The same as checkpoint_take()
 * of its line.
 */
void checkpoint_take_data(struct checkpoint *ck, int64_t t, unsigned x, const char *data,
			  size_t len);
/* The memory it holds: objects, paths and the pieces of events pending. */
size_t checkpoint_bytes(const struct checkpoint *ck);
/* Exchange x began in what it took and has not ended: its records go on. */
bool checkpoint_continues(const struct checkpoint *ck, unsigned x);

/*
 * The dump's lines for it, appended to out: the reconstructed exchange,
 * numbered x (one no other record of the dump uses; a streaming list's
 * is the open watch's own), then the continuations, all at the time of
 * the last record it took.
 */
void checkpoint_write(const struct checkpoint *ck, unsigned x, struct strbuf *out);

#endif
