/*
 * flight.c — the flight recorder: a ring of compressed records, each
 * stream's last list kept apart, and the dumps.  See the header.
 *
 * DESIGN (threads): the tap runs on every reflector thread at once; the
 * consumer's thread triggers and dumps.  f->lock guards everything of
 * the flight; nothing here calls out with it held.  A dump holds it
 * while it writes, so the taps wait for a dump: what is in the file is
 * exactly what had come by then.
 */
#include "cluster/flight.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "cluster/http.h"
#include "cluster/recording.h"
#include "lib/strbuf.h"

/*
 * Records are compressed in segments of about this many bytes, at this
 * zlib level.  On a pod watch's records, 256 KiB at level 3 keeps 14×
 * where 64 KiB at level 6 kept 15×, at 2.4 times the speed: compressing
 * was most of what the recorder cost (tests/bench/RESULTS-features.md).
 */
#define SEGMENT_RAW (256 * 1024)
#define SEGMENT_LEVEL 3

struct segment {
	int64_t t_first, t_last;	/* the times of its first and last records */
	unsigned char *z;	/* zlib (compress2) */
	size_t zlen, rawlen;
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
	 * A streaming list is a watch that goes on after its initial
	 * events: from its bookmark on (spilled), its records go to the
	 * ring, or the kept list would grow without bound, outside the
	 * budget.  t_spill: its first record in the ring.  carry: the end
	 * of the data so far, for a bookmark split between two pieces.
	 */
	bool streaming, spilled;
	int64_t t_spill;
	unsigned char ncarry;
	char carry[INITIAL_END_LEN - 1];
};

/* A list of a stream (its pages, or a streaming list), kept apart. */
struct pin {
	unsigned x;		/* its first exchange */
	int64_t t;		/* when it began */
	struct strbuf lines;
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

struct flight {
	pthread_mutex_t lock;
	struct flight_opts o;
	int64_t started;	/* monotonic */
	unsigned exchanges;
	struct xinfo *x;	/* [x] */
	size_t nx;
	struct fstream *streams;
	size_t nstreams, astreams;
	struct segment *segs;	/* oldest first */
	size_t nsegs, asegs;
	struct strbuf cur;	/* records not compressed yet */
	int64_t cur_t_first, cur_t_last;
	size_t held;		/* segments' zlen + cur + pins */
	struct strbuf line;	/* scratch */
	/* The due dump. */
	char *reason;
	struct json_object *keys;
	int64_t trigger_t, trigger_wall, due;	/* due: monotonic; 0: none */
	unsigned long dumps;
};

struct flight *flight_new(const struct flight_opts *opts)
{
	struct flight *f = xcalloc(1, sizeof(*f));

	pthread_mutex_init(&f->lock, NULL);
	f->o = *opts;
	f->started = mono_ms();
	f->cur = (struct strbuf)STRBUF_INIT;
	f->line = (struct strbuf)STRBUF_INIT;
	return f;
}

void flight_free(struct flight *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nsegs; i++)
		free(f->segs[i].z);
	for (size_t i = 0; i < f->nstreams; i++) {
		for (size_t k = 0; k < f->streams[i].npins; k++)
			strbuf_release(&f->streams[i].pins[k].lines);
		free(f->streams[i].pins);
		free(f->streams[i].name);
	}
	free(f->segs);
	free(f->streams);
	free(f->x);
	strbuf_release(&f->cur);
	strbuf_release(&f->line);
	free(f->reason);
	json_object_put(f->keys);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

/* ---- the ring (f->lock held) -------------------------------------------- */

static int64_t now_t(const struct flight *f)
{
	return mono_ms() - f->started;
}

static void seal_cur(struct flight *f)
{
	if (!f->cur.len)
		return;
	uLongf zlen = compressBound(f->cur.len);
	struct segment seg = { .t_first = f->cur_t_first, .t_last = f->cur_t_last,
			       .rawlen = f->cur.len };
	seg.z = xmalloc(zlen);
	if (compress2(seg.z, &zlen, (const Bytef *)f->cur.buf, f->cur.len, SEGMENT_LEVEL) != Z_OK)
		die("zlib: cannot compress");
	seg.z = xrealloc(seg.z, zlen);
	seg.zlen = zlen;
	ALLOC_GROW(f->segs, f->nsegs + 1, f->asegs);
	f->segs[f->nsegs++] = seg;
	f->held += seg.zlen;
	f->held -= f->cur.len;
	strbuf_reset(&f->cur);
}

/* When the ring's oldest record came (now: it is empty). */
static int64_t ring_t0(const struct flight *f)
{
	if (f->nsegs)
		return f->segs[0].t_first;
	return f->cur.len ? f->cur_t_first : now_t(f);
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
			f->held -= s->pins[j].lines.len;
			strbuf_release(&s->pins[j].lines);
		}
		memmove(s->pins, s->pins + k, (s->npins - k) * sizeof(*s->pins));
		s->npins -= k;
	}
}

/* The oldest segments go while over the budget or out of the window. */
static void evict(struct flight *f)
{
	int64_t horizon = now_t(f) - f->o.window_ms;
	size_t n = 0;

	while (n < f->nsegs && (f->held > f->o.budget || f->segs[n].t_last < horizon)) {
		f->held -= f->segs[n].zlen;
		free(f->segs[n].z);
		n++;
	}
	if (!n)
		return;
	memmove(f->segs, f->segs + n, (f->nsegs - n) * sizeof(*f->segs));
	f->nsegs -= n;
	prune_pins(f);
}

/* f->line, a record of exchange x, into its place. */
static void keep_line(struct flight *f, unsigned x, int64_t t)
{
	struct xinfo *xi = x < f->nx ? &f->x[x] : NULL;

	f->held += f->line.len;
	if (xi && xi->list && !xi->spilled) {
		struct fstream *s = &f->streams[xi->stream];
		strbuf_add(&s->pins[s->npins - 1].lines, f->line.buf, f->line.len);
	} else {
		if (!f->cur.len)
			f->cur_t_first = t;
		strbuf_add(&f->cur, f->line.buf, f->line.len);
		f->cur_t_last = t;
		if (f->cur.len >= SEGMENT_RAW)
			seal_cur(f);
	}
	strbuf_reset(&f->line);
	evict(f);
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
		s->pins[s->npins++] = (struct pin){ .x = x, .t = t, .lines = STRBUF_INIT };
	}
	f->x[x] = (struct xinfo){ .stream = si, .list = list, .streaming = watch && list };
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

/* Whether data, after what xi saw before, holds the initial events' end. */
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
	bool ends = xi && xi->streaming && !xi->spilled && initial_end_in(xi, data, len);
	recording_line_data(&f->line, t, x, data, len);
	keep_line(f, x, t);
	if (ends) {
		xi->spilled = true;
		xi->t_spill = t;
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
	int64_t left = -1;
	if (f->due) {
		left = f->due - mono_ms();
		if (left < 0)
			left = 0;
	}
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

unsigned long flight_dumps(struct flight *f)
{
	pthread_mutex_lock(&f->lock);
	unsigned long n = f->dumps;
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

/* One record of the dump: where its line is, and what orders it. */
struct dline {
	int64_t t;
	unsigned x;
	size_t seq;
	const char *p;
	size_t len;
};

struct dlines {
	struct dline *v;
	size_t nr, alloc;
};

/* Splits buf's lines into out; each begins {"t":T,"x":X,. */
static void split_lines(const char *buf, size_t len, struct dlines *out)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		/* Not sscanf(): glibc's measures the whole rest of the buffer. */
		char *e;
		if (n > 12 && !strncmp(p, "{\"t\":", 5)) {
			long long t = strtoll(p + 5, &e, 10);
			if (!strncmp(e, ",\"x\":", 5)) {
				unsigned x = (unsigned)strtoul(e + 5, NULL, 10);
				ALLOC_GROW(out->v, out->nr + 1, out->alloc);
				out->v[out->nr] = (struct dline){ .t = t, .x = x, .seq = out->nr,
								  .p = p, .len = n };
				out->nr++;
			}
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

/* The ring's records, uncompressed, into raw (f->lock held). */
static void ring_raw(struct flight *f, struct strbuf *raw)
{
	for (size_t i = 0; i < f->nsegs; i++) {
		struct segment *s = &f->segs[i];
		uLongf n = s->rawlen;
		strbuf_grow(raw, n);
		if (uncompress((Bytef *)raw->buf + raw->len, &n, s->z, s->zlen) != Z_OK ||
		    n != s->rawlen)
			die("zlib: a flight recorder segment does not uncompress");
		raw->len += n;
		raw->buf[raw->len] = '\0';
	}
	strbuf_add(raw, f->cur.buf, f->cur.len);
}

/*
 * Whether a ring record of exchange x goes in the dump: not one of its
 * stream from before the stream's kept list, nor one of an exchange
 * whose beginning has gone.  begun[x]: a "stream" record of x is there.
 */
static bool ring_keeps(const struct flight *f, unsigned x, const bool *begun,
		       const unsigned *start_x)
{
	if (x >= f->nx)
		return false;
	unsigned from = start_x[f->x[x].stream];
	/* The kept streaming list's watch, while none of it has gone. */
	if (x == from && f->x[x].spilled)
		return f->x[x].t_spill >= ring_t0(f);
	return begun[x] && from && x > from;
}

/* Every record the dump holds, in order, after the header (f->lock held). */
static void dump_body(struct flight *f, struct strbuf *raw, struct strbuf *trigger,
		      struct strbuf *out)
{
	struct dlines ring = { 0 }, all = { 0 };
	bool *begun = xcalloc(f->nx ? f->nx : 1, sizeof(*begun));
	unsigned *start_x = xcalloc(f->nstreams ? f->nstreams : 1, sizeof(*start_x));

	ring_raw(f, raw);
	split_lines(raw->buf, raw->len, &ring);
	for (size_t i = 0; i < ring.nr; i++)
		if (ring.v[i].x < f->nx && memmem(ring.v[i].p, ring.v[i].len, "\"stream\":", 9))
			begun[ring.v[i].x] = true;
	for (size_t i = 0; i < f->nstreams; i++) {
		const struct fstream *s = &f->streams[i];
		size_t k = s->npins ? start_pin(f, s) : 0;
		if (s->npins)
			start_x[i] = s->pins[k].x;
		for (; k < s->npins; k++)
			split_lines(s->pins[k].lines.buf, s->pins[k].lines.len, &all);
	}
	for (size_t i = 0; i < ring.nr; i++) {
		if (!ring_keeps(f, ring.v[i].x, begun, start_x))
			continue;
		ALLOC_GROW(all.v, all.nr + 1, all.alloc);
		all.v[all.nr] = ring.v[i];
		all.v[all.nr].seq = all.nr;
		all.nr++;
	}
	ALLOC_GROW(all.v, all.nr + 1, all.alloc);
	all.v[all.nr] = (struct dline){ .t = f->trigger_t, .x = 0, .seq = all.nr,
					.p = trigger->buf, .len = trigger->len };
	all.nr++;
	qsort(all.v, all.nr, sizeof(*all.v), dline_cmp);
	for (size_t i = 0; i < all.nr; i++)
		strbuf_add(out, all.v[i].p, all.v[i].len);
	free(begun);
	free(start_x);
	free(ring.v);
	free(all.v);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* --flight-keep: the oldest dumps of dir go (names sort by their time). */
static void prune(const char *dir, unsigned keep)
{
	DIR *d = keep ? opendir(dir) : NULL;
	char **names = NULL;
	size_t nr = 0, alloc = 0;
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (strncmp(e->d_name, "kinf-", 5) || n < 12 || strcmp(e->d_name + n - 7, ".rec.gz"))
			continue;
		ALLOC_GROW(names, nr + 1, alloc);
		names[nr++] = xstrdup(e->d_name);
	}
	closedir(d);
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

/* Creates dir/kinf-TIME-REASON[-N].rec.gz, 0600, new; its fd, or -1 with err. */
static int dump_create(const struct flight *f, char **path, struct errbuf *err)
{
	time_t secs = (time_t)(f->trigger_wall / 1000);
	struct tm tm;
	char stamp[32];

	gmtime_r(&secs, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (int n = 0; n < 100; n++) {
		char *p = n ? xasprintf("%s/kinf-%s-%s-%d.rec.gz", f->o.dir, stamp, f->reason, n)
			    : xasprintf("%s/kinf-%s-%s.rec.gz", f->o.dir, stamp, f->reason);
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0) {
			*path = p;
			return fd;
		}
		if (errno != EEXIST) {
			errbuf_set(err, "cannot create '%s': %s", p, strerror(errno));
			free(p);
			return -1;
		}
		free(p);
	}
	errbuf_set(err, "cannot create a dump in '%s': too many of this second", f->o.dir);
	return -1;
}

static int dump_write(struct flight *f, char **path, struct errbuf *err)
{
	struct strbuf out = STRBUF_INIT, raw = STRBUF_INIT, trig = STRBUF_INIT;
	char when[32];
	int ret = -1;

	int fd = dump_create(f, path, err);
	if (fd < 0)
		return -1;
	format_time_rfc3339(f->trigger_wall, when);
	recording_line_trigger(&trig, f->trigger_t, f->reason, when, f->keys);
	recording_line_header(&out, f->o.info);
	dump_body(f, &raw, &trig, &out);
	gzFile gz = gzdopen(fd, "wb6");
	if (!gz) {
		close(fd);
		errbuf_set(err, "cannot write '%s': out of memory", *path);
		goto out;
	}
	if (gzwrite(gz, out.buf, (unsigned)out.len) != (int)out.len) {
		errbuf_set(err, "cannot write '%s': %s", *path, strerror(errno));
		gzclose(gz);
		goto out;
	}
	if (gzclose(gz) != Z_OK) {
		errbuf_set(err, "cannot write '%s': %s", *path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (ret < 0) {
		unlink(*path);
		free(*path);
		*path = NULL;
	}
	strbuf_release(&out);
	strbuf_release(&raw);
	strbuf_release(&trig);
	return ret;
}

int flight_dump_due(struct flight *f, bool now, char **path, char **reason,
		    struct errbuf *err)
{
	int ret = 0;

	*path = *reason = NULL;
	pthread_mutex_lock(&f->lock);
	if (!f->due || (!now && mono_ms() < f->due))
		goto out;
	ret = dump_write(f, path, err) < 0 ? -1 : 1;
	if (ret > 0) {
		f->dumps++;
		prune(f->o.dir, f->o.keep);
	}
	f->due = 0;
	if (ret > 0)
		*reason = f->reason;
	else
		free(f->reason);
	f->reason = NULL;
	json_object_put(f->keys);
	f->keys = NULL;
out:
	pthread_mutex_unlock(&f->lock);
	return ret;
}
