/* test_json_stream.c — lists and watch streams split at any byte. */
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

TEST(lines_split_across_chunks)
{
	const char *stream = "{\"type\":\"ADDED\"}\n{\"type\":\"MOD\nIFIED\"}\n\r\n{\"x\":1}";
	for (size_t step = 1; step < 8; step++) {
		struct seen s = { 0 };
		struct line_splitter ls;
		line_splitter_init(&ls, collect, &s);
		size_t len = strlen(stream);
		for (size_t i = 0; i < len; i += step)
			line_splitter_feed(&ls, stream + i, i + step > len ? len - i : step);
		CHECK_INT(s.n, 3);
		CHECK_STR(s.items[0], "{\"type\":\"ADDED\"}");
		CHECK_STR(s.items[1], "{\"type\":\"MOD");
		CHECK_STR(s.items[2], "IFIED\"}");
		CHECK_INT(line_splitter_pending(&ls), 7);	/* {"x":1} unfinished */
		line_splitter_release(&ls);
	}
}

TEST(pieces_longer_than_16_mib_are_refused)
{
	size_t big = JSON_STREAM_MAX_PIECE + 1;
	char *blob = malloc(big);
	struct seen s = { 0 };

	memset(blob, 'x', big);
	/* A line that never ends, fed in pieces: refused, not gathered. */
	struct line_splitter lines;
	line_splitter_init(&lines, collect, &s);
	CHECK_INT(line_splitter_feed(&lines, "{\"a\":1}\n\"", 9), 0);
	CHECK_INT(line_splitter_feed(&lines, blob, big / 2), 0);
	CHECK_INT(line_splitter_feed(&lines, blob, big / 2 + 1), -1);
	CHECK(lines.too_large);
	CHECK_INT(s.n, 1);
	line_splitter_release(&lines);

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

TEST(scalar_items_are_malformed)
{
	/* Not objects: skipping them would list fewer objects than sent. */
	static const char *const bad[] = {
		"{\"items\":[1]}", "{\"items\":[{},\"x\"]}", "{\"items\":[null]}",
		"{\"items\":[true,{}]}",
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
	struct line_splitter lsp;
	struct list_splitter isp;

	line_splitter_init(&lsp, note_where, &wl);
	CHECK_INT(line_splitter_feed(&lsp, lines, strlen(lines)), 0);
	CHECK_INT(wl.n, 2);
	CHECK_INT(wl.in_place, 2);
	line_splitter_release(&lsp);

	list_splitter_init(&isp, note_where, &wi);
	CHECK_INT(list_splitter_feed(&isp, list, strlen(list)), 0);
	CHECK_INT(wi.n, 2);
	CHECK_INT(wi.in_place, 2);
	list_splitter_release(&isp);
}

int main(void)
{
	RUN(list_items_whatever_the_chunking);
	RUN(empty_list_and_items_key_elsewhere);
	RUN(truncated_list_is_not_done);
	RUN(list_callback_can_stop);
	RUN(lines_split_across_chunks);
	RUN(pieces_longer_than_16_mib_are_refused);
	RUN(scalar_items_are_malformed);
	RUN(whole_pieces_are_handed_over_where_they_lie);
	return unit_done();
}
