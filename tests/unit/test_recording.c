/*
 * test_recording.c — the recording file (cluster/recording.h): what the
 * recorder writes, the reader reads back and the replay hands out, byte
 * for byte and at the recorded times; and what a bad file is told as.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cluster/discovery.h"
#include "cluster/recording.h"
#include "cluster/replay.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "unit.h"

static char dir[] = "/tmp/kinf-unit-recording.XXXXXX";

static char *path_of(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

/* Writes text, gzip'd, to the file name in dir. */
static char *write_gz(const char *name, const char *text, size_t len)
{
	char *path = path_of(name);
	gzFile gz = gzopen(path, "wb");
	gzwrite(gz, text, (unsigned)len);
	gzclose(gz);
	return path;
}

/* A header naming pods. */
static struct api_resource pods = { .group = "", .version = "v1", .name = "pods",
				    .kind = "Pod", .namespaced = true };
static const struct api_resource *const pods_only[] = { &pods };
static const struct recording_info info = {
	.server = "https://127.0.0.1:6443", .client_go = "1.36", .fifo = "RealFIFO",
	.resources = pods_only, .nr = 1,
};

/* What a replay hands on_data, gathered. */
struct sink {
	struct strbuf got;
	int pieces;
	int64_t clock_at[8];	/* the replay clock at each piece */
	struct replay *rp;
	int abort_at;		/* -1 at this piece; 0: never */
};

static int on_data(void *ctx, const char *data, size_t len)
{
	struct sink *s = ctx;

	if (s->pieces < 8)
		s->clock_at[s->pieces] = replay_now_ms(s->rp);
	s->pieces++;
	strbuf_add(&s->got, data, len);
	return s->pieces == s->abort_at ? -1 : 0;
}

/* A replay of the file at path, feeding s; NULL (and a failed check) if unreadable. */
static struct replay *open_replay(const char *path, struct sink *s)
{
	struct errbuf err = { "" };
	struct recording *r = recording_load(path, &err);

	CHECK_STR(err.msg, "");
	*s = (struct sink){ .got = STRBUF_INIT };
	if (!r)
		return NULL;
	s->rp = replay_new(r, &(struct replay_opts){ 0 });
	return s->rp;
}

TEST(round_trip_keeps_bytes_status_and_order)
{
	struct errbuf err = { "" };
	char *path = path_of("rt.rec");
	struct recorder *rec = recorder_open(path, &info, &err);
	static const char binary[] = { 'a', 0, (char)0xff, '\n', 'b' };

	CHECK(rec != NULL);
	const struct kclient_tap *tap = &recorder_tap;
	unsigned x1 = tap->begin(rec, "/api/v1/pods", "/api/v1/pods?limit=500");
	unsigned x2 = tap->begin(rec, "/api/v1/pods", "/api/v1/pods?watch=1");
	struct http_response ok = { .status = 200, .content_type = "application/json",
				    .retry_after_ms = -1 };
	struct http_response slow = { .status = 429, .retry_after_ms = 2000, .refused = true };
	tap->head(rec, x1, &ok);
	tap->data(rec, x1, "{\"items\":[\"\\u00e9\"]}\n", 20);
	tap->data(rec, x1, binary, sizeof(binary));
	tap->end(rec, x1, 0, "", &ok, false);
	tap->head(rec, x2, &slow);
	tap->data(rec, x2, "slow down", 9);
	tap->end(rec, x2, -1, "reset", &slow, false);
	CHECK_INT(recorder_close(rec, &err), 0);

	struct stat st;
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0600);

	struct recording *hr = recording_load(path, &err);
	CHECK(hr != NULL);
	if (hr)
		CHECK_INT(json_object_get_int(json_object_object_get(recording_header(hr),
								     "kinfRecording")), 1);
	recording_free(hr);

	struct sink s;
	struct replay *rp = open_replay(path, &s);
	if (!rp)
		return;
	struct http_response ans = { 0 };
	struct stream_opts req = { .record_as = "/api/v1/pods" };

	/* exchange 1: both pieces, the binary one whole */
	CHECK_INT(replay_stream(rp, NULL, &req, on_data, &s, &ans, &err), 0);
	CHECK_INT(ans.status, 200);
	CHECK_STR(ans.content_type, "application/json");
	CHECK_INT(s.pieces, 2);
	CHECK_INT(s.got.len, 20 + sizeof(binary));
	CHECK(!memcmp(s.got.buf + 20, binary, sizeof(binary)));
	CHECK(!memcmp(s.got.buf, "{\"items\":[\"\\u00e9\"]}\n", 20));
	/* exchange 2: a 429, its body gathered, its end as recorded */
	CHECK_INT(replay_stream(rp, NULL, &req, on_data, &s, &ans, &err), -1);
	CHECK_INT(ans.status, 429);
	CHECK_INT(ans.retry_after_ms, 2000);
	CHECK(ans.refused);
	CHECK_STR(err.msg, "reset");
	CHECK_STR(strbuf_str(&ans.body), "slow down");
	CHECK_INT(s.pieces, 2);
	/* another stream: not recorded, so ended (and stopped: it waits for that) */
	atomic_bool stop = true;
	req.record_as = "/api/v1/nodes";
	req.stop = &stop;
	CHECK_INT(replay_stream(rp, NULL, &req, on_data, &s, &ans, &err), -1);
	CHECK_STR(err.msg, "stopped");

	replay_free(rp);
	strbuf_release(&s.got);
	http_response_release(&ans);
	unlink(path);
	free(path);
}

/* The tick a silent watch is renewed by, on the recorded clock. */
static int64_t renew_after_100(void *ctx)
{
	struct sink *s = ctx;
	int64_t now = replay_now_ms(s->rp);
	return now >= 100 ? -1 : 100 - now;
}

/* A data line is JSON that gives back every byte of text, escapes included. */
TEST(a_data_line_escapes_every_byte_as_json)
{
	char data[160];
	size_t n = 0;
	struct strbuf sb = STRBUF_INIT;

	for (int c = 1; c < 0x80; c++)
		data[n++] = (char)c;
	memcpy(data + n, "\"\\\xc3\xa9\n", 5);
	n += 5;
	recording_line_data(&sb, 7, 3, data, n);
	CHECK(sb.len && sb.buf[sb.len - 1] == '\n');
	CHECK(strstr(sb.buf, "\\u0001\\u0002") && strstr(sb.buf, "\\u001f !\\\"#"));
	struct json_object *line = json_tokener_parse(sb.buf), *d;
	CHECK(line && json_object_object_get_ex(line, "data", &d));
	if (line && json_object_object_get_ex(line, "data", &d)) {
		CHECK((size_t)json_object_get_string_len(d) == n);
		CHECK(!memcmp(json_object_get_string(d), data, n));
	}
	json_object_put(line);
	strbuf_release(&sb);
}

TEST(replay_runs_on_the_recorded_clock)
{
	struct errbuf err = { "" };
	/* pieces at 10 and 50 ms; the transfer ended by kinf at 130 */
	const char *text =
		"{\"kinfRecording\":1}\n"
		"{\"t\":5,\"x\":1,\"stream\":\"w\",\"get\":\"w?watch=1\"}\n"
		"{\"t\":6,\"x\":1,\"status\":200}\n"
		"{\"t\":10,\"x\":1,\"data\":\"one\\n\"}\n"
		"{\"t\":50,\"x\":1,\"data\":\"two\\n\"}\n"
		"{\"t\":130,\"x\":1,\"end\":-1,\"error\":\"aborted\"}\n"
		"{\"t\":140,\"x\":2,\"stream\":\"w\",\"get\":\"w?watch=1\"}\n"
		"{\"t\":141,\"x\":2,\"status\":200}\n"
		"{\"t\":150,\"x\":2,\"data\":\"three\\n\"}\n"
		"{\"t\":160,\"x\":2,\"end\":0}\n";
	char *path = write_gz("clock.rec", text, strlen(text));
	struct sink s;
	struct replay *rp = open_replay(path, &s);
	if (!rp)
		return;
	struct http_response ans = { 0 };
	struct stream_opts req = {
		.record_as = "w", .tick = renew_after_100, .tick_ctx = &s, .tick_ms = 100,
	};

	/* the tick at 105 (5 + 100) ends it, as it did live */
	CHECK_INT(replay_stream(rp, NULL, &req, on_data, &s, &ans, &err), -1);
	CHECK_STR(err.msg, "aborted");
	CHECK_INT(s.pieces, 2);
	CHECK_INT(s.clock_at[0], 10);
	CHECK_INT(s.clock_at[1], 50);
	CHECK_INT(replay_now_ms(rp), 105);
	/* sleeping moves the clock, and waits for nothing */
	int64_t before = mono_ms();
	CHECK(!replay_sleep(rp, NULL, -1, 30000));
	CHECK(mono_ms() - before < 1000);
	CHECK_INT(replay_now_ms(rp), 30105);
	/*
	 * The next exchange began at 140, live; the replay's sleep has gone
	 * past it: the clock does not go back, the exchange's own lengths
	 * stay (its piece 10 ms in, its end 20 ms in).
	 */
	req.tick = NULL;
	CHECK_INT(replay_stream(rp, NULL, &req, on_data, &s, &ans, &err), 0);
	CHECK_INT(s.clock_at[2], 30105 + 10);
	CHECK_INT(replay_now_ms(rp), 30105 + 20);
	CHECK_STR(strbuf_str(&s.got), "one\ntwo\nthree\n");

	http_response_release(&ans);
	replay_free(rp);
	strbuf_release(&s.got);
	unlink(path);
	free(path);
}

TEST(a_file_cut_short_is_read_as_far_as_it_goes)
{
	struct errbuf err = { "" };
	const char *text =
		"{\"kinfRecording\":1}\n"
		"{\"t\":1,\"x\":1,\"stream\":\"w\",\"get\":\"w\"}\n"
		"{\"t\":2,\"x\":1,\"status\":200}\n"
		"{\"t\":3,\"x\":1,\"data\":\"whole\\n\"}\n"
		"{\"t\":4,\"x\":1,\"da";
	/* a gzip stream without its end, as a killed kinf leaves it */
	char *path = path_of("cut.rec");
	gzFile gz = gzopen(path, "wb");
	gzwrite(gz, text, (unsigned)strlen(text));
	gzflush(gz, Z_SYNC_FLUSH);
	FILE *f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fclose(f);
	gzclose(gz);
	CHECK_INT(truncate(path, size), 0);

	struct sink s;
	struct replay *rp = open_replay(path, &s);
	if (!rp)
		return;
	struct http_response ans = { 0 };
	struct stream_opts req = { .record_as = "w" };
	CHECK_INT(replay_stream(rp, NULL, &req, on_data, &s, &ans, &err), -1);
	CHECK_STR(strbuf_str(&s.got), "whole\n");
	CHECK_STR(err.msg, "the recording ends here");
	http_response_release(&ans);
	replay_free(rp);
	strbuf_release(&s.got);
	unlink(path);
	free(path);
}

TEST(bad_files_name_the_line)
{
	static const struct {
		const char *text, *message;
	} cases[] = {
		{ "", "empty: not a kinf recording" },
		{ "{\"kinfRecording\":2}\n", ":1: not a kinf recording" },
		{ "[1]\n", ":1: not a JSON object" },
		{ "{\"kinfRecording\":1}\n{\"t\":1,\"x\":3,\"data\":\"x\"}\n",
		  ":2: a record of exchange 3, which never began" },
		{ "{\"kinfRecording\":1}\n{\"t\":1,\"x\":1,\"stream\":\"s\",\"get\":\"g\"}\n"
		  "{\"t\":1,\"x\":1,\"end\":0}\n{\"t\":2,\"x\":1,\"data\":\"x\"}\n",
		  ":4: a record of exchange 1, which had ended" },
		{ "{\"kinfRecording\":1}\n{\"x\":1,\"stream\":\"s\"}\n",
		  ":2: a record without its time and exchange number" },
		{ "{\"kinfRecording\":1}\n{\"t\":1,\"x\":1,\"stream\":\"s\",\"get\":\"g\"}\n"
		  "{\"t\":1,\"x\":1,\"data64\":\"!!\"}\n", ":3: data64 is not base64" },
		{ "{\"kinfRecording\":1}\n{\"t\":1,\"x\":1,\"frob\":1}\n",
		  ":2: a record of exchange 1, which never began" },
		/* each member is of its type, each number in its range */
		{ "{\"kinfRecording\":1}\n{\"t\":1,\"x\":1,\"stream\":null}\n",
		  ":2: \"stream\" is not a string" },
		{ "{\"kinfRecording\":\"1\"}\n", ":1: not a kinf recording" },
		{ "{\"kinfRecording\":1}\n{\"t\":1e300,\"x\":1,\"stream\":\"s\"}\n",
		  ":2: \"t\" is not an integer" },
		{ "{\"kinfRecording\":1}\n{\"t\":9223372036854775807,\"x\":1,\"stream\":\"s\"}\n",
		  ":2: \"t\" is not an integer from 0 to" },
		{ "{\"kinfRecording\":1}\n{\"t\":1,\"x\":-4,\"stream\":\"s\"}\n",
		  ":2: \"x\" is not an integer from 1 to" },
		{ "{\"kinfRecording\":1}\n{\"t\":1,\"x\":1,\"stream\":\"s\"}\n"
		  "{\"t\":1,\"x\":1,\"status\":\"200\"}\n", ":3: \"status\" is not an integer" },
		{ "{\"kinfRecording\":1}\n{\"t\":1,\"x\":1,\"stream\":\"s\"}\n"
		  "{\"t\":1,\"x\":1,\"data\":[1]}\n", ":3: \"data\" is not a string" },
		{ "{\"kinfRecording\":1}\n{\"t\":1,\"x\":1,\"stream\":\"s\"}\n"
		  "{\"t\":1,\"x\":1,\"end\":-1,\"error\":7}\n", ":3: \"error\" is not a string" },
		{ "{\"kinfRecording\":1}\n{\"t\":1,\"x\":1,\"stream\":\"s\"}\n"
		  "{\"t\":1,\"x\":1,\"q\":-1}\n", ":3: \"q\" is not an integer" },
		{ "{\"kinfRecording\":1}\n{\"t\":1,\"trigger\":null}\n",
		  ":2: \"trigger\" is not a string" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct errbuf err = { "" };
		char *path = write_gz("bad.rec", cases[i].text, strlen(cases[i].text));
		struct recording *r = recording_load(path, &err);
		CHECK(r == NULL);
		if (!strstr(err.msg, cases[i].message))
			fprintf(stderr, "# case %zu: got '%s'\n", i, err.msg);
		CHECK(strstr(err.msg, cases[i].message) != NULL);
		recording_free(r);
		unlink(path);
		free(path);
	}
	struct errbuf err = { "" };
	CHECK(recording_load("/nonexistent/x.rec", &err) == NULL);
	CHECK_STR(err.msg, "cannot open '/nonexistent/x.rec': No such file or directory");
	CHECK(recorder_open("/nonexistent/x.rec", &info, &err) == NULL);
	CHECK_STR(err.msg, "cannot create '/nonexistent/x.rec': No such file or directory");
}

/*
 * Limits on what a file may make kinf hold: a line longer than 64 MiB
 * (a few hundred kilobytes of gzip) fails before it is all read; an
 * exchange number costs nothing for being large; a body written whole
 * comes back whole, cut into records no line of which nears the limit.
 */
TEST(a_recording_is_outside_input)
{
	struct errbuf err = { "" };
	size_t big = (size_t)65 << 20;
	char *spaces = xmalloc(big);
	memset(spaces, ' ', big);
	memcpy(spaces, "{\"kinfRecording\":1}\n{\"t\":", 24);
	char *path = write_gz("long.rec", spaces, big);
	CHECK(recording_load(path, &err) == NULL);
	CHECK(strstr(err.msg, "long.rec:2: a line longer than 64 MiB") != NULL);
	unlink(path);
	free(path);

	static const char far[] = "{\"kinfRecording\":1}\n"
		"{\"t\":1,\"x\":9000000000000000000,\"stream\":\"s\",\"get\":\"g\"}\n";
	path = write_gz("far.rec", far, strlen(far));
	struct recording *r = recording_load(path, &err);
	CHECK(r != NULL && !recording_empty(r));
	recording_free(r);
	unlink(path);
	free(path);

	/* 9 MiB of text in one piece: three data records, the text whole */
	struct strbuf lines = STRBUF_INIT;
	size_t n = (size_t)9 << 20;
	char *text = xmalloc(n);
	for (size_t i = 0; i < n; i++)
		text[i] = i % 3 == 2 ? (char)0xa9 : i % 3 == 1 ? (char)0xc2 : 'x';
	recording_line_header(&lines, &info);
	recording_line_begin(&lines, 1, 1, "s", "g");
	recording_line_status(&lines, 1, 1, &(struct recorded_answer){ 200, "", -1 });
	recording_line_data(&lines, 1, 1, text, n);
	size_t records = 0;
	for (const char *p = lines.buf; (p = strstr(p, "\"data\":")); p++)
		records++;
	CHECK_INT(records, 3);
	path = write_gz("pieces.rec", lines.buf, lines.len);
	struct sink s;
	struct replay *rp = open_replay(path, &s);
	if (rp) {
		struct http_response ans = { 0 };
		struct stream_opts req = { .record_as = "s" };
		replay_stream(rp, NULL, &req, on_data, &s, &ans, &err);
		CHECK_INT(s.got.len, n);
		CHECK(s.got.len == n && !memcmp(s.got.buf, text, n));
		http_response_release(&ans);
		strbuf_release(&s.got);
		replay_free(rp);
	}
	unlink(path);
	free(path);
	free(text);
	free(spaces);
	strbuf_release(&lines);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(round_trip_keeps_bytes_status_and_order);
	RUN(a_data_line_escapes_every_byte_as_json);
	RUN(replay_runs_on_the_recorded_clock);
	RUN(a_file_cut_short_is_read_as_far_as_it_goes);
	RUN(bad_files_name_the_line);
	RUN(a_recording_is_outside_input);
	rmdir(dir);
	return unit_done();
}
