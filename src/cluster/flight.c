/*
 * flight.c — the flight recorder: a ring of compressed records, each
 * stream's last list kept apart, and the dumps.  See the header.
 *
 * DESIGN (threads): the tap runs on every reflector thread at once; the
 * consumer's thread triggers and takes dumps; the flight's own threads
 * are the folder (folder_main()), which lets go of what left the window,
 * and the writer (writer_main()), which writes the dumps taken.
 *
 * The tap only appends records and seals segments: letting go of them
 * (folding each record into its stream's checkpoint, a list leaving the
 * window, the checkpoints' compaction) took seconds at 100,000 pods, and
 * on the tap it delayed what the informer sees by as much.  So the tap
 * moves what leaves the window or the budget onto f->pend, as it is,
 * and wakes the folder, which folds it oldest first.
 *
 * Three locks, always taken in this order:
 *   - f->fold_lock guards the checkpoints' insides, f->zd and f->unz: the
 *     folder holds it while it folds one segment, and a dump while it is
 *     taken;
 *   - f->lock guards everything else of the recorder (the ring, f->pend,
 *     the pins and which checkpoint each has, held, the trigger).  The
 *     tap takes only this one, and the folder lets go of it while it
 *     uncompresses and folds, so the tap never waits for a fold;
 *   - f->dump_lock guards what the writer shares: the dump taken and not
 *     begun (f->taken: at most one), whether one is being written, the
 *     results, the count.  The writer takes only this one, and never
 *     holds it while it writes.
 * A segment stays on f->pend until it is folded, and a dump first folds
 * what is pending itself (holding both), so a dump is exactly what the
 * recorder held when it was due, as if every fold had been done on the
 * tap.  Taking it holds both locks while it references the segments it
 * will read and copies what orders the records; that is all the
 * consumer's thread does.  The folder then makes the dump's checkpoints
 * text (ck_job(): 0.6 s at 10,000 pods) before it folds anything more,
 * so they are as they were when it was taken, and hands it to the
 * writer, which orders, compresses and writes with no flight
 * lock held (a GiB of lines takes half a minute), reading only what is
 * the dump's: its texts and copies, and segments by reference (struct
 * zblob: whoever lets go of the last reference frees it, the folder or
 * the writer).  A pin's segments are not changed once it has a
 * checkpoint (its list's records go to the ring then), so the folder
 * reads them without f->lock; only the folder and a dump being taken
 * (both under fold_lock) let go of them.  The writer tells the consumer
 * that a dump ended through a pipe (flight_fd()), a byte for each, read
 * as flight_dump_due() hands the dump back.  A dump being taken clears
 * the trigger, so one that comes while it is written is the next dump's;
 * the consumer takes that one while the writer is busy, but no third.
 *
 * The folder runs at a lower priority (FOLDER_NICE), and the writer at
 * a lower one still (WRITER_NICE), so that on a busy machine the
 * informer's threads get the CPU first, and the folder, which the tap
 * may wait for, before a dump.
 *
 * The tap lets go of as many segments as the budget needs once they are
 * folded (the checkpoints' live texts grow by about f->grow per byte
 * folded; their dead texts are counted at their share of the budget,
 * DEAD_ROOM_SHARE, which the folder keeps them to by compacting).  When
 * something is pending and the bytes held are over the budget, or what
 * is pending passes a thirty-second of it (the folder starved of CPU),
 * memory is bounded first: the tap takes fold_lock (trylock: it holds
 * f->lock, which comes second) and does the folder's turn itself, at its
 * own priority, so that it never waits for the niced folder to be
 * scheduled; it waits on `drained` only while the folder holds
 * fold_lock, or a dump's checkpoints (ck_job) are due before any fold.
 * After each fold the folder, or the tap, compacts if due and lets go of
 * the ring again, by what the fold really added.
 */
#include "cluster/flight.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "cluster/flight_checkpoint.h"
#include "cluster/http.h"
#include "cluster/recording.h"
#include "lib/strbuf.h"

/*
 * Records are compressed in segments of about this many bytes (or an
 * eighth of the budget, if less), with zstd at this level.  On a pod
 * watch's records (10,000 pods, 1,000 updates/s; one core of a loaded
 * machine), zlib at level 3 kept 14x in 256 KiB segments at 230 MB/s;
 * zstd at level 1 keeps 30x there and 37x in 1 MiB ones, at 1.9 GB/s,
 * and uncompresses at 6.5 GB/s.  Its negative levels are no faster on
 * this text (2.1 GB/s) and keep 15-24x; level 3 keeps no more and is
 * 1.7 times slower.  Compressing was most of what the recorder cost
 * (tests/bench/RESULTS-features.md).  A dump is still gzip: it is
 * uncompressed and written again then (dumps are rare).
 */
#define SEGMENT_RAW (1024 * 1024)
#define SEGMENT_LEVEL 1
/* ... or spans at most this share of the window, or of the budget. */
#define SEGMENTS_MIN 8
/*
 * The ring lets go of segments when the bytes held, less those pending,
 * pass the budget less this share of it: the room for what waits for the
 * folder, and for a fold's or a compaction's new segments before the
 * old ones go.
 */
#define FOLD_ROOM_SHARE 16
/*
 * The checkpoints' dead texts (replaced or deleted objects) may take this
 * share of the budget before the folder compacts them; the ring keeps to
 * the budget less this share, whatever the dead hold now.  Folding a byte
 * of the ring adds one to two bytes of checkpoint between two compactions
 * (its objects' texts in smaller segments, which compress less): letting
 * go of more of the ring to pay for that only adds more, so it is paid
 * by compacting instead, and a compaction copies the live texts once per
 * this share's worth of dead ones.
 */
#define DEAD_ROOM_SHARE 8

struct segment {
	int64_t t_first, t_last;	/* the times of its first and last records */
	unsigned char *z;	/* zstd, one frame: a zblob's bytes */
	size_t zlen, rawlen;
};

/*
 * A segment's bytes, counted: the flight holds one reference while the
 * segment is its own, and a dump being written one for each segment it
 * reads, so that the folder may let go of a segment a dump still reads
 * (see DESIGN).  The bytes never change once compressed.
 */
struct zblob {
	atomic_uint refs;
	unsigned char z[];
};

static struct zblob *zblob_of(unsigned char *z)
{
	return (struct zblob *)(void *)(z - offsetof(struct zblob, z));
}

static void zblob_ref(unsigned char *z)
{
	atomic_fetch_add_explicit(&zblob_of(z)->refs, 1, memory_order_relaxed);
}

/* Any thread, no lock: the last reference frees it. */
static void zblob_unref(unsigned char *z)
{
	if (z && atomic_fetch_sub_explicit(&zblob_of(z)->refs, 1, memory_order_acq_rel) == 1)
		free(zblob_of(z));
}

/* Records compressed in segments, and those not compressed yet. */
struct segs {
	struct segment *v;	/* oldest first */
	size_t nr, alloc;
	struct strbuf cur;
	int64_t cur_t_first, cur_t_last;
};

/*
 * The annotation of the bookmark that ends a streaming list's initial
 * events: what comes after it on that watch is the watch proper.
 */
#define INITIAL_END "k8s.io/initial-events-end"
#define INITIAL_END_LEN (sizeof(INITIAL_END) - 1)

/* What the flight knows of each exchange it saw begin. */
struct xinfo {
	unsigned stream;	/* index in f->streams; UINT32_MAX: none */
	bool list;		/* a list page (or a streaming list): kept apart */
	/*
	 * A streaming list: a list until its initial-events-end bookmark,
	 * then a watch, whose records go to the ring.  carry: the end of
	 * its data so far, for a bookmark split between two pieces.
	 */
	bool streaming;
	bool pinned;		/* counted in its pin's open */
	unsigned char ncarry;
	char carry[INITIAL_END_LEN - 1];
};

/*
 * A list of a stream (its pages, or a streaming list), kept apart; once
 * the ring lets go of a record that came after it, the list and what
 * followed are folded into a checkpoint instead (lines then empty, and
 * the list's further records go to the ring).
 */
struct pin {
	unsigned x;		/* its first exchange */
	int64_t t;		/* when it began */
	/*
	 * Compressed as the ring is: 100,000 pods' list is 300 MiB as
	 * records, 10 MiB so.
	 */
	struct segs lines;
	struct checkpoint *ck;	/* NULL: none yet */
	/*
	 * ck is an overlay (flight_checkpoint.h) on lines, which stay as its
	 * base: a list leaving the window costs no fold of its objects.
	 */
	bool based;
	unsigned open;		/* its list exchanges not ended (a streaming one: before its bookmark) */
};

/*
 * A stream's lists, oldest first: the newest that began before the ring's
 * oldest record is where its dump starts; those before it go (prune_pins()).
 */
struct fstream {
	char *name;
	struct pin *pins;
	size_t npins, apins;
};

/* A dump written, or not, for flight_dump_due() to hand to the caller. */
struct dresult {
	char *path, *reason;	/* path NULL: not written, err says why */
	struct errbuf err;
	struct dresult *next;
};

struct flight {
	pthread_mutex_t fold_lock;	/* before lock; see DESIGN */
	pthread_mutex_t lock;
	pthread_cond_t work;	/* the folder's: something is pending, or stop */
	pthread_cond_t drained;	/* the tap's: what is pending went down */
	pthread_t folder;
	int nthreads;		/* started by flight_new(): the folder, then the writer */
	bool stop;
	/* Segments the ring let go of, oldest first, not folded yet (in held). */
	struct segment *pend;
	size_t npend, apend, pend_z;
	/*
	 * What the checkpoints' live part (bytes less dead) grew by per byte
	 * of segment folded, lately: the ring lets go of what the budget
	 * needs once folded.
	 */
	double grow;
	/*
	 * The checkpoints' dead texts, compressed (checkpoint_dead()), and
	 * the most a compaction of one would add while it runs
	 * (checkpoint_compact_peak()), as of the last fold or compaction.
	 */
	size_t dead, peak;
	struct flight_opts o;
	int64_t started;	/* monotonic */
	unsigned exchanges;
	struct xinfo *x;	/* [x] */
	size_t nx;
	struct fstream *streams;
	size_t nstreams, astreams;
	struct segs ring;
	size_t held;		/* the ring's, f->pend's and the pins' segs (zlen + cur), checkpoints */
	ZSTD_CCtx *zc;
	ZSTD_DCtx *zd;
	struct strbuf line;	/* scratch: a record */
	struct strbuf unz;	/* scratch: a segment uncompressed */
	/* The due dump. */
	char *reason;
	struct json_object *keys;
	int64_t trigger_t, trigger_wall, due;	/* due: monotonic; 0: none */
	struct dump *ckjob;	/* taken, its checkpoints for the folder to make text */
	/* The writer's thread (writer_main()) and what it shares, under dump_lock. */
	pthread_t writer;
	pthread_mutex_t dump_lock;	/* after lock; see DESIGN */
	pthread_cond_t wjob;	/* the writer's: a dump taken, or stop */
	pthread_cond_t wstate;	/* the writer took a dump, or ended one */
	struct dump *taken;	/* taken, not begun by the writer yet */
	bool writing, wstop;
	struct dresult *results;	/* written (or not), oldest first, for flight_dump_due() */
	int wake[2];		/* a byte for each of results: flight_fd() */
	unsigned long dumps;
	/* The writer's own (no lock). */
	ZSTD_DCtx *wzd;
	struct strbuf wunz;	/* scratch: a segment uncompressed */
};

/* ---- segments (f->lock held) ------------------------------------------- */

/* The bytes ss holds: its segments compressed, its records not yet. */
static size_t segs_bytes(const struct segs *ss)
{
	size_t n = ss->cur.len;

	for (size_t i = 0; i < ss->nr; i++)
		n += ss->v[i].zlen;
	return n;
}

static void segs_release(struct segs *ss)
{
	for (size_t i = 0; i < ss->nr; i++)
		zblob_unref(ss->v[i].z);
	free(ss->v);
	strbuf_release(&ss->cur);
	*ss = (struct segs){ .cur = STRBUF_INIT };
}

static void *folder_main(void *arg);
static void ck_job(struct flight *f);
static void *writer_main(void *arg);

struct flight *flight_new(const struct flight_opts *opts, struct errbuf *err)
{
	struct flight *f = xcalloc(1, sizeof(*f));
	int rc = 0;

	pthread_mutex_init(&f->fold_lock, NULL);
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->work, NULL);
	pthread_cond_init(&f->drained, NULL);
	f->o = *opts;
	f->grow = 1;
	f->started = mono_ms();
	f->ring.cur = (struct strbuf)STRBUF_INIT;
	f->line = (struct strbuf)STRBUF_INIT;
	f->unz = (struct strbuf)STRBUF_INIT;
	f->wunz = (struct strbuf)STRBUF_INIT;
	f->zc = ZSTD_createCCtx();
	f->zd = ZSTD_createDCtx();
	f->wzd = ZSTD_createDCtx();
	if (!f->zc || !f->zd || !f->wzd)
		out_of_memory(0);
	pthread_mutex_init(&f->dump_lock, NULL);
	pthread_cond_init(&f->wjob, NULL);
	pthread_cond_init(&f->wstate, NULL);
	/* a segment's frame needs no more than its bytes: no checksum, no sizes twice */
	ZSTD_CCtx_setParameter(f->zc, ZSTD_c_compressionLevel, SEGMENT_LEVEL);
	ZSTD_CCtx_setParameter(f->zc, ZSTD_c_checksumFlag, 0);
	if (pipe2(f->wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		errbuf_set(err, "flight recorder: cannot make a pipe: %s", strerror(errno));
		f->wake[0] = f->wake[1] = -1;
		flight_free(f);
		return NULL;
	}
	rc = pthread_create(&f->folder, NULL, folder_main, f);
	if (!rc) {
		f->nthreads = 1;
		rc = pthread_create(&f->writer, NULL, writer_main, f);
	}
	if (rc) {
		errbuf_set(err, "flight recorder: cannot start a thread: %s", strerror(rc));
		flight_free(f);
		return NULL;
	}
	f->nthreads = 2;
	return f;
}

void flight_free(struct flight *f)
{
	if (!f)
		return;
	/* a dump taken is written first: the writer ends when none is left */
	pthread_mutex_lock(&f->dump_lock);
	f->wstop = true;
	pthread_cond_signal(&f->wjob);
	pthread_mutex_unlock(&f->dump_lock);
	if (f->nthreads == 2)
		pthread_join(f->writer, NULL);
	while (f->results) {
		struct dresult *r = f->results;
		f->results = r->next;
		free(r->path);
		free(r->reason);
		free(r);
	}
	if (f->wake[0] >= 0) {
		close(f->wake[0]);
		close(f->wake[1]);
	}
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	pthread_cond_broadcast(&f->work);
	pthread_cond_broadcast(&f->drained);
	pthread_mutex_unlock(&f->lock);
	if (f->nthreads)
		pthread_join(f->folder, NULL);
	for (size_t i = 0; i < f->npend; i++)
		zblob_unref(f->pend[i].z);
	free(f->pend);
	segs_release(&f->ring);
	for (size_t i = 0; i < f->nstreams; i++) {
		for (size_t k = 0; k < f->streams[i].npins; k++) {
			segs_release(&f->streams[i].pins[k].lines);
			checkpoint_free(f->streams[i].pins[k].ck);
		}
		free(f->streams[i].pins);
		free(f->streams[i].name);
	}
	free(f->streams);
	free(f->x);
	ZSTD_freeCCtx(f->zc);
	ZSTD_freeDCtx(f->zd);
	ZSTD_freeDCtx(f->wzd);
	strbuf_release(&f->wunz);
	strbuf_release(&f->line);
	strbuf_release(&f->unz);
	free(f->reason);
	json_object_put(f->keys);
	pthread_mutex_destroy(&f->lock);
	pthread_mutex_destroy(&f->fold_lock);
	pthread_cond_destroy(&f->work);
	pthread_cond_destroy(&f->drained);
	pthread_mutex_destroy(&f->dump_lock);
	pthread_cond_destroy(&f->wjob);
	pthread_cond_destroy(&f->wstate);
	free(f);
}

/* ---- the ring (f->lock held) -------------------------------------------- */


static int64_t now_t(const struct flight *f)
{
	return mono_ms() - f->started;
}

/* ss's records not compressed yet become its newest segment. */
static void segs_seal(struct flight *f, struct segs *ss)
{
	if (!ss->cur.len)
		return;
	size_t bound = ZSTD_compressBound(ss->cur.len);
	struct segment seg = { .t_first = ss->cur_t_first, .t_last = ss->cur_t_last,
			       .rawlen = ss->cur.len };
	struct zblob *b = xmalloc(sizeof(*b) + bound);
	seg.zlen = ZSTD_compress2(f->zc, b->z, bound, ss->cur.buf, ss->cur.len);
	if (ZSTD_isError(seg.zlen))
		BUG("zstd: cannot compress: %s", ZSTD_getErrorName(seg.zlen));
	b = xrealloc(b, sizeof(*b) + seg.zlen);
	atomic_init(&b->refs, 1);
	seg.z = b->z;
	ALLOC_GROW(ss->v, ss->nr + 1, ss->alloc);
	ss->v[ss->nr++] = seg;
	f->held += seg.zlen;
	f->held -= ss->cur.len;
	strbuf_reset(&ss->cur);
}

/*
 * f->line, a record at t, onto ss; a segment is sealed when it reaches
 * SEGMENT_RAW bytes or an eighth of the budget, or spans an eighth of
 * the window (so that short windows can let go).
 */
static void segs_add(struct flight *f, struct segs *ss, int64_t t)
{
	size_t most = f->o.budget / SEGMENTS_MIN;

	if (most > SEGMENT_RAW)
		most = SEGMENT_RAW;
	if (ss->cur.len && t - ss->cur_t_first >= f->o.window_ms / SEGMENTS_MIN)
		segs_seal(f, ss);
	if (!ss->cur.len)
		ss->cur_t_first = t;
	strbuf_add(&ss->cur, f->line.buf, f->line.len);
	ss->cur_t_last = t;
	if (ss->cur.len >= most)
		segs_seal(f, ss);
}

/*
 * A data record is kept as its bytes came, after a header, and becomes a
 * recording line (recording_line_data(): JSON-escaped) only when it is
 * read back: escaping every byte of the stream as it came was the
 * recorder's largest cost left (11 % of a 10,000-pod watch's CPU at
 * 1,000 updates/s, perf), and dumps are rare.  The other records are kept
 * as their lines, which begin with '{'.
 */
#define RAW_DATA '\001'

struct raw_head {
	int64_t t;
	unsigned x;
	size_t len;
};

static void raw_data(struct strbuf *sb, int64_t t, unsigned x, const char *data, size_t len)
{
	struct raw_head h;

	memset(&h, 0, sizeof(h));	/* its padding is compressed too */
	h.t = t;
	h.x = x;
	h.len = len;
	strbuf_addch(sb, RAW_DATA);
	strbuf_add(sb, &h, sizeof(h));
	strbuf_add(sb, data, len);
}

/* Records as kept, as the recording's lines, appended to out. */
static void records_lines(const char *p, size_t len, struct strbuf *out)
{
	const char *end = p + len;

	while (p < end) {
		if (*p == RAW_DATA) {
			struct raw_head h;
			memcpy(&h, p + 1, sizeof(h));
			recording_line_data(out, h.t, h.x, p + 1 + sizeof(h), h.len);
			p += 1 + sizeof(h) + h.len;
			continue;
		}
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		strbuf_add(out, p, n);
		p += n;
	}
}

/* A segment uncompressed into out (replacing what it held). */
static void segment_unz(ZSTD_DCtx *zd, const struct segment *seg, struct strbuf *out)
{
	strbuf_reset(out);
	strbuf_grow(out, seg->rawlen);
	size_t n = ZSTD_decompressDCtx(zd, out->buf, seg->rawlen, seg->z, seg->zlen);
	if (ZSTD_isError(n) || n != seg->rawlen)
		BUG("zstd: a flight recorder segment does not uncompress");
	out->len = n;
}

/* When the ring's oldest record came (now: it is empty). */
static int64_t ring_t0(const struct flight *f)
{
	if (f->npend)
		return f->pend[0].t_first;
	if (f->ring.nr)
		return f->ring.v[0].t_first;
	return f->ring.cur.len ? f->ring.cur_t_first : now_t(f);
}

/* Where stream s's dump starts: its newest list begun by the ring's oldest record. */
static size_t start_pin(const struct flight *f, const struct fstream *s)
{
	int64_t t0 = ring_t0(f);
	size_t k = 0;

	while (k + 1 < s->npins && s->pins[k + 1].t <= t0)
		k++;
	return k;
}

/* The lists before each stream's starting point go. */
static void prune_pins(struct flight *f)
{
	for (size_t i = 0; i < f->nstreams; i++) {
		struct fstream *s = &f->streams[i];
		size_t k = start_pin(f, s);
		if (!k)
			continue;
		for (size_t j = 0; j < k; j++) {
			f->held -= segs_bytes(&s->pins[j].lines);
			segs_release(&s->pins[j].lines);
			if (s->pins[j].ck)
				f->held -= checkpoint_bytes(s->pins[j].ck);
			checkpoint_free(s->pins[j].ck);
		}
		memmove(s->pins, s->pins + k, (s->npins - k) * sizeof(*s->pins));
		s->npins -= k;
	}
}

static bool line_tx(const char *p, size_t n, int64_t *t, unsigned *x);

/* The pin whose list exchange x of stream s came after; NULL: none. */
static struct pin *pin_before(struct fstream *s, unsigned x)
{
	size_t k = s->npins;

	while (k && s->pins[k - 1].x >= x)
		k--;
	return k ? &s->pins[k - 1] : NULL;
}

/* The pin that holds checkpoint ck (f->lock held); NULL: it went. */
static struct pin *pin_of(struct flight *f, const struct checkpoint *ck)
{
	for (size_t i = 0; i < f->nstreams; i++)
		for (size_t k = 0; k < f->streams[i].npins; k++)
			if (f->streams[i].pins[k].ck == ck)
				return &f->streams[i].pins[k];
	return NULL;
}

/*
 * What a fold does to a pin that had no checkpoint: its lines, read
 * without f->lock (they no longer change), either skimmed into an
 * overlay (based) or folded into a checkpoint (a list of it still open).
 */
struct fold_job {
	struct checkpoint *ck;
	struct segs lines;	/* a shallow copy */
	bool based;
};

/* A checkpoint touched by a fold, and its bytes and dead before (held is moved by the difference). */
struct fold_ck {
	struct checkpoint *ck;
	size_t before, dead_before;
};

/* One segment's fold: where each of its records goes, and what it touches. */
struct fold {
	struct checkpoint **to;	/* [record]: NULL: nowhere */
	size_t nto, ato;
	struct fold_job *jobs;
	size_t njobs, ajobs;
	struct fold_ck *cks;
	size_t ncks, acks;
};

static void fold_touch(struct fold *fo, struct checkpoint *ck)
{
	for (size_t i = 0; i < fo->ncks; i++)
		if (fo->cks[i].ck == ck)
			return;
	ALLOC_GROW(fo->cks, fo->ncks + 1, fo->acks);
	fo->cks[fo->ncks++] = (struct fold_ck){ .ck = ck, .before = checkpoint_bytes(ck),
						.dead_before = checkpoint_dead(ck) };
}

/*
 * Pin p of stream s gets its checkpoint (f->lock held): an overlay on
 * its lines when every list of it has ended, else one its lines are
 * folded into; either is done by the fold, without f->lock.
 */
static void pin_let_go(struct flight *f, struct fstream *s, struct pin *p, struct fold *fo)
{
	p->based = !p->open;
	p->ck = p->based ? checkpoint_new_overlay(s->name) : checkpoint_new(s->name);
	f->held += checkpoint_bytes(p->ck);
	ALLOC_GROW(fo->jobs, fo->njobs + 1, fo->ajobs);
	fo->jobs[fo->njobs++] = (struct fold_job){ .ck = p->ck, .lines = p->lines,
						   .based = p->based };
}

/*
 * Where a record of exchange x goes as the ring lets go of it: the
 * checkpoint of the list it came after (made now if need be); NULL:
 * none (its stream has no list kept).
 */
static struct checkpoint *fold_target(struct flight *f, unsigned x, struct fold *fo)
{
	if (x >= f->nx || f->x[x].stream == UINT32_MAX)
		return NULL;
	struct fstream *s = &f->streams[f->x[x].stream];
	struct pin *p = pin_before(s, x + 1);
	if (!p)
		return NULL;
	if (!p->ck)
		pin_let_go(f, s, p, fo);
	return p->ck;
}

/*
 * Walks records as kept (raw data, or lines): each record's exchange,
 * time and bytes (data, or its line with data NULL) to fn.
 */
typedef void record_fn(unsigned x, int64_t t, const char *data, size_t len, const char *line,
		       size_t n, void *ctx);

static void records_walk(const char *p, size_t len, record_fn *fn, void *ctx)
{
	const char *end = p + len;

	while (p < end) {
		struct raw_head h;
		size_t n;
		if (*p == RAW_DATA) {
			memcpy(&h, p + 1, sizeof(h));
			n = 1 + sizeof(h) + h.len;
			fn(h.x, h.t, p + 1 + sizeof(h), h.len, p, n, ctx);
		} else {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
			if (!line_tx(p, n, &h.t, &h.x))
				h.x = UINT32_MAX;
			fn(h.x, h.t, NULL, 0, p, n, ctx);
		}
		p += n;
	}
}

/* A record into a checkpoint. */
static void record_take(struct checkpoint *ck, unsigned x, int64_t t, const char *data,
			size_t len, const char *line, size_t n)
{
	/*
	 * A data record goes in as its bytes: escaping each to a line and
	 * parsing it back cost more than the rest of the fold.
	 */
	if (data)
		checkpoint_take_data(ck, t, x, data, len);
	else
		checkpoint_take(ck, line, n);
}

static void take_into(unsigned x, int64_t t, const char *data, size_t len, const char *line,
		      size_t n, void *ctx)
{
	record_take(ctx, x, t, data, len, line, n);
}

/* Records as kept, each folded into ck. */
static void records_fold(const char *p, size_t len, struct checkpoint *ck)
{
	records_walk(p, len, take_into, ck);
}

/* The fold's targets, in the order of the records (f->lock held). */
struct resolve {
	struct flight *f;
	struct fold *fo;
};

static void resolve_one(unsigned x, int64_t t, const char *data, size_t len, const char *line,
			size_t n, void *ctx)
{
	struct resolve *r = ctx;
	struct checkpoint *to = fold_target(r->f, x, r->fo);

	(void)t, (void)data, (void)len, (void)line, (void)n;
	ALLOC_GROW(r->fo->to, r->fo->nto + 1, r->fo->ato);
	r->fo->to[r->fo->nto++] = to;
	if (to)
		fold_touch(r->fo, to);
}

/* Each record into its target, as resolved (fold_lock held, f->lock not needed). */
struct deliver {
	struct fold *fo;
	size_t i;
};

static void deliver_one(unsigned x, int64_t t, const char *data, size_t len, const char *line,
			size_t n, void *ctx)
{
	struct deliver *d = ctx;
	struct checkpoint *to = d->fo->to[d->i++];

	if (to)
		record_take(to, x, t, data, len, line, n);
}

/* All of ss's records folded into ck, uncompressed in unz (fold_lock held). */
static void segs_fold(struct flight *f, const struct segs *ss, struct checkpoint *ck,
		      struct strbuf *unz)
{
	for (size_t i = 0; i < ss->nr; i++) {
		segment_unz(f->zd, &ss->v[i], unz);
		records_fold(unz->buf, unz->len, ck);
	}
	records_fold(ss->cur.buf, ss->cur.len, ck);
}

/*
 * The checkpoint a dump starts from for a based pin: its base's records
 * folded, then the overlay's changes (fold_lock held; caller frees).
 */
static struct checkpoint *base_checkpoint(struct flight *f, const char *stream,
					  const struct segs *lines, const struct checkpoint *over)
{
	struct checkpoint *ck = checkpoint_new(stream);
	struct strbuf unz = STRBUF_INIT;

	segs_fold(f, lines, ck, &unz);
	checkpoint_overlay(ck, over);
	strbuf_release(&unz);
	return ck;
}

/* The jobs of a fold: lists leaving the window (fold_lock held, f->lock not). */
static void fold_jobs(struct flight *f, struct fold *fo)
{
	/* not f->unz: the segment being folded is in it */
	struct strbuf unz = STRBUF_INIT;

	for (size_t i = 0; i < fo->njobs; i++) {
		segs_fold(f, &fo->jobs[i].lines, fo->jobs[i].ck, &unz);
		if (fo->jobs[i].based)
			checkpoint_skim_end(fo->jobs[i].ck);
	}
	strbuf_release(&unz);
}

static void fold_release(struct fold *fo)
{
	free(fo->to);
	free(fo->jobs);
	free(fo->cks);
}

/* f->dead and f->peak, from the checkpoints (both locks held). */
static void dead_sum(struct flight *f)
{
	f->dead = f->peak = 0;
	for (size_t i = 0; i < f->nstreams; i++)
		for (size_t k = 0; k < f->streams[i].npins; k++) {
			const struct checkpoint *ck = f->streams[i].pins[k].ck;
			if (!ck)
				continue;
			f->dead += checkpoint_dead(ck);
			if (checkpoint_compact_peak(ck) > f->peak)
				f->peak = checkpoint_compact_peak(ck);
		}
}

/* Both locks held: let_go lets go of f->lock (the folder), or not (a dump). */
static void unlock_if(struct flight *f, bool let_go)
{
	if (let_go)
		pthread_mutex_unlock(&f->lock);
}

static void lock_if(struct flight *f, bool let_go)
{
	if (let_go)
		pthread_mutex_lock(&f->lock);
}

/*
 * After a fold (f->lock held): held moves by what the checkpoints grew,
 * the folded pins' lines go, and so does the segment.
 */
static void fold_done(struct flight *f, struct fold *fo, struct segment *seg)
{
	double grew = 0;

	for (size_t i = 0; i < fo->ncks; i++) {
		size_t now = checkpoint_bytes(fo->cks[i].ck);
		/* what became dead is the dead share's, which compaction gives back */
		grew += (double)now - (double)fo->cks[i].before;
		grew -= (double)checkpoint_dead(fo->cks[i].ck) - (double)fo->cks[i].dead_before;
		f->held += now;
		f->held -= fo->cks[i].before;
	}
	if (!fo->njobs && seg->zlen) {	/* a list's first fold is not the rate */
		f->grow = 0.9 * f->grow + 0.1 * grew / (double)seg->zlen;
		f->grow = f->grow < 0 ? 0 : f->grow;
	}
	for (size_t i = 0; i < fo->njobs; i++) {
		struct pin *p = fo->jobs[i].based ? NULL : pin_of(f, fo->jobs[i].ck);
		if (p) {
			f->held -= segs_bytes(&p->lines);
			segs_release(&p->lines);
		}
	}
	memmove(f->pend, f->pend + 1, (f->npend - 1) * sizeof(*f->pend));
	f->npend--;
	f->pend_z -= seg->zlen;
	f->held -= seg->zlen;
	zblob_unref(seg->z);
	prune_pins(f);
	dead_sum(f);
	pthread_cond_broadcast(&f->drained);
}

/*
 * The base of a based pin is folded once its overlay's live texts
 * outweigh it (most of its objects replaced): the overlay and the base
 * become one checkpoint, so that neither grows for ever.  Rare, and off
 * the tap.  The new checkpoint is made while the base and the overlay
 * are still held, so it waits until the budget has room for it beside
 * them (about the two together): the bytes held stay within the budget
 * at the peak too.  Both locks held; let_go as for fold_oldest().
 */
static void rebase(struct flight *f, struct checkpoint *over, bool let_go)
{
	struct pin *p = pin_of(f, over);
	if (!p || !p->based)
		return;
	size_t raw = p->lines.cur.len;
	for (size_t i = 0; i < p->lines.nr; i++)
		raw += p->lines.v[i].rawlen;
	size_t peak = checkpoint_bytes(over) + segs_bytes(&p->lines);
	if (checkpoint_live(over) <= raw || f->held + peak > f->o.budget)
		return;
	struct segs lines = p->lines;
	char *name = xstrdup(f->streams[f->x[p->x].stream].name);
	unlock_if(f, let_go);
	struct checkpoint *ck = base_checkpoint(f, name, &lines, over);
	lock_if(f, let_go);
	p = pin_of(f, over);
	if (p) {	/* not pruned meanwhile: only fold_lock's holders prune */
		f->held -= segs_bytes(&p->lines) + checkpoint_bytes(over);
		f->held += checkpoint_bytes(ck);
		segs_release(&p->lines);
		p->ck = ck;
		p->based = false;
		ck = NULL;
	}
	checkpoint_free(ck);
	checkpoint_free(over);
	free(name);
	dead_sum(f);
}

/*
 * The oldest pending segment is folded: each of its records into the
 * checkpoint of the list it came after.  Both locks held, and again on
 * return; let_go: f->lock is let go of while it uncompresses and folds
 * (the folder), so that the taps go on.
 */
static void fold_oldest(struct flight *f, bool let_go)
{
	struct segment seg = f->pend[0];	/* f->pend may move meanwhile */
	struct fold fo = { 0 };

	unlock_if(f, let_go);
	segment_unz(f->zd, &seg, &f->unz);
	lock_if(f, let_go);
	struct resolve r = { .f = f, .fo = &fo };
	records_walk(f->unz.buf, f->unz.len, resolve_one, &r);
	unlock_if(f, let_go);
	fold_jobs(f, &fo);
	struct deliver d = { .fo = &fo };
	records_walk(f->unz.buf, f->unz.len, deliver_one, &d);
	lock_if(f, let_go);
	fold_done(f, &fo, &seg);
	for (size_t i = 0; i < fo.ncks; i++)
		rebase(f, fo.cks[i].ck, let_go);
	fold_release(&fo);
}

/* Everything pending is folded (both locks held, kept). */
static void fold_all(struct flight *f)
{
	while (f->npend)
		fold_oldest(f, false);
}

static void evict(struct flight *f);

/* The checkpoint with the most dead texts (both locks held); NULL: none has any. */
static struct checkpoint *most_dead(const struct flight *f)
{
	struct checkpoint *most = NULL;

	for (size_t i = 0; i < f->nstreams; i++)
		for (size_t k = 0; k < f->streams[i].npins; k++) {
			struct checkpoint *ck = f->streams[i].pins[k].ck;
			if (ck && checkpoint_dead(ck) && (!most || checkpoint_dead(ck) > checkpoint_dead(most)))
				most = ck;
		}
	return most;
}

/*
 * The folder compacts the checkpoints once their dead texts reach their
 * share of the budget, or sooner when the bytes held are over the room
 * and a quarter of that share would come back (see DEAD_ROOM_SHARE).
 * The compaction's peak is counted in held while it runs, so that the
 * bound holds at that moment too.  Both locks held, and again on
 * return; f->lock is let go of meanwhile (the checkpoints are fold_lock's).
 */
static void compact_due(struct flight *f)
{
	size_t share = f->o.budget / DEAD_ROOM_SHARE;
	size_t room = f->o.budget - f->o.budget / FOLD_ROOM_SHARE;

	while (f->dead >= share || (f->held > room && f->dead >= share / 4)) {
		struct checkpoint *ck = most_dead(f);
		if (!ck)
			return;
		size_t before = checkpoint_bytes(ck), peak = checkpoint_compact_peak(ck);
		f->held += peak;
		pthread_mutex_unlock(&f->lock);
		checkpoint_compact(ck);
		pthread_mutex_lock(&f->lock);
		/* not pruned meanwhile: only fold_lock's holders prune */
		f->held -= peak + before;
		f->held += checkpoint_bytes(ck);
		dead_sum(f);
		pthread_cond_broadcast(&f->drained);
	}
}

/*
 * The folder's niceness: on a busy machine its bursts (a list of 100,000
 * pods skimmed as it leaves the window) would take the CPU from the
 * informer's threads, which the recorder must not delay.
 */
#define FOLDER_NICE 10
/*
 * The writer's: lower still, so that a dump's gzip (half a minute of CPU
 * for a full 64 MiB recorder) takes it from neither the informer's
 * threads nor the folder, which the tap waits for once the recorder is
 * at its size.  A dump may wait; what the informer sees may not.
 */
#define WRITER_NICE 19

/* The folder: what the ring lets go of, folded off the taps.  See DESIGN. */
static void *folder_main(void *arg)
{
	struct flight *f = arg;

	thread_name("kinf-fl-folder");
#ifdef __linux__
	/* Linux has a niceness per thread; refused, or elsewhere, it runs as the others */
	(void)setpriority(PRIO_PROCESS, (id_t)gettid(), FOLDER_NICE);
#endif
	pthread_mutex_lock(&f->lock);
	for (;;) {
		while (!f->npend && !f->ckjob && !f->stop)
			pthread_cond_wait(&f->work, &f->lock);
		if (f->stop)
			break;
		bool texts = f->ckjob;
		pthread_mutex_unlock(&f->lock);
		if (f->o.hold_folder)
			f->o.hold_folder(f->o.hold_ctx);
		if (texts && f->o.hold_texts)
			f->o.hold_texts(f->o.hold_ctx);
		pthread_mutex_lock(&f->fold_lock);
		pthread_mutex_lock(&f->lock);
		if (f->ckjob && !texts && f->o.hold_texts) {	/* taken meanwhile: the hook first */
			pthread_mutex_unlock(&f->fold_lock);
			continue;
		}
		ck_job(f);	/* before any fold changes a checkpoint */
		if (f->npend)	/* a dump may have folded it */
			fold_oldest(f, true);
		compact_due(f);
		/* the ring goes by what the fold really added (the tap's estimate is capped) */
		evict(f);
		pthread_mutex_unlock(&f->fold_lock);
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

/*
 * The oldest segments go onto f->pend, for the folder, while over the
 * budget less the folder's room or out of the window (f->lock held).
 */
static void evict(struct flight *f)
{
	int64_t horizon = now_t(f) - f->o.window_ms;
	size_t room = f->o.budget - f->o.budget / FOLD_ROOM_SHARE;
	struct segs *r = &f->ring;
	size_t n = 0;

	/*
	 * held once what is pending is folded: less the segments, plus what
	 * they add to the live texts (f->grow: near 0 once every object is
	 * in the checkpoint, as an update adds a text and kills one), the
	 * dead texts at their share (the folder compacts them there) and a
	 * compaction's peak
	 */
	double dead_room = (double)(f->o.budget / DEAD_ROOM_SHARE) - (double)f->dead + (double)f->peak;

	while (n < r->nr && ((double)(f->held - f->pend_z) + f->grow * (double)f->pend_z + dead_room > (double)room ||
			     r->v[n].t_last < horizon)) {
		ALLOC_GROW(f->pend, f->npend + 1, f->apend);
		f->pend[f->npend++] = r->v[n];
		f->pend_z += r->v[n].zlen;
		n++;
	}
	if (!n)
		return;
	memmove(r->v, r->v + n, (r->nr - n) * sizeof(*r->v));
	r->nr -= n;
	pthread_cond_signal(&f->work);
}

/* f->line, a record of exchange x, into its place. */
static void keep_line(struct flight *f, unsigned x, int64_t t)
{
	struct xinfo *xi = x < f->nx ? &f->x[x] : NULL;

	struct pin *p = NULL;

	f->held += f->line.len;
	if (xi && xi->list) {
		struct fstream *s = &f->streams[xi->stream];
		p = &s->pins[s->npins - 1];
		if (p->ck)	/* folded: the rest of it is the ring's */
			p = NULL;
	}
	segs_add(f, p ? &p->lines : &f->ring, t);
	strbuf_reset(&f->line);
	evict(f);
	/*
	 * The folder starved of CPU, or over the budget: memory is bounded
	 * first (see DESIGN).  The tap folds the oldest segment itself rather
	 * than wait for the niced folder to be scheduled; it waits only while
	 * the folder is folding one, or a dump's checkpoints are due first.
	 */
	while (f->npend && (f->pend_z > f->o.budget / FOLD_ROOM_SHARE / 2 ||
			    f->held > f->o.budget) && !f->stop) {
		if (!f->ckjob && pthread_mutex_trylock(&f->fold_lock) == 0) {
			fold_oldest(f, true);
			compact_due(f);
			evict(f);
			pthread_mutex_unlock(&f->fold_lock);
			continue;
		}
		pthread_cond_wait(&f->drained, &f->lock);
	}
}

/* Exchange x's list has ended (or reached its initial-events-end bookmark). */
static void list_ended(struct flight *f, unsigned x)
{
	struct xinfo *xi = &f->x[x];

	if (!xi->pinned)
		return;
	xi->pinned = false;
	struct pin *p = pin_before(&f->streams[xi->stream], x + 1);
	if (p && p->open)
		p->open--;
}

static unsigned stream_index(struct flight *f, const char *name)
{
	for (size_t i = 0; i < f->nstreams; i++)
		if (!strcmp(f->streams[i].name, name))
			return (unsigned)i;
	ALLOC_GROW(f->streams, f->nstreams + 1, f->astreams);
	f->streams[f->nstreams] = (struct fstream){ .name = xstrdup(name) };
	return (unsigned)f->nstreams++;
}

static bool query_has(const char *path, const char *param)
{
	const char *q = strchr(path, '?');
	size_t n = strlen(param);

	while (q) {
		q++;
		if (!strncmp(q, param, n))
			return true;
		q = strchr(q, '&');
	}
	return false;
}

/* ---- the tap ------------------------------------------------------------ */

static unsigned tap_begin(void *ctx, const char *stream, const char *path)
{
	struct flight *f = ctx;

	pthread_mutex_lock(&f->lock);
	unsigned x = ++f->exchanges;
	int64_t t = now_t(f);
	if (x >= f->nx) {
		size_t n = f->nx ? f->nx * 2 : 64;
		f->x = xrealloc(f->x, n * sizeof(*f->x));
		memset(f->x + f->nx, 0, (n - f->nx) * sizeof(*f->x));
		f->nx = n;
	}
	unsigned si = stream_index(f, stream);
	bool watch = query_has(path, "watch=true") || query_has(path, "watch=1");
	bool list = !watch || query_has(path, "sendInitialEvents=true");
	struct fstream *s = &f->streams[si];
	/* A further page goes with its list; a list of a stream's first is one. */
	if (list && (!query_has(path, "continue=") || !s->npins)) {
		ALLOC_GROW(s->pins, s->npins + 1, s->apins);
		s->pins[s->npins++] = (struct pin){ .x = x, .t = t, .lines = { .cur = STRBUF_INIT } };
	}
	f->x[x] = (struct xinfo){ .stream = si, .list = list, .streaming = list && watch,
				  .pinned = list };
	if (list)
		s->pins[s->npins - 1].open++;
	recording_line_begin(&f->line, t, x, stream, path);
	keep_line(f, x, t);
	pthread_mutex_unlock(&f->lock);
	return x;
}

static void tap_head(void *ctx, unsigned x, const struct http_response *resp)
{
	struct flight *f = ctx;
	struct recorded_answer a = {
		.status = resp->status,
		.content_type = resp->content_type,
		.retry_after_ms = resp->retry_after_ms,
	};

	pthread_mutex_lock(&f->lock);
	int64_t t = now_t(f);
	recording_line_status(&f->line, t, x, &a);
	keep_line(f, x, t);
	pthread_mutex_unlock(&f->lock);
}

/*
 * Whether the initial-events-end annotation is in data, or across the
 * edge between the piece before it and data: pieces are cut anywhere.
 */
static bool initial_end_in(struct xinfo *xi, const char *data, size_t len)
{
	const size_t keep = sizeof(xi->carry);
	char edge[2 * sizeof(xi->carry)];
	size_t head = len < keep ? len : keep;
	size_t n = xi->ncarry + head;
	bool found = memmem(data, len, INITIAL_END, INITIAL_END_LEN) != NULL;

	memcpy(edge, xi->carry, xi->ncarry);
	memcpy(edge + xi->ncarry, data, head);
	found = found || memmem(edge, n, INITIAL_END, INITIAL_END_LEN) != NULL;
	if (len >= keep) {
		memcpy(xi->carry, data + len - keep, keep);
		xi->ncarry = (unsigned char)keep;
	} else {
		size_t k = n < keep ? n : keep;
		memmove(xi->carry, edge + n - k, k);
		xi->ncarry = (unsigned char)k;
	}
	return found;
}

static void tap_data(void *ctx, unsigned x, const char *data, size_t len)
{
	struct flight *f = ctx;

	pthread_mutex_lock(&f->lock);
	int64_t t = now_t(f);
	struct xinfo *xi = x < f->nx ? &f->x[x] : NULL;
	bool ends = xi && xi->streaming && xi->list && initial_end_in(xi, data, len);
	raw_data(&f->line, t, x, data, len);
	keep_line(f, x, t);
	if (ends) {	/* the bookmark is the list's; what follows, the ring's */
		f->x[x].list = false;	/* not xi: keep_line() may wait, and f->x move */
		list_ended(f, x);
	}
	pthread_mutex_unlock(&f->lock);
}

static void tap_end(void *ctx, unsigned x, int rc, const char *error,
		    const struct http_response *resp, bool stopped)
{
	struct flight *f = ctx;
	struct recorded_end e = {
		.rc = rc, .error = error, .refused = resp->refused,
		.timed_out = resp->timed_out, .stopped = stopped,
	};

	pthread_mutex_lock(&f->lock);
	int64_t t = now_t(f);
	recording_line_end(&f->line, t, x, &e);
	keep_line(f, x, t);
	if (x < f->nx)
		list_ended(f, x);
	pthread_mutex_unlock(&f->lock);
}

const struct kclient_tap flight_tap = {
	.begin = tap_begin,
	.head = tap_head,
	.data = tap_data,
	.end = tap_end,
};

/* ---- triggers ----------------------------------------------------------- */

bool flight_trigger(struct flight *f, const char *reason, struct json_object *keys)
{
	bool taken = false;

	pthread_mutex_lock(&f->lock);
	if (!f->due) {
		f->reason = xstrdup(reason);
		f->keys = keys;
		keys = NULL;
		f->trigger_t = now_t(f);
		f->trigger_wall = wall_ms();
		f->due = mono_ms() + f->o.tail_ms;
		if (!f->due)
			f->due = 1;
		taken = true;
	}
	pthread_mutex_unlock(&f->lock);
	json_object_put(keys);
	return taken;
}

int64_t flight_due_ms(struct flight *f)
{
	pthread_mutex_lock(&f->lock);
	pthread_mutex_lock(&f->dump_lock);
	int64_t left = -1;
	if (f->due && !f->taken) {	/* else flight_fd() wakes the caller */
		left = f->due - mono_ms();
		if (left < 0)
			left = 0;
	}
	pthread_mutex_unlock(&f->dump_lock);
	pthread_mutex_unlock(&f->lock);
	return left;
}

size_t flight_bytes(struct flight *f)
{
	pthread_mutex_lock(&f->lock);
	size_t n = f->held;
	pthread_mutex_unlock(&f->lock);
	return n;
}

void flight_ring(struct flight *f, size_t *bytes, int64_t *oldest_age_ms)
{
	pthread_mutex_lock(&f->lock);
	const struct segs *r = &f->ring;
	*bytes = segs_bytes(r);
	*oldest_age_ms = -1;
	if (r->nr)
		*oldest_age_ms = now_t(f) - r->v[0].t_first;
	else if (r->cur.len)
		*oldest_age_ms = now_t(f) - r->cur_t_first;
	pthread_mutex_unlock(&f->lock);
}

unsigned long flight_dumps(struct flight *f)
{
	pthread_mutex_lock(&f->dump_lock);
	unsigned long n = f->dumps;
	pthread_mutex_unlock(&f->dump_lock);
	return n;
}

int flight_check_dir(const char *dir, struct errbuf *err)
{
	struct stat st;

	if (stat(dir, &st) < 0) {
		errbuf_set(err, "cannot use '%s' for --flight-dir: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		errbuf_set(err, "cannot use '%s' for --flight-dir: not a directory", dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK) < 0) {
		errbuf_set(err, "cannot use '%s' for --flight-dir: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- the dump ----------------------------------------------------------- */

/* A record's line begins {"t":T,"x":X,: its t and x. */
static bool line_tx(const char *p, size_t n, int64_t *t, unsigned *x)
{
	char *e;

	/* Not sscanf(): glibc's measures the whole rest of the buffer. */
	if (n <= 12 || strncmp(p, "{\"t\":", 5))
		return false;
	*t = strtoll(p + 5, &e, 10);
	if (strncmp(e, ",\"x\":", 5))
		return false;
	*x = (unsigned)strtoul(e + 5, NULL, 10);
	return true;
}

/*
 * A dump reads what it holds twice: once for each record's time and
 * exchange, which order it, and once to write the records in that order.
 * Between the two only the order is kept, 40 bytes a record, not the
 * records: a 64 MiB budget can hold a GiB of them as lines (5 minutes of
 * 2,000 changes/s), and a dump that made them all at once went 2 GiB
 * over the budget.  The lines are made a piece at a time: a segment of
 * the ring or of a kept list, or the records not compressed yet; a few
 * pieces' lines are kept (DUMP_CACHED), since the order goes back and
 * forth between the ring and the lists kept apart from it.  A
 * checkpoint's lines and the trigger's are texts at hand.
 *
 * A dump is taken on the caller's thread (dump_take(), under the locks:
 * what is pending folded, each segment it will read referenced, the
 * records not compressed yet copied, what orders the ring's records
 * copied from f->x), its checkpoints made text on the folder's thread
 * (ck_job()), then ordered, compressed and written on the writer's thread (writer_main()) with no flight lock
 * held: a GiB of lines takes half a minute to gzip, and neither the
 * output, the informer nor the folder may wait as long.  A piece's
 * segment reference goes once its last line is written.
 */
#define DUMP_CACHED 8

struct dpiece {
	struct segment seg;	/* its records, compressed (seg.z: the dump's reference); or */
	char *raw;	/* its records not compressed yet (raw_len, owned); or */
	const struct strbuf *text;	/* its lines, the dump's own */
	size_t raw_len;
	unsigned from;	/* text: its lines of this exchange are ordered as exchange 0 */
	bool ring;	/* the ring's: ring_keeps() chooses its records */
	size_t last;	/* the order's last line of it, once sorted (SIZE_MAX: none) */
};

/* One record of a dump: what orders it, and where its line is. */
struct dline {
	int64_t t;
	unsigned x;
	uint32_t piece;
	size_t seq;
	size_t off, len;	/* in its piece's lines */
};

/* Where each stream's dump starts: its kept list's first exchange, or its checkpoint. */
struct dstart {
	unsigned x;		/* 0: the stream has no list kept */
	bool ck;		/* from its checkpoint, whose text is the dump's */
};

/* A trigger whose dump is taken: taken from the flight, so that a new one may come meanwhile. */
struct dtrigger {
	char *reason;
	struct json_object *keys;
	int64_t t, wall;
};

/*
 * A dump taken: its own from then on, but for the flight's opts.  The
 * writer's thread alone reads it once it is queued.
 */
struct dump {
	struct dtrigger tr;
	struct strbuf trig;	/* the trigger's line */
	struct dpiece *pieces;
	size_t npieces, apieces;
	struct dline *v;
	size_t nr, alloc;
	struct strbuf *cks;	/* each stream's checkpoint as text */
	struct dck *dck;	/* [stream]: what the folder makes text (see dump_take()) */
	bool ck_due;		/* the folder has not made them text yet (dump_lock) */
	struct dstart *start;	/* [stream] */
	size_t nstreams;
	unsigned *xstream;	/* [x]: its stream, as f->x said */
	bool *cont;		/* [x]: its stream's checkpoint goes on with it */
	bool *begun;		/* [x]: a "stream" record of x is in the ring */
	size_t nx;
	struct {
		size_t piece;	/* SIZE_MAX: empty */
		uint64_t used;	/* when it was last read: the oldest goes */
		struct strbuf lines;
	} cache[DUMP_CACHED];
	uint64_t reads;
};

static uint32_t dump_piece(struct dump *d, struct dpiece p)
{
	ALLOC_GROW(d->pieces, d->npieces + 1, d->apieces);
	p.last = SIZE_MAX;
	d->pieces[d->npieces] = p;
	return (uint32_t)d->npieces++;
}

/* Piece i's lines: at hand, kept, or made now in place of the oldest kept (the writer's). */
static const struct strbuf *piece_lines(struct flight *f, struct dump *d, size_t i)
{
	const struct dpiece *p = &d->pieces[i];
	size_t old = 0;

	if (p->text)
		return p->text;
	for (size_t k = 0; k < DUMP_CACHED; k++) {
		if (d->cache[k].piece == i) {
			d->cache[k].used = ++d->reads;
			return &d->cache[k].lines;
		}
		if (d->cache[k].used < d->cache[old].used)
			old = k;
	}
	struct strbuf *lines = &d->cache[old].lines;
	strbuf_reset(lines);
	if (p->seg.z) {
		segment_unz(f->wzd, &p->seg, &f->wunz);
		records_lines(f->wunz.buf, f->wunz.len, lines);
	} else {
		records_lines(p->raw, p->raw_len, lines);
	}
	d->cache[old].piece = i;
	d->cache[old].used = ++d->reads;
	return lines;
}

/* Piece i is written: its segment, its copy and its kept lines go. */
static void piece_done(struct dump *d, size_t i)
{
	struct dpiece *p = &d->pieces[i];

	zblob_unref(p->seg.z);
	p->seg.z = NULL;
	free(p->raw);
	p->raw = NULL;
	for (size_t k = 0; k < DUMP_CACHED; k++)
		if (d->cache[k].piece == i) {
			d->cache[k].piece = SIZE_MAX;
			d->cache[k].used = 0;
			strbuf_release(&d->cache[k].lines);
		}
}

/*
 * Each line of piece i, which begins {"t":T,"x":X,, into d's order
 * (those of exchange p->from as exchange 0).  A ring piece sets
 * begun[x] for each "stream" record of x.
 */
static void dump_lines(struct flight *f, struct dump *d, uint32_t i)
{
	const struct strbuf *sb = piece_lines(f, d, i);
	const char *p = sb->buf, *end = sb->buf + sb->len;
	unsigned from = d->pieces[i].from;
	bool ring = d->pieces[i].ring;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		int64_t t;
		unsigned x;
		if (line_tx(p, n, &t, &x)) {
			if (ring && x < d->nx && memmem(p, n, "\"stream\":", 9))
				d->begun[x] = true;
			ALLOC_GROW(d->v, d->nr + 1, d->alloc);
			d->v[d->nr] = (struct dline){ .t = t, .x = x == from && from ? 0 : x,
						      .piece = i, .seq = d->nr,
						      .off = (size_t)(p - sb->buf), .len = n };
			d->nr++;
		}
		p += n;
	}
}

/* All of ss's segments and records into d's pieces (f->lock held): references, and a copy. */
static void dump_segs(struct dump *d, const struct segs *ss, bool ring)
{
	for (size_t i = 0; i < ss->nr; i++) {
		zblob_ref(ss->v[i].z);
		dump_piece(d, (struct dpiece){ .seg = ss->v[i], .ring = ring });
	}
	if (ss->cur.len)
		dump_piece(d, (struct dpiece){ .raw = memcpy(xmalloc(ss->cur.len), ss->cur.buf, ss->cur.len),
					       .raw_len = ss->cur.len, .ring = ring });
}

static int dline_cmp(const void *a, const void *b)
{
	const struct dline *l = a, *r = b;

	if (l->t != r->t)
		return l->t < r->t ? -1 : 1;
	if (l->x != r->x)
		return l->x < r->x ? -1 : 1;
	return l->seq < r->seq ? -1 : l->seq > r->seq;
}

/*
 * Whether a ring record of exchange x goes in the dump: not one of its
 * stream from before the stream's kept list, nor one of an exchange
 * whose beginning has gone, unless the stream's checkpoint goes on with
 * it.
 */
static bool ring_keeps(const struct dump *d, unsigned x)
{
	if (x >= d->nx || d->xstream[x] >= d->nstreams)
		return false;
	const struct dstart *s = &d->start[d->xstream[x]];
	if (s->ck)
		return d->cont[x] || (d->begun[x] && x > s->x);
	/* a streaming list's watch goes on in the ring */
	return s->x && (x == s->x || (d->begun[x] && x > s->x));
}

/* A stream's checkpoint to be made text once f->lock is let go of. */
struct dck {
	const struct checkpoint *ck;
	const char *stream;
	struct segs lines;	/* a based pin's (a shallow copy) */
	bool based;
	unsigned x;		/* the number its exchange has in the dump */
};

/*
 * A stream's starting point into d (both locks held): its checkpoint
 * (into ck, made text later) or its kept lists' records, from the one
 * the dump starts at.
 */
static void take_start(struct flight *f, size_t i, struct dck *ck, struct dump *d)
{
	const struct fstream *s = &f->streams[i];
	size_t k = s->npins ? start_pin(f, s) : 0;

	if (!s->npins)
		return;
	d->start[i].x = s->pins[k].x;
	d->start[i].ck = s->pins[k].ck != NULL;
	if (s->pins[k].ck) {
		/* numbers no exchange has: the lock keeps f->exchanges where it is */
		*ck = (struct dck){ .ck = s->pins[k].ck, .stream = s->name, .lines = s->pins[k].lines,
				    .based = s->pins[k].based, .x = f->exchanges + 1 + (unsigned)i };
		dump_piece(d, (struct dpiece){ .text = &d->cks[i], .from = ck->x });
	}
	for (; k < s->npins; k++)
		if (!s->pins[k].ck)	/* a based pin's lines are in its checkpoint */
			dump_segs(d, &s->pins[k].lines, false);
}

/*
 * The checkpoints made text, and which exchanges each goes on with
 * (fold_lock held, f->lock not: only fold_lock's holders change or free
 * a checkpoint, or a based pin's lines).
 */
static void take_checkpoints(struct flight *f, const struct dck *cks, struct dump *d)
{
	for (size_t i = 0; i < d->nstreams; i++) {
		if (!cks[i].ck)
			continue;
		if (cks[i].based) {
			struct checkpoint *base = base_checkpoint(f, cks[i].stream, &cks[i].lines, cks[i].ck);
			checkpoint_write(base, cks[i].x, &d->cks[i]);
			checkpoint_free(base);
		} else {
			checkpoint_write(cks[i].ck, cks[i].x, &d->cks[i]);
		}
	}
	for (size_t x = 0; x < d->nx; x++) {
		unsigned s = d->xstream[x];
		d->cont[x] = s < d->nstreams && cks[s].ck && checkpoint_continues(cks[s].ck, (unsigned)x);
	}
}

/*
 * The due dump taken (both locks held): what the recorder holds, as if
 * every fold had been done on the tap, and the trigger; its checkpoints
 * are made text by ck_job().
 */
static struct dump *dump_take(struct flight *f)
{
	struct dump *d = xcalloc(1, sizeof(*d));

	fold_all(f);
	d->tr = (struct dtrigger){ .reason = f->reason, .keys = f->keys,
				   .t = f->trigger_t, .wall = f->trigger_wall };
	f->due = 0;
	f->reason = NULL;
	f->keys = NULL;
	d->trig = (struct strbuf)STRBUF_INIT;
	for (size_t k = 0; k < DUMP_CACHED; k++)
		d->cache[k].piece = SIZE_MAX;
	d->nstreams = f->nstreams;
	d->cks = xcalloc(d->nstreams ? d->nstreams : 1, sizeof(*d->cks));
	d->start = xcalloc(d->nstreams ? d->nstreams : 1, sizeof(*d->start));
	d->dck = xcalloc(d->nstreams ? d->nstreams : 1, sizeof(*d->dck));
	for (size_t i = 0; i < d->nstreams; i++) {
		d->cks[i] = (struct strbuf)STRBUF_INIT;
		take_start(f, i, &d->dck[i], d);
	}
	dump_segs(d, &f->ring, true);
	d->nx = (size_t)f->exchanges + 1;
	d->xstream = xmalloc(d->nx * sizeof(*d->xstream));
	for (size_t x = 0; x < d->nx; x++)
		d->xstream[x] = x < f->nx ? f->x[x].stream : UINT32_MAX;
	d->cont = xcalloc(d->nx, sizeof(*d->cont));
	d->begun = xcalloc(d->nx, sizeof(*d->begun));
	d->ck_due = true;
	return d;
}

/*
 * The checkpoints of the dump taken made text, then the dump handed to
 * the writer (fold_lock and f->lock held; lets go of f->lock meanwhile
 * and takes it again).  The folder does it before it folds anything
 * more, and flight_settle() before it folds: until then no checkpoint
 * has changed since the dump was taken.
 */
static void ck_job(struct flight *f)
{
	struct dump *d = f->ckjob;

	if (!d)
		return;
	f->ckjob = NULL;
	pthread_mutex_unlock(&f->lock);
	take_checkpoints(f, d->dck, d);
	free(d->dck);
	d->dck = NULL;
	pthread_mutex_lock(&f->dump_lock);
	d->ck_due = false;
	pthread_cond_signal(&f->wjob);
	pthread_mutex_unlock(&f->dump_lock);
	pthread_mutex_lock(&f->lock);
}

/* d's order: each piece's records, the ring's chosen, and the trigger last (the writer's). */
static void dump_order(struct flight *f, struct dump *d)
{
	char when[32];
	uint32_t trig;

	for (uint32_t i = 0; i < d->npieces; i++)
		dump_lines(f, d, i);
	size_t kept = 0;
	for (size_t i = 0; i < d->nr; i++) {
		if (d->pieces[d->v[i].piece].ring && !ring_keeps(d, d->v[i].x))
			continue;
		d->v[kept] = d->v[i];
		d->v[kept].seq = kept;
		kept++;
	}
	d->nr = kept;
	format_time_rfc3339(d->tr.wall, when);
	recording_line_trigger(&d->trig, d->tr.t, d->tr.reason, when, d->tr.keys);
	trig = dump_piece(d, (struct dpiece){ .text = &d->trig });
	ALLOC_GROW(d->v, d->nr + 1, d->alloc);
	d->v[d->nr] = (struct dline){ .t = d->tr.t, .x = 0, .seq = d->nr, .len = d->trig.len,
				      .piece = trig };
	d->nr++;
	qsort(d->v, d->nr, sizeof(*d->v), dline_cmp);
	for (size_t i = 0; i < d->nr; i++)
		d->pieces[d->v[i].piece].last = i;
}

/* d's records, in order, into gz (the writer's); -1 when gz fails. */
static int dump_emit(struct flight *f, struct dump *d, gzFile gz)
{
	for (size_t i = 0; i < d->nr; i++) {
		const struct strbuf *lines = piece_lines(f, d, d->v[i].piece);
		if (gzwrite(gz, lines->buf + d->v[i].off, (unsigned)d->v[i].len) != (int)d->v[i].len)
			return -1;
		if (d->pieces[d->v[i].piece].last == i)
			piece_done(d, d->v[i].piece);
	}
	return 0;
}

static void dump_free(struct dump *d)
{
	if (!d)
		return;
	for (size_t k = 0; k < DUMP_CACHED; k++)
		strbuf_release(&d->cache[k].lines);
	for (size_t i = 0; i < d->nstreams; i++)
		strbuf_release(&d->cks[i]);
	for (size_t i = 0; i < d->npieces; i++) {
		zblob_unref(d->pieces[i].seg.z);
		free(d->pieces[i].raw);
	}
	strbuf_release(&d->trig);
	free(d->tr.reason);
	json_object_put(d->tr.keys);
	free(d->cks);
	free(d->dck);
	free(d->start);
	free(d->xstream);
	free(d->cont);
	free(d->begun);
	free(d->pieces);
	free(d->v);
	free(d);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A hidden dump that no writer holds and that has not changed for this
 * long is a dead writer's (see dump_create()): the age covers the moment
 * between a writer's mkostemp() and its flock(), and a filesystem
 * without locks.
 */
#define STALE_DUMP_S 60

/* Whether name is a hidden dump's: .kinf-REASON.rec.gz.XXXXXX. */
static bool hidden_dump_name(const char *name)
{
	const char *ext = strstr(name, ".rec.gz.");

	return !strncmp(name, ".kinf-", 6) && ext && strlen(ext) == strlen(".rec.gz.XXXXXX");
}

/* The hidden dump name in dir goes if its writer died. */
static void unlink_if_stale(int dir, const char *name, time_t now)
{
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;

	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && now - st.st_mtime >= STALE_DUMP_S &&
	    flock(fd, LOCK_EX | LOCK_NB) == 0)
		(void)unlinkat(dir, name, 0);
	close(fd);
}

/* Whether name is a dump's as dump_publish() names them: kinf-TIME-REASON[-N].rec.gz. */
static bool dump_name(const char *name)
{
	static const char stamp[] = "DDDDDDDDTDDDDDDZ-";	/* D: a digit */
	size_t n = strlen(name);

	if (strncmp(name, "kinf-", 5) || n <= 5 + strlen(stamp) + 7 ||
	    strcmp(name + n - 7, ".rec.gz"))
		return false;
	for (size_t i = 0; stamp[i]; i++) {
		char c = name[5 + i];
		if (stamp[i] == 'D' ? !isdigit((unsigned char)c) : c != stamp[i])
			return false;
	}
	for (const char *p = name + 5 + strlen(stamp); p < name + n - 7; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '-')
			return false;
	return true;
}

/*
 * A dump --flight-keep may remove: one named as kinf names them, a
 * regular file (no link) of this user.  In a folder others share, what
 * they planted (a later time, another owner) is never counted or removed.
 */
static bool own_dump(int dir, const char *name)
{
	struct stat st;

	return dump_name(name) && !fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISREG(st.st_mode) && st.st_uid == geteuid();
}

/*
 * In one pass over dir: the hidden dumps whose writers died go, and with
 * keep (--flight-keep; 0: all kept) the oldest of this user's dumps
 * beyond it (names sort by their time).
 */
static void prune(const char *dir, unsigned keep)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t nr = 0, alloc = 0;
	struct dirent *e;
	time_t now = time(NULL);

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (hidden_dump_name(e->d_name))
			unlink_if_stale(dirfd(d), e->d_name, now);
		if (!keep || !own_dump(dirfd(d), e->d_name))
			continue;
		ALLOC_GROW(names, nr + 1, alloc);
		names[nr++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (nr)		/* qsort(NULL, 0, ...) is undefined */
		qsort(names, nr, sizeof(*names), name_cmp);
	for (size_t i = 0; i < nr; i++) {
		if (i + keep < nr) {
			char *p = xasprintf("%s/%s", dir, names[i]);
			unlink(p);
			free(p);
		}
		free(names[i]);
	}
	free(names);
}

/*
 * A dump is written under a hidden name (dir/.kinf-REASON.rec.gz.XXXXXX,
 * 0600) and takes its own, dir/kinf-TIME-REASON[-N].rec.gz, only once it
 * is complete: writing takes seconds, and what watches the folder (a
 * sidecar that ships dumps, --flight-keep's count) sees none half
 * written.  Its writer holds a lock on it (flock) until it is closed, so
 * that the hidden file of a writer that died (a crash, a kill -9) can be
 * told from one being written: see prune().  The fd, with *tmp; or
 * -1 with err.
 */
static int dump_create(const struct flight *f, const struct dtrigger *tr, char **tmp,
		       struct errbuf *err)
{
	char *p = xasprintf("%s/.kinf-%s.rec.gz.XXXXXX", f->o.dir, tr->reason);
	int fd = mkostemp(p, O_CLOEXEC);	/* 0600 */

	if (fd < 0) {
		errbuf_set(err, "cannot create a dump in '%s': %s", f->o.dir, strerror(errno));
		free(p);
		return -1;
	}
	(void)flock(fd, LOCK_EX);	/* refused (a filesystem without locks): the age alone */
	*tmp = p;
	return fd;
}

/*
 * The complete dump at tmp given its name, never one a dump has already
 * (link() does not replace; where the filesystem has no hard links, a
 * name found free is renamed to); 0 with *path, or -1 with err.
 */
static int dump_publish(const struct flight *f, const struct dtrigger *tr, const char *tmp,
			char **path, struct errbuf *err)
{
	time_t secs = (time_t)(tr->wall / 1000);
	struct tm tm;
	char stamp[32];

	gmtime_r(&secs, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (int n = 0; n < 100; n++) {
		char *p = n ? xasprintf("%s/kinf-%s-%s-%d.rec.gz", f->o.dir, stamp, tr->reason, n)
			    : xasprintf("%s/kinf-%s-%s.rec.gz", f->o.dir, stamp, tr->reason);
		int rc = link(tmp, p);
		if (rc == 0) {
			unlink(tmp);
		} else if (errno != EEXIST) {	/* no hard links here: a name found free */
			if (access(p, F_OK) == 0)
				errno = EEXIST;
			else if (errno == ENOENT)
				rc = rename(tmp, p);
		}
		if (rc == 0) {
			*path = p;
			return 0;
		}
		if (errno != EEXIST) {
			errbuf_set(err, "cannot name '%s': %s", p, strerror(errno));
			free(p);
			return -1;
		}
		free(p);
	}
	errbuf_set(err, "cannot name a dump in '%s': too many of this second", f->o.dir);
	return -1;
}

/* Writes d (the writer's thread, no flight lock held); 0 with *path, or -1 with err. */
static int dump_write(struct flight *f, struct dump *d, char **path, struct errbuf *err)
{
	struct strbuf head = STRBUF_INIT;
	char *tmp = NULL;
	int ret = -1;

	*path = NULL;
	int fd = dump_create(f, &d->tr, &tmp, err);
	if (fd < 0)
		return -1;
	/* "started": the wall time of t = 0, the recorder's start */
	struct recording_info info = *f->o.info;
	info.started_wall_ms = d->tr.wall - d->tr.t;
	recording_line_header(&head, &info);
	dump_order(f, d);
	gzFile gz = gzdopen(fd, "wb6");
	if (!gz) {
		close(fd);
		errbuf_set(err, "cannot write '%s': out of memory", tmp);
		goto out;
	}
	if (gzwrite(gz, head.buf, (unsigned)head.len) != (int)head.len || dump_emit(f, d, gz) < 0) {
		errbuf_set(err, "cannot write '%s': %s", tmp, strerror(errno));
		gzclose(gz);
		goto out;
	}
	if (gzclose(gz) != Z_OK) {
		errbuf_set(err, "cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	ret = dump_publish(f, &d->tr, tmp, path, err);
out:
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	strbuf_release(&head);
	return ret;
}

/* The writer: each dump taken, written in turn.  See DESIGN. */
static void *writer_main(void *arg)
{
	struct flight *f = arg;

	thread_name("kinf-fl-writer");
#ifdef __linux__
	(void)setpriority(PRIO_PROCESS, (id_t)gettid(), WRITER_NICE);
#endif
	prune(f->o.dir, 0);	/* what a crash left, before any dump of ours */
	pthread_mutex_lock(&f->dump_lock);
	for (;;) {
		/* a dump taken waits for its checkpoints' texts, also at stop */
		while (f->taken ? f->taken->ck_due : !f->wstop)
			pthread_cond_wait(&f->wjob, &f->dump_lock);
		struct dump *d = f->taken;
		if (!d)	/* stopped, nothing taken left to write */
			break;
		f->taken = NULL;
		f->writing = true;
		pthread_cond_broadcast(&f->wstate);
		pthread_mutex_unlock(&f->dump_lock);
		if (f->o.hold)
			f->o.hold(f->o.hold_ctx);
		struct dresult *r = xcalloc(1, sizeof(*r));
		if (dump_write(f, d, &r->path, &r->err) == 0) {
			prune(f->o.dir, f->o.keep);
			r->reason = d->tr.reason;
			d->tr.reason = NULL;
		}
		dump_free(d);
		pthread_mutex_lock(&f->dump_lock);
		struct dresult **tail = &f->results;
		while (*tail)
			tail = &(*tail)->next;
		*tail = r;
		if (r->path)
			f->dumps++;
		f->writing = false;
		pthread_cond_broadcast(&f->wstate);
		/* full: 64 Ki results unread, and the caller reads them anyway */
		(void)!write(f->wake[1], "", 1);
	}
	pthread_mutex_unlock(&f->dump_lock);
	return NULL;
}

/* The due dump taken and handed to the writer, unless a taken one still waits for it. */
static void dump_start(struct flight *f)
{
	pthread_mutex_lock(&f->fold_lock);
	pthread_mutex_lock(&f->lock);
	pthread_mutex_lock(&f->dump_lock);
	/* only the writer empties f->taken meanwhile: one thread takes dumps */
	bool room = !f->taken;
	pthread_mutex_unlock(&f->dump_lock);
	if (!f->due || !room) {
		pthread_mutex_unlock(&f->lock);
		pthread_mutex_unlock(&f->fold_lock);
		return;
	}
	struct dump *d = dump_take(f);
	/* the writer waits for d->ck_due; the folder makes the texts first */
	pthread_mutex_lock(&f->dump_lock);
	f->taken = d;
	pthread_mutex_unlock(&f->dump_lock);
	f->ckjob = d;
	pthread_cond_signal(&f->work);
	pthread_mutex_unlock(&f->lock);
	pthread_mutex_unlock(&f->fold_lock);
}

int flight_dump_due(struct flight *f, bool now, char **path, char **reason,
		    struct errbuf *err)
{
	char byte;

	*path = *reason = NULL;
	/* not fold_lock to look: a fold may hold it for a while */
	pthread_mutex_lock(&f->lock);
	bool due = f->due && (now || mono_ms() >= f->due);
	pthread_mutex_unlock(&f->lock);
	pthread_mutex_lock(&f->dump_lock);
	while (due && now && f->taken)	/* kinf is ending: the writer takes the one waiting first */
		pthread_cond_wait(&f->wstate, &f->dump_lock);
	pthread_mutex_unlock(&f->dump_lock);
	if (due)
		dump_start(f);
	pthread_mutex_lock(&f->dump_lock);
	while (now && !f->results && (f->taken || f->writing))
		pthread_cond_wait(&f->wstate, &f->dump_lock);
	struct dresult *r = f->results;
	if (r) {	/* its byte: flight_fd() stays readable while results are left */
		f->results = r->next;
		(void)!read(f->wake[0], &byte, 1);
	}
	pthread_mutex_unlock(&f->dump_lock);
	if (!r)
		return 0;
	int ret = r->path ? 1 : -1;
	if (r->path) {
		*path = r->path;
		*reason = r->reason;
	} else {
		*err = r->err;
	}
	free(r);
	return ret;
}

int flight_fd(struct flight *f)
{
	return f->wake[0];
}

void flight_settle(struct flight *f)
{
	pthread_mutex_lock(&f->fold_lock);
	pthread_mutex_lock(&f->lock);
	ck_job(f);
	fold_all(f);
	pthread_mutex_unlock(&f->lock);
	pthread_mutex_unlock(&f->fold_lock);
}
