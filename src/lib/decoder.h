/*
 * decoder.h — a thread that decodes pieces of bytes another thread hands
 * it, in order, so that reading the network and decoding what came use
 * two cores.
 *
 * The producer (the reflector's thread, inside libcurl's write callback)
 * splits the stream into pieces (list items, watch lines) and calls
 * decoder_put() for each, then decoder_flush() at the end of each write
 * callback, so that what arrived is handed over at once.  The decoder's
 * thread calls the decode function on every piece, one at a time, in the
 * order they were put.  A decode function that returns -1 stops the
 * decoding: later pieces are dropped, decoder_failed() turns true, which
 * the producer checks to abort its transfer, and decoder_fail_fd() turns
 * readable, so a producer asleep in poll() waiting for more bytes wakes
 * to do so (a bad watch event followed by silence must not wait for the
 * next byte).
 *
 * decoder_drain() waits until every piece handed over was decoded (or
 * dropped): after it returns, whatever the decode function wrote is
 * visible to the producer (the lock is the hand-over).  decoder_begin()
 * sets the decode function (and the batch function) for the next run of
 * pieces; call it only when drained.
 *
 * Back-pressure: at most DECODER_QUEUE_MAX bytes wait; a producer that
 * would go past it sleeps until the decoder catches up (or stop is
 * requested: then the piece is dropped).  Memory thus stays bounded when
 * the network is faster than decoding.
 *
 * Stop: with *stop set, the decoder drops what is queued and the producer
 * never sleeps; decoder_drain() then returns at once (within one piece).
 * An idle decoder sleeps on a condition variable: no wake-ups.
 */
#ifndef KINF_DECODER_H
#define KINF_DECODER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/util.h"

#define DECODER_QUEUE_MAX (2u << 20)

/* Decodes one piece (text[len] is '\0'); 0 to go on, -1 to stop. */
typedef int decoder_fn(void *ctx, const char *text, size_t len);
/*
 * Called on the decoder's thread around each batch of pieces: start true
 * before the first piece, false after the last (also when the decode
 * function failed or stop came).  Whoever consumes what the decode
 * function makes can then be woken once a batch, not once a piece.
 */
typedef void decoder_batch_fn(void *ctx, bool start);

struct decoder;

/*
 * Idleness, reported for the process's memory policy (main.c trims the
 * heap with it): once every decoder of the process has been idle idle_ms
 * after the last batch, and together they decoded at least min_bytes since
 * fn last ran, one of them calls fn() on its own thread, no lock held.
 * None calls it while another decodes, so a large list is never slowed by
 * it.  An idle decoder waits with a timeout only while bytes are
 * unreported; once reported, it sleeps without wake-ups.  Set it before
 * the first decoder_new() (not thread-safe); NULL or no fn: never called.
 */
struct decoder_idle_hook {
	void (*fn)(void);
	size_t min_bytes;
	int64_t idle_ms;
};
void decoder_set_idle_hook(const struct decoder_idle_hook *hook);

/* Starts the thread; NULL with err when it cannot. */
struct decoder *decoder_new(const atomic_bool *stop, struct errbuf *err);
/* Stops and joins the thread, dropping what is queued.  NULL: no-op. */
void decoder_free(struct decoder *d);

/*
 * A clock that goes with the pieces: decoder_put() reads get(ctx) on the
 * producer's thread, and the decoder's thread calls set(ctx, t) with it
 * before it decodes that piece.  So what the decode function stamps with
 * a clock that is per thread (a replay's recorded time) has the time its
 * producer had reached.  Call it before the first piece; without it,
 * neither is called.
 */
void decoder_set_clock(struct decoder *d, int64_t (*get)(void *ctx),
		       void (*set)(void *ctx, int64_t t), void *ctx);

/* batch may be NULL. */
void decoder_begin(struct decoder *d, decoder_fn *fn, decoder_batch_fn *batch, void *ctx);
/* Queues a copy of text[0..len) (no NUL needed): the one copy a piece costs. */
void decoder_put(struct decoder *d, const char *text, size_t len);
void decoder_flush(struct decoder *d);
bool decoder_failed(struct decoder *d);
/* Readable while decoder_failed(); decoder_begin() clears it. */
int decoder_fail_fd(const struct decoder *d);
void decoder_drain(struct decoder *d);

#endif
