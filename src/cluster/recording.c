/*
 * recording.c — the recording's file, header and body, written and read.
 * See the header.
 *
 * DESIGN (threads): every reflector thread records at once; the
 * recorder's lock orders whole lines, each written and flushed under it.
 * A loaded recording is never written again (replay.c reads it).
 */
#include "cluster/recording.h"
#include "cluster/recording_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cluster/discovery.h"
#include "cluster/http.h"
#include "lib/base64.h"
#include "lib/hashmap.h"
#include "lib/json_get.h"
#include "lib/stop.h"
#include "lib/strbuf.h"


/* ---- the header --------------------------------------------------------- */

static struct json_object *json_string_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *json_strings(char **v)
{
	struct json_object *a = json_object_new_array();
	for (; v && *v; v++)
		json_object_array_add(a, json_object_new_string(*v));
	return a;
}

static struct json_object *resource_json(const struct api_resource *r)
{
	struct json_object *j = json_object_new_object();

	json_object_object_add(j, "name", json_object_new_string(r->name));
	json_object_object_add(j, "singularName", json_object_new_string(r->singular ? r->singular : ""));
	json_object_object_add(j, "kind", json_object_new_string(r->kind));
	json_object_object_add(j, "group", json_object_new_string(r->group));
	json_object_object_add(j, "version", json_object_new_string(r->version));
	json_object_object_add(j, "namespaced", json_object_new_boolean(r->namespaced));
	json_object_object_add(j, "verbs", json_strings(r->verbs));
	json_object_object_add(j, "shortNames", json_strings(r->short_names));
	json_object_object_add(j, "categories", json_strings(r->categories));
	return j;
}

/* The header line's object, its members in the order of the format. */
static struct json_object *header_json(const struct recording_info *info)
{
	struct json_object *h = json_object_new_object(), *res = json_object_new_array();
	char now[32];

	format_time_rfc3339(info->started_wall_ms ? info->started_wall_ms : wall_ms(), now);
	json_object_object_add(h, "kinfRecording", json_object_new_int(1));
	json_object_object_add(h, "kinf", json_object_new_string(KINF_VERSION));
	json_object_object_add(h, "started", json_object_new_string(now));
	json_object_object_add(h, "server", json_object_new_string(info->server));
	json_object_object_add(h, "namespace", json_string_or_null(info->ns));
	json_object_object_add(h, "labelSelector", json_string_or_null(info->label_selector));
	json_object_object_add(h, "fieldSelector", json_string_or_null(info->field_selector));
	json_object_object_add(h, "clientGo", json_object_new_string(info->client_go));
	json_object_object_add(h, "fifo", json_object_new_string(info->fifo));
	json_object_object_add(h, "streamingList", json_object_new_boolean(info->streaming_list));
	for (size_t i = 0; i < info->nr; i++)
		json_object_array_add(res, resource_json(info->resources[i]));
	json_object_object_add(h, "resources", res);
	return h;
}

static char *xstrdup_or_empty(const char *s)
{
	return xstrdup(s ? s : "");
}

/* obj's member name, an array of strings (or absent); false when it is not one. */
static bool strings_of(struct json_object *obj, const char *name, char ***out)
{
	struct json_object *a = json_get(obj, name);
	size_t n = json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
	char **v = xcalloc(n + 1, sizeof(*v));
	bool ok = !a || json_object_is_type(a, json_type_array);

	for (size_t i = 0, k = 0; i < n; i++) {
		const char *s = json_get_value_str(json_object_array_get_idx(a, i), NULL);
		if (s)
			v[k++] = xstrdup(s);
		else
			ok = false;
	}
	*out = v;
	return ok;
}

/*
 * One of the header's resources; -1 when it lacks name, kind or version,
 * or a list of strings is something else.
 */
static int resource_read(struct json_object *j, struct api_resource *r)
{
	const char *name = json_get_str(j, "name", NULL), *kind = json_get_str(j, "kind", NULL);
	const char *version = json_get_str(j, "version", NULL);

	r->name = xstrdup_or_empty(name);
	r->kind = xstrdup_or_empty(kind);
	r->version = xstrdup_or_empty(version);
	r->group = xstrdup(json_get_str(j, "group", ""));
	r->singular = xstrdup(json_get_str(j, "singularName", ""));
	r->namespaced = json_object_get_boolean(json_get(j, "namespaced"));
	bool lists = strings_of(j, "verbs", &r->verbs);
	lists &= strings_of(j, "shortNames", &r->short_names);
	lists &= strings_of(j, "categories", &r->categories);
	return name && kind && version && lists ? 0 : -1;
}

/* ---- writing ------------------------------------------------------------ */

struct recorder {
	pthread_mutex_t lock;
	gzFile gz;
	char *path;
	int64_t started;	/* monotonic */
	unsigned exchanges;
	bool failed;		/* a write failed: said at close */
	int write_errno;
	struct strbuf line;
	/* Each stream's newest exchange, which its marks are written under. */
	struct rec_stream { char *name; unsigned x; } *streams;
	size_t nstreams, astreams;
};

/* Writes rec->line, then a newline; the lock is held. */
static void put_line(struct recorder *rec)
{
	/*
	 * Each line flushed (the compressor keeps its history): what was
	 * received is in the file, should kinf be killed the next moment.
	 */
	if (!rec->failed &&
	    (gzwrite(rec->gz, rec->line.buf, (unsigned)rec->line.len) != (int)rec->line.len ||
	     gzflush(rec->gz, Z_SYNC_FLUSH) != Z_OK)) {
		rec->failed = true;
		rec->write_errno = errno;
	}
	strbuf_reset(&rec->line);
}

struct recorder *recorder_open(const char *path, const struct recording_info *info,
			       struct errbuf *err)
{
	int fd = open_new_file(path, 0600, err);
	if (fd < 0)
		return NULL;
	/* An existing file keeps its mode through O_TRUNC: make it ours. */
	if (fchmod(fd, 0600) < 0) {
		errbuf_set(err, "cannot make '%s' private: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	gzFile gz = gzdopen(fd, "wb6");
	if (!gz) {
		errbuf_set(err, "cannot write '%s': out of memory", path);
		close(fd);
		return NULL;
	}
	struct recorder *rec = xcalloc(1, sizeof(*rec));
	pthread_mutex_init(&rec->lock, NULL);
	rec->gz = gz;
	rec->path = xstrdup(path);
	rec->started = mono_ms();
	rec->line = (struct strbuf)STRBUF_INIT;
	recording_line_header(&rec->line, info);
	put_line(rec);
	return rec;
}

void recording_line_header(struct strbuf *sb, const struct recording_info *info)
{
	struct json_object *header = header_json(info);
	strbuf_adds(sb, json_object_to_json_string_ext(header, JSON_C_TO_STRING_PLAIN));
	strbuf_addch(sb, '\n');
	json_object_put(header);
}

static void start_line(struct strbuf *sb, int64_t t, unsigned x)
{
	strbuf_addf(sb, "{\"t\":%lld,\"x\":%u,", (long long)t, x);
}

static int64_t rec_now(const struct recorder *rec)
{
	return mono_ms() - rec->started;
}

void recording_line_begin(struct strbuf *sb, int64_t t, unsigned x, const char *stream,
			  const char *path)
{
	start_line(sb, t, x);
	strbuf_adds(sb, "\"stream\":");
	strbuf_add_json_string(sb, stream);
	strbuf_adds(sb, ",\"get\":");
	strbuf_add_json_string(sb, path);
	strbuf_adds(sb, "}\n");
}

void recording_line_reconstructed(struct strbuf *sb, int64_t t, unsigned x,
				  const char *stream, const char *path)
{
	recording_line_begin(sb, t, x, stream, path);
	strbuf_setlen(sb, sb->len - 2);	/* "}\n" */
	strbuf_adds(sb, ",\"reconstructed\":true}\n");
}

/* The stream's place in rec->streams (made if new); the lock is held. */
static struct rec_stream *rec_stream(struct recorder *rec, const char *stream)
{
	for (size_t i = 0; i < rec->nstreams; i++)
		if (!strcmp(rec->streams[i].name, stream))
			return &rec->streams[i];
	ALLOC_GROW(rec->streams, rec->nstreams + 1, rec->astreams);
	rec->streams[rec->nstreams] = (struct rec_stream){ .name = xstrdup(stream) };
	return &rec->streams[rec->nstreams++];
}

void recording_line_status(struct strbuf *sb, int64_t t, unsigned x,
			   const struct recorded_answer *a)
{
	start_line(sb, t, x);
	strbuf_addf(sb, "\"status\":%ld", a->status);
	if (a->content_type && a->content_type[0]) {
		strbuf_adds(sb, ",\"contentType\":");
		strbuf_add_json_string(sb, a->content_type);
	}
	if (a->retry_after_ms >= 0)
		strbuf_addf(sb, ",\"retryAfterMs\":%lld", (long long)a->retry_after_ms);
	strbuf_adds(sb, "}\n");
}

/* Whether data is UTF-8 without NUL: then it goes in as a JSON string. */
static bool plain_text(const unsigned char *p, size_t len)
{
	for (size_t i = 0, n; i < len; i += n) {
		n = p[i] < 0x80 ? 1 : utf8_sequence((const char *)p + i, len - i);
		if (!p[i] || !n)
			return false;
	}
	return true;
}

/*
 * data as a JSON string.  Written in place after one grow for the worst
 * case (each byte a \u00XX): --record escapes every byte of the stream,
 * and a call per byte was the flight recorder's largest cost.
 */
static void add_json_bytes(struct strbuf *sb, const char *data, size_t len)
{
	static const char hex[] = "0123456789abcdef";

	strbuf_grow(sb, 6 * len + 2);
	char *o = sb->buf + sb->len;
	*o++ = '"';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)data[i];
		if (c >= 0x20 && c != '"' && c != '\\') {
			*o++ = (char)c;
			continue;
		}
		*o++ = '\\';
		if (c == '"' || c == '\\') {
			*o++ = (char)c;
		} else if (c == '\n') {
			*o++ = 'n';
		} else {
			memcpy(o, "u00", 3);
			o[3] = hex[c >> 4];
			o[4] = hex[c & 15];
			o += 5;
		}
	}
	*o++ = '"';
	sb->len = (size_t)(o - sb->buf);
	sb->buf[sb->len] = '\0';
}

/* One data record of at most RECORDING_PIECE bytes; returns how many it took. */
static size_t line_data_piece(struct strbuf *sb, int64_t t, unsigned x, const char *data,
			      size_t len)
{
	if (len > RECORDING_PIECE) {
		/* cut between characters, so that text stays text */
		len = RECORDING_PIECE;
		for (int back = 0; back < 3 && ((unsigned char)data[len] & 0xc0) == 0x80; back++)
			len--;
	}
	start_line(sb, t, x);
	if (plain_text((const unsigned char *)data, len)) {
		strbuf_adds(sb, "\"data\":");
		add_json_bytes(sb, data, len);
	} else {
		strbuf_adds(sb, "\"data64\":\"");
		base64_encode(data, len, sb);
		strbuf_addch(sb, '"');
	}
	strbuf_adds(sb, "}\n");
	return len;
}

void recording_line_data(struct strbuf *sb, int64_t t, unsigned x, const char *data,
			 size_t len)
{
	do {
		size_t n = line_data_piece(sb, t, x, data, len);
		data += n;
		len -= n;
	} while (len);
}

void recording_line_end(struct strbuf *sb, int64_t t, unsigned x, const struct recorded_end *e)
{
	start_line(sb, t, x);
	strbuf_addf(sb, "\"end\":%d", e->rc < 0 ? -1 : 0);
	if (e->rc < 0) {
		strbuf_adds(sb, ",\"error\":");
		strbuf_add_json_string(sb, e->error ? e->error : "");
		if (e->refused)
			strbuf_adds(sb, ",\"refused\":true");
		if (e->timed_out)
			strbuf_adds(sb, ",\"timedOut\":true");
		if (e->no_answer)
			strbuf_adds(sb, ",\"noAnswer\":true");
		if (e->no_answer_timeout)
			strbuf_adds(sb, ",\"noAnswerTimeout\":true");
		if (e->stream_broken)
			strbuf_adds(sb, ",\"streamBroken\":true");
		if (e->stream_broken && e->stream_error && *e->stream_error) {
			strbuf_adds(sb, ",\"streamError\":");
			strbuf_add_json_string(sb, e->stream_error);
		}
	}
	if (e->stopped)
		strbuf_adds(sb, ",\"stopped\":true");
	strbuf_adds(sb, "}\n");
}

void recording_line_trigger(struct strbuf *sb, int64_t t, const char *reason, const char *time,
			    struct json_object *keys)
{
	strbuf_addf(sb, "{\"t\":%lld,\"trigger\":", (long long)t);
	strbuf_add_json_string(sb, reason);
	strbuf_adds(sb, ",\"time\":");
	strbuf_add_json_string(sb, time);
	strbuf_adds(sb, ",\"keys\":");
	strbuf_adds(sb, keys ? json_object_to_json_string_ext(keys, JSON_C_TO_STRING_PLAIN) : "[]");
	strbuf_adds(sb, "}\n");
}

int recorder_close(struct recorder *rec, struct errbuf *err)
{
	int ret = 0;

	if (!rec)
		return 0;
	if (gzclose(rec->gz) != Z_OK || rec->failed) {
		errbuf_set(err, "cannot write the recording '%s': %s", rec->path,
			   rec->write_errno ? strerror(rec->write_errno) : "write failed");
		ret = -1;
	}
	pthread_mutex_destroy(&rec->lock);
	strbuf_release(&rec->line);
	for (size_t i = 0; i < rec->nstreams; i++)
		free(rec->streams[i].name);
	free(rec->streams);
	free(rec->path);
	free(rec);
	return ret;
}

/* The recorder as a kclient_tap: http.h's terms into the recording's. */
static unsigned tap_begin(void *ctx, const char *stream, const char *path)
{
	struct recorder *rec = ctx;

	pthread_mutex_lock(&rec->lock);
	unsigned x = ++rec->exchanges;
	rec_stream(rec, stream)->x = x;
	recording_line_begin(&rec->line, rec_now(rec), x, stream, path);
	put_line(rec);
	pthread_mutex_unlock(&rec->lock);
	return x;
}

static void tap_head(void *ctx, unsigned x, const struct http_response *resp)
{
	struct recorder *rec = ctx;
	struct recorded_answer a = {
		.status = resp->status,
		.content_type = resp->content_type,
		.retry_after_ms = resp->retry_after_ms,
	};

	pthread_mutex_lock(&rec->lock);
	recording_line_status(&rec->line, rec_now(rec), x, &a);
	put_line(rec);
	pthread_mutex_unlock(&rec->lock);
}

static void tap_data(void *ctx, unsigned x, const char *data, size_t len)
{
	struct recorder *rec = ctx;

	pthread_mutex_lock(&rec->lock);
	recording_line_data(&rec->line, rec_now(rec), x, data, len);
	put_line(rec);
	pthread_mutex_unlock(&rec->lock);
}

struct recorded_end recorded_end_of(int rc, const char *error,
				    const struct http_response *resp, bool stopped)
{
	return (struct recorded_end){
		.rc = rc, .error = error, .refused = resp->refused,
		.timed_out = resp->timed_out, .no_answer = resp->no_answer,
		.no_answer_timeout = resp->no_answer_timeout,
		.stream_broken = resp->stream_broken, .stopped = stopped,
		.stream_error = resp->stream_broken ? resp->stream_error : NULL,
	};
}

static void tap_end(void *ctx, unsigned x, int rc, const char *error,
		    const struct http_response *resp, bool stopped)
{
	struct recorder *rec = ctx;
	struct recorded_end e = recorded_end_of(rc, error, resp, stopped);

	pthread_mutex_lock(&rec->lock);
	recording_line_end(&rec->line, rec_now(rec), x, &e);
	put_line(rec);
	pthread_mutex_unlock(&rec->lock);
}

/*
 * stream's reflector queued an entry when its consumer had popped pops
 * (kclient_mark()): {"t":T,"x":X,"q":POPS}, X the stream's newest
 * exchange.  Nothing before the stream's first exchange.
 */
static void tap_mark(void *ctx, const char *stream, uint64_t pops)
{
	struct recorder *rec = ctx;

	pthread_mutex_lock(&rec->lock);
	struct rec_stream *rs = rec_stream(rec, stream);
	if (rs->x) {
		start_line(&rec->line, rec_now(rec), rs->x);
		strbuf_addf(&rec->line, "\"q\":%llu}\n", (unsigned long long)pops);
		put_line(rec);
	}
	pthread_mutex_unlock(&rec->lock);
}

const struct kclient_tap recorder_tap = {
	.begin = tap_begin,
	.head = tap_head,
	.data = tap_data,
	.end = tap_end,
	.mark = tap_mark,
};

/* ---- reading ------------------------------------------------------------ */

static void resources_release(struct recording *rec)
{
	for (size_t i = 0; i < rec->nr_resources; i++)
		api_resource_release(&rec->resources[i]);
	free(rec->resources);
	free(rec->resource_ptrs);
	rec->resources = NULL;
	rec->resource_ptrs = NULL;
	rec->nr_resources = 0;
}

static struct stream *stream_named(struct recording *rec, const char *name)
{
	uintptr_t i = (uintptr_t)hashmap_get(&rec->stream_index, name);
	return i ? &rec->streams[i - 1] : NULL;
}

const struct stream *recording_stream_named(const struct recording *rec, const char *name)
{
	return stream_named((struct recording *)rec, name);
}

static struct exchange *exchange_numbered(struct recording *rec, int64_t x)
{
	char key[24];
	snprintf(key, sizeof(key), "%lld", (long long)x);
	return hashmap_get(&rec->by_x, key);
}

/*
 * A record's members, type-checked: a recording is outside input (users
 * send each other theirs).  Each leaves *out as it was when the member
 * is absent, and fails with err naming the member when it is of another
 * type, or an integer out of [lo, hi].
 */
static int get_int(struct json_object *r, const char *key, int64_t lo, int64_t hi,
		   int64_t *out, struct errbuf *err)
{
	struct json_object *v;

	if (!json_object_object_get_ex(r, key, &v))
		return 0;
	/* json-c saturates an integer too large for int64 */
	int64_t n = json_object_get_int64(v);
	if (!json_object_is_type(v, json_type_int) || n < lo || n > hi) {
		errbuf_set(err, "\"%s\" is not an integer from %lld to %lld", key,
			   (long long)lo, (long long)hi);
		return -1;
	}
	*out = n;
	return 0;
}

static int get_string(struct json_object *r, const char *key, const char **out,
		      struct errbuf *err)
{
	struct json_object *v;

	if (!json_object_object_get_ex(r, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_string)) {
		errbuf_set(err, "\"%s\" is not a string", key);
		return -1;
	}
	*out = json_object_get_string(v);
	return 0;
}

static int get_bool(struct json_object *r, const char *key, bool *out, struct errbuf *err)
{
	struct json_object *v;

	if (!json_object_object_get_ex(r, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_boolean)) {
		errbuf_set(err, "\"%s\" is not true or false", key);
		return -1;
	}
	*out = json_object_get_boolean(v);
	return 0;
}

/* A record that begins exchange x of the stream it names. */
static int load_begin(struct recording *rec, struct json_object *r, int64_t t, int64_t x,
		      struct errbuf *err)
{
	const char *name = NULL, *path = NULL;
	bool reconstructed = false;

	if (get_string(r, "stream", &name, err) < 0 || get_string(r, "get", &path, err) < 0 ||
	    get_bool(r, "reconstructed", &reconstructed, err) < 0)
		return -1;
	if (exchange_numbered(rec, x)) {
		errbuf_set(err, "exchange %lld begins twice", (long long)x);
		return -1;
	}
	struct stream *s = stream_named(rec, name);
	if (!s) {
		ALLOC_GROW(rec->streams, rec->nr + 1, rec->alloc);
		s = &rec->streams[rec->nr++];
		*s = (struct stream){ .name = xstrdup(name), .reconstructed = reconstructed };
		hashmap_insert(&rec->stream_index, s->name, (void *)(uintptr_t)rec->nr);
	}
	struct exchange *ex = xcalloc(1, sizeof(*ex));
	snprintf(ex->x, sizeof(ex->x), "%lld", (long long)x);
	ex->t_start = ex->t_end = t;
	ex->retry_after_ms = -1;
	ex->kind = path ? request_kind_of(path) : REQUEST_UNKNOWN;
	ex->stream = (size_t)(s - rec->streams);
	hashmap_insert(&rec->by_x, ex->x, ex);
	ALLOC_GROW(rec->all, rec->nall + 1, rec->aall);
	rec->all[rec->nall++] = ex;
	ALLOC_GROW(s->ex, s->nr + 1, s->alloc);
	s->ex[s->nr++] = ex;
	return 0;
}

/*
 * A queue mark: how many pops the consumer had made when ex's stream
 * queued its next entry.  It may follow its exchange's end, since a list
 * is queued once it is read.
 */
static int load_mark(struct recording *rec, const struct exchange *ex, int64_t t,
		     struct json_object *r, struct errbuf *err)
{
	struct stream *s = &rec->streams[ex->stream];
	int64_t pops = 0;

	if (get_int(r, "q", 0, INT64_MAX, &pops, err) < 0)
		return -1;
	if (s->nmarks && (uint64_t)pops < s->marks[s->nmarks - 1].pops) {
		errbuf_set(err, "a queue mark that goes back");
		return -1;
	}
	ALLOC_GROW(s->marks, s->nmarks + 1, s->amarks);
	s->marks[s->nmarks++] = (struct mark){ .t = t, .pops = (uint64_t)pops };
	return 0;
}

/* An answer's head: its status, Content-Type and Retry-After. */
static int load_status(struct exchange *ex, struct json_object *r, struct errbuf *err)
{
	const char *type = "";
	int64_t status = 0;

	if (get_int(r, "status", 0, 999, &status, err) < 0 ||
	    get_string(r, "contentType", &type, err) < 0 ||
	    get_int(r, "retryAfterMs", -1, RECORDING_MAX_T, &ex->retry_after_ms, err) < 0)
		return -1;
	ex->status = (long)status;
	snprintf(ex->content_type, sizeof(ex->content_type), "%s", type);
	return 0;
}

/* A chunk of an exchange's body, "data" as text or "data64" as base64. */
static int load_data(struct exchange *ex, struct json_object *r, int64_t t, struct errbuf *err)
{
	const char *text = NULL, *b64 = NULL;
	struct strbuf sb = STRBUF_INIT;

	if (get_string(r, "data", &text, err) < 0 || get_string(r, "data64", &b64, err) < 0)
		return -1;
	if (text) {
		strbuf_add(&sb, text, (size_t)json_object_get_string_len(json_get(r, "data")));
	} else if (base64_decode(b64, strlen(b64), &sb) < 0) {
		strbuf_release(&sb);
		errbuf_set(err, "data64 is not base64");
		return -1;
	}
	ALLOC_GROW(ex->chunks, ex->nr + 1, ex->alloc);
	ex->chunks[ex->nr].t = t;
	ex->chunks[ex->nr].data = strbuf_detach(&sb, &ex->chunks[ex->nr].len);
	ex->nr++;
	return 0;
}

/* The record that ends an exchange: how, and when. */
static int load_end(struct exchange *ex, struct json_object *r, int64_t t, struct errbuf *err)
{
	const char *error = "connection lost", *stream_error = "";
	int64_t end = 0;

	if (get_int(r, "end", INT32_MIN, INT32_MAX, &end, err) < 0 ||
	    get_string(r, "error", &error, err) < 0 ||
	    get_bool(r, "refused", &ex->refused, err) < 0 ||
	    get_bool(r, "timedOut", &ex->timed_out, err) < 0 ||
	    get_bool(r, "noAnswer", &ex->no_answer, err) < 0 ||
	    get_bool(r, "noAnswerTimeout", &ex->no_answer_timeout, err) < 0 ||
	    get_bool(r, "streamBroken", &ex->stream_broken, err) < 0 ||
	    get_string(r, "streamError", &stream_error, err) < 0 ||
	    get_bool(r, "stopped", &ex->stopped, err) < 0)
		return -1;
	ex->ended = true;
	ex->t_end = t;
	ex->rc = end < 0 ? -1 : 0;
	if (ex->rc < 0)
		ex->error = xstrdup(*error ? error : "connection lost");
	snprintf(ex->stream_error, sizeof(ex->stream_error), "%s",
		 ex->rc < 0 && ex->stream_broken ? stream_error : "");
	return 0;
}

/* A flight dump's trigger: kept as read, for replay --at. */
static int load_trigger(struct recording *rec, struct json_object *r, struct errbuf *err)
{
	const char *reason = NULL;

	if (get_string(r, "trigger", &reason, err) < 0)
		return -1;
	if (rec->trigger) {
		errbuf_set(err, "a second trigger");
		return -1;
	}
	rec->trigger = json_object_get(r);
	return 0;
}

/* One record (not the header).  -1 with err (a line's own message). */
static int load_record(struct recording *rec, struct json_object *r, struct errbuf *err)
{
	int64_t t = -1, x = 0;

	if (get_int(r, "t", 0, RECORDING_MAX_T, &t, err) < 0 ||
	    get_int(r, "x", 1, INT64_MAX, &x, err) < 0)
		return -1;
	if (t >= 0 && json_object_object_get_ex(r, "trigger", NULL))
		return load_trigger(rec, r, err);
	if (t < 0 || !x) {
		errbuf_set(err, "a record without its time and exchange number");
		return -1;
	}
	if (json_object_object_get_ex(r, "stream", NULL))
		return load_begin(rec, r, t, x, err);

	struct exchange *ex = exchange_numbered(rec, x);
	if (ex && json_object_object_get_ex(r, "q", NULL))
		return load_mark(rec, ex, t, r, err);
	if (!ex || ex->ended) {
		errbuf_set(err, "a record of exchange %lld, which %s", (long long)x,
			   ex ? "had ended" : "never began");
		return -1;
	}
	/* an exchange's time never goes back, whatever a file says */
	if (t < ex->t_end)
		t = ex->t_end;
	ex->t_end = t;
	if (json_object_object_get_ex(r, "status", NULL))
		return load_status(ex, r, err);
	if (json_object_object_get_ex(r, "data", NULL) || json_object_object_get_ex(r, "data64", NULL))
		return load_data(ex, r, t, err);
	if (json_object_object_get_ex(r, "end", NULL))
		return load_end(ex, r, t, err);
	errbuf_set(err, "a record of no kind kinf knows");
	return -1;
}

/*
 * The file's lines, one at a time, never more than RECORDING_MAX_LINE
 * in memory: a few hundred kilobytes of gzip may hold gigabytes.
 */
struct line_reader {
	gzFile gz;
	struct strbuf buf;
	size_t pos;		/* where the next line starts in buf */
	size_t scanned;		/* buf[pos, scanned) has no newline */
	bool eof;
	bool cut;		/* the gzip stream stops short, or a read failed */
	char why[128];		/* for cut */
};

/* Fills more of lr->buf; false at the end of the file. */
static bool read_more(struct line_reader *lr)
{
	strbuf_remove_front(&lr->buf, lr->pos);
	lr->scanned -= lr->pos;
	lr->pos = 0;
	strbuf_grow(&lr->buf, 65536);
	int n = gzread(lr->gz, lr->buf.buf + lr->buf.len, 65536);
	if (n > 0) {
		lr->buf.len += (size_t)n;
		lr->buf.buf[lr->buf.len] = '\0';
		return true;
	}
	int gzerr = Z_OK;
	const char *msg = gzerror(lr->gz, &gzerr);
	/* Z_BUF_ERROR: the gzip stream stops short, as a killed kinf leaves it */
	lr->cut = n < 0 || gzerr == Z_BUF_ERROR;
	if (lr->cut)
		snprintf(lr->why, sizeof(lr->why), "%s", gzerr == Z_ERRNO ? strerror(errno) : msg);
	lr->eof = true;
	return false;
}

/*
 * The next line, without its newline: 1, 0 at the end, -1 with err for
 * a line too long.  The last line of a file cut short is not one.
 */
static int next_line(struct line_reader *lr, const char **line, size_t *len,
		     struct errbuf *err)
{
	for (;;) {
		const char *start = lr->buf.buf + lr->pos;
		const char *nl = lr->scanned < lr->buf.len
			? memchr(lr->buf.buf + lr->scanned, '\n', lr->buf.len - lr->scanned) : NULL;
		if (nl) {
			*line = start;
			*len = (size_t)(nl - start);
			lr->pos = lr->scanned = (size_t)(nl - lr->buf.buf) + 1;
			return 1;
		}
		lr->scanned = lr->buf.len;
		if (lr->buf.len - lr->pos > RECORDING_MAX_LINE) {
			errbuf_set(err, "a line longer than %u MiB", RECORDING_MAX_LINE >> 20);
			return -1;
		}
		if (!lr->eof && read_more(lr))
			continue;
		if (lr->pos == lr->buf.len || lr->cut)
			return 0;
		*line = lr->buf.buf + lr->pos;
		*len = lr->buf.len - lr->pos;
		lr->pos = lr->scanned = lr->buf.len;
		return 1;
	}
}

/* A line: the header (the first) or a record.  -1 with err. */
static int load_line(struct recording *rec, const char *p, size_t len, bool first,
		     struct errbuf *err)
{
	struct json_tokener *tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	struct json_object *r = json_tokener_parse_ex(tok, p, (int)len);
	bool whole = r && json_tokener_get_parse_end(tok) == len;
	int ret = 0;

	json_tokener_free(tok);
	if (!whole || !json_object_is_type(r, json_type_object)) {
		errbuf_set(err, "not a JSON object");
		ret = -1;
	} else if (first) {
		struct json_object *v;
		if (!json_object_object_get_ex(r, "kinfRecording", &v) ||
		    !json_object_is_type(v, json_type_int) || json_object_get_int(v) != 1) {
			errbuf_set(err, "not a kinf recording (no \"kinfRecording\":1 header)");
			ret = -1;
		} else {
			rec->header = json_object_get(r);
		}
	} else {
		ret = load_record(rec, r, err);
	}
	json_object_put(r);
	return ret;
}

/* An exchange the recording stopped in the middle of ends there. */
static void end_open_exchanges(struct recording *rec)
{
	for (size_t i = 0; i < rec->nall; i++) {
		struct exchange *ex = rec->all[i];
		if (!ex->ended) {
			ex->ended = true;
			ex->rc = -1;
			ex->error = xstrdup("stopped");
			ex->stopped = true;
			ex->t_end = ex->nr ? ex->chunks[ex->nr - 1].t : ex->t_start;
		}
	}
}

struct recording *recording_load(const char *path, struct errbuf *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		errbuf_set(err, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	return recording_load_fd(fd, path, err);
}

struct recording *recording_load_fd(int fd, const char *path, struct errbuf *err)
{
	struct line_reader lr = { .gz = gzdopen(fd, "rb"), .buf = STRBUF_INIT };
	if (!lr.gz) {
		close(fd);
		errbuf_set(err, "cannot read '%s': out of memory", path);
		return NULL;
	}
	struct recording *rec = xcalloc(1, sizeof(*rec));
	struct errbuf lerr = { "" };
	const char *line;
	size_t len, lineno = 0;
	int got;
	while ((got = next_line(&lr, &line, &len, &lerr)) > 0 &&
	       load_line(rec, line, len, !lineno++, &lerr) == 0)
		;
	gzclose(lr.gz);
	strbuf_release(&lr.buf);
	if (got != 0) {
		errbuf_set(err, "%s:%zu: %s", path, lineno + (got < 0), lerr.msg);
	} else if (!rec->header && lr.cut) {
		/* A file cut short is read as far as it goes. */
		errbuf_set(err, "cannot read '%s': %s", path, lr.why);
	} else if (!rec->header) {
		errbuf_set(err, "%s: empty: not a kinf recording", path);
	} else {
		end_open_exchanges(rec);
		return rec;
	}
	recording_free(rec);
	return NULL;
}

void recording_free(struct recording *rec)
{
	if (!rec)
		return;
	for (size_t i = 0; i < rec->nall; i++) {
		struct exchange *ex = rec->all[i];
		for (size_t k = 0; k < ex->nr; k++)
			free(ex->chunks[k].data);
		free(ex->chunks);
		free(ex->error);
		free(ex);
	}
	for (size_t i = 0; i < rec->nr; i++) {
		free(rec->streams[i].name);
		free(rec->streams[i].ex);
		free(rec->streams[i].marks);
	}
	free(rec->streams);
	free(rec->all);
	hashmap_release(&rec->stream_index);
	hashmap_release(&rec->by_x);
	json_object_put(rec->header);
	json_object_put(rec->trigger);
	resources_release(rec);
	free(rec);
}

bool recording_empty(const struct recording *rec)
{
	return !rec->nall;
}

const char *recording_stream(const struct recording *rec, size_t i, size_t *exchanges)
{
	if (i >= rec->nr)
		return NULL;
	*exchanges = rec->streams[i].nr;
	return rec->streams[i].name;
}

struct json_object *recording_header(const struct recording *rec)
{
	return rec->header;
}

const char *recording_reconstructed(const struct recording *rec, size_t i)
{
	for (size_t k = 0; k < rec->nr; k++)
		if (rec->streams[k].reconstructed && !i--)
			return rec->streams[k].name;
	return NULL;
}

struct json_object *recording_trigger(const struct recording *rec)
{
	return rec->trigger;
}

/* Exchange ex as far as time t: later pieces dropped, stopped there. */
static void exchange_cut(struct exchange *ex, int64_t t)
{
	while (ex->nr && ex->chunks[ex->nr - 1].t > t)
		free(ex->chunks[--ex->nr].data);
	if (ex->t_end <= t)
		return;
	ex->rc = -1;
	free(ex->error);
	ex->error = xstrdup("stopped");
	ex->stopped = true;
	ex->t_end = t;
}

void recording_cut(struct recording *rec, int64_t t)
{
	for (size_t i = 0; i < rec->nr; i++) {
		struct stream *s = &rec->streams[i];
		size_t keep = 0;
		while (keep < s->nr && s->ex[keep]->t_start <= t)
			exchange_cut(s->ex[keep++], t);
		/* Exchanges begun later stay in all (freed there), unreachable. */
		s->nr = keep;
		while (s->nmarks && s->marks[s->nmarks - 1].t > t)
			s->nmarks--;
	}
}

/* The header's resources, into rec (whose they stay); -1 with err. */
static int resources_read(struct recording *rec, struct errbuf *err)
{
	struct json_object *a;

	if (!json_object_object_get_ex(rec->header, "resources", &a) ||
	    !json_object_is_type(a, json_type_array) || !json_object_array_length(a)) {
		errbuf_set(err, "the recording's header names no resource");
		return -1;
	}
	size_t n = json_object_array_length(a);
	rec->resources = xcalloc(n, sizeof(*rec->resources));
	rec->resource_ptrs = xcalloc(n, sizeof(*rec->resource_ptrs));
	for (size_t i = 0; i < n; i++) {
		rec->resource_ptrs[i] = &rec->resources[i];
		rec->nr_resources++;
		if (resource_read(json_object_array_get_idx(a, i), &rec->resources[i]) < 0) {
			errbuf_set(err, "the recording's header has a resource without "
				   "name, kind or version, or with a list that is not "
				   "of strings");
			return -1;
		}
	}
	return 0;
}

int recording_get_info(struct recording *rec, struct recording_info *info,
		       struct errbuf *err)
{
	struct json_object *h = rec->header;

	resources_release(rec);
	if (resources_read(rec, err) < 0)
		return -1;
	*info = (struct recording_info){
		.kinf = json_get_str(h, "kinf", NULL),
		.started = json_get_str(h, "started", NULL),
		.server = json_get_str(h, "server", NULL),
		.ns = json_get_str(h, "namespace", NULL),
		.label_selector = json_get_str(h, "labelSelector", NULL),
		.field_selector = json_get_str(h, "fieldSelector", NULL),
		.client_go = json_get_str(h, "clientGo", NULL),
		.fifo = json_get_str(h, "fifo", NULL),
		.streaming_list = json_object_get_boolean(json_get(h, "streamingList")),
		.resources = rec->resource_ptrs,
		.nr = rec->nr_resources,
	};
	return 0;
}
