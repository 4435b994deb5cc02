/*
 * flight.c — the flight recorder: a ring of compressed records, the
 * informers' snapshots as each stream's starting point, and the dumps.
 * See the header.
 *
 * DESIGN (threads): the tap runs on every reflector thread at once, the
 * checkpoint sink on every processor thread; the consumer's thread
 * triggers and takes dumps; the flight's own thread, the writer
 * (writer_main()), writes the dumps taken.
 *
 * Two locks, taken in this order:
 *   - f->lock guards the recorder: the ring, the streams and their
 *     snapshots, what it knows of each exchange, the trigger.  The tap
 *     holds it while it appends a record (and seals and lets go of
 *     segments), a processor while it hands in a snapshot it has made
 *     (listed and sorted with no lock), the consumer while it takes a
 *     dump: references to the segments and snapshots it will read, a
 *     copy of the records not compressed yet and of what orders them;
 *   - f->dump_lock guards what the writer shares: the dump taken and not
 *     begun (f->taken: at most one), whether one is being written, the
 *     results, the count.  The writer takes only this one, and never
 *     holds it while it writes.
 * A segment and a snapshot are counted (struct zblob, struct snap):
 * whoever lets go of the last reference frees it, so that the ring may
 * let go of what a dump still reads.  The ring's references to the
 * snapshots it lets go of go to the writer (unlock(), bury()), which
 * lets go of them, and so of their objects, off the informer's threads.  Neither
 * changes once made.  The writer orders, turns into lines, compresses
 * and writes with no flight lock held (a GiB of lines takes half a
 * minute), at a lower priority (WRITER_NICE), so that on a busy machine
 * the informer's threads get the CPU first.  It tells the consumer that
 * a dump ended through a pipe (flight_fd()), a byte for each, read as
 * flight_dump_due() hands the dump back.  A dump being taken clears the
 * trigger, so one that comes while it is written is the next dump's;
 * the consumer takes that one while the writer is busy, but no third.
 *
 * A processor wakes for a snapshot through the wake() its informer gave
 * (fifo_wake()), which takes the FIFO's lock: the tap asks for it after
 * it let go of f->lock.  No thread of the informer's waits on the writer.
 */
#include "informer/flight.h"

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

#include "cluster/http.h"
#include "cluster/recording.h"
#include "informer/informer.h"
#include "lib/keysort.h"
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
 * A stream is asked for a snapshot once its records since its newest
 * one span this share of the window, or come to this share of the
 * budget (as they came: about 30 times what they take compressed).
 */
#define SNAP_SHARE 8
/*
 * Over the budget by this share of it, the ring lets go of records no
 * snapshot covers yet (a processor that never drains): their streams
 * lose their starting point until their next snapshot.
 */
#define GRACE_SHARE 4
/*
 * The writer's niceness: a dump's gzip (half a minute of CPU for a full
 * 64 MiB recorder) takes the CPU from none of the informer's threads.
 * A dump may wait; what the informer sees may not.
 */
#define WRITER_NICE 19

/*
 * Where a record lies in its exchange: x, and the bytes of its data up to
 * the record's end (a begin or a head: 0; an end: FIFO_PLACE_END).
 * Records of one stream come in this order, and a snapshot taken at a
 * place holds what every record up to it made.
 */
struct place {
	uint64_t x, off;
};

static int place_cmp(struct place a, struct place b)
{
	if (a.x != b.x)
		return a.x < b.x ? -1 : 1;
	return a.off < b.off ? -1 : a.off > b.off;
}

/* A stream's last record in a segment: what the segment's going lets go of. */
struct segsum {
	unsigned stream;
	struct place last;
};

struct segment {
	int64_t t_first, t_last;	/* the times of its first and last records */
	uint64_t x_lo;		/* the first exchange it has records of */
	unsigned char *z;	/* zstd, one frame: a zblob's bytes */
	size_t zlen, rawlen;
	struct segsum *sum;	/* one per stream it has records of (the ring's) */
	size_t nsum;
};

/*
 * A segment's bytes, counted: the flight holds one reference while the
 * segment is its own, and a dump being written one for each segment it
 * reads (see DESIGN).  The bytes never change once compressed.
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

/* The ring: records compressed in segments, and those not compressed yet. */
struct segs {
	struct segment *v;	/* oldest first */
	size_t nr, alloc;
	struct strbuf cur;
	int64_t cur_t_first, cur_t_last;
	uint64_t cur_x_lo;
	struct segsum *cur_sum;
	size_t cur_nsum, cur_asum;
};

/*
 * An informer's Indexer at a place of its stream (flight_checkpoints):
 * every object's pointer, a reference each, sorted by address.  Counted
 * as a segment is (the stream's reference, and a dump's).
 */
struct snap {
	atomic_uint refs;
	struct place at;
	char rv[RV_SIZE];
	int64_t t;		/* when it came */
	struct kobj **objs;
	size_t n;
	/* What its stream's list was when it came: how a dump writes it. */
	bool streaming;
	char *list_path;
	/* The bytes of the objects the next snapshot lacks (0 until it comes). */
	size_t alone;
};

static void snap_unref(struct snap *sn)
{
	if (!sn || atomic_fetch_sub_explicit(&sn->refs, 1, memory_order_acq_rel) != 1)
		return;
	for (size_t i = 0; i < sn->n; i++)
		kobj_unref(sn->objs[i]);
	free(sn->objs);
	free(sn->list_path);
	free(sn);
}

/* What the budget counts of a snapshot. */
static size_t snap_bytes(const struct snap *sn)
{
	return sn->n * sizeof(*sn->objs) + sn->alone;
}

/*
 * What the flight knows of an exchange, from its begin until it has ended
 * and the ring holds none of its records (trim()).
 */
struct xinfo {
	unsigned stream;	/* index in f->streams; UINT32_MAX: none */
	bool live;		/* begun, not ended */
	uint64_t bytes;		/* of data so far */
	char *path;
	/* its head, for a dump that begins it again after a snapshot */
	long status;
	char *content_type;
	int64_t retry_after_ms;
};

/*
 * A stream: its snapshots, oldest first, each one a dump may start from
 * (no record after its place has gone), and what asks for the next.
 */
struct fstream {
	struct flight *f;
	char *name;
	char *api_version, *kind;	/* its objects', for a reconstructed list */
	struct snap **snaps;
	size_t nsnaps, asnaps;
	/* its last record the ring let go of; x 0: none */
	struct place gone;
	/* the ring let go of records no snapshot covered: no start until the next */
	bool lost;
	/* Since its newest snapshot (or its first record): its records' bytes, and when. */
	size_t since;
	int64_t since_t;
	bool last_list_streaming;
	char *last_list_path;
	/* The sink's: the processor's wake-up (NULL: no informer), and whether it is asked. */
	void (*wake)(void *arg);
	void *wake_arg;
	atomic_bool want;
};

/* A dump written, or not, for flight_dump_due() to hand to the caller. */
struct dresult {
	char *path, *reason;	/* path NULL: not written, err says why */
	struct errbuf err;
	struct dresult *next;
};

struct flight {
	pthread_mutex_t lock;
	struct flight_opts o;
	int64_t started;	/* monotonic */
	unsigned exchanges;
	struct xinfo *x;	/* [x - x0]: the exchanges from x0 on (xinfo_of()) */
	size_t nx;
	uint64_t x0;
	struct fstream **streams;
	size_t nstreams, astreams;
	struct segs ring;
	size_t held;		/* the ring's segments (zlen), its records not compressed, the snapshots */
	ZSTD_CCtx *zc;
	struct strbuf line;	/* scratch: a record */
	/* Snapshots the ring let go of, for the writer to free (unlock()). */
	struct snap **dead;
	size_t ndead, adead;
	/* The due dump. */
	char *reason;
	struct json_object *keys;
	int64_t trigger_t, trigger_wall, due;	/* due: monotonic; 0: none */
	/* The writer's thread (writer_main()) and what it shares, under dump_lock. */
	pthread_t writer;
	bool writer_started;
	pthread_mutex_t dump_lock;	/* after lock; see DESIGN */
	pthread_cond_t wjob;	/* the writer's: a dump taken, or stop */
	pthread_cond_t wstate;	/* the writer took a dump, or ended one */
	struct dump *taken;	/* taken, not begun by the writer yet */
	bool writing, wstop;
	struct dresult *results;	/* written (or not), oldest first, for flight_dump_due() */
	struct snap **wdead;	/* for the writer to let go of (bury()) */
	size_t nwdead, awdead;
	int wake[2];		/* a byte for each of results: flight_fd() */
	/* The writer's own (no lock). */
	ZSTD_DCtx *wzd;
	struct strbuf wunz;	/* scratch: a segment uncompressed */
};

static void *writer_main(void *arg);

struct flight *flight_new(const struct flight_opts *opts, struct errbuf *err)
{
	struct flight *f = xcalloc(1, sizeof(*f));

	pthread_mutex_init(&f->lock, NULL);
	f->o = *opts;
	f->started = mono_ms();
	f->ring.cur = (struct strbuf)STRBUF_INIT;
	f->line = (struct strbuf)STRBUF_INIT;
	f->wunz = (struct strbuf)STRBUF_INIT;
	f->zc = ZSTD_createCCtx();
	f->wzd = ZSTD_createDCtx();
	if (!f->zc || !f->wzd)
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
	int rc = pthread_create(&f->writer, NULL, writer_main, f);
	if (rc) {
		errbuf_set(err, "flight recorder: cannot start a thread: %s", strerror(rc));
		flight_free(f);
		return NULL;
	}
	f->writer_started = true;
	return f;
}

static void stream_free(struct fstream *s)
{
	for (size_t i = 0; i < s->nsnaps; i++)
		snap_unref(s->snaps[i]);
	free(s->snaps);
	free(s->name);
	free(s->api_version);
	free(s->kind);
	free(s->last_list_path);
	free(s);
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
	if (f->writer_started)
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
	for (size_t i = 0; i < f->ring.nr; i++) {
		zblob_unref(f->ring.v[i].z);
		free(f->ring.v[i].sum);
	}
	free(f->ring.v);
	free(f->ring.cur_sum);
	strbuf_release(&f->ring.cur);
	for (size_t i = 0; i < f->nstreams; i++)
		stream_free(f->streams[i]);
	free(f->streams);
	free(f->dead);
	for (size_t i = 0; i < f->nwdead; i++)
		snap_unref(f->wdead[i]);
	free(f->wdead);
	for (size_t i = 0; i < f->nx; i++) {
		free(f->x[i].path);
		free(f->x[i].content_type);
	}
	free(f->x);
	ZSTD_freeCCtx(f->zc);
	ZSTD_freeDCtx(f->wzd);
	strbuf_release(&f->wunz);
	strbuf_release(&f->line);
	free(f->reason);
	json_object_put(f->keys);
	pthread_mutex_destroy(&f->lock);
	pthread_mutex_destroy(&f->dump_lock);
	pthread_cond_destroy(&f->wjob);
	pthread_cond_destroy(&f->wstate);
	free(f);
}

/*
 * Lets go of f->lock, and hands the snapshots the ring let go of
 * meanwhile to the writer, which lets go of their objects: 100,000
 * references, scattered in memory, take milliseconds that neither a
 * reflector nor a processor is to spend.
 */
static void unlock(struct flight *f)
{
	if (!f->ndead) {
		pthread_mutex_unlock(&f->lock);
		return;
	}
	pthread_mutex_lock(&f->dump_lock);
	for (size_t i = 0; i < f->ndead; i++) {
		ALLOC_GROW(f->wdead, f->nwdead + 1, f->awdead);
		f->wdead[f->nwdead++] = f->dead[i];
	}
	pthread_cond_signal(&f->wjob);
	pthread_mutex_unlock(&f->dump_lock);
	f->ndead = 0;
	pthread_mutex_unlock(&f->lock);
}

/* The writer's: the snapshots handed to it let go of (dump_lock held, let go of meanwhile). */
static void bury(struct flight *f)
{
	while (f->nwdead) {
		struct snap **v = f->wdead;
		size_t n = f->nwdead;
		f->wdead = NULL;
		f->nwdead = f->awdead = 0;
		pthread_mutex_unlock(&f->dump_lock);
		for (size_t i = 0; i < n; i++)
			snap_unref(v[i]);
		free(v);
		pthread_mutex_lock(&f->dump_lock);
	}
}

/* ---- the ring (f->lock held) -------------------------------------------- */

static int64_t now_t(const struct flight *f)
{
	return mono_ms() - f->started;
}

/* The ring's records not compressed yet become its newest segment. */
static void ring_seal(struct flight *f)
{
	struct segs *ss = &f->ring;

	if (!ss->cur.len)
		return;
	size_t bound = ZSTD_compressBound(ss->cur.len);
	struct segment seg = { .t_first = ss->cur_t_first, .t_last = ss->cur_t_last,
			       .x_lo = ss->cur_x_lo, .rawlen = ss->cur.len,
			       .sum = ss->cur_sum, .nsum = ss->cur_nsum };
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
	ss->cur_sum = NULL;
	ss->cur_nsum = ss->cur_asum = 0;
}

/* The open segment's last record of stream si is at p. */
static void sum_note(struct segs *ss, unsigned si, struct place p)
{
	for (size_t i = 0; i < ss->cur_nsum; i++)
		if (ss->cur_sum[i].stream == si) {
			ss->cur_sum[i].last = p;
			return;
		}
	ALLOC_GROW(ss->cur_sum, ss->cur_nsum + 1, ss->cur_asum);
	ss->cur_sum[ss->cur_nsum++] = (struct segsum){ .stream = si, .last = p };
}

/*
 * f->line, a record at t, of stream si (UINT32_MAX: none) lying at `at`,
 * onto the ring; a segment is sealed when it reaches SEGMENT_RAW bytes
 * or an eighth of the budget, or spans an eighth of the window (so that
 * short windows can let go).
 */
static void ring_add(struct flight *f, int64_t t, unsigned si, struct place at)
{
	struct segs *ss = &f->ring;
	size_t most = f->o.budget / SEGMENTS_MIN;

	if (most > SEGMENT_RAW)
		most = SEGMENT_RAW;
	if (ss->cur.len && t - ss->cur_t_first >= f->o.window_ms / SEGMENTS_MIN)
		ring_seal(f);
	if (!ss->cur.len) {
		ss->cur_t_first = t;
		ss->cur_x_lo = at.x;
	} else if (at.x < ss->cur_x_lo) {
		ss->cur_x_lo = at.x;
	}
	if (si != UINT32_MAX)
		sum_note(ss, si, at);
	strbuf_add(&ss->cur, f->line.buf, f->line.len);
	f->held += f->line.len;
	ss->cur_t_last = t;
	strbuf_reset(&f->line);
	if (ss->cur.len >= most)
		ring_seal(f);
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
/*
 * An end record is kept as its line after this byte: its place is the
 * exchange's end, a begin's and a head's its start.
 */
#define RAW_END '\002'

struct raw_head {
	int64_t t;
	uint64_t off;		/* the exchange's bytes of data before it */
	unsigned x;
	size_t len;
};

static void raw_data(struct strbuf *sb, int64_t t, unsigned x, uint64_t off, const char *data,
		     size_t len)
{
	struct raw_head h;

	memset(&h, 0, sizeof(h));	/* its padding is compressed too */
	h.t = t;
	h.off = off;
	h.x = x;
	h.len = len;
	strbuf_addch(sb, RAW_DATA);
	strbuf_add(sb, &h, sizeof(h));
	strbuf_add(sb, data, len);
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

/* ---- snapshots and letting go (f->lock held) ---------------------------- */

static struct snap *newest(const struct fstream *s)
{
	return s->nsnaps ? s->snaps[s->nsnaps - 1] : NULL;
}

/* Whether s's newest snapshot holds what its records up to p made. */
static bool covered(const struct fstream *s, struct place p)
{
	const struct snap *sn = newest(s);

	return sn && place_cmp(p, sn->at) <= 0;
}

/*
 * Asks s's processor for a snapshot, unless asked already; returns s to
 * be woken once f->lock is let go of (NULL: nothing to do).
 */
static struct fstream *ask(struct fstream *s)
{
	if (!s->wake || atomic_exchange(&s->want, true))
		return NULL;
	return s;
}

static void wake(struct fstream *s)
{
	if (s)
		s->wake(s->wake_arg);
}

static struct xinfo *xinfo_of(struct flight *f, uint64_t x)
{
	return x >= f->x0 && x - f->x0 < f->nx ? &f->x[x - f->x0] : NULL;
}

/*
 * Lets go of the exchanges that have ended and have no record left in
 * the ring, up to the first that has either: what a long run keeps of
 * its exchanges is what its window holds (a snapshot inside an exchange
 * goes before its last record does, let_go_oldest()).
 */
static void trim(struct flight *f)
{
	uint64_t lo = (uint64_t)f->exchanges + 1;
	size_t k = 0;

	for (size_t i = 0; i < f->ring.nr; i++)
		if (f->ring.v[i].x_lo < lo)
			lo = f->ring.v[i].x_lo;
	if (f->ring.cur.len && f->ring.cur_x_lo < lo)
		lo = f->ring.cur_x_lo;
	while (k < f->nx && f->x0 + k < lo && !f->x[k].live) {
		free(f->x[k].path);
		free(f->x[k].content_type);
		k++;
	}
	if (!k)
		return;
	memmove(f->x, f->x + k, (f->nx - k) * sizeof(*f->x));
	memset(f->x + f->nx - k, 0, k * sizeof(*f->x));
	f->x0 += k;
}

/*
 * The ring's oldest segment goes: each stream's snapshots that records
 * of it came after go too (a dump could not start from them), all of
 * them when it had none after.
 */
static void let_go_oldest(struct flight *f)
{
	struct segment *seg = &f->ring.v[0];

	for (size_t i = 0; i < seg->nsum; i++) {
		struct fstream *s = f->streams[seg->sum[i].stream];
		if (place_cmp(seg->sum[i].last, s->gone) > 0)
			s->gone = seg->sum[i].last;
		if (!covered(s, s->gone))
			s->lost = true;
		size_t k = 0;
		while (k < s->nsnaps && (s->lost || place_cmp(s->snaps[k]->at, s->gone) < 0)) {
			f->held -= snap_bytes(s->snaps[k]);
			ALLOC_GROW(f->dead, f->ndead + 1, f->adead);
			f->dead[f->ndead++] = s->snaps[k];
			k++;
		}
		if (k) {
			memmove(s->snaps, s->snaps + k, (s->nsnaps - k) * sizeof(*s->snaps));
			s->nsnaps -= k;
		}
	}
	f->held -= seg->zlen;
	zblob_unref(seg->z);
	free(seg->sum);
	memmove(f->ring.v, f->ring.v + 1, (f->ring.nr - 1) * sizeof(*f->ring.v));
	f->ring.nr--;
	trim(f);
}

/*
 * The oldest segments go while over the budget or out of the window,
 * once snapshots cover their records; past the grace, whether or not.
 * Returns a stream to wake for the snapshot that would let one go.
 */
static struct fstream *evict(struct flight *f)
{
	int64_t horizon = now_t(f) - f->o.window_ms;
	size_t grace = f->o.budget + f->o.budget / GRACE_SHARE;
	struct fstream *asked = NULL;

	while (f->ring.nr && (f->held > f->o.budget || f->ring.v[0].t_last < horizon)) {
		const struct segment *seg = &f->ring.v[0];
		bool all = true;
		for (size_t i = 0; i < seg->nsum; i++) {
			struct fstream *s = f->streams[seg->sum[i].stream];
			if (covered(s, seg->sum[i].last))
				continue;
			all = false;
			if (!asked)
				asked = ask(s);
		}
		if (!all && f->held <= grace)
			break;
		let_go_oldest(f);
	}
	return asked;
}

/*
 * f->line, a record of exchange x lying at `at` in it, into the ring;
 * then lets go of f->lock (unlock()) and wakes a stream it asks for a
 * snapshot.  Every tap ends so.
 */
static void keep_line(struct flight *f, unsigned x, struct place at, int64_t t)
{
	struct xinfo *xi = xinfo_of(f, x);
	struct fstream *s = xi && xi->stream < f->nstreams ? f->streams[xi->stream] : NULL;
	struct fstream *asked = NULL;

	if (s) {
		s->since += f->line.len;
		if (!s->since_t)
			s->since_t = t ? t : 1;
		if (s->since > f->o.budget / SNAP_SHARE ||
		    t - s->since_t >= f->o.window_ms / SNAP_SHARE)
			asked = ask(s);
	}
	ring_add(f, t, s ? xi->stream : UINT32_MAX, at);
	struct fstream *more = evict(f);
	unlock(f);
	wake(asked ? asked : more);
}

static unsigned stream_index(struct flight *f, const char *name)
{
	for (size_t i = 0; i < f->nstreams; i++)
		if (!strcmp(f->streams[i]->name, name))
			return (unsigned)i;
	ALLOC_GROW(f->streams, f->nstreams + 1, f->astreams);
	struct fstream *s = xcalloc(1, sizeof(*s));
	s->f = f;
	s->name = xstrdup(name);
	f->streams[f->nstreams] = s;
	return (unsigned)f->nstreams++;
}

/* ---- the tap ------------------------------------------------------------ */

static unsigned tap_begin(void *ctx, const char *stream, const char *path)
{
	struct flight *f = ctx;

	pthread_mutex_lock(&f->lock);
	unsigned x = ++f->exchanges;
	int64_t t = now_t(f);
	if (x - f->x0 >= f->nx) {
		size_t n = f->nx ? f->nx * 2 : 64;
		f->x = xrealloc(f->x, n * sizeof(*f->x));
		memset(f->x + f->nx, 0, (n - f->nx) * sizeof(*f->x));
		f->nx = n;
	}
	unsigned si = stream_index(f, stream);
	struct fstream *s = f->streams[si];
	enum request_kind kind = request_kind_of(path);
	bool streaming = kind == REQUEST_STREAMING_LIST;
	/* a list's first page, or a streaming list: what its snapshots came from */
	if (streaming || (kind == REQUEST_LIST && !strstr(path, "?continue=") &&
			  !strstr(path, "&continue="))) {
		s->last_list_streaming = streaming;
		free(s->last_list_path);
		s->last_list_path = xstrdup(path);
	}
	f->x[x - f->x0] = (struct xinfo){ .stream = si, .live = true, .path = xstrdup(path),
					  .retry_after_ms = -1 };
	recording_line_begin(&f->line, t, x, stream, path);
	keep_line(f, x, (struct place){ x, 0 }, t);
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
	struct xinfo *xi = xinfo_of(f, x);
	if (xi) {
		xi->status = resp->status;
		free(xi->content_type);
		xi->content_type = xstrdup(resp->content_type);
		xi->retry_after_ms = resp->retry_after_ms;
	}
	recording_line_status(&f->line, t, x, &a);
	keep_line(f, x, (struct place){ x, 0 }, t);
}

static void tap_data(void *ctx, unsigned x, const char *data, size_t len)
{
	struct flight *f = ctx;

	pthread_mutex_lock(&f->lock);
	int64_t t = now_t(f);
	uint64_t off = 0;
	struct xinfo *xi = xinfo_of(f, x);
	if (xi) {
		off = xi->bytes;
		xi->bytes += len;
	}
	raw_data(&f->line, t, x, off, data, len);
	keep_line(f, x, (struct place){ x, off + len }, t);
}

static void tap_end(void *ctx, unsigned x, int rc, const char *error,
		    const struct http_response *resp, bool stopped)
{
	struct flight *f = ctx;
	struct recorded_end e = recorded_end_of(rc, error, resp, stopped);

	pthread_mutex_lock(&f->lock);
	int64_t t = now_t(f);
	struct xinfo *xi = xinfo_of(f, x);
	if (xi)
		xi->live = false;
	strbuf_addch(&f->line, RAW_END);
	recording_line_end(&f->line, t, x, &e);
	keep_line(f, x, (struct place){ x, FIFO_PLACE_END }, t);
}

const struct kclient_tap flight_tap = {
	.begin = tap_begin,
	.head = tap_head,
	.data = tap_data,
	.end = tap_end,
};

/* ---- the checkpoint sink ------------------------------------------------ */

static void *sink_open(void *ctx, const char *stream, const char *api_version, const char *kind,
		       void (*wake_fn)(void *arg), void *arg)
{
	struct flight *f = ctx;

	pthread_mutex_lock(&f->lock);
	unsigned si = stream_index(f, stream);
	struct fstream *s = f->streams[si];
	free(s->api_version);
	free(s->kind);
	s->api_version = xstrdup(api_version);
	s->kind = xstrdup(kind);
	s->wake = wake_fn;
	s->wake_arg = arg;
	pthread_mutex_unlock(&f->lock);
	return s;
}

static bool sink_wanted(void *h)
{
	struct fstream *s = h;

	return atomic_load_explicit(&s->want, memory_order_relaxed);
}

/*
 * v[0, n) sorted by address, for alone_bytes(): a radix sort, as qsort
 * took 4 ms of the processor's time at 100,000 objects.
 */
static void sort_by_address(struct kobj **v, size_t n)
{
	struct keysort_item *a = xmalloc(2 * (n ? n : 1) * sizeof(*a));

	for (size_t i = 0; i < n; i++)
		a[i] = (struct keysort_item){ .key = (uintptr_t)v[i], .p = v[i] };
	keysort_radix(a, a + n, n);
	for (size_t i = 0; i < n; i++)
		v[i] = a[i].p;
	free(a);
}

/* The bytes of the objects of old that new lacks: both sorted by address. */
static size_t alone_bytes(const struct snap *old, const struct snap *new)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; i < old->n; i++) {
		while (k < new->n && (uintptr_t)new->objs[k] < (uintptr_t)old->objs[i])
			k++;
		if (k == new->n || new->objs[k] != old->objs[i])
			n += kobj_bytes(old->objs[i]);
	}
	return n;
}

static void sink_take(void *h, const struct fifo_place *at, struct kobj_list *objs)
{
	struct fstream *s = h;
	struct flight *f = s->f;
	struct snap *sn = xcalloc(1, sizeof(*sn));

	atomic_init(&sn->refs, 1);
	sn->at = (struct place){ at->x, at->off };
	memcpy(sn->rv, at->rv, sizeof(sn->rv));
	sn->objs = objs->v;
	sn->n = objs->nr;
	*objs = (struct kobj_list){ 0 };
	sort_by_address(sn->objs, sn->n);

	pthread_mutex_lock(&f->lock);
	atomic_store(&s->want, false);
	/* records after its place went while it was made: no dump starts there */
	if (s->gone.x && place_cmp(sn->at, s->gone) < 0) {
		unlock(f);
		snap_unref(sn);
		return;
	}
	sn->t = now_t(f);
	sn->streaming = s->last_list_streaming;
	sn->list_path = s->last_list_path ? xstrdup(s->last_list_path) : NULL;
	struct snap *prev = newest(s);
	if (prev) {
		prev->alone = alone_bytes(prev, sn);
		f->held += prev->alone;
	}
	ALLOC_GROW(s->snaps, s->nsnaps + 1, s->asnaps);
	s->snaps[s->nsnaps++] = sn;
	f->held += snap_bytes(sn);
	s->lost = false;
	s->since = 0;
	s->since_t = sn->t;
	struct fstream *asked = evict(f);
	unlock(f);
	if (asked != s)
		wake(asked);
}

static void sink_close(void *h)
{
	struct fstream *s = h;

	pthread_mutex_lock(&s->f->lock);
	s->wake = NULL;
	pthread_mutex_unlock(&s->f->lock);
}

const struct checkpoint_sink flight_checkpoints = {
	.open = sink_open,
	.wanted = sink_wanted,
	.take = sink_take,
	.close = sink_close,
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
	*bytes = r->cur.len;
	for (size_t i = 0; i < r->nr; i++)
		*bytes += r->v[i].zlen;
	*oldest_age_ms = -1;
	if (r->nr)
		*oldest_age_ms = now_t(f) - r->v[0].t_first;
	else if (r->cur.len)
		*oldest_age_ms = now_t(f) - r->cur_t_first;
	pthread_mutex_unlock(&f->lock);
}

size_t flight_snapshots(struct flight *f)
{
	size_t n = 0;

	pthread_mutex_lock(&f->lock);
	for (size_t i = 0; i < f->nstreams; i++)
		n += f->streams[i]->nsnaps;
	pthread_mutex_unlock(&f->lock);
	return n;
}

size_t flight_exchanges(struct flight *f)
{
	pthread_mutex_lock(&f->lock);
	size_t n = f->exchanges + 1 - f->x0;
	pthread_mutex_unlock(&f->lock);
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
 * the ring, or its records not compressed yet; a few pieces' lines are
 * kept (DUMP_CACHED), as the order may go back and forth between them.
 * The snapshots' lines and the trigger's are texts at hand.
 *
 * A dump is taken on the caller's thread (dump_take(), under f->lock:
 * each segment and snapshot it will read referenced, the records not
 * compressed yet copied, what orders the ring's records copied from
 * f->x), then ordered, made text, compressed and written on the writer's
 * thread (writer_main()) with no flight lock held: a GiB of lines takes
 * half a minute to gzip, and neither the output nor the informer may
 * wait as long.  A piece's segment reference goes once its last line is
 * written.
 */
#define DUMP_CACHED 8

struct dpiece {
	struct segment seg;	/* its records, compressed (seg.z: the dump's reference); or */
	char *raw;	/* its records not compressed yet (raw_len, owned); or */
	const struct strbuf *text;	/* its lines, the dump's own */
	size_t raw_len;
	bool head;	/* text: its lines go before the records of their time */
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

/* Where a stream's dump starts. */
enum start {
	START_NONE,		/* nowhere: its start is lost, it is left out */
	START_FIRST,		/* its first record, all in the ring */
	START_SNAP,		/* a snapshot, then the ring's records after its place */
};

struct dstart {
	enum start how;
	struct snap *sn;	/* START_SNAP: the dump's reference */
	unsigned x;		/* its reconstructed list's number: no exchange has it */
	char *name, *api_version, *kind;
	/* The watch open at sn's place, begun again (cont). */
	bool cont;
	unsigned cx;
	char *path, *content_type;
	long status;
	int64_t retry_after_ms;
	int64_t t;		/* its lines' time: at most its first record's kept */
	struct strbuf text;
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
	struct dstart *start;	/* [stream] */
	size_t nstreams;
	unsigned *xstream;	/* [x - x0]: its stream, as f->x said */
	size_t nx;
	uint64_t x0;
	struct {
		size_t piece;	/* SIZE_MAX: empty */
		uint64_t used;	/* when it was last read: the oldest goes */
		struct strbuf lines;
	} cache[DUMP_CACHED];
	uint64_t reads;
};

/* The stream of exchange x; UINT32_MAX: none (a reconstructed start's). */
static unsigned dump_stream(const struct dump *d, uint64_t x)
{
	return x >= d->x0 && x - d->x0 < d->nx ? d->xstream[x - d->x0] : UINT32_MAX;
}

/*
 * Whether a record of exchange x whose data lies at [off, end) (a begin
 * or a head: 0, 0; an end: FIFO_PLACE_END twice) goes in the dump, and
 * how many of its first bytes a snapshot holds already (*skip): none of
 * a stream left out, all of one dumped from its first record, and what
 * came after its snapshot's place of one that starts there.
 */
static bool dump_keeps(const struct dump *d, unsigned x, uint64_t off, uint64_t end,
		       size_t *skip)
{
	unsigned si = dump_stream(d, x);

	*skip = 0;
	if (si >= d->nstreams)
		return false;
	const struct dstart *s = &d->start[si];
	if (s->how != START_SNAP)
		return s->how == START_FIRST;
	struct place at = s->sn->at;
	if (x != at.x)
		return x > at.x;
	if (end <= at.off)
		return false;
	if (off < at.off)
		*skip = (size_t)(at.off - off);
	return true;
}


/* The records as kept that d keeps, as the recording's lines, appended to out. */
static void records_lines(const struct dump *d, const char *p, size_t len, struct strbuf *out)
{
	const char *end = p + len;
	size_t skip;

	while (p < end) {
		if (*p == RAW_DATA) {
			struct raw_head h;
			memcpy(&h, p + 1, sizeof(h));
			const char *data = p + 1 + sizeof(h);
			if (dump_keeps(d, h.x, h.off, h.off + h.len, &skip))
				recording_line_data(out, h.t, h.x, data + skip, h.len - skip);
			p = data + h.len;
			continue;
		}
		uint64_t at = *p == RAW_END ? FIFO_PLACE_END : 0;
		if (at)
			p++;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		int64_t t;
		unsigned x;
		if (line_tx(p, n, &t, &x) && dump_keeps(d, x, at, at, &skip))
			strbuf_add(out, p, n);
		p += n;
	}
}

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
		records_lines(d, f->wunz.buf, f->wunz.len, lines);
	} else {
		records_lines(d, p->raw, p->raw_len, lines);
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
 * Each line of piece i, which begins {"t":T,"x":X,, into d's order (a
 * head piece's as exchange 0).  Lowers each stream's start time to its
 * first record's.
 */
static void dump_lines(struct flight *f, struct dump *d, uint32_t i)
{
	const struct strbuf *sb = piece_lines(f, d, i);
	const char *p = sb->buf, *end = sb->buf + sb->len;
	bool head = d->pieces[i].head;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		int64_t t;
		unsigned x;
		if (line_tx(p, n, &t, &x)) {
			unsigned si = head ? UINT32_MAX : dump_stream(d, x);
			if (si < d->nstreams && t < d->start[si].t)
				d->start[si].t = t;
			ALLOC_GROW(d->v, d->nr + 1, d->alloc);
			d->v[d->nr] = (struct dline){ .t = t, .x = head ? 0 : x, .piece = i,
						      .seq = d->nr, .off = (size_t)(p - sb->buf),
						      .len = n };
			d->nr++;
		}
		p += n;
	}
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

static int key_cmp(const void *a, const void *b)
{
	return strcmp((*(struct kobj *const *)a)->key, (*(struct kobj *const *)b)->key);
}

/*
 * The body of s's reconstructed exchange: its snapshot's objects, by
 * key, as a list, or as a streaming list's ADDED events and its end
 * bookmark.
 */
static void snap_body(const struct dstart *s, bool events, struct strbuf *body)
{
	const struct snap *sn = s->sn;
	struct kobj **v = xmalloc((sn->n ? sn->n : 1) * sizeof(*v));
	struct strbuf scratch = STRBUF_INIT;
	const char *kind = s->kind ? s->kind : "", *av = s->api_version ? s->api_version : "v1";

	if (sn->n) {
		memcpy(v, sn->objs, sn->n * sizeof(*v));
		qsort(v, sn->n, sizeof(*v), key_cmp);
	}
	if (events) {
		for (size_t i = 0; i < sn->n; i++) {
			strbuf_adds(body, "{\"type\":\"ADDED\",\"object\":");
			strbuf_adds(body, kobj_text(v[i], &scratch));
			strbuf_adds(body, "}\n");
		}
		strbuf_adds(body, "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":");
		strbuf_add_json_string(body, kind);
		strbuf_adds(body, ",\"apiVersion\":");
		strbuf_add_json_string(body, av);
		strbuf_adds(body, ",\"metadata\":{\"resourceVersion\":");
		strbuf_add_json_string(body, sn->rv);
		strbuf_adds(body, ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}}\n");
	} else {
		strbuf_addf(body, "{\"kind\":\"%sList\",\"apiVersion\":", kind);
		strbuf_add_json_string(body, av);
		strbuf_adds(body, ",\"metadata\":{\"resourceVersion\":");
		strbuf_add_json_string(body, sn->rv);
		strbuf_adds(body, "},\"items\":[");
		for (size_t i = 0; i < sn->n; i++) {
			if (i)
				strbuf_addch(body, ',');
			strbuf_adds(body, kobj_text(v[i], &scratch));
		}
		strbuf_adds(body, "]}\n");
	}
	strbuf_release(&scratch);
	free(v);
}

/*
 * s's snapshot as the dump's lines, at s->t: one exchange marked
 * reconstructed, as a replay's reflector will ask for it first, and the
 * watch open at the snapshot's place begun again, the ring's records of
 * which follow on.  A streaming list's events go at the head of that
 * watch, which was their connection, not in an exchange of their own: one
 * that ended at once would be a very short watch to a replay's reflector,
 * which the live one never saw.
 */
static void start_text(struct dstart *s)
{
	struct strbuf body = STRBUF_INIT;
	struct recorded_answer ok = { .status = 200, .content_type = "application/json",
				      .retry_after_ms = -1 };
	struct recorded_answer head = { .status = s->status, .content_type = s->content_type,
					.retry_after_ms = s->retry_after_ms };
	struct recorded_end end = { .rc = 0 };
	bool streamed = s->sn->streaming && s->cont;

	snap_body(s, streamed, &body);
	if (!streamed) {
		recording_line_reconstructed(&s->text, s->t, s->x, s->name,
					     s->sn->list_path ? s->sn->list_path : "");
		recording_line_status(&s->text, s->t, s->x, &ok);
		recording_line_data(&s->text, s->t, s->x, body.buf, body.len);
		recording_line_end(&s->text, s->t, s->x, &end);
		strbuf_reset(&body);
	}
	if (s->cont) {
		recording_line_reconstructed(&s->text, s->t, s->cx, s->name, s->path);
		if (s->status)
			recording_line_status(&s->text, s->t, s->cx, &head);
		else if (streamed)
			recording_line_status(&s->text, s->t, s->cx, &ok);
		if (body.len)
			recording_line_data(&s->text, s->t, s->cx, body.buf, body.len);
	}
	strbuf_release(&body);
}

/* d's order: the ring's records it keeps, each stream's start, the trigger last (the writer's). */
static void dump_order(struct flight *f, struct dump *d)
{
	char when[32];
	size_t ring = d->npieces;

	for (uint32_t i = 0; i < ring; i++)
		dump_lines(f, d, i);
	for (size_t i = 0; i < d->nstreams; i++) {
		struct dstart *s = &d->start[i];
		if (s->how != START_SNAP)
			continue;
		start_text(s);
		dump_lines(f, d, dump_piece(d, (struct dpiece){ .text = &s->text, .head = true }));
	}
	format_time_rfc3339(d->tr.wall, when);
	recording_line_trigger(&d->trig, d->tr.t, d->tr.reason, when, d->tr.keys);
	uint32_t trig = dump_piece(d, (struct dpiece){ .text = &d->trig });
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
	for (size_t i = 0; i < d->nstreams; i++) {
		struct dstart *s = &d->start[i];
		snap_unref(s->sn);
		free(s->name);
		free(s->api_version);
		free(s->kind);
		free(s->path);
		free(s->content_type);
		strbuf_release(&s->text);
	}
	for (size_t i = 0; i < d->npieces; i++) {
		zblob_unref(d->pieces[i].seg.z);
		free(d->pieces[i].raw);
	}
	strbuf_release(&d->trig);
	free(d->tr.reason);
	json_object_put(d->tr.keys);
	free(d->start);
	free(d->xstream);
	free(d->pieces);
	free(d->v);
	free(d);
}

/*
 * Where stream i's dump starts (f->lock held): its first record while
 * the ring holds them all (what the server sent, not what kinf made of
 * it), else its oldest snapshot (one taken before it read anything is
 * its first record), else nowhere.
 */
static void take_start(struct flight *f, size_t i, struct dstart *ds)
{
	const struct fstream *s = f->streams[i];
	struct snap *sn = s->nsnaps ? s->snaps[0] : NULL;

	ds->text = (struct strbuf)STRBUF_INIT;
	if (!s->gone.x && !s->lost) {
		ds->how = START_FIRST;
	} else if (sn && sn->at.x) {
		atomic_fetch_add_explicit(&sn->refs, 1, memory_order_relaxed);
		ds->how = START_SNAP;
		ds->sn = sn;
		/* numbers no exchange has: the lock keeps f->exchanges where it is */
		ds->x = f->exchanges + 1 + (unsigned)i;
		ds->name = xstrdup(s->name);
		ds->api_version = xstrdup_or_null(s->api_version);
		ds->kind = xstrdup_or_null(s->kind);
		ds->t = sn->t;
		const struct xinfo *xi = xinfo_of(f, sn->at.x);
		if (sn->at.off != FIFO_PLACE_END && xi) {
			ds->cont = true;
			ds->cx = (unsigned)sn->at.x;
			ds->path = xstrdup_or_null(xi->path);
			ds->status = xi->status;
			ds->content_type = xstrdup_or_null(xi->content_type);
			ds->retry_after_ms = xi->retry_after_ms;
		}
	} else {
		ds->how = sn ? START_FIRST : START_NONE;
	}
}

/*
 * The due dump taken (f->lock held): what the recorder holds, and the
 * trigger.
 */
static struct dump *dump_take(struct flight *f)
{
	struct dump *d = xcalloc(1, sizeof(*d));
	const struct segs *ring = &f->ring;

	d->tr = (struct dtrigger){ .reason = f->reason, .keys = f->keys,
				   .t = f->trigger_t, .wall = f->trigger_wall };
	f->due = 0;
	f->reason = NULL;
	f->keys = NULL;
	d->trig = (struct strbuf)STRBUF_INIT;
	for (size_t k = 0; k < DUMP_CACHED; k++)
		d->cache[k].piece = SIZE_MAX;
	d->nstreams = f->nstreams;
	d->start = xcalloc(d->nstreams ? d->nstreams : 1, sizeof(*d->start));
	for (size_t i = 0; i < d->nstreams; i++)
		take_start(f, i, &d->start[i]);
	for (size_t i = 0; i < ring->nr; i++) {
		struct segment seg = ring->v[i];
		seg.sum = NULL;
		seg.nsum = 0;
		zblob_ref(seg.z);
		dump_piece(d, (struct dpiece){ .seg = seg });
	}
	if (ring->cur.len)
		dump_piece(d, (struct dpiece){ .raw = memcpy(xmalloc(ring->cur.len), ring->cur.buf,
							     ring->cur.len),
					       .raw_len = ring->cur.len });
	d->x0 = f->x0;
	d->nx = (size_t)(f->exchanges + 1 - f->x0);
	d->xstream = xmalloc((d->nx ? d->nx : 1) * sizeof(*d->xstream));
	for (size_t i = 0; i < d->nx; i++)
		d->xstream[i] = i < f->nx ? f->x[i].stream : UINT32_MAX;
	return d;
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
		qsort(names, nr, sizeof(*names), strv_cmp);
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
		while (!f->taken && !f->wstop && !f->nwdead)
			pthread_cond_wait(&f->wjob, &f->dump_lock);
		bury(f);
		struct dump *d = f->taken;
		if (!d && !f->wstop)
			continue;
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
	pthread_mutex_lock(&f->lock);
	pthread_mutex_lock(&f->dump_lock);
	/* only the writer empties f->taken meanwhile: one thread takes dumps */
	if (f->due && !f->taken) {
		f->taken = dump_take(f);
		pthread_cond_signal(&f->wjob);
	}
	pthread_mutex_unlock(&f->dump_lock);
	pthread_mutex_unlock(&f->lock);
}

int flight_dump_due(struct flight *f, bool now, char **path, char **reason,
		    struct errbuf *err)
{
	char byte;

	*path = *reason = NULL;
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
