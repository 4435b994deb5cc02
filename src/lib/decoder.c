/*
 * decoder.c — a decoding thread fed pieces of bytes in order; see decoder.h.
 *
 * DESIGN (threads): two threads meet here, the producer and the decoder's
 * own.  d->lock guards the queue (head, tail, queued), the flags
 * (closing, failed, busy) and fn/ctx; the batch being filled (d->fill)
 * belongs to the producer alone.  The producer waits on d->room when the
 * queue is full; the decoder on d->more when it is empty; decoder_drain()
 * on d->idle.  The decode function runs without the lock.  Batches hold
 * many pieces so that a 450 MB list costs a few thousand hand-overs, not
 * a hundred thousand.
 */
#include "lib/decoder.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "lib/strbuf.h"

/* A batch is handed over once it holds this much (or at a flush). */
#define BATCH_BYTES (256u << 10)

/*
 * The process's decoders, for the idle hook (decoder.h).  The count is
 * the process's, not a decoder's, because what the hook serves is: with
 * a decoder per resource each counting its own, a minute of churn spread
 * over three resources reached the threshold some minutes and not others.
 * Set before the first decoder starts, read-only afterwards.
 */
static struct decoder_idle_hook idle_hook;
static atomic_size_t unreported;	/* bytes decoded since the hook last ran */
static atomic_int decoding;	/* decoders running a batch */
static _Atomic int64_t last_decoded_ms;	/* mono_ms() when one last ended a batch */

/*
 * Pieces, each stored as its length (a size_t), the producer's clock when
 * it was put (an int64_t), its bytes and a NUL.
 */
struct batch {
	struct batch *next;
	struct strbuf data;
};

struct decoder {
	pthread_t thread;
	const atomic_bool *stop;
	pthread_mutex_t lock;
	pthread_cond_t more, room, idle;
	struct batch *head, *tail;
	size_t queued;		/* bytes in the queue */
	bool busy;		/* the decoder holds a batch */
	bool failed;		/* fn returned -1 since decoder_begin() */
	int fail_fd;		/* an eventfd, readable while failed */
	bool closing;		/* decoder_free(): end the thread */
	decoder_fn *fn;
	decoder_batch_fn *batch;
	void *ctx;
	/* decoder_set_clock(): read by the producer, set on the decoder's thread */
	int64_t (*clock_get)(void *ctx);
	void (*clock_set)(void *ctx, int64_t t);
	void *clock_ctx;
	struct batch *spare;	/* a decoded batch kept for reuse, under lock */
	struct batch *fill;	/* producer only */
};

static bool stopped(const struct decoder *d)
{
	return atomic_load(d->stop);
}

/* Under d->lock. */
static void set_failed(struct decoder *d)
{
	static const uint64_t one = 1;

	if (!d->failed && write(d->fail_fd, &one, sizeof(one)) < 0) {
		/* Only EAGAIN (the counter is full): it is readable anyway. */
	}
	d->failed = true;
}

static void batch_free(struct batch *b)
{
	if (b) {
		strbuf_release(&b->data);
		free(b);
	}
}

/* Runs fn over a batch's pieces; false once fn failed or stop came. */
static bool decode_batch(struct decoder *d, decoder_fn *fn, void *ctx,
			 const struct batch *b)
{
	for (size_t off = 0; off < b->data.len;) {
		size_t len;
		int64_t t;

		memcpy(&len, b->data.buf + off, sizeof(len));
		off += sizeof(len);
		memcpy(&t, b->data.buf + off, sizeof(t));
		off += sizeof(t);
		if (d->clock_set)
			d->clock_set(d->clock_ctx, t);
		if (stopped(d) || fn(ctx, b->data.buf + off, len) < 0)
			return false;
		off += len + 1;
	}
	return true;
}

void decoder_set_idle_hook(const struct decoder_idle_hook *hook)
{
	idle_hook = hook ? *hook : (struct decoder_idle_hook){ 0 };
}

/* Waits for a batch; runs the idle hook once all are idle after enough work. */
static void wait_for_work(struct decoder *d)
{
	while (!d->head && !d->closing) {
		if (!idle_hook.fn || atomic_load(&unreported) < idle_hook.min_bytes) {
			pthread_cond_wait(&d->more, &d->lock);
			continue;
		}
		int64_t due = atomic_load(&last_decoded_ms) + idle_hook.idle_ms;
		int64_t now = mono_ms();
		if (now < due || atomic_load(&decoding)) {
			cond_wait_until(&d->more, &d->lock,
					now < due ? due : now + idle_hook.idle_ms);
			continue;
		}
		/* Idle long enough, all of them: one reports, the others see 0. */
		if (atomic_exchange(&unreported, 0) >= idle_hook.min_bytes) {
			pthread_mutex_unlock(&d->lock);
			idle_hook.fn();
			pthread_mutex_lock(&d->lock);
		}
	}
}

static void *decoder_main(void *arg)
{
	struct decoder *d = arg;

	thread_name("kinf-decoder");
	pthread_mutex_lock(&d->lock);
	for (;;) {
		wait_for_work(d);
		if (!d->head)
			break;	/* closing */
		struct batch *b = d->head;
		d->head = b->next;
		if (!d->head)
			d->tail = NULL;
		d->queued -= b->data.len;
		atomic_fetch_add(&unreported, b->data.len);
		pthread_cond_signal(&d->room);
		if (d->failed || stopped(d)) {
			batch_free(b);
			if (!d->head)
				pthread_cond_broadcast(&d->idle);
			continue;
		}
		d->busy = true;
		atomic_fetch_add(&decoding, 1);
		decoder_fn *fn = d->fn;
		decoder_batch_fn *batch = d->batch;
		void *ctx = d->ctx;
		pthread_mutex_unlock(&d->lock);

		if (batch)
			batch(ctx, true);
		bool ok = decode_batch(d, fn, ctx, b);
		if (batch)
			batch(ctx, false);
		atomic_store(&last_decoded_ms, mono_ms());
		atomic_fetch_sub(&decoding, 1);

		pthread_mutex_lock(&d->lock);
		/* One batch is kept: its buffer is the size batches grow to. */
		if (!d->spare) {
			strbuf_reset(&b->data);
			b->next = NULL;
			d->spare = b;
		} else {
			batch_free(b);
		}
		d->busy = false;
		if (!ok && !stopped(d))
			set_failed(d);
		if (!d->head)
			pthread_cond_broadcast(&d->idle);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

struct decoder *decoder_new(const atomic_bool *stop, struct errbuf *err)
{
	struct decoder *d = xcalloc(1, sizeof(*d));
	int rc;

	d->stop = stop;
	d->fail_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (d->fail_fd < 0) {
		errbuf_set(err, "cannot make an eventfd for the decoder: %s", strerror(errno));
		free(d);
		return NULL;
	}
	pthread_mutex_init(&d->lock, NULL);
	cond_init_monotonic(&d->more);
	pthread_cond_init(&d->room, NULL);
	pthread_cond_init(&d->idle, NULL);
	rc = pthread_create(&d->thread, NULL, decoder_main, d);
	if (rc) {
		errbuf_set(err, "cannot start the decoder thread: %s", strerror(rc));
		pthread_mutex_destroy(&d->lock);
		pthread_cond_destroy(&d->more);
		pthread_cond_destroy(&d->room);
		pthread_cond_destroy(&d->idle);
		close(d->fail_fd);
		free(d);
		return NULL;
	}
	return d;
}

void decoder_free(struct decoder *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	d->closing = true;
	d->failed = true;	/* drop what is queued */
	pthread_cond_signal(&d->more);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
	while (d->head) {
		struct batch *b = d->head;
		d->head = b->next;
		batch_free(b);
	}
	batch_free(d->fill);
	batch_free(d->spare);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->more);
	pthread_cond_destroy(&d->room);
	pthread_cond_destroy(&d->idle);
	close(d->fail_fd);
	free(d);
}

void decoder_begin(struct decoder *d, decoder_fn *fn, decoder_batch_fn *batch, void *ctx)
{
	pthread_mutex_lock(&d->lock);
	d->fn = fn;
	d->batch = batch;
	d->ctx = ctx;
	if (d->failed) {
		uint64_t n;
		d->failed = false;
		if (read(d->fail_fd, &n, sizeof(n)) < 0) {
			/* EAGAIN: it was not readable (decoder_free()'s flag). */
		}
	}
	pthread_mutex_unlock(&d->lock);
}

void decoder_set_clock(struct decoder *d, int64_t (*get)(void *ctx),
		       void (*set)(void *ctx, int64_t t), void *ctx)
{
	d->clock_get = get;
	d->clock_set = set;
	d->clock_ctx = ctx;
}

void decoder_put(struct decoder *d, const char *text, size_t len)
{
	if (!d->fill) {
		pthread_mutex_lock(&d->lock);
		d->fill = d->spare;
		d->spare = NULL;
		pthread_mutex_unlock(&d->lock);
		if (!d->fill)
			d->fill = xcalloc(1, sizeof(*d->fill));
	}
	int64_t t = d->clock_get ? d->clock_get(d->clock_ctx) : 0;
	strbuf_grow(&d->fill->data, sizeof(len) + sizeof(t) + len + 1);
	strbuf_add(&d->fill->data, &len, sizeof(len));
	strbuf_add(&d->fill->data, &t, sizeof(t));
	strbuf_add(&d->fill->data, text, len);
	strbuf_addch(&d->fill->data, '\0');
	if (d->fill->data.len >= BATCH_BYTES)
		decoder_flush(d);
}

void decoder_flush(struct decoder *d)
{
	struct batch *b = d->fill;

	if (!b || !b->data.len)
		return;
	d->fill = NULL;
	pthread_mutex_lock(&d->lock);
	while (d->queued && d->queued + b->data.len > DECODER_QUEUE_MAX &&
	       !d->failed && !stopped(d))
		pthread_cond_wait(&d->room, &d->lock);
	if (d->failed || stopped(d)) {
		pthread_mutex_unlock(&d->lock);
		batch_free(b);
		return;
	}
	if (d->tail)
		d->tail->next = b;
	else
		d->head = b;
	d->tail = b;
	d->queued += b->data.len;
	pthread_cond_signal(&d->more);
	pthread_mutex_unlock(&d->lock);
}

bool decoder_failed(struct decoder *d)
{
	pthread_mutex_lock(&d->lock);
	bool failed = d->failed;
	pthread_mutex_unlock(&d->lock);
	return failed;
}

int decoder_fail_fd(const struct decoder *d)
{
	return d->fail_fd;
}

void decoder_drain(struct decoder *d)
{
	decoder_flush(d);
	pthread_mutex_lock(&d->lock);
	while (d->head || d->busy)
		pthread_cond_wait(&d->idle, &d->lock);
	pthread_mutex_unlock(&d->lock);
}
