/*
 * zpack.c — compressed copies of texts that look alike; see zpack.h.
 *
 * DESIGN (threads): the families' table has one mutex, held to find or
 * make a family.  Each family has its own, held while it learns (its
 * samples grow, then its dictionary is made); the dictionary is then
 * published through an atomic pointer, and from there on packing and
 * unpacking read it without a lock (zstd's digested dictionaries are
 * read-only and may be shared by threads).  zstd's contexts are per
 * thread (a pthread key, whose destructor frees them).
 *
 * The dictionary is raw content, the family's first texts end to end,
 * rather than one zstd trains: training costs a fraction of a second
 * and a sample of thousands, where objects of one kind already repeat
 * whole runs of each other, which is what a raw dictionary finds.
 */
#include "lib/zpack.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "lib/util.h"

/*
 * One of zstd's fast levels: against a dictionary they find the long
 * runs that matter.  At 100,000 pods, level 1 held 68 MiB and took a
 * fifth more CPU to sync than no packing; -3 held 73 MiB for about as
 * much CPU as no packing (what it saves in page faults it spends).
 */
#define LEVEL (-3)

struct dict {
	ZSTD_CDict *cdict;
	ZSTD_DDict *ddict;
};

struct zpack {
	char *name;
	pthread_mutex_t lock;
	struct strbuf samples;	/* under lock, until the dictionary is made */
	_Atomic(struct dict *) dict;
};

static struct {
	pthread_mutex_t lock;
	struct zpack *families[ZPACK_MAX_FAMILIES];
	size_t nr;
} table = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct zctx {
	ZSTD_CCtx *c;
	ZSTD_DCtx *d;
};

static pthread_key_t ctx_key;
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;

static void ctx_free(void *p)
{
	struct zctx *ctx = p;

	ZSTD_freeCCtx(ctx->c);
	ZSTD_freeDCtx(ctx->d);
	free(ctx);
}

static void ctx_key_make(void)
{
	if (pthread_key_create(&ctx_key, ctx_free))
		die("cannot make a thread key");
}

static struct zctx *thread_ctx(void)
{
	struct zctx *ctx;

	pthread_once(&ctx_once, ctx_key_make);
	ctx = pthread_getspecific(ctx_key);
	if (!ctx) {
		ctx = xcalloc(1, sizeof(*ctx));
		ctx->c = ZSTD_createCCtx();
		ctx->d = ZSTD_createDCtx();
		if (!ctx->c || !ctx->d)
			out_of_memory(0);
		/* Packed texts carry neither checksum nor a dictionary id: bytes. */
		ZSTD_CCtx_setParameter(ctx->c, ZSTD_c_checksumFlag, 0);
		ZSTD_CCtx_setParameter(ctx->c, ZSTD_c_dictIDFlag, 0);
		ZSTD_CCtx_setParameter(ctx->c, ZSTD_c_contentSizeFlag, 0);
		pthread_setspecific(ctx_key, ctx);
	}
	return ctx;
}

struct zpack *zpack_family(const char *name)
{
	struct zpack *z = NULL;

	pthread_mutex_lock(&table.lock);
	for (size_t i = 0; i < table.nr; i++)
		if (!strcmp(table.families[i]->name, name)) {
			z = table.families[i];
			goto out;
		}
	if (table.nr == ZPACK_MAX_FAMILIES)
		goto out;
	z = xcalloc(1, sizeof(*z));
	z->name = xstrdup(name);
	pthread_mutex_init(&z->lock, NULL);
	strbuf_init(&z->samples, 0);
	atomic_init(&z->dict, NULL);
	table.families[table.nr++] = z;
out:
	pthread_mutex_unlock(&table.lock);
	return z;
}

static struct dict *dict_make(const struct strbuf *samples)
{
	struct dict *d = xcalloc(1, sizeof(*d));

	/* Text without zstd's dictionary magic is taken as raw content. */
	d->cdict = ZSTD_createCDict(samples->buf, samples->len, LEVEL);
	d->ddict = ZSTD_createDDict(samples->buf, samples->len);
	if (!d->cdict || !d->ddict)
		out_of_memory(0);
	return d;
}

/*
 * While the family learns: keeps text as a sample, and makes the
 * dictionary once there are enough.  Returns the dictionary, or NULL
 * while it is still learning.
 */
static struct dict *learn(struct zpack *z, const char *text, size_t len)
{
	struct dict *d;

	pthread_mutex_lock(&z->lock);
	d = atomic_load_explicit(&z->dict, memory_order_acquire);
	if (!d) {
		strbuf_add(&z->samples, text, len < ZPACK_DICT_BYTES ? len : ZPACK_DICT_BYTES);
		if (z->samples.len >= ZPACK_DICT_BYTES) {
			d = dict_make(&z->samples);
			strbuf_release(&z->samples);
			atomic_store_explicit(&z->dict, d, memory_order_release);
		}
		d = NULL;	/* this text is a sample: kept as it is */
	}
	pthread_mutex_unlock(&z->lock);
	return d;
}

size_t zpack_pack(struct zpack *z, const char *text, size_t len, struct strbuf *out)
{
	struct dict *d = atomic_load_explicit(&z->dict, memory_order_acquire);
	struct zctx *ctx;
	size_t bound, n;

	if (!d && !(d = learn(z, text, len)))
		return 0;
	ctx = thread_ctx();
	bound = ZSTD_compressBound(len);
	strbuf_grow(out, bound);
	n = ZSTD_compress_usingCDict(ctx->c, out->buf + out->len, bound, text, len, d->cdict);
	if (ZSTD_isError(n) || n >= len)
		return 0;
	out->len += n;	/* grown above: within alloc */
	out->buf[out->len] = '\0';
	return n;
}

void zpack_unpack(const struct zpack *z, const void *packed, size_t plen,
		  size_t len, struct strbuf *out)
{
	struct dict *d = atomic_load_explicit(&((struct zpack *)z)->dict,
					      memory_order_acquire);
	struct zctx *ctx = thread_ctx();
	size_t n;

	strbuf_grow(out, len);
	n = d ? ZSTD_decompress_usingDDict(ctx->d, out->buf + out->len, len,
					   packed, plen, d->ddict) : 0;
	if (!d || ZSTD_isError(n) || n != len) {
		fprintf(stderr, "kinf: bug: a packed text of %zu bytes does not unpack (%s)\n",
			plen, d && ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong size");
		abort();
	}
	out->len += len;
	out->buf[out->len] = '\0';
}
