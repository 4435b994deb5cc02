/* test_json_stream.c — lists and watch streams split at any byte. */
#include <json-c/json.h>

#include "informer/decode_error.h"
#include "lib/gojson.h"
#include "lib/json_scan.h"
#include "lib/json_stream.h"
#include "unit.h"

struct seen {
	char items[16][128];
	int n;
	int stop_after;
};

static int collect(void *ctx, const char *text, size_t len)
{
	struct seen *s = ctx;
	if (s->n < 16)
		snprintf(s->items[s->n], sizeof(s->items[0]), "%.*s", (int)len, text);
	s->n++;
	return s->stop_after && s->n >= s->stop_after ? -1 : 0;
}

static const char list[] =
	"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"42\","
	"\"continue\":\"abc\"},\"items\":[{\"metadata\":{\"name\":\"a\",\"note\":\"}]\\\"[{\"}},"
	" {\"metadata\":{\"name\":\"b\"},\"spec\":{\"x\":[1,{\"y\":2}]}}]}";

/* Feeds text in pieces of `step` bytes. */
static void feed_list(struct list_splitter *ls, const char *text, size_t step)
{
	size_t len = strlen(text);
	for (size_t i = 0; i < len; i += step)
		list_splitter_feed(ls, text + i, i + step > len ? len - i : step);
}

TEST(list_items_whatever_the_chunking)
{
	for (size_t step = 1; step <= sizeof(list); step++) {
		struct seen s = { 0 };
		struct list_splitter ls;
		list_splitter_init(&ls, collect, &s);
		feed_list(&ls, list, step);
		CHECK_INT(s.n, 2);
		CHECK_STR(s.items[0], "{\"metadata\":{\"name\":\"a\",\"note\":\"}]\\\"[{\"}}");
		CHECK_STR(s.items[1], "{\"metadata\":{\"name\":\"b\"},\"spec\":{\"x\":[1,{\"y\":2}]}}");
		CHECK_STR(list_splitter_rest(&ls),
			  "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":"
			  "{\"resourceVersion\":\"42\",\"continue\":\"abc\"},\"items\":[]}");
		CHECK(list_splitter_done(&ls));
		list_splitter_release(&ls);
		if (unit_current_failed) {
			printf("# failed with pieces of %zu bytes\n", step);
			break;
		}
	}
}

TEST(empty_list_and_items_key_elsewhere)
{
	struct seen s = { 0 };
	struct list_splitter ls;
	list_splitter_init(&ls, collect, &s);
	feed_list(&ls, "{\"metadata\":{\"items\":[1]},\"items\":[]}", 3);
	CHECK_INT(s.n, 0);
	CHECK(list_splitter_done(&ls));
	list_splitter_release(&ls);
}

TEST(truncated_list_is_not_done)
{
	struct seen s = { 0 };
	struct list_splitter ls;
	list_splitter_init(&ls, collect, &s);
	feed_list(&ls, "{\"items\":[{\"a\":1},{\"b\":", 5);
	CHECK_INT(s.n, 1);
	CHECK(!list_splitter_done(&ls));
	list_splitter_release(&ls);
}

TEST(list_callback_can_stop)
{
	struct seen s = { .stop_after = 1 };
	struct list_splitter ls;
	list_splitter_init(&ls, collect, &s);
	CHECK_INT(list_splitter_feed(&ls, list, strlen(list)), -1);
	CHECK_INT(s.n, 1);
	list_splitter_release(&ls);
}

/* Whether text is one JSON value and nothing else. */
static bool one_value(const char *text, size_t len)
{
	struct json_scan js;

	json_scan_init(&js, text, len, NULL);
	json_scan_skip_ws(&js);
	if (json_scan_value(&js) < 0)
		return false;
	json_scan_skip_ws(&js);
	return js.p == js.end;
}

/* As the reflector takes a piece: a line that is no one value goes back to be framed. */
static struct value_splitter *framing;
static int collect_value(void *ctx, const char *text, size_t len)
{
	if (!framing->framed && !one_value(text, len))
		return JSON_PIECE_REFRAME;
	return collect(ctx, text, len);
}

static void values_init(struct value_splitter *vs, struct seen *s)
{
	value_splitter_init(vs, collect_value, s);
	framing = vs;
}

/* Feeds text in pieces of `step` bytes; the last feed's result. */
static int feed_values(struct value_splitter *vs, const char *text, size_t step)
{
	size_t len = strlen(text);
	int rc = 0;

	for (size_t i = 0; i < len && rc == 0; i += step)
		rc = value_splitter_feed(vs, text + i, i + step > len ? len - i : step);
	return rc;
}

TEST(values_split_as_go_frames_them_whatever_the_chunking)
{
	/*
	 * Values one after another, as Go's json.Decoder reads them: a
	 * newline between them, or none, or several values on a line, or a
	 * value over lines; blank lines and a "\r" are white space.
	 */
	const char *stream = "{\"type\":\"ADDED\"}\n\r\n{\"a\":\"}{\\\"\"}{\"b\":[1,\n2]}\n"
			     "  [3] {\"c\":\n{\"d\":4}\n}{\"e\":";
	for (size_t step = 1; step < 9; step++) {
		struct seen s = { 0 };
		struct value_splitter vs;
		values_init(&vs, &s);
		CHECK_INT(feed_values(&vs, stream, step), 0);
		CHECK_INT(s.n, 5);
		CHECK_STR(s.items[0], "{\"type\":\"ADDED\"}");
		CHECK_STR(s.items[1], "{\"a\":\"}{\\\"\"}");
		CHECK_STR(s.items[2], "{\"b\":[1,\n2]}");
		CHECK_STR(s.items[3], "[3]");
		CHECK_STR(s.items[4], "{\"c\":\n{\"d\":4}\n}");
		CHECK_INT(value_splitter_pending(&vs), 5);	/* {"e": unfinished */
		CHECK(!value_splitter_broken(&vs));
		value_splitter_release(&vs);
	}
}

TEST(broken_values_go_as_they_come)
{
	/*
	 * What Go's scanner stops at goes at once, for the caller to refuse,
	 * and the stream goes on after it: a value broken before a newline,
	 * a newline inside a string, what is no object or array (the rest of
	 * its line).
	 */
	const char *stream = "{oops\n{\"type\":\"MOD\nIFIED\"}\nnull\n<html>x\n{\"x\":1}\n";
	for (size_t step = 1; step < 9; step++) {
		struct seen s = { 0 };
		struct value_splitter vs;
		values_init(&vs, &s);
		CHECK_INT(feed_values(&vs, stream, step), 0);
		CHECK_INT(s.n, 6);
		CHECK_STR(s.items[0], "{oops\n");
		CHECK_STR(s.items[1], "{\"type\":\"MOD");
		CHECK_STR(s.items[2], "IFIED\"}");
		CHECK_STR(s.items[3], "null");
		CHECK_STR(s.items[4], "<html>x");
		CHECK_STR(s.items[5], "{\"x\":1}");
		CHECK_INT(value_splitter_pending(&vs), 0);
		value_splitter_release(&vs);
	}
	/*
	 * A value cut off: valid so far where a token may be cut; broken
	 * where a newline ended it, and then handed over at once.
	 */
	static const struct { const char *text; bool broken; } cut[] = {
		{ "{\"a\":\"xy", false }, { "{\"a\":tr", false }, { "{\"a\":1.", false },
		{ "{\"a\":\"\\u12", false }, { "{\n", false }, { "{\"a\":\n", false },
		{ "{\"a\":1,\n", false }, { "{\"a\":[true,\n", false },
		{ "{\"a\":1\n\"b\"", false }, { "{\"a\":1\n\"b\"\n", true },
		{ "{\"a\":tru\n", true }, { "{\"a\":1.\n", true },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cut); i++) {
		struct seen s = { 0 };
		struct value_splitter vs;
		values_init(&vs, &s);
		value_splitter_feed(&vs, cut[i].text, strlen(cut[i].text));
		CHECK_INT(s.n, cut[i].broken ? 1 : 0);
		CHECK(!value_splitter_broken(&vs));
		value_splitter_release(&vs);
	}
	/*
	 * Past its 16th newline a value is scanned only when it has doubled:
	 * one broken after that is pending, and said broken where it ends.
	 */
	struct seen s = { 0 };
	struct value_splitter vs;
	values_init(&vs, &s);
	CHECK_INT(feed_values(&vs, "{\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\"a\" x\n", 3), 0);
	CHECK_INT(s.n, 0);
	CHECK(value_splitter_broken(&vs));
	CHECK_INT(value_splitter_feed(&vs, "\"b\"", 3), 0);
	CHECK(!value_splitter_broken(&vs));	/* no newline after: it may be cut */
	value_splitter_release(&vs);
}

TEST(pieces_longer_than_16_mib_are_refused)
{
	size_t big = JSON_STREAM_MAX_PIECE + 1;
	char *blob = malloc(big);
	struct seen s = { 0 };

	memset(blob, 'x', big);
	/* A value that never ends, fed in pieces: refused, not gathered. */
	struct value_splitter values;
	values_init(&values, &s);
	CHECK_INT(value_splitter_feed(&values, "{\"a\":1}\n{\"", 10), 0);
	CHECK_INT(value_splitter_feed(&values, blob, big / 2), 0);
	CHECK_INT(value_splitter_feed(&values, blob, big / 2 + 1), -1);
	CHECK(values.too_large);
	CHECK_INT(s.n, 1);
	value_splitter_release(&values);
	/* A valid one whole in a single read, newline and all: refused as well. */
	char *line = malloc(big + 1);
	memset(line, 'x', big);
	memcpy(line, "{\"a\":\"", 6);
	memcpy(line + big - 2, "\"}\n", 3);
	values_init(&values, &s);
	CHECK_INT(value_splitter_feed(&values, line, big + 1), -1);
	CHECK(values.too_large);
	CHECK_INT(s.n, 1);
	value_splitter_release(&values);
	free(line);

	/* A list item, and the list without its items. */
	struct list_splitter ls;
	list_splitter_init(&ls, collect, &s);
	CHECK_INT(list_splitter_feed(&ls, "{\"items\":[{\"a\":\"", 16), 0);
	CHECK(ls.has_items);
	CHECK_INT(list_splitter_feed(&ls, blob, big), -1);
	CHECK(ls.too_large);
	list_splitter_release(&ls);
	list_splitter_init(&ls, collect, &s);
	CHECK_INT(list_splitter_feed(&ls, "{\"kind\":\"", 9), 0);
	CHECK_INT(list_splitter_feed(&ls, blob, big), -1);
	CHECK(ls.too_large && !ls.has_items);
	list_splitter_release(&ls);
	free(blob);
}

TEST(scalar_items_but_null_are_malformed)
{
	/* Not objects: skipping them would list fewer objects than sent. */
	static const char *const bad[] = {
		"{\"items\":[1]}", "{\"items\":[{},\"x\"]}", "{\"items\":[nul]}",
		"{\"items\":[true,{}]}", "{\"items\":[nu ll]}", "{\"items\":[nullx]}",
		"{\"items\":[nu,{}]}", "{\"items\":[n{}]}",
		/* Nor is anything around the list. */
		"<html>{}</html>", "Bad Gateway", "\"items\"", "{} x",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct seen s = { 0 };
		struct list_splitter ls;
		list_splitter_init(&ls, collect, &s);
		CHECK_INT(list_splitter_feed(&ls, bad[i], strlen(bad[i])), -1);
		list_splitter_release(&ls);
	}
	/* Arrays are handed over, for the maker to refuse. */
	struct seen s = { 0 };
	struct list_splitter ls;
	list_splitter_init(&ls, collect, &s);
	CHECK_INT(list_splitter_feed(&ls, "{\"items\":[ [1] , {} ]}", 22), 0);
	CHECK_INT(s.n, 2);
	CHECK_STR(s.items[0], "[1]");
	list_splitter_release(&ls);
	/* So is null (an empty object to client-go's dynamic client), in any chunks. */
	struct seen n = { 0 };
	list_splitter_init(&ls, collect, &n);
	CHECK_INT(list_splitter_feed(&ls, "{\"items\":[nu", 12), 0);
	CHECK_INT(list_splitter_feed(&ls, "ll, {},null]}", 13), 0);
	CHECK(list_splitter_done(&ls) && ls.items == 3);
	CHECK_INT(n.n, 3);
	CHECK_STR(n.items[0], "null");
	CHECK_STR(n.items[1], "{}");
	CHECK_STR(n.items[2], "null");
	list_splitter_release(&ls);
}

/* Where the pieces handed over lie: in the bytes fed, or in a copy. */
struct where {
	const char *from, *to;	/* the bytes fed */
	int n, in_place;
};

static int note_where(void *ctx, const char *text, size_t len)
{
	struct where *w = ctx;

	w->n++;
	if (text >= w->from && text + len <= w->to)
		w->in_place++;
	return 0;
}

/* One copy is enough (the decoder's): a piece whole in one chunk is not copied. */
TEST(whole_pieces_are_handed_over_where_they_lie)
{
	static const char lines[] = "{\"a\":1}\n{\"b\":2}\n";
	struct where wl = { lines, lines + strlen(lines), 0, 0 };
	struct where wi = { list, list + strlen(list), 0, 0 };
	struct value_splitter lsp;
	struct list_splitter isp;

	value_splitter_init(&lsp, note_where, &wl);
	CHECK_INT(value_splitter_feed(&lsp, lines, strlen(lines)), 0);
	CHECK_INT(wl.n, 2);
	CHECK_INT(wl.in_place, 2);
	value_splitter_release(&lsp);

	list_splitter_init(&isp, note_where, &wi);
	CHECK_INT(list_splitter_feed(&isp, list, strlen(list)), 0);
	CHECK_INT(wi.n, 2);
	CHECK_INT(wi.in_place, 2);
	list_splitter_release(&isp);
}

/*
 * Go's scanner's own words, checked against Go (kubectl's Status of each,
 * tests/39-get-watch.bats): where a value ends, or why it is broken.
 */
TEST(gojson_reads_a_value_as_go_does)
{
	static const struct { const char *text; long n; const char *msg; } cases[] = {
		{ "{\"a\":[1,2.5e-3,true,null,\"\\u00e9\"]} {", 35, "" },
		{ "  \"s\"x", 5, "" },
		{ "5", 1, "" },
		{ "-", 0, "" },
		{ "{\"a\":1", 0, "" },
		{ "   ", 0, "" },
		{ "{\"kind\":\"Pod\",}", -1, "invalid character '}' looking for beginning of object key string" },
		{ "x", -1, "invalid character 'x' looking for beginning of value" },
		{ "nul\n", -1, "invalid character '\\n' in literal null (expecting 'l')" },
		{ "tru ", -1, "invalid character ' ' in literal true (expecting 'e')" },
		{ "-\n", -1, "invalid character '\\n' in numeric literal" },
		{ "0.x", -1, "invalid character 'x' after decimal point in numeric literal" },
		{ "1e\n", -1, "invalid character '\\n' in exponent of numeric literal" },
		{ "{\"a\" 1}", -1, "invalid character '1' after object key" },
		{ "{\"a\":1 2}", -1, "invalid character '2' after object key:value pair" },
		{ "[1 2]", -1, "invalid character '2' after array element" },
		{ "{\"a\":\"\\q\"}", -1, "invalid character 'q' in string escape code" },
		{ "{\"a\":\"\\u12G4\"}", -1, "invalid character 'G' in \\u hexadecimal character escape" },
		{ "\"\x01\"", -1, "invalid character '\\x01' in string literal" },
		{ "'", -1, "invalid character '\\'' looking for beginning of value" },
		{ "\x80", -1, "invalid character '\\u0080' looking for beginning of value" },
		{ "\xe9", -1, "invalid character '\xc3\xa9' looking for beginning of value" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf msg = STRBUF_INIT;
		long n = gojson_value(cases[i].text, strlen(cases[i].text), &msg);
		CHECKF(n == cases[i].n, "%s: %ld, not %ld", cases[i].text, n, cases[i].n);
		CHECK_STR(strbuf_str(&msg), cases[i].msg);
		strbuf_release(&msg);
	}
}

TEST(gojson_matches_names_as_encoding_json_folds_them)
{
	static const struct {
		const char *key, *name;
		bool same;
	} cases[] = {
		{ "kind", "kind", true }, { "KiNd", "kind", true },
		{ "\xe2\x84\xaaind", "kind", true },		/* Kelvin sign */
		{ "k\xc4\xb1nd", "kind", false },		/* dotless i: no simple fold */
		{ "K\xc4\xb0ND", "kind", false },		/* dotted capital I: none */
		{ "APIVER\xc5\xbfION", "apiVersion", true },	/* long s */
		{ "\xc5\xbfind", "kind", false },		/* long s is no k */
		{ "kin", "kind", false }, { "kinds", "kind", false },
		{ "kind ", "kind", false }, { "\xe2\x84", "kind", false },
		{ "", "kind", false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		CHECK(gojson_name_is(cases[i].key, strlen(cases[i].key), cases[i].name) ==
		      cases[i].same);
}

TEST(gojson_refuses_nesting_deeper_than_go)
{
	struct strbuf deep = STRBUF_INIT, msg = STRBUF_INIT;

	for (int i = 0; i <= JSON_MAX_DEPTH; i++)
		strbuf_addch(&deep, '[');
	CHECK(gojson_value(deep.buf, deep.len, &msg) == -1);
	CHECK_STR(strbuf_str(&msg), "invalid character '[' exceeded max depth");
	strbuf_setlen(&deep, deep.len - 1);
	strbuf_reset(&msg);
	CHECK(gojson_value(deep.buf, deep.len, &msg) == 0);
	strbuf_release(&deep);
	strbuf_release(&msg);
}

TEST(watch_decode_error_says_what_client_go_says)
{
	static const struct { const char *text; const char *why; } cases[] = {
		{ "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\"}}", NULL },
		{ "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\"}}\n", NULL },
		{ "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",}}",
		  "invalid character '}' looking for beginning of object key string" },
		{ "nul", "invalid character '\\n' in literal null (expecting 'l')" },
		{ "[1]", "couldn't get version/kind; json parse error: json: cannot unmarshal array "
			 "into Go value of type struct { APIVersion string \"json:\\\"apiVersion,"
			 "omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }" },
		{ "null", "got invalid watch event type: " },
		{ "{\"type\":\"ADDED\",\"KIND\":7,\"object\":{\"kind\":\"Pod\"}}",
		  "couldn't get version/kind; json parse error: json: cannot unmarshal number "
		  "into Go struct field .kind of type string" },
		{ "{\"type\":5,\"object\":{}}",
		  "json: cannot unmarshal number into Go struct field WatchEvent.type of type string" },
		{ "{\"Type\":\"ADDED\",\"object\":{\"kind\":\"Pod\"}}", "got invalid watch event type: " },
		{ "{\"type\":\"ADDED\",\"type\":null,\"object\":{\"kind\":\"Pod\"}}", NULL },
		/* kubectl 1.32's words; the event's own numbers are skipped, not read */
		{ "{\"type\":\"ADDED\",\"n\":1e999,\"object\":{\"a\":[1e-400,-2E+309],\"kind\":\"Pod\"}}",
		  "unable to decode watch event: json: cannot unmarshal number -2E+309 into Go value "
		  "of type float64" },
		{ "{\"type\":\"ADDED\",\"n\":1e999,\"object\":{\"a\":1e308,\"kind\":\"Pod\"}}", NULL },
		{ "{\"type\":\"ADDED\",\"object\":null}",
		  "unable to decode watch event: unexpected end of JSON input" },
		{ "{\"type\":\"ADDED\",\"object\":\"x\"}", "unable to decode watch event: json: "
		  "cannot unmarshal string into Go value of type unstructured.detector" },
		{ "{\"type\":\"ADDED\",\"object\":{ \"kind\":\"\" ,\"a\":1}}",
		  "unable to decode watch event: Object 'Kind' is missing in '{ \"kind\":\"\" ,\"a\":1}'" },
		{ "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"kind\":5}}",
		  "unable to decode watch event: Object 'Kind' is missing in '{\"kind\":\"Pod\",\"kind\":5}'" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf why = STRBUF_INIT;
		bool refused = watch_decode_error(cases[i].text, strlen(cases[i].text), &why);
		CHECKF(refused == !!cases[i].why, "%s: %s", cases[i].text, strbuf_str(&why));
		CHECK_STR(strbuf_str(&why), cases[i].why ? cases[i].why : "");
		strbuf_release(&why);
	}
}

/*
 * json_scan_parse: a Table's cells read as kubectl's decoder reads them
 * (the literals a real kube-apiserver writes for float64 cells).
 */
TEST(json_scan_parse_reads_numbers_as_go_does)
{
	const char *text = " [9223372036854776000, 100000000000000000000, 9007199254740992, -1, 1.5]\n";
	struct json_object *v = json_scan_parse(text, strlen(text), NULL, NULL);

	CHECK(v && json_object_array_length(v) == 5);
	CHECK(json_object_is_type(json_object_array_get_idx(v, 0), json_type_double));
	CHECK(json_object_get_double(json_object_array_get_idx(v, 0)) == 0x1p63);
	CHECK(json_object_is_type(json_object_array_get_idx(v, 1), json_type_double));
	CHECK(json_object_get_double(json_object_array_get_idx(v, 1)) == 1e20);
	CHECK(json_object_is_type(json_object_array_get_idx(v, 2), json_type_int));
	CHECK(json_object_get_int64(json_object_array_get_idx(v, 3)) == -1);
	CHECK(json_object_is_type(json_object_array_get_idx(v, 4), json_type_double));
	json_object_put(v);
	CHECK(json_scan_parse("[1] x", 5, NULL, NULL) == NULL);
	CHECK(json_scan_parse("[1", 2, NULL, NULL) == NULL);
	CHECK(json_scan_parse("", 0, NULL, NULL) == NULL);
}

static int cut_all_but_a(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	(void)s;
	(*(int *)ctx)++;
	return json_scan_key_is(key, klen, "a") ? 0 : JSON_SCAN_CUT;
}

/* json_scan_parse's callback: the members it cuts are not in the tree. */
TEST(json_scan_parse_leaves_out_what_is_cut)
{
	const char *text = "{\"b\": {\"x\": [1, 2]}, \"a\": 1e400000, \"c\": \"s\", \"a\": 7}";
	int calls = 0;
	struct json_object *v = json_scan_parse(text, strlen(text), cut_all_but_a, &calls);

	CHECK(v == NULL);	/* what is kept is still read: 1e400000 is out of range */
	text = "{\"b\": {\"x\": [1, 2]}, \"a\": 100000000000000000000, \"c\": \"s\"}";
	calls = 0;
	v = json_scan_parse(text, strlen(text), cut_all_but_a, &calls);
	CHECK_STR(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), "{\"a\":1e+20}");
	CHECK(calls == 3);
	json_object_put(v);
	/* not an object: no member to call for */
	calls = 0;
	v = json_scan_parse("[{\"b\": 1}]", 10, cut_all_but_a, &calls);
	CHECK(v && calls == 0 && json_object_array_length(v) == 1);
	json_object_put(v);
	CHECK(json_scan_parse("{\"b\": [1}", 10, cut_all_but_a, &calls) == NULL);
}

int main(void)
{
	RUN(list_items_whatever_the_chunking);
	RUN(empty_list_and_items_key_elsewhere);
	RUN(truncated_list_is_not_done);
	RUN(list_callback_can_stop);
	RUN(values_split_as_go_frames_them_whatever_the_chunking);
	RUN(broken_values_go_as_they_come);
	RUN(pieces_longer_than_16_mib_are_refused);
	RUN(scalar_items_but_null_are_malformed);
	RUN(whole_pieces_are_handed_over_where_they_lie);
	RUN(gojson_reads_a_value_as_go_does);
	RUN(gojson_refuses_nesting_deeper_than_go);
	RUN(gojson_matches_names_as_encoding_json_folds_them);
	RUN(watch_decode_error_says_what_client_go_says);
	RUN(json_scan_parse_reads_numbers_as_go_does);
	RUN(json_scan_parse_leaves_out_what_is_cut);
	return unit_done();
}
