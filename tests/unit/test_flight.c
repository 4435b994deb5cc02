/*
 * test_flight.c — the flight recorder (informer/flight.h): its memory
 * stays within the budget when the informer hands it the snapshots it
 * asks for, a stream's records stay until a snapshot covers them, a dump
 * starts from a snapshot (as a list, or as a streaming list's head of
 * its watch) with the watch from the snapshot's place on, and a dump is
 * a recording that loads, with its trigger.  Driven through the tap and
 * the checkpoint sink, as the reflector and the processor drive it.
 */
#include <json-c/json.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cluster/discovery.h"
#include "cluster/http.h"
#include "cluster/recording.h"
#include "informer/flight.h"
#include "informer/informer.h"
#include "informer/kobj.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "unit.h"

static char dir[] = "/tmp/kinf-unit-flight.XXXXXX";

static struct api_resource pods = { .group = "", .version = "v1", .name = "pods",
				    .kind = "Pod", .namespaced = true };
static const struct api_resource *const pods_only[] = { &pods };
static const struct recording_info info = {
	.server = "https://127.0.0.1:6443", .client_go = "1.36", .fifo = "RealFIFO",
	.resources = pods_only, .nr = 1,
};

#define STREAM "/api/v1/pods"
#define KEYS 100

/* The gzip'd file at path, whole, into sb (replacing it); false if it cannot be read. */
static bool gz_text(const char *path, struct strbuf *sb)
{
	gzFile gz = gzopen(path, "rb");
	char buf[65536];
	int n;

	strbuf_reset(sb);
	if (!gz)
		return false;
	while ((n = gzread(gz, buf, sizeof(buf))) > 0)
		strbuf_add(sb, buf, (size_t)n);
	gzclose(gz);
	return n == 0;
}

/* One whole exchange of STREAM: path, 200, the pieces given, a clean end. */
static unsigned exchange(struct flight *f, const char *path, const char *const *pieces, size_t n)
{
	struct http_response resp = { .status = 200, .retry_after_ms = -1,
				      .content_type = "application/json" };
	unsigned x = flight_tap.begin(f, STREAM, path);

	flight_tap.head(f, x, &resp);
	for (size_t i = 0; i < n; i++)
		flight_tap.data(f, x, pieces[i], strlen(pieces[i]));
	flight_tap.end(f, x, 0, NULL, &resp, false);
	return x;
}

/*
 * The informer, as the flight sees it: a cache of KEYS pods, what it
 * read of the watch (x, off, rv) and the processor's wake-ups.
 */
struct model {
	struct flight *f;
	void *h;
	struct kobj *objs[KEYS];
	unsigned x;
	uint64_t off;
	char rv[64];
	unsigned wakes;
};

static void count_wake(void *arg)
{
	__atomic_add_fetch(&((struct model *)arg)->wakes, 1, __ATOMIC_RELAXED);
}

static void model_open(struct model *m, struct flight *f)
{
	memset(m, 0, sizeof(*m));
	m->f = f;
	m->h = flight_checkpoints.open(f, STREAM, "v1", "Pod", count_wake, m);
}

static void model_close(struct model *m)
{
	flight_checkpoints.close(m->h);
	for (size_t i = 0; i < KEYS; i++)
		kobj_unref(m->objs[i]);
}

/* The object of event i: pod-(i % KEYS) at RV 100 + i, a hash that compresses as JSON does. */
static void pod_json(struct strbuf *sb, unsigned long i)
{
	unsigned long h = i * 2654435761UL;

	strbuf_addf(sb, "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"pod-%lu\","
		    "\"namespace\":\"default\",\"resourceVersion\":\"%lu\"},\"status\":{\"podIP\":"
		    "\"10.%lu.%lu.%lu\",\"hash\":\"%016lx%016lx\"}}", i % KEYS, 100 + i, h % 256,
		    (h >> 8) % 256, (h >> 16) % 256, h * 31, h ^ 0x9e3779b97f4a7c15UL);
}

/* Event i as a line, into sb (replacing it). */
static void event_line(struct strbuf *sb, unsigned long i)
{
	strbuf_reset(sb);
	strbuf_adds(sb, "{\"type\":\"MODIFIED\",\"object\":");
	pod_json(sb, i);
	strbuf_adds(sb, "}\n");
}

/* What event i does to the cache, and where the watch x stands after it. */
static void model_apply(struct model *m, unsigned x, unsigned long i, size_t len)
{
	struct strbuf obj = STRBUF_INIT;
	struct errbuf err = { "" };

	pod_json(&obj, i);
	kobj_unref(m->objs[i % KEYS]);
	m->objs[i % KEYS] = kobj_from_json(obj.buf, obj.len, 0, &err);
	if (m->x != x)
		m->off = 0;
	m->x = x;
	m->off += len;
	snprintf(m->rv, sizeof(m->rv), "%lu", 100 + i);
	strbuf_release(&obj);
}

/* Event i tapped on watch x and applied: its bytes. */
static size_t model_event(struct model *m, unsigned x, unsigned long i, struct strbuf *line)
{
	event_line(line, i);
	flight_tap.data(m->f, x, line->buf, line->len);
	model_apply(m, x, i, line->len);
	return line->len;
}

/* The processor's checkpoint: every object cached, at the place read. */
static void model_snap(struct model *m)
{
	struct kobj_list l = { xcalloc(KEYS, sizeof(*l.v)), 0 };
	struct fifo_place at = { .x = m->x, .off = m->off };

	snprintf(at.rv, sizeof(at.rv), "%s", m->rv);
	for (size_t i = 0; i < KEYS; i++)
		if (m->objs[i])
			l.v[l.nr++] = kobj_ref(m->objs[i]);
	flight_checkpoints.take(m->h, &at, &l);
	kobj_list_release(&l);
}

/* An empty list at RV 99, and a watch begun after it: its number. */
static unsigned list_then_watch(struct model *m)
{
	static const char *const list[] = {
		"{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"99\"},\"items\":[]}",
	};
	struct http_response resp = { .status = 200, .retry_after_ms = -1,
				      .content_type = "application/json" };
	unsigned lx = exchange(m->f, STREAM "?limit=500&resourceVersion=0", list, 1);

	m->x = lx;
	m->off = FIFO_PLACE_END;
	snprintf(m->rv, sizeof(m->rv), "99");
	unsigned x = flight_tap.begin(m->f, STREAM, STREAM "?watch=true&resourceVersion=99");
	flight_tap.head(m->f, x, &resp);
	return x;
}

/* The due dump written now, as text into sb: false (and said) when none was. */
static bool dump_now(struct flight *f, const char *reason, struct strbuf *sb)
{
	char *path = NULL, *why = NULL;
	struct errbuf err = { "" };

	CHECK(flight_trigger(f, reason, NULL));
	int rc = flight_dump_due(f, true, &path, &why, &err);
	CHECKF(rc == 1, "no dump: %d %s", rc, err.msg);
	if (rc != 1)
		return false;
	struct recording *rec = recording_load(path, &err);
	CHECKF(rec != NULL, "the dump does not load: %s", err.msg);
	recording_free(rec);
	CHECK(gz_text(path, sb));
	unlink(path);
	free(path);
	free(why);
	return rec != NULL;
}

/* The dump's records of exchange x (its "x":X lines), each a tree, into v. */
static size_t dump_records(const struct strbuf *sb, unsigned x, struct json_object **v, size_t max)
{
	size_t n = 0;

	for (const char *p = sb->buf; p && *p && n < max;) {
		const char *nl = strchr(p, '\n');
		char *one = nl ? strndup(p, (size_t)(nl - p)) : NULL;
		struct json_object *r = json_tokener_parse(one ? one : p);
		struct json_object *rx;

		free(one);
		if (r && json_object_object_get_ex(r, "x", &rx) &&
		    (unsigned)json_object_get_int64(rx) == x)
			v[n++] = r;
		else
			json_object_put(r);
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

static const char *member(struct json_object *r, const char *name)
{
	struct json_object *v;

	return json_object_object_get_ex(r, name, &v) ? json_object_get_string(v) : NULL;
}

/*
 * With the snapshots the flight asks for handed over as a processor
 * would, the ring and the snapshots stay within the budget however
 * long the watch goes on, and a dump starts from a snapshot: the cache
 * it holds, and the watch from its place on, up to the last event.
 */
TEST(memory_stays_within_the_budget_with_the_snapshots_asked_for)
{
	struct flight_opts o = { .window_ms = 3600000, .budget = 256 * 1024, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info };
	struct flight *f = flight_new(&o, NULL);
	struct model m;
	struct strbuf line = STRBUF_INIT, sb = STRBUF_INIT;
	size_t raw = 0, most = 0;
	unsigned long n = 40000, snaps = 0;

	model_open(&m, f);
	unsigned x = list_then_watch(&m);
	for (unsigned long i = 0; i < n; i++) {
		raw += model_event(&m, x, i, &line);
		if (flight_checkpoints.wanted(m.h)) {
			model_snap(&m);
			snaps++;
		}
		size_t held = flight_bytes(f);
		if (held > most)
			most = held;
	}
	size_t ring;
	int64_t age;
	flight_ring(f, &ring, &age);
	CHECKF(most <= o.budget, "the flight held %zu bytes, over its budget of %zu", most, o.budget);
	CHECKF(ring < raw / 20, "the ring holds %zu of %zu bytes: it let go of nothing", ring, raw);
	CHECKF(snaps > 2 && snaps < n / 100, "%lu snapshots for %lu events", snaps, n);
	CHECKF(m.wakes > 0, "the processor was never woken for a snapshot");
	CHECK(flight_snapshots(f) >= 1);
	if (dump_now(f, "signal", &sb)) {
		CHECKF(strstr(sb.buf, "\"reconstructed\":true"), "no reconstructed start");
		struct json_object *r;
		CHECKF(!dump_records(&sb, x - 1, &r, 1), "the list the ring let go of is in the dump");
		/* the last event, once, after the snapshot's objects */
		event_line(&line, n - 1);
		CHECKF(strstr(sb.buf, "\\\"resourceVersion\\\":\\\"40099\\\"}"),
		       "the last event is not in the dump");
	}
	model_close(&m);
	strbuf_release(&line);
	strbuf_release(&sb);
	flight_free(f);
}

/*
 * A watch that ends after each event and is begun again, 20,000 times:
 * what the flight knows of its exchanges goes with their records, so a
 * run of days holds what its window does; and a dump still starts from
 * the snapshot, inside the exchange it was taken in.
 */
TEST(the_exchanges_the_ring_let_go_of_are_forgotten)
{
	struct flight_opts o = { .window_ms = 3600000, .budget = 128 * 1024, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info };
	struct flight *f = flight_new(&o, NULL);
	struct http_response resp = { .status = 200, .retry_after_ms = -1,
				      .content_type = "application/json" };
	struct model m;
	struct strbuf line = STRBUF_INIT, sb = STRBUF_INIT;
	unsigned long n = 20000;
	size_t most = 0;

	model_open(&m, f);
	unsigned x = list_then_watch(&m);
	for (unsigned long i = 0; i < n; i++) {
		if (i) {
			x = flight_tap.begin(f, STREAM, STREAM "?watch=true&resourceVersion=1");
			flight_tap.head(f, x, &resp);
		}
		model_event(&m, x, i, &line);
		if (flight_checkpoints.wanted(m.h))
			model_snap(&m);
		if (i < n - 1)
			flight_tap.end(f, x, 0, NULL, &resp, false);
		if (flight_exchanges(f) > most)
			most = flight_exchanges(f);
	}
	/* a watch of one event is about 400 bytes: the budget's worth, a quarter more */
	CHECKF(most < 1000, "the flight knew of %zu exchanges at once, of %lu", most, n);
	model_snap(&m);
	if (dump_now(f, "signal", &sb)) {
		CHECKF(strstr(sb.buf, "\"reconstructed\":true"), "no reconstructed start");
		struct json_object *r;
		size_t nr = dump_records(&sb, x, &r, 1);
		CHECKF(nr == 1, "the last watch is not in the dump");
		if (nr)
			json_object_put(r);
	}
	model_close(&m);
	strbuf_release(&line);
	strbuf_release(&sb);
	flight_free(f);
}

/*
 * No snapshot comes: the ring keeps every record of the stream, over the
 * budget, up to its grace (a quarter more); then it lets go of them, and
 * a dump leaves the stream out rather than start it from nowhere.
 */
TEST(records_no_snapshot_covers_stay_up_to_the_grace_then_the_stream_is_left_out)
{
	struct flight_opts o = { .window_ms = 3600000, .budget = 128 * 1024, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info };
	struct flight *f = flight_new(&o, NULL);
	struct model m;
	struct strbuf line = STRBUF_INIT, sb = STRBUF_INIT;
	size_t most = 0;
	bool over = false;

	model_open(&m, f);
	unsigned x = list_then_watch(&m);
	unsigned long i = 0;
	for (; flight_bytes(f) <= o.budget && i < 1000000; i++)
		model_event(&m, x, i, &line);
	size_t ring;
	int64_t age;
	flight_ring(f, &ring, &age);
	CHECK(ring == flight_bytes(f));	/* nothing let go of yet */
	for (unsigned long k = 0; k < 40000; k++, i++) {
		model_event(&m, x, i, &line);
		size_t held = flight_bytes(f);
		over |= held > o.budget;
		if (held > most)
			most = held;
	}
	CHECKF(over, "the ring never went over the budget for the stream's sake");
	CHECKF(most <= o.budget + o.budget / 4, "the flight held %zu bytes, past its grace", most);
	if (dump_now(f, "signal", &sb))
		CHECKF(!strstr(sb.buf, "\"stream\":"),
		       "the stream without a start is in the dump:\n%.300s", sb.buf);
	/* a snapshot of a place the ring let go of is refused; one now is kept */
	struct model old = m;
	old.off = 1;
	flight_checkpoints.take(m.h, &(struct fifo_place){ .x = old.x, .off = old.off },
				&(struct kobj_list){ 0 });
	CHECK(flight_snapshots(f) == 0);
	model_snap(&m);
	CHECK(flight_snapshots(f) == 1);
	if (dump_now(f, "signal", &sb))
		CHECKF(strstr(sb.buf, "\"reconstructed\":true"), "the stream is not back");
	model_close(&m);
	strbuf_release(&line);
	strbuf_release(&sb);
	flight_free(f);
}

/* With no snapshot and nothing let go of, a dump is every record, and the trigger. */
TEST(a_dump_holds_the_list_the_watch_and_the_trigger)
{
	struct flight_opts o = { .window_ms = 60000, .budget = 1 << 20, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info };
	struct flight *f = flight_new(&o, NULL);
	static const char *const list[] = { "{\"kind\":\"PodList\",\"items\":[]}" };
	static const char *const events[] = { "{\"type\":\"ADDED\"}\n", "{\"type\":\"DELETED\"}\n" };
	char *path, *reason;
	struct errbuf err = { "" };

	exchange(f, STREAM "?limit=500", list, 1);
	exchange(f, STREAM "?watch=true&resourceVersion=1", events, 2);
	struct json_object *keys = json_tokener_parse("[{\"key\":\"default/a\",\"class\":\"missing\"}]");
	CHECK(flight_trigger(f, "verify", keys));
	CHECK(flight_dump_due(f, true, &path, &reason, &err) == 1);
	struct recording *rec = recording_load(path, &err);
	CHECKF(rec != NULL, "%s", err.msg);
	if (rec) {
		struct json_object *t = recording_trigger(rec);
		CHECK_STR(json_object_get_string(json_object_object_get(t, "trigger")), "verify");
		CHECK_STR(json_object_to_json_string_ext(json_object_object_get(t, "keys"),
							 JSON_C_TO_STRING_PLAIN),
			  "[{\"key\":\"default\\/a\",\"class\":\"missing\"}]");
		size_t nx = 0;
		CHECK_STR(recording_stream(rec, 0, &nx), STREAM);
		CHECK(nx == 2);
		CHECK(recording_reconstructed(rec, 0) == NULL);
		recording_free(rec);
	}
	unlink(path);
	free(path);
	free(reason);
	flight_free(f);
}

/* A failed exchange ends in the dump as the recorder writes its end: every flag. */
TEST(a_dump_keeps_how_an_exchange_failed)
{
	struct flight_opts o = { .window_ms = 60000, .budget = 1 << 20, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info };
	struct flight *f = flight_new(&o, NULL);
	struct http_response resp = { .retry_after_ms = -1, .no_answer = true };
	struct strbuf text = STRBUF_INIT, want = STRBUF_INIT;
	struct recorded_end e = recorded_end_of(-1, "no answer", &resp, false);
	char *path, *reason;
	struct errbuf err = { "" };

	unsigned x = flight_tap.begin(f, STREAM, STREAM "?limit=500");
	flight_tap.end(f, x, -1, "no answer", &resp, false);
	CHECK(flight_trigger(f, "signal", NULL));
	CHECK(flight_dump_due(f, true, &path, &reason, &err) == 1);
	CHECK(gz_text(path, &text));
	recording_line_end(&want, 0, x, &e);
	/* the line after its time */
	CHECKF(strstr(strbuf_str(&text), strchr(strbuf_str(&want), ',') + 1) != NULL, "%s",
	       strbuf_str(&text));
	CHECK(strstr(strbuf_str(&text), "\"noAnswer\":true") != NULL);
	strbuf_release(&text);
	strbuf_release(&want);
	unlink(path);
	free(path);
	free(reason);
	flight_free(f);
}

/* Longer than a window of WINDOW_MS: the ring's records from before it may go. */
#define WINDOW_MS 80
static void window_passes(void)
{
	int64_t end = mono_ms() + WINDOW_MS + WINDOW_MS / 2;

	while (mono_ms() < end)
		usleep(10000);
}

/*
 * A snapshot taken mid-watch, its place inside a piece, once the ring
 * let go of the stream's first records (the list, the first event): the
 * dump begins with a list of the snapshot's objects at its RV, marked,
 * then the watch begun again, marked, going on with the bytes after the
 * place (the rest of that piece) and the pieces after; nothing of the
 * list the server sent, nor of the events the snapshot holds.
 */
TEST(a_dump_starts_from_a_snapshot_and_the_watch_from_its_place)
{
	struct flight_opts o = { .window_ms = WINDOW_MS, .budget = 1 << 20, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info };
	struct flight *f = flight_new(&o, NULL);
	struct model m;
	struct strbuf e1 = STRBUF_INIT, e2 = STRBUF_INIT, e3 = STRBUF_INIT, piece = STRBUF_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct json_object *r[16];

	model_open(&m, f);
	unsigned x = list_then_watch(&m);
	event_line(&e1, 1);
	event_line(&e2, 2);
	event_line(&e3, 3);
	/* e1 whole; e2 and the first 10 bytes of e3; the rest of e3 */
	flight_tap.data(f, x, e1.buf, e1.len);
	model_apply(&m, x, 1, e1.len);
	window_passes();
	strbuf_add(&piece, e2.buf, e2.len);
	strbuf_add(&piece, e3.buf, 10);
	flight_tap.data(f, x, piece.buf, piece.len);
	model_apply(&m, x, 2, e2.len);
	CHECK(flight_checkpoints.wanted(m.h));	/* what left the window waits for it */
	model_snap(&m);
	flight_tap.data(f, x, e3.buf + 10, e3.len - 10);
	if (dump_now(f, "signal", &sb)) {
		unsigned lx = 0;
		/* the reconstructed list: the one exchange that is not x and not the server's list */
		const char *rec = strstr(sb.buf, "\"reconstructed\":true");
		CHECK(rec != NULL);
		size_t n = dump_records(&sb, x, r, ARRAY_SIZE(r));
		/* begun again, its head, then the data from the place on */
		CHECKF(n == 4, "%zu records of the watch", n);
		if (n == 4) {
			CHECK(json_object_object_get_ex(r[0], "reconstructed", NULL));
			CHECK_STR(member(r[0], "get"), STREAM "?watch=true&resourceVersion=99");
			CHECK_STR(member(r[1], "status"), "200");
			const char *d2 = member(r[2], "data"), *d3 = member(r[3], "data");
			CHECKF(d2 && strlen(d2) == 10 && !strncmp(d2, e3.buf, 10),
			       "the watch goes on with %s", d2);
			CHECKF(d3 && !strcmp(d3, e3.buf + 10), "then %s", d3);
		}
		for (size_t i = 0; i < n; i++)
			json_object_put(r[i]);
		for (unsigned k = 1; k < x && !lx; k++)
			if (dump_records(&sb, k, r, 1))
				json_object_put(r[0]), lx = k;
		CHECKF(!lx, "exchange %u, before the snapshot, is in the dump", lx);
		/* the list holds the two pods at the snapshot's RV */
		CHECK(strstr(sb.buf, "PodList\\\",\\\"apiVersion\\\":\\\"v1\\\",\\\"metadata\\\":"
				     "{\\\"resourceVersion\\\":\\\"102\\\"}"));
		CHECK(strstr(sb.buf, "pod-1") && strstr(sb.buf, "pod-2"));
	}
	model_close(&m);
	strbuf_release(&e1);
	strbuf_release(&e2);
	strbuf_release(&e3);
	strbuf_release(&piece);
	strbuf_release(&sb);
	flight_free(f);
}

/*
 * A streaming list's snapshot, taken after its end bookmark, the list
 * out of the window: a replay's
 * reflector asks for a streaming list first, so the snapshot's objects
 * go as ADDED events and the end bookmark at the head of the watch they
 * came on, begun again, which goes on from the place.
 */
TEST(a_streaming_lists_snapshot_is_the_head_of_its_watch)
{
	struct flight_opts o = { .window_ms = WINDOW_MS, .budget = 1 << 20, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info };
	struct flight *f = flight_new(&o, NULL);
	struct model m;
	struct strbuf line = STRBUF_INIT, sb = STRBUF_INIT;
	struct http_response resp = { .status = 200, .retry_after_ms = -1,
				      .content_type = "application/json" };
	static const char end[] = "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"metadata\":"
				  "{\"resourceVersion\":\"101\",\"annotations\":"
				  "{\"k8s.io/initial-events-end\":\"true\"}}}}\n";
	struct json_object *r[8];

	model_open(&m, f);
	unsigned x = flight_tap.begin(f, STREAM, STREAM "?watch=true&sendInitialEvents=true"
					       "&resourceVersionMatch=NotOlderThan");
	flight_tap.head(f, x, &resp);
	model_event(&m, x, 0, &line);
	model_event(&m, x, 1, &line);
	flight_tap.data(f, x, end, strlen(end));
	m.off += strlen(end);
	snprintf(m.rv, sizeof(m.rv), "101");
	model_snap(&m);
	window_passes();
	model_event(&m, x, 2, &line);
	if (dump_now(f, "signal", &sb)) {
		size_t n = dump_records(&sb, x, r, ARRAY_SIZE(r));
		CHECKF(n == 4, "%zu records of the watch", n);
		if (n == 4) {
			CHECK(json_object_object_get_ex(r[0], "reconstructed", NULL));
			const char *head = member(r[2], "data");
			CHECKF(head && strstr(head, "\"type\":\"ADDED\"") &&
			       strstr(head, "\"name\":\"pod-0\"") && strstr(head, "\"name\":\"pod-1\"") &&
			       strstr(head, "\"resourceVersion\":\"101\",\"annotations\":"
					    "{\"k8s.io/initial-events-end\":\"true\"}"),
			       "the watch's head is %s", head);
			CHECK_STR(member(r[3], "data"), line.buf);	/* event 2, as it came */
		}
		for (size_t i = 0; i < n; i++)
			json_object_put(r[i]);
		const char *again = strstr(sb.buf, "\"reconstructed\":true");
		CHECKF(again && !strstr(again + 1, "\"reconstructed\":true"),
		       "an exchange of its own:\n%s", sb.buf);
	}
	model_close(&m);
	strbuf_release(&line);
	strbuf_release(&sb);
	flight_free(f);
}

/*
 * A snapshot costs its pointers, and once the next one comes, the
 * objects it alone keeps alive: those the cache replaced since.
 */
TEST(a_snapshot_counts_the_objects_it_alone_keeps)
{
	struct flight_opts o = { .window_ms = 3600000, .budget = 64 << 20, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info };
	struct flight *f = flight_new(&o, NULL);
	struct model m;
	struct strbuf line = STRBUF_INIT;
	size_t replaced = 0;

	model_open(&m, f);
	unsigned x = list_then_watch(&m);
	for (unsigned long i = 0; i < KEYS; i++)
		model_event(&m, x, i, &line);
	model_snap(&m);
	for (unsigned long i = 0; i < KEYS / 2; i++)
		replaced += kobj_bytes(m.objs[i]);
	size_t before = flight_bytes(f);
	for (unsigned long i = KEYS; i < KEYS + KEYS / 2; i++)
		model_event(&m, x, i, &line);
	size_t ring = flight_bytes(f) - before;
	model_snap(&m);
	size_t grew = flight_bytes(f) - before - ring;
	CHECKF(grew == replaced + KEYS * sizeof(void *),
	       "the second snapshot added %zu bytes, not %zu of pointers and %zu replaced", grew,
	       KEYS * sizeof(void *), replaced);
	model_close(&m);
	strbuf_release(&line);
	flight_free(f);
}

/* Bytes of any value, cut anywhere: each piece in the dump as the recorder writes it. */
TEST(a_dumps_data_is_each_piece_as_the_recording_writes_it)
{
	struct flight_opts o = { .window_ms = 60000, .budget = 1 << 20, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info };
	struct flight *f = flight_new(&o, NULL);
	static const char *const pieces[] = {
		"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\\\"b\"}}}\n{\"ty",
		"\001\002\t a control byte first\n",
		"\xff\xfe not UTF-8",
		"pe\":\"DELETED\"}\n",
	};
	static const char *const list[] = { "{\"kind\":\"PodList\",\"items\":[]}" };
	struct strbuf want = STRBUF_INIT, sb = STRBUF_INIT;

	exchange(f, STREAM "?limit=500", list, 1);
	exchange(f, STREAM "?watch=true&resourceVersion=1", pieces, ARRAY_SIZE(pieces));
	if (dump_now(f, "signal", &sb))
		for (size_t i = 0; i < ARRAY_SIZE(pieces); i++) {
			strbuf_reset(&want);
			recording_line_data(&want, 0, 0, pieces[i], strlen(pieces[i]));
			const char *data = strstr(want.buf, "\"data");
			CHECKF(data && strstr(sb.buf, data), "piece %zu is not in the dump as %s", i,
			       want.buf);
		}
	strbuf_release(&want);
	strbuf_release(&sb);
	flight_free(f);
}

/* ---- a dump being written --------------------------------------------- */

/* The writer held where its hook is called, until the test lets it go. */
struct hold {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool held, go;
};

static void hold_thread(void *ctx)
{
	struct hold *h = ctx;

	pthread_mutex_lock(&h->lock);
	h->held = true;
	pthread_cond_broadcast(&h->cond);
	while (!h->go)
		pthread_cond_wait(&h->cond, &h->lock);
	pthread_mutex_unlock(&h->lock);
}

static void let_go(struct hold *h)
{
	pthread_mutex_lock(&h->lock);
	h->go = true;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

#define HELD_BEFORE 20000	/* events before the trigger: the ring full */
#define HELD_AFTER 40000	/* after: the ring let go of twice over */

struct more {
	struct model *m;
	unsigned x;
	bool done;
};

/* More of the watch, with the snapshots asked for: none of it may wait for a dump. */
static void *feed_more(void *arg)
{
	struct more *mo = arg;
	struct strbuf line = STRBUF_INIT;

	for (unsigned long i = HELD_BEFORE; i < HELD_BEFORE + HELD_AFTER; i++) {
		model_event(mo->m, mo->x, i, &line);
		if (flight_checkpoints.wanted(mo->m->h))
			model_snap(mo->m);
	}
	strbuf_release(&line);
	__atomic_store_n(&mo->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * While a dump is being written (its writer held), the tap takes twice
 * the ring's worth of events and the snapshots asked for, so that the
 * ring lets go of every segment and snapshot the dump reads; triggers are
 * taken.  Then the dump is still the moment it was due (the watch up to
 * the trigger's event, none after), and the triggers that came meanwhile
 * are written in turn.  Under ASan this is also the segments' and the
 * snapshots' lifetime.
 */
TEST(a_dump_being_written_holds_up_neither_the_tap_nor_a_trigger)
{
	struct hold h = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
	struct flight_opts o = { .window_ms = 3600000, .budget = 512 * 1024, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info, .hold = hold_thread,
				 .hold_ctx = &h };
	struct flight *f = flight_new(&o, NULL);
	struct model m;
	struct strbuf line = STRBUF_INIT, sb = STRBUF_INIT;
	char *path = NULL, *reason = NULL;
	struct errbuf err = { "" };
	pthread_t feeder;

	model_open(&m, f);
	struct more mo = { .m = &m, .x = list_then_watch(&m) };
	for (unsigned long i = 0; i < HELD_BEFORE; i++) {
		model_event(&m, mo.x, i, &line);
		if (flight_checkpoints.wanted(m.h))
			model_snap(&m);
	}
	CHECK(flight_trigger(f, "signal", NULL));
	CHECK(flight_dump_due(f, false, &path, &reason, &err) == 0);	/* taken, not written */
	pthread_mutex_lock(&h.lock);
	while (!h.held)
		pthread_cond_wait(&h.cond, &h.lock);
	pthread_mutex_unlock(&h.lock);

	pthread_create(&feeder, NULL, feed_more, &mo);
	int64_t end = mono_ms() + 60000;
	while (!__atomic_load_n(&mo.done, __ATOMIC_ACQUIRE) && mono_ms() < end)
		usleep(10000);
	bool done = __atomic_load_n(&mo.done, __ATOMIC_ACQUIRE);
	CHECKF(done, "the tap goes on while a dump is being written (60 s)");
	if (done) {
		CHECK(flight_trigger(f, "verify", NULL));	/* not part of the dump being written */
		CHECK(flight_dump_due(f, false, &path, &reason, &err) == 0);	/* waits for the writer */
		CHECK(flight_trigger(f, "key", NULL));
		CHECK(flight_due_ms(f) == -1);	/* due, not taken: flight_fd() says when */
	}
	let_go(&h);
	pthread_join(feeder, NULL);
	static const char *const reasons[] = { "signal", "verify", "key" };
	for (size_t i = 0; done && i < ARRAY_SIZE(reasons); i++) {
		int rc = flight_dump_due(f, true, &path, &reason, &err);
		CHECKF(rc == 1, "dump %zu: %d %s", i, rc, err.msg);
		if (rc != 1)
			break;
		CHECK_STR(reason, reasons[i]);
		CHECK(gz_text(path, &sb));
		/* the first: up to the trigger's event; the others: up to the last */
		unsigned last = 100 + (i ? HELD_BEFORE + HELD_AFTER : HELD_BEFORE) - 1;
		char rv[64];
		snprintf(rv, sizeof(rv), "\\\"resourceVersion\\\":\\\"%u\\\"}", last);
		CHECKF(strstr(sb.buf, rv), "dump %zu lacks the event at RV %u", i, last);
		snprintf(rv, sizeof(rv), "\\\"resourceVersion\\\":\\\"%u\\\"}", last + 1);
		CHECKF(!strstr(sb.buf, rv), "dump %zu has the event after RV %u", i, last);
		unlink(path);
		free(path);
		free(reason);
	}
	CHECK(flight_dump_due(f, true, &path, &reason, &err) == 0);
	model_close(&m);
	strbuf_release(&line);
	strbuf_release(&sb);
	flight_free(f);
}

/*
 * A folder that goes away while kinf runs: the dump that cannot be
 * created is handed back as an error, and the next trigger is a dump of
 * its own, written once the folder is back.
 */
TEST(a_dump_that_cannot_be_written_is_said_and_the_next_one_is_written)
{
	char *sub = xasprintf("%s/gone", dir);
	struct flight_opts o = { .window_ms = 3600000, .budget = 512 * 1024, .tail_ms = 0,
				 .dir = sub, .keep = 0, .info = &info };
	struct flight *f = flight_new(&o, NULL);
	struct model m;
	struct strbuf line = STRBUF_INIT;
	char *path = NULL, *reason = NULL;
	struct errbuf err = { "" };

	model_open(&m, f);
	unsigned x = list_then_watch(&m);
	for (unsigned long i = 0; i < 100; i++)
		model_event(&m, x, i, &line);
	CHECK(flight_trigger(f, "signal", NULL));
	int rc = flight_dump_due(f, true, &path, &reason, &err);
	CHECKF(rc == -1 && strstr(err.msg, "cannot create"), "%d: %s", rc, err.msg);
	CHECK(mkdir(sub, 0700) == 0);
	CHECK(flight_trigger(f, "verify", NULL));	/* a dump of its own */
	rc = flight_dump_due(f, true, &path, &reason, &err);
	CHECKF(rc == 1, "%d: %s", rc, err.msg);
	if (rc == 1) {
		CHECK_STR(reason, "verify");
		unlink(path);
		free(path);
		free(reason);
	}
	CHECK(flight_dump_due(f, true, &path, &reason, &err) == 0);
	model_close(&m);
	strbuf_release(&line);
	flight_free(f);
	rmdir(sub);
	free(sub);
}

/* Out of file descriptors: an error to return, not an exit, from whatever thread. */
TEST(a_recorder_without_a_pipe_is_an_error_not_an_exit)
{
	struct flight_opts o = { .window_ms = 3600000, .budget = 512 * 1024, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info };
	struct errbuf err = { "" };
	struct rlimit was;

	CHECK(unit_fds_exhaust(&was));
	struct flight *f = flight_new(&o, &err);
	CHECK(unit_fds_restore(&was));
	CHECKF(!f && strstr(err.msg, "cannot make a pipe: Too many open files"), "%s", err.msg);
	flight_free(f);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(a_recorder_without_a_pipe_is_an_error_not_an_exit);
	RUN(memory_stays_within_the_budget_with_the_snapshots_asked_for);
	RUN(records_no_snapshot_covers_stay_up_to_the_grace_then_the_stream_is_left_out);
	RUN(the_exchanges_the_ring_let_go_of_are_forgotten);
	RUN(a_dump_holds_the_list_the_watch_and_the_trigger);
	RUN(a_dump_keeps_how_an_exchange_failed);
	RUN(a_dump_starts_from_a_snapshot_and_the_watch_from_its_place);
	RUN(a_streaming_lists_snapshot_is_the_head_of_its_watch);
	RUN(a_snapshot_counts_the_objects_it_alone_keeps);
	RUN(a_dumps_data_is_each_piece_as_the_recording_writes_it);
	RUN(a_dump_being_written_holds_up_neither_the_tap_nor_a_trigger);
	RUN(a_dump_that_cannot_be_written_is_said_and_the_next_one_is_written);
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	free(cmd);
	return unit_done();
}
