/*
 * test_flight.c — the flight recorder (cluster/flight.h): its memory
 * stays within the budget however much comes, a stream's list is kept as
 * the dump's starting point, and a dump is a recording that loads, with
 * its trigger.
 */
#include <json-c/json.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster/discovery.h"
#include "cluster/flight.h"
#include "cluster/http.h"
#include "cluster/recording.h"
#include "lib/json_get.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "unit.h"

#include <zlib.h>

/* Whether the gzip'd file at path holds text. */
static int gz_has(const char *path, const char *text)
{
	gzFile gz = gzopen(path, "rb");
	static char buf[4 << 20];
	int n = gz ? gzread(gz, buf, sizeof(buf) - 1) : -1;

	if (gz)
		gzclose(gz);
	if (n < 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, text) != NULL;
}

static char dir[] = "/tmp/kinf-unit-flight.XXXXXX";

static struct api_resource pods = { .group = "", .version = "v1", .name = "pods",
				    .kind = "Pod", .namespaced = true };
static const struct api_resource *const pods_only[] = { &pods };
static const struct recording_info info = {
	.server = "https://127.0.0.1:6443", .client_go = "1.36", .fifo = "RealFIFO",
	.resources = pods_only, .nr = 1,
};

#define STREAM "/api/v1/pods"

/* One whole exchange of STREAM: path, 200, the pieces given, a clean end. */
static void exchange(struct flight *f, const char *path, const char *const *pieces, size_t n)
{
	struct http_response resp = { .status = 200, .retry_after_ms = -1,
				      .content_type = "application/json" };
	unsigned x = flight_tap.begin(f, STREAM, path);

	flight_tap.head(f, x, &resp);
	for (size_t i = 0; i < n; i++)
		flight_tap.data(f, x, pieces[i], strlen(pieces[i]));
	flight_tap.end(f, x, 0, NULL, &resp, false);
}

/* A watch event that compresses as little as JSON does: its RV and a hash. */
static void watch_event(char *buf, size_t size, unsigned long i)
{
	unsigned long h = i * 2654435761UL;
	snprintf(buf, size, "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"pod-%lu\","
		 "\"resourceVersion\":\"%lu\"},\"status\":{\"podIP\":\"10.%lu.%lu.%lu\","
		 "\"hash\":\"%016lx%016lx\"}}}\n", i % 1000, 100 + i, h % 256, (h >> 8) % 256,
		 (h >> 16) % 256, h * 31, h ^ 0x9e3779b97f4a7c15UL);
}

/*
 * A pod-like watch event: a large part the same in every pod (as a
 * deployment's annotations are) but hardly compressible within one, its
 * name one of n, its RV and a short hash changing.  A ring's segment
 * holds many such events and keeps that part once; the checkpoint's
 * smaller segments hold fewer objects, so folding such events adds
 * several bytes of checkpoint per byte of ring let go of.
 */
static void pod_event(struct strbuf *sb, unsigned long i, unsigned long n)
{
	unsigned long h = i * 2654435761UL, p = 0x9e3779b97f4a7c15UL;

	strbuf_reset(sb);
	strbuf_addf(sb, "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"pod-%lu\","
		    "\"resourceVersion\":\"%lu\",\"annotations\":{\"applied\":\"", i % n, 100 + i);
	for (unsigned k = 0; k < 256; k++) {
		p ^= p >> 29, p *= 0xbf58476d1ce4e5b9UL, p ^= p >> 32;
		strbuf_addf(sb, "%016lx", p);
	}
	strbuf_addf(sb, "\"}},\"status\":{\"hash\":\"%08lx\"}}}\n", h & 0xffffffffUL);
}

/*
 * An empty list at RV 100, then a watch of n events (watch_event()):
 * the bytes tapped; *most gets the most the flight held meanwhile.
 */
static size_t tap_list_and_watch(struct flight *f, unsigned long n, size_t *most)
{
	static const char *const list[] = {
		"{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"100\"},\"items\":[]}",
	};
	struct http_response resp = { .status = 200, .retry_after_ms = -1 };
	size_t raw = 0;
	char ev[256];

	exchange(f, STREAM "?limit=500&resourceVersion=0", list, 1);
	unsigned x = flight_tap.begin(f, STREAM, STREAM "?watch=true&resourceVersion=100");
	flight_tap.head(f, x, &resp);
	for (unsigned long i = 0; i < n; i++) {
		watch_event(ev, sizeof(ev), i);
		flight_tap.data(f, x, ev, strlen(ev));
		raw += strlen(ev);
		size_t held = flight_bytes(f);
		if (held > *most)
			*most = held;
	}
	return raw;
}

TEST(memory_stays_within_the_budget_and_the_list_stays)
{
	const size_t budget = 512 * 1024;
	struct flight_opts o = { .window_ms = 3600000, .budget = budget, .tail_ms = 0,
				 .dir = dir, .keep = 5, .info = &info };
	struct flight *f = flight_new(&o, NULL);
	size_t most = 0, raw = tap_list_and_watch(f, 200000, &most);

	CHECKF(raw > 20 * budget, "only %zu bytes went through", raw);
	CHECKF(most <= budget, "held %zu bytes, over the budget of %zu", most, budget);
	CHECKF(most > budget / 2, "held at most %zu bytes: the ring hardly fills", most);

	CHECK(flight_trigger(f, "signal", NULL));
	CHECK(!flight_trigger(f, "verify", NULL));	/* part of the due dump */
	char *path, *reason;
	struct errbuf err = { "" };
	int rc = flight_dump_due(f, false, &path, &reason, &err);
	if (rc == 0) {	/* taken: the writer's thread writes it, and says so on flight_fd() */
		struct pollfd pfd = { .fd = flight_fd(f), .events = POLLIN };
		if (poll(&pfd, 1, 60000) == 1)
			rc = flight_dump_due(f, false, &path, &reason, &err);
	}
	CHECK(rc == 1);
	CHECK_STR(reason, "signal");
	CHECK(flight_dumps(f) == 1);
	struct stat st;
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	struct recording *rec = recording_load(path, &err);
	CHECKF(rec != NULL, "%s", err.msg);
	if (rec) {
		CHECK(recording_trigger(rec) != NULL);
		recording_free(rec);
	}
	/* The list, long out of the ring, is still its starting point: as a checkpoint. */
	CHECK(gz_has(path, "\"kind\\\":\\\"PodList"));
	CHECK(gz_has(path, "\"reconstructed\":true"));
	/* Nothing is due any more. */
	free(path);
	free(reason);
	CHECK(flight_dump_due(f, true, &path, &reason, &err) == 0);
	CHECK(flight_due_ms(f) == -1);
	flight_free(f);
}

/* A folder that never gets the CPU: held until the test lets it go. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool held, released;
} starved = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false };

static void starve(void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&starved.lock);
	starved.held = true;
	while (!starved.released)
		pthread_cond_wait(&starved.cond, &starved.lock);
	pthread_mutex_unlock(&starved.lock);
}

/*
 * The tap never waits for the niced folder to be scheduled: with the
 * folder starved, the taps fold what the budget needs themselves, and
 * the memory still stays within it.  (Waiting for the folder, as the
 * tap did, never returns here.)
 */
TEST(a_starved_folder_holds_up_no_tap)
{
	const size_t budget = 512 * 1024;
	struct flight_opts o = { .window_ms = 3600000, .budget = budget, .tail_ms = 0,
				 .dir = dir, .keep = 5, .info = &info,
				 .hold_folder = starve };
	struct flight *f = flight_new(&o, NULL);
	size_t most = 0, raw = tap_list_and_watch(f, 100000, &most);

	pthread_mutex_lock(&starved.lock);
	bool held = starved.held;
	starved.released = true;
	pthread_cond_broadcast(&starved.cond);
	pthread_mutex_unlock(&starved.lock);
	CHECK(held);	/* the folder did wake for work, and was kept from it */
	CHECKF(raw > 10 * budget, "only %zu bytes went through", raw);
	CHECKF(most <= budget, "held %zu bytes, over the budget of %zu", most, budget);
	flight_free(f);
}

/*
 * Under such a churn, bound by the size and not the window, the ring
 * keeps what the budget leaves it: the checkpoint's dead texts are
 * compacted away rather than paid for with the ring (which, folded,
 * adds more than it frees).  What the budget leaves it: 2 MiB less a
 * sixteenth (the folder's room), an eighth (the dead texts' share), a
 * compaction's peak (about 140 KiB) and the checkpoint of 2,000 pods
 * (about 300 KiB of texts, compressed, a 64 KiB open segment, the keys:
 * about 500 KiB): about 1 MiB.  Asked: a fifth of the budget (400 KiB)
 * at every moment once the ring has filled and the checkpoint's first
 * fill (which adds more than the ring frees) is over, from the 50,000th
 * event on: the estimates' error and what waits for the folder.
 * Letting go of the ring to pay for the dead texts took it down to
 * nothing, again and again.
 */
TEST(the_ring_keeps_what_the_budget_leaves_it)
{
	const size_t budget = 2 << 20;
	struct flight_opts o = { .window_ms = 3600000, .budget = budget, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info };
	struct flight *f = flight_new(&o, NULL);
	static const char *const list[] = {
		"{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"100\"},\"items\":[]}",
	};
	size_t most = 0, least = SIZE_MAX, raw = 0, full = 0;
	struct strbuf ev = STRBUF_INIT;

	exchange(f, STREAM "?limit=500&resourceVersion=0", list, 1);
	struct http_response resp = { .status = 200, .retry_after_ms = -1 };
	unsigned x = flight_tap.begin(f, STREAM, STREAM "?watch=true&resourceVersion=100");
	flight_tap.head(f, x, &resp);
	for (unsigned long i = 0; i < 120000; i++) {
		pod_event(&ev, i, 2000);
		flight_tap.data(f, x, ev.buf, ev.len);
		raw += ev.len;
		size_t held = flight_bytes(f), ring;
		int64_t age;
		flight_ring(f, &ring, &age);
		most = held > most ? held : most;
		if (!full && held >= budget / 2)
			full = raw;
		if (i >= 50000 && ring < least)
			least = ring;
	}
	CHECKF(full && raw > 5 * full, "the ring hardly filled: %zu bytes, full at %zu", raw, full);
	CHECKF(most <= budget, "held %zu bytes, over the budget of %zu", most, budget);
	CHECKF(least >= budget / 5, "the ring went down to %zu bytes, budget %zu", least, budget);
	strbuf_release(&ev);
	flight_free(f);
}

/* A streaming list of one pod, then n events of its watch; the most held. */
static size_t streaming_list(struct flight *f, unsigned long n)
{
	/* the bookmark's annotation split between two pieces */
	static const char *const initial[] = {
		"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"initial-pod\"}}}\n",
		"{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"annotations\":{\"k8s.io/initial-ev",
		"ents-end\":\"true\"},\"resourceVersion\":\"100\"}}}\n",
	};
	struct http_response resp = { .status = 200, .retry_after_ms = -1 };
	size_t most = 0;
	char ev[256];
	unsigned x = flight_tap.begin(f, STREAM, STREAM "?watch=true&sendInitialEvents=true"
				      "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true");

	flight_tap.head(f, x, &resp);
	for (size_t i = 0; i < 3; i++)
		flight_tap.data(f, x, initial[i], strlen(initial[i]));
	for (unsigned long i = 0; i < n; i++) {
		watch_event(ev, sizeof(ev), i);
		flight_tap.data(f, x, ev, strlen(ev));
		size_t held = flight_bytes(f);
		if (held > most)
			most = held;
	}
	return most;
}

/* A dump of f (now) holds each of texts. */
static void check_dump(struct flight *f, const char *const *texts, size_t n)
{
	char *path, *reason;
	struct errbuf err = { "" };

	CHECK(flight_trigger(f, "signal", NULL));
	CHECK(flight_dump_due(f, true, &path, &reason, &err) == 1);
	for (size_t i = 0; i < n; i++)
		CHECKF(gz_has(path, texts[i]), "no %s in the dump", texts[i]);
	unlink(path);
	free(path);
	free(reason);
}

/*
 * A streaming list is a watch that goes on after its initial events: what
 * comes after the bookmark that ends them is bounded as any watch is (it
 * grew the kept list without bound), the initial events stay as the
 * dump's starting point, and the watch is in a dump while none of it has
 * gone.
 */
TEST(a_streaming_lists_watch_stays_within_the_budget)
{
	const size_t budget = 512 * 1024;
	struct flight_opts o = { .window_ms = 3600000, .budget = budget, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info };
	static const char *const big[] = { "initial-pod", "ents-end" };
	static const char *const small[] = { "initial-pod", "ents-end",
					     "\\\"resourceVersion\\\":\\\"1099\\\"" };
	struct flight *f = flight_new(&o, NULL);

	size_t most = streaming_list(f, 200000);
	CHECKF(most <= budget, "held %zu bytes, over the budget of %zu", most, budget);
	check_dump(f, big, 2);
	flight_free(f);

	f = flight_new(&o, NULL);
	streaming_list(f, 1000);
	check_dump(f, small, 3);
	flight_free(f);
}

/* Under the budget, the dump is what came, list first, trigger in place. */
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
		recording_free(rec);
	}
	unlink(path);
	free(path);
	free(reason);
	flight_free(f);
}

/*
 * A list older than the window: the dump starts from the cache rebuilt
 * from it and the events that went, marked, and the memory counts it.
 */
TEST(a_list_older_than_the_window_becomes_a_reconstructed_checkpoint)
{
	struct flight_opts o = { .window_ms = 50, .budget = 1 << 20, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info };
	struct flight *f = flight_new(&o, NULL);
	static const char *const list[] = {
		"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"5\"},"
		"\"items\":[{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\",\"resourceVersion\":\"4\"}},"
		"{\"metadata\":{\"name\":\"b\",\"namespace\":\"ns\",\"resourceVersion\":\"5\"}}]}",
	};
	static const char *const events[] = {
		"{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"6\",\"labels\":{\"seen\":\"late\"}}}}\n{\"type\":\"DEL",
		"ETED\",\"object\":{\"metadata\":{\"name\":\"b\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"7\"}}}\n{\"type\":\"ADDED\",\"obj",
	};
	struct http_response resp = { .status = 200, .retry_after_ms = -1 };
	char *path, *reason;
	struct errbuf err = { "" };

	exchange(f, STREAM "?limit=500&resourceVersion=0", list, 1);
	unsigned x = flight_tap.begin(f, STREAM, STREAM "?watch=true&resourceVersion=5");
	flight_tap.head(f, x, &resp);
	for (size_t i = 0; i < ARRAY_SIZE(events); i++) {
		usleep(120000);	/* each piece out of the window by the next */
		flight_tap.data(f, x, events[i], strlen(events[i]));
	}
	usleep(120000);
	static const char rest[] = "ect\":{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\","
				   "\"resourceVersion\":\"8\"}}}\n";
	flight_tap.data(f, x, rest, strlen(rest));
	/* the list is gone into the checkpoint: what is held is its objects and the last piece */
	size_t held = flight_bytes(f);
	CHECKF(held > 100 && held < 4096, "held %zu bytes", held);
	CHECK(flight_trigger(f, "signal", NULL));
	CHECK(flight_dump_due(f, true, &path, &reason, &err) == 1);
	struct recording *rec = recording_load(path, &err);
	CHECKF(rec != NULL, "%s", err.msg);
	if (rec) {
		CHECK_STR(recording_reconstructed(rec, 0), STREAM);
		CHECK(recording_reconstructed(rec, 1) == NULL);
		recording_free(rec);
	}
	/* a at its late state, b deleted, at the last RV; the watch goes on mid-event */
	CHECK(gz_has(path, "\\\"resourceVersion\\\":\\\"7\\\"},\\\"items\\\":[{\\\"metadata\\\":"
		       "{\\\"name\\\":\\\"a\\\",\\\"namespace\\\":\\\"ns\\\",\\\"resourceVersion\\\":\\\"6\\\","
		       "\\\"labels\\\":{\\\"seen\\\":\\\"late\\\"}}}]}"));
	CHECK(gz_has(path, "\"data\":\"{\\\"type\\\":\\\"ADDED\\\",\\\"obj\"}"));
	unlink(path);
	free(path);
	free(reason);
	flight_free(f);
}

/* Pod i of a list: alike as pods are, each its own name, uid, IP and RV. */
static void list_pod(struct strbuf *sb, unsigned i)
{
	unsigned long h = i * 2654435761UL;

	strbuf_addf(sb, "{\"metadata\":{\"name\":\"web-%08lx-%u\",\"namespace\":\"ns-%u\","
		    "\"uid\":\"%08lx-%04lx-4%03lx-a%03lx-%012lx\",\"resourceVersion\":\"%u\","
		    "\"labels\":{\"app\":\"web\",\"tier\":\"frontend\"}},\"spec\":{\"nodeName\":"
		    "\"node-%u\",\"containers\":[{\"name\":\"app\",\"image\":\"registry.example."
		    "com/web:1.4.2\",\"ports\":[{\"containerPort\":8080,\"protocol\":\"TCP\"}],"
		    "\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"128Mi\"}}}]},"
		    "\"status\":{\"phase\":\"Running\",\"podIP\":\"10.%lu.%lu.%lu\",\"startTime\":"
		    "\"2026-11-24T18:%02u:%02uZ\"}}", h & 0xffffffff, i, i % 20, h * 7 & 0xffffffff,
		    h % 0xffff, h % 0xfff, (h >> 12) % 0xfff, h * 13 & 0xffffffffffff, 10 + i,
		    i % 50, h % 256, (h >> 8) % 256, (h >> 16) % 256, i % 60, (i / 60) % 60);
}

/* The recording's escaping of text ('"' as \"), as gz_has() looks for it. */
static char *escaped(const char *text)
{
	struct strbuf sb = STRBUF_INIT;

	for (; *text; text++) {
		if (*text == '"')
			strbuf_addch(&sb, '\\');
		strbuf_addch(&sb, *text);
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * 100,000 pods' list is 300 MiB of text: kept, and then as a checkpoint,
 * a list is held compressed, and a dump has its objects exactly.
 */
TEST(a_large_list_is_held_compressed_kept_and_as_a_checkpoint)
{
	struct flight_opts o = { .window_ms = 50, .budget = 64 << 20, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info };
	struct flight *f = flight_new(&o, NULL);
	struct strbuf list = STRBUF_INIT, pod = STRBUF_INIT;
	struct http_response resp = { .status = 200, .retry_after_ms = -1 };
	const unsigned n = 3000;
	char *path, *reason;
	struct errbuf err = { "" };

	/* a kind of its own: the Pods of the tests before taught theirs its dictionary */
	strbuf_adds(&list, "{\"kind\":\"WebPodList\",\"apiVersion\":\"v1\",\"metadata\":"
		    "{\"resourceVersion\":\"5000\"},\"items\":[");
	for (unsigned i = 0; i < n; i++) {
		if (i)
			strbuf_addch(&list, ',');
		list_pod(&list, i);
	}
	strbuf_adds(&list, "]}");
	const char *pieces[] = { strbuf_str(&list) };
	exchange(f, STREAM "?limit=500&resourceVersion=0", pieces, 1);
	size_t held = flight_bytes(f);
	CHECKF(held < list.len / 4, "the kept list: held %zu bytes of %zu", held, list.len);
	unsigned x = flight_tap.begin(f, STREAM, STREAM "?watch=true&resourceVersion=5000");
	flight_tap.head(f, x, &resp);
	static const char ev[] = "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":"
				 "{\"resourceVersion\":\"5001\"}}}\n";
	for (int i = 0; i < 2; i++) {
		usleep(120000);	/* out of the window by the next: the list is folded */
		flight_tap.data(f, x, ev, strlen(ev));
	}
	/* each object packed; its key, its entry and the map's table are not */
	held = flight_bytes(f);
	CHECKF(held < list.len / 2, "the checkpoint: held %zu bytes of %zu", held, list.len);
	CHECK(flight_trigger(f, "signal", NULL));
	CHECK(flight_dump_due(f, true, &path, &reason, &err) == 1);
	CHECK(gz_has(path, "\"reconstructed\":true"));
	for (unsigned i = 0; i < n; i += 997) {
		strbuf_reset(&pod);
		list_pod(&pod, i);
		char *want = escaped(pod.buf);
		CHECKF(gz_has(path, want), "pod %u is not in the dump as it came", i);
		free(want);
	}
	unlink(path);
	free(path);
	free(reason);
	strbuf_release(&list);
	strbuf_release(&pod);
	flight_free(f);
}

/*
 * Data is kept as it came and escaped for a dump: each piece is in the
 * dump as the recording writes it, whatever its bytes (newlines, quotes,
 * control bytes, bytes that are not UTF-8, which go as base64).
 */
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
	struct strbuf want = STRBUF_INIT;
	char *path, *reason;
	struct errbuf err = { "" };

	static const char *const list[] = { "{\"kind\":\"PodList\",\"items\":[]}" };

	/* a watch is in a dump after its list, where a replay starts */
	exchange(f, STREAM "?limit=500", list, 1);
	exchange(f, STREAM "?watch=true&resourceVersion=1", pieces, ARRAY_SIZE(pieces));
	CHECK(flight_trigger(f, "signal", NULL));
	CHECK(flight_dump_due(f, true, &path, &reason, &err) == 1);
	for (size_t i = 0; i < ARRAY_SIZE(pieces); i++) {
		strbuf_reset(&want);
		recording_line_data(&want, 0, 0, pieces[i], strlen(pieces[i]));
		const char *data = strstr(want.buf, "\"data");
		CHECKF(data && gz_has(path, data), "piece %zu is not in the dump as %s", i, want.buf);
	}
	unlink(path);
	free(path);
	free(reason);
	strbuf_release(&want);
	flight_free(f);
}

/* ---- a long fold against the truth -------------------------------------- */

#define FOLD_KEYS 40
#define FOLD_EVENTS 20000

/* Event i of the fold test: its key, whether it deletes, and its line. */
struct fold_event {
	unsigned key;
	bool del;
	char *line;
};

/* A cheap deterministic generator (xorshift). */
static unsigned long fold_rand(unsigned long *st)
{
	*st ^= *st << 13;
	*st ^= *st >> 7;
	*st ^= *st << 17;
	return *st;
}

/*
 * Object k at RV rv, written as a server might: escapes and whitespace
 * now and then, which the checkpoint must keep as json-c would write them.
 */
static void fold_object(struct strbuf *sb, unsigned k, unsigned long rv, unsigned long r)
{
	strbuf_addf(sb, "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"pod-%u\","
		    "\"namespace\":\"ns-%u\",\"resourceVersion\":\"%lu\"},\"status\":{\"n\":%lu",
		    k, k % 3, rv, r % 100000);
	if (r % 5 == 0)
		strbuf_adds(sb, ",\"msg\":\"\\u003cb\\u003e \\/ caf\xc3\xa9 \\\"q\\\"\"");
	if (r % 7 == 0)
		strbuf_adds(sb, ", \"spaced\" : [ 1 , 2.50 , true , null ]");
	strbuf_adds(sb, "}}");
}

/* The events: each key added, then modified or deleted; a bookmark now and then. */
static struct fold_event *fold_events(void)
{
	struct fold_event *ev = xcalloc(FOLD_EVENTS, sizeof(*ev));
	bool present[FOLD_KEYS] = { false };
	unsigned long st = 88172645463325252UL;

	for (unsigned i = 0; i < FOLD_EVENTS; i++) {
		unsigned long r = fold_rand(&st), rv = 1000 + i;
		struct strbuf sb = STRBUF_INIT;
		unsigned k = (unsigned)(r % FOLD_KEYS);
		ev[i].key = k;
		if (r % 53 == 0) {
			ev[i].key = UINT32_MAX;
			strbuf_addf(&sb, "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":"
				    "\"v1\",\"metadata\":{\"resourceVersion\":\"%lu\"}}}\n", rv);
		} else {
			const char *type = !present[k] ? "ADDED" : r % 4 == 0 ? "DELETED" : "MODIFIED";
			ev[i].del = !strcmp(type, "DELETED");
			present[k] = !ev[i].del;
			strbuf_addf(&sb, "{\"type\":\"%s\",\"object\":", type);
			fold_object(&sb, k, rv, r >> 8);
			strbuf_adds(&sb, "}\n");
		}
		ev[i].line = strbuf_detach(&sb, NULL);
	}
	return ev;
}

/* A dump's text, uncompressed. */
static void gz_read(const char *path, struct strbuf *out)
{
	gzFile gz = gzopen(path, "rb");
	char buf[65536];
	int n;

	while (gz && (n = gzread(gz, buf, sizeof(buf))) > 0)
		strbuf_add(out, buf, (size_t)n);
	if (gz)
		gzclose(gz);
}

/* The body of the dump's reconstructed exchange (caller frees); NULL: none. */
static char *reconstructed_body_of(const char *dump)
{
	struct strbuf text = STRBUF_INIT;
	char *body = NULL;
	int64_t x = -1;

	gz_read(dump, &text);
	for (char *line = strtok(text.buf, "\n"); line && !body; line = strtok(NULL, "\n")) {
		struct json_object *r = json_tokener_parse(line), *v;
		if (json_object_object_get_ex(r, "reconstructed", NULL) && x < 0 &&
		    json_object_object_get_ex(r, "x", &v))
			x = json_object_get_int64(v);
		else if (json_object_object_get_ex(r, "x", &v) && json_object_get_int64(v) == x &&
			 json_object_object_get_ex(r, "data", &v))
			body = xstrdup(json_object_get_string(v));
		json_object_put(r);
	}
	strbuf_release(&text);
	return body;
}

static int fold_key_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * What the reconstructed list must be once events [0, upto] are folded
 * into the list's objects: every object as json-c writes its text, in
 * key order, at upto's RV.
 */
static char *fold_truth(const struct fold_event *ev, unsigned long upto, const char *list_items)
{
	struct json_object *truth[FOLD_KEYS] = { NULL };
	struct json_object *items = json_tokener_parse(list_items);
	char *keyed[FOLD_KEYS];
	size_t n = 0;
	struct strbuf sb = STRBUF_INIT;

	/* the list's item i is key i * 4 (as the test makes it) */
	for (size_t i = 0; i < json_object_array_length(items); i++)
		truth[i * 4] = json_object_get(json_object_array_get_idx(items, i));
	json_object_put(items);
	for (unsigned long i = 0; i <= upto; i++) {
		if (ev[i].key == UINT32_MAX)
			continue;
		struct json_object *e = json_tokener_parse(ev[i].line), *obj;
		json_object_put(truth[ev[i].key]);
		truth[ev[i].key] = NULL;
		if (!ev[i].del && json_object_object_get_ex(e, "object", &obj))
			truth[ev[i].key] = json_object_get(obj);
		json_object_put(e);
	}
	for (unsigned k = 0; k < FOLD_KEYS; k++) {
		if (!truth[k])
			continue;
		keyed[n++] = xasprintf("ns-%u/pod-%u\t%s", k % 3, k, json_object_to_json_string_ext(
			truth[k], JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(truth[k]);
	}
	qsort(keyed, n, sizeof(*keyed), fold_key_cmp);
	strbuf_addf(&sb, "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":"
		    "{\"resourceVersion\":\"%lu\"},\"items\":[", 1000 + upto);
	for (size_t i = 0; i < n; i++) {
		strbuf_adds(&sb, i ? "," : "");
		strbuf_adds(&sb, strchr(keyed[i], '\t') + 1);
		free(keyed[i]);
	}
	strbuf_adds(&sb, "]}\n");
	return strbuf_detach(&sb, NULL);
}

/*
 * Many events through a small ring (its budget), in pieces cut anywhere:
 * the checkpoint the dump starts from is the list with every event that
 * went folded in, exactly, at the RV of the last one that went.
 */
TEST(a_checkpoint_folded_from_many_events_is_the_truth)
{
	struct flight_opts o = { .window_ms = 3600000, .budget = 48 * 1024, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info };
	struct flight *f = flight_new(&o, NULL);
	struct fold_event *ev = fold_events();
	struct strbuf list = STRBUF_INIT, items = STRBUF_INIT, stream = STRBUF_INIT;
	struct http_response resp = { .status = 200, .retry_after_ms = -1 };
	char *path = NULL, *reason = NULL;
	struct errbuf err = { "" };

	strbuf_addch(&items, '[');
	for (unsigned k = 0; k < 10; k++) {
		strbuf_adds(&items, k ? "," : "");
		fold_object(&items, k * 4, 900 + k, k * 7);
	}
	strbuf_addch(&items, ']');
	strbuf_addf(&list, "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":"
		    "{\"resourceVersion\":\"999\"},\"items\":%s}", items.buf);
	/* the list's keys (k * 4) are the events' too: truth starts from them */
	for (unsigned i = 0; i < FOLD_EVENTS; i++)
		strbuf_adds(&stream, ev[i].line);
	const char *pieces[] = { strbuf_str(&list) };
	exchange(f, STREAM "?limit=500&resourceVersion=0", pieces, 1);
	unsigned x = flight_tap.begin(f, STREAM, STREAM "?watch=true&resourceVersion=999");
	flight_tap.head(f, x, &resp);
	for (size_t at = 0, cut = 1; at < stream.len; at += cut, cut = (cut * 7 + 333) % 1500 + 1) {
		size_t n = at + cut > stream.len ? stream.len - at : cut;
		flight_tap.data(f, x, stream.buf + at, n);
	}
	CHECK(flight_trigger(f, "signal", NULL));
	CHECK(flight_dump_due(f, true, &path, &reason, &err) == 1);
	char *body = path ? reconstructed_body_of(path) : NULL;
	CHECKF(body != NULL, "the dump has no reconstructed list");
	struct json_object *b = body ? json_tokener_parse(body) : NULL;
	const char *rv = json_get_str(json_get(b, "metadata"), "resourceVersion", "0");
	unsigned long upto = strtoul(rv, NULL, 10) - 1000;
	CHECKF(upto > FOLD_EVENTS / 2 && upto < FOLD_EVENTS, "folded up to RV %s", rv);
	if (body && upto < FOLD_EVENTS) {
		char *want = fold_truth(ev, upto, items.buf);
		CHECKF(!strcmp(body, want), "folded up to event %lu:\n%s\nwant:\n%s", upto, body, want);
		free(want);
	}
	json_object_put(b);
	free(body);
	if (path)
		unlink(path);
	free(path);
	free(reason);
	for (unsigned i = 0; i < FOLD_EVENTS; i++)
		free(ev[i].line);
	free(ev);
	strbuf_release(&list);
	strbuf_release(&items);
	strbuf_release(&stream);
	flight_free(f);
}

/* ---- a list leaving the window is its checkpoint's base ----------------- */

#define BASE_PODS 2000

/* Pod k's text at rv, in phase. */
static void base_pod(struct strbuf *sb, unsigned k, unsigned long rv, const char *phase)
{
	strbuf_addf(sb, "{\"metadata\":{\"name\":\"p-%u\",\"namespace\":\"ns-%u\",\"resourceVersion\":"
		    "\"%lu\"},\"spec\":{\"nodeName\":\"node-%u\"},\"status\":{\"phase\":\"%s\","
		    "\"podIP\":\"10.1.%u.%u\"}}", k, k % 7, rv, k % 13, phase, k / 256, k % 256);
}

/* The pieces of text, cut anywhere, into exchange x. */
static void feed_cut(struct flight *f, unsigned x, const char *text, size_t len, size_t seed)
{
	for (size_t at = 0, cut = seed % 900 + 1; at < len; at += cut, cut = (cut * 7 + 333) % 1500 + 1)
		flight_tap.data(f, x, text + at, at + cut > len ? len - at : cut);
}

/* The expected ADDED lines of a streaming checkpoint: each live pod, in key order. */
static char *base_truth(char **texts, unsigned n)
{
	char **keyed = xcalloc(n + 1, sizeof(*keyed));
	size_t nk = 0;
	struct strbuf sb = STRBUF_INIT;

	for (unsigned k = 0; k < n; k++)
		if (texts[k])
			keyed[nk++] = xasprintf("ns-%u/p-%u\t%s", k % 7, k, texts[k]);
	qsort(keyed, nk, sizeof(*keyed), fold_key_cmp);
	for (size_t i = 0; i < nk; i++) {
		strbuf_addf(&sb, "{\"type\":\"ADDED\",\"object\":%s}\n", strchr(keyed[i], '\t') + 1);
		free(keyed[i]);
	}
	free(keyed);
	return strbuf_detach(&sb, NULL);
}

/* m watch events onto texts (pods of [0, n)), from rv on, as one text in out. */
static void base_events(char **texts, unsigned n, unsigned m, unsigned long *rv,
			struct strbuf *out)
{
	struct strbuf pod = STRBUF_INIT;

	for (unsigned j = 0; j < m; j++) {
		unsigned k = (unsigned)(((*rv * 2654435761UL) >> 7) % n);	/* spread over all */
		const char *type = !texts[k] ? "ADDED" : j % 5 == 0 ? "DELETED" : "MODIFIED";
		strbuf_reset(&pod);
		base_pod(&pod, k, ++*rv, j % 2 ? "Running" : "Succeeded");
		strbuf_addf(out, "{\"type\":\"%s\",\"object\":%s}\n", type, pod.buf);
		free(texts[k]);
		texts[k] = strcmp(type, "DELETED") ? xstrdup(pod.buf) : NULL;
	}
	strbuf_release(&pod);
}

/* The dump's streaming checkpoint, up to its bookmark, is want, at rv. */
static void check_base_dump(struct flight *f, const char *want, unsigned long rv)
{
	char *path = NULL, *reason = NULL;
	struct errbuf err = { "" };

	CHECK(flight_trigger(f, "signal", NULL));
	CHECK(flight_dump_due(f, true, &path, &reason, &err) == 1);
	char *body = path ? reconstructed_body_of(path) : NULL;
	const char *bm = body ? strstr(body, "{\"type\":\"BOOKMARK\"") : NULL;
	CHECKF(bm != NULL, "the dump has no reconstructed streaming list");
	if (bm) {
		CHECKF((size_t)(bm - body) == strlen(want) && !strncmp(body, want, strlen(want)),
		       "the checkpoint is not the truth:\n%.*s\nwant:\n%s", (int)(bm - body), body, want);
		char *at = xasprintf("\"resourceVersion\":\"%lu\"", rv);
		CHECKF(strstr(bm, at) != NULL, "the checkpoint is not at %s: %s", at, bm);
		free(at);
	}
	free(body);
	if (path)
		unlink(path);
	free(path);
	free(reason);
}

/*
 * A streaming list that left the window, with changes after it: its
 * records are the checkpoint's base as kept, the changes apart; a dump
 * is the list with every change that went, exactly, and so it is once
 * the changes outweigh the base and the two are folded into one.
 */
TEST(a_list_leaving_the_window_with_changes_after_it_is_the_truth)
{
	/* room for the base and the overlay beside the checkpoint they become */
	struct flight_opts o = { .window_ms = 50, .budget = 4 << 20, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info };
	struct flight *f = flight_new(&o, NULL);
	char **texts = xcalloc(BASE_PODS, sizeof(*texts));
	struct strbuf text = STRBUF_INIT, pod = STRBUF_INIT;
	struct http_response resp = { .status = 200, .retry_after_ms = -1 };
	unsigned long rv = 1000;

	for (unsigned k = 0; k < BASE_PODS; k += 2) {	/* the odd ones come later */
		strbuf_reset(&pod);
		base_pod(&pod, k, ++rv, "Pending");
		strbuf_addf(&text, "{\"type\":\"ADDED\",\"object\":%s}\n", pod.buf);
		texts[k] = xstrdup(pod.buf);
	}
	strbuf_addf(&text, "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":"
		    "\"%lu\",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}}\n", rv);
	/* the first event after it begins in the bookmark's piece */
	base_events(texts, BASE_PODS, 1, &rv, &text);
	size_t first = text.len - 40;
	unsigned x = flight_tap.begin(f, STREAM, STREAM "?watch=true&sendInitialEvents=true"
				      "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true");
	flight_tap.head(f, x, &resp);
	feed_cut(f, x, text.buf, first, 1);
	flight_tap.data(f, x, text.buf + first, text.len - first);
	usleep(120000);	/* the list is out of the window by the next */
	strbuf_reset(&text);
	base_events(texts, BASE_PODS, 300, &rv, &text);
	feed_cut(f, x, text.buf, text.len, 2);
	usleep(120000);
	static const char piece[] = "{\"type\":\"BOOKM";	/* the ring's, not folded */
	flight_tap.data(f, x, piece, strlen(piece));
	char *want = base_truth(texts, BASE_PODS);
	check_base_dump(f, want, rv);
	free(want);

	/* most pods replaced: the base is folded with the changes */
	strbuf_reset(&text);
	strbuf_addf(&text, "ARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"%lu\"}}}\n", rv);
	base_events(texts, BASE_PODS, 6000, &rv, &text);
	feed_cut(f, x, text.buf, text.len, 3);
	usleep(120000);
	flight_tap.data(f, x, piece, strlen(piece));
	want = base_truth(texts, BASE_PODS);
	check_base_dump(f, want, rv);
	free(want);

	for (unsigned k = 0; k < BASE_PODS; k++)
		free(texts[k]);
	free(texts);
	strbuf_release(&text);
	strbuf_release(&pod);
	flight_free(f);
}

/* ---- a dump while the flight's thread folds ----------------------------- */

#define BUSY_EVENTS 100000

struct busy {
	struct flight *f;
	unsigned watch;		/* its exchange, once begun */
};

/* A list of no pods at RV 99, then a watch of events at RVs 100, 101, ... */
static void *busy_feed(void *arg)
{
	struct busy *b = arg;
	struct http_response resp = { .status = 200, .retry_after_ms = -1 };
	static const char *const list[] = {
		"{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"99\"},\"items\":[]}",
	};
	char ev[256];

	exchange(b->f, STREAM "?limit=500&resourceVersion=0", list, 1);
	unsigned x = flight_tap.begin(b->f, STREAM, STREAM "?watch=true&resourceVersion=99");
	__atomic_store_n(&b->watch, x, __ATOMIC_RELEASE);
	flight_tap.head(b->f, x, &resp);
	for (unsigned long i = 0; i < BUSY_EVENTS; i++) {
		watch_event(ev, sizeof(ev), i);
		size_t n = strlen(ev), half = i % 3 ? n : n / 2;	/* some split in two */
		flight_tap.data(b->f, x, ev, half);
		if (half < n)
			flight_tap.data(b->f, x, ev + half, n - half);
	}
	return NULL;
}

/*
 * A dump's starting point and the watch after it: the checkpoint's RV
 * (or the list's), and whether the watch's events in the dump go on from
 * it with no RV missing or twice; how many there were, and the RV of the
 * last (last_rv, if not NULL).
 */
static long dump_continues(const char *path, unsigned watch, unsigned long *last_rv)
{
	struct strbuf text = STRBUF_INIT, data = STRBUF_INIT;
	unsigned long rv = 0;
	long n = 0;

	gz_read(path, &text);
	for (char *line = strtok(text.buf, "\n"); line; line = strtok(NULL, "\n")) {
		struct json_object *r = json_tokener_parse(line), *v, *d;
		if (json_object_object_get_ex(r, "data", &d) && json_object_object_get_ex(r, "x", &v)) {
			struct json_object *body = json_tokener_parse(json_object_get_string(d));
			if (json_object_object_get_ex(body, "items", NULL))
				rv = strtoul(json_get_str(json_get(body, "metadata"), "resourceVersion",
							  "0"), NULL, 10);
			else if (json_object_get_int64(v) == watch)
				strbuf_adds(&data, json_object_get_string(d));
			json_object_put(body);
		}
		json_object_put(r);
	}
	for (char *p = data.buf, *nl; p && (nl = strchr(p, '\n')); p = nl + 1) {
		const char *at = strstr(p, "\"resourceVersion\":\"");
		if (!rv || !at || strtoul(at + 19, NULL, 10) != rv + 1) {
			n = -1;
			break;
		}
		rv++;
		n++;
	}
	strbuf_release(&text);
	strbuf_release(&data);
	if (last_rv)
		*last_rv = rv;
	return n;
}

/*
 * Dumps taken while the tap goes on and the flight's thread folds what
 * left the budget: each is one consistent moment, the checkpoint and the
 * watch after it neither missing an event nor holding one twice.
 */
TEST(a_dump_while_the_flight_folds_is_one_moment)
{
	/* room for the checkpoint of 1,000 pods and a ring beside it */
	struct flight_opts o = { .window_ms = 3600000, .budget = 1024 * 1024, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info };
	struct busy b = { .f = flight_new(&o, NULL) };
	pthread_t feeder;
	int dumps = 0;

	pthread_create(&feeder, NULL, busy_feed, &b);
	for (int i = 0; i < 200 && dumps < 8; i++) {
		usleep(20000);
		unsigned watch = __atomic_load_n(&b.watch, __ATOMIC_ACQUIRE);
		char *path = NULL, *reason = NULL;
		struct errbuf err = { "" };
		if (!watch || !flight_trigger(b.f, "signal", NULL))
			continue;
		if (flight_dump_due(b.f, true, &path, &reason, &err) != 1)
			continue;
		long n = dump_continues(path, watch, NULL);
		CHECKF(n > 0, "dump %d: the watch does not go on from its checkpoint (%ld)", dumps, n);
		dumps++;
		unlink(path);
		free(path);
		free(reason);
	}
	pthread_join(feeder, NULL);
	CHECKF(dumps >= 3, "only %d dumps while the tap went on", dumps);
	flight_free(b.f);
}

/* ---- a dump being written --------------------------------------------- */

/* A flight's thread held where its hook is called, until the test lets it go. */
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

struct more {
	struct flight *f;
	unsigned x;
	unsigned long from, n;
	bool done;
};

/* More of the watch, then every fold done: neither may wait for a dump. */
static void *feed_more(void *arg)
{
	struct more *m = arg;
	char ev[256];

	for (unsigned long i = m->from; i < m->from + m->n; i++) {
		watch_event(ev, sizeof(ev), i);
		flight_tap.data(m->f, m->x, ev, strlen(ev));
	}
	flight_settle(m->f);
	__atomic_store_n(&m->done, true, __ATOMIC_RELEASE);
	return NULL;
}

#define HELD_BEFORE 30000	/* events before the trigger: the ring full */
#define HELD_AFTER 60000	/* after: the ring let go of twice over */

/*
 * A list of no pods at RV 99, a watch (m->x) of HELD_BEFORE events, a
 * trigger and its dump taken, then the flight's thread held at h's hook.
 * When the trigger came (mono_ms()).
 */
static int64_t take_held(struct more *m, struct hold *h)
{
	struct http_response resp = { .status = 200, .retry_after_ms = -1 };
	static const char *const list[] = {
		"{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"99\"},\"items\":[]}",
	};
	char ev[256], *path = NULL, *reason = NULL;
	struct errbuf err = { "" };

	exchange(m->f, STREAM "?limit=500&resourceVersion=0", list, 1);
	m->x = flight_tap.begin(m->f, STREAM, STREAM "?watch=true&resourceVersion=99");
	flight_tap.head(m->f, m->x, &resp);
	for (unsigned long i = 0; i < HELD_BEFORE; i++) {
		watch_event(ev, sizeof(ev), i);
		flight_tap.data(m->f, m->x, ev, strlen(ev));
	}
	CHECK(flight_trigger(m->f, "signal", NULL));
	int64_t triggered = mono_ms();
	CHECK(flight_dump_due(m->f, false, &path, &reason, &err) == 0);	/* taken, not written */
	pthread_mutex_lock(&h->lock);
	while (!h->held)
		pthread_cond_wait(&h->cond, &h->lock);
	pthread_mutex_unlock(&h->lock);
	return triggered;
}

/*
 * While a dump is being written (its writer held), the tap takes twice
 * the ring's worth of events, so that the folder lets go of every
 * segment the dump reads, and folds them; triggers are taken.  Then the
 * dump is still the moment it was due (the watch up to the trigger's
 * event, none after), and the triggers that came meanwhile are written
 * in turn.  Under ASan this is also the segments' lifetime: the folder
 * frees what the dump still holds a reference to.
 */
TEST(a_dump_being_written_holds_up_neither_the_tap_the_folder_nor_a_trigger)
{
	struct hold h = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
	struct flight_opts o = { .window_ms = 3600000, .budget = 512 * 1024, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info, .hold = hold_thread,
				 .hold_ctx = &h };
	struct flight *f = flight_new(&o, NULL);
	struct more m = { .f = f, .from = HELD_BEFORE, .n = HELD_AFTER };
	char *path = NULL, *reason = NULL;
	struct errbuf err = { "" };
	pthread_t feeder;
	int64_t triggered = take_held(&m, &h);
	usleep(5000);	/* what comes now is later than the trigger by the ms */

	pthread_create(&feeder, NULL, feed_more, &m);
	int64_t end = mono_ms() + 30000;
	while (!__atomic_load_n(&m.done, __ATOMIC_ACQUIRE) && mono_ms() < end)
		usleep(10000);
	if (CHECK_FAILS(!__atomic_load_n(&m.done, __ATOMIC_ACQUIRE),
			"the tap and the folder go on while a dump is being written (30 s)")) {
		let_go(&h);	/* the rest would wait for the writer too */
		pthread_join(feeder, NULL);
		while (flight_dump_due(f, true, &path, &reason, &err)) {
			free(path);
			free(reason);
		}
		flight_free(f);
		return;
	}
	size_t ring;
	int64_t age;
	flight_ring(f, &ring, &age);
	CHECKF(age >= 0 && age + 3 < mono_ms() - triggered,
	       "the ring still holds a record from before the trigger (%lld ms old, %lld since)",
	       (long long)age, (long long)(mono_ms() - triggered));
	CHECK(flight_trigger(f, "verify", NULL));	/* not part of the dump being written */
	CHECK(flight_dump_due(f, false, &path, &reason, &err) == 0);	/* taken: waits for the writer */
	CHECK(flight_trigger(f, "key", NULL));
	CHECK(flight_due_ms(f) == -1);	/* due, not taken: flight_fd() says when */

	let_go(&h);
	pthread_join(feeder, NULL);
	static const char *const reasons[] = { "signal", "verify", "key" };
	for (size_t i = 0; i < ARRAY_SIZE(reasons); i++) {
		int rc = flight_dump_due(f, true, &path, &reason, &err);
		CHECKF(rc == 1, "dump %zu: %d %s", i, rc, err.msg);
		if (rc != 1)
			break;
		CHECK_STR(reason, reasons[i]);
		unsigned long last = 0;
		long n = dump_continues(path, m.x, &last);
		CHECKF(n > 0, "dump %zu: the watch does not go on from its checkpoint (%ld)", i, n);
		if (!i)
			CHECKF(last == 100 + HELD_BEFORE - 1,
			       "the first dump's watch ends at RV %lu, not at the trigger's %u", last,
			       100 + HELD_BEFORE - 1);
		unlink(path);
		free(path);
		free(reason);
	}
	CHECK(flight_dump_due(f, true, &path, &reason, &err) == 0);
	CHECK(flight_dumps(f) == 3);
	flight_free(f);
}

/*
 * The consumer only takes a dump; the flight's thread then makes its
 * checkpoints text.  Held just before it does, while the tap takes
 * twice the ring's worth of events (the tap waits for the folder once
 * enough is pending): let go, it makes the texts before it folds any of
 * them, so the dump is still the moment it was taken.
 */
TEST(a_dumps_checkpoints_are_made_text_before_the_folder_folds_more)
{
	struct hold h = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
	struct flight_opts o = { .window_ms = 3600000, .budget = 512 * 1024, .tail_ms = 0,
				 .dir = dir, .keep = 0, .info = &info, .hold_texts = hold_thread,
				 .hold_ctx = &h };
	struct flight *f = flight_new(&o, NULL);
	struct more m = { .f = f, .from = HELD_BEFORE, .n = HELD_AFTER };
	char *path = NULL, *reason = NULL;
	struct errbuf err = { "" };
	pthread_t feeder;

	take_held(&m, &h);

	pthread_create(&feeder, NULL, feed_more, &m);
	usleep(300000);	/* what comes is pending, then the tap waits for the folder */
	let_go(&h);
	pthread_join(feeder, NULL);
	int rc = flight_dump_due(f, true, &path, &reason, &err);
	CHECKF(rc == 1, "%d %s", rc, err.msg);
	if (rc == 1) {
		unsigned long last = 0;
		long n = dump_continues(path, m.x, &last);
		CHECKF(n > 0, "the watch does not go on from its checkpoint (%ld)", n);
		CHECKF(last == 100 + HELD_BEFORE - 1, "the dump's watch ends at RV %lu, not at %u",
		       last, 100 + HELD_BEFORE - 1);
		unlink(path);
		free(path);
		free(reason);
	}
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
	char ev[256], *path = NULL, *reason = NULL;
	struct errbuf err = { "" };
	struct http_response resp = { .status = 200, .retry_after_ms = -1 };
	unsigned x = flight_tap.begin(f, STREAM, STREAM "?watch=true&resourceVersion=99");

	flight_tap.head(f, x, &resp);
	for (unsigned long i = 0; i < 100; i++) {
		watch_event(ev, sizeof(ev), i);
		flight_tap.data(f, x, ev, strlen(ev));
	}
	CHECK(flight_trigger(f, "signal", NULL));
	int rc = flight_dump_due(f, true, &path, &reason, &err);
	CHECKF(rc == -1 && strstr(err.msg, "cannot create"), "%d: %s", rc, err.msg);
	CHECK(flight_dumps(f) == 0);
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
	CHECK(flight_dumps(f) == 1);
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
	RUN(memory_stays_within_the_budget_and_the_list_stays);
	RUN(a_starved_folder_holds_up_no_tap);
	RUN(the_ring_keeps_what_the_budget_leaves_it);
	RUN(a_dump_holds_the_list_the_watch_and_the_trigger);
	RUN(a_streaming_lists_watch_stays_within_the_budget);
	RUN(a_list_older_than_the_window_becomes_a_reconstructed_checkpoint);
	RUN(a_large_list_is_held_compressed_kept_and_as_a_checkpoint);
	RUN(a_dumps_data_is_each_piece_as_the_recording_writes_it);
	RUN(a_checkpoint_folded_from_many_events_is_the_truth);
	RUN(a_list_leaving_the_window_with_changes_after_it_is_the_truth);
	RUN(a_dump_while_the_flight_folds_is_one_moment);
	RUN(a_dump_being_written_holds_up_neither_the_tap_the_folder_nor_a_trigger);
	RUN(a_dumps_checkpoints_are_made_text_before_the_folder_folds_more);
	RUN(a_dump_that_cannot_be_written_is_said_and_the_next_one_is_written);
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	free(cmd);
	return unit_done();
}
